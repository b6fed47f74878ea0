/* gst-cudaflow — GPU time per frame and per stage of the flow methods
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gst-cudaflow-flow-bench [--sizes WxH,...] [--frames N]
 *       [--config NAME,...] [--clg-depth K,...] [--hs-kernel NICK,...]
 *       [--hs-geometry NAME,...] [--hs-pdl 1,0] [--json FILE]
 *       [--markdown FILE]
 *
 * Runs the same sequence of calls as the flow elements' GPU path on one
 * stream, frame after frame (tools/flow-bench-core.h, which
 * gst-cudaflow-flow-frontier shares): luma, pyramid, solve and output,
 * each bracketed by CUDA events; medians over --frames frames after 3
 * warm-up frames. "solve" is split further into the iterations and the
 * work around them (a second plan without its iterations), which gives
 * "ns/px-it" and a bandwidth figure from the unfused fp32 traffic models
 * of docs/flow-speed.md; with TV-L1's epsilon > 0 the iteration count
 * depends on the data, the "iterations" column gives it and the
 * per-iteration figures are left out.
 *
 * --clg-depth K,... runs every fused CLG configuration once per FUSED
 * depth K (3 .. 8, 0 = the plan's default; cf_cuda_clg_plan_set_fused_depth) and
 * adds a table of depth against ms per frame and per Jacobi sweep (the
 * iterations' time over the sweeps of all levels).
 *
 * --hs-kernel NICK,... runs every Horn-Schunck configuration once per
 * Jacobi kernel (auto, simple, fused, fused-db: cudaflowhs'
 * jacobi-kernel; stream: CF_HS_KERNEL_STREAM, not offered by the element
 * yet), in place of the table's, and --hs-geometry NAME,...
 * every such run of fused-db (or auto) once per region geometry (auto,
 * 32x32-k8, 64x64-k8, ...; all: auto and every geometry cuda/hs has;
 * cf_cuda_hs_plan_set_geometry), and --hs-pdl
 * 1,0 with and without programmatic dependent launch
 * (cf_cuda_hs_plan_set_pdl): old and new kernels side by side in one
 * binary (tests/gpu/hs-speed.sh).
 *
 * The configurations are a fixed table (--help lists them) on top of
 * common/'s defaults; gst-cudaflow-flow-frontier instead reads them from
 * an element's properties.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args-util.h"
#include "flow-bench-core.h"
#include "cuda/clg.h"
#include "cuda/hs.h"
#include "cuda/tvl1.h"

#define PROG "gst-cudaflow-flow-bench"
#define MAX_SIZES 16
#define MAX_DEPTHS 16
#define MAX_HS_VARIANTS 64

typedef struct
{
  const char *name;
  const char *description;
  cf_flow_method method;
  int levels;
  int warps;
  int iterations;               /* per level and warp (TV-L1: the cap) */
  float alpha;                  /* HS, CLG */
  cf_precision precision;
  int kernel;                   /* cf_hs_kernel, cf_tvl1_kernel, cf_clg_kernel */
  float epsilon;                /* TV-L1 */
  const char *per_level;        /* CLG iterations-per-level, or NULL */
  const char *preset;           /* TV-L1: a preset of cudaflowtvl1 applied
                                 * over the fields above, or NULL */
} bench_config;

/* alpha on 0..255 intensities: 51 = cuda-samples' 0.2 on [0, 1]. */
static const bench_config configs[] = {
  {"hs-cuda-samples", "cudaflowhs preset=cuda-samples (5 levels x 3 warps "
        "x 500 iterations, fused Jacobi)", CF_FLOW_METHOD_HS, 5, 3, 500,
      51.0f, CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-cuda-samples-fp16", "the same, precision=fp16", CF_FLOW_METHOD_HS,
      5, 3, 500, 51.0f, CF_PRECISION_FP16, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-cuda-samples-simple", "the same, jacobi-kernel=simple (one sweep "
        "per launch)", CF_FLOW_METHOD_HS, 5, 3, 500, 51.0f,
      CF_PRECISION_FP32, CF_HS_KERNEL_SIMPLE, 0, NULL, NULL},
  {"hs-default", "cudaflowhs defaults (5 levels x 1 warp x 500 "
        "iterations)", CF_FLOW_METHOD_HS, 5, 1, 500, 15.0f,
      CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-fast", "cudaflowhs preset=fast (6 levels x 1 warp x 20 "
        "iterations)", CF_FLOW_METHOD_HS, 6, 1, 20, 15.0f,
      CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-fast-fp16", "the same, precision=fp16", CF_FLOW_METHOD_HS, 6, 1, 20,
      15.0f, CF_PRECISION_FP16, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-balanced", "cudaflowhs preset=balanced, the defaults (6 levels x 1 "
        "warp x 50 iterations)", CF_FLOW_METHOD_HS, 6, 1, 50, 15.0f,
      CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-balanced-fp16", "the same, precision=fp16", CF_FLOW_METHOD_HS, 6, 1,
      50, 15.0f, CF_PRECISION_FP16, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-one-level", "Horn-Schunck on one level (1 warp x 504 iterations): "
        "the sweeps at one size, for region geometries", CF_FLOW_METHOD_HS,
      1, 1, 504, 15.0f, CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-one-level-fp16", "the same, precision=fp16", CF_FLOW_METHOD_HS, 1, 1,
      504, 15.0f, CF_PRECISION_FP16, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-realtime", "cudaflowhs preset=romera (3 levels x 1 warp x 10 "
        "iterations, Romera's thesis; preset=realtime before it became an "
        "alias of fast)", CF_FLOW_METHOD_HS, 3, 1, 10, 15.0f,
      CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"hs-realtime-fp16", "the same, precision=fp16", CF_FLOW_METHOD_HS, 3, 1,
      10, 15.0f, CF_PRECISION_FP16, CF_HS_KERNEL_AUTO, 0, NULL, NULL},
  {"tvl1-ipol", "cudaflowtvl1 preset=ipol (5 levels x 5 warps x "
        "up to 300 iterations, epsilon 0.01)", CF_FLOW_METHOD_TVL1, 5, 5,
      300, 0, CF_PRECISION_FP32, CF_TVL1_KERNEL_AUTO, 0.01f, NULL, NULL},
  {"tvl1-realtime", "cudaflowtvl1 preset=romera (3 levels x 1 warp x 10 "
        "iterations; preset=realtime before it became an alias of fast)",
        CF_FLOW_METHOD_TVL1, 3, 1, 10, 0, CF_PRECISION_FP32,
      CF_TVL1_KERNEL_AUTO, 0.0f, NULL, NULL},
  {"tvl1-ipol-fp16", "the same as tvl1-ipol, precision=fp16",
      CF_FLOW_METHOD_TVL1, 5, 5, 300, 0, CF_PRECISION_FP16,
      CF_TVL1_KERNEL_AUTO, 0.01f, NULL, NULL},
  {"tvl1-realtime-fp16", "the same as tvl1-realtime, precision=fp16",
      CF_FLOW_METHOD_TVL1, 3, 1, 10, 0, CF_PRECISION_FP16,
      CF_TVL1_KERNEL_AUTO, 0.0f, NULL, NULL},
  {"tvl1-realtime-steps", "the same, solver-kernel=steps (one kernel per "
        "step)", CF_FLOW_METHOD_TVL1, 3, 1, 10, 0, CF_PRECISION_FP32,
      CF_TVL1_KERNEL_STEPS, 0.0f, NULL, NULL},
  {"tvl1-fast", "cudaflowtvl1 preset=fast", CF_FLOW_METHOD_TVL1, 0, 0, 0,
      0, CF_PRECISION_FP32, CF_TVL1_KERNEL_AUTO, 0.0f, NULL, "fast"},
  {"tvl1-fast-fp16", "the same, precision=fp16", CF_FLOW_METHOD_TVL1, 0, 0,
      0, 0, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, 0.0f, NULL, "fast"},
  {"tvl1-balanced", "cudaflowtvl1 preset=balanced, the defaults",
        CF_FLOW_METHOD_TVL1, 0, 0, 0, 0, CF_PRECISION_FP32,
      CF_TVL1_KERNEL_AUTO, 0.0f, NULL, "balanced"},
  {"tvl1-balanced-fp16", "the same, precision=fp16", CF_FLOW_METHOD_TVL1, 0,
        0, 0, 0, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, 0.0f, NULL,
      "balanced"},
  {"tvl1-accurate", "cudaflowtvl1 preset=accurate", CF_FLOW_METHOD_TVL1, 0,
        0, 0, 0, CF_PRECISION_FP32, CF_TVL1_KERNEL_AUTO, 0.0f, NULL,
      "accurate"},
  {"tvl1-accurate-fp16", "the same, precision=fp16", CF_FLOW_METHOD_TVL1, 0,
        0, 0, 0, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, 0.0f, NULL,
      "accurate"},
  {"tvl1-fixed-100", "cudaflowtvl1 3 levels x 1 warp x 100 iterations "
        "(per-iteration cost)", CF_FLOW_METHOD_TVL1, 3, 1, 100, 0,
      CF_PRECISION_FP32, CF_TVL1_KERNEL_AUTO, 0.0f, NULL, NULL},
  {"tvl1-fixed-100-fp16", "the same as tvl1-fixed-100, precision=fp16",
      CF_FLOW_METHOD_TVL1, 3, 1, 100, 0, CF_PRECISION_FP16,
      CF_TVL1_KERNEL_AUTO, 0.0f, NULL, NULL},
  {"clg-config-b", "cudaflowclg preset=config-b (4 levels, 60,120,180,240 "
        "sweeps)", CF_FLOW_METHOD_CLG, 4, 1, 0, 50.0f, CF_PRECISION_FP32,
      CF_CLG_KERNEL_AUTO, 0, "60,120,180,240", NULL},
  {"clg-config-b-fp16", "the same as clg-config-b, precision=fp16",
      CF_FLOW_METHOD_CLG, 4, 1, 0, 50.0f, CF_PRECISION_FP16,
      CF_CLG_KERNEL_AUTO, 0, "60,120,180,240", NULL},
  {"clg-config-b-simple", "the same, jacobi-kernel=simple",
      CF_FLOW_METHOD_CLG, 4, 1, 0, 50.0f, CF_PRECISION_FP32,
      CF_CLG_KERNEL_SIMPLE, 0, "60,120,180,240", NULL},
  {"clg-config-a", "cudaflowclg preset=config-a (4 levels x 75 sweeps)",
      CF_FLOW_METHOD_CLG, 4, 1, 75, 50.0f, CF_PRECISION_FP32,
      CF_CLG_KERNEL_AUTO, 0, NULL, NULL},
};

#define N_CONFIGS ((int) (sizeof (configs) / sizeof (configs[0])))

typedef struct
{
  const bench_config *config;
  int clg_depth;                /* FUSED depth asked for (0 = default) */
  int hs_kernel;                /* HS: the cf_hs_kernel run */
  int hs_geometry;              /* HS: the cf_hs_geometry asked for */
  int hs_pdl;                   /* HS: programmatic dependent launch */
  cf_flow_bench_result r;
} bench_result;

/* cudaflowhs' jacobi-kernel nicks, in cf_hs_kernel order, and "stream"
 * (CF_HS_KERNEL_STREAM, which the element does not offer yet) */
static const char *const hs_kernel_nicks[] = { "auto", "simple", "fused",
  "fused-db", "stream"
};

#define N_HS_KERNELS ((int) (sizeof (hs_kernel_nicks) / sizeof (char *)))

/* cudaflowtvl1's preset @name over @c, as the element applies it: the
 * pyramid's rows (levels, scale-factor) and TV-L1's. */
static void
apply_tvl1_preset (const char *name, cf_flow_bench_config * c)
{
  cf_error err = { {0} };

  if (cf_params_apply_preset (&cf_tvl1_param_table, &c->solver.params.tvl1,
          &cf_pyramid_param_table, &c->pyramid, name, &err) != CF_OK) {
    fprintf (stderr, PROG ": TV-L1 preset '%s': %s\n", name, err.message);
    exit (1);
  }
}

/* The run configuration of table entry @t: common/'s defaults (as the
 * elements'), with the entry's fields on top (a TV-L1 preset instead of
 * them when it names one); @hs_kernel (-1: the table's), @hs_geometry
 * and @hs_pdl for HS. */
static void
table_config (const bench_config * t, int clg_depth, int hs_kernel,
    int hs_geometry, int hs_pdl, cf_flow_bench_config * c)
{
  cf_flow_bench_config_init (c, t->method);
  c->pyramid.max_levels = t->levels;
  c->solver.precision = t->precision;
  c->solver.kernel = t->kernel;
  switch (t->method) {
    case CF_FLOW_METHOD_HS:
      if (hs_kernel >= 0)
        c->solver.kernel = hs_kernel;
      c->hs_geometry = hs_geometry;
      c->hs_pdl = hs_pdl;
      c->solver.params.hs.alpha = t->alpha;
      c->solver.params.hs.warps = t->warps;
      c->solver.params.hs.iterations = t->iterations;
      break;
    case CF_FLOW_METHOD_TVL1:
      if (t->preset != NULL) {
        apply_tvl1_preset (t->preset, c);
        break;
      }
      /* ipol, romera and the fixed counts: IPOL's model and
       * linearisation, with the entry's schedule */
      cf_tvl1_params_init_ipol (&c->solver.params.tvl1);
      c->solver.params.tvl1.warps = t->warps;
      c->solver.params.tvl1.max_iterations = t->iterations;
      c->solver.params.tvl1.epsilon = t->epsilon;
      break;
    case CF_FLOW_METHOD_CLG:
      c->solver.params.clg.alpha = t->alpha;
      c->solver.params.clg.iterations = t->iterations;
      if (t->per_level)
        cf_clg_parse_iterations_per_level (&c->solver.params.clg,
            t->per_level, NULL);
      c->clg_fused_depth = clg_depth;
      break;
  }
}

static void
write_json (FILE * f, const char *device, const bench_result * r, int n,
    int frames)
{
  int i, s;

  fprintf (f, "{\n  \"device\": \"%s\",\n  \"frames\": %d,\n"
      "  \"results\": [\n", device, frames);
  for (i = 0; i < n; i++) {
    fprintf (f, "    {\"config\": \"%s\", \"width\": %d, \"height\": %d, "
        "\"levels\": %d, \"frame_ms\": %.4f", r[i].config->name, r[i].r.width,
        r[i].r.height, r[i].r.n_levels, r[i].r.frame_ms);
    if (r[i].config->method == CF_FLOW_METHOD_CLG)
      fprintf (f, ", \"clg_fused_depth\": %d", r[i].clg_depth);
    if (r[i].config->method == CF_FLOW_METHOD_HS)
      fprintf (f, ", \"hs_kernel\": \"%s\", \"hs_geometry\": \"%s\", "
          "\"hs_pdl\": %d", hs_kernel_nicks[r[i].hs_kernel],
          cf_cuda_hs_geometry_name ((cf_hs_geometry) r[i].hs_geometry),
          r[i].hs_pdl);
    for (s = 0; s < CF_FLOW_BENCH_N_STAGES; s++)
      fprintf (f, ", \"%s_ms\": %.4f", cf_flow_bench_stage_names[s],
          r[i].r.stage_ms[s]);
    fprintf (f, ", \"iterations_ms\": %.4f, \"around_iterations_ms\": "
        "%.4f, \"pixel_iterations\": %.0f, \"ns_per_pixel_iteration\": "
        "%.5f, \"gbps_fp32_model\": %.1f, \"tvl1_iterations_run\": %ld}%s\n",
        r[i].r.sweeps_ms, r[i].r.around_sweeps_ms, r[i].r.cells_swept,
        r[i].r.ns_per_px_it, r[i].r.gbps, r[i].r.iterations,
        i + 1 < n ? "," : "");
  }
  fprintf (f, "  ]\n}\n");
}

/* "1920x1080", "1920x1080 K=5" for a CLG run at an explicit depth,
 * "1920x1080 fused-db auto" for HS (kernel, geometry) */
static const char *
size_label (const bench_result * x, char *buf, size_t len)
{
  if (x->config->method == CF_FLOW_METHOD_CLG && x->clg_depth > 0)
    snprintf (buf, len, "%dx%d K=%d", x->r.width, x->r.height, x->clg_depth);
  else if (x->config->method == CF_FLOW_METHOD_HS)
    snprintf (buf, len, "%dx%d %s %s%s", x->r.width, x->r.height,
        hs_kernel_nicks[x->hs_kernel],
        cf_cuda_hs_geometry_name ((cf_hs_geometry) x->hs_geometry),
        x->hs_pdl ? "" : " no-pdl");
  else
    snprintf (buf, len, "%dx%d", x->r.width, x->r.height);
  return buf;
}

/* Depth against time for the CLG runs at explicit depths (--clg-depth). */
static void
write_depth_table (FILE * f, const bench_result * r, int n)
{
  int i, any = 0;

  for (i = 0; i < n; i++)
    if (r[i].config->method == CF_FLOW_METHOD_CLG && r[i].clg_depth > 0)
      any = 1;
  if (!any)
    return;
  fprintf (f, "### CLG fused depth\n\n"
      "| config | size | depth K | frame ms | solve ms | sweeps ms | "
      "µs per sweep (mean of all levels) | ns/px-it |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (i = 0; i < n; i++) {
    const bench_result *x = &r[i];
    if (x->config->method != CF_FLOW_METHOD_CLG || x->clg_depth <= 0)
      continue;
    fprintf (f, "| %s | %dx%d | %d | %.3f | %.3f | %.3f | %.2f | %.4f |\n",
        x->config->name, x->r.width, x->r.height, x->clg_depth, x->r.frame_ms,
        x->r.stage_ms[CF_FLOW_BENCH_SOLVE], x->r.sweeps_ms,
        x->r.sweeps > 0 ? 1e3 * x->r.sweeps_ms / x->r.sweeps : 0.0,
        x->r.ns_per_px_it);
  }
  fprintf (f, "\n");
}

static void
write_markdown (FILE * f, const char *device, const bench_result * r, int n,
    int frames)
{
  int i, c;
  char label[64];

  fprintf (f, "Device: %s. Medians of %d frames after %d warm-up frames, "
      "CUDA events on one stream.\n\n", device, frames,
      CF_FLOW_BENCH_WARMUP_FRAMES);
  for (c = 0; c < N_CONFIGS; c++) {
    int any = 0;
    for (i = 0; i < n; i++)
      if (r[i].config == &configs[c])
        any = 1;
    if (!any)
      continue;
    fprintf (f, "### %s\n\n%s\n\n", configs[c].name, configs[c].description);
    fprintf (f, "| size | frame ms | luma | pyramid | solve: iterations | "
        "solve: around them | output | ns/px-it | GB/s (fp32 model) | "
        "iterations run |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < n; i++) {
      const bench_result *x = &r[i];
      double total = x->r.frame_ms > 0 ? x->r.frame_ms : 1;
      if (x->config != &configs[c])
        continue;
      if (x->r.cells_swept > 0)
        fprintf (f, "| %s | %.3f | %.1f %% | %.1f %% | %.1f %% | %.1f %% "
            "| %.1f %% | %.4f | %.0f | %s |\n",
            size_label (x, label, sizeof (label)), x->r.frame_ms,
            100 * x->r.stage_ms[CF_FLOW_BENCH_LUMA] / total,
            100 * x->r.stage_ms[CF_FLOW_BENCH_PYRAMID] / total,
            100 * x->r.sweeps_ms / total, 100 * x->r.around_sweeps_ms / total,
            100 * x->r.stage_ms[CF_FLOW_BENCH_OUTPUT] / total,
            x->r.ns_per_px_it, x->r.gbps, "fixed");
      else
        fprintf (f, "| %s | %.3f | %.1f %% | %.1f %% | %.1f %% (solve) | "
            "– | %.1f %% | – | – | %ld |\n",
            size_label (x, label, sizeof (label)), x->r.frame_ms,
            100 * x->r.stage_ms[CF_FLOW_BENCH_LUMA] / total,
            100 * x->r.stage_ms[CF_FLOW_BENCH_PYRAMID] / total,
            100 * x->r.stage_ms[CF_FLOW_BENCH_SOLVE] / total,
            100 * x->r.stage_ms[CF_FLOW_BENCH_OUTPUT] / total,
            x->r.iterations);
    }
    fprintf (f, "\n");
  }
  write_depth_table (f, r, n);
}

/* --hs-geometry's help, naming the geometries cuda/hs has (g_free it). */
static gchar *
hs_geometry_help (void)
{
  GString *s = g_string_new ("Run every fused-db (and auto) Horn-Schunck "
      "run with each of these region geometries (");
  int g;

  for (g = CF_HS_GEOMETRY_AUTO; g < CF_HS_N_GEOMETRIES; g++)
    g_string_append_printf (s, "%s%s", g > CF_HS_GEOMETRY_AUTO ? ", " : "",
        cf_cuda_hs_geometry_name ((cf_hs_geometry) g));
  g_string_append (s, "; all: auto and every one); default auto");
  return g_string_free (s, FALSE);
}

/* The description under the options: the configurations, exit status
 * and an example (g_free it). */
static gchar *
help_description (void)
{
  GString *d = g_string_new ("Configurations:\n");
  int c;

  for (c = 0; c < N_CONFIGS; c++)
    g_string_append_printf (d, "  %-24s %s\n", configs[c].name,
        configs[c].description);
  g_string_append (d, "\nExit status: 0 on success, 1 on a failure, 2 on "
      "a usage error, 77 without a\nusable CUDA device.\n\n"
      "Example:\n"
      "  " PROG " --sizes 1920x1080 --frames 30 \\\n"
      "      --config hs-realtime,tvl1-realtime --json bench.json\n");
  return g_string_free (d, FALSE);
}

int
main (int argc, char **argv)
{
  const char *sizes = "640x480,1280x720,1920x1080,3840x2160";
  const char *wanted = NULL, *json_path = NULL, *md_path = NULL;
  const char *depth_list = NULL;
  int frames = 20, w[MAX_SIZES], h[MAX_SIZES], n_sizes = 0, c, k, n = 0;
  cf_flow_bench_frames *pairs[MAX_SIZES] = { NULL };
  int depths[MAX_DEPTHS] = { 0 }, n_depths = 1;
  int hs_kernels[MAX_HS_VARIANTS], n_hs_kernels = 0;
  int hs_geoms[MAX_HS_VARIANTS] = { CF_HS_GEOMETRY_AUTO }, n_hs_geoms = 1;
  int hs_pdls[2] = { 1, 0 }, n_hs_pdls = 1;
  const char *hs_kernel_list = NULL, *hs_geom_list = NULL;
  const char *hs_pdl_list = NULL;
  bench_result *results;
  char device[512];
  char *list, *tok, *save = NULL;
  gchar *sizes_opt = NULL, *frames_opt = NULL, *config_opt = NULL,
      *depth_opt = NULL, *json_opt = NULL, *md_opt = NULL, **rest = NULL,
      *hs_kernel_opt = NULL, *hs_geom_opt = NULL, *hs_pdl_opt = NULL;

  {
    gchar *frames_help = g_strdup_printf ("Timed frames per run, after %d "
        "warm-up frames (default 20)", CF_FLOW_BENCH_WARMUP_FRAMES);
    gchar *depth_help = g_strdup_printf ("FUSED CLG depths to run, %d..%d "
        "or 0 (the plan's default: %d in fp32, %d in fp16); default 0",
        CF_CLG_FUSED_DEPTH_MIN, CF_CLG_FUSED_DEPTH_MAX,
        CF_CLG_FUSED_DEPTH_DEFAULT, CF_CLG_FUSED_DEPTH_DEFAULT_FP16);
    gchar *geom_help = hs_geometry_help ();
    gchar *description = help_description ();
    GOptionEntry entries[] = {
      {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_opt, "Frame sizes "
            "(default 640x480,1280x720,1920x1080,3840x2160)", "WxH,..."},
      {"frames", 0, 0, G_OPTION_ARG_STRING, &frames_opt, frames_help, "N"},
      {"config", 0, 0, G_OPTION_ARG_STRING, &config_opt,
          "Configurations to run (default: all, below)", "NAME,..."},
      {"clg-depth", 0, 0, G_OPTION_ARG_STRING, &depth_opt, depth_help,
          "K,..."},
      {"hs-kernel", 0, 0, G_OPTION_ARG_STRING, &hs_kernel_opt,
            "Run every Horn-Schunck configuration with each of these Jacobi "
            "kernels (auto, simple, fused, fused-db, stream) instead of its "
            "own",
          "NICK,..."},
      {"hs-geometry", 0, 0, G_OPTION_ARG_STRING, &hs_geom_opt, geom_help,
          "NAME,..."},
      {"hs-pdl", 0, 0, G_OPTION_ARG_STRING, &hs_pdl_opt,
            "Run every fused-db (and auto) Horn-Schunck run with (1) and/or "
            "without (0) programmatic dependent launch; default 1",
          "1,0"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &json_opt,
          "Also write the results as JSON", "FILE"},
      {"markdown", 0, 0, G_OPTION_ARG_FILENAME, &md_opt,
          "Also write the markdown table to FILE", "FILE"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL,
          NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}
    };

    cf_args_parse (cf_args_context_new (PROG, NULL, entries,
            "GPU time per frame and per stage (luma, pyramid, solve, output) "
            "of the\nflow methods, through the same cuda/ calls as the "
            "elements' GPU path,\non synthetic frames. A markdown table goes "
            "to stdout, progress to\nstderr.", description),
        PROG, &argc, &argv);
    g_free (frames_help);
    g_free (depth_help);
    g_free (geom_help);
    g_free (description);

    if (rest != NULL && rest[0] != NULL)
      cf_args_usage_error (PROG, "unexpected argument '%s'", rest[0]);
    if (sizes_opt != NULL)
      sizes = sizes_opt;
    if (frames_opt != NULL) {
      char *end;
      long f = strtol (frames_opt, &end, 10);
      if (end == frames_opt || *end != '\0' || f < 1 || f > INT_MAX)
        cf_args_usage_error (PROG, "bad --frames '%s' (1 or more)",
            frames_opt);
      frames = (int) f;
    }
    wanted = config_opt;
    depth_list = depth_opt;
    hs_kernel_list = hs_kernel_opt;
    hs_geom_list = hs_geom_opt;
    hs_pdl_list = hs_pdl_opt;
    json_path = json_opt;
    md_path = md_opt;
  }
  n_sizes = cf_args_parse_sizes (PROG, "--sizes", sizes, w, h, MAX_SIZES);
  if (depth_list) {
    n_depths = 0;
    list = strdup (depth_list);
    for (tok = strtok_r (list, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      char *end;
      long d = strtol (tok, &end, 10);
      if (*end != '\0' || n_depths == MAX_DEPTHS || (d != 0 &&
              (d < CF_CLG_FUSED_DEPTH_MIN || d > CF_CLG_FUSED_DEPTH_MAX)))
        cf_args_usage_error (PROG, "bad CLG depth '%s' (%d..%d or 0, at most "
            "%d values)", tok, CF_CLG_FUSED_DEPTH_MIN, CF_CLG_FUSED_DEPTH_MAX,
            MAX_DEPTHS);
      depths[n_depths++] = (int) d;
    }
    free (list);
    if (n_depths == 0)
      cf_args_usage_error (PROG, "no depth in --clg-depth '%s'", depth_list);
  }
  if (hs_kernel_list) {
    list = strdup (hs_kernel_list);
    for (tok = strtok_r (list, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      for (k = 0; k < N_HS_KERNELS && strcmp (tok, hs_kernel_nicks[k]); k++);
      if (k == N_HS_KERNELS || n_hs_kernels == MAX_HS_VARIANTS)
        cf_args_usage_error (PROG, "bad Horn-Schunck kernel '%s' (auto, "
            "simple, fused, fused-db, stream)", tok);
      hs_kernels[n_hs_kernels++] = k;
    }
    free (list);
    if (n_hs_kernels == 0)
      cf_args_usage_error (PROG, "no kernel in --hs-kernel '%s'",
          hs_kernel_list);
  }
  if (hs_geom_list) {
    n_hs_geoms = 0;
    list = strdup (hs_geom_list);
    for (tok = strtok_r (list, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      int g;

      if (!strcmp (tok, "all")) {       /* auto and every geometry */
        for (g = CF_HS_GEOMETRY_AUTO; g < CF_HS_N_GEOMETRIES; g++) {
          if (n_hs_geoms == MAX_HS_VARIANTS)
            cf_args_usage_error (PROG, "too many geometries in "
                "--hs-geometry '%s'", hs_geom_list);
          hs_geoms[n_hs_geoms++] = g;
        }
        continue;
      }
      g = cf_cuda_hs_geometry_from_name (tok);
      if (g < 0 || n_hs_geoms == MAX_HS_VARIANTS)
        cf_args_usage_error (PROG, "bad Horn-Schunck geometry '%s' (auto, "
            "32x32-k8, 64x64-k8, ...; --help)", tok);
      hs_geoms[n_hs_geoms++] = g;
    }
    free (list);
    if (n_hs_geoms == 0)
      cf_args_usage_error (PROG, "no geometry in --hs-geometry '%s'",
          hs_geom_list);
  }
  if (hs_pdl_list) {
    n_hs_pdls = 0;
    list = strdup (hs_pdl_list);
    for (tok = strtok_r (list, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      if ((strcmp (tok, "0") && strcmp (tok, "1")) || n_hs_pdls == 2)
        cf_args_usage_error (PROG, "bad --hs-pdl '%s' (1, 0 or 1,0)",
            hs_pdl_list);
      hs_pdls[n_hs_pdls++] = tok[0] == '1';
    }
    free (list);
    if (n_hs_pdls == 0)
      cf_args_usage_error (PROG, "no value in --hs-pdl '%s'", hs_pdl_list);
  }
  if (wanted) {
    list = strdup (wanted);
    for (tok = strtok_r (list, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      for (c = 0; c < N_CONFIGS && strcmp (tok, configs[c].name); c++);
      if (c == N_CONFIGS)
        cf_args_usage_error (PROG, "unknown config '%s' (--help lists them)",
            tok);
    }
    free (list);
  }
  if (cf_flow_bench_device (device, sizeof (device)) != CF_OK) {
    fprintf (stderr, PROG ": no usable CUDA device\n");
    return 77;
  }

  /* one synthetic pair per size, for every configuration */
  for (k = 0; k < n_sizes; k++) {
    cf_error err = { {0} };
    if (cf_flow_bench_frames_new (w[k], h[k], &pairs[k], &err) != CF_OK) {
      fprintf (stderr, PROG ": frames of %dx%d: %s\n", w[k], h[k],
          err.message);
      return 1;
    }
  }
  results = calloc ((size_t) N_CONFIGS * n_sizes * (n_depths +
          (n_hs_kernels > 0 ? n_hs_kernels : 1) * n_hs_geoms * n_hs_pdls),
      sizeof (bench_result));
  for (c = 0; c < N_CONFIGS; c++) {
    if (wanted) {
      /* whole-word match in the comma list */
      const char *p = strstr (wanted, configs[c].name);
      size_t len = strlen (configs[c].name);
      int hit = 0;
      while (p) {
        if ((p == wanted || p[-1] == ',') && (p[len] == ',' || !p[len]))
          hit = 1;
        p = strstr (p + 1, configs[c].name);
      }
      if (!hit)
        continue;
    }
    for (k = 0; k < n_sizes; k++) {
      /* the depth list applies to fused CLG configurations only */
      /* the depth list applies to fused CLG configurations only; HS
       * runs once per (kernel, geometry) */
      int is_hs = configs[c].method == CF_FLOW_METHOD_HS;
      int per_depth = configs[c].method == CF_FLOW_METHOD_CLG &&
          configs[c].kernel != CF_CLG_KERNEL_SIMPLE;
      int n_variants = per_depth ? n_depths : is_hs ?
          (n_hs_kernels > 0 ? n_hs_kernels : 1) * n_hs_geoms * n_hs_pdls : 1;
      int v;

      for (v = 0; v < n_variants; v++) {
        int depth = per_depth ? depths[v] : 0;
        int hs_kernel = is_hs ? (n_hs_kernels > 0 ?
            hs_kernels[v / (n_hs_geoms * n_hs_pdls)] : configs[c].kernel) :
            -1;
        int hs_geom = is_hs ? hs_geoms[v / n_hs_pdls % n_hs_geoms] : 0;
        int hs_pdl = is_hs ? hs_pdls[v % n_hs_pdls] : 1;
        cf_flow_bench_config run;
        cf_error err = { {0} };
        char label[64];

        /* a geometry and PDL only mean something to fused-db (auto) */
        if (is_hs && (hs_geom != CF_HS_GEOMETRY_AUTO || !hs_pdl) &&
            hs_kernel != CF_HS_KERNEL_AUTO &&
            hs_kernel != CF_HS_KERNEL_FUSED_DB)
          continue;
        table_config (&configs[c], depth, is_hs ? hs_kernel : -1, hs_geom,
            hs_pdl, &run);
        results[n].config = &configs[c];
        results[n].clg_depth = depth;
        results[n].hs_kernel = is_hs ? hs_kernel : 0;
        results[n].hs_geometry = hs_geom;
        results[n].hs_pdl = hs_pdl;
        if (cf_flow_bench_run (&run, pairs[k], frames, 1, &results[n].r,
                &err) != CF_OK) {
          fprintf (stderr, PROG ": %s at %dx%d: %s\n", configs[c].name,
              w[k], h[k], err.message);
          return 1;
        }
        fprintf (stderr, "%-24s %-28s %9.3f ms/frame (solve %.3f, "
            "iterations %.3f, %.4f ns/px-it, %.0f GB/s)\n", configs[c].name,
            size_label (&results[n], label, sizeof (label)),
            results[n].r.frame_ms,
            results[n].r.stage_ms[CF_FLOW_BENCH_SOLVE],
            results[n].r.sweeps_ms,
            results[n].r.ns_per_px_it, results[n].r.gbps);
        n++;
      }
    }
  }

  write_markdown (stdout, device, results, n, frames);
  if (md_path) {
    FILE *f = fopen (md_path, "w");
    if (!f) {
      perror (md_path);
      return 1;
    }
    write_markdown (f, device, results, n, frames);
    fclose (f);
  }
  if (json_path) {
    FILE *f = fopen (json_path, "w");
    if (!f) {
      perror (json_path);
      return 1;
    }
    write_json (f, device, results, n, frames);
    fclose (f);
  }
  free (results);
  for (k = 0; k < n_sizes; k++)
    cf_flow_bench_frames_free (pairs[k]);
  return 0;
}
