/* gst-cudaflow — bicubic sampling, warping and flow resampling (GPU)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Twins of common/warp.c: the same Keys (a = -0.5, Catmull-Rom) cell, the
 * same tap clamping, the same far-outside and non-finite guards. The cell
 * is spelled with __fmul_rn / __fadd_rn in the CPU's evaluation order, so
 * nvcc cannot contract it into FMAs and the result equals the x86-64 CPU
 * reference bit for bit (the tests still allow 1e-4 relative).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/warp.h"
#include "cuda/cuda-internal.h"

/* 2-D launch shape of every kernel in this file */
static const int WARP_BLOCK_X = 32;
static const int WARP_BLOCK_Y = 8;

/** \brief Keys' cubic through v0..v3 at -1, 0, 1, 2, evaluated at t:
 *  v1 + 0.5 t (v2 - v0 + t (2 v0 - 5 v1 + 4 v2 - v3
 *  + t (3 (v1 - v2) + v3 - v0))), left to right as in common/warp.c. */
static __device__ __forceinline__ float
cubic_cell (float v0, float v1, float v2, float v3, float t)
{
  float c3, c2, c1;

  /* 3 (v1 - v2) + v3 - v0 */
  c3 = __fsub_rn (__fadd_rn (__fmul_rn (3.0f, __fsub_rn (v1, v2)), v3), v0);
  /* 2 v0 - 5 v1 + 4 v2 - v3 + t c3 */
  c2 = __fsub_rn (__fmul_rn (2.0f, v0), __fmul_rn (5.0f, v1));
  c2 = __fsub_rn (__fadd_rn (c2, __fmul_rn (4.0f, v2)), v3);
  c2 = __fadd_rn (c2, __fmul_rn (t, c3));
  /* v2 - v0 + t c2 */
  c1 = __fadd_rn (__fsub_rn (v2, v0), __fmul_rn (t, c2));
  /* v1 + (0.5 t) c1 */
  return __fadd_rn (v1, __fmul_rn (__fmul_rn (0.5f, t), c1));
}

static __device__ __forceinline__ int
clamp_index (int i, int n)
{
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/** \brief Bicubic sample of a pitched plane at (x, y); twin of
 *  bicubic_plane () in common/warp.c (4 columns along y, then along x). */
template < bool THROUGH_L2 = false > static __device__ float
bicubic_plane (const float *__restrict__ data, int width, int height,
    size_t pitch, float x, float y, cf_warp_border border)
{
  int ix, iy;
  float tx, ty;
  float col[4];

  if (!cf_bicubic_cell (x, y, width, height, border, &ix, &iy, &tx, &ty))
    return 0.0f;

#pragma unroll
  for (int i = 0; i < 4; i++) {
    int sx = clamp_index (ix - 1 + i, width);
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
      int sy = clamp_index (iy - 1 + j, height);
      v[j] = THROUGH_L2 ? __ldcg (data + sx + (size_t) sy * pitch) :
          __ldg (data + sx + (size_t) sy * pitch);
    }
    col[i] = cubic_cell (v[0], v[1], v[2], v[3], ty);
  }
  return cubic_cell (col[0], col[1], col[2], col[3], tx);
}

/** \brief dst(x) = src(x + flow(x)), one pixel per thread (twin of
 *  cf_warp_bicubic); all planes width x height.
 *  \param border  CF_WARP_CLAMP or CF_WARP_ZERO_OUTSIDE */
__global__ static void
warp_bicubic_kernel (const float *__restrict__ src, size_t src_pitch,
    const float *__restrict__ u, const float *__restrict__ v,
    size_t flow_pitch, int width, int height, cf_warp_border border,
    float *__restrict__ dst, size_t dst_pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t f;

  if (x >= width || y >= height)
    return;
  f = x + (size_t) y * flow_pitch;
  dst[x + (size_t) y * dst_pitch] = bicubic_plane (src, width, height,
      src_pitch, __fadd_rn ((float) x, u[f]), __fadd_rn ((float) y, v[f]),
      border);
}

/** \brief Corner-aligned resampling of a flow: dst pixel (x, y) samples src
 *  at (x fx, y fy) (clamped bicubic) and scales the vector by (sx, sy)
 *  (twin of cf_flow_resample). */
__global__ static void
flow_resample_kernel (const float *__restrict__ su,
    const float *__restrict__ sv, size_t src_pitch, int src_width,
    int src_height, float fx, float fy, float sx, float sy, float *du,
    float *dv, size_t dst_pitch, int dst_width, int dst_height)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float px, py;

  if (x >= dst_width || y >= dst_height)
    return;
  px = __fmul_rn ((float) x, fx);
  py = __fmul_rn ((float) y, fy);
  du[x + (size_t) y * dst_pitch] = __fmul_rn (sx, bicubic_plane (su,
          src_width, src_height, src_pitch, px, py, CF_WARP_CLAMP));
  dv[x + (size_t) y * dst_pitch] = __fmul_rn (sy, bicubic_plane (sv,
          src_width, src_height, src_pitch, px, py, CF_WARP_CLAMP));
}

/** \brief dst(x, y) = clamped bicubic src(x / eta, y / eta): the sampling
 *  half of cf_downsample (common/pyramid.c). */
__global__ static void
bicubic_downscale_kernel (const float *__restrict__ src, size_t src_pitch,
    int src_width, int src_height, float eta, float *dst, size_t dst_pitch,
    int dst_width, int dst_height)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;

  /* a programmatic dependent (the pyramid's chain): @src is the kernel
   * before's output, read through L2 */
  cf_pdl_launch_dependents ();
  cf_pdl_wait ();
  if (x >= dst_width || y >= dst_height)
    return;
  dst[x + (size_t) y * dst_pitch] = bicubic_plane < true > (src, src_width,
      src_height, src_pitch, __fdiv_rn ((float) x, eta),
      __fdiv_rn ((float) y, eta), CF_WARP_CLAMP);
}

static dim3
warp_grid (int width, int height)
{
  return dim3 (cf_div_up (width, WARP_BLOCK_X),
      cf_div_up (height, WARP_BLOCK_Y));
}

extern "C" cf_status
cf_cuda_warp_bicubic (const cf_cuda_image * src, const cf_cuda_flow * flow,
    cf_warp_border border, cf_cuda_image * dst, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_image_is_valid (src) || !cf_cuda_flow_is_valid (flow) ||
      !cf_cuda_image_is_valid (dst) || src->data == dst->data ||
      src->width != flow->width || src->height != flow->height ||
      dst->width != src->width || dst->height != src->height ||
      (border != CF_WARP_CLAMP && border != CF_WARP_ZERO_OUTSIDE))
    return CF_ERROR_INVALID;
  warp_bicubic_kernel <<< warp_grid (dst->width, dst->height),
      dim3 (WARP_BLOCK_X, WARP_BLOCK_Y), 0, stream >>> (src->data,
      src->pitch, flow->u, flow->v, flow->pitch, dst->width, dst->height,
      border, dst->data, dst->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_flow_resample (const cf_cuda_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  float fx, fy, sx, sy;

  if (!cf_cuda_flow_is_valid (src) || !cf_cuda_flow_is_valid (dst) ||
      src->u == dst->u || src->u == dst->v || src->v == dst->u ||
      src->v == dst->v)
    return CF_ERROR_INVALID;
  /* position scale (src / dst) and vector scale (dst / src), in fp32 on
   * the host exactly as common/warp.c */
  fx = (float) src->width / (float) dst->width;
  fy = (float) src->height / (float) dst->height;
  sx = (float) dst->width / (float) src->width;
  sy = (float) dst->height / (float) src->height;
  flow_resample_kernel <<< warp_grid (dst->width, dst->height),
      dim3 (WARP_BLOCK_X, WARP_BLOCK_Y), 0, stream >>> (src->u, src->v,
      src->pitch, src->width, src->height, fx, fy, sx, sy, dst->u, dst->v,
      dst->pitch, dst->width, dst->height);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_bicubic_downscale (const cf_cuda_image * src, float eta,
    cf_cuda_image * dst, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_image_is_valid (src) || !cf_cuda_image_is_valid (dst) ||
      src->data == dst->data || !(eta > 0.0f && eta < 1.0f))
    return CF_ERROR_INVALID;
  CF_CUDA_TRY (cf_cuda_launch (bicubic_downscale_kernel,
          warp_grid (dst->width, dst->height), dim3 (WARP_BLOCK_X,
              WARP_BLOCK_Y), 0, stream, cf_cuda_pdl_supported (),
          (const float *) src->data, src->pitch, src->width, src->height,
          eta, dst->data, dst->pitch, dst->width, dst->height));
out:
  return status;
}
