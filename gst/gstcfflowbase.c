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
 * start, after FLUSH_STOP, a new segment or a caps change, and after a PTS
 * step larger than `max-gap` or a DISCONT (see below): the output is then
 * a zero field flagged GST_BUFFER_FLAG_GAP, so buffer counts stay 1:1 (but
 * for frames QoS drops). With `use-previous-flow` the next estimate starts
 * from the last flow (scaled to the coarsest level), which helps slow,
 * steady motion.
 *
 * With `output=meta` the video passes through instead (same caps, same
 * memory, no copy of the pixels) and each frame carries a #GstCudaFlowMeta
 * (`<gst/cudaflow/cudaflow.h>`, library `gstreamer-cudaflow-1.0`): the
 * field in CUDA memory when the frame is in CUDA memory of the element's
 * context, else in system memory; the PTS of both frames of the pair; and
 * `valid` = FALSE where the flow stream would send a GAP field.
 *
 * Live streams (docs/live.md). A field spans the interval from the frame
 * that arrived before to this one. The flow stream's buffer keeps frame
 * t's PTS and duration, and every non-GAP field carries a
 * #GstReferenceTimestampMeta with caps `timestamp/x-cudaflow-previous-frame`
 * whose timestamp is frame t−1's PTS and whose duration is the distance
 * between the two PTS; the meta of `output=meta` has both PTS. A PTS step
 * larger than `max-gap` frame durations (from the caps framerate, else the
 * previous buffer's duration) resets the history instead: the output is a
 * GAP zero field (meta `valid` = FALSE). A DISCONT buffer resets it too,
 * unless its PTS step shows missing frames (1.5 frame durations or more)
 * within max-gap: a leaky queue's DISCONT after one dropped frame keeps
 * the history when max-gap allows two frame durations, while a DISCONT
 * with no frame missing (a source switch), or one whose step cannot be
 * measured or with `max-gap=0`, restarts. With `qos=true` a frame that
 * arrives late still gets its pyramid built (cheap) but no solve, and is
 * dropped: the next field is again between adjacent frames. In reverse playback the pair is
 * taken in arrival order, so PTS(t−1) > PTS(t) and the vectors point
 * backwards in stream time.
 *
 * Presets are shortcuts that never override an explicit setting, whichever
 * comes first; `overridden-properties` lists the preset's properties that
 * were set explicitly. A value set explicitly on a row that a per-level
 * list overrides (`warps`, `iterations`, …) counts on every level: it
 * clears the list, and presets leave the list empty.
 * `post-messages=true` posts one element message `cudaflow-stats` per
 * frame (mean and maximum motion, iterations run, solve time).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfflowbase.h"

#include <math.h>
#include <gobject/gvaluecollector.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcfbufferpool.h"
#include "gstcfparams.h"

#include "common/flow-engine.h"
#include "common/planes.h"
#include "cuda/flow-engine.h"

GST_DEBUG_CATEGORY_STATIC (gst_cf_flow_base_debug);
#define GST_CAT_DEFAULT gst_cf_flow_base_debug

#define DEFAULT_USE_PREVIOUS_FLOW FALSE
#define DEFAULT_PRECISION CF_PRECISION_FP32
#define DEFAULT_OUTPUT GST_CF_FLOW_OUTPUT_FLOW
/* a PTS step of more than 1.5 frame durations means at least one frame is
 * missing between the two */
#define DEFAULT_MAX_GAP 1.5
#define MAX_MAX_GAP 1000.0
#define DEFAULT_POST_MESSAGES FALSE
/* the coarsest level keeps both sides at least this large (IPOL caps its
 * number of scales the same way) */
#define MIN_LEVEL_SIZE 16

#define VIDEO_FORMATS "{ GRAY8, GRAY16_LE, NV12, I420, RGBA, BGRA, RGBx, BGRx }"

/* Ids of the properties made from parameter tables: row i of the method's
 * table is PROP_METHOD_PARAM + i, row i of the element's own rows
 * PROP_ELEMENT_PARAM + i (gst_cf_flow_base_class_install_params). Listings
 * (gst-inspect, docs/elements.md) follow the ids: the method's rows,
 * `preset`, the element's rows, then the properties of every estimator. */
#define PROP_METHOD_PARAM 0x100
#define PROP_PRESET 0x200
#define PROP_ELEMENT_PARAM 0x201

typedef struct
{
  /* properties, object lock */
  gint levels;
  gdouble scale_factor;
  gboolean use_previous_flow;
  cf_precision precision;
  GstCfFlowOutput output;
  gdouble max_gap;
  gboolean post_messages;
  GHashTable *explicit_props;   /* names of properties set explicitly */
  GPtrArray *preset_props;      /* names the current preset covers */
  gboolean applying_preset;
  gint preset;                  /* 0 = none, else 1 + index in the table */
  GHashTable *texts;            /* TEXT row name -> the text as set */
  GHashTable *text_errors;      /* TEXT row name -> why it did not parse */

  /* QoS, object lock: from the QoS events (our own copy: GstBaseTransform
   * would drop late frames before their pyramid is built) */
  GstClockTime qos_earliest;
  gdouble qos_proportion;
  guint64 qos_processed;
  guint64 qos_dropped;

  /* streaming thread */
  gdouble stream_max_gap;
  gboolean stream_post_messages;
  GstClockTime durations[2];    /* per slot: the frame's buffer duration */
  gint64 iterations;            /* reported by the solver, -1 = unknown */
  GstCaps *previous_frame_caps; /* GST_CF_FLOW_PREVIOUS_FRAME_CAPS */
  cf_pyramid_params pyramid_params;
  gboolean stream_use_previous_flow;
  cf_precision stream_precision;
  /* pyramids, flow and solver on the CPU or the GPU, for the current caps,
   * memory and pyramid (NULL: made by the next frame) */
  cf_flow_engine *engine;
  gint cur;                     /* pyramid slot of frame t */
  gboolean have_prev;           /* the other slot holds frame t-1 */
  gboolean have_flow;           /* the flow buffer holds the last result */
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

/* The element's category (cudaflowhs, ...), ours when it has none. */
#define ELEMENT_CAT(self) \
  (GST_CF_BASE_TRANSFORM_GET_CLASS (self)->debug_category != NULL ? \
      GST_CF_BASE_TRANSFORM_GET_CLASS (self)->debug_category : GST_CAT_DEFAULT)

static void gst_cf_flow_base_constructed (GObject * object);
static void gst_cf_flow_base_finalize (GObject * object);
static void gst_cf_flow_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cf_flow_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cf_flow_base_start (GstBaseTransform * trans);
static gboolean gst_cf_flow_base_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_cf_flow_base_src_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_cf_flow_base_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
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
  gobject_class->finalize = gst_cf_flow_base_finalize;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cf_flow_base_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cf_flow_base_sink_event);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_cf_flow_base_src_event);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cf_flow_base_transform);
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
  cf_pyramid_params pyramid;

  /* cf_pyramid_param_table's defaults; constructed takes the method's
   * levels */
  cf_pyramid_params_init (&pyramid);
  priv->levels = pyramid.max_levels;
  priv->scale_factor = pyramid.eta;
  priv->use_previous_flow = DEFAULT_USE_PREVIOUS_FLOW;
  priv->precision = DEFAULT_PRECISION;
  priv->output = DEFAULT_OUTPUT;
  priv->max_gap = DEFAULT_MAX_GAP;
  priv->post_messages = DEFAULT_POST_MESSAGES;
  priv->explicit_props = g_hash_table_new (g_str_hash, g_str_equal);
  priv->preset_props = g_ptr_array_new ();
  /* keys: the static names of table rows */
  priv->texts = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      g_free);
  priv->text_errors = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      g_free);
  priv->qos_earliest = GST_CLOCK_TIME_NONE;
  priv->pts[0] = priv->pts[1] = GST_CLOCK_TIME_NONE;
  priv->durations[0] = priv->durations[1] = GST_CLOCK_TIME_NONE;
  priv->pair_prev_pts = GST_CLOCK_TIME_NONE;
  priv->iterations = -1;
  priv->previous_frame_caps =
      gst_caps_new_empty_simple (GST_CF_FLOW_PREVIOUS_FRAME_CAPS);
}

static void
gst_cf_flow_base_finalize (GObject * object)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (GST_CF_FLOW_BASE (object));

  g_hash_table_unref (priv->explicit_props);
  g_ptr_array_unref (priv->preset_props);
  g_hash_table_unref (priv->texts);
  g_hash_table_unref (priv->text_errors);
  gst_caps_unref (priv->previous_frame_caps);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The TEXT rows' default texts, which the subclass's params already hold
 * (cf_params_init), as get_property reports them. */
static void
seed_default_texts (GstCfFlowBase * self)
{
  GstCfFlowBaseClass *klass = GST_CF_FLOW_BASE_GET_CLASS (self);
  const cf_param *p;

  if (klass->param_table == NULL)
    return;
  for (p = klass->param_table->params; p->name != NULL; p++)
    if (p->type == CF_PARAM_TEXT && p->def_text != NULL)
      g_hash_table_insert (GET_PRIV (self)->texts, (gpointer) p->name,
          g_strdup (p->def_text));
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
  seed_default_texts (GST_CF_FLOW_BASE (object));
  G_OBJECT_CLASS (parent_class)->constructed (object);
}

/* The properties of every estimator, `levels` with the method's default. */
static void
install_properties (GObjectClass * klass, gint default_levels)
{
  cf_param levels = *cf_params_find (&cf_pyramid_param_table, "levels");
  GstPadTemplate *templ;
  GstCaps *caps;

  levels.def = default_levels;
  g_object_class_install_property (klass, GST_CF_FLOW_BASE_PROP_LEVELS,
      gst_cf_param_spec_new (&levels, NULL));
  g_object_class_install_property (klass, GST_CF_FLOW_BASE_PROP_SCALE_FACTOR,
      gst_cf_param_spec_new (cf_params_find (&cf_pyramid_param_table,
              "scale-factor"), NULL));
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
  g_object_class_install_property (klass, GST_CF_FLOW_BASE_PROP_MAX_GAP,
      g_param_spec_double ("max-gap", "Max Gap",
          "Largest PTS step between the two frames of a pair, in frame "
          "durations (caps framerate, else the buffer duration): a larger "
          "step gives a GAP zero field and restarts from this frame, as "
          "does a DISCONT unless its step shows missing frames within this "
          "limit; 0 = no PTS check, every DISCONT restarts", 0.0,
          MAX_MAX_GAP, DEFAULT_MAX_GAP,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (klass,
      GST_CF_FLOW_BASE_PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post Messages",
          "Post an element message \"" GST_CF_FLOW_STATS_MESSAGE "\" per "
          "frame: PTS of both frames, mean and maximum motion (pixels), "
          "iterations run and solve time (on the GPU this downloads each "
          "field and waits for the solve)", DEFAULT_POST_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (klass, GST_CF_FLOW_BASE_PROP_OVERRIDDEN,
      g_param_spec_string ("overridden-properties", "Overridden Properties",
          "The current preset's properties that were set explicitly and so "
          "keep their own values (comma-separated; empty: the preset applies "
          "whole, or there is none)", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

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

static gboolean
set_common_property (GObject * object, guint prop_id, const GValue * value)
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
    case GST_CF_FLOW_BASE_PROP_MAX_GAP:
      priv->max_gap = g_value_get_double (value);
      break;
    case GST_CF_FLOW_BASE_PROP_POST_MESSAGES:
      priv->post_messages = g_value_get_boolean (value);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (object);
  return handled;
}

/* The current preset's names that were set explicitly (object lock). */
static gchar *
overridden_properties (GstCfFlowBasePrivate * priv)
{
  GString *out = g_string_new (NULL);
  guint i;

  for (i = 0; i < priv->preset_props->len; i++) {
    const gchar *name = g_ptr_array_index (priv->preset_props, i);
    if (!g_hash_table_contains (priv->explicit_props, name))
      continue;
    if (out->len > 0)
      g_string_append_c (out, ',');
    g_string_append (out, name);
  }
  return g_string_free (out, FALSE);
}

/* Presets are order-independent: a property set explicitly (whenever,
 * before or after `preset`) wins over any preset. Every property set from
 * outside is noted here; apply_preset skips the names noted and lists them
 * in `overridden-properties`. */
static void
note_property_set (GstCfFlowBase * self, GParamSpec * pspec)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  /* interned: pspec names live as long as the class */
  if (!priv->applying_preset && !g_str_equal (pspec->name, "preset"))
    g_hash_table_add (priv->explicit_props, (gpointer) g_intern_string
        (pspec->name));
  GST_OBJECT_UNLOCK (self);
}

/* Whether TEXT row @name is a per-level list whose scalar row was set
 * explicitly (object lock): that value holds on every level, so a preset
 * leaves the list empty. */
static gboolean
replaced_explicitly (GstCfFlowBase * self, const gchar * name)
{
  const cf_param *scalar = cf_params_find_replaced_by
      (GST_CF_FLOW_BASE_GET_CLASS (self)->param_table, name);

  return scalar != NULL && g_hash_table_contains
      (GET_PRIV (self)->explicit_props, scalar->name);
}

/* Write the settings of preset @index (1-based; 0 = none: no preset,
 * nothing overridden) through the properties, except those set
 * explicitly and the lists their values replace. */
static void
apply_preset (GstCfFlowBase * self, gint index)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GObject *object = G_OBJECT (self);
  const cf_preset *preset;
  guint i;

  GST_OBJECT_LOCK (self);
  g_ptr_array_set_size (priv->preset_props, 0);
  GST_OBJECT_UNLOCK (self);
  if (index <= 0)
    return;

  preset = &GST_CF_FLOW_BASE_GET_CLASS (self)->param_table->presets[index - 1];
  for (i = 0; i < CF_PRESET_MAX_SETTINGS && preset->settings[i].name; i++) {
    const cf_param_setting *setting = &preset->settings[i];
    const gchar *name = g_intern_string (setting->name);
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
        (object), name);
    GValue value = G_VALUE_INIT;
    gboolean keep;

    g_return_if_fail (pspec != NULL);
    gst_cf_param_setting_to_value (setting, pspec, &value);
    GST_OBJECT_LOCK (self);
    g_ptr_array_add (priv->preset_props, (gpointer) name);
    keep = g_hash_table_contains (priv->explicit_props, name) ||
        replaced_explicitly (self, name);
    priv->applying_preset = TRUE;
    GST_OBJECT_UNLOCK (self);
    if (keep)
      GST_CAT_INFO_OBJECT (ELEMENT_CAT (self), self,
          "preset leaves %s as set explicitly", name);
    else
      g_object_set_property (object, name, &value);
    GST_OBJECT_LOCK (self);
    priv->applying_preset = FALSE;
    GST_OBJECT_UNLOCK (self);
    g_value_unset (&value);
  }
}

static gboolean
get_common_property (GObject * object, guint prop_id, GValue * value)
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
    case GST_CF_FLOW_BASE_PROP_MAX_GAP:
      g_value_set_double (value, priv->max_gap);
      break;
    case GST_CF_FLOW_BASE_PROP_POST_MESSAGES:
      g_value_set_boolean (value, priv->post_messages);
      break;
    case GST_CF_FLOW_BASE_PROP_OVERRIDDEN:
      g_value_take_string (value, overridden_properties (priv));
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (object);
  return handled;
}

/* Row @n of a NULL-terminated row list, or NULL. */
static const cf_param *
nth_row (const cf_param * rows, guint n)
{
  guint i;

  for (i = 0; rows != NULL && rows[i].name != NULL; i++)
    if (i == n)
      return &rows[i];
  return NULL;
}

/* The table row behind @prop_id and the address of the struct its offset
 * counts from (the method's params, or the instance for the element's own
 * rows); NULL, with GObject's warning, when @prop_id is not a table
 * property. */
static const cf_param *
table_param (GstCfFlowBase * self, guint prop_id, GParamSpec * pspec,
    gpointer * base)
{
  GstCfFlowBaseClass *klass = GST_CF_FLOW_BASE_GET_CLASS (self);
  const cf_param *param = NULL;

  if (prop_id >= PROP_METHOD_PARAM && prop_id < PROP_PRESET &&
      klass->param_table != NULL) {
    param = nth_row (klass->param_table->params, prop_id - PROP_METHOD_PARAM);
    *base = (guint8 *) self + klass->params_offset;
  } else if (prop_id >= PROP_ELEMENT_PARAM &&
      prop_id < GST_CF_FLOW_BASE_PROP_LEVELS) {
    param = nth_row (klass->element_params, prop_id - PROP_ELEMENT_PARAM);
    *base = self;
  }
  if (param == NULL)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (self, prop_id, pspec);
  return param;
}

/* A TEXT row (object lock held): kept as set, blanks around it removed,
 * and parsed into @params; a text that does not parse is kept with its
 * error, reported when the next frame is processed (see
 * gst_cf_flow_base_dup_param_error). */
static void
set_text (GstCfFlowBase * self, const cf_param * param, gpointer params,
    const gchar * text)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  gchar *kept = text != NULL ? g_strstrip (g_strdup (text)) : NULL;
  cf_error err = { {0} };

  g_hash_table_insert (priv->texts, (gpointer) param->name, kept);
  g_hash_table_remove (priv->text_errors, param->name);
  if (param->parse (params, kept, &err) != CF_OK) {
    gchar *error = g_strdup_printf ("%s \"%s\": %s", param->name, text,
        err.message);
    GST_CAT_WARNING_OBJECT (ELEMENT_CAT (self), self, "%s", error);
    g_hash_table_insert (priv->text_errors, (gpointer) param->name, error);
  }
}

/* A value set explicitly on a row that `replaces` a per-level list counts
 * on every level, as its blurb says: empty the list (object lock held)
 * unless it is empty already. Returns the list's name to notify, or NULL.
 * Presets set their lists themselves. */
static const gchar *
clear_replaced_list (GstCfFlowBase * self, const cf_param * param,
    gpointer params)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  const cf_param *list = cf_params_replaced_list
      (GST_CF_FLOW_BASE_GET_CLASS (self)->param_table, param);

  if (list == NULL || g_hash_table_lookup (priv->texts, list->name) == NULL)
    return NULL;
  GST_CAT_INFO_OBJECT (ELEMENT_CAT (self), self, "%s set: %s cleared",
      param->name, list->name);
  set_text (self, list, params, NULL);
  return list->name;
}

static void
gst_cf_flow_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (object);
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  const cf_param *param;
  gpointer params = NULL;
  const gchar *cleared = NULL;

  note_property_set (self, pspec);
  if (set_common_property (object, prop_id, value))
    return;
  if (prop_id == PROP_PRESET) {
    GST_OBJECT_LOCK (self);
    priv->preset = g_value_get_enum (value);
    GST_OBJECT_UNLOCK (self);
    /* the settings go through this function again, unlocked */
    apply_preset (self, g_value_get_enum (value));
    return;
  }
  if ((param = table_param (self, prop_id, pspec, &params)) == NULL)
    return;
  GST_OBJECT_LOCK (self);
  if (param->type == CF_PARAM_TEXT)
    set_text (self, param, params, g_value_get_string (value));
  else if (!gst_cf_param_set_value (param, params, value))
    GST_CAT_WARNING_OBJECT (ELEMENT_CAT (self), self, "%s: the parameter "
        "table refuses a value its property accepted", param->name);
  else if (param->replaces != NULL && !priv->applying_preset)
    cleared = clear_replaced_list (self, param, params);
  GST_OBJECT_UNLOCK (self);
  if (cleared != NULL)
    g_object_notify (object, cleared);
}

static void
gst_cf_flow_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (object);
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  const cf_param *param;
  gpointer params = NULL;

  if (get_common_property (object, prop_id, value))
    return;
  param = prop_id == PROP_PRESET ? NULL : table_param (self, prop_id, pspec,
      &params);
  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_PRESET)
    g_value_set_enum (value, priv->preset);
  else if (param != NULL && param->type == CF_PARAM_TEXT)
    g_value_set_string (value, g_hash_table_lookup (priv->texts,
            param->name));
  else if (param != NULL)
    gst_cf_param_get_value (param, params, value);
  GST_OBJECT_UNLOCK (self);
}

/* One property per row of @rows but those that are not properties. */
static void
install_rows (GObjectClass * klass, const cf_param * rows, guint first_id)
{
  guint i;

  for (i = 0; rows != NULL && rows[i].name != NULL; i++)
    if (!(rows[i].flags & CF_PARAM_NO_PROPERTY))
      g_object_class_install_property (klass, first_id + i,
          gst_cf_param_spec_new (&rows[i], G_OBJECT_CLASS_NAME (klass)));
}

void
gst_cf_flow_base_class_install_params (GstCfFlowBaseClass * klass,
    const cf_param_table * table, gsize params_offset,
    const cf_param * element_params)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  gchar *preset_type, *blurb;

  klass->param_table = table;
  klass->params_offset = params_offset;
  klass->element_params = element_params;
  /* GObject does not inherit these: each class handles the ids it installs */
  gobject_class->set_property = gst_cf_flow_base_set_property;
  gobject_class->get_property = gst_cf_flow_base_get_property;

  install_properties (gobject_class, table->default_levels);
  install_rows (gobject_class, table->params, PROP_METHOD_PARAM);
  if (table->presets != NULL) {
    preset_type = g_strconcat (G_OBJECT_CLASS_NAME (klass), "Preset", NULL);
    blurb = g_strconcat (table->presets_blurb, "; properties set explicitly "
        "keep their values, before or after the preset (see "
        "overridden-properties), and a per-level list stays empty when "
        "the property it overrides (warps for warps-per-level) was set "
        "explicitly", NULL);
    g_object_class_install_property (gobject_class, PROP_PRESET,
        g_param_spec_enum ("preset", "Preset", blurb,
            gst_cf_preset_get_type (preset_type, table), 0,
            G_PARAM_READWRITE | G_PARAM_STATIC_NAME | G_PARAM_STATIC_NICK |
            GST_PARAM_MUTABLE_PLAYING));
    g_free (blurb);
    g_free (preset_type);
  }
  install_rows (gobject_class, element_params, PROP_ELEMENT_PARAM);
}

gchar *
gst_cf_flow_base_dup_param_error (GstCfFlowBase * self)
{
  GstCfFlowBaseClass *klass = GST_CF_FLOW_BASE_GET_CLASS (self);
  GHashTable *errors = GET_PRIV (self)->text_errors;
  const cf_param *rows[2] = {
    klass->param_table ? klass->param_table->params : NULL,
    klass->element_params
  };
  guint r, i;

  for (r = 0; r < G_N_ELEMENTS (rows); r++)
    for (i = 0; rows[r] != NULL && rows[r][i].name != NULL; i++)
      if (g_hash_table_contains (errors, rows[r][i].name))
        return g_strdup (g_hash_table_lookup (errors, rows[r][i].name));
  return NULL;
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

static void
reset_qos (GstCfFlowBase * self)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  priv->qos_earliest = GST_CLOCK_TIME_NONE;
  priv->qos_proportion = 1.0;
  priv->qos_processed = priv->qos_dropped = 0;
  GST_OBJECT_UNLOCK (self);
}

/* QoS starts afresh with every stream. */
static gboolean
gst_cf_flow_base_start (GstBaseTransform * trans)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (trans);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;
  reset_qos (self);
  return TRUE;
}

static gboolean
gst_cf_flow_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      reset_history (self);
      reset_qos (self);
      break;
    case GST_EVENT_SEGMENT:
      /* the PTS of two segments do not compare */
      reset_history (self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* QoS events are kept here and not given to GstBaseTransform, which would
 * drop a late frame before transform (): the frame's pyramid must still be
 * built so that the next field is between adjacent frames. The event goes
 * upstream as the parent would send it. The earliest time is the parent's
 * (gst_base_transform_update_qos): timestamp + diff. */
static gboolean
gst_cf_flow_base_src_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (trans);
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstClockTimeDiff diff;
  GstClockTime timestamp, earliest;
  gdouble proportion;

  if (GST_EVENT_TYPE (event) != GST_EVENT_QOS)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->src_event (trans, event);

  gst_event_parse_qos (event, NULL, &proportion, &diff, &timestamp);
  if (!GST_CLOCK_TIME_IS_VALID (timestamp))
    earliest = GST_CLOCK_TIME_NONE;
  else if (diff < 0 && (GstClockTime) (-diff) > timestamp)
    earliest = 0;
  else
    earliest = timestamp + diff;
  GST_OBJECT_LOCK (self);
  priv->qos_proportion = proportion;
  priv->qos_earliest = earliest;
  GST_OBJECT_UNLOCK (self);
  GST_CAT_LOG_OBJECT (ELEMENT_CAT (self), self, "QoS: proportion %.3f, "
      "earliest %" GST_TIME_FORMAT, proportion, GST_TIME_ARGS (earliest));
  return gst_pad_push_event (GST_BASE_TRANSFORM_SINK_PAD (trans), event);
}

/* The flow stream: frame t's PTS and duration stay; the interval the
 * field spans goes into a reference timestamp meta. */
static GstFlowReturn
gst_cf_flow_base_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (GST_CF_FLOW_BASE (trans));
  GstFlowReturn ret;

  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->transform (trans, inbuf,
      outbuf);
  if (ret == GST_FLOW_OK && GST_CLOCK_TIME_IS_VALID (priv->pair_prev_pts)
      && GST_BUFFER_PTS_IS_VALID (inbuf)) {
    GstClockTime pts = GST_BUFFER_PTS (inbuf), prev = priv->pair_prev_pts;

    gst_buffer_add_reference_timestamp_meta (outbuf,
        priv->previous_frame_caps, prev, pts > prev ? pts - prev : prev - pts);
  }
  return ret;
}

/* The engine's pyramids, flow and solver go, and the history with them
 * (with the CUDA backend the context is pushed). */
static void
free_engine (GstCfFlowBase * self)
{
  g_clear_pointer (&GET_PRIV (self)->engine, cf_flow_engine_free);
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

  free_engine (self);
  clear_pool (&GET_PRIV (self)->flow_pool_cuda);
  clear_pool (&GET_PRIV (self)->flow_pool_system);
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

/* This frame's settings, ours and the method's, copied in one go under
 * the object lock (the subclass hook only copies: see update_settings in
 * gstcfflowbase.h). TRUE when frames or the solver must be rebuilt: the
 * pyramid, the precision or a setting the method builds its solver for
 * changed. */
static gboolean
update_settings (GstCfFlowBase * self)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstCfFlowBaseClass *klass = GST_CF_FLOW_BASE_GET_CLASS (self);
  cf_pyramid_params params;
  gboolean same, rebuild_solver;

  cf_pyramid_params_init (&params);
  GST_OBJECT_LOCK (self);
  params.max_levels = priv->levels;
  params.eta = (float) priv->scale_factor;
  params.min_size = MIN_LEVEL_SIZE;
  priv->stream_use_previous_flow = priv->use_previous_flow;
  priv->stream_max_gap = priv->max_gap;
  priv->stream_post_messages = priv->post_messages;
  rebuild_solver = klass->update_settings != NULL &&
      klass->update_settings (self, &params);
  if (priv->stream_precision != priv->precision) {
    priv->stream_precision = priv->precision;
    rebuild_solver = TRUE;
  }
  GST_OBJECT_UNLOCK (self);

  same = params.max_levels == priv->pyramid_params.max_levels &&
      params.eta == priv->pyramid_params.eta &&
      params.presmooth_sigma == priv->pyramid_params.presmooth_sigma &&
      params.min_size == priv->pyramid_params.min_size;
  priv->pyramid_params = params;
  return !same || rebuild_solver;
}

/* The engine for frames like @in: the GPU's when they are in device
 * memory (the CUDA backend), else the CPU's. The one place that chooses;
 * made again whenever the caps, the memory or the pyramid change. */
static gboolean
make_engine (GstCfFlowBase * self, const GstCfPlanes * in)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  gboolean with_range = GST_CF_FLOW_BASE_GET_CLASS (self)->needs_frame_range;
  gint width = in->layout->width, height = in->layout->height;
  cf_status status;

  free_engine (self);
  if (in->on_device)
    status = cf_cuda_flow_engine_new (width, height, &priv->pyramid_params,
        with_range, gst_cf_base_transform_get_stream (GST_CF_BASE_TRANSFORM
            (self)), &priv->engine);
  else
    status = cf_flow_engine_new_cpu (width, height, &priv->pyramid_params,
        with_range, &priv->engine);
  if (status != CF_OK) {
    gchar *what = g_strdup_printf ("Could not allocate %s buffers for "
        "%dx%d frames at %d pyramid levels", in->on_device ? "GPU" : "host",
        width, height, priv->pyramid_params.max_levels);
    gst_cf_post_status_error (GST_ELEMENT (self), status, NULL, what);
    g_free (what);
    return FALSE;
  }
  GST_CAT_DEBUG_OBJECT (ELEMENT_CAT (self), self, "flow engine on the %s "
      "for %dx%d, %d levels", cf_flow_engine_device (priv->engine), width,
      height, priv->engine->n_levels);
  priv->cur = 0;
  return TRUE;
}

/* Luma of the input frame in 0..255 into the current slot's level 0. */
static cf_status
load_luma (GstCfFlowBase * self, const GstCfPlanes * in)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  const GstVideoInfo *info = &in->layout->info;

  if (GST_VIDEO_INFO_IS_RGB (info)) {
    gint ps = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
    gint r = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
    gint g = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
    gint b = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
    return cf_flow_engine_luma_from_rgb (priv->engine, priv->cur,
        in->data[0], in->stride[0], ps, r, g, b);
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
    return cf_flow_engine_luma_from_channel (priv->engine, priv->cur, &ch);
  }
}

/* For solve (): the method's solver on the pair, and the error that says
 * which method failed where. */
gboolean
gst_cf_flow_frame_solve (GstCfFlowFrame * frame, GstElement * element,
    const cf_flow_solver * solver, const gchar * method_name)
{
  cf_status status = cf_flow_engine_solve (frame->engine, solver,
      &frame->pair);
  gchar *what;

  if (status == CF_OK)
    return TRUE;
  what = g_strdup_printf ("%s on the %s failed for %dx%d frames",
      method_name, cf_flow_engine_device (frame->engine),
      frame->engine->width, frame->engine->height);
  gst_cf_post_status_error (element, status, NULL, what);
  g_free (what);
  return FALSE;
}

/* The frame duration the PTS step is measured in: the caps framerate,
 * else the previous frame's buffer duration; NONE when neither is known. */
static GstClockTime
frame_duration (GstCfFlowBase * self, gint prev)
{
  const GstVideoInfo *info =
      &gst_cf_base_transform_get_in_layout (GST_CF_BASE_TRANSFORM (self))->
      info;

  if (GST_VIDEO_INFO_FPS_N (info) > 0 && GST_VIDEO_INFO_FPS_D (info) > 0)
    return gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
  return GET_PRIV (self)->durations[prev];
}

/* Whether frame t-1 (slot @prev) and @inbuf make a pair: the PTS step is
 * at most max-gap frame durations. A DISCONT buffer ends the history
 * unless its PTS step shows missing frames (at least 1.5 frame durations,
 * as after a leaky queue or an upstream QoS drop) within max-gap: a
 * DISCONT with no frame missing is a change of content (a source switch)
 * that no PTS shows. */
static gboolean
pair_is_usable (GstCfFlowBase * self, GstBuffer * inbuf, gint prev)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstClockTime pts = GST_BUFFER_PTS (inbuf), prev_pts = priv->pts[prev];
  GstClockTime duration = frame_duration (self, prev), step;
  gboolean discont = GST_BUFFER_IS_DISCONT (inbuf);

  if (priv->stream_max_gap <= 0.0 || !GST_CLOCK_TIME_IS_VALID (pts) ||
      !GST_CLOCK_TIME_IS_VALID (prev_pts) ||
      !GST_CLOCK_TIME_IS_VALID (duration) || duration == 0) {
    if (discont)
      GST_CAT_DEBUG_OBJECT (ELEMENT_CAT (self), self, "DISCONT at %"
          GST_TIME_FORMAT ": no PTS step to judge it by, restarting",
          GST_TIME_ARGS (pts));
    return !discont;
  }
  /* reverse playback: PTS go down, the step is the distance */
  step = pts > prev_pts ? pts - prev_pts : prev_pts - pts;
  if ((gdouble) step > priv->stream_max_gap * (gdouble) duration) {
    GST_CAT_DEBUG_OBJECT (ELEMENT_CAT (self), self, "PTS step %"
        GST_TIME_FORMAT " from %" GST_TIME_FORMAT " is more than max-gap "
        "%.2f frames of %" GST_TIME_FORMAT ": restarting",
        GST_TIME_ARGS (step), GST_TIME_ARGS (prev_pts),
        priv->stream_max_gap, GST_TIME_ARGS (duration));
    return FALSE;
  }
  if (discont && (gdouble) step < 1.5 * (gdouble) duration) {
    GST_CAT_DEBUG_OBJECT (ELEMENT_CAT (self), self, "DISCONT at %"
        GST_TIME_FORMAT " with no frame missing: restarting",
        GST_TIME_ARGS (pts));
    return FALSE;
  }
  return TRUE;
}

/* QoS: the frame's running time is not after the earliest time the last
 * QoS event allows (GstBaseTransform's test, with our copy of its values). */
static gboolean
frame_is_late (GstCfFlowBase * self, GstBuffer * inbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime running, earliest;

  if (!gst_base_transform_is_qos_enabled (trans) ||
      trans->segment.format != GST_FORMAT_TIME)
    return FALSE;
  running = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (inbuf));
  GST_OBJECT_LOCK (self);
  earliest = GET_PRIV (self)->qos_earliest;
  GST_OBJECT_UNLOCK (self);
  return GST_CLOCK_TIME_IS_VALID (running) &&
      GST_CLOCK_TIME_IS_VALID (earliest) && running <= earliest;
}

/* The QoS message GstBaseTransform posts when it drops a late buffer. */
static void
post_qos_dropped (GstCfFlowBase * self, GstBuffer * inbuf)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime pts = GST_BUFFER_PTS (inbuf), running, earliest;
  guint64 processed, dropped;
  gdouble proportion;
  GstMessage *msg;

  running = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
      pts);
  GST_OBJECT_LOCK (self);
  earliest = priv->qos_earliest;
  proportion = priv->qos_proportion;
  dropped = ++priv->qos_dropped;
  processed = priv->qos_processed;
  GST_OBJECT_UNLOCK (self);
  msg = gst_message_new_qos (GST_OBJECT (self), FALSE, running,
      gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, pts),
      pts, GST_BUFFER_DURATION (inbuf));
  gst_message_set_qos_values (msg, GST_CLOCK_DIFF (running, earliest),
      proportion, 1000000);
  gst_message_set_qos_stats (msg, GST_FORMAT_BUFFERS, processed, dropped);
  gst_element_post_message (GST_ELEMENT (self), msg);
}

/* post-messages: one element message per frame, like videoanalyse's. */
static void
post_stats (GstCfFlowBase * self, GstBuffer * inbuf, gboolean solved,
    gdouble mean, gdouble max, GstClockTime solve_time)
{
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime pts = GST_BUFFER_PTS (inbuf);
  GstStructure *s;

  s = gst_structure_new (GST_CF_FLOW_STATS_MESSAGE,
      "timestamp", G_TYPE_UINT64, pts,
      "stream-time", G_TYPE_UINT64, gst_segment_to_stream_time
      (&trans->segment, GST_FORMAT_TIME, pts),
      "running-time", G_TYPE_UINT64, gst_segment_to_running_time
      (&trans->segment, GST_FORMAT_TIME, pts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (inbuf),
      "previous-timestamp", G_TYPE_UINT64, priv->pair_prev_pts,
      "valid", G_TYPE_BOOLEAN, solved,
      "mean-motion", G_TYPE_DOUBLE, mean,
      "max-motion", G_TYPE_DOUBLE, max,
      "iterations", G_TYPE_INT64, solved ? priv->iterations : (gint64) 0,
      "solve-time", G_TYPE_UINT64, solve_time, NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* The engine is chosen by make_engine: nothing here depends on where it
 * runs. */
static GstFlowReturn
gst_cf_flow_base_process (GstCfBaseTransform * base, GstBuffer * inbuf,
    const GstCfPlanes * in, GstBuffer * outbuf, const GstCfPlanes * out)
{
  GstCfFlowBase *self = GST_CF_FLOW_BASE (base);
  GstCfFlowBasePrivate *priv = GET_PRIV (self);
  GstCfFlowBaseClass *klass = GST_CF_FLOW_BASE_GET_CLASS (self);
  cf_status status;
  gboolean solved = FALSE, late;
  GstClockTime solve_time = 0;
  gdouble mean = 0.0, max = 0.0;
  gint64 start;
  gint prev;

  if (update_settings (self) || priv->engine == NULL ||
      !cf_flow_engine_on_device (priv->engine) != !in->on_device) {
    if (!make_engine (self, in))
      return GST_FLOW_ERROR;
  }
  prev = 1 - priv->cur;
  if (priv->have_prev && !pair_is_usable (self, inbuf, prev))
    reset_history (self);
  late = frame_is_late (self, inbuf);

  /* this frame's pyramid, kept for the next frame */
  status = load_luma (self, in);
  if (status == CF_OK)
    status = cf_flow_engine_build_pyramid (priv->engine, priv->cur);
  /* a late frame leaves with its pyramid built: wait for it, since the
   * base does not synchronise a dropped frame */
  if (status == CF_OK && late)
    status = cf_flow_engine_wait (priv->engine);
  if (status != CF_OK) {
    gst_cf_post_status_error (GST_ELEMENT (self), status, NULL,
        "Could not build the image pyramid");
    return GST_FLOW_ERROR;
  }

  if (late) {
    /* no solve and no output, but frame t-1 of the next pair */
    GST_CAT_LOG_OBJECT (ELEMENT_CAT (self), self, "frame %" GST_TIME_FORMAT
        " is late (QoS): pyramid kept, solve skipped, output dropped",
        GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)));
    post_qos_dropped (self, inbuf);
    priv->pts[priv->cur] = GST_BUFFER_PTS (inbuf);
    priv->durations[priv->cur] = GST_BUFFER_DURATION (inbuf);
    priv->have_prev = TRUE;
    priv->cur = prev;
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  }

  if (priv->have_prev) {
    GstCfFlowFrame frame;

    frame.engine = priv->engine;
    frame.pair.prev = prev;
    frame.pair.cur = priv->cur;
    frame.pair.use_initial = priv->stream_use_previous_flow &&
        priv->have_flow;
    /* post-messages reports exact counts, even at the price of a wait */
    frame.pair.want_iterations = priv->stream_post_messages;
    frame.pair.iterations = -1;
    frame.precision = priv->stream_precision;
    cf_flow_engine_pair_range (priv->engine, &frame.range_min,
        &frame.range_max);
    start = g_get_monotonic_time ();
    if (!klass->solve (self, &frame))
      return GST_FLOW_ERROR;
    solved = TRUE;
    priv->iterations = frame.pair.iterations;
    if (priv->stream_post_messages) {
      /* the solve's wall time: wait for the GPU */
      status = cf_flow_engine_motion (priv->engine, &mean, &max);
      solve_time = (g_get_monotonic_time () - start) * GST_USECOND;
      if (status != CF_OK) {
        gst_cf_post_status_error (GST_ELEMENT (self), status, NULL,
            "Could not read the flow field back for post-messages");
        return GST_FLOW_ERROR;
      }
    }
  }

  /* a zero field stands in for the flow that has no previous frame */
  if (!solved)
    status = cf_flow_engine_zero_flow (priv->engine);
  if (status == CF_OK)
    status = cf_flow_engine_write_flow (priv->engine, (float *) out->data[0],
        out->stride[0]);
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
  if (solved)
    GST_CAT_LOG_OBJECT (ELEMENT_CAT (self), self, "frame %" GST_TIME_FORMAT
        ": flow from %" GST_TIME_FORMAT ", %" G_GINT64_FORMAT " iterations",
        GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)),
        GST_TIME_ARGS (priv->pair_prev_pts), priv->iterations);
  else
    GST_CAT_LOG_OBJECT (ELEMENT_CAT (self), self, "frame %" GST_TIME_FORMAT
        ": no previous frame, GAP zero field",
        GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)));
  if (priv->stream_post_messages)
    post_stats (self, inbuf, solved, mean, max, solve_time);
  GST_OBJECT_LOCK (self);
  priv->qos_processed++;
  GST_OBJECT_UNLOCK (self);
  priv->pts[priv->cur] = GST_BUFFER_PTS (inbuf);
  priv->durations[priv->cur] = GST_BUFFER_DURATION (inbuf);
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
