/* gst-cudaflow — GPU time per frame and per stage of the flow methods
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gst-cudaflow-flow-bench [--sizes WxH,...] [--frames N]
 *       [--config NAME,...] [--clg-depth K,...] [--json FILE]
 *       [--markdown FILE]
 *
 * Runs the same sequence of calls as the flow elements' GPU path on one
 * stream, frame after frame, with the previous frame's pyramid kept:
 *   luma     8-bit frame (device memory) -> float level 0
 *   pyramid  Gaussian anti-alias + decimation of the new frame
 *   solve    the method on (previous, current) pyramids
 *   output   planar flow -> interleaved UV_F32LE (device memory)
 * Each stage is bracketed by CUDA events; the numbers are medians over
 * --frames frames after 3 warm-up frames. Allocation happens once, before
 * timing, as in the elements (plans live until caps change).
 *
 * "solve" is split further by timing a second plan with the same settings
 * and zero iterations (HS, CLG) or one (TV-L1, whose count is >= 1; its
 * per-iteration time is then taken out): that is the work around the
 * iterations (warps, derivatives or structure tensor, increments, flow
 * upsampling); the rest is the iterations themselves. Over the
 * pixel-iterations they make (pixels of each level times warps times
 * iterations), they give "ns/px-it" and a bandwidth figure from the
 * unfused fp32 traffic models of docs/flow-speed.md: 28
 * bytes per pixel per HS sweep, 36 per CLG sweep, 64 per fused TV-L1
 * iteration — above the device's bandwidth it shows DRAM traffic that
 * shared-memory fusion avoids. With TV-L1's epsilon > 0 the iteration
 * count depends on the data; the "iterations" column gives it and the
 * per-iteration figures are left out.
 *
 * --clg-depth K,... runs every fused CLG configuration once per FUSED
 * depth K (3 .. 8, 0 = the plan's default; cf_cuda_clg_plan_set_fused_depth) and
 * adds a table of depth against ms per frame and per Jacobi sweep (the
 * iterations' time over the sweeps of all levels).
 *
 * Frames are synthetic (common/synth: band-limited texture, smooth motion),
 * the same pair alternating, so every frame does the full work.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "args-util.h"
#include "bench-util.h"
#include "common/clg.h"
#include "common/hs.h"
#include "common/synth.h"
#include "common/tvl1.h"
#include "cuda/clg.h"
#include "cuda/flow.h"
#include "cuda/hs.h"
#include "cuda/luma.h"
#include "cuda/pyramid.h"
#include "cuda/tvl1.h"

#define PROG "gst-cudaflow-flow-bench"
#define MAX_SIZES 16
#define MAX_DEPTHS 16
#define WARMUP_FRAMES 3
#define CHECK(call) do { cf_status s_ = (call); if (s_ != CF_OK) { \
  fprintf (stderr, PROG ": %s failed: %s (%s)\n", #call, \
      cf_status_name (s_), cf_cuda_last_error_name ()); exit (1); } } while (0)
#define CHECK_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf (stderr, PROG ": %s failed: %s\n", #call, \
      cudaGetErrorString (e_)); exit (1); } } while (0)

typedef enum
{ METHOD_HS, METHOD_TVL1, METHOD_CLG } bench_method;

/* fp32 bytes per pixel and iteration (docs/flow-speed.md) */
static const double bytes_per_px_it[] = { 28.0, 64.0, 36.0 };

typedef struct
{
  const char *name;
  const char *description;
  bench_method method;
  int levels;
  int warps;
  int iterations;               /* per level and warp (TV-L1: the cap) */
  float alpha;                  /* HS, CLG */
  cf_precision precision;
  int kernel;                   /* cf_hs_kernel, cf_tvl1_kernel, cf_clg_kernel */
  float epsilon;                /* TV-L1 */
  const char *per_level;        /* CLG iterations-per-level, or NULL */
} bench_config;

/* alpha on 0..255 intensities: 51 = cuda-samples' 0.2 on [0, 1]. */
static const bench_config configs[] = {
  {"hs-cuda-samples", "cudaflowhs preset=cuda-samples (5 levels x 3 warps "
        "x 500 iterations, fused Jacobi)", METHOD_HS, 5, 3, 500, 51.0f,
      CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, 0, NULL},
  {"hs-cuda-samples-fp16", "the same, precision=fp16", METHOD_HS, 5, 3, 500,
      51.0f, CF_PRECISION_FP16, CF_HS_KERNEL_AUTO, 0, NULL},
  {"hs-cuda-samples-simple", "the same, jacobi-kernel=simple (one sweep "
        "per launch)", METHOD_HS, 5, 3, 500, 51.0f, CF_PRECISION_FP32,
      CF_HS_KERNEL_SIMPLE, 0, NULL},
  {"hs-default", "cudaflowhs defaults (5 levels x 1 warp x 500 "
        "iterations)", METHOD_HS, 5, 1, 500, 15.0f, CF_PRECISION_FP32,
      CF_HS_KERNEL_AUTO, 0, NULL},
  {"hs-realtime", "cudaflowhs preset=realtime (3 levels x 1 warp x 10 "
        "iterations, Romera's thesis)", METHOD_HS, 3, 1, 10, 15.0f,
      CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, 0, NULL},
  {"hs-realtime-fp16", "the same, precision=fp16", METHOD_HS, 3, 1, 10,
      15.0f, CF_PRECISION_FP16, CF_HS_KERNEL_AUTO, 0, NULL},
  {"tvl1-ipol", "cudaflowtvl1 defaults = preset=ipol (5 levels x 5 warps x "
        "up to 300 iterations, epsilon 0.01)", METHOD_TVL1, 5, 5, 300, 0,
      CF_PRECISION_FP32, CF_TVL1_KERNEL_AUTO, 0.01f, NULL},
  {"tvl1-realtime", "cudaflowtvl1 preset=realtime (3 levels x 1 warp x 10 "
        "iterations)", METHOD_TVL1, 3, 1, 10, 0, CF_PRECISION_FP32,
      CF_TVL1_KERNEL_AUTO, 0.0f, NULL},
  {"tvl1-ipol-fp16", "the same as tvl1-ipol, precision=fp16", METHOD_TVL1,
      5, 5, 300, 0, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, 0.01f, NULL},
  {"tvl1-realtime-fp16", "the same as tvl1-realtime, precision=fp16",
      METHOD_TVL1, 3, 1, 10, 0, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, 0.0f,
      NULL},
  {"tvl1-realtime-steps", "the same, solver-kernel=steps (one kernel per "
        "step)", METHOD_TVL1, 3, 1, 10, 0, CF_PRECISION_FP32,
      CF_TVL1_KERNEL_STEPS, 0.0f, NULL},
  {"tvl1-fixed-100", "cudaflowtvl1 3 levels x 1 warp x 100 iterations "
        "(per-iteration cost)", METHOD_TVL1, 3, 1, 100, 0, CF_PRECISION_FP32,
      CF_TVL1_KERNEL_AUTO, 0.0f, NULL},
  {"tvl1-fixed-100-fp16", "the same as tvl1-fixed-100, precision=fp16",
      METHOD_TVL1, 3, 1, 100, 0, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, 0.0f,
      NULL},
  {"clg-config-b", "cudaflowclg preset=config-b (4 levels, 60,120,180,240 "
        "sweeps)", METHOD_CLG, 4, 1, 0, 50.0f, CF_PRECISION_FP32,
      CF_CLG_KERNEL_AUTO, 0, "60,120,180,240"},
  {"clg-config-b-fp16", "the same as clg-config-b, precision=fp16",
      METHOD_CLG, 4, 1, 0, 50.0f, CF_PRECISION_FP16, CF_CLG_KERNEL_AUTO, 0,
      "60,120,180,240"},
  {"clg-config-b-simple", "the same, jacobi-kernel=simple", METHOD_CLG, 4, 1,
      0, 50.0f, CF_PRECISION_FP32, CF_CLG_KERNEL_SIMPLE, 0, "60,120,180,240"},
  {"clg-config-a", "cudaflowclg preset=config-a (4 levels x 75 sweeps)",
      METHOD_CLG, 4, 1, 75, 50.0f, CF_PRECISION_FP32, CF_CLG_KERNEL_AUTO, 0,
      NULL},
};

#define N_CONFIGS ((int) (sizeof (configs) / sizeof (configs[0])))

enum
{ STAGE_LUMA, STAGE_PYRAMID, STAGE_SOLVE, STAGE_OUTPUT, N_STAGES };
static const char *stage_names[N_STAGES] =
    { "luma", "pyramid", "solve", "output" };

typedef struct
{
  const bench_config *config;
  int width, height;
  int clg_depth;                /* FUSED depth asked for (0 = default) */
  int n_levels;
  long sweeps;                  /* iterations of all levels and warps */
  double stage_ms[N_STAGES];    /* medians */
  double frame_ms;              /* median of the frame's total */
  double around_sweeps_ms;      /* solve without the iterations */
  double sweeps_ms;             /* the iterations */
  double cells_swept;           /* pixel-iterations per frame, all levels;
                                 * 0 when data-dependent */
  double ns_per_px_it;
  double gbps;
  long iterations;              /* TV-L1: iterations run, all levels/warps */
} bench_result;

/* One solver of any method, behind one interface. */
typedef struct
{
  const bench_config *config;
  cf_cuda_hs_plan *hs;
  cf_cuda_tvl1_plan *tvl1;
  cf_cuda_clg_plan *clg;
  cf_hs_params hs_params;
  cf_tvl1_params tvl1_params;
  cf_clg_params clg_params;
} solver;

/* @baseline: the solver without its iterations (run_one) */
static void
solver_init (solver * sv, const bench_config * c, int width, int height,
    int clg_depth, int baseline)
{
  int iterations = baseline ? (c->method == METHOD_TVL1 ? 1 : 0) :
      c->iterations;

  memset (sv, 0, sizeof (*sv));
  sv->config = c;
  switch (c->method) {
    case METHOD_HS:
      cf_hs_params_init (&sv->hs_params);
      sv->hs_params.alpha = c->alpha;
      sv->hs_params.warps = c->warps;
      sv->hs_params.iterations = iterations;
      CHECK (cf_cuda_hs_plan_new (width, height, c->precision,
              (cf_hs_kernel) c->kernel, &sv->hs));
      break;
    case METHOD_TVL1:
      cf_tvl1_params_init (&sv->tvl1_params);
      sv->tvl1_params.warps = c->warps;
      sv->tvl1_params.max_iterations = iterations;
      sv->tvl1_params.epsilon = c->epsilon;
      CHECK (cf_cuda_tvl1_plan_new (width, height, c->precision,
              (cf_tvl1_kernel) c->kernel, &sv->tvl1));
      break;
    case METHOD_CLG:
      cf_clg_params_init (&sv->clg_params);
      sv->clg_params.alpha = c->alpha;
      sv->clg_params.iterations = iterations;
      if (c->per_level && !baseline)
        CHECK (cf_clg_parse_iterations_per_level (&sv->clg_params,
                c->per_level, NULL));
      CHECK (cf_cuda_clg_plan_new (width, height, c->precision,
              (cf_clg_kernel) c->kernel, &sv->clg));
      CHECK (cf_cuda_clg_plan_set_fused_depth (sv->clg, clg_depth));
      break;
  }
}

static void
solver_run (solver * sv, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, cf_cuda_flow * flow, cudaStream_t stream)
{
  switch (sv->config->method) {
    case METHOD_HS:
      CHECK (cf_cuda_hs_plan_run (sv->hs, p0, p1, &sv->hs_params, 0, flow,
              stream));
      break;
    case METHOD_TVL1:
      CHECK (cf_cuda_tvl1_plan_run (sv->tvl1, p0, p1, &sv->tvl1_params, 0,
              flow, stream));
      break;
    case METHOD_CLG:
      CHECK (cf_cuda_clg_plan_run (sv->clg, p0, p1, &sv->clg_params, 0, flow,
              stream));
      break;
  }
}

static void
solver_free (solver * sv)
{
  if (sv->hs)
    cf_cuda_hs_plan_free (sv->hs);
  if (sv->tvl1)
    cf_cuda_tvl1_plan_free (sv->tvl1);
  if (sv->clg)
    cf_cuda_clg_plan_free (sv->clg);
}

/* Pyramid presmoothing of each method, as its element asks the base. */
static float
method_presmooth (const bench_config * c)
{
  if (c->method == METHOD_TVL1) {
    cf_tvl1_params t;
    cf_tvl1_params_init (&t);
    return t.presmooth_sigma;
  }
  return 0.0f;
}

/* Iterations on pyramid level @l (CLG lists are finest first). */
static int
level_iterations (const bench_config * c, int l)
{
  if (c->method == METHOD_CLG && c->per_level) {
    cf_clg_params p;
    cf_clg_params_init (&p);
    if (cf_clg_parse_iterations_per_level (&p, c->per_level, NULL) == CF_OK)
      return cf_clg_level_iterations (&p, l);
  }
  return c->iterations;
}

/* An 8-bit device frame holding @image rounded. */
static uint8_t *
upload_grey8 (const cf_image * image, size_t *pitch)
{
  size_t n = (size_t) image->width * image->height;
  uint8_t *host = malloc (n), *dev = NULL;
  int x, y;

  for (y = 0; y < image->height; y++)
    for (x = 0; x < image->width; x++) {
      float v = cf_image_row (image, y)[x] + 0.5f;
      host[(size_t) y * image->width + x] =
          (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
    }
  CHECK_CUDA (cudaMallocPitch ((void **) &dev, pitch, image->width,
          image->height));
  CHECK_CUDA (cudaMemcpy2D (dev, *pitch, host, image->width, image->width,
          image->height, cudaMemcpyHostToDevice));
  free (host);
  return dev;
}

/* Median solve time of @plan over @frames runs (stream idle around). */
static double
time_solve_only (solver * sv, cf_cuda_pyramid * p0, cf_cuda_pyramid * p1,
    cf_cuda_flow * flow, int frames, cudaStream_t stream)
{
  cudaEvent_t a, b;
  double *t = calloc (frames, sizeof (double));
  double m;
  int i;

  CHECK_CUDA (cudaEventCreate (&a));
  CHECK_CUDA (cudaEventCreate (&b));
  for (i = -WARMUP_FRAMES; i < frames; i++) {
    float ms;
    CHECK_CUDA (cudaEventRecord (a, stream));
    solver_run (sv, p0, p1, flow, stream);
    CHECK_CUDA (cudaEventRecord (b, stream));
    CHECK_CUDA (cudaEventSynchronize (b));
    CHECK_CUDA (cudaEventElapsedTime (&ms, a, b));
    if (i >= 0)
      t[i] = ms;
  }
  m = cf_bench_median (t, frames);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  free (t);
  return m;
}

static void
run_one (const bench_config * c, int width, int height, int clg_depth,
    int frames, bench_result * r)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL;
  uint8_t *dev_frame[2];
  size_t frame_pitch[2];
  cf_pyramid_params pp;
  cf_cuda_pyramid pyr[2];
  cf_cuda_flow flow;
  solver sv, sv0;
  float *uv = NULL, *range_scratch = NULL, *range_host = NULL;
  cudaEvent_t range_done;
  size_t uv_pitch;
  cudaStream_t stream;
  cudaEvent_t ev[N_STAGES + 1];
  double *t[N_STAGES + 1];
  int i, s, l, cur = 0;

  memset (r, 0, sizeof (*r));
  r->config = c;
  r->width = width;
  r->height = height;
  r->clg_depth = clg_depth;

  cf_synth_params_init (&sp);
  CHECK (cf_synth_pair (width, height, &sp, &f0, &f1, &truth));
  dev_frame[0] = upload_grey8 (f0, &frame_pitch[0]);
  dev_frame[1] = upload_grey8 (f1, &frame_pitch[1]);

  cf_pyramid_params_init (&pp);
  pp.max_levels = c->levels;
  pp.presmooth_sigma = method_presmooth (c);
  memset (pyr, 0, sizeof (pyr));
  CHECK (cf_cuda_pyramid_alloc (&pyr[0], width, height, &pp));
  CHECK (cf_cuda_pyramid_alloc (&pyr[1], width, height, &pp));
  r->n_levels = pyr[0].n_levels;
  CHECK (cf_cuda_flow_alloc (&flow, width, height));
  CHECK_CUDA (cudaMallocPitch ((void **) &uv, &uv_pitch,
          (size_t) width * 2 * sizeof (float), height));
  CHECK_CUDA (cudaMalloc ((void **) &range_scratch,
          CF_CUDA_MIN_MAX_SCRATCH * sizeof (float)));
  CHECK_CUDA (cudaMallocHost ((void **) &range_host, 2 * sizeof (float)));
  CHECK_CUDA (cudaEventCreateWithFlags (&range_done,
          cudaEventDisableTiming));
  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));

  /* the full solver, and one without the iterations (TV-L1: one) */
  solver_init (&sv, c, width, height, clg_depth, 0);
  solver_init (&sv0, c, width, height, clg_depth, 1);

  for (s = 0; s <= N_STAGES; s++) {
    CHECK_CUDA (cudaEventCreate (&ev[s]));
    t[s] = calloc (frames, sizeof (double));
  }

  /* The element's loop: frame k becomes the current pyramid, (k-1) the
   * previous one; the first frame only fills its pyramid. */
  for (i = -WARMUP_FRAMES - 1; i < frames; i++) {
    cf_channel ch = { dev_frame[cur], width, height,
      (ptrdiff_t) frame_pitch[cur], 1, 8
    };
    cf_cuda_pyramid *now = &pyr[cur], *before = &pyr[1 - cur];

    CHECK_CUDA (cudaEventRecord (ev[0], stream));
    CHECK (cf_cuda_luma_from_channel (&ch, &now->level[0], stream));
    if (c->method == METHOD_TVL1) {
      /* the element's normalisation range: queued here, waited for once
       * the pyramid is queued (the solver's λ needs it) */
      CHECK (cf_cuda_image_min_max_async (&now->level[0], range_scratch,
              range_host, stream));
      CHECK_CUDA (cudaEventRecord (range_done, stream));
    }
    CHECK_CUDA (cudaEventRecord (ev[1], stream));
    CHECK (cf_cuda_pyramid_build (now, &pp, stream));
    CHECK_CUDA (cudaEventRecord (ev[2], stream));
    if (c->method == METHOD_TVL1)
      CHECK_CUDA (cudaEventSynchronize (range_done));
    if (i > -WARMUP_FRAMES - 1)
      solver_run (&sv, before, now, &flow, stream);
    CHECK_CUDA (cudaEventRecord (ev[3], stream));
    CHECK (cf_cuda_flow_to_interleaved (&flow, uv, uv_pitch, stream));
    CHECK_CUDA (cudaEventRecord (ev[4], stream));
    CHECK_CUDA (cudaEventSynchronize (ev[4]));
    if (i >= 0) {
      float ms;
      for (s = 0; s < N_STAGES; s++) {
        CHECK_CUDA (cudaEventElapsedTime (&ms, ev[s], ev[s + 1]));
        t[s][i] = ms;
      }
      CHECK_CUDA (cudaEventElapsedTime (&ms, ev[0], ev[N_STAGES]));
      t[N_STAGES][i] = ms;
    }
    cur = 1 - cur;
  }
  for (s = 0; s < N_STAGES; s++)
    r->stage_ms[s] = cf_bench_median (t[s], frames);
  r->frame_ms = cf_bench_median (t[N_STAGES], frames);

  if (c->method == METHOD_TVL1)
    r->iterations = cf_cuda_tvl1_plan_iterations (sv.tvl1);
  r->around_sweeps_ms = time_solve_only (&sv0, &pyr[1 - cur], &pyr[cur],
      &flow, frames, stream);
  r->sweeps_ms = r->stage_ms[STAGE_SOLVE] - r->around_sweeps_ms;
  if (c->method != METHOD_TVL1 || c->epsilon == 0.0f) {
    for (l = 0; l < r->n_levels; l++) {
      r->cells_swept += (double) pyr[0].level[l].width *
          pyr[0].level[l].height * c->warps * level_iterations (c, l);
      r->sweeps += (long) c->warps * level_iterations (c, l);
    }
    if (c->method == METHOD_TVL1 && c->iterations > 1) {
      /* the one-iteration solve still holds one iteration */
      double per_it = r->sweeps_ms / (c->iterations - 1);
      r->around_sweeps_ms -= per_it;
      r->sweeps_ms += per_it;
    }
    /* a difference of two medians can come out <= 0 when the iterations
     * are a vanishing part of the solve: no per-iteration figures then */
    if (r->sweeps_ms > 0 && r->cells_swept > 0) {
      r->ns_per_px_it = r->sweeps_ms * 1e6 / r->cells_swept;
      r->gbps = r->cells_swept * bytes_per_px_it[c->method] /
          (r->sweeps_ms * 1e-3) / 1e9;
    }
  } else {
    /* data-dependent count: no per-iteration figures */
    r->around_sweeps_ms = r->sweeps_ms = 0;
  }

  for (s = 0; s <= N_STAGES; s++) {
    cudaEventDestroy (ev[s]);
    free (t[s]);
  }
  solver_free (&sv);
  solver_free (&sv0);
  cudaStreamDestroy (stream);
  cudaFree (uv);
  cudaFree (range_scratch);
  cudaFreeHost (range_host);
  cudaEventDestroy (range_done);
  cf_cuda_flow_release (&flow);
  cf_cuda_pyramid_release (&pyr[0]);
  cf_cuda_pyramid_release (&pyr[1]);
  cudaFree (dev_frame[0]);
  cudaFree (dev_frame[1]);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
}

static void
write_json (FILE * f, const char *device, const bench_result * r, int n,
    int frames)
{
  int i, s;

  fprintf (f, "{\n  \"device\": \"%s\",\n  \"frames\": %d,\n"
      "  \"results\": [\n", device, frames);
  for (i = 0; i < n; i++) {
    fprintf (f, "    {\"config\": \"%s\", \"width\": %d, \"height\": %d, "
        "\"levels\": %d, \"frame_ms\": %.4f", r[i].config->name, r[i].width,
        r[i].height, r[i].n_levels, r[i].frame_ms);
    if (r[i].config->method == METHOD_CLG)
      fprintf (f, ", \"clg_fused_depth\": %d", r[i].clg_depth);
    for (s = 0; s < N_STAGES; s++)
      fprintf (f, ", \"%s_ms\": %.4f", stage_names[s], r[i].stage_ms[s]);
    fprintf (f, ", \"iterations_ms\": %.4f, \"around_iterations_ms\": "
        "%.4f, \"pixel_iterations\": %.0f, \"ns_per_pixel_iteration\": "
        "%.5f, \"gbps_fp32_model\": %.1f, \"tvl1_iterations_run\": %ld}%s\n",
        r[i].sweeps_ms, r[i].around_sweeps_ms, r[i].cells_swept,
        r[i].ns_per_px_it, r[i].gbps, r[i].iterations, i + 1 < n ? "," : "");
  }
  fprintf (f, "  ]\n}\n");
}

/* "1920x1080", or "1920x1080 K=5" for a CLG run at an explicit depth */
static const char *
size_label (const bench_result * x, char *buf, size_t len)
{
  if (x->config->method == METHOD_CLG && x->clg_depth > 0)
    snprintf (buf, len, "%dx%d K=%d", x->width, x->height, x->clg_depth);
  else
    snprintf (buf, len, "%dx%d", x->width, x->height);
  return buf;
}

/* Depth against time for the CLG runs at explicit depths (--clg-depth). */
static void
write_depth_table (FILE * f, const bench_result * r, int n)
{
  int i, any = 0;

  for (i = 0; i < n; i++)
    if (r[i].config->method == METHOD_CLG && r[i].clg_depth > 0)
      any = 1;
  if (!any)
    return;
  fprintf (f, "### CLG fused depth\n\n"
      "| config | size | depth K | frame ms | solve ms | sweeps ms | "
      "µs per sweep (mean of all levels) | ns/px-it |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (i = 0; i < n; i++) {
    const bench_result *x = &r[i];
    if (x->config->method != METHOD_CLG || x->clg_depth <= 0)
      continue;
    fprintf (f, "| %s | %dx%d | %d | %.3f | %.3f | %.3f | %.2f | %.4f |\n",
        x->config->name, x->width, x->height, x->clg_depth, x->frame_ms,
        x->stage_ms[STAGE_SOLVE], x->sweeps_ms,
        x->sweeps > 0 ? 1e3 * x->sweeps_ms / x->sweeps : 0.0,
        x->ns_per_px_it);
  }
  fprintf (f, "\n");
}

static void
write_markdown (FILE * f, const char *device, const bench_result * r, int n,
    int frames)
{
  int i, c;
  char label[64];

  fprintf (f, "Device: %s. Medians of %d frames after %d warm-up frames, "
      "CUDA events on one stream.\n\n", device, frames, WARMUP_FRAMES);
  for (c = 0; c < N_CONFIGS; c++) {
    int any = 0;
    for (i = 0; i < n; i++)
      if (r[i].config == &configs[c])
        any = 1;
    if (!any)
      continue;
    fprintf (f, "### %s\n\n%s\n\n", configs[c].name, configs[c].description);
    fprintf (f, "| size | frame ms | luma | pyramid | solve: iterations | "
        "solve: around them | output | ns/px-it | GB/s (fp32 model) | "
        "iterations run |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < n; i++) {
      const bench_result *x = &r[i];
      double total = x->frame_ms > 0 ? x->frame_ms : 1;
      if (x->config != &configs[c])
        continue;
      if (x->cells_swept > 0)
        fprintf (f, "| %s | %.3f | %.1f %% | %.1f %% | %.1f %% | %.1f %% "
            "| %.1f %% | %.4f | %.0f | %s |\n",
            size_label (x, label, sizeof (label)), x->frame_ms, 100 * x->stage_ms[STAGE_LUMA] / total,
            100 * x->stage_ms[STAGE_PYRAMID] / total,
            100 * x->sweeps_ms / total, 100 * x->around_sweeps_ms / total,
            100 * x->stage_ms[STAGE_OUTPUT] / total, x->ns_per_px_it,
            x->gbps, "fixed");
      else
        fprintf (f, "| %s | %.3f | %.1f %% | %.1f %% | %.1f %% (solve) | "
            "– | %.1f %% | – | – | %ld |\n",
            size_label (x, label, sizeof (label)), x->frame_ms, 100 * x->stage_ms[STAGE_LUMA] / total,
            100 * x->stage_ms[STAGE_PYRAMID] / total,
            100 * x->stage_ms[STAGE_SOLVE] / total,
            100 * x->stage_ms[STAGE_OUTPUT] / total, x->iterations);
    }
    fprintf (f, "\n");
  }
  write_depth_table (f, r, n);
}

/* The description under the options: the configurations, exit status
 * and an example (g_free it). */
static gchar *
help_description (void)
{
  GString *d = g_string_new ("Configurations:\n");
  int c;

  for (c = 0; c < N_CONFIGS; c++)
    g_string_append_printf (d, "  %-24s %s\n", configs[c].name,
        configs[c].description);
  g_string_append (d, "\nExit status: 0 on success, 1 on a failure, 2 on "
      "a usage error, 77 without a\nusable CUDA device.\n\n"
      "Example:\n"
      "  " PROG " --sizes 1920x1080 --frames 30 \\\n"
      "      --config hs-realtime,tvl1-realtime --json bench.json\n");
  return g_string_free (d, FALSE);
}

int
main (int argc, char **argv)
{
  const char *sizes = "640x480,1280x720,1920x1080,3840x2160";
  const char *wanted = NULL, *json_path = NULL, *md_path = NULL;
  const char *depth_list = NULL;
  int frames = 20, w[MAX_SIZES], h[MAX_SIZES], n_sizes = 0, c, k, n = 0;
  int depths[MAX_DEPTHS] = { 0 }, n_depths = 1, dk;
  bench_result *results;
  struct cudaDeviceProp prop;
  char device[512];
  char *list, *tok, *save = NULL;
  gchar *sizes_opt = NULL, *frames_opt = NULL, *config_opt = NULL,
      *depth_opt = NULL, *json_opt = NULL, *md_opt = NULL, **rest = NULL;

  {
    gchar *frames_help = g_strdup_printf ("Timed frames per run, after %d "
        "warm-up frames (default 20)", WARMUP_FRAMES);
    gchar *depth_help = g_strdup_printf ("FUSED CLG depths to run, %d..%d "
        "or 0 (the plan's default: %d in fp32, %d in fp16); default 0",
        CF_CLG_FUSED_DEPTH_MIN, CF_CLG_FUSED_DEPTH_MAX,
        CF_CLG_FUSED_DEPTH_DEFAULT, CF_CLG_FUSED_DEPTH_DEFAULT_FP16);
    gchar *description = help_description ();
    GOptionEntry entries[] = {
      {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_opt, "Frame sizes "
            "(default 640x480,1280x720,1920x1080,3840x2160)", "WxH,..."},
      {"frames", 0, 0, G_OPTION_ARG_STRING, &frames_opt, frames_help, "N"},
      {"config", 0, 0, G_OPTION_ARG_STRING, &config_opt,
          "Configurations to run (default: all, below)", "NAME,..."},
      {"clg-depth", 0, 0, G_OPTION_ARG_STRING, &depth_opt, depth_help,
          "K,..."},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &json_opt,
          "Also write the results as JSON", "FILE"},
      {"markdown", 0, 0, G_OPTION_ARG_FILENAME, &md_opt,
          "Also write the markdown table to FILE", "FILE"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL,
          NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}
    };

    cf_args_parse (cf_args_context_new (PROG, NULL, entries,
            "GPU time per frame and per stage (luma, pyramid, solve, output) "
            "of the\nflow methods, through the same cuda/ calls as the "
            "elements' GPU path,\non synthetic frames. A markdown table goes "
            "to stdout, progress to\nstderr.", description),
        PROG, &argc, &argv);
    g_free (frames_help);
    g_free (depth_help);
    g_free (description);

    if (rest != NULL && rest[0] != NULL)
      cf_args_usage_error (PROG, "unexpected argument '%s'", rest[0]);
    if (sizes_opt != NULL)
      sizes = sizes_opt;
    if (frames_opt != NULL) {
      char *end;
      long f = strtol (frames_opt, &end, 10);
      if (end == frames_opt || *end != '\0' || f < 1 || f > INT_MAX)
        cf_args_usage_error (PROG, "bad --frames '%s' (1 or more)",
            frames_opt);
      frames = (int) f;
    }
    wanted = config_opt;
    depth_list = depth_opt;
    json_path = json_opt;
    md_path = md_opt;
  }
  list = strdup (sizes);
  for (tok = strtok_r (list, ",", &save); tok && n_sizes < MAX_SIZES;
      tok = strtok_r (NULL, ",", &save)) {
    if (sscanf (tok, "%dx%d", &w[n_sizes], &h[n_sizes]) != 2 ||
        w[n_sizes] < 1 || h[n_sizes] < 1 || w[n_sizes] > 16384 ||
        h[n_sizes] > 16384)
      cf_args_usage_error (PROG, "bad size '%s' (WxH, 1..16384)", tok);
    n_sizes++;
  }
  free (list);
  if (n_sizes == 0)
    cf_args_usage_error (PROG, "no size in --sizes '%s'", sizes);
  if (depth_list) {
    n_depths = 0;
    list = strdup (depth_list);
    for (tok = strtok_r (list, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      char *end;
      long d = strtol (tok, &end, 10);
      if (*end != '\0' || n_depths == MAX_DEPTHS || (d != 0 &&
              (d < CF_CLG_FUSED_DEPTH_MIN || d > CF_CLG_FUSED_DEPTH_MAX)))
        cf_args_usage_error (PROG, "bad CLG depth '%s' (%d..%d or 0, at most "
            "%d values)", tok, CF_CLG_FUSED_DEPTH_MIN, CF_CLG_FUSED_DEPTH_MAX,
            MAX_DEPTHS);
      depths[n_depths++] = (int) d;
    }
    free (list);
    if (n_depths == 0)
      cf_args_usage_error (PROG, "no depth in --clg-depth '%s'", depth_list);
  }
  if (wanted) {
    list = strdup (wanted);
    for (tok = strtok_r (list, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      for (c = 0; c < N_CONFIGS && strcmp (tok, configs[c].name); c++);
      if (c == N_CONFIGS)
        cf_args_usage_error (PROG, "unknown config '%s' (--help lists them)",
            tok);
    }
    free (list);
  }
  if (!cf_cuda_device_available ()) {
    fprintf (stderr, PROG ": no usable CUDA device\n");
    return 77;
  }
  CHECK_CUDA (cudaGetDeviceProperties (&prop, 0));
  snprintf (device, sizeof (device), "%s (%d SMs)", prop.name,
      prop.multiProcessorCount);

  results = calloc ((size_t) N_CONFIGS * n_sizes * n_depths,
      sizeof (bench_result));
  for (c = 0; c < N_CONFIGS; c++) {
    if (wanted) {
      /* whole-word match in the comma list */
      const char *p = strstr (wanted, configs[c].name);
      size_t len = strlen (configs[c].name);
      int hit = 0;
      while (p) {
        if ((p == wanted || p[-1] == ',') && (p[len] == ',' || !p[len]))
          hit = 1;
        p = strstr (p + 1, configs[c].name);
      }
      if (!hit)
        continue;
    }
    for (k = 0; k < n_sizes; k++) {
      /* the depth list applies to fused CLG configurations only */
      int per_depth = configs[c].method == METHOD_CLG &&
          configs[c].kernel != CF_CLG_KERNEL_SIMPLE;
      for (dk = 0; dk < (per_depth ? n_depths : 1); dk++) {
        int depth = per_depth ? depths[dk] : 0;
        run_one (&configs[c], w[k], h[k], depth, frames, &results[n]);
        fprintf (stderr, "%-24s %5dx%-5d K=%d %9.3f ms/frame (solve %.3f, "
            "iterations %.3f, %.4f ns/px-it, %.0f GB/s)\n", configs[c].name,
            w[k], h[k], depth, results[n].frame_ms,
            results[n].stage_ms[STAGE_SOLVE], results[n].sweeps_ms,
            results[n].ns_per_px_it, results[n].gbps);
        n++;
      }
    }
  }

  write_markdown (stdout, device, results, n, frames);
  if (md_path) {
    FILE *f = fopen (md_path, "w");
    if (!f) {
      perror (md_path);
      return 1;
    }
    write_markdown (f, device, results, n, frames);
    fclose (f);
  }
  if (json_path) {
    FILE *f = fopen (json_path, "w");
    if (!f) {
      perror (json_path);
      return 1;
    }
    write_json (f, device, results, n, frames);
    fclose (f);
  }
  free (results);
  return 0;
}
