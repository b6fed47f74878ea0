/* gst-cudaflow — tests for common/clg (CLG CPU reference)
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
#include "common/clg.h"
#include "common/flo.h"
#include "common/metrics.h"
#include "common/pyramid.h"
#include "common/synth.h"

/* Pixel (x, y) of an image, of a flow's planes. */
#define PX(img, x, y) ((img)->data[(x) + (size_t) (y) * (img)->pitch])
#define FU(f, x, y) ((f)->u[(x) + (size_t) (y) * (f)->pitch])
#define FV(f, x, y) ((f)->v[(x) + (size_t) (y) * (f)->pitch])

/* Five owned planes and the tensor of views on them. */
typedef struct
{
  cf_image *plane[5];
  cf_clg_tensor j;
} test_tensor;

static void
test_tensor_init (test_tensor * t, int w, int h)
{
  int k;

  for (k = 0; k < 5; k++) {
    t->plane[k] = cf_image_new (w, h);
    fail_unless (t->plane[k] != NULL);
  }
  t->j.j11 = *t->plane[0];
  t->j.j12 = *t->plane[1];
  t->j.j22 = *t->plane[2];
  t->j.j13 = *t->plane[3];
  t->j.j23 = *t->plane[4];
  t->j.j11.owns_data = t->j.j12.owns_data = t->j.j22.owns_data = 0;
  t->j.j13.owns_data = t->j.j23.owns_data = 0;
}

static void
test_tensor_clear (test_tensor * t)
{
  int k;

  for (k = 0; k < 5; k++)
    cf_image_free (t->plane[k]);
}

/* Set the tensor of pixel (x, y). */
static void
set_tensor (test_tensor * t, int x, int y, float j11, float j12, float j22,
    float j13, float j23)
{
  PX (&t->j.j11, x, y) = j11;
  PX (&t->j.j12, x, y) = j12;
  PX (&t->j.j22, x, y) = j22;
  PX (&t->j.j13, x, y) = j13;
  PX (&t->j.j23, x, y) = j23;
}

static int
flow_is_finite (const cf_flow * f)
{
  int x, y;

  for (y = 0; y < f->height; y++)
    for (x = 0; x < f->width; x++)
      if (!isfinite (FU (f, x, y)) || !isfinite (FV (f, x, y)))
        return 0;
  return 1;
}

/* Pyramids of @levels for both frames, then cf_clg_flow. */
static cf_status
run_clg (const cf_image * f0, const cf_image * f1,
    const cf_clg_params * params, int levels, int use_initial, cf_flow * flow)
{
  cf_pyramid_params pp;
  cf_pyramid *y0, *y1;
  cf_status status;

  cf_pyramid_params_init (&pp);
  pp.max_levels = levels;
  cf_clg_prepare_pyramid_params (params, &pp);
  y0 = cf_pyramid_new (f0->width, f0->height, &pp);
  y1 = cf_pyramid_new (f1->width, f1->height, &pp);
  fail_unless (y0 != NULL && y1 != NULL);
  fail_unless_equals_int (cf_pyramid_build (y0, f0, &pp), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (y1, f1, &pp), CF_OK);
  status = cf_clg_flow (y0, y1, params, use_initial, flow);
  cf_pyramid_free (y0);
  cf_pyramid_free (y1);
  return status;
}

/* EPE of a 128x96 synthetic pair, 8-pixel border excluded, 4 levels. */
static double
synth_epe (const cf_synth_params * sp, const cf_clg_params * params)
{
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow = cf_flow_new (128, 96);
  cf_flow_error err;

  fail_unless_equals_int (cf_synth_pair (128, 96, sp, &f0, &f1, &truth), CF_OK);
  fail_unless_equals_int (run_clg (f0, f1, params, 4, 0, flow), CF_OK);
  fail_unless (flow_is_finite (flow));
  fail_unless_equals_int (cf_flow_compare (flow, truth, 8, &err), CF_OK);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
  return err.epe;
}

/* ---------------------------------------------------------------- params */

GST_START_TEST (test_params_init_gives_documented_defaults)
{
  cf_clg_params p;
  cf_pyramid_params pp;

  cf_clg_params_init (&p);
  fail_unless_equals_float (p.alpha, 50.0f);
  fail_unless_equals_float (p.rho, 2.5f);
  fail_unless_equals_int (p.iterations, 50);     /* the balanced preset */
  fail_unless_equals_int (p.n_iterations_per_level, 0);
  fail_unless_equals_float (p.presmooth_sigma, 0.0f);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 0), 50);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 3), 50);

  cf_pyramid_params_init (&pp);
  pp.max_levels = 4;
  p.presmooth_sigma = 0.7f;
  cf_clg_prepare_pyramid_params (&p, &pp);
  fail_unless_equals_float (pp.presmooth_sigma, 0.7f);
  fail_unless_equals_int (pp.max_levels, 4);
  fail_unless_equals_float (pp.eta, 0.5f);
}

GST_END_TEST;

GST_START_TEST (test_params_set_accepts_names_and_rejects_bad_values)
{
  cf_clg_params p, before;

  cf_clg_params_init (&p);
  fail_unless_equals_int (cf_clg_params_set (&p, "alpha", 325.0), CF_OK);
  fail_unless_equals_float (p.alpha, 325.0f);
  fail_unless_equals_int (cf_clg_params_set (&p, "rho", 0.0), CF_OK);
  fail_unless_equals_float (p.rho, 0.0f);
  fail_unless_equals_int (cf_clg_params_set (&p, "sigma", 0.8), CF_OK);
  fail_unless_equals_float (p.presmooth_sigma, 0.8f);
  fail_unless_equals_int (cf_clg_params_set (&p, "iterations", 75.0), CF_OK);
  fail_unless_equals_int (p.iterations, 75);
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p, "1,2",
          NULL), CF_OK);
  /* as the element's properties: the list, while set, wins over the uniform
   * count, and an empty list gives the count back */
  fail_unless_equals_int (p.n_iterations_per_level, 2);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 0), 1);
  fail_unless_equals_int (cf_params_set_text (&cf_clg_param_table, &p,
          "iterations-per-level", " ", NULL), CF_OK);
  fail_unless_equals_int (p.n_iterations_per_level, 0);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 0), 75);
  /* and setting the count by name clears the list */
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p, "1,2",
          NULL), CF_OK);
  fail_unless_equals_int (cf_clg_params_set (&p, "iterations", 0.0), CF_OK);
  fail_unless_equals_int (p.n_iterations_per_level, 0);

  before = p;
  fail_unless_equals_int (cf_clg_params_set (&p, "alpha", 0.0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "alpha", -1.0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "alpha", NAN),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "rho", -0.5),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "rho", 51.0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "sigma", -1.0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "iterations", 2.5),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "iterations", -1.0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "iterations", 2e6),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, "lambda", 1.0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_params_set (&p, NULL, 1.0), CF_ERROR_INVALID);
  fail_unless (memcmp (&p, &before, sizeof (p)) == 0);
}

GST_END_TEST;

GST_START_TEST (test_parse_iterations_per_level_configuration_b)
{
  cf_clg_params p;
  cf_error err = { {0} };

  cf_clg_params_init (&p);
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p,
          "60,120,180,240", &err), CF_OK);
  fail_unless_equals_int (p.n_iterations_per_level, 4);
  /* finest first: level 0 is the full-size image */
  fail_unless_equals_int (cf_clg_level_iterations (&p, 0), 60);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 1), 120);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 2), 180);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 3), 240);
  /* levels past the list reuse its last entry */
  fail_unless_equals_int (cf_clg_level_iterations (&p, 4), 240);

  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p,
          " 75 , 0,9 ", &err), CF_OK);
  fail_unless_equals_int (p.n_iterations_per_level, 3);
  fail_unless_equals_int (p.iterations_per_level[0], 75);
  fail_unless_equals_int (p.iterations_per_level[1], 0);
  fail_unless_equals_int (p.iterations_per_level[2], 9);

  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p, "5", &err),
      CF_OK);
  fail_unless_equals_int (p.n_iterations_per_level, 1);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 2), 5);

  /* CF_PYRAMID_MAX_LEVELS entries are fine */
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p,
          "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", &err), CF_OK);
  fail_unless_equals_int (p.n_iterations_per_level, CF_PYRAMID_MAX_LEVELS);
  fail_unless_equals_int (cf_clg_level_iterations (&p, 15), 16);
}

GST_END_TEST;

/* The parse fails with CF_ERROR_FORMAT, leaves params alone and its
 * message contains @needle. */
static void
assert_parse_error (const char *text, const char *needle)
{
  cf_clg_params p, before;
  cf_error err = { {0} };

  cf_clg_params_init (&p);
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p, "7,8",
          NULL), CF_OK);
  before = p;
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p, text, &err),
      CF_ERROR_FORMAT);
  fail_unless (memcmp (&p, &before, sizeof (p)) == 0, "'%s' changed params",
      text);
  fail_unless (strstr (err.message, needle) != NULL,
      "'%s': message '%s' lacks '%s'", text, err.message, needle);
  /* a NULL error is allowed */
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p, text, NULL),
      CF_ERROR_FORMAT);
}

GST_START_TEST (test_parse_iterations_per_level_rejects_bad_text)
{
  cf_clg_params p;

  assert_parse_error ("", "empty list");
  assert_parse_error ("   ", "empty list");
  assert_parse_error ("60,,120", "entry 2 is empty");
  assert_parse_error ("60,120,", "entry 3 is empty");
  assert_parse_error (",60", "entry 1 is empty");
  assert_parse_error ("60,abc", "entry 2 \"abc\" is not a whole number");
  assert_parse_error ("60,-5", "entry 2 \"-5\" is not a whole number");
  assert_parse_error ("60;120", "entry 1 \"60;120\"");
  assert_parse_error ("1.5", "entry 1 \"1.5\"");
  assert_parse_error ("6 0", "entry 1 \"6 0\"");
  assert_parse_error ("1000001", "above the limit");
  assert_parse_error ("99999999999999999999999", "above the limit");
  assert_parse_error ("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
      "more than 16 entries");

  cf_clg_params_init (&p);
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&p, NULL, NULL),
      CF_ERROR_INVALID);
}

GST_END_TEST;

/* ------------------------------------------------------------- operators */

GST_START_TEST (test_derivatives_central_with_clamped_border)
{
  /* 4 x 3, I0 = x^2 + 10 y^2 */
  cf_image *i0 = cf_image_new (4, 3), *i1 = cf_image_new (4, 3);
  cf_image *fx = cf_image_new (4, 3), *fy = cf_image_new (4, 3);
  cf_image *ft = cf_image_new (4, 3);
  int x, y;

  for (y = 0; y < 3; y++)
    for (x = 0; x < 4; x++) {
      PX (i0, x, y) = (float) (x * x + 10 * y * y);
      PX (i1, x, y) = PX (i0, x, y) + (float) (x - y);
    }
  fail_unless_equals_int (cf_clg_derivatives (i0, i1, fx, fy, ft), CF_OK);
  for (y = 0; y < 3; y++) {
    /* (I(x+1) - I(x-1)) / 2 inside; (I(1) - I(0)) / 2 and
     * (I(3) - I(2)) / 2 at the clamped ends */
    fail_unless_equals_float (PX (fx, 0, y), 0.5f);
    fail_unless_equals_float (PX (fx, 1, y), 2.0f);
    fail_unless_equals_float (PX (fx, 2, y), 4.0f);
    fail_unless_equals_float (PX (fx, 3, y), 2.5f);
  }
  for (x = 0; x < 4; x++) {
    fail_unless_equals_float (PX (fy, x, 0), 5.0f);
    fail_unless_equals_float (PX (fy, x, 1), 20.0f);
    fail_unless_equals_float (PX (fy, x, 2), 15.0f);
    for (y = 0; y < 3; y++)
      fail_unless_equals_float (PX (ft, x, y), (float) (x - y));
  }
  /* sizes must agree */
  {
    cf_image *small = cf_image_new (3, 3);
    fail_unless_equals_int (cf_clg_derivatives (i0, small, fx, fy, ft),
        CF_ERROR_INVALID);
    cf_image_free (small);
  }
  cf_image_free (i0);
  cf_image_free (i1);
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
}

GST_END_TEST;

GST_START_TEST (test_derivatives_of_one_pixel_axis_are_zero)
{
  cf_image *i0 = cf_image_new (1, 3), *i1 = cf_image_new (1, 3);
  cf_image *fx = cf_image_new (1, 3), *fy = cf_image_new (1, 3);
  cf_image *ft = cf_image_new (1, 3);

  PX (i0, 0, 0) = 1.0f;
  PX (i0, 0, 1) = 5.0f;
  PX (i0, 0, 2) = 7.0f;
  fail_unless_equals_int (cf_clg_derivatives (i0, i1, fx, fy, ft), CF_OK);
  fail_unless_equals_float (PX (fx, 0, 1), 0.0f);
  fail_unless_equals_float (PX (fy, 0, 0), 2.0f);
  fail_unless_equals_float (PX (fy, 0, 1), 3.0f);
  fail_unless_equals_float (PX (fy, 0, 2), 1.0f);
  fail_unless_equals_float (PX (ft, 0, 2), -7.0f);
  cf_image_free (i0);
  cf_image_free (i1);
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
}

GST_END_TEST;

/* I0 = 2x + 3y + 10, I1w = I0 + 4 + x/2: f_x = 2 and f_y = 3 inside (1 and
 * 1.5 on the clamped edges), f_t = 4 + x/2. */
static void
make_ramp (int w, int h, cf_image ** fx, cf_image ** fy, cf_image ** ft)
{
  cf_image *i0 = cf_image_new (w, h), *i1 = cf_image_new (w, h);
  int x, y;

  *fx = cf_image_new (w, h);
  *fy = cf_image_new (w, h);
  *ft = cf_image_new (w, h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      PX (i0, x, y) = 2.0f * x + 3.0f * y + 10.0f;
      PX (i1, x, y) = PX (i0, x, y) + 4.0f + 0.5f * x;
    }
  fail_unless_equals_int (cf_clg_derivatives (i0, i1, *fx, *fy, *ft), CF_OK);
  cf_image_free (i0);
  cf_image_free (i1);
}

static void
assert_tensor_at (const test_tensor * t, int x, int y, float j11, float j12,
    float j22, float j13, float j23, float tol)
{
  fail_unless (fabsf (PX (&t->j.j11, x, y) - j11) <= tol,
      "J11(%d,%d) = %g, expected %g", x, y, PX (&t->j.j11, x, y), j11);
  fail_unless (fabsf (PX (&t->j.j12, x, y) - j12) <= tol,
      "J12(%d,%d) = %g, expected %g", x, y, PX (&t->j.j12, x, y), j12);
  fail_unless (fabsf (PX (&t->j.j22, x, y) - j22) <= tol,
      "J22(%d,%d) = %g, expected %g", x, y, PX (&t->j.j22, x, y), j22);
  fail_unless (fabsf (PX (&t->j.j13, x, y) - j13) <= tol,
      "J13(%d,%d) = %g, expected %g", x, y, PX (&t->j.j13, x, y), j13);
  fail_unless (fabsf (PX (&t->j.j23, x, y) - j23) <= tol,
      "J23(%d,%d) = %g, expected %g", x, y, PX (&t->j.j23, x, y), j23);
}

GST_START_TEST (test_structure_tensor_on_linear_ramp_hand_values)
{
  cf_image *fx, *fy, *ft, *tmp;
  test_tensor t;
  int x, y;

  /* rho = 0: the products themselves */
  make_ramp (9, 7, &fx, &fy, &ft);
  test_tensor_init (&t, 9, 7);
  fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, 0.0f, NULL,
          &t.j), CF_OK);
  /* corner (0, 0): f = (1, 1.5, 4) */
  assert_tensor_at (&t, 0, 0, 1.0f, 1.5f, 2.25f, 4.0f, 6.0f, 0.0f);
  /* inside (4, 3): f = (2, 3, 6) */
  assert_tensor_at (&t, 4, 3, 4.0f, 6.0f, 9.0f, 12.0f, 18.0f, 0.0f);
  /* top edge (2, 0): f = (2, 1.5, 5) */
  assert_tensor_at (&t, 2, 0, 4.0f, 3.0f, 2.25f, 10.0f, 7.5f, 0.0f);
  /* right edge (8, 5): f = (1, 3, 8) */
  assert_tensor_at (&t, 8, 5, 1.0f, 3.0f, 9.0f, 8.0f, 24.0f, 0.0f);
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
  test_tensor_clear (&t);

  /* rho = 2.5 (radius 10): K_rho keeps constants and linear functions where
   * its support misses the clamped edge rows and columns, so J11, J12, J22
   * stay 4, 6, 9 and J13 = 2 (4 + x/2), J23 = 3 (4 + x/2) */
  make_ramp (41, 37, &fx, &fy, &ft);
  tmp = cf_image_new (41, 37);
  test_tensor_init (&t, 41, 37);
  fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, 2.5f, tmp,
          &t.j), CF_OK);
  for (y = 11; y <= 25; y++)
    for (x = 11; x <= 29; x++)
      assert_tensor_at (&t, x, y, 4.0f, 6.0f, 9.0f, 2.0f * (4.0f + 0.5f * x),
          3.0f * (4.0f + 0.5f * x), 2e-4f);
  /* next to the edge the smoothed tensor mixes in the halved edge
   * derivatives: J11 lies strictly between 1 and 4 */
  fail_unless (PX (&t.j.j11, 0, 18) > 1.0f && PX (&t.j.j11, 0, 18) < 4.0f);
  /* rho > 0 needs the scratch plane */
  fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, 2.5f, NULL,
          &t.j), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, -1.0f, tmp,
          &t.j), CF_ERROR_INVALID);
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
  cf_image_free (tmp);
  test_tensor_clear (&t);
}

GST_END_TEST;

/* Solve [a c; c e] (u v)' = (ru rv)' in double and check the sweep's value
 * satisfies it. */
static void
assert_solves_block (double a, double c, double e, double ru, double rv,
    float u, float v)
{
  double lu = a * u + c * v, lv = c * u + e * v;
  double scale = fabs (ru) + fabs (rv) + 1.0;

  fail_unless (fabs (lu - ru) <= 1e-5 * scale && fabs (lv - rv) <= 1e-5 *
      scale, "A w = (%g, %g), rhs (%g, %g)", lu, lv, ru, rv);
}

GST_START_TEST (test_coupled_update_solves_2x2_system_for_one_pixel)
{
  const float alpha = 0.7f;
  test_tensor t;
  cf_flow *d = cf_flow_new (3, 3), *out = cf_flow_new (3, 3);
  float u1, v1;

  test_tensor_init (&t, 3, 3);
  /* centre: J = [5 2; 2 3] (positive definite), b = -(-4, 7) */
  set_tensor (&t, 1, 1, 5.0f, 2.0f, 3.0f, -4.0f, 7.0f);
  /* corner (0, 0): rank-1 J = f f' with f = (2, -1), and f_t = 3 */
  set_tensor (&t, 0, 0, 4.0f, -2.0f, 1.0f, 6.0f, -3.0f);
  /* the fixed neighbours of the centre (left, right, up, down) */
  FU (d, 0, 1) = 1.0f;
  FV (d, 0, 1) = 0.25f;
  FU (d, 2, 1) = 2.0f;
  FV (d, 2, 1) = -0.5f;
  FU (d, 1, 0) = -1.0f;
  FV (d, 1, 0) = 1.5f;
  FU (d, 1, 2) = 0.5f;
  FV (d, 1, 2) = 2.0f;
  /* the centre's own old value must not matter (Jacobi) */
  FU (d, 1, 1) = 1000.0f;
  FV (d, 1, 1) = -1000.0f;
  fail_unless_equals_int (cf_clg_jacobi (&t.j, alpha, d, out), CF_OK);

  /* |N| = 4, S_u = 2.5, S_v = 3.25 */
  assert_solves_block (5.0 + 4 * alpha, 2.0, 3.0 + 4 * alpha,
      alpha * 2.5 + 4.0, alpha * 3.25 - 7.0, FU (out, 1, 1), FV (out, 1, 1));
  /* Cramer by hand: det = 7.8 * 5.8 - 4 = 41.24, rhs = (5.75, -4.725) */
  fail_unless (fabsf (FU (out, 1, 1) - (5.8f * 5.75f + 2.0f * 4.725f) /
          41.24f) < 1e-5f);
  fail_unless (fabsf (FV (out, 1, 1) - (-7.8f * 4.725f - 2.0f * 5.75f) /
          41.24f) < 1e-5f);

  /* corner: |N| = 2 (right (1, 0) and down (0, 1) only) */
  assert_solves_block (4.0 + 2 * alpha, -2.0, 1.0 + 2 * alpha,
      alpha * (FU (d, 1, 0) + FU (d, 0, 1)) - 6.0,
      alpha * (FV (d, 1, 0) + FV (d, 0, 1)) + 3.0, FU (out, 0, 0),
      FV (out, 0, 0));

  /* Jacobi never runs in place */
  fail_unless_equals_int (cf_clg_jacobi (&t.j, alpha, d, d), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_jacobi (&t.j, 0.0f, d, out), CF_ERROR_INVALID);

  /* the fixed point of repeated sweeps with these neighbours is the same */
  u1 = FU (out, 1, 1);
  v1 = FV (out, 1, 1);
  FU (out, 0, 1) = 1.0f;
  FV (out, 0, 1) = 0.25f;
  FU (out, 2, 1) = 2.0f;
  FV (out, 2, 1) = -0.5f;
  FU (out, 1, 0) = -1.0f;
  FV (out, 1, 0) = 1.5f;
  FU (out, 1, 2) = 0.5f;
  FV (out, 1, 2) = 2.0f;
  fail_unless_equals_int (cf_clg_jacobi (&t.j, alpha, out, d), CF_OK);
  fail_unless_equals_float (FU (d, 1, 1), u1);
  fail_unless_equals_float (FV (d, 1, 1), v1);

  test_tensor_clear (&t);
  cf_flow_free (d);
  cf_flow_free (out);
}

GST_END_TEST;

GST_START_TEST (test_rho_zero_sweep_equals_horn_schunck_update)
{
  /* With rho = 0, J = f f' (rank 1), and the coupled 2x2 solve reduces to
   * Horn & Schunck's update (AI 17, 1981, eq. in section 10) with the
   * 4-neighbour mean and weight alpha |N|:
   *   w' = w_bar - f (f . w_bar + f_t) / (alpha |N| + f_x^2 + f_y^2) */
  const int w = 13, h = 11;
  const float alpha = 50.0f;
  cf_image *fx = cf_image_new (w, h), *fy = cf_image_new (w, h);
  cf_image *ft = cf_image_new (w, h);
  cf_flow *d = cf_flow_new (w, h), *out = cf_flow_new (w, h);
  cf_image du = cf_image_view (d->u, w, h, d->pitch);
  cf_image dv = cf_image_view (d->v, w, h, d->pitch);
  test_tensor t;
  int x, y;

  cf_test_fill_random (fx, 1, -20.0f, 20.0f);
  cf_test_fill_random (fy, 2, -20.0f, 20.0f);
  cf_test_fill_random (ft, 3, -30.0f, 30.0f);
  cf_test_fill_random (&du, 4, -2.0f, 2.0f);
  cf_test_fill_random (&dv, 5, -2.0f, 2.0f);
  test_tensor_init (&t, w, h);
  fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, 0.0f, NULL,
          &t.j), CF_OK);
  fail_unless_equals_int (cf_clg_jacobi (&t.j, alpha, d, out), CF_OK);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double su = 0, sv = 0, ub, vb, gx = PX (fx, x, y), gy = PX (fy, x, y);
      double r;
      int n = 0;
      if (x > 0) {
        su += FU (d, x - 1, y);
        sv += FV (d, x - 1, y);
        n++;
      }
      if (x < w - 1) {
        su += FU (d, x + 1, y);
        sv += FV (d, x + 1, y);
        n++;
      }
      if (y > 0) {
        su += FU (d, x, y - 1);
        sv += FV (d, x, y - 1);
        n++;
      }
      if (y < h - 1) {
        su += FU (d, x, y + 1);
        sv += FV (d, x, y + 1);
        n++;
      }
      ub = su / n;
      vb = sv / n;
      r = (gx * ub + gy * vb + PX (ft, x, y)) / (alpha * n + gx * gx + gy * gy);
      fail_unless (fabs (FU (out, x, y) - (ub - gx * r)) < 1e-4 &&
          fabs (FV (out, x, y) - (vb - gy * r)) < 1e-4,
          "(%d, %d): CLG (%g, %g), HS (%g, %g)", x, y, FU (out, x, y),
          FV (out, x, y), ub - gx * r, vb - gy * r);
    }
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
  cf_flow_free (d);
  cf_flow_free (out);
  test_tensor_clear (&t);
}

GST_END_TEST;

GST_START_TEST (test_residual_of_zero_flow_is_norm_of_b)
{
  test_tensor t;
  cf_flow *d = cf_flow_new (5, 4);
  double norm = -1.0;

  test_tensor_init (&t, 5, 4);
  set_tensor (&t, 0, 0, 1.0f, 0.0f, 1.0f, 3.0f, 4.0f);
  set_tensor (&t, 4, 3, 9.0f, 1.0f, 2.0f, -12.0f, 0.0f);
  fail_unless_equals_int (cf_clg_residual (&t.j, 10.0f, d, &norm), CF_OK);
  /* b = -(J13, J23): |b| = sqrt (9 + 16 + 144) = 13 */
  fail_unless (fabs (norm - 13.0) < 1e-9, "residual %g", norm);

  /* a constant flow is not penalised by the smoothness term: r = b - J w */
  cf_flow_fill (d, 1.0f, -1.0f);
  fail_unless_equals_int (cf_clg_residual (&t.j, 10.0f, d, &norm), CF_OK);
  /* (0,0): -3 - (1 - 0) = -4, -4 - (0 - 1) = -3; (4,3): 12 - (9 - 1) = 4,
   * 0 - (1 - 2) = 1; elsewhere 0 */
  fail_unless (fabs (norm - sqrt (16.0 + 9.0 + 16.0 + 1.0)) < 1e-9,
      "residual %g", norm);
  test_tensor_clear (&t);
  cf_flow_free (d);
}

GST_END_TEST;

/* Sweeps on level 0 of a synthetic pair at zero flow; residual after each
 * must not grow (the paper's convergence measure, Figs. 4-5). */
static void
check_residual_decreases (float alpha, int sweeps, double factor)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL, *fx, *fy, *ft, *tmp;
  cf_flow *truth = NULL, *d[2];
  test_tensor t;
  double r0, prev, r = 0.0;
  int n, cur = 0, w = 128, h = 96;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 1.0f;
  fail_unless_equals_int (cf_synth_pair (w, h, &sp, &f0, &f1, &truth), CF_OK);
  fx = cf_image_new (w, h);
  fy = cf_image_new (w, h);
  ft = cf_image_new (w, h);
  tmp = cf_image_new (w, h);
  d[0] = cf_flow_new (w, h);
  d[1] = cf_flow_new (w, h);
  test_tensor_init (&t, w, h);
  fail_unless_equals_int (cf_clg_derivatives (f0, f1, fx, fy, ft), CF_OK);
  fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, 2.5f, tmp,
          &t.j), CF_OK);
  fail_unless_equals_int (cf_clg_residual (&t.j, alpha, d[0], &r0), CF_OK);
  prev = r0;
  for (n = 0; n < sweeps; n++) {
    fail_unless_equals_int (cf_clg_jacobi (&t.j, alpha, d[cur], d[1 - cur]),
        CF_OK);
    cur = 1 - cur;
    fail_unless_equals_int (cf_clg_residual (&t.j, alpha, d[cur], &r), CF_OK);
    /* near 1e-7 of the start the fp32 round-off of the sweep dominates
     * and the residual only jitters */
    fail_unless (r <= prev || r < 1e-6 * r0,
        "alpha %g, sweep %d: residual %g > %g", alpha, n + 1, r, prev);
    prev = r;
  }
  GST_INFO ("alpha %g: residual %g -> %g after %d sweeps (x %.3g)", alpha, r0,
      r, sweeps, r / r0);
  fail_unless (r < factor * r0, "alpha %g: residual %g, start %g", alpha, r,
      r0);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
  cf_image_free (tmp);
  cf_flow_free (d[0]);
  cf_flow_free (d[1]);
  test_tensor_clear (&t);
}

GST_START_TEST (test_jacobi_residual_decreases_monotonically)
{
  /* low alpha converges much faster than high alpha */
  /* measured: x 8.6e-8 (the fp32 floor), 1.2e-6, 5.5e-3 */
  check_residual_decreases (0.325f, 300, 1e-6);
  check_residual_decreases (50.0f, 300, 1e-5);
  check_residual_decreases (325.0f, 300, 1e-2);
}

GST_END_TEST;

/* Dense solve of A x = b (n unknowns, row-major A, both overwritten) by
 * Gaussian elimination with partial pivoting, in double. */
static void
dense_solve (double *a, double *b, int n, double *x)
{
  int i, k, c;

  for (k = 0; k < n; k++) {
    int piv = k;
    for (i = k + 1; i < n; i++)
      if (fabs (a[i * n + k]) > fabs (a[piv * n + k]))
        piv = i;
    fail_unless (fabs (a[piv * n + k]) > 1e-12, "singular at %d", k);
    if (piv != k) {
      for (c = 0; c < n; c++) {
        double t = a[k * n + c];
        a[k * n + c] = a[piv * n + c];
        a[piv * n + c] = t;
      }
      {
        double t = b[k];
        b[k] = b[piv];
        b[piv] = t;
      }
    }
    for (i = k + 1; i < n; i++) {
      double f = a[i * n + k] / a[k * n + k];
      for (c = k; c < n; c++)
        a[i * n + c] -= f * a[k * n + c];
      b[i] -= f * b[k];
    }
  }
  for (k = n - 1; k >= 0; k--) {
    double s = b[k];
    for (c = k + 1; c < n; c++)
      s -= a[k * n + c] * x[c];
    x[k] = s / a[k * n + k];
  }
}

/* The exact solution of a tiny system, assembled independently of
 * common/clg.c from the energy's Euler-Lagrange equations (A = J_block +
 * α DᵀD with forward differences, no term across the border, b = −(J13,
 * J23); see common/clg.h), has an RMS residual at the fp32 rounding of x;
 * the Jacobi sweeps converge to it. */
GST_START_TEST (test_residual_rms_of_exact_solution_is_zero)
{
  const int w = 4, h = 3, n = 2 * w * h;
  const float alpha = 7.0f;
  GRand *rand = g_rand_new_with_seed (4242);
  double *a = g_new0 (double, n * n), *b = g_new0 (double, n);
  double *x = g_new0 (double, n), rms0, rms, norm, bsum = 0.0, maxdiff = 0.0;
  cf_flow *d = cf_flow_new (w, h), *dj[2];
  test_tensor t;
  int px, py, k, cur = 0;

  test_tensor_init (&t, w, h);
  /* J = sum of two rank-1 spatio-temporal tensors per pixel: PSD */
  for (py = 0; py < h; py++)
    for (px = 0; px < w; px++) {
      float j[5] = { 0, 0, 0, 0, 0 };
      for (k = 0; k < 2; k++) {
        float gx = (float) g_rand_double_range (rand, -3.0, 3.0);
        float gy = (float) g_rand_double_range (rand, -3.0, 3.0);
        float gt = (float) g_rand_double_range (rand, -5.0, 5.0);
        j[0] += gx * gx;
        j[1] += gx * gy;
        j[2] += gy * gy;
        j[3] += gx * gt;
        j[4] += gy * gt;
      }
      set_tensor (&t, px, py, j[0], j[1], j[2], j[3], j[4]);
    }
  /* rows 2p (u_p) and 2p + 1 (v_p), p = x + y w */
  for (py = 0; py < h; py++)
    for (px = 0; px < w; px++) {
      static const int nx[4] = { -1, 1, 0, 0 }, ny[4] = { 0, 0, -1, 1 };
      int p = px + py * w, ru = 2 * p, rv = 2 * p + 1;

      a[ru * n + ru] = PX (&t.j.j11, px, py);
      a[ru * n + rv] = PX (&t.j.j12, px, py);
      a[rv * n + ru] = PX (&t.j.j12, px, py);
      a[rv * n + rv] = PX (&t.j.j22, px, py);
      b[ru] = -PX (&t.j.j13, px, py);
      b[rv] = -PX (&t.j.j23, px, py);
      bsum += b[ru] * b[ru] + b[rv] * b[rv];
      for (k = 0; k < 4; k++) {
        int qx = px + nx[k], qy = py + ny[k], q = qx + qy * w;
        if (qx < 0 || qx >= w || qy < 0 || qy >= h)
          continue;
        /* α (w_p − w_q) from each difference term touching p */
        a[ru * n + ru] += alpha;
        a[rv * n + rv] += alpha;
        a[ru * n + 2 * q] -= alpha;
        a[rv * n + 2 * q + 1] -= alpha;
      }
    }
  dense_solve (a, b, n, x);

  /* d = 0: r = b */
  cf_flow_fill (d, 0.0f, 0.0f);
  fail_unless_equals_int (cf_clg_residual_rms (&t.j, alpha, d, &rms0), CF_OK);
  fail_unless (fabs (rms0 - sqrt (bsum / (w * h))) < 1e-6 * rms0,
      "rms %g, |b| rms %g", rms0, sqrt (bsum / (w * h)));
  /* the exact solution */
  for (py = 0; py < h; py++)
    for (px = 0; px < w; px++) {
      FU (d, px, py) = (float) x[2 * (px + py * w)];
      FV (d, px, py) = (float) x[2 * (px + py * w) + 1];
    }
  fail_unless_equals_int (cf_clg_residual_rms (&t.j, alpha, d, &rms), CF_OK);
  fail_unless_equals_int (cf_clg_residual (&t.j, alpha, d, &norm), CF_OK);
  g_print ("CLG residual RMS, exact solution of a 4x3 system: %.3g "
      "(start %.6g)\n", rms, rms0);
  fail_unless (rms < 1e-5 * rms0, "exact solution: rms %g, start %g", rms,
      rms0);
  fail_unless (fabs (rms - norm / sqrt (w * h)) <= 1e-12 * (norm + 1e-30),
      "rms %g, norm %g", rms, norm);
  /* a perturbed solution is not */
  FU (d, 1, 1) += 0.5f;
  fail_unless_equals_int (cf_clg_residual_rms (&t.j, alpha, d, &rms), CF_OK);
  fail_unless (rms > 1e-2 * rms0, "perturbed: rms %g", rms);

  /* the Jacobi sweeps solve the same system */
  dj[0] = cf_flow_new (w, h);
  dj[1] = cf_flow_new (w, h);
  for (k = 0; k < 5000; k++) {
    fail_unless_equals_int (cf_clg_jacobi (&t.j, alpha, dj[cur],
            dj[1 - cur]), CF_OK);
    cur = 1 - cur;
  }
  for (py = 0; py < h; py++)
    for (px = 0; px < w; px++) {
      maxdiff = MAX (maxdiff, fabs (FU (dj[cur], px, py) -
              x[2 * (px + py * w)]));
      maxdiff = MAX (maxdiff, fabs (FV (dj[cur], px, py) -
              x[2 * (px + py * w) + 1]));
    }
  fail_unless (maxdiff < 1e-4, "Jacobi vs exact: max |diff| %g", maxdiff);

  fail_unless_equals_int (cf_clg_residual_rms (NULL, alpha, d, &rms),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_residual_rms (&t.j, 0.0f, d, &rms),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_residual_rms (&t.j, alpha, d, NULL),
      CF_ERROR_INVALID);
  cf_flow_free (d);
  cf_flow_free (dj[0]);
  cf_flow_free (dj[1]);
  test_tensor_clear (&t);
  g_free (a);
  g_free (b);
  g_free (x);
  g_rand_free (rand);
}

GST_END_TEST;

/* Sweep counts of the convergence check and the RMS residual after each
 * (level 0 of a 128x96 synthetic pair, ρ 2.5, from d = 0). */
static const int residual_counts[] = { 0, 10, 50, 200, 1000 };

static void
residual_sequence (float alpha, double *rms)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL, *fx, *fy, *ft, *tmp;
  cf_flow *truth = NULL, *d[2];
  test_tensor t;
  int i, n = 0, cur = 0, w = 128, h = 96;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 1.0f;
  fail_unless_equals_int (cf_synth_pair (w, h, &sp, &f0, &f1, &truth), CF_OK);
  fx = cf_image_new (w, h);
  fy = cf_image_new (w, h);
  ft = cf_image_new (w, h);
  tmp = cf_image_new (w, h);
  d[0] = cf_flow_new (w, h);
  d[1] = cf_flow_new (w, h);
  test_tensor_init (&t, w, h);
  fail_unless_equals_int (cf_clg_derivatives (f0, f1, fx, fy, ft), CF_OK);
  fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, 2.5f, tmp,
          &t.j), CF_OK);
  cf_flow_fill (d[0], 0.0f, 0.0f);
  for (i = 0; i < (int) G_N_ELEMENTS (residual_counts); i++) {
    for (; n < residual_counts[i]; n++) {
      fail_unless_equals_int (cf_clg_jacobi (&t.j, alpha, d[cur],
              d[1 - cur]), CF_OK);
      cur = 1 - cur;
    }
    fail_unless_equals_int (cf_clg_residual_rms (&t.j, alpha, d[cur],
            &rms[i]), CF_OK);
  }
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
  cf_image_free (tmp);
  cf_flow_free (d[0]);
  cf_flow_free (d[1]);
  test_tensor_clear (&t);
}

/* The RMS residual falls at every sampled count (the steady fall of the
 * paper's Figs. 4–5), for the default α and the paper's "high"
 * 5e-3 (325 on 0..255). */
GST_START_TEST (test_residual_rms_falls_with_sweeps)
{
  static const float alphas[] = { 50.0f, 325.0f };
  double rms[G_N_ELEMENTS (residual_counts)];
  int a, i;

  for (a = 0; a < (int) G_N_ELEMENTS (alphas); a++) {
    GString *line = g_string_new (NULL);

    residual_sequence (alphas[a], rms);
    for (i = 0; i < (int) G_N_ELEMENTS (residual_counts); i++)
      g_string_append_printf (line, "%s%d: %.4g", i ? ", " : "",
          residual_counts[i], rms[i]);
    g_print ("CLG residual RMS (CPU, 128x96, rho 2.5, alpha %g) after "
        "sweeps %s\n", alphas[a], line->str);
    g_string_free (line, TRUE);
    fail_unless (rms[0] > 0.0);
    for (i = 1; i < (int) G_N_ELEMENTS (residual_counts); i++)
      fail_unless (rms[i] < rms[i - 1], "alpha %g: %d sweeps %g >= %d "
          "sweeps %g", alphas[a], residual_counts[i], rms[i],
          residual_counts[i - 1], rms[i - 1]);
  }
}

GST_END_TEST;

/* ---------------------------------------------------------------- solver */

GST_START_TEST (test_constant_pair_gives_zero_flow)
{
  cf_image *f = cf_image_new (37, 29);
  cf_flow *flow = cf_flow_new (37, 29);
  cf_clg_params params;
  int x, y;

  cf_image_fill (f, 77.0f);
  cf_flow_fill (flow, 5.0f, 5.0f);
  cf_clg_params_init (&params);
  params.iterations = 20;
  fail_unless_equals_int (run_clg (f, f, &params, 3, 0, flow), CF_OK);
  for (y = 0; y < 29; y++)
    for (x = 0; x < 37; x++) {
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
  cf_flow *flow = cf_flow_new (32, 24), *small = cf_flow_new (16, 12);
  cf_clg_params params, bad;

  cf_pyramid_params_init (&pp);
  pp.max_levels = 2;
  a = cf_pyramid_new (32, 24, &pp);
  b = cf_pyramid_new (32, 24, &pp);
  c = cf_pyramid_new (34, 24, &pp);
  cf_clg_params_init (&params);
  params.iterations = 2;
  fail_unless_equals_int (cf_clg_flow (a, b, &params, 0, flow), CF_OK);
  fail_unless_equals_int (cf_clg_flow (NULL, b, &params, 0, flow),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_flow (a, b, NULL, 0, flow), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_flow (a, b, &params, 0, NULL),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_flow (a, c, &params, 0, flow),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_clg_flow (a, b, &params, 0, small),
      CF_ERROR_INVALID);
  bad = params;
  bad.alpha = 0.0f;
  fail_unless_equals_int (cf_clg_flow (a, b, &bad, 0, flow), CF_ERROR_INVALID);
  bad = params;
  bad.rho = -1.0f;
  fail_unless_equals_int (cf_clg_flow (a, b, &bad, 0, flow), CF_ERROR_INVALID);
  bad = params;
  bad.iterations = -1;
  fail_unless_equals_int (cf_clg_flow (a, b, &bad, 0, flow), CF_ERROR_INVALID);
  bad = params;
  bad.n_iterations_per_level = CF_PYRAMID_MAX_LEVELS + 1;
  fail_unless_equals_int (cf_clg_flow (a, b, &bad, 0, flow), CF_ERROR_INVALID);
  bad = params;
  bad.n_iterations_per_level = 1;
  bad.iterations_per_level[0] = -3;
  fail_unless_equals_int (cf_clg_flow (a, b, &bad, 0, flow), CF_ERROR_INVALID);
  cf_pyramid_free (a);
  cf_pyramid_free (b);
  cf_pyramid_free (c);
  cf_flow_free (flow);
  cf_flow_free (small);
}

GST_END_TEST;

GST_START_TEST (test_tiny_and_odd_sizes_give_finite_flow)
{
  static const int sizes[][2] = { {1, 1}, {2, 1}, {1, 5}, {3, 3}, {5, 4},
  {17, 1}, {33, 17}
  };
  cf_clg_params params;
  guint i;

  cf_clg_params_init (&params);
  params.iterations = 30;
  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i][0], h = sizes[i][1];
    cf_image *f0 = cf_image_new (w, h), *f1 = cf_image_new (w, h);
    cf_flow *flow = cf_flow_new (w, h);

    cf_test_fill_random (f0, 10 + i, 0.0f, 255.0f);
    cf_test_fill_random (f1, 20 + i, 0.0f, 255.0f);
    fail_unless_equals_int (run_clg (f0, f1, &params, 4, 0, flow), CF_OK);
    fail_unless (flow_is_finite (flow), "%dx%d: non-finite flow", w, h);
    cf_image_free (f0);
    cf_image_free (f1);
    cf_flow_free (flow);
  }
}

GST_END_TEST;

GST_START_TEST (test_translation_epe_below_0_015)
{
  cf_synth_params sp;
  cf_clg_params params;
  double epe;

  cf_synth_params_init (&sp);   /* translation (1.5, -0.75) */
  cf_clg_params_init (&params);
  epe = synth_epe (&sp, &params);
  GST_INFO ("translation (1.5, -0.75): EPE %.4f", epe);
  fail_unless (epe < 0.015, "EPE %.4f", epe);   /* measured 0.0100 */
}

GST_END_TEST;

GST_START_TEST (test_rho_zero_translation_epe_below_0_1)
{
  /* the HS data term (no local integration) still solves a translation */
  cf_synth_params sp;
  cf_clg_params params;
  double epe;

  cf_synth_params_init (&sp);
  cf_clg_params_init (&params);
  params.rho = 0.0f;
  params.iterations = 200;
  epe = synth_epe (&sp, &params);
  GST_INFO ("rho 0, translation (1.5, -0.75): EPE %.4f", epe);
  fail_unless (epe < 0.1, "EPE %.4f", epe);     /* measured 0.0921 */
}

GST_END_TEST;

GST_START_TEST (test_rotation_zoom_epe_below_0_045)
{
  cf_synth_params sp;
  cf_clg_params params;
  double epe;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.tx = 1.0f;
  sp.ty = 0.5f;
  sp.angle = 3.0f;
  sp.zoom = 1.03f;
  cf_clg_params_init (&params);
  epe = synth_epe (&sp, &params);
  GST_INFO ("rotation 3 deg, zoom 1.03: EPE %.4f", epe);
  fail_unless (epe < 0.045, "EPE %.4f", epe);   /* measured 0.0359 */
}

GST_END_TEST;

GST_START_TEST (test_smooth_motion_epe_below_0_05)
{
  cf_synth_params sp;
  cf_clg_params params;
  double epe;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 2.0f;
  cf_clg_params_init (&params);
  epe = synth_epe (&sp, &params);
  GST_INFO ("smooth, amplitude 2: EPE %.4f", epe);
  fail_unless (epe < 0.05, "EPE %.4f", epe);    /* measured 0.0419 */
}

GST_END_TEST;

GST_START_TEST (test_configuration_b_epe_below_0_05)
{
  /* the paper's 60 FPS setting B on a 4-level pyramid */
  cf_synth_params sp;
  cf_clg_params params;
  double epe;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 2.0f;
  cf_clg_params_init (&params);
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&params,
          "60,120,180,240", NULL), CF_OK);
  epe = synth_epe (&sp, &params);
  GST_INFO ("configuration B, smooth, amplitude 2: EPE %.4f", epe);
  fail_unless (epe < 0.05, "EPE %.4f", epe);    /* measured 0.0424 */
}

GST_END_TEST;

GST_START_TEST (test_constant_per_level_list_equals_uniform_count)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *a = cf_flow_new (64, 48), *b = cf_flow_new (64, 48);
  cf_clg_params params;
  double diff, max;

  cf_synth_params_init (&sp);
  fail_unless_equals_int (cf_synth_pair (64, 48, &sp, &f0, &f1, &truth), CF_OK);
  cf_clg_params_init (&params);
  params.iterations = 7;
  fail_unless_equals_int (run_clg (f0, f1, &params, 3, 0, a), CF_OK);
  /* one entry reused on every level, and one per level */
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&params, "7",
          NULL), CF_OK);
  fail_unless_equals_int (run_clg (f0, f1, &params, 3, 0, b), CF_OK);
  fail_unless_equals_int (cf_flow_diff (a, b, &diff, &max), CF_OK);
  fail_unless_equals_float (max, 0.0);
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&params,
          "7,7,7", NULL), CF_OK);
  fail_unless_equals_int (run_clg (f0, f1, &params, 3, 0, b), CF_OK);
  fail_unless_equals_int (cf_flow_diff (a, b, &diff, &max), CF_OK);
  fail_unless_equals_float (max, 0.0);
  /* a different count on the finest level changes the result */
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&params,
          "8,7,7", NULL), CF_OK);
  fail_unless_equals_int (run_clg (f0, f1, &params, 3, 0, b), CF_OK);
  fail_unless_equals_int (cf_flow_diff (a, b, &diff, &max), CF_OK);
  fail_unless (max > 0.0);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (a);
  cf_flow_free (b);
}

GST_END_TEST;

GST_START_TEST (test_zero_iterations_return_the_initial_flow)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow = cf_flow_new (96, 64);
  cf_clg_params params;
  int x, y;

  /* no sweep: every increment is 0, so the initial (3, 2) goes down to the
   * coarsest of 3 levels (x 1/4) and back up (x 4) unchanged */
  cf_synth_params_init (&sp);
  fail_unless_equals_int (cf_synth_pair (96, 64, &sp, &f0, &f1, &truth), CF_OK);
  cf_clg_params_init (&params);
  params.iterations = 0;
  cf_flow_fill (flow, 3.0f, 2.0f);
  fail_unless_equals_int (run_clg (f0, f1, &params, 3, 1, flow), CF_OK);
  for (y = 0; y < 64; y++)
    for (x = 0; x < 96; x++)
      fail_unless (fabsf (FU (flow, x, y) - 3.0f) < 1e-5f &&
          fabsf (FV (flow, x, y) - 2.0f) < 1e-5f, "(%d, %d): (%g, %g)", x, y,
          FU (flow, x, y), FV (flow, x, y));
  /* without use_initial the same call gives zero flow */
  fail_unless_equals_int (run_clg (f0, f1, &params, 3, 0, flow), CF_OK);
  fail_unless_equals_float (FU (flow, 40, 30), 0.0f);
  fail_unless_equals_float (FV (flow, 40, 30), 0.0f);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
}

GST_END_TEST;

GST_START_TEST (test_initial_flow_is_used_at_coarsest_level)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow = cf_flow_new (96, 64);
  cf_clg_params params;
  cf_flow_error cold, warm;

  /* one level, few sweeps: a 6-pixel shift is out of reach from zero, but
   * a warm start at the truth stays there */
  cf_synth_params_init (&sp);
  sp.tx = 6.0f;
  sp.ty = 4.0f;
  fail_unless_equals_int (cf_synth_pair (96, 64, &sp, &f0, &f1, &truth), CF_OK);
  cf_clg_params_init (&params);
  params.iterations = 20;
  fail_unless_equals_int (run_clg (f0, f1, &params, 1, 0, flow), CF_OK);
  fail_unless_equals_int (cf_flow_compare (flow, truth, 8, &cold), CF_OK);
  cf_flow_fill (flow, 6.0f, 4.0f);
  fail_unless_equals_int (run_clg (f0, f1, &params, 1, 1, flow), CF_OK);
  fail_unless_equals_int (cf_flow_compare (flow, truth, 8, &warm), CF_OK);
  GST_INFO ("cold EPE %.4f, warm EPE %.4f", cold.epe, warm.epe);
  /* measured: cold 5.74, warm 0.023 */
  fail_unless (cold.epe > 3.0 && warm.epe < 0.1, "cold %.4f warm %.4f",
      cold.epe, warm.epe);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
}

GST_END_TEST;

/* ------------------------------------------------------------ Middlebury */

/* <dir>/<name>/<file> or <dir>/middlebury/<name>/<file>: the variable may
 * name the Middlebury folder itself or the data root above it (the build's
 * default, CF_DATA_DIR). NULL when neither holds it. */
static gchar *
middlebury_file (const char *dir, const char *name, const char *file)
{
  gchar *path = g_build_filename (dir, name, file, NULL);

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  g_free (path);
  path = g_build_filename (dir, "middlebury", name, file, NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  g_free (path);
  return NULL;
}

GST_START_TEST (test_middlebury_rubberwhale_epe_below_0_31)
{
  const char *dir = cf_test_data_dir ();
  gchar *p0, *p1, *pf;
  cf_image *f0, *f1;
  cf_flow *truth = NULL, *flow;
  cf_clg_params params;
  cf_flow_error err;

  fail_unless (dir != NULL, "CUDAFLOW_DATA_DIR not set");
  p0 = middlebury_file (dir, "RubberWhale", "frame10.png");
  p1 = middlebury_file (dir, "RubberWhale", "frame11.png");
  pf = middlebury_file (dir, "RubberWhale", "flow10.flo");
  if (p0 == NULL || p1 == NULL || pf == NULL) {
    fail ("no RubberWhale under %s", dir);
  } else {
    f0 = cf_test_read_png_grey (p0);
    f1 = cf_test_read_png_grey (p1);
    fail_unless (f0 != NULL && f1 != NULL);
    fail_unless_equals_int (cf_flo_read (pf, &truth, NULL), CF_OK);
    flow = cf_flow_new (f0->width, f0->height);
    /* alpha 50, rho 2.5, 200 sweeps on the paper's 4 levels */
    cf_clg_params_init (&params);
    params.iterations = 200;
    fail_unless_equals_int (run_clg (f0, f1, &params, 4, 0, flow), CF_OK);
    fail_unless_equals_int (cf_flow_compare (flow, truth, 0, &err), CF_OK);
    GST_INFO ("RubberWhale: EPE %.4f, AAE %.3f", err.epe, err.aae);
    fail_unless (err.epe < 0.31, "EPE %.4f", err.epe);  /* measured 0.3012 */
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
common_clg_suite (void)
{
  Suite *s = suite_create ("common_clg");
  TCase *params = tcase_create ("params");
  TCase *ops = tcase_create ("operators");
  TCase *solver = tcase_create ("solver");
  TCase *data = tcase_create ("middlebury");

  cf_test_suite_add_tcase (s, params, FALSE);
  tcase_add_test (params, test_params_init_gives_documented_defaults);
  tcase_add_test (params, test_params_set_accepts_names_and_rejects_bad_values);
  tcase_add_test (params, test_parse_iterations_per_level_configuration_b);
  tcase_add_test (params, test_parse_iterations_per_level_rejects_bad_text);

  cf_test_suite_add_tcase (s, ops, FALSE);
  tcase_add_test (ops, test_derivatives_central_with_clamped_border);
  tcase_add_test (ops, test_derivatives_of_one_pixel_axis_are_zero);
  tcase_add_test (ops, test_structure_tensor_on_linear_ramp_hand_values);
  tcase_add_test (ops, test_coupled_update_solves_2x2_system_for_one_pixel);
  tcase_add_test (ops, test_rho_zero_sweep_equals_horn_schunck_update);
  tcase_add_test (ops, test_residual_of_zero_flow_is_norm_of_b);
  tcase_add_test (ops, test_jacobi_residual_decreases_monotonically);
  tcase_add_test (ops, test_residual_rms_of_exact_solution_is_zero);
  tcase_add_test (ops, test_residual_rms_falls_with_sweeps);

  cf_test_suite_add_tcase (s, solver, FALSE);
  tcase_set_timeout (solver, 300);
  tcase_add_test (solver, test_constant_pair_gives_zero_flow);
  tcase_add_test (solver, test_flow_rejects_bad_arguments);
  tcase_add_test (solver, test_tiny_and_odd_sizes_give_finite_flow);
  tcase_add_test (solver, test_translation_epe_below_0_015);
  tcase_add_test (solver, test_rho_zero_translation_epe_below_0_1);
  tcase_add_test (solver, test_rotation_zoom_epe_below_0_045);
  tcase_add_test (solver, test_smooth_motion_epe_below_0_05);
  tcase_add_test (solver, test_configuration_b_epe_below_0_05);
  tcase_add_test (solver, test_constant_per_level_list_equals_uniform_count);
  tcase_add_test (solver, test_zero_iterations_return_the_initial_flow);
  tcase_add_test (solver, test_initial_flow_is_used_at_coarsest_level);

  /* in common/clg-data, which skips (77) without CUDAFLOW_DATA_DIR */
  cf_test_suite_add_tcase (s, data, TRUE);
  tcase_set_timeout (data, 300);
  tcase_add_test (data, test_middlebury_rubberwhale_epe_below_0_31);
  return s;
}

#ifdef CF_TEST_DATA_SUITE
int
main (int argc, char **argv)
{
  return cf_test_run_data_suite (argc, argv, "common_clg", common_clg_suite,
      FALSE);
}
#else
GST_CHECK_MAIN (common_clg);
#endif
