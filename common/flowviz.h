/* gst-cudaflow — flow fields as pictures (CPU reference of flowviz)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Middlebury colour coding (Baker et al., "A Database and Evaluation
 * Methodology for Optical Flow", IJCV 2011, and its flow-code
 * colorcode.cpp): a 55-entry colour wheel (segments RY 15, YG 6, GC 4,
 * CB 11, BM 13, MR 6), hue from the direction, saturation from the
 * magnitude over max-flow; zero flow is white, vectors beyond max-flow are
 * darkened to 75 %, unknown vectors (|u| or |v| > 1e9, NaN) are black.
 * Vectors are interleaved (u, v) floats as in UV_F32LE.
 *
 * Overlays draw the flow over the video frame it belongs to: the frame is
 * first converted to 8-bit RGB (Rec.601 limited range for YUV, grey
 * replicated, RGB reordered), then the colour coding or the arrows are
 * blended over it with an opacity quantised to 1/256. The arrows take the
 * opacity alpha; the colour coding alpha x min (1, |(u, v)| / max-flow),
 * so still areas keep the plain video (not Middlebury's white) and motion
 * at or beyond max-flow gets the full alpha. Conversion and blend are
 * integer arithmetic, so the CUDA twin gives the same bits; the colour
 * coding's per-pixel weight comes from a float length, which the device
 * may round differently in the last bit (see cf_flowviz_motion_weight).
 *
 * Arrows (modes arrows and overlay-arrows): one anchor every arrow_step
 * pixels, at step/2 + k step. The arrow from an anchor is its vector
 * times arrow_scale (pixels of arrow per pixel of motion; 0: a vector of
 * max-flow is one step long), at most 1.5 steps; anchors whose vector is
 * shorter than arrow_min pixels of motion, or whose arrow would be
 * shorter than one pixel, draw nothing, so still areas stay clear (no dot
 * grid). Strokes are arrow_thickness pixels wide, in arrow_color.
 *
 * A frame without a usable field (a GAP-flagged flow buffer, a frame whose
 * meta is missing or invalid) is drawn neutral: uniform mid-grey
 * (CF_FLOWVIZ_NEUTRAL) in the modes that draw the flow alone, which no
 * flow colour equals (the wheel and HSV always have a saturated or black
 * channel), and the plain video (black without video) in the overlays.
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
  CF_FLOWVIZ_ARROWS,            /* arrows over the dimmed wheel */
  CF_FLOWVIZ_OVERLAY,           /* Middlebury colours blended over the video */
  CF_FLOWVIZ_OVERLAY_ARROWS     /* arrows blended over the video */
} cf_flowviz_mode;

/* Grey level of a frame that has no usable field, in the modes that draw
 * the flow alone (middlebury, hsv, arrows). */
#define CF_FLOWVIZ_NEUTRAL 128

/* Limits of the arrow parameters (cf_flowviz_params_valid). */
#define CF_FLOWVIZ_ARROW_THICKNESS_MIN 0.5f
#define CF_FLOWVIZ_ARROW_THICKNESS_MAX 16.0f
#define CF_FLOWVIZ_ARROW_SCALE_MAX 1000.0f

typedef struct
{
  cf_flowviz_mode mode;
  int arrow_step;               /* arrows: one every arrow_step pixels */
  /* byte offsets of R, G, B and A (-1: none, as in RGBx) in 4-byte pixels */
  int r, g, b, a;
  /* overlay modes: opacity 0..1 of what is drawn over the video (0: the
   * video alone, 1: the colours or arrows alone). mode overlay scales it
   * by min (1, |(u, v)| / max-flow) per pixel: zero motion is the video. */
  float alpha;
  /* arrow modes only (others may leave them 0): pixels of arrow per pixel
   * of motion, 0..CF_FLOWVIZ_ARROW_SCALE_MAX (0: relative to max-flow, a
   * vector of max-flow one arrow_step long) */
  float arrow_scale;
  /* vectors shorter than this many pixels of motion draw no arrow (>= 0) */
  float arrow_min;
  /* stroke width in pixels, CF_FLOWVIZ_ARROW_THICKNESS_MIN..MAX */
  float arrow_thickness;
  /* 0xRRGGBB */
  uint32_t arrow_color;
} cf_flowviz_params;

/* Video layouts an overlay draws over. */
typedef enum
{
  CF_FLOWVIZ_VIDEO_GRAY8 = 0,
  CF_FLOWVIZ_VIDEO_GRAY16_LE,   /* scaled to 8 bits, rounded */
  CF_FLOWVIZ_VIDEO_NV12,        /* Y plane, interleaved Cb Cr at half size */
  CF_FLOWVIZ_VIDEO_I420,        /* Y, Cb, Cr planes, chroma at half size */
  CF_FLOWVIZ_VIDEO_RGB32        /* 4-byte pixels, r, g, b give the order */
} cf_flowviz_video_format;

#define CF_FLOWVIZ_VIDEO_FORMAT_COUNT 5

/* One video frame as planes (host pointers for the CPU functions, device
 * pointers for cuda/flowviz.h). YUV is Rec.601 limited range (Y 16..235,
 * Cb/Cr 16..240); chroma of pixel (x, y) is the sample at (x/2, y/2). */
typedef struct
{
  cf_flowviz_video_format format;
  const uint8_t *data[3];       /* Y or the only plane; Cb (NV12: CbCr); Cr */
  size_t stride[3];             /* bytes between rows of each plane */
  int r, g, b;                  /* RGB32: byte offsets of R, G, B */
} cf_flowviz_video;

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
 * frame's largest known magnitude (and by 1 when that is 0). The overlay
 * modes blend over black here (there is no video). @uv must not be NULL:
 * a frame without a field is cf_flowviz_render_video (NULL, NULL, ...). */
cf_status cf_flowviz_render (const float *uv, size_t uv_stride, int width,
    int height, const cf_flowviz_params * params, float max_flow,
    uint8_t * out, size_t out_stride);

/* The same with the video frame the flow belongs to (same size): the
 * overlay modes blend over @video, the other modes ignore it. @uv NULL
 * (no usable flow for this frame) is the neutral picture: CF_FLOWVIZ_NEUTRAL
 * grey in the modes that draw the flow alone, the video alone (black when
 * @video is NULL) in the overlays. */
cf_status cf_flowviz_render_video (const cf_flowviz_video * video,
    const float *uv, size_t uv_stride, int width, int height,
    const cf_flowviz_params * params, float max_flow, uint8_t * out,
    size_t out_stride);

/* Validity checks both backends apply before rendering. */
int cf_flowviz_params_valid (const cf_flowviz_params * params);
int cf_flowviz_video_valid (const cf_flowviz_video * video);

#ifdef __cplusplus
}
#endif
#endif /* CF_FLOWVIZ_H */
