/* gst-cudaflow — GPU time per frame of a flow method, as the elements run it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "flow-bench-core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench-util.h"
#include "common/params.h"
#include "common/pyramid.h"
#include "common/synth.h"
#include "cuda/clg.h"
#include "cuda/cuda-util.h"
#include "cuda/hs.h"
#include "cuda/luma.h"
#include "cuda/pyramid.h"
#include "cuda/tvl1.h"

/* The elements' smallest pyramid side (gst/gstcfflowbase.c). */
#define MIN_LEVEL_SIDE 16

/* fp32 bytes per pixel and iteration of @method (docs/flow-speed.md) */
static double
bytes_per_px_it (cf_flow_method method)
{
  switch (method) {
    case CF_FLOW_METHOD_HS:
      return 28.0;
    case CF_FLOW_METHOD_CLG:
      return 36.0;
    default:
      return 64.0;              /* fused TV-L1 */
  }
}

const char *const cf_flow_bench_stage_names[CF_FLOW_BENCH_N_STAGES] =
    { "luma", "pyramid", "solve", "output" };

/* A failed cf_status call: its status, name and the last CUDA error. */
#define TRY(call) do { status = (call); if (status != CF_OK) { \
  cf_error_set (err, "%s failed: %s (%s)", #call, cf_status_name (status), \
      cf_cuda_last_error_name ()); goto out; } } while (0)
/* A failed call of ours that has set @err itself. */
#define PASS_ON(call) do { status = (call); if (status != CF_OK) goto out; \
  } while (0)
/* A failed CUDA runtime call: CF_ERROR_CUDA and the error string. */
#define TRY_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  status = CF_ERROR_CUDA; cf_error_set (err, "%s failed: %s", #call, \
      cudaGetErrorString (e_)); goto out; } } while (0)

void
cf_flow_bench_config_init (cf_flow_bench_config * c, cf_flow_method method)
{
  memset (c, 0, sizeof (*c));
  c->solver.method = method;
  switch (method) {
    case CF_FLOW_METHOD_HS:
      cf_hs_params_init (&c->solver.params.hs);
      break;
    case CF_FLOW_METHOD_TVL1:
      cf_tvl1_params_init (&c->solver.params.tvl1);
      break;
    case CF_FLOW_METHOD_CLG:
      cf_clg_params_init (&c->solver.params.clg);
      break;
  }
  c->solver.kernel = 0;         /* CF_*_KERNEL_AUTO */
  c->solver.precision = CF_PRECISION_FP32;
  cf_pyramid_params_init (&c->pyramid);
  c->pyramid.min_size = MIN_LEVEL_SIDE;
  c->clg_fused_depth = 0;
  c->hs_geometry = 0;
  c->hs_pdl = 1;
}

void
cf_flow_bench_pyramid_params (const cf_flow_bench_config * c,
    cf_pyramid_params * p)
{
  *p = c->pyramid;
  switch (c->solver.method) {
    case CF_FLOW_METHOD_HS:
      p->presmooth_sigma = 0.0f;        /* as cudaflowhs */
      break;
    case CF_FLOW_METHOD_TVL1:
      cf_tvl1_prepare_pyramid_params (&c->solver.params.tvl1, p);
      break;
    case CF_FLOW_METHOD_CLG:
      cf_clg_prepare_pyramid_params (&c->solver.params.clg, p);
      break;
  }
}

cf_status
cf_flow_bench_config_check (const cf_flow_bench_config * c, cf_error * err)
{
  if (!cf_params_valid (&cf_pyramid_param_table, &c->pyramid)) {
    cf_error_set (err, "levels %d or scale factor %g out of range",
        c->pyramid.max_levels, c->pyramid.eta);
    return CF_ERROR_INVALID;
  }
  switch (c->solver.method) {
    case CF_FLOW_METHOD_HS:
      if (!cf_hs_params_valid (&c->solver.params.hs)) {
        cf_error_set (err, "Horn-Schunck parameters out of range");
        return CF_ERROR_INVALID;
      }
      if (c->solver.kernel < CF_HS_KERNEL_AUTO ||
          c->solver.kernel > CF_HS_KERNEL_FUSED_DB) {
        cf_error_set (err, "unknown Horn-Schunck kernel %d", c->solver.kernel);
        return CF_ERROR_INVALID;
      }
      if (c->hs_geometry < CF_HS_GEOMETRY_AUTO ||
          c->hs_geometry >= CF_HS_N_GEOMETRIES) {
        cf_error_set (err, "unknown Horn-Schunck geometry %d",
            c->hs_geometry);
        return CF_ERROR_INVALID;
      }
      break;
    case CF_FLOW_METHOD_TVL1:
      if (!cf_tvl1_params_valid (&c->solver.params.tvl1)) {
        cf_error_set (err, "TV-L1 parameters out of range");
        return CF_ERROR_INVALID;
      }
      if (cf_cuda_tvl1_config_check (c->solver.precision,
              (cf_tvl1_kernel) c->solver.kernel) != CF_OK) {
        cf_error_set (err, "the TV-L1 GPU solver has no such kernel at this "
            "precision (solver-kernel=steps is fp32 only)");
        return CF_ERROR_UNSUPPORTED;
      }
      break;
    case CF_FLOW_METHOD_CLG:
      if (!cf_clg_params_valid (&c->solver.params.clg)) {
        cf_error_set (err, "CLG parameters out of range");
        return CF_ERROR_INVALID;
      }
      if (c->solver.kernel < CF_CLG_KERNEL_AUTO ||
          c->solver.kernel > CF_CLG_KERNEL_FUSED) {
        cf_error_set (err, "unknown CLG kernel %d", c->solver.kernel);
        return CF_ERROR_INVALID;
      }
      if (c->clg_fused_depth != 0 &&
          (c->clg_fused_depth < CF_CLG_FUSED_DEPTH_MIN ||
              c->clg_fused_depth > CF_CLG_FUSED_DEPTH_MAX)) {
        cf_error_set (err, "CLG fused depth %d not in %d..%d",
            c->clg_fused_depth, CF_CLG_FUSED_DEPTH_MIN,
            CF_CLG_FUSED_DEPTH_MAX);
        return CF_ERROR_INVALID;
      }
      break;
  }
  return CF_OK;
}

int
cf_flow_bench_fixed_iterations (const cf_flow_bench_config * c)
{
  return c->solver.method != CF_FLOW_METHOD_TVL1 ||
      c->solver.params.tvl1.epsilon == 0.0f;
}

/* Warps and iterations on level @l (0 = finest) of @c. */
static int
level_warps (const cf_flow_bench_config * c, int l)
{
  switch (c->solver.method) {
    case CF_FLOW_METHOD_HS:
      return c->solver.params.hs.warps;
    case CF_FLOW_METHOD_TVL1:
      return cf_tvl1_level_warps (&c->solver.params.tvl1, l);
    default:
      return 1;                 /* CLG: one warp per level */
  }
}

static int
level_iterations (const cf_flow_bench_config * c, int l)
{
  switch (c->solver.method) {
    case CF_FLOW_METHOD_HS:
      return c->solver.params.hs.iterations;
    case CF_FLOW_METHOD_TVL1:
      return cf_tvl1_level_iterations (&c->solver.params.tvl1, l);
    default:
      return cf_clg_level_iterations (&c->solver.params.clg, l);
  }
}

double
cf_flow_bench_pixel_iterations (const cf_flow_bench_config * c, int width,
    int height, long *sweeps)
{
  cf_pyramid_params pp;
  double cells = 0;
  long n = 0;
  int l, levels;

  cf_flow_bench_pyramid_params (c, &pp);
  levels = cf_pyramid_level_count (width, height, &pp);
  for (l = 0; l < levels; l++) {
    int w, h;
    cf_pyramid_level_size (width, height, pp.eta, l, &w, &h);
    cells += (double) w * h * level_warps (c, l) * level_iterations (c, l);
    n += (long) level_warps (c, l) * level_iterations (c, l);
  }
  if (sweeps)
    *sweeps = n;
  return cells;
}

cf_status
cf_flow_bench_device (char *name, size_t len)
{
  struct cudaDeviceProp prop;

  if (!cf_cuda_device_available () ||
      cudaGetDeviceProperties (&prop, 0) != cudaSuccess)
    return CF_ERROR_NO_DEVICE;
  snprintf (name, len, "%s (%d SMs)", prop.name, prop.multiProcessorCount);
  return CF_OK;
}

/* One solver of any method, behind one interface. */
typedef struct
{
  cf_flow_bench_config config;
  cf_cuda_hs_plan *hs;
  cf_cuda_tvl1_plan *tvl1;
  cf_cuda_clg_plan *clg;
} solver;

/* @baseline: the solver without its iterations (TV-L1: with one). */
static cf_status
solver_init (solver * sv, const cf_flow_bench_config * c, int width,
    int height, int baseline, cf_error * err)
{
  cf_status status = CF_OK;

  memset (sv, 0, sizeof (*sv));
  sv->config = *c;
  if (baseline && c->solver.method == CF_FLOW_METHOD_HS)
    sv->config.solver.params.hs.iterations = 0;
  if (baseline && c->solver.method == CF_FLOW_METHOD_TVL1) {
    sv->config.solver.params.tvl1.max_iterations = 1;
    sv->config.solver.params.tvl1.n_iterations_per_level = 0;
  }
  if (baseline && c->solver.method == CF_FLOW_METHOD_CLG) {
    sv->config.solver.params.clg.iterations = 0;
    sv->config.solver.params.clg.n_iterations_per_level = 0;
  }
  switch (c->solver.method) {
    case CF_FLOW_METHOD_HS:
      TRY (cf_cuda_hs_plan_new (width, height, c->solver.precision,
              (cf_hs_kernel) c->solver.kernel, &sv->hs));
      TRY (cf_cuda_hs_plan_set_geometry (sv->hs,
              (cf_hs_geometry) c->hs_geometry));
      TRY (cf_cuda_hs_plan_set_pdl (sv->hs, c->hs_pdl));
      break;
    case CF_FLOW_METHOD_TVL1:
      TRY (cf_cuda_tvl1_plan_new (width, height, c->solver.precision,
              (cf_tvl1_kernel) c->solver.kernel, &sv->tvl1));
      break;
    case CF_FLOW_METHOD_CLG:
      TRY (cf_cuda_clg_plan_new (width, height, c->solver.precision,
              (cf_clg_kernel) c->solver.kernel, &sv->clg));
      TRY (cf_cuda_clg_plan_set_fused_depth (sv->clg, c->clg_fused_depth));
      break;
  }
out:
  return status;
}

/* @lambda_scale: the pair's TV-L1 normalisation (1 = none). */
static cf_status
solver_run (solver * sv, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, float lambda_scale, cf_cuda_flow * flow,
    cudaStream_t stream, cf_error * err)
{
  cf_status status = CF_OK;
  cf_tvl1_params tvl1;

  switch (sv->config.solver.method) {
    case CF_FLOW_METHOD_HS:
      TRY (cf_cuda_hs_plan_run (sv->hs, p0, p1,
              &sv->config.solver.params.hs, 0, flow, stream));
      break;
    case CF_FLOW_METHOD_TVL1:
      tvl1 = sv->config.solver.params.tvl1;
      cf_tvl1_scale_lambda (&tvl1, lambda_scale);
      TRY (cf_cuda_tvl1_plan_run (sv->tvl1, p0, p1, &tvl1, 0, flow, stream));
      break;
    case CF_FLOW_METHOD_CLG:
      TRY (cf_cuda_clg_plan_run (sv->clg, p0, p1,
              &sv->config.solver.params.clg, 0, flow, stream));
      break;
  }
out:
  return status;
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
  memset (sv, 0, sizeof (*sv));
}

/* An 8-bit device frame holding @image rounded; NULL with @err set. */
static uint8_t *
upload_grey8 (const cf_image * image, size_t *pitch, cf_error * err)
{
  size_t n = (size_t) image->width * image->height;
  uint8_t *host = malloc (n), *dev = NULL;
  cf_status status = CF_OK;
  int x, y;

  if (host == NULL) {
    cf_error_set (err, "no memory for a %dx%d frame", image->width,
        image->height);
    return NULL;
  }
  for (y = 0; y < image->height; y++)
    for (x = 0; x < image->width; x++) {
      float v = cf_image_row (image, y)[x] + 0.5f;
      host[(size_t) y * image->width + x] =
          (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
    }
  TRY_CUDA (cudaMallocPitch ((void **) &dev, pitch, image->width,
          image->height));
  TRY_CUDA (cudaMemcpy2D (dev, *pitch, host, image->width, image->width,
          image->height, cudaMemcpyHostToDevice));
out:
  free (host);
  if (status != CF_OK && dev) {
    cudaFree (dev);
    dev = NULL;
  }
  return dev;
}

struct cf_flow_bench_frames
{
  int width, height;
  uint8_t *dev[2];
  size_t pitch[2];
};

cf_status
cf_flow_bench_frames_new (int width, int height,
    cf_flow_bench_frames ** frames, cf_error * err)
{
  cf_flow_bench_frames *fr = calloc (1, sizeof (*fr));
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL;
  cf_status status = CF_OK;

  *frames = NULL;
  if (fr == NULL) {
    cf_error_set (err, "no memory");
    return CF_ERROR_NO_MEMORY;
  }
  fr->width = width;
  fr->height = height;
  cf_synth_params_init (&sp);
  TRY (cf_synth_pair (width, height, &sp, &f0, &f1, &truth));
  if ((fr->dev[0] = upload_grey8 (f0, &fr->pitch[0], err)) == NULL ||
      (fr->dev[1] = upload_grey8 (f1, &fr->pitch[1], err)) == NULL)
    status = CF_ERROR_CUDA;
out:
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  if (status != CF_OK)
    cf_flow_bench_frames_free (fr);
  else
    *frames = fr;
  return status;
}

void
cf_flow_bench_frames_free (cf_flow_bench_frames * frames)
{
  if (frames == NULL)
    return;
  cudaFree (frames->dev[0]);
  cudaFree (frames->dev[1]);
  free (frames);
}

/* Median solve time of @sv over @frames runs (stream idle around). */
static cf_status
time_solve_only (solver * sv, cf_cuda_pyramid * p0, cf_cuda_pyramid * p1,
    float lambda_scale, cf_cuda_flow * flow, int frames, cudaStream_t stream,
    double *median, cf_error * err)
{
  cudaEvent_t a = NULL, b = NULL;
  double *t = calloc (frames, sizeof (double));
  cf_status status = CF_OK;
  int i;

  if (t == NULL) {
    cf_error_set (err, "no memory for %d timings", frames);
    return CF_ERROR_NO_MEMORY;
  }
  TRY_CUDA (cudaEventCreate (&a));
  TRY_CUDA (cudaEventCreate (&b));
  for (i = -CF_FLOW_BENCH_WARMUP_FRAMES; i < frames; i++) {
    float ms;
    TRY_CUDA (cudaEventRecord (a, stream));
    PASS_ON (solver_run (sv, p0, p1, lambda_scale, flow, stream, err));
    TRY_CUDA (cudaEventRecord (b, stream));
    TRY_CUDA (cudaEventSynchronize (b));
    TRY_CUDA (cudaEventElapsedTime (&ms, a, b));
    if (i >= 0)
      t[i] = ms;
  }
  *median = cf_bench_median (t, frames);
out:
  if (a)
    cudaEventDestroy (a);
  if (b)
    cudaEventDestroy (b);
  free (t);
  return status;
}

/* The per-iteration figures of @r from the baseline's solve time. */
static void
split_figures (const cf_flow_bench_config * c, cf_flow_bench_result * r)
{
  r->sweeps_ms = r->stage_ms[CF_FLOW_BENCH_SOLVE] - r->around_sweeps_ms;
  if (!cf_flow_bench_fixed_iterations (c)) {
    /* data-dependent count: no per-iteration figures */
    r->around_sweeps_ms = r->sweeps_ms = 0;
    return;
  }
  r->cells_swept = cf_flow_bench_pixel_iterations (c, r->width, r->height,
      NULL);
  if (c->solver.method == CF_FLOW_METHOD_TVL1) {
    /* the one-iteration solve still holds one iteration per warp of each
     * level: its pixel-iterations at the mean time of the others (uniform
     * counts: sweeps_ms / (iterations − 1)) */
    cf_flow_bench_config one = *c;
    double held;

    one.solver.params.tvl1.max_iterations = 1;
    one.solver.params.tvl1.n_iterations_per_level = 0;
    held = cf_flow_bench_pixel_iterations (&one, r->width, r->height, NULL);
    if (r->cells_swept > held) {
      double ms = r->sweeps_ms * held / (r->cells_swept - held);
      r->around_sweeps_ms -= ms;
      r->sweeps_ms += ms;
    }
  }
  /* a difference of two medians can come out <= 0 when the iterations
   * are a vanishing part of the solve: no per-iteration figures then */
  if (r->sweeps_ms > 0 && r->cells_swept > 0) {
    r->ns_per_px_it = r->sweeps_ms * 1e6 / r->cells_swept;
    r->gbps = r->cells_swept * bytes_per_px_it (c->solver.method) /
        (r->sweeps_ms * 1e-3) / 1e9;
  }
}

cf_status
cf_flow_bench_run (const cf_flow_bench_config * c,
    const cf_flow_bench_frames * pair, int frames, int split_solve,
    cf_flow_bench_result * r, cf_error * err)
{
  cf_status status = CF_OK;
  int width = pair->width, height = pair->height;
  cf_pyramid_params pp;
  cf_cuda_pyramid pyr[2];
  cf_cuda_flow flow;
  solver sv, sv0;
  float *uv = NULL, *range_scratch = NULL, *range_host = NULL;
  float range[2][2] = { {0, 255}, {0, 255} };   /* per slot: min, max */
  float lambda_scale = 1.0f;
  size_t uv_pitch;
  cudaStream_t stream = NULL;
  cudaEvent_t range_done = NULL, ev[CF_FLOW_BENCH_N_STAGES + 1];
  double *t[CF_FLOW_BENCH_N_STAGES + 1];
  int i, s, cur = 0;

  memset (r, 0, sizeof (*r));
  memset (pyr, 0, sizeof (pyr));
  memset (&flow, 0, sizeof (flow));
  memset (&sv, 0, sizeof (sv));
  memset (&sv0, 0, sizeof (sv0));
  memset (ev, 0, sizeof (ev));
  memset (t, 0, sizeof (t));
  r->width = width;
  r->height = height;
  if (frames < 1) {
    cf_error_set (err, "no frames to time");
    return CF_ERROR_INVALID;
  }
  status = cf_flow_bench_config_check (c, err);
  if (status != CF_OK)
    return status;

  cf_flow_bench_pyramid_params (c, &pp);
  TRY (cf_cuda_pyramid_alloc (&pyr[0], width, height, &pp));
  TRY (cf_cuda_pyramid_alloc (&pyr[1], width, height, &pp));
  r->n_levels = pyr[0].n_levels;
  cf_flow_bench_pixel_iterations (c, width, height, &r->sweeps);
  TRY (cf_cuda_flow_alloc (&flow, width, height));
  TRY_CUDA (cudaMallocPitch ((void **) &uv, &uv_pitch,
          (size_t) width * 2 * sizeof (float), height));
  TRY_CUDA (cudaMalloc ((void **) &range_scratch,
          CF_CUDA_LUMA_RANGE_SCRATCH * sizeof (float)));
  TRY_CUDA (cudaMallocHost ((void **) &range_host, 2 * sizeof (float)));
  TRY_CUDA (cudaEventCreateWithFlags (&range_done, cudaEventDisableTiming));
  TRY_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  TRY (cf_cuda_luma_range_scratch_clear (range_scratch, stream));

  /* the full solver, and one without the iterations (TV-L1: one) */
  PASS_ON (solver_init (&sv, c, width, height, 0, err));
  if (split_solve)
    PASS_ON (solver_init (&sv0, c, width, height, 1, err));

  for (s = 0; s <= CF_FLOW_BENCH_N_STAGES; s++) {
    TRY_CUDA (cudaEventCreate (&ev[s]));
    if ((t[s] = calloc (frames, sizeof (double))) == NULL) {
      cf_error_set (err, "no memory for %d timings", frames);
      status = CF_ERROR_NO_MEMORY;
      goto out;
    }
  }

  /* The element's loop: frame k becomes the current pyramid, (k-1) the
   * previous one; the first frame only fills its pyramid. */
  for (i = -CF_FLOW_BENCH_WARMUP_FRAMES - 1; i < frames; i++) {
    cf_channel ch = { pair->dev[cur], width, height,
      (ptrdiff_t) pair->pitch[cur], 1, 8
    };
    cf_cuda_pyramid *now = &pyr[cur], *before = &pyr[1 - cur];
    int tvl1 = c->solver.method == CF_FLOW_METHOD_TVL1;

    TRY_CUDA (cudaEventRecord (ev[0], stream));
    if (tvl1) {
      /* the element's normalisation range, reduced by the luma kernel:
       * queued here, waited for once the pyramid is queued (the solver's
       * λ needs it) */
      TRY (cf_cuda_luma_from_channel_range (&ch, &now->level[0],
              range_scratch, range_host, stream));
      TRY_CUDA (cudaEventRecord (range_done, stream));
    } else {
      TRY (cf_cuda_luma_from_channel (&ch, &now->level[0], stream));
    }
    TRY_CUDA (cudaEventRecord (ev[1], stream));
    TRY (cf_cuda_pyramid_build (now, &pp, stream));
    TRY_CUDA (cudaEventRecord (ev[2], stream));
    if (tvl1) {
      float lo, hi;
      TRY_CUDA (cudaEventSynchronize (range_done));
      range[cur][0] = range_host[0];
      range[cur][1] = range_host[1];
      lo = range[0][0] < range[1][0] ? range[0][0] : range[1][0];
      hi = range[0][1] > range[1][1] ? range[0][1] : range[1][1];
      lambda_scale = c->solver.params.tvl1.normalize && hi > lo ?
          255.0f / (hi - lo) : 1.0f;
    }
    if (i > -CF_FLOW_BENCH_WARMUP_FRAMES - 1)
      PASS_ON (solver_run (&sv, before, now, lambda_scale, &flow, stream,
              err));
    TRY_CUDA (cudaEventRecord (ev[3], stream));
    TRY (cf_cuda_flow_to_interleaved (&flow, uv, uv_pitch, stream));
    TRY_CUDA (cudaEventRecord (ev[4], stream));
    TRY_CUDA (cudaEventSynchronize (ev[4]));
    if (i >= 0) {
      float ms;
      for (s = 0; s < CF_FLOW_BENCH_N_STAGES; s++) {
        TRY_CUDA (cudaEventElapsedTime (&ms, ev[s], ev[s + 1]));
        t[s][i] = ms;
      }
      TRY_CUDA (cudaEventElapsedTime (&ms, ev[0],
              ev[CF_FLOW_BENCH_N_STAGES]));
      t[CF_FLOW_BENCH_N_STAGES][i] = ms;
    }
    cur = 1 - cur;
  }
  for (s = 0; s < CF_FLOW_BENCH_N_STAGES; s++)
    r->stage_ms[s] = cf_bench_median (t[s], frames);
  r->frame_ms = cf_bench_median (t[CF_FLOW_BENCH_N_STAGES], frames);
  if (c->solver.method == CF_FLOW_METHOD_TVL1)
    r->iterations = cf_cuda_tvl1_plan_iterations (sv.tvl1);

  if (split_solve) {
    PASS_ON (time_solve_only (&sv0, &pyr[1 - cur], &pyr[cur], lambda_scale,
                &flow, frames, stream, &r->around_sweeps_ms, err));
    split_figures (c, r);
  }

out:
  for (s = 0; s <= CF_FLOW_BENCH_N_STAGES; s++) {
    if (ev[s])
      cudaEventDestroy (ev[s]);
    free (t[s]);
  }
  solver_free (&sv);
  solver_free (&sv0);
  if (stream)
    cudaStreamDestroy (stream);
  cudaFree (uv);
  cudaFree (range_scratch);
  cudaFreeHost (range_host);
  if (range_done)
    cudaEventDestroy (range_done);
  cf_cuda_flow_release (&flow);
  cf_cuda_pyramid_release (&pyr[0]);
  cf_cuda_pyramid_release (&pyr[1]);
  return status;
}
