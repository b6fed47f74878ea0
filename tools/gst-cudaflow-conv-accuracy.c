/* gst-cudaflow — accuracy of the convolution methods against float64
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gst-cudaflow-conv-accuracy [--size WxH] [--ks K,...] [--border NAME]
 *       [--markdown FILE]
 *
 * The protocol of Seznec et al. 2022 (im2tensor, §4.1): image and kernel
 * taps uniform in [0, 1), 'same' correlation, per-pixel relative error
 * against a float64 reference (cf_convolve_f64 (), summed in double and
 * never rounded), its median and maximum (cf_relative_error ()). The dense
 * kernel goes through direct, fft and im2tensor; separable gets a rank-1
 * kernel c r^T with c, r in [0, 1) (and direct runs it too, for scale).
 *
 * Prints a markdown table (also to --markdown FILE). Exit 77 without a
 * GPU, 1 on any failure. tests/check/cuda/convolve-methods.c asserts
 * bounds on the same measurements (test_accuracy_against_float64).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "args-util.h"
#include "bench-util.h"
#include "common/convolve.h"
#include "common/kernel.h"
#include "cuda/convolve.h"
#include "cuda/cuda-util.h"

#define PROG "gst-cudaflow-conv-accuracy"
#define MAX_KS 32

static void
fill_uniform (float *v, size_t n, uint32_t seed)
{
  size_t i;

  for (i = 0; i < n; i++)
    v[i] = cf_bench_uniform (&seed);
}

/* c r^T with c, r in [0, 1): exactly rank 1 in float up to one rounding
 * per tap, which plan_new's rank test tolerates */
static cf_kernel *
rank1_kernel (int k, uint32_t seed)
{
  cf_kernel *kernel = cf_kernel_new (k, k);
  float *c = malloc (2 * (size_t) k * sizeof (float));
  int i, j;

  if (kernel == NULL || c == NULL) {
    cf_kernel_free (kernel);
    free (c);
    return NULL;
  }
  fill_uniform (c, 2 * (size_t) k, seed);
  for (j = 0; j < k; j++)
    for (i = 0; i < k; i++)
      kernel->taps[i + (size_t) j * k] = c[j] * c[k + i];
  free (c);
  return kernel;
}

/* One method on the GPU, its relative errors against ref. */
static cf_status
measure (const cf_image * src, const cf_kernel * kernel,
    const cf_convolve_params * params, const double *ref,
    cf_relative_error_stats * st)
{
  cf_cuda_convolve_plan *plan = NULL;
  cf_cuda_image dsrc = { 0 }, ddst = { 0 };
  cf_image *out = cf_image_new (src->width, src->height);
  cf_status s = out == NULL ? CF_ERROR_NO_MEMORY : CF_OK;

  if (s == CF_OK)
    s = cf_cuda_convolve_plan_new (src->width, src->height, kernel, params,
        &plan);
  if (s == CF_OK)
    s = cf_cuda_image_alloc (&dsrc, src->width, src->height);
  if (s == CF_OK)
    s = cf_cuda_image_alloc (&ddst, src->width, src->height);
  if (s == CF_OK)
    s = cf_cuda_image_upload (src, &dsrc, 0);
  if (s == CF_OK)
    s = cf_cuda_convolve_plan_run (plan, dsrc.data, dsrc.pitch, ddst.data,
        ddst.pitch, 0);
  if (s == CF_OK)
    s = cf_cuda_image_download (&ddst, out, 0);
  if (s == CF_OK && cudaStreamSynchronize (0) != cudaSuccess)
    s = CF_ERROR_CUDA;
  if (s == CF_OK)
    s = cf_relative_error (out, ref, (size_t) src->width, st);
  cf_cuda_convolve_plan_free (plan);
  cf_cuda_image_release (&dsrc);
  cf_cuda_image_release (&ddst);
  cf_image_free (out);
  return s;
}

static int
parse_ks (const char *s, int *ks)
{
  int n = 0;
  char *end;

  while (*s && n < MAX_KS) {
    long k = strtol (s, &end, 10);

    if (end == s || k < 1 || k > CF_KERNEL_MAX_SIZE)
      return -1;
    ks[n++] = (int) k;
    s = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0')
      return -1;
  }
  return n;
}

int
main (int argc, char **argv)
{
  int width = 384, height = 256, ks[MAX_KS] = { 3, 7, 15, 31, 63, 127 };
  int nk = 6, a, ki, failed = 0, devices = 0;
  cf_border border = CF_BORDER_ZERO;
  const char *md_path = NULL;
  FILE *md = NULL;
  cf_image *src;
  double *ref_dense, *ref_rank1;
  gchar *size_opt = NULL, *ks_opt = NULL, *border_opt = NULL,
      *md_opt = NULL, **rest = NULL, *ks_help;
  GOptionEntry entries[] = {
    {"size", 0, 0, G_OPTION_ARG_STRING, &size_opt,
        "Image size (default 384x256)", "WxH"},
    {"ks", 0, 0, G_OPTION_ARG_STRING, &ks_opt, NULL, "K,..."},
    {"border", 0, 0, G_OPTION_ARG_STRING, &border_opt,
        "zero (default), clamp, reflect or wrap", "NAME"},
    {"markdown", 0, 0, G_OPTION_ARG_FILENAME, &md_opt,
        "Also write the table to FILE", "FILE"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };

  ks_help = g_strdup_printf ("Square kernel sides, 1..%d, at most %d "
      "(default 3,7,15,31,63,127)", CF_KERNEL_MAX_SIZE, MAX_KS);
  entries[1].description = ks_help;
  cf_args_parse (cf_args_context_new (PROG, NULL, entries,
          "Relative error of each convolution method of cuda/convolve.h "
          "against a\nfloat64 reference: image and kernel taps uniform in "
          "[0, 1), 'same'\ncorrelation; the median and maximum per-pixel "
          "error of direct, fft and\nim2tensor on a dense kernel, of direct "
          "and separable on a rank-1 one.\nA markdown table goes to stdout.",
          "Exit status: 0 on success, 1 on a failure, 2 on a usage error, 77 "
          "without a\nCUDA device.\n\n"
          "Example:\n"
          "  " PROG " --size 1920x1080 --ks 3,31 --markdown accuracy.md\n"),
      PROG, &argc, &argv);
  g_free (ks_help);

  if (rest != NULL && rest[0] != NULL)
    cf_args_usage_error (PROG, "unexpected argument '%s'", rest[0]);
  if (size_opt != NULL && (sscanf (size_opt, "%dx%d", &width, &height) != 2
          || width < 1 || height < 1))
    cf_args_usage_error (PROG, "bad --size '%s' (WxH)", size_opt);
  if (ks_opt != NULL && (nk = parse_ks (ks_opt, ks)) < 1)
    cf_args_usage_error (PROG, "bad --ks '%s' (1..%d, at most %d "
        "values)", ks_opt, CF_KERNEL_MAX_SIZE, MAX_KS);
  if (border_opt != NULL) {
    for (border = 0; border < CF_BORDER_COUNT; border++)
      if (!strcmp (border_opt, cf_border_name (border)))
        break;
    if (border == CF_BORDER_COUNT)
      cf_args_usage_error (PROG, "unknown border '%s' (zero, clamp, "
          "reflect or wrap)", border_opt);
  }
  md_path = md_opt;
  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices < 1) {
    fprintf (stderr, PROG ": no CUDA device\n");
    return 77;
  }

  src = cf_image_new (width, height);
  ref_dense = malloc ((size_t) width * height * sizeof (double));
  ref_rank1 = malloc ((size_t) width * height * sizeof (double));
  if (src == NULL || ref_dense == NULL || ref_rank1 == NULL) {
    fprintf (stderr, PROG ": out of memory\n");
    return 1;
  }
  for (a = 0; a < height; a++)
    fill_uniform (cf_image_row (src, a), (size_t) width, 1000u + a);
  if (md_path != NULL && (md = fopen (md_path, "w")) == NULL) {
    perror (md_path);
    return 1;
  }

#define OUT(...) do { printf (__VA_ARGS__); if (md) fprintf (md, __VA_ARGS__); } while (0)
  OUT ("Relative error against float64, %dx%d image and kernel taps in "
      "[0, 1), %s border, correlation (" PROG ").\n\n"
      "| K | method | kernel | precision | median | max |\n"
      "|---|---|---|---|---|---|\n", width, height, cf_border_name (border));
  for (ki = 0; ki < nk; ki++) {
    const int k = ks[ki];
    cf_kernel *dense = cf_kernel_new (k, k), *rank1 = rank1_kernel (k, 77u + k);
    static const struct
    {
      cf_conv_method method;
      int rank1;
    } runs[] = {
      {CF_CONV_METHOD_DIRECT, 0}, {CF_CONV_METHOD_FFT, 0},
      {CF_CONV_METHOD_IM2TENSOR, 0}, {CF_CONV_METHOD_DIRECT, 1},
      {CF_CONV_METHOD_SEPARABLE, 1},
    };
    size_t r;

    if (dense == NULL || rank1 == NULL) {
      fprintf (stderr, PROG ": out of memory\n");
      return 1;
    }
    fill_uniform (dense->taps, (size_t) k * k, 55u + k);
    if (cf_convolve_f64 (src, dense, border, CF_CORRELATION, ref_dense,
            (size_t) width) != CF_OK
        || cf_convolve_f64 (src, rank1, border, CF_CORRELATION, ref_rank1,
            (size_t) width) != CF_OK) {
      fprintf (stderr, PROG ": reference failed\n");
      return 1;
    }
    for (r = 0; r < sizeof (runs) / sizeof (runs[0]); r++) {
      const cf_convolve_params params = { border, CF_CORRELATION,
        runs[r].method, 0
      };
      cf_relative_error_stats st;
      cf_status s = measure (src, runs[r].rank1 ? rank1 : dense, &params,
          runs[r].rank1 ? ref_rank1 : ref_dense, &st);
      const char *name = cf_conv_method_name (runs[r].method);
      const char *prec = runs[r].method == CF_CONV_METHOD_IM2TENSOR
          ? "fp16 in, fp32 sums" : "fp32";

      if (s == CF_OK) {
        OUT ("| %d | %s | %s | %s | %.2e | %.2e |\n", k, name,
            runs[r].rank1 ? "rank 1" : "dense", prec, st.median, st.max);
      } else {
        OUT ("| %d | %s | %s | %s | %s | |\n", k, name,
            runs[r].rank1 ? "rank 1" : "dense", prec, cf_status_name (s));
        failed = s != CF_ERROR_UNSUPPORTED;
      }
    }
    cf_kernel_free (dense);
    cf_kernel_free (rank1);
  }
#undef OUT
  if (md)
    fclose (md);
  cf_image_free (src);
  free (ref_dense);
  free (ref_rank1);
  return failed ? 1 : 0;
}
