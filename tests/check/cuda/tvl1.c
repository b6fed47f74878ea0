/* gst-cudaflow — GPU TV-L1 vs the CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each single step against its common/tvl1.c twin on tiny, odd and
 * 1-pixel-wide sizes (max |Δ| <= 1e-5 · max(1, max |ref|); the kernels
 * spell the CPU's fp32 operations in its order, so the expected difference
 * is 0 and any non-zero one is logged — warp_prepare inherits an ulp from
 * cf_cuda_warp_bicubic for clamped samples 2 to 3 px left of or above the
 * image, where common/warp.c keeps the fraction and cuda/warp.cu uses 0),
 * the ε sum against the CPU's, FUSED vs STEPS bit for bit, BLOCKED vs
 * FUSED bit for bit (sizes, T, tile heights, iteration counts around T),
 * full plan runs against cf_tvl1_flow (mean |Δflow| <= 1e-3 px,
 * iteration counts; uniform and per-level schedules), plan reuse and
 * argument checks; fp16 plans: BLOCKED
 * vs FUSED bit for bit, EPE against ground truth close to fp32's, ε
 * stopping, warm start and reuse; the median filter between warps
 * (median-size 3, 5): plans against cf_tvl1_flow within the same bound,
 * the kernels of a precision bit for bit, plan reuse across sizes, fp16
 * close to fp32. Outputs
 * are poisoned with NaN first. The plan runs read pyramids uploaded from
 * the CPU's, so both solvers see the same input bits.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/flo.h"
#include "common/median.h"
#include "common/metrics.h"
#include "common/pyramid.h"
#include "common/synth.h"
#include "common/tvl1.h"
#include "common/warp.h"
#include "cuda/tvl1.h"

/* Single steps: the brief's per-step tolerance, relative to the largest
 * reference value (expected: 0, same operations in the same order). */
#define STEP_REL_TOL 1e-5
/* Σ |Δu|² of update_u: double sums in another order (block tree vs the
 * CPU's running sum) over at most ~1e5 terms differ by ~1e-12 relative. */
#define SUM_REL_TOL 1e-9
/* mean |Δflow| of a full GPU run against cf_tvl1_flow, pixels */
#define FLOW_MEAN_TOL 1e-3
/* ε-stopped runs: GPU and CPU iteration counts may differ when a warp's
 * mean |Δu|² lands within rounding (~1e-16 relative) of ε², where the two
 * reduction orders can disagree; after one such flip the later warps start
 * from slightly different flows. Not expected at all on these inputs, but
 * allowed up to 1 % of the count. */
#define ITER_REL_TOL 0.01
/* Middlebury: GPU EPE within 1 % of the CPU's */
#define EPE_REL_TOL 0.01
/* fp16 state: EPE against ground truth within FP16_EPE_ABS +
 * FP16_EPE_REL · EPE(fp32) of fp32's (the budget cudaflowhs's fp16 meets),
 * and mean |flow16 − flow32| <= FP16_MEAN_TOL px: half keeps 11
 * significant bits, so an increment of a few pixels is stored to ~1e-3 px
 * per iteration, and the iterations do not let the rounding build up. */
#define FP16_EPE_ABS 0.01
#define FP16_EPE_REL 0.05
#define FP16_MEAN_TOL 0.02

/* this suite's tolerance and border for the shared helpers */
#define assert_flow_mean_close(got, ref, what) \
  cf_test_assert_flow_mean_close (got, ref, FLOW_MEAN_TOL, what)
#define epe_of(est, truth) cf_test_flow_epe (est, truth, 0)

typedef struct
{
  int width, height;
} test_size;

/* Tiny, 1-pixel axes, odd and medium sizes: every border branch. */
static const test_size step_sizes[] = { {1, 1}, {2, 3}, {5, 1}, {1, 6},
{37, 29}, {320, 241}
};

static cudaStream_t stream;

static void
setup (void)
{
  fail_unless_equals_int (cudaStreamCreate (&stream), cudaSuccess);
}

static void
teardown (void)
{
  cudaStreamDestroy (stream);
}

static void
sync_stream (void)
{
  fail_unless_equals_int (cudaStreamSynchronize (stream), cudaSuccess);
}

/* Pixel (x, y) of an image, of a flow's planes. */
#define PX(img, x, y) ((img)->data[(x) + (size_t) (y) * (img)->pitch])
#define FU(f, x, y) ((f)->u[(x) + (size_t) (y) * (f)->pitch])
#define FV(f, x, y) ((f)->v[(x) + (size_t) (y) * (f)->pitch])

/* ------------------------------------------------------ single steps */

GST_START_TEST (test_centered_gradient_matches_cpu)
{
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_image *i1 = cf_test_random_image (w, h, 1 + i, 0.0f, 255.0f);
    cf_image *gx = cf_image_new (w, h), *gy = cf_image_new (w, h);
    cf_cuda_image g1, ggx, ggy;

    fail_unless_equals_int (cf_tvl1_centered_gradient (i1, gx, gy), CF_OK);
    cf_test_upload_image (i1, &g1, stream);
    cf_test_poisoned_image (w, h, &ggx, stream);
    cf_test_poisoned_image (w, h, &ggy, stream);
    fail_unless_equals_int (cf_cuda_tvl1_centered_gradient (&g1, &ggx, &ggy,
            stream), CF_OK);
    cf_test_assert_cuda_image_close (&ggx, gx, STEP_REL_TOL, "centred I1x",
        stream);
    cf_test_assert_cuda_image_close (&ggy, gy, STEP_REL_TOL, "centred I1y",
        stream);

    /* the CPU's aliasing rules */
    fail_unless_equals_int (cf_cuda_tvl1_centered_gradient (&g1, &ggx, &ggx,
            stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_tvl1_centered_gradient (&g1, &g1, &ggy,
            stream), CF_ERROR_INVALID);

    cf_cuda_image_release (&g1);
    cf_cuda_image_release (&ggx);
    cf_cuda_image_release (&ggy);
    cf_image_free (i1);
    cf_image_free (gx);
    cf_image_free (gy);
  }
}

GST_END_TEST;

GST_START_TEST (test_warp_prepare_matches_cpu)
{
  static const cf_warp_border borders[] = { CF_WARP_ZERO_OUTSIDE,
    CF_WARP_CLAMP
  };
  /* gradient-blend: off, and the first frame's gradient blended in */
  static const float blends[] = { 0.0f, 0.5f, 0.3f };
  int i, b, m;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_image *i0 = cf_test_random_image (w, h, 11 + i, 0.0f, 255.0f);
    cf_image *i1 = cf_test_random_image (w, h, 21 + i, 0.0f, 255.0f);
    cf_image *i1x = cf_image_new (w, h), *i1y = cf_image_new (w, h);
    /* displacements up to 3 px: samples inside, near and past the border */
    cf_flow *u0 = cf_test_random_flow (w, h, 31 + i, -3.0f, 3.0f);
    cf_cuda_image g0, g1, gx, gy;
    cf_cuda_flow gu0;

    fail_unless_equals_int (cf_tvl1_centered_gradient (i1, i1x, i1y), CF_OK);
    cf_test_upload_image (i0, &g0, stream);
    cf_test_upload_image (i1, &g1, stream);
    cf_test_upload_image (i1x, &gx, stream);
    cf_test_upload_image (i1y, &gy, stream);
    cf_test_upload_flow (u0, &gu0, stream);
    for (b = 0; b < (int) G_N_ELEMENTS (borders); b++)
      for (m = 0; m < (int) G_N_ELEMENTS (blends); m++) {
        cf_image *w1 = cf_image_new (w, h), *wx = cf_image_new (w, h);
        cf_image *wy = cf_image_new (w, h), *g = cf_image_new (w, h);
        cf_image *rc = cf_image_new (w, h);
        cf_cuda_image gw1, gwx, gwy, gg, grc;

        fail_unless_equals_int (cf_tvl1_warp_prepare (i0, i1, i1x, i1y, u0,
                borders[b], blends[m], w1, wx, wy, g, rc), CF_OK);
        cf_test_poisoned_image (w, h, &gw1, stream);
        cf_test_poisoned_image (w, h, &gwx, stream);
        cf_test_poisoned_image (w, h, &gwy, stream);
        cf_test_poisoned_image (w, h, &gg, stream);
        cf_test_poisoned_image (w, h, &grc, stream);
        fail_unless_equals_int (cf_cuda_tvl1_warp_prepare (&g0, &g1, &gx,
                &gy, &gu0, borders[b], blends[m], &gw1, &gwx, &gwy, &gg, &grc,
                stream), CF_OK);
        cf_test_assert_cuda_image_close (&gw1, w1, STEP_REL_TOL, "I1w",
            stream);
        cf_test_assert_cuda_image_close (&gwx, wx, STEP_REL_TOL, "I1wx",
            stream);
        cf_test_assert_cuda_image_close (&gwy, wy, STEP_REL_TOL, "I1wy",
            stream);
        cf_test_assert_cuda_image_close (&gg, g, STEP_REL_TOL, "g",
            stream);
        cf_test_assert_cuda_image_close (&grc, rc, STEP_REL_TOL, "rho_c",
            stream);
        /* an output on an input or on another output */
        fail_unless_equals_int (cf_cuda_tvl1_warp_prepare (&g0, &g1, &gx,
                &gy, &gu0, borders[b], blends[m], &gw1, &gwx, &gwy, &gg, &gg,
                stream), CF_ERROR_INVALID);
        fail_unless_equals_int (cf_cuda_tvl1_warp_prepare (&g0, &g1, &gx,
                &gy, &gu0, borders[b], blends[m], &g1, &gwx, &gwy, &gg, &grc,
                stream), CF_ERROR_INVALID);
        /* a blend outside 0 .. 1 */
        fail_unless_equals_int (cf_cuda_tvl1_warp_prepare (&g0, &g1, &gx,
                &gy, &gu0, borders[b], 1.5f, &gw1, &gwx, &gwy, &gg, &grc,
                stream), CF_ERROR_INVALID);

        cf_cuda_image_release (&gw1);
        cf_cuda_image_release (&gwx);
        cf_cuda_image_release (&gwy);
        cf_cuda_image_release (&gg);
        cf_cuda_image_release (&grc);
        cf_image_free (w1);
        cf_image_free (wx);
        cf_image_free (wy);
        cf_image_free (g);
        cf_image_free (rc);
      }
    cf_cuda_image_release (&g0);
    cf_cuda_image_release (&g1);
    cf_cuda_image_release (&gx);
    cf_cuda_image_release (&gy);
    cf_cuda_flow_release (&gu0);
    cf_image_free (i0);
    cf_image_free (i1);
    cf_image_free (i1x);
    cf_image_free (i1y);
    cf_flow_free (u0);
  }
}

GST_END_TEST;

/* Warp constants for TH: random ∇I1w, g = |∇I1w|² (0 on every 7th pixel,
 * for the zero-gradient guard), random ρc; with λθ = 0.045 the three TH
 * cases all occur. */
typedef struct
{
  cf_image *wx, *wy, *g, *rc;
  cf_cuda_image gwx, gwy, gg, grc;
} th_consts;

static void
th_consts_make (th_consts * k, int w, int h, guint32 seed)
{
  int x, y;

  k->wx = cf_test_random_image (w, h, seed, -20.0f, 20.0f);
  k->wy = cf_test_random_image (w, h, seed + 1, -20.0f, 20.0f);
  k->rc = cf_test_random_image (w, h, seed + 2, -30.0f, 30.0f);
  k->g = cf_image_new (w, h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      if ((x + y * w) % 7 == 3)
        PX (k->wx, x, y) = PX (k->wy, x, y) = 0.0f;
      PX (k->g, x, y) = PX (k->wx, x, y) * PX (k->wx, x, y) +
          PX (k->wy, x, y) * PX (k->wy, x, y);
    }
  cf_test_upload_image (k->wx, &k->gwx, stream);
  cf_test_upload_image (k->wy, &k->gwy, stream);
  cf_test_upload_image (k->g, &k->gg, stream);
  cf_test_upload_image (k->rc, &k->grc, stream);
}

static void
th_consts_clear (th_consts * k)
{
  cf_image_free (k->wx);
  cf_image_free (k->wy);
  cf_image_free (k->g);
  cf_image_free (k->rc);
  cf_cuda_image_release (&k->gwx);
  cf_cuda_image_release (&k->gwy);
  cf_cuda_image_release (&k->gg);
  cf_cuda_image_release (&k->grc);
}

GST_START_TEST (test_threshold_matches_cpu)
{
  const float lambda = 0.15f, theta = 0.3f;
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    th_consts k;
    cf_flow *u = cf_test_random_flow (w, h, 41 + i, -2.0f, 2.0f);
    cf_flow *v = cf_flow_new (w, h);
    cf_cuda_flow gu, gv;

    th_consts_make (&k, w, h, 51 + 3 * i);
    fail_unless_equals_int (cf_tvl1_threshold (k.wx, k.wy, k.g, k.rc, u,
            lambda, theta, v), CF_OK);
    cf_test_upload_flow (u, &gu, stream);
    cf_test_poisoned_flow (w, h, &gv, stream);
    fail_unless_equals_int (cf_cuda_tvl1_threshold (&k.gwx, &k.gwy, &k.gg,
            &k.grc, &gu, lambda, theta, &gv, stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gv, v, STEP_REL_TOL, "TH", stream);
    /* in place (v = u), as the CPU allows */
    fail_unless_equals_int (cf_cuda_tvl1_threshold (&k.gwx, &k.gwy, &k.gg,
            &k.grc, &gu, lambda, theta, &gu, stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gu, v, STEP_REL_TOL, "TH in place",
        stream);

    cf_cuda_flow_release (&gu);
    cf_cuda_flow_release (&gv);
    th_consts_clear (&k);
    cf_flow_free (u);
    cf_flow_free (v);
  }
}

GST_END_TEST;

GST_START_TEST (test_divergence_matches_cpu)
{
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    /* arbitrary p: the last column of px and last row of py are not 0,
     * so the "not read" rule is checked too */
    cf_image *px = cf_test_random_image (w, h, 61 + i, -1.0f, 1.0f);
    cf_image *py = cf_test_random_image (w, h, 71 + i, -1.0f, 1.0f);
    cf_image *div = cf_image_new (w, h);
    cf_cuda_image gpx, gpy, gdiv;

    fail_unless_equals_int (cf_tvl1_divergence (px, py, div), CF_OK);
    cf_test_upload_image (px, &gpx, stream);
    cf_test_upload_image (py, &gpy, stream);
    cf_test_poisoned_image (w, h, &gdiv, stream);
    fail_unless_equals_int (cf_cuda_tvl1_divergence (&gpx, &gpy, &gdiv,
            stream), CF_OK);
    cf_test_assert_cuda_image_close (&gdiv, div, STEP_REL_TOL, "div p", stream);
    fail_unless_equals_int (cf_cuda_tvl1_divergence (&gpx, &gpy, &gpx,
            stream), CF_ERROR_INVALID);

    cf_cuda_image_release (&gpx);
    cf_cuda_image_release (&gpy);
    cf_cuda_image_release (&gdiv);
    cf_image_free (px);
    cf_image_free (py);
    cf_image_free (div);
  }
}

GST_END_TEST;

static double
download_double (const double *device)
{
  double value = NAN;

  fail_unless_equals_int (cudaMemcpy (&value, device, sizeof (double),
          cudaMemcpyDeviceToHost), cudaSuccess);
  return value;
}

GST_START_TEST (test_update_u_matches_cpu)
{
  const float theta = 0.3f;
  const double nan = NAN;
  double *gsum = NULL;
  int i;

  fail_unless_equals_int (cudaMalloc ((void **) &gsum, sizeof (double)),
      cudaSuccess);
  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_flow *v = cf_test_random_flow (w, h, 81 + i, -3.0f, 3.0f);
    cf_flow *div = cf_test_random_flow (w, h, 91 + i, -2.0f, 2.0f);
    cf_flow *u0 = cf_test_random_flow (w, h, 101 + i, -3.0f, 3.0f);
    cf_flow *u = cf_flow_copy (u0);
    cf_cuda_flow gv, gdiv, gu;
    double sum = -1.0, gpu_sum;

    fail_unless_equals_int (cf_tvl1_update_u (v, div, theta, u, &sum), CF_OK);
    cf_test_upload_flow (v, &gv, stream);
    cf_test_upload_flow (div, &gdiv, stream);
    cf_test_upload_flow (u0, &gu, stream);
    /* poisoned: the step must set the sum, not add to it */
    fail_unless_equals_int (cudaMemcpy (gsum, &nan, sizeof (double),
            cudaMemcpyHostToDevice), cudaSuccess);
    fail_unless_equals_int (cf_cuda_tvl1_update_u (&gv, &gdiv, theta, &gu,
            gsum, stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gu, u, STEP_REL_TOL, "U", stream);
    gpu_sum = download_double (gsum);
    GST_INFO ("%dx%d: sum |du|^2 CPU %.17g GPU %.17g", w, h, sum, gpu_sum);
    fail_unless (fabs (gpu_sum - sum) <= SUM_REL_TOL * fabs (sum),
        "%dx%d: sum %.17g, CPU %.17g", w, h, gpu_sum, sum);

    /* no sum wanted; then v = u in place */
    fail_unless_equals_int (cf_cuda_flow_upload (u0, &gu, stream), CF_OK);
    fail_unless_equals_int (cf_cuda_tvl1_update_u (&gv, &gdiv, theta, &gu,
            NULL, stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gu, u, STEP_REL_TOL, "U without sum",
        stream);
    cf_flow_free (u);
    u = cf_flow_copy (v);
    fail_unless_equals_int (cf_tvl1_update_u (u, div, theta, u, &sum), CF_OK);
    fail_unless_equals_int (cf_cuda_tvl1_update_u (&gv, &gdiv, theta, &gv,
            gsum, stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gv, u, STEP_REL_TOL, "U in place", stream);
    gpu_sum = download_double (gsum);
    fail_unless (fabs (gpu_sum - sum) <= SUM_REL_TOL * fabs (sum),
        "%dx%d in place: sum %.17g, CPU %.17g", w, h, gpu_sum, sum);

    /* div on u: rejected like the CPU */
    fail_unless_equals_int (cf_cuda_tvl1_update_u (&gv, &gu, theta, &gu,
            gsum, stream), CF_ERROR_INVALID);

    cf_cuda_flow_release (&gv);
    cf_cuda_flow_release (&gdiv);
    cf_cuda_flow_release (&gu);
    cf_flow_free (v);
    cf_flow_free (div);
    cf_flow_free (u0);
    cf_flow_free (u);
  }
  cudaFree (gsum);
}

GST_END_TEST;

GST_START_TEST (test_forward_gradient_matches_cpu)
{
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_image *f = cf_test_random_image (w, h, 111 + i, -10.0f, 10.0f);
    cf_image *fx = cf_image_new (w, h), *fy = cf_image_new (w, h);
    cf_cuda_image gf, gfx, gfy;

    fail_unless_equals_int (cf_tvl1_forward_gradient (f, fx, fy), CF_OK);
    cf_test_upload_image (f, &gf, stream);
    cf_test_poisoned_image (w, h, &gfx, stream);
    cf_test_poisoned_image (w, h, &gfy, stream);
    fail_unless_equals_int (cf_cuda_tvl1_forward_gradient (&gf, &gfx, &gfy,
            stream), CF_OK);
    cf_test_assert_cuda_image_close (&gfx, fx, STEP_REL_TOL, "forward ux",
        stream);
    cf_test_assert_cuda_image_close (&gfy, fy, STEP_REL_TOL, "forward uy",
        stream);
    fail_unless_equals_int (cf_cuda_tvl1_forward_gradient (&gf, &gf, &gfy,
            stream), CF_ERROR_INVALID);

    cf_cuda_image_release (&gf);
    cf_cuda_image_release (&gfx);
    cf_cuda_image_release (&gfy);
    cf_image_free (f);
    cf_image_free (fx);
    cf_image_free (fy);
  }
}

GST_END_TEST;

GST_START_TEST (test_update_p_matches_cpu)
{
  const float tau = 0.25f, theta = 0.3f;
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_image *ux = cf_test_random_image (w, h, 121 + i, -5.0f, 5.0f);
    cf_image *uy = cf_test_random_image (w, h, 131 + i, -5.0f, 5.0f);
    cf_flow *p = cf_test_random_flow (w, h, 141 + i, -0.7f, 0.7f);
    cf_flow *q = cf_flow_new (w, h);
    cf_cuda_image gux, guy;
    cf_cuda_flow gp, gq;

    fail_unless_equals_int (cf_tvl1_update_p (ux, uy, p, tau, theta, q),
        CF_OK);
    cf_test_upload_image (ux, &gux, stream);
    cf_test_upload_image (uy, &guy, stream);
    cf_test_upload_flow (p, &gp, stream);
    cf_test_poisoned_flow (w, h, &gq, stream);
    fail_unless_equals_int (cf_cuda_tvl1_update_p (&gux, &guy, &gp, tau,
            theta, &gq, stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gq, q, STEP_REL_TOL, "P", stream);
    /* in place */
    fail_unless_equals_int (cf_cuda_tvl1_update_p (&gux, &guy, &gp, tau,
            theta, &gp, stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gp, q, STEP_REL_TOL, "P in place", stream);

    cf_cuda_image_release (&gux);
    cf_cuda_image_release (&guy);
    cf_cuda_flow_release (&gp);
    cf_cuda_flow_release (&gq);
    cf_image_free (ux);
    cf_image_free (uy);
    cf_flow_free (p);
    cf_flow_free (q);
  }
}

GST_END_TEST;

GST_START_TEST (test_steps_reject_size_mismatch)
{
  cf_cuda_image a, b, c, small;
  cf_cuda_flow f, g, fs;

  cf_test_poisoned_image (9, 7, &a, stream);
  cf_test_poisoned_image (9, 7, &b, stream);
  cf_test_poisoned_image (9, 7, &c, stream);
  cf_test_poisoned_image (8, 7, &small, stream);
  cf_test_poisoned_flow (9, 7, &f, stream);
  cf_test_poisoned_flow (9, 7, &g, stream);
  cf_test_poisoned_flow (9, 6, &fs, stream);
  fail_unless_equals_int (cf_cuda_tvl1_centered_gradient (&a, &b, &small,
          stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_divergence (&a, &small, &c, stream),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_forward_gradient (&a, &b, &small,
          stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_update_u (&f, &g, 0.3f, &fs, NULL,
          stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_update_p (&a, &b, &f, 0.25f, 0.3f,
          &fs, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_threshold (&a, &b, &c, &small, &f,
          0.15f, 0.3f, &g, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_warp_prepare (&a, &b, &c, &small, &f,
          CF_WARP_ZERO_OUTSIDE, 0.0f, &a, &b, &c, &small, &small, stream),
      CF_ERROR_INVALID);
  cf_cuda_image_release (&a);
  cf_cuda_image_release (&b);
  cf_cuda_image_release (&c);
  cf_cuda_image_release (&small);
  cf_cuda_flow_release (&f);
  cf_cuda_flow_release (&g);
  cf_cuda_flow_release (&fs);
}

GST_END_TEST;

/* ------------------------------------------------------------- plans */

/* A normalised pair with CPU pyramids and GPU pyramids holding the same
 * levels (uploaded, not rebuilt: the GPU pyramid's blur sums in another
 * order, and the solvers are compared here, not the pyramids). */
typedef struct
{
  int width, height;
  cf_image *f0, *f1;
  cf_flow *truth;               /* NULL for real frames without it */
  cf_pyramid *c0, *c1;
  cf_cuda_pyramid g0, g1;
} scene;

static void
gpu_pyramid_from (const cf_pyramid * cpu, int w, int h,
    const cf_pyramid_params * pp, cf_cuda_pyramid * gpu)
{
  int l;

  fail_unless_equals_int (cf_cuda_pyramid_alloc (gpu, w, h, pp), CF_OK);
  fail_unless_equals_int (gpu->n_levels, cpu->n_levels);
  for (l = 0; l < cpu->n_levels; l++)
    fail_unless_equals_int (cf_cuda_image_upload (cpu->level[l],
            &gpu->level[l], stream), CF_OK);
}

/* Takes @f0, @f1 and @truth. */
static void
scene_from_frames (scene * sc, cf_image * f0, cf_image * f1, cf_flow * truth,
    int levels, const cf_tvl1_params * params)
{
  cf_pyramid_params pp;
  int w = f0->width, h = f0->height;

  memset (sc, 0, sizeof (*sc));
  sc->width = w;
  sc->height = h;
  sc->f0 = f0;
  sc->f1 = f1;
  sc->truth = truth;
  cf_pyramid_params_init (&pp);
  pp.max_levels = levels;
  cf_tvl1_prepare_pyramid_params (params, &pp);
  cf_tvl1_normalize_pair (sc->f0, sc->f1);
  sc->c0 = cf_pyramid_new (w, h, &pp);
  sc->c1 = cf_pyramid_new (w, h, &pp);
  fail_unless (sc->c0 != NULL && sc->c1 != NULL);
  fail_unless_equals_int (cf_pyramid_build (sc->c0, sc->f0, &pp), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (sc->c1, sc->f1, &pp), CF_OK);
  gpu_pyramid_from (sc->c0, w, h, &pp, &sc->g0);
  gpu_pyramid_from (sc->c1, w, h, &pp, &sc->g1);
  sync_stream ();
}

/* A synthetic pair whose second frame is lit by @gain and @bias */
static void
scene_synth_lit (scene * sc, int w, int h, cf_synth_motion motion,
    int levels, const cf_tvl1_params * params, float gain, float bias)
{
  cf_synth_params sp;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL;

  cf_synth_params_init (&sp);
  sp.motion = motion;
  sp.gain = gain;
  sp.bias = bias;
  if (motion == CF_SYNTH_ROTATION_ZOOM) {
    sp.angle = 3.0f;
    sp.zoom = 1.03f;
  } else if (motion == CF_SYNTH_SMOOTH) {
    sp.amplitude = 2.0f;
  } else {
    sp.tx = 2.5f;
    sp.ty = -1.25f;
  }
  fail_unless_equals_int (cf_synth_pair (w, h, &sp, &f0, &f1, &truth), CF_OK);
  scene_from_frames (sc, f0, f1, truth, levels, params);
}

static void
scene_synth (scene * sc, int w, int h, cf_synth_motion motion, int levels,
    const cf_tvl1_params * params)
{
  scene_synth_lit (sc, w, h, motion, levels, params, 1.0f, 0.0f);
}

static void
scene_clear (scene * sc)
{
  cf_image_free (sc->f0);
  cf_image_free (sc->f1);
  cf_flow_free (sc->truth);
  cf_pyramid_free (sc->c0);
  cf_pyramid_free (sc->c1);
  cf_cuda_pyramid_release (&sc->g0);
  cf_cuda_pyramid_release (&sc->g1);
}

/* One run with @plan into a host flow; @initial (host) is the warm start
 * when not NULL; *iterations (may be NULL) gets the plan's count. */
static cf_flow *
plan_run (cf_cuda_tvl1_plan * plan, const scene * sc,
    const cf_tvl1_params * params, const cf_flow * initial, long *iterations)
{
  cf_cuda_flow flow;
  cf_flow *out;

  if (initial != NULL)
    cf_test_upload_flow (initial, &flow, stream);
  else
    cf_test_poisoned_flow (sc->width, sc->height, &flow, stream);
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc->g0, &sc->g1,
          params, initial != NULL, &flow, stream), CF_OK);
  out = cf_test_download_flow (&flow, stream);  /* synchronises */
  if (iterations != NULL)
    *iterations = cf_cuda_tvl1_plan_iterations (plan);
  cf_cuda_flow_release (&flow);
  return out;
}

/* The same with a fresh plan of @precision. */
static cf_flow *
gpu_run_at (const scene * sc, cf_precision precision, cf_tvl1_kernel kernel,
    const cf_tvl1_params * params, const cf_flow * initial, long *iterations)
{
  cf_cuda_tvl1_plan *plan = NULL;
  cf_flow *out;

  fail_unless_equals_int (cf_cuda_tvl1_plan_new (sc->width, sc->height,
          precision, kernel, &plan), CF_OK);
  out = plan_run (plan, sc, params, initial, iterations);
  cf_cuda_tvl1_plan_free (plan);
  return out;
}

static cf_flow *
gpu_run (const scene * sc, cf_tvl1_kernel kernel,
    const cf_tvl1_params * params, const cf_flow * initial, long *iterations)
{
  return gpu_run_at (sc, CF_PRECISION_FP32, kernel, params, initial,
      iterations);
}

/* cf_tvl1_flow of @sc into @ref, checked bit for bit against the steps
 * written out (cf_test_tvl1_steps_flow, into @mirror); the steps'
 * iterations. */
static long
cpu_reference (const scene * sc, const cf_tvl1_params * params, cf_flow * ref,
    cf_flow * mirror, const char *what)
{
  long n;

  fail_unless_equals_int (cf_tvl1_flow (sc->c0, sc->c1, params, 0, ref),
      CF_OK);
  n = cf_test_tvl1_steps_flow (sc->c0, sc->c1, params, 0, mirror);
  cf_test_assert_flow_identical (mirror, ref, what);
  return n;
}

static void
assert_iterations_close (long gpu, long cpu, const char *what)
{
  GST_INFO ("%s: iterations GPU %ld, CPU %ld", what, gpu, cpu);
  fail_unless (labs (gpu - cpu) <= ITER_REL_TOL * (double) cpu,
      "%s: GPU ran %ld iterations, CPU %ld", what, gpu, cpu);
}

/* FUSED and STEPS share the per-pixel code and the ε reduction: the same
 * bits and, with ε > 0, the same stopping iterations. */
GST_START_TEST (test_fused_identical_to_steps)
{
  cf_tvl1_params params;
  scene sc;
  cf_flow *steps, *fused, *automatic;
  long n_steps = -1, n_fused = -2;

  cf_tvl1_params_init_ipol (&params);
  params.warps = 2;
  params.max_iterations = 20;
  params.epsilon = 0.0f;
  scene_synth (&sc, 97, 61, CF_SYNTH_SMOOTH, 3, &params);
  fail_unless_equals_int (sc.c0->n_levels, 3);

  steps = gpu_run (&sc, CF_TVL1_KERNEL_STEPS, &params, NULL, &n_steps);
  fused = gpu_run (&sc, CF_TVL1_KERNEL_FUSED, &params, NULL, &n_fused);
  automatic = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, NULL, NULL);
  fail_unless (isfinite (fused->u[0]) && isfinite (fused->v[0]));
  cf_test_assert_flow_identical (fused, steps, "FUSED vs STEPS, eps = 0");
  cf_test_assert_flow_identical (automatic, fused, "AUTO vs FUSED");
  fail_unless_equals_int (n_steps, 3 * 2 * 20);
  fail_unless_equals_int (n_fused, 3 * 2 * 20);
  cf_flow_free (steps);
  cf_flow_free (fused);
  cf_flow_free (automatic);

  /* ε > 0: stops inside and between the launch chunks */
  params.max_iterations = 300;
  params.epsilon = 0.02f;
  steps = gpu_run (&sc, CF_TVL1_KERNEL_STEPS, &params, NULL, &n_steps);
  fused = gpu_run (&sc, CF_TVL1_KERNEL_FUSED, &params, NULL, &n_fused);
  GST_INFO ("eps 0.02: STEPS %ld, FUSED %ld iterations", n_steps, n_fused);
  fail_unless_equals_int (n_fused, n_steps);
  fail_unless (n_fused >= 3 * 2 && n_fused <= 3 * 2 * 300);
  cf_test_assert_flow_identical (fused, steps, "FUSED vs STEPS, eps = 0.02");
  cf_flow_free (steps);
  cf_flow_free (fused);
  scene_clear (&sc);
}

GST_END_TEST;

/* BLOCKED vs FUSED on the solver alone (one level, two warps: the second
 * starts from the first's u and p): every T and tile height with 1, T−1,
 * T, T+1, 10 and 31 iterations on a w x h pair. */
static void
check_blocked_sizes (const test_size * sizes, int n_sizes,
    cf_precision precision)
{
  static const int ts[] = { 1, 2, 3, 4, 5, 8 };
  static const int rows[] = { 16, 32, 48, 64 };
  int z;

  for (z = 0; z < n_sizes; z++) {
    const int w = sizes[z].width, h = sizes[z].height;
    cf_flow *fused[32] = { NULL };
    cf_cuda_tvl1_plan *fplan = NULL, *bplan = NULL;
    cf_tvl1_params params;
    scene sc;
    int a, r, c;

    cf_tvl1_params_init_ipol (&params);
    params.warps = 2;
    params.epsilon = 0.0f;
    scene_from_frames (&sc, cf_test_random_image (w, h, 11u + z, 0.0f, 255.0f),
        cf_test_random_image (w, h, 97u + z, 0.0f, 255.0f), NULL, 1, &params);
    fail_unless_equals_int (sc.c0->n_levels, 1);
    fail_unless_equals_int (cf_cuda_tvl1_plan_new (w, h, precision,
            CF_TVL1_KERNEL_FUSED, &fplan), CF_OK);
    fail_unless_equals_int (cf_cuda_tvl1_plan_new (w, h, precision,
            CF_TVL1_KERNEL_BLOCKED, &bplan), CF_OK);

    for (a = 0; a < (int) G_N_ELEMENTS (ts); a++) {
      const int t = ts[a];
      const int counts[] = { 1, t - 1, t, t + 1, 10, 31 };

      for (r = 0; r < (int) G_N_ELEMENTS (rows); r++) {
        /* 16-row tiles keep no interior beyond 7 iterations */
        if (rows[r] == 16 && t > 7) {
          fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (bplan, t,
                  rows[r]), CF_ERROR_INVALID);
          continue;
        }
        fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (bplan, t,
                rows[r]), CF_OK);
        for (c = 0; c < (int) G_N_ELEMENTS (counts); c++) {
          const int n = counts[c];
          cf_flow *blocked;
          long n_run = -1;
          gchar *what;

          if (n < 1)
            continue;
          params.max_iterations = n;
          if (fused[n] == NULL)
            fused[n] = plan_run (fplan, &sc, &params, NULL, NULL);
          blocked = plan_run (bplan, &sc, &params, NULL, &n_run);
          what = g_strdup_printf ("%s BLOCKED T=%d rows=%d, %d iterations "
              "vs FUSED", precision == CF_PRECISION_FP16 ? "fp16" : "fp32",
              t, rows[r], n);
          cf_test_assert_flow_identical (blocked, fused[n], what);
          fail_unless_equals_int (n_run, 2 * n);
          g_free (what);
          cf_flow_free (blocked);
        }
      }
    }
    for (c = 0; c < (int) G_N_ELEMENTS (fused); c++)
      cf_flow_free (fused[c]);
    cf_cuda_tvl1_plan_free (fplan);
    cf_cuda_tvl1_plan_free (bplan);
    scene_clear (&sc);
  }
}

/* Sizes below, at and across tile boundaries (64 x 32 tiles hold
 * (64 − 2T) x (32 − 2T) interiors: 60 x 28 is one tile at T = 2); small
 * enough for racecheck. At T = 5 the second 64 x 32 tile of a row starts
 * at x = 49 and of a column at y = 17: in 114 x 50 tile (1, 1) ends one
 * pixel inside the last column and row (it runs as an interior tile), in
 * 113 x 49 it touches them (it must test for the borders). */
GST_START_TEST (test_blocked_identical_to_fused)
{
  static const test_size sizes[] = { {1, 1}, {2, 3}, {37, 23}, {60, 28},
  {100, 45}, {114, 50}, {113, 49}
  };

  check_blocked_sizes (sizes, G_N_ELEMENTS (sizes), CF_PRECISION_FP32);
}

GST_END_TEST;

/* The same for the fp16 kernels, which share their per-pixel functions */
GST_START_TEST (test_fp16_blocked_identical_to_fused)
{
  static const test_size sizes[] = { {1, 1}, {2, 3}, {37, 23}, {60, 28},
  {100, 45}, {114, 50}, {113, 49}
  };

  check_blocked_sizes (sizes, G_N_ELEMENTS (sizes), CF_PRECISION_FP16);
}

GST_END_TEST;

/* Many tiles, cut at the right and bottom edges for most T. */
GST_START_TEST (test_blocked_identical_to_fused_640x480)
{
  static const test_size sizes[] = { {640, 480} };

  check_blocked_sizes (sizes, G_N_ELEMENTS (sizes), CF_PRECISION_FP32);
  check_blocked_sizes (sizes, G_N_ELEMENTS (sizes), CF_PRECISION_FP16);
}

GST_END_TEST;

/* Full plan runs, BLOCKED vs FUSED: the romera preset (3 levels x 1
 * warp x 10 iterations, ε = 0) with the default and every T, warm
 * started, reused; with ε > 0 BLOCKED runs FUSED: the same bits and
 * stopping iterations. */
GST_START_TEST (test_blocked_plan_identical_to_fused)
{
  cf_tvl1_params params;
  scene sc;
  cf_cuda_tvl1_plan *plan = NULL;
  cf_flow *fused, *blocked, *automatic;
  long n_fused = -1, n_blocked = -2;
  int t;

  cf_tvl1_params_init_ipol (&params);
  params.warps = 1;
  params.max_iterations = 10;
  params.epsilon = 0.0f;
  /* small: this test is the racecheck one */
  scene_synth (&sc, 131, 77, CF_SYNTH_ROTATION_ZOOM, 3, &params);
  fail_unless_equals_int (sc.c0->n_levels, 3);

  fused = gpu_run (&sc, CF_TVL1_KERNEL_FUSED, &params, NULL, &n_fused);
  fail_unless (isfinite (fused->u[0]) && isfinite (fused->v[0]));
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (sc.width, sc.height,
          CF_PRECISION_FP32, CF_TVL1_KERNEL_BLOCKED, &plan), CF_OK);
  blocked = plan_run (plan, &sc, &params, NULL, &n_blocked);
  cf_test_assert_flow_identical (blocked, fused,
      "BLOCKED (default T) vs FUSED");
  fail_unless_equals_int (n_blocked, n_fused);
  fail_unless_equals_int (n_blocked, 3 * 10);
  cf_flow_free (blocked);
  /* a second run through the same plan (its buffers were swapped) */
  blocked = plan_run (plan, &sc, &params, NULL, NULL);
  cf_test_assert_flow_identical (blocked, fused, "BLOCKED plan run twice");
  cf_flow_free (blocked);
  automatic = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, NULL, NULL);
  cf_test_assert_flow_identical (automatic, fused, "AUTO vs FUSED");
  cf_flow_free (automatic);

  for (t = 1; t <= CF_TVL1_MAX_BLOCK_ITERATIONS; t++) {
    int rows;

    for (rows = 16; rows <= 64; rows *= 2) {
      gchar *what;

      if (rows == 16 && t > 7)
        continue;
      what = g_strdup_printf ("BLOCKED T=%d rows=%d vs FUSED", t, rows);
      fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (plan, t,
              rows), CF_OK);
      blocked = plan_run (plan, &sc, &params, NULL, NULL);
      cf_test_assert_flow_identical (blocked, fused, what);
      cf_flow_free (blocked);
      g_free (what);
    }
  }
  fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (plan, 0, 0), CF_OK);

  /* warm start from the truth, two warps */
  params.warps = 2;
  cf_flow_free (fused);
  fused = gpu_run (&sc, CF_TVL1_KERNEL_FUSED, &params, sc.truth, NULL);
  blocked = plan_run (plan, &sc, &params, sc.truth, NULL);
  cf_test_assert_flow_identical (blocked, fused,
      "BLOCKED vs FUSED, warm start");
  cf_flow_free (blocked);

  /* ε > 0: FUSED's kernels, stops and count */
  params.max_iterations = 300;
  params.epsilon = 0.02f;
  cf_flow_free (fused);
  fused = gpu_run (&sc, CF_TVL1_KERNEL_FUSED, &params, NULL, &n_fused);
  blocked = plan_run (plan, &sc, &params, NULL, &n_blocked);
  cf_test_assert_flow_identical (blocked, fused,
      "BLOCKED vs FUSED, eps = 0.02");
  fail_unless_equals_int (n_blocked, n_fused);
  fail_unless (n_blocked < 3 * 2 * 300);
  cf_flow_free (blocked);
  cf_flow_free (fused);

  /* bad shapes */
  fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (NULL, 4, 0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (plan, -1, 0),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (plan,
          CF_TVL1_MAX_BLOCK_ITERATIONS + 1, 0), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (plan, 4, 40),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (plan, 8, 16),
      CF_ERROR_INVALID);
  cf_cuda_tvl1_plan_free (plan);
  scene_clear (&sc);
}

GST_END_TEST;

/* The default BLOCKED shape picks each launch's tile height: 32 rows
 * where a level fills the GPU (in fp16 48 where those compute fewer
 * cells: 640 x 480, 12 x 13 tiles against 12 x 22), 16 on levels whose
 * 32-row grid leaves most SMs idle (cuda/tvl1.h). A 640x480 run of 3
 * levels mixes them; it must equal FUSED bit for bit in either
 * precision, with and without programmatic dependent launch. */
GST_START_TEST (test_blocked_tile_rows_per_level)
{
  static const cf_precision precisions[] = { CF_PRECISION_FP32,
    CF_PRECISION_FP16
  };
  cf_tvl1_params params;
  scene sc;
  int n_sm = 0, k;

  fail_unless_equals_int (cf_cuda_sm_count (&n_sm), CF_OK);
  cf_tvl1_params_init_ipol (&params);
  params.warps = 2;
  params.max_iterations = 10;
  params.epsilon = 0.0f;
  scene_synth (&sc, 640, 480, CF_SYNTH_ROTATION_ZOOM, 3, &params);
  fail_unless_equals_int (sc.c0->n_levels, 3);

  for (k = 0; k < (int) G_N_ELEMENTS (precisions); k++) {
    cf_cuda_tvl1_plan *plan = NULL;
    cf_flow *fused, *blocked;

    fail_unless_equals_int (cf_cuda_tvl1_plan_new (640, 480, precisions[k],
            CF_TVL1_KERNEL_BLOCKED, &plan), CF_OK);
    /* 1080p at 5 iterations per launch: 36 x 50 tiles of 32 rows; in
     * fp16 36 x 29 of 48, fewer cells in all */
    fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_rows (plan, 1920,
            1080, 5), precisions[k] == CF_PRECISION_FP16 ? 48 : 32);
    /* 160 x 120 (level 2): 3 x 6 tiles of 32 rows, 8 x 20 of 16 (32
     * wide); 60 x 34: 2 x 2 tiles of 32 rows, 3 x 6 of 16 */
    if (n_sm > 64) {
      fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_rows (plan, 160,
              120, 5), 16);
      fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_rows (plan, 60,
              34, 5), 16);
    } else {
      GST_INFO ("%d SMs: the 16-row choice is not asserted", n_sm);
    }
    fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_rows (plan, 60,
            34, 0), 0);
    fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_rows (NULL, 60,
            34, 1), 0);

    fused = gpu_run_at (&sc, precisions[k], CF_TVL1_KERNEL_FUSED, &params,
        NULL, NULL);
    blocked = plan_run (plan, &sc, &params, NULL, NULL);
    cf_test_assert_flow_identical (blocked, fused,
        "BLOCKED, tile rows per launch, vs FUSED");
    cf_flow_free (blocked);
    /* plain launches where the device has programmatic dependent ones */
    fail_unless_equals_int (cf_cuda_tvl1_plan_set_pdl (plan, 0), CF_OK);
    blocked = plan_run (plan, &sc, &params, NULL, NULL);
    cf_test_assert_flow_identical (blocked, fused,
        "BLOCKED without PDL vs FUSED");
    cf_flow_free (blocked);
    fail_unless_equals_int (cf_cuda_tvl1_plan_set_pdl (plan, 1), CF_OK);
    fail_unless_equals_int (cf_cuda_tvl1_plan_set_pdl (NULL, 1),
        CF_ERROR_INVALID);

    /* a fixed height applies to every launch */
    fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (plan, 5, 64),
        CF_OK);
    fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_rows (plan, 60,
            34, 5), 64);
    fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_rows (plan, 60,
            34, 6), 0);
    blocked = plan_run (plan, &sc, &params, NULL, NULL);
    cf_test_assert_flow_identical (blocked, fused,
        "BLOCKED, 64-row tiles, vs FUSED");
    cf_flow_free (blocked);
    cf_flow_free (fused);
    cf_cuda_tvl1_plan_free (plan);
  }
  scene_clear (&sc);
}

GST_END_TEST;

/* The default BLOCKED shape also lowers T on a level whose grid of 16-row
 * tiles then fits in one wave of resident blocks (cuda/tvl1.h): in fp16
 * (4 blocks of 32 x 16 threads per SM, on 32 x 16 tiles) 480 x 270 needs
 * 22 x 45 tiles at T = 5, 20 x 34 at 4 and 19 x 27 at 3, so on 129 to
 * 169 SMs it takes 3; 1080p (at least 69 x 90 tiles) and 240 x 135
 * (11 x 23 at T = 5) keep 5, and so does an explicit T. A 960 x 540 run
 * of 2 levels, 480 x 270 the second, equals FUSED bit for bit either
 * way. */
GST_START_TEST (test_blocked_iterations_per_level)
{
  cf_tvl1_params params;
  scene sc;
  cf_cuda_tvl1_plan *plan = NULL;
  cf_flow *fused, *blocked;
  int n_sm = 0;

  fail_unless_equals_int (cf_cuda_sm_count (&n_sm), CF_OK);
  cf_tvl1_params_init_ipol (&params);
  params.warps = 2;
  params.max_iterations = 10;
  params.epsilon = 0.0f;
  scene_synth (&sc, 960, 540, CF_SYNTH_ROTATION_ZOOM, 2, &params);
  fail_unless_equals_int (sc.c0->n_levels, 2);
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (960, 540,
          CF_PRECISION_FP16, CF_TVL1_KERNEL_BLOCKED, &plan), CF_OK);

  fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_iterations (plan, 1920,
          1080), 5);
  if (n_sm >= 64) {
    fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_iterations (plan,
            240, 135), 5);
  }
  if (n_sm >= 129 && n_sm <= 169) {
    fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_iterations (plan,
            480, 270), 3);
  } else {
    GST_INFO ("%d SMs: T at 480 x 270 is not asserted", n_sm);
  }
  fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_iterations (NULL, 480,
          270), 0);
  fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_iterations (plan, 0,
          270), 0);

  fused = gpu_run_at (&sc, CF_PRECISION_FP16, CF_TVL1_KERNEL_FUSED, &params,
      NULL, NULL);
  blocked = plan_run (plan, &sc, &params, NULL, NULL);
  cf_test_assert_flow_identical (blocked, fused,
      "BLOCKED, T per level, vs FUSED");
  cf_flow_free (blocked);

  fail_unless_equals_int (cf_cuda_tvl1_plan_set_blocking (plan, 5, 0),
      CF_OK);
  fail_unless_equals_int (cf_cuda_tvl1_plan_blocked_iterations (plan, 480,
          270), 5);
  blocked = plan_run (plan, &sc, &params, NULL, NULL);
  cf_test_assert_flow_identical (blocked, fused, "BLOCKED, T = 5, vs FUSED");
  cf_flow_free (blocked);
  cf_flow_free (fused);
  cf_cuda_tvl1_plan_free (plan);
  scene_clear (&sc);
}

GST_END_TEST;

/* The highest compute capability in "80 90"-like @list that a device of
 * @cc (e.g. 90) can run: its machine code, or the PTX of the highest for
 * newer devices (configure's -gencode flags); 0 where none */
static int
arch_run_on (const char *list, int cc)
{
  const char *p = list;
  int best = 0, top = 0;

  while (*p != '\0') {
    char *end;
    long a = strtol (p, &end, 10);

    if (end == p) {
      p++;
      continue;
    }
    while (*end != '\0' && *end != ' ')
      end++;                    /* a suffix such as 90a */
    if (a > top)
      top = (int) a;
    /* machine code runs on its own major version only */
    if (a / 10 == cc / 10 && a <= cc && a > best)
      best = (int) a;
    p = end;
  }
  if (best == 0 && top <= cc)
    best = top;                 /* the PTX, compiled for this device */
  return best;
}

/* Programmatic dependent launch is on where the device has it and the
 * code it runs was generated for compute capability 9.0 or later: a build
 * for older GPUs alone runs on an H100 from its PTX, whose kernels lack
 * the wait for the kernel before them (cuda/cuda-util.h). The expectation
 * comes from configure's list of architectures, not from the library. */
GST_START_TEST (test_pdl_follows_the_code_the_device_runs)
{
  int dev = 0, major = 0, minor = 0, expected;

  fail_unless_equals_int (cudaGetDevice (&dev), cudaSuccess);
  fail_unless_equals_int (cudaDeviceGetAttribute (&major,
          cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
  fail_unless_equals_int (cudaDeviceGetAttribute (&minor,
          cudaDevAttrComputeCapabilityMinor, dev), cudaSuccess);
  expected = major >= 9 &&
      arch_run_on (CF_CUDA_ARCH_LIST, 10 * major + minor) >= 90;
  GST_INFO ("compute capability %d.%d, built for \"%s\": PDL %d", major,
      minor, CF_CUDA_ARCH_LIST, expected);
  fail_unless_equals_int (cf_cuda_pdl_supported (), expected);
  /* asked twice (the answer is kept per device) */
  fail_unless_equals_int (cf_cuda_pdl_supported (), expected);
  fail_unless_equals_int (arch_run_on ("80 90", 90), 90);
  fail_unless_equals_int (arch_run_on ("80", 90), 80);
  fail_unless_equals_int (arch_run_on ("75 80", 86), 80);
  fail_unless_equals_int (arch_run_on ("90a 100", 90), 90);
  fail_unless_equals_int (arch_run_on ("100", 90), 0);
}

GST_END_TEST;

/* ε = 0 runs max_iterations per warp; a huge ε stops every warp after its
 * first iteration — whose P step still runs (IPOL), which shows in the
 * second warp of a level: the same bits as max_iterations = 1. */
GST_START_TEST (test_epsilon_stop_and_iteration_counts)
{
  static const cf_tvl1_kernel kernels[] = { CF_TVL1_KERNEL_STEPS,
    CF_TVL1_KERNEL_FUSED, CF_TVL1_KERNEL_BLOCKED
  };
  cf_tvl1_params params;
  scene sc;
  int k;

  cf_tvl1_params_init_ipol (&params);
  params.warps = 3;
  scene_synth (&sc, 64, 48, CF_SYNTH_TRANSLATION, 3, &params);
  for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
    cf_flow *a, *b, *cpu;
    long n = -1;

    params.epsilon = 1e3f;
    params.max_iterations = 300;
    a = gpu_run (&sc, kernels[k], &params, NULL, &n);
    fail_unless_equals_int (n, sc.c0->n_levels * params.warps);
    cpu = cf_flow_new (sc.width, sc.height);
    fail_unless_equals_int (cf_test_tvl1_steps_flow (sc.c0, sc.c1, &params,
            0, cpu), sc.c0->n_levels * params.warps);
    assert_flow_mean_close (a, cpu, "huge eps vs CPU");

    params.epsilon = 0.0f;
    params.max_iterations = 1;
    b = gpu_run (&sc, kernels[k], &params, NULL, &n);
    fail_unless_equals_int (n, sc.c0->n_levels * params.warps);
    cf_test_assert_flow_identical (a, b, "huge eps vs one iteration");

    params.max_iterations = 7;
    cf_flow_free (b);
    b = gpu_run (&sc, kernels[k], &params, NULL, &n);
    fail_unless_equals_int (n, sc.c0->n_levels * params.warps * 7);

    cf_flow_free (a);
    cf_flow_free (b);
    cf_flow_free (cpu);
  }
  scene_clear (&sc);
}

GST_END_TEST;

GST_START_TEST (test_plan_matches_cpu_flow)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM, CF_SYNTH_SMOOTH
  };
  int m;

  for (m = 0; m < (int) G_N_ELEMENTS (motions); m++) {
    cf_tvl1_params params;
    scene sc;
    cf_flow *ref, *mirror, *gpu;
    long n_cpu, n_gpu = -1;

    /* IPOL defaults: ε = 0.01, 5 warps, 300 iterations */
    cf_tvl1_params_init_ipol (&params);
    scene_synth (&sc, 160, 128, motions[m], 4, &params);
    fail_unless_equals_int (sc.c0->n_levels, 4);
    ref = cf_flow_new (sc.width, sc.height);
    mirror = cf_flow_new (sc.width, sc.height);
    n_cpu = cpu_reference (&sc, &params, ref, mirror,
        "counting mirror vs cf_tvl1_flow");

    gpu = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, NULL, &n_gpu);
    assert_flow_mean_close (gpu, ref, "plan vs cf_tvl1_flow");
    assert_iterations_close (n_gpu, n_cpu, "plan vs cf_tvl1_flow");
    cf_flow_free (gpu);

    gpu = gpu_run (&sc, CF_TVL1_KERNEL_STEPS, &params, NULL, &n_gpu);
    assert_flow_mean_close (gpu, ref, "STEPS plan vs cf_tvl1_flow");
    assert_iterations_close (n_gpu, n_cpu, "STEPS plan vs cf_tvl1_flow");
    cf_flow_free (gpu);
    cf_flow_free (ref);
    cf_flow_free (mirror);
    scene_clear (&sc);
  }
}

GST_END_TEST;

/* Per-level schedules (warps-per-level, iterations-per-level): each level
 * is a uniform solve with its own counts, on the GPU as in cf_tvl1_flow.
 * Every kernel against the CPU reference (FLOW_MEAN_TOL, as the uniform
 * runs), counting Σ_l warps_l × iterations_l with ε = 0 and the CPU's
 * count (ITER_REL_TOL) with ε > 0; BLOCKED vs FUSED bit for bit in fp32
 * and fp16 with counts the default T does not divide, so its launches
 * split differently per level; lists that repeat the uniform counts give
 * the uniform bits. */
GST_START_TEST (test_per_level_schedule_matches_cpu)
{
  static const cf_tvl1_kernel kernels[] = { CF_TVL1_KERNEL_AUTO,
    CF_TVL1_KERNEL_STEPS, CF_TVL1_KERNEL_FUSED, CF_TVL1_KERNEL_BLOCKED
  };
  /* 4 levels; the lists (finest first) are shorter on purpose */
  const long expected = 1 * 5 + 2 * 11 + 3 * 40 + 3 * 40;
  cf_tvl1_params params, listed;
  scene sc;
  cf_flow *ref, *mirror, *gpu, *fused, *blocked;
  long n_cpu, n_gpu = -1, n_other = -2;
  int k;

  cf_tvl1_params_init_ipol (&params);
  params.epsilon = 0.0f;
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&params, "1,2,3",
          NULL), CF_OK);
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&params,
          "5,11,40", NULL), CF_OK);
  scene_synth (&sc, 160, 128, CF_SYNTH_ROTATION_ZOOM, 4, &params);
  fail_unless_equals_int (sc.c0->n_levels, 4);
  ref = cf_flow_new (sc.width, sc.height);
  mirror = cf_flow_new (sc.width, sc.height);
  n_cpu = cpu_reference (&sc, &params, ref, mirror,
      "per-level counting mirror vs cf_tvl1_flow");
  fail_unless_equals_int (n_cpu, expected);

  for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
    gchar *what = g_strdup_printf ("per-level plan (kernel %d) vs "
        "cf_tvl1_flow", (int) kernels[k]);

    gpu = gpu_run (&sc, kernels[k], &params, NULL, &n_gpu);
    assert_flow_mean_close (gpu, ref, what);
    fail_unless_equals_int (n_gpu, expected);
    cf_flow_free (gpu);
    g_free (what);
  }

  fused = gpu_run (&sc, CF_TVL1_KERNEL_FUSED, &params, NULL, NULL);
  blocked = gpu_run (&sc, CF_TVL1_KERNEL_BLOCKED, &params, NULL, NULL);
  cf_test_assert_flow_identical (blocked, fused,
      "per-level BLOCKED vs FUSED, fp32");
  cf_flow_free (fused);
  cf_flow_free (blocked);
  fused = gpu_run_at (&sc, CF_PRECISION_FP16, CF_TVL1_KERNEL_FUSED, &params,
      NULL, &n_gpu);
  blocked = gpu_run_at (&sc, CF_PRECISION_FP16, CF_TVL1_KERNEL_BLOCKED,
      &params, NULL, &n_other);
  cf_test_assert_flow_identical (blocked, fused,
      "per-level BLOCKED vs FUSED, fp16");
  fail_unless_equals_int (n_gpu, expected);
  fail_unless_equals_int (n_other, expected);
  cf_flow_free (fused);
  cf_flow_free (blocked);

  /* lists that repeat the uniform counts: the uniform bits and count */
  cf_tvl1_params_init_ipol (&listed);
  listed.epsilon = 0.0f;
  listed.warps = 2;
  listed.max_iterations = 11;
  fused = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &listed, NULL, &n_gpu);
  fail_unless_equals_int (cf_tvl1_parse_warps_per_level (&listed, "2",
          NULL), CF_OK);
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&listed,
          "11,11", NULL), CF_OK);
  listed.warps = 7;             /* ignored while a list is set */
  listed.max_iterations = 3;
  blocked = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &listed, NULL, &n_other);
  cf_test_assert_flow_identical (blocked, fused,
      "uniform lists vs uniform counts");
  fail_unless_equals_int (n_other, n_gpu);
  fail_unless_equals_int (n_gpu, 4 * 2 * 11);
  cf_flow_free (fused);
  cf_flow_free (blocked);

  /* ε > 0: each level's entry is its cap */
  params.epsilon = 0.02f;
  fail_unless_equals_int (cf_tvl1_parse_iterations_per_level (&params,
          "30,100,300", NULL), CF_OK);
  n_cpu = cpu_reference (&sc, &params, ref, mirror,
      "per-level counting mirror vs cf_tvl1_flow, eps 0.02");
  fail_unless (n_cpu < 1 * 30 + 2 * 100 + 3 * 300 + 3 * 300);
  for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
    gchar *what = g_strdup_printf ("per-level plan (kernel %d), eps 0.02",
        (int) kernels[k]);

    gpu = gpu_run (&sc, kernels[k], &params, NULL, &n_gpu);
    assert_flow_mean_close (gpu, ref, what);
    assert_iterations_close (n_gpu, n_cpu, what);
    cf_flow_free (gpu);
    g_free (what);
  }
  cf_flow_free (ref);
  cf_flow_free (mirror);
  scene_clear (&sc);
}

GST_END_TEST;

/* use_initial: the given flow, resampled, seeds the coarsest level. */
GST_START_TEST (test_warm_start_matches_cpu)
{
  cf_tvl1_params params;
  scene sc;
  cf_flow *ref, *gpu;

  cf_tvl1_params_init_ipol (&params);
  params.warps = 2;
  params.max_iterations = 30;
  scene_synth (&sc, 96, 64, CF_SYNTH_ROTATION_ZOOM, 3, &params);
  ref = cf_flow_copy (sc.truth);
  fail_unless_equals_int (cf_tvl1_flow (sc.c0, sc.c1, &params, 1, ref),
      CF_OK);
  gpu = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, sc.truth, NULL);
  assert_flow_mean_close (gpu, ref, "warm start vs cf_tvl1_flow");
  cf_flow_free (gpu);

  /* one level: the initial flow is resampled onto its own grid */
  cf_flow_free (ref);
  scene_clear (&sc);
  scene_synth (&sc, 96, 64, CF_SYNTH_TRANSLATION, 1, &params);
  ref = cf_flow_copy (sc.truth);
  fail_unless_equals_int (cf_tvl1_flow (sc.c0, sc.c1, &params, 1, ref),
      CF_OK);
  gpu = gpu_run (&sc, CF_TVL1_KERNEL_FUSED, &params, sc.truth, NULL);
  assert_flow_mean_close (gpu, ref, "one-level warm start vs cf_tvl1_flow");
  cf_flow_free (gpu);
  cf_flow_free (ref);
  scene_clear (&sc);
}

GST_END_TEST;

/* One plan, several runs: the same input gives the same bits and count,
 * another pair in between changes nothing. */
GST_START_TEST (test_plan_reuse)
{
  cf_tvl1_params params;
  scene a, b;
  cf_cuda_tvl1_plan *plan = NULL;
  cf_flow *first, *again, *other, *fresh;
  long n_first = -1, n_again = -2, n_other = -3, n_fresh = -4;

  cf_tvl1_params_init_ipol (&params);
  params.warps = 2;
  params.epsilon = 0.02f;
  scene_synth (&a, 120, 90, CF_SYNTH_SMOOTH, 3, &params);
  scene_synth (&b, 120, 90, CF_SYNTH_ROTATION_ZOOM, 3, &params);
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (120, 90, CF_PRECISION_FP32,
          CF_TVL1_KERNEL_AUTO, &plan), CF_OK);

  first = plan_run (plan, &a, &params, NULL, &n_first);
  again = plan_run (plan, &a, &params, NULL, &n_again);
  cf_test_assert_flow_identical (again, first, "second run of a plan");
  fail_unless_equals_int (n_again, n_first);
  cf_flow_free (again);

  other = plan_run (plan, &b, &params, NULL, &n_other);
  fresh = gpu_run (&b, CF_TVL1_KERNEL_AUTO, &params, NULL, &n_fresh);
  cf_test_assert_flow_identical (other, fresh,
      "other pair through a used plan");
  fail_unless_equals_int (n_other, n_fresh);

  /* then ε = 0 through the same plan: the count is the host's */
  params.epsilon = 0.0f;
  params.max_iterations = 5;
  again = plan_run (plan, &a, &params, NULL, &n_again);
  fail_unless_equals_int (n_again, a.c0->n_levels * params.warps * 5);
  cf_flow_free (again);

  params.epsilon = 0.02f;
  params.max_iterations = 300;
  again = plan_run (plan, &a, &params, NULL, &n_again);
  cf_test_assert_flow_identical (again, first, "plan after other runs");
  fail_unless_equals_int (n_again, n_first);

  cf_flow_free (first);
  cf_flow_free (again);
  cf_flow_free (other);
  cf_flow_free (fresh);
  cf_cuda_tvl1_plan_free (plan);
  scene_clear (&a);
  scene_clear (&b);
}

GST_END_TEST;

GST_START_TEST (test_plan_rejects_bad_arguments)
{
  cf_tvl1_params params;
  scene sc, wide, narrow;
  cf_cuda_tvl1_plan *plan = NULL;
  cf_cuda_flow flow, small;

  cf_cuda_tvl1_plan_free (NULL);
  /* STEPS is fp32 only */
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (64, 48, CF_PRECISION_FP16,
          CF_TVL1_KERNEL_STEPS, &plan), CF_ERROR_UNSUPPORTED);
  fail_unless (plan == NULL);
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (0, 48, CF_PRECISION_FP32,
          CF_TVL1_KERNEL_AUTO, &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (64, 48, (cf_precision) 7,
          CF_TVL1_KERNEL_AUTO, &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (64, 48, CF_PRECISION_FP32,
          (cf_tvl1_kernel) 9, &plan), CF_ERROR_INVALID);
  fail_unless (plan == NULL);

  cf_tvl1_params_init_ipol (&params);
  params.max_iterations = 3;
  scene_synth (&sc, 64, 48, CF_SYNTH_TRANSLATION, 2, &params);
  scene_synth (&wide, 80, 48, CF_SYNTH_TRANSLATION, 2, &params);
  scene_synth (&narrow, 48, 48, CF_SYNTH_TRANSLATION, 2, &params);
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (64, 48, CF_PRECISION_FP32,
          CF_TVL1_KERNEL_AUTO, &plan), CF_OK);
  cf_test_poisoned_flow (64, 48, &flow, stream);
  cf_test_poisoned_flow (48, 48, &small, stream);

  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &sc.g1,
          &params, 0, &flow, stream), CF_OK);
  /* pyramids of different sizes; frames larger, then smaller than the
   * plan (a plan serves one frame size) */
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &wide.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &wide.g0, &wide.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &narrow.g0,
          &narrow.g1, &params, 0, &small, stream), CF_ERROR_INVALID);
  /* flow of another size */
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &sc.g1,
          &params, 0, &small, stream), CF_ERROR_INVALID);
  /* parameters cf_tvl1_flow rejects */
  params.warps = 0;
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &sc.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  cf_tvl1_params_init_ipol (&params);
  params.tau = 0.3f;
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &sc.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  cf_tvl1_params_init_ipol (&params);
  params.max_iterations = 0;
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &sc.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  /* per-level lists out of range (set by hand, past the parser) */
  cf_tvl1_params_init_ipol (&params);
  params.n_warps_per_level = 2;
  params.warps_per_level[0] = 1;
  params.warps_per_level[1] = 0;
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &sc.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  cf_tvl1_params_init_ipol (&params);
  params.n_iterations_per_level = CF_PYRAMID_MAX_LEVELS + 1;
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &sc.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_tvl1_plan_run (plan, &sc.g0, &sc.g1,
          NULL, 0, &flow, stream), CF_ERROR_INVALID);
  sync_stream ();

  cf_cuda_flow_release (&flow);
  cf_cuda_flow_release (&small);
  cf_cuda_tvl1_plan_free (plan);
  scene_clear (&sc);
  scene_clear (&wide);
  scene_clear (&narrow);
}

GST_END_TEST;

/* ------------------------------------------------------- median filter */

/* median-size 3 and 5 (the filter of u after every warp): the plan
 * against cf_tvl1_flow within the tolerance of the runs without it, fp32,
 * IPOL's ε stopping (FUSED) and a fixed count (BLOCKED, STEPS); the
 * written-out mirror gives cf_tvl1_flow's bits, median included. */
GST_START_TEST (test_plan_with_median_matches_cpu)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM, CF_SYNTH_SMOOTH
  };
  static const cf_tvl1_kernel kernels[] = { CF_TVL1_KERNEL_AUTO,
    CF_TVL1_KERNEL_STEPS, CF_TVL1_KERNEL_FUSED, CF_TVL1_KERNEL_BLOCKED
  };
  int m, size, fixed, k;

  for (m = 0; m < (int) G_N_ELEMENTS (motions); m++) {
    for (size = 3; size <= 5; size += 2) {
      for (fixed = 0; fixed < 2; fixed++) {
        cf_tvl1_params params;
        scene sc;
        cf_flow *ref, *mirror;
        long n_cpu;

        cf_tvl1_params_init_ipol (&params);
        params.median_size = size;
        if (fixed) {
          params.warps = 3;
          params.max_iterations = 15;
          params.epsilon = 0.0f;
        }
        scene_synth (&sc, 160, 128, motions[m], 4, &params);
        ref = cf_flow_new (sc.width, sc.height);
        mirror = cf_flow_new (sc.width, sc.height);
        n_cpu = cpu_reference (&sc, &params, ref, mirror,
            "counting mirror vs cf_tvl1_flow, median");
        for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
          long n_gpu = -1;
          cf_flow *gpu = gpu_run (&sc, kernels[k], &params, NULL, &n_gpu);
          gchar *what = g_strdup_printf ("motion %d, median %d, %s, kernel "
              "%d: plan vs cf_tvl1_flow", motions[m], size,
              fixed ? "fixed count" : "eps 0.01", kernels[k]);

          assert_flow_mean_close (gpu, ref, what);
          if (fixed) {
            fail_unless_equals_int (n_gpu, n_cpu);
          } else {
            assert_iterations_close (n_gpu, n_cpu, what);
          }
          g_free (what);
          cf_flow_free (gpu);
        }
        cf_flow_free (ref);
        cf_flow_free (mirror);
        scene_clear (&sc);
      }
    }
  }
}

GST_END_TEST;

/* A fixed-count schedule with a filter between warps (@params, ε 0) on
 * @sc: cf_tvl1_flow checked against the steps written out; the plan of
 * every kernel against it (FLOW_MEAN_TOL, the same iteration count);
 * BLOCKED equal to FUSED in both precisions; with @fp16_to_cpu, fp16's
 * FUSED within FP16_MEAN_TOL of cf_tvl1_flow. @label names the case. */
static void
check_filtered_plans (const scene * sc, const cf_tvl1_params * params,
    const char *label, gboolean fp16_to_cpu)
{
  static const cf_tvl1_kernel kernels[] = { CF_TVL1_KERNEL_AUTO,
    CF_TVL1_KERNEL_STEPS, CF_TVL1_KERNEL_FUSED, CF_TVL1_KERNEL_BLOCKED
  };
  cf_flow *ref = cf_flow_new (sc->width, sc->height);
  cf_flow *mirror = cf_flow_new (sc->width, sc->height);
  gchar *what = g_strdup_printf ("%s: counting mirror vs cf_tvl1_flow",
      label);
  const long n_cpu = cpu_reference (sc, params, ref, mirror, what);
  int k, p;

  g_free (what);
  for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
    long n_gpu = -1;
    cf_flow *gpu = gpu_run (sc, kernels[k], params, NULL, &n_gpu);

    what = g_strdup_printf ("%s, kernel %d: plan vs cf_tvl1_flow", label,
        kernels[k]);
    assert_flow_mean_close (gpu, ref, what);
    fail_unless_equals_int (n_gpu, n_cpu);
    g_free (what);
    cf_flow_free (gpu);
  }
  for (p = 0; p < 2; p++) {
    const cf_precision precision = p ? CF_PRECISION_FP16 : CF_PRECISION_FP32;
    cf_flow *fused = gpu_run_at (sc, precision, CF_TVL1_KERNEL_FUSED,
        params, NULL, NULL);
    cf_flow *blocked = gpu_run_at (sc, precision, CF_TVL1_KERNEL_BLOCKED,
        params, NULL, NULL);

    what = g_strdup_printf ("%s, %s: BLOCKED vs FUSED", label,
        p ? "fp16" : "fp32");
    if (p && fp16_to_cpu) {
      double mean = 0.0, max = 0.0;

      fail_unless_equals_int (cf_flow_diff (fused, ref, &mean, &max), CF_OK);
      GST_INFO ("%s: fp16 vs cf_tvl1_flow mean |diff| %.5f px, max %.4f",
          what, mean, max);
      fail_unless (mean <= FP16_MEAN_TOL, "%s: mean |fp16 − CPU| %g px",
          what, mean);
    }
    cf_test_assert_flow_identical (blocked, fused, what);
    g_free (what);
    cf_flow_free (fused);
    cf_flow_free (blocked);
  }
  cf_flow_free (ref);
  cf_flow_free (mirror);
}

/* Each of @lists in turn as the per-level list @name (its property name),
 * over 2 warps x 12 iterations, ε 0, median_size @median_size, on a
 * rotation/zoom: check_filtered_plans. */
static void
check_plans_with_lists (const char *name, const char *const *lists,
    guint n_lists, int median_size, gboolean fp16_to_cpu)
{
  guint i;

  for (i = 0; i < n_lists; i++) {
    cf_tvl1_params params;
    scene sc;
    gchar *label = g_strdup_printf ("%s %s", name, lists[i]);

    cf_tvl1_params_init (&params);
    fail_unless_equals_int (cf_tvl1_params_set (&params, "warps", 2), CF_OK);
    fail_unless_equals_int (cf_tvl1_params_set (&params, "iterations", 12),
        CF_OK);
    params.epsilon = 0.0f;
    params.median_size = median_size;
    fail_unless_equals_int (cf_params_set_text (&cf_tvl1_param_table,
            &params, name, lists[i], NULL), CF_OK);
    scene_synth (&sc, 160, 128, CF_SYNTH_ROTATION_ZOOM, 4, &params);
    check_filtered_plans (&sc, &params, label, fp16_to_cpu);
    g_free (label);
    scene_clear (&sc);
  }
}

/* median-size-per-level: each level filtered with its own window (fast's
 * "0,5", a list longer than the pyramid's use), plan against cf_tvl1_flow
 * for every kernel, and BLOCKED equal to FUSED in both precisions. */
GST_START_TEST (test_plan_with_median_per_level_matches_cpu)
{
  static const char *const lists[] = { "0,5", "5,0,3", "3,3,0,5,5,0" };

  check_plans_with_lists ("median-size-per-level", lists,
      G_N_ELEMENTS (lists), 0, FALSE);
}

GST_END_TEST;

/* lambda-per-level (a larger λ on the two finest levels, as for sharp
 * video; and a list rising towards the coarse levels), with the 5 x 5
 * median: the plan against cf_tvl1_flow for every kernel, fp16 within
 * FP16_MEAN_TOL, and BLOCKED equal to FUSED in both precisions. λ is a
 * scalar of each level's launches, so this checks that every kernel takes
 * its level's. */
GST_START_TEST (test_plan_with_lambda_per_level_matches_cpu)
{
  static const char *const lists[] = { "0.4,0.4,0.15", "0.1,0.2,0.3,0.6" };

  check_plans_with_lists ("lambda-per-level", lists, G_N_ELEMENTS (lists), 5,
      TRUE);
}

GST_END_TEST;

/* A frame's first warp: nothing to trim against */
static const cf_tvl1_brightness_fit fit_cleared = { 1.0, 0.0, 0.0, 0 };

/* The GPU fit of @i0 against @i1w around @u after the fit @before, next to
 * cf_tvl1_fit_brightness: the same gain and bias to rounding (the sums'
 * order differs), and exactly the identity where the CPU takes it; the
 * same fit carried on, to rounding. The CPU's carried fit goes to
 * @after (may be NULL), for the next warp of both. */
static void
check_fit_brightness (const cf_image * i0, const cf_image * i1w,
    const cf_flow * u, const cf_tvl1_brightness_fit * before,
    cf_tvl1_brightness_fit * after, const char *what)
{
  cf_tvl1_brightness_fit cpu = *before, gpu = *before;
  cf_cuda_image g0, gw;
  cf_cuda_flow gu;
  float gain = 0.0f, bias = 0.0f, cpu_gain = 0.0f, cpu_bias = 0.0f;

  fail_unless_equals_int (cf_tvl1_fit_brightness (i0, i1w, u, &cpu,
          &cpu_gain, &cpu_bias), CF_OK);
  cf_test_upload_image (i0, &g0, stream);
  cf_test_upload_image (i1w, &gw, stream);
  cf_test_upload_flow (u, &gu, stream);
  fail_unless_equals_int (cf_cuda_tvl1_fit_brightness (&g0, &gw, &gu, &gpu,
          &gain, &bias, stream), CF_OK);
  GST_INFO ("%s: GPU gain %.7f bias %.5f cut %.5f, CPU gain %.7f bias %.5f "
      "cut %.5f", what, gain, bias, gpu.cut, cpu_gain, cpu_bias, cpu.cut);
  if (cpu_gain == 1.0f && cpu_bias == 0.0f)
    fail_unless (gain == 1.0f && bias == 0.0f,
        "%s: GPU gain %g bias %g where the CPU takes the identity", what,
        gain, bias);
  fail_unless (fabsf (gain - cpu_gain) <= 4.0f * FLT_EPSILON * cpu_gain &&
      fabsf (bias - cpu_bias) <= 1e-4f * (1.0f + fabsf (cpu_bias)),
      "%s: GPU gain %.9g bias %.9g, CPU %.9g %.9g", what, gain, bias,
      cpu_gain, cpu_bias);
  fail_unless_equals_int (gpu.live, cpu.live);
  if (cpu.live)
    fail_unless (fabs (gpu.gain - cpu.gain) <= 1e-9 * cpu.gain &&
        fabs (gpu.bias - cpu.bias) <= 1e-9 * (1.0 + fabs (cpu.bias)) &&
        fabs (gpu.cut - cpu.cut) <= 1e-6 * cpu.cut,
        "%s: carried GPU %.12g %.12g %.12g, CPU %.12g %.12g %.12g", what,
        gpu.gain, gpu.bias, gpu.cut, cpu.gain, cpu.bias, cpu.cut);
  if (after != NULL)
    *after = cpu;
  cf_cuda_image_release (&g0);
  cf_cuda_image_release (&gw);
  cf_cuda_flow_release (&gu);
}

/* cf_cuda_tvl1_fit_brightness against cf_tvl1_fit_brightness: a frame lit
 * by 0.8 I + 20 with noise, an occlusion and samples past I1's margin, at
 * a size one block covers and at sizes whose sweep loops over the grid,
 * as a frame's first warp and as the warp after it (trimmed by the first's
 * fit); the identity cases (unchanged light, within the gate, too few
 * samples, a flat frame); cf_cuda_tvl1_apply_brightness gives the CPU's
 * bits. */
GST_START_TEST (test_brightness_fit_and_apply_match_cpu)
{
  static const test_size sizes[] = { {13, 11}, {64, 48}, {640, 480},
    {1920, 1080}
  };
  int i, x, y;

  for (i = 0; i < (int) G_N_ELEMENTS (sizes); i++) {
    const int w = sizes[i].width, h = sizes[i].height;
    cf_image *i0 = cf_test_random_image (w, h, 5 + i, 0.0f, 200.0f);
    cf_image *noise = cf_test_random_image (w, h, 15 + i, -4.0f, 4.0f);
    cf_image *lit = cf_image_new (w, h), *rho0, *rho;
    cf_flow *u = cf_test_random_flow (w, h, 25 + i, -6.0f, 6.0f);
    cf_tvl1_brightness_fit fit;
    cf_cuda_image g0, grho;
    gchar *what;

    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        const float f = cf_image_row (i0, y)[x];
        /* an occlusion: a band of other content */
        cf_image_row (lit, y)[x] = x % 16 < 2 ? 255.0f - f :
            0.8f * f + 20.0f + cf_image_row (noise, y)[x];
      }
    what = g_strdup_printf ("%dx%d lit", w, h);
    check_fit_brightness (i0, lit, u, &fit_cleared, &fit, what);
    g_free (what);
    what = g_strdup_printf ("%dx%d lit, second warp", w, h);
    check_fit_brightness (i0, lit, u, &fit, NULL, what);
    g_free (what);
    what = g_strdup_printf ("%dx%d unchanged", w, h);
    check_fit_brightness (i0, i0, u, &fit_cleared, &fit, what);
    g_free (what);
    what = g_strdup_printf ("%dx%d unchanged, second warp", w, h);
    check_fit_brightness (i0, i0, u, &fit, NULL, what);
    g_free (what);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        cf_image_row (lit, y)[x] = 1.01f * cf_image_row (i0, y)[x] + 1.0f;
    what = g_strdup_printf ("%dx%d within the gate", w, h);
    check_fit_brightness (i0, lit, u, &fit_cleared, NULL, what);
    g_free (what);

    /* ρc + I0 − (gain I0 + bias): the CPU's bits */
    rho0 = cf_test_random_image (w, h, 35 + i, -50.0f, 50.0f);
    rho = cf_image_copy (rho0);
    fail_unless_equals_int (cf_tvl1_apply_brightness (i0, 0.8f, 20.0f, rho),
        CF_OK);
    cf_test_upload_image (i0, &g0, stream);
    cf_test_upload_image (rho0, &grho, stream);
    fail_unless_equals_int (cf_cuda_tvl1_apply_brightness (&g0, 0.8f, 20.0f,
            &grho, stream), CF_OK);
    cf_test_assert_cuda_image_close (&grho, rho, 0.0, "apply", stream);
    cf_cuda_image_release (&g0);
    cf_cuda_image_release (&grho);
    cf_image_free (i0);
    cf_image_free (noise);
    cf_image_free (lit);
    cf_image_free (rho0);
    cf_image_free (rho);
    cf_flow_free (u);
  }
  {
    /* a flat first frame; and 8 x 8, 4 samples inside the margin */
    cf_image *flat = cf_image_new (64, 48);
    cf_image *lit = cf_test_random_image (64, 48, 3, 0.0f, 200.0f);
    cf_image *small = cf_test_random_image (8, 8, 4, 0.0f, 200.0f);
    cf_flow *u = cf_flow_new (64, 48), *u_small = cf_flow_new (8, 8);
    cf_tvl1_brightness_fit live = { 0.8, 20.0, 5.0, 1 };
    cf_cuda_image g0, gw;
    cf_cuda_flow gu;
    float gain, bias;

    cf_image_fill (flat, 100.0f);
    cf_flow_fill (u, 0.0f, 0.0f);
    cf_flow_fill (u_small, 0.0f, 0.0f);

    check_fit_brightness (flat, lit, u, &fit_cleared, NULL, "flat");
    check_fit_brightness (small, small, u_small, &live, NULL, "8x8");
    /* sizes that do not match */
    cf_test_upload_image (flat, &g0, stream);
    cf_test_upload_image (small, &gw, stream);
    cf_test_upload_flow (u, &gu, stream);
    fail_unless_equals_int (cf_cuda_tvl1_fit_brightness (&g0, &gw, &gu,
            &live, &gain, &bias, stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_tvl1_fit_brightness (&g0, &g0, &gu,
            &live, NULL, &bias, stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_tvl1_fit_brightness (&g0, &g0, &gu,
            NULL, &gain, &bias, stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_tvl1_apply_brightness (&g0, 1.0f, 0.0f,
            &gw, stream), CF_ERROR_INVALID);
    cf_cuda_image_release (&g0);
    cf_cuda_image_release (&gw);
    cf_cuda_flow_release (&gu);
    cf_image_free (flat);
    cf_image_free (lit);
    cf_image_free (small);
    cf_flow_free (u);
    cf_flow_free (u_small);
  }
}

GST_END_TEST;

/* brightness_model in the plan: on a pair whose second frame is 0.8 I +
 * 20, every kernel against cf_tvl1_flow with the model (which is far from
 * the flow without it, so a plan that skipped the model would fail),
 * fp16 within FP16_MEAN_TOL, BLOCKED equal to FUSED in both precisions;
 * on a pair of unchanged light, the same bits with and without it. */
GST_START_TEST (test_plan_with_brightness_matches_cpu)
{
  cf_tvl1_params params;
  scene sc;
  cf_flow *without, *with;
  double epe_with, epe_without;
  int p;

  cf_tvl1_params_init (&params);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "warps", 3), CF_OK);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "iterations", 12),
      CF_OK);
  params.epsilon = 0.0f;
  params.median_size = 5;
  scene_synth_lit (&sc, 160, 128, CF_SYNTH_SMOOTH, 4, &params, 0.8f, 20.0f);
  without = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, NULL, NULL);
  params.brightness_model = 1;
  check_filtered_plans (&sc, &params, "brightness model, gain 0.8, bias 20",
      TRUE);
  with = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, NULL, NULL);
  epe_with = cf_test_flow_epe (with, sc.truth, 0);
  epe_without = cf_test_flow_epe (without, sc.truth, 0);
  GST_INFO ("gain 0.8, bias 20 on the GPU: EPE %.4f with the model, %.4f "
      "without", epe_with, epe_without);
  fail_unless (epe_with < 0.5 * epe_without, "EPE %.4f with, %.4f without",
      epe_with, epe_without);
  cf_flow_free (with);
  cf_flow_free (without);
  scene_clear (&sc);

  scene_synth (&sc, 160, 128, CF_SYNTH_SMOOTH, 4, &params);
  for (p = 0; p < 2; p++) {
    const cf_precision precision = p ? CF_PRECISION_FP16 : CF_PRECISION_FP32;

    params.brightness_model = 1;
    with = gpu_run_at (&sc, precision, CF_TVL1_KERNEL_AUTO, &params, NULL,
        NULL);
    params.brightness_model = 0;
    without = gpu_run_at (&sc, precision, CF_TVL1_KERNEL_AUTO, &params, NULL,
        NULL);
    cf_test_assert_flow_identical (with, without, p ? "unchanged light, fp16"
        : "unchanged light, fp32");
    cf_flow_free (with);
    cf_flow_free (without);
  }
  scene_clear (&sc);
}

GST_END_TEST;

/* gradient_blend in the plan: on a rotation/zoom, every kernel against
 * cf_tvl1_flow with the blend, fp16 within FP16_MEAN_TOL, BLOCKED equal
 * to FUSED in both precisions (check_filtered_plans); and the blend
 * changes the flow by more than 3 FLOW_MEAN_TOL (the CPU reference: 0.0074
 * px), so a plan that left it out would fail the fp32 check. The run
 * without it sets 0 itself: 0.5 is the default. */
GST_START_TEST (test_plan_with_gradient_blend_matches_cpu)
{
  cf_tvl1_params params;
  scene sc;
  cf_flow *plain, *blended;
  double mean = 0.0, max = 0.0;

  cf_tvl1_params_init (&params);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "warps", 2), CF_OK);
  fail_unless_equals_int (cf_tvl1_params_set (&params, "iterations", 12),
      CF_OK);
  params.epsilon = 0.0f;
  scene_synth (&sc, 160, 128, CF_SYNTH_ROTATION_ZOOM, 4, &params);
  params.gradient_blend = 0.0f;
  plain = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, NULL, NULL);
  params.gradient_blend = 0.5f;
  check_filtered_plans (&sc, &params, "gradient blend 0.5", TRUE);
  blended = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, NULL, NULL);
  fail_unless_equals_int (cf_flow_diff (blended, plain, &mean, &max), CF_OK);
  GST_INFO ("gradient blend 0.5 against none on the GPU: mean |diff| %.4f "
      "px, max %.3f", mean, max);
  fail_unless (mean > 3 * FLOW_MEAN_TOL, "mean |diff| %g px", mean);
  cf_flow_free (plain);
  cf_flow_free (blended);
  scene_clear (&sc);
}

GST_END_TEST;

/* weighted-median-size 5 and 9 on the levels at least 60 px wide (160
 * and 80 of 160, 80, 40, 20), the plain 5 x 5 median below: the plan
 * against cf_tvl1_flow for every kernel, fp32 within the tolerance of the
 * runs without it, fp16 within FP16_MEAN_TOL, and BLOCKED equal to FUSED
 * in both precisions. The written-out mirror gives cf_tvl1_flow's bits. */
GST_START_TEST (test_plan_with_weighted_median_matches_cpu)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_ROTATION_ZOOM,
    CF_SYNTH_SMOOTH
  };
  int m, size;

  for (m = 0; m < (int) G_N_ELEMENTS (motions); m++) {
    for (size = 5; size <= 9; size += 4) {
      cf_tvl1_params params;
      scene sc;
      gchar *label = g_strdup_printf ("motion %d, weighted median %d",
          motions[m], size);

      cf_tvl1_params_init (&params);
      fail_unless_equals_int (cf_tvl1_params_set (&params, "warps", 2), CF_OK);
      fail_unless_equals_int (cf_tvl1_params_set (&params, "iterations", 12),
          CF_OK);
      params.epsilon = 0.0f;
      params.median_size = 5;
      params.wmedian_size = size;
      params.wmedian_min_width = 60;
      scene_synth (&sc, 160, 128, motions[m], 4, &params);
      check_filtered_plans (&sc, &params, label, TRUE);
      g_free (label);
      scene_clear (&sc);
    }
  }
}

GST_END_TEST;

/* The kernels of one precision still agree bit for bit with the filter
 * between their warps (STEPS, FUSED, BLOCKED in fp32; FUSED, BLOCKED in
 * fp16), warm started too; a plan reused, and switched between median 5,
 * 0 and 5, gives each setting's bits again; median 0 through a plan that
 * has filtered is the unfiltered flow. */
GST_START_TEST (test_median_kernels_identical_and_plan_reuse)
{
  cf_tvl1_params params;
  scene sc;
  cf_cuda_tvl1_plan *plan = NULL;
  cf_flow *fused, *other, *plain;
  int p;

  cf_tvl1_params_init_ipol (&params);
  params.warps = 3;
  params.max_iterations = 10;
  params.epsilon = 0.0f;
  params.median_size = 5;
  scene_synth (&sc, 131, 77, CF_SYNTH_ROTATION_ZOOM, 3, &params);

  for (p = 0; p < 2; p++) {
    const cf_precision precision = p ? CF_PRECISION_FP16 : CF_PRECISION_FP32;
    const char *name = p ? "fp16" : "fp32";
    gchar *what;

    fused = gpu_run_at (&sc, precision, CF_TVL1_KERNEL_FUSED, &params, NULL,
        NULL);
    fail_unless (isfinite (fused->u[0]) && isfinite (fused->v[0]));
    other = gpu_run_at (&sc, precision, CF_TVL1_KERNEL_BLOCKED, &params,
        NULL, NULL);
    what = g_strdup_printf ("%s median 5: BLOCKED vs FUSED", name);
    cf_test_assert_flow_identical (other, fused, what);
    g_free (what);
    cf_flow_free (other);
    if (!p) {
      other = gpu_run (&sc, CF_TVL1_KERNEL_STEPS, &params, NULL, NULL);
      cf_test_assert_flow_identical (other, fused,
          "fp32 median 5: STEPS vs FUSED");
      cf_flow_free (other);
    }

    /* one plan: median 5, 0, 5 */
    fail_unless_equals_int (cf_cuda_tvl1_plan_new (sc.width, sc.height,
            precision, CF_TVL1_KERNEL_BLOCKED, &plan), CF_OK);
    other = plan_run (plan, &sc, &params, NULL, NULL);
    cf_test_assert_flow_identical (other, fused, "median 5, plan run once");
    cf_flow_free (other);
    params.median_size = 0;
    other = plan_run (plan, &sc, &params, NULL, NULL);
    plain = gpu_run_at (&sc, precision, CF_TVL1_KERNEL_BLOCKED, &params,
        NULL, NULL);
    cf_test_assert_flow_identical (other, plain,
        "median 0 through a plan that filtered");
    cf_flow_free (other);
    params.median_size = 5;
    other = plan_run (plan, &sc, &params, NULL, NULL);
    cf_test_assert_flow_identical (other, fused, "median 5 after 0");
    cf_flow_free (other);
    /* warm start, FUSED's ε stopping, through the same plan */
    params.epsilon = 0.02f;
    params.max_iterations = 300;
    cf_flow_free (fused);
    fused = gpu_run_at (&sc, precision, CF_TVL1_KERNEL_FUSED, &params,
        sc.truth, NULL);
    other = plan_run (plan, &sc, &params, sc.truth, NULL);
    cf_test_assert_flow_identical (other, fused,
        "median 5, eps 0.02, warm start: BLOCKED plan vs FUSED");
    cf_flow_free (other);
    params.epsilon = 0.0f;
    params.max_iterations = 10;

    cf_cuda_tvl1_plan_free (plan);
    cf_flow_free (fused);
    cf_flow_free (plain);
  }
  scene_clear (&sc);
}

GST_END_TEST;

/* fp16 with the filter against fp32 with it, as test_fp16_close_to_fp32
 * compares them without: the filter runs on fp16's fp32 flow. */
GST_START_TEST (test_fp16_median_close_to_fp32)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM, CF_SYNTH_SMOOTH
  };
  int m, preset;

  for (preset = 0; preset < 2; preset++) {
    for (m = 0; m < (int) G_N_ELEMENTS (motions); m++) {
      cf_tvl1_params params;
      scene sc;
      cf_flow *f32, *f16;
      double e32, e16, mean = 0.0, max = 0.0;

      cf_tvl1_params_init_ipol (&params);
      params.median_size = 5;
      if (preset == 0) {
        params.warps = 1;
        params.max_iterations = 10;
        params.epsilon = 0.0f;
      }
      scene_synth (&sc, 320, 241, motions[m], preset == 0 ? 3 : 4, &params);
      f32 = gpu_run_at (&sc, CF_PRECISION_FP32, CF_TVL1_KERNEL_AUTO, &params,
          NULL, NULL);
      f16 = gpu_run_at (&sc, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, &params,
          NULL, NULL);
      e32 = epe_of (f32, sc.truth);
      e16 = epe_of (f16, sc.truth);
      fail_unless_equals_int (cf_flow_diff (f16, f32, &mean, &max), CF_OK);
      GST_INFO ("median 5, %s motion %d: EPE fp32 %.5f, fp16 %.5f; mean "
          "|diff| %.5f px, max %.4f", preset == 0 ? "romera" : "ipol",
          motions[m], e32, e16, mean, max);
      fail_unless (fabs (e16 - e32) <= FP16_EPE_ABS + FP16_EPE_REL * e32,
          "motion %d: fp16 EPE %g vs fp32 %g", motions[m], e16, e32);
      fail_unless (mean <= FP16_MEAN_TOL, "motion %d: mean |fp16 − fp32| "
          "%g px", motions[m], mean);
      cf_flow_free (f32);
      cf_flow_free (f16);
      scene_clear (&sc);
    }
  }
}

GST_END_TEST;

/* ----------------------------------------------------------------- fp16 */

/* fp16 against fp32 on the synthetic pairs, romera-style (3 levels x 1
 * warp x 10 iterations, BLOCKED) and IPOL-style (4 levels x 5 warps, ε
 * 0.01, FUSED): EPE against ground truth and the flows themselves. */
GST_START_TEST (test_fp16_close_to_fp32)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM, CF_SYNTH_SMOOTH
  };
  int m, preset;

  for (preset = 0; preset < 2; preset++) {
    for (m = 0; m < (int) G_N_ELEMENTS (motions); m++) {
      cf_tvl1_params params;
      scene sc;
      cf_flow *f32, *f16;
      double e32, e16, mean = 0.0, max = 0.0;
      long n32 = -1, n16 = -1;

      cf_tvl1_params_init_ipol (&params);
      if (preset == 0) {
        params.warps = 1;
        params.max_iterations = 10;
        params.epsilon = 0.0f;
      }
      scene_synth (&sc, 320, 241, motions[m], preset == 0 ? 3 : 4, &params);
      f32 = gpu_run_at (&sc, CF_PRECISION_FP32, CF_TVL1_KERNEL_AUTO, &params,
          NULL, &n32);
      f16 = gpu_run_at (&sc, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, &params,
          NULL, &n16);
      e32 = epe_of (f32, sc.truth);
      e16 = epe_of (f16, sc.truth);
      fail_unless_equals_int (cf_flow_diff (f16, f32, &mean, &max), CF_OK);
      GST_INFO ("%s motion %d: EPE fp32 %.5f (%ld it), fp16 %.5f (%ld it); "
          "mean |diff| %.5f px, max %.4f", preset == 0 ? "romera" : "ipol",
          motions[m], e32, n32, e16, n16, mean, max);
      /* the IPOL-style run finds every motion; the romera one does not
       * finish the 3° rotation + 3 % zoom (EPE ~3.3) at this size, which
       * still compares the two precisions */
      fail_unless (e32 < (preset == 1 ? 0.5 : 5.0), "fp32 EPE %g", e32);
      fail_unless (fabs (e16 - e32) <= FP16_EPE_ABS + FP16_EPE_REL * e32,
          "motion %d: fp16 EPE %g vs fp32 %g", motions[m], e16, e32);
      fail_unless (mean <= FP16_MEAN_TOL, "motion %d: mean |fp16 − fp32| "
          "%g px", motions[m], mean);
      if (preset == 1)
        fail_unless (n16 > sc.c0->n_levels * params.warps &&
            n16 < sc.c0->n_levels * params.warps * params.max_iterations,
            "fp16 ran %ld iterations", n16);
      cf_flow_free (f32);
      cf_flow_free (f16);
      scene_clear (&sc);
    }
  }
}

GST_END_TEST;

/* fp16 ε stopping: a huge ε stops every warp after one iteration whose P
 * step still runs (the same bits as max_iterations = 1), in FUSED and in
 * BLOCKED (which runs FUSED when ε > 0); ε = 0 counts max_iterations.
 * Then warm start, plan reuse with buffers swapped by BLOCKED, and a
 * second pair through the same plan. */
GST_START_TEST (test_fp16_epsilon_warm_start_and_reuse)
{
  static const cf_tvl1_kernel kernels[] = { CF_TVL1_KERNEL_FUSED,
    CF_TVL1_KERNEL_BLOCKED
  };
  cf_tvl1_params params;
  scene sc, other;
  cf_cuda_tvl1_plan *plan = NULL;
  cf_flow *a, *b, *c, *d;
  long n = -1;
  int k;

  cf_tvl1_params_init_ipol (&params);
  params.warps = 3;
  scene_synth (&sc, 64, 48, CF_SYNTH_TRANSLATION, 3, &params);
  for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
    params.epsilon = 1e3f;
    params.max_iterations = 300;
    a = gpu_run_at (&sc, CF_PRECISION_FP16, kernels[k], &params, NULL, &n);
    fail_unless_equals_int (n, sc.c0->n_levels * params.warps);
    params.epsilon = 0.0f;
    params.max_iterations = 1;
    b = gpu_run_at (&sc, CF_PRECISION_FP16, kernels[k], &params, NULL, &n);
    fail_unless_equals_int (n, sc.c0->n_levels * params.warps);
    cf_test_assert_flow_identical (a, b, "fp16 huge eps vs one iteration");
    params.max_iterations = 7;
    c = gpu_run_at (&sc, CF_PRECISION_FP16, kernels[k], &params, NULL, &n);
    fail_unless_equals_int (n, sc.c0->n_levels * params.warps * 7);
    cf_flow_free (a);
    cf_flow_free (b);
    cf_flow_free (c);
  }
  scene_clear (&sc);

  /* warm start from the truth: already right, stays close to it */
  cf_tvl1_params_init_ipol (&params);
  params.warps = 1;
  params.max_iterations = 10;
  params.epsilon = 0.0f;
  scene_synth (&sc, 160, 120, CF_SYNTH_ROTATION_ZOOM, 3, &params);
  scene_synth (&other, 160, 120, CF_SYNTH_SMOOTH, 3, &params);
  a = gpu_run_at (&sc, CF_PRECISION_FP32, CF_TVL1_KERNEL_AUTO, &params,
      sc.truth, NULL);
  fail_unless_equals_int (cf_cuda_tvl1_plan_new (160, 120, CF_PRECISION_FP16,
          CF_TVL1_KERNEL_AUTO, &plan), CF_OK);
  b = plan_run (plan, &sc, &params, sc.truth, NULL);
  GST_INFO ("warm start EPE fp32 %.5f, fp16 %.5f", epe_of (a, sc.truth),
      epe_of (b, sc.truth));
  fail_unless (fabs (epe_of (b, sc.truth) - epe_of (a, sc.truth)) <=
      FP16_EPE_ABS + FP16_EPE_REL * epe_of (a, sc.truth));
  /* the same plan: a cold run, another pair, the cold run again */
  c = plan_run (plan, &sc, &params, NULL, NULL);
  d = plan_run (plan, &other, &params, NULL, NULL);
  cf_flow_free (d);
  d = plan_run (plan, &sc, &params, NULL, NULL);
  cf_test_assert_flow_identical (d, c, "fp16 plan reused");
  cf_flow_free (d);
  d = gpu_run_at (&sc, CF_PRECISION_FP16, CF_TVL1_KERNEL_FUSED, &params,
      NULL, NULL);
  cf_test_assert_flow_identical (c, d, "fp16 AUTO vs FUSED, romera");
  cf_flow_free (a);
  cf_flow_free (b);
  cf_flow_free (c);
  cf_flow_free (d);
  cf_cuda_tvl1_plan_free (plan);
  scene_clear (&sc);
  scene_clear (&other);
}

GST_END_TEST;

/* ------------------------------------------------------------ Middlebury */

GST_START_TEST (test_middlebury_rubberwhale_matches_cpu)
{
  const char *dir = cf_test_data_dir ();
  gchar *p0, *p1, *pf;

  fail_unless (dir != NULL, "CUDAFLOW_DATA_DIR not set");
  p0 = g_build_filename (dir, "middlebury", "RubberWhale", "frame10.png", NULL);
  p1 = g_build_filename (dir, "middlebury", "RubberWhale", "frame11.png", NULL);
  pf = g_build_filename (dir, "middlebury", "RubberWhale", "flow10.flo", NULL);
  if (!g_file_test (pf, G_FILE_TEST_EXISTS)) {
    fail ("%s missing", pf);
  } else {
    cf_image *f0 = cf_test_read_png_grey (p0), *f1 = cf_test_read_png_grey (p1);
    cf_flow *truth = NULL, *cpu, *gpu;
    cf_tvl1_params params;
    cf_flow_error cpu_err, gpu_err;
    scene sc;
    long n_gpu = -1;

    fail_unless (f0 != NULL && f1 != NULL);
    fail_unless_equals_int (cf_flo_read (pf, &truth, NULL), CF_OK);
    /* IPOL README settings: 5 scales, η 0.5, 5 warps, ε 0.01 */
    cf_tvl1_params_init_ipol (&params);
    scene_from_frames (&sc, f0, f1, truth, 5, &params);
    cpu = cf_flow_new (sc.width, sc.height);
    fail_unless_equals_int (cf_tvl1_flow (sc.c0, sc.c1, &params, 0, cpu),
        CF_OK);
    gpu = gpu_run (&sc, CF_TVL1_KERNEL_AUTO, &params, NULL, &n_gpu);
    assert_flow_mean_close (gpu, cpu, "RubberWhale GPU vs CPU");
    fail_unless_equals_int (cf_flow_compare (cpu, sc.truth, 0, &cpu_err),
        CF_OK);
    fail_unless_equals_int (cf_flow_compare (gpu, sc.truth, 0, &gpu_err),
        CF_OK);
    GST_INFO ("RubberWhale: EPE CPU %.4f, GPU %.4f (%ld iterations)",
        cpu_err.epe, gpu_err.epe, n_gpu);
    fail_unless (fabs (gpu_err.epe - cpu_err.epe) <= EPE_REL_TOL *
        cpu_err.epe, "EPE GPU %.4f, CPU %.4f", gpu_err.epe, cpu_err.epe);
    cf_flow_free (gpu);
    gpu = gpu_run_at (&sc, CF_PRECISION_FP16, CF_TVL1_KERNEL_AUTO, &params,
        NULL, &n_gpu);
    fail_unless_equals_int (cf_flow_compare (gpu, sc.truth, 0, &gpu_err),
        CF_OK);
    GST_INFO ("RubberWhale: EPE GPU fp16 %.4f (%ld iterations)", gpu_err.epe,
        n_gpu);
    fail_unless (fabs (gpu_err.epe - cpu_err.epe) <= FP16_EPE_ABS +
        FP16_EPE_REL * cpu_err.epe, "EPE fp16 %.4f, CPU %.4f", gpu_err.epe,
        cpu_err.epe);
    cf_flow_free (cpu);
    cf_flow_free (gpu);
    scene_clear (&sc);
  }
  g_free (p0);
  g_free (p1);
  g_free (pf);
}

GST_END_TEST;

/* fp16 plans carry the flow to the next finer level with the upsampling
 * kernel, which forms each column's horizontal sums and each output
 * row's y taps once per block: it must give the gathering kernel's bits
 * (the same taps and sums, output by output) at a pyramid step's sizes
 * and at awkward ones (a partial block, one source cell, factors far from
 * 2 and unequal ones, no change of size), and stay near the CPU's
 * cf_flow_resample (the same taps, summed in another order). */
GST_START_TEST (test_fp16_upsampling_identical_to_gather)
{
  static const struct
  {
    int sw, sh, dw, dh;
  } sizes[] = {
    {60, 34, 120, 68}, {480, 270, 960, 540}, {960, 540, 1920, 1080},
    {17, 9, 33, 17}, {5, 3, 64, 40}, {100, 100, 101, 250},
    {40, 23, 40, 23}, {1, 1, 32, 33}, {33, 47, 65, 93},
  };
  int z;

  for (z = 0; z < (int) G_N_ELEMENTS (sizes); z++) {
    const int sw = sizes[z].sw, sh = sizes[z].sh;
    const int dw = sizes[z].dw, dh = sizes[z].dh;
    cf_flow *src = cf_test_random_flow (sw, sh, 31u + z, -20.0f, 20.0f);
    cf_flow *up, *gathered, *cpu = cf_flow_new (dw, dh);
    cf_cuda_flow dsrc, dup, dgather;
    double worst = 0.0;
    int x, y;

    fail_unless (cpu != NULL);
    cf_test_upload_flow (src, &dsrc, stream);
    /* NaN where a kernel writes nothing */
    cf_test_poisoned_flow (dw, dh, &dup, stream);
    cf_test_poisoned_flow (dw, dh, &dgather, stream);
    fail_unless_equals_int (cf_cuda_tvl1_fp16_resample (&dsrc, &dup, 0,
            stream), CF_OK);
    fail_unless_equals_int (cf_cuda_tvl1_fp16_resample (&dsrc, &dgather, 1,
            stream), CF_OK);
    up = cf_test_download_flow (&dup, stream);
    gathered = cf_test_download_flow (&dgather, stream);
    cf_test_assert_flow_identical (up, gathered,
        "upsampling kernel vs gathering kernel");

    fail_unless_equals_int (cf_flow_resample (src, cpu), CF_OK);
    for (y = 0; y < dh; y++)
      for (x = 0; x < dw; x++) {
        const size_t i = x + (size_t) y * cpu->pitch;
        const size_t j = x + (size_t) y * up->pitch;
        const double du = fabs (up->u[j] - cpu->u[i]) /
            (1.0 + fabs (cpu->u[i]));
        const double dv = fabs (up->v[j] - cpu->v[i]) /
            (1.0 + fabs (cpu->v[i]));

        fail_unless (isfinite (up->u[j]) && isfinite (up->v[j]),
            "%dx%d -> %dx%d: (%d, %d) not written", sw, sh, dw, dh, x, y);
        worst = MAX (worst, MAX (du, dv));
      }
    GST_INFO ("%dx%d -> %dx%d: worst relative difference from the CPU %g",
        sw, sh, dw, dh, worst);
    fail_unless (worst < 1e-4, "%dx%d -> %dx%d: %g from the CPU", sw, sh, dw,
        dh, worst);

    fail_unless_equals_int (cf_cuda_tvl1_fp16_resample (NULL, &dup, 0,
            stream), CF_ERROR_INVALID);
    cf_cuda_flow_release (&dsrc);
    cf_cuda_flow_release (&dup);
    cf_cuda_flow_release (&dgather);
    cf_flow_free (src);
    cf_flow_free (up);
    cf_flow_free (gathered);
    cf_flow_free (cpu);
  }
}

GST_END_TEST;

static Suite *
cuda_tvl1_suite (void)
{
  Suite *s = suite_create ("cuda_tvl1");
  TCase *steps = tcase_create ("steps");
  TCase *plans = tcase_create ("plans");
  TCase *data = tcase_create ("middlebury");

  cf_test_suite_add_tcase (s, steps, FALSE);
  tcase_add_checked_fixture (steps, setup, teardown);
  tcase_add_test (steps, test_centered_gradient_matches_cpu);
  tcase_add_test (steps, test_warp_prepare_matches_cpu);
  tcase_add_test (steps, test_brightness_fit_and_apply_match_cpu);
  tcase_add_test (steps, test_threshold_matches_cpu);
  tcase_add_test (steps, test_divergence_matches_cpu);
  tcase_add_test (steps, test_update_u_matches_cpu);
  tcase_add_test (steps, test_forward_gradient_matches_cpu);
  tcase_add_test (steps, test_update_p_matches_cpu);
  tcase_add_test (steps, test_steps_reject_size_mismatch);

  cf_test_suite_add_tcase (s, plans, FALSE);
  /* the CPU reference runs (Middlebury at IPOL defaults) take a while */
  tcase_set_timeout (plans, 300);
  tcase_add_checked_fixture (plans, setup, teardown);
  tcase_add_test (plans, test_fused_identical_to_steps);
  tcase_add_test (plans, test_blocked_identical_to_fused);
  tcase_add_test (plans, test_fp16_blocked_identical_to_fused);
  tcase_add_test (plans, test_blocked_identical_to_fused_640x480);
  tcase_add_test (plans, test_blocked_plan_identical_to_fused);
  tcase_add_test (plans, test_blocked_tile_rows_per_level);
  tcase_add_test (plans, test_fp16_upsampling_identical_to_gather);
  tcase_add_test (plans, test_blocked_iterations_per_level);
  tcase_add_test (plans, test_pdl_follows_the_code_the_device_runs);
  tcase_add_test (plans, test_epsilon_stop_and_iteration_counts);
  tcase_add_test (plans, test_plan_matches_cpu_flow);
  tcase_add_test (plans, test_per_level_schedule_matches_cpu);
  tcase_add_test (plans, test_warm_start_matches_cpu);
  tcase_add_test (plans, test_plan_reuse);
  tcase_add_test (plans, test_plan_rejects_bad_arguments);
  tcase_add_test (plans, test_fp16_close_to_fp32);
  tcase_add_test (plans, test_fp16_epsilon_warm_start_and_reuse);
  tcase_add_test (plans, test_plan_with_median_matches_cpu);
  tcase_add_test (plans, test_plan_with_median_per_level_matches_cpu);
  tcase_add_test (plans, test_plan_with_weighted_median_matches_cpu);
  tcase_add_test (plans, test_plan_with_lambda_per_level_matches_cpu);
  tcase_add_test (plans, test_plan_with_brightness_matches_cpu);
  tcase_add_test (plans, test_plan_with_gradient_blend_matches_cpu);
  tcase_add_test (plans, test_median_kernels_identical_and_plan_reuse);
  tcase_add_test (plans, test_fp16_median_close_to_fp32);

  /* in cuda/tvl1-data, which skips (77) without CUDAFLOW_DATA_DIR */
  cf_test_suite_add_tcase (s, data, TRUE);
  tcase_set_timeout (data, 300);
  tcase_add_checked_fixture (data, setup, teardown);
  tcase_add_test (data, test_middlebury_rubberwhale_matches_cpu);
  return s;
}

int
main (int argc, char **argv)
{
#ifdef CF_TEST_DATA_SUITE
  return cf_test_run_data_suite (argc, argv, "cuda_tvl1", cuda_tvl1_suite,
      TRUE);
#else
  return cf_test_run_gpu_suite (argc, argv, "cuda_tvl1", cuda_tvl1_suite);
#endif
}
