/* gst-cudaflow — PNG reading and writing for the command-line tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_PNG_IO_H
#define CF_PNG_IO_H

#include <stdint.h>

#include "common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read a PNG as luma in 0..255: grey as is (16-bit scaled to 0..255),
 * colour by Rec.601 (0.299 R + 0.587 G + 0.114 B); alpha ignored. */
cf_status cf_png_read_luma (const char *path, cf_image ** image,
    cf_error * err);

/* Write 8-bit RGB (3 bytes per pixel, rows of stride bytes). */
cf_status cf_png_write_rgb (const char *path, const uint8_t * rgb,
    int width, int height, int stride, cf_error * err);

/* Write a float image as 8-bit grey, clamped to 0..255 after rounding. */
cf_status cf_png_write_grey (const char *path, const cf_image * image,
    cf_error * err);

#ifdef __cplusplus
}
#endif
#endif /* CF_PNG_IO_H */
