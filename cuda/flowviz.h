/* gst-cudaflow — flowviz on the GPU (twin of common/flowviz.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The per-pixel arithmetic is common/flowviz-pixel.h, compiled for both;
 * results equal the CPU reference up to the last bit of atan2f/sqrtf
 * (at most one level per channel of the colour coding; the video
 * conversion and the overlay blend are integer and identical; the arrow
 * geometry rounds every product and sum as the host does, so arrows cover
 * the same pixels).
 */
#ifndef CF_CUDA_FLOWVIZ_H
#define CF_CUDA_FLOWVIZ_H

#include <stdint.h>

#include "common/flowviz.h"
#include "cuda/cuda-util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One device float for the per-frame maximum. */
cf_status cf_cuda_flowviz_scratch_alloc (float **scratch);
void cf_cuda_flowviz_scratch_free (float *scratch);

/* Twin of cf_flowviz_render; @uv and @out are device pointers. With
 * max_flow <= 0 the frame maximum is reduced on the device into
 * @scratch (no host round trip). */
cf_status cf_cuda_flowviz_render (const float *uv, size_t uv_stride,
    int width, int height, const cf_flowviz_params * params, float max_flow,
    float *scratch, uint8_t * out, size_t out_stride, cudaStream_t stream);

/* Twin of cf_flowviz_render_video: @video (a host struct holding device
 * plane pointers; NULL: black), @uv (NULL: no flow, the neutral picture)
 * and @out on the device. @scratch is needed only for max_flow <= 0 with a
 * flow. The video conversion and the blend give the CPU's bits exactly. */
cf_status cf_cuda_flowviz_render_video (const cf_flowviz_video * video,
    const float *uv, size_t uv_stride, int width, int height,
    const cf_flowviz_params * params, float max_flow, float *scratch,
    uint8_t * out, size_t out_stride, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_FLOWVIZ_H */
