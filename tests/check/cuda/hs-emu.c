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

#include "cuda/hs.h"

/* A level's coefficient planes and increments, @pitch floats a row */
typedef struct
{
  int w, h, pitch;
  float *a, *b, *c, *u, *v;
} level;

static guint32
next (guint32 * s)
{
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* uniform in [lo, hi) */
static float
uniform (guint32 * s, float lo, float hi)
{
  return lo + (hi - lo) * (float) (next (s) >> 8) / 16777216.0f;
}

/* Coefficients as the plan computes them (a = Ix s, b = Iy s, c = It s,
 * s = 1 / sqrt(alpha² + Ix² + Iy²)) from random derivatives, and random
 * increments of a few pixels; the padding of each row holds NaN, which
 * no result may see. */
static void
level_init (level * l, int w, int h, guint32 seed)
{
  size_t n;
  int x, y;

  l->w = w;
  l->h = h;
  l->pitch = w + 3;
  n = (size_t) l->pitch * h;
  l->a = g_new (float, n);
  l->b = g_new (float, n);
  l->c = g_new (float, n);
  l->u = g_new (float, n);
  l->v = g_new (float, n);
  for (y = 0; y < h; y++)
    for (x = 0; x < l->pitch; x++) {
      size_t i = (size_t) y * l->pitch + x;
      if (x < w) {
        float ix = uniform (&seed, -40.0f, 40.0f);
        float iy = uniform (&seed, -40.0f, 40.0f);
        float it = uniform (&seed, -60.0f, 60.0f);
        float s = 1.0f / sqrtf (15.0f * 15.0f + ix * ix + iy * iy);
        l->a[i] = ix * s;
        l->b[i] = iy * s;
        l->c[i] = it * s;
        l->u[i] = uniform (&seed, -3.0f, 3.0f);
        l->v[i] = uniform (&seed, -3.0f, 3.0f);
      } else {
        l->a[i] = l->b[i] = l->c[i] = l->u[i] = l->v[i] = NAN;
      }
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
  tcase_add_test (tc, test_emulation_refuses_bad_arguments);
  return s;
}

GST_CHECK_MAIN (cuda_hs_emu);
