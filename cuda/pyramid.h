/* gst-cudaflow — GPU twins of common/pyramid.h
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Same sizes, grid and filters as the CPU reference (results within fp32
 * rounding: sums in another order).
 */
#ifndef CF_CUDA_PYRAMID_H
#define CF_CUDA_PYRAMID_H

#include "common/pyramid.h"
#include "cuda/cuda-util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  int n_levels;
  cf_cuda_image level[CF_PYRAMID_MAX_LEVELS];
  cf_cuda_image scratch[2];     /* level-0 sized work planes */
  float *taps;                  /* device Gaussian taps */
  int max_taps;
  /* Added: the taps live in two sets of max_taps floats, set 0 (taps)
   * for presmooth_sigma, set 1 (taps + max_taps) for the downsampling
   * sigma of eta; cf_cuda_pyramid_build uploads a set on its stream the
   * first time and whenever its sigma changed. radius < 0: not loaded. */
  float taps_sigma[2];
  int taps_radius[2];
} cf_cuda_pyramid;

/* Allocate every level (sizes from cf_pyramid_level_size) and scratch. */
cf_status cf_cuda_pyramid_alloc (cf_cuda_pyramid * pyramid, int width,
    int height, const cf_pyramid_params * params);
void cf_cuda_pyramid_release (cf_cuda_pyramid * pyramid);

/* level[0] holds the frame on entry (written by the caller, e.g. luma
 * extraction): presmooth it when params->presmooth_sigma > 0, then fill
 * the coarser levels. Presmoothing blurs into scratch[0] and exchanges
 * the two buffers, so level[0].data changes: read it from the struct after
 * each build, never keep the pointer. */
cf_status cf_cuda_pyramid_build (cf_cuda_pyramid * pyramid,
    const cf_pyramid_params * params, cudaStream_t stream);

/* Separable Gaussian blur, reflecting border (twin of cf_gaussian_blur);
 * src == dst allowed; @tmp same size (not used when radius <= 8 and
 * src != dst: one launch does both passes, with the same bits).
 * @device_taps is device scratch of @max_taps floats: the taps of @sigma
 * (radius ceil(4 sigma), at most 255, as common/pyramid.c) are copied into
 * it from the host on @stream, so 2 * radius + 1 <= max_taps is required
 * (CF_ERROR_INVALID otherwise). */
cf_status cf_cuda_gaussian_blur (const cf_cuda_image * src, float sigma,
    cf_cuda_image * tmp, cf_cuda_image * dst, float *device_taps,
    int max_taps, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_PYRAMID_H */
