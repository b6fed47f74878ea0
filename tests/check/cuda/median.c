/* gst-cudaflow — GPU median filter vs the CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_cuda_flow_median against cf_flow_median, bit for bit (the selection
 * is exact and the only arithmetic, the mean of two middles, is the same
 * fp32 expression): random fields of continuous values and of a few
 * values with −0 and +0 (ties everywhere), at 3 x 3 and 5 x 5, on tiny,
 * 1-pixel-wide and odd sizes and on sizes around the kernel's 32 x 32
 * blocks and 4-row runs, on views into larger allocations (as the TV-L1
 * plan's coarser levels), at 1920 x 1080; then the arguments it refuses.
 * Outputs are poisoned with NaN first. test_1080p_matches_cpu logs the
 * kernel's median time at INFO level (GST_DEBUG=check:4).
 *
 * cf_cuda_flow_weighted_median against cf_flow_weighted_median, bit for
 * bit, likewise: every window size, guides of continuous values and of
 * plateaus (equal weights, ties in the sums), on the same sizes, on views,
 * at 1920 x 1080 (timed), and the arguments it refuses.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/median.h"
#include "cuda/median.h"

/* Timed launches of the 1080p test (median reported) */
#define TIMED_RUNS 21

static cudaStream_t stream;

static int
compare_floats (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;

  return (x > y) - (x < y);
}

static void
setup (void)
{
  fail_unless_equals_int (cudaStreamCreate (&stream), cudaSuccess);
}

static void
teardown (void)
{
  cudaStreamDestroy (stream);
}

/* Filter @src on the GPU and the CPU at @size; fail unless the bits
 * agree. */
static void
check_matches_cpu (const cf_flow * src, int size, const char *what)
{
  cf_flow *ref = cf_flow_new (src->width, src->height), *got;
  cf_cuda_flow gsrc, gdst;
  gchar *msg;

  fail_unless (ref != NULL);
  fail_unless_equals_int (cf_flow_median (src, size, ref), CF_OK);
  cf_test_upload_flow (src, &gsrc, stream);
  cf_test_poisoned_flow (src->width, src->height, &gdst, stream);
  fail_unless_equals_int (cf_cuda_flow_median (&gsrc, size, &gdst, stream),
      CF_OK);
  got = cf_test_download_flow (&gdst, stream);
  msg = g_strdup_printf ("%s, %d x %d median", what, size, size);
  cf_test_assert_flow_identical (got, ref, msg);
  g_free (msg);
  cf_flow_free (got);
  cf_flow_free (ref);
  cf_cuda_flow_release (&gsrc);
  cf_cuda_flow_release (&gdst);
}

/* Tiny, thin and odd sizes; around the block (32 x 16 on small images,
 * 32 x 32 from 2^19 pixels) and the run (2 or 4 rows): 5 x 5 windows
 * clipped on one side, both sides, at the top and bottom of runs and
 * blocks; images on both sides of the run switch (cuda/median.cu). */
GST_START_TEST (test_matches_cpu_bit_for_bit)
{
  static const int sizes[][2] = { {1, 1}, {2, 3}, {37, 1}, {1, 37},
  {3, 3}, {4, 4}, {5, 5}, {6, 7}, {4, 30}, {100, 2}, {2, 100}, {33, 9},
  {7, 130}, {64, 64}, {65, 66}, {70, 67}, {333, 201}, {33, 17}, {31, 18},
  {1023, 512}, {1025, 513}, {961, 1091}, {1024, 544}, {1057, 543}
  };
  guint i;
  int size;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    const int w = sizes[i][0], h = sizes[i][1];
    cf_flow *smooth = cf_test_random_flow (w, h, 3u + i, -40.0f, 40.0f);
    cf_flow *ties = cf_test_few_values_flow (w, h, 5u + i);

    for (size = 3; size <= 5; size += 2) {
      gchar *what = g_strdup_printf ("%dx%d random", w, h);

      check_matches_cpu (smooth, size, what);
      g_free (what);
      what = g_strdup_printf ("%dx%d few values", w, h);
      check_matches_cpu (ties, size, what);
      g_free (what);
    }
    cf_flow_free (smooth);
    cf_flow_free (ties);
  }
}

GST_END_TEST;

/* @after (the whole destination allocation, poisoned with NaN first)
 * holds @ref's bits in its top-left @w x @h view and NaN elsewhere. */
static void
assert_view_filtered (const cf_flow * after, const cf_flow * ref, int w,
    int h, const char *what)
{
  int x, y;

  for (y = 0; y < after->height; y++) {
    for (x = 0; x < after->width; x++) {
      const size_t at = x + (size_t) y * after->pitch;

      if (x < w && y < h) {
        const size_t r = x + (size_t) y * ref->pitch;
        fail_unless (memcmp (&after->u[at], &ref->u[r], sizeof (float)) ==
            0 && memcmp (&after->v[at], &ref->v[r], sizeof (float)) == 0,
            "%s: (%d, %d) is (%g, %g), CPU (%g, %g)", what, x, y,
            after->u[at], after->v[at], ref->u[r], ref->v[r]);
      } else {
        fail_unless (isnan (after->u[at]) && isnan (after->v[at]),
            "%s: (%d, %d) outside the view was written", what, x, y);
      }
    }
  }
}

/* The filter on views of the top-left corner of larger flows, as the
 * plan runs it on coarser levels: the same bits as the CPU's on the
 * view's values, and nothing written outside the destination view. */
GST_START_TEST (test_views_of_larger_flows)
{
  const int W = 150, H = 90, w = 97, h = 61;
  cf_flow *big = cf_test_random_flow (W, H, 17u, -5.0f, 5.0f);
  cf_flow *small = cf_flow_new (w, h), *ref = cf_flow_new (w, h);
  cf_flow *after;
  cf_cuda_flow gbig, gout, vin, vout;
  gchar *what;
  int size, y;

  fail_unless (small != NULL && ref != NULL);
  for (y = 0; y < h; y++) {
    memcpy (small->u + (size_t) y * small->pitch, big->u + (size_t) y *
        big->pitch, w * sizeof (float));
    memcpy (small->v + (size_t) y * small->pitch, big->v + (size_t) y *
        big->pitch, w * sizeof (float));
  }
  cf_test_upload_flow (big, &gbig, stream);
  for (size = 3; size <= 5; size += 2) {
    fail_unless_equals_int (cf_flow_median (small, size, ref), CF_OK);
    cf_test_poisoned_flow (W, H, &gout, stream);
    vin = cf_cuda_flow_view (&gbig, w, h);
    vout = cf_cuda_flow_view (&gout, w, h);
    fail_unless_equals_int (cf_cuda_flow_median (&vin, size, &vout,
            stream), CF_OK);
    after = cf_test_download_flow (&gout, stream);
    what = g_strdup_printf ("size %d", size);
    assert_view_filtered (after, ref, w, h, what);
    g_free (what);
    cf_flow_free (after);
    cf_cuda_flow_release (&gout);
  }
  cf_cuda_flow_release (&gbig);
  cf_flow_free (big);
  cf_flow_free (small);
  cf_flow_free (ref);
}

GST_END_TEST;

/* 1080p, as TV-L1's finest level runs it: the CPU's bits, and the time
 * per call (median of TIMED_RUNS, logged). */
GST_START_TEST (test_1080p_matches_cpu)
{
  cf_flow *src = cf_test_random_flow (1920, 1080, 29u, -20.0f, 20.0f);
  cf_cuda_flow gsrc, gdst;
  cudaEvent_t start, stop;
  int size, i;

  check_matches_cpu (src, 3, "1920x1080 random");
  check_matches_cpu (src, 5, "1920x1080 random");

  cf_test_upload_flow (src, &gsrc, stream);
  cf_test_poisoned_flow (1920, 1080, &gdst, stream);
  CUDA_OK (cudaEventCreate (&start));
  CUDA_OK (cudaEventCreate (&stop));
  for (size = 3; size <= 5; size += 2) {
    float ms[TIMED_RUNS];

    /* warm-up */
    fail_unless_equals_int (cf_cuda_flow_median (&gsrc, size, &gdst,
            stream), CF_OK);
    for (i = 0; i < TIMED_RUNS; i++) {
      CUDA_OK (cudaEventRecord (start, stream));
      fail_unless_equals_int (cf_cuda_flow_median (&gsrc, size, &gdst,
              stream), CF_OK);
      CUDA_OK (cudaEventRecord (stop, stream));
      CUDA_OK (cudaEventSynchronize (stop));
      CUDA_OK (cudaEventElapsedTime (&ms[i], start, stop));
    }
    qsort (ms, TIMED_RUNS, sizeof (float), compare_floats);
    GST_INFO ("1920x1080 %d x %d median: %.4f ms (median of %d; min %.4f)",
        size, size, ms[TIMED_RUNS / 2], TIMED_RUNS, ms[0]);
  }
  CUDA_OK (cudaEventDestroy (start));
  CUDA_OK (cudaEventDestroy (stop));
  cf_cuda_flow_release (&gsrc);
  cf_cuda_flow_release (&gdst);
  cf_flow_free (src);
}

GST_END_TEST;

GST_START_TEST (test_rejects_bad_arguments)
{
  static const int bad_sizes[] = { 0, 1, 2, 4, 7 };
  cf_cuda_flow a, b, c, view, shifted;
  guint i;

  fail_unless_equals_int (cf_cuda_flow_alloc (&a, 20, 10), CF_OK);
  fail_unless_equals_int (cf_cuda_flow_alloc (&b, 20, 10), CF_OK);
  fail_unless_equals_int (cf_cuda_flow_alloc (&c, 19, 10), CF_OK);
  for (i = 0; i < G_N_ELEMENTS (bad_sizes); i++)
    fail_unless_equals_int (cf_cuda_flow_median (&a, bad_sizes[i], &b,
            stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_median (NULL, 3, &b, stream),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_median (&a, 3, NULL, stream),
      CF_ERROR_INVALID);
  /* sizes differ */
  fail_unless_equals_int (cf_cuda_flow_median (&a, 3, &c, stream),
      CF_ERROR_INVALID);
  /* in place; a destination plane on a source plane; one destination
   * plane twice; a smaller view of the source as destination */
  fail_unless_equals_int (cf_cuda_flow_median (&a, 5, &a, stream),
      CF_ERROR_INVALID);
  view = b;
  view.u = a.v;
  fail_unless_equals_int (cf_cuda_flow_median (&a, 3, &view, stream),
      CF_ERROR_INVALID);
  view = b;
  view.v = b.u;
  fail_unless_equals_int (cf_cuda_flow_median (&a, 3, &view, stream),
      CF_ERROR_INVALID);
  view = cf_cuda_flow_view (&a, 10, 5);
  shifted = view;
  shifted.u += 3;
  shifted.v += 3;
  fail_unless_equals_int (cf_cuda_flow_median (&view, 3, &shifted, stream),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_median (&a, 3, &b, stream), CF_OK);
  fail_unless_equals_int (cudaStreamSynchronize (stream), cudaSuccess);
  cf_cuda_flow_release (&a);
  cf_cuda_flow_release (&b);
  cf_cuda_flow_release (&c);
}

GST_END_TEST;

/* ------------------------------------------------------ weighted median */

/* Weighted-filter @src guided by @guide on the GPU and the CPU; fail
 * unless the bits agree. */
static void
check_weighted_matches_cpu (const cf_flow * src, const cf_image * guide,
    int size, float sigma, const char *what)
{
  cf_flow *ref = cf_flow_new (src->width, src->height), *got;
  cf_wmedian_tables tables;
  cf_cuda_flow gsrc, gdst;
  cf_cuda_image gguide;
  gchar *msg;

  fail_unless (ref != NULL);
  cf_wmedian_tables_init (&tables, sigma);
  fail_unless_equals_int (cf_flow_weighted_median (src, guide, size,
          &tables, ref), CF_OK);
  cf_test_upload_flow (src, &gsrc, stream);
  cf_test_upload_image (guide, &gguide, stream);
  cf_test_poisoned_flow (src->width, src->height, &gdst, stream);
  fail_unless_equals_int (cf_cuda_flow_weighted_median (&gsrc, &gguide,
          size, &tables, &gdst, stream), CF_OK);
  got = cf_test_download_flow (&gdst, stream);
  msg = g_strdup_printf ("%s, %d x %d weighted median, sigma %g", what,
      size, size, sigma);
  cf_test_assert_flow_identical (got, ref, msg);
  g_free (msg);
  cf_flow_free (got);
  cf_flow_free (ref);
  cf_cuda_flow_release (&gsrc);
  cf_cuda_flow_release (&gdst);
  cf_cuda_image_release (&gguide);
}

/* Tiny, thin and odd sizes and around the 32 x 4 block, windows clipped
 * on every side; both guides; σ 10 and 3 (more weights past the table) */
GST_START_TEST (test_weighted_matches_cpu_bit_for_bit)
{
  static const int sizes[][2] = { {1, 1}, {2, 3}, {37, 1}, {1, 37},
  {5, 5}, {9, 9}, {10, 11}, {4, 30}, {100, 2}, {33, 9}, {31, 5},
  {65, 66}, {333, 201}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++)
    cf_test_weighted_median_cases (sizes[i][0], sizes[i][1], i,
        check_weighted_matches_cpu);
}

GST_END_TEST;

/* On views of the top-left corner of larger flows and guide, as the TV-L1
 * plan runs it on coarser levels: the CPU's bits on the view, nothing
 * written outside the destination view. */
GST_START_TEST (test_weighted_views_of_larger_flows)
{
  const int W = 150, H = 90, w = 97, h = 61;
  cf_flow *big = cf_test_random_flow (W, H, 19u, -5.0f, 5.0f);
  cf_image *gbig_host = cf_test_random_image (W, H, 23u, 0.0f, 100.0f);
  cf_flow *ref = cf_flow_new (w, h), *after;
  cf_flow small = *big;
  cf_image gsmall;
  cf_wmedian_tables tables;
  cf_cuda_flow gbig, gout, vin, vout;
  cf_cuda_image gguide, vguide;

  fail_unless (ref != NULL);
  /* the CPU filters the same corner through views (pitch > width) */
  small.width = w;
  small.height = h;
  small.owns_data = 0;
  gsmall = *gbig_host;
  gsmall.width = w;
  gsmall.height = h;
  gsmall.owns_data = 0;
  cf_wmedian_tables_init (&tables, 10.0f);
  fail_unless_equals_int (cf_flow_weighted_median (&small, &gsmall, 9,
          &tables, ref), CF_OK);
  cf_test_upload_flow (big, &gbig, stream);
  cf_test_upload_image (gbig_host, &gguide, stream);
  cf_test_poisoned_flow (W, H, &gout, stream);
  vin = cf_cuda_flow_view (&gbig, w, h);
  vout = cf_cuda_flow_view (&gout, w, h);
  vguide = gguide;
  vguide.width = w;
  vguide.height = h;
  fail_unless_equals_int (cf_cuda_flow_weighted_median (&vin, &vguide, 9,
          &tables, &vout, stream), CF_OK);
  after = cf_test_download_flow (&gout, stream);
  assert_view_filtered (after, ref, w, h, "weighted 9 x 9");
  cf_flow_free (after);
  cf_cuda_flow_release (&gout);
  cf_cuda_flow_release (&gbig);
  cf_cuda_image_release (&gguide);
  cf_flow_free (big);
  cf_flow_free (ref);
  cf_image_free (gbig_host);
}

GST_END_TEST;

/* 1080p, as TV-L1's finest level runs it: the CPU's bits at 5 x 5 and
 * 9 x 9, and the time per call of every size (median of TIMED_RUNS,
 * logged) on a flow of a few pixels' spread, as between warps. */
GST_START_TEST (test_weighted_1080p_matches_cpu)
{
  cf_flow *src = cf_test_random_flow (1920, 1080, 31u, -3.0f, 3.0f);
  cf_image *guide = cf_test_random_image (1920, 1080, 37u, 0.0f, 255.0f);
  cf_wmedian_tables tables;
  cf_cuda_flow gsrc, gdst;
  cf_cuda_image gguide;
  cudaEvent_t start, stop;
  int size, i;

  check_weighted_matches_cpu (src, guide, 5, 10.0f, "1920x1080 random");
  check_weighted_matches_cpu (src, guide, 9, 10.0f, "1920x1080 random");

  cf_wmedian_tables_init (&tables, 10.0f);
  cf_test_upload_flow (src, &gsrc, stream);
  cf_test_upload_image (guide, &gguide, stream);
  cf_test_poisoned_flow (1920, 1080, &gdst, stream);
  CUDA_OK (cudaEventCreate (&start));
  CUDA_OK (cudaEventCreate (&stop));
  for (size = CF_WMEDIAN_SIZE_MIN; size <= CF_WMEDIAN_SIZE_MAX; size += 2) {
    float ms[TIMED_RUNS];

    /* warm-up */
    fail_unless_equals_int (cf_cuda_flow_weighted_median (&gsrc, &gguide,
            size, &tables, &gdst, stream), CF_OK);
    for (i = 0; i < TIMED_RUNS; i++) {
      CUDA_OK (cudaEventRecord (start, stream));
      fail_unless_equals_int (cf_cuda_flow_weighted_median (&gsrc, &gguide,
              size, &tables, &gdst, stream), CF_OK);
      CUDA_OK (cudaEventRecord (stop, stream));
      CUDA_OK (cudaEventSynchronize (stop));
      CUDA_OK (cudaEventElapsedTime (&ms[i], start, stop));
    }
    qsort (ms, TIMED_RUNS, sizeof (float), compare_floats);
    GST_INFO ("1920x1080 %d x %d weighted median: %.4f ms (median of %d; "
        "min %.4f)", size, size, ms[TIMED_RUNS / 2], TIMED_RUNS, ms[0]);
  }
  CUDA_OK (cudaEventDestroy (start));
  CUDA_OK (cudaEventDestroy (stop));
  cf_cuda_flow_release (&gsrc);
  cf_cuda_flow_release (&gdst);
  cf_cuda_image_release (&gguide);
  cf_flow_free (src);
  cf_image_free (guide);
}

GST_END_TEST;

GST_START_TEST (test_weighted_rejects_bad_arguments)
{
  static const int bad_sizes[] = { 0, 1, 2, 4, 11 };
  cf_wmedian_tables tables;
  cf_cuda_flow a, b;
  cf_cuda_image g, g19;
  guint i;

  cf_wmedian_tables_init (&tables, 10.0f);
  fail_unless_equals_int (cf_cuda_flow_alloc (&a, 20, 10), CF_OK);
  fail_unless_equals_int (cf_cuda_flow_alloc (&b, 20, 10), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&g, 20, 10), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&g19, 19, 10), CF_OK);
  for (i = 0; i < G_N_ELEMENTS (bad_sizes); i++)
    fail_unless_equals_int (cf_cuda_flow_weighted_median (&a, &g,
            bad_sizes[i], &tables, &b, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_weighted_median (&a, NULL, 3,
          &tables, &b, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_weighted_median (&a, &g, 3, NULL,
          &b, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_weighted_median (&a, &g19, 3,
          &tables, &b, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_weighted_median (&a, &g, 3, &tables,
          &a, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_weighted_median (&a, &g, 7, &tables,
          &b, stream), CF_OK);
  fail_unless_equals_int (cudaStreamSynchronize (stream), cudaSuccess);
  cf_cuda_flow_release (&a);
  cf_cuda_flow_release (&b);
  cf_cuda_image_release (&g);
  cf_cuda_image_release (&g19);
}

GST_END_TEST;

static Suite *
cuda_median_suite (void)
{
  Suite *s = suite_create ("cuda_median");
  TCase *tc = tcase_create ("median");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_matches_cpu_bit_for_bit);
  tcase_add_test (tc, test_views_of_larger_flows);
  tcase_add_test (tc, test_1080p_matches_cpu);
  tcase_add_test (tc, test_rejects_bad_arguments);
  tcase_add_test (tc, test_weighted_matches_cpu_bit_for_bit);
  tcase_add_test (tc, test_weighted_views_of_larger_flows);
  tcase_add_test (tc, test_weighted_1080p_matches_cpu);
  tcase_add_test (tc, test_weighted_rejects_bad_arguments);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_median", cuda_median_suite);
}
