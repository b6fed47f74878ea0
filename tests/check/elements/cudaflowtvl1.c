/* gst-cudaflow — cudaflowtvl1 on the CPU backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Accuracy on synthetic pairs with exact ground truth, the IPOL
 * normalisation done by scaling lambda (checked against the CPU reference
 * run on normalised frames), Middlebury RubberWhale at the defaults (IPOL's
 * quality), formats, sizes, presets, the per-level schedules (properties,
 * presets, errors posted on the bus, the reference's flow), the median
 * filter between warps (median-size). The GPU path
 * is compared with the
 * same reference in tests/check/cuda/tvl1.c and elements/flow-gpu.c.
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
#include "common/flo.h"
#include "common/metrics.h"
#include "common/pyramid.h"
#include "common/synth.h"
#include "common/tvl1.h"

/* The defaults are the balanced preset (IPOL's model with θ 0.4, a fixed
 * schedule: 1 warp x 30 iterations on the finest level, 2 x 20 on the
 * others, a 5 x 5 median of the finest level); ipol and romera
 * reproduce their references, IPOL's θ 0.3 included. */
GST_START_TEST (test_defaults_are_balanced)
{
  GstElement *e = gst_element_factory_make ("cudaflowtvl1", NULL);
  gint levels, warps, iterations;
  gdouble tau, lambda, theta, epsilon, scale, sigma;
  gboolean normalize;
  gchar *warp_list, *iteration_list, *median_list;

  g_object_get (e, "levels", &levels, "warps", &warps, "iterations",
      &iterations, "tau", &tau, "lambda", &lambda, "theta", &theta,
      "epsilon", &epsilon, "scale-factor", &scale, "normalize", &normalize,
      "sigma", &sigma, "warps-per-level", &warp_list,
      "iterations-per-level", &iteration_list, "median-size-per-level",
      &median_list, NULL);
  fail_unless_equals_int (levels, 6);
  fail_unless_equals_int (warps, 2);
  fail_unless_equals_int (iterations, 20);
  fail_unless_equals_string (warp_list, "1,2");
  fail_unless_equals_string (iteration_list, "30,20");
  fail_unless_equals_string (median_list, "5,0");
  fail_unless (fabs (tau - 0.25) < 1e-6 && fabs (lambda - 0.15) < 1e-6 &&
      fabs (theta - 0.4) < 1e-6 && epsilon == 0.0 &&
      fabs (scale - 0.5) < 1e-9 && fabs (sigma - 0.65) < 1e-6);
  fail_unless (normalize);
  g_free (warp_list);
  g_free (iteration_list);
  g_free (median_list);

  gst_util_set_object_arg (G_OBJECT (e), "preset", "romera");
  g_object_get (e, "levels", &levels, "warps", &warps, "iterations",
      &iterations, "epsilon", &epsilon, "theta", &theta, NULL);
  fail_unless (fabs (theta - 0.3) < 1e-6);
  fail_unless_equals_int (levels, 3);
  fail_unless_equals_int (warps, 1);
  fail_unless_equals_int (iterations, 10);
  fail_unless (epsilon == 0.0);

  gst_util_set_object_arg (G_OBJECT (e), "preset", "ipol");
  g_object_get (e, "levels", &levels, "warps", &warps, "iterations",
      &iterations, "epsilon", &epsilon, NULL);
  fail_unless_equals_int (levels, 5);
  fail_unless_equals_int (warps, 5);
  fail_unless_equals_int (iterations, 300);
  fail_unless (fabs (epsilon - 0.01) < 1e-6);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_first_frame_is_gap)
{
  GstHarness *h = flow_harness_new ("cudaflowtvl1", "cpu", "GRAY8", 32, 24);
  GstBuffer *out;

  gst_util_set_object_arg (G_OBJECT (h->element), "preset", "romera");
  out = gst_harness_push_and_pull (h, flow_test_random_frame ("GRAY8", 32, 24,
          1, 0));
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  gst_buffer_unref (out);
  out = gst_harness_push_and_pull (h, flow_test_random_frame ("GRAY8", 32, 24,
          2, 1));
  fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_synthetic_epe_bounds)
{
  cf_synth_params sp;
  cf_flow_error err;
  double epe;

  /* defaults (IPOL): measured 0.020, 0.017, 0.169 and (romera, then
   * called realtime) 0.031
   * when the element was written (printed by GST_INFO); the bounds leave
   * room for rounding, not for a different algorithm */
  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_TRANSLATION;
  sp.tx = 1.25f;
  sp.ty = -0.5f;
  epe = flow_test_synthetic_epe ("cudaflowtvl1", "cpu", "GRAY8", 96, 72, &sp,
      "", &err);
  GST_INFO ("translation EPE %.4f", epe);
  fail_unless (epe < 0.05, "translation EPE %.4f", epe);

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.angle = 2.0f;
  sp.zoom = 1.02f;
  sp.tx = sp.ty = 0.0f;
  epe = flow_test_synthetic_epe ("cudaflowtvl1", "cpu", "GRAY8", 96, 72, &sp,
      "", &err);
  GST_INFO ("rotation/zoom EPE %.4f", epe);
  fail_unless (epe < 0.05, "rotation/zoom EPE %.4f", epe);

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 2.0f;
  epe = flow_test_synthetic_epe ("cudaflowtvl1", "cpu", "GRAY8", 96, 72, &sp,
      "", &err);
  GST_INFO ("smooth EPE %.4f", epe);
  fail_unless (epe < 0.25, "smooth EPE %.4f", epe);

  /* the romera preset still finds a small translation */
  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_TRANSLATION;
  sp.tx = 0.75f;
  sp.ty = 0.25f;
  epe = flow_test_synthetic_epe ("cudaflowtvl1", "cpu", "GRAY8", 96, 72, &sp,
      "preset=romera", &err);
  GST_INFO ("romera translation EPE %.4f", epe);
  fail_unless (epe < 0.1, "romera translation EPE %.4f", epe);
}

GST_END_TEST;

/* Push two grey frames, return the second flow. */
static cf_flow *
element_flow (const cf_image * f0, const cf_image * f1, const gchar * settings)
{
  GstHarness *h = flow_harness_new ("cudaflowtvl1", "cpu", "GRAY8",
      f0->width, f0->height);
  GstBuffer *out;
  cf_flow *flow;

  flow_test_set_properties (h->element, settings);
  gst_buffer_unref (gst_harness_push_and_pull (h,
          flow_test_frame_from_grey ("GRAY8", f0, 0)));
  out = gst_harness_push_and_pull (h, flow_test_frame_from_grey ("GRAY8", f1,
          1));
  flow = flow_test_buffer_to_flow (out, f0->width, f0->height);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  return flow;
}

/* The CPU reference's flow from @f0 to @f1 with @tp on a pyramid of up to
 * @levels levels, as the element builds it; @levels_used (may be NULL)
 * receives how many the frame size allowed. */
static cf_flow *
reference_flow (const cf_image * f0, const cf_image * f1,
    const cf_tvl1_params * tp, int levels, int *levels_used)
{
  cf_pyramid_params pp;
  cf_pyramid *y0, *y1;
  cf_flow *ref = cf_flow_new (f0->width, f0->height);

  cf_pyramid_params_init (&pp);
  pp.max_levels = levels;
  cf_tvl1_prepare_pyramid_params (tp, &pp);
  y0 = cf_pyramid_new (f0->width, f0->height, &pp);
  y1 = cf_pyramid_new (f0->width, f0->height, &pp);
  fail_unless (y0 != NULL && y1 != NULL && ref != NULL);
  if (levels_used != NULL)
    *levels_used = y0->n_levels;
  fail_unless_equals_int (cf_pyramid_build (y0, f0, &pp), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (y1, f1, &pp), CF_OK);
  fail_unless_equals_int (cf_tvl1_flow (y0, y1, tp, 0, ref), CF_OK);
  cf_pyramid_free (y0);
  cf_pyramid_free (y1);
  return ref;
}

/* Low-contrast frames (0.4 I + 60, rounded as GRAY8 carries them): the
 * element's lambda scaling must give the reference's flow on the frames
 * stretched to 0..255 (IPOL's normalisation), with lambda and with a
 * lambda-per-level list, whose every entry is scaled alike. */
GST_START_TEST (test_normalize_matches_stretched_reference)
{
  static const gchar *const lists[] = { NULL, "0.4,0.15" };
  cf_synth_params sp;
  cf_image *f0, *f1, *r0, *r1;
  cf_flow *truth;
  guint i;
  int x, y;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 1.5f;
  fail_unless_equals_int (cf_synth_pair (80, 60, &sp, &f0, &f1, &truth),
      CF_OK);
  for (y = 0; y < f0->height; y++)
    for (x = 0; x < f0->width; x++) {
      cf_image_row (f0, y)[x] = roundf (0.4f * cf_image_row (f0, y)[x] + 60);
      cf_image_row (f1, y)[x] = roundf (0.4f * cf_image_row (f1, y)[x] + 60);
    }
  /* the reference: IPOL's path, frames stretched first */
  r0 = cf_image_copy (f0);
  r1 = cf_image_copy (f1);
  cf_tvl1_normalize_pair (r0, r1);

  for (i = 0; i < G_N_ELEMENTS (lists); i++) {
    gchar *settings = g_strdup_printf ("levels=3 warps=2 iterations=30 "
        "epsilon=0%s%s", lists[i] ? " lambda-per-level=" : "",
        lists[i] ? lists[i] : "");
    gchar *raw_settings = g_strconcat (settings, " normalize=false", NULL);
    cf_flow *flow = element_flow (f0, f1, settings);
    cf_flow *flow_raw = element_flow (f0, f1, raw_settings);
    cf_flow *ref;
    cf_tvl1_params tp;
    double mean, max, mean_raw, max_raw;

    cf_tvl1_params_init (&tp);
    fail_unless_equals_int (cf_tvl1_params_set (&tp, "warps", 2), CF_OK);
    fail_unless_equals_int (cf_tvl1_params_set (&tp, "iterations", 30), CF_OK);
    tp.epsilon = 0;
    if (lists[i] != NULL)
      fail_unless_equals_int (cf_tvl1_parse_lambda_per_level (&tp, lists[i],
              NULL), CF_OK);
    ref = reference_flow (r0, r1, &tp, 3, NULL);

    fail_unless_equals_int (cf_flow_diff (flow, ref, &mean, &max), CF_OK);
    fail_unless_equals_int (cf_flow_diff (flow_raw, ref, &mean_raw,
            &max_raw), CF_OK);
    GST_INFO ("%s: normalize: mean |d| %.2e max %.2e; without: mean %.2e",
        settings, mean, max, mean_raw);
    fail_unless (mean < 1e-3 && max < 1e-2, "%s: mean %.2e max %.2e",
        settings, mean, max);
    /* and the normalisation matters on such frames */
    fail_unless (mean_raw > 10 * mean + 1e-3, "%s: without normalize: %.2e",
        settings, mean_raw);
    cf_flow_free (flow);
    cf_flow_free (flow_raw);
    cf_flow_free (ref);
    g_free (settings);
    g_free (raw_settings);
  }

  cf_image_free (f0);
  cf_image_free (f1);
  cf_image_free (r0);
  cf_image_free (r1);
  cf_flow_free (truth);
}

GST_END_TEST;

/* What users get when they set nothing: IPOL's accuracy (IPOL tvl1flow
 * 0.215 on this pair; the reference 0.2155). */
GST_START_TEST (test_defaults_give_ipol_epe_on_rubberwhale)
{
  const char *dir = cf_test_data_dir ();
  gchar *seq;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow;
  cf_flow_error err;

  fail_unless (dir != NULL, "CUDAFLOW_DATA_DIR not set");
  seq = g_build_filename (dir, "middlebury", "RubberWhale", NULL);
  fail_unless (g_file_test (seq, G_FILE_TEST_IS_DIR), "%s missing", seq);
  {
    gchar *p0 = g_build_filename (seq, "frame10.png", NULL);
    gchar *p1 = g_build_filename (seq, "frame11.png", NULL);
    gchar *pf = g_build_filename (seq, "flow10.flo", NULL);
    f0 = cf_test_read_png_grey (p0);
    f1 = cf_test_read_png_grey (p1);
    fail_unless (f0 && f1);
    fail_unless_equals_int (cf_flo_read (pf, &truth, NULL), CF_OK);
    g_free (p0);
    g_free (p1);
    g_free (pf);
  }
  flow = element_flow (f0, f1, "preset=ipol");
  fail_unless_equals_int (cf_flow_compare (flow, truth, 0, &err), CF_OK);
  GST_INFO ("RubberWhale through the element: EPE %.4f AAE %.3f", err.epe,
      err.aae);
  fail_unless (err.epe < 0.2155 * 1.02, "EPE %.4f", err.epe);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
  g_free (seq);
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
    double epe = flow_test_synthetic_epe ("cudaflowtvl1", "cpu", formats[f],
        64, 48, &sp, "preset=romera", &err);
    if (first < 0)
      first = epe;
    fail_unless (fabs (epe - first) < 0.02, "%s: EPE %.4f vs %.4f",
        formats[f], epe, first);
  }
}

GST_END_TEST;

GST_START_TEST (test_tiny_odd_wide_and_flat_frames)
{
  static const int sizes[][2] = { {1, 1}, {2, 2}, {3, 1}, {161, 119},
  {2048, 20}
  };
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], hh = sizes[s][1];
    GstHarness *h = flow_harness_new ("cudaflowtvl1", "cpu", "GRAY8", w, hh);
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

  /* two identical flat frames: no range to normalise, zero gradient */
  {
    GstHarness *h = flow_harness_new ("cudaflowtvl1", "cpu", "GRAY8", 16, 12);
    cf_image *flat = cf_image_new (16, 12);
    int i;
    cf_image_fill (flat, 77.0f);
    for (i = 0; i < 2; i++) {
      GstBuffer *out = gst_harness_push_and_pull (h,
          flow_test_frame_from_grey ("GRAY8", flat, i));
      cf_flow *flow = flow_test_buffer_to_flow (out, 16, 12);
      fail_unless (flow_test_all_finite (flow));
      fail_unless (flow_test_max_abs (flow) == 0.0f);
      cf_flow_free (flow);
      gst_buffer_unref (out);
    }
    cf_image_free (flat);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The GPU has no fp16 variant of solver-kernel=steps: the CPU backend
 * refuses the pair too, with the GPU's message, so a CPU test catches it. */
GST_START_TEST (test_cpu_refuses_fp16_with_steps_like_the_gpu)
{
  GstHarness *h = flow_harness_new ("cudaflowtvl1", "cpu", "GRAY8", 32, 24);
  gchar *text;

  flow_test_set_properties (h->element, "preset=romera precision=fp16 "
      "solver-kernel=steps");
  text = flow_test_pair_error (h, 32, 24);
  fail_unless (strstr (text, "solver-kernel=steps has no precision=fp16")
      != NULL, "%s", text);
  g_free (text);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* warps-per-level and iterations-per-level: text properties, balanced's
 * lists by default, changeable while playing; every preset covers them
 * (so a preset leaves no list behind): fast and balanced set theirs, the
 * others clear them. */
GST_START_TEST (test_per_level_properties_and_presets)
{
  static const gchar *names[] = { "warps-per-level", "iterations-per-level" };
  static const gchar *defaults[] = { "1,2", "30,20" };
  GstElement *e = gst_element_factory_make ("cudaflowtvl1", NULL);
  const cf_preset *preset;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        names[i]);
    gchar *list = (gchar *) "unread";

    fail_unless (pspec != NULL, "no property %s", names[i]);
    fail_unless (G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_STRING);
    fail_unless (pspec->flags & GST_PARAM_MUTABLE_PLAYING);
    fail_unless (g_param_spec_get_default_value (pspec) != NULL);
    fail_unless_equals_string (g_value_get_string
        (g_param_spec_get_default_value (pspec)), defaults[i]);
    g_object_get (e, names[i], &list, NULL);
    fail_unless_equals_string (list, defaults[i]);
    g_free (list);
  }

  /* set, read back as set (blanks around it removed) */
  g_object_set (e, "warps-per-level", " 1,2,4 ", "iterations-per-level",
      "20,50,100", NULL);
  {
    gchar *w, *it;

    g_object_get (e, "warps-per-level", &w, "iterations-per-level", &it,
        NULL);
    fail_unless_equals_string (w, "1,2,4");
    fail_unless_equals_string (it, "20,50,100");
    g_free (w);
    g_free (it);
  }
  gst_object_unref (e);

  /* every preset writes both lists: fast (and realtime, its alias) and
   * balanced their schedules, the others empty */
  for (preset = cf_tvl1_param_table.presets; preset->name != NULL; preset++)
    for (i = 0; i < G_N_ELEMENTS (names); i++) {
      const cf_param_setting *set = preset->settings;

      while (set->name != NULL && strcmp (set->name, names[i]) != 0)
        set++;
      fail_unless (set->name != NULL, "preset %s leaves %s as it is",
          preset->name, names[i]);
      fail_unless ((set->text != NULL) == (!strcmp (preset->name, "fast") ||
              !strcmp (preset->name, "realtime") ||
              !strcmp (preset->name, "balanced")), "preset %s: %s \"%s\"",
          preset->name, names[i], set->text);
    }

  /* and the element applies that: each preset on its own leaves its lists
   * (fast's, realtime's and balanced's), and only an explicit setting is
   * listed as overriding it */
  for (preset = cf_tvl1_param_table.presets; preset->name != NULL; preset++) {
    gchar *w, *it, *overridden;

    e = gst_element_factory_make ("cudaflowtvl1", NULL);
    gst_util_set_object_arg (G_OBJECT (e), "preset", preset->name);
    g_object_get (e, "warps-per-level", &w, "iterations-per-level", &it,
        "overridden-properties", &overridden, NULL);
    if (!strcmp (preset->name, "fast") || !strcmp (preset->name, "realtime")) {
      fail_unless_equals_string (w, "1,1,1,2");
      fail_unless_equals_string (it, "3,10,20");
    } else if (!strcmp (preset->name, "balanced")) {
      fail_unless_equals_string (w, defaults[0]);
      fail_unless_equals_string (it, defaults[1]);
    } else {
      fail_unless (w == NULL && it == NULL, "preset %s: lists \"%s\", \"%s\"",
          preset->name, w, it);
    }
    fail_unless_equals_string (overridden, "");
    g_free (w);
    g_free (it);
    g_free (overridden);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* A list set explicitly, before or after a preset, survives it (the
 * preset's uniform counts still apply where no list is set). */
GST_START_TEST (test_preset_keeps_explicit_lists_in_either_order)
{
  static const gchar *orders[] = {
    "warps-per-level=1,2 iterations-per-level=5,6 preset=romera",
    "preset=romera warps-per-level=1,2 iterations-per-level=5,6",
    "preset=ipol iterations-per-level=5,6 warps-per-level=1,2",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (orders); i++) {
    GstElement *e = gst_element_factory_make ("cudaflowtvl1", NULL);
    gchar *w, *it, *overridden;
    gint levels;

    flow_test_set_properties (e, orders[i]);
    g_object_get (e, "warps-per-level", &w, "iterations-per-level", &it,
        "levels", &levels, "overridden-properties", &overridden, NULL);
    fail_unless_equals_string (w, "1,2");
    fail_unless_equals_string (it, "5,6");
    fail_unless_equals_int (levels, i < 2 ? 3 : 5);
    fail_unless_equals_string (overridden,
        "warps-per-level,iterations-per-level");
    g_free (w);
    g_free (it);
    g_free (overridden);
    gst_object_unref (e);
  }
}

GST_END_TEST;

static void
count_notify (GObject * object, GParamSpec * pspec, gpointer user_data)
{
  (*(gint *) user_data)++;
}

/* warps, iterations, lambda and median-size set explicitly count on every
 * level: each clears the per-level list that would override it (with a
 * notify), whether a preset comes before or after; a list set after the
 * count is kept. */
GST_START_TEST (test_explicit_count_clears_its_list)
{
  static const struct
  {
    const gchar *settings;
    const gchar *warps, *iterations, *lambdas, *overridden;
  } cases[] = {
    {"warps=3", NULL, "30,20", NULL, ""},
    {"iterations=10", "1,2", NULL, NULL, ""},
    {"preset=fast warps=3", NULL, "3,10,20", NULL, "warps"},
    {"warps=3 preset=fast", NULL, "3,10,20", NULL, "warps"},
    {"iterations=10 preset=balanced", "1,2", NULL, NULL, "iterations"},
    {"warps-per-level=1,2,3 warps=3", NULL, "30,20", NULL, ""},
    {"warps=3 warps-per-level=1,2,3", "1,2,3", "30,20", NULL, ""},
    {"preset=accurate lambda=0.3", NULL, NULL, NULL, "lambda"},
    {"lambda=0.3 preset=accurate", NULL, NULL, NULL, "lambda"},
    {"preset=accurate", NULL, NULL, "0.2,0.2,0.15", ""},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstElement *e = gst_element_factory_make ("cudaflowtvl1", NULL);
    gchar *w, *it, *lambdas, *overridden;

    flow_test_set_properties (e, cases[i].settings);
    g_object_get (e, "warps-per-level", &w, "iterations-per-level", &it,
        "lambda-per-level", &lambdas, "overridden-properties", &overridden,
        NULL);
    fail_unless (!g_strcmp0 (w, cases[i].warps) &&
        !g_strcmp0 (it, cases[i].iterations) &&
        !g_strcmp0 (lambdas, cases[i].lambdas) &&
        !g_strcmp0 (overridden, cases[i].overridden),
        "%s: warps-per-level \"%s\", iterations-per-level \"%s\", "
        "lambda-per-level \"%s\", overridden \"%s\"", cases[i].settings, w,
        it, lambdas, overridden);
    g_free (w);
    g_free (it);
    g_free (lambdas);
    g_free (overridden);
    gst_object_unref (e);
  }

  /* one notify for the cleared list, none when it is empty already */
  {
    GstElement *e = gst_element_factory_make ("cudaflowtvl1", NULL);
    gint notified = 0;

    g_signal_connect (e, "notify::warps-per-level", G_CALLBACK (count_notify),
        &notified);
    g_object_set (e, "warps", 3, NULL);
    fail_unless_equals_int (notified, 1);
    g_object_set (e, "warps", 4, NULL);
    fail_unless_equals_int (notified, 1);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* A list that does not parse is kept as set and refused at the first
 * solve, with the list and the reason in the message; a valid list (or an
 * empty one) clears the error. */
GST_START_TEST (test_bad_per_level_list_posts_an_error)
{
  static const struct
  {
    const gchar *name, *text, *why;
  } bad[] = {
    {"warps-per-level", "1,0", "is not a whole number >= 1"},
    {"warps-per-level", "2,1001", "above the limit 1000"},
    {"iterations-per-level", "10,abc", "entry 2 \"abc\""},
    {"iterations-per-level", "5,,5", "entry 2 is empty"},
    {"lambda-per-level", "0.4,-1", "entry 2 \"-1\" is not a number in"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstHarness *h = flow_harness_new ("cudaflowtvl1", "cpu", "GRAY8", 32, 24);
    gchar *text, *kept;

    gst_util_set_object_arg (G_OBJECT (h->element), "preset", "romera");
    g_object_set (h->element, bad[i].name, bad[i].text, NULL);
    g_object_get (h->element, bad[i].name, &kept, NULL);
    fail_unless_equals_string (kept, bad[i].text);
    g_free (kept);
    text = flow_test_pair_error (h, 32, 24);
    fail_unless (strstr (text, bad[i].name) != NULL &&
        strstr (text, bad[i].text) != NULL &&
        strstr (text, bad[i].why) != NULL, "%s", text);
    g_free (text);

    /* a valid list clears the error, and so does an empty one */
    g_object_set (h->element, bad[i].name, i % 2 ? "" : "2", NULL);
    gst_buffer_unref (gst_harness_push_and_pull (h,
            flow_test_random_frame ("GRAY8", 32, 24, 3, 2)));
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The element runs the per-level schedule the reference runs: with the
 * lists set, its flow is cf_tvl1_flow's with the same lists on the frames
 * stretched to 0..255 (the bound of the normalisation test, since λ is
 * scaled instead); lists that repeat the uniform counts give the uniform
 * flow bit for bit, and the schedule differs from both uniform ends. */
GST_START_TEST (test_per_level_lists_give_the_reference_flow)
{
  const gchar *listed = "levels=3 epsilon=0 warps-per-level=1,2 "
      "iterations-per-level=5,10,20";
  cf_synth_params sp;
  cf_image *f0, *f1, *r0, *r1;
  cf_flow *truth, *flow, *ref, *a, *b;
  cf_tvl1_params tp;
  double mean, max;
  int levels_used = 0;
  int x, y;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.angle = 2.0f;
  sp.zoom = 1.02f;
  fail_unless_equals_int (cf_synth_pair (96, 72, &sp, &f0, &f1, &truth),
      CF_OK);
  for (y = 0; y < f0->height; y++)
    for (x = 0; x < f0->width; x++) {
      cf_image_row (f0, y)[x] = roundf (cf_image_row (f0, y)[x]);
      cf_image_row (f1, y)[x] = roundf (cf_image_row (f1, y)[x]);
    }
  flow = element_flow (f0, f1, listed);

  r0 = cf_image_copy (f0);
  r1 = cf_image_copy (f1);
  cf_tvl1_normalize_pair (r0, r1);
  cf_tvl1_params_init (&tp);
  tp.epsilon = 0;
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&tp, "1,2", NULL),
      CF_OK);
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&tp,
          "5,10,20", NULL), CF_OK);
  ref = reference_flow (r0, r1, &tp, 3, &levels_used);
  fail_unless_equals_int (levels_used, 3);
  fail_unless_equals_int (cf_flow_diff (flow, ref, &mean, &max), CF_OK);
  GST_INFO ("per-level lists: element vs reference mean |d| %.2e max %.2e",
      mean, max);
  fail_unless (mean < 1e-3 && max < 1e-2, "mean %.2e max %.2e", mean, max);

  /* the uniform ends of the schedule give other flows */
  a = element_flow (f0, f1, "levels=3 epsilon=0 warps=1 iterations=5");
  b = element_flow (f0, f1, "levels=3 epsilon=0 warps=2 iterations=20");
  fail_unless_equals_int (cf_flow_diff (flow, a, &mean, &max), CF_OK);
  fail_unless (max > 0.0);
  fail_unless_equals_int (cf_flow_diff (flow, b, &mean, &max), CF_OK);
  fail_unless (max > 0.0);
  cf_flow_free (a);
  /* lists repeating 2 x 20 are that uniform schedule (set after the
   * counts, which would clear them) */
  a = element_flow (f0, f1, "levels=3 epsilon=0 warps=9 iterations=7 "
      "warps-per-level=2 iterations-per-level=20,20,20");
  cf_test_assert_flow_identical (a, b, "uniform lists vs 2 x 20");

  cf_image_free (f0);
  cf_image_free (f1);
  cf_image_free (r0);
  cf_image_free (r1);
  cf_flow_free (truth);
  cf_flow_free (flow);
  cf_flow_free (ref);
  cf_flow_free (a);
  cf_flow_free (b);
}

GST_END_TEST;

static gboolean
tvl1_accepts (const gchar * name, double value)
{
  cf_tvl1_params params;

  cf_tvl1_params_init (&params);
  return cf_tvl1_params_set (&params, name, value) == CF_OK;
}

/* One range for the property and the solver: each property's bounds are
 * what cf_tvl1_params_set (the solvers' check) accepts, and a pair runs at
 * the bounds. */
GST_START_TEST (test_property_ranges_are_the_solvers)
{
  static const gchar *names[] = { "tau", "lambda", "theta", "warps",
    "iterations", "epsilon", "sigma"
  };
  GstElement *e = gst_element_factory_make ("cudaflowtvl1", NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    flow_test_assert_range_is (e, names[i], tvl1_accepts);
  gst_object_unref (e);

  /* the largest λ, θ and ε run (λ scaled by normalize stays in range) */
  {
    GstHarness *h = flow_harness_new ("cudaflowtvl1", "cpu", "GRAY8", 24,
        16);
    int k;

    flow_test_set_properties (h->element, "preset=romera lambda=1e6 "
        "theta=1e6 epsilon=1e6");
    for (k = 0; k < 2; k++)
      gst_buffer_unref (gst_harness_push_and_pull (h,
              flow_test_random_frame ("GRAY8", 24, 16, 40 + k, k)));
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* median-size: 0 by default and from these presets, 3 or 5 when set and
 * kept across a preset set before or after, 4 refused (the value stays),
 * changeable while playing. */
GST_START_TEST (test_median_size_property)
{
  GstElement *e = gst_element_factory_make ("cudaflowtvl1", NULL);
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "median-size");
  const gchar *presets[] = { "ipol", "romera", "realtime" };
  gchar *overridden;
  gint size = -1;
  guint i;

  fail_unless (spec != NULL);
  fail_unless (G_PARAM_SPEC_VALUE_TYPE (spec) == G_TYPE_INT);
  fail_unless (spec->flags & GST_PARAM_MUTABLE_PLAYING);
  g_object_get (e, "median-size", &size, NULL);
  fail_unless_equals_int (size, 0);
  g_object_set (e, "median-size", 5, NULL);
  g_object_get (e, "median-size", &size, NULL);
  fail_unless_equals_int (size, 5);
  /* in the property's range 0 ... 5 but not a window size */
  g_object_set (e, "median-size", 4, NULL);
  g_object_get (e, "median-size", &size, NULL);
  fail_unless_equals_int (size, 5);
  g_object_set (e, "median-size", 3, NULL);
  g_object_get (e, "median-size", &size, NULL);
  fail_unless_equals_int (size, 3);
  gst_object_unref (e);

  for (i = 0; i < G_N_ELEMENTS (presets); i++) {
    /* the preset sets 0 ... */
    e = gst_element_factory_make ("cudaflowtvl1", NULL);
    gst_util_set_object_arg (G_OBJECT (e), "preset", presets[i]);
    g_object_get (e, "median-size", &size, "overridden-properties",
        &overridden, NULL);
    fail_unless_equals_int (size, 0);
    fail_unless_equals_string (overridden, "");
    g_free (overridden);
    /* ... but an explicit value, set after ... */
    g_object_set (e, "median-size", 5, NULL);
    g_object_get (e, "median-size", &size, "overridden-properties",
        &overridden, NULL);
    fail_unless_equals_int (size, 5);
    fail_unless_equals_string (overridden, "median-size");
    g_free (overridden);
    gst_object_unref (e);

    /* ... or before, wins */
    e = gst_element_factory_make ("cudaflowtvl1", NULL);
    g_object_set (e, "median-size", 3, NULL);
    gst_util_set_object_arg (G_OBJECT (e), "preset", presets[i]);
    g_object_get (e, "median-size", &size, NULL);
    fail_unless_equals_int (size, 3);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* @setting on the CPU backend against the reference: the synthetic pair
 * of @sp at 80 x 60 (rounded as GRAY8 carries it), solved by the element
 * with @base and with @base plus @setting, must give the reference's flow
 * with @tp on 3 levels when the setting is on (mean |diff| < 1e-4, max <
 * 1e-3) and differ from it by a mean above @min_effect when it is off.
 * The EPE against the truth with and without it go to @epe_with and
 * @epe_without. */
static void
check_setting_gives_reference (const cf_synth_params * sp,
    const gchar * base, const gchar * setting, const cf_tvl1_params * tp,
    double min_effect, double *epe_with, double *epe_without)
{
  cf_image *f0, *f1;
  cf_flow *truth, *flow, *plain, *ref;
  gchar *settings = g_strdup_printf ("%s %s", base, setting);
  double mean, max, mean_plain, max_plain;
  int x, y;

  fail_unless_equals_int (cf_synth_pair (80, 60, sp, &f0, &f1, &truth),
      CF_OK);
  for (y = 0; y < f0->height; y++)
    for (x = 0; x < f0->width; x++) {
      cf_image_row (f0, y)[x] = CLAMP (roundf (cf_image_row (f0, y)[x]), 0,
          255);
      cf_image_row (f1, y)[x] = CLAMP (roundf (cf_image_row (f1, y)[x]), 0,
          255);
    }
  flow = element_flow (f0, f1, settings);
  plain = element_flow (f0, f1, base);
  ref = reference_flow (f0, f1, tp, 3, NULL);

  fail_unless_equals_int (cf_flow_diff (flow, ref, &mean, &max), CF_OK);
  fail_unless_equals_int (cf_flow_diff (plain, ref, &mean_plain,
          &max_plain), CF_OK);
  *epe_with = cf_test_flow_epe (flow, truth, 0);
  *epe_without = cf_test_flow_epe (plain, truth, 0);
  GST_INFO ("%s vs reference: mean %.2e max %.2e; without it: mean %.2e "
      "max %.2e; EPE %.3f with, %.3f without", setting, mean, max,
      mean_plain, max_plain, *epe_with, *epe_without);
  fail_unless (mean < 1e-4 && max < 1e-3, "%s: mean %.2e max %.2e", setting,
      mean, max);
  fail_unless (mean_plain > min_effect, "%s: the element did not take it",
      setting);

  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
  cf_flow_free (plain);
  cf_flow_free (ref);
  g_free (settings);
}

/* median-size=5 on the CPU backend is the reference's median-filtered
 * solve, and not the unfiltered one (normalize=false: the element's
 * lambda scaling equals the reference's stretched frames only up to
 * rounding, which test_normalize_matches_stretched_reference bounds). */
GST_START_TEST (test_median_size_gives_the_filtered_reference)
{
  cf_synth_params sp;
  cf_tvl1_params tp;
  double epe_with, epe_without;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.angle = 2.0f;
  sp.zoom = 1.02f;
  cf_tvl1_params_init (&tp);
  fail_unless_equals_int (cf_tvl1_params_set (&tp, "warps", 2), CF_OK);
  fail_unless_equals_int (cf_tvl1_params_set (&tp, "iterations", 30), CF_OK);
  tp.epsilon = 0;
  /* by name, as the property: it clears the default's per-level list */
  fail_unless_equals_int (cf_tvl1_params_set (&tp, "median-size", 5), CF_OK);
  check_setting_gives_reference (&sp, "levels=3 warps=2 iterations=30 "
      "epsilon=0 normalize=false", "median-size=5", &tp, 1e-3, &epe_with,
      &epe_without);
}

GST_END_TEST;

/* brightness-model=true: on frames whose second is lit by 0.8 I + 20,
 * the element gives the reference's flow with the model, which is far
 * from the flow without it and closer to the truth. */
GST_START_TEST (test_brightness_model_gives_the_reference_flow)
{
  cf_synth_params sp;
  cf_tvl1_params tp;
  double epe_with, epe_without;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 1.5f;
  sp.gain = 0.8f;
  sp.bias = 20.0f;
  cf_tvl1_params_init (&tp);
  fail_unless_equals_int (cf_tvl1_params_set (&tp, "warps", 3), CF_OK);
  fail_unless_equals_int (cf_tvl1_params_set (&tp, "iterations", 20), CF_OK);
  tp.epsilon = 0;
  tp.brightness_model = 1;
  check_setting_gives_reference (&sp, "levels=3 warps=3 iterations=20 "
      "epsilon=0 normalize=false", "brightness-model=true", &tp, 1e-2,
      &epe_with, &epe_without);
  fail_unless (epe_with < 0.5 * epe_without, "EPE %.3f with, %.3f without",
      epe_with, epe_without);
}

GST_END_TEST;

static Suite *
elements_cudaflowtvl1_suite (void)
{
  Suite *s = suite_create ("cudaflowtvl1");
  TCase *tc = tcase_create ("cpu");
  TCase *data = tcase_create ("middlebury");

  cf_test_suite_add_tcase (s, tc, FALSE);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_defaults_are_balanced);
  tcase_add_test (tc, test_first_frame_is_gap);
  tcase_add_test (tc, test_synthetic_epe_bounds);
  tcase_add_test (tc, test_normalize_matches_stretched_reference);
  tcase_add_test (tc, test_every_input_format_gives_the_same_flow);
  tcase_add_test (tc, test_tiny_odd_wide_and_flat_frames);
  tcase_add_test (tc, test_cpu_refuses_fp16_with_steps_like_the_gpu);
  tcase_add_test (tc, test_property_ranges_are_the_solvers);
  tcase_add_test (tc, test_per_level_properties_and_presets);
  tcase_add_test (tc, test_preset_keeps_explicit_lists_in_either_order);
  tcase_add_test (tc, test_explicit_count_clears_its_list);
  tcase_add_test (tc, test_bad_per_level_list_posts_an_error);
  tcase_add_test (tc, test_per_level_lists_give_the_reference_flow);
  tcase_add_test (tc, test_median_size_property);
  tcase_add_test (tc, test_median_size_gives_the_filtered_reference);
  tcase_add_test (tc, test_brightness_model_gives_the_reference_flow);

  /* in elements/cudaflowtvl1-data, which skips (77) without
   * CUDAFLOW_DATA_DIR */
  cf_test_suite_add_tcase (s, data, TRUE);
  tcase_set_timeout (data, 600);
  tcase_add_test (data, test_defaults_give_ipol_epe_on_rubberwhale);
  return s;
}

#ifdef CF_TEST_DATA_SUITE
int
main (int argc, char **argv)
{
  return cf_test_run_data_suite (argc, argv, "elements_cudaflowtvl1", elements_cudaflowtvl1_suite,
      FALSE);
}
#else
GST_CHECK_MAIN (elements_cudaflowtvl1);
#endif
