/* gst-cudaflow — median filter of a flow field on the GPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Twin of common/median.c (the definition is in common/median.h): the
 * median of each component over a 3 x 3 or 5 x 5 window clipped to the
 * image, as TV-L1 applies it to u after every warp (Wedel et al. 2009;
 * Sun, Roth and Black, CVPR 2010).
 *
 * Exactness. Each float is turned into an int key whose signed order is
 * IEEE 754 totalOrder (−0 before +0; median_key), and the selection uses
 * integer min and max only, so it picks exactly the element the CPU's
 * sort picks: equal keys are equal bits, and no order of work can change
 * which bits come out. The one arithmetic step, the mean of the two
 * middle values of an even count (border windows only), is spelled
 * __fmul_rn (__fadd_rn (a, b), 0.5f), the CPU's (a + b) * 0.5f.
 *
 * Selection networks. A window's median is a min/max circuit; by the 0-1
 * principle such a circuit selects rank k for every input iff it does for
 * every input of 0s and 1s, which is how window_median was checked
 * (exhaustively: all 2^9 windows of 3 x 3 and 2^25 of 5 x 5). A run
 * feeds each of its outputs the same networks, with the window's rows in
 * another order, which does not change a median. The GPU tests compare
 * with the CPU on random fields besides.
 *  - 3 x 3: sort each row of three, then med3 (max of the row minima, med3
 *    of the row middles, min of the row maxima), the classic median of 9;
 *  - 5 x 5: sort each row of five (9 compare-exchanges), merge pairs of
 *    sorted rows into sorted tens (Batcher's odd-even merge, 13), and
 *    cut: of the 20 values of four rows, only ranks 7 ... 12 can be the
 *    median of any 25 that contain them (below rank 7 a value has at
 *    least 13 above it, above rank 12 at least 13 below), and the median
 *    of the 25 is rank 5 of those six and the fifth row's five
 *    (middle6, a pruned merge of the two tens: 25 compare-exchanges;
 *    final11, the rank-5 element of two sorted lists: 10 min/max).
 *
 * Work sharing. A thread computes a run of RUN (4, or 2 on small images)
 * outputs down one column, so each sorted row is shared by the K outputs
 * whose windows hold it; in
 * 5 x 5, two vertically adjacent outputs also share the cut of their four
 * common rows (middle6). A 4-row run takes 362 integer min/max (a
 * compare-exchange is two) for its 4 outputs of a component, about 90
 * each; an 8-row run 78 each, a network per window 202.
 *
 * Borders. The block's tile (shared memory, keys) has a halo of K/2; what
 * lies outside the image is never used as a value. A window clipped to
 * n < K² pixels is completed with K² − n sentinels, m_lo keys below every
 * value (INT_MIN) and m_hi above (INT_MAX): the median of the K² keys is
 * then rank k of the n values for m_lo = (K² − 1)/2 − k, so an odd n
 * takes m_lo = m_hi and an even n two passes, for k = n/2 − 1 and n/2.
 * Columns clipped on one side (w >= K) keep the shared run: with one
 * column missing, a row's missing key is INT_MIN when the row's image
 * index mod K is below m_lo, else INT_MAX (K consecutive rows hold each
 * residue once, so every window of the run gets m_lo of them); with two
 * missing (5 x 5, n = 15), one of each per row. Windows clipped above or
 * below the image, and images narrower than K, go one window at a time.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/median.h"
#include "cuda/cuda-internal.h"

#include <limits.h>
#include <stdint.h>

/* Launch shape: 32 x 8 threads, each RUN outputs down a column of one
 * component, so a block covers 32 x 8 RUN pixels of u or of v (the grid's
 * z). RUN is even (5 x 5 works in pairs of rows): longer runs share more
 * rows, but a thread's registers bound the blocks an SM holds: both
 * components in 8-row runs took 118 (two blocks), in 4-row runs 89 (two),
 * one component in 4-row runs 80 (three), the fastest (H100, 1080p 5 x 5;
 * docs/flow-frontier.md); 8-row runs with the border runs out of line,
 * 64 registers and four blocks, ran 14 % fewer instructions in the same
 * time (ibid.); on small images
 * (MEDIAN_SMALL_PIXELS) MEDIAN_RUN_SMALL (2) gives four times the threads
 * a quarter of the serial work each, and fewer runs touch the top or
 * bottom border, whose windows go one at a time: the coarse pyramid
 * levels of TV-L1 are mostly such borders. Any RUN gives the same bits
 * (each output is the median of its own window). */
#define MEDIAN_BLOCK_X 32
#define MEDIAN_BLOCK_Y 8
#define MEDIAN_RUN 4
#define MEDIAN_RUN_SMALL 2
#define MEDIAN_SMALL_PIXELS (1 << 19)
#define MEDIAN_THREADS (MEDIAN_BLOCK_X * MEDIAN_BLOCK_Y)

static_assert (MEDIAN_RUN % 2 == 0 && MEDIAN_RUN_SMALL % 2 == 0,
    "5 x 5 runs work in pairs of rows");

/* The sentinels: below and above the key of every float but NaN */
#define MEDIAN_LO INT_MIN
#define MEDIAN_HI INT_MAX

/* ---------------------------------------------------------------------
 * Keys and compare-exchanges
 * --------------------------------------------------------------------- */

/** \brief The float's bits as an int whose signed order is IEEE 754
 *  totalOrder: negatives get their magnitude bits flipped, so −0 is −1
 *  and +0 is 0, −inf 0x807fffff and +inf 0x7f800000. Its own inverse. */
static __device__ __forceinline__ int
median_key (float f)
{
  const int i = __float_as_int (f);

  return i ^ ((i >> 31) & 0x7fffffff);
}

static __device__ __forceinline__ float
median_value (int k)
{
  return __int_as_float (k ^ ((k >> 31) & 0x7fffffff));
}

/** \brief Compare-exchange: a ← min, b ← max. */
static __device__ __forceinline__ void
cmpx (int &a, int &b)
{
  const int t = min (a, b);

  b = max (a, b);
  a = t;
}

static __device__ __forceinline__ int
med3 (int a, int b, int c)
{
  return max (min (a, b), min (max (a, b), c));
}

/** \brief Sort three keys (3 compare-exchanges). */
static __device__ __forceinline__ void
sort3 (int *v)
{
  cmpx (v[0], v[1]);
  cmpx (v[1], v[2]);
  cmpx (v[0], v[1]);
}

/** \brief Sort five keys (9 compare-exchanges, the fewest possible). */
static __device__ __forceinline__ void
sort5 (int *v)
{
  cmpx (v[0], v[1]);
  cmpx (v[3], v[4]);
  cmpx (v[2], v[4]);
  cmpx (v[2], v[3]);
  cmpx (v[0], v[3]);
  cmpx (v[0], v[2]);
  cmpx (v[1], v[4]);
  cmpx (v[1], v[3]);
  cmpx (v[1], v[2]);
}

/** \brief Merge two sorted fives into a sorted ten (Batcher's odd-even
 *  merge, 13 compare-exchanges).
 *  \param[in] a, b  sorted ascending
 *  \param[out] m    the ten, ascending */
static __device__ __forceinline__ void
merge5 (const int *a, const int *b, int *m)
{
  int v[10] = { a[0], a[1], a[2], a[3], a[4], b[0], b[1], b[2], b[3], b[4] };

  cmpx (v[0], v[5]);
  cmpx (v[4], v[9]);
  cmpx (v[4], v[5]);
  cmpx (v[2], v[7]);
  cmpx (v[2], v[4]);
  cmpx (v[7], v[5]);
  cmpx (v[1], v[6]);
  cmpx (v[3], v[8]);
  cmpx (v[3], v[6]);
  cmpx (v[1], v[2]);
  cmpx (v[3], v[4]);
  cmpx (v[6], v[7]);
  cmpx (v[8], v[5]);
  m[0] = v[0];
  m[1] = v[1];
  m[2] = v[2];
  m[3] = v[3];
  m[4] = v[4];
  m[5] = v[6];
  m[6] = v[7];
  m[7] = v[8];
  m[8] = v[5];
  m[9] = v[9];
}

/** \brief Ranks 7 ... 12 of the union of two sorted tens, ascending: the
 *  odd-even merge of 10 + 10 with every compare-exchange that cannot
 *  reach those outputs removed (25 of 35 left; nvcc drops the unused
 *  halves).
 *  \param[in] p, q  sorted ascending
 *  \param[out] c    the six */
static __device__ __forceinline__ void
middle6 (const int *p, const int *q, int *c)
{
  int v[20] = { p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9],
    q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9]
  };

  cmpx (v[0], v[10]);
  cmpx (v[8], v[18]);
  cmpx (v[8], v[10]);
  cmpx (v[4], v[14]);
  cmpx (v[4], v[8]);
  cmpx (v[14], v[10]);
  cmpx (v[2], v[12]);
  cmpx (v[6], v[16]);
  cmpx (v[6], v[12]);
  cmpx (v[6], v[8]);
  cmpx (v[12], v[14]);
  cmpx (v[1], v[11]);
  cmpx (v[9], v[19]);
  cmpx (v[9], v[11]);
  cmpx (v[5], v[15]);
  cmpx (v[5], v[9]);
  cmpx (v[15], v[11]);
  cmpx (v[3], v[13]);
  cmpx (v[7], v[17]);
  cmpx (v[7], v[13]);
  cmpx (v[7], v[9]);
  cmpx (v[13], v[15]);
  cmpx (v[7], v[8]);
  cmpx (v[9], v[12]);
  cmpx (v[13], v[14]);
  c[0] = v[7];
  c[1] = v[8];
  c[2] = v[9];
  c[3] = v[12];
  c[4] = v[13];
  c[5] = v[14];
}

/** \brief Rank 5 (0-based) of the union of a sorted six and a sorted
 *  five: min over the splits i + j = 6 of max (c[i − 1], e[j − 1]).
 *  \return the median of the 25 values behind them (see middle6) */
static __device__ __forceinline__ int
final11 (const int *c, const int *e)
{
  return min (min (min (max (c[0], e[4]), max (c[1], e[3])),
          min (max (c[2], e[2]), max (c[3], e[1]))),
      min (max (c[4], e[0]), c[5]));
}

/* ---------------------------------------------------------------------
 * Rows of the tile, runs of outputs
 * --------------------------------------------------------------------- */

/* Where a run's rows come from: the tile at the top-left of the first
 * window, and for a run whose windows lose columns at the left or right
 * edge, what replaces them */
struct median_rows
{
  const int *t;                 /* tile cell of (x − K/2, y0 − K/2) */
  int pitch;                    /* tile row, elements */
  int left, right;              /* columns of the window left of the image,
                                 * right of it (one of them 0) */
  int two_missing;              /* left + right == 2: one LO and one HI */
  int residue;                  /* the next row's image row mod K */
  int lo_rows;                  /* one missing: LO on rows of residue <
                                 * lo_rows, HI on the others */
};

/** \brief Row @i of a run (rows are read in order), its missing columns
 *  replaced by sentinels when @PAD. */
template < int K, bool PAD > static __device__ __forceinline__ void
load_row (median_rows & s, int i, int *v)
{
  const int *row = s.t + i * s.pitch;

#pragma unroll
  for (int c = 0; c < K; c++)
    v[c] = row[c];
  if (PAD) {
    const int first = s.two_missing ? MEDIAN_LO :
        (s.residue < s.lo_rows ? MEDIAN_LO : MEDIAN_HI);

#pragma unroll
    for (int c = 0; c < K; c++) {
      /* the outermost missing column gets `first`, the next one HI */
      if (c < s.left)
        v[c] = c == 0 ? first : MEDIAN_HI;
      if (c >= K - s.right)
        v[c] = c == K - 1 ? first : MEDIAN_HI;
    }
    s.residue = s.residue + 1 == K ? 0 : s.residue + 1;
  }
}

/** \brief 3 x 3 medians of RUN vertically adjacent pixels: rows
 *  0 ... RUN + 1 of @s, each sorted once. */
template < int RUN, bool PAD > static __device__ __forceinline__ void
run3 (median_rows s, int *out)
{
  int r[RUN + 2][3];

#pragma unroll
  for (int i = 0; i < RUN + 2; i++) {
    load_row < 3, PAD > (s, i, r[i]);
    sort3 (r[i]);
  }
#pragma unroll
  for (int i = 0; i < RUN; i++)
    out[i] = med3 (max (max (r[i][0], r[i + 1][0]), r[i + 2][0]),
        med3 (r[i][1], r[i + 1][1], r[i + 2][1]),
        min (min (r[i][2], r[i + 1][2]), r[i + 2][2]));
}

/** \brief 5 x 5 medians of RUN vertically adjacent pixels, two at
 *  a time: outputs y and y + 1 share rows y − 1 ... y + 2, whose cut
 *  (middle6 of the merged pairs (y − 1, y) and (y + 1, y + 2)) each
 *  completes with its own fifth row, y − 2 or y + 3. Row i of @s is image
 *  row y0 − 2 + i; merged pairs start at the odd rows. */
template < int RUN, bool PAD > static __device__ __forceinline__ void
run5 (median_rows s, int *out)
{
  int r[RUN + 4][5];
  int m[RUN / 2 + 1][10];

#pragma unroll
  for (int i = 0; i < 4; i++) {
    load_row < 5, PAD > (s, i, r[i]);
    sort5 (r[i]);
  }
  merge5 (r[1], r[2], m[0]);
#pragma unroll
  for (int j = 0; j < RUN / 2; j++) {
    int c[6];

    load_row < 5, PAD > (s, 2 * j + 4, r[2 * j + 4]);
    sort5 (r[2 * j + 4]);
    load_row < 5, PAD > (s, 2 * j + 5, r[2 * j + 5]);
    sort5 (r[2 * j + 5]);
    merge5 (r[2 * j + 3], r[2 * j + 4], m[j + 1]);
    middle6 (m[j], m[j + 1], c);
    out[2 * j] = final11 (c, r[2 * j]);
    out[2 * j + 1] = final11 (c, r[2 * j + 5]);
  }
}

template < int K, int RUN, bool PAD > static __device__ __forceinline__
    void
run (const median_rows & s, int *out)
{
  if constexpr (K == 3)
    run3 < RUN, PAD > (s, out);
  else
    run5 < RUN, PAD > (s, out);
}

/* ---------------------------------------------------------------------
 * One clipped window at a time
 * --------------------------------------------------------------------- */

/** \brief The median of a full K x K window of keys (sentinels included):
 *  the same networks as the runs. */
template < int K > static __device__ __forceinline__ int
window_median (int (&v)[K][K])
{
#pragma unroll
  for (int i = 0; i < K; i++) {
    if constexpr (K == 3)
      sort3 (v[i]);
    else
      sort5 (v[i]);
  }
  if constexpr (K == 3)
    return med3 (max (max (v[0][0], v[1][0]), v[2][0]),
        med3 (v[0][1], v[1][1], v[2][1]),
        min (min (v[0][2], v[1][2]), v[2][2]));
  else {
    int a[10], b[10], c[6];

    merge5 (v[0], v[1], a);
    merge5 (v[2], v[3], b);
    middle6 (a, b, c);
    return final11 (c, v[4]);
  }
}

/** \brief Rank @k of the values of the window at tile cell @t (its
 *  top-left) that lie inside the image, [x0, x1] x [y0, y1] in window
 *  coordinates: the others become m_lo LO and then HI sentinels. */
template < int K > static __device__ __forceinline__ int
clipped_rank (const int *t, int pitch, int x0, int x1, int y0, int y1, int k)
{
  const int m_lo = (K * K - 1) / 2 - k;
  int v[K][K];
  int missing = 0;

#pragma unroll
  for (int i = 0; i < K; i++) {
#pragma unroll
    for (int j = 0; j < K; j++) {
      if (i >= y0 && i <= y1 && j >= x0 && j <= x1)
        v[i][j] = t[j + i * pitch];
      else
        v[i][j] = missing++ < m_lo ? MEDIAN_LO : MEDIAN_HI;
    }
  }
  return window_median < K > (v);
}

/** \brief The median at image pixel (x, y) of a window that may leave
 *  the image; @t is the tile cell of (x − K/2, y − K/2). */
template < int K > static __device__ float
clipped_median (const int *t, int pitch, int x, int y, int w, int h)
{
  const int rad = K / 2;
  const int x0 = max (0, rad - x), x1 = min (K - 1, rad + w - 1 - x);
  const int y0 = max (0, rad - y), y1 = min (K - 1, rad + h - 1 - y);
  const int n = (x1 - x0 + 1) * (y1 - y0 + 1);

  if (n % 2 == 1)
    return median_value (clipped_rank < K > (t, pitch, x0, x1, y0, y1,
            n / 2));
  return __fmul_rn (__fadd_rn (median_value (clipped_rank < K > (t, pitch,
                  x0, x1, y0, y1, n / 2 - 1)),
          median_value (clipped_rank < K > (t, pitch, x0, x1, y0, y1,
                  n / 2))), 0.5f);
}

/* ---------------------------------------------------------------------
 * The kernel
 * --------------------------------------------------------------------- */

struct median_src
{
  const float *u, *v;
  size_t pitch;
};

struct median_dst
{
  float *u, *v;
  size_t pitch;
};

static median_src
median_src_of (const float *u, const float *v, size_t pitch)
{
  median_src s = { u, v, pitch };

  return s;
}

static median_dst
median_dst_of (cf_cuda_flow * f)
{
  median_dst d = { f->u, f->v, f->pitch };

  return d;
}

/** \brief The RUN outputs of one thread, down image column @x from
 *  row @y0: a shared run when no window of it leaves the image at the top
 *  or bottom (with sentinels for columns lost at the left or right), else
 *  window by window.
 *  \param[in] t       the tile of component @comp (0: u, 1: v) at the
 *                     cell of (x − K/2, y0 − K/2), rows of @tile_w keys
 *  \param[out] dst    the filtered flow */
template < int K, int RUN > static __device__ __forceinline__ void
median_column (const int *t, int tile_w, int x, int y0, int w, int h,
    median_dst dst, int comp)
{
  const int rad = K / 2;
  const int left = max (0, rad - x), right = max (0, x + rad - (w - 1));
  const bool rows_inside = y0 >= rad && y0 + RUN - 1 + rad < h;
  float *d = (comp == 0 ? dst.u : dst.v) + x + (size_t) y0 * dst.pitch;
  median_rows s;
  int out[RUN];

  s.t = t;
  s.pitch = tile_w;
  s.left = left;
  s.right = right;
  s.two_missing = left + right == 2;
  s.residue = (y0 - rad) % K;
  s.lo_rows = 0;
  if (rows_inside && left + right == 0) {
    run < K, RUN, false > (s, out);
#pragma unroll
    for (int i = 0; i < RUN; i++)
      d[i * dst.pitch] = median_value (out[i]);
  } else if (rows_inside && w >= K && left + right == 2) {
    /* 5 x 5 two columns short: n = 15, one LO and one HI per row */
    run < K, RUN, true > (s, out);
#pragma unroll
    for (int i = 0; i < RUN; i++)
      d[i * dst.pitch] = median_value (out[i]);
  } else if (rows_inside && w >= K) {
    /* one column short: n = K (K − 1), even; the lower middle takes
     * (K + 1)/2 LO rows of K, the upper (K − 1)/2 */
    int upper[RUN];

    s.lo_rows = (K + 1) / 2;
    run < K, RUN, true > (s, out);
    s.lo_rows = (K - 1) / 2;
    run < K, RUN, true > (s, upper);
#pragma unroll
    for (int i = 0; i < RUN; i++)
      d[i * dst.pitch] = __fmul_rn (__fadd_rn (median_value (out[i]),
              median_value (upper[i])), 0.5f);
  } else {
    for (int i = 0; i < RUN && y0 + i < h; i++)
      d[i * dst.pitch] = clipped_median < K > (t + i * tile_w, tile_w, x,
          y0 + i, w, h);
  }
}

/** \brief K x K median of one component, blockIdx.z (0: u, 1: v).
 *
 *  The block loads its 32 x 8 RUN pixels and a K/2 halo as keys into
 *  shared memory (0 outside the image, never read as a value), then each
 *  thread filters RUN pixels down one column (median_column).
 *  \param[in]  src   the flow
 *  \param[out] dst   its median, same size, not overlapping @src
 *  \param w, h       size of both */
template < int K, int RUN > __global__ void
__launch_bounds__ (MEDIAN_THREADS)
median_kernel (median_src src, median_dst dst, int w, int h)
{
  constexpr int rad = K / 2;
  constexpr int tile_w = MEDIAN_BLOCK_X + 2 * rad;
  constexpr int tile_h = MEDIAN_BLOCK_Y * RUN + 2 * rad;
  __shared__ int tile[tile_h][tile_w];
  const int comp = blockIdx.z;
  const float *plane = comp == 0 ? src.u : src.v;
  const int bx = blockIdx.x * MEDIAN_BLOCK_X;
  const int by = blockIdx.y * MEDIAN_BLOCK_Y * RUN;
  const int x = bx + threadIdx.x;
  const int y0 = by + threadIdx.y * RUN;

  {
    /* every load of the thread in flight at once, then the stores: one
     * round trip to memory for the tile, not one per cell a thread loads */
    constexpr int PER = (tile_w * tile_h + MEDIAN_THREADS - 1) /
        MEDIAN_THREADS;
    const int tid = threadIdx.x + threadIdx.y * MEDIAN_BLOCK_X;
    float f[PER];

#pragma unroll
    for (int k = 0; k < PER; k++) {
      const int i = tid + k * MEDIAN_THREADS;
      const int r = i / tile_w, c = i % tile_w;
      const int gx = bx - rad + c, gy = by - rad + r;

      f[k] = 0.0f;
      if (i < tile_w * tile_h && gx >= 0 && gx < w && gy >= 0 && gy < h)
        f[k] = plane[gx + (size_t) gy * src.pitch];
    }
#pragma unroll
    for (int k = 0; k < PER; k++) {
      const int i = tid + k * MEDIAN_THREADS;

      if (i < tile_w * tile_h)
        tile[i / tile_w][i % tile_w] = median_key (f[k]);
    }
  }
  __syncthreads ();
  if (x < w && y0 < h)
    median_column < K, RUN > (&tile[threadIdx.y * RUN][threadIdx.x],
        tile_w, x, y0, w, h, dst, comp);
}

/* ---------------------------------------------------------------------
 * Host
 * --------------------------------------------------------------------- */

/* 1 when the @width x @height device planes at @a and @b (pitches in
 * elements) share any byte of their spans */
static int
planes_overlap (const float *a, size_t pitch_a, const float *b,
    size_t pitch_b, int width, int height)
{
  const uintptr_t a0 = (uintptr_t) a, b0 = (uintptr_t) b;
  const uintptr_t a1 = a0 + ((height - 1) * pitch_a + width) * sizeof (float);
  const uintptr_t b1 = b0 + ((height - 1) * pitch_b + width) * sizeof (float);

  return a0 < b1 && b0 < a1;
}

/* 1 when a plane of @dst shares a byte with a plane of @src or with the
 * other plane of @dst (same sizes): a filter reads the neighbours of what
 * it writes */
static int
flows_overlap (const cf_cuda_flow * src, const cf_cuda_flow * dst)
{
  const int w = src->width, h = src->height;

  return planes_overlap (dst->u, dst->pitch, src->u, src->pitch, w, h) ||
      planes_overlap (dst->u, dst->pitch, src->v, src->pitch, w, h) ||
      planes_overlap (dst->v, dst->pitch, src->u, src->pitch, w, h) ||
      planes_overlap (dst->v, dst->pitch, src->v, src->pitch, w, h) ||
      planes_overlap (dst->u, dst->pitch, dst->v, dst->pitch, w, h);
}

extern "C" cf_status
cf_cuda_flow_median (const cf_cuda_flow * src, int size, cf_cuda_flow * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  const int w = src != NULL ? src->width : 0, h = src != NULL ?
      src->height : 0;
  median_src s;
  median_dst d;
  dim3 grid;

  if (!cf_cuda_flow_is_valid (src) || !cf_cuda_flow_is_valid (dst) ||
      !cf_median_size_valid (size) || dst->width != w || dst->height != h)
    return CF_ERROR_INVALID;
  if (flows_overlap (src, dst))
    return CF_ERROR_INVALID;

  s = median_src_of (src->u, src->v, src->pitch);
  d = median_dst_of (dst);
  {
    const dim3 block (MEDIAN_BLOCK_X, MEDIAN_BLOCK_Y);
    const int small = (long) w * h < MEDIAN_SMALL_PIXELS;
    const int run = small ? MEDIAN_RUN_SMALL : MEDIAN_RUN;

    grid = dim3 (cf_div_up (w, MEDIAN_BLOCK_X),
        cf_div_up (h, MEDIAN_BLOCK_Y * run), 2);
    if (size == 3 && small)
      median_kernel < 3, MEDIAN_RUN_SMALL > <<< grid, block, 0, stream >>>
          (s, d, w, h);
    else if (size == 3)
      median_kernel < 3, MEDIAN_RUN > <<< grid, block, 0, stream >>> (s, d,
          w, h);
    else if (small)
      median_kernel < 5, MEDIAN_RUN_SMALL > <<< grid, block, 0, stream >>>
          (s, d, w, h);
    else
      median_kernel < 5, MEDIAN_RUN > <<< grid, block, 0, stream >>> (s, d,
          w, h);
  }
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* ---------------------------------------------------------------------
 * Weighted median (common/median.h): a block of 32 x 4 threads stages the
 * guide, u and v of its window cells in shared memory; each thread then
 * weighs its pixel's checkerboard cells once and runs each component's
 * values through the bisection in registers. The cell fill and the per-pixel
 * program are written once for the device and the host:
 * cf_cuda_wmedian_emulate runs the blocks one after another on the CPU
 * (the test of their arithmetic and indexing that needs no GPU).
 * --------------------------------------------------------------------- */

#define WMEDIAN_BLOCK_X 32
#define WMEDIAN_BLOCK_Y 4
#define WMEDIAN_THREADS (WMEDIAN_BLOCK_X * WMEDIAN_BLOCK_Y)

/** \brief S(t) of common/median.h: the weight of the values <= @t
 *  (integers: any order gives the same sum). */
template < int N > static __host__ __device__ __forceinline__ unsigned int
weight_at_most (const float (&val)[N], const unsigned int (&wt)[N], float t)
{
  unsigned int s = 0;

CF_UNROLL
  for (int i = 0; i < N; i++)
    s += val[i] <= t ? wt[i] : 0u;
  return s;
}

/** \brief The weighted median of @val by the bisection of common/median.h
 *  (weighted_median_of there): the same comparisons in fp32, the same
 *  integer sums, so the same bits. A NaN value (a cell outside the
 *  image, weight 0) fails every comparison: it changes nothing. */
template < int N > static __host__ __device__ __forceinline__ float
weighted_median_of (const float (&val)[N], const unsigned int (&wt)[N],
    unsigned int total, float own)
{
  float a = own, b = own, m;
  unsigned int s = 0;

CF_UNROLL
  for (int i = 0; i < N; i++) {
    a = val[i] < a ? val[i] : a;
    b = val[i] > b ? val[i] : b;
  }
  for (int k = 0; k < CF_WMEDIAN_BISECTIONS; k++) {
    const float t = cf_mul_rn (cf_add_rn (a, b), 0.5f);

    if (!(t > a && t < b))
      break;
    if (2u * weight_at_most (val, wt, t) >= total)
      b = t;
    else
      a = t;
  }
  m = b;
CF_UNROLL
  for (int i = 0; i < N; i++) {
    if (val[i] <= a)
      s += wt[i];
    else
      m = val[i] < m ? val[i] : m;
  }
  return 2u * s >= total ? a : m;
}

/* The block's window cells: its outputs and a halo of K / 2 on each side,
 * for the guide, u and v */
template < int K > struct wmedian_tile
{
  static constexpr int R = K / 2;
  static constexpr int W = WMEDIAN_BLOCK_X + 2 * R;
  static constexpr int H = WMEDIAN_BLOCK_Y + 2 * R;
  float g[H * W], u[H * W], v[H * W];
};

struct wmedian_guide
{
  const float *g;
  size_t pitch;
};

/** \brief Tile cell @i of the block whose outputs start at (@x0, @y0):
 *  the guide, u and v there; NaN outside the image, which every
 *  comparison of the weights and of the bisection skips (weight 0, never
 *  a minimum, a maximum or a result), so the cells inside are the
 *  clipped window's, in its order. Pitches fit in an int (the wrapper
 *  checks). */
template < int K > static __host__ __device__ __forceinline__ void
wmedian_fill_cell (wmedian_tile < K > &t, int i, median_src src,
    wmedian_guide guide, int x0, int y0, int w, int h)
{
  typedef wmedian_tile < K > T;
  const int gx = x0 - T::R + i % T::W, gy = y0 - T::R + i / T::W;
  const bool inside = gx >= 0 && gx < w && gy >= 0 && gy < h;

  t.g[i] = inside ? cf_ld_ro (guide.g + gx + gy * (int) guide.pitch) : NAN;
  t.u[i] = inside ? cf_ld_ro (src.u + gx + gy * (int) src.pitch) : NAN;
  t.v[i] = inside ? cf_ld_ro (src.v + gx + gy * (int) src.pitch) : NAN;
}

/** \brief Offset in a tile of pitch @W of the @i-th checkerboard cell of a
 *  K x K window, raster order: rows alternate (K + 1) / 2 cells (even
 *  columns) and (K − 1) / 2 (odd columns). */
template < int K, int W > static __host__ __device__ __forceinline__ int
checker_cell (int i)
{
  const int j = i % K, row = 2 * (i / K) + (j < (K + 1) / 2 ? 0 : 1);
  const int col = j < (K + 1) / 2 ? 2 * j : 2 * (j - (K + 1) / 2) + 1;

  return col + row * W;
}

/** \brief The K x K weighted medians of u and v at the tile's output
 *  (@tx, @ty), with the range weights @range and @scale of
 *  cf_wmedian_tables: the checkerboard cells' weights once, then each
 *  component's values through the registers. */
template < int K > static __host__ __device__ __forceinline__ void
wmedian_tile_pixel (const wmedian_tile < K > &t, int tx, int ty,
    const unsigned int *range, float scale, float *out_u, float *out_v)
{
  typedef wmedian_tile < K > T;
  constexpr int N = CF_WMEDIAN_CELLS (K);
  const int at = tx + ty * T::W, own = at + T::R + T::R * T::W;
  const float gc = t.g[own];
  unsigned int wt[N], total = 0;
  float val[N];

CF_UNROLL
  for (int i = 0; i < N; i++) {
    const float d = fabsf (cf_add_rn (t.g[at + checker_cell < K, T::W > (i)],
            -gc));
    const float step = cf_add_rn (cf_mul_rn (d, scale), 0.5f);

    wt[i] = step < (float) (CF_WMEDIAN_RANGE_STEPS - 1) ?
        range[(int) step] : 0u;
    total += wt[i];
  }
CF_UNROLL
  for (int i = 0; i < N; i++)
    val[i] = t.u[at + checker_cell < K, T::W > (i)];
  *out_u = weighted_median_of (val, wt, total, t.u[own]);
CF_UNROLL
  for (int i = 0; i < N; i++)
    val[i] = t.v[at + checker_cell < K, T::W > (i)];
  *out_v = weighted_median_of (val, wt, total, t.v[own]);
}

/** \brief K x K weighted median of u and v guided by @guide: the block
 *  stages its window cells (wmedian_fill_cell), then each thread filters
 *  one pixel (wmedian_tile_pixel). */
template < int K > static __global__ void
__launch_bounds__ (WMEDIAN_THREADS, 4)
weighted_median_kernel (median_src src, wmedian_guide guide,
    cf_wmedian_tables tables, median_dst dst, int w, int h)
{
  typedef wmedian_tile < K > T;
  __shared__ unsigned int range[CF_WMEDIAN_RANGE_STEPS];
  __shared__ T tile;
  const int x0 = blockIdx.x * WMEDIAN_BLOCK_X;
  const int y0 = blockIdx.y * WMEDIAN_BLOCK_Y;
  const int tid = threadIdx.x + threadIdx.y * WMEDIAN_BLOCK_X;
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;

  /* the table is indexed per thread: from shared memory, not the
   * parameter bank, whose divergent reads serialise */
  for (int i = tid; i < CF_WMEDIAN_RANGE_STEPS; i += WMEDIAN_THREADS)
    range[i] = tables.range[i];
  for (int i = tid; i < T::W * T::H; i += WMEDIAN_THREADS)
    wmedian_fill_cell < K > (tile, i, src, guide, x0, y0, w, h);
  __syncthreads ();
  if (x >= w || y >= h)
    return;
  wmedian_tile_pixel < K > (tile, threadIdx.x, threadIdx.y, range,
      tables.scale, &dst.u[x + (size_t) y * dst.pitch],
      &dst.v[x + (size_t) y * dst.pitch]);
}

/* The kernel's blocks one after another on the host: the same cells,
 * the same per-pixel program */
template < int K > static void
wmedian_emulate (const cf_flow * src, const cf_image * guide,
    const cf_wmedian_tables * tables, cf_flow * dst)
{
  const int w = src->width, h = src->height;
  wmedian_tile < K > *tile = new wmedian_tile < K >;
  const median_src s = median_src_of (src->u, src->v, src->pitch);
  wmedian_guide g = { guide->data, guide->pitch };

  for (int y0 = 0; y0 < h; y0 += WMEDIAN_BLOCK_Y)
    for (int x0 = 0; x0 < w; x0 += WMEDIAN_BLOCK_X) {
      for (int i = 0; i < wmedian_tile < K >::W * wmedian_tile < K >::H; i++)
        wmedian_fill_cell < K > (*tile, i, s, g, x0, y0, w, h);
      for (int ty = 0; ty < WMEDIAN_BLOCK_Y && y0 + ty < h; ty++)
        for (int tx = 0; tx < WMEDIAN_BLOCK_X && x0 + tx < w; tx++) {
          const size_t at = x0 + tx + (size_t) (y0 + ty) * dst->pitch;

          wmedian_tile_pixel < K > (*tile, tx, ty, tables->range,
              tables->scale, &dst->u[at], &dst->v[at]);
        }
    }
  delete tile;
}

/* 1 when a plane of @pitch elements per row and @h rows is addressed by
 * int offsets (the kernel's) */
static int
int_addressable (size_t pitch, int h)
{
  return pitch <= (size_t) INT_MAX / (size_t) h;
}

extern "C" cf_status
cf_cuda_wmedian_emulate (const cf_flow * src, const cf_image * guide,
    int size, const cf_wmedian_tables * tables, cf_flow * dst)
{
  if (src == NULL || dst == NULL || guide == NULL || tables == NULL ||
      guide->data == NULL || !cf_wmedian_size_valid (size) ||
      src->width < 1 || src->height < 1 || dst->width != src->width ||
      dst->height != src->height || guide->width != src->width ||
      guide->height != src->height ||
      !int_addressable (src->pitch, src->height) ||
      !int_addressable (guide->pitch, guide->height))
    return CF_ERROR_INVALID;
  switch (size) {
    case 3:
      wmedian_emulate < 3 > (src, guide, tables, dst);
      break;
    case 5:
      wmedian_emulate < 5 > (src, guide, tables, dst);
      break;
    case 7:
      wmedian_emulate < 7 > (src, guide, tables, dst);
      break;
    default:
      wmedian_emulate < 9 > (src, guide, tables, dst);
      break;
  }
  return CF_OK;
}

extern "C" cf_status
cf_cuda_flow_weighted_median (const cf_cuda_flow * src,
    const cf_cuda_image * guide, int size, const cf_wmedian_tables * tables,
    cf_cuda_flow * dst, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const int w = src != NULL ? src->width : 0, h = src != NULL ?
      src->height : 0;
  median_src s;
  median_dst d;
  wmedian_guide g;

  if (!cf_cuda_flow_is_valid (src) || !cf_cuda_flow_is_valid (dst) ||
      !cf_cuda_image_is_valid (guide) || tables == NULL ||
      !cf_wmedian_size_valid (size) || dst->width != w || dst->height != h
      || guide->width != w || guide->height != h ||
      !int_addressable (src->pitch, h) || !int_addressable (guide->pitch, h))
    return CF_ERROR_INVALID;
  if (flows_overlap (src, dst))
    return CF_ERROR_INVALID;

  s = median_src_of (src->u, src->v, src->pitch);
  d = median_dst_of (dst);
  g.g = guide->data;
  g.pitch = guide->pitch;
  {
    const dim3 block (WMEDIAN_BLOCK_X, WMEDIAN_BLOCK_Y);
    const dim3 grid (cf_div_up (w, WMEDIAN_BLOCK_X),
        cf_div_up (h, WMEDIAN_BLOCK_Y));

    switch (size) {
      case 3:
        weighted_median_kernel < 3 > <<< grid, block, 0, stream >>> (s, g,
            *tables, d, w, h);
        break;
      case 5:
        weighted_median_kernel < 5 > <<< grid, block, 0, stream >>> (s, g,
            *tables, d, w, h);
        break;
      case 7:
        weighted_median_kernel < 7 > <<< grid, block, 0, stream >>> (s, g,
            *tables, d, w, h);
        break;
      default:
        weighted_median_kernel < 9 > <<< grid, block, 0, stream >>> (s, g,
            *tables, d, w, h);
        break;
    }
  }
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}
