/* gst-cudaflow — flow fields in device memory
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A cf_cuda_flow is one cudaMallocPitch block of 2 * height rows: u in the
 * first height rows, v in the next, so both planes share one pitch and one
 * free. Views (cf_cuda_flow_view) alias that block and are never released.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/flow.h"
#include "cuda/cuda-internal.h"

#include <string.h>

/* 2-D launch shape of every kernel in this file */
static const int FLOW_BLOCK_X = 32;
static const int FLOW_BLOCK_Y = 8;

static dim3
flow_grid (int width, int height)
{
  return dim3 (cf_div_up (width, FLOW_BLOCK_X),
      cf_div_up (height, FLOW_BLOCK_Y));
}

extern "C" int
cf_cuda_flow_is_valid (const cf_cuda_flow * flow)
{
  return flow != NULL && flow->u != NULL && flow->v != NULL &&
      flow->width > 0 && flow->height > 0 &&
      flow->pitch >= (size_t) flow->width;
}

extern "C" cf_status
cf_cuda_flow_copy (const cf_cuda_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  size_t row = (size_t) src->width * sizeof (float);

  CF_CUDA_TRY (cudaMemcpy2DAsync (dst->u, dst->pitch * sizeof (float), src->u,
          src->pitch * sizeof (float), row, (size_t) src->height,
          cudaMemcpyDeviceToDevice, stream));
  CF_CUDA_TRY (cudaMemcpy2DAsync (dst->v, dst->pitch * sizeof (float), src->v,
          src->pitch * sizeof (float), row, (size_t) src->height,
          cudaMemcpyDeviceToDevice, stream));
out:
  return status;
}

extern "C" cf_status
cf_cuda_flow_alloc (cf_cuda_flow * flow, int width, int height)
{
  cf_status status = CF_OK;
  size_t pitch = 0;
  void *data = NULL;

  if (flow == NULL)
    return CF_ERROR_INVALID;
  memset (flow, 0, sizeof (*flow));
  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION ||
      height > CF_MAX_DIMENSION)
    return CF_ERROR_INVALID;
  CF_CUDA_TRY (cudaMallocPitch (&data, &pitch, (size_t) width * sizeof (float),
          2 * (size_t) height));
  flow->pitch = pitch / sizeof (float);
  flow->u = (float *) data;
  flow->v = flow->u + (size_t) height * flow->pitch;
  flow->width = width;
  flow->height = height;
out:
  return status;
}

extern "C" void
cf_cuda_flow_release (cf_cuda_flow * flow)
{
  if (flow == NULL)
    return;
  if (flow->u != NULL)
    cf_cuda_check (cudaFree (flow->u));
  memset (flow, 0, sizeof (*flow));
}

/** \brief u(x, y) = fu, v(x, y) = fv over width x height.
 *  \param[out] u, v   planes of @pitch elements per row
 *  \param fu, fv      the values written */
__global__ static void
flow_fill_kernel (float *u, float *v, size_t pitch, int width, int height,
    float fu, float fv)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;

  /* a programmatic dependent (cf_cuda_launch): the kernel before may
   * still read the planes */
  cf_pdl_launch_dependents ();
  cf_pdl_wait ();
  if (x < width && y < height) {
    u[x + (size_t) y * pitch] = fu;
    v[x + (size_t) y * pitch] = fv;
  }
}

extern "C" cf_status
cf_cuda_flow_fill (cf_cuda_flow * flow, float u, float v, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_flow_is_valid (flow))
    return CF_ERROR_INVALID;
  CF_CUDA_TRY (cf_cuda_launch (flow_fill_kernel, flow_grid (flow->width,
              flow->height), dim3 (FLOW_BLOCK_X, FLOW_BLOCK_Y), 0, stream,
          cf_cuda_pdl_supported (), flow->u, flow->v, flow->pitch,
          flow->width, flow->height, u, v));
out:
  return status;
}

extern "C" cf_cuda_flow
cf_cuda_flow_view (const cf_cuda_flow * flow, int width, int height)
{
  cf_cuda_flow view = *flow;

  view.width = width;
  view.height = height;
  return view;
}

/** \brief Planar -> interleaved: row y of @uv (@stride bytes apart) gets
 *  u0 v0 u1 v1 ... (twin of cf_flow_to_interleaved), two pixels per
 *  thread: one 16-byte store where the row keeps it aligned, else four
 *  float stores (the caller's stride need only keep floats aligned). */
__global__ static void
flow_to_interleaved_kernel (const float *u, const float *v, size_t pitch,
    int width, int height, float *uv, size_t stride)
{
  const int x0 = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  /* a programmatic dependent: the flow is the kernel before's output,
   * read through L2 */
  cf_pdl_launch_dependents ();
  cf_pdl_wait ();
  if (x0 < width && y < height) {
    const float *pu = u + x0 + (size_t) y * pitch;
    const float *pv = v + x0 + (size_t) y * pitch;
    float *out = (float *) ((char *) uv + (size_t) y * stride) + 2 * x0;

    if (x0 + 1 < width && (size_t) out % sizeof (float4) == 0 &&
        (size_t) pu % sizeof (float2) == 0 &&
        (size_t) pv % sizeof (float2) == 0) {
      const float2 a = __ldcg (reinterpret_cast < const float2 *>(pu));
      const float2 b = __ldcg (reinterpret_cast < const float2 *>(pv));

      *reinterpret_cast < float4 * >(out) = make_float4 (a.x, b.x, a.y, b.y);
    } else {
      for (int k = 0; k < 2 && x0 + k < width; k++) {
        out[2 * k] = __ldcg (pu + k);
        out[2 * k + 1] = __ldcg (pv + k);
      }
    }
  }
}

/** \brief Interleaved -> planar (twin of cf_flow_from_interleaved). */
__global__ static void
flow_from_interleaved_kernel (const float *uv, size_t stride, int width,
    int height, float *u, float *v, size_t pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x < width && y < height) {
    const float *row = (const float *) ((const char *) uv +
        (size_t) y * stride);
    u[x + (size_t) y * pitch] = row[2 * (size_t) x];
    v[x + (size_t) y * pitch] = row[2 * (size_t) x + 1];
  }
}

/* Rows of interleaved floats must hold 2 * width floats and keep floats
 * aligned. */
static int
stride_is_valid (const void *uv, size_t stride, int width)
{
  return uv != NULL && stride >= 2 * (size_t) width * sizeof (float) &&
      stride % sizeof (float) == 0 &&
      ((size_t) uv) % sizeof (float) == 0;
}

extern "C" cf_status
cf_cuda_flow_to_interleaved (const cf_cuda_flow * flow, float *uv,
    size_t stride, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_flow_is_valid (flow) ||
      !stride_is_valid (uv, stride, flow->width))
    return CF_ERROR_INVALID;
  CF_CUDA_TRY (cf_cuda_launch (flow_to_interleaved_kernel,
          flow_grid (cf_div_up (flow->width, 2), flow->height),
          dim3 (FLOW_BLOCK_X,
              FLOW_BLOCK_Y), 0, stream, cf_cuda_pdl_supported (),
          (const float *) flow->u, (const float *) flow->v, flow->pitch,
          flow->width, flow->height, uv, stride));
out:
  return status;
}

extern "C" cf_status
cf_cuda_flow_from_interleaved (cf_cuda_flow * flow, const float *uv,
    size_t stride, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_flow_is_valid (flow) ||
      !stride_is_valid (uv, stride, flow->width))
    return CF_ERROR_INVALID;
  flow_from_interleaved_kernel <<< flow_grid (flow->width, flow->height),
      dim3 (FLOW_BLOCK_X, FLOW_BLOCK_Y), 0, stream >>> (uv, stride,
      flow->width, flow->height, flow->u, flow->v, flow->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_flow_upload (const cf_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  size_t row;

  if (src == NULL || src->u == NULL || src->v == NULL ||
      !cf_cuda_flow_is_valid (dst) || src->width != dst->width ||
      src->height != dst->height)
    return CF_ERROR_INVALID;
  row = (size_t) src->width * sizeof (float);
  CF_CUDA_TRY (cudaMemcpy2DAsync (dst->u, dst->pitch * sizeof (float), src->u,
          src->pitch * sizeof (float), row, (size_t) src->height,
          cudaMemcpyHostToDevice, stream));
  CF_CUDA_TRY (cudaMemcpy2DAsync (dst->v, dst->pitch * sizeof (float), src->v,
          src->pitch * sizeof (float), row, (size_t) src->height,
          cudaMemcpyHostToDevice, stream));
out:
  return status;
}

extern "C" cf_status
cf_cuda_flow_download (const cf_cuda_flow * src, cf_flow * dst,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  size_t row;

  if (!cf_cuda_flow_is_valid (src) || dst == NULL || dst->u == NULL ||
      dst->v == NULL || src->width != dst->width || src->height != dst->height)
    return CF_ERROR_INVALID;
  row = (size_t) src->width * sizeof (float);
  CF_CUDA_TRY (cudaMemcpy2DAsync (dst->u, dst->pitch * sizeof (float), src->u,
          src->pitch * sizeof (float), row, (size_t) src->height,
          cudaMemcpyDeviceToHost, stream));
  CF_CUDA_TRY (cudaMemcpy2DAsync (dst->v, dst->pitch * sizeof (float), src->v,
          src->pitch * sizeof (float), row, (size_t) src->height,
          cudaMemcpyDeviceToHost, stream));
out:
  return status;
}
