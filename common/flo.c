/* gst-cudaflow — Middlebury .flo files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Format (Middlebury optical flow evaluation, flow-code/flowIO.cpp;
 * Baker et al., IJCV 2011): bytes 0-3 the tag "PIEH" (202021.25 read as a
 * little-endian float32), int32 width, int32 height, then width*height
 * interleaved (u, v) float32 pairs, row-major, top row first, all
 * little-endian, no padding. Every multi-byte value goes through explicit
 * byte-order helpers, so the files are the same on any host.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/flo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The tag as it appears on disk (the little-endian bytes of CF_FLO_TAG). */
static const uint8_t flo_magic[4] = { 'P', 'I', 'E', 'H' };

/* Store v at p as 4 little-endian bytes, whatever the host byte order. */
static void
put_u32_le (uint8_t * p, uint32_t v)
{
  p[0] = (uint8_t) (v & 0xffu);
  p[1] = (uint8_t) ((v >> 8) & 0xffu);
  p[2] = (uint8_t) ((v >> 16) & 0xffu);
  p[3] = (uint8_t) ((v >> 24) & 0xffu);
}

/* Load 4 little-endian bytes at p, whatever the host byte order. */
static uint32_t
get_u32_le (const uint8_t * p)
{
  return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16)
      | ((uint32_t) p[3] << 24);
}

/* Store an IEEE-754 binary32 as little-endian bytes (bit copy, no
 * conversion, so NaN payloads and the 1e10 "unknown" marker survive). */
static void
put_f32_le (uint8_t * p, float f)
{
  uint32_t bits;

  memcpy (&bits, &f, sizeof (bits));
  put_u32_le (p, bits);
}

/* Load little-endian bytes as an IEEE-754 binary32 (bit copy). */
static float
get_f32_le (const uint8_t * p)
{
  uint32_t bits = get_u32_le (p);
  float f;

  memcpy (&f, &bits, sizeof (f));
  return f;
}

/* 12 + 8 w h for 1 <= w, h <= CF_MAX_DIMENSION; 0 otherwise, and 0 when the
 * product would not fit in size_t (32-bit hosts). */
size_t
cf_flo_size (int width, int height)
{
  size_t pixels;

  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION
      || height > CF_MAX_DIMENSION)
    return 0;
  pixels = (size_t) width * height;
  if (pixels > (SIZE_MAX - CF_FLO_HEADER_SIZE) / 8)
    return 0;
  return CF_FLO_HEADER_SIZE + 8 * pixels;
}

/* Header bytes: "PIEH", width and height as little-endian int32. */
cf_status
cf_flo_write_header (uint8_t header[CF_FLO_HEADER_SIZE], int width, int height)
{
  if (header == NULL || cf_flo_size (width, height) == 0)
    return CF_ERROR_INVALID;
  memcpy (header, flo_magic, sizeof (flo_magic));
  put_u32_le (header + 4, (uint32_t) width);
  put_u32_le (header + 8, (uint32_t) height);
  return CF_OK;
}

/* Check the tag and the sizes of the first 12 bytes of a .flo. The tag is
 * compared byte-wise with "PIEH", which is the same test as comparing the
 * little-endian float with 202021.25 but cannot be fooled by NaN. */
cf_status
cf_flo_parse_header (const uint8_t * bytes, size_t n_bytes, int *width,
    int *height, cf_error * err)
{
  int32_t w, h;

  if (bytes == NULL || n_bytes < CF_FLO_HEADER_SIZE) {
    cf_error_set (err, "truncated: a .flo header needs %d bytes, got %zu",
        CF_FLO_HEADER_SIZE, bytes != NULL ? n_bytes : (size_t) 0);
    return CF_ERROR_FORMAT;
  }
  if (memcmp (bytes, flo_magic, sizeof (flo_magic)) != 0) {
    cf_error_set (err, "bad tag: not a .flo file (tag bytes %02x %02x %02x "
        "%02x, expected \"PIEH\", float %.2f)", bytes[0], bytes[1],
        bytes[2], bytes[3], (double) CF_FLO_TAG);
    return CF_ERROR_FORMAT;
  }
  w = (int32_t) get_u32_le (bytes + 4);
  h = (int32_t) get_u32_le (bytes + 8);
  if (w < 1 || h < 1 || w > CF_MAX_DIMENSION || h > CF_MAX_DIMENSION) {
    cf_error_set (err, "bad size %ldx%ld: width and height must be 1..%d",
        (long) w, (long) h, CF_MAX_DIMENSION);
    return CF_ERROR_FORMAT;
  }
  if (width != NULL)
    *width = (int) w;
  if (height != NULL)
    *height = (int) h;
  return CF_OK;
}

/* Report a byte count that does not match the header: "truncated" when
 * short, "trailing data" when long. */
static void
set_size_mismatch (cf_error * err, size_t expected, size_t got, int width,
    int height)
{
  cf_error_set (err, "%s: expected %zu bytes, got %zu (%dx%d field)",
      got < expected ? "truncated" : "trailing data", expected, got, width,
      height);
}

/* Decode a whole .flo held in memory into a new flow (pitch = width). */
cf_status
cf_flo_decode (const uint8_t * bytes, size_t n_bytes, cf_flow ** flow,
    cf_error * err)
{
  int width, height, x, y;
  size_t expected;
  cf_status status;
  cf_flow *f;
  const uint8_t *p;

  if (flow == NULL) {
    cf_error_set (err, "no place to return the decoded flow");
    return CF_ERROR_INVALID;
  }
  *flow = NULL;
  status = cf_flo_parse_header (bytes, n_bytes, &width, &height, err);
  if (status != CF_OK)
    return status;
  expected = cf_flo_size (width, height);
  if (expected == 0) {
    cf_error_set (err, "a %dx%d field does not fit in memory", width, height);
    return CF_ERROR_NO_MEMORY;
  }
  if (n_bytes != expected) {
    set_size_mismatch (err, expected, n_bytes, width, height);
    return CF_ERROR_FORMAT;
  }
  f = cf_flow_new (width, height);
  if (f == NULL) {
    cf_error_set (err, "out of memory for a %dx%d flow", width, height);
    return CF_ERROR_NO_MEMORY;
  }
  p = bytes + CF_FLO_HEADER_SIZE;
  for (y = 0; y < height; y++) {
    float *u = f->u + (size_t) y * f->pitch;
    float *v = f->v + (size_t) y * f->pitch;
    for (x = 0; x < width; x++, p += 8) {
      u[x] = get_f32_le (p);
      v[x] = get_f32_le (p + 4);
    }
  }
  *flow = f;
  return CF_OK;
}

/* Encode a flow (any pitch) into bytes[0 .. cf_flo_size (w, h)). Values are
 * copied bit for bit: unknown vectors keep whatever marker they hold. */
cf_status
cf_flo_encode (const cf_flow * flow, uint8_t * bytes, size_t n_bytes)
{
  size_t size;
  uint8_t *p;
  int x, y;

  if (flow == NULL || bytes == NULL || flow->u == NULL || flow->v == NULL)
    return CF_ERROR_INVALID;
  size = cf_flo_size (flow->width, flow->height);
  if (size == 0 || n_bytes < size || flow->pitch < (size_t) flow->width)
    return CF_ERROR_INVALID;
  cf_flo_write_header (bytes, flow->width, flow->height);
  p = bytes + CF_FLO_HEADER_SIZE;
  for (y = 0; y < flow->height; y++) {
    const float *u = flow->u + (size_t) y * flow->pitch;
    const float *v = flow->v + (size_t) y * flow->pitch;
    for (x = 0; x < flow->width; x++, p += 8) {
      put_f32_le (p, u[x]);
      put_f32_le (p + 4, v[x]);
    }
  }
  return CF_OK;
}

/* Read a .flo file. The header is checked first and, for regular files, the
 * file size is compared with 12 + 8 w h before anything large is
 * allocated, so a garbage header cannot cause a huge allocation. The data
 * are read with one extra byte requested, to detect trailing data also on
 * streams whose size is unknown (pipes). */
cf_status
cf_flo_read (const char *path, cf_flow ** flow, cf_error * err)
{
  uint8_t header[CF_FLO_HEADER_SIZE];
  struct stat st;
  uint8_t *bytes;
  size_t n, size;
  int width, height, saved_errno;
  cf_status status;
  FILE *f;

  if (path == NULL || flow == NULL) {
    cf_error_set (err, "no path or no place to return the flow");
    return CF_ERROR_INVALID;
  }
  *flow = NULL;
  f = fopen (path, "rb");
  if (f == NULL) {
    cf_error_set (err, "cannot open '%s' for reading: %s", path,
        strerror (errno));
    return CF_ERROR_IO;
  }
  n = fread (header, 1, sizeof (header), f);
  if (n < sizeof (header) && ferror (f)) {
    saved_errno = errno;
    fclose (f);
    cf_error_set (err, "cannot read '%s': %s", path, strerror (saved_errno));
    return CF_ERROR_IO;
  }
  status = cf_flo_parse_header (header, n, &width, &height, err);
  if (status != CF_OK) {
    fclose (f);
    return status;
  }
  size = cf_flo_size (width, height);
  if (size == 0) {
    fclose (f);
    cf_error_set (err, "'%s': a %dx%d field does not fit in memory", path,
        width, height);
    return CF_ERROR_NO_MEMORY;
  }
  if (fstat (fileno (f), &st) == 0 && S_ISREG (st.st_mode)
      && (st.st_size < 0 || (unsigned long long) st.st_size != size)) {
    fclose (f);
    set_size_mismatch (err, size, (size_t) st.st_size, width, height);
    return CF_ERROR_FORMAT;
  }
  bytes = malloc (size + 1);
  if (bytes == NULL) {
    fclose (f);
    cf_error_set (err, "out of memory reading '%s' (%zu bytes)", path, size);
    return CF_ERROR_NO_MEMORY;
  }
  memcpy (bytes, header, sizeof (header));
  n = sizeof (header) + fread (bytes + sizeof (header), 1,
      size + 1 - sizeof (header), f);
  if (ferror (f)) {
    saved_errno = errno;
    free (bytes);
    fclose (f);
    cf_error_set (err, "cannot read '%s': %s", path, strerror (saved_errno));
    return CF_ERROR_IO;
  }
  fclose (f);
  status = cf_flo_decode (bytes, n, flow, err);
  free (bytes);
  return status;
}

/* Write a .flo file with a single fwrite of the encoded bytes; a failed
 * write or close is reported (with strerror) and a partial regular file is
 * removed (never a device or fifo: writing to /dev/full must not delete
 * it). */
cf_status
cf_flo_write (const char *path, const cf_flow * flow, cf_error * err)
{
  cf_status status = CF_OK;
  int saved_errno = 0, is_regular;
  struct stat st;
  uint8_t *bytes;
  size_t size;
  FILE *f;

  if (path == NULL || flow == NULL) {
    cf_error_set (err, "no path or no flow to write");
    return CF_ERROR_INVALID;
  }
  size = cf_flo_size (flow->width, flow->height);
  if (size == 0) {
    cf_error_set (err, "cannot write a %dx%d field: width and height must "
        "be 1..%d", flow->width, flow->height, CF_MAX_DIMENSION);
    return CF_ERROR_INVALID;
  }
  bytes = malloc (size);
  if (bytes == NULL) {
    cf_error_set (err, "out of memory writing '%s' (%zu bytes)", path, size);
    return CF_ERROR_NO_MEMORY;
  }
  status = cf_flo_encode (flow, bytes, size);
  if (status != CF_OK) {
    free (bytes);
    cf_error_set (err, "cannot encode the %dx%d field", flow->width,
        flow->height);
    return status;
  }
  f = fopen (path, "wb");
  if (f == NULL) {
    saved_errno = errno;
    free (bytes);
    cf_error_set (err, "cannot open '%s' for writing: %s", path,
        strerror (saved_errno));
    return CF_ERROR_IO;
  }
  is_regular = fstat (fileno (f), &st) == 0 && S_ISREG (st.st_mode);
  if (fwrite (bytes, 1, size, f) != size) {
    saved_errno = errno;
    status = CF_ERROR_IO;
  }
  if (fclose (f) != 0 && status == CF_OK) {
    saved_errno = errno;
    status = CF_ERROR_IO;
  }
  free (bytes);
  if (status != CF_OK) {
    cf_error_set (err, "cannot write '%s': %s", path, strerror (saved_errno));
    if (is_regular)
      remove (path);
  }
  return status;
}
