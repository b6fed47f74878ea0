/* gst-cudaflow — cudaflowhs: dense Horn–Schunck optical flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_FLOW_HS_H__
#define __GST_CUDA_FLOW_HS_H__

#include "gstcfflowbase.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FLOW_HS (gst_cuda_flow_hs_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFlowHs, gst_cuda_flow_hs, GST, CUDA_FLOW_HS,
    GstCfFlowBase);

G_END_DECLS
#endif /* __GST_CUDA_FLOW_HS_H__ */
