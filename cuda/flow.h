/* gst-cudaflow — flow fields in device memory, and the conversions between
 * the planar layout the solvers use and the interleaved UV_F32LE of buffers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_CUDA_FLOW_H
#define CF_CUDA_FLOW_H

#include "common/precision.h"
#include "cuda/cuda-util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Two pitched float planes (u right, v down, pixels), one pitch. */
typedef struct
{
  float *u;
  float *v;
  int width;
  int height;
  size_t pitch;                 /* elements */
} cf_cuda_flow;

/* 1 when @flow is non-NULL with both planes, a positive size and pitch >=
 * width. */
int cf_cuda_flow_is_valid (const cf_cuda_flow * flow);
cf_status cf_cuda_flow_alloc (cf_cuda_flow * flow, int width, int height);
void cf_cuda_flow_release (cf_cuda_flow * flow);
cf_status cf_cuda_flow_fill (cf_cuda_flow * flow, float u, float v,
    cudaStream_t stream);
/* dst = src (the first src->width x src->height samples of each plane). */
cf_status cf_cuda_flow_copy (const cf_cuda_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream);
/* A view of the top-left width x height part (for coarser levels). */
cf_cuda_flow cf_cuda_flow_view (const cf_cuda_flow * flow, int width,
    int height);

/* Planar -> interleaved (u0 v0 u1 v1 ...) rows of @stride bytes, and back;
 * like cf_flow_to_interleaved / cf_flow_from_interleaved. */
cf_status cf_cuda_flow_to_interleaved (const cf_cuda_flow * flow, float *uv,
    size_t stride, cudaStream_t stream);
cf_status cf_cuda_flow_from_interleaved (cf_cuda_flow * flow,
    const float *uv, size_t stride, cudaStream_t stream);

/* Host <-> device copies (tests). */
cf_status cf_cuda_flow_upload (const cf_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream);
cf_status cf_cuda_flow_download (const cf_cuda_flow * src, cf_flow * dst,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_FLOW_H */
