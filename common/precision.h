/* gst-cudaflow — the precision of the iterative solvers' state
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_PRECISION_H
#define CF_PRECISION_H

#ifdef __cplusplus
extern "C" {
#endif

/* Storage and arithmetic of the iterative solvers' state on the GPU. fp16
 * keeps the state in half2 (u and v, or p components, of one pixel
 * together) with fp32 or half arithmetic as each solver documents;
 * pyramids and outputs stay fp32. The CPU reference always computes in
 * fp32: it is the oracle both precisions are measured against. */
typedef enum
{
  CF_PRECISION_FP32 = 0,
  CF_PRECISION_FP16
} cf_precision;

#ifdef __cplusplus
}
#endif
#endif /* CF_PRECISION_H */
