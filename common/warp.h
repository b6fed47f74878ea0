/* gst-cudaflow — bicubic sampling, warping and flow upsampling
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Bicubic = Keys' cubic convolution with a = -0.5 (Catmull-Rom), 4x4 taps,
 * separable: for samples v0..v3 at -1, 0, 1, 2 and fraction t in [0, 1)
 *   c(t) = v1 + 0.5 t (v2 - v0 + t (2 v0 - 5 v1 + 4 v2 - v3
 *          + t (3 (v1 - v2) + v3 - v0)))
 * (IPOL bicubic_interpolation.c), along y for 4 columns, then along x.
 * Taps outside the image are clamped to the edge (Neumann). Pixel centres
 * are at integer coordinates. Arithmetic in fp32, like the GPU twins.
 */
#ifndef CF_WARP_H
#define CF_WARP_H

#include "common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a sample whose 4x4 neighbourhood leaves the image is treated. */
typedef enum
{
  CF_WARP_CLAMP = 0,            /* clamp the taps (OpenCV, cuda-samples) */
  CF_WARP_ZERO_OUTSIDE          /* 0 when any tap is outside (IPOL TV-L1
                                 * border_out: switches the data term off) */
} cf_warp_border;

/* 0 where a bicubic sample at (x, y) of a @width x @height plane is 0
 * whatever the plane holds: a non-finite position, or with
 * CF_WARP_ZERO_OUTSIDE a 4x4 neighbourhood that leaves the plane; else 1. */
int cf_bicubic_inside (float x, float y, int width, int height,
    cf_warp_border border);

/* Bicubic value of @image at (x, y). */
float cf_bicubic_at (const cf_image * image, float x, float y,
    cf_warp_border border);

/* dst(x) = src(x + flow(x)); all three the same size. */
cf_status cf_warp_bicubic (const cf_image * src, const cf_flow * flow,
    cf_warp_border border, cf_image * dst);

/* Resample a flow onto another grid of the same extent (corner-aligned:
 * dst pixel x samples src position x * src_w / dst_w, likewise in y) with
 * clamped bicubic interpolation, and scale the vectors by dst_w / src_w and
 * dst_h / src_h (1/eta for one pyramid step up, eta for one down). Used to
 * carry the flow to the next finer level and a warm start to the coarsest. */
cf_status cf_flow_resample (const cf_flow * src, cf_flow * dst);

#ifdef __cplusplus
}
#endif
#endif /* CF_WARP_H */
