/* gst-cudaflow — TV-L1 on the GPU: launchers of tvl1-half.cu, for the plan
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_CUDA_TVL1_HALF_CUH
#define CF_CUDA_TVL1_HALF_CUH

#include "cuda/tvl1-ops.cuh"

/* The half2 constants of one warp around @u0 (its size is the level's):
 * ((I1wx, I1wy), (g, I1w − I0)) into @th, ∇u0 into @gu0, and du ← 0 when
 * @du.d is set */
cf_status tvl1h_enqueue_constants (const cf_cuda_image * f0,
    const cf_cuda_image * f1, const cf_cuda_flow * u0, cf_warp_border border,
    float blend, tvl1h_pairs th, tvl1h_pairs gu0, tvl1h_cells du, int pdl,
    cudaStream_t stream);
/* The end of a warp: @out ← @u0 + du (@out may be @u0) */
cf_status tvl1h_enqueue_apply (const cf_cuda_flow * u0, tvl1h_cells du,
    cf_cuda_flow * out, cudaStream_t stream);
/* cf_cuda_flow_resample for fp16 plans: @dst (x, y) = scale · @src at
 * (x, y) scaled to its size */
cf_status tvl1h_resample (const cf_cuda_flow * src, cf_cuda_flow * dst,
    int pdl, cudaStream_t stream);
/* (@pdl: launched as programmatic dependents of the stream's previous
 * kernel, cf_cuda_launch; the kernels wait for it before they read.) */

#endif /* CF_CUDA_TVL1_HALF_CUH */
