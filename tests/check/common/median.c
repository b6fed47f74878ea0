/* gst-cudaflow — tests for common/median (median filter of a flow field)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The definition of common/median.h pinned on fields small enough to work
 * out by hand: interior, edge and corner windows of 3 x 3 and 5 x 5, the
 * mean of the two middles for even counts, −0 before +0, identity on
 * constant fields and 1 x 1 images, outliers removed, pitched views, and
 * the arguments it refuses. Expected values are written out in the tests
 * with the sorted windows they come from.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/median.h"

#define FU(f, x, y) ((f)->u[(x) + (size_t) (y) * (f)->pitch])
#define FV(f, x, y) ((f)->v[(x) + (size_t) (y) * (f)->pitch])

/* A w x h flow with u from row-major @u and v = −u */
static cf_flow *
flow_from (int w, int h, const float *u)
{
  cf_flow *f = cf_flow_new (w, h);
  int x, y;

  fail_unless (f != NULL);
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      FU (f, x, y) = u[x + y * w];
      FV (f, x, y) = -u[x + y * w];
    }
  }
  return f;
}

/* A filtered flow, its planes poisoned with NaN first */
static cf_flow *
median_of (const cf_flow * src, int size)
{
  cf_flow *dst = cf_flow_new (src->width, src->height);

  fail_unless (dst != NULL);
  cf_flow_fill (dst, NAN, NAN);
  fail_unless_equals_int (cf_flow_median (src, size, dst), CF_OK);
  return dst;
}

/* Fail unless u is @expected exactly and v is −@expected (v = −u in, and
 * the median commutes with negation, even-count means included). */
static void
assert_u_and_minus_v (const cf_flow * f, const float *expected,
    const char *what)
{
  int x, y;

  for (y = 0; y < f->height; y++) {
    for (x = 0; x < f->width; x++) {
      const float e = expected[x + y * f->width];

      fail_unless (FU (f, x, y) == e, "%s: u at (%d, %d) is %g, expected %g",
          what, x, y, FU (f, x, y), e);
      fail_unless (FV (f, x, y) == -e, "%s: v at (%d, %d) is %g, expected "
          "%g", what, x, y, FV (f, x, y), -e);
    }
  }
}

/* 3 x 3 on a 4 x 3 field: every window is clipped but (1, 1) and (2, 1).
 * Corners have 4 values, edges 6, the two inner pixels 9. */
GST_START_TEST (test_3x3_hand_values_with_clipped_borders)
{
  static const float u[] = {
    1, 9, 2, 8,
    7, 3, 6, 4,
    5, -1, 0, 10
  };
  static const float expected[] = {
    /* (0,0) {1,3,7,9} → (3+7)/2; (1,0) {1,2,3,6,7,9} → (3+6)/2;
     * (2,0) {2,3,4,6,8,9} → (4+6)/2; (3,0) {2,4,6,8} → (4+6)/2 */
    5, 4.5f, 5, 5,
    /* (0,1) {-1,1,3,5,7,9} → (3+5)/2; (1,1) {-1,0,1,2,3,5,6,7,9} → 3;
     * (2,1) {-1,0,2,3,4,6,8,9,10} → 4; (3,1) {0,2,4,6,8,10} → (4+6)/2 */
    4, 3, 4, 5,
    /* (0,2) {-1,3,5,7} → (3+5)/2; (1,2) {-1,0,3,5,6,7} → (3+5)/2;
     * (2,2) {-1,0,3,4,6,10} → (3+4)/2; (3,2) {0,4,6,10} → (4+6)/2 */
    4, 4, 3.5f, 5
  };
  cf_flow *src = flow_from (4, 3, u), *dst = median_of (src, 3);

  assert_u_and_minus_v (dst, expected, "3x3 on 4x3");
  cf_flow_free (src);
  cf_flow_free (dst);
}

GST_END_TEST;

/* 5 x 5 on a 5 x 5 field holding 0 ... 24 once each: the centre window is
 * the whole field (median 12); the others are clipped to 9, 12, 15 or 16
 * values. */
GST_START_TEST (test_5x5_hand_values_with_clipped_borders)
{
  static const float u[] = {
    12, 3, 20, 7, 16,
    1, 24, 9, 18, 5,
    22, 14, 0, 11, 19,
    8, 17, 23, 2, 13,
    15, 6, 10, 21, 4
  };
  static const struct
  {
    int x, y;
    float median;
  } cases[] = {
    /* all 25 */
    {2, 2, 12},
    /* rows 0-2, columns 0-2: {0,1,3,9,12,14,20,22,24} */
    {0, 0, 12},
    /* rows 0-2, columns 0-3: {0,1,3,7,9,11,12,14,18,20,22,24} → (11+12)/2 */
    {1, 0, 11.5f},
    /* rows 0-2, all columns: {0,1,3,5,7,9,11,12,14,16,18,19,20,22,24} */
    {2, 0, 12},
    /* rows 0-3, columns 0-3: {0,1,2,3,7,8,9,11,12,14,17,18,20,22,23,24} */
    {1, 1, 11.5f},
    /* all rows, columns 0-2: {0,1,3,6,8,9,10,12,14,15,17,20,22,23,24} */
    {0, 2, 12},
    /* rows 2-4, columns 2-4: {0,2,4,10,11,13,19,21,23} */
    {4, 4, 11},
    /* rows 2-4, columns 1-4: {0,2,4,6,10,11,13,14,17,19,21,23} → (11+13)/2 */
    {3, 4, 12},
  };
  cf_flow *src = flow_from (5, 5, u), *dst = median_of (src, 5);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    fail_unless (FU (dst, cases[i].x, cases[i].y) == cases[i].median,
        "u at (%d, %d) is %g, expected %g", cases[i].x, cases[i].y,
        FU (dst, cases[i].x, cases[i].y), cases[i].median);
    fail_unless (FV (dst, cases[i].x, cases[i].y) == -cases[i].median,
        "v at (%d, %d)", cases[i].x, cases[i].y);
  }
  cf_flow_free (src);
  cf_flow_free (dst);
}

GST_END_TEST;

/* Each component is filtered on its own: u's outlier does not move v. */
GST_START_TEST (test_components_are_filtered_independently)
{
  cf_flow *src = cf_flow_new (5, 5), *dst;
  int x, y;

  cf_flow_fill (src, 1.0f, 2.0f);
  FU (src, 2, 2) = 100.0f;      /* a u outlier where v is regular */
  FV (src, 0, 0) = -50.0f;      /* a v outlier in a corner */
  dst = median_of (src, 3);
  for (y = 0; y < 5; y++) {
    for (x = 0; x < 5; x++) {
      fail_unless (FU (dst, x, y) == 1.0f, "u at (%d, %d): %g", x, y,
          FU (dst, x, y));
      /* the corner window {-50, 2, 2, 2} has middles 2 and 2 */
      fail_unless (FV (dst, x, y) == 2.0f, "v at (%d, %d): %g", x, y,
          FV (dst, x, y));
    }
  }
  cf_flow_free (dst);
  /* 5 x 5 too: the outlier is one of 25, 16, 12 or 9 */
  dst = median_of (src, 5);
  fail_unless (FU (dst, 2, 2) == 1.0f && FV (dst, 0, 0) == 2.0f);
  cf_flow_free (dst);
  cf_flow_free (src);
}

GST_END_TEST;

/* Constant fields, 1 x 1 and thin images come back unchanged. */
GST_START_TEST (test_constant_fields_are_unchanged)
{
  static const int sizes[][2] = { {1, 1}, {1, 7}, {6, 1}, {2, 3}, {7, 5} };
  guint i;
  int size;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    for (size = 3; size <= 5; size += 2) {
      const int w = sizes[i][0], h = sizes[i][1];
      cf_flow *src = cf_flow_new (w, h), *dst;
      int x, y;

      cf_flow_fill (src, -3.25f, 0.5f);
      dst = median_of (src, size);
      for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
          fail_unless (FU (dst, x, y) == -3.25f && FV (dst, x, y) == 0.5f,
              "%dx%d size %d: (%d, %d) is (%g, %g)", w, h, size, x, y,
              FU (dst, x, y), FV (dst, x, y));
      cf_flow_free (src);
      cf_flow_free (dst);
    }
  }
}

GST_END_TEST;

/* A 1 x 1 image is its own median; a 1 x 2 one the mean of its two. */
GST_START_TEST (test_tiny_images)
{
  static const float one[] = { 7.5f };
  static const float two[] = { 1.0f, 4.0f };
  static const float two_expected[] = { 2.5f, 2.5f };
  cf_flow *src = flow_from (1, 1, one), *dst = median_of (src, 5);

  assert_u_and_minus_v (dst, one, "1x1");
  cf_flow_free (src);
  cf_flow_free (dst);
  src = flow_from (2, 1, two);
  dst = median_of (src, 3);
  assert_u_and_minus_v (dst, two_expected, "2x1");
  cf_flow_free (src);
  cf_flow_free (dst);
}

GST_END_TEST;

/* −0 sorts before +0: three values {−0, +0, −0} have the middle −0, two
 * {−0, +0} the mean +0; the bits, not only the values, are pinned. */
GST_START_TEST (test_negative_zero_sorts_before_positive_zero)
{
  static const float u[] = { -0.0f, 0.0f, -0.0f };
  cf_flow *src = cf_flow_new (3, 1), *dst;
  int x;

  for (x = 0; x < 3; x++) {
    FU (src, x, 0) = u[x];
    FV (src, x, 0) = -u[x];     /* +0, −0, +0 */
  }
  dst = median_of (src, 3);
  /* (0,0): {−0, +0} → (−0 + +0)/2 = +0; (1,0): {−0, −0, +0} → −0 */
  fail_unless (FU (dst, 0, 0) == 0.0f && !signbit (FU (dst, 0, 0)));
  fail_unless (FU (dst, 1, 0) == 0.0f && signbit (FU (dst, 1, 0)));
  fail_unless (FU (dst, 2, 0) == 0.0f && !signbit (FU (dst, 2, 0)));
  /* v: (1,0): {+0, −0, +0} → sorted {−0, +0, +0} → +0 */
  fail_unless (FV (dst, 1, 0) == 0.0f && !signbit (FV (dst, 1, 0)));
  cf_flow_free (src);
  cf_flow_free (dst);
}

GST_END_TEST;

/* Isolated outliers vanish: a one-pixel spike under either size; a 3 x 3
 * blob (9 values) stays at its centre under 3 x 3 but not under 5 x 5
 * (9 of 25). */
GST_START_TEST (test_outliers_are_removed)
{
  cf_flow *src = cf_flow_new (9, 9), *dst;
  int x, y, size;

  cf_flow_fill (src, 0.0f, 0.0f);
  FU (src, 4, 4) = 40.0f;
  for (size = 3; size <= 5; size += 2) {
    dst = median_of (src, size);
    for (y = 0; y < 9; y++)
      for (x = 0; x < 9; x++)
        fail_unless (FU (dst, x, y) == 0.0f, "spike, size %d: (%d, %d) is "
            "%g", size, x, y, FU (dst, x, y));
    cf_flow_free (dst);
  }

  for (y = 3; y <= 5; y++)
    for (x = 3; x <= 5; x++)
      FU (src, x, y) = 40.0f;
  dst = median_of (src, 3);
  /* the centre's window is all blob; a blob corner's holds 4 of 9 */
  fail_unless (FU (dst, 4, 4) == 40.0f);
  fail_unless (FU (dst, 3, 3) == 0.0f && FU (dst, 5, 5) == 0.0f);
  /* an edge middle's holds 6 of 9 */
  fail_unless (FU (dst, 4, 3) == 40.0f);
  cf_flow_free (dst);
  dst = median_of (src, 5);
  for (y = 0; y < 9; y++)
    for (x = 0; x < 9; x++)
      fail_unless (FU (dst, x, y) == 0.0f, "blob, 5 x 5: (%d, %d) is %g", x,
          y, FU (dst, x, y));
  cf_flow_free (dst);
  cf_flow_free (src);
}

GST_END_TEST;

/* Pitched views: a 3 x 3 view into a wider buffer reads and writes only
 * its own columns. */
GST_START_TEST (test_pitched_views)
{
  static const float u[] = {
    1, 9, 2,
    7, 3, 6,
    5, -1, 0
  };
  float src_data[2 * 3 * 8], dst_data[2 * 3 * 8];
  cf_flow src = { 3, 3, 8, src_data, src_data + 3 * 8, 0 };
  cf_flow dst = { 3, 3, 8, dst_data, dst_data + 3 * 8, 0 };
  int x, y;

  for (x = 0; x < 2 * 3 * 8; x++) {
    src_data[x] = 1000.0f;      /* beyond the view: must not be read */
    dst_data[x] = -7.0f;        /* beyond the view: must stay */
  }
  for (y = 0; y < 3; y++)
    for (x = 0; x < 3; x++)
      FU (&src, x, y) = FV (&src, x, y) = u[x + 3 * y];
  fail_unless_equals_int (cf_flow_median (&src, 3, &dst), CF_OK);
  /* (1, 1): {-1,0,1,2,3,5,6,7,9} → 3; (0, 0): {1,3,7,9} → 5 */
  fail_unless (FU (&dst, 1, 1) == 3.0f && FV (&dst, 1, 1) == 3.0f);
  fail_unless (FU (&dst, 0, 0) == 5.0f && FV (&dst, 0, 0) == 5.0f);
  for (y = 0; y < 3; y++)
    for (x = 3; x < 8; x++)
      fail_unless (dst.u[x + y * 8] == -7.0f && dst.v[x + y * 8] == -7.0f);
}

GST_END_TEST;

GST_START_TEST (test_rejects_bad_arguments)
{
  static const int bad_sizes[] = { -1, 0, 1, 2, 4, 6, 7 };
  cf_flow *a = cf_flow_new (6, 4), *b = cf_flow_new (6, 4);
  cf_flow *c = cf_flow_new (5, 4);
  cf_flow view;
  guint i;

  cf_flow_fill (a, 1.0f, 2.0f);
  for (i = 0; i < G_N_ELEMENTS (bad_sizes); i++)
    fail_unless_equals_int (cf_flow_median (a, bad_sizes[i], b),
        CF_ERROR_INVALID);
  fail_unless (cf_median_size_valid (3) && cf_median_size_valid (5));
  fail_unless (!cf_median_size_valid (1) && !cf_median_size_valid (4));
  fail_unless_equals_int (cf_flow_median (NULL, 3, b), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_median (a, 3, NULL), CF_ERROR_INVALID);
  /* another size */
  fail_unless_equals_int (cf_flow_median (a, 3, c), CF_ERROR_INVALID);
  /* in place, and a destination overlapping the source */
  fail_unless_equals_int (cf_flow_median (a, 3, a), CF_ERROR_INVALID);
  view = *a;
  view.u = a->v;
  view.v = b->v;
  view.owns_data = 0;
  fail_unless_equals_int (cf_flow_median (a, 3, &view), CF_ERROR_INVALID);
  view = *b;
  view.v = b->u;
  view.owns_data = 0;
  fail_unless_equals_int (cf_flow_median (a, 3, &view), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_median (a, 5, b), CF_OK);
  cf_flow_free (a);
  cf_flow_free (b);
  cf_flow_free (c);
}

GST_END_TEST;

static Suite *
common_median_suite (void)
{
  Suite *s = suite_create ("common_median");
  TCase *tc = tcase_create ("median");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_3x3_hand_values_with_clipped_borders);
  tcase_add_test (tc, test_5x5_hand_values_with_clipped_borders);
  tcase_add_test (tc, test_components_are_filtered_independently);
  tcase_add_test (tc, test_constant_fields_are_unchanged);
  tcase_add_test (tc, test_tiny_images);
  tcase_add_test (tc, test_negative_zero_sorts_before_positive_zero);
  tcase_add_test (tc, test_outliers_are_removed);
  tcase_add_test (tc, test_pitched_views);
  tcase_add_test (tc, test_rejects_bad_arguments);
  return s;
}

GST_CHECK_MAIN (common_median);
