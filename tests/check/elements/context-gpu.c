/* gst-cudaflow — which CUDA context an element runs in: one per device for
 * the whole process unless the pipeline or the application has one,
 * cuda-device-id checked against the devices there are. Exits 77 without a
 * device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <cuda_runtime.h>
#include <gst/check/gstcheck.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "cf-test-util.h"

#define UPLOAD_PIPELINE "videotestsrc num-buffers=4 ! " \
    "video/x-raw,format=RGBA,width=64,height=48 ! cudaupload name=up ! " \
    "video/x-raw(memory:CUDAMemory) ! cudaconvolve name=conv backend=cuda " \
    "kernel-preset=gaussian sigma=1 ! cudaflowtvl1 name=flow backend=cuda " \
    "preset=fast ! fakesink"

static gboolean
have_cudaupload (void)
{
  GstElementFactory *f = gst_element_factory_find ("cudaupload");

  if (f == NULL) {
    GST_WARNING ("nvcodec's cudaupload is not available; skipping");
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
}

/* The context @name of @pipeline answers a neighbour with (a new ref). */
static GstCudaContext *
context_of (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *ctx = NULL;

  fail_unless (e != NULL);
  if (gst_element_query (e, query)) {
    GstContext *context = NULL;

    gst_query_parse_context (query, &context);
    fail_unless (context != NULL);
    gst_structure_get (gst_context_get_structure (context),
        GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &ctx, NULL);
  }
  gst_query_unref (query);
  gst_object_unref (e);
  fail_unless (ctx != NULL, "%s answered no CUDA context", name);
  return ctx;
}

static GstElement *
paused_pipeline (const gchar * description)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (description, &err);

  fail_unless (p != NULL && err == NULL, "%s", err ? err->message : "");
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          20 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  return p;
}

static void
stop_pipeline (GstElement * p)
{
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

/* Two pipelines, built apart as an application serving two cameras does:
 * one CUDA context between them, and the nvcodec element that opens first
 * in each takes it from ours rather than making its own. */
GST_START_TEST (test_pipelines_share_one_context)
{
  GstElement *a, *b;
  GstCudaContext *ca, *cb, *fa, *ua;

  if (!have_cudaupload ())
    return;
  a = paused_pipeline (UPLOAD_PIPELINE);
  b = paused_pipeline (UPLOAD_PIPELINE);
  ca = context_of (a, "conv");
  fa = context_of (a, "flow");
  ua = context_of (a, "up");
  cb = context_of (b, "conv");
  fail_unless (ca == fa, "two elements of one pipeline in two contexts");
  fail_unless (ca == ua, "cudaupload made a context of its own");
  fail_unless (ca == cb, "two pipelines in two contexts");
  gst_object_unref (ca);
  gst_object_unref (cb);
  gst_object_unref (fa);
  gst_object_unref (ua);
  stop_pipeline (a);
  stop_pipeline (b);
}

GST_END_TEST;

/* The process's context goes with its last user: a pipeline started
 * afterwards gets a fresh one that works. */
GST_START_TEST (test_shared_context_is_released)
{
  GstElement *a;
  GstCudaContext *ca;
  GWeakRef weak;

  if (!have_cudaupload ())
    return;
  a = paused_pipeline (UPLOAD_PIPELINE);
  ca = context_of (a, "conv");
  g_weak_ref_init (&weak, ca);
  gst_object_unref (ca);
  stop_pipeline (a);
  ca = g_weak_ref_get (&weak);
  fail_unless (ca == NULL, "the context outlived every element");
  g_weak_ref_clear (&weak);

  a = paused_pipeline (UPLOAD_PIPELINE);
  fail_unless_equals_int (gst_element_set_state (a, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  {
    GstBus *bus = gst_element_get_bus (a);
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    gst_object_unref (bus);
  }
  stop_pipeline (a);
}

GST_END_TEST;

static GstBusSyncReply
give_context (GstBus * bus, GstMessage * msg, gpointer data)
{
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT
      && gst_message_parse_context_type (msg, &type)
      && g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) == 0) {
    GstContext *context = gst_context_new_cuda_context (data);

    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), context);
    gst_context_unref (context);
  }
  return GST_BUS_PASS;
}

/* An application that answers need-context with its own context (to run
 * its CUDA code on our output, say) gets every element in it. */
GST_START_TEST (test_application_context_wins)
{
  GstCudaContext *mine, *conv, *up;
  GstElement *p;
  GstBus *bus;
  GError *err = NULL;

  if (!have_cudaupload ())
    return;
  fail_unless (gst_cuda_load_library ());
  mine = gst_cuda_context_new (0);
  fail_unless (mine != NULL);
  p = gst_parse_launch (UPLOAD_PIPELINE, &err);
  fail_unless (p != NULL && err == NULL);
  bus = gst_element_get_bus (p);
  gst_bus_set_sync_handler (bus, give_context, mine, NULL);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          20 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  conv = context_of (p, "conv");
  up = context_of (p, "up");
  fail_unless (conv == mine, "the application's context was not used");
  fail_unless (up == mine);
  gst_object_unref (conv);
  gst_object_unref (up);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  stop_pipeline (p);
  gst_object_unref (mine);
}

GST_END_TEST;

/* cuda-device-id=-1 follows the context upstream already holds. */
GST_START_TEST (test_any_device_follows_upstream_context)
{
  GstCudaContext *mine, *conv;
  GstContext *context;
  GstElement *p, *up;
  GError *err = NULL;

  if (!have_cudaupload ())
    return;
  fail_unless (gst_cuda_load_library ());
  mine = gst_cuda_context_new (0);
  fail_unless (mine != NULL);
  p = gst_parse_launch (UPLOAD_PIPELINE, &err);
  fail_unless (p != NULL && err == NULL);
  up = gst_bin_get_by_name (GST_BIN (p), "up");
  context = gst_context_new_cuda_context (mine);
  gst_element_set_context (up, context);
  gst_context_unref (context);
  gst_object_unref (up);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          20 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  conv = context_of (p, "conv");
  fail_unless (conv == mine, "cuda-device-id=-1 did not follow upstream");
  gst_object_unref (conv);
  stop_pipeline (p);
  gst_object_unref (mine);
}

GST_END_TEST;

/* A device that does not exist is an error that says so, whatever the
 * backend: falling back to the CPU would hide the mistake. */
GST_START_TEST (test_device_out_of_range_is_a_clear_error)
{
  static const gchar *backends[] = { "cuda", "auto" };
  int devices = 0;
  guint i;

  fail_unless_equals_int (cudaGetDeviceCount (&devices), cudaSuccess);
  for (i = 0; i < G_N_ELEMENTS (backends); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 ! "
        "video/x-raw,format=GRAY8,width=32,height=24 ! cudaconvolve "
        "backend=%s cuda-device-id=%d kernel-preset=box ! fakesink",
        backends[i], devices);
    GstElement *p = gst_parse_launch (desc, NULL);
    GstBus *bus = gst_element_get_bus (p);
    GstMessage *msg;
    GError *err = NULL;
    gchar *want = g_strdup_printf ("cuda-device-id=%d", devices);

    gst_element_set_state (p, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
        "backend=%s: no error for a device beyond the last", backends[i]);
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (strstr (err->message, want) != NULL, "backend=%s: '%s'",
        backends[i], err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
    gst_object_unref (bus);
    stop_pipeline (p);
    g_free (want);
    g_free (desc);
  }
}

GST_END_TEST;

static Suite *
elements_context_gpu_suite (void)
{
  Suite *s = suite_create ("context-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_pipelines_share_one_context);
  tcase_add_test (tc, test_shared_context_is_released);
  tcase_add_test (tc, test_application_context_wins);
  tcase_add_test (tc, test_any_device_follows_upstream_context);
  tcase_add_test (tc, test_device_out_of_range_is_a_clear_error);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "elements_context_gpu",
      elements_context_gpu_suite);
}
