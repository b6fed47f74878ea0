/* gst-cudaflow — common/flowviz.c: the Middlebury colour coding, the
 * video -> RGB conversion and the overlays
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Conversions are checked against values worked out by hand and against
 * the exact Rec.601 matrix in double precision (within one level: the
 * code uses the 8-bit integer form of the matrix). Arrow pixels are
 * worked out by hand from the documented geometry: the arrow is the
 * anchor's vector times the scale, strokes within half the thickness of
 * shaft or head (round ends), heads a third of the arrow but at least 2
 * thickness + 1 and at most half of it, at +-30 degrees.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstcheck.h>

#include "common/flowviz.h"

GST_START_TEST (test_wheel_has_the_middlebury_segments)
{
  uint8_t wheel[CF_FLOWVIZ_NCOLS][3];

  cf_flowviz_wheel (wheel);
  /* segment starts: red, yellow, green, cyan, blue, magenta */
  fail_unless (wheel[0][0] == 255 && wheel[0][1] == 0 && wheel[0][2] == 0);
  fail_unless (wheel[15][0] == 255 && wheel[15][1] == 255
      && wheel[15][2] == 0);
  fail_unless (wheel[21][0] == 0 && wheel[21][1] == 255 && wheel[21][2] == 0);
  fail_unless (wheel[25][0] == 0 && wheel[25][1] == 255
      && wheel[25][2] == 255);
  fail_unless (wheel[36][0] == 0 && wheel[36][1] == 0 && wheel[36][2] == 255);
  fail_unless (wheel[49][0] == 255 && wheel[49][1] == 0
      && wheel[49][2] == 255);
  /* integer division inside a segment: RY entry 7 = 255*7/15 = 119 */
  fail_unless_equals_int (wheel[7][1], 119);
  /* last entry: MR 5 = 255 - 255*5/6 = 43 */
  fail_unless_equals_int (wheel[54][2], 43);
}

GST_END_TEST;

GST_START_TEST (test_max_magnitude_ignores_unknown)
{
  const float uv[] = { 3, 4, 1e10f, 0, NAN, 1, -6, 8 };

  fail_unless_equals_float (cf_flowviz_max_magnitude (uv, 4 * sizeof (float),
          2, 2), 10.0f);
  fail_unless_equals_float (cf_flowviz_max_magnitude (uv + 2,
          2 * sizeof (float), 1, 1), 0.0f);
}

GST_END_TEST;

GST_START_TEST (test_render_writes_every_pixel_and_alpha)
{
  const float uv[] = { 0, 0, 1, 0, 1e10f, 1e10f };
  cf_flowviz_params p = { CF_FLOWVIZ_MIDDLEBURY, 16, 2, 1, 0, 3, 0.0f, 0.0f,
    0.0f, 0.0f, 0
  };
  uint8_t out[12];

  memset (out, 0x55, sizeof (out));
  fail_unless_equals_int (cf_flowviz_render (uv, sizeof (uv), 3, 1, &p, 0.0f,
          out, sizeof (out)), CF_OK);
  /* BGRA: zero flow white, unit vector red (R at byte 2), unknown black */
  fail_unless (out[0] == 255 && out[1] == 255 && out[2] == 255);
  fail_unless (out[4] == 0 && out[5] == 0 && out[6] == 255);
  fail_unless (out[8] == 0 && out[9] == 0 && out[10] == 0);
  fail_unless (out[3] == 255 && out[7] == 255 && out[11] == 255);
  /* bad parameters */
  p.arrow_step = 1;
  fail_unless_equals_int (cf_flowviz_render (uv, sizeof (uv), 3, 1, &p, 0.0f,
          out, sizeof (out)), CF_ERROR_INVALID);
}

GST_END_TEST;

GST_START_TEST (test_opposite_directions_have_opposite_hues)
{
  uint8_t a[3], b[3];

  /* right is red; left is the wheel's middle, a cyan-blue (no red) */
  cf_flowviz_middlebury_rgb (1.0f, 0.0f, a);
  cf_flowviz_middlebury_rgb (-1.0f, 0.0f, b);
  fail_unless (a[0] == 255 && b[0] == 0);
  /* saturation grows with the magnitude: half way is paler */
  cf_flowviz_middlebury_rgb (0.5f, 0.0f, b);
  fail_unless (b[0] == 255 && b[1] > 100 && b[1] == b[2]);
}

GST_END_TEST;

/* RGBA output parameters for @mode; arrows relative to max-flow (a
 * vector of max-flow one step long), 1 px wide, white, none under 0.5 px
 * of motion */
static cf_flowviz_params
rgba_params (cf_flowviz_mode mode, float alpha)
{
  cf_flowviz_params p = { mode, 16, 0, 1, 2, 3, alpha, 0.0f, 0.5f, 1.0f,
    0xffffff
  };
  return p;
}

static cf_flowviz_video
plane_video (cf_flowviz_video_format format, const uint8_t * p0,
    size_t s0, const uint8_t * p1, size_t s1, const uint8_t * p2, size_t s2)
{
  cf_flowviz_video v;

  memset (&v, 0, sizeof (v));
  v.format = format;
  v.data[0] = p0;
  v.data[1] = p1;
  v.data[2] = p2;
  v.stride[0] = s0;
  v.stride[1] = s1;
  v.stride[2] = s2;
  return v;
}

static void
assert_rgb (const uint8_t * out, int i, int r, int g, int b, const char *what)
{
  const uint8_t *p = out + 4 * i;

  fail_unless (p[0] == r && p[1] == g && p[2] == b && p[3] == 255,
      "%s: pixel %d: got (%u,%u,%u,%u), want (%d,%d,%d,255)", what, i, p[0],
      p[1], p[2], p[3], r, g, b);
}

GST_START_TEST (test_video_formats_convert_to_rgb)
{
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_OVERLAY, 0.6f);
  uint8_t out[4 * 9];
  cf_flowviz_video v;

  /* GRAY8, rows of 4 bytes (one padding byte) */
  {
    static const uint8_t g8[] = { 0, 77, 255, 9, 1, 2, 3, 9 };
    v = plane_video (CF_FLOWVIZ_VIDEO_GRAY8, g8, 4, NULL, 0, NULL, 0);
    fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 3, 2, &p,
            0.0f, out, 12), CF_OK);
    assert_rgb (out, 0, 0, 0, 0, "GRAY8");
    assert_rgb (out, 1, 77, 77, 77, "GRAY8");
    assert_rgb (out, 2, 255, 255, 255, "GRAY8");
    assert_rgb (out, 5, 3, 3, 3, "GRAY8 row 1");
  }
  /* GRAY16_LE over the full range, rounded: 0x8000 -> 127.50 -> 128,
   * 0x00ff -> 0.99 -> 1 (its high byte would say 0) */
  {
    static const uint8_t g16[] = { 0, 0, 0x00, 0x80, 0xff, 0xff, 0xff, 0 };
    v = plane_video (CF_FLOWVIZ_VIDEO_GRAY16_LE, g16, 8, NULL, 0, NULL, 0);
    fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 4, 1, &p,
            0.0f, out, 16), CF_OK);
    assert_rgb (out, 0, 0, 0, 0, "GRAY16");
    assert_rgb (out, 1, 128, 128, 128, "GRAY16");
    assert_rgb (out, 2, 255, 255, 255, "GRAY16");
    assert_rgb (out, 3, 1, 1, 1, "GRAY16");
  }
  /* NV12 3 x 3: chroma 2 x 2, each pixel takes its block's sample:
   * Rec.601 red (Cb 90, Cr 240) and neutral on the first chroma row, blue
   * (Cb 240, Cr 110) and neutral on the second. Y 81 with red chroma is
   * (255, 0, 0); 16 neutral black, 235 white, 126 grey: (298 * 110 + 128)
   * >> 8 = 128. Y 41 with blue chroma: R = (298 * 25 - 409 * 18 + 128) >> 8
   * < 0 -> 0, G = (7450 - 11200 + 3744 + 128) >> 8 = 0, B = (7450 + 57792
   * + 128) >> 8 = 255. */
  {
    static const uint8_t y[] = { 81, 81, 16, 81, 81, 126, 41, 41, 235 };
    static const uint8_t uv[] = { 90, 240, 128, 128, 240, 110, 128, 128 };
    static const int want[9][3] = { {255, 0, 0}, {255, 0, 0}, {0, 0, 0},
    {255, 0, 0}, {255, 0, 0}, {128, 128, 128}, {0, 0, 255}, {0, 0, 255},
    {255, 255, 255}
    };
    int i;
    v = plane_video (CF_FLOWVIZ_VIDEO_NV12, y, 3, uv, 4, NULL, 0);
    fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 3, 3, &p,
            0.0f, out, 12), CF_OK);
    for (i = 0; i < 9; i++)
      assert_rgb (out, i, want[i][0], want[i][1], want[i][2], "NV12");
    /* the same frame as I420 */
    {
      static const uint8_t u[] = { 90, 128, 240, 128 };
      static const uint8_t w[] = { 240, 128, 110, 128 };
      uint8_t out2[4 * 9];
      v = plane_video (CF_FLOWVIZ_VIDEO_I420, y, 3, u, 2, w, 2);
      fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 3, 3, &p,
              0.0f, out2, 12), CF_OK);
      fail_unless (memcmp (out, out2, sizeof (out)) == 0);
    }
  }
  /* BGRx in: reordered into RGBA */
  {
    static const uint8_t bgrx[] = { 30, 20, 10, 0, 3, 2, 1, 0 };
    v = plane_video (CF_FLOWVIZ_VIDEO_RGB32, bgrx, 8, NULL, 0, NULL, 0);
    v.r = 2;
    v.g = 1;
    v.b = 0;
    fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 1, &p,
            0.0f, out, 8), CF_OK);
    assert_rgb (out, 0, 10, 20, 30, "BGRx");
    assert_rgb (out, 1, 1, 2, 3, "BGRx");
  }
}

GST_END_TEST;

/* Exact Rec.601 limited range -> full range, rounded and clamped. */
static int
exact_601 (int y, int cb, int cr, int channel)
{
  double ys = (y - 16) * 255.0 / 219.0, pb = (cb - 128) * 255.0 / 224.0;
  double pr = (cr - 128) * 255.0 / 224.0, v;

  if (channel == 0)
    v = ys + 1.402 * pr;
  else if (channel == 1)
    v = ys - 0.344136 * pb - 0.714136 * pr;
  else
    v = ys + 1.772 * pb;
  v = floor (v + 0.5);
  return v < 0 ? 0 : v > 255 ? 255 : (int) v;
}

GST_START_TEST (test_yuv_within_one_level_of_the_exact_matrix)
{
  /* no flow: an overlay shows the converted video alone */
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_OVERLAY, 0.0f);
  int y, cb, cr, c, worst = 0;

  /* every third code of the legal ranges, plus their ends */
  for (y = 16; y <= 235; y += (y == 234 ? 1 : 3))
    for (cb = 16; cb <= 240; cb += (cb == 238 ? 2 : 3))
      for (cr = 16; cr <= 240; cr += (cr == 238 ? 2 : 3)) {
        uint8_t py = (uint8_t) y, pu = (uint8_t) cb, pv = (uint8_t) cr;
        uint8_t out[4];
        cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_I420, &py, 1,
            &pu, 1, &pv, 1);
        fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 1, 1,
                &p, 0.0f, out, 4), CF_OK);
        for (c = 0; c < 3; c++) {
          int d = abs ((int) out[c] - exact_601 (y, cb, cr, c));
          fail_unless (d <= 1, "Y %d Cb %d Cr %d channel %d: %u vs %d", y,
              cb, cr, c, out[c], exact_601 (y, cb, cr, c));
          worst = MAX (worst, d);
        }
      }
  GST_INFO ("largest difference from the exact matrix: %d", worst);
}

GST_END_TEST;

/* 3 x 1 field at max-flow 1: zero (white), right (red), unknown */
static const float FIELD[] = { 0, 0, 1, 0, NAN, 0 };
static const uint8_t RGBA_VIDEO[] = { 10, 20, 30, 0, 200, 100, 50, 0,
  7, 8, 9, 0
};

/* The overlay weight as documented, worked out here in double: opacity
 * W = round (256 alpha) steps of 1/256, then W min (1, r) rounded half up,
 * r the vector's length over max-flow. The code rounds a float product;
 * the data below keep W r clear of the half-integers, where the two could
 * disagree (checked). */
static int
ref_weight (double alpha, double u, double v, double max_flow)
{
  int w = alpha <= 0.0 ? 0 : alpha >= 1.0 ? 256 :
      (int) floor (alpha * 256.0 + 0.5);
  double r = sqrt ((u / max_flow) * (u / max_flow) +
      (v / max_flow) * (v / max_flow));
  double t = w * MIN (1.0, r);

  fail_unless (fabs (t - floor (t) - 0.5) > 1e-3,
      "test data on a rounding tie: %g", t);
  return (int) floor (t + 0.5);
}

/* (w over + (256 - w) under) / 256, rounded half up */
static int
ref_mix (int over, int under, int w)
{
  return (w * over + (256 - w) * under + 128) / 256;
}

/* 6 x 1 field at max-flow 1 along +x, whose colours are worked out by
 * hand from colorcode.cpp (hue 0 is red; G and B = 1 - r below max-flow,
 * 255 x col truncated; beyond it red x 0.75): rest (white), max-flow
 * (red), unknown, half (0.5 -> 127), 3/8 (0.625 -> 159), 3 x max-flow
 * (191, 0, 0). */
static const float OV_FIELD[] = { 0, 0, 1, 0, NAN, 0, 0.5f, 0, 0.375f, 0,
  3, 0
};

static const int OV_RGB[6][3] = { {255, 255, 255}, {255, 0, 0},
{-1, -1, -1}, {255, 127, 127}, {255, 159, 159}, {191, 0, 0}
};

static const uint8_t OV_VIDEO[] = { 10, 20, 30, 0, 200, 100, 50, 0,
  7, 8, 9, 0, 40, 80, 120, 0, 90, 60, 30, 0, 0, 128, 255, 0
};

/* Pixel i of OV_FIELD (scaled by @scale, drawn at max-flow @scale) with
 * opacity @alpha over @video (NULL: black), from the formulas above. */
static void
assert_ov_pixel (const uint8_t * out, int i, const uint8_t * video,
    double alpha, double scale, const char *what)
{
  int under[3] = { 0, 0, 0 }, want[3], k;

  for (k = 0; k < 3 && video != NULL; k++)
    under[k] = video[4 * i + k];
  for (k = 0; k < 3; k++)
    want[k] = under[k];
  if (OV_RGB[i][0] >= 0) {
    int w = ref_weight (alpha, scale * OV_FIELD[2 * i],
        scale * OV_FIELD[2 * i + 1], scale);
    for (k = 0; k < 3; k++)
      want[k] = ref_mix (OV_RGB[i][k], under[k], w);
  }
  assert_rgb (out, i, want[0], want[1], want[2], what);
}

GST_START_TEST (test_overlay_blend_weights)
{
  static const float alphas[] = { 0.0f, 0.5f, 0.6f, 1.0f };
  cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_RGB32, OV_VIDEO, 24,
      NULL, 0, NULL, 0);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_OVERLAY, 0.0f);
  uint8_t out[24];
  float field4[12];
  guint a;
  int i;

  v.r = 0;
  v.g = 1;
  v.b = 2;
  for (i = 0; i < 12; i++)
    field4[i] = 4.0f * OV_FIELD[i];

  /* the reference itself, by hand: alpha 0.6 is W = 154; half of max-flow
   * W 77, 3/8 of it 57.75 -> 58; beyond max-flow all of W */
  fail_unless_equals_int (ref_weight (0.6, 0.5, 0, 1), 77);
  fail_unless_equals_int (ref_weight (0.6, 0.375, 0, 1), 58);
  fail_unless_equals_int (ref_weight (0.6, 3, 0, 1), 154);
  fail_unless_equals_int (ref_weight (0.6, 0, 0, 1), 0);

  for (a = 0; a < G_N_ELEMENTS (alphas); a++) {
    gchar *what = g_strdup_printf ("alpha %g", alphas[a]);
    p.alpha = alphas[a];
    fail_unless_equals_int (cf_flowviz_render_video (&v, OV_FIELD, 48, 6, 1,
            &p, 1.0f, out, 24), CF_OK);
    for (i = 0; i < 6; i++)
      assert_ov_pixel (out, i, OV_VIDEO, alphas[a], 1.0, what);
    /* the same motion relative to max-flow 4 */
    fail_unless_equals_int (cf_flowviz_render_video (&v, field4, 48, 6, 1,
            &p, 4.0f, out, 24), CF_OK);
    for (i = 0; i < 6; i++)
      assert_ov_pixel (out, i, OV_VIDEO, alphas[a], 4.0, what);
    /* the ends: at rest and unknown the video, at and beyond max-flow the
     * colour with the full opacity (at 1 the colour itself) */
    assert_rgb (out, 0, 10, 20, 30, what);
    assert_rgb (out, 2, 7, 8, 9, what);
    if (alphas[a] == 1.0f) {
      assert_rgb (out, 1, 255, 0, 0, what);
      assert_rgb (out, 5, 191, 0, 0, what);
    }
    g_free (what);
  }

  /* a few by hand. alpha 0.5 (W 128), (0.5, 0) over (40, 80, 120) at
   * weight 64: (64 * 255 + 192 * 40 + 128) >> 8 = 94, (64 * 127 + 192 * 80
   * + 128) >> 8 = 92, (64 * 127 + 192 * 120 + 128) >> 8 = 122; red at
   * max-flow over (200, 100, 50) at 128: (228, 50, 25) */
  p.alpha = 0.5f;
  fail_unless_equals_int (cf_flowviz_render_video (&v, OV_FIELD, 48, 6, 1,
          &p, 1.0f, out, 24), CF_OK);
  assert_rgb (out, 3, 94, 92, 122, "alpha 0.5 half max-flow");
  assert_rgb (out, 1, 228, 50, 25, "alpha 0.5 at max-flow");
  /* alpha 0.6, (0.375, 0) over (90, 60, 30) at weight 58: (58 * 255 + 198
   * * 90 + 128) >> 8 = 127, (58 * 159 + 198 * 60 + 128) >> 8 = 82,
   * (58 * 159 + 198 * 30 + 128) >> 8 = 59 */
  p.alpha = 0.6f;
  fail_unless_equals_int (cf_flowviz_render_video (&v, OV_FIELD, 48, 6, 1,
          &p, 1.0f, out, 24), CF_OK);
  assert_rgb (out, 4, 127, 82, 59, "alpha 0.6 3/8 max-flow");

  /* no video: over black, where rest stays black */
  p.alpha = 0.5f;
  fail_unless_equals_int (cf_flowviz_render_video (NULL, OV_FIELD, 48, 6, 1,
          &p, 1.0f, out, 24), CF_OK);
  for (i = 0; i < 6; i++)
    assert_ov_pixel (out, i, NULL, 0.5, 1.0, "over black");
  assert_rgb (out, 0, 0, 0, 0, "over black at rest");
  assert_rgb (out, 1, 128, 0, 0, "over black at max-flow");
  /* cf_flowviz_render is the same without video */
  {
    uint8_t out2[24];
    fail_unless_equals_int (cf_flowviz_render (OV_FIELD, 48, 6, 1, &p, 1.0f,
            out2, 24), CF_OK);
    fail_unless (memcmp (out, out2, sizeof (out)) == 0);
  }
}

GST_END_TEST;

/* At rest the overlay is the video to the bit, even at alpha 1 (it used to
 * be whitened by alpha: Middlebury's zero is white), over every grey level
 * and over RGBA, with a fixed and an automatic max-flow; motion under half
 * a 1/256 step of opacity (256 r < 1/2) too. */
GST_START_TEST (test_overlay_at_rest_is_the_plain_video)
{
  const int w = 256, h = 2;
  float *uv = g_new0 (float, 2 * w * h);
  uint8_t *grey = g_malloc (w * h), *out = g_malloc (4 * w * h);
  cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_GRAY8, grey, w, NULL, 0,
      NULL, 0);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_OVERLAY, 1.0f);
  int i;

  for (i = 0; i < w * h; i++)
    grey[i] = (uint8_t) (i % 256);
  /* one moving pixel sets the automatic max-flow to 2; one creeps by
   * 1/1000 of it */
  uv[2 * (w + 5)] = 2.0f;
  uv[2 * (w + 9) + 1] = 0.002f;
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          2.0f, out, 4 * w), CF_OK);
  for (i = 0; i < w * h; i++)
    if (i != w + 5)
      assert_rgb (out, i, grey[i], grey[i], grey[i], "at rest, max-flow 2");
  /* the moving one is the colour itself (red) */
  assert_rgb (out, w + 5, 255, 0, 0, "at max-flow");
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          0.0f, out, 4 * w), CF_OK);
  for (i = 0; i < w * h; i++)
    if (i != w + 5)
      assert_rgb (out, i, grey[i], grey[i], grey[i], "at rest, automatic");

  /* an all-still frame (automatic max-flow falls back to 1) over RGBA */
  {
    cf_flowviz_video rgba = plane_video (CF_FLOWVIZ_VIDEO_RGB32, OV_VIDEO,
        24, NULL, 0, NULL, 0);
    float still[12] = { 0 };
    rgba.r = 0;
    rgba.g = 1;
    rgba.b = 2;
    fail_unless_equals_int (cf_flowviz_render_video (&rgba, still, 48, 6, 1,
            &p, 0.0f, out, 24), CF_OK);
    for (i = 0; i < 6; i++)
      assert_rgb (out, i, OV_VIDEO[4 * i], OV_VIDEO[4 * i + 1],
          OV_VIDEO[4 * i + 2], "all still");
  }
  g_free (uv);
  g_free (grey);
  g_free (out);
}

GST_END_TEST;

/* At and beyond max-flow the weight is the full alpha in every direction:
 * at alpha 1 the overlay is the colour coding itself, byte for byte the
 * picture mode=middlebury draws of the same field. Lengths of 1, 1.5 and
 * 4 max-flows at 64 angles. */
GST_START_TEST (test_overlay_at_max_flow_gets_the_full_alpha)
{
  static const float lengths[] = { 1.0f, 1.5f, 4.0f };
  const int w = 64, h = (int) G_N_ELEMENTS (lengths);
  float *uv = g_new (float, 2 * w * h);
  uint8_t *grey = g_malloc (w * h), *a = g_malloc (4 * w * h),
      *b = g_malloc (4 * w * h);
  cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_GRAY8, grey, w, NULL, 0,
      NULL, 0);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_OVERLAY, 1.0f);
  int x, y;

  memset (grey, 77, w * h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double ang = 2.0 * G_PI * x / w;
      uv[2 * (y * w + x)] = (float) (3.0 * lengths[y] * cos (ang));
      uv[2 * (y * w + x) + 1] = (float) (3.0 * lengths[y] * sin (ang));
    }
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          3.0f, a, 4 * w), CF_OK);
  p.mode = CF_FLOWVIZ_MIDDLEBURY;
  fail_unless_equals_int (cf_flowviz_render (uv, 8 * w, w, h, &p, 3.0f, b,
          4 * w), CF_OK);
  for (x = 0; x < w * h; x++)
    assert_rgb (a, x, b[4 * x], b[4 * x + 1], b[4 * x + 2],
        "at alpha 1 beyond max-flow");
  g_free (uv);
  g_free (grey);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

GST_START_TEST (test_flow_modes_ignore_the_video_and_no_flow_is_neutral)
{
  static const cf_flowviz_mode modes[] = { CF_FLOWVIZ_MIDDLEBURY,
    CF_FLOWVIZ_HSV, CF_FLOWVIZ_ARROWS, CF_FLOWVIZ_OVERLAY,
    CF_FLOWVIZ_OVERLAY_ARROWS
  };
  cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_RGB32, RGBA_VIDEO, 12,
      NULL, 0, NULL, 0);
  guint m;

  v.r = 0;
  v.g = 1;
  v.b = 2;
  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    cf_flowviz_params p = rgba_params (modes[m], 0.7f);
    uint8_t a[12], b[12];

    p.arrow_step = 2;
    if (modes[m] < CF_FLOWVIZ_OVERLAY) {
      fail_unless_equals_int (cf_flowviz_render_video (&v, FIELD, 24, 3, 1,
              &p, 0.0f, a, 12), CF_OK);
      fail_unless_equals_int (cf_flowviz_render (FIELD, 24, 3, 1, &p, 0.0f,
              b, 12), CF_OK);
      fail_unless (memcmp (a, b, sizeof (a)) == 0, "mode %d", modes[m]);
    }
    /* no flow: the video in the overlays, neutral grey in the others */
    fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 3, 1, &p,
            0.0f, a, 12), CF_OK);
    if (modes[m] < CF_FLOWVIZ_OVERLAY) {
      assert_rgb (a, 0, 128, 128, 128, "no flow");
      assert_rgb (a, 1, 128, 128, 128, "no flow");
    } else {
      assert_rgb (a, 0, 10, 20, 30, "no flow");
      assert_rgb (a, 1, 200, 100, 50, "no flow");
    }
    /* neither: black under the overlays, grey in the others */
    fail_unless_equals_int (cf_flowviz_render_video (NULL, NULL, 0, 3, 1, &p,
            0.0f, a, 12), CF_OK);
    if (modes[m] < CF_FLOWVIZ_OVERLAY)
      assert_rgb (a, 1, 128, 128, 128, "nothing");
    else
      assert_rgb (a, 1, 0, 0, 0, "nothing");
  }
}

GST_END_TEST;

GST_START_TEST (test_overlay_arrows_keep_the_video_off_the_arrows)
{
  const int w = 32, h = 32;
  float *uv = g_new0 (float, w * h * 2);
  uint8_t *grey = g_malloc (w * h), *out = g_malloc (4 * w * h);
  cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_GRAY8, grey, w, NULL, 0,
      NULL, 0);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_OVERLAY_ARROWS, 1.0f);
  int i, white = 0, grey_px = 0;

  memset (grey, 90, w * h);
  for (i = 0; i < w * h; i++)
    uv[2 * i + 1] = -4.0f;      /* everything moves up */
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          4.0f, out, 4 * w), CF_OK);
  /* anchor (8, 8) points up one step: (8, 2) is on the shaft */
  assert_rgb (out, 2 * w + 8, 255, 255, 255, "on the arrow");
  /* (12, 8) is beside it: the grey video, undimmed */
  assert_rgb (out, 8 * w + 12, 90, 90, 90, "off the arrow");
  for (i = 0; i < w * h; i++) {
    white += out[4 * i] == 255;
    grey_px += out[4 * i] == 90;
  }
  fail_unless_equals_int (white + grey_px, w * h);
  fail_unless (white > 0 && grey_px > white);
  g_free (uv);
  g_free (grey);
  g_free (out);
}

GST_END_TEST;

GST_START_TEST (test_render_video_rejects_bad_arguments)
{
  static const uint8_t px[16] = { 0 };
  cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_NV12, px, 4, NULL, 4,
      NULL, 0);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_OVERLAY, 0.5f);
  uint8_t out[16];

  /* NV12 without its chroma plane */
  fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 2, &p,
          0.0f, out, 8), CF_ERROR_INVALID);
  v.data[1] = px;
  fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 2, &p,
          0.0f, out, 8), CF_OK);
  v.format = (cf_flowviz_video_format) CF_FLOWVIZ_VIDEO_FORMAT_COUNT;
  fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 2, &p,
          0.0f, out, 8), CF_ERROR_INVALID);
  v.format = CF_FLOWVIZ_VIDEO_RGB32;
  v.r = 4;
  fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 2, &p,
          0.0f, out, 8), CF_ERROR_INVALID);
  v.r = 0;
  /* opacity outside 0..1 in an overlay mode; ignored in the others */
  p.alpha = 1.5f;
  fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 2, &p,
          0.0f, out, 8), CF_ERROR_INVALID);
  p.alpha = NAN;
  fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 2, &p,
          0.0f, out, 8), CF_ERROR_INVALID);
  p.mode = CF_FLOWVIZ_HSV;
  fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 2, &p,
          0.0f, out, 8), CF_OK);
  p.mode = (cf_flowviz_mode) (CF_FLOWVIZ_OVERLAY_ARROWS + 1);
  fail_unless_equals_int (cf_flowviz_render_video (&v, NULL, 0, 2, 2, &p,
          0.0f, out, 8), CF_ERROR_INVALID);
}

GST_END_TEST;

/* A frame without a field in middlebury (whose zero is white), hsv and
 * arrows is uniform grey 128, alpha opaque: not white, not black. */
GST_START_TEST (test_no_field_is_mid_grey_not_white)
{
  static const cf_flowviz_mode modes[] = { CF_FLOWVIZ_MIDDLEBURY,
    CF_FLOWVIZ_HSV, CF_FLOWVIZ_ARROWS
  };
  const int w = 7, h = 5;
  uint8_t out[4 * 7 * 5];
  guint m;
  int i;

  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    cf_flowviz_params p = rgba_params (modes[m], 0.0f);
    memset (out, 0x11, sizeof (out));
    fail_unless_equals_int (cf_flowviz_render_video (NULL, NULL, 0, w, h, &p,
            0.0f, out, 4 * w), CF_OK);
    for (i = 0; i < w * h; i++)
      assert_rgb (out, i, 128, 128, 128, "no field");
  }
}

GST_END_TEST;

/* The neutral grey cannot be mistaken for flow: inside max-flow one wheel
 * channel is 255 (the wheel's entries each have a full channel, and the
 * blend towards white keeps it), beyond it one is 0 (times 0.75); HSV has
 * full saturation. Swept over 360 directions and lengths 0 .. 3 max-flow. */
GST_START_TEST (test_neutral_grey_is_no_flow_colour)
{
  int a, r;

  for (a = 0; a < 360; a++)
    for (r = 0; r <= 30; r++) {
      double ang = a * G_PI / 180.0, len = r / 10.0;
      float fx = (float) (len * cos (ang)), fy = (float) (len * sin (ang));
      uint8_t mb[3], hsv[3];
      cf_flowviz_middlebury_rgb (fx, fy, mb);
      cf_flowviz_hsv_rgb (fx, fy, hsv);
      fail_if (mb[0] == 128 && mb[1] == 128 && mb[2] == 128,
          "middlebury grey at %d deg, %g", a, len);
      fail_if (hsv[0] == 128 && hsv[1] == 128 && hsv[2] == 128,
          "hsv grey at %d deg, %g", a, len);
    }
}

GST_END_TEST;

/* A @w x @h field at rest except the anchor (ax, ay), which moves (u, v). */
static float *
one_anchor_field (int w, int h, int ax, int ay, float u, float v)
{
  float *uv = g_new0 (float, 2 * w * h);

  uv[2 * (ay * w + ax)] = u;
  uv[2 * (ay * w + ax) + 1] = v;
  return uv;
}

/* 1 when pixel (x, y) of an RGBA render is exactly @rgb */
static gboolean
is_rgb (const uint8_t * out, int w, int x, int y, const uint8_t rgb[3])
{
  const uint8_t *p = out + 4 * (y * w + x);
  return p[0] == rgb[0] && p[1] == rgb[1] && p[2] == rgb[2];
}

static const uint8_t WHITE[3] = { 255, 255, 255 };

/* Still anchors draw nothing, however large the scale: mode=arrows is the
 * dimmed wheel alone (white at rest, 255 x 2/5 = 102), overlay-arrows the
 * video alone. So do vectors under arrow-min, and arrows that would be
 * shorter than one pixel. */
GST_START_TEST (test_still_anchors_draw_no_arrow)
{
  const int w = 64, h = 48;
  float *uv = g_new0 (float, 2 * w * h);
  uint8_t *grey = g_malloc (w * h), *out = g_malloc (4 * w * h);
  cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_GRAY8, grey, w, NULL, 0,
      NULL, 0);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_ARROWS, 1.0f);
  int i, x, y, on;

  memset (grey, 90, w * h);
  p.arrow_scale = 100.0f;
  p.arrow_thickness = 3.0f;
  p.arrow_step = 8;
  /* all still: an automatic max-flow of 1 */
  fail_unless_equals_int (cf_flowviz_render (uv, 8 * w, w, h, &p, 0.0f, out,
          4 * w), CF_OK);
  for (i = 0; i < w * h; i++)
    assert_rgb (out, i, 102, 102, 102, "still, arrows");
  p.mode = CF_FLOWVIZ_OVERLAY_ARROWS;
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          0.0f, out, 4 * w), CF_OK);
  for (i = 0; i < w * h; i++)
    assert_rgb (out, i, 90, 90, 90, "still, overlay-arrows");

  /* every vector 0.4 px right: under the default arrow-min of 0.5 none,
   * with 0.3 each anchor draws (here 0.4 x 100 = 40 -> 12 px, 1.5 steps) */
  for (i = 0; i < w * h; i++)
    uv[2 * i] = 0.4f;
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          1.0f, out, 4 * w), CF_OK);
  for (i = 0; i < w * h; i++)
    assert_rgb (out, i, 90, 90, 90, "under arrow-min");
  p.arrow_min = 0.3f;
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          1.0f, out, 4 * w), CF_OK);
  /* anchors at 4 + 8 k: (4, 4) to (16, 4) */
  fail_unless (is_rgb (out, w, 10, 4, WHITE));
  fail_unless (is_rgb (out, w, 4, 4, WHITE));

  /* an arrow under one pixel (0.4 x 2 = 0.8) draws nothing, not a dot */
  p.arrow_scale = 2.0f;
  p.arrow_min = 0.0f;
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          1.0f, out, 4 * w), CF_OK);
  on = 0;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      on += out[4 * (y * w + x)] != 90;
  fail_unless_equals_int (on, 0);
  g_free (uv);
  g_free (grey);
  g_free (out);
}

GST_END_TEST;

/* One moving anchor, (8, 8), 2 px right, at max-flow 4, step 16, 1 px
 * strokes (within 0.5 px of the segment: on the shaft's row only):
 * arrow-scale 3 is 6 px, to (14, 8); 0 is relative, 2 / 4 steps = 8 px;
 * 20 would be 40 px, shortened to 1.5 steps = 24 px. Round ends: the row
 * runs from 8 - 0.5 to the tip + 0.5. */
GST_START_TEST (test_arrow_length_is_vector_times_scale)
{
  static const struct
  {
    float scale;
    int tip;
  } cases[] = { {3.0f, 14}, {0.0f, 16}, {20.0f, 32}, {4.0f, 16} };
  const int w = 64, h = 32;
  float *uv = one_anchor_field (w, h, 8, 8, 2.0f, 0.0f);
  uint8_t *out = g_malloc (4 * w * h);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_ARROWS, 0.0f);
  guint c;
  int x;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    p.arrow_scale = cases[c].scale;
    fail_unless_equals_int (cf_flowviz_render (uv, 8 * w, w, h, &p, 4.0f,
            out, 4 * w), CF_OK);
    for (x = 0; x < w; x++) {
      gboolean want = x >= 8 && x <= cases[c].tip;
      fail_unless (is_rgb (out, w, x, 8, WHITE) == want,
          "scale %g: pixel (%d, 8) %s the arrow", cases[c].scale, x,
          want ? "should be on" : "should be off");
    }
    /* off the arrow: at rest the dimmed white; the anchor's own colour is
     * 2/4 of max-flow, red (255, 127, 127) dimmed to (102, 50, 50) */
    assert_rgb (out, 20 * w + 40, 102, 102, 102, "background at rest");
  }
  /* the anchor itself under a short arrow's start: its colour hidden */
  p.arrow_scale = 3.0f;
  p.arrow_thickness = 4.0f;
  fail_unless_equals_int (cf_flowviz_render (uv, 8 * w, w, h, &p, 4.0f, out,
          4 * w), CF_OK);
  fail_unless (is_rgb (out, w, 8, 8, WHITE));
  {
    float *uv2 = one_anchor_field (w, h, 9, 8, 2.0f, 0.0f);
    /* a moving pixel off any anchor draws no arrow: its own colour */
    fail_unless_equals_int (cf_flowviz_render (uv2, 8 * w, w, h, &p, 4.0f,
            out, 4 * w), CF_OK);
    assert_rgb (out, 8 * w + 9, 102, 50, 50, "moving, not an anchor");
    assert_rgb (out, 8 * w + 12, 102, 102, 102, "no arrow from it");
    g_free (uv2);
  }
  g_free (uv);
  g_free (out);
}

GST_END_TEST;

/* The 6 px arrow of (8, 8) along +x (scale 3, as above) at 2 and 4 px:
 * half widths 1 and 2. Shaft rows y = 8 +- half are on (distance exactly
 * half), the next off. Head: a third of 6 is 2, at least 2 x 2 + 1 = 5,
 * at most half of 6: 3 px back from (14, 8) at +-30 degrees, to (14 - 3
 * cos 30, 8 +- 1.5) = (11.40, 6.5 / 9.5). At thickness 2, (11, 10) is 2
 * from the shaft but 0.64 from that end ((0.4^2 + 0.5^2)^0.5): on; (8,
 * 10) is far from both: off. */
GST_START_TEST (test_arrow_thickness_and_head)
{
  const int w = 32, h = 24;
  float *uv = one_anchor_field (w, h, 8, 8, 2.0f, 0.0f);
  uint8_t *out = g_malloc (4 * w * h);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_ARROWS, 0.0f);
  int x;

  p.arrow_scale = 3.0f;
  p.arrow_thickness = 2.0f;
  fail_unless_equals_int (cf_flowviz_render (uv, 8 * w, w, h, &p, 4.0f, out,
          4 * w), CF_OK);
  for (x = 8; x <= 14; x++) {
    fail_unless (is_rgb (out, w, x, 7, WHITE), "(%d, 7)", x);
    fail_unless (is_rgb (out, w, x, 9, WHITE), "(%d, 9)", x);
  }
  /* round ends one pixel out on the row, not two */
  fail_unless (is_rgb (out, w, 7, 8, WHITE) && is_rgb (out, w, 15, 8, WHITE));
  fail_unless (!is_rgb (out, w, 6, 8, WHITE)
      && !is_rgb (out, w, 16, 8, WHITE));
  fail_unless (!is_rgb (out, w, 8, 10, WHITE) && !is_rgb (out, w, 8, 6,
          WHITE));
  /* the head, symmetric */
  fail_unless (is_rgb (out, w, 11, 10, WHITE) && is_rgb (out, w, 11, 6,
          WHITE));
  fail_unless (!is_rgb (out, w, 10, 11, WHITE)
      && !is_rgb (out, w, 10, 5, WHITE));

  /* 4 px: rows 6 .. 10 along the shaft, not 5 or 11 */
  p.arrow_thickness = 4.0f;
  fail_unless_equals_int (cf_flowviz_render (uv, 8 * w, w, h, &p, 4.0f, out,
          4 * w), CF_OK);
  fail_unless (is_rgb (out, w, 10, 6, WHITE) && is_rgb (out, w, 10, 10,
          WHITE));
  fail_unless (!is_rgb (out, w, 10, 5, WHITE) && !is_rgb (out, w, 10, 11,
          WHITE));
  g_free (uv);
  g_free (out);
}

GST_END_TEST;

/* arrow-color: 0x3366cc drawn as (51, 102, 204) in mode=arrows, in every
 * byte order; in overlay-arrows blended with alpha: red at 0.5 (weight 128)
 * over grey 90 is ((128 255 + 128 90 + 128) >> 8, (128 90 + 128) >> 8)
 * = (173, 45, 45). */
GST_START_TEST (test_arrow_colour_alone_and_blended)
{
  const int w = 32, h = 16;
  float *uv = one_anchor_field (w, h, 8, 8, 4.0f, 0.0f);
  uint8_t *out = g_malloc (4 * w * h), *grey = g_malloc (w * h);
  cf_flowviz_video v = plane_video (CF_FLOWVIZ_VIDEO_GRAY8, grey, w, NULL, 0,
      NULL, 0);
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_ARROWS, 0.5f);
  uint8_t *px;

  p.arrow_color = 0x3366cc;
  fail_unless_equals_int (cf_flowviz_render (uv, 8 * w, w, h, &p, 4.0f, out,
          4 * w), CF_OK);
  assert_rgb (out, 8 * w + 12, 51, 102, 204, "coloured arrow");
  /* BGRA: the same colour, bytes swapped */
  p.r = 2;
  p.b = 0;
  fail_unless_equals_int (cf_flowviz_render (uv, 8 * w, w, h, &p, 4.0f, out,
          4 * w), CF_OK);
  px = out + 4 * (8 * w + 12);
  fail_unless (px[0] == 204 && px[1] == 102 && px[2] == 51 && px[3] == 255);

  p = rgba_params (CF_FLOWVIZ_OVERLAY_ARROWS, 0.5f);
  p.arrow_color = 0xff0000;
  memset (grey, 90, w * h);
  fail_unless_equals_int (cf_flowviz_render_video (&v, uv, 8 * w, w, h, &p,
          4.0f, out, 4 * w), CF_OK);
  assert_rgb (out, 8 * w + 12, 173, 45, 45, "red at 0.5 over grey");
  assert_rgb (out, 12 * w + 12, 90, 90, 90, "off the arrow");
  g_free (uv);
  g_free (out);
  g_free (grey);
}

GST_END_TEST;

/* Arrow fields are checked in the arrow modes and ignored elsewhere (a
 * caller may leave them 0). */
GST_START_TEST (test_arrow_parameters_are_checked_in_arrow_modes)
{
  const float uv[2] = { 1, 0 };
  uint8_t out[4];
  cf_flowviz_params p = rgba_params (CF_FLOWVIZ_ARROWS, 0.5f), q;
  int k;

  fail_unless_equals_int (cf_flowviz_render (uv, 8, 1, 1, &p, 1.0f, out, 4),
      CF_OK);
  for (k = 0; k < 6; k++) {
    q = p;
    switch (k) {
      case 0:
        q.arrow_thickness = 0.25f;
        break;
      case 1:
        q.arrow_thickness = 17.0f;
        break;
      case 2:
        q.arrow_scale = -1.0f;
        break;
      case 3:
        q.arrow_scale = NAN;
        break;
      case 4:
        q.arrow_min = -0.5f;
        break;
      default:
        q.arrow_color = 0x1000000;
        break;
    }
    fail_unless (cf_flowviz_render (uv, 8, 1, 1, &q, 1.0f, out, 4) ==
        CF_ERROR_INVALID, "case %d", k);
    q.mode = CF_FLOWVIZ_OVERLAY_ARROWS;
    fail_unless (cf_flowviz_render (uv, 8, 1, 1, &q, 1.0f, out, 4) ==
        CF_ERROR_INVALID, "case %d, overlay-arrows", k);
    q.mode = CF_FLOWVIZ_MIDDLEBURY;
    fail_unless (cf_flowviz_render (uv, 8, 1, 1, &q, 1.0f, out, 4) == CF_OK,
        "case %d, middlebury", k);
  }
}

GST_END_TEST;

static Suite *
common_flowviz_suite (void)
{
  Suite *s = suite_create ("common-flowviz");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wheel_has_the_middlebury_segments);
  tcase_add_test (tc, test_max_magnitude_ignores_unknown);
  tcase_add_test (tc, test_render_writes_every_pixel_and_alpha);
  tcase_add_test (tc, test_opposite_directions_have_opposite_hues);
  tcase_add_test (tc, test_video_formats_convert_to_rgb);
  tcase_add_test (tc, test_yuv_within_one_level_of_the_exact_matrix);
  tcase_add_test (tc, test_overlay_blend_weights);
  tcase_add_test (tc, test_overlay_at_rest_is_the_plain_video);
  tcase_add_test (tc, test_overlay_at_max_flow_gets_the_full_alpha);
  tcase_add_test (tc, test_flow_modes_ignore_the_video_and_no_flow_is_neutral);
  tcase_add_test (tc, test_no_field_is_mid_grey_not_white);
  tcase_add_test (tc, test_neutral_grey_is_no_flow_colour);
  tcase_add_test (tc, test_still_anchors_draw_no_arrow);
  tcase_add_test (tc, test_arrow_length_is_vector_times_scale);
  tcase_add_test (tc, test_arrow_thickness_and_head);
  tcase_add_test (tc, test_arrow_colour_alone_and_blended);
  tcase_add_test (tc, test_arrow_parameters_are_checked_in_arrow_modes);
  tcase_add_test (tc, test_overlay_arrows_keep_the_video_off_the_arrows);
  tcase_add_test (tc, test_render_video_rejects_bad_arguments);
  return s;
}

GST_CHECK_MAIN (common_flowviz);
