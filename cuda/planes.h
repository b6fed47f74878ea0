/* gst-cudaflow — GPU twins of common/planes.h
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Same cf_channel description, but data points to device memory. The
 * results equal cf_channel_unpack / cf_channel_pack bit for bit.
 */
#ifndef CF_CUDA_PLANES_H
#define CF_CUDA_PLANES_H

#include "common/planes.h"
#include "cuda/cuda-util.h"

#ifdef __cplusplus
extern "C" {
#endif

cf_status cf_cuda_channel_unpack (const cf_channel * src, cf_cuda_image * dst,
    cudaStream_t stream);
cf_status cf_cuda_channel_pack (const cf_cuda_image * src, float offset,
    const cf_channel * dst, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_PLANES_H */
