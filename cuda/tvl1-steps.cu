/* gst-cudaflow — TV-L1 on the GPU: the single steps
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One kernel per step of common/tvl1.c, one thread per pixel, 32 x 8
 * blocks, each the twin of the CPU function of the same stem with the same
 * argument order: ∇I1 (centred), the per-warp constants, V, Div, U, fG, P.
 * Tests compare them with the CPU reference one step at a time, and fp32
 * plans with CF_TVL1_KERNEL_STEPS run an iteration as V; Div twice; U;
 * fG twice; P twice through the enqueue functions below (tvl1-steps.cuh).
 * The per-warp samples come from cf_cuda_warp_bicubic, itself bit-equal
 * to common/warp.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/tvl1-steps.cuh"
#include "cuda/warp.h"

/* ---------------------------------------------------------------------
 * Kernels
 * --------------------------------------------------------------------- */


/** \brief ∇I1 by centred differences with clamped taps, halved everywhere
 *  (twin of cf_tvl1_centered_gradient). */
__global__ static void
tvl1_centered_gradient_kernel (const float *__restrict__ i1, size_t p1,
    int w, int h, float *__restrict__ gx, size_t pgx, float *__restrict__ gy,
    size_t pgy)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  float2 d;

  if (x >= w || y >= h)
    return;
  d = tvl1_centred_difference_at (i1, p1, x, y, w, h);
  gx[x + (size_t) y * pgx] = d.x;
  gy[x + (size_t) y * pgy] = d.y;
}

/** \brief The pointwise half of cf_tvl1_warp_prepare, once I1w, I1wx, I1wy
 *  are sampled: with @blend > 0 and the sample inside, I1wx ← @keep I1wx
 *  + @blend I0x (likewise y; rewritten in place); g = I1wx² + I1wy², ρc =
 *  ((I1w − I1wx u0_1) − I1wy u0_2) − I0. */
__global__ static void
tvl1_warp_constants_kernel (const float *__restrict__ i0, size_t p0,
    const float *__restrict__ w1, size_t pw, float *__restrict__ wx,
    size_t pwx, float *__restrict__ wy, size_t pwy,
    const float *__restrict__ u0, const float *__restrict__ v0, size_t pu,
    int w, int h, cf_warp_border border, float blend, float keep,
    float *__restrict__ g, size_t pg, float *__restrict__ rc, size_t prc)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  float a, b, s, sx, sy;

  if (x >= w || y >= h)
    return;
  a = u0[x + (size_t) y * pu];
  b = v0[x + (size_t) y * pu];
  s = w1[x + (size_t) y * pw];
  sx = wx[x + (size_t) y * pwx];
  sy = wy[x + (size_t) y * pwy];
  if (blend > 0.0f) {
    int ix, iy;
    float tx, ty;

    if (cf_bicubic_cell (__fadd_rn ((float) x, a), __fadd_rn ((float) y, b),
            w, h, border, &ix, &iy, &tx, &ty)) {
      const float2 d0 = tvl1_centred_difference_at (i0, p0, x, y, w, h);

      sx = __fadd_rn (__fmul_rn (keep, sx), __fmul_rn (blend, d0.x));
      sy = __fadd_rn (__fmul_rn (keep, sy), __fmul_rn (blend, d0.y));
      wx[x + (size_t) y * pwx] = sx;
      wy[x + (size_t) y * pwy] = sy;
    }
  }
  g[x + (size_t) y * pg] = __fadd_rn (__fmul_rn (sx, sx), __fmul_rn (sy, sy));
  rc[x + (size_t) y * prc] = __fsub_rn (__fsub_rn (__fsub_rn (s,
              __fmul_rn (sx, a)), __fmul_rn (sy, b)), i0[x + (size_t) y * p0]);
}

/** \brief Step V (twin of cf_tvl1_threshold); @v may be @u. */
__global__ static void
tvl1_threshold_kernel (tvl1_consts k, tvl1_field u, float lt, tvl1_field v,
    int w, int h, const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t iu, iv;
  float2 r;

  if (tvl1_skipped (ctl, n) || x >= w || y >= h)
    return;
  iu = x + (size_t) y * u.pitch;
  iv = x + (size_t) y * v.pitch;
  r = tvl1_threshold_at (k.wx[x + (size_t) y * k.pwx],
      k.wy[x + (size_t) y * k.pwy], k.g[x + (size_t) y * k.pg],
      k.rc[x + (size_t) y * k.prc], u.a[iu], u.b[iu], lt);
  v.a[iv] = r.x;
  v.b[iv] = r.y;
}

/** \brief Step Div for one dual field (twin of cf_tvl1_divergence). */
__global__ static void
tvl1_divergence_kernel (const float *__restrict__ px, size_t ppx,
    const float *__restrict__ py, size_t ppy, int w, int h,
    float *__restrict__ div, size_t pd, const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (tvl1_skipped (ctl, n) || x >= w || y >= h)
    return;
  div[x + (size_t) y * pd] = tvl1_divergence_at (px, ppx, py, ppy, x, y, x,
      y, w, h);
}

/** \brief Step U (twin of cf_tvl1_update_u): u ← v + θ div in place, and
 *  the block's partial of Σ |Δu|² (see tvl1_store_partial). @v may be @u.
 *  No early return before the block sum: every thread takes part. */
__global__ static void
tvl1_update_u_kernel (tvl1_field v, tvl1_field div, float theta,
    tvl1_field u, int w, int h, double *partials, double *sum,
    const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  double term = 0.0;

  if (tvl1_skipped (ctl, n))
    return;                     /* uniform per block */
  if (x < w && y < h) {
    const size_t iu = x + (size_t) y * u.pitch;
    const size_t iv = x + (size_t) y * v.pitch;
    const size_t id = x + (size_t) y * div.pitch;
    const float u1 = u.a[iu], u2 = u.b[iu];
    const float n1 = tvl1_update_u_at (v.a[iv], div.a[id], theta);
    const float n2 = tvl1_update_u_at (v.b[iv], div.b[id], theta);

    u.a[iu] = n1;
    u.b[iu] = n2;
    term = tvl1_sq_term (__fsub_rn (n1, u1), __fsub_rn (n2, u2));
  }
  tvl1_store_partial (term, partials, sum);
}

/** \brief Step fG for one plane (twin of cf_tvl1_forward_gradient). */
__global__ static void
tvl1_forward_gradient_kernel (const float *__restrict__ f, size_t pf, int w,
    int h, float *__restrict__ fx, size_t pfx, float *__restrict__ fy,
    size_t pfy, const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  float2 g;

  if (tvl1_skipped (ctl, n) || x >= w || y >= h)
    return;
  g = tvl1_forward_gradient_at (f, pf, x, y, x, y, w, h);
  fx[x + (size_t) y * pfx] = g.x;
  fy[x + (size_t) y * pfy] = g.y;
}

/** \brief Step P for one dual field (twin of cf_tvl1_update_p); @p_out may
 *  be @p_in. */
__global__ static void
tvl1_update_p_kernel (const float *__restrict__ ux, size_t pux,
    const float *__restrict__ uy, size_t puy, tvl1_field p_in, float taut,
    tvl1_field p_out, int w, int h, const tvl1_control * ctl, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t ii, io;
  float2 r;

  if (tvl1_skipped (ctl, n) || x >= w || y >= h)
    return;
  ii = x + (size_t) y * p_in.pitch;
  io = x + (size_t) y * p_out.pitch;
  r = tvl1_update_p_at (make_float2 (ux[x + (size_t) y * pux],
          uy[x + (size_t) y * puy]), p_in.a[ii], p_in.b[ii], taut);
  p_out.a[io] = r.x;
  p_out.b[io] = r.y;
}

/** \brief The STEPS reducer: one TVL1_BLOCK_X x TVL1_BLOCK_Y block. */
__global__ static void
tvl1_reduce_kernel (tvl1_control * ctl, const double *partials,
    int n_partials, double count, double eps2, int n)
{
  if (tvl1_skipped (ctl, n))
    return;
  tvl1_reduce (ctl, partials, n_partials, count, eps2, n);
}


/* ---------------------------------------------------------------------
 * Launchers (tvl1-steps.cuh)
 * --------------------------------------------------------------------- */

cf_status
tvl1_enqueue_threshold (const cf_cuda_image * i1wx, const cf_cuda_image * i1wy,
    const cf_cuda_image * grad, const cf_cuda_image * rho_c,
    const cf_cuda_flow * u, float lt, cf_cuda_flow * v,
    const tvl1_control * ctl, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_threshold_kernel <<< tvl1_grid (u->width, u->height), tvl1_block (),
      0, stream >>> (make_consts (i1wx, i1wy, grad, rho_c), make_field (u),
      lt, make_field (v), u->width, u->height, ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

cf_status
tvl1_enqueue_divergence (const cf_cuda_image * px, const cf_cuda_image * py,
    cf_cuda_image * div, const tvl1_control * ctl, int n,
    cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_divergence_kernel <<< tvl1_grid (px->width, px->height),
      tvl1_block (), 0, stream >>> (px->data, px->pitch, py->data, py->pitch,
      px->width, px->height, div->data, div->pitch, ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

cf_status
tvl1_enqueue_update_u (const cf_cuda_flow * v, const cf_cuda_flow * div,
    float theta, cf_cuda_flow * u, double *partials, double *sum,
    const tvl1_control * ctl, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_update_u_kernel <<< tvl1_grid (u->width, u->height), tvl1_block (),
      0, stream >>> (make_field (v), make_field (div), theta, make_field (u),
      u->width, u->height, partials, sum, ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

cf_status
tvl1_enqueue_forward_gradient (const cf_cuda_image * f, cf_cuda_image * fx,
    cf_cuda_image * fy, const tvl1_control * ctl, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_forward_gradient_kernel <<< tvl1_grid (f->width, f->height),
      tvl1_block (), 0, stream >>> (f->data, f->pitch, f->width, f->height,
      fx->data, fx->pitch, fy->data, fy->pitch, ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

cf_status
tvl1_enqueue_update_p (const cf_cuda_image * ux, const cf_cuda_image * uy,
    const cf_cuda_flow * p_in, float taut, cf_cuda_flow * p_out,
    const tvl1_control * ctl, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_update_p_kernel <<< tvl1_grid (ux->width, ux->height), tvl1_block (),
      0, stream >>> (ux->data, ux->pitch, uy->data, uy->pitch,
      make_field (p_in), taut, make_field (p_out), ux->width, ux->height,
      ctl, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}
cf_status
tvl1_enqueue_reduce (tvl1_control * ctl, const double *partials,
    int n_partials, double count, double eps2, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;

  tvl1_reduce_kernel <<< 1, tvl1_block (), 0, stream >>> (ctl, partials,
      n_partials, count, eps2, n);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* ---------------------------------------------------------------------
 * Single steps
 * --------------------------------------------------------------------- */

extern "C" cf_status
cf_cuda_tvl1_centered_gradient (const cf_cuda_image * i1,
    cf_cuda_image * i1x, cf_cuda_image * i1y, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_image_is_valid (i1) || !cf_cuda_image_is_valid (i1x) ||
      !cf_cuda_image_is_valid (i1y) || !same_size (i1, i1x) ||
      !same_size (i1, i1y) || i1x->data == i1y->data || i1->data == i1x->data ||
      i1->data == i1y->data)
    return CF_ERROR_INVALID;
  tvl1_centered_gradient_kernel <<< tvl1_grid (i1->width, i1->height),
      tvl1_block (), 0, stream >>> (i1->data, i1->pitch, i1->width,
      i1->height, i1x->data, i1x->pitch, i1y->data, i1y->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_warp_prepare (const cf_cuda_image * i0,
    const cf_cuda_image * i1, const cf_cuda_image * i1x,
    const cf_cuda_image * i1y, const cf_cuda_flow * u0,
    cf_warp_border border, float blend, cf_cuda_image * i1w,
    cf_cuda_image * i1wx, cf_cuda_image * i1wy, cf_cuda_image * grad,
    cf_cuda_image * rho_c, cudaStream_t stream)
{
  const cf_cuda_image *in[4] = { i0, i1, i1x, i1y };
  cf_cuda_image *outs[5] = { i1w, i1wx, i1wy, grad, rho_c };
  cf_status status = CF_OK;
  int i, j;

  if (!cf_cuda_flow_is_valid (u0) || (border != CF_WARP_CLAMP &&
      border != CF_WARP_ZERO_OUTSIDE) || !(blend >= 0.0f) || blend > 1.0f)
    return CF_ERROR_INVALID;
  for (i = 0; i < 4; i++)
    if (!cf_cuda_image_is_valid (in[i]) || !same_size (in[i], i0) ||
        !flow_avoids (u0, in[i]->data))
      return CF_ERROR_INVALID;
  /* outputs: distinct from each other, from the inputs and from u0 (the
   * samples are read back by the second kernel) */
  for (i = 0; i < 5; i++) {
    if (!cf_cuda_image_is_valid (outs[i]) || !same_size (outs[i], i0) ||
        !flow_avoids (u0, outs[i]->data))
      return CF_ERROR_INVALID;
    for (j = 0; j < 4; j++)
      if (outs[i]->data == in[j]->data)
        return CF_ERROR_INVALID;
    for (j = 0; j < i; j++)
      if (outs[i]->data == outs[j]->data)
        return CF_ERROR_INVALID;
  }
  if (!flow_matches (u0, i0))
    return CF_ERROR_INVALID;

  /* the three samples at x + u0 (cf_bicubic_at's twin), then g and ρc */
  status = cf_cuda_warp_bicubic (i1, u0, border, i1w, stream);
  if (status == CF_OK)
    status = cf_cuda_warp_bicubic (i1x, u0, border, i1wx, stream);
  if (status == CF_OK)
    status = cf_cuda_warp_bicubic (i1y, u0, border, i1wy, stream);
  if (status != CF_OK)
    return status;
  tvl1_warp_constants_kernel <<< tvl1_grid (i0->width, i0->height),
      tvl1_block (), 0, stream >>> (i0->data, i0->pitch, i1w->data,
      i1w->pitch, i1wx->data, i1wx->pitch, i1wy->data, i1wy->pitch, u0->u,
      u0->v, u0->pitch, i0->width, i0->height, border, blend,
      1.0f - blend, grad->data, grad->pitch, rho_c->data, rho_c->pitch);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_threshold (const cf_cuda_image * i1wx,
    const cf_cuda_image * i1wy, const cf_cuda_image * grad,
    const cf_cuda_image * rho_c, const cf_cuda_flow * u, float lambda,
    float theta, cf_cuda_flow * v, cudaStream_t stream)
{
  /* λθ rounded once on the host, as cf_tvl1_threshold's l_t */
  const float lt = lambda * theta;

  if (!cf_cuda_image_is_valid (i1wx) || !cf_cuda_image_is_valid (i1wy) ||
      !cf_cuda_image_is_valid (grad) || !cf_cuda_image_is_valid (rho_c) ||
      !cf_cuda_flow_is_valid (u) || !cf_cuda_flow_is_valid (v) ||
      !same_size (i1wx, i1wy) || !same_size (i1wx, grad) ||
      !same_size (i1wx, rho_c) || !flow_matches (u, i1wx) ||
      !flow_matches (v, i1wx) || !flow_avoids (v, i1wx->data) ||
      !flow_avoids (v, i1wy->data) || !flow_avoids (v, grad->data) ||
      !flow_avoids (v, rho_c->data) || (v->u != u->u && (v->u == u->v ||
      v->v == u->u || v->v == u->v)))
    return CF_ERROR_INVALID;
  return tvl1_enqueue_threshold (i1wx, i1wy, grad, rho_c, u, lt, v, NULL, 0,
      stream);
}

extern "C" cf_status
cf_cuda_tvl1_divergence (const cf_cuda_image * px, const cf_cuda_image * py,
    cf_cuda_image * div, cudaStream_t stream)
{
  if (!cf_cuda_image_is_valid (px) || !cf_cuda_image_is_valid (py) ||
      !cf_cuda_image_is_valid (div) || !same_size (px, py) ||
      !same_size (px, div) || div->data == px->data || div->data == py->data)
    return CF_ERROR_INVALID;
  return tvl1_enqueue_divergence (px, py, div, NULL, 0, stream);
}

extern "C" cf_status
cf_cuda_tvl1_update_u (const cf_cuda_flow * v, const cf_cuda_flow * div,
    float theta, cf_cuda_flow * u, double *sum_sq, cudaStream_t stream)
{
  cf_status status = CF_OK;

  if (!cf_cuda_flow_is_valid (v) || !cf_cuda_flow_is_valid (div) ||
      !cf_cuda_flow_is_valid (u) || v->width != u->width ||
      v->height != u->height || div->width != u->width ||
      div->height != u->height || !flow_avoids (div, u->u) ||
      !flow_avoids (div, u->v) || (v->u != u->u && (v->u == u->v ||
      v->v == u->u || v->v == u->v)))
    return CF_ERROR_INVALID;
  /* the blocks add their partials into *sum_sq */
  if (sum_sq != NULL)
    CF_CUDA_TRY (cudaMemsetAsync (sum_sq, 0, sizeof (double), stream));
  status = tvl1_enqueue_update_u (v, div, theta, u, NULL, sum_sq, NULL, 0,
      stream);
out:
  return status;
}

extern "C" cf_status
cf_cuda_tvl1_forward_gradient (const cf_cuda_image * f, cf_cuda_image * fx,
    cf_cuda_image * fy, cudaStream_t stream)
{
  if (!cf_cuda_image_is_valid (f) || !cf_cuda_image_is_valid (fx) ||
      !cf_cuda_image_is_valid (fy) || !same_size (f, fx) ||
      !same_size (f, fy) || fx->data == fy->data || f->data == fx->data ||
      f->data == fy->data)
    return CF_ERROR_INVALID;
  return tvl1_enqueue_forward_gradient (f, fx, fy, NULL, 0, stream);
}

extern "C" cf_status
cf_cuda_tvl1_update_p (const cf_cuda_image * ux, const cf_cuda_image * uy,
    const cf_cuda_flow * p_in, float tau, float theta, cf_cuda_flow * p_out,
    cudaStream_t stream)
{
  /* τ/θ rounded once on the host, as cf_tvl1_update_p's taut */
  const float taut = tau / theta;

  if (!cf_cuda_image_is_valid (ux) || !cf_cuda_image_is_valid (uy) ||
      !cf_cuda_flow_is_valid (p_in) || !cf_cuda_flow_is_valid (p_out) ||
      !same_size (ux, uy) || !flow_matches (p_in, ux) ||
      !flow_matches (p_out, ux) || !flow_avoids (p_out, ux->data) ||
      !flow_avoids (p_out, uy->data) || (p_out->u != p_in->u &&
      (p_out->u == p_in->v || p_out->v == p_in->u || p_out->v == p_in->v)))
    return CF_ERROR_INVALID;
  return tvl1_enqueue_update_p (ux, uy, p_in, taut, p_out, NULL, 0, stream);
}
