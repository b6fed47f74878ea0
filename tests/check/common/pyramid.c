/* gst-cudaflow — common/pyramid.c and common/warp.c
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include <gst/check/gstcheck.h>

#include "cf-test-util.h"
#include "common/pyramid.h"
#include "common/warp.h"

GST_START_TEST (test_level_sizes_round_half_up)
{
  static const int want[][2] = { {584, 388}, {292, 194}, {146, 97},
  {73, 49}, {37, 25}
  };
  int l, w, h;

  for (l = 0; l < 5; l++) {
    cf_pyramid_level_size (584, 388, 0.5f, l, &w, &h);
    fail_unless (w == want[l][0] && h == want[l][1], "level %d: %dx%d", l, w,
        h);
  }
  /* eta 0.8: floor(n * 0.8 + 0.5) */
  cf_pyramid_level_size (101, 7, 0.8f, 1, &w, &h);
  fail_unless (w == 81 && h == 6);
}

GST_END_TEST;

GST_START_TEST (test_level_count_keeps_coarsest_at_min_size)
{
  cf_pyramid_params p;

  cf_pyramid_params_init (&p);
  p.max_levels = 10;
  /* 640x480 -> 320x240, 160x120, 80x60, 40x30; 20x15 would be < 16 */
  fail_unless_equals_int (cf_pyramid_level_count (640, 480, &p), 5);
  p.max_levels = 3;
  fail_unless_equals_int (cf_pyramid_level_count (640, 480, &p), 3);
  fail_unless_equals_int (cf_pyramid_level_count (1, 1, &p), 1);
  fail_unless_equals_int (cf_pyramid_level_count (20, 1000, &p), 1);
}

GST_END_TEST;

GST_START_TEST (test_blur_keeps_constant_and_spreads_impulse_as_gaussian)
{
  cf_image *img = cf_image_new (31, 21), *tmp = cf_image_new (31, 21);
  cf_image *out = cf_image_new (31, 21);
  double sum = 0;
  int x, y;

  cf_image_fill (img, 42.0f);
  fail_unless_equals_int (cf_gaussian_blur (img, 1.5f, tmp, out), CF_OK);
  for (y = 0; y < 21; y++)
    for (x = 0; x < 31; x++)
      fail_unless (fabsf (cf_image_row (out, y)[x] - 42.0f) < 1e-4f);

  cf_image_fill (img, 0.0f);
  cf_image_row (img, 10)[15] = 1000.0f;
  fail_unless_equals_int (cf_gaussian_blur (img, 1.0f, tmp, out), CF_OK);
  for (y = 0; y < 21; y++)
    for (x = 0; x < 31; x++)
      sum += cf_image_row (out, y)[x];
  fail_unless (fabs (sum - 1000.0) < 0.05, "sum %f", sum);
  /* separable Gaussian: ratio of neighbours is exp(-1/2) per axis */
  fail_unless (fabsf (cf_image_row (out, 10)[16] / cf_image_row (out,
              10)[15] - expf (-0.5f)) < 1e-3f);
  fail_unless (fabsf (cf_image_row (out, 11)[16] / cf_image_row (out,
              10)[15] - expf (-1.0f)) < 1e-3f);
  cf_image_free (img);
  cf_image_free (tmp);
  cf_image_free (out);
}

GST_END_TEST;

GST_START_TEST (test_bicubic_is_exact_on_samples_and_quadratics)
{
  cf_image *img = cf_image_new (12, 9);
  int x, y;

  for (y = 0; y < 9; y++)
    for (x = 0; x < 12; x++)
      cf_image_row (img, y)[x] = 0.5f * x * x - 3.0f * y + 0.25f * x * y;
  /* on the samples */
  fail_unless_equals_float (cf_bicubic_at (img, 5.0f, 4.0f, CF_WARP_CLAMP),
      cf_image_row (img, 4)[5]);
  /* Keys' a = -0.5 reproduces quadratics inside the image */
  for (y = 2; y < 6; y++) {
    for (x = 2; x < 9; x++) {
      float px = x + 0.37f, py = y + 0.81f;
      float want = 0.5f * px * px - 3.0f * py + 0.25f * px * py;
      fail_unless (fabsf (cf_bicubic_at (img, px, py, CF_WARP_CLAMP) - want) <
          1e-3f, "(%f,%f)", px, py);
    }
  }
  /* the zero-outside rule: any tap outside gives 0 */
  fail_unless_equals_float (cf_bicubic_at (img, 0.5f, 4.0f,
          CF_WARP_ZERO_OUTSIDE), 0.0f);
  fail_unless (cf_bicubic_at (img, 0.5f, 4.0f, CF_WARP_CLAMP) != 0.0f);
  fail_unless (cf_bicubic_at (img, 1.5f, 4.0f, CF_WARP_ZERO_OUTSIDE) != 0.0f);
  /* far outside and non-finite positions do not crash */
  fail_unless (isfinite (cf_bicubic_at (img, -1e30f, 1e30f, CF_WARP_CLAMP)));
  fail_unless_equals_float (cf_bicubic_at (img, NAN, 1.0f, CF_WARP_CLAMP),
      0.0f);
  cf_image_free (img);
}

GST_END_TEST;

GST_START_TEST (test_warp_by_integer_translation_shifts_the_image)
{
  cf_image *src = cf_image_new (20, 15), *dst = cf_image_new (20, 15);
  cf_flow *flow = cf_flow_new (20, 15);
  int x, y;

  cf_test_fill_random (src, 3, 0.0f, 255.0f);
  cf_flow_fill (flow, 2.0f, -1.0f);
  fail_unless_equals_int (cf_warp_bicubic (src, flow, CF_WARP_CLAMP, dst),
      CF_OK);
  for (y = 1; y < 15; y++)
    for (x = 0; x < 18; x++)
      fail_unless_equals_float (cf_image_row (dst, y)[x],
          cf_image_row (src, y - 1)[x + 2]);
  cf_image_free (src);
  cf_image_free (dst);
  cf_flow_free (flow);
}

GST_END_TEST;

GST_START_TEST (test_flow_resample_scales_vectors_by_size_ratio)
{
  cf_flow *coarse = cf_flow_new (10, 8), *fine = cf_flow_new (20, 16);
  int x, y;

  cf_flow_fill (coarse, 1.5f, -0.25f);
  fail_unless_equals_int (cf_flow_resample (coarse, fine), CF_OK);
  for (y = 0; y < 16; y++)
    for (x = 0; x < 20; x++) {
      fail_unless (fabsf (fine->u[x + y * fine->pitch] - 3.0f) < 1e-5f);
      fail_unless (fabsf (fine->v[x + y * fine->pitch] + 0.5f) < 1e-5f);
    }
  cf_flow_free (coarse);
  cf_flow_free (fine);
}

GST_END_TEST;

GST_START_TEST (test_pyramid_of_constant_is_constant_and_downsample_picks_even)
{
  cf_pyramid_params p;
  cf_pyramid *pyr;
  cf_image *frame = cf_image_new (64, 48), *tmp = cf_image_new (64, 48);
  cf_image *half = cf_image_new (32, 24), *blur = cf_image_new (64, 48);
  int l, x, y;

  cf_pyramid_params_init (&p);
  p.max_levels = 4;
  p.presmooth_sigma = 0.8f;
  pyr = cf_pyramid_new (64, 48, &p);
  /* 64x48, 32x24; 16x12 would be < 16 */
  fail_unless (pyr != NULL && pyr->n_levels == 2);
  cf_image_fill (frame, 77.0f);
  fail_unless_equals_int (cf_pyramid_build (pyr, frame, &p), CF_OK);
  for (l = 0; l < pyr->n_levels; l++)
    for (y = 0; y < pyr->level[l]->height; y++)
      for (x = 0; x < pyr->level[l]->width; x++)
        fail_unless (fabsf (cf_image_row (pyr->level[l], y)[x] - 77.0f) <
            1e-3f);

  /* eta 0.5: blur with sigma 0.6 sqrt(3), then every second sample */
  cf_test_fill_random (frame, 9, 0.0f, 255.0f);
  fail_unless_equals_int (cf_downsample (frame, 0.5f, tmp, half), CF_OK);
  fail_unless_equals_int (cf_gaussian_blur (frame, 0.6f * sqrtf (3.0f), tmp,
          blur), CF_OK);
  for (y = 0; y < 24; y++)
    for (x = 0; x < 32; x++)
      fail_unless (fabsf (cf_image_row (half, y)[x] - cf_image_row (blur,
                  2 * y)[2 * x]) < 1e-4f);
  cf_pyramid_free (pyr);
  cf_image_free (frame);
  cf_image_free (tmp);
  cf_image_free (half);
  cf_image_free (blur);
}

GST_END_TEST;

static Suite *
common_pyramid_suite (void)
{
  Suite *s = suite_create ("common-pyramid");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_level_sizes_round_half_up);
  tcase_add_test (tc, test_level_count_keeps_coarsest_at_min_size);
  tcase_add_test (tc, test_blur_keeps_constant_and_spreads_impulse_as_gaussian);
  tcase_add_test (tc, test_bicubic_is_exact_on_samples_and_quadratics);
  tcase_add_test (tc, test_warp_by_integer_translation_shifts_the_image);
  tcase_add_test (tc, test_flow_resample_scales_vectors_by_size_ratio);
  tcase_add_test (tc,
      test_pyramid_of_constant_is_constant_and_downsample_picks_even);
  return s;
}

GST_CHECK_MAIN (common_pyramid);
