/* gst-cudaflow — the MMA im2tensor kernel's indexing, on the CPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_im2tensor_mma_emulate () runs the warp program of the MMA kernel
 * (cuda/convolve-im2tensor-mma.cu) for all 32 lanes on the CPU, with every
 * mma.sync assembled from the lanes' registers by the PTX fragment
 * layouts, on padded planes and a band built by the plan's own functions,
 * in both row loops: MMA (rows staged in a ring per warp; a copy lands
 * only at the wait that guarantees it and reads as NaN before) and
 * MMA_REGS (rows loaded into registers). Every case here compares each
 * loop with the CPU reference cf_convolve () under im2tensor's bar
 * (cf_test_assert_im2tensor_close (), cf-test-util.h: per pixel, 2e-3 of
 * sum |F| |in|, fp16 inputs), on an output poisoned with NaN, and asks for
 * no read outside the planes, the band or the warp's ring, and no copy
 * outside the ring. The kernels cover one to four k-steps of 16 taps (1,
 * 3, 7, 15, 16, 17, 31, 33, 64 taps wide), chunks of 64 taps (65, 127),
 * kernel rows from 1 to 65, even sides (the anchor), kernels larger than
 * the image; the images are smaller than, equal to and larger than a block
 * (64 x 128), most of odd sizes. Runs without a GPU (never skipped).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>

#include "cf-test-util.h"
#include "common/convolve.h"
#include "common/kernel.h"
#include "cuda/convolve-im2tensor.h"

typedef struct
{
  int w, h;
} size2d;

/* Kernel sizes: k-steps 1 .. 4, one and two chunks, 1 to 65 rows. */
static const size2d kernels[] = {
  {1, 1}, {3, 3}, {7, 5}, {15, 15}, {16, 16}, {17, 3}, {31, 31}, {33, 65},
  {64, 64}, {65, 7}, {127, 9}
};

/* Images: one pixel, smaller than any tile, odd sizes across one and two
 * blocks in each direction, and exactly one block (64 x 128: the last
 * warp of a block and the last block column read the last rows and
 * columns of the padded planes). */
static const size2d images[] = {
  {1, 1}, {5, 3}, {67, 45}, {131, 70}, {200, 129}, {128, 128}
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
  for (v = 0; v < G_N_ELEMENTS (mma_loops); v++) {
    gchar *what = g_strdup_printf ("%s: %dx%d image, %dx%d kernel, %s, %s",
        cf_im2tensor_variant_name (mma_loops[v]), src->width, src->height,
        k->width, k->height, cf_border_name (border),
        mode == CF_CONVOLUTION ? "convolution" : "correlation");
    long stray = -1;

    cf_image_fill (emu, NAN);
    fail_unless_equals_int (cf_im2tensor_mma_emulate (src, k, border, mode,
            mma_loops[v], emu, &stray), CF_OK);
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
          CF_CORRELATION, CF_IM2TENSOR_VARIANT_WMMA, dst, &stray),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_im2tensor_mma_emulate (src, k, CF_BORDER_ZERO,
          CF_CORRELATION, CF_IM2TENSOR_VARIANT_AUTO, dst, &stray),
      CF_ERROR_INVALID);
  fail_unless_equals_int (stray, -1);
  cf_kernel_free (k);
  cf_image_free (dst);
  cf_image_free (src);
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
  tcase_add_test (tc, test_emulation_matches_cpu);
  return s;
}

GST_CHECK_MAIN (im2tensor_emu);
