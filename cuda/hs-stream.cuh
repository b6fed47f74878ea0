/* gst-cudaflow — Horn–Schunck's STREAM Jacobi kernel: a thread's program
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * STREAM runs K Jacobi sweeps per launch, as FUSED_DB does, but a block
 * owns a column strip of the level (RW cells wide, a TW = RW - 2K wide
 * tile plus K halo columns on each side) and a segment of its rows, and
 * walks down the segment in pieces of H rows, computing every level
 * (sweep) t = 1 .. K of a piece before the next piece. The rows a level
 * covers are skewed: in piece p, level t holds image rows
 * z_p - t .. z_p - t + H - 1 (z_p = z_0 + p H), so a row of level t reads
 * the rows of level t - 1 of the same piece and the two just above them,
 * which the previous piece computed last (its "carry"). Only the segment's
 * first piece recomputes rows another block owns (the halo above, as
 * FUSED_DB does at every tile edge); below, the skew leaves nothing to
 * recompute. At 1920 x 1080 with 96-wide strips and segments of 99
 * rows, 73 % of the cells a block computes are its own
 * (cf_cuda_hs_stream_schedule), against 60 % for FUSED_DB's 64 x 80
 * regions.
 *
 * Shared memory: two planes of H + 2 rows (frame rows -2 .. H - 1 of a
 * level: the carry, then the piece), RW + 2 columns (one of padding on
 * each side), levels alternating between them; and K pairs of carry rows
 * that the bottom strip's threads keep for themselves (a thread reads its
 * own column's last two rows of level t - 1 out of the plane in sweep t,
 * and writes them back as frame rows -2, -1 of level t - 1 in the next
 * piece). A thread owns a column and a strip of R rows of every level of
 * a piece (BY strips, H = R BY), keeps them in registers between sweeps
 * (the window's centre column) and holds the coefficients of the R + K - 1
 * image rows its strip meets over the K levels. Image borders use ghost
 * cells as FUSED_DB does; the segment's origin z_0 is chosen so that no
 * ghost ever falls into the carry rows or below a plane
 * (hs_stream_origin).
 *
 * Written once for the device (hs_jacobi_stream_kernel, cuda/hs.cu) and
 * the host (cf_cuda_hs_stream_emulate, cuda/hs-emu.cu, which runs these
 * phases for every thread of a block in turn, as the kernel's barriers
 * order them).
 */
#ifndef CF_CUDA_HS_STREAM_CUH
#define CF_CUDA_HS_STREAM_CUH

#include "cuda/hs-ops.cuh"

#include <limits.h>

/* A STREAM geometry: strips RW cells wide, BY thread rows of R cells (a
 * piece is H = R BY rows), K sweeps a launch, MIN_BLOCKS resident blocks
 * per SM asked of ptxas. */
template < int RW_, int R_, int BY_, int K_, int MIN_BLOCKS_ >
struct hs_stream_geom
{
  static const int RW = RW_, R = R_, BY = BY_, K = K_;
  static const int MIN_BLOCKS = MIN_BLOCKS_;
  static const int H = R * BY, TW = RW - 2 * K, PW = RW + 2;
  static const int PLANE = (H + 2) * PW;
  static const int NK = R + K - 1;      /* coefficient rows a thread holds */
  static const int CELLS = 2 * PLANE + 2 * K * RW;      /* shared, in cells */
  static_assert (RW % 32 == 0, "whole warps per strip row");
  static_assert (K % 2 == 0, "level K - 1 in plane 1, piece loads in 0");
  static_assert (H >= 2 * K + 3, "room for an origin (hs_stream_origin)");
  static_assert (R <= 32, "row masks have 32 bits");
  static_assert (TW > 0, "a tile wider than the halo");
};

/* The geometry the plan runs (and the emulation): 96-wide strips (80-wide
 * tiles, 1920 = 24 x 80), three thread rows of 8 cells (pieces of 24
 * rows), 8 sweeps a launch, two blocks per SM asked of ptxas (288
 * threads, up to 113 registers; 96 used in fp32, no spill) */
typedef hs_stream_geom < 96, 8, 3, 8, 2 > hs_stream_g;

/** \brief The first row z_0 of a segment whose tile starts at image row
 *  @y_s: at most y_s - K (the halo), and such that in no piece does a
 *  level t = 0 .. K hold image row 0 at frame row 0 (its ghost would be a
 *  carry row) or image row @height - 1 at frame row H - 1 (its ghost would
 *  be below the plane). Each condition forbids K + 1 residues of z_0
 *  modulo H, so one of H consecutive candidates is free (H >= 2K + 3).
 *  INT_MIN if none (never). */
static __host__ __device__ __forceinline__ int
hs_stream_origin (int y_s, int height, int H, int K)
{
  for (int e = 0; e < H; e++) {
    const int z = y_s - K - e;
    bool ok = true;

    for (int t = 0; t <= K && ok; t++) {
      const int top = t - z, bottom = height - 1 - z + t;
      if ((top >= 0 && top % H == 0) || (bottom >= 0 && bottom % H == H - 1))
        ok = false;
    }
    if (ok)
      return z;
  }
  return INT_MIN;
}

/* What a block of a STREAM launch covers */
struct hs_stream_block
{
  int width, height;
  int gx0;                      /* image column of strip column 0 */
  int y_s, y_e;                 /* the segment: tile rows y_s .. y_e - 1 */
  int z0;                       /* hs_stream_origin */
  int pieces;
};

static __host__ __device__ __forceinline__ hs_stream_block
hs_stream_block_at (int width, int height, int seg_rows, int TW, int H,
    int K, int bx, int by)
{
  hs_stream_block b;

  b.width = width;
  b.height = height;
  b.gx0 = bx * TW - K;
  b.y_s = by * seg_rows;
  b.y_e = min (b.y_s + seg_rows, height);
  b.z0 = hs_stream_origin (b.y_s, height, H, K);
  /* the last piece's level K reaches row y_e - 1 */
  b.pieces = (b.y_e + K - b.z0 + H - 1) / H;
  return b;
}

/** \brief Rows of a segment at width x height, as a plan picks them:
 *  enough segments for one wave of blocks (@blocks_per_sm on each of
 *  @n_sm SMs, the strips times the segments), none shorter than two
 *  pieces, whose first piece's halo would then weigh too much. */
template < class G > static __host__ __device__ __forceinline__ int
hs_stream_segment_rows (int blocks_per_sm, int n_sm, int width, int height)
{
  long strips = (width + G::TW - 1) / G::TW;
  long wave = (long) blocks_per_sm * n_sm;
  long segments = (wave + strips - 1) / strips;
  long most = height / (2 * G::H);

  if (segments > most)
    segments = most;
  if (segments < 1)
    segments = 1;
  return (int) ((height + segments - 1) / segments);
}

/** \brief Whether the strip whose first cell is image row @y0 at level
 *  @t computes: its rows meet those level t needs (the tile rows widened
 *  by K - t, within the image). No cell the tile needs reads the others,
 *  now or later (a strip outside level t's rows is outside every later
 *  level's too). */
template < class G > static __host__ __device__ __forceinline__ bool
hs_stream_strip_computes (const hs_stream_block & b, int y0, int t)
{
  const int lo = max (b.y_s - (G::K - t), 0);
  const int hi = min (b.y_e + (G::K - t), b.height);

  return y0 + G::R > lo && y0 < hi;
}

/* A thread's registers */
template < class G, typename S > struct hs_stream_thread
{
  typedef typename hs_traits < S >::cell cell;
  int c, i0;                    /* column, first frame row of the strip */
  int x;                        /* image column */
  bool col_in, left, right, bottom;
  bool col_out;                 /* a tile column */
  cell own[G::R];               /* the strip's cells, last level computed */
  hs_coef k[G::NK];             /* coefficients of image rows
                                 * z_p - K + i0 .. z_p + i0 + R - 2 */
};

/* The planes' and carries' cells in shared memory */
template < class G, typename C > static __host__ __device__ __forceinline__
C * hs_stream_plane (C * smem, int level)
{
  return smem + (level & 1) * G::PLANE;
}

template < class G, typename C > static __host__ __device__ __forceinline__
C * hs_stream_carry (C * smem, int level, int c)
{
  return smem + 2 * G::PLANE + level * 2 * G::RW + c;
}

/** \brief Thread (@tx, @ty)'s constants. */
template < class G, typename S > static __host__ __device__ __forceinline__
void
hs_stream_init (hs_stream_thread < G, S > &th, const hs_stream_block & b,
    int tx, int ty)
{
  th.c = tx;
  th.i0 = ty * G::R;
  th.x = b.gx0 + tx;
  th.col_in = th.x >= 0 && th.x < b.width;
  th.left = th.x == 0;
  th.right = th.x == b.width - 1;
  th.bottom = ty == G::BY - 1;
  th.col_out = th.col_in && tx >= G::K && tx < G::K + G::TW;
}

/** \brief Zeros in both planes and in the thread's own carries (thread
 *  @t of @n, linear index): the padding and the cells outside the image,
 *  which nothing writes, and the first piece's carries (a cut edge, as
 *  FUSED_DB's padding). Barrier after. */
template < class G, typename S > static __host__ __device__ __forceinline__
void
hs_stream_zero (const hs_stream_thread < G, S > &th,
    typename hs_traits < S >::cell * smem, int t, int n)
{
  for (int i = t; i < 2 * G::PLANE; i += n)
    hs_cell_clear (smem + i);
  if (th.bottom)
    for (int l = 0; l < G::K; l++) {
      hs_cell_clear (hs_stream_carry < G > (smem, l, th.c));
      hs_cell_clear (hs_stream_carry < G > (smem, l, th.c) + G::RW);
    }
}

/** \brief The coefficients of piece @p (no launch writes them). */
template < class G, typename S > static __host__ __device__ __forceinline__
void
hs_stream_coefs (hs_stream_thread < G, S > &th, const hs_stream_block & b,
    const hs_coef_planes & g, int p)
{
  const int y0 = b.z0 + p * G::H - G::K + th.i0;

CF_UNROLL
  for (int m = 0; m < G::NK; m++) {
    const int y = y0 + m;
    if (th.col_in && y >= 0 && y < b.height) {
      th.k[m] = hs_coef_at (g, th.x, y);
    } else {
      th.k[m].a = th.k[m].b = th.k[m].c = 0.0f;
    }
  }
}

/** \brief Piece @p's level 0 (the launch's input, zeros with @zero_in) into
 *  plane 0, image cells only; in flight until hs_stream_finish_input. */
template < class G, typename S > static __host__ __device__ __forceinline__
void
hs_stream_issue_input (const hs_stream_thread < G, S > &th,
    const hs_stream_block & b, typename hs_traits < S >::cell * smem,
    const S & in, int zero_in, int p)
{
  typedef hs_traits < S > T;
  typename T::cell * plane = hs_stream_plane < G > (smem, 0);
  const int y0 = b.z0 + p * G::H + th.i0;

  if (!th.col_in)
    return;
CF_UNROLL
  for (int j = 0; j < G::R; j++) {
    const int y = y0 + j;
    typename T::cell * at = plane + (th.i0 + j + 2) * G::PW + th.c + 1;
    if (y < 0 || y >= b.height)
      continue;
    if (zero_in) {
      hs_cell_clear (at);
    } else {
#ifdef __CUDA_ARCH__
      T::copy_async (at, in, (size_t) y * in.pitch + th.x);
#else
      *at = in.uv[(size_t) y * in.pitch + th.x];
#endif
    }
  }
}

/* Write @v at @at in frame rows -2, -1 (a carry) and, where the padding
 * column next to it is a ghost, there too */
template < class G, typename S > static __host__ __device__ __forceinline__
void
hs_stream_put_carry (const hs_stream_thread < G, S > &th,
    typename hs_traits < S >::cell * at, typename hs_traits < S >::cell v)
{
  at[0] = v;
  if (th.c == 0 && th.left)
    at[-1] = v;
  if (th.c == G::RW - 1 && th.right)
    at[1] = v;
}

/** \brief Piece @p's level 0 complete: the thread's cells in registers,
 *  their ghosts, and (bottom strip) level 0's carry from the previous
 *  piece into frame rows -2, -1. Barrier after. */
template < class G, typename S > static __host__ __device__ __forceinline__
void
hs_stream_finish_input (hs_stream_thread < G, S > &th,
    const hs_stream_block & b, typename hs_traits < S >::cell * smem, int p)
{
  typedef typename hs_traits < S >::cell cell;
  cell *plane = hs_stream_plane < G > (smem, 0);
  const int y0 = b.z0 + p * G::H + th.i0;

#ifdef __CUDA_ARCH__
  cf_copy_async_wait ();
#endif
  if (th.col_in) {
CF_UNROLL
    for (int j = 0; j < G::R; j++) {
      const int y = y0 + j;
      cell *at = plane + (th.i0 + j + 2) * G::PW + th.c + 1;
      if (y >= 0 && y < b.height) {
        th.own[j] = *at;
        hs_put_ghosts < G::PW > (at, th.own[j], th.left, th.right, y == 0,
            y == b.height - 1);
      }
    }
  }
  if (th.bottom) {
    const cell *carry = hs_stream_carry < G > (smem, 0, th.c);
    hs_stream_put_carry < G, S > (th, plane + th.c + 1, carry[0]);
    hs_stream_put_carry < G, S > (th, plane + G::PW + th.c + 1,
        carry[G::RW]);
  }
}

/** \brief Sweep @t (1 .. K) of piece @p: level t from level t - 1, into
 *  plane t & 1, or for t = K the tile's cells into @out. Barrier after
 *  (none needed after t = K: hs_jacobi_stream_kernel).
 *
 *  The bottom strip first moves the carries: level t - 1's last two rows
 *  (its own column, ghosts included) out of the plane for the next
 *  piece, and level t's from the previous piece into the new plane.
 *  A strip outside the rows level t needs computes nothing
 *  (hs_stream_strip_computes).
 *
 *  Interior strips (level t - 1's rows all image rows, level t's away
 *  from the image's top and bottom rows) walk a 3 x 3 window down the
 *  strip with the centre column from registers, as FUSED_DB's own-centre
 *  sweep, and store without a test a row. The others (a strip at the top
 *  or bottom of the image: rare) read everything from the plane, a cell
 *  at a time with its own tests and its coefficients from global memory,
 *  then take their cells back into registers. Both evaluate the same
 *  expression on the same values, so the bits do not depend on the
 *  path. */
template < class G, typename S > static __host__ __device__ __forceinline__
void
hs_stream_sweep (hs_stream_thread < G, S > &th, const hs_stream_block & b,
    typename hs_traits < S >::cell * smem, const hs_coef_planes & g,
    const S & out, int p, int t)
{
  typedef hs_traits < S > T;
  typedef typename T::cell cell;
  const int PW = G::PW, R = G::R, c = th.c, i0 = th.i0;
  const bool last = t == G::K;
  const cell *src = hs_stream_plane < G > (smem, t - 1);
  cell *dst = hs_stream_plane < G > (smem, t);
  /* image row of the strip's first cell at level t */
  const int y0 = b.z0 + p * G::H - t + i0;

  if (th.bottom) {
    cell *keep = hs_stream_carry < G > (smem, t - 1, c);
    keep[0] = src[G::H * PW + c + 1];
    keep[G::RW] = src[(G::H + 1) * PW + c + 1];
    if (!last) {
      const cell *carry = hs_stream_carry < G > (smem, t, c);
      hs_stream_put_carry < G, S > (th, dst + c + 1, carry[0]);
      hs_stream_put_carry < G, S > (th, dst + PW + c + 1, carry[G::RW]);
    }
  }
  if (!hs_stream_strip_computes < G > (b, y0, t))
    return;

  /* bit j: the last sweep stores cell j, a tile cell */
  const unsigned out_rows = last && th.col_out ?
      hs_row_mask (b.y_s - y0, b.y_e - y0) : 0u;

  if (y0 >= 1 && y0 + R <= b.height - 1) {
    /* window row w = plane row i0 + w = image row y0 + w - 1 of level
     * t - 1; its centre is own[w - 2] for w >= 2 */
    cell win[R + 2][3];
    auto load_row = [&](int w) {
      win[w][0] = src[(i0 + w) * PW + c];
      win[w][1] = w >= 2 ? th.own[w >= 2 ? w - 2 : 0] :
          src[(i0 + w) * PW + c + 1];
      win[w][2] = src[(i0 + w) * PW + c + 2];
    };

CF_UNROLL
    for (int w = 0; w < 3; w++)
      load_row (w);
CF_UNROLL
    for (int j = 0; j < R; j++) {
      const cell *pn = win[j], *q = win[j + 1], *n = win[j + 2];
      cell v = T::pack (hs_update (T::mean (pn[1], n[1], q[0], q[2], pn[0],
                  pn[2], n[0], n[2]), th.k[j + G::K - t]));

      if (j + 3 < R + 2)        /* the next row's window, before the store */
        load_row (j + 3);
      if (last) {
        if (out_rows & (1u << j))
          out.uv[(size_t) (y0 + j) * out.pitch + th.x] = v;
      } else if (th.col_in) {
        dst[(i0 + j + 2) * PW + c + 1] = v;
      }
      th.own[j] = v;
    }
    if (!last && (th.left || th.right)) {
CF_UNROLL
      for (int j = 0; j < R; j++)
        hs_put_ghosts < G::PW > (dst + (i0 + j + 2) * PW + c + 1, th.own[j],
            th.left, th.right, false, false);
    }
    return;
  }

  for (int j = 0; j < R; j++) {
    const int y = y0 + j;
    const bool in = th.col_in && y >= 0 && y < b.height;
    const cell *pn = src + (i0 + j) * PW + c, *q = pn + PW, *n = q + PW;
    hs_coef k;
    cell v;

    if (in) {
      k = hs_coef_at (g, th.x, y);
    } else {
      k.a = k.b = k.c = 0.0f;
    }
    v = T::pack (hs_update (T::mean (pn[1], n[1], q[0], q[2], pn[0], pn[2],
                n[0], n[2]), k));
    if (last) {
      if (out_rows & (1u << j))
        out.uv[(size_t) y * out.pitch + th.x] = v;
    } else if (in) {
      cell *at = dst + (i0 + j + 2) * PW + c + 1;
      *at = v;
      hs_put_ghosts < G::PW > (at, v, th.left, th.right, y == 0,
          y == b.height - 1);
    }
  }
  if (!last && th.col_in) {
CF_UNROLL
    for (int j = 0; j < R; j++)
      if (y0 + j >= 0 && y0 + j < b.height)
        th.own[j] = dst[(i0 + j + 2) * PW + c + 1];
  }
}

#endif /* CF_CUDA_HS_STREAM_CUH */
