/* gst-cudaflow — GPU time of the convolution methods, one plan at a time
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gst-cudaflow-conv-bench [--sizes WxH,...] [--ks K,...]
 *       [--methods NAME,...] [--reps N] [--border zero|clamp|reflect|wrap]
 *       [--mode convolution|correlation] [--json FILE] [--markdown FILE]
 *
 * Times cf_cuda_convolve_plan_run () (cuda/convolve.h) on a single-channel
 * float image in pitched device memory, for every size, square kernel side
 * K and method asked for. As in the cudaconvolve element, the plan is made
 * once, outside the timing, and then run frame after frame: 3 warm-up runs,
 * then --reps runs, each bracketed by CUDA events on one stream; the median
 * and the minimum are reported.
 *
 * im2tensor runs the kernel its plan picks (the MMA kernel where the device
 * runs it, else WMMA); im2tensor-wmma, im2tensor-mma (image rows staged
 * in shared memory) and im2tensor-mma-regs (image rows loaded into
 * registers) ask for one of them (cf_cuda_convolve_plan_new_variant ()).
 * Each im2tensor row names the kernel that ran ("variant" in the JSON:
 * wmma, mma or mma-regs; the note in the table).
 *
 * Kernels: a dense random kernel (positive taps, sum 1) for
 * direct, stencil, fft, im2tensor and auto; a sampled Gaussian of sigma K/6 built as
 * an outer product (exactly rank 1) for separable. The time of a method
 * does not depend on the tap values, only on the rank test of plan_new.
 * Each row records its kernel ("random" or "gaussian").
 *
 * A method this build or this kernel cannot serve (CF_ERROR_UNSUPPORTED)
 * gives an "n/a" row with the reason; any other failure gives an "error"
 * row, the run goes on and the exit status is 1. Accuracy is tested by
 * tests/check/cuda/convolve*; this program only times. The vendor
 * baselines on the same sizes are scripts/bench/conv-baselines.py, and
 * scripts/bench/conv-report.py puts both side by side
 * (tests/gpu/conv-measure.sh runs all three).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "args-util.h"
#include "bench-util.h"
#include "common/gaussian.h"
#include "common/kernel.h"
#include "cuda/convolve.h"
#include "cuda/convolve-im2tensor.h"
#include "cuda/cuda-util.h"

#define PROG "gst-cudaflow-conv-bench"
#define MAX_SIZES 16
#define MAX_KS 32
#define MAX_METHODS 12
#define WARMUP_RUNS 3
#define NOTE_MAX 256
#define CHECK_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf (stderr, PROG ": %s failed: %s\n", #call, \
      cudaGetErrorString (e_)); exit (1); } } while (0)

typedef enum
{ ROW_OK, ROW_NA, ROW_ERROR } row_status;

static const char *row_status_names[] = { "ok", "n/a", "error" };

typedef enum
{ KERNEL_RANDOM, KERNEL_GAUSSIAN } kernel_kind;

static const char *kernel_kind_names[] = { "random", "gaussian" };

/* A method as --methods names it: im2tensor with a kernel asked for is a
 * method of its own. */
typedef struct
{
  const char *name;
  cf_conv_method method;
  cf_im2tensor_variant variant;
} bench_method;

static const bench_method all_methods[] = {
  {"direct", CF_CONV_METHOD_DIRECT, CF_IM2TENSOR_VARIANT_AUTO},
  {"stencil", CF_CONV_METHOD_STENCIL, CF_IM2TENSOR_VARIANT_AUTO},
  {"separable", CF_CONV_METHOD_SEPARABLE, CF_IM2TENSOR_VARIANT_AUTO},
  {"fft", CF_CONV_METHOD_FFT, CF_IM2TENSOR_VARIANT_AUTO},
  {"im2tensor", CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_AUTO},
  {"im2tensor-wmma", CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_WMMA},
  {"im2tensor-mma", CF_CONV_METHOD_IM2TENSOR, CF_IM2TENSOR_VARIANT_MMA},
  {"im2tensor-mma-regs", CF_CONV_METHOD_IM2TENSOR,
      CF_IM2TENSOR_VARIANT_MMA_REGS},
  {"auto", CF_CONV_METHOD_AUTO, CF_IM2TENSOR_VARIANT_AUTO},
};

#define N_ALL_METHODS ((int) (sizeof (all_methods) / sizeof (all_methods[0])))

typedef struct
{
  const bench_method *requested;
  cf_conv_method resolved;      /* AUTO when no plan was made */
  cf_im2tensor_variant variant; /* im2tensor's kernel that ran, else AUTO */
  int width, height, k;
  kernel_kind kernel;
  row_status status;
  double median_ms, min_ms;
  char note[NOTE_MAX];
} bench_result;

/* Dense random kernel, taps in [0.05, 1.05) scaled to sum 1 (full rank in
 * general). */
static cf_kernel *
random_kernel (int k)
{
  cf_kernel *kernel = cf_kernel_new (k, k);
  uint32_t state = 0x9e3779b9u ^ (uint32_t) k;
  double sum = 0;
  int i;

  if (kernel == NULL)
    return NULL;
  for (i = 0; i < k * k; i++) {
    kernel->taps[i] = 0.05f + cf_bench_uniform (&state);
    sum += kernel->taps[i];
  }
  for (i = 0; i < k * k; i++)
    kernel->taps[i] = (float) (kernel->taps[i] / sum);
  return kernel;
}

/* Sampled Gaussian of sigma k/6 as the outer product g g^T: rank 1 (an
 * even k takes the first k of 2 (k/2) + 1 taps). */
static cf_kernel *
gaussian_kernel (int k)
{
  cf_kernel *kernel = cf_kernel_new (k, k);
  float *g = malloc ((size_t) (2 * (k / 2) + 1) * sizeof (float));
  int i, j;

  if (kernel == NULL || g == NULL
      || cf_gaussian_taps (k / 6.0f, k / 2, g) != CF_OK) {
    cf_kernel_free (kernel);
    free (g);
    return NULL;
  }
  for (j = 0; j < k; j++)
    for (i = 0; i < k; i++)
      kernel->taps[i + j * k] = g[i] * g[j];
  free (g);
  return kernel;
}

/* Why plan_new refused @method with CF_ERROR_UNSUPPORTED. */
static void
unsupported_reason (const bench_method * method, char *note, size_t n)
{
  switch (method->method) {
    case CF_CONV_METHOD_SEPARABLE:
      snprintf (note, n, "kernel is not rank 1");
      break;
    case CF_CONV_METHOD_STENCIL:
      snprintf (note, n, "stencil serves kernels up to %dx%d",
          CF_CONV_STENCIL_MAX_SIZE, CF_CONV_STENCIL_MAX_SIZE);
      break;
    case CF_CONV_METHOD_FFT:
      snprintf (note, n, "cuFFT could not be loaded: %s",
          cf_cuda_convolve_fft_load_error ());
      break;
    case CF_CONV_METHOD_IM2TENSOR:
      if (method->variant == CF_IM2TENSOR_VARIANT_MMA
          || method->variant == CF_IM2TENSOR_VARIANT_MMA_REGS)
        snprintf (note, n, "the MMA kernel needs compute capability 8.0 "
            "(and a build for it) and a band of at most %d bytes, within "
            "the device's shared memory per block (with the rings of "
            "im2tensor-mma)", CF_IM2TENSOR_MMA_BAND_MAX);
      else
        snprintf (note, n, "no tensor cores (compute capability below "
            "7.0)");
      break;
    default:
      snprintf (note, n, "%s is not implemented in this build",
          method->name);
      break;
  }
}

/* "plan_new: out of memory (cudaErrorMemoryAllocation)" */
static void
error_note (const char *what, cf_status s, char *note, size_t n)
{
  if (cf_cuda_last_error () != cudaSuccess)
    snprintf (note, n, "%s: %s (%s)", what, cf_status_name (s),
        cf_cuda_last_error_name ());
  else
    snprintf (note, n, "%s: %s", what, cf_status_name (s));
}

/* Time one plan on (src, dst); fills r's timing fields or its error. */
static void
run_one (const bench_method * method, const cf_cuda_image * src,
    cf_cuda_image * dst, int k, const cf_convolve_params * base, int reps,
    cudaStream_t stream, bench_result * r)
{
  cf_convolve_params params = *base;
  cf_cuda_convolve_plan *plan = NULL;
  cf_kernel *kernel;
  cf_status s;
  cudaEvent_t a, b;
  double *t;
  int i, warp_columns;

  memset (r, 0, sizeof (*r));
  r->requested = method;
  r->resolved = CF_CONV_METHOD_AUTO;
  r->variant = CF_IM2TENSOR_VARIANT_AUTO;
  r->width = src->width;
  r->height = src->height;
  r->k = k;
  r->kernel = method->method == CF_CONV_METHOD_SEPARABLE ? KERNEL_GAUSSIAN :
      KERNEL_RANDOM;
  kernel = r->kernel == KERNEL_GAUSSIAN ? gaussian_kernel (k) :
      random_kernel (k);
  if (kernel == NULL) {
    r->status = ROW_ERROR;
    snprintf (r->note, NOTE_MAX, "out of host memory for the kernel");
    return;
  }

  params.method = method->method;
  s = cf_cuda_convolve_plan_new_variant (src->width, src->height, kernel,
      &params, method->variant, &plan);
  cf_kernel_free (kernel);
  if (s == CF_ERROR_UNSUPPORTED) {
    r->status = ROW_NA;
    unsupported_reason (method, r->note, NOTE_MAX);
    return;
  } else if (s != CF_OK) {
    r->status = ROW_ERROR;
    error_note ("plan_new", s, r->note, NOTE_MAX);
    return;
  }
  r->resolved = cf_cuda_convolve_plan_method (plan);
  r->variant = cf_cuda_convolve_plan_im2tensor_variant (plan);
  if (method->method == CF_CONV_METHOD_AUTO)
    snprintf (r->note, NOTE_MAX, "resolved to %s",
        cf_conv_method_name (r->resolved));
  else if (r->resolved == CF_CONV_METHOD_IM2TENSOR)
    snprintf (r->note, NOTE_MAX, "%s kernel",
        cf_im2tensor_variant_name (r->variant));
  warp_columns = cf_cuda_convolve_plan_im2tensor_warp_columns (plan);
  if (warp_columns > 0) {
    size_t used = strlen (r->note);

    snprintf (r->note + used, NOTE_MAX - used, "%s%d-column warps",
        used > 0 ? "; " : "", warp_columns);
  }
  if (r->resolved == CF_CONV_METHOD_FFT) {
    int columns, rows, tiles_x = 1, tiles_y = 1;
    size_t used = strlen (r->note);
    const char *sep = used > 0 ? "; " : "";

    if (cf_cuda_convolve_plan_fft_sizes (plan, &columns, &rows)) {
      cf_cuda_convolve_plan_fft_tiles (plan, &tiles_x, &tiles_y);
      if (tiles_x * tiles_y > 1)
        snprintf (r->note + used, NOTE_MAX - used,
            "%s%dx%d tiles of %dx%d transforms", sep, tiles_x, tiles_y,
            columns, rows);
      else
        snprintf (r->note + used, NOTE_MAX - used, "%s%dx%d transforms",
            sep, columns, rows);
    }
  }

  t = calloc (reps, sizeof (double));
  CHECK_CUDA (cudaEventCreate (&a));
  CHECK_CUDA (cudaEventCreate (&b));
  for (i = -WARMUP_RUNS; i < reps; i++) {
    float ms;
    CHECK_CUDA (cudaEventRecord (a, stream));
    s = cf_cuda_convolve_plan_run (plan, src->data, src->pitch, dst->data,
        dst->pitch, stream);
    if (s != CF_OK) {
      /* a refusal at run time is still "this build cannot" */
      r->status = s == CF_ERROR_UNSUPPORTED ? ROW_NA : ROW_ERROR;
      if (s == CF_ERROR_UNSUPPORTED)
        unsupported_reason (method, r->note, NOTE_MAX);
      else
        error_note ("plan_run", s, r->note, NOTE_MAX);
      cudaStreamSynchronize (stream);
      break;
    }
    CHECK_CUDA (cudaEventRecord (b, stream));
    CHECK_CUDA (cudaEventSynchronize (b));
    CHECK_CUDA (cudaEventElapsedTime (&ms, a, b));
    if (i >= 0)
      t[i] = ms;
  }
  if (r->status == ROW_OK) {
    r->median_ms = cf_bench_median (t, reps);
    r->min_ms = t[0];           /* sorted by cf_bench_median () */
  }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  free (t);
  cf_cuda_convolve_plan_free (plan);
}

/* Device planes of one size, filled with reproducible noise. */
static void
alloc_images (int width, int height, cf_cuda_image * src, cf_cuda_image * dst,
    cudaStream_t stream)
{
  cf_image *host = cf_image_new (width, height);
  uint32_t state = 12345u;
  int x, y;

  if (host == NULL) {
    fprintf (stderr, PROG ": out of host memory for %dx%d\n", width,
        height);
    exit (1);
  }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      cf_image_row (host, y)[x] = 255.0f * cf_bench_uniform (&state);
  if (cf_cuda_image_alloc (src, width, height) != CF_OK
      || cf_cuda_image_alloc (dst, width, height) != CF_OK
      || cf_cuda_image_upload (host, src, stream) != CF_OK) {
    fprintf (stderr, PROG ": device images of %dx%d: %s\n", width,
        height, cf_cuda_last_error_name ());
    exit (1);
  }
  CHECK_CUDA (cudaStreamSynchronize (stream));
  cf_image_free (host);
}

static void
json_string (FILE * f, const char *s)
{
  fputc ('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char) *s;
    if (c == '"' || c == '\\')
      fprintf (f, "\\%c", c);
    else if (c < 0x20)
      fprintf (f, "\\u%04x", c);
    else
      fputc (c, f);
  }
  fputc ('"', f);
}

static void
write_json (FILE * f, const char *device, const cf_convolve_params * params,
    int reps, const bench_result * r, int n)
{
  int i;

  fprintf (f, "{\n  \"device\": ");
  json_string (f, device);
  fprintf (f, ",\n  \"tool\": \"" PROG "\",\n  \"border\": \"%s\",\n"
      "  \"mode\": \"%s\",\n  \"warmup\": %d,\n  \"reps\": %d,\n"
      "  \"results\": [\n", cf_border_name (params->border),
      params->mode == CF_CONVOLUTION ? "convolution" : "correlation",
      WARMUP_RUNS, reps);
  for (i = 0; i < n; i++) {
    fprintf (f, "    {\"impl\": \"ours-%s\", \"width\": %d, \"height\": %d, "
        "\"k\": %d, \"kernel\": \"%s\", \"method\": \"%s\", "
        "\"variant\": \"%s\", \"status\": \"%s\", ",
        r[i].requested->name,
        r[i].width, r[i].height, r[i].k, kernel_kind_names[r[i].kernel],
        r[i].status == ROW_OK ? cf_conv_method_name (r[i].resolved) : "",
        r[i].variant != CF_IM2TENSOR_VARIANT_AUTO
        ? cf_im2tensor_variant_name (r[i].variant) : "",
        row_status_names[r[i].status]);
    if (r[i].status == ROW_OK)
      fprintf (f, "\"median_ms\": %.5f, \"min_ms\": %.5f, ", r[i].median_ms,
          r[i].min_ms);
    else
      fprintf (f, "\"median_ms\": null, \"min_ms\": null, ");
    fprintf (f, "\"note\": ");
    json_string (f, r[i].note);
    fprintf (f, "}%s\n", i + 1 < n ? "," : "");
  }
  fprintf (f, "  ]\n}\n");
}

static void
write_markdown (FILE * f, const char *device,
    const cf_convolve_params * params, int reps, const bench_result * r,
    int n)
{
  int i;

  fprintf (f, "Device: %s. Border %s, %s. Median and minimum of %d runs "
      "after %d warm-up runs, CUDA events on one stream; plans made before "
      "timing.\n\n", device, cf_border_name (params->border),
      params->mode == CF_CONVOLUTION ? "convolution" : "correlation", reps,
      WARMUP_RUNS);
  fprintf (f, "| size | K | impl | kernel | median ms | min ms | "
      "Gpx/s | note |\n|---|---|---|---|---|---|---|---|\n");
  for (i = 0; i < n; i++) {
    const bench_result *x = &r[i];
    fprintf (f, "| %dx%d | %d | ours-%s | %s | ", x->width, x->height, x->k,
        x->requested->name, kernel_kind_names[x->kernel]);
    if (x->status == ROW_OK)
      fprintf (f, "%.4f | %.4f | %.2f | %s |\n", x->median_ms, x->min_ms,
          (double) x->width * x->height / (x->median_ms * 1e6), x->note);
    else
      fprintf (f, "%s | – | – | %s |\n", row_status_names[x->status],
          x->note);
  }
}

static int
parse_method (const char *name, const bench_method ** method)
{
  int m;
  for (m = 0; m < N_ALL_METHODS; m++)
    if (!strcmp (name, all_methods[m].name)) {
      *method = &all_methods[m];
      return 1;
    }
  return 0;
}

static int
write_file (const char *path, int json, const char *device,
    const cf_convolve_params * params, int reps, const bench_result * r,
    int n)
{
  FILE *f = fopen (path, "w");
  if (f == NULL) {
    perror (path);
    return 0;
  }
  if (json)
    write_json (f, device, params, reps, r, n);
  else
    write_markdown (f, device, params, reps, r, n);
  return fclose (f) == 0;
}

int
main (int argc, char **argv)
{
  const char *sizes = "4096x4096,1920x1080", *ks = "3,7,15,31,63,127";
  const char *methods = "direct,stencil,separable,fft,im2tensor,auto";
  const char *json_path = NULL, *md_path = NULL;
  int reps = 20, w[MAX_SIZES], h[MAX_SIZES], kv[MAX_KS];
  int n_sizes = 0, n_ks = 0, n_methods = 0, n = 0, failed = 0, i, j, m;
  const bench_method *method[MAX_METHODS];
  /* auto as the element's default precision=auto: im2tensor allowed */
  cf_convolve_params params = { CF_BORDER_ZERO, CF_CONVOLUTION,
    CF_CONV_METHOD_AUTO, 1
  };
  bench_result *results;
  struct cudaDeviceProp prop;
  cudaStream_t stream;
  char device[512];
  char *list, *tok, *save = NULL;

  {
    gchar *sizes_opt = NULL, *ks_opt = NULL, *methods_opt = NULL,
        *reps_opt = NULL, *border_opt = NULL, *mode_opt = NULL,
        *json_opt = NULL, *md_opt = NULL, **rest = NULL;
    gchar *sizes_help = g_strdup_printf ("Image sizes, at most %d (default "
        "4096x4096,1920x1080)", MAX_SIZES);
    gchar *ks_help = g_strdup_printf ("Square kernel sides, 1..%d, at most "
        "%d (default 3,7,15,31,63,127)", CF_KERNEL_MAX_SIZE, MAX_KS);
    gchar *summary = g_strdup_printf ("GPU time of the convolution methods "
        "of cuda/convolve.h on a single-channel\nfloat image, the plan made "
        "once before timing as in cudaconvolve; median\nand minimum of "
        "--reps runs after %d warm-up runs. A markdown table goes to\n"
        "stdout, progress to stderr.", WARMUP_RUNS);
    GOptionEntry entries[] = {
      {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_opt, sizes_help,
          "WxH,..."},
      {"ks", 0, 0, G_OPTION_ARG_STRING, &ks_opt, ks_help, "K,..."},
      {"methods", 0, 0, G_OPTION_ARG_STRING, &methods_opt,
          "direct, stencil, separable, fft, im2tensor, im2tensor-wmma, "
          "im2tensor-mma, im2tensor-mma-regs, auto (default: all but "
          "im2tensor-wmma, im2tensor-mma and im2tensor-mma-regs)",
          "NAME,..."},
      {"reps", 0, 0, G_OPTION_ARG_STRING, &reps_opt,
          "Timed runs per row (default 20)", "N"},
      {"border", 0, 0, G_OPTION_ARG_STRING, &border_opt,
          "zero (default), clamp, reflect or wrap", "NAME"},
      {"mode", 0, 0, G_OPTION_ARG_STRING, &mode_opt,
          "convolution (default) or correlation", "NAME"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &json_opt,
          "Also write the results as JSON (the input of "
          "scripts/bench/conv-report.py)", "FILE"},
      {"markdown", 0, 0, G_OPTION_ARG_FILENAME, &md_opt,
          "Also write the markdown table to FILE", "FILE"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL,
          NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}
    };

    cf_args_parse (cf_args_context_new (PROG, NULL, entries, summary,
            "Exit status: 0 on success, 1 when a row failed, 2 on a usage "
            "error, 77 without\na usable CUDA device.\n\n"
            "Example:\n"
            "  " PROG " --sizes 1920x1080 --ks 3,15,63 --methods direct,fft "
            "\\\n      --json conv.json\n"), PROG, &argc, &argv);
    g_free (sizes_help);
    g_free (ks_help);
    g_free (summary);

    if (rest != NULL && rest[0] != NULL)
      cf_args_usage_error (PROG, "unexpected argument '%s'", rest[0]);
    if (sizes_opt != NULL)
      sizes = sizes_opt;
    if (ks_opt != NULL)
      ks = ks_opt;
    if (methods_opt != NULL)
      methods = methods_opt;
    if (reps_opt != NULL) {
      char *end;
      long r = strtol (reps_opt, &end, 10);
      if (end == reps_opt || *end != '\0' || r < 1 || r > INT_MAX)
        cf_args_usage_error (PROG, "bad --reps '%s' (1 or more)", reps_opt);
      reps = (int) r;
    }
    if (border_opt != NULL) {
      for (j = 0; j < CF_BORDER_COUNT
          && strcmp (border_opt, cf_border_name ((cf_border) j)); j++);
      if (j == CF_BORDER_COUNT)
        cf_args_usage_error (PROG, "unknown border '%s' (zero, clamp, "
            "reflect or wrap)", border_opt);
      params.border = (cf_border) j;
    }
    if (mode_opt != NULL) {
      if (!strcmp (mode_opt, "convolution"))
        params.mode = CF_CONVOLUTION;
      else if (!strcmp (mode_opt, "correlation"))
        params.mode = CF_CORRELATION;
      else
        cf_args_usage_error (PROG, "unknown mode '%s' (convolution or "
            "correlation)", mode_opt);
    }
    json_path = json_opt;
    md_path = md_opt;
  }

  n_sizes = cf_args_parse_sizes (PROG, "--sizes", sizes, w, h, MAX_SIZES);
  list = strdup (ks);
  for (tok = strtok_r (list, ",", &save); tok;
      tok = strtok_r (NULL, ",", &save)) {
    char *end;
    long k = strtol (tok, &end, 10);
    if (n_ks == MAX_KS || *end || k < 1 || k > CF_KERNEL_MAX_SIZE)
      cf_args_usage_error (PROG, "bad kernel side '%s' (1..%d, at most %d "
          "values)", tok, CF_KERNEL_MAX_SIZE, MAX_KS);
    kv[n_ks++] = (int) k;
  }
  free (list);
  list = strdup (methods);
  for (tok = strtok_r (list, ",", &save); tok;
      tok = strtok_r (NULL, ",", &save)) {
    if (n_methods == MAX_METHODS || !parse_method (tok, &method[n_methods]))
      cf_args_usage_error (PROG, "unknown method '%s' (direct, stencil, "
          "separable, fft, im2tensor, im2tensor-wmma, im2tensor-mma, "
          "im2tensor-mma-regs or auto, at most %d)", tok, MAX_METHODS);
    n_methods++;
  }
  free (list);
  if (n_sizes == 0 || n_ks == 0 || n_methods == 0)
    cf_args_usage_error (PROG, "empty --sizes, --ks or --methods");

  if (!cf_cuda_device_available ()) {
    fprintf (stderr, PROG ": no usable CUDA device\n");
    return 77;
  }
  CHECK_CUDA (cudaGetDeviceProperties (&prop, 0));
  snprintf (device, sizeof (device), "%s (%d SMs)", prop.name,
      prop.multiProcessorCount);
  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));

  results = calloc ((size_t) n_sizes * n_ks * n_methods,
      sizeof (bench_result));
  for (i = 0; i < n_sizes; i++) {
    cf_cuda_image src, dst;
    alloc_images (w[i], h[i], &src, &dst, stream);
    for (j = 0; j < n_ks; j++)
      for (m = 0; m < n_methods; m++) {
        bench_result *r = &results[n++];
        run_one (method[m], &src, &dst, kv[j], &params, reps, stream, r);
        if (r->status == ROW_OK)
          fprintf (stderr, "%-16s %5dx%-5d K=%-4d %10.4f ms (min %.4f) %s\n",
              method[m]->name, w[i], h[i], kv[j],
              r->median_ms, r->min_ms, r->note);
        else
          fprintf (stderr, "%-16s %5dx%-5d K=%-4d %10s    %s\n",
              method[m]->name, w[i], h[i], kv[j],
              row_status_names[r->status], r->note);
        if (r->status == ROW_ERROR)
          failed = 1;
      }
    cf_cuda_image_release (&src);
    cf_cuda_image_release (&dst);
  }
  cudaStreamDestroy (stream);

  write_markdown (stdout, device, &params, reps, results, n);
  if (md_path && !write_file (md_path, 0, device, &params, reps, results, n))
    failed = 1;
  if (json_path && !write_file (json_path, 1, device, &params, reps, results,
          n))
    failed = 1;
  free (results);
  return failed;
}
