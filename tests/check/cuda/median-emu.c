/* gst-cudaflow — the weighted median kernel's program, on the CPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_cuda_wmedian_emulate () runs the blocks of the weighted median
 * kernel (cuda/median.cu: wmedian_fill_cell stages a block's window cells,
 * NaN outside the image; wmedian_tile_pixel weighs a window's
 * checkerboard cells through the table, sums integers and bisects) on the
 * CPU one after another. Every case asks for the bits of the CPU
 * reference cf_flow_weighted_median (common/median.h), which gathers the
 * clipped window's cells instead: every window size, continuous values
 * and a few values with −0 and +0 (ties), guides of noise and of
 * plateaus (equal weights), σ 10 and 3, images from 1 x 1, thinner than
 * the window and of odd sizes, and pitched planes. The launch itself (the
 * grid, the shared memory, the barrier) is the GPU suite cuda/median's.
 * Runs without a GPU (never skipped).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include "cf-test-util.h"
#include "common/median.h"
#include "cuda/median.h"

static void
check_emulation (const cf_flow * src, const cf_image * guide, int size,
    float sigma, const char *what)
{
  cf_flow *ref = cf_flow_new (src->width, src->height);
  cf_flow *got = cf_flow_new (src->width, src->height);
  cf_wmedian_tables tables;
  gchar *msg;

  fail_unless (ref != NULL && got != NULL);
  cf_wmedian_tables_init (&tables, sigma);
  cf_flow_fill (got, NAN, NAN);
  fail_unless_equals_int (cf_flow_weighted_median (src, guide, size,
          &tables, ref), CF_OK);
  fail_unless_equals_int (cf_cuda_wmedian_emulate (src, guide, size,
          &tables, got), CF_OK);
  msg = g_strdup_printf ("%s, %d x %d, sigma %g: kernel program vs CPU",
      what, size, size, sigma);
  cf_test_assert_flow_identical (got, ref, msg);
  g_free (msg);
  cf_flow_free (ref);
  cf_flow_free (got);
}

GST_START_TEST (test_kernel_program_matches_cpu)
{
  static const int sizes[][2] = { {1, 1}, {2, 3}, {37, 1}, {1, 37},
  {5, 5}, {9, 9}, {10, 11}, {4, 30}, {100, 2}, {33, 9}, {65, 66},
  {161, 97}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++)
    cf_test_weighted_median_cases (sizes[i][0], sizes[i][1], i,
        check_emulation);
}

GST_END_TEST;

/* A flow of a few pixels' spread, as between TV-L1's warps, on a guide of
 * smooth gradients and edges (more of the bisection's passes decide) */
GST_START_TEST (test_kernel_program_on_flow_like_fields)
{
  const int w = 203, h = 77;
  cf_flow *src = cf_test_random_flow (w, h, 3u, -2.0f, 2.0f);
  cf_image *guide = cf_image_new (w, h);
  int x, y, size;

  fail_unless (guide != NULL);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guide->data[x + (size_t) y * guide->pitch] = (x > y ? 120.0f : 40.0f)
          + 0.37f * x - 0.21f * y;
      src->u[x + (size_t) y * src->pitch] += x > y ? 6.0f : -1.0f;
    }
  for (size = CF_WMEDIAN_SIZE_MIN; size <= CF_WMEDIAN_SIZE_MAX; size += 2)
    check_emulation (src, guide, size, 10.0f, "203x77 edges");
  cf_flow_free (src);
  cf_image_free (guide);
}

GST_END_TEST;

/* Planes wider than the image (pitch > width), as the plan's levels */
GST_START_TEST (test_kernel_program_on_pitched_views)
{
  const int W = 150, H = 90, w = 97, h = 61;
  cf_flow *big = cf_test_random_flow (W, H, 19u, -5.0f, 5.0f);
  cf_image *gbig = cf_test_random_image (W, H, 23u, 0.0f, 100.0f);
  cf_flow view = *big;
  cf_image gview = *gbig;

  view.width = w;
  view.height = h;
  view.owns_data = 0;
  gview.width = w;
  gview.height = h;
  gview.owns_data = 0;
  check_emulation (&view, &gview, 9, 10.0f, "97x61 view of 150x90");
  check_emulation (&view, &gview, 3, 10.0f, "97x61 view of 150x90");
  cf_flow_free (big);
  cf_image_free (gbig);
}

GST_END_TEST;

static Suite *
cuda_median_emu_suite (void)
{
  Suite *s = suite_create ("cuda_median_emu");
  TCase *tc = tcase_create ("weighted-median-program");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_kernel_program_matches_cpu);
  tcase_add_test (tc, test_kernel_program_on_flow_like_fields);
  tcase_add_test (tc, test_kernel_program_on_pitched_views);
  return s;
}

GST_CHECK_MAIN (cuda_median_emu);
