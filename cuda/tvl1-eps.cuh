/* gst-cudaflow — TV-L1 on the GPU: the ε stopping test on the device
 * SPDX-License-Identifier: LGPL-2.1-or-later
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
#ifndef CF_CUDA_TVL1_EPS_CUH
#define CF_CUDA_TVL1_EPS_CUH

#include "cuda/tvl1-ops.cuh"

/* Per-run solver state on the device (one for the whole run: it is reset
 * per warp, and `iterations` accumulates over levels and warps). */
struct tvl1_control
{
  int stop;                     /* 0: running; n + 1: iteration n met ε */
  int pad;
  long long iterations;         /* iterations run with ε > 0 */
};

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

/** \brief Sum of @v over a TVL1_BLOCK_THREADS block in a fixed order
 *  (shuffles within each lane group of 32, then the groups' sums in lane
 *  group 0); the total is returned to thread 0. Every thread of the block
 *  must call it. */
static __device__ double
tvl1_block_sum (double v)
{
  __shared__ double group_sum[TVL1_BLOCK_LANE_GROUPS];
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  const int lane = t & 31, group = t >> 5;
  int off;

  for (off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync (0xffffffffu, v, off);
  if (lane == 0)
    group_sum[group] = v;
  __syncthreads ();
  if (group == 0) {
    v = lane < TVL1_BLOCK_LANE_GROUPS ? group_sum[lane] : 0.0;
    for (off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync (0xffffffffu, v, off);
  }
  /* group_sum may be reused by a later call */
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

#endif /* CF_CUDA_TVL1_EPS_CUH */
