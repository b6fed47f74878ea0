/* gst-cudaflow — TV-L1 on the GPU: the single steps' launchers, for the plan
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The enqueue halves of the single steps in tvl1-steps.cu (arguments
 * already checked), which fp32 plans with CF_TVL1_KERNEL_STEPS call once
 * per step and iteration; @ctl / @n gate the kernels in the plan (see
 * tvl1-eps.cuh), NULL / 0 outside it.
 */
#ifndef CF_CUDA_TVL1_STEPS_CUH
#define CF_CUDA_TVL1_STEPS_CUH

#include "cuda/tvl1-eps.cuh"

/* Step V into @v (may be @u); @lt = λθ rounded as the CPU rounds it */
cf_status tvl1_enqueue_threshold (const cf_cuda_image * i1wx,
    const cf_cuda_image * i1wy, const cf_cuda_image * grad,
    const cf_cuda_image * rho_c, const cf_cuda_flow * u, float lt,
    cf_cuda_flow * v, const tvl1_control * ctl, int n, cudaStream_t stream);
/* Step Div of one dual field */
cf_status tvl1_enqueue_divergence (const cf_cuda_image * px,
    const cf_cuda_image * py, cf_cuda_image * div, const tvl1_control * ctl,
    int n, cudaStream_t stream);
/* Step U in place; the blocks' partials of Σ |Δu|² into @partials (one
 * per block) or added to *@sum, neither when both are NULL */
cf_status tvl1_enqueue_update_u (const cf_cuda_flow * v,
    const cf_cuda_flow * div, float theta, cf_cuda_flow * u,
    double *partials, double *sum, const tvl1_control * ctl, int n,
    cudaStream_t stream);
/* Step fG of one plane */
cf_status tvl1_enqueue_forward_gradient (const cf_cuda_image * f,
    cf_cuda_image * fx, cf_cuda_image * fy, const tvl1_control * ctl, int n,
    cudaStream_t stream);
/* Step P of one dual field (@p_out may be @p_in); @taut = τ/θ rounded as
 * the CPU rounds it */
cf_status tvl1_enqueue_update_p (const cf_cuda_image * ux,
    const cf_cuda_image * uy, const cf_cuda_flow * p_in, float taut,
    cf_cuda_flow * p_out, const tvl1_control * ctl, int n,
    cudaStream_t stream);
/* The reducer of iteration @n (tvl1_reduce) as its own one-block kernel */
cf_status tvl1_enqueue_reduce (tvl1_control * ctl, const double *partials,
    int n_partials, double count, double eps2, int n, cudaStream_t stream);

#endif /* CF_CUDA_TVL1_STEPS_CUH */
