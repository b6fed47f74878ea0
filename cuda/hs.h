/* gst-cudaflow — Horn–Schunck on the GPU (twin of common/hs.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_CUDA_HS_H
#define CF_CUDA_HS_H

#include "common/hs.h"
#include "cuda/flow.h"
#include "cuda/pyramid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inner-loop implementation, selectable for benchmarks and tests; all
 * give the same bits. */
typedef enum
{
  CF_HS_KERNEL_AUTO = 0,        /* fastest measured */
  CF_HS_KERNEL_SIMPLE,          /* one Jacobi sweep per launch */
  CF_HS_KERNEL_FUSED,           /* 8 sweeps per launch on private
                                 * shared-memory regions (64 x 64 or
                                 * 32 x 32), two barriers per sweep */
  CF_HS_KERNEL_FUSED_DB,        /* several sweeps per launch on
                                 * double-buffered regions, one barrier per
                                 * sweep; region size and depth per level
                                 * (cf_hs_geometry) */
  CF_HS_KERNEL_STREAM           /* 8 sweeps per launch on column strips
                                 * walked down in skewed pieces, the halo
                                 * recomputed at segment tops only (a
                                 * count that is not a multiple of 8 ends
                                 * with one FUSED_DB launch; a plan runs
                                 * FUSED_DB on levels too small for half
                                 * a wave of its blocks); not yet
                                 * measured against FUSED_DB on a GPU */
} cf_hs_kernel;

/* Sweeps per CF_HS_KERNEL_FUSED launch (its halo width, in cells); tests
 * use it to hit the launch boundaries (k - 1, k, 3k + 2 iterations). */
#define CF_CUDA_HS_FUSED_DEPTH 8

/* The regions of CF_HS_KERNEL_FUSED_DB: width x height cells and depth K
 * (sweeps per launch, the halo width); a launch outputs the
 * (width - 2K) x (height - 2K) centre. AUTO picks one per level from the
 * level size, the iteration count and the blocks per SM the device fits
 * (cf_cuda_hs_plan_set_geometry forces one, for benchmarks and tests). A
 * geometry the device cannot run (too little shared memory per block)
 * falls back to AUTO's choice. The "-oc" ones keep each thread's cells in
 * registers between sweeps ("own centre": one shared load of three a cell
 * fewer; "-r20": 20 cells a thread). All give the same bits. */
typedef enum
{
  CF_HS_GEOMETRY_AUTO = 0,
  CF_HS_GEOMETRY_32X32_K8,      /* 16 x 16 tile, 256 threads */
  CF_HS_GEOMETRY_64X64_K8,      /* 48 x 48, 512 threads, 2 blocks per SM */
  CF_HS_GEOMETRY_96X64_K8,      /* 80 x 48, 384 threads, 2 blocks per SM */
  CF_HS_GEOMETRY_128X64_K8,     /* 112 x 48, 1024 threads */
  CF_HS_GEOMETRY_128X96_K8,     /* 112 x 80, 1024 threads */
  CF_HS_GEOMETRY_64X64_K16,     /* 32 x 32, 512 threads: half the launches */
  CF_HS_GEOMETRY_32X32_K8_OC,   /* 32x32-k8, a thread's cells in registers */
  CF_HS_GEOMETRY_64X64_K8_OC,   /* 64x64-k8, the same */
  CF_HS_GEOMETRY_64X80_K8_R20_OC,       /* 48 x 64, 256 threads, 20 cells each */
  CF_HS_N_GEOMETRIES
} cf_hs_geometry;

/* "64x64-k8" etc. ("auto" for AUTO); NULL out of range. */
const char *cf_cuda_hs_geometry_name (cf_hs_geometry geometry);

/* The geometry called @name, or -1. */
int cf_cuda_hs_geometry_from_name (const char *name);

/* Sweeps per launch (K) of @geometry; 0 for AUTO or out of range. */
int cf_cuda_hs_geometry_depth (cf_hs_geometry geometry);

/* AUTO's choice for one level of a plan's sequence, from its cost model
 * alone (no device needed): a width x height level of @iterations sweeps
 * at @precision, on a GPU of @n_sm SMs that holds blocks_per_sm[g] blocks
 * of geometry g at once (0: cannot run it; CF_HS_N_GEOMETRIES entries,
 * the first, AUTO's, unused), with programmatic dependent launch when
 * @pdl. A plan asks its device for those numbers; tests pass a measured
 * device's. AUTO on bad arguments (no SM, no geometry that can run). */
cf_hs_geometry cf_cuda_hs_geometry_pick (int n_sm,
    const int *blocks_per_sm, int pdl, cf_precision precision, int width,
    int height, int iterations);

typedef struct cf_cuda_hs_plan cf_cuda_hs_plan;

/* For frames of width x height (scratch is level-0 sized; coarser levels
 * use views of it, their sizes taken from the pyramids at run time). */
cf_status cf_cuda_hs_plan_new (int width, int height, cf_precision precision,
    cf_hs_kernel kernel, cf_cuda_hs_plan ** plan);

/* Twin of cf_hs_flow: p0 (frame t-1), p1 (frame t); @flow level-0 size,
 * the initial estimate when @use_initial, and the result. */
cf_status cf_cuda_hs_plan_run (cf_cuda_hs_plan * plan,
    const cf_cuda_pyramid * p0, const cf_cuda_pyramid * p1,
    const cf_hs_params * params, int use_initial, cf_cuda_flow * flow,
    cudaStream_t stream);

void cf_cuda_hs_plan_free (cf_cuda_hs_plan * plan);

/* Force the FUSED_DB region geometry of every level (AUTO: per level, the
 * default); the results do not depend on it. Ignored by SIMPLE and FUSED
 * plans. */
cf_status cf_cuda_hs_plan_set_geometry (cf_cuda_hs_plan * plan,
    cf_hs_geometry geometry);

/* FUSED_DB launches with programmatic dependent launch (1, the default
 * where the device has it: compute capability 9.0 and later), so that a
 * launch loads its coefficients while the previous one ends, or without
 * (0); the results do not depend on it. Ignored by SIMPLE and FUSED
 * plans. */
cf_status cf_cuda_hs_plan_set_pdl (cf_cuda_hs_plan * plan, int pdl);

/* Single steps, for tests against the CPU reference. cf_cuda_hs_jacobi
 * runs @iterations sweeps from *d into *d, on the increments as a plan
 * holds them (one float2 plane in fp32, one half2 plane in fp16) in two
 * buffers it allocates and frees on @stream (stream-ordered), so it is
 * for tests, not for a frame loop. *tmp is not written; it stays in the
 * signature from when the sweeps ping-ponged between *d and *tmp. */
cf_status cf_cuda_hs_derivatives (const cf_cuda_image * i0,
    const cf_cuda_image * i1w, cf_cuda_image * ix, cf_cuda_image * iy,
    cf_cuda_image * it, cudaStream_t stream);
/* The coefficients the Jacobi sweeps read, straight from the frames, as
 * the plan computes them once per warp: with Ix, Iy, It those of
 * cf_cuda_hs_derivatives and s = 1 / sqrt(alpha² + Ix² + Iy²) (correctly
 * rounded fp32), a = Ix s, b = Iy s, c = It s. */
cf_status cf_cuda_hs_coefficients (const cf_cuda_image * i0,
    const cf_cuda_image * i1w, float alpha, cf_cuda_image * a,
    cf_cuda_image * b, cf_cuda_image * c, cudaStream_t stream);
cf_status cf_cuda_hs_jacobi (const cf_cuda_image * ix,
    const cf_cuda_image * iy, const cf_cuda_image * it, float alpha,
    int iterations, cf_hs_kernel kernel, cf_cuda_flow * d, cf_cuda_flow * tmp,
    cudaStream_t stream);
cf_status cf_cuda_hs_add_increment (const cf_cuda_flow * d,
    cf_cuda_flow * u, cudaStream_t stream);

/* cf_cuda_hs_jacobi with a FUSED_DB @geometry and a @precision: with
 * CF_PRECISION_FP16 the increments are rounded to half2 (as an fp16 plan
 * holds them), swept in half2 and widened back into *d (exact). */
cf_status cf_cuda_hs_jacobi_ex (const cf_cuda_image * ix,
    const cf_cuda_image * iy, const cf_cuda_image * it, float alpha,
    int iterations, cf_hs_kernel kernel, cf_hs_geometry geometry,
    cf_precision precision, cf_cuda_flow * d, cf_cuda_flow * tmp,
    cudaStream_t stream);

/* The STREAM kernel's program run on the CPU (cuda/hs-stream.cuh, no GPU
 * needed), for the tests: @launches launches of 8 sweeps each on a
 * width x height level split into segments of @seg_rows rows, from the
 * increments (*u, *v) (rounded to half2 first in fp16; with @zero_start,
 * from zeros, *u and *v not read, as a plan's first launch of a warp)
 * into (*u, *v), on coefficient planes @a, @b, @c (the plan's,
 * cf_cuda_hs_coefficients); every plane host memory of @pitch floats a
 * row. With @simple, the same sweeps one at a time on the whole level
 * with clamped neighbours, as SIMPLE runs them: both must give the same
 * bits. fp16's half2 fma is the host's stand-in (cf_hfma2), so fp16
 * checks the program, not the device's bits. */
cf_status cf_cuda_hs_emulate (const float *a, const float *b, const float *c,
    int width, int height, size_t pitch, cf_precision precision,
    int launches, int seg_rows, int simple, int zero_start, float *u,
    float *v);

/* STREAM's schedule at width x height on a GPU of @n_sm SMs holding
 * @blocks_per_sm of its blocks each, as a plan lays it out: the rows of a
 * segment, the blocks of a launch, and the share of the cells it computes
 * that are its tiles' (tile cells times 8 sweeps over the cells of the
 * strips that compute, hs_stream_strip_computes). No GPU needed;
 * CF_ERROR_INVALID on bad sizes. */
cf_status cf_cuda_hs_stream_schedule (int n_sm, int blocks_per_sm, int width,
    int height, int *seg_rows, int *blocks, double *own_share);

/* Sweeps per STREAM launch. */
#define CF_CUDA_HS_STREAM_DEPTH 8

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_HS_H */
