/* gst-cudaflow — planar float images and flow fields
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
size_is_valid (int width, int height)
{
  return width > 0 && height > 0 && width <= CF_MAX_DIMENSION
      && height <= CF_MAX_DIMENSION;
}

cf_image *
cf_image_new (int width, int height)
{
  cf_image *image;

  if (!size_is_valid (width, height))
    return NULL;
  image = calloc (1, sizeof (*image));
  if (image == NULL)
    return NULL;
  image->data = calloc ((size_t) width * height, sizeof (float));
  if (image->data == NULL) {
    free (image);
    return NULL;
  }
  image->width = width;
  image->height = height;
  image->pitch = (size_t) width;
  image->owns_data = 1;
  return image;
}

void
cf_image_free (cf_image * image)
{
  if (image == NULL)
    return;
  if (image->owns_data)
    free (image->data);
  free (image);
}

cf_image
cf_image_view (float *data, int width, int height, size_t pitch)
{
  cf_image view;

  view.width = width;
  view.height = height;
  view.pitch = pitch;
  view.data = data;
  view.owns_data = 0;
  return view;
}

cf_image *
cf_image_copy (const cf_image * src)
{
  cf_image *dst;
  int y;

  if (src == NULL)
    return NULL;
  dst = cf_image_new (src->width, src->height);
  if (dst == NULL)
    return NULL;
  for (y = 0; y < src->height; y++)
    memcpy (cf_image_row (dst, y), cf_image_row (src, y),
        (size_t) src->width * sizeof (float));
  return dst;
}

void
cf_image_fill (cf_image * image, float value)
{
  int x, y;

  for (y = 0; y < image->height; y++) {
    float *row = cf_image_row (image, y);
    for (x = 0; x < image->width; x++)
      row[x] = value;
  }
}

void
cf_image_min_max (const cf_image * image, float *min_value, float *max_value)
{
  float lo = INFINITY, hi = -INFINITY;
  int x, y;

  for (y = 0; y < image->height; y++) {
    const float *row = cf_image_row (image, y);
    for (x = 0; x < image->width; x++) {
      lo = fminf (lo, row[x]);
      hi = fmaxf (hi, row[x]);
    }
  }
  *min_value = lo;
  *max_value = hi;
}

cf_flow *
cf_flow_new (int width, int height)
{
  cf_flow *flow;
  size_t n;

  if (!size_is_valid (width, height))
    return NULL;
  flow = calloc (1, sizeof (*flow));
  if (flow == NULL)
    return NULL;
  n = (size_t) width * height;
  /* one block for both planes: v follows u */
  flow->u = calloc (2 * n, sizeof (float));
  if (flow->u == NULL) {
    free (flow);
    return NULL;
  }
  flow->v = flow->u + n;
  flow->width = width;
  flow->height = height;
  flow->pitch = (size_t) width;
  flow->owns_data = 1;
  return flow;
}

void
cf_flow_free (cf_flow * flow)
{
  if (flow == NULL)
    return;
  if (flow->owns_data)
    free (flow->u);
  free (flow);
}

cf_flow
cf_flow_view (const cf_flow * flow, int width, int height)
{
  cf_flow view = *flow;

  view.width = width;
  view.height = height;
  view.owns_data = 0;
  return view;
}

cf_flow *
cf_flow_copy (const cf_flow * src)
{
  cf_flow *dst;
  int y;

  if (src == NULL)
    return NULL;
  dst = cf_flow_new (src->width, src->height);
  if (dst == NULL)
    return NULL;
  for (y = 0; y < src->height; y++) {
    memcpy (dst->u + y * dst->pitch, src->u + y * src->pitch,
        (size_t) src->width * sizeof (float));
    memcpy (dst->v + y * dst->pitch, src->v + y * src->pitch,
        (size_t) src->width * sizeof (float));
  }
  return dst;
}

void
cf_flow_fill (cf_flow * flow, float u, float v)
{
  int x, y;

  for (y = 0; y < flow->height; y++) {
    for (x = 0; x < flow->width; x++) {
      flow->u[x + y * flow->pitch] = u;
      flow->v[x + y * flow->pitch] = v;
    }
  }
}

int
cf_flow_is_known (float u, float v)
{
  return !isnan (u) && !isnan (v) && fabsf (u) <= CF_FLOW_UNKNOWN_THRESH
      && fabsf (v) <= CF_FLOW_UNKNOWN_THRESH;
}

void
cf_flow_to_interleaved (const cf_flow * flow, float *uv, size_t stride)
{
  int x, y;

  for (y = 0; y < flow->height; y++) {
    float *row = (float *) ((char *) uv + (size_t) y * stride);
    const float *u = flow->u + y * flow->pitch;
    const float *v = flow->v + y * flow->pitch;
    for (x = 0; x < flow->width; x++) {
      row[2 * x] = u[x];
      row[2 * x + 1] = v[x];
    }
  }
}

void
cf_flow_from_interleaved (cf_flow * flow, const float *uv, size_t stride)
{
  int x, y;

  for (y = 0; y < flow->height; y++) {
    const float *row = (const float *) ((const char *) uv + (size_t) y * stride);
    float *u = flow->u + y * flow->pitch;
    float *v = flow->v + y * flow->pitch;
    for (x = 0; x < flow->width; x++) {
      u[x] = row[2 * x];
      v[x] = row[2 * x + 1];
    }
  }
}
