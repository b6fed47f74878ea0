/* gst-cudaflow — register stencil for small kernels, internal
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to cuda/: the plan (convolve.cu) prepares the correlation form F
 * of the kernel and its anchor once, packs them into a cf_stencil_taps at
 * plan_new (cf_cuda_convolve_stencil_prepare ()), and calls the launcher on
 * every run. Plain C declarations, no device code.
 */
#ifndef CF_CUDA_CONVOLVE_STENCIL_H
#define CF_CUDA_CONVOLVE_STENCIL_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "common/border.h"
#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest kernel side the stencil serves: every tap reaches at most
 * CF_STENCIL_MAX_RADIUS samples from the output in each axis. */
#define CF_STENCIL_MAX_SIZE 7
#define CF_STENCIL_MAX_RADIUS 3
#define CF_STENCIL_MAX_TAPS ((2 * CF_STENCIL_MAX_RADIUS + 1) \
    * (2 * CF_STENCIL_MAX_RADIUS + 1))

/* F re-centred on the output sample: a (2 rx + 1) x (2 ry + 1) kernel with
 * anchor (rx, ry), rx = max (ax, kw - 1 - ax), ry likewise. An odd kernel
 * is F itself; an even one gains a column (row) of zero taps on the side
 * its anchor leaves short. The launcher passes it to the kernel by value,
 * so the taps live in the constant bank of the launch parameters. */
typedef struct
{
  int rx;                       /* horizontal reach, 0 .. MAX_RADIUS */
  int ry;                       /* vertical reach, 0 .. MAX_RADIUS */
  float f[CF_STENCIL_MAX_TAPS]; /* 2 ry + 1 rows of 2 rx + 1 taps */
} cf_stencil_taps;

/* 1 when the stencil serves a kw x kh kernel (both sides at most
 * CF_STENCIL_MAX_SIZE), else 0. */
int cf_cuda_convolve_stencil_supports (int kw, int kh);

/* 1 when the stencil can run on these planes: both 16-byte aligned and
 * both pitches a multiple of 4 floats (every row starts on a float4), as
 * cudaMallocPitch gives. The plan runs the direct method on others. */
int cf_cuda_convolve_stencil_aligned (const float *src, size_t src_pitch,
    const float *dst, size_t dst_pitch);

/**
 * \brief Pack F and its anchor into the stencil's centred form (host).
 *
 * \param[in]  f      F, kh rows of kw floats
 * \param[in]  kw     kernel width, 1 .. CF_STENCIL_MAX_SIZE
 * \param[in]  kh     kernel height, 1 .. CF_STENCIL_MAX_SIZE
 * \param[in]  ax     anchor column of F (0 <= ax < kw)
 * \param[in]  ay     anchor row of F (0 <= ay < kh)
 * \param[out] taps   the centred kernel
 * \return CF_OK, CF_ERROR_UNSUPPORTED for a kernel side above
 *   CF_STENCIL_MAX_SIZE, CF_ERROR_INVALID for bad arguments
 */
cf_status cf_cuda_convolve_stencil_prepare (const float *f, int kw, int kh,
    int ax, int ay, cf_stencil_taps * taps);

/**
 * \brief Direct 'same'-size correlation with a small kernel, in one pass
 * from registers.
 *
 * out(x, y) = sum_{j<kh} sum_{i<kw} F[j][i] in(fold(x+i-ax), fold(y+j-ay)),
 * every tap's coordinates folded by cf_border_fold () (zero rule: the tap
 * contributes 0); fp32 products and sums in the order j, then i, like the
 * direct method. The zero taps an even kernel gains (cf_stencil_taps)
 * multiply real samples: they add exactly 0 unless that sample is not
 * finite.
 *
 * \param[in]  src        input plane, width x height floats
 * \param[in]  src_pitch  elements between rows of src (>= width)
 * \param[out] dst        output plane (must not overlap src); only
 *                        in-image samples are written
 * \param[in]  dst_pitch  elements between rows of dst (>= width)
 * \param[in]  width      image width, 1 .. CF_MAX_DIMENSION
 * \param[in]  height     image height, 1 .. CF_MAX_DIMENSION
 * \param[in]  taps       the centred kernel (cf_cuda_convolve_stencil_prepare)
 * \param[in]  border     border rule for out-of-image taps
 * \param[in]  stream     stream the kernel is queued on
 * \return CF_OK; CF_ERROR_UNSUPPORTED for planes that are not aligned
 *   (cf_cuda_convolve_stencil_aligned ()); CF_ERROR_INVALID; or the mapped
 *   launch error (recorded by cf_cuda_check ())
 */
cf_status cf_cuda_convolve_stencil (const float *src, size_t src_pitch,
    float *dst, size_t dst_pitch, int width, int height,
    const cf_stencil_taps * taps, cf_border border, cudaStream_t stream);

/* The same with a given number of output rows per thread (4 or 8;
 * CF_ERROR_INVALID otherwise) instead of the launcher's choice: for the
 * tuning harness (tests/gpu/conv-stencil-tune.c), not for the plan. */
cf_status cf_cuda_convolve_stencil_rows (const float *src, size_t src_pitch,
    float *dst, size_t dst_pitch, int width, int height,
    const cf_stencil_taps * taps, cf_border border, int rows,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CONVOLVE_STENCIL_H */
