/* gst-cudaflow — flow fields as pictures (CPU reference of flowviz)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Middlebury colour coding (Baker et al., IJCV 2011; flow-code
 * colorcode.cpp; research/perf-anchors.md §6.1): a 55-entry colour wheel
 * (segments RY 15, YG 6, GC 4, CB 11, BM 13, MR 6), hue from the direction,
 * saturation from the magnitude over max-flow; zero flow is white, vectors
 * beyond max-flow are darkened to 75 %, unknown vectors (|u| or |v| > 1e9,
 * NaN) are black. Vectors are interleaved (u, v) floats as in UV_F32LE.
 */
#ifndef CF_FLOWVIZ_H
#define CF_FLOWVIZ_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_FLOWVIZ_MIDDLEBURY = 0,
  CF_FLOWVIZ_HSV,               /* hue = direction, value = magnitude */
  CF_FLOWVIZ_ARROWS             /* white arrows over the dimmed wheel */
} cf_flowviz_mode;

typedef struct
{
  cf_flowviz_mode mode;
  int arrow_step;               /* arrows: one every arrow_step pixels */
  /* byte offsets of R, G, B and A (-1: none, as in RGBx) in 4-byte pixels */
  int r, g, b, a;
} cf_flowviz_params;

#define CF_FLOWVIZ_NCOLS 55

/* The colour wheel, RGB rows (integer arithmetic as colorcode.cpp). */
void cf_flowviz_wheel (uint8_t wheel[CF_FLOWVIZ_NCOLS][3]);

/* Largest |(u, v)| over known vectors; 0 when there is none. */
float cf_flowviz_max_magnitude (const float *uv, size_t stride, int width,
    int height);

/* RGB of one vector already divided by max-flow (fx, fy), Middlebury or
 * HSV; unknown vectors must be tested by the caller. */
void cf_flowviz_middlebury_rgb (float fx, float fy, uint8_t rgb[3]);
void cf_flowviz_hsv_rgb (float fx, float fy, uint8_t rgb[3]);

/* Render width x height vectors (rows of uv_stride bytes) into 4-byte
 * pixels (rows of out_stride bytes). @max_flow <= 0 is replaced by the
 * frame's largest known magnitude (and by 1 when that is 0). */
cf_status cf_flowviz_render (const float *uv, size_t uv_stride, int width,
    int height, const cf_flowviz_params * params, float max_flow,
    uint8_t * out, size_t out_stride);

#ifdef __cplusplus
}
#endif
#endif /* CF_FLOWVIZ_H */
