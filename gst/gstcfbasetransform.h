/* gst-cudaflow — base class of every element: CUDA context, backend choice,
 * and buffers in CUDA or system memory on either pad
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CF_BASE_TRANSFORM_H__
#define __GST_CF_BASE_TRANSFORM_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <cuda_runtime_api.h>

#include "gstcfutils.h"

G_BEGIN_DECLS

#define GST_TYPE_CF_BASE_TRANSFORM (gst_cf_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCfBaseTransform, gst_cf_base_transform,
    GST, CF_BASE_TRANSFORM, GstBaseTransform);

/* The layout of what one pad carries: a raw video frame, or a flow field
 * (video/x-optical-flow, format=UV_F32LE: one plane of interleaved float
 * (u, v), packed in system memory, pitched in CUDA memory). */
typedef struct
{
  gboolean is_video;
  GstVideoInfo info;            /* video: the frame; flow: size and rate only */
  gint width;
  gint height;
  guint n_planes;
  guint row_bytes[GST_VIDEO_MAX_PLANES];
  guint rows[GST_VIDEO_MAX_PLANES];
} GstCfLayout;

/* One side of a transform, mapped: plane pointers are device pointers when
 * on_device (the CUDA backend always hands its subclass device pointers:
 * system-memory buffers are staged through device memory by the base), host
 * pointers otherwise (CPU backend). */
typedef struct
{
  const GstCfLayout *layout;
  gboolean on_device;
  guint8 *data[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} GstCfPlanes;

/* A buffer mapped by the base (what the planes point into). */
typedef struct
{
  gboolean mapped;
  gboolean is_frame;
  GstVideoFrame frame;
  GstBuffer *buffer;
  GstMapInfo map;
} GstCfMapping;

/* A second input of process () (the flow a video frame carries as meta):
 * planes on the device with the CUDA backend, in place when the buffer is
 * CUDA memory of the element's context and uploaded otherwise; host planes
 * with the CPU backend. */
typedef struct
{
  GstCfPlanes planes;
  GstCfMapping mapping;
} GstCfSideInput;

struct _GstCfBaseTransformClass
{
  GstBaseTransformClass parent_class;

  /* The element's own debug category (cudaconvolve, cudaflowhs, ...): the
   * base says there which backend the element runs on, so that
   * GST_DEBUG=<element>:4 shows it. NULL: the base's category only. */
  GstDebugCategory *debug_category;

  /* Caps on the other pad for @caps (memory features already removed);
   * the base adds the CUDA and system memory variants. */
  GstCaps *(*transform_media_caps) (GstCfBaseTransform * self,
      GstPadDirection direction, GstCaps * caps);

  /* New caps were set: @in and @out describe them. Runs on the streaming
   * thread; device resources from older caps were already freed. */
  gboolean (*set_info) (GstCfBaseTransform * self, const GstCfLayout * in,
      const GstCfLayout * out);

  /* Compute @out from @in. With the CUDA backend the context is pushed, the
   * planes are on the device, and all work goes on self's stream (the base
   * synchronises it before the buffer leaves); with the CPU backend the
   * planes are host memory. Post an element error before returning
   * GST_FLOW_ERROR. */
  GstFlowReturn (*process) (GstCfBaseTransform * self, GstBuffer * inbuf,
      const GstCfPlanes * in, GstBuffer * outbuf, const GstCfPlanes * out);

  /* Free plans and device buffers (context pushed); called on caps changes
   * and at stop. Must be safe to call when nothing is allocated. */
  void (*free_device_resources) (GstCfBaseTransform * self);
};

/* The backend that start () resolved (CUDA or CPU; AUTO before start). */
GstCfBackend gst_cf_base_transform_get_active_backend (GstCfBaseTransform *
    self);
/* The element's CUDA stream (NULL with the CPU backend). */
cudaStream_t gst_cf_base_transform_get_stream (GstCfBaseTransform * self);
GstCudaContext *gst_cf_base_transform_get_context (GstCfBaseTransform * self);

/* TRUE when the negotiated input and output caps are identical (memory
 * features included): only then can an identity setting be a passthrough. */
gboolean gst_cf_base_transform_caps_are_equal (GstCfBaseTransform * self);

/* TRUE when @buffer is one GstCudaMemory of the element's context: the
 * CUDA backend uses it in place. */
gboolean gst_cf_base_transform_is_own_cuda_memory (GstCfBaseTransform * self,
    GstBuffer * buffer);

/* The layouts of the negotiated caps. */
const GstCfLayout *gst_cf_base_transform_get_in_layout (GstCfBaseTransform *
    self);

/* Run process () from @inbuf into @outbuf laid out as @out_layout instead
 * of as the output caps say, with transform's memory rules (our CUDA memory
 * in place, anything else staged) and the stream synchronised on return:
 * how an estimator fills the flow field it attaches to the video it passes
 * through. @out_layout must stay the same between caps changes. */
GstFlowReturn gst_cf_base_transform_process_into (GstCfBaseTransform * self,
    GstBuffer * inbuf, GstBuffer * outbuf, const GstCfLayout * out_layout);

/* Map @buffer, laid out as @layout, as a second input (inside process ();
 * the context is pushed with the CUDA backend). One side input at a time;
 * its device staging lives until the caps change. FALSE (nothing to
 * release) when the buffer does not fit the layout or the upload failed. */
gboolean gst_cf_base_transform_map_side_input (GstCfBaseTransform * self,
    GstBuffer * buffer, const GstCfLayout * layout, GstCfSideInput * side);
void gst_cf_base_transform_unmap_side_input (GstCfSideInput * side);

/* Fill @layout from caps (video/x-raw or video/x-optical-flow). */
gboolean gst_cf_layout_from_caps (GstCfLayout * layout, const GstCaps * caps);

/* Copy every plane of @in to @out (same layout) with the current backend:
 * what an identity setting does when input and output memories differ. */
GstFlowReturn gst_cf_base_transform_copy_planes (GstCfBaseTransform * self,
    const GstCfPlanes * in, const GstCfPlanes * out);

G_END_DECLS
#endif /* __GST_CF_BASE_TRANSFORM_H__ */
