/* gst-cudaflow — the MMA im2tensor kernel's indexing, on the CPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_im2tensor_mma_emulate () runs the warp program of the MMA kernel
 * (cuda/convolve-im2tensor-mma.cu) for all 32 lanes on the CPU, with every
 * mma.sync assembled from the lanes' registers by the PTX fragment
 * layouts, on a padded image and bands built by the plan's own functions,
 * in both row loops: MMA (rows staged in a ring per warp; a copy lands
 * only at the wait that guarantees it and reads as NaN before) and
 * MMA_REGS (rows loaded into registers). Every case here compares each
 * loop with the CPU reference cf_convolve () under im2tensor's bar
 * (cf_test_assert_im2tensor_close (), cf-test-util.h: per pixel, 2e-3 of
 * sum |F| |in|, fp16 inputs), on an output poisoned with NaN, and asks for
 * no read outside the padded image, the bands or the warp's ring, and no
 * copy outside the ring. The kernels cover one to four k-steps of 16 taps
 * (kw + 1 taps, the odd columns' band being one tap longer: 1, 3, 7, 15,
 * 16, 17, 31, 33, 63 taps wide), chunks of 64 taps (64, 65, 127), kernel
 * rows from 1 to 65, even sides (the anchor), kernels larger than the
 * image; the images are smaller than, equal to and larger than a block
 * (128 x 64), most of odd sizes (a last even column without its odd
 * neighbour).
 *
 * The pad kernel writes the padded image a run of 8 columns at a time,
 * without folding inside the image; cf_im2tensor_pad_compare () builds
 * it that way and a pair at a time (the emulation's way, the image's
 * definition) and asks for the same bits, for every border rule, anchors
 * at 0, the middle and the last tap, images narrower than a run, and
 * pitches from just past the padded width to well beyond.
 * Runs without a GPU (never skipped).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>

#include "cf-test-util.h"
#include "common/convolve.h"
#include "common/image.h"
#include "common/kernel.h"
#include "cuda/convolve-im2tensor.h"

typedef struct
{
  int w, h;
} size2d;

/* Kernel sizes: k-steps 1 .. 4, one and two chunks, 1 to 65 rows. */
static const size2d kernels[] = {
  {1, 1}, {3, 3}, {7, 5}, {15, 15}, {16, 16}, {17, 3}, {31, 31}, {33, 65},
  {63, 3}, {64, 64}, {65, 7}, {127, 9}
};

/* Images: one pixel, smaller than any tile, odd sizes across one and two
 * blocks in each direction, exactly one block (128 x 64: the last warp of
 * a block and the last block column read the last rows and columns of the
 * padded image) and two blocks down (128 x 128). */
static const size2d images[] = {
  {1, 1}, {5, 3}, {67, 45}, {131, 70}, {200, 129}, {128, 64}, {128, 128}
};

static const cf_border all_borders[CF_BORDER_COUNT] = {
  CF_BORDER_ZERO, CF_BORDER_CLAMP, CF_BORDER_REFLECT, CF_BORDER_WRAP
};

static const cf_conv_mode all_modes[2] = { CF_CONVOLUTION, CF_CORRELATION };

/* One seed per case, so no two cases share their data. */
static guint32 next_seed = 1;

/* The row loops of the MMA kernel. */
static const cf_im2tensor_variant mma_loops[] = {
  CF_IM2TENSOR_VARIANT_MMA, CF_IM2TENSOR_VARIANT_MMA_REGS
};

/* The emulation of src with k, in each row loop, against cf_convolve (). */
static void
check_emulation (const cf_image * src, const cf_kernel * k, cf_border border,
    cf_conv_mode mode)
{
  cf_image *cpu = cf_image_new (src->width, src->height);
  cf_image *emu = cf_image_new (src->width, src->height);
  guint v;

  fail_unless (cpu != NULL && emu != NULL);
  fail_unless_equals_int (cf_convolve (src, k, border, mode, cpu), CF_OK);
  for (v = 0; v < 2 * G_N_ELEMENTS (mma_loops); v++) {
    const int narrow = v % 2;
    gchar *what = g_strdup_printf ("%s, %s warps: %dx%d image, %dx%d "
        "kernel, %s, %s", cf_im2tensor_variant_name (mma_loops[v / 2]),
        narrow ? "64-column" : "128-column", src->width, src->height,
        k->width, k->height, cf_border_name (border),
        mode == CF_CONVOLUTION ? "convolution" : "correlation");
    long stray = -1;
    cf_status status;

    cf_image_fill (emu, NAN);
    status = cf_im2tensor_mma_emulate (src, k, border, mode,
        mma_loops[v / 2], narrow, emu, &stray);
    fail_unless (status == CF_OK, "%s: status %d%s", what, status,
        status == CF_ERROR_UNSUPPORTED ? " (the geometry gives the other "
        "warp width)" : "");
    fail_unless (stray == 0, "%s: %ld reads outside the planes, the band "
        "or the ring, or copies outside the ring", what, stray);
    cf_test_assert_im2tensor_close (emu, cpu, src, k, border, mode, what);
    g_free (what);
  }

  cf_image_free (cpu);
  cf_image_free (emu);
}

/* A random image in [0, 1) and a random kernel in [-1, 1), every border
 * and both modes. */
static void
check_all_borders_and_modes (int w, int h, int kw, int kh)
{
  int b, m;

  for (b = 0; b < CF_BORDER_COUNT; b++)
    for (m = 0; m < 2; m++) {
      cf_image *src = cf_test_random_image (w, h, next_seed++ * 2654435761u,
          0.0f, 1.0f);
      cf_kernel *k = cf_test_random_kernel (kw, kh, next_seed++ * 40503u);

      check_emulation (src, k, all_borders[b], all_modes[m]);
      cf_image_free (src);
      cf_kernel_free (k);
    }
}

GST_START_TEST (test_emulation_matches_cpu)
{
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (images); i++)
    for (k = 0; k < G_N_ELEMENTS (kernels); k++)
      check_all_borders_and_modes (images[i].w, images[i].h, kernels[k].w,
          kernels[k].h);
}

GST_END_TEST;

/* A kernel with one tap set moves the image by a whole number of pixels,
 * so a tap read from a neighbouring column, row, k-step or chunk gives an
 * error of the order of the image, not of fp16 rounding. Taps at the
 * corners and at the edges of k-steps (15, 16) and chunks (63, 64) of a
 * 65 x 9 kernel, and of every row of a 3 x 17 kernel. */
GST_START_TEST (test_single_tap_kernels_shift_the_image)
{
  static const int columns[] = { 0, 1, 15, 16, 31, 32, 63, 64 };
  cf_image *src = cf_test_random_image (131, 70, 4711, 0.0f, 1.0f);
  guint c;
  int r;

  for (c = 0; c < G_N_ELEMENTS (columns); c++)
    for (r = 0; r < 9; r += 4) {
      cf_kernel *k = cf_kernel_new (65, 9);

      fail_unless (k != NULL);
      k->taps[columns[c] + r * 65] = 1.0f;
      check_emulation (src, k, CF_BORDER_REFLECT, CF_CORRELATION);
      cf_kernel_free (k);
    }
  for (r = 0; r < 17; r++) {
    cf_kernel *k = cf_kernel_new (3, 17);

    fail_unless (k != NULL);
    k->taps[2 + r * 3] = 1.0f;
    check_emulation (src, k, CF_BORDER_WRAP, CF_CONVOLUTION);
    cf_kernel_free (k);
  }
  cf_image_free (src);
}

GST_END_TEST;

/* Samples of 16-bit video stay finite (the input is halved before it is
 * rounded to fp16), and a box kernel of 1 / 49 is scaled by a power of
 * two, as on the GPU (convolve-methods.c, test_im2tensor_16bit_range). */
GST_START_TEST (test_16bit_range)
{
  cf_image *src = cf_test_random_image (90, 70, 65535, 0.0f, 65535.0f);
  cf_kernel *k = cf_kernel_new (7, 7);
  int i;

  fail_unless (k != NULL);
  for (i = 0; i < 49; i++)
    k->taps[i] = 1.0f / 49.0f;
  cf_image_row (src, 10)[10] = 65535.0f;
  check_emulation (src, k, CF_BORDER_CLAMP, CF_CONVOLUTION);
  cf_kernel_free (k);
  cf_image_free (src);
}

GST_END_TEST;

/* The emulation runs the MMA kernel's loops only. */
GST_START_TEST (test_emulation_refuses_other_kernels)
{
  cf_image *src = cf_test_random_image (5, 3, 5, 0.0f, 1.0f);
  cf_image *dst = cf_image_new (5, 3);
  cf_kernel *k = cf_kernel_new (3, 3);
  long stray = -1;

  fail_unless (dst != NULL && k != NULL);
  fail_unless_equals_int (cf_im2tensor_mma_emulate (src, k, CF_BORDER_ZERO,
          CF_CORRELATION, CF_IM2TENSOR_VARIANT_WMMA, 0, dst, &stray),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_im2tensor_mma_emulate (src, k, CF_BORDER_ZERO,
          CF_CORRELATION, CF_IM2TENSOR_VARIANT_AUTO, 0, dst, &stray),
      CF_ERROR_INVALID);
  fail_unless_equals_int (stray, -1);
  cf_kernel_free (k);
  cf_image_free (dst);
  cf_image_free (src);
}

GST_END_TEST;

/* A w x h image with samples of every kind the conversion to fp16 meets
 * (in range, saturating past 131008, +-Inf, NaN, -0, subnormal), in rows
 * of w + 3 floats whose last 3 are NaN: a run that reads past the right
 * edge of a row reads NaN instead of a neighbour that might match. The
 * caller frees data. */
static cf_image
pad_test_image (int w, int h, guint32 n, float **data)
{
  const size_t pitch = (size_t) w + 3;
  cf_image view;
  int x, y;

  *data = g_new (float, pitch * h);
  for (size_t i = 0; i < pitch * h; i++)
    (*data)[i] = NAN;
  view = cf_image_view (*data, w, h, pitch);
  cf_test_fill_random (&view, n, -2.0e5f, 2.0e5f);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const guint k = (guint) (x * 7 + y * 13) % 29;

      if (k == 0)
        cf_image_row (&view, y)[x] = -0.0f;
      else if (k == 1)
        cf_image_row (&view, y)[x] = INFINITY;
      else if (k == 2)
        cf_image_row (&view, y)[x] = -INFINITY;
      else if (k == 3)
        cf_image_row (&view, y)[x] = NAN;
      else if (k == 4)
        cf_image_row (&view, y)[x] = 1.0e-7f;   /* subnormal in fp16 */
    }
  return view;
}

/* The runs of the pad kernel against the pairs of the emulation for one
 * geometry: @rows rows of @pitch halves. */
static void
check_pad_runs (const cf_image * src, int kw, int kh, int ax, int ay,
    cf_border border, size_t pitch, int rows)
{
  long mismatches = -1, first = -2;
  cf_status status;

  /* outside fail_unless_equals_int (), whose local "first" would hide ours */
  status = cf_im2tensor_pad_compare (src, kw, kh, ax, ay, border, pitch,
      rows, &mismatches, &first);
  fail_unless_equals_int (status, CF_OK);
  if (mismatches != 0)
    fail ("%dx%d image, %dx%d kernel anchored at (%d, %d), %s, %d rows "
        "of %zu: %ld halves differ, the first in row %ld, column %ld",
        src->width, src->height, kw, kh, ax, ay, cf_border_name (border),
        rows, pitch, mismatches, first / (long) pitch, first % (long) pitch);
}

/* Bit for bit, the pad kernel's runs (im2tensor_pad_run ()) build the
 * image im2tensor_pad_pair () defines: widths around one run (8 columns),
 * odd sizes, kernels wider and taller than the image, every anchor class,
 * every border rule, a pitch just past the padded width (the tail within
 * one run) and one a block beyond it, as many rows as the padding needs
 * and more. */
GST_START_TEST (test_pad_runs_match_pairs)
{
  static const int widths[] = { 1, 2, 3, 7, 8, 9, 10, 16, 17, 33, 67 };
  static const int heights[] = { 1, 2, 5, 9 };
  static const size2d pad_kernels[] = {
    {1, 1}, {2, 2}, {3, 3}, {5, 4}, {8, 3}, {9, 9}, {31, 31}, {65, 3}
  };
  guint wi, hi, ki;
  guint32 n = 1;

  for (wi = 0; wi < G_N_ELEMENTS (widths); wi++)
    for (hi = 0; hi < G_N_ELEMENTS (heights); hi++) {
      float *data;
      const cf_image src = pad_test_image (widths[wi], heights[hi], n++,
          &data);

      for (ki = 0; ki < G_N_ELEMENTS (pad_kernels); ki++) {
        const int kw = pad_kernels[ki].w, kh = pad_kernels[ki].h;
        const int anchors[4][2] = {
          {0, 0}, {kw / 2, kh / 2}, {kw - 1, kh - 1}, {kw - 1, 0}
        };
        const int ext_w = src.width + kw - 1, ext_h = src.height + kh - 1;
        int a, b;

        for (a = 0; a < 4; a++)
          for (b = 0; b < CF_BORDER_COUNT; b++) {
            /* tight: the first run past ext_w; wide: whole 64-half
             * blocks and one more, as the plans' pitches are */
            check_pad_runs (&src, kw, kh, anchors[a][0], anchors[a][1],
                all_borders[b], (size_t) (ext_w + 8) / 8 * 8, ext_h);
            check_pad_runs (&src, kw, kh, anchors[a][0], anchors[a][1],
                all_borders[b], (size_t) (ext_w + 63) / 64 * 64 + 64,
                ext_h + 3);
          }
      }
      g_free (data);
    }
}

GST_END_TEST;

/* The plans' own sizes: a 200 x 129 image with a 31 x 31 kernel (the
 * MMA kernel's pitch, 4 blocks of 64 and a chunk, and its rows, three
 * blocks of 64 and kh - 1; the WMMA kernel's) and with a 64 x 5 kernel
 * (kw - 1 odd columns of padding; two chunks), and a pitch that is not a
 * multiple of 8 refused. */
GST_START_TEST (test_pad_runs_match_pairs_at_plan_sizes)
{
  float *data;
  const cf_image src = pad_test_image (200, 129, 4711, &data);
  long mismatches = -1;
  int b;

  for (b = 0; b < CF_BORDER_COUNT; b++) {
    check_pad_runs (&src, 31, 31, 15, 15, all_borders[b], 4 * 64 + 64,
        3 * 64 + 30);
    check_pad_runs (&src, 31, 31, 15, 15, all_borders[b], 4 * 64,
        129 + 32 - 1);
    check_pad_runs (&src, 64, 5, 32, 2, all_borders[b], 4 * 64 + 128,
        3 * 64 + 4);
  }
  fail_unless_equals_int (cf_im2tensor_pad_compare (&src, 3, 3, 1, 1,
          CF_BORDER_ZERO, 204, 131, &mismatches, NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_im2tensor_pad_compare (&src, 3, 3, 3, 1,
          CF_BORDER_ZERO, 256, 131, &mismatches, NULL), CF_ERROR_INVALID);
  fail_unless (mismatches == -1);
  g_free (data);
}

GST_END_TEST;

static Suite *
im2tensor_emu_suite (void)
{
  Suite *s = suite_create ("im2tensor_emu");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_single_tap_kernels_shift_the_image);
  tcase_add_test (tc, test_16bit_range);
  tcase_add_test (tc, test_emulation_refuses_other_kernels);
  tcase_add_test (tc, test_pad_runs_match_pairs);
  tcase_add_test (tc, test_pad_runs_match_pairs_at_plan_sizes);
  tcase_add_test (tc, test_emulation_matches_cpu);
  return s;
}

GST_CHECK_MAIN (im2tensor_emu);
