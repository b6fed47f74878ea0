/* gst-cudaflow — TV-L1 optical flow, CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The dual TV-L1 scheme of Zach, Pock and Bischof (DAGM 2007) as implemented
 * by IPOL `tvl1flow` (Sánchez, Meinhardt-Llopis, Facciolo, IPOL 2013;
 * docs/references.md). Symbols: I0, I1 the frames
 * (intensities 0..255), u = (u1, u2) the flow (x right, y down, pixels),
 * p_d = (p_d1, p_d2) the dual field of u_d, v the auxiliary flow.
 *
 *   per level (coarse to fine):  ∇I1 centred (once), p = 0 (once)
 *   per warp:   u0 = u;  I1w, I1wx, I1wy = I1, ∂xI1, ∂yI1 at x + u0
 *               (bicubic, zero outside = IPOL border_out);
 *               g = |∇I1w|²;  ρc = I1w − ∇I1w·u0 − I0
 *   per iteration (IPOL order V, Div, U, fG, P):
 *     V    v = TH(u): ρ = ρc + ∇I1w·u, step ±λθ∇I1w or −ρ∇I1w/g
 *     Div  div p_d, backward differences
 *     U    u_d = v_d + θ div p_d (old p); e = mean |Δu|²
 *     fG   ∇u_d, forward differences
 *     P    p_d = (p_d + τ/θ ∇u_d) / (1 + τ/θ |∇u_d|)
 *   stop when e <= ε² or after max_iterations (ε = 0: fixed count).
 *   after each warp, with median_size > 0 (not IPOL: Wedel, Pock, Zach,
 *   Bischof & Cremers 2009): u = median of u (cf_flow_median); p is kept.
 *   The size may differ per level (median-size-per-level): the filter on
 *   the coarse levels keeps their outliers from the finer ones (large
 *   motions) for little time, the finest level's costs the most.
 *   With wmedian_size > 0, the levels at least wmedian_min_width wide
 *   take the weighted median guided by I0 instead (cf_flow_weighted_median;
 *   Sun, Roth and Black 2010).
 *
 * The warps and the iteration cap may differ per level (warps-per-level,
 * iterations-per-level; finest level first): cheap coarse levels can take
 * many warps, the costly finest level few. Not many iterations per warp on
 * a coarsest level with little texture left: they overshoot there and can
 * lose a large motion (docs/flow-frontier.md). So may λ
 * (lambda-per-level): a larger λ fits the fine levels of sharp video
 * closer, while IPOL's on the coarse ones keeps the large motions that a
 * larger λ there loses. A level runs exactly as a uniform solve with that
 * level's λ, counts and filters (cf_tvl1_level_params).
 *
 * Grid: every plane is on the pixel grid (full-pixel centres at integer
 * coordinates); the forward gradient and backward divergence form an adjoint
 * pair, <∇u, p> = −<u, div p>, because p_d1 on the last column and p_d2 on
 * the last row stay 0. Arithmetic is fp32 with f literals like the GPU twins;
 * the one deliberate double is the ε reduction.
 *
 * Each step below has the GPU twin cf_cuda_tvl1_<step> with the same
 * argument order. Planes of one call must share width and
 * height; pitches may differ.
 */
#ifndef CF_TVL1_H
#define CF_TVL1_H

#include "common/image.h"
#include "common/params.h"
#include "common/pyramid.h"
#include "common/warp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TH's third case divides by g = |∇I1w|²; below this (units: intensity²
 * per pixel², 0..255 scale) v = u instead (IPOL GRAD_IS_ZERO). 1e-10 is not
 * representable in fp16 (smallest subnormal 6e-8): a half path needs its own
 * guard or must keep this branch in fp32. */
#define CF_TVL1_GRAD_IS_ZERO 1e-10f

/* The range of every parameter, closed intervals, as cf_tvl1_param_table
 * states them: cf_tvl1_params_set, cf_tvl1_params_valid (the check of the
 * CPU and GPU solvers) and the properties of cudaflowtvl1 all come from that
 * table, so a value one accepts the others accept too. */
#define CF_TVL1_TAU_MIN 0.001
#define CF_TVL1_TAU_MAX 0.25    /* IPOL main.c; Chambolle's proof: <= 1/8 */
#define CF_TVL1_LAMBDA_MIN 0.0001
#define CF_TVL1_LAMBDA_MAX 1e6
#define CF_TVL1_THETA_MIN 0.001
#define CF_TVL1_THETA_MAX 1e6
#define CF_TVL1_WARPS_MAX 1000
#define CF_TVL1_ITERATIONS_MAX 1000000
#define CF_TVL1_EPSILON_MAX 1e6
#define CF_TVL1_SIGMA_MAX 50.0

typedef struct
{
  float tau;                    /* τ, dual time step of the P step */
  float lambda;                 /* λ, data-term weight, intensities 0..255;
                                 * on every level when n_lambda_per_level
                                 * is 0 */
  float lambda_per_level[CF_PYRAMID_MAX_LEVELS];        /* λ per level,
                                 * finest first */
  int n_lambda_per_level;       /* entries used; 0 = `lambda` on every
                                 * level; levels past the list reuse its
                                 * last entry */
  float theta;                  /* θ, coupling weight of |u − v|² / 2θ, > 0 */
  int warps;                    /* warps per pyramid level, >= 1, on every
                                 * level when n_warps_per_level is 0 */
  int max_iterations;           /* iterations per warp: cap, or the count
                                 * when epsilon = 0; >= 1; on every level
                                 * when n_iterations_per_level is 0 */
  int warps_per_level[CF_PYRAMID_MAX_LEVELS];   /* warps per level, finest
                                 * first (level 0 = full size) */
  int n_warps_per_level;        /* entries used; 0 = `warps` on every level;
                                 * levels past the list reuse its last entry */
  int iterations_per_level[CF_PYRAMID_MAX_LEVELS];      /* max_iterations
                                 * per level, finest first */
  int n_iterations_per_level;   /* entries used; 0 = `max_iterations` on
                                 * every level; levels past the list reuse
                                 * its last entry */
  float epsilon;                /* ε, pixels: a warp stops when the mean over
                                 * pixels of |u^{n+1} − u^n|² <= ε²; 0 = run
                                 * max_iterations */
  float presmooth_sigma;        /* σ, pixels, Gaussian applied to both frames
                                 * before the pyramid; 0 = none */
  cf_warp_border warp_border;   /* border of the per-warp bicubic samples:
                                 * CF_WARP_ZERO_OUTSIDE = IPOL border_out
                                 * (data term off where x + u leaves I1) */
  int normalize;                /* 1: the caller maps each pair's joint
                                 * intensity range to 0..255 first (IPOL;
                                 * cf_tvl1_normalize_pair, or λ scaled the
                                 * same); the solvers do not read it */
  int median_size;              /* 0: none (IPOL); 3 or 5: u ← the size x
                                 * size median of u (cf_flow_median) after
                                 * each warp's iterations (Wedel et al.
                                 * 2009); on every level when
                                 * n_median_size_per_level is 0 */
  int median_size_per_level[CF_PYRAMID_MAX_LEVELS];     /* median_size per
                                 * level, finest first (0, 3 or 5) */
  int n_median_size_per_level;  /* entries used; 0 = `median_size` on
                                 * every level; levels past the list reuse
                                 * its last entry */
  int wmedian_size;             /* 0: none; 3, 5, 7 or 9: on the levels at
                                 * least wmedian_min_width pixels wide, u ←
                                 * the size x size weighted median of u
                                 * guided by the level's first frame
                                 * (cf_flow_weighted_median; Sun, Roth and
                                 * Black 2010) after each warp, instead of
                                 * the plain median */
  float wmedian_sigma;          /* σ of its range weight, intensities
                                 * 0..255 */
  int wmedian_min_width;        /* narrower levels keep median_size */
  int brightness_model;         /* 1: after each warp's constants, I0 in
                                 * the data term becomes a I0 + b fitted to
                                 * the warped I1 (cf_tvl1_fit_brightness);
                                 * 0: IPOL */
  float gradient_blend;         /* β in 0..1: the data term's spatial
                                 * gradient is (1 − β) ∇I1(x + u0) + β ∇I0
                                 * (cf_tvl1_warp_prepare); 0: IPOL's, the
                                 * warped second frame's alone */
} cf_tvl1_params;

/* The parameters (tau, lambda, lambda-per-level, theta, warps,
 * iterations, warps-per-level, iterations-per-level, epsilon, sigma,
 * normalize, median-size, median-size-per-level, weighted-median-size,
 * weighted-median-sigma, weighted-median-min-width, brightness-model,
 * gradient-blend; rows in the property order of cudaflowtvl1, then
 * "border", which is not a property) and presets (ipol, realtime (an
 * alias of fast), fast, balanced, accurate, romera; each sets the
 * per-level lists and both median filters) of TV-L1. */
extern const cf_param_table cf_tvl1_param_table;

/* The table's defaults, the balanced preset: IPOL's model (τ 0.25,
 * λ 0.15, zero outside, normalised pairs) with θ 0.4 (IPOL: 0.3),
 * presmoothed with σ 0.65 and linearised with both frames' gradients
 * (gradient blend 0.5); 1 warp x 30 iterations on the finest level and
 * 2 x 20 on the others (warps 2, max_iterations 20 and the per-level
 * lists "1,2" and "30,20"), ε 0, a 5 x 5 median after the finest level's
 * warp (median_size 0, the per-level list "5,0"; 6 levels: the pyramid's
 * own default is 5). IPOL's
 * schedule (5 warps, 300 iterations, ε 0.01, 5 levels) is the ipol
 * preset. The lists override warps and max_iterations on the levels they
 * cover: cf_tvl1_params_set ("warps", …) and ("iterations", …) clear
 * them; a caller that writes the fields directly zeroes
 * n_warps_per_level and n_iterations_per_level itself, or starts from
 * cf_tvl1_params_init_ipol. */
void cf_tvl1_params_init (cf_tvl1_params * params);

/* IPOL's tvl1flow settings (the ipol preset's schedule): the defaults with
 * 5 warps, 300 iterations on every level (no per-level lists, no
 * median), ε 0.01, θ 0.3, σ 0.8 and IPOL's linearisation (gradient
 * blend 0); IPOL also uses 5 levels, η 0.5. */
void cf_tvl1_params_init_ipol (cf_tvl1_params * params);

/* Set one parameter by its table name (setting "warps", "iterations",
 * "lambda" or "median-size" clears its per-level list): "tau", "lambda",
 * "theta", "warps" (integer), "iterations" (integer, max_iterations),
 * "epsilon", "sigma" (presmooth_sigma), each in its CF_TVL1_*_MIN .. _MAX
 * range (warps and iterations from 1, epsilon and sigma from 0);
 * "normalize" 0 or 1; "median-size" 0, 3 or 5; "border" 0 = clamp, 1 =
 * zero outside (cf_warp_border). CF_ERROR_INVALID for an unknown name or
 * an out-of-range value (params unchanged). The per-level lists are text:
 * cf_params_set_text (&cf_tvl1_param_table, …, "warps-per-level", …) or
 * the parse functions below. */
cf_status cf_tvl1_params_set (cf_tvl1_params * params, const char *name,
    double value);

/* Parse a per-level list, finest level first, e.g. "1,2,4" warps or
 * "20,50,100" iterations: 1 to CF_PYRAMID_MAX_LEVELS whole numbers in the
 * range of the uniform parameter (warps 1..CF_TVL1_WARPS_MAX, iterations
 * 1..CF_TVL1_ITERATIONS_MAX) separated by commas, blanks allowed around
 * each. CF_ERROR_FORMAT with a message in @err (nullable) naming the entry,
 * params unchanged, on anything else. The table's TEXT rows take NULL or
 * blank text as "no list" (cf_params_set_text); these functions refuse it. */
cf_status cf_tvl1_parse_warps_per_level (cf_tvl1_params * params,
    const char *text, cf_error * err);
cf_status cf_tvl1_parse_iterations_per_level (cf_tvl1_params * params,
    const char *text, cf_error * err);

/* Parse the median sizes per level, finest first, e.g. "0,5" (no filter
 * on the full-size level, 5 x 5 on the coarser ones): 1 to
 * CF_PYRAMID_MAX_LEVELS entries, each 0, 3 or 5; CF_ERROR_FORMAT with a
 * message in @err (nullable), params unchanged, on anything else. */
cf_status cf_tvl1_parse_median_size_per_level (cf_tvl1_params * params,
    const char *text, cf_error * err);

/* Parse λ per level, finest first, e.g. "0.25,0.25,0.15" (a larger λ on the
 * two finest levels, IPOL's on the coarser ones): 1 to
 * CF_PYRAMID_MAX_LEVELS numbers in lambda's range; CF_ERROR_FORMAT with a
 * message in @err (nullable), params unchanged, on anything else. */
cf_status cf_tvl1_parse_lambda_per_level (cf_tvl1_params * params,
    const char *text, cf_error * err);

/* Warps and the iteration cap on pyramid level @level (0 = finest) under
 * @params: the list's entry, its last one past its end, or the uniform
 * value when the list is empty. */
int cf_tvl1_level_warps (const cf_tvl1_params * params, int level);
int cf_tvl1_level_iterations (const cf_tvl1_params * params, int level);
int cf_tvl1_level_median_size (const cf_tvl1_params * params, int level);
float cf_tvl1_level_lambda (const cf_tvl1_params * params, int level);

/* Multiply λ, and every entry of its per-level list, by @scale > 0, each
 * capped at CF_TVL1_LAMBDA_MAX: the pair's normalisation applied to λ
 * instead of to the frames (normalize on the GPU path). */
void cf_tvl1_scale_lambda (cf_tvl1_params * params, float scale);

/* The weighted median's window on a level @width pixels wide: wmedian_size
 * when the level is at least wmedian_min_width wide, else 0 (the level
 * keeps its plain median, if any). */
int cf_tvl1_level_wmedian_size (const cf_tvl1_params * params, int width);

/* 1 when some level of @params filters u (median_size, a list entry
 * above 0, or wmedian_size): a solver then needs the filter's buffer. */
int cf_tvl1_uses_median (const cf_tvl1_params * params);

/* The parameters level @level runs with: @params with lambda, warps,
 * max_iterations and median_size set to that level's and no lists, so a
 * level's solve is a uniform solve (with empty lists, @out is @params). */
void cf_tvl1_level_params (const cf_tvl1_params * params, int level,
    cf_tvl1_params * out);

/* 1 when every field of @params is in its table range, the per-level lists
 * included (the check of cf_tvl1_flow and of the GPU twin). */
int cf_tvl1_params_valid (const cf_tvl1_params * params);

/* Copy what the pyramid needs from @params: presmooth_sigma only (η, level
 * count and minimum size stay the caller's; IPOL: η 0.5, 5 levels). */
void cf_tvl1_prepare_pyramid_params (const cf_tvl1_params * params,
    cf_pyramid_params * pyramid);

/* IPOL image_normalization: map both frames with one affine map so their
 * joint minimum becomes 0 and joint maximum 255, which fixes the meaning of
 * λ. A constant pair (max = min) is left unchanged. */
void cf_tvl1_normalize_pair (cf_image * i0, cf_image * i1);

/* ∇I1 by centred differences, I1x = (I1(x+1) − I1(x−1)) / 2, one-sided at
 * the borders and still halved: I1x(0) = (I1(1) − I1(0)) / 2 (IPOL
 * mask.c centered_gradient); likewise I1y. A 1-pixel-wide axis gives 0. */
cf_status cf_tvl1_centered_gradient (const cf_image * i1, cf_image * i1x,
    cf_image * i1y);

/* Per-warp constants around u0: I1w, I1wx, I1wy = bicubic samples of I1,
 * I1x, I1y at x + u0(x) with @border; with @blend = β > 0, where the sample
 * lies inside (cf_bicubic_cell), I1wx ← (1 − β) I1wx + β I0x and likewise
 * I1wy, I0x and I0y being I0's centred differences
 * (cf_tvl1_centered_gradient's); g = I1wx² + I1wy²;
 * ρc = I1w − I1wx u0_1 − I1wy u0_2 − I0. @blend 0 is IPOL's. */
cf_status cf_tvl1_warp_prepare (const cf_image * i0, const cf_image * i1,
    const cf_image * i1x, const cf_image * i1y, const cf_flow * u0,
    cf_warp_border border, float blend, cf_image * i1w, cf_image * i1wx,
    cf_image * i1wy, cf_image * grad, cf_image * rho_c);

/* A brightness model for frames whose light changes between them: I1 at
 * x + u0 ≈ gain · I0(x) + bias, fitted over the pixels whose sample lies
 * at least CF_TVL1_BRIGHTNESS_MARGIN px inside I1 and whose residual
 * under the previous warp's fit (@fit) is at most its cut (occlusions and
 * moving content weigh less): gain = σ(I1w) / σ(I0), bias = mean(I1w) −
 * gain · mean(I0). One sweep: the sums (in double) give the fit and, in
 * closed form, its root-mean-square residual r over the same pixels;
 * @fit becomes (gain, bias, cut = max (2 r, CF_TVL1_BRIGHTNESS_CUT_MIN))
 * for the next warp, or is cleared (live = 0: the next warp counts every
 * pixel inside the margin) when fewer than 64 pixels count or I0 is flat
 * there. @gain and @bias: the model to apply, the identity (1, 0) in
 * those cases and when the same fit over every pixel inside the margin,
 * untrimmed, is within CF_TVL1_BRIGHTNESS_GATE of gain 1 and
 * CF_TVL1_BRIGHTNESS_GATE_BIAS grey levels of bias 0 (the gate: frames of
 * unchanged light keep IPOL's data term bit for bit; a trimmed fit on the
 * misaligned coarse levels drifts past it). A frame's first warp starts
 * from a cleared @fit. GPU twin: cuda/tvl1-brightness.cu. */
#define CF_TVL1_BRIGHTNESS_MARGIN 3.0f
#define CF_TVL1_BRIGHTNESS_CUT_MIN 1.0
#define CF_TVL1_BRIGHTNESS_GATE 0.02
#define CF_TVL1_BRIGHTNESS_GATE_BIAS 2.0
typedef struct
{
  double gain, bias, cut;       /* the fit before the gate, its cut */
  int live;                     /* 0: nothing to trim against */
} cf_tvl1_brightness_fit;
cf_status cf_tvl1_fit_brightness (const cf_image * i0, const cf_image * i1w,
    const cf_flow * u0, cf_tvl1_brightness_fit * fit, float *gain,
    float *bias);

/* ρc ← ρc + I0 − (gain I0 + bias): the data term of that model, with the
 * constants of cf_tvl1_warp_prepare (fp32, one rounding per operation). */
cf_status cf_tvl1_apply_brightness (const cf_image * i0, float gain,
    float bias, cf_image * rho_c);

/* Step V, the thresholding TH: v = u + d with ρ = ρc + I1wx u1 + I1wy u2,
 * l = λθ and d = l ∇I1w if ρ < −l g, −l ∇I1w if ρ > l g, 0 if
 * g < CF_TVL1_GRAD_IS_ZERO, else −ρ ∇I1w / g. Pointwise; @v may be @u. */
cf_status cf_tvl1_threshold (const cf_image * i1wx, const cf_image * i1wy,
    const cf_image * grad, const cf_image * rho_c, const cf_flow * u,
    float lambda, float theta, cf_flow * v);

/* Step Div for one dual field: div = (px(x) − px(x−1)) + (py(y) − py(y−1))
 * with px, py taken as 0 left of column 0 and above row 0, and px on the
 * last column and py on the last row not read (IPOL mask.c divergence;
 * equal to the plain backward difference while those stay 0). */
cf_status cf_tvl1_divergence (const cf_image * px, const cf_image * py,
    cf_image * div);

/* Step U: u_d = v_d + θ div_d for d = 1, 2 (div_1 in @div's u plane, div_2
 * in its v plane). @u holds u^n on entry and u^{n+1} on return; the sum over
 * pixels of |u^{n+1} − u^n|² is stored in @sum_sq (double, may be NULL).
 * Pointwise; @v may be @u. */
cf_status cf_tvl1_update_u (const cf_flow * v, const cf_flow * div,
    float theta, cf_flow * u, double *sum_sq);

/* Step fG for one plane: fx = f(x+1) − f(x), fy = f(y+1) − f(y), 0 on the
 * last column (fx) and last row (fy) (IPOL mask.c forward_gradient). */
cf_status cf_tvl1_forward_gradient (const cf_image * f, cf_image * fx,
    cf_image * fy);

/* Step P for one dual field: p ← (p + τ/θ ∇u) / (1 + τ/θ |∇u|), with ∇u =
 * (ux, uy) from cf_tvl1_forward_gradient. @p_in and @p_out hold (p_d1,
 * p_d2) in their u and v planes; pointwise, so they may be the same. */
cf_status cf_tvl1_update_p (const cf_image * ux, const cf_image * uy,
    const cf_flow * p_in, float tau, float theta, cf_flow * p_out);

/* Planes one TV-L1 solve needs, allocated once for the finest size; a level
 * uses views of the top-left corner (cf_tvl1_workspace_level). The dual
 * field p_d keeps (p_d1, p_d2) in the (u, v) planes of p1 (for u1) and p2
 * (for u2). */
typedef struct
{
  int width, height;
  cf_image i1x, i1y;            /* ∇I1, per level */
  cf_image i1w, i1wx, i1wy;     /* I1, ∇I1 warped by u0, per warp */
  cf_image grad, rho_c;         /* g and ρc, per warp */
  cf_flow p1, p2;               /* dual fields, reset per level */
  cf_flow v;                    /* TH output */
  cf_flow div;                  /* (div p1, div p2) */
  cf_flow du1, du2;             /* forward gradients of u1 and u2 */
  float *block;                 /* owns every plane above */
} cf_tvl1_workspace;

/* NULL on a bad size or no memory. Planes start zeroed. */
cf_tvl1_workspace *cf_tvl1_workspace_new (int width, int height);
void cf_tvl1_workspace_free (cf_tvl1_workspace * ws);  /* NULL: no-op */

/* @level: views of @ws's planes cropped to width x height (<= ws's size);
 * CF_ERROR_INVALID when it does not fit. @level owns nothing. */
cf_status cf_tvl1_workspace_level (const cf_tvl1_workspace * ws, int width,
    int height, cf_tvl1_workspace * level);

/* One iteration V, Div, U, fG, P on @u and @ws's dual fields, using the
 * per-warp constants already in @ws (cf_tvl1_warp_prepare). @mean_sq_update
 * (may be NULL) receives the mean over pixels of |u^{n+1} − u^n|², the
 * quantity IPOL compares with ε². */
cf_status cf_tvl1_iteration (cf_tvl1_workspace * ws,
    const cf_tvl1_params * params, cf_flow * u, double *mean_sq_update);

/* Flow from pyramid @p0 (frame t−1) to @p1 (frame t), same sizes, built from
 * cf_tvl1_normalize_pair'd frames with cf_tvl1_prepare_pyramid_params.
 * @flow (level-0 size) is the initial estimate when @use_initial (resampled
 * to the coarsest level), else ignored; it receives the result. */
cf_status cf_tvl1_flow (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_tvl1_params * params, int use_initial, cf_flow * flow);

/* cf_tvl1_flow that also stores in @iterations (may be NULL) the
 * iterations it ran, summed over levels and warps: the sum over levels of
 * warps × max_iterations of each level (cf_tvl1_level_warps,
 * cf_tvl1_level_iterations), with ε > 0 fewer when warps converge (the
 * count cf_cuda_tvl1_plan_iterations gives for the GPU twin). */
cf_status cf_tvl1_flow_counted (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_tvl1_params * params, int use_initial, cf_flow * flow,
    long *iterations);

#ifdef __cplusplus
}
#endif
#endif /* CF_TVL1_H */
