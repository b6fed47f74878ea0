/* gst-cudaflow — planar float images and flow fields (host memory)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One layout everywhere: planar float, row-major, an explicit pitch in
 * elements, pixel (x, y) at data[x + y * pitch]. Flow fields keep u and v in
 * two planes of the same pitch; u points right and v down, in pixels, and the
 * vector at x of frame t-1 satisfies I(t-1, x) ~ I(t, x + (u, v)) (Middlebury).
 */
#ifndef CF_IMAGE_H
#define CF_IMAGE_H

#include <stddef.h>

#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest width or height any container accepts; keeps w*h*8 far from
 * overflow and rejects absurd file headers. */
#define CF_MAX_DIMENSION 32768

typedef struct
{
  int width;
  int height;
  size_t pitch;                 /* elements between rows, >= width */
  float *data;
  int owns_data;                /* set by cf_image_new, clear for views */
} cf_image;

typedef struct
{
  int width;
  int height;
  size_t pitch;                 /* elements between rows of u and of v */
  float *u;
  float *v;
  int owns_data;
} cf_flow;

/* A flow component beyond this magnitude, or NaN, means "unknown"
 * (Middlebury flowIO.h UNKNOWN_FLOW_THRESH); writers use CF_FLOW_UNKNOWN. */
#define CF_FLOW_UNKNOWN_THRESH 1e9f
#define CF_FLOW_UNKNOWN 1e10f

/* Allocate a zero-filled image or flow; NULL on bad size or no memory. */
cf_image *cf_image_new (int width, int height);
void cf_image_free (cf_image * image);     /* NULL is a no-op */
/* Non-owning view of existing memory (pitch in elements). */
cf_image cf_image_view (float *data, int width, int height, size_t pitch);
cf_image *cf_image_copy (const cf_image * src);
void cf_image_fill (cf_image * image, float value);
/* Smallest and largest sample of @image (NaN-free; at least one pixel). */
void cf_image_min_max (const cf_image * image, float *min_value,
    float *max_value);

static inline float *
cf_image_row (const cf_image * image, int y)
{
  return image->data + (size_t) y * image->pitch;
}

cf_flow *cf_flow_new (int width, int height);
void cf_flow_free (cf_flow * flow);
cf_flow *cf_flow_copy (const cf_flow * src);
/* A non-owning view of the top-left width x height part of @flow's planes
 * (its pitch; for coarser levels), as cf_cuda_flow_view on the GPU. */
cf_flow cf_flow_view (const cf_flow * flow, int width, int height);
void cf_flow_fill (cf_flow * flow, float u, float v);

/* 1 when (u, v) is a known vector (finite and within the threshold). */
int cf_flow_is_known (float u, float v);

/* Interleaved (u0 v0 u1 v1 ...) rows, as in UV_F32LE buffers and .flo files;
 * stride in bytes between rows of the interleaved buffer. */
void cf_flow_to_interleaved (const cf_flow * flow, float *uv, size_t stride);
void cf_flow_from_interleaved (cf_flow * flow, const float *uv, size_t stride);

#ifdef __cplusplus
}
#endif
#endif /* CF_IMAGE_H */
