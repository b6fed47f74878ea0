/* gst-cudaflow — what applications need to read optical flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstcudaflow
 * @title: GstCudaFlow
 * @short_description: flow caps, the flow meta, and host access to flow
 *   fields in any memory
 *
 * The flow elements (cudaflowhs, cudaflowtvl1, cudaflowclg) either emit a
 * flow stream (`output=flow`: caps #GST_CUDA_FLOW_CAPS_NAME, read with
 * gst_cuda_flow_info_from_caps() and gst_cuda_flow_frame_map()) or pass the
 * video through with a #GstCudaFlowMeta on every frame (`output=meta`:
 * gst_buffer_get_cuda_flow_meta()).
 *
 * A flow field is @height rows of @width (u, v) float pairs. In system
 * memory the rows are packed (stride = width × 8); in CUDA memory they are
 * pitched, and the buffer is stride × height bytes. Mapping a CUDA buffer
 * for reading on the host downloads it (GstCudaMemory does this); nothing
 * here needs CUDA.
 *
 * This library needs only GStreamer core: it can be used from programs
 * built without the CUDA toolkit, and from Python through GObject
 * introspection (`gi.require_version ("GstCudaFlow", "1.0")`).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cudaflow.h"

#include <string.h>

/* --- method ---------------------------------------------------------- */

GType
gst_cuda_flow_method_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_FLOW_METHOD_UNKNOWN, "Not said", "unknown"},
    {GST_CUDA_FLOW_METHOD_HORN_SCHUNCK, "Horn-Schunck", "horn-schunck"},
    {GST_CUDA_FLOW_METHOD_TV_L1, "TV-L1", "tv-l1"},
    {GST_CUDA_FLOW_METHOD_CLG, "Combined Local-Global", "clg"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaFlowMethod",
            values));
  return (GType) type;
}

/* --- info ------------------------------------------------------------ */

G_DEFINE_BOXED_TYPE (GstCudaFlowInfo, gst_cuda_flow_info,
    gst_cuda_flow_info_copy, gst_cuda_flow_info_free);

/**
 * gst_cuda_flow_info_new:
 *
 * Returns: (transfer full): a zeroed #GstCudaFlowInfo; fill it with
 *   gst_cuda_flow_info_from_caps()
 */
GstCudaFlowInfo *
gst_cuda_flow_info_new (void)
{
  return g_new0 (GstCudaFlowInfo, 1);
}

/**
 * gst_cuda_flow_info_copy:
 * @info: a #GstCudaFlowInfo
 *
 * Returns: (transfer full): a copy of @info
 */
GstCudaFlowInfo *
gst_cuda_flow_info_copy (const GstCudaFlowInfo * info)
{
  g_return_val_if_fail (info != NULL, NULL);
  return g_memdup2 (info, sizeof (*info));
}

/**
 * gst_cuda_flow_info_free:
 * @info: (transfer full): a #GstCudaFlowInfo
 */
void
gst_cuda_flow_info_free (GstCudaFlowInfo * info)
{
  g_free (info);
}

/**
 * gst_cuda_flow_info_from_caps:
 * @info: (out caller-allocates): the #GstCudaFlowInfo to fill
 * @caps: fixed flow caps (#GST_CUDA_FLOW_CAPS_NAME, format UV_F32LE)
 *
 * Reads size, framerate and memory of a flow stream from its caps.
 *
 * Returns: FALSE when @caps are not fixed flow caps (@info is then zeroed)
 */
gboolean
gst_cuda_flow_info_from_caps (GstCudaFlowInfo * info, const GstCaps * caps)
{
  const GstStructure *s;
  GstCapsFeatures *features;

  g_return_val_if_fail (info != NULL, FALSE);
  memset (info, 0, sizeof (*info));
  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  if (gst_caps_get_size (caps) != 1)
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, GST_CUDA_FLOW_CAPS_NAME) ||
      g_strcmp0 (gst_structure_get_string (s, "format"),
          GST_CUDA_FLOW_FORMAT) != 0 ||
      !gst_structure_get_int (s, "width", &info->width) ||
      !gst_structure_get_int (s, "height", &info->height) ||
      info->width <= 0 || info->height <= 0 ||
      info->width > G_MAXINT / GST_CUDA_FLOW_PIXEL_SIZE) {
    memset (info, 0, sizeof (*info));
    return FALSE;
  }
  if (!gst_structure_get_fraction (s, "framerate", &info->fps_n,
          &info->fps_d)) {
    info->fps_n = 0;
    info->fps_d = 1;
  }
  features = gst_caps_get_features (caps, 0);
  info->is_cuda = features != NULL &&
      gst_caps_features_contains (features, "memory:CUDAMemory");
  info->stride = info->is_cuda ? 0 : info->width * GST_CUDA_FLOW_PIXEL_SIZE;
  return TRUE;
}

/* --- host access ----------------------------------------------------- */

/**
 * gst_cuda_flow_frame_map: (skip)
 * @frame: (out caller-allocates): the mapping
 * @flow: a flow buffer: height rows of width (u, v) float pairs
 * @width: vectors per row
 * @height: rows
 * @stride: bytes per row, or 0 to take it from the buffer's size
 *   (stride × height: packed in system memory, pitched in CUDA memory)
 *
 * Maps @flow for reading on the host. CUDA memory is downloaded by the
 * map. Release with gst_cuda_flow_frame_unmap().
 *
 * Returns: FALSE when @flow is too small for the size given, or cannot be
 *   mapped
 */
gboolean
gst_cuda_flow_frame_map (GstCudaFlowFrame * frame, GstBuffer * flow,
    gint width, gint height, gint stride)
{
  gsize row_bytes;

  g_return_val_if_fail (frame != NULL, FALSE);
  memset (frame, 0, sizeof (*frame));
  g_return_val_if_fail (GST_IS_BUFFER (flow), FALSE);
  g_return_val_if_fail (width > 0 && height > 0 && stride >= 0, FALSE);

  row_bytes = (gsize) width * GST_CUDA_FLOW_PIXEL_SIZE;
  if (!gst_buffer_map (flow, &frame->map, GST_MAP_READ))
    return FALSE;
  if (stride == 0) {
    if (frame->map.size % (gsize) height != 0 ||
        frame->map.size / (gsize) height > G_MAXINT)
      goto wrong_size;
    stride = (gint) (frame->map.size / (gsize) height);
  }
  if ((gsize) stride < row_bytes ||
      frame->map.size < (gsize) stride * (height - 1) + row_bytes)
    goto wrong_size;

  frame->buffer = gst_buffer_ref (flow);
  frame->width = width;
  frame->height = height;
  frame->stride = stride;
  frame->data = frame->map.data;
  return TRUE;

wrong_size:
  GST_WARNING ("flow buffer of %" G_GSIZE_FORMAT " bytes cannot hold %dx%d "
      "vectors at stride %d", frame->map.size, width, height, stride);
  gst_buffer_unmap (flow, &frame->map);
  memset (frame, 0, sizeof (*frame));
  return FALSE;
}

/**
 * gst_cuda_flow_frame_unmap: (skip)
 * @frame: a frame mapped with gst_cuda_flow_frame_map()
 */
void
gst_cuda_flow_frame_unmap (GstCudaFlowFrame * frame)
{
  g_return_if_fail (frame != NULL);
  if (frame->buffer == NULL)
    return;
  gst_buffer_unmap (frame->buffer, &frame->map);
  gst_buffer_unref (frame->buffer);
  memset (frame, 0, sizeof (*frame));
}

static GBytes *
frame_to_packed (const GstCudaFlowFrame * frame)
{
  gsize row_bytes = (gsize) frame->width * GST_CUDA_FLOW_PIXEL_SIZE;
  guint8 *packed = g_malloc (row_bytes * frame->height);
  gint y;

  for (y = 0; y < frame->height; y++)
    memcpy (packed + row_bytes * y, frame->data + (gsize) frame->stride * y,
        row_bytes);
  return g_bytes_new_take (packed, row_bytes * frame->height);
}

/**
 * gst_cuda_flow_buffer_read_packed:
 * @flow: a flow buffer
 * @width: vectors per row
 * @height: rows
 * @stride: bytes per row, or 0 to take it from the buffer's size
 *
 * Copies a flow field to the host with packed rows, whatever its memory:
 * @height × @width × 2 floats (u, v), e.g. for `numpy.frombuffer (bytes,
 * numpy.float32).reshape (height, width, 2)`.
 *
 * Returns: (transfer full) (nullable): the field, or NULL when @flow is too
 *   small or cannot be mapped
 */
GBytes *
gst_cuda_flow_buffer_read_packed (GstBuffer * flow, gint width, gint height,
    gint stride)
{
  GstCudaFlowFrame frame;
  GBytes *bytes;

  if (!gst_cuda_flow_frame_map (&frame, flow, width, height, stride))
    return NULL;
  bytes = frame_to_packed (&frame);
  gst_cuda_flow_frame_unmap (&frame);
  return bytes;
}

/* --- meta ------------------------------------------------------------ */

GType
gst_cuda_flow_meta_api_get_type (void)
{
  static gsize type = 0;
  /* the field is tied to the frame's geometry: whatever scales, crops or
   * rotates the video must drop it */
  static const gchar *tags[] = { "video", "size", "orientation", NULL };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        gst_meta_api_type_register ("GstCudaFlowMetaAPI", tags));
  return (GType) type;
}

static gboolean
gst_cuda_flow_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstCudaFlowMeta *fmeta = (GstCudaFlowMeta *) meta;

  fmeta->flow = NULL;
  fmeta->width = fmeta->height = fmeta->stride = 0;
  fmeta->prev_pts = fmeta->pts = GST_CLOCK_TIME_NONE;
  fmeta->valid = FALSE;
  fmeta->method = GST_CUDA_FLOW_METHOD_UNKNOWN;
  return TRUE;
}

static void
gst_cuda_flow_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  gst_clear_buffer (&((GstCudaFlowMeta *) meta)->flow);
}

/* Copies of the whole buffer (gst_buffer_copy, make_writable, tee) keep
 * the flow (shared, not copied); part of a buffer, or a transformed frame,
 * no longer matches the field, so the meta is dropped. */
static gboolean
gst_cuda_flow_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCudaFlowMeta *fmeta = (GstCudaFlowMeta *) meta;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    if (!copy->region)
      gst_buffer_add_cuda_flow_meta (dest, fmeta->flow, fmeta->width,
          fmeta->height, fmeta->stride, fmeta->prev_pts, fmeta->pts,
          fmeta->valid, fmeta->method);
    return TRUE;
  }
  return FALSE;
}

const GstMetaInfo *
gst_cuda_flow_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CUDA_FLOW_META_API_TYPE,
        "GstCudaFlowMeta", sizeof (GstCudaFlowMeta), gst_cuda_flow_meta_init,
        gst_cuda_flow_meta_free, gst_cuda_flow_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_add_cuda_flow_meta:
 * @buffer: the video frame (writable)
 * @flow: the flow field; the meta takes a reference
 * @width: vectors per row
 * @height: rows
 * @stride: bytes per row of @flow
 * @prev_pts: PTS of the earlier frame of the pair
 * @pts: PTS of @buffer's frame
 * @valid: whether @flow is a real estimate
 * @method: the estimator
 *
 * Attaches a flow field to a video frame.
 *
 * Returns: (transfer none) (nullable): the meta, or NULL when the sizes do
 *   not fit @flow
 */
GstCudaFlowMeta *
gst_buffer_add_cuda_flow_meta (GstBuffer * buffer, GstBuffer * flow,
    gint width, gint height, gint stride, GstClockTime prev_pts,
    GstClockTime pts, gboolean valid, GstCudaFlowMethod method)
{
  GstCudaFlowMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (GST_IS_BUFFER (flow), NULL);
  g_return_val_if_fail (width > 0 && height > 0, NULL);
  g_return_val_if_fail (stride >= width * GST_CUDA_FLOW_PIXEL_SIZE, NULL);
  g_return_val_if_fail (gst_buffer_get_size (flow) >=
      (gsize) stride * (height - 1) + (gsize) width * GST_CUDA_FLOW_PIXEL_SIZE,
      NULL);

  meta = (GstCudaFlowMeta *) gst_buffer_add_meta (buffer,
      GST_CUDA_FLOW_META_INFO, NULL);
  if (meta == NULL)
    return NULL;
  meta->flow = gst_buffer_ref (flow);
  meta->width = width;
  meta->height = height;
  meta->stride = stride;
  meta->prev_pts = prev_pts;
  meta->pts = pts;
  meta->valid = valid;
  meta->method = method;
  return meta;
}

/**
 * gst_buffer_get_cuda_flow_meta:
 * @buffer: a video frame
 *
 * Returns: (transfer none) (nullable): the flow field attached to @buffer,
 *   or NULL
 */
GstCudaFlowMeta *
gst_buffer_get_cuda_flow_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstCudaFlowMeta *) gst_buffer_get_meta (buffer,
      GST_CUDA_FLOW_META_API_TYPE);
}

/**
 * gst_cuda_flow_meta_map: (skip)
 * @meta: a #GstCudaFlowMeta
 * @frame: (out caller-allocates): the mapping
 *
 * Maps the meta's field for reading on the host (CUDA memory is
 * downloaded). Release with gst_cuda_flow_frame_unmap().
 *
 * Returns: FALSE when the field cannot be mapped
 */
gboolean
gst_cuda_flow_meta_map (GstCudaFlowMeta * meta, GstCudaFlowFrame * frame)
{
  g_return_val_if_fail (meta != NULL && meta->flow != NULL, FALSE);
  return gst_cuda_flow_frame_map (frame, meta->flow, meta->width,
      meta->height, meta->stride);
}

/**
 * gst_cuda_flow_meta_read_packed:
 * @meta: a #GstCudaFlowMeta
 *
 * The meta's field on the host with packed rows, whatever its memory; see
 * gst_cuda_flow_buffer_read_packed().
 *
 * Returns: (transfer full) (nullable): the field, or NULL when it cannot be
 *   mapped
 */
GBytes *
gst_cuda_flow_meta_read_packed (GstCudaFlowMeta * meta)
{
  g_return_val_if_fail (meta != NULL && meta->flow != NULL, NULL);
  return gst_cuda_flow_buffer_read_packed (meta->flow, meta->width,
      meta->height, meta->stride);
}
