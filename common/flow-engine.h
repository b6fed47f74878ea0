/* gst-cudaflow — the per-frame work of a flow estimator behind one
 * interface: on the CPU (here, over common/) or on the GPU
 * (cuda/flow-engine.h, over cuda/)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An engine owns, for one frame size and one pyramid configuration, what a
 * flow estimator keeps from frame to frame:
 *   - two pyramid slots, 0 and 1. The caller alternates them, so frame
 *     t−1's pyramid, built when that frame arrived, is reused as is for the
 *     pair (t−1, t);
 *   - per slot, the luma range of the frame before presmoothing, when the
 *     engine was made with_range (TV-L1 scales λ by the pair's range);
 *   - the flow field (planar, level-0 size). It is kept between pairs and
 *     is the warm start of the next solve when asked for;
 *   - the method's solver state (on the GPU its plan, made at the first
 *     solve; the plan is fixed to that solve's kernel and precision).
 *
 * The caller picks an implementation once, when the frame size, the
 * pyramid settings or the memory of the frames change, and from then on
 * uses only the functions below, which mean the same on both:
 *
 *   luma_from_channel / luma_from_rgb (slot)   the frame into level 0
 *   build_pyramid (slot)                       its range, then every level
 *   solve (solver, pair)                       the flow of two slots
 *   zero_flow                                  no pair: a zero field
 *   write_flow                                 the flow, interleaved
 *   motion                                     mean and largest |(u, v)|
 *
 * Memory: every pointer handed in (frame planes, the output) is in the
 * engine's memory: device pointers for the GPU engine, host pointers for
 * the CPU one. The GPU engine queues its work in call order on the stream
 * it was made with and returns before the device is done, except where a
 * function says it waits. Nothing here prints, exits or aborts.
 */
#ifndef CF_FLOW_ENGINE_H
#define CF_FLOW_ENGINE_H

#include <stddef.h>

#include "common/clg.h"
#include "common/hs.h"
#include "common/image.h"
#include "common/planes.h"
#include "common/precision.h"
#include "common/pyramid.h"
#include "common/tvl1.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pyramid slots of an engine: frame t−1 and frame t, alternately. */
#define CF_FLOW_ENGINE_SLOTS 2

typedef enum
{
  CF_FLOW_METHOD_HS = 0,        /* Horn–Schunck, common/hs.h */
  CF_FLOW_METHOD_CLG,           /* Combined Local-Global, common/clg.h */
  CF_FLOW_METHOD_TVL1           /* TV-L1, common/tvl1.h */
} cf_flow_method;

/* What one solve computes: a method and its parameters for this pair. */
typedef struct
{
  cf_flow_method method;
  union
  {
    cf_hs_params hs;
    cf_clg_params clg;
    cf_tvl1_params tvl1;
  } params;                     /* the member named by method */
  /* For the GPU engine only (the CPU reference has one implementation and
   * computes in fp32). Both are fixed by the engine's first solve: */
  int kernel;                   /* the method's cf_hs_kernel, cf_clg_kernel
                                 * or cf_tvl1_kernel (cuda/); 0 = auto */
  cf_precision precision;       /* of the solver's iterated state */
} cf_flow_solver;

/* The pair a solve works on, and what it reports. */
typedef struct
{
  int prev;                     /* slot of frame t−1 (built) */
  int cur;                      /* slot of frame t (built) */
  int use_initial;              /* the flow holds an estimate to start from
                                 * (the last pair's flow) */
  int want_iterations;          /* count the iterations even where that
                                 * waits for the device (TV-L1 on the GPU) */
  long iterations;              /* out: iterations run in all, levels and
                                 * warps; -1 = not counted */
} cf_flow_pair;

typedef struct cf_flow_engine cf_flow_engine;

/* One implementation. Call it through the cf_flow_engine_* functions,
 * which check the arguments first. */
typedef struct
{
  const char *device;           /* where it computes: "CPU" or "GPU" */
  int on_device;                /* 1: its memory is device memory */
  cf_status (*luma_from_channel) (cf_flow_engine * engine, int slot,
      const cf_channel * src);
  cf_status (*luma_from_rgb) (cf_flow_engine * engine, int slot,
      const void *data, ptrdiff_t stride, int pixel_stride, int r, int g,
      int b);
  cf_status (*build_pyramid) (cf_flow_engine * engine, int slot);
  cf_status (*wait) (cf_flow_engine * engine);
  cf_status (*solve) (cf_flow_engine * engine, const cf_flow_solver * solver,
      cf_flow_pair * pair);
  cf_status (*zero_flow) (cf_flow_engine * engine);
  cf_status (*write_flow) (cf_flow_engine * engine, float *uv,
      size_t stride);
  cf_status (*motion) (cf_flow_engine * engine, double *mean, double *max);
  void (*free) (cf_flow_engine * engine);
} cf_flow_engine_class;

/* What every implementation starts with (its own fields follow). */
struct cf_flow_engine
{
  const cf_flow_engine_class *klass;
  int width;                    /* level 0 and the flow */
  int height;
  cf_pyramid_params pyramid;    /* what the pyramids were made for */
  int n_levels;                 /* levels each pyramid has */
  int with_range;               /* build_pyramid records the luma range */
  float range[CF_FLOW_ENGINE_SLOTS][2]; /* per slot: min, max */
};

/* The CPU engine: pyramids and flow in host memory, the common/ reference
 * of every step. CF_ERROR_INVALID for a bad size or pyramid,
 * CF_ERROR_NO_MEMORY when an allocation fails; *engine is NULL then. */
cf_status cf_flow_engine_new_cpu (int width, int height,
    const cf_pyramid_params * pyramid, int with_range,
    cf_flow_engine ** engine);

/* Free everything the engine holds (on the GPU, with the CUDA context it
 * was made in current). NULL is a no-op. */
void cf_flow_engine_free (cf_flow_engine * engine);

/* "CPU" or "GPU", for messages ("TV-L1 on the GPU failed"). */
const char *cf_flow_engine_device (const cf_flow_engine * engine);

/* 1 when the engine's memory is device memory. */
int cf_flow_engine_on_device (const cf_flow_engine * engine);

/* The frame's luma into level 0 of @slot, as float 0..255: twins of
 * cf_luma_from_channel and cf_luma_from_rgb (common/planes.h), whose
 * arguments they take; the samples are in the engine's memory and the
 * frame has the engine's size. */
cf_status cf_flow_engine_luma_from_channel (cf_flow_engine * engine,
    int slot, const cf_channel * src);
cf_status cf_flow_engine_luma_from_rgb (cf_flow_engine * engine, int slot,
    const void *data, ptrdiff_t stride, int pixel_stride, int r, int g,
    int b);

/* Build @slot's pyramid from its level 0. With with_range, first record
 * the range of level 0 (before presmoothing); the GPU engine queues that
 * reduction ahead of the pyramid and waits for its two values only once
 * the pyramid is queued too. */
cf_status cf_flow_engine_build_pyramid (cf_flow_engine * engine, int slot);

/* Joint luma range of both slots: the smallest minimum and the largest
 * maximum (0, 0 without with_range). */
void cf_flow_engine_pair_range (const cf_flow_engine * engine, float *min,
    float *max);

/* Wait until everything queued so far is done (the GPU engine synchronises
 * its stream; the CPU engine has nothing to wait for). */
cf_status cf_flow_engine_wait (cf_flow_engine * engine);

/* The flow of the pair (@pair->prev → @pair->cur) into the engine's flow,
 * which holds the initial estimate when @pair->use_initial; sets
 * @pair->iterations. The GPU engine makes its plan at the first solve from
 * @solver's kernel and precision; a later solve with another method,
 * kernel or precision is CF_ERROR_INVALID (make a new engine). */
cf_status cf_flow_engine_solve (cf_flow_engine * engine,
    const cf_flow_solver * solver, cf_flow_pair * pair);

/* Set the flow to zero (the field that stands in when there is no pair). */
cf_status cf_flow_engine_zero_flow (cf_flow_engine * engine);

/* The flow as interleaved (u0 v0 u1 v1 ...) rows of @stride bytes into
 * @uv (engine's memory): cf_flow_to_interleaved. */
cf_status cf_flow_engine_write_flow (cf_flow_engine * engine, float *uv,
    size_t stride);

/* Mean and largest |(u, v)| over the flow, in pixels (cf_flow_motion). The
 * GPU engine downloads the field and waits for it. */
cf_status cf_flow_engine_motion (cf_flow_engine * engine, double *mean,
    double *max);

/* Iterations a fixed-count method runs on a pyramid of @n_levels: HS
 * levels × warps × iterations, CLG the sum of its per-level sweeps; -1 for
 * TV-L1, whose ε test may end warps early (its solvers count). */
long cf_flow_solver_iterations (const cf_flow_solver * solver, int n_levels);

/* Mean and largest |(u, v)| of @flow, in pixels, summed in double (hypot),
 * row by row; 0 and 0 for an empty field. */
void cf_flow_motion (const cf_flow * flow, double *mean, double *max);

/* For implementations: fill the fields of struct cf_flow_engine (range
 * zeroed; n_levels 0 until the implementation has its pyramids). */
void cf_flow_engine_init (cf_flow_engine * engine,
    const cf_flow_engine_class * klass, int width, int height,
    const cf_pyramid_params * pyramid, int with_range);

#ifdef __cplusplus
}
#endif
#endif /* CF_FLOW_ENGINE_H */
