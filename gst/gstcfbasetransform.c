/* gst-cudaflow — base class of every element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstcfbasetransform
 * @title: GstCfBaseTransform
 * @short_description: CUDA context, backend and memory handling shared by
 * the gst-cudaflow elements
 *
 * Owns what every element needs around its computation:
 *
 * - the GstCudaContext, shared with nvcodec elements through the GstContext
 *   mechanism (`cuda-device-id`, -1 = whatever the pipeline already uses).
 *   An element that finds none (neighbours, application) takes the
 *   process's one context for its device instead of making a new one, also
 *   when a neighbour such as nvh264dec asks it first: N pipelines on one
 *   GPU then share one context, whose kernels run concurrently, where N
 *   contexts would be time-sliced (three times the throughput at 8 streams,
 *   docs/scaling.md);
 * - `backend=auto|cuda|cpu`: the GPU when one is usable, otherwise the CPU
 *   reference implementation, said once in the debug log;
 * - a CUDA stream per element; every CUDA call runs with the context pushed,
 *   and the stream is synchronised once, before a buffer goes downstream
 *   (GStreamer 1.22 has no stream-ordered hand-off);
 * - buffers in CUDA or system memory on either pad. CUDA memory of our
 *   context is used in place and never touches the host; system memory is
 *   staged through device buffers owned by the element; CUDA output comes
 *   from a #GstCfBufferPool, which can hold layouts GstCudaBufferPool cannot;
 * - buffers without data (size 0, e.g. `fakesrc sizetype=empty`), which
 *   hold no frame or field, never reach a subclass: one flagged GAP
 *   becomes a GAP event with its timestamp and duration (downstream
 *   learns that the interval has no data, as from a live source's gap);
 *   any other is dropped, with one warning message per stream.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfbasetransform.h"

#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcfbufferpool.h"
#include "cuda/cuda-util.h"

GST_DEBUG_CATEGORY_STATIC (gst_cf_base_transform_debug);
#define GST_CAT_DEFAULT gst_cf_base_transform_debug

#define DEFAULT_DEVICE_ID -1
#define DEFAULT_BACKEND GST_CF_BACKEND_AUTO

enum
{
  PROP_0,
  PROP_DEVICE_ID,
  PROP_BACKEND
};

/* Device staging for one pad's planes: one pitched allocation, planes
 * stacked by rows. */
typedef struct
{
  guint8 *data;
  gsize pitch;
  gsize rows;
} GstCfStaging;

typedef struct
{
  /* properties, under the object lock */
  gint device_id;
  GstCfBackend backend;

  /* context_lock guards context and active_backend against set_context
   * and context queries from other threads; recursive, since
   * gst_cuda_ensure_element_context () may call set_context back on the
   * thread that holds it */
  GRecMutex context_lock;
  GstCfBackend active_backend;
  GstCudaContext *context;
  /* acquire_context () is asking around: a neighbour of ours asking back
   * must not start another round (two of our elements side by side would
   * ask each other forever) */
  gboolean acquiring;

  /* streaming state */
  cudaStream_t stream;
  GstCfLayout in_layout;
  GstCfLayout out_layout;
  GstCfStaging in_staging;
  GstCfStaging out_staging;
  GstCfStaging side_staging;
  gboolean caps_equal;
  gboolean warned_foreign_memory;
  gboolean warned_empty_buffer;
} GstCfBaseTransformPrivate;


#define gst_cf_base_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCfBaseTransform, gst_cf_base_transform,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstCfBaseTransform);
    GST_DEBUG_CATEGORY_INIT (gst_cf_base_transform_debug, "cfbasetransform",
        0, "gst-cudaflow base transform"));

#define GET_PRIV(self) \
  ((GstCfBaseTransformPrivate *) gst_cf_base_transform_get_instance_private (self))

/* The element's category when it has one, else ours. */
#define ELEMENT_CAT(self) \
  (GST_CF_BASE_TRANSFORM_GET_CLASS (self)->debug_category != NULL ? \
      GST_CF_BASE_TRANSFORM_GET_CLASS (self)->debug_category : GST_CAT_DEFAULT)

static void gst_cf_base_transform_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cf_base_transform_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_cf_base_transform_set_context (GstElement * element,
    GstContext * context);
static gboolean gst_cf_base_transform_start (GstBaseTransform * trans);
static gboolean gst_cf_base_transform_stop (GstBaseTransform * trans);
static gboolean gst_cf_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstCaps *gst_cf_base_transform_transform_caps (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstCaps *gst_cf_base_transform_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
static gboolean gst_cf_base_transform_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cf_base_transform_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_cf_base_transform_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
static void gst_cf_base_transform_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstFlowReturn gst_cf_base_transform_generate_output (GstBaseTransform
    * trans, GstBuffer ** outbuf);
static GstFlowReturn gst_cf_base_transform_prepare_output_buffer
    (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf);
static GstFlowReturn gst_cf_base_transform_transform (GstBaseTransform *
    trans, GstBuffer * inbuf, GstBuffer * outbuf);

static void gst_cf_base_transform_dispose (GObject * object);
static void gst_cf_base_transform_finalize (GObject * object);
static void release_device_state (GstCfBaseTransform * self);
static void release_context_state (GstCfBaseTransform * self);

static void
gst_cf_base_transform_class_init (GstCfBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cf_base_transform_set_property;
  gobject_class->get_property = gst_cf_base_transform_get_property;
  gobject_class->dispose = gst_cf_base_transform_dispose;
  gobject_class->finalize = gst_cf_base_transform_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA Device ID",
          "CUDA device to run on (-1 = the device of the CUDA context the "
          "pipeline shares, else device 0)", -1, G_MAXINT, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where to compute: auto = the GPU when a CUDA device is usable, "
          "else the CPU reference implementation; cuda = the GPU only; "
          "cpu = the CPU reference (system memory only)", GST_TYPE_CF_BACKEND,
          DEFAULT_BACKEND, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cf_base_transform_set_context);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cf_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cf_base_transform_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cf_base_transform_query);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cf_base_transform_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cf_base_transform_fixate_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cf_base_transform_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cf_base_transform_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cf_base_transform_decide_allocation);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cf_base_transform_before_transform);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cf_base_transform_generate_output);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cf_base_transform_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cf_base_transform_transform);

  gst_type_mark_as_plugin_api (GST_TYPE_CF_BASE_TRANSFORM, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CF_BACKEND, 0);
}

static void
gst_cf_base_transform_init (GstCfBaseTransform * self)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);

  priv->device_id = DEFAULT_DEVICE_ID;
  priv->backend = DEFAULT_BACKEND;
  priv->active_backend = GST_CF_BACKEND_AUTO;
  g_rec_mutex_init (&priv->context_lock);
}

/* A context adopted through set_context before start () (or after stop ())
 * is ours to release. */
static void
gst_cf_base_transform_dispose (GObject * object)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (GST_CF_BASE_TRANSFORM (object));

  g_rec_mutex_lock (&priv->context_lock);
  gst_clear_object (&priv->context);
  g_rec_mutex_unlock (&priv->context_lock);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_cf_base_transform_finalize (GObject * object)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (GST_CF_BASE_TRANSFORM (object));

  g_rec_mutex_clear (&priv->context_lock);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cf_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (object);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    case PROP_BACKEND:
      priv->backend = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cf_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (object);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, priv->backend);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

GstCfBackend
gst_cf_base_transform_get_active_backend (GstCfBaseTransform * self)
{
  return GET_PRIV (self)->active_backend;
}

cudaStream_t
gst_cf_base_transform_get_stream (GstCfBaseTransform * self)
{
  return GET_PRIV (self)->stream;
}

GstCudaContext *
gst_cf_base_transform_get_context (GstCfBaseTransform * self)
{
  return GET_PRIV (self)->context;
}

const GstCfLayout *
gst_cf_base_transform_get_in_layout (GstCfBaseTransform * self)
{
  return &GET_PRIV (self)->in_layout;
}

gboolean
gst_cf_base_transform_caps_are_equal (GstCfBaseTransform * self)
{
  return GET_PRIV (self)->caps_equal;
}

/* --- context --------------------------------------------------------- */

static gboolean acquire_context (GstCfBaseTransform * self, gint device_id,
    const gchar ** why);

static void
gst_cf_base_transform_set_context (GstElement * element, GstContext * context)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (element);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);

  /* adopts the pipeline's context only while we hold none */
  g_rec_mutex_lock (&priv->context_lock);
  if (priv->active_backend != GST_CF_BACKEND_CPU)
    gst_cuda_handle_set_context (element, context, device_id, &priv->context);
  g_rec_mutex_unlock (&priv->context_lock);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* backend is not cpu */
static gboolean
wants_gpu (GstCfBaseTransform * self)
{
  GstCfBackend backend;

  GST_OBJECT_LOCK (self);
  backend = GET_PRIV (self)->backend;
  GST_OBJECT_UNLOCK (self);
  return backend != GST_CF_BACKEND_CPU;
}

static gboolean
gst_cf_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    gboolean answered = FALSE;

    g_rec_mutex_lock (&priv->context_lock);
    /* a neighbour opening before our start (nvh264dec does, in
     * NULL->READY) gets the process's context instead of making its own */
    if (priv->context == NULL && priv->active_backend == GST_CF_BACKEND_AUTO
        && wants_gpu (self) && gst_cuda_load_library ()) {
      const gchar *why = NULL;
      gint device_id;

      GST_OBJECT_LOCK (self);
      device_id = priv->device_id;
      GST_OBJECT_UNLOCK (self);
      if (!acquire_context (self, device_id, &why))
        GST_DEBUG_OBJECT (self, "no CUDA context to answer with: %s", why);
    }
    if (priv->context != NULL)
      answered = gst_cuda_handle_context_query (GST_ELEMENT (self), query,
          priv->context);
    g_rec_mutex_unlock (&priv->context_lock);
    if (answered)
      return TRUE;
  }

  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* --- start / stop ---------------------------------------------------- */

/* The process's CUDA context for @device_id, made on first use and gone
 * with its last user: a GstCudaContext of its own per pipeline would cost
 * a CUDA context each, and kernels of different contexts never overlap. */
static GMutex shared_contexts_lock;
static GWeakRef shared_contexts[64];

static GstCudaContext *
shared_context_get (guint device_id)
{
  GstCudaContext *context;

  if (device_id >= G_N_ELEMENTS (shared_contexts))
    return gst_cuda_context_new (device_id);
  g_mutex_lock (&shared_contexts_lock);
  context = g_weak_ref_get (&shared_contexts[device_id]);
  if (context == NULL) {
    context = gst_cuda_context_new (device_id);
    if (context != NULL)
      g_weak_ref_set (&shared_contexts[device_id], context);
  }
  g_mutex_unlock (&shared_contexts_lock);
  return context;
}

/* Asks the peer of @pad for its CUDA context; set_context keeps it if its
 * device suits cuda-device-id. */
static void
query_peer_context (GstCfBaseTransform * self, GstPad * pad)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);

  if (gst_pad_peer_query (pad, query)) {
    GstContext *context = NULL;

    gst_query_parse_context (query, &context);
    if (context != NULL)
      gst_element_set_context (GST_ELEMENT (self), context);
  }
  gst_query_unref (query);
}

/* A context for the GPU path, in gst_cuda_ensure_element_context ()'s
 * order (ours, the neighbours', the application's through need-context),
 * except that the last resort is the process's context for the device,
 * announced with have-context, rather than a new one. context_lock held;
 * FALSE with a reason. */
static gboolean
acquire_context (GstCfBaseTransform * self, gint device_id,
    const gchar ** why)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstElement *element = GST_ELEMENT (self);
  GstCudaContext *shared;
  int devices = 0;

  if (priv->acquiring) {
    *why = "already asking the neighbours";
    return FALSE;
  }
  priv->acquiring = TRUE;
  if (priv->context == NULL)
    query_peer_context (self, GST_BASE_TRANSFORM_SRC_PAD (self));
  if (priv->context == NULL)
    query_peer_context (self, GST_BASE_TRANSFORM_SINK_PAD (self));
  if (priv->context == NULL)
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (self),
            GST_CUDA_CONTEXT_TYPE));
  priv->acquiring = FALSE;
  if (priv->context != NULL)
    return TRUE;

  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError ();
    *why = "no CUDA device was found";
    return FALSE;
  }
  if (device_id >= devices) {
    *why = devices == 1 ? "cuda-device-id names a device beyond the only "
        "one (device 0)" : "cuda-device-id names a device beyond the last";
    return FALSE;
  }
  shared = shared_context_get (device_id < 0 ? 0 : (guint) device_id);
  if (shared == NULL) {
    *why = "no CUDA device could be opened";
    return FALSE;
  }
  priv->context = shared;
  gst_element_post_message (element, gst_message_new_have_context
      (GST_OBJECT (self), gst_context_new_cuda_context (shared)));
  return TRUE;
}

/* The GPU path, or FALSE with a reason: library, device or stream. */
static gboolean
open_device (GstCfBaseTransform * self, gint device_id, const gchar ** why)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  cudaError_t err;

  if (!gst_cuda_load_library ()) {
    *why = "the CUDA driver library (libcuda.so.1) could not be loaded";
    return FALSE;
  }
  if (!acquire_context (self, device_id, why))
    return FALSE;
  if (!gst_cuda_context_push (priv->context)) {
    *why = "the CUDA context could not be made current";
    gst_clear_object (&priv->context);
    return FALSE;
  }
  err = cudaStreamCreateWithFlags (&priv->stream, cudaStreamNonBlocking);
  gst_cuda_context_pop (NULL);
  if (err != cudaSuccess) {
    *why = cf_cuda_check (err) == CF_ERROR_NO_MEMORY ?
        "its memory is exhausted (a CUDA stream could not be created)" :
        "a CUDA stream could not be created";
    priv->stream = NULL;
    gst_clear_object (&priv->context);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cf_base_transform_start (GstBaseTransform * trans)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstCfBackend backend;
  const gchar *why = NULL;
  gint device_id;

  GST_OBJECT_LOCK (self);
  backend = priv->backend;
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);

  memset (&priv->in_layout, 0, sizeof (priv->in_layout));
  memset (&priv->out_layout, 0, sizeof (priv->out_layout));
  priv->warned_foreign_memory = FALSE;
  priv->warned_empty_buffer = FALSE;

  g_rec_mutex_lock (&priv->context_lock);
  if (backend == GST_CF_BACKEND_CPU) {
    priv->active_backend = GST_CF_BACKEND_CPU;
    gst_clear_object (&priv->context);
    g_rec_mutex_unlock (&priv->context_lock);
    GST_CAT_INFO_OBJECT (ELEMENT_CAT (self), self,
        "running on the CPU backend (backend=cpu)");
    return TRUE;
  }

  /* a device that does not exist is a mistake to report, not a reason to
   * fall back to the CPU (a machine without any device still falls back) */
  {
    int devices = 0;

    if (device_id >= 0 && cudaGetDeviceCount (&devices) == cudaSuccess
        && devices > 0 && device_id >= devices) {
      g_rec_mutex_unlock (&priv->context_lock);
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("cuda-device-id=%d names no CUDA device: this machine has %d "
              "(0 to %d). Use -1 for the pipeline's device.", device_id,
              devices, devices - 1), (NULL));
      return FALSE;
    }
    cudaGetLastError ();
  }

  if (open_device (self, device_id, &why)) {
    guint id = 0;
    g_object_get (priv->context, "cuda-device-id", &id, NULL);
    priv->active_backend = GST_CF_BACKEND_CUDA;
    g_rec_mutex_unlock (&priv->context_lock);
    GST_CAT_INFO_OBJECT (ELEMENT_CAT (self), self,
        "running on the CUDA backend, device %u", id);
    return TRUE;
  }

  if (backend == GST_CF_BACKEND_CUDA) {
    g_rec_mutex_unlock (&priv->context_lock);
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device: %s. Set backend=cpu (or auto) to run on "
            "the CPU.", why), ("cuda-device-id=%d; last CUDA error: %s",
            device_id, cf_cuda_last_error_name ()));
    return FALSE;
  }

  priv->active_backend = GST_CF_BACKEND_CPU;
  g_rec_mutex_unlock (&priv->context_lock);
  GST_CAT_INFO_OBJECT (ELEMENT_CAT (self), self,
      "running on the CPU backend: %s", why);
  return TRUE;
}

static gboolean
gst_cf_base_transform_stop (GstBaseTransform * trans)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);

  g_rec_mutex_lock (&priv->context_lock);
  release_context_state (self);
  gst_clear_object (&priv->context);
  priv->active_backend = GST_CF_BACKEND_AUTO;
  g_rec_mutex_unlock (&priv->context_lock);
  return TRUE;
}

/* --- caps ------------------------------------------------------------ */

gboolean
gst_cf_layout_from_caps (GstCfLayout * layout, const GstCaps * caps)
{
  GstStructure *s;
  gint width, height;

  memset (layout, 0, sizeof (*layout));
  if (caps == NULL || gst_caps_get_size (caps) == 0)
    return FALSE;
  s = gst_caps_get_structure (caps, 0);

  if (gst_structure_has_name (s, "video/x-raw")) {
    guint p;

    if (!gst_video_info_from_caps (&layout->info, caps))
      return FALSE;
    layout->is_video = TRUE;
    layout->width = GST_VIDEO_INFO_WIDTH (&layout->info);
    layout->height = GST_VIDEO_INFO_HEIGHT (&layout->info);
    layout->n_planes = GST_VIDEO_INFO_N_PLANES (&layout->info);
    for (p = 0; p < layout->n_planes; p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS];
      gst_video_format_info_component (layout->info.finfo, p, comp);
      layout->row_bytes[p] = GST_VIDEO_INFO_COMP_WIDTH (&layout->info,
          comp[0]) * GST_VIDEO_INFO_COMP_PSTRIDE (&layout->info, comp[0]);
      layout->rows[p] = GST_VIDEO_INFO_COMP_HEIGHT (&layout->info, comp[0]);
    }
    return TRUE;
  }

  if (gst_structure_has_name (s, "video/x-optical-flow")) {
    const gchar *format = gst_structure_get_string (s, "format");
    if (g_strcmp0 (format, "UV_F32LE") != 0 ||
        !gst_structure_get_int (s, "width", &width) ||
        !gst_structure_get_int (s, "height", &height) || width <= 0
        || height <= 0)
      return FALSE;
    gst_video_info_init (&layout->info);
    /* size and rate only; the format stays UNKNOWN */
    gst_video_info_from_caps (&layout->info, caps);
    layout->is_video = FALSE;
    layout->width = width;
    layout->height = height;
    layout->n_planes = 1;
    layout->row_bytes[0] = (guint) width * 2 * sizeof (float);
    layout->rows[0] = (guint) height;
    return TRUE;
  }
  return FALSE;
}

static GstCaps *
strip_features (GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++)
    out = gst_caps_merge_structure (out,
        gst_structure_copy (gst_caps_get_structure (caps, i)));
  return out;
}

static GstCaps *
gst_cf_base_transform_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);
  GstCfBaseTransformClass *klass = GST_CF_BASE_TRANSFORM_GET_CLASS (self);
  GstCaps *media, *plain, *result;

  plain = strip_features (caps);
  media = klass->transform_media_caps (self, direction, plain);
  gst_caps_unref (plain);

  if (GET_PRIV (self)->active_backend == GST_CF_BACKEND_CPU) {
    result = gst_cf_caps_both_memories (media, FALSE);
    gst_caps_unref (media);
    media = result;
    result = gst_cf_caps_system_only (media);
  } else {
    /* keep the memory the other pad has first: CUDA-in prefers CUDA-out
     * (fixate_caps insists) and system-in stays system-out */
    result = gst_cf_caps_both_memories (media, gst_cf_caps_is_cuda (caps));
  }
  gst_caps_unref (media);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

/* Input in CUDA memory: output in CUDA memory whenever downstream takes it,
 * whatever order it lists memories in (cudadownload lists system memory
 * first when its own downstream wants system memory), so that a frame
 * stays on the GPU up to the element that needs it on the host. */
static GstCaps *
gst_cf_base_transform_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  if (direction == GST_PAD_SINK && gst_cf_caps_is_cuda (caps)) {
    GstCaps *cuda = gst_cf_caps_cuda_only (othercaps);

    if (gst_caps_is_empty (cuda)) {
      gst_caps_unref (cuda);
    } else {
      gst_caps_unref (othercaps);
      othercaps = cuda;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
}

static void
staging_free (GstCfStaging * staging)
{
  if (staging->data != NULL)
    cf_cuda_check (cudaFree (staging->data));
  memset (staging, 0, sizeof (*staging));
}

/* Device resources tied to the caps: ours and the subclass's. Context
 * pushed by the caller. */
static void
release_device_state (GstCfBaseTransform * self)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstCfBaseTransformClass *klass = GST_CF_BASE_TRANSFORM_GET_CLASS (self);

  staging_free (&priv->in_staging);
  staging_free (&priv->out_staging);
  staging_free (&priv->side_staging);
  if (klass->free_device_resources)
    klass->free_device_resources (self);
}

/* Everything made in the current context: plans, staging and the stream.
 * Freed even when the context cannot be made current (the host side of
 * every plan is released; the device frees then fail and are logged),
 * so stop () and a context switch never leak. */
static void
release_context_state (GstCfBaseTransform * self)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  gboolean pushed = FALSE;

  if (priv->context != NULL) {
    pushed = gst_cuda_context_push (priv->context);
    if (!pushed)
      GST_WARNING_OBJECT (self, "the CUDA context could not be made "
          "current: freeing its resources without it");
  }
  release_device_state (self);
  if (priv->stream != NULL) {
    cf_cuda_check (cudaStreamDestroy (priv->stream));
    priv->stream = NULL;
  }
  if (pushed)
    gst_cuda_context_pop (NULL);
}

static gboolean
gst_cf_base_transform_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstCfBaseTransformClass *klass = GST_CF_BASE_TRANSFORM_GET_CLASS (self);

  if (!gst_cf_layout_from_caps (&priv->in_layout, incaps)) {
    GST_ERROR_OBJECT (self, "cannot parse input caps %" GST_PTR_FORMAT,
        incaps);
    return FALSE;
  }
  if (!gst_cf_layout_from_caps (&priv->out_layout, outcaps)) {
    GST_ERROR_OBJECT (self, "cannot parse output caps %" GST_PTR_FORMAT,
        outcaps);
    return FALSE;
  }

  priv->caps_equal = gst_caps_is_equal (incaps, outcaps);

  if (priv->context != NULL) {
    if (!gst_cuda_context_push (priv->context)) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not make the CUDA context current."), (NULL));
      return FALSE;
    }
    release_device_state (self);
    gst_cuda_context_pop (NULL);
  } else if (klass->free_device_resources) {
    klass->free_device_resources (self);
  }

  return klass->set_info (self, &priv->in_layout, &priv->out_layout);
}

/* --- allocation ------------------------------------------------------ */

static gboolean
gst_cf_base_transform_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  /* passthrough: the parent forwarded the query downstream */
  if (decide_query == NULL)
    return TRUE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

static gboolean
gst_cf_base_transform_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstCfLayout *layout = &priv->out_layout;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstCaps *outcaps;
  guint size = 0, min = 0, max = 0, p;
  gboolean update = FALSE;

  gst_query_parse_allocation (query, &outcaps, NULL);
  if (outcaps == NULL)
    return FALSE;

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    update = TRUE;
  }

  if (gst_cf_caps_is_cuda (outcaps)) {
    if (priv->context == NULL) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("CUDA memory output needs the CUDA backend."), (NULL));
      gst_clear_object (&pool);
      return FALSE;
    }
    /* always ours: it is the one pool that can hold every layout we emit */
    gst_clear_object (&pool);
    pool = gst_cf_buffer_pool_new (priv->context);
    size = 0;
  } else {
    guint needed = 0;

    if (layout->is_video) {
      needed = GST_VIDEO_INFO_SIZE (&layout->info);
    } else {
      for (p = 0; p < layout->n_planes; p++)
        needed += layout->row_bytes[p] * layout->rows[p];
    }
    /* a downstream CUDA pool for system caps would only add copies */
    if (pool != NULL && (GST_IS_CF_BUFFER_POOL (pool) ||
            (layout->is_video && !gst_buffer_pool_has_option (pool,
                    GST_BUFFER_POOL_OPTION_VIDEO_META))))
      gst_clear_object (&pool);
    if (pool == NULL)
      pool = layout->is_video ? gst_video_buffer_pool_new () :
          gst_buffer_pool_new ();
    size = MAX (size, needed);
  }

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, outcaps, size, min, max);
  if (layout->is_video)
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    /* our CUDA pool's configuration allocates one buffer to learn its
     * pitch: what fails there is GPU memory */
    if (GST_IS_CF_BUFFER_POOL (pool))
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Could not allocate GPU memory for %dx%d output buffers. If the "
              "GPU is out of memory, use smaller frames, fewer streams on "
              "this GPU, or backend=cpu.", layout->width, layout->height),
          ("output caps %" GST_PTR_FORMAT, outcaps));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("Could not configure an output buffer pool for %" GST_PTR_FORMAT
              ".", outcaps), (NULL));
    gst_object_unref (pool);
    return FALSE;
  }
  /* the CUDA pool rewrites the size to the pitched one */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);

  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

/* --- per buffer ------------------------------------------------------ */

/* CUDA memory of another context than ours: switch to that context (as
 * upstream's CUDA filters do) when cuda-device-id allows its device, so the
 * frames stay on the device instead of a round trip through the host.
 * Everything made in the old context goes; set_info () runs again (a flow
 * estimator starts a new pair) and the output pool is decided again before
 * this buffer is processed. */
static void
adopt_buffer_context (GstCfBaseTransform * self, GstBuffer * buffer)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstCfBaseTransformClass *klass = GST_CF_BASE_TRANSFORM_GET_CLASS (self);
  GstCudaContext *other;
  cudaStream_t stream = NULL;
  guint other_id = 0;
  gint wanted_id;
  gboolean ok = TRUE;

  if (priv->active_backend != GST_CF_BACKEND_CUDA ||
      gst_buffer_n_memory (buffer) != 1 ||
      !gst_is_cuda_memory (gst_buffer_peek_memory (buffer, 0)))
    return;
  other = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buffer, 0))->context;
  if (other == priv->context)
    return;

  GST_OBJECT_LOCK (self);
  wanted_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  g_object_get (other, "cuda-device-id", &other_id, NULL);
  if (wanted_id >= 0 && other_id != (guint) wanted_id)
    return;                     /* buffer_is_our_cuda_memory () warns */

  if (!gst_cuda_context_push (other))
    return;
  if (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking) !=
      cudaSuccess) {
    cf_cuda_check (cudaGetLastError ());
    ok = FALSE;
  }
  gst_cuda_context_pop (NULL);
  if (!ok)
    return;

  GST_CAT_INFO_OBJECT (ELEMENT_CAT (self), self, "input is CUDA memory of "
      "another context (device %u): switching to it from %" GST_PTR_FORMAT,
      other_id, priv->context);
  g_rec_mutex_lock (&priv->context_lock);
  release_context_state (self);
  gst_object_replace ((GstObject **) & priv->context, GST_OBJECT (other));
  priv->stream = stream;
  g_rec_mutex_unlock (&priv->context_lock);

  if (!klass->set_info (self, &priv->in_layout, &priv->out_layout))
    GST_WARNING_OBJECT (self, "set_info failed after the context switch");
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cf_base_transform_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstClockTime stream_time;

  adopt_buffer_context (GST_CF_BASE_TRANSFORM (trans), buffer);

  if (trans->segment.format != GST_FORMAT_TIME)
    return;
  stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_TIMESTAMP (buffer));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

/* A buffer without data holds no frame: a GAP-flagged one becomes a GAP
 * event for its interval, any other is dropped (warned once per stream).
 * Either way no output buffer is made and process () never sees it. */
static GstFlowReturn
gst_cf_base_transform_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstBuffer *inbuf = trans->queued_buf;

  if (inbuf == NULL || gst_buffer_get_size (inbuf) > 0)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);

  trans->queued_buf = NULL;
  *outbuf = NULL;
  if (GST_BUFFER_FLAG_IS_SET (inbuf, GST_BUFFER_FLAG_GAP)) {
    if (GST_BUFFER_PTS_IS_VALID (inbuf)) {
      GST_LOG_OBJECT (self, "empty GAP buffer at %" GST_TIME_FORMAT
          ": GAP event", GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)));
      if (!gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (trans),
              gst_event_new_gap (GST_BUFFER_PTS (inbuf),
                  GST_BUFFER_DURATION (inbuf))))
        GST_DEBUG_OBJECT (self, "downstream did not take the GAP event");
    } else {
      GST_LOG_OBJECT (self, "empty GAP buffer without a timestamp: dropped");
    }
  } else if (!priv->warned_empty_buffer) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Dropping buffers without data: they hold no frame (flag them GAP "
            "to mark a gap in the stream)."),
        ("first at %" GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS
                (inbuf))));
    priv->warned_empty_buffer = TRUE;
  } else {
    GST_LOG_OBJECT (self, "empty buffer dropped");
  }
  gst_buffer_unref (inbuf);
  return GST_FLOW_OK;
}

/* GstBaseTransform 1.22 returns the error of a pool that cannot allocate
 * without posting anything, and posts only "failed to activate bufferpool"
 * when activation (its first allocations) fails: the pool is activated
 * here, and either failure posts an error that says which memory ran out
 * and what to change. */
static GstFlowReturn
gst_cf_base_transform_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);
  GstCfLayout *layout = &GET_PRIV (self)->out_layout;
  GstBufferPool *pool = NULL;
  GstFlowReturn ret;
  gboolean gpu;

  if (!gst_base_transform_is_passthrough (trans))
    pool = gst_base_transform_get_buffer_pool (trans);
  if (pool != NULL && !gst_buffer_pool_is_active (pool) &&
      !gst_buffer_pool_set_active (pool, TRUE)) {
    ret = GST_FLOW_ERROR;
    goto alloc_failed;
  }
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer
      (trans, inbuf, outbuf);
  if (ret == GST_FLOW_ERROR && pool != NULL)
    goto alloc_failed;
  gst_clear_object (&pool);
  return ret;

alloc_failed:
  gpu = GST_IS_CF_BUFFER_POOL (pool);
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("Could not allocate a %dx%d output buffer in %s memory.%s",
          layout->width, layout->height, gpu ? "GPU" : "system",
          gpu ? " If the GPU is out of memory, use smaller frames, fewer "
          "streams on this GPU, or backend=cpu." : ""),
      ("from %" GST_PTR_FORMAT, pool));
  gst_object_unref (pool);
  return ret;
}

/* Map @buffer as @layout says: video frames through their GstVideoMeta,
 * flow as one plane (CUDA memory: the pool's pitch; system: packed). */
static gboolean
mapping_map (GstCfMapping * m, const GstCfLayout * layout, GstBuffer * buffer,
    GstMapFlags flags, GstCfPlanes * planes)
{
  guint p;

  memset (m, 0, sizeof (*m));
  memset (planes, 0, sizeof (*planes));
  planes->layout = layout;
  planes->on_device = (flags & GST_MAP_CUDA) != 0;

  if (layout->is_video) {
    if (!gst_video_frame_map (&m->frame, (GstVideoInfo *) & layout->info,
            buffer, flags))
      return FALSE;
    m->is_frame = TRUE;
    for (p = 0; p < layout->n_planes; p++) {
      planes->data[p] = GST_VIDEO_FRAME_PLANE_DATA (&m->frame, p);
      planes->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&m->frame, p);
    }
  } else {
    GstMemory *mem;
    gsize needed = (gsize) layout->row_bytes[0] * layout->rows[0];
    gint stride = (gint) layout->row_bytes[0];

    /* a buffer without memory has no plane to map */
    if (gst_buffer_n_memory (buffer) == 0)
      return FALSE;
    mem = gst_buffer_peek_memory (buffer, 0);
    if (gst_buffer_n_memory (buffer) == 1 && gst_is_cuda_memory (mem))
      stride = gst_cf_cuda_memory_plane_stride (mem);
    else if (planes->on_device)
      return FALSE;
    if (!gst_buffer_map (buffer, &m->map, flags))
      return FALSE;
    if (m->map.size < (gsize) stride * (layout->rows[0] - 1) +
        layout->row_bytes[0] || needed == 0) {
      gst_buffer_unmap (buffer, &m->map);
      return FALSE;
    }
    m->buffer = buffer;
    planes->data[0] = m->map.data;
    planes->stride[0] = stride;
  }
  m->mapped = TRUE;
  return TRUE;
}

static void
mapping_unmap (GstCfMapping * m)
{
  if (!m->mapped)
    return;
  if (m->is_frame)
    gst_video_frame_unmap (&m->frame);
  else
    gst_buffer_unmap (m->buffer, &m->map);
  m->mapped = FALSE;
}

/* TRUE when @buffer is one GstCudaMemory of our context: usable in place. */
static gboolean
buffer_is_our_cuda_memory (GstCfBaseTransform * self, GstBuffer * buffer)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_cuda_memory (mem))
    return FALSE;
  if (GST_CUDA_MEMORY_CAST (mem)->context != priv->context) {
    if (!priv->warned_foreign_memory) {
      GST_WARNING_OBJECT (self, "buffer holds CUDA memory of another "
          "context, on a device that cuda-device-id excludes; going "
          "through host memory");
      priv->warned_foreign_memory = TRUE;
    }
    return FALSE;
  }
  return TRUE;
}

/* Device staging planes for @layout (allocated on first use). */
static cf_status
staging_planes (GstCfStaging * staging, const GstCfLayout * layout,
    GstCfPlanes * planes)
{
  guint p, rows = 0, row_bytes = 0;

  for (p = 0; p < layout->n_planes; p++) {
    rows += layout->rows[p];
    row_bytes = MAX (row_bytes, layout->row_bytes[p]);
  }
  /* a side input may be laid out differently from the last one */
  if (staging->data != NULL && (staging->pitch < row_bytes ||
          staging->rows < rows))
    staging_free (staging);
  if (staging->data == NULL) {
    size_t pitch = 0;
    cf_status status = cf_cuda_check (cudaMallocPitch ((void **)
            &staging->data, &pitch, row_bytes, rows));
    if (status != CF_OK) {
      staging->data = NULL;
      return status;
    }
    staging->pitch = pitch;
    staging->rows = rows;
  }

  memset (planes, 0, sizeof (*planes));
  planes->layout = layout;
  planes->on_device = TRUE;
  rows = 0;
  for (p = 0; p < layout->n_planes; p++) {
    planes->data[p] = staging->data + (gsize) rows * staging->pitch;
    planes->stride[p] = (gint) staging->pitch;
    rows += layout->rows[p];
  }
  return CF_OK;
}

/* Copy plane by plane between host and device (or device and device). */
static cf_status
copy_planes (const GstCfPlanes * src, const GstCfPlanes * dst,
    cudaStream_t stream)
{
  const GstCfLayout *layout = dst->layout;
  enum cudaMemcpyKind kind;
  guint p;

  if (src->on_device)
    kind = dst->on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
  else
    kind = dst->on_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost;

  for (p = 0; p < layout->n_planes; p++) {
    cf_status status = cf_cuda_check (cudaMemcpy2DAsync (dst->data[p],
            dst->stride[p], src->data[p], src->stride[p],
            layout->row_bytes[p], layout->rows[p], kind, stream));
    if (status != CF_OK)
      return status;
  }
  return CF_OK;
}

GstFlowReturn
gst_cf_base_transform_copy_planes (GstCfBaseTransform * self,
    const GstCfPlanes * in, const GstCfPlanes * out)
{
  guint p, y;

  if (in->on_device || out->on_device) {
    cf_status status = copy_planes (in, out, GET_PRIV (self)->stream);
    if (status != CF_OK) {
      gst_cf_post_status_error (GST_ELEMENT (self), status, NULL,
          "Could not copy a frame on the GPU");
      return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
  }
  for (p = 0; p < out->layout->n_planes; p++)
    for (y = 0; y < out->layout->rows[p]; y++)
      memcpy (out->data[p] + (gsize) y * out->stride[p],
          in->data[p] + (gsize) y * in->stride[p], out->layout->row_bytes[p]);
  return GST_FLOW_OK;
}

static GstFlowReturn
transform_cpu (GstCfBaseTransform * self, GstBuffer * inbuf,
    GstBuffer * outbuf, const GstCfLayout * out_layout)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstCfBaseTransformClass *klass = GST_CF_BASE_TRANSFORM_GET_CLASS (self);
  GstCfMapping in_map, out_map;
  GstCfPlanes in, out;
  GstFlowReturn ret;

  if (!mapping_map (&in_map, &priv->in_layout, inbuf, GST_MAP_READ, &in))
    goto map_failed;
  if (!mapping_map (&out_map, out_layout, outbuf, GST_MAP_WRITE, &out)) {
    mapping_unmap (&in_map);
    goto map_failed;
  }
  ret = klass->process (self, inbuf, &in, outbuf, &out);
  mapping_unmap (&out_map);
  mapping_unmap (&in_map);
  return ret;

map_failed:
  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("Could not map a buffer: its size or layout does not match the caps."),
      (NULL));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
transform_cuda (GstCfBaseTransform * self, GstBuffer * inbuf,
    GstBuffer * outbuf, const GstCfLayout * out_layout)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstCfBaseTransformClass *klass = GST_CF_BASE_TRANSFORM_GET_CLASS (self);
  GstCfMapping in_map, out_map, host_map;
  GstCfPlanes in, out, host;
  GstFlowReturn ret = GST_FLOW_ERROR;
  gboolean out_staged;
  cf_status status = CF_OK;
  const gchar *what = NULL;

  memset (&in_map, 0, sizeof (in_map));
  memset (&out_map, 0, sizeof (out_map));
  memset (&host_map, 0, sizeof (host_map));

  if (!gst_cuda_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not make the CUDA context current."), (NULL));
    return GST_FLOW_ERROR;
  }

  /* input: in place when it is our CUDA memory, else uploaded */
  if (buffer_is_our_cuda_memory (self, inbuf)) {
    if (!mapping_map (&in_map, &priv->in_layout, inbuf,
            GST_MAP_READ | GST_MAP_CUDA, &in))
      goto map_failed;
  } else {
    if (!mapping_map (&host_map, &priv->in_layout, inbuf, GST_MAP_READ,
            &host))
      goto map_failed;
    status = staging_planes (&priv->in_staging, &priv->in_layout, &in);
    if (status == CF_OK)
      status = copy_planes (&host, &in, priv->stream);
    /* pageable uploads are staged by the runtime before the call returns */
    mapping_unmap (&host_map);
    if (status != CF_OK) {
      what = "Could not upload a frame to the GPU";
      goto cuda_failed;
    }
  }

  /* output: in place into CUDA memory, else staged and downloaded */
  out_staged = !buffer_is_our_cuda_memory (self, outbuf);
  if (!out_staged) {
    if (!mapping_map (&out_map, out_layout, outbuf,
            GST_MAP_WRITE | GST_MAP_CUDA, &out))
      goto map_failed;
  } else {
    status = staging_planes (&priv->out_staging, out_layout, &out);
    if (status != CF_OK) {
      what = "Could not allocate GPU memory for a frame";
      goto cuda_failed;
    }
  }

  ret = klass->process (self, inbuf, &in, outbuf, &out);
  if (ret != GST_FLOW_OK)
    goto done;

  if (out_staged) {
    if (!mapping_map (&host_map, out_layout, outbuf, GST_MAP_WRITE,
            &host))
      goto map_failed;
    status = copy_planes (&out, &host, priv->stream);
    if (status != CF_OK) {
      what = "Could not download a frame from the GPU";
      goto cuda_failed;
    }
  }
  status = cf_cuda_check (cudaStreamSynchronize (priv->stream));
  if (status != CF_OK) {
    what = "Processing a frame on the GPU failed";
    goto cuda_failed;
  }
  ret = GST_FLOW_OK;

done:
  mapping_unmap (&host_map);
  mapping_unmap (&out_map);
  mapping_unmap (&in_map);
  gst_cuda_context_pop (NULL);
  return ret;

map_failed:
  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("Could not map a buffer: its size or layout does not match the caps."),
      (NULL));
  ret = GST_FLOW_ERROR;
  goto done;

cuda_failed:
  {
    /* the size says what to make smaller when memory ran out */
    gchar *text = g_strdup_printf ("%s (%dx%d)", what, out_layout->width,
        out_layout->height);

    gst_cf_post_status_error (GST_ELEMENT (self), status, NULL, text);
    g_free (text);
  }
  /* leave the stream idle so later frames or stop () start clean */
  cudaStreamSynchronize (priv->stream);
  ret = GST_FLOW_ERROR;
  goto done;
}

GstFlowReturn
gst_cf_base_transform_process_into (GstCfBaseTransform * self,
    GstBuffer * inbuf, GstBuffer * outbuf, const GstCfLayout * out_layout)
{
  if (GET_PRIV (self)->active_backend == GST_CF_BACKEND_CUDA)
    return transform_cuda (self, inbuf, outbuf, out_layout);
  return transform_cpu (self, inbuf, outbuf, out_layout);
}

static GstFlowReturn
gst_cf_base_transform_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCfBaseTransform *self = GST_CF_BASE_TRANSFORM (trans);

  return gst_cf_base_transform_process_into (self, inbuf, outbuf,
      &GET_PRIV (self)->out_layout);
}

gboolean
gst_cf_base_transform_is_own_cuda_memory (GstCfBaseTransform * self,
    GstBuffer * buffer)
{
  return GET_PRIV (self)->context != NULL &&
      buffer_is_our_cuda_memory (self, buffer);
}

gboolean
gst_cf_base_transform_map_side_input (GstCfBaseTransform * self,
    GstBuffer * buffer, const GstCfLayout * layout, GstCfSideInput * side)
{
  GstCfBaseTransformPrivate *priv = GET_PRIV (self);
  GstCfMapping host_map;
  GstCfPlanes host;
  cf_status status;

  memset (side, 0, sizeof (*side));
  if (priv->active_backend != GST_CF_BACKEND_CUDA)
    return mapping_map (&side->mapping, layout, buffer, GST_MAP_READ,
        &side->planes);

  if (buffer_is_our_cuda_memory (self, buffer))
    return mapping_map (&side->mapping, layout, buffer,
        GST_MAP_READ | GST_MAP_CUDA, &side->planes);

  if (!mapping_map (&host_map, layout, buffer, GST_MAP_READ, &host))
    return FALSE;
  status = staging_planes (&priv->side_staging, layout, &side->planes);
  if (status == CF_OK)
    status = copy_planes (&host, &side->planes, priv->stream);
  /* pageable uploads are staged by the runtime before the call returns */
  mapping_unmap (&host_map);
  if (status != CF_OK) {
    memset (side, 0, sizeof (*side));
    return FALSE;
  }
  return TRUE;
}

void
gst_cf_base_transform_unmap_side_input (GstCfSideInput * side)
{
  mapping_unmap (&side->mapping);
}
