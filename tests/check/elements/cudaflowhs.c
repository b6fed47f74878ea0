/* gst-cudaflow — cudaflowhs and the flow estimator base on the CPU backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "cf-test-util.h"
#include "flow-test-util.h"
#include "common/metrics.h"
#include "common/synth.h"

GST_START_TEST (test_first_frame_is_gap_with_zero_flow)
{
  GstHarness *h = flow_harness_new ("cudaflowhs", "cpu", "GRAY8", 32, 24);
  GstBuffer *out;
  cf_flow *flow;

  out = gst_harness_push_and_pull (h, flow_test_random_frame ("GRAY8", 32, 24,
          1, 0));
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  flow = flow_test_buffer_to_flow (out, 32, 24);
  fail_unless (flow_test_max_abs (flow) == 0.0f);
  cf_flow_free (flow);
  gst_buffer_unref (out);

  out = gst_harness_push_and_pull (h, flow_test_random_frame ("GRAY8", 32, 24,
          2, 1));
  fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_output_has_pts_and_duration_of_current_frame)
{
  GstHarness *h = flow_harness_new ("cudaflowhs", "cpu", "GRAY8", 16, 16);
  int i;

  for (i = 0; i < 3; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h,
        flow_test_random_frame ("GRAY8", 16, 16, 10 + i, i));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), GST_SECOND / 30);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_output_caps_are_flow_of_input_size)
{
  GstHarness *h = flow_harness_new ("cudaflowhs", "cpu", "NV12", 40, 30);
  GstCaps *caps;
  GstStructure *s;
  gint w, hh, n, d;

  gst_buffer_unref (gst_harness_push_and_pull (h,
          flow_test_random_frame ("NV12", 40, 30, 1, 0)));
  caps = gst_pad_get_current_caps (h->sinkpad);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, "video/x-optical-flow"));
  fail_unless_equals_string (gst_structure_get_string (s, "format"),
      "UV_F32LE");
  fail_unless (gst_structure_get_int (s, "width", &w) && w == 40);
  fail_unless (gst_structure_get_int (s, "height", &hh) && hh == 30);
  fail_unless (gst_structure_get_fraction (s, "framerate", &n, &d) && n == 30
      && d == 1);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_translation_epe_below_0_15)
{
  cf_synth_params sp;
  cf_flow_error err;
  double epe;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_TRANSLATION;
  sp.tx = 1.25f;
  sp.ty = -0.5f;
  epe = flow_test_synthetic_epe ("cudaflowhs", "cpu", "GRAY8", 96, 72, &sp,
      "", &err);
  GST_INFO ("translation EPE %.4f AAE %.3f", epe, err.aae);
  fail_unless (epe < 0.15, "EPE %.4f", epe);
}

GST_END_TEST;

GST_START_TEST (test_rotation_zoom_and_smooth_epe_bounds)
{
  cf_synth_params sp;
  cf_flow_error err;
  double epe;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.angle = 2.0f;
  sp.zoom = 1.02f;
  sp.tx = sp.ty = 0.0f;
  epe = flow_test_synthetic_epe ("cudaflowhs", "cpu", "GRAY8", 96, 72, &sp,
      "", &err);
  fail_unless (epe < 0.25, "rotation/zoom EPE %.4f", epe);

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 2.0f;
  epe = flow_test_synthetic_epe ("cudaflowhs", "cpu", "GRAY8", 96, 72, &sp,
      "", &err);
  fail_unless (epe < 0.3, "smooth EPE %.4f", epe);
}

GST_END_TEST;

GST_START_TEST (test_every_input_format_gives_the_same_flow)
{
  static const gchar *formats[] = { "GRAY8", "GRAY16_LE", "NV12", "I420",
    "RGBA", "BGRA", "RGBx", "BGRx"
  };
  cf_synth_params sp;
  cf_flow_error err;
  double first = -1;
  guint f;

  cf_synth_params_init (&sp);
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    double epe = flow_test_synthetic_epe ("cudaflowhs", "cpu", formats[f],
        64, 48, &sp, "preset=romera", &err);
    if (first < 0)
      first = epe;
    /* grey carried in every format: identical luma, except 16-bit
     * quantisation of the same values */
    fail_unless (fabs (epe - first) < 0.02, "%s: EPE %.4f vs %.4f",
        formats[f], epe, first);
  }
}

GST_END_TEST;

GST_START_TEST (test_tiny_odd_and_wide_sizes)
{
  static const int sizes[][2] = { {1, 1}, {2, 2}, {3, 1}, {641, 479},
  {4096, 24}
  };
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], hh = sizes[s][1];
    GstHarness *h = flow_harness_new ("cudaflowhs", "cpu", "GRAY8", w, hh);
    int i;
    gst_util_set_object_arg (G_OBJECT (h->element), "preset", "romera");
    for (i = 0; i < 2; i++) {
      GstBuffer *out = gst_harness_push_and_pull (h,
          flow_test_random_frame ("GRAY8", w, hh, 5 + i, i));
      cf_flow *flow = flow_test_buffer_to_flow (out, w, hh);
      fail_unless (flow_test_all_finite (flow), "%dx%d: non-finite flow", w,
          hh);
      cf_flow_free (flow);
      gst_buffer_unref (out);
    }
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_discont_flush_and_caps_change_restart_with_gap)
{
  GstHarness *h = flow_harness_new ("cudaflowhs", "cpu", "GRAY8", 20, 16);
  GstBuffer *in, *out;
  GstCaps *caps;

  gst_util_set_object_arg (G_OBJECT (h->element), "preset", "romera");
  gst_buffer_unref (gst_harness_push_and_pull (h,
          flow_test_random_frame ("GRAY8", 20, 16, 1, 0)));

  /* DISCONT */
  in = flow_test_random_frame ("GRAY8", 20, 16, 2, 1);
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  gst_buffer_unref (out);
  out = gst_harness_push_and_pull (h, flow_test_random_frame ("GRAY8", 20,
          16, 3, 2));
  fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  gst_buffer_unref (out);

  /* FLUSH */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  {
    GstSegment segment;
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  }
  out = gst_harness_push_and_pull (h, flow_test_random_frame ("GRAY8", 20,
          16, 4, 3));
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  gst_buffer_unref (out);

  /* caps change: new size */
  caps = gst_caps_from_string ("video/x-raw, format=GRAY8, width=24, "
      "height=18, framerate=30/1");
  gst_harness_set_src_caps (h, caps);
  out = gst_harness_push_and_pull (h, flow_test_random_frame ("GRAY8", 24,
          18, 5, 4));
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  fail_unless_equals_int (gst_buffer_get_size (out), 24 * 18 * 8);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_warm_start_does_not_hurt_steady_motion)
{
  cf_synth_params sp;
  cf_flow_error cold, warm;
  double e_cold, e_warm;

  cf_synth_params_init (&sp);
  sp.tx = 2.0f;
  sp.ty = 1.0f;
  e_cold = flow_test_synthetic_epe_sequence ("cudaflowhs", "cpu", 64, 48, &sp,
      "preset=romera", 4, &cold);
  e_warm = flow_test_synthetic_epe_sequence ("cudaflowhs", "cpu", 64, 48, &sp,
      "preset=romera use-previous-flow=true", 4, &warm);
  GST_INFO ("steady translation: cold %.4f warm %.4f", e_cold, e_warm);
  fail_unless (e_warm <= e_cold + 1e-3, "warm %.4f > cold %.4f", e_warm,
      e_cold);
}

GST_END_TEST;

GST_START_TEST (test_cuda_samples_preset_sets_its_parameters)
{
  GstElement *e = gst_element_factory_make ("cudaflowhs", NULL);
  gint levels, warps, iterations;
  gdouble alpha;

  gst_util_set_object_arg (G_OBJECT (e), "preset", "cuda-samples");
  g_object_get (e, "levels", &levels, "warps", &warps, "iterations",
      &iterations, "alpha", &alpha, NULL);
  fail_unless_equals_int (levels, 5);
  fail_unless_equals_int (warps, 3);
  fail_unless_equals_int (iterations, 500);
  fail_unless (fabs (alpha - 51.0) < 1e-9);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_no_latency_is_added)
{
  GstHarness *h = flow_harness_new ("cudaflowhs", "cpu", "GRAY8", 16, 16);

  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      10 * GST_MSECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Presets never override an explicit setting, whichever comes first, and
 * overridden-properties names what the preset did not set. */
GST_START_TEST (test_preset_and_explicit_settings_in_either_order)
{
  static const gchar *orders[] = {
    "iterations=50 preset=romera", "preset=romera iterations=50"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (orders); i++) {
    GstElement *e = gst_element_factory_make ("cudaflowhs", NULL);
    gint iterations, levels, warps;
    gchar *overridden;

    flow_test_set_properties (e, orders[i]);
    g_object_get (e, "iterations", &iterations, "levels", &levels, "warps",
        &warps, "overridden-properties", &overridden, NULL);
    fail_unless_equals_int (iterations, 50);
    fail_unless_equals_int (levels, 3);
    fail_unless_equals_int (warps, 1);
    fail_unless_equals_string (overridden, "iterations");
    g_free (overridden);

    /* preset=none: nothing to override */
    gst_util_set_object_arg (G_OBJECT (e), "preset", "none");
    g_object_get (e, "overridden-properties", &overridden, NULL);
    fail_unless_equals_string (overridden, "");
    g_free (overridden);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Every numeric property that may change in PLAYING is controllable, in
 * all three estimators, but for TV-L1's median windows (0, 3 or 5; 0, 3,
 * 5, 7 or 9: no value between two sizes means anything to an
 * interpolation). */
GST_START_TEST (test_numeric_playing_properties_are_controllable)
{
  static const gchar *elements[] = { "cudaflowhs", "cudaflowtvl1",
    "cudaflowclg"
  };
  guint e, i, n;

  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *el = gst_element_factory_make (elements[e], NULL);
    GParamSpec **specs =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (el), &n);

    for (i = 0; i < n; i++) {
      GParamSpec *p = specs[i];
      GType t = G_PARAM_SPEC_VALUE_TYPE (p);

      if ((t != G_TYPE_INT && t != G_TYPE_DOUBLE) ||
          !(p->flags & GST_PARAM_MUTABLE_PLAYING) || p->owner_type ==
          GST_TYPE_BASE_TRANSFORM)
        continue;
      if (!strcmp (elements[e], "cudaflowtvl1") &&
          (!strcmp (p->name, "median-size") ||
              !strcmp (p->name, "weighted-median-size")))
        continue;
      fail_unless (p->flags & GST_PARAM_CONTROLLABLE, "%s:%s",
          elements[e], p->name);
    }
    g_free (specs);
    gst_object_unref (el);
  }
}

GST_END_TEST;

/* The backend notice and one LOG line per frame go to the element's own
 * category (GST_DEBUG=cudaflow*:6), not only to the base classes'. */
static GList *logged_categories;

static void
record_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);

  if (g_str_has_prefix (gst_debug_category_get_name (category), "cudaflow"))
    logged_categories = g_list_prepend (logged_categories,
        g_strdup_printf ("%s %d: %s", gst_debug_category_get_name (category),
            level, text));
}

static gboolean
logged (const gchar * category, GstDebugLevel level, const gchar * text)
{
  gchar *prefix = g_strdup_printf ("%s %d: ", category, level);
  GList *l;
  gboolean found = FALSE;

  for (l = logged_categories; l != NULL && !found; l = l->next)
    found = g_str_has_prefix (l->data, prefix) && strstr (l->data, text);
  g_free (prefix);
  return found;
}

GST_START_TEST (test_backend_notice_and_frames_in_element_category)
{
  static const gchar *elements[] = { "cudaflowhs", "cudaflowtvl1",
    "cudaflowclg"
  };
  guint e;

  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_from_string ("cudaflow*:6", FALSE);
  gst_debug_add_log_function (record_log, NULL, NULL);
  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstHarness *h = flow_harness_new (elements[e], "cpu", "GRAY8", 32, 24);
    int k;

    for (k = 0; k < 2; k++)
      gst_buffer_unref (gst_harness_push_and_pull (h,
              flow_test_random_frame ("GRAY8", 32, 24, 1 + k, k)));
    gst_harness_teardown (h);
    fail_unless (logged (elements[e], GST_LEVEL_INFO, "CPU backend"), "%s",
        elements[e]);
    fail_unless (logged (elements[e], GST_LEVEL_LOG, "GAP zero field"), "%s",
        elements[e]);
    fail_unless (logged (elements[e], GST_LEVEL_LOG, "flow from"), "%s",
        elements[e]);
  }
  gst_debug_remove_log_function (record_log);
  gst_debug_set_threshold_from_string ("cudaflow*:0", FALSE);
  g_list_free_full (logged_categories, g_free);
  logged_categories = NULL;
}

GST_END_TEST;

static Suite *
elements_cudaflowhs_suite (void)
{
  Suite *s = suite_create ("cudaflowhs");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_first_frame_is_gap_with_zero_flow);
  tcase_add_test (tc, test_output_has_pts_and_duration_of_current_frame);
  tcase_add_test (tc, test_output_caps_are_flow_of_input_size);
  tcase_add_test (tc, test_translation_epe_below_0_15);
  tcase_add_test (tc, test_rotation_zoom_and_smooth_epe_bounds);
  tcase_add_test (tc, test_every_input_format_gives_the_same_flow);
  tcase_add_test (tc, test_tiny_odd_and_wide_sizes);
  tcase_add_test (tc, test_discont_flush_and_caps_change_restart_with_gap);
  tcase_add_test (tc, test_warm_start_does_not_hurt_steady_motion);
  tcase_add_test (tc, test_cuda_samples_preset_sets_its_parameters);
  tcase_add_test (tc, test_no_latency_is_added);
  tcase_add_test (tc, test_preset_and_explicit_settings_in_either_order);
  tcase_add_test (tc, test_numeric_playing_properties_are_controllable);
  tcase_add_test (tc, test_backend_notice_and_frames_in_element_category);
  return s;
}

GST_CHECK_MAIN (elements_cudaflowhs);
