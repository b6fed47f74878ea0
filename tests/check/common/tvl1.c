/* gst-cudaflow — tests for common/tvl1 (TV-L1 CPU reference)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/flo.h"
#include "common/median.h"
#include "common/metrics.h"
#include "common/pyramid.h"
#include "common/synth.h"
#include "common/tvl1.h"

/* Pixel (x, y) of an image, of a flow's planes. */
#define PX(img, x, y) ((img)->data[(x) + (size_t) (y) * (img)->pitch])
#define FU(f, x, y) ((f)->u[(x) + (size_t) (y) * (f)->pitch])
#define FV(f, x, y) ((f)->v[(x) + (size_t) (y) * (f)->pitch])

/* Image from row-major values. */
static cf_image *
image_from (int w, int h, const float *values)
{
  cf_image *img = cf_image_new (w, h);
  int x, y;

  fail_unless (img != NULL);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      PX (img, x, y) = values[x + y * w];
  return img;
}

static void
assert_image_equals (const cf_image * img, const float *expected, float tol)
{
  int x, y;

  for (y = 0; y < img->height; y++)
    for (x = 0; x < img->width; x++)
      fail_unless (fabsf (PX (img, x, y) - expected[x + y * img->width]) <=
          tol, "pixel (%d, %d): got %g, expected %g", x, y, PX (img, x, y),
          expected[x + y * img->width]);
}

/* The images of a flow (or dual field) as views. */
static cf_image
plane_u (const cf_flow * f)
{
  return cf_image_view (f->u, f->width, f->height, f->pitch);
}

static cf_image
plane_v (const cf_flow * f)
{
  return cf_image_view (f->v, f->width, f->height, f->pitch);
}

static double
dot (const cf_image * a, const cf_image * b)
{
  double s = 0.0;
  int x, y;

  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++)
      s += (double) PX (a, x, y) * (double) PX (b, x, y);
  return s;
}

/* ---------------------------------------------------------------- params */

GST_START_TEST (test_params_init_gives_balanced_defaults_and_ipol)
{
  cf_tvl1_params p;
  cf_pyramid_params pp;

  cf_tvl1_params_init (&p);
  fail_unless_equals_float (p.tau, 0.25f);
  fail_unless_equals_float (p.lambda, 0.15f);
  /* balanced couples u and v more than IPOL (θ 0.3) */
  fail_unless_equals_float (p.theta, 0.4f);
  /* the balanced preset's schedule: 1 x 30 on the finest level, 2 x 20
   * on the others, a 5 x 5 median of the finest level's result */
  fail_unless_equals_int (p.warps, 2);
  fail_unless_equals_int (p.max_iterations, 20);
  fail_unless_equals_float (p.epsilon, 0.0f);
  fail_unless_equals_float (p.presmooth_sigma, 0.65f);
  fail_unless_equals_int (p.warp_border, CF_WARP_ZERO_OUTSIDE);
  fail_unless_equals_int (p.n_warps_per_level, 2);
  fail_unless_equals_int (p.n_iterations_per_level, 2);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 0), 1);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 1), 2);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 5), 2);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 0), 30);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 1), 20);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 5), 20);
  fail_unless_equals_int (p.median_size, 0);
  fail_unless_equals_int (p.n_median_size_per_level, 2);
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 0), 5);
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 1), 0);
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 5), 0);

  /* setting the uniform count by name clears its list, and only its own:
   * the value set counts on every level */
  fail_unless_equals_int (cf_tvl1_params_set (&p, "warps", 3), CF_OK);
  fail_unless_equals_int (p.n_warps_per_level, 0);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 0), 3);
  fail_unless_equals_int (p.n_iterations_per_level, 2);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "iterations", "12", NULL), CF_OK);
  fail_unless_equals_int (p.n_iterations_per_level, 0);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 0), 12);
  /* a refused value leaves the list */
  cf_tvl1_params_init (&p);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "warps", 0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (p.n_warps_per_level, 2);
  /* lambda and median-size clear theirs */
  fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&p, "0.2,0.1",
          NULL), CF_OK);
  fail_unless_equals_int (cf_tvl1_parse_median_size_per_level (&p, "0,5",
          NULL), CF_OK);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "lambda", 0.3), CF_OK);
  fail_unless_equals_int (p.n_lambda_per_level, 0);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "median-size", 3), CF_OK);
  fail_unless_equals_int (p.n_median_size_per_level, 0);

  /* IPOL's schedule over the same model, on every level */
  cf_tvl1_params_init_ipol (&p);
  fail_unless_equals_int (p.warps, 5);
  fail_unless_equals_int (p.max_iterations, 300);
  fail_unless_equals_int (p.n_warps_per_level, 0);
  fail_unless_equals_int (p.n_iterations_per_level, 0);
  fail_unless_equals_float (p.presmooth_sigma, 0.8f);
  fail_unless_equals_float (p.epsilon, 0.01f);
  fail_unless_equals_float (p.lambda, 0.15f);
  fail_unless_equals_float (p.theta, 0.3f);
  fail_unless_equals_int (p.median_size, 0);    /* not in IPOL */
  fail_unless_equals_int (p.n_median_size_per_level, 0);

  cf_pyramid_params_init (&pp);
  cf_tvl1_prepare_pyramid_params (&p, &pp);
  fail_unless_equals_float (pp.presmooth_sigma, 0.8f);
  fail_unless_equals_float (pp.eta, 0.5f);      /* untouched */
  fail_unless_equals_int (pp.max_levels, 5);
}

GST_END_TEST;

GST_START_TEST (test_params_set_accepts_names_and_rejects_bad_values)
{
  cf_tvl1_params p, before;

  cf_tvl1_params_init_ipol (&p);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "tau", 0.125), CF_OK);
  fail_unless_equals_float (p.tau, 0.125f);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "lambda", 0.05), CF_OK);
  fail_unless_equals_float (p.lambda, 0.05f);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "theta", 0.5), CF_OK);
  fail_unless_equals_float (p.theta, 0.5f);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "warps", 1), CF_OK);
  fail_unless_equals_int (p.warps, 1);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "iterations", 10), CF_OK);
  fail_unless_equals_int (p.max_iterations, 10);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "epsilon", 0), CF_OK);
  fail_unless_equals_float (p.epsilon, 0.0f);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "sigma", 0), CF_OK);
  fail_unless_equals_float (p.presmooth_sigma, 0.0f);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "border", 0), CF_OK);
  fail_unless_equals_int (p.warp_border, CF_WARP_CLAMP);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "median-size", 5), CF_OK);
  fail_unless_equals_int (p.median_size, 5);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "median-size", 3), CF_OK);
  fail_unless_equals_int (p.median_size, 3);
  fail_unless (cf_tvl1_params_valid (&p));

  before = p;
  fail_unless_equals_int (cf_tvl1_params_set (&p, "tau", 0.0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "tau", 0.26),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "lambda", -1),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "theta", 0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "warps", 0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "warps", 2.5),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "iterations", 0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "epsilon", -0.01),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "sigma", -1),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "border", 2),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "lambda", NAN),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "alpha", 1),
      CF_ERROR_INVALID);
  fail_unless (memcmp (&p, &before, sizeof (p)) == 0);
}

GST_END_TEST;

GST_START_TEST (test_parse_per_level_lists_finest_first)
{
  cf_tvl1_params p, lp;
  cf_error err = { {0} };

  cf_tvl1_params_init (&p);
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&p, "1,2,4", &err),
      CF_OK);
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&p,
          " 20 , 50,100 ", &err), CF_OK);
  fail_unless_equals_int (p.n_warps_per_level, 3);
  fail_unless_equals_int (p.n_iterations_per_level, 3);
  /* level 0 is the full-size image; levels past a list reuse its last
   * entry; the uniform fields stay as they were */
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 0), 1);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 1), 2);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 2), 4);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 7), 4);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 0), 20);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 1), 50);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 2), 100);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 15), 100);
  fail_unless_equals_int (p.warps, 2);
  fail_unless_equals_int (p.max_iterations, 20);
  fail_unless (cf_tvl1_params_valid (&p));

  /* one level's parameters: its counts, no lists */
  cf_tvl1_level_params (&p, 1, &lp);
  fail_unless_equals_int (lp.warps, 2);
  fail_unless_equals_int (lp.max_iterations, 50);
  fail_unless_equals_int (lp.n_warps_per_level, 0);
  fail_unless_equals_int (lp.n_iterations_per_level, 0);
  fail_unless_equals_float (lp.lambda, p.lambda);
  fail_unless_equals_float (lp.epsilon, p.epsilon);

  /* the bounds of the uniform properties; CF_PYRAMID_MAX_LEVELS entries */
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&p, "1000,1",
          &err), CF_OK);
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&p,
          "1000000,1", &err), CF_OK);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 0), 1000000);
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&p,
          "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", &err), CF_OK);
  fail_unless_equals_int (p.n_warps_per_level, CF_PYRAMID_MAX_LEVELS);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 15), 16);

  /* through the table, as the element and the tools set them: blank text
   * clears a list, which gives the uniform value back */
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "warps-per-level", "3", &err), CF_OK);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 4), 3);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "warps-per-level", "  ", &err), CF_OK);
  fail_unless_equals_int (p.n_warps_per_level, 0);
  fail_unless_equals_int (cf_tvl1_level_warps (&p, 4), 2);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "iterations-per-level", NULL, &err), CF_OK);
  fail_unless_equals_int (p.n_iterations_per_level, 0);
  fail_unless_equals_int (cf_tvl1_level_iterations (&p, 0), 20);
}

GST_END_TEST;

/* The parse of @text by @parse fails with CF_ERROR_FORMAT, leaves params
 * alone and its message contains @needle. */
static void
assert_list_refused (cf_status (*parse) (cf_tvl1_params *, const char *,
        cf_error *), const char *text, const char *needle)
{
  cf_tvl1_params p, before;
  cf_error err = { {0} };

  cf_tvl1_params_init (&p);
  fail_unless_equals_int (parse (&p, "7,8", NULL), CF_OK);
  before = p;
  fail_unless_equals_int (parse (&p, text, &err), CF_ERROR_FORMAT);
  fail_unless (memcmp (&p, &before, sizeof (p)) == 0, "'%s' changed params",
      text);
  fail_unless (strstr (err.message, needle) != NULL,
      "'%s': message '%s' lacks '%s'", text, err.message, needle);
  fail_unless_equals_int (parse (&p, text, NULL), CF_ERROR_FORMAT);
}

GST_START_TEST (test_parse_per_level_lists_refuses_bad_text)
{
  cf_tvl1_params p;

  assert_list_refused (cf_tvl1_parse_warps_per_level, "", "empty list");
  assert_list_refused (cf_tvl1_parse_warps_per_level, " ", "empty list");
  assert_list_refused (cf_tvl1_parse_warps_per_level, "1,,2",
      "warps per level: entry 2 is empty");
  assert_list_refused (cf_tvl1_parse_warps_per_level, "1,2,", "entry 3");
  /* warps and iterations start at 1, as their uniform properties */
  assert_list_refused (cf_tvl1_parse_warps_per_level, "2,0",
      "entry 2 \"0\" is not a whole number >= 1");
  assert_list_refused (cf_tvl1_parse_iterations_per_level, "0",
      "iterations per level: entry 1 \"0\" is not a whole number >= 1");
  assert_list_refused (cf_tvl1_parse_warps_per_level, "-1", "entry 1 \"-1\"");
  assert_list_refused (cf_tvl1_parse_warps_per_level, "2.5", "entry 1");
  assert_list_refused (cf_tvl1_parse_iterations_per_level, "10;20",
      "entry 1 \"10;20\"");
  assert_list_refused (cf_tvl1_parse_iterations_per_level, "1 0", "entry 1");
  assert_list_refused (cf_tvl1_parse_iterations_per_level, "x", "entry 1");
  assert_list_refused (cf_tvl1_parse_warps_per_level, "1001",
      "above the limit 1000");
  assert_list_refused (cf_tvl1_parse_iterations_per_level, "5,1000001",
      "entry 2 \"1000001\" is above the limit 1000000");
  assert_list_refused (cf_tvl1_parse_iterations_per_level,
      "99999999999999999999999", "above the limit");
  assert_list_refused (cf_tvl1_parse_warps_per_level,
      "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "more than 16 entries");

  cf_tvl1_params_init_ipol (&p);
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&p, NULL, NULL),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (NULL, "1",
          NULL), CF_ERROR_INVALID);
  /* the table's rows refuse the same text */
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "iterations-per-level", "10,0", NULL), CF_ERROR_FORMAT);
  fail_unless_equals_int (p.n_iterations_per_level, 0);
}

GST_END_TEST;

/* Lists set in the struct by hand are checked like the table's fields:
 * the solver refuses a count or an entry count out of range. */
GST_START_TEST (test_params_valid_checks_the_lists)
{
  cf_tvl1_params p;

  cf_tvl1_params_init_ipol (&p);
  p.n_warps_per_level = 1;
  p.warps_per_level[0] = 0;
  fail_if (cf_tvl1_params_valid (&p));
  p.warps_per_level[0] = CF_TVL1_WARPS_MAX + 1;
  fail_if (cf_tvl1_params_valid (&p));
  p.warps_per_level[0] = CF_TVL1_WARPS_MAX;
  fail_unless (cf_tvl1_params_valid (&p));
  p.n_warps_per_level = CF_PYRAMID_MAX_LEVELS + 1;
  fail_if (cf_tvl1_params_valid (&p));
  p.n_warps_per_level = -1;
  fail_if (cf_tvl1_params_valid (&p));

  cf_tvl1_params_init_ipol (&p);
  p.n_iterations_per_level = 2;
  p.iterations_per_level[0] = 10;
  p.iterations_per_level[1] = 0;
  fail_if (cf_tvl1_params_valid (&p));
  p.iterations_per_level[1] = CF_TVL1_ITERATIONS_MAX;
  fail_unless (cf_tvl1_params_valid (&p));
}

GST_END_TEST;

/* @preset's setting of @name; fails when the preset leaves it as it is. */
static const cf_param_setting *
preset_setting (const cf_preset * preset, const char *name)
{
  const cf_param_setting *set;

  for (set = preset->settings; set->name != NULL; set++)
    if (!strcmp (set->name, name))
      return set;
  fail ("preset %s leaves %s as it is", preset->name, name);
  return NULL;
}

/* Every preset clears the list @name, but preset @except, which sets it
 * to @except_text (@except NULL: none). */
static void
assert_every_preset_clears (const char *name, const char *except,
    const char *except_text)
{
  const cf_preset *preset;

  for (preset = cf_tvl1_param_table.presets; preset->name; preset++) {
    const cf_param_setting *set = preset_setting (preset, name);

    if (except != NULL && !strcmp (preset->name, except)) {
      fail_unless_equals_string (set->text, except_text);
    } else {
      fail_unless (set->text == NULL, "preset %s: %s '%s'", preset->name,
          name, set->text);
    }
  }
}

/* Every preset sets the number @name: @accurate in accurate, @others in
 * the others. */
static void
assert_every_preset_sets (const char *name, double accurate, double others)
{
  const cf_preset *preset;

  for (preset = cf_tvl1_param_table.presets; preset->name; preset++)
    fail_unless_equals_float (preset_setting (preset, name)->value,
        strcmp (preset->name, "accurate") ? others : accurate);
}

/* accurate presmooths with σ 0.7, balanced 0.65, the others with IPOL's
 * 0.8 */
static void
assert_preset_sigmas (void)
{
  const cf_preset *preset;

  for (preset = cf_tvl1_param_table.presets; preset->name; preset++)
    fail_unless_equals_float (preset_setting (preset, "sigma")->value,
        !strcmp (preset->name, "accurate") ? 0.7 :
        !strcmp (preset->name, "balanced") ? 0.65 : 0.8);
}

/* median-size takes 0, 3 and 5 only (cf_flow_median's sizes, and off),
 * by number or nick; the solvers' check refuses the rest too; every
 * preset sets the filters: off but in accurate. */
GST_START_TEST (test_median_size_takes_0_3_5_only)
{
  static const double refused[] = { 1, 2, 4, 6, 7, -1, 5.5, NAN };
  cf_tvl1_params p, before;
  cf_error err = { {0} };
  guint i;

  cf_tvl1_params_init_ipol (&p);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "median-size", 5), CF_OK);
  before = p;
  for (i = 0; i < G_N_ELEMENTS (refused); i++)
    fail_unless (cf_tvl1_params_set (&p, "median-size", refused[i]) ==
        CF_ERROR_INVALID, "median-size=%g accepted", refused[i]);
  fail_unless (memcmp (&p, &before, sizeof (p)) == 0);
  fail_unless_equals_int (cf_params_set (&cf_tvl1_param_table, &p,
          "median-size", 4, &err), CF_ERROR_INVALID);
  fail_unless_equals_string (err.message,
      "median-size: 4 is not one of 0, 3, 5");

  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "median-size", "3x3", NULL), CF_OK);
  fail_unless_equals_int (p.median_size, 3);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "median-size", "off", NULL), CF_OK);
  fail_unless_equals_int (p.median_size, 0);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "median-size", "5", NULL), CF_OK);
  fail_unless_equals_int (p.median_size, 5);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "median-size", "4", NULL), CF_ERROR_INVALID);

  /* the solvers' own check */
  p.median_size = 4;
  fail_if (cf_tvl1_params_valid (&p));
  p.median_size = 1;
  fail_if (cf_tvl1_params_valid (&p));

  /* accurate filters (5 x 5, weighted on the levels at least 150 px
   * wide), the others do not */
  assert_every_preset_sets ("median-size", 5.0, 0.0);
  assert_every_preset_sets ("weighted-median-size", 5.0, 0.0);
}

GST_END_TEST;

/* gradient-blend: 0 .. 1, refused outside (NaN too) by the table and by
 * the solvers' check; 0.5 by default (balanced); every preset sets it,
 * ipol and romera to IPOL's 0. */
GST_START_TEST (test_gradient_blend_param)
{
  static const double refused[] = { -0.1, 1.01, NAN };
  const cf_preset *preset;
  cf_tvl1_params p, before;
  guint i;

  cf_tvl1_params_init (&p);
  fail_unless_equals_float (p.gradient_blend, 0.5f);
  cf_tvl1_params_init_ipol (&p);
  fail_unless_equals_float (p.gradient_blend, 0.0f);
  fail_unless_equals_int (cf_tvl1_params_set (&p, "gradient-blend", 0.5),
      CF_OK);
  fail_unless_equals_float (p.gradient_blend, 0.5f);
  before = p;
  for (i = 0; i < G_N_ELEMENTS (refused); i++)
    fail_unless (cf_tvl1_params_set (&p, "gradient-blend", refused[i]) ==
        CF_ERROR_INVALID, "gradient-blend=%g accepted", refused[i]);
  fail_unless (memcmp (&p, &before, sizeof (p)) == 0);
  p.gradient_blend = 1.5f;
  fail_if (cf_tvl1_params_valid (&p));
  p.gradient_blend = NAN;
  fail_if (cf_tvl1_params_valid (&p));

  for (preset = cf_tvl1_param_table.presets; preset->name; preset++) {
    const int ipol_like = !strcmp (preset->name, "ipol") ||
        !strcmp (preset->name, "romera");

    fail_unless_equals_float (preset_setting (preset,
            "gradient-blend")->value, ipol_like ? 0.0 : 0.5);
  }
}

GST_END_TEST;

/* median-size-per-level: a list of 0, 3 and 5, finest first, whose last
 * entry serves the coarser levels and which overrides median-size; blank
 * text clears it; every preset clears it but balanced, which filters its
 * finest level. */
GST_START_TEST (test_median_size_per_level)
{
  static const char *const refused[] = { "4", "0,1", "5,7", "-3", "0,,5",
    "5,x", "0,3,5,0,3,5,0,3,5,0,3,5,0,3,5,0,3"
  };
  cf_tvl1_params p, before, lp;
  cf_error err = { {0} };
  guint i;

  cf_tvl1_params_init_ipol (&p);
  fail_unless_equals_int (p.n_median_size_per_level, 0);
  fail_if (cf_tvl1_uses_median (&p));
  p.median_size = 3;
  fail_unless (cf_tvl1_uses_median (&p));
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 4), 3);

  fail_unless_equals_int (cf_tvl1_parse_median_size_per_level (&p, "0, 5",
          &err), CF_OK);
  fail_unless_equals_int (p.n_median_size_per_level, 2);
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 0), 0);
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 1), 5);
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 5), 5);
  fail_unless (cf_tvl1_uses_median (&p));
  fail_unless (cf_tvl1_params_valid (&p));
  cf_tvl1_level_params (&p, 0, &lp);
  fail_unless_equals_int (lp.median_size, 0);
  fail_unless_equals_int (lp.n_median_size_per_level, 0);
  cf_tvl1_level_params (&p, 3, &lp);
  fail_unless_equals_int (lp.median_size, 5);

  /* a list of zeros filters nowhere, whatever median-size says */
  fail_unless_equals_int (cf_tvl1_parse_median_size_per_level (&p, "0",
          &err), CF_OK);
  fail_if (cf_tvl1_uses_median (&p));
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 2), 0);

  before = p;
  for (i = 0; i < G_N_ELEMENTS (refused); i++) {
    fail_unless (cf_tvl1_parse_median_size_per_level (&p, refused[i],
            &err) != CF_OK, "'%s' accepted", refused[i]);
    fail_unless (memcmp (&p, &before, sizeof (p)) == 0, "'%s' changed the "
        "parameters", refused[i]);
  }
  fail_unless_equals_int (cf_tvl1_parse_median_size_per_level (&p, "3,4",
          &err), CF_ERROR_FORMAT);
  fail_unless_equals_string (err.message,
      "median size per level: entry 2 is 4, not 0, 3 or 5");

  /* through the table; blank clears */
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "median-size-per-level", "5,3", &err), CF_OK);
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 1), 3);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "median-size-per-level", "  ", &err), CF_OK);
  fail_unless_equals_int (p.n_median_size_per_level, 0);
  fail_unless_equals_int (cf_tvl1_level_median_size (&p, 1), 3);

  /* the solvers' check */
  p.n_median_size_per_level = 1;
  p.median_size_per_level[0] = 2;
  fail_if (cf_tvl1_params_valid (&p));

  assert_every_preset_clears ("median-size-per-level", "balanced", "5,0");
}

GST_END_TEST;

/* lambda-per-level: numbers in lambda's range, finest first, whose last
 * entry holds for the coarser levels; a level runs with its entry as
 * lambda; the pair's normalisation scales every entry; the presets clear
 * the list. */
GST_START_TEST (test_lambda_per_level)
{
  cf_tvl1_params p, lp, before;
  cf_error err = { {0} };

  cf_tvl1_params_init (&p);
  fail_unless_equals_int (p.n_lambda_per_level, 0);
  fail_unless_equals_float (cf_tvl1_level_lambda (&p, 0), 0.15f);
  fail_unless_equals_float (cf_tvl1_level_lambda (&p, 5), 0.15f);

  fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&p,
          "0.4, 0.3 ,0.15", &err), CF_OK);
  fail_unless_equals_int (p.n_lambda_per_level, 3);
  fail_unless_equals_float (cf_tvl1_level_lambda (&p, 0), 0.4f);
  fail_unless_equals_float (cf_tvl1_level_lambda (&p, 1), 0.3f);
  fail_unless_equals_float (cf_tvl1_level_lambda (&p, 2), 0.15f);
  fail_unless_equals_float (cf_tvl1_level_lambda (&p, 15), 0.15f);
  fail_unless_equals_float (p.lambda, 0.15f);
  fail_unless (cf_tvl1_params_valid (&p));

  /* a level's parameters: its lambda, no list */
  cf_tvl1_level_params (&p, 1, &lp);
  fail_unless_equals_float (lp.lambda, 0.3f);
  fail_unless_equals_int (lp.n_lambda_per_level, 0);
  cf_tvl1_level_params (&p, 4, &lp);
  fail_unless_equals_float (lp.lambda, 0.15f);

  /* the normalisation of a pair applied to lambda: every entry, capped */
  lp = p;
  cf_tvl1_scale_lambda (&lp, 2.0f);
  fail_unless_equals_float (lp.lambda, 0.3f);
  fail_unless_equals_float (cf_tvl1_level_lambda (&lp, 0), 0.8f);
  fail_unless_equals_float (cf_tvl1_level_lambda (&lp, 1), 0.6f);
  fail_unless_equals_float (cf_tvl1_level_lambda (&lp, 2), 0.3f);
  lp = p;
  cf_tvl1_scale_lambda (&lp, 1e7f);
  fail_unless_equals_float (lp.lambda, (float) CF_TVL1_LAMBDA_MAX);
  fail_unless_equals_float (cf_tvl1_level_lambda (&lp, 0),
      (float) CF_TVL1_LAMBDA_MAX);
  fail_unless_equals_float (cf_tvl1_level_lambda (&lp, 2),
      (float) CF_TVL1_LAMBDA_MAX);
  fail_unless (cf_tvl1_params_valid (&lp));

  /* lambda's bounds, and what is not a number in them */
  fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&p, "1e6,0.0001",
          &err), CF_OK);
  before = p;
  fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&p, "0.4,0",
          &err), CF_ERROR_FORMAT);
  fail_unless (strstr (err.message, "lambda per level: entry 2 \"0\"") !=
      NULL, "%s", err.message);
  fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&p, "2e6", NULL),
      CF_ERROR_FORMAT);
  fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&p, "0.4,,0.15",
          NULL), CF_ERROR_FORMAT);
  fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&p, "", NULL),
      CF_ERROR_FORMAT);
  fail_unless (memcmp (&p, &before, sizeof (p)) == 0);
  fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (NULL, "1", NULL),
      CF_ERROR_INVALID);

  /* through the table: blank text clears the list */
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "lambda-per-level", "0.25", &err), CF_OK);
  fail_unless_equals_float (cf_tvl1_level_lambda (&p, 3), 0.25f);
  fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table, &p,
          "lambda-per-level", " ", &err), CF_OK);
  fail_unless_equals_int (p.n_lambda_per_level, 0);
  fail_unless_equals_float (cf_tvl1_level_lambda (&p, 0), 0.15f);

  /* the solvers' check of a list set by hand */
  p.n_lambda_per_level = 2;
  p.lambda_per_level[0] = 0.4f;
  p.lambda_per_level[1] = 0.0f;
  fail_if (cf_tvl1_params_valid (&p));
  p.lambda_per_level[1] = NAN;
  fail_if (cf_tvl1_params_valid (&p));
  p.lambda_per_level[1] = 0.15f;
  fail_unless (cf_tvl1_params_valid (&p));
  p.n_lambda_per_level = CF_PYRAMID_MAX_LEVELS + 1;
  fail_if (cf_tvl1_params_valid (&p));
  p.n_lambda_per_level = -1;
  fail_if (cf_tvl1_params_valid (&p));

  /* accurate fits its two finest levels closer to the data */
  assert_every_preset_clears ("lambda-per-level", "accurate",
      "0.2,0.2,0.15");
}

GST_END_TEST;

GST_START_TEST (test_normalize_pair_maps_joint_range_to_0_255)
{
  const float a[] = { 10, 20, 30, 40 }, b[] = { 50, 60, 70, 90 };
  const float ea[] = { 0, 31.875f, 63.75f, 95.625f };
  const float eb[] = { 127.5f, 159.375f, 191.25f, 255 };
  cf_image *i0 = image_from (2, 2, a), *i1 = image_from (2, 2, b);

  cf_tvl1_normalize_pair (i0, i1);
  assert_image_equals (i0, ea, 1e-4f);
  assert_image_equals (i1, eb, 1e-4f);
  cf_image_free (i0);
  cf_image_free (i1);
}

GST_END_TEST;

GST_START_TEST (test_normalize_pair_leaves_constant_pair_unchanged)
{
  const float c[] = { 7, 7, 7, 7, 7, 7 };
  cf_image *i0 = image_from (3, 2, c), *i1 = image_from (3, 2, c);

  cf_tvl1_normalize_pair (i0, i1);
  assert_image_equals (i0, c, 0.0f);
  assert_image_equals (i1, c, 0.0f);
  cf_image_free (i0);
  cf_image_free (i1);
}

GST_END_TEST;

/* ------------------------------------------------------------- operators */

GST_START_TEST (test_centered_gradient_halves_one_sided_borders)
{
  const float f[] = {
    0, 1, 4, 9,
    10, 12, 20, 30,
    50, 40, 30, 20
  };
  /* IPOL centered_gradient: 0.5 (f(x+1) - f(x-1)), one-sided still halved */
  const float ex[] = {
    0.5f, 2, 4, 2.5f,
    1, 5, 9, 5,
    -5, -10, -10, -5
  };
  const float ey[] = {
    5, 5.5f, 8, 10.5f,
    25, 19.5f, 13, 5.5f,
    20, 14, 5, -5
  };
  cf_image *i1 = image_from (4, 3, f);
  cf_image *gx = cf_image_new (4, 3), *gy = cf_image_new (4, 3);

  fail_unless_equals_int (cf_tvl1_centered_gradient (i1, gx, gy), CF_OK);
  assert_image_equals (gx, ex, 0.0f);
  assert_image_equals (gy, ey, 0.0f);
  fail_unless_equals_int (cf_tvl1_centered_gradient (i1, gx, gx),
      CF_ERROR_INVALID);
  cf_image_free (i1);
  cf_image_free (gx);
  cf_image_free (gy);
}

GST_END_TEST;

GST_START_TEST (test_forward_gradient_is_zero_on_last_column_and_row)
{
  const float f[] = {
    1, 2, 4,
    8, 16, 32,
    64, 128, 256
  };
  const float ex[] = { 1, 2, 0, 8, 16, 0, 64, 128, 0 };
  const float ey[] = { 7, 14, 28, 56, 112, 224, 0, 0, 0 };
  cf_image *u = image_from (3, 3, f);
  cf_image *ux = cf_image_new (3, 3), *uy = cf_image_new (3, 3);

  fail_unless_equals_int (cf_tvl1_forward_gradient (u, ux, uy), CF_OK);
  assert_image_equals (ux, ex, 0.0f);
  assert_image_equals (uy, ey, 0.0f);
  cf_image_free (u);
  cf_image_free (ux);
  cf_image_free (uy);
}

GST_END_TEST;

GST_START_TEST (test_divergence_hand_values_at_borders_and_corners)
{
  const float px[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  const float py[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90 };
  /* x: first column +px, last column -px(x-1) (px(last) unread);
   * y: first row +py, last row -py(y-1) (py(last) unread) */
  const float ed[] = {
    11, 21, 28,
    34, 31, 25,
    -33, -49, -68
  };
  cf_image *a = image_from (3, 3, px), *b = image_from (3, 3, py);
  cf_image *d = cf_image_new (3, 3);

  fail_unless_equals_int (cf_tvl1_divergence (a, b, d), CF_OK);
  assert_image_equals (d, ed, 0.0f);
  fail_unless_equals_int (cf_tvl1_divergence (a, b, a), CF_ERROR_INVALID);
  cf_image_free (a);
  cf_image_free (b);
  cf_image_free (d);
}

GST_END_TEST;

GST_START_TEST (test_divergence_and_gradient_of_one_pixel_axis_are_zero)
{
  const float v[] = { 3, -1, 4, 1, -5 };
  cf_image *col = image_from (1, 5, v), *row = image_from (5, 1, v);
  cf_image *gx = cf_image_new (1, 5), *gy = cf_image_new (1, 5);
  cf_image *d = cf_image_new (1, 5);
  const float zero[] = { 0, 0, 0, 0, 0 };
  const float ey[] = { -4, 5, -3, -6, 0 };
  const float ed[] = { 3, -4, 5, -3, -1 };      /* py part only: px unread */

  fail_unless_equals_int (cf_tvl1_forward_gradient (col, gx, gy), CF_OK);
  assert_image_equals (gx, zero, 0.0f);
  assert_image_equals (gy, ey, 0.0f);
  /* 1-wide: the x part of div vanishes, the y part is the backward
   * difference with py(-1) = 0 and py(last) unread */
  fail_unless_equals_int (cf_tvl1_divergence (col, col, d), CF_OK);
  assert_image_equals (d, ed, 0.0f);
  cf_image_free (gx);
  cf_image_free (gy);
  cf_image_free (d);

  gx = cf_image_new (5, 1);
  gy = cf_image_new (5, 1);
  d = cf_image_new (5, 1);
  fail_unless_equals_int (cf_tvl1_forward_gradient (row, gx, gy), CF_OK);
  assert_image_equals (gy, zero, 0.0f);
  fail_unless_equals_int (cf_tvl1_divergence (row, row, d), CF_OK);
  assert_image_equals (d, ed, 0.0f);
  cf_image_free (gx);
  cf_image_free (gy);
  cf_image_free (d);
  cf_image_free (col);
  cf_image_free (row);
}

GST_END_TEST;

/* <∇u, p> = -<u, div p> on an odd size, for p as the solver keeps it (last
 * column of px and last row of py zero) and for an arbitrary p (the IPOL
 * divergence does not read those components). */
static void
check_adjoint (int w, int h, int zero_last, guint32 seed)
{
  cf_image *u = cf_image_new (w, h), *px = cf_image_new (w, h);
  cf_image *py = cf_image_new (w, h), *ux = cf_image_new (w, h);
  cf_image *uy = cf_image_new (w, h), *d = cf_image_new (w, h);
  double lhs, rhs, scale;
  int x, y;

  cf_test_fill_random (u, seed, -10.0f, 10.0f);
  cf_test_fill_random (px, seed + 1, -1.0f, 1.0f);
  cf_test_fill_random (py, seed + 2, -1.0f, 1.0f);
  if (zero_last) {
    for (y = 0; y < h; y++)
      PX (px, w - 1, y) = 0.0f;
    for (x = 0; x < w; x++)
      PX (py, x, h - 1) = 0.0f;
  }
  fail_unless_equals_int (cf_tvl1_forward_gradient (u, ux, uy), CF_OK);
  fail_unless_equals_int (cf_tvl1_divergence (px, py, d), CF_OK);
  lhs = dot (ux, px) + dot (uy, py);
  rhs = -dot (u, d);
  scale = 20.0 * w * h;
  fail_unless (fabs (lhs - rhs) <= 1e-6 * scale,
      "%dx%d: <grad u, p> = %.9g but -<u, div p> = %.9g", w, h, lhs, rhs);
  cf_image_free (u);
  cf_image_free (px);
  cf_image_free (py);
  cf_image_free (ux);
  cf_image_free (uy);
  cf_image_free (d);
}

GST_START_TEST (test_divergence_is_negative_adjoint_of_forward_gradient)
{
  check_adjoint (37, 23, 1, 11);
  check_adjoint (37, 23, 0, 12);
  check_adjoint (2, 2, 1, 13);
  check_adjoint (1, 9, 0, 14);
  check_adjoint (64, 1, 0, 15);
}

GST_END_TEST;

GST_START_TEST (test_threshold_three_cases_and_zero_gradient_guard)
{
  /* l = lambda theta = 0.045; pixels: (0) rho < -l g, (1) rho > l g,
   * (2) |rho| <= l g, (3) g = 0, (4) g = 1e-12 < guard, (5) case 1 only
   * because rho includes the current u */
  const float wx[] = { 2, 2, 2, 0, 1e-6f, 2 };
  const float wy[] = { 1, 1, 1, 0, 0, 1 };
  const float rc[] = { -1, 1, 0.1f, 0, 1e-14f, -1 };
  const float u1[] = { 0, 0, 0, 0.5f, 0, 0.5f };
  const float u2[] = { 0, 0, 0, -0.25f, 0, -0.25f };
  const float l = 0.15f * 0.3f;
  const float e1[] = { l * 2, -l * 2, -0.04f, 0.5f, 0, 0.5f + l * 2 };
  const float e2[] = { l, -l, -0.02f, -0.25f, 0, -0.25f + l };
  cf_image *gx = image_from (6, 1, wx), *gy = image_from (6, 1, wy);
  cf_image *rho_c = image_from (6, 1, rc), *g = cf_image_new (6, 1);
  cf_flow *u = cf_flow_new (6, 1), *v = cf_flow_new (6, 1);
  cf_image vu, vv;
  int x;

  for (x = 0; x < 6; x++) {
    PX (g, x, 0) = wx[x] * wx[x] + wy[x] * wy[x];
    FU (u, x, 0) = u1[x];
    FV (u, x, 0) = u2[x];
  }
  /* pixel 4: rho = 1e-14 <= l g = 4.5e-14 with g = 1e-12 below the guard;
   * pixel 5: rho = -1 + 2 * 0.5 + 1 * -0.25 = -0.25 < -l g = -0.225 */
  fail_unless_equals_int (cf_tvl1_threshold (gx, gy, g, rho_c, u, 0.15f,
          0.3f, v), CF_OK);
  vu = plane_u (v);
  vv = plane_v (v);
  assert_image_equals (&vu, e1, 1e-6f);
  assert_image_equals (&vv, e2, 1e-6f);
  for (x = 0; x < 6; x++)
    fail_unless (isfinite (FU (v, x, 0)) && isfinite (FV (v, x, 0)));
  /* guard, not -rho/g: g = 0 would give NaN, g = 1e-12 a step of 1e-8 */
  fail_unless_equals_float (FU (v, 3, 0), 0.5f);
  fail_unless_equals_float (FU (v, 4, 0), 0.0f);

  /* in place (v = u) gives the same */
  fail_unless_equals_int (cf_tvl1_threshold (gx, gy, g, rho_c, u, 0.15f,
          0.3f, u), CF_OK);
  vu = plane_u (u);
  assert_image_equals (&vu, e1, 1e-6f);

  cf_image_free (gx);
  cf_image_free (gy);
  cf_image_free (rho_c);
  cf_image_free (g);
  cf_flow_free (u);
  cf_flow_free (v);
}

GST_END_TEST;

GST_START_TEST (test_update_u_adds_theta_div_and_sums_squared_update)
{
  cf_flow *v = cf_flow_new (3, 2), *div = cf_flow_new (3, 2);
  cf_flow *u = cf_flow_new (3, 2);
  double sum = -1.0, expected = 0.0;
  int x, y;

  for (y = 0; y < 2; y++)
    for (x = 0; x < 3; x++) {
      FU (v, x, y) = x + 0.5f;
      FV (v, x, y) = -y - 0.25f;
      FU (div, x, y) = 1.0f;
      FV (div, x, y) = -2.0f;
      FU (u, x, y) = 0.1f * x;
      FV (u, x, y) = 0.2f * y;
    }
  for (y = 0; y < 2; y++)
    for (x = 0; x < 3; x++) {
      double d1 = (x + 0.5 + 0.3 * 1.0) - 0.1f * x;
      double d2 = (-y - 0.25 - 0.3 * 2.0) - 0.2f * y;
      expected += d1 * d1 + d2 * d2;
    }
  fail_unless_equals_int (cf_tvl1_update_u (v, div, 0.3f, u, &sum), CF_OK);
  for (y = 0; y < 2; y++)
    for (x = 0; x < 3; x++) {
      fail_unless (fabsf (FU (u, x, y) - (x + 0.5f + 0.3f)) < 1e-6f);
      fail_unless (fabsf (FV (u, x, y) - (-y - 0.25f - 0.6f)) < 1e-6f);
    }
  fail_unless (fabs (sum - expected) < 1e-5, "sum %g, expected %g", sum,
      expected);
  cf_flow_free (v);
  cf_flow_free (div);
  cf_flow_free (u);
}

GST_END_TEST;

GST_START_TEST (test_update_p_keeps_dual_field_in_unit_ball)
{
  const int w = 31, h = 17;
  cf_image *ux = cf_image_new (w, h), *uy = cf_image_new (w, h);
  cf_flow *p = cf_flow_new (w, h), *q = cf_flow_new (w, h);
  cf_image pu = plane_u (p), pv = plane_v (p);
  int n, x, y;

  /* start anywhere in the unit ball */
  cf_test_fill_random (&pu, 3, -0.7f, 0.7f);
  cf_test_fill_random (&pv, 4, -0.7f, 0.7f);
  for (n = 0; n < 40; n++) {
    float range = n < 20 ? 1000.0f : 1e-3f;
    cf_flow *t;
    cf_test_fill_random (ux, 100 + n, -range, range);
    cf_test_fill_random (uy, 200 + n, -range, range);
    /* ping-pong, then in place */
    fail_unless_equals_int (cf_tvl1_update_p (ux, uy, p, 0.25f, 0.3f, q),
        CF_OK);
    fail_unless_equals_int (cf_tvl1_update_p (ux, uy, q, 0.25f, 0.3f, q),
        CF_OK);
    t = p;
    p = q;
    q = t;
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        float m = hypotf (FU (p, x, y), FV (p, x, y));
        fail_unless (m <= 1.0f + 1e-6f, "|p| = %.9g at (%d, %d), step %d", m,
            x, y, n);
      }
  }
  cf_image_free (ux);
  cf_image_free (uy);
  cf_flow_free (p);
  cf_flow_free (q);
}

GST_END_TEST;

/* The planes of cf_tvl1_warp_prepare's tests, w x h */
typedef struct
{
  cf_image *i0, *i1, *i1x, *i1y, *i1w, *i1wx, *i1wy, *g, *rc;
  cf_flow *u0;
} warp_planes;

static void
warp_planes_init (warp_planes * p, int w, int h)
{
  p->i0 = cf_image_new (w, h);
  p->i1 = cf_image_new (w, h);
  p->i1x = cf_image_new (w, h);
  p->i1y = cf_image_new (w, h);
  p->i1w = cf_image_new (w, h);
  p->i1wx = cf_image_new (w, h);
  p->i1wy = cf_image_new (w, h);
  p->g = cf_image_new (w, h);
  p->rc = cf_image_new (w, h);
  p->u0 = cf_flow_new (w, h);
}

static void
warp_planes_clear (warp_planes * p)
{
  cf_image *images[] = { p->i0, p->i1, p->i1x, p->i1y, p->i1w, p->i1wx,
    p->i1wy, p->g, p->rc
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (images); i++)
    cf_image_free (images[i]);
  cf_flow_free (p->u0);
}

/* cf_tvl1_warp_prepare on @p's planes */
static cf_status
warp_planes_prepare (warp_planes * p, cf_warp_border border, float blend)
{
  return cf_tvl1_warp_prepare (p->i0, p->i1, p->i1x, p->i1y, p->u0, border,
      blend, p->i1w, p->i1wx, p->i1wy, p->g, p->rc);
}

GST_START_TEST (test_warp_prepare_zero_flow_zeroes_border_samples)
{
  const int w = 9, h = 7;
  warp_planes p;
  int x, y;

  warp_planes_init (&p, w, h);

  cf_test_fill_random (p.i0, 21, 0.0f, 255.0f);
  cf_test_fill_random (p.i1, 22, 0.0f, 255.0f);
  fail_unless_equals_int (cf_tvl1_centered_gradient (p.i1, p.i1x, p.i1y),
      CF_OK);

  /* IPOL border_out: the 4x4 support of x leaves the image on the first
   * column/row and the last two, so the samples are 0 there */
  fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_ZERO_OUTSIDE, 0.0f),
      CF_OK);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      int inside = x >= 1 && y >= 1 && x <= w - 3 && y <= h - 3;
      float e = inside ? PX (p.i1, x, y) : 0.0f;
      float ex = inside ? PX (p.i1x, x, y) : 0.0f;
      float ey = inside ? PX (p.i1y, x, y) : 0.0f;
      fail_unless (fabsf (PX (p.i1w, x, y) - e) < 1e-3f);
      fail_unless (fabsf (PX (p.i1wx, x, y) - ex) < 1e-3f);
      fail_unless (fabsf (PX (p.i1wy, x, y) - ey) < 1e-3f);
      fail_unless (fabsf (PX (p.g, x, y) - (ex * ex + ey * ey)) < 1e-1f);
      fail_unless (fabsf (PX (p.rc, x, y) - (e - PX (p.i0, x, y))) < 1e-3f);
    }

  /* clamped: the samples are I1 and its gradient everywhere */
  fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_CLAMP, 0.0f), CF_OK);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      fail_unless (fabsf (PX (p.i1w, x, y) - PX (p.i1, x, y)) < 1e-3f);
      fail_unless (fabsf (PX (p.i1wx, x, y) - PX (p.i1x, x, y)) < 1e-3f);
    }

  /* rho_c = I1w - grad I1w . p.u0 - I0 with a constant p.u0 = (1, 1) */
  cf_flow_fill (p.u0, 1.0f, 1.0f);
  fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_ZERO_OUTSIDE, 0.0f),
      CF_OK);
  fail_unless (fabsf (PX (p.i1w, 3, 2) - PX (p.i1, 4, 3)) < 1e-3f);
  fail_unless (fabsf (PX (p.rc, 3, 2) - (PX (p.i1, 4, 3) - PX (p.i1x, 4, 3) -
              PX (p.i1y, 4, 3) - PX (p.i0, 3, 2))) < 1e-2f);
  fail_unless_equals_float (PX (p.i1w, 6, 2), 0.0f);    /* 6+1+2 >= 9 */

  warp_planes_clear (&p);
}

GST_END_TEST;

/* gradient-blend: I0 = 3x + 5y, whose centred differences are 3 and 5
 * inside and 1.5 and 2.5 on the first and last column and row (halved
 * one-sided differences); I1 random, u0 = 0. Where the sample is inside,
 * I1wx = (1 − β) I1x + β I0x (likewise y) and g, ρc follow from them;
 * where IPOL's border switches the data term off, everything stays 0. */
static float
ramp_gradient (int i, int n, float slope)
{
  return i == 0 || i == n - 1 ? 0.5f * slope : slope;
}

GST_START_TEST (test_warp_prepare_blends_first_frame_gradient)
{
  static const float blends[] = { 0.25f, 0.5f, 1.0f };
  const int w = 9, h = 7;
  warp_planes p;
  int b, x, y;

  warp_planes_init (&p, w, h);

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      PX (p.i0, x, y) = 3.0f * x + 5.0f * y;
  cf_test_fill_random (p.i1, 23, 0.0f, 255.0f);
  fail_unless_equals_int (cf_tvl1_centered_gradient (p.i1, p.i1x, p.i1y),
      CF_OK);

  for (b = 0; b < (int) G_N_ELEMENTS (blends); b++) {
    const float beta = blends[b];

    /* zero outside: inside samples blend, the others stay 0 */
    fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_ZERO_OUTSIDE,
            beta), CF_OK);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        const int inside = x >= 1 && y >= 1 && x <= w - 3 && y <= h - 3;
        const float ex = inside ? (1.0f - beta) * PX (p.i1x, x, y) + beta *
            ramp_gradient (x, w, 3.0f) : 0.0f;
        const float ey = inside ? (1.0f - beta) * PX (p.i1y, x, y) + beta *
            ramp_gradient (y, h, 5.0f) : 0.0f;

        fail_unless (fabsf (PX (p.i1wx, x, y) - ex) < 1e-3f,
            "beta %g (%d, %d): I1wx %g, expected %g", beta, x, y,
            PX (p.i1wx, x, y), ex);
        fail_unless (fabsf (PX (p.i1wy, x, y) - ey) < 1e-3f,
            "beta %g (%d, %d): I1wy %g, expected %g", beta, x, y,
            PX (p.i1wy, x, y), ey);
        fail_unless (fabsf (PX (p.g, x, y) - (ex * ex + ey * ey)) < 1e-1f);
        fail_unless (fabsf (PX (p.rc, x, y) - ((inside ? PX (p.i1, x, y) : 0.0f)
                    - PX (p.i0, x, y))) < 1e-3f);
      }

    /* clamped: every sample is inside, the borders' halved differences
     * included */
    fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_CLAMP, beta),
        CF_OK);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        fail_unless (fabsf (PX (p.i1wx, x, y) - ((1.0f - beta) * PX (p.i1x, x,
                        y) + beta * ramp_gradient (x, w, 3.0f))) < 1e-3f);
        fail_unless (fabsf (PX (p.i1wy, x, y) - ((1.0f - beta) * PX (p.i1y, x,
                        y) + beta * ramp_gradient (y, h, 5.0f))) < 1e-3f);
      }
  }

  /* β = 1: the first frame's gradient alone; ρc linearises with it */
  cf_flow_fill (p.u0, 1.0f, 1.0f);
  fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_ZERO_OUTSIDE, 1.0f),
      CF_OK);
  fail_unless_equals_float (PX (p.i1wx, 3, 2), 3.0f);
  fail_unless_equals_float (PX (p.i1wy, 3, 2), 5.0f);
  fail_unless_equals_float (PX (p.g, 3, 2), 34.0f);
  fail_unless (fabsf (PX (p.rc, 3, 2) - (PX (p.i1, 4, 3) - 3.0f - 5.0f -
              PX (p.i0, 3, 2))) < 1e-2f);
  fail_unless_equals_float (PX (p.i1wx, 6, 2), 0.0f);   /* 6+1+2 >= 9 */

  /* outside 0 .. 1, or not a number */
  fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_ZERO_OUTSIDE, -0.1f),
      CF_ERROR_INVALID);
  fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_ZERO_OUTSIDE, 1.5f),
      CF_ERROR_INVALID);
  fail_unless_equals_int (warp_planes_prepare (&p, CF_WARP_ZERO_OUTSIDE, NAN),
      CF_ERROR_INVALID);

  warp_planes_clear (&p);
}

GST_END_TEST;

GST_START_TEST (test_iteration_equals_its_steps_in_ipol_order)
{
  const int w = 23, h = 19;
  cf_tvl1_workspace *ws = cf_tvl1_workspace_new (40, 30);
  cf_tvl1_workspace l;
  cf_tvl1_params params;
  cf_image *gx = cf_image_new (w, h), *gy = cf_image_new (w, h);
  cf_image *g = cf_image_new (w, h), *rc = cf_image_new (w, h);
  cf_image *div1 = cf_image_new (w, h), *div2 = cf_image_new (w, h);
  cf_image *ux = cf_image_new (w, h), *uy = cf_image_new (w, h);
  cf_flow *u = cf_flow_new (w, h), *u_ref = cf_flow_new (w, h);
  cf_flow *v = cf_flow_new (w, h), *div = cf_flow_new (w, h);
  cf_flow *p1 = cf_flow_new (w, h), *p2 = cf_flow_new (w, h);
  cf_image t;
  double e = -1.0, sum = 0.0;
  int n, x, y;

  cf_tvl1_params_init_ipol (&params);
  fail_unless (ws != NULL);
  fail_unless_equals_int (cf_tvl1_workspace_level (ws, w, h, &l), CF_OK);
  fail_unless_equals_int (cf_tvl1_workspace_level (ws, 41, h, &l),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_workspace_level (ws, w, h, &l), CF_OK);
  cf_test_fill_random (&l.i1wx, 31, -20.0f, 20.0f);
  cf_test_fill_random (&l.i1wy, 32, -20.0f, 20.0f);
  cf_test_fill_random (&l.rho_c, 33, -30.0f, 30.0f);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      PX (&l.grad, x, y) = PX (&l.i1wx, x, y) * PX (&l.i1wx, x, y) +
          PX (&l.i1wy, x, y) * PX (&l.i1wy, x, y);
      PX (gx, x, y) = PX (&l.i1wx, x, y);
      PX (gy, x, y) = PX (&l.i1wy, x, y);
      PX (g, x, y) = PX (&l.grad, x, y);
      PX (rc, x, y) = PX (&l.rho_c, x, y);
    }
  cf_flow_fill (&l.p1, 0.0f, 0.0f);
  cf_flow_fill (&l.p2, 0.0f, 0.0f);

  for (n = 0; n < 3; n++) {
    /* by hand: V, Div, U, fG, P */
    fail_unless_equals_int (cf_tvl1_threshold (gx, gy, g, rc, u_ref,
            params.lambda, params.theta, v), CF_OK);
    t = plane_u (p1);
    {
      cf_image t2 = plane_v (p1);
      fail_unless_equals_int (cf_tvl1_divergence (&t, &t2, div1), CF_OK);
    }
    t = plane_u (p2);
    {
      cf_image t2 = plane_v (p2);
      fail_unless_equals_int (cf_tvl1_divergence (&t, &t2, div2), CF_OK);
    }
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        FU (div, x, y) = PX (div1, x, y);
        FV (div, x, y) = PX (div2, x, y);
      }
    fail_unless_equals_int (cf_tvl1_update_u (v, div, params.theta, u_ref,
            &sum), CF_OK);
    t = plane_u (u_ref);
    fail_unless_equals_int (cf_tvl1_forward_gradient (&t, ux, uy), CF_OK);
    fail_unless_equals_int (cf_tvl1_update_p (ux, uy, p1, params.tau,
            params.theta, p1), CF_OK);
    t = plane_v (u_ref);
    fail_unless_equals_int (cf_tvl1_forward_gradient (&t, ux, uy), CF_OK);
    fail_unless_equals_int (cf_tvl1_update_p (ux, uy, p2, params.tau,
            params.theta, p2), CF_OK);

    fail_unless_equals_int (cf_tvl1_iteration (&l, &params, u, &e), CF_OK);
    fail_unless (fabs (e - sum / (w * h)) <= 1e-9 * (1.0 + e));
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        fail_unless_equals_float (FU (u, x, y), FU (u_ref, x, y));
        fail_unless_equals_float (FV (u, x, y), FV (u_ref, x, y));
        fail_unless_equals_float (FU (&l.p1, x, y), FU (p1, x, y));
        fail_unless_equals_float (FV (&l.p2, x, y), FV (p2, x, y));
      }
  }
  /* the solver's p keeps p_d1 = 0 on the last column, p_d2 on the last row */
  for (y = 0; y < h; y++)
    fail_unless_equals_float (FU (&l.p1, w - 1, y), 0.0f);
  for (x = 0; x < w; x++)
    fail_unless_equals_float (FV (&l.p2, x, h - 1), 0.0f);

  cf_tvl1_workspace_free (ws);
  cf_tvl1_workspace_free (NULL);
  cf_image_free (gx);
  cf_image_free (gy);
  cf_image_free (g);
  cf_image_free (rc);
  cf_image_free (div1);
  cf_image_free (div2);
  cf_image_free (ux);
  cf_image_free (uy);
  cf_flow_free (u);
  cf_flow_free (u_ref);
  cf_flow_free (v);
  cf_flow_free (div);
  cf_flow_free (p1);
  cf_flow_free (p2);
}

GST_END_TEST;

/* ---------------------------------------------------------------- solver */

/* Normalise copies of the pair, build pyramids and run cf_tvl1_flow. */
static cf_status
run_tvl1 (const cf_image * f0, const cf_image * f1,
    const cf_tvl1_params * params, int levels, int use_initial, cf_flow * flow)
{
  cf_image *a = cf_image_copy (f0), *b = cf_image_copy (f1);
  cf_pyramid_params pp;
  cf_pyramid *y0, *y1;
  cf_status status;

  cf_pyramid_params_init (&pp);
  pp.max_levels = levels;
  cf_tvl1_prepare_pyramid_params (params, &pp);
  cf_tvl1_normalize_pair (a, b);
  y0 = cf_pyramid_new (a->width, a->height, &pp);
  y1 = cf_pyramid_new (b->width, b->height, &pp);
  fail_unless (y0 != NULL && y1 != NULL);
  status = cf_pyramid_build (y0, a, &pp);
  if (status == CF_OK)
    status = cf_pyramid_build (y1, b, &pp);
  if (status == CF_OK)
    status = cf_tvl1_flow (y0, y1, params, use_initial, flow);
  cf_pyramid_free (y0);
  cf_pyramid_free (y1);
  cf_image_free (a);
  cf_image_free (b);
  return status;
}

GST_START_TEST (test_constant_pair_gives_zero_flow)
{
  cf_image *f = cf_image_new (33, 21);
  cf_flow *flow = cf_flow_new (33, 21);
  cf_tvl1_params params;
  int x, y;

  cf_tvl1_params_init_ipol (&params);
  cf_image_fill (f, 100.0f);
  fail_unless_equals_int (run_tvl1 (f, f, &params, 5, 0, flow), CF_OK);
  for (y = 0; y < 21; y++)
    for (x = 0; x < 33; x++) {
      fail_unless_equals_float (FU (flow, x, y), 0.0f);
      fail_unless_equals_float (FV (flow, x, y), 0.0f);
    }
  cf_image_free (f);
  cf_flow_free (flow);
}

GST_END_TEST;

GST_START_TEST (test_flow_rejects_bad_arguments)
{
  cf_pyramid_params pp;
  cf_pyramid *a, *b, *c;
  cf_tvl1_params params;
  cf_flow *flow = cf_flow_new (64, 48), *small = cf_flow_new (32, 24);

  cf_pyramid_params_init (&pp);
  cf_tvl1_params_init_ipol (&params);
  a = cf_pyramid_new (64, 48, &pp);
  b = cf_pyramid_new (64, 48, &pp);
  pp.max_levels = 1;
  c = cf_pyramid_new (64, 48, &pp);
  fail_unless_equals_int (a->n_levels, 2);      /* 32x24, then 16x12 < 16 */
  fail_unless_equals_int (cf_tvl1_flow (a, b, &params, 0, flow), CF_OK);
  fail_unless_equals_int (cf_tvl1_flow (a, c, &params, 0, flow),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_flow (a, b, &params, 0, small),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_flow (NULL, b, &params, 0, flow),
      CF_ERROR_INVALID);
  params.warps = 0;
  fail_unless_equals_int (cf_tvl1_flow (a, b, &params, 0, flow),
      CF_ERROR_INVALID);
  cf_tvl1_params_init_ipol (&params);
  params.tau = 0.3f;
  fail_unless_equals_int (cf_tvl1_flow (a, b, &params, 0, flow),
      CF_ERROR_INVALID);
  fail_unless (cf_tvl1_workspace_new (0, 5) == NULL);
  cf_pyramid_free (a);
  cf_pyramid_free (b);
  cf_pyramid_free (c);
  cf_flow_free (flow);
  cf_flow_free (small);
}

GST_END_TEST;

/* Normalised pyramids of a synthetic pair whose second frame is lit by
 * @gain and @bias; its true flow in @truth (nullable). */
static void
synth_pyramids_lit (int w, int h, cf_synth_motion motion, int levels,
    const cf_tvl1_params * params, float gain, float bias, cf_pyramid ** p0,
    cf_pyramid ** p1, cf_flow ** truth_out)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL;
  cf_pyramid_params pp;

  cf_synth_params_init (&sp);
  sp.motion = motion;
  sp.tx = 2.5f;
  sp.ty = -1.25f;
  sp.gain = gain;
  sp.bias = bias;
  fail_unless_equals_int (cf_synth_pair (w, h, &sp, &f0, &f1, &truth), CF_OK);
  cf_pyramid_params_init (&pp);
  pp.max_levels = levels;
  cf_tvl1_prepare_pyramid_params (params, &pp);
  cf_tvl1_normalize_pair (f0, f1);
  *p0 = cf_pyramid_new (w, h, &pp);
  *p1 = cf_pyramid_new (w, h, &pp);
  fail_unless (*p0 != NULL && *p1 != NULL);
  fail_unless_equals_int (cf_pyramid_build (*p0, f0, &pp), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (*p1, f1, &pp), CF_OK);
  cf_image_free (f0);
  cf_image_free (f1);
  if (truth_out != NULL)
    *truth_out = truth;
  else
    cf_flow_free (truth);
}

/* Normalised pyramids of a synthetic pair */
static void
synth_pyramids (int w, int h, cf_synth_motion motion, int levels,
    const cf_tvl1_params * params, cf_pyramid ** p0, cf_pyramid ** p1)
{
  synth_pyramids_lit (w, h, motion, levels, params, 1.0f, 0.0f, p0, p1,
      NULL);
}

/* The solver is the IPOL driver, and with median_size > 0 the IPOL driver
 * with cf_flow_median after every warp (the last warp of a level too,
 * before the flow is upsampled): the same bits and iteration counts as
 * the steps written out, for sizes 0, 3, 5, per-level lists (a size of
 * -1 below stands for the list of that index), fixed counts and ε > 0. */
GST_START_TEST (test_median_runs_after_every_warp)
{
  static const int sizes[] = { 0, 3, 5, -1, -2, -3 };
  static const char *const lists[] = { "0,5", "5,0,3", "3" };
  cf_pyramid *p0, *p1;
  cf_tvl1_params params;
  guint i;
  int eps;

  cf_tvl1_params_init_ipol (&params);
  synth_pyramids (97, 61, CF_SYNTH_SMOOTH, 3, &params, &p0, &p1);
  fail_unless_equals_int (p0->n_levels, 3);
  for (eps = 0; eps < 2; eps++) {
    for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
      cf_flow *got = cf_flow_new (97, 61), *want = cf_flow_new (97, 61);
      long n_got = -1, n_want;

      params.warps = 3;
      params.max_iterations = eps ? 300 : 12;
      params.epsilon = eps ? 0.01f : 0.0f;
      params.median_size = sizes[i] >= 0 ? sizes[i] : 0;
      fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table,
              &params, "median-size-per-level", sizes[i] >= 0 ? NULL :
              lists[-sizes[i] - 1], NULL), CF_OK);
      fail_unless_equals_int (cf_tvl1_flow_counted (p0, p1, &params, 0, got,
              &n_got), CF_OK);
      n_want = cf_test_tvl1_steps_flow (p0, p1, &params, 0, want);
      GST_INFO ("median %d, eps %g: %ld iterations", sizes[i],
          params.epsilon, n_got);
      fail_unless (memcmp (got->u, want->u, 97 * 61 * sizeof (float)) == 0
          && memcmp (got->v, want->v, 97 * 61 * sizeof (float)) == 0,
          "median %d, eps %g: solver and written-out steps differ",
          sizes[i], params.epsilon);
      fail_unless_equals_int (n_got, n_want);
      if (!eps)
        fail_unless_equals_int (n_got, 3 * 3 * 12);
      cf_flow_free (got);
      cf_flow_free (want);
    }
  }
  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
}

GST_END_TEST;

/* lambda-per-level: each level iterates with its own λ, the same bits as
 * the steps written out, at fixed counts and with ε > 0; a list of one
 * entry equal to lambda is no list; a larger λ on the finest level changes
 * the flow. */
GST_START_TEST (test_lambda_per_level_runs_each_level_with_its_lambda)
{
  static const char *const lists[] = { "0.15", "0.4,0.15", "0.1,0.3,0.6" };
  cf_pyramid *p0, *p1;
  cf_tvl1_params params;
  cf_flow *uniform = cf_flow_new (97, 61);
  guint i;
  int eps;

  cf_tvl1_params_init (&params);
  params.n_median_size_per_level = 0;   /* median_size below counts */
  synth_pyramids (97, 61, CF_SYNTH_SMOOTH, 3, &params, &p0, &p1);
  fail_unless_equals_int (p0->n_levels, 3);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "warps", 2), CF_OK);
  params.median_size = 3;
  for (eps = 0; eps < 2; eps++) {
    fail_unless_equals_int (cf_tvl1_params_set (&params,
            "iterations", eps ? 300 : 10), CF_OK);
    params.epsilon = eps ? 0.01f : 0.0f;
    params.n_lambda_per_level = 0;
    fail_unless_equals_int (cf_tvl1_flow (p0, p1, &params, 0, uniform),
        CF_OK);
    for (i = 0; i < G_N_ELEMENTS (lists); i++) {
      cf_flow *got = cf_flow_new (97, 61), *want = cf_flow_new (97, 61);
      double mean = 0.0, max = 0.0;
      long n_got = -1, n_want;

      fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&params,
              lists[i], NULL), CF_OK);
      fail_unless_equals_int (cf_tvl1_flow_counted (p0, p1, &params, 0, got,
              &n_got), CF_OK);
      n_want = cf_test_tvl1_steps_flow (p0, p1, &params, 0, want);
      fail_unless (memcmp (got->u, want->u, 97 * 61 * sizeof (float)) == 0
          && memcmp (got->v, want->v, 97 * 61 * sizeof (float)) == 0,
          "lambda %s, eps %g: solver and written-out steps differ",
          lists[i], params.epsilon);
      fail_unless_equals_int (n_got, n_want);
      fail_unless_equals_int (cf_flow_diff (got, uniform, &mean, &max),
          CF_OK);
      GST_INFO ("lambda %s vs 0.15, eps %g: mean |diff| %g px", lists[i],
          params.epsilon, mean);
      if (i == 0)
        fail_unless (max == 0.0, "a one-entry list of lambda changed the "
            "flow by %g px", max);
      else
        fail_unless (max > 0.0, "lambda %s left the flow unchanged",
            lists[i]);
      cf_flow_free (got);
      cf_flow_free (want);
    }
  }
  cf_flow_free (uniform);
  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
}

GST_END_TEST;

/* cf_tvl1_fit_brightness finds the gain and bias of a warped frame lit
 * differently, over the samples inside I1 only; an occlusion pulls an
 * untrimmed fit away and the fits carried from warp to warp leave it out;
 * the identity within its gate, on too few samples and on a flat frame;
 * cf_tvl1_apply_brightness puts the model into ρc. */
GST_START_TEST (test_brightness_fit_and_apply)
{
  const int w = 64, h = 48;
  const cf_tvl1_brightness_fit cleared = { 1.0, 0.0, 0.0, 0 };
  cf_tvl1_brightness_fit fit = cleared;
  cf_image *i0 = cf_test_random_image (w, h, 7, 0.0f, 200.0f);
  cf_image *lit = cf_image_new (w, h), *rho0 = cf_image_new (w, h);
  cf_image *rho, *flat = cf_image_new (w, h);
  cf_image *small = cf_test_random_image (8, 8, 3, 0.0f, 200.0f);
  cf_flow *u = cf_flow_new (w, h), *u_small = cf_flow_new (8, 8);
  float gain = 0.0f, bias = 0.0f;
  int x, y;

  fail_unless (i0 != NULL && lit != NULL && u != NULL && small != NULL);
  cf_flow_fill (u, 0.0f, 0.0f);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      cf_image_row (lit, y)[x] = 0.8f * cf_image_row (i0, y)[x] + 20.0f;
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, &fit, &gain,
          &bias), CF_OK);
  fail_unless (fabsf (gain - 0.8f) < 1e-4f && fabsf (bias - 20.0f) < 1e-2f,
      "gain %g bias %g", gain, bias);
  /* the fit carried on: its own values, the cut at its floor (the
   * residuals are rounding) */
  fail_unless (fit.live == 1 && fabs (fit.gain - gain) < 1e-6 &&
      fabs (fit.bias - bias) < 1e-4 &&
      fit.cut == CF_TVL1_BRIGHTNESS_CUT_MIN, "carried: %g %g %g %d",
      fit.gain, fit.bias, fit.cut, fit.live);

  /* an occlusion: 6 of 64 columns show something else. The first fit
   * (nothing to trim against) is pulled away; the next warps' fits trim
   * against the one before and find the light again. */
  for (y = 0; y < h; y++)
    for (x = 20; x < 26; x++)
      cf_image_row (lit, y)[x] = 255.0f - cf_image_row (i0, y)[x];
  fit = cleared;
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, &fit, &gain,
          &bias), CF_OK);
  GST_INFO ("occlusion, first warp: gain %g bias %g cut %g", gain, bias,
      fit.cut);
  fail_unless (fabsf (gain - 0.8f) > 0.03f, "untrimmed: gain %g", gain);
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, &fit, &gain,
          &bias), CF_OK);
  GST_INFO ("occlusion, second warp: gain %g bias %g cut %g", gain, bias,
      fit.cut);
  fail_unless (fabsf (gain - 0.8f) < 0.01f && fabsf (bias - 20.0f) < 1.0f,
      "occlusion, second warp: gain %g bias %g", gain, bias);
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, &fit, &gain,
          &bias), CF_OK);
  fail_unless (fabsf (gain - 0.8f) < 1e-3f && fabsf (bias - 20.0f) < 0.1f,
      "occlusion, third warp: gain %g bias %g", gain, bias);

  /* samples outside I1 (x + 40 past the 3 px margin, x >= 21) hold
   * anything: they do not count */
  cf_flow_fill (u, 40.0f, 0.0f);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      cf_image_row (lit, y)[x] = x + 40 <= w - 1 - 3 ?
          0.8f * cf_image_row (i0, y)[x] + 20.0f : 0.0f;
  fit = cleared;
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, &fit, &gain,
          &bias), CF_OK);
  fail_unless (fabsf (gain - 0.8f) < 1e-4f && fabsf (bias - 20.0f) < 1e-2f,
      "margin: gain %g bias %g", gain, bias);
  cf_flow_fill (u, 0.0f, 0.0f);

  /* within the gate (1 % and 1 grey level): the identity, exactly, while
   * the fit goes on to the next warp; past it, the fit */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      cf_image_row (lit, y)[x] = 1.01f * cf_image_row (i0, y)[x] + 1.0f;
  fit = cleared;
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, &fit, &gain,
          &bias), CF_OK);
  fail_unless (gain == 1.0f && bias == 0.0f, "gate: gain %g bias %g", gain,
      bias);
  fail_unless (fit.live == 1 && fabs (fit.gain - 1.01) < 1e-4,
      "gate: carried gain %g", fit.gain);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      cf_image_row (lit, y)[x] = cf_image_row (i0, y)[x] + 3.0f;
  fit = cleared;
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, &fit, &gain,
          &bias), CF_OK);
  fail_unless (fabsf (gain - 1.0f) < 1e-4f && fabsf (bias - 3.0f) < 1e-2f,
      "past the gate: gain %g bias %g", gain, bias);

  /* a flat first frame, and 8 x 8 (4 samples inside the margin): the
   * identity, and nothing for the next warp to trim against */
  cf_image_fill (flat, 100.0f);
  fail_unless_equals_int (cf_tvl1_fit_brightness (flat, lit, u, &fit, &gain,
          &bias), CF_OK);
  fail_unless (gain == 1.0f && bias == 0.0f && fit.live == 0);
  cf_flow_fill (u_small, 0.0f, 0.0f);
  fit.live = 1;
  fail_unless_equals_int (cf_tvl1_fit_brightness (small, small, u_small,
          &fit, &gain, &bias), CF_OK);
  fail_unless (gain == 1.0f && bias == 0.0f && fit.live == 0);
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, small, u, &fit, &gain,
          &bias), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, &fit, NULL,
          &bias), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, lit, u, NULL, &gain,
          &bias), CF_ERROR_INVALID);

  /* ρc + I0 − (gain I0 + bias), pixel by pixel */
  cf_test_fill_random (rho0, 9, -50.0f, 50.0f);
  rho = cf_image_copy (rho0);
  fail_unless_equals_int (cf_tvl1_apply_brightness (i0, 0.8f, 20.0f, rho),
      CF_OK);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const float f = cf_image_row (i0, y)[x];
      fail_unless_equals_float (cf_image_row (rho, y)[x],
          cf_image_row (rho0, y)[x] + (f - (0.8f * f + 20.0f)));
    }
  fail_unless_equals_int (cf_tvl1_apply_brightness (i0, 1.0f, 0.0f, small),
      CF_ERROR_INVALID);

  cf_image_free (i0);
  cf_image_free (lit);
  cf_image_free (rho);
  cf_image_free (rho0);
  cf_image_free (flat);
  cf_image_free (small);
  cf_flow_free (u);
  cf_flow_free (u_small);
}

GST_END_TEST;

/* brightness_model in the solver: the steps written out (fit and apply
 * after each warp's constants) give its bits; on a pair whose second
 * frame is 0.8 I + 20 it is much closer to the true flow than without;
 * on a pair of unchanged light it changes no bit. */
GST_START_TEST (test_brightness_model_in_the_solver)
{
  cf_pyramid *p0, *p1;
  cf_tvl1_params params;
  cf_flow *truth = NULL, *with = cf_flow_new (97, 61);
  cf_flow *without = cf_flow_new (97, 61), *want = cf_flow_new (97, 61);
  double epe_with, epe_without;

  cf_tvl1_params_init (&params);
  fail_unless_equals_int (params.brightness_model, 0);
  /* off in every preset but accurate; its presmoothing, and balanced's,
   * is lighter */
  assert_every_preset_sets ("brightness-model", 1.0, 0.0);
  assert_preset_sigmas ();
  fail_unless_equals_int (cf_tvl1_params_set (&params, "warps", 3), CF_OK);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "iterations", 20),
      CF_OK);
  params.epsilon = 0.0f;
  synth_pyramids_lit (97, 61, CF_SYNTH_SMOOTH, 3, &params, 0.8f, 20.0f,
      &p0, &p1, &truth);
  fail_unless_equals_int (cf_tvl1_flow (p0, p1, &params, 0, without), CF_OK);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "brightness-model",
          1), CF_OK);
  fail_unless_equals_int (cf_tvl1_flow (p0, p1, &params, 0, with), CF_OK);
  cf_test_tvl1_steps_flow (p0, p1, &params, 0, want);
  fail_unless (memcmp (with->u, want->u, 97 * 61 * sizeof (float)) == 0 &&
      memcmp (with->v, want->v, 97 * 61 * sizeof (float)) == 0,
      "solver and written-out steps differ");
  epe_with = cf_test_flow_epe (with, truth, 0);
  epe_without = cf_test_flow_epe (without, truth, 0);
  GST_INFO ("gain 0.8, bias 20: EPE %.4f with the model, %.4f without",
      epe_with, epe_without);
  fail_unless (epe_with < 0.5 * epe_without, "EPE %.4f with, %.4f without",
      epe_with, epe_without);
  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
  cf_flow_free (truth);

  /* unchanged light: the gate keeps every bit */
  synth_pyramids (97, 61, CF_SYNTH_SMOOTH, 3, &params, &p0, &p1);
  fail_unless_equals_int (cf_tvl1_flow (p0, p1, &params, 0, with), CF_OK);
  params.brightness_model = 0;
  fail_unless_equals_int (cf_tvl1_flow (p0, p1, &params, 0, without), CF_OK);
  cf_test_assert_flow_identical (with, without, "unchanged light");
  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
  cf_flow_free (with);
  cf_flow_free (without);
  cf_flow_free (want);
}

GST_END_TEST;

/* weighted-median-size: on the levels at least weighted-median-min-width
 * wide (of 97, 48, 24: none, the finest, the finest two, all) the
 * weighted median guided by the level's first frame replaces the plain
 * median (off or 3 x 3 on the others): the same bits as the steps written
 * out; the filter changes the flow; the parameters' rules. */
GST_START_TEST (test_weighted_median_on_wide_levels)
{
  static const int min_widths[] = { 98, 97, 40, 1 };
  cf_pyramid *p0, *p1;
  cf_tvl1_params params;
  cf_flow *plain = NULL;
  guint i;
  int msize;

  cf_tvl1_params_init (&params);
  fail_unless_equals_int (params.wmedian_size, 0);
  fail_unless_equals_float (params.wmedian_sigma, 14.0f);
  fail_unless_equals_int (params.wmedian_min_width, 150);
  /* without balanced's median of the finest level, no filter */
  params.n_median_size_per_level = 0;
  fail_if (cf_tvl1_uses_median (&params));
  fail_unless_equals_int (cf_tvl1_params_set (&params,
          "weighted-median-size", 9), CF_OK);
  fail_unless (cf_tvl1_uses_median (&params));
  fail_unless_equals_int (cf_tvl1_level_wmedian_size (&params, 150), 9);
  fail_unless_equals_int (cf_tvl1_level_wmedian_size (&params, 149), 0);
  fail_unless (cf_tvl1_params_set (&params, "weighted-median-size", 4) ==
      CF_ERROR_INVALID);
  fail_unless (cf_tvl1_params_set (&params, "weighted-median-size", 11) ==
      CF_ERROR_INVALID);
  fail_unless (cf_tvl1_params_set (&params, "weighted-median-sigma", 0.0) ==
      CF_ERROR_INVALID);
  fail_unless (cf_tvl1_params_set (&params, "weighted-median-min-width",
          0) == CF_ERROR_INVALID);

  cf_tvl1_params_init (&params);
  synth_pyramids (97, 61, CF_SYNTH_SMOOTH, 3, &params, &p0, &p1);
  fail_unless_equals_int (p0->n_levels, 3);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "warps", 2), CF_OK);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "iterations", 10),
      CF_OK);
  params.epsilon = 0.0f;
  params.wmedian_size = 5;
  for (msize = 0; msize <= 3; msize += 3) {
    for (i = 0; i < G_N_ELEMENTS (min_widths); i++) {
      cf_flow *got = cf_flow_new (97, 61), *want = cf_flow_new (97, 61);
      long n_got = -1, n_want;

      params.median_size = msize;
      params.wmedian_min_width = min_widths[i];
      fail_unless_equals_int (cf_tvl1_flow_counted (p0, p1, &params, 0, got,
              &n_got), CF_OK);
      n_want = cf_test_tvl1_steps_flow (p0, p1, &params, 0, want);
      fail_unless (memcmp (got->u, want->u, 97 * 61 * sizeof (float)) == 0
          && memcmp (got->v, want->v, 97 * 61 * sizeof (float)) == 0,
          "median %d, weighted from %d px: solver and written-out steps "
          "differ", msize, min_widths[i]);
      fail_unless_equals_int (n_got, n_want);
      cf_flow_free (want);
      if (msize == 0 && i == 0) {
        plain = got;            /* no level takes it: no filter at all */
        continue;
      }
      if (msize == 0) {
        double mean = 0.0, max = 0.0;

        fail_unless_equals_int (cf_flow_diff (got, plain, &mean, &max),
            CF_OK);
        GST_INFO ("weighted 5 x 5 from %d px vs none: mean |diff| %g px",
            min_widths[i], mean);
        fail_unless (max > 0.0, "weighted median from %d px left the flow "
            "unchanged", min_widths[i]);
      }
      cf_flow_free (got);
    }
  }
  cf_flow_free (plain);
  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
}

GST_END_TEST;

/* median-size=5 changes the flow (it is not a no-op) but not a fixed
 * iteration count, and keeps the translation's accuracy; 0 is the
 * default's flow bit for bit. */
GST_START_TEST (test_median_changes_flow_not_fixed_iteration_count)
{
  cf_pyramid *p0, *p1;
  cf_tvl1_params params;
  cf_flow *off = cf_flow_new (97, 61), *on = cf_flow_new (97, 61);
  cf_flow *dflt = cf_flow_new (97, 61);
  long n_off = -1, n_on = -2;
  double mean, max;

  cf_tvl1_params_init_ipol (&params);
  params.warps = 2;
  params.max_iterations = 20;
  params.epsilon = 0.0f;
  synth_pyramids (97, 61, CF_SYNTH_ROTATION_ZOOM, 3, &params, &p0, &p1);
  fail_unless_equals_int (cf_tvl1_flow_counted (p0, p1, &params, 0, dflt,
          NULL), CF_OK);
  params.median_size = 0;
  fail_unless_equals_int (cf_tvl1_flow_counted (p0, p1, &params, 0, off,
          &n_off), CF_OK);
  cf_test_assert_flow_identical (off, dflt, "median-size=0 vs default");
  params.median_size = 5;
  fail_unless_equals_int (cf_tvl1_flow_counted (p0, p1, &params, 0, on,
          &n_on), CF_OK);
  fail_unless_equals_int (n_on, n_off);
  fail_unless_equals_int (n_on, p0->n_levels * 2 * 20);
  fail_unless_equals_int (cf_flow_diff (on, off, &mean, &max), CF_OK);
  GST_INFO ("median 5 vs none: mean |diff| %g px, max %g", mean, max);
  fail_unless (max > 0.0, "median 5 left the flow unchanged");
  cf_flow_free (off);
  cf_flow_free (on);
  cf_flow_free (dflt);
  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
}

GST_END_TEST;

/* EPE of TV-L1 (IPOL defaults unless changed) on a 128x96 synthetic pair,
 * ignoring a border of 4 pixels. */
static double
synth_epe (const cf_synth_params * sp, const cf_tvl1_params * params,
    int levels)
{
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow = cf_flow_new (128, 96);
  cf_flow_error err;

  fail_unless_equals_int (cf_synth_pair (128, 96, sp, &f0, &f1, &truth), CF_OK);
  fail_unless_equals_int (run_tvl1 (f0, f1, params, levels, 0, flow), CF_OK);
  fail_unless_equals_int (cf_flow_compare (flow, truth, 4, &err), CF_OK);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
  return err.epe;
}

GST_START_TEST (test_translation_epe_below_0_03)
{
  cf_synth_params sp;
  cf_tvl1_params params;
  double epe;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_TRANSLATION;
  sp.tx = 2.5f;
  sp.ty = -1.25f;
  cf_tvl1_params_init_ipol (&params);
  epe = synth_epe (&sp, &params, 5);
  GST_INFO ("translation (2.5, -1.25): EPE %.4f", epe);
  fail_unless (epe < 0.03, "EPE %.4f", epe);   /* measured 0.0107 */
}

GST_END_TEST;

GST_START_TEST (test_translation_with_median_epe_below_0_03)
{
  cf_synth_params sp;
  cf_tvl1_params params;
  double epe[2];
  int i;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_TRANSLATION;
  sp.tx = 2.5f;
  sp.ty = -1.25f;
  cf_tvl1_params_init_ipol (&params);
  for (i = 0; i < 2; i++) {
    params.median_size = i ? 5 : 3;
    epe[i] = synth_epe (&sp, &params, 5);
    GST_INFO ("translation (2.5, -1.25), median %d: EPE %.4f",
        params.median_size, epe[i]);
    fail_unless (epe[i] < 0.03, "median %d: EPE %.4f", params.median_size,
        epe[i]);
  }
}

GST_END_TEST;

GST_START_TEST (test_rotation_zoom_epe_below_0_05)
{
  cf_synth_params sp;
  cf_tvl1_params params;
  double epe;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.tx = 1.0f;
  sp.ty = 0.5f;
  sp.angle = 3.0f;
  sp.zoom = 1.03f;
  cf_tvl1_params_init_ipol (&params);
  epe = synth_epe (&sp, &params, 5);
  GST_INFO ("rotation 3 deg, zoom 1.03: EPE %.4f", epe);
  fail_unless (epe < 0.05, "EPE %.4f", epe);   /* measured 0.0292 */
}

GST_END_TEST;

GST_START_TEST (test_smooth_motion_epe_below_0_16)
{
  cf_synth_params sp;
  cf_tvl1_params params;
  double epe;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 2.0f;
  cf_tvl1_params_init_ipol (&params);
  epe = synth_epe (&sp, &params, 5);
  GST_INFO ("smooth, amplitude 2: EPE %.4f", epe);
  /* measured 0.133; IPOL tvl1flow gives the same on this pair (TV favours
   * piecewise-constant flow; 0.032 at 256x192 where the field is gentler) */
  fail_unless (epe < 0.16, "EPE %.4f", epe);
}

GST_END_TEST;

GST_START_TEST (test_fixed_count_romera_preset_epe_below_0_08)
{
  cf_synth_params sp;
  cf_tvl1_params params;
  double epe;

  /* 3 levels x 1 warp x 10 iterations, no epsilon */
  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_TRANSLATION;
  sp.tx = 2.5f;
  sp.ty = -1.25f;
  cf_tvl1_params_init_ipol (&params);
  params.warps = 1;
  params.max_iterations = 10;
  params.epsilon = 0.0f;
  epe = synth_epe (&sp, &params, 3);
  GST_INFO ("romera preset, translation: EPE %.4f", epe);
  fail_unless (epe < 0.08, "EPE %.4f", epe);   /* measured 0.052 */
}

GST_END_TEST;

GST_START_TEST (test_large_epsilon_stops_after_one_iteration)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *a = cf_flow_new (64, 48), *b = cf_flow_new (64, 48);
  cf_tvl1_params params;
  double diff, max;

  cf_synth_params_init (&sp);
  fail_unless_equals_int (cf_synth_pair (64, 48, &sp, &f0, &f1, &truth), CF_OK);
  cf_tvl1_params_init_ipol (&params);
  params.epsilon = 1e3f;        /* the first check stops every warp */
  fail_unless_equals_int (run_tvl1 (f0, f1, &params, 3, 0, a), CF_OK);
  params.epsilon = 0.0f;
  params.max_iterations = 1;
  fail_unless_equals_int (run_tvl1 (f0, f1, &params, 3, 0, b), CF_OK);
  fail_unless_equals_int (cf_flow_diff (a, b, &diff, &max), CF_OK);
  fail_unless_equals_float (max, 0.0);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (a);
  cf_flow_free (b);
}

GST_END_TEST;

GST_START_TEST (test_initial_flow_is_used_at_coarsest_level)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow = cf_flow_new (96, 64);
  cf_tvl1_params params;
  cf_flow_error cold, warm;

  /* one level, one warp, one iteration: the result stays close to where it
   * starts, so a warm start from the truth must beat a cold start */
  cf_synth_params_init (&sp);
  sp.tx = 3.0f;
  sp.ty = 2.0f;
  fail_unless_equals_int (cf_synth_pair (96, 64, &sp, &f0, &f1, &truth), CF_OK);
  cf_tvl1_params_init_ipol (&params);
  params.warps = 1;
  params.max_iterations = 1;
  params.epsilon = 0.0f;
  fail_unless_equals_int (run_tvl1 (f0, f1, &params, 1, 0, flow), CF_OK);
  fail_unless_equals_int (cf_flow_compare (flow, truth, 4, &cold), CF_OK);
  cf_flow_fill (flow, 3.0f, 2.0f);
  fail_unless_equals_int (run_tvl1 (f0, f1, &params, 1, 1, flow), CF_OK);
  fail_unless_equals_int (cf_flow_compare (flow, truth, 4, &warm), CF_OK);
  GST_INFO ("cold EPE %.4f, warm EPE %.4f", cold.epe, warm.epe);
  fail_unless (cold.epe > 2.0 && warm.epe < 0.5, "cold %.4f warm %.4f",
      cold.epe, warm.epe);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
}

GST_END_TEST;

/* -------------------------------------------------- per-level schedules */

/* A synthetic @w x @h pair, normalised, and its pyramids of @levels. */
static void
level_synth_pyramids (int w, int h, int levels, cf_pyramid ** y0,
    cf_pyramid ** y1)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL;
  cf_tvl1_params params;
  cf_pyramid_params pp;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.tx = 1.5f;
  sp.ty = -1.0f;
  sp.angle = 2.0f;
  sp.zoom = 1.02f;
  fail_unless_equals_int (cf_synth_pair (w, h, &sp, &f0, &f1, &truth), CF_OK);
  cf_tvl1_normalize_pair (f0, f1);
  cf_tvl1_params_init_ipol (&params);
  cf_pyramid_params_init (&pp);
  pp.max_levels = levels;
  cf_tvl1_prepare_pyramid_params (&params, &pp);
  *y0 = cf_pyramid_new (w, h, &pp);
  *y1 = cf_pyramid_new (w, h, &pp);
  fail_unless (*y0 != NULL && *y1 != NULL);
  fail_unless_equals_int ((*y0)->n_levels, levels);
  fail_unless_equals_int (cf_pyramid_build (*y0, f0, &pp), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (*y1, f1, &pp), CF_OK);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
}

/* The multiscale solve done level by level with uniform parameters: each
 * level is a one-level pyramid solved by cf_tvl1_flow with warps[l] and
 * iterations[l] (no lists), warm started from the coarser result
 * resampled as the driver does (the one-level solve then resamples that
 * flow onto its own grid, which is exact: same size, integer positions).
 * Returns the level-0 flow; *count gets the iterations run. */
static cf_flow *
solve_levels_by_hand (const cf_pyramid * y0, const cf_pyramid * y1,
    const cf_tvl1_params * base, const int *warps, const int *iterations,
    long *count)
{
  cf_flow *prev = NULL;
  long total = 0;
  int l;

  for (l = y0->n_levels - 1; l >= 0; l--) {
    cf_pyramid one0 = { 1, {y0->level[l]} }, one1 = { 1, {y1->level[l]} };
    cf_flow *u = cf_flow_new (y0->level[l]->width, y0->level[l]->height);
    cf_tvl1_params p = *base;
    long n = -1;

    p.n_warps_per_level = p.n_iterations_per_level = 0;
    p.warps = warps[l];
    p.max_iterations = iterations[l];
    if (prev != NULL)
      fail_unless_equals_int (cf_flow_resample (prev, u), CF_OK);
    fail_unless_equals_int (cf_tvl1_flow_counted (&one0, &one1, &p,
            prev != NULL, u, &n), CF_OK);
    total += n;
    cf_flow_free (prev);
    prev = u;
  }
  *count = total;
  return prev;
}

/* A list that repeats the uniform counts is the uniform schedule, bit for
 * bit, whether it has one entry or one per level. */
GST_START_TEST (test_uniform_lists_give_the_uniform_flow)
{
  static const char *lists[][2] = { {"2", "7"}, {"2,2,2", "7,7,7"},
  {"2,2", "7,7,7,7,7"}
  };
  cf_pyramid *y0, *y1;
  cf_flow *uniform = cf_flow_new (96, 64), *listed = cf_flow_new (96, 64);
  cf_tvl1_params params;
  long n_uniform = -1, n_listed = -2;
  guint i;

  level_synth_pyramids (96, 64, 3, &y0, &y1);
  cf_tvl1_params_init_ipol (&params);
  params.warps = 2;
  params.max_iterations = 7;
  params.epsilon = 0.0f;
  fail_unless_equals_int (cf_tvl1_flow_counted (y0, y1, &params, 0, uniform,
          &n_uniform), CF_OK);
  fail_unless_equals_int (n_uniform, 3 * 2 * 7);
  for (i = 0; i < G_N_ELEMENTS (lists); i++) {
    cf_tvl1_params lp = params;

    /* the uniform fields are ignored while a list is set */
    lp.warps = 9;
    lp.max_iterations = 99;
    fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&lp, lists[i][0],
            NULL), CF_OK);
    fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&lp,
            lists[i][1], NULL), CF_OK);
    fail_unless_equals_int (cf_tvl1_flow_counted (y0, y1, &lp, 0, listed,
            &n_listed), CF_OK);
    cf_test_assert_flow_identical (listed, uniform, lists[i][1]);
    fail_unless_equals_int (n_listed, n_uniform);
  }
  cf_pyramid_free (y0);
  cf_pyramid_free (y1);
  cf_flow_free (uniform);
  cf_flow_free (listed);
}

GST_END_TEST;

/* A schedule that differs per level is each level's uniform solve in
 * turn: the same bits as solving the levels by hand, the iteration count
 * Σ_l warps_l × iterations_l with ε = 0 (the hand count with ε > 0), and
 * not the flow of any uniform schedule tried. */
GST_START_TEST (test_per_level_schedule_equals_levels_solved_by_hand)
{
  /* finest first; the lists are shorter than the pyramid on purpose */
  static const int warps[] = { 1, 2, 3, 3 }, iterations[] = { 4, 9, 25, 25 };
  cf_pyramid *y0, *y1;
  cf_flow *scheduled = cf_flow_new (256, 160), *uniform = cf_flow_new (256,
      160), *by_hand;
  cf_tvl1_params params;
  double mean, max;
  long n = -1, n_hand;

  level_synth_pyramids (256, 160, 4, &y0, &y1);
  cf_tvl1_params_init_ipol (&params);
  params.epsilon = 0.0f;
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&params, "1,2,3",
          NULL), CF_OK);
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&params,
          "4,9,25", NULL), CF_OK);
  fail_unless_equals_int (cf_tvl1_flow_counted (y0, y1, &params, 0,
          scheduled, &n), CF_OK);
  by_hand = solve_levels_by_hand (y0, y1, &params, warps, iterations,
      &n_hand);
  cf_test_assert_flow_identical (scheduled, by_hand, "eps 0");
  cf_flow_free (by_hand);
  fail_unless_equals_int (n, 1 * 4 + 2 * 9 + 3 * 25 + 3 * 25);
  fail_unless_equals_int (n_hand, n);

  /* the finest level's counts everywhere, and the coarsest's: both differ */
  params.n_warps_per_level = params.n_iterations_per_level = 0;
  params.warps = 1;
  params.max_iterations = 4;
  fail_unless_equals_int (cf_tvl1_flow (y0, y1, &params, 0, uniform), CF_OK);
  fail_unless_equals_int (cf_flow_diff (scheduled, uniform, &mean, &max),
      CF_OK);
  fail_unless (max > 0.0, "per-level schedule = 1 warp x 4 everywhere");
  params.warps = 3;
  params.max_iterations = 25;
  fail_unless_equals_int (cf_tvl1_flow (y0, y1, &params, 0, uniform), CF_OK);
  fail_unless_equals_int (cf_flow_diff (scheduled, uniform, &mean, &max),
      CF_OK);
  fail_unless (max > 0.0, "per-level schedule = 3 warps x 25 everywhere");

  /* ε > 0: each level's entry is its cap */
  params.epsilon = 0.05f;
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&params, "1,2,3",
          NULL), CF_OK);
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&params,
          "4,9,25", NULL), CF_OK);
  fail_unless_equals_int (cf_tvl1_flow_counted (y0, y1, &params, 0,
          scheduled, &n), CF_OK);
  by_hand = solve_levels_by_hand (y0, y1, &params, warps, iterations,
      &n_hand);
  cf_test_assert_flow_identical (scheduled, by_hand, "eps 0.05");
  GST_INFO ("eps 0.05: %ld iterations of at most %d", n,
      1 * 4 + 2 * 9 + 3 * 25 + 3 * 25);
  fail_unless_equals_int (n, n_hand);
  fail_unless (n >= 1 + 2 + 3 + 3 && n <= 1 * 4 + 2 * 9 + 3 * 25 + 3 * 25);

  cf_pyramid_free (y0);
  cf_pyramid_free (y1);
  cf_flow_free (scheduled);
  cf_flow_free (by_hand);
  cf_flow_free (uniform);
}

GST_END_TEST;

/* ------------------------------------------------------------ Middlebury */

GST_START_TEST (test_middlebury_rubberwhale_epe_near_ipol)
{
  const char *dir = cf_test_data_dir ();
  gchar *p0, *p1, *pf;
  cf_image *f0, *f1;
  cf_flow *truth = NULL, *flow;
  cf_tvl1_params params;
  cf_flow_error err;

  fail_unless (dir != NULL, "CUDAFLOW_DATA_DIR not set");
  p0 = g_build_filename (dir, "middlebury", "RubberWhale", "frame10.png", NULL);
  p1 = g_build_filename (dir, "middlebury", "RubberWhale", "frame11.png", NULL);
  pf = g_build_filename (dir, "middlebury", "RubberWhale", "flow10.flo", NULL);
  if (!g_file_test (pf, G_FILE_TEST_EXISTS)) {
    fail ("%s missing", pf);
  } else {
    f0 = cf_test_read_png_grey (p0);
    f1 = cf_test_read_png_grey (p1);
    fail_unless (f0 != NULL && f1 != NULL);
    fail_unless_equals_int (cf_flo_read (pf, &truth, NULL), CF_OK);
    flow = cf_flow_new (f0->width, f0->height);
    /* IPOL README settings: 5 scales, eta 0.5, 5 warps, eps 0.01 */
    cf_tvl1_params_init_ipol (&params);
    fail_unless_equals_int (run_tvl1 (f0, f1, &params, 5, 0, flow), CF_OK);
    fail_unless_equals_int (cf_flow_compare (flow, truth, 0, &err), CF_OK);
    GST_INFO ("RubberWhale: EPE %.4f, AAE %.3f (IPOL 0.215)", err.epe, err.aae);
    fail_unless (err.epe < 0.22, "EPE %.4f", err.epe);     /* 0.2155 */
    cf_image_free (f0);
    cf_image_free (f1);
    cf_flow_free (truth);
    cf_flow_free (flow);
  }
  g_free (p0);
  g_free (p1);
  g_free (pf);
}

GST_END_TEST;

static Suite *
common_tvl1_suite (void)
{
  Suite *s = suite_create ("common_tvl1");
  TCase *ops = tcase_create ("operators");
  TCase *solver = tcase_create ("solver");
  TCase *data = tcase_create ("middlebury");

  cf_test_suite_add_tcase (s, ops, FALSE);
  tcase_add_test (ops, test_params_init_gives_balanced_defaults_and_ipol);
  tcase_add_test (ops, test_params_set_accepts_names_and_rejects_bad_values);
  tcase_add_test (ops, test_parse_per_level_lists_finest_first);
  tcase_add_test (ops, test_parse_per_level_lists_refuses_bad_text);
  tcase_add_test (ops, test_params_valid_checks_the_lists);
  tcase_add_test (ops, test_median_size_takes_0_3_5_only);
  tcase_add_test (ops, test_gradient_blend_param);
  tcase_add_test (ops, test_median_size_per_level);
  tcase_add_test (ops, test_lambda_per_level);
  tcase_add_test (ops, test_brightness_fit_and_apply);
  tcase_add_test (ops, test_normalize_pair_maps_joint_range_to_0_255);
  tcase_add_test (ops, test_normalize_pair_leaves_constant_pair_unchanged);
  tcase_add_test (ops, test_centered_gradient_halves_one_sided_borders);
  tcase_add_test (ops, test_forward_gradient_is_zero_on_last_column_and_row);
  tcase_add_test (ops, test_divergence_hand_values_at_borders_and_corners);
  tcase_add_test (ops, test_divergence_and_gradient_of_one_pixel_axis_are_zero);
  tcase_add_test (ops, test_divergence_is_negative_adjoint_of_forward_gradient);
  tcase_add_test (ops, test_threshold_three_cases_and_zero_gradient_guard);
  tcase_add_test (ops, test_update_u_adds_theta_div_and_sums_squared_update);
  tcase_add_test (ops, test_update_p_keeps_dual_field_in_unit_ball);
  tcase_add_test (ops, test_warp_prepare_zero_flow_zeroes_border_samples);
  tcase_add_test (ops, test_warp_prepare_blends_first_frame_gradient);
  tcase_add_test (ops, test_iteration_equals_its_steps_in_ipol_order);

  cf_test_suite_add_tcase (s, solver, FALSE);
  tcase_set_timeout (solver, 300);
  tcase_add_test (solver, test_constant_pair_gives_zero_flow);
  tcase_add_test (solver, test_flow_rejects_bad_arguments);
  tcase_add_test (solver, test_translation_epe_below_0_03);
  tcase_add_test (solver, test_translation_with_median_epe_below_0_03);
  tcase_add_test (solver, test_median_runs_after_every_warp);
  tcase_add_test (solver, test_weighted_median_on_wide_levels);
  tcase_add_test (solver, test_brightness_model_in_the_solver);
  tcase_add_test (solver,
      test_lambda_per_level_runs_each_level_with_its_lambda);
  tcase_add_test (solver, test_median_changes_flow_not_fixed_iteration_count);
  tcase_add_test (solver, test_rotation_zoom_epe_below_0_05);
  tcase_add_test (solver, test_smooth_motion_epe_below_0_16);
  tcase_add_test (solver, test_fixed_count_romera_preset_epe_below_0_08);
  tcase_add_test (solver, test_large_epsilon_stops_after_one_iteration);
  tcase_add_test (solver, test_initial_flow_is_used_at_coarsest_level);
  tcase_add_test (solver, test_uniform_lists_give_the_uniform_flow);
  tcase_add_test (solver, test_per_level_schedule_equals_levels_solved_by_hand);

  /* in common/tvl1-data, which skips (77) without CUDAFLOW_DATA_DIR */
  cf_test_suite_add_tcase (s, data, TRUE);
  tcase_set_timeout (data, 300);
  tcase_add_test (data, test_middlebury_rubberwhale_epe_near_ipol);
  return s;
}

#ifdef CF_TEST_DATA_SUITE
int
main (int argc, char **argv)
{
  return cf_test_run_data_suite (argc, argv, "common_tvl1", common_tvl1_suite,
      FALSE);
}
#else
GST_CHECK_MAIN (common_tvl1);
#endif
