/* gst-cudaflow — flowviz: optical-flow fields as pictures
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-flowviz
 * @title: flowviz
 *
 * Renders optical flow as RGBA/BGRA/RGBx/BGRx video of the same size, in
 * CUDA memory or system memory. The input is either
 *
 * - a flow stream, `video/x-optical-flow, format=UV_F32LE` (what the flow
 *   estimators emit by default), or
 * - video (GRAY8, GRAY16_LE, NV12, I420, RGBA, BGRA, RGBx, BGRx; CUDA or
 *   system memory) whose frames carry a #GstCudaFlowMeta (the estimators
 *   with `output=meta`): then the flow can be drawn over the frame itself.
 *
 * Modes:
 *
 * - `mode=middlebury` (default): the Middlebury colour wheel of Baker et
 *   al. — hue gives the direction, saturation the magnitude relative to
 *   `max-flow`; zero motion is white, vectors longer than `max-flow` are
 *   darkened, unknown vectors (|u| or |v| > 1e9, NaN) are black. Pictures
 *   match the published figures for the same `max-flow`.
 * - `mode=hsv`: hue = direction, value = magnitude / `max-flow` (zero flow
 *   is black).
 * - `mode=arrows`: arrows from anchors every `arrow-step` pixels over the
 *   colour coding dimmed to 40 %. An arrow is its vector times
 *   `arrow-scale` long (4 pixels per pixel of motion by default; 0: a
 *   vector of `max-flow` is one `arrow-step` long), at most 1.5
 *   `arrow-step`; `arrow-thickness` pixels wide, in `arrow-color`
 *   (0xRRGGBB, white by default). Anchors whose vector is shorter than
 *   `arrow-min` pixels (0.5 by default) draw nothing, so still areas
 *   stay clear.
 * - `mode=overlay`: the Middlebury colours blended over the video with an
 *   opacity that grows with the motion: `alpha` × min (1, |(u, v)| /
 *   `max-flow`). Still areas show the plain video (rather than the
 *   wheel's white washing them out), motion at or beyond `max-flow` gets
 *   the full `alpha`; where a vector is unknown the video shows as it is.
 * - `mode=overlay-arrows`: the arrows of `mode=arrows`, with opacity
 *   `alpha`, drawn over the video itself.
 *
 * With video input, the first three modes draw the meta's flow alone.
 * With a flow stream as input there is no video: the overlay modes blend
 * over black.
 *
 * A frame without a usable field is drawn neutral, never as still motion
 * (which is white in the Middlebury coding): a GAP-flagged flow buffer
 * (the estimator's first frame, and the first after a discontinuity; the
 * picture is an ordinary frame, without the flag), a video frame without
 * a meta, with a meta whose `valid` is FALSE, or with a field of another
 * size than the frame. The modes that draw the flow alone give uniform
 * mid-grey (128, 128, 128), which the colour codings never produce (the
 * wheel and HSV always have a saturated or a black channel; dimmed under
 * arrows, no channel exceeds 102); the overlay modes give the plain video
 * (black for flow-stream input). Every input buffer gives one picture.
 *
 * The video is converted to RGB with the Rec.601 limited-range matrix for
 * NV12 and I420 (each pixel takes the chroma sample of its 2×2 block),
 * grey replicated for GRAY8 and GRAY16_LE (16-bit samples rounded to 8
 * bits over the full range), and reordered for the RGB formats. The
 * meta's field may be in CUDA or system memory either way: the GPU path
 * uploads a system-memory field, the CPU path reads a CUDA one back.
 *
 * `max-flow=0` (default) normalises each frame by its largest known
 * vector; a fixed value avoids flicker between frames.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! cudaflowhs ! flowviz max-flow=8 ! videoconvert ! autovideosink
 * ]|
 * The flow over the moving ball itself:
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! cudaflowtvl1 output=meta ! flowviz mode=overlay alpha=0.5 max-flow=8 ! videoconvert ! autovideosink
 * ]|
 * Yellow arrows over the video, twice the default length:
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! cudaflowclg output=meta ! flowviz mode=overlay-arrows alpha=1 arrow-color=0xffff00 arrow-scale=8 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstflowviz.h"
#include "gstcudaflowelements.h"
#include "gstcfflowbase.h"

#include <string.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cudaflow/cudaflow.h>

#include "common/flowviz.h"
#include "cuda/flowviz.h"

GST_DEBUG_CATEGORY_STATIC (gst_flow_viz_debug);
#define GST_CAT_DEFAULT gst_flow_viz_debug

#define DEFAULT_MODE CF_FLOWVIZ_MIDDLEBURY
#define DEFAULT_MAX_FLOW 0.0
#define DEFAULT_ARROW_STEP 16
#define DEFAULT_ALPHA 0.6
#define DEFAULT_ARROW_SCALE 4.0
#define DEFAULT_ARROW_MIN 0.5
#define DEFAULT_ARROW_THICKNESS 2.0
#define DEFAULT_ARROW_COLOR 0xffffff

enum
{
  PROP_0,
  PROP_MODE,
  PROP_MAX_FLOW,
  PROP_ARROW_STEP,
  PROP_ALPHA,
  PROP_ARROW_SCALE,
  PROP_ARROW_MIN,
  PROP_ARROW_THICKNESS,
  PROP_ARROW_COLOR
};

#define OUT_FORMATS "{ RGBA, BGRA, RGBx, BGRx }"
/* video carrying a GstCudaFlowMeta: what the estimators take and pass on */
#define IN_VIDEO_FORMATS \
    "{ GRAY8, GRAY16_LE, NV12, I420, RGBA, BGRA, RGBx, BGRx }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CF_FLOW_CAPS_STR "; "
        GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory",
            IN_VIDEO_FORMATS) "; " GST_VIDEO_CAPS_MAKE (IN_VIDEO_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory",
            OUT_FORMATS) "; " GST_VIDEO_CAPS_MAKE (OUT_FORMATS)));

struct _GstFlowViz
{
  GstCfBaseTransform parent;

  /* properties, object lock */
  cf_flowviz_mode mode;
  gdouble max_flow;
  gint arrow_step;
  gdouble alpha;
  gdouble arrow_scale;
  gdouble arrow_min;
  gdouble arrow_thickness;
  guint arrow_color;

  /* streaming: device scratch for the per-frame maximum */
  float *gpu_max;
  /* streaming: each unusable-meta warning once per caps */
  gboolean warned_size;
  gboolean warned_map;
};

#define gst_flow_viz_parent_class parent_class
G_DEFINE_TYPE (GstFlowViz, gst_flow_viz, GST_TYPE_CF_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (flowviz, "flowviz", GST_RANK_NONE,
    GST_TYPE_FLOW_VIZ, GST_DEBUG_CATEGORY_INIT (gst_flow_viz_debug, "flowviz",
        0, "optical flow visualisation"));

static void gst_flow_viz_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_flow_viz_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstCaps *gst_flow_viz_transform_media_caps (GstCfBaseTransform * base,
    GstPadDirection direction, GstCaps * caps);
static gboolean gst_flow_viz_set_info (GstCfBaseTransform * base,
    const GstCfLayout * in, const GstCfLayout * out);
static GstFlowReturn gst_flow_viz_process (GstCfBaseTransform * base,
    GstBuffer * inbuf, const GstCfPlanes * in, GstBuffer * outbuf,
    const GstCfPlanes * out);
static void gst_flow_viz_free_device_resources (GstCfBaseTransform * base);

#define GST_TYPE_FLOW_VIZ_MODE (gst_flow_viz_mode_get_type ())
static GType
gst_flow_viz_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_FLOWVIZ_MIDDLEBURY, "Middlebury colour wheel (white = no motion)",
        "middlebury"},
    {CF_FLOWVIZ_HSV, "HSV: hue = direction, value = magnitude", "hsv"},
    {CF_FLOWVIZ_ARROWS, "Arrows over the dimmed colour wheel (still "
          "areas have none)", "arrows"},
    {CF_FLOWVIZ_OVERLAY, "Middlebury colours blended over the video "
          "(opacity grows with the motion, reaching alpha at max-flow; "
          "still areas show the video)", "overlay"},
    {CF_FLOWVIZ_OVERLAY_ARROWS, "Arrows over the video (opacity: alpha, "
          "colour: arrow-color)",
        "overlay-arrows"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstFlowVizMode",
            values));
  return (GType) type;
}

static void
gst_flow_viz_class_init (GstFlowVizClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCfBaseTransformClass *cf_class = GST_CF_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw_playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  cf_class->debug_category = gst_flow_viz_debug;

  gobject_class->set_property = gst_flow_viz_set_property;
  gobject_class->get_property = gst_flow_viz_get_property;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "How vectors become colours: "
          "alone (middlebury, hsv, arrows) or over the video frame that "
          "carries them as meta (overlay, overlay-arrows; over black for "
          "flow-stream input). A frame without a field (GAP, no or invalid "
          "meta) is mid-grey alone and the plain video in the overlays",
          GST_TYPE_FLOW_VIZ_MODE, DEFAULT_MODE,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_MAX_FLOW,
      g_param_spec_double ("max-flow", "Max Flow",
          "Vector length in pixels that gets full saturation, and the "
          "full alpha in mode=overlay (0 = the largest known vector of "
          "each frame; a fixed value avoids flicker)", 0.0, 1e6,
          DEFAULT_MAX_FLOW,
          rw_playing | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_ARROW_STEP,
      g_param_spec_int ("arrow-step", "Arrow Step",
          "Distance in pixels between arrows' anchors (mode=arrows and "
          "mode=overlay-arrows)", 4, 1024, DEFAULT_ARROW_STEP,
          rw_playing | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha",
          "Opacity of the flow drawn over the video. mode=overlay: the "
          "opacity grows with the motion, from 0 (still areas show the "
          "plain video) to alpha at max-flow and beyond; "
          "mode=overlay-arrows: the arrows' opacity. 0 shows the video "
          "alone, 1 the colour coding (where the motion reaches max-flow) "
          "or solid arrows (steps of 1/256)", 0.0, 1.0,
          DEFAULT_ALPHA, rw_playing | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_ARROW_SCALE,
      g_param_spec_double ("arrow-scale", "Arrow Scale",
          "Arrow length in pixels per pixel of motion (arrow modes), at "
          "most 1.5 arrow-step; 0 = relative to max-flow: a vector of "
          "max-flow is one arrow-step long", 0.0,
          CF_FLOWVIZ_ARROW_SCALE_MAX, DEFAULT_ARROW_SCALE,
          rw_playing | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_ARROW_MIN,
      g_param_spec_double ("arrow-min", "Arrow Min",
          "Vectors shorter than this many pixels of motion draw no arrow, "
          "so still areas stay clear (arrow modes; arrows shorter than "
          "1 pixel are never drawn)", 0.0, 1e6, DEFAULT_ARROW_MIN,
          rw_playing | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_ARROW_THICKNESS,
      g_param_spec_double ("arrow-thickness", "Arrow Thickness",
          "Width of the arrows' strokes in pixels (arrow modes)",
          CF_FLOWVIZ_ARROW_THICKNESS_MIN, CF_FLOWVIZ_ARROW_THICKNESS_MAX,
          DEFAULT_ARROW_THICKNESS, rw_playing | GST_PARAM_CONTROLLABLE));
  /* not controllable: interpolating a packed 0xRRGGBB value mixes the
   * channels' bits, not the colours */
  g_object_class_install_property (gobject_class, PROP_ARROW_COLOR,
      g_param_spec_uint ("arrow-color", "Arrow Color",
          "Colour of the arrows as 0xRRGGBB (arrow modes; in "
          "mode=overlay-arrows blended with opacity alpha)", 0, 0xffffff,
          DEFAULT_ARROW_COLOR, rw_playing));

  gst_element_class_set_static_metadata (element_class,
      "Optical flow visualiser", "Filter/Converter/Video/Hardware",
      "Renders optical-flow fields as pictures: Middlebury colour wheel, "
      "HSV or arrows, alone or over the video the flow was computed on "
      "(GPU, or CPU without a GPU)", "gst-cudaflow");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  cf_class->transform_media_caps =
      GST_DEBUG_FUNCPTR (gst_flow_viz_transform_media_caps);
  cf_class->set_info = GST_DEBUG_FUNCPTR (gst_flow_viz_set_info);
  cf_class->process = GST_DEBUG_FUNCPTR (gst_flow_viz_process);
  cf_class->free_device_resources =
      GST_DEBUG_FUNCPTR (gst_flow_viz_free_device_resources);

  gst_type_mark_as_plugin_api (GST_TYPE_FLOW_VIZ_MODE, 0);
}

static void
gst_flow_viz_init (GstFlowViz * self)
{
  self->mode = DEFAULT_MODE;
  self->max_flow = DEFAULT_MAX_FLOW;
  self->arrow_step = DEFAULT_ARROW_STEP;
  self->alpha = DEFAULT_ALPHA;
  self->arrow_scale = DEFAULT_ARROW_SCALE;
  self->arrow_min = DEFAULT_ARROW_MIN;
  self->arrow_thickness = DEFAULT_ARROW_THICKNESS;
  self->arrow_color = DEFAULT_ARROW_COLOR;
}

static void
gst_flow_viz_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFlowViz *self = GST_FLOW_VIZ (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_MAX_FLOW:
      self->max_flow = g_value_get_double (value);
      break;
    case PROP_ARROW_STEP:
      self->arrow_step = g_value_get_int (value);
      break;
    case PROP_ALPHA:
      self->alpha = g_value_get_double (value);
      break;
    case PROP_ARROW_SCALE:
      self->arrow_scale = g_value_get_double (value);
      break;
    case PROP_ARROW_MIN:
      self->arrow_min = g_value_get_double (value);
      break;
    case PROP_ARROW_THICKNESS:
      self->arrow_thickness = g_value_get_double (value);
      break;
    case PROP_ARROW_COLOR:
      self->arrow_color = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_flow_viz_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFlowViz *self = GST_FLOW_VIZ (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_MAX_FLOW:
      g_value_set_double (value, self->max_flow);
      break;
    case PROP_ARROW_STEP:
      g_value_set_int (value, self->arrow_step);
      break;
    case PROP_ALPHA:
      g_value_set_double (value, self->alpha);
      break;
    case PROP_ARROW_SCALE:
      g_value_set_double (value, self->arrow_scale);
      break;
    case PROP_ARROW_MIN:
      g_value_set_double (value, self->arrow_min);
      break;
    case PROP_ARROW_THICKNESS:
      g_value_set_double (value, self->arrow_thickness);
      break;
    case PROP_ARROW_COLOR:
      g_value_set_uint (value, self->arrow_color);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* A structure @name with @formats (a list string, or NULL for the flow's
 * one format) and the geometry and rate of @from. */
static GstStructure *
gst_flow_viz_media_structure (const gchar * name, const gchar * formats,
    const GstStructure * from)
{
  static const gchar *fields[] = { "width", "height", "framerate",
    "pixel-aspect-ratio"
  };
  GstStructure *t = gst_structure_new_empty (name);
  guint f;

  if (formats != NULL) {
    GValue list = G_VALUE_INIT;
    g_value_init (&list, GST_TYPE_LIST);
    gst_value_deserialize (&list, formats);
    gst_structure_set_value (t, "format", &list);
    g_value_unset (&list);
  } else {
    gst_structure_set (t, "format", G_TYPE_STRING, "UV_F32LE", NULL);
  }
  for (f = 0; f < G_N_ELEMENTS (fields); f++) {
    const GValue *v = gst_structure_get_value (from, fields[f]);
    if (v != NULL)
      gst_structure_set_value (t, fields[f], v);
  }
  return t;
}

/* sink -> src: a flow stream or video with meta, both become RGB video of
 * the same size; src -> sink: either input can give the RGB video, flow
 * first (the input flowviz was made for). */
static GstCaps *
gst_flow_viz_transform_media_caps (GstCfBaseTransform * base,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);

    if (direction == GST_PAD_SINK) {
      out = gst_caps_merge_structure (out,
          gst_flow_viz_media_structure ("video/x-raw", OUT_FORMATS, s));
    } else {
      out = gst_caps_merge_structure (out,
          gst_flow_viz_media_structure ("video/x-optical-flow", NULL, s));
      out = gst_caps_merge_structure (out,
          gst_flow_viz_media_structure ("video/x-raw", IN_VIDEO_FORMATS, s));
    }
  }
  return out;
}

static gboolean
gst_flow_viz_set_info (GstCfBaseTransform * base, const GstCfLayout * in,
    const GstCfLayout * out)
{
  GstFlowViz *self = GST_FLOW_VIZ (base);

  self->warned_size = FALSE;
  self->warned_map = FALSE;
  return TRUE;
}

static void
gst_flow_viz_free_device_resources (GstCfBaseTransform * base)
{
  GstFlowViz *self = GST_FLOW_VIZ (base);

  cf_cuda_flowviz_scratch_free (self->gpu_max);
  self->gpu_max = NULL;
}

/* The planes process () got, as the video an overlay draws over. */
static void
gst_flow_viz_video_from_planes (const GstCfPlanes * in,
    cf_flowviz_video * video)
{
  const GstVideoInfo *info = &in->layout->info;
  guint p;

  memset (video, 0, sizeof (*video));
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_GRAY8:
      video->format = CF_FLOWVIZ_VIDEO_GRAY8;
      break;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      video->format = CF_FLOWVIZ_VIDEO_GRAY16_LE;
      break;
    case GST_VIDEO_FORMAT_NV12:
      video->format = CF_FLOWVIZ_VIDEO_NV12;
      break;
    case GST_VIDEO_FORMAT_I420:
      video->format = CF_FLOWVIZ_VIDEO_I420;
      break;
    default:
      /* RGBA, BGRA, RGBx, BGRx: the template allows nothing else */
      video->format = CF_FLOWVIZ_VIDEO_RGB32;
      video->r = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
      video->g = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
      video->b = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
      break;
  }
  for (p = 0; p < in->layout->n_planes && p < 3; p++) {
    video->data[p] = in->data[p];
    video->stride[p] = (size_t) in->stride[p];
  }
}

/* Map the flow @inbuf carries as meta into @side (laid out by @layout,
 * which must outlive the mapping). FALSE when the frame has no usable
 * flow and is drawn neutral: no meta, valid=FALSE (a zero field that
 * means nothing), another size than the frame, rows we cannot read. */
static gboolean
gst_flow_viz_map_meta_flow (GstFlowViz * self, GstBuffer * inbuf,
    const GstCfLayout * video, GstCfLayout * layout, GstCfSideInput * side)
{
  GstCudaFlowMeta *meta = gst_buffer_get_cuda_flow_meta (inbuf);
  GstMemory *mem;
  gboolean is_cuda;

  if (meta == NULL || !meta->valid || meta->flow == NULL)
    return FALSE;

  if (meta->width != video->width || meta->height != video->height) {
    if (!self->warned_size) {
      GST_WARNING_OBJECT (self, "flow meta of %dx%d on a %dx%d frame: "
          "drawing the frame without flow", meta->width, meta->height,
          video->width, video->height);
      self->warned_size = TRUE;
    }
    return FALSE;
  }

  /* like gst_cf_layout_from_caps for flow caps of the frame's size */
  memset (layout, 0, sizeof (*layout));
  gst_video_info_init (&layout->info);
  layout->is_video = FALSE;
  layout->width = meta->width;
  layout->height = meta->height;
  layout->n_planes = 1;
  layout->row_bytes[0] = (guint) meta->width * 2 * sizeof (float);
  layout->rows[0] = (guint) meta->height;

  /* CUDA memory says its own pitch; system memory must be packed, as the
   * estimators write it (the base maps it so) */
  mem = gst_buffer_n_memory (meta->flow) == 1 ?
      gst_buffer_peek_memory (meta->flow, 0) : NULL;
  is_cuda = mem != NULL && gst_is_cuda_memory (mem);
  if ((!is_cuda && meta->stride != (gint) layout->row_bytes[0]) ||
      !gst_cf_base_transform_map_side_input (GST_CF_BASE_TRANSFORM (self),
          meta->flow, layout, side)) {
    if (!self->warned_map) {
      GST_WARNING_OBJECT (self, "cannot read the flow meta's field (%s "
          "memory, stride %d): drawing the frame without flow",
          is_cuda ? "CUDA" : "system", meta->stride);
      self->warned_map = TRUE;
    }
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
gst_flow_viz_process (GstCfBaseTransform * base, GstBuffer * inbuf,
    const GstCfPlanes * in, GstBuffer * outbuf, const GstCfPlanes * out)
{
  GstFlowViz *self = GST_FLOW_VIZ (base);
  const GstVideoInfo *info = &out->layout->info;
  cf_flowviz_params params;
  cf_flowviz_video frame, *video = NULL;
  GstCfLayout flow_layout;
  GstCfSideInput side;
  gboolean side_mapped = FALSE;
  const float *uv = NULL;
  size_t uv_stride = 0;
  float max_flow;
  cf_status status;

  GST_OBJECT_LOCK (self);
  params.mode = self->mode;
  params.arrow_step = self->arrow_step;
  params.alpha = (float) self->alpha;
  params.arrow_scale = (float) self->arrow_scale;
  params.arrow_min = (float) self->arrow_min;
  params.arrow_thickness = (float) self->arrow_thickness;
  params.arrow_color = self->arrow_color;
  max_flow = (float) self->max_flow;
  GST_OBJECT_UNLOCK (self);

  params.r = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
  params.g = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
  params.b = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
  /* alpha, or the padding byte of RGBx/BGRx: opaque */
  params.a = 6 - params.r - params.g - params.b;

  if (in->layout->is_video) {
    gst_flow_viz_video_from_planes (in, &frame);
    video = &frame;
    side_mapped = gst_flow_viz_map_meta_flow (self, inbuf, in->layout,
        &flow_layout, &side);
    if (side_mapped) {
      uv = (const float *) side.planes.data[0];
      uv_stride = (size_t) side.planes.stride[0];
    }
  } else if (!GST_BUFFER_FLAG_IS_SET (inbuf, GST_BUFFER_FLAG_GAP)) {
    uv = (const float *) in->data[0];
    uv_stride = (size_t) in->stride[0];
  }
  /* else a GAP field (the estimator's first frame, or the first after a
   * discontinuity): zeros that mean "no flow", drawn neutral rather than
   * as still motion (white in middlebury) */

  if (in->on_device) {
    status = CF_OK;
    if (uv != NULL && !(max_flow > 0.0f) && self->gpu_max == NULL)
      status = cf_cuda_flowviz_scratch_alloc (&self->gpu_max);
    if (status == CF_OK)
      status = cf_cuda_flowviz_render_video (video, uv, uv_stride,
          in->layout->width, in->layout->height, &params, max_flow,
          self->gpu_max, out->data[0], out->stride[0],
          gst_cf_base_transform_get_stream (base));
  } else {
    status = cf_flowviz_render_video (video, uv, uv_stride,
        in->layout->width, in->layout->height, &params, max_flow,
        out->data[0], out->stride[0]);
  }
  /* in place or staged, the field stays readable until the base
   * synchronises the stream: the meta holds it, and the staging lives
   * until the caps change */
  if (side_mapped)
    gst_cf_base_transform_unmap_side_input (&side);
  if (status != CF_OK)
    goto failed;
  return GST_FLOW_OK;

  /* ERRORS */
failed:
  gst_cf_post_status_error (GST_ELEMENT (self), status, NULL,
      "Could not render the flow field");
  return GST_FLOW_ERROR;
}
