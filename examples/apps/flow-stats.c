/* flow-stats — per-frame statistics of the optical flow of a pipeline
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs a pipeline ending in an appsink and prints, for every buffer, the
 * frame pair the flow spans, whether the flow is valid, and the mean and
 * largest vector length. The flow comes either as a GstCudaFlowMeta on
 * video frames (a flow element with output=meta) or as a flow stream
 * (output=flow, caps video/x-optical-flow). It is read through the host
 * map of the library, which works for system and CUDA memory alike.
 *
 *   cc flow-stats.c -o flow-stats \
 *     $(pkg-config --cflags --libs gstreamer-cudaflow-1.0 gstreamer-app-1.0) -lm
 *
 * (-lm for sqrt ().)
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/cudaflow/cudaflow.h>

#include <math.h>

#define DEFAULT_PIPELINE "videotestsrc pattern=ball num-buffers=%d ! " \
    "video/x-raw,width=320,height=240 ! %s output=meta ! appsink"

static gchar *
time_str (GstClockTime t)
{
  if (!GST_CLOCK_TIME_IS_VALID (t))
    return g_strdup ("none");
  return g_strdup_printf ("%.3fs", (gdouble) t / GST_SECOND);
}

/* One line per buffer. @frame is NULL when there is no flow. */
static void
print_flow (guint index, GstClockTime prev_pts, GstClockTime pts,
    const GstCudaFlowFrame * frame)
{
  gchar *from = time_str (prev_pts), *to = time_str (pts);
  gdouble sum = 0.0, max = 0.0;
  gint x, y;

  if (frame == NULL) {
    g_print ("frame %u  %s -> %s  invalid  no flow\n", index, from, to);
    goto done;
  }
  for (y = 0; y < frame->height; y++) {
    /* rows are frame->stride bytes apart: pitched in CUDA memory */
    const gfloat *uv = (const gfloat *) (frame->data + (gsize) y *
        frame->stride);

    for (x = 0; x < frame->width; x++) {
      gdouble len = sqrt ((gdouble) uv[2 * x] * uv[2 * x] +
          (gdouble) uv[2 * x + 1] * uv[2 * x + 1]);

      sum += len;
      max = MAX (max, len);
    }
  }
  g_print ("frame %u  %s -> %s  valid  mean %.4f  max %.4f\n", index, from,
      to, sum / ((gdouble) frame->width * frame->height), max);

done:
  g_free (from);
  g_free (to);
}

/* output=meta: the video frame carries its flow. */
static gboolean
read_meta (guint index, GstBuffer * buf, gint width, gint height)
{
  GstCudaFlowMeta *meta = gst_buffer_get_cuda_flow_meta (buf);
  GstCudaFlowFrame frame;

  if (meta == NULL) {
    g_printerr ("frame %u has no flow meta\n", index);
    return FALSE;
  }
  if (meta->width != width || meta->height != height) {
    g_printerr ("frame %u: flow is %dx%d, video %dx%d\n", index, meta->width,
        meta->height, width, height);
    return FALSE;
  }
  if (!meta->valid) {
    print_flow (index, meta->prev_pts, meta->pts, NULL);
    return TRUE;
  }
  if (!gst_cuda_flow_meta_map (meta, &frame)) {
    g_printerr ("frame %u: cannot map the flow\n", index);
    return FALSE;
  }
  print_flow (index, meta->prev_pts, meta->pts, &frame);
  gst_cuda_flow_frame_unmap (&frame);
  return TRUE;
}

/* output=flow: the buffer is the field; a GAP buffer holds no estimate. */
static gboolean
read_flow (guint index, GstBuffer * buf, const GstCudaFlowInfo * info,
    GstClockTime * prev_pts)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstCudaFlowFrame frame;

  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)) {
    print_flow (index, GST_CLOCK_TIME_NONE, pts, NULL);
  } else {
    /* stride 0 in CUDA memory: the buffer's size says it */
    if (!gst_cuda_flow_frame_map (&frame, buf, info->width, info->height,
            info->stride)) {
      g_printerr ("frame %u: cannot map the flow\n", index);
      return FALSE;
    }
    print_flow (index, *prev_pts, pts, &frame);
    gst_cuda_flow_frame_unmap (&frame);
  }
  *prev_pts = pts;
  return TRUE;
}

static GstElement *
find_appsink (GstElement * pipeline)
{
  GstIterator *it;
  GValue item = G_VALUE_INIT;
  GstElement *sink = NULL;

  if (!GST_IS_BIN (pipeline))
    return NULL;
  it = gst_bin_iterate_all_by_element_factory_name (GST_BIN (pipeline),
      "appsink");
  if (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    sink = g_value_dup_object (&item);
    g_value_unset (&item);
  }
  gst_iterator_free (it);
  return sink;
}

int
main (int argc, char *argv[])
{
  gchar *element = NULL, *description = NULL;
  gint num_buffers = 10;
  GOptionEntry entries[] = {
    {"element", 'e', 0, G_OPTION_ARG_STRING, &element,
        "Flow element of the default pipeline, with properties if any "
          "(default: cudaflowtvl1)", "ELEMENT"},
    {"num-buffers", 'n', 0, G_OPTION_ARG_INT, &num_buffers,
        "Frames of the default pipeline (default: 10)", "N"},
    {"pipeline", 'p', 0, G_OPTION_ARG_STRING, &description,
        "Pipeline to run instead, ending in an appsink", "DESCRIPTION"},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  GstElement *pipeline, *sink;
  GstBus *bus;
  GstMessage *msg;
  GstSample *sample;
  GstClockTime prev_pts = GST_CLOCK_TIME_NONE;
  guint index = 0;
  gboolean ok = TRUE;

  ctx = g_option_context_new ("- print the optical flow of each frame");
  g_option_context_set_description (ctx, "Example:\n"
      "  flow-stats --element 'cudaflowhs alpha=15' --num-buffers 30\n"
      "  flow-stats --pipeline 'filesrc location=in.mp4 ! decodebin ! "
      "videoconvert ! cudaflowtvl1 output=meta ! appsink'\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  if (description == NULL)
    description = g_strdup_printf (DEFAULT_PIPELINE, num_buffers,
        element ? element : "cudaflowtvl1");
  pipeline = gst_parse_launch (description, &err);
  if (pipeline == NULL || err != NULL) {
    g_printerr ("%s: %s\n", description, err->message);
    return 1;
  }
  sink = find_appsink (pipeline);
  if (sink == NULL) {
    g_printerr ("%s: no appsink\n", description);
    return 1;
  }
  /* statistics as fast as they come, not at the frame rate */
  g_object_set (sink, "sync", FALSE, NULL);

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  while (ok) {
    GstCaps *caps;
    GstBuffer *buf;
    GstCudaFlowInfo info;

    /* a timeout, so that an error (no EOS then) is seen on the bus */
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        GST_SECOND / 10);
    if (sample == NULL) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        break;
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      if (msg != NULL) {
        gst_message_parse_error (msg, &err, NULL);
        g_printerr ("error from %s: %s\n", GST_OBJECT_NAME (msg->src),
            err->message);
        g_clear_error (&err);
        gst_message_unref (msg);
        ok = FALSE;
      }
      continue;
    }

    caps = gst_sample_get_caps (sample);
    buf = gst_sample_get_buffer (sample);
    if (gst_cuda_flow_info_from_caps (&info, caps)) {
      ok = read_flow (index, buf, &info, &prev_pts);
    } else {
      const GstStructure *s = gst_caps_get_structure (caps, 0);
      gint width = 0, height = 0;

      gst_structure_get_int (s, "width", &width);
      gst_structure_get_int (s, "height", &height);
      ok = read_meta (index, buf, width, height);
    }
    gst_sample_unref (sample);
    index++;
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (ok && index == 0) {
    g_printerr ("no buffers\n");
    ok = FALSE;
  }
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (description);
  g_free (element);
  return ok ? 0 : 1;
}
