/* gst-cudaflow — strip heights of the stencil method against direct
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   conv-stencil-tune [--sizes WxH,...] [--ks K,...] [--reps N]
 *
 * For each size and square kernel side K (at most 7), the median GPU ms of
 *   direct     a plan of CF_CONV_METHOD_DIRECT (the method AUTO ran before
 *              the stencil)
 *   stencil    a plan of CF_CONV_METHOD_STENCIL (the launcher's strip
 *              height for the size)
 *   rows4/8    cf_cuda_convolve_stencil_rows () with strips of 4 and 8
 * on a single-channel float image in cudaMallocPitch planes, zero border,
 * correlation with a dense random kernel: 3 warm-up runs, then --reps
 * runs, each bracketed by CUDA events on one stream (as
 * tools/gst-cudaflow-conv-bench times). GB/s counts 4 bytes read and 4
 * written per sample, what the method must move at least. Each variant's
 * output is compared with direct's (max |diff| relative to max |direct|;
 * both are fp32 sums in the same order, so it is 0 or a few ulps).
 *
 * Built against a built tree by tests/gpu/conv-stencil-tune.sh (no GPU
 * needed there). Exit status: 0, 1 on a failure, 2 on a usage error, 77
 * without a CUDA device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/image.h"
#include "common/kernel.h"
#include "common/status.h"
#include "cuda/convolve.h"
#include "cuda/convolve-stencil.h"
#include "cuda/cuda-util.h"

#define PROG "conv-stencil-tune"
#define WARMUP_RUNS 3
#define MAX_SIZES 16
#define MAX_KS 8
#define N_VARIANTS 4

#define CHECK(call) do { cf_status s_ = (call); if (s_ != CF_OK) { \
  fprintf (stderr, PROG ": %s failed: %s (%s)\n", #call, \
      cf_status_name (s_), cf_cuda_last_error_name ()); exit (1); } } while (0)
#define CHECK_CUDA(call) do { cudaError_t e_ = (call); \
  if (e_ != cudaSuccess) { fprintf (stderr, PROG ": %s failed: %s\n", \
      #call, cudaGetErrorName (e_)); exit (1); } } while (0)

static const char *variant_names[N_VARIANTS] = {
  "direct", "stencil", "rows4", "rows8"
};

/* One timed thing: a plan, or the launcher with a strip height. */
typedef struct
{
  cf_cuda_convolve_plan *plan;  /* NULL: the launcher */
  const cf_stencil_taps *taps;
  int rows;
} variant;

static cf_status
run_variant (const variant * v, const cf_cuda_image * src,
    cf_cuda_image * dst, cudaStream_t stream)
{
  if (v->plan != NULL)
    return cf_cuda_convolve_plan_run (v->plan, src->data, src->pitch,
        dst->data, dst->pitch, stream);
  return cf_cuda_convolve_stencil_rows (src->data, src->pitch, dst->data,
      dst->pitch, src->width, src->height, v->taps, CF_BORDER_ZERO, v->rows,
      stream);
}

static int
compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Median ms of @reps runs after the warm-up. */
static double
time_variant (const variant * v, const cf_cuda_image * src,
    cf_cuda_image * dst, int reps, cudaStream_t stream)
{
  double *t = calloc ((size_t) reps, sizeof (double)), med;
  cudaEvent_t a, b;
  int i;

  CHECK_CUDA (cudaEventCreate (&a));
  CHECK_CUDA (cudaEventCreate (&b));
  for (i = -WARMUP_RUNS; i < reps; i++) {
    float ms;

    CHECK_CUDA (cudaEventRecord (a, stream));
    CHECK (run_variant (v, src, dst, stream));
    CHECK_CUDA (cudaEventRecord (b, stream));
    CHECK_CUDA (cudaEventSynchronize (b));
    CHECK_CUDA (cudaEventElapsedTime (&ms, a, b));
    if (i >= 0)
      t[i] = ms;
  }
  qsort (t, (size_t) reps, sizeof (double), compare_doubles);
  med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  free (t);
  return med;
}

/* max |a - b| / max (max |b|, tiny) over the image */
static double
relative_diff (const cf_image * a, const cf_image * b)
{
  double d = 0.0, m = 0.0;
  int x, y;

  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++) {
      const double u = cf_image_row (a, y)[x], w = cf_image_row (b, y)[x];

      d = fmax (d, u == u ? fabs (u - w) : HUGE_VAL);
      m = fmax (m, fabs (w));
    }
  return d / fmax (m, 1e-30);
}

static uint32_t
next_random (uint32_t * s)
{
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static void
usage (void)
{
  fprintf (stderr, "usage: " PROG " [--sizes WxH,...] [--ks K,...] "
      "[--reps N]\n  defaults: --sizes 4096x4096,1920x1080 --ks 3,5,7 "
      "--reps 50; K at most %d\n", CF_CONV_STENCIL_MAX_SIZE);
  exit (2);
}

int
main (int argc, char **argv)
{
  const char *sizes = "4096x4096,1920x1080", *ks = "3,5,7";
  int w[MAX_SIZES], h[MAX_SIZES], kv[MAX_KS], n_sizes = 0, n_ks = 0;
  int reps = 50, i, j, v, failed = 0;
  char *list, *tok, *save = NULL;
  struct cudaDeviceProp prop;
  cudaStream_t stream;

  for (i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--sizes") && i + 1 < argc)
      sizes = argv[++i];
    else if (!strcmp (argv[i], "--ks") && i + 1 < argc)
      ks = argv[++i];
    else if (!strcmp (argv[i], "--reps") && i + 1 < argc)
      reps = atoi (argv[++i]);
    else
      usage ();
  }
  if (reps < 1)
    usage ();
  list = strdup (sizes);
  for (tok = strtok_r (list, ",", &save); tok;
      tok = strtok_r (NULL, ",", &save)) {
    if (n_sizes == MAX_SIZES || sscanf (tok, "%dx%d", &w[n_sizes],
            &h[n_sizes]) != 2 || w[n_sizes] < 1 || h[n_sizes] < 1
        || w[n_sizes] > CF_MAX_DIMENSION || h[n_sizes] > CF_MAX_DIMENSION)
      usage ();
    n_sizes++;
  }
  free (list);
  list = strdup (ks);
  for (tok = strtok_r (list, ",", &save); tok;
      tok = strtok_r (NULL, ",", &save)) {
    if (n_ks == MAX_KS || (kv[n_ks] = atoi (tok)) < 1
        || kv[n_ks] > CF_CONV_STENCIL_MAX_SIZE)
      usage ();
    n_ks++;
  }
  free (list);

  if (!cf_cuda_device_available ()) {
    fprintf (stderr, PROG ": no usable CUDA device\n");
    return 77;
  }
  CHECK_CUDA (cudaGetDeviceProperties (&prop, 0));
  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  printf ("# Stencil strip heights against direct\n\nDevice: %s (%d SMs). "
      "Median ms of %d runs after %d warm-up runs (CUDA events, one "
      "stream); single-channel fp32, zero border, correlation, dense "
      "random kernel. GB/s: 8 bytes per sample over the median. diff: "
      "max |variant - direct| / max |direct|.\n\n", prop.name,
      prop.multiProcessorCount, reps, WARMUP_RUNS);
  printf ("| size | K | direct ms | stencil ms | rows4 ms | rows8 ms | "
      "stencil GB/s | rows4 GB/s | rows8 GB/s | stencil/direct | "
      "max diff |\n|---|---|---|---|---|---|---|---|---|---|---|\n");

  for (i = 0; i < n_sizes; i++) {
    cf_image *host = cf_image_new (w[i], h[i]);
    cf_image *ref = cf_image_new (w[i], h[i]);
    cf_image *out = cf_image_new (w[i], h[i]);
    cf_cuda_image src, dst;
    uint32_t state = 12345u;
    int x, y;

    if (host == NULL || ref == NULL || out == NULL) {
      fprintf (stderr, PROG ": out of host memory\n");
      return 1;
    }
    for (y = 0; y < h[i]; y++)
      for (x = 0; x < w[i]; x++)
        cf_image_row (host, y)[x] = 255.0f * (next_random (&state) >> 8)
            / 16777216.0f;
    CHECK (cf_cuda_image_alloc (&src, w[i], h[i]));
    CHECK (cf_cuda_image_alloc (&dst, w[i], h[i]));
    CHECK (cf_cuda_image_upload (host, &src, stream));
    CHECK_CUDA (cudaStreamSynchronize (stream));

    for (j = 0; j < n_ks; j++) {
      const int k = kv[j];
      cf_kernel *kern = cf_kernel_new (k, k);
      cf_convolve_params dp = { CF_BORDER_ZERO, CF_CORRELATION,
        CF_CONV_METHOD_DIRECT, 0 };
      cf_convolve_params sp = dp;
      cf_cuda_convolve_plan *direct = NULL, *stencil = NULL;
      cf_stencil_taps taps;
      variant vars[N_VARIANTS];
      double ms[N_VARIANTS], diff = 0.0;
      int t;

      for (t = 0; t < k * k; t++)
        kern->taps[t] = (0.05f + (next_random (&state) >> 8) / 16777216.0f)
            / (k * k);
      sp.method = CF_CONV_METHOD_STENCIL;
      CHECK (cf_cuda_convolve_plan_new (w[i], h[i], kern, &dp, &direct));
      CHECK (cf_cuda_convolve_plan_new (w[i], h[i], kern, &sp, &stencil));
      /* correlation: F is the kernel, the anchor its centre */
      CHECK (cf_cuda_convolve_stencil_prepare (kern->taps, k, k, k / 2,
              k / 2, &taps));
      memset (vars, 0, sizeof (vars));
      vars[0].plan = direct;
      vars[1].plan = stencil;
      vars[2].taps = vars[3].taps = &taps;
      vars[2].rows = 4;
      vars[3].rows = 8;

      for (v = 0; v < N_VARIANTS; v++) {
        ms[v] = time_variant (&vars[v], &src, &dst, reps, stream);
        CHECK (cf_cuda_image_download (&dst, v == 0 ? ref : out, stream));
        CHECK_CUDA (cudaStreamSynchronize (stream));
        if (v > 0)
          diff = fmax (diff, relative_diff (out, ref));
        fprintf (stderr, "%-8s %5dx%-5d K=%d %8.4f ms\n", variant_names[v],
            w[i], h[i], k, ms[v]);
      }
      if (!(diff <= 1e-5)) {
        fprintf (stderr, PROG ": %dx%d K=%d: a stencil variant differs "
            "from direct by %g\n", w[i], h[i], k, diff);
        failed = 1;
      }
      printf ("| %dx%d | %d | %.4f | %.4f | %.4f | %.4f | %.0f | %.0f | "
          "%.0f | %.2f | %.1e |\n", w[i], h[i], k, ms[0], ms[1], ms[2],
          ms[3], 8e-6 * w[i] * h[i] / ms[1], 8e-6 * w[i] * h[i] / ms[2],
          8e-6 * w[i] * h[i] / ms[3], ms[1] / ms[0], diff);
      cf_cuda_convolve_plan_free (direct);
      cf_cuda_convolve_plan_free (stencil);
      cf_kernel_free (kern);
    }
    cf_cuda_image_release (&src);
    cf_cuda_image_release (&dst);
    cf_image_free (host);
    cf_image_free (ref);
    cf_image_free (out);
  }
  cudaStreamDestroy (stream);
  return failed;
}
