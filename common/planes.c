/* gst-cudaflow — moving one video channel in and out of a float plane
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/planes.h"

#include <math.h>
#include <stdint.h>

/* Largest sample value of a depth: 255 or 65535; 0 for unknown depths. */
float
cf_channel_max (int depth)
{
  if (depth == 8)
    return 255.0f;
  if (depth == 16)
    return 65535.0f;
  return 0.0f;
}

/* A channel must point somewhere, have a positive size, a depth of 8 or 16
 * and samples at least one sample size apart. Rows may run backwards
 * (negative stride). */
static int
channel_is_valid (const cf_channel * ch)
{
  return ch != NULL && ch->data != NULL && ch->width > 0 && ch->height > 0
      && (ch->depth == 8 || ch->depth == 16)
      && ch->pixel_stride >= ch->depth / 8;
}

/* A float plane of exactly width x height with a sane pitch. */
static int
plane_matches (const cf_image * img, int width, int height)
{
  return img != NULL && img->data != NULL && img->width == width
      && img->height == height && img->pitch >= (size_t) width;
}

/* out(x, y) = sample (x, y) as float, unchanged in value (0..255 or
 * 0..65535). 16-bit samples are read byte by byte as little-endian, so the
 * result does not depend on the host's byte order. */
cf_status
cf_channel_unpack (const cf_channel * src, cf_image * dst)
{
  int x, y;

  if (!channel_is_valid (src) || !plane_matches (dst, src->width, src->height))
    return CF_ERROR_INVALID;
  for (y = 0; y < src->height; y++) {
    const uint8_t *row = (const uint8_t *) src->data + y * src->stride;
    float *out = cf_image_row (dst, y);

    if (src->depth == 8) {
      for (x = 0; x < src->width; x++)
        out[x] = (float) row[(size_t) x * src->pixel_stride];
    } else {
      for (x = 0; x < src->width; x++) {
        const uint8_t *p = row + (size_t) x * src->pixel_stride;

        out[x] = (float) (unsigned) (p[0] | (p[1] << 8));
      }
    }
  }
  return CF_OK;
}

/* One sample: s = v + offset in fp32, rounded half up, clamped to
 * [0, max]; NaN gives 0, +inf max. Half up is exact: with r = floorf (s),
 * the fraction s - r is exact in fp32 for every s >= 0 (Sterbenz), so
 * r + 1 is taken iff s - r >= 0.5; negative s end at 0 either way.
 * (floorf (s + 0.5f) is not exact: 0.49999997f + 0.5f rounds to 1.0f.) */
static inline unsigned
pack_sample (float v, float offset, float max)
{
  float s = v + offset;
  float r = floorf (s);

  if (s - r >= 0.5f)
    r += 1.0f;
  if (!(r > 0.0f))              /* also NaN */
    return 0;
  if (r >= max)
    return (unsigned) max;
  return (unsigned) r;
}

/* Float plane -> channel (see planes.h). Only the bytes of the described
 * samples are written; 16-bit samples are stored little-endian. */
cf_status
cf_channel_pack (const cf_image * src, float offset, const cf_channel * dst)
{
  int x, y;
  float max;

  if (!channel_is_valid (dst) || !plane_matches (src, dst->width, dst->height))
    return CF_ERROR_INVALID;
  max = cf_channel_max (dst->depth);
  for (y = 0; y < dst->height; y++) {
    uint8_t *row = (uint8_t *) dst->data + y * dst->stride;
    const float *in = cf_image_row (src, y);

    if (dst->depth == 8) {
      for (x = 0; x < dst->width; x++)
        row[(size_t) x * dst->pixel_stride] =
            (uint8_t) pack_sample (in[x], offset, max);
    } else {
      for (x = 0; x < dst->width; x++) {
        uint8_t *p = row + (size_t) x * dst->pixel_stride;
        unsigned v = pack_sample (in[x], offset, max);

        p[0] = (uint8_t) (v & 0xff);
        p[1] = (uint8_t) (v >> 8);
      }
    }
  }
  return CF_OK;
}

/* Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601-7, section 2.5.1), in fp32
 * with the terms added left to right, on 8-bit components; the result is
 * in 0..255 and not rounded. The plane's size is dst's. */
cf_status
cf_luma_from_rgb (const void *data, ptrdiff_t stride, int pixel_stride,
    int r, int g, int b, cf_image * dst)
{
  int x, y;

  if (data == NULL || dst == NULL || dst->data == NULL || dst->width <= 0
      || dst->height <= 0 || dst->pitch < (size_t) dst->width
      || pixel_stride < 1 || r < 0 || g < 0 || b < 0 || r >= pixel_stride
      || g >= pixel_stride || b >= pixel_stride)
    return CF_ERROR_INVALID;
  for (y = 0; y < dst->height; y++) {
    const uint8_t *row = (const uint8_t *) data + y * stride;
    float *out = cf_image_row (dst, y);

    for (x = 0; x < dst->width; x++) {
      const uint8_t *p = row + (size_t) x * pixel_stride;

      out[x] = 0.299f * (float) p[r] + 0.587f * (float) p[g]
          + 0.114f * (float) p[b];
    }
  }
  return CF_OK;
}

/* Flow methods see luma in 0..255: 8-bit samples as they are, 16-bit ones
 * times 255/65535 (fp32, one multiply, like the GPU twin). */
cf_status
cf_luma_from_channel (const cf_channel * src, cf_image * dst)
{
  cf_status status = cf_channel_unpack (src, dst);
  int x, y;

  if (status != CF_OK || src->depth != 16)
    return status;
  for (y = 0; y < dst->height; y++) {
    float *row = cf_image_row (dst, y);
    for (x = 0; x < dst->width; x++)
      row[x] *= 255.0f / 65535.0f;
  }
  return CF_OK;
}
