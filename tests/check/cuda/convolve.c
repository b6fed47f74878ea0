/* gst-cudaflow — tests for cuda/convolve (GPU plans against cf_convolve)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every GPU result is compared with the CPU reference cf_convolve () on the
 * same random input (a new seed per case), after the output was poisoned
 * with NaN: max |gpu - cpu| <= 1e-4 * max (1, max |cpu|) and no NaN left.
 * Sizes and kernels are chosen so the CPU reference stays within seconds.
 * Exits 77 (skip) without a CUDA device.
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
#include "cuda/convolve.h"

/* The accuracy bar of the fp32 methods against the double reference. */
#define REL_TOLERANCE 1e-4

static const cf_border all_borders[CF_BORDER_COUNT] = {
  CF_BORDER_ZERO, CF_BORDER_CLAMP, CF_BORDER_REFLECT, CF_BORDER_WRAP
};

static const cf_conv_mode all_modes[2] = { CF_CONVOLUTION, CF_CORRELATION };

/* One seed per case, so no two cases share their data. */
static guint32 next_seed = 1;

/* Run one plan on src into a NaN-poisoned dst and download the result
 * (pitched device planes from cf_cuda_image_alloc). */
static void
gpu_convolve (const cf_image * src, const cf_kernel * k,
    const cf_convolve_params * params, cf_image * out, cudaStream_t stream)
{
  cf_cuda_image dsrc, ddst;
  cf_cuda_convolve_plan *plan = NULL;

  fail_unless_equals_int (cf_cuda_image_alloc (&dsrc, src->width,
          src->height), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&ddst, src->width,
          src->height), CF_OK);
  fail_unless_equals_int (cf_cuda_image_upload (src, &dsrc, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_image_fill (&ddst, NAN, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (src->width, src->height,
          k, params, &plan), CF_OK);
  fail_unless (plan != NULL);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dsrc.data,
          dsrc.pitch, ddst.data, ddst.pitch, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_image_download (&ddst, out, stream), CF_OK);
  CUDA_OK (cudaStreamSynchronize (stream));
  cf_cuda_convolve_plan_free (plan);
  cf_cuda_image_release (&dsrc);
  cf_cuda_image_release (&ddst);
}

/* One case: random w x h image, random kw x kh kernel, GPU vs CPU. */
static void
check_case (int w, int h, int kw, int kh, cf_border border,
    cf_conv_mode mode, cf_conv_method method, cudaStream_t stream)
{
  cf_convolve_params params = { border, mode, method, 0 };
  guint32 seed = next_seed++;
  cf_image *src = cf_test_random_image (w, h, seed * 2654435761u, 0.0f, 1.0f);
  cf_kernel *k = cf_test_random_kernel (kw, kh, seed * 40503u + 7u);
  cf_image *cpu = cf_image_new (w, h);
  cf_image *gpu = cf_image_new (w, h);
  gchar *what = g_strdup_printf ("%dx%d image, %dx%d kernel, %s, %s, %s",
      w, h, kw, kh, cf_border_name (border),
      mode == CF_CONVOLUTION ? "convolution" : "correlation",
      cf_conv_method_name (method));

  fail_unless (cpu != NULL && gpu != NULL);
  fail_unless_equals_int (cf_convolve (src, k, border, mode, cpu), CF_OK);
  gpu_convolve (src, k, &params, gpu, stream);
  cf_test_assert_image_close (gpu, cpu, REL_TOLERANCE, what);

  g_free (what);
  cf_image_free (src);
  cf_image_free (cpu);
  cf_image_free (gpu);
  cf_kernel_free (k);
}

/* Every border and mode for one image size and kernel size. */
static void
check_all_borders_and_modes (int w, int h, int kw, int kh, cudaStream_t stream)
{
  int b, m;

  for (b = 0; b < CF_BORDER_COUNT; b++)
    for (m = 0; m < 2; m++)
      check_case (w, h, kw, kh, all_borders[b], all_modes[m],
          CF_CONV_METHOD_DIRECT, stream);
}

typedef struct
{
  int w, h;
} size2d;

static const size2d small_sizes[] = {
  {1, 1}, {2, 3}, {17, 13}, {64, 33}
};

static const size2d small_kernels[] = {
  {1, 1}, {3, 3}, {1, 7}, {7, 1}, {4, 4}, {5, 5}, {9, 3}
};

GST_START_TEST (test_direct_small_kernels_match_cpu_on_all_sizes)
{
  static const size2d sizes[] = {
    {1, 1}, {2, 3}, {17, 13}, {64, 33}, {641, 479}, {1920, 1080}
  };
  cudaStream_t stream = cf_test_make_stream ();
  guint s, k;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (k = 0; k < G_N_ELEMENTS (small_kernels); k++)
      check_all_borders_and_modes (sizes[s].w, sizes[s].h,
          small_kernels[k].w, small_kernels[k].h, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_direct_31x31_matches_cpu)
{
  cudaStream_t stream = cf_test_make_stream ();
  guint s;

  for (s = 0; s < G_N_ELEMENTS (small_sizes); s++)
    check_all_borders_and_modes (small_sizes[s].w, small_sizes[s].h, 31, 31,
        stream);
  check_all_borders_and_modes (641, 479, 31, 31, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* 63 x 63 is two 32-tap chunks each way; the mid size runs two of the
 * eight border/mode pairs to keep the CPU reference short. */
GST_START_TEST (test_direct_63x63_matches_cpu)
{
  cudaStream_t stream = cf_test_make_stream ();
  guint s;

  for (s = 0; s < G_N_ELEMENTS (small_sizes); s++)
    check_all_borders_and_modes (small_sizes[s].w, small_sizes[s].h, 63, 63,
        stream);
  check_case (641, 479, 63, 63, CF_BORDER_REFLECT, CF_CONVOLUTION,
      CF_CONV_METHOD_DIRECT, stream);
  check_case (641, 479, 63, 63, CF_BORDER_ZERO, CF_CORRELATION,
      CF_CONV_METHOD_DIRECT, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* 127 x 127 (4 x 4 chunks) on an image smaller than the kernel. */
GST_START_TEST (test_direct_127x127_matches_cpu)
{
  cudaStream_t stream = cf_test_make_stream ();

  check_all_borders_and_modes (64, 33, 127, 127, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_direct_kernel_larger_than_image_matches_cpu)
{
  cudaStream_t stream = cf_test_make_stream ();

  check_all_borders_and_modes (7, 5, 15, 15, stream);
  check_all_borders_and_modes (3, 2, 8, 6, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* Kernel sizes that leave partial chunks: 33 columns run as chunks of 20
 * (20 + 13, the second padded with zero taps), 40 as 20 + 20; 65 rows as
 * 22 + 22 + 21, 40 rows as 20 + 20. */
GST_START_TEST (test_direct_uneven_chunks_match_cpu)
{
  cudaStream_t stream = cf_test_make_stream ();

  check_all_borders_and_modes (64, 33, 33, 65, stream);
  check_all_borders_and_modes (131, 37, 40, 2, stream);
  check_all_borders_and_modes (29, 71, 2, 40, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* The largest side the elements accept: grid and index arithmetic at
 * 8192 x 8192 (one border rule; the kernel is small, the CPU is fast). */
GST_START_TEST (test_direct_8192x8192_matches_cpu)
{
  cudaStream_t stream = cf_test_make_stream ();

  check_case (8192, 8192, 3, 3, CF_BORDER_REFLECT, CF_CORRELATION,
      CF_CONV_METHOD_DIRECT, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* Above the stencil's sizes (cuda/convolve-stencil.c tests AUTO there), a
 * small dense kernel runs direct. */
GST_START_TEST (test_auto_resolves_to_direct_and_matches_cpu)
{
  cudaStream_t stream = cf_test_make_stream ();
  cf_kernel *k = cf_test_random_kernel (9, 9, 99);
  cf_convolve_params params = { CF_BORDER_CLAMP, CF_CONVOLUTION,
    CF_CONV_METHOD_AUTO, 0 };
  cf_cuda_convolve_plan *plan = NULL;

  fail_unless_equals_int (cf_cuda_convolve_plan_new (64, 33, k, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
      CF_CONV_METHOD_DIRECT);
  cf_cuda_convolve_plan_free (plan);
  check_case (64, 33, 9, 9, CF_BORDER_CLAMP, CF_CONVOLUTION,
      CF_CONV_METHOD_AUTO, stream);
  cf_kernel_free (k);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* One plan of @method, several runs on new inputs into the same output. */
static void
check_plan_reuse (int kw, int kh, cf_conv_method method)
{
  const int w = 333, h = 97;
  cudaStream_t stream = cf_test_make_stream ();
  cf_kernel *k = cf_test_random_kernel (kw, kh, 1234);
  cf_convolve_params params = { CF_BORDER_WRAP, CF_CONVOLUTION, method, 0 };
  cf_cuda_convolve_plan *plan = NULL;
  cf_cuda_image dsrc, ddst;
  cf_image *cpu = cf_image_new (w, h);
  cf_image *gpu = cf_image_new (w, h);
  int run;

  fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, k, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&dsrc, w, h), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&ddst, w, h), CF_OK);
  for (run = 0; run < 4; run++) {
    cf_image *src = cf_test_random_image (w, h, 5000 + run, 0.0f, 1.0f);

    fail_unless_equals_int (cf_convolve (src, k, params.border, params.mode,
            cpu), CF_OK);
    fail_unless_equals_int (cf_cuda_image_upload (src, &dsrc, stream), CF_OK);
    fail_unless_equals_int (cf_cuda_image_fill (&ddst, NAN, stream), CF_OK);
    fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dsrc.data,
            dsrc.pitch, ddst.data, ddst.pitch, stream), CF_OK);
    fail_unless_equals_int (cf_cuda_image_download (&ddst, gpu, stream), CF_OK);
    CUDA_OK (cudaStreamSynchronize (stream));
    cf_test_assert_image_close (gpu, cpu, REL_TOLERANCE, "plan reuse");
    cf_image_free (src);
  }
  cf_cuda_image_release (&dsrc);
  cf_cuda_image_release (&ddst);
  cf_cuda_convolve_plan_free (plan);
  cf_image_free (cpu);
  cf_image_free (gpu);
  cf_kernel_free (k);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_START_TEST (test_plan_reuse_over_several_runs)
{
  check_plan_reuse (11, 6, CF_CONV_METHOD_DIRECT);
  check_plan_reuse (5, 4, CF_CONV_METHOD_STENCIL);
}

GST_END_TEST;

GST_START_TEST (test_rejects_invalid_arguments)
{
  static float taps[CF_KERNEL_MAX_SIZE + 1];
  cf_kernel k = { 3, 3, taps };
  cf_kernel bad = k;
  cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
    CF_CONV_METHOD_DIRECT, 0 };
  cf_convolve_params bad_params;
  cf_cuda_convolve_plan *plan = (cf_cuda_convolve_plan *) & k;
  float *dev = NULL;

  fail_unless_equals_int (cf_cuda_convolve_plan_new (0, 5, &k, &params,
          &plan), CF_ERROR_INVALID);
  fail_unless (plan == NULL);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, -1, &k, &params,
          &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (CF_MAX_DIMENSION + 1, 5,
          &k, &params, &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, NULL, &params,
          &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &k, NULL,
          &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &k, &params,
          NULL), CF_ERROR_INVALID);
  bad.taps = NULL;
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &bad, &params,
          &plan), CF_ERROR_INVALID);
  bad = k;
  bad.width = 0;
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &bad, &params,
          &plan), CF_ERROR_INVALID);
  bad = k;
  bad.width = CF_KERNEL_MAX_SIZE + 1;
  bad.height = 1;
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &bad, &params,
          &plan), CF_ERROR_INVALID);
  bad_params = params;
  bad_params.border = (cf_border) CF_BORDER_COUNT;
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &k, &bad_params,
          &plan), CF_ERROR_INVALID);
  bad_params = params;
  bad_params.mode = (cf_conv_mode) 7;
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &k, &bad_params,
          &plan), CF_ERROR_INVALID);
  bad_params = params;
  bad_params.method = (cf_conv_method) 42;
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &k, &bad_params,
          &plan), CF_ERROR_INVALID);
  fail_unless (plan == NULL);

  /* a valid plan, then bad run arguments */
  fail_unless_equals_int (cf_cuda_convolve_plan_new (5, 5, &k, &params,
          &plan), CF_OK);
  CUDA_OK (cudaMalloc ((void **) &dev, 2 * 25 * sizeof (float)));
  fail_unless_equals_int (cf_cuda_convolve_plan_run (NULL, dev, 5, dev + 25,
          5, NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, NULL, 5, dev + 25,
          5, NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dev, 5, NULL, 5,
          NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dev, 4, dev + 25,
          5, NULL), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dev, 5, dev + 25,
          4, NULL), CF_ERROR_INVALID);
  CUDA_OK (cudaFree (dev));
  cf_cuda_convolve_plan_free (plan);
  cf_cuda_convolve_plan_free (NULL);
}

GST_END_TEST;

/* Every method is built; separable, fft and im2tensor are tested in
 * convolve-methods.c. Here: im2tensor is served (H100 and every device
 * with tensor cores) and, with a delta kernel, returns the input rounded
 * to fp16 and nothing else, whichever kernel the plan runs: every padded
 * tap multiplies a finite sample by an exact 0, and (WMMA) the partial
 * sums of the other blocks are exact zeros. */
GST_START_TEST (test_im2tensor_is_supported_and_delta_rounds_to_fp16)
{
  const int w = 70, h = 19;
  float taps[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };
  cf_kernel k = { 3, 3, taps };
  cf_convolve_params params = { CF_BORDER_ZERO, CF_CORRELATION,
    CF_CONV_METHOD_IM2TENSOR, 0 };
  cf_cuda_convolve_plan *plan = NULL;
  cudaStream_t stream = cf_test_make_stream ();
  cf_image *src = cf_test_random_image (w, h, 4711, 0.0f, 1.0f);
  cf_image *out = cf_image_new (w, h);
  int x, y;

  fail_unless (out != NULL);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (16, 16, &k, &params,
          &plan), CF_OK);
  fail_unless (plan != NULL);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
      CF_CONV_METHOD_IM2TENSOR);
  cf_cuda_convolve_plan_free (plan);

  gpu_convolve (src, &k, &params, out, stream);
  /* fp16 round to nearest: relative error <= 2^-11 for normal numbers,
   * absolute <= 2^-25 (times the 1/0.5 input scale) for subnormal ones */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const double in = cf_image_row (src, y)[x];
      const double g = cf_image_row (out, y)[x];

      fail_unless (fabs (g - in) <= ldexp (fabs (in), -11) + ldexp (1.0, -24),
          "(%d, %d): %.9g for an input of %.9g", x, y, g, in);
    }
  cf_image_free (src);
  cf_image_free (out);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_method_names)
{
  fail_unless_equals_string (cf_conv_method_name (CF_CONV_METHOD_AUTO), "auto");
  fail_unless_equals_string (cf_conv_method_name (CF_CONV_METHOD_DIRECT),
      "direct");
  fail_unless_equals_string (cf_conv_method_name (CF_CONV_METHOD_SEPARABLE),
      "separable");
  fail_unless_equals_string (cf_conv_method_name (CF_CONV_METHOD_FFT), "fft");
  fail_unless_equals_string (cf_conv_method_name (CF_CONV_METHOD_IM2TENSOR),
      "im2tensor");
  fail_unless_equals_string (cf_conv_method_name (CF_CONV_METHOD_STENCIL),
      "stencil");
  fail_unless_equals_string (cf_im2tensor_variant_name
      (CF_IM2TENSOR_VARIANT_AUTO), "auto");
  fail_unless_equals_string (cf_im2tensor_variant_name
      (CF_IM2TENSOR_VARIANT_WMMA), "wmma");
  fail_unless_equals_string (cf_im2tensor_variant_name
      (CF_IM2TENSOR_VARIANT_MMA), "mma");
  fail_unless_equals_string (cf_im2tensor_variant_name
      (CF_IM2TENSOR_VARIANT_MMA_REGS), "mma-regs");
}

GST_END_TEST;

static Suite *
cuda_convolve_suite (void)
{
  Suite *s = suite_create ("cuda_convolve");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_direct_small_kernels_match_cpu_on_all_sizes);
  tcase_add_test (tc, test_direct_31x31_matches_cpu);
  tcase_add_test (tc, test_direct_63x63_matches_cpu);
  tcase_add_test (tc, test_direct_127x127_matches_cpu);
  tcase_add_test (tc, test_direct_kernel_larger_than_image_matches_cpu);
  tcase_add_test (tc, test_direct_uneven_chunks_match_cpu);
  tcase_add_test (tc, test_direct_8192x8192_matches_cpu);
  tcase_add_test (tc, test_auto_resolves_to_direct_and_matches_cpu);
  tcase_add_test (tc, test_plan_reuse_over_several_runs);
  tcase_add_test (tc, test_rejects_invalid_arguments);
  tcase_add_test (tc, test_im2tensor_is_supported_and_delta_rounds_to_fp16);
  tcase_add_test (tc, test_method_names);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_convolve",
      cuda_convolve_suite);
}
