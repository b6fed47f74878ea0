/* gst-cudaflow — Middlebury .flo files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Layout (all little-endian): float32 tag 202021.25 ("PIEH"), int32 width,
 * int32 height, then width*height (u, v) float32 pairs, row-major, top row
 * first. File size is exactly 12 + 8*w*h.
 */
#ifndef CF_FLO_H
#define CF_FLO_H

#include <stddef.h>
#include <stdint.h>

#include "common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CF_FLO_TAG 202021.25f
#define CF_FLO_HEADER_SIZE 12

/* Bytes of a .flo holding a w x h field (header included); 0 on bad size. */
size_t cf_flo_size (int width, int height);

/* Write the 12-byte header into header[]. */
cf_status cf_flo_write_header (uint8_t header[CF_FLO_HEADER_SIZE], int width,
    int height);

/* Parse and validate a header: tag, positive sizes up to CF_MAX_DIMENSION. */
cf_status cf_flo_parse_header (const uint8_t * bytes, size_t n_bytes,
    int *width, int *height, cf_error * err);

/* Decode a complete .flo held in memory; the byte count must match the
 * header exactly (a truncated or padded file is an error). */
cf_status cf_flo_decode (const uint8_t * bytes, size_t n_bytes,
    cf_flow ** flow, cf_error * err);

/* Encode into a caller buffer of cf_flo_size (w, h) bytes. */
cf_status cf_flo_encode (const cf_flow * flow, uint8_t * bytes,
    size_t n_bytes);

cf_status cf_flo_read (const char *path, cf_flow ** flow, cf_error * err);
cf_status cf_flo_write (const char *path, const cf_flow * flow,
    cf_error * err);

#ifdef __cplusplus
}
#endif
#endif /* CF_FLO_H */
