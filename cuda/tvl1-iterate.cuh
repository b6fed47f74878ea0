/* gst-cudaflow — TV-L1 on the GPU: the iteration kernels, FUSED and BLOCKED
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Included by the plan (cuda/tvl1.cu), which launches them.
 *  - FUSED: two kernels per iteration.
 *      U-kernel: TH from u and the warp constants, div p1 and div p2 from
 *        the west / north neighbours of p, u ← v + θ div, in place (a
 *        thread reads and writes only its own u; p is read-only here), and
 *        the block's share of Σ |Δu|².
 *      P-kernel: forward gradients of the new u from the east / south
 *        neighbours, then the P step on p in place (u is read-only here).
 *    Splitting at the two stencils is what lets both update in place: no
 *    kernel reads a neighbour of what it writes. The per-pixel functions
 *    are the ones STEPS uses (tvl1-ops.cuh), so the two paths are
 *    bit-identical.
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
 *    functions in the same order as FUSED: the same bits.
 * fp16 plans run their own FUSED and BLOCKED kernels on half2 state, with
 * the same schedule.
 */
#ifndef CF_CUDA_TVL1_ITERATE_CUH
#define CF_CUDA_TVL1_ITERATE_CUH

#include "cuda/tvl1-eps.cuh"

/* BLOCKED tiles: 64 cells wide (two per thread along x), 8 NY high */
#define TVL1_TILE_X (2 * TVL1_BLOCK_X)

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


/* fp16 BLOCKED blocks are 32 x 32 threads, one tile column pair and NY =
 * 1 (32-row tiles: 32 registers, two blocks = 2048 threads per SM) or 2
 * rows (64-row tiles) per thread: faster than fp32's shape (32 x 8
 * threads, NY = 4) at T = 4 and 5 from 720p to 4K (measured in
 * docs/flow-speed.md with cf-tvl1-blocking-bench --precision fp16). */
#define TVL1H_BLOCK_Y 32

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

/* Dynamic shared memory of a BLOCKED tile of @rows: u, p1, p2 (6 planes) */
static inline size_t
tvl1_tile_bytes (int rows)
{
  return (size_t) 6 * TVL1_TILE_X * rows * sizeof (float);
}

/* ... and of an fp16 one: the (px, py) pairs and du */
static inline size_t
tvl1h_tile_bytes (int rows)
{
  return (size_t) TVL1_TILE_X * rows * (sizeof (tvl1h_pair) +
      sizeof (__half2));
}

#endif /* CF_CUDA_TVL1_ITERATE_CUH */
