/* gst-cudaflow — TV-L1 on the GPU: the iteration kernels, FUSED and BLOCKED
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Included by the plan (cuda/tvl1.cu), which launches them. One body per
 * kernel serves both precisions through tvl1_traits <S> (S: the state, fp32
 * planes or fp16 half2 cells, as in cuda/hs.cu and cuda/clg.cu):
 *  - FUSED: two kernels per iteration.
 *      U-kernel: TH from u and the warp constants, div p1 and div p2 from
 *        the west / north neighbours of p, u ← v + θ div, in place (a
 *        thread reads and writes only its own u; p is read-only here), and
 *        the block's share of Σ |Δu|².
 *      P-kernel: forward gradients of the new u from the east / south
 *        neighbours, then the P step on p in place (u is read-only here).
 *    Splitting at the two stencils is what lets both update in place: no
 *    kernel reads a neighbour of what it writes. In fp32 the per-pixel
 *    functions are the ones STEPS uses (tvl1-ops.cuh), so the two paths
 *    are bit-identical.
 *  - BLOCKED (temporal blocking, ε = 0 only): one launch runs t <= T
 *    iterations of FUSED's U and P steps on a 32 x 16, 64 x 32, 64 x 48
 *    or 64 x 64 tile in shared memory (u and both p fields: 24 B per cell
 *    in fp32, 12 in fp16; the warp constants stay in registers, each
 *    thread owning NX x NY fixed cells, except on fp16's 48-row tiles,
 *    which hold them too: tvl1_traits::consts_in_tile). The tile is
 *    loaded with a halo of t on every side; step s of the launch needs U
 *    on tile cells [s+1, C−s) and P on [s+1, C−s−1) per axis (U reads p
 *    from the west / north, P reads u from the east / south, so each
 *    valid region loses one cell per side and iteration), leaving the
 *    (C − 2t) x (BY NY − 2t) interior exact after t iterations; only the
 *    interior is written. A step computes whole rows of the tile
 *    (tvl1_blocked_step says why computing cells it does not need is
 *    harmless). Blocks overlap in their halos, so a launch reads one
 *    copy of the state and writes another (the plan swaps them after
 *    each launch). Image borders are the real ones: Div
 *    and fG take the pixel's image coordinates for their border branches
 *    apart from its cell in the tile, and never read outside the image,
 *    so cells outside it are never loaded, and what the steps compute
 *    there is never read. A tile at least one pixel inside every border
 *    of the image takes none of those branches, so such tiles (most of a
 *    large level's) run a copy of the steps without the tests
 *    (tvl1_where, tvl1_blocked_interior). The traits' u_step and p_step
 *    run on the tile exactly as FUSED runs them on the planes: the same
 *    bits as FUSED, in either precision (fp16's are not fp32's).
 *
 * Everything the kernels call per pixel and per thread is __host__
 * __device__, and BLOCKED's body is a thread's phases between its
 * barriers (tvl1_blocked_begin, _load_state, _step, _end):
 * cuda/tvl1-emu.cu runs them on the CPU (cf_cuda_tvl1_emulate, the suite
 * cuda/tvl1-emu).
 */
#ifndef CF_CUDA_TVL1_ITERATE_CUH
#define CF_CUDA_TVL1_ITERATE_CUH

#include "cuda/tvl1-eps.cuh"

/* BLOCKED tiles of @rows: TVL1_NARROW_TILE_X cells wide on the 16-row
 * tiles of coarse levels, 64 otherwise, BY NY high (tvl1_blocked_by).
 * On a coarse level a launch lasts about one block's iterations and the
 * grid leaves SMs idle, so a narrower tile shortens the launch: fewer
 * cells a block steps, more blocks, although more of them are halo. */
#define TVL1_NARROW_TILE_X 32
static __host__ __device__ constexpr int
tvl1_tile_x (int rows)
{
  return rows == 16 ? TVL1_NARROW_TILE_X : 2 * TVL1_BLOCK_X;
}

/* The tile heights BLOCKED has kernels for (the plans' and the
 * emulation's dispatch) */
static __host__ __device__ constexpr bool
tvl1_tile_rows_valid (int rows)
{
  return rows == 16 || rows == 32 || rows == 48 || rows == 64;
}

/* ---------------------------------------------------------------------
 * State and precision traits
 * --------------------------------------------------------------------- */

/* fp32 state: the flow u and the dual fields p1 (of u1) and p2 (of u2),
 * two planes each; a view of whole planes or of a BLOCKED tile */
struct tvl1_state_f32
{
  tvl1_field u, p1, p2;
};

/* fp16 state: the increment du = u − u0 (u0: the flow entering the warp)
 * and the dual pairs (px, py) = ((p11, p21), (p12, p22)) */
struct tvl1_state_f16
{
  tvl1h_cells du;
  tvl1h_pairs p;
};

/* fp16 per-warp constants: ((I1wx, I1wy), (g, I1w − I0)) and ∇u0 */
struct tvl1h_consts
{
  tvl1h_pairs th, gu0;
};

/* BLOCKED's view of a state in shared memory: the planes of S, every
 * pitch tvl1_tile_x (rows); its elements are indexed in int, as shared
 * arrays are (whole planes in size_t). On tiles that hold the warp's
 * constants (tvl1_traits::consts_in_tile), @ucon and @pcon are their
 * planes, of the same pitch; NULL otherwise. */
template < typename S > struct tvl1_tile : S
{
  void *ucon, *pcon;
};

/* Element (cx, cy) of plane @f of state @s: in whole planes ... */
template < typename S, typename F >
static __host__ __device__ __forceinline__ size_t
tvl1_index (const S &, const F & f, int cx, int cy)
{
  return cx + (size_t) cy * f.pitch;
}

/* ... and in a tile */
template < typename S, typename F >
static __host__ __device__ __forceinline__ int
tvl1_index (const tvl1_tile < S > &, const F & f, int cx, int cy)
{
  return cx + cy * (int) f.pitch;
}

/* How FUSED and BLOCKED read, step and write one pixel of state S:
 *   consts         the per-warp constant planes (kernel argument)
 *   ucon, pcon     what the U and the P step read of them at one pixel
 *                  (BLOCKED keeps both in registers); ucon_at, pcon_at
 *                  load them, no_consts zeroes both (cells outside the
 *                  image)
 *   ucell, pcell   u and p at one pixel; get_*, set_* access a state
 *                  (planes, or a tile: the functions that take a state
 *                  V take either), load_* the read-only input of BLOCKED,
 *                  zero_u, zero_p start a warp
 *   u_step         V, Div, U at one pixel in place; returns its term of
 *                  the ε sum (|Δu|² in double)
 *   p_step         fG, P at one pixel in place
 *   taut_t, taut_of  τ/θ as p_step takes it
 *   increments     the state is du, not u: BLOCKED's tvl1_ends apply
 *   steps          the single-step kernels exist (STEPS)
 *   BLOCKED_BY, blocked_min_blocks  BLOCKED's thread rows, and the
 *                  resident blocks per SM asked of ptxas for a tile height
 *   DEFAULT_BLOCK_ITERATIONS, DEFAULT_TILE_ROWS  BLOCKED's default shape
 *   tile_bytes, tile  BLOCKED's dynamic shared memory and its view
 * The arithmetic is that of the per-pixel functions of tvl1-ops.cuh; a
 * specialisation only picks them and says where their operands live, so
 * FUSED and BLOCKED run the same operations in the same order. */
template < typename S > struct tvl1_traits;

template <> struct tvl1_traits <tvl1_state_f32 >
{
  typedef tvl1_state_f32 S;
  typedef tvl1_consts consts;
  struct ucon
  {
    float wx, wy, g, rc;        /* I1wx, I1wy, g, ρc */
  };
  struct pcon
  {
  };
  typedef float2 ucell;         /* (u1, u2) */
  typedef float4 pcell;         /* (p11, p12, p21, p22) */
  typedef float taut_t;

  static constexpr bool increments = false;
  static constexpr bool steps = true;
  /* BLOCKED: 32 x 8 threads, NY = 4 (32-row tiles) or 8 rows per thread
   * (one cell across and 2 rows on the 32-wide 16-row tiles).
   * Defaults measured in docs/flow-speed.md (tools/cf-tvl1-blocking-bench,
   * realtime preset): T = 6 on 64 x 32 tiles is the fastest at 720p and
   * 1080p and close to T = 5 at 4K; 64 x 64 tiles are slower at every T;
   * BLOCKED beats FUSED at every size. */
  enum
  {
    BLOCKED_BY = TVL1_BLOCK_Y,
    DEFAULT_BLOCK_ITERATIONS = 6, DEFAULT_TILE_ROWS = 32,
    LARGE_TILE_ROWS = 32        /* none: the default shape stays at 32 */
  };
  static constexpr int blocked_min_blocks (int rows)
  {
    /* 256 threads (98 KB of tile at 64 rows, NY = 8; 74 KB at 48, NY =
     * 6); the register budget of 1024 threads an SM at 16 and 32 rows */
    return rows >= 48 ? 2 : 4;
  }

  static __host__ __device__ __forceinline__ ucon
  ucon_at (const consts & k, int x, int y)
  {
    ucon c;

    c.wx = cf_ld_ro (k.wx + x + (size_t) y * k.pwx);
    c.wy = cf_ld_ro (k.wy + x + (size_t) y * k.pwy);
    c.g = cf_ld_ro (k.g + x + (size_t) y * k.pg);
    c.rc = cf_ld_ro (k.rc + x + (size_t) y * k.prc);
    return c;
  }
  static __host__ __device__ __forceinline__ pcon
  pcon_at (const consts &, int, int)
  {
    return pcon ();
  }
  static __host__ __device__ constexpr bool consts_in_tile (int)
  {
    return false;
  }
  static __host__ __device__ __forceinline__ void no_consts (ucon & u, pcon &)
  {
    u.wx = u.wy = u.g = u.rc = 0.0f;
  }
  static __host__ __device__ __forceinline__ taut_t taut_of (float taut)
  {
    return taut;
  }

  template < typename V > static __host__ __device__ __forceinline__ ucell
  get_u (const V & s, int cx, int cy)
  {
    const auto i = tvl1_index (s, s.u, cx, cy);

    return make_float2 (s.u.a[i], s.u.b[i]);
  }
  template < typename V > static __host__ __device__ __forceinline__ void
  set_u (const V & s, int cx, int cy, ucell c)
  {
    const auto i = tvl1_index (s, s.u, cx, cy);

    s.u.a[i] = c.x;
    s.u.b[i] = c.y;
  }
  template < typename V > static __host__ __device__ __forceinline__ pcell
  get_p (const V & s, int cx, int cy)
  {
    const auto i1 = tvl1_index (s, s.p1, cx, cy);
    const auto i2 = tvl1_index (s, s.p2, cx, cy);

    return make_float4 (s.p1.a[i1], s.p1.b[i1], s.p2.a[i2], s.p2.b[i2]);
  }
  template < typename V > static __host__ __device__ __forceinline__ void
  set_p (const V & s, int cx, int cy, pcell c)
  {
    const auto i1 = tvl1_index (s, s.p1, cx, cy);
    const auto i2 = tvl1_index (s, s.p2, cx, cy);

    s.p1.a[i1] = c.x;
    s.p1.b[i1] = c.y;
    s.p2.a[i2] = c.z;
    s.p2.b[i2] = c.w;
  }
  static __host__ __device__ __forceinline__ ucell
  load_u (const S & s, int x, int y)
  {
    const size_t i = x + (size_t) y * s.u.pitch;

    return make_float2 (cf_ld_l2 (s.u.a + i), cf_ld_l2 (s.u.b + i));
  }
  static __host__ __device__ __forceinline__ pcell
  load_p (const S & s, int x, int y)
  {
    const size_t i1 = x + (size_t) y * s.p1.pitch;
    const size_t i2 = x + (size_t) y * s.p2.pitch;

    return make_float4 (cf_ld_l2 (s.p1.a + i1), cf_ld_l2 (s.p1.b + i1),
        cf_ld_l2 (s.p2.a + i2), cf_ld_l2 (s.p2.b + i2));
  }
  static __host__ __device__ __forceinline__ ucell zero_u ()
  {
    return make_float2 (0.0f, 0.0f);
  }
  static __host__ __device__ __forceinline__ pcell zero_p ()
  {
    return make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  }
  static __host__ __device__ __forceinline__ float2 to_float2 (ucell c)
  {
    return c;
  }

  /** \brief V, Div of both dual fields and U at image pixel (x, y),
   *  element (cx, cy) of @s; |Δu|² in the CPU's arithmetic. */
  template < tvl1_where WHERE = TVL1_EDGES, typename V >
  static __host__ __device__ __forceinline__ double
  u_step (const V & s, const ucon & k, int cx, int cy, int x, int y, int w,
      int h, float lt, float theta)
  {
    const auto i = tvl1_index (s, s.u, cx, cy);
    const float u1 = s.u.a[i], u2 = s.u.b[i];
    const float2 v = tvl1_threshold_at (k.wx, k.wy, k.g, k.rc, u1, u2, lt);
    const float d1 = tvl1_divergence_at < WHERE > (s.p1.a, s.p1.pitch,
        s.p1.b, s.p1.pitch, cx, cy, x, y, w, h);
    const float d2 = tvl1_divergence_at < WHERE > (s.p2.a, s.p2.pitch,
        s.p2.b, s.p2.pitch, cx, cy, x, y, w, h);
    const float n1 = tvl1_update_u_at (v.x, d1, theta);
    const float n2 = tvl1_update_u_at (v.y, d2, theta);

    s.u.a[i] = n1;
    s.u.b[i] = n2;
    return tvl1_sq_term (cf_sub_rn (n1, u1), cf_sub_rn (n2, u2));
  }
  /** \brief fG of both components of u and P on both dual fields at image
   *  pixel (x, y), element (cx, cy) of @s. */
  template < tvl1_where WHERE = TVL1_EDGES, typename V >
  static __host__ __device__ __forceinline__ void
  p_step (const V & s, const pcon &, int cx, int cy, int x, int y, int w,
      int h, taut_t taut)
  {
    const float2 g1 = tvl1_forward_gradient_at < WHERE > (s.u.a, s.u.pitch,
        cx, cy, x, y, w, h);
    const float2 g2 = tvl1_forward_gradient_at < WHERE > (s.u.b, s.u.pitch,
        cx, cy, x, y, w, h);
    const auto i1 = tvl1_index (s, s.p1, cx, cy);
    const auto i2 = tvl1_index (s, s.p2, cx, cy);
    float2 r;

    r = tvl1_update_p_at (g1, s.p1.a[i1], s.p1.b[i1], taut);
    s.p1.a[i1] = r.x;
    s.p1.b[i1] = r.y;
    r = tvl1_update_p_at (g2, s.p2.a[i2], s.p2.b[i2], taut);
    s.p2.a[i2] = r.x;
    s.p2.b[i2] = r.y;
  }

  /* u, p1, p2: 6 planes of floats */
  static __host__ __device__ __forceinline__ size_t tile_bytes (int rows)
  {
    return (size_t) 6 * tvl1_tile_x (rows) * rows * sizeof (float);
  }
  static __host__ __device__ __forceinline__ tvl1_tile < S > tile (void *smem,
      int rows)
  {
    float *const f = (float *) smem;
    const int plane = tvl1_tile_x (rows) * rows;
    tvl1_tile < S > s;

    s.u.a = f;
    s.u.b = f + plane;
    s.p1.a = f + 2 * plane;
    s.p1.b = f + 3 * plane;
    s.p2.a = f + 4 * plane;
    s.p2.b = f + 5 * plane;
    s.u.pitch = s.p1.pitch = s.p2.pitch = tvl1_tile_x (rows);
    s.ucon = s.pcon = NULL;
    return s;
  }
};

template <> struct tvl1_traits <tvl1_state_f16 >
{
  typedef tvl1_state_f16 S;
  typedef tvl1h_consts consts;
  typedef tvl1h_pair ucon;      /* ((I1wx, I1wy), (g, I1w − I0)) */
  typedef tvl1h_pair pcon;      /* (∇x u0, ∇y u0) */
  typedef __half2 ucell;        /* du */
  typedef tvl1h_pair pcell;     /* (px, py) */
  typedef __half2 taut_t;

  static constexpr bool increments = true;
  static constexpr bool steps = false;
  /* BLOCKED: 32 x 32 threads, one tile column pair and NY = 1 (32-row
   * tiles: 32 registers, two blocks = 2048 threads per SM) or 2 rows
   * (64-row tiles) per thread (32 x 24 threads and NY = 2 on 48-row
   * tiles; 32 x 16 threads, one cell each, on 16-row tiles): faster than
   * fp32's shape (32 x 8 threads, NY = 4) at T = 4 and 5 from 720p to 4K.
   * Defaults: the same tool with --precision fp16: T = 5 on 64 x 32 tiles
   * is the fastest from 640 x 480 to 4K (ahead of T = 4 since the first
   * and last launches of a warp do less, tvl1_ends); it beats fp16 FUSED
   * at every size (both measured in docs/flow-speed.md). The default
   * shape takes 48-row tiles where they compute fewer cells
   * (blocked_rows): they keep the constants in the tile and issue fewer
   * instructions per output (docs/flow-frontier.md). */
  enum
  {
    BLOCKED_BY = 32,
    DEFAULT_BLOCK_ITERATIONS = 5, DEFAULT_TILE_ROWS = 32,
    LARGE_TILE_ROWS = 48
  };
  static constexpr int blocked_min_blocks (int rows)
  {
    /* 1024 threads at 32 and 64 rows, 768 at 48 and 512 on the narrow
     * 16-row tiles: 2048 an SM, 32 registers each, at 16 and 32 rows,
     * 1536 and 40 registers at 48 */
    return rows == 64 ? 1 : rows == 16 ? 4 : 2;
  }

  static __host__ __device__ __forceinline__ ucon
  ucon_at (const consts & k, int x, int y)
  {
    return k.th.d[x + (size_t) y * k.th.pitch];
  }
  static __host__ __device__ __forceinline__ pcon
  pcon_at (const consts & k, int x, int y)
  {
    return k.gu0.d[x + (size_t) y * k.gu0.pitch];
  }
  /* BLOCKED's 48-row tiles keep the constants in the tile, not in
   * registers: four cells a thread would hold 16 registers of them, and
   * two blocks of 768 threads an SM leave 40 */
  static __host__ __device__ constexpr bool consts_in_tile (int rows)
  {
    return rows == 48;
  }
  static __host__ __device__ __forceinline__ void no_consts (ucon & u, pcon & p)
  {
    u.a = u.b = p.a = p.b = __float2half2_rn (0.0f);
  }
  static __host__ __device__ __forceinline__ taut_t taut_of (float taut)
  {
    return __float2half2_rn (taut);
  }

  template < typename V > static __host__ __device__ __forceinline__ ucell
  get_u (const V & s, int cx, int cy)
  {
    return s.du.d[tvl1_index (s, s.du, cx, cy)];
  }
  template < typename V > static __host__ __device__ __forceinline__ void
  set_u (const V & s, int cx, int cy, ucell c)
  {
    s.du.d[tvl1_index (s, s.du, cx, cy)] = c;
  }
  template < typename V > static __host__ __device__ __forceinline__ pcell
  get_p (const V & s, int cx, int cy)
  {
    return s.p.d[tvl1_index (s, s.p, cx, cy)];
  }
  template < typename V > static __host__ __device__ __forceinline__ void
  set_p (const V & s, int cx, int cy, pcell c)
  {
    tvl1h_store_pair (s.p.d + tvl1_index (s, s.p, cx, cy), c);
  }
  static __host__ __device__ __forceinline__ ucell
  load_u (const S & s, int x, int y)
  {
    return cf_ld_l2 (s.du.d + x + (size_t) y * s.du.pitch);
  }
  static __host__ __device__ __forceinline__ pcell
  load_p (const S & s, int x, int y)
  {
    const uint2 r = cf_ld_l2 ((const uint2 *) (s.p.d + x + (size_t) y *
            s.p.pitch));
    pcell c;

    memcpy ((void *) &c, &r, sizeof (c));
    return c;
  }
  static __host__ __device__ __forceinline__ ucell zero_u ()
  {
    return __float2half2_rn (0.0f);
  }
  static __host__ __device__ __forceinline__ pcell zero_p ()
  {
    pcell c;

    c.a = c.b = __float2half2_rn (0.0f);
    return c;
  }
  static __host__ __device__ __forceinline__ float2 to_float2 (ucell c)
  {
    return __half22float2 (c);
  }

  /** \brief TH, Div and U at image pixel (x, y), element (cx, cy) of @s,
   *  du rounded to half2 once; |Δdu|² of the stored, rounded values. */
  template < tvl1_where WHERE = TVL1_EDGES, typename V >
  static __host__ __device__ __forceinline__ double
  u_step (const V & s, const ucon & k, int cx, int cy, int x, int y, int w,
      int h, float lt, float theta)
  {
    __half2 *const c = s.du.d + tvl1_index (s, s.du, cx, cy);
    const __half2 old = *c;
    const __half2 nu = __float22half2_rn (tvl1h_update_u_at (k, old,
            tvl1h_divergence_at < WHERE > (s.p.d, s.p.pitch, cx, cy, x, y,
                w, h), lt, theta));
    const float2 a = __half22float2 (nu), b = __half22float2 (old);

    *c = nu;
    return tvl1_sq_term (cf_sub_rn (a.x, b.x), cf_sub_rn (a.y, b.y));
  }
  /** \brief fG and P at image pixel (x, y), element (cx, cy) of @s. */
  template < tvl1_where WHERE = TVL1_EDGES, typename V >
  static __host__ __device__ __forceinline__ void
  p_step (const V & s, const pcon & gu0, int cx, int cy, int x, int y,
      int w, int h, taut_t taut)
  {
    tvl1h_pair *const c = s.p.d + tvl1_index (s, s.p, cx, cy);

    *c = tvl1h_update_p_at < WHERE > (s.du.d, s.du.pitch, cx, cy, x, y, w,
        h, gu0, *c, taut);
  }

  /* the (px, py) pairs, then du, then the constants where they are in
   * the tile: ∇u0, then ((I1wx, I1wy), (g, I1w − I0)) */
  static __host__ __device__ __forceinline__ size_t tile_bytes (int rows)
  {
    return (size_t) tvl1_tile_x (rows) * rows * (sizeof (tvl1h_pair) +
        sizeof (__half2) + (consts_in_tile (rows) ? sizeof (pcon) +
            sizeof (ucon) : 0));
  }
  static __host__ __device__ __forceinline__ tvl1_tile < S > tile (void *smem,
      int rows)
  {
    tvl1h_pair *const p = (tvl1h_pair *) smem;
    tvl1_tile < S > s;

    s.p.d = p;
    s.p.pitch = tvl1_tile_x (rows);
    s.du.d = (__half2 *) (p + tvl1_tile_x (rows) * rows);
    s.du.pitch = tvl1_tile_x (rows);
    s.pcon = s.ucon = NULL;
    if (consts_in_tile (rows)) {
      s.pcon = s.du.d + tvl1_tile_x (rows) * rows;
      s.ucon = (pcon *) s.pcon + tvl1_tile_x (rows) * rows;
    }
    return s;
  }
};

/* BLOCKED's thread rows on a tile of @rows: the traits' BLOCKED_BY, or
 * the tile's height where that is lower (fp16's 16-row tiles: one row
 * per thread; fp32's: two), or half the tile where BLOCKED_BY does not
 * divide it (fp16's 48-row tiles: 24 thread rows of two cells). */
template < typename S > static __host__ __device__ constexpr int
tvl1_blocked_by (int rows)
{
  return rows < tvl1_traits < S >::BLOCKED_BY ? rows :
      rows % tvl1_traits < S >::BLOCKED_BY ? rows / 2 :
      tvl1_traits < S >::BLOCKED_BY;
}

/* BLOCKED's cells per thread along x on a tile of @rows: two (32 thread
 * columns), or on the 32-wide 16-row tiles of coarse levels one:
 * there a launch is as long as one block's iterations, and each thread's
 * share of them is a chain of dependent steps, so halving it shortens
 * the launch. */
static __host__ __device__ constexpr int
tvl1_blocked_nx (int rows)
{
  return rows == 16 ? 1 : 2;
}

/* BLOCKED's threads along x */
static __host__ __device__ constexpr int
tvl1_blocked_bx (int rows)
{
  return tvl1_tile_x (rows) / tvl1_blocked_nx (rows);
}

/* ---------------------------------------------------------------------
 * FUSED
 * --------------------------------------------------------------------- */

/** \brief FUSED U-kernel: V, Div (both fields) and U at one pixel, u in
 *  place, and the block's partial of the ε sum when @partials is set. p is
 *  only read here (west and north neighbours). */
template < typename S > __global__ static void
tvl1_fused_u_kernel (typename tvl1_traits < S >::consts k, S s, int w, int h,
    float lt, float theta, double *partials, const tvl1_control * ctl, int n)
{
  typedef tvl1_traits < S > T;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  double term = 0.0;

  if (tvl1_skipped (ctl, n))
    return;                     /* uniform per block */
  if (x < w && y < h)
    term = T::u_step (s, T::ucon_at (k, x, y), x, y, x, y, w, h, lt, theta);
  tvl1_store_partial (term, partials, NULL);
}

/** \brief FUSED P-kernel: fG of both components of the new u (east and
 *  south neighbours; u is only read here) and P on both dual fields in
 *  place. With @partials set, block (0, 0) first runs the reducer of this
 *  iteration (the U-kernel that wrote the partials has finished). */
template < typename S > __global__ static void
tvl1_fused_p_kernel (typename tvl1_traits < S >::consts k, S s, int w, int h,
    float taut, tvl1_control * ctl, int n, const double *partials,
    int n_partials, double count, double eps2)
{
  typedef tvl1_traits < S > T;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (tvl1_skipped (ctl, n))
    return;                     /* uniform per block */
  if (partials != NULL && blockIdx.x == 0 && blockIdx.y == 0)
    tvl1_reduce (ctl, partials, n_partials, count, eps2, n);
  if (x >= w || y >= h)
    return;
  T::p_step (s, T::pcon_at (k, x, y), x, y, x, y, w, h, T::taut_of (taut));
}

/* ---------------------------------------------------------------------
 * BLOCKED
 * --------------------------------------------------------------------- */

/* A BLOCKED launch's place in its warp, for states that are increments
 * (tvl1_traits::increments; fp32 plans pass no flags). The first launch
 * of a warp starts from du = 0 and, on a level's first warp, p = 0
 * without reading either (no memset, no zeroing pass); the last one
 * writes u0 + du (the sum of tvl1-half.cu's apply kernel) instead of du,
 * and p only when another warp of the level follows. Zeros are zeros and
 * the sum is the same fp32 addition, so this changes no bits. */
struct tvl1_ends
{
  unsigned flags;               /* TVL1_ENDS_* */
  tvl1_field u0, out;           /* TVL1_ENDS_FINISH: out may be u0 */
};
#define TVL1_ENDS_DU_ZERO 1u
#define TVL1_ENDS_P_ZERO 2u
#define TVL1_ENDS_FINISH 4u
#define TVL1_ENDS_KEEP_P 8u
/* the kernel before wrote the warp's constants: wait for it first */
#define TVL1_ENDS_WAIT_FIRST 16u

/* BLOCKED's start: tile cell (lx, ly) of image pixel (x, y) from @in, or
 * the zeros a warp starts from (tvl1_ends). After cf_pdl_wait: @in is
 * the previous launch's output, read through L2. */
template < typename S > static __host__ __device__ __forceinline__ void
tvl1_blocked_load (const tvl1_tile < S > &tile, const S & in,
    const tvl1_ends & e, int lx, int ly, int x, int y)
{
  typedef tvl1_traits < S > T;

  if (T::increments && (e.flags & TVL1_ENDS_DU_ZERO))
    T::set_u (tile, lx, ly, T::zero_u ());
  else
    T::set_u (tile, lx, ly, T::load_u (in, x, y));
  if (T::increments && (e.flags & TVL1_ENDS_P_ZERO))
    T::set_p (tile, lx, ly, T::zero_p ());
  else
    T::set_p (tile, lx, ly, T::load_p (in, x, y));
}

/* What one BLOCKED thread keeps in registers for its launch: the warp's
 * constants at its cells and which of its cells are in the image. Thread
 * (tx, ty) owns the cells (tx + BX i, ty + BY j), i < NX, j < NY. */
template < typename S, int ROWS > struct tvl1_blocked_regs
{
  static constexpr int BX = tvl1_blocked_bx (ROWS);
  static constexpr int BY = tvl1_blocked_by < S > (ROWS);
  static constexpr int NX = tvl1_blocked_nx (ROWS), NY = ROWS / BY;
  static_assert (ROWS % BY == 0, "thread rows must divide the tile");

  typename tvl1_traits < S >::ucon cu[NY][NX];
  typename tvl1_traits < S >::pcon cp[NY][NX];
  unsigned inside;              /* bit j NX + i: cell (i, j) in the image */
};

/* Tile cell (@lx, @ly) of @plane, a tile's plane of constants C
 * (tvl1_tile::ucon or ::pcon, where tvl1_traits::consts_in_tile) */
template < typename C > static __host__ __device__ __forceinline__ C &
tvl1_tile_consts (void *plane, int rows, int lx, int ly)
{
  return ((C *) plane)[lx + ly * tvl1_tile_x (rows)];
}

/* Image position, along one axis, of tile cell 0 of block @b of a launch
 * of @t iterations on tiles @cells long: the interior starts at t. */
static __host__ __device__ __forceinline__ int
tvl1_blocked_origin (int b, int cells, int t)
{
  return b * (cells - 2 * t) - t;
}

/* The grid of a BLOCKED launch of @t iterations on a @w x @h level, tiles
 * of @rows: one block per interior of (tvl1_tile_x (rows) − 2t) x
 * (rows − 2t) cells (tvl1_blocked_origin) */
static inline dim3
tvl1_blocked_grid (int w, int h, int rows, int t)
{
  return dim3 (cf_div_up (w, tvl1_tile_x (rows) - 2 * t),
      cf_div_up (h, rows - 2 * t));
}

/* Whether the tile of @rows at (@ox, @oy) lies at least one pixel
 * inside every border of the w x h image: then all its cells are in the
 * image and none is on a border, and its steps run without the border
 * tests (TVL1_INTERIOR), most of a large level's tiles */
static __host__ __device__ __forceinline__ bool
tvl1_blocked_interior (int ox, int oy, int rows, int w, int h)
{
  return ox >= 1 && oy >= 1 && ox + tvl1_tile_x (rows) <= w - 1 &&
      oy + rows <= h - 1;
}

/* The phases of tvl1_blocked_kernel for thread (@tx, @ty), each a
 * function so that cf_cuda_tvl1_emulate runs them for every thread of a
 * block in turn, as the kernel's barriers order them (tvl1-emu.cu).
 * Begin: the constants of the thread's cells, and for fp32 their state
 * (tvl1_blocked_kernel says why there). */
template < typename S, int ROWS > static __host__ __device__ __forceinline__
void
tvl1_blocked_begin (tvl1_blocked_regs < S, ROWS > &r,
    const tvl1_tile < S > &tile, const typename tvl1_traits < S >::consts & k,
    const S & in, const tvl1_ends & e, int ox, int oy, int w, int h, int tx,
    int ty)
{
  typedef tvl1_traits < S > T;
  typedef tvl1_blocked_regs < S, ROWS > R;
  int i, j;

  r.inside = 0;
CF_UNROLL
  for (j = 0; j < R::NY; j++) {
CF_UNROLL
    for (i = 0; i < R::NX; i++) {
      const int lx = tx + R::BX * i;
      const int ly = ty + R::BY * j;
      const int x = ox + lx, y = oy + ly;

      if (x >= 0 && x < w && y >= 0 && y < h) {
        r.inside |= 1u << (j * R::NX + i);
        r.cu[j][i] = T::ucon_at (k, x, y);
        r.cp[j][i] = T::pcon_at (k, x, y);
        if (!T::increments)
          tvl1_blocked_load < S > (tile, in, e, lx, ly, x, y);
      } else {
        T::no_consts (r.cu[j][i], r.cp[j][i]);
      }
      if (T::consts_in_tile (ROWS)) {
        tvl1_tile_consts < typename T::ucon > (tile.ucon, ROWS, lx, ly) =
            r.cu[j][i];
        tvl1_tile_consts < typename T::pcon > (tile.pcon, ROWS, lx, ly) =
            r.cp[j][i];
      }
    }
  }
}

/* fp16: the state of the thread's cells in the image, after the wait */
template < typename S, int ROWS > static __host__ __device__ __forceinline__
void
tvl1_blocked_load_state (const tvl1_blocked_regs < S, ROWS > &r,
    const tvl1_tile < S > &tile, const S & in, const tvl1_ends & e, int ox,
    int oy, int tx, int ty)
{
  typedef tvl1_blocked_regs < S, ROWS > R;
  int i, j;

CF_UNROLL
  for (j = 0; j < R::NY; j++) {
CF_UNROLL
    for (i = 0; i < R::NX; i++) {
      const int lx = tx + R::BX * i;
      const int ly = ty + R::BY * j;

      if (r.inside >> (j * R::NX + i) & 1u)
        tvl1_blocked_load < S > (tile, in, e, lx, ly, ox + lx, oy + ly);
    }
  }
}

/* Step @s of the thread's rows of cells: U (P_STEP false) on rows
 * [s+1, C−s), P on rows [s+1, C−s−1), every column of them. Only the
 * cells in [s+1, C−s) (U) and [s+1, C−s−1) (P) along both axes are
 * needed, where p, respectively u, is valid (p on [s, C−s) and u on
 * [s+1, C−s) before them; the whole tile at s = 0): the others compute
 * from stale or unloaded cells, and nothing needed ever reads them (the
 * cells a needed cell reads are needed at the step before; cells of the
 * image never read outside it, TVL1_EDGES), so they may be stored. A row
 * of threads is one warp (BX = 32), so the rows' test is uniform and the
 * columns need none: a per-cell branch would cost more instructions than
 * the lanes it idles, which take the warp's issue slots either way. The
 * rows' test keeps whole warps idle and the reads in the tile (U reads
 * the row above, P the row below; a row's first cell reads the end of the
 * previous row, its last the start of the next). TVL1_INTERIOR: every
 * cell of the tile is in the image and none on its border
 * (tvl1_blocked_interior); else rows outside the image are skipped. */
template < bool P_STEP, tvl1_where WHERE, typename S, int ROWS >
static __host__ __device__ __forceinline__ void
tvl1_blocked_step (const tvl1_blocked_regs < S, ROWS > &r,
    const tvl1_tile < S > &tile, int ox, int oy, int w, int h, float lt,
    float theta, typename tvl1_traits < S >::taut_t tt, int s, int tx,
    int ty)
{
  typedef tvl1_traits < S > T;
  typedef tvl1_blocked_regs < S, ROWS > R;
  const int CY = ROWS, last = P_STEP ? 1 : 0;
  const bool all_inside = WHERE == TVL1_INTERIOR;
  int i, j;

  static_assert (R::BX == 32, "a row of threads must be one warp");
CF_UNROLL
  for (j = 0; j < R::NY; j++) {
    const int ly = ty + R::BY * j;

    if (ly <= s || ly >= CY - s - last ||
        (!all_inside && (oy + ly < 0 || oy + ly >= h)))
      continue;
CF_UNROLL
    for (i = 0; i < R::NX; i++) {
      const int lx = tx + R::BX * i;

      if (P_STEP)
        T::template p_step < WHERE > (tile, T::consts_in_tile (ROWS) ?
            tvl1_tile_consts < typename T::pcon > (tile.pcon, ROWS, lx, ly)
            : r.cp[j][i], lx, ly, ox + lx, oy + ly, w, h, tt);
      else
        T::template u_step < WHERE > (tile, T::consts_in_tile (ROWS) ?
            tvl1_tile_consts < typename T::ucon > (tile.ucon, ROWS, lx, ly)
            : r.cu[j][i], lx, ly, ox + lx, oy + ly, w, h, lt, theta);
    }
  }
}

/* End: the thread's cells in the interior [t, C−t), the state after t
 * iterations, to @out (or, as @e says, u0 + du to e.out) */
template < typename S, int ROWS > static __host__ __device__ __forceinline__
void
tvl1_blocked_end (const tvl1_blocked_regs < S, ROWS > &r,
    const tvl1_tile < S > &tile, const S & out, const tvl1_ends & e, int ox,
    int oy, int t, int tx, int ty)
{
  typedef tvl1_traits < S > T;
  typedef tvl1_blocked_regs < S, ROWS > R;
  const int CX = tvl1_tile_x (ROWS), CY = ROWS;
  int i, j;

CF_UNROLL
  for (j = 0; j < R::NY; j++) {
CF_UNROLL
    for (i = 0; i < R::NX; i++) {
      const int lx = tx + R::BX * i;
      const int ly = ty + R::BY * j;

      if ((r.inside >> (j * R::NX + i) & 1u) && lx >= t && lx < CX - t &&
          ly >= t && ly < CY - t) {
        const int x = ox + lx, y = oy + ly;
        const bool finish = T::increments && (e.flags & TVL1_ENDS_FINISH);

        if (finish) {
          const float2 d = T::to_float2 (T::get_u (tile, lx, ly));
          const size_t iu = x + (size_t) y * e.u0.pitch;
          const size_t io = x + (size_t) y * e.out.pitch;

          e.out.a[io] = e.u0.a[iu] + d.x;
          e.out.b[io] = e.u0.b[iu] + d.y;
        } else {
          T::set_u (out, x, y, T::get_u (tile, lx, ly));
        }
        if (!finish || (e.flags & TVL1_ENDS_KEEP_P))
          T::set_p (out, x, y, T::get_p (tile, lx, ly));
      }
    }
  }
}

/* The kernel's @t steps, each U then P, between barriers */
template < tvl1_where WHERE, typename S, int ROWS >
static __device__ __forceinline__ void
tvl1_blocked_steps (const tvl1_blocked_regs < S, ROWS > &r,
    const tvl1_tile < S > &tile, int ox, int oy, int w, int h, float lt,
    float theta, typename tvl1_traits < S >::taut_t tt, int t, int tx, int ty)
{
  for (int s = 0; s < t; s++) {
    tvl1_blocked_step < false, WHERE > (r, tile, ox, oy, w, h, lt, theta, tt,
        s, tx, ty);
    __syncthreads ();
    tvl1_blocked_step < true, WHERE > (r, tile, ox, oy, w, h, lt, theta, tt,
        s, tx, ty);
    __syncthreads ();
  }
}

/** \brief BLOCKED: @t iterations of the FUSED U and P steps on one tile of
 *  tvl1_tile_x (ROWS) x ROWS cells (see the top of the file), reading the
 *  state from @in and writing the tile's (C − 2t) x (ROWS − 2t) interior
 *  to @out (or, as @e says, u0 + du to e.out). Dynamic shared memory:
 *  tvl1_traits::tile_bytes (ROWS). Blocks of BX x BY threads
 *  (tvl1_blocked_bx, tvl1_blocked_by); thread (tx, ty) owns the cells
 *  (tx + BX i, ty + BY j), i < NX = C / BX, j < NY = ROWS / BY. */
template < typename S, int ROWS > __global__ static void
__launch_bounds__ (tvl1_blocked_bx (ROWS) * tvl1_blocked_by < S > (ROWS),
    tvl1_traits < S >::blocked_min_blocks (ROWS))
tvl1_blocked_kernel (typename tvl1_traits < S >::consts k, S in, S out,
    int w, int h, float lt, float theta, float taut, int t, tvl1_ends e)
{
  typedef tvl1_traits < S > T;
  extern __shared__ __align__ (16) unsigned char tvl1_smem[];
  const tvl1_tile < S > tile = T::tile (tvl1_smem, ROWS);
  const int ox = tvl1_blocked_origin (blockIdx.x, tvl1_tile_x (ROWS), t);
  const int oy = tvl1_blocked_origin (blockIdx.y, ROWS, t);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const typename T::taut_t tt = T::taut_of (taut);
  tvl1_blocked_regs < S, ROWS > r;

  /* fp16 loads the warp's constants (which no BLOCKED launch writes)
   * before it waits for the launch that wrote the state, except on the
   * warp's first launch, fp32 after: holding 4 of them for each of its 8
   * cells across the wait made ptxas spill, so it waits first and loads
   * each cell's constants and state together */
  if (!T::increments || (e.flags & TVL1_ENDS_WAIT_FIRST))
    cf_pdl_wait ();
  tvl1_blocked_begin (r, tile, k, in, e, ox, oy, w, h, tx, ty);
  if (T::increments) {
    cf_pdl_wait ();
    tvl1_blocked_load_state (r, tile, in, e, ox, oy, tx, ty);
  }
  /* The next launch may start now, after this one's wait: it reads the
   * warp's constants before its own wait, which is safe only once the
   * kernel that wrote them (the constants kernel, which lets its
   * dependents start at once) has completed, as this wait implies.
   * Triggering before the wait would let a chain of launches start while
   * the constants are still being written. */
  cf_pdl_launch_dependents ();
  __syncthreads ();

  if (tvl1_blocked_interior (ox, oy, ROWS, w, h))
    tvl1_blocked_steps < TVL1_INTERIOR > (r, tile, ox, oy, w, h, lt, theta,
        tt, t, tx, ty);
  else
    tvl1_blocked_steps < TVL1_EDGES > (r, tile, ox, oy, w, h, lt, theta, tt,
        t, tx, ty);
  tvl1_blocked_end (r, tile, out, e, ox, oy, t, tx, ty);
}

#endif /* CF_CUDA_TVL1_ITERATE_CUH */
