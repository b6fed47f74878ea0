/* gst-cudaflow — TV-L1 optical flow on the GPU (twin of common/tvl1.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Same scheme, same order of operations, same grid as common/tvl1.h; every
 * step there has a twin here with the same argument order. The solver
 * (cf_cuda_tvl1_plan_run) fuses the five per-iteration steps into two
 * stencil kernels:
 *   U-kernel  V + Div + U   (reads p, writes u; the ε partial sums)
 *   P-kernel  fG + P        (reads u, writes p)
 * which give bit-identical results to the step-by-step path in fp32
 * (CF_TVL1_KERNEL_STEPS, kept for tests and benchmarks). BLOCKED runs T
 * iterations of both per launch on shared-memory tiles (temporal
 * blocking), with the same bits as FUSED; it needs a fixed iteration count
 * (ε = 0) and runs FUSED when ε > 0. fp16 plans run their own FUSED and
 * BLOCKED kernels on half2 state (no STEPS), equal to each other bit for
 * bit.
 *
 * ε stopping without a host round trip per iteration: the U-kernel adds
 * |u^{n+1} − u^n|² into a device accumulator, a one-thread kernel turns it
 * into "done" when the mean is <= ε² (IPOL's test, per iteration), and
 * every later kernel of that warp returns at once when done is set; the
 * host looks at the flag only every few iterations to stop launching.
 */
#ifndef CF_CUDA_TVL1_H
#define CF_CUDA_TVL1_H

#include "common/tvl1.h"
#include "cuda/flow.h"
#include "cuda/pyramid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inner-loop implementation, selectable for benchmarks and tests. */
typedef enum
{
  CF_TVL1_KERNEL_AUTO = 0,      /* fastest measured: BLOCKED (FUSED when
                                 * ε > 0) */
  CF_TVL1_KERNEL_STEPS,         /* one kernel per step (V, Div, U, fG, P) */
  CF_TVL1_KERNEL_FUSED,         /* U-kernel + P-kernel per iteration */
  CF_TVL1_KERNEL_BLOCKED        /* T iterations per launch (ε = 0; FUSED
                                 * when ε > 0) */
} cf_tvl1_kernel;

/* fp16's zero-gradient guard on g = |∇I1w|² (0..255 intensities): 1e-10
 * (CF_TVL1_GRAD_IS_ZERO) is below half's smallest subnormal. Where case
 * three of TH applies, |v − u| <= λθ |∇I1w| = λθ √g, so treating g < 1e-3
 * as zero moves v by at most 0.0014 px at λθ = 0.045. */
#define CF_TVL1_GRAD_IS_ZERO_FP16 1e-3f

/* Iterations per BLOCKED launch: 1 ... CF_TVL1_MAX_BLOCK_ITERATIONS. */
#define CF_TVL1_MAX_BLOCK_ITERATIONS 8

typedef struct cf_cuda_tvl1_plan cf_cuda_tvl1_plan;

/* Whether a plan of @precision and @kernel can be made: CF_OK,
 * CF_ERROR_UNSUPPORTED for fp16 with STEPS (an fp32 kernel only),
 * CF_ERROR_INVALID for values outside the enums. Host only, no device
 * needed: the element asks it on both backends, so the CPU refuses what
 * the GPU would. */
cf_status cf_cuda_tvl1_config_check (cf_precision precision,
    cf_tvl1_kernel kernel);

/* For frames of width x height (scratch is level-0 sized; coarser levels
 * use views of it). CF_PRECISION_FP16 keeps the solver's state in half2
 * (cuda/tvl1.cu: increments per warp, intensities 0..255) with FUSED and
 * BLOCKED kernels: CF_ERROR_UNSUPPORTED for fp16 with STEPS. */
cf_status cf_cuda_tvl1_plan_new (int width, int height,
    cf_precision precision, cf_tvl1_kernel kernel,
    cf_cuda_tvl1_plan ** plan);

/* Twin of cf_tvl1_flow: p0 (frame t−1), p1 (frame t) built from frames
 * normalised like cf_tvl1_normalize_pair (or with λ scaled to match, see
 * gst/gstcudaflowtvl1.c); @flow level-0 size, the initial estimate when
 * @use_initial, and the result. Each level runs its own warps and
 * iterations (per-level lists of @params, cf_tvl1_level_params). With
 * params->median_size > 0, u is median-filtered after every warp
 * (cuda/median.h); the first such run allocates the filter's output, a
 * flow of the plan's size. */
cf_status cf_cuda_tvl1_plan_run (cf_cuda_tvl1_plan * plan,
    const cf_cuda_pyramid * p0, const cf_cuda_pyramid * p1,
    const cf_tvl1_params * params, int use_initial, cf_cuda_flow * flow,
    cudaStream_t stream);

/* BLOCKED's shape, for benchmarks and tests: @iterations per launch (0:
 * the measured default, else 1 ... CF_TVL1_MAX_BLOCK_ITERATIONS) and
 * @tile_rows, the tile's height including its halo (16, 32, 48 or 64;
 * tiles are 64 wide, 32 at 16 rows; 16 only up to 7 iterations per
 * launch), or 0, the default: chosen per launch, 32 rows, 16 where the
 * level is too small for 32-row tiles to fill the GPU, or in fp16 48 where
 * those compute fewer cells (cuda/tvl1.cu, blocked_rows).
 * With both 0, a level whose grid then fits in one wave may take fewer
 * iterations per launch (cf_cuda_tvl1_plan_blocked_iterations).
 * Applies to the plan's later runs; any value gives the same bits.
 * CF_ERROR_INVALID for other values. */
cf_status cf_cuda_tvl1_plan_set_blocking (cf_cuda_tvl1_plan * plan,
    int iterations, int tile_rows);

/* BLOCKED's later launches of a warp as programmatic dependents of the
 * one before (1, the default where the device has it: compute capability
 * 9.0 and later), so that a launch starts and loads the warp's constants
 * while the previous one ends, or as plain launches (0); the results do
 * not depend on it. */
cf_status cf_cuda_tvl1_plan_set_pdl (cf_cuda_tvl1_plan * plan, int pdl);

/* fp16 plans' resampling of the flow entering a level, for tests: @dst
 * (x, y) = (dw / sw, dh / sh) · @src at (x sw / dw, y sh / dh), clamped
 * bicubic, with the kernel the plans take (the upsampling kernel where
 * @dst is at least @src's size on both axes) or, with @gather, the
 * gathering kernel every output computes on its own: the same bits. */
cf_status cf_cuda_tvl1_fp16_resample (const cf_cuda_flow * src,
    cf_cuda_flow * dst, int gather, cudaStream_t stream);

/* Whether BLOCKED has kernels for tiles of @rows (16, 32, 48 or 64):
 * the heights cf_cuda_tvl1_plan_set_blocking accepts, for tools that
 * take one on their command line. */
int cf_cuda_tvl1_tile_rows_valid (int rows);

/* The tile height BLOCKED uses for a launch of @iterations (1 ... the
 * plan's iterations per launch) on a @width x @height level, as its runs
 * choose it; 0 for invalid arguments. For tests and benchmarks. */
int cf_cuda_tvl1_plan_blocked_rows (const cf_cuda_tvl1_plan * plan,
    int width, int height, int iterations);

/* The iterations per launch BLOCKED uses on a @width x @height level: the
 * plan's, or with the default shape fewer on levels where that fits the
 * grid in one wave (cuda/tvl1.cu, blocked_level_iterations); 0 for
 * invalid arguments. For tests and benchmarks. */
int cf_cuda_tvl1_plan_blocked_iterations (const cf_cuda_tvl1_plan * plan,
    int width, int height);

/* Iterations run in the last plan_run, summed over levels and warps
 * (after the stream is synchronised): with ε = 0 the sum over levels of
 * warps × iterations of each level; for tests and benchmarks. */
long cf_cuda_tvl1_plan_iterations (const cf_cuda_tvl1_plan * plan);

void cf_cuda_tvl1_plan_free (cf_cuda_tvl1_plan * plan);

/* Single steps, twins of common/tvl1.h, for tests against the CPU
 * reference. Planes of one call share width and height. */
cf_status cf_cuda_tvl1_centered_gradient (const cf_cuda_image * i1,
    cf_cuda_image * i1x, cf_cuda_image * i1y, cudaStream_t stream);
cf_status cf_cuda_tvl1_warp_prepare (const cf_cuda_image * i0,
    const cf_cuda_image * i1, const cf_cuda_image * i1x,
    const cf_cuda_image * i1y, const cf_cuda_flow * u0,
    cf_warp_border border, float blend, cf_cuda_image * i1w,
    cf_cuda_image * i1wx, cf_cuda_image * i1wy, cf_cuda_image * grad,
    cf_cuda_image * rho_c, cudaStream_t stream);
cf_status cf_cuda_tvl1_threshold (const cf_cuda_image * i1wx,
    const cf_cuda_image * i1wy, const cf_cuda_image * grad,
    const cf_cuda_image * rho_c, const cf_cuda_flow * u, float lambda,
    float theta, cf_cuda_flow * v, cudaStream_t stream);
cf_status cf_cuda_tvl1_divergence (const cf_cuda_image * px,
    const cf_cuda_image * py, cf_cuda_image * div, cudaStream_t stream);
/* @sum_sq: device pointer to one double that receives the sum over pixels
 * of |u^{n+1} − u^n|² (may be NULL). */
cf_status cf_cuda_tvl1_update_u (const cf_cuda_flow * v,
    const cf_cuda_flow * div, float theta, cf_cuda_flow * u,
    double *sum_sq, cudaStream_t stream);
cf_status cf_cuda_tvl1_forward_gradient (const cf_cuda_image * f,
    cf_cuda_image * fx, cf_cuda_image * fy, cudaStream_t stream);
cf_status cf_cuda_tvl1_update_p (const cf_cuda_image * ux,
    const cf_cuda_image * uy, const cf_cuda_flow * p_in, float tau,
    float theta, cf_cuda_flow * p_out, cudaStream_t stream);
/* Twin of cf_tvl1_fit_brightness: @fit, @gain and @bias are host
 * pointers, written once the stream has been synchronised (a test's call,
 * not the plan's: the plan keeps the fit on the device). The sums' order
 * differs from the CPU's, so the fit agrees to rounding, not to the bit. */
cf_status cf_cuda_tvl1_fit_brightness (const cf_cuda_image * i0,
    const cf_cuda_image * i1w, const cf_cuda_flow * u0,
    cf_tvl1_brightness_fit * fit, float *gain, float *bias,
    cudaStream_t stream);
/* Twin of cf_tvl1_apply_brightness (the same bits). */
cf_status cf_cuda_tvl1_apply_brightness (const cf_cuda_image * i0,
    float gain, float bias, cf_cuda_image * rho_c, cudaStream_t stream);

/* One warp's planes in host memory for cf_cuda_tvl1_emulate, each
 * width x height with @pitch floats a row. */
typedef struct
{
  int width, height;
  size_t pitch;
  const float *i1wx, *i1wy, *grad, *rho_c;      /* the warp's constants */
  const float *u0x[2], *u0y[2]; /* fp16: ∇u0, per component of u0 */
  const float *u0[2];           /* fp16 with finish: u0 */
  float *u[2];                  /* u (fp32) or du = u − u0 (fp16) */
  float *p1[2], *p2[2];         /* (p11, p12), (p21, p22) */
  float *out[2];                /* fp16 with finish: u0 + du */
} cf_cuda_tvl1_emu_warp;

/* The iteration kernels' program on the CPU, no GPU needed (cuda/tvl1-emu.cu
 * says what it checks and what not): @iterations of @kernel (FUSED, or
 * BLOCKED with @block_iterations per launch on tiles of @tile_rows) on
 * @warp's state, in place. fp16 only: @zero_start starts from du = 0 and
 * p = 0 without reading them (a warp's first launch), @finish writes
 * u0 + du to @out (its last launch; @u is then undefined on return, as
 * BLOCKED writes the sum instead of du) and keeps p. fp16 state is
 * rounded to half on entry. CF_ERROR_INVALID on a bad argument. */
cf_status cf_cuda_tvl1_emulate (cf_cuda_tvl1_emu_warp * warp,
    cf_precision precision, cf_tvl1_kernel kernel, int iterations,
    int block_iterations, int tile_rows, int zero_start, int finish,
    float lambda, float theta, float tau);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_TVL1_H */
