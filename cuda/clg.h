/* gst-cudaflow — Combined Local-Global optical flow on the GPU (twin of
 * common/clg.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Same model, order of operations and grid as common/clg.h; each step
 * there has a twin here with the same argument order. The structure tensor
 * is built by one kernel that forms the five products and smooths them with
 * K_ρ along x (all five channels per launch), and one that smooths along y;
 * the Jacobi sweeps run either one per launch (CF_CLG_KERNEL_SIMPLE) or
 * several per launch on block-private shared-memory tiles with a halo
 * (CF_CLG_KERNEL_FUSED), which gives bit-identical results in fp32. The
 * FUSED depth (sweeps per launch, = halo width) is chosen at run time
 * among CF_CLG_FUSED_DEPTH_MIN .. CF_CLG_FUSED_DEPTH_MAX; 0 picks
 * CF_CLG_FUSED_DEPTH_DEFAULT (CF_CLG_FUSED_DEPTH_DEFAULT_FP16 for fp16
 * plans), the fastest measured (docs/flow-speed.md).
 */
#ifndef CF_CUDA_CLG_H
#define CF_CUDA_CLG_H

#include "common/clg.h"
#include "cuda/flow.h"
#include "cuda/pyramid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_CLG_KERNEL_AUTO = 0,       /* fastest measured */
  CF_CLG_KERNEL_SIMPLE,         /* one Jacobi sweep per launch */
  CF_CLG_KERNEL_FUSED           /* several sweeps per launch (same results) */
} cf_clg_kernel;

/* FUSED depths compiled (one kernel instance each), and the default that
 * depth 0 stands for: the fastest for configuration B over 1920×1080 and
 * 640×512 together (measured in docs/flow-speed.md, "Fused Jacobi
 * depth"). */
#define CF_CLG_FUSED_DEPTH_MIN 3
#define CF_CLG_FUSED_DEPTH_MAX 8
#define CF_CLG_FUSED_DEPTH_DEFAULT 6
/* The default of fp16 plans, measured likewise: 8 is the fastest at both
 * sizes. */
#define CF_CLG_FUSED_DEPTH_DEFAULT_FP16 8

/* The five J_ρ channels on the device (level-0 sized planes; a level uses
 * the top-left corner). */
typedef struct
{
  cf_cuda_image j11, j12, j22, j13, j23;
} cf_cuda_clg_tensor;

typedef struct cf_cuda_clg_plan cf_cuda_clg_plan;

/* CF_PRECISION_FP32: the CPU's bits (common/clg.h). CF_PRECISION_FP16:
 * the Jacobi increments in half2 (half neighbour sums, fp32 update),
 * everything else fp32; SIMPLE and FUSED still give identical results,
 * close to fp32's but not equal (cuda/clg.cu). */
cf_status cf_cuda_clg_plan_new (int width, int height, cf_precision precision,
    cf_clg_kernel kernel, cf_cuda_clg_plan ** plan);

/* Twin of cf_clg_flow (pyramids built with cf_clg_prepare_pyramid_params). */
cf_status cf_cuda_clg_plan_run (cf_cuda_clg_plan * plan,
    const cf_cuda_pyramid * p0, const cf_cuda_pyramid * p1,
    const cf_clg_params * params, int use_initial, cf_cuda_flow * flow,
    cudaStream_t stream);

void cf_cuda_clg_plan_free (cf_cuda_clg_plan * plan);

/* Sweeps per FUSED launch for later runs of @plan: 0 (default,
 * CF_CLG_FUSED_DEPTH_DEFAULT, or CF_CLG_FUSED_DEPTH_DEFAULT_FP16 for an
 * fp16 plan) or CF_CLG_FUSED_DEPTH_MIN ..
 * CF_CLG_FUSED_DEPTH_MAX; the results do not depend on it. Ignored by a
 * SIMPLE plan. CF_ERROR_INVALID (plan unchanged) for any other value. A new
 * plan has depth 0. */
cf_status cf_cuda_clg_plan_set_fused_depth (cf_cuda_clg_plan * plan,
    int depth);

/* Single steps, for tests against the CPU reference. @tmp: scratch planes
 * of the same size as fx (at least five). cf_cuda_clg_jacobi runs
 * @iterations sweeps ping-ponging between *d and *tmp_flow; on return *d
 * describes the buffer holding the result (the structs may be swapped).
 * @fused_depth: sweeps per FUSED launch as cf_cuda_clg_plan_set_fused_depth
 * (0 = default; checked, but unused, for SIMPLE). */
cf_status cf_cuda_clg_derivatives (const cf_cuda_image * i0,
    const cf_cuda_image * i1w, cf_cuda_image * fx, cf_cuda_image * fy,
    cf_cuda_image * ft, cudaStream_t stream);
cf_status cf_cuda_clg_structure_tensor (const cf_cuda_image * fx,
    const cf_cuda_image * fy, const cf_cuda_image * ft, float rho,
    cf_cuda_clg_tensor * tmp, cf_cuda_clg_tensor * j, cudaStream_t stream);
cf_status cf_cuda_clg_jacobi (const cf_cuda_clg_tensor * j, float alpha,
    int iterations, cf_clg_kernel kernel, int fused_depth, cf_cuda_flow * d,
    cf_cuda_flow * tmp_flow, cudaStream_t stream);
cf_status cf_cuda_clg_add_increment (const cf_cuda_flow * u,
    const cf_cuda_flow * d, cf_cuda_flow * u_out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CLG_H */
