/* gst-cudaflow — the GPU flow engine
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GPU engine is cuda/ calls in a fixed order behind the engine
 * interface, so its output is compared bit for bit with those calls made
 * directly (luma, pyramid built in place, the method's plan, interleaved
 * output; cold and warm started), for each method; its iteration counts
 * with the plan's and the fixed counts. Against the CPU engine on the same
 * frames: the luma range per slot exactly (the GPU luma is bit-exact and
 * the range is taken before presmoothing), the flow within FLOW_MEAN_TOL.
 * Also the zero field, motion statistics of the downloaded field, the
 * refusal of a second kernel or precision, and the argument checks.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "flow-test-util.h"
#include "common/flow-engine.h"
#include "cuda/clg.h"
#include "cuda/flow-engine.h"
#include "cuda/flow.h"
#include "cuda/hs.h"
#include "cuda/luma.h"
#include "cuda/pyramid.h"
#include "cuda/tvl1.h"

/* odd, and three levels with flow_test_small_pyramid */
#define WIDTH 61
#define HEIGHT 47
/* GPU engine against CPU engine: mean |Δflow| in pixels, the bar of every
 * GPU solver against its CPU reference (tests/check/cuda/hs.c, ...) */
#define FLOW_MEAN_TOL 1e-3

static cudaStream_t stream;

static void
setup (void)
{
  stream = cf_test_make_stream ();
}

static void
teardown (void)
{
  cudaStreamDestroy (stream);
}

/* A synthetic pair as packed GRAY8 frames on the host and on the device,
 * and a device buffer for interleaved flow. */
typedef struct
{
  guint8 *host[2];
  guint8 *device[2];
  float *uv_device;
} test_pair;

static void
test_pair_make (test_pair * t, float tx, float ty)
{
  size_t n = WIDTH * HEIGHT;
  int i;

  t->host[0] = g_new (guint8, n);
  t->host[1] = g_new (guint8, n);
  flow_test_gray8_pair (WIDTH, HEIGHT, tx, ty, t->host[0], t->host[1]);
  for (i = 0; i < 2; i++) {
    t->device[i] = NULL;
    CUDA_OK (cudaMalloc ((void **) &t->device[i], n));
    /* on the test's stream, ahead of the work that reads it (a
     * non-blocking stream does not wait for the default stream) */
    CUDA_OK (cudaMemcpyAsync (t->device[i], t->host[i], n,
            cudaMemcpyHostToDevice, stream));
  }
  t->uv_device = NULL;
  CUDA_OK (cudaMalloc ((void **) &t->uv_device,
          2 * sizeof (float) * WIDTH * HEIGHT));
}

static void
test_pair_free (test_pair * t)
{
  int i;

  for (i = 0; i < 2; i++) {
    cudaFree (t->device[i]);
    g_free (t->host[i]);
  }
  cudaFree (t->uv_device);
}

/* The engine's flow, interleaved, on the host (@uv_device: a device
 * buffer of packed rows on the GPU engine, NULL on the CPU one). */
static float *
engine_flow (cf_flow_engine * engine, float *uv_device)
{
  size_t stride = 2 * sizeof (float) * WIDTH;
  float *uv = g_new (float, 2 * WIDTH * HEIGHT);

  if (uv_device == NULL) {
    fail_unless_equals_int (cf_flow_engine_write_flow (engine, uv, stride),
        CF_OK);
    return uv;
  }
  CUDA_OK (cudaMemsetAsync (uv_device, 0xff, stride * HEIGHT, stream));
  fail_unless_equals_int (cf_flow_engine_write_flow (engine, uv_device,
          stride), CF_OK);
  CUDA_OK (cudaMemcpyAsync (uv, uv_device, stride * HEIGHT,
          cudaMemcpyDeviceToHost, stream));
  CUDA_OK (cudaStreamSynchronize (stream));
  return uv;
}

/* What the GPU engine should do, spelled with cuda/ calls directly. */
typedef struct
{
  cf_cuda_pyramid p[2];
  cf_cuda_flow flow;
  cf_cuda_hs_plan *hs;
  cf_cuda_clg_plan *clg;
  cf_cuda_tvl1_plan *tvl1;
} direct_gpu;

static void
direct_load (direct_gpu * d, int slot, guint8 * gray,
    const cf_pyramid_params * pp)
{
  cf_channel ch = flow_test_gray8_channel (gray, WIDTH, HEIGHT);

  fail_unless_equals_int (cf_cuda_luma_from_channel (&ch,
          &d->p[slot].level[0], stream), CF_OK);
  fail_unless_equals_int (cf_cuda_pyramid_build (&d->p[slot], pp, stream),
      CF_OK);
}

static void
direct_solve (direct_gpu * d, const cf_flow_solver * s, int prev, int cur,
    int use_initial, long *iterations)
{
  *iterations = cf_flow_solver_iterations (s, d->p[0].n_levels);
  switch (s->method) {
    case CF_FLOW_METHOD_HS:
      if (d->hs == NULL)
        fail_unless_equals_int (cf_cuda_hs_plan_new (WIDTH, HEIGHT,
                s->precision, (cf_hs_kernel) s->kernel, &d->hs), CF_OK);
      fail_unless_equals_int (cf_cuda_hs_plan_run (d->hs, &d->p[prev],
              &d->p[cur], &s->params.hs, use_initial, &d->flow, stream),
          CF_OK);
      break;
    case CF_FLOW_METHOD_CLG:
      if (d->clg == NULL)
        fail_unless_equals_int (cf_cuda_clg_plan_new (WIDTH, HEIGHT,
                s->precision, (cf_clg_kernel) s->kernel, &d->clg), CF_OK);
      fail_unless_equals_int (cf_cuda_clg_plan_run (d->clg, &d->p[prev],
              &d->p[cur], &s->params.clg, use_initial, &d->flow, stream),
          CF_OK);
      break;
    case CF_FLOW_METHOD_TVL1:
      if (d->tvl1 == NULL)
        fail_unless_equals_int (cf_cuda_tvl1_plan_new (WIDTH, HEIGHT,
                s->precision, (cf_tvl1_kernel) s->kernel, &d->tvl1), CF_OK);
      fail_unless_equals_int (cf_cuda_tvl1_plan_run (d->tvl1, &d->p[prev],
              &d->p[cur], &s->params.tvl1, use_initial, &d->flow, stream),
          CF_OK);
      CUDA_OK (cudaStreamSynchronize (stream));
      *iterations = cf_cuda_tvl1_plan_iterations (d->tvl1);
      break;
  }
}

static float *
direct_flow (direct_gpu * d, float *uv_device)
{
  size_t stride = 2 * sizeof (float) * WIDTH;
  float *uv = g_new (float, 2 * WIDTH * HEIGHT);

  CUDA_OK (cudaMemsetAsync (uv_device, 0xff, stride * HEIGHT, stream));
  fail_unless_equals_int (cf_cuda_flow_to_interleaved (&d->flow, uv_device,
          stride, stream), CF_OK);
  CUDA_OK (cudaMemcpyAsync (uv, uv_device, stride * HEIGHT,
          cudaMemcpyDeviceToHost, stream));
  CUDA_OK (cudaStreamSynchronize (stream));
  return uv;
}

static void
direct_free (direct_gpu * d)
{
  cf_cuda_pyramid_release (&d->p[0]);
  cf_cuda_pyramid_release (&d->p[1]);
  cf_cuda_flow_release (&d->flow);
  cf_cuda_hs_plan_free (d->hs);
  cf_cuda_clg_plan_free (d->clg);
  cf_cuda_tvl1_plan_free (d->tvl1);
}

static const cf_flow_method methods[] = { CF_FLOW_METHOD_HS,
  CF_FLOW_METHOD_CLG, CF_FLOW_METHOD_TVL1
};

static const char *const method_names[] = { "HS", "CLG", "TV-L1" };

GST_START_TEST (test_matches_direct_cuda_calls_bit_for_bit)
{
  size_t bytes = 2 * sizeof (float) * WIDTH * HEIGHT;
  test_pair t;
  guint m;

  test_pair_make (&t, 1.25f, -0.5f);
  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    cf_flow_engine *engine = NULL;
    cf_flow_solver solver;
    cf_flow_pair pair = { 0 };
    cf_pyramid_params pp;
    direct_gpu d;
    float *got, *want;
    long iterations;
    int warm;

    memset (&d, 0, sizeof (d));
    flow_test_solver_init (&solver, methods[m]);
    flow_test_small_pyramid (&pp,
        methods[m] == CF_FLOW_METHOD_HS ? 0.0f : 0.8f);
    fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, HEIGHT, &pp,
            methods[m] == CF_FLOW_METHOD_TVL1, stream, &engine), CF_OK);
    fail_unless_equals_int (engine->n_levels, 3);
    fail_unless_equals_int (cf_cuda_pyramid_alloc (&d.p[0], WIDTH, HEIGHT,
            &pp), CF_OK);
    fail_unless_equals_int (cf_cuda_pyramid_alloc (&d.p[1], WIDTH, HEIGHT,
            &pp), CF_OK);
    fail_unless_equals_int (cf_cuda_flow_alloc (&d.flow, WIDTH, HEIGHT),
        CF_OK);

    /* frame t-1 in slot 1, frame t in slot 0 */
    flow_test_engine_load (engine, 1, t.device[0]);
    flow_test_engine_load (engine, 0, t.device[1]);
    direct_load (&d, 1, t.device[0], &pp);
    direct_load (&d, 0, t.device[1], &pp);
    pair.prev = 1;
    pair.cur = 0;
    pair.want_iterations = 1;
    /* cold, then warm from the flow just computed */
    for (warm = 0; warm < 2; warm++) {
      pair.use_initial = warm;
      fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
          CF_OK);
      direct_solve (&d, &solver, 1, 0, warm, &iterations);
      got = engine_flow (engine, t.uv_device);
      want = direct_flow (&d, t.uv_device);
      fail_unless (memcmp (got, want, bytes) == 0,
          "%s (warm %d): the engine's flow differs from the direct calls'",
          method_names[m], warm);
      fail_unless (pair.iterations == iterations && iterations > 0,
          "%s: %ld iterations reported, %ld run", method_names[m],
          pair.iterations, iterations);
      g_free (got);
      g_free (want);
    }

    /* TV-L1 counts only when asked (a wait for the device) */
    if (methods[m] == CF_FLOW_METHOD_TVL1) {
      pair.want_iterations = 0;
      fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
          CF_OK);
      fail_unless (pair.iterations == -1);
    }
    direct_free (&d);
    cf_flow_engine_free (engine);
  }
  test_pair_free (&t);
}

GST_END_TEST;

/* Mean |Δ| over both components of two interleaved fields. */
static double
mean_abs_difference (const float *a, const float *b)
{
  double sum = 0.0;
  int i;

  for (i = 0; i < 2 * WIDTH * HEIGHT; i++) {
    fail_unless (isfinite (a[i]) && isfinite (b[i]));
    sum += fabs ((double) a[i] - b[i]);
  }
  return sum / (2.0 * WIDTH * HEIGHT);
}

GST_START_TEST (test_matches_cpu_engine)
{
  test_pair t;
  guint m;

  test_pair_make (&t, -0.75f, 1.5f);

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    cf_flow_engine *gpu = NULL, *cpu = NULL;
    cf_flow_solver solver;
    cf_flow_pair pair = { 0 };
    cf_pyramid_params pp;
    float *got, *want, lo[2], hi[2];
    double diff;

    flow_test_solver_init (&solver, methods[m]);
    flow_test_small_pyramid (&pp,
        methods[m] == CF_FLOW_METHOD_HS ? 0.0f : 0.8f);
    fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, HEIGHT, &pp, 1,
            stream, &gpu), CF_OK);
    fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp, 1,
            &cpu), CF_OK);
    flow_test_engine_load (gpu, 0, t.device[0]);
    flow_test_engine_load (gpu, 1, t.device[1]);
    flow_test_engine_load (cpu, 0, t.host[0]);
    flow_test_engine_load (cpu, 1, t.host[1]);
    cf_flow_engine_pair_range (gpu, &lo[0], &hi[0]);
    cf_flow_engine_pair_range (cpu, &lo[1], &hi[1]);
    fail_unless (lo[0] == lo[1] && hi[0] == hi[1],
        "range: GPU %g..%g, CPU %g..%g", lo[0], hi[0], lo[1], hi[1]);
    fail_unless (memcmp (gpu->range, cpu->range, sizeof (gpu->range)) == 0);

    pair.prev = 0;
    pair.cur = 1;
    pair.want_iterations = 1;
    fail_unless_equals_int (cf_flow_engine_solve (gpu, &solver, &pair),
        CF_OK);
    fail_unless_equals_int (cf_flow_engine_solve (cpu, &solver, &pair),
        CF_OK);
    got = engine_flow (gpu, t.uv_device);
    want = engine_flow (cpu, NULL);
    diff = mean_abs_difference (got, want);
    GST_INFO ("%s: mean |GPU - CPU| %.3g px", method_names[m], diff);
    fail_unless (diff <= FLOW_MEAN_TOL, "%s: mean |GPU - CPU| %g px",
        method_names[m], diff);
    g_free (got);
    g_free (want);
    cf_flow_engine_free (gpu);
    cf_flow_engine_free (cpu);
  }
  test_pair_free (&t);
}

GST_END_TEST;

/* The range per slot, reduced by the luma kernels: the CPU engine's in
 * any order of the calls (both slots' luma before either pyramid), from
 * RGB as from a channel; and when a slot's pyramid is built again without
 * a new luma, the range of level 0 as it stands then (presmoothed), as on
 * the CPU: the GPU engine takes it by the min/max reduction there. */
GST_START_TEST (test_range_per_slot_in_any_order)
{
  const size_t n = 3 * WIDTH * HEIGHT;
  test_pair t;
  cf_flow_engine *gpu = NULL, *cpu = NULL;
  cf_pyramid_params pp;
  guint8 *rgb = g_new (guint8, n), *rgb_device = NULL;
  cf_channel ch[2];
  size_t i;
  int slot;

  test_pair_make (&t, 0.5f, -1.0f);
  /* RGB from frame 0's gray and a gradient: a range of its own */
  for (i = 0; i < n; i++)
    rgb[i] = i % 3 == 0 ? t.host[0][i / 3] : (guint8) (i * 7 / n * 3 + 40);
  CUDA_OK (cudaMalloc ((void **) &rgb_device, n));
  CUDA_OK (cudaMemcpyAsync (rgb_device, rgb, n, cudaMemcpyHostToDevice,
          stream));
  flow_test_small_pyramid (&pp, 0.8f);
  fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, HEIGHT, &pp, 1,
          stream, &gpu), CF_OK);
  fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp, 1,
          &cpu), CF_OK);
  ch[0] = flow_test_gray8_channel (t.device[1], WIDTH, HEIGHT);
  ch[1] = flow_test_gray8_channel (t.host[1], WIDTH, HEIGHT);

  /* slot 0 from RGB, slot 1 from gray, both lumas first */
  fail_unless_equals_int (cf_flow_engine_luma_from_rgb (gpu, 0, rgb_device,
          3 * WIDTH, 3, 0, 1, 2), CF_OK);
  fail_unless_equals_int (cf_flow_engine_luma_from_channel (gpu, 1, &ch[0]),
      CF_OK);
  fail_unless_equals_int (cf_flow_engine_luma_from_rgb (cpu, 0, rgb,
          3 * WIDTH, 3, 0, 1, 2), CF_OK);
  fail_unless_equals_int (cf_flow_engine_luma_from_channel (cpu, 1, &ch[1]),
      CF_OK);
  for (slot = 0; slot < 2; slot++) {
    fail_unless_equals_int (cf_flow_engine_build_pyramid (gpu, slot), CF_OK);
    fail_unless_equals_int (cf_flow_engine_build_pyramid (cpu, slot), CF_OK);
  }
  fail_unless (memcmp (gpu->range, cpu->range, sizeof (gpu->range)) == 0,
      "GPU %g..%g, %g..%g; CPU %g..%g, %g..%g", gpu->range[0][0],
      gpu->range[0][1], gpu->range[1][0], gpu->range[1][1],
      cpu->range[0][0], cpu->range[0][1], cpu->range[1][0],
      cpu->range[1][1]);
  fail_if (gpu->range[0][0] == gpu->range[1][0] &&
      gpu->range[0][1] == gpu->range[1][1], "the slots' ranges should differ");

  /* built again from level 0 as the first build left it */
  gpu->range[0][0] = gpu->range[0][1] = -1.0f;
  fail_unless_equals_int (cf_flow_engine_build_pyramid (gpu, 0), CF_OK);
  fail_unless_equals_int (cf_flow_engine_build_pyramid (cpu, 0), CF_OK);
  fail_unless (memcmp (gpu->range, cpu->range, sizeof (gpu->range)) == 0,
      "rebuilt: GPU %g..%g, CPU %g..%g", gpu->range[0][0], gpu->range[0][1],
      cpu->range[0][0], cpu->range[0][1]);

  cf_flow_engine_free (gpu);
  cf_flow_engine_free (cpu);
  cudaFree (rgb_device);
  g_free (rgb);
  test_pair_free (&t);
}

GST_END_TEST;

GST_START_TEST (test_zero_flow_and_motion_of_the_downloaded_field)
{
  cf_flow_engine *engine = NULL;
  cf_flow_solver solver;
  cf_flow_pair pair = { 0 };
  cf_pyramid_params pp;
  test_pair t;
  float *uv;
  cf_flow *flow = cf_flow_new (WIDTH, HEIGHT);
  double mean = -1.0, max = -1.0, want_mean, want_max;
  int i;

  test_pair_make (&t, 1.0f, 0.5f);
  flow_test_small_pyramid (&pp, 0.0f);
  flow_test_solver_init (&solver, CF_FLOW_METHOD_HS);
  fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, HEIGHT, &pp, 0,
          stream, &engine), CF_OK);

  fail_unless_equals_int (cf_flow_engine_zero_flow (engine), CF_OK);
  uv = engine_flow (engine, t.uv_device);
  for (i = 0; i < 2 * WIDTH * HEIGHT; i++)
    fail_unless (uv[i] == 0.0f, "sample %d: %g", i, uv[i]);
  g_free (uv);
  fail_unless_equals_int (cf_flow_engine_motion (engine, &mean, &max), CF_OK);
  fail_unless_equals_float (mean, 0.0);
  fail_unless_equals_float (max, 0.0);

  /* a solved field: motion is cf_flow_motion of what write_flow gives */
  flow_test_engine_load (engine, 0, t.device[0]);
  flow_test_engine_load (engine, 1, t.device[1]);
  pair.prev = 0;
  pair.cur = 1;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_OK);
  fail_unless_equals_int (cf_flow_engine_motion (engine, &mean, &max), CF_OK);
  uv = engine_flow (engine, t.uv_device);
  cf_flow_from_interleaved (flow, uv, 2 * sizeof (float) * WIDTH);
  cf_flow_motion (flow, &want_mean, &want_max);
  fail_unless (mean == want_mean && max == want_max && max > 0.0,
      "motion %g / %g, of the field %g / %g", mean, max, want_mean,
      want_max);
  fail_unless_equals_int (cf_flow_engine_wait (engine), CF_OK);

  g_free (uv);
  cf_flow_free (flow);
  cf_flow_engine_free (engine);
  test_pair_free (&t);
}

GST_END_TEST;

GST_START_TEST (test_plan_is_fixed_by_the_first_solve)
{
  cf_flow_engine *engine = NULL;
  cf_flow_solver solver;
  cf_flow_pair pair = { 0 };
  cf_pyramid_params pp;
  guint8 *d = NULL;

  CUDA_OK (cudaMalloc ((void **) &d, WIDTH * HEIGHT));
  CUDA_OK (cudaMemsetAsync (d, 0, WIDTH * HEIGHT, stream));
  flow_test_small_pyramid (&pp, 0.0f);
  fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, HEIGHT, &pp, 0,
          stream, &engine), CF_OK);
  flow_test_engine_load (engine, 0, d);
  flow_test_engine_load (engine, 1, d);
  pair.prev = 0;
  pair.cur = 1;
  flow_test_solver_init (&solver, CF_FLOW_METHOD_HS);
  solver.kernel = CF_HS_KERNEL_SIMPLE;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_OK);
  solver.kernel = CF_HS_KERNEL_FUSED;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_ERROR_INVALID);
  solver.kernel = CF_HS_KERNEL_SIMPLE;
  solver.precision = CF_PRECISION_FP16;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_ERROR_INVALID);
  flow_test_solver_init (&solver, CF_FLOW_METHOD_CLG);
  solver.kernel = CF_HS_KERNEL_SIMPLE;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_ERROR_INVALID);
  /* the first configuration still runs */
  flow_test_solver_init (&solver, CF_FLOW_METHOD_HS);
  solver.kernel = CF_HS_KERNEL_SIMPLE;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_OK);
  fail_unless_equals_int (cf_flow_engine_wait (engine), CF_OK);
  cf_flow_engine_free (engine);
  cudaFree (d);
}

GST_END_TEST;

GST_START_TEST (test_rejects_bad_arguments)
{
  cf_flow_engine *engine = (cf_flow_engine *) 0x1;
  cf_pyramid_params pp;

  flow_test_small_pyramid (&pp, 0.0f);
  fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, 0, &pp, 1, stream,
          &engine), CF_ERROR_INVALID);
  fail_unless (engine == NULL);
  fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, HEIGHT, NULL, 1,
          stream, &engine), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, HEIGHT, &pp, 1,
          stream, NULL), CF_ERROR_INVALID);
  /* eta outside (0, 1): the pyramid refuses it */
  pp.eta = 1.5f;
  fail_unless_equals_int (cf_cuda_flow_engine_new (WIDTH, HEIGHT, &pp, 1,
          stream, &engine), CF_ERROR_INVALID);
  fail_unless (engine == NULL);

  flow_test_small_pyramid (&pp, 0.0f);
  fail_unless_equals_int (cf_cuda_flow_engine_new (1, 1, &pp, 1, stream,
          &engine), CF_OK);
  fail_unless_equals_string (cf_flow_engine_device (engine), "GPU");
  fail_unless (cf_flow_engine_on_device (engine));
  fail_unless_equals_int (engine->n_levels, 1);
  fail_unless_equals_int (cf_flow_engine_build_pyramid (engine, 2),
      CF_ERROR_INVALID);
  cf_flow_engine_free (engine);
}

GST_END_TEST;

static Suite *
cuda_flow_engine_suite (void)
{
  Suite *s = suite_create ("cuda_flow_engine");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_matches_direct_cuda_calls_bit_for_bit);
  tcase_add_test (tc, test_matches_cpu_engine);
  tcase_add_test (tc, test_range_per_slot_in_any_order);
  tcase_add_test (tc, test_zero_flow_and_motion_of_the_downloaded_field);
  tcase_add_test (tc, test_plan_is_fixed_by_the_first_solve);
  tcase_add_test (tc, test_rejects_bad_arguments);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_flow_engine",
      cuda_flow_engine_suite);
}
