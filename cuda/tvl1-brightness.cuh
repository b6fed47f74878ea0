/* gst-cudaflow — TV-L1 on the GPU: launchers of tvl1-brightness.cu, for
 * the plan
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_CUDA_TVL1_BRIGHTNESS_CUH
#define CF_CUDA_TVL1_BRIGHTNESS_CUH

#include "cuda/tvl1-ops.cuh"

/* On the device, the fit carried from warp to warp and the sweep's
 * per-block sums (one allocation, made by the first run that asks for the
 * model; its size does not depend on the frame's), and the most blocks a
 * fit's cooperative launch may have, per precision */
typedef struct
{
  cf_tvl1_brightness_fit *fit;  /* owns the allocation */
  double *sums;
  int max_blocks_f32, max_blocks_f16;
} tvl1_brightness_scratch;

cf_status tvl1_brightness_scratch_alloc (tvl1_brightness_scratch * s);
void tvl1_brightness_scratch_free (tvl1_brightness_scratch * s);
/* Clears the carried fit: a frame's first warp trims against nothing. */
cf_status tvl1_brightness_frame_start (const tvl1_brightness_scratch * s,
    cudaStream_t stream);

/* The brightness model of one fp32 warp: cf_tvl1_fit_brightness around
 * @u0, the flow the warp's constants were sampled around, then, unless
 * the fit is the identity, cf_tvl1_apply_brightness on @rho_c, the fit
 * carried in @s; one launch, no host round trip. */
cf_status tvl1_enqueue_brightness (const cf_cuda_image * f0,
    const cf_cuda_image * i1w, const cf_cuda_flow * u0,
    cf_cuda_image * rho_c, const tvl1_brightness_scratch * s,
    cudaStream_t stream);
/* The same for an fp16 warp, on its constants @th ((I1wx, I1wy), (g, I1w
 * − I0)): I1w − I0 takes the model's term. */
cf_status tvl1h_enqueue_brightness (const cf_cuda_image * f0,
    tvl1h_pairs th, const cf_cuda_flow * u0,
    const tvl1_brightness_scratch * s, cudaStream_t stream);

#endif /* CF_CUDA_TVL1_BRIGHTNESS_CUH */
