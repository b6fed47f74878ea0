/* gst-cudaflow — cudaflowtvl1: dense TV-L1 optical flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_FLOW_TVL1_H__
#define __GST_CUDA_FLOW_TVL1_H__

#include "gstcfflowbase.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FLOW_TVL1 (gst_cuda_flow_tvl1_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFlowTvl1, gst_cuda_flow_tvl1, GST, CUDA_FLOW_TVL1,
    GstCfFlowBase);

G_END_DECLS
#endif /* __GST_CUDA_FLOW_TVL1_H__ */
