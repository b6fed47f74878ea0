/* gst-cudaflow — direct 2-D correlation: shared-memory tiles, kernel chunks
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * out(x, y) = sum_{j<kh} sum_{i<kw} F[j][i] in(x + i - ax, y + j - ay), the
 * correlation form that cf_convolve () (common/convolve.c) reduces both modes
 * to; convolve.cu flips the kernel and the anchor for convolution.
 *
 * Design (any kernel up to 1023 x 1023, any image up to 8192 x 8192 and
 * beyond, with one fixed shared-memory budget):
 *
 *  - A block of DIRECT_BLOCK_X x DIRECT_BLOCK_Y threads (one warp across)
 *    computes a DIRECT_TILE_W x DIRECT_TILE_H output tile; each thread owns
 *    DIRECT_RX adjacent columns times DIRECT_RY adjacent rows (register
 *    blocking, fp32 accumulators).
 *  - The kernel is cut into chunks of at most CW x DIRECT_CHUNK_H taps (CW a
 *    multiple of 4, <= DIRECT_CHUNK_W_MAX, a template parameter). For each
 *    chunk the block loads the chunk's taps and the input window the tile
 *    needs for them, (TILE_W + CW) x (TILE_H + ch - 1) samples, into shared
 *    memory, then accumulates. Out-of-image samples of the window go through
 *    cf_border_fold (), the helper the CPU reference uses for every tap: the
 *    same rule for every tap, kernels larger than the image included; with
 *    CF_BORDER_ZERO an outside sample is stored as 0 and so contributes 0.
 *  - Inner loop: a thread walks the input rows q its DIRECT_RY outputs need,
 *    loads CW + 4 window samples of row q into registers (float4 loads, no
 *    bank conflicts: a warp reads 512 contiguous bytes), and applies them to
 *    every output row r whose tap row j = q - r lies in the chunk: 16 FMAs
 *    per broadcast float4 of taps. One window row feeds up to DIRECT_RY
 *    output rows, so shared traffic stays well below the FMA rate.
 *
 * Chunk widths are picked so the padding stays small (kw = 31: one chunk of
 * 32; kw = 33: two of 20). Padded taps are 0; they multiply real (finite)
 * window samples, so they add exactly 0 — only a non-finite input sample
 * can leak through a padded tap into up to 3 + CW - cw extra columns.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/convolve-direct.h"

#include "common/border.h"

namespace {

/* Threads per block: one warp across, DIRECT_BLOCK_Y warps down. */
constexpr int DIRECT_BLOCK_X = 32;
constexpr int DIRECT_BLOCK_Y = 4;
constexpr int DIRECT_THREADS = DIRECT_BLOCK_X * DIRECT_BLOCK_Y;
/* Outputs per thread: DIRECT_RX adjacent columns (one float4) times
 * DIRECT_RY adjacent rows. */
constexpr int DIRECT_RX = 4;
constexpr int DIRECT_RY = 8;
/* Output tile of one block: 128 x 32. */
constexpr int DIRECT_TILE_W = DIRECT_BLOCK_X * DIRECT_RX;
constexpr int DIRECT_TILE_H = DIRECT_BLOCK_Y * DIRECT_RY;
/* Largest kernel chunk: 32 x 32 taps. With CW = 32 the block holds a
 * 160 x 63 window and 32 x 32 taps: 44,416 bytes of static shared memory. */
constexpr int DIRECT_CHUNK_W_MAX = 32;
constexpr int DIRECT_CHUNK_H = 32;
/* Kernels of at most 8 x 8 taps use a window for 8 tap rows only. */
constexpr int DIRECT_SMALL_K = 8;

static_assert (DIRECT_RX == 4, "the inner loop reads the window as float4");
static_assert (DIRECT_CHUNK_W_MAX % 4 == 0, "chunk widths are float4 groups");
static_assert (((DIRECT_TILE_W + DIRECT_CHUNK_W_MAX)
        * (DIRECT_TILE_H + DIRECT_CHUNK_H - 1)
        + DIRECT_CHUNK_H * DIRECT_CHUNK_W_MAX) * sizeof (float) <= 48 * 1024,
    "static shared memory must stay within 48 KB");

/**
 * \brief Direct correlation of one 128 x 32 output tile, kernel chunk by
 * kernel chunk (see the file comment).
 *
 * \tparam CW chunk width in taps, a multiple of 4 (4 .. 32)
 * \param[in]  src        input plane
 * \param[in]  src_pitch  elements between rows of src
 * \param[out] dst        output plane; only in-image samples are written
 * \param[in]  dst_pitch  elements between rows of dst
 * \param[in]  width      image width
 * \param[in]  height     image height
 * \param[in]  taps       F in device memory, kh rows of kw floats
 * \param[in]  kw         kernel width
 * \param[in]  kh         kernel height
 * \param[in]  ax         anchor column of F
 * \param[in]  ay         anchor row of F
 * \param[in]  chunk_h    tap rows per chunk (1 .. DIRECT_CHUNK_H)
 * \param[in]  border     rule for out-of-image samples (cf_border_fold ())
 */
template < int CW, int CH_MAX >
__global__ void __launch_bounds__ (DIRECT_THREADS)
direct_correlate_kernel (const float *__restrict__ src, size_t src_pitch,
    float *__restrict__ dst, size_t dst_pitch, int width, int height,
    const float *__restrict__ taps, int kw, int kh, int ax, int ay,
    int chunk_h, cf_border border)
{
  static_assert (CW % 4 == 0 && CW >= 4 && CW <= DIRECT_CHUNK_W_MAX,
      "bad chunk width");
  static_assert (CH_MAX >= 1 && CH_MAX <= DIRECT_CHUNK_H, "bad chunk height");
  constexpr int GROUPS = CW / 4;        /* float4 tap groups per chunk row */
  constexpr int WIN_W = DIRECT_TILE_W + CW;     /* a multiple of 4 */
  constexpr int WIN_H_MAX = DIRECT_TILE_H + CH_MAX - 1;

  __shared__ __align__ (16) float s_win[WIN_H_MAX * WIN_W];
  __shared__ __align__ (16) float s_taps[CH_MAX * CW];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int tid = tx + ty * DIRECT_BLOCK_X;
  const int tile_x = blockIdx.x * DIRECT_TILE_W;
  const int tile_y = blockIdx.y * DIRECT_TILE_H;
  const int lx = tx * DIRECT_RX;        /* first output column in the tile */
  const int ly = ty * DIRECT_RY;        /* first output row in the tile */
  float acc[DIRECT_RY][DIRECT_RX];

#pragma unroll
  for (int r = 0; r < DIRECT_RY; r++)
#pragma unroll
    for (int k = 0; k < DIRECT_RX; k++)
      acc[r][k] = 0.0f;

  for (int cy = 0; cy < kh; cy += chunk_h) {
    const int ch = min (chunk_h, kh - cy);
    const int win_h = DIRECT_TILE_H + ch - 1;
    const int gy0 = tile_y + cy - ay;   /* image row of window row 0 */

    for (int cx = 0; cx < kw; cx += CW) {
      const int gx0 = tile_x + cx - ax; /* image column of window column 0 */

      /* every thread is done reading the previous chunk */
      __syncthreads ();

      /* the chunk's taps, zero beyond the kernel's last column */
      for (int t = tid; t < ch * CW; t += DIRECT_THREADS) {
        const int i = t % CW;
        const int j = t / CW;

        s_taps[t] = cx + i < kw ? taps[(cx + i) + (size_t) (cy + j) * kw]
            : 0.0f;
      }
      /* the window: every sample folded like every CPU tap, except in a
       * window wholly inside the image (most of them), where folding is
       * the identity and only costs integer work */
      if (gx0 >= 0 && gx0 + WIN_W <= width && gy0 >= 0
          && gy0 + win_h <= height) {
        for (int wy = ty; wy < win_h; wy += DIRECT_BLOCK_Y) {
          const float *row = src + (size_t) (gy0 + wy) * src_pitch + gx0;
          float *srow = s_win + wy * WIN_W;

          for (int wx = tx; wx < WIN_W; wx += DIRECT_BLOCK_X)
            srow[wx] = row[wx];
        }
      } else {
        for (int wy = ty; wy < win_h; wy += DIRECT_BLOCK_Y) {
          const int sy = cf_border_fold (gy0 + wy, height, border);
          const float *row = src + (size_t) (sy < 0 ? 0 : sy) * src_pitch;
          float *srow = s_win + wy * WIN_W;

          for (int wx = tx; wx < WIN_W; wx += DIRECT_BLOCK_X) {
            const int sx = cf_border_fold (gx0 + wx, width, border);

            srow[wx] = (sy >= 0 && sx >= 0) ? row[sx] : 0.0f;
          }
        }
      }
      __syncthreads ();

      /* window row q feeds output row r through tap row j = q - r */
      for (int q = 0; q < DIRECT_RY + ch - 1; q++) {
        const float4 *wrow =
            reinterpret_cast < const float4 *>(s_win + (ly + q) * WIN_W + lx);
        float win[CW + 4];

#pragma unroll
        for (int m = 0; m <= GROUPS; m++) {
          const float4 v = wrow[m];

          win[4 * m + 0] = v.x;
          win[4 * m + 1] = v.y;
          win[4 * m + 2] = v.z;
          win[4 * m + 3] = v.w;
        }
#pragma unroll
        for (int r = 0; r < DIRECT_RY; r++) {
          const int j = q - r;

          if (j >= 0 && j < ch) {
            const float4 *trow =
                reinterpret_cast < const float4 *>(s_taps + j * CW);

#pragma unroll
            for (int g = 0; g < GROUPS; g++) {
              const float4 t = trow[g];

#pragma unroll
              for (int k = 0; k < DIRECT_RX; k++) {
                acc[r][k] = fmaf (t.x, win[4 * g + k + 0], acc[r][k]);
                acc[r][k] = fmaf (t.y, win[4 * g + k + 1], acc[r][k]);
                acc[r][k] = fmaf (t.z, win[4 * g + k + 2], acc[r][k]);
                acc[r][k] = fmaf (t.w, win[4 * g + k + 3], acc[r][k]);
              }
            }
          }
        }
      }
    }
  }

  /* outputs past the image's right or bottom edge are dropped; every
   * thread took part in all loads and barriers above */
#pragma unroll
  for (int r = 0; r < DIRECT_RY; r++) {
    const int y = tile_y + ly + r;

    if (y < height) {
      float *out = dst + (size_t) y * dst_pitch;

#pragma unroll
      for (int k = 0; k < DIRECT_RX; k++) {
        const int x = tile_x + lx + k;

        if (x < width)
          out[x] = acc[r][k];
      }
    }
  }
}

/* Split n taps into the fewest chunks of at most max_chunk, each as even as
 * possible, rounded up to a multiple of `multiple`. */
static int
balanced_chunk (int n, int max_chunk, int multiple)
{
  int chunks = cf_div_up (n, max_chunk);
  int size = cf_div_up (n, chunks);

  return cf_div_up (size, multiple) * multiple;
}

/**
 * \brief Launch direct_correlate_kernel<CW> over the whole image.
 *
 * \tparam CW chunk width in taps (see direct_correlate_kernel)
 * \param[in]  stream  stream the kernel is queued on
 * (other parameters: see cf_cuda_convolve_direct ())
 */
template < int CW, int CH_MAX >
static cf_status
launch_direct (const float *src, size_t src_pitch, float *dst,
    size_t dst_pitch, int width, int height, const float *taps, int kw,
    int kh, int ax, int ay, int chunk_h, cf_border border,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 block (DIRECT_BLOCK_X, DIRECT_BLOCK_Y);
  const dim3 grid (cf_div_up (width, DIRECT_TILE_W),
      cf_div_up (height, DIRECT_TILE_H));

  direct_correlate_kernel < CW, CH_MAX > <<< grid, block, 0, stream >>> (src,
      src_pitch, dst, dst_pitch, width, height, taps, kw, kh, ax, ay, chunk_h,
      border);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

}                               /* namespace */

extern "C" cf_status
cf_cuda_convolve_direct (const float *src, size_t src_pitch, float *dst,
    size_t dst_pitch, int width, int height, const float *taps, int kw,
    int kh, int ax, int ay, cf_border border, cudaStream_t stream)
{
  int chunk_w, chunk_h;

  if (src == NULL || dst == NULL || taps == NULL || width < 1 || height < 1
      || (size_t) width > src_pitch || (size_t) width > dst_pitch
      || kw < 1 || kh < 1 || ax < 0 || ax >= kw || ay < 0 || ay >= kh
      || (unsigned) border >= CF_BORDER_COUNT)
    return CF_ERROR_INVALID;

  chunk_w = balanced_chunk (kw, DIRECT_CHUNK_W_MAX, 4);
  chunk_h = balanced_chunk (kh, DIRECT_CHUNK_H, 1);

  /* small kernels get a short window: a third of the shared memory, so
   * about three times as many resident blocks to hide the loads' latency */
  if (chunk_w <= DIRECT_SMALL_K && kh <= DIRECT_SMALL_K) {
    if (chunk_w == 4)
      return launch_direct < 4, DIRECT_SMALL_K > (src, src_pitch, dst,
          dst_pitch, width, height, taps, kw, kh, ax, ay, chunk_h, border,
          stream);
    return launch_direct < 8, DIRECT_SMALL_K > (src, src_pitch, dst,
        dst_pitch, width, height, taps, kw, kh, ax, ay, chunk_h, border,
        stream);
  }

#define CF_DIRECT_CASE(cw)                                                \
  case cw:                                                                \
    return launch_direct < cw, DIRECT_CHUNK_H > (src, src_pitch, dst,     \
        dst_pitch, width, height, taps, kw, kh, ax, ay, chunk_h, border,  \
        stream)
  switch (chunk_w) {
      CF_DIRECT_CASE (4);
      CF_DIRECT_CASE (8);
      CF_DIRECT_CASE (12);
      CF_DIRECT_CASE (16);
      CF_DIRECT_CASE (20);
      CF_DIRECT_CASE (24);
      CF_DIRECT_CASE (28);
      CF_DIRECT_CASE (32);
    default:
      return CF_ERROR_INVALID;  /* unreachable: 4 <= chunk_w <= 32 */
  }
#undef CF_DIRECT_CASE
}
