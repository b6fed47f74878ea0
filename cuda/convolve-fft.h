/* gst-cudaflow — FFT (cuFFT) 2-D correlation, internal
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to cuda/: the plan (convolve.cu) makes one of these at plan_new
 * (buffers, both cuFFT plans and the kernel spectrum) and runs it per frame
 * without allocating. cuFFT is opened at run time (cufft-loader.h). Plain C
 * declarations, no device code.
 */
#ifndef CF_CUDA_CONVOLVE_FFT_H
#define CF_CUDA_CONVOLVE_FFT_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "common/border.h"
#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_cuda_convolve_fft cf_cuda_convolve_fft;

/* 1 when cuFFT could be loaded (cf_cufft_load ()). */
int cf_cuda_convolve_fft_available (void);

/* Smallest n >= max (m, 1) of the form 2^a 3^b 5^c. */
int cf_fft_fast_size (int m);

/* Shortest circular length that holds the padded extent of n samples for
 * a k-tap kernel anchored at anchor under border without aliasing: n + k
 * - 1, or max (n + max (anchor, k - 1 - anchor), k) for the zero rule
 * (convolve-fft.cu). The transform length is the next fast size. */
int cf_fft_padded_length (int n, int k, int anchor, cf_border border);

/**
 * \brief Prepare FFT correlation of width x height planes with F.
 *
 * Allocates the padded buffers, makes the R2C and C2R plans and computes
 * the spectrum of F once. Synchronous: device work is queued on the
 * calling thread's default stream and waited for before returning.
 *
 * \param[in]  width   image width, 1 .. CF_MAX_DIMENSION
 * \param[in]  height  image height, 1 .. CF_MAX_DIMENSION
 * \param[in]  taps    device memory: F, kh rows of kw floats
 * \param[in]  kw      kernel width, 1 .. CF_KERNEL_MAX_SIZE
 * \param[in]  kh      kernel height, 1 .. CF_KERNEL_MAX_SIZE
 * \param[in]  ax      anchor column of F (0 <= ax < kw)
 * \param[in]  ay      anchor row of F (0 <= ay < kh)
 * \param[in]  border  border rule for out-of-image taps
 * \param[out] fft     the new state, NULL on failure
 * \return CF_OK; CF_ERROR_UNSUPPORTED when cuFFT could not be loaded;
 *         CF_ERROR_NO_MEMORY or CF_ERROR_CUDA on device failures
 */
cf_status cf_cuda_convolve_fft_new (int width, int height, const float *taps,
    int kw, int kh, int ax, int ay, cf_border border,
    cf_cuda_convolve_fft ** fft);

/**
 * \brief Queue one 'same'-size correlation on stream (never allocates).
 *
 * Same result as cf_cuda_convolve_direct () up to FFT rounding. Unlike the
 * direct method a non-finite input sample spreads to every output sample.
 * One state must not run on two streams at once (shared buffers).
 *
 * \return CF_OK, CF_ERROR_INVALID, or CF_ERROR_CUDA (launch or cuFFT error)
 */
cf_status cf_cuda_convolve_fft_run (cf_cuda_convolve_fft * fft,
    const float *src, size_t src_pitch, float *dst, size_t dst_pitch,
    cudaStream_t stream);

void cf_cuda_convolve_fft_free (cf_cuda_convolve_fft * fft);

/* The transform sizes fft runs: pw columns (even), ph rows; at least the
 * padded lengths, 5-smooth, and on large images chosen by timing at
 * creation (convolve-fft.cu). */
void cf_cuda_convolve_fft_sizes (const cf_cuda_convolve_fft * fft, int *pw,
    int *ph);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CONVOLVE_FFT_H */
