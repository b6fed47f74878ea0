/* gst-cudaflow — tests for the separable, FFT and im2tensor methods
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every GPU result is compared with the CPU reference cf_convolve () on the
 * same random input, after the output was poisoned with NaN:
 * max |gpu - cpu| <= tol * max (1, max |cpu|) and no NaN left, with
 *  - tol = 1e-5 for separable: two fp32 passes of at most kw and kh terms
 *    each, against the reference's double sums; only summation order and
 *    the fp32 factors c, r of F differ from the exact result;
 *  - tol = 1e-4 for fft, the bar of the direct method: an fp32 FFT's
 *    rounding error is spread over every output sample in proportion to
 *    the whole signal's energy (about eps log2 (PW PH) of it), not to each
 *    sample's own sum, so it needs the looser bar.
 * im2tensor rounds every input sample and every tap to fp16; its bar is
 * per pixel, against sum |F| |in| over the pixel's taps
 * (cf_test_assert_im2tensor_close (), cf-test-util.h, which says why).
 * Both of its kernels run where the device has them (WMMA from compute
 * capability 7.0, MMA from 8.0, the latter in both row loops: MMA and
 * MMA_REGS), each compared with the CPU; the MMA kernel's indexing is also
 * tested without a GPU against its CPU emulation (im2tensor-emu.c). Also
 * checked: the median relative error on positive data (the metric of
 * Seznec et al. 2022, Table 5).
 * The FFT tests are skipped (with a note) where cuFFT cannot be loaded;
 * then plan_new must answer CF_ERROR_UNSUPPORTED. Exits 77 (skip) without
 * a CUDA device.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cf-test-util.h"
#include "common/convolve.h"
#include "common/kernel.h"
#include "cuda/convolve.h"
#include "cuda/convolve-fft.h"
#include "cuda/convolve-im2tensor.h"
#include "cuda/convolve-separable.h"
#include "cuda/cufft-loader.h"

#define SEPARABLE_TOLERANCE 1e-5
#define FFT_TOLERANCE 1e-4
/* median |gpu - cpu| / |cpu| on positive data; the paper's fp16-output
 * figure is 2e-4; with an fp32 output a CPU model of this method (fp16
 * roundings, fp32 sums) gives 9e-6 at K = 31 and 4e-6 at K = 63 */
#define IM2TENSOR_MEDIAN_TOLERANCE 1e-3

/* im2tensor's kernels: WMMA, and the MMA kernel's two row loops. */
#define IM2TENSOR_VARIANTS 3

static const cf_border all_borders[CF_BORDER_COUNT] = {
  CF_BORDER_ZERO, CF_BORDER_CLAMP, CF_BORDER_REFLECT, CF_BORDER_WRAP
};

static const cf_conv_mode all_modes[2] = { CF_CONVOLUTION, CF_CORRELATION };

typedef struct
{
  int w, h;
} size2d;

/* The image sizes of every accuracy sweep: a single pixel, an image
 * smaller than most kernels, and two larger ones (odd, not multiples of
 * any tile). */
static const size2d sweep_sizes[] = {
  {1, 1}, {7, 5}, {64, 48}, {257, 129}
};

/* Kernel sizes of the sweep; even ones check the anchor; 127 only runs on
 * the two larger images to keep the CPU reference short. */
static const size2d sweep_kernels[] = {
  {1, 1}, {3, 3}, {7, 7}, {4, 6}, {6, 4}, {31, 31}, {63, 63}, {127, 127}
};

/* One seed per case, so no two cases share their data. */
static guint32 next_seed = 1;

/* 1 when the FFT tests can run; else say why once per test. */
static int
fft_usable (void)
{
  if (cf_cuda_convolve_fft_available ())
    return 1;
  g_print ("cuFFT (%s) could not be loaded (%s): FFT accuracy tests "
      "skipped\n", CF_CUFFT_SONAME, cf_cufft_load_error ());
  return 0;
}

/* A random rank-1 kernel: K[j][i] = c[j] r[i], both in [-1, 1). */
static cf_kernel *
random_rank1_kernel (int kw, int kh, guint32 seed)
{
  cf_kernel *k = cf_kernel_new (kw, kh);
  cf_image *c = cf_image_new (kh, 1);
  cf_image *r = cf_image_new (kw, 1);
  int i, j;

  fail_unless (k != NULL && c != NULL && r != NULL);
  cf_test_fill_random (c, seed, -1.0f, 1.0f);
  cf_test_fill_random (r, seed * 7u + 3u, -1.0f, 1.0f);
  for (j = 0; j < kh; j++)
    for (i = 0; i < kw; i++)
      k->taps[i + (size_t) j * kw] = c->data[j] * r->data[i];
  cf_image_free (c);
  cf_image_free (r);
  return k;
}

/* Tolerance of a resolved method (file comment; im2tensor has its own bar,
 * cf_test_assert_im2tensor_close ()). */
static double
tolerance_of (cf_conv_method method)
{
  return method == CF_CONV_METHOD_FFT ? FFT_TOLERANCE : SEPARABLE_TOLERANCE;
}

/* The bar of a resolved method against the CPU result of src with k. */
static void
assert_method_close (cf_conv_method method, const cf_image * gpu,
    const cf_image * cpu, const cf_image * src, const cf_kernel * k,
    cf_border border, cf_conv_mode mode, const char *what)
{
  if (method == CF_CONV_METHOD_IM2TENSOR)
    cf_test_assert_im2tensor_close (gpu, cpu, src, k, border, mode, what);
  else
    cf_test_assert_image_close (gpu, cpu, tolerance_of (method), what);
}

/* The im2tensor kernels this device runs into @variants (returns how
 * many): WMMA, and MMA and MMA_REGS from compute capability 8.0 (a build
 * without an sm_80-or-newer image of them fails here rather than test
 * WMMA three times). */
static int
im2tensor_variants (cf_im2tensor_variant variants[IM2TENSOR_VARIANTS])
{
  float taps[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };
  cf_kernel k = { 3, 3, taps };
  cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
    CF_CONV_METHOD_IM2TENSOR, 0 };
  cf_cuda_convolve_plan *plan = NULL;
  int device, major = 0, n = 0;

  CUDA_OK (cudaGetDevice (&device));
  CUDA_OK (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          device));
  variants[n++] = CF_IM2TENSOR_VARIANT_WMMA;
  if (major >= 8) {
    fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (16, 16, &k,
            &params, CF_IM2TENSOR_VARIANT_MMA, &plan), CF_OK);
    cf_cuda_convolve_plan_free (plan);
    variants[n++] = CF_IM2TENSOR_VARIANT_MMA;
    fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (16, 16, &k,
            &params, CF_IM2TENSOR_VARIANT_MMA_REGS, &plan), CF_OK);
    cf_cuda_convolve_plan_free (plan);
    variants[n++] = CF_IM2TENSOR_VARIANT_MMA_REGS;
  }
  return n;
}

/* Whether @variant is one of the MMA kernel's loops. */
static gboolean
is_mma (cf_im2tensor_variant variant)
{
  return variant == CF_IM2TENSOR_VARIANT_MMA
      || variant == CF_IM2TENSOR_VARIANT_MMA_REGS;
}

/* "im2tensor (mma)", or the method's name for the others. */
static gchar *
method_label (cf_conv_method method, cf_im2tensor_variant variant)
{
  if (method == CF_CONV_METHOD_IM2TENSOR)
    return g_strdup_printf ("%s (%s)", cf_conv_method_name (method),
        cf_im2tensor_variant_name (variant));
  return g_strdup (cf_conv_method_name (method));
}

/* Run one new plan on src into a NaN-poisoned dst and download the result;
 * fail unless the plan resolved to `expect` and, for im2tensor, runs
 * @variant (any kernel for CF_IM2TENSOR_VARIANT_AUTO). */
static void
gpu_convolve (const cf_image * src, const cf_kernel * k,
    const cf_convolve_params * params, cf_im2tensor_variant variant,
    cf_conv_method expect, cf_image * out, cudaStream_t stream)
{
  cf_cuda_image dsrc, ddst;
  cf_cuda_convolve_plan *plan = NULL;

  fail_unless_equals_int (cf_cuda_image_alloc (&dsrc, src->width,
          src->height), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&ddst, src->width,
          src->height), CF_OK);
  fail_unless_equals_int (cf_cuda_image_upload (src, &dsrc, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_image_fill (&ddst, NAN, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (src->width,
          src->height, k, params, variant, &plan), CF_OK);
  fail_unless (plan != NULL);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan), expect);
  if (expect == CF_CONV_METHOD_IM2TENSOR
      && variant != CF_IM2TENSOR_VARIANT_AUTO)
    fail_unless_equals_int (cf_cuda_convolve_plan_im2tensor_variant (plan),
        variant);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dsrc.data,
          dsrc.pitch, ddst.data, ddst.pitch, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_image_download (&ddst, out, stream), CF_OK);
  CUDA_OK (cudaStreamSynchronize (stream));
  cf_cuda_convolve_plan_free (plan);
  cf_cuda_image_release (&dsrc);
  cf_cuda_image_release (&ddst);
}

/* One case: random w x h image, kernel k, GPU method vs CPU (@variant:
 * im2tensor's kernel, gpu_convolve ()). */
static void
check_kernel (int w, int h, const cf_kernel * k, cf_border border,
    cf_conv_mode mode, cf_conv_method method, cf_im2tensor_variant variant,
    cf_conv_method expect, cudaStream_t stream)
{
  cf_convolve_params params = { border, mode, method, 0 };
  cf_image *src = cf_test_random_image (w, h, next_seed++ * 2654435761u,
      0.0f, 1.0f);
  cf_image *cpu = cf_image_new (w, h);
  cf_image *gpu = cf_image_new (w, h);
  gchar *label = method_label (method, variant);
  gchar *what = g_strdup_printf ("%dx%d image, %dx%d kernel, %s, %s, %s",
      w, h, k->width, k->height, cf_border_name (border),
      mode == CF_CONVOLUTION ? "convolution" : "correlation", label);

  fail_unless (cpu != NULL && gpu != NULL);
  fail_unless_equals_int (cf_convolve (src, k, border, mode, cpu), CF_OK);
  gpu_convolve (src, k, &params, variant, expect, gpu, stream);
  assert_method_close (expect, gpu, cpu, src, k, border, mode, what);

  g_free (label);
  g_free (what);
  cf_image_free (src);
  cf_image_free (cpu);
  cf_image_free (gpu);
}

/* Every border and mode for one image size and kernel size: a rank-1
 * kernel for separable, a general one for fft and im2tensor. */
static void
check_all_borders_and_modes (int w, int h, int kw, int kh,
    cf_conv_method method, cf_im2tensor_variant variant, cudaStream_t stream)
{
  int b, m;

  for (b = 0; b < CF_BORDER_COUNT; b++)
    for (m = 0; m < 2; m++) {
      guint32 seed = next_seed++ * 40503u + 7u;
      cf_kernel *k = method == CF_CONV_METHOD_SEPARABLE
          ? random_rank1_kernel (kw, kh, seed)
          : cf_test_random_kernel (kw, kh, seed);

      check_kernel (w, h, k, all_borders[b], all_modes[m], method, variant,
          method, stream);
      cf_kernel_free (k);
    }
}

/* The sizes x kernels sweep for one method. */
static void
sweep (cf_conv_method method, cf_im2tensor_variant variant)
{
  cudaStream_t stream = cf_test_make_stream ();
  guint s, k;

  for (s = 0; s < G_N_ELEMENTS (sweep_sizes); s++)
    for (k = 0; k < G_N_ELEMENTS (sweep_kernels); k++) {
      if (sweep_kernels[k].w == 127 && sweep_sizes[s].w < 64)
        continue;
      check_all_borders_and_modes (sweep_sizes[s].w, sweep_sizes[s].h,
          sweep_kernels[k].w, sweep_kernels[k].h, method, variant, stream);
    }
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_START_TEST (test_separable_matches_cpu)
{
  sweep (CF_CONV_METHOD_SEPARABLE, CF_IM2TENSOR_VARIANT_AUTO);
}

GST_END_TEST;

GST_START_TEST (test_fft_matches_cpu)
{
  if (!fft_usable ())
    return;
  sweep (CF_CONV_METHOD_FFT, CF_IM2TENSOR_VARIANT_AUTO);
}

GST_END_TEST;

/* The sweep covers 1x1 and even kernels, kernels larger than the image,
 * one (K <= 16), two (31, 32 columns) and four (127) 32-column WMMA
 * passes, one to four k-steps (K <= 63) and two chunks (127) of the MMA
 * kernel, and images narrower than one 64-column block; each kernel of
 * im2tensor the device runs. */
GST_START_TEST (test_im2tensor_matches_cpu)
{
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  int v, n = im2tensor_variants (variants);

  for (v = 0; v < n; v++)
    sweep (CF_CONV_METHOD_IM2TENSOR, variants[v]);
}

GST_END_TEST;

/* Geometries the sweep misses: a last WMMA pass of 16 kernel columns
 * (kw 33, 47, 48), kernel rows not a multiple of 16 next to ones that
 * are, one-row and one-column kernels and images, K = 127 on 300 x 200,
 * an image wider than R_C blocks (C rows reused by blocks R_C apart), a
 * band of four 64-tap MMA chunks (200 x 3) and a tall MMA band
 * (3 x 200); each kernel of im2tensor the device runs. */
GST_START_TEST (test_im2tensor_uneven_geometries)
{
  static const struct
  {
    int w, h, kw, kh;
  } cases[] = {
    {300, 200, 127, 127}, {130, 37, 33, 17}, {200, 20, 47, 16},
    {129, 65, 48, 32}, {64, 64, 16, 1}, {64, 64, 1, 33}, {1, 300, 9, 9},
    {300, 1, 9, 9}, {40, 30, 200, 3}, {30, 40, 3, 200}, {700, 50, 65, 65},
  };
  cudaStream_t stream = cf_test_make_stream ();
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  int v, n = im2tensor_variants (variants);
  guint c;

  for (v = 0; v < n; v++)
    for (c = 0; c < G_N_ELEMENTS (cases); c++)
      check_all_borders_and_modes (cases[c].w, cases[c].h, cases[c].kw,
          cases[c].kh, CF_CONV_METHOD_IM2TENSOR, variants[v], stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* The MMA kernel's two warp widths: 64 columns where a grid of 128-wide
 * blocks would have no more blocks than the device has SMs (300 x 200: 3
 * x 4 blocks), 128 elsewhere (4200 x 260: 33 x 5 = 165, more than the SMs
 * of any device this runs on, else the check is skipped); each against
 * the CPU, in each MMA loop the device runs. */
GST_START_TEST (test_im2tensor_warp_widths)
{
  static const struct
  {
    int w, h, kw, kh, columns;
  } cases[] = {
    {300, 200, 31, 17, 64}, {4200, 260, 15, 9, 128},
  };
  cudaStream_t stream = cf_test_make_stream ();
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  int v, n = im2tensor_variants (variants), device, sms = 0;
  guint c;

  CUDA_OK (cudaGetDevice (&device));
  CUDA_OK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
          device));
  for (v = 0; v < n; v++) {
    if (!is_mma (variants[v]))
      continue;
    for (c = 0; c < G_N_ELEMENTS (cases); c++) {
      cf_kernel *k = cf_test_random_kernel (cases[c].kw, cases[c].kh, 7);
      cf_convolve_params params = { CF_BORDER_CLAMP, CF_CONVOLUTION,
        CF_CONV_METHOD_IM2TENSOR, 0 };
      cf_cuda_convolve_plan *plan = NULL;

      if (cases[c].columns == 128 && sms >= 165) {
        cf_kernel_free (k);
        continue;
      }
      fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (cases[c].w,
              cases[c].h, k, &params, variants[v], &plan), CF_OK);
      fail_unless_equals_int (cf_cuda_convolve_plan_im2tensor_warp_columns
          (plan), cases[c].columns);
      cf_cuda_convolve_plan_free (plan);
      cf_kernel_free (k);
      check_all_borders_and_modes (cases[c].w, cases[c].h, cases[c].kw,
          cases[c].kh, CF_CONV_METHOD_IM2TENSOR, variants[v], stream);
    }
  }
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* Both MMA loops refused for k on a 64 x 64 image, no plan left behind. */
static void
assert_mma_refused (const cf_kernel * k, const cf_convolve_params * params)
{
  static const cf_im2tensor_variant mma[] = {
    CF_IM2TENSOR_VARIANT_MMA, CF_IM2TENSOR_VARIANT_MMA_REGS
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (mma); i++) {
    cf_cuda_convolve_plan *plan = NULL;

    fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (64, 64, k,
            params, mma[i], &plan), CF_ERROR_UNSUPPORTED);
    fail_unless (plan == NULL);
  }
}

/* AUTO runs the MMA kernel (its staged loop) wherever the device runs it
 * and the band fits in shared memory (CF_IM2TENSOR_MMA_BAND_MAX), else
 * the WMMA kernel; each kernel and loop can be asked for, and asking for
 * MMA or MMA_REGS where it cannot run is refused. A 255 x 255 kernel has
 * two bands of 269 rows of 264 halves (284 KB). Plans of other methods
 * report no im2tensor kernel. */
GST_START_TEST (test_im2tensor_variant_choice)
{
  cf_kernel *small = cf_test_random_kernel (31, 31, 77);
  cf_kernel *large = cf_test_random_kernel (255, 255, 78);
  cf_convolve_params params = { CF_BORDER_CLAMP, CF_CONVOLUTION,
    CF_CONV_METHOD_IM2TENSOR, 0 };
  cf_cuda_convolve_plan *plan = NULL;
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  const gboolean mma = im2tensor_variants (variants) > 1;

  fail_unless_equals_int (cf_cuda_convolve_plan_new (64, 64, small, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_im2tensor_variant (plan),
      mma ? CF_IM2TENSOR_VARIANT_MMA : CF_IM2TENSOR_VARIANT_WMMA);
  cf_cuda_convolve_plan_free (plan);
  fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (64, 64, small,
          &params, CF_IM2TENSOR_VARIANT_WMMA, &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_im2tensor_variant (plan),
      CF_IM2TENSOR_VARIANT_WMMA);
  cf_cuda_convolve_plan_free (plan);
  if (mma) {
    fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (64, 64, small,
            &params, CF_IM2TENSOR_VARIANT_MMA_REGS, &plan), CF_OK);
    fail_unless_equals_int (cf_cuda_convolve_plan_im2tensor_variant (plan),
        CF_IM2TENSOR_VARIANT_MMA_REGS);
    cf_cuda_convolve_plan_free (plan);
  } else {
    assert_mma_refused (small, &params);
  }

  fail_unless_equals_int (cf_cuda_convolve_plan_new (64, 64, large, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_im2tensor_variant (plan),
      CF_IM2TENSOR_VARIANT_WMMA);
  cf_cuda_convolve_plan_free (plan);
  assert_mma_refused (large, &params);

  params.method = CF_CONV_METHOD_DIRECT;
  fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (64, 64, small,
          &params, CF_IM2TENSOR_VARIANT_MMA, &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_im2tensor_variant (plan),
      CF_IM2TENSOR_VARIANT_AUTO);
  cf_cuda_convolve_plan_free (plan);
  cf_kernel_free (small);
  cf_kernel_free (large);
}

GST_END_TEST;

/* Large frames: many blocks, 64-bit offsets into the padded image and C. */
GST_START_TEST (test_im2tensor_large_images)
{
  cudaStream_t stream = cf_test_make_stream ();
  cf_kernel *k3 = cf_test_random_kernel (3, 3, 8192);
  cf_kernel *k31 = cf_test_random_kernel (31, 31, 2000);
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  int v, n = im2tensor_variants (variants);

  for (v = 0; v < n; v++) {
    check_kernel (8192, 8192, k3, CF_BORDER_REFLECT, CF_CORRELATION,
        CF_CONV_METHOD_IM2TENSOR, variants[v], CF_CONV_METHOD_IM2TENSOR,
        stream);
    check_kernel (2000, 1000, k31, CF_BORDER_CLAMP, CF_CONVOLUTION,
        CF_CONV_METHOD_IM2TENSOR, variants[v], CF_CONV_METHOD_IM2TENSOR,
        stream);
  }
  cf_kernel_free (k3);
  cf_kernel_free (k31);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

static int
compare_doubles (const void *a, const void *b)
{
  const double da = *(const double *) a, db = *(const double *) b;

  return da < db ? -1 : (da > db ? 1 : 0);
}

/* Median of |gpu - cpu| / |cpu| over the pixels with cpu != 0 (Seznec et
 * al. 2022, eq. 20, as a fraction, not in percent). */
static double
median_relative_error (const cf_image * gpu, const cf_image * cpu)
{
  double *rel = g_new (double, (gsize) cpu->width * cpu->height);
  double median;
  int x, y, n = 0;

  for (y = 0; y < cpu->height; y++)
    for (x = 0; x < cpu->width; x++) {
      const double c = cf_image_row (cpu, y)[x];

      if (c != 0.0)
        rel[n++] = fabs (cf_image_row (gpu, y)[x] - c) / fabs (c);
    }
  fail_unless (n > 0);
  qsort (rel, n, sizeof (double), compare_doubles);
  median = rel[n / 2];
  g_free (rel);
  return median;
}

/* The accuracy protocol of Seznec et al. 2022 (§4.1): image and kernel in
 * [0, 1), median relative error; its fp16 im2tensor scores 2e-4 with an
 * fp16 output, ours has an fp32 output. */
GST_START_TEST (test_im2tensor_median_relative_error)
{
  static const int sizes[] = { 31, 63 };
  cudaStream_t stream = cf_test_make_stream ();
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  int n = im2tensor_variants (variants);
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes) * n; s++) {
    const int w = 257, h = 129, kn = sizes[s / n];
    const cf_im2tensor_variant variant = variants[s % n];
    cf_convolve_params params = { CF_BORDER_REFLECT, CF_CORRELATION,
      CF_CONV_METHOD_IM2TENSOR, 0 };
    cf_kernel *k = cf_kernel_new (kn, kn);
    cf_image *src = cf_test_random_image (w, h, 9000 + kn, 0.0f, 1.0f);
    cf_image *cpu = cf_image_new (w, h);
    cf_image *gpu = cf_image_new (w, h);
    cf_image view;
    double median;

    fail_unless (k != NULL && cpu != NULL && gpu != NULL);
    view = cf_image_view (k->taps, kn, kn, (size_t) kn);
    cf_test_fill_random (&view, 9100 + kn, 0.0f, 1.0f);
    fail_unless_equals_int (cf_convolve (src, k, params.border, params.mode,
            cpu), CF_OK);
    gpu_convolve (src, k, &params, variant, CF_CONV_METHOD_IM2TENSOR, gpu,
        stream);
    median = median_relative_error (gpu, cpu);
    g_print ("im2tensor (%s) %dx%d, %dx%d kernel in [0, 1): median relative "
        "error %.3g\n", cf_im2tensor_variant_name (variant), w, h, kn, kn,
        median);
    fail_unless (median <= IM2TENSOR_MEDIAN_TOLERANCE,
        "%dx%d kernel, %s: median relative error %g", kn, kn,
        cf_im2tensor_variant_name (variant), median);
    cf_test_assert_im2tensor_close (gpu, cpu, src, k, params.border,
        params.mode, "median test");
    cf_kernel_free (k);
    cf_image_free (src);
    cf_image_free (cpu);
    cf_image_free (gpu);
  }
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* The accuracy table of docs/convolution.md in small (the paper's
 * protocol: image and taps in [0, 1), relative error against float64;
 * tools/gst-cudaflow-conv-accuracy prints the full table). Bounds, from the
 * arithmetic: an fp32 sum of n = K^2 positive products has a typical
 * relative error of a few eps sqrt (n) (eps = 6e-8: 1e-5 at K = 127); the
 * FFT's error is relative to the signal's norm, not to each output; fp16
 * inputs round each product by up to 2^-11 but the errors average out in
 * the fp32 sums (the paper: 2e-4 median with an fp16 output). */
GST_START_TEST (test_accuracy_against_float64)
{
  static const int ks[] = { 3, 7, 15, 31, 63, 127 };
  static const struct
  {
    cf_conv_method method;
    cf_im2tensor_variant variant;
    gboolean rank1;
    double median_max, max_max;
  } runs[] = {
    {CF_CONV_METHOD_DIRECT, CF_IM2TENSOR_VARIANT_AUTO, FALSE, 2e-5, 2e-4},
    {CF_CONV_METHOD_FFT, CF_IM2TENSOR_VARIANT_AUTO, FALSE, 2e-5, 1e-3},
    {CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_WMMA, FALSE, 1e-3, 1e-2},
    {CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_MMA, FALSE, 1e-3, 1e-2},
    {CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_MMA_REGS, FALSE, 1e-3,
        1e-2},
    {CF_CONV_METHOD_SEPARABLE, CF_IM2TENSOR_VARIANT_AUTO, TRUE, 2e-5, 2e-4},
  };
  const int w = 160, h = 96;
  cudaStream_t stream = cf_test_make_stream ();
  cf_image *src = cf_test_random_image (w, h, 4242, 0.0f, 1.0f);
  cf_image *gpu = cf_image_new (w, h);
  double *ref = g_new (double, (gsize) w * h);
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  const gboolean mma = im2tensor_variants (variants) > 1;
  guint ki, r;

  fail_unless (gpu != NULL);
  for (ki = 0; ki < G_N_ELEMENTS (ks); ki++) {
    for (r = 0; r < G_N_ELEMENTS (runs); r++) {
      const int k = ks[ki];
      cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
        runs[r].method, 0 };
      cf_kernel *kern = cf_kernel_new (k, k);
      cf_relative_error_stats st;
      gchar *label;
      int i, j;

      if ((runs[r].method == CF_CONV_METHOD_FFT && !fft_usable ())
          || (is_mma (runs[r].variant) && !mma))
        continue;
      fail_unless (kern != NULL);
      if (runs[r].rank1) {
        float c[127];
        cf_image col = cf_image_view (c, k, 1, (size_t) k);

        /* F = c c^T */
        cf_test_fill_random (&col, 4300 + k, 0.0f, 1.0f);
        for (j = 0; j < k; j++)
          for (i = 0; i < k; i++)
            kern->taps[i + j * k] = c[j] * c[i];
      } else {
        cf_image view = cf_image_view (kern->taps, k, k, (size_t) k);

        cf_test_fill_random (&view, 4400 + k, 0.0f, 1.0f);
      }
      fail_unless_equals_int (cf_convolve_f64 (src, kern, params.border,
              params.mode, ref, (size_t) w), CF_OK);
      gpu_convolve (src, kern, &params, runs[r].variant, runs[r].method, gpu,
          stream);
      fail_unless_equals_int (cf_relative_error (gpu, ref, (size_t) w, &st),
          CF_OK);
      label = method_label (runs[r].method, runs[r].variant);
      g_print ("%-16s K=%3d: median %.2e max %.2e relative to float64\n",
          label, k, st.median, st.max);
      fail_unless (st.median <= runs[r].median_max && st.max <=
          runs[r].max_max, "%s K=%d: median %g (bound %g), max %g (bound %g)",
          label, k, st.median, runs[r].median_max, st.max, runs[r].max_max);
      g_free (label);
      cf_kernel_free (kern);
    }
  }
  g_free (ref);
  cf_image_free (src);
  cf_image_free (gpu);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* Samples of 16-bit video (0 .. 65535, above fp16's 65504) stay finite:
 * the input is halved before rounding (CF_IM2TENSOR_INPUT_SCALE). A box
 * kernel of 1 / 49 (taps far from 1) is scaled by a power of two. */
GST_START_TEST (test_im2tensor_16bit_range)
{
  const int w = 90, h = 70;
  cudaStream_t stream = cf_test_make_stream ();
  cf_kernel *k = cf_kernel_new (7, 7);
  cf_convolve_params params = { CF_BORDER_CLAMP, CF_CONVOLUTION,
    CF_CONV_METHOD_IM2TENSOR, 0 };
  cf_image *src = cf_image_new (w, h);
  cf_image *cpu = cf_image_new (w, h);
  cf_image *gpu = cf_image_new (w, h);
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  int i, v, n = im2tensor_variants (variants);

  fail_unless (k != NULL && src != NULL && cpu != NULL && gpu != NULL);
  for (i = 0; i < 49; i++)
    k->taps[i] = 1.0f / 49.0f;
  cf_test_fill_random (src, 65535, 0.0f, 65535.0f);
  cf_image_row (src, 10)[10] = 65535.0f;
  fail_unless_equals_int (cf_convolve (src, k, params.border, params.mode,
          cpu), CF_OK);
  for (v = 0; v < n; v++) {
    gpu_convolve (src, k, &params, variants[v], CF_CONV_METHOD_IM2TENSOR, gpu,
        stream);
    cf_test_assert_im2tensor_close (gpu, cpu, src, k, params.border,
        params.mode, cf_im2tensor_variant_name (variants[v]));
  }
  cf_kernel_free (k);
  cf_image_free (src);
  cf_image_free (cpu);
  cf_image_free (gpu);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* Brute force over block geometries: blocks of h_b kernel columns by w_b
 * image columns writing the diagonals l = c - x of their tile into C row
 * (bi + bj) mod R_C never share a (row, l) cell with
 * R_C = cf_im2tensor_c_rows (); the paper's min () form of eq. 19 does
 * (the safe form of the paper's eq. 19). CPU only. */
static int
c_rows_collide (int kw_hat, int h_b, int iw_hat, int w_b, int rows)
{
  const int nbi = kw_hat / h_b, nbj = iw_hat / w_b;
  const int n_diag = iw_hat + kw_hat - 1;
  int *owner = g_new (int, (gsize) rows * n_diag);
  int bi, bj, x, c, i, collide = 0;

  for (i = 0; i < rows * n_diag; i++)
    owner[i] = -1;
  for (bi = 0; bi < nbi && !collide; bi++)
    for (bj = 0; bj < nbj && !collide; bj++) {
      const int r = (bi + bj) % rows, block = bi * nbj + bj;

      for (x = bi * h_b; x < (bi + 1) * h_b && !collide; x++)
        for (c = bj * w_b; c < (bj + 1) * w_b; c++) {
          int *cell = &owner[r * n_diag + (c - x + kw_hat - 1)];

          if (*cell >= 0 && *cell != block) {
            collide = 1;
            break;
          }
          *cell = block;
        }
    }
  g_free (owner);
  return collide;
}

GST_START_TEST (test_im2tensor_c_rows_bound_is_collision_free)
{
  int kw_hat, h_b, iw_hat, w_b, paper_rows;

  /* a counter-example to the paper's bound: kw_hat 24, image 64, (8, 32)
   * blocks */
  fail_unless_equals_int (cf_im2tensor_c_rows (24, 8, 32), 4);
  paper_rows = (23 + 31) / 32 + MIN (24 / 8, 64 / 32);
  fail_unless_equals_int (paper_rows, 3);
  fail_unless (c_rows_collide (24, 8, 64, 32, paper_rows));
  fail_unless (!c_rows_collide (24, 8, 64, 32, 4));
  /* the paper's Fig. 5/6 example (h_M 3, w_M 5, h_A 6, w_A 15): 3 rows */
  fail_unless_equals_int (cf_im2tensor_c_rows (6, 3, 5), 3);
  /* the fused kernel's own geometry: h_b = kw_hat, w_b = 64 */
  fail_unless_equals_int (cf_im2tensor_c_rows (32, 32, 64), 2);
  fail_unless_equals_int (cf_im2tensor_c_rows (128, 128, 64), 3);
  fail_unless_equals_int (cf_im2tensor_c_rows (1024, 1024, 64), 17);

  for (w_b = 8; w_b <= 64; w_b *= 2)
    for (h_b = 8; h_b <= 32; h_b += 8)
      for (kw_hat = h_b; kw_hat <= 4 * h_b; kw_hat += h_b)
        for (iw_hat = w_b; iw_hat <= 6 * w_b; iw_hat += w_b)
          fail_unless (!c_rows_collide (kw_hat, h_b, iw_hat, w_b,
                  cf_im2tensor_c_rows (kw_hat, h_b, w_b)),
              "kw_hat %d, h_b %d, image %d, w_b %d", kw_hat, h_b, iw_hat,
              w_b);
}

GST_END_TEST;

/* Row and column kernels (one side 1), kernels longer than the separable
 * passes' chunks (128 row taps, 64 column taps) and the largest size. */
GST_START_TEST (test_separable_long_and_one_sided_kernels)
{
  cudaStream_t stream = cf_test_make_stream ();

  check_all_borders_and_modes (64, 48, 9, 1, CF_CONV_METHOD_SEPARABLE,
      CF_IM2TENSOR_VARIANT_AUTO, stream);
  check_all_borders_and_modes (64, 48, 1, 9, CF_CONV_METHOD_SEPARABLE,
      CF_IM2TENSOR_VARIANT_AUTO, stream);
  check_all_borders_and_modes (300, 7, 257, 1, CF_CONV_METHOD_SEPARABLE,
      CF_IM2TENSOR_VARIANT_AUTO, stream);
  check_all_borders_and_modes (5, 200, 1, 130, CF_CONV_METHOD_SEPARABLE,
      CF_IM2TENSOR_VARIANT_AUTO, stream);
  check_all_borders_and_modes (40, 30, CF_KERNEL_MAX_SIZE, 3,
      CF_CONV_METHOD_SEPARABLE, CF_IM2TENSOR_VARIANT_AUTO, stream);
  check_all_borders_and_modes (30, 40, 3, CF_KERNEL_MAX_SIZE,
      CF_CONV_METHOD_SEPARABLE, CF_IM2TENSOR_VARIANT_AUTO, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* Kernels larger than the image, in one axis or both, odd and even. */
GST_START_TEST (test_kernel_larger_than_image)
{
  static const struct
  {
    cf_conv_method method;
    cf_im2tensor_variant variant;
  } methods[] = {
    {CF_CONV_METHOD_SEPARABLE, CF_IM2TENSOR_VARIANT_AUTO},
    {CF_CONV_METHOD_FFT, CF_IM2TENSOR_VARIANT_AUTO},
    {CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_WMMA},
    {CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_MMA},
    {CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_MMA_REGS},
  };
  cudaStream_t stream = cf_test_make_stream ();
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  const gboolean mma = im2tensor_variants (variants) > 1;
  guint m;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    const cf_conv_method method = methods[m].method;
    const cf_im2tensor_variant variant = methods[m].variant;

    if ((method == CF_CONV_METHOD_FFT && !fft_usable ())
        || (is_mma (variant) && !mma))
      continue;
    check_all_borders_and_modes (7, 5, 15, 15, method, variant, stream);
    check_all_borders_and_modes (3, 2, 8, 6, method, variant, stream);
    check_all_borders_and_modes (2, 9, 21, 3, method, variant, stream);
    check_all_borders_and_modes (1, 1, 4, 4, method, variant, stream);
  }
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* FFT at a size whose padded extent is not 5-smooth: reflect needs 2000 +
 * 30 = 2030 = 2 5 7 29 columns (padded to 2048) and 1000 + 30 = 1030 rows
 * (1080); zero needs 2015 (2048) and 1015 (1024). */
GST_START_TEST (test_fft_non_smooth_extent)
{
  cudaStream_t stream = cf_test_make_stream ();
  cf_kernel *k;

  if (!fft_usable ())
    return;
  k = cf_test_random_kernel (31, 31, 2024);
  check_kernel (2000, 1000, k, CF_BORDER_REFLECT, CF_CONVOLUTION,
      CF_CONV_METHOD_FFT, CF_IM2TENSOR_VARIANT_AUTO, CF_CONV_METHOD_FFT,
      stream);
  check_kernel (2000, 1000, k, CF_BORDER_ZERO, CF_CORRELATION,
      CF_CONV_METHOD_FFT, CF_IM2TENSOR_VARIANT_AUTO, CF_CONV_METHOD_FFT,
      stream);
  cf_kernel_free (k);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_fft_fast_sizes)
{
  fail_unless_equals_int (cf_fft_fast_size (0), 1);
  fail_unless_equals_int (cf_fft_fast_size (1), 1);
  fail_unless_equals_int (cf_fft_fast_size (11), 12);
  fail_unless_equals_int (cf_fft_fast_size (13), 15);
  fail_unless_equals_int (cf_fft_fast_size (97), 100);
  /* no factor 7 (convolve-fft.cu): not 4116 or 4200 */
  fail_unless_equals_int (cf_fft_fast_size (4096 + 15), 4320);
  fail_unless_equals_int (cf_fft_fast_size (4096 + 30), 4320);
  fail_unless_equals_int (cf_fft_fast_size (4096), 4096);
  fail_unless_equals_int (cf_fft_fast_size (1030), 1080);
}

GST_END_TEST;

/* The circular length the FFT method pads each axis to before rounding
 * up to a fast size: the full extent n + k - 1 except under the zero rule,
 * whose padding may wrap onto itself (convolve-fft.cu). */
GST_START_TEST (test_fft_padded_length)
{
  static const struct
  {
    int n, k, anchor, zero;     /* zero: the length under the zero rule */
  } cases[] = {
    {4096, 127, 63, 4159},      /* centred: the longer padding side */
    {1080, 127, 63, 1143},
    {4096, 128, 64, 4160},      /* even kernel: anchor 64 leaves 63 after */
    {4096, 127, 0, 4222},       /* off-centre anchors: the long side */
    {4096, 127, 126, 4222},
    {1, 127, 63, 127},          /* never shorter than the kernel, so no */
    {7, 31, 15, 31},            /* two taps of G collide */
    {1, 1, 0, 1},
  };
  guint c;
  int b;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    fail_unless_equals_int (cf_fft_padded_length (cases[c].n, cases[c].k,
            cases[c].anchor, CF_BORDER_ZERO), cases[c].zero);
    for (b = 1; b < CF_BORDER_COUNT; b++)
      fail_unless_equals_int (cf_fft_padded_length (cases[c].n, cases[c].k,
              cases[c].anchor, all_borders[b]), cases[c].n + cases[c].k - 1);
  }
  /* 1080 rows, K = 127: 1152 rows instead of 1215 */
  fail_unless_equals_int (cf_fft_fast_size (cf_fft_padded_length (1080, 127,
              63, CF_BORDER_ZERO)), 1152);
  fail_unless_equals_int (cf_fft_fast_size (1080 + 126), 1215);
}

GST_END_TEST;

/* One FFT plan, two runs queued back to back on one stream with other
 * buffers and pitches: each run reads and writes its own, and the zero
 * rule's shortened padding (203 + 7 columns, not 203 + 14) holds. */
GST_START_TEST (test_fft_runs_follow_their_buffers)
{
  const int w = 203, h = 97;
  const int pitch[2] = { w, w + 9 };
  cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
    CF_CONV_METHOD_FFT, 0
  };
  cudaStream_t stream;
  cf_cuda_convolve_plan *plan = NULL;
  cf_kernel *k;
  cf_image *src[2], *cpu[2], *got[2];
  float *dsrc[2], *ddst[2];
  int r;

  if (!fft_usable ())
    return;
  stream = cf_test_make_stream ();
  k = cf_test_random_kernel (15, 11, 4242);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, k, &params,
          &plan), CF_OK);
  for (r = 0; r < 2; r++) {
    const size_t bytes = (size_t) pitch[r] * h * sizeof (float);

    src[r] = cf_test_random_image (w, h, 900 + r, 0.0f, 1.0f);
    cpu[r] = cf_image_new (w, h);
    got[r] = cf_image_new (pitch[r], h);
    fail_unless (cpu[r] != NULL && got[r] != NULL);
    fail_unless_equals_int (cf_convolve (src[r], k, params.border,
            params.mode, cpu[r]), CF_OK);
    CUDA_OK (cudaMalloc ((void **) &dsrc[r], bytes));
    CUDA_OK (cudaMalloc ((void **) &ddst[r], bytes));
    CUDA_OK (cudaMemcpy2D (dsrc[r], pitch[r] * sizeof (float),
            src[r]->data, src[r]->pitch * sizeof (float),
            w * sizeof (float), h, cudaMemcpyHostToDevice));
    CUDA_OK (cudaMemset (ddst[r], 0xff, bytes));        /* NaN */
  }
  for (r = 0; r < 2; r++)
    fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dsrc[r],
            pitch[r], ddst[r], pitch[r], stream), CF_OK);
  CUDA_OK (cudaStreamSynchronize (stream));
  for (r = 0; r < 2; r++) {
    gchar *what = g_strdup_printf ("run %d of one FFT plan", r);
    cf_image view;

    CUDA_OK (cudaMemcpy (got[r]->data, ddst[r],
            (size_t) pitch[r] * h * sizeof (float), cudaMemcpyDeviceToHost));
    view = cf_image_view (got[r]->data, w, h, pitch[r]);
    assert_method_close (CF_CONV_METHOD_FFT, &view, cpu[r], src[r], k,
        params.border, params.mode, what);
    g_free (what);
    CUDA_OK (cudaFree (dsrc[r]));
    CUDA_OK (cudaFree (ddst[r]));
    cf_image_free (src[r]);
    cf_image_free (cpu[r]);
    cf_image_free (got[r]);
  }
  cf_cuda_convolve_plan_free (plan);
  cf_kernel_free (k);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* Transform sizes: the shortest fast sizes on small images; on large ones
 * a choice among the 5-smooth lengths up to 12.5 % longer, or a batch of
 * overlap-save tiles, timed once per geometry and process
 * (convolve-fft.cu), so two plans of one geometry agree. */
GST_START_TEST (test_fft_tuned_sizes)
{
  static const struct
  {
    int w, h, k;
    cf_border border;
  } cases[] = {
    {64, 48, 7, CF_BORDER_ZERO}, {2000, 1000, 31, CF_BORDER_ZERO},
    {1920, 1080, 127, CF_BORDER_REFLECT},
    /* other lengths (2044 x 1204 against 2046 x 1206), the same shortest
     * sizes (2048 x 1215), one transform of the whole image (tiles hold
     * about 1.5 times its points here): the case before's sizes, found in
     * the cache */
    {1920, 1080, 125, CF_BORDER_REFLECT}, {4096, 4096, 127, CF_BORDER_ZERO},
    /* other lengths (4159 against 4222), the same shortest sizes (4320):
     * the choice of the case before, found in the cache when neither
     * runs tiles */
    {4096, 4096, 63, CF_BORDER_ZERO},
  };
  int prev_pw0 = 0, prev_ph0 = 0, prev_pw = 0, prev_ph = 0, prev_tiled = 0;
  guint c;

  if (!fft_usable ())
    return;
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const int k = cases[c].k, w = cases[c].w, h = cases[c].h;
    const int lw = cf_fft_padded_length (w, k, k / 2, cases[c].border);
    const int lh = cf_fft_padded_length (h, k, k / 2, cases[c].border);
    const int pw0 = 2 * cf_fft_fast_size ((lw + 1) / 2);
    const int ph0 = cf_fft_fast_size (lh);
    cf_kernel *kernel = cf_test_random_kernel (k, k, 31 + c);
    cf_convolve_params params = { cases[c].border, CF_CORRELATION,
      CF_CONV_METHOD_FFT, 0
    };
    cf_cuda_convolve_plan *plan = NULL, *again = NULL;
    int pw, ph, pw2, ph2, tx, ty, tx2, ty2, tiled;
    gint64 t0, t1, t2;

    t0 = g_get_monotonic_time ();
    fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, kernel,
            &params, &plan), CF_OK);
    t1 = g_get_monotonic_time ();
    fail_unless (cf_cuda_convolve_plan_fft_sizes (plan, &pw, &ph));
    fail_unless (cf_cuda_convolve_plan_fft_tiles (plan, &tx, &ty));
    tiled = tx * ty > 1;
    if ((long) pw0 * ph0 < (1L << 20)) {
      fail_unless (!tiled);
      fail_unless_equals_int (pw, pw0);
      fail_unless_equals_int (ph, ph0);
    }
    if (tiled) {
      /* square tiles of a tried size, at least twice the kernel, whose
       * steps cover the image once, at most 1.5 times the points of the
       * longest whole-image candidates */
      fail_unless (pw == ph && (pw == 256 || pw == 512 || pw == 1024
              || pw == 2048)
          && pw >= 2 * k, "tile %dx%d", pw, ph);
      fail_unless (tx * (pw - k + 1) >= w && (tx - 1) * (pw - k + 1) < w
          && ty * (ph - k + 1) >= h && (ty - 1) * (ph - k + 1) < h,
          "%dx%d tiles of %d", tx, ty, pw);
      fail_unless ((double) tx * ty * pw * ph <= 1.5 * 1.125 * 1.125 * pw0
          * ph0);
    } else {
      fail_unless (tx == 1 && ty == 1);
      fail_unless (pw >= pw0 && pw <= pw0 * 1.125 && pw % 2 == 0
          && cf_fft_fast_size (pw) == pw, "columns %d", pw);
      fail_unless (ph >= ph0 && ph <= ph0 * 1.125
          && cf_fft_fast_size (ph) == ph, "rows %d", ph);
    }
    fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, kernel,
            &params, &again), CF_OK);
    t2 = g_get_monotonic_time ();
    /* the second plan of a geometry finds the sizes in the cache: the
     * difference is what the timing costs at plan creation */
    g_print ("%dx%d, K = %d, %s: %dx%d tiles of %dx%d transforms (shortest "
        "whole %dx%d); plan %.1f ms, again %.1f ms\n", w, h, k,
        cf_border_name (cases[c].border), tx, ty, pw, ph, pw0, ph0,
        (t1 - t0) / 1e3, (t2 - t1) / 1e3);
    fail_unless (cf_cuda_convolve_plan_fft_sizes (again, &pw2, &ph2));
    fail_unless (cf_cuda_convolve_plan_fft_tiles (again, &tx2, &ty2));
    fail_unless_equals_int (pw2, pw);
    fail_unless_equals_int (ph2, ph);
    fail_unless_equals_int (tx2, tx);
    fail_unless_equals_int (ty2, ty);
    /* whole-image sizes are shared by every geometry with the same
     * shortest sizes */
    if (pw0 == prev_pw0 && ph0 == prev_ph0 && !tiled && !prev_tiled) {
      fail_unless_equals_int (pw, prev_pw);
      fail_unless_equals_int (ph, prev_ph);
    }
    prev_pw0 = pw0;
    prev_ph0 = ph0;
    prev_pw = pw;
    prev_ph = ph;
    prev_tiled = tiled;
    cf_cuda_convolve_plan_free (plan);
    cf_cuda_convolve_plan_free (again);
    cf_kernel_free (kernel);
  }
}

GST_END_TEST;

/* Overlap-save tiles forced small on small images (the automatic choice
 * tiles only large ones): every border and mode against the CPU, tiles
 * that split the image unevenly, one tile larger than the image, even
 * kernels, a 1 x 1 kernel, and the arguments refused. */
GST_START_TEST (test_fft_tiles_match_cpu)
{
  static const struct
  {
    int w, h, kw, kh, tile_w, tile_h, tiles_x, tiles_y;
  } cases[] = {
    {200, 130, 15, 9, 40, 32, 8, 6}, {97, 61, 7, 7, 16, 16, 10, 7},
    {300, 200, 31, 31, 64, 48, 9, 12}, {120, 90, 8, 6, 32, 24, 5, 5},
    {50, 40, 5, 5, 64, 64, 1, 1}, {64, 33, 1, 1, 8, 10, 8, 4},
    {70, 50, 40, 3, 48, 8, 8, 9},
  };
  cudaStream_t stream = cf_test_make_stream ();
  cf_cuda_convolve_fft *fft = NULL;
  float taps[9] = { 0 };
  guint c;
  int b, m;

  if (!fft_usable ())
    return;
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const int w = cases[c].w, h = cases[c].h, kw = cases[c].kw,
        kh = cases[c].kh;

    for (b = 0; b < CF_BORDER_COUNT; b++)
      for (m = 0; m < 2; m++) {
        cf_kernel *k = cf_test_random_kernel (kw, kh, next_seed++ * 40503u);
        cf_image *src = cf_test_random_image (w, h, next_seed++ * 2654435761u,
            0.0f, 1.0f);
        cf_image *cpu = cf_image_new (w, h), *gpu = cf_image_new (w, h);
        float *f = g_new (float, kw * kh), *dtaps = NULL;
        cf_cuda_image dsrc, ddst;
        int ax, ay, tx, ty;
        gchar *what = g_strdup_printf ("%dx%d image, %dx%d kernel, %s, %s, "
            "fft in %dx%d tiles", w, h, kw, kh, cf_border_name (all_borders[b]),
            m == 0 ? "convolution" : "correlation", cases[c].tile_w,
            cases[c].tile_h);

        fail_unless_equals_int (cf_convolve (src, k, all_borders[b],
                all_modes[m], cpu), CF_OK);
        cf_cuda_convolve_correlation_taps (k, all_modes[m], f, &ax, &ay);
        CUDA_OK (cudaMalloc ((void **) &dtaps, kw * kh * sizeof (float)));
        CUDA_OK (cudaMemcpy (dtaps, f, kw * kh * sizeof (float),
                cudaMemcpyHostToDevice));
        fail_unless_equals_int (cf_cuda_convolve_fft_new_tiled (w, h, dtaps,
                kw, kh, ax, ay, all_borders[b], cases[c].tile_w,
                cases[c].tile_h, &fft), CF_OK);
        cf_cuda_convolve_fft_tiles (fft, &tx, &ty);
        fail_unless (tx == cases[c].tiles_x && ty == cases[c].tiles_y,
            "%s: %dx%d tiles", what, tx, ty);
        fail_unless_equals_int (cf_cuda_image_alloc (&dsrc, w, h), CF_OK);
        fail_unless_equals_int (cf_cuda_image_alloc (&ddst, w, h), CF_OK);
        fail_unless_equals_int (cf_cuda_image_upload (src, &dsrc, stream),
            CF_OK);
        fail_unless_equals_int (cf_cuda_image_fill (&ddst, NAN, stream),
            CF_OK);
        fail_unless_equals_int (cf_cuda_convolve_fft_run (fft, dsrc.data,
                dsrc.pitch, ddst.data, ddst.pitch, stream), CF_OK);
        fail_unless_equals_int (cf_cuda_image_download (&ddst, gpu, stream),
            CF_OK);
        CUDA_OK (cudaStreamSynchronize (stream));
        cf_test_assert_image_close (gpu, cpu, FFT_TOLERANCE, what);

        cf_cuda_convolve_fft_free (fft);
        cf_cuda_image_release (&dsrc);
        cf_cuda_image_release (&ddst);
        CUDA_OK (cudaFree (dtaps));
        g_free (f);
        g_free (what);
        cf_kernel_free (k);
        cf_image_free (src);
        cf_image_free (cpu);
        cf_image_free (gpu);
      }
  }

  /* a tile smaller than the kernel, one size given without the other,
   * negative sizes */
  fail_unless_equals_int (cf_cuda_convolve_fft_new_tiled (64, 64, taps, 3,
          3, 1, 1, CF_BORDER_ZERO, 2, 16, &fft), CF_ERROR_INVALID);
  fail_unless (fft == NULL);
  fail_unless_equals_int (cf_cuda_convolve_fft_new_tiled (64, 64, taps, 3,
          3, 1, 1, CF_BORDER_ZERO, 16, 0, &fft), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_fft_new_tiled (64, 64, taps, 3,
          3, 1, 1, CF_BORDER_ZERO, 0, 16, &fft), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_fft_new_tiled (64, 64, taps, 3,
          3, 1, 1, CF_BORDER_ZERO, -16, -16, &fft), CF_ERROR_INVALID);
  fail_unless (fft == NULL);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_rank1_factorisation)
{
  float col[3], row[3];
  float rank1[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  float rank2[4] = { 1, 0, 0, 1 };
  float laplace[9] = { 0, 1, 0, 1, -4, 1, 0, 1, 0 };
  float zero[6] = { 0, 0, 0, 0, 0, 0 };
  float near[9];
  int i, j;

  fail_unless (cf_convolve_rank1 (rank1, 3, 3, col, row));
  for (j = 0; j < 3; j++)
    for (i = 0; i < 3; i++)
      fail_unless (fabsf (col[j] * row[i] - rank1[i + 3 * j]) <= 1e-6f);
  fail_unless (!cf_convolve_rank1 (rank2, 2, 2, NULL, NULL));
  fail_unless (!cf_convolve_rank1 (laplace, 3, 3, NULL, NULL));
  fail_unless (cf_convolve_rank1 (zero, 3, 2, col, row));
  /* a 1e-4 relative rank-2 component is far above the tolerance */
  memcpy (near, rank1, sizeof (near));
  near[0] += 4e-4f;
  fail_unless (!cf_convolve_rank1 (near, 3, 3, NULL, NULL));
  near[0] = NAN;
  fail_unless (!cf_convolve_rank1 (near, 3, 3, NULL, NULL));
}

GST_END_TEST;

GST_START_TEST (test_separable_rejects_non_rank1_kernels)
{
  float laplace[9] = { 0, 1, 0, 1, -4, 1, 0, 1, 0 };
  cf_kernel lk = { 3, 3, laplace };
  cf_kernel *rk = cf_test_random_kernel (7, 5, 77);
  cf_convolve_params params = { CF_BORDER_CLAMP, CF_CONVOLUTION,
    CF_CONV_METHOD_SEPARABLE, 0 };
  cf_cuda_convolve_plan *plan = NULL;

  fail_unless_equals_int (cf_cuda_convolve_plan_new (32, 32, &lk, &params,
          &plan), CF_ERROR_UNSUPPORTED);
  fail_unless (plan == NULL);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (32, 32, rk, &params,
          &plan), CF_ERROR_UNSUPPORTED);
  fail_unless (plan == NULL);
  cf_kernel_free (rk);
}

GST_END_TEST;

/* AUTO follows the measured crossovers of cuda/convolve.cu (auto_table):
 * one case on each side of a crossover, for the three choices; kernels up
 * to CF_CONV_AUTO_STENCIL_SIZE run the stencil, whatever their rank. */
#define AUTO_SMALL(k, table) \
  ((k) <= CF_CONV_AUTO_STENCIL_SIZE ? CF_CONV_METHOD_STENCIL : (table))
#define AUTO_K3(table) AUTO_SMALL (3, table)
#define AUTO_K7(table) AUTO_SMALL (7, table)
GST_START_TEST (test_auto_follows_measured_table)
{
  static const struct
  {
    int w, h, k;
    gboolean rank1;
    cf_conv_method expect;      /* FFT falls back to the other when cuFFT
                                 * is missing */
    cf_conv_method without_fft;
  } cases[] = {
    {1920, 1080, 3, TRUE, AUTO_K3 (CF_CONV_METHOD_DIRECT),
        AUTO_K3 (CF_CONV_METHOD_DIRECT)},
    {1920, 1080, 7, TRUE, AUTO_K7 (CF_CONV_METHOD_DIRECT),
        AUTO_K7 (CF_CONV_METHOD_DIRECT)},
    {1920, 1080, 9, TRUE, CF_CONV_METHOD_SEPARABLE, CF_CONV_METHOD_SEPARABLE},
    {320, 240, 3, TRUE, AUTO_K3 (CF_CONV_METHOD_SEPARABLE),
        AUTO_K3 (CF_CONV_METHOD_SEPARABLE)},
    {320, 240, 7, TRUE, AUTO_K7 (CF_CONV_METHOD_SEPARABLE),
        AUTO_K7 (CF_CONV_METHOD_SEPARABLE)},
    {1920, 1080, 125, TRUE, CF_CONV_METHOD_SEPARABLE,
        CF_CONV_METHOD_SEPARABLE},
    {1920, 1080, 127, TRUE, CF_CONV_METHOD_FFT, CF_CONV_METHOD_SEPARABLE},
    {1920, 1080, 23, FALSE, CF_CONV_METHOD_DIRECT, CF_CONV_METHOD_DIRECT},
    {1920, 1080, 25, FALSE, CF_CONV_METHOD_FFT, CF_CONV_METHOD_DIRECT},
    {4096, 4096, 23, FALSE, CF_CONV_METHOD_DIRECT, CF_CONV_METHOD_DIRECT},
    {4096, 4096, 25, FALSE, CF_CONV_METHOD_FFT, CF_CONV_METHOD_DIRECT},
    {320, 240, 19, FALSE, CF_CONV_METHOD_DIRECT, CF_CONV_METHOD_DIRECT},
    {320, 240, 21, FALSE, CF_CONV_METHOD_FFT, CF_CONV_METHOD_DIRECT},
  };
  const gboolean fft = cf_cuda_convolve_fft_available ();
  cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
    CF_CONV_METHOD_AUTO, 0 };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    cf_kernel *k = cases[c].rank1 ? random_rank1_kernel (cases[c].k,
        cases[c].k, 500 + c) : cf_test_random_kernel (cases[c].k, cases[c].k,
        600 + c);
    cf_cuda_convolve_plan *plan = NULL;

    fail_unless_equals_int (cf_cuda_convolve_plan_new (cases[c].w,
            cases[c].h, k, &params, &plan), CF_OK);
    fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
        fft ? cases[c].expect : cases[c].without_fft);
    cf_cuda_convolve_plan_free (plan);
    cf_kernel_free (k);
  }
}

GST_END_TEST;

/* With auto_im2tensor (the element's precision=auto) AUTO runs im2tensor
 * in its measured window: a dense 31 x 31 kernel at 640x480 (64-column
 * warps on devices of 40 SMs or more), 1280x720, 1080p and 4096^2 (inside
 * every window of auto_table), with the MMA kernel, results within
 * im2tensor's bar; never without auto_im2tensor, for a
 * rank-1 kernel, for a kernel the stencil serves, or on a device that
 * runs the WMMA kernel (the window was measured with the MMA one). */
GST_START_TEST (test_auto_picks_im2tensor_in_its_window)
{
  static const int sizes[][2] = { {640, 480}, {1280, 720}, {1920, 1080},
  {4096, 4096}
  };
  const int mma = cf_cuda_convolve_im2tensor_mma_runs (31, 31);
  cf_kernel *dense = cf_test_random_kernel (31, 31, 909);
  cf_kernel *rank1 = random_rank1_kernel (31, 31, 910);
  cf_kernel *small = cf_test_random_kernel (5, 5, 911);
  cudaStream_t stream = cf_test_make_stream ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    const int w = sizes[i][0], h = sizes[i][1];
    cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
      CF_CONV_METHOD_AUTO, 1
    };
    cf_cuda_convolve_plan *plan = NULL;

    fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, dense, &params,
            &plan), CF_OK);
    if (mma) {
      fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
          CF_CONV_METHOD_IM2TENSOR);
      fail_unless_equals_int (cf_cuda_convolve_plan_im2tensor_variant
          (plan), CF_IM2TENSOR_VARIANT_MMA);
    } else {
      fail_if (cf_cuda_convolve_plan_method (plan) ==
          CF_CONV_METHOD_IM2TENSOR);
    }
    cf_cuda_convolve_plan_free (plan);

    fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, rank1, &params,
            &plan), CF_OK);
    fail_if (cf_cuda_convolve_plan_method (plan) == CF_CONV_METHOD_IM2TENSOR);
    cf_cuda_convolve_plan_free (plan);
    fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, small, &params,
            &plan), CF_OK);
    fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
        CF_CONV_METHOD_STENCIL);
    cf_cuda_convolve_plan_free (plan);

    params.auto_im2tensor = 0;
    fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, dense, &params,
            &plan), CF_OK);
    fail_if (cf_cuda_convolve_plan_method (plan) == CF_CONV_METHOD_IM2TENSOR);
    cf_cuda_convolve_plan_free (plan);
  }
  /* what the auto plan computes, against the CPU, at 1080p */
  if (mma) {
    cf_convolve_params params = { CF_BORDER_REFLECT, CF_CONVOLUTION,
      CF_CONV_METHOD_AUTO, 1
    };
    cf_image *src = cf_test_random_image (1920, 1080, 912, 0.0f, 1.0f);
    cf_image *cpu = cf_image_new (1920, 1080), *gpu = cf_image_new (1920,
        1080);

    fail_unless_equals_int (cf_convolve (src, dense, CF_BORDER_REFLECT,
            CF_CONVOLUTION, cpu), CF_OK);
    gpu_convolve (src, dense, &params, CF_IM2TENSOR_VARIANT_AUTO,
        CF_CONV_METHOD_IM2TENSOR, gpu, stream);
    cf_test_assert_im2tensor_close (gpu, cpu, src, dense, CF_BORDER_REFLECT,
        CF_CONVOLUTION, "auto at 1080p, 31x31");
    cf_image_free (src);
    cf_image_free (cpu);
    cf_image_free (gpu);
  }
  cf_kernel_free (dense);
  cf_kernel_free (rank1);
  cf_kernel_free (small);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* The ends of auto's im2tensor window (auto_table): 9 x 9 ... 63 x 63 at
 * every size measured, by taps (kw kh), so 9 x 8 is below it and 65 x 63
 * past it; checked at the smallest and a large size. */
GST_START_TEST (test_auto_im2tensor_window_ends)
{
  static const int sizes[][2] = { {320, 240}, {1920, 1080} };
  static const struct
  {
    int kw, kh;
    gboolean inside;
  } kernels[] = {
    {9, 8, FALSE}, {9, 9, TRUE}, {63, 63, TRUE}, {63, 65, FALSE},
    {65, 63, FALSE},
  };
  guint i, k;

  if (!cf_cuda_convolve_im2tensor_mma_runs (63, 63))
    return;                     /* the window is the MMA kernel's */
  for (i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (k = 0; k < G_N_ELEMENTS (kernels); k++) {
      cf_kernel *f = cf_test_random_kernel (kernels[k].kw, kernels[k].kh,
          700 + k);
      cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
        CF_CONV_METHOD_AUTO, 1
      };
      cf_cuda_convolve_plan *plan = NULL;

      fail_unless_equals_int (cf_cuda_convolve_plan_new (sizes[i][0],
              sizes[i][1], f, &params, &plan), CF_OK);
      if (kernels[k].inside)
        fail_unless (cf_cuda_convolve_plan_method (plan) ==
            CF_CONV_METHOD_IM2TENSOR, "%d x %d at %dx%d", kernels[k].kw,
            kernels[k].kh, sizes[i][0], sizes[i][1]);
      else
        fail_if (cf_cuda_convolve_plan_method (plan) ==
            CF_CONV_METHOD_IM2TENSOR, "%d x %d at %dx%d", kernels[k].kw,
            kernels[k].kh, sizes[i][0], sizes[i][1]);
      cf_cuda_convolve_plan_free (plan);
      cf_kernel_free (f);
    }
}

GST_END_TEST;

GST_START_TEST (test_auto_picks_separable_for_gaussian)
{
  cudaStream_t stream = cf_test_make_stream ();
  cf_kernel *gauss = NULL, *small = NULL, *line = NULL;
  cf_kernel *general = cf_test_random_kernel (9, 9, 31337);
  cf_convolve_params params = { CF_BORDER_REFLECT, CF_CONVOLUTION,
    CF_CONV_METHOD_AUTO, 0 };
  cf_cuda_convolve_plan *plan = NULL;

  /* sigma 2: 13 x 13, an outer product of sampled 1-D Gaussians */
  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_GAUSSIAN, 0,
          2.0f, &gauss, NULL), CF_OK);
  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_GAUSSIAN, 9,
          1.0f, &small, NULL), CF_OK);
  line = random_rank1_kernel (9, 1, 4242);

  check_kernel (97, 61, gauss, CF_BORDER_REFLECT, CF_CONVOLUTION,
      CF_CONV_METHOD_AUTO, CF_IM2TENSOR_VARIANT_AUTO,
      CF_CONV_METHOD_SEPARABLE, stream);
  check_kernel (97, 61, gauss, CF_BORDER_ZERO, CF_CORRELATION,
      CF_CONV_METHOD_AUTO, CF_IM2TENSOR_VARIANT_AUTO,
      CF_CONV_METHOD_SEPARABLE, stream);

  /* on small images separable wins from 3 x 3 (auto_table); up to 7 x 7
   * the stencil comes first, so a 9 x 9 Gaussian shows it */
  fail_unless_equals_int (cf_cuda_convolve_plan_new (97, 61, small, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
      CF_CONV_METHOD_SEPARABLE);
  cf_cuda_convolve_plan_free (plan);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (97, 61, line, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
      CF_CONV_METHOD_SEPARABLE);
  cf_cuda_convolve_plan_free (plan);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (97, 61, general, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
      CF_CONV_METHOD_DIRECT);
  cf_cuda_convolve_plan_free (plan);

  cf_kernel_free (gauss);
  cf_kernel_free (small);
  cf_kernel_free (line);
  cf_kernel_free (general);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* One plan runs A, then B, then A again: both A outputs are bit-identical
 * (nothing of a run leaks into the next) and match the CPU (@variant:
 * im2tensor's kernel). */
static void
check_plan_reuse (cf_conv_method method, cf_im2tensor_variant variant,
    const cf_kernel * k)
{
  const int w = 333, h = 97;
  cudaStream_t stream = cf_test_make_stream ();
  cf_convolve_params params = { CF_BORDER_WRAP, CF_CONVOLUTION, method, 0 };
  cf_cuda_convolve_plan *plan = NULL;
  cf_cuda_image dsrc, ddst;
  cf_image *a = cf_test_random_image (w, h, 5001, 0.0f, 1.0f);
  cf_image *b = cf_test_random_image (w, h, 5002, 0.0f, 1.0f);
  cf_image *cpu = cf_image_new (w, h);
  cf_image *out[3];
  const cf_image *in[3] = { a, b, a };
  int run, y;

  fail_unless (cpu != NULL);
  fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (w, h, k,
          &params, variant, &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan), method);
  fail_unless_equals_int (cf_cuda_image_alloc (&dsrc, w, h), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&ddst, w, h), CF_OK);
  for (run = 0; run < 3; run++) {
    out[run] = cf_image_new (w, h);
    fail_unless (out[run] != NULL);
    fail_unless_equals_int (cf_cuda_image_upload (in[run], &dsrc, stream),
        CF_OK);
    fail_unless_equals_int (cf_cuda_image_fill (&ddst, NAN, stream), CF_OK);
    fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dsrc.data,
            dsrc.pitch, ddst.data, ddst.pitch, stream), CF_OK);
    fail_unless_equals_int (cf_cuda_image_download (&ddst, out[run], stream),
        CF_OK);
    CUDA_OK (cudaStreamSynchronize (stream));
  }
  for (y = 0; y < h; y++)
    fail_unless (memcmp (cf_image_row (out[0], y), cf_image_row (out[2], y),
            (size_t) w * sizeof (float)) == 0,
        "%s (%s): row %d differs between two runs on the same input",
        cf_conv_method_name (method), cf_im2tensor_variant_name (variant),
        y);
  fail_unless_equals_int (cf_convolve (a, k, params.border, params.mode, cpu),
      CF_OK);
  assert_method_close (method, out[0], cpu, a, k, params.border, params.mode,
      "plan reuse, input A");
  fail_unless_equals_int (cf_convolve (b, k, params.border, params.mode, cpu),
      CF_OK);
  assert_method_close (method, out[1], cpu, b, k, params.border, params.mode,
      "plan reuse, input B");

  for (run = 0; run < 3; run++)
    cf_image_free (out[run]);
  cf_cuda_image_release (&dsrc);
  cf_cuda_image_release (&ddst);
  cf_cuda_convolve_plan_free (plan);
  cf_image_free (a);
  cf_image_free (b);
  cf_image_free (cpu);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_START_TEST (test_plan_reuse_gives_identical_output)
{
  cf_kernel *k1 = random_rank1_kernel (11, 6, 1234);
  cf_kernel *k2 = cf_test_random_kernel (11, 6, 1235);
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  int v, n = im2tensor_variants (variants);

  check_plan_reuse (CF_CONV_METHOD_SEPARABLE, CF_IM2TENSOR_VARIANT_AUTO, k1);
  if (fft_usable ())
    check_plan_reuse (CF_CONV_METHOD_FFT, CF_IM2TENSOR_VARIANT_AUTO, k2);
  for (v = 0; v < n; v++)
    check_plan_reuse (CF_CONV_METHOD_IM2TENSOR, variants[v], k2);
  cf_kernel_free (k1);
  cf_kernel_free (k2);
}

GST_END_TEST;

/* Planes from plain cudaMalloc with pitches that are neither the width
 * nor a multiple of 4; samples between width and pitch of dst must stay
 * untouched. */
static void
check_pitched (cf_conv_method method, cf_im2tensor_variant variant,
    const cf_kernel * k)
{
  const int w = 101, h = 43, src_pitch = w + 3, dst_pitch = w + 7;
  const float guard = 12345.0f;
  cudaStream_t stream = cf_test_make_stream ();
  cf_convolve_params params = { CF_BORDER_REFLECT, CF_CORRELATION, method, 0 };
  cf_cuda_convolve_plan *plan = NULL;
  cf_image *src = cf_test_random_image (w, h, 777, 0.0f, 1.0f);
  cf_image *cpu = cf_image_new (w, h);
  cf_image *host_dst = cf_image_new (dst_pitch, h);
  cf_image gpu;
  float *dsrc = NULL, *ddst = NULL;
  int x, y;

  fail_unless (cpu != NULL && host_dst != NULL);
  cf_image_fill (host_dst, guard);
  CUDA_OK (cudaMalloc ((void **) &dsrc,
          (size_t) src_pitch * h * sizeof (float)));
  CUDA_OK (cudaMalloc ((void **) &ddst,
          (size_t) dst_pitch * h * sizeof (float)));
  CUDA_OK (cudaMemcpy2D (dsrc, src_pitch * sizeof (float), src->data,
          src->pitch * sizeof (float), w * sizeof (float), h,
          cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemcpy (ddst, host_dst->data,
          (size_t) dst_pitch * h * sizeof (float), cudaMemcpyHostToDevice));

  fail_unless_equals_int (cf_convolve (src, k, params.border, params.mode,
          cpu), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_new_variant (w, h, k,
          &params, variant, &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dsrc, src_pitch,
          ddst, dst_pitch, stream), CF_OK);
  CUDA_OK (cudaStreamSynchronize (stream));
  CUDA_OK (cudaMemcpy (host_dst->data, ddst,
          (size_t) dst_pitch * h * sizeof (float), cudaMemcpyDeviceToHost));

  gpu = cf_image_view (host_dst->data, w, h, dst_pitch);
  assert_method_close (method, &gpu, cpu, src, k, params.border, params.mode,
      "pitched buffers");
  for (y = 0; y < h; y++)
    for (x = w; x < dst_pitch; x++)
      fail_unless (cf_image_row (host_dst, y)[x] == guard,
          "%s (%s): sample (%d, %d) past the width was written",
          cf_conv_method_name (method), cf_im2tensor_variant_name (variant),
          x, y);

  cf_cuda_convolve_plan_free (plan);
  CUDA_OK (cudaFree (dsrc));
  CUDA_OK (cudaFree (ddst));
  cf_image_free (src);
  cf_image_free (cpu);
  cf_image_free (host_dst);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_START_TEST (test_pitched_buffers_with_pitch_above_width)
{
  cf_kernel *k1 = random_rank1_kernel (9, 7, 4321);
  cf_kernel *k2 = cf_test_random_kernel (9, 7, 4322);
  cf_im2tensor_variant variants[IM2TENSOR_VARIANTS];
  int v, n = im2tensor_variants (variants);

  check_pitched (CF_CONV_METHOD_DIRECT, CF_IM2TENSOR_VARIANT_AUTO, k2);
  check_pitched (CF_CONV_METHOD_SEPARABLE, CF_IM2TENSOR_VARIANT_AUTO, k1);
  if (fft_usable ())
    check_pitched (CF_CONV_METHOD_FFT, CF_IM2TENSOR_VARIANT_AUTO, k2);
  for (v = 0; v < n; v++)
    check_pitched (CF_CONV_METHOD_IM2TENSOR, variants[v], k2);
  cf_kernel_free (k1);
  cf_kernel_free (k2);
}

GST_END_TEST;

/* Without cuFFT, method=fft is refused cleanly (the plugin still loads);
 * with it, the plan reports the method it runs. */
GST_START_TEST (test_fft_availability)
{
  float taps[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };
  cf_kernel k = { 3, 3, taps };
  cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
    CF_CONV_METHOD_FFT, 0 };
  cf_cuda_convolve_plan *plan = NULL;

  if (!cf_cuda_convolve_fft_available ()) {
    fail_unless (cf_cufft_load () == NULL);
    fail_unless (cf_cufft_load_error ()[0] != '\0');
    fail_unless_equals_int (cf_cuda_convolve_plan_new (16, 16, &k, &params,
            &plan), CF_ERROR_UNSUPPORTED);
    fail_unless (plan == NULL);
    return;
  }
  fail_unless_equals_string (cf_cufft_load_error (), "");
  fail_unless_equals_int (cf_cuda_convolve_plan_new (16, 16, &k, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
      CF_CONV_METHOD_FFT);
  cf_cuda_convolve_plan_free (plan);
}

GST_END_TEST;

static Suite *
cuda_convolve_methods_suite (void)
{
  Suite *s = suite_create ("cuda_convolve_methods");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fft_fast_sizes);
  tcase_add_test (tc, test_fft_padded_length);
  tcase_add_test (tc, test_fft_tuned_sizes);
  tcase_add_test (tc, test_fft_tiles_match_cpu);
  tcase_add_test (tc, test_rank1_factorisation);
  tcase_add_test (tc, test_fft_availability);
  tcase_add_test (tc, test_separable_rejects_non_rank1_kernels);
  tcase_add_test (tc, test_auto_picks_separable_for_gaussian);
  tcase_add_test (tc, test_auto_follows_measured_table);
  tcase_add_test (tc, test_auto_picks_im2tensor_in_its_window);
  tcase_add_test (tc, test_auto_im2tensor_window_ends);
  tcase_add_test (tc, test_separable_matches_cpu);
  tcase_add_test (tc, test_fft_matches_cpu);
  tcase_add_test (tc, test_fft_runs_follow_their_buffers);
  tcase_add_test (tc, test_im2tensor_c_rows_bound_is_collision_free);
  tcase_add_test (tc, test_im2tensor_variant_choice);
  tcase_add_test (tc, test_im2tensor_matches_cpu);
  tcase_add_test (tc, test_im2tensor_uneven_geometries);
  tcase_add_test (tc, test_im2tensor_warp_widths);
  tcase_add_test (tc, test_im2tensor_large_images);
  tcase_add_test (tc, test_im2tensor_median_relative_error);
  tcase_add_test (tc, test_im2tensor_16bit_range);
  tcase_add_test (tc, test_accuracy_against_float64);
  tcase_add_test (tc, test_separable_long_and_one_sided_kernels);
  tcase_add_test (tc, test_kernel_larger_than_image);
  tcase_add_test (tc, test_fft_non_smooth_extent);
  tcase_add_test (tc, test_plan_reuse_gives_identical_output);
  tcase_add_test (tc, test_pitched_buffers_with_pitch_above_width);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_convolve_methods",
      cuda_convolve_methods_suite);
}
