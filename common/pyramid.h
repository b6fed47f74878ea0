/* gst-cudaflow — image pyramids shared by every flow method
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Level 0 is the input at full resolution; level l+1 has size
 * floor(n * eta + 0.5) of level l in each direction (IPOL zoom_size), on a
 * corner-aligned grid: coarse pixel (i, j) sits at fine position
 * (i / eta, j / eta). Downsampling = Gaussian anti-alias of
 * sigma = 0.6 * sqrt(1/eta^2 - 1) (IPOL ZOOM_SIGMA_ZERO; 1.039 for eta 0.5),
 * reflecting border, then bicubic sampling at the coarse grid positions
 * (exactly every second pixel for eta = 0.5).
 */
#ifndef CF_PYRAMID_H
#define CF_PYRAMID_H

#include "common/image.h"
#include "common/params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CF_PYRAMID_MAX_LEVELS 16

/* The range of the scale factor η the flow elements offer (`scale-factor`);
 * the pyramid itself takes any η in (0, 1). */
#define CF_PYRAMID_ETA_MIN 0.1
#define CF_PYRAMID_ETA_MAX 0.95

typedef struct
{
  float eta;                    /* scale factor between levels, (0, 1) */
  int max_levels;               /* wanted levels (>= 1), capped by min_size */
  int min_size;                 /* coarsest level keeps both sides >= this */
  float presmooth_sigma;        /* Gaussian on level 0 first; 0 = none */
} cf_pyramid_params;

typedef struct
{
  int n_levels;
  cf_image *level[CF_PYRAMID_MAX_LEVELS];
} cf_pyramid;

/* "levels" (max_levels, 1 .. CF_PYRAMID_MAX_LEVELS) and "scale-factor"
 * (eta): the pyramid's parameters the flow elements share, which presets
 * may set too. */
extern const cf_param_table cf_pyramid_param_table;

/* The table's defaults (eta 0.5, 5 levels), min size 16, no presmoothing. */
void cf_pyramid_params_init (cf_pyramid_params * params);

/* Size of @level (0 = full) for a width x height input. */
void cf_pyramid_level_size (int width, int height, float eta, int level,
    int *level_width, int *level_height);

/* Levels actually used: max_levels, reduced while the coarsest side would
 * drop below min_size (always >= 1). */
int cf_pyramid_level_count (int width, int height,
    const cf_pyramid_params * params);

/* Allocate the levels for an input size; NULL on bad parameters. */
cf_pyramid *cf_pyramid_new (int width, int height,
    const cf_pyramid_params * params);
void cf_pyramid_free (cf_pyramid * pyramid);

/* Fill every level from @frame (same size as level 0). */
cf_status cf_pyramid_build (cf_pyramid * pyramid, const cf_image * frame,
    const cf_pyramid_params * params);

/* One level down: anti-alias @src with sigma(eta), then sample it at
 * (x / eta, y / eta) into @dst (whose size fixes the grid). @tmp: scratch
 * of @src's size. */
cf_status cf_downsample (const cf_image * src, float eta, cf_image * tmp,
    cf_image * dst);

/* Separable Gaussian blur, reflecting border (common/border.h); @tmp is a
 * scratch image of the same size; src and dst may be the same image. */
cf_status cf_gaussian_blur (const cf_image * src, float sigma, cf_image * tmp,
    cf_image * dst);

#ifdef __cplusplus
}
#endif
#endif /* CF_PYRAMID_H */
