/* gst-cudaflow — the flow engine interface and its CPU implementation
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/flow-engine.h"

#include <math.h>
#include <stdlib.h>

/* --- the interface ----------------------------------------------------- */

static int
slot_is_valid (int slot)
{
  return slot >= 0 && slot < CF_FLOW_ENGINE_SLOTS;
}

void
cf_flow_engine_init (cf_flow_engine * engine,
    const cf_flow_engine_class * klass, int width, int height,
    const cf_pyramid_params * pyramid, int with_range)
{
  int i;

  engine->klass = klass;
  engine->width = width;
  engine->height = height;
  engine->pyramid = *pyramid;
  engine->n_levels = 0;
  engine->with_range = with_range != 0;
  for (i = 0; i < CF_FLOW_ENGINE_SLOTS; i++)
    engine->range[i][0] = engine->range[i][1] = 0.0f;
}

void
cf_flow_engine_free (cf_flow_engine * engine)
{
  if (engine != NULL)
    engine->klass->free (engine);
}

const char *
cf_flow_engine_device (const cf_flow_engine * engine)
{
  return engine != NULL ? engine->klass->device : "";
}

int
cf_flow_engine_on_device (const cf_flow_engine * engine)
{
  return engine != NULL && engine->klass->on_device;
}

cf_status
cf_flow_engine_luma_from_channel (cf_flow_engine * engine, int slot,
    const cf_channel * src)
{
  if (engine == NULL || !slot_is_valid (slot) || src == NULL)
    return CF_ERROR_INVALID;
  return engine->klass->luma_from_channel (engine, slot, src);
}

cf_status
cf_flow_engine_luma_from_rgb (cf_flow_engine * engine, int slot,
    const void *data, ptrdiff_t stride, int pixel_stride, int r, int g, int b)
{
  if (engine == NULL || !slot_is_valid (slot))
    return CF_ERROR_INVALID;
  return engine->klass->luma_from_rgb (engine, slot, data, stride,
      pixel_stride, r, g, b);
}

cf_status
cf_flow_engine_build_pyramid (cf_flow_engine * engine, int slot)
{
  if (engine == NULL || !slot_is_valid (slot))
    return CF_ERROR_INVALID;
  return engine->klass->build_pyramid (engine, slot);
}

void
cf_flow_engine_pair_range (const cf_flow_engine * engine, float *min,
    float *max)
{
  const float (*r)[2] = engine->range;

  *min = r[0][0] < r[1][0] ? r[0][0] : r[1][0];
  *max = r[0][1] > r[1][1] ? r[0][1] : r[1][1];
}

cf_status
cf_flow_engine_wait (cf_flow_engine * engine)
{
  if (engine == NULL)
    return CF_ERROR_INVALID;
  return engine->klass->wait (engine);
}

cf_status
cf_flow_engine_solve (cf_flow_engine * engine, const cf_flow_solver * solver,
    cf_flow_pair * pair)
{
  if (pair == NULL)
    return CF_ERROR_INVALID;
  pair->iterations = -1;
  if (engine == NULL || solver == NULL || !slot_is_valid (pair->prev) ||
      !slot_is_valid (pair->cur) || pair->prev == pair->cur)
    return CF_ERROR_INVALID;
  if (solver->method != CF_FLOW_METHOD_HS &&
      solver->method != CF_FLOW_METHOD_CLG &&
      solver->method != CF_FLOW_METHOD_TVL1)
    return CF_ERROR_INVALID;
  return engine->klass->solve (engine, solver, pair);
}

cf_status
cf_flow_engine_zero_flow (cf_flow_engine * engine)
{
  if (engine == NULL)
    return CF_ERROR_INVALID;
  return engine->klass->zero_flow (engine);
}

cf_status
cf_flow_engine_write_flow (cf_flow_engine * engine, float *uv,
    size_t stride)
{
  if (engine == NULL || uv == NULL ||
      stride < 2 * sizeof (float) * (size_t) engine->width)
    return CF_ERROR_INVALID;
  return engine->klass->write_flow (engine, uv, stride);
}

cf_status
cf_flow_engine_motion (cf_flow_engine * engine, double *mean, double *max)
{
  if (engine == NULL || mean == NULL || max == NULL)
    return CF_ERROR_INVALID;
  return engine->klass->motion (engine, mean, max);
}

long
cf_flow_solver_iterations (const cf_flow_solver * solver, int n_levels)
{
  long total = 0;
  int l;

  switch (solver->method) {
    case CF_FLOW_METHOD_HS:
      return (long) n_levels * solver->params.hs.warps *
          solver->params.hs.iterations;
    case CF_FLOW_METHOD_CLG:
      for (l = 0; l < n_levels; l++)
        total += cf_clg_level_iterations (&solver->params.clg, l);
      return total;
    case CF_FLOW_METHOD_TVL1:
    default:
      return -1;
  }
}

void
cf_flow_motion (const cf_flow * flow, double *mean, double *max)
{
  double sum = 0.0, top = 0.0;
  int x, y;

  for (y = 0; y < flow->height; y++) {
    const float *u = flow->u + (size_t) y * flow->pitch;
    const float *v = flow->v + (size_t) y * flow->pitch;
    for (x = 0; x < flow->width; x++) {
      double m = hypot (u[x], v[x]);
      sum += m;
      top = top > m ? top : m;
    }
  }
  *mean = flow->width > 0 && flow->height > 0 ?
      sum / ((double) flow->width * flow->height) : 0.0;
  *max = top;
}

/* --- the CPU engine: common/ on host memory ---------------------------- */

typedef struct
{
  cf_flow_engine parent;
  cf_pyramid *pyramid[CF_FLOW_ENGINE_SLOTS];
  cf_flow *flow;
} cpu_engine;

static cf_status
cpu_luma_from_channel (cf_flow_engine * engine, int slot,
    const cf_channel * src)
{
  cpu_engine *self = (cpu_engine *) engine;

  return cf_luma_from_channel (src, self->pyramid[slot]->level[0]);
}

static cf_status
cpu_luma_from_rgb (cf_flow_engine * engine, int slot, const void *data,
    ptrdiff_t stride, int pixel_stride, int r, int g, int b)
{
  cpu_engine *self = (cpu_engine *) engine;

  return cf_luma_from_rgb (data, stride, pixel_stride, r, g, b,
      self->pyramid[slot]->level[0]);
}

static cf_status
cpu_build_pyramid (cf_flow_engine * engine, int slot)
{
  cpu_engine *self = (cpu_engine *) engine;
  cf_pyramid *p = self->pyramid[slot];

  if (engine->with_range)
    cf_image_min_max (p->level[0], &engine->range[slot][0],
        &engine->range[slot][1]);
  return cf_pyramid_build (p, p->level[0], &engine->pyramid);
}

static cf_status
cpu_wait (cf_flow_engine * engine)
{
  return CF_OK;
}

static cf_status
cpu_solve (cf_flow_engine * engine, const cf_flow_solver * solver,
    cf_flow_pair * pair)
{
  cpu_engine *self = (cpu_engine *) engine;
  const cf_pyramid *p0 = self->pyramid[pair->prev];
  const cf_pyramid *p1 = self->pyramid[pair->cur];
  cf_status status = CF_ERROR_INVALID;

  pair->iterations = cf_flow_solver_iterations (solver, engine->n_levels);
  switch (solver->method) {
    case CF_FLOW_METHOD_HS:
      status = cf_hs_flow (p0, p1, &solver->params.hs, pair->use_initial,
          self->flow);
      break;
    case CF_FLOW_METHOD_CLG:
      status = cf_clg_flow (p0, p1, &solver->params.clg, pair->use_initial,
          self->flow);
      break;
    case CF_FLOW_METHOD_TVL1:
      /* ε may end warps early: the solver counts */
      pair->iterations = 0;
      status = cf_tvl1_flow_counted (p0, p1, &solver->params.tvl1,
          pair->use_initial, self->flow, &pair->iterations);
      break;
  }
  return status;
}

static cf_status
cpu_zero_flow (cf_flow_engine * engine)
{
  cf_flow_fill (((cpu_engine *) engine)->flow, 0.0f, 0.0f);
  return CF_OK;
}

static cf_status
cpu_write_flow (cf_flow_engine * engine, float *uv, size_t stride)
{
  cf_flow_to_interleaved (((cpu_engine *) engine)->flow, uv, stride);
  return CF_OK;
}

static cf_status
cpu_motion (cf_flow_engine * engine, double *mean, double *max)
{
  cf_flow_motion (((cpu_engine *) engine)->flow, mean, max);
  return CF_OK;
}

static void
cpu_free (cf_flow_engine * engine)
{
  cpu_engine *self = (cpu_engine *) engine;
  int i;

  for (i = 0; i < CF_FLOW_ENGINE_SLOTS; i++)
    cf_pyramid_free (self->pyramid[i]);
  cf_flow_free (self->flow);
  free (self);
}

static const cf_flow_engine_class cpu_class = {
  "CPU",
  0,
  cpu_luma_from_channel,
  cpu_luma_from_rgb,
  cpu_build_pyramid,
  cpu_wait,
  cpu_solve,
  cpu_zero_flow,
  cpu_write_flow,
  cpu_motion,
  cpu_free
};

cf_status
cf_flow_engine_new_cpu (int width, int height,
    const cf_pyramid_params * pyramid, int with_range,
    cf_flow_engine ** engine)
{
  cpu_engine *self;
  int i;

  if (engine == NULL)
    return CF_ERROR_INVALID;
  *engine = NULL;
  if (pyramid == NULL || width < 1 || height < 1 ||
      width > CF_MAX_DIMENSION || height > CF_MAX_DIMENSION)
    return CF_ERROR_INVALID;
  self = calloc (1, sizeof (*self));
  if (self == NULL)
    return CF_ERROR_NO_MEMORY;
  cf_flow_engine_init (&self->parent, &cpu_class, width, height, pyramid,
      with_range);

  /* cf_pyramid_new and cf_flow_new say NULL for bad parameters and for
   * no memory alike: the sizes are checked above, so it is memory */
  for (i = 0; i < CF_FLOW_ENGINE_SLOTS; i++) {
    self->pyramid[i] = cf_pyramid_new (width, height, pyramid);
    if (self->pyramid[i] == NULL)
      goto no_memory;
  }
  self->flow = cf_flow_new (width, height);
  if (self->flow == NULL)
    goto no_memory;
  self->parent.n_levels = self->pyramid[0]->n_levels;
  *engine = &self->parent;
  return CF_OK;

no_memory:
  cpu_free (&self->parent);
  return CF_ERROR_NO_MEMORY;
}
