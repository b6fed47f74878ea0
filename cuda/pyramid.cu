/* gst-cudaflow — image pyramids on the GPU (twins of common/pyramid.c)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Same level sizes (cf_pyramid_level_size), same Gaussian (cf_gaussian_taps
 * with radius ceil(4 sigma) capped at 255), same reflecting border
 * (cf_border_fold, half-sample symmetric), same clamped bicubic sampling at
 * (x / eta, y / eta) (cf_cuda_bicubic_downscale, cuda/warp.cu). The blur
 * sums taps k = -r..r in order with __fmul_rn / __fadd_rn, as the CPU loop
 * does without FMA contraction, so the planes agree bit for bit on x86-64.
 *
 * At eta 0.5 a level is one launch (blur_halve_kernel): the coarse grid
 * samples the blurred plane exactly at every second pixel, so the blur is
 * summed only there, with the same bits.
 *
 * The taps of the two sigmas a pyramid uses are uploaded once, by its
 * first build, on the build's stream (a pageable cudaMemcpyAsync: no
 * allocation, no synchronisation); later builds upload again only when
 * the caller changes a sigma.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/pyramid.h"
#include "cuda/cuda-internal.h"
#include "cuda/warp.h"

#include <math.h>
#include <string.h>

#include <type_traits>

#include "common/border.h"
#include "common/gaussian.h"

/* Longest Gaussian, as common/pyramid.c: radius 4 sigma, capped. */
#define CUDA_MAX_BLUR_RADIUS 255
#define CUDA_MAX_BLUR_TAPS (2 * CUDA_MAX_BLUR_RADIUS + 1)

/* 2-D launch shape of the blur passes */
#define BLUR_BLOCK_X 32
#define BLUR_BLOCK_Y 8
#define BLUR_THREADS (BLUR_BLOCK_X * BLUR_BLOCK_Y)

/* Tap sets in cf_cuda_pyramid.taps */
enum
{
  TAPS_PRESMOOTH = 0,
  TAPS_DOWNSAMPLE = 1
};

/** \brief One separable pass of a (2 radius + 1)-tap Gaussian along x
 *  (HORIZONTAL) or y, reflecting border; twin of blur_pass () in
 *  common/pyramid.c. One output pixel per thread.
 *  \param[in] src     plane of @src_pitch elements per row
 *  \param[in] taps    2 radius + 1 device taps, centre at taps[radius]
 *  \param radius      0 .. CUDA_MAX_BLUR_RADIUS
 *  \param[out] dst    plane of @dst_pitch elements per row (not src) */
template < bool HORIZONTAL, int R > __global__ static void
blur_pass_kernel (const float *__restrict__ src, size_t src_pitch, int width,
    int height, const float *__restrict__ taps, int radius_arg,
    float *__restrict__ dst, size_t dst_pitch)
{
  __shared__ float s_taps[CUDA_MAX_BLUR_TAPS];
  /* R > 0: the radius is known here, the loops unroll and every load is
   * issued before the sums need them (the sums keep their order) */
  const int radius = R > 0 ? R : radius_arg;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int tid = threadIdx.x + threadIdx.y * blockDim.x;
  float sum = 0.0f;

  for (int i = tid; i <= 2 * radius; i += blockDim.x * blockDim.y)
    s_taps[i] = taps[i];
  __syncthreads ();
  if (x >= width || y >= height)
    return;

  if (HORIZONTAL) {
    const float *row = src + (size_t) y * src_pitch;
    if (x - radius >= 0 && x + radius < width) {
#pragma unroll
      for (int k = -radius; k <= radius; k++)
        sum = __fadd_rn (sum, __fmul_rn (s_taps[k + radius], row[x + k]));
    } else {
#pragma unroll
      for (int k = -radius; k <= radius; k++) {
        int sx = cf_border_fold (x + k, width, CF_BORDER_REFLECT);
        sum = __fadd_rn (sum, __fmul_rn (s_taps[k + radius], row[sx]));
      }
    }
  } else {
    const float *col = src + x;
    if (y - radius >= 0 && y + radius < height) {
#pragma unroll
      for (int k = -radius; k <= radius; k++)
        sum = __fadd_rn (sum, __fmul_rn (s_taps[k + radius],
                col[(size_t) (y + k) * src_pitch]));
    } else {
#pragma unroll
      for (int k = -radius; k <= radius; k++) {
        int sy = cf_border_fold (y + k, height, CF_BORDER_REFLECT);
        sum = __fadd_rn (sum, __fmul_rn (s_taps[k + radius],
                col[(size_t) sy * src_pitch]));
      }
    }
  }
  dst[x + (size_t) y * dst_pitch] = sum;
}

/* The start of a one-launch blur, a programmatic dependent of the
 * pyramid's chain: the kernel before wrote the source (read it through L2
 * after this), the taps are older. */
template < int R > static __device__ __forceinline__ void
blur_chain_start (const float *__restrict__ taps, float (&tap)[2 * R + 1])
{
  cf_pdl_launch_dependents ();
  cf_pdl_wait ();
#pragma unroll
  for (int k = 0; k <= 2 * R; k++)
    tap[k] = __ldg (taps + k);
}

/* Output tile of blur_2d_kernel (its block is BLUR_BLOCK_X x BLUR_BLOCK_Y
 * threads) and the outputs one thread sums per pass: BLUR_RUN_X adjacent
 * ones of a row in the horizontal pass, BLUR_RUN_Y of a column in the
 * vertical one, from values held in registers (each window value is read
 * from shared memory once per run, not once per tap). */
#define BLUR_TILE_X 32
#define BLUR_TILE_Y 32
#define BLUR_RUN_X 8
#define BLUR_RUN_Y (BLUR_TILE_Y / BLUR_BLOCK_Y)

/** \brief Both passes of a (2 R + 1)-tap Gaussian in one kernel, the same
 *  bits as blur_pass_kernel's two: the block loads its source window
 *  (tile plus R on every side, coordinates folded as the passes fold
 *  them) into shared memory, sums the horizontal pass over the window's
 *  rows into a second shared array, then the vertical pass from there,
 *  each sum in the passes' tap order. The intermediate plane never goes
 *  through global memory. @dst must not be @src (blocks read each other's
 *  windows). */
template < int R > __global__ static void
__launch_bounds__ (BLUR_BLOCK_X * BLUR_BLOCK_Y)
blur_2d_kernel (const float *__restrict__ src, size_t src_pitch, int width,
    int height, const float *__restrict__ taps, float *__restrict__ dst,
    size_t dst_pitch)
{
  /* window row stride odd: the horizontal runs of 8 rows x 4 runs in a
   * warp start in 32 different banks */
  const int WX = BLUR_TILE_X + 2 * R, WY = BLUR_TILE_Y + 2 * R;
  const int RUNS = BLUR_TILE_X / BLUR_RUN_X;
  __shared__ float win[BLUR_TILE_Y + 2 * R][BLUR_TILE_X + 2 * R + 1];
  __shared__ float hor[BLUR_TILE_Y + 2 * R][BLUR_TILE_X];
  const int x0 = blockIdx.x * BLUR_TILE_X, y0 = blockIdx.y * BLUR_TILE_Y;
  const int tid = threadIdx.x + threadIdx.y * blockDim.x;
  const int nt = blockDim.x * blockDim.y;
  float tap[2 * R + 1];
  int i, k;

  blur_chain_start < R > (taps, tap);
  {
    /* every load of the thread in flight at once, then the stores: the
     * window is the previous kernel's output, an L2 round trip each */
    const int PER = (WX * WY + BLUR_THREADS - 1) / BLUR_THREADS;
    float s[PER];

#pragma unroll
    for (k = 0; k < PER; k++) {
      i = tid + k * BLUR_THREADS;
      if (i < WX * WY)
        s[k] = __ldcg (src + cf_border_fold (x0 - R + i % WX, width,
                CF_BORDER_REFLECT) + src_pitch * (size_t) cf_border_fold (y0 -
                R + i / WX, height, CF_BORDER_REFLECT));
    }
#pragma unroll
    for (k = 0; k < PER; k++) {
      i = tid + k * BLUR_THREADS;
      if (i < WX * WY)
        win[i / WX][i % WX] = s[k];
    }
  }
  __syncthreads ();

  /* horizontal: window row j is source row fold (y0 − R + j); a run is
   * columns c0 .. c0 + 7 of one row */
  for (i = tid; i < (WY + 7) / 8 * 8 * RUNS; i += nt) {
    const int j = i % 8 + i / (8 * RUNS) * 8, c0 = i / 8 % RUNS * BLUR_RUN_X;
    float v[BLUR_RUN_X + 2 * R];

    if (j >= WY)
      continue;
#pragma unroll
    for (k = 0; k < BLUR_RUN_X + 2 * R; k++)
      v[k] = win[j][c0 + k];
#pragma unroll
    for (int c = 0; c < BLUR_RUN_X; c++) {
      float sum = 0.0f;
#pragma unroll
      for (k = 0; k <= 2 * R; k++)
        sum = __fadd_rn (sum, __fmul_rn (tap[k], v[c + k]));
      hor[j][c0 + c] = sum;
    }
  }
  __syncthreads ();

  /* vertical: rows r0 .. r0 + BLUR_RUN_Y − 1 of column threadIdx.x */
  {
    const int x = x0 + threadIdx.x, r0 = threadIdx.y * BLUR_RUN_Y;
    float v[BLUR_RUN_Y + 2 * R];

    if (x >= width)
      return;
#pragma unroll
    for (k = 0; k < BLUR_RUN_Y + 2 * R; k++)
      v[k] = hor[r0 + k][threadIdx.x];
#pragma unroll
    for (int r = 0; r < BLUR_RUN_Y; r++) {
      float sum = 0.0f;

      if (y0 + r0 + r >= height)
        break;
#pragma unroll
      for (k = 0; k <= 2 * R; k++)
        sum = __fadd_rn (sum, __fmul_rn (tap[k], v[r + k]));
      dst[x + (size_t) (y0 + r0 + r) * dst_pitch] = sum;
    }
  }
}

/* Output tile of blur_halve_kernel in coarse pixels (its block is
 * BLUR_BLOCK_X x BLUR_BLOCK_Y threads): 64 x 32 fine pixels. */
#define HALVE_TILE_X 32
#define HALVE_TILE_Y 16

/** \brief One pyramid step at eta = 0.5 in one kernel, the same bits as
 *  blur_2d_kernel followed by bicubic_downscale_kernel. At eta = 0.5
 *  coarse pixel (x, y) samples the blurred plane exactly at fine pixel
 *  (2x, 2y), where Keys' cell (fraction 0) returns the sample itself; so
 *  only the blurred values at even columns and rows are summed, a
 *  quarter of the vertical pass and half of the horizontal one, each in
 *  the passes' tap order, and neither the blurred plane nor a second
 *  launch is needed. The block keeps its source window as two arrays,
 *  even and odd columns, so that the lanes of a warp (one output column
 *  each, two fine columns apart) read consecutive words.
 *  \param[out] dst  the coarse level, (width + 1) / 2 x (height + 1) / 2
 *  at most */
template < int R > __global__ static void
__launch_bounds__ (BLUR_BLOCK_X * BLUR_BLOCK_Y)
blur_halve_kernel (const float *__restrict__ src, size_t src_pitch, int width,
    int height, const float *__restrict__ taps, float *__restrict__ dst,
    size_t dst_pitch, int dst_width, int dst_height)
{
  /* window: the fine pixels 2 x0 - R .. 2 (x0 + HALVE_TILE_X - 1) + R of
   * the tile's first coarse column x0, rows alike */
  const int WX = 2 * HALVE_TILE_X - 1 + 2 * R;
  const int WY = 2 * HALVE_TILE_Y - 1 + 2 * R;
  __shared__ float even[WY][(WX + 1) / 2];
  __shared__ float odd[WY][WX / 2];
  __shared__ float hor[WY][HALVE_TILE_X];
  const int x0 = blockIdx.x * HALVE_TILE_X, y0 = blockIdx.y * HALVE_TILE_Y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  float tap[2 * R + 1];
  int j, k;

  blur_chain_start < R > (taps, tap);
  {
    /* every load of the thread in flight at once, then the stores: the
     * window is the previous kernel's output, an L2 round trip each */
    const int ROWS = (WY + BLUR_BLOCK_Y - 1) / BLUR_BLOCK_Y;
    const int COLS = (WX + BLUR_BLOCK_X - 1) / BLUR_BLOCK_X;
    float s[ROWS][COLS];

#pragma unroll
    for (int q = 0; q < ROWS; q++) {
      const float *row = src + src_pitch * (size_t) cf_border_fold (2 * y0 -
          R + ty + q * BLUR_BLOCK_Y, height, CF_BORDER_REFLECT);
#pragma unroll
      for (int c = 0; c < COLS; c++) {
        const int i = tx + c * BLUR_BLOCK_X;
        if (ty + q * BLUR_BLOCK_Y < WY && i < WX)
          s[q][c] = __ldcg (row + cf_border_fold (2 * x0 - R + i, width,
                  CF_BORDER_REFLECT));
      }
    }
#pragma unroll
    for (int q = 0; q < ROWS; q++) {
#pragma unroll
      for (int c = 0; c < COLS; c++) {
        const int i = tx + c * BLUR_BLOCK_X;
        if (ty + q * BLUR_BLOCK_Y >= WY || i >= WX)
          continue;
        if (i & 1)
          odd[ty + q * BLUR_BLOCK_Y][i >> 1] = s[q][c];
        else
          even[ty + q * BLUR_BLOCK_Y][i >> 1] = s[q][c];
      }
    }
  }
  __syncthreads ();

  /* horizontal, at fine column 2 (x0 + tx) of every window row: taps k
   * over window columns 2 tx + k */
  for (j = ty; j < WY; j += BLUR_BLOCK_Y) {
    float sum = 0.0f;
#pragma unroll
    for (k = 0; k <= 2 * R; k++)
      sum = __fadd_rn (sum, __fmul_rn (tap[k],
              (k & 1) ? odd[j][tx + (k >> 1)] : even[j][tx + (k >> 1)]));
    hor[j][tx] = sum;
  }
  __syncthreads ();

  /* vertical, at fine row 2 (y0 + r): taps k over window rows 2 r + k */
  if (x0 + tx >= dst_width)
    return;
  for (int r = ty; r < HALVE_TILE_Y && y0 + r < dst_height;
      r += BLUR_BLOCK_Y) {
    float sum = 0.0f;
#pragma unroll
    for (k = 0; k <= 2 * R; k++)
      sum = __fadd_rn (sum, __fmul_rn (tap[k], hor[2 * r + k][tx]));
    dst[x0 + tx + (size_t) (y0 + r) * dst_pitch] = sum;
  }
}

static int
params_valid (const cf_pyramid_params * params)
{
  return params != NULL && params->eta > 0.0f && params->eta < 1.0f &&
      params->max_levels >= 1 && params->min_size >= 1 &&
      params->presmooth_sigma >= 0.0f;
}

/* radius of common/pyramid.c cf_gaussian_blur */
static int
blur_radius (float sigma)
{
  int radius = (int) ceilf (4.0f * sigma);
  return radius > CUDA_MAX_BLUR_RADIUS ? CUDA_MAX_BLUR_RADIUS : radius;
}

/* sigma of the anti-alias filter for a step of eta (common/pyramid.c) */
static float
downsample_sigma (float eta)
{
  return 0.6f * sqrtf (1.0f / (eta * eta) - 1.0f);
}

/* Copy the taps of sigma into device_taps (>= 2 radius + 1 floats). The
 * host array is pageable: cudaMemcpyAsync returns once it has been staged,
 * so it may live on the stack. */
static cf_status
upload_taps (float sigma, int radius, float *device_taps, cudaStream_t stream)
{
  cf_status status;
  float taps[CUDA_MAX_BLUR_TAPS];

  status = cf_gaussian_taps (sigma, radius, taps);
  if (status != CF_OK)
    return status;
  CF_CUDA_TRY (cudaMemcpyAsync (device_taps, taps,
          (size_t) (2 * radius + 1) * sizeof (float), cudaMemcpyHostToDevice,
          stream));
out:
  return status;
}

/* Calls @launch with std::integral_constant<int, R> for R = @radius when
 * the blur kernels are built for it (1..8: the pyramids' σ <= 2); false
 * otherwise. */
template < typename F > static bool
with_built_radius (int radius, F launch)
{
  switch (radius) {
    case 1: launch (std::integral_constant < int, 1 > ()); return true;
    case 2: launch (std::integral_constant < int, 2 > ()); return true;
    case 3: launch (std::integral_constant < int, 3 > ()); return true;
    case 4: launch (std::integral_constant < int, 4 > ()); return true;
    case 5: launch (std::integral_constant < int, 5 > ()); return true;
    case 6: launch (std::integral_constant < int, 6 > ()); return true;
    case 7: launch (std::integral_constant < int, 7 > ()); return true;
    case 8: launch (std::integral_constant < int, 8 > ()); return true;
    default: return false;
  }
}

/* One pass: a kernel built for the radius where there is one, longer
 * ones by the generic loop. */
template < bool HORIZONTAL > static void
blur_pass (const cf_cuda_image * src, const float *device_taps, int radius,
    cf_cuda_image * dst, cudaStream_t stream)
{
  dim3 block (BLUR_BLOCK_X, BLUR_BLOCK_Y);
  dim3 grid (cf_div_up (src->width, BLUR_BLOCK_X),
      cf_div_up (src->height, BLUR_BLOCK_Y));

  if (!with_built_radius (radius, [&] (auto r) {
            blur_pass_kernel < HORIZONTAL, decltype (r)::value > <<< grid,
                block, 0, stream >>> (src->data, src->pitch, src->width,
                src->height, device_taps, radius, dst->data, dst->pitch);}))
    blur_pass_kernel < HORIZONTAL, 0 > <<< grid, block, 0, stream >>>
        (src->data, src->pitch, src->width, src->height, device_taps,
        radius, dst->data, dst->pitch);
}

/* Both passes in one launch (blur_2d_kernel, a programmatic dependent of
 * the kernel before) for radii up to 8 when @dst is not @src, its launch
 * error in @err; 0 when the radius or the aliasing needs the two passes. */
static int
blur_2d (const cf_cuda_image * src, const float *device_taps, int radius,
    cf_cuda_image * dst, cudaError_t * err, cudaStream_t stream)
{
  dim3 block (BLUR_BLOCK_X, BLUR_BLOCK_Y);
  dim3 grid (cf_div_up (src->width, BLUR_TILE_X),
      cf_div_up (src->height, BLUR_TILE_Y));

  if (dst->data == src->data)
    return 0;
  return with_built_radius (radius, [&] (auto r) {
        *err = cf_cuda_launch (blur_2d_kernel < decltype (r)::value >, grid,
            block, 0, stream, cf_cuda_pdl_supported (),
            (const float *) src->data, src->pitch, src->width, src->height,
            device_taps, dst->data, dst->pitch);});
}

/* Both passes with taps already on the device (@tmp unused when one
 * launch does both). */
static cf_status
blur_with_taps (const cf_cuda_image * src, const float *device_taps,
    int radius, cf_cuda_image * tmp, cf_cuda_image * dst, cudaStream_t stream)
{
  cf_status status = CF_OK;
  cudaError_t err = cudaSuccess;

  if (blur_2d (src, device_taps, radius, dst, &err, stream)) {
    CF_CUDA_TRY (err);
    goto out;
  }
  blur_pass < true > (src, device_taps, radius, tmp, stream);
  CF_CUDA_TRY_LAUNCH ();
  blur_pass < false > (tmp, device_taps, radius, dst, stream);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* @coarse from @fine: the anti-alias blur (taps on the device; @tmp and
 * @blurred scratch planes of @fine's size), then the bicubic sampling at
 * (x / eta, y / eta); one launch of blur_halve_kernel where that sampling
 * lands on every second pixel (eta 0.5, the coarse plane no larger than
 * half the fine one, rounded up) and the radius has a built kernel. */
static cf_status
downsample (const cf_cuda_image * fine, float eta, const float *device_taps,
    int radius, cf_cuda_image * tmp, cf_cuda_image * blurred,
    cf_cuda_image * coarse, cudaStream_t stream)
{
  cf_status status = CF_OK;
  cudaError_t err = cudaSuccess;
  const dim3 grid (cf_div_up (coarse->width, HALVE_TILE_X),
      cf_div_up (coarse->height, HALVE_TILE_Y));

  if (eta == 0.5f && 2 * coarse->width - 1 <= fine->width &&
      2 * coarse->height - 1 <= fine->height &&
      with_built_radius (radius, [&] (auto r) {
            err = cf_cuda_launch (blur_halve_kernel < decltype (r)::value >,
                grid, dim3 (BLUR_BLOCK_X, BLUR_BLOCK_Y), 0, stream,
                cf_cuda_pdl_supported (), (const float *) fine->data,
                fine->pitch, fine->width, fine->height, device_taps,
                coarse->data, coarse->pitch, coarse->width,
                coarse->height);})) {
    CF_CUDA_TRY (err);
    goto out;
  }
  status = blur_with_taps (fine, device_taps, radius, tmp, blurred, stream);
  if (status == CF_OK)
    status = cf_cuda_bicubic_downscale (blurred, eta, coarse, stream);
out:
  return status;
}

static int
blur_args_valid (const cf_cuda_image * src, const cf_cuda_image * tmp,
    const cf_cuda_image * dst)
{
  return cf_cuda_image_is_valid (src) && cf_cuda_image_is_valid (tmp) &&
      cf_cuda_image_is_valid (dst)
      && tmp->data != src->data && tmp->data != dst->data &&
      tmp->width == src->width && tmp->height == src->height &&
      dst->width == src->width && dst->height == src->height;
}

extern "C" cf_status
cf_cuda_gaussian_blur (const cf_cuda_image * src, float sigma,
    cf_cuda_image * tmp, cf_cuda_image * dst, float *device_taps,
    int max_taps, cudaStream_t stream)
{
  cf_status status;
  int radius;

  if (!blur_args_valid (src, tmp, dst) || !(sigma > 0.0f) ||
      !isfinite (sigma) || device_taps == NULL)
    return CF_ERROR_INVALID;
  radius = blur_radius (sigma);
  if (2 * radius + 1 > max_taps)
    return CF_ERROR_INVALID;
  status = upload_taps (sigma, radius, device_taps, stream);
  if (status != CF_OK)
    return status;
  return blur_with_taps (src, device_taps, radius, tmp, dst, stream);
}

/* Make sure tap set @set holds the taps of @sigma. */
static cf_status
pyramid_ensure_taps (cf_cuda_pyramid * pyramid, int set, float sigma,
    cudaStream_t stream)
{
  cf_status status;
  int radius;

  if (pyramid->taps_radius[set] >= 0 && pyramid->taps_sigma[set] == sigma)
    return CF_OK;
  if (!(sigma > 0.0f) || !isfinite (sigma))
    return CF_ERROR_INVALID;
  radius = blur_radius (sigma);
  status = upload_taps (sigma, radius,
      pyramid->taps + (size_t) set * pyramid->max_taps, stream);
  if (status != CF_OK)
    return status;
  pyramid->taps_sigma[set] = sigma;
  pyramid->taps_radius[set] = radius;
  return CF_OK;
}

extern "C" cf_status
cf_cuda_pyramid_alloc (cf_cuda_pyramid * pyramid, int width, int height,
    const cf_pyramid_params * params)
{
  cf_status status = CF_OK;
  int l;

  if (pyramid == NULL)
    return CF_ERROR_INVALID;
  memset (pyramid, 0, sizeof (*pyramid));
  pyramid->taps_radius[0] = pyramid->taps_radius[1] = -1;
  if (!params_valid (params) || width < 1 || height < 1 ||
      width > CF_MAX_DIMENSION || height > CF_MAX_DIMENSION)
    return CF_ERROR_INVALID;

  pyramid->n_levels = cf_pyramid_level_count (width, height, params);
  for (l = 0; l < pyramid->n_levels; l++) {
    int lw, lh;
    cf_pyramid_level_size (width, height, params->eta, l, &lw, &lh);
    status = cf_cuda_image_alloc (&pyramid->level[l], lw, lh);
    if (status != CF_OK)
      goto out;
  }
  for (l = 0; l < 2; l++) {
    status = cf_cuda_image_alloc (&pyramid->scratch[l], width, height);
    if (status != CF_OK)
      goto out;
  }
  pyramid->max_taps = CUDA_MAX_BLUR_TAPS;
  CF_CUDA_TRY (cudaMalloc ((void **) &pyramid->taps,
          2 * (size_t) pyramid->max_taps * sizeof (float)));

  /* the taps themselves are uploaded by the first build, on its stream */

out:
  if (status != CF_OK)
    cf_cuda_pyramid_release (pyramid);
  return status;
}

extern "C" void
cf_cuda_pyramid_release (cf_cuda_pyramid * pyramid)
{
  int l;

  if (pyramid == NULL)
    return;
  for (l = 0; l < CF_PYRAMID_MAX_LEVELS; l++)
    cf_cuda_image_release (&pyramid->level[l]);
  cf_cuda_image_release (&pyramid->scratch[0]);
  cf_cuda_image_release (&pyramid->scratch[1]);
  if (pyramid->taps != NULL)
    cf_cuda_check (cudaFree (pyramid->taps));
  memset (pyramid, 0, sizeof (*pyramid));
  pyramid->taps_radius[0] = pyramid->taps_radius[1] = -1;
}

/* The levels were allocated for these parameters (count and sizes). */
static int
pyramid_matches (const cf_cuda_pyramid * pyramid,
    const cf_pyramid_params * params)
{
  int w = pyramid->level[0].width, h = pyramid->level[0].height, l;

  if (pyramid->n_levels != cf_pyramid_level_count (w, h, params))
    return 0;
  for (l = 1; l < pyramid->n_levels; l++) {
    int lw, lh;
    cf_pyramid_level_size (w, h, params->eta, l, &lw, &lh);
    if (lw != pyramid->level[l].width || lh != pyramid->level[l].height)
      return 0;
  }
  return 1;
}

static cf_cuda_image
image_view (const cf_cuda_image * img, int width, int height)
{
  cf_cuda_image view = *img;
  view.width = width;
  view.height = height;
  return view;
}

extern "C" cf_status
cf_cuda_pyramid_build (cf_cuda_pyramid * pyramid,
    const cf_pyramid_params * params, cudaStream_t stream)
{
  cf_status status = CF_OK;
  int l;

  if (pyramid == NULL || !params_valid (params) || pyramid->n_levels < 1 ||
      !cf_cuda_image_is_valid (&pyramid->level[0]) || pyramid->taps == NULL ||
      !pyramid_matches (pyramid, params))
    return CF_ERROR_INVALID;

  /* presmoothing: level 0 -> scratch 0, whose buffer then becomes level
   * 0's (one launch: a 2-D blur cannot work in place) */
  if (params->presmooth_sigma > 0.0f) {
    cf_cuda_image smooth;

    status = pyramid_ensure_taps (pyramid, TAPS_PRESMOOTH,
        params->presmooth_sigma, stream);
    if (status != CF_OK)
      return status;
    status = blur_with_taps (&pyramid->level[0], pyramid->taps,
        pyramid->taps_radius[TAPS_PRESMOOTH], &pyramid->scratch[1],
        &pyramid->scratch[0], stream);
    if (status != CF_OK)
      return status;
    smooth = pyramid->scratch[0];
    pyramid->scratch[0] = pyramid->level[0];
    pyramid->level[0] = smooth;
  }

  /* level l: blur level l-1 into scratch 1 (scratch 0 between passes),
   * then sample it at (x / eta, y / eta); at eta 0.5 both in one launch */
  if (pyramid->n_levels > 1) {
    status = pyramid_ensure_taps (pyramid, TAPS_DOWNSAMPLE,
        downsample_sigma (params->eta), stream);
    if (status != CF_OK)
      return status;
  }
  for (l = 1; l < pyramid->n_levels; l++) {
    const cf_cuda_image *fine = &pyramid->level[l - 1];
    cf_cuda_image tmp = image_view (&pyramid->scratch[0], fine->width,
        fine->height);
    cf_cuda_image blurred = image_view (&pyramid->scratch[1], fine->width,
        fine->height);

    status = downsample (fine, params->eta, pyramid->taps +
        (size_t) TAPS_DOWNSAMPLE * pyramid->max_taps,
        pyramid->taps_radius[TAPS_DOWNSAMPLE], &tmp, &blurred,
        &pyramid->level[l], stream);
    if (status != CF_OK)
      return status;
  }
  return CF_OK;
}
