/* gst-cudaflow — the GPU flow engine: common/flow-engine.h over cuda/
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_CUDA_FLOW_ENGINE_H
#define CF_CUDA_FLOW_ENGINE_H

#include "common/flow-engine.h"
#include "cuda/cuda-util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU engine: pyramids (cf_cuda_pyramid), flow (cf_cuda_flow) and the
 * method's plan (cf_cuda_hs_plan, cf_cuda_clg_plan or cf_cuda_tvl1_plan,
 * made at the first solve) in device memory of the current CUDA context;
 * every call queues its work on @stream, which must outlive the engine.
 * With @with_range, also a device scratch for the min/max reduction, two
 * pinned floats and an event. Where it waits for the device: build_pyramid
 * with a range (an event, after queueing the pyramid), solve of TV-L1 with
 * want_iterations, motion, wait (the stream). Status as
 * cf_flow_engine_new_cpu, or CF_ERROR_CUDA (cf_cuda_last_error). */
cf_status cf_cuda_flow_engine_new (int width, int height,
    const cf_pyramid_params * pyramid, int with_range, cudaStream_t stream,
    cf_flow_engine ** engine);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_FLOW_ENGINE_H */
