/* gst-cudaflow — what applications need to read optical flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_FLOW_H__
#define __GST_CUDA_FLOW_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GST_CUDA_FLOW_CAPS_NAME:
 *
 * Media type of a flow stream: one field per video frame.
 */
#define GST_CUDA_FLOW_CAPS_NAME "video/x-optical-flow"

/**
 * GST_CUDA_FLOW_FORMAT:
 *
 * The one format flow fields come in: per pixel two little-endian 32-bit
 * floats (u, v) in pixels of the video frame, u to the right, v down.
 */
#define GST_CUDA_FLOW_FORMAT "UV_F32LE"

/**
 * GST_CUDA_FLOW_PIXEL_SIZE:
 *
 * Bytes per flow vector.
 */
#define GST_CUDA_FLOW_PIXEL_SIZE 8

/**
 * GST_CUDA_FLOW_CAPS_MAKE_WITH_FEATURES:
 * @features: caps features, such as "memory:CUDAMemory"
 *
 * Caps string of flow fields of any size and rate in memory of @features.
 */
#define GST_CUDA_FLOW_CAPS_MAKE_WITH_FEATURES(features) \
    GST_CUDA_FLOW_CAPS_NAME "(" features "), format=(string)" \
    GST_CUDA_FLOW_FORMAT ", width=(int)[1, 32768], height=(int)[1, 32768], " \
    "framerate=(fraction)[0/1, MAX]"
/**
 * GST_CUDA_FLOW_CAPS_MAKE:
 *
 * Caps string of flow fields of any size and rate in system memory.
 */
#define GST_CUDA_FLOW_CAPS_MAKE \
    GST_CUDA_FLOW_CAPS_NAME ", format=(string)" GST_CUDA_FLOW_FORMAT \
    ", width=(int)[1, 32768], height=(int)[1, 32768], " \
    "framerate=(fraction)[0/1, MAX]"

/**
 * GstCudaFlowMethod:
 * @GST_CUDA_FLOW_METHOD_UNKNOWN: not said (a field read from a file)
 * @GST_CUDA_FLOW_METHOD_HORN_SCHUNCK: Horn–Schunck (cudaflowhs)
 * @GST_CUDA_FLOW_METHOD_TV_L1: TV-L1 (cudaflowtvl1)
 * @GST_CUDA_FLOW_METHOD_CLG: Combined Local-Global (cudaflowclg)
 *
 * The estimator that computed a flow field.
 */
typedef enum
{
  GST_CUDA_FLOW_METHOD_UNKNOWN = 0,
  GST_CUDA_FLOW_METHOD_HORN_SCHUNCK = 1,
  GST_CUDA_FLOW_METHOD_TV_L1 = 2,
  GST_CUDA_FLOW_METHOD_CLG = 3
} GstCudaFlowMethod;

#define GST_TYPE_CUDA_FLOW_METHOD (gst_cuda_flow_method_get_type ())
GType gst_cuda_flow_method_get_type (void);

/**
 * GstCudaFlowInfo:
 * @width: vectors per row (the video frame's width)
 * @height: rows
 * @stride: bytes from one row to the next in system memory, where rows are
 *   packed (@width × 8); 0 in CUDA memory, where rows are pitched and each
 *   buffer says its own stride (gst_cuda_flow_frame_map() reads it)
 * @fps_n: framerate numerator (0 when variable or unknown)
 * @fps_d: framerate denominator
 * @is_cuda: the caps carry the memory:CUDAMemory feature
 *
 * What the caps of a flow stream say about its buffers.
 */
typedef struct
{
  gint width;
  gint height;
  gint stride;
  gint fps_n;
  gint fps_d;
  gboolean is_cuda;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCudaFlowInfo;

#define GST_TYPE_CUDA_FLOW_INFO (gst_cuda_flow_info_get_type ())
GType gst_cuda_flow_info_get_type (void);

GstCudaFlowInfo *gst_cuda_flow_info_new (void);
GstCudaFlowInfo *gst_cuda_flow_info_copy (const GstCudaFlowInfo * info);
void gst_cuda_flow_info_free (GstCudaFlowInfo * info);
gboolean gst_cuda_flow_info_from_caps (GstCudaFlowInfo * info,
    const GstCaps * caps);

/**
 * GstCudaFlowFrame:
 * @width: vectors per row
 * @height: rows
 * @stride: bytes from one row to the next
 * @data: the first row: @width pairs of floats (u, v)
 *
 * A flow field mapped for reading on the host. Row y starts at
 * `data + y * stride`.
 */
typedef struct
{
  gint width;
  gint height;
  gint stride;
  const guint8 *data;

  /*< private >*/
  GstBuffer *buffer;
  GstMapInfo map;
  gpointer _gst_reserved[GST_PADDING];
} GstCudaFlowFrame;

gboolean gst_cuda_flow_frame_map (GstCudaFlowFrame * frame, GstBuffer * flow,
    gint width, gint height, gint stride);
void gst_cuda_flow_frame_unmap (GstCudaFlowFrame * frame);
GBytes *gst_cuda_flow_buffer_read_packed (GstBuffer * flow, gint width,
    gint height, gint stride);

/**
 * GstCudaFlowMeta:
 * @meta: parent #GstMeta
 * @flow: the flow field (UV_F32LE), in the memory the element produced:
 *   CUDA memory when the video is in CUDA memory, else system memory
 * @width: vectors per row (the frame's width)
 * @height: rows (the frame's height)
 * @stride: bytes from one row of @flow to the next
 * @prev_pts: PTS of the earlier frame of the pair (frame t−1)
 * @pts: PTS of the frame the meta is on (frame t)
 * @valid: FALSE when there was no earlier frame (the first frame, and the
 *   first after a discontinuity, a flush or a caps change): @flow is then
 *   a zero field that means nothing
 * @method: the estimator that computed @flow
 *
 * The optical flow from the previous frame to this one: the vector at x
 * satisfies I(t−1, x) ≈ I(t, x + (u, v)) (Middlebury convention).
 */
typedef struct
{
  GstMeta meta;

  GstBuffer *flow;
  gint width;
  gint height;
  gint stride;
  GstClockTime prev_pts;
  GstClockTime pts;
  gboolean valid;
  GstCudaFlowMethod method;
} GstCudaFlowMeta;

#define GST_CUDA_FLOW_META_API_TYPE (gst_cuda_flow_meta_api_get_type ())
#define GST_CUDA_FLOW_META_INFO (gst_cuda_flow_meta_get_info ())

GType gst_cuda_flow_meta_api_get_type (void);
const GstMetaInfo *gst_cuda_flow_meta_get_info (void);

GstCudaFlowMeta *gst_buffer_add_cuda_flow_meta (GstBuffer * buffer,
    GstBuffer * flow, gint width, gint height, gint stride,
    GstClockTime prev_pts, GstClockTime pts, gboolean valid,
    GstCudaFlowMethod method);
GstCudaFlowMeta *gst_buffer_get_cuda_flow_meta (GstBuffer * buffer);

gboolean gst_cuda_flow_meta_map (GstCudaFlowMeta * meta,
    GstCudaFlowFrame * frame);
GBytes *gst_cuda_flow_meta_read_packed (GstCudaFlowMeta * meta);

G_END_DECLS
#endif /* __GST_CUDA_FLOW_H__ */
