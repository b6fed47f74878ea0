/* gst-cudaflow — luma extraction for the flow elements (GPU)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Twins of cf_luma_from_channel and cf_luma_from_rgb (common/planes.c), bit
 * for bit: the products and sums are spelled with __fmul_rn / __fadd_rn in
 * the CPU's order so nvcc cannot contract them into FMAs (the CPU reference
 * is built without FMA contraction on x86-64).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/luma.h"
#include "cuda/cuda-internal.h"

#include <math.h>
#include <stdint.h>

/* 2-D launch shape of both kernels */
static const int LUMA_BLOCK_X = 32;
static const int LUMA_BLOCK_Y = 8;

/* 16-bit samples to 0..255: one fp32 multiply by the rounded quotient, as
 * `row[x] *= 255.0f / 65535.0f` in common/planes.c. */
#define LUMA_SCALE_16 (255.0f / 65535.0f)

/* Pixels of a row per thread of luma_from_channel_kernel: one 16-byte
 * store of the four values where the row allows it */
#define LUMA_RUN 4

/** \brief dst(x, y) = sample (x, y) in 0..255, LUMA_RUN pixels of a row
 *  per thread.
 *  \param[in] data          first sample (device memory)
 *  \param stride            bytes between rows (may be negative)
 *  \param pixel_stride      bytes between samples of a row
 *  \param depth             8 or 16 (16: little-endian, times 255/65535)
 *  \param[out] dst          float plane, @pitch elements per row */
__global__ static void
luma_from_channel_kernel (const uint8_t * data, ptrdiff_t stride,
    int pixel_stride, int depth, int width, int height, float *dst,
    size_t pitch)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * LUMA_RUN;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const uint8_t *p;
  float *out;
  float value[LUMA_RUN];

  if (x0 >= width || y >= height)
    return;
  p = data + (ptrdiff_t) y * stride + (ptrdiff_t) x0 * pixel_stride;
  out = dst + x0 + (size_t) y * pitch;
#pragma unroll
  for (int k = 0; k < LUMA_RUN; k++) {
    const uint8_t *q = p + (ptrdiff_t) k * pixel_stride;

    if (x0 + k >= width)
      break;
    if (depth == 8) {
      value[k] = (float) q[0];
    } else {
      value[k] = (float) (unsigned) (q[0] | (q[1] << 8));
      value[k] = __fmul_rn (value[k], LUMA_SCALE_16);
    }
  }
  if (x0 + LUMA_RUN <= width && (size_t) out % sizeof (float4) == 0) {
    *reinterpret_cast < float4 * >(out) = make_float4 (value[0], value[1],
        value[2], value[3]);
  } else {
#pragma unroll
    for (int k = 0; k < LUMA_RUN; k++)
      if (x0 + k < width)
        out[k] = value[k];
  }
}

/** \brief Rec.601 Y = 0.299 R + 0.587 G + 0.114 B of 8-bit RGB(x) pixels,
 *  terms added left to right in fp32 (twin of cf_luma_from_rgb).
 *  \param r, g, b  byte offsets of the components inside a pixel */
__global__ static void
luma_from_rgb_kernel (const uint8_t * data, ptrdiff_t stride,
    int pixel_stride, int r, int g, int b, int width, int height, float *dst,
    size_t pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const uint8_t *p;
  float sum;

  if (x >= width || y >= height)
    return;
  p = data + (ptrdiff_t) y * stride + (ptrdiff_t) x * pixel_stride;
  sum = __fadd_rn (__fmul_rn (0.299f, (float) p[r]),
      __fmul_rn (0.587f, (float) p[g]));
  sum = __fadd_rn (sum, __fmul_rn (0.114f, (float) p[b]));
  dst[x + (size_t) y * pitch] = sum;
}

static int
plane_is_valid (const cf_cuda_image * img)
{
  return img != NULL && img->data != NULL && img->width > 0 &&
      img->height > 0 && img->pitch >= (size_t) img->width;
}

extern "C" cf_status
cf_cuda_luma_from_channel (const cf_channel * src, cf_cuda_image * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  dim3 grid;

  /* the checks of common/planes.c channel_is_valid and plane_matches */
  if (src == NULL || src->data == NULL || src->width <= 0 ||
      src->height <= 0 || (src->depth != 8 && src->depth != 16) ||
      src->pixel_stride < src->depth / 8 || !plane_is_valid (dst) ||
      dst->width != src->width || dst->height != src->height)
    return CF_ERROR_INVALID;
  grid = dim3 (cf_div_up (src->width, LUMA_BLOCK_X * LUMA_RUN),
      cf_div_up (src->height, LUMA_BLOCK_Y));
  luma_from_channel_kernel <<< grid, dim3 (LUMA_BLOCK_X, LUMA_BLOCK_Y), 0,
      stream >>> ((const uint8_t *) src->data, src->stride,
      src->pixel_stride, src->depth, src->width, src->height, dst->data,
      dst->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_luma_from_rgb (const void *data, ptrdiff_t stride, int pixel_stride,
    int r, int g, int b, cf_cuda_image * dst, cudaStream_t stream)
{
  cf_status status = CF_OK;
  dim3 grid;

  if (data == NULL || !plane_is_valid (dst) || pixel_stride < 1 || r < 0 ||
      g < 0 || b < 0 || r >= pixel_stride || g >= pixel_stride ||
      b >= pixel_stride)
    return CF_ERROR_INVALID;
  grid = dim3 (cf_div_up (dst->width, LUMA_BLOCK_X),
      cf_div_up (dst->height, LUMA_BLOCK_Y));
  luma_from_rgb_kernel <<< grid, dim3 (LUMA_BLOCK_X, LUMA_BLOCK_Y), 0,
      stream >>> ((const uint8_t *) data, stride, pixel_stride, r, g, b,
      dst->width, dst->height, dst->data, dst->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* --- min / max -------------------------------------------------------- */

/* Blocks of the first pass (each leaves one (min, max) pair in scratch);
 * the second pass is one block over those pairs. Enough blocks, and four
 * loads in flight per thread, that the pass is not bound by load latency
 * (fewer blocks with one load at a time were slower: measured in
 * docs/flow-speed.md). */
#define MIN_MAX_BLOCKS (CF_CUDA_MIN_MAX_SCRATCH / 2)
#define MIN_MAX_THREADS 256
#define MIN_MAX_LOADS 4

/** \brief Block-wise (min, max) of @n_pairs pairs (or of the plane when
 *  @data is set), written to pairs_out[2 blockIdx], [2 blockIdx + 1] and,
 *  when set, to result[0], result[1] (the last pass, one block). */
__global__ static void
min_max_kernel (const float *data, int width, int height, size_t pitch,
    const float *pairs_in, int n_pairs, float *pairs_out, float *result)
{
  __shared__ float s_min[MIN_MAX_THREADS], s_max[MIN_MAX_THREADS];
  float lo = INFINITY, hi = -INFINITY;
  int t = threadIdx.x;

  /* a programmatic dependent (cf_cuda_launch): the plane or the pairs
   * are the kernel before's output, read through L2 */
  cf_pdl_launch_dependents ();
  cf_pdl_wait ();
  if (data) {
    /* rows over the blocks, columns over the threads: no per-element
     * 64-bit division */
    const int step = MIN_MAX_THREADS;
    for (int y = blockIdx.x; y < height; y += gridDim.x) {
      const float *row = data + (size_t) y * pitch;
      for (int x = t; x < width; x += MIN_MAX_LOADS * step) {
        float v[MIN_MAX_LOADS];
#pragma unroll
        for (int k = 0; k < MIN_MAX_LOADS; k++)
          v[k] = __ldcg (row + (x + k * step < width ? x + k * step : x));
#pragma unroll
        for (int k = 0; k < MIN_MAX_LOADS; k++) {
          lo = fminf (lo, v[k]);
          hi = fmaxf (hi, v[k]);
        }
      }
    }
  } else {
    /* MIN_MAX_LOADS pairs per thread in flight at once */
    for (int i0 = t; i0 < n_pairs; i0 += MIN_MAX_LOADS * MIN_MAX_THREADS) {
      float2 p[MIN_MAX_LOADS];
#pragma unroll
      for (int k = 0; k < MIN_MAX_LOADS; k++) {
        const int i = i0 + k * MIN_MAX_THREADS;
        p[k] = __ldcg (reinterpret_cast < const float2 *>(pairs_in) +
            (i < n_pairs ? i : i0));
      }
#pragma unroll
      for (int k = 0; k < MIN_MAX_LOADS; k++) {
        lo = fminf (lo, p[k].x);
        hi = fmaxf (hi, p[k].y);
      }
    }
  }
  s_min[t] = lo;
  s_max[t] = hi;
  __syncthreads ();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) {
      s_min[t] = fminf (s_min[t], s_min[t + half]);
      s_max[t] = fmaxf (s_max[t], s_max[t + half]);
    }
    __syncthreads ();
  }
  if (t == 0) {
    pairs_out[2 * blockIdx.x] = s_min[0];
    pairs_out[2 * blockIdx.x + 1] = s_max[0];
    if (result != NULL) {
      result[0] = s_min[0];
      result[1] = s_max[0];
    }
  }
}

/* The device's address of @host when it is pinned host memory the
 * device can write (every cudaMallocHost allocation with unified
 * addressing); NULL for pageable memory. */
static float *
mapped_host_pointer (float *host)
{
  cudaPointerAttributes attr;

  if (cudaPointerGetAttributes (&attr, host) != cudaSuccess) {
    (void) cudaGetLastError ();
    return NULL;
  }
  return attr.type == cudaMemoryTypeHost ? (float *) attr.devicePointer :
      NULL;
}

extern "C" cf_status
cf_cuda_image_min_max_async (const cf_cuda_image * img, float *scratch,
    float *host_range, cudaStream_t stream)
{
  cf_status status = CF_OK;
  float *mapped;
  long n;
  int blocks, pdl;

  if (!plane_is_valid (img) || scratch == NULL || host_range == NULL)
    return CF_ERROR_INVALID;
  n = img->height;
  blocks = n < MIN_MAX_BLOCKS ? (int) n : MIN_MAX_BLOCKS;
  pdl = cf_cuda_pdl_supported ();
  /* pinned: pass 2 writes the pair there itself, which spares the stream
   * a copy (a few microseconds between two kernels, and the kernel after
   * it a programmatic start) */
  mapped = mapped_host_pointer (host_range);
  CF_CUDA_TRY (cf_cuda_launch (min_max_kernel, dim3 (blocks),
          dim3 (MIN_MAX_THREADS), 0, stream, pdl, (const float *) img->data,
          img->width, img->height, img->pitch, (const float *) NULL, 0,
          scratch, (float *) NULL));
  /* the pairs of pass 1 are read before pass 2's block writes pair 0 */
  CF_CUDA_TRY (cf_cuda_launch (min_max_kernel, dim3 (1),
          dim3 (MIN_MAX_THREADS), 0, stream, pdl, (const float *) NULL, 0, 0,
          (size_t) 0, (const float *) scratch, blocks, scratch, mapped));
  if (mapped == NULL)
    CF_CUDA_TRY (cudaMemcpyAsync (host_range, scratch, 2 * sizeof (float),
            cudaMemcpyDeviceToHost, stream));
out:
  return status;
}

extern "C" cf_status
cf_cuda_image_min_max (const cf_cuda_image * img, float *scratch,
    float *min_value, float *max_value, cudaStream_t stream)
{
  cf_status status = CF_OK;
  float result[2];

  if (min_value == NULL || max_value == NULL)
    return CF_ERROR_INVALID;
  if ((status = cf_cuda_image_min_max_async (img, scratch, result,
              stream)) != CF_OK)
    return status;
  CF_CUDA_TRY (cudaStreamSynchronize (stream));
  *min_value = result[0];
  *max_value = result[1];
out:
  return status;
}
