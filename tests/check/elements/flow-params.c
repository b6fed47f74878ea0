/* gst-cudaflow — the estimators' properties and presets are their tables
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaflowhs, cudaflowclg and cudaflowtvl1 install one property per row of
 * their method's parameter table (common/params.h) with the row's type,
 * range, default, nick, blurb and flags (PLAYING for live rows, controllable
 * for smooth ones), `levels` and `scale-factor` from the pyramid's table
 * with the method's default levels, and `preset` with "none" then the
 * table's presets. Each preset writes exactly its settings; a property set
 * explicitly keeps its value whether it is set before or after the preset,
 * and overridden-properties names it. No frames flow here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>

#include "common/clg.h"
#include "common/hs.h"
#include "common/params.h"
#include "common/pyramid.h"
#include "common/tvl1.h"

typedef struct
{
  const gchar *factory;
  const cf_param_table *table;
} estimator;

static const estimator estimators[] = {
  {"cudaflowhs", &cf_hs_param_table},
  {"cudaflowclg", &cf_clg_param_table},
  {"cudaflowtvl1", &cf_tvl1_param_table},
};

/* The pspec of @row on @e: same type, range, default, texts and flags. */
static void
assert_pspec_is_row (GstElement * e, const cf_param * row, double def)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      row->name);
  const gchar *name = GST_OBJECT_NAME (e);

  fail_unless (p != NULL, "%s: no property %s", name, row->name);
  fail_unless_equals_string (g_param_spec_get_nick (p), row->nick);
  fail_unless_equals_string (g_param_spec_get_blurb (p), row->blurb);
  fail_unless (!!(p->flags & GST_PARAM_MUTABLE_PLAYING) ==
      !!(row->flags & CF_PARAM_LIVE), "%s: %s mutability", name, row->name);
  fail_unless (!!(p->flags & GST_PARAM_CONTROLLABLE) ==
      !!(row->flags & CF_PARAM_SMOOTH), "%s: %s controllable", name,
      row->name);
  switch (row->type) {
    case CF_PARAM_INT:
      fail_unless (G_IS_PARAM_SPEC_INT (p));
      fail_unless_equals_int (G_PARAM_SPEC_INT (p)->minimum, (gint) row->min);
      fail_unless_equals_int (G_PARAM_SPEC_INT (p)->maximum, (gint) row->max);
      fail_unless_equals_int (G_PARAM_SPEC_INT (p)->default_value, (gint) def);
      break;
    case CF_PARAM_FLOAT:
      fail_unless (G_IS_PARAM_SPEC_DOUBLE (p));
      fail_unless (G_PARAM_SPEC_DOUBLE (p)->minimum == row->min);
      fail_unless (G_PARAM_SPEC_DOUBLE (p)->maximum == row->max);
      fail_unless (G_PARAM_SPEC_DOUBLE (p)->default_value == def);
      break;
    case CF_PARAM_BOOL:
      fail_unless (G_IS_PARAM_SPEC_BOOLEAN (p));
      fail_unless (G_PARAM_SPEC_BOOLEAN (p)->default_value == (def != 0.0));
      break;
    case CF_PARAM_CHOICE:
      fail_unless (G_IS_PARAM_SPEC_ENUM (p));
      fail_unless_equals_int (G_PARAM_SPEC_ENUM (p)->default_value,
          (gint) def);
      break;
    case CF_PARAM_TEXT:
      fail_unless (G_IS_PARAM_SPEC_STRING (p));
      fail_unless (!g_strcmp0 (G_PARAM_SPEC_STRING (p)->default_value,
              row->def_text), "%s: %s default", name, row->name);
      break;
  }
}

/* The property @row names holds @value (as its field stores it) or
 * @text. */
static void
assert_property_is (GstElement * e, const cf_param * row, double value,
    const gchar * text)
{
  GValue v = G_VALUE_INIT;
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      row->name);

  g_value_init (&v, p->value_type);
  g_object_get_property (G_OBJECT (e), row->name, &v);
  switch (row->type) {
    case CF_PARAM_INT:
      fail_unless_equals_int (g_value_get_int (&v), (gint) value);
      break;
    case CF_PARAM_FLOAT:
      /* the estimators keep floats; the pyramid's scale factor a double */
      fail_unless (g_value_get_double (&v) == value ||
          g_value_get_double (&v) == (double) (float) value,
          "%s: %g, not %g", row->name, g_value_get_double (&v), value);
      break;
    case CF_PARAM_BOOL:
      fail_unless (g_value_get_boolean (&v) == (value != 0.0));
      break;
    case CF_PARAM_CHOICE:
      fail_unless_equals_int (g_value_get_enum (&v), (gint) value);
      break;
    case CF_PARAM_TEXT:
      fail_unless_equals_string (g_value_get_string (&v), text);
      break;
  }
  g_value_unset (&v);
}

static const cf_param *
setting_row (const cf_param_table * table, const gchar * name)
{
  const cf_param *row = cf_params_find (table, name);

  return row ? row : cf_params_find (&cf_pyramid_param_table, name);
}

GST_START_TEST (test_properties_are_the_table_rows)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (estimators); i++) {
    GstElement *e = gst_element_factory_make (estimators[i].factory, NULL);
    const cf_param_table *table = estimators[i].table;
    const cf_param *row;

    fail_unless (e != NULL);
    for (row = table->params; row->name != NULL; row++) {
      if (row->flags & CF_PARAM_NO_PROPERTY) {
        fail_if (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
                row->name) != NULL, "%s is not a property", row->name);
        continue;
      }
      assert_pspec_is_row (e, row, row->def);
      if (row->type != CF_PARAM_TEXT)
        assert_property_is (e, row, row->def, NULL);
      else
        assert_property_is (e, row, 0.0, row->def_text);
    }
    row = cf_params_find (&cf_pyramid_param_table, "levels");
    assert_pspec_is_row (e, row, table->default_levels);
    assert_property_is (e, row, table->default_levels, NULL);
    row = cf_params_find (&cf_pyramid_param_table, "scale-factor");
    assert_pspec_is_row (e, row, row->def);
    gst_object_unref (e);
  }
}

GST_END_TEST;

GST_START_TEST (test_preset_enum_lists_none_then_the_table)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (estimators); i++) {
    GstElement *e = gst_element_factory_make (estimators[i].factory, NULL);
    GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "preset");
    GEnumClass *klass;
    guint n;

    fail_unless (G_IS_PARAM_SPEC_ENUM (p));
    klass = G_PARAM_SPEC_ENUM (p)->enum_class;
    fail_unless_equals_string (klass->values[0].value_nick, "none");
    for (n = 0; estimators[i].table->presets[n].name != NULL; n++) {
      fail_unless_equals_int (klass->values[n + 1].value, n + 1);
      fail_unless_equals_string (klass->values[n + 1].value_nick,
          estimators[i].table->presets[n].name);
      fail_unless_equals_string (klass->values[n + 1].value_name,
          estimators[i].table->presets[n].description);
    }
    fail_unless_equals_int (klass->n_values, n + 1);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Each estimator's defaults are its balanced preset: a fresh element holds
 * every value the preset writes. */
GST_START_TEST (test_defaults_are_the_balanced_preset)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (estimators); i++) {
    const cf_preset *balanced = cf_params_find_preset (estimators[i].table,
        "balanced");
    GstElement *e = gst_element_factory_make (estimators[i].factory, NULL);
    const cf_param_setting *s;

    fail_unless (balanced != NULL, "%s: no balanced preset",
        estimators[i].factory);
    for (s = balanced->settings; s->name != NULL; s++)
      assert_property_is (e, setting_row (estimators[i].table, s->name),
          s->value, s->text);
    gst_object_unref (e);
  }
}

GST_END_TEST;

GST_START_TEST (test_each_preset_writes_its_settings)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (estimators); i++) {
    const cf_preset *preset;

    for (preset = estimators[i].table->presets; preset->name; preset++) {
      GstElement *e = gst_element_factory_make (estimators[i].factory, NULL);
      const cf_param_setting *s;
      gchar *overridden;

      gst_util_set_object_arg (G_OBJECT (e), "preset", preset->name);
      for (s = preset->settings; s->name != NULL; s++)
        assert_property_is (e, setting_row (estimators[i].table, s->name),
            s->value, s->text);
      g_object_get (e, "overridden-properties", &overridden, NULL);
      fail_unless_equals_string (overridden, "");
      g_free (overridden);
      gst_object_unref (e);
    }
  }
}

GST_END_TEST;

/* A valid value of @row other than the preset's @s. */
static void
other_value (const cf_param * row, const cf_param_setting * s, GValue * v,
    GParamSpec * pspec)
{
  g_value_init (v, pspec->value_type);
  switch (row->type) {
    case CF_PARAM_INT:
      g_value_set_int (v, (gint) (s->value != row->min ? row->min : row->max));
      break;
    case CF_PARAM_FLOAT:
      g_value_set_double (v, s->value != row->min ? row->min : row->max);
      break;
    case CF_PARAM_BOOL:
      g_value_set_boolean (v, s->value == 0.0);
      break;
    case CF_PARAM_CHOICE:
      g_value_set_enum (v, row->choices[0].value != (gint) s->value ?
          row->choices[0].value : row->choices[1].value);
      break;
    case CF_PARAM_TEXT:
      g_value_set_string (v, "7");
      break;
  }
}

/* @got is @set, as a float field keeps it. */
static gboolean
same_setting (const GValue * got, const GValue * set)
{
  if (G_VALUE_HOLDS_DOUBLE (set))
    return g_value_get_double (got) == g_value_get_double (set) ||
        g_value_get_double (got) == (double) (float) g_value_get_double (set);
  return gst_value_compare (got, set) == GST_VALUE_EQUAL;
}

GST_START_TEST (test_explicit_setting_wins_over_any_preset_in_either_order)
{
  guint i;
  gint order;

  for (i = 0; i < G_N_ELEMENTS (estimators); i++) {
    const cf_preset *preset;

    for (preset = estimators[i].table->presets; preset->name; preset++) {
      const cf_param_setting *s;

      for (s = preset->settings; s->name != NULL; s++) {
        for (order = 0; order < 2; order++) {
          GstElement *e = gst_element_factory_make (estimators[i].factory,
              NULL);
          GParamSpec *pspec = g_object_class_find_property
              (G_OBJECT_GET_CLASS (e), s->name);
          const cf_param *row = setting_row (estimators[i].table, s->name);
          GValue v = G_VALUE_INIT, got = G_VALUE_INIT;
          gchar *overridden;

          other_value (row, s, &v, pspec);
          if (order == 0)
            g_object_set_property (G_OBJECT (e), s->name, &v);
          gst_util_set_object_arg (G_OBJECT (e), "preset", preset->name);
          if (order == 1)
            g_object_set_property (G_OBJECT (e), s->name, &v);
          g_value_init (&got, pspec->value_type);
          g_object_get_property (G_OBJECT (e), s->name, &got);
          fail_unless (same_setting (&got, &v), "%s preset=%s: %s lost its "
              "explicit value", GST_OBJECT_NAME (e), preset->name, s->name);
          g_object_get (e, "overridden-properties", &overridden, NULL);
          fail_unless_equals_string (overridden, s->name);
          g_free (overridden);
          g_value_unset (&v);
          g_value_unset (&got);
          gst_object_unref (e);
        }
      }
    }
  }
}

GST_END_TEST;

static Suite *
elements_flow_params_suite (void)
{
  Suite *s = suite_create ("flow-params");
  TCase *tc = tcase_create ("tables");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties_are_the_table_rows);
  tcase_add_test (tc, test_preset_enum_lists_none_then_the_table);
  tcase_add_test (tc, test_defaults_are_the_balanced_preset);
  tcase_add_test (tc, test_each_preset_writes_its_settings);
  tcase_add_test (tc,
      test_explicit_setting_wins_over_any_preset_in_either_order);
  return s;
}

GST_CHECK_MAIN (elements_flow_params);
