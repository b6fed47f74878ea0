/* gst-cudaflow — render the registry's view of our elements as Markdown
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: cf-doc-dump [PLUGIN] > docs/elements.md   (PLUGIN: cudaflow)
 * Run through `make docs`, which points GST_PLUGIN_PATH at the build tree.
 * The text comes from the element metadata, pad templates and property
 * specs, so the reference cannot drift from what gst-inspect-1.0 shows.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include <gst/gst.h>

static gchar *
md_escape (const gchar * text)
{
  GString *s = g_string_new (NULL);

  for (; text && *text; text++) {
    if (*text == '|')
      g_string_append (s, "\\|");
    else if (*text == '\n')
      g_string_append (s, " ");
    else
      g_string_append_c (s, *text);
  }
  return g_string_free (s, FALSE);
}

static gchar *
value_string (const GValue * value)
{
  if (G_VALUE_HOLDS_STRING (value)) {
    const gchar *str = g_value_get_string (value);
    /* an unset string is NULL, which is not the text "NULL" */
    return str ? g_strdup_printf ("\"%s\"", str) : g_strdup ("(unset)");
  }
  return gst_value_serialize (value);
}

static gchar *
range_string (GParamSpec * pspec)
{
  if (G_IS_PARAM_SPEC_INT (pspec)) {
    GParamSpecInt *p = G_PARAM_SPEC_INT (pspec);
    return g_strdup_printf ("%d … %d", p->minimum, p->maximum);
  }
  if (G_IS_PARAM_SPEC_UINT (pspec)) {
    GParamSpecUInt *p = G_PARAM_SPEC_UINT (pspec);
    return g_strdup_printf ("%u … %u", p->minimum, p->maximum);
  }
  if (G_IS_PARAM_SPEC_DOUBLE (pspec)) {
    GParamSpecDouble *p = G_PARAM_SPEC_DOUBLE (pspec);
    return g_strdup_printf ("%g … %g", p->minimum, p->maximum);
  }
  if (G_IS_PARAM_SPEC_FLOAT (pspec)) {
    GParamSpecFloat *p = G_PARAM_SPEC_FLOAT (pspec);
    return g_strdup_printf ("%g … %g", p->minimum, p->maximum);
  }
  if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    GEnumClass *klass = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    GString *s = g_string_new (NULL);
    guint i;
    for (i = 0; i < klass->n_values; i++)
      g_string_append_printf (s, "%s`%s`", i ? ", " : "",
          klass->values[i].value_nick);
    return g_string_free (s, FALSE);
  }
  if (G_IS_PARAM_SPEC_FLAGS (pspec)) {
    GFlagsClass *klass = G_PARAM_SPEC_FLAGS (pspec)->flags_class;
    GString *s = g_string_new ("flags: ");
    guint i;
    for (i = 0; i < klass->n_values; i++)
      g_string_append_printf (s, "%s`%s`", i ? ", " : "",
          klass->values[i].value_nick);
    return g_string_free (s, FALSE);
  }
  if (G_IS_PARAM_SPEC_BOOLEAN (pspec))
    return g_strdup ("true, false");
  return g_strdup ("");
}

static const gchar *
mutability (GParamSpec * pspec)
{
  if (pspec->flags & GST_PARAM_MUTABLE_PLAYING)
    return "playing";
  if (pspec->flags & GST_PARAM_MUTABLE_PAUSED)
    return "paused";
  if (pspec->flags & GST_PARAM_MUTABLE_READY)
    return "ready";
  return "";
}

/* The default as a new instance has it: an element's init () may override
 * the class default (GstBaseTransform's qos is FALSE, cudaconvolve sets
 * TRUE), and gst-inspect-1.0 shows the instance's value too. A double the
 * element keeps as a float reads back rounded (0.15 as 0.15000000596...):
 * that is still the declared default, printed as declared. */
static void
default_value (GstElement * element, GParamSpec * pspec, GValue * value)
{
  GValue declared = G_VALUE_INIT;

  g_object_get_property (G_OBJECT (element), pspec->name, value);
  if (!G_IS_PARAM_SPEC_DOUBLE (pspec))
    return;
  g_value_init (&declared, G_TYPE_DOUBLE);
  g_param_value_set_default (pspec, &declared);
  if (g_value_get_double (value) ==
      (double) (float) g_value_get_double (&declared))
    g_value_set_double (value, g_value_get_double (&declared));
  g_value_unset (&declared);
}

static void
dump_element (GstElementFactory * factory)
{
  GstElement *element = gst_element_factory_create (factory, NULL);
  const GList *l;
  GParamSpec **props;
  guint n, i;

  printf ("## %s\n\n", GST_OBJECT_NAME (factory));
  printf ("%s. Class: `%s`.\n\n",
      gst_element_factory_get_metadata (factory,
          GST_ELEMENT_METADATA_DESCRIPTION),
      gst_element_factory_get_metadata (factory, GST_ELEMENT_METADATA_KLASS));

  printf ("### Pads\n\n");
  for (l = gst_element_factory_get_static_pad_templates (factory); l;
      l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *caps = gst_static_caps_get (&t->static_caps);
    guint c;
    printf ("- **%s** (%s):\n", t->name_template,
        t->direction == GST_PAD_SRC ? "source" : "sink");
    for (c = 0; c < gst_caps_get_size (caps); c++) {
      GstCaps *one = gst_caps_copy_nth (caps, c);
      gchar *str = gst_caps_to_string (one);
      printf ("  - `%s`\n", str);
      g_free (str);
      gst_caps_unref (one);
    }
    gst_caps_unref (caps);
  }

  printf ("\n### Properties\n\n");
  printf ("| name | type | values | default | changeable in | description |\n");
  printf ("|---|---|---|---|---|---|\n");
  props = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  for (i = 0; i < n; i++) {
    GParamSpec *p = props[i];
    GValue def = G_VALUE_INIT;
    gchar *defstr, *range, *blurb;

    if (p->owner_type == GST_TYPE_OBJECT || !(p->flags & G_PARAM_READABLE))
      continue;
    g_value_init (&def, p->value_type);
    default_value (element, p, &def);
    defstr = value_string (&def);
    range = range_string (p);
    blurb = md_escape (g_param_spec_get_blurb (p));
    printf ("| `%s` | %s | %s | `%s` | %s | %s |\n", p->name,
        g_type_name (p->value_type), range, defstr, mutability (p), blurb);
    g_free (blurb);
    g_free (range);
    g_free (defstr);
    g_value_unset (&def);
  }
  printf ("\n");
  g_free (props);
  gst_object_unref (element);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (GST_OBJECT_NAME (a), GST_OBJECT_NAME (b));
}

int
main (int argc, char **argv)
{
  const gchar *plugin_name = argc > 1 ? argv[1] : "cudaflow";
  GList *features, *l;
  GstPlugin *plugin;

  gst_init (&argc, &argv);
  plugin = gst_registry_find_plugin (gst_registry_get (), plugin_name);
  if (plugin == NULL) {
    fprintf (stderr, "cf-doc-dump: plugin '%s' not found (GST_PLUGIN_PATH?)\n",
        plugin_name);
    return 1;
  }

  printf ("# Element reference\n\n");
  printf ("Generated by `make docs` (tools/cf-doc-dump) from the GStreamer "
      "registry: the same information as `gst-inspect-1.0`. Plugin `%s` %s.\n"
      "\n", plugin_name, gst_plugin_get_version (plugin));
  printf ("Every element also has `backend` (auto, cuda, cpu) and "
      "`cuda-device-id`; they are listed with each element.\n\n");

  features = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
      plugin_name);
  features = g_list_sort (features, compare_names);
  for (l = features; l; l = l->next)
    if (GST_IS_ELEMENT_FACTORY (l->data))
      dump_element (GST_ELEMENT_FACTORY (l->data));
  gst_plugin_feature_list_free (features);
  gst_object_unref (plugin);
  return 0;
}
