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

/**
 * \brief cf_cuda_convolve_fft_new () with overlap-save tiles of tile_w x
 * tile_h transforms, or with the automatic choice when both are 0.
 *
 * A tile gives tile_w - kw + 1 x tile_h - kh + 1 outputs; the tiles cover
 * the image in one batch of transforms (convolve-fft.cu). The automatic
 * choice (cf_cuda_convolve_fft_new ()) tiles only large images where
 * cuFFT runs the tiles' batch faster than one whole-image transform.
 *
 * \return as cf_cuda_convolve_fft_new (); CF_ERROR_INVALID also when only
 *         one of tile_w, tile_h is 0, either is negative, a tile is
 *         smaller than the kernel or larger than CF_MAX_DIMENSION, or there
 *         would be more than 65535 tiles
 */
cf_status cf_cuda_convolve_fft_new_tiled (int width, int height,
    const float *taps, int kw, int kh, int ax, int ay, cf_border border,
    int tile_w, int tile_h, cf_cuda_convolve_fft ** fft);

/* The transform sizes fft runs: pw columns (even), ph rows; at least the
 * padded lengths, 5-smooth, and on large images chosen by timing at
 * creation (convolve-fft.cu). */
void cf_cuda_convolve_fft_sizes (const cf_cuda_convolve_fft * fft, int *pw,
    int *ph);

/* The overlap-save tiles fft runs, across and down (1 x 1: one transform
 * of the whole padded image, of the sizes above; else a batch of them,
 * each of the sizes above). */
void cf_cuda_convolve_fft_tiles (const cf_cuda_convolve_fft * fft,
    int *tiles_x, int *tiles_y);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CONVOLVE_FFT_H */
