/* gst-cudaflow — GPU time of TV-L1's temporal blocking against FUSED
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   cf-tvl1-blocking-bench [--sizes WxH,...] [--runs N] [--iterations N]
 *                          [--levels N] [--precision fp32|fp16] [--no-pdl]
 *                          [--rows R,...]
 *
 * Times cf_cuda_tvl1_plan_run alone (CUDA events around it, median of
 * --runs runs after 3 warm-ups) with the romera preset's parameters (3
 * levels x 1 warp x --iterations, default 10; ε = 0; --levels changes
 * the pyramid) for FUSED, for BLOCKED with the plan's default shape (T
 * and the tile height chosen per level and launch) and for BLOCKED with
 * T = 1 ... CF_TVL1_MAX_BLOCK_ITERATIONS: with the tile height chosen
 * per launch ("auto") and on 32 x 16, 64 x 32, 64 x 48 and 64 x 64 tiles
 * everywhere (--rows: some of these heights), in fp32 or fp16 plans;
 * --no-pdl launches a warp's BLOCKED
 * launches without programmatic dependent launch. The pyramids are built
 * once, as gst-cudaflow-flow-bench builds them: a synthetic pair
 * (common/synth) rounded to 8 bits, TV-L1's presmoothing,
 * cf_cuda_pyramid_build. Each
 * BLOCKED flow is compared with FUSED's bit for bit. Prints a markdown
 * table (ms per solve) on stdout; exit status 1 when a flow differs, 77
 * without a CUDA device.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "args-util.h"
#include "bench-util.h"
#include "common/synth.h"
#include "common/tvl1.h"
#include "cuda/cuda-util.h"
#include "cuda/flow.h"
#include "cuda/pyramid.h"
#include "cuda/tvl1.h"

#define PROG "cf-tvl1-blocking-bench"
#define MAX_SIZES 16
#define WARMUP_RUNS 3
#define MAX_ROWS 5
#define CHECK(call) do { cf_status s_ = (call); if (s_ != CF_OK) { \
  fprintf (stderr, "cf-tvl1-blocking-bench: %s failed: %s (%s)\n", #call, \
      cf_status_name (s_), cf_cuda_last_error_name ()); exit (1); } } while (0)
#define CHECK_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf (stderr, "cf-tvl1-blocking-bench: %s failed: %s\n", #call, \
      cudaGetErrorString (e_)); exit (1); } } while (0)

/* The columns of each T: 0 (per launch, the plans' default), then the
 * fixed tile heights (--rows) */
static int tile_rows[MAX_ROWS] = { 0, 16, 32, 48, 64 };
static int n_rows = MAX_ROWS;

/* @image rounded to 8 bits and clamped, as an 8-bit frame's luma */
static void
round_to_8bit (cf_image * image)
{
  int x, y;

  for (y = 0; y < image->height; y++) {
    float *row = cf_image_row (image, y);
    for (x = 0; x < image->width; x++) {
      float v = (float) (int) (row[x] + 0.5f);
      row[x] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
  }
}

/* Median ms of one plan_run over @runs runs; the flow of the last one is
 * left in @flow. */
static double
time_runs (cf_cuda_tvl1_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_tvl1_params * params,
    cf_cuda_flow * flow, int runs, cudaStream_t stream)
{
  cudaEvent_t a, b;
  double *t = calloc (runs, sizeof (double));
  double m;
  int i;

  CHECK_CUDA (cudaEventCreate (&a));
  CHECK_CUDA (cudaEventCreate (&b));
  for (i = -WARMUP_RUNS; i < runs; i++) {
    float ms;
    CHECK_CUDA (cudaEventRecord (a, stream));
    CHECK (cf_cuda_tvl1_plan_run (plan, p0, p1, params, 0, flow, stream));
    CHECK_CUDA (cudaEventRecord (b, stream));
    CHECK_CUDA (cudaEventSynchronize (b));
    CHECK_CUDA (cudaEventElapsedTime (&ms, a, b));
    if (i >= 0)
      t[i] = ms;
  }
  m = cf_bench_median (t, runs);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  free (t);
  return m;
}

/* 1 when two device flows of one size hold the same bits */
static int
same_bits (const cf_cuda_flow * a, const cf_cuda_flow * b)
{
  cf_flow *ha = cf_flow_new (a->width, a->height);
  cf_flow *hb = cf_flow_new (b->width, b->height);
  int same = 1, y;

  CHECK (cf_cuda_flow_download (a, ha, 0));
  CHECK (cf_cuda_flow_download (b, hb, 0));
  CHECK_CUDA (cudaDeviceSynchronize ());
  for (y = 0; y < ha->height && same; y++)
    same = !memcmp (ha->u + (size_t) y * ha->pitch,
        hb->u + (size_t) y * hb->pitch, ha->width * sizeof (float)) &&
        !memcmp (ha->v + (size_t) y * ha->pitch,
        hb->v + (size_t) y * hb->pitch, ha->width * sizeof (float));
  cf_flow_free (ha);
  cf_flow_free (hb);
  return same;
}

/* One size: FUSED, then BLOCKED per T and tile height; one table row. */
static int
bench_size (int width, int height, int iterations, int levels, int runs,
    cf_precision precision, int pdl)
{
  double ms[CF_TVL1_MAX_BLOCK_ITERATIONS + 1][MAX_ROWS], fused_ms, best;
  double default_ms;
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL;
  cf_pyramid_params pp;
  cf_cuda_pyramid pyr[2];
  cf_cuda_flow ref, flow;
  cf_tvl1_params params;
  cf_cuda_tvl1_plan *fused = NULL, *blocked = NULL;
  cudaStream_t stream;
  int t, r, best_t = 0, best_r = 0, identical = 1, default_t;

  cf_synth_params_init (&sp);
  CHECK (cf_synth_pair (width, height, &sp, &f0, &f1, &truth));
  round_to_8bit (f0);
  round_to_8bit (f1);

  /* the romera preset: IPOL's model and linearisation */
  cf_tvl1_params_init_ipol (&params);
  params.warps = 1;
  params.max_iterations = iterations;
  params.epsilon = 0.0f;
  cf_pyramid_params_init (&pp);
  pp.max_levels = levels;
  cf_tvl1_prepare_pyramid_params (&params, &pp);

  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  memset (pyr, 0, sizeof (pyr));
  CHECK (cf_cuda_pyramid_alloc (&pyr[0], width, height, &pp));
  CHECK (cf_cuda_pyramid_alloc (&pyr[1], width, height, &pp));
  CHECK (cf_cuda_image_upload (f0, &pyr[0].level[0], stream));
  CHECK (cf_cuda_image_upload (f1, &pyr[1].level[0], stream));
  CHECK (cf_cuda_pyramid_build (&pyr[0], &pp, stream));
  CHECK (cf_cuda_pyramid_build (&pyr[1], &pp, stream));
  CHECK (cf_cuda_flow_alloc (&ref, width, height));
  CHECK (cf_cuda_flow_alloc (&flow, width, height));
  CHECK (cf_cuda_tvl1_plan_new (width, height, precision,
          CF_TVL1_KERNEL_FUSED, &fused));
  CHECK (cf_cuda_tvl1_plan_new (width, height, precision,
          CF_TVL1_KERNEL_BLOCKED, &blocked));
  CHECK (cf_cuda_tvl1_plan_set_pdl (blocked, pdl));

  fused_ms = time_runs (fused, &pyr[0], &pyr[1], &params, &ref, runs,
      stream);
  best = fused_ms;
  /* the plan's default shape: T and the tile height chosen per level */
  default_t = cf_cuda_tvl1_plan_blocked_iterations (blocked, width, height);
  default_ms = time_runs (blocked, &pyr[0], &pyr[1], &params, &flow, runs,
      stream);
  if (!same_bits (&flow, &ref)) {
    fprintf (stderr, "cf-tvl1-blocking-bench: %dx%d default shape: flow "
        "differs from FUSED\n", width, height);
    identical = 0;
  }
  for (t = 1; t <= CF_TVL1_MAX_BLOCK_ITERATIONS; t++)
    for (r = 0; r < n_rows; r++) {
      ms[t][r] = -1.0;
      /* a 16-row tile keeps no interior beyond 7 iterations */
      if (tile_rows[r] == 16 && 16 - 2 * t < 1)
        continue;
      CHECK (cf_cuda_tvl1_plan_set_blocking (blocked, t, tile_rows[r]));
      ms[t][r] = time_runs (blocked, &pyr[0], &pyr[1], &params, &flow, runs,
          stream);
      if (!same_bits (&flow, &ref)) {
        fprintf (stderr, "cf-tvl1-blocking-bench: %dx%d T=%d rows=%d: "
            "flow differs from FUSED\n", width, height, t, tile_rows[r]);
        identical = 0;
      }
      if (ms[t][r] < best) {
        best = ms[t][r];
        best_t = t;
        best_r = r;
      }
    }

  printf ("| %dx%d | %.3f | %.3f (T=%d) |", width, height, fused_ms,
      default_ms, default_t);
  for (t = 1; t <= CF_TVL1_MAX_BLOCK_ITERATIONS; t++)
    for (r = 0; r < n_rows; r++) {
      if (ms[t][r] < 0.0)
        printf (r == 0 ? " -" : " / -");
      else
        printf (r == 0 ? " %.3f" : " / %.3f", ms[t][r]);
      printf (r == n_rows - 1 ? " |" : "");
    }
  if (best_t > 0 && tile_rows[best_r] == 0)
    printf (" T=%d, auto rows (%.2fx) |\n", best_t, fused_ms / best);
  else if (best_t > 0)
    printf (" T=%d, %d rows (%.2fx) |\n", best_t, tile_rows[best_r],
        fused_ms / best);
  else
    printf (" FUSED |\n");
  fflush (stdout);

  cf_cuda_tvl1_plan_free (fused);
  cf_cuda_tvl1_plan_free (blocked);
  cf_cuda_flow_release (&ref);
  cf_cuda_flow_release (&flow);
  cf_cuda_pyramid_release (&pyr[0]);
  cf_cuda_pyramid_release (&pyr[1]);
  cudaStreamDestroy (stream);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  return identical;
}

int
main (int argc, char **argv)
{
  const char *sizes = "1280x720,1920x1080,3840x2160";
  int runs = 20, iterations = 10, levels = 3, w[MAX_SIZES], h[MAX_SIZES];
  int n_sizes = 0;
  gboolean no_pdl = FALSE;
  cf_precision precision = CF_PRECISION_FP32;
  int i, t, ok = 1;
  struct cudaDeviceProp prop;

  {
    gchar *sizes_opt = NULL, *runs_opt = NULL, *iter_opt = NULL,
        *levels_opt = NULL, *precision_opt = NULL, *rows_opt = NULL,
        **rest = NULL;
    GOptionEntry entries[] = {
      {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_opt,
          "Frame sizes (default 1280x720,1920x1080,3840x2160)", "WxH,..."},
      {"runs", 0, 0, G_OPTION_ARG_STRING, &runs_opt,
          "Timed runs per cell, after 3 warm-ups (default 20)", "N"},
      {"iterations", 0, 0, G_OPTION_ARG_STRING, &iter_opt,
          "Iterations per level (default 10; 3 levels x 1 warp, epsilon 0)",
          "N"},
      {"levels", 0, 0, G_OPTION_ARG_STRING, &levels_opt,
          "Pyramid levels at most (default 3)", "N"},
      {"no-pdl", 0, 0, G_OPTION_ARG_NONE, &no_pdl,
          "BLOCKED launches without programmatic dependent launch", NULL},
      {"precision", 0, 0, G_OPTION_ARG_STRING, &precision_opt,
          "fp32 (default) or fp16 plans", "NAME"},
      {"rows", 0, 0, G_OPTION_ARG_STRING, &rows_opt,
          "Fixed tile heights to time besides auto (default 16,32,48,64)",
          "R,..."},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL,
          NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}
    };
    const char *v[3];
    const char *names[3] = { "runs", "iterations", "levels" };
    int *dst[3] = { &runs, &iterations, &levels }, k;

    cf_args_parse (cf_args_context_new (PROG, NULL, entries,
            "GPU time of cf_cuda_tvl1_plan_run with TV-L1's romera "
            "parameters, FUSED\nagainst BLOCKED with T = 1 ... "
            "CF_TVL1_MAX_BLOCK_ITERATIONS, the tile height chosen per "
            "launch (auto)\nand 32x16, 64x32, 64x48 and 64x64 tiles; each "
            "BLOCKED "
            "flow is compared with\nFUSED's bit for bit. A markdown table "
            "(median ms per solve) goes to stdout.",
            "Exit status: 0 on success, 1 when a flow differs, 2 on a usage "
            "error, 77\nwithout a usable CUDA device.\n\n"
            "Example:\n"
            "  " PROG " --sizes 1920x1080 --runs 50 --precision fp16\n"),
        PROG, &argc, &argv);
    if (rest != NULL && rest[0] != NULL)
      cf_args_usage_error (PROG, "unexpected argument '%s'", rest[0]);
    if (sizes_opt != NULL)
      sizes = sizes_opt;
    v[0] = runs_opt;
    v[1] = iter_opt;
    v[2] = levels_opt;
    for (k = 0; k < 3; k++) {
      char *end;
      long n;

      if (v[k] == NULL)
        continue;
      n = strtol (v[k], &end, 10);
      if (end == v[k] || *end != '\0' || n < 1 || n > INT_MAX)
        cf_args_usage_error (PROG, "bad --%s '%s' (1 or more)", names[k],
            v[k]);
      *dst[k] = (int) n;
    }
    if (rows_opt != NULL) {
      gchar **parts = g_strsplit (rows_opt, ",", -1);

      n_rows = 1;
      for (k = 0; parts[k] != NULL; k++) {
        char *end;
        const long n = strtol (parts[k], &end, 10);

        if (end == parts[k] || *end != '\0' || n < 1 || n > 64 ||
            !cf_cuda_tvl1_tile_rows_valid ((int) n) || n_rows == MAX_ROWS)
          cf_args_usage_error (PROG, "bad --rows '%s' (up to four of 16, "
              "32, 48, 64)", rows_opt);
        tile_rows[n_rows++] = (int) n;
      }
      g_strfreev (parts);
    }
    if (precision_opt != NULL) {
      if (!strcmp (precision_opt, "fp16"))
        precision = CF_PRECISION_FP16;
      else if (strcmp (precision_opt, "fp32") != 0)
        cf_args_usage_error (PROG, "unknown precision '%s' (fp32 or fp16)",
            precision_opt);
    }
  }
  if (levels > CF_PYRAMID_MAX_LEVELS)
    cf_args_usage_error (PROG, "bad --levels %d (1 ... %d)", levels,
        CF_PYRAMID_MAX_LEVELS);
  n_sizes = cf_args_parse_sizes (PROG, "--sizes", sizes, w, h, MAX_SIZES);
  if (!cf_cuda_device_available ()) {
    fprintf (stderr, PROG ": no usable CUDA device\n");
    return 77;
  }
  CHECK_CUDA (cudaGetDeviceProperties (&prop, 0));

  printf ("%s (%d SMs); %s plan_run, %d levels at most x 1 warp x %d "
      "iterations, epsilon 0; median ms of %d runs; BLOCKED cells: auto",
      prop.name, prop.multiProcessorCount, precision == CF_PRECISION_FP16 ?
      "fp16" : "fp32", levels, iterations, runs);
  for (i = 1; i < n_rows; i++)
    printf (" / %dx%d", tile_rows[i] == 16 ? 32 : 64, tile_rows[i]);
  printf (" tiles%s\n\n", no_pdl ? "; no PDL" : "");
  printf ("| size | FUSED | default (T of level 0) |");
  for (t = 1; t <= CF_TVL1_MAX_BLOCK_ITERATIONS; t++)
    printf (" T=%d |", t);
  printf (" fastest |\n|---|---|---|");
  for (t = 1; t <= CF_TVL1_MAX_BLOCK_ITERATIONS; t++)
    printf ("---|");
  printf ("---|\n");
  for (i = 0; i < n_sizes; i++)
    ok &= bench_size (w[i], h[i], iterations, levels, runs, precision,
        !no_pdl);
  return ok ? 0 : 1;
}
