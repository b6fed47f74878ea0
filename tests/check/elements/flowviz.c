/* gst-cudaflow — flowviz on the CPU backend: the Middlebury colours, and
 * the overlays over video frames carrying a GstCudaFlowMeta
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Expected colours are worked out by hand from the Middlebury colour-wheel
 * definition (Baker et al., IJCV 2011, colorcode.cpp), not taken from the
 * code under test; overlays are checked against the Rec.601 conversion and
 * the blend computed here (mode=overlay: opacity alpha x min (1, |(u, v)| /
 * max-flow), worked out in double). A frame without a usable field (a
 * GAP-flagged flow buffer, a frame whose meta is missing, invalid or of
 * another size) is uniform grey 128 in the modes that draw the flow alone
 * and the plain video (black without video) in the overlays.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <gst/video/video.h>
#include <gst/cudaflow/cudaflow.h>

#include "cf-test-util.h"

/* "name=value name=value" onto the element */
static void
apply_settings (GstHarness * h, const gchar * settings)
{
  gchar **tok;
  guint i;

  if (settings == NULL)
    return;
  tok = g_strsplit (settings, " ", -1);
  for (i = 0; tok[i]; i++) {
    gchar *eq = strchr (tok[i], '=');
    if (eq) {
      *eq = '\0';
      gst_util_set_object_arg (G_OBJECT (h->element), tok[i], eq + 1);
    }
  }
  g_strfreev (tok);
}

/* flowviz on the CPU with @settings, input @in_caps, output @format */
static GstHarness *
caps_harness (const gchar * in_caps, const gchar * format,
    const gchar * settings)
{
  GstHarness *h = cf_test_harness_new ("flowviz", "cpu", NULL);
  gchar *caps;

  apply_settings (h, settings);
  gst_harness_set_src_caps_str (h, in_caps);
  caps = g_strdup_printf ("video/x-raw, format=%s", format);
  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
  return h;
}

static GstHarness *
viz_harness (const gchar * format, int width, int height,
    const gchar * settings)
{
  gchar *caps = g_strdup_printf ("video/x-optical-flow, format=UV_F32LE, "
      "width=%d, height=%d, framerate=30/1", width, height);
  GstHarness *h = caps_harness (caps, format, settings);

  g_free (caps);
  return h;
}

/* flowviz fed video of @in_format (frames that may carry flow as meta) */
static GstHarness *
video_harness (const gchar * in_format, const gchar * format, int width,
    int height, const gchar * settings)
{
  gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, "
      "height=%d, framerate=30/1", in_format, width, height);
  GstHarness *h = caps_harness (caps, format, settings);

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

/* A @format frame (default layout, as a harness buffer without video meta
 * has) whose planes are copied from @planes, each packed: rows of
 * component width x pixel stride bytes. */
static GstBuffer *
video_buffer (GstVideoFormat format, int width, int height,
    const guint8 * const planes[])
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;
  guint p;
  int y;

  gst_video_info_set_format (&info, format, width, height);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    int row_bytes, rows;
    gst_video_format_info_component (info.finfo, p, comp);
    row_bytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
    for (y = 0; y < rows; y++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p),
          planes[p] + y * row_bytes, row_bytes);
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* Attach a packed system-memory field of @width x @height to @video. */
static GstBuffer *
with_flow_meta (GstBuffer * video, int width, int height, const float *uv,
    gboolean valid)
{
  GstBuffer *flow = flow_buffer (width, height, uv);

  fail_unless (gst_buffer_add_cuda_flow_meta (video, flow, width, height,
          width * 8, 0, GST_SECOND / 30, valid,
          GST_CUDA_FLOW_METHOD_UNKNOWN) != NULL);
  gst_buffer_unref (flow);
  return video;
}

/* Rec.601 limited range Y'CbCr -> R'G'B' in its usual 8-bit integer form
 * (the BT.601 matrix stretched from 219/224 levels to 255 and scaled by
 * 256: 298, 409, 100, 208, 516), rounded, clamped to 0..255. */
static void
ref_yuv (int y, int cb, int cr, guint8 rgb[3])
{
  int c = y - 16, d = cb - 128, e = cr - 128;
  int sums[3] = { 298 * c + 409 * e, 298 * c - 100 * d - 208 * e,
    298 * c + 516 * d
  };
  int k;

  for (k = 0; k < 3; k++)
    rgb[k] = (guint8) CLAMP ((int) floor ((sums[k] + 128) / 256.0), 0, 255);
}

/* Weight 0..256 of opacity @alpha scaled by min (1, @r), @r the vector's
 * length over max-flow (1 for constant opacity), as documented: W = round
 * (256 alpha), then W min (1, r) rounded, both half up, here in double.
 * The element rounds a float product; test data keep W r clear of the
 * half-integers, where the two could disagree (checked). */
static int
ref_weight (double alpha, double r)
{
  int w = (int) floor (alpha * 256.0 + 0.5);
  double t = w * MIN (1.0, r);

  fail_unless (fabs (t - floor (t) - 0.5) > 1e-3,
      "test data on a rounding tie: %g", t);
  return (int) floor (t + 0.5);
}

/* @over above @under with weight @w / 256, rounded half up. */
static guint8
ref_mix (int over, int under, int w)
{
  return (guint8) ((w * over + (256 - w) * under + 128) / 256);
}

/* Constant opacity alpha of @over above @under (the arrows, and the
 * colour coding at or beyond max-flow). */
static guint8
ref_blend (int over, int under, double alpha)
{
  return ref_mix (over, under, ref_weight (alpha, 1.0));
}

static void
assert_pixel (GstBuffer * out, int i, const guint8 want[3], const char *what)
{
  guint8 p[4];

  pixel (out, i, p);
  fail_unless (p[0] == want[0] && p[1] == want[1] && p[2] == want[2],
      "%s: pixel %d: got (%u,%u,%u), want (%u,%u,%u)", what, i, p[0], p[1],
      p[2], want[0], want[1], want[2]);
  fail_unless_equals_int (p[3], 255);
}

/* A 4 x 2 field for max-flow 1 and its Middlebury colours (worked out in
 * test_middlebury_axis_colours_zero_and_unknown; the last, half of
 * max-flow to the right, in test_automatic_max_flow_uses_largest_known_
 * vector); unknown vectors have no colour (-1). At rest, at max-flow and
 * half way, for the overlay's opacity. */
static const float FIELD_4X2[] = {
  0, 0, 1, 0, -1, 0, 0, 1,
  NAN, 0, 1, 0, 1e10f, 0, 0.5f, 0
};

static const int FIELD_4X2_RGB[8][3] = {
  {255, 255, 255}, {255, 0, 0}, {0, 209, 255}, {255, 229, 0},
  {-1, -1, -1}, {255, 0, 0}, {-1, -1, -1}, {255, 127, 127}
};

/* RGBA video under it */
static const guint8 RGBA_4X2[] = {
  10, 20, 30, 7, 200, 100, 50, 7, 0, 0, 0, 7, 255, 255, 255, 7,
  60, 120, 180, 7, 33, 66, 99, 7, 250, 5, 128, 7, 17, 17, 17, 7
};

/* Colour of field pixel i drawn by mode=overlay max-flow=1 with opacity
 * @alpha over @video: alpha x min (1, |(u, v)|) per pixel, so the video
 * itself at rest and where the vector is unknown. */
static void
ref_overlay (int i, const guint8 video[3], double alpha, guint8 want[3])
{
  int k, w;

  if (FIELD_4X2_RGB[i][0] < 0) {
    for (k = 0; k < 3; k++)
      want[k] = video[k];
    return;
  }
  w = ref_weight (alpha, hypot (FIELD_4X2[2 * i], FIELD_4X2[2 * i + 1]));
  for (k = 0; k < 3; k++)
    want[k] = ref_mix (FIELD_4X2_RGB[i][k], video[k], w);
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
      "preset=romera ! flowviz backend=cpu");
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

GST_START_TEST (test_overlay_blends_colour_coding_over_rgba)
{
  const guint8 *planes[] = { RGBA_4X2 };
  GstHarness *h = video_harness ("RGBA", "RGBA", 4, 2,
      "mode=overlay max-flow=1 alpha=0.5");
  GstBuffer *in = with_flow_meta (video_buffer (GST_VIDEO_FORMAT_RGBA, 4, 2,
          planes), 4, 2, FIELD_4X2, TRUE);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  int i;

  /* e.g. red at max-flow over (200, 100, 50) at 0.5: (228, 50, 25); at
   * rest the video itself; half of max-flow (255, 127, 127) over (17, 17,
   * 17) at weight 64: ((64 * 255 + 192 * 17 + 128) >> 8, (64 * 127 + 192
   * * 17 + 128) >> 8) = (77, 45, 45) */
  assert_pixel (out, 0, RGBA_4X2, "at rest");
  {
    static const guint8 red[3] = { 228, 50, 25 }, half[3] = { 77, 45, 45 };
    assert_pixel (out, 1, red, "at max-flow");
    assert_pixel (out, 7, half, "half max-flow");
  }
  for (i = 0; i < 8; i++) {
    guint8 want[3];
    ref_overlay (i, RGBA_4X2 + 4 * i, 0.5, want);
    assert_pixel (out, i, want, "overlay over RGBA");
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_overlay_blends_colour_coding_over_nv12)
{
  /* Y; Cb Cr of the two 2 x 2 blocks: a saturated red, then neutral */
  static const guint8 y_plane[] = { 81, 235, 16, 126, 81, 200, 16, 126 };
  static const guint8 uv_plane[] = { 90, 240, 128, 128 };
  const guint8 *planes[] = { y_plane, uv_plane };
  GstHarness *h;
  GstBuffer *in, *out;
  guint8 rgb[3];
  int i;

  /* the reference itself: Rec.601 red, black, white and mid grey */
  ref_yuv (81, 90, 240, rgb);
  fail_unless (rgb[0] == 255 && rgb[1] == 0 && rgb[2] == 0);
  ref_yuv (16, 128, 128, rgb);
  fail_unless (rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 0);
  ref_yuv (235, 128, 128, rgb);
  fail_unless (rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255);
  ref_yuv (126, 128, 128, rgb);
  fail_unless (rgb[0] == 128 && rgb[1] == 128 && rgb[2] == 128);

  /* the default alpha, 0.6 (weight 154 / 256 at max-flow, 77 half way) */
  h = video_harness ("NV12", "RGBA", 4, 2, "mode=overlay max-flow=1");
  in = with_flow_meta (video_buffer (GST_VIDEO_FORMAT_NV12, 4, 2, planes), 4,
      2, FIELD_4X2, TRUE);
  out = gst_harness_push_and_pull (h, in);
  for (i = 0; i < 8; i++) {
    int x = i % 4;              /* both rows share the one chroma row */
    guint8 video[3], want[3];
    ref_yuv (y_plane[i], uv_plane[2 * (x / 2)], uv_plane[2 * (x / 2) + 1],
        video);
    ref_overlay (i, video, 0.6, want);
    assert_pixel (out, i, want, "overlay over NV12");
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_no_usable_meta_is_grey_or_the_plain_video)
{
  static const char *modes[] = { "middlebury", "hsv", "arrows", "overlay",
    "overlay-arrows"
  };
  const float small[] = { 1, 0, 1, 0, 1, 0, 1, 0 };
  const guint8 *planes[] = { RGBA_4X2 };
  guint m;
  int kind, i;

  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    gchar *settings = g_strdup_printf ("mode=%s max-flow=1 alpha=1",
        modes[m]);
    /* BGRx in, RGBA out: the video's channels reordered */
    GstHarness *h = video_harness ("BGRx", "RGBA", 4, 2, settings);

    /* 0: no meta; 1: valid=FALSE; 2: a 2 x 2 field on a 4 x 2 frame */
    for (kind = 0; kind < 3; kind++) {
      GstBuffer *in = video_buffer (GST_VIDEO_FORMAT_BGRx, 4, 2, planes);
      GstBuffer *out;
      gchar *what;
      if (kind == 1)
        with_flow_meta (in, 4, 2, FIELD_4X2, FALSE);
      else if (kind == 2)
        with_flow_meta (in, 2, 2, small, TRUE);
      out = gst_harness_push_and_pull (h, in);
      what = g_strdup_printf ("mode=%s, case %d", modes[m], kind);
      for (i = 0; i < 8; i++) {
        const guint8 *p = RGBA_4X2 + 4 * i;
        const guint8 video[3] = { p[2], p[1], p[0] };
        static const guint8 grey[3] = { 128, 128, 128 };
        /* the flow alone: neutral grey; over the video: the video */
        assert_pixel (out, i, m < 3 ? grey : video, what);
      }
      g_free (what);
      gst_buffer_unref (out);
    }
    gst_harness_teardown (h);
    g_free (settings);
  }
}

GST_END_TEST;

GST_START_TEST (test_grey_inputs_are_replicated)
{
  static const guint8 gray8[] = { 0, 77, 255 };
  /* 0, 0x8000, 0xffff, 0x0101 little-endian: rounded over the full range,
   * 32768 * 255 / 65535 = 127.5019 -> 128, 257 * 255 / 65535 = 1 */
  static const guint8 gray16[] = { 0, 0, 0x00, 0x80, 0xff, 0xff, 1, 1 };
  static const guint8 want16[] = { 0, 128, 255, 1 };
  const guint8 *planes8[] = { gray8 }, *planes16[] = { gray16 };
  GstHarness *h;
  GstBuffer *out;
  int i;

  h = video_harness ("GRAY8", "BGRA", 3, 1, "mode=overlay");
  out = gst_harness_push_and_pull (h, video_buffer (GST_VIDEO_FORMAT_GRAY8,
          3, 1, planes8));
  for (i = 0; i < 3; i++) {
    const guint8 want[3] = { gray8[i], gray8[i], gray8[i] };
    assert_pixel (out, i, want, "GRAY8");
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  h = video_harness ("GRAY16_LE", "RGBx", 4, 1, "mode=overlay");
  out = gst_harness_push_and_pull (h,
      video_buffer (GST_VIDEO_FORMAT_GRAY16_LE, 4, 1, planes16));
  for (i = 0; i < 4; i++) {
    guint8 p[4];
    pixel (out, i, p);
    fail_unless (p[0] == want16[i] && p[1] == want16[i] && p[2] == want16[i],
        "GRAY16_LE pixel %d: got %u, want %u", i, p[0], want16[i]);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_alpha_zero_is_the_video_one_colours_by_motion)
{
  const guint8 *planes[] = { RGBA_4X2 };
  GstHarness *h = video_harness ("RGBA", "RGBA", 4, 2,
      "mode=overlay max-flow=1 alpha=0");
  GstBuffer *out;
  int i;

  out = gst_harness_push_and_pull (h,
      with_flow_meta (video_buffer (GST_VIDEO_FORMAT_RGBA, 4, 2, planes), 4,
          2, FIELD_4X2, TRUE));
  for (i = 0; i < 8; i++)
    assert_pixel (out, i, RGBA_4X2 + 4 * i, "alpha=0");
  gst_buffer_unref (out);

  /* mutable while playing */
  g_object_set (h->element, "alpha", 1.0, NULL);
  out = gst_harness_push_and_pull (h,
      with_flow_meta (video_buffer (GST_VIDEO_FORMAT_RGBA, 4, 2, planes), 4,
          2, FIELD_4X2, TRUE));
  for (i = 0; i < 8; i++) {
    guint8 want[3];
    int k;
    /* at max-flow the colours themselves (weight 256); at rest and where
     * the vector is unknown the video; half way weight 128 */
    for (k = 0; k < 3; k++) {
      if (FIELD_4X2_RGB[i][0] < 0 || (FIELD_4X2[2 * i] == 0
              && FIELD_4X2[2 * i + 1] == 0))
        want[k] = RGBA_4X2[4 * i + k];
      else if (i == 7)
        want[k] = ref_mix (FIELD_4X2_RGB[i][k], RGBA_4X2[4 * i + k], 128);
      else
        want[k] = (guint8) FIELD_4X2_RGB[i][k];
    }
    assert_pixel (out, i, want, "alpha=1");
    ref_overlay (i, RGBA_4X2 + 4 * i, 1.0, want);
    assert_pixel (out, i, want, "alpha=1, reference");
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Still pixels under mode=overlay alpha=1 are the video to the bit (not
 * whitened: Middlebury's zero motion is white), with a fixed and the
 * automatic max-flow, over RGBA and NV12; a creep under half a 1/256 step
 * of opacity (256 x 0.001 < 1/2) too. The one moving pixel, at max-flow,
 * is the colour itself. */
GST_START_TEST (test_overlay_at_rest_is_the_plain_video_at_alpha_one)
{
  /* pixel 1 moves 2 px right (the automatic max-flow), pixel 6 creeps */
  static const float field[] = { 0, 0, 2, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0.002f, 0, 0
  };
  static const guint8 y_plane[] = { 81, 235, 16, 126, 81, 200, 16, 126 };
  static const guint8 uv_plane[] = { 90, 240, 128, 128 };
  static const guint8 red[3] = { 255, 0, 0 };
  static const char *settings[] = { "mode=overlay alpha=1 max-flow=2",
    "mode=overlay alpha=1 max-flow=0"
  };
  const guint8 *rgba_planes[] = { RGBA_4X2 };
  const guint8 *nv12_planes[] = { y_plane, uv_plane };
  guint s;
  int i;

  for (s = 0; s < G_N_ELEMENTS (settings); s++) {
    GstHarness *h = video_harness ("RGBA", "RGBA", 4, 2, settings[s]);
    GstBuffer *out = gst_harness_push_and_pull (h,
        with_flow_meta (video_buffer (GST_VIDEO_FORMAT_RGBA, 4, 2,
                rgba_planes), 4, 2, field, TRUE));
    for (i = 0; i < 8; i++)
      assert_pixel (out, i, i == 1 ? red : RGBA_4X2 + 4 * i, settings[s]);
    gst_buffer_unref (out);
    gst_harness_teardown (h);

    h = video_harness ("NV12", "RGBA", 4, 2, settings[s]);
    out = gst_harness_push_and_pull (h,
        with_flow_meta (video_buffer (GST_VIDEO_FORMAT_NV12, 4, 2,
                nv12_planes), 4, 2, field, TRUE));
    for (i = 0; i < 8; i++) {
      int x = i % 4;
      guint8 video[3];
      ref_yuv (y_plane[i], uv_plane[2 * (x / 2)], uv_plane[2 * (x / 2) + 1],
          video);
      assert_pixel (out, i, i == 1 ? red : video, settings[s]);
    }
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Vectors as long as max-flow or longer get the full alpha, the constant
 * opacity the arrows have: at max-flow=5, right and down by 5, right and
 * left by 10 (darkened to 75 %: 255 x 0.75 -> 191, 209 / 255 x 0.75 x
 * 255 = 156.75 -> 156), at alpha 0.5 and the default 0.6. */
GST_START_TEST (test_overlay_at_max_flow_gets_the_full_alpha)
{
  static const float field[] = { 5, 0, 0, 5, 10, 0, -10, 0 };
  static const int colours[4][3] = { {255, 0, 0}, {255, 229, 0},
  {191, 0, 0}, {0, 156, 191}
  };
  static const guint8 video[] = { 10, 20, 30, 0, 200, 100, 50, 0,
    250, 250, 250, 0, 60, 120, 180, 0
  };
  static const double alphas[] = { 0.5, 0.6 };
  const guint8 *planes[] = { video };
  guint a;
  int i, k;

  for (a = 0; a < G_N_ELEMENTS (alphas); a++) {
    gchar *settings = g_strdup_printf ("mode=overlay max-flow=5 alpha=%g",
        alphas[a]);
    GstHarness *h = video_harness ("RGBx", "RGBA", 4, 1, settings);
    GstBuffer *out = gst_harness_push_and_pull (h,
        with_flow_meta (video_buffer (GST_VIDEO_FORMAT_RGBx, 4, 1, planes), 4,
            1, field, TRUE));
    for (i = 0; i < 4; i++) {
      guint8 want[3];
      for (k = 0; k < 3; k++)
        want[k] = ref_blend (colours[i][k], video[4 * i + k], alphas[a]);
      assert_pixel (out, i, want, settings);
    }
    /* by hand: red over (10, 20, 30) at 0.5 = weight 128: (133, 10, 15) */
    if (a == 0) {
      static const guint8 hand[3] = { 133, 10, 15 };
      assert_pixel (out, 0, hand, "by hand");
    }
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (settings);
  }
}

GST_END_TEST;

GST_START_TEST (test_flow_modes_with_meta_draw_the_flow_alone)
{
  const guint8 *planes[] = { RGBA_4X2 };
  GstHarness *h = video_harness ("RGBA", "RGBA", 4, 2,
      "mode=middlebury max-flow=1");
  GstBuffer *out = gst_harness_push_and_pull (h,
      with_flow_meta (video_buffer (GST_VIDEO_FORMAT_RGBA, 4, 2, planes), 4,
          2, FIELD_4X2, TRUE));
  int i;

  for (i = 0; i < 8; i++) {
    guint8 want[3];
    int k;
    for (k = 0; k < 3; k++)     /* unknown: black */
      want[k] = (guint8) MAX (FIELD_4X2_RGB[i][k], 0);
    assert_pixel (out, i, want, "middlebury with meta");
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_overlay_arrows_draw_over_the_video)
{
  const int w = 32, hh = 32;
  float *uv = g_new0 (float, w * hh * 2);
  guint8 *grey = g_malloc (w * hh);
  const guint8 *planes[] = { grey };
  GstHarness *h;
  GstBuffer *out;
  guint8 p[4];
  int i;

  memset (grey, 50, w * hh);
  for (i = 0; i < w * hh; i++)
    uv[2 * i] = 4.0f;           /* everything moves right */
  h = video_harness ("GRAY8", "RGBA", w, hh,
      "mode=overlay-arrows arrow-step=16 max-flow=4 alpha=0.5");
  out = gst_harness_push_and_pull (h,
      with_flow_meta (video_buffer (GST_VIDEO_FORMAT_GRAY8, w, hh, planes), w,
          hh, uv, TRUE));
  /* anchor (8, 8), one step long: (14, 8) is on the arrow, white at 0.5
   * over grey 50 */
  pixel (out, 8 * w + 14, p);
  fail_unless (p[0] == ref_blend (255, 50, 0.5) && p[1] == p[0]
      && p[2] == p[0], "on the arrow: got %u", p[0]);
  /* (8, 12) is off it: the video itself, not dimmed */
  pixel (out, 12 * w + 8, p);
  fail_unless (p[0] == 50 && p[1] == 50 && p[2] == 50, "off: got %u", p[0]);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (uv);
  g_free (grey);
}

GST_END_TEST;

GST_START_TEST (test_flow_input_overlay_blends_over_black)
{
  GstHarness *h = viz_harness ("RGBA", 4, 2, "mode=overlay max-flow=1 "
      "alpha=0.5");
  GstBuffer *out = gst_harness_push_and_pull (h, flow_buffer (4, 2,
          FIELD_4X2));
  static const guint8 black[3] = { 0, 0, 0 };
  int i;

  for (i = 0; i < 8; i++) {
    guint8 want[3];
    ref_overlay (i, black, 0.5, want);
    assert_pixel (out, i, want, "overlay without video");
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_video_caps_give_rgb_of_the_same_size)
{
  static const guint8 y_plane[65 * 33] = { 0 };
  static const guint8 uv_plane[66 * 17] = { 0 };
  const guint8 *planes[] = { y_plane, uv_plane };
  GstHarness *h = video_harness ("NV12", "BGRx", 65, 33, NULL);
  GstBuffer *out = gst_harness_push_and_pull (h,
      video_buffer (GST_VIDEO_FORMAT_NV12, 65, 33, planes));
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad), *accepted;
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info),
      GST_VIDEO_FORMAT_BGRx);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 65);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), 33);
  gst_caps_unref (caps);
  gst_buffer_unref (out);

  /* the reverse direction: for RGB output the sink takes flow or video */
  accepted = gst_pad_peer_query_caps (h->srcpad, NULL);
  caps = gst_caps_from_string ("video/x-optical-flow, format=UV_F32LE, "
      "width=65, height=33");
  fail_unless (gst_caps_can_intersect (accepted, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("video/x-raw, format=I420, width=65, "
      "height=33");
  fail_unless (gst_caps_can_intersect (accepted, caps));
  gst_caps_unref (caps);
  gst_caps_unref (accepted);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_alpha_property_default_range_and_flags)
{
  GstElement *viz = gst_element_factory_make ("flowviz", NULL);
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (viz),
      "alpha");
  GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (spec);
  gdouble alpha;

  g_object_get (viz, "alpha", &alpha, NULL);
  fail_unless_equals_float (alpha, 0.6);
  fail_unless_equals_float (d->minimum, 0.0);
  fail_unless_equals_float (d->maximum, 1.0);
  fail_unless (spec->flags & GST_PARAM_MUTABLE_PLAYING);
  fail_unless (spec->flags & GST_PARAM_CONTROLLABLE);
  gst_util_set_object_arg (G_OBJECT (viz), "mode", "overlay-arrows");
  gst_object_unref (viz);
}

GST_END_TEST;

/* The flow stream's first buffer is a GAP-flagged zero field: grey 128 in
 * middlebury (not the white of still motion), hsv and arrows, black under
 * the overlays (no video); an ordinary picture (no GAP flag: sinks and
 * encoders show it) with the field's timestamp, one per field. The same
 * zeros without the flag are still motion: white in middlebury. */
GST_START_TEST (test_gap_field_is_neutral_not_white)
{
  static const char *modes[] = { "middlebury", "hsv", "arrows", "overlay",
    "overlay-arrows"
  };
  const int w = 20, hh = 18;
  float *zero = g_new0 (float, 2 * w * hh);
  guint m;
  int i, k;

  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    gchar *settings = g_strdup_printf ("mode=%s max-flow=4", modes[m]);
    GstHarness *h = viz_harness ("RGBA", w, hh, settings);
    const guint8 want = m < 3 ? 128 : 0;

    /* GAP, a field, GAP: three in, three out */
    for (k = 0; k < 3; k++) {
      GstBuffer *in = flow_buffer (w, hh, zero), *out;
      GST_BUFFER_PTS (in) = k * GST_SECOND / 30;
      if (k != 1)
        GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_GAP);
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
      out = gst_harness_pull (h);
      fail_unless (out != NULL);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * GST_SECOND / 30);
      if (k != 1) {
        gchar *what = g_strdup_printf ("GAP, mode=%s", modes[m]);
        const guint8 rgb[3] = { want, want, want };
        fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
        for (i = 0; i < w * hh; i++)
          assert_pixel (out, i, rgb, what);
        g_free (what);
      } else if (m == 0) {
        static const guint8 white[3] = { 255, 255, 255 };
        fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
        for (i = 0; i < w * hh; i++)
          assert_pixel (out, i, white, "still field, middlebury");
      }
      gst_buffer_unref (out);
    }
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
    gst_harness_teardown (h);
    g_free (settings);
  }
  g_free (zero);
}

GST_END_TEST;

/* A valid field at rest draws no arrow at any anchor (no dot grid), even
 * at a large scale: mode=arrows is the dimmed white of zero motion (255 x
 * 2 / 5 = 102) everywhere, overlay-arrows the video; so is a creep under
 * arrow-min (0.3 px < 0.5). */
GST_START_TEST (test_still_points_draw_no_arrows)
{
  const int w = 40, hh = 36;
  float *uv = g_new0 (float, 2 * w * hh);
  guint8 *grey = g_malloc (w * hh);
  const guint8 *planes[] = { grey };
  static const guint8 dim[3] = { 102, 102, 102 }, video[3] = { 60, 60, 60 };
  GstHarness *h;
  GstBuffer *out;
  int i, pass;

  memset (grey, 60, w * hh);
  for (pass = 0; pass < 2; pass++) {
    /* pass 1: every vector 0.3 px down, max-flow 0.3 */
    if (pass == 1)
      for (i = 0; i < w * hh; i++)
        uv[2 * i + 1] = 0.3f;
    h = viz_harness ("RGBA", w, hh, "mode=arrows arrow-step=8 "
        "arrow-scale=50 max-flow=1");
    out = gst_harness_push_and_pull (h, flow_buffer (w, hh, uv));
    for (i = 0; i < w * hh && pass == 0; i++)
      assert_pixel (out, i, dim, "still, arrows");
    for (i = 0; i < w * hh && pass == 1; i++) {
      guint8 p[4];
      pixel (out, i, p);
      fail_if (p[0] == 255 && p[1] == 255 && p[2] == 255,
          "creep: arrow pixel %d", i);
    }
    gst_buffer_unref (out);
    gst_harness_teardown (h);

    h = video_harness ("GRAY8", "RGBA", w, hh, "mode=overlay-arrows "
        "arrow-step=8 arrow-scale=50 alpha=1");
    out = gst_harness_push_and_pull (h,
        with_flow_meta (video_buffer (GST_VIDEO_FORMAT_GRAY8, w, hh, planes),
            w, hh, uv, TRUE));
    for (i = 0; i < w * hh; i++)
      assert_pixel (out, i, video, "still, overlay-arrows");
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
  g_free (uv);
  g_free (grey);
}

GST_END_TEST;

/* Everything moves 2 px right; anchors every 16 px from (8, 8). With
 * arrow-scale=3 the arrow of (8, 8) ends at (14, 8); arrow-thickness=1
 * keeps it on its row (within 0.5 px), 4 widens it to rows 6 .. 10;
 * arrow-color paints it. All three change while playing. */
GST_START_TEST (test_arrow_colour_thickness_and_scale)
{
  const int w = 32, hh = 32;
  float *uv = g_new0 (float, 2 * w * hh);
  GstHarness *h;
  GstBuffer *out;
  guint8 p[4];
  int i;

  for (i = 0; i < w * hh; i++)
    uv[2 * i] = 2.0f;
  h = viz_harness ("RGBA", w, hh, "mode=arrows max-flow=4 arrow-scale=3 "
      "arrow-thickness=1 arrow-color=0x3366cc");
  out = gst_harness_push_and_pull (h, flow_buffer (w, hh, uv));
  pixel (out, 8 * w + 14, p);
  fail_unless (p[0] == 0x33 && p[1] == 0x66 && p[2] == 0xcc,
      "tip: got (%u,%u,%u)", p[0], p[1], p[2]);
  /* past the tip (15.5 is the round end): the dimmed colour of 2/4 of
   * max-flow to the right, (255, 127, 127) x 2 / 5 */
  pixel (out, 8 * w + 16, p);
  fail_unless (p[0] == 102 && p[1] == 50 && p[2] == 50, "past the tip: "
      "got (%u,%u,%u)", p[0], p[1], p[2]);
  pixel (out, 10 * w + 10, p);
  fail_unless (p[0] == 102 && p[1] == 50, "off the 1 px shaft");
  gst_buffer_unref (out);

  /* while playing: wider, longer (2 x 6 = 12 px, to (20, 8)), red */
  g_object_set (h->element, "arrow-thickness", 4.0, "arrow-scale", 6.0,
      "arrow-color", 0xff0000, NULL);
  out = gst_harness_push_and_pull (h, flow_buffer (w, hh, uv));
  pixel (out, 10 * w + 10, p);
  fail_unless (p[0] == 255 && p[1] == 0 && p[2] == 0, "on the 4 px shaft: "
      "got (%u,%u,%u)", p[0], p[1], p[2]);
  pixel (out, 11 * w + 10, p);
  fail_unless (p[0] == 102 && p[1] == 50, "beside the 4 px shaft");
  pixel (out, 8 * w + 20, p);
  fail_unless (p[0] == 255 && p[1] == 0 && p[2] == 0, "longer arrow");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (uv);
}

GST_END_TEST;

static void
assert_double_property (GstElement * e, const gchar * name, gdouble def,
    gdouble min, gdouble max)
{
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      name);
  GParamSpecDouble *d;
  gdouble value;

  fail_unless (spec != NULL, "no property %s", name);
  d = G_PARAM_SPEC_DOUBLE (spec);
  g_object_get (e, name, &value, NULL);
  fail_unless (value == def, "%s: default %g", name, value);
  fail_unless (d->minimum == min && d->maximum == max, "%s: range %g..%g",
      name, d->minimum, d->maximum);
  fail_unless (spec->flags & GST_PARAM_MUTABLE_PLAYING, "%s", name);
  fail_unless (spec->flags & GST_PARAM_CONTROLLABLE, "%s", name);
}

GST_START_TEST (test_arrow_properties_defaults_ranges_and_flags)
{
  GstElement *viz = gst_element_factory_make ("flowviz", NULL);
  GParamSpec *spec;
  GParamSpecUInt *u;
  guint color;

  assert_double_property (viz, "arrow-scale", 4.0, 0.0, 1000.0);
  assert_double_property (viz, "arrow-min", 0.5, 0.0, 1e6);
  assert_double_property (viz, "arrow-thickness", 2.0, 0.5, 16.0);

  spec = g_object_class_find_property (G_OBJECT_GET_CLASS (viz),
      "arrow-color");
  fail_unless (spec != NULL);
  u = G_PARAM_SPEC_UINT (spec);
  g_object_get (viz, "arrow-color", &color, NULL);
  fail_unless_equals_int (color, 0xffffff);
  fail_unless_equals_int (u->minimum, 0);
  fail_unless_equals_int (u->maximum, 0xffffff);
  fail_unless (spec->flags & GST_PARAM_MUTABLE_PLAYING);
  /* a packed colour does not interpolate: not controllable */
  fail_if (spec->flags & GST_PARAM_CONTROLLABLE);
  gst_util_set_object_arg (G_OBJECT (viz), "arrow-color", "0x00ff80");
  g_object_get (viz, "arrow-color", &color, NULL);
  fail_unless_equals_int (color, 0x00ff80);
  gst_object_unref (viz);
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
  tcase_add_test (tc, test_overlay_blends_colour_coding_over_rgba);
  tcase_add_test (tc, test_overlay_blends_colour_coding_over_nv12);
  tcase_add_test (tc, test_no_usable_meta_is_grey_or_the_plain_video);
  tcase_add_test (tc, test_gap_field_is_neutral_not_white);
  tcase_add_test (tc, test_still_points_draw_no_arrows);
  tcase_add_test (tc, test_arrow_colour_thickness_and_scale);
  tcase_add_test (tc, test_arrow_properties_defaults_ranges_and_flags);
  tcase_add_test (tc, test_grey_inputs_are_replicated);
  tcase_add_test (tc, test_alpha_zero_is_the_video_one_colours_by_motion);
  tcase_add_test (tc, test_overlay_at_rest_is_the_plain_video_at_alpha_one);
  tcase_add_test (tc, test_overlay_at_max_flow_gets_the_full_alpha);
  tcase_add_test (tc, test_flow_modes_with_meta_draw_the_flow_alone);
  tcase_add_test (tc, test_overlay_arrows_draw_over_the_video);
  tcase_add_test (tc, test_flow_input_overlay_blends_over_black);
  tcase_add_test (tc, test_video_caps_give_rgb_of_the_same_size);
  tcase_add_test (tc, test_alpha_property_default_range_and_flags);
  return s;
}

GST_CHECK_MAIN (elements_flowviz);
