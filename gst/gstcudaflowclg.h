/* gst-cudaflow — cudaflowclg: dense Combined Local-Global optical flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_FLOW_CLG_H__
#define __GST_CUDA_FLOW_CLG_H__

#include "gstcfflowbase.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FLOW_CLG (gst_cuda_flow_clg_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFlowClg, gst_cuda_flow_clg, GST, CUDA_FLOW_CLG,
    GstCfFlowBase);

G_END_DECLS
#endif /* __GST_CUDA_FLOW_CLG_H__ */
