/* gst-cudaflow — GPU 2-D convolution plans
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A plan computes what cf_convolve () defines (common/convolve.h). Both
 * modes are run as correlation with a kernel F and anchor (ax, ay), prepared
 * once at plan_new like the CPU reference does per call:
 *   correlation  F = K,                 (ax, ay) = (kw/2, kh/2)
 *   convolution  F[j][i] = K[kh-1-j][kw-1-i],
 *                (ax, ay) = (kw-1-kw/2, kh-1-kh/2)
 * (for even sizes the flipped anchor differs from kw/2 by one). F lives in
 * device memory owned by the plan; running never allocates.
 *
 * Methods: only CF_CONV_METHOD_DIRECT is built so far; AUTO resolves to it.
 * resolve_method () and run_method () are the single dispatch points where
 * the separable, FFT and tensor-core methods slot in.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/convolve.h"
#include "cuda/convolve-direct.h"

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
  float *taps;                  /* device: F, kh rows of kw floats */
  cudaError_t last_error;       /* last CUDA failure of this plan */
};

/* The method a request resolves to, or CF_ERROR_UNSUPPORTED for methods
 * this build does not have yet. */
static cf_status
resolve_method (cf_conv_method requested, const cf_kernel * kernel,
    cf_conv_method * method)
{
  (void) kernel;                /* AUTO will look at size and rank */
  switch (requested) {
    case CF_CONV_METHOD_AUTO:
    case CF_CONV_METHOD_DIRECT:
      *method = CF_CONV_METHOD_DIRECT;
      return CF_OK;
    case CF_CONV_METHOD_SEPARABLE:
    case CF_CONV_METHOD_FFT:
    case CF_CONV_METHOD_IM2TENSOR:
      return CF_ERROR_UNSUPPORTED;
    default:
      return CF_ERROR_INVALID;
  }
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
    default:
      return CF_ERROR_UNSUPPORTED;
  }
}

extern "C" cf_status
cf_cuda_convolve_plan_new (int width, int height, const cf_kernel * kernel,
    const cf_convolve_params * params, cf_cuda_convolve_plan ** plan)
{
  cf_status status = CF_OK;
  cf_cuda_convolve_plan *p = NULL;
  float *f = NULL;
  size_t n;
  int kw, kh, i, j;

  if (plan != NULL)
    *plan = NULL;
  if (plan == NULL || kernel == NULL || kernel->taps == NULL
      || params == NULL || width < 1 || height < 1
      || width > CF_MAX_DIMENSION || height > CF_MAX_DIMENSION
      || kernel->width < 1 || kernel->height < 1
      || kernel->width > CF_KERNEL_MAX_SIZE
      || kernel->height > CF_KERNEL_MAX_SIZE
      || (unsigned) params->border >= CF_BORDER_COUNT
      || (params->mode != CF_CONVOLUTION && params->mode != CF_CORRELATION))
    return CF_ERROR_INVALID;

  p = (cf_cuda_convolve_plan *) calloc (1, sizeof (*p));
  if (p == NULL)
    return CF_ERROR_NO_MEMORY;
  status = resolve_method (params->method, kernel, &p->method);
  if (status != CF_OK)
    goto out;

  kw = kernel->width;
  kh = kernel->height;
  n = (size_t) kw * kh;
  p->width = width;
  p->height = height;
  p->border = params->border;
  p->kw = kw;
  p->kh = kh;
  p->last_error = cudaSuccess;

  /* F and its anchor (file comment) */
  f = (float *) malloc (n * sizeof (float));
  if (f == NULL) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }
  if (params->mode == CF_CORRELATION) {
    p->ax = kw / 2;
    p->ay = kh / 2;
    for (j = 0; j < kh; j++)
      for (i = 0; i < kw; i++)
        f[i + (size_t) j * kw] = kernel->taps[i + (size_t) j * kw];
  } else {
    p->ax = kw - 1 - kw / 2;
    p->ay = kh - 1 - kh / 2;
    for (j = 0; j < kh; j++)
      for (i = 0; i < kw; i++)
        f[i + (size_t) j * kw] =
            kernel->taps[(kw - 1 - i) + (size_t) (kh - 1 - j) * kw];
  }

  /* plan creation is not a run path: a synchronous copy from pageable
   * memory, in the caller's current context */
  CF_CUDA_TRY (cudaMalloc ((void **) &p->taps, n * sizeof (float)));
  CF_CUDA_TRY (cudaMemcpy (p->taps, f, n * sizeof (float),
          cudaMemcpyHostToDevice));

out:
  free (f);
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

extern "C" void
cf_cuda_convolve_plan_free (cf_cuda_convolve_plan * plan)
{
  if (plan == NULL)
    return;
  if (plan->taps != NULL)
    cf_cuda_check (cudaFree (plan->taps));
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
    default:
      return "unknown";
  }
}
