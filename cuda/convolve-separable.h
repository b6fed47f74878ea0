/* gst-cudaflow — separable (rank-1) 2-D correlation, internal
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to cuda/: the plan (convolve.cu) factors its correlation kernel
 * F = c r^T once at plan_new (cf_convolve_rank1 ()) and calls the launcher
 * on every run with a plan-owned intermediate plane. Plain C declarations,
 * no device code.
 */
#ifndef CF_CUDA_CONVOLVE_SEPARABLE_H
#define CF_CUDA_CONVOLVE_SEPARABLE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "common/border.h"
#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest residual accepted by cf_convolve_rank1 (), relative to max |F|. */
#define CF_SEPARABLE_TOLERANCE 1e-6

/**
 * \brief Factor a kernel as F[j][i] = col[j] * row[i] (host code).
 *
 * The pivot is the tap of largest magnitude, (j0, i0): row = F's row j0,
 * col[j] = F[j][i0] / F[j0][i0]. The factorisation is accepted when
 * max |F - col row^T| <= CF_SEPARABLE_TOLERANCE * max |F|: a float kernel
 * built as an outer product (a sampled Gaussian, a box) misses exactness
 * only by float rounding of each tap, about 6e-8 * max |F|, while any real
 * rank-2 component is far larger. An all-zero kernel is rank 1 (col = row
 * = 0); a kernel with a non-finite tap is not.
 *
 * \param[in]  f    F, kh rows of kw floats
 * \param[in]  kw   kernel width (>= 1)
 * \param[in]  kh   kernel height (>= 1)
 * \param[out] col  kh floats (may be NULL to only test the rank)
 * \param[out] row  kw floats (may be NULL to only test the rank)
 * \return 1 when F is rank 1 within the tolerance, else 0
 */
int cf_convolve_rank1 (const float *f, int kw, int kh, float *col,
    float *row);

/**
 * \brief Separable 'same'-size correlation of a pitched device plane.
 *
 * tmp(x, y) = sum_{i<kw} row[i] in(fold(x+i-ax), y), then
 * out(x, y) = sum_{j<kh} col[j] tmp(x, fold(y+j-ay)); per axis the fold is
 * cf_border_fold () (zero rule: the sample contributes 0), which is exactly
 * the CPU reference's per-tap rule since every rule folds x and y
 * independently. fp32 throughout; differs from the direct method by
 * rounding only.
 *
 * \param[in]  src        input plane, width x height floats
 * \param[in]  src_pitch  elements between rows of src (>= width)
 * \param[out] dst        output plane (must not overlap src or tmp)
 * \param[in]  dst_pitch  elements between rows of dst (>= width)
 * \param[in]  tmp        intermediate plane, width x height floats
 * \param[in]  tmp_pitch  elements between rows of tmp (>= width)
 * \param[in]  width      image width, 1 .. CF_MAX_DIMENSION
 * \param[in]  height     image height, 1 .. CF_MAX_DIMENSION
 * \param[in]  row        device memory: kw taps of the row pass
 * \param[in]  col        device memory: kh taps of the column pass
 * \param[in]  kw         kernel width, 1 .. CF_KERNEL_MAX_SIZE
 * \param[in]  kh         kernel height, 1 .. CF_KERNEL_MAX_SIZE
 * \param[in]  ax         anchor column (0 <= ax < kw)
 * \param[in]  ay         anchor row (0 <= ay < kh)
 * \param[in]  border     border rule for out-of-image taps
 * \param[in]  stream     stream both passes are queued on
 * \return CF_OK, or the mapped launch error (recorded by cf_cuda_check ())
 */
cf_status cf_cuda_convolve_separable (const float *src, size_t src_pitch,
    float *dst, size_t dst_pitch, float *tmp, size_t tmp_pitch, int width,
    int height, const float *row, const float *col, int kw, int kh, int ax,
    int ay, cf_border border, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CONVOLVE_SEPARABLE_H */
