/* gst-cudaflow — helpers shared by every element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CF_UTILS_H__
#define __GST_CF_UTILS_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "common/status.h"

G_BEGIN_DECLS

/**
 * GstCfBackend:
 * @GST_CF_BACKEND_AUTO: the GPU when a CUDA device is usable, else the CPU
 * @GST_CF_BACKEND_CUDA: the GPU; starting fails without a CUDA device
 * @GST_CF_BACKEND_CPU: the CPU reference implementation
 */
typedef enum
{
  GST_CF_BACKEND_AUTO = 0,
  GST_CF_BACKEND_CUDA = 1,
  GST_CF_BACKEND_CPU = 2
} GstCfBackend;

#define GST_TYPE_CF_BACKEND (gst_cf_backend_get_type ())
GType gst_cf_backend_get_type (void);

/* Caps of @caps once with and once without memory:CUDAMemory, the
 * @first_cuda variant first (negotiation prefers the earlier structure). */
GstCaps *gst_cf_caps_both_memories (const GstCaps * caps, gboolean first_cuda);
/* Drop every structure that carries memory:CUDAMemory; keep only those. */
GstCaps *gst_cf_caps_system_only (const GstCaps * caps);
GstCaps *gst_cf_caps_cuda_only (const GstCaps * caps);
gboolean gst_cf_caps_is_cuda (const GstCaps * caps);

/* Post a GST_ELEMENT_ERROR for a cf_status from common/ or cuda/: the
 * message is @what plus the user-facing detail (err or status name); the
 * debug string carries the status and last CUDA error name. Out of memory
 * on an element that runs on the GPU says the GPU's memory is exhausted and
 * what to change (smaller frames, fewer streams, backend=cpu); the debug
 * string adds the device's free and total memory. */
void gst_cf_post_status_error (GstElement * element, cf_status status,
    const cf_error * err, const gchar * what);

G_END_DECLS
#endif /* __GST_CF_UTILS_H__ */
