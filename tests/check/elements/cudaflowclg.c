/* gst-cudaflow — cudaflowclg on the CPU backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Accuracy on synthetic pairs with exact ground truth, the per-level
 * iteration lists (presets, parsing, errors posted on the bus), formats and
 * sizes. The GPU path is compared with the CPU reference in
 * tests/check/cuda/clg.c and elements/flow-gpu.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "cf-test-util.h"
#include "flow-test-util.h"
#include "common/clg.h"
#include "common/metrics.h"
#include "common/synth.h"

GST_START_TEST (test_defaults_and_presets)
{
  GstElement *e = gst_element_factory_make ("cudaflowclg", NULL);
  gint levels, iterations;
  gdouble alpha, rho;
  gchar *list = NULL;

  g_object_get (e, "levels", &levels, "iterations", &iterations, "alpha",
      &alpha, "rho", &rho, "iterations-per-level", &list, NULL);
  /* the balanced preset */
  fail_unless_equals_int (levels, 6);
  fail_unless_equals_int (iterations, 50);
  fail_unless (fabs (alpha - 50.0) < 1e-9 && fabs (rho - 2.5) < 1e-9);
  fail_unless (list == NULL);

  gst_util_set_object_arg (G_OBJECT (e), "preset", "config-b");
  g_object_get (e, "iterations-per-level", &list, "levels", &levels, NULL);
  fail_unless_equals_string (list, "60,120,180,240");
  fail_unless_equals_int (levels, 4);
  g_free (list);

  gst_util_set_object_arg (G_OBJECT (e), "preset", "config-a");
  g_object_get (e, "iterations-per-level", &list, "iterations", &iterations,
      NULL);
  fail_unless (list == NULL);
  fail_unless_equals_int (iterations, 75);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_synthetic_epe_bounds)
{
  cf_synth_params sp;
  cf_flow_error err;
  double epe;

  /* measured 0.015 and 0.070 when the element was written (GST_INFO);
   * the bounds leave room for rounding, not for a different algorithm */
  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_TRANSLATION;
  sp.tx = 1.25f;
  sp.ty = -0.5f;
  epe = flow_test_synthetic_epe ("cudaflowclg", "cpu", "GRAY8", 96, 72, &sp,
      "", &err);
  GST_INFO ("translation EPE %.4f", epe);
  fail_unless (epe < 0.04, "translation EPE %.4f", epe);

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 2.0f;
  epe = flow_test_synthetic_epe ("cudaflowclg", "cpu", "GRAY8", 96, 72, &sp,
      "preset=config-b", &err);
  GST_INFO ("smooth EPE (config B) %.4f", epe);
  fail_unless (epe < 0.15, "smooth EPE %.4f", epe);
}

GST_END_TEST;

GST_START_TEST (test_more_sweeps_do_not_hurt)
{
  cf_synth_params sp;
  cf_flow_error err;
  double few, many;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.angle = 2.0f;
  sp.zoom = 1.02f;
  sp.tx = sp.ty = 0.0f;
  few = flow_test_synthetic_epe ("cudaflowclg", "cpu", "GRAY8", 96, 72, &sp,
      "iterations=10", &err);
  many = flow_test_synthetic_epe ("cudaflowclg", "cpu", "GRAY8", 96, 72, &sp,
      "iterations-per-level=200,300", &err);
  GST_INFO ("rotation/zoom: 10 sweeps %.4f, 200/300 sweeps %.4f", few, many);
  fail_unless (many < few, "%.4f vs %.4f", many, few);
}

GST_END_TEST;

GST_START_TEST (test_bad_iterations_list_posts_an_error)
{
  GstHarness *h = flow_harness_new ("cudaflowclg", "cpu", "GRAY8", 32, 24);
  gchar *text;

  g_object_set (h->element, "iterations-per-level", "60,abc", NULL);
  text = flow_test_pair_error (h, 32, 24);
  fail_unless (strstr (text, "60,abc") != NULL, "%s", text);
  g_free (text);

  /* a valid list clears the error */
  g_object_set (h->element, "iterations-per-level", " 5 , 10 ", NULL);
  gst_buffer_unref (gst_harness_push_and_pull (h,
          flow_test_random_frame ("GRAY8", 32, 24, 3, 2)));
  gst_harness_teardown (h);
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
    double epe = flow_test_synthetic_epe ("cudaflowclg", "cpu", formats[f],
        64, 48, &sp, "iterations=30", &err);
    if (first < 0)
      first = epe;
    fail_unless (fabs (epe - first) < 0.02, "%s: EPE %.4f vs %.4f",
        formats[f], epe, first);
  }
}

GST_END_TEST;

GST_START_TEST (test_tiny_odd_and_wide_sizes)
{
  static const int sizes[][2] = { {1, 1}, {2, 2}, {3, 1}, {161, 119},
  {2048, 20}
  };
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], hh = sizes[s][1];
    GstHarness *h = flow_harness_new ("cudaflowclg", "cpu", "GRAY8", w, hh);
    int i;
    g_object_set (h->element, "iterations", 20, NULL);
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

static gboolean
clg_accepts (const gchar * name, double value)
{
  cf_clg_params params;

  cf_clg_params_init (&params);
  return cf_clg_params_set (&params, name, value) == CF_OK;
}

/* One range for the property and the solver: alpha=1e9, the property's
 * maximum, used to be refused by the solver at frame 2. Each property's
 * bounds are what cf_clg_params_set (the solvers' check) accepts. */
GST_START_TEST (test_property_ranges_are_the_solvers)
{
  static const gchar *names[] = { "alpha", "rho", "sigma", "iterations" };
  GstElement *e = gst_element_factory_make ("cudaflowclg", NULL);
  GstHarness *h;
  guint i;
  int k;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    flow_test_assert_range_is (e, names[i], clg_accepts);
  gst_object_unref (e);

  h = flow_harness_new ("cudaflowclg", "cpu", "GRAY8", 24, 16);
  flow_test_set_properties (h->element, "alpha=1e9 iterations=5");
  for (k = 0; k < 2; k++) {
    GstBuffer *out = gst_harness_push_and_pull (h,
        flow_test_random_frame ("GRAY8", 24, 16, 50 + k, k));
    fail_unless (out != NULL);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* config-b writes the per-level list unless iterations-per-level was set
 * explicitly, before or after it. */
GST_START_TEST (test_preset_keeps_explicit_list_in_either_order)
{
  static const gchar *orders[] = {
    "iterations-per-level=5,6 preset=config-b",
    "preset=config-b iterations-per-level=5,6"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (orders); i++) {
    GstElement *e = gst_element_factory_make ("cudaflowclg", NULL);
    gchar *list, *overridden;
    gint levels;

    flow_test_set_properties (e, orders[i]);
    g_object_get (e, "iterations-per-level", &list, "levels", &levels,
        "overridden-properties", &overridden, NULL);
    fail_unless_equals_string (list, "5,6");
    fail_unless_equals_int (levels, 4);
    fail_unless_equals_string (overridden, "iterations-per-level");
    g_free (list);
    g_free (overridden);
    gst_object_unref (e);
  }
}

GST_END_TEST;

static Suite *
elements_cudaflowclg_suite (void)
{
  Suite *s = suite_create ("cudaflowclg");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_defaults_and_presets);
  tcase_add_test (tc, test_synthetic_epe_bounds);
  tcase_add_test (tc, test_more_sweeps_do_not_hurt);
  tcase_add_test (tc, test_bad_iterations_list_posts_an_error);
  tcase_add_test (tc, test_every_input_format_gives_the_same_flow);
  tcase_add_test (tc, test_tiny_odd_and_wide_sizes);
  tcase_add_test (tc, test_property_ranges_are_the_solvers);
  tcase_add_test (tc, test_preset_keeps_explicit_list_in_either_order);
  return s;
}

GST_CHECK_MAIN (elements_cudaflowclg);
