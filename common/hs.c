/* gst-cudaflow — Horn–Schunck optical flow, CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/hs.h"

#include <stddef.h>
#include <stdlib.h>

#include "common/warp.h"

static const cf_param hs_params[] = {
  {
    .name = "alpha", .nick = "Alpha", .type = CF_PARAM_FLOAT,
    .min = CF_HS_ALPHA_MIN, .max = CF_HS_ALPHA_MAX, .def = 15.0,
    .unit = "intensity (0..255)", .offset = offsetof (cf_hs_params, alpha),
    .flags = CF_PARAM_TUNABLE,
    .blurb = "Smoothness weight alpha (intensities 0..255; alpha^2 weighs "
        "the flow gradient against the brightness constancy term)",
  },
  {
    .name = "warps", .nick = "Warps", .type = CF_PARAM_INT,
    .min = 1, .max = CF_HS_WARPS_MAX, .def = 1,
    .offset = offsetof (cf_hs_params, warps), .flags = CF_PARAM_TUNABLE,
    .blurb = "Warps per pyramid level: each re-warps frame t by the current "
        "flow and solves for an increment",
  },
  {
    .name = "iterations", .nick = "Iterations", .type = CF_PARAM_INT,
    .min = 0, .max = CF_HS_ITERATIONS_MAX, .def = 50,     /* balanced */
    .offset = offsetof (cf_hs_params, iterations), .flags = CF_PARAM_TUNABLE,
    .blurb = "Jacobi iterations per warp and level",
  },
  {NULL}
};

/* NVIDIA cuda-samples HSOpticalFlow: alpha 0.2 on [0, 1] intensities */
#define CUDA_SAMPLES_ALPHA (0.2 * 255.0)

/* fast's settings, also those of realtime, its alias */
#define HS_FAST_SETTINGS \
  {CF_SET ("levels", 6), CF_SET ("warps", 1), CF_SET ("iterations", 20), \
    CF_SET ("alpha", 15.0)}

static const cf_preset hs_presets[] = {
  {"cuda-samples", "NVIDIA cuda-samples HSOpticalFlow: 5 levels, 3 warps, "
        "500 iterations, alpha 51 (0.2 on [0,1]; H100, 1080p, fp16: 16.4 "
        "ms; Middlebury EPE 0.643)",
      {CF_SET ("levels", 5), CF_SET ("warps", 3), CF_SET ("iterations", 500),
          CF_SET ("alpha", CUDA_SAMPLES_ALPHA)}},
  {"realtime", "An alias of fast (H100, 1080p, fp16: 0.55 ms; Middlebury "
        "EPE 1.140); the embedded-GPU schedule this name used to set is "
        "romera", HS_FAST_SETTINGS},
  /* points of the measured speed/accuracy front that also keep large
   * motions (docs/flow-frontier.md) */
  {"fast", "6 levels, 1 warp, 20 iterations, alpha 15 (H100, 1080p, fp16: "
        "0.55 ms; Middlebury EPE 1.140)", HS_FAST_SETTINGS},
  {"balanced", "The defaults: 6 levels, 1 warp, 50 iterations, alpha 15 "
        "(H100, 1080p, fp16: 0.88 ms; Middlebury EPE 0.786)",
      {CF_SET ("levels", 6), CF_SET ("warps", 1), CF_SET ("iterations", 50),
          CF_SET ("alpha", 15.0)}},
  {"accurate", "5 levels, 1 warp, 200 iterations, alpha 15 (H100, 1080p, "
        "fp16: 2.37 ms; Middlebury EPE 0.623)",
      {CF_SET ("levels", 5), CF_SET ("warps", 1), CF_SET ("iterations", 200),
          CF_SET ("alpha", 15.0)}},
  /* last, so that the other presets keep their enum values; it leaves
   * alpha as it is */
  {"romera", "The time budget of Horn-Schunck on embedded GPUs (Romera et "
        "al.): 3 levels, 1 warp, 10 iterations (H100, 1080p, fp16: 0.35 ms; "
        "Middlebury EPE 2.879)",
      {CF_SET ("levels", 3), CF_SET ("warps", 1), CF_SET ("iterations", 10)}},
  {NULL}
};

const cf_param_table cf_hs_param_table = {
  .method = "hs",
  .params_size = sizeof (cf_hs_params),
  .params = hs_params,
  .presets = hs_presets,
  .presets_blurb = "Set levels, warps, iterations and alpha at once",
  .default_levels = 6           /* balanced */
};

void
cf_hs_params_init (cf_hs_params * params)
{
  cf_params_init (&cf_hs_param_table, params);
}

cf_status
cf_hs_params_set (cf_hs_params * params, const char *name, double value)
{
  return cf_params_set (&cf_hs_param_table, params, name, value, NULL);
}

static inline int
clampi (int i, int n)
{
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

static int
same_size (const cf_image * a, const cf_image * b)
{
  return a != NULL && b != NULL && a->width == b->width &&
      a->height == b->height;
}

/* Ix, Iy, It at cell (x + 1/2, y + 1/2), each the mean of four differences
 * over the 2x2x2 cube of I0 and I1w (Romera 2023, eq. 4.25); the
 * cube's far row/column is clamped at the image edge. */
cf_status
cf_hs_derivatives (const cf_image * i0, const cf_image * i1w, cf_image * ix,
    cf_image * iy, cf_image * it)
{
  int x, y, w, h;

  if (!same_size (i0, i1w) || !same_size (i0, ix) || !same_size (i0, iy) ||
      !same_size (i0, it))
    return CF_ERROR_INVALID;
  w = i0->width;
  h = i0->height;
  for (y = 0; y < h; y++) {
    const float *a0 = cf_image_row (i0, y);
    const float *b0 = cf_image_row (i0, clampi (y + 1, h));
    const float *a1 = cf_image_row (i1w, y);
    const float *b1 = cf_image_row (i1w, clampi (y + 1, h));
    float *ox = cf_image_row (ix, y);
    float *oy = cf_image_row (iy, y);
    float *ot = cf_image_row (it, y);
    for (x = 0; x < w; x++) {
      int x1 = clampi (x + 1, w);
      /* a = row y, b = row y+1; 0 = frame t-1, 1 = warped frame t */
      ox[x] = 0.25f * ((a0[x1] - a0[x]) + (b0[x1] - b0[x]) +
          (a1[x1] - a1[x]) + (b1[x1] - b1[x]));
      oy[x] = 0.25f * ((b0[x] - a0[x]) + (b0[x1] - a0[x1]) +
          (b1[x] - a1[x]) + (b1[x1] - a1[x1]));
      ot[x] = 0.25f * ((a1[x] - a0[x]) + (b1[x] - b0[x]) +
          (a1[x1] - a0[x1]) + (b1[x1] - b0[x1]));
    }
  }
  return CF_OK;
}

/* ū: 1/6 of the four edge neighbours + 1/12 of the four corner ones, the
 * centre excluded (Romera 2023, eq. 4.27); neighbours clamped (Neumann). */
static inline float
neighbour_average (const float *p, size_t pitch, int x, int y, int w, int h)
{
  int xm = clampi (x - 1, w), xp = clampi (x + 1, w);
  int ym = clampi (y - 1, h), yp = clampi (y + 1, h);
  const float *rm = p + (size_t) ym * pitch;
  const float *r0 = p + (size_t) y * pitch;
  const float *rp = p + (size_t) yp * pitch;

  return (1.0f / 6.0f) * (rm[x] + rp[x] + r0[xm] + r0[xp]) +
      (1.0f / 12.0f) * (rm[xm] + rm[xp] + rp[xm] + rp[xp]);
}

/* du' = ū - Ix (Ix ū + Iy v̄ + It) / (alpha^2 + Ix^2 + Iy^2), likewise dv'
 * with Iy (Romera 2023, eq. 4.29, Jacobi: reads d, writes d_out). */
cf_status
cf_hs_jacobi (const cf_image * ix, const cf_image * iy, const cf_image * it,
    float alpha, const cf_flow * d, cf_flow * d_out)
{
  float alpha2 = alpha * alpha;
  int x, y, w, h;

  if (!same_size (ix, iy) || !same_size (ix, it) || d == NULL ||
      d_out == NULL || d == d_out || d->width != ix->width ||
      d->height != ix->height || d_out->width != ix->width ||
      d_out->height != ix->height || d->u == d_out->u)
    return CF_ERROR_INVALID;
  w = ix->width;
  h = ix->height;
  for (y = 0; y < h; y++) {
    const float *gx = cf_image_row (ix, y);
    const float *gy = cf_image_row (iy, y);
    const float *gt = cf_image_row (it, y);
    float *ou = d_out->u + (size_t) y * d_out->pitch;
    float *ov = d_out->v + (size_t) y * d_out->pitch;
    for (x = 0; x < w; x++) {
      float ub = neighbour_average (d->u, d->pitch, x, y, w, h);
      float vb = neighbour_average (d->v, d->pitch, x, y, w, h);
      float r = (gx[x] * ub + gy[x] * vb + gt[x]) /
          (alpha2 + gx[x] * gx[x] + gy[x] * gy[x]);
      ou[x] = ub - gx[x] * r;
      ov[x] = vb - gy[x] * r;
    }
  }
  return CF_OK;
}

cf_status
cf_hs_add_increment (const cf_flow * d, cf_flow * u)
{
  int x, y, w, h;

  if (d == NULL || u == NULL || d->width != u->width ||
      d->height != u->height)
    return CF_ERROR_INVALID;
  w = u->width;
  h = u->height;
  for (y = 0; y < h; y++) {
    size_t r0 = (size_t) clampi (y - 1, h) * d->pitch;
    size_t r1 = (size_t) y * d->pitch;
    float *uu = u->u + (size_t) y * u->pitch;
    float *uv = u->v + (size_t) y * u->pitch;
    for (x = 0; x < w; x++) {
      int xm = clampi (x - 1, w);
      uu[x] += 0.25f * (d->u[r0 + xm] + d->u[r0 + x] + d->u[r1 + xm] +
          d->u[r1 + x]);
      uv[x] += 0.25f * (d->v[r0 + xm] + d->v[r0 + x] + d->v[r1 + xm] +
          d->v[r1 + x]);
    }
  }
  return CF_OK;
}

int
cf_hs_params_valid (const cf_hs_params * params)
{
  return cf_params_valid (&cf_hs_param_table, params);
}

cf_status
cf_hs_flow (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_hs_params * params, int use_initial, cf_flow * flow)
{
  cf_status status = CF_OK;
  cf_flow *u = NULL, *d[2] = { NULL, NULL };
  cf_image *i1w = NULL, *ix = NULL, *iy = NULL, *it = NULL;
  int l, k, n, w0, h0;

  if (p0 == NULL || p1 == NULL || !cf_hs_params_valid (params) ||
      flow == NULL || p0->n_levels != p1->n_levels || p0->n_levels < 1 ||
      flow->width != p0->level[0]->width ||
      flow->height != p0->level[0]->height)
    return CF_ERROR_INVALID;
  w0 = flow->width;
  h0 = flow->height;

  /* scratch at full size; coarser levels use views of it */
  u = cf_flow_new (w0, h0);
  d[0] = cf_flow_new (w0, h0);
  d[1] = cf_flow_new (w0, h0);
  i1w = cf_image_new (w0, h0);
  ix = cf_image_new (w0, h0);
  iy = cf_image_new (w0, h0);
  it = cf_image_new (w0, h0);
  if (!u || !d[0] || !d[1] || !i1w || !ix || !iy || !it) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }

  for (l = p0->n_levels - 1; l >= 0; l--) {
    const cf_image *f0 = p0->level[l], *f1 = p1->level[l];
    int w = f0->width, h = f0->height;
    cf_flow ul = cf_flow_view (u, w, h);
    cf_flow dl[2] = { cf_flow_view (d[0], w, h),
      cf_flow_view (d[1], w, h)
    };
    cf_image wl = cf_image_view (i1w->data, w, h, i1w->pitch);
    cf_image xl = cf_image_view (ix->data, w, h, ix->pitch);
    cf_image yl = cf_image_view (iy->data, w, h, iy->pitch);
    cf_image tl = cf_image_view (it->data, w, h, it->pitch);

    if (f1->width != w || f1->height != h) {
      status = CF_ERROR_INVALID;
      goto out;
    }

    /* the flow entering this level */
    if (l == p0->n_levels - 1) {
      if (use_initial)
        status = cf_flow_resample (flow, &ul);
      else
        cf_flow_fill (&ul, 0.0f, 0.0f);
    } else {
      /* the previous level's result sits in `flow`'s buffer as a view */
      cf_flow prev = cf_flow_view (flow, p0->level[l + 1]->width,
          p0->level[l + 1]->height);
      status = cf_flow_resample (&prev, &ul);
    }
    if (status != CF_OK)
      goto out;

    for (k = 0; k < params->warps; k++) {
      int cur = 0;
      status = cf_warp_bicubic (f1, &ul, CF_WARP_CLAMP, &wl);
      if (status == CF_OK)
        status = cf_hs_derivatives (f0, &wl, &xl, &yl, &tl);
      if (status != CF_OK)
        goto out;
      cf_flow_fill (&dl[0], 0.0f, 0.0f);
      for (n = 0; n < params->iterations; n++) {
        status = cf_hs_jacobi (&xl, &yl, &tl, params->alpha, &dl[cur],
            &dl[1 - cur]);
        if (status != CF_OK)
          goto out;
        cur = 1 - cur;
      }
      status = cf_hs_add_increment (&dl[cur], &ul);
      if (status != CF_OK)
        goto out;
    }

    /* park this level's result in `flow`'s buffer for the next level */
    {
      cf_flow dst = *flow;
      int y;
      dst.width = w;
      dst.height = h;
      for (y = 0; y < h; y++) {
        for (k = 0; k < w; k++) {
          dst.u[k + (size_t) y * dst.pitch] = ul.u[k + (size_t) y * ul.pitch];
          dst.v[k + (size_t) y * dst.pitch] = ul.v[k + (size_t) y * ul.pitch];
        }
      }
    }
  }

out:
  cf_flow_free (u);
  cf_flow_free (d[0]);
  cf_flow_free (d[1]);
  cf_image_free (i1w);
  cf_image_free (ix);
  cf_image_free (iy);
  cf_image_free (it);
  return status;
}
