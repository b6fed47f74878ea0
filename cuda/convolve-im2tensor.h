/* gst-cudaflow — im2tensor (tensor-core) 2-D correlation, internal
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to cuda/: the plan (convolve.cu) makes one of these at plan_new
 * and runs it per frame without allocating. im2tensor (Seznec et al.,
 * JRTIP 2022) in one of two kernels (cf_im2tensor_variant, convolve.h):
 * the MMA kernel (convolve-im2tensor-mma.cu: the diagonal sums in the
 * accumulators, compute capability 8.0+) or the WMMA kernel
 * (convolve-im2tensor.cu: the paper's fused variant with a safe C-row
 * bound, compute capability 7.0+). Plain C declarations, no device code.
 */
#ifndef CF_CUDA_CONVOLVE_IM2TENSOR_H
#define CF_CUDA_CONVOLVE_IM2TENSOR_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "common/border.h"
#include "common/convolve.h"
#include "common/status.h"
#include "cuda/convolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Input samples are multiplied by this power of two before they are
 * rounded to fp16 (largest finite fp16: 65504), so 16-bit video planes
 * (0 .. 65535, common/planes.h) fit; |in| above 131008 saturates. */
#define CF_IM2TENSOR_INPUT_SCALE 0.5f

/* Largest pair of bands (bytes) the MMA kernel keeps in shared memory:
 * two of (kh + 14) rows of ceil16 (kw + 1) + 8 halves for kw < 64,
 * ceil64 (kw + 1) + 8 above (75 KB for 127 x 127, 160 KB for 191 x 191).
 * Larger kernels run the WMMA kernel. */
#define CF_IM2TENSOR_MMA_BAND_MAX (192 * 1024)

typedef struct cf_cuda_convolve_im2tensor cf_cuda_convolve_im2tensor;

/**
 * \brief Prepare im2tensor correlation of width x height planes with F.
 *
 * Scales F by a power of two so max |F| lands in [1, 2) (small taps keep
 * their precision) and rounds it to fp16: for the MMA kernel as the band
 * of kernel rows its tiles multiply, for the WMMA kernel as the
 * zero-padded, transposed K^T (Seznec et al. 2022, eq. 12) with the
 * partial-sum buffer C. Allocates the padded fp16 image. Needs a device of
 * compute capability 7.0 or newer (tensor cores). Synchronous, in the
 * calling thread's current context.
 *
 * \param[in]  width   image width, 1 .. CF_MAX_DIMENSION
 * \param[in]  height  image height, 1 .. CF_MAX_DIMENSION
 * \param[in]  f       host memory: F, kh rows of kw floats (correlation
 *                     form, see convolve.cu)
 * \param[in]  kw      kernel width, 1 .. CF_KERNEL_MAX_SIZE
 * \param[in]  kh      kernel height, 1 .. CF_KERNEL_MAX_SIZE
 * \param[in]  ax      anchor column of F (0 <= ax < kw)
 * \param[in]  ay      anchor row of F (0 <= ay < kh)
 * \param[in]  border  border rule for out-of-image taps
 * \param[in]  variant CF_IM2TENSOR_VARIANT_AUTO: MMA where this device
 *                     runs it for this kernel (compute capability 8.0+,
 *                     bands within CF_IM2TENSOR_MMA_BAND_MAX, bands
 *                     and rings within shared memory), else MMA_REGS where
 *                     it runs, else WMMA; or the one asked for
 * \param[out] state   the new state, NULL on failure
 * \return CF_OK; CF_ERROR_UNSUPPORTED on a device without tensor cores,
 *         or for CF_IM2TENSOR_VARIANT_MMA or _MMA_REGS where it
 *         cannot run;
 *         CF_ERROR_INVALID, CF_ERROR_NO_MEMORY or CF_ERROR_CUDA
 */
cf_status cf_cuda_convolve_im2tensor_new (int width, int height,
    const float *f, int kw, int kh, int ax, int ay, cf_border border,
    cf_im2tensor_variant variant, cf_cuda_convolve_im2tensor ** state);

/* 1 when a CF_IM2TENSOR_VARIANT_AUTO state for a kw x kh kernel runs an
 * MMA kernel (either row loop) on the current device (what
 * cf_cuda_convolve_im2tensor_new () would pick), 0 otherwise and on any
 * CUDA error. Method AUTO asks this: its im2tensor window was measured
 * with those kernels. */
int cf_cuda_convolve_im2tensor_mma_runs (int kw, int kh);

/* The kernel a state runs (never AUTO); AUTO for NULL. */
cf_im2tensor_variant cf_cuda_convolve_im2tensor_variant (const
    cf_cuda_convolve_im2tensor * state);

/* Output columns of a warp of the MMA kernel a state runs: 128, or 64
 * where a grid of 128-wide blocks would have no more blocks than the
 * device has SMs; 0 for the WMMA kernel or NULL. */
int cf_cuda_convolve_im2tensor_warp_columns (const
    cf_cuda_convolve_im2tensor * state);

/**
 * \brief Queue one 'same'-size correlation on stream (never allocates).
 *
 * out(x, y) = sum_{j<kh} sum_{i<kw} F[j][i] in(fold(x+i-ax), fold(y+j-ay))
 * with every tap folded by cf_border_fold () (zero rule: the tap gives 0),
 * as cf_convolve () computes it, except that in and F are rounded to fp16
 * (relative error about 2^-11 per product); products and every sum are
 * fp32. A non-finite input sample reaches a few more outputs than it
 * would directly (padded kernel rows multiply it by 0). One state must not
 * run on two streams at once (shared buffers).
 *
 * \return CF_OK, CF_ERROR_INVALID, or CF_ERROR_CUDA (launch error)
 */
cf_status cf_cuda_convolve_im2tensor_run (cf_cuda_convolve_im2tensor * state,
    const float *src, size_t src_pitch, float *dst, size_t dst_pitch,
    cudaStream_t stream);

void cf_cuda_convolve_im2tensor_free (cf_cuda_convolve_im2tensor * state);

/* The MMA kernel run on the CPU: what a plan of @variant
 * (CF_IM2TENSOR_VARIANT_MMA or _MMA_REGS) computes for src and kernel
 * with warps of 128 columns or, with @narrow, of 64 (the width a plan
 * takes where a grid of wide blocks would leave SMs idle)
 * (the arguments of cf_convolve ()), from the same padded image, bands
 * and scales, with the warp's program of the kernel run for all 32 lanes
 * and each mma.sync emulated from its fragment layouts (fp16 products,
 * fp32 sums); MMA's copies into shared memory land at the latest moment
 * the kernel allows, and read as NaN before. For tests of the kernel's
 * indexing without a GPU; slow (about the kernel's multiply-adds, one at
 * a time). @stray_reads (may be NULL): the reads of the padded image, the
 * bands or a warp's ring, and the copies into the ring, that fall outside
 * them (each reads 0 or is dropped), 0 when the plan's buffers are large
 * enough. CF_OK, CF_ERROR_INVALID, CF_ERROR_NO_MEMORY, or
 * CF_ERROR_UNSUPPORTED where the plan's geometry would not give the warps
 * asked for. */
cf_status cf_im2tensor_mma_emulate (const cf_image * src,
    const cf_kernel * kernel, cf_border border, cf_conv_mode mode,
    cf_im2tensor_variant variant, int narrow, cf_image * dst,
    long *stray_reads);

/* The pad kernel's runs on the CPU against the padded image's definition:
 * the padded image of src (cuda/convolve-im2tensor.cuh) for a kw x kh
 * kernel anchored at (ax, ay) under @border, @rows rows of @pitch halves
 * (a multiple of 8), built once as the pad kernel builds it
 * (im2tensor_pad_run (), 8 columns at a time) and once a pair at a time
 * as the CPU emulation does (im2tensor_pad_pair ()), into buffers
 * poisoned differently, and compared bit for bit. @mismatches: the
 * halves that differ (a half one of them leaves unwritten counts); @first
 * (may be NULL): the index of the first of them, in halves from the
 * start, -1 when there is none. For tests of the pad kernel without a
 * GPU. CF_OK, CF_ERROR_INVALID or CF_ERROR_NO_MEMORY. */
cf_status cf_im2tensor_pad_compare (const cf_image * src, int kw, int kh,
    int ax, int ay, cf_border border, size_t pitch, int rows,
    long *mismatches, long *first);

/* Rows R_C of the partial-sum buffer C when blocks of h_b kernel columns
 * (kw_hat a multiple of h_b) by w_b image columns write row
 * (bi + bj) mod R_C: ceil ((kw_hat - 1) / w_b) + kw_hat / h_b, the safe
 * form of eq. 19 of Seznec et al. 2022.
 * The fused kernel uses h_b = kw_hat, w_b = 64. Exposed for tests. */
int cf_im2tensor_c_rows (int kw_hat, int h_b, int w_b);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CONVOLVE_IM2TENSOR_H */
