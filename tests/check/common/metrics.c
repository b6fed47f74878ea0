/* gst-cudaflow — tests for common/metrics
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include "common/metrics.h"
#include "cf-test-util.h"

/* Set vector (x, y) of a flow. */
static void
set (cf_flow * f, int x, int y, float u, float v)
{
  f->u[x + y * f->pitch] = u;
  f->v[x + y * f->pitch] = v;
}

#define assert_close(a, b, tol) \
  fail_unless (fabs ((double) (a) - (double) (b)) <= (tol), \
      "%s = %.9g, expected %.9g", #a, (double) (a), (double) (b))

/* 2x2 estimate/truth pair whose errors are worked out by hand:
 *   (1, 0) vs (0, 0):   EPE 1, AAE acos (1/sqrt 2)        = 45 deg
 *   (3, 4) vs (0, 0):   EPE 5, AAE acos (1/sqrt 26)       = 78.690068 deg
 *   (0, 0) vs (0, 0):   EPE 0, AAE 0
 *   (2, -1) vs (-1, 3): EPE 5, AAE acos (-4/sqrt(6*11))   = 119.496208 deg
 * means: EPE 11/4 = 2.75, AAE 60.796569 deg, max EPE 5. */
static void
make_hand_pair (cf_flow ** est, cf_flow ** gt)
{
  *est = cf_flow_new (2, 2);
  *gt = cf_flow_new (2, 2);
  fail_unless (*est != NULL && *gt != NULL);
  set (*est, 0, 0, 1.0f, 0.0f);
  set (*est, 1, 0, 3.0f, 4.0f);
  set (*est, 0, 1, 0.0f, 0.0f);
  set (*est, 1, 1, 2.0f, -1.0f);
  set (*gt, 1, 1, -1.0f, 3.0f);
}

GST_START_TEST (test_epe_and_aae_match_hand_computation)
{
  cf_flow *est, *gt;
  cf_flow_error r;

  make_hand_pair (&est, &gt);
  fail_unless_equals_int (cf_flow_compare (est, gt, 0, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 4);
  assert_close (r.epe, 2.75, 1e-9);
  assert_close (r.aae, 60.796569005636556, 1e-6);
  assert_close (r.epe_max, 5.0, 1e-9);
  cf_flow_free (est);
  cf_flow_free (gt);
}

GST_END_TEST;

GST_START_TEST (test_single_pixel_45_degrees)
{
  cf_flow *est = cf_flow_new (1, 1), *gt = cf_flow_new (1, 1);
  cf_flow_error r;

  set (est, 0, 0, 0.0f, 1.0f);
  fail_unless_equals_int (cf_flow_compare (est, gt, 0, &r), CF_OK);
  assert_close (r.epe, 1.0, 1e-12);
  assert_close (r.aae, 45.0, 1e-9);
  fail_unless_equals_int (r.n_valid, 1);
  cf_flow_free (est);
  cf_flow_free (gt);
}

GST_END_TEST;

GST_START_TEST (test_unknown_truth_is_excluded)
{
  cf_flow *est, *gt;
  cf_flow_error r;

  make_hand_pair (&est, &gt);
  /* drop the (3, 4) pixel and the (2, -1) pixel from the truth */
  set (gt, 1, 0, CF_FLOW_UNKNOWN, CF_FLOW_UNKNOWN);
  set (gt, 1, 1, NAN, 3.0f);
  fail_unless_equals_int (cf_flow_compare (est, gt, 0, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 2);
  assert_close (r.epe, 0.5, 1e-12);
  assert_close (r.aae, 22.5, 1e-9);
  assert_close (r.epe_max, 1.0, 1e-12);
  /* Middlebury's marker value in only one component */
  set (gt, 0, 0, 0.0f, 1666666752.0f);
  fail_unless_equals_int (cf_flow_compare (est, gt, 0, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 1);
  assert_close (r.epe, 0.0, 1e-12);
  cf_flow_free (est);
  cf_flow_free (gt);
}

GST_END_TEST;

GST_START_TEST (test_unknown_estimate_counts_as_zero_flow)
{
  cf_flow *est = cf_flow_new (3, 1), *gt = cf_flow_new (3, 1);
  cf_flow_error r;

  set (gt, 0, 0, 3.0f, 4.0f);
  set (gt, 1, 0, 3.0f, 4.0f);
  set (gt, 2, 0, 3.0f, 4.0f);
  set (est, 0, 0, CF_FLOW_UNKNOWN, 0.0f);
  set (est, 1, 0, NAN, NAN);
  set (est, 2, 0, 3.0f, INFINITY);
  fail_unless_equals_int (cf_flow_compare (est, gt, 0, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 3);
  assert_close (r.epe, 5.0, 1e-9);
  assert_close (r.aae, 78.69006752597979, 1e-6);
  assert_close (r.epe_max, 5.0, 1e-9);
  cf_flow_free (est);
  cf_flow_free (gt);
}

GST_END_TEST;

GST_START_TEST (test_border_skips_that_many_pixels_each_side)
{
  cf_flow *est = cf_flow_new (5, 5), *gt = cf_flow_new (5, 5);
  cf_flow_error r;
  int x, y;

  /* error 2 on the outer ring, 1 on the next ring, 0 at the centre */
  for (y = 0; y < 5; y++)
    for (x = 0; x < 5; x++) {
      int ring = MIN (MIN (x, y), MIN (4 - x, 4 - y));

      set (est, x, y, ring == 0 ? 2.0f : (ring == 1 ? 1.0f : 0.0f), 0.0f);
    }
  fail_unless_equals_int (cf_flow_compare (est, gt, 0, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 25);
  assert_close (r.epe, (16 * 2.0 + 8 * 1.0) / 25.0, 1e-12);
  assert_close (r.epe_max, 2.0, 1e-12);
  fail_unless_equals_int (cf_flow_compare (est, gt, 1, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 9);
  assert_close (r.epe, 8.0 / 9.0, 1e-12);
  assert_close (r.epe_max, 1.0, 1e-12);
  fail_unless_equals_int (cf_flow_compare (est, gt, 2, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 1);
  assert_close (r.epe, 0.0, 1e-12);
  assert_close (r.aae, 0.0, 1e-12);
  /* nothing left */
  fail_unless_equals_int (cf_flow_compare (est, gt, 3, &r), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_compare (est, gt, -1, &r), CF_ERROR_INVALID);
  cf_flow_free (est);
  cf_flow_free (gt);
}

GST_END_TEST;

GST_START_TEST (test_identical_fields_give_zero_error)
{
  cf_flow *a = cf_flow_new (385, 289), *b;
  cf_image u, v;
  cf_flow_error r;
  double mean = -1.0, max = -1.0;

  fail_unless (a != NULL);
  u = cf_image_view (a->u, a->width, a->height, a->pitch);
  v = cf_image_view (a->v, a->width, a->height, a->pitch);
  cf_test_fill_random (&u, 3, -20.0f, 20.0f);
  cf_test_fill_random (&v, 4, -20.0f, 20.0f);
  /* large identical vectors would push the acos argument past 1 */
  a->u[0] = 1.0e4f;
  a->v[0] = -3.3e4f;
  b = cf_flow_copy (a);
  fail_unless_equals_int (cf_flow_compare (a, b, 0, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 385 * 289);
  fail_unless (r.epe == 0.0);
  fail_unless (r.epe_max == 0.0);
  fail_unless (!isnan (r.aae));
  fail_unless (r.aae < 1e-5, "aae %g", r.aae);
  fail_unless_equals_int (cf_flow_diff (a, b, &mean, &max), CF_OK);
  fail_unless (mean == 0.0 && max == 0.0);
  cf_flow_free (a);
  cf_flow_free (b);
}

GST_END_TEST;

GST_START_TEST (test_opposite_large_vectors_give_finite_angle)
{
  cf_flow *est = cf_flow_new (1, 1), *gt = cf_flow_new (1, 1);
  cf_flow_error r;

  set (est, 0, 0, -1000.0f, 0.0f);
  set (gt, 0, 0, 1000.0f, 0.0f);
  fail_unless_equals_int (cf_flow_compare (est, gt, 0, &r), CF_OK);
  assert_close (r.epe, 2000.0, 1e-9);
  /* acos ((1 - 1e6) / (1 + 1e6)) */
  assert_close (r.aae, acos ((1.0 - 1e6) / (1.0 + 1e6)) * 180.0 / G_PI, 1e-9);
  fail_unless (r.aae > 179.8 && r.aae <= 180.0);
  cf_flow_free (est);
  cf_flow_free (gt);
}

GST_END_TEST;

GST_START_TEST (test_compare_honours_pitch)
{
  /* 3x2 flows with pitch 4: the padding column holds garbage */
  float ue[8] = { 1, 1, 1, 99, 1, 1, 1, 99 }, ve[8] = { 0 };
  float ug[8] = { 0 }, vg[8] = { 0, 0, 0, NAN, 0, 0, 0, NAN };
  cf_flow est = { 3, 2, 4, ue, ve, 0 }, gt = { 3, 2, 4, ug, vg, 0 };
  cf_flow_error r;
  double mean, max;

  fail_unless_equals_int (cf_flow_compare (&est, &gt, 0, &r), CF_OK);
  fail_unless_equals_int (r.n_valid, 6);
  assert_close (r.epe, 1.0, 1e-12);
  assert_close (r.aae, 45.0, 1e-9);
  fail_unless_equals_int (cf_flow_diff (&est, &gt, &mean, &max), CF_OK);
  assert_close (mean, 0.5, 1e-12);
  assert_close (max, 1.0, 1e-12);
}

GST_END_TEST;

GST_START_TEST (test_size_mismatch_and_no_valid_pixel_are_errors)
{
  cf_flow *a = cf_flow_new (3, 5), *b = cf_flow_new (5, 3);
  cf_flow *c = cf_flow_new (3, 5);
  cf_image *i = cf_image_new (3, 5), *j = cf_image_new (3, 4);
  cf_flow_error r;
  double d0, d1;

  fail_unless_equals_int (cf_flow_compare (a, b, 0, &r), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_diff (a, b, &d0, &d1), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_image_diff (i, j, &d0, &d1), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_compare (a, NULL, 0, &r), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_compare (a, c, 0, NULL), CF_ERROR_INVALID);
  cf_flow_fill (c, CF_FLOW_UNKNOWN, CF_FLOW_UNKNOWN);
  fail_unless_equals_int (cf_flow_compare (a, c, 0, &r), CF_ERROR_INVALID);
  cf_flow_free (a);
  cf_flow_free (b);
  cf_flow_free (c);
  cf_image_free (i);
  cf_image_free (j);
}

GST_END_TEST;

GST_START_TEST (test_flow_diff_mean_of_component_means_and_max)
{
  cf_flow *a = cf_flow_new (2, 1), *b = cf_flow_new (2, 1);
  double mean = -1.0, max = -1.0;

  /* pixel 0: |1|, |2| -> 1.5; pixel 1: |0|, |-2| -> 1; mean 1.25, max 2 */
  set (a, 0, 0, 1.0f, 2.0f);
  set (a, 1, 0, 3.0f, 4.0f);
  set (b, 1, 0, 3.0f, 6.0f);
  fail_unless_equals_int (cf_flow_diff (a, b, &mean, &max), CF_OK);
  assert_close (mean, 1.25, 1e-12);
  assert_close (max, 2.0, 1e-12);
  /* NaN never passes as small */
  set (a, 0, 0, NAN, 2.0f);
  fail_unless_equals_int (cf_flow_diff (a, b, &mean, &max), CF_OK);
  fail_unless (isinf (max) && isinf (mean));
  /* either output may be NULL */
  fail_unless_equals_int (cf_flow_diff (a, b, NULL, NULL), CF_OK);
  cf_flow_free (a);
  cf_flow_free (b);
}

GST_END_TEST;

GST_START_TEST (test_image_diff_max_abs_and_max_reference)
{
  float da[6] = { 1.0f, 2.0f, 3.0f, 100.0f, 0.5f, 0.0f };
  float db[6] = { 1.0f, -5.0f, 2.5f, -100.0f, 0.5f, 0.0f };
  /* 3x1 views with pitch 3 over the first row only */
  cf_image a = cf_image_view (da, 3, 1, 3), b = cf_image_view (db, 3, 1, 3);
  cf_image a2 = cf_image_view (da, 3, 2, 3), b2 = cf_image_view (db, 3, 2, 3);
  double max = -1.0, ref = -1.0;

  fail_unless_equals_int (cf_image_diff (&a, &b, &max, &ref), CF_OK);
  assert_close (max, 7.0, 1e-12);
  assert_close (ref, 5.0, 1e-12);
  fail_unless_equals_int (cf_image_diff (&a2, &b2, &max, &ref), CF_OK);
  assert_close (max, 200.0, 1e-12);
  assert_close (ref, 100.0, 1e-12);
  fail_unless_equals_int (cf_image_diff (&a, &a, &max, &ref), CF_OK);
  fail_unless (max == 0.0);
  assert_close (ref, 3.0, 1e-12);
  da[1] = NAN;
  fail_unless_equals_int (cf_image_diff (&a, &b, &max, NULL), CF_OK);
  fail_unless (isinf (max));
}

GST_END_TEST;

static Suite *
common_metrics_suite (void)
{
  Suite *s = suite_create ("common_metrics");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_epe_and_aae_match_hand_computation);
  tcase_add_test (tc, test_single_pixel_45_degrees);
  tcase_add_test (tc, test_unknown_truth_is_excluded);
  tcase_add_test (tc, test_unknown_estimate_counts_as_zero_flow);
  tcase_add_test (tc, test_border_skips_that_many_pixels_each_side);
  tcase_add_test (tc, test_identical_fields_give_zero_error);
  tcase_add_test (tc, test_opposite_large_vectors_give_finite_angle);
  tcase_add_test (tc, test_compare_honours_pitch);
  tcase_add_test (tc, test_size_mismatch_and_no_valid_pixel_are_errors);
  tcase_add_test (tc, test_flow_diff_mean_of_component_means_and_max);
  tcase_add_test (tc, test_image_diff_max_abs_and_max_reference);
  return s;
}

GST_CHECK_MAIN (common_metrics);
