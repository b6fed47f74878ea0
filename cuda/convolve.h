/* gst-cudaflow — GPU 2-D convolution plans
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Computes exactly what cf_convolve () (common/convolve.h) defines: 'same'
 * size, anchor (w/2, h/2), every border rule, convolution or correlation.
 * A plan is made for one image size and one kernel; it owns every device
 * buffer it needs, so running it never allocates.
 */
#ifndef CF_CUDA_CONVOLVE_H
#define CF_CUDA_CONVOLVE_H

#include "common/convolve.h"
#include "cuda/cuda-util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_CONV_METHOD_AUTO = 0,
  CF_CONV_METHOD_DIRECT,        /* shared-memory tiled, any size */
  CF_CONV_METHOD_SEPARABLE,     /* rank-1 kernels: row pass then column pass */
  CF_CONV_METHOD_FFT,           /* cuFFT R2C/C2R, cached kernel spectrum */
  CF_CONV_METHOD_IM2TENSOR,     /* tensor cores, fp16 in / fp32 accumulate */
  CF_CONV_METHOD_STENCIL        /* kernels up to 7 x 7: one pass, registers
                                 * only, at memory speed */
} cf_conv_method;

/* Largest kernel side CF_CONV_METHOD_STENCIL serves (7 x 7). */
#define CF_CONV_STENCIL_MAX_SIZE 7

/* CF_CONV_METHOD_AUTO runs the stencil for kernels of at most this side:
 * the fastest method, ours or a vendor's, for every side up to 7 measured
 * (tests/gpu/conv-stencil-tune.sh, tests/gpu/conv-measure.sh;
 * docs/convolution.md). */
#define CF_CONV_AUTO_STENCIL_SIZE 7

typedef struct
{
  cf_border border;
  cf_conv_mode mode;
  cf_conv_method method;
  int auto_im2tensor;           /* CF_CONV_METHOD_AUTO may pick im2tensor
                                 * (fp16 inputs, fp32 sums) where it is the
                                 * fastest measured; 0: fp32 methods only */
} cf_convolve_params;

/* The tensor-core kernel of a CF_CONV_METHOD_IM2TENSOR plan (both compute
 * the same sums: fp16 inputs, fp32 products and sums). */
typedef enum
{
  CF_IM2TENSOR_VARIANT_AUTO = 0,        /* MMA where it runs, else
                                         * MMA_REGS, else WMMA */
  CF_IM2TENSOR_VARIANT_WMMA,    /* WMMA m16n16k16, partial-sum buffer and
                                 * reduce; compute capability 7.0+ */
  CF_IM2TENSOR_VARIANT_MMA,     /* mma.sync m16n8k16, diagonal sums in the
                                 * accumulators, image rows staged in
                                 * shared memory by cp.async; compute
                                 * capability 8.0+, kernels whose band fits
                                 * in shared memory
                                 * (CF_IM2TENSOR_MMA_BAND_MAX) */
  CF_IM2TENSOR_VARIANT_MMA_REGS /* the same products, image rows loaded
                                 * into registers one row ahead; where MMA
                                 * runs, and where the band alone fits */
} cf_im2tensor_variant;

typedef struct cf_cuda_convolve_plan cf_cuda_convolve_plan;

/* CF_ERROR_UNSUPPORTED for CF_CONV_METHOD_SEPARABLE with a kernel that
 * is not rank 1, for CF_CONV_METHOD_STENCIL with a kernel side above
 * CF_CONV_STENCIL_MAX_SIZE, for CF_CONV_METHOD_FFT when cuFFT cannot be
 * loaded, and for CF_CONV_METHOD_IM2TENSOR on a device without tensor
 * cores (compute capability below 7.0). im2tensor rounds the input and the kernel to
 * fp16 (fp32 sums): about 2^-11 relative error per product. */
cf_status cf_cuda_convolve_plan_new (int width, int height,
    const cf_kernel * kernel, const cf_convolve_params * params,
    cf_cuda_convolve_plan ** plan);

/* What plan_new () refuses for the settings alone, whatever the device:
 * CF_ERROR_UNSUPPORTED for CF_CONV_METHOD_SEPARABLE with a kernel that is
 * not rank 1 (the same test on the same taps as plan_new) and for
 * CF_CONV_METHOD_STENCIL with a kernel side above CF_CONV_STENCIL_MAX_SIZE,
 * CF_ERROR_INVALID
 * for a missing kernel or parameters, CF_OK otherwise. Host code: it needs
 * no device, so the CPU backend refuses the same settings as the GPU. */
cf_status cf_cuda_convolve_check_settings (const cf_kernel * kernel,
    const cf_convolve_params * params);

/* src and dst: device planes of the plan's size; they must not overlap.
 * CF_CONV_METHOD_STENCIL reads and writes rows as float4: on planes that
 * are not 16-byte aligned with pitches a multiple of 4 floats (as
 * cf_cuda_image_alloc () makes them), the plan runs the direct method
 * instead, with the same result up to rounding. */
cf_status cf_cuda_convolve_plan_run (cf_cuda_convolve_plan * plan,
    const float *src, size_t src_pitch, float *dst, size_t dst_pitch,
    cudaStream_t stream);

/* The method the plan resolved to (never AUTO). */
cf_conv_method cf_cuda_convolve_plan_method (const cf_cuda_convolve_plan *
    plan);

/* Internal, for tests and tools/gst-cudaflow-conv-bench: plan_new () with
 * the im2tensor kernel chosen (plan_new () is CF_IM2TENSOR_VARIANT_AUTO;
 * other methods ignore it). CF_ERROR_UNSUPPORTED for
 * CF_IM2TENSOR_VARIANT_MMA or _MMA_REGS where that kernel cannot run. */
cf_status cf_cuda_convolve_plan_new_variant (int width, int height,
    const cf_kernel * kernel, const cf_convolve_params * params,
    cf_im2tensor_variant variant, cf_cuda_convolve_plan ** plan);

/* The im2tensor kernel a plan runs; CF_IM2TENSOR_VARIANT_AUTO for a plan
 * of another method. */
cf_im2tensor_variant cf_cuda_convolve_plan_im2tensor_variant (const
    cf_cuda_convolve_plan * plan);

/* Output columns of a warp of the im2tensor MMA kernel a plan runs (128,
 * or 64 on small images: cf_cuda_convolve_im2tensor_warp_columns ()); 0
 * for the WMMA kernel or a plan of another method. */
int cf_cuda_convolve_plan_im2tensor_warp_columns (const
    cf_cuda_convolve_plan * plan);

const char *cf_im2tensor_variant_name (cf_im2tensor_variant variant);

/* The FFT method's transform sizes (columns, rows) for a plan of that
 * method: 1, or 0 for a plan of another method. They depend on the image,
 * the kernel and the border, and on large images on cuFFT's measured
 * speed on this device (see docs/convolution.md). */
int cf_cuda_convolve_plan_fft_sizes (const cf_cuda_convolve_plan * plan,
    int *columns, int *rows);

/* The FFT method's overlap-save tiles (across, down) for a plan of that
 * method: 1 x 1 for one transform of the whole image, else a batch of
 * them, each of the sizes above. 1, or 0 for a plan of another method. */
int cf_cuda_convolve_plan_fft_tiles (const cf_cuda_convolve_plan * plan,
    int *tiles_x, int *tiles_y);

/* Internal: the correlation kernel F of @kernel under @mode into @f (kw kh
 * floats) and its anchor, as every plan runs it (convolution flips the
 * taps in both axes; cuda/convolve.cu). Host code. */
void cf_cuda_convolve_correlation_taps (const cf_kernel * kernel,
    cf_conv_mode mode, float *f, int *ax, int *ay);

void cf_cuda_convolve_plan_free (cf_cuda_convolve_plan * plan);

const char *cf_conv_method_name (cf_conv_method method);

/* Why CF_CONV_METHOD_FFT is refused: the text of the failed dlopen or
 * dlsym of cuFFT (opened at run time), or "" when cuFFT is available. */
const char *cf_cuda_convolve_fft_load_error (void);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CONVOLVE_H */
