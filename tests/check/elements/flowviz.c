/* gst-cudaflow — flowviz on the CPU backend: the Middlebury colours
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Expected colours are worked out by hand from the Middlebury colour-wheel
 * definition (perf-anchors.md §6.1), not taken from the code under test.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "cf-test-util.h"

static GstHarness *
viz_harness (const gchar * format, int width, int height,
    const gchar * settings)
{
  GstHarness *h = cf_test_harness_new ("flowviz", "cpu", NULL);
  gchar *caps;

  if (settings) {
    gchar **tok = g_strsplit (settings, " ", -1);
    guint i;
    for (i = 0; tok[i]; i++) {
      gchar *eq = strchr (tok[i], '=');
      if (eq) {
        *eq = '\0';
        gst_util_set_object_arg (G_OBJECT (h->element), tok[i], eq + 1);
      }
    }
    g_strfreev (tok);
  }
  caps = g_strdup_printf ("video/x-optical-flow, format=UV_F32LE, width=%d, "
      "height=%d, framerate=30/1", width, height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  caps = g_strdup_printf ("video/x-raw, format=%s", format);
  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
  return h;
}

static GstBuffer *
flow_buffer (int width, int height, const float *uv_pairs)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) width * height * 8,
      NULL);
  gst_buffer_fill (buf, 0, uv_pairs, (gsize) width * height * 8);
  return buf;
}

/* Pixel i of a packed 4-byte-per-pixel row frame. */
static void
pixel (GstBuffer * buf, int i, guint8 out[4])
{
  gst_buffer_extract (buf, (gsize) i * 4, out, 4);
}

GST_START_TEST (test_middlebury_axis_colours_zero_and_unknown)
{
  /* max-flow 1: unit vectors sit on the rim of the wheel */
  const float uv[] = {
    0, 0,                       /* zero: white */
    1, 0,                       /* right: wheel[0] = red */
    -1, 0,                      /* left: fk 27, CB entry 2 = (0, 209, 255) */
    0, -1,                      /* up: fk 40.5, BM 4 and 5 -> (87, 0, 255):
                                 * 1 - 1 (1 - col) in float lands just
                                 * under 88, as in colorcode.cpp */
    0, 1,                       /* down: fk 13.5, RY 13 and 14 -> (255, 229, 0) */
    1e10f, 0,                   /* unknown: black */
    NAN, 0,                     /* unknown: black */
    3, 0                        /* beyond max-flow: red darkened to 75 % */
  };
  static const guint8 want[][3] = { {255, 255, 255}, {255, 0, 0},
  {0, 209, 255}, {87, 0, 255}, {255, 229, 0}, {0, 0, 0}, {0, 0, 0},
  {191, 0, 0}
  };
  GstHarness *h = viz_harness ("RGBA", 8, 1, "max-flow=1");
  GstBuffer *out = gst_harness_push_and_pull (h, flow_buffer (8, 1, uv));
  int i;

  for (i = 0; i < 8; i++) {
    guint8 p[4];
    pixel (out, i, p);
    fail_unless (p[0] == want[i][0] && p[1] == want[i][1] &&
        p[2] == want[i][2], "pixel %d: got (%u,%u,%u), want (%u,%u,%u)", i,
        p[0], p[1], p[2], want[i][0], want[i][1], want[i][2]);
    fail_unless_equals_int (p[3], 255);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_byte_orders_place_red_correctly)
{
  static const struct
  {
    const gchar *format;
    int r;
  } orders[] = { {"RGBA", 0}, {"BGRA", 2}, {"RGBx", 0}, {"BGRx", 2} };
  const float uv[] = { 1, 0 };
  guint o;

  for (o = 0; o < G_N_ELEMENTS (orders); o++) {
    GstHarness *h = viz_harness (orders[o].format, 1, 1, "max-flow=1");
    GstBuffer *out = gst_harness_push_and_pull (h, flow_buffer (1, 1, uv));
    guint8 p[4];
    pixel (out, 0, p);
    fail_unless_equals_int (p[orders[o].r], 255);
    fail_unless_equals_int (p[2 - orders[o].r], 0);
    fail_unless_equals_int (p[1], 0);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_automatic_max_flow_uses_largest_known_vector)
{
  /* the 1e10 vector is unknown and must not set the scale: (2, 0) becomes
   * the rim, so it is pure red and (1, 0) half-saturated red */
  const float uv[] = { 2, 0, 1, 0, 1e10f, 1e10f };
  GstHarness *h = viz_harness ("RGBA", 3, 1, NULL);
  GstBuffer *out = gst_harness_push_and_pull (h, flow_buffer (3, 1, uv));
  guint8 p[4];

  pixel (out, 0, p);
  fail_unless (p[0] == 255 && p[1] == 0 && p[2] == 0);
  pixel (out, 1, p);
  /* col = 1 - 0.5 (1 - 0) = 0.5 for G and B -> (int) 127.5 = 127 */
  fail_unless (p[0] == 255 && p[1] == 127 && p[2] == 127,
      "got (%u,%u,%u)", p[0], p[1], p[2]);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_hsv_mode_black_at_zero_red_to_the_right)
{
  const float uv[] = { 0, 0, 1, 0, 0, 1 };
  GstHarness *h = viz_harness ("RGBA", 3, 1, "mode=hsv max-flow=1");
  GstBuffer *out = gst_harness_push_and_pull (h, flow_buffer (3, 1, uv));
  guint8 p[4];

  pixel (out, 0, p);
  fail_unless (p[0] == 0 && p[1] == 0 && p[2] == 0);
  pixel (out, 1, p);
  fail_unless (p[0] == 255 && p[1] == 0 && p[2] == 0);
  /* down = 90 degrees: between yellow and green, (127.5 -> 128, 255, 0) */
  pixel (out, 2, p);
  fail_unless (p[0] == 128 && p[1] == 255 && p[2] == 0, "got (%u,%u,%u)",
      p[0], p[1], p[2]);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_arrows_draw_white_along_the_vector)
{
  const int w = 32, hh = 32;
  float *uv = g_new0 (float, w * hh * 2);
  GstHarness *h;
  GstBuffer *out;
  guint8 p[4];
  int i;

  for (i = 0; i < w * hh; i++)
    uv[2 * i] = 4.0f;           /* everything moves right */
  h = viz_harness ("RGBA", w, hh, "mode=arrows arrow-step=16 max-flow=4");
  out = gst_harness_push_and_pull (h, flow_buffer (w, hh, uv));
  /* anchor (8, 8), one step (16 px) long at max-flow: (14, 8) is on it */
  pixel (out, 8 * w + 14, p);
  fail_unless (p[0] == 255 && p[1] == 255 && p[2] == 255);
  /* (8, 12) is off the shaft: dimmed red, 40 % of 255 */
  pixel (out, 12 * w + 8, p);
  fail_unless (p[0] == 102 && p[1] == 0 && p[2] == 0, "got (%u,%u,%u)",
      p[0], p[1], p[2]);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (uv);
}

GST_END_TEST;

GST_START_TEST (test_chain_from_estimator_runs)
{
  GstHarness *h = gst_harness_new_parse ("cudaflowhs backend=cpu "
      "preset=realtime ! flowviz backend=cpu");
  GstBuffer *in, *out;
  int i;

  gst_harness_set_src_caps_str (h, "video/x-raw, format=GRAY8, width=48, "
      "height=32, framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA");
  for (i = 0; i < 3; i++) {
    in = gst_buffer_new_allocate (NULL, 48 * 32, NULL);
    gst_buffer_memset (in, 0, 40 + 10 * i, 48 * 32);
    out = gst_harness_push_and_pull (h, in);
    fail_unless_equals_int (gst_buffer_get_size (out), 48 * 32 * 4);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
elements_flowviz_suite (void)
{
  Suite *s = suite_create ("flowviz");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_middlebury_axis_colours_zero_and_unknown);
  tcase_add_test (tc, test_byte_orders_place_red_correctly);
  tcase_add_test (tc, test_automatic_max_flow_uses_largest_known_vector);
  tcase_add_test (tc, test_hsv_mode_black_at_zero_red_to_the_right);
  tcase_add_test (tc, test_arrows_draw_white_along_the_vector);
  tcase_add_test (tc, test_chain_from_estimator_runs);
  return s;
}

GST_CHECK_MAIN (elements_flowviz);
