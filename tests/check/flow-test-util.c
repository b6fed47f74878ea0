/* gst-cudaflow — helpers for the flow element suites
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "flow-test-util.h"
#include "cf-test-util.h"

#include <math.h>
#include <string.h>

#include <gst/video/video.h>

#define EPE_BORDER 8

gchar *
flow_test_pair_error (GstHarness * h, int width, int height)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *text;

  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h,
          flow_test_random_frame ("GRAY8", width, height, 1, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h,
          flow_test_random_frame ("GRAY8", width, height, 2, 1)),
      GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  GST_INFO ("error: %s", error->message);
  text = g_strdup (error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  return text;
}

GstHarness *
flow_harness_new (const gchar * element, const gchar * backend,
    const gchar * format, int width, int height)
{
  GstHarness *h = cf_test_harness_new (element, backend, NULL);
  gchar *caps;

  caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, height=%d, "
      "framerate=30/1", format, width, height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  gst_harness_set_sink_caps_str (h, "video/x-optical-flow, "
      "format=UV_F32LE");
  return h;
}

void
flow_test_set_properties (GstElement * element, const gchar * settings)
{
  gchar **tokens;
  guint i;

  if (settings == NULL || *settings == '\0')
    return;
  tokens = g_strsplit (settings, " ", -1);
  for (i = 0; tokens[i]; i++) {
    gchar *eq = strchr (tokens[i], '=');
    if (eq == NULL)
      continue;
    *eq = '\0';
    gst_util_set_object_arg (G_OBJECT (element), tokens[i], eq + 1);
  }
  g_strfreev (tokens);
}

static void
stamp (GstBuffer * buf, int index)
{
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (index, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
}

GstBuffer *
flow_test_random_frame (const gchar * format, int width, int height,
    guint32 seed, int index)
{
  GstVideoInfo info;
  GstBuffer *buf;
  GstMapInfo map;
  guint32 s = seed ? seed : 1;
  gsize i;

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    map.data[i] = (guint8) (s >> 11);
  }
  gst_buffer_unmap (buf, &map);
  stamp (buf, index);
  return buf;
}

GstBuffer *
flow_test_frame_from_grey (const gchar * format, const cf_image * grey,
    int index)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  int x, y;
  guint c;

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      grey->width, grey->height);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 128, info.size);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < grey->height; y++) {
    const float *row = cf_image_row (grey, y);
    for (x = 0; x < grey->width; x++) {
      float v = floorf (row[x] + 0.5f);
      guint8 v8 = (guint8) (v < 0 ? 0 : (v > 255 ? 255 : v));
      if (GST_VIDEO_INFO_IS_RGB (&info)) {
        guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + 4 * x;
        for (c = 0; c < 4; c++)
          p[c] = v8;            /* R = G = B (and A/x) */
      } else if (GST_VIDEO_FRAME_COMP_DEPTH (&f, 0) > 8) {
        guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + 2 * x;
        guint v16 = v8 * 257u;
        p[0] = v16 & 0xff;
        p[1] = v16 >> 8;
      } else {
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x] = v8;
      }
    }
  }
  gst_video_frame_unmap (&f);
  stamp (buf, index);
  return buf;
}

void
flow_test_assert_range_is (GstElement * element, const gchar * name,
    gboolean (*accepts) (const gchar * name, double value))
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS
      (element), name);
  double lo, hi, step;

  fail_unless (p != NULL, "no property %s", name);
  if (G_IS_PARAM_SPEC_INT (p)) {
    lo = G_PARAM_SPEC_INT (p)->minimum;
    hi = G_PARAM_SPEC_INT (p)->maximum;
    step = 1.0;
  } else {
    fail_unless (G_IS_PARAM_SPEC_DOUBLE (p), "%s is not a number", name);
    lo = G_PARAM_SPEC_DOUBLE (p)->minimum;
    hi = G_PARAM_SPEC_DOUBLE (p)->maximum;
    step = hi * 1e-3;
  }
  fail_unless (accepts (name, lo), "%s=%g (the minimum) is refused", name,
      lo);
  fail_unless (accepts (name, hi), "%s=%g (the maximum) is refused", name,
      hi);
  fail_if (accepts (name, hi + step), "%s=%g is accepted", name, hi + step);
  if (lo > 0.0)
    fail_if (accepts (name, lo - MIN (step, lo)), "%s=%g is accepted", name,
        lo - MIN (step, lo));
}

cf_flow *
flow_test_buffer_to_flow (GstBuffer * buffer, int width, int height)
{
  cf_flow *flow = cf_flow_new (width, height);
  GstMapInfo map;

  fail_unless (flow != NULL);
  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, (gsize) width * height * 8);
  cf_flow_from_interleaved (flow, (const float *) map.data,
      (size_t) width * 8);
  gst_buffer_unmap (buffer, &map);
  return flow;
}

float
flow_test_max_abs (const cf_flow * flow)
{
  float m = 0.0f;
  int x, y;

  for (y = 0; y < flow->height; y++)
    for (x = 0; x < flow->width; x++) {
      m = fmaxf (m, fabsf (flow->u[x + y * flow->pitch]));
      m = fmaxf (m, fabsf (flow->v[x + y * flow->pitch]));
    }
  return m;
}

gboolean
flow_test_all_finite (const cf_flow * flow)
{
  int x, y;

  for (y = 0; y < flow->height; y++)
    for (x = 0; x < flow->width; x++)
      if (!isfinite (flow->u[x + y * flow->pitch]) ||
          !isfinite (flow->v[x + y * flow->pitch]))
        return FALSE;
  return TRUE;
}

double
flow_test_synthetic_epe (const gchar * element, const gchar * backend,
    const gchar * format, int width, int height,
    const cf_synth_params * params, const gchar * settings,
    cf_flow_error * result)
{
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow;
  GstHarness *h;
  GstBuffer *out;

  fail_unless_equals_int (cf_synth_pair (width, height, params, &f0, &f1,
          &truth), CF_OK);
  h = flow_harness_new (element, backend, format, width, height);
  flow_test_set_properties (h->element, settings);
  gst_buffer_unref (gst_harness_push_and_pull (h,
          flow_test_frame_from_grey (format, f0, 0)));
  out = gst_harness_push_and_pull (h, flow_test_frame_from_grey (format, f1,
          1));
  fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  flow = flow_test_buffer_to_flow (out, width, height);
  fail_unless_equals_int (cf_flow_compare (flow, truth, EPE_BORDER, result),
      CF_OK);
  cf_flow_free (flow);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  return result->epe;
}

double
flow_test_synthetic_epe_sequence (const gchar * element,
    const gchar * backend, int width, int height,
    const cf_synth_params * params, const gchar * settings, int n_frames,
    cf_flow_error * result)
{
  GstHarness *h = flow_harness_new (element, backend, "GRAY8", width, height);
  cf_image *frame = cf_image_new (width, height);
  cf_flow *truth = cf_flow_new (width, height);
  double sum_epe = 0, sum_aae = 0;
  int k;

  flow_test_set_properties (h->element, settings);
  cf_flow_fill (truth, params->tx, params->ty);
  for (k = 0; k < n_frames; k++) {
    GstBuffer *out;
    /* frame k is the texture moved by k * t: frame_k(x) = T(x - k t) */
    fail_unless_equals_int (cf_synth_texture (params, -k * params->tx,
            -k * params->ty, frame), CF_OK);
    out = gst_harness_push_and_pull (h, flow_test_frame_from_grey ("GRAY8",
            frame, k));
    if (k > 0) {
      cf_flow *flow = flow_test_buffer_to_flow (out, width, height);
      cf_flow_error e;
      fail_unless_equals_int (cf_flow_compare (flow, truth, EPE_BORDER, &e),
          CF_OK);
      sum_epe += e.epe;
      sum_aae += e.aae;
      cf_flow_free (flow);
    }
    gst_buffer_unref (out);
  }
  memset (result, 0, sizeof (*result));
  result->epe = sum_epe / (n_frames - 1);
  result->aae = sum_aae / (n_frames - 1);
  cf_flow_free (truth);
  cf_image_free (frame);
  gst_harness_teardown (h);
  return result->epe;
}

void
flow_test_gray8_pair (int width, int height, float tx, float ty,
    guint8 * frame0, guint8 * frame1)
{
  cf_synth_params sp;
  cf_image *i0, *i1;
  cf_flow *truth;
  int x, y;

  cf_synth_params_init (&sp);
  sp.tx = tx;
  sp.ty = ty;
  fail_unless_equals_int (cf_synth_pair (width, height, &sp, &i0, &i1,
          &truth), CF_OK);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      frame0[x + y * width] = (guint8) CLAMP (lrintf (cf_image_row (i0,
                  y)[x]), 0, 255);
      frame1[x + y * width] = (guint8) CLAMP (lrintf (cf_image_row (i1,
                  y)[x]), 0, 255);
    }
  cf_image_free (i0);
  cf_image_free (i1);
  cf_flow_free (truth);
}

void
flow_test_solver_init (cf_flow_solver * solver, cf_flow_method method)
{
  memset (solver, 0, sizeof (*solver));
  solver->method = method;
  solver->precision = CF_PRECISION_FP32;
  switch (method) {
    case CF_FLOW_METHOD_HS:
      cf_hs_params_init (&solver->params.hs);
      solver->params.hs.warps = 2;
      solver->params.hs.iterations = 7;
      break;
    case CF_FLOW_METHOD_CLG:
      cf_clg_params_init (&solver->params.clg);
      solver->params.clg.iterations = 9;
      break;
    case CF_FLOW_METHOD_TVL1:
      cf_tvl1_params_init (&solver->params.tvl1);
      fail_unless_equals_int (cf_tvl1_params_set (&solver->params.tvl1,
              "warps", 2), CF_OK);
      fail_unless_equals_int (cf_tvl1_params_set (&solver->params.tvl1,
              "iterations", 40), CF_OK);
      solver->params.tvl1.epsilon = 0.05f;
      break;
  }
}

cf_channel
flow_test_gray8_channel (guint8 * data, int width, int height)
{
  cf_channel ch;

  ch.data = data;
  ch.width = width;
  ch.height = height;
  ch.stride = width;
  ch.pixel_stride = 1;
  ch.depth = 8;
  return ch;
}

void
flow_test_small_pyramid (cf_pyramid_params * pyramid, float sigma)
{
  cf_pyramid_params_init (pyramid);
  pyramid->max_levels = 3;
  pyramid->min_size = 8;
  pyramid->presmooth_sigma = sigma;
}

void
flow_test_engine_load (cf_flow_engine * engine, int slot, guint8 * gray)
{
  cf_channel ch = flow_test_gray8_channel (gray, engine->width,
      engine->height);

  fail_unless_equals_int (cf_flow_engine_luma_from_channel (engine, slot,
          &ch), CF_OK);
  fail_unless_equals_int (cf_flow_engine_build_pyramid (engine, slot),
      CF_OK);
}
