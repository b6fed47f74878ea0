/* gst-cudaflow — TV-L1's iteration kernels, run on the CPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_cuda_tvl1_emulate () runs one warp's iterations the way the plan's
 * FUSED and BLOCKED kernels do (cuda/tvl1-iterate.cuh), through the very
 * functions those kernels call, on host memory and without a GPU:
 *  - FUSED: per iteration, the U step at every pixel, then the P step at
 *    every pixel, on whole planes (each kernel reads only what the other
 *    writes, so any order of its pixels gives the kernel's result);
 *  - BLOCKED: launches of T iterations and a last shorter one, as the
 *    plan's run_blocked issues them; each launch runs its blocks one after
 *    another, and in each block the kernel's phases (tvl1_blocked_begin,
 *    _load_state, _step, _end) for every thread in turn, as the kernel's
 *    barriers order them. The tile starts as NaN, so a cell read before
 *    any thread wrote it shows in the result.
 * fp32 runs the CPU reference's arithmetic (tvl1-ops.cuh), so both
 * kernels must give cf_tvl1_iteration's bits. fp16 runs the half2 state
 * with the host's stand-ins for the device's approximate half2 square
 * root and reciprocal (tvl1-ops.cuh): BLOCKED must give FUSED's bits, the
 * device's are not these. What this cannot check is the launch itself:
 * the barriers, the shared-memory races and programmatic dependent
 * launch are the GPU suite's (cuda/tvl1, with racecheck).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/tvl1-iterate.cuh"

#include <string.h>
#include <vector>

namespace {

/* A warp's constants and state in the kernels' layout, in host memory */
template < typename S > struct emu_warp;

template <> struct emu_warp <tvl1_state_f32 >
{
  typedef tvl1_state_f32 S;
  int w, h;
  std::vector < float >wx, wy, g, rc, planes[2];
  tvl1_consts k;
  S st[2];                      /* the state and the other copy */

  void init (const cf_cuda_tvl1_emu_warp * p)
  {
    const size_t n = (size_t) p->width * p->height;

    w = p->width;
    h = p->height;
    wx = plane (p->i1wx, p->pitch);
    wy = plane (p->i1wy, p->pitch);
    g = plane (p->grad, p->pitch);
    rc = plane (p->rho_c, p->pitch);
    k.wx = wx.data ();
    k.wy = wy.data ();
    k.g = g.data ();
    k.rc = rc.data ();
    k.pwx = k.pwy = k.pg = k.prc = w;
    for (int c = 0; c < 2; c++) {
      float *f;

      planes[c].assign (6 * n, NAN);
      f = planes[c].data ();
      st[c].u = field (f, f + n);
      st[c].p1 = field (f + 2 * n, f + 3 * n);
      st[c].p2 = field (f + 4 * n, f + 5 * n);
    }
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const size_t i = x + (size_t) y * w, j = x + (size_t) y * p->pitch;

        st[0].u.a[i] = p->u[0][j];
        st[0].u.b[i] = p->u[1][j];
        st[0].p1.a[i] = p->p1[0][j];
        st[0].p1.b[i] = p->p1[1][j];
        st[0].p2.a[i] = p->p2[0][j];
        st[0].p2.b[i] = p->p2[1][j];
      }
  }
  void store (int c, cf_cuda_tvl1_emu_warp * p) const
  {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const size_t i = x + (size_t) y * w, j = x + (size_t) y * p->pitch;

        p->u[0][j] = st[c].u.a[i];
        p->u[1][j] = st[c].u.b[i];
        p->p1[0][j] = st[c].p1.a[i];
        p->p1[1][j] = st[c].p1.b[i];
        p->p2[0][j] = st[c].p2.a[i];
        p->p2[1][j] = st[c].p2.b[i];
      }
  }
  std::vector < float >plane (const float *src, size_t pitch) const
  {
    std::vector < float >v ((size_t) w * h);

    for (int y = 0; y < h; y++)
      memcpy (&v[(size_t) y * w], src + (size_t) y * pitch,
          (size_t) w * sizeof (float));
    return v;
  }
  tvl1_field field (float *a, float *b) const
  {
    tvl1_field f;

    f.a = a;
    f.b = b;
    f.pitch = w;
    return f;
  }
};

template <> struct emu_warp <tvl1_state_f16 >
{
  typedef tvl1_state_f16 S;
  int w, h;
  std::vector < tvl1h_pair > th, gu0, p[2];
  std::vector < __half2 > du[2];
  std::vector < float >u0, out;
  tvl1h_consts k;
  S st[2];

  void init (const cf_cuda_tvl1_emu_warp * q)
  {
    const size_t n = (size_t) q->width * q->height;
    tvl1h_pair nan_pair;

    w = q->width;
    h = q->height;
    nan_pair.a = nan_pair.b = __float2half2_rn (NAN);
    th.resize (n);
    gu0.resize (n);
    u0.assign (2 * n, 0.0f);
    out.assign (2 * n, NAN);
    for (int c = 0; c < 2; c++) {
      p[c].assign (n, nan_pair);
      du[c].assign (n, __float2half2_rn (NAN));
      st[c].du.d = du[c].data ();
      st[c].du.pitch = w;
      st[c].p.d = p[c].data ();
      st[c].p.pitch = w;
    }
    k.th.d = th.data ();
    k.gu0.d = gu0.data ();
    k.th.pitch = k.gu0.pitch = w;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const size_t i = x + (size_t) y * w, j = x + (size_t) y * q->pitch;

        th[i].a = __floats2half2_rn (q->i1wx[j], q->i1wy[j]);
        th[i].b = __floats2half2_rn (q->grad[j], q->rho_c[j]);
        gu0[i].a = __floats2half2_rn (q->u0x[0][j], q->u0x[1][j]);
        gu0[i].b = __floats2half2_rn (q->u0y[0][j], q->u0y[1][j]);
        du[0][i] = __floats2half2_rn (q->u[0][j], q->u[1][j]);
        p[0][i].a = __floats2half2_rn (q->p1[0][j], q->p2[0][j]);
        p[0][i].b = __floats2half2_rn (q->p1[1][j], q->p2[1][j]);
        if (q->u0[0] != NULL) {
          u0[i] = q->u0[0][j];
          u0[n + i] = q->u0[1][j];
        }
      }
  }
  void store (int c, cf_cuda_tvl1_emu_warp * q) const
  {
    const size_t n = (size_t) w * h;

    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const size_t i = x + (size_t) y * w, j = x + (size_t) y * q->pitch;
        const float2 d = __half22float2 (du[c][i]);
        const float2 pa = __half22float2 (p[c][i].a);
        const float2 pb = __half22float2 (p[c][i].b);

        q->u[0][j] = d.x;
        q->u[1][j] = d.y;
        q->p1[0][j] = pa.x;
        q->p2[0][j] = pa.y;
        q->p1[1][j] = pb.x;
        q->p2[1][j] = pb.y;
        if (q->out[0] != NULL) {
          q->out[0][j] = out[i];
          q->out[1][j] = out[n + i];
        }
      }
  }
  /* tvl1_ends's fields for the finish: u0 and u0 + du, in host planes */
  tvl1_field u0_field ()
  {
    return field (u0.data ());
  }
  tvl1_field out_field ()
  {
    return field (out.data ());
  }
  tvl1_field field (float *f)
  {
    tvl1_field r;

    r.a = f;
    r.b = f + (size_t) w * h;
    r.pitch = w;
    return r;
  }
};

/* The fp16 finish (FINISH, the apply kernel's sum): u0 + du, in fp32.
 * fp32 plans have none (cf_cuda_tvl1_emulate refuses it). */
static void
emu_set_finish (emu_warp < tvl1_state_f32 > &, tvl1_ends &)
{
}

static void
emu_set_finish (emu_warp < tvl1_state_f16 > &wp, tvl1_ends & e)
{
  e.u0 = wp.u0_field ();
  e.out = wp.out_field ();
}

static void
emu_finish (emu_warp < tvl1_state_f32 > &)
{
}

static void
emu_finish (emu_warp < tvl1_state_f16 > &wp)
{
  const size_t n = (size_t) wp.w * wp.h;

  for (size_t i = 0; i < n; i++) {
    const float2 d = __half22float2 (wp.du[0][i]);

    wp.out[i] = wp.u0[i] + d.x;
    wp.out[n + i] = wp.u0[n + i] + d.y;
  }
}

/* tvl1_blocked_steps: each step's U for every thread, then its P */
template < tvl1_where WHERE, typename S, int ROWS > static void
emulate_steps (const std::vector < tvl1_blocked_regs < S, ROWS > >&regs,
    const tvl1_tile < S > &tile, int ox, int oy, int w, int h, float lt,
    float theta, typename tvl1_traits < S >::taut_t tt, int t)
{
  typedef tvl1_blocked_regs < S, ROWS > R;

  for (int s = 0; s < t; s++) {
    for (int ty = 0; ty < R::BY; ty++)
      for (int tx = 0; tx < R::BX; tx++)
        tvl1_blocked_step < false, WHERE > (regs[tx + ty * R::BX], tile, ox,
            oy, w, h, lt, theta, tt, s, tx, ty);
    for (int ty = 0; ty < R::BY; ty++)
      for (int tx = 0; tx < R::BX; tx++)
        tvl1_blocked_step < true, WHERE > (regs[tx + ty * R::BX], tile, ox,
            oy, w, h, lt, theta, tt, s, tx, ty);
  }
}

/* One BLOCKED launch of @t iterations on tvl1_tile_x (ROWS) x ROWS tiles,
 * from st[@from] to the other copy */
template < typename S, int ROWS > static void
emulate_launch (emu_warp < S > &wp, int from, float lt, float theta,
    float taut, int t, const tvl1_ends & e)
{
  typedef tvl1_traits < S > T;
  typedef tvl1_blocked_regs < S, ROWS > R;
  const dim3 grid = tvl1_blocked_grid (wp.w, wp.h, ROWS, t);
  const int gx = (int) grid.x, gy = (int) grid.y;
  const typename T::taut_t tt = T::taut_of (taut);
  const S & in = wp.st[from], &out = wp.st[1 - from];
  std::vector < uint4 > smem ((T::tile_bytes (ROWS) + 15) / 16);
  std::vector < R > regs (R::BX * R::BY);
  const tvl1_tile < S > tile = T::tile (smem.data (), ROWS);

  for (int by = 0; by < gy; by++)
    for (int bx = 0; bx < gx; bx++) {
      const int ox = tvl1_blocked_origin (bx, tvl1_tile_x (ROWS), t);
      const int oy = tvl1_blocked_origin (by, ROWS, t);

      /* all ones: NaN as float and as half */
      memset (smem.data (), 0xff, smem.size () * sizeof (uint4));
      for (int ty = 0; ty < R::BY; ty++)
        for (int tx = 0; tx < R::BX; tx++)
          tvl1_blocked_begin (regs[tx + ty * R::BX], tile, wp.k, in, e, ox,
              oy, wp.w, wp.h, tx, ty);
      if (T::increments)
        for (int ty = 0; ty < R::BY; ty++)
          for (int tx = 0; tx < R::BX; tx++)
            tvl1_blocked_load_state (regs[tx + ty * R::BX], tile, in, e, ox,
                oy, tx, ty);
      if (tvl1_blocked_interior (ox, oy, ROWS, wp.w, wp.h))
        emulate_steps < TVL1_INTERIOR > (regs, tile, ox, oy, wp.w, wp.h, lt,
            theta, tt, t);
      else
        emulate_steps < TVL1_EDGES > (regs, tile, ox, oy, wp.w, wp.h, lt,
            theta, tt, t);
      for (int ty = 0; ty < R::BY; ty++)
        for (int tx = 0; tx < R::BX; tx++)
          tvl1_blocked_end (regs[tx + ty * R::BX], tile, out, e, ox, oy, t,
              tx, ty);
    }
}

/* The plan's run_blocked on the CPU: launches of @block iterations and a
 * last shorter one on tiles of @rows; the first launch starts from zeros
 * with @zero_start, the last writes u0 + du with @finish (fp16).
 * Returns the copy that holds the result. */
template < typename S > static int
emulate_blocked (emu_warp < S > &wp, float lt, float theta, float taut,
    int iterations, int block, int rows, int zero_start, int finish)
{
  int from = 0, n = 0;

  while (n < iterations) {
    const int t = iterations - n < block ? iterations - n : block;
    tvl1_ends e;

    memset (&e, 0, sizeof (e));
    if (n == 0 && zero_start)
      e.flags |= TVL1_ENDS_DU_ZERO | TVL1_ENDS_P_ZERO;
    if (n + t == iterations && finish)
      e.flags |= TVL1_ENDS_FINISH | TVL1_ENDS_KEEP_P;
    if (finish)
      emu_set_finish (wp, e);
    if (rows == 16)
      emulate_launch < S, 16 > (wp, from, lt, theta, taut, t, e);
    else if (rows == 32)
      emulate_launch < S, 32 > (wp, from, lt, theta, taut, t, e);
    else if (rows == 48)
      emulate_launch < S, 48 > (wp, from, lt, theta, taut, t, e);
    else
      emulate_launch < S, 64 > (wp, from, lt, theta, taut, t, e);
    from = 1 - from;
    n += t;
  }
  return from;
}

/* FUSED on the CPU: the U step at every pixel, then the P step */
template < typename S > static int
emulate_fused (emu_warp < S > &wp, float lt, float theta, float taut,
    int iterations, int zero_start, int finish)
{
  typedef tvl1_traits < S > T;
  const S & s = wp.st[0];
  const typename T::taut_t tt = T::taut_of (taut);

  if (zero_start)
    for (int y = 0; y < wp.h; y++)
      for (int x = 0; x < wp.w; x++) {
        T::set_u (s, x, y, T::zero_u ());
        T::set_p (s, x, y, T::zero_p ());
      }
  for (int n = 0; n < iterations; n++) {
    for (int y = 0; y < wp.h; y++)
      for (int x = 0; x < wp.w; x++)
        T::u_step (s, T::ucon_at (wp.k, x, y), x, y, x, y, wp.w, wp.h, lt,
            theta);
    for (int y = 0; y < wp.h; y++)
      for (int x = 0; x < wp.w; x++)
        T::p_step (s, T::pcon_at (wp.k, x, y), x, y, x, y, wp.w, wp.h, tt);
  }
  if (finish)
    emu_finish (wp);
  return 0;
}

template < typename S > static cf_status
emulate (cf_cuda_tvl1_emu_warp * warp, cf_tvl1_kernel kernel,
    int iterations, int block_iterations, int tile_rows, int zero_start,
    int finish, float lambda, float theta, float tau)
{
  emu_warp < S > wp;
  /* rounded as the plan rounds them (iter_args_init) */
  const float lt = lambda * theta, taut = tau / theta;
  int result;

  wp.init (warp);
  if (kernel == CF_TVL1_KERNEL_BLOCKED)
    result = emulate_blocked (wp, lt, theta, taut, iterations,
        block_iterations, tile_rows, zero_start, finish);
  else
    result = emulate_fused (wp, lt, theta, taut, iterations, zero_start,
        finish);
  wp.store (result, warp);
  return CF_OK;
}

}                               /* namespace */

extern "C" cf_status
cf_cuda_tvl1_emulate (cf_cuda_tvl1_emu_warp * warp, cf_precision precision,
    cf_tvl1_kernel kernel, int iterations, int block_iterations,
    int tile_rows, int zero_start, int finish, float lambda, float theta,
    float tau)
{
  const int fp16 = precision == CF_PRECISION_FP16;

  if (warp == NULL || warp->width < 1 || warp->height < 1 ||
      warp->pitch < (size_t) warp->width || iterations < 0 ||
      (precision != CF_PRECISION_FP32 && !fp16) ||
      (kernel != CF_TVL1_KERNEL_FUSED && kernel != CF_TVL1_KERNEL_BLOCKED) ||
      ((zero_start || finish) && !fp16) ||
      (finish && (warp->u0[0] == NULL || warp->u0[1] == NULL ||
              warp->out[0] == NULL || warp->out[1] == NULL)) ||
      (fp16 && (warp->u0x[0] == NULL || warp->u0x[1] == NULL ||
              warp->u0y[0] == NULL || warp->u0y[1] == NULL)) ||
      !(theta > 0.0f))
    return CF_ERROR_INVALID;
  if (kernel == CF_TVL1_KERNEL_BLOCKED &&
      (block_iterations < 1 ||
          block_iterations > CF_TVL1_MAX_BLOCK_ITERATIONS ||
          !tvl1_tile_rows_valid (tile_rows) ||
          tile_rows - 2 * block_iterations < 1))
    return CF_ERROR_INVALID;
  if (fp16)
    return emulate < tvl1_state_f16 > (warp, kernel, iterations,
        block_iterations, tile_rows, zero_start, finish, lambda, theta, tau);
  return emulate < tvl1_state_f32 > (warp, kernel, iterations,
      block_iterations, tile_rows, zero_start, finish, lambda, theta, tau);
}
