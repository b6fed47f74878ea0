/* gst-cudaflow — Combined Local-Global (CLG) optical flow, CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The linear, spatial CLG model of Bruhn, Weickert and Schnörr (IJCV 2005)
 * as the GPU paper states it (Seznec, Gac, Orieux, Sashala Naik, JRTIP
 * 2022; equation numbers below are that paper's) with the multi-scale
 * scheme of the IPOL implementation it defers to (Jara-Wilde et al.,
 * IPOL 5 (2015) 139-158). References: docs/references.md.
 *
 *   E(w) = Σ_p wᵀ J_ρ w + α (|∇u|² + |∇v|²),  w = (u, v, 1)ᵀ   (eq. 11)
 *   J_ρ = K_ρ ∗ (∇₃f ∇₃fᵀ), ∇₃f = (f_x, f_y, f_t)ᵀ              (eq. 10)
 *
 * Symbols: f_x, f_y central differences of I0 (frame t-1) at the current
 * level, f_t = I1w − I0 with I1w frame t warped by the current flow; J11,
 * J12, J22, J13, J23 the five tensor channels used (1-based; the paper's
 * 0-based j00, j01, j11, j02, j12; J33 is never needed); K_ρ a Gaussian of
 * standard deviation ρ (pixels of each level, not rescaled).
 *
 * Discretisation: forward differences in the smoothness
 * term, so the Euler–Lagrange system is A x = b with
 *   A = J_block − α Δ   (SPD for α > 0),   b = −(J13, J23),
 * i.e. per pixel p with N(p) its in-image 4-neighbours (Neumann border:
 * |N| ∈ {2, 3, 4}; a 1-pixel-wide image has fewer)
 *   (J11 + α|N|) u_p + J12 v_p = α Σ_{q∈N(p)} u_q − J13
 *   J12 u_p + (J22 + α|N|) v_p = α Σ_{q∈N(p)} v_q − J23.
 * The paper prints A = J_block − α(DxᵀDx + DyᵀDy) (eq. 17); that
 * sign is wrong (setting eq. 15 to zero gives +α DᵀD = −αΔ).
 *
 * Solver: pointwise-coupled Jacobi (B_J^(diags), eq. 20): every pixel
 * solves its 2×2 block exactly with the neighbours of the previous sweep;
 * two buffers alternate, never in place, never copied.
 *
 * Coarse to fine (IPOL calcMSCLG_OF): per level, coarsest
 * first, warp I1 by the current flow u (bicubic Catmull-Rom, clamped taps,
 * common/warp.h), derivatives on I0, tensor, solve for the increment d from
 * d = 0 (the smoothness term acts on d only), u ← u + d, then carry u to
 * the next finer level with cf_flow_resample (× 1/η). One warp per level.
 * The pyramid (common/pyramid.h) is built by the caller with
 * cf_clg_prepare_pyramid_params; the paper uses 4 levels, η = 0.5.
 *
 * Intensity scale: 0..255. The paper's α (5e-3 "high", 5e-6 "low")
 * assumes [0, 1] intensities: J scales with intensity², so
 * α(0..255) = α([0, 1]) · 255² — 5e-3 ↔ 325, 5e-6 ↔ 0.325.
 *
 * Differences from IPOL, on purpose: fp32 instead of double; a Jacobi
 * (not Gauss–Seidel) sweep, |N|-count Neumann border on every pixel
 * instead of IPOL's copy-the-inward-neighbour border pass; fixed iteration
 * counts (no 1 % stopping rule); K_ρ with radius ⌈4ρ⌉ and the symmetric
 * half-sample reflection of cf_gaussian_blur (IPOL: (int)(5ρ)+1 taps,
 * asymmetric reflection); vectors scaled by the exact size ratio on
 * upsampling (cf_flow_resample; IPOL 1/η).
 *
 * Each step has a GPU twin cf_cuda_clg_<step> with the same argument
 * order. Planes of one call share width and height; pitches may
 * differ.
 */
#ifndef CF_CLG_H
#define CF_CLG_H

#include "common/image.h"
#include "common/params.h"
#include "common/pyramid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The range of every parameter, closed intervals, as cf_clg_param_table
 * states them: cf_clg_params_set, cf_clg_params_valid (the check of the CPU
 * and GPU solvers) and the properties of cudaflowclg all come from that
 * table, so a value one accepts the others accept too. Iterations (per
 * level) run 0 .. CF_CLG_MAX_ITERATIONS. */
#define CF_CLG_MAX_ITERATIONS 1000000
#define CF_CLG_ALPHA_MIN 0.001
#define CF_CLG_ALPHA_MAX 1e9
#define CF_CLG_RHO_MAX 50.0
#define CF_CLG_SIGMA_MAX 50.0

typedef struct
{
  float alpha;                  /* α, smoothness weight, intensities 0..255
                                 * (= α on [0, 1] × 255²) */
  float rho;                    /* ρ, std. dev. of K_ρ in pixels of each
                                 * level, [0, 50]; 0 = J_0 unsmoothed (HS
                                 * data term) */
  int iterations;               /* Jacobi sweeps on every level when
                                 * n_iterations_per_level is 0 */
  int iterations_per_level[CF_PYRAMID_MAX_LEVELS];      /* sweeps per level,
                                 * finest first (level 0 = full size) */
  int n_iterations_per_level;   /* entries used; 0 = uniform `iterations`;
                                 * levels past the list reuse its last entry */
  float presmooth_sigma;        /* σ, pixels, Gaussian on both frames before
                                 * the pyramid (IPOL sigma); 0 = none */
} cf_clg_params;

/* The five channels of J_ρ the solver reads, one plane each (views). */
typedef struct
{
  cf_image j11;                 /* K_ρ ∗ f_x²    (paper j00) */
  cf_image j12;                 /* K_ρ ∗ f_x f_y (paper j01 = j10) */
  cf_image j22;                 /* K_ρ ∗ f_y²    (paper j11) */
  cf_image j13;                 /* K_ρ ∗ f_x f_t (paper j02; b_u = −J13) */
  cf_image j23;                 /* K_ρ ∗ f_y f_t (paper j12; b_v = −J23) */
} cf_clg_tensor;

/* The parameters (alpha, rho, sigma, iterations, iterations-per-level; rows
 * in the property order of cudaflowclg) and presets (config-a, config-b) of
 * CLG. */
extern const cf_param_table cf_clg_param_table;

/* The table's defaults on 0..255 intensities: α 50 (≈ 7.7e-4 on [0, 1];
 * measured best within 0.01 px mean EPE on Middlebury for 200 uniform
 * sweeps and for the paper's configuration B, where the paper's "high"
 * 5e-3 = 325 is 0.12 and 0.16 px worse), ρ 2.5 (Figs. 4–5), 200 sweeps on
 * every level, no per-level list, σ 0 (not given by the paper; IPOL has no
 * default). */
void cf_clg_params_init (cf_clg_params * params);

/* Set one numeric parameter by its table name: "alpha" [CF_CLG_ALPHA_MIN,
 * CF_CLG_ALPHA_MAX], "rho" [0, CF_CLG_RHO_MAX], "sigma" [0,
 * CF_CLG_SIGMA_MAX] (presmooth_sigma), "iterations" integer
 * 0..CF_CLG_MAX_ITERATIONS (used on every level while the per-level list is
 * empty, as the element's property). CF_ERROR_INVALID for an unknown name
 * or an out-of-range value (params unchanged). The list is text:
 * cf_params_set_text (&cf_clg_param_table, …, "iterations-per-level", …). */
cf_status cf_clg_params_set (cf_clg_params * params, const char *name,
    double value);

/* Parse a per-level list, finest level first, e.g. "60,120,180,240" (the
 * paper's configuration B): 1 to CF_PYRAMID_MAX_LEVELS whole numbers
 * 0..CF_CLG_MAX_ITERATIONS separated by commas, blanks allowed around each.
 * CF_ERROR_FORMAT with a message in @err (nullable) naming the entry, params
 * unchanged, on anything else. */
cf_status cf_clg_parse_iterations_per_level (cf_clg_params * params,
    const char *text, cf_error * err);

/* Sweeps on pyramid level @level (0 = finest) under @params. */
int cf_clg_level_iterations (const cf_clg_params * params, int level);

/* 1 when every field of @params is in its range (the check of
 * cf_clg_flow and of the GPU twin). */
int cf_clg_params_valid (const cf_clg_params * params);

/* Copy what the pyramid needs from @params: presmooth_sigma only (η, level
 * count and minimum size stay the caller's; the paper: η 0.5, 4 levels). */
void cf_clg_prepare_pyramid_params (const cf_clg_params * params,
    cf_pyramid_params * pyramid);

/* Derivatives of one level (IPOL computeDerivatives): on the
 * full-pixel grid, f_x = (I0(x+1) − I0(x−1)) / 2 and likewise f_y, indices
 * clamped to the image (so f_x(0) = (I0(1) − I0(0)) / 2; a 1-pixel axis
 * gives 0); f_t = I1w − I0. */
cf_status cf_clg_derivatives (const cf_image * i0, const cf_image * i1w,
    cf_image * fx, cf_image * fy, cf_image * ft);

/* J_ρ (eq. 10): the five products f_x², f_x f_y, f_y², f_x f_t,
 * f_y f_t, then each channel blurred with K_ρ (cf_gaussian_blur, reflecting
 * border) when ρ > 0. @tmp: scratch plane of the same size. */
cf_status cf_clg_structure_tensor (const cf_image * fx, const cf_image * fy,
    const cf_image * ft, float rho, cf_image * tmp, cf_clg_tensor * j);

/* One pointwise-coupled Jacobi sweep: with S_u, S_v the sums of
 * @d over N(p), a = J11 + α|N|, e = J22 + α|N|, c = J12,
 * det = a e − c², r_u = α S_u − J13, r_v = α S_v − J23,
 *   d_out = ((e r_u − c r_v) / det, (a r_v − c r_u) / det);
 * a pixel with det <= 0 (only possible without neighbours) gets 0.
 * @d and @d_out must be different buffers. */
cf_status cf_clg_jacobi (const cf_clg_tensor * j, float alpha,
    const cf_flow * d, cf_flow * d_out);

/* ‖b − A d‖₂ over all 2·w·h unknowns (the paper's convergence measure), in
 * double: per pixel r_u = −J13 − (J11 + α|N|) u − J12 v + α S_u, likewise
 * r_v. */
cf_status cf_clg_residual (const cf_clg_tensor * j, float alpha,
    const cf_flow * d, double *norm);

/* The same residual as a root mean square over pixels, both equations:
 * *rms = sqrt (Σ_p (r_u² + r_v²) / (w h)) = ‖b − A d‖₂ / √(w h), so
 * levels and frame sizes compare (the convergence check of the Jacobi
 * sweeps, paper Figs. 4–5). @d: the increment of one level,
 * J_ρ and α those the sweeps solve with; r as cf_clg_residual (Neumann
 * border by in-image neighbour count, the system of cf_clg_jacobi). */
cf_status cf_clg_residual_rms (const cf_clg_tensor * j, float alpha,
    const cf_flow * d, double *rms);

/* u_out = u + d per pixel (the increment of one level); @u_out may be @u. */
cf_status cf_clg_add_increment (const cf_flow * u, const cf_flow * d,
    cf_flow * u_out);

/* Flow from pyramid @p0 (frame t−1) to @p1 (frame t), same sizes, built
 * with cf_clg_prepare_pyramid_params. @flow (level-0 size) is the initial
 * estimate when @use_initial (resampled to the coarsest level), else
 * ignored; it receives the result. */
cf_status cf_clg_flow (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_clg_params * params, int use_initial, cf_flow * flow);

#ifdef __cplusplus
}
#endif
#endif /* CF_CLG_H */
