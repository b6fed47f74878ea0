/* gst-cudaflow — GPU CLG vs the CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each single step (derivatives, structure tensor for ρ = 0 and ρ > 0,
 * Jacobi SIMPLE / FUSED / AUTO, add increment) against its common/clg.c
 * twin on tiny, 1-pixel-wide, odd and medium sizes (max |Δ| <= 1e-5 ·
 * max(1, max |ref|); the kernels spell the CPU's fp32 operations in its
 * order, so the expected difference is 0 and any non-zero one is logged),
 * FUSED vs SIMPLE bit for bit at every depth 3 .. 8 and every iteration
 * count up to 3 · 8 + 2, the RMS residual of GPU sweeps falling like the
 * CPU's (printed),
 * full plan runs against cf_clg_flow (mean |Δflow| <= 1e-3 px) with the
 * defaults and the paper's configuration B, warm starts, plan reuse and
 * argument checks. Outputs are poisoned with NaN first. The plan runs read
 * pyramids uploaded from the CPU's, so both solvers see the same bits.
 * fp16 plans (half2 increments): FUSED bit for bit equal to SIMPLE at
 * every depth on sizes around the tile, EPE against ground truth close to
 * fp32's (FP16_EPE_ABS + FP16_EPE_REL · fp32's), warm start, plan reuse
 * and zero sweeps.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/clg.h"
#include "common/metrics.h"
#include "common/pyramid.h"
#include "common/synth.h"
#include "cuda/clg.h"

/* Single steps: the brief's per-step tolerance, relative to the largest
 * reference value (expected: 0, same operations in the same order). */
#define STEP_REL_TOL 1e-5
/* mean |Δflow| of a full GPU run against cf_clg_flow, pixels (the warp
 * and the flow resampling are bit-equal to common/warp.c, so 0 is
 * expected here too; the bar is the project's full-run bar) */
#define FLOW_MEAN_TOL 1e-3
/* every count 1 .. 3 · FUSED_DEPTH_MAX + 2 covers K − 1, K and 3K + 2 for
 * every FUSED depth K */
#define FUSED_DEPTH_MAX CF_CLG_FUSED_DEPTH_MAX
/* the paper's α range on 0..255 intensities is 0.3 .. 325; default 50 */
#define TEST_ALPHA 50.0f
/* fp16 increments: EPE against ground truth may differ from fp32's by
 * this much plus FP16_EPE_REL of it (the bar of tests/check/cuda/hs.c:
 * half keeps 11 significant bits, ~1e-3 px on increments of a pixel) */
#define FP16_EPE_ABS 0.01
#define FP16_EPE_REL 0.05
/* pixels left out at each side when comparing with ground truth */
#define EPE_BORDER 16

/* this suite's tolerance and border for the shared helpers */
#define assert_flow_mean_close(got, ref, what) \
  cf_test_assert_flow_mean_close (got, ref, FLOW_MEAN_TOL, what)
#define epe_of(est, truth) cf_test_flow_epe (est, truth, EPE_BORDER)

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

/* ------------------------------------------------------------ helpers */

/* A synthetic pair (frame t−1, frame t) of 0..255 intensities. */
static void
synth_frames (int w, int h, guint32 seed, cf_image ** f0, cf_image ** f1)
{
  cf_synth_params sp;
  cf_flow *truth = NULL;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  sp.amplitude = 2.0f;
  sp.seed = seed;
  fail_unless_equals_int (cf_synth_pair (w, h, &sp, f0, f1, &truth), CF_OK);
  cf_flow_free (truth);
}

/* Five host planes and the tensor of views on them. */
typedef struct
{
  cf_image *plane[5];
  cf_clg_tensor j;
} host_tensor;

static void
host_tensor_init (host_tensor * t, int w, int h)
{
  int k;

  for (k = 0; k < 5; k++) {
    t->plane[k] = cf_image_new (w, h);
    fail_unless (t->plane[k] != NULL);
  }
  t->j.j11 = cf_image_view (t->plane[0]->data, w, h, t->plane[0]->pitch);
  t->j.j12 = cf_image_view (t->plane[1]->data, w, h, t->plane[1]->pitch);
  t->j.j22 = cf_image_view (t->plane[2]->data, w, h, t->plane[2]->pitch);
  t->j.j13 = cf_image_view (t->plane[3]->data, w, h, t->plane[3]->pitch);
  t->j.j23 = cf_image_view (t->plane[4]->data, w, h, t->plane[4]->pitch);
}

static void
host_tensor_clear (host_tensor * t)
{
  int k;

  for (k = 0; k < 5; k++)
    cf_image_free (t->plane[k]);
}

static cf_cuda_image *
gpu_channel (cf_cuda_clg_tensor * t, int k)
{
  cf_cuda_image *ch[5] = { &t->j11, &t->j12, &t->j22, &t->j13, &t->j23 };

  return ch[k];
}

/* Five poisoned device planes. */
static void
gpu_tensor_poisoned (int w, int h, cf_cuda_clg_tensor * t)
{
  int k;

  for (k = 0; k < 5; k++)
    cf_test_poisoned_image (w, h, gpu_channel (t, k), stream);
}

static void
gpu_tensor_upload (const host_tensor * src, cf_cuda_clg_tensor * t)
{
  int k;

  for (k = 0; k < 5; k++)
    cf_test_upload_image (src->plane[k], gpu_channel (t, k), stream);
}

static void
gpu_tensor_release (cf_cuda_clg_tensor * t)
{
  int k;

  for (k = 0; k < 5; k++)
    cf_cuda_image_release (gpu_channel (t, k));
}

static void
assert_tensor_close (cf_cuda_clg_tensor * gpu, const host_tensor * ref,
    const char *what)
{
  static const char *names[5] = { "J11", "J12", "J22", "J13", "J23" };
  char label[96];
  int k;

  for (k = 0; k < 5; k++) {
    g_snprintf (label, sizeof (label), "%s %s", what, names[k]);
    cf_test_assert_cuda_image_close (gpu_channel (gpu, k), ref->plane[k],
        STEP_REL_TOL, label, stream);
  }
}

/* J_ρ of a synthetic pair, computed on the CPU (the Jacobi tests' input). */
static void
cpu_tensor_of_pair (int w, int h, guint32 seed, float rho, host_tensor * t)
{
  cf_image *f0, *f1, *fx = cf_image_new (w, h), *fy = cf_image_new (w, h);
  cf_image *ft = cf_image_new (w, h), *tmp = cf_image_new (w, h);

  synth_frames (w, h, seed, &f0, &f1);
  host_tensor_init (t, w, h);
  fail_unless_equals_int (cf_clg_derivatives (f0, f1, fx, fy, ft), CF_OK);
  fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, rho, tmp,
          &t->j), CF_OK);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_image_free (fx);
  cf_image_free (fy);
  cf_image_free (ft);
  cf_image_free (tmp);
}

/* ------------------------------------------------------- single steps */

GST_START_TEST (test_derivatives_match_cpu)
{
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_image *f0, *f1, *fx = cf_image_new (w, h), *fy = cf_image_new (w, h);
    cf_image *ft = cf_image_new (w, h);
    cf_cuda_image g0, g1, gx, gy, gt;

    synth_frames (w, h, 1 + i, &f0, &f1);
    fail_unless_equals_int (cf_clg_derivatives (f0, f1, fx, fy, ft), CF_OK);
    cf_test_upload_image (f0, &g0, stream);
    cf_test_upload_image (f1, &g1, stream);
    cf_test_poisoned_image (w, h, &gx, stream);
    cf_test_poisoned_image (w, h, &gy, stream);
    cf_test_poisoned_image (w, h, &gt, stream);
    fail_unless_equals_int (cf_cuda_clg_derivatives (&g0, &g1, &gx, &gy, &gt,
            stream), CF_OK);
    cf_test_assert_cuda_image_close (&gx, fx, STEP_REL_TOL, "f_x", stream);
    cf_test_assert_cuda_image_close (&gy, fy, STEP_REL_TOL, "f_y", stream);
    cf_test_assert_cuda_image_close (&gt, ft, STEP_REL_TOL, "f_t", stream);

    cf_cuda_image_release (&g0);
    cf_cuda_image_release (&g1);
    cf_cuda_image_release (&gx);
    cf_cuda_image_release (&gy);
    cf_cuda_image_release (&gt);
    cf_image_free (f0);
    cf_image_free (f1);
    cf_image_free (fx);
    cf_image_free (fy);
    cf_image_free (ft);
  }
}

GST_END_TEST;

/* ρ = 0 (J_0, no smoothing), the default 2.5 (radius 10, wider than the
 * small images: reflected more than once) and 12 (radius 48 > 37 and
 * > 29) on the small sizes. */
GST_START_TEST (test_structure_tensor_matches_cpu)
{
  static const float rhos[] = { 0.0f, 2.5f, 12.0f };
  int i, r;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_image *f0, *f1, *fx = cf_image_new (w, h), *fy = cf_image_new (w, h);
    cf_image *ft = cf_image_new (w, h), *tmp = cf_image_new (w, h);
    cf_cuda_image gx, gy, gt;

    synth_frames (w, h, 21 + i, &f0, &f1);
    fail_unless_equals_int (cf_clg_derivatives (f0, f1, fx, fy, ft), CF_OK);
    cf_test_upload_image (fx, &gx, stream);
    cf_test_upload_image (fy, &gy, stream);
    cf_test_upload_image (ft, &gt, stream);
    for (r = 0; r < (int) G_N_ELEMENTS (rhos); r++) {
      host_tensor ref;
      cf_cuda_clg_tensor gtmp, gj;
      char what[64];

      if (rhos[r] > 10.0f && w * h > 10000)
        continue;
      host_tensor_init (&ref, w, h);
      fail_unless_equals_int (cf_clg_structure_tensor (fx, fy, ft, rhos[r],
              tmp, &ref.j), CF_OK);
      gpu_tensor_poisoned (w, h, &gtmp);
      gpu_tensor_poisoned (w, h, &gj);
      fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &gy, &gt,
              rhos[r], &gtmp, &gj, stream), CF_OK);
      g_snprintf (what, sizeof (what), "tensor rho %g", rhos[r]);
      assert_tensor_close (&gj, &ref, what);
      gpu_tensor_release (&gtmp);
      gpu_tensor_release (&gj);
      host_tensor_clear (&ref);
    }
    cf_cuda_image_release (&gx);
    cf_cuda_image_release (&gy);
    cf_cuda_image_release (&gt);
    cf_image_free (f0);
    cf_image_free (f1);
    cf_image_free (fx);
    cf_image_free (fy);
    cf_image_free (ft);
    cf_image_free (tmp);
  }
}

GST_END_TEST;

GST_START_TEST (test_structure_tensor_rejects_bad_arguments)
{
  cf_cuda_image gx, gy, gt, small;
  cf_cuda_clg_tensor gtmp, gj, alias;

  cf_test_poisoned_image (9, 7, &gx, stream);
  cf_test_poisoned_image (9, 7, &gy, stream);
  cf_test_poisoned_image (9, 7, &gt, stream);
  cf_test_poisoned_image (8, 7, &small, stream);
  gpu_tensor_poisoned (9, 7, &gtmp);
  gpu_tensor_poisoned (9, 7, &gj);
  fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &gy, &gt, -0.5f,
          &gtmp, &gj, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &gy, &gt, 50.5f,
          &gtmp, &gj, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &gy, &gt, NAN,
          &gtmp, &gj, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &small, &gt,
          1.0f, &gtmp, &gj, stream), CF_ERROR_INVALID);
  /* scratch shared with the output, output on an input */
  fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &gy, &gt, 1.0f,
          &gj, &gj, stream), CF_ERROR_INVALID);
  alias = gj;
  alias.j13 = gx;
  fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &gy, &gt, 0.0f,
          NULL, &alias, stream), CF_ERROR_INVALID);
  /* ρ = 0 needs no scratch; ρ = 50 (radius 200) is accepted */
  fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &gy, &gt, 0.0f,
          NULL, &gj, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_clg_structure_tensor (&gx, &gy, &gt, 50.0f,
          &gtmp, &gj, stream), CF_OK);
  sync_stream ();
  cf_cuda_image_release (&gx);
  cf_cuda_image_release (&gy);
  cf_cuda_image_release (&gt);
  cf_cuda_image_release (&small);
  gpu_tensor_release (&gtmp);
  gpu_tensor_release (&gj);
}

GST_END_TEST;

GST_START_TEST (test_jacobi_matches_cpu)
{
  static const float rhos[] = { 0.0f, 2.5f };
  static const cf_clg_kernel kernels[] = { CF_CLG_KERNEL_SIMPLE,
    CF_CLG_KERNEL_FUSED, CF_CLG_KERNEL_AUTO
  };
  static const int counts[] = { 1, 7 };
  int i, r, k, c, n;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_flow *d0 = cf_test_random_flow (w, h, 7 + i, -2.0f, 2.0f);

    for (r = 0; r < (int) G_N_ELEMENTS (rhos); r++) {
      host_tensor t;
      cf_cuda_clg_tensor gj;

      cpu_tensor_of_pair (w, h, 41 + i, rhos[r], &t);
      gpu_tensor_upload (&t, &gj);
      for (c = 0; c < (int) G_N_ELEMENTS (counts); c++) {
        cf_flow *ref[2];
        int cur = 0;

        ref[0] = cf_flow_copy (d0);
        ref[1] = cf_flow_new (w, h);
        for (n = 0; n < counts[c]; n++) {
          fail_unless_equals_int (cf_clg_jacobi (&t.j, TEST_ALPHA, ref[cur],
                  ref[1 - cur]), CF_OK);
          cur = 1 - cur;
        }
        for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
          cf_cuda_flow d, tmp;
          char what[64];

          cf_test_upload_flow (d0, &d, stream);
          cf_test_poisoned_flow (w, h, &tmp, stream);
          fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA,
                  counts[c], kernels[k], 0, &d, &tmp, stream), CF_OK);
          g_snprintf (what, sizeof (what), "%d sweeps, kernel %d, rho %g",
              counts[c], kernels[k], rhos[r]);
          cf_test_assert_cuda_flow_close (&d, ref[cur], STEP_REL_TOL, what,
              stream);
          cf_cuda_flow_release (&d);
          cf_cuda_flow_release (&tmp);
        }
        cf_flow_free (ref[0]);
        cf_flow_free (ref[1]);
      }
      gpu_tensor_release (&gj);
      host_tensor_clear (&t);
    }
    cf_flow_free (d0);
  }
}

GST_END_TEST;

/* Private regions make FUSED exact at every depth 3 .. 8: every count
 * from 1 to 3 · 8 + 2 (so K − 1, K, 3K + 2 and every remainder of every
 * depth), on an odd size spanning several tiles in both directions and on
 * sizes smaller than one tile. */
GST_START_TEST (test_fused_is_bit_identical_to_simple)
{
  static const test_size sizes[] = { {97, 61}, {23, 17}, {1, 1}, {5, 1},
  {1, 6}
  };
  int i, n;

  for (i = 0; i < (int) G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i].width, h = sizes[i].height;
    host_tensor t;
    cf_cuda_clg_tensor gj;
    cf_flow *d0 = cf_test_random_flow (w, h, 211 + i, -2.0f, 2.0f);

    cpu_tensor_of_pair (w, h, 311 + i, 2.5f, &t);
    gpu_tensor_upload (&t, &gj);
    for (n = 1; n <= 3 * FUSED_DEPTH_MAX + 2; n++) {
      cf_cuda_flow ds, ts;
      cf_flow *simple;
      int depth;

      cf_test_upload_flow (d0, &ds, stream);
      cf_test_poisoned_flow (w, h, &ts, stream);
      fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, n,
              CF_CLG_KERNEL_SIMPLE, 0, &ds, &ts, stream), CF_OK);
      simple = cf_test_download_flow (&ds, stream);
      /* 0: the default depth */
      for (depth = CF_CLG_FUSED_DEPTH_MIN - 1; depth <= FUSED_DEPTH_MAX;
          depth++) {
        int dd = depth < CF_CLG_FUSED_DEPTH_MIN ? 0 : depth;
        cf_cuda_flow df, tf;
        cf_flow *fused;
        char what[64];

        cf_test_upload_flow (d0, &df, stream);
        cf_test_poisoned_flow (w, h, &tf, stream);
        fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, n,
                CF_CLG_KERNEL_FUSED, dd, &df, &tf, stream), CF_OK);
        fused = cf_test_download_flow (&df, stream);
        /* no NaN left from the poisoned buffers either */
        fail_unless (isfinite (fused->u[0]) && isfinite (fused->v[0]) &&
            isfinite (fused->u[(size_t) (h - 1) * fused->pitch + w - 1]));
        g_snprintf (what, sizeof (what), "FUSED depth %d vs SIMPLE, %d "
            "sweeps", dd, n);
        cf_test_assert_flow_identical (fused, simple, what);
        cf_flow_free (fused);
        cf_cuda_flow_release (&df);
        cf_cuda_flow_release (&tf);
      }
      cf_flow_free (simple);
      cf_cuda_flow_release (&ds);
      cf_cuda_flow_release (&ts);
    }
    gpu_tensor_release (&gj);
    host_tensor_clear (&t);
    cf_flow_free (d0);
  }
}

GST_END_TEST;

GST_START_TEST (test_jacobi_zero_iterations_and_bad_arguments)
{
  host_tensor t;
  cf_cuda_clg_tensor gj;
  cf_cuda_flow d, tmp, before;
  cf_flow *d0 = cf_test_random_flow (9, 7, 5, -1.0f, 1.0f), *got;

  cpu_tensor_of_pair (9, 7, 3, 2.5f, &t);
  gpu_tensor_upload (&t, &gj);
  cf_test_upload_flow (d0, &d, stream);
  cf_test_poisoned_flow (9, 7, &tmp, stream);
  before = d;
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, 0,
          CF_CLG_KERNEL_FUSED, 0, &d, &tmp, stream), CF_OK);
  fail_unless (d.u == before.u);
  got = cf_test_download_flow (&d, stream);
  cf_test_assert_flow_identical (got, d0, "zero iterations");
  cf_flow_free (got);
  /* in place, α <= 0, negative count, unknown kernel: rejected */
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, 1,
          CF_CLG_KERNEL_SIMPLE, 0, &d, &d, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, 0.0f, 1,
          CF_CLG_KERNEL_SIMPLE, 0, &d, &tmp, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, -1,
          CF_CLG_KERNEL_SIMPLE, 0, &d, &tmp, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, 1,
          (cf_clg_kernel) 9, 0, &d, &tmp, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_jacobi (NULL, TEST_ALPHA, 1,
          CF_CLG_KERNEL_SIMPLE, 0, &d, &tmp, stream), CF_ERROR_INVALID);
  /* depths outside 0, 3 .. 8, also with SIMPLE */
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, 1,
          CF_CLG_KERNEL_FUSED, CF_CLG_FUSED_DEPTH_MIN - 1, &d, &tmp, stream),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, 1,
          CF_CLG_KERNEL_FUSED, CF_CLG_FUSED_DEPTH_MAX + 1, &d, &tmp, stream),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, 1,
          CF_CLG_KERNEL_SIMPLE, -1, &d, &tmp, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, TEST_ALPHA, 1,
          CF_CLG_KERNEL_AUTO, 1, &d, &tmp, stream), CF_ERROR_INVALID);
  cf_cuda_flow_release (&d);
  cf_cuda_flow_release (&tmp);
  gpu_tensor_release (&gj);
  host_tensor_clear (&t);
  cf_flow_free (d0);
}

GST_END_TEST;

/* Convergence check: the RMS residual (cf_clg_residual_rms) of the GPU
 * increment after 0, 10, 50, 200 and 1000 sweeps from zero, on a
 * synthetic pair's J_ρ (ρ 2.5) at an odd size spanning many tiles, falls
 * at every step and equals the CPU Jacobi's within STEP_REL_TOL relative
 * (the same bits are expected: equal residuals are logged as such);
 * SIMPLE, FUSED at the default depth and at the extreme depths, α 50
 * (default) and 325 (the paper's 5e-3). */
GST_START_TEST (test_residual_falls_like_cpu)
{
  static const int counts[] = { 0, 10, 50, 200, 1000 };
  static const float alphas[] = { 50.0f, 325.0f };
  static const struct
  {
    cf_clg_kernel kernel;
    int depth;
  } variants[] = { {CF_CLG_KERNEL_SIMPLE, 0}, {CF_CLG_KERNEL_FUSED, 0},
  {CF_CLG_KERNEL_FUSED, CF_CLG_FUSED_DEPTH_MIN},
  {CF_CLG_KERNEL_FUSED, CF_CLG_FUSED_DEPTH_MAX}
  };
  const int w = 301, h = 203;
  host_tensor t;
  cf_cuda_clg_tensor gj;
  double cpu[G_N_ELEMENTS (counts)], gpu[G_N_ELEMENTS (counts)];
  int a, v, i, n;

  cpu_tensor_of_pair (w, h, 77, 2.5f, &t);
  gpu_tensor_upload (&t, &gj);
  for (a = 0; a < (int) G_N_ELEMENTS (alphas); a++) {
    cf_flow *ref[2] = { cf_flow_new (w, h), cf_flow_new (w, h) };
    GString *line = g_string_new (NULL);
    int cur = 0;

    /* the CPU sequence */
    cf_flow_fill (ref[0], 0.0f, 0.0f);
    for (i = 0, n = 0; i < (int) G_N_ELEMENTS (counts); i++) {
      for (; n < counts[i]; n++) {
        fail_unless_equals_int (cf_clg_jacobi (&t.j, alphas[a], ref[cur],
                ref[1 - cur]), CF_OK);
        cur = 1 - cur;
      }
      fail_unless_equals_int (cf_clg_residual_rms (&t.j, alphas[a],
              ref[cur], &cpu[i]), CF_OK);
      g_string_append_printf (line, "%s%d: %.4g", i ? ", " : "", counts[i],
          cpu[i]);
    }
    g_print ("CLG residual RMS (CPU, %dx%d, rho 2.5, alpha %g) after sweeps "
        "%s\n", w, h, alphas[a], line->str);

    for (v = 0; v < (int) G_N_ELEMENTS (variants); v++) {
      cf_cuda_flow d, tmp;

      g_string_truncate (line, 0);
      cf_test_poisoned_flow (w, h, &d, stream);
      cf_test_poisoned_flow (w, h, &tmp, stream);
      fail_unless_equals_int (cf_cuda_flow_fill (&d, 0.0f, 0.0f, stream),
          CF_OK);
      for (i = 0, n = 0; i < (int) G_N_ELEMENTS (counts); i++) {
        cf_flow *got;

        /* the sweeps since the last sample, continuing from d */
        fail_unless_equals_int (cf_cuda_clg_jacobi (&gj, alphas[a],
                counts[i] - n, variants[v].kernel, variants[v].depth, &d,
                &tmp, stream), CF_OK);
        n = counts[i];
        got = cf_test_download_flow (&d, stream);
        fail_unless_equals_int (cf_clg_residual_rms (&t.j, alphas[a], got,
                &gpu[i]), CF_OK);
        cf_flow_free (got);
        g_string_append_printf (line, "%s%d: %.4g%s", i ? ", " : "",
            counts[i], gpu[i], gpu[i] == cpu[i] ? " (= CPU)" : " (!= CPU)");
        fail_unless (fabs (gpu[i] - cpu[i]) <= STEP_REL_TOL * cpu[i],
            "alpha %g, kernel %d, depth %d, %d sweeps: GPU residual %g, CPU "
            "%g", alphas[a], variants[v].kernel, variants[v].depth,
            counts[i], gpu[i], cpu[i]);
        if (i > 0)
          fail_unless (gpu[i] < gpu[i - 1], "alpha %g, kernel %d, depth %d: "
              "%d sweeps %g >= %d sweeps %g", alphas[a], variants[v].kernel,
              variants[v].depth, counts[i], gpu[i], counts[i - 1],
              gpu[i - 1]);
      }
      g_print ("CLG residual RMS (GPU %s depth %d, %dx%d, rho 2.5, alpha %g) "
          "after sweeps %s\n", variants[v].kernel == CF_CLG_KERNEL_SIMPLE ?
          "SIMPLE" : "FUSED", variants[v].depth, w, h, alphas[a], line->str);
      cf_cuda_flow_release (&d);
      cf_cuda_flow_release (&tmp);
    }
    g_string_free (line, TRUE);
    cf_flow_free (ref[0]);
    cf_flow_free (ref[1]);
  }
  gpu_tensor_release (&gj);
  host_tensor_clear (&t);
}

GST_END_TEST;

GST_START_TEST (test_add_increment_matches_cpu)
{
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (step_sizes); i++) {
    int w = step_sizes[i].width, h = step_sizes[i].height;
    cf_flow *d = cf_test_random_flow (w, h, 401 + i, -2.0f, 2.0f);
    cf_flow *u = cf_test_random_flow (w, h, 501 + i, -30.0f, 30.0f);
    cf_flow *ref = cf_flow_new (w, h);
    cf_cuda_flow gd, gu, gout;

    cf_test_upload_flow (d, &gd, stream);
    cf_test_upload_flow (u, &gu, stream);
    cf_test_poisoned_flow (w, h, &gout, stream);
    fail_unless_equals_int (cf_clg_add_increment (u, d, ref), CF_OK);
    fail_unless_equals_int (cf_cuda_clg_add_increment (&gu, &gd, &gout,
            stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gout, ref, STEP_REL_TOL, "add increment",
        stream);
    /* in place, as the CPU allows */
    fail_unless_equals_int (cf_cuda_clg_add_increment (&gu, &gd, &gu,
            stream), CF_OK);
    cf_test_assert_cuda_flow_close (&gu, ref, STEP_REL_TOL,
        "add increment in place", stream);
    cf_cuda_flow_release (&gd);
    cf_cuda_flow_release (&gu);
    cf_cuda_flow_release (&gout);
    cf_flow_free (d);
    cf_flow_free (u);
    cf_flow_free (ref);
  }
}

GST_END_TEST;

/* ---------------------------------------------------------- full runs */

/* A synthetic pair with CPU pyramids and GPU pyramids holding the same
 * levels (uploaded, not rebuilt: the solvers are compared here, not the
 * pyramids). */
typedef struct
{
  int width, height;
  cf_image *f0, *f1;
  cf_flow *truth;
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

static void
scene_make (scene * sc, int w, int h, cf_synth_motion motion, int levels,
    const cf_clg_params * params)
{
  cf_synth_params sp;
  cf_pyramid_params pp;

  memset (sc, 0, sizeof (*sc));
  sc->width = w;
  sc->height = h;
  cf_synth_params_init (&sp);
  sp.motion = motion;
  if (motion == CF_SYNTH_ROTATION_ZOOM) {
    sp.angle = 2.0f;
    sp.zoom = 1.02f;
  } else if (motion == CF_SYNTH_SMOOTH) {
    sp.amplitude = 3.0f;
  }
  fail_unless_equals_int (cf_synth_pair (w, h, &sp, &sc->f0, &sc->f1,
          &sc->truth), CF_OK);
  cf_pyramid_params_init (&pp);
  pp.max_levels = levels;
  cf_clg_prepare_pyramid_params (params, &pp);
  sc->c0 = cf_pyramid_new (w, h, &pp);
  sc->c1 = cf_pyramid_new (w, h, &pp);
  fail_unless (sc->c0 != NULL && sc->c1 != NULL);
  fail_unless_equals_int (sc->c0->n_levels, levels);
  fail_unless_equals_int (cf_pyramid_build (sc->c0, sc->f0, &pp), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (sc->c1, sc->f1, &pp), CF_OK);
  gpu_pyramid_from (sc->c0, w, h, &pp, &sc->g0);
  gpu_pyramid_from (sc->c1, w, h, &pp, &sc->g1);
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

/* cf_clg_flow on the scene; @initial (may be NULL) is the warm start. */
static cf_flow *
cpu_run (const scene * sc, const cf_clg_params * params,
    const cf_flow * initial)
{
  cf_flow *flow = initial != NULL ? cf_flow_copy (initial) :
      cf_flow_new (sc->width, sc->height);

  fail_unless (flow != NULL);
  fail_unless_equals_int (cf_clg_flow (sc->c0, sc->c1, params,
          initial != NULL, flow), CF_OK);
  return flow;
}

/* One GPU run with a fresh plan of @precision and FUSED depth @depth (0:
 * default) into a host flow; @initial (host) is the warm start when not
 * NULL. */
static cf_flow *
gpu_run_prec (const scene * sc, cf_precision precision, cf_clg_kernel kernel,
    int depth, const cf_clg_params * params, const cf_flow * initial)
{
  cf_cuda_clg_plan *plan = NULL;
  cf_cuda_flow flow;
  cf_flow *out;

  fail_unless_equals_int (cf_cuda_clg_plan_new (sc->width, sc->height,
          precision, kernel, &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_clg_plan_set_fused_depth (plan, depth),
      CF_OK);
  if (initial != NULL)
    cf_test_upload_flow (initial, &flow, stream);
  else
    cf_test_poisoned_flow (sc->width, sc->height, &flow, stream);
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &sc->g0, &sc->g1,
          params, initial != NULL, &flow, stream), CF_OK);
  out = cf_test_download_flow (&flow, stream);
  cf_cuda_flow_release (&flow);
  cf_cuda_clg_plan_free (plan);
  return out;
}

static cf_flow *
gpu_run_depth (const scene * sc, cf_clg_kernel kernel, int depth,
    const cf_clg_params * params, const cf_flow * initial)
{
  return gpu_run_prec (sc, CF_PRECISION_FP32, kernel, depth, params,
      initial);
}

static cf_flow *
gpu_run (const scene * sc, cf_clg_kernel kernel, const cf_clg_params * params,
    const cf_flow * initial)
{
  return gpu_run_depth (sc, kernel, 0, params, initial);
}

/* A cold run of an existing @plan into @flow, downloaded. */
static cf_flow *
plan_run (cf_cuda_clg_plan * plan, const scene * sc,
    const cf_clg_params * params, cf_cuda_flow * flow)
{
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &sc->g0, &sc->g1,
          params, 0, flow, stream), CF_OK);
  return cf_test_download_flow (flow, stream);
}

/* Two runs of @plan, @flow poisoned in between: the first result, after
 * checking that the second holds the same bits. */
static cf_flow *
plan_run_twice (cf_cuda_clg_plan * plan, const scene * sc,
    const cf_clg_params * params, cf_cuda_flow * flow, const char *what)
{
  cf_flow *first = plan_run (plan, sc, params, flow), *again;

  fail_unless_equals_int (cf_cuda_flow_fill (flow, NAN, NAN, stream), CF_OK);
  again = plan_run (plan, sc, params, flow);
  cf_test_assert_flow_identical (again, first, what);
  cf_flow_free (again);
  return first;
}

static void
assert_fp16_epe_close (double e16, double e32, const char *what)
{
  fail_unless (fabs (e16 - e32) <= FP16_EPE_ABS + FP16_EPE_REL * e32,
      "%s: fp16 EPE %g vs fp32 %g", what, e16, e32);
}

/* 160x128 keeps 4 levels above the pyramid's 16-pixel minimum (20x16). */
#define SCENE_W 160
#define SCENE_H 128
#define SCENE_LEVELS 4

GST_START_TEST (test_plan_matches_cpu_flow)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM
  };
  static const cf_clg_kernel kernels[] = { CF_CLG_KERNEL_SIMPLE,
    CF_CLG_KERNEL_FUSED
  };
  int m, cfg, k;

  for (m = 0; m < (int) G_N_ELEMENTS (motions); m++) {
    /* cfg 0: the defaults (200 sweeps everywhere); 1: configuration B */
    for (cfg = 0; cfg < 2; cfg++) {
      cf_clg_params params;
      scene sc;
      cf_flow *ref;

      cf_clg_params_init (&params);
      if (cfg == 1)
        fail_unless_equals_int (cf_clg_parse_iterations_per_level (&params,
                "60,120,180,240", NULL), CF_OK);
      scene_make (&sc, SCENE_W, SCENE_H, motions[m], SCENE_LEVELS, &params);
      ref = cpu_run (&sc, &params, NULL);
      for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
        cf_flow *got = gpu_run (&sc, kernels[k], &params, NULL);
        char what[80];

        g_snprintf (what, sizeof (what), "plan vs cf_clg_flow, motion %d, "
            "%s, kernel %d", motions[m], cfg ? "config B" : "defaults",
            kernels[k]);
        assert_flow_mean_close (got, ref, what);
        cf_flow_free (got);
      }
      cf_flow_free (ref);
      scene_clear (&sc);
    }
  }
}

GST_END_TEST;

/* ρ = 0 and a count that is no multiple of any depth, through the plan
 * (first sweeps start from zero without reading, graphs replay). */
GST_START_TEST (test_plan_rho_zero_matches_cpu_flow)
{
  cf_clg_params params;
  scene sc;
  cf_flow *ref, *got;

  cf_clg_params_init (&params);
  params.rho = 0.0f;
  params.iterations = 37;
  scene_make (&sc, 97, 61, CF_SYNTH_SMOOTH, 3, &params);
  ref = cpu_run (&sc, &params, NULL);
  got = gpu_run (&sc, CF_CLG_KERNEL_AUTO, &params, NULL);
  assert_flow_mean_close (got, ref, "plan, rho 0, 37 sweeps");
  cf_flow_free (got);
  cf_flow_free (ref);
  scene_clear (&sc);
}

GST_END_TEST;

/* The plan's whole pipeline is exact between SIMPLE and FUSED too, at
 * every depth (0: the default). */
GST_START_TEST (test_plan_simple_and_fused_identical)
{
  cf_clg_params params;
  scene sc;
  cf_flow *simple, *fused;
  int depth;

  cf_clg_params_init (&params);
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&params,
          "61,121,181,241", NULL), CF_OK);
  scene_make (&sc, SCENE_W, SCENE_H, CF_SYNTH_SMOOTH, SCENE_LEVELS, &params);
  simple = gpu_run (&sc, CF_CLG_KERNEL_SIMPLE, &params, NULL);
  for (depth = CF_CLG_FUSED_DEPTH_MIN - 1; depth <= FUSED_DEPTH_MAX;
      depth++) {
    int dd = depth < CF_CLG_FUSED_DEPTH_MIN ? 0 : depth;
    char what[64];

    fused = gpu_run_depth (&sc, CF_CLG_KERNEL_FUSED, dd, &params, NULL);
    g_snprintf (what, sizeof (what), "plan FUSED depth %d vs SIMPLE", dd);
    cf_test_assert_flow_identical (fused, simple, what);
    cf_flow_free (fused);
  }
  cf_flow_free (simple);
  scene_clear (&sc);
}

GST_END_TEST;

/* One plan, several runs: same input -> same bits; changed iterations or
 * α (graph re-capture) give what a fresh plan gives. */
GST_START_TEST (test_plan_reuse)
{
  cf_clg_params params;
  scene sc;
  cf_cuda_clg_plan *plan = NULL;
  cf_cuda_flow flow;
  cf_flow *first, *again, *fresh;

  cf_clg_params_init (&params);
  params.iterations = 30;
  scene_make (&sc, SCENE_W, SCENE_H, CF_SYNTH_SMOOTH, SCENE_LEVELS, &params);
  fail_unless_equals_int (cf_cuda_clg_plan_new (SCENE_W, SCENE_H,
          CF_PRECISION_FP32, CF_CLG_KERNEL_AUTO, &plan), CF_OK);
  cf_test_poisoned_flow (SCENE_W, SCENE_H, &flow, stream);

  first = plan_run_twice (plan, &sc, &params, &flow, "second run of a plan");

  params.iterations = 13;
  again = plan_run (plan, &sc, &params, &flow);
  fresh = gpu_run (&sc, CF_CLG_KERNEL_AUTO, &params, NULL);
  cf_test_assert_flow_identical (again, fresh,
      "plan after new iteration count");
  cf_flow_free (again);
  cf_flow_free (fresh);

  params.alpha = 120.0f;
  again = plan_run (plan, &sc, &params, &flow);
  fresh = gpu_run (&sc, CF_CLG_KERNEL_AUTO, &params, NULL);
  cf_test_assert_flow_identical (again, fresh, "plan after new alpha");
  cf_flow_free (again);

  /* a new depth re-captures the graphs; the bits stay; bad depths are
   * refused */
  fail_unless_equals_int (cf_cuda_clg_plan_set_fused_depth (plan,
          CF_CLG_FUSED_DEPTH_MAX), CF_OK);
  fail_unless_equals_int (cf_cuda_clg_plan_set_fused_depth (plan, 2),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_plan_set_fused_depth (plan, 9),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_plan_set_fused_depth (NULL, 0),
      CF_ERROR_INVALID);
  again = plan_run (plan, &sc, &params, &flow);
  cf_test_assert_flow_identical (again, fresh, "plan after new depth");
  cf_flow_free (again);
  fail_unless_equals_int (cf_cuda_clg_plan_set_fused_depth (plan, 0), CF_OK);
  again = plan_run (plan, &sc, &params, &flow);
  cf_test_assert_flow_identical (again, fresh,
      "plan back at the default depth");
  cf_flow_free (again);
  cf_flow_free (fresh);

  cf_flow_free (first);
  cf_cuda_flow_release (&flow);
  cf_cuda_clg_plan_free (plan);
  scene_clear (&sc);
}

GST_END_TEST;

/* use_initial: the given flow seeds the coarsest level, like cf_clg_flow. */
GST_START_TEST (test_warm_start_matches_cpu)
{
  cf_clg_params params;
  scene sc;
  cf_flow *ref, *got;

  cf_clg_params_init (&params);
  params.iterations = 40;
  scene_make (&sc, SCENE_W, SCENE_H, CF_SYNTH_ROTATION_ZOOM, 3, &params);
  ref = cpu_run (&sc, &params, sc.truth);
  got = gpu_run (&sc, CF_CLG_KERNEL_AUTO, &params, sc.truth);
  assert_flow_mean_close (got, ref, "warm start vs cf_clg_flow");
  cf_flow_free (got);
  cf_flow_free (ref);
  scene_clear (&sc);
}

GST_END_TEST;

/* No sweep on any level: the result is the resampled warm start plus a
 * zero increment, as on the CPU; cold, it is zero. */
GST_START_TEST (test_plan_zero_iterations)
{
  cf_clg_params params;
  scene sc;
  cf_flow *ref, *got;

  cf_clg_params_init (&params);
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&params, "0",
          NULL), CF_OK);
  scene_make (&sc, 65, 47, CF_SYNTH_TRANSLATION, 2, &params);
  ref = cpu_run (&sc, &params, sc.truth);
  got = gpu_run (&sc, CF_CLG_KERNEL_FUSED, &params, sc.truth);
  assert_flow_mean_close (got, ref, "zero iterations, warm");
  cf_flow_free (got);
  got = gpu_run (&sc, CF_CLG_KERNEL_FUSED, &params, NULL);
  fail_unless (got->u[0] == 0.0f && got->v[got->width - 1] == 0.0f);
  cf_flow_free (got);
  /* fp16: + a half +0 increment, the same bits */
  got = gpu_run_prec (&sc, CF_PRECISION_FP16, CF_CLG_KERNEL_FUSED, 0,
      &params, sc.truth);
  assert_flow_mean_close (got, ref, "zero iterations, warm, fp16");
  cf_flow_free (got);
  got = gpu_run_prec (&sc, CF_PRECISION_FP16, CF_CLG_KERNEL_SIMPLE, 0,
      &params, NULL);
  fail_unless (got->u[0] == 0.0f && got->v[got->width - 1] == 0.0f);
  cf_flow_free (got);
  cf_flow_free (ref);
  scene_clear (&sc);
}

GST_END_TEST;

/* fp16 SIMPLE and FUSED share the per-pixel code (half2 sums, +0 for
 * neighbours outside the image, fp32 update): bit for bit equal at every
 * depth, on sizes below one tile, spanning several tiles with remainders
 * in both directions, and per-level counts below, at and far from every
 * depth. FUSED picks its region geometry per level from the size, depth
 * and SM count: on 132 SMs (H100) 641x479 runs the tall 64 x 64 regions at
 * every depth, 900x400 the 64 x 32 ones at depths 5 and 6, the small
 * levels the 32 x 32 ones. */
GST_START_TEST (test_fp16_fused_identical_to_simple)
{
  static const struct
  {
    int width, height, levels;
    const char *iterations;
  } cases[] = {
    {97, 61, 3, "37,41,29"},
    {23, 17, 1, "26"},
    {131, 70, 2, "1,2"},
    {SCENE_W, SCENE_H, SCENE_LEVELS, "61,121,181,241"},
    {300, 173, 4, "3,7,8,25"},
    {641, 479, 1, "19"},
    {900, 400, 1, "17"},
  };
  int i, depth;

  for (i = 0; i < (int) G_N_ELEMENTS (cases); i++) {
    cf_clg_params params;
    scene sc;
    cf_flow *simple, *f32;

    cf_clg_params_init (&params);
    fail_unless_equals_int (cf_clg_parse_iterations_per_level (&params,
            cases[i].iterations, NULL), CF_OK);
    scene_make (&sc, cases[i].width, cases[i].height, CF_SYNTH_SMOOTH,
        cases[i].levels, &params);
    simple = gpu_run_prec (&sc, CF_PRECISION_FP16, CF_CLG_KERNEL_SIMPLE, 0,
        &params, NULL);
    for (depth = CF_CLG_FUSED_DEPTH_MIN - 1; depth <= FUSED_DEPTH_MAX;
        depth++) {
      int dd = depth < CF_CLG_FUSED_DEPTH_MIN ? 0 : depth;
      cf_flow *fused;
      char what[96];

      fused = gpu_run_prec (&sc, CF_PRECISION_FP16, CF_CLG_KERNEL_FUSED, dd,
          &params, NULL);
      g_snprintf (what, sizeof (what), "fp16 plan FUSED depth %d vs SIMPLE, "
          "%dx%d, %s", dd, cases[i].width, cases[i].height,
          cases[i].iterations);
      cf_test_assert_flow_identical (fused, simple, what);
      cf_flow_free (fused);
    }
    /* fp16 is not fp32 (the increments are really rounded to half), but
     * close to it */
    f32 = gpu_run (&sc, CF_CLG_KERNEL_SIMPLE, &params, NULL);
    {
      double mean = 0.0, max = 0.0;

      fail_unless_equals_int (cf_flow_diff (simple, f32, &mean, &max),
          CF_OK);
      GST_INFO ("%dx%d, %s: fp16 vs fp32 mean |diff| %g px, max %g",
          cases[i].width, cases[i].height, cases[i].iterations, mean, max);
      fail_unless (mean > 0.0, "fp16 gave fp32's bits");
      fail_unless (mean < 0.05, "fp16 vs fp32: mean |diff| %g px", mean);
    }
    cf_flow_free (f32);
    cf_flow_free (simple);
    scene_clear (&sc);
  }
}

GST_END_TEST;

/* fp16 accuracy against ground truth on the synthetic motions, with the
 * defaults (200 sweeps everywhere) and configuration B, on 160x128 and
 * 641x479 (4 levels): within FP16_EPE_ABS + FP16_EPE_REL · EPE(fp32) of
 * fp32, FUSED and SIMPLE identical. */
GST_START_TEST (test_fp16_epe_close_to_fp32)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM, CF_SYNTH_SMOOTH
  };
  static const test_size sizes[] = { {SCENE_W, SCENE_H}, {641, 479} };
  int m, cfg, z;

  for (z = 0; z < (int) G_N_ELEMENTS (sizes); z++) {
    for (m = 0; m < (int) G_N_ELEMENTS (motions); m++) {
      for (cfg = 0; cfg < 2; cfg++) {
        cf_clg_params params;
        scene sc;
        cf_flow *f32, *f16, *s16;
        double e32, e16, es16;
        char what[96];

        cf_clg_params_init (&params);
        if (cfg == 1)
          fail_unless_equals_int (cf_clg_parse_iterations_per_level
              (&params, "60,120,180,240", NULL), CF_OK);
        scene_make (&sc, sizes[z].width, sizes[z].height, motions[m],
            SCENE_LEVELS, &params);
        f32 = gpu_run (&sc, CF_CLG_KERNEL_AUTO, &params, NULL);
        f16 = gpu_run_prec (&sc, CF_PRECISION_FP16, CF_CLG_KERNEL_AUTO, 0,
            &params, NULL);
        s16 = gpu_run_prec (&sc, CF_PRECISION_FP16, CF_CLG_KERNEL_SIMPLE, 0,
            &params, NULL);
        e32 = epe_of (f32, sc.truth);
        e16 = epe_of (f16, sc.truth);
        es16 = epe_of (s16, sc.truth);
        g_snprintf (what, sizeof (what), "%dx%d, motion %d, %s",
            sizes[z].width, sizes[z].height, motions[m],
            cfg ? "config B" : "defaults");
        GST_INFO ("%s: EPE fp32 %.5f, fp16 fused %.5f, fp16 simple %.5f",
            what, e32, e16, es16);
        /* fp32 must have found the motion for the comparison to mean
         * much */
        fail_unless (e32 < 1.0, "%s: fp32 EPE %g", what, e32);
        assert_fp16_epe_close (e16, e32, what);
        assert_fp16_epe_close (es16, e32, what);
        cf_test_assert_flow_identical (f16, s16, "fp16 AUTO vs SIMPLE");
        cf_flow_free (f32);
        cf_flow_free (f16);
        cf_flow_free (s16);
        scene_clear (&sc);
      }
    }
  }
}

GST_END_TEST;

/* An fp16 plan reused: same input -> same bits; a new iteration count, α
 * or depth gives what a fresh fp16 plan gives; a warm start from the
 * truth is as good as fp32's. */
GST_START_TEST (test_fp16_plan_reuse_and_warm_start)
{
  cf_clg_params params;
  scene sc;
  cf_cuda_clg_plan *plan = NULL;
  cf_cuda_flow flow;
  cf_flow *first, *again, *fresh, *w32, *w16;

  cf_clg_params_init (&params);
  params.iterations = 30;
  scene_make (&sc, SCENE_W, SCENE_H, CF_SYNTH_ROTATION_ZOOM, SCENE_LEVELS,
      &params);
  fail_unless_equals_int (cf_cuda_clg_plan_new (SCENE_W, SCENE_H,
          CF_PRECISION_FP16, CF_CLG_KERNEL_AUTO, &plan), CF_OK);
  cf_test_poisoned_flow (SCENE_W, SCENE_H, &flow, stream);

  first = plan_run_twice (plan, &sc, &params, &flow, "fp16: second run of a plan");

  params.iterations = 13;
  params.alpha = 120.0f;
  fail_unless_equals_int (cf_cuda_clg_plan_set_fused_depth (plan, 4), CF_OK);
  again = plan_run (plan, &sc, &params, &flow);
  fresh = gpu_run_prec (&sc, CF_PRECISION_FP16, CF_CLG_KERNEL_SIMPLE, 0,
      &params, NULL);
  cf_test_assert_flow_identical (again, fresh,
      "fp16 plan after new iterations, alpha and depth");
  cf_flow_free (again);
  cf_flow_free (fresh);
  cf_flow_free (first);
  cf_cuda_flow_release (&flow);
  cf_cuda_clg_plan_free (plan);

  params.iterations = 40;
  params.alpha = 50.0f;
  w32 = gpu_run (&sc, CF_CLG_KERNEL_AUTO, &params, sc.truth);
  w16 = gpu_run_prec (&sc, CF_PRECISION_FP16, CF_CLG_KERNEL_AUTO, 0,
      &params, sc.truth);
  GST_INFO ("warm start: EPE fp32 %.5f, fp16 %.5f", epe_of (w32, sc.truth),
      epe_of (w16, sc.truth));
  assert_fp16_epe_close (epe_of (w16, sc.truth), epe_of (w32, sc.truth),
      "warm start");
  cf_flow_free (w32);
  cf_flow_free (w16);
  scene_clear (&sc);
}

GST_END_TEST;

GST_START_TEST (test_plan_rejects_bad_arguments)
{
  cf_clg_params params;
  scene sc, other;
  cf_cuda_clg_plan *plan = NULL;
  cf_cuda_flow flow, oflow;

  cf_cuda_clg_plan_free (NULL);
  fail_unless_equals_int (cf_cuda_clg_plan_new (0, 10, CF_PRECISION_FP32,
          CF_CLG_KERNEL_AUTO, &plan), CF_ERROR_INVALID);
  fail_unless (plan == NULL);
  fail_unless_equals_int (cf_cuda_clg_plan_new (10, 10, (cf_precision) 7,
          CF_CLG_KERNEL_AUTO, &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_plan_new (10, 10, CF_PRECISION_FP32,
          (cf_clg_kernel) 9, &plan), CF_ERROR_INVALID);
  /* half precision is served (half2 increments) */
  fail_unless_equals_int (cf_cuda_clg_plan_new (10, 10, CF_PRECISION_FP16,
          CF_CLG_KERNEL_AUTO, &plan), CF_OK);
  fail_unless (plan != NULL);
  cf_cuda_clg_plan_free (plan);
  plan = NULL;

  cf_clg_params_init (&params);
  params.iterations = 5;
  scene_make (&sc, 64, 48, CF_SYNTH_TRANSLATION, 2, &params);
  scene_make (&other, 80, 48, CF_SYNTH_TRANSLATION, 2, &params);
  fail_unless_equals_int (cf_cuda_clg_plan_new (64, 48, CF_PRECISION_FP32,
          CF_CLG_KERNEL_AUTO, &plan), CF_OK);
  cf_test_poisoned_flow (64, 48, &flow, stream);
  cf_test_poisoned_flow (80, 48, &oflow, stream);
  /* pyramids of different sizes */
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &sc.g0, &other.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  /* frames of another size than the plan's, larger and smaller */
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &other.g0, &other.g1,
          &params, 0, &oflow, stream), CF_ERROR_INVALID);
  cf_cuda_clg_plan_free (plan);
  fail_unless_equals_int (cf_cuda_clg_plan_new (80, 48, CF_PRECISION_FP32,
          CF_CLG_KERNEL_AUTO, &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &sc.g0, &sc.g1,
          &params, 0, &flow, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &other.g0, &other.g1,
          &params, 0, &oflow, stream), CF_OK);
  /* parameters cf_clg_flow rejects */
  params.alpha = 0.0f;
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &other.g0, &other.g1,
          &params, 0, &oflow, stream), CF_ERROR_INVALID);
  cf_clg_params_init (&params);
  params.rho = 51.0f;
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &other.g0, &other.g1,
          &params, 0, &oflow, stream), CF_ERROR_INVALID);
  cf_clg_params_init (&params);
  params.iterations = -1;
  fail_unless_equals_int (cf_cuda_clg_plan_run (plan, &other.g0, &other.g1,
          &params, 0, &oflow, stream), CF_ERROR_INVALID);
  sync_stream ();
  cf_cuda_flow_release (&flow);
  cf_cuda_flow_release (&oflow);
  cf_cuda_clg_plan_free (plan);
  scene_clear (&sc);
  scene_clear (&other);
}

GST_END_TEST;

static Suite *
cuda_clg_suite (void)
{
  Suite *s = suite_create ("cuda_clg");
  TCase *tc = tcase_create ("general");

  /* the full runs include 200-sweep CPU references */
  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_derivatives_match_cpu);
  tcase_add_test (tc, test_structure_tensor_matches_cpu);
  tcase_add_test (tc, test_structure_tensor_rejects_bad_arguments);
  tcase_add_test (tc, test_jacobi_matches_cpu);
  tcase_add_test (tc, test_fused_is_bit_identical_to_simple);
  tcase_add_test (tc, test_jacobi_zero_iterations_and_bad_arguments);
  tcase_add_test (tc, test_residual_falls_like_cpu);
  tcase_add_test (tc, test_add_increment_matches_cpu);
  tcase_add_test (tc, test_plan_matches_cpu_flow);
  tcase_add_test (tc, test_plan_rho_zero_matches_cpu_flow);
  tcase_add_test (tc, test_plan_simple_and_fused_identical);
  tcase_add_test (tc, test_plan_reuse);
  tcase_add_test (tc, test_warm_start_matches_cpu);
  tcase_add_test (tc, test_plan_zero_iterations);
  tcase_add_test (tc, test_plan_rejects_bad_arguments);
  tcase_add_test (tc, test_fp16_fused_identical_to_simple);
  tcase_add_test (tc, test_fp16_epe_close_to_fp32);
  tcase_add_test (tc, test_fp16_plan_reuse_and_warm_start);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_clg", cuda_clg_suite);
}
