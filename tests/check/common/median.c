/* gst-cudaflow — tests for common/median (median filter of a flow field)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The definition of common/median.h pinned on fields small enough to work
 * out by hand: interior, edge and corner windows of 3 x 3 and 5 x 5, the
 * mean of the two middles for even counts, −0 before +0, identity on
 * constant fields and 1 x 1 images, outliers removed, pitched views, and
 * the arguments it refuses. Expected values are written out in the tests
 * with the sorted windows they come from.
 *
 * The weighted median (cf_flow_weighted_median): its weight table at
 * values worked out by hand, checkerboard windows whose weights decide the
 * answer, a
 * thin structure of the guide that the plain median erases and the
 * weighted one keeps, the lower median on a flat guide (checked against a
 * sort in the test), the bisection's bound against an exact weighted
 * median computed here by sorting, and the arguments it refuses.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <stdlib.h>
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

/* ------------------------------------------------------ weighted median */

/* A guide image from row-major @g */
static cf_image *
guide_from (int w, int h, const float *g)
{
  cf_image *img = cf_image_new (w, h);
  int x, y;

  fail_unless (img != NULL);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      img->data[x + (size_t) y * img->pitch] = g[x + y * w];
  return img;
}

static cf_flow *
weighted_median_of (const cf_flow * src, const cf_image * guide, int size,
    float sigma)
{
  cf_flow *dst = cf_flow_new (src->width, src->height);
  cf_wmedian_tables tables;

  fail_unless (dst != NULL);
  cf_wmedian_tables_init (&tables, sigma);
  cf_flow_fill (dst, NAN, NAN);
  fail_unless_equals_int (cf_flow_weighted_median (src, guide, size,
          &tables, dst), CF_OK);
  return dst;
}

/* 2^16 exp(−d² / 2σ²) rounded, one entry per σ/16, 0 from 4σ on:
 * 65536 e^−1/2 = 39749.6, 65536 e^−2 = 8869.2, 65536 e^−9/2 = 728.2; the
 * scale is 16/σ; 0.5 past a step rounds up to the next entry. */
GST_START_TEST (test_weighted_table_values)
{
  cf_wmedian_tables t;

  cf_wmedian_tables_init (&t, 10.0f);
  fail_unless_equals_int (t.range[0], 65536);
  fail_unless_equals_int (t.range[16], 39750);
  fail_unless_equals_int (t.range[32], 8869);
  fail_unless_equals_int (t.range[48], 728);
  fail_unless_equals_int (t.range[CF_WMEDIAN_RANGE_STEPS - 1], 0);
  fail_unless_equals_float (t.scale, 1.6f);
  cf_wmedian_tables_init (&t, 4.0f);
  fail_unless_equals_float (t.scale, 4.0f);
  fail_unless_equals_int (t.range[16], 39750);
}

GST_END_TEST;

/* A 3 x 3 field, 3 x 3 windows at σ 10. The window of the centre (1, 1)
 * is its checkerboard: the corners and itself (offsets with an even sum);
 * the 9s sit on the other cells.
 *     u        guide
 *   5 9 1    0  0 10
 *   9 3 9    0  0  0
 *   0 9 7   40  0  0
 * Weights from the centre's guide 0: 5, 3, 7 weigh 65536 (d = 0), 1
 * weighs 39750 (d = 10: step 16.5 → 16), 0 weighs nothing (d = 40: step
 * 64.5, past the table). W = 236358; sorted 0, 1, 3, 5, 7 with cumulative
 * 0, 39750, 105286, 170822, 236358: 2 S(3) = 210572 < W, 2 S(5) = 341644
 * >= W: 5, where the plain median of the five is 3 and the four 9s, were
 * they cells, would make it 9 (W 498502, 2 S(7) = 472716). v = −u:
 * sorted −7, −5, −3, −1, −0 weigh 65536, 65536, 65536, 39750, 0:
 * 2 S(−7) = 131072 < W, 2 S(−5) = 262144 >= W: −5, the plain median −3.
 * The corner (0, 0) keeps (0, 0) and (1, 1): 5 and 3 at 65536 each,
 * 2 S(3) = W: 3. */
GST_START_TEST (test_weighted_hand_values)
{
  static const float u[] = { 5, 9, 1, 9, 3, 9, 0, 9, 7 };
  static const float g[] = { 0, 0, 10, 0, 0, 0, 40, 0, 0 };
  cf_flow *src = flow_from (3, 3, u), *out;
  cf_image *guide = guide_from (3, 3, g);

  out = weighted_median_of (src, guide, 3, 10.0f);
  fail_unless_equals_float (FU (out, 1, 1), 5.0f);
  fail_unless_equals_float (FV (out, 1, 1), -5.0f);
  fail_unless_equals_float (FU (out, 0, 0), 3.0f);
  cf_flow_free (out);
  cf_image_free (guide);
  cf_flow_free (src);
}

GST_END_TEST;

/* A 1-pixel-wide diagonal line, bright in the guide and moving by 7 on a
 * still background: the plain 5 x 5 median erases it (5 of 25 values),
 * the weighted median keeps it, and the background stays 0, because the
 * line's pixels weigh nothing seen from the background (d = 200 ≥ 4σ) and
 * the background nothing seen from the line. */
GST_START_TEST (test_weighted_keeps_thin_structures)
{
  const int w = 12, h = 12;
  float u[12 * 12], g[12 * 12];
  cf_flow *src, *plain, *weighted;
  cf_image *guide;
  int x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      u[x + y * w] = x == y ? 7.0f : 0.0f;
      g[x + y * w] = x == y ? 220.0f : 20.0f;
    }
  src = flow_from (w, h, u);
  guide = guide_from (w, h, g);
  plain = median_of (src, 5);
  weighted = weighted_median_of (src, guide, 5, 10.0f);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      fail_unless_equals_float (FU (weighted, x, y), u[x + y * w]);
      fail_unless_equals_float (FV (weighted, x, y), -u[x + y * w]);
    }
  fail_unless_equals_float (FU (plain, 6, 6), 0.0f);
  cf_flow_free (src);
  cf_flow_free (plain);
  cf_flow_free (weighted);
  cf_image_free (guide);
}

GST_END_TEST;

static int
compare_floats (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;

  return (x > y) - (x < y);
}

/* On a flat guide every weight is equal: the weighted median is the lower
 * median of the clipped window's checkerboard cells, the ((n + 1) /
 * 2)-th smallest value.
 * Integers below 2^CF_WMEDIAN_BISECTIONS leave at most one value in the
 * bisection's last interval ((max − min) / 2^CF_WMEDIAN_BISECTIONS < 1),
 * so it is exact. */
GST_START_TEST (test_weighted_flat_guide_is_lower_median)
{
  const int w = 23, h = 17;
  cf_flow *src = cf_flow_new (w, h), *out;
  cf_image *guide = cf_image_new (w, h);
  guint32 s = 12345u;
  int x, y, size, i;

  fail_unless (src != NULL && guide != NULL);
  for (i = 0; i < w * h; i++) {
    s = s * 1664525u + 1013904223u;
    src->u[i] = (float) ((s >> 8) % (1u << CF_WMEDIAN_BISECTIONS));
    src->v[i] = -(float) ((s >> 16) % (1u << CF_WMEDIAN_BISECTIONS));
    guide->data[i] = 77.0f;
  }
  for (size = CF_WMEDIAN_SIZE_MIN; size <= CF_WMEDIAN_SIZE_MAX; size += 2) {
    const int r = size / 2;

    out = weighted_median_of (src, guide, size, 10.0f);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        float wu[81], wv[81];
        int n = 0, xx, yy;

        for (yy = MAX (y - r, 0); yy <= MIN (y + r, h - 1); yy++)
          for (xx = MAX (x - r, 0); xx <= MIN (x + r, w - 1); xx++) {
            if ((xx - x + yy - y) % 2 != 0)
              continue;         /* not a checkerboard cell */
            wu[n] = FU (src, xx, yy);
            wv[n++] = FV (src, xx, yy);
          }
        qsort (wu, n, sizeof (float), compare_floats);
        qsort (wv, n, sizeof (float), compare_floats);
        fail_unless (FU (out, x, y) == wu[(n - 1) / 2] &&
            FV (out, x, y) == wv[(n - 1) / 2], "%d x %d at (%d, %d): (%g, "
            "%g), lower medians (%g, %g)", size, size, x, y, FU (out, x, y),
            FV (out, x, y), wu[(n - 1) / 2], wv[(n - 1) / 2]);
      }
    cf_flow_free (out);
  }
  cf_flow_free (src);
  cf_image_free (guide);
}

GST_END_TEST;

typedef struct
{
  float value;
  unsigned int weight;
} weighted_value;

static int
compare_weighted (const void *a, const void *b)
{
  return compare_floats (&((const weighted_value *) a)->value,
      &((const weighted_value *) b)->value);
}

/* Continuous values and guide: the result is one of the window's values,
 * at most the exact weighted median (sorted here, cumulative weights) and
 * less than (max − min) / 2^CF_WMEDIAN_BISECTIONS below it. The weights
 * are the table's (test_weighted_table_values), indexed as the header
 * says. */
GST_START_TEST (test_weighted_within_bisection_bound)
{
  const int w = 31, h = 19, size = 7, r = 3;
  cf_flow *src = cf_test_random_flow (w, h, 41u, -30.0f, 30.0f), *out;
  cf_image *guide = cf_test_random_image (w, h, 43u, 0.0f, 60.0f);
  cf_wmedian_tables t;
  int x, y, exact = 0;

  cf_wmedian_tables_init (&t, 10.0f);
  out = weighted_median_of (src, guide, size, 10.0f);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const float gc = guide->data[x + (size_t) y * guide->pitch];
      weighted_value win[49];
      unsigned int total = 0, s = 0;
      float lo = INFINITY, hi = -INFINITY, m = NAN, got = FU (out, x, y);
      int n = 0, i, xx, yy, found = 0;

      for (yy = MAX (y - r, 0); yy <= MIN (y + r, h - 1); yy++)
        for (xx = MAX (x - r, 0); xx <= MIN (x + r, w - 1); xx++) {
          const float d = fabsf (guide->data[xx + (size_t) yy *
                  guide->pitch] - gc);
          const float k = d * t.scale + 0.5f;

          if ((xx - x + yy - y) % 2 != 0)
            continue;           /* not a checkerboard cell */
          win[n].value = FU (src, xx, yy);
          win[n].weight = k < CF_WMEDIAN_RANGE_STEPS - 1 ?
              t.range[(int) k] : 0;
          total += win[n].weight;
          lo = MIN (lo, win[n].value);
          hi = MAX (hi, win[n].value);
          found |= win[n].value == got;
          n++;
        }
      qsort (win, n, sizeof (win[0]), compare_weighted);
      for (i = 0; i < n && isnan (m); i++) {
        s += win[i].weight;
        if (2 * s >= total)
          m = win[i].value;
      }
      fail_unless (found, "(%d, %d): %g is not a value of the window", x, y,
          got);
      /* the midpoints are rounded: a thousandth of slack */
      fail_unless (got <= m && m - got <= (hi - lo) / (1 <<
              CF_WMEDIAN_BISECTIONS) * 1.001f, "(%d, %d): %g, weighted "
          "median %g, range %g", x, y, got, m, hi - lo);
      exact += got == m;
    }
  GST_INFO ("%d of %d windows exact", exact, w * h);
  cf_flow_free (src);
  cf_flow_free (out);
  cf_image_free (guide);
}

GST_END_TEST;

GST_START_TEST (test_weighted_rejects_bad_arguments)
{
  static const int bad_sizes[] = { -1, 0, 1, 2, 4, 8, 10, 11 };
  cf_flow *a = cf_flow_new (6, 4), *b = cf_flow_new (6, 4);
  cf_image *g = cf_image_new (6, 4), *g5 = cf_image_new (5, 4);
  cf_wmedian_tables t;
  guint i;

  cf_wmedian_tables_init (&t, 10.0f);
  cf_flow_fill (a, 1.0f, 2.0f);
  for (i = 0; i < G_N_ELEMENTS (bad_sizes); i++)
    fail_unless_equals_int (cf_flow_weighted_median (a, g, bad_sizes[i], &t,
            b), CF_ERROR_INVALID);
  fail_unless (cf_wmedian_size_valid (3) && cf_wmedian_size_valid (9));
  fail_unless_equals_int (cf_flow_weighted_median (a, NULL, 3, &t, b),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_weighted_median (a, g, 3, NULL, b),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_weighted_median (a, g5, 3, &t, b),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_weighted_median (a, g, 3, &t, a),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_weighted_median (a, g, 9, &t, b), CF_OK);
  cf_flow_free (a);
  cf_flow_free (b);
  cf_image_free (g);
  cf_image_free (g5);
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
  tcase_add_test (tc, test_weighted_table_values);
  tcase_add_test (tc, test_weighted_hand_values);
  tcase_add_test (tc, test_weighted_keeps_thin_structures);
  tcase_add_test (tc, test_weighted_flat_guide_is_lower_median);
  tcase_add_test (tc, test_weighted_within_bisection_bound);
  tcase_add_test (tc, test_weighted_rejects_bad_arguments);
  return s;
}

GST_CHECK_MAIN (common_median);
