/* gst-cudaflow — flow fields as pictures (CPU reference of flowviz)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/flowviz.h"

#include <math.h>

#include "common/flowviz-pixel.h"

void
cf_flowviz_wheel (uint8_t wheel[CF_FLOWVIZ_NCOLS][3])
{
  int k, c, rgb[3];

  for (k = 0; k < CF_FLOWVIZ_NCOLS; k++) {
    cf_flowviz_wheel_entry (k, rgb);
    for (c = 0; c < 3; c++)
      wheel[k][c] = (uint8_t) rgb[c];
  }
}

float
cf_flowviz_max_magnitude (const float *uv, size_t stride, int width,
    int height)
{
  float best = 0.0f;
  int x, y;

  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      float u, v;
      cf_flowviz_read (uv, stride, x, y, &u, &v);
      if (cf_flowviz_known (u, v))
        best = fmaxf (best, sqrtf (cf_flowviz_dot (u, u, v, v)));
    }
  }
  return best;
}

void
cf_flowviz_middlebury_rgb (float fx, float fy, uint8_t rgb[3])
{
  cf_flowviz_middlebury_pixel (fx, fy, rgb);
}

void
cf_flowviz_hsv_rgb (float fx, float fy, uint8_t rgb[3])
{
  cf_flowviz_hsv_pixel (fx, fy, rgb);
}

int
cf_flowviz_params_valid (const cf_flowviz_params * params)
{
  if (params == NULL || (int) params->mode < (int) CF_FLOWVIZ_MIDDLEBURY
      || (int) params->mode > (int) CF_FLOWVIZ_OVERLAY_ARROWS
      || params->arrow_step < 2
      || params->r < 0 || params->g < 0 || params->b < 0 || params->r > 3
      || params->g > 3 || params->b > 3 || params->a > 3)
    return 0;
  /* only the overlays read alpha, only the arrow modes the arrow fields:
   * other callers may leave them unset */
  if ((params->mode == CF_FLOWVIZ_OVERLAY
          || params->mode == CF_FLOWVIZ_OVERLAY_ARROWS)
      && !(params->alpha >= 0.0f && params->alpha <= 1.0f))
    return 0;
  if ((params->mode == CF_FLOWVIZ_ARROWS
          || params->mode == CF_FLOWVIZ_OVERLAY_ARROWS)
      && (!(params->arrow_scale >= 0.0f
              && params->arrow_scale <= CF_FLOWVIZ_ARROW_SCALE_MAX)
          || !(params->arrow_min >= 0.0f && params->arrow_min <= 1e6f)
          || !(params->arrow_thickness >= CF_FLOWVIZ_ARROW_THICKNESS_MIN
              && params->arrow_thickness <= CF_FLOWVIZ_ARROW_THICKNESS_MAX)
          || params->arrow_color > 0xffffffu))
    return 0;
  return 1;
}

int
cf_flowviz_video_valid (const cf_flowviz_video * video)
{
  if (video == NULL || video->data[0] == NULL)
    return 0;
  switch ((int) video->format) {
    case CF_FLOWVIZ_VIDEO_GRAY8:
    case CF_FLOWVIZ_VIDEO_GRAY16_LE:
      return 1;
    case CF_FLOWVIZ_VIDEO_NV12:
      return video->data[1] != NULL;
    case CF_FLOWVIZ_VIDEO_I420:
      return video->data[1] != NULL && video->data[2] != NULL;
    case CF_FLOWVIZ_VIDEO_RGB32:
      return video->r >= 0 && video->r < 4 && video->g >= 0 && video->g < 4
          && video->b >= 0 && video->b < 4;
    default:
      return 0;
  }
}

cf_status
cf_flowviz_render_video (const cf_flowviz_video * video, const float *uv,
    size_t uv_stride, int width, int height,
    const cf_flowviz_params * params, float max_flow, uint8_t * out,
    size_t out_stride)
{
  cf_flowviz_arrows arrows;
  int x, y, weight;

  if (out == NULL || width < 1 || height < 1
      || !cf_flowviz_params_valid (params)
      || (video != NULL && !cf_flowviz_video_valid (video)))
    return CF_ERROR_INVALID;
  if (uv != NULL && !(max_flow > 0.0f))
    max_flow = cf_flowviz_max_magnitude (uv, uv_stride, width, height);
  if (!(max_flow > 0.0f))
    max_flow = 1.0f;
  weight = cf_flowviz_alpha_weight (params->alpha);
  cf_flowviz_arrows_from_params (params, &arrows);

  for (y = 0; y < height; y++) {
    uint8_t *row = out + (size_t) y * out_stride;
    for (x = 0; x < width; x++) {
      uint8_t rgb[3];
      cf_flowviz_output_pixel (video, uv, uv_stride, width, height, x, y,
          (int) params->mode, &arrows, max_flow, weight, rgb);
      row[4 * x + params->r] = rgb[0];
      row[4 * x + params->g] = rgb[1];
      row[4 * x + params->b] = rgb[2];
      if (params->a >= 0)
        row[4 * x + params->a] = 255;
    }
  }
  return CF_OK;
}

cf_status
cf_flowviz_render (const float *uv, size_t uv_stride, int width, int height,
    const cf_flowviz_params * params, float max_flow, uint8_t * out,
    size_t out_stride)
{
  if (uv == NULL)
    return CF_ERROR_INVALID;
  return cf_flowviz_render_video (NULL, uv, uv_stride, width, height, params,
      max_flow, out, out_stride);
}
