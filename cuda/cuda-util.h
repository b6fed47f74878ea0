/* gst-cudaflow — the CUDA layer's foundation: device checks, errors, images
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C header (no device code). Every call runs on a caller-given stream
 * in whatever CUDA context is current on the calling thread (gst/ pushes the
 * GstCudaContext first); nothing here selects a device, synchronises the
 * device, or exits.
 */
#ifndef CF_CUDA_UTIL_H
#define CF_CUDA_UTIL_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "common/image.h"
#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when at least one CUDA device can be used from this process (driver
 * present, device count > 0). Safe to call without a GPU. */
int cf_cuda_device_available (void);

/* The last CUDA error recorded by this layer on the calling thread, and its
 * name ("cudaErrorMemoryAllocation"); cudaSuccess when none. */
cudaError_t cf_cuda_last_error (void);
const char *cf_cuda_last_error_name (void);
/* Record err (if it is an error) and map it to a status. */
cf_status cf_cuda_check (cudaError_t err);

/* The SMs of the current device (the caller's context decides which),
 * for the plans that size their grids by them; *n_sm = 1 on error. */
cf_status cf_cuda_sm_count (int *n_sm);

/* 1 when the current device has programmatic dependent launch (compute
 * capability 9.0 and later; cuda/cuda-internal.h) and the library's
 * kernels were built for it (a build for older GPUs only runs there
 * without the kernels' waits), else 0. */
int cf_cuda_pdl_supported (void);

/* A pitched float plane in device memory; pitch in elements. */
typedef struct
{
  float *data;
  int width;
  int height;
  size_t pitch;
} cf_cuda_image;

/* 1 when @img is non-NULL with data, a positive size and pitch >= width:
 * the argument check of every kernel wrapper. */
int cf_cuda_image_is_valid (const cf_cuda_image * img);

/* Allocate (cudaMallocPitch); on failure img is zeroed and the status is
 * CF_ERROR_NO_MEMORY or CF_ERROR_CUDA. */
cf_status cf_cuda_image_alloc (cf_cuda_image * img, int width, int height);
/* Free and zero; a zeroed image is a no-op. */
void cf_cuda_image_release (cf_cuda_image * img);

/* Host <-> device copies of whole planes (sizes must match), async on
 * stream; the host side must stay valid until the stream is synchronised. */
cf_status cf_cuda_image_upload (const cf_image * src, cf_cuda_image * dst,
    cudaStream_t stream);
cf_status cf_cuda_image_download (const cf_cuda_image * src, cf_image * dst,
    cudaStream_t stream);

/* Fill a device plane with a value (tests poison outputs with NaN). */
cf_status cf_cuda_image_fill (cf_cuda_image * img, float value,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_UTIL_H */
