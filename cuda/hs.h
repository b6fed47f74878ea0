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

/* Inner-loop implementation, selectable for benchmarks and tests. */
typedef enum
{
  CF_HS_KERNEL_AUTO = 0,        /* fastest measured */
  CF_HS_KERNEL_SIMPLE,          /* one Jacobi sweep per launch */
  CF_HS_KERNEL_FUSED            /* several sweeps per launch on private
                                 * shared-memory tiles (same results) */
} cf_hs_kernel;

/* Sweeps per CF_HS_KERNEL_FUSED launch (its halo width, in cells); tests
 * use it to hit the launch boundaries (k - 1, k, 3k + 2 iterations). */
#define CF_CUDA_HS_FUSED_DEPTH 8

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

/* Single steps, for tests against the CPU reference. cf_cuda_hs_jacobi
 * runs @iterations sweeps ping-ponging between *d and *tmp; on return *d
 * describes the buffer holding the result (the two structs may have been
 * swapped; nothing is copied). */
cf_status cf_cuda_hs_derivatives (const cf_cuda_image * i0,
    const cf_cuda_image * i1w, cf_cuda_image * ix, cf_cuda_image * iy,
    cf_cuda_image * it, cudaStream_t stream);
cf_status cf_cuda_hs_jacobi (const cf_cuda_image * ix,
    const cf_cuda_image * iy, const cf_cuda_image * it, float alpha,
    int iterations, cf_hs_kernel kernel, cf_cuda_flow * d, cf_cuda_flow * tmp,
    cudaStream_t stream);
cf_status cf_cuda_hs_add_increment (const cf_cuda_flow * d,
    cf_cuda_flow * u, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_HS_H */
