/* gst-cudaflow — GPU pyramids, luma, warping and flow layout vs the CPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every GPU result is compared with its CPU twin: max |Δ| <= 1e-4 ·
 * max(1, max |ref|) for filters and interpolation, bit-exact for luma and
 * flow layout. Outputs are poisoned with NaN before each GPU call, so a
 * pixel the GPU forgets fails the comparison.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/gaussian.h"
#include "common/metrics.h"
#include "common/planes.h"
#include "common/pyramid.h"
#include "common/warp.h"
#include "cuda/flow.h"
#include "cuda/luma.h"
#include "cuda/pyramid.h"
#include "cuda/warp.h"

/* relative tolerance of filters and interpolation */
#define REL_TOL 1e-4

typedef struct
{
  int width, height;
} test_size;

static const test_size sizes[] = {
  {1, 1}, {2, 3}, {17, 13}, {641, 479}, {1920, 1080}
};

#define N_SIZES ((int) G_N_ELEMENTS (sizes))

static cudaStream_t stream;

static void
setup (void)
{
  fail_unless_equals_int (cudaStreamCreate (&stream), cudaSuccess);
}

static void
teardown (void)
{
  cudaStreamDestroy (stream);
}

static void
sync_stream (void)
{
  fail_unless_equals_int (cudaStreamSynchronize (stream), cudaSuccess);
}

/* Bit-exact equality (NaN never equal). */
static void
assert_image_equal (const cf_cuda_image * gpu, const cf_image * ref,
    const char *what)
{
  cf_image *got = cf_test_download_image (gpu, stream);
  int x, y;

  for (y = 0; y < ref->height; y++) {
    const float *a = cf_image_row (got, y), *b = cf_image_row (ref, y);
    for (x = 0; x < ref->width; x++)
      fail_unless (a[x] == b[x], "%s (%dx%d): (%d, %d) gpu %.9g cpu %.9g",
          what, ref->width, ref->height, x, y, a[x], b[x]);
  }
  cf_image_free (got);
}

/* ------------------------------------------------------------------ */

GST_START_TEST (test_blur_matches_cpu)
{
  /* 0.5: radius 2; 0.8: TV-L1's presmoothing (radius 4); 1.039: the eta =
   * 0.5 anti-alias (radius 5); 1.9: radius 8, the longest one-launch
   * blur; 3: radius 12, wider than the small images (multiple
   * reflections); 70: radius 255 (the cap) */
  static const float sigmas[] = { 0.5f, 0.8f, 1.0392305f, 1.9f, 3.0f,
    70.0f
  };
  float *taps = NULL;
  int i, s;

  fail_unless_equals_int (cudaMalloc ((void **) &taps, 511 * sizeof (float)),
      cudaSuccess);
  for (i = 0; i < N_SIZES; i++) {
    int w = sizes[i].width, h = sizes[i].height;
    for (s = 0; s < (int) G_N_ELEMENTS (sigmas); s++) {
      cf_image *src, *tmp, *ref, *two_d;
      cf_cuda_image gsrc, gtmp, gdst;

      /* the CPU blur at sigma 70 on 1080p costs seconds: skip that one */
      if (sigmas[s] > 10.0f && w * h > 1000000)
        continue;
      src = cf_test_random_image (w, h, 11 + i, 0.0f, 255.0f);
      tmp = cf_image_new (w, h);
      ref = cf_image_new (w, h);
      fail_unless_equals_int (cf_gaussian_blur (src, sigmas[s], tmp, ref),
          CF_OK);

      cf_test_upload_image (src, &gsrc, stream);
      cf_test_poisoned_image (w, h, &gtmp, stream);
      cf_test_poisoned_image (w, h, &gdst, stream);
      fail_unless_equals_int (cf_cuda_gaussian_blur (&gsrc, sigmas[s], &gtmp,
              &gdst, taps, 511, stream), CF_OK);
      cf_test_assert_cuda_image_close (&gdst, ref, REL_TOL, "blur", stream);
      /* in place (src == dst): always the two passes, whose bits the
       * one-launch blur of radii <= 8 must give */
      fail_unless_equals_int (cf_cuda_gaussian_blur (&gsrc, sigmas[s], &gtmp,
              &gsrc, taps, 511, stream), CF_OK);
      cf_test_assert_cuda_image_close (&gsrc, ref, REL_TOL, "blur in place",
          stream);
      two_d = cf_test_download_image (&gdst, stream);
      assert_image_equal (&gsrc, two_d, "blur (one launch) vs two passes");
      cf_image_free (two_d);

      cf_cuda_image_release (&gsrc);
      cf_cuda_image_release (&gtmp);
      cf_cuda_image_release (&gdst);
      cf_image_free (src);
      cf_image_free (tmp);
      cf_image_free (ref);
    }
  }
  cudaFree (taps);
}

GST_END_TEST;

GST_START_TEST (test_blur_rejects_bad_arguments)
{
  cf_cuda_image a, b;
  float *taps = NULL;

  fail_unless_equals_int (cudaMalloc ((void **) &taps, 11 * sizeof (float)),
      cudaSuccess);
  cf_test_poisoned_image (8, 8, &a, stream);
  cf_test_poisoned_image (8, 8, &b, stream);
  /* radius ceil(4 * 2) = 8 needs 17 taps, only 11 available */
  fail_unless_equals_int (cf_cuda_gaussian_blur (&a, 2.0f, &b, &a, taps, 11,
          stream), CF_ERROR_INVALID);
  /* tmp aliasing src, sigma <= 0 */
  fail_unless_equals_int (cf_cuda_gaussian_blur (&a, 1.0f, &a, &b, taps, 11,
          stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_gaussian_blur (&a, 0.0f, &b, &a, taps, 11,
          stream), CF_ERROR_INVALID);
  cf_cuda_image_release (&a);
  cf_cuda_image_release (&b);
  cudaFree (taps);
}

GST_END_TEST;

/* Build the same pyramid on both sides, compare every level. */
static void
check_pyramid (int w, int h, const cf_pyramid_params * params, guint32 seed)
{
  cf_image *frame = cf_test_random_image (w, h, seed, 0.0f, 255.0f);
  cf_pyramid *ref = cf_pyramid_new (w, h, params);
  cf_cuda_pyramid gpu;
  int l;

  fail_unless (ref != NULL);
  fail_unless_equals_int (cf_pyramid_build (ref, frame, params), CF_OK);
  fail_unless_equals_int (cf_cuda_pyramid_alloc (&gpu, w, h, params), CF_OK);
  fail_unless_equals_int (gpu.n_levels, ref->n_levels);
  for (l = 1; l < gpu.n_levels; l++)
    fail_unless_equals_int (cf_cuda_image_fill (&gpu.level[l], NAN, stream),
        CF_OK);
  fail_unless_equals_int (cf_cuda_image_upload (frame, &gpu.level[0],
          stream), CF_OK);
  fail_unless_equals_int (cf_cuda_pyramid_build (&gpu, params, stream),
      CF_OK);
  for (l = 0; l < gpu.n_levels; l++) {
    fail_unless_equals_int (gpu.level[l].width, ref->level[l]->width);
    fail_unless_equals_int (gpu.level[l].height, ref->level[l]->height);
    cf_test_assert_cuda_image_close (&gpu.level[l], ref->level[l], REL_TOL,
        "pyramid level", stream);
  }
  cf_cuda_pyramid_release (&gpu);
  cf_pyramid_free (ref);
  cf_image_free (frame);
}

GST_START_TEST (test_pyramid_matches_cpu)
{
  cf_pyramid_params params;
  int i;

  cf_pyramid_params_init (&params);
  params.min_size = 1;
  for (i = 0; i < N_SIZES; i++)
    check_pyramid (sizes[i].width, sizes[i].height, &params, 21 + i);

  /* presmoothing on level 0, the default min size */
  cf_pyramid_params_init (&params);
  params.presmooth_sigma = 0.8f;
  check_pyramid (641, 479, &params, 31);
  check_pyramid (1920, 1080, &params, 32);

  /* other eta (not every second pixel: real bicubic sampling) */
  cf_pyramid_params_init (&params);
  params.eta = 0.8f;
  params.max_levels = 6;
  params.min_size = 4;
  check_pyramid (641, 479, &params, 33);
  check_pyramid (17, 13, &params, 34);
  params.eta = 0.65f;
  params.presmooth_sigma = 1.5f;
  check_pyramid (641, 479, &params, 35);
}

GST_END_TEST;

/* At eta 0.5 a pyramid step is one launch that sums the blur only where
 * the coarse grid samples it; its levels must be the bits of the blur
 * followed by the bicubic sampling, on sizes around its 32 x 16 tile
 * and on planes narrower than the blur. */
GST_START_TEST (test_pyramid_halving_equals_blur_then_sample)
{
  static const test_size halving_sizes[] = {
    {1, 1}, {2, 3}, {3, 200}, {63, 31}, {64, 32}, {65, 33}, {130, 67},
    {641, 479}, {1920, 1080}
  };
  const float eta = 0.5f;
  const float sigma = 0.6f * sqrtf (1.0f / (eta * eta) - 1.0f);
  cf_pyramid_params params;
  float *taps = NULL;
  int i, l;

  fail_unless_equals_int (cudaMalloc ((void **) &taps, 511 * sizeof (float)),
      cudaSuccess);
  cf_pyramid_params_init (&params);
  params.eta = eta;
  params.max_levels = 4;
  params.min_size = 1;
  params.presmooth_sigma = 0.8f;
  for (i = 0; i < (int) G_N_ELEMENTS (halving_sizes); i++) {
    const int w = halving_sizes[i].width, h = halving_sizes[i].height;
    cf_image *frame = cf_test_random_image (w, h, 41 + i, 0.0f, 255.0f);
    cf_cuda_pyramid gpu;

    fail_unless_equals_int (cf_cuda_pyramid_alloc (&gpu, w, h, &params),
        CF_OK);
    fail_unless_equals_int (cf_cuda_image_upload (frame, &gpu.level[0],
            stream), CF_OK);
    fail_unless_equals_int (cf_cuda_pyramid_build (&gpu, &params, stream),
        CF_OK);
    for (l = 1; l < gpu.n_levels; l++) {
      const cf_cuda_image *fine = &gpu.level[l - 1];
      cf_cuda_image tmp, blurred, coarse;
      cf_image *want;

      cf_test_poisoned_image (fine->width, fine->height, &tmp, stream);
      cf_test_poisoned_image (fine->width, fine->height, &blurred, stream);
      cf_test_poisoned_image (gpu.level[l].width, gpu.level[l].height,
          &coarse, stream);
      fail_unless_equals_int (cf_cuda_gaussian_blur (fine, sigma, &tmp,
              &blurred, taps, 511, stream), CF_OK);
      fail_unless_equals_int (cf_cuda_bicubic_downscale (&blurred, eta,
              &coarse, stream), CF_OK);
      want = cf_test_download_image (&coarse, stream);
      assert_image_equal (&gpu.level[l], want, "halving vs blur + sample");
      cf_image_free (want);
      cf_cuda_image_release (&tmp);
      cf_cuda_image_release (&blurred);
      cf_cuda_image_release (&coarse);
    }
    cf_cuda_pyramid_release (&gpu);
    cf_image_free (frame);
  }
  cudaFree (taps);
}

GST_END_TEST;

/* Re-building with another presmoothing sigma re-uploads its taps. */
GST_START_TEST (test_pyramid_rebuild_with_new_sigma)
{
  cf_pyramid_params params;
  cf_image *frame = cf_test_random_image (97, 61, 41, 0.0f, 255.0f);
  cf_pyramid *ref;
  cf_cuda_pyramid gpu;
  int l, round;

  cf_pyramid_params_init (&params);
  params.min_size = 8;
  params.presmooth_sigma = 0.6f;
  ref = cf_pyramid_new (97, 61, &params);
  fail_unless_equals_int (cf_cuda_pyramid_alloc (&gpu, 97, 61, &params),
      CF_OK);
  for (round = 0; round < 3; round++) {
    params.presmooth_sigma = round == 1 ? 2.0f : 0.6f * (round + 1);
    fail_unless_equals_int (cf_pyramid_build (ref, frame, &params), CF_OK);
    fail_unless_equals_int (cf_cuda_image_upload (frame, &gpu.level[0],
            stream), CF_OK);
    fail_unless_equals_int (cf_cuda_pyramid_build (&gpu, &params, stream),
        CF_OK);
    for (l = 0; l < gpu.n_levels; l++)
      cf_test_assert_cuda_image_close (&gpu.level[l], ref->level[l], REL_TOL,
          "rebuilt pyramid level", stream);
  }
  /* a different eta gives other sizes than allocated: rejected */
  params.eta = 0.7f;
  fail_unless_equals_int (cf_cuda_pyramid_build (&gpu, &params, stream),
      CF_ERROR_INVALID);
  cf_cuda_pyramid_release (&gpu);
  cf_cuda_pyramid_release (&gpu);       /* released twice: a no-op */
  cf_pyramid_free (ref);
  cf_image_free (frame);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */

/* Random bytes on the host and the same bytes on the device. */
static uint8_t *
random_bytes (size_t n, guint32 seed, uint8_t ** device)
{
  uint8_t *bytes = g_malloc (n);
  guint32 state = seed;
  size_t i;

  for (i = 0; i < n; i++) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    bytes[i] = (uint8_t) (state >> 11);
  }
  fail_unless_equals_int (cudaMalloc ((void **) device, n), cudaSuccess);
  fail_unless_equals_int (cudaMemcpy (*device, bytes, n,
          cudaMemcpyHostToDevice), cudaSuccess);
  return bytes;
}

GST_START_TEST (test_luma_from_channel_is_bit_exact)
{
  /* depth, pixel_stride, byte offset of the channel in a pixel */
  static const int layouts[][3] = {
    {8, 1, 0}, {8, 2, 1}, {8, 4, 3}, {16, 2, 0}, {16, 4, 2}, {16, 8, 6}
  };
  int i, k;

  for (i = 0; i < N_SIZES; i++) {
    int w = sizes[i].width, h = sizes[i].height;
    for (k = 0; k < (int) G_N_ELEMENTS (layouts); k++) {
      int depth = layouts[k][0], ps = layouts[k][1], off = layouts[k][2];
      ptrdiff_t stride = (ptrdiff_t) w * ps + 5;        /* odd padding */
      size_t n = (size_t) stride * h;
      uint8_t *dbytes = NULL, *bytes = random_bytes (n, 51 + k, &dbytes);
      cf_channel hch = { bytes + off, w, h, stride, ps, depth };
      cf_channel dch = { dbytes + off, w, h, stride, ps, depth };
      cf_image *ref = cf_image_new (w, h);
      cf_cuda_image out;

      fail_unless_equals_int (cf_luma_from_channel (&hch, ref), CF_OK);
      cf_test_poisoned_image (w, h, &out, stream);
      fail_unless_equals_int (cf_cuda_luma_from_channel (&dch, &out, stream),
          CF_OK);
      assert_image_equal (&out, ref, "luma from channel");

      /* bottom-up rows: negative stride from the last row */
      hch.data = bytes + off + (size_t) stride * (h - 1);
      dch.data = dbytes + off + (size_t) stride * (h - 1);
      hch.stride = dch.stride = -stride;
      fail_unless_equals_int (cf_luma_from_channel (&hch, ref), CF_OK);
      fail_unless_equals_int (cf_cuda_luma_from_channel (&dch, &out, stream),
          CF_OK);
      assert_image_equal (&out, ref, "luma from channel, negative stride");

      cf_cuda_image_release (&out);
      cf_image_free (ref);
      cudaFree (dbytes);
      g_free (bytes);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_luma_from_rgb_is_bit_exact)
{
  /* pixel_stride, r, g, b: RGBA/RGBx, BGRA/BGRx, ARGB, RGB, BGR */
  static const int layouts[][4] = {
    {4, 0, 1, 2}, {4, 2, 1, 0}, {4, 1, 2, 3}, {3, 0, 1, 2}, {3, 2, 1, 0}
  };
  int i, k;

  for (i = 0; i < N_SIZES; i++) {
    int w = sizes[i].width, h = sizes[i].height;
    for (k = 0; k < (int) G_N_ELEMENTS (layouts); k++) {
      int ps = layouts[k][0];
      ptrdiff_t stride = (ptrdiff_t) w * ps + 3;
      size_t n = (size_t) stride * h;
      uint8_t *dbytes = NULL, *bytes = random_bytes (n, 61 + k, &dbytes);
      cf_image *ref = cf_image_new (w, h);
      cf_cuda_image out;

      fail_unless_equals_int (cf_luma_from_rgb (bytes, stride, ps,
              layouts[k][1], layouts[k][2], layouts[k][3], ref), CF_OK);
      cf_test_poisoned_image (w, h, &out, stream);
      fail_unless_equals_int (cf_cuda_luma_from_rgb (dbytes, stride, ps,
              layouts[k][1], layouts[k][2], layouts[k][3], &out, stream),
          CF_OK);
      assert_image_equal (&out, ref, "luma from rgb");

      cf_cuda_image_release (&out);
      cf_image_free (ref);
      cudaFree (dbytes);
      g_free (bytes);
    }
  }
  /* offsets outside the pixel are rejected */
  {
    cf_cuda_image out;
    cf_test_poisoned_image (4, 4, &out, stream);
    fail_unless_equals_int (cf_cuda_luma_from_rgb ((void *) 16, 16, 4, 0, 1,
            4, &out, stream), CF_ERROR_INVALID);
    cf_cuda_image_release (&out);
  }
}

GST_END_TEST;

/* The luma calls that reduce their range on the way: the luma of the
 * plain calls bit for bit, and cf_image_min_max's range of the CPU's luma
 * exactly, for 8- and 16-bit channels and RGB, with the extremes planted
 * at the first, last and middle pixel and on a black frame (whose range
 * starts where the reduction's state does); through pinned and pageable
 * pairs, on one scratch across every call (each leaves it cleared for
 * the next). */
static void
plant_extremes (uint8_t * bytes, ptrdiff_t stride, int ps, int w, int h,
    int k, uint8_t lo, uint8_t hi)
{
  const int at[3][2] = { {0, 0}, {w - 1, h - 1}, {w / 2, h / 2} };
  uint8_t *plo = bytes + at[k % 3][1] * stride + (ptrdiff_t) at[k % 3][0] * ps;
  uint8_t *phi = bytes + at[(k + 1) % 3][1] * stride +
      (ptrdiff_t) at[(k + 1) % 3][0] * ps;

  memset (plo, lo, (size_t) ps);
  memset (phi, hi, (size_t) ps);
}

static void
check_range (const float *got, const cf_image * ref_luma, const char *what,
    int w, int h, int k)
{
  float lo, hi;

  cf_image_min_max (ref_luma, &lo, &hi);
  fail_unless (got[0] == lo && got[1] == hi, "%s %dx%d case %d: range "
      "(%g, %g), CPU (%g, %g)", what, w, h, k, got[0], got[1], lo, hi);
}

GST_START_TEST (test_luma_range_matches_cpu)
{
  float *scratch = NULL, *pinned = NULL, pageable[2];
  int i, k, pin;

  fail_unless_equals_int (cudaMalloc ((void **) &scratch,
          CF_CUDA_LUMA_RANGE_SCRATCH * sizeof (float)), cudaSuccess);
  fail_unless_equals_int (cf_cuda_luma_range_scratch_clear (scratch, stream),
      CF_OK);
  fail_unless_equals_int (cudaMallocHost ((void **) &pinned,
          2 * sizeof (float)), cudaSuccess);
  for (i = 0; i < N_SIZES; i++) {
    const int w = sizes[i].width, h = sizes[i].height;
    for (k = 0; k < 8; k++) {
      /* k 0..2: 8-bit channel, 3..5: 16-bit, 6: RGB, 7: black 8-bit */
      const int depth = k >= 3 && k <= 5 ? 16 : 8;
      const int ps = k == 6 ? 3 : depth / 8 + 1;
      const ptrdiff_t stride = (ptrdiff_t) w * ps + 3;
      const size_t n = (size_t) stride * h;
      uint8_t *dbytes = NULL, *bytes = random_bytes (n, 91 + 7 * i + k,
          &dbytes);
      cf_image *ref = cf_image_new (w, h);
      cf_cuda_image out, plain;
      float *range;

      pin = k % 2;
      if (k == 7)
        memset (bytes, 0, n);
      else
        plant_extremes (bytes, stride, ps, w, h, k, 0, 255);
      fail_unless_equals_int (cudaMemcpy (dbytes, bytes, n,
              cudaMemcpyHostToDevice), cudaSuccess);
      cf_test_poisoned_image (w, h, &out, stream);
      cf_test_poisoned_image (w, h, &plain, stream);
      range = pin ? pinned : pageable;
      range[0] = range[1] = -1.0f;
      if (k == 6) {
        fail_unless_equals_int (cf_luma_from_rgb (bytes, stride, ps, 0, 1, 2,
                ref), CF_OK);
        fail_unless_equals_int (cf_cuda_luma_from_rgb_range (dbytes, stride,
                ps, 0, 1, 2, &out, scratch, range, stream), CF_OK);
        fail_unless_equals_int (cf_cuda_luma_from_rgb (dbytes, stride, ps, 0,
                1, 2, &plain, stream), CF_OK);
      } else {
        cf_channel hch = { bytes, w, h, stride, ps, depth };
        cf_channel dch = { dbytes, w, h, stride, ps, depth };

        fail_unless_equals_int (cf_luma_from_channel (&hch, ref), CF_OK);
        fail_unless_equals_int (cf_cuda_luma_from_channel_range (&dch, &out,
                scratch, range, stream), CF_OK);
        fail_unless_equals_int (cf_cuda_luma_from_channel (&dch, &plain,
                stream), CF_OK);
      }
      fail_unless_equals_int (cudaStreamSynchronize (stream), cudaSuccess);
      assert_image_equal (&out, ref, "luma with range");
      assert_image_equal (&plain, ref, "luma without range");
      check_range (range, ref, pin ? "pinned" : "pageable", w, h, k);
      if (k == 7)
        fail_unless (range[0] == 0.0f && range[1] == 0.0f);
      else if (k != 6 && w * h > 1)
        fail_unless (range[0] == 0.0f && range[1] == 255.0f,
            "%dx%d case %d: the planted extremes, got (%g, %g)", w, h, k,
            range[0], range[1]);

      cf_cuda_image_release (&out);
      cf_cuda_image_release (&plain);
      cf_image_free (ref);
      cudaFree (dbytes);
      g_free (bytes);
    }
  }
  {
    cf_cuda_image out;
    cf_channel dch = { (void *) 16, 4, 4, 4, 1, 8 };

    cf_test_poisoned_image (4, 4, &out, stream);
    fail_unless_equals_int (cf_cuda_luma_from_channel_range (&dch, &out, NULL,
            pinned, stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_luma_from_channel_range (&dch, &out,
            scratch, NULL, stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_luma_from_rgb_range ((void *) 16, 16, 4,
            0, 1, 2, &out, NULL, pinned, stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_luma_range_scratch_clear (NULL, stream),
        CF_ERROR_INVALID);
    cf_cuda_image_release (&out);
  }
  cudaFreeHost (pinned);
  cudaFree (scratch);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */

/* The luma range TV-L1's normalisation reads: cf_image_min_max's values
 * exactly, with the extremes anywhere (first, last, middle pixel). */
GST_START_TEST (test_min_max_matches_cpu)
{
  float *scratch = NULL;
  int i, k;

  fail_unless_equals_int (cudaMalloc ((void **) &scratch,
          CF_CUDA_MIN_MAX_SCRATCH * sizeof (float)), cudaSuccess);
  for (i = 0; i < N_SIZES; i++) {
    const int w = sizes[i].width, h = sizes[i].height;
    for (k = 0; k < 4; k++) {
      cf_image *img = cf_test_random_image (w, h, 300u + 7u * i + k, 20.0f,
          230.0f);
      cf_cuda_image dev;
      float lo = 0, hi = 0, ref_lo, ref_hi;
      /* k = 1..3: plant the extremes at the first, last, middle pixel */
      const int at[3][2] = { {0, 0}, {w - 1, h - 1}, {w / 2, h / 2} };

      if (k > 0) {
        cf_image_row (img, at[k - 1][1])[at[k - 1][0]] = -3.5f;
        cf_image_row (img, at[(k) % 3][1])[at[k % 3][0]] = 1000.25f;
      }
      cf_image_min_max (img, &ref_lo, &ref_hi);
      cf_test_upload_image (img, &dev, stream);
      fail_unless_equals_int (cf_cuda_image_min_max (&dev, scratch, &lo, &hi,
              stream), CF_OK);
      fail_unless (lo == ref_lo && hi == ref_hi, "%dx%d case %d: GPU (%g, "
          "%g), CPU (%g, %g)", w, h, k, lo, hi, ref_lo, ref_hi);
      if (k > 0 && w * h > 1)
        fail_unless (ref_lo == -3.5f && ref_hi == 1000.25f);
      cf_cuda_image_release (&dev);
      cf_image_free (img);
    }
  }
  cudaFree (scratch);
}

GST_END_TEST;

/* The asynchronous form: the values of the plane as it stood when the
 * reduction was queued, even though the plane is overwritten right after
 * in the same stream, read once an event after the copy has passed. */
GST_START_TEST (test_min_max_async_in_stream_order)
{
  float *scratch = NULL, *range = NULL;
  cudaEvent_t done;
  cf_image *img = cf_test_random_image (333, 211, 77u, 20.0f, 230.0f);
  cf_cuda_image dev;
  float ref_lo, ref_hi;

  fail_unless_equals_int (cudaMalloc ((void **) &scratch,
          CF_CUDA_MIN_MAX_SCRATCH * sizeof (float)), cudaSuccess);
  fail_unless_equals_int (cudaMallocHost ((void **) &range,
          2 * sizeof (float)), cudaSuccess);
  fail_unless_equals_int (cudaEventCreateWithFlags (&done,
          cudaEventDisableTiming), cudaSuccess);
  cf_image_row (img, 17)[5] = -1.25f;
  cf_image_row (img, 200)[300] = 999.5f;
  cf_image_min_max (img, &ref_lo, &ref_hi);
  cf_test_upload_image (img, &dev, stream);
  range[0] = range[1] = 0.0f;
  fail_unless_equals_int (cf_cuda_image_min_max_async (&dev, scratch, range,
          stream), CF_OK);
  fail_unless_equals_int (cudaMemset2DAsync (dev.data, dev.pitch *
          sizeof (float), 0, dev.width * sizeof (float), dev.height, stream),
      cudaSuccess);
  fail_unless_equals_int (cudaEventRecord (done, stream), cudaSuccess);
  fail_unless_equals_int (cudaEventSynchronize (done), cudaSuccess);
  fail_unless (range[0] == ref_lo && range[1] == ref_hi, "GPU (%g, %g), "
      "CPU (%g, %g)", range[0], range[1], ref_lo, ref_hi);
  fail_unless (ref_lo == -1.25f && ref_hi == 999.5f);

  fail_unless_equals_int (cf_cuda_image_min_max_async (&dev, scratch, NULL,
          stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_image_min_max_async (&dev, NULL, range,
          stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_image_min_max_async (NULL, scratch, range,
          stream), CF_ERROR_INVALID);
  cudaEventDestroy (done);
  cudaFreeHost (range);
  cudaFree (scratch);
  cf_cuda_image_release (&dev);
  cf_image_free (img);
}

GST_END_TEST;

GST_START_TEST (test_warp_matches_cpu)
{
  static const cf_warp_border borders[] = { CF_WARP_CLAMP,
    CF_WARP_ZERO_OUTSIDE
  };
  int i, b;

  for (i = 0; i < N_SIZES; i++) {
    int w = sizes[i].width, h = sizes[i].height;
    cf_image *src = cf_test_random_image (w, h, 71 + i, 0.0f, 255.0f);
    cf_flow *flow = cf_test_random_flow (w, h, 81 + i, -6.0f, 6.0f);
    cf_cuda_image gsrc;
    cf_cuda_flow gflow;

    /* a few special vectors: far outside, huge, non-finite (kept below
     * 2^31: common/warp.c converts floorf (x) to int unchecked) */
    flow->u[0] = 2e9f;
    if (w > 3) {
      flow->v[1] = -2e9f;
      flow->u[2] = NAN;
      flow->v[3] = INFINITY;
    }
    flow->u[w / 2 + (size_t) (h / 2) * flow->pitch] = -1000.5f;
    cf_test_upload_image (src, &gsrc, stream);
    cf_test_upload_flow (flow, &gflow, stream);
    for (b = 0; b < (int) G_N_ELEMENTS (borders); b++) {
      cf_image *ref = cf_image_new (w, h);
      cf_cuda_image gdst;

      fail_unless_equals_int (cf_warp_bicubic (src, flow, borders[b], ref),
          CF_OK);
      cf_test_poisoned_image (w, h, &gdst, stream);
      fail_unless_equals_int (cf_cuda_warp_bicubic (&gsrc, &gflow,
              borders[b], &gdst, stream), CF_OK);
      cf_test_assert_cuda_image_close (&gdst, ref, REL_TOL,
          borders[b] == CF_WARP_CLAMP ? "warp, clamp" : "warp, zero outside",
          stream);
      cf_cuda_image_release (&gdst);
      cf_image_free (ref);
    }
    /* src == dst is rejected */
    fail_unless_equals_int (cf_cuda_warp_bicubic (&gsrc, &gflow,
            CF_WARP_CLAMP, &gsrc, stream), CF_ERROR_INVALID);
    cf_cuda_image_release (&gsrc);
    cf_cuda_flow_release (&gflow);
    cf_flow_free (flow);
    cf_image_free (src);
  }
}

GST_END_TEST;

GST_START_TEST (test_flow_resample_matches_cpu)
{
  /* src w, h -> dst w, h: one pyramid step up and down, odd ratios,
   * degenerate sizes */
  static const int cases[][4] = {
    {321, 240, 641, 479}, {641, 479, 321, 240}, {960, 540, 1920, 1080},
    {1, 1, 2, 3}, {2, 3, 17, 13}, {17, 13, 1, 1}, {17, 13, 17, 13}
  };
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (cases); i++) {
    int sw = cases[i][0], sh = cases[i][1], dw = cases[i][2], dh = cases[i][3];
    cf_flow *src = cf_test_random_flow (sw, sh, 91 + i, -20.0f, 20.0f);
    cf_flow *ref = cf_flow_new (dw, dh);
    cf_cuda_flow gsrc, gdst;

    fail_unless_equals_int (cf_flow_resample (src, ref), CF_OK);
    cf_test_upload_flow (src, &gsrc, stream);
    fail_unless_equals_int (cf_cuda_flow_alloc (&gdst, dw, dh), CF_OK);
    fail_unless_equals_int (cf_cuda_flow_fill (&gdst, NAN, NAN, stream),
        CF_OK);
    fail_unless_equals_int (cf_cuda_flow_resample (&gsrc, &gdst, stream),
        CF_OK);
    cf_test_assert_cuda_flow_close (&gdst, ref, REL_TOL, "flow resample",
        stream);
    /* in place is rejected */
    fail_unless_equals_int (cf_cuda_flow_resample (&gsrc, &gsrc, stream),
        CF_ERROR_INVALID);
    cf_cuda_flow_release (&gsrc);
    cf_cuda_flow_release (&gdst);
    cf_flow_free (src);
    cf_flow_free (ref);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------ */

GST_START_TEST (test_flow_interleave_round_trip)
{
  int i;

  for (i = 0; i < N_SIZES; i++) {
    int w = sizes[i].width, h = sizes[i].height;
    size_t stride = 2 * (size_t) w * sizeof (float) + 12;  /* padded rows */
    cf_flow *flow = cf_test_random_flow (w, h, 101 + i, -50.0f, 50.0f);
    cf_flow *back;
    float *ref = g_malloc (stride * h), *got = g_malloc (stride * h);
    float *duv = NULL;
    cf_cuda_flow gflow, gback;
    size_t k;

    flow->u[0] = CF_FLOW_UNKNOWN;
    memset (ref, 0x5a, stride * h);
    cf_flow_to_interleaved (flow, ref, stride);

    cf_test_upload_flow (flow, &gflow, stream);
    fail_unless_equals_int (cudaMalloc ((void **) &duv, stride * h),
        cudaSuccess);
    fail_unless_equals_int (cudaMemset (duv, 0x5a, stride * h), cudaSuccess);
    fail_unless_equals_int (cf_cuda_flow_to_interleaved (&gflow, duv, stride,
            stream), CF_OK);
    sync_stream ();
    fail_unless_equals_int (cudaMemcpy (got, duv, stride * h,
            cudaMemcpyDeviceToHost), cudaSuccess);
    /* the padding stays untouched as well */
    fail_unless (memcmp (got, ref, stride * h) == 0,
        "interleaved rows differ (%dx%d)", w, h);

    fail_unless_equals_int (cf_cuda_flow_alloc (&gback, w, h), CF_OK);
    fail_unless_equals_int (cf_cuda_flow_fill (&gback, NAN, NAN, stream),
        CF_OK);
    fail_unless_equals_int (cf_cuda_flow_from_interleaved (&gback, duv,
            stride, stream), CF_OK);
    back = cf_test_download_flow (&gback, stream);
    for (k = 0; k < (size_t) h; k++)
      fail_unless (memcmp (back->u + k * back->pitch, flow->u +
              k * flow->pitch, w * sizeof (float)) == 0 &&
          memcmp (back->v + k * back->pitch, flow->v + k * flow->pitch,
              w * sizeof (float)) == 0, "round trip differs in row %d",
          (int) k);

    /* a stride shorter than a row is rejected */
    fail_unless_equals_int (cf_cuda_flow_to_interleaved (&gflow, duv,
            2 * (size_t) w * sizeof (float) - 4, stream), CF_ERROR_INVALID);

    cudaFree (duv);
    cf_cuda_flow_release (&gflow);
    cf_cuda_flow_release (&gback);
    cf_flow_free (flow);
    cf_flow_free (back);
    g_free (ref);
    g_free (got);
  }
}

GST_END_TEST;

GST_START_TEST (test_flow_fill_and_view)
{
  cf_cuda_flow flow, view;
  cf_flow *host;
  int x, y;

  fail_unless_equals_int (cf_cuda_flow_alloc (&flow, 37, 21), CF_OK);
  fail_unless (flow.pitch >= 37);
  fail_unless_equals_int (cf_cuda_flow_fill (&flow, 1.5f, -2.0f, stream),
      CF_OK);
  view = cf_cuda_flow_view (&flow, 10, 7);
  fail_unless_equals_int (view.width, 10);
  fail_unless_equals_int (view.height, 7);
  fail_unless (view.u == flow.u && view.v == flow.v &&
      view.pitch == flow.pitch);
  fail_unless_equals_int (cf_cuda_flow_fill (&view, 3.0f, 4.0f, stream),
      CF_OK);
  host = cf_test_download_flow (&flow, stream);
  for (y = 0; y < 21; y++)
    for (x = 0; x < 37; x++) {
      int in = x < 10 && y < 7;
      fail_unless (host->u[x + (size_t) y * host->pitch] == (in ? 3.0f : 1.5f));
      fail_unless (host->v[x + (size_t) y * host->pitch] ==
          (in ? 4.0f : -2.0f));
    }
  cf_flow_free (host);
  cf_cuda_flow_release (&flow);
  fail_unless (flow.u == NULL);
  cf_cuda_flow_release (&flow);
  fail_unless_equals_int (cf_cuda_flow_alloc (&flow, 0, 5), CF_ERROR_INVALID);
}

GST_END_TEST;

static Suite *
cuda_pyramid_suite (void)
{
  Suite *s = suite_create ("cuda_pyramid");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_blur_matches_cpu);
  tcase_add_test (tc, test_blur_rejects_bad_arguments);
  tcase_add_test (tc, test_pyramid_matches_cpu);
  tcase_add_test (tc, test_pyramid_halving_equals_blur_then_sample);
  tcase_add_test (tc, test_pyramid_rebuild_with_new_sigma);
  tcase_add_test (tc, test_luma_from_channel_is_bit_exact);
  tcase_add_test (tc, test_luma_from_rgb_is_bit_exact);
  tcase_add_test (tc, test_luma_range_matches_cpu);
  tcase_add_test (tc, test_min_max_matches_cpu);
  tcase_add_test (tc, test_min_max_async_in_stream_order);
  tcase_add_test (tc, test_warp_matches_cpu);
  tcase_add_test (tc, test_flow_resample_matches_cpu);
  tcase_add_test (tc, test_flow_interleave_round_trip);
  tcase_add_test (tc, test_flow_fill_and_view);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_pyramid",
      cuda_pyramid_suite);
}
