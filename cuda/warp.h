/* gst-cudaflow — GPU twins of common/warp.h
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Software Catmull-Rom (not the texture unit, whose 8-bit fixed-point
 * weights would break the 1e-4 agreement with the CPU reference).
 */
#ifndef CF_CUDA_WARP_H
#define CF_CUDA_WARP_H

#include "common/warp.h"
#include "cuda/flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst(x) = src(x + flow(x)) (twin of cf_warp_bicubic). */
cf_status cf_cuda_warp_bicubic (const cf_cuda_image * src,
    const cf_cuda_flow * flow, cf_warp_border border, cf_cuda_image * dst,
    cudaStream_t stream);

/* Twin of cf_flow_resample. */
cf_status cf_cuda_flow_resample (const cf_cuda_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream);

/* dst(x, y) = clamped bicubic src(x / eta, y / eta), x / eta in fp32: the
 * sampling half of cf_downsample (the pyramid blurs first). */
cf_status cf_cuda_bicubic_downscale (const cf_cuda_image * src, float eta,
    cf_cuda_image * dst, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_WARP_H */
