/* gst-cudaflow — median filter of a flow field on the GPU (twin of
 * common/median.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same filter as cf_flow_median, bit for bit: each component on its
 * own, a size x size window clipped to the image, values in IEEE 754 total
 * order (−0 before +0), the middle value of an odd count and the fp32 mean
 * (a + b) · 0.5 of the two middle values of an even one. The selection
 * itself is exact (comparisons only), so the GPU and the CPU agree on every
 * input, whatever order either works in.
 *
 * The weighted median (cf_flow_weighted_median) likewise: one thread per
 * pixel bisects its window's values with integer weight sums.
 */
#ifndef CF_CUDA_MEDIAN_H
#define CF_CUDA_MEDIAN_H

#include "common/median.h"
#include "cuda/flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* @dst = the size x size (3 or 5) median of @src, on @stream. Same sizes;
 * @dst must not overlap @src (the filter reads the neighbours of what it
 * writes). CF_ERROR_INVALID otherwise. Allocates nothing. */
cf_status cf_cuda_flow_median (const cf_cuda_flow * src, int size,
    cf_cuda_flow * dst, cudaStream_t stream);

/* @dst = the size x size (3, 5, 7 or 9) weighted median of @src guided by
 * @guide (same size), with the weights of @tables, on @stream: the bits of
 * cf_flow_weighted_median. @dst must not overlap @src. CF_ERROR_INVALID
 * otherwise. Allocates nothing. */
cf_status cf_cuda_flow_weighted_median (const cf_cuda_flow * src,
    const cf_cuda_image * guide, int size, const cf_wmedian_tables * tables,
    cf_cuda_flow * dst, cudaStream_t stream);

/* The weighted median kernel's blocks (cell staging and per-pixel
 * program) run one after another on the CPU over @src (host memory): the
 * test of their arithmetic and indexing without a GPU. Same arguments and rules as cf_flow_weighted_median
 * (overlap is not checked). */
cf_status cf_cuda_wmedian_emulate (const cf_flow * src,
    const cf_image * guide, int size, const cf_wmedian_tables * tables,
    cf_flow * dst);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_MEDIAN_H */
