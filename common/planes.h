/* gst-cudaflow — moving one video channel in and out of a float plane
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A cf_channel describes one component of a video frame in memory: 8- or
 * 16-bit unsigned samples, pixel_stride bytes apart on a row, stride bytes
 * between rows. Examples: the Y plane of NV12 (depth 8, pixel_stride 1),
 * the V samples of NV12's UV plane (data + 1, pixel_stride 2), G of RGBA
 * (data + 1, pixel_stride 4), GRAY16_LE (depth 16, pixel_stride 2).
 * Float planes hold samples in their native range (0..255 or 0..65535).
 */
#ifndef CF_PLANES_H
#define CF_PLANES_H

#include <stddef.h>

#include "common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  void *data;                   /* first sample of the channel */
  int width;
  int height;
  ptrdiff_t stride;             /* bytes between rows */
  int pixel_stride;             /* bytes between samples of a row */
  int depth;                    /* 8 or 16 (16 is little-endian) */
} cf_channel;

/* Largest sample value of a depth: 255 or 65535. */
float cf_channel_max (int depth);

/* Channel -> float plane of the same size. */
cf_status cf_channel_unpack (const cf_channel * src, cf_image * dst);

/* Float plane -> channel: out = clamp(round_half_up(in + offset), 0, max).
 * Only the described samples are written (other channels of an interleaved
 * pixel stay as they are). */
cf_status cf_channel_pack (const cf_image * src, float offset,
    const cf_channel * dst);

/* Luma for the flow methods: the channel as float in 0..255 (16-bit
 * samples times 255/65535). */
cf_status cf_luma_from_channel (const cf_channel * src, cf_image * dst);

/* Rec.601 luma of 8-bit RGB(x) pixels: Y = 0.299 R + 0.587 G + 0.114 B,
 * as float in 0..255. r, g, b are byte offsets of the components inside a
 * pixel of pixel_stride bytes. */
cf_status cf_luma_from_rgb (const void *data, ptrdiff_t stride,
    int pixel_stride, int r, int g, int b, cf_image * dst);

#ifdef __cplusplus
}
#endif
#endif /* CF_PLANES_H */
