/* gst-cudaflow — GPU 2-D convolution plans
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A plan computes what cf_convolve () defines (common/convolve.h). Both
 * modes are run as correlation with a kernel F and anchor (ax, ay), prepared
 * once at plan_new like the CPU reference does per call:
 *   correlation  F = K,                 (ax, ay) = (kw/2, kh/2)
 *   convolution  F[j][i] = K[kh-1-j][kw-1-i],
 *                (ax, ay) = (kw-1-kw/2, kh-1-kh/2)
 * (for even sizes the flipped anchor differs from kw/2 by one). Everything a
 * method needs lives in device memory owned by the plan; running never
 * allocates. A plan must not run on two streams at once (the separable and
 * FFT methods keep intermediates in the plan).
 *
 * Methods (resolve_method () and run_method () are the dispatch points):
 *   direct     any kernel (convolve-direct.cu)
 *   stencil    kernels up to 7 x 7, one pass from registers
 *              (convolve-stencil.cu); on planes without float4-aligned
 *              rows a run falls back to direct
 *   separable  rank-1 kernels, F = c r^T factored at plan_new within
 *              CF_SEPARABLE_TOLERANCE (convolve-separable.cu)
 *   fft        any kernel, when cuFFT can be loaded (convolve-fft.cu)
 *   im2tensor  any kernel, on tensor cores: fp16 inputs, fp32 sums; the
 *              MMA kernel where it runs (convolve-im2tensor-mma.cu), else
 *              the WMMA kernel (convolve-im2tensor.cu)
 *   auto       stencil for kernels up to CF_CONV_AUTO_STENCIL_SIZE on a
 *              side; im2tensor for dense kernels in its measured window
 *              when params->auto_im2tensor allows it and the MMA kernel
 *              runs; else direct, separable or fft by measured crossovers
 *              (auto_table)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/convolve.h"
#include "cuda/convolve-direct.h"
#include "cuda/convolve-fft.h"
#include "cuda/convolve-im2tensor.h"
#include "cuda/convolve-separable.h"
#include "cuda/convolve-stencil.h"
#include "cuda/cufft-loader.h"

#include <limits.h>
#include <stdlib.h>

struct cf_cuda_convolve_plan
{
  int width;
  int height;
  cf_border border;
  cf_conv_method method;        /* resolved, never AUTO */
  int kw;
  int kh;
  int ax;                       /* anchor of F */
  int ay;
  float *taps;                  /* device: F, kh rows of kw floats (direct,
                                 * fft, and stencil's fallback) */
  cf_stencil_taps stencil;      /* stencil: F centred, passed by value */
  float *row_taps;              /* separable: device, kw floats (r) */
  float *col_taps;              /* separable: device, kh floats (c) */
  cf_cuda_image tmp;            /* separable: row pass output */
  cf_cuda_convolve_fft *fft;    /* fft: buffers, cuFFT plans, spectrum */
  cf_cuda_convolve_im2tensor *im2tensor;        /* im2tensor: fp16 kernel,
                                                 * padded image, buffers */
  cudaError_t last_error;       /* last CUDA failure of this plan */
};

/* Crossovers of AUTO, measured: tests/gpu/conv-crossovers.sh on the GPU
 * host times direct, separable, fft and im2tensor over K at each size and
 * scripts/bench/conv-crossovers.py prints these rows (docs/convolution.md
 * has the run). A row serves images of at most max_pixels. */
typedef struct
{
  long max_pixels;
  int fft_taps;                 /* dense: fft from kw kh >= fft_taps */
  int separable_taps;           /* rank 1: separable from kw kh >= this */
  int fft_side_sum;             /* rank 1: fft from kw + kh >= this */
  int i2t_from_taps;            /* dense: im2tensor (MMA kernel) for */
  int i2t_to_taps;              /* i2t_from_taps <= kw kh < i2t_to_taps,
                                 * where allowed (auto_im2tensor); 0, 0:
                                 * never */
} auto_crossover;

/* AUTO runs the stencil for kernels of at most this side, at every size,
 * rank 1 or not (CF_CONV_AUTO_STENCIL_SIZE): it reads the
 * image once and writes it once, which neither direct (a shared-memory
 * window per tile) nor separable (two passes and an intermediate plane)
 * can do. */
#define AUTO_STENCIL_SIZE CF_CONV_AUTO_STENCIL_SIZE

static_assert (AUTO_STENCIL_SIZE <= CF_CONV_STENCIL_MAX_SIZE,
    "auto picks the stencil only for kernels it serves");
static_assert (CF_CONV_STENCIL_MAX_SIZE == CF_STENCIL_MAX_SIZE,
    "the public bound is the stencil's");

static const auto_crossover auto_table[] = {
  /* NVIDIA H100 80GB HBM3 (132 SMs) for separable_taps and, after the MMA
   * kernel's counted row copies, the im2tensor window (PARTS=i2t; at
   * 320x240 and 640x480 again after its 64-column warps there, after its
   * row pointer and after its rows in runs);
   * NVIDIA H200 (132 SMs), FFT sizes timed per pair, for the other
   * columns (PARTS="df sf" tests/gpu/conv-crossovers.sh,
   * scripts/bench/conv-crossovers.py) at 320x240 and 640x480; from
   * 1280x720 on, every column but separable_taps on the H100 after the
   * FFT method's overlap-save tiles (SIZES=1280x720,1920x1080,3840x2160,
   * 4096x4096,8192x8192 PARTS="df sf i2t") */
  {153600, 441, 9, 766, 81, 3970},          /* 320x240 */
  {532086, 841, 9, 510, 81, 3970},          /* 640x480 */
  {1382400, 625, 9, 510, 81, 3970},         /* 1280x720 */
  {4147200, 625, 81, 254, 81, 3970},        /* 1920x1080 */
  {11796480, 625, 81, 254, 81, 3970},       /* 3840x2160 */
  {33554432, 625, 81, 382, 81, 3970},       /* 4096x4096 */
  {LONG_MAX, 441, 81, 254, 81, 3970},       /* 8192x8192 */
};

/* The method AUTO picks for a kw x kh kernel on a width x height image;
 * @im2tensor: it may pick im2tensor. */
static cf_conv_method
auto_method (int width, int height, int kw, int kh, int rank1,
    int im2tensor)
{
  const long pixels = (long) width * height;
  const auto_crossover *row = auto_table;
  const int fft = cf_cuda_convolve_fft_available ();

  if (kw <= AUTO_STENCIL_SIZE && kh <= AUTO_STENCIL_SIZE)
    return CF_CONV_METHOD_STENCIL;
  while (pixels > row->max_pixels)
    row++;                      /* the last row's max_pixels is LONG_MAX */
  /* the window was measured with the MMA kernel: not on devices that run
   * the WMMA one */
  if (!rank1 && im2tensor && kw * kh >= row->i2t_from_taps &&
      kw * kh < row->i2t_to_taps &&
      cf_cuda_convolve_im2tensor_mma_runs (kw, kh))
    return CF_CONV_METHOD_IM2TENSOR;
  if (rank1) {
    if (fft && kw + kh >= row->fft_side_sum)
      return CF_CONV_METHOD_FFT;
    return kw * kh >= row->separable_taps ? CF_CONV_METHOD_SEPARABLE
        : CF_CONV_METHOD_DIRECT;
  }
  return fft && kw * kh >= row->fft_taps ? CF_CONV_METHOD_FFT
      : CF_CONV_METHOD_DIRECT;
}

/* The method a request resolves to, or CF_ERROR_UNSUPPORTED when this
 * build or this kernel cannot serve it. rank1: F factors as c r^T
 * (cf_convolve_rank1 ()). */
static cf_status
resolve_method (cf_conv_method requested, int width, int height, int kw,
    int kh, int rank1, int auto_im2tensor, cf_conv_method * method)
{
  switch (requested) {
    case CF_CONV_METHOD_AUTO:
      *method = auto_method (width, height, kw, kh, rank1, auto_im2tensor);
      return CF_OK;
    case CF_CONV_METHOD_DIRECT:
      *method = CF_CONV_METHOD_DIRECT;
      return CF_OK;
    case CF_CONV_METHOD_STENCIL:
      /* a kernel side above CF_CONV_STENCIL_MAX_SIZE: the element reports
       * the limit and suggests method=auto or method=direct */
      if (!cf_cuda_convolve_stencil_supports (kw, kh))
        return CF_ERROR_UNSUPPORTED;
      *method = CF_CONV_METHOD_STENCIL;
      return CF_OK;
    case CF_CONV_METHOD_SEPARABLE:
      /* Not rank 1 (rank > 1): the only reason separable is refused. The
       * element reports it as "kernel is not separable" and suggests
       * method=direct or method=fft. */
      if (!rank1)
        return CF_ERROR_UNSUPPORTED;
      *method = CF_CONV_METHOD_SEPARABLE;
      return CF_OK;
    case CF_CONV_METHOD_FFT:
      /* cuFFT is opened at run time; without it the element reports that
       * CF_CUFFT_SONAME could not be loaded. */
      if (!cf_cuda_convolve_fft_available ())
        return CF_ERROR_UNSUPPORTED;
      *method = CF_CONV_METHOD_FFT;
      return CF_OK;
    case CF_CONV_METHOD_IM2TENSOR:
      /* any kernel; a device without tensor cores is refused later, by
       * cf_cuda_convolve_im2tensor_new () */
      *method = CF_CONV_METHOD_IM2TENSOR;
      return CF_OK;
    default:
      return CF_ERROR_INVALID;
  }
}

/* F, the correlation kernel of @kernel under @mode, into f (kw * kh
 * floats), and its anchor: convolution flips the taps in both axes. */
extern "C" void
cf_cuda_convolve_correlation_taps (const cf_kernel * kernel,
    cf_conv_mode mode, float *f, int *ax, int *ay)
{
  const int kw = kernel->width, kh = kernel->height;
  int i, j;

  if (mode == CF_CORRELATION) {
    *ax = kw / 2;
    *ay = kh / 2;
    for (j = 0; j < kh; j++)
      for (i = 0; i < kw; i++)
        f[i + (size_t) j * kw] = kernel->taps[i + (size_t) j * kw];
  } else {
    *ax = kw - 1 - kw / 2;
    *ay = kh - 1 - kh / 2;
    for (j = 0; j < kh; j++)
      for (i = 0; i < kw; i++)
        f[i + (size_t) j * kw] =
            kernel->taps[(kw - 1 - i) + (size_t) (kh - 1 - j) * kw];
  }
}

extern "C" cf_status
cf_cuda_convolve_check_settings (const cf_kernel * kernel,
    const cf_convolve_params * params)
{
  float *f;
  int ax, ay, rank1;

  if (kernel == NULL || kernel->taps == NULL || params == NULL
      || kernel->width < 1 || kernel->height < 1
      || kernel->width > CF_KERNEL_MAX_SIZE
      || kernel->height > CF_KERNEL_MAX_SIZE)
    return CF_ERROR_INVALID;
  if (params->method == CF_CONV_METHOD_STENCIL)
    return cf_cuda_convolve_stencil_supports (kernel->width, kernel->height)
        ? CF_OK : CF_ERROR_UNSUPPORTED;
  if (params->method != CF_CONV_METHOD_SEPARABLE)
    return CF_OK;
  f = (float *) malloc ((size_t) kernel->width * kernel->height *
      sizeof (float));
  if (f == NULL)
    return CF_ERROR_NO_MEMORY;
  cf_cuda_convolve_correlation_taps (kernel, params->mode, f, &ax, &ay);
  rank1 = cf_convolve_rank1 (f, kernel->width, kernel->height, NULL, NULL);
  free (f);
  return rank1 ? CF_OK : CF_ERROR_UNSUPPORTED;
}

/* Queue the plan's method on stream. */
static cf_status
run_method (const cf_cuda_convolve_plan * plan, const float *src,
    size_t src_pitch, float *dst, size_t dst_pitch, cudaStream_t stream)
{
  switch (plan->method) {
    case CF_CONV_METHOD_DIRECT:
      return cf_cuda_convolve_direct (src, src_pitch, dst, dst_pitch,
          plan->width, plan->height, plan->taps, plan->kw, plan->kh,
          plan->ax, plan->ay, plan->border, stream);
    case CF_CONV_METHOD_STENCIL:
      /* float4 rows, or the direct method on the same F */
      if (cf_cuda_convolve_stencil_aligned (src, src_pitch, dst, dst_pitch))
        return cf_cuda_convolve_stencil (src, src_pitch, dst, dst_pitch,
            plan->width, plan->height, &plan->stencil, plan->border, stream);
      return cf_cuda_convolve_direct (src, src_pitch, dst, dst_pitch,
          plan->width, plan->height, plan->taps, plan->kw, plan->kh,
          plan->ax, plan->ay, plan->border, stream);
    case CF_CONV_METHOD_SEPARABLE:
      return cf_cuda_convolve_separable (src, src_pitch, dst, dst_pitch,
          plan->tmp.data, plan->tmp.pitch, plan->width, plan->height,
          plan->row_taps, plan->col_taps, plan->kw, plan->kh, plan->ax,
          plan->ay, plan->border, stream);
    case CF_CONV_METHOD_FFT:
      return cf_cuda_convolve_fft_run (plan->fft, src, src_pitch, dst,
          dst_pitch, stream);
    case CF_CONV_METHOD_IM2TENSOR:
      return cf_cuda_convolve_im2tensor_run (plan->im2tensor, src, src_pitch,
          dst, dst_pitch, stream);
    default:
      return CF_ERROR_UNSUPPORTED;
  }
}

extern "C" cf_status
cf_cuda_convolve_plan_new (int width, int height, const cf_kernel * kernel,
    const cf_convolve_params * params, cf_cuda_convolve_plan ** plan)
{
  return cf_cuda_convolve_plan_new_variant (width, height, kernel, params,
      CF_IM2TENSOR_VARIANT_AUTO, plan);
}

extern "C" cf_status
cf_cuda_convolve_plan_new_variant (int width, int height,
    const cf_kernel * kernel, const cf_convolve_params * params,
    cf_im2tensor_variant variant, cf_cuda_convolve_plan ** plan)
{
  cf_status status = CF_OK;
  cf_cuda_convolve_plan *p = NULL;
  float *f = NULL, *col = NULL, *row = NULL;
  size_t n;
  int kw, kh, rank1;

  if (plan != NULL)
    *plan = NULL;
  if (plan == NULL || kernel == NULL || kernel->taps == NULL
      || params == NULL || width < 1 || height < 1
      || width > CF_MAX_DIMENSION || height > CF_MAX_DIMENSION
      || kernel->width < 1 || kernel->height < 1
      || kernel->width > CF_KERNEL_MAX_SIZE
      || kernel->height > CF_KERNEL_MAX_SIZE
      || (unsigned) params->border >= CF_BORDER_COUNT
      || (params->mode != CF_CONVOLUTION && params->mode != CF_CORRELATION)
      || (unsigned) variant > CF_IM2TENSOR_VARIANT_MMA_REGS)
    return CF_ERROR_INVALID;

  p = (cf_cuda_convolve_plan *) calloc (1, sizeof (*p));
  if (p == NULL)
    return CF_ERROR_NO_MEMORY;

  kw = kernel->width;
  kh = kernel->height;
  n = (size_t) kw * kh;
  p->width = width;
  p->height = height;
  p->border = params->border;
  p->kw = kw;
  p->kh = kh;
  p->last_error = cudaSuccess;

  /* F and its anchor (file comment), and F's rank-1 factors if it has
   * them: AUTO and SEPARABLE both depend on the rank */
  f = (float *) malloc (n * sizeof (float));
  col = (float *) malloc ((size_t) kh * sizeof (float));
  row = (float *) malloc ((size_t) kw * sizeof (float));
  if (f == NULL || col == NULL || row == NULL) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }
  cf_cuda_convolve_correlation_taps (kernel, params->mode, f, &p->ax,
      &p->ay);
  rank1 = cf_convolve_rank1 (f, kw, kh, col, row);
  status = resolve_method (params->method, width, height, kw, kh, rank1,
      params->auto_im2tensor, &p->method);
  if (status != CF_OK)
    goto out;

  /* plan creation is not a run path: synchronous copies from pageable
   * memory, in the caller's current context */
  if (p->method == CF_CONV_METHOD_SEPARABLE) {
    CF_CUDA_TRY (cudaMalloc ((void **) &p->row_taps, kw * sizeof (float)));
    CF_CUDA_TRY (cudaMalloc ((void **) &p->col_taps, kh * sizeof (float)));
    CF_CUDA_TRY (cudaMemcpy (p->row_taps, row, kw * sizeof (float),
            cudaMemcpyHostToDevice));
    CF_CUDA_TRY (cudaMemcpy (p->col_taps, col, kh * sizeof (float),
            cudaMemcpyHostToDevice));
    status = cf_cuda_image_alloc (&p->tmp, width, height);
    if (status != CF_OK)
      goto out;
  } else if (p->method == CF_CONV_METHOD_IM2TENSOR) {
    /* F goes to the device in fp16, as the MMA kernel's band or the WMMA
     * kernel's K^T */
    status = cf_cuda_convolve_im2tensor_new (width, height, f, kw, kh, p->ax,
        p->ay, p->border, variant, &p->im2tensor);
    if (status != CF_OK)
      goto out;
  } else {
    CF_CUDA_TRY (cudaMalloc ((void **) &p->taps, n * sizeof (float)));
    CF_CUDA_TRY (cudaMemcpy (p->taps, f, n * sizeof (float),
            cudaMemcpyHostToDevice));
  }
  if (p->method == CF_CONV_METHOD_STENCIL) {
    status = cf_cuda_convolve_stencil_prepare (f, kw, kh, p->ax, p->ay,
        &p->stencil);
    if (status != CF_OK)
      goto out;
  }
  if (p->method == CF_CONV_METHOD_FFT) {
    status = cf_cuda_convolve_fft_new (width, height, p->taps, kw, kh, p->ax,
        p->ay, p->border, &p->fft);
    if (status != CF_OK)
      goto out;
  }
  /* a pageable cudaMemcpy may return before its DMA lands, and runs are
   * queued on streams that need not order after the default stream */
  CF_CUDA_TRY (cudaStreamSynchronize (0));

out:
  free (f);
  free (col);
  free (row);
  if (status != CF_OK) {
    cf_cuda_convolve_plan_free (p);
    return status;
  }
  *plan = p;
  return CF_OK;
}

extern "C" cf_status
cf_cuda_convolve_plan_run (cf_cuda_convolve_plan * plan, const float *src,
    size_t src_pitch, float *dst, size_t dst_pitch, cudaStream_t stream)
{
  cf_status status;

  if (plan == NULL || src == NULL || dst == NULL
      || src_pitch < (size_t) plan->width || dst_pitch < (size_t) plan->width)
    return CF_ERROR_INVALID;
  status = run_method (plan, src, src_pitch, dst, dst_pitch, stream);
  if (status == CF_ERROR_CUDA || status == CF_ERROR_NO_MEMORY
      || status == CF_ERROR_NO_DEVICE)
    plan->last_error = cf_cuda_last_error ();
  return status;
}

extern "C" cf_conv_method
cf_cuda_convolve_plan_method (const cf_cuda_convolve_plan * plan)
{
  return plan != NULL ? plan->method : CF_CONV_METHOD_AUTO;
}

extern "C" cf_im2tensor_variant
cf_cuda_convolve_plan_im2tensor_variant (const cf_cuda_convolve_plan * plan)
{
  return plan != NULL ? cf_cuda_convolve_im2tensor_variant (plan->im2tensor)
      : CF_IM2TENSOR_VARIANT_AUTO;
}

extern "C" int
cf_cuda_convolve_plan_im2tensor_warp_columns (const cf_cuda_convolve_plan *
    plan)
{
  return plan != NULL ?
      cf_cuda_convolve_im2tensor_warp_columns (plan->im2tensor) : 0;
}

extern "C" int
cf_cuda_convolve_plan_fft_sizes (const cf_cuda_convolve_plan * plan,
    int *columns, int *rows)
{
  if (plan == NULL || plan->fft == NULL || columns == NULL || rows == NULL)
    return 0;
  cf_cuda_convolve_fft_sizes (plan->fft, columns, rows);
  return 1;
}

extern "C" int
cf_cuda_convolve_plan_fft_tiles (const cf_cuda_convolve_plan * plan,
    int *tiles_x, int *tiles_y)
{
  if (plan == NULL || plan->fft == NULL || tiles_x == NULL
      || tiles_y == NULL)
    return 0;
  cf_cuda_convolve_fft_tiles (plan->fft, tiles_x, tiles_y);
  return 1;
}

extern "C" void
cf_cuda_convolve_plan_free (cf_cuda_convolve_plan * plan)
{
  if (plan == NULL)
    return;
  cf_cuda_convolve_fft_free (plan->fft);
  cf_cuda_convolve_im2tensor_free (plan->im2tensor);
  if (plan->taps != NULL)
    cf_cuda_check (cudaFree (plan->taps));
  if (plan->row_taps != NULL)
    cf_cuda_check (cudaFree (plan->row_taps));
  if (plan->col_taps != NULL)
    cf_cuda_check (cudaFree (plan->col_taps));
  cf_cuda_image_release (&plan->tmp);
  free (plan);
}

extern "C" const char *
cf_conv_method_name (cf_conv_method method)
{
  switch (method) {
    case CF_CONV_METHOD_AUTO:
      return "auto";
    case CF_CONV_METHOD_DIRECT:
      return "direct";
    case CF_CONV_METHOD_SEPARABLE:
      return "separable";
    case CF_CONV_METHOD_FFT:
      return "fft";
    case CF_CONV_METHOD_IM2TENSOR:
      return "im2tensor";
    case CF_CONV_METHOD_STENCIL:
      return "stencil";
    default:
      return "unknown";
  }
}

extern "C" const char *
cf_im2tensor_variant_name (cf_im2tensor_variant variant)
{
  switch (variant) {
    case CF_IM2TENSOR_VARIANT_AUTO:
      return "auto";
    case CF_IM2TENSOR_VARIANT_WMMA:
      return "wmma";
    case CF_IM2TENSOR_VARIANT_MMA:
      return "mma";
    case CF_IM2TENSOR_VARIANT_MMA_REGS:
      return "mma-regs";
    default:
      return "unknown";
  }
}

extern "C" const char *
cf_cuda_convolve_fft_load_error (void)
{
  return cf_cufft_load_error ();
}
