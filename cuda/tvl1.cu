/* gst-cudaflow — TV-L1 optical flow on the GPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Twin of common/tvl1.c (IPOL scheme, Sánchez et al. 2013): the same
 * pixel grid, the same borders, the same step order V, Div, U, fG, P, and
 * every per-pixel operation in the CPU's order. The arithmetic is spelled
 * with __fadd_rn / __fsub_rn / __fmul_rn / __fdiv_rn / __fsqrt_rn so nvcc
 * can neither contract it into FMAs nor approximate a division or a root:
 * the x86-64 reference is built without contraction, so each single step
 * gives the CPU's bits. The per-warp samples come from cf_cuda_warp_bicubic,
 * itself bit-equal to common/warp.c.
 *
 * Kernels, one thread per pixel, 32 x 8 blocks:
 *  - STEPS: one kernel per step, the single-step twins below (V; Div twice;
 *    U; fG twice; P twice), through the plan's v, div, du1, du2 planes.
 *  - FUSED: two kernels per iteration.
 *      U-kernel: TH from u and the warp constants, div p1 and div p2 from
 *        the west / north neighbours of p, u ← v + θ div, in place (a
 *        thread reads and writes only its own u; p is read-only here), and
 *        the block's share of Σ |Δu|².
 *      P-kernel: forward gradients of the new u from the east / south
 *        neighbours, then the P step on p in place (u is read-only here).
 *    Splitting at the two stencils is what lets both update in place: no
 *    kernel reads a neighbour of what it writes. The per-pixel functions
 *    are the ones STEPS uses, so the two paths are bit-identical.
 *  - BLOCKED (temporal blocking, ε = 0 only): one launch runs t <= T
 *    iterations of FUSED's U and P steps on a 64 x 32 or 64 x 64 tile in
 *    shared memory (u and both p fields, 24 B per cell; the warp constants
 *    stay in registers, each thread owning 2 x NY fixed cells). The tile
 *    is loaded with a halo of t on every side; step s of the launch
 *    computes U on tile cells [s+1, C−s) and P on [s+1, C−s−1) per axis
 *    (U reads p from the west / north, P reads u from the east / south,
 *    so each valid region loses one cell per side and iteration), leaving
 *    the (64 − 2t) x (8 NY − 2t) interior exact after t iterations; only
 *    the interior is written. Blocks overlap in their halos, so a launch
 *    reads one copy of u, p1, p2 and writes another (the plan swaps them
 *    after each launch). Image borders are the real ones: Div and fG take
 *    the pixel's image coordinates for their border branches apart from
 *    its cell in the tile, and never read outside the image, so cells
 *    outside it are neither loaded nor computed. The same per-pixel
 *    functions in the same order as FUSED: the same bits. With ε > 0 (a
 *    test after every iteration) it runs FUSED. The second copies are
 *    allocated by the first ε = 0 run.
 *  - AUTO = BLOCKED (so FUSED when ε > 0), T = 6, 64 x 32 tiles (fp16:
 *    T = 5, 64 x 32 tiles on 32 x 32 threads).
 *
 * fp16 (CF_PRECISION_FP16; half2 state as in Romera et al. 2021):
 * the solver state is half2 and each warp solves for its increment
 * du = u − u0 (u0: the flow entering the warp, fp32), which keeps half's
 * 11 significant bits on the part that changes (u itself has a 0.03 px
 * spacing at 32–64 px) and keeps the constants small: ρ = (I1w − I0) +
 * ∇I1w · du, so ρc needs no u0 term, and ∇u = ∇u0 + ∇du with ∇u0 a
 * per-warp constant. Pairs by component: du = (du1, du2), px = (p11, p21),
 * py = (p12, p22), so Div, fG, |∇u| (h2sqrt) and the P update are half2
 * operations on both flow components at once; the per-warp constants are
 * two 8-byte pairs per pixel, ((I1wx, I1wy), (g, I1w − I0)) and (∇x u0,
 * ∇y u0). TH and U are computed in fp32 from them (ρ needs a horizontal
 * sum, and the division −ρ/g is __fdividef) and rounded to half2 once. g is
 * guarded at CF_TVL1_GRAD_IS_ZERO_FP16 instead of 1e-10, which half cannot
 * hold. Range: intensities 0..255 (as the element feeds them) give g <=
 * 2 · 127.5² < 65504; |du| and |∇u| must stay below 65504, far beyond any
 * flow. fp16 has FUSED and BLOCKED kernels (no STEPS), each pair of which
 * shares its per-pixel functions, so BLOCKED and FUSED give the same bits
 * in fp16 too; they are not the fp32 bits. Per iteration FUSED moves 52 B
 * per pixel against fp32's 88, BLOCKED 40 B per launch against 64.
 * Around the iterations: one constants kernel per warp samples I1 and
 * forms ∇I1 at its taps (no gradient planes), BLOCKED's first launch of a
 * warp starts from du = 0 (and p = 0 on the level's first warp) without
 * reading them, and its last writes u0 + du (tvl1h_ends).
 *
 * ε stopping (IPOL: after every iteration, mean |u^{n+1} − u^n|² <= ε²,
 * and that iteration's fG and P still run — cf_tvl1_iteration does all
 * five steps before solve_level tests): every block of the U step writes
 * its partial sum (double, fixed tree order) to plan->partials; a reducer
 * (its own one-block kernel in STEPS, block (0, 0) of the P-kernel in
 * FUSED, same code) sums them in a fixed order, counts the iteration and,
 * when the mean is <= ε², sets control->stop = n + 1. Every kernel of
 * iteration m returns at once when stop > 0 and m >= stop, so the P step of
 * iteration n still runs and nothing after it does. The reduction is
 * deterministic (no atomics), so STEPS and FUSED stop at the same
 * iteration, run after run. The host launches CHECK_EVERY iterations, then
 * reads stop (one pinned 4-byte copy and a stream synchronisation) to
 * decide whether to launch more; ε = 0 launches max_iterations with no
 * check, no reduction and no synchronisation.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/tvl1.h"
#include "cuda/cuda-internal.h"
#include "cuda/warp.h"

#include <cuda_fp16.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 2-D launch shape of every kernel; the reducer relies on 256 threads
 * (8 warps) per block */
#define TVL1_BLOCK_X 32
#define TVL1_BLOCK_Y 8
#define TVL1_BLOCK_THREADS (TVL1_BLOCK_X * TVL1_BLOCK_Y)
#define TVL1_BLOCK_WARPS (TVL1_BLOCK_THREADS / 32)

/* Iterations launched between two looks at the stop flag: each look drains
 * the stream, each iteration launched after the stop costs two
 * early-returning launches (both measured in docs/flow-speed.md). */
#define TVL1_CHECK_EVERY 10

/* Per-run solver state on the device (one for the whole run: it is reset
 * per warp, and `iterations` accumulates over levels and warps). */
struct tvl1_control
{
  int stop;                     /* 0: running; n + 1: iteration n met ε */
  int pad;
  long long iterations;         /* iterations run with ε > 0 */
};

/* The per-warp constants as the V step reads them */
struct tvl1_consts
{
  const float *wx, *wy, *g, *rc;
  size_t pwx, pwy, pg, prc;     /* pitches, elements */
};

/* A flow or a dual field: two planes, one pitch */
struct tvl1_field
{
  float *a, *b;
  size_t pitch;
};

/* ---------------------------------------------------------------------
 * Per-pixel arithmetic, shared by STEPS and FUSED
 * --------------------------------------------------------------------- */

/** \brief Step V at one pixel (cf_tvl1_threshold): ρ = ρc + (I1wx u1 +
 *  I1wy u2), then the three cases and the zero-gradient guard, in the
 *  CPU's order.
 *  \param lt  λθ, rounded on the host as the CPU does
 *  \return (v1, v2) */
static __device__ __forceinline__ float2
tvl1_threshold_at (float gx, float gy, float g, float rc, float u1, float u2,
    float lt)
{
  const float rho = __fadd_rn (rc, __fadd_rn (__fmul_rn (gx, u1),
          __fmul_rn (gy, u2)));
  float d1, d2;

  if (rho < __fmul_rn (-lt, g)) {
    d1 = __fmul_rn (lt, gx);
    d2 = __fmul_rn (lt, gy);
  } else if (rho > __fmul_rn (lt, g)) {
    d1 = __fmul_rn (-lt, gx);
    d2 = __fmul_rn (-lt, gy);
  } else if (g < CF_TVL1_GRAD_IS_ZERO) {
    d1 = d2 = 0.0f;
  } else {
    const float fi = __fdiv_rn (-rho, g);
    d1 = __fmul_rn (fi, gx);
    d2 = __fmul_rn (fi, gy);
  }
  return make_float2 (__fadd_rn (u1, d1), __fadd_rn (u2, d2));
}

/** \brief Step Div at image pixel (x, y) for one dual field
 *  (cf_tvl1_divergence): the x part (px(x) − px(x−1), px(−1) = 0, px(w−1)
 *  unread, 0 on a 1-wide image), then the y part added the way the CPU
 *  adds it. The pixel is element (cx, cy) of the arrays (rows of ppx and
 *  ppy floats): (x, y) of a whole plane, or its cell of a BLOCKED tile.
 *  Reads only columns cx−1, cx and rows cy−1, cy. */
static __device__ __forceinline__ float
tvl1_divergence_at (const float *px, size_t ppx, const float *py, size_t ppy,
    int cx, int cy, int x, int y, int w, int h)
{
  const float *a = px + (size_t) cy * ppx;
  const float *b = py + (size_t) cy * ppy;
  float d;

  if (w == 1)
    d = 0.0f;
  else if (x == 0)
    d = a[cx];
  else if (x == w - 1)
    d = -a[cx - 1];
  else
    d = __fsub_rn (a[cx], a[cx - 1]);

  if (h == 1)
    return d;
  if (y == 0)
    return __fadd_rn (d, b[cx]);
  if (y == h - 1)
    return __fsub_rn (d, (b - ppy)[cx]);
  return __fadd_rn (d, __fsub_rn (b[cx], (b - ppy)[cx]));
}

/** \brief Step U for one component: v + θ div. */
static __device__ __forceinline__ float
tvl1_update_u_at (float v, float div, float theta)
{
  return __fadd_rn (v, __fmul_rn (theta, div));
}

/** \brief One pixel's term of the ε sum: (double) (e1² + e2²), the inner
 *  sum in fp32 as the CPU. */
static __device__ __forceinline__ double
tvl1_sq_term (float e1, float e2)
{
  return (double) __fadd_rn (__fmul_rn (e1, e1), __fmul_rn (e2, e2));
}

/** \brief Step fG at image pixel (x, y) (cf_tvl1_forward_gradient):
 *  (f(x+1) − f(x), f(y+1) − f(y)), 0 on the last column / row; the pixel
 *  is element (cx, cy) of f (see tvl1_divergence_at). */
static __device__ __forceinline__ float2
tvl1_forward_gradient_at (const float *f, size_t pitch, int cx, int cy,
    int x, int y, int w, int h)
{
  const float *c = f + cx + (size_t) cy * pitch;
  const float fc = c[0];

  return make_float2 (x < w - 1 ? __fsub_rn (c[1], fc) : 0.0f,
      y < h - 1 ? __fsub_rn (c[pitch], fc) : 0.0f);
}

/** \brief Step P at one pixel (cf_tvl1_update_p): (p + τ/θ ∇u) /
 *  (1 + τ/θ |∇u|), |∇u| = sqrt(ux² + uy²) correctly rounded.
 *  \param taut  τ/θ, rounded on the host as the CPU does */
static __device__ __forceinline__ float2
tvl1_update_p_at (float2 grad, float pa, float pb, float taut)
{
  const float norm = __fsqrt_rn (__fadd_rn (__fmul_rn (grad.x, grad.x),
          __fmul_rn (grad.y, grad.y)));
  const float den = __fadd_rn (1.0f, __fmul_rn (taut, norm));

  return make_float2 (__fdiv_rn (__fadd_rn (pa, __fmul_rn (taut, grad.x)),
          den), __fdiv_rn (__fadd_rn (pb, __fmul_rn (taut, grad.y)), den));
}

/* BLOCKED tiles: 64 cells wide (two per thread along x), 8 NY high */
#define TVL1_TILE_X (2 * TVL1_BLOCK_X)

/* ---------------------------------------------------------------------
 * ε bookkeeping
 * --------------------------------------------------------------------- */

/** \brief 1 when iteration @n of this warp comes after the one that met ε.
 *  The same for every thread of a block: the only writer of stop is the
 *  reducer, which moves it from 0 to n + 1 during iteration n, and both
 *  values let iteration n run. */
static __device__ __forceinline__ bool
tvl1_skipped (const tvl1_control * ctl, int n)
{
  int stop;

  if (ctl == NULL)
    return false;
  stop = *(const volatile int *) &ctl->stop;
  return stop > 0 && n >= stop;
}

/** \brief Sum of @v over a TVL1_BLOCK_THREADS block in a fixed order (warp
 *  shuffles, then the warp sums); the total is returned to thread 0. Every
 *  thread of the block must call it. */
static __device__ double
tvl1_block_sum (double v)
{
  __shared__ double warp_sum[TVL1_BLOCK_WARPS];
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  const int lane = t & 31, warp = t >> 5;
  int off;

  for (off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync (0xffffffffu, v, off);
  if (lane == 0)
    warp_sum[warp] = v;
  __syncthreads ();
  if (warp == 0) {
    v = lane < TVL1_BLOCK_WARPS ? warp_sum[lane] : 0.0;
    for (off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync (0xffffffffu, v, off);
  }
  /* warp_sum may be reused by a later call */
  __syncthreads ();
  return v;
}

/** \brief The reducer of iteration @n: Σ partials in a fixed order, mean =
 *  Σ / count (count = w h, in double like solve_level), one iteration
 *  counted, stop = n + 1 when !(mean > ε²). Every thread of one
 *  TVL1_BLOCK_THREADS block calls it. */
static __device__ void
tvl1_reduce (tvl1_control * ctl, const double *partials, int n_partials,
    double count, double eps2, int n)
{
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  double s = 0.0;
  int i;

  for (i = t; i < n_partials; i += TVL1_BLOCK_THREADS)
    s += partials[i];
  s = tvl1_block_sum (s);
  if (t == 0) {
    ctl->iterations += 1;
    if (!(__ddiv_rn (s, count) > eps2))
      ctl->stop = n + 1;
  }
}

/** \brief The block's partial of the ε sum: into partials[block] (plan),
 *  or added to *sum (single step); neither when both are NULL. Uniform per
 *  block. */
static __device__ __forceinline__ void
tvl1_store_partial (double term, double *partials, double *sum)
{
  double s;

  if (partials == NULL && sum == NULL)
    return;
  s = tvl1_block_sum (term);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    if (partials != NULL)
      partials[blockIdx.x + blockIdx.y * gridDim.x] = s;
    else
      atomicAdd (sum, s);
  }
}

/* ---------------------------------------------------------------------
 * Kernels
 * --------------------------------------------------------------------- */

/** \brief ∇I1 by centred differences with clamped taps, halved everywhere
 *  (twin of cf_tvl1_centered_gradient). */
__global__ static void
tvl1_centered_gradient_kernel (const float *__restrict__ i1, size_t p1,
    int w, int h, float *__restrict__ gx, size_t pgx, float *__restrict__ gy,
    size_t pgy)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const float *row;
  int xl, xr, yu, yd;

  if (x >= w || y >= h)
    return;
  xl = max (x - 1, 0);
  xr = min (x + 1, w - 1);
  yu = max (y - 1, 0);
  yd = min (y + 1, h - 1);
  row = i1 + (size_t) y * p1;
  gx[x + (size_t) y * pgx] = __fmul_rn (0.5f, __fsub_rn (row[xr], row[xl]));
  gy[x + (size_t) y * pgy] = __fmul_rn (0.5f, __fsub_rn (i1[x + (size_t) yd *
              p1], i1[x + (size_t) yu * p1]));
}

/** \brief The pointwise half of cf_tvl1_warp_prepare, once I1w, I1wx, I1wy
 *  are sampled: g = I1wx² + I1wy², ρc = ((I1w − I1wx u0_1) − I1wy u0_2)
 *  − I0. */
__global__ static void
tvl1_warp_constants_kernel (const float *__restrict__ i0, size_t p0,
    const float *__restrict__ w1, size_t pw, const float *__restrict__ wx,
    size_t pwx, const float *__restrict__ wy, size_t pwy,
    const float *__restrict__ u0, const float *__restrict__ v0, size_t pu,
    int w, int h, float *__restrict__ g, size_t pg, float *__restrict__ rc,
    size_t prc)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  float a, b, s, sx, sy;

  if (x >= w || y >= h)
    return;
  a = u0[x + (size_t) y * pu];
  b = v0[x + (size_t) y * pu];
  s = w1[x + (size_t) y * pw];
  sx = wx[x + (size_t) y * pwx];
  sy = wy[x + (size_t) y * pwy];
  g[x + (size_t) y * pg] = __fadd_rn (__fmul_rn (sx, sx), __fmul_rn (sy, sy));
  rc[x + (size_t) y * prc] = __fsub_rn (__fsub_rn (__fsub_rn (s,
              __fmul_rn (sx, a)), __fmul_rn (sy, b)), i0[x + (size_t) y * p0]);
}

/** \brief Step V (twin of cf_tvl1_threshold); @v may be @u. */
__global__ static void
tvl1_threshold_kernel (tvl1_consts k, tvl1_field u, float lt, tvl1_field v,
    int w, int h, const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t iu, iv;
  float2 r;

  if (tvl1_skipped (ctl, n) || x >= w || y >= h)
    return;
  iu = x + (size_t) y * u.pitch;
  iv = x + (size_t) y * v.pitch;
  r = tvl1_threshold_at (k.wx[x + (size_t) y * k.pwx],
      k.wy[x + (size_t) y * k.pwy], k.g[x + (size_t) y * k.pg],
      k.rc[x + (size_t) y * k.prc], u.a[iu], u.b[iu], lt);
  v.a[iv] = r.x;
  v.b[iv] = r.y;
}

/** \brief Step Div for one dual field (twin of cf_tvl1_divergence). */
__global__ static void
tvl1_divergence_kernel (const float *__restrict__ px, size_t ppx,
    const float *__restrict__ py, size_t ppy, int w, int h,
    float *__restrict__ div, size_t pd, const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (tvl1_skipped (ctl, n) || x >= w || y >= h)
    return;
  div[x + (size_t) y * pd] = tvl1_divergence_at (px, ppx, py, ppy, x, y, x,
      y, w, h);
}

/** \brief Step U (twin of cf_tvl1_update_u): u ← v + θ div in place, and
 *  the block's partial of Σ |Δu|² (see tvl1_store_partial). @v may be @u.
 *  No early return before the block sum: every thread takes part. */
__global__ static void
tvl1_update_u_kernel (tvl1_field v, tvl1_field div, float theta,
    tvl1_field u, int w, int h, double *partials, double *sum,
    const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  double term = 0.0;

  if (tvl1_skipped (ctl, n))
    return;                     /* uniform per block */
  if (x < w && y < h) {
    const size_t iu = x + (size_t) y * u.pitch;
    const size_t iv = x + (size_t) y * v.pitch;
    const size_t id = x + (size_t) y * div.pitch;
    const float u1 = u.a[iu], u2 = u.b[iu];
    const float n1 = tvl1_update_u_at (v.a[iv], div.a[id], theta);
    const float n2 = tvl1_update_u_at (v.b[iv], div.b[id], theta);

    u.a[iu] = n1;
    u.b[iu] = n2;
    term = tvl1_sq_term (__fsub_rn (n1, u1), __fsub_rn (n2, u2));
  }
  tvl1_store_partial (term, partials, sum);
}

/** \brief Step fG for one plane (twin of cf_tvl1_forward_gradient). */
__global__ static void
tvl1_forward_gradient_kernel (const float *__restrict__ f, size_t pf, int w,
    int h, float *__restrict__ fx, size_t pfx, float *__restrict__ fy,
    size_t pfy, const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  float2 g;

  if (tvl1_skipped (ctl, n) || x >= w || y >= h)
    return;
  g = tvl1_forward_gradient_at (f, pf, x, y, x, y, w, h);
  fx[x + (size_t) y * pfx] = g.x;
  fy[x + (size_t) y * pfy] = g.y;
}

/** \brief Step P for one dual field (twin of cf_tvl1_update_p); @p_out may
 *  be @p_in. */
__global__ static void
tvl1_update_p_kernel (const float *__restrict__ ux, size_t pux,
    const float *__restrict__ uy, size_t puy, tvl1_field p_in, float taut,
    tvl1_field p_out, int w, int h, const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t ii, io;
  float2 r;

  if (tvl1_skipped (ctl, n) || x >= w || y >= h)
    return;
  ii = x + (size_t) y * p_in.pitch;
  io = x + (size_t) y * p_out.pitch;
  r = tvl1_update_p_at (make_float2 (ux[x + (size_t) y * pux],
          uy[x + (size_t) y * puy]), p_in.a[ii], p_in.b[ii], taut);
  p_out.a[io] = r.x;
  p_out.b[io] = r.y;
}

/** \brief The STEPS reducer: one TVL1_BLOCK_X x TVL1_BLOCK_Y block. */
__global__ static void
tvl1_reduce_kernel (tvl1_control * ctl, const double *partials,
    int n_partials, double count, double eps2, int n)
{
  if (tvl1_skipped (ctl, n))
    return;
  tvl1_reduce (ctl, partials, n_partials, count, eps2, n);
}

/** \brief FUSED U-kernel: V, Div (both fields) and U at one pixel, u in
 *  place, and the block's partial of the ε sum when @partials is set. p is
 *  only read here (west and north neighbours). */
__global__ static void
tvl1_fused_u_kernel (tvl1_consts k, tvl1_field p1, tvl1_field p2,
    tvl1_field u, int w, int h, float lt, float theta, double *partials,
    const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  double term = 0.0;

  if (tvl1_skipped (ctl, n))
    return;                     /* uniform per block */
  if (x < w && y < h) {
    const size_t iu = x + (size_t) y * u.pitch;
    const float u1 = u.a[iu], u2 = u.b[iu];
    const float2 v = tvl1_threshold_at (__ldg (k.wx + x + (size_t) y * k.pwx),
        __ldg (k.wy + x + (size_t) y * k.pwy),
        __ldg (k.g + x + (size_t) y * k.pg),
        __ldg (k.rc + x + (size_t) y * k.prc), u1, u2, lt);
    const float d1 = tvl1_divergence_at (p1.a, p1.pitch, p1.b, p1.pitch, x,
        y, x, y, w, h);
    const float d2 = tvl1_divergence_at (p2.a, p2.pitch, p2.b, p2.pitch, x,
        y, x, y, w, h);
    const float n1 = tvl1_update_u_at (v.x, d1, theta);
    const float n2 = tvl1_update_u_at (v.y, d2, theta);

    u.a[iu] = n1;
    u.b[iu] = n2;
    term = tvl1_sq_term (__fsub_rn (n1, u1), __fsub_rn (n2, u2));
  }
  tvl1_store_partial (term, partials, NULL);
}

/** \brief FUSED P-kernel: fG of both components of the new u (east and
 *  south neighbours; u is only read here) and P on both dual fields in
 *  place. With @partials set, block (0, 0) first runs the reducer of this
 *  iteration (the U-kernel that wrote the partials has finished). */
__global__ static void
tvl1_fused_p_kernel (tvl1_field u, tvl1_field p1, tvl1_field p2, int w,
    int h, float taut, tvl1_control * ctl, int n, const double *partials,
    int n_partials, double count, double eps2)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t i1, i2;
  float2 g1, g2, r;

  if (tvl1_skipped (ctl, n))
    return;                     /* uniform per block */
  if (partials != NULL && blockIdx.x == 0 && blockIdx.y == 0)
    tvl1_reduce (ctl, partials, n_partials, count, eps2, n);
  if (x >= w || y >= h)
    return;
  g1 = tvl1_forward_gradient_at (u.a, u.pitch, x, y, x, y, w, h);
  g2 = tvl1_forward_gradient_at (u.b, u.pitch, x, y, x, y, w, h);
  i1 = x + (size_t) y * p1.pitch;
  i2 = x + (size_t) y * p2.pitch;
  r = tvl1_update_p_at (g1, p1.a[i1], p1.b[i1], taut);
  p1.a[i1] = r.x;
  p1.b[i1] = r.y;
  r = tvl1_update_p_at (g2, p2.a[i2], p2.b[i2], taut);
  p2.a[i2] = r.x;
  p2.b[i2] = r.y;
}

/** \brief BLOCKED: @t iterations of the FUSED U and P steps on one tile of
 *  64 x 8 NY cells (see the top of the file), reading u, p1, p2 from the
 *  *_in fields and writing the tile's (64 − 2t) x (8 NY − 2t) interior to
 *  the *_out ones. Shared memory: 6 planes of 64 x 8 NY floats (dynamic).
 *  Thread (tx, ty) owns the cells (tx + 32 i, ty + 8 j). */
template <int NY>
__global__ static void
__launch_bounds__ (TVL1_BLOCK_THREADS, NY == 4 ? 4 : 2)
tvl1_blocked_kernel (tvl1_consts k, tvl1_field u_in, tvl1_field p1_in,
    tvl1_field p2_in, tvl1_field u_out, tvl1_field p1_out,
    tvl1_field p2_out, int w, int h, float lt, float theta, float taut,
    int t)
{
  const int CX = TVL1_TILE_X, CY = TVL1_BLOCK_Y * NY, NX = 2;
  const int PLANE = CX * CY;
  extern __shared__ float tile[];
  float *const su1 = tile, *const su2 = tile + PLANE;
  float *const sp11 = tile + 2 * PLANE, *const sp12 = tile + 3 * PLANE;
  float *const sp21 = tile + 4 * PLANE, *const sp22 = tile + 5 * PLANE;
  /* image position of tile cell (0, 0): the interior starts at (t, t) */
  const int ox = blockIdx.x * (CX - 2 * t) - t;
  const int oy = blockIdx.y * (CY - 2 * t) - t;
  float cwx[NY][NX], cwy[NY][NX], cg[NY][NX], crc[NY][NX];
  unsigned inside = 0;          /* bit j NX + i: cell (i, j) in the image */
  int i, j, s;

#pragma unroll
  for (j = 0; j < NY; j++) {
#pragma unroll
    for (i = 0; i < NX; i++) {
      const int lx = threadIdx.x + TVL1_BLOCK_X * i;
      const int ly = threadIdx.y + TVL1_BLOCK_Y * j;
      const int x = ox + lx, y = oy + ly;

      cwx[j][i] = cwy[j][i] = cg[j][i] = crc[j][i] = 0.0f;
      if (x >= 0 && x < w && y >= 0 && y < h) {
        const int c = lx + ly * CX;
        const size_t iu = x + (size_t) y * u_in.pitch;
        const size_t i1 = x + (size_t) y * p1_in.pitch;
        const size_t i2 = x + (size_t) y * p2_in.pitch;

        inside |= 1u << (j * NX + i);
        cwx[j][i] = __ldg (k.wx + x + (size_t) y * k.pwx);
        cwy[j][i] = __ldg (k.wy + x + (size_t) y * k.pwy);
        cg[j][i] = __ldg (k.g + x + (size_t) y * k.pg);
        crc[j][i] = __ldg (k.rc + x + (size_t) y * k.prc);
        su1[c] = __ldg (u_in.a + iu);
        su2[c] = __ldg (u_in.b + iu);
        sp11[c] = __ldg (p1_in.a + i1);
        sp12[c] = __ldg (p1_in.b + i1);
        sp21[c] = __ldg (p2_in.a + i2);
        sp22[c] = __ldg (p2_in.b + i2);
      }
    }
  }
  __syncthreads ();

  for (s = 0; s < t; s++) {
    /* U on [s+1, C−s): p valid on [s, C−s) (the whole tile at s = 0) */
#pragma unroll
    for (j = 0; j < NY; j++) {
#pragma unroll
      for (i = 0; i < NX; i++) {
        const int lx = threadIdx.x + TVL1_BLOCK_X * i;
        const int ly = threadIdx.y + TVL1_BLOCK_Y * j;

        if ((inside >> (j * NX + i) & 1u) && lx > s && lx < CX - s &&
            ly > s && ly < CY - s) {
          const int c = lx + ly * CX;
          const int x = ox + lx, y = oy + ly;
          const float2 v = tvl1_threshold_at (cwx[j][i], cwy[j][i],
              cg[j][i], crc[j][i], su1[c], su2[c], lt);
          const float d1 = tvl1_divergence_at (sp11, TVL1_TILE_X, sp12,
              TVL1_TILE_X, lx, ly, x, y, w, h);
          const float d2 = tvl1_divergence_at (sp21, TVL1_TILE_X, sp22,
              TVL1_TILE_X, lx, ly, x, y, w, h);

          su1[c] = tvl1_update_u_at (v.x, d1, theta);
          su2[c] = tvl1_update_u_at (v.y, d2, theta);
        }
      }
    }
    __syncthreads ();
    /* P on [s+1, C−s−1): u valid on [s+1, C−s) */
#pragma unroll
    for (j = 0; j < NY; j++) {
#pragma unroll
      for (i = 0; i < NX; i++) {
        const int lx = threadIdx.x + TVL1_BLOCK_X * i;
        const int ly = threadIdx.y + TVL1_BLOCK_Y * j;

        if ((inside >> (j * NX + i) & 1u) && lx > s && lx < CX - s - 1 &&
            ly > s && ly < CY - s - 1) {
          const int c = lx + ly * CX;
          const int x = ox + lx, y = oy + ly;
          const float2 g1 = tvl1_forward_gradient_at (su1, TVL1_TILE_X, lx,
              ly, x, y, w, h);
          const float2 g2 = tvl1_forward_gradient_at (su2, TVL1_TILE_X, lx,
              ly, x, y, w, h);
          float2 r;

          r = tvl1_update_p_at (g1, sp11[c], sp12[c], taut);
          sp11[c] = r.x;
          sp12[c] = r.y;
          r = tvl1_update_p_at (g2, sp21[c], sp22[c], taut);
          sp21[c] = r.x;
          sp22[c] = r.y;
        }
      }
    }
    __syncthreads ();
  }

  /* the interior [t, C−t): u and p after t iterations */
#pragma unroll
  for (j = 0; j < NY; j++) {
#pragma unroll
    for (i = 0; i < NX; i++) {
      const int lx = threadIdx.x + TVL1_BLOCK_X * i;
      const int ly = threadIdx.y + TVL1_BLOCK_Y * j;

      if ((inside >> (j * NX + i) & 1u) && lx >= t && lx < CX - t &&
          ly >= t && ly < CY - t) {
        const int c = lx + ly * CX;
        const int x = ox + lx, y = oy + ly;
        const size_t iu = x + (size_t) y * u_out.pitch;
        const size_t i1 = x + (size_t) y * p1_out.pitch;
        const size_t i2 = x + (size_t) y * p2_out.pitch;

        u_out.a[iu] = su1[c];
        u_out.b[iu] = su2[c];
        p1_out.a[i1] = sp11[c];
        p1_out.b[i1] = sp12[c];
        p2_out.a[i2] = sp21[c];
        p2_out.b[i2] = sp22[c];
      }
    }
  }
}

/* ---------------------------------------------------------------------
 * fp16 state (see the top of the file)
 * --------------------------------------------------------------------- */

/* fp16 BLOCKED blocks are 32 x 32 threads, one tile column pair and NY =
 * 1 (32-row tiles: 32 registers, two blocks = 2048 threads per SM) or 2
 * rows (64-row tiles) per thread: faster than fp32's shape (32 x 8
 * threads, NY = 4) at T = 4 and 5 from 720p to 4K (measured in
 * docs/flow-speed.md with cf-tvl1-blocking-bench --precision fp16). */
#define TVL1H_BLOCK_Y 32

/* Two half2 in one 8-byte word: one vector access per pixel. Per-warp
 * constants ((I1wx, I1wy), (g, I1w − I0)) and (∇x u0, ∇y u0); the dual
 * variables (px, py) = ((p11, p21), (p12, p22)). */
struct __align__ (8) tvl1h_pair
{
  __half2 a, b;
};

/* A plane of half2 cells or of pairs, pitch in elements */
struct tvl1h_cells
{
  __half2 *d;
  size_t pitch;
};

struct tvl1h_pairs
{
  tvl1h_pair *d;
  size_t pitch;
};

/** \brief TH and U at one pixel in fp32 from the half2 state: ρ = (I1w −
 *  I0) + ∇I1w · du, v = du + f ∇I1w with f = λθ, −λθ or −ρ/g (0 where g
 *  < CF_TVL1_GRAD_IS_ZERO_FP16), then du + θ div.
 *  \param th   ((I1wx, I1wy), (g, I1w − I0))
 *  \param lt   λθ
 *  \return the new increment, before rounding to half2 */
static __device__ __forceinline__ float2
tvl1h_update_u_at (tvl1h_pair th, __half2 du, __half2 div, float lt,
    float theta)
{
  const float2 gw = __half22float2 (th.a);
  const float2 gr = __half22float2 (th.b);
  const float2 d = __half22float2 (du);
  const float2 dv = __half22float2 (div);
  const float rho = __fmaf_rn (gw.y, d.y, __fmaf_rn (gw.x, d.x, gr.y));
  const float lg = __fmul_rn (lt, gr.x);
  float f;

  if (rho < -lg)
    f = lt;
  else if (rho > lg)
    f = -lt;
  else if (gr.x < CF_TVL1_GRAD_IS_ZERO_FP16)
    f = 0.0f;
  else
    f = __fdividef (-rho, gr.x);
  return make_float2 (__fmaf_rn (theta, dv.x, __fmaf_rn (f, gw.x, d.x)),
      __fmaf_rn (theta, dv.y, __fmaf_rn (f, gw.y, d.y)));
}

/** \brief Div of both dual fields at image pixel (x, y), element (cx, cy)
 *  of @p (rows of @pitch pairs): the borders of tvl1_divergence_at, in
 *  half2. Reads only columns cx−1, cx and rows cy−1, cy. */
static __device__ __forceinline__ __half2
tvl1h_divergence_at (const tvl1h_pair * p, size_t pitch, int cx, int cy,
    int x, int y, int w, int h)
{
  const tvl1h_pair *c = p + cx + (size_t) cy * pitch;
  __half2 dx, dy;

  if (w == 1)
    dx = __float2half2_rn (0.0f);
  else if (x == 0)
    dx = c[0].a;
  else if (x == w - 1)
    dx = __hneg2 (c[-1].a);
  else
    dx = __hsub2_rn (c[0].a, c[-1].a);
  if (h == 1)
    return dx;
  if (y == 0)
    dy = c[0].b;
  else if (y == h - 1)
    dy = __hneg2 ((c - pitch)[0].b);
  else
    dy = __hsub2_rn (c[0].b, (c - pitch)[0].b);
  return __hadd2_rn (dx, dy);
}

/** \brief fG and P at image pixel (x, y), element (cx, cy) of @du: ∇u =
 *  ∇u0 + forward differences of du (0 on the last column / row, where
 *  ∇u0 is 0 too), then (p + τ/θ ∇u) / (1 + τ/θ |∇u|) for both fields at
 *  once. Reads only column cx+1 and row cy+1 besides the pixel. */
static __device__ __forceinline__ tvl1h_pair
tvl1h_update_p_at (const __half2 * du, size_t pitch, int cx, int cy, int x,
    int y, int w, int h, tvl1h_pair gu0, tvl1h_pair p, __half2 taut)
{
  const __half2 *c = du + cx + (size_t) cy * pitch;
  __half2 ux = gu0.a, uy = gu0.b, r;
  tvl1h_pair q;

  if (x < w - 1)
    ux = __hadd2_rn (ux, __hsub2_rn (c[1], c[0]));
  if (y < h - 1)
    uy = __hadd2_rn (uy, __hsub2_rn (c[pitch], c[0]));
  r = h2rcp (__hfma2 (taut, h2sqrt (__hfma2 (ux, ux, __hmul2_rn (uy, uy))),
          __float2half2_rn (1.0f)));
  q.a = __hmul2_rn (__hfma2 (taut, ux, p.a), r);
  q.b = __hmul2_rn (__hfma2 (taut, uy, p.b), r);
  return q;
}

/* fp16 plans sample with Catmull-Rom weights computed once per position
 * and shared by every plane sampled there (16 FMAs per plane instead of
 * five nested cells): the same kernel, taps and borders as cuda/warp.cu's
 * bicubic_plane, rounded differently, which fp16 has no reason to
 * avoid. */
struct tvl1h_taps
{
  int x[4], y[4];               /* clamped tap columns and rows */
  float wx[4], wy[4];
  bool zero;                    /* the sample is 0 */
};

/** \brief Taps of the bicubic sample at (px, py) of a w x h plane, with
 *  cf_bicubic_cell's guards (non-finite position, @border, far outside). */
static __device__ __forceinline__ tvl1h_taps
tvl1h_taps_at (float px, float py, int w, int h, cf_warp_border border)
{
  tvl1h_taps k;
  float tx, ty;
  int ix, iy, i;

  k.zero = !cf_bicubic_cell (px, py, w, h, border, &ix, &iy, &tx, &ty);
  if (k.zero)
    return k;
  /* Keys a = -1/2 */
  k.wx[0] = 0.5f * tx * ((2.0f - tx) * tx - 1.0f);
  k.wx[1] = 0.5f * (tx * tx * (3.0f * tx - 5.0f) + 2.0f);
  k.wx[2] = 0.5f * tx * ((4.0f - 3.0f * tx) * tx + 1.0f);
  k.wx[3] = 0.5f * tx * tx * (tx - 1.0f);
  k.wy[0] = 0.5f * ty * ((2.0f - ty) * ty - 1.0f);
  k.wy[1] = 0.5f * (ty * ty * (3.0f * ty - 5.0f) + 2.0f);
  k.wy[2] = 0.5f * ty * ((4.0f - 3.0f * ty) * ty + 1.0f);
  k.wy[3] = 0.5f * ty * ty * (ty - 1.0f);
#pragma unroll
  for (i = 0; i < 4; i++) {
    k.x[i] = min (max (ix - 1 + i, 0), w - 1);
    k.y[i] = min (max (iy - 1 + i, 0), h - 1);
  }
  return k;
}

/** \brief One plane sampled with @k. */
static __device__ __forceinline__ float
tvl1h_sample (const tvl1h_taps & k, const float *__restrict__ d,
    size_t pitch)
{
  float s = 0.0f;
  int i, j;

  if (k.zero)
    return 0.0f;
#pragma unroll
  for (j = 0; j < 4; j++) {
    const float *row = d + (size_t) k.y[j] * pitch;
    float r = 0.0f;
#pragma unroll
    for (i = 0; i < 4; i++)
      r = fmaf (k.wx[i], __ldg (row + k.x[i]), r);
    s = fmaf (k.wy[j], r, s);
  }
  return s;
}

/** \brief I1 and its centred gradient (tvl1_centered_gradient_kernel's
 *  values) sampled with @k, straight from the I1 plane: the gradient at
 *  each of the 16 taps is formed where it is used, in the same arithmetic
 *  and the same sum order as sampling precomputed I1x, I1y planes would
 *  give. Taps at least one cell inside the plane (all but a border band)
 *  read the 6 x 6 window around them, corners left out: 32 loads; the
 *  others clamp each neighbour as the gradient kernel does. The two paths
 *  keep their own copies of the tap sums: one shared helper made the
 *  constants kernel spill at 64 registers (out of line, it was slower:
 *  measured in docs/flow-speed.md). */
static __device__ __forceinline__ float3
tvl1h_sample_grad (const tvl1h_taps & k, const float *__restrict__ i1,
    size_t pitch, int w, int h)
{
  float3 s = make_float3 (0.0f, 0.0f, 0.0f);
  int i, j;

  if (k.zero)
    return s;
  if (k.x[0] >= 1 && k.x[0] + 4 <= w - 1 && k.y[0] >= 1 &&
      k.y[0] + 4 <= h - 1) {
    /* unclamped taps: cell (i, j) of the window is I1 at (x[0] − 1 + i,
     * y[0] − 1 + j) */
    const float *o = i1 + (size_t) (k.y[0] - 1) * pitch + (k.x[0] - 1);
    float c[6][6];

#pragma unroll
    for (j = 0; j < 6; j++) {
#pragma unroll
      for (i = 0; i < 6; i++) {
        if (!((i == 0 || i == 5) && (j == 0 || j == 5)))
          c[j][i] = __ldg (o + (size_t) j * pitch + i);
      }
    }
#pragma unroll
    for (j = 0; j < 4; j++) {
      float3 r = make_float3 (0.0f, 0.0f, 0.0f);
#pragma unroll
      for (i = 0; i < 4; i++) {
        const float gx = __fmul_rn (0.5f, __fsub_rn (c[j + 1][i + 2],
                c[j + 1][i]));
        const float gy = __fmul_rn (0.5f, __fsub_rn (c[j + 2][i + 1],
                c[j][i + 1]));

        r.x = fmaf (k.wx[i], c[j + 1][i + 1], r.x);
        r.y = fmaf (k.wx[i], gx, r.y);
        r.z = fmaf (k.wx[i], gy, r.z);
      }
      s.x = fmaf (k.wy[j], r.x, s.x);
      s.y = fmaf (k.wy[j], r.y, s.y);
      s.z = fmaf (k.wy[j], r.z, s.z);
    }
    return s;
  }
#pragma unroll
  for (j = 0; j < 4; j++) {
    const int y = k.y[j];
    const float *row = i1 + (size_t) y * pitch;
    const float *up = i1 + (size_t) max (y - 1, 0) * pitch;
    const float *down = i1 + (size_t) min (y + 1, h - 1) * pitch;
    float3 r = make_float3 (0.0f, 0.0f, 0.0f);

#pragma unroll
    for (i = 0; i < 4; i++) {
      const int x = k.x[i];
      const float gx = __fmul_rn (0.5f, __fsub_rn (__ldg (row + min (x + 1,
                      w - 1)), __ldg (row + max (x - 1, 0))));
      const float gy = __fmul_rn (0.5f, __fsub_rn (__ldg (down + x),
              __ldg (up + x)));

      r.x = fmaf (k.wx[i], __ldg (row + x), r.x);
      r.y = fmaf (k.wx[i], gx, r.y);
      r.z = fmaf (k.wx[i], gy, r.z);
    }
    s.x = fmaf (k.wy[j], r.x, s.x);
    s.y = fmaf (k.wy[j], r.y, s.y);
    s.z = fmaf (k.wy[j], r.z, s.z);
  }
  return s;
}

/** \brief fp16 plans' cf_cuda_flow_resample: dst(x, y) = (sx, sy) ·
 *  src(x fx, y fy), clamped bicubic, both planes from one set of taps. */
__global__ static void
tvl1h_resample_kernel (tvl1_field src, int sw, int sh, float fx, float fy,
    float sx, float sy, tvl1_field dst, int dw, int dh)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  tvl1h_taps k;
  size_t i;

  if (x >= dw || y >= dh)
    return;
  k = tvl1h_taps_at ((float) x * fx, (float) y * fy, sw, sh, CF_WARP_CLAMP);
  i = x + (size_t) y * dst.pitch;
  dst.a[i] = sx * tvl1h_sample (k, src.a, src.pitch);
  dst.b[i] = sy * tvl1h_sample (k, src.b, src.pitch);
}

/* One tvl1h_upsample_kernel block: 32 x 8 threads, 32 x 16 outputs (two
 * rows per thread); at a step <= 1 their taps reach at most 35 x 19
 * source cells (-1 .. +2 around 33 x 16). */
#define TVL1H_UP_ROWS 16
#define TVL1H_UP_TX 36
#define TVL1H_UP_TY (TVL1H_UP_ROWS + 4)
static_assert (TVL1_BLOCK_X + 4 <= TVL1H_UP_TX, "upsampling window too small");

/** \brief tvl1h_resample_kernel for steps @fx, @fy <= 1 (flow upsampling),
 *  the same bits: the block's clamped source window is loaded once into
 *  shared memory; each column's horizontal sums (its x taps on every window
 *  row the block needs) are formed once and shared by the block's outputs
 *  in that column, which then sum their four rows of them: the gathering
 *  kernel's two nested sums, in its order, without repeating the inner
 *  one per output. */
__global__ static void
tvl1h_upsample_kernel (tvl1_field src, int sw, int sh, float fx, float fy,
    float sx, float sy, tvl1_field dst, int dw, int dh)
{
  __shared__ float wa[TVL1H_UP_TY][TVL1H_UP_TX], wb[TVL1H_UP_TY][TVL1H_UP_TX];
  __shared__ float ha[TVL1H_UP_TY][TVL1_BLOCK_X], hb[TVL1H_UP_TY][TVL1_BLOCK_X];
  const int bx = blockIdx.x * TVL1_BLOCK_X, by = blockIdx.y * TVL1H_UP_ROWS;
  const int x = bx + threadIdx.x;
  /* window origin: the first thread's tap -1, as tvl1h_taps_at floors it */
  const int ox = (int) floorf ((float) bx * fx) - 1;
  const int oy = (int) floorf ((float) by * fy) - 1;
  /* window rows up to the last output row's tap +2 */
  const int rows = (int) floorf ((float) (min (by + TVL1H_UP_ROWS, dh) - 1)
      * fy) + 3 - oy;
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  tvl1h_taps k;
  int i, j, r;

  for (i = t; i < TVL1H_UP_TX * rows; i += blockDim.x * blockDim.y) {
    const int cx = min (max (ox + i % TVL1H_UP_TX, 0), sw - 1);
    const int cy = min (max (oy + i / TVL1H_UP_TX, 0), sh - 1);
    wa[i / TVL1H_UP_TX][i % TVL1H_UP_TX] = src.a[cx + (size_t) cy * src.pitch];
    wb[i / TVL1H_UP_TX][i % TVL1H_UP_TX] = src.b[cx + (size_t) cy * src.pitch];
  }
  __syncthreads ();
  /* the x taps depend on x alone; the taps' clamped cells are the
   * window's cells at the unclamped offsets (the window holds src at
   * clamp (origin + offset)) */
  k = tvl1h_taps_at ((float) x * fx, (float) by * fy, sw, sh, CF_WARP_CLAMP);
  {
    const int jx = (int) floorf ((float) x * fx) - 1 - ox;

    for (r = threadIdx.y; r < rows; r += blockDim.y) {
      float ra = 0.0f, rb = 0.0f;
#pragma unroll
      for (i = 0; i < 4; i++) {
        ra = fmaf (k.wx[i], wa[r][jx + i], ra);
        rb = fmaf (k.wx[i], wb[r][jx + i], rb);
      }
      ha[r][threadIdx.x] = ra;
      hb[r][threadIdx.x] = rb;
    }
  }
  __syncthreads ();
  if (x >= dw)
    return;
  for (r = threadIdx.y; r < TVL1H_UP_ROWS && by + r < dh; r += blockDim.y) {
    const int y = by + r;
    const int jy = (int) floorf ((float) y * fy) - 1 - oy;
    float a = 0.0f, b = 0.0f;

    k = tvl1h_taps_at ((float) x * fx, (float) y * fy, sw, sh,
        CF_WARP_CLAMP);
#pragma unroll
    for (j = 0; j < 4; j++) {
      a = fmaf (k.wy[j], ha[jy + j][threadIdx.x], a);
      b = fmaf (k.wy[j], hb[jy + j][threadIdx.x], b);
    }
    dst.a[x + (size_t) y * dst.pitch] = sx * a;
    dst.b[x + (size_t) y * dst.pitch] = sy * b;
  }
}

/** \brief Per-warp constants of the fp16 solver, in one pass: I1, I1x,
 *  I1y sampled at x + u0 (one set of taps, tvl1h_sample_grad), then
 *  ((I1wx, I1wy), (g, I1w − I0)), ∇u0 by forward differences, and du ← 0
 *  when @du is set (FUSED; BLOCKED's first launch starts from zero without
 *  reading du). */
/* 64 registers (4 blocks per SM): the kernel waits on its gathers, and
 * at 80 registers 3 blocks hid too little of it (ncu at 4K) */
__global__ static void
__launch_bounds__ (TVL1_BLOCK_THREADS, 4)
tvl1h_constants_kernel (const float *__restrict__ i0, size_t p0,
    const float *__restrict__ i1, size_t p1, const float *__restrict__ u0,
    const float *__restrict__ v0, size_t pu, int w, int h,
    cf_warp_border border, tvl1h_pairs th, tvl1h_pairs gu0, tvl1h_cells du)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const size_t iu = x + (size_t) y * pu;
  float a, b, px, py, s, sx, sy;
  float gx1 = 0.0f, gx2 = 0.0f, gy1 = 0.0f, gy2 = 0.0f;
  tvl1h_pair k, g;

  if (x >= w || y >= h)
    return;
  a = u0[iu];
  b = v0[iu];
  px = __fadd_rn ((float) x, a);
  py = __fadd_rn ((float) y, b);
  {
    const float3 v = tvl1h_sample_grad (tvl1h_taps_at (px, py, w, h,
            border), i1, p1, w, h);

    s = v.x;
    sx = v.y;
    sy = v.z;
  }
  k.a = __floats2half2_rn (sx, sy);
  k.b = __floats2half2_rn (sx * sx + sy * sy, s - i0[x + (size_t) y * p0]);
  if (x < w - 1) {
    gx1 = u0[iu + 1] - a;
    gx2 = v0[iu + 1] - b;
  }
  if (y < h - 1) {
    gy1 = u0[iu + pu] - a;
    gy2 = v0[iu + pu] - b;
  }
  g.a = __floats2half2_rn (gx1, gx2);
  g.b = __floats2half2_rn (gy1, gy2);
  th.d[x + (size_t) y * th.pitch] = k;
  gu0.d[x + (size_t) y * gu0.pitch] = g;
  if (du.d != NULL)
    du.d[x + (size_t) y * du.pitch] = __float2half2_rn (0.0f);
}

/** \brief The end of a warp: out ← u0 + du (@out may be @u0). */
__global__ static void
tvl1h_apply_kernel (tvl1_field u0, tvl1h_cells du, tvl1_field out, int w,
    int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t iu, io;
  float2 d;

  if (x >= w || y >= h)
    return;
  iu = x + (size_t) y * u0.pitch;
  io = x + (size_t) y * out.pitch;
  d = __half22float2 (du.d[x + (size_t) y * du.pitch]);
  out.a[io] = u0.a[iu] + d.x;
  out.b[io] = u0.b[iu] + d.y;
}

/** \brief fp16 FUSED U-kernel: TH, Div and U at one pixel, du in place,
 *  and the block's partial of Σ |Δdu|² (of the stored, rounded values)
 *  when @partials is set. */
__global__ static void
tvl1h_fused_u_kernel (tvl1h_pairs th, tvl1h_pairs p, tvl1h_cells du, int w,
    int h, float lt, float theta, double *partials, const tvl1_control * ctl,
    int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  double term = 0.0;

  if (tvl1_skipped (ctl, n))
    return;                     /* uniform per block */
  if (x < w && y < h) {
    __half2 *const c = du.d + x + (size_t) y * du.pitch;
    const __half2 old = *c;
    const __half2 nu = __float22half2_rn (tvl1h_update_u_at (th.d[x +
                (size_t) y * th.pitch], old, tvl1h_divergence_at (p.d,
                p.pitch, x, y, x, y, w, h), lt, theta));
    const float2 a = __half22float2 (nu), b = __half22float2 (old);

    *c = nu;
    term = tvl1_sq_term (__fsub_rn (a.x, b.x), __fsub_rn (a.y, b.y));
  }
  tvl1_store_partial (term, partials, NULL);
}

/** \brief fp16 FUSED P-kernel: fG and P on both dual fields in place;
 *  block (0, 0) runs the reducer first when @partials is set (as
 *  tvl1_fused_p_kernel). */
__global__ static void
tvl1h_fused_p_kernel (tvl1h_cells du, tvl1h_pairs gu0, tvl1h_pairs p, int w,
    int h, float taut, tvl1_control * ctl, int n, const double *partials,
    int n_partials, double count, double eps2)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  tvl1h_pair *c;

  if (tvl1_skipped (ctl, n))
    return;                     /* uniform per block */
  if (partials != NULL && blockIdx.x == 0 && blockIdx.y == 0)
    tvl1_reduce (ctl, partials, n_partials, count, eps2, n);
  if (x >= w || y >= h)
    return;
  c = p.d + x + (size_t) y * p.pitch;
  *c = tvl1h_update_p_at (du.d, du.pitch, x, y, x, y, w, h,
      gu0.d[x + (size_t) y * gu0.pitch], *c, __float2half2_rn (taut));
}

/* A BLOCKED fp16 launch's place in its warp. The first launch of a warp
 * starts from du = 0 and, on a level's first warp, p = 0 without reading
 * either (no memset, no zeroing pass); the last one writes u0 + du
 * (tvl1h_apply_kernel's sum) instead of du, and p only when another warp
 * of the level follows. Zeros are zeros and the sum is the same fp32
 * addition, so this changes no bits. */
struct tvl1h_ends
{
  unsigned flags;               /* TVL1H_* */
  tvl1_field u0, out;           /* TVL1H_FINISH: out may be u0 */
};
#define TVL1H_DU_ZERO 1u
#define TVL1H_P_ZERO 2u
#define TVL1H_FINISH 4u
#define TVL1H_KEEP_P 8u

/** \brief fp16 BLOCKED: tvl1_blocked_kernel's schedule on half2 state
 *  (du and the (px, py) pair: 12 B per tile cell), the four constant
 *  half2 of each owned cell in registers; blocks of 32 x BY threads,
 *  tiles of 64 x BY NY cells, MINB blocks per SM. */
template <int BY, int NY, int MINB>
__global__ static void
__launch_bounds__ (TVL1_BLOCK_X * BY, MINB)
tvl1h_blocked_kernel (tvl1h_pairs th, tvl1h_pairs gu0, tvl1h_cells du_in,
    tvl1h_pairs p_in, tvl1h_cells du_out, tvl1h_pairs p_out, int w, int h,
    float lt, float theta, float taut, int t, tvl1h_ends e)
{
  const int CX = TVL1_TILE_X, CY = BY * NY, NX = 2;
  extern __shared__ tvl1h_pair htile[];
  tvl1h_pair *const sp = htile;
  __half2 *const sdu = (__half2 *) (htile + CX * CY);
  const int ox = blockIdx.x * (CX - 2 * t) - t;
  const int oy = blockIdx.y * (CY - 2 * t) - t;
  const __half2 taut2 = __float2half2_rn (taut);
  tvl1h_pair cth[NY][NX], cgu[NY][NX];
  unsigned inside = 0;
  int i, j, s;

#pragma unroll
  for (j = 0; j < NY; j++) {
#pragma unroll
    for (i = 0; i < NX; i++) {
      const int lx = threadIdx.x + TVL1_BLOCK_X * i;
      const int ly = threadIdx.y + BY * j;
      const int x = ox + lx, y = oy + ly;

      if (x >= 0 && x < w && y >= 0 && y < h) {
        const int c = lx + ly * CX;

        inside |= 1u << (j * NX + i);
        cth[j][i] = th.d[x + (size_t) y * th.pitch];
        cgu[j][i] = gu0.d[x + (size_t) y * gu0.pitch];
        if (e.flags & TVL1H_DU_ZERO)
          sdu[c] = __float2half2_rn (0.0f);
        else
          sdu[c] = du_in.d[x + (size_t) y * du_in.pitch];
        if (e.flags & TVL1H_P_ZERO)
          sp[c].a = sp[c].b = __float2half2_rn (0.0f);
        else
          sp[c] = p_in.d[x + (size_t) y * p_in.pitch];
      } else {
        cth[j][i].a = cth[j][i].b = cgu[j][i].a = cgu[j][i].b =
            __float2half2_rn (0.0f);
      }
    }
  }
  __syncthreads ();

  for (s = 0; s < t; s++) {
#pragma unroll
    for (j = 0; j < NY; j++) {
#pragma unroll
      for (i = 0; i < NX; i++) {
        const int lx = threadIdx.x + TVL1_BLOCK_X * i;
        const int ly = threadIdx.y + BY * j;

        if ((inside >> (j * NX + i) & 1u) && lx > s && lx < CX - s &&
            ly > s && ly < CY - s) {
          const int c = lx + ly * CX;
          const int x = ox + lx, y = oy + ly;

          sdu[c] = __float22half2_rn (tvl1h_update_u_at (cth[j][i], sdu[c],
                  tvl1h_divergence_at (sp, CX, lx, ly, x, y, w, h), lt,
                  theta));
        }
      }
    }
    __syncthreads ();
#pragma unroll
    for (j = 0; j < NY; j++) {
#pragma unroll
      for (i = 0; i < NX; i++) {
        const int lx = threadIdx.x + TVL1_BLOCK_X * i;
        const int ly = threadIdx.y + BY * j;

        if ((inside >> (j * NX + i) & 1u) && lx > s && lx < CX - s - 1 &&
            ly > s && ly < CY - s - 1) {
          const int c = lx + ly * CX;

          sp[c] = tvl1h_update_p_at (sdu, CX, lx, ly, ox + lx, oy + ly, w,
              h, cgu[j][i], sp[c], taut2);
        }
      }
    }
    __syncthreads ();
  }

#pragma unroll
  for (j = 0; j < NY; j++) {
#pragma unroll
    for (i = 0; i < NX; i++) {
      const int lx = threadIdx.x + TVL1_BLOCK_X * i;
      const int ly = threadIdx.y + BY * j;

      if ((inside >> (j * NX + i) & 1u) && lx >= t && lx < CX - t &&
          ly >= t && ly < CY - t) {
        const int c = lx + ly * CX;
        const int x = ox + lx, y = oy + ly;

        if (e.flags & TVL1H_FINISH) {
          const float2 d = __half22float2 (sdu[c]);
          const size_t iu = x + (size_t) y * e.u0.pitch;
          const size_t io = x + (size_t) y * e.out.pitch;

          e.out.a[io] = e.u0.a[iu] + d.x;
          e.out.b[io] = e.u0.b[iu] + d.y;
        } else {
          du_out.d[x + (size_t) y * du_out.pitch] = sdu[c];
        }
        if (!(e.flags & TVL1H_FINISH) || (e.flags & TVL1H_KEEP_P))
          p_out.d[x + (size_t) y * p_out.pitch] = sp[c];
      }
    }
  }
}

/* ---------------------------------------------------------------------
 * Launchers and checks
 * --------------------------------------------------------------------- */

/* BLOCKED defaults (cf_cuda_tvl1_plan_set_blocking) and AUTO's choice,
 * measured in docs/flow-speed.md (tools/cf-tvl1-blocking-bench, realtime
 * preset): T = 6 on 64 x 32 tiles is the fastest at 720p and 1080p and
 * close to T = 5 at 4K; 64 x 64 tiles are slower at every T; BLOCKED
 * beats FUSED at every size. */
#define TVL1_DEFAULT_BLOCK_ITERATIONS 6
#define TVL1_DEFAULT_TILE_ROWS 32
#define TVL1_AUTO_KERNEL CF_TVL1_KERNEL_BLOCKED
/* fp16 BLOCKED defaults: the same tool with --precision fp16: T = 5 on
 * 64 x 32 tiles is the fastest from 640 x 480 to 4K (ahead of T = 4
 * since the first and last launches of a warp do less, tvl1h_ends); it
 * beats fp16 FUSED at every size (docs/flow-speed.md) */
#define TVL1H_DEFAULT_BLOCK_ITERATIONS 5
#define TVL1H_DEFAULT_TILE_ROWS 32

/* Dynamic shared memory of a BLOCKED tile of @rows: u, p1, p2 (6 planes) */
static size_t
tvl1_tile_bytes (int rows)
{
  return (size_t) 6 * TVL1_TILE_X * rows * sizeof (float);
}

/* ... and of an fp16 one: the (px, py) pairs and du */
static size_t
tvl1h_tile_bytes (int rows)
{
  return (size_t) TVL1_TILE_X * rows * (sizeof (tvl1h_pair) +
      sizeof (__half2));
}

static dim3
tvl1_grid (int width, int height)
{
  return dim3 (cf_div_up (width, TVL1_BLOCK_X),
      cf_div_up (height, TVL1_BLOCK_Y));
}

static dim3
tvl1_block (void)
{
  return dim3 (TVL1_BLOCK_X, TVL1_BLOCK_Y);
}

static int
same_size (const cf_cuda_image * a, const cf_cuda_image * b)
{
  return a->width == b->width && a->height == b->height;
}

static int
flow_matches (const cf_cuda_flow * f, const cf_cuda_image * a)
{
  return f->width == a->width && f->height == a->height;
}

/* 1 when @f's planes are distinct from @a's (a flow and a plane). */
static int
flow_avoids (const cf_cuda_flow * f, const float *a)
{
  return f->u != a && f->v != a;
}

static tvl1_consts
make_consts (const cf_cuda_image * wx, const cf_cuda_image * wy,
    const cf_cuda_image * g, const cf_cuda_image * rc)
{
  tvl1_consts k;

  k.wx = wx->data;
  k.wy = wy->data;
  k.g = g->data;
  k.rc = rc->data;
  k.pwx = wx->pitch;
  k.pwy = wy->pitch;
  k.pg = g->pitch;
  k.prc = rc->pitch;
  return k;
}

static tvl1_field
make_field (const cf_cuda_flow * f)
{
  tvl1_field d;

  d.a = f->u;
  d.b = f->v;
  d.pitch = f->pitch;
  return d;
}

/* One plane of a flow as an image. */
static cf_cuda_image
flow_plane (const cf_cuda_flow * f, int second)
{
  cf_cuda_image img;

  img.data = second ? f->v : f->u;
  img.width = f->width;
  img.height = f->height;
  img.pitch = f->pitch;
  return img;
}

/* The enqueue halves of the single steps (arguments already checked);
 * @ctl / @n gate the kernels in the plan, NULL / 0 outside it. */

static cf_status
enqueue_threshold (const cf_cuda_image * i1wx, const cf_cuda_image * i1wy,
    const cf_cuda_image * grad, const cf_cuda_image * rho_c,
    const cf_cuda_flow * u, float lt, cf_cuda_flow * v,
    const tvl1_control * ctl, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_threshold_kernel <<< tvl1_grid (u->width, u->height), tvl1_block (),
      0, stream >>> (make_consts (i1wx, i1wy, grad, rho_c), make_field (u),
      lt, make_field (v), u->width, u->height, ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

static cf_status
enqueue_divergence (const cf_cuda_image * px, const cf_cuda_image * py,
    cf_cuda_image * div, const tvl1_control * ctl, int n,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_divergence_kernel <<< tvl1_grid (px->width, px->height),
      tvl1_block (), 0, stream >>> (px->data, px->pitch, py->data, py->pitch,
      px->width, px->height, div->data, div->pitch, ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

static cf_status
enqueue_update_u (const cf_cuda_flow * v, const cf_cuda_flow * div,
    float theta, cf_cuda_flow * u, double *partials, double *sum,
    const tvl1_control * ctl, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_update_u_kernel <<< tvl1_grid (u->width, u->height), tvl1_block (),
      0, stream >>> (make_field (v), make_field (div), theta, make_field (u),
      u->width, u->height, partials, sum, ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

static cf_status
enqueue_forward_gradient (const cf_cuda_image * f, cf_cuda_image * fx,
    cf_cuda_image * fy, const tvl1_control * ctl, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_forward_gradient_kernel <<< tvl1_grid (f->width, f->height),
      tvl1_block (), 0, stream >>> (f->data, f->pitch, f->width, f->height,
      fx->data, fx->pitch, fy->data, fy->pitch, ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

static cf_status
enqueue_update_p (const cf_cuda_image * ux, const cf_cuda_image * uy,
    const cf_cuda_flow * p_in, float taut, cf_cuda_flow * p_out,
    const tvl1_control * ctl, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_update_p_kernel <<< tvl1_grid (ux->width, ux->height), tvl1_block (),
      0, stream >>> (ux->data, ux->pitch, uy->data, uy->pitch,
      make_field (p_in), taut, make_field (p_out), ux->width, ux->height,
      ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* ---------------------------------------------------------------------
 * Single steps
 * --------------------------------------------------------------------- */

extern "C" cf_status
cf_cuda_tvl1_centered_gradient (const cf_cuda_image * i1,
    cf_cuda_image * i1x, cf_cuda_image * i1y, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_image_is_valid (i1) || !cf_cuda_image_is_valid (i1x) ||
      !cf_cuda_image_is_valid (i1y) || !same_size (i1, i1x) ||
      !same_size (i1, i1y) || i1x->data == i1y->data || i1->data == i1x->data ||
      i1->data == i1y->data)
    return CF_ERROR_INVALID;
  tvl1_centered_gradient_kernel <<< tvl1_grid (i1->width, i1->height),
      tvl1_block (), 0, stream >>> (i1->data, i1->pitch, i1->width,
      i1->height, i1x->data, i1x->pitch, i1y->data, i1y->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_warp_prepare (const cf_cuda_image * i0,
    const cf_cuda_image * i1, const cf_cuda_image * i1x,
    const cf_cuda_image * i1y, const cf_cuda_flow * u0,
    cf_warp_border border, cf_cuda_image * i1w, cf_cuda_image * i1wx,
    cf_cuda_image * i1wy, cf_cuda_image * grad, cf_cuda_image * rho_c,
    cudaStream_t stream)
{
  const cf_cuda_image *in[4] = { i0, i1, i1x, i1y };
  cf_cuda_image *outs[5] = { i1w, i1wx, i1wy, grad, rho_c };
  cf_status status = CF_OK;
  int i, j;

  if (!cf_cuda_flow_is_valid (u0) || (border != CF_WARP_CLAMP &&
      border != CF_WARP_ZERO_OUTSIDE))
    return CF_ERROR_INVALID;
  for (i = 0; i < 4; i++)
    if (!cf_cuda_image_is_valid (in[i]) || !same_size (in[i], i0) ||
        !flow_avoids (u0, in[i]->data))
      return CF_ERROR_INVALID;
  /* outputs: distinct from each other, from the inputs and from u0 (the
   * samples are read back by the second kernel) */
  for (i = 0; i < 5; i++) {
    if (!cf_cuda_image_is_valid (outs[i]) || !same_size (outs[i], i0) ||
        !flow_avoids (u0, outs[i]->data))
      return CF_ERROR_INVALID;
    for (j = 0; j < 4; j++)
      if (outs[i]->data == in[j]->data)
        return CF_ERROR_INVALID;
    for (j = 0; j < i; j++)
      if (outs[i]->data == outs[j]->data)
        return CF_ERROR_INVALID;
  }
  if (!flow_matches (u0, i0))
    return CF_ERROR_INVALID;

  /* the three samples at x + u0 (cf_bicubic_at's twin), then g and ρc */
  status = cf_cuda_warp_bicubic (i1, u0, border, i1w, stream);
  if (status == CF_OK)
    status = cf_cuda_warp_bicubic (i1x, u0, border, i1wx, stream);
  if (status == CF_OK)
    status = cf_cuda_warp_bicubic (i1y, u0, border, i1wy, stream);
  if (status != CF_OK)
    return status;
  tvl1_warp_constants_kernel <<< tvl1_grid (i0->width, i0->height),
      tvl1_block (), 0, stream >>> (i0->data, i0->pitch, i1w->data,
      i1w->pitch, i1wx->data, i1wx->pitch, i1wy->data, i1wy->pitch, u0->u,
      u0->v, u0->pitch, i0->width, i0->height, grad->data, grad->pitch,
      rho_c->data, rho_c->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_threshold (const cf_cuda_image * i1wx,
    const cf_cuda_image * i1wy, const cf_cuda_image * grad,
    const cf_cuda_image * rho_c, const cf_cuda_flow * u, float lambda,
    float theta, cf_cuda_flow * v, cudaStream_t stream)
{
  /* λθ rounded once on the host, as cf_tvl1_threshold's l_t */
  const float lt = lambda * theta;

  if (!cf_cuda_image_is_valid (i1wx) || !cf_cuda_image_is_valid (i1wy) ||
      !cf_cuda_image_is_valid (grad) || !cf_cuda_image_is_valid (rho_c) ||
      !cf_cuda_flow_is_valid (u) || !cf_cuda_flow_is_valid (v) ||
      !same_size (i1wx, i1wy) || !same_size (i1wx, grad) ||
      !same_size (i1wx, rho_c) || !flow_matches (u, i1wx) ||
      !flow_matches (v, i1wx) || !flow_avoids (v, i1wx->data) ||
      !flow_avoids (v, i1wy->data) || !flow_avoids (v, grad->data) ||
      !flow_avoids (v, rho_c->data) || (v->u != u->u && (v->u == u->v ||
      v->v == u->u || v->v == u->v)))
    return CF_ERROR_INVALID;
  return enqueue_threshold (i1wx, i1wy, grad, rho_c, u, lt, v, NULL, 0,
      stream);
}

extern "C" cf_status
cf_cuda_tvl1_divergence (const cf_cuda_image * px, const cf_cuda_image * py,
    cf_cuda_image * div, cudaStream_t stream)
{
  if (!cf_cuda_image_is_valid (px) || !cf_cuda_image_is_valid (py) ||
      !cf_cuda_image_is_valid (div) || !same_size (px, py) ||
      !same_size (px, div) || div->data == px->data || div->data == py->data)
    return CF_ERROR_INVALID;
  return enqueue_divergence (px, py, div, NULL, 0, stream);
}

extern "C" cf_status
cf_cuda_tvl1_update_u (const cf_cuda_flow * v, const cf_cuda_flow * div,
    float theta, cf_cuda_flow * u, double *sum_sq, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_flow_is_valid (v) || !cf_cuda_flow_is_valid (div) ||
      !cf_cuda_flow_is_valid (u) || v->width != u->width ||
      v->height != u->height || div->width != u->width ||
      div->height != u->height || !flow_avoids (div, u->u) ||
      !flow_avoids (div, u->v) || (v->u != u->u && (v->u == u->v ||
      v->v == u->u || v->v == u->v)))
    return CF_ERROR_INVALID;
  /* the blocks add their partials into *sum_sq */
  if (sum_sq != NULL)
    CF_CUDA_TRY (cudaMemsetAsync (sum_sq, 0, sizeof (double), stream));
  status = enqueue_update_u (v, div, theta, u, NULL, sum_sq, NULL, 0, stream);
out:
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_forward_gradient (const cf_cuda_image * f, cf_cuda_image * fx,
    cf_cuda_image * fy, cudaStream_t stream)
{
  if (!cf_cuda_image_is_valid (f) || !cf_cuda_image_is_valid (fx) ||
      !cf_cuda_image_is_valid (fy) || !same_size (f, fx) ||
      !same_size (f, fy) || fx->data == fy->data || f->data == fx->data ||
      f->data == fy->data)
    return CF_ERROR_INVALID;
  return enqueue_forward_gradient (f, fx, fy, NULL, 0, stream);
}

extern "C" cf_status
cf_cuda_tvl1_update_p (const cf_cuda_image * ux, const cf_cuda_image * uy,
    const cf_cuda_flow * p_in, float tau, float theta, cf_cuda_flow * p_out,
    cudaStream_t stream)
{
  /* τ/θ rounded once on the host, as cf_tvl1_update_p's taut */
  const float taut = tau / theta;

  if (!cf_cuda_image_is_valid (ux) || !cf_cuda_image_is_valid (uy) ||
      !cf_cuda_flow_is_valid (p_in) || !cf_cuda_flow_is_valid (p_out) ||
      !same_size (ux, uy) || !flow_matches (p_in, ux) ||
      !flow_matches (p_out, ux) || !flow_avoids (p_out, ux->data) ||
      !flow_avoids (p_out, uy->data) || (p_out->u != p_in->u &&
      (p_out->u == p_in->v || p_out->v == p_in->u || p_out->v == p_in->v)))
    return CF_ERROR_INVALID;
  return enqueue_update_p (ux, uy, p_in, taut, p_out, NULL, 0, stream);
}

/* ---------------------------------------------------------------------
 * Plan
 * --------------------------------------------------------------------- */

struct cf_cuda_tvl1_plan
{
  int width, height;
  cf_tvl1_kernel kernel;        /* STEPS, FUSED or BLOCKED (AUTO
                                 * resolved) */
  int block_iterations;         /* BLOCKED: T, iterations per launch */
  int tile_rows;                /* BLOCKED: 32 or 64 */

  cf_cuda_flow u;               /* flow of the current level */
  cf_cuda_image i1x, i1y;       /* ∇I1, per level */
  cf_cuda_image i1w, i1wx, i1wy, grad, rho_c;   /* per warp */
  cf_cuda_flow p1, p2;          /* dual fields of u1 and u2 */
  cf_cuda_flow v, div, du1, du2;        /* STEPS only */
  cf_cuda_flow u_alt, p1_alt, p2_alt;   /* BLOCKED only: the other copy */

  cf_precision precision;
  /* fp16 plans: the state and constants in half2 (u stays fp32, ∇I1 is
   * formed from I1 where it is sampled; the other fp32 planes are not
   * allocated) */
  tvl1h_pairs hth, hgu0;        /* per-warp constants */
  tvl1h_cells hdu, hdu_alt;     /* increment; _alt: BLOCKED's other copy */
  tvl1h_pairs hp, hp_alt;       /* (px, py) */

  double *partials;             /* one per U-step block at level 0 */
  tvl1_control *control;        /* device */
  tvl1_control *host_control;   /* pinned: stop between chunks, and the
                                 * iteration count at the end of a run */
  long host_iterations;         /* iterations run with ε = 0 */
};

extern "C" void
cf_cuda_tvl1_plan_free (cf_cuda_tvl1_plan * plan)
{
  if (plan == NULL)
    return;
  cf_cuda_flow_release (&plan->u);
  cf_cuda_image_release (&plan->i1x);
  cf_cuda_image_release (&plan->i1y);
  cf_cuda_image_release (&plan->i1w);
  cf_cuda_image_release (&plan->i1wx);
  cf_cuda_image_release (&plan->i1wy);
  cf_cuda_image_release (&plan->grad);
  cf_cuda_image_release (&plan->rho_c);
  cf_cuda_flow_release (&plan->p1);
  cf_cuda_flow_release (&plan->p2);
  cf_cuda_flow_release (&plan->v);
  cf_cuda_flow_release (&plan->div);
  cf_cuda_flow_release (&plan->du1);
  cf_cuda_flow_release (&plan->du2);
  cf_cuda_flow_release (&plan->u_alt);
  cf_cuda_flow_release (&plan->p1_alt);
  cf_cuda_flow_release (&plan->p2_alt);
  {
    void *half_planes[6] = { plan->hth.d, plan->hgu0.d, plan->hdu.d,
      plan->hdu_alt.d, plan->hp.d, plan->hp_alt.d
    };
    int i;
    for (i = 0; i < 6; i++)
      if (half_planes[i] != NULL)
        cf_cuda_check (cudaFree (half_planes[i]));
  }
  if (plan->partials != NULL)
    cf_cuda_check (cudaFree (plan->partials));
  if (plan->control != NULL)
    cf_cuda_check (cudaFree (plan->control));
  if (plan->host_control != NULL)
    cf_cuda_check (cudaFreeHost (plan->host_control));
  free (plan);
}

/* A pitched plane of @width x @height elements of @size bytes; *@pitch in
 * elements. */
static cf_status
alloc_pitched (void **data, size_t * pitch, int width, int height,
    size_t size)
{
  cf_status status = CF_OK;
  size_t bytes = 0;

  CF_CUDA_TRY (cudaMallocPitch (data, &bytes, (size_t) width * size,
          (size_t) height));
  *pitch = bytes / size;
out:
  return status;
}

static cf_status
alloc_cells (tvl1h_cells * c, int width, int height)
{
  void *d = NULL;
  cf_status status = alloc_pitched (&d, &c->pitch, width, height,
      sizeof (__half2));

  c->d = (__half2 *) d;
  return status;
}

static cf_status
alloc_pairs (tvl1h_pairs * c, int width, int height)
{
  void *d = NULL;
  cf_status status = alloc_pitched (&d, &c->pitch, width, height,
      sizeof (tvl1h_pair));

  c->d = (tvl1h_pair *) d;
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_config_check (cf_precision precision, cf_tvl1_kernel kernel)
{
  if ((precision != CF_PRECISION_FP32 && precision != CF_PRECISION_FP16) ||
      (kernel != CF_TVL1_KERNEL_AUTO && kernel != CF_TVL1_KERNEL_STEPS &&
          kernel != CF_TVL1_KERNEL_FUSED && kernel != CF_TVL1_KERNEL_BLOCKED))
    return CF_ERROR_INVALID;
  /* STEPS is the fp32 twin of the CPU's steps */
  if (precision == CF_PRECISION_FP16 && kernel == CF_TVL1_KERNEL_STEPS)
    return CF_ERROR_UNSUPPORTED;
  return CF_OK;
}

extern "C" cf_status
cf_cuda_tvl1_plan_new (int width, int height, cf_precision precision,
    cf_tvl1_kernel kernel, cf_cuda_tvl1_plan ** plan_out)
{
  cf_status status = CF_OK;
  cf_cuda_tvl1_plan *plan = NULL;
  dim3 grid;
  void *p = NULL;

  if (plan_out == NULL)
    return CF_ERROR_INVALID;
  *plan_out = NULL;
  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION ||
      height > CF_MAX_DIMENSION)
    return CF_ERROR_INVALID;
  status = cf_cuda_tvl1_config_check (precision, kernel);
  if (status != CF_OK)
    return status;
  plan = (cf_cuda_tvl1_plan *) calloc (1, sizeof (*plan));
  if (plan == NULL)
    return CF_ERROR_NO_MEMORY;
  plan->width = width;
  plan->height = height;
  plan->precision = precision;
  plan->kernel = kernel == CF_TVL1_KERNEL_AUTO ? TVL1_AUTO_KERNEL : kernel;
  plan->block_iterations = precision == CF_PRECISION_FP16 ?
      TVL1H_DEFAULT_BLOCK_ITERATIONS : TVL1_DEFAULT_BLOCK_ITERATIONS;
  plan->tile_rows = precision == CF_PRECISION_FP16 ?
      TVL1H_DEFAULT_TILE_ROWS : TVL1_DEFAULT_TILE_ROWS;

  if (precision == CF_PRECISION_FP16) {
    if ((status = cf_cuda_flow_alloc (&plan->u, width, height)) != CF_OK ||
        (status = alloc_pairs (&plan->hth, width, height)) != CF_OK ||
        (status = alloc_pairs (&plan->hgu0, width, height)) != CF_OK ||
        (status = alloc_cells (&plan->hdu, width, height)) != CF_OK ||
        (status = alloc_pairs (&plan->hp, width, height)) != CF_OK)
      goto out;
  } else if ((status = cf_cuda_flow_alloc (&plan->u, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1x, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1y, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1w, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1wx, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1wy, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->grad, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->rho_c, width, height)) != CF_OK ||
      (status = cf_cuda_flow_alloc (&plan->p1, width, height)) != CF_OK ||
      (status = cf_cuda_flow_alloc (&plan->p2, width, height)) != CF_OK)
    goto out;
  if (plan->kernel == CF_TVL1_KERNEL_STEPS &&
      ((status = cf_cuda_flow_alloc (&plan->v, width, height)) != CF_OK ||
          (status = cf_cuda_flow_alloc (&plan->div, width, height)) != CF_OK
          || (status = cf_cuda_flow_alloc (&plan->du1, width,
                  height)) != CF_OK ||
          (status = cf_cuda_flow_alloc (&plan->du2, width, height)) != CF_OK))
    goto out;

  /* coarser levels have fewer blocks than level 0 */
  grid = tvl1_grid (width, height);
  CF_CUDA_TRY (cudaMalloc (&p, (size_t) grid.x * grid.y * sizeof (double)));
  plan->partials = (double *) p;
  CF_CUDA_TRY (cudaMalloc (&p, sizeof (tvl1_control)));
  plan->control = (tvl1_control *) p;
  CF_CUDA_TRY (cudaMallocHost (&p, sizeof (tvl1_control)));
  plan->host_control = (tvl1_control *) p;
  plan->host_control->stop = 0;
  plan->host_control->iterations = 0;

out:
  if (status != CF_OK) {
    cf_cuda_tvl1_plan_free (plan);
    plan = NULL;
  }
  *plan_out = plan;
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_plan_set_blocking (cf_cuda_tvl1_plan * plan, int iterations,
    int tile_rows)
{
  if (plan == NULL || iterations < 0 ||
      iterations > CF_TVL1_MAX_BLOCK_ITERATIONS ||
      (tile_rows != 0 && tile_rows != 32 && tile_rows != 64))
    return CF_ERROR_INVALID;
  if (plan->precision == CF_PRECISION_FP16) {
    plan->block_iterations = iterations > 0 ? iterations :
        TVL1H_DEFAULT_BLOCK_ITERATIONS;
    plan->tile_rows = tile_rows > 0 ? tile_rows : TVL1H_DEFAULT_TILE_ROWS;
  } else {
    plan->block_iterations = iterations > 0 ? iterations :
        TVL1_DEFAULT_BLOCK_ITERATIONS;
    plan->tile_rows = tile_rows > 0 ? tile_rows : TVL1_DEFAULT_TILE_ROWS;
  }
  return CF_OK;
}

extern "C" long
cf_cuda_tvl1_plan_iterations (const cf_cuda_tvl1_plan * plan)
{
  if (plan == NULL)
    return 0;
  return plan->host_iterations + (long) plan->host_control->iterations;
}

/* The plan's scratch seen at one level's size. */
typedef struct
{
  int width, height;
  cf_cuda_flow u;
  cf_cuda_image i1x, i1y, i1w, i1wx, i1wy, grad, rho_c;
  cf_cuda_flow p1, p2, v, div, du1, du2;
} tvl1_level;

static cf_cuda_image
image_view (const cf_cuda_image * img, int width, int height)
{
  cf_cuda_image view = *img;

  view.width = width;
  view.height = height;
  return view;
}

static void
level_views (const cf_cuda_tvl1_plan * plan, int width, int height,
    tvl1_level * lv)
{
  lv->width = width;
  lv->height = height;
  lv->u = cf_cuda_flow_view (&plan->u, width, height);
  lv->i1x = image_view (&plan->i1x, width, height);
  lv->i1y = image_view (&plan->i1y, width, height);
  lv->i1w = image_view (&plan->i1w, width, height);
  lv->i1wx = image_view (&plan->i1wx, width, height);
  lv->i1wy = image_view (&plan->i1wy, width, height);
  lv->grad = image_view (&plan->grad, width, height);
  lv->rho_c = image_view (&plan->rho_c, width, height);
  lv->p1 = cf_cuda_flow_view (&plan->p1, width, height);
  lv->p2 = cf_cuda_flow_view (&plan->p2, width, height);
  /* STEPS planes (NULL in FUSED plans; views of NULL stay NULL) */
  lv->v = cf_cuda_flow_view (&plan->v, width, height);
  lv->div = cf_cuda_flow_view (&plan->div, width, height);
  lv->du1 = cf_cuda_flow_view (&plan->du1, width, height);
  lv->du2 = cf_cuda_flow_view (&plan->du2, width, height);
}

/* What one warp's iterations need besides the level's planes. */
typedef struct
{
  float lt, theta, taut;
  tvl1_control *ctl;            /* NULL: ε = 0, no gating, no reduction */
  double count, eps2;           /* w h and ε², in double as solve_level */
} tvl1_iter_args;

/* Enqueue iteration @n (V, Div, U, fG, P) on the level's planes. */
static cf_status
enqueue_iteration (cf_cuda_tvl1_plan * plan, tvl1_level * lv,
    const tvl1_iter_args * a, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 grid = tvl1_grid (lv->width, lv->height);
  const int n_partials = (int) (grid.x * grid.y);
  double *partials = a->ctl != NULL ? plan->partials : NULL;

  /* BLOCKED plans come here with ε > 0 only */
  if (plan->precision == CF_PRECISION_FP16) {
    tvl1h_fused_u_kernel <<< grid, tvl1_block (), 0, stream >>> (plan->hth,
        plan->hp, plan->hdu, lv->width, lv->height, a->lt, a->theta,
        partials, a->ctl, n);
    CF_CUDA_TRY_LAUNCH ();
    tvl1h_fused_p_kernel <<< grid, tvl1_block (), 0, stream >>> (plan->hdu,
        plan->hgu0, plan->hp, lv->width, lv->height, a->taut, a->ctl, n,
        partials, n_partials, a->count, a->eps2);
    CF_CUDA_TRY_LAUNCH ();
  } else if (plan->kernel != CF_TVL1_KERNEL_STEPS) {
    tvl1_fused_u_kernel <<< grid, tvl1_block (), 0, stream >>>
        (make_consts (&lv->i1wx, &lv->i1wy, &lv->grad, &lv->rho_c),
        make_field (&lv->p1), make_field (&lv->p2), make_field (&lv->u),
        lv->width, lv->height, a->lt, a->theta, partials, a->ctl, n);
    CF_CUDA_TRY_LAUNCH ();
    tvl1_fused_p_kernel <<< grid, tvl1_block (), 0, stream >>>
        (make_field (&lv->u), make_field (&lv->p1), make_field (&lv->p2),
        lv->width, lv->height, a->taut, a->ctl, n, partials, n_partials,
        a->count, a->eps2);
    CF_CUDA_TRY_LAUNCH ();
  } else {
    cf_cuda_image p11 = flow_plane (&lv->p1, 0), p12 = flow_plane (&lv->p1, 1);
    cf_cuda_image p21 = flow_plane (&lv->p2, 0), p22 = flow_plane (&lv->p2, 1);
    cf_cuda_image div1 = flow_plane (&lv->div, 0);
    cf_cuda_image div2 = flow_plane (&lv->div, 1);
    cf_cuda_image u1 = flow_plane (&lv->u, 0), u2 = flow_plane (&lv->u, 1);
    cf_cuda_image u1x = flow_plane (&lv->du1, 0);
    cf_cuda_image u1y = flow_plane (&lv->du1, 1);
    cf_cuda_image u2x = flow_plane (&lv->du2, 0);
    cf_cuda_image u2y = flow_plane (&lv->du2, 1);

    /* cf_tvl1_iteration's sequence, step by step */
    status = enqueue_threshold (&lv->i1wx, &lv->i1wy, &lv->grad, &lv->rho_c,
        &lv->u, a->lt, &lv->v, a->ctl, n, stream);
    if (status == CF_OK)
      status = enqueue_divergence (&p11, &p12, &div1, a->ctl, n, stream);
    if (status == CF_OK)
      status = enqueue_divergence (&p21, &p22, &div2, a->ctl, n, stream);
    if (status == CF_OK)
      status = enqueue_update_u (&lv->v, &lv->div, a->theta, &lv->u,
          partials, NULL, a->ctl, n, stream);
    if (status != CF_OK)
      goto out;
    if (a->ctl != NULL) {
      tvl1_reduce_kernel <<< 1, tvl1_block (), 0, stream >>> (a->ctl,
          partials, n_partials, a->count, a->eps2, n);
      CF_CUDA_TRY_LAUNCH ();
    }
    status = enqueue_forward_gradient (&u1, &u1x, &u1y, a->ctl, n, stream);
    if (status == CF_OK)
      status = enqueue_forward_gradient (&u2, &u2x, &u2y, a->ctl, n, stream);
    if (status == CF_OK)
      status = enqueue_update_p (&u1x, &u1y, &lv->p1, a->taut, &lv->p1,
          a->ctl, n, stream);
    if (status == CF_OK)
      status = enqueue_update_p (&u2x, &u2y, &lv->p2, a->taut, &lv->p2,
          a->ctl, n, stream);
  }
out:
  return status;
}

/* BLOCKED's second copies of u, p1, p2, on the first ε = 0 run: AUTO
 * plans that only ever see ε > 0 (the element's IPOL defaults) never pay
 * for them. */
static cf_status
ensure_blocked_buffers (cf_cuda_tvl1_plan * plan)
{
  cf_status status = CF_OK;

  if (plan->precision == CF_PRECISION_FP16) {
    if (plan->hdu_alt.d != NULL && plan->hp_alt.d != NULL)
      return CF_OK;
    if ((plan->hdu_alt.d == NULL && (status = alloc_cells (&plan->hdu_alt,
                    plan->width, plan->height)) != CF_OK) ||
        (plan->hp_alt.d == NULL && (status = alloc_pairs (&plan->hp_alt,
                    plan->width, plan->height)) != CF_OK))
      goto out;
    CF_CUDA_TRY (cudaFuncSetAttribute (tvl1h_blocked_kernel < TVL1H_BLOCK_Y,
            2, 1 >, cudaFuncAttributeMaxDynamicSharedMemorySize,
            (int) tvl1h_tile_bytes (64)));
    goto out;
  }
  if (plan->u_alt.u != NULL && plan->p1_alt.u != NULL &&
      plan->p2_alt.u != NULL)
    return CF_OK;
  if ((plan->u_alt.u == NULL && (status = cf_cuda_flow_alloc (&plan->u_alt,
                  plan->width, plan->height)) != CF_OK) ||
      (plan->p1_alt.u == NULL && (status = cf_cuda_flow_alloc
              (&plan->p1_alt, plan->width, plan->height)) != CF_OK) ||
      (plan->p2_alt.u == NULL && (status = cf_cuda_flow_alloc
              (&plan->p2_alt, plan->width, plan->height)) != CF_OK))
    goto out;
  /* the 64-row tiles take more than the default 48 KB */
  CF_CUDA_TRY (cudaFuncSetAttribute (tvl1_blocked_kernel < 4 >,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int) tvl1_tile_bytes (32)));
  CF_CUDA_TRY (cudaFuncSetAttribute (tvl1_blocked_kernel < 8 >,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int) tvl1_tile_bytes (64)));
out:
  return status;
}

/* Swap two flows' buffers (same size and pitch). */
static void
swap_flows (cf_cuda_flow * a, cf_cuda_flow * b)
{
  cf_cuda_flow t = *a;

  *a = *b;
  *b = t;
}

/* run_blocked for fp16 plans (buffers ensured): du and (px, py) swap
 * with their _alt copies after each launch. The first launch adds @first
 * to its flags, the last one runs as @last (tvl1h_ends). */
static cf_status
run_blocked_half (cf_cuda_tvl1_plan * plan, const tvl1_level * lv,
    const tvl1_iter_args * a, int iterations, unsigned first,
    const tvl1h_ends * last, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const int rows = plan->tile_rows;
  const size_t bytes = tvl1h_tile_bytes (rows);
  int n = 0;

  while (n < iterations) {
    const int t = iterations - n < plan->block_iterations ?
        iterations - n : plan->block_iterations;
    const dim3 grid (cf_div_up (lv->width, TVL1_TILE_X - 2 * t),
        cf_div_up (lv->height, rows - 2 * t));
    tvl1h_ends e;
    tvl1h_cells c;
    tvl1h_pairs q;

    if (n + t == iterations)
      e = *last;
    else
      memset (&e, 0, sizeof (e));
    if (n == 0)
      e.flags |= first;
    if (rows == 64)
      tvl1h_blocked_kernel < TVL1H_BLOCK_Y, 2, 1 > <<< grid,
          dim3 (TVL1_BLOCK_X, TVL1H_BLOCK_Y), bytes, stream >>> (plan->hth,
          plan->hgu0, plan->hdu, plan->hp, plan->hdu_alt, plan->hp_alt,
          lv->width, lv->height, a->lt, a->theta, a->taut, t, e);
    else
      tvl1h_blocked_kernel < TVL1H_BLOCK_Y, 1, 2 > <<< grid,
          dim3 (TVL1_BLOCK_X, TVL1H_BLOCK_Y), bytes, stream >>> (plan->hth,
          plan->hgu0, plan->hdu, plan->hp, plan->hdu_alt, plan->hp_alt,
          lv->width, lv->height, a->lt, a->theta, a->taut, t, e);
    CF_CUDA_TRY_LAUNCH ();
    c = plan->hdu;
    plan->hdu = plan->hdu_alt;
    plan->hdu_alt = c;
    q = plan->hp;
    plan->hp = plan->hp_alt;
    plan->hp_alt = q;
    n += t;
  }
out:
  return status;
}

/* @iterations fp32 BLOCKED iterations, T per launch and a last shorter
 * one: each launch reads the plan's u, p1, p2 and writes the *_alt copies,
 * which then become the plan's (and the level's views). */
static cf_status
run_blocked (cf_cuda_tvl1_plan * plan, tvl1_level * lv,
    const tvl1_iter_args * a, int iterations, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const int rows = plan->tile_rows;
  const size_t bytes = tvl1_tile_bytes (rows);
  int n = 0;

  /* fp16 plans run BLOCKED from solve_level_half */
  if ((status = ensure_blocked_buffers (plan)) != CF_OK)
    return status;
  while (n < iterations) {
    const int t = iterations - n < plan->block_iterations ?
        iterations - n : plan->block_iterations;
    const dim3 grid (cf_div_up (lv->width, TVL1_TILE_X - 2 * t),
        cf_div_up (lv->height, rows - 2 * t));
    cf_cuda_flow u_out = cf_cuda_flow_view (&plan->u_alt, lv->width,
        lv->height);
    cf_cuda_flow p1_out = cf_cuda_flow_view (&plan->p1_alt, lv->width,
        lv->height);
    cf_cuda_flow p2_out = cf_cuda_flow_view (&plan->p2_alt, lv->width,
        lv->height);

    if (rows == 64)
      tvl1_blocked_kernel < 8 > <<< grid, tvl1_block (), bytes, stream >>>
          (make_consts (&lv->i1wx, &lv->i1wy, &lv->grad, &lv->rho_c),
          make_field (&lv->u), make_field (&lv->p1), make_field (&lv->p2),
          make_field (&u_out), make_field (&p1_out), make_field (&p2_out),
          lv->width, lv->height, a->lt, a->theta, a->taut, t);
    else
      tvl1_blocked_kernel < 4 > <<< grid, tvl1_block (), bytes, stream >>>
          (make_consts (&lv->i1wx, &lv->i1wy, &lv->grad, &lv->rho_c),
          make_field (&lv->u), make_field (&lv->p1), make_field (&lv->p2),
          make_field (&u_out), make_field (&p1_out), make_field (&p2_out),
          lv->width, lv->height, a->lt, a->theta, a->taut, t);
    CF_CUDA_TRY_LAUNCH ();
    swap_flows (&plan->u, &plan->u_alt);
    swap_flows (&plan->p1, &plan->p1_alt);
    swap_flows (&plan->p2, &plan->p2_alt);
    level_views (plan, lv->width, lv->height, lv);
    n += t;
  }
out:
  return status;
}

/* The scalars of a warp's iterations, rounded as the CPU rounds them
 * (ctl left NULL) */
static void
iter_args_init (tvl1_iter_args * a, const cf_tvl1_params * params,
    const tvl1_level * lv)
{
  a->lt = params->lambda * params->theta;
  a->theta = params->theta;
  a->taut = params->tau / params->theta;
  a->ctl = NULL;
  a->count = (double) lv->width * (double) lv->height;
  a->eps2 = (double) params->epsilon * (double) params->epsilon;
}

/* One warp's iterations (solve_level's inner loop): max_iterations of
 * them with ε = 0, else until the reducer sets stop, looked at every
 * TVL1_CHECK_EVERY launches. */
static cf_status
run_iterations (cf_cuda_tvl1_plan * plan, tvl1_level * lv,
    const cf_tvl1_params * params, cudaStream_t stream)
{
  cf_status status = CF_OK;
  tvl1_iter_args a;
  int n = 0;

  iter_args_init (&a, params, lv);
  if (!(params->epsilon > 0.0f) && plan->kernel == CF_TVL1_KERNEL_BLOCKED) {
    status = run_blocked (plan, lv, &a, params->max_iterations, stream);
    if (status == CF_OK)
      plan->host_iterations += params->max_iterations;
    goto out;
  }
  if (!(params->epsilon > 0.0f)) {
    a.ctl = NULL;
    for (n = 0; n < params->max_iterations; n++) {
      status = enqueue_iteration (plan, lv, &a, n, stream);
      if (status != CF_OK)
        goto out;
    }
    plan->host_iterations += params->max_iterations;
    goto out;
  }

  a.ctl = plan->control;
  CF_CUDA_TRY (cudaMemsetAsync (&plan->control->stop, 0, sizeof (int),
          stream));
  while (n < params->max_iterations) {
    int end = params->max_iterations - n > TVL1_CHECK_EVERY ?
        n + TVL1_CHECK_EVERY : params->max_iterations;

    for (; n < end; n++) {
      status = enqueue_iteration (plan, lv, &a, n, stream);
      if (status != CF_OK)
        goto out;
    }
    /* after the last possible iteration there is nothing to decide */
    if (n >= params->max_iterations)
      break;
    CF_CUDA_TRY (cudaMemcpyAsync (&plan->host_control->stop,
            &plan->control->stop, sizeof (int), cudaMemcpyDeviceToHost,
            stream));
    CF_CUDA_TRY (cudaStreamSynchronize (stream));
    if (plan->host_control->stop != 0)
      break;
  }
out:
  return status;
}

/* cf_cuda_flow_resample for fp16 plans (tvl1h_resample_kernel). */
static cf_status
resample_half (const cf_cuda_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  const float fx = (float) src->width / (float) dst->width;
  const float fy = (float) src->height / (float) dst->height;

  /* upsampling (every pyramid step) from a shared-memory window; the
   * gathering kernel for anything else */
  if (fx <= 1.0f && fy <= 1.0f)
    tvl1h_upsample_kernel <<< dim3 (cf_div_up (dst->width, TVL1_BLOCK_X),
        cf_div_up (dst->height, TVL1H_UP_ROWS)), tvl1_block (), 0,
        stream >>> (make_field (src), src->width,
        src->height, fx, fy, (float) dst->width / (float) src->width,
        (float) dst->height / (float) src->height, make_field (dst),
        dst->width, dst->height);
  else
    tvl1h_resample_kernel <<< tvl1_grid (dst->width, dst->height),
        tvl1_block (), 0, stream >>> (make_field (src), src->width,
        src->height, fx, fy, (float) dst->width / (float) src->width,
        (float) dst->height / (float) src->height, make_field (dst),
        dst->width, dst->height);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* solve_level for fp16 plans: ∇I1 (fp32) and p = 0 once; per warp the
 * half2 constants around u0 (du = 0), the iterations on du, and u ← u0 +
 * du, the last warp's into @out (the level's result, parked in the
 * caller's flow: no copy). BLOCKED folds the zeroing into its first
 * launch and u0 + du into its last (tvl1h_ends); FUSED (and any ε > 0)
 * zeroes du and p and ends with tvl1h_apply_kernel. */
static cf_status
solve_level_half (cf_cuda_tvl1_plan * plan, const cf_cuda_image * f0,
    const cf_cuda_image * f1, const cf_tvl1_params * params, tvl1_level * lv,
    cf_cuda_flow * out, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 grid = tvl1_grid (lv->width, lv->height);
  const int blocked = !(params->epsilon > 0.0f) &&
      plan->kernel == CF_TVL1_KERNEL_BLOCKED;
  tvl1h_cells no_du;
  int k;

  no_du.d = NULL;
  no_du.pitch = 0;
  if (blocked) {
    if ((status = ensure_blocked_buffers (plan)) != CF_OK)
      goto out;
  } else {
    CF_CUDA_TRY (cudaMemset2DAsync (plan->hp.d, plan->hp.pitch *
            sizeof (tvl1h_pair), 0, (size_t) lv->width *
            sizeof (tvl1h_pair), (size_t) lv->height, stream));
  }
  for (k = 0; k < params->warps; k++) {
    cf_cuda_flow *dst = k == params->warps - 1 ? out : &lv->u;

    tvl1h_constants_kernel <<< grid, tvl1_block (), 0, stream >>> (f0->data,
        f0->pitch, f1->data, f1->pitch, lv->u.u, lv->u.v, lv->u.pitch,
        lv->width, lv->height, params->warp_border, plan->hth, plan->hgu0,
        blocked ? no_du : plan->hdu);
    CF_CUDA_TRY_LAUNCH ();
    if (blocked) {
      tvl1_iter_args a;
      tvl1h_ends last;

      iter_args_init (&a, params, lv);
      last.flags = TVL1H_FINISH;
      if (k < params->warps - 1)
        last.flags |= TVL1H_KEEP_P;
      last.u0 = make_field (&lv->u);
      last.out = make_field (dst);
      status = run_blocked_half (plan, lv, &a, params->max_iterations,
          TVL1H_DU_ZERO | (k == 0 ? TVL1H_P_ZERO : 0), &last, stream);
      if (status != CF_OK)
        goto out;
      plan->host_iterations += params->max_iterations;
      continue;
    }
    if ((status = run_iterations (plan, lv, params, stream)) != CF_OK)
      goto out;
    tvl1h_apply_kernel <<< grid, tvl1_block (), 0, stream >>>
        (make_field (&lv->u), plan->hdu, make_field (dst), lv->width,
        lv->height);
    CF_CUDA_TRY_LAUNCH ();
  }
out:
  return status;
}

/* Solve one level (solve_level): ∇I1 and p = 0 once, then per warp the
 * constants around the current u and the iterations. */
static cf_status
solve_level (cf_cuda_tvl1_plan * plan, const cf_cuda_image * f0,
    const cf_cuda_image * f1, const cf_tvl1_params * params, tvl1_level * lv,
    cudaStream_t stream)
{
  cf_status status;
  int k;

  status = cf_cuda_tvl1_centered_gradient (f1, &lv->i1x, &lv->i1y, stream);
  if (status == CF_OK)
    status = cf_cuda_flow_fill (&lv->p1, 0.0f, 0.0f, stream);
  if (status == CF_OK)
    status = cf_cuda_flow_fill (&lv->p2, 0.0f, 0.0f, stream);
  for (k = 0; status == CF_OK && k < params->warps; k++) {
    status = cf_cuda_tvl1_warp_prepare (f0, f1, &lv->i1x, &lv->i1y, &lv->u,
        params->warp_border, &lv->i1w, &lv->i1wx, &lv->i1wy, &lv->grad,
        &lv->rho_c, stream);
    if (status == CF_OK)
      status = run_iterations (plan, lv, params, stream);
  }
  return status;
}

/* The pyramids and @flow suit a run of this plan: level 0 and @flow of
 * the plan's size, the checks of cf_tvl1_flow otherwise. */
static int
run_args_valid (const cf_cuda_tvl1_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_tvl1_params * params,
    const cf_cuda_flow * flow)
{
  int l;

  if (plan == NULL || p0 == NULL || p1 == NULL ||
      !cf_tvl1_params_valid (params) ||
      !cf_cuda_flow_is_valid (flow) || p0->n_levels != p1->n_levels ||
      p0->n_levels < 1 || p0->n_levels > CF_PYRAMID_MAX_LEVELS ||
      flow->width != plan->width || flow->height != plan->height ||
      p0->level[0].width != plan->width ||
      p0->level[0].height != plan->height)
    return 0;
  for (l = 0; l < p0->n_levels; l++) {
    const cf_cuda_image *a = &p0->level[l], *b = &p1->level[l];
    if (!cf_cuda_image_is_valid (a) || !cf_cuda_image_is_valid (b) ||
        !same_size (a, b) || a->width > plan->width ||
        a->height > plan->height || flow_avoids (flow, a->data) == 0 ||
        flow_avoids (flow, b->data) == 0)
      return 0;
  }
  return 1;
}

extern "C" cf_status
cf_cuda_tvl1_plan_run (cf_cuda_tvl1_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_tvl1_params * params,
    int use_initial, cf_cuda_flow * flow, cudaStream_t stream)
{
  cf_status status = CF_OK;
  int l;

  if (!run_args_valid (plan, p0, p1, params, flow))
    return CF_ERROR_INVALID;

  plan->host_iterations = 0;
  CF_CUDA_TRY (cudaMemsetAsync (plan->control, 0, sizeof (tvl1_control),
          stream));

  for (l = p0->n_levels - 1; l >= 0; l--) {
    const cf_cuda_image *f0 = &p0->level[l], *f1 = &p1->level[l];
    cf_cuda_flow parked = cf_cuda_flow_view (flow, f0->width, f0->height);
    tvl1_level lv;

    level_views (plan, f0->width, f0->height, &lv);

    /* the flow entering this level, as cf_tvl1_flow */
    if (l == p0->n_levels - 1) {
      if (use_initial)
        status = cf_cuda_flow_resample (flow, &lv.u, stream);
      else
        status = cf_cuda_flow_fill (&lv.u, 0.0f, 0.0f, stream);
    } else {
      /* the coarser level's result is parked in `flow`'s buffer */
      cf_cuda_flow prev = cf_cuda_flow_view (flow, p0->level[l + 1].width,
          p0->level[l + 1].height);
      status = plan->precision == CF_PRECISION_FP16 ?
          resample_half (&prev, &lv.u, stream) :
          cf_cuda_flow_resample (&prev, &lv.u, stream);
    }
    if (status == CF_OK && plan->precision == CF_PRECISION_FP16) {
      /* writes its result into `parked` */
      status = solve_level_half (plan, f0, f1, params, &lv, &parked, stream);
    } else if (status == CF_OK) {
      status = solve_level (plan, f0, f1, params, &lv, stream);
      /* park this level's result in `flow`'s buffer */
      if (status == CF_OK)
        status = cf_cuda_flow_copy (&lv.u, &parked, stream);
    }
    if (status != CF_OK)
      goto out;
  }

  /* the ε-path count, for cf_cuda_tvl1_plan_iterations once the caller has
   * synchronised */
  CF_CUDA_TRY (cudaMemcpyAsync (&plan->host_control->iterations,
          &plan->control->iterations, sizeof (long long),
          cudaMemcpyDeviceToHost, stream));
out:
  return status;
}
