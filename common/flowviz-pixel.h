/* gst-cudaflow — per-pixel flowviz arithmetic shared by the CPU reference
 * and the CUDA kernel (header-only, host and device)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_FLOWVIZ_PIXEL_H
#define CF_FLOWVIZ_PIXEL_H

#include <math.h>
#include <stdint.h>

#include "common/border.h"      /* CF_HOST_DEVICE */
#include "common/flowviz.h"

#define CF_FLOWVIZ_PI 3.14159265358979f

/* Entry k (0..54) of the Middlebury wheel; integer division as in
 * colorcode.cpp makecolorwheel (RY 15, YG 6, GC 4, CB 11, BM 13, MR 6). */
static inline CF_HOST_DEVICE void
cf_flowviz_wheel_entry (int k, int rgb[3])
{
  const int RY = 15, YG = 6, GC = 4, CB = 11, BM = 13, MR = 6;

  if (k < RY) {
    rgb[0] = 255; rgb[1] = 255 * k / RY; rgb[2] = 0;
    return;
  }
  k -= RY;
  if (k < YG) {
    rgb[0] = 255 - 255 * k / YG; rgb[1] = 255; rgb[2] = 0;
    return;
  }
  k -= YG;
  if (k < GC) {
    rgb[0] = 0; rgb[1] = 255; rgb[2] = 255 * k / GC;
    return;
  }
  k -= GC;
  if (k < CB) {
    rgb[0] = 0; rgb[1] = 255 - 255 * k / CB; rgb[2] = 255;
    return;
  }
  k -= CB;
  if (k < BM) {
    rgb[0] = 255 * k / BM; rgb[1] = 0; rgb[2] = 255;
    return;
  }
  k -= BM;
  rgb[0] = 255; rgb[1] = 0; rgb[2] = 255 - 255 * k / MR;
}

static inline CF_HOST_DEVICE int
cf_flowviz_known (float u, float v)
{
  return !isnan (u) && !isnan (v) && fabsf (u) <= 1e9f && fabsf (v) <= 1e9f;
}

/* Middlebury computeColor on a vector divided by max-flow. */
static inline CF_HOST_DEVICE void
cf_flowviz_middlebury_pixel (float fx, float fy, uint8_t rgb[3])
{
  const int ncols = 55;
  float rad = sqrtf (fx * fx + fy * fy);
  float a = atan2f (-fy, -fx) / CF_FLOWVIZ_PI;
  float fk = (a + 1.0f) / 2.0f * (float) (ncols - 1);
  int k0 = (int) fk;
  int k1 = (k0 + 1) % ncols;
  float f = fk - (float) k0;
  int c0[3], c1[3], i;

  cf_flowviz_wheel_entry (k0, c0);
  cf_flowviz_wheel_entry (k1, c1);
  /* float and double exactly where colorcode.cpp has them, so pictures
   * match the published ones to the last level */
  for (i = 0; i < 3; i++) {
    float col0 = (float) (c0[i] / 255.0);
    float col1 = (float) (c1[i] / 255.0);
    float col = (1.0f - f) * col0 + f * col1;
    if (rad <= 1.0f)
      col = 1.0f - rad * (1.0f - col);  /* towards white at the centre */
    else
      col *= 0.75f;             /* out of range */
    rgb[i] = (uint8_t) (int) (255.0 * col);
  }
}

/* HSV: hue = direction (0 deg = right, 90 deg = down), full saturation,
 * value = magnitude / max-flow clamped to 1 (zero flow is black). */
static inline CF_HOST_DEVICE void
cf_flowviz_hsv_pixel (float fx, float fy, uint8_t rgb[3])
{
  float val = fminf (sqrtf (fx * fx + fy * fy), 1.0f);
  float h = atan2f (fy, fx) * (180.0f / CF_FLOWVIZ_PI);
  float hp, x, r = 0, g = 0, b = 0;
  int sector;

  if (h < 0.0f)
    h += 360.0f;
  hp = h / 60.0f;
  sector = (int) hp;
  if (sector > 5)
    sector = 5;
  x = val * (1.0f - fabsf (fmodf (hp, 2.0f) - 1.0f));
  switch (sector) {
    case 0: r = val; g = x; break;
    case 1: r = x; g = val; break;
    case 2: g = val; b = x; break;
    case 3: g = x; b = val; break;
    case 4: r = x; b = val; break;
    default: r = val; b = x; break;
  }
  rgb[0] = (uint8_t) (int) (255.0f * r + 0.5f);
  rgb[1] = (uint8_t) (int) (255.0f * g + 0.5f);
  rgb[2] = (uint8_t) (int) (255.0f * b + 0.5f);
}

/* a * b + c * d, each product and the sum rounded on their own. nvcc
 * contracts a * b + c into one fused multiply-add by default (--fmad),
 * which moves the result by a last bit; on an arrow's edge that would
 * move whole pixels between host and device. The _rn intrinsics are never
 * fused, so the device rounds as the host does (host builds without FMA
 * contraction, as x86-64 without -mfma). */
static inline CF_HOST_DEVICE float
cf_flowviz_dot (float a, float b, float c, float d)
{
#ifdef __CUDA_ARCH__
  return __fadd_rn (__fmul_rn (a, b), __fmul_rn (c, d));
#else
  return a * b + c * d;
#endif
}

/* a * b + c, rounded twice (see cf_flowviz_dot). */
static inline CF_HOST_DEVICE float
cf_flowviz_mul_add (float a, float b, float c)
{
#ifdef __CUDA_ARCH__
  return __fadd_rn (__fmul_rn (a, b), c);
#else
  return a * b + c;
#endif
}

/* Squared distance from (px, py) to the segment (x0, y0)-(x1, y1). */
static inline CF_HOST_DEVICE float
cf_flowviz_segment_dist2 (float px, float py, float x0, float y0, float x1,
    float y1)
{
  float dx = x1 - x0, dy = y1 - y0;
  float len2 = cf_flowviz_dot (dx, dx, dy, dy);
  float t = len2 > 0.0f ?
      cf_flowviz_dot (px - x0, dx, py - y0, dy) / len2 : 0.0f;
  float ex, ey;

  t = fminf (fmaxf (t, 0.0f), 1.0f);
  ex = cf_flowviz_mul_add (t, dx, x0) - px;
  ey = cf_flowviz_mul_add (t, dy, y0) - py;
  return cf_flowviz_dot (ex, ex, ey, ey);
}

/* Arrow parameters as the per-pixel code reads them. */
typedef struct
{
  int step;                     /* pixels between anchors */
  float scale;                  /* pixels of arrow per pixel of motion;
                                 * 0: step / max-flow */
  float min2;                   /* squared arrow_min (pixels of motion) */
  float thickness;              /* stroke width, pixels */
  uint8_t rgb[3];               /* stroke colour */
} cf_flowviz_arrows;

/* Longest arrow, in steps: vectors beyond are shortened to it. */
#define CF_FLOWVIZ_ARROW_MAX_STEPS 1.5f
/* Shortest arrow drawn, in pixels: below it there is no direction to show. */
#define CF_FLOWVIZ_ARROW_MIN_LENGTH 1.0f

static inline CF_HOST_DEVICE void
cf_flowviz_arrows_from_params (const cf_flowviz_params * params,
    cf_flowviz_arrows * arrows)
{
  arrows->step = params->arrow_step;
  arrows->scale = params->arrow_scale;
  arrows->min2 = params->arrow_min * params->arrow_min;
  arrows->thickness = params->arrow_thickness;
  arrows->rgb[0] = (uint8_t) ((params->arrow_color >> 16) & 0xff);
  arrows->rgb[1] = (uint8_t) ((params->arrow_color >> 8) & 0xff);
  arrows->rgb[2] = (uint8_t) (params->arrow_color & 0xff);
}

/* 1 when pixel (px, py) lies on the arrow from (x0, y0) along (dx, dy),
 * of length @len (> 0): the shaft and two head strokes at +-30 degrees
 * from it, back from the tip, each within @half (half the thickness) of
 * the pixel's centre, with round ends. The head is a third of the arrow,
 * at least 2 thickness + 1 pixels so that it shows on short arrows, at
 * most half the arrow. The whole arrow lies within @len + @half of
 * (x0, y0). */
static inline CF_HOST_DEVICE int
cf_flowviz_on_arrow (float px, float py, float x0, float y0, float dx,
    float dy, float len, float half)
{
  const float c = 0.866025f, s = 0.5f;  /* cos, sin 30 degrees */
  float w2 = half * half;
  float x1 = x0 + dx, y1 = y0 + dy;
  float head = fminf (fmaxf (len / 3.0f, 4.0f * half + 1.0f), 0.5f * len);
  /* back from the tip, @head long */
  float hx = -dx * (head / len), hy = -dy * (head / len);

  if (cf_flowviz_segment_dist2 (px, py, x0, y0, x1, y1) <= w2)
    return 1;
  /* (hx, hy) rotated by +30 and -30 degrees */
  if (cf_flowviz_segment_dist2 (px, py, x1, y1,
          x1 + cf_flowviz_dot (c, hx, -s, hy),
          y1 + cf_flowviz_dot (s, hx, c, hy)) <= w2)
    return 1;
  return cf_flowviz_segment_dist2 (px, py, x1, y1,
      x1 + cf_flowviz_dot (c, hx, s, hy),
      y1 + cf_flowviz_dot (c, hy, -s, hx)) <= w2;
}

static inline CF_HOST_DEVICE void
cf_flowviz_read (const float *uv, size_t stride, int x, int y, float *u,
    float *v)
{
  const float *p = (const float *) ((const char *) uv + (size_t) y * stride)
      + 2 * x;
  *u = p[0];
  *v = p[1];
}

/* 1 when pixel (x, y) lies on one of the arrows. Anchors sit every step
 * pixels at step/2 + k step; the arrow of anchor a is its vector times
 * the scale (step / max-flow when @arrows->scale is 0), shortened to
 * CF_FLOWVIZ_ARROW_MAX_STEPS steps; anchors whose vector is shorter than
 * arrow_min, or unknown, or whose arrow is shorter than
 * CF_FLOWVIZ_ARROW_MIN_LENGTH, draw nothing (still areas stay clear).
 * An arrow covers pixels within 1.5 steps + thickness/2 of its anchor, so
 * the anchors within @reach cells of the pixel's cell are all that can
 * cover it (every other one is more than reach steps away). */
static inline CF_HOST_DEVICE int
cf_flowviz_on_any_arrow (const float *uv, size_t stride, int width,
    int height, int x, int y, const cf_flowviz_arrows * arrows,
    float max_flow)
{
  int step = arrows->step;
  int cx = (x - step / 2) / step, cy = (y - step / 2) / step;
  float half = 0.5f * arrows->thickness;
  float max_len = CF_FLOWVIZ_ARROW_MAX_STEPS * (float) step;
  float scale = arrows->scale > 0.0f ? arrows->scale :
      (float) step / max_flow;
  int reach = (int) ceilf ((max_len + half) / (float) step);
  int gx, gy;

  for (gy = cy - reach; gy <= cy + reach; gy++) {
    for (gx = cx - reach; gx <= cx + reach; gx++) {
      int ax = step / 2 + gx * step, ay = step / 2 + gy * step;
      float au, av, len, ox, oy, bound;
      if (gx < 0 || gy < 0 || ax >= width || ay >= height)
        continue;
      cf_flowviz_read (uv, stride, ax, ay, &au, &av);
      if (!cf_flowviz_known (au, av)
          || cf_flowviz_dot (au, au, av, av) < arrows->min2)
        continue;
      au *= scale;
      av *= scale;
      len = sqrtf (cf_flowviz_dot (au, au, av, av));
      if (!(len >= CF_FLOWVIZ_ARROW_MIN_LENGTH))
        continue;
      if (len > max_len) {
        au *= max_len / len;
        av *= max_len / len;
        len = max_len;
      }
      /* cheap rejection, a pixel clear of any rounding */
      ox = (float) (x - ax);
      oy = (float) (y - ay);
      bound = len + half + 1.0f;
      if (cf_flowviz_dot (ox, ox, oy, oy) > bound * bound)
        continue;
      if (cf_flowviz_on_arrow ((float) x, (float) y, (float) ax,
              (float) ay, au, av, len, half))
        return 1;
    }
  }
  return 0;
}

/* Colour of pixel (x, y) from the flow alone: Middlebury, HSV, or arrows
 * over the Middlebury colours dimmed to 40 %. */
static inline CF_HOST_DEVICE void
cf_flowviz_pixel (const float *uv, size_t stride, int width, int height,
    int x, int y, int mode, const cf_flowviz_arrows * arrows,
    float max_flow, uint8_t rgb[3])
{
  float u, v;
  int i;

  cf_flowviz_read (uv, stride, x, y, &u, &v);
  if (!cf_flowviz_known (u, v)) {
    rgb[0] = rgb[1] = rgb[2] = 0;
  } else if (mode == CF_FLOWVIZ_HSV) {
    cf_flowviz_hsv_pixel (u / max_flow, v / max_flow, rgb);
  } else {
    cf_flowviz_middlebury_pixel (u / max_flow, v / max_flow, rgb);
  }
  if (mode != CF_FLOWVIZ_ARROWS)
    return;

  if (cf_flowviz_on_any_arrow (uv, stride, width, height, x, y, arrows,
          max_flow)) {
    for (i = 0; i < 3; i++)
      rgb[i] = arrows->rgb[i];
  } else {
    for (i = 0; i < 3; i++)
      rgb[i] = (uint8_t) ((int) rgb[i] * 2 / 5);
  }
}

/* v / 256 (callers add 128 first, to round) clamped to 0..255; negative
 * sums are clamped before the shift, whose result on negative ints is
 * implementation-defined. */
static inline CF_HOST_DEVICE uint8_t
cf_flowviz_descale (int v)
{
  if (v < 0)
    return 0;
  v >>= 8;
  return (uint8_t) (v > 255 ? 255 : v);
}

/* Rec.601 limited range Y'CbCr -> full-range R'G'B' (ITU-R BT.601: Kr =
 * 0.299, Kb = 0.114; Y 16..235 and Cb/Cr 16..240 stretched to 0..255) with
 * the matrix scaled by 256 and rounded: 298 = 256 * 255/219, 409 = 256 *
 * 1.402 * 255/224, 100 and 208 for G (0.344136 and 0.714136), 516 for B
 * (1.772). Integer, so host and device agree to the bit; within one level
 * of the exact matrix. */
static inline CF_HOST_DEVICE void
cf_flowviz_yuv_rgb (int y, int cb, int cr, uint8_t rgb[3])
{
  int c = 298 * (y - 16) + 128, d = cb - 128, e = cr - 128;

  rgb[0] = cf_flowviz_descale (c + 409 * e);
  rgb[1] = cf_flowviz_descale (c - 100 * d - 208 * e);
  rgb[2] = cf_flowviz_descale (c + 516 * d);
}

/* Pixel (x, y) of the video as 8-bit RGB. Chroma is the nearest sample of
 * the half-size planes (x/2, y/2); 16-bit grey is rounded to 8 bits over
 * the whole range (65535 -> 255), not truncated to its high byte. */
static inline CF_HOST_DEVICE void
cf_flowviz_video_pixel (const cf_flowviz_video * video, int x, int y,
    uint8_t rgb[3])
{
  const uint8_t *row = video->data[0] + (size_t) y * video->stride[0];

  switch (video->format) {
    case CF_FLOWVIZ_VIDEO_GRAY8:
      rgb[0] = rgb[1] = rgb[2] = row[x];
      break;
    case CF_FLOWVIZ_VIDEO_GRAY16_LE:{
      unsigned int s = (unsigned int) row[2 * x] |
          ((unsigned int) row[2 * x + 1] << 8);
      rgb[0] = rgb[1] = rgb[2] = (uint8_t) ((s * 255u + 32767u) / 65535u);
      break;
    }
    case CF_FLOWVIZ_VIDEO_NV12:{
      const uint8_t *c = video->data[1] + (size_t) (y / 2) * video->stride[1]
          + 2 * (size_t) (x / 2);
      cf_flowviz_yuv_rgb (row[x], c[0], c[1], rgb);
      break;
    }
    case CF_FLOWVIZ_VIDEO_I420:{
      size_t cb = (size_t) (y / 2) * video->stride[1] + (size_t) (x / 2);
      size_t cr = (size_t) (y / 2) * video->stride[2] + (size_t) (x / 2);
      cf_flowviz_yuv_rgb (row[x], video->data[1][cb], video->data[2][cr],
          rgb);
      break;
    }
    default:{                  /* CF_FLOWVIZ_VIDEO_RGB32 */
      const uint8_t *p = row + 4 * (size_t) x;
      rgb[0] = p[video->r];
      rgb[1] = p[video->g];
      rgb[2] = p[video->b];
      break;
    }
  }
}

/* Opacity 0..1 as a weight 0..256 (round half up): 0 keeps the video and
 * 256 the drawing exactly. Computed once on the host. */
static inline CF_HOST_DEVICE int
cf_flowviz_alpha_weight (float alpha)
{
  if (!(alpha > 0.0f))
    return 0;
  if (alpha >= 1.0f)
    return 256;
  return (int) (alpha * 256.0f + 0.5f);
}

/* out = (w over + (256 - w) under + 128) / 256 per channel. */
static inline CF_HOST_DEVICE void
cf_flowviz_blend (const uint8_t over[3], const uint8_t under[3], int weight,
    uint8_t rgb[3])
{
  int i;

  for (i = 0; i < 3; i++)
    rgb[i] = (uint8_t) ((weight * (int) over[i] + (256 - weight) *
            (int) under[i] + 128) >> 8);
}

/* Overlay weight of a vector of length @r (in units of max-flow):
 * @weight x min (1, r), rounded half up. 0 at rest, so still areas show
 * the video exactly (Middlebury's white at zero motion would otherwise
 * wash them out); the full @weight at or beyond max-flow. @weight * 1 +
 * 0.5 and 0 + 0.5 are exact, so both ends are exact on host and device.
 *
 * In between the product is float: nvcc contracts by default (--fmad), so
 * the device may compute fx*fx + fy*fy (hence r) and weight*r + 0.5 with a
 * fused multiply-add, off by a last bit from the host. That flips the
 * rounding only when weight*r lies within a few float ulps (about 2^-15
 * at 256) of a half-integer, and a weight one off moves the blend by less
 * than one level (|over - under| <= 255 < 256): see
 * tests/check/cuda/flowviz.c for what the GPU comparison allows. */
static inline CF_HOST_DEVICE int
cf_flowviz_motion_weight (int weight, float r)
{
  return (int) ((float) weight * fminf (r, 1.0f) + 0.5f);
}

/* Colour of output pixel (x, y) in any mode. @video NULL: no video (flow
 * input; overlays blend over black). @uv NULL: no usable flow for this
 * frame, the neutral picture: CF_FLOWVIZ_NEUTRAL grey in the modes that
 * draw the flow alone, the video alone in the overlays. Overlays leave
 * the video as it is where the vector is unknown (colour coding) or off
 * every arrow. @weight is cf_flowviz_alpha_weight (alpha): the opacity of
 * every arrow pixel in overlay-arrows, and in overlay the opacity at
 * max-flow, scaled down with the vector's length
 * (cf_flowviz_motion_weight), so zero motion shows the plain video. */
static inline CF_HOST_DEVICE void
cf_flowviz_output_pixel (const cf_flowviz_video * video, const float *uv,
    size_t stride, int width, int height, int x, int y, int mode,
    const cf_flowviz_arrows * arrows, float max_flow, int weight,
    uint8_t rgb[3])
{
  uint8_t under[3] = { 0, 0, 0 }, over[3];
  int drawn;

  if (mode != CF_FLOWVIZ_OVERLAY && mode != CF_FLOWVIZ_OVERLAY_ARROWS) {
    if (uv != NULL)
      cf_flowviz_pixel (uv, stride, width, height, x, y, mode, arrows,
          max_flow, rgb);
    else
      rgb[0] = rgb[1] = rgb[2] = CF_FLOWVIZ_NEUTRAL;
    return;
  }
  if (video != NULL)
    cf_flowviz_video_pixel (video, x, y, under);

  if (uv == NULL) {
    drawn = 0;
  } else if (mode == CF_FLOWVIZ_OVERLAY) {
    float u, v;
    cf_flowviz_read (uv, stride, x, y, &u, &v);
    drawn = cf_flowviz_known (u, v);
    if (drawn) {
      float fx = u / max_flow, fy = v / max_flow;
      cf_flowviz_middlebury_pixel (fx, fy, over);
      weight = cf_flowviz_motion_weight (weight, sqrtf (fx * fx + fy * fy));
    }
  } else {
    drawn = cf_flowviz_on_any_arrow (uv, stride, width, height, x, y,
        arrows, max_flow);
    over[0] = arrows->rgb[0];
    over[1] = arrows->rgb[1];
    over[2] = arrows->rgb[2];
  }
  if (drawn) {
    cf_flowviz_blend (over, under, weight, rgb);
  } else {
    rgb[0] = under[0];
    rgb[1] = under[1];
    rgb[2] = under[2];
  }
}

#endif /* CF_FLOWVIZ_PIXEL_H */
