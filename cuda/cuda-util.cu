/* gst-cudaflow — the CUDA layer's foundation: device checks, errors, images
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything runs in the caller's current context and on the caller's
 * stream; nothing here selects, synchronises or resets a device.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"

#include <string.h>

namespace {

/* the last failure this layer saw on the calling thread */
thread_local cudaError_t last_error = cudaSuccess;

/* 2-D launch shape of the fill kernel */
constexpr int FILL_BLOCK_X = 32;
constexpr int FILL_BLOCK_Y = 8;

/* A host plane of exactly width x height with a sane pitch. */
static int
host_plane_matches (const cf_image * img, int width, int height)
{
  return img != NULL && img->data != NULL && img->width == width
      && img->height == height && img->pitch >= (size_t) width;
}

/* A device plane with data, a positive size and a sane pitch. */
static int
device_plane_is_valid (const cf_cuda_image * img)
{
  return img != NULL && img->data != NULL && img->width > 0
      && img->height > 0 && img->pitch >= (size_t) img->width;
}

/**
 * \brief Set every sample of a pitched plane to one value.
 *
 * \param[out] data    the plane
 * \param[in]  pitch   elements between rows
 * \param[in]  width   samples per row
 * \param[in]  height  rows
 * \param[in]  value   what every sample becomes (NaN to poison outputs)
 */
__global__ static void
fill_kernel (float *data, size_t pitch, int width, int height, float value)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x < width && y < height)
    data[x + (size_t) y * pitch] = value;
}

}                               /* namespace */

extern "C" int
cf_cuda_device_available (void)
{
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);

  if (err != cudaSuccess) {
    /* no driver or no device: not sticky, but clear it all the same */
    cudaGetLastError ();
    return 0;
  }
  return count > 0;
}

extern "C" cudaError_t
cf_cuda_last_error (void)
{
  return last_error;
}

extern "C" const char *
cf_cuda_last_error_name (void)
{
  return cudaGetErrorName (last_error);
}

extern "C" cf_status
cf_cuda_check (cudaError_t err)
{
  if (err == cudaSuccess)
    return CF_OK;
  last_error = err;
  /* clear the runtime's error state (non-sticky errors only clear here) */
  cudaGetLastError ();
  switch (err) {
    case cudaErrorMemoryAllocation:
      return CF_ERROR_NO_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInvalidDevice:
      return CF_ERROR_NO_DEVICE;
    default:
      return CF_ERROR_CUDA;
  }
}

cf_status
cf_cuda_sm_count (int *n_sm)
{
  int dev = 0;
  cudaError_t err;

  *n_sm = 1;
  if ((err = cudaGetDevice (&dev)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute (n_sm, cudaDevAttrMultiProcessorCount,
              dev)) != cudaSuccess) {
    *n_sm = 1;
    return cf_cuda_check (err);
  }
  return CF_OK;
}

/* A kernel built with the library's nvcc flags, for the architecture of
 * the code the device runs for every kernel */
__global__ static void
cf_arch_probe_kernel (void)
{
}

/* Devices whose answer is known: 1 no, 2 yes */
#define CF_PDL_DEVICES 64
static int pdl_known[CF_PDL_DEVICES];

int
cf_cuda_pdl_supported (void)
{
  int dev = 0, major = 0, known = 0;
  cudaFuncAttributes attr;

  if (cudaGetDevice (&dev) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  if (dev >= 0 && dev < CF_PDL_DEVICES)
    known = __atomic_load_n (&pdl_known[dev], __ATOMIC_RELAXED);
  if (known != 0)
    return known == 2;
  if (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          dev) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  /* cf_pdl_wait and cf_pdl_launch_dependents are in device code generated
   * for compute capability 9.0 and later only. A build for older GPUs
   * alone (--with-cuda-arch=80) runs here from its PTX, compiled without
   * them: launched as a programmatic dependent, a kernel would start once
   * the blocks of the kernel before it have exited, with no guarantee
   * that their writes are visible (the wait gives that). */
  if (major >= 9) {
    if (cudaFuncGetAttributes (&attr, cf_arch_probe_kernel) != cudaSuccess) {
      (void) cudaGetLastError ();
      return 0;
    }
    major = attr.ptxVersion >= 90 ? major : 0;
  }
  /* threads that race here store the same answer */
  if (dev >= 0 && dev < CF_PDL_DEVICES)
    __atomic_store_n (&pdl_known[dev], major >= 9 ? 2 : 1, __ATOMIC_RELAXED);
  return major >= 9;
}

extern "C" int
cf_cuda_image_is_valid (const cf_cuda_image * img)
{
  return img != NULL && img->data != NULL && img->width > 0 &&
      img->height > 0 && img->pitch >= (size_t) img->width;
}

extern "C" cf_status
cf_cuda_image_alloc (cf_cuda_image * img, int width, int height)
{
  cf_status status = CF_OK;
  size_t pitch = 0;
  void *data = NULL;

  if (img == NULL)
    return CF_ERROR_INVALID;
  memset (img, 0, sizeof (*img));
  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION
      || height > CF_MAX_DIMENSION)
    return CF_ERROR_INVALID;
  CF_CUDA_TRY (cudaMallocPitch (&data, &pitch,
          (size_t) width * sizeof (float), (size_t) height));
  img->data = (float *) data;
  img->width = width;
  img->height = height;
  img->pitch = pitch / sizeof (float);
out:
  return status;
}

extern "C" void
cf_cuda_image_release (cf_cuda_image * img)
{
  if (img == NULL)
    return;
  if (img->data != NULL)
    cf_cuda_check (cudaFree (img->data));
  memset (img, 0, sizeof (*img));
}

extern "C" cf_status
cf_cuda_image_upload (const cf_image * src, cf_cuda_image * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!device_plane_is_valid (dst)
      || !host_plane_matches (src, dst->width, dst->height))
    return CF_ERROR_INVALID;
  CF_CUDA_TRY (cudaMemcpy2DAsync (dst->data, dst->pitch * sizeof (float),
          src->data, src->pitch * sizeof (float),
          (size_t) src->width * sizeof (float), (size_t) src->height,
          cudaMemcpyHostToDevice, stream));
out:
  return status;
}

extern "C" cf_status
cf_cuda_image_download (const cf_cuda_image * src, cf_image * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!device_plane_is_valid (src)
      || !host_plane_matches (dst, src->width, src->height))
    return CF_ERROR_INVALID;
  CF_CUDA_TRY (cudaMemcpy2DAsync (dst->data, dst->pitch * sizeof (float),
          src->data, src->pitch * sizeof (float),
          (size_t) src->width * sizeof (float), (size_t) src->height,
          cudaMemcpyDeviceToHost, stream));
out:
  return status;
}

extern "C" cf_status
cf_cuda_image_fill (cf_cuda_image * img, float value, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 block (FILL_BLOCK_X, FILL_BLOCK_Y);
  dim3 grid;

  if (!device_plane_is_valid (img))
    return CF_ERROR_INVALID;
  grid = dim3 (cf_div_up (img->width, FILL_BLOCK_X),
      cf_div_up (img->height, FILL_BLOCK_Y));
  fill_kernel <<< grid, block, 0, stream >>> (img->data, img->pitch,
      img->width, img->height, value);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}
