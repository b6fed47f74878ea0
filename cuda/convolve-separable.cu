/* gst-cudaflow — separable 2-D correlation: a row pass, then a column pass
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For a rank-1 correlation kernel F = c r^T (factored once at plan_new by
 * cf_convolve_rank1 ()) the 'same'-size correlation of cf_convolve () is
 *   tmp(x, y) = sum_i r[i] in(fold(x + i - ax), y)        (row pass)
 *   out(x, y) = sum_j c[j] tmp(x, fold(y + j - ay))       (column pass)
 * Every border rule folds x and y independently (common/border.h), and for
 * the zero rule a tap is skipped when either coordinate is outside, which
 * is what a 0 in either pass gives; so the result equals the CPU's up to
 * rounding, kernels larger than the image included. 2 (kw + kh) FMAs per
 * pixel instead of 2 kw kh.
 *
 * Both passes use one fixed shared-memory budget for any kernel up to
 * CF_KERNEL_MAX_SIZE taps: the taps are consumed in chunks, and for each
 * chunk a block stages the input window its tile needs for those taps,
 * every sample folded like every CPU tap.
 *
 *  - Row pass: 32 x 8 threads, a 128 x 8 output tile, each thread 4 outputs
 *    32 columns apart (a warp reads 32 consecutive window samples: no bank
 *    conflicts). Chunks of up to 128 taps.
 *  - Column pass: 32 x 8 threads, a 32 x 64 output tile, each thread 8
 *    adjacent rows of one column (coalesced 128-byte row loads). Chunks of
 *    up to 64 taps.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/convolve-separable.h"

#include "common/border.h"

#include <math.h>

namespace {

/* Both passes: one warp across, SEP_BLOCK_Y warps down. */
constexpr int SEP_BLOCK_X = 32;
constexpr int SEP_BLOCK_Y = 8;
constexpr int SEP_THREADS = SEP_BLOCK_X * SEP_BLOCK_Y;

/* Row pass: outputs per thread (32 columns apart), tile, taps per chunk. */
constexpr int ROW_RX = 4;
constexpr int ROW_TILE_W = SEP_BLOCK_X * ROW_RX;
constexpr int ROW_TILE_H = SEP_BLOCK_Y;
constexpr int ROW_CHUNK = 128;
/* one window row: the tile plus a chunk's reach (cw - 1 <= ROW_CHUNK - 1) */
constexpr int ROW_WIN_W = ROW_TILE_W + ROW_CHUNK;

/* Column pass: adjacent output rows per thread, tile, taps per chunk. */
constexpr int COL_RY = 8;
constexpr int COL_TILE_W = SEP_BLOCK_X;
constexpr int COL_TILE_H = SEP_BLOCK_Y * COL_RY;
constexpr int COL_CHUNK = 64;
constexpr int COL_WIN_H = COL_TILE_H + COL_CHUNK - 1;

static_assert ((ROW_TILE_H * ROW_WIN_W + ROW_CHUNK) * sizeof (float)
    <= 48 * 1024, "row pass: static shared memory must stay within 48 KB");
static_assert ((COL_WIN_H * COL_TILE_W + COL_CHUNK) * sizeof (float)
    <= 48 * 1024, "column pass: static shared memory must stay within 48 KB");

/**
 * \brief Row pass: tmp(x, y) = sum_i row[i] src(fold(x + i - ax), y).
 *
 * \param[in]  src        input plane
 * \param[in]  src_pitch  elements between rows of src
 * \param[out] tmp        intermediate plane; only in-image samples written
 * \param[in]  tmp_pitch  elements between rows of tmp
 * \param[in]  width      image width
 * \param[in]  height     image height
 * \param[in]  taps       kw row taps in device memory
 * \param[in]  kw         number of row taps
 * \param[in]  ax         anchor column
 * \param[in]  border     rule for out-of-image samples (cf_border_fold ())
 */
__global__ void __launch_bounds__ (SEP_THREADS)
row_pass_kernel (const float *__restrict__ src, size_t src_pitch,
    float *__restrict__ tmp, size_t tmp_pitch, int width, int height,
    const float *__restrict__ taps, int kw, int ax, cf_border border)
{
  __shared__ float s_win[ROW_TILE_H][ROW_WIN_W];
  __shared__ float s_taps[ROW_CHUNK];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int tid = tx + ty * SEP_BLOCK_X;
  const int tile_x = blockIdx.x * ROW_TILE_W;
  const int y = blockIdx.y * ROW_TILE_H + ty;
  /* rows past the bottom edge still take part in every barrier */
  const bool row_in = y < height;
  const float *src_row = src + (size_t) (row_in ? y : 0) * src_pitch;
  float acc[ROW_RX];

#pragma unroll
  for (int k = 0; k < ROW_RX; k++)
    acc[k] = 0.0f;

  for (int cx = 0; cx < kw; cx += ROW_CHUNK) {
    const int cw = min (ROW_CHUNK, kw - cx);
    const int win_w = ROW_TILE_W + cw - 1;
    const int gx0 = tile_x + cx - ax;   /* image column of window column 0 */

    /* every thread is done reading the previous chunk */
    __syncthreads ();
    for (int t = tid; t < cw; t += SEP_THREADS)
      s_taps[t] = taps[cx + t];
    for (int wx = tx; wx < win_w; wx += SEP_BLOCK_X) {
      const int sx = cf_border_fold (gx0 + wx, width, border);

      s_win[ty][wx] = (row_in && sx >= 0) ? src_row[sx] : 0.0f;
    }
    __syncthreads ();

    /* output column tx + 32 k reads window columns tx + 32 k + i */
    for (int i = 0; i < cw; i++) {
      const float t = s_taps[i];

#pragma unroll
      for (int k = 0; k < ROW_RX; k++)
        acc[k] = fmaf (t, s_win[ty][tx + SEP_BLOCK_X * k + i], acc[k]);
    }
  }

  if (row_in) {
    float *out = tmp + (size_t) y * tmp_pitch;

#pragma unroll
    for (int k = 0; k < ROW_RX; k++) {
      const int x = tile_x + tx + SEP_BLOCK_X * k;

      if (x < width)
        out[x] = acc[k];
    }
  }
}

/**
 * \brief Column pass: dst(x, y) = sum_j col[j] tmp(x, fold(y + j - ay)).
 *
 * \param[in]  tmp        intermediate plane (the row pass's output)
 * \param[in]  tmp_pitch  elements between rows of tmp
 * \param[out] dst        output plane; only in-image samples written
 * \param[in]  dst_pitch  elements between rows of dst
 * \param[in]  width      image width
 * \param[in]  height     image height
 * \param[in]  taps       kh column taps in device memory
 * \param[in]  kh         number of column taps
 * \param[in]  ay         anchor row
 * \param[in]  border     rule for out-of-image samples (cf_border_fold ())
 */
__global__ void __launch_bounds__ (SEP_THREADS)
column_pass_kernel (const float *__restrict__ tmp, size_t tmp_pitch,
    float *__restrict__ dst, size_t dst_pitch, int width, int height,
    const float *__restrict__ taps, int kh, int ay, cf_border border)
{
  __shared__ float s_win[COL_WIN_H * COL_TILE_W];
  __shared__ float s_taps[COL_CHUNK];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int tid = tx + ty * SEP_BLOCK_X;
  const int x = blockIdx.x * COL_TILE_W + tx;
  const int tile_y = blockIdx.y * COL_TILE_H;
  const int ly = ty * COL_RY;           /* first output row in the tile */
  /* columns past the right edge still take part in every barrier */
  const bool col_in = x < width;
  float acc[COL_RY];

#pragma unroll
  for (int r = 0; r < COL_RY; r++)
    acc[r] = 0.0f;

  for (int cy = 0; cy < kh; cy += COL_CHUNK) {
    const int ch = min (COL_CHUNK, kh - cy);
    const int win_h = COL_TILE_H + ch - 1;
    const int gy0 = tile_y + cy - ay;   /* image row of window row 0 */

    __syncthreads ();
    for (int t = tid; t < ch; t += SEP_THREADS)
      s_taps[t] = taps[cy + t];
    for (int wy = ty; wy < win_h; wy += SEP_BLOCK_Y) {
      const int sy = cf_border_fold (gy0 + wy, height, border);

      s_win[wy * COL_TILE_W + tx] = (col_in && sy >= 0)
          ? tmp[(size_t) sy * tmp_pitch + x] : 0.0f;
    }
    __syncthreads ();

    /* output row ly + r reads window rows ly + r + j */
    for (int j = 0; j < ch; j++) {
      const float t = s_taps[j];

#pragma unroll
      for (int r = 0; r < COL_RY; r++)
        acc[r] = fmaf (t, s_win[(ly + r + j) * COL_TILE_W + tx], acc[r]);
    }
  }

  if (col_in) {
#pragma unroll
    for (int r = 0; r < COL_RY; r++) {
      const int y = tile_y + ly + r;

      if (y < height)
        dst[(size_t) y * dst_pitch + x] = acc[r];
    }
  }
}

}                               /* namespace */

extern "C" int
cf_convolve_rank1 (const float *f, int kw, int kh, float *col, float *row)
{
  double max_abs = 0.0, pivot, residual = 0.0;
  int i, j, i0 = 0, j0 = 0;

  for (j = 0; j < kh; j++)
    for (i = 0; i < kw; i++) {
      const double v = fabs ((double) f[i + (size_t) j * kw]);

      if (!isfinite (v))
        return 0;
      if (v > max_abs) {
        max_abs = v;
        i0 = i;
        j0 = j;
      }
    }
  if (max_abs == 0.0) {
    /* rank 0: any factorisation with a zero factor reproduces it */
    for (j = 0; col != NULL && j < kh; j++)
      col[j] = 0.0f;
    for (i = 0; row != NULL && i < kw; i++)
      row[i] = 0.0f;
    return 1;
  }

  /* F[j][i] ~ (F[j][i0] / F[j0][i0]) * F[j0][i]; col[j0] = 1 exactly */
  pivot = (double) f[i0 + (size_t) j0 * kw];
  for (j = 0; j < kh; j++) {
    const double c = (double) f[i0 + (size_t) j * kw] / pivot;

    for (i = 0; i < kw; i++) {
      const double r = (double) f[i + (size_t) j0 * kw];
      const double d = fabs ((double) f[i + (size_t) j * kw] - c * r);

      if (d > residual)
        residual = d;
    }
  }
  if (residual > CF_SEPARABLE_TOLERANCE * max_abs)
    return 0;

  for (j = 0; col != NULL && j < kh; j++)
    col[j] = (float) ((double) f[i0 + (size_t) j * kw] / pivot);
  for (i = 0; row != NULL && i < kw; i++)
    row[i] = f[i + (size_t) j0 * kw];
  return 1;
}

extern "C" cf_status
cf_cuda_convolve_separable (const float *src, size_t src_pitch, float *dst,
    size_t dst_pitch, float *tmp, size_t tmp_pitch, int width, int height,
    const float *row, const float *col, int kw, int kh, int ax, int ay,
    cf_border border, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 block (SEP_BLOCK_X, SEP_BLOCK_Y);

  if (src == NULL || dst == NULL || tmp == NULL || row == NULL || col == NULL
      || width < 1 || height < 1 || (size_t) width > src_pitch
      || (size_t) width > dst_pitch || (size_t) width > tmp_pitch
      || kw < 1 || kh < 1 || ax < 0 || ax >= kw || ay < 0 || ay >= kh
      || (unsigned) border >= CF_BORDER_COUNT)
    return CF_ERROR_INVALID;

  {
    const dim3 grid (cf_div_up (width, ROW_TILE_W),
        cf_div_up (height, ROW_TILE_H));

    row_pass_kernel <<< grid, block, 0, stream >>> (src, src_pitch, tmp,
        tmp_pitch, width, height, row, kw, ax, border);
    CF_CUDA_TRY_LAUNCH ();
  }
  {
    const dim3 grid (cf_div_up (width, COL_TILE_W),
        cf_div_up (height, COL_TILE_H));

    column_pass_kernel <<< grid, block, 0, stream >>> (tmp, tmp_pitch, dst,
        dst_pitch, width, height, col, kh, ay, border);
    CF_CUDA_TRY_LAUNCH ();
  }
out:
  return status;
}
