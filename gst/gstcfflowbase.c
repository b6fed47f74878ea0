/* gst-cudaflow — base class of the dense optical-flow estimators
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstcfflowbase
 * @title: GstCfFlowBase
 * @short_description: what cudaflowhs, cudaflowtvl1 and cudaflowclg share
 *
 * Takes video frames (CUDA or system memory; GRAY8, GRAY16_LE, NV12, I420,
 * RGBA, BGRA, RGBx, BGRx), estimates on luma in 0..255 (Y, 16-bit samples
 * scaled, or Rec.601 from RGB), and emits one flow field per frame:
 * `video/x-optical-flow, format=UV_F32LE` in CUDA memory (pitched) or packed
 * system memory, with the PTS and duration of frame t. The vector at x of
 * frame t-1 satisfies I(t-1, x) ~ I(t, x + (u, v)) (Middlebury).
 *
 * The pyramid of each frame is built once and kept for the next frame, on
 * the device when the GPU is used. There is no previous frame at the
 * start, after a DISCONT buffer, after FLUSH_STOP and after a caps change:
 * the output is then a zero field flagged GST_BUFFER_FLAG_GAP, so buffer
 * counts stay 1:1. With `use-previous-flow` the last flow seeds the next
 * estimate (scaled to the coarsest level), which helps slow, steady motion.
 *
 * With `output=meta` the video passes through instead (same caps, same
 * memory, no copy of the pixels) and each frame carries a #GstCudaFlowMeta
 * (`<gst/cudaflow/cudaflow.h>`, library `gstreamer-cudaflow-1.0`): the
 * field in CUDA memory when the frame is in CUDA memory of the element's
 * context, else in system memory; the PTS of both frames of the pair; and
 * `valid` = FALSE where the flow stream would send a GAP field.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfflowbase.h"

#include <gst/cuda/gstcudautils.h>

#include "gstcfbufferpool.h"

#include "common/planes.h"
#include "cuda/flow.h"
#include "cuda/luma.h"
#include "cuda/pyramid.h"

GST_DEBUG_CATEGORY_STATIC (gst_cf_flow_base_debug);
#define GST_CAT_DEFAULT gst_cf_flow_base_debug

#define DEFAULT_SCALE_FACTOR 0.5
#define DEFAULT_USE_PREVIOUS_FLOW FALSE
#define DEFAULT_PRECISION CF_PRECISION_FP32
#define DEFAULT_OUTPUT GST_CF_FLOW_OUTPUT_FLOW
/* the coarsest level keeps both sides at least this large (IPOL caps its
 * number of scales the same way) */
#define MIN_LEVEL_SIZE 16

#define VIDEO_FORMATS "{ GRAY8, GRAY16_LE, NV12, I420, RGBA, BGRA, RGBx, BGRx }"

typedef struct
{
  /* properties, object lock */
  gint levels;
  gdouble scale_factor;
  gboolean use_previous_flow;
  cf_precision precision;
  GstCfFlowOutput output;

  /* streaming thread */
  cf_pyramid_params pyramid_params;
  gboolean stream_use_previous_flow;
  cf_precision stream_precision;
  gboolean allocated;
  gint cur;                     /* pyramid slot of frame t */
  gboolean have_prev;           /* the other slot holds frame t-1 */
  gboolean have_flow;           /* the flow buffer holds the last result */
  cf_pyramid *cpu_pyramid[2];
  cf_flow *cpu_flow;
  cf_cuda_pyramid gpu_pyramid[2];
  cf_cuda_flow gpu_flow;
  gfloat range[2][2];           /* per slot: luma min, max (needs_frame_range) */
  float *range_scratch;         /* device, CF_CUDA_MIN_MAX_SCRATCH floats */
  float *range_host;            /* pinned (min, max), copied asynchronously */
  cudaEvent_t range_done;       /* passed once range_host holds the values */
  GstClockTime pts[2];          /* per slot: the frame's PTS */
  GstClockTime pair_prev_pts;   /* PTS of frame t-1 of the last solve */

  /* output=meta: the fields attached to the frames */
  GstCfLayout flow_layout;
  GstBufferPool *flow_pool_cuda;
  GstBufferPool *flow_pool_system;
} GstCfFlowBasePrivate;

#define gst_cf_flow_base_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCfFlowBase, gst_cf_flow_base,
    GST_TYPE_CF_BASE_TRANSFORM, G_ADD_PRIVATE (GstCfFlowBase);
    GST_DEBUG_CATEGORY_INIT (gst_cf_flow_base_debug, "cfflowbase", 0,
        "gst-cudaflow flow estimator base"));

#define GET_PRIV(self) \
  ((GstCfFlowBasePrivate *) gst_cf_flow_base_get_instance_private (self))

static void gst_cf_flow_base_constructed (GObject * object);
static gboolean gst_cf_flow_base_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstCaps *gst_cf_flow_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstFlowReturn gst_cf_flow_base_transform_ip (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstCaps *gst_cf_flow_base_transform_media_caps (GstCfBaseTransform *
    base, GstPadDirection direction, GstCaps * caps);
static gboolean gst_cf_flow_base_set_info (GstCfBaseTransform * base,
    const GstCfLayout * in, const GstCfLayout * out);
static GstFlowReturn gst_cf_flow_base_process (GstCfBaseTransform * base,
    GstBuffer * inbuf, const GstCfPlanes * in, GstBuffer * outbuf,
    const GstCfPlanes * out);
static void gst_cf_flow_base_free_device_resources (GstCfBaseTransform *
    base);

GType
gst_cf_precision_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_PRECISION_FP32, "32-bit float state and arithmetic", "fp32"},
    {CF_PRECISION_FP16, "16-bit float (half2) state on the GPU; the CPU "
          "backend computes in fp32", "fp16"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCfPrecision",
            values));
  return (GType) type;
}

GType
gst_cf_flow_output_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CF_FLOW_OUTPUT_FLOW, "The flow field as a stream of its own "
          "(video/x-optical-flow)", "flow"},
    {GST_CF_FLOW_OUTPUT_META, "The video unchanged, each frame carrying its "
          "flow field as GstCudaFlowMeta", "meta"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCfFlowOutput",
            values));
  return (GType) type;
}

static void
gst_cf_flow_base_class_init (GstCfFlowBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCfBaseTransformClass *cf_class = GST_CF_BASE_TRANSFORM_CLASS (klass);

  gobject_class->constructed = gst_cf_flow_base_constructed;
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cf_flow_base_sink_event);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cf_flow_base_transform_caps);
  /* used when the caps are equal, i.e. with output=meta */
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_cf_flow_base_transform_ip);
  cf_class->transform_media_caps =
      GST_DEBUG_FUNCPTR (gst_cf_flow_base_transform_media_caps);
  cf_class->set_info = GST_DEBUG_FUNCPTR (gst_cf_flow_base_set_info);
  cf_class->process = GST_DEBUG_FUNCPTR (gst_cf_flow_base_process);
  cf_class->free_device_resources =
      GST_DEBUG_FUNCPTR (gst_cf_flow_base_free_device_resources);

  gst_type_mark_as_plugin_api (GST_TYPE_CF_FLOW_BASE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CF_PRECISION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CF_FLOW_OUTPUT, 0);
}

/* The sink and source templates every estimator uses. */
static void
gst_cf_flow_base_init (GstCfFlowBase * self)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);

  priv->levels = 5;
  priv->scale_factor = DEFAULT_SCALE_FACTOR;
  priv->use_previous_flow = DEFAULT_USE_PREVIOUS_FLOW;
  priv->precision = DEFAULT_PRECISION;
  priv->output = DEFAULT_OUTPUT;
  priv->pts[0] = priv->pts[1] = GST_CLOCK_TIME_NONE;
  priv->pair_prev_pts = GST_CLOCK_TIME_NONE;
}

/* The subclass installed `levels` with its own default: start from it. */
static void
gst_cf_flow_base_constructed (GObject * object)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (GST_CF_FLOW_BASE (object));
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (object), "levels");

  if (pspec != NULL && G_IS_PARAM_SPEC_INT (pspec))
    priv->levels = G_PARAM_SPEC_INT (pspec)->default_value;
  G_OBJECT_CLASS (parent_class)->constructed (object);
}

void
gst_cf_flow_base_install_properties (GObjectClass * klass,
    gint default_levels)
{
  GstPadTemplate *templ;
  GstCaps *caps;

  g_object_class_install_property (klass, GST_CF_FLOW_BASE_PROP_LEVELS,
      g_param_spec_int ("levels", "Levels",
          "Pyramid levels, the full-resolution frame included (fewer are "
          "used when the coarsest level would be smaller than 16 pixels)",
          1, 16, default_levels, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (klass, GST_CF_FLOW_BASE_PROP_SCALE_FACTOR,
      g_param_spec_double ("scale-factor", "Scale Factor",
          "Size ratio between a pyramid level and the next finer one "
          "(eta; level size floor(n*eta + 0.5))", 0.1, 0.95,
          DEFAULT_SCALE_FACTOR, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (klass,
      GST_CF_FLOW_BASE_PROP_USE_PREVIOUS_FLOW,
      g_param_spec_boolean ("use-previous-flow", "Use Previous Flow",
          "Start each estimate from the previous frame's flow instead of "
          "zero (warm start; helps steady motion)", DEFAULT_USE_PREVIOUS_FLOW,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (klass, GST_CF_FLOW_BASE_PROP_PRECISION,
      g_param_spec_enum ("precision", "Precision",
          "Precision of the iterative solver's state on the GPU (fp16 uses "
          "half2 storage; pyramids and output stay fp32)",
          GST_TYPE_CF_PRECISION, DEFAULT_PRECISION, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass, GST_CF_FLOW_BASE_PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "What the source pad carries: flow = a flow stream "
          "(video/x-optical-flow, UV_F32LE); meta = the input video "
          "unchanged, each frame with its flow as GstCudaFlowMeta "
          "(library gstreamer-cudaflow-1.0)", GST_TYPE_CF_FLOW_OUTPUT,
          DEFAULT_OUTPUT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  caps = gst_caps_from_string (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
      ("memory:CUDAMemory", VIDEO_FORMATS) "; "
      GST_VIDEO_CAPS_MAKE (VIDEO_FORMATS));
  templ = gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps);
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass), templ);
  gst_caps_unref (caps);
  /* flow, or with output=meta the video it came from */
  caps = gst_caps_from_string (GST_CF_FLOW_CAPS_STR "; "
      GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", VIDEO_FORMATS)
      "; " GST_VIDEO_CAPS_MAKE (VIDEO_FORMATS));
  templ = gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps);
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass), templ);
  gst_caps_unref (caps);
}

gboolean
gst_cf_flow_base_set_common_property (GObject * object, guint prop_id,
    const GValue * value)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (GST_CF_FLOW_BASE (object));
  gboolean handled = TRUE;

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case GST_CF_FLOW_BASE_PROP_LEVELS:
      priv->levels = g_value_get_int (value);
      break;
    case GST_CF_FLOW_BASE_PROP_SCALE_FACTOR:
      priv->scale_factor = g_value_get_double (value);
      break;
    case GST_CF_FLOW_BASE_PROP_USE_PREVIOUS_FLOW:
      priv->use_previous_flow = g_value_get_boolean (value);
      break;
    case GST_CF_FLOW_BASE_PROP_PRECISION:
      priv->precision = g_value_get_enum (value);
      break;
    case GST_CF_FLOW_BASE_PROP_OUTPUT:
      priv->output = g_value_get_enum (value);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (object);
  return handled;
}

gboolean
gst_cf_flow_base_get_common_property (GObject * object, guint prop_id,
    GValue * value)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (GST_CF_FLOW_BASE (object));
  gboolean handled = TRUE;

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case GST_CF_FLOW_BASE_PROP_LEVELS:
      g_value_set_int (value, priv->levels);
      break;
    case GST_CF_FLOW_BASE_PROP_SCALE_FACTOR:
      g_value_set_double (value, priv->scale_factor);
      break;
    case GST_CF_FLOW_BASE_PROP_USE_PREVIOUS_FLOW:
      g_value_set_boolean (value, priv->use_previous_flow);
      break;
    case GST_CF_FLOW_BASE_PROP_PRECISION:
      g_value_set_enum (value, priv->precision);
      break;
    case GST_CF_FLOW_BASE_PROP_OUTPUT:
      g_value_set_enum (value, priv->output);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (object);
  return handled;
}

cf_precision
gst_cf_flow_base_get_precision (GstCfFlowBase * self)
{
  return GET_PRIV (self)->stream_precision;
}

/* --- caps ------------------------------------------------------------ */

static void
copy_field (GstStructure * dst, const GstStructure * src, const gchar * name)
{
  const GValue *v = gst_structure_get_value (src, name);
  if (v != NULL)
    gst_structure_set_value (dst, name, v);
}

static GstCaps *
gst_cf_flow_base_transform_media_caps (GstCfBaseTransform * base,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstStructure *t;

    if (direction == GST_PAD_SINK) {
      t = gst_structure_new ("video/x-optical-flow", "format", G_TYPE_STRING,
          "UV_F32LE", NULL);
    } else {
      GValue formats = G_VALUE_INIT;
      t = gst_structure_new_empty ("video/x-raw");
      g_value_init (&formats, GST_TYPE_LIST);
      gst_value_deserialize (&formats, VIDEO_FORMATS);
      gst_structure_set_value (t, "format", &formats);
      g_value_unset (&formats);
    }
    copy_field (t, s, "width");
    copy_field (t, s, "height");
    copy_field (t, s, "framerate");
    copy_field (t, s, "pixel-aspect-ratio");
    out = gst_caps_merge_structure (out, t);
  }
  return out;
}

/* output=meta: the video passes through, so the caps (memory included)
 * are the same on both pads; the CPU backend takes system memory only. */
static GstCaps *
gst_cf_flow_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (trans);
  GstCfFlowOutput output;
  GstCaps *result;

  GST_OBJECT_LOCK (self);
  output = GET_PRIV (self)->output;
  GST_OBJECT_UNLOCK (self);

  if (output == GST_CF_FLOW_OUTPUT_FLOW)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_caps (trans,
        direction, caps, filter);

  if (gst_cf_base_transform_get_active_backend (GST_CF_BASE_TRANSFORM (self))
      == GST_CF_BACKEND_CPU)
    result = gst_cf_caps_system_only (caps);
  else
    result = gst_caps_ref (caps);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  return result;
}

static void
reset_history (GstCfFlowBase * self)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);

  priv->have_prev = FALSE;
  priv->have_flow = FALSE;
  priv->pair_prev_pts = GST_CLOCK_TIME_NONE;
}

static gboolean
gst_cf_flow_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    reset_history (GST_CF_FLOW_BASE (trans));
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static void
free_frames (GstCfFlowBase * self)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  gint i;

  for (i = 0; i < 2; i++) {
    g_clear_pointer (&priv->cpu_pyramid[i], cf_pyramid_free);
    cf_cuda_pyramid_release (&priv->gpu_pyramid[i]);
  }
  g_clear_pointer (&priv->cpu_flow, cf_flow_free);
  cf_cuda_flow_release (&priv->gpu_flow);
  if (priv->range_scratch) {
    cudaFree (priv->range_scratch);
    priv->range_scratch = NULL;
  }
  if (priv->range_host) {
    cudaFreeHost (priv->range_host);
    priv->range_host = NULL;
  }
  if (priv->range_done) {
    cudaEventDestroy (priv->range_done);
    priv->range_done = NULL;
  }
  priv->allocated = FALSE;
  reset_history (self);
}

static void
clear_pool (GstBufferPool ** pool)
{
  if (*pool == NULL)
    return;
  gst_buffer_pool_set_active (*pool, FALSE);
  gst_clear_object (pool);
}

static void
gst_cf_flow_base_free_device_resources (GstCfBaseTransform * base)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (base);
  GstCfFlowBaseClass *klass = GST_CF_FLOW_BASE_GET_CLASS (self);

  free_frames (self);
  clear_pool (&GET_PRIV (self)->flow_pool_cuda);
  clear_pool (&GET_PRIV (self)->flow_pool_system);
  if (klass->free_solver)
    klass->free_solver (self);
}

static gboolean
gst_cf_flow_base_set_info (GstCfBaseTransform * base, const GstCfLayout * in,
    const GstCfLayout * out)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (GST_CF_FLOW_BASE (base));
  GstCfLayout *flow = &priv->flow_layout;
  gboolean meta;

  /* the base already freed everything sized for the old caps */
  reset_history (GST_CF_FLOW_BASE (base));

  /* output=meta: transform_ip on the frame itself (made writable, which
   * shares its memory); GstBaseTransform 1.22 does not switch by itself */
  GST_OBJECT_LOCK (base);
  meta = priv->output == GST_CF_FLOW_OUTPUT_META;
  GST_OBJECT_UNLOCK (base);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (base), meta);

  /* the field output=meta attaches, laid out as flow caps would say */
  memset (flow, 0, sizeof (*flow));
  flow->info = in->info;
  flow->width = in->width;
  flow->height = in->height;
  flow->n_planes = 1;
  flow->row_bytes[0] = (guint) in->width * GST_CUDA_FLOW_PIXEL_SIZE;
  flow->rows[0] = (guint) in->height;
  return TRUE;
}

/* --- per frame ------------------------------------------------------- */

/* Copy the settings; FALSE when frames or solvers must be rebuilt. */
static gboolean
sync_settings (GstCfFlowBase * self)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstCfFlowBaseClass *klass = GST_CF_FLOW_BASE_GET_CLASS (self);
  cf_pyramid_params params;
  gboolean same, solver_ok = TRUE;

  cf_pyramid_params_init (&params);
  GST_OBJECT_LOCK (self);
  params.max_levels = priv->levels;
  params.eta = (float) priv->scale_factor;
  params.min_size = MIN_LEVEL_SIZE;
  klass->get_pyramid_params (self, &params);
  priv->stream_use_previous_flow = priv->use_previous_flow;
  if (klass->sync_settings)
    solver_ok = !klass->sync_settings (self);
  if (priv->stream_precision != priv->precision) {
    priv->stream_precision = priv->precision;
    solver_ok = FALSE;
  }
  GST_OBJECT_UNLOCK (self);

  same = params.max_levels == priv->pyramid_params.max_levels &&
      params.eta == priv->pyramid_params.eta &&
      params.presmooth_sigma == priv->pyramid_params.presmooth_sigma &&
      params.min_size == priv->pyramid_params.min_size;
  priv->pyramid_params = params;
  return same && solver_ok;
}

static gboolean
allocate_frames (GstCfFlowBase * self, gint width, gint height,
    gboolean on_device)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  cf_status status = CF_OK;
  gint i;

  for (i = 0; i < 2 && status == CF_OK; i++) {
    if (on_device) {
      status = cf_cuda_pyramid_alloc (&priv->gpu_pyramid[i], width, height,
          &priv->pyramid_params);
    } else {
      priv->cpu_pyramid[i] = cf_pyramid_new (width, height,
          &priv->pyramid_params);
      if (priv->cpu_pyramid[i] == NULL)
        status = CF_ERROR_NO_MEMORY;
    }
  }
  if (status == CF_OK && on_device &&
      GST_CF_FLOW_BASE_GET_CLASS (self)->needs_frame_range)
    status = cf_cuda_check (cudaMalloc ((void **) &priv->range_scratch,
            CF_CUDA_MIN_MAX_SCRATCH * sizeof (float)));
  if (status == CF_OK && priv->range_scratch)
    status = cf_cuda_check (cudaMallocHost ((void **) &priv->range_host,
            2 * sizeof (float)));
  if (status == CF_OK && priv->range_scratch)
    status = cf_cuda_check (cudaEventCreateWithFlags (&priv->range_done,
            cudaEventDisableTiming));
  if (status == CF_OK) {
    if (on_device) {
      status = cf_cuda_flow_alloc (&priv->gpu_flow, width, height);
    } else {
      priv->cpu_flow = cf_flow_new (width, height);
      if (priv->cpu_flow == NULL)
        status = CF_ERROR_NO_MEMORY;
    }
  }
  if (status != CF_OK) {
    gchar *what = g_strdup_printf ("Not enough %s memory for %dx%d frames "
        "at %d pyramid levels", on_device ? "GPU" : "host", width, height,
        priv->pyramid_params.max_levels);
    gst_cf_post_status_error (GST_ELEMENT (self), status, NULL, what);
    g_free (what);
    free_frames (self);
    return FALSE;
  }
  priv->allocated = TRUE;
  priv->cur = 0;
  reset_history (self);
  return TRUE;
}

/* Luma of the input frame in 0..255 into the current level 0. */
static cf_status
extract_luma (GstCfFlowBase * self, const GstCfPlanes * in, cudaStream_t s)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  const GstVideoInfo *info = &in->layout->info;

  if (GST_VIDEO_INFO_IS_RGB (info)) {
    gint ps = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
    gint r = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
    gint g = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
    gint b = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
    if (in->on_device)
      return cf_cuda_luma_from_rgb (in->data[0], in->stride[0], ps, r, g, b,
          &priv->gpu_pyramid[priv->cur].level[0], s);
    return cf_luma_from_rgb (in->data[0], in->stride[0], ps, r, g, b,
        priv->cpu_pyramid[priv->cur]->level[0]);
  } else {
    cf_channel ch;
    ch.data = in->data[GST_VIDEO_INFO_COMP_PLANE (info, GST_VIDEO_COMP_Y)] +
        GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_Y);
    ch.width = GST_VIDEO_INFO_WIDTH (info);
    ch.height = GST_VIDEO_INFO_HEIGHT (info);
    ch.stride = in->stride[GST_VIDEO_INFO_COMP_PLANE (info,
            GST_VIDEO_COMP_Y)];
    ch.pixel_stride = GST_VIDEO_INFO_COMP_PSTRIDE (info, GST_VIDEO_COMP_Y);
    ch.depth = GST_VIDEO_INFO_COMP_DEPTH (info, GST_VIDEO_COMP_Y) > 8 ? 16 : 8;
    if (in->on_device)
      return cf_cuda_luma_from_channel (&ch,
          &priv->gpu_pyramid[priv->cur].level[0], s);
    return cf_luma_from_channel (&ch, priv->cpu_pyramid[priv->cur]->level[0]);
  }
}

/* Luma range of the current frame, before the pyramid smooths it. On the
 * device the reduction is only queued: finish_range waits for it once the
 * pyramid is queued too, so the GPU never idles for the round trip. */
static cf_status
record_range (GstCfFlowBase * self, gboolean on_device, cudaStream_t s)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  gfloat *range = priv->range[priv->cur];
  cf_status status;

  if (on_device) {
    status = cf_cuda_image_min_max_async (&priv->gpu_pyramid[priv->cur].
        level[0], priv->range_scratch, priv->range_host, s);
    if (status == CF_OK)
      status = cf_cuda_check (cudaEventRecord (priv->range_done, s));
    return status;
  }
  cf_image_min_max (priv->cpu_pyramid[priv->cur]->level[0], &range[0],
      &range[1]);
  return CF_OK;
}

/* The device half of record_range: wait for the values and keep them. */
static cf_status
finish_range (GstCfFlowBase * self)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  cf_status status = cf_cuda_check (cudaEventSynchronize (priv->range_done));

  if (status == CF_OK) {
    priv->range[priv->cur][0] = priv->range_host[0];
    priv->range[priv->cur][1] = priv->range_host[1];
  }
  return status;
}

void
gst_cf_flow_base_get_pair_range (GstCfFlowBase * self, gfloat * min,
    gfloat * max)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);

  *min = MIN (priv->range[0][0], priv->range[1][0]);
  *max = MAX (priv->range[0][1], priv->range[1][1]);
}

static GstFlowReturn
gst_cf_flow_base_process (GstCfBaseTransform * base, GstBuffer * inbuf,
    const GstCfPlanes * in, GstBuffer * outbuf, const GstCfPlanes * out)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (base);
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstCfFlowBaseClass *klass = GST_CF_FLOW_BASE_GET_CLASS (self);
  gboolean on_device = in->on_device;
  cudaStream_t stream = gst_cf_base_transform_get_stream (base);
  cf_status status;
  gboolean solved = FALSE;
  gint prev;

  if (!sync_settings (self) || !priv->allocated) {
    free_frames (self);
    if (klass->free_solver)
      klass->free_solver (self);
    if (!allocate_frames (self, in->layout->width, in->layout->height,
            on_device))
      return GST_FLOW_ERROR;
  }
  if (GST_BUFFER_IS_DISCONT (inbuf))
    reset_history (self);

  /* this frame's pyramid, kept for the next frame */
  status = extract_luma (self, in, stream);
  if (status == CF_OK && klass->needs_frame_range)
    status = record_range (self, on_device, stream);
  if (status == CF_OK) {
    if (on_device)
      status = cf_cuda_pyramid_build (&priv->gpu_pyramid[priv->cur],
          &priv->pyramid_params, stream);
    else
      status = cf_pyramid_build (priv->cpu_pyramid[priv->cur],
          priv->cpu_pyramid[priv->cur]->level[0], &priv->pyramid_params);
  }
  if (status == CF_OK && klass->needs_frame_range && on_device)
    status = finish_range (self);
  if (status != CF_OK) {
    gst_cf_post_status_error (GST_ELEMENT (self), status, NULL,
        "Could not build the image pyramid");
    return GST_FLOW_ERROR;
  }

  prev = 1 - priv->cur;
  if (priv->have_prev) {
    gboolean warm = priv->stream_use_previous_flow && priv->have_flow;
    if (on_device)
      solved = klass->solve_cuda (self, &priv->gpu_pyramid[prev],
          &priv->gpu_pyramid[priv->cur], warm, &priv->gpu_flow, stream);
    else
      solved = klass->solve_cpu (self, priv->cpu_pyramid[prev],
          priv->cpu_pyramid[priv->cur], warm, priv->cpu_flow);
    if (!solved)
      return GST_FLOW_ERROR;
  }

  /* a zero field stands in for the flow that has no previous frame */
  if (!solved) {
    if (on_device)
      status = cf_cuda_flow_fill (&priv->gpu_flow, 0.0f, 0.0f, stream);
    else
      cf_flow_fill (priv->cpu_flow, 0.0f, 0.0f);
  }
  if (status == CF_OK) {
    if (on_device)
      status = cf_cuda_flow_to_interleaved (&priv->gpu_flow,
          (float *) out->data[0], out->stride[0], stream);
    else
      cf_flow_to_interleaved (priv->cpu_flow, (float *) out->data[0],
          out->stride[0]);
  }
  if (status != CF_OK) {
    gst_cf_post_status_error (GST_ELEMENT (self), status, NULL,
        "Could not write the flow field");
    return GST_FLOW_ERROR;
  }

  if (solved)
    GST_BUFFER_FLAG_UNSET (outbuf, GST_BUFFER_FLAG_GAP);
  else
    GST_BUFFER_FLAG_SET (outbuf, GST_BUFFER_FLAG_GAP);
  priv->pair_prev_pts = solved ? priv->pts[prev] : GST_CLOCK_TIME_NONE;
  priv->pts[priv->cur] = GST_BUFFER_PTS (inbuf);
  priv->have_flow = solved;
  priv->have_prev = TRUE;
  priv->cur = prev;
  return GST_FLOW_OK;
}

/* --- output=meta ----------------------------------------------------- */

/* The pool of attached fields: CUDA memory of our context for frames in
 * it, system memory otherwise (made on first use, kept until the caps
 * change). */
static GstBufferPool *
flow_pool (GstCfFlowBase * self, gboolean cuda)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstBufferPool **slot = cuda ? &priv->flow_pool_cuda :
      &priv->flow_pool_system;
  GstStructure *config;
  GstCaps *caps;
  guint size;

  if (*slot != NULL)
    return *slot;

  caps = gst_caps_new_simple (GST_CUDA_FLOW_CAPS_NAME, "format",
      G_TYPE_STRING, GST_CUDA_FLOW_FORMAT, "width", G_TYPE_INT,
      priv->flow_layout.width, "height", G_TYPE_INT,
      priv->flow_layout.height, NULL);
  if (cuda) {
    gst_caps_set_features (caps, 0,
        gst_caps_features_new ("memory:CUDAMemory", NULL));
    *slot = gst_cf_buffer_pool_new (gst_cf_base_transform_get_context
        (GST_CF_BASE_TRANSFORM (self)));
  } else {
    *slot = gst_buffer_pool_new ();
  }
  size = priv->flow_layout.row_bytes[0] * priv->flow_layout.rows[0];
  config = gst_buffer_pool_get_config (*slot);
  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  gst_caps_unref (caps);
  if (!gst_buffer_pool_set_config (*slot, config) ||
      !gst_buffer_pool_set_active (*slot, TRUE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate %s memory for %dx%d flow fields.",
            cuda ? "GPU" : "host", priv->flow_layout.width,
            priv->flow_layout.height), (NULL));
    gst_clear_object (slot);
    return NULL;
  }
  return *slot;
}

static GstFlowReturn
gst_cf_flow_base_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (trans);
  GstCfBaseTransform *base = GST_CF_BASE_TRANSFORM (trans);
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  gboolean cuda = gst_cf_base_transform_is_own_cuda_memory (base, buffer);
  GstBufferPool *pool = flow_pool (self, cuda);
  GstBuffer *flow = NULL;
  GstFlowReturn ret;
  gint stride;

  if (pool == NULL)
    return GST_FLOW_ERROR;
  ret = gst_buffer_pool_acquire_buffer (pool, &flow, NULL);
  if (ret != GST_FLOW_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not get a buffer for a flow field."), ("%s",
            gst_flow_get_name (ret)));
    return ret;
  }

  ret = gst_cf_base_transform_process_into (base, buffer, flow,
      &priv->flow_layout);
  if (ret == GST_FLOW_OK) {
    stride = cuda ?
        gst_cf_cuda_memory_plane_stride (gst_buffer_peek_memory (flow, 0)) :
        (gint) priv->flow_layout.row_bytes[0];
    gst_buffer_add_cuda_flow_meta (buffer, flow, priv->flow_layout.width,
        priv->flow_layout.height, stride, priv->pair_prev_pts,
        GST_BUFFER_PTS (buffer), !GST_BUFFER_FLAG_IS_SET (flow,
            GST_BUFFER_FLAG_GAP), GST_CF_FLOW_BASE_GET_CLASS (self)->method);
  }
  gst_buffer_unref (flow);
  return ret;
}
