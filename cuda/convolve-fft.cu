/* gst-cudaflow — FFT 2-D correlation with cuFFT (R2C, multiply, C2R)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Computes out(x, y) = sum_{j<kh} sum_{i<kw} F[j][i] in(fold(x+i-ax),
 * fold(y+j-ay)), the correlation form of cf_convolve (), as one circular
 * convolution of PW x PH real arrays:
 *
 *  - P, the padded image: P(u, v) = in(fold(u - ax), fold(v - ay)) for
 *    u < W + kw - 1 and v < H + kh - 1 (0 where the zero rule says
 *    "outside"), and 0 in the rest of the PW x PH array. Every sample the
 *    output needs, P(x + i, y + j), lies in that extent, so each border
 *    rule is applied exactly as the CPU applies it, kernels larger than the
 *    image included.
 *  - G, F flipped and wrapped: G((ax - i) mod PW, (ay - j) mod PH) =
 *    F[j][i], 0 elsewhere. Then the circular convolution
 *      R(u, v) = sum_t G(t) P(u - t) = sum_{j,i} F[j][i] P(u - ax + i, ...)
 *    gives out(x, y) = R(x + ax, y + ay): padded index (x + pad_left,
 *    y + pad_top) with pad_left = ax, pad_top = ay. For x < W the indices
 *    x + i stay below W + kw - 1 <= PW, so nothing wraps; the same holds
 *    for even kernel sizes, whatever anchor the plan chose.
 *  - With the zero rule the extent is shorter than it looks: P is 0 in
 *    its first ax and last kw - 1 - ax columns, so P may wrap onto itself
 *    there. PW >= W + max (ax, kw - 1 - ax) (and >= kw) keeps every
 *    sample an output reads apart from every non-zero one it could alias
 *    (P(u) is stored at u mod PW; a needed u and an image column differ
 *    by less than PW). The other rules fill those columns with image
 *    samples and need the full W + kw - 1 (cf_fft_padded_length ()).
 *  - PW is an even 2^a 3^b 5^c >= that length (R2C runs on the
 *    contiguous axis, where an even length is cheaper), PH a 2^a 3^b 5^c
 *    >= max (that length for the rows, 2): the smallest ones, except on
 *    large images, where plan creation times cuFFT on every pair of the
 *    few lengths up to 12.5 % longer on each axis (at most 6 x 6 pairs)
 *    and keeps the fastest pair if it is at least 3 % faster
 *    (choose_sizes ()). cuFFT's time does not follow the length:
 *    on an H200 a 1080p convolution took 0.069 ms on 2048 columns and
 *    0.081 ms on the shorter 2000, and 4200^2 transforms (a factor 7)
 *    took longer than 4320^2 (docs/convolution.md). The choice is
 *    remembered per device and shortest sizes for the life of the
 *    process, so plans whose lengths round up to the same sizes (one
 *    image, kernels of different sizes) agree and time cuFFT once.
 *
 * Overlap-save tiles: on large images the kernel is short next to the
 * transform, and cuFFT may run a batch of smaller transforms faster than
 * one of the whole image although they hold more points (H100: 25
 * transforms of 1024^2 took 0.50 ms against 0.60 ms for one of 4608 x 4374,
 * with 30 % more points; docs/convolution.md). A tile of T x S samples
 * holds P from its origin (ox, oy) and its circular convolution with G
 * (placed in T x S) gives the T - kw + 1 x S - kh + 1 outputs from
 * (ox, oy) without wrapping, by the argument above: output x' reads tile
 * samples x' + i < T. The tiles' origins are those steps apart, so they
 * cover the image once; their inputs overlap by kw - 1 and kh - 1. Plan
 * creation times the batched pair for square tiles of TILE_SIZES (at
 * least twice the kernel, at least two tiles, at most 1.5 times the whole
 * transform's points) against the whole image's chosen pair and keeps
 * the fastest if it is at least 3 % faster (choose_tile ()), per device
 * and geometry for the life of the process. One kernel spectrum serves
 * every tile.
 *
 * The spectrum of G is computed once at plan creation. Per run: pad (one
 * kernel), R2C, multiply by the kernel spectrum and by 1 / (PW PH) (cuFFT
 * does not normalise), C2R, crop (one kernel); each over every tile at
 * once (grid z or y = tile, one batched cuFFT plan per direction). All
 * buffers and both cuFFT plans are made at creation; runs never allocate.
 * fp32 throughout.
 *
 * The padded arrays are compact (rows of PW reals, PW / 2 + 1 complex; the
 * tiles' arrays one after the other) and the transforms out of place,
 * cuFFT's default layout for cufftPlan2d and cufftPlanMany.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/convolve-fft.h"
#include "cuda/cufft-loader.h"

#include "common/border.h"
#include "common/kernel.h"

#include <mutex>
#include <stdlib.h>

struct cf_cuda_convolve_fft
{
  const cf_cufft_api *api;
  int width;
  int height;
  int kw;
  int kh;
  int ax;
  int ay;
  cf_border border;
  int pw;                       /* padded (transform) size */
  int ph;
  int cw;                       /* complex samples per spectrum row */
  int tiles_x;                  /* overlap-save tiles across and down */
  int tiles_y;                  /* (1 x 1: the whole padded image) */
  int step_x;                   /* outputs per tile, pw - kw + 1 and */
  int step_y;                   /* ph - kh + 1 (the image's for one tile) */
  cufftReal *real;              /* a tile: ph rows of pw, image then result */
  cufftComplex *spec;           /* a tile: ph rows of cw, image spectrum */
  cufftComplex *kspec;          /* ph rows of cw: spectrum of G */
  cufftHandle r2c;
  cufftHandle c2r;
  int have_r2c;
  int have_c2r;
};

namespace {

/* 2-D launch shape of the pad and crop kernels: a warp per row, each
 * lane FFT_RUN samples of it, 32 apart, so every load and store of the
 * warp is one contiguous 128-byte row segment and a thread has FFT_RUN
 * independent loads in flight (with one sample per thread the two passes
 * ran at half the DRAM bandwidth: too few bytes in flight to cover the
 * latency). */
constexpr int FFT_BLOCK_X = 32;
constexpr int FFT_BLOCK_Y = 8;
constexpr int FFT_RUN = 8;
constexpr int FFT_SPAN = FFT_BLOCK_X * FFT_RUN;  /* columns per block */
/* Transform sizes by timing (choose_sizes ()): only from this many points,
 * among the 5-smooth lengths up to TUNE_SPAN times the shortest (at most
 * TUNE_CANDIDATES per axis, every pair timed); a longer pair must take at
 * most TUNE_MARGIN of the time of the shortest. */
constexpr long TUNE_MIN_POINTS = 1L << 20;
constexpr double TUNE_SPAN = 1.125;
constexpr int TUNE_CANDIDATES = 6;
constexpr double TUNE_MARGIN = 0.97;
/* Overlap-save tiles (choose_tile ()): the transform sizes tried, and the
 * most points a tiled run may transform, as a multiple of the whole
 * image's transform; at most as many tiles as a grid's z dimension. */
constexpr int TILE_SIZES[] = { 256, 512, 1024, 2048 };
constexpr double TILE_MAX_POINTS = 1.5;
constexpr long TILE_MAX_COUNT = 65535;
/* 1-D launch shape of the spectrum product; grid-stride beyond the cap. */
constexpr int MUL_THREADS = 256;
constexpr int MUL_MAX_BLOCKS = 65535;

/* Map a cuFFT result to a status. cuFFT errors are not CUDA runtime
 * errors, so cf_cuda_last_error () does not see them. */
static cf_status
cufft_status (cufftResult r)
{
  switch (r) {
    case CUFFT_SUCCESS:
      return CF_OK;
    case CUFFT_ALLOC_FAILED:
      return CF_ERROR_NO_MEMORY;
    default:
      return CF_ERROR_CUDA;
  }
}

/* Like CF_CUDA_TRY (cuda-internal.h), for cuFFT calls. */
#define CF_CUFFT_TRY(expr)                                  \
  do {                                                      \
    cufftResult cf_cufft_res_ = (expr);                     \
    if (cf_cufft_res_ != CUFFT_SUCCESS) {                   \
      status = cufft_status (cf_cufft_res_);                \
      goto out;                                             \
    }                                                       \
  } while (0)

/* 1 when n has no prime factor above 5. */
static int
is_fast_size (int n)
{
  static const int primes[] = { 2, 3, 5 };
  int k;

  for (k = 0; k < 3; k++)
    while (n % primes[k] == 0)
      n /= primes[k];
  return n == 1;
}

/**
 * \brief Padded image: real(u, v) = src(fold(u - ax), fold(v - ay)) inside
 * the (W + kw - 1) x (H + kh - 1) extent, 0 outside it. Writes every one
 * of the pw x ph samples (a stale non-finite value anywhere would spread
 * through the transform to every output). Tiled (blockIdx.z = tile t, at
 * column t % tiles_x and row t / tiles_x of the tiles), array t holds the
 * extent from (ox, oy) = (step_x (t % tiles_x), step_y (t / tiles_x)):
 * real_t(u, v) = P(ox + u, oy + v); one tile: ox = oy = 0.
 *
 * \param[in]  src        input plane
 * \param[in]  src_pitch  elements between rows of src
 * \param[out] real       pw x ph compact array
 * \param[in]  pw         padded width (row length of real)
 * \param[in]  ph         padded height
 * \param[in]  width      image width
 * \param[in]  height     image height
 * \param[in]  ext_w      W + kw - 1: columns the output reads
 * \param[in]  ext_h      H + kh - 1: rows the output reads
 * \param[in]  ax         anchor column of F (left padding)
 * \param[in]  ay         anchor row of F (top padding)
 * \param[in]  border     rule for out-of-image samples (cf_border_fold ())
 * \param[in]  tiles_x    tiles across
 * \param[in]  step_x     columns between two tiles' origins
 * \param[in]  step_y     rows between two tiles' origins
 */
__global__ void
pad_kernel (const float *__restrict__ src, size_t src_pitch,
    float *__restrict__ real, int pw, int ph, int width, int height,
    int ext_w, int ext_h, int ax, int ay, cf_border border, int tiles_x,
    int step_x, int step_y)
{
  const int tile = blockIdx.z;
  const int ox = (tile % tiles_x) * step_x, oy = (tile / tiles_x) * step_y;
  const int u0 = blockIdx.x * FFT_SPAN + threadIdx.x;
  const int v = blockIdx.y * blockDim.y + threadIdx.y;
  const float *row = NULL;      /* the source row of oy + v, folded once */
  float value[FFT_RUN];

  if (v >= ph)
    return;
  real += (size_t) tile * pw * ph;
  if (oy + v < ext_h) {
    const int sy = cf_border_fold (oy + v - ay, height, border);

    if (sy >= 0)
      row = src + (size_t) sy * src_pitch;
  }
#pragma unroll
  for (int i = 0; i < FFT_RUN; i++) {
    const int u = u0 + i * FFT_BLOCK_X;

    value[i] = 0.0f;
    if (row != NULL && ox + u < ext_w) {
      const int sx = cf_border_fold (ox + u - ax, width, border);

      if (sx >= 0)
        value[i] = row[sx];
    }
  }
#pragma unroll
  for (int i = 0; i < FFT_RUN; i++)
    if (u0 + i * FFT_BLOCK_X < pw)
      real[(size_t) v * pw + u0 + i * FFT_BLOCK_X] = value[i];
}

/**
 * \brief G: tap F[j][i] at ((ax - i) mod pw, (ay - j) mod ph). The array
 * must be zeroed first; pw >= kw and ph >= kh, so no two taps collide.
 *
 * \param[in]  taps  F, kh rows of kw floats
 * \param[in]  kw    kernel width
 * \param[in]  kh    kernel height
 * \param[in]  ax    anchor column of F
 * \param[in]  ay    anchor row of F
 * \param[out] real  pw x ph compact array
 * \param[in]  pw    padded width
 * \param[in]  ph    padded height
 */
__global__ void
place_kernel (const float *__restrict__ taps, int kw, int kh, int ax, int ay,
    float *__restrict__ real, int pw, int ph)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < kw && j < kh) {
    /* ax - i > -kw >= -pw, so one + pw makes the remainder non-negative */
    const int u = (ax - i + pw) % pw;
    const int v = (ay - j + ph) % ph;

    real[(size_t) v * pw + u] = taps[i + (size_t) j * kw];
  }
}

/**
 * \brief spec[k] *= kspec[k] * scale for every spectrum sample, of tile
 * blockIdx.y (every tile's spectrum times the one kspec).
 *
 * \param[in,out] spec   image spectra, one per tile
 * \param[in]     kspec  spectrum of G
 * \param[in]     n      samples in each spectrum (ph * (pw / 2 + 1))
 * \param[in]     scale  1 / (pw ph): cuFFT's inverse is unnormalised
 */
__global__ void
multiply_kernel (cufftComplex * __restrict__ spec,
    const cufftComplex * __restrict__ kspec, size_t n, float scale)
{
  const size_t stride = (size_t) gridDim.x * blockDim.x;

  spec += (size_t) blockIdx.y * n;
  for (size_t k = (size_t) blockIdx.x * blockDim.x + threadIdx.x; k < n;
      k += stride) {
    const cufftComplex a = spec[k];
    const cufftComplex b = kspec[k];
    cufftComplex p;

    p.x = (a.x * b.x - a.y * b.y) * scale;
    p.y = (a.x * b.y + a.y * b.x) * scale;
    spec[k] = p;
  }
}

/**
 * \brief dst(x, y) = real(x + ax, y + ay): the 'same' window of R. Tiled
 * (blockIdx.z = tile t, origin (ox, oy) as in pad_kernel), array t gives
 * the step_x x step_y outputs from (ox, oy) that lie in the image:
 * dst(ox + x, oy + y) = real_t(x + ax, y + ay).
 *
 * \param[in]  real       pw x ph compact arrays (the C2R results)
 * \param[in]  pw         padded width (row length of real)
 * \param[in]  ph         padded height
 * \param[in]  ax         anchor column of F (left padding)
 * \param[in]  ay         anchor row of F (top padding)
 * \param[out] dst        output plane; only in-image samples written
 * \param[in]  dst_pitch  elements between rows of dst
 * \param[in]  width      image width
 * \param[in]  height     image height
 * \param[in]  tiles_x    tiles across
 * \param[in]  step_x     outputs per tile row (width for one tile)
 * \param[in]  step_y     output rows per tile (height for one tile)
 */
__global__ void
crop_kernel (const float *__restrict__ real, int pw, int ph, int ax, int ay,
    float *__restrict__ dst, size_t dst_pitch, int width, int height,
    int tiles_x, int step_x, int step_y)
{
  const int tile = blockIdx.z;
  const int ox = (tile % tiles_x) * step_x, oy = (tile / tiles_x) * step_y;
  const int x0 = blockIdx.x * FFT_SPAN + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int cols = min (step_x, width - ox);
  const float *in;
  float *out;
  float value[FFT_RUN];

  if (y >= step_y || oy + y >= height)
    return;
  in = real + (size_t) tile * pw * ph + (size_t) (y + ay) * pw + ax;
  out = dst + (size_t) (oy + y) * dst_pitch + ox;
#pragma unroll
  for (int i = 0; i < FFT_RUN; i++)
    if (x0 + i * FFT_BLOCK_X < cols)
      value[i] = in[x0 + i * FFT_BLOCK_X];
#pragma unroll
  for (int i = 0; i < FFT_RUN; i++)
    if (x0 + i * FFT_BLOCK_X < cols)
      out[x0 + i * FFT_BLOCK_X] = value[i];
}

/* The even (or any) 5-smooth lengths >= len up to TUNE_SPAN times the
 * first, at most TUNE_CANDIDATES; the first is the shortest. */
static int
size_candidates (int len, int even, int *out)
{
  const int first = even ? 2 * cf_fft_fast_size ((len + 1) / 2)
      : cf_fft_fast_size (len);
  int n = 0;

  for (int c = first; c <= first * TUNE_SPAN && n < TUNE_CANDIDATES; c++)
    if (is_fast_size (even ? c / 2 : c) && (!even || c % 2 == 0))
      out[n++] = c;
  return n;
}

/* A pw x ph cuFFT plan of @type for @batch arrays, compact and one after
 * the other (cuFFT's basic layout): cufftPlan2d for one, cufftPlanMany
 * for a batch of tiles. */
static cufftResult
make_plan (const cf_cufft_api * api, cufftHandle * plan, int pw, int ph,
    int batch, cufftType type)
{
  int n[2] = { ph, pw };        /* slow axis first */

  if (batch == 1)
    return api->plan_2d (plan, ph, pw, type);
  return api->plan_many (plan, 2, n, NULL, 1, 0, NULL, 1, 0, type, batch);
}

/* Milliseconds of one R2C + C2R pair of @batch pw x ph transforms (the
 * best of three after a warm-up run), on buffers large enough for them;
 * < 0 when cuFFT or CUDA failed. */
static float
time_transforms (const cf_cufft_api * api, int pw, int ph, int batch,
    cufftReal * real, cufftComplex * spec)
{
  cufftHandle r2c, c2r;
  cudaEvent_t a = NULL, b = NULL;
  float best = -1.0f;

  if (make_plan (api, &r2c, pw, ph, batch, CUFFT_R2C) != CUFFT_SUCCESS)
    return -1.0f;
  if (make_plan (api, &c2r, pw, ph, batch, CUFFT_C2R) != CUFFT_SUCCESS) {
    api->destroy (r2c);
    return -1.0f;
  }
  if (cudaEventCreate (&a) == cudaSuccess
      && cudaEventCreate (&b) == cudaSuccess
      && api->set_stream (r2c, 0) == CUFFT_SUCCESS
      && api->set_stream (c2r, 0) == CUFFT_SUCCESS) {
    for (int rep = 0; rep < 4; rep++) {
      float ms;

      if (cudaEventRecord (a, 0) != cudaSuccess
          || api->exec_r2c (r2c, real, spec) != CUFFT_SUCCESS
          || api->exec_c2r (c2r, spec, real) != CUFFT_SUCCESS
          || cudaEventRecord (b, 0) != cudaSuccess
          || cudaEventSynchronize (b) != cudaSuccess
          || cudaEventElapsedTime (&ms, a, b) != cudaSuccess) {
        best = -1.0f;
        break;
      }
      if (rep > 0 && (best < 0.0f || ms < best))
        best = ms;
    }
  }
  if (a != NULL)
    cudaEventDestroy (a);
  if (b != NULL)
    cudaEventDestroy (b);
  api->destroy (r2c);
  api->destroy (c2r);
  return best;
}

/* Sizes chosen on @device among the candidates from the shortest sizes
 * (sw, sh) in this process: the candidates depend on nothing else, so
 * every geometry whose lengths round up to (sw, sh) shares the choice.
 * @ms is the chosen pair's time, which the tiles are measured against. */
struct tuned_sizes
{
  int device, sw, sh, pw, ph;
  float ms;
};

/* The tiles chosen on @device for one geometry (image, kernel and the
 * whole-image sizes' cache key): @tile = 0 for the whole image. */
struct tuned_tiles
{
  int device, width, height, kw, kh, sw, sh, tile;
};

/* The last N choices of one kind made in this process; a new one takes
 * the oldest slot. Entries never written are zero, which no lookup
 * matches (their sizes are 0). */
template < class T, int N > struct choice_cache
{
  T entries[N];
  int next;

  void remember (const T & e)
  {
    entries[next] = e;
    next = (next + 1) % N;
  }
};

static std::mutex tune_lock;
static choice_cache < tuned_sizes, 32 > tune_cache;
static choice_cache < tuned_tiles, 32 > tile_cache;

/* PW and PH for circular lengths lw x lh (file comment): the shortest
 * fast sizes, or on large images the fastest pair of candidates by the
 * timing above, whose time goes to *@ms (< 0 when nothing was timed);
 * the shortest sizes, the cache key, go to *@sw, *@sh.
 * Every pair is timed, not one axis after the other:
 * cuFFT's time is not separable (on an H200, 4608 rows of 4374 took
 * 0.37 ms against 0.43 ms for 4320 x 4320, while 4320 rows of 4374 gained
 * 2 % and 4608 rows of 4320 lost 4 %: tests/gpu/cufft-pairs.c). A failed
 * timing is not an error: the shortest sizes are always correct. Called
 * with tune_lock held. */
static void
choose_sizes (const cf_cufft_api * api, int device, int lw, int lh,
    int *sw, int *sh, int *pw, int *ph, float *ms)
{
  int cand_w[TUNE_CANDIDATES], cand_h[TUNE_CANDIDATES], nw, nh;
  cufftReal *real = NULL;
  cufftComplex *spec = NULL;
  float base, best, t;

  nw = size_candidates (lw, 1, cand_w);
  nh = size_candidates (lh > 2 ? lh : 2, 0, cand_h);
  *sw = *pw = cand_w[0];
  *sh = *ph = cand_h[0];
  *ms = -1.0f;
  if ((long) *pw * *ph < TUNE_MIN_POINTS || device < 0)
    return;

  for (const tuned_sizes & e : tune_cache.entries)
    if (e.pw > 0 && e.device == device && e.sw == cand_w[0]
        && e.sh == cand_h[0]) {
      *pw = e.pw;
      *ph = e.ph;
      *ms = e.ms;
      return;
    }
  if (cudaMalloc ((void **) &real, (size_t) cand_w[nw - 1] * cand_h[nh - 1]
          * sizeof (cufftReal)) != cudaSuccess
      || cudaMalloc ((void **) &spec, (size_t) (cand_w[nw - 1] / 2 + 1)
          * cand_h[nh - 1] * sizeof (cufftComplex)) != cudaSuccess
      || cudaMemset (real, 0, (size_t) cand_w[nw - 1] * cand_h[nh - 1]
          * sizeof (cufftReal)) != cudaSuccess
      || (base = time_transforms (api, *pw, *ph, 1, real, spec)) < 0.0f)
    goto out;
  best = base;
  for (int j = 0; j < nh; j++)
    for (int i = 0; i < nw; i++)
      if ((i > 0 || j > 0)
          && (t = time_transforms (api, cand_w[i], cand_h[j], 1, real,
                  spec)) >= 0.0f && t < TUNE_MARGIN * base && t < best) {
        best = t;
        *pw = cand_w[i];
        *ph = cand_h[j];
      }
  *ms = best;
  tune_cache.remember (tuned_sizes { device, cand_w[0], cand_h[0], *pw, *ph,
          best });

out:
  cudaGetLastError ();          /* a failed timing leaves no error behind */
  if (real != NULL)
    cudaFree (real);
  if (spec != NULL)
    cudaFree (spec);
}

/* Overlap-save tiles of tile_w x tile_h transforms for a width x height
 * image and a kw x kh kernel: *tx x *ty of them, each giving
 * tile_w - kw + 1 x tile_h - kh + 1 outputs; 0 when the tile is too
 * small for the kernel. */
static int
count_tiles (int tile_w, int tile_h, int width, int height, int kw, int kh,
    int *tx, int *ty)
{
  if (tile_w < kw || tile_h < kh)
    return 0;
  *tx = cf_div_up (width, tile_w - kw + 1);
  *ty = cf_div_up (height, tile_h - kh + 1);
  return 1;
}

/* The time of the batched transform pair for tile x tile overlap-save
 * tiles of a width x height image and a kw x kh kernel, in its own
 * scratch buffers; < 0 when the tile is not a candidate (smaller than
 * twice the kernel, fewer than two tiles, more than TILE_MAX_COUNT, or
 * more than TILE_MAX_POINTS times the points of the whole pw x ph
 * transform) or the timing failed, which is not an error. */
static float
time_tile (const cf_cufft_api * api, int tile, int width, int height,
    int kw, int kh, int pw, int ph)
{
  cufftReal *real = NULL;
  cufftComplex *spec = NULL;
  int tx, ty;
  long points;
  float t = -1.0f;

  if (tile < 2 * kw || tile < 2 * kh
      || !count_tiles (tile, tile, width, height, kw, kh, &tx, &ty))
    return -1.0f;
  points = (long) tx * ty * tile * tile;
  if ((long) tx * ty < 2 || (long) tx * ty > TILE_MAX_COUNT
      || points > TILE_MAX_POINTS * pw * ph)
    return -1.0f;
  if (cudaMalloc ((void **) &real, points * sizeof (cufftReal)) == cudaSuccess
      && cudaMalloc ((void **) &spec, (long) tx * ty * tile * (tile / 2 + 1)
          * sizeof (cufftComplex)) == cudaSuccess
      && cudaMemset (real, 0, points * sizeof (cufftReal)) == cudaSuccess)
    t = time_transforms (api, tile, tile, tx * ty, real, spec);
  cudaGetLastError ();          /* a failed timing leaves no error behind */
  if (real != NULL)
    cudaFree (real);
  if (spec != NULL)
    cudaFree (spec);
  return t;
}

/* The tile size of the overlap-save run (file comment), 0 for one
 * transform of the whole image: among TILE_SIZES the candidates of
 * time_tile (), the fastest batched pair, kept if it takes at most
 * TUNE_MARGIN of @whole_ms, the whole pair's time. Remembered per device
 * and geometry; called with tune_lock held. */
static int
choose_tile (const cf_cufft_api * api, int device, int width, int height,
    int kw, int kh, int sw, int sh, int pw, int ph, float whole_ms)
{
  float best = whole_ms;
  int chosen = 0;

  if (whole_ms < 0.0f)
    return 0;
  for (const tuned_tiles & e : tile_cache.entries)
    if (e.device == device && e.width == width && e.height == height
        && e.kw == kw && e.kh == kh && e.sw == sw && e.sh == sh
        && e.kw > 0)
      return e.tile;
  for (int tile : TILE_SIZES) {
    const float t = time_tile (api, tile, width, height, kw, kh, pw, ph);

    if (t >= 0.0f && t < TUNE_MARGIN * whole_ms && t < best) {
      best = t;
      chosen = tile;
    }
  }
  tile_cache.remember (tuned_tiles { device, width, height, kw, kh, sw, sh,
          chosen });
  return chosen;
}

}                               /* namespace */

extern "C" void
cf_cuda_convolve_fft_sizes (const cf_cuda_convolve_fft * fft, int *pw,
    int *ph)
{
  *pw = fft->pw;
  *ph = fft->ph;
}

extern "C" void
cf_cuda_convolve_fft_tiles (const cf_cuda_convolve_fft * fft, int *tiles_x,
    int *tiles_y)
{
  *tiles_x = fft->tiles_x;
  *tiles_y = fft->tiles_y;
}

extern "C" int
cf_cuda_convolve_fft_available (void)
{
  return cf_cufft_load () != NULL;
}

extern "C" int
cf_fft_fast_size (int m)
{
  int n = m < 1 ? 1 : m;

  /* a few steps: from 1000 up, the next 5-smooth number is never more
   * than 7 % higher (2700 -> 2880; 4096 -> 4320 is 5.5 %) */
  while (!is_fast_size (n))
    n++;
  return n;
}

extern "C" int
cf_fft_padded_length (int n, int k, int anchor, cf_border border)
{
  const int after = k - 1 - anchor;
  const int len = n + (anchor > after ? anchor : after);

  if (border != CF_BORDER_ZERO)
    return n + k - 1;
  /* file comment; at least k, so that no two taps of G share a sample */
  return len > k ? len : k;
}

extern "C" cf_status
cf_cuda_convolve_fft_new (int width, int height, const float *taps, int kw,
    int kh, int ax, int ay, cf_border border, cf_cuda_convolve_fft ** fft)
{
  return cf_cuda_convolve_fft_new_tiled (width, height, taps, kw, kh, ax, ay,
      border, 0, 0, fft);
}

extern "C" cf_status
cf_cuda_convolve_fft_new_tiled (int width, int height, const float *taps,
    int kw, int kh, int ax, int ay, cf_border border, int tile_w, int tile_h,
    cf_cuda_convolve_fft ** fft)
{
  cf_status status = CF_OK;
  cf_cuda_convolve_fft *p = NULL;
  const cf_cufft_api *api;
  size_t real_bytes, spec_bytes;
  int tiles, tx = 1, ty = 1;

  if (fft != NULL)
    *fft = NULL;
  if (fft == NULL || taps == NULL || width < 1 || height < 1
      || width > CF_MAX_DIMENSION || height > CF_MAX_DIMENSION
      || kw < 1 || kh < 1 || kw > CF_KERNEL_MAX_SIZE
      || kh > CF_KERNEL_MAX_SIZE || ax < 0 || ax >= kw || ay < 0 || ay >= kh
      || (unsigned) border >= CF_BORDER_COUNT || tile_w < 0 || tile_h < 0
      || (tile_w > 0) != (tile_h > 0)
      || (tile_w > 0 && (tile_w > CF_MAX_DIMENSION
              || tile_h > CF_MAX_DIMENSION
              || !count_tiles (tile_w, tile_h, width, height, kw, kh, &tx,
                  &ty) || (long) tx * ty > TILE_MAX_COUNT)))
    return CF_ERROR_INVALID;
  api = cf_cufft_load ();
  if (api == NULL)
    return CF_ERROR_UNSUPPORTED;

  p = (cf_cuda_convolve_fft *) calloc (1, sizeof (*p));
  if (p == NULL)
    return CF_ERROR_NO_MEMORY;
  p->api = api;
  p->width = width;
  p->height = height;
  p->kw = kw;
  p->kh = kh;
  p->ax = ax;
  p->ay = ay;
  p->border = border;
  if (tile_w == 0) {
    /* sizes and tiles: file comment */
    const int lw = cf_fft_padded_length (width, kw, ax, border);
    const int lh = cf_fft_padded_length (height, kh, ay, border);
    int device = 0, sw, sh;
    float whole_ms = -1.0f;

    if (cudaGetDevice (&device) != cudaSuccess) {
      cudaGetLastError ();
      device = -1;              /* nothing is timed */
    }
    std::lock_guard < std::mutex > hold (tune_lock);
    choose_sizes (api, device, lw, lh, &sw, &sh, &p->pw, &p->ph, &whole_ms);
    tile_w = tile_h = choose_tile (api, device, width, height, kw, kh, sw,
        sh, p->pw, p->ph, whole_ms);
    if (tile_w > 0)
      count_tiles (tile_w, tile_h, width, height, kw, kh, &tx, &ty);
  }
  p->tiles_x = tx;
  p->tiles_y = ty;
  if (tile_w > 0) {
    p->pw = tile_w;
    p->ph = tile_h;
    p->step_x = tile_w - kw + 1;
    p->step_y = tile_h - kh + 1;
  } else {
    p->step_x = width;
    p->step_y = height;
  }
  p->cw = p->pw / 2 + 1;
  tiles = p->tiles_x * p->tiles_y;

  real_bytes = (size_t) p->pw * p->ph * tiles * sizeof (cufftReal);
  spec_bytes = (size_t) p->cw * p->ph * sizeof (cufftComplex);
  CF_CUDA_TRY (cudaMalloc ((void **) &p->real, real_bytes));
  CF_CUDA_TRY (cudaMalloc ((void **) &p->spec, spec_bytes * tiles));
  CF_CUDA_TRY (cudaMalloc ((void **) &p->kspec, spec_bytes));

  CF_CUFFT_TRY (make_plan (api, &p->r2c, p->pw, p->ph, tiles, CUFFT_R2C));
  p->have_r2c = 1;
  CF_CUFFT_TRY (make_plan (api, &p->c2r, p->pw, p->ph, tiles, CUFFT_C2R));
  p->have_c2r = 1;

  /* The kernel spectrum, once: G in the first array (every other one 0),
   * its spectrum copied out of the first. Queued on the default stream,
   * after the caller's synchronous copy of taps, and waited for: plan
   * creation is not a run path. */
  CF_CUDA_TRY (cudaMemsetAsync (p->real, 0, real_bytes, 0));
  {
    const dim3 block (FFT_BLOCK_X, FFT_BLOCK_Y);
    const dim3 grid (cf_div_up (kw, FFT_BLOCK_X), cf_div_up (kh, FFT_BLOCK_Y));

    place_kernel <<< grid, block, 0, 0 >>> (taps, kw, kh, ax, ay, p->real,
        p->pw, p->ph);
    CF_CUDA_TRY_LAUNCH ();
  }
  CF_CUFFT_TRY (api->set_stream (p->r2c, 0));
  CF_CUFFT_TRY (api->exec_r2c (p->r2c, p->real, p->spec));
  CF_CUDA_TRY (cudaMemcpyAsync (p->kspec, p->spec, spec_bytes,
          cudaMemcpyDeviceToDevice, 0));
  CF_CUDA_TRY (cudaStreamSynchronize (0));

out:
  if (status != CF_OK) {
    cf_cuda_convolve_fft_free (p);
    return status;
  }
  *fft = p;
  return CF_OK;
}

extern "C" cf_status
cf_cuda_convolve_fft_run (cf_cuda_convolve_fft * fft, const float *src,
    size_t src_pitch, float *dst, size_t dst_pitch, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 block (FFT_BLOCK_X, FFT_BLOCK_Y);
  size_t n;
  int blocks, tiles;
  float scale;

  if (fft == NULL || src == NULL || dst == NULL
      || src_pitch < (size_t) fft->width || dst_pitch < (size_t) fft->width)
    return CF_ERROR_INVALID;
  tiles = fft->tiles_x * fft->tiles_y;

  {
    const dim3 grid (cf_div_up (fft->pw, FFT_SPAN),
        cf_div_up (fft->ph, FFT_BLOCK_Y), tiles);

    pad_kernel <<< grid, block, 0, stream >>> (src, src_pitch, fft->real,
        fft->pw, fft->ph, fft->width, fft->height, fft->width + fft->kw - 1,
        fft->height + fft->kh - 1, fft->ax, fft->ay, fft->border,
        fft->tiles_x, fft->step_x, fft->step_y);
    CF_CUDA_TRY_LAUNCH ();
  }

  /* the plans follow the caller's stream on every run */
  CF_CUFFT_TRY (fft->api->set_stream (fft->r2c, stream));
  CF_CUFFT_TRY (fft->api->set_stream (fft->c2r, stream));
  CF_CUFFT_TRY (fft->api->exec_r2c (fft->r2c, fft->real, fft->spec));

  n = (size_t) fft->cw * fft->ph;
  blocks = (n + MUL_THREADS - 1) / MUL_THREADS < (size_t) MUL_MAX_BLOCKS
      ? (int) ((n + MUL_THREADS - 1) / MUL_THREADS) : MUL_MAX_BLOCKS;
  scale = (float) (1.0 / ((double) fft->pw * (double) fft->ph));
  multiply_kernel <<< dim3 (blocks, tiles), MUL_THREADS, 0, stream >>>
      (fft->spec, fft->kspec, n, scale);
  CF_CUDA_TRY_LAUNCH ();

  /* out of place: C2R may overwrite spec, which is rebuilt every run */
  CF_CUFFT_TRY (fft->api->exec_c2r (fft->c2r, fft->spec, fft->real));

  {
    const dim3 grid (cf_div_up (fft->step_x, FFT_SPAN),
        cf_div_up (fft->step_y, FFT_BLOCK_Y), tiles);

    crop_kernel <<< grid, block, 0, stream >>> (fft->real, fft->pw, fft->ph,
        fft->ax, fft->ay, dst, dst_pitch, fft->width, fft->height,
        fft->tiles_x, fft->step_x, fft->step_y);
    CF_CUDA_TRY_LAUNCH ();
  }
out:
  return status;
}

extern "C" void
cf_cuda_convolve_fft_free (cf_cuda_convolve_fft * fft)
{
  if (fft == NULL)
    return;
  /* destroying a plan waits for nothing: callers free a plan only once
   * its stream is idle (as for every buffer of the layer) */
  if (fft->have_r2c)
    fft->api->destroy (fft->r2c);
  if (fft->have_c2r)
    fft->api->destroy (fft->c2r);
  if (fft->real != NULL)
    cf_cuda_check (cudaFree (fft->real));
  if (fft->spec != NULL)
    cf_cuda_check (cudaFree (fft->spec));
  if (fft->kspec != NULL)
    cf_cuda_check (cudaFree (fft->kspec));
  free (fft);
}
