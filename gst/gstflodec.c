/* gst-cudaflow — flodec: Middlebury .flo bytes back to flow fields
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-flodec
 * @title: flodec
 *
 * Reads complete Middlebury `.flo` file images (from multifilesrc, one file
 * per buffer, or from filesrc in any chunking) and emits
 * `video/x-optical-flow, format=UV_F32LE` in packed system memory, so saved
 * flows can be replayed into flowviz or any other consumer. The frame rate
 * comes from the upstream caps when they carry one (multifilesrc
 * caps="application/x-middlebury-flo,framerate=30/1"), else 0/1. A header
 * or size that is not a valid .flo stops the stream with an error that
 * says what is wrong.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 multifilesrc location=flow_%05d.flo caps="application/x-middlebury-flo,framerate=30/1" ! flodec ! flowviz ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstflodec.h"
#include "gstcudaflowelements.h"

#include <gst/base/gstadapter.h>

#include "common/flo.h"

GST_DEBUG_CATEGORY_STATIC (gst_flo_dec_debug);
#define GST_CAT_DEFAULT gst_flo_dec_debug

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-middlebury-flo"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-optical-flow, format=(string)UV_F32LE, "
        "width=(int)[1, 32768], height=(int)[1, 32768], "
        "framerate=(fraction)[0/1, MAX]"));

struct _GstFloDec
{
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;
  GstAdapter *adapter;
  gint fps_n, fps_d;
  gint width, height;           /* of the caps we set; 0 = none yet */
  GstClockTime pts;             /* of the file being gathered */
  GstClockTime duration;
  gboolean discont;
  GstEvent *pending_segment;    /* held until our caps go out first */
};

#define gst_flo_dec_parent_class parent_class
G_DEFINE_TYPE (GstFloDec, gst_flo_dec, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (flodec, "flodec", GST_RANK_NONE,
    GST_TYPE_FLO_DEC, GST_DEBUG_CATEGORY_INIT (gst_flo_dec_debug, "flodec", 0,
        "Middlebury .flo decoder"));

static void gst_flo_dec_finalize (GObject * object);
static GstStateChangeReturn gst_flo_dec_change_state (GstElement * element,
    GstStateChange transition);
static gboolean gst_flo_dec_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event);
static GstFlowReturn gst_flo_dec_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buffer);

static void
gst_flo_dec_class_init (GstFloDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->finalize = gst_flo_dec_finalize;
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_flo_dec_change_state);

  gst_element_class_set_static_metadata (element_class,
      "Middlebury .flo decoder", "Codec/Decoder/Video",
      "Reads Middlebury .flo file images into optical-flow fields",
      "gst-cudaflow");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
}

static void
gst_flo_dec_init (GstFloDec * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_flo_dec_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_flo_dec_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->adapter = gst_adapter_new ();
  self->fps_n = 0;
  self->fps_d = 1;
  self->pts = GST_CLOCK_TIME_NONE;
  self->duration = GST_CLOCK_TIME_NONE;
}

static void
gst_flo_dec_finalize (GObject * object)
{
  GstFloDec *self = GST_FLO_DEC (object);

  g_object_unref (self->adapter);
  gst_clear_event (&self->pending_segment);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
reset (GstFloDec * self)
{
  gst_clear_event (&self->pending_segment);
  gst_adapter_clear (self->adapter);
  self->width = self->height = 0;
  self->pts = GST_CLOCK_TIME_NONE;
  self->duration = GST_CLOCK_TIME_NONE;
  self->discont = TRUE;
}

static GstStateChangeReturn
gst_flo_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstFloDec *self = GST_FLO_DEC (element);

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    reset (self);
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static gboolean
gst_flo_dec_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFloDec *self = GST_FLO_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      GstStructure *s;
      gst_event_parse_caps (event, &caps);
      s = gst_caps_get_structure (caps, 0);
      if (!gst_structure_get_fraction (s, "framerate", &self->fps_n,
              &self->fps_d)) {
        self->fps_n = 0;
        self->fps_d = 1;
      }
      self->width = 0;          /* re-announce our caps */
      gst_event_unref (event);
      return TRUE;
    }
    case GST_EVENT_SEGMENT:{
      const GstSegment *in_segment;
      gst_event_parse_segment (event, &in_segment);
      /* flow frames are timed: a byte segment (filesrc) becomes an open
       * time segment; buffers keep the timestamps they came with */
      if (in_segment->format != GST_FORMAT_TIME) {
        GstSegment segment;
        gst_segment_init (&segment, GST_FORMAT_TIME);
        gst_event_unref (event);
        event = gst_event_new_segment (&segment);
      }
    }
      /* caps come from the first file's header: the segment must wait */
      if (!gst_pad_has_current_caps (self->srcpad)) {
        gst_clear_event (&self->pending_segment);
        self->pending_segment = event;
        return TRUE;
      }
      break;
    case GST_EVENT_FLUSH_STOP:
      reset (self);
      break;
    case GST_EVENT_EOS:
      if (gst_adapter_available (self->adapter) > 0)
        GST_ELEMENT_WARNING (self, STREAM, DECODE,
            ("The stream ended inside a .flo file: %" G_GSIZE_FORMAT
                " bytes were left over.", gst_adapter_available
                (self->adapter)), (NULL));
      gst_adapter_clear (self->adapter);
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
ensure_caps (GstFloDec * self, gint width, gint height)
{
  GstCaps *caps;
  gboolean ret;

  if (self->width == width && self->height == height)
    return TRUE;
  caps = gst_caps_new_simple ("video/x-optical-flow", "format", G_TYPE_STRING,
      "UV_F32LE", "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, self->fps_n, self->fps_d, NULL);
  ret = gst_pad_set_caps (self->srcpad, caps);
  gst_caps_unref (caps);
  if (ret) {
    self->width = width;
    self->height = height;
    if (self->pending_segment != NULL) {
      gst_pad_push_event (self->srcpad, self->pending_segment);
      self->pending_segment = NULL;
    }
  }
  return ret;
}

/* Emit every complete .flo in the adapter. */
static GstFlowReturn
drain (GstFloDec * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK &&
      gst_adapter_available (self->adapter) >= CF_FLO_HEADER_SIZE) {
    const guint8 *header = gst_adapter_map (self->adapter, CF_FLO_HEADER_SIZE);
    cf_error err = { {0} };
    gint width, height;
    cf_status status;
    gsize total;
    GstBuffer *bytes, *out;
    GstMapInfo in_map, out_map;
    cf_flow *flow = NULL;

    status = cf_flo_parse_header (header, CF_FLO_HEADER_SIZE, &width,
        &height, &err);
    gst_adapter_unmap (self->adapter);
    if (status != CF_OK) {
      GST_ELEMENT_ERROR (self, STREAM, DECODE, ("Not a valid .flo: %s",
              err.message), ("status %s", cf_status_name (status)));
      return GST_FLOW_ERROR;
    }
    total = cf_flo_size (width, height);
    if (gst_adapter_available (self->adapter) < total)
      break;

    bytes = gst_adapter_take_buffer (self->adapter, total);
    if (!gst_buffer_map (bytes, &in_map, GST_MAP_READ)) {
      gst_buffer_unref (bytes);
      return GST_FLOW_ERROR;
    }
    status = cf_flo_decode (in_map.data, in_map.size, &flow, &err);
    gst_buffer_unmap (bytes, &in_map);
    gst_buffer_unref (bytes);
    if (status != CF_OK) {
      GST_ELEMENT_ERROR (self, STREAM, DECODE, ("Not a valid .flo: %s",
              err.message), ("status %s", cf_status_name (status)));
      return GST_FLOW_ERROR;
    }
    if (!ensure_caps (self, width, height)) {
      cf_flow_free (flow);
      return GST_FLOW_NOT_NEGOTIATED;
    }

    out = gst_buffer_new_allocate (NULL, (gsize) width * height * 8, NULL);
    gst_buffer_map (out, &out_map, GST_MAP_WRITE);
    cf_flow_to_interleaved (flow, (float *) out_map.data,
        (size_t) width * 2 * sizeof (float));
    gst_buffer_unmap (out, &out_map);
    cf_flow_free (flow);

    GST_BUFFER_PTS (out) = self->pts;
    GST_BUFFER_DURATION (out) = self->duration;
    self->pts = GST_CLOCK_TIME_NONE;
    if (self->discont) {
      GST_BUFFER_FLAG_SET (out, GST_BUFFER_FLAG_DISCONT);
      self->discont = FALSE;
    }
    ret = gst_pad_push (self->srcpad, out);
  }
  return ret;
}

static GstFlowReturn
gst_flo_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  GstFloDec *self = GST_FLO_DEC (parent);

  if (GST_BUFFER_IS_DISCONT (buffer)) {
    if (gst_adapter_available (self->adapter) > 0)
      GST_WARNING_OBJECT (self, "discontinuity inside a .flo: dropping %"
          G_GSIZE_FORMAT " bytes", gst_adapter_available (self->adapter));
    gst_adapter_clear (self->adapter);
    self->discont = TRUE;
  }
  /* a file takes the timestamp of the buffer it starts in */
  if (gst_adapter_available (self->adapter) == 0) {
    self->pts = GST_BUFFER_PTS (buffer);
    self->duration = GST_BUFFER_DURATION (buffer);
  }
  gst_adapter_push (self->adapter, buffer);
  return drain (self);
}
