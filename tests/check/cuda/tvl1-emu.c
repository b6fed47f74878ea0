/* gst-cudaflow — TV-L1's iteration kernels' program, on the CPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_cuda_tvl1_emulate () runs the FUSED and BLOCKED kernels' per-thread
 * code (cuda/tvl1-iterate.cuh) on the CPU, block by block and thread by
 * thread. fp32: every BLOCKED shape (T per launch, tile height) and FUSED
 * must give the bits of the CPU reference's cf_tvl1_iteration, run the
 * same number of times on the same constants and state. fp16: BLOCKED
 * must give FUSED's bits, also when the first launch starts from zeros
 * without reading the state (its input is NaN then) and when the last one
 * writes u0 + du. Sizes below, at and across tile boundaries, a pitch
 * wider than the rows, constants with g = 0 (the zero-gradient guard)
 * and pixels on every side of the thresholding's cases. The launch itself
 * (barriers, races, programmatic dependent launch) and the device's fp16
 * arithmetic are the GPU suite's (cuda/tvl1). Runs without a GPU (never
 * skipped).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/tvl1.h"
#include "cuda/tvl1.h"

/* Planes of one warp, every one width x height in a buffer of @pitch
 * floats a row (wider than the rows) */
enum
{
  WX, WY, G, RC, U0X1, U0X2, U0Y1, U0Y2, U01, U02, U1, U2, P11, P12, P21,
  P22, OUT1, OUT2, N_PLANES
};

typedef struct
{
  int w, h;
  size_t pitch;
  float *buf;
} warp_planes;

#define PITCH_PAD 3

static float *
plane_of (const warp_planes * p, int i)
{
  return p->buf + (size_t) i * p->pitch * p->h;
}

static float
uniform (GRand * r, float lo, float hi)
{
  return (float) g_rand_double_range (r, lo, hi);
}

/* Constants as a warp's: ∇I1w in ±30 (0 on some pixels: g = 0, the guard)
 * and g = |∇I1w|² in fp32; ρc in ±40, so the three cases of TH all
 * occur; ∇u0 0 on the last column (x) and row (y) as the plan's; the
 * state in the ranges the iterations keep (|p| <= 1). */
static void
warp_planes_init (warp_planes * p, int w, int h, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  int x, y;

  p->w = w;
  p->h = h;
  p->pitch = (size_t) w + PITCH_PAD;
  p->buf = g_new (float, (size_t) N_PLANES * p->pitch * h);
  for (y = 0; y < h; y++)
    for (x = 0; x < (int) p->pitch; x++) {
      const size_t i = x + (size_t) y * p->pitch;
      const int pad = x >= w;
      const int flat = g_rand_int_range (r, 0, 9) == 0;
      const float gx = flat ? 0.0f : uniform (r, -30.0f, 30.0f);
      const float gy = flat ? 0.0f : uniform (r, -30.0f, 30.0f);
      int k;

      /* the pad columns hold NaN: no result may depend on them */
      for (k = 0; k < N_PLANES; k++)
        plane_of (p, k)[i] = pad ? NAN : 0.0f;
      if (pad)
        continue;
      plane_of (p, WX)[i] = gx;
      plane_of (p, WY)[i] = gy;
      plane_of (p, G)[i] = gx * gx + gy * gy;
      plane_of (p, RC)[i] = uniform (r, -40.0f, 40.0f);
      plane_of (p, U0X1)[i] = x < w - 1 ? uniform (r, -0.5f, 0.5f) : 0.0f;
      plane_of (p, U0X2)[i] = x < w - 1 ? uniform (r, -0.5f, 0.5f) : 0.0f;
      plane_of (p, U0Y1)[i] = y < h - 1 ? uniform (r, -0.5f, 0.5f) : 0.0f;
      plane_of (p, U0Y2)[i] = y < h - 1 ? uniform (r, -0.5f, 0.5f) : 0.0f;
      plane_of (p, U01)[i] = uniform (r, -20.0f, 20.0f);
      plane_of (p, U02)[i] = uniform (r, -20.0f, 20.0f);
      plane_of (p, U1)[i] = uniform (r, -3.0f, 3.0f);
      plane_of (p, U2)[i] = uniform (r, -3.0f, 3.0f);
      plane_of (p, P11)[i] = uniform (r, -0.9f, 0.9f);
      plane_of (p, P12)[i] = uniform (r, -0.9f, 0.9f);
      plane_of (p, P21)[i] = uniform (r, -0.9f, 0.9f);
      plane_of (p, P22)[i] = uniform (r, -0.9f, 0.9f);
      plane_of (p, OUT1)[i] = NAN;
      plane_of (p, OUT2)[i] = NAN;
    }
  g_rand_free (r);
}

static void
warp_planes_copy (warp_planes * dst, const warp_planes * src)
{
  *dst = *src;
  dst->buf = g_memdup2 (src->buf, (size_t) N_PLANES * src->pitch * src->h *
      sizeof (float));
}

static void
warp_planes_clear (warp_planes * p)
{
  g_free (p->buf);
  p->buf = NULL;
}

static cf_cuda_tvl1_emu_warp
emu_view (const warp_planes * p)
{
  cf_cuda_tvl1_emu_warp v;

  memset (&v, 0, sizeof (v));
  v.width = p->w;
  v.height = p->h;
  v.pitch = p->pitch;
  v.i1wx = plane_of (p, WX);
  v.i1wy = plane_of (p, WY);
  v.grad = plane_of (p, G);
  v.rho_c = plane_of (p, RC);
  v.u0x[0] = plane_of (p, U0X1);
  v.u0x[1] = plane_of (p, U0X2);
  v.u0y[0] = plane_of (p, U0Y1);
  v.u0y[1] = plane_of (p, U0Y2);
  v.u0[0] = plane_of (p, U01);
  v.u0[1] = plane_of (p, U02);
  v.u[0] = plane_of (p, U1);
  v.u[1] = plane_of (p, U2);
  v.p1[0] = plane_of (p, P11);
  v.p1[1] = plane_of (p, P12);
  v.p2[0] = plane_of (p, P21);
  v.p2[1] = plane_of (p, P22);
  v.out[0] = plane_of (p, OUT1);
  v.out[1] = plane_of (p, OUT2);
  return v;
}

/* Planes @first.. of @a and @b (pairs, as flows) identical */
static void
assert_pair_identical (const warp_planes * a, const warp_planes * b,
    int first, const char *what)
{
  cf_flow fa, fb;

  fa.width = fb.width = a->w;
  fa.height = fb.height = a->h;
  fa.pitch = fb.pitch = a->pitch;
  fa.owns_data = fb.owns_data = 0;
  fa.u = plane_of (a, first);
  fa.v = plane_of (a, first + 1);
  fb.u = plane_of (b, first);
  fb.v = plane_of (b, first + 1);
  cf_test_assert_flow_identical (&fa, &fb, what);
}

static void
assert_state_identical (const warp_planes * a, const warp_planes * b,
    int with_u, const char *what)
{
  gchar *msg;

  if (with_u) {
    msg = g_strdup_printf ("%s: u", what);
    assert_pair_identical (a, b, U1, msg);
    g_free (msg);
  }
  msg = g_strdup_printf ("%s: p1", what);
  assert_pair_identical (a, b, P11, msg);
  g_free (msg);
  msg = g_strdup_printf ("%s: p2", what);
  assert_pair_identical (a, b, P21, msg);
  g_free (msg);
}

/* @n iterations of the CPU reference on @p's constants and state */
static void
reference_iterations (warp_planes * p, const cf_tvl1_params * params, int n)
{
  cf_tvl1_workspace *ws = cf_tvl1_workspace_new (p->w, p->h);
  cf_flow *u = cf_flow_new (p->w, p->h);
  struct
  {
    float *dst;
    size_t dst_pitch;
    int plane;
  } maps[] = {
    {ws->i1wx.data, ws->i1wx.pitch, WX}, {ws->i1wy.data, ws->i1wy.pitch, WY},
    {ws->grad.data, ws->grad.pitch, G}, {ws->rho_c.data, ws->rho_c.pitch, RC},
    {ws->p1.u, ws->p1.pitch, P11}, {ws->p1.v, ws->p1.pitch, P12},
    {ws->p2.u, ws->p2.pitch, P21}, {ws->p2.v, ws->p2.pitch, P22},
    {u->u, u->pitch, U1}, {u->v, u->pitch, U2},
  };
  guint m;
  int i, y;

  fail_unless (ws != NULL && u != NULL);
  for (m = 0; m < G_N_ELEMENTS (maps); m++)
    for (y = 0; y < p->h; y++)
      memcpy (maps[m].dst + (size_t) y * maps[m].dst_pitch,
          plane_of (p, maps[m].plane) + (size_t) y * p->pitch,
          p->w * sizeof (float));
  for (i = 0; i < n; i++)
    fail_unless_equals_int (cf_tvl1_iteration (ws, params, u, NULL), CF_OK);
  for (m = 4; m < G_N_ELEMENTS (maps); m++)
    for (y = 0; y < p->h; y++)
      memcpy (plane_of (p, maps[m].plane) + (size_t) y * p->pitch,
          maps[m].dst + (size_t) y * maps[m].dst_pitch,
          p->w * sizeof (float));
  cf_flow_free (u);
  cf_tvl1_workspace_free (ws);
}

static cf_status
emulate (warp_planes * p, cf_precision precision, cf_tvl1_kernel kernel,
    int n, int t, int rows, int zero_start, int finish,
    const cf_tvl1_params * params)
{
  cf_cuda_tvl1_emu_warp v = emu_view (p);

  return cf_cuda_tvl1_emulate (&v, precision, kernel, n, t, rows,
      zero_start, finish, params->lambda, params->theta, params->tau);
}

typedef struct
{
  int w, h;
} size2;

/* Below, at and across the 64 x 32 tiles' interiors ((64 − 2T) x
 * (32 − 2T): 60 x 28 is one tile at T = 2), a 16-row and a 64-row grid of
 * several tiles, and single rows and columns */
static const size2 sizes[] = {
  {1, 1}, {2, 3}, {1, 19}, {23, 1}, {37, 23}, {60, 28}, {100, 45},
  {114, 50}, {113, 49}, {150, 90}
};

static const int block_iterations[] = { 1, 2, 3, 5, 8 };
static const int tile_rows[] = { 16, 32, 48, 64 };

GST_START_TEST (test_fp32_kernels_give_the_cpu_bits)
{
  cf_tvl1_params params;
  guint z, a, r;

  cf_tvl1_params_init_ipol (&params);
  for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
    warp_planes start;

    warp_planes_init (&start, sizes[z].w, sizes[z].h, 31u + z);
    for (a = 0; a < G_N_ELEMENTS (block_iterations); a++) {
      const int t = block_iterations[a];
      const int counts[] = { 1, t, t + 1, 2 * t + 3 };
      guint c;

      for (c = 0; c < G_N_ELEMENTS (counts); c++) {
        const int n = counts[c];
        warp_planes ref, fused;
        gchar *what;

        warp_planes_copy (&ref, &start);
        reference_iterations (&ref, &params, n);
        warp_planes_copy (&fused, &start);
        fail_unless_equals_int (emulate (&fused, CF_PRECISION_FP32,
                CF_TVL1_KERNEL_FUSED, n, 0, 0, 0, 0, &params), CF_OK);
        what = g_strdup_printf ("fp32 FUSED, %d iterations vs the CPU", n);
        assert_state_identical (&fused, &ref, 1, what);
        g_free (what);
        warp_planes_clear (&fused);

        for (r = 0; r < G_N_ELEMENTS (tile_rows); r++) {
          warp_planes blocked;

          if (tile_rows[r] - 2 * t < 1)
            continue;
          warp_planes_copy (&blocked, &start);
          fail_unless_equals_int (emulate (&blocked, CF_PRECISION_FP32,
                  CF_TVL1_KERNEL_BLOCKED, n, t, tile_rows[r], 0, 0,
                  &params), CF_OK);
          what = g_strdup_printf ("fp32 BLOCKED T=%d rows=%d, %d iterations "
              "vs the CPU", t, tile_rows[r], n);
          assert_state_identical (&blocked, &ref, 1, what);
          g_free (what);
          warp_planes_clear (&blocked);
        }
        warp_planes_clear (&ref);
      }
    }
    warp_planes_clear (&start);
  }
}

GST_END_TEST;

/* fp16, for one way of starting and ending a warp's iterations */
static void
check_fp16 (int zero_start, int finish)
{
  cf_tvl1_params params;
  guint z, a, r;

  cf_tvl1_params_init_ipol (&params);
  for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
    warp_planes start;

    warp_planes_init (&start, sizes[z].w, sizes[z].h, 71u + z);
    for (a = 0; a < G_N_ELEMENTS (block_iterations); a++) {
      const int t = block_iterations[a];
      const int counts[] = { 1, t + 1, 2 * t + 3 };
      guint c;

      for (c = 0; c < G_N_ELEMENTS (counts); c++) {
        const int n = counts[c];
        warp_planes fused;

        warp_planes_copy (&fused, &start);
        fail_unless_equals_int (emulate (&fused, CF_PRECISION_FP16,
                CF_TVL1_KERNEL_FUSED, n, 0, 0, zero_start, finish, &params),
            CF_OK);
        for (r = 0; r < G_N_ELEMENTS (tile_rows); r++) {
          warp_planes blocked;
          gchar *what;
          int y, x, k;

          if (tile_rows[r] - 2 * t < 1)
            continue;
          warp_planes_copy (&blocked, &start);
          /* a zero start must not read the state */
          if (zero_start)
            for (k = U1; k <= P22; k++)
              for (y = 0; y < blocked.h; y++)
                for (x = 0; x < blocked.w; x++)
                  plane_of (&blocked, k)[x + (size_t) y * blocked.pitch] =
                      NAN;
          fail_unless_equals_int (emulate (&blocked, CF_PRECISION_FP16,
                  CF_TVL1_KERNEL_BLOCKED, n, t, tile_rows[r], zero_start,
                  finish, &params), CF_OK);
          what = g_strdup_printf ("fp16 BLOCKED T=%d rows=%d, %d iterations"
              "%s%s vs FUSED", t, tile_rows[r], n,
              zero_start ? ", from zeros" : "", finish ? ", u0 + du" : "");
          assert_state_identical (&blocked, &fused, !finish, what);
          if (finish)
            assert_pair_identical (&blocked, &fused, OUT1, what);
          g_free (what);
          warp_planes_clear (&blocked);
        }
        warp_planes_clear (&fused);
      }
    }
    warp_planes_clear (&start);
  }
}

GST_START_TEST (test_fp16_blocked_gives_fused_bits)
{
  check_fp16 (0, 0);
}

GST_END_TEST;

GST_START_TEST (test_fp16_blocked_warp_ends_give_fused_bits)
{
  check_fp16 (1, 1);
  check_fp16 (1, 0);
}

GST_END_TEST;

/* The iterations move the state (a test of equal results must not pass
 * on a program that does nothing), and the finish is u0 + du */
GST_START_TEST (test_emulation_moves_the_state)
{
  cf_tvl1_params params;
  warp_planes start, fp32, fp16;
  double moved32 = 0.0, moved16 = 0.0;
  int x, y;

  cf_tvl1_params_init_ipol (&params);
  warp_planes_init (&start, 70, 40, 5u);
  warp_planes_copy (&fp32, &start);
  warp_planes_copy (&fp16, &start);
  fail_unless_equals_int (emulate (&fp32, CF_PRECISION_FP32,
          CF_TVL1_KERNEL_BLOCKED, 10, 5, 32, 0, 0, &params), CF_OK);
  fail_unless_equals_int (emulate (&fp16, CF_PRECISION_FP16,
          CF_TVL1_KERNEL_BLOCKED, 10, 5, 32, 1, 1, &params), CF_OK);
  for (y = 0; y < start.h; y++)
    for (x = 0; x < start.w; x++) {
      const size_t i = x + (size_t) y * start.pitch;
      const float d1 = plane_of (&fp16, OUT1)[i] - plane_of (&start, U01)[i];

      moved32 += fabsf (plane_of (&fp32, U1)[i] - plane_of (&start, U1)[i]);
      moved16 += fabsf (d1);
      fail_unless (isfinite (d1), "fp16 finish at (%d, %d): u0 + du - u0 "
          "= %g", x, y, d1);
    }
  fail_unless (moved32 / (start.w * start.h) > 0.01,
      "fp32: mean |u - u_start| %g", moved32 / (start.w * start.h));
  fail_unless (moved16 / (start.w * start.h) > 0.01,
      "fp16: mean |du| %g", moved16 / (start.w * start.h));
  warp_planes_clear (&start);
  warp_planes_clear (&fp32);
  warp_planes_clear (&fp16);
}

GST_END_TEST;

GST_START_TEST (test_emulation_refuses_bad_arguments)
{
  /* STEPS has no per-thread program; T and the tile height as the plan
   * takes them; the warp's ends are fp16's */
  static const struct
  {
    cf_precision precision;
    cf_tvl1_kernel kernel;
    int t, rows, zero_start, finish;
  } bad[] = {
    {CF_PRECISION_FP32, CF_TVL1_KERNEL_STEPS, 0, 0, 0, 0},
    {CF_PRECISION_FP32, CF_TVL1_KERNEL_BLOCKED, 9, 32, 0, 0},
    {CF_PRECISION_FP32, CF_TVL1_KERNEL_BLOCKED, 8, 16, 0, 0},
    {CF_PRECISION_FP32, CF_TVL1_KERNEL_BLOCKED, 4, 40, 0, 0},
    {CF_PRECISION_FP32, CF_TVL1_KERNEL_BLOCKED, 4, 32, 1, 0},
    {CF_PRECISION_FP32, CF_TVL1_KERNEL_FUSED, 0, 0, 0, 1},
  };
  warp_planes p;
  cf_cuda_tvl1_emu_warp v;
  guint i;

  warp_planes_init (&p, 10, 10, 1u);
  v = emu_view (&p);
  fail_unless_equals_int (cf_cuda_tvl1_emulate (NULL, CF_PRECISION_FP32,
          CF_TVL1_KERNEL_FUSED, 1, 0, 0, 0, 0, 0.15f, 0.3f, 0.25f),
      CF_ERROR_INVALID);
  for (i = 0; i < G_N_ELEMENTS (bad); i++)
    fail_unless (cf_cuda_tvl1_emulate (&v, bad[i].precision, bad[i].kernel,
            1, bad[i].t, bad[i].rows, bad[i].zero_start, bad[i].finish,
            0.15f, 0.3f, 0.25f) == CF_ERROR_INVALID, "case %u accepted", i);
  /* the finish needs u0 and out; the pitch holds a row */
  v.out[1] = NULL;
  fail_unless_equals_int (cf_cuda_tvl1_emulate (&v, CF_PRECISION_FP16,
          CF_TVL1_KERNEL_BLOCKED, 1, 4, 32, 0, 1, 0.15f, 0.3f, 0.25f),
      CF_ERROR_INVALID);
  v = emu_view (&p);
  v.pitch = 9;
  fail_unless_equals_int (cf_cuda_tvl1_emulate (&v, CF_PRECISION_FP32,
          CF_TVL1_KERNEL_FUSED, 1, 0, 0, 0, 0, 0.15f, 0.3f, 0.25f),
      CF_ERROR_INVALID);
  /* and the same view with a good pitch runs */
  v.pitch = p.pitch;
  fail_unless_equals_int (cf_cuda_tvl1_emulate (&v, CF_PRECISION_FP32,
          CF_TVL1_KERNEL_FUSED, 1, 0, 0, 0, 0, 0.15f, 0.3f, 0.25f), CF_OK);
  warp_planes_clear (&p);
}

GST_END_TEST;

/* The heights tools check a --rows value against are the ones the
 * emulation (and the plans) run: every one the suite emulates, nothing
 * else. */
GST_START_TEST (test_tile_rows_valid_are_the_emulated_heights)
{
  static const int others[] = { -16, 0, 1, 8, 24, 40, 63, 65, 96, 128 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (tile_rows); i++)
    fail_unless (cf_cuda_tvl1_tile_rows_valid (tile_rows[i]),
        "%d rows refused", tile_rows[i]);
  for (i = 0; i < G_N_ELEMENTS (others); i++)
    fail_if (cf_cuda_tvl1_tile_rows_valid (others[i]), "%d rows accepted",
        others[i]);
}

GST_END_TEST;

static Suite *
cuda_tvl1_emu_suite (void)
{
  Suite *s = suite_create ("cuda_tvl1_emu");
  TCase *tc = tcase_create ("iteration-kernels-program");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_fp32_kernels_give_the_cpu_bits);
  tcase_add_test (tc, test_fp16_blocked_gives_fused_bits);
  tcase_add_test (tc, test_fp16_blocked_warp_ends_give_fused_bits);
  tcase_add_test (tc, test_emulation_moves_the_state);
  tcase_add_test (tc, test_emulation_refuses_bad_arguments);
  tcase_add_test (tc, test_tile_rows_valid_are_the_emulated_heights);
  return s;
}

GST_CHECK_MAIN (cuda_tvl1_emu);
