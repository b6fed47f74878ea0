/* gst-cudaflow — TV-L1 on the GPU: the brightness model
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Twin of cf_tvl1_fit_brightness and cf_tvl1_apply_brightness
 * (common/tvl1.h): after a warp's constants, one sweep sums, over the
 * pixels whose sample lies CF_TVL1_BRIGHTNESS_MARGIN px inside I1, the
 * whole frame's statistics and those of the pixels within the previous
 * warp's cut; the second give the fit I1w ≈ gain · I0 + bias and the cut
 * the next warp trims with, the first whether the light changed at all
 * (the gate); past the gate, I0 − (gain I0 + bias) goes into the data
 * term's constant.
 *
 * One cooperative launch per warp does it all: the sweep (a grid-stride
 * loop), each block's eleven sums (double, in a fixed order) into its
 * slots, one grid synchronisation, then every block sums the slots in the
 * same fixed order, so all blocks hold the same fit with no second launch
 * and no host round trip, and the apply sweep follows in the same launch.
 * The fit carried to the next warp lives on the device (a
 * cf_tvl1_brightness_fit, cleared at the start of each frame): every
 * block reads it before the grid synchronises, block 0 writes the new one
 * after. (Three passes of trimming within each warp, as first written,
 * cost five sweeps and four grid synchronisations: 0.49 ms per 1080p
 * frame of 6 levels x 3 warps, for the same EPE.) The per-pixel terms are
 * the CPU's, in double with no contraction; only the order of the sums
 * differs, so the fit agrees with the CPU's to rounding (the tests bound
 * it) and the apply step, given the same gain and bias, gives its bits.
 *
 * fp32 plans fit the warped I1 plane and add to ρc; fp16 plans keep I1w −
 * I0 in half (the second half of each pixel's ((I1wx, I1wy), (g, I1w −
 * I0)) constants), so they fit I1w = that + I0 and add the model's term to
 * it in fp32 before rounding it to half again.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/tvl1.h"
#include "cuda/tvl1-brightness.cuh"

#include <cooperative_groups.h>
#include <math.h>

/* Sums of one sweep: the whole frame's Σ I0, Σ I1w, Σ I0², Σ I1w², count
 * (the gate), then the kept pixels' Σ I0, Σ I1w, Σ I0², Σ I1w², Σ I0 I1w,
 * count (the fit) */
#define BRIGHT_ALL 0
#define BRIGHT_KEPT 5
#define BRIGHT_SUMS 11
/* At most this many blocks per SM: every block reads every block's sums
 * after the sweep, so more blocks cost L2 reads and buy nothing once the
 * sweep streams at full bandwidth. */
#define BRIGHT_BLOCKS_PER_SM 4
/* the scratch's first bytes: the fit carried from warp to warp */
#define BRIGHT_FIT_BYTES 256

/* fp32 plans: I1w from its plane, the model's term into ρc */
struct bright_f32
{
  const float *i1w;
  size_t pw;
  float *rho;
  size_t pr;

  __device__ float i1w_at (int x, int y, float) const
  {
    return i1w[x + (size_t) y * pw];
  }
  __device__ void add (int x, int y, float term) const
  {
    float *r = rho + x + (size_t) y * pr;

    *r = __fadd_rn (*r, term);
  }
};

/* fp16 plans: I1w − I0 is the high half of the constants' second pair */
struct bright_f16
{
  tvl1h_pair *th;
  size_t pitch;

  __device__ float i1w_at (int x, int y, float f0) const
  {
    return __fadd_rn (__high2float (th[x + (size_t) y * pitch].b), f0);
  }
  __device__ void add (int x, int y, float term) const
  {
    tvl1h_pair *k = th + x + (size_t) y * pitch;
    const float2 gr = __half22float2 (k->b);

    k->b = __floats2half2_rn (gr.x, __fadd_rn (gr.y, term));
  }
};

/** \brief I0 − (gain I0 + bias), rounded as cf_tvl1_apply_brightness */
static __device__ __forceinline__ float
bright_term (float f0, float gain, float bias)
{
  return __fsub_rn (f0, __fadd_rn (__fmul_rn (gain, f0), bias));
}

/** \brief The sample at (x, y) + u inside I1 by the margin (the test of
 *  cf_tvl1_fit_brightness) */
static __device__ __forceinline__ bool
bright_inside (int x, int y, float u, float v, int w, int h)
{
  const float m = CF_TVL1_BRIGHTNESS_MARGIN;
  const float px = __fadd_rn ((float) x, u), py = __fadd_rn ((float) y, v);

  return px >= m && py >= m &&
      px <= __fsub_rn (__fsub_rn ((float) w, 1.0f), m) &&
      py <= __fsub_rn (__fsub_rn ((float) h, 1.0f), m);
}

/** \brief Whether a pixel inside the margin is kept: no live fit before,
 *  or |I1w − (gain I0 + bias)| within its cut */
static __device__ __forceinline__ bool
bright_kept (float f0, float w1, const cf_tvl1_brightness_fit & f)
{
  return !f.live || fabs (__dsub_rn ((double) w1,
          __dadd_rn (__dmul_rn (f.gain, (double) f0), f.bias))) <= f.cut;
}

/** \brief @s[0..4] (and @s[5] with @cross) += I0, I1w, I0², I1w², (I0
 *  I1w,) 1 */
static __device__ __forceinline__ void
bright_add (double *s, float f0, float w1, bool cross)
{
  s[0] = __dadd_rn (s[0], (double) f0);
  s[1] = __dadd_rn (s[1], (double) w1);
  s[2] = __dadd_rn (s[2], __dmul_rn ((double) f0, (double) f0));
  s[3] = __dadd_rn (s[3], __dmul_rn ((double) w1, (double) w1));
  if (cross) {
    s[4] = __dadd_rn (s[4], __dmul_rn ((double) f0, (double) w1));
    s[5] = __dadd_rn (s[5], 1.0);
  } else {
    s[4] = __dadd_rn (s[4], 1.0);
  }
}

/** \brief brightness_solve of common/tvl1.c on the sums Σ I0, Σ I1w,
 *  Σ I0², Σ I1w², Σ I0 I1w (with @c; else NULL and no @r2), count: the
 *  same operations in the same order */
static __device__ bool
bright_solve (double s0, double s1, double q0, double q1, const double *c,
    double n, double *gain, double *bias, double *r2)
{
  double m0, m1, v0, v1, a;

  if (n < 64.0)
    return false;
  m0 = __ddiv_rn (s0, n);
  m1 = __ddiv_rn (s1, n);
  v0 = __dsub_rn (__ddiv_rn (q0, n), __dmul_rn (m0, m0));
  v1 = __dsub_rn (__ddiv_rn (q1, n), __dmul_rn (m1, m1));
  if (!(v0 > 0.0) || !(v1 >= 0.0))
    return false;
  a = __dsqrt_rn (__ddiv_rn (v1, v0));
  *gain = a;
  *bias = __dsub_rn (m1, __dmul_rn (a, m0));
  if (c != NULL) {
    const double cv = __dsub_rn (__ddiv_rn (*c, n), __dmul_rn (m0, m1));

    *r2 = __dadd_rn (__dsub_rn (v1, __dmul_rn (__dmul_rn (2.0, a), cv)),
        __dmul_rn (__dmul_rn (a, a), v0));
  }
  return true;
}

/** \brief Σ of @N values over a TVL1_BLOCK_THREADS block, all at once
 *  (shuffles within each lane group, then the groups' sums in a fixed
 *  order), into @out (shared) for every thread; @groups is shared scratch.
 *  Every thread of the block calls it. */
template < int N > static __device__ void
bright_block_sum (double (&v)[N], double (*groups)[N], double (&out)[N])
{
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  const int lane = t & 31, group = t >> 5;
  int k, off;

CF_UNROLL
  for (k = 0; k < N; k++) {
    double x = v[k];

    for (off = 16; off > 0; off >>= 1)
      x += __shfl_down_sync (0xffffffffu, x, off);
    if (lane == 0)
      groups[group][k] = x;
  }
  __syncthreads ();
  if (t < N) {
    double x = 0.0;

    for (k = 0; k < TVL1_BLOCK_LANE_GROUPS; k++)
      x += groups[k][t];
    out[t] = x;
  }
  __syncthreads ();
}

/** \brief Σ over the grid of @N values per thread: each block's sums into
 *  its slots of @slots, the grid synchronised, then every block sums all
 *  slots in the same order, so every block gets the same totals, in
 *  @total (shared) for each of its threads. @groups and @mine: shared
 *  scratch. */
template < int N > static __device__ void
bright_grid_sum (cooperative_groups::grid_group & grid, double (&v)[N],
    double *slots, double (*groups)[N], double (&mine)[N],
    double (&total)[N])
{
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  double part[N];
  int k, i;

  bright_block_sum (v, groups, mine);
  if (t < N)
    slots[N * blockIdx.x + t] = mine[t];
  grid.sync ();
CF_UNROLL
  for (k = 0; k < N; k++)
    part[k] = 0.0;
  for (i = t; i < (int) gridDim.x; i += TVL1_BLOCK_THREADS)
CF_UNROLL
    for (k = 0; k < N; k++)
      part[k] += slots[N * i + k];
  bright_block_sum (part, groups, total);
}

/** \brief The brightness model of one warp: the sweep, the fit, the
 *  gate, then (with @apply) the model's term added through @src. @fit
 *  (device): the previous warp's fit in, this warp's out. @fit_out
 *  (device, 2 floats; may be NULL): the gain and bias taken, (1, 0) for
 *  the identity. A cooperative launch of TVL1_BLOCK_THREADS blocks;
 *  @scratch holds BRIGHT_SUMS doubles per block. */
template < typename S > __global__ static void
__launch_bounds__ (TVL1_BLOCK_THREADS)
bright_kernel (S src, const float *__restrict__ i0, size_t p0,
    const float *__restrict__ u0, const float *__restrict__ v0, size_t pu,
    int w, int h, cf_tvl1_brightness_fit * fit, double *scratch,
    float *fit_out, int apply)
{
  cooperative_groups::grid_group grid = cooperative_groups::this_grid ();
  __shared__ double groups[TVL1_BLOCK_LANE_GROUPS][BRIGHT_SUMS];
  __shared__ double mine[BRIGHT_SUMS], total[BRIGHT_SUMS];
  /* read by every block before the grid synchronises; block 0 writes
   * the next one after */
  const cf_tvl1_brightness_fit before = *fit;
  const long n_px = (long) w * h;
  const long stride = (long) gridDim.x * TVL1_BLOCK_THREADS;
  const long first = (long) blockIdx.x * TVL1_BLOCK_THREADS +
      threadIdx.x + threadIdx.y * blockDim.x;
  double sums[BRIGHT_SUMS];
  double a = 1.0, b = 0.0, r2 = 0.0, all_a, all_b;
  float gain = 1.0f, bias = 0.0f;
  bool live, changed;
  long i;
  int k;

CF_UNROLL
  for (k = 0; k < BRIGHT_SUMS; k++)
    sums[k] = 0.0;
  for (i = first; i < n_px; i += stride) {
    const int x = (int) (i % w), y = (int) (i / w);
    const float f0 = i0[x + (size_t) y * p0];
    const float w1 = src.i1w_at (x, y, f0);

    if (!bright_inside (x, y, u0[x + (size_t) y * pu],
            v0[x + (size_t) y * pu], w, h))
      continue;
    bright_add (sums + BRIGHT_ALL, f0, w1, false);
    if (bright_kept (f0, w1, before))
      bright_add (sums + BRIGHT_KEPT, f0, w1, true);
  }
  bright_grid_sum (grid, sums, scratch, groups, mine, total);

  /* cf_tvl1_fit_brightness's rules, the same in every block */
  live = bright_solve (total[BRIGHT_KEPT], total[BRIGHT_KEPT + 1],
      total[BRIGHT_KEPT + 2], total[BRIGHT_KEPT + 3], &total[BRIGHT_KEPT + 4],
      total[BRIGHT_KEPT + 5], &a, &b, &r2);
  changed = live && (!bright_solve (total[BRIGHT_ALL],
          total[BRIGHT_ALL + 1], total[BRIGHT_ALL + 2],
          total[BRIGHT_ALL + 3], NULL, total[BRIGHT_ALL + 4], &all_a,
          &all_b, NULL) ? false : !(fabs (all_a - 1.0) <
          CF_TVL1_BRIGHTNESS_GATE &&
          fabs (all_b) < CF_TVL1_BRIGHTNESS_GATE_BIAS));
  if (first == 0) {
    cf_tvl1_brightness_fit next = before;

    next.live = live;
    if (live) {
      double cut = __dmul_rn (2.0, __dsqrt_rn (r2 > 0.0 ? r2 : 0.0));

      next.gain = a;
      next.bias = b;
      next.cut = cut < CF_TVL1_BRIGHTNESS_CUT_MIN ?
          CF_TVL1_BRIGHTNESS_CUT_MIN : cut;
    }
    *fit = next;
  }
  if (changed) {
    gain = (float) a;
    bias = (float) b;
  }
  if (fit_out != NULL && first == 0) {
    fit_out[0] = gain;
    fit_out[1] = bias;
  }
  if (!apply || !changed || (gain == 1.0f && bias == 0.0f))
    return;
  for (i = first; i < n_px; i += stride) {
    const int x = (int) (i % w), y = (int) (i / w);

    src.add (x, y, bright_term (i0[x + (size_t) y * p0], gain, bias));
  }
}

/** \brief cf_tvl1_apply_brightness: ρc ← ρc + I0 − (gain I0 + bias) (the
 *  single step; the plan's fits apply in bright_kernel) */
__global__ static void
bright_apply_kernel (bright_f32 src, const float *__restrict__ i0,
    size_t p0, int w, int h, float gain, float bias)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= w || y >= h)
    return;
  src.add (x, y, bright_term (i0[x + (size_t) y * p0], gain, bias));
}

/* ---------------------------------------------------------------------
 * Launchers
 * --------------------------------------------------------------------- */

/* Blocks a cooperative launch of bright_kernel <S> may have at most: what
 * the device holds at once (a cooperative launch's condition), at most
 * BRIGHT_BLOCKS_PER_SM per SM. */
template < typename S > static cf_status
bright_max_blocks (int n_sm, int *blocks)
{
  cf_status status = CF_OK;
  int per_sm = 0;

  CF_CUDA_TRY (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm,
          bright_kernel < S >, TVL1_BLOCK_THREADS, 0));
  if (per_sm < 1)
    return CF_ERROR_CUDA;
  *blocks = (per_sm < BRIGHT_BLOCKS_PER_SM ? per_sm :
      BRIGHT_BLOCKS_PER_SM) * n_sm;
out:
  return status;
}

/* One fit of @f0's level: as many blocks as the level needs, up to
 * @max_blocks */
template < typename S > static cf_status
bright_launch (S src, const cf_cuda_image * f0, const cf_cuda_flow * u0,
    const tvl1_brightness_scratch * s, int max_blocks, float *fit_out,
    int apply, cudaStream_t stream)
{
  cf_status status = CF_OK;
  cudaLaunchConfig_t config = cudaLaunchConfig_t ();
  cudaLaunchAttribute attr[1] = { cudaLaunchAttribute () };
  const long need = ((long) f0->width * f0->height + TVL1_BLOCK_THREADS -
      1) / TVL1_BLOCK_THREADS;

  config.gridDim = dim3 (need < max_blocks ? (unsigned) need :
      (unsigned) max_blocks);
  config.blockDim = tvl1_block ();
  config.stream = stream;
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  CF_CUDA_TRY (cudaLaunchKernelEx (&config, bright_kernel < S >, src,
          (const float *) f0->data, f0->pitch, (const float *) u0->u,
          (const float *) u0->v, u0->pitch, f0->width, f0->height, s->fit,
          s->sums, fit_out, apply));
out:
  return status;
}

cf_status
tvl1_brightness_scratch_alloc (tvl1_brightness_scratch * s)
{
  cf_status status = CF_OK;
  int n_sm = 0, most;
  void *p = NULL;

  if (s->fit != NULL)
    return CF_OK;
  if ((status = cf_cuda_sm_count (&n_sm)) != CF_OK ||
      (status = bright_max_blocks < bright_f32 > (n_sm,
              &s->max_blocks_f32)) != CF_OK ||
      (status = bright_max_blocks < bright_f16 > (n_sm,
              &s->max_blocks_f16)) != CF_OK)
    return status;
  most = s->max_blocks_f32 > s->max_blocks_f16 ? s->max_blocks_f32 :
      s->max_blocks_f16;
  /* the fit, then the sums */
  CF_CUDA_TRY (cudaMalloc (&p, BRIGHT_FIT_BYTES + (size_t) BRIGHT_SUMS *
          most * sizeof (double)));
  s->fit = (cf_tvl1_brightness_fit *) p;
  s->sums = (double *) ((char *) p + BRIGHT_FIT_BYTES);
out:
  return status;
}

void
tvl1_brightness_scratch_free (tvl1_brightness_scratch * s)
{
  if (s->fit != NULL)
    cf_cuda_check (cudaFree (s->fit));
  s->fit = NULL;
  s->sums = NULL;
}

cf_status
tvl1_brightness_frame_start (const tvl1_brightness_scratch * s,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  /* live = 0: the first warp trims against nothing */
  CF_CUDA_TRY (cudaMemsetAsync (s->fit, 0, sizeof (*s->fit), stream));
out:
  return status;
}

cf_status
tvl1_enqueue_brightness (const cf_cuda_image * f0, const cf_cuda_image * i1w,
    const cf_cuda_flow * u0, cf_cuda_image * rho_c,
    const tvl1_brightness_scratch * s, cudaStream_t stream)
{
  bright_f32 src = { (const float *) i1w->data, i1w->pitch,
    (float *) rho_c->data, rho_c->pitch
  };

  return bright_launch (src, f0, u0, s, s->max_blocks_f32, NULL, 1,
      stream);
}

cf_status
tvl1h_enqueue_brightness (const cf_cuda_image * f0, tvl1h_pairs th,
    const cf_cuda_flow * u0, const tvl1_brightness_scratch * s,
    cudaStream_t stream)
{
  bright_f16 src = { th.d, th.pitch };

  return bright_launch (src, f0, u0, s, s->max_blocks_f16, NULL, 1,
      stream);
}

/* ---------------------------------------------------------------------
 * Single steps (cuda/tvl1.h), for the tests against the CPU
 * --------------------------------------------------------------------- */

extern "C" cf_status
cf_cuda_tvl1_fit_brightness (const cf_cuda_image * i0,
    const cf_cuda_image * i1w, const cf_cuda_flow * u0,
    cf_tvl1_brightness_fit * fit, float *gain, float *bias,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  tvl1_brightness_scratch s = { NULL, NULL, 0, 0 };
  bright_f32 src = { NULL, 0, NULL, 0 };
  float *taken = NULL, host[2];

  if (!cf_cuda_image_is_valid (i0) || !cf_cuda_image_is_valid (i1w) ||
      !cf_cuda_flow_is_valid (u0) || !same_size (i0, i1w) ||
      !flow_matches (u0, i0) || fit == NULL || gain == NULL || bias == NULL)
    return CF_ERROR_INVALID;
  src.i1w = (const float *) i1w->data;
  src.pw = i1w->pitch;
  if ((status = tvl1_brightness_scratch_alloc (&s)) != CF_OK)
    goto out;
  CF_CUDA_TRY (cudaMalloc (&taken, sizeof (host)));
  CF_CUDA_TRY (cudaMemcpyAsync (s.fit, fit, sizeof (*fit),
          cudaMemcpyHostToDevice, stream));
  if ((status = bright_launch (src, i0, u0, &s, s.max_blocks_f32, taken, 0,
              stream)) != CF_OK)
    goto out;
  CF_CUDA_TRY (cudaMemcpyAsync (host, taken, sizeof (host),
          cudaMemcpyDeviceToHost, stream));
  CF_CUDA_TRY (cudaMemcpyAsync (fit, s.fit, sizeof (*fit),
          cudaMemcpyDeviceToHost, stream));
  CF_CUDA_TRY (cudaStreamSynchronize (stream));
  *gain = host[0];
  *bias = host[1];
out:
  if (taken != NULL)
    cf_cuda_check (cudaFree (taken));
  tvl1_brightness_scratch_free (&s);
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_apply_brightness (const cf_cuda_image * i0, float gain,
    float bias, cf_cuda_image * rho_c, cudaStream_t stream)
{
  cf_status status = CF_OK;
  bright_f32 src = { NULL, 0, NULL, 0 };

  if (!cf_cuda_image_is_valid (i0) || !cf_cuda_image_is_valid (rho_c) ||
      !same_size (i0, rho_c))
    return CF_ERROR_INVALID;
  src.rho = (float *) rho_c->data;
  src.pr = rho_c->pitch;
  bright_apply_kernel <<< tvl1_grid (i0->width, i0->height), tvl1_block (),
      0, stream >>> (src, (const float *) i0->data, i0->pitch, i0->width,
      i0->height, gain, bias);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}
