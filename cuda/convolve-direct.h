/* gst-cudaflow — direct (shared-memory tiled) 2-D correlation, internal
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to cuda/: the plan (convolve.cu) prepares the correlation form F
 * of the kernel (flipped for convolution) and its anchor once, then calls
 * this launcher on every run. Plain C declarations, no device code.
 */
#ifndef CF_CUDA_CONVOLVE_DIRECT_H
#define CF_CUDA_CONVOLVE_DIRECT_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "common/border.h"
#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Direct 'same'-size correlation of a pitched device plane.
 *
 * out(x, y) = sum_{j<kh} sum_{i<kw} F[j][i] in(fold(x+i-ax), fold(y+j-ay)),
 * with every tap's coordinates folded by cf_border_fold () (zero rule: the
 * tap contributes 0). fp32 products, fp32 accumulation.
 *
 * \param[in]  src        input plane, width x height floats
 * \param[in]  src_pitch  elements between rows of src (>= width)
 * \param[out] dst        output plane (must not overlap src)
 * \param[in]  dst_pitch  elements between rows of dst (>= width)
 * \param[in]  width      image width, 1 .. CF_MAX_DIMENSION
 * \param[in]  height     image height, 1 .. CF_MAX_DIMENSION
 * \param[in]  taps       device memory: F, kh rows of kw floats, row-major
 * \param[in]  kw         kernel width, 1 .. CF_KERNEL_MAX_SIZE
 * \param[in]  kh         kernel height, 1 .. CF_KERNEL_MAX_SIZE
 * \param[in]  ax         anchor column of F (0 <= ax < kw)
 * \param[in]  ay         anchor row of F (0 <= ay < kh)
 * \param[in]  border     border rule for out-of-image taps
 * \param[in]  stream     stream the kernel is queued on
 * \return CF_OK, or the mapped launch error (recorded by cf_cuda_check ())
 */
cf_status cf_cuda_convolve_direct (const float *src, size_t src_pitch,
    float *dst, size_t dst_pitch, int width, int height, const float *taps,
    int kw, int kh, int ax, int ay, cf_border border, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CONVOLVE_DIRECT_H */
