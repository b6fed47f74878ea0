/* gst-cudaflow — bicubic sampling, warping and flow upsampling
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/warp.h"

#include <math.h>

/* Keys' cubic (a = -0.5) through v0..v3 at -1, 0, 1, 2, evaluated at t;
 * IPOL bicubic_interpolation.c cubic_interpolation_cell. */
static inline float
cubic_cell (float v0, float v1, float v2, float v3, float t)
{
  return v1 + 0.5f * t * (v2 - v0 + t * (2.0f * v0 - 5.0f * v1 + 4.0f * v2
          - v3 + t * (3.0f * (v1 - v2) + v3 - v0)));
}

static inline int
clamp_index (int i, int n)
{
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/* Bicubic sample of a plane given by pointer, size and pitch. */
static float
bicubic_plane (const float *data, int width, int height, size_t pitch,
    float x, float y, cf_warp_border border)
{
  float col[4], tx, ty;
  int i, j, ix, iy;

  if (!cf_bicubic_inside (x, y, width, height, border))
    return 0.0f;
  /* keep the integer conversion defined: beyond 3 pixels outside, every
   * tap is clamped to the edge anyway */
  x = fminf (fmaxf (x, -3.0f), (float) width + 2.0f);
  y = fminf (fmaxf (y, -3.0f), (float) height + 2.0f);
  ix = (int) floorf (x);
  iy = (int) floorf (y);
  tx = x - (float) ix;
  ty = y - (float) iy;

  for (i = 0; i < 4; i++) {
    int sx = clamp_index (ix - 1 + i, width);
    float v[4];
    for (j = 0; j < 4; j++) {
      int sy = clamp_index (iy - 1 + j, height);
      v[j] = data[sx + (size_t) sy * pitch];
    }
    col[i] = cubic_cell (v[0], v[1], v[2], v[3], ty);
  }
  return cubic_cell (col[0], col[1], col[2], col[3], tx);
}

int
cf_bicubic_inside (float x, float y, int width, int height,
    cf_warp_border border)
{
  int ix, iy;

  /* a non-finite position has no neighbourhood */
  if (!isfinite (x) || !isfinite (y))
    return 0;
  if (border != CF_WARP_ZERO_OUTSIDE)
    return 1;
  ix = (int) floorf (fminf (fmaxf (x, -3.0f), (float) width + 2.0f));
  iy = (int) floorf (fminf (fmaxf (y, -3.0f), (float) height + 2.0f));
  return !(ix - 1 < 0 || iy - 1 < 0 || ix + 2 >= width || iy + 2 >= height);
}

float
cf_bicubic_at (const cf_image * image, float x, float y,
    cf_warp_border border)
{
  return bicubic_plane (image->data, image->width, image->height,
      image->pitch, x, y, border);
}

cf_status
cf_warp_bicubic (const cf_image * src, const cf_flow * flow,
    cf_warp_border border, cf_image * dst)
{
  int x, y;

  if (src == NULL || flow == NULL || dst == NULL || src == dst ||
      src->width != flow->width || src->height != flow->height ||
      dst->width != src->width || dst->height != src->height)
    return CF_ERROR_INVALID;

  for (y = 0; y < dst->height; y++) {
    float *out = cf_image_row (dst, y);
    const float *u = flow->u + (size_t) y * flow->pitch;
    const float *v = flow->v + (size_t) y * flow->pitch;
    for (x = 0; x < dst->width; x++)
      out[x] = cf_bicubic_at (src, (float) x + u[x], (float) y + v[x], border);
  }
  return CF_OK;
}

cf_status
cf_flow_resample (const cf_flow * src, cf_flow * dst)
{
  float fx, fy, sx, sy;
  int x, y;

  if (src == NULL || dst == NULL || src == dst)
    return CF_ERROR_INVALID;

  /* position scale (src / dst) and vector scale (dst / src) */
  fx = (float) src->width / (float) dst->width;
  fy = (float) src->height / (float) dst->height;
  sx = (float) dst->width / (float) src->width;
  sy = (float) dst->height / (float) src->height;

  for (y = 0; y < dst->height; y++) {
    float *u = dst->u + (size_t) y * dst->pitch;
    float *v = dst->v + (size_t) y * dst->pitch;
    for (x = 0; x < dst->width; x++) {
      float px = (float) x * fx, py = (float) y * fy;
      u[x] = sx * bicubic_plane (src->u, src->width, src->height,
          src->pitch, px, py, CF_WARP_CLAMP);
      v[x] = sy * bicubic_plane (src->v, src->width, src->height,
          src->pitch, px, py, CF_WARP_CLAMP);
    }
  }
  return CF_OK;
}
