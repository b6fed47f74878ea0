/* gst-cudaflow — flowviz on the GPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "cuda/flowviz.h"
#include "cuda/cuda-internal.h"
#include "common/flowviz-pixel.h"

/* 2-D launch shape of both kernels */
static const int BLOCK_X = 32;
static const int BLOCK_Y = 8;

/** \brief Largest known |(u, v)| of the frame into *max (as float bits:
 *  non-negative floats order like their integer patterns). *max starts 0. */
__global__ static void
flowviz_max_kernel (const float *uv, size_t stride, int width, int height,
    unsigned int *max)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float m = 0.0f;

  if (x < width && y < height) {
    float u, v;
    cf_flowviz_read (uv, stride, x, y, &u, &v);
    /* rounded as cf_flowviz_max_magnitude on the host (no fused
     * multiply-add): the arrows' automatic scale depends on it */
    if (cf_flowviz_known (u, v))
      m = sqrtf (cf_flowviz_dot (u, u, v, v));
  }
  /* warp maximum first, one atomic per warp */
  for (int off = 16; off > 0; off /= 2)
    m = fmaxf (m, __shfl_down_sync (0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0 && m > 0.0f)
    atomicMax (max, __float_as_uint (m));
}

/** \brief One output pixel per thread (cf_flowviz_output_pixel).
 *  \param video     the frame's planes (read only when has_video)
 *  \param uv        the flow, or NULL for the neutral picture (grey, or
 *                   the video alone in the overlays)
 *  \param arrows    the arrow modes' anchors, scale, threshold, stroke
 *  \param max_flow  fixed normalisation, or <= 0 to read *device_max
 *  \param weight    overlay opacity, 0..256 */
__global__ static void
flowviz_render_kernel (cf_flowviz_video video, int has_video,
    const float *uv, size_t stride, int width, int height, int mode,
    cf_flowviz_arrows arrows, float max_flow, const float *device_max,
    int weight, int r,
    int g, int b, int a, uint8_t * out, size_t out_stride)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  uint8_t rgb[3];
  uint8_t *p;

  if (x >= width || y >= height)
    return;
  if (uv != NULL && !(max_flow > 0.0f)) {
    max_flow = *device_max;
    if (!(max_flow > 0.0f))
      max_flow = 1.0f;
  }
  cf_flowviz_output_pixel (has_video ? &video : NULL, uv, stride, width,
      height, x, y, mode, &arrows, max_flow, weight, rgb);
  p = out + (size_t) y * out_stride + 4 * (size_t) x;
  p[r] = rgb[0];
  p[g] = rgb[1];
  p[b] = rgb[2];
  if (a >= 0)
    p[a] = 255;
}

extern "C" cf_status
cf_cuda_flowviz_scratch_alloc (float **scratch)
{
  cf_status status = CF_OK;

  *scratch = NULL;
  CF_CUDA_TRY (cudaMalloc ((void **) scratch, sizeof (float)));
out:
  return status;
}

extern "C" void
cf_cuda_flowviz_scratch_free (float *scratch)
{
  if (scratch != NULL)
    cf_cuda_check (cudaFree (scratch));
}

extern "C" cf_status
cf_cuda_flowviz_render_video (const cf_flowviz_video * video,
    const float *uv, size_t uv_stride, int width, int height,
    const cf_flowviz_params * params, float max_flow, float *scratch,
    uint8_t * out, size_t out_stride, cudaStream_t stream)
{
  cf_status status = CF_OK;
  dim3 block (BLOCK_X, BLOCK_Y);
  dim3 grid (cf_div_up (width, BLOCK_X), cf_div_up (height, BLOCK_Y));
  cf_flowviz_video frame;
  cf_flowviz_arrows arrows;
  int auto_max = uv != NULL && !(max_flow > 0.0f);

  if (out == NULL || width < 1 || height < 1
      || !cf_flowviz_params_valid (params)
      || (video != NULL && !cf_flowviz_video_valid (video))
      || (auto_max && scratch == NULL))
    return CF_ERROR_INVALID;
  /* the kernel takes the planes by value */
  memset (&frame, 0, sizeof (frame));
  if (video != NULL)
    frame = *video;
  cf_flowviz_arrows_from_params (params, &arrows);

  if (auto_max) {
    CF_CUDA_TRY (cudaMemsetAsync (scratch, 0, sizeof (float), stream));
    flowviz_max_kernel <<< grid, block, 0, stream >>> (uv, uv_stride, width,
        height, (unsigned int *) scratch);
    CF_CUDA_TRY_LAUNCH ();
  }
  flowviz_render_kernel <<< grid, block, 0, stream >>> (frame,
      video != NULL, uv, uv_stride, width, height, (int) params->mode,
      arrows, max_flow, scratch,
      cf_flowviz_alpha_weight (params->alpha), params->r, params->g,
      params->b, params->a, out, out_stride);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_flowviz_render (const float *uv, size_t uv_stride, int width,
    int height, const cf_flowviz_params * params, float max_flow,
    float *scratch, uint8_t * out, size_t out_stride, cudaStream_t stream)
{
  if (uv == NULL)
    return CF_ERROR_INVALID;
  return cf_cuda_flowviz_render_video (NULL, uv, uv_stride, width, height,
      params, max_flow, scratch, out, out_stride, stream);
}
