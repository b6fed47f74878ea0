/* gst-cudaflow — Horn–Schunck's STREAM kernel's program, on the CPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_cuda_hs_emulate () runs the STREAM kernel's per-thread program
 * (cuda/hs-stream.cuh) on the CPU, block by block and thread by thread,
 * and, for comparison, the same sweeps as SIMPLE runs them. In fp32 and
 * fp16 the two must give the same bits: levels narrower and wider than a
 * strip, shorter and taller than a piece, segments of one row up to the
 * whole level (tops and bottoms of the image inside a piece, at every
 * phase of the skew), one to three launches, the first from its input
 * or, as a plan's first launch of a warp, from zeros. The launch itself
 * (barriers, races) and the device's fp16 fma are the GPU suite's
 * (cuda/hs). Runs without a GPU (never skipped).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "cuda/hs.h"

/* A level's coefficient planes and increments, @pitch floats a row */
typedef struct
{
  int w, h, pitch;
  float *a, *b, *c, *u, *v;
} level;

/* A new plane of @pitch floats a row, NaN throughout, its w x h cells
 * filled by cf_test_fill_random */
static float *
random_plane (int w, int h, int pitch, guint32 seed, float lo, float hi)
{
  size_t n = (size_t) pitch * h, i;
  float *p = g_new (float, n);
  cf_image view;

  for (i = 0; i < n; i++)
    p[i] = NAN;
  view = cf_image_view (p, w, h, pitch);
  cf_test_fill_random (&view, seed, lo, hi);
  return p;
}

/* Coefficients as the plan computes them (a = Ix s, b = Iy s, c = It s,
 * s = 1 / sqrt(alpha² + Ix² + Iy²)) from random derivatives, and random
 * increments of a few pixels; the padding of each row holds NaN, which
 * no result may see. */
static void
level_init (level * l, int w, int h, guint32 seed)
{
  int x, y;

  l->w = w;
  l->h = h;
  l->pitch = w + 3;
  /* Ix, Iy, It, turned into a, b, c below */
  l->a = random_plane (w, h, l->pitch, seed, -40.0f, 40.0f);
  l->b = random_plane (w, h, l->pitch, seed * 3u + 1u, -40.0f, 40.0f);
  l->c = random_plane (w, h, l->pitch, seed * 5u + 2u, -60.0f, 60.0f);
  l->u = random_plane (w, h, l->pitch, seed * 7u + 3u, -3.0f, 3.0f);
  l->v = random_plane (w, h, l->pitch, seed * 11u + 4u, -3.0f, 3.0f);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      size_t i = (size_t) y * l->pitch + x;
      float ix = l->a[i], iy = l->b[i], it = l->c[i];
      float s = 1.0f / sqrtf (15.0f * 15.0f + ix * ix + iy * iy);

      l->a[i] = ix * s;
      l->b[i] = iy * s;
      l->c[i] = it * s;
    }
}

static void
level_clear (level * l)
{
  g_free (l->a);
  g_free (l->b);
  g_free (l->c);
  g_free (l->u);
  g_free (l->v);
}

/* Run @launches launches both ways from the level's increments (with
 * @zero_start from zeros, the planes passed in holding NaN, which must not
 * be read); the results must be the same bits, and not the input's */
static void
check_case (int w, int h, int seg_rows, int launches, cf_precision precision,
    int zero_start)
{
  level l;
  size_t n, bytes;
  float *su, *sv, *ku, *kv;
  int y, moved = 0;

  level_init (&l, w, h, 0x9e3779b9u ^ (guint32) (w * 131 + h * 7 + seg_rows));
  n = (size_t) l.pitch * h;
  bytes = n * sizeof (float);
  su = g_memdup2 (l.u, bytes);
  sv = g_memdup2 (l.v, bytes);
  ku = g_memdup2 (l.u, bytes);
  kv = g_memdup2 (l.v, bytes);
  if (zero_start) {
    size_t i;
    for (i = 0; i < n; i++)
      su[i] = sv[i] = ku[i] = kv[i] = NAN;
  }
  fail_unless_equals_int (cf_cuda_hs_emulate (l.a, l.b, l.c, w, h, l.pitch,
          precision, launches, seg_rows, 1, zero_start, su, sv), CF_OK);
  fail_unless_equals_int (cf_cuda_hs_emulate (l.a, l.b, l.c, w, h, l.pitch,
          precision, launches, seg_rows, 0, zero_start, ku, kv), CF_OK);
  for (y = 0; y < h; y++) {
    size_t row = (size_t) y * l.pitch;
    int x;

    for (x = 0; x < w; x++) {
      size_t i = row + x;
      fail_unless (memcmp (&su[i], &ku[i], sizeof (float)) == 0 &&
          memcmp (&sv[i], &kv[i], sizeof (float)) == 0,
          "%dx%d, segments of %d rows, %d launch(es)%s, %s: cell (%d, %d) "
          "is (%.9g, %.9g) as SIMPLE runs it, (%.9g, %.9g) as STREAM",
          w, h, seg_rows, launches, zero_start ? " from zeros" : "",
          precision == CF_PRECISION_FP16 ? "fp16" : "fp32", x, y, su[i],
          sv[i], ku[i], kv[i]);
      fail_unless (isfinite (ku[i]) && isfinite (kv[i]));
      moved = moved || ku[i] != (zero_start ? 0.0f : l.u[i]) ||
          kv[i] != (zero_start ? 0.0f : l.v[i]);
    }
  }
  fail_unless (moved, "%dx%d: the sweeps changed nothing", w, h);
  g_free (su);
  g_free (sv);
  g_free (ku);
  g_free (kv);
  level_clear (&l);
}

/* width, height, segment rows: a strip is 96 cells (an 80-wide tile), a
 * piece 24 rows, a launch 8 sweeps */
static const struct
{
  int w, h, seg;
} cases[] = {
  {1, 1, 1},
  {3, 2, 2},
  {7, 5, 5},
  {80, 24, 24},                 /* one tile, one piece of the tile's rows */
  {81, 25, 25},                 /* one more column and row */
  {96, 19, 19},
  {50, 30, 1},                  /* one-row segments */
  {50, 30, 7},
  {161, 47, 47},                /* three strips, the last one cell wide */
  {120, 73, 24},
  {120, 73, 10},
  {200, 130, 13},
  {200, 130, 48},
  {200, 130, 130},              /* one segment, several pieces */
  {33, 200, 200},               /* tall and narrow */
  {33, 200, 61},
  {240, 96, 50},
};

GST_START_TEST (test_fp32_stream_gives_simple_bits)
{
  guint i;
  int launches;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    for (launches = 1; launches <= 3; launches += 2)
      check_case (cases[i].w, cases[i].h, cases[i].seg, launches,
          CF_PRECISION_FP32, 0);
}

GST_END_TEST;

GST_START_TEST (test_fp16_stream_gives_simple_bits)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    check_case (cases[i].w, cases[i].h, cases[i].seg, 2, CF_PRECISION_FP16,
        0);
}

GST_END_TEST;

/* Every segment height from one row to past the level's at one size: the
 * image's top and bottom rows meet every phase of the skew. */
GST_START_TEST (test_every_segment_height)
{
  int seg;

  for (seg = 1; seg <= 60; seg++)
    check_case (90, 57, seg, 1, CF_PRECISION_FP32, 0);
}

GST_END_TEST;

/* A plan's first launch of a warp starts from zeros without reading its
 * input (zero_in), then the next launch reads what it wrote. */
GST_START_TEST (test_zero_start_gives_simple_bits)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    check_case (cases[i].w, cases[i].h, cases[i].seg, 2, CF_PRECISION_FP32,
        1);
    check_case (cases[i].w, cases[i].h, cases[i].seg, 1, CF_PRECISION_FP16,
        1);
  }
}

GST_END_TEST;

/* The schedule docs/flow-speed.md gives for the H100 (132 SMs, two
 * blocks each): the rows of a segment, the blocks, and the share of the
 * computed cells that are the tiles', which this suite prints. */
GST_START_TEST (test_schedule_of_the_documented_levels)
{
  static const struct
  {
    int w, h, seg_rows, blocks;
    double share;
  } levels[] = {
    {1920, 1080, 99, 264, 0.731},
    {1280, 720, 48, 240, 0.692},
    {960, 540, 50, 132, 0.638},
  };
  int rows = 0, blocks = 0;
  double share = 0.0;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (levels); i++) {
    fail_unless_equals_int (cf_cuda_hs_stream_schedule (132, 2, levels[i].w,
            levels[i].h, &rows, &blocks, &share), CF_OK);
    g_print ("STREAM at %dx%d on 132 SMs x 2 blocks: segments of %d rows, "
        "%d blocks, %.3f of the computed cells the tiles'\n", levels[i].w,
        levels[i].h, rows, blocks, share);
    fail_unless_equals_int (rows, levels[i].seg_rows);
    fail_unless_equals_int (blocks, levels[i].blocks);
    fail_unless (fabs (share - levels[i].share) < 0.0005, "%dx%d: %.4f",
        levels[i].w, levels[i].h, share);
  }
  fail_unless_equals_int (cf_cuda_hs_stream_schedule (0, 2, 64, 64, &rows,
          &blocks, &share), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_stream_schedule (132, 2, 64, 64, &rows,
          NULL, &share), CF_ERROR_INVALID);
}

GST_END_TEST;

GST_START_TEST (test_emulation_refuses_bad_arguments)
{
  const cf_precision f32 = CF_PRECISION_FP32;
  level l;

  level_init (&l, 10, 10, 1u);
  fail_unless_equals_int (cf_cuda_hs_emulate (NULL, l.b, l.c, 10, 10,
          l.pitch, f32, 1, 10, 0, 0, l.u, l.v), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_emulate (l.a, l.b, l.c, 10, 10, 9,
          f32, 1, 10, 0, 0, l.u, l.v), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_emulate (l.a, l.b, l.c, 10, 10,
          l.pitch, f32, 1, 0, 0, 0, l.u, l.v), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_emulate (l.a, l.b, l.c, 10, 10,
          l.pitch, (cf_precision) 7, 1, 10, 0, 0, l.u, l.v),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_emulate (l.a, l.b, l.c, 0, 10,
          l.pitch, f32, 1, 10, 0, 0, l.u, l.v), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_emulate (l.a, l.b, l.c, 10, 10,
          l.pitch, f32, 1, 10, 0, 0, l.u, l.v), CF_OK);
  level_clear (&l);
}

GST_END_TEST;

static Suite *
cuda_hs_emu_suite (void)
{
  Suite *s = suite_create ("cuda_hs_emu");
  TCase *tc = tcase_create ("stream-kernel-program");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_fp32_stream_gives_simple_bits);
  tcase_add_test (tc, test_fp16_stream_gives_simple_bits);
  tcase_add_test (tc, test_every_segment_height);
  tcase_add_test (tc, test_zero_start_gives_simple_bits);
  tcase_add_test (tc, test_schedule_of_the_documented_levels);
  tcase_add_test (tc, test_emulation_refuses_bad_arguments);
  return s;
}

GST_CHECK_MAIN (cuda_hs_emu);
