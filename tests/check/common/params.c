/* gst-cudaflow — common/params.c: the parameter tables of the flow methods
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every table (HS, CLG, TV-L1 and the pyramid's) is well formed: unique
 * lowercase-hyphenated names, a nick and a blurb, min <= max, offsets inside
 * the params struct; every default is inside its range and is what
 * cf_<method>_params_init writes; every preset names parameters of its
 * method's table or of the pyramid's, each with a value the table accepts.
 * Setting by name takes both bounds and refuses one step past either (the
 * step: 1 for whole numbers, 1e-3 of the bound for the others), NaN,
 * fractions for whole numbers, whole numbers an INT row does not list
 * among its choices, and unknown names, leaving the struct as it was. The
 * solvers' own check (cf_<method>_params_valid) is the table's: each bound
 * of each parameter, alone, runs the CPU solver on a small pair and gives
 * a finite field (so the largest CLG alpha and TV-L1 lambda the properties
 * accept are accepted by the solvers). A preset applied by name sets what
 * the element sets.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>

#include "cf-test-util.h"
#include "common/clg.h"
#include "common/hs.h"
#include "common/params.h"
#include "common/pyramid.h"
#include "common/tvl1.h"

/* One step past a bound: the next whole number, or 1e-3 of the bound's
 * size (a relative step, so that it survives the float the field is). */
#define OUTSIDE_REL_STEP 1e-3

/* The small pair the solvers run on at each bound: one pyramid level. */
#define RUN_WIDTH 12
#define RUN_HEIGHT 9

/* A method: its table, its params init and its CPU solver. */
typedef struct
{
  const cf_param_table *table;
  void (*init) (void *params);
  int (*valid) (const void *params);
  cf_status (*flow) (const cf_pyramid * p0, const cf_pyramid * p1,
      const void *params, cf_flow * flow);
  void (*prepare_pyramid) (const void *params, cf_pyramid_params * pyramid);
} method;

static void
hs_init (void *p)
{
  cf_hs_params_init (p);
}

static int
hs_valid (const void *p)
{
  return cf_hs_params_valid (p);
}

static cf_status
hs_flow (const cf_pyramid * p0, const cf_pyramid * p1, const void *p,
    cf_flow * flow)
{
  return cf_hs_flow (p0, p1, p, 0, flow);
}

static void
clg_init (void *p)
{
  cf_clg_params_init (p);
}

static int
clg_valid (const void *p)
{
  return cf_clg_params_valid (p);
}

static cf_status
clg_flow (const cf_pyramid * p0, const cf_pyramid * p1, const void *p,
    cf_flow * flow)
{
  return cf_clg_flow (p0, p1, p, 0, flow);
}

static void
clg_pyramid (const void *p, cf_pyramid_params * pyramid)
{
  cf_clg_prepare_pyramid_params (p, pyramid);
}

static void
tvl1_init (void *p)
{
  cf_tvl1_params_init (p);
}

static int
tvl1_valid (const void *p)
{
  return cf_tvl1_params_valid (p);
}

static cf_status
tvl1_flow (const cf_pyramid * p0, const cf_pyramid * p1, const void *p,
    cf_flow * flow)
{
  return cf_tvl1_flow (p0, p1, p, 0, flow);
}

static void
tvl1_pyramid (const void *p, cf_pyramid_params * pyramid)
{
  cf_tvl1_prepare_pyramid_params (p, pyramid);
}

static const method methods[] = {
  {&cf_hs_param_table, hs_init, hs_valid, hs_flow, NULL},
  {&cf_clg_param_table, clg_init, clg_valid, clg_flow, clg_pyramid},
  {&cf_tvl1_param_table, tvl1_init, tvl1_valid, tvl1_flow, tvl1_pyramid},
};

static const cf_param_table *const tables[] = {
  &cf_hs_param_table, &cf_clg_param_table, &cf_tvl1_param_table,
  &cf_pyramid_param_table
};

/* Room for any method's params struct. */
typedef union
{
  cf_hs_params hs;
  cf_clg_params clg;
  cf_tvl1_params tvl1;
  cf_pyramid_params pyramid;
} any_params;

static double
outside_step (const cf_param * p, double bound)
{
  return p->type == CF_PARAM_INT ? 1.0 : MAX (fabs (bound), 1.0) *
      OUTSIDE_REL_STEP;
}

static gboolean
is_property_name (const char *name)
{
  const char *c;

  if (name == NULL || !g_ascii_islower (name[0]))
    return FALSE;
  for (c = name; *c; c++)
    if (!g_ascii_islower (*c) && !g_ascii_isdigit (*c) && *c != '-')
      return FALSE;
  return c[-1] != '-';
}

GST_START_TEST (test_rows_are_well_formed)
{
  guint t;

  for (t = 0; t < G_N_ELEMENTS (tables); t++) {
    const cf_param_table *table = tables[t];
    const cf_param *p, *q;

    fail_unless (table->params_size <= sizeof (any_params));
    fail_unless (table->default_levels >= 1 &&
        table->default_levels <= CF_PYRAMID_MAX_LEVELS);
    for (p = table->params; p->name != NULL; p++) {
      fail_unless (is_property_name (p->name), "%s: bad name", p->name);
      fail_unless (p->nick != NULL && *p->nick != '\0', "%s", p->name);
      fail_unless (p->blurb != NULL && *p->blurb != '\0', "%s", p->name);
      fail_unless (p->min <= p->max, "%s: min > max", p->name);
      if (p->type == CF_PARAM_FLOAT)
        fail_unless (p->offset + sizeof (float) <= table->params_size);
      else if (p->type != CF_PARAM_TEXT)
        fail_unless (p->offset + sizeof (int) <= table->params_size);
      if (p->type == CF_PARAM_INT)
        fail_unless (p->min == floor (p->min) && p->max == floor (p->max) &&
            p->max <= G_MAXINT && p->min >= G_MININT, "%s", p->name);
      if (p->type == CF_PARAM_CHOICE)
        fail_unless (p->choices != NULL && p->choices[0].nick != NULL,
            "%s: no choices", p->name);
      /* an INT row's allowed values lie in its range, its bounds among
       * them (the property's range is [min, max]) */
      if (p->type == CF_PARAM_INT && p->choices != NULL) {
        const cf_param_choice *c;
        gboolean has_min = FALSE, has_max = FALSE;

        for (c = p->choices; c->nick != NULL; c++) {
          fail_unless (c->value >= p->min && c->value <= p->max, "%s: %d",
              p->name, c->value);
          has_min |= c->value == p->min;
          has_max |= c->value == p->max;
        }
        fail_unless (has_min && has_max, "%s: bounds not allowed", p->name);
      }
      if (p->type == CF_PARAM_TEXT)
        fail_unless (p->parse != NULL, "%s: no parser", p->name);
      /* a default text parses; only TEXT rows have one */
      if (p->def_text != NULL) {
        cf_error err = { {0} };
        any_params scratch;

        fail_unless (p->type == CF_PARAM_TEXT, "%s", p->name);
        fail_unless (p->parse (&scratch, p->def_text, &err) == CF_OK,
            "%s \"%s\": %s", p->name, p->def_text, err.message);
      }
      /* a number row replaces a TEXT row of its own table */
      if (p->replaces != NULL) {
        q = cf_params_find (table, p->replaces);
        fail_unless (p->type == CF_PARAM_INT || p->type == CF_PARAM_FLOAT,
            "%s", p->name);
        fail_unless (q != NULL && q->type == CF_PARAM_TEXT, "%s replaces %s",
            p->name, p->replaces);
        fail_unless (cf_params_find_replaced_by (table, q->name) == p);
        fail_unless (cf_params_replaced_list (table, p) == q);
      } else {
        fail_unless (cf_params_replaced_list (table, p) == NULL);
      }
      /* one name per row, and none shadows the pyramid's */
      for (q = p + 1; q->name != NULL; q++)
        fail_if (!strcmp (p->name, q->name), "%s twice", p->name);
      if (table != &cf_pyramid_param_table)
        fail_if (cf_params_find (&cf_pyramid_param_table, p->name) != NULL,
            "%s is also a pyramid parameter", p->name);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_every_default_is_in_range_and_is_the_init)
{
  guint m, t;

  for (t = 0; t < G_N_ELEMENTS (tables); t++) {
    const cf_param *p;

    for (p = tables[t]->params; p->name != NULL; p++)
      if (p->type != CF_PARAM_TEXT)
        fail_unless_equals_int (cf_param_check (p, p->def, NULL), CF_OK);
  }

  /* cf_<method>_params_init writes the table's defaults, which pass the
   * solver's check */
  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    any_params init, table;
    const cf_param *p;

    memset (&init, 0xA5, sizeof (init));
    methods[m].init (&init);
    cf_params_init (methods[m].table, &table);
    fail_unless (memcmp (&init, &table, methods[m].table->params_size) == 0,
        "%s: params_init is not the table's defaults",
        methods[m].table->method);
    fail_unless (methods[m].valid (&init), "%s", methods[m].table->method);
    for (p = methods[m].table->params; p->name != NULL; p++)
      if (p->type != CF_PARAM_TEXT)
        fail_unless (cf_param_get (p, &init) == (p->type == CF_PARAM_FLOAT ?
                (double) (float) p->def : p->def), "%s", p->name);
  }
}

GST_END_TEST;

/* The row a preset's setting names: the method's, else the pyramid's. */
static const cf_param *
setting_row (const cf_param_table * table, const char *name,
    const cf_param_table ** owner)
{
  const cf_param *p = cf_params_find (table, name);

  *owner = table;
  if (p == NULL) {
    p = cf_params_find (&cf_pyramid_param_table, name);
    *owner = &cf_pyramid_param_table;
  }
  return p;
}

GST_START_TEST (test_every_preset_names_parameters_with_values_in_range)
{
  guint m;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    const cf_param_table *table = methods[m].table;
    const cf_preset *preset;

    fail_unless (table->presets != NULL && table->presets[0].name != NULL);
    fail_unless (table->presets_blurb != NULL);
    for (preset = table->presets; preset->name != NULL; preset++) {
      guint i, n = 0;

      fail_unless (is_property_name (preset->name), "%s", preset->name);
      fail_unless (strcmp (preset->name, "none") != 0, "none is reserved");
      fail_unless (preset->description != NULL);
      fail_unless (cf_params_find_preset (table, preset->name) == preset,
          "%s twice", preset->name);
      while (n < CF_PRESET_MAX_SETTINGS && preset->settings[n].name != NULL)
        n++;
      fail_unless (n >= 1 && n < CF_PRESET_MAX_SETTINGS,
          "%s: %u settings", preset->name, n);
      for (i = 0; i < n; i++) {
        const cf_param_setting *s = &preset->settings[i];
        const cf_param_table *owner;
        const cf_param *p = setting_row (table, s->name, &owner);
        any_params params;
        guint j;

        fail_unless (p != NULL, "preset %s: no parameter %s", preset->name,
            s->name);
        fail_if (p->flags & CF_PARAM_NO_PROPERTY, "%s", s->name);
        for (j = 0; j < i; j++)
          fail_if (!strcmp (s->name, preset->settings[j].name), "%s twice",
              s->name);
        cf_params_init (owner, &params);
        if (p->type == CF_PARAM_TEXT) {
          fail_unless_equals_int (p->parse (&params, s->text, NULL), CF_OK);
        } else {
          fail_unless (cf_param_check (p, s->value, NULL) == CF_OK,
              "preset %s: %s=%g is out of range", preset->name, s->name,
              s->value);
        }
        /* setting a row by name clears the list it replaces: a preset
         * that sets both sets the list after it */
        for (j = 0; j < i && p->replaces != NULL; j++)
          fail_if (!strcmp (preset->settings[j].name, p->replaces),
              "preset %s: %s after %s clears it", preset->name, s->name,
              p->replaces);
      }
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_set_by_name_takes_the_bounds_and_refuses_past_them)
{
  guint t;

  for (t = 0; t < G_N_ELEMENTS (tables); t++) {
    const cf_param_table *table = tables[t];
    const cf_param *p;
    any_params params, before;
    cf_error err = { {0} };

    cf_params_init (table, &params);
    for (p = table->params; p->name != NULL; p++) {
      if (p->type == CF_PARAM_TEXT) {
        fail_unless_equals_int (cf_params_set (table, &params, p->name, 1.0,
                NULL), CF_ERROR_INVALID);
        continue;
      }
      if (p->type == CF_PARAM_INT || p->type == CF_PARAM_FLOAT) {
        double lo = p->min - outside_step (p, p->min);
        double hi = p->max + outside_step (p, p->max);

        fail_unless_equals_int (cf_params_set (table, &params, p->name,
                p->min, NULL), CF_OK);
        fail_unless (cf_param_get (p, &params) == (double) (float) p->min);
        fail_unless_equals_int (cf_params_set (table, &params, p->name,
                p->max, NULL), CF_OK);
        before = params;
        fail_unless (cf_params_set (table, &params, p->name, hi, &err) ==
            CF_ERROR_INVALID, "%s=%g accepted", p->name, hi);
        fail_unless (strstr (err.message, p->name) != NULL, "%s",
            err.message);
        fail_unless (cf_params_set (table, &params, p->name, lo, NULL) ==
            CF_ERROR_INVALID, "%s=%g accepted", p->name, lo);
        if (p->type == CF_PARAM_INT && p->max > p->min) {
          fail_unless_equals_int (cf_params_set (table, &params, p->name,
                  p->min + 0.5, NULL), CF_ERROR_INVALID);
        }
        /* INT with choices: whole numbers in range but not listed */
        if (p->type == CF_PARAM_INT && p->choices != NULL) {
          const cf_param_choice *c;
          int v, listed;

          for (v = (int) p->min; v <= (int) p->max; v++) {
            for (listed = 0, c = p->choices; c->nick != NULL; c++)
              listed |= c->value == v;
            fail_unless_equals_int (cf_params_set (table, &params, p->name,
                    v, NULL), listed ? CF_OK : CF_ERROR_INVALID);
          }
          fail_unless_equals_int (cf_params_set (table, &params, p->name,
                  p->max, NULL), CF_OK);
        }
        fail_unless_equals_int (cf_params_set (table, &params, p->name, NAN,
                NULL), CF_ERROR_INVALID);
        fail_unless_equals_int (cf_params_set (table, &params, p->name,
                INFINITY, NULL), CF_ERROR_INVALID);
        fail_unless (memcmp (&params, &before, table->params_size) == 0,
            "%s: a refused value changed the struct", p->name);
      } else {
        /* BOOL and CHOICE: their values only */
        before = params;
        fail_unless_equals_int (cf_params_set (table, &params, p->name, 7.0,
                NULL), CF_ERROR_INVALID);
        fail_unless_equals_int (cf_params_set (table, &params, p->name,
                -1.0, NULL), CF_ERROR_INVALID);
        fail_unless (memcmp (&params, &before, table->params_size) == 0);
        fail_unless_equals_int (cf_params_set (table, &params, p->name,
                p->def, NULL), CF_OK);
      }
    }
    fail_unless_equals_int (cf_params_set (table, &params, "no-such", 1.0,
            NULL), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_params_set (table, &params, NULL, 1.0, NULL),
        CF_ERROR_INVALID);
  }
}

GST_END_TEST;

GST_START_TEST (test_set_text_parses_numbers_words_and_lists)
{
  cf_tvl1_params t;
  cf_clg_params c;
  cf_error err = { {0} };

  cf_tvl1_params_init (&t);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &t,
          "lambda", "0.3", NULL), CF_OK);
  fail_unless_equals_float (t.lambda, 0.3f);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &t,
          "normalize", "false", NULL), CF_OK);
  fail_unless_equals_int (t.normalize, 0);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &t,
          "border", "clamp", NULL), CF_OK);
  fail_unless_equals_int (t.warp_border, CF_WARP_CLAMP);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &t,
          "warps", "3x", &err), CF_ERROR_FORMAT);
  fail_unless (strstr (err.message, "warps") != NULL, "%s", err.message);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &t,
          "warps", "0", NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (t.warps, 2);      /* the default, untouched */

  cf_clg_params_init (&c);
  fail_unless_equals_int (cf_params_set_text (&cf_clg_param_table, &c,
          "iterations-per-level", "60, 120,180", NULL), CF_OK);
  fail_unless_equals_int (c.n_iterations_per_level, 3);
  fail_unless_equals_int (cf_clg_level_iterations (&c, 2), 180);
  fail_unless_equals_int (cf_params_set_text (&cf_clg_param_table, &c,
          "iterations-per-level", "60,x", &err), CF_ERROR_FORMAT);
  fail_unless_equals_int (c.n_iterations_per_level, 3);
  fail_unless_equals_int (cf_params_set_text (&cf_clg_param_table, &c,
          "iterations-per-level", NULL, NULL), CF_OK);
  fail_unless_equals_int (c.n_iterations_per_level, 0);
}

GST_END_TEST;

/* The parse of @text as a list of numbers in [0.5, 2] fails with
 * CF_ERROR_FORMAT, leaves the count alone and says @needle. */
static void
assert_float_list_refused (const char *text, const char *needle)
{
  float values[4];
  int n = -7;
  cf_error err = { {0} };

  fail_unless_equals_int (cf_params_parse_float_level_list (text, "gains",
          "1,2", 0.5, 2.0, 4, values, &n, &err), CF_ERROR_FORMAT);
  fail_unless_equals_int (n, -7);
  fail_unless (strstr (err.message, needle) != NULL,
      "'%s': message '%s' lacks '%s'", text, err.message, needle);
}

/* Setting a count by name, as a number or as text, clears the per-level
 * list that would override it, so the value counts on every level; a
 * refused value leaves the list (TV-L1's rows: tests/check/common/tvl1.c) */
GST_START_TEST (test_set_by_name_clears_the_list_it_replaces)
{
  cf_clg_params clg;

  cf_clg_params_init (&clg);
  fail_unless_equals_int (cf_params_set_text (&cf_clg_param_table, &clg,
          "iterations-per-level", "60,120", NULL), CF_OK);
  fail_unless_equals_int (clg.n_iterations_per_level, 2);
  fail_unless_equals_int (cf_params_set (&cf_clg_param_table, &clg,
          "iterations", -1, NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (clg.n_iterations_per_level, 2);
  fail_unless_equals_int (cf_params_set (&cf_clg_param_table, &clg,
          "iterations", 30, NULL), CF_OK);
  fail_unless_equals_int (clg.n_iterations_per_level, 0);
  fail_unless_equals_int (clg.iterations, 30);
  fail_unless_equals_int (cf_params_set_text (&cf_clg_param_table, &clg,
          "iterations-per-level", "60,120", NULL), CF_OK);
  fail_unless_equals_int (cf_params_set_text (&cf_clg_param_table, &clg,
          "iterations", "40", NULL), CF_OK);
  fail_unless_equals_int (clg.n_iterations_per_level, 0);
  fail_unless_equals_int (clg.iterations, 40);
}

GST_END_TEST;

/* @table's preset realtime sets what its fast sets, from the state
 * (@base, @pyr_base) */
static void
assert_realtime_is_fast (const cf_param_table * table, const void *base,
    const cf_pyramid_params * pyr_base)
{
  const size_t n = table->params_size;
  void *rt = g_malloc (n), *fast = g_malloc (n);
  cf_pyramid_params pyr_rt, pyr_fast;
  cf_error err = { {0} };

  memcpy (rt, base, n);
  memcpy (fast, base, n);
  memcpy (&pyr_rt, pyr_base, sizeof (pyr_rt));
  memcpy (&pyr_fast, pyr_base, sizeof (pyr_fast));
  fail_unless_equals_int (cf_params_apply_preset (table, rt,
          &cf_pyramid_param_table, &pyr_rt, "realtime", &err), CF_OK);
  fail_unless_equals_int (cf_params_apply_preset (table, fast,
          &cf_pyramid_param_table, &pyr_fast, "fast", &err), CF_OK);
  fail_unless_equals_int (pyr_rt.max_levels, 6);
  fail_unless (memcmp (rt, fast, n) == 0, "%s: realtime is not fast",
      table->method);
  fail_unless (memcmp (&pyr_rt, &pyr_fast, sizeof (pyr_rt)) == 0);
  fail_if (memcmp (rt, base, n) == 0, "%s: realtime changed nothing",
      table->method);
  g_free (rt);
  g_free (fast);
}

/* realtime is an alias of fast on both estimators that have it: the same
 * settings from romera's state, the schedule realtime set before (3
 * levels x 1 warp x 10 iterations) */
GST_START_TEST (test_realtime_is_an_alias_of_fast)
{
  cf_tvl1_params tvl1;
  cf_hs_params hs;
  cf_pyramid_params pyramid;
  cf_error err = { {0} };

  memset (&tvl1, 0, sizeof (tvl1));
  memset (&pyramid, 0, sizeof (pyramid));
  cf_tvl1_params_init (&tvl1);
  cf_pyramid_params_init (&pyramid);
  fail_unless_equals_int (cf_params_apply_preset (&cf_tvl1_param_table,
          &tvl1, &cf_pyramid_param_table, &pyramid, "romera", &err), CF_OK);
  fail_unless_equals_int (pyramid.max_levels, 3);
  fail_unless_equals_int (tvl1.warps, 1);
  fail_unless_equals_int (tvl1.max_iterations, 10);
  assert_realtime_is_fast (&cf_tvl1_param_table, &tvl1, &pyramid);

  memset (&hs, 0, sizeof (hs));
  memset (&pyramid, 0, sizeof (pyramid));
  cf_hs_params_init (&hs);
  cf_pyramid_params_init (&pyramid);
  fail_unless_equals_int (cf_params_apply_preset (&cf_hs_param_table, &hs,
          &cf_pyramid_param_table, &pyramid, "romera", &err), CF_OK);
  fail_unless_equals_int (pyramid.max_levels, 3);
  fail_unless_equals_int (hs.iterations, 10);
  assert_realtime_is_fast (&cf_hs_param_table, &hs, &pyramid);
}

GST_END_TEST;

/* A preset applied by name, as the elements apply it: in its order, the
 * pyramid's rows to the pyramid, lists by their text, a NULL list
 * cleared; an unknown name refused with the reason. */
GST_START_TEST (test_apply_preset_sets_what_the_element_sets)
{
  cf_tvl1_params tvl1;
  cf_hs_params hs;
  cf_pyramid_params pyramid;
  cf_error err = { {0} };
  static const int fast_iterations[] = { 3, 10, 20 };
  static const int fast_warps[] = { 1, 1, 1, 2 };
  int i;

  cf_tvl1_params_init (&tvl1);
  cf_pyramid_params_init (&pyramid);
  pyramid.max_levels = 2;
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &tvl1,
          "lambda-per-level", "0.3,0.2", NULL), CF_OK);
  fail_unless_equals_int (cf_params_apply_preset (&cf_tvl1_param_table,
          &tvl1, &cf_pyramid_param_table, &pyramid, "fast", &err), CF_OK);
  fail_unless_equals_int (pyramid.max_levels, 6);
  fail_unless_equals_int (tvl1.n_iterations_per_level, 3);
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (tvl1.iterations_per_level[i],
        fast_iterations[i]);
  fail_unless_equals_int (tvl1.n_warps_per_level, 4);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (tvl1.warps_per_level[i], fast_warps[i]);
  fail_unless_equals_int (tvl1.n_lambda_per_level, 0);
  fail_unless_equals_float (tvl1.epsilon, 0.0f);

  /* ipol after fast: its own schedule, every list cleared */
  fail_unless_equals_int (cf_params_apply_preset (&cf_tvl1_param_table,
          &tvl1, &cf_pyramid_param_table, &pyramid, "ipol", &err), CF_OK);
  fail_unless_equals_int (pyramid.max_levels, 5);
  fail_unless_equals_int (tvl1.n_iterations_per_level, 0);
  fail_unless_equals_int (tvl1.n_warps_per_level, 0);
  fail_unless_equals_int (tvl1.warps, 5);
  fail_unless_equals_int (tvl1.max_iterations, 300);

  cf_hs_params_init (&hs);
  fail_unless_equals_int (cf_params_apply_preset (&cf_hs_param_table, &hs,
          &cf_pyramid_param_table, &pyramid, "romera", &err), CF_OK);
  fail_unless_equals_int (pyramid.max_levels, 3);
  fail_unless_equals_int (hs.iterations, 10);

  fail_unless_equals_int (cf_params_apply_preset (&cf_hs_param_table, &hs,
          &cf_pyramid_param_table, &pyramid, "ipol", &err),
      CF_ERROR_INVALID);
  fail_unless (strstr (err.message, "no preset \"ipol\"") != NULL,
      "%s", err.message);
  fail_unless_equals_int (pyramid.max_levels, 3);
}

GST_END_TEST;

/* A per-level list of numbers: finite numbers in the closed range, compared
 * in float, blanks around each entry; the list rules of the whole-number
 * lists (empty entries, too many entries). */
GST_START_TEST (test_float_level_list_takes_numbers_in_range)
{
  float values[4];
  int n = 0;

  fail_unless_equals_int (cf_params_parse_float_level_list (" 1.5 ,0.5,2, "
          "75e-2", "gains", "1,2", 0.5, 2.0, 4, values, &n, NULL), CF_OK);
  fail_unless_equals_int (n, 4);
  fail_unless_equals_float (values[0], 1.5f);
  fail_unless_equals_float (values[1], 0.5f);
  fail_unless_equals_float (values[2], 2.0f);
  fail_unless_equals_float (values[3], 0.75f);
  /* a bound that only rounding to float reaches is inside */
  fail_unless_equals_int (cf_params_parse_float_level_list ("2.00000001",
          "gains", "1,2", 0.5, 2.0, 4, values, &n, NULL), CF_OK);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_float (values[0], 2.0f);

  assert_float_list_refused ("", "gains: empty list, expected e.g. \"1,2\"");
  assert_float_list_refused ("1,,2", "gains: entry 2 is empty");
  assert_float_list_refused ("1,2,", "entry 3 is empty");
  assert_float_list_refused ("1,1,1,1,1", "more than 4 entries");
  assert_float_list_refused ("1,0.49", "entry 2 \"0.49\" is not a number in "
      "[0.5, 2]");
  assert_float_list_refused ("2.1", "entry 1 \"2.1\"");
  assert_float_list_refused ("-1", "entry 1 \"-1\"");
  assert_float_list_refused ("1 1", "entry 1 \"1 1\"");
  assert_float_list_refused ("1.5x", "entry 1 \"1.5x\"");
  assert_float_list_refused ("1;2", "entry 1 \"1;2\"");
  assert_float_list_refused ("nan", "entry 1 \"nan\"");
  assert_float_list_refused ("inf", "entry 1 \"inf\"");
  assert_float_list_refused ("1e999", "entry 1 \"1e999\"");
  assert_float_list_refused ("1.00000000000000000000000000000000000000000000"
      "00000000000000000001", "entry 1");
  fail_unless_equals_int (cf_params_parse_float_level_list (NULL, "gains",
          "1,2", 0.5, 2.0, 4, values, &n, NULL), CF_ERROR_INVALID);
}

GST_END_TEST;

/* The solvers' check is the table's: a field one past its bound fails
 * cf_<method>_params_valid, which the solvers run first. */
GST_START_TEST (test_solver_check_refuses_what_the_table_refuses)
{
  guint m;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    const cf_param *p;

    for (p = methods[m].table->params; p->name != NULL; p++) {
      any_params params;
      char *field;

      if (p->type != CF_PARAM_INT && p->type != CF_PARAM_FLOAT)
        continue;
      methods[m].init (&params);
      field = (char *) &params + p->offset;
      if (p->type == CF_PARAM_FLOAT)
        *(float *) field = (float) (p->max + outside_step (p, p->max));
      else
        *(int *) field = (int) p->max + 1;
      fail_if (methods[m].valid (&params), "%s=max+: accepted", p->name);
      if (p->type == CF_PARAM_FLOAT)
        *(float *) field = (float) (p->min - outside_step (p, p->min));
      else
        *(int *) field = (int) p->min - 1;
      fail_if (methods[m].valid (&params), "%s=min-: accepted", p->name);
    }
  }
}

GST_END_TEST;

static gboolean
flow_is_finite (const cf_flow * f)
{
  int x, y;

  for (y = 0; y < f->height; y++)
    for (x = 0; x < f->width; x++)
      if (!isfinite (f->u[x + y * f->pitch]) ||
          !isfinite (f->v[x + y * f->pitch]))
        return FALSE;
  return TRUE;
}

/* Run @m's CPU solver on a small textured pair shifted by one pixel. */
static void
assert_solver_runs (const method * m, const void *params, const char *what)
{
  cf_image *f0 = cf_test_random_image (RUN_WIDTH + 1, RUN_HEIGHT, 7, 0.0f,
      255.0f);
  cf_image *i0 = cf_image_new (RUN_WIDTH, RUN_HEIGHT);
  cf_image *i1 = cf_image_new (RUN_WIDTH, RUN_HEIGHT);
  cf_flow *flow = cf_flow_new (RUN_WIDTH, RUN_HEIGHT);
  cf_pyramid_params pp;
  cf_pyramid *p0, *p1;
  int x, y;

  for (y = 0; y < RUN_HEIGHT; y++)
    for (x = 0; x < RUN_WIDTH; x++) {
      cf_image_row (i0, y)[x] = cf_image_row (f0, y)[x];
      cf_image_row (i1, y)[x] = cf_image_row (f0, y)[x + 1];
    }
  cf_pyramid_params_init (&pp);
  pp.max_levels = 1;
  if (m->prepare_pyramid)
    m->prepare_pyramid (params, &pp);
  p0 = cf_pyramid_new (RUN_WIDTH, RUN_HEIGHT, &pp);
  p1 = cf_pyramid_new (RUN_WIDTH, RUN_HEIGHT, &pp);
  fail_unless (p0 != NULL && p1 != NULL && flow != NULL);
  fail_unless_equals_int (cf_pyramid_build (p0, i0, &pp), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (p1, i1, &pp), CF_OK);
  fail_unless (m->flow (p0, p1, params, flow) == CF_OK, "%s: %s refused",
      m->table->method, what);
  fail_unless (flow_is_finite (flow), "%s: %s: non-finite flow",
      m->table->method, what);
  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
  cf_image_free (f0);
  cf_image_free (i0);
  cf_image_free (i1);
  cf_flow_free (flow);
}

/* Counts at their maximum would take minutes; their bound is a plain
 * integer comparison, checked above. Every other bound runs. */
static gboolean
is_count (const cf_param * p)
{
  return !strcmp (p->name, "iterations") || !strcmp (p->name, "warps");
}

GST_START_TEST (test_each_bound_runs_the_cpu_solver)
{
  guint m;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    const cf_param *p;

    for (p = methods[m].table->params; p->name != NULL; p++) {
      any_params params;
      gchar *what;
      int b;

      if ((p->type != CF_PARAM_INT && p->type != CF_PARAM_FLOAT) ||
          (is_count (p) && p->max > 1000))
        continue;
      for (b = 0; b < 2; b++) {
        double bound = b ? p->max : p->min;

        methods[m].init (&params);
        fail_unless_equals_int (cf_params_set (methods[m].table, &params,
                p->name, bound, NULL), CF_OK);
        what = g_strdup_printf ("%s=%g", p->name, bound);
        assert_solver_runs (&methods[m], &params, what);
        g_free (what);
      }
    }
  }
}

GST_END_TEST;

/* The two ranges the properties and solvers used to disagree on. */
GST_START_TEST (test_largest_clg_alpha_and_tvl1_lambda_run)
{
  cf_clg_params c;
  cf_tvl1_params t;

  cf_clg_params_init (&c);
  fail_unless_equals_int (cf_clg_params_set (&c, "alpha",
          cf_params_find (&cf_clg_param_table, "alpha")->max), CF_OK);
  fail_unless (cf_clg_params_valid (&c));
  assert_solver_runs (&methods[1], &c, "largest alpha");

  cf_tvl1_params_init (&t);
  fail_unless_equals_int (cf_tvl1_params_set (&t, "lambda",
          cf_params_find (&cf_tvl1_param_table, "lambda")->max), CF_OK);
  fail_unless (cf_tvl1_params_valid (&t));
  assert_solver_runs (&methods[2], &t, "largest lambda");
}

GST_END_TEST;

static Suite *
common_params_suite (void)
{
  Suite *s = suite_create ("common_params");
  TCase *tables_tc = tcase_create ("tables");
  TCase *solvers = tcase_create ("solvers");

  suite_add_tcase (s, tables_tc);
  tcase_add_test (tables_tc, test_rows_are_well_formed);
  tcase_add_test (tables_tc, test_every_default_is_in_range_and_is_the_init);
  tcase_add_test (tables_tc,
      test_every_preset_names_parameters_with_values_in_range);
  tcase_add_test (tables_tc,
      test_set_by_name_takes_the_bounds_and_refuses_past_them);
  tcase_add_test (tables_tc, test_set_text_parses_numbers_words_and_lists);
  tcase_add_test (tables_tc, test_set_by_name_clears_the_list_it_replaces);
  tcase_add_test (tables_tc, test_float_level_list_takes_numbers_in_range);
  tcase_add_test (tables_tc, test_apply_preset_sets_what_the_element_sets);
  tcase_add_test (tables_tc, test_realtime_is_an_alias_of_fast);
  tcase_add_test (tables_tc, test_solver_check_refuses_what_the_table_refuses);

  suite_add_tcase (s, solvers);
  tcase_set_timeout (solvers, 300);
  tcase_add_test (solvers, test_each_bound_runs_the_cpu_solver);
  tcase_add_test (solvers, test_largest_clg_alpha_and_tvl1_lambda_run);
  return s;
}

GST_CHECK_MAIN (common_params);
