/* gst-cudaflow — output=meta on the CPU backend: the video passes through
 * untouched and each frame carries the flow output=flow would have sent
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CUDA-memory version (flow kept in CUDA memory, no host map) is in
 * elements/flow-gpu.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/cudaflow/cudaflow.h>

#include "cf-test-util.h"
#include "flow-test-util.h"
#include "common/metrics.h"
#include "common/synth.h"

#define W 64
#define H 48

typedef struct
{
  const gchar *element;
  const gchar *settings;
  GstCudaFlowMethod method;
} Estimator;

static const Estimator estimators[] = {
  {"cudaflowhs", "", GST_CUDA_FLOW_METHOD_HORN_SCHUNCK},
  {"cudaflowtvl1", "preset=romera", GST_CUDA_FLOW_METHOD_TV_L1},
  {"cudaflowclg", "", GST_CUDA_FLOW_METHOD_CLG},
};

static GstHarness *
meta_harness_new (const Estimator * e, const gchar * format)
{
  GstHarness *h = cf_test_harness_new (e->element, "cpu", NULL);
  gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, "
      "height=%d, framerate=30/1", format, W, H);

  flow_test_set_properties (h->element, e->settings);
  gst_util_set_object_arg (G_OBJECT (h->element), "output", "meta");
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* Frames 0 and 1 of a synthetic translation by (1.5, -0.75) px. */
static void
make_pair (const gchar * format, GstBuffer ** f0, GstBuffer ** f1,
    cf_flow ** truth)
{
  cf_synth_params params;
  cf_image *i0, *i1;

  cf_synth_params_init (&params);
  fail_unless_equals_int (cf_synth_pair (W, H, &params, &i0, &i1, truth),
      CF_OK);
  *f0 = flow_test_frame_from_grey (format, i0, 0);
  *f1 = flow_test_frame_from_grey (format, i1, 1);
  cf_image_free (i0);
  cf_image_free (i1);
}

static cf_flow *
meta_to_flow (const GstCudaFlowMeta * meta)
{
  GstCudaFlowFrame frame;
  cf_flow *flow = cf_flow_new (meta->width, meta->height);

  fail_unless (gst_cuda_flow_meta_map ((GstCudaFlowMeta *) meta, &frame));
  cf_flow_from_interleaved (flow, (const float *) frame.data, frame.stride);
  gst_cuda_flow_frame_unmap (&frame);
  return flow;
}

GST_START_TEST (test_video_passes_through_with_meta)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (estimators); i++) {
    const Estimator *e = &estimators[i];
    GstHarness *h = meta_harness_new (e, "GRAY8");
    GstBuffer *f0, *f1, *out;
    GstMemory *mem0, *mem1;
    GstCudaFlowMeta *meta;
    GstCaps *caps, *in_caps;
    cf_flow *truth, *flow;
    cf_flow_error stats;

    make_pair ("GRAY8", &f0, &f1, &truth);
    mem0 = gst_buffer_peek_memory (f0, 0);
    mem1 = gst_buffer_peek_memory (f1, 0);

    /* the first frame: its own memory back, a meta that says "no flow" */
    out = gst_harness_push_and_pull (h, f0);
    fail_unless (gst_buffer_peek_memory (out, 0) == mem0, "%s", e->element);
    fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
    meta = gst_buffer_get_cuda_flow_meta (out);
    fail_unless (meta != NULL, "%s: no meta on the first frame", e->element);
    fail_if (meta->valid);
    fail_unless_equals_int (meta->width, W);
    fail_unless_equals_int (meta->height, H);
    fail_unless_equals_int (meta->stride, W * 8);
    fail_unless_equals_uint64 (meta->prev_pts, GST_CLOCK_TIME_NONE);
    fail_unless_equals_uint64 (meta->pts, 0);
    fail_unless_equals_int (meta->method, e->method);
    gst_buffer_unref (out);

    /* the second: the flow from frame 0 to frame 1, in system memory */
    out = gst_harness_push_and_pull (h, f1);
    fail_unless (gst_buffer_peek_memory (out, 0) == mem1);
    meta = gst_buffer_get_cuda_flow_meta (out);
    fail_unless (meta != NULL && meta->valid, "%s", e->element);
    fail_unless_equals_uint64 (meta->prev_pts, 0);
    fail_unless_equals_uint64 (meta->pts, GST_SECOND / 30);
    fail_unless_equals_uint64 (gst_buffer_get_size (meta->flow), W * H * 8);
    flow = meta_to_flow (meta);
    fail_unless_equals_int (cf_flow_compare (flow, truth, 8, &stats), CF_OK);
    GST_INFO ("%s: EPE %.3f against the known translation", e->element,
        stats.epe);
    fail_unless (stats.epe < 0.3, "%s: EPE %.3f", e->element, stats.epe);
    cf_flow_free (flow);
    gst_buffer_unref (out);

    /* same caps on both pads */
    caps = gst_pad_get_current_caps (h->sinkpad);
    in_caps = gst_pad_get_current_caps (h->srcpad);
    fail_unless (gst_caps_is_equal (caps, in_caps), "%" GST_PTR_FORMAT, caps);
    gst_caps_unref (in_caps);
    gst_caps_unref (caps);

    cf_flow_free (truth);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The field attached to the frame is, bit for bit, what output=flow
 * sends for the same frames, in every input format. */
GST_START_TEST (test_meta_equals_flow_output)
{
  const gchar *formats[] = { "GRAY8", "NV12", "I420", "RGBA", "BGRx" };
  guint i, f;

  for (i = 0; i < G_N_ELEMENTS (estimators); i++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      const Estimator *e = &estimators[i];
      GstHarness *hm = meta_harness_new (e, formats[f]);
      GstHarness *hf = flow_harness_new (e->element, "cpu", formats[f], W, H);
      GstBuffer *f0, *f1, *out_meta, *out_flow;
      cf_flow *truth, *a, *b;

      flow_test_set_properties (hf->element, e->settings);
      make_pair (formats[f], &f0, &f1, &truth);
      gst_buffer_unref (gst_harness_push_and_pull (hf, gst_buffer_ref (f0)));
      gst_buffer_unref (gst_harness_push_and_pull (hm, f0));
      out_flow = gst_harness_push_and_pull (hf, gst_buffer_ref (f1));
      out_meta = gst_harness_push_and_pull (hm, f1);

      a = flow_test_buffer_to_flow (out_flow, W, H);
      b = meta_to_flow (gst_buffer_get_cuda_flow_meta (out_meta));
      cf_test_assert_flow_identical (a, b, formats[f]);

      cf_flow_free (a);
      cf_flow_free (b);
      cf_flow_free (truth);
      gst_buffer_unref (out_meta);
      gst_buffer_unref (out_flow);
      gst_harness_teardown (hm);
      gst_harness_teardown (hf);
    }
}

GST_END_TEST;

/* A discontinuity breaks the pair: the meta says so, as the flow stream's
 * GAP does; the video itself is never flagged. */
GST_START_TEST (test_discont_makes_meta_invalid)
{
  GstHarness *h = meta_harness_new (&estimators[0], "GRAY8");
  GstCudaFlowMeta *meta;
  GstBuffer *out, *frame;
  int k;

  for (k = 0; k < 4; k++) {
    frame = flow_test_random_frame ("GRAY8", W, H, 10 + k, k);
    if (k == 2)
      GST_BUFFER_FLAG_SET (frame, GST_BUFFER_FLAG_DISCONT);
    out = gst_harness_push_and_pull (h, frame);
    meta = gst_buffer_get_cuda_flow_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->valid, k == 1 || k == 3);
    if (meta->valid) {
      fail_unless_equals_uint64 (meta->prev_pts, (k - 1) * GST_SECOND / 30);
    } else {
      fail_unless_equals_uint64 (meta->prev_pts, GST_CLOCK_TIME_NONE);
    }
    fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A frame someone else still holds is not written to: the element works
 * on a writable copy that shares its memory. */
GST_START_TEST (test_shared_frame_is_not_modified)
{
  GstHarness *h = meta_harness_new (&estimators[1], "GRAY8");
  GstBuffer *frame = flow_test_random_frame ("GRAY8", W, H, 3, 0);
  GstBuffer *out;

  gst_buffer_ref (frame);
  out = gst_harness_push_and_pull (h, frame);
  fail_unless (out != frame);
  fail_unless (gst_buffer_peek_memory (out, 0) ==
      gst_buffer_peek_memory (frame, 0));
  fail_unless (gst_buffer_get_cuda_flow_meta (out) != NULL);
  fail_unless (gst_buffer_get_cuda_flow_meta (frame) == NULL);
  gst_buffer_unref (out);
  gst_buffer_unref (frame);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* output is fixed at READY: switching it renegotiates to the other caps. */
GST_START_TEST (test_output_switch_in_ready)
{
  GstElement *e = gst_element_factory_make ("cudaflowtvl1", NULL);
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstCaps *caps, *in;

  g_object_set (e, "backend", 2 /* cpu */ , NULL);
  in = gst_caps_from_string ("video/x-raw, format=NV12, width=8, height=8, "
      "framerate=30/1");
  gst_util_set_object_arg (G_OBJECT (e), "output", "meta");
  caps = gst_pad_query_caps (src, NULL);
  fail_unless (gst_caps_can_intersect (caps, in));
  gst_caps_unref (caps);

  gst_util_set_object_arg (G_OBJECT (e), "output", "flow");
  fail_unless (gst_element_set_state (e, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_caps_unref (in);
  gst_object_unref (src);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
flow_meta_suite (void)
{
  Suite *s = suite_create ("elements/flow-meta");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_video_passes_through_with_meta);
  tcase_add_test (tc, test_meta_equals_flow_output);
  tcase_add_test (tc, test_discont_makes_meta_invalid);
  tcase_add_test (tc, test_shared_frame_is_not_modified);
  tcase_add_test (tc, test_output_switch_in_ready);
  return s;
}

GST_CHECK_MAIN (flow_meta);
