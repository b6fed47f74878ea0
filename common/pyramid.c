/* gst-cudaflow — image pyramids shared by every flow method
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/pyramid.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/border.h"
#include "common/gaussian.h"
#include "common/warp.h"

/* Longest Gaussian we blur with: radius 4 sigma (tails below 3.4e-4 of the
 * peak), capped so a huge sigma stays bounded. */
#define MAX_BLUR_RADIUS 255

/* What the flow elements let users choose; min_size and presmoothing are
 * the element's and the method's. */
static const cf_param pyramid_params[] = {
  {
    .name = "levels", .nick = "Levels", .type = CF_PARAM_INT,
    .min = 1, .max = CF_PYRAMID_MAX_LEVELS, .def = 5,
    .offset = offsetof (cf_pyramid_params, max_levels),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Pyramid levels, the full-resolution frame included (fewer are "
        "used when the coarsest level would be smaller than 16 pixels)",
  },
  {
    .name = "scale-factor", .nick = "Scale Factor", .type = CF_PARAM_FLOAT,
    .min = CF_PYRAMID_ETA_MIN, .max = CF_PYRAMID_ETA_MAX, .def = 0.5,
    .offset = offsetof (cf_pyramid_params, eta), .flags = CF_PARAM_TUNABLE,
    .blurb = "Size ratio between a pyramid level and the next finer one "
        "(eta; level size floor(n*eta + 0.5))",
  },
  {NULL}
};

const cf_param_table cf_pyramid_param_table = {
  .method = "pyramid",
  .params_size = sizeof (cf_pyramid_params),
  .params = pyramid_params,
  .default_levels = 5
};

void
cf_pyramid_params_init (cf_pyramid_params * params)
{
  cf_params_init (&cf_pyramid_param_table, params);
  params->min_size = 16;
}

/* floor(n * eta + 0.5), at least 1 (IPOL zoom_size). */
static int
zoom_size (int n, float eta)
{
  int m = (int) ((float) n * eta + 0.5f);
  return m < 1 ? 1 : m;
}

void
cf_pyramid_level_size (int width, int height, float eta, int level,
    int *level_width, int *level_height)
{
  int l;

  for (l = 0; l < level; l++) {
    width = zoom_size (width, eta);
    height = zoom_size (height, eta);
  }
  *level_width = width;
  *level_height = height;
}

int
cf_pyramid_level_count (int width, int height,
    const cf_pyramid_params * params)
{
  int n = 1, w = width, h = height;
  int wanted = params->max_levels;

  if (wanted > CF_PYRAMID_MAX_LEVELS)
    wanted = CF_PYRAMID_MAX_LEVELS;
  while (n < wanted) {
    int nw = zoom_size (w, params->eta), nh = zoom_size (h, params->eta);
    if (nw < params->min_size || nh < params->min_size)
      break;
    w = nw;
    h = nh;
    n++;
  }
  return n;
}

static int
params_valid (const cf_pyramid_params * params)
{
  return params != NULL && params->eta > 0.0f && params->eta < 1.0f &&
      params->max_levels >= 1 && params->min_size >= 1 &&
      params->presmooth_sigma >= 0.0f;
}

cf_pyramid *
cf_pyramid_new (int width, int height, const cf_pyramid_params * params)
{
  cf_pyramid *pyramid;
  int l;

  if (!params_valid (params) || width < 1 || height < 1)
    return NULL;
  pyramid = calloc (1, sizeof (*pyramid));
  if (pyramid == NULL)
    return NULL;
  pyramid->n_levels = cf_pyramid_level_count (width, height, params);
  for (l = 0; l < pyramid->n_levels; l++) {
    int lw, lh;
    cf_pyramid_level_size (width, height, params->eta, l, &lw, &lh);
    pyramid->level[l] = cf_image_new (lw, lh);
    if (pyramid->level[l] == NULL) {
      cf_pyramid_free (pyramid);
      return NULL;
    }
  }
  return pyramid;
}

void
cf_pyramid_free (cf_pyramid * pyramid)
{
  int l;

  if (pyramid == NULL)
    return;
  for (l = 0; l < CF_PYRAMID_MAX_LEVELS; l++)
    cf_image_free (pyramid->level[l]);
  free (pyramid);
}

/* One separable pass of @taps (2r+1) along x (horizontal) or y; reflecting
 * border (half-sample symmetric, common/border.h). */
static void
blur_pass (const cf_image * src, const float *taps, int radius,
    int horizontal, cf_image * dst)
{
  int x, y, k;

  for (y = 0; y < src->height; y++) {
    float *out = cf_image_row (dst, y);
    for (x = 0; x < src->width; x++) {
      float sum = 0.0f;
      for (k = -radius; k <= radius; k++) {
        int sx = horizontal ? cf_border_fold (x + k, src->width,
            CF_BORDER_REFLECT) : x;
        int sy = horizontal ? y : cf_border_fold (y + k, src->height,
            CF_BORDER_REFLECT);
        sum += taps[k + radius] * src->data[sx + (size_t) sy * src->pitch];
      }
      out[x] = sum;
    }
  }
}

cf_status
cf_gaussian_blur (const cf_image * src, float sigma, cf_image * tmp,
    cf_image * dst)
{
  float taps[2 * MAX_BLUR_RADIUS + 1];
  int radius;
  cf_status status;

  if (src == NULL || tmp == NULL || dst == NULL || tmp == src || tmp == dst
      || tmp->width != src->width || tmp->height != src->height ||
      dst->width != src->width || dst->height != src->height || !(sigma > 0))
    return CF_ERROR_INVALID;
  radius = (int) ceilf (4.0f * sigma);
  if (radius > MAX_BLUR_RADIUS)
    radius = MAX_BLUR_RADIUS;
  status = cf_gaussian_taps (sigma, radius, taps);
  if (status != CF_OK)
    return status;
  blur_pass (src, taps, radius, 1, tmp);
  blur_pass (tmp, taps, radius, 0, dst);
  return CF_OK;
}

/* sigma of the anti-alias filter for a step of eta (IPOL zoom.c). */
static float
downsample_sigma (float eta)
{
  return 0.6f * sqrtf (1.0f / (eta * eta) - 1.0f);
}

cf_status
cf_downsample (const cf_image * src, float eta, cf_image * tmp, cf_image * dst)
{
  cf_image *blurred;
  cf_status status;
  int x, y;

  if (src == NULL || dst == NULL || tmp == NULL || !(eta > 0 && eta < 1))
    return CF_ERROR_INVALID;
  blurred = cf_image_new (src->width, src->height);
  if (blurred == NULL)
    return CF_ERROR_NO_MEMORY;
  status = cf_gaussian_blur (src, downsample_sigma (eta), tmp, blurred);
  if (status == CF_OK) {
    for (y = 0; y < dst->height; y++) {
      float *out = cf_image_row (dst, y);
      for (x = 0; x < dst->width; x++)
        out[x] = cf_bicubic_at (blurred, (float) x / eta, (float) y / eta,
            CF_WARP_CLAMP);
    }
  }
  cf_image_free (blurred);
  return status;
}

cf_status
cf_pyramid_build (cf_pyramid * pyramid, const cf_image * frame,
    const cf_pyramid_params * params)
{
  cf_image *tmp;
  cf_status status = CF_OK;
  int l, y;

  if (pyramid == NULL || frame == NULL || !params_valid (params) ||
      pyramid->level[0] == NULL || frame->width != pyramid->level[0]->width
      || frame->height != pyramid->level[0]->height)
    return CF_ERROR_INVALID;
  tmp = cf_image_new (frame->width, frame->height);
  if (tmp == NULL)
    return CF_ERROR_NO_MEMORY;

  if (params->presmooth_sigma > 0.0f) {
    status = cf_gaussian_blur (frame, params->presmooth_sigma, tmp,
        pyramid->level[0]);
  } else if (frame->data != pyramid->level[0]->data) {
    for (y = 0; y < frame->height; y++)
      memcpy (cf_image_row (pyramid->level[0], y), cf_image_row (frame, y),
          (size_t) frame->width * sizeof (float));
  }
  for (l = 1; l < pyramid->n_levels && status == CF_OK; l++) {
    cf_image t = cf_image_view (tmp->data, pyramid->level[l - 1]->width,
        pyramid->level[l - 1]->height, tmp->pitch);
    status = cf_downsample (pyramid->level[l - 1], params->eta, &t,
        pyramid->level[l]);
  }
  cf_image_free (tmp);
  return status;
}
