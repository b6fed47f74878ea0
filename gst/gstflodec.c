/* gst-cudaflow — flodec: Middlebury .flo bytes back to flow fields
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-flodec
 * @title: flodec
 *
 * Reads Middlebury `.flo` files and emits each as one
 * `video/x-optical-flow, format=UV_F32LE` buffer in packed system memory,
 * so saved flows can be replayed into flowviz or any other consumer.
 *
 * ## Where a file begins and ends
 *
 * The input is either one whole file per buffer (multifilesrc, appsrc) or
 * a byte stream in any chunking (filesrc on a single `.flo` or on several
 * concatenated ones). `framing` says which; with `framing=auto` (default)
 * the first buffer decides: if it holds exactly one `.flo` (12 + 8 × width
 * × height bytes, as its header says), every buffer is one file, otherwise
 * the input is a byte stream. filesrc's default 4096-byte reads never hold
 * exactly one file unless the file is all there is (a `.flo` is 4 bytes
 * more than a multiple of 8), so it is read as a stream; set
 * `framing=stream` for a source whose first chunk could happen to be one
 * whole file.
 *
 * One file per buffer, a file whose size is not what its header says
 * stops the stream with an error naming it, such as
 * `file 3: expected 108 bytes, got 50`. In a byte stream, a buffer that
 * starts with a `.flo` header ("PIEH" and a plausible size) starts a new
 * file, and a complete file must be followed by the next one's tag, so
 * multifilesrc files read as a stream get the same errors; never a field
 * made of bytes from two files. Inside one concatenated file only the
 * headers mark the files: a file cut short there is found where the next
 * tag should be (`file 3: expected 108 bytes, but what follows is not
 * another .flo`). Files are counted from 0 at the start of the stream
 * (with multifilesrc's default start index, the number in the file
 * name).
 *
 * ## Timestamps
 *
 * A field takes the timestamp and duration of the buffer its file starts
 * in. Where the input has none (multifilesrc, filesrc), the frame rate of
 * the input caps sets them: field n gets n / framerate after the segment
 * start or the last input timestamp, and a duration of one frame, so
 * `multifilesrc caps="application/x-middlebury-flo,framerate=30/1"` plays
 * at 30 fields per second. Without a frame rate (0/1, as typefinding
 * gives) the fields are untimed and go out as fast as downstream takes
 * them; put a caps filter such as
 * `application/x-middlebury-flo,framerate=30/1` after the source to time
 * them. Empty buffers carry no part of a file and are dropped.
 *
 * ## Autoplugging
 *
 * This plugin registers a typefinder for `.flo` (the tag "PIEH", a
 * plausible size and, where the length is known, exactly 12 + 8 × width ×
 * height bytes), and flodec has the decoder class and a rank, so
 * `gst-typefind-1.0 flow.flo` names the caps and decodebin plugs flodec.
 * decodebin stops at raw media by default and flow fields are not raw
 * video, so ask it for flow: `decodebin caps=video/x-optical-flow`.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 multifilesrc location=flow_%05d.flo caps="application/x-middlebury-flo,framerate=30/1" ! flodec ! flowviz ! videoconvert ! autovideosink
 * ]| Replays files written by `floenc ! multifilesink` at 30 fields per second.
 * |[
 * gst-launch-1.0 filesrc location=flow10.flo ! decodebin caps=video/x-optical-flow ! flowviz ! videoconvert ! pngenc ! filesink location=flow10.png
 * ]| Colour-codes one Middlebury ground-truth file.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstflodec.h"
#include "gstcudaflowelements.h"

#include <string.h>

#include <gst/base/gstadapter.h>

#include "common/flo.h"

GST_DEBUG_CATEGORY_STATIC (gst_flo_dec_debug);
#define GST_CAT_DEFAULT gst_flo_dec_debug

#define DEFAULT_FRAMING GST_FLO_DEC_FRAMING_AUTO

enum
{
  PROP_0,
  PROP_FRAMING
};

GType
gst_flo_dec_framing_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_FLO_DEC_FRAMING_AUTO, "One file per buffer when the first buffer "
          "holds exactly one .flo, else a byte stream", "auto"},
    {GST_FLO_DEC_FRAMING_STREAM, "A byte stream of concatenated .flo files "
          "in any chunking (filesrc)", "stream"},
    {GST_FLO_DEC_FRAMING_BUFFER, "Every buffer is one whole .flo file "
          "(multifilesrc, appsrc)", "buffer"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstFloDecFraming",
            values));
  return (GType) type;
}

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

  GstFloDecFraming framing;     /* property; object lock */

  /* streaming thread */
  GstFloDecFraming mode;        /* in force; AUTO until the first buffer */
  GstAdapter *adapter;          /* byte stream: the file being gathered */
  guint file_index;             /* of that file, from 0 at stream start */
  gboolean head_at_buffer_start;        /* the file began a buffer ... */
  gsize buffer_end;             /* ... which ends this many bytes in */
  GstClockTime pts;             /* input timestamps of that file */
  GstClockTime duration;
  gint fps_n, fps_d;            /* of the input caps; 0/1 = none */
  GstClockTime base_pts;        /* last input PTS, or the segment start */
  guint64 frames_since_base;
  gint width, height;           /* of the caps we set; 0 = none yet */
  gboolean discont;
  GstEvent *pending_segment;    /* held until our caps go out first */
};

#define gst_flo_dec_parent_class parent_class
G_DEFINE_TYPE (GstFloDec, gst_flo_dec, GST_TYPE_ELEMENT);
/* A rank, with the decoder class, lets decodebin plug flodec after the
 * .flo typefinder; nothing else decodes the format. */
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (flodec, "flodec", GST_RANK_PRIMARY,
    GST_TYPE_FLO_DEC, GST_DEBUG_CATEGORY_INIT (gst_flo_dec_debug, "flodec", 0,
        "Middlebury .flo decoder"));

static void gst_flo_dec_finalize (GObject * object);
static void gst_flo_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_flo_dec_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
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
  gobject_class->set_property = gst_flo_dec_set_property;
  gobject_class->get_property = gst_flo_dec_get_property;
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_flo_dec_change_state);

  g_object_class_install_property (gobject_class, PROP_FRAMING,
      g_param_spec_enum ("framing", "Framing",
          "Where .flo files begin and end: auto (one file per buffer when "
          "the first buffer holds exactly one file, as from multifilesrc, "
          "else a byte stream), stream (concatenated files in any chunking, "
          "as from filesrc) or buffer (every buffer is one whole file)",
          GST_TYPE_FLO_DEC_FRAMING, DEFAULT_FRAMING, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "Middlebury .flo decoder", "Codec/Decoder/Video",
      "Reads Middlebury .flo files into optical-flow fields", "gst-cudaflow");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  gst_type_mark_as_plugin_api (GST_TYPE_FLO_DEC_FRAMING, 0);
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

  self->framing = DEFAULT_FRAMING;
  self->adapter = gst_adapter_new ();
  self->fps_n = 0;
  self->fps_d = 1;
  self->pts = GST_CLOCK_TIME_NONE;
  self->duration = GST_CLOCK_TIME_NONE;
  self->base_pts = 0;
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
gst_flo_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFloDec *self = GST_FLO_DEC (object);

  switch (prop_id) {
    case PROP_FRAMING:
      GST_OBJECT_LOCK (self);
      self->framing = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_flo_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFloDec *self = GST_FLO_DEC (object);

  switch (prop_id) {
    case PROP_FRAMING:
      GST_OBJECT_LOCK (self);
      g_value_set_enum (value, self->framing);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* Drop the file being gathered and restart the clock of untimed input at
 * base_pts. */
static void
restart_stream (GstFloDec * self, GstClockTime base_pts)
{
  gst_adapter_clear (self->adapter);
  self->head_at_buffer_start = FALSE;
  self->buffer_end = 0;
  self->pts = GST_CLOCK_TIME_NONE;
  self->duration = GST_CLOCK_TIME_NONE;
  self->base_pts = base_pts;
  self->frames_since_base = 0;
  self->discont = TRUE;
}

/* A new stream: framing is decided again, files count from 0 and our caps
 * are announced again. */
static void
reset (GstFloDec * self)
{
  restart_stream (self, 0);
  gst_clear_event (&self->pending_segment);
  self->mode = GST_FLO_DEC_FRAMING_AUTO;
  self->file_index = 0;
  self->width = self->height = 0;
}

static GstStateChangeReturn
gst_flo_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstFloDec *self = GST_FLO_DEC (element);

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    reset (self);
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

/* The file being gathered ended before its header's size: the stream
 * ended, or a buffer starting with another .flo header came. */
static void
post_file_cut_short (GstFloDec * self, const gchar * why)
{
  gsize got = gst_adapter_available (self->adapter);
  gint width = 0, height = 0;

  if (got >= CF_FLO_HEADER_SIZE) {
    const guint8 *header = gst_adapter_map (self->adapter,
        CF_FLO_HEADER_SIZE);
    /* drain () has checked this header already */
    cf_flo_parse_header (header, CF_FLO_HEADER_SIZE, &width, &height, NULL);
    gst_adapter_unmap (self->adapter);
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("file %u: expected %"
            G_GSIZE_FORMAT " bytes, got %" G_GSIZE_FORMAT, self->file_index,
            cf_flo_size (width, height), got), ("truncated %dx%d field: %s",
            width, height, why));
  } else {
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("file %u: expected at least "
            "%d bytes, got %" G_GSIZE_FORMAT, self->file_index,
            CF_FLO_HEADER_SIZE, got), ("truncated header: %s", why));
  }
}

static gboolean
gst_flo_dec_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFloDec *self = GST_FLO_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_STREAM_START:
      reset (self);
      break;
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      GstStructure *s;
      gst_event_parse_caps (event, &caps);
      s = gst_caps_get_structure (caps, 0);
      if (!gst_structure_get_fraction (s, "framerate", &self->fps_n,
              &self->fps_d) || self->fps_n < 0 || self->fps_d <= 0) {
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
      /* flow frames are timed: a byte segment (filesrc, multifilesrc)
       * becomes an open time segment from 0 */
      if (in_segment->format != GST_FORMAT_TIME) {
        GstSegment segment;
        gst_segment_init (&segment, GST_FORMAT_TIME);
        gst_event_unref (event);
        event = gst_event_new_segment (&segment);
        self->base_pts = 0;
      } else {
        self->base_pts = in_segment->start;
      }
      self->frames_since_base = 0;
    }
      /* caps come from the first file's header: the segment must wait */
      if (!gst_pad_has_current_caps (self->srcpad)) {
        gst_clear_event (&self->pending_segment);
        self->pending_segment = event;
        return TRUE;
      }
      break;
    case GST_EVENT_GAP:
      /* before our caps and segment, downstream could not place it */
      if (!gst_pad_has_current_caps (self->srcpad)) {
        gst_event_unref (event);
        return TRUE;
      }
      break;
    case GST_EVENT_FLUSH_STOP:
      restart_stream (self, 0);
      break;
    case GST_EVENT_EOS:
      if (gst_adapter_available (self->adapter) > 0)
        post_file_cut_short (self, "the stream ended");
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

/* Timestamps of the next field. Input timestamps win; untimed input is
 * timed from the caps frame rate: n frames after the last input PTS (or
 * the segment start) is base + n / framerate, and a frame lasts until the
 * next one. Without a frame rate, untimed stays untimed. */
static void
stamp_field (GstFloDec * self, GstBuffer * out, GstClockTime in_pts,
    GstClockTime in_duration)
{
  GstClockTime pts = in_pts, duration = in_duration;

  if (GST_CLOCK_TIME_IS_VALID (in_pts)) {
    self->base_pts = in_pts;
    self->frames_since_base = 0;
  }
  if (self->fps_n > 0 && GST_CLOCK_TIME_IS_VALID (self->base_pts)) {
    GstClockTime start = gst_util_uint64_scale (self->frames_since_base,
        self->fps_d * GST_SECOND, self->fps_n);
    GstClockTime end = gst_util_uint64_scale (self->frames_since_base + 1,
        self->fps_d * GST_SECOND, self->fps_n);
    if (!GST_CLOCK_TIME_IS_VALID (pts))
      pts = self->base_pts + start;
    if (!GST_CLOCK_TIME_IS_VALID (duration))
      duration = end - start;
  }
  self->frames_since_base++;
  GST_BUFFER_PTS (out) = pts;
  GST_BUFFER_DURATION (out) = duration;
}

/* Decode one whole .flo (already checked to be 12 + 8wh bytes) and push
 * it as a flow field. */
static GstFlowReturn
push_field (GstFloDec * self, const guint8 * bytes, gsize size,
    GstClockTime in_pts, GstClockTime in_duration)
{
  cf_error err = { {0} };
  cf_flow *flow = NULL;
  cf_status status;
  GstBuffer *out;
  GstMapInfo map;

  status = cf_flo_decode (bytes, size, &flow, &err);
  if (status != CF_OK) {
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("file %u: %s",
            self->file_index, err.message), ("status %s",
            cf_status_name (status)));
    return GST_FLOW_ERROR;
  }
  if (!ensure_caps (self, flow->width, flow->height)) {
    cf_flow_free (flow);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  out = gst_buffer_new_allocate (NULL,
      (gsize) flow->width * flow->height * 8, NULL);
  if (out == NULL || !gst_buffer_map (out, &map, GST_MAP_WRITE)) {
    gst_clear_buffer (&out);
    cf_flow_free (flow);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Out of memory for a %dx%d "
            "field.", flow->width, flow->height), (NULL));
    return GST_FLOW_ERROR;
  }
  cf_flow_to_interleaved (flow, (float *) map.data,
      (size_t) flow->width * 2 * sizeof (float));
  gst_buffer_unmap (out, &map);
  cf_flow_free (flow);

  stamp_field (self, out, in_pts, in_duration);
  if (self->discont) {
    GST_BUFFER_FLAG_SET (out, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
  }
  self->file_index++;
  return gst_pad_push (self->srcpad, out);
}

/* Header check for file_index; posts the error. */
static gboolean
check_header (GstFloDec * self, const guint8 * bytes, gsize n, gint * width,
    gint * height)
{
  cf_error err = { {0} };
  cf_status status;

  status = cf_flo_parse_header (bytes, n, width, height, &err);
  if (status != CF_OK) {
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("file %u: %s",
            self->file_index, err.message), ("status %s",
            cf_status_name (status)));
    return FALSE;
  }
  return TRUE;
}

/* TRUE when the bytes start with a .flo header of a plausible size. */
static gboolean
starts_with_header (const guint8 * bytes, gsize n)
{
  return cf_flo_parse_header (bytes, n, NULL, NULL, NULL) == CF_OK;
}

/* framing=buffer: the buffer is the file, exactly. */
static GstFlowReturn
decode_whole_buffer (GstFloDec * self, GstBuffer * buffer)
{
  GstFlowReturn ret = GST_FLOW_ERROR;
  GstMapInfo map;
  gint width, height;
  gsize expected;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a buffer."),
        (NULL));
    goto done;
  }
  if (!check_header (self, map.data, map.size, &width, &height))
    goto unmap;
  expected = cf_flo_size (width, height);
  if (map.size != expected) {
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("file %u: expected %"
            G_GSIZE_FORMAT " bytes, got %" G_GSIZE_FORMAT, self->file_index,
            expected, map.size), ("%s %dx%d field in a buffer of its own",
            map.size < expected ? "truncated" : "over-long", width, height));
    goto unmap;
  }
  ret = push_field (self, map.data, map.size, GST_BUFFER_PTS (buffer),
      GST_BUFFER_DURATION (buffer));
unmap:
  gst_buffer_unmap (buffer, &map);
done:
  gst_buffer_unref (buffer);
  return ret;
}

/* A complete file of total bytes is at the head of the adapter and more
 * bytes follow: they must be (the start of) the next file's tag. */
static gboolean
check_what_follows (GstFloDec * self, gsize total, gint width, gint height)
{
  static const guint8 tag[4] = { 'P', 'I', 'E', 'H' };
  gsize avail = gst_adapter_available (self->adapter);
  gsize n = MIN (avail - total, sizeof (tag));
  const guint8 *bytes = gst_adapter_map (self->adapter, total + n);
  gboolean ok = memcmp (bytes + total, tag, n) == 0;
  gchar *what = g_strdup_printf ("%02x %02x %02x %02x", bytes[total],
      n > 1 ? bytes[total + 1] : 0, n > 2 ? bytes[total + 2] : 0,
      n > 3 ? bytes[total + 3] : 0);

  gst_adapter_unmap (self->adapter);
  if (!ok && self->head_at_buffer_start && self->buffer_end > total) {
    /* the file began its buffer, which goes on past its end: one buffer
     * per file (multifilesrc), and this file is too long */
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("file %u: expected %"
            G_GSIZE_FORMAT " bytes, got %" G_GSIZE_FORMAT, self->file_index,
            total, self->buffer_end), ("over-long %dx%d field: byte %"
            G_GSIZE_FORMAT " is %s..., not the tag of another .flo", width,
            height, total, what));
  } else if (!ok) {
    GST_ELEMENT_ERROR (self, STREAM, DECODE, ("file %u: expected %"
            G_GSIZE_FORMAT " bytes, but what follows is not another .flo",
            self->file_index, total), ("%dx%d field followed by bytes %s...",
            width, height, what));
  }
  g_free (what);
  return ok;
}

/* framing=stream: emit every complete file in the adapter. */
static GstFlowReturn
drain (GstFloDec * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK &&
      gst_adapter_available (self->adapter) >= CF_FLO_HEADER_SIZE) {
    gsize avail = gst_adapter_available (self->adapter);
    const guint8 *bytes;
    gint width, height;
    gboolean ok;
    gsize total;

    bytes = gst_adapter_map (self->adapter, CF_FLO_HEADER_SIZE);
    ok = check_header (self, bytes, CF_FLO_HEADER_SIZE, &width, &height);
    gst_adapter_unmap (self->adapter);
    if (!ok)
      return GST_FLOW_ERROR;
    total = cf_flo_size (width, height);
    if (avail < total)
      break;
    if (avail > total && !check_what_follows (self, total, width, height))
      return GST_FLOW_ERROR;

    bytes = gst_adapter_map (self->adapter, total);
    ret = push_field (self, bytes, total, self->pts, self->duration);
    gst_adapter_unmap (self->adapter);
    gst_adapter_flush (self->adapter, total);
    /* the next file starts inside this buffer: no timestamps of its own */
    self->pts = self->duration = GST_CLOCK_TIME_NONE;
    self->head_at_buffer_start = FALSE;
    self->buffer_end -= MIN (self->buffer_end, total);
  }
  return ret;
}

/* framing=auto decides on the first buffer of a stream. */
static GstFloDecFraming
choose_framing (GstFloDec * self, GstBuffer * buffer)
{
  GstFloDecFraming framing;
  guint8 header[CF_FLO_HEADER_SIZE];
  gint width, height;

  GST_OBJECT_LOCK (self);
  framing = self->framing;
  GST_OBJECT_UNLOCK (self);
  if (framing != GST_FLO_DEC_FRAMING_AUTO)
    return framing;
  if (gst_buffer_extract (buffer, 0, header, sizeof (header)) ==
      sizeof (header)
      && cf_flo_parse_header (header, sizeof (header), &width, &height,
          NULL) == CF_OK
      && gst_buffer_get_size (buffer) == cf_flo_size (width, height))
    framing = GST_FLO_DEC_FRAMING_BUFFER;
  else
    framing = GST_FLO_DEC_FRAMING_STREAM;
  GST_INFO_OBJECT (self, "framing: %s", framing == GST_FLO_DEC_FRAMING_BUFFER
      ? "one file per buffer" : "byte stream");
  return framing;
}

static GstFlowReturn
gst_flo_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  GstFloDec *self = GST_FLO_DEC (parent);
  gsize avail = gst_adapter_available (self->adapter);
  guint8 header[CF_FLO_HEADER_SIZE];

  if (GST_BUFFER_IS_DISCONT (buffer)) {
    if (avail > 0) {
      GST_WARNING_OBJECT (self, "discontinuity inside file %u: dropping %"
          G_GSIZE_FORMAT " bytes", self->file_index, avail);
      self->file_index++;
    }
    gst_adapter_clear (self->adapter);
    avail = 0;
    self->discont = TRUE;
  }
  /* an empty buffer (a GAP among them) holds no part of a file */
  if (gst_buffer_get_size (buffer) == 0) {
    GST_DEBUG_OBJECT (self, "dropping an empty buffer");
    gst_buffer_unref (buffer);
    return GST_FLOW_OK;
  }
  if (self->mode == GST_FLO_DEC_FRAMING_AUTO)
    self->mode = choose_framing (self, buffer);
  if (self->mode == GST_FLO_DEC_FRAMING_BUFFER)
    return decode_whole_buffer (self, buffer);

  /* a buffer that starts with a header starts a file: what was being
   * gathered is all there is of the previous one */
  if (avail > 0 && gst_buffer_extract (buffer, 0, header,
          sizeof (header)) == sizeof (header)
      && starts_with_header (header, sizeof (header))) {
    post_file_cut_short (self, "the next buffer starts another .flo");
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
  /* a file takes the timestamps of the buffer it starts in */
  if (avail == 0) {
    self->pts = GST_BUFFER_PTS (buffer);
    self->duration = GST_BUFFER_DURATION (buffer);
  }
  self->head_at_buffer_start = avail == 0;
  self->buffer_end = avail + gst_buffer_get_size (buffer);
  gst_adapter_push (self->adapter, buffer);
  return drain (self);
}
