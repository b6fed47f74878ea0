/* gst-cudaflow — register stencil: small kernels in one pass at memory speed
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * out(x, y) = sum_{j,i} F[j][i] in(x + i - rx, y + j - ry) for the centred
 * (2 rx + 1) x (2 ry + 1) kernel of cf_stencil_taps (convolve-stencil.h),
 * rx, ry <= 3; convolve.cu flips the kernel and the anchor for convolution.
 *
 * A kernel of at most 7 x 7 taps does at most 49 FMAs per output, so the
 * convolution costs what moving the image costs: 4 bytes read and 4 bytes
 * written per sample. The design reads every input sample once from DRAM
 * and keeps everything else in registers:
 *
 *  - A warp owns STENCIL_SPAN = 128 adjacent columns (4 per lane, one
 *    float4) of a strip of ROWS output rows; a block stacks STENCIL_WARPS
 *    warps vertically. Each lane loads the ROWS + 2 ry input rows its
 *    outputs need as float4 (a warp reads 512 contiguous bytes per row),
 *    all before it uses any, so ROWS + 2 ry loads per thread are in flight.
 *  - Horizontal neighbours come from the adjacent lanes (__shfl_up/down:
 *    the left lane's last rx samples, the right lane's first rx); only
 *    lanes 0 and 31 load their rx outer samples themselves. Vertical
 *    neighbours are the rows already in registers: input row q serves the
 *    output rows q - 2 ry .. q. The 2 ry halo rows a strip shares with the
 *    strips above and below are read again, from L1 or L2, not from DRAM:
 *    a factor (ROWS + 2 ry) / ROWS on cache traffic only.
 *  - Taps are a launch parameter (cf_stencil_taps by value): they sit in
 *    the constant bank and every FMA takes its tap from there.
 *  - Borders: a warp whose whole footprint, halo included, lies inside the
 *    image takes the interior path: plain loads and stores, no index
 *    checks. The other warps take the checked path: every row index, and
 *    once per strip the lane's column indices, go through cf_border_fold (),
 *    the helper the CPU reference applies to every tap (zero rule: the
 *    sample is 0, so the tap contributes 0); a lane whose four columns are
 *    inside still loads them as one float4. Lanes past the right edge
 *    compute folded samples too: they are the right neighbours of the last
 *    lane inside, and they write nothing. The sums and the stores are one
 *    code for both paths (a store checks its row and columns).
 *
 * Rows need float4 alignment (cf_cuda_convolve_stencil_aligned ()); the
 * plan runs the direct method on planes without it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/convolve-stencil.h"

#include "common/border.h"

#include <stdint.h>

namespace {

/* Threads per block: one warp across, STENCIL_WARPS warps stacked down. */
constexpr int STENCIL_LANES = 32;
constexpr int STENCIL_WARPS = 4;
constexpr int STENCIL_THREADS = STENCIL_LANES * STENCIL_WARPS;
/* Adjacent outputs per lane (one float4) and columns per warp. */
constexpr int STENCIL_VEC = 4;
constexpr int STENCIL_SPAN = STENCIL_LANES * STENCIL_VEC;
/* Images below this many samples get strips of 4 rows instead of 8: twice
 * the warps, to spread a small frame over every SM. */
constexpr long STENCIL_SMALL_PIXELS = 1L << 20;
constexpr unsigned STENCIL_FULL_MASK = 0xffffffffu;

static_assert (STENCIL_VEC == 4, "a lane's outputs are one float4");
static_assert (CF_STENCIL_MAX_RADIUS <= STENCIL_VEC,
    "a lane's horizontal halo comes from its two neighbours only");

/* The centred kernel as a launch parameter (constant bank). */
struct stencil_params
{
  float f[CF_STENCIL_MAX_TAPS];
};

/* Component k (0 .. 3, a compile-time constant after unrolling) of v. */
static __device__ __forceinline__ float
component (const float4 & v, int k)
{
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

/* One input row of a lane: v = in(x .. x + 3); lane 0 also holds
 * in(x - RX .. x - 1) in e, lane 31 in(x + 4 .. x + 3 + RX) (its outer
 * samples: outer_samples ()). */
template < int RX > struct stencil_row
{
  float4 v;
  float e[RX > 0 ? RX : 1];
};

/* The outer samples a lane loads itself: lane 0 the RX left of the warp,
 * lane 31 the RX right of it, from column col on; the other lanes take
 * their neighbours from the adjacent lanes (loads = false). */
struct stencil_outer
{
  int col;
  bool loads;
};

template < int RX >
static __device__ __forceinline__ stencil_outer
outer_samples (int x, int lane)
{
  stencil_outer o;

  o.loads = lane == 0 || lane == STENCIL_LANES - 1;
  o.col = lane == 0 ? x - RX : x + STENCIL_VEC;
  return o;
}

/**
 * \brief Load one input row of a lane whose whole warp is inside the image
 * (no checks).
 *
 * \param[in]  row    the image row
 * \param[in]  x      the lane's first column (a multiple of 4)
 * \param[in]  outer  outer_samples (x, lane)
 * \param[out] s      the samples (stencil_row)
 */
template < int RX >
static __device__ __forceinline__ void
load_row_interior (const float *__restrict__ row, int x,
    const stencil_outer & outer, stencil_row < RX > &s)
{
  s.v = *reinterpret_cast < const float4 *>(row + x);
#pragma unroll
  for (int t = 0; t < RX; t++)
    s.e[t] = outer.loads ? row[outer.col + t] : 0.0f;
}

/* The columns a lane of a warp that touches the border reads, folded once
 * for all its rows by cf_border_fold (): its four (full: all inside the
 * image, one float4 load) and its outer samples (lanes 0 and 31); -1 marks
 * a column outside under the zero rule, or no outer sample. */
template < int RX > struct stencil_columns
{
  int c[STENCIL_VEC];
  int o[RX > 0 ? RX : 1];
  bool full;
};

template < int RX >
static __device__ __forceinline__ stencil_columns < RX >
fold_columns (int x, const stencil_outer & outer, int width, cf_border border)
{
  stencil_columns < RX > cols;

  cols.full = x + STENCIL_VEC - 1 < width;
#pragma unroll
  for (int k = 0; k < STENCIL_VEC; k++)
    cols.c[k] = cf_border_fold (x + k, width, border);
#pragma unroll
  for (int t = 0; t < RX; t++)
    cols.o[t] = outer.loads ? cf_border_fold (outer.col + t, width, border)
        : -1;
  return cols;
}

/**
 * \brief Load one input row of a lane whose warp touches the border: the
 * row folded, the columns folded beforehand (fold_columns ()).
 *
 * \param[in]  src     input plane
 * \param[in]  pitch   elements between rows of src
 * \param[in]  gy      image row (any integer; folded)
 * \param[in]  x       the lane's first column (may be past the right edge)
 * \param[in]  cols    the lane's folded columns
 * \param[in]  height  image height
 * \param[in]  border  rule for out-of-image samples
 * \param[out] s       the samples (stencil_row)
 */
template < int RX >
static __device__ __forceinline__ void
load_row_checked (const float *__restrict__ src, size_t pitch, int gy, int x,
    const stencil_columns < RX > &cols, int height, cf_border border,
    stencil_row < RX > &s)
{
  const int sy = cf_border_fold (gy, height, border);
  const float *row;

  s.v = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int t = 0; t < RX; t++)
    s.e[t] = 0.0f;
  if (sy < 0)
    return;                     /* zero rule, row outside: all 0 */
  row = src + (size_t) sy * pitch;
  if (cols.full) {
    s.v = *reinterpret_cast < const float4 *>(row + x);
  } else {
    s.v.x = cols.c[0] < 0 ? 0.0f : row[cols.c[0]];
    s.v.y = cols.c[1] < 0 ? 0.0f : row[cols.c[1]];
    s.v.z = cols.c[2] < 0 ? 0.0f : row[cols.c[2]];
    s.v.w = cols.c[3] < 0 ? 0.0f : row[cols.c[3]];
  }
#pragma unroll
  for (int t = 0; t < RX; t++)
    s.e[t] = cols.o[t] < 0 ? 0.0f : row[cols.o[t]];
}

/**
 * \brief The 4 + 2 RX samples in(x - RX .. x + 3 + RX) of one row: the
 * lane's own four, the left lane's last RX, the right lane's first RX
 * (lanes 0 and 31 use the outer samples they loaded). Every lane of the
 * warp must call it (warp shuffles).
 */
template < int RX >
static __device__ __forceinline__ void
row_window (const stencil_row < RX > &s, int lane,
    float (&w)[STENCIL_VEC + 2 * RX])
{
  w[RX + 0] = s.v.x;
  w[RX + 1] = s.v.y;
  w[RX + 2] = s.v.z;
  w[RX + 3] = s.v.w;
#pragma unroll
  for (int t = 1; t <= RX; t++) {
    const float left = __shfl_up_sync (STENCIL_FULL_MASK,
        component (s.v, STENCIL_VEC - t), 1);
    const float right = __shfl_down_sync (STENCIL_FULL_MASK,
        component (s.v, t - 1), 1);

    w[RX - t] = lane == 0 ? s.e[RX - t] : left;
    w[RX + STENCIL_VEC - 1 + t] = lane == STENCIL_LANES - 1 ? s.e[t - 1]
        : right;
  }
}

/**
 * \brief One lane's strip: ROWS rows of 4 adjacent outputs from
 * ROWS + 2 RY input rows (file comment). Only the loads depend on the
 * path; the sums and the stores are one code for both.
 *
 * \param[in]  x         the lane's first column
 * \param[in]  y0        the strip's first row
 * \param[in]  lane      lane in the warp
 * \param[in]  interior  the warp's footprint, halo included, lies inside
 *                       the image: loads without index checks
 * (other parameters: see stencil_kernel)
 */
template < int RX, int RY, int ROWS >
static __device__ __forceinline__ void
stencil_strip (const float *__restrict__ src, size_t src_pitch,
    float *__restrict__ dst, size_t dst_pitch, int width, int height,
    const stencil_params & taps, cf_border border, int x, int y0, int lane,
    bool interior)
{
  constexpr int KW = 2 * RX + 1;
  constexpr int KH = 2 * RY + 1;
  constexpr int NQ = ROWS + 2 * RY;     /* input rows of the strip */
  constexpr int W = STENCIL_VEC + 2 * RX;       /* samples per row window */
  const stencil_outer outer = outer_samples < RX > (x, lane);
  stencil_row < RX > in[NQ];
  float win[NQ][W];

  /* every input row first, so that all its loads are in flight at once */
  if (interior) {
#pragma unroll
    for (int q = 0; q < NQ; q++)
      load_row_interior < RX > (src + (size_t) (y0 - RY + q) * src_pitch,
          x, outer, in[q]);
  } else {
    const stencil_columns < RX > cols = fold_columns < RX > (x, outer,
        width, border);

#pragma unroll
    for (int q = 0; q < NQ; q++)
      load_row_checked < RX > (src, src_pitch, y0 - RY + q, x, cols, height,
          border, in[q]);
  }
#pragma unroll
  for (int q = 0; q < NQ; q++)
    row_window < RX > (in[q], lane, win[q]);

  /* output row r reads window rows r .. r + 2 RY; sums in the order j,
   * then i, as the CPU reference and the direct method */
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    const int y = y0 + r;
    float *out = dst + (size_t) y * dst_pitch;
    float acc[STENCIL_VEC];

#pragma unroll
    for (int k = 0; k < STENCIL_VEC; k++)
      acc[k] = 0.0f;
#pragma unroll
    for (int j = 0; j < KH; j++)
#pragma unroll
      for (int i = 0; i < KW; i++) {
        const float t = taps.f[i + j * KW];

#pragma unroll
        for (int k = 0; k < STENCIL_VEC; k++)
          acc[k] = fmaf (t, win[r + j][k + i], acc[k]);
      }

    /* always true in the interior; at the border, rows below the image
     * and columns past its right edge are not written */
    if (y < height && x + STENCIL_VEC - 1 < width) {
      *reinterpret_cast < float4 *>(out + x) =
          make_float4 (acc[0], acc[1], acc[2], acc[3]);
    } else if (y < height) {
#pragma unroll
      for (int k = 0; k < STENCIL_VEC; k++)
        if (x + k < width)
          out[x + k] = acc[k];
    }
  }
}

/**
 * \brief Register-stencil correlation of the whole image (file comment).
 *
 * Block (STENCIL_LANES, STENCIL_WARPS); warp (blockIdx.x, blockIdx.y *
 * STENCIL_WARPS + threadIdx.y) owns columns [128 blockIdx.x, + 128) of the
 * output rows [ROWS (that index), + ROWS).
 *
 * \tparam RX    horizontal reach of the centred kernel (0 .. 3)
 * \tparam RY    vertical reach (0 .. 3)
 * \tparam ROWS  output rows per lane
 * \param[in]  src        input plane (rows float4-aligned)
 * \param[in]  src_pitch  elements between rows of src (a multiple of 4)
 * \param[out] dst        output plane (rows float4-aligned); only
 *                        in-image samples are written
 * \param[in]  dst_pitch  elements between rows of dst (a multiple of 4)
 * \param[in]  width      image width
 * \param[in]  height     image height
 * \param[in]  taps       the centred kernel, (2 RY + 1) rows of 2 RX + 1
 * \param[in]  border     rule for out-of-image samples (cf_border_fold ())
 */
template < int RX, int RY, int ROWS >
__global__ void __launch_bounds__ (STENCIL_THREADS)
stencil_kernel (const float *__restrict__ src, size_t src_pitch,
    float *__restrict__ dst, size_t dst_pitch, int width, int height,
    const stencil_params taps, cf_border border)
{
  const int lane = threadIdx.x;
  const int xw = blockIdx.x * STENCIL_SPAN;     /* the warp's first column */
  const int x = xw + lane * STENCIL_VEC;
  const int y0 = (blockIdx.y * STENCIL_WARPS + threadIdx.y) * ROWS;

  /* a whole warp below the image: nothing to do, no shuffle to join */
  if (y0 >= height)
    return;
  /* warp-uniform: the footprint of all 32 lanes, halo included */
  stencil_strip < RX, RY, ROWS > (src, src_pitch, dst, dst_pitch, width,
      height, taps, border, x, y0, lane, xw - RX >= 0
      && xw + STENCIL_SPAN + RX <= width && y0 - RY >= 0
      && y0 + ROWS + RY <= height);
}

/**
 * \brief Launch stencil_kernel<RX, RY, ROWS> over the whole image.
 * (Parameters: see cf_cuda_convolve_stencil ().)
 */
template < int RX, int RY, int ROWS >
static cf_status
launch_stencil (const float *src, size_t src_pitch, float *dst,
    size_t dst_pitch, int width, int height, const stencil_params & taps,
    cf_border border, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 block (STENCIL_LANES, STENCIL_WARPS);
  const dim3 grid (cf_div_up (width, STENCIL_SPAN),
      cf_div_up (height, STENCIL_WARPS * ROWS));

  stencil_kernel < RX, RY, ROWS > <<< grid, block, 0, stream >>> (src,
      src_pitch, dst, dst_pitch, width, height, taps, border);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* launch_stencil<RX, RY, ROWS> for run-time reaches and rows. */
template < int RX, int RY >
static cf_status
dispatch_rows (const float *src, size_t src_pitch, float *dst,
    size_t dst_pitch, int width, int height, const stencil_params & taps,
    cf_border border, int rows, cudaStream_t stream)
{
  switch (rows) {
    case 4:
      return launch_stencil < RX, RY, 4 > (src, src_pitch, dst, dst_pitch,
          width, height, taps, border, stream);
    case 8:
      return launch_stencil < RX, RY, 8 > (src, src_pitch, dst, dst_pitch,
          width, height, taps, border, stream);
    default:
      return CF_ERROR_INVALID;
  }
}

template < int RX >
static cf_status
dispatch_ry (const float *src, size_t src_pitch, float *dst,
    size_t dst_pitch, int width, int height, const stencil_params & taps,
    int ry, cf_border border, int rows, cudaStream_t stream)
{
  switch (ry) {
    case 0:
      return dispatch_rows < RX, 0 > (src, src_pitch, dst, dst_pitch, width,
          height, taps, border, rows, stream);
    case 1:
      return dispatch_rows < RX, 1 > (src, src_pitch, dst, dst_pitch, width,
          height, taps, border, rows, stream);
    case 2:
      return dispatch_rows < RX, 2 > (src, src_pitch, dst, dst_pitch, width,
          height, taps, border, rows, stream);
    case 3:
      return dispatch_rows < RX, 3 > (src, src_pitch, dst, dst_pitch, width,
          height, taps, border, rows, stream);
    default:
      return CF_ERROR_INVALID;
  }
}

static_assert (CF_STENCIL_MAX_RADIUS == 3,
    "dispatch_ry and run_stencil list the reaches 0 .. 3");

/* Checked arguments to the kernel of the right reaches. */
static cf_status
run_stencil (const float *src, size_t src_pitch, float *dst,
    size_t dst_pitch, int width, int height, const cf_stencil_taps * taps,
    cf_border border, int rows, cudaStream_t stream)
{
  stencil_params p;

  if (src == NULL || dst == NULL || taps == NULL || width < 1 || height < 1
      || (size_t) width > src_pitch || (size_t) width > dst_pitch
      || taps->rx < 0 || taps->rx > CF_STENCIL_MAX_RADIUS || taps->ry < 0
      || taps->ry > CF_STENCIL_MAX_RADIUS
      || (unsigned) border >= CF_BORDER_COUNT)
    return CF_ERROR_INVALID;
  if (!cf_cuda_convolve_stencil_aligned (src, src_pitch, dst, dst_pitch))
    return CF_ERROR_UNSUPPORTED;

  for (int t = 0; t < CF_STENCIL_MAX_TAPS; t++)
    p.f[t] = taps->f[t];
  switch (taps->rx) {
    case 0:
      return dispatch_ry < 0 > (src, src_pitch, dst, dst_pitch, width,
          height, p, taps->ry, border, rows, stream);
    case 1:
      return dispatch_ry < 1 > (src, src_pitch, dst, dst_pitch, width,
          height, p, taps->ry, border, rows, stream);
    case 2:
      return dispatch_ry < 2 > (src, src_pitch, dst, dst_pitch, width,
          height, p, taps->ry, border, rows, stream);
    default:
      return dispatch_ry < 3 > (src, src_pitch, dst, dst_pitch, width,
          height, p, taps->ry, border, rows, stream);
  }
}

}                               /* namespace */

extern "C" int
cf_cuda_convolve_stencil_supports (int kw, int kh)
{
  return kw >= 1 && kh >= 1 && kw <= CF_STENCIL_MAX_SIZE
      && kh <= CF_STENCIL_MAX_SIZE;
}

extern "C" int
cf_cuda_convolve_stencil_aligned (const float *src, size_t src_pitch,
    const float *dst, size_t dst_pitch)
{
  return ((uintptr_t) src % 16 == 0) && ((uintptr_t) dst % 16 == 0)
      && src_pitch % STENCIL_VEC == 0 && dst_pitch % STENCIL_VEC == 0;
}

extern "C" cf_status
cf_cuda_convolve_stencil_prepare (const float *f, int kw, int kh, int ax,
    int ay, cf_stencil_taps * taps)
{
  int i, j, kwc;

  if (f == NULL || taps == NULL || kw < 1 || kh < 1 || ax < 0 || ax >= kw
      || ay < 0 || ay >= kh)
    return CF_ERROR_INVALID;
  if (!cf_cuda_convolve_stencil_supports (kw, kh))
    return CF_ERROR_UNSUPPORTED;

  /* F[j][i] moves to (j + ry - ay, i + rx - ax): tap (rx, ry) of the
   * centred kernel is F's anchor */
  taps->rx = ax > kw - 1 - ax ? ax : kw - 1 - ax;
  taps->ry = ay > kh - 1 - ay ? ay : kh - 1 - ay;
  kwc = 2 * taps->rx + 1;
  for (i = 0; i < CF_STENCIL_MAX_TAPS; i++)
    taps->f[i] = 0.0f;
  for (j = 0; j < kh; j++)
    for (i = 0; i < kw; i++)
      taps->f[(i + taps->rx - ax) + (j + taps->ry - ay) * kwc] =
          f[i + (size_t) j * kw];
  return CF_OK;
}

extern "C" cf_status
cf_cuda_convolve_stencil (const float *src, size_t src_pitch, float *dst,
    size_t dst_pitch, int width, int height, const cf_stencil_taps * taps,
    cf_border border, cudaStream_t stream)
{
  const int rows = (long) width * height < STENCIL_SMALL_PIXELS ? 4 : 8;

  return run_stencil (src, src_pitch, dst, dst_pitch, width, height, taps,
      border, rows, stream);
}

extern "C" cf_status
cf_cuda_convolve_stencil_rows (const float *src, size_t src_pitch,
    float *dst, size_t dst_pitch, int width, int height,
    const cf_stencil_taps * taps, cf_border border, int rows,
    cudaStream_t stream)
{
  if (rows != 4 && rows != 8)
    return CF_ERROR_INVALID;
  return run_stencil (src, src_pitch, dst, dst_pitch, width, height, taps,
      border, rows, stream);
}
