/* gst-cudaflow — Combined Local-Global optical flow on the GPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Twin of common/clg.c (model, sign of the system and differences from
 * IPOL: common/clg.h; method: Seznec et al., JRTIP 2022): the same
 * full-pixel grid, the same clamped derivative stencil, the same K_ρ
 * (cf_gaussian_taps, radius ⌈4ρ⌉, half-sample reflecting border), the
 * same |N|-count Neumann border in the Jacobi sweep, the same incremental
 * coarse-to-fine loop. Every per-pixel operation is spelled with
 * __fadd_rn / __fsub_rn / __fmul_rn / __fdiv_rn in the CPU's order, so
 * nvcc can neither contract it into FMAs nor approximate a division: the
 * x86-64 reference is built without contraction, so each step gives the
 * CPU's bits.
 *
 * Kernels (one thread per pixel, 32 x 8 blocks, unless said otherwise):
 *  - derivatives: f_x, f_y, f_t.
 *  - structure tensor: ρ = 0: one kernel writes the five products into J.
 *    ρ > 0: a batched separable K_ρ. The x pass forms the five products
 *    at each tap it reads (the same rounded products the CPU forms once:
 *    a product is one correctly rounded multiply wherever it is done) and
 *    smooths all five channels into @tmp; the y pass smooths all five
 *    from @tmp into J. The taps travel by value in the launch parameters
 *    (at most 401 floats for ρ <= 50), so no device buffer is needed and
 *    concurrent plans never share one.
 *  - Jacobi, SIMPLE: one sweep per launch, neighbours from global memory,
 *    ping-pong buffers.
 *  - Jacobi, FUSED: K sweeps per launch (K = 3 .. 8, one template
 *    instance each, chosen at run time; default CF_CLG_FUSED_DEPTH_DEFAULT,
 *    the fastest measured), temporal
 *    blocking on a block-private shared-memory region (Seznec et al.
 *    2022; the design of cuda/hs.cu's FUSED kernel): a block loads an
 *    RW x RH region = its TW x TH output tile plus a halo of K cells,
 *    runs up to K sweeps on it and stores the tile. The region is held
 *    twice (double buffer: sweep s reads buffer s % 2 and writes the
 *    other, one barrier per sweep), with one cell of padding. Cells
 *    outside the image (padding included) are ghosts that hold +0 for
 *    ever: adding +0 to the CPU's partial sums changes nothing (they start
 *    at +0, so they are never -0), and the count |N| comes from global
 *    coordinates, so the Neumann border costs no branch in the inner loop.
 *    Where the region is cut inside the image the padding's zeros are
 *    wrong neighbours that spoil one ring per sweep, never the tile. No
 *    block reads another block's updated cells: the result equals K
 *    single sweeps bit for bit. A thread owns one region column and R =
 *    RH / BY rows, keeps its cells' five coefficients in registers, and
 *    walks its strip with a 3-cell column window.
 *  - add increment: u_out = u + d.
 *  - AUTO = FUSED at the default depth: faster than SIMPLE at every depth
 *    3 .. 8 (docs/flow-speed.md, CLG).
 *
 * fp16 (CF_PRECISION_FP16, plans only): the Jacobi increments (du, dv) of
 * a pixel live in one half2, in the plan's two ping-pong planes and in
 * FUSED's shared double buffer (half its fp32 size). The neighbour sums
 * are half2 (HADD2, left, right, up, down, +0 for neighbours outside the
 * image in SIMPLE as in FUSED's ghosts); the update is fp32 in the
 * expanded form of clg_coefs_h_at () (five fp32 coefficients per pixel
 * computed once per launch, four FMAs and no division per sweep), rounded
 * to half2 once per sweep. SIMPLE and FUSED share that code (the same
 * bits, tested) but not fp32's bits. J (intensities 0..255: |f_x|,
 * |f_y| <= 127.5, |f_t| <= 255, so entries up to ~3.3e4, within half's
 * 65504) nevertheless stays fp32, as do the pyramids, the warp, the flow
 * u, the add-increment step (it reads the half2 increment) and the
 * upsampling. Increments must stay below 65504 / 4 px (the sums), far
 * beyond any per-level increment; half keeps 11 significant bits, ~1e-3
 * px on an increment of a pixel. FUSED picks one of three region
 * geometries per level (CLG_TALL_*, CLG_FUSED_*, CLG_SMALL_*;
 * pick_geometry_h ()).
 *
 * Launch overhead: the per-level Jacobi sequence touches plan-owned
 * buffers only, so the plan captures it once into a CUDA graph (on a
 * private capture stream) keyed by level size, iteration count and α, and
 * replays it with one cudaGraphLaunch per level, as cuda/hs.cu does.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/clg.h"
#include "cuda/cuda-internal.h"
#include "cuda/level-graph.h"
#include "cuda/warp.h"

#include <cuda_fp16.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/border.h"
#include "common/gaussian.h"

/* K_ρ radius ⌈4ρ⌉ as cf_gaussian_blur; its cap of 255 is never reached
 * for ρ <= 50, whose radius is at most 200. */
#define CLG_BLUR_RADIUS_CAP 255
#define CLG_MAX_RADIUS 200
#define CLG_MAX_TAPS (2 * CLG_MAX_RADIUS + 1)

/* Sweeps per FUSED launch (K), = the halo width of its regions, in
 * cells: CF_CLG_FUSED_DEPTH_MIN .. CF_CLG_FUSED_DEPTH_MAX (cuda/clg.h).
 * Each region load costs ~28 B per region cell, i.e. 28 / (K × tile
 * share) B per output cell and sweep against SIMPLE's ~36 B; deeper
 * fusion saves traffic and launches but recomputes more halo. The paper
 * found 3 best on Xavier (Seznec et al. 2022); the default is measured
 * (docs/flow-speed.md). A count that is not a multiple of K costs one
 * shorter launch. */

/* FUSED geometry, the same for every depth: region RW x RH cells, blocks
 * of RW x BY threads, each thread R = RH / BY cells of one column; the
 * output tile is (RW − 2K) x (RH − 2K): 58 x 26 (74 % of the region) at
 * K = 3, 56 x 24 (66 %) at 4, 48 x 16 (37.5 %) at 8. Two fp32 (u, v)
 * buffers with padding: 2 x 34 x 66 x 8 B = 35.9 KB of static shared
 * memory, so two blocks (1024 threads) share an SM at <= 64 registers. A
 * 40-row region (R = 5) would keep 24 tile rows at K = 8 but spills 32 B
 * per thread under that register bound (ptxas, sm_90). */
#define CLG_FUSED_RW 64
#define CLG_FUSED_RH 32
#define CLG_FUSED_BY 8
#define CLG_FUSED_MIN_BLOCKS 2

/* fp16 FUSED geometries, picked per level (pick_geometry_h): the half2
 * double buffer takes half the shared memory of fp32's, so a region twice
 * as tall fits.
 *  tall:  64 x 64 cells, 64 x 16 threads (R = 4 rows each, the register
 *         budget of fp32's 64 x 8 blocks: <= 64 registers, one 1024-thread
 *         block per SM), 2 x 66 x 66 x 4 B = 34.8 KB; tile (64 − 2K)²
 *         (52 x 52, 66 %, at K = 6, against 52 x 20, 51 %, for 64 x 32);
 *  short: fp32's 64 x 32 cells, 64 x 8 threads, two blocks per SM,
 *         17.9 KB;
 *  small: 32 x 32 cells, 32 x 8 threads, four blocks per SM, 9.2 KB; tile
 *         (32 − 2K)² (16 x 16 at K = 8): coarse levels, where spreading a
 *         few thousand pixels over more SMs shortens each sweep although
 *         the halo costs more (as cuda/hs.cu's small geometry). */
#define CLG_TALL_RW 64
#define CLG_TALL_RH 64
#define CLG_TALL_BY 16
#define CLG_TALL_MIN_BLOCKS 1
#define CLG_SMALL_RW 32
#define CLG_SMALL_RH 32
#define CLG_SMALL_BY 8
#define CLG_SMALL_MIN_BLOCKS 4

/* 2-D launch shape of the per-pixel kernels */
#define CLG_BLOCK_X 32
#define CLG_BLOCK_Y 8

/* ---------------------------------------------------------------------
 * Argument structs
 * --------------------------------------------------------------------- */

/* K_ρ taps by value (kernel parameter space), centre at t[radius] */
struct clg_taps
{
  float t[CLG_MAX_TAPS];
};

/* The five tensor channels, in the order J11, J12, J22, J13, J23 */
struct clg_planes
{
  float *p[5];
  size_t pitch[5];              /* elements */
};

/* An fp32 increment field: two planes, one pitch (elements) */
struct clg_state
{
  float *u, *v;
  size_t pitch;
};

/* An fp16 increment field: (du, dv) of one pixel in one half2, pitch in
 * half2 elements (plan buffers only) */
struct clg_state_h
{
  __half2 *uv;
  size_t pitch;
};

/* ---------------------------------------------------------------------
 * Derivatives
 * --------------------------------------------------------------------- */

/** \brief f_x = (I0(x+1) − I0(x−1)) / 2, f_y likewise, indices clamped;
 *  f_t = I1w − I0 (twin of cf_clg_derivatives, full-pixel grid).
 *  \param[in] i0, i1w     frame t−1 and frame t warped by the flow
 *  \param[out] fx, fy, ft derivatives at every pixel */
__global__ static void
clg_derivatives_kernel (const float *__restrict__ i0, size_t p0,
    const float *__restrict__ i1w, size_t p1, int width, int height,
    float *__restrict__ fx, size_t px, float *__restrict__ fy, size_t py,
    float *__restrict__ ft, size_t pt)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const float *r0, *rm, *rp;

  if (x >= width || y >= height)
    return;
  r0 = i0 + (size_t) y * p0;
  rm = i0 + (size_t) max (y - 1, 0) * p0;
  rp = i0 + (size_t) min (y + 1, height - 1) * p0;
  fx[x + (size_t) y * px] = __fmul_rn (0.5f,
      __fsub_rn (r0[min (x + 1, width - 1)], r0[max (x - 1, 0)]));
  fy[x + (size_t) y * py] = __fmul_rn (0.5f, __fsub_rn (rp[x], rm[x]));
  ft[x + (size_t) y * pt] = __fsub_rn (i1w[x + (size_t) y * p1], r0[x]);
}

/* ---------------------------------------------------------------------
 * Structure tensor
 * --------------------------------------------------------------------- */

/** \brief The five products of J_0 = ∇₃f ∇₃fᵀ the system reads (eq. 10,
 *  Seznec et al. 2022), in channel order J11, J12, J22, J13, J23. */
static __device__ __forceinline__ void
clg_products (float gx, float gy, float gt, float p[5])
{
  p[0] = __fmul_rn (gx, gx);
  p[1] = __fmul_rn (gx, gy);
  p[2] = __fmul_rn (gy, gy);
  p[3] = __fmul_rn (gx, gt);
  p[4] = __fmul_rn (gy, gt);
}

/** \brief ρ = 0: J = J_0, the products straight into the channels.
 *  \param[in] fx, fy, ft  derivatives
 *  \param[out] j          the five channels */
__global__ static void
clg_products_kernel (const float *__restrict__ fx, size_t pfx,
    const float *__restrict__ fy, size_t pfy, const float *__restrict__ ft,
    size_t pft, int width, int height, clg_planes j)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float p[5];

  if (x >= width || y >= height)
    return;
  clg_products (fx[x + (size_t) y * pfx], fy[x + (size_t) y * pfy],
      ft[x + (size_t) y * pft], p);
#pragma unroll
  for (int c = 0; c < 5; c++)
    j.p[c][x + (size_t) y * j.pitch[c]] = p[c];
}

/** \brief Copy the taps from the launch parameters into shared memory
 *  (every thread of the block takes part; a barrier follows). */
static __device__ __forceinline__ void
clg_stage_taps (const clg_taps & taps, int radius, float *s_taps)
{
  int tid = threadIdx.x + threadIdx.y * blockDim.x;

  for (int i = tid; i <= 2 * radius; i += blockDim.x * blockDim.y)
    s_taps[i] = taps.t[i];
  __syncthreads ();
}

/** \brief x pass of K_ρ on the five products, all channels at once:
 *  out_c(x) = Σ_{k=−r..r} t_k J0_c(fold(x + k)), k ascending as
 *  blur_pass () of common/pyramid.c, reflecting border (cf_border_fold).
 *  \param[in] fx, fy, ft  derivatives
 *  \param taps, radius    K_ρ, 2 radius + 1 taps
 *  \param[out] tmp        the five x-smoothed channels */
__global__ static void
clg_tensor_x_kernel (const float *__restrict__ fx, size_t pfx,
    const float *__restrict__ fy, size_t pfy, const float *__restrict__ ft,
    size_t pft, int width, int height, clg_taps taps, int radius,
    clg_planes tmp)
{
  __shared__ float s_taps[CLG_MAX_TAPS];
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const float *gx, *gy, *gt;
  float s[5] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
  bool inside;

  clg_stage_taps (taps, radius, s_taps);
  if (x >= width || y >= height)
    return;
  gx = fx + (size_t) y * pfx;
  gy = fy + (size_t) y * pfy;
  gt = ft + (size_t) y * pft;
  inside = x - radius >= 0 && x + radius < width;
  for (int k = -radius; k <= radius; k++) {
    int sx = inside ? x + k : cf_border_fold (x + k, width,
        CF_BORDER_REFLECT);
    float t = s_taps[k + radius], p[5];

    clg_products (gx[sx], gy[sx], gt[sx], p);
#pragma unroll
    for (int c = 0; c < 5; c++)
      s[c] = __fadd_rn (s[c], __fmul_rn (t, p[c]));
  }
#pragma unroll
  for (int c = 0; c < 5; c++)
    tmp.p[c][x + (size_t) y * tmp.pitch[c]] = s[c];
}

/** \brief y pass of K_ρ, all five channels at once, reflecting border,
 *  taps k ascending (second half of cf_gaussian_blur).
 *  \param[in] tmp   the x-smoothed channels
 *  \param[out] j    J_ρ (other planes than @tmp) */
__global__ static void
clg_tensor_y_kernel (clg_planes tmp, int width, int height, clg_taps taps,
    int radius, clg_planes j)
{
  __shared__ float s_taps[CLG_MAX_TAPS];
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float s[5] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
  bool inside;

  clg_stage_taps (taps, radius, s_taps);
  if (x >= width || y >= height)
    return;
  inside = y - radius >= 0 && y + radius < height;
  for (int k = -radius; k <= radius; k++) {
    int sy = inside ? y + k : cf_border_fold (y + k, height,
        CF_BORDER_REFLECT);
    float t = s_taps[k + radius];

#pragma unroll
    for (int c = 0; c < 5; c++)
      s[c] = __fadd_rn (s[c], __fmul_rn (t,
              __ldg (tmp.p[c] + x + (size_t) sy * tmp.pitch[c])));
  }
#pragma unroll
  for (int c = 0; c < 5; c++)
    j.p[c][x + (size_t) y * j.pitch[c]] = s[c];
}

/* ---------------------------------------------------------------------
 * The per-pixel Jacobi update, shared by SIMPLE and FUSED
 * --------------------------------------------------------------------- */

/* One pixel's 2 x 2 system: a = J11 + α|N|, e = J22 + α|N|, c = J12,
 * and the right-hand-side terms J13, J23 (det = a e − c² is recomputed
 * per sweep: three operations, and a register less per cell keeps FUSED
 * free of spills) */
struct clg_coef
{
  float a, e, c, j13, j23;
};

/** \brief The coefficients of pixel (x, y) of a width x height level, in
 *  the CPU's order (cf_clg_jacobi); |N| = in-image 4-neighbours. */
static __device__ __forceinline__ clg_coef
clg_coefs_at (const clg_planes & j, int x, int y, int width, int height,
    float alpha)
{
  int n = (x > 0) + (x + 1 < width) + (y > 0) + (y + 1 < height);
  float an = __fmul_rn (alpha, (float) n);
  clg_coef k;

  k.a = __fadd_rn (__ldg (j.p[0] + x + (size_t) y * j.pitch[0]), an);
  k.e = __fadd_rn (__ldg (j.p[2] + x + (size_t) y * j.pitch[2]), an);
  k.c = __ldg (j.p[1] + x + (size_t) y * j.pitch[1]);
  k.j13 = __ldg (j.p[3] + x + (size_t) y * j.pitch[3]);
  k.j23 = __ldg (j.p[4] + x + (size_t) y * j.pitch[4]);
  return k;
}

/** \brief Pointwise-coupled Jacobi (eq. 20 of Seznec et al. 2022; sign as
 *  in common/clg.h) by Cramer's rule: r_u = α S_u − J13, r_v = α S_v − J23,
 *  d' = ((e r_u − c r_v) / det, (a r_v − c r_u) / det); 0 when det <= 0.
 *  \param su, sv  sums of the increments over N(p), left, right, up, down */
static __device__ __forceinline__ float2
clg_update (float su, float sv, const clg_coef & k, float alpha)
{
  float det = __fsub_rn (__fmul_rn (k.a, k.e), __fmul_rn (k.c, k.c));
  float ru = __fsub_rn (__fmul_rn (alpha, su), k.j13);
  float rv = __fsub_rn (__fmul_rn (alpha, sv), k.j23);

  if (!(det > 0.0f))
    return make_float2 (0.0f, 0.0f);
  return make_float2 (__fdiv_rn (__fsub_rn (__fmul_rn (k.e, ru),
              __fmul_rn (k.c, rv)), det),
      __fdiv_rn (__fsub_rn (__fmul_rn (k.a, rv), __fmul_rn (k.c, ru)),
          det));
}

/* ---------------------------------------------------------------------
 * fp16 state: the per-pixel update on half2 increments
 * --------------------------------------------------------------------- */

/* The fp16 update's coefficients (fp32), from those of clg_coef once per
 * launch: with det = a e − c², s = α / det,
 *   d'_u = p S_u + m S_v + b_u,  d'_v = q S_v + m S_u + b_v,
 *   p = s e, q = s a, m = −s c, b_u = (c J23 − e J13) / det,
 *   b_v = (c J13 − a J23) / det
 * — Cramer's rule of clg_update () expanded, so a sweep costs four FMAs
 * and no division; all five are 0 when det <= 0. */
struct clg_coef_h
{
  float p, q, m, bu, bv;
};

/** \brief The fp16 coefficients of pixel (x, y) (fp32 arithmetic, every
 *  operation rounded on its own so SIMPLE and FUSED get the same bits). */
static __device__ __forceinline__ clg_coef_h
clg_coefs_h_at (const clg_planes & j, int x, int y, int width, int height,
    float alpha)
{
  clg_coef k = clg_coefs_at (j, x, y, width, height, alpha);
  float det = __fsub_rn (__fmul_rn (k.a, k.e), __fmul_rn (k.c, k.c));
  clg_coef_h h;

  if (!(det > 0.0f)) {
    h.p = h.q = h.m = h.bu = h.bv = 0.0f;
    return h;
  }
  {
    float s = __fdiv_rn (alpha, det);

    h.p = __fmul_rn (s, k.e);
    h.q = __fmul_rn (s, k.a);
    h.m = -__fmul_rn (s, k.c);
    h.bu = __fdiv_rn (__fsub_rn (__fmul_rn (k.c, k.j23), __fmul_rn (k.e,
                k.j13)), det);
    h.bv = __fdiv_rn (__fsub_rn (__fmul_rn (k.c, k.j13), __fmul_rn (k.a,
                k.j23)), det);
  }
  return h;
}

/* State traits: how SIMPLE and FUSED store, load and update one pixel's
 * increment. Both kernels pass +0 for a neighbour outside the image (SIMPLE
 * explicitly, FUSED through its ghosts), so for either precision they run
 * the very same operations on the same operands. */
template < typename S > struct clg_traits;

template <> struct clg_traits <clg_state > : cf_cells_f32 <clg_state >
{
  typedef clg_coef coef;

  static __device__ __forceinline__ coef no_coefs ()
  {
    coef k;
    k.a = k.e = k.c = k.j13 = k.j23 = 0.0f;
    return k;
  }
  static __device__ __forceinline__ coef coefs_at (const clg_planes & j,
      int x, int y, int width, int height, float alpha)
  {
    return clg_coefs_at (j, x, y, width, height, alpha);
  }
  /** \brief Left, right, up, down from +0, as neighbour_sums () of
   *  common/clg.c: a missing neighbour adds +0 to a sum that is never -0
   *  (it starts at +0), so the CPU's bits. */
  static __device__ __forceinline__ cell update (cell l, cell r, cell u,
      cell d, const coef & k, float alpha)
  {
    float su = __fadd_rn (__fadd_rn (__fadd_rn (__fadd_rn (0.0f, l.x), r.x),
            u.x), d.x);
    float sv = __fadd_rn (__fadd_rn (__fadd_rn (__fadd_rn (0.0f, l.y), r.y),
            u.y), d.y);
    return clg_update (su, sv, k, alpha);
  }
};

template <> struct clg_traits <clg_state_h > : cf_cells_h2 <clg_state_h >
{
  typedef clg_coef_h coef;

  static __device__ __forceinline__ coef no_coefs ()
  {
    coef k;
    k.p = k.q = k.m = k.bu = k.bv = 0.0f;
    return k;
  }
  static __device__ __forceinline__ coef coefs_at (const clg_planes & j,
      int x, int y, int width, int height, float alpha)
  {
    return clg_coefs_h_at (j, x, y, width, height, alpha);
  }
  /** \brief (S_u, S_v) = ((l + r) + u) + d in half2 (HADD2, both at
   *  once), then the update in fp32, rounded to half2 once. */
  static __device__ __forceinline__ cell update (cell l, cell r, cell u,
      cell d, const coef & k, float alpha)
  {
    float2 s = __half22float2 (__hadd2 (__hadd2 (__hadd2 (l, r), u), d));
    float du = __fmaf_rn (k.p, s.x, __fmaf_rn (k.m, s.y, k.bu));
    float dv = __fmaf_rn (k.q, s.y, __fmaf_rn (k.m, s.x, k.bv));

    (void) alpha;
    return __floats2half2_rn (du, dv);
  }
};

/* ---------------------------------------------------------------------
 * Jacobi, SIMPLE: one sweep per launch
 * --------------------------------------------------------------------- */

/** \brief One sweep (fp32: twin of cf_clg_jacobi): neighbour sums over the
 *  in-image 4-neighbours, left, right, up, down, +0 for the others.
 *  \param j        J_ρ
 *  \param zero_in  1: the input increments are all 0 (first sweep of a
 *                  level; @in is not read)
 *  \param in       increments of sweep n
 *  \param out      increments of sweep n + 1 (other planes) */
template < typename S > __global__ static void
clg_jacobi_simple_kernel (clg_planes j, int width, int height, float alpha,
    int zero_in, S in, S out)
{
  typedef clg_traits < S > T;
  typedef typename T::cell cell;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  cell l = T::zero (), r = T::zero (), u = T::zero (), d = T::zero ();

  if (x >= width || y >= height)
    return;
  if (!zero_in) {
    size_t i = x + (size_t) y * in.pitch;

    if (x > 0)
      l = T::load (in, i - 1);
    if (x + 1 < width)
      r = T::load (in, i + 1);
    if (y > 0)
      u = T::load (in, i - in.pitch);
    if (y + 1 < height)
      d = T::load (in, i + in.pitch);
  }
  T::store (out, x + (size_t) y * out.pitch, T::update (l, r, u, d,
          T::coefs_at (j, x, y, width, height, alpha), alpha));
}

/* ---------------------------------------------------------------------
 * Jacobi, FUSED: up to K sweeps per launch on private regions
 * --------------------------------------------------------------------- */

/** \brief @sweeps (1..K) sweeps on a block-private region: output tile
 *  TW x TH at blockIdx * (TW, TH), region = tile + K halo cells on each
 *  side. Thread (c, ty) owns region column c, rows ty R .. ty R + R − 1;
 *  region cell (r, c) lives at cells[b][r + 1][c + 1]. Only image cells
 *  are ever written, so ghosts and padding stay +0 in both buffers. Every
 *  thread passes every barrier (block-uniform trip counts).
 *  \param j, alpha, zero_in, in, out  as clg_jacobi_simple_kernel
 *  \param sweeps  1 .. K */
template < typename S, int K, int RW, int RH, int BY, int MIN_BLOCKS >
__global__ static void __launch_bounds__ (RW * BY, MIN_BLOCKS)
clg_jacobi_fused_kernel (clg_planes j, int width, int height, float alpha,
    int sweeps, int zero_in, S in, S out)
{
  typedef clg_traits < S > T;
  typedef typename T::cell cell;
  const int TW = RW - 2 * K, TH = RH - 2 * K;
  const int R = RH / BY;        /* rows per thread */
  static_assert (RH % BY == 0, "thread rows must divide the region");
  static_assert (R <= 32, "one bit per row in in_image");
  static_assert (TW >= 16 && TH >= 16, "the tile must keep most rows");
  static_assert (2 * (RH + 2) * (RW + 2) * sizeof (cell) <= 48 * 1024,
      "static shared memory limit");
  __shared__ cell cells[2][RH + 2][RW + 2];

  const int c = threadIdx.x;
  const int r0 = threadIdx.y * R;
  /* region origin in the image; negative at the top/left */
  const int gx0 = (int) blockIdx.x * TW - K;
  const int gy0 = (int) blockIdx.y * TH - K;
  const int x = gx0 + c;
  const bool col_in = x >= 0 && x < width;
  const bool col_tile = c >= K && c < K + TW;
  unsigned in_image = 0;        /* bit q: cell (r0 + q, c) is an image cell */
  typename T::coef k[R];

  /* +0 everywhere first: ghosts, padding and out-of-image cells of both
   * buffers keep it */
  for (int i = threadIdx.x + threadIdx.y * RW;
      i < 2 * (RH + 2) * (RW + 2); i += RW * BY)
    (&cells[0][0][0])[i] = T::zero ();
  __syncthreads ();

  /* coefficients into registers, increments into buffer 0 */
#pragma unroll
  for (int q = 0; q < R; q++) {
    int y = gy0 + r0 + q;

    k[q] = T::no_coefs ();
    if (col_in && y >= 0 && y < height) {
      in_image |= 1u << q;
      k[q] = T::coefs_at (j, x, y, width, height, alpha);
      if (!zero_in)
        cells[0][r0 + q + 1][c + 1] = T::load (in, x + (size_t) y * in.pitch);
    }
  }
  __syncthreads ();

  for (int sweep = 0; sweep < sweeps; sweep++) {
    const cell (*src)[RW + 2] = cells[sweep & 1];
    cell (*dst)[RW + 2] = cells[(sweep + 1) & 1];
    const bool last = sweep + 1 == sweeps;
    /* column window: the row above this thread's current cell, the cell
     * itself (the next row's "above") */
    cell up = src[r0][c + 1], mid = src[r0 + 1][c + 1];

#pragma unroll
    for (int q = 0; q < R; q++) {
      const int r = r0 + q + 1;   /* padded row of this cell */
      cell down = src[r + 1][c + 1];

      if (in_image & (1u << q)) {
        /* left, right, up, down; ghosts are +0, as SIMPLE's missing
         * neighbours */
        cell d = T::update (src[r][c], src[r][c + 2], up, down, k[q], alpha);

        if (!last) {
          dst[r][c + 1] = d;
        } else if (col_tile && r0 + q >= K && r0 + q < K + TH) {
          T::store (out, x + (size_t) (gy0 + r0 + q) * out.pitch, d);
        }
      }
      up = mid;
      mid = down;
    }
    /* block-uniform: every thread has read sweep n before anyone reads
     * sweep n + 1, and nobody writes the buffer being read */
    if (!last)
      __syncthreads ();
  }
}

/* ---------------------------------------------------------------------
 * Add increment
 * --------------------------------------------------------------------- */

/** \brief u_out = u + d per pixel (twin of cf_clg_add_increment); @u_out
 *  may be @u (each thread reads and writes its own pixel only). */
__global__ static void
clg_add_increment_kernel (const float *uu, const float *uv, size_t pu,
    const float *__restrict__ du, const float *__restrict__ dv, size_t pd,
    int width, int height, float *ou, float *ov, size_t po)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float a, b;

  if (x >= width || y >= height)
    return;
  a = __fadd_rn (uu[x + (size_t) y * pu], du[x + (size_t) y * pd]);
  b = __fadd_rn (uv[x + (size_t) y * pu], dv[x + (size_t) y * pd]);
  ou[x + (size_t) y * po] = a;
  ov[x + (size_t) y * po] = b;
}

/** \brief u_out = u + d with d a half2 increment (fp16 plans), the sum
 *  in fp32; @u_out may be @u. */
__global__ static void
clg_add_increment_h_kernel (const float *uu, const float *uv, size_t pu,
    const __half2 * __restrict__ d, size_t pd, int width, int height,
    float *ou, float *ov, size_t po)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float2 f;
  float a, b;

  if (x >= width || y >= height)
    return;
  f = __half22float2 (d[x + (size_t) y * pd]);
  a = __fadd_rn (uu[x + (size_t) y * pu], f.x);
  b = __fadd_rn (uv[x + (size_t) y * pu], f.y);
  ou[x + (size_t) y * po] = a;
  ov[x + (size_t) y * po] = b;
}

/* ---------------------------------------------------------------------
 * Launchers
 * --------------------------------------------------------------------- */

static dim3
pixel_grid (int width, int height)
{
  return dim3 (cf_div_up (width, CLG_BLOCK_X), cf_div_up (height,
          CLG_BLOCK_Y));
}

static int
same_size (const cf_cuda_image * a, const cf_cuda_image * b)
{
  return a->width == b->width && a->height == b->height;
}

static int
kernel_is_valid (cf_clg_kernel kernel)
{
  return kernel == CF_CLG_KERNEL_AUTO || kernel == CF_CLG_KERNEL_SIMPLE ||
      kernel == CF_CLG_KERNEL_FUSED;
}

static int
depth_is_valid (int depth)
{
  return depth == 0 || (depth >= CF_CLG_FUSED_DEPTH_MIN &&
      depth <= CF_CLG_FUSED_DEPTH_MAX);
}

static int
resolve_depth (int depth)
{
  return depth == 0 ? CF_CLG_FUSED_DEPTH_DEFAULT : depth;
}

/* A plan's depth: 0 is the default of its precision */
static int
plan_depth (cf_precision precision, int depth)
{
  if (depth == 0 && precision == CF_PRECISION_FP16)
    return CF_CLG_FUSED_DEPTH_DEFAULT_FP16;
  return resolve_depth (depth);
}

static cf_clg_kernel
resolve_kernel (cf_clg_kernel kernel)
{
  return kernel == CF_CLG_KERNEL_SIMPLE ? CF_CLG_KERNEL_SIMPLE :
      CF_CLG_KERNEL_FUSED;
}

/* The five channels of @t, in kernel order, or 0 when one is not a valid
 * plane of @like's size. */
static int
tensor_planes (const cf_cuda_clg_tensor * t, const cf_cuda_image * like,
    clg_planes * planes)
{
  const cf_cuda_image *ch[5];

  if (t == NULL)
    return 0;
  ch[0] = &t->j11;
  ch[1] = &t->j12;
  ch[2] = &t->j22;
  ch[3] = &t->j13;
  ch[4] = &t->j23;
  for (int c = 0; c < 5; c++) {
    if (!cf_cuda_image_is_valid (ch[c]) || !same_size (ch[c], like))
      return 0;
    planes->p[c] = ch[c]->data;
    planes->pitch[c] = ch[c]->pitch;
  }
  return 1;
}

/* 1 when no two of the @n planes start at the same address. */
static int
all_distinct (const float *const *p, int n)
{
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      if (p[a] == p[b])
        return 0;
  return 1;
}

/* Radius and taps of K_ρ exactly as cf_gaussian_blur (ρ > 0). */
static cf_status
make_taps (float rho, clg_taps * taps, int *radius)
{
  int r = (int) ceilf (4.0f * rho);

  if (r > CLG_BLUR_RADIUS_CAP)
    r = CLG_BLUR_RADIUS_CAP;
  if (r > CLG_MAX_RADIUS)
    return CF_ERROR_INVALID;
  *radius = r;
  return cf_gaussian_taps (rho, r, taps->t);
}

/* J from the derivatives: the products, smoothed when @taps is not NULL. */
static cf_status
enqueue_tensor (const cf_cuda_image * fx, const cf_cuda_image * fy,
    const cf_cuda_image * ft, const clg_taps * taps, int radius,
    const clg_planes & tmp, const clg_planes & j, cudaStream_t stream)
{
  cf_status status = CF_OK;
  dim3 grid = pixel_grid (fx->width, fx->height);
  dim3 block (CLG_BLOCK_X, CLG_BLOCK_Y);

  if (taps == NULL) {
    clg_products_kernel <<< grid, block, 0, stream >>> (fx->data, fx->pitch,
        fy->data, fy->pitch, ft->data, ft->pitch, fx->width, fx->height, j);
    CF_CUDA_TRY_LAUNCH ();
  } else {
    clg_tensor_x_kernel <<< grid, block, 0, stream >>> (fx->data, fx->pitch,
        fy->data, fy->pitch, ft->data, ft->pitch, fx->width, fx->height,
        *taps, radius, tmp);
    CF_CUDA_TRY_LAUNCH ();
    clg_tensor_y_kernel <<< grid, block, 0, stream >>> (tmp, fx->width,
        fx->height, *taps, radius, j);
    CF_CUDA_TRY_LAUNCH ();
  }
out:
  return status;
}

/* FUSED geometries: 0 fp32's, 1 .. 3 fp16's tall, short and small */
enum
{
  CLG_GEOM_F32 = 0,
  CLG_GEOM_TALL,
  CLG_GEOM_SHORT,
  CLG_GEOM_SMALL
};

template < int G > struct clg_geometry;

template <> struct clg_geometry <CLG_GEOM_F32 >
{
  enum
  { RW = CLG_FUSED_RW, RH = CLG_FUSED_RH, BY = CLG_FUSED_BY,
    MIN_BLOCKS = CLG_FUSED_MIN_BLOCKS
  };
};

template <> struct clg_geometry <CLG_GEOM_TALL >
{
  enum
  { RW = CLG_TALL_RW, RH = CLG_TALL_RH, BY = CLG_TALL_BY,
    MIN_BLOCKS = CLG_TALL_MIN_BLOCKS
  };
};

template <> struct clg_geometry <CLG_GEOM_SHORT >
{
  enum
  { RW = CLG_FUSED_RW, RH = CLG_FUSED_RH, BY = CLG_FUSED_BY,
    MIN_BLOCKS = CLG_FUSED_MIN_BLOCKS
  };
};

template <> struct clg_geometry <CLG_GEOM_SMALL >
{
  enum
  { RW = CLG_SMALL_RW, RH = CLG_SMALL_RH, BY = CLG_SMALL_BY,
    MIN_BLOCKS = CLG_SMALL_MIN_BLOCKS
  };
};

/* Regions of cells on the busiest SM when a width x height level runs
 * geometry @G at depth @depth on @n_sm SMs: ceil(blocks / SMs) regions. */
template < int G > static long
geometry_load (int width, int height, int depth, int n_sm)
{
  typedef clg_geometry < G > g;
  long blocks = (long) cf_div_up (width, g::RW - 2 * depth) *
      cf_div_up (height, g::RH - 2 * depth);

  return (blocks + n_sm - 1) / n_sm * (long) (g::RW * g::RH);
}

/* The fp16 geometry of a width x height level: the one whose busiest SM
 * holds the fewest cells (a first-order model, per-sweep time of one SM ~
 * cells it holds, as cuda/hs.cu's hs_fused_pick_small); ties go to the
 * larger regions, which waste less on halos. On 132 SMs at K = 8:
 * 1920x1080's levels tall, tall, tall, 64 x 32; 640x512's tall, 64 x 32,
 * small, small (faster than 64 x 64 on every level: measured in
 * docs/flow-speed.md). The results do not depend on
 * the choice. */
static int
pick_geometry_h (int width, int height, int depth, int n_sm)
{
  long tall, shrt, small;

  if (n_sm < 1)
    n_sm = 1;
  tall = geometry_load < CLG_GEOM_TALL > (width, height, depth, n_sm);
  shrt = geometry_load < CLG_GEOM_SHORT > (width, height, depth, n_sm);
  small = geometry_load < CLG_GEOM_SMALL > (width, height, depth, n_sm);
  if (tall <= shrt && tall <= small)
    return CLG_GEOM_TALL;
  return shrt <= small ? CLG_GEOM_SHORT : CLG_GEOM_SMALL;
}

/* One FUSED launch of geometry G and depth K (1 <= @sweeps <= K). */
template < typename S, int G, int K > static cf_status
launch_fused_k (const clg_planes & j, int width, int height, float alpha,
    int sweeps, int zero_in, const S & in, const S & out,
    cudaStream_t stream)
{
  typedef clg_geometry < G > g;
  cf_status status = CF_OK;
  dim3 grid (cf_div_up (width, g::RW - 2 * K), cf_div_up (height,
          g::RH - 2 * K));

  clg_jacobi_fused_kernel < S, K, g::RW, g::RH, g::BY, g::MIN_BLOCKS >
      <<< grid, dim3 (g::RW, g::BY), 0, stream >>> (j, width, height, alpha,
      sweeps, zero_in, in, out);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* @depth: CF_CLG_FUSED_DEPTH_MIN .. CF_CLG_FUSED_DEPTH_MAX (resolved) */
template < typename S, int G > static cf_status
launch_fused_g (const clg_planes & j, int width, int height, float alpha,
    int depth, int sweeps, int zero_in, const S & in, const S & out,
    cudaStream_t stream)
{
  switch (depth) {
    case 3:
      return launch_fused_k < S, G, 3 > (j, width, height, alpha, sweeps,
          zero_in, in, out, stream);
    case 4:
      return launch_fused_k < S, G, 4 > (j, width, height, alpha, sweeps,
          zero_in, in, out, stream);
    case 5:
      return launch_fused_k < S, G, 5 > (j, width, height, alpha, sweeps,
          zero_in, in, out, stream);
    case 6:
      return launch_fused_k < S, G, 6 > (j, width, height, alpha, sweeps,
          zero_in, in, out, stream);
    case 7:
      return launch_fused_k < S, G, 7 > (j, width, height, alpha, sweeps,
          zero_in, in, out, stream);
    case 8:
      return launch_fused_k < S, G, 8 > (j, width, height, alpha, sweeps,
          zero_in, in, out, stream);
    default:
      return CF_ERROR_INVALID;
  }
}

/* fp32: the one geometry */
static cf_status
launch_fused (const clg_planes & j, int width, int height, float alpha,
    int geometry, int depth, int sweeps, int zero_in, const clg_state & in,
    const clg_state & out, cudaStream_t stream)
{
  (void) geometry;
  return launch_fused_g < clg_state, CLG_GEOM_F32 > (j, width, height, alpha,
      depth, sweeps, zero_in, in, out, stream);
}

/* fp16: @geometry from pick_geometry_h () */
static cf_status
launch_fused (const clg_planes & j, int width, int height, float alpha,
    int geometry, int depth, int sweeps, int zero_in, const clg_state_h & in,
    const clg_state_h & out, cudaStream_t stream)
{
  switch (geometry) {
    case CLG_GEOM_TALL:
      return launch_fused_g < clg_state_h, CLG_GEOM_TALL > (j, width, height,
          alpha, depth, sweeps, zero_in, in, out, stream);
    case CLG_GEOM_SHORT:
      return launch_fused_g < clg_state_h, CLG_GEOM_SHORT > (j, width,
          height, alpha, depth, sweeps, zero_in, in, out, stream);
    case CLG_GEOM_SMALL:
      return launch_fused_g < clg_state_h, CLG_GEOM_SMALL > (j, width,
          height, alpha, depth, sweeps, zero_in, in, out, stream);
    default:
      return CF_ERROR_INVALID;
  }
}

static int
geometry_for (const clg_state &, int, int, int, int)
{
  return CLG_GEOM_F32;
}

static int
geometry_for (const clg_state_h &, int width, int height, int depth,
    int n_sm)
{
  return pick_geometry_h (width, height, depth, n_sm);
}

/* Enqueue @iterations (>= 1) sweeps ping-ponging between state[0] (input;
 * all zero when @zero_in) and state[1], FUSED ones @depth (resolved) per
 * launch (fp16: in the geometry picked for @n_sm SMs); *result = index of
 * the buffer holding the last sweep. */
template < typename S > static cf_status
enqueue_iterations (const clg_planes & j, int width, int height,
    float alpha, int iterations, cf_clg_kernel kernel, int depth, int n_sm,
    int zero_in, const S state[2], int *result, cudaStream_t stream)
{
  cf_status status = CF_OK;
  int cur = 0;
  int geometry = geometry_for (state[0], width, height, depth, n_sm);

  if (kernel == CF_CLG_KERNEL_SIMPLE) {
    for (int n = 0; n < iterations; n++) {
      clg_jacobi_simple_kernel < S > <<< pixel_grid (width, height),
          dim3 (CLG_BLOCK_X, CLG_BLOCK_Y), 0, stream >>> (j, width, height,
          alpha, zero_in && n == 0, state[cur], state[1 - cur]);
      CF_CUDA_TRY_LAUNCH ();
      cur = 1 - cur;
    }
  } else {
    int first = zero_in;

    for (int left = iterations; left > 0; left -= depth) {
      int sweeps = left < depth ? left : depth;

      status = launch_fused (j, width, height, alpha, geometry, depth,
          sweeps, first, state[cur], state[1 - cur], stream);
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

static clg_state
state_of (const cf_cuda_flow * f)
{
  clg_state s;

  s.u = f->u;
  s.v = f->v;
  s.pitch = f->pitch;
  return s;
}

/* ---------------------------------------------------------------------
 * Single steps
 * --------------------------------------------------------------------- */

extern "C" cf_status
cf_cuda_clg_derivatives (const cf_cuda_image * i0, const cf_cuda_image * i1w,
    cf_cuda_image * fx, cf_cuda_image * fy, cf_cuda_image * ft,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_image_is_valid (i0) || !cf_cuda_image_is_valid (i1w) ||
      !cf_cuda_image_is_valid (fx) || !cf_cuda_image_is_valid (fy) ||
      !cf_cuda_image_is_valid (ft) || !same_size (i0, i1w) ||
      !same_size (i0, fx) || !same_size (i0, fy) || !same_size (i0, ft))
    return CF_ERROR_INVALID;
  clg_derivatives_kernel <<< pixel_grid (i0->width, i0->height),
      dim3 (CLG_BLOCK_X, CLG_BLOCK_Y), 0, stream >>> (i0->data, i0->pitch,
      i1w->data, i1w->pitch, i0->width, i0->height, fx->data, fx->pitch,
      fy->data, fy->pitch, ft->data, ft->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_clg_structure_tensor (const cf_cuda_image * fx,
    const cf_cuda_image * fy, const cf_cuda_image * ft, float rho,
    cf_cuda_clg_tensor * tmp, cf_cuda_clg_tensor * j, cudaStream_t stream)
{
  clg_planes tp, jp;
  const float *p[13];
  int n = 0, radius = 0;
  clg_taps taps;
  cf_status status;

  if (!cf_cuda_image_is_valid (fx) || !cf_cuda_image_is_valid (fy) ||
      !cf_cuda_image_is_valid (ft) || !same_size (fx, fy) ||
      !same_size (fx, ft) || !tensor_planes (j, fx, &jp) || !(rho >= 0.0f) ||
      !((double) rho <= CF_CLG_RHO_MAX))
    return CF_ERROR_INVALID;
  /* outputs must not overlap the inputs or each other */
  p[n++] = fx->data;
  p[n++] = fy->data;
  p[n++] = ft->data;
  for (int c = 0; c < 5; c++)
    p[n++] = jp.p[c];
  if (rho > 0.0f) {
    if (!tensor_planes (tmp, fx, &tp))
      return CF_ERROR_INVALID;
    for (int c = 0; c < 5; c++)
      p[n++] = tp.p[c];
  } else {
    memset (&tp, 0, sizeof (tp));
  }
  if (!all_distinct (p, n))
    return CF_ERROR_INVALID;
  if (rho == 0.0f)
    return enqueue_tensor (fx, fy, ft, NULL, 0, tp, jp, stream);
  status = make_taps (rho, &taps, &radius);
  if (status != CF_OK)
    return status;
  return enqueue_tensor (fx, fy, ft, &taps, radius, tp, jp, stream);
}

extern "C" cf_status
cf_cuda_clg_jacobi (const cf_cuda_clg_tensor * j, float alpha,
    int iterations, cf_clg_kernel kernel, int fused_depth, cf_cuda_flow * d,
    cf_cuda_flow * tmp_flow, cudaStream_t stream)
{
  clg_planes jp;
  clg_state state[2];
  cf_status status;
  int result = 0;

  if (j == NULL || !cf_cuda_image_is_valid (&j->j11) ||
      !tensor_planes (j, &j->j11, &jp) || !cf_cuda_flow_is_valid (d) ||
      !cf_cuda_flow_is_valid (tmp_flow) || d->width != j->j11.width ||
      d->height != j->j11.height || tmp_flow->width != d->width ||
      tmp_flow->height != d->height || d->u == tmp_flow->u ||
      d->v == tmp_flow->v || d->u == tmp_flow->v || d->v == tmp_flow->u ||
      d->u == d->v || tmp_flow->u == tmp_flow->v || iterations < 0 ||
      !(alpha > 0.0f) || !isfinite (alpha) || !kernel_is_valid (kernel) ||
      !depth_is_valid (fused_depth))
    return CF_ERROR_INVALID;
  if (iterations == 0)
    return CF_OK;
  state[0] = state_of (d);
  state[1] = state_of (tmp_flow);
  status = enqueue_iterations (jp, d->width, d->height, alpha, iterations,
      resolve_kernel (kernel), resolve_depth (fused_depth), 1, 0, state,
      &result, stream);
  if (result == 1) {
    cf_cuda_flow t = *d;
    *d = *tmp_flow;
    *tmp_flow = t;
  }
  return status;
}

extern "C" cf_status
cf_cuda_clg_add_increment (const cf_cuda_flow * u, const cf_cuda_flow * d,
    cf_cuda_flow * u_out, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_flow_is_valid (u) || !cf_cuda_flow_is_valid (d) ||
      !cf_cuda_flow_is_valid (u_out) || d->width != u->width ||
      d->height != u->height || u_out->width != u->width ||
      u_out->height != u->height)
    return CF_ERROR_INVALID;
  clg_add_increment_kernel <<< pixel_grid (u->width, u->height),
      dim3 (CLG_BLOCK_X, CLG_BLOCK_Y), 0, stream >>> (u->u, u->v, u->pitch,
      d->u, d->v, d->pitch, u->width, u->height, u_out->u, u_out->v,
      u_out->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* ---------------------------------------------------------------------
 * Plan
 * --------------------------------------------------------------------- */

struct cf_cuda_clg_plan
{
  int width, height;
  cf_precision precision;       /* of the increments d */
  cf_clg_kernel kernel;         /* SIMPLE or FUSED (AUTO resolved) */
  int depth;                    /* FUSED sweeps per launch (resolved) */
  int n_sm;                     /* SMs of the device (fp16 geometry) */

  cf_cuda_flow u;               /* flow entering the current level */
  cf_cuda_flow d[2];            /* fp32 increments, ping-pong (fp32) */
  __half2 *h[2];                /* fp16 increments, ping-pong (fp16) */
  size_t h_pitch;               /* half2 elements */
  cf_cuda_image i1w, fx, fy, ft;
  cf_cuda_clg_tensor tmp;       /* x-smoothed products */
  cf_cuda_clg_tensor j;         /* J_ρ */

  cudaStream_t capture_stream;  /* private: graphs are captured here */
  cf_level_graph graph[CF_PYRAMID_MAX_LEVELS];
};

static cf_cuda_image *
tensor_channel (cf_cuda_clg_tensor * t, int c)
{
  switch (c) {
    case 0:
      return &t->j11;
    case 1:
      return &t->j12;
    case 2:
      return &t->j22;
    case 3:
      return &t->j13;
    default:
      return &t->j23;
  }
}

extern "C" void
cf_cuda_clg_plan_free (cf_cuda_clg_plan * plan)
{
  if (plan == NULL)
    return;
  for (int l = 0; l < CF_PYRAMID_MAX_LEVELS; l++)
    cf_level_graph_reset (&plan->graph[l]);
  if (plan->capture_stream != NULL)
    cf_cuda_check (cudaStreamDestroy (plan->capture_stream));
  cf_cuda_flow_release (&plan->u);
  for (int l = 0; l < 2; l++) {
    cf_cuda_flow_release (&plan->d[l]);
    if (plan->h[l] != NULL)
      cf_cuda_check (cudaFree (plan->h[l]));
  }
  cf_cuda_image_release (&plan->i1w);
  cf_cuda_image_release (&plan->fx);
  cf_cuda_image_release (&plan->fy);
  cf_cuda_image_release (&plan->ft);
  for (int c = 0; c < 5; c++) {
    cf_cuda_image_release (tensor_channel (&plan->tmp, c));
    cf_cuda_image_release (tensor_channel (&plan->j, c));
  }
  free (plan);
}

extern "C" cf_status
cf_cuda_clg_plan_new (int width, int height, cf_precision precision,
    cf_clg_kernel kernel, cf_cuda_clg_plan ** plan_out)
{
  cf_status status = CF_OK;
  cf_cuda_clg_plan *plan = NULL;

  if (plan_out == NULL)
    return CF_ERROR_INVALID;
  *plan_out = NULL;
  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION ||
      height > CF_MAX_DIMENSION || !kernel_is_valid (kernel) ||
      (precision != CF_PRECISION_FP32 && precision != CF_PRECISION_FP16))
    return CF_ERROR_INVALID;
  plan = (cf_cuda_clg_plan *) calloc (1, sizeof (*plan));
  if (plan == NULL)
    return CF_ERROR_NO_MEMORY;
  plan->width = width;
  plan->height = height;
  plan->precision = precision;
  plan->kernel = resolve_kernel (kernel);
  plan->depth = plan_depth (precision, 0);
  if ((status = cf_cuda_sm_count (&plan->n_sm)) != CF_OK)
    goto out;

  for (int l = 0; l < 2; l++) {
    if (precision == CF_PRECISION_FP32) {
      if ((status = cf_cuda_flow_alloc (&plan->d[l], width, height)) != CF_OK)
        goto out;
    } else {
      void *p = NULL;
      size_t pitch = 0;

      CF_CUDA_TRY (cudaMallocPitch (&p, &pitch,
              (size_t) width * sizeof (__half2), (size_t) height));
      plan->h[l] = (__half2 *) p;
      plan->h_pitch = pitch / sizeof (__half2);
    }
  }
  if ((status = cf_cuda_flow_alloc (&plan->u, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1w, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->fx, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->fy, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->ft, width, height)) != CF_OK)
    goto out;
  for (int c = 0; c < 5; c++) {
    if ((status = cf_cuda_image_alloc (tensor_channel (&plan->tmp, c), width,
                height)) != CF_OK ||
        (status = cf_cuda_image_alloc (tensor_channel (&plan->j, c), width,
                height)) != CF_OK)
      goto out;
  }
  CF_CUDA_TRY (cudaStreamCreateWithFlags (&plan->capture_stream,
          cudaStreamNonBlocking));

out:
  if (status != CF_OK) {
    cf_cuda_clg_plan_free (plan);
    plan = NULL;
  }
  *plan_out = plan;
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

static cf_cuda_clg_tensor
tensor_view (const cf_cuda_clg_tensor * t, int width, int height)
{
  cf_cuda_clg_tensor view;

  view.j11 = image_view (&t->j11, width, height);
  view.j12 = image_view (&t->j12, width, height);
  view.j22 = image_view (&t->j22, width, height);
  view.j13 = image_view (&t->j13, width, height);
  view.j23 = image_view (&t->j23, width, height);
  return view;
}

/* The channels of @t in kernel order (J11, J12, J22, J13, J23). */
static clg_planes
planes_of (const cf_cuda_clg_tensor * t)
{
  clg_planes p;

  p.p[0] = t->j11.data;
  p.pitch[0] = t->j11.pitch;
  p.p[1] = t->j12.data;
  p.pitch[1] = t->j12.pitch;
  p.p[2] = t->j22.data;
  p.pitch[2] = t->j22.pitch;
  p.p[3] = t->j13.data;
  p.pitch[3] = t->j13.pitch;
  p.p[4] = t->j23.data;
  p.pitch[4] = t->j23.pitch;
  return p;
}

/* Enqueue one level's Jacobi sequence (d = 0, then @iterations >= 1
 * sweeps) for a width x height level on @stream, reading the plan's J. */
static cf_status
plan_enqueue_iterations (void *data, int width, int height, float alpha,
    int iterations, int *result, cudaStream_t stream)
{
  cf_cuda_clg_plan *plan = (cf_cuda_clg_plan *) data;

  if (plan->precision == CF_PRECISION_FP32) {
    clg_state s[2] = { state_of (&plan->d[0]), state_of (&plan->d[1]) };

    return enqueue_iterations (planes_of (&plan->j), width, height, alpha,
        iterations, plan->kernel, plan->depth, plan->n_sm, 1, s, result,
        stream);
  } else {
    clg_state_h s[2];

    for (int l = 0; l < 2; l++) {
      s[l].uv = plan->h[l];
      s[l].pitch = plan->h_pitch;
    }
    return enqueue_iterations (planes_of (&plan->j), width, height, alpha,
        iterations, plan->kernel, plan->depth, plan->n_sm, 1, s, result,
        stream);
  }
}

/* u_out = u + the plan's increment buffer @index (a level-sized view) */
static cf_status
plan_add_increment (cf_cuda_clg_plan * plan, int index,
    const cf_cuda_flow * u, cf_cuda_flow * u_out, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (plan->precision == CF_PRECISION_FP32) {
    cf_cuda_flow dl = cf_cuda_flow_view (&plan->d[index], u->width,
        u->height);
    return cf_cuda_clg_add_increment (u, &dl, u_out, stream);
  }
  clg_add_increment_h_kernel <<< pixel_grid (u->width, u->height),
      dim3 (CLG_BLOCK_X, CLG_BLOCK_Y), 0, stream >>> (u->u, u->v, u->pitch,
      plan->h[index], plan->h_pitch, u->width, u->height, u_out->u,
      u_out->v, u_out->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_clg_plan_set_fused_depth (cf_cuda_clg_plan * plan, int depth)
{
  cf_status status = CF_OK;

  if (plan == NULL || !depth_is_valid (depth))
    return CF_ERROR_INVALID;
  if (plan_depth (plan->precision, depth) == plan->depth)
    return CF_OK;
  plan->depth = plan_depth (plan->precision, depth);
  /* the captured sequences launch the old depth: capture anew (an exec
   * still in flight is freed when it completes) */
  for (int l = 0; l < CF_PYRAMID_MAX_LEVELS && status == CF_OK; l++)
    status = cf_level_graph_reset (&plan->graph[l]);
  return status;
}

/* Run the level's Jacobi sequence on @stream through its cached graph,
 * capturing it first when the key (size, iterations, α) changed. */
static cf_status
plan_run_iterations (cf_cuda_clg_plan * plan, int level, int width,
    int height, float alpha, int iterations, int *result, cudaStream_t stream)
{
  return cf_level_graph_run (&plan->graph[level], plan->capture_stream,
      plan_enqueue_iterations, plan, width, height, alpha, iterations, result,
      stream);
}

/* The pyramids and @flow suit a run of this plan: level 0 is exactly the
 * plan's size (a plan serves one frame size). */
static int
run_args_valid (const cf_cuda_clg_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_clg_params * params,
    const cf_cuda_flow * flow)
{
  if (plan == NULL || p0 == NULL || p1 == NULL ||
      !cf_clg_params_valid (params) ||
      !cf_cuda_flow_is_valid (flow) || p0->n_levels != p1->n_levels ||
      p0->n_levels < 1 || p0->n_levels > CF_PYRAMID_MAX_LEVELS ||
      flow->width != p0->level[0].width ||
      flow->height != p0->level[0].height || flow->width != plan->width ||
      flow->height != plan->height)
    return 0;
  for (int l = 0; l < p0->n_levels; l++) {
    const cf_cuda_image *a = &p0->level[l], *b = &p1->level[l];
    if (!cf_cuda_image_is_valid (a) || !cf_cuda_image_is_valid (b) ||
        !same_size (a, b) || a->width > plan->width || a->height > plan->height)
      return 0;
  }
  return 1;
}

extern "C" cf_status
cf_cuda_clg_plan_run (cf_cuda_clg_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_clg_params * params, int use_initial,
    cf_cuda_flow * flow, cudaStream_t stream)
{
  cf_status status = CF_OK;
  clg_taps taps;
  int radius = 0, smooth;

  if (!run_args_valid (plan, p0, p1, params, flow))
    return CF_ERROR_INVALID;
  /* the same K_ρ on every level (ρ in pixels of each level) */
  smooth = params->rho > 0.0f;
  if (smooth) {
    status = make_taps (params->rho, &taps, &radius);
    if (status != CF_OK)
      return status;
  }

  /* coarsest first; "higher level" in the paper = coarser */
  for (int l = p0->n_levels - 1; l >= 0; l--) {
    const cf_cuda_image *f0 = &p0->level[l], *f1 = &p1->level[l];
    int w = f0->width, h = f0->height, result = 0;
    int iterations = cf_clg_level_iterations (params, l);
    cf_cuda_flow ul = cf_cuda_flow_view (&plan->u, w, h);
    cf_cuda_flow out = cf_cuda_flow_view (flow, w, h);
    cf_cuda_image wl = image_view (&plan->i1w, w, h);
    cf_cuda_image xl = image_view (&plan->fx, w, h);
    cf_cuda_image yl = image_view (&plan->fy, w, h);
    cf_cuda_image tl = image_view (&plan->ft, w, h);
    cf_cuda_clg_tensor jl = tensor_view (&plan->j, w, h);

    /* the flow entering this level: warm start, zero, or the coarser
     * level's result (parked in `flow`) resampled (× size ratio) */
    if (l == p0->n_levels - 1) {
      if (use_initial)
        status = cf_cuda_flow_resample (flow, &ul, stream);
      else
        status = cf_cuda_flow_fill (&ul, 0.0f, 0.0f, stream);
    } else {
      cf_cuda_flow prev = cf_cuda_flow_view (flow, p0->level[l + 1].width,
          p0->level[l + 1].height);
      status = cf_cuda_flow_resample (&prev, &ul, stream);
    }

    /* one warp per level: I1w = I1(x + u), then f_x, f_y, f_t and J_ρ */
    if (status == CF_OK)
      status = cf_cuda_warp_bicubic (f1, &ul, CF_WARP_CLAMP, &wl, stream);
    if (status == CF_OK)
      status = cf_cuda_clg_derivatives (f0, &wl, &xl, &yl, &tl, stream);
    if (status == CF_OK)
      status = enqueue_tensor (&xl, &yl, &tl, smooth ? &taps : NULL, radius,
          planes_of (&plan->tmp), planes_of (&jl), stream);
    if (status != CF_OK)
      return status;

    /* the increment from zero (the first sweep reads no input); no sweep
     * leaves it zero */
    if (iterations > 0) {
      status = plan_run_iterations (plan, l, w, h, params->alpha, iterations,
          &result, stream);
    } else if (plan->precision == CF_PRECISION_FP32) {
      cf_cuda_flow d0 = cf_cuda_flow_view (&plan->d[0], w, h);
      status = cf_cuda_flow_fill (&d0, 0.0f, 0.0f, stream);
    } else {
      /* half +0 is all-zero bits */
      status = cf_cuda_check (cudaMemset2DAsync (plan->h[0],
              plan->h_pitch * sizeof (__half2), 0,
              (size_t) w * sizeof (__half2), (size_t) h, stream));
    }
    if (status != CF_OK)
      return status;

    /* this level's result, parked in `flow` for the next finer level */
    status = plan_add_increment (plan, result, &ul, &out, stream);
    if (status != CF_OK)
      return status;
  }
  return CF_OK;
}
