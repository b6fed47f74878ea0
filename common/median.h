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

#ifdef __cplusplus
}
#endif
#endif /* CF_MEDIAN_H */
