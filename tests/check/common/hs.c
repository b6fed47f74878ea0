/* gst-cudaflow — common/hs.c: Horn–Schunck CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include <gst/check/gstcheck.h>

#include "cf-test-util.h"
#include "common/hs.h"
#include "common/metrics.h"
#include "common/synth.h"

GST_START_TEST (test_derivatives_of_linear_ramps_are_exact)
{
  cf_image *i0 = cf_image_new (9, 7), *i1 = cf_image_new (9, 7);
  cf_image *ix = cf_image_new (9, 7), *iy = cf_image_new (9, 7);
  cf_image *it = cf_image_new (9, 7);
  int x, y;

  for (y = 0; y < 7; y++)
    for (x = 0; x < 9; x++) {
      cf_image_row (i0, y)[x] = 2.0f * x - 3.0f * y + 10.0f;
      cf_image_row (i1, y)[x] = 2.0f * x - 3.0f * y + 14.0f;
    }
  fail_unless_equals_int (cf_hs_derivatives (i0, i1, ix, iy, it), CF_OK);
  /* cells away from the clamped last row and column */
  for (y = 0; y < 6; y++)
    for (x = 0; x < 8; x++) {
      fail_unless_equals_float (cf_image_row (ix, y)[x], 2.0f);
      fail_unless_equals_float (cf_image_row (iy, y)[x], -3.0f);
      fail_unless_equals_float (cf_image_row (it, y)[x], 4.0f);
    }
  /* the last column's cell has no right neighbour: Ix = 0 there */
  fail_unless_equals_float (cf_image_row (ix, 2)[8], 0.0f);
  fail_unless_equals_float (cf_image_row (iy, 6)[3], 0.0f);
  cf_image_free (i0);
  cf_image_free (i1);
  cf_image_free (ix);
  cf_image_free (iy);
  cf_image_free (it);
}

GST_END_TEST;

GST_START_TEST (test_jacobi_without_data_averages_neighbours)
{
  cf_image *z = cf_image_new (5, 5);
  cf_flow *d = cf_flow_new (5, 5), *o = cf_flow_new (5, 5);

  cf_image_fill (z, 0.0f);
  d->u[2 + 2 * d->pitch] = 12.0f;
  /* no gradient: u' = ū; the centre's neighbours get 12/6 and 12/12 */
  fail_unless_equals_int (cf_hs_jacobi (z, z, z, 10.0f, d, o), CF_OK);
  fail_unless_equals_float (o->u[2 + 2 * o->pitch], 0.0f);
  fail_unless_equals_float (o->u[2 + 1 * o->pitch], 2.0f);
  fail_unless_equals_float (o->u[1 + 1 * o->pitch], 1.0f);
  /* never in place */
  fail_unless_equals_int (cf_hs_jacobi (z, z, z, 10.0f, d, d),
      CF_ERROR_INVALID);
  cf_image_free (z);
  cf_flow_free (d);
  cf_flow_free (o);
}

GST_END_TEST;

GST_START_TEST (test_jacobi_step_solves_the_pixel_equation)
{
  /* one pixel, zero neighbours: u = -Ix It / (a^2 + Ix^2 + Iy^2) */
  cf_image *ix = cf_image_new (1, 1), *iy = cf_image_new (1, 1);
  cf_image *it = cf_image_new (1, 1);
  cf_flow *d = cf_flow_new (1, 1), *o = cf_flow_new (1, 1);

  ix->data[0] = 3.0f;
  iy->data[0] = 4.0f;
  it->data[0] = -10.0f;
  /* a 1x1 cell's neighbours are itself (clamped): start from 0 */
  fail_unless_equals_int (cf_hs_jacobi (ix, iy, it, 5.0f, d, o), CF_OK);
  fail_unless (fabsf (o->u[0] - 30.0f / 50.0f) < 1e-6f);
  fail_unless (fabsf (o->v[0] - 40.0f / 50.0f) < 1e-6f);
  cf_image_free (ix);
  cf_image_free (iy);
  cf_image_free (it);
  cf_flow_free (d);
  cf_flow_free (o);
}

GST_END_TEST;

GST_START_TEST (test_add_increment_moves_cells_to_pixels)
{
  cf_flow *d = cf_flow_new (3, 3), *u = cf_flow_new (3, 3);

  d->u[1 + 1 * d->pitch] = 4.0f;
  fail_unless_equals_int (cf_hs_add_increment (d, u), CF_OK);
  /* cell (1,1) at (1.5, 1.5) touches pixels (1,1), (2,1), (1,2), (2,2) */
  fail_unless_equals_float (u->u[1 + 1 * u->pitch], 1.0f);
  fail_unless_equals_float (u->u[2 + 2 * u->pitch], 1.0f);
  fail_unless_equals_float (u->u[0 + 0 * u->pitch], 0.0f);
  fail_unless_equals_float (u->u[0 + 1 * u->pitch], 0.0f);
  cf_flow_free (d);
  cf_flow_free (u);
}

GST_END_TEST;

static double
synthetic_epe (const cf_synth_params * sp, const cf_hs_params * hp, int w,
    int h)
{
  cf_image *f0, *f1;
  cf_flow *truth, *flow = cf_flow_new (w, h);
  cf_pyramid_params pp;
  cf_pyramid *p0, *p1;
  cf_flow_error err;

  fail_unless_equals_int (cf_synth_pair (w, h, sp, &f0, &f1, &truth), CF_OK);
  cf_pyramid_params_init (&pp);
  pp.max_levels = 4;
  p0 = cf_pyramid_new (w, h, &pp);
  p1 = cf_pyramid_new (w, h, &pp);
  fail_unless_equals_int (cf_pyramid_build (p0, f0, &pp), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (p1, f1, &pp), CF_OK);
  fail_unless_equals_int (cf_hs_flow (p0, p1, hp, 0, flow), CF_OK);
  fail_unless_equals_int (cf_flow_compare (flow, truth, 8, &err), CF_OK);
  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
  return err.epe;
}

GST_START_TEST (test_synthetic_epe_bounds)
{
  cf_synth_params sp;
  cf_hs_params hp;
  double epe;

  cf_hs_params_init (&hp);
  hp.warps = 2;
  hp.iterations = 100;
  cf_synth_params_init (&sp);
  epe = synthetic_epe (&sp, &hp, 96, 72);
  GST_INFO ("translation EPE %.4f", epe);
  fail_unless (epe < 0.05, "translation EPE %.4f", epe);

  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.angle = 2.0f;
  sp.zoom = 1.02f;
  sp.tx = sp.ty = 0.0f;
  epe = synthetic_epe (&sp, &hp, 96, 72);
  GST_INFO ("rotation/zoom EPE %.4f", epe);
  fail_unless (epe < 0.05, "rotation/zoom EPE %.4f", epe);

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  epe = synthetic_epe (&sp, &hp, 96, 72);
  GST_INFO ("smooth EPE %.4f", epe);
  fail_unless (epe < 0.15, "smooth EPE %.4f", epe);
}

GST_END_TEST;

GST_START_TEST (test_identical_frames_give_zero_flow)
{
  cf_synth_params sp;
  cf_image *f;
  cf_pyramid_params pp;
  cf_pyramid *p;
  cf_flow *flow = cf_flow_new (40, 30);
  cf_hs_params hp;
  int i;

  cf_synth_params_init (&sp);
  f = cf_image_new (40, 30);
  cf_synth_texture (&sp, 0, 0, f);
  cf_pyramid_params_init (&pp);
  p = cf_pyramid_new (40, 30, &pp);
  cf_pyramid_build (p, f, &pp);
  cf_hs_params_init (&hp);
  fail_unless_equals_int (cf_hs_flow (p, p, &hp, 0, flow), CF_OK);
  for (i = 0; i < 40 * 30; i++)
    fail_unless (fabsf (flow->u[i]) < 1e-4f && fabsf (flow->v[i]) < 1e-4f);
  cf_pyramid_free (p);
  cf_image_free (f);
  cf_flow_free (flow);
}

GST_END_TEST;

static Suite *
common_hs_suite (void)
{
  Suite *s = suite_create ("common-hs");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_derivatives_of_linear_ramps_are_exact);
  tcase_add_test (tc, test_jacobi_without_data_averages_neighbours);
  tcase_add_test (tc, test_jacobi_step_solves_the_pixel_equation);
  tcase_add_test (tc, test_add_increment_moves_cells_to_pixels);
  tcase_add_test (tc, test_synthetic_epe_bounds);
  tcase_add_test (tc, test_identical_frames_give_zero_flow);
  return s;
}

GST_CHECK_MAIN (common_hs);
