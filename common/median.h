/* gst-cudaflow — median filter of a flow field, CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The outlier filter that Wedel, Pock, Zach, Bischof and Cremers apply to
 * the flow between the warps of TV-L1 ("An improved algorithm for TV-L1
 * optical flow", 2009), which Sun, Roth and Black found the most effective
 * of the classic heuristics ("Secrets of optical flow estimation and their
 * principles", CVPR 2010; 5 x 5). docs/references.md has both.
 *
 * Definition, the same for the GPU twin cf_cuda_flow_median (cuda/median.h),
 * which gives the same bits:
 *  - each component (u, then v) is filtered on its own;
 *  - the window is size x size pixels centred on the pixel, clipped to the
 *    image: a border pixel takes the median of the n pixels inside (n = 4
 *    at a corner of a 3 x 3 filter, 15 at one of a 5 x 5 filter); nothing
 *    is mirrored, replicated or padded;
 *  - values are ordered as IEEE 754 totalOrder, so −0 comes before +0 and
 *    which of two equal-comparing zeros is chosen does not depend on the
 *    order of the work (NaN is not expected in a flow; it would sort by
 *    its bits);
 *  - n odd: the middle value (no arithmetic, so the result is one of the
 *    inputs); n even: the mean of the two middle values, (a + b) · 0.5 in
 *    fp32, a and b in total order (the usual definition, which keeps
 *    median(−u) = −median(u) at the borders; the lower middle alone would
 *    bias border vectors towards negative components).
 *
 * The weighted median, cf_flow_weighted_median:
 *
 * The non-local term of Sun, Roth and Black ("Secrets of optical flow
 * estimation and their principles", CVPR 2010) reduces, as they show, to
 * a weighted median of the flow around each pixel whose weights follow
 * the image: neighbours that look like the pixel count, the others hardly.
 * Between the warps of TV-L1 it removes outliers as the plain median does
 * but keeps motion edges where the image has edges.
 *
 * Definition, the same for the GPU twin cf_cuda_flow_weighted_median
 * (cuda/median.h), which gives the same bits:
 *  - each component (u, then v) is filtered on its own, over the cells of
 *    the size x size window centred on the pixel whose offsets (dx, dy)
 *    from it have an even sum (a checkerboard: 5, 13, 25, 41 cells at
 *    sizes 3, 5, 7, 9), clipped to the image; the checkerboard gives
 *    TV-L1 the full window's accuracy for half the work
 *    (docs/flow-frontier.md);
 *  - the weight of a neighbour q of pixel p is the integer range[k], k =
 *    min(⌊|g(q) − g(p)| · s + 0.5⌋, CF_WMEDIAN_RANGE_STEPS − 1) in fp32,
 *    with g the guide image and s = CF_WMEDIAN_STEPS_PER_SIGMA / σ:
 *    the Gaussian 2^16 · exp(−d² / 2σ²) rounded, sampled every σ /
 *    CF_WMEDIAN_STEPS_PER_SIGMA, and 0 from 4σ on (cf_wmedian_tables_init);
 *    the pixel itself weighs 2^16. Integer sums (at most 41 · 2^16) are
 *    exact in any order;
 *  - W is the sum of the window's weights and S(t) that of the values
 *    <= t; the weighted median is the smallest value m with 2 S(m) >= W;
 *  - it is found by bisection on the value, not by sorting: a = min, b =
 *    max of the window (each starts at the pixel's own value, and a
 *    value replaces it only when strictly below or above, in raster
 *    order); CF_WMEDIAN_BISECTIONS times t = (a + b) · 0.5 (fp32;
 *    stop when t is not strictly between them), b = t when 2 S(t) >= W,
 *    else a = t; the result is a when 2 S(a) >= W (then a is the window's
 *    minimum), else the smallest value above a. So it is always one of
 *    the window's values, and the weighted median itself or below it by
 *    less than (max − min) / 2^CF_WMEDIAN_BISECTIONS.
 */
#ifndef CF_MEDIAN_H
#define CF_MEDIAN_H

#include "common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Window sizes the filter (and its GPU twin) accept. */
#define CF_MEDIAN_SIZE_MIN 3
#define CF_MEDIAN_SIZE_MAX 5

/* 1 when @size is a window size of cf_flow_median: 3 or 5. */
int cf_median_size_valid (int size);

/* @dst = the size x size median of @src, each component on its own, with
 * the clipped window and the rules above. @src and @dst have the same
 * size, and no plane of @dst may overlap a plane of @src (the filter
 * reads the neighbours of what it writes). CF_ERROR_INVALID for another
 * size, a size mismatch or overlapping planes. */
cf_status cf_flow_median (const cf_flow * src, int size, cf_flow * dst);

/* Window sizes (odd) of the weighted median, and the most cells one takes
 * (the checkerboard of the largest). */
#define CF_WMEDIAN_SIZE_MIN 3
#define CF_WMEDIAN_SIZE_MAX 9
#define CF_WMEDIAN_CELLS(size) (((size) * (size) + 1) / 2)

/* The range weight's table: steps per σ, entries (the last is 0: 4σ and
 * beyond). */
#define CF_WMEDIAN_STEPS_PER_SIGMA 16
#define CF_WMEDIAN_RANGE_STEPS (4 * CF_WMEDIAN_STEPS_PER_SIGMA + 1)

/* Halvings of the window's value range before the last pass: with 6,
 * TV-L1's EPE is within 0.001 of 10's on every set of
 * docs/flow-frontier.md; 4 lose large motions. */
#define CF_WMEDIAN_BISECTIONS 6

/* σ of the range weight, in the guide's units (TV-L1: intensities
 * 0..255). */
#define CF_WMEDIAN_SIGMA_MIN 0.5
#define CF_WMEDIAN_SIGMA_MAX 255.0

/* The weights of one σ: both twins index the same table. */
typedef struct
{
  unsigned int range[CF_WMEDIAN_RANGE_STEPS];   /* 2^16 at d = 0 */
  float scale;                  /* s: table steps per guide unit */
} cf_wmedian_tables;

/* 1 when @size is a window size of the weighted median: 3, 5, 7 or 9. */
int cf_wmedian_size_valid (int size);

/* Fill @tables for @sigma (CF_WMEDIAN_SIGMA_MIN .. _MAX). */
void cf_wmedian_tables_init (cf_wmedian_tables * tables, float sigma);

/* @dst = the size x size weighted median of @src guided by @guide (same
 * size as @src), with the rules above. No plane of @dst may overlap a
 * plane of @src. CF_ERROR_INVALID for another size, a size mismatch or
 * overlapping planes. */
cf_status cf_flow_weighted_median (const cf_flow * src, const cf_image * guide,
    int size, const cf_wmedian_tables * tables, cf_flow * dst);

#ifdef __cplusplus
}
#endif
#endif /* CF_MEDIAN_H */
