/* gst-cudaflow — im2tensor 2-D correlation on tensor cores (fused variant)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * im2tensor (Seznec, Gac, Orieux, Sashala Naik, JRTIP 19:1035, 2022;
 * docs/references.md), its fused variant with a safe bound on the rows of
 * the partial-sum buffer C. Computes the
 * correlation form of cf_convolve ():
 *   out(x, y) = sum_{j<kh} sum_{i<kw} F[j][i] in(fold(x+i-ax), fold(y+j-ay)).
 *
 * 'same' as 'valid' on a padded image (as in the paper). Per run, a pad
 * kernel writes the padded fp16 image
 *   I(u, v) = s_in in(fold(u - ax), fold(v - ay))  for u < W + kw - 1 and
 *                                                   v < H + kh - 1,
 *   I(u, v) = 0                                     elsewhere,
 * over the whole pitched buffer (every sample a tile may read is finite:
 * padded taps multiply it by 0, and 0 x Inf = NaN would poison a sum).
 * Then out(y, l) = sum_{j,i} F[j][i] I(l + i, y + j): a 'valid'
 * correlation, in index form (x the kernel column):
 *   P_y[x][c] = sum_j F[j][x] I(c, y + j)       (K^T S, one GEMM per row y)
 *   out(y, l) = sum_{x<kw} P_y[x][l + x]         (Tr+, diagonal sums)
 *
 * Tensor-core GEMM (WMMA m16n16k16, fp16 A and B, fp32 accumulators):
 *   A = K^T: rows x (kernel columns), zero-padded to kw_hat = ceil16 (kw);
 *       columns j (kernel rows), zero-padded to kh_hat = ceil16 (kh) (the
 *       paper's eq. 12); fp16, row-major, ld = kh_hat, scaled by s_k = 2^e
 *       so that max |F| s_k is in [1, 2) (small taps stay normal fp16 numbers).
 *   B = image rows y + 16 q .. y + 16 q + 15, 16 columns: straight from the
 *       padded image (ld = its pitch, a multiple of 64 halves, so every
 *       fragment pointer is 32-byte aligned; slices move by whole rows).
 *   P tile (x0 .. x0+31) x (c0 .. c0+63): 2 x 4 accumulator fragments.
 * m16n16k16 rather than the paper's m8n32k16: kernel columns pad to 16
 * instead of 8, which only matters for kw <= 8 (the direct method's
 * range), and the fragment layout stays the common one.
 *
 * Fused reduction (the paper's Algorithm 2). A thread block owns
 * W_B = 64 image columns c0 .. c0 + 63 (block bj) and covers ALL kernel
 * columns (h_B = kw_hat, so one C row
 * per block column instead of kw_hat / 8). Each warp owns output rows; for
 * a row y it
 *   1. computes the P tile of each 32-column kernel chunk x0 with WMMA,
 *   2. stores it to its private shared-memory tile (fp32, row pitch 72),
 *   3. sums the tile's diagonals t = c - x in [-31, 63] in fp32 and adds
 *      each partial sum to a shared-memory row accumulator indexed by the
 *      output column l = c - x, covering l in [c0 - kw_hat + 1, c0 + 63]
 *      (kw_hat + 63 partial sums, incomplete diagonals included),
 *   4. writes the in-image part of that row (0 <= l < W) to
 *      C[bj mod R_C][y][l].
 * Blocks bj and bj + R_C touch disjoint l ranges when
 *   R_C = ceil ((kw_hat - 1) / W_B) + kw_hat / h_B
 *       = ceil ((kw_hat - 1) / 64) + 1,
 * the safe form of the paper's eq. 19 (with h_B = kw_hat the
 * paper's min () form coincides with it). So every cell of C has one
 * writer, and no atomics are needed. A reduce kernel then sums, for each
 * output pixel, the cells of exactly the blocks that touch it, bj from
 * floor (l / 64) to floor ((l + kw - 1) / 64) (at most R_C, distinct rows
 * of C), in that order, and scales by 1 / (s_in s_k): deterministic, and
 * only cells written by this very run are read (C is still zeroed once).
 *
 * Warps synchronise only among themselves (__syncwarp): nothing in shared
 * memory is shared between warps, so there is no __syncthreads at all.
 * The image is not staged in shared memory: a block's 16 output rows read
 * (15 + kh_hat) x 64 halves, which L1 serves (the paper found staging no
 * faster).
 *
 * Launch: pad (32 x 8 threads, 2 halves each), fused (128 threads = 4
 * warps, grid ceil ((W + kw - 1) / 64) x ceil (H / 16), dynamic shared
 * memory 4 x (32 x 72 + ceil8 (kw_hat + 63)) floats: 38 KB for kw <= 32,
 * 53 KB at kw = 1023), reduce (32 x 8 threads, one per output).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/convolve-im2tensor.h"

#include "common/border.h"
#include "common/image.h"
#include "common/kernel.h"

#include <cuda_fp16.h>
#include <mma.h>

#include <math.h>
#include <stdlib.h>

struct cf_cuda_convolve_im2tensor
{
  int width;
  int height;
  int kw;
  int kh;
  int ax;
  int ay;
  cf_border border;
  int kw_hat;                   /* kw rounded up to 16 */
  int kh_hat;                   /* kh rounded up to 16 */
  int n_bj;                     /* blocks across: ceil ((W + kw - 1) / 64) */
  int c_rows;                   /* R_C */
  __half *kt;                   /* kw_hat rows of kh_hat: s_k K^T, padded */
  __half *pad;                  /* pad_rows rows of pad_pitch: padded image */
  size_t pad_pitch;             /* halves; n_bj * 64 */
  int pad_rows;                 /* H + kh_hat - 1 */
  float *c;                     /* c_rows planes of H rows of c_pitch */
  size_t c_pitch;               /* floats */
  size_t smem_bytes;            /* dynamic shared memory of the fused kernel */
  float out_scale;              /* 1 / (s_in s_k), a power of two */
};

namespace {

/* WMMA shape: m16n16k16, fp16 inputs, fp32 accumulators. */
constexpr int I2T_FRAG = 16;
/* Image columns per block (W_B) and accumulator fragments across it. */
constexpr int I2T_WB = 64;
constexpr int I2T_NFRAGS = I2T_WB / I2T_FRAG;
/* Kernel columns per MMA pass and accumulator fragments down it. */
constexpr int I2T_MCHUNK = 32;
constexpr int I2T_MFRAGS = I2T_MCHUNK / I2T_FRAG;
/* Threads: I2T_WARPS warps, each with its own output rows and tiles. */
constexpr int I2T_WARP = 32;
constexpr int I2T_WARPS = 4;
constexpr int I2T_THREADS = I2T_WARP * I2T_WARPS;
/* Output rows per block (I2T_ROWS / I2T_WARPS per warp, interleaved). */
constexpr int I2T_ROWS = 16;
/* Row pitch (floats) of a warp's P tile: a multiple of 4 (WMMA float
 * ldm) whose fragment rows start 32-byte aligned. 72 = 8 mod 32: the
 * accumulator stores (8 rows x 4 float2 per half warp on sm_80/90, [U])
 * fall on 32 distinct banks; the diagonal sums are conflict-free for any
 * pitch (all lanes read one row at a time). */
constexpr int I2T_LDP = I2T_WB + 8;
constexpr int I2T_TILE_FLOATS = I2T_MCHUNK * I2T_LDP;
/* Default limit of dynamic shared memory without an opt-in. */
constexpr size_t I2T_SMEM_DEFAULT = 48 * 1024;
/* Largest finite fp16 value. */
constexpr float I2T_HALF_MAX = 65504.0f;
/* Launch shape of the pad and reduce kernels. */
constexpr int I2T_BLOCK_X = 32;
constexpr int I2T_BLOCK_Y = 8;

static_assert (I2T_ROWS % I2T_WARPS == 0, "rows split evenly over warps");
static_assert (I2T_MCHUNK <= I2T_WARP, "one diagonal pass per 32 lanes");
static_assert (I2T_LDP % 4 == 0, "WMMA float ldm must be a multiple of 4");
static_assert ((I2T_FRAG * I2T_LDP * sizeof (float)) % 32 == 0,
    "every P fragment row block must start 32-byte aligned");
static_assert (I2T_TILE_FLOATS % 8 == 0, "warp regions stay 32-byte aligned");

/* Floats of a warp's row accumulator: kw_hat + W_B - 1 partial sums,
 * rounded up to 8 so the next warp's tile stays 32-byte aligned. */
static inline __host__ __device__ int
row_acc_stride (int kw_hat)
{
  return (kw_hat + I2T_WB - 1 + 7) / 8 * 8;
}

/* Dynamic shared memory of the fused kernel for a padded kernel width. */
static inline size_t
fused_smem_bytes (int kw_hat)
{
  return (size_t) I2T_WARPS * (I2T_TILE_FLOATS + row_acc_stride (kw_hat))
      * sizeof (float);
}

static inline int
round_up (int n, int m)
{
  return cf_div_up (n, m) * m;
}

/* Scale, then keep the value finite in fp16 (NaN stays NaN). */
static inline __device__ __half
to_half_saturated (float v, float scale)
{
  v *= scale;
  if (fabsf (v) > I2T_HALF_MAX)
    v = copysignf (I2T_HALF_MAX, v);
  return __float2half_rn (v);
}

/**
 * \brief Padded fp16 image: pad(u, v) = s_in src(fold(u - ax), fold(v - ay))
 * inside the (W + kw - 1) x (H + kh - 1) extent, 0 everywhere else in the
 * pad_pitch x pad_rows buffer (file comment). Every sample is written.
 *
 * \param[in]  src        input plane
 * \param[in]  src_pitch  elements between rows of src
 * \param[out] pad        padded image, pad_rows rows of pad_pitch halves
 * \param[in]  pad_pitch  halves per padded row (even)
 * \param[in]  pad_rows   rows of the padded buffer
 * \param[in]  width      image width
 * \param[in]  height     image height
 * \param[in]  ext_w      W + kw - 1: columns the output reads
 * \param[in]  ext_h      H + kh - 1: rows the output reads
 * \param[in]  ax         anchor column of F (left padding)
 * \param[in]  ay         anchor row of F (top padding)
 * \param[in]  border     rule for out-of-image samples (cf_border_fold ())
 * \param[in]  scale      s_in (CF_IM2TENSOR_INPUT_SCALE)
 */
__global__ void
im2tensor_pad_kernel (const float *__restrict__ src, size_t src_pitch,
    __half * __restrict__ pad, size_t pad_pitch, int pad_rows, int width,
    int height, int ext_w, int ext_h, int ax, int ay, cf_border border,
    float scale)
{
  const size_t u = 2 * ((size_t) blockIdx.x * blockDim.x + threadIdx.x);
  const int v = blockIdx.y * blockDim.y + threadIdx.y;
  float value[2] = { 0.0f, 0.0f };
  int sy;

  if (u >= pad_pitch || v >= pad_rows)
    return;
  sy = v < ext_h ? cf_border_fold (v - ay, height, border) : -1;
  if (sy >= 0) {
    const float *row = src + (size_t) sy * src_pitch;

#pragma unroll
    for (int e = 0; e < 2; e++) {
      const int x = (int) u + e;
      const int sx = x < ext_w ? cf_border_fold (x - ax, width, border) : -1;

      if (sx >= 0)
        value[e] = row[sx];
    }
  }
  /* u is even and so is the pitch: a 4-byte aligned pair */
  *reinterpret_cast < __half2 * >(pad + (size_t) v * pad_pitch + u) =
      __halves2half2 (to_half_saturated (value[0], scale),
      to_half_saturated (value[1], scale));
}

/**
 * \brief Fused im2tensor: P tiles on tensor cores, diagonal sums in shared
 * memory, one row of partial sums per output row into C (file comment).
 *
 * Block (bj, by): image columns c0 = 64 bj .. c0 + 63, output rows
 * 16 by .. 16 by + 15; warp w takes rows 16 by + w + 4 i. Partial sum of
 * output (y, l) from this block: sum over x < kw with c0 <= l + x < c0 + 64
 * of P_y[x][l + x], stored at C[bj mod c_rows][y][l] for 0 <= l < W.
 *
 * \param[in]  pad        padded fp16 image (im2tensor_pad_kernel)
 * \param[in]  pad_pitch  halves per padded row (a multiple of 64)
 * \param[in]  kt         s_k K^T, kw_hat rows of kh_hat halves, zero padded
 * \param[in]  kw         kernel width (taps beyond it are 0 and skipped)
 * \param[in]  kw_hat     kw rounded up to 16
 * \param[in]  kh_hat     kh rounded up to 16
 * \param[out] c          partial sums: c_rows planes of height x c_pitch
 * \param[in]  c_pitch    floats per row of a C plane
 * \param[in]  c_rows     R_C
 * \param[in]  width      image width (output columns)
 * \param[in]  height     image height (output rows)
 */
__global__ void __launch_bounds__ (I2T_THREADS)
im2tensor_fused_kernel (const __half * __restrict__ pad, size_t pad_pitch,
    const __half * __restrict__ kt, int kw, int kw_hat, int kh_hat,
    float *__restrict__ c, size_t c_pitch, int c_rows, int width, int height)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  using namespace nvcuda;
  extern __shared__ __align__ (128) float i2t_smem[];

  const int warp = threadIdx.x / I2T_WARP;
  const int lane = threadIdx.x % I2T_WARP;
  const int acc_len = kw_hat + I2T_WB - 1;
  float *const s_tile =
      i2t_smem + warp * (I2T_TILE_FLOATS + row_acc_stride (kw_hat));
  float *const s_acc = s_tile + I2T_TILE_FLOATS;
  const int bj = blockIdx.x;
  const int c0 = bj * I2T_WB;
  /* s_acc[k] holds output column l0 + k: the diagonal c - x = c0 - x
   * with the last padded kernel column x = kw_hat - 1 comes first */
  const int l0 = c0 - kw_hat + 1;
  const int nq = kh_hat / I2T_FRAG;
  float *const c_plane = c + (size_t) (bj % c_rows) * height * c_pitch;

  for (int i = 0; i < I2T_ROWS / I2T_WARPS; i++) {
    /* warp-uniform: the whole warp leaves together */
    const int y = blockIdx.y * I2T_ROWS + warp + I2T_WARPS * i;

    if (y >= height)
      break;

    for (int t = lane; t < acc_len; t += I2T_WARP)
      s_acc[t] = 0.0f;
    __syncwarp ();

    for (int x0 = 0; x0 < kw; x0 += I2T_MCHUNK) {
      /* fragments down this chunk: 1 only for a last chunk of 16 columns */
      const int mf = min (I2T_MFRAGS, (kw_hat - x0) / I2T_FRAG);
      /* taps past kw are zero: their rows of the tile are not summed */
      const int a_end = min (I2T_MCHUNK, kw - x0);
      wmma::fragment < wmma::accumulator, I2T_FRAG, I2T_FRAG, I2T_FRAG,
          float >acc[I2T_MFRAGS][I2T_NFRAGS];

#pragma unroll
      for (int m = 0; m < I2T_MFRAGS; m++)
#pragma unroll
        for (int n = 0; n < I2T_NFRAGS; n++)
          wmma::fill_fragment (acc[m][n], 0.0f);

      /* P[x0 + x][c0 + c] += sum_{j < 16} K^T[x0 + x][16 q + j]
       *                                  I(c0 + c, y + 16 q + j) */
      for (int q = 0; q < nq; q++) {
        const __half *brow = pad + (size_t) (y + I2T_FRAG * q) * pad_pitch
            + c0;
        wmma::fragment < wmma::matrix_a, I2T_FRAG, I2T_FRAG, I2T_FRAG,
            __half, wmma::row_major > a[I2T_MFRAGS];

#pragma unroll
        for (int m = 0; m < I2T_MFRAGS; m++)
          if (m < mf)
            wmma::load_matrix_sync (a[m],
                kt + (size_t) (x0 + I2T_FRAG * m) * kh_hat + I2T_FRAG * q,
                (unsigned) kh_hat);
#pragma unroll
        for (int n = 0; n < I2T_NFRAGS; n++) {
          wmma::fragment < wmma::matrix_b, I2T_FRAG, I2T_FRAG, I2T_FRAG,
              __half, wmma::row_major > b;

          wmma::load_matrix_sync (b, brow + I2T_FRAG * n,
              (unsigned) pad_pitch);
#pragma unroll
          for (int m = 0; m < I2T_MFRAGS; m++)
            if (m < mf)
              wmma::mma_sync (acc[m][n], a[m], b, acc[m][n]);
        }
      }

#pragma unroll
      for (int m = 0; m < I2T_MFRAGS; m++)
        if (m < mf)
#pragma unroll
          for (int n = 0; n < I2T_NFRAGS; n++)
            wmma::store_matrix_sync (s_tile + I2T_FRAG * m * I2T_LDP
                + I2T_FRAG * n, acc[m][n], I2T_LDP, wmma::mem_row_major);
      __syncwarp ();

      /* diagonal t = c - x of the tile: elements (a, a + t) for rows a in
       * [max (0, -t), min (a_end, 64 - t)), summed in increasing a. Every
       * lane steps through the same row a at once, so a warp reads 32
       * consecutive words (no bank conflicts); lanes whose diagonal misses
       * row a sit that step out. Output column l = c0 - x0 + t, i.e.
       * s_acc[t - x0 + kw_hat - 1] (>= 0 whenever the diagonal is not
       * empty, since x0 + a_end <= kw). */
      for (int t = lane - (I2T_MCHUNK - 1); t < I2T_WB; t += I2T_WARP) {
        float s = 0.0f;

        for (int a = 0; a < a_end; a++) {
          const int b = a + t;

          if (b >= 0 && b < I2T_WB)
            s += s_tile[a * I2T_LDP + b];
        }
        if (max (0, -t) < min (a_end, I2T_WB - t))
          s_acc[t - x0 + kw_hat - 1] += s;
      }
      __syncwarp ();
    }

    /* this block's share of row y; l outside the image is discarded */
    {
      float *const crow = c_plane + (size_t) y * c_pitch;

      for (int t = lane; t < acc_len; t += I2T_WARP) {
        const int l = l0 + t;

        if (l >= 0 && l < width)
          crow[l] = s_acc[t];
      }
    }
    __syncwarp ();
  }
#endif
}

/**
 * \brief out(x, y) = out_scale * sum_{bj} C[bj mod c_rows][y][x] over the
 * blocks bj = floor (x / 64) .. floor ((x + kw - 1) / 64) whose columns
 * hold the taps of output x (each wrote that cell in this run).
 *
 * \param[in]  c          partial sums (im2tensor_fused_kernel)
 * \param[in]  c_pitch    floats per row of a C plane
 * \param[in]  c_rows     R_C
 * \param[out] dst        output plane; only in-image samples written
 * \param[in]  dst_pitch  elements between rows of dst
 * \param[in]  width      image width
 * \param[in]  height     image height
 * \param[in]  kw         kernel width
 * \param[in]  out_scale  1 / (s_in s_k)
 */
__global__ void
im2tensor_reduce_kernel (const float *__restrict__ c, size_t c_pitch,
    int c_rows, float *__restrict__ dst, size_t dst_pitch, int width,
    int height, int kw, float out_scale)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x < width && y < height) {
    const size_t plane = (size_t) height * c_pitch;
    const float *cell = c + (size_t) y * c_pitch + x;
    const int bj_last = (x + kw - 1) / I2T_WB;
    float s = 0.0f;

    for (int bj = x / I2T_WB; bj <= bj_last; bj++)
      s += cell[(size_t) (bj % c_rows) * plane];
    dst[(size_t) y * dst_pitch + x] = s * out_scale;
  }
}

}                               /* namespace */

extern "C" int
cf_im2tensor_c_rows (int kw_hat, int h_b, int w_b)
{
  return cf_div_up (kw_hat - 1, w_b) + kw_hat / h_b;
}

extern "C" cf_status
cf_cuda_convolve_im2tensor_new (int width, int height, const float *f,
    int kw, int kh, int ax, int ay, cf_border border,
    cf_cuda_convolve_im2tensor ** state)
{
  cf_status status = CF_OK;
  cf_cuda_convolve_im2tensor *p = NULL;
  __half *kt = NULL;
  size_t kt_count;
  float max_abs = 0.0f, k_scale = 1.0f;
  int device, major = 0, x, j;

  if (state != NULL)
    *state = NULL;
  if (state == NULL || f == NULL || width < 1 || height < 1
      || width > CF_MAX_DIMENSION || height > CF_MAX_DIMENSION
      || kw < 1 || kh < 1 || kw > CF_KERNEL_MAX_SIZE
      || kh > CF_KERNEL_MAX_SIZE || ax < 0 || ax >= kw || ay < 0 || ay >= kh
      || (unsigned) border >= CF_BORDER_COUNT)
    return CF_ERROR_INVALID;

  /* WMMA needs tensor cores: compute capability 7.0 or newer */
  status = cf_cuda_check (cudaGetDevice (&device));
  if (status != CF_OK)
    return status;
  status = cf_cuda_check (cudaDeviceGetAttribute (&major,
          cudaDevAttrComputeCapabilityMajor, device));
  if (status != CF_OK)
    return status;
  if (major < 7)
    return CF_ERROR_UNSUPPORTED;

  p = (cf_cuda_convolve_im2tensor *) calloc (1, sizeof (*p));
  if (p == NULL)
    return CF_ERROR_NO_MEMORY;
  p->width = width;
  p->height = height;
  p->kw = kw;
  p->kh = kh;
  p->ax = ax;
  p->ay = ay;
  p->border = border;
  p->kw_hat = round_up (kw, I2T_FRAG);
  p->kh_hat = round_up (kh, I2T_FRAG);
  /* blocks cover every column a tap of an output reads: c < W + kw - 1 */
  p->n_bj = cf_div_up (width + kw - 1, I2T_WB);
  p->pad_pitch = (size_t) p->n_bj * I2T_WB;
  /* the last output row reads rows up to H - 1 + kh_hat - 1 */
  p->pad_rows = height + p->kh_hat - 1;
  /* one block covers all kernel columns: h_B = kw_hat */
  p->c_rows = cf_im2tensor_c_rows (p->kw_hat, p->kw_hat, I2T_WB);
  p->c_pitch = (size_t) round_up (width, 32);
  p->smem_bytes = fused_smem_bytes (p->kw_hat);

  /* s_k: max |F| s_k in [1, 2); exact power of two, so out_scale undoes it
   * exactly. An all-zero or non-finite kernel keeps s_k = 1. */
  for (j = 0; j < kh; j++)
    for (x = 0; x < kw; x++)
      max_abs = fmaxf (max_abs, fabsf (f[x + (size_t) j * kw]));
  if (max_abs > 0.0f && isfinite (max_abs)) {
    int e;

    (void) frexpf (max_abs, &e);        /* max_abs = m 2^e, m in [0.5, 1) */
    e = 1 - e;
    e = e < -100 ? -100 : (e > 100 ? 100 : e);
    k_scale = ldexpf (1.0f, e);
  }
  p->out_scale = 1.0f / (CF_IM2TENSOR_INPUT_SCALE * k_scale);

  /* K^T, zero padded (the paper's eq. 12): kt[x][j] = s_k F[j][x] */
  kt_count = (size_t) p->kw_hat * p->kh_hat;
  kt = (__half *) malloc (kt_count * sizeof (__half));
  if (kt == NULL) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }
  for (x = 0; x < p->kw_hat; x++)
    for (j = 0; j < p->kh_hat; j++)
      kt[(size_t) x * p->kh_hat + j] = __float2half_rn (x < kw && j < kh
          ? f[x + (size_t) j * kw] * k_scale : 0.0f);

  CF_CUDA_TRY (cudaMalloc ((void **) &p->kt, kt_count * sizeof (__half)));
  CF_CUDA_TRY (cudaMalloc ((void **) &p->pad,
          p->pad_pitch * p->pad_rows * sizeof (__half)));
  CF_CUDA_TRY (cudaMalloc ((void **) &p->c,
          (size_t) p->c_rows * height * p->c_pitch * sizeof (float)));
  CF_CUDA_TRY (cudaMemcpy (p->kt, kt, kt_count * sizeof (__half),
          cudaMemcpyHostToDevice));
  /* every run rewrites the whole padded image, and the reduce reads only
   * cells of C written in the same run; zeroed anyway, so nothing a kernel
   * could read is ever uninitialised */
  CF_CUDA_TRY (cudaMemset (p->pad, 0,
          p->pad_pitch * p->pad_rows * sizeof (__half)));
  CF_CUDA_TRY (cudaMemset (p->c, 0,
          (size_t) p->c_rows * height * p->c_pitch * sizeof (float)));
  /* above 48 KB dynamic shared memory needs an opt-in; always to the
   * largest any plan can ask for, so two plans never undo each other */
  if (p->smem_bytes > I2T_SMEM_DEFAULT)
    CF_CUDA_TRY (cudaFuncSetAttribute (im2tensor_fused_kernel,
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            (int) fused_smem_bytes (round_up (CF_KERNEL_MAX_SIZE,
                    I2T_FRAG))));
  /* the pageable copy and the memsets are done before any run */
  CF_CUDA_TRY (cudaStreamSynchronize (0));

out:
  free (kt);
  if (status != CF_OK) {
    cf_cuda_convolve_im2tensor_free (p);
    return status;
  }
  *state = p;
  return CF_OK;
}

extern "C" cf_status
cf_cuda_convolve_im2tensor_run (cf_cuda_convolve_im2tensor * state,
    const float *src, size_t src_pitch, float *dst, size_t dst_pitch,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 block2d (I2T_BLOCK_X, I2T_BLOCK_Y);

  if (state == NULL || src == NULL || dst == NULL
      || src_pitch < (size_t) state->width
      || dst_pitch < (size_t) state->width)
    return CF_ERROR_INVALID;

  {
    /* one thread per pair of halves, over the whole padded buffer */
    const dim3 grid (cf_div_up ((int) (state->pad_pitch / 2), I2T_BLOCK_X),
        cf_div_up (state->pad_rows, I2T_BLOCK_Y));

    im2tensor_pad_kernel <<< grid, block2d, 0, stream >>> (src, src_pitch,
        state->pad, state->pad_pitch, state->pad_rows, state->width,
        state->height, state->width + state->kw - 1,
        state->height + state->kh - 1, state->ax, state->ay, state->border,
        CF_IM2TENSOR_INPUT_SCALE);
    CF_CUDA_TRY_LAUNCH ();
  }
  {
    const dim3 grid (state->n_bj, cf_div_up (state->height, I2T_ROWS));

    im2tensor_fused_kernel <<< grid, I2T_THREADS, state->smem_bytes,
        stream >>> (state->pad, state->pad_pitch, state->kt, state->kw,
        state->kw_hat, state->kh_hat, state->c, state->c_pitch,
        state->c_rows, state->width, state->height);
    CF_CUDA_TRY_LAUNCH ();
  }
  {
    const dim3 grid (cf_div_up (state->width, I2T_BLOCK_X),
        cf_div_up (state->height, I2T_BLOCK_Y));

    im2tensor_reduce_kernel <<< grid, block2d, 0, stream >>> (state->c,
        state->c_pitch, state->c_rows, dst, dst_pitch, state->width,
        state->height, state->kw, state->out_scale);
    CF_CUDA_TRY_LAUNCH ();
  }
out:
  return status;
}

extern "C" void
cf_cuda_convolve_im2tensor_free (cf_cuda_convolve_im2tensor * state)
{
  if (state == NULL)
    return;
  if (state->kt != NULL)
    cf_cuda_check (cudaFree (state->kt));
  if (state->pad != NULL)
    cf_cuda_check (cudaFree (state->pad));
  if (state->c != NULL)
    cf_cuda_check (cudaFree (state->c));
  free (state);
}
