/* gst-cudaflow — the plugin loads and documents itself (no GPU needed)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/base/gstbasetransform.h>

static const gchar *elements[] = { "cudaconvolve", "cudaflowhs", "cudaflowtvl1", "cudaflowclg", "flowviz",
  "floenc", "flodec"
};

GST_START_TEST (test_plugin_registers_every_element)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
      "cudaflow");
  guint i;

  fail_unless (plugin != NULL, "plugin 'cudaflow' not found");
  gst_object_unref (plugin);
  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElement *e = gst_element_factory_make (elements[i], NULL);
    fail_unless (e != NULL, "cannot create %s", elements[i]);
    gst_object_unref (e);
  }
}

GST_END_TEST;

GST_START_TEST (test_every_property_has_a_sentence_as_blurb)
{
  guint i, j, n;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElement *e = gst_element_factory_make (elements[i], NULL);
    GParamSpec **props =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);

    for (j = 0; j < n; j++) {
      const gchar *blurb = g_param_spec_get_blurb (props[j]);
      const gchar *nick = g_param_spec_get_nick (props[j]);
      if (props[j]->owner_type == GST_TYPE_OBJECT)      /* "name" */
        continue;
      if (props[j]->owner_type == GST_TYPE_BASE_TRANSFORM)      /* "qos" */
        continue;
      fail_unless (blurb != NULL && strlen (blurb) > 20 &&
          g_strcmp0 (blurb, nick) != 0,
          "%s::%s has no useful blurb", elements[i], props[j]->name);
    }
    g_free (props);
    gst_object_unref (e);
  }
}

GST_END_TEST;

GST_START_TEST (test_element_metadata_is_complete)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElementFactory *f = gst_element_factory_find (elements[i]);
    const gchar *klass;
    fail_unless (f != NULL);
    klass = gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_KLASS);
    fail_unless (klass != NULL && strstr (klass, "Video") != NULL);
    fail_unless (gst_element_factory_get_metadata (f,
            GST_ELEMENT_METADATA_DESCRIPTION) != NULL);
    fail_unless_equals_int (gst_element_factory_get_num_pad_templates (f), 2);
    gst_object_unref (f);
  }
}

GST_END_TEST;

/* Each element says which backend it runs on in its own debug category
 * (GST_DEBUG=cudaconvolve:4 shows it), not only in the base class's. */
static GList *notices;

static void
record_notice (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (level == GST_LEVEL_INFO &&
      strstr (gst_debug_message_get (message), "running on the CPU backend"))
    notices = g_list_prepend (notices,
        g_strdup (gst_debug_category_get_name (category)));
}

GST_START_TEST (test_backend_notice_in_each_element_category)
{
  static const gchar *on_the_base[] = { "cudaconvolve", "flowviz",
    "cudaflowhs", "cudaflowtvl1", "cudaflowclg"
  };
  guint i;

  gst_debug_set_active (TRUE);
  gst_debug_add_log_function (record_notice, NULL, NULL);
  for (i = 0; i < G_N_ELEMENTS (on_the_base); i++) {
    GstElement *e = gst_element_factory_make (on_the_base[i], NULL);

    gst_debug_set_threshold_for_name (on_the_base[i], GST_LEVEL_INFO);
    gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
    fail_unless (g_list_find_custom (notices, on_the_base[i],
            (GCompareFunc) g_strcmp0) != NULL,
        "%s: no backend notice in its category", on_the_base[i]);
    gst_debug_set_threshold_for_name (on_the_base[i], GST_LEVEL_NONE);
  }
  gst_debug_remove_log_function (record_notice);
  g_list_free_full (notices, g_free);
  notices = NULL;
}

GST_END_TEST;

/* Numbers that may change in PLAYING can follow a GstController, but for
 * those whose in-between values mean nothing: an odd kernel side, median
 * windows of 0, 3 or 5 and of 0, 3, 5, 7 or 9, and a packed 0xRRGGBB
 * colour. */
GST_START_TEST (test_numbers_changeable_in_playing_are_controllable)
{
  static const gchar *exceptions[] = { "cudaconvolve:kernel-size",
    "cudaflowtvl1:median-size", "cudaflowtvl1:weighted-median-size",
    "flowviz:arrow-color", NULL
  };
  guint i, p, n;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElement *e = gst_element_factory_make (elements[i], NULL);
    GParamSpec **specs =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);

    for (p = 0; p < n; p++) {
      GType t = G_PARAM_SPEC_VALUE_TYPE (specs[p]);
      gchar *id = g_strdup_printf ("%s:%s", elements[i],
          g_param_spec_get_name (specs[p]));
      gboolean numeric = t == G_TYPE_INT || t == G_TYPE_UINT ||
          t == G_TYPE_INT64 || t == G_TYPE_UINT64 || t == G_TYPE_FLOAT ||
          t == G_TYPE_DOUBLE;

      /* GstBaseTransform's and GstObject's own are not ours */
      if (numeric && (specs[p]->flags & GST_PARAM_MUTABLE_PLAYING) &&
          g_type_is_a (specs[p]->owner_type, GST_TYPE_BASE_TRANSFORM) &&
          specs[p]->owner_type != GST_TYPE_BASE_TRANSFORM &&
          !g_strv_contains (exceptions, id))
        fail_unless (specs[p]->flags & GST_PARAM_CONTROLLABLE,
            "%s changes in PLAYING but is not controllable", id);
      g_free (id);
    }
    g_free (specs);
    gst_object_unref (e);
  }
}

GST_END_TEST;

static Suite *
elements_plugin_suite (void)
{
  Suite *s = suite_create ("plugin");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_plugin_registers_every_element);
  tcase_add_test (tc, test_every_property_has_a_sentence_as_blurb);
  tcase_add_test (tc, test_element_metadata_is_complete);
  tcase_add_test (tc, test_backend_notice_in_each_element_category);
  tcase_add_test (tc, test_numbers_changeable_in_playing_are_controllable);
  return s;
}

GST_CHECK_MAIN (elements_plugin);
