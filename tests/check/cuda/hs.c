/* gst-cudaflow — GPU Horn–Schunck vs the CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Single steps against common/hs.c (max |Δ| <= 1e-4 · max(1, max |ref|)),
 * the sweeps' coefficients against a CPU normalisation of the GPU's
 * derivatives (<= 1 ulp, 99.9 % exact),
 * SIMPLE vs FUSED and vs FUSED_DB (every region geometry) bit for bit in
 * fp32 and fp16, full runs against cf_hs_flow (mean |Δflow| <= 1e-3 px),
 * fp16 accuracy against ground truth, plan reuse and warm starts. Outputs
 * are poisoned with NaN first.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/hs.h"
#include "common/metrics.h"
#include "common/pyramid.h"
#include "common/synth.h"
#include "cuda/hs.h"

#define REL_TOL 1e-4
/* mean |Δflow| of a full GPU run against cf_hs_flow, pixels */
#define FLOW_MEAN_TOL 1e-3
/* fp16 state: EPE against ground truth may exceed fp32's by this much plus
 * FP16_EPE_REL of it. A CPU emulation of the fp16 path (half2 sums,
 * fp32 data term) on synthetic pairs (translation, rotation + zoom,
 * smooth; 641x479, 5 levels, 3 warps, 100 iterations) stayed within
 * 2e-4 px of fp32's EPE. */
#define FP16_EPE_ABS 0.01
#define FP16_EPE_REL 0.05
/* pixels left out at each side when comparing with ground truth */
#define EPE_BORDER 16

/* this suite's tolerance and border for the shared helpers */
#define assert_flow_mean_close(got, ref, what) \
  cf_test_assert_flow_mean_close (got, ref, FLOW_MEAN_TOL, what)
#define epe_of(est, truth) cf_test_flow_epe (est, truth, EPE_BORDER)

#define K CF_CUDA_HS_FUSED_DEPTH

typedef struct
{
  int width, height;
} test_size;

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

/* ------------------------------------------------------------------ */

/* The frames on the device (g0, g1) and their derivatives there (gx, gy,
 * gt; poisoned first, so every sample must be written). */
static void
gpu_derivatives (const cf_image * i0, const cf_image * i1, cf_cuda_image * g0,
    cf_cuda_image * g1, cf_cuda_image * gx, cf_cuda_image * gy,
    cf_cuda_image * gt)
{
  cf_test_upload_image (i0, g0, stream);
  cf_test_upload_image (i1, g1, stream);
  cf_test_poisoned_image (i0->width, i0->height, gx, stream);
  cf_test_poisoned_image (i0->width, i0->height, gy, stream);
  cf_test_poisoned_image (i0->width, i0->height, gt, stream);
  fail_unless_equals_int (cf_cuda_hs_derivatives (g0, g1, gx, gy, gt,
          stream), CF_OK);
}

GST_START_TEST (test_derivatives_match_cpu)
{
  static const test_size sizes[] = { {1, 1}, {2, 3}, {17, 13}, {641, 479},
  {1920, 1080}
  };
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i].width, h = sizes[i].height;
    cf_image *i0 = cf_test_random_image (w, h, 1 + i, 0.0f, 255.0f);
    cf_image *i1 = cf_test_random_image (w, h, 101 + i, 0.0f, 255.0f);
    cf_image *ix = cf_image_new (w, h), *iy = cf_image_new (w, h);
    cf_image *it = cf_image_new (w, h);
    cf_cuda_image g0, g1, gx, gy, gt;

    fail_unless_equals_int (cf_hs_derivatives (i0, i1, ix, iy, it), CF_OK);
    gpu_derivatives (i0, i1, &g0, &g1, &gx, &gy, &gt);
    cf_test_assert_cuda_image_close (&gx, ix, REL_TOL, "Ix", stream);
    cf_test_assert_cuda_image_close (&gy, iy, REL_TOL, "Iy", stream);
    cf_test_assert_cuda_image_close (&gt, it, REL_TOL, "It", stream);

    cf_cuda_image_release (&g0);
    cf_cuda_image_release (&g1);
    cf_cuda_image_release (&gx);
    cf_cuda_image_release (&gy);
    cf_cuda_image_release (&gt);
    cf_image_free (i0);
    cf_image_free (i1);
    cf_image_free (ix);
    cf_image_free (iy);
    cf_image_free (it);
  }
}

GST_END_TEST;

/* ulps between two finite floats of the same sign (or both zero) */
static guint32
ulps_apart (float x, float y)
{
  gint32 ix, iy;

  memcpy (&ix, &x, sizeof (ix));
  memcpy (&iy, &y, sizeof (iy));
  return ix > iy ? (guint32) (ix - iy) : (guint32) (iy - ix);
}

/* The coefficients the sweeps read: the GPU's own derivatives
 * (cf_cuda_hs_derivatives, held to the CPU above) normalised on the CPU as
 * the file comment of cuda/hs.cu writes it: den summed as common/hs.c in
 * fp32, s = 1 / sqrt(den) correctly rounded (computed here in double and
 * rounded once, which can differ from the correctly rounded fp32 value
 * by an ulp only in rare double-rounding cases), then a = Ix s, b = Iy s,
 * c = It s rounded to fp32. */
GST_START_TEST (test_coefficients_match_cpu)
{
  static const test_size sizes[] = { {1, 1}, {2, 3}, {17, 13}, {641, 479},
  {1920, 1080}
  };
  static const float alphas[] = { 1.0f, 15.0f, 51.0f };
  int i, j;

  for (i = 0; i < (int) G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i].width, h = sizes[i].height;
    cf_image *i0 = cf_test_random_image (w, h, 11 + i, 0.0f, 255.0f);
    cf_image *i1 = cf_test_random_image (w, h, 111 + i, 0.0f, 255.0f);
    cf_cuda_image g0, g1, gx, gy, gt, ga, gb, gc;
    cf_image *ix, *iy, *it;

    gpu_derivatives (i0, i1, &g0, &g1, &gx, &gy, &gt);
    ix = cf_test_download_image (&gx, stream);
    iy = cf_test_download_image (&gy, stream);
    it = cf_test_download_image (&gt, stream);

    for (j = 0; j < (int) G_N_ELEMENTS (alphas); j++) {
      float alpha2 = alphas[j] * alphas[j];
      cf_image *a, *b, *c;
      long cells = 0, exact = 0;
      guint32 worst = 0;
      int x, y;

      cf_test_poisoned_image (w, h, &ga, stream);
      cf_test_poisoned_image (w, h, &gb, stream);
      cf_test_poisoned_image (w, h, &gc, stream);
      fail_unless_equals_int (cf_cuda_hs_coefficients (&g0, &g1, alphas[j],
              &ga, &gb, &gc, stream), CF_OK);
      a = cf_test_download_image (&ga, stream);
      b = cf_test_download_image (&gb, stream);
      c = cf_test_download_image (&gc, stream);
      for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
          size_t n = x + (size_t) y * ix->pitch;
          volatile float dx = ix->data[n], dy = iy->data[n];
          volatile float xx = dx * dx, yy = dy * dy;
          volatile float den0 = alpha2 + xx;
          volatile float den = den0 + yy;
          float s = (float) (1.0 / sqrt ((double) den));
          float ref[3], got[3];
          int q;

          ref[0] = dx * s;
          ref[1] = dy * s;
          ref[2] = it->data[n] * s;
          got[0] = a->data[x + (size_t) y * a->pitch];
          got[1] = b->data[x + (size_t) y * b->pitch];
          got[2] = c->data[x + (size_t) y * c->pitch];
          for (q = 0; q < 3; q++) {
            guint32 d;

            fail_unless (isfinite (got[q]), "%dx%d alpha %g: coefficient %d "
                "at (%d, %d) not finite", w, h, alphas[j], q, x, y);
            d = ref[q] == got[q] ? 0 : ulps_apart (ref[q], got[q]);
            worst = MAX (worst, d);
            exact += d == 0;
            cells++;
          }
        }
      fail_unless (worst <= 1, "%dx%d alpha %g: a coefficient is %u ulps "
          "from the CPU's", w, h, alphas[j], worst);
      fail_unless (exact >= cells - cells / 1000, "%dx%d alpha %g: only "
          "%ld of %ld coefficients equal the CPU's", w, h, alphas[j], exact,
          cells);
      cf_image_free (a);
      cf_image_free (b);
      cf_image_free (c);
      cf_cuda_image_release (&ga);
      cf_cuda_image_release (&gb);
      cf_cuda_image_release (&gc);
    }
    /* bad arguments */
    fail_unless_equals_int (cf_cuda_hs_coefficients (&g0, &g1, 0.0f, &gx,
            &gy, &gt, stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_hs_coefficients (&g0, &g1, NAN, &gx,
            &gy, &gt, stream), CF_ERROR_INVALID);
    fail_unless_equals_int (cf_cuda_hs_coefficients (&g0, NULL, 1.0f, &gx,
            &gy, &gt, stream), CF_ERROR_INVALID);

    cf_image_free (ix);
    cf_image_free (iy);
    cf_image_free (it);
    cf_cuda_image_release (&g0);
    cf_cuda_image_release (&g1);
    cf_cuda_image_release (&gx);
    cf_cuda_image_release (&gy);
    cf_cuda_image_release (&gt);
    cf_image_free (i0);
    cf_image_free (i1);
  }
}

GST_END_TEST;

/* Derivative-like planes: gradients of 0..255 images reach ~±255. */
typedef struct
{
  cf_image *ix, *iy, *it;
  cf_cuda_image gx, gy, gt;
} grads;

static void
grads_make (grads * g, int w, int h, guint32 seed)
{
  g->ix = cf_test_random_image (w, h, seed, -60.0f, 60.0f);
  g->iy = cf_test_random_image (w, h, seed + 1, -60.0f, 60.0f);
  g->it = cf_test_random_image (w, h, seed + 2, -40.0f, 40.0f);
  cf_test_upload_image (g->ix, &g->gx, stream);
  cf_test_upload_image (g->iy, &g->gy, stream);
  cf_test_upload_image (g->it, &g->gt, stream);
}

static void
grads_clear (grads * g)
{
  cf_image_free (g->ix);
  cf_image_free (g->iy);
  cf_image_free (g->it);
  cf_cuda_image_release (&g->gx);
  cf_cuda_image_release (&g->gy);
  cf_cuda_image_release (&g->gt);
}

GST_START_TEST (test_jacobi_matches_cpu)
{
  static const test_size sizes[] = { {1, 1}, {2, 3}, {17, 13}, {641, 479},
  {1920, 1080}
  };
  static const cf_hs_kernel kernels[] = { CF_HS_KERNEL_SIMPLE,
    CF_HS_KERNEL_FUSED, CF_HS_KERNEL_FUSED_DB, CF_HS_KERNEL_AUTO,
    CF_HS_KERNEL_STREAM
  };
  static const int counts[] = { 1, 10 };
  const float alpha = 15.0f;
  int i, k, c, n;

  for (i = 0; i < (int) G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i].width, h = sizes[i].height;
    grads g;
    cf_flow *d0 = cf_test_random_flow (w, h, 7 + i, -3.0f, 3.0f);

    grads_make (&g, w, h, 11 + 3 * i);
    for (c = 0; c < (int) G_N_ELEMENTS (counts); c++) {
      cf_flow *ref[2];
      int cur = 0;

      /* the 10-sweep CPU reference at 1080p is the slow part: skip it */
      if (counts[c] > 1 && w * h > 1000000)
        continue;
      ref[0] = cf_flow_copy (d0);
      ref[1] = cf_flow_new (w, h);
      for (n = 0; n < counts[c]; n++) {
        fail_unless_equals_int (cf_hs_jacobi (g.ix, g.iy, g.it, alpha,
                ref[cur], ref[1 - cur]), CF_OK);
        cur = 1 - cur;
      }
      for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
        cf_cuda_flow d, tmp;

        cf_test_upload_flow (d0, &d, stream);
        cf_test_poisoned_flow (w, h, &tmp, stream);
        fail_unless_equals_int (cf_cuda_hs_jacobi (&g.gx, &g.gy, &g.gt,
                alpha, counts[c], kernels[k], &d, &tmp, stream), CF_OK);
        cf_test_assert_cuda_flow_close (&d, ref[cur], REL_TOL,
            counts[c] == 1 ? "one Jacobi sweep" : "ten Jacobi sweeps", stream);
        cf_cuda_flow_release (&d);
        cf_cuda_flow_release (&tmp);
      }
      cf_flow_free (ref[0]);
      cf_flow_free (ref[1]);
    }
    grads_clear (&g);
    cf_flow_free (d0);
  }
}

GST_END_TEST;

/* Private tiles make FUSED exact: any iteration count, any size, both tile
 * geometries (small levels use 32 x 32 regions, large ones 64 x 64). */
GST_START_TEST (test_fused_is_bit_identical_to_simple)
{
  static const test_size sizes[] = { {1, 1}, {2, 3}, {17, 13}, {3, 97},
  {97, 3}, {101, 77}, {641, 479}, {1919, 1081}
  };
  static const int counts[] = { 1, K - 1, K, 3 * K + 2 };
  int i, c;

  for (i = 0; i < (int) G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i].width, h = sizes[i].height;
    grads g;
    cf_flow *d0 = cf_test_random_flow (w, h, 211 + i, -3.0f, 3.0f);

    grads_make (&g, w, h, 311 + 3 * i);
    for (c = 0; c < (int) G_N_ELEMENTS (counts); c++) {
      cf_cuda_flow ds, ts, df, tf;
      cf_flow *simple, *fused;

      cf_test_upload_flow (d0, &ds, stream);
      cf_test_upload_flow (d0, &df, stream);
      cf_test_poisoned_flow (w, h, &ts, stream);
      cf_test_poisoned_flow (w, h, &tf, stream);
      fail_unless_equals_int (cf_cuda_hs_jacobi (&g.gx, &g.gy, &g.gt, 7.5f,
              counts[c], CF_HS_KERNEL_SIMPLE, &ds, &ts, stream), CF_OK);
      fail_unless_equals_int (cf_cuda_hs_jacobi (&g.gx, &g.gy, &g.gt, 7.5f,
              counts[c], CF_HS_KERNEL_FUSED, &df, &tf, stream), CF_OK);
      simple = cf_test_download_flow (&ds, stream);
      fused = cf_test_download_flow (&df, stream);
      /* no NaN left from the poisoned buffer either */
      fail_unless (isfinite (fused->u[0]) && isfinite (fused->v[0]));
      cf_test_assert_flow_identical (fused, simple, "FUSED vs SIMPLE");
      cf_flow_free (simple);
      cf_flow_free (fused);
      cf_cuda_flow_release (&ds);
      cf_cuda_flow_release (&ts);
      cf_cuda_flow_release (&df);
      cf_cuda_flow_release (&tf);
    }
    grads_clear (&g);
    cf_flow_free (d0);
  }
}

GST_END_TEST;

/* The kernels and geometries compared with SIMPLE below: FUSED, then
 * FUSED_DB with AUTO (per size) and with every geometry forced, then
 * STREAM. */
typedef struct
{
  cf_hs_kernel kernel;
  cf_hs_geometry geometry;
} variant;

static int
variants_all (variant * v)
{
  int n = 0, g;

  v[n].kernel = CF_HS_KERNEL_FUSED;
  v[n++].geometry = CF_HS_GEOMETRY_AUTO;
  for (g = CF_HS_GEOMETRY_AUTO; g < CF_HS_N_GEOMETRIES; g++) {
    v[n].kernel = CF_HS_KERNEL_FUSED_DB;
    v[n++].geometry = (cf_hs_geometry) g;
  }
  v[n].kernel = CF_HS_KERNEL_STREAM;
  v[n++].geometry = CF_HS_GEOMETRY_AUTO;
  return n;
}

static const char *
variant_name (const variant * v)
{
  return v->kernel == CF_HS_KERNEL_FUSED ? "fused" :
      v->kernel == CF_HS_KERNEL_STREAM ? "stream" :
      cf_cuda_hs_geometry_name (v->geometry);
}

/* @count sweeps of @kernel / @geometry at @precision from @d0; the result
 * downloaded (the fp16 runs round d0 to half2 first, every kernel alike) */
static cf_flow *
jacobi_run (const grads * g, const cf_flow * d0, int count,
    cf_hs_kernel kernel, cf_hs_geometry geometry, cf_precision precision)
{
  cf_cuda_flow d, tmp;
  cf_flow *out;

  cf_test_upload_flow (d0, &d, stream);
  cf_test_poisoned_flow (d0->width, d0->height, &tmp, stream);
  fail_unless_equals_int (cf_cuda_hs_jacobi_ex (&g->gx, &g->gy, &g->gt,
          7.5f, count, kernel, geometry, precision, &d, &tmp, stream), CF_OK);
  out = cf_test_download_flow (&d, stream);
  cf_cuda_flow_release (&d);
  cf_cuda_flow_release (&tmp);
  return out;
}

/* Each of @v's @n_v kernels against SIMPLE, bit for bit, in fp32 and
 * fp16, on every size and count given (a frame over a million cells at
 * the counts 7 and 50 only); @seed varies the flows and gradients. */
static void
assert_variants_match_simple (const test_size * sizes, int n_sizes,
    const int *counts, int n_counts, const variant * v, int n_v, int seed)
{
  static const cf_precision precisions[] = { CF_PRECISION_FP32,
    CF_PRECISION_FP16
  };
  int i, c, p, k;

  for (i = 0; i < n_sizes; i++) {
    int w = sizes[i].width, h = sizes[i].height;
    grads g;
    cf_flow *d0 = cf_test_random_flow (w, h, seed + i, -3.0f, 3.0f);

    grads_make (&g, w, h, seed + 100 + 3 * i);
    for (p = 0; p < (int) G_N_ELEMENTS (precisions); p++) {
      for (c = 0; c < n_counts; c++) {
        cf_flow *simple;

        /* the big frame at the short and the long counts only */
        if (w * h > 1000000 && counts[c] != 7 && counts[c] != 50)
          continue;
        simple = jacobi_run (&g, d0, counts[c], CF_HS_KERNEL_SIMPLE,
            CF_HS_GEOMETRY_AUTO, precisions[p]);
        for (k = 0; k < n_v; k++) {
          cf_flow *got = jacobi_run (&g, d0, counts[c], v[k].kernel,
              v[k].geometry, precisions[p]);
          gchar *what = g_strdup_printf ("%s vs SIMPLE, %dx%d, %s, %d sweeps",
              variant_name (&v[k]), w, h,
              precisions[p] == CF_PRECISION_FP16 ? "fp16" : "fp32",
              counts[c]);

          fail_unless (isfinite (got->u[0]) && isfinite (got->v[0]), "%s",
              what);
          cf_test_assert_flow_identical (got, simple, what);
          g_free (what);
          cf_flow_free (got);
        }
        cf_flow_free (simple);
      }
    }
    grads_clear (&g);
    cf_flow_free (d0);
  }
}

/* FUSED_DB computes FUSED's private regions on double-buffered planes,
 * STREAM walks column strips down in skewed pieces: the same bits as
 * SIMPLE for every geometry and STREAM, in fp32 and fp16, on sizes
 * smaller than any region (1 x 1, 2 x 3, 17 x 13), thin ones, odd ones,
 * exact multiples of a tile and one cell more (48, 80, 112 are tile
 * sides; 113 x 81 is 128 x 96's tile plus one), for counts that are not
 * multiples of either depth (7, 15, 26, 50) and the depths themselves
 * (8, 16). */
GST_START_TEST (test_fused_db_is_bit_identical_to_simple)
{
  static const test_size sizes[] = { {1, 1}, {2, 3}, {17, 13}, {3, 97},
  {97, 3}, {48, 48}, {49, 47}, {112, 80}, {113, 81}, {224, 96}, {101, 77},
  {641, 479}, {1919, 1081}
  };
  static const int counts[] = { 1, 7, 8, 15, 16, 26, 50 };
  variant v[CF_HS_N_GEOMETRIES + 2];
  int n_v = variants_all (v);

  assert_variants_match_simple (sizes, G_N_ELEMENTS (sizes), counts,
      G_N_ELEMENTS (counts), v, n_v, 611);
}

GST_END_TEST;

/* STREAM alone (the single-step API runs it at any size) on sizes around
 * its strip (96 columns, an 80-wide tile), piece (24 rows) and segments,
 * for one launch, two and a shorter FUSED_DB one after: SIMPLE's bits.
 * Small enough for compute-sanitizer's racecheck (tests/gpu). */
GST_START_TEST (test_stream_is_bit_identical_to_simple)
{
  static const test_size sizes[] = { {1, 1}, {7, 5}, {80, 24}, {81, 25},
  {161, 47}, {200, 130}, {97, 300}
  };
  static const int counts[] = { 8, 16, 19 };
  static const variant v = { CF_HS_KERNEL_STREAM, CF_HS_GEOMETRY_AUTO };

  assert_variants_match_simple (sizes, G_N_ELEMENTS (sizes), counts,
      G_N_ELEMENTS (counts), &v, 1, 911);
}

GST_END_TEST;

/* The geometry helpers the benchmark and the plans use. */
GST_START_TEST (test_geometry_names_and_depths)
{
  int g;

  fail_unless_equals_string (cf_cuda_hs_geometry_name (CF_HS_GEOMETRY_AUTO),
      "auto");
  fail_unless_equals_int (cf_cuda_hs_geometry_depth (CF_HS_GEOMETRY_AUTO), 0);
  for (g = CF_HS_GEOMETRY_AUTO + 1; g < CF_HS_N_GEOMETRIES; g++) {
    const char *name = cf_cuda_hs_geometry_name ((cf_hs_geometry) g);
    fail_unless (name != NULL);
    fail_unless_equals_int (cf_cuda_hs_geometry_from_name (name), g);
    fail_unless (cf_cuda_hs_geometry_depth ((cf_hs_geometry) g) >= 8);
  }
  fail_unless_equals_int (cf_cuda_hs_geometry_depth
      (CF_HS_GEOMETRY_64X64_K16), 16);
  fail_unless (cf_cuda_hs_geometry_name (CF_HS_N_GEOMETRIES) == NULL);
  fail_unless_equals_int (cf_cuda_hs_geometry_from_name ("64x64"), -1);
  fail_unless_equals_int (cf_cuda_hs_geometry_from_name (NULL), -1);
}

GST_END_TEST;

GST_START_TEST (test_jacobi_zero_iterations_and_bad_arguments)
{
  grads g;
  cf_cuda_flow d, tmp, before;
  cf_flow *d0 = cf_test_random_flow (9, 7, 5, -1.0f, 1.0f), *got;

  grads_make (&g, 9, 7, 3);
  cf_test_upload_flow (d0, &d, stream);
  cf_test_poisoned_flow (9, 7, &tmp, stream);
  before = d;
  fail_unless_equals_int (cf_cuda_hs_jacobi (&g.gx, &g.gy, &g.gt, 15.0f, 0,
          CF_HS_KERNEL_FUSED, &d, &tmp, stream), CF_OK);
  fail_unless (d.u == before.u);
  got = cf_test_download_flow (&d, stream);
  cf_test_assert_flow_identical (got, d0, "zero iterations");
  cf_flow_free (got);
  /* in place, alpha <= 0, negative count: rejected */
  fail_unless_equals_int (cf_cuda_hs_jacobi (&g.gx, &g.gy, &g.gt, 15.0f, 1,
          CF_HS_KERNEL_SIMPLE, &d, &d, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_jacobi (&g.gx, &g.gy, &g.gt, 0.0f, 1,
          CF_HS_KERNEL_SIMPLE, &d, &tmp, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_jacobi (&g.gx, &g.gy, &g.gt, 15.0f, -1,
          CF_HS_KERNEL_SIMPLE, &d, &tmp, stream), CF_ERROR_INVALID);
  /* unknown kernel, geometry or precision: rejected */
  fail_unless_equals_int (cf_cuda_hs_jacobi (&g.gx, &g.gy, &g.gt, 15.0f, 1,
          (cf_hs_kernel) 9, &d, &tmp, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_jacobi_ex (&g.gx, &g.gy, &g.gt, 15.0f,
          1, CF_HS_KERNEL_FUSED_DB, CF_HS_N_GEOMETRIES, CF_PRECISION_FP32,
          &d, &tmp, stream), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_jacobi_ex (&g.gx, &g.gy, &g.gt, 15.0f,
          1, CF_HS_KERNEL_FUSED_DB, CF_HS_GEOMETRY_AUTO, (cf_precision) 7,
          &d, &tmp, stream), CF_ERROR_INVALID);
  cf_cuda_flow_release (&d);
  cf_cuda_flow_release (&tmp);
  grads_clear (&g);
  cf_flow_free (d0);
}

GST_END_TEST;

GST_START_TEST (test_add_increment_matches_cpu)
{
  static const test_size sizes[] = { {1, 1}, {2, 3}, {17, 13}, {641, 479},
  {1920, 1080}
  };
  int i;

  for (i = 0; i < (int) G_N_ELEMENTS (sizes); i++) {
    int w = sizes[i].width, h = sizes[i].height;
    cf_flow *d = cf_test_random_flow (w, h, 401 + i, -2.0f, 2.0f);
    cf_flow *u = cf_test_random_flow (w, h, 501 + i, -30.0f, 30.0f);
    cf_cuda_flow gd, gu;

    cf_test_upload_flow (d, &gd, stream);
    cf_test_upload_flow (u, &gu, stream);
    fail_unless_equals_int (cf_hs_add_increment (d, u), CF_OK);
    fail_unless_equals_int (cf_cuda_hs_add_increment (&gd, &gu, stream),
        CF_OK);
    cf_test_assert_cuda_flow_close (&gu, u, REL_TOL, "add increment", stream);
    cf_cuda_flow_release (&gd);
    cf_cuda_flow_release (&gu);
    cf_flow_free (d);
    cf_flow_free (u);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------ */

/* A synthetic pair with CPU and GPU pyramids of the same frames. */
typedef struct
{
  int width, height;
  cf_image *f0, *f1;
  cf_flow *truth;
  cf_pyramid *c0, *c1;
  cf_cuda_pyramid g0, g1;
} scene;

static void
scene_make (scene * sc, int w, int h, cf_synth_motion motion,
    const cf_pyramid_params * pp, int with_cpu)
{
  cf_synth_params sp;

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
  if (with_cpu) {
    sc->c0 = cf_pyramid_new (w, h, pp);
    sc->c1 = cf_pyramid_new (w, h, pp);
    fail_unless (sc->c0 != NULL && sc->c1 != NULL);
    fail_unless_equals_int (cf_pyramid_build (sc->c0, sc->f0, pp), CF_OK);
    fail_unless_equals_int (cf_pyramid_build (sc->c1, sc->f1, pp), CF_OK);
  }
  fail_unless_equals_int (cf_cuda_pyramid_alloc (&sc->g0, w, h, pp), CF_OK);
  fail_unless_equals_int (cf_cuda_pyramid_alloc (&sc->g1, w, h, pp), CF_OK);
  fail_unless_equals_int (cf_cuda_image_upload (sc->f0, &sc->g0.level[0],
          stream), CF_OK);
  fail_unless_equals_int (cf_cuda_image_upload (sc->f1, &sc->g1.level[0],
          stream), CF_OK);
  fail_unless_equals_int (cf_cuda_pyramid_build (&sc->g0, pp, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_pyramid_build (&sc->g1, pp, stream), CF_OK);
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

/* One GPU run with a fresh plan into a host flow; @initial (host) is the
 * warm start when not NULL. */
static cf_flow *
gpu_run (const scene * sc, cf_precision precision, cf_hs_kernel kernel,
    const cf_hs_params * hp, const cf_flow * initial)
{
  cf_cuda_hs_plan *plan = NULL;
  cf_cuda_flow flow;
  cf_flow *out;

  fail_unless_equals_int (cf_cuda_hs_plan_new (sc->width, sc->height,
          precision, kernel, &plan), CF_OK);
  if (initial != NULL)
    cf_test_upload_flow (initial, &flow, stream);
  else
    cf_test_poisoned_flow (sc->width, sc->height, &flow, stream);
  fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &sc->g0, &sc->g1, hp,
          initial != NULL, &flow, stream), CF_OK);
  out = cf_test_download_flow (&flow, stream);
  cf_cuda_flow_release (&flow);
  cf_cuda_hs_plan_free (plan);
  return out;
}

GST_START_TEST (test_plan_matches_cpu_flow)
{
  /* size, motion, levels, warps, iterations (not multiples of K) */
  static const int cases[][6] = {
    {257, 193, CF_SYNTH_TRANSLATION, 4, 2, 50},
    {641, 479, CF_SYNTH_ROTATION_ZOOM, 5, 1, 21},
    {96, 64, CF_SYNTH_SMOOTH, 3, 3, 3},
  };
  static const cf_hs_kernel kernels[] = { CF_HS_KERNEL_SIMPLE,
    CF_HS_KERNEL_FUSED, CF_HS_KERNEL_FUSED_DB, CF_HS_KERNEL_STREAM
  };
  int i, k;

  for (i = 0; i < (int) G_N_ELEMENTS (cases); i++) {
    cf_pyramid_params pp;
    cf_hs_params hp;
    scene sc;
    cf_flow *ref;

    cf_pyramid_params_init (&pp);
    pp.max_levels = cases[i][3];
    cf_hs_params_init (&hp);
    hp.warps = cases[i][4];
    hp.iterations = cases[i][5];
    scene_make (&sc, cases[i][0], cases[i][1], cases[i][2], &pp, 1);
    ref = cf_flow_new (sc.width, sc.height);
    fail_unless_equals_int (cf_hs_flow (sc.c0, sc.c1, &hp, 0, ref), CF_OK);
    for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
      cf_flow *got = gpu_run (&sc, CF_PRECISION_FP32, kernels[k], &hp, NULL);
      assert_flow_mean_close (got, ref, "plan run vs cf_hs_flow");
      cf_flow_free (got);
    }
    cf_flow_free (ref);
    scene_clear (&sc);
  }
}

GST_END_TEST;

/* One GPU run of a @kernel plan (FUSED_DB or STREAM) whose FUSED_DB
 * geometry is forced to @geometry, with programmatic dependent launch
 * when @pdl (and the device has it). */
static cf_flow *
gpu_run_geometry (const scene * sc, cf_precision precision,
    cf_hs_kernel kernel, cf_hs_geometry geometry, int pdl,
    const cf_hs_params * hp)
{
  cf_cuda_hs_plan *plan = NULL;
  cf_cuda_flow flow;
  cf_flow *out;

  fail_unless_equals_int (cf_cuda_hs_plan_new (sc->width, sc->height,
          precision, kernel, &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_hs_plan_set_geometry (plan, geometry),
      CF_OK);
  fail_unless_equals_int (cf_cuda_hs_plan_set_pdl (plan, pdl), CF_OK);
  cf_test_poisoned_flow (sc->width, sc->height, &flow, stream);
  fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &sc->g0, &sc->g1, hp,
          0, &flow, stream), CF_OK);
  out = cf_test_download_flow (&flow, stream);
  cf_cuda_flow_release (&flow);
  cf_cuda_hs_plan_free (plan);
  return out;
}

/* Run gpu_run_geometry and assert its flow bit-identical to @ref, the
 * message naming the kernel, geometry, PDL, precision and @against. */
static void
assert_geometry_run_identical (const scene * sc, cf_precision precision,
    cf_hs_kernel kernel, cf_hs_geometry geometry, int pdl,
    const cf_hs_params * hp, const cf_flow * ref, const char *against)
{
  cf_flow *got = gpu_run_geometry (sc, precision, kernel, geometry, pdl, hp);
  gchar *what = g_strdup_printf ("plan %s %s%s vs %s (%s)",
      kernel == CF_HS_KERNEL_STREAM ? "STREAM" : "FUSED_DB",
      cf_cuda_hs_geometry_name (geometry), pdl ? "" : " without PDL",
      against, precision == CF_PRECISION_FP16 ? "fp16" : "fp32");

  cf_test_assert_flow_identical (got, ref, what);
  g_free (what);
  cf_flow_free (got);
}

/* The plan's whole pipeline (graphs, zero-started first sweeps) is exact
 * between SIMPLE, FUSED and FUSED_DB too, in both precisions, with the
 * geometry picked per level (AUTO) or forced on every level, with and
 * without programmatic dependent launch; 3K + 2 sweeps per warp. */
GST_START_TEST (test_plan_simple_and_fused_identical)
{
  static const cf_precision precisions[] = { CF_PRECISION_FP32,
    CF_PRECISION_FP16
  };
  cf_pyramid_params pp;
  cf_hs_params hp;
  scene sc;
  int p, g;

  cf_pyramid_params_init (&pp);
  cf_hs_params_init (&hp);
  hp.warps = 2;
  hp.iterations = 3 * K + 2;
  scene_make (&sc, 641, 479, CF_SYNTH_SMOOTH, &pp, 0);
  for (p = 0; p < (int) G_N_ELEMENTS (precisions); p++) {
    cf_flow *simple, *fused;

    simple = gpu_run (&sc, precisions[p], CF_HS_KERNEL_SIMPLE, &hp, NULL);
    fused = gpu_run (&sc, precisions[p], CF_HS_KERNEL_FUSED, &hp, NULL);
    cf_test_assert_flow_identical (fused, simple, "plan FUSED vs SIMPLE");
    cf_flow_free (fused);
    for (g = CF_HS_GEOMETRY_AUTO; g < CF_HS_N_GEOMETRIES + 1; g++) {
      /* the last round: AUTO without PDL */
      int pdl = g < CF_HS_N_GEOMETRIES;
      cf_hs_geometry geom = pdl ? (cf_hs_geometry) g : CF_HS_GEOMETRY_AUTO;

      assert_geometry_run_identical (&sc, precisions[p],
          CF_HS_KERNEL_FUSED_DB, geom, pdl, &hp, simple, "SIMPLE");
    }
    cf_flow_free (simple);
  }
  scene_clear (&sc);
}

GST_END_TEST;

/* A STREAM plan on a frame whose finest level runs STREAM (1280 x 720:
 * 240 of its blocks; the coarser levels run FUSED_DB, too small for half
 * a wave), with a count that ends in a shorter FUSED_DB launch: SIMPLE's
 * bits, in both precisions, with and without programmatic dependent
 * launch. */
GST_START_TEST (test_plan_stream_identical_to_simple)
{
  static const cf_precision precisions[] = { CF_PRECISION_FP32,
    CF_PRECISION_FP16
  };
  cf_pyramid_params pp;
  cf_hs_params hp;
  scene sc;
  int p, pdl;

  cf_pyramid_params_init (&pp);
  cf_hs_params_init (&hp);
  hp.warps = 2;
  hp.iterations = 3 * CF_CUDA_HS_STREAM_DEPTH + 2;
  scene_make (&sc, 1280, 720, CF_SYNTH_ROTATION_ZOOM, &pp, 0);
  for (p = 0; p < (int) G_N_ELEMENTS (precisions); p++) {
    cf_flow *simple = gpu_run (&sc, precisions[p], CF_HS_KERNEL_SIMPLE, &hp,
        NULL);

    for (pdl = 1; pdl >= 0; pdl--)
      assert_geometry_run_identical (&sc, precisions[p], CF_HS_KERNEL_STREAM,
          CF_HS_GEOMETRY_AUTO, pdl, &hp, simple, "SIMPLE");
    cf_flow_free (simple);
  }
  scene_clear (&sc);
}

GST_END_TEST;

/* Tile flags (a plan with programmatic dependent launch: each block of a
 * launch waits for the nine tiles of the previous one that its region
 * reads, not for the whole kernel) against waits for whole kernels (the
 * same plan without it): the same bits, on a frame whose finest level
 * takes several waves of blocks, with the geometry of the most tiles, the
 * largest one and AUTO's, in both precisions, and alike in every run. */
GST_START_TEST (test_plan_tile_flags_match_whole_kernel_waits)
{
  static const cf_precision precisions[] = { CF_PRECISION_FP32,
    CF_PRECISION_FP16
  };
  static const cf_hs_geometry geometries[] = { CF_HS_GEOMETRY_32X32_K8,
    CF_HS_GEOMETRY_128X96_K8, CF_HS_GEOMETRY_AUTO
  };
  cf_pyramid_params pp;
  cf_hs_params hp;
  scene sc;
  int p, g, run;

  cf_pyramid_params_init (&pp);
  cf_hs_params_init (&hp);
  hp.warps = 2;
  hp.iterations = 6 * K + 3;
  scene_make (&sc, 1920, 1080, CF_SYNTH_SMOOTH, &pp, 0);
  for (p = 0; p < (int) G_N_ELEMENTS (precisions); p++) {
    for (g = 0; g < (int) G_N_ELEMENTS (geometries); g++) {
      cf_flow *waits = gpu_run_geometry (&sc, precisions[p],
          CF_HS_KERNEL_FUSED_DB, geometries[g], 0, &hp);

      /* with PDL: tile flags on the levels that fill the GPU */
      for (run = 0; run < 3; run++)
        assert_geometry_run_identical (&sc, precisions[p],
            CF_HS_KERNEL_FUSED_DB, geometries[g], 1, &hp, waits,
            "the same without PDL (whole-kernel waits)");
      cf_flow_free (waits);
    }
  }
  scene_clear (&sc);
}

GST_END_TEST;

GST_START_TEST (test_fp16_epe_close_to_fp32)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM, CF_SYNTH_SMOOTH
  };
  int m;

  for (m = 0; m < (int) G_N_ELEMENTS (motions); m++) {
    cf_pyramid_params pp;
    cf_hs_params hp;
    scene sc;
    cf_flow *f32, *f16, *s16;
    double e32, e16, es16;

    cf_pyramid_params_init (&pp);
    cf_hs_params_init (&hp);
    hp.warps = 3;
    hp.iterations = 100;
    scene_make (&sc, 641, 479, motions[m], &pp, 0);
    f32 = gpu_run (&sc, CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, &hp, NULL);
    f16 = gpu_run (&sc, CF_PRECISION_FP16, CF_HS_KERNEL_FUSED_DB, &hp, NULL);
    s16 = gpu_run (&sc, CF_PRECISION_FP16, CF_HS_KERNEL_SIMPLE, &hp, NULL);
    e32 = epe_of (f32, sc.truth);
    e16 = epe_of (f16, sc.truth);
    es16 = epe_of (s16, sc.truth);
    GST_INFO ("motion %d: EPE fp32 %.5f, fp16 fused %.5f, fp16 simple %.5f",
        motions[m], e32, e16, es16);
    /* fp32 must have found the motion for the comparison to mean much */
    fail_unless (e32 < 0.5, "fp32 EPE %g", e32);
    fail_unless (fabs (e16 - e32) <= FP16_EPE_ABS + FP16_EPE_REL * e32,
        "motion %d: fp16 EPE %g vs fp32 %g", motions[m], e16, e32);
    fail_unless (fabs (es16 - e32) <= FP16_EPE_ABS + FP16_EPE_REL * e32,
        "motion %d: fp16 SIMPLE EPE %g vs fp32 %g", motions[m], es16, e32);
    /* fp16 SIMPLE and FUSED_DB share the per-cell code: identical too */
    cf_test_assert_flow_identical (f16, s16, "fp16 FUSED_DB vs SIMPLE");
    cf_flow_free (f32);
    cf_flow_free (f16);
    cf_flow_free (s16);
    scene_clear (&sc);
  }
}

GST_END_TEST;

/* One plan, many runs: same input -> same bits; a changed iteration count
 * or alpha (graph re-capture) and smaller frames give what a fresh plan
 * gives. */
GST_START_TEST (test_plan_reuse)
{
  static const cf_precision precisions[] = { CF_PRECISION_FP32,
    CF_PRECISION_FP16
  };
  int p;

  for (p = 0; p < (int) G_N_ELEMENTS (precisions); p++) {
    cf_pyramid_params pp;
    cf_hs_params hp;
    scene big, small;
    cf_cuda_hs_plan *plan = NULL;
    cf_cuda_flow flow, sflow;
    cf_flow *first, *again, *fresh;
    int round;

    cf_pyramid_params_init (&pp);
    cf_hs_params_init (&hp);
    hp.warps = 2;
    hp.iterations = 20;
    scene_make (&big, 641, 479, CF_SYNTH_SMOOTH, &pp, 0);
    scene_make (&small, 320, 241, CF_SYNTH_TRANSLATION, &pp, 0);
    fail_unless_equals_int (cf_cuda_hs_plan_new (641, 479, precisions[p],
            CF_HS_KERNEL_AUTO, &plan), CF_OK);
    cf_test_poisoned_flow (641, 479, &flow, stream);
    cf_test_poisoned_flow (320, 241, &sflow, stream);

    fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &big.g0, &big.g1, &hp,
            0, &flow, stream), CF_OK);
    first = cf_test_download_flow (&flow, stream);
    for (round = 0; round < 2; round++) {
      fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &big.g0, &big.g1,
              &hp, 0, &flow, stream), CF_OK);
      again = cf_test_download_flow (&flow, stream);
      cf_test_assert_flow_identical (again, first, "second run of a plan");
      cf_flow_free (again);
    }

    /* other iteration count, then other alpha */
    hp.iterations = 13;
    fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &big.g0, &big.g1, &hp,
            0, &flow, stream), CF_OK);
    again = cf_test_download_flow (&flow, stream);
    fresh = gpu_run (&big, precisions[p], CF_HS_KERNEL_AUTO, &hp, NULL);
    cf_test_assert_flow_identical (again, fresh,
        "plan after new iteration count");
    cf_flow_free (again);
    cf_flow_free (fresh);
    hp.alpha = 30.0f;
    fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &big.g0, &big.g1, &hp,
            0, &flow, stream), CF_OK);
    again = cf_test_download_flow (&flow, stream);
    fresh = gpu_run (&big, precisions[p], CF_HS_KERNEL_AUTO, &hp, NULL);
    cf_test_assert_flow_identical (again, fresh, "plan after new alpha");
    cf_flow_free (again);
    cf_flow_free (fresh);

    /* another geometry on every level (graphs captured again), then back
     * to AUTO: the same bits */
    fail_unless_equals_int (cf_cuda_hs_plan_set_geometry (plan,
            CF_HS_GEOMETRY_128X96_K8), CF_OK);
    fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &big.g0, &big.g1, &hp,
            0, &flow, stream), CF_OK);
    again = cf_test_download_flow (&flow, stream);
    fresh = gpu_run (&big, precisions[p], CF_HS_KERNEL_AUTO, &hp, NULL);
    cf_test_assert_flow_identical (again, fresh, "plan after new geometry");
    cf_flow_free (again);
    fail_unless_equals_int (cf_cuda_hs_plan_set_geometry (plan,
            CF_HS_GEOMETRY_AUTO), CF_OK);
    fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &big.g0, &big.g1, &hp,
            0, &flow, stream), CF_OK);
    again = cf_test_download_flow (&flow, stream);
    cf_test_assert_flow_identical (again, fresh, "plan back to AUTO");
    cf_flow_free (again);
    cf_flow_free (fresh);

    /* smaller frames through the big plan */
    fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &small.g0, &small.g1,
            &hp, 0, &sflow, stream), CF_OK);
    again = cf_test_download_flow (&sflow, stream);
    fresh = gpu_run (&small, precisions[p], CF_HS_KERNEL_AUTO, &hp, NULL);
    cf_test_assert_flow_identical (again, fresh,
        "smaller frames in a big plan");
    cf_flow_free (again);
    cf_flow_free (fresh);

    cf_flow_free (first);
    cf_cuda_flow_release (&flow);
    cf_cuda_flow_release (&sflow);
    cf_cuda_hs_plan_free (plan);
    scene_clear (&big);
    scene_clear (&small);
  }
}

GST_END_TEST;

/* use_initial: the given flow seeds the coarsest level, like cf_hs_flow;
 * seeded with the truth, the result is at least as good as a cold start. */
GST_START_TEST (test_warm_start)
{
  cf_pyramid_params pp;
  cf_hs_params hp;
  scene sc;
  cf_flow *ref, *cold, *warm;

  cf_pyramid_params_init (&pp);
  pp.max_levels = 3;
  cf_hs_params_init (&hp);
  hp.warps = 2;
  hp.iterations = 30;
  scene_make (&sc, 257, 193, CF_SYNTH_ROTATION_ZOOM, &pp, 1);

  ref = cf_flow_copy (sc.truth);
  fail_unless_equals_int (cf_hs_flow (sc.c0, sc.c1, &hp, 1, ref), CF_OK);
  warm = gpu_run (&sc, CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, &hp, sc.truth);
  assert_flow_mean_close (warm, ref, "warm start vs cf_hs_flow");
  cold = gpu_run (&sc, CF_PRECISION_FP32, CF_HS_KERNEL_AUTO, &hp, NULL);
  fail_unless (epe_of (warm, sc.truth) <= epe_of (cold, sc.truth) + 1e-3,
      "warm EPE %g, cold EPE %g", epe_of (warm, sc.truth),
      epe_of (cold, sc.truth));

  /* fp16 warm start follows the same path */
  cf_flow_free (warm);
  warm = gpu_run (&sc, CF_PRECISION_FP16, CF_HS_KERNEL_AUTO, &hp, sc.truth);
  fail_unless (fabs (epe_of (warm, sc.truth) - epe_of (ref, sc.truth)) <=
      FP16_EPE_ABS + FP16_EPE_REL * epe_of (ref, sc.truth));

  cf_flow_free (ref);
  cf_flow_free (cold);
  cf_flow_free (warm);
  scene_clear (&sc);
}

GST_END_TEST;

GST_START_TEST (test_plan_zero_iterations_keeps_flow)
{
  cf_pyramid_params pp;
  cf_hs_params hp;
  scene sc;
  cf_flow *cpu, *gpu;

  cf_pyramid_params_init (&pp);
  pp.max_levels = 3;
  cf_hs_params_init (&hp);
  hp.iterations = 0;
  scene_make (&sc, 65, 47, CF_SYNTH_TRANSLATION, &pp, 1);
  cpu = cf_flow_copy (sc.truth);
  fail_unless_equals_int (cf_hs_flow (sc.c0, sc.c1, &hp, 1, cpu), CF_OK);
  gpu = gpu_run (&sc, CF_PRECISION_FP32, CF_HS_KERNEL_FUSED, &hp, sc.truth);
  assert_flow_mean_close (gpu, cpu, "zero iterations, warm");
  cf_flow_free (gpu);
  gpu = gpu_run (&sc, CF_PRECISION_FP16, CF_HS_KERNEL_FUSED, &hp, NULL);
  fail_unless (gpu->u[0] == 0.0f && gpu->v[gpu->width - 1] == 0.0f);
  cf_flow_free (gpu);
  cf_flow_free (cpu);
  scene_clear (&sc);
}

GST_END_TEST;

GST_START_TEST (test_plan_rejects_bad_arguments)
{
  cf_pyramid_params pp;
  cf_hs_params hp;
  scene sc, other;
  cf_cuda_hs_plan *plan = NULL;
  cf_cuda_flow flow;

  cf_cuda_hs_plan_free (NULL);
  fail_unless_equals_int (cf_cuda_hs_plan_new (0, 10, CF_PRECISION_FP32,
          CF_HS_KERNEL_AUTO, &plan), CF_ERROR_INVALID);
  fail_unless (plan == NULL);
  fail_unless_equals_int (cf_cuda_hs_plan_new (10, 10, (cf_precision) 7,
          CF_HS_KERNEL_AUTO, &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_plan_new (10, 10, CF_PRECISION_FP32,
          (cf_hs_kernel) 9, &plan), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_plan_set_geometry (NULL,
          CF_HS_GEOMETRY_AUTO), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_hs_plan_set_pdl (NULL, 1),
      CF_ERROR_INVALID);

  cf_pyramid_params_init (&pp);
  cf_hs_params_init (&hp);
  scene_make (&sc, 64, 48, CF_SYNTH_TRANSLATION, &pp, 0);
  scene_make (&other, 80, 48, CF_SYNTH_TRANSLATION, &pp, 0);
  fail_unless_equals_int (cf_cuda_hs_plan_new (64, 48, CF_PRECISION_FP32,
          CF_HS_KERNEL_AUTO, &plan), CF_OK);
  fail_unless_equals_int (cf_cuda_hs_plan_set_geometry (plan,
          CF_HS_N_GEOMETRIES), CF_ERROR_INVALID);
  cf_test_poisoned_flow (64, 48, &flow, stream);
  /* pyramids of different sizes */
  fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &sc.g0, &other.g1, &hp,
          0, &flow, stream), CF_ERROR_INVALID);
  /* frames larger than the plan */
  fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &other.g0, &other.g1,
          &hp, 0, &flow, stream), CF_ERROR_INVALID);
  hp.warps = 0;
  fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &sc.g0, &sc.g1, &hp, 0,
          &flow, stream), CF_ERROR_INVALID);
  hp.warps = 1;
  hp.alpha = 0.0f;
  fail_unless_equals_int (cf_cuda_hs_plan_run (plan, &sc.g0, &sc.g1, &hp, 0,
          &flow, stream), CF_ERROR_INVALID);
  cf_cuda_flow_release (&flow);
  cf_cuda_hs_plan_free (plan);
  scene_clear (&sc);
  scene_clear (&other);
}

GST_END_TEST;

static Suite *
cuda_hs_suite (void)
{
  Suite *s = suite_create ("cuda_hs");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_derivatives_match_cpu);
  tcase_add_test (tc, test_coefficients_match_cpu);
  tcase_add_test (tc, test_jacobi_matches_cpu);
  tcase_add_test (tc, test_fused_is_bit_identical_to_simple);
  tcase_add_test (tc, test_fused_db_is_bit_identical_to_simple);
  tcase_add_test (tc, test_stream_is_bit_identical_to_simple);
  tcase_add_test (tc, test_geometry_names_and_depths);
  tcase_add_test (tc, test_jacobi_zero_iterations_and_bad_arguments);
  tcase_add_test (tc, test_add_increment_matches_cpu);
  tcase_add_test (tc, test_plan_matches_cpu_flow);
  tcase_add_test (tc, test_plan_simple_and_fused_identical);
  tcase_add_test (tc, test_plan_stream_identical_to_simple);
  tcase_add_test (tc, test_plan_tile_flags_match_whole_kernel_waits);
  tcase_add_test (tc, test_fp16_epe_close_to_fp32);
  tcase_add_test (tc, test_plan_reuse);
  tcase_add_test (tc, test_warm_start);
  tcase_add_test (tc, test_plan_zero_iterations_keeps_flow);
  tcase_add_test (tc, test_plan_rejects_bad_arguments);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_hs", cuda_hs_suite);
}
