/* gst-cudaflow — tests for common/planes
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include "common/planes.h"

static cf_channel
channel (void *data, int w, int h, ptrdiff_t stride, int pixel_stride,
    int depth)
{
  cf_channel ch;

  ch.data = data;
  ch.width = w;
  ch.height = h;
  ch.stride = stride;
  ch.pixel_stride = pixel_stride;
  ch.depth = depth;
  return ch;
}

/* Pack a single value into an 8- or 16-bit sample and return it. */
static unsigned
pack_one (float value, float offset, int depth)
{
  guint8 bytes[2] = { 0xee, 0xee };
  cf_image img = cf_image_view (&value, 1, 1, 1);
  cf_channel ch = channel (bytes, 1, 1, 2, depth / 8, depth);

  fail_unless_equals_int (cf_channel_pack (&img, offset, &ch), CF_OK);
  if (depth == 8) {
    fail_unless_equals_int (bytes[1], 0xee);
    return bytes[0];
  }
  return bytes[0] | (bytes[1] << 8);
}

GST_START_TEST (test_channel_max_per_depth)
{
  fail_unless (cf_channel_max (8) == 255.0f);
  fail_unless (cf_channel_max (16) == 65535.0f);
}

GST_END_TEST;

GST_START_TEST (test_8bit_round_trip_is_exact)
{
  guint8 in[16 * 20], out[16 * 20];
  cf_image *img = cf_image_new (16, 16);
  cf_channel src = channel (in, 16, 16, 20, 1, 8);
  cf_channel dst = channel (out, 16, 16, 20, 1, 8);
  int x, y;

  for (y = 0; y < 16; y++)
    for (x = 0; x < 20; x++)
      in[x + 20 * y] = (guint8) (x + 16 * y);
  memset (out, 0x5a, sizeof (out));
  fail_unless_equals_int (cf_channel_unpack (&src, img), CF_OK);
  for (y = 0; y < 16; y++)
    for (x = 0; x < 16; x++)
      fail_unless (cf_image_row (img, y)[x] == (float) (x + 16 * y));
  fail_unless_equals_int (cf_channel_pack (img, 0.0f, &dst), CF_OK);
  for (y = 0; y < 16; y++) {
    fail_unless (memcmp (in + 20 * y, out + 20 * y, 16) == 0);
    for (x = 16; x < 20; x++)
      fail_unless_equals_int (out[x + 20 * y], 0x5a);   /* row padding */
  }
  cf_image_free (img);
}

GST_END_TEST;

GST_START_TEST (test_16bit_round_trip_is_exact)
{
  static const guint16 values[] = { 0, 1, 255, 256, 0x1234, 0x8000, 65534,
    65535
  };
  guint8 in[2 * 8], out[2 * 8];
  cf_image *img = cf_image_new (4, 2);
  cf_channel src = channel (in, 4, 2, 8, 2, 16);
  cf_channel dst = channel (out, 4, 2, 8, 2, 16);
  int i;

  for (i = 0; i < 8; i++) {
    in[2 * i] = values[i] & 0xff;
    in[2 * i + 1] = values[i] >> 8;
  }
  fail_unless_equals_int (cf_channel_unpack (&src, img), CF_OK);
  for (i = 0; i < 8; i++)
    fail_unless (img->data[i] == (float) values[i], "sample %d: %g", i,
        img->data[i]);
  fail_unless_equals_int (cf_channel_pack (img, 0.0f, &dst), CF_OK);
  fail_unless (memcmp (in, out, sizeof (in)) == 0);
  cf_image_free (img);
}

GST_END_TEST;

GST_START_TEST (test_16bit_samples_are_little_endian)
{
  guint8 bytes[4] = { 0x34, 0x12, 0xcd, 0xab };
  float v[2];
  cf_image img = cf_image_view (v, 2, 1, 2);
  cf_channel ch = channel (bytes, 2, 1, 4, 2, 16);

  fail_unless_equals_int (cf_channel_unpack (&ch, &img), CF_OK);
  fail_unless (v[0] == 4660.0f && v[1] == 43981.0f);
  v[0] = 0x0102;
  v[1] = 0xfffe;
  fail_unless_equals_int (cf_channel_pack (&img, 0.0f, &ch), CF_OK);
  fail_unless (bytes[0] == 0x02 && bytes[1] == 0x01 && bytes[2] == 0xfe
      && bytes[3] == 0xff);
}

GST_END_TEST;

GST_START_TEST (test_pack_rounds_half_up)
{
  fail_unless_equals_int (pack_one (2.5f, 0.0f, 8), 3);
  fail_unless_equals_int (pack_one (3.5f, 0.0f, 8), 4);
  fail_unless_equals_int (pack_one (2.49f, 0.0f, 8), 2);
  fail_unless_equals_int (pack_one (-0.5f, 0.0f, 8), 0);
  fail_unless_equals_int (pack_one (254.5f, 0.0f, 8), 255);
  fail_unless_equals_int (pack_one (1000.5f, 0.0f, 16), 1001);
  /* the offset is added before rounding (signed data around 128) */
  fail_unless_equals_int (pack_one (-0.5f, 128.0f, 8), 128);
  fail_unless_equals_int (pack_one (-1.6f, 128.0f, 8), 126);
  fail_unless_equals_int (pack_one (1.0f, 0.5f, 8), 2);
  /* exact half up: the largest float below 0.5 stays 0 (floorf (x + 0.5f)
   * would give 1), 0.5 and 1.5 go up, 65534.5 reaches the 16-bit max */
  fail_unless_equals_int (pack_one (nextafterf (0.5f, 0.0f), 0.0f, 8), 0);
  fail_unless_equals_int (pack_one (0.5f, 0.0f, 8), 1);
  fail_unless_equals_int (pack_one (1.5f, 0.0f, 8), 2);
  fail_unless_equals_int (pack_one (nextafterf (1.5f, 0.0f), 0.0f, 8), 1);
  fail_unless_equals_int (pack_one (65533.5f, 0.0f, 16), 65534);
  fail_unless_equals_int (pack_one (65534.5f, 0.0f, 16), 65535);
}

GST_END_TEST;

GST_START_TEST (test_pack_clamps_to_sample_range)
{
  fail_unless_equals_int (pack_one (-10.0f, 0.0f, 8), 0);
  fail_unless_equals_int (pack_one (-0.51f, 0.0f, 8), 0);
  fail_unless_equals_int (pack_one (255.4f, 0.0f, 8), 255);
  fail_unless_equals_int (pack_one (300.0f, 0.0f, 8), 255);
  fail_unless_equals_int (pack_one (1e30f, 0.0f, 8), 255);
  fail_unless_equals_int (pack_one (INFINITY, 0.0f, 8), 255);
  fail_unless_equals_int (pack_one (-INFINITY, 0.0f, 8), 0);
  fail_unless_equals_int (pack_one (70000.0f, 0.0f, 16), 65535);
  fail_unless_equals_int (pack_one (-1.0f, 0.0f, 16), 0);
  fail_unless_equals_int (pack_one (200.0f, 100.0f, 8), 255);
}

GST_END_TEST;

GST_START_TEST (test_pack_maps_nan_to_zero)
{
  fail_unless_equals_int (pack_one (NAN, 0.0f, 8), 0);
  fail_unless_equals_int (pack_one (NAN, 128.0f, 8), 0);
  fail_unless_equals_int (pack_one (-NAN, 0.0f, 16), 0);
}

GST_END_TEST;

/* Packing G of a 3x2 RGBA frame (stride 16) touches only G bytes. */
GST_START_TEST (test_pack_leaves_other_rgba_channels_untouched)
{
  guint8 frame[16 * 2];
  float g[6] = { 10, 20, 30, 40, 50, 60 };
  cf_image img = cf_image_view (g, 3, 2, 3);
  cf_channel ch = channel (frame + 1, 3, 2, 16, 4, 8);
  float back[6];
  cf_image back_img = cf_image_view (back, 3, 2, 3);
  int x, y, c;

  memset (frame, 0xab, sizeof (frame));
  fail_unless_equals_int (cf_channel_pack (&img, 0.0f, &ch), CF_OK);
  for (y = 0; y < 2; y++) {
    for (x = 0; x < 3; x++)
      for (c = 0; c < 4; c++)
        fail_unless_equals_int (frame[16 * y + 4 * x + c],
            c == 1 ? (int) g[x + 3 * y] : 0xab);
    for (x = 12; x < 16; x++)
      fail_unless_equals_int (frame[16 * y + x], 0xab);
  }
  fail_unless_equals_int (cf_channel_unpack (&ch, &back_img), CF_OK);
  fail_unless (memcmp (back, g, sizeof (g)) == 0);
}

GST_END_TEST;

/* V of NV12's interleaved UV plane (data + 1, pixel_stride 2). */
GST_START_TEST (test_pack_nv12_v_leaves_u_untouched)
{
  guint8 uv[2 * 4 * 2];         /* 4x2 chroma samples, stride 8 */
  float v[8] = { 0, 1, 2, 3, 252, 253, 254, 255 };
  cf_image img = cf_image_view (v, 4, 2, 4);
  cf_channel ch = channel (uv + 1, 4, 2, 8, 2, 8);
  int i;

  for (i = 0; i < 16; i++)
    uv[i] = (guint8) (100 + i);
  fail_unless_equals_int (cf_channel_pack (&img, 0.0f, &ch), CF_OK);
  for (i = 0; i < 8; i++) {
    fail_unless_equals_int (uv[2 * i], 100 + 2 * i);    /* U */
    fail_unless_equals_int (uv[2 * i + 1], (int) v[i]); /* V */
  }
}

GST_END_TEST;

GST_START_TEST (test_luma_of_known_colours)
{
  /* BGRx pixels: black, white, red, green, blue, grey 128 */
  static const guint8 px[6][4] = {
    {0, 0, 0, 9}, {255, 255, 255, 9}, {0, 0, 255, 9}, {0, 255, 0, 9},
    {255, 0, 0, 9}, {128, 128, 128, 9}
  };
  static const double expected[6] = { 0.0, 255.0, 0.299 * 255,
    0.587 * 255, 0.114 * 255, 128.0
  };
  float y[6];
  cf_image img = cf_image_view (y, 3, 2, 3);
  int i;

  fail_unless_equals_int (cf_luma_from_rgb (px, 12, 4, 2, 1, 0, &img), CF_OK);
  for (i = 0; i < 6; i++)
    fail_unless (fabs (y[i] - expected[i]) < 1e-4, "pixel %d: %g", i, y[i]);
  /* the fp32 formula itself, term order included */
  fail_unless (y[2] == 0.299f * 255.0f);

  /* RGB (3 bytes per pixel) with the same colours reordered */
  {
    guint8 rgb[3] = { 255, 0, 0 };
    float r;
    cf_image one = cf_image_view (&r, 1, 1, 1);

    fail_unless_equals_int (cf_luma_from_rgb (rgb, 3, 3, 0, 1, 2, &one), CF_OK);
    fail_unless (r == y[2]);
  }
}

GST_END_TEST;

/* Flow luma: 8-bit samples as they are, 16-bit ones scaled to 0..255. */
GST_START_TEST (test_luma_from_channel_scales_16bit_to_255)
{
  guint8 g8[3] = { 0, 128, 255 };
  /* 16-bit samples 0, 257 and 65535 */
  guint8 g16[6] = { 0x00, 0x00, 0x01, 0x01, 0xff, 0xff };
  float y[3];
  cf_image img = cf_image_view (y, 3, 1, 3);
  cf_channel ch = channel (g8, 3, 1, 3, 1, 8);

  fail_unless_equals_int (cf_luma_from_channel (&ch, &img), CF_OK);
  fail_unless (y[0] == 0.0f && y[1] == 128.0f && y[2] == 255.0f);
  ch = channel (g16, 3, 1, 6, 2, 16);
  fail_unless_equals_int (cf_luma_from_channel (&ch, &img), CF_OK);
  fail_unless (y[0] == 0.0f);
  fail_unless (fabsf (y[1] - 1.0f) < 1e-6f, "257 -> %g", y[1]);
  fail_unless (fabsf (y[2] - 255.0f) < 1e-4f, "65535 -> %g", y[2]);
  /* one fp32 multiply by 255/65535, like the GPU twin */
  fail_unless (y[1] == 257.0f * (255.0f / 65535.0f));
  fail_unless_equals_int (cf_luma_from_channel (NULL, &img), CF_ERROR_INVALID);
}

GST_END_TEST;

/* Rows may run bottom-up (negative stride), as for flipped frames. */
GST_START_TEST (test_negative_stride_reads_rows_backwards)
{
  guint8 buf[2 * 4] = { 1, 2, 0, 0, 3, 4, 0, 0 };
  float f[4];
  cf_image img = cf_image_view (f, 2, 2, 2);
  cf_channel ch = channel (buf + 4, 2, 2, -4, 1, 8);

  fail_unless_equals_int (cf_channel_unpack (&ch, &img), CF_OK);
  fail_unless (f[0] == 3.0f && f[1] == 4.0f && f[2] == 1.0f && f[3] == 2.0f);
  f[0] = 30.0f;
  f[3] = 20.0f;
  fail_unless_equals_int (cf_channel_pack (&img, 0.0f, &ch), CF_OK);
  fail_unless (buf[4] == 30 && buf[1] == 20 && buf[2] == 0 && buf[6] == 0);
}

GST_END_TEST;

GST_START_TEST (test_rejects_invalid_channels)
{
  guint8 buf[16];
  float f[4];
  cf_image img = cf_image_view (f, 2, 2, 2);
  cf_image small = cf_image_view (f, 2, 1, 2);
  cf_channel ch = channel (buf, 2, 2, 4, 1, 8);

  fail_unless_equals_int (cf_channel_unpack (NULL, &img), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_channel_unpack (&ch, NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_channel_unpack (&ch, &small), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_channel_pack (&small, 0.0f, &ch),
      CF_ERROR_INVALID);
  ch.depth = 12;
  fail_unless_equals_int (cf_channel_unpack (&ch, &img), CF_ERROR_INVALID);
  ch.depth = 16;                /* 16-bit samples need pixel_stride >= 2 */
  fail_unless_equals_int (cf_channel_pack (&img, 0.0f, &ch), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_luma_from_rgb (buf, 8, 4, 0, 1, 4, &img),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_luma_from_rgb (NULL, 8, 4, 0, 1, 2, &img),
      CF_ERROR_INVALID);
}

GST_END_TEST;

static Suite *
common_planes_suite (void)
{
  Suite *s = suite_create ("common_planes");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_channel_max_per_depth);
  tcase_add_test (tc, test_8bit_round_trip_is_exact);
  tcase_add_test (tc, test_16bit_round_trip_is_exact);
  tcase_add_test (tc, test_16bit_samples_are_little_endian);
  tcase_add_test (tc, test_pack_rounds_half_up);
  tcase_add_test (tc, test_pack_clamps_to_sample_range);
  tcase_add_test (tc, test_pack_maps_nan_to_zero);
  tcase_add_test (tc, test_pack_leaves_other_rgba_channels_untouched);
  tcase_add_test (tc, test_pack_nv12_v_leaves_u_untouched);
  tcase_add_test (tc, test_luma_of_known_colours);
  tcase_add_test (tc, test_luma_from_channel_scales_16bit_to_255);
  tcase_add_test (tc, test_negative_stride_reads_rows_backwards);
  tcase_add_test (tc, test_rejects_invalid_channels);
  return s;
}

GST_CHECK_MAIN (common_planes);
