/* gst-cudaflow — Horn–Schunck's STREAM kernel, run on the CPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_cuda_hs_emulate () runs the STREAM kernel's program
 * (cuda/hs-stream.cuh) on host memory without a GPU: each launch runs its
 * blocks one after another, and in each block the kernel's phases for
 * every thread in turn, in the order hs_jacobi_stream_kernel's barriers
 * give them (cp.async copies land at once here). Or, with @simple, the
 * same sweeps as SIMPLE runs them: every cell from its clamped neighbours,
 * one whole sweep at a time. The two must agree bit for bit: that checks
 * the strips, segments, skewed pieces, carries, ghosts and the rows a
 * strip skips, which a wrong index would show as other bits. What this
 * cannot check is the launch itself (barriers, races, programmatic
 * dependent launch) and the device's fp16 fma: the GPU suite's
 * (cuda/hs, with racecheck).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/hs.h"
#include "cuda/hs-stream.cuh"

#include <vector>

namespace {

typedef hs_stream_g emu_geom;   /* the plan's */
static_assert (emu_geom::K == CF_CUDA_HS_STREAM_DEPTH, "the kernel's K");

/* One STREAM launch from @in into @out; false where a segment has no
 * origin (hs_stream_origin: never) */
template < class G, typename S > bool
emu_stream_launch (const hs_coef_planes & g, int width, int height,
    int seg_rows, int zero_in, const S & in, const S & out)
{
  typedef typename hs_traits < S >::cell cell;
  const int n = G::RW * G::BY;
  const int bx_n = (width + G::TW - 1) / G::TW;
  const int by_n = (height + seg_rows - 1) / seg_rows;
  std::vector < cell > smem (G::CELLS);
  std::vector < hs_stream_thread < G, S > >th (n);

  for (int by = 0; by < by_n; by++)
    for (int bx = 0; bx < bx_n; bx++) {
      const hs_stream_block b = hs_stream_block_at (width, height,
          seg_rows, G::TW, G::H, G::K, bx, by);

      if (b.z0 == INT_MIN)
        return false;
      /* shared memory starts as garbage: NaN, which no result may see */
      for (size_t i = 0; i < smem.size (); i++)
        smem[i] = hs_traits < S >::pack (make_float2 (NAN, NAN));
      for (int t = 0; t < n; t++) {
        hs_stream_init (th[t], b, t % G::RW, t / G::RW);
        hs_stream_zero (th[t], smem.data (), t, n);
      }
      for (int t = 0; t < n; t++)
        hs_stream_coefs (th[t], b, g, 0);
      for (int t = 0; t < n; t++)
        hs_stream_issue_input (th[t], b, smem.data (), in, zero_in, 0);
      for (int t = 0; t < n; t++)
        hs_stream_finish_input (th[t], b, smem.data (), 0);
      for (int p = 0; p < b.pieces; p++) {
        for (int s = 1; s < G::K; s++)
          for (int t = 0; t < n; t++)
            hs_stream_sweep (th[t], b, smem.data (), g, out, p, s);
        if (p + 1 < b.pieces)
          for (int t = 0; t < n; t++)
            hs_stream_issue_input (th[t], b, smem.data (), in, zero_in,
                p + 1);
        for (int t = 0; t < n; t++)
          hs_stream_sweep (th[t], b, smem.data (), g, out, p, G::K);
        if (p + 1 < b.pieces)
          for (int t = 0; t < n; t++) {
            hs_stream_coefs (th[t], b, g, p + 1);
            hs_stream_finish_input (th[t], b, smem.data (), p + 1);
          }
      }
    }
  return true;
}

/* One SIMPLE sweep (hs_jacobi_simple_kernel) from @in into @out */
template < typename S > void
emu_simple_sweep (const hs_coef_planes & g, int width, int height,
    const S & in, const S & out)
{
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      out.uv[(size_t) y * out.pitch + x] = hs_simple_cell (g, width, height,
          false, in, x, y);
}

template < typename S > cf_status
emulate (const hs_coef_planes & g, int width, int height, int launches,
    int seg_rows, int simple, int zero_start, float *u, float *v,
    size_t pitch)
{
  typedef hs_traits < S > T;
  typedef typename T::cell cell;
  const size_t cells = (size_t) width * height;
  std::vector < cell > plane[2] = {
    std::vector < cell > (cells), std::vector < cell > (cells)
  };
  S s[2];
  int cur = 0;

  for (int l = 0; l < 2; l++) {
    s[l].uv = plane[l].data ();
    s[l].pitch = width;
  }
  /* from zeros: SIMPLE sweeps zeros; STREAM's first launch must not read
   * its input, which holds NaN */
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      plane[0][(size_t) y * width + x] = T::pack (!zero_start ?
          make_float2 (u[y * pitch + x], v[y * pitch + x]) : simple ?
          make_float2 (0.0f, 0.0f) : make_float2 (NAN, NAN));
  for (int n = 0; n < launches; n++) {
    if (simple) {
      for (int k = 0; k < emu_geom::K; k++) {
        emu_simple_sweep < S > (g, width, height, s[cur], s[1 - cur]);
        cur = 1 - cur;
      }
    } else {
      if (!emu_stream_launch < emu_geom, S > (g, width, height, seg_rows,
              zero_start && n == 0, s[cur], s[1 - cur]))
        return CF_ERROR_UNSUPPORTED;
      cur = 1 - cur;
    }
  }
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      float2 f = T::unpack (plane[cur][(size_t) y * width + x]);
      u[y * pitch + x] = f.x;
      v[y * pitch + x] = f.y;
    }
  return CF_OK;
}

}                               /* namespace */

extern "C" cf_status
cf_cuda_hs_emulate (const float *a, const float *b, const float *c,
    int width, int height, size_t pitch, cf_precision precision,
    int launches, int seg_rows, int simple, int zero_start, float *u,
    float *v)
{
  hs_coef_planes g;

  if (a == NULL || b == NULL || c == NULL || u == NULL || v == NULL ||
      width < 1 || height < 1 || pitch < (size_t) width || launches < 0 ||
      seg_rows < 1 || (precision != CF_PRECISION_FP32 &&
          precision != CF_PRECISION_FP16))
    return CF_ERROR_INVALID;
  g.a = a;
  g.b = b;
  g.c = c;
  g.pa = g.pb = g.pc = pitch;
  if (precision == CF_PRECISION_FP16)
    return emulate < hs_state_f16 > (g, width, height, launches, seg_rows,
        simple, zero_start, u, v, pitch);
  return emulate < hs_state_f32 > (g, width, height, launches, seg_rows,
      simple, zero_start, u, v, pitch);
}

extern "C" cf_status
cf_cuda_hs_stream_schedule (int n_sm, int blocks_per_sm, int width,
    int height, int *seg_rows, int *blocks, double *own_share)
{
  typedef hs_stream_g G;
  int rows, strips, segments;
  double computed = 0.0;

  if (n_sm < 1 || blocks_per_sm < 1 || width < 1 || height < 1 ||
      seg_rows == NULL || blocks == NULL || own_share == NULL)
    return CF_ERROR_INVALID;
  rows = hs_stream_segment_rows < G > (blocks_per_sm, n_sm, width, height);
  strips = (width + G::TW - 1) / G::TW;
  segments = (height + rows - 1) / rows;
  for (int by = 0; by < segments; by++) {
    const hs_stream_block b = hs_stream_block_at (width, height, rows,
        G::TW, G::H, G::K, 0, by);

    for (int p = 0; p < b.pieces; p++)
      for (int t = 1; t <= G::K; t++)
        for (int s = 0; s < G::BY; s++)
          if (hs_stream_strip_computes < G > (b, b.z0 + p * G::H - t +
                  s * G::R, t))
            computed += (double) G::R * G::RW * strips;
  }
  *seg_rows = rows;
  *blocks = strips * segments;
  *own_share = (double) width * height * G::K / computed;
  return CF_OK;
}
