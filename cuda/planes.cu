/* gst-cudaflow — GPU twins of cf_channel_unpack / cf_channel_pack
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Same channel description as common/planes.h, data in device memory; the
 * results equal the CPU functions bit for bit: samples are read and written
 * byte by byte (16-bit little-endian, whatever the alignment), and packing
 * rounds half up exactly as common/planes.c does (fp32, no fast math).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/planes.h"

#include <stdint.h>

namespace {

/* 2-D launch shape of both kernels: one thread per sample. */
constexpr int PLANES_BLOCK_X = 32;
constexpr int PLANES_BLOCK_Y = 8;

/* Same checks as the CPU twin: a channel points somewhere, has a positive
 * size, a depth of 8 or 16 and samples at least one sample size apart. */
static int
channel_is_valid (const cf_channel * ch)
{
  return ch != NULL && ch->data != NULL && ch->width > 0 && ch->height > 0
      && (ch->depth == 8 || ch->depth == 16)
      && ch->pixel_stride >= ch->depth / 8;
}

/* A device plane of exactly width x height with a sane pitch. */
static int
plane_matches (const cf_cuda_image * img, int width, int height)
{
  return img != NULL && img->data != NULL && img->width == width
      && img->height == height && img->pitch >= (size_t) width;
}

/* One sample: s = v + offset in fp32, rounded half up, clamped to [0, max];
 * NaN gives 0, +inf max. With r = floorf (s) the fraction s - r is exact in
 * fp32, so r + 1 is taken iff s - r >= 0.5 (floorf (s + 0.5f) would round
 * 0.49999997f up). Identical to pack_sample () in common/planes.c. */
__device__ static inline unsigned
pack_sample (float v, float offset, float max)
{
  const float s = __fadd_rn (v, offset);
  float r = floorf (s);

  if (__fsub_rn (s, r) >= 0.5f)
    r = __fadd_rn (r, 1.0f);
  if (!(r > 0.0f))              /* also NaN */
    return 0;
  if (r >= max)
    return (unsigned) max;
  return (unsigned) r;
}

/**
 * \brief out(x, y) = sample (x, y) of the channel as float, unchanged in
 * value (0..255 or 0..65535).
 *
 * \param[in]  data          first sample of the channel (device memory)
 * \param[in]  stride        bytes between rows (may be negative)
 * \param[in]  pixel_stride  bytes between samples of a row
 * \param[in]  depth         8 or 16 (little-endian)
 * \param[out] out           float plane, pitch in elements
 * \param[in]  pitch         elements between rows of out
 * \param[in]  width         samples per row
 * \param[in]  height        rows
 */
__global__ static void
channel_unpack_kernel (const uint8_t * __restrict__ data, ptrdiff_t stride,
    int pixel_stride, int depth, float *__restrict__ out, size_t pitch,
    int width, int height)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const uint8_t *p;

  if (x >= width || y >= height)
    return;
  p = data + (ptrdiff_t) y * stride + (ptrdiff_t) x * pixel_stride;
  out[x + (size_t) y * pitch] = depth == 8 ? (float) p[0]
      : (float) (unsigned) (p[0] | (p[1] << 8));
}

/**
 * \brief Sample (x, y) of the channel = clamp (round_half_up (in + offset),
 * 0, max); only the bytes of the described samples are written.
 *
 * \param[in]  in            float plane, pitch in elements
 * \param[in]  pitch         elements between rows of in
 * \param[in]  offset        added before rounding
 * \param[out] data          first sample of the channel (device memory)
 * \param[in]  stride        bytes between rows (may be negative)
 * \param[in]  pixel_stride  bytes between samples of a row
 * \param[in]  depth         8 or 16 (little-endian)
 * \param[in]  width         samples per row
 * \param[in]  height        rows
 */
__global__ static void
channel_pack_kernel (const float *__restrict__ in, size_t pitch,
    float offset, uint8_t * __restrict__ data, ptrdiff_t stride,
    int pixel_stride, int depth, int width, int height)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  uint8_t *p;
  unsigned v;

  if (x >= width || y >= height)
    return;
  p = data + (ptrdiff_t) y * stride + (ptrdiff_t) x * pixel_stride;
  v = pack_sample (in[x + (size_t) y * pitch], offset,
      depth == 8 ? 255.0f : 65535.0f);
  p[0] = (uint8_t) (v & 0xff);
  if (depth == 16)
    p[1] = (uint8_t) (v >> 8);
}

}                               /* namespace */

extern "C" cf_status
cf_cuda_channel_unpack (const cf_channel * src, cf_cuda_image * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 block (PLANES_BLOCK_X, PLANES_BLOCK_Y);
  dim3 grid;

  if (!channel_is_valid (src) || !plane_matches (dst, src->width,
          src->height))
    return CF_ERROR_INVALID;
  grid = dim3 (cf_div_up (src->width, PLANES_BLOCK_X),
      cf_div_up (src->height, PLANES_BLOCK_Y));
  channel_unpack_kernel <<< grid, block, 0, stream >>> ((const uint8_t *)
      src->data, src->stride, src->pixel_stride, src->depth, dst->data,
      dst->pitch, src->width, src->height);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_channel_pack (const cf_cuda_image * src, float offset,
    const cf_channel * dst, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 block (PLANES_BLOCK_X, PLANES_BLOCK_Y);
  dim3 grid;

  if (!channel_is_valid (dst) || !plane_matches (src, dst->width,
          dst->height))
    return CF_ERROR_INVALID;
  grid = dim3 (cf_div_up (dst->width, PLANES_BLOCK_X),
      cf_div_up (dst->height, PLANES_BLOCK_Y));
  channel_pack_kernel <<< grid, block, 0, stream >>> (src->data, src->pitch,
      offset, (uint8_t *) dst->data, dst->stride, dst->pixel_stride,
      dst->depth, dst->width, dst->height);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}
