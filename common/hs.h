/* gst-cudaflow — Horn–Schunck optical flow, CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Horn & Schunck (1981) in the discretisation of Romera's thesis (2023,
 * §4.3; equation numbers below are the thesis'; docs/references.md):
 *   energy  (Ix du + Iy dv + It)^2 + alpha^2 (|grad du|^2 + |grad dv|^2)
 *   derivatives: averages of four differences over the 2x2x2 cube of
 *     (I0, I1w) at pixels (x..x+1, y..y+1) (eq. 4.25) — centred at
 *     (x + 1/2, y + 1/2), the cell grid;
 *   Jacobi (eq. 4.29), on that cell grid, ping-pong buffers:
 *     du' = dū - Ix (Ix dū + Iy dv̄ + It) / (alpha^2 + Ix^2 + Iy^2)
 *     dv' = dv̄ - Iy (Ix dū + Iy dv̄ + It) / (alpha^2 + Ix^2 + Iy^2)
 *     with ū the 1/6 (edge) + 1/12 (corner) neighbour average (eq. 4.27),
 *     Neumann borders (clamped neighbours);
 *   incremental pyramid (§4.5.2): per level and warp, I1w = I1(x + u)
 *     (bicubic, clamped), du = 0, iterate, then u += du taken back to the
 *     pixel grid (average of the four cells around each pixel) so the
 *     update stays on the grid its derivatives live on; the flow moves to
 *     the next finer level by cf_flow_resample (x 1/eta).
 * The last cell row and column use the edge pixel twice (clamped), so the
 * grid has the image's size. Intensities 0..255: alpha = 0.2 on [0, 1]
 * (cuda-samples HSOpticalFlow) is 51 here.
 */
#ifndef CF_HS_H
#define CF_HS_H

#include "common/image.h"
#include "common/params.h"
#include "common/pyramid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The range of every parameter, closed intervals, as cf_hs_param_table
 * states them: cf_hs_params_valid (the check of cf_hs_flow and of the GPU
 * twin) and the properties of cudaflowhs come from that table. */
#define CF_HS_ALPHA_MIN 0.001
#define CF_HS_ALPHA_MAX 10000.0
#define CF_HS_WARPS_MAX 100
#define CF_HS_ITERATIONS_MAX 100000

typedef struct
{
  float alpha;                  /* smoothness weight (0..255 intensities) */
  int warps;                    /* warps per level, >= 1 */
  int iterations;               /* Jacobi iterations per warp, >= 0 */
} cf_hs_params;

/* The parameters (alpha, warps, iterations; rows in the property order of
 * cudaflowhs) and presets (cuda-samples, realtime (an alias of fast), fast,
 * balanced, accurate, romera) of Horn–Schunck. */
extern const cf_param_table cf_hs_param_table;

/* The table's defaults: alpha 15, 1 warp, 500 iterations (with 5 levels the
 * most accurate we measured on Middlebury; docs/flow-accuracy.md). */
void cf_hs_params_init (cf_hs_params * params);

/* Set one parameter by its table name ("alpha", "warps", "iterations");
 * CF_ERROR_INVALID for an unknown name or an out-of-range value (params
 * unchanged). */
cf_status cf_hs_params_set (cf_hs_params * params, const char *name,
    double value);

/* 1 when every field of @params is in its table range (warps from 1,
 * iterations from 0). */
int cf_hs_params_valid (const cf_hs_params * params);

/* Per-pixel derivatives of one warp (eq. 4.25), cell-centred. */
cf_status cf_hs_derivatives (const cf_image * i0, const cf_image * i1w,
    cf_image * ix, cf_image * iy, cf_image * it);

/* One Jacobi sweep (eq. 4.29): (du, dv) -> (du_out, dv_out), never in
 * place. */
cf_status cf_hs_jacobi (const cf_image * ix, const cf_image * iy,
    const cf_image * it, float alpha, const cf_flow * d, cf_flow * d_out);

/* Add the cell-grid increment @d to the pixel-grid flow @u: each pixel gets
 * the mean of the four cells around it (clamped at the edges). */
cf_status cf_hs_add_increment (const cf_flow * d, cf_flow * u);

/* Flow from pyramid @p0 (frame t-1) to @p1 (frame t), same sizes. @flow
 * (level-0 size) is the initial estimate when @use_initial, else ignored;
 * it receives the result. */
cf_status cf_hs_flow (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_hs_params * params, int use_initial, cf_flow * flow);

#ifdef __cplusplus
}
#endif
#endif /* CF_HS_H */
