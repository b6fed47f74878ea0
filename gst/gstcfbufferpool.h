/* gst-cudaflow — a buffer pool of GstCudaMemory for any layout
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CF_BUFFER_POOL_H__
#define __GST_CF_BUFFER_POOL_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>

G_BEGIN_DECLS

#define GST_TYPE_CF_BUFFER_POOL (gst_cf_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCfBufferPool, gst_cf_buffer_pool, GST, CF_BUFFER_POOL,
    GstBufferPool);

/* A pool whose buffers hold one genuine GstCudaMemory each, for
 * video/x-raw in any format and for video/x-optical-flow.
 *
 * GStreamer 1.22's gst_cuda_allocator_alloc () aborts the process for
 * formats outside a fixed list (GRAY8, GRAY16_LE, and every non-video
 * layout). For those the pool allocates through a proxy RGBA GstVideoInfo
 * wide enough for the rows, then describes the real layout with a
 * GstVideoMeta (video) or leaves one packed-row plane whose stride is the
 * memory's pitch (flow; see gst_cf_buffer_pool_flow_stride ()). */
GstBufferPool *gst_cf_buffer_pool_new (GstCudaContext * context);

/* Row stride in bytes of a flow buffer from this pool (or of any
 * GstCudaMemory holding a packed plane): the proxy layout's pitch. */
gint gst_cf_cuda_memory_plane_stride (GstMemory * mem);

/* TRUE when 1.22's GstCudaMemory can hold @format natively. */
gboolean gst_cf_cuda_format_is_native (GstVideoFormat format);

G_END_DECLS
#endif /* __GST_CF_BUFFER_POOL_H__ */
