/* gst-cudaflow — A/B harness for the GPU TV-L1 solver (cuda/tvl1.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   tvl1-ab            one line per configuration: NAME HASH ITERATIONS
 *   tvl1-ab --time [--runs N]
 *                      one line per timed configuration: NAME MEDIAN_MS
 *
 * For comparing two builds of cuda/tvl1*.cu bit for bit and for speed
 * (tests/gpu/tvl1-ab.sh runs an old and a new binary and diffs them). It
 * uses only cuda/tvl1.h, cuda/pyramid.h, cuda/flow.h, cuda/cuda-util.h
 * and common/ (synth, pyramid, tvl1, image), whose interfaces are the same
 * on both sides, so one source builds against either tree.
 *
 * Inputs are deterministic: common/synth pairs (a smooth non-rigid field,
 * a rotation with zoom, a translation) rounded to 8 bits, CPU pyramids
 * (common/pyramid.c, minimum side 8) uploaded level by level, and for
 * use_initial a flow of 3/4 of the ground truth. Each configuration runs
 * cf_cuda_tvl1_plan_run once on a plan kept per (size, precision, kernel),
 * as the element reuses its plan, and hashes the result: FNV-1a 64 over
 * the bytes of the u rows, then the v rows, packed (width floats a row),
 * after a copy to the host; a failed run prints the status instead.
 *
 * The grid covers every axis, not their full product: precision fp32 /
 * fp16 x kernel AUTO / STEPS (fp32) / FUSED / BLOCKED x (ε 0 with 1, 10,
 * 37 iterations; ε 0.01 with 300) x warps 1 / 3 x levels 1 / 3 / 5 on
 * 333x201, with use_initial and the warp border alternating; BLOCKED's
 * iterations per launch 1 ... 8 x tile rows 32 / 64 (and AUTO's, and
 * set_blocking with ε > 0) on 333x201 and 640x480; every kernel on
 * 1920x1080 and on 1-pixel-wide, tiny and odd sizes; a few runs with the
 * median filter between warps (names ending /m3, /m5).
 *
 * Per-level schedules (warps-per-level, iterations-per-level, set through
 * the parameter table by their property names): lists that repeat one
 * count and lists that differ per level, every kernel, both precisions,
 * ε 0 and 0.01. A tree whose table has no such rows runs a list that
 * repeats one count as that uniform count (the same schedule, so the
 * hashes must match) and prints "NAME unsupported -" for the others,
 * which tests/gpu/tvl1-ab.sh leaves out of the comparison.
 *
 * --time: median GPU ms of plan_run (CUDA events around it on one stream,
 * after 3 warm-up runs) at 1920x1080 for fp32 / fp16 x BLOCKED / FUSED x
 * (5 levels x 1 warp x 10 iterations, 5 x 3 x 10, IPOL's 5 x 5 x 300 with
 * ε 0.01), and 5 x 3 x 10 with the 5 x 5 median filter.
 *
 * The median filter is set by name (cf_tvl1_params_set "median-size"), so
 * the harness builds against trees without it too: there its runs print
 * the refusal (CF_ERROR_INVALID) instead of a hash, and --time leaves
 * them out (timing.md shows 0 for the old side).
 *
 * Exit status: 0, 1 on a CUDA or allocation failure outside plan_run, 2 on
 * a usage error, 77 without a CUDA device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/image.h"
#include "common/pyramid.h"
#include "common/status.h"
#include "common/synth.h"
#include "common/tvl1.h"
#include "cuda/cuda-util.h"
#include "cuda/flow.h"
#include "cuda/pyramid.h"
#include "cuda/tvl1.h"

#define PROG "tvl1-ab"
#define WARMUP_RUNS 3
#define DEFAULT_RUNS 11
#define MAX_SCENES 16
#define MAX_PLANS 128
#define LEVEL_SETS 3            /* pyramids of 1, 3 and 5 levels */

#define CHECK(call) do { cf_status s_ = (call); if (s_ != CF_OK) { \
  fprintf (stderr, PROG ": %s failed: %s (%s)\n", #call, \
      cf_status_name (s_), cf_cuda_last_error_name ()); exit (1); } } while (0)
#define CHECK_CUDA(call) do { cudaError_t e_ = (call); \
  if (e_ != cudaSuccess) { fprintf (stderr, PROG ": %s failed: %s\n", #call, \
      cudaGetErrorString (e_)); exit (1); } } while (0)

static const int level_counts[LEVEL_SETS] = { 1, 3, 5 };

/* One input: a pair of one size and motion, its pyramids for each level
 * count, the initial flow */
typedef struct
{
  int width, height;
  cf_synth_motion motion;
  cf_cuda_pyramid p0[LEVEL_SETS], p1[LEVEL_SETS];
  cf_flow *initial;             /* 3/4 of the ground truth */
  cf_cuda_flow flow;            /* the runs' output */
} scene;

/* One configuration of a run */
typedef struct
{
  cf_precision precision;
  cf_tvl1_kernel kernel;
  float epsilon;
  int iterations;
  int warps;
  int levels;                   /* 1, 3 or 5 (capped by the size) */
  int use_initial;
  cf_warp_border border;
  int block_iterations, tile_rows;      /* set_blocking; 0, 0: defaults */
  const char *warps_list;       /* warps-per-level, NULL: none */
  const char *iterations_list;  /* iterations-per-level, NULL: none */
  int median;                   /* median-size; 0: off */
} config;

typedef struct
{
  int width, height;
  cf_precision precision;
  cf_tvl1_kernel kernel;
  cf_cuda_tvl1_plan *plan;
} plan_slot;

static cudaStream_t stream;
static scene scenes[MAX_SCENES];
static int n_scenes;
static plan_slot plans[MAX_PLANS];
static int n_plans;

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

/* The GPU pyramid of @frame: built on the CPU and uploaded level by level,
 * so the A/B compares the solver alone. */
static void
upload_pyramid (const cf_image * frame, const cf_pyramid_params * pp,
    cf_cuda_pyramid * gpu)
{
  cf_pyramid *cpu = cf_pyramid_new (frame->width, frame->height, pp);
  int l;

  if (cpu == NULL) {
    fprintf (stderr, PROG ": no memory for a %dx%d pyramid\n", frame->width,
        frame->height);
    exit (1);
  }
  CHECK (cf_pyramid_build (cpu, frame, pp));
  memset (gpu, 0, sizeof (*gpu));
  CHECK (cf_cuda_pyramid_alloc (gpu, frame->width, frame->height, pp));
  if (gpu->n_levels != cpu->n_levels) {
    fprintf (stderr, PROG ": %dx%d: %d GPU levels, %d CPU levels\n",
        frame->width, frame->height, gpu->n_levels, cpu->n_levels);
    exit (1);
  }
  for (l = 0; l < cpu->n_levels; l++)
    CHECK (cf_cuda_image_upload (cpu->level[l], &gpu->level[l], stream));
  CHECK_CUDA (cudaStreamSynchronize (stream));
  cf_pyramid_free (cpu);
}

static scene *
get_scene (int width, int height, cf_synth_motion motion)
{
  cf_synth_params sp;
  cf_tvl1_params tp;
  cf_pyramid_params pp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL;
  scene *sc;
  int i, x, y;

  for (i = 0; i < n_scenes; i++)
    if (scenes[i].width == width && scenes[i].height == height &&
        scenes[i].motion == motion)
      return &scenes[i];
  if (n_scenes == MAX_SCENES) {
    fprintf (stderr, PROG ": too many scenes\n");
    exit (1);
  }
  sc = &scenes[n_scenes++];
  memset (sc, 0, sizeof (*sc));
  sc->width = width;
  sc->height = height;
  sc->motion = motion;

  cf_synth_params_init (&sp);
  sp.motion = motion;
  sp.tx = 2.25f;
  sp.ty = -1.5f;
  sp.angle = 3.0f;
  sp.zoom = 1.03f;
  sp.amplitude = 4.0f;
  sp.seed = 7;
  CHECK (cf_synth_pair (width, height, &sp, &f0, &f1, &truth));
  round_to_8bit (f0);
  round_to_8bit (f1);

  cf_tvl1_params_init (&tp);
  cf_pyramid_params_init (&pp);
  pp.min_size = 8;
  cf_tvl1_prepare_pyramid_params (&tp, &pp);
  for (i = 0; i < LEVEL_SETS; i++) {
    pp.max_levels = level_counts[i];
    upload_pyramid (f0, &pp, &sc->p0[i]);
    upload_pyramid (f1, &pp, &sc->p1[i]);
  }

  sc->initial = cf_flow_new (width, height);
  if (sc->initial == NULL) {
    fprintf (stderr, PROG ": no memory\n");
    exit (1);
  }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      size_t i0 = x + (size_t) y * sc->initial->pitch;
      size_t it = x + (size_t) y * truth->pitch;

      sc->initial->u[i0] = 0.75f * truth->u[it];
      sc->initial->v[i0] = 0.75f * truth->v[it];
    }
  CHECK (cf_cuda_flow_alloc (&sc->flow, width, height));
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  return sc;
}

static cf_cuda_tvl1_plan *
get_plan (int width, int height, cf_precision precision,
    cf_tvl1_kernel kernel)
{
  plan_slot *p;
  int i;

  for (i = 0; i < n_plans; i++)
    if (plans[i].width == width && plans[i].height == height &&
        plans[i].precision == precision && plans[i].kernel == kernel)
      return plans[i].plan;
  if (n_plans == MAX_PLANS) {
    fprintf (stderr, PROG ": too many plans\n");
    exit (1);
  }
  p = &plans[n_plans++];
  p->width = width;
  p->height = height;
  p->precision = precision;
  p->kernel = kernel;
  CHECK (cf_cuda_tvl1_plan_new (width, height, precision, kernel, &p->plan));
  return p->plan;
}

static void
free_all (void)
{
  int i, l;

  for (i = 0; i < n_plans; i++)
    cf_cuda_tvl1_plan_free (plans[i].plan);
  for (i = 0; i < n_scenes; i++) {
    for (l = 0; l < LEVEL_SETS; l++) {
      cf_cuda_pyramid_release (&scenes[i].p0[l]);
      cf_cuda_pyramid_release (&scenes[i].p1[l]);
    }
    cf_flow_free (scenes[i].initial);
    cf_cuda_flow_release (&scenes[i].flow);
  }
}

static const char *
kernel_name (cf_tvl1_kernel kernel)
{
  switch (kernel) {
    case CF_TVL1_KERNEL_AUTO:
      return "AUTO";
    case CF_TVL1_KERNEL_STEPS:
      return "STEPS";
    case CF_TVL1_KERNEL_FUSED:
      return "FUSED";
    default:
      return "BLOCKED";
  }
}

static int
level_set (int levels)
{
  int i;

  for (i = 0; i < LEVEL_SETS; i++)
    if (level_counts[i] == levels)
      return i;
  fprintf (stderr, PROG ": no pyramid of %d levels\n", levels);
  exit (1);
}

static void
config_name (const scene * sc, const config * c, char *out, size_t size)
{
  char blocking[16] = "T-", lists[96] = "";

  if (c->block_iterations > 0 || c->tile_rows > 0)
    snprintf (blocking, sizeof (blocking), "T%dr%d", c->block_iterations,
        c->tile_rows);
  char median[16] = "";

  if (c->median > 0)
    snprintf (median, sizeof (median), "/m%d", c->median);
  /* only named when set, so the uniform configurations keep their names */
  if (c->warps_list != NULL || c->iterations_list != NULL)
    snprintf (lists, sizeof (lists), "/wl%s/il%s",
        c->warps_list ? c->warps_list : "-",
        c->iterations_list ? c->iterations_list : "-");
  snprintf (out, size, "%dx%d/%s/%s/e%gx%d/w%d/l%d/init%d/%s/%s%s%s",
      sc->width, sc->height, c->precision == CF_PRECISION_FP16 ? "fp16" :
      "fp32", kernel_name (c->kernel), c->epsilon, c->iterations, c->warps,
      c->levels, c->use_initial,
      c->border == CF_WARP_ZERO_OUTSIDE ? "zero" : "clamp", blocking, lists,
      median);
}

/* The one count a comma-separated list repeats, or 0 when its entries
 * differ (or it does not parse). */
static int
repeated_count (const char *list)
{
  const char *p = list;
  long first = -1;

  while (*p != '\0') {
    char *end;
    long v = strtol (p, &end, 10);

    if (end == p || v < 1 || (first >= 0 && v != first))
      return 0;
    first = v;
    p = end;
    if (*p == ',')
      p++;
    else if (*p != '\0')
      return 0;
  }
  return first > 0 ? (int) first : 0;
}

/* One per-level list into @params: through the table where it has the row;
 * else, on a tree without per-level schedules, as the uniform @field when
 * the list repeats one count. CF_ERROR_UNSUPPORTED when neither can. */
static cf_status
set_list (cf_tvl1_params * params, const char *name, const char *list,
    int *field)
{
  int n;

  if (list == NULL)
    return CF_OK;
  if (cf_params_find (&cf_tvl1_param_table, name) != NULL)
    return cf_params_set_text (&cf_tvl1_param_table, params, name, list,
        NULL);
  n = repeated_count (list);
  if (n == 0)
    return CF_ERROR_UNSUPPORTED;
  *field = n;
  return CF_OK;
}

/* The solver's parameters of @c; CF_ERROR_UNSUPPORTED for a per-level
 * list, CF_ERROR_INVALID for a median filter, that a tree without them
 * refuses */
static cf_status
params_of (const config * c, cf_tvl1_params * params)
{
  cf_status status;

  cf_tvl1_params_init (params);
  /* IPOL's linearisation, the default before 2026-12-05, so hashes compare
   * across that change; by name, since older trees have no such field
   * (there it is refused, and 0 anyway) */
  (void) cf_tvl1_params_set (params, "gradient-blend", 0.0);
  /* the counts by name, which clears the per-level lists the defaults
   * have had since 2026-12-05, and the presmoothing of the defaults before
   * then */
  (void) cf_tvl1_params_set (params, "sigma", 0.8);
  params->epsilon = c->epsilon;
  params->warp_border = c->border;
  status = cf_tvl1_params_set (params, "iterations", c->iterations);
  if (status == CF_OK)
    status = cf_tvl1_params_set (params, "warps", c->warps);
  if (status == CF_OK)
    status = set_list (params, "warps-per-level", c->warps_list,
        &params->warps);
  if (status == CF_OK)
    status = set_list (params, "iterations-per-level", c->iterations_list,
        &params->max_iterations);
  if (status == CF_OK && c->median > 0)
    status = cf_tvl1_params_set (params, "median-size", c->median);
  return status;
}

/* Before a run of @c: BLOCKED's shape, and the flow (the initial one, or
 * zeros) */
static cf_status
prepare_run (scene * sc, const config * c, cf_cuda_tvl1_plan * plan)
{
  cf_status status = cf_cuda_tvl1_plan_set_blocking (plan,
      c->block_iterations, c->tile_rows);

  if (status != CF_OK)
    return status;
  if (c->use_initial)
    CHECK (cf_cuda_flow_upload (sc->initial, &sc->flow, stream));
  else
    CHECK (cf_cuda_flow_fill (&sc->flow, 0.0f, 0.0f, stream));
  return CF_OK;
}

/* Enqueue plan_run for @c on @sc; its status */
static cf_status
enqueue_run (scene * sc, const config * c, cf_cuda_tvl1_plan * plan)
{
  cf_tvl1_params params;
  int ls = level_set (c->levels);
  cf_status status = params_of (c, &params);

  if (status != CF_OK)
    return status;
  return cf_cuda_tvl1_plan_run (plan, &sc->p0[ls], &sc->p1[ls], &params,
      c->use_initial, &sc->flow, stream);
}

/* FNV-1a 64 over @n bytes, continuing from @h */
static uint64_t
fnv1a (uint64_t h, const void *data, size_t n)
{
  const unsigned char *b = data;
  size_t i;

  for (i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static void
run_and_hash (int width, int height, cf_synth_motion motion,
    const config * c)
{
  scene *sc = get_scene (width, height, motion);
  cf_cuda_tvl1_plan *plan = get_plan (width, height, c->precision,
      c->kernel);
  cf_tvl1_params params;
  char name[256];
  cf_status status;

  config_name (sc, c, name, sizeof (name));
  if (params_of (c, &params) == CF_ERROR_UNSUPPORTED) {
    /* a per-level schedule this tree cannot run */
    printf ("%s unsupported -\n", name);
    fflush (stdout);
    return;
  }
  status = prepare_run (sc, c, plan);
  if (status == CF_OK)
    status = enqueue_run (sc, c, plan);
  CHECK_CUDA (cudaStreamSynchronize (stream));
  if (status != CF_OK) {
    printf ("%s %s -\n", name, cf_status_name (status));
  } else {
    cf_flow *host = cf_flow_new (width, height);
    uint64_t h = 0xcbf29ce484222325ull;
    int y;

    CHECK (cf_cuda_flow_download (&sc->flow, host, stream));
    CHECK_CUDA (cudaStreamSynchronize (stream));
    for (y = 0; y < height; y++)
      h = fnv1a (h, host->u + (size_t) y * host->pitch,
          (size_t) width * sizeof (float));
    for (y = 0; y < height; y++)
      h = fnv1a (h, host->v + (size_t) y * host->pitch,
          (size_t) width * sizeof (float));
    printf ("%s %016llx %ld\n", name, (unsigned long long) h,
        cf_cuda_tvl1_plan_iterations (plan));
    cf_flow_free (host);
  }
  fflush (stdout);
}

/* ------------------------------------------------------------ the grid */

static const cf_precision kp_precision[] = { CF_PRECISION_FP32,
  CF_PRECISION_FP32, CF_PRECISION_FP32, CF_PRECISION_FP32,
  CF_PRECISION_FP16, CF_PRECISION_FP16, CF_PRECISION_FP16
};

static const cf_tvl1_kernel kp_kernel[] = { CF_TVL1_KERNEL_AUTO,
  CF_TVL1_KERNEL_STEPS, CF_TVL1_KERNEL_FUSED, CF_TVL1_KERNEL_BLOCKED,
  CF_TVL1_KERNEL_AUTO, CF_TVL1_KERNEL_FUSED, CF_TVL1_KERNEL_BLOCKED
};

#define N_KP (int) (sizeof (kp_kernel) / sizeof (kp_kernel[0]))

/* (ε, iterations) */
static const float sched_epsilon[] = { 0.0f, 0.0f, 0.0f, 0.01f };
static const int sched_iterations[] = { 1, 10, 37, 300 };

#define N_SCHED 4

static config
make_config (int kp, int sched, int warps, int levels, int use_initial,
    int zero_outside)
{
  config c;

  memset (&c, 0, sizeof (c));
  c.precision = kp_precision[kp];
  c.kernel = kp_kernel[kp];
  c.epsilon = sched_epsilon[sched];
  c.iterations = sched_iterations[sched];
  c.warps = warps;
  c.levels = levels;
  c.use_initial = use_initial;
  c.border = zero_outside ? CF_WARP_ZERO_OUTSIDE : CF_WARP_CLAMP;
  return c;
}

static void
run_grid (void)
{
  /* (use_initial, zero outside) over the 6 (warps, levels) cells of one
   * kernel and schedule: each value twice at least */
  static const int mix[6][2] = { {0, 1}, {1, 0}, {0, 0}, {1, 1}, {1, 0},
  {0, 1}
  };
  static const int edge_sizes[][2] = { {1, 1}, {2, 3}, {1, 37}, {37, 1},
  {65, 33}, {130, 71}
  };
  int kp, s, w, l, t, r, p, e;

  /* every kernel x schedule x warps x levels on an odd size */
  for (kp = 0; kp < N_KP; kp++)
    for (s = 0; s < N_SCHED; s++)
      for (w = 0; w < 2; w++)
        for (l = 0; l < LEVEL_SETS; l++) {
          const int *m = mix[w * LEVEL_SETS + l];
          config c = make_config (kp, s, w == 0 ? 1 : 3, level_counts[l],
              m[0], m[1]);

          run_and_hash (333, 201, CF_SYNTH_SMOOTH, &c);
        }

  /* BLOCKED's shape: T = 1 ... 8 x 32 / 64 rows, both precisions, on an
   * odd size (1 warp, 10 iterations: T does not divide most counts) and
   * on 640x480 (3 warps, 37 iterations) */
  for (p = 0; p < 2; p++)
    for (t = 1; t <= CF_TVL1_MAX_BLOCK_ITERATIONS; t++)
      for (r = 0; r < 2; r++) {
        config c = make_config (p == 0 ? 3 : 6, 1, 1, 5, (t + r) % 2, t % 2);
        config d = make_config (p == 0 ? 3 : 6, 2, 3, 3, t % 2, (t + r) % 2);

        c.block_iterations = d.block_iterations = t;
        c.tile_rows = d.tile_rows = r == 0 ? 32 : 64;
        run_and_hash (333, 201, CF_SYNTH_SMOOTH, &c);
        run_and_hash (640, 480, CF_SYNTH_ROTATION_ZOOM, &d);
      }
  /* AUTO's shape set by hand, and a set shape with ε > 0 (FUSED runs) */
  for (p = 0; p < 2; p++) {
    config c = make_config (p == 0 ? 0 : 4, 2, 3, 3, 1, 1);
    config d = make_config (p == 0 ? 0 : 4, 1, 1, 5, 0, 0);
    config f = make_config (p == 0 ? 3 : 6, 3, 3, 3, 0, 1);

    c.block_iterations = 3;
    c.tile_rows = 64;
    d.block_iterations = 8;
    d.tile_rows = 32;
    f.block_iterations = 4;
    f.tile_rows = 64;
    run_and_hash (640, 480, CF_SYNTH_ROTATION_ZOOM, &c);
    run_and_hash (640, 480, CF_SYNTH_ROTATION_ZOOM, &d);
    run_and_hash (640, 480, CF_SYNTH_ROTATION_ZOOM, &f);
  }

  /* every kernel at 1080p */
  for (kp = 0; kp < N_KP; kp++) {
    config a = make_config (kp, 1, 1, 5, 0, 0);
    config b = make_config (kp, 2, 3, 3, 1, 1);
    config c = make_config (kp, 3, 3, 5, 0, 1);

    run_and_hash (1920, 1080, CF_SYNTH_SMOOTH, &a);
    run_and_hash (1920, 1080, CF_SYNTH_SMOOTH, &b);
    run_and_hash (1920, 1080, CF_SYNTH_SMOOTH, &c);
  }

  /* the median filter after each warp: both sizes on every kernel with a
   * fixed count, 5 x 5 with ε > 0, at 1080p, and on tiny sizes */
  for (kp = 0; kp < N_KP; kp++)
    for (s = 0; s < 2; s++) {
      config c = make_config (kp, 2, 3, 3, s, 1);
      config d = make_config (kp, 3, 3, 5, 0, 1);

      c.median = s == 0 ? 5 : 3;
      d.median = 5;
      run_and_hash (333, 201, CF_SYNTH_SMOOTH, &c);
      if (s == 0)
        run_and_hash (333, 201, CF_SYNTH_SMOOTH, &d);
    }
  for (p = 0; p < 2; p++) {
    config c = make_config (p == 0 ? 3 : 6, 1, 3, 5, 0, 1);

    c.median = 5;
    run_and_hash (1920, 1080, CF_SYNTH_SMOOTH, &c);
    for (e = 0; e < 3; e++)
      run_and_hash (edge_sizes[e][0], edge_sizes[e][1], CF_SYNTH_TRANSLATION,
          &c);
  }

  /* 1-pixel axes, tiny and odd sizes */
  for (e = 0; e < (int) (sizeof (edge_sizes) / sizeof (edge_sizes[0])); e++)
    for (kp = 0; kp < N_KP; kp++) {
      config a = make_config (kp, 2, 3, 3, e % 2, (e + kp) % 2);
      config b = make_config (kp, 3, 1, 5, (e + 1) % 2, (e + kp + 1) % 2);

      run_and_hash (edge_sizes[e][0], edge_sizes[e][1],
          CF_SYNTH_TRANSLATION, &a);
      run_and_hash (edge_sizes[e][0], edge_sizes[e][1],
          CF_SYNTH_TRANSLATION, &b);
    }
}

/* Per-level schedules (finest first): (warps list, iterations list) on 5
 * and 3 levels. The first two repeat one count, so a tree without lists
 * runs them as uniform counts; the others differ per level, lists shorter
 * than the pyramid included, and counts that T does not divide. */
static void
run_per_level (void)
{
  static const char *lists[][2] = {
    {"3", "10,10,10"},
    {"1,1,1,1,1", "37"},
    {"1,2,3", "10,37"},
    {"1,1,2,3,5", "7,13,29,61,125"},
    {"2,1", "1,5,10"},
  };
  int kp, i, s;

  for (kp = 0; kp < N_KP; kp++)
    for (i = 0; i < (int) (sizeof (lists) / sizeof (lists[0])); i++)
      for (s = 0; s < 2; s++) {
        /* ε 0 (s = 0, the list is the count) and ε 0.01 (the cap) */
        config c = make_config (kp, s == 0 ? 1 : 3, 1, i % 2 ? 3 : 5,
            (i + s) % 2, (i + kp) % 2);

        c.warps_list = lists[i][0];
        c.iterations_list = lists[i][1];
        run_and_hash (333, 201, CF_SYNTH_SMOOTH, &c);
      }
  /* BLOCKED's launch split per level: every T on a 640x480 pair */
  for (kp = 3; kp <= 6; kp += 3) {
    int t;

    for (t = 1; t <= CF_TVL1_MAX_BLOCK_ITERATIONS; t++) {
      config c = make_config (kp, 1, 1, 5, t % 2, 1);

      c.block_iterations = t;
      c.tile_rows = t % 2 ? 64 : 32;
      c.warps_list = "1,2";
      c.iterations_list = "3,7,11,16,40";
      run_and_hash (640, 480, CF_SYNTH_ROTATION_ZOOM, &c);
    }
  }
}

/* ------------------------------------------------------------- timing */

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
run_timing (int runs)
{
  /* (levels, warps, iterations, ε, median-size) */
  static const struct
  {
    const char *name;
    int levels, warps, iterations;
    float epsilon;
    int median;
  } shapes[] = {
    {"5x1x10", 5, 1, 10, 0.0f, 0},
    {"5x3x10", 5, 3, 10, 0.0f, 0},
    {"ipol-5x5x300-e0.01", 5, 5, 300, 0.01f, 0},
    {"5x3x10-m5", 5, 3, 10, 0.0f, 5},
  };
  static const cf_tvl1_kernel kernels[] = { CF_TVL1_KERNEL_BLOCKED,
    CF_TVL1_KERNEL_FUSED
  };
  scene *sc = get_scene (1920, 1080, CF_SYNTH_SMOOTH);
  double *ms = calloc (runs, sizeof (double));
  cudaEvent_t a, b;
  int sh, p, k, i;

  CHECK_CUDA (cudaEventCreate (&a));
  CHECK_CUDA (cudaEventCreate (&b));
  for (sh = 0; sh < (int) (sizeof (shapes) / sizeof (shapes[0])); sh++)
    for (p = 0; p < 2; p++)
      for (k = 0; k < 2; k++) {
        config c;
        cf_cuda_tvl1_plan *plan;

        memset (&c, 0, sizeof (c));
        c.precision = p == 0 ? CF_PRECISION_FP32 : CF_PRECISION_FP16;
        c.kernel = kernels[k];
        c.epsilon = shapes[sh].epsilon;
        c.iterations = shapes[sh].iterations;
        c.warps = shapes[sh].warps;
        c.levels = shapes[sh].levels;
        c.border = CF_WARP_ZERO_OUTSIDE;
        c.median = shapes[sh].median;
        {
          cf_tvl1_params probe;

          /* a tree without median-size: nothing to time */
          if (params_of (&c, &probe) != CF_OK)
            continue;
        }
        plan = get_plan (sc->width, sc->height, c.precision, c.kernel);
        for (i = -WARMUP_RUNS; i < runs; i++) {
          float t;

          CHECK (prepare_run (sc, &c, plan));
          CHECK_CUDA (cudaEventRecord (a, stream));
          CHECK (enqueue_run (sc, &c, plan));
          CHECK_CUDA (cudaEventRecord (b, stream));
          CHECK_CUDA (cudaEventSynchronize (b));
          CHECK_CUDA (cudaEventElapsedTime (&t, a, b));
          if (i >= 0)
            ms[i] = t;
        }
        qsort (ms, runs, sizeof (double), compare_doubles);
        printf ("1920x1080/%s/%s/%s %.4f\n", shapes[sh].name,
            p == 0 ? "fp32" : "fp16", kernel_name (c.kernel),
            runs % 2 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] +
                ms[runs / 2]));
        fflush (stdout);
      }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  free (ms);
}

int
main (int argc, char **argv)
{
  int timing = 0, runs = DEFAULT_RUNS, i;
  struct cudaDeviceProp prop;

  for (i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--time")) {
      timing = 1;
    } else if (!strcmp (argv[i], "--runs") && i + 1 < argc) {
      char *end;
      long n = strtol (argv[++i], &end, 10);

      if (end == argv[i] || *end != '\0' || n < 1 || n > 1000) {
        fprintf (stderr, PROG ": bad --runs '%s' (1 ... 1000)\n", argv[i]);
        return 2;
      }
      runs = (int) n;
    } else {
      fprintf (stderr, "usage: " PROG " [--time [--runs N]]\n");
      return 2;
    }
  }
  if (!cf_cuda_device_available ()) {
    fprintf (stderr, PROG ": no usable CUDA device\n");
    return 77;
  }
  CHECK_CUDA (cudaGetDeviceProperties (&prop, 0));
  fprintf (stderr, PROG ": %s (%d SMs)\n", prop.name,
      prop.multiProcessorCount);
  CHECK_CUDA (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  if (timing)
    run_timing (runs);
  else {
    run_grid ();
    run_per_level ();
  }
  free_all ();
  cudaStreamDestroy (stream);
  return 0;
}
