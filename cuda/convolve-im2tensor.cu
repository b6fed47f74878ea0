/* gst-cudaflow — im2tensor 2-D correlation on tensor cores: the plan, the
 * pad kernel and the WMMA kernel (fused variant)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * im2tensor (Seznec, Gac, Orieux, Sashala Naik, JRTIP 19:1035, 2022;
 * docs/references.md). Computes the correlation form of cf_convolve ():
 *   out(x, y) = sum_{j<kh} sum_{i<kw} F[j][i] in(fold(x+i-ax), fold(y+j-ay)).
 * A plan runs one of two kernels (cf_im2tensor_variant): on compute
 * capability 8.0 and newer, when the band of the kernel fits in shared
 * memory, the MMA kernel of convolve-im2tensor-mma.cu (the same products,
 * with the diagonal sums done by the accumulators; its image rows staged
 * in shared memory, or, as CF_IM2TENSOR_VARIANT_MMA_REGS, loaded into
 * registers); else the WMMA kernel below, the paper's fused variant with
 * a safe bound on the rows of the partial-sum buffer C.
 *
 * 'same' as 'valid' on a padded image (as in the paper). Per run, the pad
 * kernel writes the padded fp16 image
 *   I(u, v) = s_in in(fold(u - ax), fold(v - ay))  for u < W + kw - 1 and
 *                                                   v < H + kh - 1,
 *   I(u, v) = 0                                     elsewhere,
 * over the whole pitched buffer (every sample a tile may read is finite:
 * padded taps multiply it by 0, and 0 x Inf = NaN would poison a sum);
 * (im2tensor_pad_pair () in convolve-im2tensor.cuh).
 *
 * The WMMA kernel. out(y, l) = sum_{j,i} F[j][i] I(l + i, y + j) is a
 * 'valid' correlation, in index form (x the kernel column):
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
 * Launch: pad (32 x 8 threads, 8 halves of each plane each), fused (128
 * threads = 4 warps, grid ceil ((W + kw - 1) / 64) x ceil (H / 16),
 * dynamic shared memory 4 x (32 x 72 + ceil8 (kw_hat + 63)) floats: 38 KB
 * for kw <= 32, 53 KB at kw = 1023), reduce (32 x 8 threads, one per
 * output).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/convolve-im2tensor.cuh"

#include "common/image.h"
#include "common/kernel.h"

#include <mma.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cf_cuda_convolve_im2tensor
{
  int width;
  int height;
  int kw;
  int kh;
  cf_im2tensor_variant variant; /* WMMA, MMA or MMA_REGS */
  im2tensor_pad_geometry pad_geo;       /* planes of the padded image */
  __half *pad;                  /* the padded image (pad_geo) */
  float out_scale;              /* 1 / (s_in s_k), a power of two */
  /* MMA kernel */
  im2tensor_mma_geometry mma;
  __half *band;                 /* s_k F, band_rows rows of band_pitch */
  int mma_pdl;                  /* launched as a programmatic dependent of
                                 * the padding pass (mma_dependent_launch) */
  /* WMMA kernel */
  int kw_hat;                   /* kw rounded up to 16 */
  int kh_hat;                   /* kh rounded up to 16 */
  int n_bj;                     /* blocks across: ceil ((W + kw - 1) / 64) */
  int c_rows;                   /* R_C */
  __half *kt;                   /* kw_hat rows of kh_hat: s_k K^T, padded */
  float *c;                     /* c_rows planes of H rows of c_pitch */
  size_t c_pitch;               /* floats */
  size_t smem_bytes;            /* dynamic shared memory of the fused kernel */
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
/* Launch shape of the pad and reduce kernels. */
constexpr int I2T_BLOCK_X = 32;
constexpr int I2T_BLOCK_Y = 8;

static_assert (I2T_ROWS % I2T_WARPS == 0, "rows split evenly over warps");
static_assert (I2T_MCHUNK <= I2T_WARP, "one diagonal pass per 32 lanes");
static_assert (I2T_LDP % 4 == 0, "WMMA float ldm must be a multiple of 4");
static_assert ((I2T_FRAG * I2T_LDP * sizeof (float)) % 32 == 0,
    "every P fragment row block must start 32-byte aligned");
static_assert (I2T_TILE_FLOATS % 8 == 0, "warp regions stay 32-byte aligned");
static_assert (I2T_WB % I2T_PAD_RUN == 0,
    "the pitch of the WMMA kernel's plane, n_bj W_B, is whole runs");

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

/**
 * \brief The padded fp16 image, every sample of the pitched buffer
 * (im2tensor_pad_pair (), file comment), I2T_PAD_RUN columns per thread
 * (im2tensor_pad_run ()): one 16-byte store, and no fold at all inside
 * the image, so the kernel moves bytes instead of folding coordinates.
 *
 * \param[in]  src        input plane
 * \param[in]  src_pitch  elements between rows of src
 * \param[in]  geo        sizes, anchor, border rule, s_in; pitch a
 *                        multiple of I2T_PAD_RUN
 * \param[out] pad        geo.rows x geo.pitch halves, 16-byte aligned
 */
__global__ void
im2tensor_pad_kernel (const float *__restrict__ src, size_t src_pitch,
    im2tensor_pad_geometry geo, __half * __restrict__ pad)
{
  const size_t u =
      I2T_PAD_RUN * ((size_t) blockIdx.x * blockDim.x + threadIdx.x);
  const int v = blockIdx.y * blockDim.y + threadIdx.y;

  /* the MMA kernel may start (its band copy); it waits for this grid
   * before it reads the padded image */
  cf_pdl_launch_dependents ();
  if (u < geo.pitch && v < geo.rows)
    im2tensor_pad_run (src, src_pitch, &geo, pad, u, v);
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

/* The WMMA kernel's buffers: s_k K^T (the paper's eq. 12), zero padded,
 * the one-plane padded image and C. */
static cf_status
wmma_new (cf_cuda_convolve_im2tensor * p, const float *f, int ax, int ay,
    cf_border border, float k_scale)
{
  cf_status status = CF_OK;
  const int kw = p->kw, kh = p->kh;
  __half *kt = NULL;
  size_t kt_count;
  int x, j;

  p->kw_hat = round_up (kw, I2T_FRAG);
  p->kh_hat = round_up (kh, I2T_FRAG);
  /* blocks cover every column a tap of an output reads: c < W + kw - 1 */
  p->n_bj = cf_div_up (p->width + kw - 1, I2T_WB);
  /* the last output row reads rows up to H - 1 + kh_hat - 1 */
  p->pad_geo = im2tensor_pad_geometry_make (p->width, p->height, kw, kh, ax,
      ay, border, (size_t) p->n_bj * I2T_WB, p->height + p->kh_hat - 1);
  /* one block covers all kernel columns: h_B = kw_hat */
  p->c_rows = cf_im2tensor_c_rows (p->kw_hat, p->kw_hat, I2T_WB);
  p->c_pitch = (size_t) round_up (p->width, 32);
  p->smem_bytes = fused_smem_bytes (p->kw_hat);

  /* K^T, zero padded (the paper's eq. 12): kt[x][j] = s_k F[j][x] */
  kt_count = (size_t) p->kw_hat * p->kh_hat;
  kt = (__half *) malloc (kt_count * sizeof (__half));
  if (kt == NULL)
    return CF_ERROR_NO_MEMORY;
  for (x = 0; x < p->kw_hat; x++)
    for (j = 0; j < p->kh_hat; j++)
      kt[(size_t) x * p->kh_hat + j] = __float2half_rn (x < kw && j < kh
          ? f[x + (size_t) j * kw] * k_scale : 0.0f);

  CF_CUDA_TRY (cudaMalloc ((void **) &p->kt, kt_count * sizeof (__half)));
  CF_CUDA_TRY (cudaMalloc ((void **) &p->c,
          (size_t) p->c_rows * p->height * p->c_pitch * sizeof (float)));
  CF_CUDA_TRY (cudaMemcpy (p->kt, kt, kt_count * sizeof (__half),
          cudaMemcpyHostToDevice));
  /* the reduce reads only cells of C written in the same run; zeroed
   * anyway, so nothing a kernel could read is ever uninitialised */
  CF_CUDA_TRY (cudaMemset (p->c, 0,
          (size_t) p->c_rows * p->height * p->c_pitch * sizeof (float)));
  /* above 48 KB dynamic shared memory needs an opt-in; always to the
   * largest any plan can ask for, so two plans never undo each other */
  if (p->smem_bytes > I2T_SMEM_DEFAULT)
    CF_CUDA_TRY (cudaFuncSetAttribute (im2tensor_fused_kernel,
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            (int) fused_smem_bytes (round_up (CF_KERNEL_MAX_SIZE,
                    I2T_FRAG))));
out:
  free (kt);
  return status;
}

/* The MMA kernel's buffers: the two bands of s_k F and the padded image
 * (convolve-im2tensor-mma.cu). */
static cf_status
mma_new (cf_cuda_convolve_im2tensor * p, const float *f, int ax, int ay,
    cf_border border, float k_scale)
{
  cf_status status = CF_OK;
  const size_t bytes = im2tensor_mma_band_bytes (&p->mma);
  __half *band = (__half *) malloc (bytes);

  if (band == NULL)
    return CF_ERROR_NO_MEMORY;
  im2tensor_mma_band_fill (f, p->kw, p->kh, k_scale, &p->mma, band);
  p->pad_geo = im2tensor_pad_geometry_make (p->width, p->height, p->kw,
      p->kh, ax, ay, border, p->mma.pad_pitch, p->mma.pad_rows);
  CF_CUDA_TRY (cudaMalloc ((void **) &p->band, bytes));
  CF_CUDA_TRY (cudaMemcpy (p->band, band, bytes, cudaMemcpyHostToDevice));
out:
  free (band);
  return status;
}

/* Whether the MMA kernel of @variant starts as a programmatic dependent
 * of the padding pass, its launch and band copy overlapping the pass's
 * last blocks: where the device has programmatic dependent launch and
 * the grid has at most one block per multiprocessor or fills every
 * multiprocessor at least once. In between, blocks that start early
 * crowd onto the multiprocessors the pass frees first, up to their
 * occupancy, where an ordinary launch spreads them over all (1.2-1.9
 * times slower at 1080p, K >= 31, on an H100: docs/convolution.md,
 * "The MMA kernel as a dependent launch"). */
static int
mma_dependent_launch (const im2tensor_mma_geometry * geo,
    cf_im2tensor_variant variant, int sms)
{
  const long blocks = (long) geo->n_bx * geo->n_by;
  int per_sm;

  if (sms <= 0 || !cf_cuda_pdl_supported ())
    return 0;
  if (blocks <= sms)
    return 1;
  per_sm = im2tensor_mma_blocks_per_sm (geo, variant);
  return per_sm > 0 && blocks >= (long) sms * per_sm;
}

/* AUTO's order of preference among the MMA kernels */
static const cf_im2tensor_variant mma_variants[] = {
  CF_IM2TENSOR_VARIANT_MMA, CF_IM2TENSOR_VARIANT_MMA_REGS
};

extern "C" cf_status
cf_cuda_convolve_im2tensor_new (int width, int height, const float *f,
    int kw, int kh, int ax, int ay, cf_border border,
    cf_im2tensor_variant variant, cf_cuda_convolve_im2tensor ** state)
{
  cf_status status = CF_OK;
  cf_cuda_convolve_im2tensor *p = NULL;
  float k_scale;
  size_t pad_bytes;
  int device, major = 0, mma_runs = 0, sms = 0;
  size_t i;

  if (state != NULL)
    *state = NULL;
  if (state == NULL || f == NULL || width < 1 || height < 1
      || width > CF_MAX_DIMENSION || height > CF_MAX_DIMENSION
      || kw < 1 || kh < 1 || kw > CF_KERNEL_MAX_SIZE
      || kh > CF_KERNEL_MAX_SIZE || ax < 0 || ax >= kw || ay < 0 || ay >= kh
      || (unsigned) border >= CF_BORDER_COUNT
      || (unsigned) variant > CF_IM2TENSOR_VARIANT_MMA_REGS)
    return CF_ERROR_INVALID;

  /* tensor cores: compute capability 7.0 or newer */
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

  /* the kernel asked for; for AUTO the first that runs of MMA, MMA_REGS
   * (the band alone fits where the band and the rings do not), WMMA */
  status = cf_cuda_check (cudaDeviceGetAttribute (&sms,
          cudaDevAttrMultiProcessorCount, device));
  if (status != CF_OK)
    goto out;
  im2tensor_mma_geometry_init (width, height, kw, kh, sms, &p->mma);
  p->variant = CF_IM2TENSOR_VARIANT_WMMA;
  for (i = 0; i < sizeof (mma_variants) / sizeof (mma_variants[0])
      && variant != CF_IM2TENSOR_VARIANT_WMMA; i++) {
    if (variant != CF_IM2TENSOR_VARIANT_AUTO && variant != mma_variants[i])
      continue;
    status = im2tensor_mma_prepare (&p->mma, mma_variants[i], &mma_runs);
    if (status != CF_OK)
      goto out;
    if (mma_runs) {
      p->variant = mma_variants[i];
      break;
    }
    if (variant != CF_IM2TENSOR_VARIANT_AUTO) {
      status = CF_ERROR_UNSUPPORTED;
      goto out;
    }
  }

  if (p->variant != CF_IM2TENSOR_VARIANT_WMMA)
    p->mma_pdl = mma_dependent_launch (&p->mma, p->variant, sms);

  /* s_k, exact power of two: out_scale undoes it exactly */
  k_scale = im2tensor_kernel_scale (f, kw, kh);
  p->out_scale = 1.0f / (CF_IM2TENSOR_INPUT_SCALE * k_scale);
  if (p->variant != CF_IM2TENSOR_VARIANT_WMMA)
    status = mma_new (p, f, ax, ay, border, k_scale);
  else
    status = wmma_new (p, f, ax, ay, border, k_scale);
  if (status != CF_OK)
    goto out;

  /* every run rewrites the whole padded image; zeroed anyway, so nothing
   * a kernel could read is ever uninitialised. cudaMalloc aligns to 256
   * bytes and the pitch is whole runs of the pad kernel, so its 16-byte
   * stores are aligned. */
  pad_bytes = p->pad_geo.pitch * p->pad_geo.rows * sizeof (__half);
  CF_CUDA_TRY (cudaMalloc ((void **) &p->pad, pad_bytes));
  CF_CUDA_TRY (cudaMemset (p->pad, 0, pad_bytes));
  /* the pageable copies and the memsets are done before any run */
  CF_CUDA_TRY (cudaStreamSynchronize (0));

out:
  if (status != CF_OK) {
    cf_cuda_convolve_im2tensor_free (p);
    return status;
  }
  *state = p;
  return CF_OK;
}

extern "C" int
cf_cuda_convolve_im2tensor_mma_runs (int kw, int kh)
{
  im2tensor_mma_geometry geo;
  int device, major = 0, runs = 0;

  if (kw < 1 || kh < 1 || kw > CF_KERNEL_MAX_SIZE || kh > CF_KERNEL_MAX_SIZE
      || cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          device) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  if (major < 7)
    return 0;
  /* the band's size does not depend on the image's; either MMA loop */
  im2tensor_mma_geometry_init (1, 1, kw, kh, 0, &geo);
  for (size_t i = 0; i < sizeof (mma_variants) / sizeof (mma_variants[0])
      && !runs; i++)
    if (im2tensor_mma_prepare (&geo, mma_variants[i], &runs) != CF_OK) {
      (void) cudaGetLastError ();
      return 0;
    }
  return runs;
}

extern "C" cf_im2tensor_variant
cf_cuda_convolve_im2tensor_variant (const cf_cuda_convolve_im2tensor * state)
{
  return state != NULL ? state->variant : CF_IM2TENSOR_VARIANT_AUTO;
}

extern "C" int
cf_cuda_convolve_im2tensor_warp_columns (const cf_cuda_convolve_im2tensor *
    state)
{
  if (state == NULL || state->variant == CF_IM2TENSOR_VARIANT_WMMA)
    return 0;
  return 16 * state->mma.mt;    /* an m-tile is 16 columns */
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
    /* one thread per run of I2T_PAD_RUN halves of each plane, over the
     * whole buffer (the pitch is a multiple of 64 halves: n_bj W_B, or
     * im2tensor_mma_geometry_init ()) */
    const dim3 grid (cf_div_up ((int) (state->pad_geo.pitch / I2T_PAD_RUN),
            I2T_BLOCK_X), cf_div_up (state->pad_geo.rows, I2T_BLOCK_Y));

    im2tensor_pad_kernel <<< grid, block2d, 0, stream >>> (src, src_pitch,
        state->pad_geo, state->pad);
    CF_CUDA_TRY_LAUNCH ();
  }
  if (state->variant != CF_IM2TENSOR_VARIANT_WMMA)
    return im2tensor_mma_launch (&state->mma, state->variant, state->pad,
        state->band,
        state->kh, dst, dst_pitch, state->width, state->height,
        state->out_scale, state->mma_pdl, stream);
  {
    const dim3 grid (state->n_bj, cf_div_up (state->height, I2T_ROWS));

    im2tensor_fused_kernel <<< grid, I2T_THREADS, state->smem_bytes,
        stream >>> (state->pad, state->pad_geo.pitch, state->kt, state->kw,
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

extern "C" cf_status
cf_im2tensor_pad_compare (const cf_image * src, int kw, int kh, int ax,
    int ay, cf_border border, size_t pitch, int rows, long *mismatches,
    long *first)
{
  im2tensor_pad_geometry g;
  size_t count, bytes, n;
  uint16_t *by_pair, *by_run;   /* the halves' bits */
  long bad = 0, at = -1;
  int v;

  if (src == NULL || src->data == NULL || mismatches == NULL
      || src->width < 1 || src->height < 1 || src->width > CF_MAX_DIMENSION
      || src->height > CF_MAX_DIMENSION || kw < 1 || kh < 1
      || kw > CF_KERNEL_MAX_SIZE || kh > CF_KERNEL_MAX_SIZE
      || ax < 0 || ax >= kw || ay < 0 || ay >= kh
      || (unsigned) border >= CF_BORDER_COUNT || pitch < I2T_PAD_RUN
      || pitch % I2T_PAD_RUN != 0 || pitch > (size_t) INT32_MAX / 2
      || rows < 1 || rows > CF_MAX_DIMENSION + CF_KERNEL_MAX_SIZE)
    return CF_ERROR_INVALID;

  g = im2tensor_pad_geometry_make (src->width, src->height, kw, kh, ax, ay,
      border, pitch, rows);
  count = pitch * rows;
  /* whole 16-byte vectors: the runs' stores are aligned */
  bytes = count * sizeof (__half);
  by_pair = (uint16_t *) aligned_alloc (16, bytes);
  by_run = (uint16_t *) aligned_alloc (16, bytes);
  if (by_pair == NULL || by_run == NULL) {
    free (by_pair);
    free (by_run);
    return CF_ERROR_NO_MEMORY;
  }
  /* poisoned differently, so a half that either leaves unwritten differs */
  memset (by_pair, 0x55, bytes);
  memset (by_run, 0xaa, bytes);

  for (v = 0; v < rows; v++) {
    for (size_t u = 0; u < pitch; u += 2)
      im2tensor_pad_pair (src->data, src->pitch, &g,
          reinterpret_cast < __half * >(by_pair), u, v);
    /* the threads of the pad kernel's grid, as its guard keeps them */
    for (size_t u = 0; u < pitch; u += I2T_PAD_RUN)
      im2tensor_pad_run (src->data, src->pitch, &g,
          reinterpret_cast < __half * >(by_run), u, v);
  }

  for (n = 0; n < count; n++)
    if (by_pair[n] != by_run[n]) {
      if (at < 0)
        at = (long) n;
      bad++;
    }
  *mismatches = bad;
  if (first != NULL)
    *first = at;
  free (by_pair);
  free (by_run);
  return CF_OK;
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
  if (state->band != NULL)
    cf_cuda_check (cudaFree (state->band));
  free (state);
}
