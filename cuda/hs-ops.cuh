/* gst-cudaflow — Horn–Schunck on the GPU: the increments' storage and the
 * per-cell arithmetic every Jacobi kernel shares
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cuda/hs.cu says what the arithmetic is and why it is spelled this way.
 * Everything here also runs on the host, in the CPU emulation of the
 * STREAM kernel (cuda/hs-emu.cu): fp32 through cf_add_rn, cf_mul_rn and
 * cf_fma_rn (one rounding per operation, the device's bits), half2
 * through the host versions of cuda_fp16.h and cf_hfma2 (the program's
 * bits, not the device's).
 */
#ifndef CF_CUDA_HS_OPS_CUH
#define CF_CUDA_HS_OPS_CUH

#include "cuda/cuda-internal.h"

#include <cuda_fp16.h>

/* ---------------------------------------------------------------------
 * State storage: one float2 (fp32) or half2 (fp16) plane of increments
 * --------------------------------------------------------------------- */

/* fp32 increments: (du, dv) of one cell in one float2, pitch in float2,
 * so that a cell is one 8-byte load, store or copy (two planes took two:
 * docs/flow-speed.md) */
struct hs_state_f32
{
  float2 *uv;
  size_t pitch;
};

/* fp16 increments: (du, dv) of one cell in one half2, pitch in half2 */
struct hs_state_f16
{
  __half2 *uv;
  size_t pitch;
};

/* The API's increments (a cf_cuda_flow: two fp32 planes, one pitch in
 * elements), converted to and from the solvers' state */
struct hs_flow_f32
{
  float *u;
  float *v;
  size_t pitch;
};

template < typename S > struct hs_traits;

template <> struct hs_traits <hs_flow_f32 > : cf_cells_f32 <hs_flow_f32 >
{
  static __host__ __device__ __forceinline__ float2 unpack (cell c)
  {
    return c;
  }
};

template <> struct hs_traits <hs_state_f32 > : cf_cells_f2 <hs_state_f32 >
{
  static __host__ __device__ __forceinline__ cell pack (float2 f)
  {
    return f;
  }
  static __host__ __device__ __forceinline__ float2 unpack (cell c)
  {
    return c;
  }
  /** \brief (ū, v̄) of eq. 4.27: (2 (N + S + W + E) + NW + NE + SW + SE)
   *  / 12, the two sums left to right as common/hs.c, then one FMA and one
   *  multiply (the CPU's 1/6 and 1/12 products differ by an ulp). */
  static __host__ __device__ __forceinline__ float2 mean (cell n, cell s,
      cell w, cell e, cell nw, cell ne, cell sw, cell se)
  {
    float2 m;
    m.x = cf_mul_rn (1.0f / 12.0f, cf_fma_rn (2.0f,
            cf_add_rn (cf_add_rn (cf_add_rn (n.x, s.x), w.x), e.x),
            cf_add_rn (cf_add_rn (cf_add_rn (nw.x, ne.x), sw.x), se.x)));
    m.y = cf_mul_rn (1.0f / 12.0f, cf_fma_rn (2.0f,
            cf_add_rn (cf_add_rn (cf_add_rn (n.y, s.y), w.y), e.y),
            cf_add_rn (cf_add_rn (cf_add_rn (nw.y, ne.y), sw.y), se.y)));
    return m;
  }
};

template <> struct hs_traits <hs_state_f16 > : cf_cells_h2 <hs_state_f16 >
{
  static __host__ __device__ __forceinline__ cell pack (float2 f)
  {
    return __floats2half2_rn (f.x, f.y);
  }
  static __host__ __device__ __forceinline__ float2 unpack (cell c)
  {
    return __half22float2 (c);
  }
  /** \brief (ū, v̄) with half2 sums: t = 2 (N + S + W + E) + corners in
   *  half2, then t / 12 in fp32 (the weights are not exact in half). */
  static __host__ __device__ __forceinline__ float2 mean (cell n, cell s,
      cell w, cell e, cell nw, cell ne, cell sw, cell se)
  {
    __half2 edges = __hadd2 (__hadd2 (__hadd2 (n, s), w), e);
    __half2 corners = __hadd2 (__hadd2 (__hadd2 (nw, ne), sw), se);
    float2 t = __half22float2 (cf_hfma2 (__float2half2_rn (2.0f), edges,
            corners));
    return make_float2 (cf_mul_rn (t.x, 1.0f / 12.0f),
        cf_mul_rn (t.y, 1.0f / 12.0f));
  }
};

/* ---------------------------------------------------------------------
 * The per-cell update, shared by SIMPLE and FUSED
 * --------------------------------------------------------------------- */

/* a = Ix s, b = Iy s, c = It s with s = 1 / sqrt(alpha² + Ix² + Iy²) */
struct hs_coef
{
  float a, b, c;
};

/** \brief Eq. 4.29 in normalised form: r = a ū + b v̄ + c,
 *  (du', dv') = (ū - a r, v̄ - b r). */
static __host__ __device__ __forceinline__ float2
hs_update (float2 m, hs_coef k)
{
  float r = cf_fma_rn (k.a, m.x, cf_fma_rn (k.b, m.y, k.c));
  return make_float2 (cf_fma_rn (-k.a, r, m.x), cf_fma_rn (-k.b, r, m.y));
}

/* The coefficients a, b, c of every cell, three fp32 planes, as the Jacobi
 * kernels read them: hs_coefs of the cell's derivatives, computed once per
 * warp (hs_coefficients_kernel, hs_coefs_from_derivatives_kernel) instead
 * of once per launch of every sweep sequence (file comment). */
struct hs_coef_planes
{
  const float *a;
  const float *b;
  const float *c;
  size_t pa, pb, pc;            /* pitches, elements */
};

static __host__ __device__ __forceinline__ hs_coef
hs_coef_at (const hs_coef_planes & k, int x, int y)
{
  hs_coef q;

  q.a = cf_ld_ro (k.a + x + (size_t) y * k.pa);
  q.b = cf_ld_ro (k.b + x + (size_t) y * k.pb);
  q.c = cf_ld_ro (k.c + x + (size_t) y * k.pc);
  return q;
}

/* A zero cell, on the device and the host */
static __host__ __device__ __forceinline__ void
hs_cell_clear (float2 * c)
{
  *c = make_float2 (0.0f, 0.0f);
}

static __host__ __device__ __forceinline__ void
hs_cell_clear (__half2 * c)
{
  *c = __floats2half2_rn (0.0f, 0.0f);
}

/** \brief One cell of a SIMPLE sweep (hs_jacobi_simple_kernel, and the
 *  CPU emulation's reference): cell (@x, @y) updated from its eight
 *  neighbours in @in (one float2 or half2 plane), clamped at the image's
 *  edges (Neumann, common/hs.c), or from zeros with @zero_in (@in not
 *  read). */
template < typename S > static __host__ __device__ __forceinline__
typename hs_traits < S >::cell
hs_simple_cell (const hs_coef_planes & g, int width, int height,
    bool zero_in, const S & in, int x, int y)
{
  typedef hs_traits < S > T;
  typedef typename T::cell cell;
  cell n, s, w, e, nw, ne, sw, se;

  if (zero_in) {
    hs_cell_clear (&n);
    s = w = e = nw = ne = sw = se = n;
  } else {
    size_t rm = (size_t) max (y - 1, 0) * in.pitch;
    size_t r0 = (size_t) y * in.pitch;
    size_t rp = (size_t) min (y + 1, height - 1) * in.pitch;
    int xm = max (x - 1, 0), xp = min (x + 1, width - 1);
    n = in.uv[rm + x];
    s = in.uv[rp + x];
    w = in.uv[r0 + xm];
    e = in.uv[r0 + xp];
    nw = in.uv[rm + xm];
    ne = in.uv[rm + xp];
    sw = in.uv[rp + xm];
    se = in.uv[rp + xp];
  }
  return T::pack (hs_update (T::mean (n, s, w, e, nw, ne, sw, se),
          hs_coef_at (g, x, y)));
}

/* Bits lo .. hi - 1 of a strip's row mask, clamped to 0 .. 32 (none
 * when hi <= lo). */
static __host__ __device__ __forceinline__ unsigned
hs_row_mask (int lo, int hi)
{
  lo = max (lo, 0);
  hi = min (hi, 32);
  if (hi <= lo)
    return 0u;
  return (unsigned) ((1ull << hi) - (1ull << lo));
}

/* ---------------------------------------------------------------------
 * Ghost cells of the fused kernels' shared-memory planes
 * --------------------------------------------------------------------- */

/** \brief Write the ghosts of the region cell at @cell of a padded plane
 *  of rows of PW cells: copies of its value @v beyond the image's edges.
 *  \param left, right  the cell is in the image's first/last column
 *  \param top, bottom  the cell is in the image's first/last row */
template < int PW, typename C > static __host__ __device__ __forceinline__
void
hs_put_ghosts (C * cell, C v, bool left, bool right, bool top, bool bottom)
{
  if (left)
    cell[-1] = v;
  if (right)
    cell[1] = v;
  if (top) {
    cell[-PW] = v;
    if (left)
      cell[-PW - 1] = v;
    if (right)
      cell[-PW + 1] = v;
  }
  if (bottom) {
    cell[PW] = v;
    if (left)
      cell[PW - 1] = v;
    if (right)
      cell[PW + 1] = v;
  }
}

#endif /* CF_CUDA_HS_OPS_CUH */
