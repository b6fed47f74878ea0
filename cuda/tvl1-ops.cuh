/* gst-cudaflow — TV-L1 on the GPU: launch shape, argument types and the
 * per-pixel operators every TV-L1 kernel shares
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * fp32: the operators of common/tvl1.c, pixel by pixel, in the CPU's order.
 * The arithmetic is spelled with cf_add_rn, cf_sub_rn, cf_mul_rn,
 * cf_div_rn and cf_sqrt_rn (cuda-internal.h: __fadd_rn … __fsqrt_rn on
 * the device) so nvcc can neither contract it into FMAs nor approximate a
 * division or a root: the x86-64 reference is built without contraction,
 * so each single step gives the CPU's bits.
 *
 * fp16: the same steps on half2 state (cuda/tvl1.cu says how the fp16
 * solver works); they are not the fp32 bits.
 *
 * Each operator reads its neighbours through a pointer and a pitch, so the
 * single steps, FUSED (whole planes in global memory) and BLOCKED (tiles
 * in shared memory) run the very same arithmetic.
 *
 * Words, in every TV-L1 file of cuda/: a "warp" is the algorithm's warping
 * step (the solver's `warps` parameter: I1 resampled at x + u0, then the
 * iterations on u around u0), and "per-warp" what is computed once per
 * such step. CUDA's group of 32 threads that run in lockstep and exchange
 * registers through shuffles is called a "lane group" (its threads are
 * lanes), never a warp.
 */
#ifndef CF_CUDA_TVL1_OPS_CUH
#define CF_CUDA_TVL1_OPS_CUH

#include "cuda/tvl1.h"
#include "cuda/cuda-internal.h"

#include <cuda_fp16.h>

/* 2-D launch shape of every kernel; the reducer relies on 256 threads
 * (8 lane groups of 32) per block */
#define TVL1_BLOCK_X 32
#define TVL1_BLOCK_Y 8
#define TVL1_BLOCK_THREADS (TVL1_BLOCK_X * TVL1_BLOCK_Y)
#define TVL1_BLOCK_LANE_GROUPS (TVL1_BLOCK_THREADS / 32)

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
 * Half2 operations, on the device and on the host
 * ---------------------------------------------------------------------
 * The per-pixel operators below also run on the host, in the CPU
 * emulation of the iteration kernels (cf_cuda_tvl1_emulate, the suite
 * cuda/tvl1-emu): fp32 through cf_add_rn … cf_fma_rn (cuda-internal.h),
 * one rounding per operation as the CPU reference; the half2 operations
 * that have no host version (fma: cf_hfma2, cuda-internal.h; square root
 * and reciprocal: the functions below), computed in float on the host and
 * rounded to half (and tvl1h_quotient's reciprocal): the emulation checks
 * the kernels' program there, not the device's fp16 bits. */
static __host__ __device__ __forceinline__ __half2
tvl1h_sqrt2 (__half2 a)
{
#ifdef __CUDA_ARCH__
  return h2sqrt (a);
#else
  const float2 x = __half22float2 (a);

  return __floats2half2_rn (sqrtf (x.x), sqrtf (x.y));
#endif
}

static __host__ __device__ __forceinline__ __half2
tvl1h_rcp2 (__half2 a)
{
#ifdef __CUDA_ARCH__
  return h2rcp (a);
#else
  const float2 x = __half22float2 (a);

  return __floats2half2_rn (1.0f / x.x, 1.0f / x.y);
#endif
}

/* ---------------------------------------------------------------------
 * Per-pixel arithmetic, shared by STEPS and FUSED
 * --------------------------------------------------------------------- */

/** \brief The centred differences of plane @f (@pitch floats per row) at
 *  (x, y), taps clamped, halved everywhere (cf_tvl1_centered_gradient):
 *  the gradient of I1 per level and, with the gradient blend, of I0. */
static __device__ __forceinline__ float2
tvl1_centred_difference_at (const float *f, size_t pitch, int x, int y,
    int w, int h)
{
  const float *row = f + (size_t) y * pitch;

  return make_float2 (cf_mul_rn (0.5f, cf_sub_rn (row[min (x + 1, w - 1)],
              row[max (x - 1, 0)])), cf_mul_rn (0.5f, cf_sub_rn (f[x +
                  (size_t) min (y + 1, h - 1) * pitch], f[x + (size_t) max (y
                      - 1, 0) * pitch])));
}

/** \brief Step V at one pixel (cf_tvl1_threshold): ρ = ρc + (I1wx u1 +
 *  I1wy u2), then the three cases and the zero-gradient guard, in the
 *  CPU's order.
 *  \param lt  λθ, rounded on the host as the CPU does
 *  \return (v1, v2) */
static __host__ __device__ __forceinline__ float2
tvl1_threshold_at (float gx, float gy, float g, float rc, float u1, float u2,
    float lt)
{
  const float rho = cf_add_rn (rc, cf_add_rn (cf_mul_rn (gx, u1),
          cf_mul_rn (gy, u2)));
  float d1, d2;

  if (rho < cf_mul_rn (-lt, g)) {
    d1 = cf_mul_rn (lt, gx);
    d2 = cf_mul_rn (lt, gy);
  } else if (rho > cf_mul_rn (lt, g)) {
    d1 = cf_mul_rn (-lt, gx);
    d2 = cf_mul_rn (-lt, gy);
  } else if (g < CF_TVL1_GRAD_IS_ZERO) {
    d1 = d2 = 0.0f;
  } else {
    const float fi = cf_div_rn (-rho, g);
    d1 = cf_mul_rn (fi, gx);
    d2 = cf_mul_rn (fi, gy);
  }
  return make_float2 (cf_add_rn (u1, d1), cf_add_rn (u2, d2));
}

/* Whether a per-pixel operator tests for the image's borders. EDGES: the
 * pixel may lie on them. INTERIOR: the caller knows that the pixel is
 * neither on the first or last row nor on the first or last column, so
 * the operator is the inner formula alone, as the tests would have picked
 * it (BLOCKED's tiles away from the borders, cuda/tvl1-iterate.cuh). */
enum tvl1_where
{
  TVL1_EDGES,
  TVL1_INTERIOR
};

/** \brief Step Div at image pixel (x, y) for one dual field
 *  (cf_tvl1_divergence): the x part (px(x) − px(x−1), px(−1) = 0, px(w−1)
 *  unread, 0 on a 1-wide image), then the y part added the way the CPU
 *  adds it. The pixel is element (cx, cy) of the arrays (rows of ppx and
 *  ppy floats): (x, y) of a whole plane, or its cell of a BLOCKED tile.
 *  Reads only columns cx−1, cx and rows cy−1, cy. */
template < tvl1_where WHERE = TVL1_EDGES >
static __host__ __device__ __forceinline__ float
tvl1_divergence_at (const float *px, size_t ppx, const float *py, size_t ppy,
    int cx, int cy, int x, int y, int w, int h)
{
  const bool edges = WHERE == TVL1_EDGES;
  const float *a = px + (size_t) cy * ppx;
  const float *b = py + (size_t) cy * ppy;
  float d;

  if (edges && w == 1)
    d = 0.0f;
  else if (edges && x == 0)
    d = a[cx];
  else if (edges && x == w - 1)
    d = -a[cx - 1];
  else
    d = cf_sub_rn (a[cx], a[cx - 1]);

  if (edges && h == 1)
    return d;
  if (edges && y == 0)
    return cf_add_rn (d, b[cx]);
  if (edges && y == h - 1)
    return cf_sub_rn (d, (b - ppy)[cx]);
  return cf_add_rn (d, cf_sub_rn (b[cx], (b - ppy)[cx]));
}

/** \brief Step U for one component: v + θ div. */
static __host__ __device__ __forceinline__ float
tvl1_update_u_at (float v, float div, float theta)
{
  return cf_add_rn (v, cf_mul_rn (theta, div));
}

/** \brief One pixel's term of the ε sum: (double) (e1² + e2²), the inner
 *  sum in fp32 as the CPU. */
static __host__ __device__ __forceinline__ double
tvl1_sq_term (float e1, float e2)
{
  return (double) cf_add_rn (cf_mul_rn (e1, e1), cf_mul_rn (e2, e2));
}

/** \brief Step fG at image pixel (x, y) (cf_tvl1_forward_gradient):
 *  (f(x+1) − f(x), f(y+1) − f(y)), 0 on the last column / row; the pixel
 *  is element (cx, cy) of f (see tvl1_divergence_at). */
template < tvl1_where WHERE = TVL1_EDGES >
static __host__ __device__ __forceinline__ float2
tvl1_forward_gradient_at (const float *f, size_t pitch, int cx, int cy,
    int x, int y, int w, int h)
{
  const bool edges = WHERE == TVL1_EDGES;
  const float *c = f + cx + (size_t) cy * pitch;
  const float fc = c[0];

  return make_float2 (!edges || x < w - 1 ? cf_sub_rn (c[1], fc) : 0.0f,
      !edges || y < h - 1 ? cf_sub_rn (c[pitch], fc) : 0.0f);
}

/** \brief Step P at one pixel (cf_tvl1_update_p): (p + τ/θ ∇u) /
 *  (1 + τ/θ |∇u|), |∇u| = sqrt(ux² + uy²) correctly rounded.
 *  \param taut  τ/θ, rounded on the host as the CPU does */
static __host__ __device__ __forceinline__ float2
tvl1_update_p_at (float2 grad, float pa, float pb, float taut)
{
  const float norm = cf_sqrt_rn (cf_add_rn (cf_mul_rn (grad.x, grad.x),
          cf_mul_rn (grad.y, grad.y)));
  const float den = cf_add_rn (1.0f, cf_mul_rn (taut, norm));

  return make_float2 (cf_div_rn (cf_add_rn (pa, cf_mul_rn (taut, grad.x)),
          den), cf_div_rn (cf_add_rn (pb, cf_mul_rn (taut, grad.y)), den));
}

/* ---------------------------------------------------------------------
 * fp16 state
 * --------------------------------------------------------------------- */

/* Two half2 in one 8-byte word: one vector access per pixel. Per-warp
 * constants ((I1wx, I1wy), (g, I1w − I0)) and (∇x u0, ∇y u0); the dual
 * variables (px, py) = ((p11, p21), (p12, p22)). */
struct __align__ (8) tvl1h_pair
{
  __half2 a, b;
};

/* Stores a pair as one 8-byte word: assigning the struct stores its two
 * halves apart, two 4-byte stores that fill half of each sector they
 * write (Nsight Compute on the constants kernel) */
static __host__ __device__ __forceinline__ void
tvl1h_store_pair (tvl1h_pair * at, tvl1h_pair v)
{
  uint2 w;

  memcpy (&w, &v, sizeof (w));
  *(uint2 *) at = w;
}

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

/** \brief a / g as __fdividef (a, g) gives it for every normal g: a times
 *  the approximate reciprocal (rcp.approx, MUFU.RCP), one multiply. The
 *  thresholding step uses the quotient only where g >=
 *  CF_TVL1_GRAD_IS_ZERO_FP16, a normal number; __fdividef's own code
 *  also rescales subnormal divisors, 5 instructions a pixel that never
 *  matter there. On the host: a times 1 / g. */
static __host__ __device__ __forceinline__ float
tvl1h_quotient (float a, float g)
{
#ifdef __CUDA_ARCH__
  float r;

  asm ("rcp.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" (g));
  return __fmul_rn (a, r);
#else
  return a * (1.0f / g);
#endif
}

/** \brief TH and U at one pixel in fp32 from the half2 state: ρ = (I1w −
 *  I0) + ∇I1w · du, v = du + f ∇I1w with f = λθ, −λθ or −ρ/g (0 where g
 *  < CF_TVL1_GRAD_IS_ZERO_FP16), then du + θ div.
 *  \param th   ((I1wx, I1wy), (g, I1w − I0))
 *  \param lt   λθ
 *  \return the new increment, before rounding to half2 */
static __host__ __device__ __forceinline__ float2
tvl1h_update_u_at (tvl1h_pair th, __half2 du, __half2 div, float lt,
    float theta)
{
  const float2 gw = __half22float2 (th.a);
  const float2 gr = __half22float2 (th.b);
  const float2 d = __half22float2 (du);
  const float2 dv = __half22float2 (div);
  const float rho = cf_fma_rn (gw.y, d.y, cf_fma_rn (gw.x, d.x, gr.y));
  const float lg = cf_mul_rn (lt, gr.x);
  /* the quotient always, then a choice: selects where neighbouring lanes
   * would take different branches (the same value either way) */
  const float q = tvl1h_quotient (-rho, gr.x);
  const float f = rho < -lg ? lt : rho > lg ? -lt :
      gr.x < CF_TVL1_GRAD_IS_ZERO_FP16 ? 0.0f : q;

  return make_float2 (cf_fma_rn (theta, dv.x, cf_fma_rn (f, gw.x, d.x)),
      cf_fma_rn (theta, dv.y, cf_fma_rn (f, gw.y, d.y)));
}

/** \brief Div of both dual fields at image pixel (x, y), element (cx, cy)
 *  of @p (rows of @pitch pairs): the borders of tvl1_divergence_at, in
 *  half2. Reads only columns cx−1, cx and rows cy−1, cy. */
template < tvl1_where WHERE = TVL1_EDGES >
static __host__ __device__ __forceinline__ __half2
tvl1h_divergence_at (const tvl1h_pair * p, size_t pitch, int cx, int cy,
    int x, int y, int w, int h)
{
  const bool edges = WHERE == TVL1_EDGES;
  const tvl1h_pair *c = p + cx + (size_t) cy * pitch;
  __half2 dx, dy;

  if (edges && w == 1)
    dx = __float2half2_rn (0.0f);
  else if (edges && x == 0)
    dx = c[0].a;
  else if (edges && x == w - 1)
    dx = __hneg2 (c[-1].a);
  else
    dx = __hsub2_rn (c[0].a, c[-1].a);
  if (edges && h == 1)
    return dx;
  if (edges && y == 0)
    dy = c[0].b;
  else if (edges && y == h - 1)
    dy = __hneg2 ((c - pitch)[0].b);
  else
    dy = __hsub2_rn (c[0].b, (c - pitch)[0].b);
  return __hadd2_rn (dx, dy);
}

/** \brief fG and P at image pixel (x, y), element (cx, cy) of @du: ∇u =
 *  ∇u0 + forward differences of du (0 on the last column / row, where
 *  ∇u0 is 0 too), then (p + τ/θ ∇u) / (1 + τ/θ |∇u|) for both fields at
 *  once. Reads only column cx+1 and row cy+1 besides the pixel. */
template < tvl1_where WHERE = TVL1_EDGES >
static __host__ __device__ __forceinline__ tvl1h_pair
tvl1h_update_p_at (const __half2 * du, size_t pitch, int cx, int cy, int x,
    int y, int w, int h, tvl1h_pair gu0, tvl1h_pair p, __half2 taut)
{
  const bool edges = WHERE == TVL1_EDGES;
  const __half2 *c = du + cx + (size_t) cy * pitch;
  __half2 ux = gu0.a, uy = gu0.b, r;
  tvl1h_pair q;

  if (!edges || x < w - 1)
    ux = __hadd2_rn (ux, __hsub2_rn (c[1], c[0]));
  if (!edges || y < h - 1)
    uy = __hadd2_rn (uy, __hsub2_rn (c[pitch], c[0]));
  r = tvl1h_rcp2 (cf_hfma2 (taut, tvl1h_sqrt2 (cf_hfma2 (ux, ux,
                  __hmul2_rn (uy, uy))), __float2half2_rn (1.0f)));
  q.a = __hmul2_rn (cf_hfma2 (taut, ux, p.a), r);
  q.b = __hmul2_rn (cf_hfma2 (taut, uy, p.b), r);
  return q;
}

/* ---------------------------------------------------------------------
 * Host helpers: launch shape, argument checks, kernel arguments
 * --------------------------------------------------------------------- */

static inline dim3
tvl1_grid (int width, int height)
{
  return dim3 (cf_div_up (width, TVL1_BLOCK_X),
      cf_div_up (height, TVL1_BLOCK_Y));
}

static inline dim3
tvl1_block (void)
{
  return dim3 (TVL1_BLOCK_X, TVL1_BLOCK_Y);
}

static inline int
same_size (const cf_cuda_image * a, const cf_cuda_image * b)
{
  return a->width == b->width && a->height == b->height;
}

static inline int
flow_matches (const cf_cuda_flow * f, const cf_cuda_image * a)
{
  return f->width == a->width && f->height == a->height;
}

/* 1 when @f's planes are distinct from @a's (a flow and a plane). */
static inline int
flow_avoids (const cf_cuda_flow * f, const float *a)
{
  return f->u != a && f->v != a;
}

static inline tvl1_consts
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

static inline tvl1_field
make_field (const cf_cuda_flow * f)
{
  tvl1_field d;

  d.a = f->u;
  d.b = f->v;
  d.pitch = f->pitch;
  return d;
}

#endif /* CF_CUDA_TVL1_OPS_CUH */
