/* gst-cudaflow — TV-L1 on the GPU: fp16 plans' kernels around the
 * iterations
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An fp16 plan (cuda/tvl1.cu) solves each warp for the increment du on
 * half2 state. Around its iterations it runs the kernels here, all fp32:
 * one constants kernel per warp samples I1 at x + u0 and forms ∇I1 at its
 * taps (no gradient planes), writing the half2 constants the iterations
 * read; the warp ends with u ← u0 + du; and the flow entering a level is
 * the coarser one resampled with bicubic taps shared by both components.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/tvl1-half.cuh"

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
 *  others clamp each neighbour as the gradient kernel does. The gradients
 *  are summed from the differences and halved once at the end: every
 *  partial sum then holds exactly twice what it would with halved
 *  differences (doubling commutes with rounding barring underflow and
 *  overflow), so the bits are the same for 32 multiplies fewer. The two paths
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
        /* twice the centred differences (function comment) */
        const float dx = __fsub_rn (c[j + 1][i + 2], c[j + 1][i]);
        const float dy = __fsub_rn (c[j + 2][i + 1], c[j][i + 1]);

        r.x = fmaf (k.wx[i], c[j + 1][i + 1], r.x);
        r.y = fmaf (k.wx[i], dx, r.y);
        r.z = fmaf (k.wx[i], dy, r.z);
      }
      s.x = fmaf (k.wy[j], r.x, s.x);
      s.y = fmaf (k.wy[j], r.y, s.y);
      s.z = fmaf (k.wy[j], r.z, s.z);
    }
    s.y = __fmul_rn (0.5f, s.y);
    s.z = __fmul_rn (0.5f, s.z);
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
      const float dx = __fsub_rn (__ldg (row + min (x + 1, w - 1)),
          __ldg (row + max (x - 1, 0)));
      const float dy = __fsub_rn (__ldg (down + x), __ldg (up + x));

      r.x = fmaf (k.wx[i], __ldg (row + x), r.x);
      r.y = fmaf (k.wx[i], dx, r.y);
      r.z = fmaf (k.wx[i], dy, r.z);
    }
    s.x = fmaf (k.wy[j], r.x, s.x);
    s.y = fmaf (k.wy[j], r.y, s.y);
    s.z = fmaf (k.wy[j], r.z, s.z);
  }
  s.y = __fmul_rn (0.5f, s.y);
  s.z = __fmul_rn (0.5f, s.z);
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

/* One tvl1h_upsample_kernel block: 32 x 8 threads, 32 x 32 outputs (four
 * rows per thread: fewer, longer blocks hide the window's load better);
 * at a step <= 1 their taps reach at most 35 x 35 source cells (-1 .. +2
 * around 33 x 32). */
#define TVL1H_UP_ROWS 32
#define TVL1H_UP_TX 36
#define TVL1H_UP_TY (TVL1H_UP_ROWS + 4)
static_assert (TVL1_BLOCK_X + 4 <= TVL1H_UP_TX, "upsampling window too small");
/* the window's columns past the threads' 32, and the output rows' y taps
 * formed by one row of threads */
static_assert (TVL1H_UP_TX - TVL1_BLOCK_X <= TVL1_BLOCK_X &&
    TVL1H_UP_ROWS == TVL1_BLOCK_X, "upsampling block shape");

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
  __shared__ float4 wy[TVL1H_UP_ROWS];  /* each output row's y taps ... */
  __shared__ int jy[TVL1H_UP_ROWS];     /* ... and its first window row */
  const int bx = blockIdx.x * TVL1_BLOCK_X, by = blockIdx.y * TVL1H_UP_ROWS;
  const int x = bx + threadIdx.x;
  /* window origin: the first thread's tap -1, as tvl1h_taps_at floors it */
  const int ox = (int) floorf ((float) bx * fx) - 1;
  const int oy = (int) floorf ((float) by * fy) - 1;
  /* window rows up to the last output row's tap +2 */
  const int rows = (int) floorf ((float) (min (by + TVL1H_UP_ROWS, dh) - 1)
      * fy) + 3 - oy;
  tvl1h_taps k;
  int i, j, r;

  /* the y taps of output row by + threadIdx.x, formed once per block:
   * they depend on y alone */
  if (threadIdx.y == 0 && by + threadIdx.x < dh) {
    const int y = by + threadIdx.x;

    k = tvl1h_taps_at ((float) x * fx, (float) y * fy, sw, sh,
        CF_WARP_CLAMP);
    wy[threadIdx.x] = make_float4 (k.wy[0], k.wy[1], k.wy[2], k.wy[3]);
    jy[threadIdx.x] = (int) floorf ((float) y * fy) - 1 - oy;
  }
  /* the source is the previous kernel's output (through L2: PDL) */
  cf_pdl_launch_dependents ();
  cf_pdl_wait ();
  {
    /* every load of the thread in flight at once, then the stores: rows
     * threadIdx.y + 8 j of the window, column threadIdx.x and the
     * thread's share of the 4 columns past 32 */
    const int PER = (TVL1H_UP_TY + TVL1_BLOCK_Y - 1) / TVL1_BLOCK_Y;
    const int cx0 = min (max (ox + (int) threadIdx.x, 0), sw - 1);
    const int cx1 = min (max (ox + TVL1_BLOCK_X + (int) threadIdx.x, 0),
        sw - 1);
    const bool extra = threadIdx.x < TVL1H_UP_TX - TVL1_BLOCK_X;
    float sa[PER][2], sb[PER][2];

#pragma unroll
    for (j = 0; j < PER; j++) {
      r = threadIdx.y + j * TVL1_BLOCK_Y;
      if (r < rows) {
        const size_t row = (size_t) min (max (oy + r, 0), sh - 1) *
            src.pitch;

        sa[j][0] = __ldcg (src.a + row + cx0);
        sb[j][0] = __ldcg (src.b + row + cx0);
        if (extra) {
          sa[j][1] = __ldcg (src.a + row + cx1);
          sb[j][1] = __ldcg (src.b + row + cx1);
        }
      }
    }
#pragma unroll
    for (j = 0; j < PER; j++) {
      r = threadIdx.y + j * TVL1_BLOCK_Y;
      if (r < rows) {
        wa[r][threadIdx.x] = sa[j][0];
        wb[r][threadIdx.x] = sb[j][0];
        if (extra) {
          wa[r][TVL1_BLOCK_X + threadIdx.x] = sa[j][1];
          wb[r][TVL1_BLOCK_X + threadIdx.x] = sb[j][1];
        }
      }
    }
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
    const int y = by + r, j0 = jy[r];
    const float4 w = wy[r];
    float a = 0.0f, b = 0.0f;

    a = fmaf (w.x, ha[j0][threadIdx.x], a);
    b = fmaf (w.x, hb[j0][threadIdx.x], b);
    a = fmaf (w.y, ha[j0 + 1][threadIdx.x], a);
    b = fmaf (w.y, hb[j0 + 1][threadIdx.x], b);
    a = fmaf (w.z, ha[j0 + 2][threadIdx.x], a);
    b = fmaf (w.z, hb[j0 + 2][threadIdx.x], b);
    a = fmaf (w.w, ha[j0 + 3][threadIdx.x], a);
    b = fmaf (w.w, hb[j0 + 3][threadIdx.x], b);
    dst.a[x + (size_t) y * dst.pitch] = sx * a;
    dst.b[x + (size_t) y * dst.pitch] = sy * b;
  }
}

/** \brief Per-warp constants of the fp16 solver, in one pass: I1, I1x,
 *  I1y sampled at x + u0 (one set of taps, tvl1h_sample_grad), with
 *  @blend > 0 the gradient blended with I0's where the sample is inside
 *  (cf_tvl1_warp_prepare), then ((I1wx, I1wy), (g, I1w − I0)), ∇u0 by
 *  forward differences, and du ← 0 when @du is set (FUSED; BLOCKED's
 *  first launch starts from zero without reading du). */
/* 64 registers (4 blocks per SM): the kernel waits on its gathers, and
 * at 80 registers 3 blocks hid too little of it (ncu at 4K). BLEND is a
 * template parameter so that the kernel without it keeps its registers
 * (with it, ptxas spills 8 bytes under the same budget). */
template < bool BLEND > __global__ static void
__launch_bounds__ (TVL1_BLOCK_THREADS, 4)
tvl1h_constants_kernel (const float *__restrict__ i0, size_t p0,
    const float *__restrict__ i1, size_t p1, const float *__restrict__ u0,
    const float *__restrict__ v0, size_t pu, int w, int h,
    cf_warp_border border, float blend, tvl1h_pairs th, tvl1h_pairs gu0,
    tvl1h_cells du)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const size_t iu = x + (size_t) y * pu;
  float a, b, px, py, s, sx, sy;
  float gx1 = 0.0f, gx2 = 0.0f, gy1 = 0.0f, gy2 = 0.0f;
  tvl1h_pair k, g;

  /* u0 is the previous kernel's output, read through L2 (PDL); th and
   * gu0 may still be read by it; the frames are older */
  cf_pdl_launch_dependents ();
  cf_pdl_wait ();
  if (x >= w || y >= h)
    return;
  a = __ldcg (u0 + iu);
  b = __ldcg (v0 + iu);
  px = __fadd_rn ((float) x, a);
  py = __fadd_rn ((float) y, b);
  {
    const tvl1h_taps taps = tvl1h_taps_at (px, py, w, h, border);
    const float3 v = tvl1h_sample_grad (taps, i1, p1, w, h);

    s = v.x;
    sx = v.y;
    sy = v.z;
    if (BLEND && !taps.zero) {
      const float2 d0 = tvl1_centred_difference_at (i0, p0, x, y, w, h);

      sx += blend * (d0.x - sx);
      sy += blend * (d0.y - sy);
    }
  }
  k.a = __floats2half2_rn (sx, sy);
  k.b = __floats2half2_rn (sx * sx + sy * sy, s - i0[x + (size_t) y * p0]);
  if (x < w - 1) {
    gx1 = __ldcg (u0 + iu + 1) - a;
    gx2 = __ldcg (v0 + iu + 1) - b;
  }
  if (y < h - 1) {
    gy1 = __ldcg (u0 + iu + pu) - a;
    gy2 = __ldcg (v0 + iu + pu) - b;
  }
  g.a = __floats2half2_rn (gx1, gx2);
  g.b = __floats2half2_rn (gy1, gy2);
  tvl1h_store_pair (th.d + x + (size_t) y * th.pitch, k);
  tvl1h_store_pair (gu0.d + x + (size_t) y * gu0.pitch, g);
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

/* ---------------------------------------------------------------------
 * Launchers (tvl1-half.cuh)
 * --------------------------------------------------------------------- */

cf_status
tvl1h_enqueue_constants (const cf_cuda_image * f0, const cf_cuda_image * f1,
    const cf_cuda_flow * u0, cf_warp_border border, float blend,
    tvl1h_pairs th, tvl1h_pairs gu0, tvl1h_cells du, int pdl,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  CF_CUDA_TRY (cf_cuda_launch (blend > 0.0f ? tvl1h_constants_kernel < true >
          : tvl1h_constants_kernel < false >, tvl1_grid (u0->width,
              u0->height), tvl1_block (), 0, stream, pdl,
          (const float *) f0->data, f0->pitch, (const float *) f1->data,
          f1->pitch, (const float *) u0->u, (const float *) u0->v, u0->pitch,
          u0->width, u0->height, border, blend, th, gu0, du));
out:
  return status;
}

cf_status
tvl1h_enqueue_apply (const cf_cuda_flow * u0, tvl1h_cells du,
    cf_cuda_flow * out, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1h_apply_kernel <<< tvl1_grid (u0->width, u0->height), tvl1_block (),
      0, stream >>> (make_field (u0), du, make_field (out), u0->width,
      u0->height);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* cf_cuda_flow_resample for fp16 plans (tvl1h_resample_kernel), or with
 * @gather the gathering kernel whatever the sizes */
static cf_status
resample (const cf_cuda_flow * src, cf_cuda_flow * dst, int gather, int pdl,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  const float fx = (float) src->width / (float) dst->width;
  const float fy = (float) src->height / (float) dst->height;

  /* upsampling (every pyramid step) from a shared-memory window; the
   * gathering kernel for anything else */
  if (!gather && fx <= 1.0f && fy <= 1.0f)
    CF_CUDA_TRY (cf_cuda_launch (tvl1h_upsample_kernel,
            dim3 (cf_div_up (dst->width, TVL1_BLOCK_X),
                cf_div_up (dst->height, TVL1H_UP_ROWS)), tvl1_block (), 0,
            stream, pdl, make_field (src), src->width, src->height, fx, fy,
            (float) dst->width / (float) src->width,
            (float) dst->height / (float) src->height, make_field (dst),
            dst->width, dst->height));
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

cf_status
tvl1h_resample (const cf_cuda_flow * src, cf_cuda_flow * dst, int pdl,
    cudaStream_t stream)
{
  return resample (src, dst, 0, pdl, stream);
}

extern "C" cf_status
cf_cuda_tvl1_fp16_resample (const cf_cuda_flow * src, cf_cuda_flow * dst,
    int gather, cudaStream_t stream)
{
  if (src == NULL || dst == NULL || src->u == NULL || dst->u == NULL ||
      src->width < 1 || src->height < 1 || dst->width < 1 || dst->height < 1)
    return CF_ERROR_INVALID;
  return resample (src, dst, gather, 0, stream);
}
