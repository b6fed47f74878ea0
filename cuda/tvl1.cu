/* gst-cudaflow — TV-L1 optical flow on the GPU
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Twin of common/tvl1.c (IPOL scheme, Sánchez et al. 2013): the same
 * pixel grid, the same borders, the same step order V, Div, U, fG, P, and
 * every per-pixel operation in the CPU's order. The arithmetic is spelled
 * with __fadd_rn / __fsub_rn / __fmul_rn / __fdiv_rn / __fsqrt_rn so nvcc
 * can neither contract it into FMAs nor approximate a division or a root:
 * the x86-64 reference is built without contraction, so each single step
 * gives the CPU's bits. The per-warp samples come from cf_cuda_warp_bicubic,
 * itself bit-equal to common/warp.c.
 *
 * The code, by file:
 *  - tvl1-ops.cuh: launch shape, argument types and the per-pixel
 *    operators (fp32 and fp16) every kernel below is made of;
 *  - tvl1-eps.cuh: the ε stopping test on the device;
 *  - tvl1-steps.cu: the single steps (one kernel per step), for tests and
 *    CF_TVL1_KERNEL_STEPS;
 *  - tvl1-iterate.cuh: the FUSED and BLOCKED iteration kernels;
 *  - tvl1-half.cu: fp16 plans' kernels around the iterations;
 *  - this file: the plan, which runs the pyramid (each level with its own
 *    warps and iteration cap, cf_tvl1_level_params), the warps and the
 *    iterations.
 *
 * Kernels, one thread per pixel:
 *  - STEPS (fp32 only): one kernel per step, the single-step twins (V;
 *    Div twice; U; fG twice; P twice), through the plan's v, div, du1,
 *    du2 planes.
 *  - FUSED: two kernels per iteration, a U-kernel (V, Div, U) and a
 *    P-kernel (fG, P), both in place; the same bits as STEPS.
 *  - BLOCKED (temporal blocking, ε = 0 only): t <= T iterations per launch
 *    on shared-memory tiles; the same bits as FUSED. With ε > 0 (a test
 *    after every iteration) it runs FUSED. The second copies of the state
 *    it ping-pongs between are allocated by the first ε = 0 run.
 *  - AUTO = BLOCKED (so FUSED when ε > 0), T = 6, 64 x 32 tiles (fp16:
 *    T = 5, 64 x 32 tiles on 32 x 32 threads).
 *
 * fp16 (CF_PRECISION_FP16; half2 state as in Romera et al. 2021):
 * the solver state is half2 and each warp solves for its increment
 * du = u − u0 (u0: the flow entering the warp, fp32), which keeps half's
 * 11 significant bits on the part that changes (u itself has a 0.03 px
 * spacing at 32–64 px) and keeps the constants small: ρ = (I1w − I0) +
 * ∇I1w · du, so ρc needs no u0 term, and ∇u = ∇u0 + ∇du with ∇u0 a
 * per-warp constant. Pairs by component: du = (du1, du2), px = (p11, p21),
 * py = (p12, p22), so Div, fG, |∇u| (h2sqrt) and the P update are half2
 * operations on both flow components at once; the per-warp constants are
 * two 8-byte pairs per pixel, ((I1wx, I1wy), (g, I1w − I0)) and (∇x u0,
 * ∇y u0). TH and U are computed in fp32 from them (ρ needs a horizontal
 * sum, and the division −ρ/g is __fdividef) and rounded to half2 once. g is
 * guarded at CF_TVL1_GRAD_IS_ZERO_FP16 instead of 1e-10, which half cannot
 * hold. Range: intensities 0..255 (as the element feeds them) give g <=
 * 2 · 127.5² < 65504; |du| and |∇u| must stay below 65504, far beyond any
 * flow. fp16 has FUSED and BLOCKED kernels (no STEPS), each pair of which
 * shares its per-pixel functions, so BLOCKED and FUSED give the same bits
 * in fp16 too; they are not the fp32 bits. Per iteration FUSED moves 52 B
 * per pixel against fp32's 88, BLOCKED 40 B per launch against 64.
 * Around the iterations: one constants kernel per warp samples I1 and
 * forms ∇I1 at its taps (no gradient planes), BLOCKED's first launch of a
 * warp starts from du = 0 (and p = 0 on the level's first warp) without
 * reading them, and its last writes u0 + du (tvl1_ends).
 *
 * Median filter (median_size > 0; Wedel et al. 2009, not IPOL): after
 * each warp, u goes through cf_cuda_flow_median (cuda/median.cu, the bits
 * of common/median.c) into the plan's u_med, which then takes u's place
 * by pointer: fp32 after the warp's iterations, fp16 after u ← u0 + du
 * (its own fp32 flow), on a level's last warp straight into the caller's
 * flow. On the levels at least wmedian_min_width wide, wmedian_size > 0
 * puts the weighted median guided by the level's first frame
 * (cf_cuda_flow_weighted_median; Sun, Roth and Black 2010) in its place.
 * common/tvl1.c's solve_level does the same.
 *
 * Brightness model (brightness_model; not in IPOL): after each warp's
 * constants, one cooperative launch (tvl1-brightness.cu) fits I1w ≈ gain
 * I0 + bias as cf_tvl1_fit_brightness and puts the model's term into ρc
 * (fp32) or into I1w − I0 (fp16), on the device, with no host round trip;
 * the fit it carries from warp to warp is cleared at each frame's start.
 *
 * ε stopping (tvl1-eps.cuh) needs no host round trip per iteration: the
 * device tests ε after every iteration and later kernels of the warp
 * return at once; the host looks at the stop flag every TVL1_CHECK_EVERY
 * iterations. ε = 0 launches max_iterations with no check, no reduction
 * and no synchronisation.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/tvl1.h"
#include "cuda/median.h"
#include "cuda/tvl1-brightness.cuh"
#include "cuda/tvl1-half.cuh"
#include "cuda/tvl1-iterate.cuh"
#include "cuda/tvl1-steps.cuh"
#include "cuda/warp.h"

#include <math.h>
#include <new>
#include <stdlib.h>
#include <string.h>

/* Iterations launched between two looks at the stop flag: each look drains
 * the stream, each iteration launched after the stop costs two
 * early-returning launches (both measured in docs/flow-speed.md). */
#define TVL1_CHECK_EVERY 10

/* AUTO's choice: BLOCKED beats FUSED at every size (docs/flow-speed.md),
 * and runs FUSED when ε > 0. BLOCKED's default shape is the traits' T
 * (tvl1-iterate.cuh) with a tile height per launch (blocked_rows). */
#define TVL1_AUTO_KERNEL CF_TVL1_KERNEL_BLOCKED

/* ---------------------------------------------------------------------
 * Plan types
 * --------------------------------------------------------------------- */

/* What every plan holds. A plan is a tvl1_plan <S> of its precision's
 * state S (tvl1_state_f32 or tvl1_state_f16), which adds its buffers; the
 * C API looks at @precision once per call and goes on in that type. */
struct cf_cuda_tvl1_plan
{
  cf_precision precision;
  int width, height;
  cf_tvl1_kernel kernel;        /* STEPS, FUSED or BLOCKED (AUTO
                                 * resolved) */
  int block_iterations;         /* BLOCKED: T, iterations per launch */
  int tile_rows;                /* BLOCKED: 16, 32, 48 or 64; 0: chosen per
                                 * launch (blocked_rows) */
  int default_shape;            /* BLOCKED: neither set (set_blocking 0,
                                 * 0): T may be lower on a level
                                 * (blocked_level_iterations) */
  int n_sm;                     /* SMs of the plan's device */
  int pdl;                      /* BLOCKED: a warp's later launches start
                                 * as programmatic dependents */
  int pdl_supported;            /* the device has PDL */

  cf_cuda_flow u;               /* flow of the current level */
  cf_cuda_flow u_med;           /* median_size > 0: the filtered u, which
                                 * then changes places with u (allocated by
                                 * the first such run) */
  double *partials;             /* one per U-step block at level 0 */
  tvl1_brightness_scratch bright;       /* brightness_model: the carried
                                         * fit and the sums (allocated by
                                         * the first such run) */
  tvl1_control *control;        /* device */
  tvl1_control *host_control;   /* pinned: stop between chunks, and the
                                 * iteration count at the end of a run */
  long host_iterations;         /* iterations run with ε = 0 */
};

template < typename S > struct tvl1_plan;

/* fp32: the state is u and the dual fields; the per-warp constants are
 * sampled from ∇I1 planes */
template <> struct tvl1_plan <tvl1_state_f32 > : cf_cuda_tvl1_plan
{
  cf_cuda_image i1x, i1y;       /* ∇I1, per level */
  cf_cuda_image i1w, i1wx, i1wy, grad, rho_c;   /* per warp */
  cf_cuda_flow p1, p2;          /* dual fields of u1 and u2 */
  cf_cuda_flow v, div, du1, du2;        /* STEPS only */
  cf_cuda_flow u_alt, p1_alt, p2_alt;   /* BLOCKED only: the other copy */
};

/* fp16: the state and the constants in half2 (u stays fp32; ∇I1 is formed
 * from I1 where it is sampled) */
template <> struct tvl1_plan <tvl1_state_f16 > : cf_cuda_tvl1_plan
{
  tvl1h_consts k;               /* per-warp constants */
  tvl1_state_f16 state;         /* du and (px, py) */
  tvl1_state_f16 alt;           /* BLOCKED only: the other copy */
};

typedef tvl1_plan < tvl1_state_f32 > tvl1_plan_f32;
typedef tvl1_plan < tvl1_state_f16 > tvl1_plan_f16;

/* The plan's scratch seen at one level's size: the flow entering the level,
 * which the iterations update (fp32) or start each warp from (fp16). */
typedef struct
{
  int width, height;
  cf_cuda_flow u;
} tvl1_level;

/* What one warp's iterations need besides the level's planes. */
typedef struct
{
  float lt, theta, taut;
  tvl1_control *ctl;            /* NULL: ε = 0, no gating, no reduction */
  double count, eps2;           /* w h and ε², in double as solve_level */
} tvl1_iter_args;

/* ---------------------------------------------------------------------
 * Buffers, per precision
 * --------------------------------------------------------------------- */

/* A pitched plane of @width x @height elements of @size bytes; *@pitch in
 * elements. */
static cf_status
alloc_pitched (void **data, size_t * pitch, int width, int height,
    size_t size)
{
  cf_status status = CF_OK;
  size_t bytes = 0;

  CF_CUDA_TRY (cudaMallocPitch (data, &bytes, (size_t) width * size,
          (size_t) height));
  *pitch = bytes / size;
out:
  return status;
}

/* An fp16 plane (tvl1h_cells or tvl1h_pairs) */
template < typename P > static cf_status
alloc_plane (P * plane, int width, int height)
{
  void *d = NULL;
  cf_status status = alloc_pitched (&d, &plane->pitch, width, height,
      sizeof (*plane->d));

  plane->d = (decltype (plane->d)) d;
  return status;
}

static void
free_buffers (tvl1_plan_f32 * plan)
{
  cf_cuda_image_release (&plan->i1x);
  cf_cuda_image_release (&plan->i1y);
  cf_cuda_image_release (&plan->i1w);
  cf_cuda_image_release (&plan->i1wx);
  cf_cuda_image_release (&plan->i1wy);
  cf_cuda_image_release (&plan->grad);
  cf_cuda_image_release (&plan->rho_c);
  cf_cuda_flow_release (&plan->p1);
  cf_cuda_flow_release (&plan->p2);
  cf_cuda_flow_release (&plan->v);
  cf_cuda_flow_release (&plan->div);
  cf_cuda_flow_release (&plan->du1);
  cf_cuda_flow_release (&plan->du2);
  cf_cuda_flow_release (&plan->u_alt);
  cf_cuda_flow_release (&plan->p1_alt);
  cf_cuda_flow_release (&plan->p2_alt);
}

static void
free_buffers (tvl1_plan_f16 * plan)
{
  void *planes[6] = { plan->k.th.d, plan->k.gu0.d, plan->state.du.d,
    plan->state.p.d, plan->alt.du.d, plan->alt.p.d
  };
  int i;

  for (i = 0; i < 6; i++)
    if (planes[i] != NULL)
      cf_cuda_check (cudaFree (planes[i]));
}

/* Everything but BLOCKED's second copies (alloc_alt) */
static cf_status
alloc_buffers (tvl1_plan_f32 * plan)
{
  const int width = plan->width, height = plan->height;
  cf_status status;

  if ((status = cf_cuda_image_alloc (&plan->i1x, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1y, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1w, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1wx, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->i1wy, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->grad, width, height)) != CF_OK ||
      (status = cf_cuda_image_alloc (&plan->rho_c, width, height)) != CF_OK ||
      (status = cf_cuda_flow_alloc (&plan->p1, width, height)) != CF_OK ||
      (status = cf_cuda_flow_alloc (&plan->p2, width, height)) != CF_OK)
    return status;
  if (plan->kernel == CF_TVL1_KERNEL_STEPS &&
      ((status = cf_cuda_flow_alloc (&plan->v, width, height)) != CF_OK ||
          (status = cf_cuda_flow_alloc (&plan->div, width, height)) != CF_OK
          || (status = cf_cuda_flow_alloc (&plan->du1, width,
                  height)) != CF_OK ||
          (status = cf_cuda_flow_alloc (&plan->du2, width, height)) != CF_OK))
    return status;
  return CF_OK;
}

static cf_status
alloc_buffers (tvl1_plan_f16 * plan)
{
  const int width = plan->width, height = plan->height;
  cf_status status;

  if ((status = alloc_plane (&plan->k.th, width, height)) != CF_OK ||
      (status = alloc_plane (&plan->k.gu0, width, height)) != CF_OK ||
      (status = alloc_plane (&plan->state.du, width, height)) != CF_OK ||
      (status = alloc_plane (&plan->state.p, width, height)) != CF_OK)
    return status;
  return CF_OK;
}

/* BLOCKED's second copies of the state; 1 when they were all there */
static int
has_alt (const tvl1_plan_f32 * plan)
{
  return plan->u_alt.u != NULL && plan->p1_alt.u != NULL &&
      plan->p2_alt.u != NULL;
}

static int
has_alt (const tvl1_plan_f16 * plan)
{
  return plan->alt.du.d != NULL && plan->alt.p.d != NULL;
}

static cf_status
alloc_alt (tvl1_plan_f32 * plan)
{
  cf_status status = CF_OK;

  if ((plan->u_alt.u == NULL && (status = cf_cuda_flow_alloc (&plan->u_alt,
                  plan->width, plan->height)) != CF_OK) ||
      (plan->p1_alt.u == NULL && (status = cf_cuda_flow_alloc
              (&plan->p1_alt, plan->width, plan->height)) != CF_OK) ||
      (plan->p2_alt.u == NULL && (status = cf_cuda_flow_alloc
              (&plan->p2_alt, plan->width, plan->height)) != CF_OK))
    return status;
  return CF_OK;
}

static cf_status
alloc_alt (tvl1_plan_f16 * plan)
{
  cf_status status = CF_OK;

  if ((plan->alt.du.d == NULL && (status = alloc_plane (&plan->alt.du,
                  plan->width, plan->height)) != CF_OK) ||
      (plan->alt.p.d == NULL && (status = alloc_plane (&plan->alt.p,
                  plan->width, plan->height)) != CF_OK))
    return status;
  return CF_OK;
}

/* The state and constants as the kernels take them; the state's other
 * copy (BLOCKED's output), and the exchange of the two after a launch. */
static tvl1_state_f32
make_state (const cf_cuda_flow * u, const cf_cuda_flow * p1,
    const cf_cuda_flow * p2)
{
  tvl1_state_f32 s;

  s.u = make_field (u);
  s.p1 = make_field (p1);
  s.p2 = make_field (p2);
  return s;
}

static tvl1_state_f32
state_of (const tvl1_plan_f32 * plan)
{
  return make_state (&plan->u, &plan->p1, &plan->p2);
}

static tvl1_state_f16
state_of (const tvl1_plan_f16 * plan)
{
  return plan->state;
}

static tvl1_state_f32
alt_of (const tvl1_plan_f32 * plan)
{
  return make_state (&plan->u_alt, &plan->p1_alt, &plan->p2_alt);
}

static tvl1_state_f16
alt_of (const tvl1_plan_f16 * plan)
{
  return plan->alt;
}

template < typename T > static void
swap_values (T * a, T * b)
{
  T t = *a;

  *a = *b;
  *b = t;
}

static void
swap_state (tvl1_plan_f32 * plan)
{
  swap_values (&plan->u, &plan->u_alt);
  swap_values (&plan->p1, &plan->p1_alt);
  swap_values (&plan->p2, &plan->p2_alt);
}

static void
swap_state (tvl1_plan_f16 * plan)
{
  swap_values (&plan->state, &plan->alt);
}

static tvl1_consts
consts_of (const tvl1_plan_f32 * plan)
{
  return make_consts (&plan->i1wx, &plan->i1wy, &plan->grad, &plan->rho_c);
}

static tvl1h_consts
consts_of (const tvl1_plan_f16 * plan)
{
  return plan->k;
}

/* ---------------------------------------------------------------------
 * Iterations
 * --------------------------------------------------------------------- */

static cf_cuda_image
image_view (const cf_cuda_image * img, int width, int height)
{
  cf_cuda_image view = *img;

  view.width = width;
  view.height = height;
  return view;
}

/* One plane of a flow as an image. */
static cf_cuda_image
flow_plane (const cf_cuda_flow * f, int second)
{
  cf_cuda_image img;

  img.data = second ? f->v : f->u;
  img.width = f->width;
  img.height = f->height;
  img.pitch = f->pitch;
  return img;
}

/* An fp32 plan's planes seen at one level's size (u: the plan's current
 * one; BLOCKED moves it) */
typedef struct
{
  cf_cuda_image i1x, i1y, i1w, i1wx, i1wy, grad, rho_c;
  cf_cuda_flow u, p1, p2, v, div, du1, du2;
} tvl1_views_f32;

static tvl1_views_f32
views_of (const tvl1_plan_f32 * plan, int w, int h)
{
  tvl1_views_f32 lv;

  lv.i1x = image_view (&plan->i1x, w, h);
  lv.i1y = image_view (&plan->i1y, w, h);
  lv.i1w = image_view (&plan->i1w, w, h);
  lv.i1wx = image_view (&plan->i1wx, w, h);
  lv.i1wy = image_view (&plan->i1wy, w, h);
  lv.grad = image_view (&plan->grad, w, h);
  lv.rho_c = image_view (&plan->rho_c, w, h);
  lv.u = cf_cuda_flow_view (&plan->u, w, h);
  lv.p1 = cf_cuda_flow_view (&plan->p1, w, h);
  lv.p2 = cf_cuda_flow_view (&plan->p2, w, h);
  /* STEPS planes (NULL in other plans; views of NULL stay NULL) */
  lv.v = cf_cuda_flow_view (&plan->v, w, h);
  lv.div = cf_cuda_flow_view (&plan->div, w, h);
  lv.du1 = cf_cuda_flow_view (&plan->du1, w, h);
  lv.du2 = cf_cuda_flow_view (&plan->du2, w, h);
  return lv;
}

/* Iteration @n of an fp32 STEPS plan: cf_tvl1_iteration's sequence, step
 * by step, through the plan's v, div, du1, du2 planes; with ε > 0 the
 * reducer runs as its own kernel after U. */
static cf_status
enqueue_steps (tvl1_plan_f32 * plan, const tvl1_level * level,
    const tvl1_iter_args * a, int n, double *partials, int n_partials,
    cudaStream_t stream)
{
  tvl1_views_f32 lv = views_of (plan, level->width, level->height);
  cf_cuda_image p11 = flow_plane (&lv.p1, 0), p12 = flow_plane (&lv.p1, 1);
  cf_cuda_image p21 = flow_plane (&lv.p2, 0), p22 = flow_plane (&lv.p2, 1);
  cf_cuda_image div1 = flow_plane (&lv.div, 0);
  cf_cuda_image div2 = flow_plane (&lv.div, 1);
  cf_cuda_image u1 = flow_plane (&lv.u, 0), u2 = flow_plane (&lv.u, 1);
  cf_cuda_image u1x = flow_plane (&lv.du1, 0), u1y = flow_plane (&lv.du1, 1);
  cf_cuda_image u2x = flow_plane (&lv.du2, 0), u2y = flow_plane (&lv.du2, 1);
  cf_status status;

  status = tvl1_enqueue_threshold (&lv.i1wx, &lv.i1wy, &lv.grad, &lv.rho_c,
      &lv.u, a->lt, &lv.v, a->ctl, n, stream);
  if (status == CF_OK)
    status = tvl1_enqueue_divergence (&p11, &p12, &div1, a->ctl, n, stream);
  if (status == CF_OK)
    status = tvl1_enqueue_divergence (&p21, &p22, &div2, a->ctl, n, stream);
  if (status == CF_OK)
    status = tvl1_enqueue_update_u (&lv.v, &lv.div, a->theta, &lv.u,
        partials, NULL, a->ctl, n, stream);
  if (status == CF_OK && a->ctl != NULL)
    status = tvl1_enqueue_reduce (a->ctl, partials, n_partials, a->count,
        a->eps2, n, stream);
  if (status == CF_OK)
    status = tvl1_enqueue_forward_gradient (&u1, &u1x, &u1y, a->ctl, n,
        stream);
  if (status == CF_OK)
    status = tvl1_enqueue_forward_gradient (&u2, &u2x, &u2y, a->ctl, n,
        stream);
  if (status == CF_OK)
    status = tvl1_enqueue_update_p (&u1x, &u1y, &lv.p1, a->taut, &lv.p1,
        a->ctl, n, stream);
  if (status == CF_OK)
    status = tvl1_enqueue_update_p (&u2x, &u2y, &lv.p2, a->taut, &lv.p2,
        a->ctl, n, stream);
  return status;
}

/* Enqueue iteration @n (V, Div, U, fG, P) on the plan's state: FUSED's two
 * kernels (BLOCKED plans come here with ε > 0 only), or STEPS. */
template < typename S > static cf_status
enqueue_iteration (tvl1_plan < S > *plan, const tvl1_level * lv,
    const tvl1_iter_args * a, int n, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const dim3 grid = tvl1_grid (lv->width, lv->height);
  const int n_partials = (int) (grid.x * grid.y);
  double *partials = a->ctl != NULL ? plan->partials : NULL;

  if constexpr (tvl1_traits < S >::steps) {
    if (plan->kernel == CF_TVL1_KERNEL_STEPS)
      return enqueue_steps (plan, lv, a, n, partials, n_partials, stream);
  }
  tvl1_fused_u_kernel < S > <<< grid, tvl1_block (), 0, stream >>>
      (consts_of (plan), state_of (plan), lv->width, lv->height, a->lt,
      a->theta, partials, a->ctl, n);
  CF_CUDA_TRY_LAUNCH ();
  tvl1_fused_p_kernel < S > <<< grid, tvl1_block (), 0, stream >>>
      (consts_of (plan), state_of (plan), lv->width, lv->height, a->taut,
      a->ctl, n, partials, n_partials, a->count, a->eps2);
  CF_CUDA_TRY_LAUNCH ();
out:
  return status;
}

/* BLOCKED's second copies of the state, on the first ε = 0 run: AUTO plans
 * that only ever see ε > 0 (the element's IPOL defaults) never pay for
 * them. */
template < typename S > static cf_status
ensure_blocked_buffers (tvl1_plan < S > *plan)
{
  typedef tvl1_traits < S > T;
  cf_status status = CF_OK;

  if (has_alt (plan))
    return CF_OK;
  if ((status = alloc_alt (plan)) != CF_OK)
    goto out;
  /* the 64-row fp32 tiles take more than the default 48 KB */
  CF_CUDA_TRY (cudaFuncSetAttribute (tvl1_blocked_kernel < S, 16 >,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int) T::tile_bytes (16)));
  CF_CUDA_TRY (cudaFuncSetAttribute (tvl1_blocked_kernel < S, 32 >,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int) T::tile_bytes (32)));
  CF_CUDA_TRY (cudaFuncSetAttribute (tvl1_blocked_kernel < S, 48 >,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int) T::tile_bytes (48)));
  CF_CUDA_TRY (cudaFuncSetAttribute (tvl1_blocked_kernel < S, 64 >,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int) T::tile_bytes (64)));
out:
  return status;
}

/* Blocks of a BLOCKED launch of @t iterations on tiles of @rows */
static long
blocked_blocks (int width, int height, int t, int rows)
{
  const dim3 grid = tvl1_blocked_grid (width, height, rows, t);

  return (long) grid.x * grid.y;
}

/* The iterations per BLOCKED launch on a @width x @height level: the
 * plan's T, or with the default shape the largest lower T (2 at least)
 * whose grid of 16-row tiles fits in one wave of resident blocks where
 * T's needs more. On such a level (480 x 270 at 1080p) a launch lasts
 * one block's iterations per wave, so one wave of one-cell threads beats
 * two waves, or the 32-row tiles' two cells a thread, by more than the
 * extra launches cost: H100, fp16, 20 iterations at 480 x 270 in 0.057
 * ms at 3 per launch against 0.072 at 5 (docs/flow-frontier.md). */
template < typename S > static int
blocked_level_iterations (const cf_cuda_tvl1_plan * plan, int width,
    int height)
{
  const long wave = (long) plan->n_sm *
      tvl1_traits < S >::blocked_min_blocks (16);
  int t = plan->block_iterations;

  if (!plan->default_shape || 16 - 2 * t < 1 ||
      blocked_blocks (width, height, t, 16) <= wave)
    return plan->block_iterations;
  for (t = plan->block_iterations - 1; t >= 2; t--)
    if (blocked_blocks (width, height, t, 16) <= wave)
      return t;
  return plan->block_iterations;
}

/* blocked_rows' model of a launch of @t iterations on tiles of @rows:
 * the cells of one block times the blocks each SM runs, at least one */
static long
blocked_cost (const cf_cuda_tvl1_plan * plan, int width, int height, int t,
    int rows)
{
  const long n = blocked_blocks (width, height, t, rows);

  return (long) tvl1_tile_x (rows) * rows * (n > plan->n_sm ? n : plan->n_sm);
}

/* The tile height of a BLOCKED launch of @t iterations on a @width x
 * @height level: the plan's, or with the default shape (tile_rows 0) the
 * traits' 32 rows, or 16 where a grid of 32-row tiles leaves SMs idle and
 * one of 16-row tiles is shorter by a first-order model: a launch lasts
 * about the cells of one block times the blocks each SM runs, at least
 * one. On coarse levels, whose 32-row grids fill a fraction of the SMs,
 * each block then does a quarter of the work (32 x 16 cells against
 * 64 x 32) although more cells are computed twice (the halo). On full
 * levels the same model picks the traits' LARGE_TILE_ROWS (fp16: 48)
 * where they compute fewer cells: a taller tile computes its halo rows
 * for more interior rows. */
template < typename S > static int
blocked_rows (const cf_cuda_tvl1_plan * plan, int width, int height, int t)
{
  const int rows = tvl1_traits < S >::DEFAULT_TILE_ROWS;
  const int large = tvl1_traits < S >::LARGE_TILE_ROWS;
  long cost;

  if (plan->tile_rows > 0)
    return plan->tile_rows;
  if (16 - 2 * t < 1)
    return rows;
  cost = blocked_cost (plan, width, height, t, rows);
  if (blocked_cost (plan, width, height, t, 16) < cost)
    return 16;
  if (large > rows && blocked_cost (plan, width, height, t, large) < cost)
    return large;
  return rows;
}

/* One BLOCKED launch on tvl1_tile_x (ROWS) x ROWS tiles; with @pdl it may
 * start before the stream's previous kernel ends (the kernel waits for it
 * before it reads the state, and before the warp's constants on the warp's
 * first launch, TVL1_ENDS_WAIT_FIRST). */
template < typename S, int ROWS > static cf_status
launch_blocked (const tvl1_plan < S > *plan, const tvl1_level * lv,
    const tvl1_iter_args * a, int t, const tvl1_ends & e, int pdl,
    cudaStream_t stream)
{
  typedef tvl1_traits < S > T;
  cf_status status = CF_OK;

  CF_CUDA_TRY (cf_cuda_launch (tvl1_blocked_kernel < S, ROWS >,
          tvl1_blocked_grid (lv->width, lv->height, ROWS, t),
          dim3 (tvl1_blocked_bx (ROWS), tvl1_blocked_by < S > (ROWS)),
          T::tile_bytes (ROWS), stream, pdl, consts_of (plan),
          state_of (plan), alt_of (plan), lv->width, lv->height, a->lt,
          a->theta, a->taut, t, e));
out:
  return status;
}

/* @iterations BLOCKED iterations, T per launch and a last shorter one:
 * each launch reads the plan's state and writes the other copy, which
 * then becomes the plan's (and the level's u, for fp32). The first
 * launch adds @first to its tvl1_ends flags, the last one runs as @last
 * (both 0 for fp32). */
template < typename S > static cf_status
run_blocked (tvl1_plan < S > *plan, tvl1_level * lv,
    const tvl1_iter_args * a, int iterations, unsigned first,
    const tvl1_ends * last, cudaStream_t stream)
{
  cf_status status = CF_OK;
  int n = 0;

  const int per_launch = blocked_level_iterations < S > (plan, lv->width,
      lv->height);

  if ((status = ensure_blocked_buffers (plan)) != CF_OK)
    return status;
  while (n < iterations) {
    const int t = iterations - n < per_launch ? iterations - n : per_launch;
    const int rows = blocked_rows < S > (plan, lv->width, lv->height, t);
    tvl1_ends e;

    if (n + t == iterations)
      e = *last;
    else
      memset (&e, 0, sizeof (e));
    /* the first launch follows the kernel that wrote the constants */
    if (n == 0)
      e.flags |= first | TVL1_ENDS_WAIT_FIRST;
    if (rows == 64)
      status = launch_blocked < S, 64 > (plan, lv, a, t, e, plan->pdl,
          stream);
    else if (rows == 48)
      status = launch_blocked < S, 48 > (plan, lv, a, t, e, plan->pdl,
          stream);
    else if (rows == 16)
      status = launch_blocked < S, 16 > (plan, lv, a, t, e, plan->pdl,
          stream);
    else
      status = launch_blocked < S, 32 > (plan, lv, a, t, e, plan->pdl,
          stream);
    if (status != CF_OK)
      goto out;
    swap_state (plan);
    lv->u = cf_cuda_flow_view (&plan->u, lv->width, lv->height);
    n += t;
  }
out:
  return status;
}

/* The scalars of a warp's iterations, rounded as the CPU rounds them
 * (ctl left NULL) */
static void
iter_args_init (tvl1_iter_args * a, const cf_tvl1_params * params,
    const tvl1_level * lv)
{
  a->lt = params->lambda * params->theta;
  a->theta = params->theta;
  a->taut = params->tau / params->theta;
  a->ctl = NULL;
  a->count = (double) lv->width * (double) lv->height;
  a->eps2 = (double) params->epsilon * (double) params->epsilon;
}

/* One warp's iterations (solve_level's inner loop): max_iterations of
 * them with ε = 0 (BLOCKED plans: run_blocked with @first and @last),
 * else until the reducer sets stop, looked at every TVL1_CHECK_EVERY
 * launches. */
template < typename S > static cf_status
run_iterations (tvl1_plan < S > *plan, tvl1_level * lv,
    const cf_tvl1_params * params, unsigned first, const tvl1_ends * last,
    cudaStream_t stream)
{
  cf_status status = CF_OK;
  tvl1_iter_args a;
  int n = 0;

  iter_args_init (&a, params, lv);
  if (!(params->epsilon > 0.0f) && plan->kernel == CF_TVL1_KERNEL_BLOCKED) {
    status = run_blocked (plan, lv, &a, params->max_iterations, first, last,
        stream);
    if (status == CF_OK)
      plan->host_iterations += params->max_iterations;
    goto out;
  }
  if (!(params->epsilon > 0.0f)) {
    a.ctl = NULL;
    for (n = 0; n < params->max_iterations; n++) {
      status = enqueue_iteration (plan, lv, &a, n, stream);
      if (status != CF_OK)
        goto out;
    }
    plan->host_iterations += params->max_iterations;
    goto out;
  }

  a.ctl = plan->control;
  CF_CUDA_TRY (cudaMemsetAsync (&plan->control->stop, 0, sizeof (int),
          stream));
  while (n < params->max_iterations) {
    int end = params->max_iterations - n > TVL1_CHECK_EVERY ?
        n + TVL1_CHECK_EVERY : params->max_iterations;

    for (; n < end; n++) {
      status = enqueue_iteration (plan, lv, &a, n, stream);
      if (status != CF_OK)
        goto out;
    }
    /* after the last possible iteration there is nothing to decide */
    if (n >= params->max_iterations)
      break;
    CF_CUDA_TRY (cudaMemcpyAsync (&plan->host_control->stop,
            &plan->control->stop, sizeof (int), cudaMemcpyDeviceToHost,
            stream));
    CF_CUDA_TRY (cudaStreamSynchronize (stream));
    if (plan->host_control->stop != 0)
      break;
  }
out:
  return status;
}

/* A level's weighted median: its window (0: none), guide and weights */
typedef struct
{
  int size;
  const cf_cuda_image *guide;
  cf_wmedian_tables tables;
} tvl1_wmedian;

/* The median filter's output buffer, on the first run that asks for it:
 * plans of the IPOL defaults never pay for it. */
static cf_status
ensure_median_buffer (cf_cuda_tvl1_plan * plan)
{
  if (plan->u_med.u != NULL)
    return CF_OK;
  return cf_cuda_flow_alloc (&plan->u_med, plan->width, plan->height);
}

/* After a warp, with median_size > 0 (Wedel, Pock, Zach, Bischof and
 * Cremers 2009; not in IPOL): u ← the @size x @size median of the level's
 * u (cuda/median.h, the bits of common/median.c), into @out when set (the
 * level's last fp16 warp), else into the plan's u_med, which then takes
 * u's place: one read and one write of the flow, no copy. When @wm has a
 * size (a level that takes the weighted median) the filter is instead the
 * weighted median guided by its level's first frame
 * (cf_cuda_flow_weighted_median). */
static cf_status
median_after_warp (cf_cuda_tvl1_plan * plan, tvl1_level * lv, int size,
    const tvl1_wmedian * wm, cf_cuda_flow * out, cudaStream_t stream)
{
  cf_cuda_flow filtered;
  cf_status status;

  filtered = out != NULL ? *out : cf_cuda_flow_view (&plan->u_med,
      lv->width, lv->height);
  if (wm->size > 0)
    status = cf_cuda_flow_weighted_median (&lv->u, wm->guide, wm->size,
        &wm->tables, &filtered, stream);
  else
    status = cf_cuda_flow_median (&lv->u, size, &filtered, stream);
  if (status == CF_OK && out == NULL) {
    swap_values (&plan->u, &plan->u_med);
    lv->u = cf_cuda_flow_view (&plan->u, lv->width, lv->height);
  }
  return status;
}

/* The level's weighted median, if it takes one (size 0: it does not). */
static tvl1_wmedian
level_wmedian (const cf_tvl1_params * params, const cf_cuda_image * f0)
{
  tvl1_wmedian wm;

  wm.size = cf_tvl1_level_wmedian_size (params, f0->width);
  wm.guide = f0;
  if (wm.size > 0)
    cf_wmedian_tables_init (&wm.tables, params->wmedian_sigma);
  return wm;
}

/* ---------------------------------------------------------------------
 * Levels, per precision
 * --------------------------------------------------------------------- */

/* The flow entering a level: the coarser level's result @src resampled
 * to @dst's size. */
static cf_status
resample_level (tvl1_plan_f32 *, const cf_cuda_flow * src,
    cf_cuda_flow * dst, cudaStream_t stream)
{
  return cf_cuda_flow_resample (src, dst, stream);
}

static cf_status
resample_level (tvl1_plan_f16 * plan, const cf_cuda_flow * src,
    cf_cuda_flow * dst, cudaStream_t stream)
{
  return tvl1h_resample (src, dst, plan->pdl, stream);
}

/* Solve one fp32 level (solve_level of common/tvl1.c): ∇I1 and p = 0
 * once, then per warp the constants around the current u and the
 * iterations on u; the result is copied into @out (the caller's flow,
 * where the next level finds it). */
static cf_status
solve_level (tvl1_plan_f32 * plan, const cf_cuda_image * f0,
    const cf_cuda_image * f1, const cf_tvl1_params * params, tvl1_level * lv,
    cf_cuda_flow * out, cudaStream_t stream)
{
  /* v.u goes stale after a BLOCKED warp: lv->u is the current u */
  tvl1_views_f32 v = views_of (plan, lv->width, lv->height);
  const tvl1_wmedian wm = level_wmedian (params, f0);
  tvl1_ends none;
  cf_status status;
  int k;

  memset (&none, 0, sizeof (none));
  status = cf_cuda_tvl1_centered_gradient (f1, &v.i1x, &v.i1y, stream);
  if (status == CF_OK)
    status = cf_cuda_flow_fill (&v.p1, 0.0f, 0.0f, stream);
  if (status == CF_OK)
    status = cf_cuda_flow_fill (&v.p2, 0.0f, 0.0f, stream);
  for (k = 0; status == CF_OK && k < params->warps; k++) {
    status = cf_cuda_tvl1_warp_prepare (f0, f1, &v.i1x, &v.i1y, &lv->u,
        params->warp_border, params->gradient_blend, &v.i1w, &v.i1wx,
        &v.i1wy, &v.grad, &v.rho_c, stream);
    if (status == CF_OK && params->brightness_model)
      status = tvl1_enqueue_brightness (f0, &v.i1w, &lv->u, &v.rho_c,
          &plan->bright, stream);
    if (status == CF_OK)
      status = run_iterations (plan, lv, params, 0, &none, stream);
    if (status == CF_OK && (params->median_size > 0 || wm.size > 0))
      status = median_after_warp (plan, lv, params->median_size, &wm, NULL,
          stream);
  }
  if (status == CF_OK)
    status = cf_cuda_flow_copy (&lv->u, out, stream);
  return status;
}

/* Solve one fp16 level: p = 0 once; per warp the half2 constants around
 * u0 (du = 0), the iterations on du, and u ← u0 + du, the last warp's
 * into @out (the level's result, parked in the caller's flow: no copy).
 * BLOCKED folds the zeroing into its first launch and u0 + du into its
 * last (tvl1_ends); FUSED (and any ε > 0) zeroes du and p and ends with
 * tvl1h_enqueue_apply. */
static cf_status
solve_level (tvl1_plan_f16 * plan, const cf_cuda_image * f0,
    const cf_cuda_image * f1, const cf_tvl1_params * params, tvl1_level * lv,
    cf_cuda_flow * out, cudaStream_t stream)
{
  cf_status status = CF_OK;
  const int blocked = !(params->epsilon > 0.0f) &&
      plan->kernel == CF_TVL1_KERNEL_BLOCKED;
  const tvl1_wmedian wm = level_wmedian (params, f0);
  const int filtered = params->median_size > 0 || wm.size > 0;
  tvl1h_cells no_du;
  int k;

  no_du.d = NULL;
  no_du.pitch = 0;
  if (!blocked)
    CF_CUDA_TRY (cudaMemset2DAsync (plan->state.p.d, plan->state.p.pitch *
            sizeof (tvl1h_pair), 0, (size_t) lv->width *
            sizeof (tvl1h_pair), (size_t) lv->height, stream));
  for (k = 0; k < params->warps; k++) {
    /* with the median filter, u0 + du stays in u: the filter writes @out */
    cf_cuda_flow *dst = k == params->warps - 1 && !filtered ? out : &lv->u;
    tvl1_ends last;

    status = tvl1h_enqueue_constants (f0, f1, &lv->u, params->warp_border,
        params->gradient_blend, plan->k.th, plan->k.gu0,
        blocked ? no_du : plan->state.du, plan->pdl, stream);
    if (status == CF_OK && params->brightness_model)
      status = tvl1h_enqueue_brightness (f0, plan->k.th, &lv->u,
          &plan->bright, stream);
    if (status != CF_OK)
      goto out;
    last.flags = TVL1_ENDS_FINISH;
    if (k < params->warps - 1)
      last.flags |= TVL1_ENDS_KEEP_P;
    last.u0 = make_field (&lv->u);
    last.out = make_field (dst);
    status = run_iterations (plan, lv, params, TVL1_ENDS_DU_ZERO |
        (k == 0 ? TVL1_ENDS_P_ZERO : 0), &last, stream);
    if (status != CF_OK)
      goto out;
    if (!blocked && (status = tvl1h_enqueue_apply (&lv->u, plan->state.du,
                dst, stream)) != CF_OK)
      goto out;
    if (filtered && (status = median_after_warp (plan, lv,
                params->median_size, &wm, k == params->warps - 1 ? out : NULL,
                stream)) != CF_OK)
      goto out;
  }
out:
  return status;
}

/* ---------------------------------------------------------------------
 * The plan of one precision
 * --------------------------------------------------------------------- */

template < typename S > static void
plan_free (tvl1_plan < S > *plan)
{
  cf_cuda_flow_release (&plan->u);
  cf_cuda_flow_release (&plan->u_med);
  tvl1_brightness_scratch_free (&plan->bright);
  free_buffers (plan);
  if (plan->partials != NULL)
    cf_cuda_check (cudaFree (plan->partials));
  if (plan->control != NULL)
    cf_cuda_check (cudaFree (plan->control));
  if (plan->host_control != NULL)
    cf_cuda_check (cudaFreeHost (plan->host_control));
  delete plan;
}

/* BLOCKED's shape (iterations 0: the traits' default; tile_rows 0: per
 * launch, blocked_rows) */
template < typename S > static void
set_blocking (cf_cuda_tvl1_plan * plan, int iterations, int tile_rows)
{
  typedef tvl1_traits < S > T;

  plan->block_iterations = iterations > 0 ? iterations :
      (int) T::DEFAULT_BLOCK_ITERATIONS;
  plan->tile_rows = tile_rows;
  plan->default_shape = iterations == 0 && tile_rows == 0;
}

template < typename S > static cf_status
plan_new (int width, int height, cf_precision precision,
    cf_tvl1_kernel kernel, cf_cuda_tvl1_plan ** plan_out)
{
  cf_status status = CF_OK;
  tvl1_plan < S > *plan = new (std::nothrow) tvl1_plan < S > ();
  dim3 grid;
  void *p = NULL;

  if (plan == NULL)
    return CF_ERROR_NO_MEMORY;
  plan->precision = precision;
  plan->width = width;
  plan->height = height;
  plan->kernel = kernel == CF_TVL1_KERNEL_AUTO ? TVL1_AUTO_KERNEL : kernel;
  set_blocking < S > (plan, 0, 0);
  plan->pdl = plan->pdl_supported = cf_cuda_pdl_supported ();
  if ((status = cf_cuda_sm_count (&plan->n_sm)) != CF_OK ||
      (status = cf_cuda_flow_alloc (&plan->u, width, height)) != CF_OK ||
      (status = alloc_buffers (plan)) != CF_OK)
    goto out;

  /* coarser levels have fewer blocks than level 0 */
  grid = tvl1_grid (width, height);
  CF_CUDA_TRY (cudaMalloc (&p, (size_t) grid.x * grid.y * sizeof (double)));
  plan->partials = (double *) p;
  CF_CUDA_TRY (cudaMalloc (&p, sizeof (tvl1_control)));
  plan->control = (tvl1_control *) p;
  CF_CUDA_TRY (cudaMallocHost (&p, sizeof (tvl1_control)));
  plan->host_control = (tvl1_control *) p;
  plan->host_control->stop = 0;
  plan->host_control->iterations = 0;

out:
  if (status != CF_OK) {
    plan_free (plan);
    plan = NULL;
  }
  *plan_out = plan;
  return status;
}

/* cf_cuda_tvl1_plan_run once the arguments are checked: coarse to fine,
 * each level starting from the coarser result (parked in @flow's buffer)
 * or the initial flow, and solved with its own warps and iteration cap
 * (cf_tvl1_level_params: a uniform solve per level, as cf_tvl1_flow; the
 * counts of host_iterations and BLOCKED's launches follow). */
template < typename S > static cf_status
plan_run (tvl1_plan < S > *plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_tvl1_params * params,
    int use_initial, cf_cuda_flow * flow, cudaStream_t stream)
{
  cf_status status = CF_OK;
  int l;

  plan->host_iterations = 0;
  if (cf_tvl1_uses_median (params) &&
      (status = ensure_median_buffer (plan)) != CF_OK)
    goto out;
  if (params->brightness_model &&
      ((status = tvl1_brightness_scratch_alloc (&plan->bright)) != CF_OK ||
          (status = tvl1_brightness_frame_start (&plan->bright,
                  stream)) != CF_OK))
    goto out;
  CF_CUDA_TRY (cudaMemsetAsync (plan->control, 0, sizeof (tvl1_control),
          stream));

  for (l = p0->n_levels - 1; l >= 0; l--) {
    const cf_cuda_image *f0 = &p0->level[l], *f1 = &p1->level[l];
    cf_cuda_flow parked = cf_cuda_flow_view (flow, f0->width, f0->height);
    tvl1_level lv;
    cf_tvl1_params lp;

    lv.width = f0->width;
    lv.height = f0->height;
    lv.u = cf_cuda_flow_view (&plan->u, f0->width, f0->height);

    /* the flow entering this level, as cf_tvl1_flow */
    if (l == p0->n_levels - 1) {
      if (use_initial)
        status = cf_cuda_flow_resample (flow, &lv.u, stream);
      else
        status = cf_cuda_flow_fill (&lv.u, 0.0f, 0.0f, stream);
    } else {
      /* the coarser level's result is parked in `flow`'s buffer */
      cf_cuda_flow prev = cf_cuda_flow_view (flow, p0->level[l + 1].width,
          p0->level[l + 1].height);
      status = resample_level (plan, &prev, &lv.u, stream);
    }
    /* this level's warps and iterations; writes its result into
     * `parked` */
    cf_tvl1_level_params (params, l, &lp);
    if (status == CF_OK)
      status = solve_level (plan, f0, f1, &lp, &lv, &parked, stream);
    if (status != CF_OK)
      goto out;
  }

  /* the ε-path count, for cf_cuda_tvl1_plan_iterations once the caller has
   * synchronised */
  CF_CUDA_TRY (cudaMemcpyAsync (&plan->host_control->iterations,
          &plan->control->iterations, sizeof (long long),
          cudaMemcpyDeviceToHost, stream));
out:
  return status;
}

/* ---------------------------------------------------------------------
 * The C API: one dispatch on the precision per call
 * --------------------------------------------------------------------- */

extern "C" void
cf_cuda_tvl1_plan_free (cf_cuda_tvl1_plan * plan)
{
  if (plan == NULL)
    return;
  if (plan->precision == CF_PRECISION_FP16)
    plan_free (static_cast < tvl1_plan_f16 * >(plan));
  else
    plan_free (static_cast < tvl1_plan_f32 * >(plan));
}

extern "C" cf_status
cf_cuda_tvl1_config_check (cf_precision precision, cf_tvl1_kernel kernel)
{
  if ((precision != CF_PRECISION_FP32 && precision != CF_PRECISION_FP16) ||
      (kernel != CF_TVL1_KERNEL_AUTO && kernel != CF_TVL1_KERNEL_STEPS &&
          kernel != CF_TVL1_KERNEL_FUSED && kernel != CF_TVL1_KERNEL_BLOCKED))
    return CF_ERROR_INVALID;
  /* STEPS is the fp32 twin of the CPU's steps */
  if (precision == CF_PRECISION_FP16 && kernel == CF_TVL1_KERNEL_STEPS)
    return CF_ERROR_UNSUPPORTED;
  return CF_OK;
}

extern "C" cf_status
cf_cuda_tvl1_plan_new (int width, int height, cf_precision precision,
    cf_tvl1_kernel kernel, cf_cuda_tvl1_plan ** plan_out)
{
  cf_status status;

  if (plan_out == NULL)
    return CF_ERROR_INVALID;
  *plan_out = NULL;
  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION ||
      height > CF_MAX_DIMENSION)
    return CF_ERROR_INVALID;
  status = cf_cuda_tvl1_config_check (precision, kernel);
  if (status != CF_OK)
    return status;
  if (precision == CF_PRECISION_FP16)
    return plan_new < tvl1_state_f16 > (width, height, precision, kernel,
        plan_out);
  return plan_new < tvl1_state_f32 > (width, height, precision, kernel,
      plan_out);
}

extern "C" cf_status
cf_cuda_tvl1_plan_set_blocking (cf_cuda_tvl1_plan * plan, int iterations,
    int tile_rows)
{
  if (plan == NULL || iterations < 0 ||
      iterations > CF_TVL1_MAX_BLOCK_ITERATIONS ||
      (tile_rows != 0 && !tvl1_tile_rows_valid (tile_rows)) ||
      (tile_rows == 16 && 16 - 2 * iterations < 1))
    return CF_ERROR_INVALID;
  if (plan->precision == CF_PRECISION_FP16)
    set_blocking < tvl1_state_f16 > (plan, iterations, tile_rows);
  else
    set_blocking < tvl1_state_f32 > (plan, iterations, tile_rows);
  return CF_OK;
}

extern "C" cf_status
cf_cuda_tvl1_plan_set_pdl (cf_cuda_tvl1_plan * plan, int pdl)
{
  if (plan == NULL)
    return CF_ERROR_INVALID;
  plan->pdl = pdl && plan->pdl_supported;
  return CF_OK;
}

extern "C" int
cf_cuda_tvl1_plan_blocked_rows (const cf_cuda_tvl1_plan * plan, int width,
    int height, int iterations)
{
  if (plan == NULL || width < 1 || height < 1 || iterations < 1 ||
      iterations > plan->block_iterations)
    return 0;
  if (plan->precision == CF_PRECISION_FP16)
    return blocked_rows < tvl1_state_f16 > (plan, width, height, iterations);
  return blocked_rows < tvl1_state_f32 > (plan, width, height, iterations);
}

extern "C" int
cf_cuda_tvl1_tile_rows_valid (int rows)
{
  return tvl1_tile_rows_valid (rows);
}

extern "C" int
cf_cuda_tvl1_plan_blocked_iterations (const cf_cuda_tvl1_plan * plan,
    int width, int height)
{
  if (plan == NULL || width < 1 || height < 1)
    return 0;
  if (plan->precision == CF_PRECISION_FP16)
    return blocked_level_iterations < tvl1_state_f16 > (plan, width, height);
  return blocked_level_iterations < tvl1_state_f32 > (plan, width, height);
}

extern "C" long
cf_cuda_tvl1_plan_iterations (const cf_cuda_tvl1_plan * plan)
{
  if (plan == NULL)
    return 0;
  return plan->host_iterations + (long) plan->host_control->iterations;
}

/* The pyramids and @flow suit a run of this plan: level 0 and @flow of
 * the plan's size, the checks of cf_tvl1_flow otherwise. */
static int
run_args_valid (const cf_cuda_tvl1_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_tvl1_params * params,
    const cf_cuda_flow * flow)
{
  int l;

  if (plan == NULL || p0 == NULL || p1 == NULL ||
      !cf_tvl1_params_valid (params) ||
      !cf_cuda_flow_is_valid (flow) || p0->n_levels != p1->n_levels ||
      p0->n_levels < 1 || p0->n_levels > CF_PYRAMID_MAX_LEVELS ||
      flow->width != plan->width || flow->height != plan->height ||
      p0->level[0].width != plan->width ||
      p0->level[0].height != plan->height)
    return 0;
  for (l = 0; l < p0->n_levels; l++) {
    const cf_cuda_image *a = &p0->level[l], *b = &p1->level[l];
    if (!cf_cuda_image_is_valid (a) || !cf_cuda_image_is_valid (b) ||
        !same_size (a, b) || a->width > plan->width ||
        a->height > plan->height || flow_avoids (flow, a->data) == 0 ||
        flow_avoids (flow, b->data) == 0)
      return 0;
  }
  return 1;
}

extern "C" cf_status
cf_cuda_tvl1_plan_run (cf_cuda_tvl1_plan * plan, const cf_cuda_pyramid * p0,
    const cf_cuda_pyramid * p1, const cf_tvl1_params * params,
    int use_initial, cf_cuda_flow * flow, cudaStream_t stream)
{
  if (!run_args_valid (plan, p0, p1, params, flow))
    return CF_ERROR_INVALID;
  if (plan->precision == CF_PRECISION_FP16)
    return plan_run (static_cast < tvl1_plan_f16 * >(plan), p0, p1, params,
        use_initial, flow, stream);
  return plan_run (static_cast < tvl1_plan_f32 * >(plan), p0, p1, params,
      use_initial, flow, stream);
}
