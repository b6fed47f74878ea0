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
/* Rows per thread, LUMA_BLOCK_Y apart: with the range, each block ends
 * in two atomics, a fence and a ticket, and four rows a thread make the
 * blocks of a 1080p frame fit the GPU at once (510), so that those
 * round trips are paid about once, not once per wave */
#define LUMA_ROWS 4

/* The luma's range, reduced by the luma kernels themselves (the _range
 * calls): each block folds the (min, max) of its pixels into two words
 * of the caller's scratch with atomicMax, and the block that finishes
 * last (a ticket) writes the pair out and zeroes the words for the next
 * call. Luma is >= +0 (unsigned samples, sums of non-negative products),
 * so a value's bits order as unsigned ints; the min goes in as their
 * complement, which makes 0 the starting value of both words and of the
 * ticket. This spares the separate reduction its read of the plane and
 * its two launches. */
struct luma_range
{
  unsigned *state;              /* max ~bits, max bits and the ticket,
                                 * LUMA_RANGE_APART words apart; NULL: no
                                 * range */
  float *result;                /* (min, max), device-writable */
};

/* The state's words in the scratch, one 128-byte line each (atomics on
 * one line queue behind each other), and the result when the host's pair
 * is pageable (then copied) */
#define LUMA_RANGE_APART 32
#define LUMA_RANGE_RESULT (3 * LUMA_RANGE_APART)
static_assert (LUMA_RANGE_RESULT + 2 <= CF_CUDA_LUMA_RANGE_SCRATCH,
    "the state and the result fit the scratch");

/** \brief Fold this thread's (@lo, @hi) into the block's, then the
 *  grid's; the last block writes the range. Every thread of the block
 *  calls it (warp shuffles, a barrier). */
static __device__ void
luma_range_commit (float lo, float hi, const luma_range & r)
{
  __shared__ unsigned s_lo[LUMA_BLOCK_X * LUMA_BLOCK_Y / 32];
  __shared__ unsigned s_hi[LUMA_BLOCK_X * LUMA_BLOCK_Y / 32];
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  unsigned klo = ~__float_as_uint (lo), khi = __float_as_uint (hi);

  for (int o = 16; o > 0; o /= 2) {
    klo = max (klo, __shfl_xor_sync (0xffffffffu, klo, o));
    khi = max (khi, __shfl_xor_sync (0xffffffffu, khi, o));
  }
  if (t % 32 == 0) {
    s_lo[t / 32] = klo;
    s_hi[t / 32] = khi;
  }
  __syncthreads ();
  if (t != 0)
    return;
  for (int w = 1; w < (int) (blockDim.x * blockDim.y / 32); w++) {
    klo = max (klo, s_lo[w]);
    khi = max (khi, s_hi[w]);
  }
  atomicMax (r.state, klo);
  atomicMax (r.state + LUMA_RANGE_APART, khi);
  /* the block's words are in before its ticket is */
  __threadfence ();
  if (atomicAdd (r.state + 2 * LUMA_RANGE_APART, 1u) ==
      gridDim.x * gridDim.y - 1) {
    klo = atomicExch (r.state, 0u);
    khi = atomicExch (r.state + LUMA_RANGE_APART, 0u);
    atomicExch (r.state + 2 * LUMA_RANGE_APART, 0u);
    r.result[0] = __uint_as_float (~klo);
    r.result[1] = __uint_as_float (khi);
  }
}

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
    size_t pitch, luma_range range)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * LUMA_RUN;
  const int y0 = blockIdx.y * blockDim.y * LUMA_ROWS + threadIdx.y;
  const int run = min (LUMA_RUN, width - x0);
  unsigned sample[LUMA_ROWS][LUMA_RUN];
  float lo = INFINITY, hi = 0.0f;
  int i, k;

  /* every load of the thread in flight, then the conversions and stores */
#pragma unroll
  for (i = 0; i < LUMA_ROWS; i++) {
    const int y = y0 + i * LUMA_BLOCK_Y;
    const uint8_t *p = data + (ptrdiff_t) y * stride +
        (ptrdiff_t) x0 * pixel_stride;

#pragma unroll
    for (k = 0; k < LUMA_RUN; k++) {
      const uint8_t *q = p + (ptrdiff_t) k * pixel_stride;

      if (k < run && y < height)
        sample[i][k] = depth == 8 ? q[0] : q[0] | (q[1] << 8);
    }
  }
#pragma unroll
  for (i = 0; i < LUMA_ROWS; i++) {
    const int y = y0 + i * LUMA_BLOCK_Y;
    float *out = dst + x0 + (size_t) y * pitch;
    float value[LUMA_RUN];

    if (run <= 0 || y >= height)
      break;
#pragma unroll
    for (k = 0; k < LUMA_RUN; k++) {
      if (k >= run)
        break;
      value[k] = (float) sample[i][k];
      if (depth != 8)
        value[k] = __fmul_rn (value[k], LUMA_SCALE_16);
      lo = fminf (lo, value[k]);
      hi = fmaxf (hi, value[k]);
    }
    if (run == LUMA_RUN && (size_t) out % sizeof (float4) == 0) {
      *reinterpret_cast < float4 * >(out) = make_float4 (value[0],
          value[1], value[2], value[3]);
    } else {
#pragma unroll
      for (k = 0; k < LUMA_RUN; k++)
        if (k < run)
          out[k] = value[k];
    }
  }
  if (range.state != NULL)
    luma_range_commit (lo, hi, range);
}

/** \brief Rec.601 Y = 0.299 R + 0.587 G + 0.114 B of 8-bit RGB(x) pixels,
 *  terms added left to right in fp32 (twin of cf_luma_from_rgb).
 *  \param r, g, b  byte offsets of the components inside a pixel */
__global__ static void
luma_from_rgb_kernel (const uint8_t * data, ptrdiff_t stride,
    int pixel_stride, int r, int g, int b, int width, int height, float *dst,
    size_t pitch, luma_range range)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = blockIdx.y * blockDim.y * LUMA_ROWS + threadIdx.y;
  uint8_t c[LUMA_ROWS][3];
  float lo = INFINITY, hi = 0.0f;
  int i;

  /* every load of the thread in flight, then the sums and stores */
#pragma unroll
  for (i = 0; i < LUMA_ROWS; i++) {
    const int y = y0 + i * LUMA_BLOCK_Y;
    const uint8_t *p = data + (ptrdiff_t) y * stride +
        (ptrdiff_t) x * pixel_stride;

    if (x < width && y < height) {
      c[i][0] = p[r];
      c[i][1] = p[g];
      c[i][2] = p[b];
    }
  }
#pragma unroll
  for (i = 0; i < LUMA_ROWS; i++) {
    const int y = y0 + i * LUMA_BLOCK_Y;
    float sum;

    if (x >= width || y >= height)
      break;
    sum = __fadd_rn (__fmul_rn (0.299f, (float) c[i][0]),
        __fmul_rn (0.587f, (float) c[i][1]));
    sum = __fadd_rn (sum, __fmul_rn (0.114f, (float) c[i][2]));
    dst[x + (size_t) y * pitch] = sum;
    lo = fminf (lo, sum);
    hi = fmaxf (hi, sum);
  }
  if (range.state != NULL)
    luma_range_commit (lo, hi, range);
}

static int
plane_is_valid (const cf_cuda_image * img)
{
  return img != NULL && img->data != NULL && img->width > 0 &&
      img->height > 0 && img->pitch >= (size_t) img->width;
}

static float *mapped_host_pointer (float *host);

/* The kernels' range arguments for @scratch and @host_range (both NULL:
 * no range): the pair goes straight to @host_range where it is pinned,
 * else to the scratch, and *copy says to copy it from there. */
static luma_range
range_args (float *scratch, float *host_range, int *copy)
{
  luma_range r = { NULL, NULL };

  *copy = 0;
  if (scratch == NULL)
    return r;
  r.state = (unsigned *) scratch;
  r.result = mapped_host_pointer (host_range);
  if (r.result == NULL) {
    r.result = scratch + LUMA_RANGE_RESULT;
    *copy = 1;
  }
  return r;
}

static cf_status
copy_range (int copy, const float *scratch, float *host_range,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (copy)
    CF_CUDA_TRY (cudaMemcpyAsync (host_range, scratch + LUMA_RANGE_RESULT,
            2 * sizeof (float), cudaMemcpyDeviceToHost, stream));
out:
  return status;
}

static cf_status
luma_from_channel (const cf_channel * src, cf_cuda_image * dst,
    float *scratch, float *host_range, cudaStream_t stream)
{
  cf_status status = CF_OK;
  luma_range range;
  dim3 grid;
  int copy;

  /* the checks of common/planes.c channel_is_valid and plane_matches */
  if (src == NULL || src->data == NULL || src->width <= 0 ||
      src->height <= 0 || (src->depth != 8 && src->depth != 16) ||
      src->pixel_stride < src->depth / 8 || !plane_is_valid (dst) ||
      dst->width != src->width || dst->height != src->height)
    return CF_ERROR_INVALID;
  range = range_args (scratch, host_range, &copy);
  grid = dim3 (cf_div_up (src->width, LUMA_BLOCK_X * LUMA_RUN),
      cf_div_up (src->height, LUMA_BLOCK_Y * LUMA_ROWS));
  luma_from_channel_kernel <<< grid, dim3 (LUMA_BLOCK_X, LUMA_BLOCK_Y), 0,
      stream >>> ((const uint8_t *) src->data, src->stride,
      src->pixel_stride, src->depth, src->width, src->height, dst->data,
      dst->pitch, range);
  CF_CUDA_TRY_LAUNCH ();
  status = copy_range (copy, scratch, host_range, stream);
out:
  return status;
}

static cf_status
luma_from_rgb (const void *data, ptrdiff_t stride, int pixel_stride,
    int r, int g, int b, cf_cuda_image * dst, float *scratch,
    float *host_range, cudaStream_t stream)
{
  cf_status status = CF_OK;
  luma_range range;
  dim3 grid;
  int copy;

  if (data == NULL || !plane_is_valid (dst) || pixel_stride < 1 || r < 0 ||
      g < 0 || b < 0 || r >= pixel_stride || g >= pixel_stride ||
      b >= pixel_stride)
    return CF_ERROR_INVALID;
  range = range_args (scratch, host_range, &copy);
  grid = dim3 (cf_div_up (dst->width, LUMA_BLOCK_X),
      cf_div_up (dst->height, LUMA_BLOCK_Y * LUMA_ROWS));
  luma_from_rgb_kernel <<< grid, dim3 (LUMA_BLOCK_X, LUMA_BLOCK_Y), 0,
      stream >>> ((const uint8_t *) data, stride, pixel_stride, r, g, b,
      dst->width, dst->height, dst->data, dst->pitch, range);
  CF_CUDA_TRY_LAUNCH ();
  status = copy_range (copy, scratch, host_range, stream);
out:
  return status;
}

extern "C" cf_status
cf_cuda_luma_from_channel (const cf_channel * src, cf_cuda_image * dst,
    cudaStream_t stream)
{
  return luma_from_channel (src, dst, NULL, NULL, stream);
}

extern "C" cf_status
cf_cuda_luma_from_rgb (const void *data, ptrdiff_t stride, int pixel_stride,
    int r, int g, int b, cf_cuda_image * dst, cudaStream_t stream)
{
  return luma_from_rgb (data, stride, pixel_stride, r, g, b, dst, NULL,
      NULL, stream);
}

extern "C" cf_status
cf_cuda_luma_range_scratch_clear (float *scratch, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (scratch == NULL)
    return CF_ERROR_INVALID;
  CF_CUDA_TRY (cudaMemsetAsync (scratch, 0, LUMA_RANGE_RESULT *
          sizeof (unsigned), stream));
out:
  return status;
}

extern "C" cf_status
cf_cuda_luma_from_channel_range (const cf_channel * src, cf_cuda_image * dst,
    float *scratch, float *host_range, cudaStream_t stream)
{
  if (scratch == NULL || host_range == NULL)
    return CF_ERROR_INVALID;
  return luma_from_channel (src, dst, scratch, host_range, stream);
}

extern "C" cf_status
cf_cuda_luma_from_rgb_range (const void *data, ptrdiff_t stride,
    int pixel_stride, int r, int g, int b, cf_cuda_image * dst,
    float *scratch, float *host_range, cudaStream_t stream)
{
  if (scratch == NULL || host_range == NULL)
    return CF_ERROR_INVALID;
  return luma_from_rgb (data, stride, pixel_stride, r, g, b, dst, scratch,
      host_range, stream);
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
