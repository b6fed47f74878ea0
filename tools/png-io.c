/* gst-cudaflow — PNG reading and writing for the command-line tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "png-io.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

cf_status
cf_png_read_luma (const char *path, cf_image ** image, cf_error * err)
{
  png_image png;
  uint8_t *buf;
  cf_image *img;
  int x, y;

  *image = NULL;
  memset (&png, 0, sizeof (png));
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file (&png, path)) {
    cf_error_set (err, "%s: %s", path, png.message);
    return errno == ENOENT ? CF_ERROR_IO : CF_ERROR_FORMAT;
  }
  /* libpng's simplified API converts any input to 8-bit RGB; do the
   * Rec.601 weighting ourselves so grey input stays exact */
  png.format = PNG_FORMAT_RGB;
  buf = malloc (PNG_IMAGE_SIZE (png));
  img = cf_image_new ((int) png.width, (int) png.height);
  if (buf == NULL || img == NULL) {
    png_image_free (&png);
    free (buf);
    cf_image_free (img);
    cf_error_set (err, "%s: out of memory", path);
    return CF_ERROR_NO_MEMORY;
  }
  if (!png_image_finish_read (&png, NULL, buf, 0, NULL)) {
    cf_error_set (err, "%s: %s", path, png.message);
    free (buf);
    cf_image_free (img);
    return CF_ERROR_FORMAT;
  }
  for (y = 0; y < img->height; y++) {
    const uint8_t *row = buf + (size_t) y * 3 * img->width;
    float *out = cf_image_row (img, y);
    for (x = 0; x < img->width; x++) {
      const uint8_t *p = row + 3 * x;
      if (p[0] == p[1] && p[1] == p[2])
        out[x] = p[0];
      else
        out[x] = 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
    }
  }
  free (buf);
  *image = img;
  return CF_OK;
}

cf_status
cf_png_write_rgb (const char *path, const uint8_t * rgb, int width,
    int height, int stride, cf_error * err)
{
  png_image png;

  memset (&png, 0, sizeof (png));
  png.version = PNG_IMAGE_VERSION;
  png.width = (png_uint_32) width;
  png.height = (png_uint_32) height;
  png.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file (&png, path, 0, rgb, stride, NULL)) {
    cf_error_set (err, "%s: %s", path, png.message);
    return CF_ERROR_IO;
  }
  return CF_OK;
}

cf_status
cf_png_write_grey (const char *path, const cf_image * image, cf_error * err)
{
  png_image png;
  uint8_t *buf;
  int x, y;

  buf = malloc ((size_t) image->width * image->height);
  if (buf == NULL)
    return CF_ERROR_NO_MEMORY;
  for (y = 0; y < image->height; y++) {
    const float *in = cf_image_row (image, y);
    for (x = 0; x < image->width; x++) {
      float v = floorf (in[x] + 0.5f);
      buf[(size_t) y * image->width + x] = (uint8_t) (v < 0 ? 0 : (v > 255 ?
              255 : v));
    }
  }
  memset (&png, 0, sizeof (png));
  png.version = PNG_IMAGE_VERSION;
  png.width = (png_uint_32) image->width;
  png.height = (png_uint_32) image->height;
  png.format = PNG_FORMAT_GRAY;
  if (!png_image_write_to_file (&png, path, 0, buf, image->width, NULL)) {
    cf_error_set (err, "%s: %s", path, png.message);
    free (buf);
    return CF_ERROR_IO;
  }
  free (buf);
  return CF_OK;
}
