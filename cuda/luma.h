/* gst-cudaflow — luma extraction for the flow elements (GPU), twins of
 * cf_luma_from_channel / cf_luma_from_rgb in common/planes.h
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Flow methods see luma as float in 0..255: 8-bit samples as they are,
 * 16-bit ones times 255/65535, RGB by Rec.601.
 */
#ifndef CF_CUDA_LUMA_H
#define CF_CUDA_LUMA_H

#include "common/planes.h"
#include "cuda/cuda-util.h"

#ifdef __cplusplus
extern "C" {
#endif

cf_status cf_cuda_luma_from_channel (const cf_channel * src,
    cf_cuda_image * dst, cudaStream_t stream);
cf_status cf_cuda_luma_from_rgb (const void *data, ptrdiff_t stride,
    int pixel_stride, int r, int g, int b, cf_cuda_image * dst,
    cudaStream_t stream);

/* Device floats cf_cuda_image_min_max needs as scratch. */
#define CF_CUDA_MIN_MAX_SCRATCH 2048

/* Smallest and largest value of @img (NaN-free), through @scratch
 * (CF_CUDA_MIN_MAX_SCRATCH device floats). The two values are copied to the
 * host, so @stream is synchronised. For TV-L1's intensity normalisation. */
cf_status cf_cuda_image_min_max (const cf_cuda_image * img, float *scratch,
    float *min_value, float *max_value, cudaStream_t stream);

/* cf_cuda_image_min_max without the wait: (min, max) land in @host_range
 * (two floats) once @stream has passed this point; record an event after
 * it and wait on that, so the host can queue more work (the pyramid)
 * before it needs the values. Pinned memory (cudaMallocHost) is written
 * by the reduction's last kernel directly; pageable memory takes a copy
 * in the stream, which is slower. */
cf_status cf_cuda_image_min_max_async (const cf_cuda_image * img,
    float *scratch, float *host_range, cudaStream_t stream);

/* The luma calls that also reduce the plane's (min, max) on the way, in
 * the same kernel: the pair lands in @host_range (two floats) as
 * cf_cuda_image_min_max_async's does, once @stream has passed this point,
 * pinned memory written directly, pageable through a copy in the stream.
 * The kernel keeps its reduction's state in @scratch
 * (CF_CUDA_LUMA_RANGE_SCRATCH device floats): clear it once with
 * cf_cuda_luma_range_scratch_clear before the first call; each call
 * leaves it cleared (so calls on one scratch must be ordered, as on one
 * stream). Saves the min/max's read of the plane and its two
 * launches (TV-L1's intensity normalisation). */
#define CF_CUDA_LUMA_RANGE_SCRATCH 128
cf_status cf_cuda_luma_range_scratch_clear (float *scratch,
    cudaStream_t stream);
cf_status cf_cuda_luma_from_channel_range (const cf_channel * src,
    cf_cuda_image * dst, float *scratch, float *host_range,
    cudaStream_t stream);
cf_status cf_cuda_luma_from_rgb_range (const void *data, ptrdiff_t stride,
    int pixel_stride, int r, int g, int b, cf_cuda_image * dst,
    float *scratch, float *host_range, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_LUMA_H */
