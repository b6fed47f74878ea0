/* gst-cudaflow — Combined Local-Global (CLG) optical flow, CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See common/clg.h for the model, the corrected sign of the linear system
 * and the differences from IPOL. Arithmetic is fp32 with f literals, like
 * the GPU twins; the one deliberate double is the residual reduction.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/clg.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/warp.h"

static cf_status parse_iterations_per_level (void *params, const char *text,
    cf_error * err);

static const cf_param clg_params[] = {
  {
    .name = "alpha", .nick = "Alpha", .type = CF_PARAM_FLOAT,
    .min = CF_CLG_ALPHA_MIN, .max = CF_CLG_ALPHA_MAX,
    /* measured on the 8 Middlebury pairs (4 levels, 200 sweeps): mean EPE
     * 0.948 at α 50 against 1.067 at the paper's "high" 325 (5e-3 × 255²),
     * which 200 Jacobi sweeps leave far from converged */
    .def = 50.0,
    .unit = "intensity² (0..255)", .offset = offsetof (cf_clg_params, alpha),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Smoothness weight (intensities 0..255: 255^2 times the value "
        "for [0, 1] intensities, so the paper's 5e-3 is 325)",
  },
  {
    .name = "rho", .nick = "Rho", .type = CF_PARAM_FLOAT,
    .min = 0.0, .max = CF_CLG_RHO_MAX, .def = 2.5,     /* Figs. 4–5 */
    .unit = "pixels", .offset = offsetof (cf_clg_params, rho),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Standard deviation of the Gaussian that integrates the "
        "structure tensor, pixels of each level (0 = Horn-Schunck data term)",
  },
  {
    .name = "sigma", .nick = "Sigma", .type = CF_PARAM_FLOAT,
    .min = 0.0, .max = CF_CLG_SIGMA_MAX, .def = 0.0,
    .unit = "pixels", .offset = offsetof (cf_clg_params, presmooth_sigma),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Gaussian presmoothing of both frames before the pyramid, "
        "pixels (0 = none)",
  },
  {
    .name = "iterations", .nick = "Iterations", .type = CF_PARAM_INT,
    .min = 0, .max = CF_CLG_MAX_ITERATIONS, .def = 50,    /* balanced */
    .unit = "sweeps", .offset = offsetof (cf_clg_params, iterations),
    .flags = CF_PARAM_TUNABLE, .replaces = "iterations-per-level",
    .blurb = "Jacobi sweeps on the levels iterations-per-level leaves out "
        "(setting iterations clears that list, so it counts on every "
        "level)",
  },
  {
    .name = "iterations-per-level", .nick = "Iterations Per Level",
    .type = CF_PARAM_TEXT, .parse = parse_iterations_per_level,
    .unit = "sweeps", .flags = CF_PARAM_LIVE,
    .blurb = "Jacobi sweeps per level, finest first, comma-separated, e.g. "
        "\"60,120,180,240\"; levels past the list reuse its last entry; "
        "empty = iterations on every level",
  },
  {NULL}
};

/* Seznec et al.'s configurations A and B (JRTIP 2022) */
static const cf_preset clg_presets[] = {
  {"config-a", "Seznec et al.'s configuration A: 4 levels, 75 sweeps on "
        "every level (H100, 1080p, fp16: 1.64 ms; Middlebury EPE "
        "1.011)",
      {CF_SET ("levels", 4), CF_SET ("iterations", 75),
          CF_SET_TEXT ("iterations-per-level", NULL)}},
  {"config-b", "Seznec et al.'s configuration B: 4 levels, 60,120,180,240 "
        "sweeps (finest first; H100, 1080p, fp16: 1.83 ms; Middlebury EPE "
        "0.979)",
      {CF_SET ("levels", 4),
          CF_SET_TEXT ("iterations-per-level", "60,120,180,240")}},
  /* points of the measured speed/accuracy front that also keep large
   * motions (docs/flow-frontier.md) */
  {"fast", "6 levels, 25 sweeps on every level (H100, 1080p, fp16: 1.05 "
        "ms; Middlebury EPE 0.940)",
      {CF_SET ("levels", 6), CF_SET ("iterations", 25),
          CF_SET_TEXT ("iterations-per-level", NULL)}},
  {"balanced", "The defaults: 6 levels, 50 sweeps on every level (H100, 1080p, fp16: "
        "1.44 ms; Middlebury EPE 0.860)",
      {CF_SET ("levels", 6), CF_SET ("iterations", 50),
          CF_SET_TEXT ("iterations-per-level", NULL)}},
  {"accurate", "6 levels, 100 sweeps on every level (H100, 1080p, fp16: "
        "2.22 ms; Middlebury EPE 0.799)",
      {CF_SET ("levels", 6), CF_SET ("iterations", 100),
          CF_SET_TEXT ("iterations-per-level", NULL)}},
  {NULL}
};

const cf_param_table cf_clg_param_table = {
  .method = "clg",
  .params_size = sizeof (cf_clg_params),
  .params = clg_params,
  .presets = clg_presets,
  .presets_blurb = "Set levels and sweeps at once",
  .default_levels = 6           /* balanced; the paper's 4: config-a, -b */
};

void
cf_clg_params_init (cf_clg_params * params)
{
  cf_params_init (&cf_clg_param_table, params);
}

cf_status
cf_clg_params_set (cf_clg_params * params, const char *name, double value)
{
  return cf_params_set (&cf_clg_param_table, params, name, value, NULL);
}

/* The TEXT row: no list (NULL or blank) = `iterations` on every level. */
static cf_status
parse_iterations_per_level (void *params, const char *text, cf_error * err)
{
  cf_clg_params *p = params;
  const char *s = text;

  while (s != NULL && isspace ((unsigned char) *s))
    s++;
  if (s == NULL || *s == '\0') {
    p->n_iterations_per_level = 0;
    return CF_OK;
  }
  return cf_clg_parse_iterations_per_level (p, text, err);
}

cf_status
cf_clg_parse_iterations_per_level (cf_clg_params * params, const char *text,
    cf_error * err)
{
  int values[CF_PYRAMID_MAX_LEVELS], n;
  cf_status status;

  if (params == NULL) {
    cf_error_set (err, "iterations per level: no parameters");
    return CF_ERROR_INVALID;
  }
  status = cf_params_parse_level_list (text, "iterations per level",
      "60,120,180,240", 0, CF_CLG_MAX_ITERATIONS, CF_PYRAMID_MAX_LEVELS,
      values, &n, err);
  if (status != CF_OK)
    return status;
  memcpy (params->iterations_per_level, values, (size_t) n * sizeof (int));
  params->n_iterations_per_level = n;
  return CF_OK;
}

int
cf_clg_level_iterations (const cf_clg_params * params, int level)
{
  int n = params->n_iterations_per_level;

  if (n <= 0)
    return params->iterations;
  return params->iterations_per_level[level < n ? level : n - 1];
}

void
cf_clg_prepare_pyramid_params (const cf_clg_params * params,
    cf_pyramid_params * pyramid)
{
  pyramid->presmooth_sigma = params->presmooth_sigma;
}

int
cf_clg_params_valid (const cf_clg_params * params)
{
  int l;

  /* the table's rows, then what the per-level list parsed into */
  if (!cf_params_valid (&cf_clg_param_table, params) ||
      params->n_iterations_per_level < 0 ||
      params->n_iterations_per_level > CF_PYRAMID_MAX_LEVELS)
    return 0;
  for (l = 0; l < params->n_iterations_per_level; l++)
    if (params->iterations_per_level[l] < 0 ||
        params->iterations_per_level[l] > CF_CLG_MAX_ITERATIONS)
      return 0;
  return 1;
}

static inline int
clampi (int i, int n)
{
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

static int
same_size (const cf_image * a, const cf_image * b)
{
  return a != NULL && b != NULL && a->data != NULL && b->data != NULL &&
      a->width == b->width && a->height == b->height;
}

static int
flow_fits (const cf_flow * f, const cf_image * like)
{
  return f != NULL && f->u != NULL && f->v != NULL &&
      f->width == like->width && f->height == like->height;
}

static int
tensor_valid (const cf_clg_tensor * j)
{
  return j != NULL && same_size (&j->j11, &j->j12) &&
      same_size (&j->j11, &j->j22) && same_size (&j->j11, &j->j13) &&
      same_size (&j->j11, &j->j23);
}

/* f_x = (I0(x+1) − I0(x−1)) / 2, f_y likewise, indices clamped (replicate
 * border); f_t = I1w − I0. Full-pixel grid, both on I0 (frame t−1):
 * IPOL computeDerivatives (stencil [−½, 0, ½], gradientIm = image1)
 * and the f_t of calcCLG_OF. The paper gives no stencil. */
cf_status
cf_clg_derivatives (const cf_image * i0, const cf_image * i1w, cf_image * fx,
    cf_image * fy, cf_image * ft)
{
  int x, y, w, h;

  if (!same_size (i0, i1w) || !same_size (i0, fx) || !same_size (i0, fy) ||
      !same_size (i0, ft))
    return CF_ERROR_INVALID;
  w = i0->width;
  h = i0->height;
  for (y = 0; y < h; y++) {
    const float *r0 = cf_image_row (i0, y);
    const float *rm = cf_image_row (i0, clampi (y - 1, h));
    const float *rp = cf_image_row (i0, clampi (y + 1, h));
    const float *r1 = cf_image_row (i1w, y);
    float *ox = cf_image_row (fx, y);
    float *oy = cf_image_row (fy, y);
    float *ot = cf_image_row (ft, y);
    for (x = 0; x < w; x++) {
      ox[x] = 0.5f * (r0[clampi (x + 1, w)] - r0[clampi (x - 1, w)]);
      oy[x] = 0.5f * (rp[x] - rm[x]);
      ot[x] = r1[x] - r0[x];
    }
  }
  return CF_OK;
}

/* J_0 = ∇₃f ∇₃fᵀ (eqs. 5–8), the five channels the
 * system reads, then J_ρ = K_ρ ∗ J_0 per channel (eq. 10:
 * smooth the products, not the derivatives). K_ρ: cf_gaussian_blur,
 * radius ⌈4ρ⌉, reflecting border; ρ in pixels of this level. */
cf_status
cf_clg_structure_tensor (const cf_image * fx, const cf_image * fy,
    const cf_image * ft, float rho, cf_image * tmp, cf_clg_tensor * j)
{
  cf_image *channel[5];
  cf_status status;
  int x, y, k;

  if (!same_size (fx, fy) || !same_size (fx, ft) || !tensor_valid (j) ||
      !same_size (fx, &j->j11) || !(rho >= 0.0f) || !(rho <= CF_CLG_RHO_MAX) ||
      (rho > 0.0f && !same_size (fx, tmp)))
    return CF_ERROR_INVALID;
  for (y = 0; y < fx->height; y++) {
    const float *gx = cf_image_row (fx, y);
    const float *gy = cf_image_row (fy, y);
    const float *gt = cf_image_row (ft, y);
    float *o11 = cf_image_row (&j->j11, y);
    float *o12 = cf_image_row (&j->j12, y);
    float *o22 = cf_image_row (&j->j22, y);
    float *o13 = cf_image_row (&j->j13, y);
    float *o23 = cf_image_row (&j->j23, y);
    for (x = 0; x < fx->width; x++) {
      o11[x] = gx[x] * gx[x];
      o12[x] = gx[x] * gy[x];
      o22[x] = gy[x] * gy[x];
      o13[x] = gx[x] * gt[x];
      o23[x] = gy[x] * gt[x];
    }
  }
  if (rho == 0.0f)
    return CF_OK;
  channel[0] = &j->j11;
  channel[1] = &j->j12;
  channel[2] = &j->j22;
  channel[3] = &j->j13;
  channel[4] = &j->j23;
  for (k = 0; k < 5; k++) {
    status = cf_gaussian_blur (channel[k], rho, tmp, channel[k]);
    if (status != CF_OK)
      return status;
  }
  return CF_OK;
}

/* Sums of a plane over the in-image 4-neighbours of (x, y), in the fixed
 * order left, right, up, down, and their count |N| (Neumann border:
 * no term across the image edge). */
static inline void
neighbour_sums (const cf_flow * d, int x, int y, float *su, float *sv, int *n)
{
  size_t i = (size_t) x + (size_t) y * d->pitch;
  float a = 0.0f, b = 0.0f;
  int count = 0;

  if (x > 0) {
    a += d->u[i - 1];
    b += d->v[i - 1];
    count++;
  }
  if (x + 1 < d->width) {
    a += d->u[i + 1];
    b += d->v[i + 1];
    count++;
  }
  if (y > 0) {
    a += d->u[i - d->pitch];
    b += d->v[i - d->pitch];
    count++;
  }
  if (y + 1 < d->height) {
    a += d->u[i + d->pitch];
    b += d->v[i + d->pitch];
    count++;
  }
  *su = a;
  *sv = b;
  *n = count;
}

/* Pointwise-coupled Jacobi, B_J^(diags) of eq. 20 with the sign
 * derived in common/clg.h: per pixel solve
 *   [J11 + α|N|   J12      ] [u]   [α S_u − J13]
 *   [J12       J22 + α|N|  ] [v] = [α S_v − J23]
 * by Cramer's rule (IPOL
 * relaxPointwiseCoupledGaussSeidel, here Jacobi: S from @d only). det > 0
 * whenever |N| > 0 and α > 0 because J_ρ is positive semi-definite. */
cf_status
cf_clg_jacobi (const cf_clg_tensor * j, float alpha, const cf_flow * d,
    cf_flow * d_out)
{
  int x, y;

  if (!tensor_valid (j) || !flow_fits (d, &j->j11) ||
      !flow_fits (d_out, &j->j11) || d == d_out || d->u == d_out->u ||
      d->v == d_out->v || !(alpha > 0.0f))
    return CF_ERROR_INVALID;
  for (y = 0; y < j->j11.height; y++) {
    const float *j11 = cf_image_row (&j->j11, y);
    const float *j12 = cf_image_row (&j->j12, y);
    const float *j22 = cf_image_row (&j->j22, y);
    const float *j13 = cf_image_row (&j->j13, y);
    const float *j23 = cf_image_row (&j->j23, y);
    float *ou = d_out->u + (size_t) y * d_out->pitch;
    float *ov = d_out->v + (size_t) y * d_out->pitch;
    for (x = 0; x < j->j11.width; x++) {
      float su, sv, an, a, e, c, det, ru, rv;
      int n;

      neighbour_sums (d, x, y, &su, &sv, &n);
      an = alpha * (float) n;
      a = j11[x] + an;
      e = j22[x] + an;
      c = j12[x];
      det = a * e - c * c;
      ru = alpha * su - j13[x];
      rv = alpha * sv - j23[x];
      if (det > 0.0f) {
        ou[x] = (e * ru - c * rv) / det;
        ov[x] = (a * rv - c * ru) / det;
      } else {
        ou[x] = 0.0f;
        ov[x] = 0.0f;
      }
    }
  }
  return CF_OK;
}

/* r = b − A x with A = J_block − αΔ, b = −(J13, J23) (eq. 17,
 * sign as in common/clg.h); *sum = ‖r‖₂², summed in double. */
static cf_status
residual_sum (const cf_clg_tensor * j, float alpha, const cf_flow * d,
    double *sum_out)
{
  double sum = 0.0;
  int x, y;

  if (!tensor_valid (j) || !flow_fits (d, &j->j11) || sum_out == NULL ||
      !(alpha > 0.0f))
    return CF_ERROR_INVALID;
  for (y = 0; y < j->j11.height; y++) {
    const float *j11 = cf_image_row (&j->j11, y);
    const float *j12 = cf_image_row (&j->j12, y);
    const float *j22 = cf_image_row (&j->j22, y);
    const float *j13 = cf_image_row (&j->j13, y);
    const float *j23 = cf_image_row (&j->j23, y);
    const float *u = d->u + (size_t) y * d->pitch;
    const float *v = d->v + (size_t) y * d->pitch;
    for (x = 0; x < j->j11.width; x++) {
      float su, sv, an, ru, rv;
      double du, dv;
      int n;

      neighbour_sums (d, x, y, &su, &sv, &n);
      an = alpha * (float) n;
      ru = alpha * su - j13[x] - (j11[x] + an) * u[x] - j12[x] * v[x];
      rv = alpha * sv - j23[x] - j12[x] * u[x] - (j22[x] + an) * v[x];
      du = ru;
      dv = rv;
      sum += du * du + dv * dv;
    }
  }
  *sum_out = sum;
  return CF_OK;
}

/* ‖r‖₂ is the paper's convergence measure. */
cf_status
cf_clg_residual (const cf_clg_tensor * j, float alpha, const cf_flow * d,
    double *norm)
{
  double sum;
  cf_status status;

  if (norm == NULL)
    return CF_ERROR_INVALID;
  status = residual_sum (j, alpha, d, &sum);
  if (status == CF_OK)
    *norm = sqrt (sum);
  return status;
}

cf_status
cf_clg_residual_rms (const cf_clg_tensor * j, float alpha, const cf_flow * d,
    double *rms)
{
  double sum;
  cf_status status;

  if (rms == NULL)
    return CF_ERROR_INVALID;
  status = residual_sum (j, alpha, d, &sum);
  if (status == CF_OK)
    *rms = sqrt (sum / ((double) j->j11.width * j->j11.height));
  return status;
}

/* u ← u + d: the increment solved on this level (IPOL calcCLG_OF
 * uOut += u; IPOL calcMSCLG_OF). */
cf_status
cf_clg_add_increment (const cf_flow * u, const cf_flow * d, cf_flow * u_out)
{
  int x, y;

  if (u == NULL || d == NULL || u_out == NULL || d->width != u->width ||
      d->height != u->height || u_out->width != u->width ||
      u_out->height != u->height)
    return CF_ERROR_INVALID;
  for (y = 0; y < u->height; y++) {
    const float *uu = u->u + (size_t) y * u->pitch;
    const float *uv = u->v + (size_t) y * u->pitch;
    const float *du = d->u + (size_t) y * d->pitch;
    const float *dv = d->v + (size_t) y * d->pitch;
    float *ou = u_out->u + (size_t) y * u_out->pitch;
    float *ov = u_out->v + (size_t) y * u_out->pitch;
    for (x = 0; x < u->width; x++) {
      ou[x] = uu[x] + du[x];
      ov[x] = uv[x] + dv[x];
    }
  }
  return CF_OK;
}

/* A width x height view of the top-left corner of a full-size plane. */
static cf_image
image_crop (const cf_image * full, int width, int height)
{
  return cf_image_view (full->data, width, height, full->pitch);
}

cf_status
cf_clg_flow (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_clg_params * params, int use_initial, cf_flow * flow)
{
  cf_status status = CF_OK;
  cf_flow *u = NULL, *d[2] = { NULL, NULL };
  cf_image *i1w = NULL, *fx = NULL, *fy = NULL, *ft = NULL, *tmp = NULL;
  cf_image *jp[5] = { NULL, NULL, NULL, NULL, NULL };
  int l, k, w0, h0;

  if (p0 == NULL || p1 == NULL || !cf_clg_params_valid (params) ||
      flow == NULL || p0->n_levels != p1->n_levels || p0->n_levels < 1 ||
      p0->n_levels > CF_PYRAMID_MAX_LEVELS)
    return CF_ERROR_INVALID;
  for (l = 0; l < p0->n_levels; l++)
    if (!same_size (p0->level[l], p1->level[l]))
      return CF_ERROR_INVALID;
  if (flow->width != p0->level[0]->width ||
      flow->height != p0->level[0]->height)
    return CF_ERROR_INVALID;
  w0 = flow->width;
  h0 = flow->height;

  /* scratch at full size; every level uses top-left views of it */
  u = cf_flow_new (w0, h0);
  d[0] = cf_flow_new (w0, h0);
  d[1] = cf_flow_new (w0, h0);
  i1w = cf_image_new (w0, h0);
  fx = cf_image_new (w0, h0);
  fy = cf_image_new (w0, h0);
  ft = cf_image_new (w0, h0);
  tmp = cf_image_new (w0, h0);
  for (k = 0; k < 5; k++)
    jp[k] = cf_image_new (w0, h0);
  if (!u || !d[0] || !d[1] || !i1w || !fx || !fy || !ft || !tmp || !jp[0]
      || !jp[1] || !jp[2] || !jp[3] || !jp[4]) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }

  /* coarsest first (IPOL calcMSCLG_OF); "higher level" in the paper = coarser */
  for (l = p0->n_levels - 1; l >= 0 && status == CF_OK; l--) {
    const cf_image *f0 = p0->level[l], *f1 = p1->level[l];
    int w = f0->width, h = f0->height, n, cur = 0;
    int iterations = cf_clg_level_iterations (params, l);
    cf_flow ul = cf_flow_view (u, w, h), out = cf_flow_view (flow, w, h);
    cf_flow dl[2] = { cf_flow_view (d[0], w, h),
      cf_flow_view (d[1], w, h)
    };
    cf_image wl = image_crop (i1w, w, h), xl = image_crop (fx, w, h);
    cf_image yl = image_crop (fy, w, h), tl = image_crop (ft, w, h);
    cf_image sl = image_crop (tmp, w, h);
    cf_clg_tensor jl;

    jl.j11 = image_crop (jp[0], w, h);
    jl.j12 = image_crop (jp[1], w, h);
    jl.j22 = image_crop (jp[2], w, h);
    jl.j13 = image_crop (jp[3], w, h);
    jl.j23 = image_crop (jp[4], w, h);

    /* the flow entering this level: warm start, zero, or the coarser
     * level's result (parked in `flow`) × 1/η */
    if (l == p0->n_levels - 1) {
      if (use_initial)
        status = cf_flow_resample (flow, &ul);
      else
        cf_flow_fill (&ul, 0.0f, 0.0f);
    } else {
      cf_flow prev = cf_flow_view (flow, p0->level[l + 1]->width,
          p0->level[l + 1]->height);
      status = cf_flow_resample (&prev, &ul);
    }

    /* one warp per level: I1w = I1(x + u), then f_x, f_y, f_t and J_ρ */
    if (status == CF_OK)
      status = cf_warp_bicubic (f1, &ul, CF_WARP_CLAMP, &wl);
    if (status == CF_OK)
      status = cf_clg_derivatives (f0, &wl, &xl, &yl, &tl);
    if (status == CF_OK)
      status = cf_clg_structure_tensor (&xl, &yl, &tl, params->rho, &sl, &jl);
    if (status != CF_OK)
      break;

    /* the increment from zero, Jacobi sweeps alternating dl[0] and dl[1] */
    cf_flow_fill (&dl[0], 0.0f, 0.0f);
    for (n = 0; n < iterations && status == CF_OK; n++) {
      status = cf_clg_jacobi (&jl, params->alpha, &dl[cur], &dl[1 - cur]);
      cur = 1 - cur;
    }

    /* this level's result, parked in `flow` for the next finer level */
    if (status == CF_OK)
      status = cf_clg_add_increment (&ul, &dl[cur], &out);
  }

out:
  cf_flow_free (u);
  cf_flow_free (d[0]);
  cf_flow_free (d[1]);
  cf_image_free (i1w);
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
  cf_image_free (tmp);
  for (k = 0; k < 5; k++)
    cf_image_free (jp[k]);
  return status;
}
