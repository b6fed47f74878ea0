/* gst-cudaflow — a buffer pool of GstCudaMemory for any layout
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfbufferpool.h"

#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_cf_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_cf_buffer_pool_debug

struct _GstCfBufferPool
{
  GstBufferPool parent;

  GstCudaContext *context;
  GstAllocator *allocator;

  /* from the configured caps */
  gboolean is_video;            /* video/x-raw; else a single packed plane */
  GstVideoInfo info;            /* video only */
  guint row_bytes;              /* flow: bytes per row */
  guint rows;                   /* flow: rows */
  GstVideoInfo alloc_info;      /* what gst_cuda_allocator_alloc () sees */
  gboolean proxy;               /* alloc_info is a stand-in layout */
};

#define gst_cf_buffer_pool_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstCfBufferPool, gst_cf_buffer_pool,
    GST_TYPE_BUFFER_POOL,
    GST_DEBUG_CATEGORY_INIT (gst_cf_buffer_pool_debug, "cfbufferpool", 0,
        "gst-cudaflow CUDA buffer pool"));

static const gchar **gst_cf_buffer_pool_get_options (GstBufferPool * pool);
static gboolean gst_cf_buffer_pool_set_config (GstBufferPool * pool,
    GstStructure * config);
static GstFlowReturn gst_cf_buffer_pool_alloc (GstBufferPool * pool,
    GstBuffer ** buffer, GstBufferPoolAcquireParams * params);
static void gst_cf_buffer_pool_finalize (GObject * object);

static void
gst_cf_buffer_pool_class_init (GstCfBufferPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->finalize = gst_cf_buffer_pool_finalize;
  pool_class->get_options = gst_cf_buffer_pool_get_options;
  pool_class->set_config = gst_cf_buffer_pool_set_config;
  pool_class->alloc_buffer = gst_cf_buffer_pool_alloc;
}

static void
gst_cf_buffer_pool_init (GstCfBufferPool * self)
{
}

static void
gst_cf_buffer_pool_finalize (GObject * object)
{
  GstCfBufferPool *self = GST_CF_BUFFER_POOL (object);

  gst_clear_object (&self->allocator);
  gst_clear_object (&self->context);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

GstBufferPool *
gst_cf_buffer_pool_new (GstCudaContext * context)
{
  GstCfBufferPool *self;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  self = g_object_new (GST_TYPE_CF_BUFFER_POOL, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  gst_cuda_memory_init_once ();
  /* 1.22 rejects a NULL allocator: look the registered one up */
  self->allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  return GST_BUFFER_POOL_CAST (self);
}

gboolean
gst_cf_cuda_format_is_native (GstVideoFormat format)
{
  /* the list gst_cuda_allocator_alloc_internal () switches over in 1.22 */
  switch (format) {
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_I420_10LE:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_I422_10LE:
    case GST_VIDEO_FORMAT_I422_12LE:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_NV21:
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_Y444:
    case GST_VIDEO_FORMAT_Y444_16LE:
    case GST_VIDEO_FORMAT_RGBP:
    case GST_VIDEO_FORMAT_BGRP:
    case GST_VIDEO_FORMAT_GBR:
    case GST_VIDEO_FORMAT_GBRA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
    case GST_VIDEO_FORMAT_BGR10A2_LE:
    case GST_VIDEO_FORMAT_RGB10A2_LE:
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:
      return TRUE;
    default:
      return FALSE;
  }
}

static const gchar **
gst_cf_buffer_pool_get_options (GstBufferPool * pool)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META, NULL };
  return options;
}

/* A stand-in RGBA layout of ceil(row_bytes / 4) x rows: its first row stride
 * is what the allocator asks cuMemAllocPitch for. */
static void
set_proxy_info (GstVideoInfo * info, guint row_bytes, guint rows)
{
  gst_video_info_set_format (info, GST_VIDEO_FORMAT_RGBA,
      MAX (1, (row_bytes + 3) / 4), MAX (1, rows));
}

static gboolean
gst_cf_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstCfBufferPool *self = GST_CF_BUFFER_POOL (pool);
  GstCaps *caps = NULL;
  guint size, min, max;
  GstStructure *s;
  GstMemory *probe;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || caps == NULL) {
    GST_WARNING_OBJECT (self, "pool config has no caps");
    return FALSE;
  }
  s = gst_caps_get_structure (caps, 0);

  if (gst_structure_has_name (s, "video/x-raw")) {
    guint p, rows = 0, row_bytes = 0;

    if (!gst_video_info_from_caps (&self->info, caps)) {
      GST_WARNING_OBJECT (self, "cannot parse video caps %" GST_PTR_FORMAT,
          caps);
      return FALSE;
    }
    self->is_video = TRUE;
    self->proxy = !gst_cf_cuda_format_is_native (GST_VIDEO_INFO_FORMAT
        (&self->info));
    if (self->proxy) {
      /* planes stacked at one pitch, like GstCudaMemory's own layouts */
      for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&self->info); p++) {
        gint comp[GST_VIDEO_MAX_COMPONENTS];
        gst_video_format_info_component (self->info.finfo, p, comp);
        row_bytes = MAX (row_bytes,
            (guint) GST_VIDEO_INFO_COMP_WIDTH (&self->info, comp[0]) *
            GST_VIDEO_INFO_COMP_PSTRIDE (&self->info, comp[0]));
        rows += GST_VIDEO_INFO_COMP_HEIGHT (&self->info, comp[0]);
      }
      set_proxy_info (&self->alloc_info, row_bytes, rows);
    } else {
      self->alloc_info = self->info;
    }
  } else {
    gint width, height;

    /* video/x-optical-flow, format=UV_F32LE: one plane of (u, v) floats */
    if (!gst_structure_get_int (s, "width", &width) ||
        !gst_structure_get_int (s, "height", &height) || width <= 0
        || height <= 0) {
      GST_WARNING_OBJECT (self, "caps %" GST_PTR_FORMAT " lack a size", caps);
      return FALSE;
    }
    self->is_video = FALSE;
    self->proxy = TRUE;
    self->row_bytes = (guint) width * 2 * sizeof (float);
    self->rows = (guint) height;
    set_proxy_info (&self->alloc_info, self->row_bytes, self->rows);
  }

  /* learn the real (pitched) size from one allocation, as GstCudaBufferPool */
  probe = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (self->allocator),
      self->context, &self->alloc_info);
  if (probe == NULL) {
    GST_WARNING_OBJECT (self, "cannot allocate CUDA memory for %"
        GST_PTR_FORMAT, caps);
    return FALSE;
  }
  size = (guint) probe->size;
  gst_memory_unref (probe);

  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  return GST_BUFFER_POOL_CLASS (parent_class)->set_config (pool, config);
}

gint
gst_cf_cuda_memory_plane_stride (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_cuda_memory (mem), 0);
  return GST_VIDEO_INFO_PLANE_STRIDE (&GST_CUDA_MEMORY_CAST (mem)->info, 0);
}

static GstFlowReturn
gst_cf_buffer_pool_alloc (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstCfBufferPool *self = GST_CF_BUFFER_POOL (pool);
  GstVideoInfo *info = &self->info;
  GstCudaMemory *cmem;
  GstMemory *mem;
  GstBuffer *buf;

  mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (self->allocator),
      self->context, &self->alloc_info);
  if (mem == NULL) {
    GST_ERROR_OBJECT (self, "cannot allocate CUDA memory");
    return GST_FLOW_ERROR;
  }
  cmem = GST_CUDA_MEMORY_CAST (mem);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);

  if (self->is_video) {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
    gint stride[GST_VIDEO_MAX_PLANES] = { 0, };
    guint p, n_planes = GST_VIDEO_INFO_N_PLANES (info);

    if (self->proxy) {
      gsize pitch = GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, 0);
      gsize row = 0;
      for (p = 0; p < n_planes; p++) {
        gint comp[GST_VIDEO_MAX_COMPONENTS];
        gst_video_format_info_component (info->finfo, p, comp);
        offset[p] = row * pitch;
        stride[p] = (gint) pitch;
        row += GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
      }
    } else {
      for (p = 0; p < n_planes; p++) {
        offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, p);
        stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, p);
      }
    }
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), n_planes, offset, stride);
  }

  *buffer = buf;
  return GST_FLOW_OK;
}
