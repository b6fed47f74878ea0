/* gst-cudaflow — tests for common/convolve (the CPU reference itself)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_convolve is checked against a second, deliberately naive
 * implementation written here from the definition in convolve.h: the
 * image is first padded explicitly according to the border rule (with its
 * own index arithmetic, not cf_border_fold), then each output pixel is
 * summed straight from the correlation or convolution formula, without
 * the flip-and-shift-anchor rewrite cf_convolve uses.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/convolve.h"

/* Source index of padded coordinate i for n samples, or -1 for zero. */
static int
pad_index (int i, int n, cf_border border)
{
  switch (border) {
    case CF_BORDER_ZERO:
      return (i < 0 || i >= n) ? -1 : i;
    case CF_BORDER_CLAMP:
      return i < 0 ? 0 : (i >= n ? n - 1 : i);
    case CF_BORDER_REFLECT:
      /* mirror at -0.5 and n - 0.5 until inside */
      while (i < 0 || i >= n) {
        if (i < 0)
          i = -1 - i;
        if (i >= n)
          i = 2 * n - 1 - i;
      }
      return i;
    case CF_BORDER_WRAP:
      return ((i % n) + n) % n;
  }
  return -1;
}

/* Naive reference, straight from the formulas in convolve.h: the image is
 * padded by the kernel size on every side (so every tap of either mode
 * lands inside the padded image), then
 *   correlation  out(x, y) = sum K[j][i] pad(x + i - ax, y + j - ay)
 *   convolution  out(x, y) = sum K[j][i] pad(x - i + ax, y - j + ay)
 * with (ax, ay) = (kw/2, kh/2) for both modes; no kernel flip, no second
 * anchor. Summed in double. */
static cf_image *
reference (const cf_image * src, const cf_kernel * k, cf_border border,
    cf_conv_mode mode)
{
  int w = src->width, h = src->height, kw = k->width, kh = k->height;
  int mx = kw, my = kh, pw = w + 2 * mx, ph = h + 2 * my;
  int ax = kw / 2, ay = kh / 2, x, y, i, j;
  float *pad = g_new0 (float, pw * ph);
  cf_image *out = cf_image_new (w, h);

  for (y = 0; y < ph; y++)
    for (x = 0; x < pw; x++) {
      int sx = pad_index (x - mx, w, border);
      int sy = pad_index (y - my, h, border);

      pad[x + y * pw] = (sx < 0 || sy < 0) ? 0.0f : cf_image_row (src, sy)[sx];
    }
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double s = 0.0;

      for (j = 0; j < kh; j++)
        for (i = 0; i < kw; i++) {
          int px, py;

          if (mode == CF_CORRELATION) {
            px = x + i - ax;
            py = y + j - ay;
          } else {
            px = x - i + ax;
            py = y - j + ay;
          }
          s += (double) k->taps[i + j * kw] * pad[(px + mx) + (py + my) * pw];
        }
      cf_image_row (out, y)[x] = (float) s;
    }
  g_free (pad);
  return out;
}

/* Image with pitch > width so that pitch handling is exercised. */
static cf_image *
image_with_pitch (int w, int h, int extra, float *storage_out[1])
{
  size_t pitch = (size_t) w + extra;
  float *data = g_new0 (float, pitch * h);
  cf_image *img = g_new0 (cf_image, 1);

  *img = cf_image_view (data, w, h, pitch);
  storage_out[0] = data;
  return img;
}

static void
free_pitched (cf_image * img, float *storage)
{
  g_free (storage);
  g_free (img);
}

static void
check_against_reference (int w, int h, int kw, int kh, guint32 seed)
{
  cf_border border;
  cf_conv_mode mode;
  cf_kernel *k = cf_kernel_new (kw, kh);
  cf_image kview = cf_image_view (k->taps, kw, kh, kw);
  float *src_store, *dst_store;
  cf_image *src = image_with_pitch (w, h, 3, &src_store);
  cf_image *dst = image_with_pitch (w, h, 1, &dst_store);
  int x, y;

  cf_test_fill_random (src, seed, -10.0f, 10.0f);
  cf_test_fill_random (&kview, seed * 7 + 1, -1.0f, 1.0f);
  for (border = 0; border < CF_BORDER_COUNT; border++) {
    for (mode = CF_CONVOLUTION; mode <= CF_CORRELATION; mode++) {
      cf_image *ref = reference (src, k, border, mode);

      fail_unless_equals_int (cf_convolve (src, k, border, mode, dst), CF_OK);
      for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
          float a = cf_image_row (dst, y)[x], b = cf_image_row (ref, y)[x];

          fail_unless (fabsf (a - b) <= 1e-5f * (1.0f + fabsf (b)),
              "%dx%d image, %dx%d kernel, %s, %s: (%d,%d) = %g, "
              "expected %g", w, h, kw, kh, cf_border_name (border),
              mode == CF_CONVOLUTION ? "convolution" : "correlation",
              x, y, a, b);
        }
      cf_image_free (ref);
    }
  }
  free_pitched (src, src_store);
  free_pitched (dst, dst_store);
  cf_kernel_free (k);
}

GST_START_TEST (test_matches_padded_reference_for_all_borders_and_modes)
{
  static const int sizes[][2] = { {1, 1}, {2, 3}, {7, 5}, {64, 33} };
  static const int kernels[][2] = { {1, 1}, {3, 3}, {1, 5}, {5, 1}, {4, 4},
  {9, 9}
  };
  guint s, k;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (k = 0; k < G_N_ELEMENTS (kernels); k++)
      check_against_reference (sizes[s][0], sizes[s][1], kernels[k][0],
          kernels[k][1], 1000 + 10 * s + k);
}

GST_END_TEST;

GST_START_TEST (test_kernel_larger_than_image_matches_reference)
{
  check_against_reference (7, 5, 15, 15, 77);
  check_against_reference (1, 1, 15, 15, 78);
  check_against_reference (3, 2, 2, 9, 79);
}

GST_END_TEST;

static cf_kernel *
kernel_from (int w, int h, const float *taps)
{
  cf_kernel *k = cf_kernel_new (w, h);

  memcpy (k->taps, taps, sizeof (float) * w * h);
  return k;
}

/* A unit impulse at (3, 2): convolution writes K around it, correlation
 * the flipped kernel. */
GST_START_TEST (test_impulse_reproduces_kernel_or_its_flip)
{
  static const float taps[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  cf_kernel *k = kernel_from (4, 3, taps);      /* anchor (2, 1) */
  cf_image *src = cf_image_new (9, 6), *dst = cf_image_new (9, 6);
  int x, y, i, j;

  cf_image_row (src, 2)[3] = 1.0f;

  /* convolution: out(x, y) = K[y - 2 + ay][x - 3 + ax] */
  fail_unless_equals_int (cf_convolve (src, k, CF_BORDER_ZERO,
          CF_CONVOLUTION, dst), CF_OK);
  for (y = 0; y < 6; y++)
    for (x = 0; x < 9; x++) {
      i = x - 3 + 2;
      j = y - 2 + 1;
      fail_unless (cf_image_row (dst, y)[x] == ((i >= 0 && i < 4 && j >= 0
                  && j < 3) ? taps[i + 4 * j] : 0.0f), "(%d,%d)", x, y);
    }

  /* correlation: out(x, y) = K[2 - y + ay][3 - x + ax], i.e. flipped */
  fail_unless_equals_int (cf_convolve (src, k, CF_BORDER_ZERO,
          CF_CORRELATION, dst), CF_OK);
  for (y = 0; y < 6; y++)
    for (x = 0; x < 9; x++) {
      i = 3 - x + 2;
      j = 2 - y + 1;
      fail_unless (cf_image_row (dst, y)[x] == ((i >= 0 && i < 4 && j >= 0
                  && j < 3) ? taps[i + 4 * j] : 0.0f), "(%d,%d)", x, y);
    }
  cf_image_free (src);
  cf_image_free (dst);
  cf_kernel_free (k);
}

GST_END_TEST;

/* Hand-computed 1-D cases on [1 2 3]. */
GST_START_TEST (test_three_tap_box_on_row_by_hand)
{
  static const float ones3[3] = { 1, 1, 1 }, ones5[5] = { 1, 1, 1, 1, 1 };
  static const float expect3[CF_BORDER_COUNT][3] = {
    {3, 6, 5}, {4, 6, 8}, {4, 6, 8}, {6, 6, 6}
  };
  /* reflect pads 2 1 | 1 2 3 | 3 2, wrap 2 3 | 1 2 3 | 1 2 */
  static const float expect5[CF_BORDER_COUNT][3] = {
    {6, 6, 6}, {8, 10, 12}, {9, 10, 11}, {11, 10, 9}
  };
  float data[3] = { 1, 2, 3 }, out[3];
  cf_image src = cf_image_view (data, 3, 1, 3);
  cf_image dst = cf_image_view (out, 3, 1, 3);
  cf_kernel *k3 = kernel_from (3, 1, ones3), *k5 = kernel_from (5, 1, ones5);
  cf_border b;
  int x;

  for (b = 0; b < CF_BORDER_COUNT; b++) {
    fail_unless_equals_int (cf_convolve (&src, k3, b, CF_CORRELATION, &dst),
        CF_OK);
    for (x = 0; x < 3; x++)
      fail_unless (out[x] == expect3[b][x], "%s x=%d: %g",
          cf_border_name (b), x, out[x]);
    fail_unless_equals_int (cf_convolve (&src, k5, b, CF_CONVOLUTION, &dst),
        CF_OK);
    for (x = 0; x < 3; x++)
      fail_unless (out[x] == expect5[b][x], "%s x=%d: %g",
          cf_border_name (b), x, out[x]);
  }
  cf_kernel_free (k3);
  cf_kernel_free (k5);
}

GST_END_TEST;

/* The float64 output is the float output before its one rounding: a 1/3
 * kernel on integers shows digits a float cannot hold. */
GST_START_TEST (test_f64_output_is_unrounded_float_output)
{
  static const float third[3] = { 1.0f / 3, 1.0f / 3, 1.0f / 3 };
  float data[35], out[35];
  double out64[5 * 8];
  cf_image src = cf_image_view (data, 7, 5, 7);
  cf_image dst = cf_image_view (out, 7, 5, 7);
  cf_kernel *k = kernel_from (3, 1, third);
  cf_border b;
  int x, y, unequal = 0;

  for (x = 0; x < 35; x++)
    data[x] = (float) (x * 7 % 11);
  for (b = 0; b < CF_BORDER_COUNT; b++) {
    fail_unless_equals_int (cf_convolve (&src, k, b, CF_CORRELATION, &dst),
        CF_OK);
    fail_unless_equals_int (cf_convolve_f64 (&src, k, b, CF_CORRELATION,
            out64, 8), CF_OK);
    for (y = 0; y < 5; y++)
      for (x = 0; x < 7; x++) {
        const double v = out64[x + y * 8];

        fail_unless (out[x + y * 7] == (float) v, "%s (%d, %d)",
            cf_border_name (b), x, y);
        unequal += (double) (float) v != v;
      }
  }
  /* sums of thirds are not all floats */
  fail_unless (unequal > 0);
  fail_unless_equals_int (cf_convolve_f64 (&src, k, CF_BORDER_ZERO,
          CF_CORRELATION, out64, 6), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_convolve_f64 (&src, k, CF_BORDER_ZERO,
          CF_CORRELATION, NULL, 8), CF_ERROR_INVALID);
  cf_kernel_free (k);
}

GST_END_TEST;

/* Median and max of |img - ref| / |ref| by hand; a NaN is the worst. */
GST_START_TEST (test_relative_error_by_hand)
{
  float data[4] = { 1.0f, 2.2f, 2.7f, 4.0f };
  const double ref[5] = { 1.0, 2.0, 3.0, 4.0, -1.0 };  /* stride 5 */
  cf_image img = cf_image_view (data, 4, 1, 4);
  cf_relative_error_stats st;

  fail_unless_equals_int (cf_relative_error (&img, ref, 5, &st), CF_OK);
  /* errors 0, 0.1, 0.1, 0 (to float rounding): median 0.05, max 0.1 */
  fail_unless (fabs (st.median - 0.05) < 1e-6, "median %g", st.median);
  fail_unless (fabs (st.max - 0.1) < 1e-6, "max %g", st.max);
  data[3] = NAN;
  fail_unless_equals_int (cf_relative_error (&img, ref, 5, &st), CF_OK);
  fail_unless (isinf (st.max));
  fail_unless_equals_int (cf_relative_error (&img, ref, 3, &st),
      CF_ERROR_INVALID);
}

GST_END_TEST;

/* A pixel whose true value is 0 is measured against the floor, not 0. */
GST_START_TEST (test_relative_error_floor)
{
  float data[3] = { 1e-9f, 1.0f, 1.0f };
  const double ref[3] = { 0.0, 1.0, 1.0 };
  cf_image img = cf_image_view (data, 3, 1, 3);
  cf_relative_error_stats st;

  fail_unless_equals_int (cf_relative_error (&img, ref, 3, &st), CF_OK);
  fail_unless (fabs (st.max - 1e-9 / CF_RELATIVE_ERROR_FLOOR) < 1e-6,
      "max %g", st.max);
  fail_unless (st.median == 0.0);
}

GST_END_TEST;

/* Even width 2, K = [a b], anchor 1: correlation a in(x-1) + b in(x),
 * convolution a in(x+1) + b in(x). */
GST_START_TEST (test_even_kernel_anchor_by_hand)
{
  static const float ab[2] = { 10, 1 };
  float data[4] = { 1, 2, 3, 4 }, out[4];
  cf_image src = cf_image_view (data, 4, 1, 4);
  cf_image dst = cf_image_view (out, 4, 1, 4);
  cf_kernel *k = kernel_from (2, 1, ab);

  fail_unless_equals_int (cf_convolve (&src, k, CF_BORDER_ZERO,
          CF_CORRELATION, &dst), CF_OK);
  fail_unless (out[0] == 1 && out[1] == 12 && out[2] == 23 && out[3] == 34);
  fail_unless_equals_int (cf_convolve (&src, k, CF_BORDER_ZERO,
          CF_CONVOLUTION, &dst), CF_OK);
  fail_unless (out[0] == 21 && out[1] == 32 && out[2] == 43 && out[3] == 4);
  cf_kernel_free (k);
}

GST_END_TEST;

GST_START_TEST (test_constant_image_stays_constant_with_normalised_kernel)
{
  static const int ksizes[][2] = { {3, 3}, {4, 4}, {1, 5}, {15, 15} };
  cf_image *src = cf_image_new (7, 5), *dst = cf_image_new (7, 5);
  cf_border b;
  guint n;
  int t;

  cf_image_fill (src, 42.5f);
  for (n = 0; n < G_N_ELEMENTS (ksizes); n++) {
    cf_kernel *k = cf_kernel_new (ksizes[n][0], ksizes[n][1]);
    cf_image kv = cf_image_view (k->taps, k->width, k->height, k->width);

    cf_test_fill_random (&kv, 5 + n, 0.1f, 1.0f);
    fail_unless_equals_int (cf_kernel_normalize (k), CF_OK);
    for (b = CF_BORDER_CLAMP; b < CF_BORDER_COUNT; b++) {
      fail_unless_equals_int (cf_convolve (src, k, b, CF_CONVOLUTION, dst),
          CF_OK);
      for (t = 0; t < 35; t++)
        fail_unless (fabsf (dst->data[t] - 42.5f) < 1e-4f, "%s %dx%d: %g",
            cf_border_name (b), k->width, k->height, dst->data[t]);
    }
    /* zero rule darkens the edges but not a pixel covered fully */
    fail_unless_equals_int (cf_convolve (src, k, CF_BORDER_ZERO,
            CF_CONVOLUTION, dst), CF_OK);
    fail_unless (dst->data[0] < 42.5f);
    cf_kernel_free (k);
  }
  cf_image_free (src);
  cf_image_free (dst);
}

GST_END_TEST;

/* Correlation with a one-hot kernel at offset (dx, dy) from the anchor
 * reads in(x + dx, y + dy): under wrap it rotates the image, even when the
 * shift exceeds the image size. */
GST_START_TEST (test_wrap_with_shift_kernel_rotates_image)
{
  static const struct
  {
    int kw, kh, hot_i, hot_j;
  } shifts[] = {
    {3, 3, 2, 1},               /* dx = 1, dy = 0 */
    {3, 3, 0, 0},               /* dx = -1, dy = -1 */
    {17, 1, 16, 0},             /* dx = 8: 8 mod 5 = 3 */
    {1, 9, 0, 0},               /* dy = -4 */
  };
  cf_image *src = cf_image_new (5, 4), *dst = cf_image_new (5, 4);
  guint n;
  int x, y;

  cf_test_fill_random (src, 9, 0.0f, 255.0f);
  for (n = 0; n < G_N_ELEMENTS (shifts); n++) {
    cf_kernel *k = cf_kernel_new (shifts[n].kw, shifts[n].kh);
    int dx = shifts[n].hot_i - shifts[n].kw / 2;
    int dy = shifts[n].hot_j - shifts[n].kh / 2;

    k->taps[shifts[n].hot_i + shifts[n].hot_j * shifts[n].kw] = 1.0f;
    fail_unless_equals_int (cf_convolve (src, k, CF_BORDER_WRAP,
            CF_CORRELATION, dst), CF_OK);
    for (y = 0; y < 4; y++)
      for (x = 0; x < 5; x++)
        fail_unless (cf_image_row (dst, y)[x] ==
            cf_image_row (src, (((y + dy) % 4) + 4) % 4)[(((x + dx) % 5) +
                    5) % 5], "shift %u at (%d,%d)", n, x, y);
    cf_kernel_free (k);
  }
  cf_image_free (src);
  cf_image_free (dst);
}

GST_END_TEST;

GST_START_TEST (test_identity_kernel_copies_image)
{
  cf_image *src = cf_image_new (13, 7), *dst = cf_image_new (13, 7);
  cf_kernel *k = cf_kernel_new (5, 3);
  cf_border b;

  k->taps[2 + 1 * 5] = 1.0f;
  cf_test_fill_random (src, 3, -100.0f, 100.0f);
  for (b = 0; b < CF_BORDER_COUNT; b++) {
    fail_unless_equals_int (cf_convolve (src, k, b, CF_CONVOLUTION, dst),
        CF_OK);
    fail_unless (memcmp (src->data, dst->data, 13 * 7 * sizeof (float)) == 0);
  }
  cf_kernel_free (k);
  cf_image_free (src);
  cf_image_free (dst);
}

GST_END_TEST;

GST_START_TEST (test_rejects_null_mismatch_and_overlap)
{
  cf_image *src = cf_image_new (8, 8), *dst = cf_image_new (8, 8);
  cf_image *small = cf_image_new (8, 7);
  cf_kernel *k = cf_kernel_new (3, 3);
  cf_image same, shifted;

  fail_unless_equals_int (cf_convolve (NULL, k, CF_BORDER_ZERO,
          CF_CONVOLUTION, dst), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_convolve (src, NULL, CF_BORDER_ZERO,
          CF_CONVOLUTION, dst), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_convolve (src, k, CF_BORDER_ZERO,
          CF_CONVOLUTION, NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_convolve (src, k, CF_BORDER_ZERO,
          CF_CONVOLUTION, small), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_convolve (src, k, (cf_border) 7,
          CF_CONVOLUTION, dst), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_convolve (src, k, CF_BORDER_ZERO,
          (cf_conv_mode) 5, dst), CF_ERROR_INVALID);
  /* in place and partially overlapping views */
  same = cf_image_view (src->data, 8, 8, 8);
  fail_unless_equals_int (cf_convolve (src, k, CF_BORDER_ZERO,
          CF_CONVOLUTION, &same), CF_ERROR_INVALID);
  shifted = cf_image_view (src->data + 60, 2, 1, 2);
  same = cf_image_view (src->data, 2, 1, 2);
  fail_unless_equals_int (cf_convolve (&same, k, CF_BORDER_ZERO,
          CF_CONVOLUTION, &shifted), CF_OK);
  shifted = cf_image_view (src->data + 1, 2, 1, 2);
  fail_unless_equals_int (cf_convolve (&same, k, CF_BORDER_ZERO,
          CF_CONVOLUTION, &shifted), CF_ERROR_INVALID);
  cf_kernel_free (k);
  cf_image_free (src);
  cf_image_free (dst);
  cf_image_free (small);
}

GST_END_TEST;

GST_START_TEST (test_border_names_match_property_nicks)
{
  fail_unless_equals_string (cf_border_name (CF_BORDER_ZERO), "zero");
  fail_unless_equals_string (cf_border_name (CF_BORDER_CLAMP), "clamp");
  fail_unless_equals_string (cf_border_name (CF_BORDER_REFLECT), "reflect");
  fail_unless_equals_string (cf_border_name (CF_BORDER_WRAP), "wrap");
  fail_unless_equals_string (cf_border_name ((cf_border) CF_BORDER_COUNT),
      "unknown");
}

GST_END_TEST;

static Suite *
common_convolve_suite (void)
{
  Suite *s = suite_create ("common_convolve");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_matches_padded_reference_for_all_borders_and_modes);
  tcase_add_test (tc, test_kernel_larger_than_image_matches_reference);
  tcase_add_test (tc, test_impulse_reproduces_kernel_or_its_flip);
  tcase_add_test (tc, test_three_tap_box_on_row_by_hand);
  tcase_add_test (tc, test_even_kernel_anchor_by_hand);
  tcase_add_test (tc,
      test_constant_image_stays_constant_with_normalised_kernel);
  tcase_add_test (tc, test_wrap_with_shift_kernel_rotates_image);
  tcase_add_test (tc, test_identity_kernel_copies_image);
  tcase_add_test (tc, test_rejects_null_mismatch_and_overlap);
  tcase_add_test (tc, test_border_names_match_property_nicks);
  tcase_add_test (tc, test_f64_output_is_unrounded_float_output);
  tcase_add_test (tc, test_relative_error_by_hand);
  tcase_add_test (tc, test_relative_error_floor);
  return s;
}

GST_CHECK_MAIN (common_convolve);
