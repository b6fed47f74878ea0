/* gst-cudaflow — GPU flow visualisation vs the CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_cuda_flowviz_render against cf_flowviz_render: every mode, every byte
 * order, fixed and automatic max-flow, unknown vectors mixed in. atan2f
 * and sqrtf may differ in the last bit between host and device, which can
 * move a channel by one level: every channel within 1, and at least 99.9 %
 * of the pixels identical (at most ceil(0.1 %) differing, so one pixel
 * of a small frame may).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/flowviz.h"
#include "cuda/flowviz.h"

/* byte filled into both outputs first: untouched bytes (x of RGBx) must
 * stay equal */
#define CANVAS 0x5a
#define MIN_IDENTICAL 0.999

typedef struct
{
  const char *name;
  int r, g, b, a;
} byte_order;

static const byte_order orders[] = {
  {"RGBA", 0, 1, 2, 3},
  {"BGRA", 2, 1, 0, 3},
  {"RGBx", 0, 1, 2, -1},
  {"BGRx", 2, 1, 0, -1},
};

static const cf_flowviz_mode modes[] = {
  CF_FLOWVIZ_MIDDLEBURY, CF_FLOWVIZ_HSV, CF_FLOWVIZ_ARROWS
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

/* Interleaved random vectors in [-amp, amp], rows of @stride bytes, with
 * unknown ones (1e10, -1e10, NaN in either component) sprinkled in. */
static float *
make_uv (int width, int height, size_t stride, float amp, guint32 seed)
{
  float *uv = g_malloc0 (stride * height);
  guint32 state = seed;
  int x, y;

  for (y = 0; y < height; y++) {
    float *row = (float *) ((char *) uv + (size_t) y * stride);
    for (x = 0; x < 2 * width; x++) {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      row[x] = amp * (2.0f * (float) ((state >> 8) * (1.0 / 16777216.0)) -
          1.0f);
      switch (state % 97) {
        case 0:
          row[x] = CF_FLOW_UNKNOWN;
          break;
        case 1:
          row[x] = -CF_FLOW_UNKNOWN;
          break;
        case 2:
          row[x] = NAN;
          break;
        default:
          break;
      }
    }
  }
  /* one zero vector (white) */
  uv[0] = uv[1] = 0.0f;
  return uv;
}

static void
compare_render (const float *uv, size_t uv_stride, int width, int height,
    const cf_flowviz_params * params, float max_flow, const char *order)
{
  size_t out_stride = 4 * (size_t) width + 8;
  size_t n = out_stride * height;
  uint8_t *ref = g_malloc (n), *got = g_malloc (n), *dout = NULL;
  float *duv = NULL, *scratch = NULL;
  long identical = 0, total = (long) width * height;
  int x, y, k;

  memset (ref, CANVAS, n);
  fail_unless_equals_int (cf_flowviz_render (uv, uv_stride, width, height,
          params, max_flow, ref, out_stride), CF_OK);

  fail_unless_equals_int (cudaMalloc ((void **) &duv, uv_stride * height),
      cudaSuccess);
  fail_unless_equals_int (cudaMemcpy (duv, uv, uv_stride * height,
          cudaMemcpyHostToDevice), cudaSuccess);
  fail_unless_equals_int (cudaMalloc ((void **) &dout, n), cudaSuccess);
  fail_unless_equals_int (cudaMemset (dout, CANVAS, n), cudaSuccess);
  fail_unless_equals_int (cf_cuda_flowviz_scratch_alloc (&scratch), CF_OK);
  fail_unless_equals_int (cf_cuda_flowviz_render (duv, uv_stride, width,
          height, params, max_flow, scratch, dout, out_stride, stream), CF_OK);
  fail_unless_equals_int (cudaStreamSynchronize (stream), cudaSuccess);
  fail_unless_equals_int (cudaMemcpy (got, dout, n, cudaMemcpyDeviceToHost),
      cudaSuccess);

  for (y = 0; y < height; y++) {
    const uint8_t *a = got + (size_t) y * out_stride;
    const uint8_t *b = ref + (size_t) y * out_stride;
    for (x = 0; x < width; x++) {
      int same = 1;
      for (k = 0; k < 4; k++) {
        int d = abs ((int) a[4 * x + k] - (int) b[4 * x + k]);
        fail_unless (d <= 1, "%s mode %d max-flow %g (%dx%d): pixel (%d, %d) "
            "byte %d: gpu %d cpu %d", order, params->mode, max_flow, width,
            height, x, y, k, a[4 * x + k], b[4 * x + k]);
        same &= d == 0;
      }
      identical += same;
    }
    /* the row padding is never written */
    for (k = 4 * width; k < (int) out_stride; k++)
      fail_unless (a[k] == CANVAS);
  }
  /* at most 0.1 % differ, rounded up: one pixel of a small image */
  fail_unless (total - identical <= (long) ceil ((1.0 - MIN_IDENTICAL) *
          total),
      "%s mode %d max-flow %g (%dx%d): only %ld of %ld pixels identical",
      order, params->mode, max_flow, width, height, identical, total);

  cf_cuda_flowviz_scratch_free (scratch);
  cudaFree (duv);
  cudaFree (dout);
  g_free (ref);
  g_free (got);
}

GST_START_TEST (test_render_matches_cpu)
{
  static const int sizes[][2] = { {1, 1}, {17, 13}, {641, 479} };
  /* fixed max-flow below and above the data's range, then automatic */
  static const float max_flows[] = { 4.0f, 25.0f, 0.0f };
  int s, m, o, f;

  for (s = 0; s < (int) G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], h = sizes[s][1];
    size_t uv_stride = 2 * (size_t) w * sizeof (float) + 16;
    float *uv = make_uv (w, h, uv_stride, 10.0f, 1234 + s);

    for (m = 0; m < (int) G_N_ELEMENTS (modes); m++)
      for (o = 0; o < (int) G_N_ELEMENTS (orders); o++)
        for (f = 0; f < (int) G_N_ELEMENTS (max_flows); f++) {
          cf_flowviz_params params;
          params.mode = modes[m];
          params.arrow_step = 16;
          params.r = orders[o].r;
          params.g = orders[o].g;
          params.b = orders[o].b;
          params.a = orders[o].a;
          compare_render (uv, uv_stride, w, h, &params, max_flows[f],
              orders[o].name);
        }
    g_free (uv);
  }
}

GST_END_TEST;

/* Automatic max-flow of a frame with no known vector falls back to 1 on
 * both sides; an all-zero frame is white. */
GST_START_TEST (test_render_degenerate_frames)
{
  const int w = 33, h = 9;
  size_t uv_stride = 2 * (size_t) w * sizeof (float);
  float *unknown = g_malloc (uv_stride * h);
  float *zero = g_malloc0 (uv_stride * h);
  cf_flowviz_params params;
  int i, m;

  for (i = 0; i < 2 * w * h; i++)
    unknown[i] = (i % 3) ? CF_FLOW_UNKNOWN : NAN;
  params.arrow_step = 8;
  params.r = 0;
  params.g = 1;
  params.b = 2;
  params.a = 3;
  for (m = 0; m < (int) G_N_ELEMENTS (modes); m++) {
    params.mode = modes[m];
    compare_render (unknown, uv_stride, w, h, &params, 0.0f, "RGBA");
    compare_render (zero, uv_stride, w, h, &params, 0.0f, "RGBA");
  }
  g_free (unknown);
  g_free (zero);
}

GST_END_TEST;

GST_START_TEST (test_render_rejects_bad_arguments)
{
  cf_flowviz_params params = { CF_FLOWVIZ_MIDDLEBURY, 16, 0, 1, 2, 3 };
  float *duv = NULL;
  uint8_t *dout = NULL;

  fail_unless_equals_int (cudaMalloc ((void **) &duv, 64), cudaSuccess);
  fail_unless_equals_int (cudaMalloc ((void **) &dout, 64), cudaSuccess);
  /* automatic max-flow needs the scratch */
  fail_unless_equals_int (cf_cuda_flowviz_render (duv, 16, 2, 2, &params,
          0.0f, NULL, dout, 8, stream), CF_ERROR_INVALID);
  params.r = 4;
  fail_unless_equals_int (cf_cuda_flowviz_render (duv, 16, 2, 2, &params,
          1.0f, NULL, dout, 8, stream), CF_ERROR_INVALID);
  params.r = 0;
  params.arrow_step = 1;
  fail_unless_equals_int (cf_cuda_flowviz_render (duv, 16, 2, 2, &params,
          1.0f, NULL, dout, 8, stream), CF_ERROR_INVALID);
  cudaFree (duv);
  cudaFree (dout);
}

GST_END_TEST;

static Suite *
cuda_flowviz_suite (void)
{
  Suite *s = suite_create ("cuda_flowviz");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_render_matches_cpu);
  tcase_add_test (tc, test_render_degenerate_frames);
  tcase_add_test (tc, test_render_rejects_bad_arguments);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_flowviz",
      cuda_flowviz_suite);
}
