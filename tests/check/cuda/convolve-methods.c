/* gst-cudaflow — tests for the separable and FFT convolution methods
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
#include "cuda/convolve-separable.h"
#include "cuda/cufft-loader.h"

#define SEPARABLE_TOLERANCE 1e-5
#define FFT_TOLERANCE 1e-4

#define CUDA_OK(expr)                                                   \
  G_STMT_START {                                                        \
    cudaError_t cuda_ok_err_ = (expr);                                  \
    fail_unless (cuda_ok_err_ == cudaSuccess, "%s failed: %s", #expr,   \
        cudaGetErrorName (cuda_ok_err_));                               \
  } G_STMT_END

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

static cudaStream_t
make_stream (void)
{
  cudaStream_t stream = NULL;

  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  return stream;
}

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

/* A random kernel with taps in [-1, 1) (rank > 1 but for 1-wide ones). */
static cf_kernel *
random_kernel (int kw, int kh, guint32 seed)
{
  cf_kernel *k = cf_kernel_new (kw, kh);
  cf_image view;

  fail_unless (k != NULL);
  view = cf_image_view (k->taps, kw, kh, (size_t) kw);
  cf_test_fill_random (&view, seed, -1.0f, 1.0f);
  return k;
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

static cf_image *
random_image (int w, int h, guint32 seed)
{
  cf_image *img = cf_image_new (w, h);

  fail_unless (img != NULL);
  cf_test_fill_random (img, seed, 0.0f, 1.0f);
  return img;
}

/* Fail unless gpu matches cpu within tol and holds no NaN. */
static void
assert_close (const cf_image * gpu, const cf_image * cpu, double tol,
    const char *what)
{
  double max_ref = 0.0, max_diff = 0.0;
  int x, y, nan_count = 0;

  for (y = 0; y < cpu->height; y++) {
    const float *g = cf_image_row (gpu, y);
    const float *c = cf_image_row (cpu, y);

    for (x = 0; x < cpu->width; x++) {
      double d;

      if (isnan (g[x])) {
        nan_count++;
        continue;
      }
      d = fabs ((double) g[x] - (double) c[x]);
      if (d > max_diff)
        max_diff = d;
      if (fabs ((double) c[x]) > max_ref)
        max_ref = fabs ((double) c[x]);
    }
  }
  fail_unless (nan_count == 0, "%s: %d NaN outputs", what, nan_count);
  fail_unless (max_diff <= tol * MAX (1.0, max_ref),
      "%s: max |gpu - cpu| = %g, max |cpu| = %g", what, max_diff, max_ref);
}

/* Run one new plan on src into a NaN-poisoned dst and download the result;
 * fail unless the plan resolved to `expect`. */
static void
gpu_convolve (const cf_image * src, const cf_kernel * k,
    const cf_convolve_params * params, cf_conv_method expect, cf_image * out,
    cudaStream_t stream)
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
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan), expect);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dsrc.data,
          dsrc.pitch, ddst.data, ddst.pitch, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_image_download (&ddst, out, stream), CF_OK);
  CUDA_OK (cudaStreamSynchronize (stream));
  cf_cuda_convolve_plan_free (plan);
  cf_cuda_image_release (&dsrc);
  cf_cuda_image_release (&ddst);
}

/* Tolerance of a resolved method (file comment). */
static double
tolerance_of (cf_conv_method method)
{
  return method == CF_CONV_METHOD_FFT ? FFT_TOLERANCE : SEPARABLE_TOLERANCE;
}

/* One case: random w x h image, kernel k, GPU method vs CPU. */
static void
check_kernel (int w, int h, const cf_kernel * k, cf_border border,
    cf_conv_mode mode, cf_conv_method method, cf_conv_method expect,
    cudaStream_t stream)
{
  cf_convolve_params params = { border, mode, method };
  cf_image *src = random_image (w, h, next_seed++ * 2654435761u);
  cf_image *cpu = cf_image_new (w, h);
  cf_image *gpu = cf_image_new (w, h);
  gchar *what = g_strdup_printf ("%dx%d image, %dx%d kernel, %s, %s, %s",
      w, h, k->width, k->height, cf_border_name (border),
      mode == CF_CONVOLUTION ? "convolution" : "correlation",
      cf_conv_method_name (method));

  fail_unless (cpu != NULL && gpu != NULL);
  fail_unless_equals_int (cf_convolve (src, k, border, mode, cpu), CF_OK);
  gpu_convolve (src, k, &params, expect, gpu, stream);
  assert_close (gpu, cpu, tolerance_of (expect), what);

  g_free (what);
  cf_image_free (src);
  cf_image_free (cpu);
  cf_image_free (gpu);
}

/* Every border and mode for one image size and kernel size: a rank-1
 * kernel for separable, a general one for fft. */
static void
check_all_borders_and_modes (int w, int h, int kw, int kh,
    cf_conv_method method, cudaStream_t stream)
{
  int b, m;

  for (b = 0; b < CF_BORDER_COUNT; b++)
    for (m = 0; m < 2; m++) {
      guint32 seed = next_seed++ * 40503u + 7u;
      cf_kernel *k = method == CF_CONV_METHOD_SEPARABLE
          ? random_rank1_kernel (kw, kh, seed) : random_kernel (kw, kh, seed);

      check_kernel (w, h, k, all_borders[b], all_modes[m], method, method,
          stream);
      cf_kernel_free (k);
    }
}

/* The sizes x kernels sweep for one method. */
static void
sweep (cf_conv_method method)
{
  cudaStream_t stream = make_stream ();
  guint s, k;

  for (s = 0; s < G_N_ELEMENTS (sweep_sizes); s++)
    for (k = 0; k < G_N_ELEMENTS (sweep_kernels); k++) {
      if (sweep_kernels[k].w == 127 && sweep_sizes[s].w < 64)
        continue;
      check_all_borders_and_modes (sweep_sizes[s].w, sweep_sizes[s].h,
          sweep_kernels[k].w, sweep_kernels[k].h, method, stream);
    }
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_START_TEST (test_separable_matches_cpu)
{
  sweep (CF_CONV_METHOD_SEPARABLE);
}

GST_END_TEST;

GST_START_TEST (test_fft_matches_cpu)
{
  if (!fft_usable ())
    return;
  sweep (CF_CONV_METHOD_FFT);
}

GST_END_TEST;

/* Row and column kernels (one side 1), kernels longer than the separable
 * passes' chunks (128 row taps, 64 column taps) and the largest size. */
GST_START_TEST (test_separable_long_and_one_sided_kernels)
{
  cudaStream_t stream = make_stream ();

  check_all_borders_and_modes (64, 48, 9, 1, CF_CONV_METHOD_SEPARABLE,
      stream);
  check_all_borders_and_modes (64, 48, 1, 9, CF_CONV_METHOD_SEPARABLE,
      stream);
  check_all_borders_and_modes (300, 7, 257, 1, CF_CONV_METHOD_SEPARABLE,
      stream);
  check_all_borders_and_modes (5, 200, 1, 130, CF_CONV_METHOD_SEPARABLE,
      stream);
  check_all_borders_and_modes (40, 30, CF_KERNEL_MAX_SIZE, 3,
      CF_CONV_METHOD_SEPARABLE, stream);
  check_all_borders_and_modes (30, 40, 3, CF_KERNEL_MAX_SIZE,
      CF_CONV_METHOD_SEPARABLE, stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* Kernels larger than the image, in one axis or both, odd and even. */
GST_START_TEST (test_kernel_larger_than_image)
{
  static const cf_conv_method methods[] = {
    CF_CONV_METHOD_SEPARABLE, CF_CONV_METHOD_FFT
  };
  cudaStream_t stream = make_stream ();
  guint m;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    if (methods[m] == CF_CONV_METHOD_FFT && !fft_usable ())
      continue;
    check_all_borders_and_modes (7, 5, 15, 15, methods[m], stream);
    check_all_borders_and_modes (3, 2, 8, 6, methods[m], stream);
    check_all_borders_and_modes (2, 9, 21, 3, methods[m], stream);
    check_all_borders_and_modes (1, 1, 4, 4, methods[m], stream);
  }
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

/* FFT at a size whose padded extent is not 7-smooth (2000 + 30 = 2030 =
 * 2 5 7 29 pads to 2048 columns; 1000 + 30 = 1030 pads to 1050 rows). */
GST_START_TEST (test_fft_non_smooth_extent)
{
  cudaStream_t stream = make_stream ();
  cf_kernel *k;

  if (!fft_usable ())
    return;
  k = random_kernel (31, 31, 2024);
  check_kernel (2000, 1000, k, CF_BORDER_REFLECT, CF_CONVOLUTION,
      CF_CONV_METHOD_FFT, CF_CONV_METHOD_FFT, stream);
  check_kernel (2000, 1000, k, CF_BORDER_ZERO, CF_CORRELATION,
      CF_CONV_METHOD_FFT, CF_CONV_METHOD_FFT, stream);
  cf_kernel_free (k);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_fft_fast_sizes)
{
  fail_unless_equals_int (cf_fft_fast_size (0), 1);
  fail_unless_equals_int (cf_fft_fast_size (1), 1);
  fail_unless_equals_int (cf_fft_fast_size (11), 12);
  fail_unless_equals_int (cf_fft_fast_size (13), 14);
  fail_unless_equals_int (cf_fft_fast_size (97), 98);
  fail_unless_equals_int (cf_fft_fast_size (4096 + 30), 4200);
  fail_unless_equals_int (cf_fft_fast_size (4096), 4096);
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
  cf_kernel *rk = random_kernel (7, 5, 77);
  cf_convolve_params params = { CF_BORDER_CLAMP, CF_CONVOLUTION,
    CF_CONV_METHOD_SEPARABLE
  };
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

/* AUTO: separable for rank-1 kernels of 5 x 5 and up, direct otherwise. */
GST_START_TEST (test_auto_picks_separable_for_gaussian)
{
  cudaStream_t stream = make_stream ();
  cf_kernel *gauss = NULL, *small = NULL, *line = NULL;
  cf_kernel *general = random_kernel (9, 9, 31337);
  cf_convolve_params params = { CF_BORDER_REFLECT, CF_CONVOLUTION,
    CF_CONV_METHOD_AUTO
  };
  cf_cuda_convolve_plan *plan = NULL;

  /* sigma 2: 13 x 13, an outer product of sampled 1-D Gaussians */
  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_GAUSSIAN, 0,
          2.0f, &gauss, NULL), CF_OK);
  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_GAUSSIAN, 3,
          1.0f, &small, NULL), CF_OK);
  line = random_rank1_kernel (9, 1, 4242);

  check_kernel (97, 61, gauss, CF_BORDER_REFLECT, CF_CONVOLUTION,
      CF_CONV_METHOD_AUTO, CF_CONV_METHOD_SEPARABLE, stream);
  check_kernel (97, 61, gauss, CF_BORDER_ZERO, CF_CORRELATION,
      CF_CONV_METHOD_AUTO, CF_CONV_METHOD_SEPARABLE, stream);

  fail_unless_equals_int (cf_cuda_convolve_plan_new (97, 61, small, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
      CF_CONV_METHOD_DIRECT);
  cf_cuda_convolve_plan_free (plan);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (97, 61, line, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_method (plan),
      CF_CONV_METHOD_DIRECT);
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
 * (nothing of a run leaks into the next) and match the CPU. */
static void
check_plan_reuse (cf_conv_method method, const cf_kernel * k)
{
  const int w = 333, h = 97;
  cudaStream_t stream = make_stream ();
  cf_convolve_params params = { CF_BORDER_WRAP, CF_CONVOLUTION, method };
  cf_cuda_convolve_plan *plan = NULL;
  cf_cuda_image dsrc, ddst;
  cf_image *a = random_image (w, h, 5001);
  cf_image *b = random_image (w, h, 5002);
  cf_image *cpu = cf_image_new (w, h);
  cf_image *out[3];
  const cf_image *in[3] = { a, b, a };
  int run, y;

  fail_unless (cpu != NULL);
  fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, k, &params,
          &plan), CF_OK);
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
        "%s: row %d differs between two runs on the same input",
        cf_conv_method_name (method), y);
  fail_unless_equals_int (cf_convolve (a, k, params.border, params.mode, cpu),
      CF_OK);
  assert_close (out[0], cpu, tolerance_of (method), "plan reuse, input A");
  fail_unless_equals_int (cf_convolve (b, k, params.border, params.mode, cpu),
      CF_OK);
  assert_close (out[1], cpu, tolerance_of (method), "plan reuse, input B");

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
  cf_kernel *k2 = random_kernel (11, 6, 1235);

  check_plan_reuse (CF_CONV_METHOD_SEPARABLE, k1);
  if (fft_usable ())
    check_plan_reuse (CF_CONV_METHOD_FFT, k2);
  cf_kernel_free (k1);
  cf_kernel_free (k2);
}

GST_END_TEST;

/* Planes from plain cudaMalloc with pitches that are neither the width
 * nor a multiple of 4; samples between width and pitch of dst must stay
 * untouched. */
static void
check_pitched (cf_conv_method method, const cf_kernel * k)
{
  const int w = 101, h = 43, src_pitch = w + 3, dst_pitch = w + 7;
  const float guard = 12345.0f;
  cudaStream_t stream = make_stream ();
  cf_convolve_params params = { CF_BORDER_REFLECT, CF_CORRELATION, method };
  cf_cuda_convolve_plan *plan = NULL;
  cf_image *src = random_image (w, h, 777);
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
  fail_unless_equals_int (cf_cuda_convolve_plan_new (w, h, k, &params,
          &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_convolve_plan_run (plan, dsrc, src_pitch,
          ddst, dst_pitch, stream), CF_OK);
  CUDA_OK (cudaStreamSynchronize (stream));
  CUDA_OK (cudaMemcpy (host_dst->data, ddst,
          (size_t) dst_pitch * h * sizeof (float), cudaMemcpyDeviceToHost));

  gpu = cf_image_view (host_dst->data, w, h, dst_pitch);
  assert_close (&gpu, cpu, tolerance_of (method), "pitched buffers");
  for (y = 0; y < h; y++)
    for (x = w; x < dst_pitch; x++)
      fail_unless (cf_image_row (host_dst, y)[x] == guard,
          "%s: sample (%d, %d) past the width was written",
          cf_conv_method_name (method), x, y);

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
  cf_kernel *k2 = random_kernel (9, 7, 4322);

  check_pitched (CF_CONV_METHOD_SEPARABLE, k1);
  if (fft_usable ())
    check_pitched (CF_CONV_METHOD_FFT, k2);
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
    CF_CONV_METHOD_FFT
  };
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
  tcase_add_test (tc, test_rank1_factorisation);
  tcase_add_test (tc, test_fft_availability);
  tcase_add_test (tc, test_separable_rejects_non_rank1_kernels);
  tcase_add_test (tc, test_auto_picks_separable_for_gaussian);
  tcase_add_test (tc, test_separable_matches_cpu);
  tcase_add_test (tc, test_fft_matches_cpu);
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
