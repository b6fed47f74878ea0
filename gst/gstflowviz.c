/* gst-cudaflow — flowviz: optical-flow fields as pictures
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-flowviz
 * @title: flowviz
 *
 * Renders `video/x-optical-flow, format=UV_F32LE` as RGBA/BGRA/RGBx/BGRx
 * video, in CUDA memory or system memory:
 *
 * - `mode=middlebury` (default): the Middlebury colour wheel of Baker et
 *   al. — hue gives the direction, saturation the magnitude relative to
 *   `max-flow`; zero motion is white, vectors longer than `max-flow` are
 *   darkened, unknown vectors (|u| or |v| > 1e9, NaN) are black. Pictures
 *   match the published figures for the same `max-flow`.
 * - `mode=hsv`: hue = direction, value = magnitude / `max-flow` (zero flow
 *   is black).
 * - `mode=arrows`: one white arrow every `arrow-step` pixels (as long as a
 *   grid cell at `max-flow`) over the colour coding dimmed to 40 %.
 *
 * `max-flow=0` (default) normalises each frame by its largest known
 * vector; a fixed value avoids flicker between frames.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! cudaflowhs ! flowviz max-flow=8 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstflowviz.h"
#include "gstcudaflowelements.h"
#include "gstcfflowbase.h"

#include "common/flowviz.h"
#include "cuda/flowviz.h"

GST_DEBUG_CATEGORY_STATIC (gst_flow_viz_debug);
#define GST_CAT_DEFAULT gst_flow_viz_debug

#define DEFAULT_MODE CF_FLOWVIZ_MIDDLEBURY
#define DEFAULT_MAX_FLOW 0.0
#define DEFAULT_ARROW_STEP 16

enum
{
  PROP_0,
  PROP_MODE,
  PROP_MAX_FLOW,
  PROP_ARROW_STEP
};

#define OUT_FORMATS "{ RGBA, BGRA, RGBx, BGRx }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_CF_FLOW_CAPS_STR));
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

  /* streaming: device scratch for the per-frame maximum */
  float *gpu_max;
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
    {CF_FLOWVIZ_ARROWS, "Arrows over the dimmed colour wheel", "arrows"},
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

  gobject_class->set_property = gst_flow_viz_set_property;
  gobject_class->get_property = gst_flow_viz_get_property;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "How vectors become colours",
          GST_TYPE_FLOW_VIZ_MODE, DEFAULT_MODE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_MAX_FLOW,
      g_param_spec_double ("max-flow", "Max Flow",
          "Vector length in pixels that gets full saturation (0 = the "
          "largest known vector of each frame; a fixed value avoids "
          "flicker)", 0.0, 1e6, DEFAULT_MAX_FLOW,
          rw_playing | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_ARROW_STEP,
      g_param_spec_int ("arrow-step", "Arrow Step",
          "Distance in pixels between arrows (mode=arrows)", 4, 1024,
          DEFAULT_ARROW_STEP, rw_playing));

  gst_element_class_set_static_metadata (element_class,
      "Optical flow visualiser", "Filter/Converter/Video/Hardware",
      "Renders optical-flow fields as pictures: Middlebury colour wheel, "
      "HSV or arrows (GPU, or CPU without a GPU)", "gst-cudaflow");
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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstCaps *
gst_flow_viz_transform_media_caps (GstCfBaseTransform * base,
    GstPadDirection direction, GstCaps * caps)
{
  static const gchar *fields[] = { "width", "height", "framerate",
    "pixel-aspect-ratio"
  };
  GstCaps *out = gst_caps_new_empty ();
  guint i, f;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstStructure *t;

    if (direction == GST_PAD_SINK) {
      GValue formats = G_VALUE_INIT;
      t = gst_structure_new_empty ("video/x-raw");
      g_value_init (&formats, GST_TYPE_LIST);
      gst_value_deserialize (&formats, OUT_FORMATS);
      gst_structure_set_value (t, "format", &formats);
      g_value_unset (&formats);
    } else {
      t = gst_structure_new ("video/x-optical-flow", "format", G_TYPE_STRING,
          "UV_F32LE", NULL);
    }
    for (f = 0; f < G_N_ELEMENTS (fields); f++) {
      const GValue *v = gst_structure_get_value (s, fields[f]);
      if (v != NULL)
        gst_structure_set_value (t, fields[f], v);
    }
    out = gst_caps_merge_structure (out, t);
  }
  return out;
}

static gboolean
gst_flow_viz_set_info (GstCfBaseTransform * base, const GstCfLayout * in,
    const GstCfLayout * out)
{
  return TRUE;
}

static void
gst_flow_viz_free_device_resources (GstCfBaseTransform * base)
{
  GstFlowViz *self = GST_FLOW_VIZ (base);

  cf_cuda_flowviz_scratch_free (self->gpu_max);
  self->gpu_max = NULL;
}

static GstFlowReturn
gst_flow_viz_process (GstCfBaseTransform * base, GstBuffer * inbuf,
    const GstCfPlanes * in, GstBuffer * outbuf, const GstCfPlanes * out)
{
  GstFlowViz *self = GST_FLOW_VIZ (base);
  const GstVideoInfo *info = &out->layout->info;
  cf_flowviz_params params;
  float max_flow;
  cf_status status;

  GST_OBJECT_LOCK (self);
  params.mode = self->mode;
  params.arrow_step = self->arrow_step;
  max_flow = (float) self->max_flow;
  GST_OBJECT_UNLOCK (self);

  params.r = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
  params.g = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
  params.b = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
  /* alpha, or the padding byte of RGBx/BGRx: opaque */
  params.a = 6 - params.r - params.g - params.b;

  if (in->on_device) {
    if (self->gpu_max == NULL) {
      status = cf_cuda_flowviz_scratch_alloc (&self->gpu_max);
      if (status != CF_OK)
        goto failed;
    }
    status = cf_cuda_flowviz_render ((const float *) in->data[0],
        in->stride[0], in->layout->width, in->layout->height, &params,
        max_flow, self->gpu_max, out->data[0], out->stride[0],
        gst_cf_base_transform_get_stream (base));
  } else {
    status = cf_flowviz_render ((const float *) in->data[0], in->stride[0],
        in->layout->width, in->layout->height, &params, max_flow,
        out->data[0], out->stride[0]);
  }
  if (status != CF_OK)
    goto failed;
  return GST_FLOW_OK;

failed:
  gst_cf_post_status_error (GST_ELEMENT (self), status, NULL,
      "Could not render the flow field");
  return GST_FLOW_ERROR;
}
