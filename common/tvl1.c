/* gst-cudaflow — TV-L1 optical flow, CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Source: the IPOL reference code of Sánchez, Meinhardt-Llopis and
 * Facciolo (2013): the scheme of `tvl1flow_lib.c` Dual_TVL1_optic_flow, the
 * multiscale driver and preprocessing of `Dual_TVL1_optic_flow_multiscale`
 * and `zoom.c`; its details that matter: step order, p reset per level,
 * adjoint operators, halved one-sided ∇I1 (docs/references.md). Serial
 * loops, one numerical step per function; cf_tvl1_flow only orchestrates.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/tvl1.h"
#include "common/median.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* IPOL's defaults: main.c PAR_DEFAULT_* and tvl1flow_lib.c MAX_ITERATIONS,
 * PRESMOOTHING_SIGMA; 5 scales at zoom factor 0.5. The table's defaults and
 * the ipol preset. */
#define IPOL_TAU 0.25
#define IPOL_LAMBDA 0.15
#define IPOL_THETA 0.3
#define IPOL_WARPS 5
#define IPOL_ITERATIONS 300
#define IPOL_EPSILON 0.01
#define IPOL_SIGMA 0.8
#define IPOL_LEVELS 5
#define IPOL_ETA 0.5

/* The defaults are the balanced preset: 6 levels (5 lose displacements
 * beyond ~30 px), epsilon 0 (a fixed cost per frame), 2 warps x 20
 * iterations on the coarse levels and 1 x 30 on the finest, which holds
 * most of the time (30: whole launches of 5 iterations there), with
 * presmoothing sigma 0.65, the coupling theta 0.4 (fewer iterations
 * converge further with it) and a 5 x 5 median of the finest level's
 * result: as good as 1 x 35 at IPOL's theta 0.3 on every set, and faster.
 * Measured in docs/flow-frontier.md. */
#define BALANCED_LEVELS 6
#define BALANCED_WARPS 2
#define BALANCED_ITERATIONS 20
#define BALANCED_WARPS_PER_LEVEL "1,2"
#define BALANCED_ITERATIONS_PER_LEVEL "30,20"
#define BALANCED_EPSILON 0.0
#define BALANCED_SIGMA 0.65
#define BALANCED_THETA 0.4
#define BALANCED_MEDIAN_SIZE_PER_LEVEL "5,0"

/* fast, balanced and accurate linearise with the two frames' gradients
 * half and half: better on every set we check (docs/flow-frontier.md);
 * ipol and romera keep IPOL's, the second frame's alone */
#define GRADIENT_BLEND 0.5

/* The weighted median's range σ and narrowest level, measured in
 * docs/flow-frontier.md: σ 14 (of 255) gave the best Middlebury EPE of 7,
 * 10, 14, 20 and 30 and beat 10 on every set; levels below 150 px lose
 * smooth large motions to the filter. */
#define WMEDIAN_SIGMA 14.0
#define WMEDIAN_MIN_WIDTH 150

static cf_status parse_warps_row (void *params, const char *text,
    cf_error * err);
static cf_status parse_iterations_row (void *params, const char *text,
    cf_error * err);
static cf_status parse_lambda_row (void *params, const char *text,
    cf_error * err);
static cf_status parse_median_row (void *params, const char *text,
    cf_error * err);

static const cf_param_choice border_choices[] = {
  {CF_WARP_CLAMP, "clamp", "Samples outside I1 take the nearest pixel"},
  {CF_WARP_ZERO_OUTSIDE, "zero-outside", "No data term where x + u leaves "
        "I1 (IPOL border_out)"},
  {0, NULL, NULL}
};

/* The window sizes of median-size (cf_flow_median's, and 0) */
static const cf_param_choice median_choices[] = {
  {0, "off", "No median filter (IPOL)"},
  {3, "3x3", "3 x 3 median of u after each warp"},
  {5, "5x5", "5 x 5 median of u after each warp (Sun, Roth and Black)"},
  {0, NULL, NULL}
};

/* The window sizes of weighted-median-size (cf_flow_weighted_median's, and
 * 0) */
static const cf_param_choice wmedian_choices[] = {
  {0, "off", "No weighted median"},
  {3, "3x3", "3 x 3 weighted median of u after each warp"},
  {5, "5x5", "5 x 5 weighted median of u after each warp"},
  {7, "7x7", "7 x 7 weighted median of u after each warp"},
  {9, "9x9", "9 x 9 weighted median of u after each warp"},
  {0, NULL, NULL}
};

static const cf_param tvl1_params[] = {
  {
    .name = "tau", .nick = "Tau", .type = CF_PARAM_FLOAT,
    .min = CF_TVL1_TAU_MIN, .max = CF_TVL1_TAU_MAX, .def = IPOL_TAU,
    .offset = offsetof (cf_tvl1_params, tau), .flags = CF_PARAM_TUNABLE,
    .blurb = "Time step tau of the dual update (stable up to 0.25)",
  },
  {
    .name = "lambda", .nick = "Lambda", .type = CF_PARAM_FLOAT,
    .min = CF_TVL1_LAMBDA_MIN, .max = CF_TVL1_LAMBDA_MAX, .def = IPOL_LAMBDA,
    .unit = "1/intensity (0..255)", .offset = offsetof (cf_tvl1_params,
        lambda), .flags = CF_PARAM_TUNABLE,
    .replaces = "lambda-per-level",
    .blurb = "Weight of the data term (intensities normalised to 0..255, see "
        "normalize); smaller = smoother flow; setting it clears "
        "lambda-per-level",
  },
  {
    .name = "lambda-per-level", .nick = "Lambda Per Level",
    .type = CF_PARAM_TEXT, .parse = parse_lambda_row, .flags = CF_PARAM_LIVE,
    .blurb = "Lambda on each pyramid level, finest first, comma-separated, "
        "e.g. \"0.25,0.25,0.15\" (sharp, clean video: the fine levels fit "
        "closer, the coarse ones keep large motions; noise and "
        "illumination changes want lambda's 0.15 everywhere); levels past "
        "the list reuse its last entry; empty = lambda on every level",
  },
  {
    .name = "theta", .nick = "Theta", .type = CF_PARAM_FLOAT,
    .min = CF_TVL1_THETA_MIN, .max = CF_TVL1_THETA_MAX, .def = BALANCED_THETA,
    .offset = offsetof (cf_tvl1_params, theta), .flags = CF_PARAM_TUNABLE,
    .blurb = "Coupling between the flow u and its auxiliary v (|u - v|^2 / "
        "2 theta)",
  },
  {
    .name = "warps", .nick = "Warps", .type = CF_PARAM_INT,
    .min = 1, .max = CF_TVL1_WARPS_MAX, .def = BALANCED_WARPS,
    .offset = offsetof (cf_tvl1_params, warps), .flags = CF_PARAM_TUNABLE,
    .replaces = "warps-per-level",
    .blurb = "Warps per pyramid level: each re-warps frame t by the current "
        "flow (on the levels warps-per-level leaves out; setting warps "
        "clears that list, so it counts on every level)",
  },
  {
    .name = "iterations", .nick = "Iterations", .type = CF_PARAM_INT,
    .min = 1, .max = CF_TVL1_ITERATIONS_MAX, .def = BALANCED_ITERATIONS,
    .offset = offsetof (cf_tvl1_params, max_iterations),
    .flags = CF_PARAM_TUNABLE, .replaces = "iterations-per-level",
    .blurb = "Iterations per warp: the count when epsilon is 0, else the "
        "most (on the levels iterations-per-level leaves out; setting "
        "iterations clears that list, so it counts on every level)",
  },
  {
    .name = "warps-per-level", .nick = "Warps Per Level",
    .type = CF_PARAM_TEXT, .parse = parse_warps_row, .flags = CF_PARAM_LIVE,
    .def_text = BALANCED_WARPS_PER_LEVEL,
    .blurb = "Warps on each pyramid level, finest first, comma-separated, "
        "e.g. \"1,2,4\" (each 1..1000); levels past the list reuse its "
        "last entry; empty = warps on every level",
  },
  {
    .name = "iterations-per-level", .nick = "Iterations Per Level",
    .type = CF_PARAM_TEXT, .parse = parse_iterations_row,
    .flags = CF_PARAM_LIVE,
    .def_text = BALANCED_ITERATIONS_PER_LEVEL,
    .blurb = "Iterations per warp on each pyramid level, finest first, "
        "comma-separated, e.g. \"20,50,100\" (each 1..1000000; the most "
        "when epsilon > 0); levels past the list reuse its last entry; "
        "empty = iterations on every level",
  },
  {
    .name = "epsilon", .nick = "Epsilon", .type = CF_PARAM_FLOAT,
    .min = 0.0, .max = CF_TVL1_EPSILON_MAX, .def = BALANCED_EPSILON,
    .unit = "pixels", .offset = offsetof (cf_tvl1_params, epsilon),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Stop a warp's iterations when the mean squared update of the "
        "flow falls below epsilon^2 (pixels); 0 = always run iterations",
  },
  {
    .name = "sigma", .nick = "Sigma", .type = CF_PARAM_FLOAT,
    .min = 0.0, .max = CF_TVL1_SIGMA_MAX, .def = BALANCED_SIGMA,
    .unit = "pixels", .offset = offsetof (cf_tvl1_params, presmooth_sigma),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Gaussian presmoothing of both frames before the pyramid, "
        "pixels (0 = none)",
  },
  {
    .name = "normalize", .nick = "Normalize", .type = CF_PARAM_BOOL,
    .def = 1, .offset = offsetof (cf_tvl1_params, normalize),
    .flags = CF_PARAM_LIVE,
    .blurb = "Stretch each pair's joint intensity range to 0..255 (as IPOL), "
        "so lambda means the same for dark and bright video",
  },
  {
    /* an int with three values, not an enum: "median-size=5" reads as
     * what it is. Live but not controllable: no value between two sizes
     * means anything to a control source's interpolation */
    .name = "median-size", .nick = "Median Size", .type = CF_PARAM_INT,
    .min = 0, .max = CF_MEDIAN_SIZE_MAX, .choices = median_choices,
    .def = 0, .unit = "pixels",
    .offset = offsetof (cf_tvl1_params, median_size), .flags = CF_PARAM_LIVE,
    .replaces = "median-size-per-level",
    .blurb = "Median filter of the flow after each warp, window side in "
        "pixels: 0 = off (IPOL), 3 or 5 (Wedel et al. 2009; 5 x 5 as Sun, "
        "Roth and Black 2010); removes outliers and keeps motion edges; "
        "setting it clears median-size-per-level",
  },
  {
    .name = "median-size-per-level", .nick = "Median Size Per Level",
    .type = CF_PARAM_TEXT, .parse = parse_median_row, .flags = CF_PARAM_LIVE,
    .def_text = BALANCED_MEDIAN_SIZE_PER_LEVEL,
    .blurb = "Median filter window on each pyramid level, finest first, "
        "comma-separated, e.g. \"0,5\" (each 0, 3 or 5; the coarse levels' "
        "filter keeps large motions for little time); levels past the list "
        "reuse its last entry; empty = median-size on every level",
  },
  {
    .name = "weighted-median-size", .nick = "Weighted Median Size",
    .type = CF_PARAM_INT, .min = 0, .max = CF_WMEDIAN_SIZE_MAX,
    .choices = wmedian_choices, .def = 0, .unit = "pixels",
    .offset = offsetof (cf_tvl1_params, wmedian_size),
    /* live, not controllable: as median-size */
    .flags = CF_PARAM_LIVE,
    .blurb = "Weighted median of the flow after each warp on the levels at "
        "least weighted-median-min-width wide, window side in pixels (0 = "
        "off, 3, 5, 7 or 9): neighbours of similar brightness in the first "
        "frame count, so motion edges follow image edges (Sun, Roth and "
        "Black 2010); replaces median-size there",
  },
  {
    .name = "weighted-median-sigma", .nick = "Weighted Median Sigma",
    .type = CF_PARAM_FLOAT, .min = CF_WMEDIAN_SIGMA_MIN,
    .max = CF_WMEDIAN_SIGMA_MAX, .def = WMEDIAN_SIGMA,
    .unit = "intensity (0..255)",
    .offset = offsetof (cf_tvl1_params, wmedian_sigma),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Brightness difference at which a neighbour's weight in the "
        "weighted median falls to exp(-1/2)",
  },
  {
    .name = "weighted-median-min-width", .nick = "Weighted Median Min Width",
    .type = CF_PARAM_INT, .min = 1, .max = 65535,
    .def = WMEDIAN_MIN_WIDTH, .unit = "pixels",
    .offset = offsetof (cf_tvl1_params, wmedian_min_width),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Narrowest pyramid level that takes the weighted median; "
        "coarser levels keep median-size (on small levels the weighted "
        "median puts steps into smooth large motions)",
  },
  {
    .name = "brightness-model", .nick = "Brightness Model",
    .type = CF_PARAM_BOOL, .def = 0,
    .offset = offsetof (cf_tvl1_params, brightness_model),
    .flags = CF_PARAM_LIVE,
    .blurb = "Fit the second frame's light to the first after each warp (a "
        "gain and a bias over the pixels whose match lies inside the frame, "
        "the previous warp's outliers left out) and compare with that: for "
        "frames whose "
        "exposure or illumination changes; a fit within 2 % and 2 grey "
        "levels of unchanged light changes nothing (not in IPOL)",
  },
  {
    .name = "gradient-blend", .nick = "Gradient Blend",
    .type = CF_PARAM_FLOAT, .min = 0.0, .max = 1.0,
    .def = GRADIENT_BLEND,
    .offset = offsetof (cf_tvl1_params, gradient_blend),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Weight of the first frame's gradient in the data term's "
        "linearisation, against the warped second frame's (0: the second "
        "frame's alone, as IPOL; not in IPOL)",
  },
  {
    .name = "border", .nick = "Border", .type = CF_PARAM_CHOICE,
    .choices = border_choices, .def = CF_WARP_ZERO_OUTSIDE,
    .offset = offsetof (cf_tvl1_params, warp_border),
    .flags = CF_PARAM_NO_PROPERTY,
    .blurb = "Border of the per-warp bicubic samples",
  },
  {NULL}
};

/* Each preset defines the whole schedule (levels, warps and iterations on
 * every level, epsilon, median filter) over the same model parameters
 * (tau, lambda, theta as IPOL; balanced couples more, theta 0.4); a row
 * that `replaces` a list comes before the list, since setting it by name
 * clears the list. fast, balanced and
 * accurate are points of the measured speed/accuracy front that also
 * keep large displacements (docs/flow-frontier.md), realtime is an alias
 * of fast; ipol and romera reproduce the references. */
#define CF_SET_MODEL_THETA(theta) \
  CF_SET ("scale-factor", IPOL_ETA), CF_SET ("tau", IPOL_TAU), \
  CF_SET ("lambda", IPOL_LAMBDA), CF_SET ("theta", theta)
#define CF_SET_MODEL CF_SET_MODEL_THETA (IPOL_THETA)
/* accurate presmooths less, fits the two finest levels closer to the data
 * and weighs its median by the frame (docs/flow-frontier.md), so each
 * preset sets sigma */
#define ACCURATE_SIGMA 0.7
#define ACCURATE_LAMBDAS "0.2,0.2,0.15"
#define ACCURATE_WMEDIAN_SIZE 5
/* fast's settings, also those of realtime, its alias */
#define TVL1_FAST_SETTINGS \
  {CF_SET_MODEL, CF_SET ("levels", 6), CF_SET ("warps", 2), \
    CF_SET ("iterations", 20), \
    CF_SET_TEXT ("warps-per-level", "1,1,1,2"), \
    CF_SET_TEXT ("iterations-per-level", "3,10,20"), \
    CF_SET ("epsilon", 0.0), CF_SET ("median-size", 0), \
    CF_SET ("weighted-median-size", 0), \
    CF_SET_TEXT ("median-size-per-level", NULL), \
    CF_SET_TEXT ("lambda-per-level", NULL), \
    CF_SET ("brightness-model", 0), \
    CF_SET ("gradient-blend", GRADIENT_BLEND), \
    CF_SET ("sigma", IPOL_SIGMA)}
static const cf_preset tvl1_presets[] = {
  {"ipol", "IPOL tvl1flow defaults (Sanchez, Meinhardt-Llopis and "
        "Facciolo 2013): 5 levels, 5 warps, up to 300 iterations, epsilon "
        "0.01, no median filter (H100, 1080p, fp16: 8.0 ms; Middlebury EPE "
        "0.375)",
      {CF_SET ("levels", IPOL_LEVELS), CF_SET ("scale-factor", IPOL_ETA),
            CF_SET ("warps", IPOL_WARPS), CF_SET ("iterations",
              IPOL_ITERATIONS), CF_SET ("epsilon", IPOL_EPSILON),
            CF_SET ("tau", IPOL_TAU), CF_SET ("lambda", IPOL_LAMBDA),
            CF_SET ("theta", IPOL_THETA), CF_SET ("sigma", IPOL_SIGMA),
            CF_SET ("median-size", 0), CF_SET ("weighted-median-size", 0),
            CF_SET_TEXT ("warps-per-level", NULL),
          CF_SET_TEXT ("iterations-per-level", NULL),
          CF_SET_TEXT ("median-size-per-level", NULL),
          CF_SET_TEXT ("lambda-per-level", NULL),
          CF_SET ("brightness-model", 0), CF_SET ("gradient-blend", 0)}},
  {"realtime", "An alias of fast, the fastest setting that keeps large "
        "motions (H100, 1080p, fp16: 0.43 ms; Middlebury EPE 0.576); the "
        "embedded-GPU schedule this name used to set is romera",
      TVL1_FAST_SETTINGS},
  {"fast", "Fastest that keeps large motions: 6 levels, warps 1,1,1,2 and "
        "iterations 3,10,20 per level (finest first, the last entry for "
        "coarser levels), epsilon 0, gradient-blend 0.5 (H100, 1080p, "
        "fp16: 0.43 ms; Middlebury EPE 0.576)",
      TVL1_FAST_SETTINGS},
  {"balanced", "The defaults: 6 levels, warps 1,2 and iterations 30,20 "
        "per level (finest first, the last entry for coarser levels), "
        "epsilon 0, presmoothing sigma 0.65, theta 0.4, a 5 x 5 median "
        "after the finest level's warp, gradient-blend 0.5 (H100, 1080p, "
        "fp16: 0.97 ms; Middlebury EPE 0.407)",
      {CF_SET_MODEL_THETA (BALANCED_THETA),
            CF_SET ("levels", BALANCED_LEVELS),
            CF_SET ("warps", BALANCED_WARPS),
            CF_SET ("iterations", BALANCED_ITERATIONS),
            CF_SET_TEXT ("warps-per-level", BALANCED_WARPS_PER_LEVEL),
            CF_SET_TEXT ("iterations-per-level",
              BALANCED_ITERATIONS_PER_LEVEL),
            CF_SET ("epsilon", BALANCED_EPSILON), CF_SET ("median-size", 0),
            CF_SET ("weighted-median-size", 0),
            CF_SET_TEXT ("median-size-per-level",
              BALANCED_MEDIAN_SIZE_PER_LEVEL),
            CF_SET_TEXT ("lambda-per-level", NULL),
          CF_SET ("brightness-model", 0), CF_SET ("gradient-blend",
              GRADIENT_BLEND),
          CF_SET ("sigma", BALANCED_SIGMA)}},
  {"accurate", "6 levels, 3 warps, 20 iterations, epsilon 0, presmoothing "
        "sigma 0.7, lambda 0.2 on the two finest levels, after each warp a "
        "5 x 5 weighted median on the levels at least 150 px wide and a 5 x "
        "5 median on the others, the brightness model and gradient-blend "
        "0.5 (H100, 1080p, fp16: 2.36 ms; Middlebury EPE 0.348)",
      {CF_SET_MODEL, CF_SET ("levels", 6), CF_SET ("warps", 3),
            CF_SET ("iterations", 20),
            CF_SET ("epsilon", 0.0), CF_SET ("median-size", 5),
            CF_SET ("weighted-median-size", ACCURATE_WMEDIAN_SIZE),
            CF_SET ("weighted-median-sigma", WMEDIAN_SIGMA),
            CF_SET ("weighted-median-min-width", WMEDIAN_MIN_WIDTH),
            CF_SET_TEXT ("warps-per-level", NULL),
            CF_SET_TEXT ("iterations-per-level", NULL),
            CF_SET_TEXT ("median-size-per-level", NULL),
            CF_SET_TEXT ("lambda-per-level", ACCURATE_LAMBDAS),
          CF_SET ("brightness-model", 1), CF_SET ("gradient-blend",
              GRADIENT_BLEND),
          CF_SET ("sigma", ACCURATE_SIGMA)}},
  /* last, so that the other presets keep their enum values */
  {"romera", "The time budget of TV-L1 on embedded GPUs (Romera et al.): "
        "3 levels, 1 warp, 10 iterations, epsilon 0 (H100, 1080p, fp16: "
        "0.35 ms; Middlebury EPE 2.270; fast is more accurate and keeps "
        "large motions)",
      {CF_SET_MODEL, CF_SET ("levels", 3), CF_SET ("warps", 1),
            CF_SET ("iterations", 10),
            CF_SET ("epsilon", 0.0), CF_SET ("sigma", IPOL_SIGMA),
            CF_SET ("median-size", 0),
            CF_SET ("weighted-median-size", 0),
            CF_SET_TEXT ("warps-per-level", NULL),
          CF_SET_TEXT ("iterations-per-level", NULL),
          CF_SET_TEXT ("median-size-per-level", NULL),
          CF_SET_TEXT ("lambda-per-level", NULL),
          CF_SET ("brightness-model", 0), CF_SET ("gradient-blend", 0)}},
  {NULL}
};

/* the enum fields are stored as int */
_Static_assert (sizeof (cf_warp_border) == sizeof (int),
    "cf_warp_border is int-sized");

const cf_param_table cf_tvl1_param_table = {
  .method = "tvl1",
  .params_size = sizeof (cf_tvl1_params),
  .params = tvl1_params,
  .presets = tvl1_presets,
  .presets_blurb = "Set the whole schedule at once: levels, warps, "
      "iterations, epsilon, the filters, the per-level lists (cleared "
      "where a preset has none), sigma, the brightness model and the "
      "gradient blend",
  .default_levels = BALANCED_LEVELS
};

void
cf_tvl1_params_init (cf_tvl1_params * params)
{
  cf_params_init (&cf_tvl1_param_table, params);
}

void
cf_tvl1_params_init_ipol (cf_tvl1_params * params)
{
  cf_tvl1_params_init (params);
  params->warps = IPOL_WARPS;
  params->max_iterations = IPOL_ITERATIONS;
  params->n_warps_per_level = 0;
  params->n_iterations_per_level = 0;
  params->epsilon = IPOL_EPSILON;
  params->presmooth_sigma = IPOL_SIGMA;
  params->theta = IPOL_THETA;
  params->n_median_size_per_level = 0;
  params->gradient_blend = 0.0f;
}

cf_status
cf_tvl1_params_set (cf_tvl1_params * params, const char *name, double value)
{
  return cf_params_set (&cf_tvl1_param_table, params, name, value, NULL);
}

/* A per-level list of @params into @list and @n_list, each entry
 * 1..@max; @list and @n_list unchanged on an error. */
static cf_status
parse_level_list (const char *text, const char *what, const char *example,
    int max, int *list, int *n_list, cf_error * err)
{
  int values[CF_PYRAMID_MAX_LEVELS], n;
  cf_status status;

  status = cf_params_parse_level_list (text, what, example, 1, max,
      CF_PYRAMID_MAX_LEVELS, values, &n, err);
  if (status != CF_OK)
    return status;
  memcpy (list, values, (size_t) n * sizeof (int));
  *n_list = n;
  return CF_OK;
}

cf_status
cf_tvl1_parse_warps_per_level (cf_tvl1_params * params, const char *text,
    cf_error * err)
{
  if (params == NULL) {
    cf_error_set (err, "warps per level: no parameters");
    return CF_ERROR_INVALID;
  }
  return parse_level_list (text, "warps per level", "1,2,4",
      CF_TVL1_WARPS_MAX, params->warps_per_level, &params->n_warps_per_level,
      err);
}

cf_status
cf_tvl1_parse_iterations_per_level (cf_tvl1_params * params,
    const char *text, cf_error * err)
{
  if (params == NULL) {
    cf_error_set (err, "iterations per level: no parameters");
    return CF_ERROR_INVALID;
  }
  return parse_level_list (text, "iterations per level", "20,50,100",
      CF_TVL1_ITERATIONS_MAX, params->iterations_per_level,
      &params->n_iterations_per_level, err);
}

/* A window cf_flow_median takes, or 0 (no filter) */
static int
median_size_valid (int size)
{
  return size == 0 || cf_median_size_valid (size);
}

cf_status
cf_tvl1_parse_median_size_per_level (cf_tvl1_params * params,
    const char *text, cf_error * err)
{
  int values[CF_PYRAMID_MAX_LEVELS], n, l;
  cf_status status;

  if (params == NULL) {
    cf_error_set (err, "median size per level: no parameters");
    return CF_ERROR_INVALID;
  }
  status = cf_params_parse_level_list (text, "median size per level", "0,5",
      0, CF_MEDIAN_SIZE_MAX, CF_PYRAMID_MAX_LEVELS, values, &n, err);
  if (status != CF_OK)
    return status;
  for (l = 0; l < n; l++)
    if (!median_size_valid (values[l])) {
      cf_error_set (err, "median size per level: entry %d is %d, not 0, 3 "
          "or 5", l + 1, values[l]);
      return CF_ERROR_FORMAT;
    }
  memcpy (params->median_size_per_level, values, (size_t) n * sizeof (int));
  params->n_median_size_per_level = n;
  return CF_OK;
}

cf_status
cf_tvl1_parse_lambda_per_level (cf_tvl1_params * params, const char *text,
    cf_error * err)
{
  float values[CF_PYRAMID_MAX_LEVELS];
  cf_status status;
  int n;

  if (params == NULL) {
    cf_error_set (err, "lambda per level: no parameters");
    return CF_ERROR_INVALID;
  }
  status = cf_params_parse_float_level_list (text, "lambda per level",
      "0.25,0.25,0.15", CF_TVL1_LAMBDA_MIN, CF_TVL1_LAMBDA_MAX,
      CF_PYRAMID_MAX_LEVELS, values, &n, err);
  if (status != CF_OK)
    return status;
  memcpy (params->lambda_per_level, values, (size_t) n * sizeof (float));
  params->n_lambda_per_level = n;
  return CF_OK;
}

static int
is_blank (const char *text)
{
  while (text != NULL && isspace ((unsigned char) *text))
    text++;
  return text == NULL || *text == '\0';
}

/* The TEXT rows: no list (NULL or blank) = the uniform value on every
 * level. */
static cf_status
parse_warps_row (void *params, const char *text, cf_error * err)
{
  cf_tvl1_params *p = params;

  if (!is_blank (text))
    return cf_tvl1_parse_warps_per_level (p, text, err);
  p->n_warps_per_level = 0;
  return CF_OK;
}

static cf_status
parse_median_row (void *params, const char *text, cf_error * err)
{
  cf_tvl1_params *p = params;

  if (!is_blank (text))
    return cf_tvl1_parse_median_size_per_level (p, text, err);
  p->n_median_size_per_level = 0;
  return CF_OK;
}

static cf_status
parse_lambda_row (void *params, const char *text, cf_error * err)
{
  cf_tvl1_params *p = params;

  if (!is_blank (text))
    return cf_tvl1_parse_lambda_per_level (p, text, err);
  p->n_lambda_per_level = 0;
  return CF_OK;
}

static cf_status
parse_iterations_row (void *params, const char *text, cf_error * err)
{
  cf_tvl1_params *p = params;

  if (!is_blank (text))
    return cf_tvl1_parse_iterations_per_level (p, text, err);
  p->n_iterations_per_level = 0;
  return CF_OK;
}

/* Entry @level of a per-level list (finest first), its last entry past
 * its end, @uniform when it is empty. */
static int
level_entry (const int *list, int n, int uniform, int level)
{
  if (n <= 0)
    return uniform;
  if (level < 0)
    level = 0;
  return list[level < n ? level : n - 1];
}

int
cf_tvl1_level_warps (const cf_tvl1_params * params, int level)
{
  return level_entry (params->warps_per_level, params->n_warps_per_level,
      params->warps, level);
}

int
cf_tvl1_level_iterations (const cf_tvl1_params * params, int level)
{
  return level_entry (params->iterations_per_level,
      params->n_iterations_per_level, params->max_iterations, level);
}

int
cf_tvl1_level_median_size (const cf_tvl1_params * params, int level)
{
  return level_entry (params->median_size_per_level,
      params->n_median_size_per_level, params->median_size, level);
}

float
cf_tvl1_level_lambda (const cf_tvl1_params * params, int level)
{
  const int n = params->n_lambda_per_level;

  if (n <= 0)
    return params->lambda;
  if (level < 0)
    level = 0;
  return params->lambda_per_level[level < n ? level : n - 1];
}

static float
capped_product (float a, float b, float max)
{
  const float p = a * b;

  return p < max ? p : max;
}

void
cf_tvl1_scale_lambda (cf_tvl1_params * params, float scale)
{
  const float max = (float) CF_TVL1_LAMBDA_MAX;
  int l;

  params->lambda = capped_product (params->lambda, scale, max);
  for (l = 0; l < params->n_lambda_per_level; l++)
    params->lambda_per_level[l] =
        capped_product (params->lambda_per_level[l], scale, max);
}

int
cf_tvl1_level_wmedian_size (const cf_tvl1_params * params, int width)
{
  return width >= params->wmedian_min_width ? params->wmedian_size : 0;
}

int
cf_tvl1_uses_median (const cf_tvl1_params * params)
{
  int l;

  if (params->wmedian_size > 0)
    return 1;
  if (params->n_median_size_per_level == 0)
    return params->median_size > 0;
  for (l = 0; l < params->n_median_size_per_level; l++)
    if (params->median_size_per_level[l] > 0)
      return 1;
  return 0;
}

void
cf_tvl1_level_params (const cf_tvl1_params * params, int level,
    cf_tvl1_params * out)
{
  *out = *params;
  out->lambda = cf_tvl1_level_lambda (params, level);
  out->warps = cf_tvl1_level_warps (params, level);
  out->max_iterations = cf_tvl1_level_iterations (params, level);
  out->median_size = cf_tvl1_level_median_size (params, level);
  out->n_warps_per_level = 0;
  out->n_iterations_per_level = 0;
  out->n_median_size_per_level = 0;
  out->n_lambda_per_level = 0;
}

/* @n entries (0..CF_PYRAMID_MAX_LEVELS), each in 1..@max */
static int
level_list_valid (const int *list, int n, int max)
{
  int l;

  if (n < 0 || n > CF_PYRAMID_MAX_LEVELS)
    return 0;
  for (l = 0; l < n; l++)
    if (list[l] < 1 || list[l] > max)
      return 0;
  return 1;
}

static int
median_list_valid (const cf_tvl1_params * params)
{
  int l;

  if (params->n_median_size_per_level < 0 ||
      params->n_median_size_per_level > CF_PYRAMID_MAX_LEVELS)
    return 0;
  for (l = 0; l < params->n_median_size_per_level; l++)
    if (!median_size_valid (params->median_size_per_level[l]))
      return 0;
  return 1;
}

/* each entry in lambda's range, compared in float as the table's row */
static int
lambda_list_valid (const cf_tvl1_params * params)
{
  int l;

  if (params->n_lambda_per_level < 0 ||
      params->n_lambda_per_level > CF_PYRAMID_MAX_LEVELS)
    return 0;
  for (l = 0; l < params->n_lambda_per_level; l++)
    if (!(params->lambda_per_level[l] >= (float) CF_TVL1_LAMBDA_MIN &&
            params->lambda_per_level[l] <= (float) CF_TVL1_LAMBDA_MAX))
      return 0;
  return 1;
}

int
cf_tvl1_params_valid (const cf_tvl1_params * params)
{
  /* the table's rows, then what the per-level lists parsed into */
  return cf_params_valid (&cf_tvl1_param_table, params) &&
      level_list_valid (params->warps_per_level, params->n_warps_per_level,
      CF_TVL1_WARPS_MAX) &&
      level_list_valid (params->iterations_per_level,
      params->n_iterations_per_level, CF_TVL1_ITERATIONS_MAX) &&
      median_list_valid (params) && lambda_list_valid (params);
}

void
cf_tvl1_prepare_pyramid_params (const cf_tvl1_params * params,
    cf_pyramid_params * pyramid)
{
  pyramid->presmooth_sigma = params->presmooth_sigma;
}

/* I ← 255 (I − min) / (max − min) with min, max over both frames (IPOL
 * tvl1flow_lib.c image_normalization).
 * fp32, like IPOL's float images (its 255.0 literal is double; the result is
 * stored as float either way). */
void
cf_tvl1_normalize_pair (cf_image * i0, cf_image * i1)
{
  cf_image *frames[2] = { i0, i1 };
  float lo = INFINITY, hi = -INFINITY, den;
  int k, x, y;

  if (i0 == NULL || i1 == NULL)
    return;
  for (k = 0; k < 2; k++) {
    for (y = 0; y < frames[k]->height; y++) {
      const float *row = cf_image_row (frames[k], y);
      for (x = 0; x < frames[k]->width; x++) {
        if (row[x] < lo)
          lo = row[x];
        if (row[x] > hi)
          hi = row[x];
      }
    }
  }
  den = hi - lo;
  if (!(den > 0.0f))
    return;                     /* constant pair: IPOL copies unchanged */
  for (k = 0; k < 2; k++) {
    for (y = 0; y < frames[k]->height; y++) {
      float *row = cf_image_row (frames[k], y);
      for (x = 0; x < frames[k]->width; x++)
        row[x] = 255.0f * (row[x] - lo) / den;
    }
  }
}

static int
same_size (const cf_image * a, const cf_image * b)
{
  return a != NULL && b != NULL && a->width == b->width &&
      a->height == b->height;
}

static int
flow_matches (const cf_flow * f, const cf_image * a)
{
  return f != NULL && a != NULL && f->width == a->width &&
      f->height == a->height;
}

/* Clamp an index into [0, n) (Neumann): the one border rule of the centred
 * image gradient. */
static inline int
clamp_index (int i, int n)
{
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/* The centred differences of @f at (x, y), taps clamped, halved
 * everywhere (cf_tvl1_centered_gradient's rule). */
static inline void
centred_difference_at (const cf_image * f, int x, int y, float *dx,
    float *dy)
{
  const float *row = cf_image_row (f, y);

  *dx = 0.5f * (row[clamp_index (x + 1, f->width)] -
      row[clamp_index (x - 1, f->width)]);
  *dy = 0.5f * (cf_image_row (f, clamp_index (y + 1, f->height))[x] -
      cf_image_row (f, clamp_index (y - 1, f->height))[x]);
}

/* ∂xI1 = (I1(x+1, y) − I1(x−1, y)) / 2, ∂yI1 likewise, on the pixel grid.
 * Border: taps clamped, so the one-sided difference at an edge is *still
 * halved*, I1x(0) = (I1(1) − I1(0)) / 2 (IPOL mask.c centered_gradient;
 * OpenCV's clamped indices agree). Computed once per level on the unwarped
 * I1, then warped (IPOL's per-warp precomputation). */
cf_status
cf_tvl1_centered_gradient (const cf_image * i1, cf_image * i1x, cf_image * i1y)
{
  int x, y, w, h;

  if (!same_size (i1, i1x) || !same_size (i1, i1y) || i1x == i1y ||
      i1 == i1x || i1 == i1y)
    return CF_ERROR_INVALID;
  w = i1->width;
  h = i1->height;
  for (y = 0; y < h; y++) {
    float *gx = cf_image_row (i1x, y);
    float *gy = cf_image_row (i1y, y);
    for (x = 0; x < w; x++)
      centred_difference_at (i1, x, y, &gx[x], &gy[x]);
  }
  return CF_OK;
}

/* u0 fixed for the warp (IPOL tvl1flow_lib.c before the iteration loop):
 *   I1w = I1(x + u0), I1wx = ∂xI1(x + u0), I1wy = ∂yI1(x + u0)
 *     (Catmull-Rom bicubic, common/warp.c; the *gradient images* are warped,
 *     the warped image is not differentiated; IPOL border_out = true is
 *     CF_WARP_ZERO_OUTSIDE: 0 when any 4x4 tap leaves I1, so g = 0 there and
 *     TH leaves v = u — the data term is off);
 *   with β = @blend > 0 and the sample inside, the gradient of the data
 *     term leans on the first frame too: I1wx ← (1 − β) I1wx + β I0x,
 *     likewise y, with I0's centred differences (not in IPOL; large
 *     motions gain most: docs/flow-frontier.md);
 *   g  = I1wx² + I1wy²
 *   ρc = I1w − I1wx u0_1 − I1wy u0_2 − I0   (ρ(u) = ρc + ∇I1w·u)
 * Sample position x + u0(x) in fp32 on the full-pixel grid. */
cf_status
cf_tvl1_warp_prepare (const cf_image * i0, const cf_image * i1,
    const cf_image * i1x, const cf_image * i1y, const cf_flow * u0,
    cf_warp_border border, float blend, cf_image * i1w, cf_image * i1wx,
    cf_image * i1wy, cf_image * grad, cf_image * rho_c)
{
  const float keep = 1.0f - blend;
  int x, y;

  if (!same_size (i0, i1) || !same_size (i0, i1x) || !same_size (i0, i1y)
      || !flow_matches (u0, i0) || !same_size (i0, i1w) ||
      !same_size (i0, i1wx) || !same_size (i0, i1wy) ||
      !same_size (i0, grad) || !same_size (i0, rho_c) || !(blend >= 0.0f)
      || blend > 1.0f)
    return CF_ERROR_INVALID;

  for (y = 0; y < i0->height; y++) {
    const float *f0 = cf_image_row (i0, y);
    const float *a = u0->u + (size_t) y * u0->pitch;
    const float *b = u0->v + (size_t) y * u0->pitch;
    float *w = cf_image_row (i1w, y);
    float *wx = cf_image_row (i1wx, y);
    float *wy = cf_image_row (i1wy, y);
    float *g = cf_image_row (grad, y);
    float *r = cf_image_row (rho_c, y);
    for (x = 0; x < i0->width; x++) {
      float px = (float) x + a[x], py = (float) y + b[x];
      w[x] = cf_bicubic_at (i1, px, py, border);
      wx[x] = cf_bicubic_at (i1x, px, py, border);
      wy[x] = cf_bicubic_at (i1y, px, py, border);
      if (blend > 0.0f && cf_bicubic_inside (px, py, i1->width, i1->height,
              border)) {
        float gx0, gy0;

        centred_difference_at (i0, x, y, &gx0, &gy0);
        wx[x] = keep * wx[x] + blend * gx0;
        wy[x] = keep * wy[x] + blend * gy0;
      }
      g[x] = wx[x] * wx[x] + wy[x] * wy[x];
      r[x] = w[x] - wx[x] * a[x] - wy[x] * b[x] - f0[x];
    }
  }
  return CF_OK;
}

/* Sums of the brightness fit, in double: Σ I0, Σ I1w, Σ I0², Σ I1w²,
 * Σ I0 I1w, count */
typedef struct
{
  double s0, s1, q0, q1, c, n;
} brightness_sums;

static void
brightness_add (brightness_sums * s, float f0, float w)
{
  s->s0 += f0;
  s->s1 += w;
  s->q0 += (double) f0 * f0;
  s->q1 += (double) w * w;
  s->c += (double) f0 * w;
  s->n += 1.0;
}

/* The fit of @s: gain = σ(I1w) / σ(I0), bias = mean(I1w) − gain ·
 * mean(I0), and the mean squared residual @r2 in closed form; 0 when
 * fewer than 64 pixels count or I0 is flat there. */
static int
brightness_solve (const brightness_sums * s, double *gain, double *bias,
    double *r2)
{
  const double n = s->n;
  double m0, m1, v0, v1, c, a;

  if (n < 64.0)
    return 0;
  m0 = s->s0 / n;
  m1 = s->s1 / n;
  v0 = s->q0 / n - m0 * m0;
  v1 = s->q1 / n - m1 * m1;
  c = s->c / n - m0 * m1;
  if (!(v0 > 0.0) || !(v1 >= 0.0))
    return 0;
  a = sqrt (v1 / v0);
  *gain = a;
  *bias = m1 - a * m0;
  *r2 = v1 - 2.0 * a * c + a * a * v0;
  return 1;
}

cf_status
cf_tvl1_fit_brightness (const cf_image * i0, const cf_image * i1w,
    const cf_flow * u0, cf_tvl1_brightness_fit * fit, float *gain,
    float *bias)
{
  const float m = CF_TVL1_BRIGHTNESS_MARGIN;
  brightness_sums all = { 0 }, kept = { 0 };
  double a, b, r2, all_a, all_b, all_r2;
  int x, y;

  if (!same_size (i0, i1w) || !flow_matches (u0, i0) || fit == NULL ||
      gain == NULL || bias == NULL)
    return CF_ERROR_INVALID;
  *gain = 1.0f;
  *bias = 0.0f;
  for (y = 0; y < i0->height; y++) {
    const float *f0 = cf_image_row (i0, y);
    const float *w = cf_image_row (i1w, y);
    const float *u = u0->u + (size_t) y * u0->pitch;
    const float *v = u0->v + (size_t) y * u0->pitch;

    for (x = 0; x < i0->width; x++) {
      const float px = (float) x + u[x], py = (float) y + v[x];

      /* the sample inside I1 by the margin */
      if (!(px >= m && py >= m && px <= (float) i0->width - 1.0f - m &&
              py <= (float) i0->height - 1.0f - m))
        continue;
      brightness_add (&all, f0[x], w[x]);
      if (!fit->live ||
          fabs (w[x] - (fit->gain * f0[x] + fit->bias)) <= fit->cut)
        brightness_add (&kept, f0[x], w[x]);
    }
  }
  fit->live = brightness_solve (&kept, &a, &b, &r2);
  if (!fit->live)
    return CF_OK;
  fit->gain = a;
  fit->bias = b;
  fit->cut = 2.0 * sqrt (r2 > 0.0 ? r2 : 0.0);
  if (fit->cut < CF_TVL1_BRIGHTNESS_CUT_MIN)
    fit->cut = CF_TVL1_BRIGHTNESS_CUT_MIN;
  /* the gate: whether the light changed, from every pixel inside the
   * margin (the trimmed fit drifts with the misalignment of coarse levels,
   * the whole frame's statistics do not) */
  if (!brightness_solve (&all, &all_a, &all_b, &all_r2) ||
      (fabs (all_a - 1.0) < CF_TVL1_BRIGHTNESS_GATE &&
          fabs (all_b) < CF_TVL1_BRIGHTNESS_GATE_BIAS))
    return CF_OK;
  *gain = (float) a;
  *bias = (float) b;
  return CF_OK;
}

cf_status
cf_tvl1_apply_brightness (const cf_image * i0, float gain, float bias,
    cf_image * rho_c)
{
  int x, y;

  if (!same_size (i0, rho_c))
    return CF_ERROR_INVALID;
  for (y = 0; y < i0->height; y++) {
    const float *f0 = cf_image_row (i0, y);
    float *r = cf_image_row (rho_c, y);
    for (x = 0; x < i0->width; x++)
      r[x] = r[x] + (f0[x] - (gain * f0[x] + bias));
  }
  return CF_OK;
}

/* Step V, thresholding operator TH (Zach–Pock–Bischof 2007 Prop. 3;
 * IPOL tvl1flow_lib.c "thresholding operator TH"), pointwise:
 *   ρ = ρc + I1wx u1 + I1wy u2          (from the *current* u)
 *   v = u + {  λθ ∇I1w        if ρ < −λθ g
 *           { −λθ ∇I1w        if ρ >  λθ g
 *           {  0              if g < CF_TVL1_GRAD_IS_ZERO
 *           { −ρ ∇I1w / g     otherwise
 * The comparisons and products are IPOL's, in fp32. */
cf_status
cf_tvl1_threshold (const cf_image * i1wx, const cf_image * i1wy,
    const cf_image * grad, const cf_image * rho_c, const cf_flow * u,
    float lambda, float theta, cf_flow * v)
{
  const float l_t = lambda * theta;
  int x, y;

  if (!same_size (i1wx, i1wy) || !same_size (i1wx, grad) ||
      !same_size (i1wx, rho_c) || !flow_matches (u, i1wx) ||
      !flow_matches (v, i1wx))
    return CF_ERROR_INVALID;

  for (y = 0; y < i1wx->height; y++) {
    const float *gx = cf_image_row (i1wx, y);
    const float *gy = cf_image_row (i1wy, y);
    const float *g = cf_image_row (grad, y);
    const float *rc = cf_image_row (rho_c, y);
    const float *u1 = u->u + (size_t) y * u->pitch;
    const float *u2 = u->v + (size_t) y * u->pitch;
    float *v1 = v->u + (size_t) y * v->pitch;
    float *v2 = v->v + (size_t) y * v->pitch;
    for (x = 0; x < i1wx->width; x++) {
      const float rho = rc[x] + (gx[x] * u1[x] + gy[x] * u2[x]);
      float d1, d2;

      if (rho < -l_t * g[x]) {
        d1 = l_t * gx[x];
        d2 = l_t * gy[x];
      } else if (rho > l_t * g[x]) {
        d1 = -l_t * gx[x];
        d2 = -l_t * gy[x];
      } else if (g[x] < CF_TVL1_GRAD_IS_ZERO) {
        d1 = d2 = 0.0f;
      } else {
        const float fi = -rho / g[x];
        d1 = fi * gx[x];
        d2 = fi * gy[x];
      }
      v1[x] = u1[x] + d1;
      v2[x] = u2[x] + d2;
    }
  }
  return CF_OK;
}

/* Step Div, backward differences (Chambolle 2004 §2; IPOL mask.c
 * divergence):
 *   div p = (px(x, y) − px(x−1, y)) + (py(x, y) − py(x, y−1))
 * Border, written out as in IPOL: px(−1, ·) = py(·, −1) = 0 (first
 * column/row keep only the + term) and px on the last column / py on the
 * last row are not read (last column/row keep only the − term). This makes
 * div exactly −∇ᵀ of cf_tvl1_forward_gradient for any p; in the solver
 * those components stay 0, so it equals the plain backward difference. A
 * 1-pixel axis contributes 0. Full-pixel grid. */
cf_status
cf_tvl1_divergence (const cf_image * px, const cf_image * py, cf_image * div)
{
  int x, y, w, h;

  if (!same_size (px, py) || !same_size (px, div) || div == px || div == py)
    return CF_ERROR_INVALID;
  w = px->width;
  h = px->height;
  for (y = 0; y < h; y++) {
    const float *a = cf_image_row (px, y);
    const float *b = cf_image_row (py, y);
    const float *b_up = y > 0 ? cf_image_row (py, y - 1) : NULL;
    float *d = cf_image_row (div, y);

    /* x part: interior, then first and last column */
    for (x = 1; x < w - 1; x++)
      d[x] = a[x] - a[x - 1];
    if (w == 1) {
      d[0] = 0.0f;
    } else {
      d[0] = a[0];
      d[w - 1] = -a[w - 2];
    }

    /* y part: interior rows, then first and last row */
    if (h == 1)
      continue;
    if (y == 0) {
      for (x = 0; x < w; x++)
        d[x] += b[x];
    } else if (y == h - 1) {
      for (x = 0; x < w; x++)
        d[x] -= b_up[x];
    } else {
      for (x = 0; x < w; x++)
        d[x] += b[x] - b_up[x];
    }
  }
  return CF_OK;
}

/* Step U (IPOL tvl1flow_lib.c "estimate the values of
 * the optical flow"), pointwise:
 *   u_d^{n+1} = v_d + θ div p_d^n   (the *old* p)
 * and the stopping quantity Σ |u^{n+1} − u^n|², accumulated in double
 * (deliberate: an exact-ish reduction; IPOL accumulates in float). */
cf_status
cf_tvl1_update_u (const cf_flow * v, const cf_flow * div, float theta,
    cf_flow * u, double *sum_sq)
{
  double sum = 0.0;
  int x, y;

  if (v == NULL || div == NULL || u == NULL || v->width != u->width ||
      v->height != u->height || div->width != u->width ||
      div->height != u->height || div->u == u->u)
    return CF_ERROR_INVALID;

  for (y = 0; y < u->height; y++) {
    const float *v1 = v->u + (size_t) y * v->pitch;
    const float *v2 = v->v + (size_t) y * v->pitch;
    const float *d1 = div->u + (size_t) y * div->pitch;
    const float *d2 = div->v + (size_t) y * div->pitch;
    float *u1 = u->u + (size_t) y * u->pitch;
    float *u2 = u->v + (size_t) y * u->pitch;
    for (x = 0; x < u->width; x++) {
      const float u1k = u1[x], u2k = u2[x];
      float e1, e2;

      u1[x] = v1[x] + theta * d1[x];
      u2[x] = v2[x] + theta * d2[x];
      e1 = u1[x] - u1k;
      e2 = u2[x] - u2k;
      sum += (double) (e1 * e1 + e2 * e2);
    }
  }
  if (sum_sq != NULL)
    *sum_sq = sum;
  return CF_OK;
}

/* Step fG, forward differences (Chambolle 2004 §2;
 * IPOL mask.c forward_gradient):
 *   fx(x, y) = f(x+1, y) − f(x, y),  fy(x, y) = f(x, y+1) − f(x, y)
 * Border: fx = 0 on the last column, fy = 0 on the last row (Neumann), so
 * the P step keeps p_d1 = 0 there and p_d2 = 0 on the last row. */
cf_status
cf_tvl1_forward_gradient (const cf_image * f, cf_image * fx, cf_image * fy)
{
  int x, y, w, h;

  if (!same_size (f, fx) || !same_size (f, fy) || fx == fy || f == fx ||
      f == fy)
    return CF_ERROR_INVALID;
  w = f->width;
  h = f->height;
  for (y = 0; y < h; y++) {
    const float *row = cf_image_row (f, y);
    float *gx = cf_image_row (fx, y);
    float *gy = cf_image_row (fy, y);

    for (x = 0; x < w - 1; x++)
      gx[x] = row[x + 1] - row[x];
    gx[w - 1] = 0.0f;           /* last column */

    if (y < h - 1) {
      const float *down = cf_image_row (f, y + 1);
      for (x = 0; x < w; x++)
        gy[x] = down[x] - row[x];
    } else {
      for (x = 0; x < w; x++)   /* last row */
        gy[x] = 0.0f;
    }
  }
  return CF_OK;
}

/* Step P, Chambolle's fixed-point projection (Chambolle 2004 eq. (9);
 * IPOL tvl1flow_lib.c "estimate the values of the dual
 * variable"), pointwise:
 *   p_d ← (p_d + τ/θ ∇u_d) / (1 + τ/θ |∇u_d|),  |∇u_d| = sqrt(ux² + uy²)
 * fp32 (IPOL uses hypot and a double 1.0; the values are far from overflow).
 * The unit ball is kept: |p| <= 1 gives |p'| <= (1 + τ/θ|∇u|) /
 * (1 + τ/θ|∇u|) = 1. */
cf_status
cf_tvl1_update_p (const cf_image * ux, const cf_image * uy,
    const cf_flow * p_in, float tau, float theta, cf_flow * p_out)
{
  const float taut = tau / theta;
  int x, y;

  if (!same_size (ux, uy) || !flow_matches (p_in, ux) ||
      !flow_matches (p_out, ux))
    return CF_ERROR_INVALID;

  for (y = 0; y < ux->height; y++) {
    const float *gx = cf_image_row (ux, y);
    const float *gy = cf_image_row (uy, y);
    const float *a = p_in->u + (size_t) y * p_in->pitch;
    const float *b = p_in->v + (size_t) y * p_in->pitch;
    float *oa = p_out->u + (size_t) y * p_out->pitch;
    float *ob = p_out->v + (size_t) y * p_out->pitch;
    for (x = 0; x < ux->width; x++) {
      const float norm = sqrtf (gx[x] * gx[x] + gy[x] * gy[x]);
      const float den = 1.0f + taut * norm;

      oa[x] = (a[x] + taut * gx[x]) / den;
      ob[x] = (b[x] + taut * gy[x]) / den;
    }
  }
  return CF_OK;
}

/* Number of planes in a workspace: 7 images + 6 flows of 2 planes. */
#define WORKSPACE_PLANES 19

cf_tvl1_workspace *
cf_tvl1_workspace_new (int width, int height)
{
  cf_tvl1_workspace *ws;
  cf_image *images[7];
  cf_flow *flows[6];
  size_t n;
  int k;

  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION ||
      height > CF_MAX_DIMENSION)
    return NULL;
  ws = calloc (1, sizeof (*ws));
  if (ws == NULL)
    return NULL;
  n = (size_t) width * height;
  ws->block = calloc (WORKSPACE_PLANES * n, sizeof (float));
  if (ws->block == NULL) {
    free (ws);
    return NULL;
  }
  ws->width = width;
  ws->height = height;

  images[0] = &ws->i1x;
  images[1] = &ws->i1y;
  images[2] = &ws->i1w;
  images[3] = &ws->i1wx;
  images[4] = &ws->i1wy;
  images[5] = &ws->grad;
  images[6] = &ws->rho_c;
  flows[0] = &ws->p1;
  flows[1] = &ws->p2;
  flows[2] = &ws->v;
  flows[3] = &ws->div;
  flows[4] = &ws->du1;
  flows[5] = &ws->du2;
  for (k = 0; k < 7; k++)
    *images[k] = cf_image_view (ws->block + k * n, width, height, width);
  for (k = 0; k < 6; k++) {
    flows[k]->width = width;
    flows[k]->height = height;
    flows[k]->pitch = (size_t) width;
    flows[k]->u = ws->block + (7 + 2 * k) * n;
    flows[k]->v = ws->block + (8 + 2 * k) * n;
    flows[k]->owns_data = 0;
  }
  return ws;
}

void
cf_tvl1_workspace_free (cf_tvl1_workspace * ws)
{
  if (ws == NULL)
    return;
  free (ws->block);
  free (ws);
}

static void
crop_image (cf_image * image, int width, int height)
{
  image->width = width;
  image->height = height;
}

static void
crop_flow (cf_flow * flow, int width, int height)
{
  flow->width = width;
  flow->height = height;
}

cf_status
cf_tvl1_workspace_level (const cf_tvl1_workspace * ws, int width,
    int height, cf_tvl1_workspace * level)
{
  if (ws == NULL || level == NULL || width < 1 || height < 1 ||
      width > ws->width || height > ws->height)
    return CF_ERROR_INVALID;
  *level = *ws;
  level->width = width;
  level->height = height;
  level->block = NULL;
  crop_image (&level->i1x, width, height);
  crop_image (&level->i1y, width, height);
  crop_image (&level->i1w, width, height);
  crop_image (&level->i1wx, width, height);
  crop_image (&level->i1wy, width, height);
  crop_image (&level->grad, width, height);
  crop_image (&level->rho_c, width, height);
  crop_flow (&level->p1, width, height);
  crop_flow (&level->p2, width, height);
  crop_flow (&level->v, width, height);
  crop_flow (&level->div, width, height);
  crop_flow (&level->du1, width, height);
  crop_flow (&level->du2, width, height);
  return CF_OK;
}

/* One plane of a flow (or dual field) as an image view. */
static cf_image
plane (const cf_flow * f, int second)
{
  return cf_image_view (second ? f->v : f->u, f->width, f->height, f->pitch);
}

/* One iteration in IPOL order V → Div → U → fG → P (Romera et al.
 * 2021; IPOL tvl1flow_lib.c while loop). The error is the mean of
 * |u^{n+1} − u^n|² over the pixels (IPOL's stopping rule). u and p
 * are updated in place: U and P are pointwise and every stencil (Div, fG)
 * runs as a whole sweep before them, so this equals ping-pong; a fused
 * kernel whose tiles read neighbours' u or p must ping-pong. */
cf_status
cf_tvl1_iteration (cf_tvl1_workspace * ws, const cf_tvl1_params * params,
    cf_flow * u, double *mean_sq_update)
{
  cf_image p11, p12, p21, p22, div1, div2, u1, u2, u1x, u1y, u2x, u2y;
  cf_status status;
  double sum = 0.0;

  if (ws == NULL || !cf_tvl1_params_valid (params) || u == NULL ||
      u->width != ws->width || u->height != ws->height)
    return CF_ERROR_INVALID;

  p11 = plane (&ws->p1, 0);
  p12 = plane (&ws->p1, 1);
  p21 = plane (&ws->p2, 0);
  p22 = plane (&ws->p2, 1);
  div1 = plane (&ws->div, 0);
  div2 = plane (&ws->div, 1);
  u1 = plane (u, 0);
  u2 = plane (u, 1);
  u1x = plane (&ws->du1, 0);
  u1y = plane (&ws->du1, 1);
  u2x = plane (&ws->du2, 0);
  u2y = plane (&ws->du2, 1);

  status = cf_tvl1_threshold (&ws->i1wx, &ws->i1wy, &ws->grad, &ws->rho_c,
      u, params->lambda, params->theta, &ws->v);
  if (status == CF_OK)
    status = cf_tvl1_divergence (&p11, &p12, &div1);
  if (status == CF_OK)
    status = cf_tvl1_divergence (&p21, &p22, &div2);
  if (status == CF_OK)
    status = cf_tvl1_update_u (&ws->v, &ws->div, params->theta, u, &sum);
  if (status == CF_OK)
    status = cf_tvl1_forward_gradient (&u1, &u1x, &u1y);
  if (status == CF_OK)
    status = cf_tvl1_forward_gradient (&u2, &u2x, &u2y);
  if (status == CF_OK)
    status = cf_tvl1_update_p (&u1x, &u1y, &ws->p1, params->tau,
        params->theta, &ws->p1);
  if (status == CF_OK)
    status = cf_tvl1_update_p (&u2x, &u2y, &ws->p2, params->tau,
        params->theta, &ws->p2);
  if (status == CF_OK && mean_sq_update != NULL)
    *mean_sq_update = sum / ((double) u->width * (double) u->height);
  return status;
}

static void
copy_flow (const cf_flow * src, cf_flow * dst)
{
  int y;

  for (y = 0; y < src->height; y++) {
    memcpy (dst->u + (size_t) y * dst->pitch, src->u + (size_t) y *
        src->pitch, (size_t) src->width * sizeof (float));
    memcpy (dst->v + (size_t) y * dst->pitch, src->v + (size_t) y *
        src->pitch, (size_t) src->width * sizeof (float));
  }
}

/* The outlier filter between warps (Wedel, Pock, Zach, Bischof and
 * Cremers 2009, "An improved algorithm for TV-L1 optical flow"; Sun, Roth
 * and Black, "Secrets of optical flow estimation and their principles",
 * CVPR 2010): u ← the size x size median of u, each component on its own
 * over the window clipped to the image (common/median.h), or with
 * @wsize > 0 the wsize x wsize weighted median guided by the level's
 * first frame @i0 with @tables. The dual field p is left as it is.
 * Through the workspace's v, which TH rewrites before it is read again. */
static cf_status
median_after_warp (cf_tvl1_workspace * ws, int size, int wsize,
    const cf_image * i0, const cf_wmedian_tables * tables, cf_flow * u)
{
  cf_status status = wsize > 0 ?
      cf_flow_weighted_median (u, i0, wsize, tables, &ws->v) :
      cf_flow_median (u, size, &ws->v);

  if (status == CF_OK)
    copy_flow (&ws->v, u);
  return status;
}

/* The brightness model on this warp's constants: nothing changes when
 * the fit is the identity. */
static cf_status
brightness_after_warp (const cf_image * i0, cf_tvl1_workspace * ws,
    const cf_flow * u, cf_tvl1_brightness_fit * fit)
{
  float gain, bias;
  cf_status status = cf_tvl1_fit_brightness (i0, &ws->i1w, u, fit, &gain,
      &bias);

  if (status != CF_OK || (gain == 1.0f && bias == 0.0f))
    return status;
  return cf_tvl1_apply_brightness (i0, gain, bias, &ws->rho_c);
}

/* Solve one level (IPOL Dual_TVL1_optic_flow): ∇I1 and p = 0 once, then
 * per warp the constants around the current u and iterations until the
 * mean squared update is <= ε² (IPOL `while (error > ε² && n < MAX)`; the
 * test runs after every iteration, at least one iteration per warp) or
 * max_iterations; ε = 0 gives exactly max_iterations; then, with
 * median_size > 0, the median filter of u (not in IPOL). @fit: the
 * brightness model's fit, carried from warp to warp. */
static cf_status
solve_level (const cf_image * i0, const cf_image * i1,
    const cf_tvl1_params * params, cf_tvl1_workspace * ws, cf_flow * u,
    cf_tvl1_brightness_fit * fit, long *iterations)
{
  const double eps2 = (double) params->epsilon * (double) params->epsilon;
  const int wmedian = cf_tvl1_level_wmedian_size (params, i0->width);
  cf_wmedian_tables tables;
  cf_status status;
  int k, n;

  if (wmedian > 0)
    cf_wmedian_tables_init (&tables, params->wmedian_sigma);
  status = cf_tvl1_centered_gradient (i1, &ws->i1x, &ws->i1y);
  if (status != CF_OK)
    return status;
  /* p = 0 once per level, not per warp (as IPOL) */
  cf_flow_fill (&ws->p1, 0.0f, 0.0f);
  cf_flow_fill (&ws->p2, 0.0f, 0.0f);

  for (k = 0; k < params->warps; k++) {
    status = cf_tvl1_warp_prepare (i0, i1, &ws->i1x, &ws->i1y, u,
        params->warp_border, params->gradient_blend, &ws->i1w, &ws->i1wx,
        &ws->i1wy, &ws->grad, &ws->rho_c);
    if (status == CF_OK && params->brightness_model)
      status = brightness_after_warp (i0, ws, u, fit);
    if (status != CF_OK)
      return status;
    for (n = 0; n < params->max_iterations; n++) {
      double e = 0.0;
      status = cf_tvl1_iteration (ws, params, u, &e);
      if (status != CF_OK)
        return status;
      if (params->epsilon > 0.0f && !(e > eps2))
        break;
    }
    /* n is the count when the loop ran out, one less when ε stopped it */
    *iterations += n < params->max_iterations ? n + 1 : n;
    if ((wmedian > 0 || params->median_size > 0) &&
        (status = median_after_warp (ws, params->median_size, wmedian, i0,
                &tables, u)) != CF_OK)
      return status;
  }
  return CF_OK;
}

/* Multiscale driver (IPOL Dual_TVL1_optic_flow_multiscale):
 * global pyramid coarse to fine; u = 0 (or the resampled initial flow) at
 * the coarsest level; between levels the flow is upsampled with clamped
 * bicubic at corner-aligned positions and scaled to the finer grid
 * (cf_flow_resample, ×1/η). Each level solves with its own warps and
 * iteration cap (cf_tvl1_level_params; IPOL has one pair for all). */
cf_status
cf_tvl1_flow (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_tvl1_params * params, int use_initial, cf_flow * flow)
{
  return cf_tvl1_flow_counted (p0, p1, params, use_initial, flow, NULL);
}

cf_status
cf_tvl1_flow_counted (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_tvl1_params * params, int use_initial, cf_flow * flow,
    long *iterations)
{
  cf_status status = CF_OK;
  cf_tvl1_workspace *ws = NULL;
  cf_flow *u = NULL;
  /* the brightness fit each warp leaves to the next, from level to level */
  cf_tvl1_brightness_fit bright = { 1.0, 0.0, 0.0, 0 };
  long count = 0;
  int l, w0, h0;

  if (p0 == NULL || p1 == NULL || !cf_tvl1_params_valid (params) ||
      flow == NULL ||
      p0->n_levels != p1->n_levels || p0->n_levels < 1 ||
      p0->n_levels > CF_PYRAMID_MAX_LEVELS ||
      !same_size (p0->level[0], p1->level[0]) ||
      flow->width != p0->level[0]->width ||
      flow->height != p0->level[0]->height)
    return CF_ERROR_INVALID;
  for (l = 1; l < p0->n_levels; l++)
    if (!same_size (p0->level[l], p1->level[l]) ||
        p0->level[l]->width > p0->level[0]->width ||
        p0->level[l]->height > p0->level[0]->height)
      return CF_ERROR_INVALID;
  w0 = flow->width;
  h0 = flow->height;

  ws = cf_tvl1_workspace_new (w0, h0);
  u = cf_flow_new (w0, h0);
  if (ws == NULL || u == NULL) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }

  for (l = p0->n_levels - 1; l >= 0; l--) {
    const cf_image *f0 = p0->level[l], *f1 = p1->level[l];
    cf_flow ul = cf_flow_view (u, f0->width, f0->height);
    cf_tvl1_workspace wl;
    cf_tvl1_params lp;

    status = cf_tvl1_workspace_level (ws, f0->width, f0->height, &wl);
    if (status != CF_OK)
      goto out;

    /* the flow entering this level */
    if (l == p0->n_levels - 1) {
      if (use_initial)
        status = cf_flow_resample (flow, &ul);
      else
        cf_flow_fill (&ul, 0.0f, 0.0f);
    } else {
      /* the coarser level's result is parked in `flow`'s buffer */
      cf_flow prev = cf_flow_view (flow, p0->level[l + 1]->width,
          p0->level[l + 1]->height);
      status = cf_flow_resample (&prev, &ul);
    }
    /* this level's warps and iterations: a uniform solve of its own */
    cf_tvl1_level_params (params, l, &lp);
    if (status == CF_OK)
      status = solve_level (f0, f1, &lp, &wl, &ul, &bright, &count);
    if (status != CF_OK)
      goto out;

    /* park this level's result in `flow`'s buffer */
    {
      cf_flow dst = cf_flow_view (flow, f0->width, f0->height);
      copy_flow (&ul, &dst);
    }
  }

out:
  cf_tvl1_workspace_free (ws);
  cf_flow_free (u);
  if (iterations != NULL)
    *iterations = count;
  return status;
}
