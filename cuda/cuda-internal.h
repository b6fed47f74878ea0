/* gst-cudaflow — helpers for .cu files only (C++ / device code)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_CUDA_INTERNAL_H
#define CF_CUDA_INTERNAL_H

#include <cuda_runtime.h>

#include "cuda/cuda-util.h"

/* Run a CUDA call; on failure record it, set `status` and jump to `out`.
 * Every function that uses it declares `cf_status status = CF_OK;` and an
 * `out:` label where it releases what it acquired. */
#define CF_CUDA_TRY(expr)                                   \
  do {                                                      \
    cudaError_t cf_try_err_ = (expr);                       \
    if (cf_try_err_ != cudaSuccess) {                       \
      status = cf_cuda_check (cf_try_err_);                 \
      goto out;                                             \
    }                                                       \
  } while (0)

/* After every <<<...>>> launch: catches bad configurations at once. It
 * consumes the error state, so an earlier non-sticky failure (an
 * out-of-memory, say) is not reported again by every later launch. */
#define CF_CUDA_TRY_LAUNCH() CF_CUDA_TRY (cudaGetLastError ())

static inline int
cf_div_up (int n, int d)
{
  return (n + d - 1) / d;
}

#endif /* CF_CUDA_INTERNAL_H */
