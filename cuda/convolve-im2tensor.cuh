/* gst-cudaflow — im2tensor: what the WMMA kernel, the MMA kernel and the
 * MMA kernel's CPU emulation share
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Device and host code (C++), for convolve-im2tensor.cu (the plan, the pad
 * kernel, the WMMA kernel) and convolve-im2tensor-mma.cu (the MMA kernel
 * and its emulation) only. The padded image is defined by one function,
 * im2tensor_pad_pair (), which the emulation runs on the CPU; the pad
 * kernel runs im2tensor_pad_run (), the same samples a run of
 * I2T_PAD_RUN columns at a time, checked against it bit for bit on the
 * CPU (cf_im2tensor_pad_compare ()). The kernel scale s_k and the band of
 * the MMA kernel likewise come from one host function each.
 */
#ifndef CF_CUDA_CONVOLVE_IM2TENSOR_CUH
#define CF_CUDA_CONVOLVE_IM2TENSOR_CUH

#include "cuda/cuda-internal.h"
#include "cuda/convolve-im2tensor.h"

#include "common/border.h"

#include <cuda_fp16.h>

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Largest finite fp16 value. */
#define I2T_HALF_MAX 65504.0f

/* The padded fp16 image of a plan, @rows rows of @pitch halves:
 *   I(u, v) = s_in in(fold(u - ax), fold(v - ay)) for u < ext_w and
 *   v < ext_h, 0 elsewhere (file comment of convolve-im2tensor.cu). */
typedef struct
{
  int width;                    /* input plane */
  int height;
  int ext_w;                    /* W + kw - 1: columns an output reads */
  int ext_h;                    /* H + kh - 1: rows an output reads */
  int ax;                       /* anchor of F: left padding */
  int ay;                       /* top padding */
  cf_border border;
  float scale;                  /* s_in, CF_IM2TENSOR_INPUT_SCALE */
  size_t pitch;                 /* halves per row; even, and a multiple of
                                 * I2T_PAD_RUN for the pad kernel */
  int rows;
} im2tensor_pad_geometry;

/* Scale, then keep the value finite in fp16 (NaN stays NaN). */
static inline __host__ __device__ __half
im2tensor_to_half (float v, float scale)
{
  v *= scale;
  if (fabsf (v) > I2T_HALF_MAX)
    v = copysignf (I2T_HALF_MAX, v);
  return __float2half_rn (v);
}

/* I(u, v) of the padded image, rounded to fp16 (u, v >= 0). */
static inline __host__ __device__ __half
im2tensor_pad_sample (const float *src, size_t src_pitch,
    const im2tensor_pad_geometry * g, int u, int v)
{
  float value = 0.0f;

  if (u < g->ext_w && v < g->ext_h) {
    const int sx = cf_border_fold (u - g->ax, g->width, g->border);
    const int sy = cf_border_fold (v - g->ay, g->height, g->border);

    if (sx >= 0 && sy >= 0)
      value = src[(size_t) sy * src_pitch + sx];
  }
  return im2tensor_to_half (value, g->scale);
}

/* Write the 32-bit word at even column u of row v: (I(u, v), I(u + 1, v)),
 * the sample of lower index in the low half (the order mma and wmma read
 * pairs in). The pitch is even, so the word is 4-byte aligned. */
static inline __host__ __device__ void
im2tensor_pad_pair (const float *src, size_t src_pitch,
    const im2tensor_pad_geometry * g, __half * pad, size_t u, int v)
{
  const __half h0 = im2tensor_pad_sample (src, src_pitch, g, (int) u, v);
  const __half h1 = im2tensor_pad_sample (src, src_pitch, g, (int) u + 1, v);
  __half *p = pad + (size_t) v * g->pitch + u;

  *reinterpret_cast < __half2 * >(p) = __halves2half2 (h0, h1);
}

/* Columns the pad kernel writes per thread: one 16-byte store. */
#define I2T_PAD_RUN 8

/* The source row of padded row @v, folded once for the whole row; NULL
 * where every sample of the row is 0 (v >= ext_h, or a row outside the
 * image under the zero rule). */
static inline __host__ __device__ const float *
im2tensor_pad_source_row (const float *src, size_t src_pitch,
    const im2tensor_pad_geometry * g, int v)
{
  int sy;

  if (v >= g->ext_h)
    return NULL;
  sy = cf_border_fold (v - g->ay, g->height, g->border);
  return sy >= 0 ? src + (size_t) sy * src_pitch : NULL;
}

/* I(u, v) on padded row v whose source row @row (im2tensor_pad_source_row
 * ()) is already folded: im2tensor_pad_sample () with the row's fold done
 * once. */
static inline __host__ __device__ __half
im2tensor_pad_sample_in_row (const float *row,
    const im2tensor_pad_geometry * g, int u)
{
  float value = 0.0f;

  if (row != NULL && u < g->ext_w) {
    const int sx = cf_border_fold (u - g->ax, g->width, g->border);

    if (sx >= 0)
      value = row[sx];
  }
  return im2tensor_to_half (value, g->scale);
}

/* Two halves as the 32-bit word mma and wmma read: @lo (the sample of
 * lower index) in the low half. */
static inline __host__ __device__ uint32_t
im2tensor_half_word (__half lo, __half hi)
{
  return (uint32_t) __half_as_ushort (lo)
      | (uint32_t) __half_as_ushort (hi) << 16;
}

/* Write columns u .. u + I2T_PAD_RUN - 1 of row v, one 16-byte store:
 * exactly what im2tensor_pad_pair () writes at u, u + 2, .., u +
 * I2T_PAD_RUN - 2 (cf_im2tensor_pad_compare () checks it). @u and the
 * pitch are multiples of I2T_PAD_RUN and @pad is 16-byte aligned, so the
 * store is aligned.
 *
 * Where all n = I2T_PAD_RUN columns fold to themselves (source columns
 * u - ax .. u - ax + n - 1 in [0, W), u + n - 1 below ext_w) the run
 * reads them straight from the row, with no fold; other
 * runs (the left and right borders, the pitch's tail) fold each column.
 * The row is folded once per run either way, so the rows above and below
 * the image (clamp, reflect, wrap) take the fast path too. Every value
 * goes through the same im2tensor_to_half () as the reference, the zero
 * rule's 0 as well, so the bits cannot differ. The source has no
 * alignment (any pitch, any anchor): plain scalar loads. */
static inline __host__ __device__ void
im2tensor_pad_run (const float *src, size_t src_pitch,
    const im2tensor_pad_geometry * g, __half * pad, size_t u, int v)
{
  const float *row = im2tensor_pad_source_row (src, src_pitch, g, v);
  const int n = I2T_PAD_RUN;
  const int x0 = (int) u - g->ax;       /* source column of u */
  __half h[I2T_PAD_RUN];
  uint4 w;
  __half *p = pad + (size_t) v * g->pitch + u;

  if (row != NULL && x0 >= 0 && x0 + n <= g->width
      && (int) u + n <= g->ext_w) {
    CF_UNROLL
    for (int i = 0; i < I2T_PAD_RUN; i++)
      h[i] = im2tensor_to_half (row[x0 + i], g->scale);
  } else {
    CF_UNROLL
    for (int i = 0; i < I2T_PAD_RUN; i++)
      h[i] = im2tensor_pad_sample_in_row (row, g, (int) u + i);
  }

  w.x = im2tensor_half_word (h[0], h[1]);
  w.y = im2tensor_half_word (h[2], h[3]);
  w.z = im2tensor_half_word (h[4], h[5]);
  w.w = im2tensor_half_word (h[6], h[7]);
  *reinterpret_cast < uint4 * >(p) = w;
}

static_assert (I2T_PAD_RUN == 8, "im2tensor_pad_run () packs 8 halves");

/* s_k: the power of two with max |F| s_k in [1, 2), so small taps stay
 * normal fp16 numbers and 1 / (s_in s_k) undoes the scaling exactly. An
 * all-zero or non-finite kernel keeps s_k = 1. */
static inline float
im2tensor_kernel_scale (const float *f, int kw, int kh)
{
  float max_abs = 0.0f;
  int e;

  for (size_t n = 0; n < (size_t) kw * kh; n++)
    max_abs = fmaxf (max_abs, fabsf (f[n]));
  if (!(max_abs > 0.0f) || !isfinite (max_abs))
    return 1.0f;
  (void) frexpf (max_abs, &e);  /* max_abs = m 2^e, m in [0.5, 1) */
  e = 1 - e;
  e = e < -100 ? -100 : (e > 100 ? 100 : e);
  return ldexpf (1.0f, e);
}

/* Geometry of the MMA kernel for one image size and kernel size
 * (convolve-im2tensor-mma.cu). */
typedef struct
{
  int ks;                       /* k-steps of 16 taps per chunk, 1 .. 4 */
  int chunks;                   /* chunks of 64 taps (1 for kw < 64) */
  int kw_band;                  /* taps per band row, at least kw + 1:
                                 * 16 ks + 64 (chunks - 1) */
  int band_pitch;               /* halves per band row: kw_band + 8 */
  int band_rows;                /* kh + 14: kernel rows -7 .. kh + 6 */
  int mt;                       /* m-tiles a warp: 8 (128 columns) or 4 */
  int n_bx;                     /* blocks across: ceil (W / (16 mt)) */
  int n_by;                     /* blocks down: ceil (H / 64) */
  size_t pad_pitch;             /* halves per row of the padded image */
  int pad_rows;                 /* rows of the padded image */
} im2tensor_mma_geometry;

/* @sms: the device's multiprocessors; the warps are 64 columns wide
 * where a grid of 128-wide blocks would have no more blocks than that,
 * else (and with @sms 0) 128. */
void im2tensor_mma_geometry_init (int width, int height, int kw, int kh,
    int sms, im2tensor_mma_geometry * geo);

/* Bytes of the two bands (their copy in shared memory is as large). */
size_t im2tensor_mma_band_bytes (const im2tensor_mma_geometry * geo);

/* The bands on the host, band 1 after band 0: band_rows rows of
 * band_pitch halves each, row d' + 7 of band o holding s_k F[d'][i] at
 * column i + o for 0 <= d' < kh and i < kw, 0 elsewhere. */
void im2tensor_mma_band_fill (const float *f, int kw, int kh, float k_scale,
    const im2tensor_mma_geometry * geo, __half * band);

/* Whether this device runs the MMA kernel of @variant (MMA: the staged
 * loop, MMA_REGS: the register loop) for @geo: compute capability 8.0
 * or newer, the kernel built for such a device (a compute_75 PTX
 * JIT-compiled for it would have an empty body), the band within
 * CF_IM2TENSOR_MMA_BAND_MAX bytes, and the band (and the staged loop's
 * rings) within the device's shared memory per block. Raises the
 * kernel's dynamic shared memory limit when they need it. */
cf_status im2tensor_mma_prepare (const im2tensor_mma_geometry * geo,
    cf_im2tensor_variant variant, int *supported);

/* Blocks of the MMA kernel of @variant for @geo that one multiprocessor
 * holds at once (0 if the runtime cannot say). */
int im2tensor_mma_blocks_per_sm (const im2tensor_mma_geometry * geo,
    cf_im2tensor_variant variant);

/* Queue the MMA kernel of @variant: correlation of the padded image @pad
 * with the band @band (device memory) into @dst, scaled by @out_scale;
 * with @pdl as a programmatic dependent of the padding pass before it. */
cf_status im2tensor_mma_launch (const im2tensor_mma_geometry * geo,
    cf_im2tensor_variant variant, const __half * pad, const __half * band,
    int kh, float *dst, size_t dst_pitch, int width, int height,
    float out_scale, int pdl, cudaStream_t stream);

/* The pad geometry of the MMA kernel or of the WMMA kernel: @rows rows of
 * @pitch halves. */
static inline im2tensor_pad_geometry
im2tensor_pad_geometry_make (int width, int height, int kw, int kh, int ax,
    int ay, cf_border border, size_t pitch, int rows)
{
  im2tensor_pad_geometry g;

  g.width = width;
  g.height = height;
  g.ext_w = width + kw - 1;
  g.ext_h = height + kh - 1;
  g.ax = ax;
  g.ay = ay;
  g.border = border;
  g.scale = CF_IM2TENSOR_INPUT_SCALE;
  g.pitch = pitch;
  g.rows = rows;
  return g;
}

#endif /* CF_CUDA_CONVOLVE_IM2TENSOR_CUH */
