/* gst-cudaflow — the GPU flow engine
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Host code only: each step is a cuda/ call on the engine's stream, in the
 * order common/flow-engine.h lists them. The device waits are the three
 * the interface names (the range's event, TV-L1's count when asked for,
 * the field read back for motion) plus wait.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/flow-engine.h"

#include <stdlib.h>

#include "cuda/clg.h"
#include "cuda/cuda-internal.h"
#include "cuda/flow.h"
#include "cuda/hs.h"
#include "cuda/luma.h"
#include "cuda/pyramid.h"
#include "cuda/tvl1.h"

typedef struct
{
  cf_flow_engine parent;
  cudaStream_t stream;
  cf_cuda_pyramid pyramid[CF_FLOW_ENGINE_SLOTS];
  cf_cuda_flow flow;

  /* with_range: min/max reduction of level 0, read back asynchronously;
   * the luma kernels reduce it as they write level 0 */
  float *range_scratch;         /* device, CF_CUDA_MIN_MAX_SCRATCH floats,
                                 * then CF_CUDA_LUMA_RANGE_SCRATCH */
  float *range_host;            /* pinned (min, max) per slot */
  cudaEvent_t range_done;       /* passed once range_host holds them */
  int range_queued[CF_FLOW_ENGINE_SLOTS];       /* by the slot's luma */

  /* the method's plan, made by the first solve for its method, kernel and
   * precision */
  int has_plan;
  cf_flow_method plan_method;
  int plan_kernel;
  cf_precision plan_precision;
  cf_cuda_hs_plan *hs;
  cf_cuda_clg_plan *clg;
  cf_cuda_tvl1_plan *tvl1;

  /* motion: the field on the host (u plane, then v), grown on demand */
  float *stats_host;
  size_t stats_host_size;       /* floats */
} gpu_engine;

/* The luma kernels' part of range_scratch */
static float *
luma_range_scratch (gpu_engine * self)
{
  return self->range_scratch + CF_CUDA_MIN_MAX_SCRATCH;
}

static cf_status
gpu_luma_from_channel (cf_flow_engine * engine, int slot,
    const cf_channel * src)
{
  gpu_engine *self = (gpu_engine *) engine;
  cf_cuda_image *dst = &self->pyramid[slot].level[0];
  cf_status status;

  if (!engine->with_range)
    return cf_cuda_luma_from_channel (src, dst, self->stream);
  status = cf_cuda_luma_from_channel_range (src, dst,
      luma_range_scratch (self), self->range_host + 2 * slot, self->stream);
  self->range_queued[slot] = status == CF_OK;
  return status;
}

static cf_status
gpu_luma_from_rgb (cf_flow_engine * engine, int slot, const void *data,
    ptrdiff_t stride, int pixel_stride, int r, int g, int b)
{
  gpu_engine *self = (gpu_engine *) engine;
  cf_cuda_image *dst = &self->pyramid[slot].level[0];
  cf_status status;

  if (!engine->with_range)
    return cf_cuda_luma_from_rgb (data, stride, pixel_stride, r, g, b, dst,
        self->stream);
  status = cf_cuda_luma_from_rgb_range (data, stride, pixel_stride, r, g, b,
      dst, luma_range_scratch (self), self->range_host + 2 * slot,
      self->stream);
  self->range_queued[slot] = status == CF_OK;
  return status;
}

/* The range is reduced by the slot's luma kernel (or, should level 0 not
 * have come from one, by the min/max before the pyramid) and waited for
 * after the pyramid is queued, so the GPU never idles for the round
 * trip. */
static cf_status
gpu_build_pyramid (cf_flow_engine * engine, int slot)
{
  gpu_engine *self = (gpu_engine *) engine;
  cf_cuda_pyramid *p = &self->pyramid[slot];
  float *range_host = self->range_host + 2 * slot;
  cf_status status = CF_OK;

  if (engine->with_range) {
    if (!self->range_queued[slot])
      status = cf_cuda_image_min_max_async (&p->level[0],
          self->range_scratch, range_host, self->stream);
    self->range_queued[slot] = 0;
    if (status == CF_OK)
      status = cf_cuda_check (cudaEventRecord (self->range_done,
              self->stream));
  }
  if (status == CF_OK)
    status = cf_cuda_pyramid_build (p, &engine->pyramid, self->stream);
  if (status == CF_OK && engine->with_range) {
    status = cf_cuda_check (cudaEventSynchronize (self->range_done));
    if (status == CF_OK) {
      engine->range[slot][0] = range_host[0];
      engine->range[slot][1] = range_host[1];
    }
  }
  return status;
}

static cf_status
gpu_wait (cf_flow_engine * engine)
{
  return cf_cuda_check (cudaStreamSynchronize (((gpu_engine *)
              engine)->stream));
}

/* The plan follows the first solve; another method, kernel or precision
 * later means the caller did not make a new engine. */
static cf_status
check_plan (gpu_engine * self, const cf_flow_solver * solver)
{
  if (!self->has_plan) {
    self->has_plan = 1;
    self->plan_method = solver->method;
    self->plan_kernel = solver->kernel;
    self->plan_precision = solver->precision;
    return CF_OK;
  }
  if (solver->method != self->plan_method ||
      solver->kernel != self->plan_kernel ||
      solver->precision != self->plan_precision)
    return CF_ERROR_INVALID;
  return CF_OK;
}

static cf_status
gpu_solve (cf_flow_engine * engine, const cf_flow_solver * solver,
    cf_flow_pair * pair)
{
  gpu_engine *self = (gpu_engine *) engine;
  const cf_cuda_pyramid *p0 = &self->pyramid[pair->prev];
  const cf_cuda_pyramid *p1 = &self->pyramid[pair->cur];
  cf_status status = check_plan (self, solver);

  if (status != CF_OK)
    return status;
  pair->iterations = cf_flow_solver_iterations (solver, engine->n_levels);
  switch (solver->method) {
    case CF_FLOW_METHOD_HS:
      if (self->hs == NULL)
        status = cf_cuda_hs_plan_new (engine->width, engine->height,
            solver->precision, (cf_hs_kernel) solver->kernel, &self->hs);
      if (status == CF_OK)
        status = cf_cuda_hs_plan_run (self->hs, p0, p1, &solver->params.hs,
            pair->use_initial, &self->flow, self->stream);
      break;
    case CF_FLOW_METHOD_CLG:
      if (self->clg == NULL)
        status = cf_cuda_clg_plan_new (engine->width, engine->height,
            solver->precision, (cf_clg_kernel) solver->kernel, &self->clg);
      if (status == CF_OK)
        status = cf_cuda_clg_plan_run (self->clg, p0, p1,
            &solver->params.clg, pair->use_initial, &self->flow,
            self->stream);
      break;
    case CF_FLOW_METHOD_TVL1:
      if (self->tvl1 == NULL)
        status = cf_cuda_tvl1_plan_new (engine->width, engine->height,
            solver->precision, (cf_tvl1_kernel) solver->kernel, &self->tvl1);
      if (status == CF_OK)
        status = cf_cuda_tvl1_plan_run (self->tvl1, p0, p1,
            &solver->params.tvl1, pair->use_initial, &self->flow,
            self->stream);
      /* the count the device kept: only worth a wait when asked for */
      if (status == CF_OK && pair->want_iterations) {
        status = cf_cuda_check (cudaStreamSynchronize (self->stream));
        if (status == CF_OK)
          pair->iterations = cf_cuda_tvl1_plan_iterations (self->tvl1);
      }
      break;
  }
  return status;
}

static cf_status
gpu_zero_flow (cf_flow_engine * engine)
{
  gpu_engine *self = (gpu_engine *) engine;

  return cf_cuda_flow_fill (&self->flow, 0.0f, 0.0f, self->stream);
}

static cf_status
gpu_write_flow (cf_flow_engine * engine, float *uv, size_t stride)
{
  gpu_engine *self = (gpu_engine *) engine;

  return cf_cuda_flow_to_interleaved (&self->flow, uv, stride, self->stream);
}

/* Download both planes packed, wait, and measure them on the host. */
static cf_status
gpu_motion (cf_flow_engine * engine, double *mean, double *max)
{
  gpu_engine *self = (gpu_engine *) engine;
  const cf_cuda_flow *f = &self->flow;
  size_t plane = (size_t) f->width * f->height;
  size_t row = (size_t) f->width * sizeof (float);
  cf_status status = CF_OK;
  cf_flow host;

  if (self->stats_host_size < 2 * plane) {
    free (self->stats_host);
    self->stats_host_size = 0;
    self->stats_host = (float *) malloc (2 * plane * sizeof (float));
    if (self->stats_host == NULL)
      return CF_ERROR_NO_MEMORY;
    self->stats_host_size = 2 * plane;
  }
  CF_CUDA_TRY (cudaMemcpy2DAsync (self->stats_host, row, f->u,
          f->pitch * sizeof (float), row, f->height, cudaMemcpyDeviceToHost,
          self->stream));
  CF_CUDA_TRY (cudaMemcpy2DAsync (self->stats_host + plane, row, f->v,
          f->pitch * sizeof (float), row, f->height, cudaMemcpyDeviceToHost,
          self->stream));
  CF_CUDA_TRY (cudaStreamSynchronize (self->stream));

  host.width = f->width;
  host.height = f->height;
  host.pitch = f->width;
  host.u = self->stats_host;
  host.v = self->stats_host + plane;
  host.owns_data = 0;
  cf_flow_motion (&host, mean, max);
out:
  return status;
}

static void
gpu_free (cf_flow_engine * engine)
{
  gpu_engine *self = (gpu_engine *) engine;
  int i;

  for (i = 0; i < CF_FLOW_ENGINE_SLOTS; i++)
    cf_cuda_pyramid_release (&self->pyramid[i]);
  cf_cuda_flow_release (&self->flow);
  if (self->range_scratch != NULL)
    cf_cuda_check (cudaFree (self->range_scratch));
  if (self->range_host != NULL)
    cf_cuda_check (cudaFreeHost (self->range_host));
  if (self->range_done != NULL)
    cf_cuda_check (cudaEventDestroy (self->range_done));
  cf_cuda_hs_plan_free (self->hs);
  cf_cuda_clg_plan_free (self->clg);
  cf_cuda_tvl1_plan_free (self->tvl1);
  free (self->stats_host);
  free (self);
}

static const cf_flow_engine_class gpu_class = {
  "GPU",
  1,
  gpu_luma_from_channel,
  gpu_luma_from_rgb,
  gpu_build_pyramid,
  gpu_wait,
  gpu_solve,
  gpu_zero_flow,
  gpu_write_flow,
  gpu_motion,
  gpu_free
};

extern "C" cf_status
cf_cuda_flow_engine_new (int width, int height,
    const cf_pyramid_params * pyramid, int with_range, cudaStream_t stream,
    cf_flow_engine ** engine)
{
  gpu_engine *self;
  cf_status status = CF_OK;
  int i;

  if (engine == NULL)
    return CF_ERROR_INVALID;
  *engine = NULL;
  if (pyramid == NULL || width < 1 || height < 1 ||
      width > CF_MAX_DIMENSION || height > CF_MAX_DIMENSION)
    return CF_ERROR_INVALID;
  self = (gpu_engine *) calloc (1, sizeof (*self));
  if (self == NULL)
    return CF_ERROR_NO_MEMORY;
  cf_flow_engine_init (&self->parent, &gpu_class, width, height, pyramid,
      with_range);
  self->stream = stream;

  for (i = 0; i < CF_FLOW_ENGINE_SLOTS && status == CF_OK; i++)
    status = cf_cuda_pyramid_alloc (&self->pyramid[i], width, height,
        pyramid);
  if (status != CF_OK)
    goto out;
  if (with_range) {
    CF_CUDA_TRY (cudaMalloc ((void **) &self->range_scratch,
            (CF_CUDA_MIN_MAX_SCRATCH + CF_CUDA_LUMA_RANGE_SCRATCH) *
            sizeof (float)));
    if ((status = cf_cuda_luma_range_scratch_clear (luma_range_scratch
                (self), stream)) != CF_OK)
      goto out;
    CF_CUDA_TRY (cudaMallocHost ((void **) &self->range_host,
            2 * CF_FLOW_ENGINE_SLOTS * sizeof (float)));
    CF_CUDA_TRY (cudaEventCreateWithFlags (&self->range_done,
            cudaEventDisableTiming));
  }
  status = cf_cuda_flow_alloc (&self->flow, width, height);
  if (status != CF_OK)
    goto out;
  self->parent.n_levels = self->pyramid[0].n_levels;

out:
  if (status != CF_OK) {
    gpu_free (&self->parent);
    return status;
  }
  *engine = &self->parent;
  return CF_OK;
}
