/* gst-cudaflow — helpers for .cu files only (C++ / device code)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_CUDA_INTERNAL_H
#define CF_CUDA_INTERNAL_H

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "common/warp.h"
#include "cuda/cuda-util.h"

/* Run a CUDA call; on failure record it, set `status` and jump to `out`.
 * Every function that uses it declares `cf_status status = CF_OK;` and an
 * `out:` label where it releases what it acquired. */
#define CF_CUDA_TRY(expr)                                   \
  do {                                                      \
    cudaError_t cf_try_err_ = (expr);                       \
    if (cf_try_err_ != cudaSuccess) {                       \
      status = cf_cuda_check (cf_try_err_);                 \
      goto out;                                             \
    }                                                       \
  } while (0)

/* After every <<<...>>> launch: catches bad configurations at once. It
 * consumes the error state, so an earlier non-sticky failure (an
 * out-of-memory, say) is not reported again by every later launch. */
#define CF_CUDA_TRY_LAUNCH() CF_CUDA_TRY (cudaGetLastError ())

/* Full unrolling in code written once for the device and the host (the
 * CPU emulations of kernels): nvcc's pragma on the device, nothing for
 * the host compiler, which does not know it. */
#ifdef __CUDA_ARCH__
#define CF_UNROLL _Pragma ("unroll")
#else
#define CF_UNROLL
#endif

/* One fp32 operation rounded once, as the CPU references (common/) round
 * it, in code written once for the device and the host: the intrinsics
 * on the device (nvcc can neither contract them into FMAs nor approximate
 * a division or a root), the operators on the host (x86-64 without
 * -mfma, like the references, contracts nothing). */
static __host__ __device__ __forceinline__ float
cf_add_rn (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fadd_rn (a, b);
#else
  return a + b;
#endif
}

static __host__ __device__ __forceinline__ float
cf_sub_rn (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fsub_rn (a, b);
#else
  return a - b;
#endif
}

static __host__ __device__ __forceinline__ float
cf_mul_rn (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fmul_rn (a, b);
#else
  return a * b;
#endif
}

static __host__ __device__ __forceinline__ float
cf_div_rn (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fdiv_rn (a, b);
#else
  return a / b;
#endif
}

static __host__ __device__ __forceinline__ float
cf_sqrt_rn (float a)
{
#ifdef __CUDA_ARCH__
  return __fsqrt_rn (a);
#else
  return sqrtf (a);
#endif
}

static __host__ __device__ __forceinline__ float
cf_fma_rn (float a, float b, float c)
{
#ifdef __CUDA_ARCH__
  return __fmaf_rn (a, b, c);
#else
  return fmaf (a, b, c);
#endif
}

/* a * b + c on half2, rounded once (__hfma2) on the device; on the host,
 * which has no half2 fma, computed in float and rounded to half: code
 * written once for both (the CPU emulations of kernels) gets the device's
 * program there, not its bits. */
static __host__ __device__ __forceinline__ __half2
cf_hfma2 (__half2 a, __half2 b, __half2 c)
{
#ifdef __CUDA_ARCH__
  return __hfma2 (a, b, c);
#else
  const float2 x = __half22float2 (a), y = __half22float2 (b);
  const float2 z = __half22float2 (c);

  return __floats2half2_rn (fmaf (x.x, y.x, z.x), fmaf (x.y, y.y, z.y));
#endif
}

/* A read through the read-only cache (__ldg) and one through L2 only
 * (__ldcg: what the kernel before wrote) on the device; a plain read on
 * the host */
template < typename T > static __host__ __device__ __forceinline__ T
cf_ld_ro (const T * p)
{
#ifdef __CUDA_ARCH__
  return __ldg (p);
#else
  return *p;
#endif
}

template < typename T > static __host__ __device__ __forceinline__ T
cf_ld_l2 (const T * p)
{
#ifdef __CUDA_ARCH__
  return __ldcg (p);
#else
  return *p;
#endif
}

/* Programmatic dependent launch (sm_90 and later; no-ops elsewhere and
 * when the launch did not ask for it). A kernel launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization may start once every
 * block of the stream's previous kernel has called
 * cf_pdl_launch_dependents (or exited); it does what does not depend on
 * that kernel, then cf_pdl_wait: the previous kernel complete, its memory
 * visible. Read what it wrote through L2 (__ldcg) or by cf_copy_async,
 * not the read-only path. Completion is not transitive before the wait:
 * when kernels that trigger at once are chained, a kernel may start while
 * several before it still run, so whatever a kernel reads before its wait
 * must come from a kernel that completed before its predecessor could
 * trigger (that is, the predecessor triggers after its own wait). */
static __device__ __forceinline__ void
cf_pdl_launch_dependents (void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion ();
#endif
}

static __device__ __forceinline__ void
cf_pdl_wait (void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize ();
#endif
}

/* A flag between the blocks of kernels that run at once (programmatic
 * dependent launches that do not wait for each other's completion): the
 * writer's block stores what it publishes, barriers, and one thread
 * stores the flag with cf_st_release_gpu (the release orders the stores
 * the barrier ordered before it, every thread's); a reader's thread sees the
 * value with cf_ld_acquire_gpu, then barriers, and its block may read
 * what was published (on sm_70 and later the acquire also invalidates
 * the SM's L1, so that cf_copy_async, which caches there, reads it too). */
static __device__ __forceinline__ unsigned
cf_ld_acquire_gpu (const unsigned *p)
{
  unsigned v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile ("ld.acquire.gpu.global.u32 %0, [%1];":"=r" (v):"l" (p):"memory");
#else
  v = *(const volatile unsigned *) p;
  __threadfence ();
#endif
  return v;
}

static __device__ __forceinline__ void
cf_st_release_gpu (unsigned *p, unsigned v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile ("st.release.gpu.global.u32 [%0], %1;"::"l" (p),
      "r" (v):"memory");
#else
  __threadfence ();
  *(volatile unsigned *) p = v;
#endif
}

/* <<< grid, block, smem, stream >>> (args), as a programmatic dependent
 * of the stream's previous kernel when @pdl (the kernel then calls
 * cf_pdl_wait before it touches what earlier work writes or reads). */
template < typename... P, typename... A > static inline cudaError_t
cf_cuda_launch (void (*kernel) (P...), dim3 grid, dim3 block, size_t smem,
    cudaStream_t stream, int pdl, A &&... args)
{
  cudaLaunchConfig_t config = cudaLaunchConfig_t ();
  cudaLaunchAttribute attr[1] = { cudaLaunchAttribute () };

  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attr;
  config.numAttrs = pdl ? 1 : 0;
  return cudaLaunchKernelEx (&config, kernel, static_cast < A && >(args)...);
}

static inline int
cf_div_up (int n, int d)
{
  return (n + d - 1) / d;
}

/* Cell (ix, iy) and fractions (tx, ty) of a bicubic sample at (x, y) of
 * a w x h plane, with the guards of common/warp.c: false when the sample
 * is 0 (a non-finite position, or a neighbourhood leaving the plane with
 * CF_WARP_ZERO_OUTSIDE); far outside, every tap lands on the edge
 * (fraction 0). The integer part is bounded before the float -> int
 * conversion, which is undefined for huge values. */
static __device__ __forceinline__ bool
cf_bicubic_cell (float x, float y, int w, int h, cf_warp_border border,
    int *ix, int *iy, float *tx, float *ty)
{
  float fx, fy;

  if (!isfinite (x) || !isfinite (y))
    return false;
  fx = fminf (fmaxf (floorf (x), -4.0f), (float) w + 4.0f);
  fy = fminf (fmaxf (floorf (y), -4.0f), (float) h + 4.0f);
  *ix = (int) fx;
  *iy = (int) fy;
  *tx = __fsub_rn (x, fx);
  *ty = __fsub_rn (y, fy);
  if (border == CF_WARP_ZERO_OUTSIDE && (*ix - 1 < 0 || *iy - 1 < 0 ||
          *ix + 2 >= w || *iy + 2 >= h))
    return false;
  if (*ix < -2 || *ix > w + 1) {
    *ix = *ix < 0 ? -2 : w + 1;
    *tx = 0.0f;
  }
  if (*iy < -2 || *iy > h + 1) {
    *iy = *iy < 0 ? -2 : h + 1;
    *ty = 0.0f;
  }
  return true;
}

/* Copy one T (4 or 8 bytes, both pointers aligned to it) from global to
 * shared memory without a register between: cp.async (compute capability
 * 8.0 and later), complete for the calling thread after
 * cf_copy_async_wait, so a thread can issue every copy of its cells
 * before it waits once, where loads into registers followed by shared
 * stores wait out one round trip per store they feed. Elsewhere an L2
 * load and a shared store. Like any load, after cf_pdl_wait when the
 * previous kernel wrote @src (griddepcontrol.wait makes its writes
 * visible to every later access of the grid, this one included). */
template < typename T > static __device__ __forceinline__ void
cf_copy_async (T * dst, const T * src)
{
  static_assert (sizeof (T) == 4 || sizeof (T) == 8, "cp.async of 4 or 8");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.ca.shared.global [%0], [%1], %2;"::"r"
      ((unsigned) __cvta_generic_to_shared (dst)), "l" (src),
      "n" ((int) sizeof (T)):"memory");
#else
  *dst = cf_ld_l2 (src);
#endif
}

/* Wait for the calling thread's cf_copy_async copies (others' need a
 * barrier as well). */
static __device__ __forceinline__ void
cf_copy_async_wait (void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.wait_all;":::"memory");
#endif
}

/* Cell access of the iterative solvers' increment fields, shared by their
 * traits: @S with two fp32 planes (float *u, *v), one float2 plane or one
 * half2 plane (float2 / __half2 *uv, both components of a cell), at
 * element index i. */
template < typename S > struct cf_cells_f32
{
  typedef float2 cell;

  static __device__ __forceinline__ cell zero ()
  {
    return make_float2 (0.0f, 0.0f);
  }
  static __device__ __forceinline__ cell load (const S & s, size_t i)
  {
    return make_float2 (s.u[i], s.v[i]);
  }
  static __device__ __forceinline__ void store (const S & s, size_t i,
      cell c)
  {
    s.u[i] = c.x;
    s.v[i] = c.y;
  }
  /* cell i into shared *dst (cf_copy_async: wait before reading it) */
  static __device__ __forceinline__ void copy_async (cell * dst,
      const S & s, size_t i)
  {
    cf_copy_async (&dst->x, s.u + i);
    cf_copy_async (&dst->y, s.v + i);
  }
};

/* The zero cell of a packed plane. */
static __device__ __forceinline__ void
cf_cell_zero (float2 * c)
{
  *c = make_float2 (0.0f, 0.0f);
}

static __device__ __forceinline__ void
cf_cell_zero (__half2 * c)
{
  *c = __float2half2_rn (0.0f);
}

/* One plane of cells C (S::uv; float2 or __half2, both components of a
 * cell together): a cell is one load, store or copy. */
template < typename S, typename C > struct cf_cells_packed
{
  typedef C cell;

  static __device__ __forceinline__ cell zero ()
  {
    cell c;
    cf_cell_zero (&c);
    return c;
  }
  static __device__ __forceinline__ cell load (const S & s, size_t i)
  {
    return s.uv[i];
  }
  static __device__ __forceinline__ void store (const S & s, size_t i,
      cell c)
  {
    s.uv[i] = c;
  }
  /* cell i into shared *dst (cf_copy_async: wait before reading it) */
  static __device__ __forceinline__ void copy_async (cell * dst,
      const S & s, size_t i)
  {
    cf_copy_async (dst, s.uv + i);
  }
};

template < typename S > using cf_cells_f2 = cf_cells_packed < S, float2 >;
template < typename S > using cf_cells_h2 = cf_cells_packed < S, __half2 >;

#endif /* CF_CUDA_INTERNAL_H */
