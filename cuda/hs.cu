/* gst-cudaflow — Horn–Schunck optical flow on the GPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Twin of common/hs.c (Romera 2023, §4.3, eqs. 4.25–4.29): the same cell
 * grid, the same clamped (Neumann) neighbours, the same incremental
 * pyramid.
 *
 * Jacobi sweep (eq. 4.29), per cell, with ū the 1/6 + 1/12 neighbour mean
 * (eq. 4.27):
 *   du' = ū - Ix (Ix ū + Iy v̄ + It) / (alpha² + Ix² + Iy²), dv' likewise.
 * The GPU evaluates the same update in normalised form: with
 * s = 1 / sqrt(alpha² + Ix² + Iy²) (fp32, correctly rounded) and
 * a = Ix s, b = Iy s, c = It s,
 *   r = a ū + b v̄ + c,  du' = ū - a r,  dv' = v̄ - b r
 * — three coefficients per cell instead of four, four FMAs per update, and
 * a, b in [-1, 1], c = It / sqrt(den) bounded by 255 / alpha, whatever the
 * precision of the state. ū = (2 (N + S + W + E) + NW + NE + SW + SE) / 12
 * with the two sums in the CPU's order, one FMA and one multiply. Both
 * differ from the CPU's arithmetic by a few ulps per sweep (the tests
 * allow 1e-4 relative per sweep and 1e-3 px mean after a full run; a CPU
 * emulation of this arithmetic stays within 2e-6 px mean of cf_hs_flow).
 *
 * The coefficients a, b, c depend on the warp, not on the sweep: each warp
 * computes them once into three fp32 planes (hs_coefficients_kernel,
 * straight from the two frames; the derivatives themselves are never
 * stored) and every Jacobi kernel reads them. Computing them in each
 * launch instead would read as many bytes but put a correctly rounded
 * reciprocal square root per cell into the load phase of every launch,
 * which no sweep overlaps (6 % of `cuda-samples` at 1080p,
 * docs/flow-speed.md).
 *
 * Every per-cell operation is spelled with __fadd_rn / __fmul_rn /
 * __fmaf_rn / __frsqrt_rn, so nvcc cannot contract or reorder it
 * differently in different kernels: SIMPLE and FUSED use the same inline
 * functions and their results are bit-identical (tested; fp16 too).
 *
 * Kernels:
 *  - SIMPLE: one sweep per launch, one thread per cell, neighbours straight
 *    from global memory (L1), ping-pong buffers (cuda-samples JacobiIteration
 *    without its shared tile).
 *  - FUSED: HS_FUSED_DEPTH (K = 8) sweeps per launch, temporal blocking on
 *    a block-private shared-memory region (Romera 2023,
 *    "Shared_MltIteration"): a block loads an RW x RH region = its TW x TH output tile plus
 *    a halo of K cells, runs up to K sweeps on it in shared memory
 *    (recomputing the halo; the valid part shrinks by one ring per sweep
 *    from each cut edge) and stores the TW x TH centre. No block reads
 *    another block's updated cells, so the result equals K single sweeps
 *    bit for bit.
 *    A thread owns one region column and a strip of R = RH / BY rows; it
 *    walks the strip with a 3 x 3 register window ((R + 2) x 3 shared loads
 *    for R cells) and keeps its cells' coefficients in registers for the
 *    whole launch, loaded from the coefficient planes. The region is
 *    held once, with one cell of padding: each
 *    sweep computes into registers, barriers, writes back, barriers; the
 *    last sweep stores to global memory from registers. Image borders use
 *    ghost cells (copies of the edge cells, rewritten with them), so every
 *    neighbour is at a fixed offset and the inner loop has no clamping.
 *    Two geometries (see hs_fused_pick_small):
 *      big:   64 x 64 region, 48 x 48 tile, 64 x 8 threads, R = 8,
 *             34.8 KB (fp32) / 17.4 KB (fp16) static shared memory,
 *             <= 64 registers so that two blocks share an SM;
 *      small: 32 x 32 region, 16 x 16 tile, 32 x 8 threads, R = 4,
 *             9.2 KB / 4.6 KB, four blocks per SM;
 *    coarse levels use the small one: spreading a few thousand cells over
 *    more SMs shortens each sweep although the halo then costs 4x.
 *  - FUSED_DB: FUSED with the region held twice (double-buffered, dynamic
 *    shared memory): sweep n reads one plane and writes its results
 *    straight into the other, so a sweep needs one barrier instead of two
 *    and no thread holds R results in registers across it; the registers
 *    saved go to longer strips (more cells per SM hold their coefficients
 *    in registers). Same tiles, halo, ghosts and zeros as FUSED, so the
 *    same bits. Its geometries (cf_hs_geometry, HS_DB_GEOMETRIES) trade
 *    the useful fraction (TW TH / RW RH: 25 % at 32 x 32, 56 % at 64 x 64,
 *    66 % at 128 x 64, 73 % at 128 x 96 with K = 8) against blocks per SM
 *    (1 for the 1024-thread regions, whose load then cannot hide behind
 *    another block's sweeps) and the tail of the last wave; a depth of 16
 *    halves the launches; the own-centre ones ("-oc") keep a thread's
 *    cells in registers between sweeps (a third of the shared loads
 *    fewer). AUTO picks one per level with a first-order
 *    cost model (hs_db_cost) fed with the blocks per SM the device
 *    reports; a geometry the device cannot hold is never picked.
 *    On compute capability 9.0 and later its launches use programmatic
 *    dependent launch: a launch starts once every block of the previous
 *    one has loaded its region, zeroes its planes and loads its
 *    coefficients (which no Jacobi launch writes) while the previous one
 *    sweeps, then waits for it before it reads the increments; launch
 *    gaps and coefficient loads leave the critical path, which matters
 *    most on coarse levels, where a launch is mostly fixed cost. What a
 *    block waits for: in a plan's sequences, the nine tiles of the
 *    previous launch its region reads (tile flags, hs_db_wait_tiles),
 *    so that a block whose neighbours are done sweeps while the rest of
 *    the previous grid still runs; elsewhere, and for a sequence's first
 *    launch, the whole previous kernel (griddepcontrol.wait: complete,
 *    memory visible).
 *  - STREAM: K sweeps per launch on column strips that a block walks
 *    down in pieces, the levels skewed by a row each so that only a
 *    segment's first piece recomputes a halo above (cuda/hs-stream.cuh):
 *    73 % of the cells computed are a block's own at 1920 x 1080, against
 *    60 % for FUSED_DB's 64 x 80 regions. Its program is written once for
 *    the device and the host, and a CPU emulation checks it against
 *    SIMPLE bit for bit (cuda/hs-emu.cu, tests/check/cuda/hs-emu). Opt-in
 *    (CF_HS_KERNEL_STREAM) until measured against FUSED_DB on a GPU.
 *  - AUTO = FUSED_DB: faster than FUSED on every preset measured, fp32
 *    and fp16 (tests/gpu/hs-speed.sh; docs/flow-speed.md).
 *
 * Increments: one plane of cells, du and dv of a cell side by side
 * (float2 in fp32, half2 in fp16), in global and in shared memory, so a
 * cell is one load, store or copy; in fp32 that takes 2-5 % off a
 * cuda-samples frame against two planes (docs/flow-speed.md). The API's
 * cf_cuda_flow (two planes) is packed and unpacked around the sweeps.
 *
 * fp16 (CF_PRECISION_FP16): the increments live in half2, in global and
 * in shared memory. The
 * neighbour sums are half2 (HADD2, both components at once): t = 2 (N + S
 * + W + E) + (NW + NE + SW + SE); t is converted to fp32 and times 1/12 in
 * fp32 (1/6 and 1/12 are not exact in half: their 2.4e-4 error would shrink
 * the increment by that much every sweep, 11 % after 500 sweeps). The data
 * term (coefficients, the denominator alpha² + Ix² + Iy² up to ~6.5e4 +
 * alpha², r, the updates) is fp32, and the result is rounded to half2 once
 * per sweep. Range: intensities 0..255; |t| <= 12 max|du| must stay below
 * 65504, i.e. increments below ~5000 px — far beyond any per-level
 * increment. Precision: half keeps 11 significant bits, so increments of
 * a few pixels carry ~1e-3 px of rounding.
 *
 * Launch overhead: a run is levels x warps x (warp, coefficients,
 * iterations, add) with iterations / K fused launches each. The per-level
 * iteration sequence touches only plan-owned buffers, so the plan captures
 * it once into a CUDA graph (on a private capture stream, not the caller's,
 * which may be the legacy stream that cannot be captured) keyed by level
 * size, iteration count and alpha, and replays it with one cudaGraphLaunch
 * per warp on the caller's stream. Capture and instantiation happen on the
 * first run for a key (and again when alpha, the iterations or the sizes
 * change); later runs allocate nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/hs.h"
#include "cuda/cuda-internal.h"
#include "cuda/hs-stream.cuh"
#include "cuda/level-graph.h"
#include "cuda/warp.h"

#include <cuda_fp16.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sweeps per FUSED launch, and halo width of its regions, in cells. 8
 * cuts global traffic per sweep about 5-fold (fp32: 20 B read per region
 * cell, 8 B written per tile cell, per 8 sweeps: ~5.5 B per output cell
 * and sweep, against SIMPLE's 28) while a 64 x 64 region
 * still outputs 48 x 48 (56 % of the cells it computes) and a 32 x 32 one
 * 16 x 16; a count that is not a multiple costs one shorter launch. */
#define HS_FUSED_DEPTH CF_CUDA_HS_FUSED_DEPTH

/* FUSED geometries: region RW x RH cells, BY thread rows (blocks of
 * RW x BY threads), outputs (RW - 2K) x (RH - 2K). */
#define HS_BIG_RW 64
#define HS_BIG_RH 64
#define HS_BIG_BY 8
#define HS_BIG_MIN_BLOCKS 2       /* resident blocks per SM asked of ptxas */
#define HS_SMALL_RW 32
#define HS_SMALL_RH 32
#define HS_SMALL_BY 8
#define HS_SMALL_MIN_BLOCKS 4

/* 2-D launch shape of the per-cell kernels (SIMPLE sweep, derivatives,
 * add increment) */
#define HS_BLOCK_X 32
#define HS_BLOCK_Y 8

/* The increments' storage, hs_update and the neighbour means are in
 * cuda/hs-ops.cuh (shared with the STREAM kernel's CPU emulation). */

/** \brief Normalised data-term coefficients of one cell (fp32; the
 *  denominator alpha² + Ix² + Iy² is summed as in common/hs.c). */
static __device__ __forceinline__ hs_coef
hs_coefs (float ix, float iy, float it, float alpha2)
{
  float den = __fadd_rn (__fadd_rn (alpha2, __fmul_rn (ix, ix)),
      __fmul_rn (iy, iy));
  float s = __frsqrt_rn (den);
  hs_coef k;

  k.a = __fmul_rn (ix, s);
  k.b = __fmul_rn (iy, s);
  k.c = __fmul_rn (it, s);
  return k;
}

/* ---------------------------------------------------------------------
 * Derivatives (eq. 4.25)
 * --------------------------------------------------------------------- */

/** \brief Ix, Iy, It at cell (x + 1/2, y + 1/2): means of four differences
 *  over the 2x2x2 cube of I0 and I1w, the far row/column clamped (twin of
 *  cf_hs_derivatives, same order of operations).
 *  \param[in] i0, i1w   frame t-1 and warped frame t
 *  \param[out] ix, iy, it  the cell's derivatives */
static __device__ __forceinline__ void
hs_cell_derivatives (const float *__restrict__ i0, size_t p0,
    const float *__restrict__ i1w, size_t p1, int width, int height, int x,
    int y, float *ix, float *iy, float *it)
{
  const int x1 = min (x + 1, width - 1);
  const int y1 = min (y + 1, height - 1);
  float a0x, a0x1, b0x, b0x1, a1x, a1x1, b1x, b1x1, s;

  /* a = row y, b = row y+1; 0 = frame t-1, 1 = warped frame t */
  a0x = i0[x + (size_t) y * p0];
  a0x1 = i0[x1 + (size_t) y * p0];
  b0x = i0[x + (size_t) y1 * p0];
  b0x1 = i0[x1 + (size_t) y1 * p0];
  a1x = i1w[x + (size_t) y * p1];
  a1x1 = i1w[x1 + (size_t) y * p1];
  b1x = i1w[x + (size_t) y1 * p1];
  b1x1 = i1w[x1 + (size_t) y1 * p1];

  s = __fadd_rn (__fadd_rn (__fadd_rn (__fsub_rn (a0x1, a0x),
              __fsub_rn (b0x1, b0x)), __fsub_rn (a1x1, a1x)),
      __fsub_rn (b1x1, b1x));
  *ix = __fmul_rn (0.25f, s);
  s = __fadd_rn (__fadd_rn (__fadd_rn (__fsub_rn (b0x, a0x),
              __fsub_rn (b0x1, a0x1)), __fsub_rn (b1x, a1x)),
      __fsub_rn (b1x1, a1x1));
  *iy = __fmul_rn (0.25f, s);
  s = __fadd_rn (__fadd_rn (__fadd_rn (__fsub_rn (a1x, a0x),
              __fsub_rn (b1x, b0x)), __fsub_rn (a1x1, a0x1)),
      __fsub_rn (b1x1, b0x1));
  *it = __fmul_rn (0.25f, s);
}

/** \brief The derivative planes (hs_cell_derivatives per cell). */
__global__ static void
hs_derivatives_kernel (const float *__restrict__ i0, size_t p0,
    const float *__restrict__ i1w, size_t p1, int width, int height,
    float *__restrict__ ix, size_t px, float *__restrict__ iy, size_t py,
    float *__restrict__ it, size_t pt)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float dx, dy, dt;

  if (x >= width || y >= height)
    return;
  hs_cell_derivatives (i0, p0, i1w, p1, width, height, x, y, &dx, &dy, &dt);
  ix[x + (size_t) y * px] = dx;
  iy[x + (size_t) y * py] = dy;
  it[x + (size_t) y * pt] = dt;
}

/** \brief The coefficient planes straight from the frames: hs_coefs of
 *  hs_cell_derivatives, the derivatives never stored (the plan's step).
 *  \param[out] a, b, c  coefficient planes */
__global__ static void
hs_coefficients_kernel (const float *__restrict__ i0, size_t p0,
    const float *__restrict__ i1w, size_t p1, int width, int height,
    float alpha2, float *__restrict__ a, size_t pa, float *__restrict__ b,
    size_t pb, float *__restrict__ c, size_t pc)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float dx, dy, dt;
  hs_coef k;

  if (x >= width || y >= height)
    return;
  hs_cell_derivatives (i0, p0, i1w, p1, width, height, x, y, &dx, &dy, &dt);
  k = hs_coefs (dx, dy, dt, alpha2);
  a[x + (size_t) y * pa] = k.a;
  b[x + (size_t) y * pb] = k.b;
  c[x + (size_t) y * pc] = k.c;
}

/** \brief The coefficient planes from given derivative planes (the
 *  single-step API, whose callers pass Ix, Iy, It). */
__global__ static void
hs_coefs_from_derivatives_kernel (const float *__restrict__ ix, size_t px,
    const float *__restrict__ iy, size_t py, const float *__restrict__ it,
    size_t pt, int width, int height, float alpha2, float *__restrict__ a,
    size_t pa, float *__restrict__ b, size_t pb, float *__restrict__ c,
    size_t pc)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  hs_coef k;

  if (x >= width || y >= height)
    return;
  k = hs_coefs (ix[x + (size_t) y * px], iy[x + (size_t) y * py],
      it[x + (size_t) y * pt], alpha2);
  a[x + (size_t) y * pa] = k.a;
  b[x + (size_t) y * pb] = k.b;
  c[x + (size_t) y * pc] = k.c;
}

/* ---------------------------------------------------------------------
 * Jacobi, SIMPLE: one sweep per launch
 * --------------------------------------------------------------------- */

/** \brief One Jacobi sweep (eq. 4.29), one cell per thread
 *  (hs_simple_cell), clamped neighbours read from global memory; never
 *  in place.
 *  \param g        Ix, Iy, It of the level
 *  \param alpha2   alpha²
 *  \param zero_in  1: the input increments are all 0 (first sweep of a
 *                  warp; @in is not read)
 *  \param in       increments of sweep n
 *  \param out      increments of sweep n + 1 (another buffer) */
template < typename S > __global__ static void
hs_jacobi_simple_kernel (hs_coef_planes g, int width, int height,
    int zero_in, S in, S out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= width || y >= height)
    return;
  hs_traits < S >::store (out, x + (size_t) y * out.pitch,
      hs_simple_cell (g, width, height, zero_in != 0, in, x, y));
}

/* ---------------------------------------------------------------------
 * Jacobi, FUSED: up to K sweeps per launch on private tiles
 * --------------------------------------------------------------------- */

/** \brief Write region cell (r, c) of a padded plane of rows of PW cells
 *  (region cell (r, c) at p[(r + 1) PW + c + 1]) and the ghosts that copy
 *  it (hs_put_ghosts). */
template < int PW, typename C > static __device__ __forceinline__ void
hs_put_cell (C * p, int r, int c, C v, bool left, bool right, bool top,
    bool bottom)
{
  C *cell = p + (r + 1) * PW + c + 1;

  cell[0] = v;
  hs_put_ghosts < PW > (cell, v, left, right, top, bottom);
}

/* The region in shared memory, one cell of padding around it: region cell
 * (r, c) lives at cells[r + 1][c + 1]. Where the image ends inside the
 * region (or right next to it), the padding/out-of-image cell beyond the
 * edge is a ghost holding a copy of the edge cell, rewritten whenever the
 * edge cell is: reading the ghost is reading the clamped neighbour
 * (Neumann, common/hs.c clampi), so every neighbour is at a fixed offset.
 * Where the region is cut inside the image, the padding holds zeros,
 * wrong neighbours that only reach halo cells (one ring per sweep). */
template < int RW, int RH, typename C > struct hs_region
{
  C cells[RH + 2][RW + 2];

  /** \brief Write cell (r, c) and the ghosts that copy it (hs_put_cell). */
  __device__ __forceinline__ void put (int r, int c, C v, bool left,
      bool right, bool top, bool bottom)
  {
    hs_put_cell < RW + 2 > (&cells[0][0], r, c, v, left, right, top, bottom);
  }
};

/** \brief @sweeps (1..K) Jacobi sweeps on a block-private region: output
 *  tile TW x TH at blockIdx * (TW, TH), region = tile + K halo cells on
 *  each side, RW x RH. Thread (c, ty) owns region column c, rows
 *  ty R .. ty R + R - 1. Region cells outside the image start at 0 and
 *  are computed as garbage that no image cell reads (image cells read
 *  image cells and ghosts only); cut edges spoil one more halo ring
 *  per sweep, never the tile (sweeps <= K). Every thread passes every
 *  barrier: the loops have block-uniform trip counts.
 *  \param g, alpha2, zero_in, in, out  as hs_jacobi_simple_kernel
 *  \param sweeps  1 .. HS_FUSED_DEPTH */
template < int RW, int RH, int BY, int MIN_BLOCKS, typename S >
__global__ static void __launch_bounds__ (RW * BY, MIN_BLOCKS)
hs_jacobi_fused_kernel (hs_coef_planes g, int width, int height,
    int sweeps, int zero_in, S in, S out)
{
  typedef hs_traits < S > T;
  typedef typename T::cell cell;
  const int K = HS_FUSED_DEPTH;
  const int TW = RW - 2 * K, TH = RH - 2 * K;
  const int R = RH / BY;        /* rows per thread */
  static_assert (RH % BY == 0, "thread rows must divide the region");
  static_assert (RW - 2 * K > K && RH - 2 * K > K,
      "the tile must be wider than the halo");
  __shared__ hs_region < RW, RH, cell > region;

  const int c = threadIdx.x;
  const int r0 = threadIdx.y * R;
  /* region origin in the image; negative at the top/left */
  const int gx0 = (int) blockIdx.x * TW - K;
  const int gy0 = (int) blockIdx.y * TH - K;
  const int x = gx0 + c;
  const bool col_in = x >= 0 && x < width;
  const bool left = x == 0, right = x == width - 1;
  /* this strip's rows j with image row 0 and height - 1 (may be outside
   * 0 .. R-1) */
  const int j_top = -gy0 - r0, j_bottom = height - 1 - gy0 - r0;
  unsigned in_image = 0;        /* bit j: cell (r0 + j, c) is an image cell */
  bool plain;                   /* all R cells in the image, no ghosts */
  hs_coef k[R];
  cell next[R];

  /* zero the whole region first, padding and out-of-image cells
   * included: what no image cell depends on is then still defined (finite
   * garbage, and clean under compute-sanitizer initcheck) */
  for (int i = threadIdx.x + threadIdx.y * RW; i < (RH + 2) * (RW + 2);
      i += RW * BY)
    (&region.cells[0][0])[i] = T::zero ();
  __syncthreads ();

  /* load: coefficients into registers, increments into the region */
#pragma unroll
  for (int j = 0; j < R; j++) {
    int y = gy0 + r0 + j;
    k[j].a = k[j].b = k[j].c = 0.0f;
    if (col_in && y >= 0 && y < height) {
      in_image |= 1u << j;
      k[j] = hs_coef_at (g, x, y);
      region.put (r0 + j, c, zero_in ? T::zero () :
          T::load (in, x + (size_t) y * in.pitch), left, right, j == j_top,
          j == j_bottom);
    }
  }
  plain = in_image == (1u << R) - 1u && !left && !right &&
      (unsigned) j_top >= (unsigned) R && (unsigned) j_bottom >= (unsigned) R;
  __syncthreads ();

  for (int sweep = 0; sweep < sweeps; sweep++) {
    /* 3 x 3 window walking down the strip, at fixed offsets from this
     * thread's top-left neighbour: p = row above, q = this row, n = row
     * below; w, c, e = columns c - 1, c, c + 1 */
    const cell *top = &region.cells[r0][c];
    cell pw = top[0], pc = top[1], pe = top[2];
    cell qw = top[RW + 2], qc = top[RW + 3], qe = top[RW + 4];

#pragma unroll
    for (int j = 0; j < R; j++) {
      const cell *below = top + (j + 2) * (RW + 2);
      cell nw = below[0], nc = below[1], ne = below[2];
      /* N = pc, S = nc, W = qw, E = qe, NW = pw, NE = pe, SW = nw, SE = ne */
      next[j] = T::pack (hs_update (T::mean (pc, nc, qw, qe, pw, pe, nw, ne),
              k[j]));
      pw = qw;
      pc = qc;
      pe = qe;
      qw = nw;
      qc = nc;
      qe = ne;
    }

    if (sweep + 1 < sweeps) {
      /* everyone has read sweep n: overwrite the region with sweep n + 1 */
      __syncthreads ();
      if (plain) {
#pragma unroll
        for (int j = 0; j < R; j++)
          region.cells[r0 + j + 1][c + 1] = next[j];
      } else {
#pragma unroll
        for (int j = 0; j < R; j++)
          if (in_image & (1u << j))
            region.put (r0 + j, c, next[j], left, right, j == j_top,
                j == j_bottom);
      }
      __syncthreads ();
    }
  }

  /* the TW x TH centre, straight from the registers of the last sweep */
  if (c >= K && c < K + TW) {
#pragma unroll
    for (int j = 0; j < R; j++) {
      int r = r0 + j;
      if ((in_image & (1u << j)) && r >= K && r < K + TH)
        T::store (out, x + (size_t) (gy0 + r) * out.pitch, next[j]);
    }
  }
}

/* ---------------------------------------------------------------------
 * Jacobi, FUSED_DB: up to K sweeps per launch on double-buffered regions
 * --------------------------------------------------------------------- */

/* Programmatic dependent launch (cf_pdl_*, cuda-internal.h): a block
 * lets the next launch of the stream start once it has loaded its region
 * (when every block of this one has), and that launch's blocks zero their
 * planes and load their coefficients (which no Jacobi launch writes)
 * before they wait for this launch to complete, its memory visible, and
 * only then read the increments it wrote. The wait (griddepcontrol.wait)
 * makes that launch's writes visible to every later access of the grid,
 * so the copies that read them may go through L1 (cp.async.ca).
 * Triggering at the start instead let up to four launches of the small
 * levels' regions share the SMs, loading while the first swept: 26 %
 * slower at 240 x 135, 3.5 % on cuda-samples at 1080p
 * (docs/flow-speed.md). */

/* A FUSED_DB geometry: RW x RH region, BY thread rows (blocks of RW x BY
 * threads, R = RH / BY rows each), K sweeps per launch (halo width),
 * MIN_BLOCKS resident blocks per SM asked of ptxas (which caps the
 * registers per thread), EARLY_LOADS: a sweep's shared loads go ahead
 * of its stores where they may (hs_db_sweep), OWN_CENTRE: a thread keeps
 * its strip's R cells in registers from one sweep to the next and reads
 * its window's centre column from there instead of shared memory (two
 * registers a cell in fp32; needs EARLY_LOADS' window). Outputs the TW x TH
 * centre. The two planes of the region (padded by one cell, PLANE cells
 * each) are dynamic shared memory: 2 PLANE cells, above the 48 KB a
 * static array may take. */
template < int RW_, int RH_, int BY_, int K_, int MIN_BLOCKS_,
    bool EARLY_LOADS_, bool OWN_CENTRE_ > struct hs_geom
{
  static const int RW = RW_, RH = RH_, BY = BY_, K = K_;
  static const int MIN_BLOCKS = MIN_BLOCKS_;
  static const bool EARLY_LOADS = EARLY_LOADS_;
  static const bool OWN_CENTRE = OWN_CENTRE_;
  static const int TW = RW - 2 * K, TH = RH - 2 * K, R = RH / BY;
  static const int PW = RW + 2, PLANE = (RH + 2) * (RW + 2);
  static const int RING = 2 * (RW + 2) + 2 * RH;        /* padding cells */
  static_assert (RW % 32 == 0, "whole warps per region row");
  static_assert (RH % BY == 0, "thread rows must divide the region");
  static_assert (R <= 32, "the in-image mask has 32 bits");
  static_assert (TW > K && TH > K, "the tile must be wider than the halo");
  static_assert (!OWN_CENTRE || EARLY_LOADS, "own centre needs the window");
};

/** \brief One sweep of a FUSED_DB thread over its strip: reads plane @src,
 *  writes the R results into plane @dst (then, for a strip with ghosts,
 *  their ghosts) or, for the last sweep (TO_GLOBAL), the cells of
 *  @out_rows into @out at element offset @out_at of the strip's first
 *  cell. The 3 x 3 window walks down the strip as in
 *  hs_jacobi_fused_kernel; the per-cell arithmetic is the same inline
 *  functions (T::mean, hs_update, T::pack). ROWS_IN: every row of the
 *  strip is an image row, so a cell's store depends on its column alone,
 *  a predicate the whole sweep keeps (no test a cell). With
 *  G::OWN_CENTRE, @own holds the strip's cells as the previous sweep left
 *  them (the caller loads them before the first): the window's centre
 *  column comes from there for the strip's rows in the image (the others
 *  hold ghosts and zeros, not this thread's results), and the sweep
 *  leaves its results there. With ROWS_IN it comes from there for every
 *  row without a test (centre_untested): a strip whose column is outside
 *  the image computes values that nothing reads (its stores are off, it
 *  writes no ghosts), which saves a predicated load and a move a cell.
 *  Not where the strip's own cells and coefficients take more than three
 *  quarters of a thread's registers (64 x 80 in fp32: 100 of 128): there
 *  ptxas spills the coefficients without the test and the sweeps take
 *  1.2x as long (docs/flow-speed.md, *The centre without a test*).
 *
 *  Order of the shared-memory accesses: the compiler keeps a thread's
 *  shared loads and stores in program order (it cannot tell that the two
 *  planes differ). With G::EARLY_LOADS the next row's window is loaded
 *  before this row's store, so that a row need not wait for the previous
 *  row's loads, arithmetic and store in turn, and the ghosts' cells are
 *  all read before any ghost is written. Without it (the 1024-thread
 *  regions, 64 registers a thread, where the window's extra registers
 *  cost more than the overlap gains) each row's loads follow the
 *  previous row's store, as before the change (docs/flow-speed.md, *Loads
 *  ahead of stores*). */
template < class G, typename S, bool TO_GLOBAL, bool ROWS_IN >
static __device__ __forceinline__ void
hs_db_sweep (const typename hs_traits < S >::cell * src,
    typename hs_traits < S >::cell * dst, const hs_coef * k, int r0, int c,
    unsigned in_image, bool ghosts, bool left, bool right, int j_top,
    int j_bottom, const S & out, unsigned out_rows, int out_at,
    typename hs_traits < S >::cell (&own)[G::R])
{
  typedef hs_traits < S > T;
  typedef typename T::cell cell;
  const int PW = G::PW;
  const cell *top = src + r0 * PW + c;
  /* a thread's registers, and those its own cells and coefficients take */
  constexpr int regs = 65536 / (G::RW * G::BY * G::MIN_BLOCKS) < 255 ?
      65536 / (G::RW * G::BY * G::MIN_BLOCKS) : 255;
  constexpr int strip_regs = ((int) sizeof (cell) / 4 + 3) * G::R;
  constexpr bool centre_untested = G::OWN_CENTRE && ROWS_IN &&
      4 * strip_regs <= 3 * regs;

  if constexpr (G::EARLY_LOADS) {
    /* the window's rows: win[i] = plane row r0 + i (region row r0 + i - 1),
     * i = 0 .. R + 1; every index is a constant once the loops are
     * unrolled, so each row lives in registers from its load to the last
     * cell that reads it */
    cell win[G::R + 2][3];
    auto load_row = [&](int i) {
      win[i][0] = top[i * PW];
      if (G::OWN_CENTRE && i >= 1 && i <= G::R &&
          (ROWS_IN ? centre_untested || in_image != 0u :
              (in_image & (1u << (i - 1))) != 0u))
        win[i][1] = own[i - 1];
      else
        win[i][1] = top[i * PW + 1];
      win[i][2] = top[i * PW + 2];
    };

#pragma unroll
    for (int i = 0; i < 3; i++)
      load_row (i);
#pragma unroll
    for (int j = 0; j < G::R; j++) {
      const cell *p = win[j], *q = win[j + 1], *n = win[j + 2];
      /* N = p[1], S = n[1], W = q[0], E = q[2], NW = p[0], NE = p[2],
       * SW = n[0], SE = n[2] */
      cell v = T::pack (hs_update (T::mean (p[1], n[1], q[0], q[2], p[0],
                  p[2], n[0], n[2]), k[j]));

      if (j + 3 < G::R + 2)     /* the next row's window, before the store */
        load_row (j + 3);
      if (TO_GLOBAL) {
        if (out_rows & (1u << j))
          T::store (out, out_at + j * (int) out.pitch, v);
      } else if (ROWS_IN ? in_image != 0u : (in_image & (1u << j)) != 0u) {
        dst[(r0 + j + 1) * PW + c + 1] = v;     /* predicated, no branch */
      }
      if (G::OWN_CENTRE)
        own[j] = v;
    }
  } else {
    cell pw = top[0], pc = top[1], pe = top[2];
    cell qw = top[PW], qc = top[PW + 1], qe = top[PW + 2];

#pragma unroll
    for (int j = 0; j < G::R; j++) {
      const cell *below = top + (j + 2) * PW;
      cell nw = below[0], nc = below[1], ne = below[2];
      /* N = pc, S = nc, W = qw, E = qe, NW = pw, NE = pe, SW = nw, SE = ne */
      cell v = T::pack (hs_update (T::mean (pc, nc, qw, qe, pw, pe, nw, ne),
              k[j]));
      int r = r0 + j;

      if (TO_GLOBAL) {
        if (out_rows & (1u << j))
          T::store (out, out_at + j * (int) out.pitch, v);
      } else if (ROWS_IN ? in_image != 0u : (in_image & (1u << j)) != 0u) {
        dst[(r + 1) * PW + c + 1] = v;  /* a predicated store, no branch */
      }
      pw = qw;
      pc = qc;
      pe = qe;
      qw = nw;
      qc = nc;
      qe = ne;
    }
  }
  /* the ghosts of the edge cells, from the cells just written (by this
   * thread; other threads read them after the barrier): a branch a sweep
   * instead of one a cell */
  if (!TO_GLOBAL && ghosts) {
    if constexpr (G::EARLY_LOADS) {
      cell edge[G::R];

#pragma unroll
      for (int j = 0; j < G::R; j++)
        edge[j] = G::OWN_CENTRE ? own[j] : dst[(r0 + j + 1) * PW + c + 1];
#pragma unroll
      for (int j = 0; j < G::R; j++)
        if (in_image & (1u << j))
          hs_put_ghosts < PW > (dst + (r0 + j + 1) * PW + c + 1, edge[j],
              left, right, j == j_top, j == j_bottom);
    } else {
#pragma unroll
      for (int j = 0; j < G::R; j++) {
        cell *at = dst + (r0 + j + 1) * PW + c + 1;
        if (in_image & (1u << j))
          hs_put_ghosts < PW > (at, at[0], left, right, j == j_top,
              j == j_bottom);
      }
    }
  }
}

/* Tile flags (a plan's sequences; file comment): done[tile] = n + 1 once
 * launch n of the sequence has stored its tile, tiles numbered as the
 * blocks of the grid. A block of launch n > 0 reads, in its load phase,
 * the cells of its own tile and of the eight around it that launch n - 1
 * wrote (its halo, K cells, is narrower than a tile: hs_geom's
 * static_assert), and stores its tile into the plane launch n - 1 read,
 * whose readers of that tile are the same nine blocks of launch n - 1:
 * waiting until those nine have stored their tiles orders both. */

/** \brief Threads 0..8 of the block each wait for one of the nine tiles
 *  around the block's own (those in the grid) to reach @need; the caller
 *  barriers after. */
static __device__ __forceinline__ void
hs_db_wait_tiles (const unsigned *done, unsigned need)
{
  int t = threadIdx.x + threadIdx.y * blockDim.x;

  if (t < 9) {
    int nx = (int) blockIdx.x + t % 3 - 1, ny = (int) blockIdx.y + t / 3 - 1;
    if (nx >= 0 && nx < (int) gridDim.x && ny >= 0 && ny < (int) gridDim.y) {
      const unsigned *f = done + ny * gridDim.x + nx;
      while (cf_ld_acquire_gpu (f) < need)
        __nanosleep (32);
    }
  }
}

/** \brief Publish the block's tile as stored: done[tile] = @value, after
 *  every thread's stores (all threads call it). */
static __device__ __forceinline__ void
hs_db_mark_tile (unsigned *done, unsigned value)
{
  __syncthreads ();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    cf_st_release_gpu (done + blockIdx.y * gridDim.x + blockIdx.x, value);
}

/** \brief @sweeps (1..K) Jacobi sweeps on a block-private region, as
 *  hs_jacobi_fused_kernel (same tiles, halo, ghosts, zeros and garbage),
 *  with the region held twice: sweep n reads one plane and writes its
 *  results straight into the other, so one barrier per sweep separates
 *  "all of sweep n written" from "sweep n + 1 reads" (and, the planes
 *  alternating, "all of sweep n read" from "sweep n + 1 overwrites"), and
 *  no thread keeps its results in registers across it. The last sweep
 *  stores the tile from registers. Every thread passes every barrier.
 *  \param g, alpha2, zero_in, in, out  as hs_jacobi_simple_kernel
 *  \param sweeps  1 .. G::K
 *  \param done    tile flags (hs_db_wait_tiles), or NULL: wait for the
 *                 whole previous kernel
 *  \param launch  this launch's index in its sequence (with @done) */
template < class G, typename S >
__global__ static void __launch_bounds__ (G::RW * G::BY, G::MIN_BLOCKS)
hs_jacobi_db_kernel (hs_coef_planes g, int width, int height,
    int sweeps, int zero_in, S in, S out, unsigned *done, int launch)
{
  typedef hs_traits < S > T;
  typedef typename T::cell cell;
  const int RW = G::RW, K = G::K, R = G::R, PW = G::PW;
  extern __shared__ __align__ (16) unsigned char hs_db_smem[];
  cell *const planes = reinterpret_cast < cell * >(hs_db_smem);

  const int c = threadIdx.x;
  const int r0 = threadIdx.y * R;
  /* region origin in the image; negative at the top/left */
  const int gx0 = (int) blockIdx.x * G::TW - K;
  const int gy0 = (int) blockIdx.y * G::TH - K;
  const int x = gx0 + c;
  const int y0 = gy0 + r0;      /* image row of the strip's first cell */
  const bool col_in = x >= 0 && x < width;
  const bool left = x == 0, right = x == width - 1;
  /* this strip's rows j with image row 0 and height - 1 */
  const int j_top = -y0, j_bottom = height - 1 - y0;
  /* bit j (j < R): cell (r0 + j, c) is an image cell */
  const unsigned all_rows = hs_row_mask (0, R);
  const unsigned in_image = col_in ?
      hs_row_mask (j_top, j_bottom + 1) & all_rows : 0u;
  /* all R rows of the strip are image rows (the cells may still be
   * outside the image's columns) */
  const bool rows_in = j_top <= 0 && j_bottom >= R - 1;
  /* bit j: the last sweep stores cell (r0 + j, c), a tile cell */
  const unsigned out_rows = c >= K && c < K + G::TW ?
      in_image & hs_row_mask (K - r0, K + G::TH - r0) : 0u;
  /* element offsets of cell (r0, c) in the planes (hs_db_offsets_fit) */
  const int in_at = y0 * (int) in.pitch + x;
  const int out_at = y0 * (int) out.pitch + x;
  const int a_at = y0 * (int) g.pa + x, b_at = y0 * (int) g.pb + x;
  const int c_at = y0 * (int) g.pc + x;
  /* all R cells in the image, no ghosts */
  const bool plain = in_image == all_rows && !left && !right &&
      (unsigned) j_top >= (unsigned) R && (unsigned) j_bottom >= (unsigned) R;
  /* a strip that writes ghosts (hs_db_sweep): not plain, and with cells in
   * the image. One with none has none to ghost; were it to read its strip
   * back, it would meet the ghosts its neighbours write there in the same
   * pass (a race to compute-sanitizer's racecheck, though the values read
   * went unused) */
  const bool ghosts = !plain && in_image != 0u;
  hs_coef k[R];

  /* zeros where nothing is ever written, in both planes: the padding ring
   * here, the region cells outside the image below (ghosts among them are
   * written over after the barrier); image cells are written before they
   * are read (plane 0 by the load, plane 1 by the first sweep) */
  for (int i = threadIdx.x + threadIdx.y * RW; i < 2 * G::RING;
      i += RW * G::BY) {
    int q = i % G::RING, at;
    if (q < PW)
      at = q;                   /* top padding row */
    else if (q < 2 * PW)
      at = (G::RH + 1) * PW + q - PW;   /* bottom padding row */
    else                        /* left, right padding of rows 1 .. RH */
      at = ((q - 2 * PW) / 2 + 1) * PW + ((q & 1) ? PW - 1 : 0);
    planes[(i / G::RING) * G::PLANE + at] = T::zero ();
  }

  /* row j's coefficients, and its copy of the previous launch's
   * increment into plane 0 (T::copy_async: wait before reading it) */
  auto load_coefs = [&](int j) {
    k[j].a = __ldg (g.a + a_at + j * (int) g.pa);
    k[j].b = __ldg (g.b + b_at + j * (int) g.pb);
    k[j].c = __ldg (g.c + c_at + j * (int) g.pc);
  };
  auto copy_cell = [&](int j) {
    T::copy_async (planes + (r0 + j + 1) * PW + c + 1, in,
        in_at + j * (int) in.pitch);
  };

  /* coefficients into registers (no launch of the sequence writes them);
   * a strip wholly in the image, the common case, without a test a row */
  if (in_image == all_rows) {
#pragma unroll
    for (int j = 0; j < R; j++)
      load_coefs (j);
  } else {
#pragma unroll
    for (int j = 0; j < R; j++) {
      k[j].a = k[j].b = k[j].c = 0.0f;
      if (in_image & (1u << j)) {
        load_coefs (j);
      } else {
        planes[(r0 + j + 1) * PW + c + 1] = T::zero ();
        planes[G::PLANE + (r0 + j + 1) * PW + c + 1] = T::zero ();
      }
    }
  }

  /* the previous launch's increments: after it completed, and after every
   * thread's zeros. They go straight into plane 0, all R cells' copies in
   * flight at once (T::copy_async); then the threads at the image's edges
   * copy their cells into the ghosts. */
  if (done != NULL && !zero_in)
    hs_db_wait_tiles (done, (unsigned) launch);
  else
    cf_pdl_wait ();
  __syncthreads ();
  if (!zero_in) {
    if (in_image == all_rows) {
#pragma unroll
      for (int j = 0; j < R; j++)
        copy_cell (j);
    } else {
#pragma unroll
      for (int j = 0; j < R; j++)
        if (in_image & (1u << j))
          copy_cell (j);
    }
    cf_copy_async_wait ();
  }
  if (zero_in || !plain) {
#pragma unroll
    for (int j = 0; j < R; j++)
      if (in_image & (1u << j))
        hs_put_cell < PW > (planes, r0 + j, c, zero_in ? T::zero () :
            planes[(r0 + j + 1) * PW + c + 1], left, right, j == j_top,
            j == j_bottom);
  }
  __syncthreads ();
  cf_pdl_launch_dependents ();  /* this block's loads are done */
  cell own[R];
  if constexpr (G::OWN_CENTRE) {
#pragma unroll
    for (int j = 0; j < R; j++)
      own[j] = planes[(r0 + j + 1) * PW + c + 1];
  }

  for (int sweep = 0; sweep + 1 < sweeps; sweep++) {
    const cell *src = planes + (sweep & 1) * G::PLANE;
    cell *dst = planes + ((sweep + 1) & 1) * G::PLANE;
    /* rows_in is the same for a whole warp (one strip row of threads) */
    if (rows_in)
      hs_db_sweep < G, S, false, true > (src, dst, k, r0, c, in_image,
          ghosts, left, right, j_top, j_bottom, out, out_rows, out_at, own);
    else
      hs_db_sweep < G, S, false, false > (src, dst, k, r0, c, in_image,
          ghosts, left, right, j_top, j_bottom, out, out_rows, out_at, own);
    __syncthreads ();
  }
  hs_db_sweep < G, S, true, false > (planes + ((sweeps - 1) & 1) *
      G::PLANE, NULL, k, r0, c, in_image, ghosts, left, right, j_top,
      j_bottom, out, out_rows, out_at, own);
  if (done != NULL)
    hs_db_mark_tile (done, (unsigned) launch + 1u);
}

/* ---------------------------------------------------------------------
 * Jacobi, STREAM: K sweeps per launch on column strips walked down in
 * skewed pieces (cuda/hs-stream.cuh)
 * --------------------------------------------------------------------- */

/** \brief K Jacobi sweeps, as K SIMPLE launches (same bits), on a strip of
 *  the level (blockIdx.x) and a segment of @seg_rows of its rows
 *  (blockIdx.y): the phases of cuda/hs-stream.cuh between barriers. Every
 *  thread passes every barrier (block-uniform trip counts).
 *  \param g, zero_in, in, out  as hs_jacobi_simple_kernel */
template < class G, typename S >
__global__ static void __launch_bounds__ (G::RW * G::BY, G::MIN_BLOCKS)
hs_jacobi_stream_kernel (hs_coef_planes g, int width, int height,
    int seg_rows, int zero_in, S in, S out)
{
  typedef typename hs_traits < S >::cell cell;
  extern __shared__ __align__ (16) unsigned char hs_stream_smem[];
  cell *const smem = reinterpret_cast < cell * >(hs_stream_smem);
  const hs_stream_block b = hs_stream_block_at (width, height, seg_rows,
      G::TW, G::H, G::K, (int) blockIdx.x, (int) blockIdx.y);
  hs_stream_thread < G, S > th;

  hs_stream_init (th, b, (int) threadIdx.x, (int) threadIdx.y);
  hs_stream_zero (th, smem, (int) (threadIdx.x + threadIdx.y * G::RW),
      G::RW * G::BY);
  hs_stream_coefs (th, b, g, 0);        /* no launch writes them */
  cf_pdl_wait ();
  __syncthreads ();
  hs_stream_issue_input (th, b, smem, in, zero_in, 0);
  hs_stream_finish_input (th, b, smem, 0);
  __syncthreads ();
  cf_pdl_launch_dependents ();
  for (int p = 0; p < b.pieces; p++) {
#pragma unroll
    for (int t = 1; t < G::K; t++) {
      hs_stream_sweep (th, b, smem, g, out, p, t);
      __syncthreads ();
    }
    /* plane 0's last reader was sweep K - 1; the last sweep reads plane
     * 1, so the next piece's input goes in flight before it */
    if (p + 1 < b.pieces)
      hs_stream_issue_input (th, b, smem, in, zero_in, p + 1);
    hs_stream_sweep (th, b, smem, g, out, p, G::K);
    if (p + 1 < b.pieces) {
      hs_stream_coefs (th, b, g, p + 1);
      hs_stream_finish_input (th, b, smem, p + 1);
      __syncthreads ();
    }
  }
}

/* ---------------------------------------------------------------------
 * Add increment
 * --------------------------------------------------------------------- */

/** \brief u(x) += mean of the four cells around pixel x (cells x-1..x,
 *  y-1..y, clamped): the cell-grid increment back on the pixel grid (twin
 *  of cf_hs_add_increment, same order of operations).
 *  \param d     increments (cell grid)
 *  \param[in,out] u, v  pixel-grid flow */
template < typename S > __global__ static void
hs_add_increment_kernel (S d, int width, int height, float *u, float *v,
    size_t pitch)
{
  typedef hs_traits < S > T;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t r0, r1, i;
  int xm;
  float2 a, b, c, e;

  if (x >= width || y >= height)
    return;
  r0 = (size_t) max (y - 1, 0) * d.pitch;
  r1 = (size_t) y * d.pitch;
  xm = max (x - 1, 0);
  a = T::unpack (T::load (d, r0 + xm));
  b = T::unpack (T::load (d, r0 + x));
  c = T::unpack (T::load (d, r1 + xm));
  e = T::unpack (T::load (d, r1 + x));
  i = x + (size_t) y * pitch;
  u[i] = __fadd_rn (u[i], __fmul_rn (0.25f,
          __fadd_rn (__fadd_rn (__fadd_rn (a.x, b.x), c.x), e.x)));
  v[i] = __fadd_rn (v[i], __fmul_rn (0.25f,
          __fadd_rn (__fadd_rn (__fadd_rn (a.y, b.y), c.y), e.y)));
}

/* ---------------------------------------------------------------------
 * Launchers
 * --------------------------------------------------------------------- */

static dim3
cell_grid (int width, int height)
{
  return dim3 (cf_div_up (width, HS_BLOCK_X), cf_div_up (height, HS_BLOCK_Y));
}

/* 1 when the 32 x 32 geometry should run a width x height level: when the
 * cells per SM of the busiest SM (ceil(blocks / SMs) regions) are fewer
 * than with 64 x 64 regions. A first-order model (per-sweep time of one
 * SM ~ cells it holds); ties go to the big regions, which waste less on
 * halos. For 1920x1080 on 132 SMs: 1080p, 540p, 270p big; 135p, 68p small. */
static int
hs_fused_pick_small (int width, int height, int n_sm)
{
  const int K = HS_FUSED_DEPTH;
  long big = (long) cf_div_up (width, HS_BIG_RW - 2 * K) *
      cf_div_up (height, HS_BIG_RH - 2 * K);
  long small = (long) cf_div_up (width, HS_SMALL_RW - 2 * K) *
      cf_div_up (height, HS_SMALL_RH - 2 * K);
  long big_load, small_load;

  if (n_sm < 1)
    n_sm = 1;
  big_load = (big + n_sm - 1) / n_sm * (HS_BIG_RW * HS_BIG_RH);
  small_load = (small + n_sm - 1) / n_sm * (HS_SMALL_RW * HS_SMALL_RH);
  return small_load < big_load;
}

template < int RW, int RH, int BY, int MIN_BLOCKS, typename S >
static cf_status
hs_launch_fused (const hs_coef_planes & g, int width, int height,
    int sweeps, int zero_in, const S & in, const S & out,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  const int K = HS_FUSED_DEPTH;
  dim3 grid (cf_div_up (width, RW - 2 * K), cf_div_up (height, RH - 2 * K));

  hs_jacobi_fused_kernel < RW, RH, BY, MIN_BLOCKS, S > <<< grid,
      dim3 (RW, BY), 0,
      stream >>> (g, width, height, sweeps, zero_in, in, out);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* FUSED_DB geometries: enum, name, region RW x RH, thread rows BY, depth
 * K, resident blocks per SM asked of ptxas, early loads (hs_db_sweep: on
 * where the H100 measured them faster; 128 x 64 and 128 x 96, 64
 * registers a thread, took 2-4 % longer with them at 1920x1080,
 * docs/flow-speed.md), own centre (hs_db_sweep: a thread keeps its
 * strip's cells in registers across sweeps; 64 x 80 with 20 cells a
 * thread is 11 % faster than the best plain geometry at 1920x1080 in
 * fp32).
 * The list is the one place that names them; cf_hs_geometry (cuda/hs.h)
 * has the same order. */
#define HS_DB_GEOMETRIES(X) \
  X (CF_HS_GEOMETRY_32X32_K8, "32x32-k8", 32, 32, 8, 8, 4, true, false) \
  X (CF_HS_GEOMETRY_64X64_K8, "64x64-k8", 64, 64, 8, 8, 2, true, false) \
  X (CF_HS_GEOMETRY_96X64_K8, "96x64-k8", 96, 64, 4, 8, 2, true, false) \
  X (CF_HS_GEOMETRY_128X64_K8, "128x64-k8", 128, 64, 8, 8, 1, false, false) \
  X (CF_HS_GEOMETRY_128X96_K8, "128x96-k8", 128, 96, 8, 8, 1, false, false) \
  X (CF_HS_GEOMETRY_64X64_K16, "64x64-k16", 64, 64, 8, 16, 2, true, false) \
  X (CF_HS_GEOMETRY_32X32_K8_OC, "32x32-k8-oc", 32, 32, 8, 8, 4, true, true) \
  X (CF_HS_GEOMETRY_64X64_K8_OC, "64x64-k8-oc", 64, 64, 8, 8, 2, true, true) \
  X (CF_HS_GEOMETRY_64X80_K8_R20_OC, "64x80-k8-r20-oc", 64, 80, 4, 8, 2, \
      true, true)

struct hs_db_shape
{
  const char *name;
  int rw, rh, by, k;
  bool own_centre;
};

static const hs_db_shape hs_db_shapes[CF_HS_N_GEOMETRIES] = {
  {"auto", 0, 0, 0, 0, false},
#define HS_DB_SHAPE(e, name, rw, rh, by, k, mb, el, oc) {name, rw, rh, by, k, oc},
  HS_DB_GEOMETRIES (HS_DB_SHAPE)
#undef HS_DB_SHAPE
};

/* What the device can run of each geometry, for one state type: resident
 * blocks per SM (0: cannot launch, e.g. too little shared memory). */
struct hs_db_caps
{
  int n_sm;
  int blocks_per_sm[CF_HS_N_GEOMETRIES];
  int pdl;                      /* launch with programmatic dependent
                                 * launch (compute capability >= 9.0) */
  int stream_blocks_per_sm;     /* STREAM's (0: cannot launch) */
  int half_cells;               /* fp16: half2 cells (hs_db_cost) */
};

template < class G, typename S > static size_t
hs_db_smem_bytes (void)
{
  return 2 * (size_t) G::PLANE * sizeof (typename hs_traits < S >::cell);
}

/* Allow the kernel of G its dynamic shared memory (above 48 KB this is an
 * opt-in per kernel and device) and ask how many blocks an SM holds; 0
 * when the device cannot give it (the error is consumed). */
template < class G, typename S > static int
hs_db_prepare_one (void)
{
  size_t smem = hs_db_smem_bytes < G, S > ();
  int blocks = 0;

  if (cudaFuncSetAttribute (hs_jacobi_db_kernel < G, S >,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem) !=
      cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks,
          hs_jacobi_db_kernel < G, S >, G::RW * G::BY, smem) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  return blocks;
}

/* STREAM's shared memory, and what hs_db_prepare_one says for it */
template < typename S > static size_t
hs_stream_smem_bytes (void)
{
  return (size_t) hs_stream_g::CELLS * sizeof (typename hs_traits <
      S >::cell);
}

template < typename S > static int
hs_stream_prepare (void)
{
  size_t smem = hs_stream_smem_bytes < S > ();
  int blocks = 0;

  if (cudaFuncSetAttribute (hs_jacobi_stream_kernel < hs_stream_g, S >,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem) !=
      cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks,
          hs_jacobi_stream_kernel < hs_stream_g, S >,
          hs_stream_g::RW * hs_stream_g::BY, smem) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  return blocks;
}

/* Fill @caps for the current device (prepares every kernel of S). */
template < typename S > static cf_status
hs_db_prepare (hs_db_caps * caps, int n_sm)
{
  memset (caps, 0, sizeof (*caps));
  caps->n_sm = n_sm < 1 ? 1 : n_sm;
  caps->pdl = cf_cuda_pdl_supported ();
  caps->half_cells = sizeof (typename hs_traits < S >::cell) == 4;
#define HS_DB_PREPARE(e, name, rw, rh, by, k, mb, el, oc) \
  caps->blocks_per_sm[e] = \
      hs_db_prepare_one < hs_geom < rw, rh, by, k, mb, el, oc >, S > ();
  HS_DB_GEOMETRIES (HS_DB_PREPARE)
#undef HS_DB_PREPARE
  caps->stream_blocks_per_sm = hs_stream_prepare < S > ();
  return caps->blocks_per_sm[CF_HS_GEOMETRY_32X32_K8] > 0 ? CF_OK :
      CF_ERROR_CUDA;
}

/* Tiles (blocks) of a width x height level in geometry @geom. */
static long
hs_db_tiles (cf_hs_geometry geom, int width, int height)
{
  const hs_db_shape *sh = &hs_db_shapes[geom];

  return (long) cf_div_up (width, sh->rw - 2 * sh->k) *
      cf_div_up (height, sh->rh - 2 * sh->k);
}

/* Whether a plan's sequence of @geom at width x height uses tile flags
 * (hs_db_wait_tiles): where launches overlap (programmatic dependent
 * launch) and the grid holds at least half as many blocks as the GPU
 * does at once. In a smaller grid every block runs at the same time, its
 * nine tiles end about when the whole kernel does, and the flags'
 * release and polling only add to the wait (up to 15 % a level on the
 * H100, docs/flow-speed.md). */
static bool
hs_db_flagged (cf_hs_geometry geom, const hs_db_caps * caps, int width,
    int height)
{
  return caps->pdl && hs_db_tiles (geom, width, height) * 2 >=
      (long) caps->blocks_per_sm[geom] * caps->n_sm;
}

/* First-order cost model of the FUSED_DB geometries, in ns, for AUTO.
 * Per launch of s sweeps: a fixed part (graph node launch, block start,
 * first loads' latency, drain), then on the busiest SM, for each round of
 * blocks it holds at once, the load of their regions and s sweeps, each
 * sweep at least a latency floor (barrier, window start, R rows of a
 * thread's strip, the rows' latency shared among the blocks the SM holds
 * at once) and otherwise proportional to the region cells the SM
 * sweeps. With tile flags (@flags, hs_db_flagged) a launch does not drain
 * between rounds: a block starts when its SM has room and its nine tiles
 * are done, so what counts is the SMs' share of all the blocks' sweeps,
 * plus the loads where an SM holds one block (with two or more, one loads
 * while another sweeps), and no launch is shorter than one block's load
 * and sweeps, each sweep at least the latency of a block alone on its SM
 * (HS_DB_LONE_ROW_NS a row of a thread's strip: a 32 x 32 region's
 * sweep, four rows a thread, took about 0.46 us on the H100 before the
 * early loads, docs/flow-speed.md; with them AUTO's picks were still the
 * fastest forced geometry at every level measured). The constants are
 * estimates for an H100-class SM. The two row latencies were set so that
 * AUTO picks the fastest geometry, or one within 5 % of it, at each level
 * of one warp of 504 sweeps measured with every geometry forced
 * (docs/flow-speed.md: fp32 and fp16, the levels of 3840 x 2160,
 * 1920 x 1080, 1280 x 720 and 640 x 480 pyramids, down to 40 x 30);
 * HS_DB_SWEEP_NS_PER_ROW does so from about 81 to 88 ns. Where it was
 * 15 ns, not shared, AUTO gave a 640 x 480 level to 64 x 80 regions, one
 * block an SM, at 1.24 (fp32) and 1.45 (fp16) times the time of the
 * fastest. They rank geometries, tests/gpu/hs-speed.sh measures;
 * tests/check/cuda/hs-model checks the picks against the landed
 * kernels' measured table (cf_cuda_hs_geometry_pick). */
#define HS_DB_LAUNCH_NS 2500.0
#define HS_DB_LOAD_NS_PER_CELL 0.5
#define HS_DB_SWEEP_NS_PER_CELL 0.17
#define HS_DB_SWEEP_NS 90.0
#define HS_DB_SWEEP_NS_PER_ROW 85.0
#define HS_DB_LONE_ROW_NS 125.0
/* Own-centre geometries, against the same geometry without: the per-cell
 * sweep cost in fp32 (8-byte cells: a third of a cell's shared loads
 * fewer), and a strip row's latency. Fitted to one warp of 504 sweeps on
 * each level of a 1080p pyramid with every geometry forced (H100,
 * docs/flow-speed.md): 64x64-k8-oc 3 % faster than 64x64-k8 at 1920x1080
 * in fp32 and 2 % slower in fp16 (half2 cells: the load saved is half as
 * large, the registers as many), so fp16 counts no gain a cell; 32x32-k8
 * 2-4 % faster at 480x270 and below in both. */
#define HS_DB_OWN_CENTRE_CELL_FP32 0.85
#define HS_DB_OWN_CENTRE_ROW 0.97

static double
hs_db_cost (cf_hs_geometry geom, const hs_db_caps * caps, int width,
    int height, int iterations, bool flags)
{
  const hs_db_shape *sh = &hs_db_shapes[geom];
  const double region = (double) sh->rw * sh->rh;
  const int rows = sh->rh / sh->by;     /* of a thread's strip */
  const double per_cell = HS_DB_SWEEP_NS_PER_CELL *
      (sh->own_centre && !caps->half_cells ? HS_DB_OWN_CENTRE_CELL_FP32 :
      1.0);
  const double per_row = sh->own_centre ? HS_DB_OWN_CENTRE_ROW : 1.0;
  int m = caps->blocks_per_sm[geom];
  long blocks, per_sm, busy, rounds;
  int launches;
  double load, sweep, least;

  if (m < 1)
    return -1.0;
  blocks = hs_db_tiles (geom, width, height);
  launches = (iterations + sh->k - 1) / sh->k;
  if (flags) {
    double s = (double) iterations / launches;  /* sweeps a launch */
    double one = per_cell * region;
    double lone = HS_DB_SWEEP_NS + HS_DB_LONE_ROW_NS * rows * per_row;
    /* one block's load and sweeps, and the SMs' share of all blocks' */
    double block, share;

    load = HS_DB_LOAD_NS_PER_CELL * region;
    block = load + s * (one > lone ? one : lone);
    share = (double) blocks / caps->n_sm * (s * one + (m == 1 ? load : 0.0));
    return launches * (HS_DB_LAUNCH_NS + (share > block ? share : block));
  }
  per_sm = (blocks + caps->n_sm - 1) / caps->n_sm;
  busy = per_sm < m ? per_sm : m;
  rounds = (per_sm + m - 1) / m;
  load = HS_DB_LOAD_NS_PER_CELL * busy * region;
  sweep = per_cell * busy * region;
  least = HS_DB_SWEEP_NS + HS_DB_SWEEP_NS_PER_ROW * rows * per_row / busy;
  if (sweep < least)
    sweep = least;
  return launches * (HS_DB_LAUNCH_NS + rounds * load) +
      (double) rounds * iterations * sweep;
}

/* The geometry a width x height level runs: @forced when the device can
 * run it, else the cheapest by hs_db_cost (ties to the earlier entry),
 * each geometry costed with tile flags where a plan's sequence (@flags)
 * of three launches or more would use them. */
static cf_hs_geometry
hs_db_pick (const hs_db_caps * caps, cf_hs_geometry forced, int width,
    int height, int iterations, bool flags)
{
  cf_hs_geometry best = CF_HS_GEOMETRY_32X32_K8;
  double best_cost = -1.0;
  int g;

  if (forced > CF_HS_GEOMETRY_AUTO && forced < CF_HS_N_GEOMETRIES &&
      caps->blocks_per_sm[forced] > 0)
    return forced;
  for (g = CF_HS_GEOMETRY_AUTO + 1; g < CF_HS_N_GEOMETRIES; g++) {
    cf_hs_geometry geom = (cf_hs_geometry) g;
    /* a sequence of one or two launches has at most one that waits on
     * flags (the first waits for the stream): cost it as drained */
    bool long_sequence = iterations > 2 * hs_db_shapes[g].k;
    double cost = hs_db_cost (geom, caps, width, height, iterations,
        flags && long_sequence && hs_db_flagged (geom, caps, width,
            height));
    if (cost >= 0.0 && (best_cost < 0.0 || cost < best_cost)) {
      best = geom;
      best_cost = cost;
    }
  }
  return best;
}

/* One launch of G; with @pdl it may start before the previous kernel of
 * @stream ends (cf_pdl_wait orders what must be ordered). */
template < class G, typename S > static cf_status
hs_launch_db (const hs_coef_planes & g, int width, int height,
    int sweeps, int zero_in, const S & in, const S & out, int pdl,
    unsigned *done, int launch, cudaStream_t stream)
{
  cf_status status = CF_OK;

  CF_CUDA_TRY (cf_cuda_launch (hs_jacobi_db_kernel < G, S >,
          dim3 (cf_div_up (width, G::TW), cf_div_up (height, G::TH)),
          dim3 (G::RW, G::BY), hs_db_smem_bytes < G, S > (), stream, pdl, g,
          width, height, sweeps, zero_in, in, out, done, launch));
out:
  return status;
}

/* One FUSED_DB launch of @geom (not AUTO), @sweeps <= its depth. */
template < typename S > static cf_status
hs_launch_db_geometry (cf_hs_geometry geom, const hs_coef_planes & g,
    int width, int height, int sweeps, int zero_in, const S & in,
    const S & out, int pdl, unsigned *done, int launch, cudaStream_t stream)
{
  switch (geom) {
#define HS_DB_CASE(e, name, rw, rh, by, k, mb, el, oc) \
    case e: \
      return hs_launch_db < hs_geom < rw, rh, by, k, mb, el, oc >, S > (g, width, \
          height, sweeps, zero_in, in, out, pdl, done, launch, stream);
      HS_DB_GEOMETRIES (HS_DB_CASE)
#undef HS_DB_CASE
    default:
      return CF_ERROR_INVALID;
  }
}

extern "C" const char *
cf_cuda_hs_geometry_name (cf_hs_geometry geometry)
{
  if (geometry < CF_HS_GEOMETRY_AUTO || geometry >= CF_HS_N_GEOMETRIES)
    return NULL;
  return hs_db_shapes[geometry].name;
}

extern "C" int
cf_cuda_hs_geometry_from_name (const char *name)
{
  int g;

  if (name == NULL)
    return -1;
  for (g = 0; g < CF_HS_N_GEOMETRIES; g++)
    if (strcmp (name, hs_db_shapes[g].name) == 0)
      return g;
  return -1;
}

extern "C" int
cf_cuda_hs_geometry_depth (cf_hs_geometry geometry)
{
  if (geometry < CF_HS_GEOMETRY_AUTO || geometry >= CF_HS_N_GEOMETRIES)
    return 0;
  return hs_db_shapes[geometry].k;
}

extern "C" cf_hs_geometry
cf_cuda_hs_geometry_pick (int n_sm, const int *blocks_per_sm, int pdl,
    cf_precision precision, int width, int height, int iterations)
{
  hs_db_caps caps;
  bool any = false;
  int g;

  if (n_sm < 1 || blocks_per_sm == NULL || width < 1 || height < 1 ||
      iterations < 1 || (precision != CF_PRECISION_FP32 &&
          precision != CF_PRECISION_FP16))
    return CF_HS_GEOMETRY_AUTO;
  memset (&caps, 0, sizeof (caps));
  caps.n_sm = n_sm;
  caps.pdl = pdl != 0;
  caps.half_cells = precision == CF_PRECISION_FP16;
  for (g = CF_HS_GEOMETRY_AUTO + 1; g < CF_HS_N_GEOMETRIES; g++) {
    caps.blocks_per_sm[g] = blocks_per_sm[g] > 0 ? blocks_per_sm[g] : 0;
    any = any || caps.blocks_per_sm[g] > 0;
  }
  if (!any)
    return CF_HS_GEOMETRY_AUTO;
  /* a plan's sequence (hs_enqueue_iterations with tile flags, used where
   * hs_db_flagged says they pay) */
  return hs_db_pick (&caps, CF_HS_GEOMETRY_AUTO, width, height, iterations,
      true);
}

/* The most tiles a level of at most width x height has in any geometry. */
static size_t
hs_db_max_tiles (int width, int height)
{
  size_t most = 0;

  for (int g = CF_HS_GEOMETRY_AUTO + 1; g < CF_HS_N_GEOMETRIES; g++) {
    size_t n = (size_t) hs_db_tiles ((cf_hs_geometry) g, width, height);
    if (n > most)
      most = n;
  }
  return most;
}

/* FUSED_DB addresses its planes with int element offsets, rows -K to
 * height - 1 + RH; where they would not fit (pitches far beyond any frame
 * CF_MAX_DIMENSION allows), FUSED, which uses size_t, runs instead. */
static int
hs_db_offsets_fit (int height, size_t pitch)
{
  return ((size_t) height + 256) * pitch + 256 <= (size_t) INT_MAX;
}

/* Rows of a STREAM segment at width x height on this device */
static int
hs_stream_segment_rows (const hs_db_caps * caps, int width, int height)
{
  return hs_stream_segment_rows < hs_stream_g > (caps->stream_blocks_per_sm,
      caps->n_sm, width, height);
}

/* Whether a STREAM plan runs STREAM on a width x height level: its strips
 * and segments make at least half a wave of blocks. A smaller level
 * (480 x 270 and below on 132 SMs) would leave most SMs idle; FUSED_DB's
 * smaller regions spread it wider. */
static bool
hs_stream_runs (const hs_db_caps * caps, int width, int height)
{
  long blocks = (long) cf_div_up (width, hs_stream_g::TW) *
      cf_div_up (height, hs_stream_segment_rows (caps, width, height));

  return caps->stream_blocks_per_sm > 0 &&
      2 * blocks >= (long) caps->stream_blocks_per_sm * caps->n_sm;
}

/* One STREAM launch (hs_stream_g::K sweeps). */
template < typename S > static cf_status
hs_launch_stream (const hs_coef_planes & g, int width, int height,
    int seg_rows, int zero_in, const S & in, const S & out, int pdl,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  CF_CUDA_TRY (cf_cuda_launch (hs_jacobi_stream_kernel < hs_stream_g, S >,
          dim3 (cf_div_up (width, hs_stream_g::TW), cf_div_up (height,
                  seg_rows)), dim3 (hs_stream_g::RW, hs_stream_g::BY),
          hs_stream_smem_bytes < S > (), stream, pdl, g, width, height,
          seg_rows, zero_in, in, out));
out:
  return status;
}

/* Enqueue @iterations sweeps ping-ponging between state[0] (input) and
 * state[1]; *result = index of the buffer holding the last sweep. @done:
 * FUSED_DB's tile flags (hs_db_max_tiles of the level's size), or NULL. */
template < typename S > static cf_status
hs_enqueue_iterations (const hs_coef_planes & g, int width, int height,
    int iterations, cf_hs_kernel kernel, int n_sm,
    const hs_db_caps * caps, cf_hs_geometry geometry, int zero_in,
    const S state[2], unsigned *done, int *result, cudaStream_t stream)
{
  cf_status status = CF_OK;
  int cur = 0;

  if (kernel == CF_HS_KERNEL_STREAM && caps->stream_blocks_per_sm < 1)
    kernel = CF_HS_KERNEL_FUSED_DB;
  if (kernel == CF_HS_KERNEL_FUSED_DB && !hs_db_offsets_fit (height,
          max (max (g.pa, g.pb), max (g.pc, max (state[0].pitch,
                      state[1].pitch)))))
    kernel = CF_HS_KERNEL_FUSED;
  if (kernel == CF_HS_KERNEL_FUSED_DB) {
    /* tile flags in a plan's sequence (@done), which starts from zero,
     * so that its first launch reads no increments; it waits for the
     * stream (cf_pdl_wait) and the others for their tiles, from flags
     * cleared here; and only where hs_db_flagged says they pay */
    bool flags = done != NULL && zero_in;
    cf_hs_geometry geom = hs_db_pick (caps, geometry, width, height,
        iterations, flags);
    int depth = hs_db_shapes[geom].k;
    int first = zero_in;
    int launch = 0;
    long tiles = hs_db_tiles (geom, width, height);

    if (!flags || !hs_db_flagged (geom, caps, width, height))
      done = NULL;
    if (done != NULL)
      CF_CUDA_TRY (cudaMemsetAsync (done, 0, (size_t) tiles *
              sizeof (unsigned), stream));
    for (int left = iterations; left > 0; left -= depth, launch++) {
      int sweeps = left < depth ? left : depth;
      status = hs_launch_db_geometry < S > (geom, g, width, height,
          sweeps, first, state[cur], state[1 - cur], caps->pdl, done,
          launch, stream);
      if (status != CF_OK)
        goto out;
      first = 0;
      cur = 1 - cur;
    }
  } else if (kernel == CF_HS_KERNEL_STREAM) {
    /* whole launches of K sweeps, then the rest in one FUSED_DB launch
     * of AUTO's (or the forced) geometry; both give SIMPLE's bits */
    const int K = hs_stream_g::K;
    int seg_rows = hs_stream_segment_rows (caps, width, height);
    int first = zero_in;

    for (int n = 0; n < iterations / K; n++) {
      status = hs_launch_stream < S > (g, width, height, seg_rows, first,
          state[cur], state[1 - cur], caps->pdl, stream);
      if (status != CF_OK)
        goto out;
      first = 0;
      cur = 1 - cur;
    }
    if (iterations % K != 0) {
      int rest = iterations % K;
      cf_hs_geometry geom = hs_db_pick (caps, geometry, width, height,
          rest, false);
      status = hs_launch_db_geometry < S > (geom, g, width, height, rest,
          first, state[cur], state[1 - cur], caps->pdl, NULL, 0, stream);
      if (status != CF_OK)
        goto out;
      cur = 1 - cur;
    }
  } else if (kernel == CF_HS_KERNEL_SIMPLE) {
    for (int n = 0; n < iterations; n++) {
      hs_jacobi_simple_kernel < S > <<< cell_grid (width, height),
          dim3 (HS_BLOCK_X, HS_BLOCK_Y), 0, stream >>> (g, width, height,
          zero_in && n == 0, state[cur], state[1 - cur]);
      CF_CUDA_TRY_LAUNCH ();
      cur = 1 - cur;
    }
  } else {
    int small = hs_fused_pick_small (width, height, n_sm);
    int first = zero_in;

    for (int left = iterations; left > 0; left -= HS_FUSED_DEPTH) {
      int sweeps = left < HS_FUSED_DEPTH ? left : HS_FUSED_DEPTH;
      if (small)
        status = hs_launch_fused < HS_SMALL_RW, HS_SMALL_RH, HS_SMALL_BY,
            HS_SMALL_MIN_BLOCKS, S > (g, width, height, sweeps,
            first, state[cur], state[1 - cur], stream);
      else
        status = hs_launch_fused < HS_BIG_RW, HS_BIG_RH, HS_BIG_BY,
            HS_BIG_MIN_BLOCKS, S > (g, width, height, sweeps,
            first, state[cur], state[1 - cur], stream);
      if (status != CF_OK)
        goto out;
      first = 0;
      cur = 1 - cur;
    }
  }
out:
  *result = cur;
  return status;
}

/* AUTO = FUSED_DB (file comment), same bits as every other kernel */
static cf_hs_kernel
resolve_kernel (cf_hs_kernel kernel)
{
  return kernel == CF_HS_KERNEL_AUTO ? CF_HS_KERNEL_FUSED_DB : kernel;
}

static int
kernel_valid (cf_hs_kernel kernel)
{
  return kernel == CF_HS_KERNEL_AUTO || kernel == CF_HS_KERNEL_SIMPLE ||
      kernel == CF_HS_KERNEL_FUSED || kernel == CF_HS_KERNEL_FUSED_DB ||
      kernel == CF_HS_KERNEL_STREAM;
}

static int
same_size (const cf_cuda_image * a, const cf_cuda_image * b)
{
  return a->width == b->width && a->height == b->height;
}

static hs_coef_planes
coef_planes (const float *a, size_t pa, const float *b, size_t pb,
    const float *c, size_t pc)
{
  hs_coef_planes k;

  k.a = a;
  k.b = b;
  k.c = c;
  k.pa = pa;
  k.pb = pb;
  k.pc = pc;
  return k;
}

static hs_flow_f32
flow_f32 (const cf_cuda_flow * f)
{
  hs_flow_f32 s;

  s.u = f->u;
  s.v = f->v;
  s.pitch = f->pitch;
  return s;
}

extern "C" cf_status
cf_cuda_hs_derivatives (const cf_cuda_image * i0, const cf_cuda_image * i1w,
    cf_cuda_image * ix, cf_cuda_image * iy, cf_cuda_image * it,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_image_is_valid (i0) || !cf_cuda_image_is_valid (i1w) ||
      !cf_cuda_image_is_valid (ix) || !cf_cuda_image_is_valid (iy) ||
      !cf_cuda_image_is_valid (it) || !same_size (i0, i1w) ||
      !same_size (i0, ix) || !same_size (i0, iy) || !same_size (i0, it))
    return CF_ERROR_INVALID;
  hs_derivatives_kernel <<< cell_grid (i0->width, i0->height),
      dim3 (HS_BLOCK_X, HS_BLOCK_Y), 0, stream >>> (i0->data, i0->pitch,
      i1w->data, i1w->pitch, i0->width, i0->height, ix->data, ix->pitch,
      iy->data, iy->pitch, it->data, it->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_hs_coefficients (const cf_cuda_image * i0, const cf_cuda_image * i1w,
    float alpha, cf_cuda_image * a, cf_cuda_image * b, cf_cuda_image * c,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_image_is_valid (i0) || !cf_cuda_image_is_valid (i1w) ||
      !cf_cuda_image_is_valid (a) || !cf_cuda_image_is_valid (b) ||
      !cf_cuda_image_is_valid (c) || !same_size (i0, i1w) ||
      !same_size (i0, a) || !same_size (i0, b) || !same_size (i0, c) ||
      !(alpha > 0.0f) || !isfinite (alpha))
    return CF_ERROR_INVALID;
  hs_coefficients_kernel <<< cell_grid (i0->width, i0->height),
      dim3 (HS_BLOCK_X, HS_BLOCK_Y), 0, stream >>> (i0->data, i0->pitch,
      i1w->data, i1w->pitch, i0->width, i0->height, alpha * alpha, a->data,
      a->pitch, b->data, b->pitch, c->data, c->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* The API's two fp32 planes <-> the solvers' state S (one float2 or half2
 * plane), for cf_cuda_hs_jacobi_ex: packed as hs_traits<S>::pack (half2:
 * rounded), unpacked exactly. */
template < typename S > __global__ static void
hs_pack_kernel (hs_flow_f32 src, S dst, int width, int height)
{
  typedef hs_traits < S > T;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t i;

  if (x >= width || y >= height)
    return;
  i = x + (size_t) y * src.pitch;
  T::store (dst, x + (size_t) y * dst.pitch,
      T::pack (make_float2 (src.u[i], src.v[i])));
}

template < typename S > __global__ static void
hs_unpack_kernel (S src, hs_flow_f32 dst, int width, int height)
{
  typedef hs_traits < S > T;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t i;
  float2 f;

  if (x >= width || y >= height)
    return;
  f = T::unpack (T::load (src, x + (size_t) y * src.pitch));
  i = x + (size_t) y * dst.pitch;
  dst.u[i] = f.x;
  dst.v[i] = f.y;
}

/* @iterations sweeps in the state S, from *d (packed) back into *d. */
template < typename S > static cf_status
hs_jacobi_packed (const hs_coef_planes & g, int width, int height,
    int iterations, cf_hs_kernel kernel, int n_sm, cf_hs_geometry geometry,
    cf_cuda_flow * d, cudaStream_t stream)
{
  typedef typename hs_traits < S >::cell cell;
  cf_status status = CF_OK, run;
  hs_db_caps caps;
  S s[2];
  void *p[2] = { NULL, NULL };
  size_t bytes = (size_t) width * height * sizeof (cell);
  int result = 0, l;

  if ((kernel == CF_HS_KERNEL_FUSED_DB || kernel == CF_HS_KERNEL_STREAM) &&
      (status = hs_db_prepare < S > (&caps, n_sm)) != CF_OK)
    return status;
  for (l = 0; l < 2; l++) {
    CF_CUDA_TRY (cudaMallocAsync (&p[l], bytes, stream));
    s[l].uv = (cell *) p[l];
    s[l].pitch = width;
  }
  hs_pack_kernel < S > <<< cell_grid (width, height), dim3 (HS_BLOCK_X,
          HS_BLOCK_Y), 0, stream >>> (flow_f32 (d), s[0], width, height);
  CF_CUDA_TRY_LAUNCH ();
  run = hs_enqueue_iterations (g, width, height, iterations, kernel,
      n_sm, &caps, geometry, 0, s, (unsigned *) NULL, &result, stream);
  if (run != CF_OK) {
    status = run;
    goto out;
  }
  hs_unpack_kernel < S > <<< cell_grid (width, height), dim3 (HS_BLOCK_X,
          HS_BLOCK_Y), 0, stream >>> (s[result], flow_f32 (d), width,
      height);
  CF_CUDA_TRY_LAUNCH ();
out:
  for (l = 0; l < 2; l++)
    if (p[l] != NULL)
      cf_cuda_check (cudaFreeAsync (p[l], stream));
  return status;
}

extern "C" cf_status
cf_cuda_hs_jacobi_ex (const cf_cuda_image * ix, const cf_cuda_image * iy,
    const cf_cuda_image * it, float alpha, int iterations,
    cf_hs_kernel kernel, cf_hs_geometry geometry, cf_precision precision,
    cf_cuda_flow * d, cf_cuda_flow * tmp, cudaStream_t stream)
{
  cf_status status = CF_OK;
  hs_coef_planes g;
  float *coef[3] = { NULL, NULL, NULL };
  size_t plane;
  int n_sm, l, w, h;

  if (!cf_cuda_image_is_valid (ix) || !cf_cuda_image_is_valid (iy) ||
      !cf_cuda_image_is_valid (it) || !same_size (ix, iy) ||
      !same_size (ix, it) || !cf_cuda_flow_is_valid (d) ||
      !cf_cuda_flow_is_valid (tmp) || d->width != ix->width ||
      d->height != ix->height || tmp->width != ix->width ||
      tmp->height != ix->height || d->u == tmp->u || d->v == tmp->v ||
      d->u == tmp->v || d->v == tmp->u || iterations < 0 || !(alpha > 0.0f) ||
      !isfinite (alpha) || !kernel_valid (kernel) ||
      geometry < CF_HS_GEOMETRY_AUTO || geometry >= CF_HS_N_GEOMETRIES ||
      (precision != CF_PRECISION_FP32 && precision != CF_PRECISION_FP16))
    return CF_ERROR_INVALID;
  if (iterations == 0)
    return CF_OK;
  w = ix->width;
  h = ix->height;
  plane = (size_t) w * h * sizeof (float);
  status = cf_cuda_sm_count (&n_sm);
  if (status != CF_OK)
    return status;
  kernel = resolve_kernel (kernel);

  /* the coefficients of the given derivatives, in stream-ordered scratch
   * planes (the plan computes them straight from the frames instead) */
  for (l = 0; l < 3; l++)
    CF_CUDA_TRY (cudaMallocAsync ((void **) &coef[l], plane, stream));
  hs_coefs_from_derivatives_kernel <<< cell_grid (w, h), dim3 (HS_BLOCK_X,
          HS_BLOCK_Y), 0, stream >>> (ix->data, ix->pitch, iy->data,
      iy->pitch, it->data, it->pitch, w, h, alpha * alpha, coef[0],
      (size_t) w, coef[1], (size_t) w, coef[2], (size_t) w);
  CF_CUDA_TRY_LAUNCH ();
  g = coef_planes (coef[0], w, coef[1], w, coef[2], w);

  if (precision == CF_PRECISION_FP16)
    status = hs_jacobi_packed < hs_state_f16 > (g, w, h, iterations, kernel,
        n_sm, geometry, d, stream);
  else
    status = hs_jacobi_packed < hs_state_f32 > (g, w, h, iterations, kernel,
        n_sm, geometry, d, stream);
out:
  for (l = 0; l < 3; l++)
    if (coef[l] != NULL)
      cf_cuda_check (cudaFreeAsync (coef[l], stream));
  return status;
}

extern "C" cf_status
cf_cuda_hs_jacobi (const cf_cuda_image * ix, const cf_cuda_image * iy,
    const cf_cuda_image * it, float alpha, int iterations,
    cf_hs_kernel kernel, cf_cuda_flow * d, cf_cuda_flow * tmp,
    cudaStream_t stream)
{
  return cf_cuda_hs_jacobi_ex (ix, iy, it, alpha, iterations, kernel,
      CF_HS_GEOMETRY_AUTO, CF_PRECISION_FP32, d, tmp, stream);
}

extern "C" cf_status
cf_cuda_hs_add_increment (const cf_cuda_flow * d, cf_cuda_flow * u,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_flow_is_valid (d) || !cf_cuda_flow_is_valid (u) ||
      d->width != u->width || d->height != u->height)
    return CF_ERROR_INVALID;
  hs_add_increment_kernel < hs_flow_f32 > <<< cell_grid (u->width,
          u->height), dim3 (HS_BLOCK_X, HS_BLOCK_Y), 0, stream >>>
      (flow_f32 (d), u->width, u->height, u->u, u->v, u->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* ---------------------------------------------------------------------
 * Plan
 * --------------------------------------------------------------------- */

struct cf_cuda_hs_plan
{
  int width, height;
  cf_precision precision;
  cf_hs_kernel kernel;          /* SIMPLE, FUSED, FUSED_DB or STREAM
                                 * (AUTO resolved) */
  int n_sm;
  cf_hs_geometry geometry;      /* FUSED_DB: forced, or AUTO per level */
  hs_db_caps caps;              /* FUSED_DB: what the device runs, and
                                 * whether launches use PDL */
  int pdl_supported;            /* FUSED_DB: the device has PDL */

  cf_cuda_flow u;               /* pixel-grid flow of the current level */
  cf_cuda_image i1w;
  cf_cuda_image coef[3];        /* a, b, c of the current warp */
  void *inc[2];                 /* increments: hs_state_f32's float2
                                 * (fp32 plans) or hs_state_f16's half2 */
  size_t inc_pitch;             /* cells */
  unsigned *done;               /* FUSED_DB (and STREAM plans' FUSED_DB
                                 * levels): tile flags (hs_db_wait_tiles),
                                 * hs_db_max_tiles of the finest level */

  cudaStream_t capture_stream;  /* private: graphs are captured here */
  cf_level_graph graph[CF_PYRAMID_MAX_LEVELS];
};

extern "C" void
cf_cuda_hs_plan_free (cf_cuda_hs_plan * plan)
{
  int l;

  if (plan == NULL)
    return;
  for (l = 0; l < CF_PYRAMID_MAX_LEVELS; l++)
    cf_level_graph_reset (&plan->graph[l]);
  if (plan->capture_stream != NULL)
    cf_cuda_check (cudaStreamDestroy (plan->capture_stream));
  cf_cuda_flow_release (&plan->u);
  cf_cuda_image_release (&plan->i1w);
  for (l = 0; l < 3; l++)
    cf_cuda_image_release (&plan->coef[l]);
  for (l = 0; l < 2; l++) {
    if (plan->inc[l] != NULL)
      cf_cuda_check (cudaFree (plan->inc[l]));
  }
  if (plan->done != NULL)
    cf_cuda_check (cudaFree (plan->done));
  free (plan);
}

extern "C" cf_status
cf_cuda_hs_plan_new (int width, int height, cf_precision precision,
    cf_hs_kernel kernel, cf_cuda_hs_plan ** plan_out)
{
  cf_status status = CF_OK;
  cf_cuda_hs_plan *plan = NULL;
  int l;

  if (plan_out == NULL)
    return CF_ERROR_INVALID;
  *plan_out = NULL;
  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION ||
      height > CF_MAX_DIMENSION || (precision != CF_PRECISION_FP32 &&
          precision != CF_PRECISION_FP16) || !kernel_valid (kernel))
    return CF_ERROR_INVALID;
  plan = (cf_cuda_hs_plan *) calloc (1, sizeof (*plan));
  if (plan == NULL)
    return CF_ERROR_NO_MEMORY;
  plan->width = width;
  plan->height = height;
  plan->precision = precision;
  plan->kernel = resolve_kernel (kernel);

  status = cf_cuda_sm_count (&plan->n_sm);
  if (status != CF_OK)
    goto out;
  if (plan->kernel == CF_HS_KERNEL_FUSED_DB ||
      plan->kernel == CF_HS_KERNEL_STREAM) {
    status = precision == CF_PRECISION_FP32 ?
        hs_db_prepare < hs_state_f32 > (&plan->caps, plan->n_sm) :
        hs_db_prepare < hs_state_f16 > (&plan->caps, plan->n_sm);
    if (status != CF_OK)
      goto out;
    plan->pdl_supported = plan->caps.pdl;
  }
  if ((status = cf_cuda_flow_alloc (&plan->u, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1w, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->coef[0], width, height)) != CF_OK
      || (status = cf_cuda_image_alloc (&plan->coef[1], width,
              height)) != CF_OK
      || (status = cf_cuda_image_alloc (&plan->coef[2], width,
              height)) != CF_OK)
    goto out;
  for (l = 0; l < 2; l++) {
    size_t cell = precision == CF_PRECISION_FP32 ? sizeof (float2) :
        sizeof (__half2), pitch = 0;
    CF_CUDA_TRY (cudaMallocPitch (&plan->inc[l], &pitch,
            (size_t) width * cell, (size_t) height));
    plan->inc_pitch = pitch / cell;
  }
  if (plan->kernel == CF_HS_KERNEL_FUSED_DB ||
      plan->kernel == CF_HS_KERNEL_STREAM)      /* its small levels */
    CF_CUDA_TRY (cudaMalloc ((void **) &plan->done, hs_db_max_tiles (width,
                height) * sizeof (unsigned)));
  CF_CUDA_TRY (cudaStreamCreateWithFlags (&plan->capture_stream,
          cudaStreamNonBlocking));

out:
  if (status != CF_OK) {
    cf_cuda_hs_plan_free (plan);
    plan = NULL;
  }
  *plan_out = plan;
  return status;
}

extern "C" cf_status
cf_cuda_hs_plan_set_geometry (cf_cuda_hs_plan * plan, cf_hs_geometry geometry)
{
  cf_status status = CF_OK;
  int l;

  if (plan == NULL || geometry < CF_HS_GEOMETRY_AUTO ||
      geometry >= CF_HS_N_GEOMETRIES)
    return CF_ERROR_INVALID;
  if (geometry == plan->geometry)
    return CF_OK;
  plan->geometry = geometry;
  /* the captured sequences launch the old geometry */
  for (l = 0; l < CF_PYRAMID_MAX_LEVELS; l++) {
    cf_status s = cf_level_graph_reset (&plan->graph[l]);
    if (status == CF_OK)
      status = s;
  }
  return status;
}

extern "C" cf_status
cf_cuda_hs_plan_set_pdl (cf_cuda_hs_plan * plan, int pdl)
{
  cf_status status = CF_OK;
  int on, l;

  if (plan == NULL)
    return CF_ERROR_INVALID;
  on = pdl && plan->pdl_supported;
  if (on == plan->caps.pdl)
    return CF_OK;
  plan->caps.pdl = on;
  for (l = 0; l < CF_PYRAMID_MAX_LEVELS; l++) {
    cf_status s = cf_level_graph_reset (&plan->graph[l]);
    if (status == CF_OK)
      status = s;
  }
  return status;
}

/* The plan's scratch seen at a level's size. */
static cf_cuda_image
image_view (const cf_cuda_image * img, int width, int height)
{
  cf_cuda_image view = *img;
  view.width = width;
  view.height = height;
  return view;
}

/* The plan's increment buffer @index as the state S of its precision. */
template < typename S > static S
plan_state (const cf_cuda_hs_plan * plan, int index)
{
  S s;

  s.uv = (typename hs_traits < S >::cell *) plan->inc[index];
  s.pitch = plan->inc_pitch;
  return s;
}

/* Enqueue one warp's Jacobi sequence (du = 0, then @iterations sweeps) of
 * a width x height level on @stream, reading the plan's coefficients
 * (computed with @alpha by plan_coefficients). */
static cf_status
plan_enqueue_iterations (void *data, int width, int height, float alpha,
    int iterations, int *result, cudaStream_t stream)
{
  cf_cuda_hs_plan *plan = (cf_cuda_hs_plan *) data;
  hs_coef_planes g = coef_planes (plan->coef[0].data, plan->coef[0].pitch,
      plan->coef[1].data, plan->coef[1].pitch, plan->coef[2].data,
      plan->coef[2].pitch);
  cf_hs_kernel kernel = plan->kernel;

  (void) alpha;                 /* in the coefficients; a key of the graph */
  if (kernel == CF_HS_KERNEL_STREAM && !hs_stream_runs (&plan->caps, width,
          height))
    kernel = CF_HS_KERNEL_FUSED_DB;
  if (plan->precision == CF_PRECISION_FP32) {
    hs_state_f32 s[2] = { plan_state < hs_state_f32 > (plan, 0),
      plan_state < hs_state_f32 > (plan, 1)
    };
    return hs_enqueue_iterations (g, width, height, iterations, kernel,
        plan->n_sm, &plan->caps, plan->geometry, 1, s, plan->done, result,
        stream);
  } else {
    hs_state_f16 s[2] = { plan_state < hs_state_f16 > (plan, 0),
      plan_state < hs_state_f16 > (plan, 1)
    };
    return hs_enqueue_iterations (g, width, height, iterations, kernel,
        plan->n_sm, &plan->caps, plan->geometry, 1, s, plan->done, result,
        stream);
  }
}

/* The coefficient planes of one warp of a level, from frame t-1 @f0 and
 * the warped frame t @f1w (views of the level's size). */
static cf_status
plan_coefficients (cf_cuda_hs_plan * plan, const cf_cuda_image * f0,
    const cf_cuda_image * f1w, float alpha, cudaStream_t stream)
{
  cf_cuda_image a = image_view (&plan->coef[0], f0->width, f0->height);
  cf_cuda_image b = image_view (&plan->coef[1], f0->width, f0->height);
  cf_cuda_image c = image_view (&plan->coef[2], f0->width, f0->height);

  return cf_cuda_hs_coefficients (f0, f1w, alpha, &a, &b, &c, stream);
}

/* Run the level's iteration sequence on @stream through its cached graph,
 * capturing it first when the key (size, iterations, alpha) changed. A
 * FUSED_DB sequence whose capture with programmatic dependent launches
 * fails (a driver without them in graphs) is captured again without
 * them, and the plan keeps to that. */
static cf_status
plan_run_iterations (cf_cuda_hs_plan * plan, int level, int width,
    int height, float alpha, int iterations, int *result, cudaStream_t stream)
{
  cf_status status = cf_level_graph_run (&plan->graph[level],
      plan->capture_stream, plan_enqueue_iterations, plan, width, height,
      alpha, iterations, result, stream);

  if (status != CF_OK && (plan->kernel == CF_HS_KERNEL_FUSED_DB ||
          plan->kernel == CF_HS_KERNEL_STREAM) && plan->caps.pdl) {
    int l;

    (void) cudaGetLastError ();
    plan->caps.pdl = 0;
    for (l = 0; l < CF_PYRAMID_MAX_LEVELS; l++)
      (void) cf_level_graph_reset (&plan->graph[l]);
    status = cf_level_graph_run (&plan->graph[level], plan->capture_stream,
        plan_enqueue_iterations, plan, width, height, alpha, iterations,
        result, stream);
  }
  return status;
}

/* Add the plan's increment buffer @index to @u. */
static cf_status
plan_add_increment (cf_cuda_hs_plan * plan, int index, cf_cuda_flow * u,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (plan->precision == CF_PRECISION_FP32)
    hs_add_increment_kernel < hs_state_f32 > <<< cell_grid (u->width,
            u->height), dim3 (HS_BLOCK_X, HS_BLOCK_Y), 0, stream >>>
        (plan_state < hs_state_f32 > (plan, index), u->width, u->height,
        u->u, u->v, u->pitch);
  else
    hs_add_increment_kernel < hs_state_f16 > <<< cell_grid (u->width,
            u->height), dim3 (HS_BLOCK_X, HS_BLOCK_Y), 0, stream >>>
        (plan_state < hs_state_f16 > (plan, index), u->width, u->height,
        u->u, u->v, u->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* The pyramids suit a run of this plan into @flow. */
static int
run_args_valid (const cf_cuda_hs_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_hs_params * params,
    const cf_cuda_flow * flow)
{
  int l;

  if (plan == NULL || p0 == NULL || p1 == NULL || params == NULL ||
      !cf_cuda_flow_is_valid (flow) || p0->n_levels != p1->n_levels ||
      p0->n_levels < 1 || p0->n_levels > CF_PYRAMID_MAX_LEVELS ||
      !cf_hs_params_valid (params) || flow->width != p0->level[0].width ||
      flow->height != p0->level[0].height || flow->width > plan->width ||
      flow->height > plan->height)
    return 0;
  for (l = 0; l < p0->n_levels; l++) {
    const cf_cuda_image *a = &p0->level[l], *b = &p1->level[l];
    if (!cf_cuda_image_is_valid (a) || !cf_cuda_image_is_valid (b) ||
        !same_size (a, b) || a->width > flow->width || a->height > flow->height)
      return 0;
  }
  return 1;
}

extern "C" cf_status
cf_cuda_hs_plan_run (cf_cuda_hs_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_hs_params * params, int use_initial,
    cf_cuda_flow * flow, cudaStream_t stream)
{
  cf_status status = CF_OK;
  int l, k;

  if (!run_args_valid (plan, p0, p1, params, flow))
    return CF_ERROR_INVALID;

  for (l = p0->n_levels - 1; l >= 0; l--) {
    const cf_cuda_image *f0 = &p0->level[l], *f1 = &p1->level[l];
    int w = f0->width, h = f0->height;
    cf_cuda_flow ul = cf_cuda_flow_view (&plan->u, w, h);
    cf_cuda_flow parked = cf_cuda_flow_view (flow, w, h);
    cf_cuda_image wl = image_view (&plan->i1w, w, h);

    /* the flow entering this level */
    if (l == p0->n_levels - 1) {
      if (use_initial)
        status = cf_cuda_flow_resample (flow, &ul, stream);
      else
        status = cf_cuda_flow_fill (&ul, 0.0f, 0.0f, stream);
    } else {
      /* the previous level's result is parked in `flow` as a view */
      cf_cuda_flow prev = cf_cuda_flow_view (flow, p0->level[l + 1].width,
          p0->level[l + 1].height);
      status = cf_cuda_flow_resample (&prev, &ul, stream);
    }
    if (status != CF_OK)
      return status;

    for (k = 0; k < params->warps; k++) {
      int result = 0;

      status = cf_cuda_warp_bicubic (f1, &ul, CF_WARP_CLAMP, &wl, stream);
      if (status == CF_OK)
        status = plan_coefficients (plan, f0, &wl, params->alpha, stream);
      if (status != CF_OK)
        return status;
      /* du = 0 then the sweeps; 0 sweeps leave u as it is */
      if (params->iterations == 0)
        continue;
      status = plan_run_iterations (plan, l, w, h, params->alpha,
          params->iterations, &result, stream);
      if (status == CF_OK)
        status = plan_add_increment (plan, result, &ul, stream);
      if (status != CF_OK)
        return status;
    }

    /* park this level's result in `flow`'s buffer for the next level */
    status = cf_cuda_flow_copy (&ul, &parked, stream);
    if (status != CF_OK)
      return status;
  }
  return CF_OK;
}
