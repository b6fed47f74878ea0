/* gst-cudaflow — floenc: flow fields to Middlebury .flo bytes
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-floenc
 * @title: floenc
 *
 * Turns each `video/x-optical-flow, format=UV_F32LE` buffer (CUDA or system
 * memory) into one complete Middlebury `.flo` file image: the tag "PIEH"
 * (float 202021.25), int32 width, int32 height, then the (u, v) float pairs
 * row by row, little-endian. Pair it with multifilesink to save a stream of
 * flows, one file per field; flodec reads them back. The output caps carry
 * the input frame rate, when there is one, for flodec to time the fields.
 *
 * ## Fields flagged GAP
 *
 * The estimators' first field, and the first after a discontinuity, flush
 * or caps change, has no previous frame: it is a zero field flagged GAP,
 * not a measurement of zero motion. floenc drops such fields unless
 * `write-gaps=true`, which writes them as zero fields (an empty GAP buffer
 * too). An empty buffer without the GAP flag holds no field and is
 * dropped.
 *
 * ## File numbers
 *
 * A field carries the timestamps of frame t and maps frame t − 1 to frame
 * t: I(t − 1, x) ≈ I(t, x + (u, v)). Middlebury numbers a field by its
 * first frame instead: `flow10.flo` maps `frame10` to `frame11`. With the
 * default `write-gaps=false` and multifilesink counting from 0, file i
 * holds the field from frame i to frame i + 1, which is Middlebury's
 * numbering, as long as the stream has no discontinuity (each one drops
 * one more field). With `write-gaps=true` there is one file per frame and
 * file i holds the field from frame i − 1 to frame i (file 0 is the zero
 * field of the first frame).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=10 ! cudaflowhs ! floenc ! multifilesink location=flow_%05d.flo
 * ]| Writes flow_00000.flo … flow_00008.flo: nine fields for ten frames.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfloenc.h"
#include "gstcudaflowelements.h"

#include <string.h>

#include <gst/cuda/gstcudamemory.h>

#include "gstcfbufferpool.h"
#include "common/flo.h"

GST_DEBUG_CATEGORY_STATIC (gst_flo_enc_debug);
#define GST_CAT_DEFAULT gst_flo_enc_debug

#define DEFAULT_WRITE_GAPS FALSE

enum
{
  PROP_0,
  PROP_WRITE_GAPS
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-optical-flow(memory:CUDAMemory), "
        "format=(string)UV_F32LE, width=(int)[1, 32768], "
        "height=(int)[1, 32768]; "
        "video/x-optical-flow, format=(string)UV_F32LE, "
        "width=(int)[1, 32768], height=(int)[1, 32768]"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-middlebury-flo"));

struct _GstFloEnc
{
  GstBaseTransform parent;

  gboolean write_gaps;          /* object lock */
  gint width;
  gint height;
};

#define gst_flo_enc_parent_class parent_class
G_DEFINE_TYPE (GstFloEnc, gst_flo_enc, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (floenc, "floenc", GST_RANK_NONE,
    GST_TYPE_FLO_ENC, GST_DEBUG_CATEGORY_INIT (gst_flo_enc_debug, "floenc", 0,
        "Middlebury .flo encoder"));

static void gst_flo_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_flo_enc_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstCaps *gst_flo_enc_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_flo_enc_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_flo_enc_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize);
static GstFlowReturn gst_flo_enc_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static GstFlowReturn gst_flo_enc_prepare_output_buffer (GstBaseTransform *
    trans, GstBuffer * inbuf, GstBuffer ** outbuf);

static void
gst_flo_enc_class_init (GstFloEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_flo_enc_set_property;
  gobject_class->get_property = gst_flo_enc_get_property;

  g_object_class_install_property (gobject_class, PROP_WRITE_GAPS,
      g_param_spec_boolean ("write-gaps", "Write Gaps",
          "Write flow buffers flagged GAP (the zero field of a frame that has "
          "no previous frame) as zero-motion files instead of dropping them",
          DEFAULT_WRITE_GAPS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class,
      "Middlebury .flo encoder", "Codec/Encoder/Video",
      "Writes each optical-flow field as the bytes of a Middlebury .flo file",
      "gst-cudaflow");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_flo_enc_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_flo_enc_set_caps);
  trans_class->transform_size = GST_DEBUG_FUNCPTR (gst_flo_enc_transform_size);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_flo_enc_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_flo_enc_transform);
}

static void
gst_flo_enc_init (GstFloEnc * self)
{
  self->write_gaps = DEFAULT_WRITE_GAPS;
}

static void
gst_flo_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFloEnc *self = GST_FLO_ENC (object);

  switch (prop_id) {
    case PROP_WRITE_GAPS:
      GST_OBJECT_LOCK (self);
      self->write_gaps = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_flo_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFloEnc *self = GST_FLO_ENC (object);

  switch (prop_id) {
    case PROP_WRITE_GAPS:
      GST_OBJECT_LOCK (self);
      g_value_set_boolean (value, self->write_gaps);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* .flo caps for flow caps: the file image says its size in its header, so
 * the caps need not; they keep the frame rate, for flodec to time untimed
 * replays. */
static GstCaps *
flo_caps_for_flow_caps (GstCaps * caps)
{
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  if (gst_caps_is_any (caps))
    return gst_caps_merge_structure (result,
        gst_structure_new_empty ("application/x-middlebury-flo"));
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GValue *rate =
        gst_structure_get_value (gst_caps_get_structure (caps, i),
        "framerate");
    GstStructure *s = gst_structure_new_empty ("application/x-middlebury-flo");

    if (rate != NULL)
      gst_structure_set_value (s, "framerate", rate);
    result = gst_caps_merge_structure (result, s);
  }
  return result;
}

static GstCaps *
gst_flo_enc_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *result;

  if (direction == GST_PAD_SINK)
    result = flo_caps_for_flow_caps (caps);
  else
    result = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD
        (trans));
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  return result;
}

static gboolean
gst_flo_enc_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstFloEnc *self = GST_FLO_ENC (trans);
  GstStructure *s = gst_caps_get_structure (incaps, 0);

  if (!gst_structure_get_int (s, "width", &self->width) ||
      !gst_structure_get_int (s, "height", &self->height)) {
    GST_ERROR_OBJECT (self, "flow caps without a size: %" GST_PTR_FORMAT,
        incaps);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_flo_enc_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstFloEnc *self = GST_FLO_ENC (trans);

  *othersize = cf_flo_size (self->width, self->height);
  return *othersize > 0;
}

static GstFlowReturn
gst_flo_enc_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstFloEnc *self = GST_FLO_ENC (trans);
  gboolean gap = GST_BUFFER_FLAG_IS_SET (inbuf, GST_BUFFER_FLAG_GAP);
  gboolean write_gaps;

  GST_OBJECT_LOCK (self);
  write_gaps = self->write_gaps;
  GST_OBJECT_UNLOCK (self);
  if (gap && !write_gaps) {
    GST_LOG_OBJECT (self, "dropping a GAP field (write-gaps=false)");
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  }
  /* empty: a GAP means a zero field (written by transform), anything else
   * holds no field */
  if (!gap && gst_buffer_get_size (inbuf) == 0) {
    GST_DEBUG_OBJECT (self, "dropping an empty buffer");
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  }

  *outbuf = gst_buffer_new_allocate (NULL, cf_flo_size (self->width,
          self->height), NULL);
  if (*outbuf == NULL)
    return GST_FLOW_ERROR;
  /* timestamps and flags of the flow */
  gst_buffer_copy_into (*outbuf, inbuf, GST_BUFFER_COPY_METADATA, 0, -1);
  return GST_FLOW_OK;
}

/* Row stride of a flow buffer: the pitch of our CUDA memory, packed rows in
 * system memory. */
static gsize
flow_stride (GstBuffer * buf, gint width)
{
  if (gst_buffer_n_memory (buf) == 1 &&
      gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)))
    return gst_cf_cuda_memory_plane_stride (gst_buffer_peek_memory (buf, 0));
  return (gsize) width * 2 * sizeof (float);
}

/* A .flo of width x height zero vectors. */
static GstFlowReturn
write_zero_field (GstFloEnc * self, GstBuffer * outbuf)
{
  GstMapInfo out;

  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a buffer."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  cf_flo_write_header (out.data, self->width, self->height);
  memset (out.data + CF_FLO_HEADER_SIZE, 0, out.size - CF_FLO_HEADER_SIZE);
  gst_buffer_unmap (outbuf, &out);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_flo_enc_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstFloEnc *self = GST_FLO_ENC (trans);
  gsize stride, row_bytes = (gsize) self->width * 2 * sizeof (float);
  GstMapInfo in, out;
  cf_flow *flow;
  cf_status status;

  /* an empty GAP buffer (write-gaps=true) stands for a zero field */
  if (gst_buffer_get_size (inbuf) == 0)
    return write_zero_field (self, outbuf);

  stride = flow_stride (inbuf, self->width);
  /* host map: CUDA memory is downloaded once here, a file needs the bytes */
  if (!gst_buffer_map (inbuf, &in, GST_MAP_READ))
    goto map_failed;
  if (in.size < stride * (self->height - 1) + row_bytes) {
    gst_buffer_unmap (inbuf, &in);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Flow buffer of %" G_GSIZE_FORMAT " bytes is too small for %dx%d.",
            in.size, self->width, self->height), (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE)) {
    gst_buffer_unmap (inbuf, &in);
    goto map_failed;
  }
  flow = cf_flow_new (self->width, self->height);
  if (flow == NULL) {
    status = CF_ERROR_NO_MEMORY;
  } else {
    cf_flow_from_interleaved (flow, (const float *) in.data, stride);
    status = cf_flo_encode (flow, out.data, out.size);
  }
  cf_flow_free (flow);
  gst_buffer_unmap (outbuf, &out);
  gst_buffer_unmap (inbuf, &in);
  if (status != CF_OK) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE, ("Could not encode a .flo: %s",
            cf_status_name (status)), (NULL));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;

map_failed:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a buffer."),
      (NULL));
  return GST_FLOW_ERROR;
}
