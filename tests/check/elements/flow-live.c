/* gst-cudaflow — the flow estimators in live pipelines: what interval a
 * field spans when frames go missing (QoS, PTS gaps, leaky queues) and in
 * reverse playback, and the per-frame statistics messages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is a textured pattern moving 2 px to the left per frame (as
 * `videotestsrc horizontal-speed=2` scrolls), built from the analytic
 * texture of common/synth.h so that every frame is exact: frame k at x is
 * T(x + 2k), hence I(t-1, x) = I(t, x + (-2, 0)) and the Middlebury flow
 * is u = -2, v = 0 between adjacent frames. Whatever goes missing, every
 * field that is not GAP must span what it says it spans: u = -2 per frame
 * of the interval. All on the CPU backend.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/cudaflow/cudaflow.h>

#include "cf-test-util.h"
#include "flow-test-util.h"
#include "common/synth.h"

#define W 64
#define H 48
#define FRAME (GST_SECOND / 30)
/* the pattern's motion per frame, pixels (Middlebury u) */
#define SPEED 2.0f
/* median of u over the interior against the motion: the estimators are
 * within 0.1 px of it on this texture; 0.3 px is the bar the issue sets */
#define U_TOLERANCE 0.3
/* pixels left out at each border (motion enters and leaves there) */
#define BORDER 8
#define PREVIOUS_FRAME_CAPS "timestamp/x-cudaflow-previous-frame"

typedef struct
{
  const gchar *element;
  const gchar *settings;
} Estimator;

static const Estimator estimators[] = {
  {"cudaflowhs", ""},
  {"cudaflowtvl1", ""},
  {"cudaflowclg", ""},
};

/* Frame @k of the moving pattern, stamped with @pts. */
static GstBuffer *
moving_frame (int k, GstClockTime pts)
{
  cf_synth_params sp;
  cf_image *img = cf_image_new (W, H);
  GstBuffer *buf;

  cf_synth_params_init (&sp);
  fail_unless_equals_int (cf_synth_texture (&sp, SPEED * k, 0.0f, img),
      CF_OK);
  buf = flow_test_frame_from_grey ("GRAY8", img, k);
  cf_image_free (img);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = FRAME;
  return buf;
}

static int
compare_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

/* Median of u over the interior of a packed UV_F32LE field. */
static double
median_u (GstBuffer * out)
{
  cf_flow *flow = flow_test_buffer_to_flow (out, W, H);
  float *u = g_new (float, W * H);
  double median;
  int x, y, n = 0;

  for (y = BORDER; y < H - BORDER; y++)
    for (x = BORDER; x < W - BORDER; x++)
      u[n++] = flow->u[x + y * flow->pitch];
  qsort (u, n, sizeof (float), compare_float);
  median = u[n / 2];
  g_free (u);
  cf_flow_free (flow);
  return median;
}

/* The interval a field of the flow stream spans: its reference timestamp
 * meta (frame t-1's PTS, distance between the PTS); FALSE without one. */
static gboolean
field_interval (GstBuffer * out, GstClockTime * prev, GstClockTime * span)
{
  GstCaps *caps = gst_caps_new_empty_simple (PREVIOUS_FRAME_CAPS);
  GstReferenceTimestampMeta *meta =
      gst_buffer_get_reference_timestamp_meta (out, caps);

  gst_caps_unref (caps);
  if (meta == NULL)
    return FALSE;
  *prev = meta->timestamp;
  *span = meta->duration;
  return TRUE;
}

/* A non-GAP field: its interval names frame t-1 and its median u is the
 * pattern's motion over that interval. */
static void
check_field (GstBuffer * out, GstClockTime expected_prev, const gchar * what)
{
  GstClockTime prev, span;
  double frames, u;

  fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP), "%s: GAP",
      what);
  fail_unless (field_interval (out, &prev, &span), "%s: no interval", what);
  fail_unless_equals_uint64 (prev, expected_prev);
  fail_unless_equals_uint64 (span, GST_BUFFER_PTS (out) > prev ?
      GST_BUFFER_PTS (out) - prev : prev - GST_BUFFER_PTS (out));
  /* forward in time: the pattern moves -SPEED per frame; backward: +SPEED */
  frames = (double) span / FRAME;
  if (GST_BUFFER_PTS (out) < prev)
    frames = -frames;
  u = median_u (out);
  GST_INFO ("%s: %" GST_TIME_FORMAT " from %" GST_TIME_FORMAT ": median u "
      "%.3f", what, GST_TIME_ARGS (GST_BUFFER_PTS (out)),
      GST_TIME_ARGS (prev), u);
  fail_unless (fabs (u - (-SPEED * frames)) <= U_TOLERANCE * fabs (frames),
      "%s: median u %.3f over %.1f frames, expected %.1f", what, u, frames,
      -SPEED * frames);
}

static GstHarness *
live_harness_new (const Estimator * e, const gchar * extra)
{
  GstHarness *h = flow_harness_new (e->element, "cpu", "GRAY8", W, H);

  flow_test_set_properties (h->element, e->settings);
  if (extra != NULL)
    flow_test_set_properties (h->element, extra);
  return h;
}

/* A late sink: QoS says frames 3..5 are too late. Those three produce no
 * output (dropped as GstBaseTransform would), but their pyramids are
 * built, so the field of frame 6 is still the flow from frame 5: u = -2.
 * Without that, frame 6 got the flow from frame 2 (u = -8) unflagged. */
GST_START_TEST (test_qos_drops_keep_flow_between_adjacent_frames)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (estimators); e++) {
    GstHarness *h = live_harness_new (&estimators[e], "qos=true");
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    guint qos_messages = 0;
    int k, outputs = 0;

    gst_element_set_bus (h->element, bus);
    for (k = 0; k < 10; k++) {
      GstBuffer *out;

      if (k == 3)
        /* earliest = timestamp + diff = frame 5's PTS */
        fail_unless (gst_harness_push_upstream_event (h,
                gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.5,
                    (GstClockTimeDiff) (3 * FRAME), 2 * FRAME)));
      if (k == 6)
        /* the sink caught up: frame 5 was rendered a frame early */
        fail_unless (gst_harness_push_upstream_event (h,
                gst_event_new_qos (GST_QOS_TYPE_OVERFLOW, 1.0,
                    -(GstClockTimeDiff) FRAME, 5 * FRAME)));
      fail_unless_equals_int (gst_harness_push (h, moving_frame (k,
                  k * FRAME)), GST_FLOW_OK);
      out = gst_harness_try_pull (h);
      if (k >= 3 && k <= 5) {
        fail_unless (out == NULL, "%s: late frame %d was not dropped",
            estimators[e].element, k);
        continue;
      }
      fail_unless (out != NULL);
      outputs++;
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * FRAME);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), FRAME);
      if (k == 0) {
        fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
      } else {
        gchar *what = g_strdup_printf ("%s frame %d", estimators[e].element,
            k);
        check_field (out, (k - 1) * FRAME, what);
        g_free (what);
      }
      gst_buffer_unref (out);
    }
    fail_unless_equals_int (outputs, 7);
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS)) != NULL) {
      qos_messages++;
      gst_message_unref (msg);
    }
    fail_unless_equals_int (qos_messages, 3);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* output=meta under QoS: late frames are dropped (video and all), and the
 * frame after them carries the flow from the last late frame. */
GST_START_TEST (test_qos_with_meta_keeps_pairs_adjacent)
{
  GstHarness *h = cf_test_harness_new ("cudaflowhs", "cpu", NULL);
  int k;

  gst_util_set_object_arg (G_OBJECT (h->element), "output", "meta");
  gst_util_set_object_arg (G_OBJECT (h->element), "qos", "true");
  gst_harness_set_src_caps_str (h, "video/x-raw, format=GRAY8, width=64, "
      "height=48, framerate=30/1");
  for (k = 0; k < 6; k++) {
    GstBuffer *out;
    GstCudaFlowMeta *meta;

    if (k == 2)
      /* earliest = frame 3's PTS */
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.5,
                  (GstClockTimeDiff) (2 * FRAME), FRAME)));
    fail_unless_equals_int (gst_harness_push (h, moving_frame (k,
                k * FRAME)), GST_FLOW_OK);
    out = gst_harness_try_pull (h);
    if (k == 2 || k == 3) {
      fail_unless (out == NULL, "late frame %d was not dropped", k);
      continue;
    }
    fail_unless (out != NULL);
    meta = gst_buffer_get_cuda_flow_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->valid, k > 0);
    if (k > 0)
      fail_unless_equals_uint64 (meta->prev_pts, (k - 1) * FRAME);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Frames 3 and 4 never arrive (no DISCONT either): the PTS step of 3 frames
 * is more than max-gap (1.5 frames by default), so frame 5 gets a GAP zero
 * field and frame 6 the flow from frame 5. */
GST_START_TEST (test_pts_jump_gives_gap_then_adjacent_flow)
{
  static const int frames[] = { 0, 1, 2, 5, 6, 7 };
  guint e, i;

  for (e = 0; e < G_N_ELEMENTS (estimators); e++) {
    GstHarness *h = live_harness_new (&estimators[e], NULL);

    for (i = 0; i < G_N_ELEMENTS (frames); i++) {
      int k = frames[i];
      GstBuffer *out = gst_harness_push_and_pull (h, moving_frame (k,
              k * FRAME));

      if (k == 0 || k == 5) {
        cf_flow *zero = flow_test_buffer_to_flow (out, W, H);

        fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP),
            "%s frame %d", estimators[e].element, k);
        fail_unless_equals_float (flow_test_max_abs (zero), 0.0f);
        cf_flow_free (zero);
      } else {
        check_field (out, (frames[i - 1]) * FRAME, estimators[e].element);
      }
      gst_buffer_unref (out);
    }
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The same with output=meta: valid = FALSE where the stream sends GAP, and
 * prev_pts -> pts the interval otherwise. */
GST_START_TEST (test_pts_jump_makes_meta_invalid)
{
  static const int frames[] = { 0, 1, 4, 5 };
  GstHarness *h = cf_test_harness_new ("cudaflowtvl1", "cpu", NULL);
  guint i;

  /* output is fixed before the caps are */
  gst_util_set_object_arg (G_OBJECT (h->element), "output", "meta");
  gst_harness_set_src_caps_str (h, "video/x-raw, format=GRAY8, width=64, "
      "height=48, framerate=30/1");

  for (i = 0; i < G_N_ELEMENTS (frames); i++) {
    int k = frames[i];
    GstBuffer *out = gst_harness_push_and_pull (h, moving_frame (k,
            k * FRAME));
    GstCudaFlowMeta *meta = gst_buffer_get_cuda_flow_meta (out);

    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->valid, k == 1 || k == 5);
    fail_unless_equals_uint64 (meta->pts, k * FRAME);
    if (meta->valid)
      fail_unless_equals_uint64 (meta->prev_pts, (k - 1) * FRAME);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A leaky queue dropping every other frame: each frame that gets through
 * is 2 frame durations after the last and flagged DISCONT (as queue marks
 * it). By default that is more than max-gap: every field is GAP, none is a
 * wrong flow. With max-gap=2.5 the fields span the 2 frames, say so, and
 * hold the motion over them (u = -4). */
GST_START_TEST (test_leaky_queue_pattern_gap_or_spanning_flow)
{
  guint e, pass;

  for (e = 0; e < G_N_ELEMENTS (estimators); e++) {
    for (pass = 0; pass < 2; pass++) {
      GstHarness *h = live_harness_new (&estimators[e],
          pass == 0 ? NULL : "max-gap=2.5");
      int k;

      for (k = 0; k <= 8; k += 2) {
        GstBuffer *in = moving_frame (k, k * FRAME), *out;

        if (k > 0)
          GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
        out = gst_harness_push_and_pull (h, in);
        if (k == 0 || pass == 0)
          fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP),
              "%s frame %d", estimators[e].element, k);
        else
          check_field (out, (k - 2) * FRAME, estimators[e].element);
        gst_buffer_unref (out);
      }
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* A DISCONT with no frame missing is a change of content (a source switch
 * on one timeline): it restarts with GAP whatever max-gap says. */
GST_START_TEST (test_discont_without_missing_frames_restarts)
{
  GstHarness *h = live_harness_new (&estimators[0], "max-gap=5");
  GstBuffer *in, *out;

  gst_buffer_unref (gst_harness_push_and_pull (h, moving_frame (0, 0)));
  in = moving_frame (1, FRAME);
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  gst_buffer_unref (out);
  out = gst_harness_push_and_pull (h, moving_frame (2, 2 * FRAME));
  check_field (out, FRAME, "after DISCONT");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* max-gap=0: no PTS check, so a jump keeps the history and the field says
 * it spans the jump (the documented way to get flow across any gap). */
GST_START_TEST (test_max_gap_zero_spans_any_step)
{
  GstHarness *h = live_harness_new (&estimators[1], "max-gap=0");
  GstBuffer *out;

  gst_buffer_unref (gst_harness_push_and_pull (h, moving_frame (0, 0)));
  out = gst_harness_push_and_pull (h, moving_frame (2, 2 * FRAME));
  check_field (out, 0, "max-gap=0");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Reverse playback (rate -1): frames arrive with falling PTS and each
 * field is the flow from the frame that arrived before, i.e. backwards in
 * stream time: the interval says so (frame t-1's PTS is the later one) and
 * the pattern, seen backwards, moves right (u = +2). */
GST_START_TEST (test_reverse_playback_flow_spans_backwards)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (estimators); e++) {
    GstHarness *h = live_harness_new (&estimators[e], NULL);
    GstSegment segment;
    int k;

    gst_segment_init (&segment, GST_FORMAT_TIME);
    segment.rate = -1.0;
    segment.start = 0;
    segment.stop = 10 * FRAME;
    segment.position = segment.stop;
    fail_unless (gst_harness_push_event (h, gst_event_new_segment
            (&segment)));
    for (k = 9; k >= 5; k--) {
      GstBuffer *out = gst_harness_push_and_pull (h, moving_frame (k,
              k * FRAME));

      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * FRAME);
      if (k == 9)
        fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
      else
        check_field (out, (k + 1) * FRAME, estimators[e].element);
      gst_buffer_unref (out);
    }
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* post-messages: one "cudaflow-stats" element message per frame, with the
 * motion of the field (mean about 2 px here), the iterations that ran and
 * the solve time; TV-L1's ε stop runs fewer than the cap. */
GST_START_TEST (test_post_messages_one_per_frame)
{
  guint e;

  for (e = 0; e < G_N_ELEMENTS (estimators); e++) {
    GstHarness *h = live_harness_new (&estimators[e], "post-messages=true");
    GstBus *bus = gst_bus_new ();
    int k;

    gst_element_set_bus (h->element, bus);
    for (k = 0; k < 3; k++) {
      const GstStructure *s;
      GstMessage *msg;
      gboolean valid;
      gdouble mean, max;
      gint64 iterations;
      guint64 solve_time, ts, prev;

      gst_buffer_unref (gst_harness_push_and_pull (h, moving_frame (k,
                  k * FRAME)));
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
      fail_unless (msg != NULL);
      s = gst_message_get_structure (msg);
      fail_unless (gst_structure_has_name (s, "cudaflow-stats"));
      fail_unless (gst_structure_get (s, "valid", G_TYPE_BOOLEAN, &valid,
              "timestamp", G_TYPE_UINT64, &ts,
              "previous-timestamp", G_TYPE_UINT64, &prev,
              "mean-motion", G_TYPE_DOUBLE, &mean,
              "max-motion", G_TYPE_DOUBLE, &max,
              "iterations", G_TYPE_INT64, &iterations,
              "solve-time", G_TYPE_UINT64, &solve_time, NULL));
      fail_unless_equals_uint64 (ts, k * FRAME);
      fail_unless_equals_int (valid, k > 0);
      if (k == 0) {
        fail_unless_equals_uint64 (prev, GST_CLOCK_TIME_NONE);
        fail_unless_equals_float (max, 0.0);
      } else {
        fail_unless_equals_uint64 (prev, (k - 1) * FRAME);
        fail_unless (mean > 1.5 && mean < 2.5, "%s: mean motion %f",
            estimators[e].element, mean);
        fail_unless (max >= mean);
        fail_unless (iterations > 0);
        fail_unless (solve_time > 0);
      }
      if (e == 1 && k > 0) {
        gint levels, warps, cap;
        g_object_get (h->element, "levels", &levels, "warps", &warps,
            "iterations", &cap, NULL);
        fail_unless (iterations < (gint64) levels * warps * cap,
            "TV-L1 ran %" G_GINT64_FORMAT " iterations: no epsilon stop",
            iterations);
      }
      gst_message_unref (msg);
      fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);
    }
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The pipeline: a live scrolling pattern into an estimator slower
 * than real time behind a synchronising sink with QoS. Frames get dropped,
 * and every field that is produced spans one frame interval and holds the
 * pattern's motion (checkers: the mean |(u, v)| is the 2 px scroll). */
GST_START_TEST (test_late_sink_pipeline_fields_stay_adjacent)
{
  GstElement *pipe;
  GstBus *bus;
  GstMessage *msg;
  GError *error = NULL;
  guint fields = 0, drops = 0;
  gboolean done = FALSE;

  pipe = gst_parse_launch ("videotestsrc is-live=true horizontal-speed=2 "
      "pattern=checkers-8 num-buffers=30 ! video/x-raw,width=320,height=240,"
      "framerate=30/1 ! cudaflowhs backend=cpu iterations=500 qos=true "
      "post-messages=true "
      "! fakesink sync=true qos=true", &error);
  fail_unless (pipe != NULL, "%s", error ? error->message : "");
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (!done && (msg = gst_bus_timed_pop (bus, 60 * GST_SECOND)) != NULL) {
    const GstStructure *s = gst_message_get_structure (msg);

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      case GST_MESSAGE_ERROR:
        fail ("error message");
        break;
      case GST_MESSAGE_QOS:
        if (GST_IS_ELEMENT (GST_MESSAGE_SRC (msg)) &&
            g_str_has_prefix (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
                "cudaflowhs"))
          drops++;
        break;
      case GST_MESSAGE_ELEMENT:
        if (gst_structure_has_name (s, "cudaflow-stats")) {
          gboolean valid;
          guint64 ts, prev;
          gdouble mean;

          fail_unless (gst_structure_get (s, "valid", G_TYPE_BOOLEAN, &valid,
                  "timestamp", G_TYPE_UINT64, &ts, "previous-timestamp",
                  G_TYPE_UINT64, &prev, "mean-motion", G_TYPE_DOUBLE, &mean,
                  NULL));
          if (valid) {
            fields++;
            /* one frame interval, to the live clock's rounding */
            fail_unless (ts - prev > FRAME - GST_MSECOND &&
                ts - prev < FRAME + GST_MSECOND, "field from %"
                GST_TIME_FORMAT " to %" GST_TIME_FORMAT, GST_TIME_ARGS (prev),
                GST_TIME_ARGS (ts));
            fail_unless (fabs (mean - SPEED) <= U_TOLERANCE,
                "mean motion %f", mean);
          }
        }
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  fail_unless (done, "no EOS");
  GST_INFO ("%u fields, %u QoS drops", fields, drops);
  fail_unless (fields > 0);
  fail_unless (drops > 0, "the sink never made the estimator drop a frame");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
elements_flow_live_suite (void)
{
  Suite *s = suite_create ("elements-flow-live");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_qos_drops_keep_flow_between_adjacent_frames);
  tcase_add_test (tc, test_qos_with_meta_keeps_pairs_adjacent);
  tcase_add_test (tc, test_pts_jump_gives_gap_then_adjacent_flow);
  tcase_add_test (tc, test_pts_jump_makes_meta_invalid);
  tcase_add_test (tc, test_leaky_queue_pattern_gap_or_spanning_flow);
  tcase_add_test (tc, test_discont_without_missing_frames_restarts);
  tcase_add_test (tc, test_max_gap_zero_spans_any_step);
  tcase_add_test (tc, test_reverse_playback_flow_spans_backwards);
  tcase_add_test (tc, test_post_messages_one_per_frame);
  tcase_add_test (tc, test_late_sink_pipeline_fields_stay_adjacent);
  return s;
}

GST_CHECK_MAIN (elements_flow_live);
