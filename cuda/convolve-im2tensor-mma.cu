/* gst-cudaflow — im2tensor on mma.sync: Hankel image tiles, banded kernel
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tensor-core products of im2tensor (Seznec, Gac, Orieux, Sashala Naik,
 * JRTIP 19:1035, 2022; docs/references.md) rearranged so that the
 * diagonal sums of the paper (its Tr+ step, the partial-sum buffer C and
 * the reduce kernel of convolve-im2tensor.cu) happen inside the MMA
 * accumulators. On the padded image I (convolve-im2tensor.cu) it computes
 * the correlation
 *   out(x, y) = sum_{j<kh} sum_{i<kw} F[j][i] I(x + i, y + j)
 * with mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (compute
 * capability 8.0 and newer): M = 16 output columns x of one parity, N = 8
 * consecutive output rows y, MMA-K = 16 consecutive taps. A warp's
 * columns come in m-tile pairs: at x0 (even), m-tile 2q holds the even
 * columns x0 + 32 q + 2m and m-tile 2q + 1 the odd ones x0 + 32 q + 2m + 1.
 * The odd m-tile reads its taps one column to the left, so that both read
 * the same image words: with F_0 = F and F_1 the kernel moved one tap on
 * (F_1[j][i] = F[j][i - 1], 0 at i = 0, so kw + 1 taps), for the m-tile of
 * parity o, each padded row r and each k-step s,
 *   A_r[m][k] = I(x0 + 32 q + 2m + 16 s + k, r)      (the same for o = 0, 1)
 *   B_r[k][n] = F_o[r - y0 - n][16 s + k]  for 0 <= r - y0 - n < kh, else 0
 *   D[m][n]  += sum_k A_r[m][k] B_r[k][n]
 * Summed over every r, D[m][n] = out(x0 + 32 q + 2m + o, y0 + n): the row
 * r meets output row y0 + n through kernel row r - y0 - n, so B_r is a
 * band of the kernel (one band per parity), and the paper's diagonals are
 * summed by the accumulators.
 *
 * Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating
 * point type"), lane = 4 g + t:
 *   A: a0 = A[g][2t, 2t+1], a1 = A[g+8][2t, 2t+1], a2 = A[g][2t+8, 2t+9],
 *      a3 = A[g+8][2t+8, 2t+9]
 *   B: b0 = B[2t, 2t+1][g], b1 = B[2t+8, 2t+9][g]
 *   D: d0, d1 = D[g][2t, 2t+1], d2, d3 = D[g+8][2t, 2t+1]
 * (each 32-bit register holds the element of lower index in its low half).
 * Every A register of a warp's tile is a pair pair(c) = (I(u, r), I(u + 1,
 * r)) at u = x0 + 2g + 2t + 8c, c = 4 q + 2 s + {0, 2, 1, 3} for a0 .. a3:
 * per row a lane holds the 2 MT + 2 KS - 2 pairs it needs, words g + t +
 * 4c of the row, every one 4-byte aligned since u is even. (With m-tiles
 * of 16 consecutive columns, half the lanes' pairs would start at odd
 * columns; the pad kernel then had to write a second plane I(u + 1, v),
 * which cost the pass a third of its time and the MMA kernel half its
 * row copies.) The lane's d0 of m-tiles 2q and 2q + 1 are neighbouring
 * outputs, stored as one float2.
 *
 * Two row loops, the same products (cf_im2tensor_variant):
 *  - registers (MMA_REGS): the pairs are read straight from global memory
 *    through the read-only cache; the next row's are loaded into a second
 *    set of registers before the current row's MMAs are issued.
 *  - staged (MMA): each warp has a ring of MMA_RING rows in shared memory.
 *    A row is 4 (2 MT + 2 KS) words from half u0 = x0 + tap0, whole
 *    16-byte vectors (at most 24: one cp.async.cg a lane). Row r
 *    of the chunk goes to slot r % MMA_RING in a commit group of its own,
 *    issued MMA_RING - 1 rows ahead; iteration r waits until at most
 *    MMA_RING - 2 groups are in flight (row r has landed), __syncwarp ()s
 *    (every lane's copy is visible, every lane has read slot (r - 1) %
 *    MMA_RING), issues row r + MMA_RING - 1 into that slot, then reads
 *    its pairs with 32-bit shared loads (the lanes of one load read 11
 *    consecutive words: no bank conflict).
 *
 * The bands: band o holds F_o, kernel rows d' = -7 .. kh + 6 (zero
 * outside 0 .. kh - 1), kw_band taps each (kw_band >= kw + 1, zero past
 * the kernel), row pitch kw_band + 8 halves; both are copied once per
 * block into shared memory, band 1 after band 0. For n-tile nt, d = r -
 * y0 - 8 nt: b0 is the word at band row d - g, taps 16 s + 2t; b1 at taps
 * 16 s + 2t + 8. Those words are ldmatrix's fragments of the 8 x 8
 * matrices whose rows are 8 taps of band rows d .. d - 7, so one ldmatrix
 * .x4 loads b0 and b1 of both bands for one k-step and n-tile
 * (mma_load_b); the pitch in words, an odd multiple of 4, puts a
 * matrix's 8 rows in distinct 16-byte bank groups.
 *
 * Tiling: a warp owns MT = 8 m-tiles by NT = 2 n-tiles, 128 columns by
 * 16 rows (64 fp32 accumulators per lane; below, 4 m-tiles), and walks
 * the rows r = y0 ..
 * y0 + 15 + kh - 1; n-tile nt takes part only while 0 <= d <= kh + 6, so
 * rows of B that are entirely zero are skipped. The n-tiles that meet a
 * row are one range, and each range has its own branch-free body
 * (mma_row_products_range, which issues one k-step of every n-tile at a
 * time, so an accumulator's MMAs are further apart); the
 * staged loop picks a row's body by a switch, or, in the kernels where
 * that measured faster, walks each range's rows as a loop of its own
 * (mma_rows_in_runs). Against
 * 64 x 32 warps (MT = NT = 4), a warp walks 16 + kh - 1 rows instead of
 * 32 + kh - 1 for the same outputs, and more of its rows keep every
 * n-tile busy (83 % of row x n-tile slots at kh = 31 instead of 61 %):
 * 11-26 % faster at 1080p, 0-5 % at 4096^2 (docs/convolution.md). Where
 * a grid of such blocks would have no more blocks than the device has
 * SMs, a frame lasts one warp's walk and most SMs idle: there warps of
 * MT = 4 m-tiles (64 x 16 outputs, twice as many blocks, 80 registers)
 * run instead, 9-14 % faster at 1280 x 720, while at 1080p and up they
 * lose 4-14 % (more row copies per output); MT is a template parameter
 * and the geometry's mt picks it. A block stacks 4 warps vertically
 * (16 MT x 64 outputs, 128 threads); its
 * only barrier follows the band copy (the staged loop's waits are per
 * warp), and its dynamic shared memory is the two bands, then the staged
 * loop's four rings. KS = ceil ((kw + 1) / 16) k-steps, a template
 * parameter 1 .. 4; kernels of 64 taps or more walk the rows once per
 * chunk of 64 taps (KS = 4), the accumulators kept. Plans whose bands
 * do not fit in shared memory use the WMMA kernel; a plan left to choose
 * whose bands fit but not with the rings uses the register loop (which,
 * holding two rows of 128-column pairs, spills 8-40 bytes a thread at
 * KS = 3 and 4 under the 128-register budget; with the 163 KB or more of
 * an A100 or H100 the bands and the rings always fit).
 *
 * The warp's program, mma_warp_tile (), is written once over a lane
 * policy: mma_device_warp runs it as one lane of a real warp (inline
 * PTX mma and cp.async), mma_host_warp runs it for all 32 lanes on the
 * CPU with an mma that assembles A, B and D from the lanes' registers by
 * the layouts above and multiplies in fp32, and a ring in host memory
 * whose copies land at the wait that guarantees them (NaN until then).
 * cf_im2tensor_mma_emulate () runs the whole image that way, in either
 * loop, from the same pad, band and scale functions as the plan
 * (convolve-im2tensor.cuh): the CPU test of this kernel's indexing (not
 * of its __syncwarp ()s: the CPU lanes run each step in lockstep).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/convolve-im2tensor.cuh"
#include "cuda/convolve.h"

#include <limits.h>
#include <stdlib.h>

namespace {

/* MMA shape: m16n8k16, fp16 A and B, fp32 accumulators. */
constexpr int MMA_M = 16;
constexpr int MMA_N = 8;
constexpr int MMA_K = 16;
/* Tiles of a warp: MT across, MMA_MT_WIDE (128 columns) or, where a
 * grid of those would leave most SMs idle, MMA_MT_NARROW (64 columns);
 * MMA_NT down (16 rows); the file comment says why these shapes. */
constexpr int MMA_MT_WIDE = 8;
constexpr int MMA_MT_NARROW = 4;
constexpr int MMA_NT = 2;
constexpr int MMA_TILE_H = MMA_N * MMA_NT;
/* Taps per chunk: at most 4 k-steps of 16. */
constexpr int MMA_KS_MAX = 4;
constexpr int MMA_CHUNK = MMA_K * MMA_KS_MAX;
/* Lanes, warps per block (stacked vertically), threads. */
constexpr int MMA_LANES = 32;
constexpr int MMA_WARPS = 4;
constexpr int MMA_THREADS = MMA_LANES * MMA_WARPS;
constexpr int MMA_BLOCK_H = MMA_TILE_H * MMA_WARPS;
/* Blocks per multiprocessor the registers are budgeted for: 128 threads
 * x 4 blocks leaves 128 registers a thread. */
constexpr int MMA_MIN_BLOCKS = 4;
/* Zero band rows above row 0 of F (and below row kh - 1): b0 reads band
 * row d - g for d in 0 .. kh + 6 and g in 0 .. 7. */
constexpr int MMA_BAND_MARGIN = MMA_N - 1;
/* Halves added to each band row: with kw_band a multiple of 16 the pitch
 * is 4 mod 8 words, an odd multiple of 4 (file comment). */
constexpr int MMA_BAND_SKEW = 8;
/* Halves per band row of kw_band taps: the geometry's band_pitch, and
 * the pitch the kernels that know their band at compile time use
 * (mma_band_fixed). */
static constexpr __host__ __device__ int
mma_band_pitch (int kw_band)
{
  return kw_band + MMA_BAND_SKEW;
}

/* Default limit of dynamic shared memory without an opt-in. */
constexpr size_t MMA_SMEM_DEFAULT = 48 * 1024;
/* The staged loop: rows in each warp's ring, copies issued MMA_RING - 1
 * rows ahead of the row being multiplied. */
constexpr int MMA_RING = 4;
/* What a staged word reads while its copy may still be in flight (CPU
 * emulation only): two fp16 NaNs. */
constexpr uint32_t MMA_STAGE_POISON = 0x7e007e00u;

/* Full unrolling of the loops over registers (they must stay registers)
 * on the device; the host compiler, which also sees the host-device
 * functions below, does not know nvcc's pragma. */
#ifdef __CUDA_ARCH__
#define MMA_UNROLL _Pragma ("unroll")
#else
#define MMA_UNROLL
#endif

/* Output columns of a warp of MT m-tiles (and of its block). */
static constexpr __host__ __device__ int
mma_tile_w (int mt)
{
  return MMA_M * mt;
}

static_assert (mma_tile_w (MMA_MT_WIDE) == 128
    && mma_tile_w (MMA_MT_NARROW) == 64 && MMA_BLOCK_H == 64
    && MMA_CHUNK == 64,
    "the geometry of the file comment and of im2tensor_mma_geometry_init ()");
static_assert (mma_tile_w (MMA_MT_NARROW) % I2T_PAD_RUN == 0
    && MMA_CHUNK % I2T_PAD_RUN == 0,
    "the pad pitch of im2tensor_mma_geometry_init () is whole runs of the "
    "pad kernel, so its 16-byte stores stay aligned");

/* Words of a padded row that the pairs of a lane reach: pair c of lane
 * (g, t) is word g + t + 4c, at most 10 + 4 (PAIRS - 1) with PAIRS =
 * 2 MT + 2 KS - 2; 4 (2 MT + 2 KS) words is whole 16-byte vectors. From
 * u0 (a multiple of 64 halves) on. */
static constexpr __host__ __device__ int
mma_stage_words (int mt, int ks)
{
  return 4 * (2 * mt + 2 * ks);
}

/* Words of a warp's ring. */
static constexpr __host__ __device__ int
mma_ring_words (int mt, int ks)
{
  return MMA_RING * mma_stage_words (mt, ks);
}

/* Bytes of the block's rings. */
static constexpr size_t
mma_rings_bytes (int mt, int ks)
{
  return (size_t) MMA_WARPS * mma_ring_words (mt, ks) * sizeof (uint32_t);
}

static_assert (MMA_RING >= 2 && MMA_RING - 1 <= MMA_TILE_H, "the ring "
    "holds the row multiplied and the next; its prologue never passes the "
    "rows of a tile");

/* One lane's registers: the accumulators of its MT x NT tiles, the image
 * pairs of the current padded row (and, in the register loop, of the
 * next), and the A and B fragments of the MMA being issued. */
template < int MT, int KS > struct mma_lane
{
  static constexpr int PAIRS = 2 * MT + 2 * KS - 2;

  float acc[MT * MMA_NT][4];
  uint32_t pair[PAIRS];
  uint32_t next[PAIRS];
  uint32_t a[4];
  /* B fragments of one k-step, n-tile nt: b0, b1 of band 0 (the even
   * m-tiles'), then b0, b1 of band 1 (the odd ones') */
  uint32_t b[MMA_NT][4];
};

static_assert (MMA_MT_NARROW % 2 == 0 && MMA_MT_WIDE % 2 == 0,
    "m-tiles come in pairs, even columns and odd columns");

/* What every warp of a run reads and writes. */
struct mma_args
{
  const uint32_t *pad;          /* the padded image, as words */
  size_t pitch_words;           /* words per padded row */
  int band_pitch_words;         /* words per band row */
  int band_shift_words;         /* words from band 0 to band 1 */
  int kh;                       /* kernel rows */
  int chunks;                   /* chunks of 64 taps */
  float *dst;                   /* output plane */
  size_t dst_pitch;             /* floats per output row */
  int width;                    /* output columns */
  int height;                   /* output rows */
  float out_scale;              /* 1 / (s_in s_k) */
};

/* The program and its helpers are instantiated with a host-only policy
 * (mma_host_warp) and with a device-only one (mma_device_warp): each
 * instantiation only ever runs on its own side, which nvcc's
 * execution-space check cannot see through a template argument. The
 * pragma that silences it also lets a host-only function (cf_div_up, say)
 * be called here without an error: the device build then drops the code
 * that depends on it, and only the GPU suites notice. */

/* Lane @lane's pairs of one padded row whose words start at @row (half
 * u0 = x0 + the chunk's first tap): out[c] = pair(2g + 2t + 8c), the word
 * g + t + 4c, from the warp's ring (STAGED) or from the image. */
#pragma nv_exec_check_disable
template < int PAIRS, bool STAGED, class Warp >
static __host__ __device__ __forceinline__ void
mma_gather_pairs (const Warp & w, const uint32_t * row, int lane,
    uint32_t (&out)[PAIRS])
{
  const uint32_t *src = row + lane / 4 + lane % 4;

  MMA_UNROLL
  for (int c = 0; c < PAIRS; c++)
    if constexpr (STAGED)
      out[c] = w.load_stage (src + 4 * c);
    else
      out[c] = w.load_image (src + 4 * c);
}

/* Whether the kernel takes the band's pitch and its one chunk (first tap
 * 0) as compile-time constants, so that a row's B loads differ by
 * immediate offsets from one address. Below MMA_KS_MAX k-steps the band
 * is one chunk of 16 KS taps (im2tensor_mma_geometry_init ()). It pays
 * in the wide kernel (4096^2 and 3840x2160, K = 23 ... 47: 1-3 % on an
 * H100; its register loop 3-7 % at K = 31); the narrow one, on small
 * images, measured 3-10 % slower with it (docs/convolution.md, "The
 * band's pitch known at compile time"). */
static __host__ __device__ constexpr bool
mma_band_fixed (int mt, int ks)
{
  return mt == MMA_MT_WIDE && ks < MMA_KS_MAX;
}

/* Chunks of 64 taps the warp walks: 1 where mma_band_fixed (). */
template < int MT, int KS >
static __host__ __device__ __forceinline__ int
mma_chunks (const mma_args & p)
{
  if constexpr (mma_band_fixed (MT, KS))
    return 1;
  else
    return p.chunks;
}

/* The B fragments of k-step @s for n-tile @nt at band offset @d (d = r -
 * y0 - 8 nt), of both bands, into B slot @nt: b0 = B[2t, 2t+1][g] =
 * F_o[d - g][tap0 + 16 s + 2t, + 1], the word at row d - g of band o, b1
 * the word 8 taps further. Each is word t of row g of an 8 x 8 matrix of
 * halves whose rows are band rows d - 0 .. d - 7, 8 taps each, so one
 * ldmatrix .x4 loads the four, lane 8 j + i naming row i of matrix j
 * (band j / 2, taps 8 (j % 2) on). The band pitch, an odd multiple of 4 words, puts the 8
 * rows of a matrix in distinct 16-byte bank groups. */
#pragma nv_exec_check_disable
template < int MT, int KS, class Warp >
static __host__ __device__ __forceinline__ void
mma_load_b (Warp & w, const mma_args & p, const uint32_t * band, int d,
    int tap0, int s, int nt)
{
  auto row_of = [&](int lane) {
    const int i = lane % 8, j = lane / 8;
    const int word = (tap0 + MMA_K * s + 8 * (j % 2)) / 2;
    const int band_row = d - i + MMA_BAND_MARGIN;

    if constexpr (mma_band_fixed (MT, KS))
      return band + (j / 2) * p.band_shift_words
          + band_row * (mma_band_pitch (MMA_K * KS) / 2) + word;
    else
      return band + (j / 2) * p.band_shift_words
          + (size_t) band_row * p.band_pitch_words + word;
  };
  auto put = [&](mma_lane < MT, KS > &l, int j, uint32_t v) {
    l.b[nt][j] = v;
  };

  w.template load_matrices < 4 > (row_of, put);
}

/* The A fragments of m-tile pair @q, k-step @s, from the row's pairs
 * (both m-tiles of the pair read the same A): a0 = pair(c), a1 =
 * pair(c + 2), a2 = pair(c + 1), a3 = pair(c + 3) with c = 4 q + 2 s. */
#pragma nv_exec_check_disable
template < int MT, int KS, class Warp >
static __host__ __device__ __forceinline__ void
mma_set_a (Warp & w, int q, int s)
{
  w.each_lane ([&](mma_lane < MT, KS > &l, int) {
        const int c = 4 * q + 2 * s;

        l.a[0] = l.pair[c];
        l.a[1] = l.pair[c + 2];
        l.a[2] = l.pair[c + 1];
        l.a[3] = l.pair[c + 3];
      });
}

/* The MMAs of padded row y0 + @r for n-tiles LO .. HI, the ones that
 * meet it (mma_row_products), from the pairs in the lanes' registers. With
 * the range known at compile time the row's MMAs are one branch-free
 * block that the compiler may schedule as a whole. */
#pragma nv_exec_check_disable
template < int MT, int KS, int LO, int HI, class Warp >
static __host__ __device__ __forceinline__ void
mma_row_products_range (Warp & w, const mma_args & p, const uint32_t * band,
    int r, int tap0)
{
  /* one k-step of every n-tile at a time, so an accumulator's next MMA
   * comes (HI - LO + 1) x MT MMAs after its last */
  MMA_UNROLL
  for (int s = 0; s < KS; s++) {
    MMA_UNROLL
    for (int nt = LO; nt <= HI; nt++)
      mma_load_b < MT, KS > (w, p, band, r - MMA_N * nt, tap0, s, nt);
    MMA_UNROLL
    for (int q = 0; q < MT / 2; q++) {
      mma_set_a < MT, KS > (w, q, s);
      MMA_UNROLL
      for (int nt = LO; nt <= HI; nt++) {
        w.mma (2 * q * MMA_NT + nt, nt, 0);
        w.mma ((2 * q + 1) * MMA_NT + nt, nt, 1);
      }
    }
  }
}

/* The MMAs of padded row y0 + @r: n-tile nt meets the row (B_r is not
 * zero) while 0 <= d <= kh + 6, d = r - 8 nt, so the n-tiles that do are
 * one range, LO .. HI; one branch per row picks its products. */
#pragma nv_exec_check_disable
template < int MT, int KS, class Warp >
static __host__ __device__ __forceinline__ void
mma_row_products (Warp & w, const mma_args & p, const uint32_t * band,
    int r, int tap0)
{
  const int d_last = p.kh + MMA_N - 2;
  const int hi = r / MMA_N < MMA_NT - 1 ? r / MMA_N : MMA_NT - 1;
  const int lo = r > d_last ? (r - d_last + MMA_N - 1) / MMA_N : 0;

  static_assert (MMA_NT == 2, "the cases below are the ranges of 2 n-tiles");
  switch (4 * lo + hi) {
#define MMA_RANGE(LO, HI) \
    case 4 * (LO) + (HI): \
      mma_row_products_range < MT, KS, LO, HI > (w, p, band, r, tap0); \
      break
    MMA_RANGE (0, 0); MMA_RANGE (0, 1);
    MMA_RANGE (1, 1);
#undef MMA_RANGE
    default:
      break;                    /* no n-tile meets the row */
  }
}

/* The register loop over the @rows padded rows from y0 of one chunk:
 * each row's pairs come from global memory, the next row's loads go out
 * before this row's MMAs. @u0 = x0 + tap0. */
#pragma nv_exec_check_disable
template < int MT, int KS, class Warp >
static __host__ __device__ __forceinline__ void
mma_rows_regs (Warp & w, const mma_args & p, const uint32_t * band, int u0,
    int y0, int rows, int tap0)
{
  typedef mma_lane < MT, KS > lane_regs;
  constexpr int PAIRS = lane_regs::PAIRS;
  const uint32_t *row0 = p.pad + u0 / 2;

  w.each_lane ([&](lane_regs & l, int lane) {
        mma_gather_pairs < PAIRS, false > (w, row0 + (size_t) y0
            * p.pitch_words, lane, l.next);
      });
  for (int r = 0; r < rows; r++) {
    w.each_lane ([&](lane_regs & l, int lane) {
          MMA_UNROLL
          for (int c = 0; c < PAIRS; c++)
            l.pair[c] = l.next[c];
          if (r + 1 < rows)
            mma_gather_pairs < PAIRS, false > (w, row0 + (size_t) (y0 + r
                    + 1) * p.pitch_words, lane, l.next);
        });
    mma_row_products < MT, KS > (w, p, band, r, tap0);
  }
}

/* Whether the staged loop advances each row's source by the pitch
 * instead of computing it from the row's index. It pays in the wide
 * kernel below four k-steps (4096^2, K = 23 ... 47: 3-6 % on an H100) and
 * in the narrow one at four (K = 55 ... 127 on small images: 10-17 %);
 * the others keep the index, where the pointer measured slower: the wide
 * kernel at four k-steps (ptxas spills 20 bytes a thread against 16;
 * 1080p, K >= 63 lost 8-12 %) and the narrow one below four (up to 12 %
 * at K <= 32, 4-6 % at K = 39 and 47). docs/convolution.md, "The next
 * row's source advanced a row at a time". */
static __host__ __device__ constexpr bool
mma_advances_rows (int mt, int ks)
{
  return mt == MMA_MT_NARROW ? ks == MMA_KS_MAX : ks < MMA_KS_MAX;
}

/* Lane @lane's share of the copy of the padded row whose words start at
 * @row (half u0 = x0 + the chunk's first tap) into ring slot @slot: VECS
 * = mma_stage_words (MT, KS) / 4 16-byte vectors, lane i copying vectors
 * i, i + 32, ... */
#pragma nv_exec_check_disable
template < int MT, int KS, class Warp >
static __host__ __device__ __forceinline__ void
mma_stage_row (Warp & w, uint32_t * slot, const uint32_t * row, int lane)
{
  constexpr int VECS = mma_stage_words (MT, KS) / 4;
  /* a count known at compile time, so the loop unrolls into predicated
   * copies; bounded by the lane, it compiled to a generic unrolled loop
   * with a remainder, and the kernel ran 21 % more instructions at
   * 4096^2, K = 31 (docs/convolution.md) */
  constexpr int COPIES = (VECS + MMA_LANES - 1) / MMA_LANES;

  MMA_UNROLL
  for (int k = 0; k < COPIES; k++) {
    const int i = lane + k * MMA_LANES;

    if (i < VECS)
      w.stage (slot + 4 * i, row + 4 * i);
  }
}

/* Whether the staged loop runs its rows in three runs of fixed n-tiles
 * (mma_rows_staged) rather than one that picks each row's n-tiles: no
 * branch a row, 5-22 % faster in the narrow kernel and 0-7 % in the wide
 * one at one k-step on an H100, and 0.5-3 % in the wide one at two
 * k-steps once its loop is unrolled by the ring (mma_rows_unrolled). At
 * three and four k-steps, whose row bodies are the longest, it lost 3-7 %
 * (docs/convolution.md, "Rows in runs of fixed n-tiles" and "Rows in runs
 * in the unrolled wide loop"). */
static __host__ __device__ constexpr bool
mma_rows_in_runs (int mt, int ks)
{
  return mt == MMA_MT_NARROW || ks <= 2;
}

/* Whether the staged loop is unrolled by the ring's rows, so that each
 * row's slot is known at compile time: 2-9 % faster in the narrow kernel
 * and 2-4 % in the wide one at two k-steps on an H100; the wide kernel
 * at three k-steps measured within 1.5 % either way and at four lost
 * 1-5 % (ptxas spills 116 bytes a thread there instead of 16)
 * (docs/convolution.md, "The staged loop unrolled by the ring"). */
static __host__ __device__ constexpr bool
mma_rows_unrolled (int mt, int ks)
{
  return mt == MMA_MT_NARROW || ks < MMA_KS_MAX - 1;
}

/* Padded row @v's words from half @u0: @next where the staged
 * loop advances the rows' source (mma_advances_rows), else by the index. */
template < bool ADVANCE >
static __host__ __device__ __forceinline__ const uint32_t *
mma_row_source (const mma_args & p, const uint32_t * next, int v, int u0)
{
  return ADVANCE ? next : p.pad + (size_t) v * p.pitch_words + u0 / 2;
}

/* Rows @r0 .. @r1 - 1 of the staged loop (mma_rows_staged), all of them
 * met by n-tiles LO .. HI, or each by its own (LO < 0): iteration r
 * waits for row r, which also tells every lane that slot (r - 1) %
 * MMA_RING, read in iteration r - 1, may be overwritten by row r +
 * MMA_RING - 1, copies that row (@next, its source where the loop
 * advances one) and multiplies row r. */
#pragma nv_exec_check_disable
template < int MT, int KS, int LO, int HI, class Warp >
static __host__ __device__ __forceinline__ void
mma_rows_staged_range (Warp & w, const mma_args & p, const uint32_t * band,
    uint32_t * ring, int u0, int y0, int rows, int tap0, int r0, int r1,
    const uint32_t * &next)
{
  typedef mma_lane < MT, KS > lane_regs;
  constexpr int PAIRS = lane_regs::PAIRS;
  constexpr int ROW = mma_stage_words (MT, KS);
  constexpr bool ADVANCE = mma_advances_rows (MT, KS);

  /* on the GPU, MMA_RING rows an iteration where mma_rows_unrolled () */
#if defined(__CUDA_ARCH__)
#pragma unroll (mma_rows_unrolled (MT, KS) ? MMA_RING : 1)
#endif
  for (int r = r0; r < r1; r++) {
    const int ahead = r + MMA_RING - 1;
    const uint32_t *slot = ring + (r % MMA_RING) * ROW;

    /* groups 0 .. r have landed; MMA_RING - 2 newer may be in flight */
    w.template wait < MMA_RING - 2 > ();
    if (ahead < rows) {
      w.each_lane ([&](lane_regs &, int lane) {
            mma_stage_row < MT, KS > (w, ring + (ahead % MMA_RING) * ROW,
                mma_row_source < ADVANCE > (p, next, y0 + ahead, u0), lane);
          });
      if (ADVANCE)
        next += p.pitch_words;
    }
    w.commit ();                /* empty past the last row: counts stay */
    w.each_lane ([&](lane_regs & l, int lane) {
          mma_gather_pairs < PAIRS, true > (w, slot, lane, l.pair);
        });
    if constexpr (LO < 0)
      mma_row_products < MT, KS > (w, p, band, r, tap0);
    else
      mma_row_products_range < MT, KS, LO, HI > (w, p, band, r, tap0);
  }
}

/* The staged loop over the @rows padded rows from y0 of one chunk: row r
 * is copied into slot r % MMA_RING of the warp's @ring MMA_RING - 1 rows
 * ahead (one group of copies per row), and its pairs are read from
 * there. Where mma_rows_in_runs (), the rows come in three runs of fixed
 * n-tiles (those mma_row_products () would pick), each a loop of its own,
 * so that no row branches on its range: rows 0 .. 7 meet n-tile 0 only,
 * rows 8 .. kh + 6 both, the last 8 n-tile 1 only. @u0 = x0 + tap0. */
#pragma nv_exec_check_disable
template < int MT, int KS, class Warp >
static __host__ __device__ __forceinline__ void
mma_rows_staged (Warp & w, const mma_args & p, const uint32_t * band,
    uint32_t * ring, int u0, int y0, int rows, int tap0)
{
  typedef mma_lane < MT, KS > lane_regs;
  constexpr int ROW = mma_stage_words (MT, KS);
  constexpr bool ADVANCE = mma_advances_rows (MT, KS);
  /* the first row met by n-tile 1, the first past n-tile 0's */
  const int both = MMA_N < rows ? MMA_N : rows;
  const int last = p.kh + MMA_N - 1 < rows ? p.kh + MMA_N - 1 : rows;
  /* each row's source where the loop advances one (mma_advances_rows) */
  const uint32_t *next = p.pad + (size_t) y0 * p.pitch_words + u0 / 2;

  static_assert (MMA_NT == 2, "the runs below are those of 2 n-tiles");
  /* the previous chunk's last rows were read from the slots refilled */
  w.sync ();
  for (int r = 0; r < MMA_RING - 1; r++) {
    w.each_lane ([&](lane_regs &, int lane) {
          mma_stage_row < MT, KS > (w, ring + r * ROW,
              mma_row_source < ADVANCE > (p, next, y0 + r, u0), lane);
        });
    w.commit ();
    if (ADVANCE)
      next += p.pitch_words;
  }
  if constexpr (mma_rows_in_runs (MT, KS)) {
    mma_rows_staged_range < MT, KS, 0, 0 > (w, p, band, ring, u0, y0, rows,
        tap0, 0, both, next);
    mma_rows_staged_range < MT, KS, 0, 1 > (w, p, band, ring, u0, y0, rows,
        tap0, both, last, next);
    mma_rows_staged_range < MT, KS, 1, 1 > (w, p, band, ring, u0, y0, rows,
        tap0, last > both ? last : both, rows, next);
  } else {
    mma_rows_staged_range < MT, KS, -1, -1 > (w, p, band, ring, u0, y0,
        rows, tap0, 0, rows, next);
  }
}

/**
 * \brief One warp's 16 MT x 16 outputs at (x0, y0) (file comment).
 *
 * \param[in,out] w     the lanes: mma_device_warp or mma_host_warp
 * \param[in]     p     padded image, sizes, output
 * \param[in]     band  the band (shared memory on the GPU)
 * \param[in]     ring  STAGED: the warp's ring, mma_ring_words (MT, KS) words
 *                      (shared memory on the GPU); else unused
 * \param[in]     x0    first output column (a multiple of 16 MT)
 * \param[in]     y0    first output row (a multiple of 16, < height)
 */
#pragma nv_exec_check_disable
template < int MT, int KS, bool STAGED, class Warp >
static __host__ __device__ __forceinline__ void
mma_warp_tile (Warp & w, const mma_args & p, const uint32_t * band,
    uint32_t * ring, int x0, int y0)
{
  typedef mma_lane < MT, KS > lane_regs;
  /* padded rows y0 .. y0 + rows - 1 meet the tile's outputs */
  const int rows = MMA_TILE_H + p.kh - 1;

  w.each_lane ([&](lane_regs & l, int) {
        MMA_UNROLL
        for (int i = 0; i < MT * MMA_NT; i++)
          MMA_UNROLL
          for (int e = 0; e < 4; e++)
            l.acc[i][e] = 0.0f;
      });

  for (int chunk = 0; chunk < mma_chunks < MT, KS > (p); chunk++) {
    const int tap0 = chunk * MMA_CHUNK;

    if constexpr (STAGED)
      mma_rows_staged < MT, KS > (w, p, band, ring, x0 + tap0, y0, rows, tap0);
    else
      mma_rows_regs < MT, KS > (w, p, band, x0 + tap0, y0, rows, tap0);
  }

  /* d0, d1 = D[g][2t, 2t+1], d2, d3 = D[g+8][2t, 2t+1]: column
   * x0 + 32 q + 2g (+ 16) of the even m-tile 2q, the next column of the
   * odd one, row y0 + 8 nt + 2t (+ 1); a lane stores the two columns as
   * one float2 where the output allows it */
  w.each_lane ([&](lane_regs & l, int lane) {
        const int g = lane / 4, t = lane % 4;
        const bool pairs = p.dst_pitch % 2 == 0
            && (reinterpret_cast < uintptr_t > (p.dst) & 7) == 0;

        MMA_UNROLL
        for (int q = 0; q < MT / 2; q++)
          MMA_UNROLL
          for (int nt = 0; nt < MMA_NT; nt++)
            MMA_UNROLL
            for (int e = 0; e < 4; e++) {
              const int x = x0 + 2 * MMA_M * q + 2 * g + (e / 2) * 16;
              const int y = y0 + MMA_N * nt + 2 * t + e % 2;
              const float even = l.acc[2 * q * MMA_NT + nt][e] * p.out_scale;
              const float odd = l.acc[(2 * q + 1) * MMA_NT + nt][e]
                  * p.out_scale;

              if (y >= p.height || x >= p.width)
                continue;
              float *out = p.dst + (size_t) y * p.dst_pitch + x;

              if (pairs && x + 1 < p.width) {
                *reinterpret_cast < float2 * >(out) = make_float2 (even, odd);
              } else {
                out[0] = even;
                if (x + 1 < p.width)
                  out[1] = odd;
              }
            }
      });
}

/* The lane policy on the GPU: this thread is lane @lane of a warp
 * that runs the program in lockstep; mma is the tensor-core instruction. */
template < int MT, int KS > struct mma_device_warp
{
  mma_lane < MT, KS > regs;
  int lane;

  template < class F > __device__ __forceinline__ void each_lane (F && f)
  {
    f (regs, lane);
  }

  /* accumulators @tile += A B, B the fragments of band @band in slot
   * @slot */
  __device__ __forceinline__ void mma (int tile, int slot, int band)
  {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    float *d = regs.acc[tile];

    asm ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        :"+f" (d[0]), "+f" (d[1]), "+f" (d[2]), "+f" (d[3])
        :"r" (regs.a[0]), "r" (regs.a[1]), "r" (regs.a[2]), "r" (regs.a[3]),
        "r" (regs.b[slot][2 * band]), "r" (regs.b[slot][2 * band + 1]));
#endif
  }

  /* image words through the read-only cache; band and ring words from
   * shared memory */
  __device__ __forceinline__ uint32_t load_image (const uint32_t * p) const
  {
    return __ldg (p);
  }
  __device__ __forceinline__ uint32_t load_band (const uint32_t * p) const
  {
    return *p;
  }
  /* ldmatrix .x4 (N = 4) or .x2: this lane names row lane % 8 of matrix
   * lane / 8 (16 bytes of shared memory), and receives word t of row g of
   * each matrix j (put (regs, j, word)) */
  template < int N, class Row, class Put >
  __device__ __forceinline__ void load_matrices (Row && row_of, Put && put)
  {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned addr = (unsigned) __cvta_generic_to_shared (row_of (lane));
    uint32_t r[4];

    if constexpr (N == 4)
      asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
          "{%0, %1, %2, %3}, [%4];"
          :"=r" (r[0]), "=r" (r[1]), "=r" (r[2]), "=r" (r[3]):"r" (addr));
    else
      asm volatile ("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
          :"=r" (r[0]), "=r" (r[1]):"r" (addr));
    MMA_UNROLL
    for (int j = 0; j < N; j++)
      put (regs, j, r[j]);
#endif
  }
  __device__ __forceinline__ uint32_t load_stage (const uint32_t * p) const
  {
    return *p;
  }

  /* 16 bytes from global memory @src into shared memory @dst, bypassing
   * L1 (cp.async.cg), in the group the next commit closes */
  __device__ __forceinline__ void stage (uint32_t * dst, const uint32_t * src)
  {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;"
        ::"r" ((unsigned) __cvta_generic_to_shared (dst)), "l" (src)
        :"memory");
#endif
  }
  __device__ __forceinline__ void commit ()
  {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile ("cp.async.commit_group;"::: "memory");
#endif
  }
  /* this lane's groups but the newest N have landed; then every lane's
   * (and every lane's earlier shared-memory reads are done) */
  template < int N > __device__ __forceinline__ void wait ()
  {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile ("cp.async.wait_group %0;"::"n" (N):"memory");
#endif
    __syncwarp ();
  }
  __device__ __forceinline__ void sync ()
  {
    __syncwarp ();
  }
};

/* fp16 element @e (0: low half, 1: high half) of a register, as a float. */
static inline float
half_of (uint32_t reg, int e)
{
  __half_raw raw;

  raw.x = (unsigned short) (reg >> (16 * e));
  return __half2float (__half (raw));
}

/* The lane policy on the CPU: all 32 lanes' registers, each step run for
 * every lane in turn; mma assembles the matrices from the lanes' fragments
 * (PTX layouts, file comment) and computes D = A B + C in fp32 (fp16
 * products are exact in fp32); load_matrices hands out the rows the lanes
 * name as ldmatrix does. Every read is checked against the extent of the
 * padded image, of the bands and of the warp's ring: one outside counts
 * as stray and reads 0 (a copy from outside the image copies zeros, one
 * to outside the ring is dropped). A staged copy lands only at the wait
 * that guarantees it, the latest a cp.async may; until then its words
 * hold MMA_STAGE_POISON (NaN), so a row read before its wait, or a slot
 * refilled while it is still read, turns outputs into NaN. */
template < int MT, int KS > struct mma_host_warp
{
  /* one 16-byte copy in flight, in group @group */
  struct copy
  {
    uint32_t *dst;
    const uint32_t *src;        /* NULL: outside the padded image */
    long group;
  };

  mma_lane < MT, KS > regs[MMA_LANES];
  const uint32_t *pad_begin, *pad_end;
  const uint32_t *band_begin, *band_end;
  uint32_t *ring_begin, *ring_end;
  /* copies in flight at most: MMA_RING rows of the widest ring row */
  static constexpr int MAX_COPIES =
      MMA_RING * mma_stage_words (MT, MMA_KS_MAX) / 4;

  copy copies[MAX_COPIES];
  int n_copies;
  long groups;                  /* groups committed */
  mutable long stray;

  template < class F > void each_lane (F && f)
  {
    for (int lane = 0; lane < MMA_LANES; lane++)
      f (regs[lane], lane);
  }

  void mma (int tile, int slot, int band)
  {
    float a[MMA_M][MMA_K], b[MMA_K][MMA_N], d[MMA_M][MMA_N];
    int lane, m, n, k, e;

    for (lane = 0; lane < MMA_LANES; lane++) {
      const mma_lane < MT, KS > &l = regs[lane];
      const int g = lane / 4, t = lane % 4;

      for (e = 0; e < 2; e++) {
        a[g][2 * t + e] = half_of (l.a[0], e);
        a[g + 8][2 * t + e] = half_of (l.a[1], e);
        a[g][2 * t + 8 + e] = half_of (l.a[2], e);
        a[g + 8][2 * t + 8 + e] = half_of (l.a[3], e);
        b[2 * t + e][g] = half_of (l.b[slot][2 * band], e);
        b[2 * t + 8 + e][g] = half_of (l.b[slot][2 * band + 1], e);
        d[g][2 * t + e] = l.acc[tile][e];
        d[g + 8][2 * t + e] = l.acc[tile][2 + e];
      }
    }
    for (m = 0; m < MMA_M; m++)
      for (n = 0; n < MMA_N; n++) {
        float sum = d[m][n];

        for (k = 0; k < MMA_K; k++)
          sum += a[m][k] * b[k][n];
        d[m][n] = sum;
      }
    for (lane = 0; lane < MMA_LANES; lane++) {
      mma_lane < MT, KS > &l = regs[lane];
      const int g = lane / 4, t = lane % 4;

      for (e = 0; e < 2; e++) {
        l.acc[tile][e] = d[g][2 * t + e];
        l.acc[tile][2 + e] = d[g + 8][2 * t + e];
      }
    }
  }

  uint32_t load_image (const uint32_t * p) const
  {
    return load_within (p, pad_begin, pad_end);
  }
  uint32_t load_band (const uint32_t * p) const
  {
    return load_within (p, band_begin, band_end);
  }
  /* ldmatrix as the PTX ISA defines it: rows named by lanes 0 .. 8 N - 1,
   * each 16 bytes, 16-byte aligned within the band */
  template < int N, class Row, class Put > void load_matrices (Row && row_of,
      Put && put)
  {
    const uint32_t *rows[4 * 8];

    for (int lane = 0; lane < 8 * N; lane++) {
      rows[lane] = row_of (lane);
      if ((rows[lane] - band_begin) % 4 != 0)
        stray++;
    }
    for (int lane = 0; lane < MMA_LANES; lane++)
      for (int j = 0; j < N; j++) {
        const uint32_t *row = rows[8 * j + lane / 4];

        put (regs[lane], j, row + 4 <= band_end ?
            load_within (row + lane % 4, band_begin, band_end) :
            (stray++, 0u));
      }
  }
  uint32_t load_stage (const uint32_t * p) const
  {
    return load_within (p, ring_begin, ring_end);
  }

  void stage (uint32_t * dst, const uint32_t * src)
  {
    if (dst < ring_begin || dst + 4 > ring_end
        || n_copies == MAX_COPIES) {
      stray++;
      return;
    }
    if (src < pad_begin || src + 4 > pad_end) {
      stray++;
      src = NULL;
    }
    for (int i = 0; i < 4; i++)
      dst[i] = MMA_STAGE_POISON;
    copies[n_copies++] = copy { dst, src, groups };
  }
  void commit ()
  {
    groups++;
  }
  /* land the copies of every group but the newest N */
  template < int N > void wait ()
  {
    int kept = 0;

    for (int i = 0; i < n_copies; i++) {
      const copy & c = copies[i];

      if (c.group >= groups - N)
        copies[kept++] = c;
      else
        for (int k = 0; k < 4; k++)
          c.dst[k] = c.src != NULL ? c.src[k] : 0;
    }
    n_copies = kept;
  }
  void sync ()
  {
  }
  uint32_t load_within (const uint32_t * p, const uint32_t * begin,
      const uint32_t * end) const
  {
    if (p >= begin && p < end)
      return *p;
    stray++;
    return 0;
  }
};

/**
 * \brief The MMA kernel (file comment): block (bx, by) computes outputs
 * 16 MT bx .. 16 MT (bx + 1) - 1 by 64 by .. 64 by + 63, warp w the rows
 * from 64 by + 16 w. Dynamic shared memory: the two bands, then
 * (STAGED) the warps' rings.
 *
 * \param[in] p          padded image, sizes, output
 * \param[in] band       both bands in device memory, band_vecs x 16 bytes
 * \param[in] band_vecs  16-byte vectors of the two bands
 */
template < int MT, int KS, bool STAGED >
__global__ void __launch_bounds__ (MMA_THREADS, MMA_MIN_BLOCKS)
im2tensor_mma_kernel (mma_args p, const uint4 * __restrict__ band,
    int band_vecs)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ uint4 mma_smem[];
  const int warp = (int) (threadIdx.x / MMA_LANES);
  const int y0 = blockIdx.y * MMA_BLOCK_H + warp * MMA_TILE_H;
  uint32_t *ring = reinterpret_cast < uint32_t * >(mma_smem + band_vecs)
      + warp * mma_ring_words (MT, KS);
  mma_device_warp < MT, KS > w;

  /* the bands were written when the plan was made; the padded image is
   * the padding pass's, which may still run (programmatic dependent
   * launch) */
  for (int i = threadIdx.x; i < band_vecs; i += MMA_THREADS)
    mma_smem[i] = band[i];
  __syncthreads ();
  cf_pdl_wait ();
  /* uniform over the warp; no barrier follows */
  if (y0 >= p.height)
    return;
  w.lane = threadIdx.x % MMA_LANES;
  mma_warp_tile < MT, KS, STAGED > (w, p,
      reinterpret_cast < const uint32_t * >(mma_smem), ring,
      blockIdx.x * mma_tile_w (MT), y0);
#endif
}

typedef void (*mma_kernel_fn) (mma_args, const uint4 *, int);

/* The kernel of each warp width (0: MMA_MT_WIDE, 1: MMA_MT_NARROW), loop
 * (0: registers, 1: staged) and KS (index KS - 1). */
#define MMA_KERNELS(MT) \
  {{im2tensor_mma_kernel < MT, 1, false >, \
    im2tensor_mma_kernel < MT, 2, false >, \
    im2tensor_mma_kernel < MT, 3, false >, \
    im2tensor_mma_kernel < MT, 4, false >}, \
   {im2tensor_mma_kernel < MT, 1, true >, \
    im2tensor_mma_kernel < MT, 2, true >, \
    im2tensor_mma_kernel < MT, 3, true >, \
    im2tensor_mma_kernel < MT, 4, true >}}
static const mma_kernel_fn mma_kernels[2][2][MMA_KS_MAX] = {
  MMA_KERNELS (MMA_MT_WIDE), MMA_KERNELS (MMA_MT_NARROW)
};
#undef MMA_KERNELS

/* mma_kernels' entry for @geo and @staged. */
static mma_kernel_fn
mma_kernel_of (const im2tensor_mma_geometry * geo, bool staged)
{
  return mma_kernels[geo->mt == MMA_MT_NARROW][staged][geo->ks - 1];
}

/* Whether @variant (MMA or MMA_REGS) runs the staged loop. */
static bool
mma_staged (cf_im2tensor_variant variant)
{
  return variant == CF_IM2TENSOR_VARIANT_MMA;
}

/* Dynamic shared memory of a block: the band, and the rings. */
static size_t
mma_smem_bytes (const im2tensor_mma_geometry * geo, bool staged)
{
  return im2tensor_mma_band_bytes (geo)
      + (staged ? mma_rings_bytes (geo->mt, geo->ks) : 0);
}

/* Every warp of the image on the CPU, in block order, each with its own
 * ring; the number of stray reads. */
template < int MT, int KS, bool STAGED >
static long
mma_emulate_tiles (const im2tensor_mma_geometry * geo, const mma_args & p,
    const uint32_t * band)
{
  mma_host_warp < MT, KS > *w = new mma_host_warp < MT, KS >;
  uint32_t *rings = new uint32_t[MMA_WARPS * mma_ring_words (MT, KS)];
  long stray;

  w->pad_begin = p.pad;
  w->pad_end = p.pad + p.pitch_words * geo->pad_rows;
  w->band_begin = band;
  w->band_end = band + im2tensor_mma_band_bytes (geo) / sizeof (uint32_t);
  w->n_copies = 0;
  w->groups = 0;
  w->stray = 0;

  for (int by = 0; by < geo->n_by; by++)
    for (int bx = 0; bx < geo->n_bx; bx++)
      for (int warp = 0; warp < MMA_WARPS; warp++) {
        const int y0 = by * MMA_BLOCK_H + warp * MMA_TILE_H;
        uint32_t *ring = rings + warp * mma_ring_words (MT, KS);

        /* a fresh warp: no copies in flight, a ring of NaN */
        for (int i = 0; i < mma_ring_words (MT, KS); i++)
          ring[i] = MMA_STAGE_POISON;
        w->ring_begin = ring;
        w->ring_end = ring + mma_ring_words (MT, KS);
        w->n_copies = 0;
        if (y0 < p.height)
          mma_warp_tile < MT, KS, STAGED > (*w, p, band, ring,
              bx * mma_tile_w (MT), y0);
      }
  stray = w->stray;
  delete[]rings;
  delete w;
  return stray;
}

/* mma_emulate_tiles () for the KS of @geo, warps of MT m-tiles. */
template < int MT, bool STAGED >
static long
mma_emulate_ks (const im2tensor_mma_geometry * geo, const mma_args & p,
    const uint32_t * band)
{
  switch (geo->ks) {
    case 1:
      return mma_emulate_tiles < MT, 1, STAGED > (geo, p, band);
    case 2:
      return mma_emulate_tiles < MT, 2, STAGED > (geo, p, band);
    case 3:
      return mma_emulate_tiles < MT, 3, STAGED > (geo, p, band);
    default:
      return mma_emulate_tiles < MT, 4, STAGED > (geo, p, band);
  }
}

/* mma_emulate_tiles () for the warp width and KS of @geo. */
template < bool STAGED >
static long
mma_emulate_loop (const im2tensor_mma_geometry * geo, const mma_args & p,
    const uint32_t * band)
{
  return geo->mt == MMA_MT_NARROW
      ? mma_emulate_ks < MMA_MT_NARROW, STAGED > (geo, p, band)
      : mma_emulate_ks < MMA_MT_WIDE, STAGED > (geo, p, band);
}

static mma_args
mma_args_make (const im2tensor_mma_geometry * geo, const __half * pad,
    int kh, float *dst, size_t dst_pitch, int width, int height,
    float out_scale)
{
  mma_args p;

  p.pad = reinterpret_cast < const uint32_t * >(pad);
  p.pitch_words = geo->pad_pitch / 2;
  p.band_pitch_words = geo->band_pitch / 2;
  p.band_shift_words = geo->band_rows * geo->band_pitch / 2;
  p.kh = kh;
  p.chunks = geo->chunks;
  p.dst = dst;
  p.dst_pitch = dst_pitch;
  p.width = width;
  p.height = height;
  p.out_scale = out_scale;
  return p;
}

}                               /* namespace */

void
im2tensor_mma_geometry_init (int width, int height, int kw, int kh,
    int sms, im2tensor_mma_geometry * geo)
{
  /* taps 0 .. kw: band 1 holds F one tap further on */
  const int kw_hat = cf_div_up (kw + 1, MMA_K) * MMA_K;
  const long wide_blocks = (long) cf_div_up (width,
      mma_tile_w (MMA_MT_WIDE)) * cf_div_up (height, MMA_BLOCK_H);

  if (kw_hat <= MMA_CHUNK) {
    geo->ks = kw_hat / MMA_K;
    geo->chunks = 1;
    geo->kw_band = kw_hat;
  } else {
    geo->ks = MMA_KS_MAX;
    geo->chunks = cf_div_up (kw + 1, MMA_CHUNK);
    geo->kw_band = geo->chunks * MMA_CHUNK;
  }
  geo->band_pitch = mma_band_pitch (geo->kw_band);
  geo->band_rows = kh + 2 * MMA_BAND_MARGIN;
  /* narrow warps where wide blocks would be at most one per SM: the
   * frame then lasts one warp's walk down its rows, and twice the warps,
   * each half as wide, fill the SMs (docs/convolution.md, "Warps of 64 x 16
   * outputs") */
  geo->mt = sms > 0 && wide_blocks <= sms ? MMA_MT_NARROW : MMA_MT_WIDE;
  geo->n_bx = cf_div_up (width, mma_tile_w (geo->mt));
  geo->n_by = cf_div_up (height, MMA_BLOCK_H);
  /* with TW = 16 mt columns a block, the last block's pairs reach half
   * x0 + kw_band + TW - 3, its staged rows (2 mma_stage_words (MT, KS)
   * halves from x0 + tap0) half x0 + kw_band + TW - 1 < x0 + TW +
   * ceil64 (kw_band), x0 = TW (n_bx - 1) */
  geo->pad_pitch = (size_t) geo->n_bx * mma_tile_w (geo->mt)
      + cf_div_up (geo->kw_band, MMA_CHUNK) * MMA_CHUNK;
  /* the last warp reads rows up to y0 + 15 + kh - 1, y0 = 64 n_by
   * - 16 */
  geo->pad_rows = geo->n_by * MMA_BLOCK_H + kh - 1;
}

size_t
im2tensor_mma_band_bytes (const im2tensor_mma_geometry * geo)
{
  return 2 * (size_t) geo->band_rows * geo->band_pitch * sizeof (__half);
}

void
im2tensor_mma_band_fill (const float *f, int kw, int kh, float k_scale,
    const im2tensor_mma_geometry * geo, __half * band)
{
  /* band o holds tap i of kernel row j at column i + o */
  for (int o = 0; o < 2; o++)
    for (int row = 0; row < geo->band_rows; row++) {
      const int j = row - MMA_BAND_MARGIN;

      for (int c = 0; c < geo->band_pitch; c++) {
        const int i = c - o;

        band[((size_t) o * geo->band_rows + row) * geo->band_pitch + c] =
            __float2half_rn (j >= 0 && j < kh && i >= 0 && i < kw
            ? f[i + (size_t) j * kw] * k_scale : 0.0f);
      }
    }
}

cf_status
im2tensor_mma_prepare (const im2tensor_mma_geometry * geo,
    cf_im2tensor_variant variant, int *supported)
{
  cf_status status = CF_OK;
  const bool staged = mma_staged (variant);
  const mma_kernel_fn kernel = mma_kernel_of (geo, staged);
  const size_t bytes = mma_smem_bytes (geo, staged);
  /* the most any plan of this kernel asks for */
  const size_t most = CF_IM2TENSOR_MMA_BAND_MAX
      + (staged ? mma_rings_bytes (geo->mt, geo->ks) : 0);
  cudaFuncAttributes attr;
  cudaError_t err;
  int device, major = 0, optin = 0;

  static_assert ((MMA_K * sizeof (__half)) % 16 == 0
      && (MMA_BAND_SKEW * sizeof (__half)) % 16 == 0,
      "band rows are whole 16-byte vectors (the block's copy, and the "
      "rings after the band)");

  *supported = 0;
  CF_CUDA_TRY (cudaGetDevice (&device));
  CF_CUDA_TRY (cudaDeviceGetAttribute (&major,
          cudaDevAttrComputeCapabilityMajor, device));
  CF_CUDA_TRY (cudaDeviceGetAttribute (&optin,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (major < 8 || im2tensor_mma_band_bytes (geo) > CF_IM2TENSOR_MMA_BAND_MAX
      || bytes > (size_t) optin)
    goto out;
  /* no image of the kernel for this device, or one from PTX below
   * compute_80 (its body is empty): not an error, another kernel serves */
  err = cudaFuncGetAttributes (&attr, kernel);
  if (err != cudaSuccess) {
    (void) cudaGetLastError ();
    goto out;
  }
  if (attr.ptxVersion < 80)
    goto out;
  /* above 48 KB dynamic shared memory needs an opt-in; always to the
   * largest any plan can ask for, so two plans never undo each other */
  if (bytes > MMA_SMEM_DEFAULT)
    CF_CUDA_TRY (cudaFuncSetAttribute (kernel,
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            (int) (most > (size_t) optin ? (size_t) optin : most)));
  *supported = 1;
out:
  return status;
}

int
im2tensor_mma_blocks_per_sm (const im2tensor_mma_geometry * geo,
    cf_im2tensor_variant variant)
{
  const bool staged = mma_staged (variant);
  int blocks = 0;

  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks,
          mma_kernel_of (geo, staged), MMA_THREADS,
          mma_smem_bytes (geo, staged)) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  return blocks;
}

cf_status
im2tensor_mma_launch (const im2tensor_mma_geometry * geo,
    cf_im2tensor_variant variant, const __half * pad, const __half * band,
    int kh, float *dst, size_t dst_pitch, int width, int height,
    float out_scale, int pdl, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const bool staged = mma_staged (variant);
  const size_t band_bytes = im2tensor_mma_band_bytes (geo);
  const mma_args p = mma_args_make (geo, pad, kh, dst, dst_pitch, width,
      height, out_scale);
  const dim3 grid (geo->n_bx, geo->n_by);

  CF_CUDA_TRY (cf_cuda_launch (mma_kernel_of (geo, staged), grid,
          dim3 (MMA_THREADS), mma_smem_bytes (geo, staged), stream,
          pdl, p,
          reinterpret_cast < const uint4 * >(band), (int) (band_bytes / 16)));
out:
  return status;
}

extern "C" cf_status
cf_im2tensor_mma_emulate (const cf_image * src, const cf_kernel * kernel,
    cf_border border, cf_conv_mode mode, cf_im2tensor_variant variant,
    int narrow, cf_image * dst, long *stray_reads)
{
  cf_status status = CF_OK;
  im2tensor_mma_geometry geo;
  im2tensor_pad_geometry pg;
  float *f = NULL;
  __half *band = NULL, *pad = NULL;
  float k_scale;
  int kw, kh, ax, ay, v;
  long stray;
  mma_args p;

  if (src == NULL || dst == NULL || kernel == NULL || kernel->taps == NULL
      || src->data == NULL || dst->data == NULL
      || src->width < 1 || src->height < 1 || src->width > CF_MAX_DIMENSION
      || src->height > CF_MAX_DIMENSION || dst->width != src->width
      || dst->height != src->height || kernel->width < 1
      || kernel->height < 1 || kernel->width > CF_KERNEL_MAX_SIZE
      || kernel->height > CF_KERNEL_MAX_SIZE
      || (unsigned) border >= CF_BORDER_COUNT
      || (mode != CF_CONVOLUTION && mode != CF_CORRELATION)
      || (variant != CF_IM2TENSOR_VARIANT_MMA
          && variant != CF_IM2TENSOR_VARIANT_MMA_REGS))
    return CF_ERROR_INVALID;
  kw = kernel->width;
  kh = kernel->height;

  /* F, s_k, geometry, band and the pad plane as plan_new and the pad
   * kernel make them */
  f = (float *) malloc ((size_t) kw * kh * sizeof (float));
  if (f == NULL)
    return CF_ERROR_NO_MEMORY;
  cf_cuda_convolve_correlation_taps (kernel, mode, f, &ax, &ay);
  k_scale = im2tensor_kernel_scale (f, kw, kh);
  /* narrow: as a plan on a device of more SMs than any grid's blocks */
  im2tensor_mma_geometry_init (src->width, src->height, kw, kh,
      narrow ? INT_MAX : 0, &geo);
  /* a rule of the geometry that gave the other width here would leave
   * the one asked for untested */
  if ((geo.mt == MMA_MT_NARROW) != (narrow != 0)) {
    status = CF_ERROR_UNSUPPORTED;
    goto out;
  }
  pg = im2tensor_pad_geometry_make (src->width, src->height, kw, kh, ax, ay,
      border, geo.pad_pitch, geo.pad_rows);
  band = (__half *) malloc (im2tensor_mma_band_bytes (&geo));
  pad = (__half *) malloc (geo.pad_pitch * geo.pad_rows * sizeof (__half));
  if (band == NULL || pad == NULL) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }
  im2tensor_mma_band_fill (f, kw, kh, k_scale, &geo, band);
  for (v = 0; v < pg.rows; v++)
    for (size_t u = 0; u < pg.pitch; u += 2)
      im2tensor_pad_pair (src->data, src->pitch, &pg, pad, u, v);

  p = mma_args_make (&geo, pad, kh, dst->data, dst->pitch, dst->width,
      dst->height, 1.0f / (CF_IM2TENSOR_INPUT_SCALE * k_scale));
  {
    const uint32_t *b = reinterpret_cast < const uint32_t * >(band);

    stray = mma_staged (variant) ? mma_emulate_loop < true > (&geo, p, b)
        : mma_emulate_loop < false > (&geo, p, b);
  }
  if (stray_reads != NULL)
    *stray_reads = stray;
out:
  free (f);
  free (band);
  free (pad);
  return status;
}
