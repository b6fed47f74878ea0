/* gst-cudaflow — a flow element on one pair of frames, through GStreamer
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "flow-eval-core.h"

#include <math.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

/* The GstContext type nvcodec and the cudaflow elements share. */
#define CUDA_CONTEXT_TYPE "gst.cuda.context"
/* How long one pair may take (a CPU backend on a large frame is slow). */
#define PULL_TIMEOUT (600 * GST_SECOND)

struct cf_flow_eval
{
  GMutex lock;
  GstContext *cuda_context;     /* the first one announced, or NULL */
};

cf_flow_eval *
cf_flow_eval_new (void)
{
  cf_flow_eval *ev = g_new0 (cf_flow_eval, 1);

  g_mutex_init (&ev->lock);
  return ev;
}

void
cf_flow_eval_free (cf_flow_eval * ev)
{
  if (ev == NULL)
    return;
  if (ev->cuda_context)
    gst_context_unref (ev->cuda_context);
  g_mutex_clear (&ev->lock);
  g_free (ev);
}

/* Bus sync handler: keep the first CUDA context an element announces
 * (posted from whichever thread creates it). */
static GstBusSyncReply
keep_cuda_context (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  cf_flow_eval *ev = user_data;
  GstContext *context = NULL;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_HAVE_CONTEXT)
    return GST_BUS_PASS;
  gst_message_parse_have_context (msg, &context);
  if (context != NULL && g_strcmp0 (gst_context_get_context_type (context),
          CUDA_CONTEXT_TYPE) == 0) {
    g_mutex_lock (&ev->lock);
    if (ev->cuda_context == NULL)
      ev->cuda_context = gst_context_ref (context);
    g_mutex_unlock (&ev->lock);
  }
  if (context != NULL)
    gst_context_unref (context);
  return GST_BUS_PASS;
}

static GstBuffer *
grey_buffer (const cf_image * image, int index)
{
  int stride = (image->width + 3) & ~3; /* GstVideoInfo's GRAY8 stride */
  GstBuffer *buffer = gst_buffer_new_allocate (NULL,
      (gsize) stride * image->height, NULL);
  GstMapInfo map;
  int x, y;

  gst_buffer_map (buffer, &map, GST_MAP_WRITE);
  for (y = 0; y < image->height; y++) {
    const float *row = cf_image_row (image, y);
    guint8 *out = map.data + (gsize) y * stride;
    for (x = 0; x < image->width; x++) {
      float v = roundf (row[x]);
      out[x] = (guint8) (v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
  gst_buffer_unmap (buffer, &map);
  GST_BUFFER_PTS (buffer) = gst_util_uint64_scale (index, GST_SECOND, 30);
  GST_BUFFER_DURATION (buffer) = gst_util_uint64_scale (1, GST_SECOND, 30);
  return buffer;
}

/* The error the pipeline posted, as "message (debug)", or NULL. */
static gchar *
posted_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gchar *text = NULL;

  if (msg != NULL) {
    GError *error = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &error, &dbg);
    text = g_strdup_printf ("%s (%s)", error->message, dbg ? dbg : "");
    g_clear_error (&error);
    g_free (dbg);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return text;
}

/* The interleaved UV_F32LE field of @sample as a planar flow of
 * width x height, or NULL when the buffer is too small. */
static cf_flow *
flow_from_sample (GstSample * sample, int width, int height)
{
  GstBuffer *buffer = gst_sample_get_buffer (sample);
  gsize row = (gsize) width * 2 * sizeof (float);
  cf_flow *flow;
  GstMapInfo map;

  if (buffer == NULL || gst_buffer_get_size (buffer) < row * height)
    return NULL;
  flow = cf_flow_new (width, height);
  if (flow == NULL || !gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    cf_flow_free (flow);
    return NULL;
  }
  cf_flow_from_interleaved (flow, (const float *) map.data, row);
  gst_buffer_unmap (buffer, &map);
  return flow;
}

cf_flow *
cf_flow_eval_run (cf_flow_eval * ev, GstElement * element,
    const cf_image * f0, const cf_image * f1, gchar ** error)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("appsrc", NULL);
  GstElement *sink = gst_element_factory_make ("appsink", NULL);
  GstSample *samples[2] = { NULL, NULL };
  GstCaps *caps;
  GstBus *bus;
  cf_flow *flow = NULL;
  int i;

  *error = NULL;
  gst_object_ref_sink (element);
  if (src == NULL || sink == NULL) {
    *error = g_strdup ("appsrc or appsink is missing (GStreamer's base "
        "plugins, gstreamer1.0-plugins-base)");
    gst_clear_object (&src);
    gst_clear_object (&sink);
    gst_object_unref (element);
    gst_object_unref (pipeline);
    return NULL;
  }
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "GRAY8",
      "width", G_TYPE_INT, f0->width, "height", G_TYPE_INT, f0->height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  g_object_set (src, "format", GST_FORMAT_TIME, "caps", caps, NULL);
  gst_caps_unref (caps);
  caps = gst_caps_new_simple ("video/x-optical-flow", "format", G_TYPE_STRING,
      "UV_F32LE", NULL);
  g_object_set (sink, "sync", FALSE, "caps", caps, NULL);
  gst_caps_unref (caps);
  gst_bin_add_many (GST_BIN (pipeline), src, element, sink, NULL);
  gst_object_unref (element);   /* the bin holds it now */
  if (!gst_element_link_many (src, element, sink, NULL)) {
    *error = g_strdup_printf ("%s does not link between appsrc (GRAY8) and "
        "appsink (video/x-optical-flow, format=UV_F32LE)",
        GST_OBJECT_NAME (element));
    gst_object_unref (pipeline);
    return NULL;
  }

  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, keep_cuda_context, ev, NULL);
  gst_object_unref (bus);
  g_mutex_lock (&ev->lock);
  if (ev->cuda_context != NULL)
    gst_element_set_context (pipeline, ev->cuda_context);
  g_mutex_unlock (&ev->lock);

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    *error = posted_error (pipeline);
    if (*error == NULL)
      *error = g_strdup ("the pipeline does not start");
    goto out;
  }
  gst_app_src_push_buffer (GST_APP_SRC (src), grey_buffer (f0, 0));
  gst_app_src_push_buffer (GST_APP_SRC (src), grey_buffer (f1, 1));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  for (i = 0; i < 2; i++) {
    samples[i] = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        PULL_TIMEOUT);
    if (samples[i] == NULL)
      break;
  }
  if (samples[1] == NULL) {
    *error = posted_error (pipeline);
    if (*error == NULL)
      *error = g_strdup ("the element gave fewer than two outputs");
    goto out;
  }
  flow = flow_from_sample (samples[1], f0->width, f0->height);
  if (flow == NULL)
    *error = g_strdup ("flow buffer too small");

out:
  for (i = 0; i < 2; i++)
    if (samples[i])
      gst_sample_unref (samples[i]);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return flow;
}
