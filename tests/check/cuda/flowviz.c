/* gst-cudaflow — GPU flow visualisation vs the CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_cuda_flowviz_render against cf_flowviz_render: every mode, every byte
 * order, fixed and automatic max-flow, unknown vectors mixed in. atan2f
 * and sqrtf may differ in the last bit between host and device, which can
 * move a channel by one level: every channel within 1, and at least 99.9 %
 * of the pixels identical (at most ceil(0.1 %) differing, so one pixel
 * of a small frame may).
 *
 * cf_cuda_flowviz_render_video against cf_flowviz_render_video: every
 * video format over pitched device planes, every mode, opacities 0, 0.6
 * and 1. The video conversion and the blend are integer arithmetic: a
 * blended colour moves by at most the colour's one level, and without a
 * flow (the video alone) the output must be identical to the bit.
 *
 * mode=overlay scales the opacity per pixel: weight round (W min (1, r)),
 * W = round (256 alpha), r = sqrtf (fx*fx + fy*fy) of the vector over
 * max-flow, in float (cf_flowviz_motion_weight). nvcc contracts by
 * default, so the device may form fx*fx + fy*fy and W*r + 0.5 with fmaf
 * (and the automatic max-flow's length too): r and the product can differ
 * from the host's in the last bit, which flips the weight's rounding by
 * one only where W r lies within a few float ulps (~2^-15) of a
 * half-integer. A weight one off moves a blended channel by less than one
 * level (|over - under| <= 255 < 256), so "every channel within 1" holds;
 * it and a one-level colour difference on the same pixel would need two
 * independent last-bit coincidences at once. Modelled on the host (fmaf in
 * either operand order, in the length and in W*r + 0.5): no flip on this
 * suite's data, about 1e-6 of random vectors in general, far inside the
 * 0.1 % allowance. At rest (r = 0) and at or beyond max-flow (min = 1)
 * W r + 0.5 is exact on both sides, so those pixels cannot flip.
 *
 * Arrows must cover the same pixels on both sides: an arrow pixel in the
 * wrong place is a whole colour off, far beyond one level. The geometry
 * (scale, length, distances to shaft and head, the automatic max-flow
 * it may be relative to) rounds every product and sum on its own on the
 * device (cf_flowviz_dot: __fmul_rn/__fadd_rn, never fused) and uses
 * IEEE sqrtf and division, so it gives the host's bits. Every arrow
 * parameter is varied: scale (relative, 4, 10, far beyond the 1.5-step
 * cap), arrow-min (0, 0.5, 3), thickness (1, 2, 5.5, 16 at step 4, the
 * widest reach), colour. A frame without a field is uniform grey (flow
 * modes) or the video (overlays) on both sides, to the bit.
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
  CF_FLOWVIZ_MIDDLEBURY, CF_FLOWVIZ_HSV, CF_FLOWVIZ_ARROWS,
  CF_FLOWVIZ_OVERLAY, CF_FLOWVIZ_OVERLAY_ARROWS
};

/* overlay opacity where the tests do not vary it (the element's default) */
#define ALPHA 0.6f

/* arrows where the tests do not vary them (the element's defaults) */
static void
default_arrows (cf_flowviz_params * params)
{
  params->arrow_scale = 4.0f;
  params->arrow_min = 0.5f;
  params->arrow_thickness = 2.0f;
  params->arrow_color = 0xffffff;
}

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

/* Render on both sides and compare. @video / @dvideo: the frame as host
 * and device planes (both NULL: flow only, cf_flowviz_render and its
 * twin); @uv NULL: no flow (then the outputs must be identical). */
static void
compare_render_full (const cf_flowviz_video * video,
    const cf_flowviz_video * dvideo, const float *uv, size_t uv_stride,
    int width, int height, const cf_flowviz_params * params, float max_flow,
    const char *what)
{
  size_t out_stride = 4 * (size_t) width + 8;
  size_t n = out_stride * height;
  uint8_t *ref = g_malloc (n), *got = g_malloc (n), *dout = NULL;
  float *duv = NULL, *scratch = NULL;
  long identical = 0, total = (long) width * height;
  int x, y, k;

  memset (ref, CANVAS, n);
  if (video == NULL && uv != NULL) {
    fail_unless_equals_int (cf_flowviz_render (uv, uv_stride, width, height,
            params, max_flow, ref, out_stride), CF_OK);
  } else {
    fail_unless_equals_int (cf_flowviz_render_video (video, uv, uv_stride,
            width, height, params, max_flow, ref, out_stride), CF_OK);
  }

  if (uv != NULL) {
    CUDA_OK (cudaMalloc ((void **) &duv, uv_stride * height));
    CUDA_OK (cudaMemcpy (duv, uv, uv_stride * height,
            cudaMemcpyHostToDevice));
  }
  CUDA_OK (cudaMalloc ((void **) &dout, n));
  CUDA_OK (cudaMemset (dout, CANVAS, n));
  fail_unless_equals_int (cf_cuda_flowviz_scratch_alloc (&scratch), CF_OK);
  if (dvideo == NULL && uv != NULL) {
    fail_unless_equals_int (cf_cuda_flowviz_render (duv, uv_stride, width,
            height, params, max_flow, scratch, dout, out_stride, stream),
        CF_OK);
  } else {
    fail_unless_equals_int (cf_cuda_flowviz_render_video (dvideo, duv,
            uv_stride, width, height, params, max_flow, scratch, dout,
            out_stride, stream), CF_OK);
  }
  CUDA_OK (cudaStreamSynchronize (stream));
  CUDA_OK (cudaMemcpy (got, dout, n, cudaMemcpyDeviceToHost));

  for (y = 0; y < height; y++) {
    const uint8_t *a = got + (size_t) y * out_stride;
    const uint8_t *b = ref + (size_t) y * out_stride;
    for (x = 0; x < width; x++) {
      int same = 1;
      for (k = 0; k < 4; k++) {
        int d = abs ((int) a[4 * x + k] - (int) b[4 * x + k]);
        /* asserted only on failure: every passing check writes a mark
         * into check's log, which dominated the run time */
        if (d > 1)
          ck_abort_msg ("%s mode %d max-flow %g (%dx%d): pixel (%d, %d) "
              "byte %d: gpu %d cpu %d", what, params->mode, max_flow, width,
              height, x, y, k, a[4 * x + k], b[4 * x + k]);
        same &= d == 0;
      }
      identical += same;
    }
    /* the row padding is never written */
    for (k = 4 * width; k < (int) out_stride; k++)
      if (a[k] != CANVAS)
        ck_abort_msg ("%s (%dx%d): row %d padding byte %d written", what,
            width, height, y, k);
  }
  if (uv == NULL) {
    /* the video alone: integer arithmetic only */
    fail_unless (identical == total, "%s mode %d (%dx%d), no flow: only %ld "
        "of %ld pixels identical", what, params->mode, width, height,
        identical, total);
  } else {
    /* at most 0.1 % differ, rounded up: one pixel of a small image */
    fail_unless (total - identical <= (long) ceil ((1.0 - MIN_IDENTICAL) *
            total),
        "%s mode %d max-flow %g (%dx%d): only %ld of %ld pixels identical",
        what, params->mode, max_flow, width, height, identical, total);
  }

  cf_cuda_flowviz_scratch_free (scratch);
  if (duv != NULL)
    cudaFree (duv);
  cudaFree (dout);
  g_free (ref);
  g_free (got);
}

static void
compare_render (const float *uv, size_t uv_stride, int width, int height,
    const cf_flowviz_params * params, float max_flow, const char *order)
{
  compare_render_full (NULL, NULL, uv, uv_stride, width, height, params,
      max_flow, order);
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
          params.alpha = ALPHA;
          default_arrows (&params);
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
  params.alpha = ALPHA;
  default_arrows (&params);
  for (m = 0; m < (int) G_N_ELEMENTS (modes); m++) {
    params.mode = modes[m];
    compare_render (unknown, uv_stride, w, h, &params, 0.0f, "RGBA");
    compare_render (zero, uv_stride, w, h, &params, 0.0f, "RGBA");
    /* no field at all (a GAP frame): neutral grey or black, to the bit */
    compare_render (NULL, 0, w, h, &params, 0.0f, "RGBA, no field");
  }
  g_free (unknown);
  g_free (zero);
}

GST_END_TEST;

GST_START_TEST (test_render_rejects_bad_arguments)
{
  cf_flowviz_params params = { CF_FLOWVIZ_MIDDLEBURY, 16, 0, 1, 2, 3,
    ALPHA, 4.0f, 0.5f, 2.0f, 0xffffff
  };
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
  /* arrow fields are checked in the arrow modes only */
  params.arrow_step = 16;
  params.arrow_thickness = 0.0f;
  fail_unless_equals_int (cf_cuda_flowviz_render (duv, 16, 2, 2, &params,
          1.0f, NULL, dout, 8, stream), CF_OK);
  params.mode = CF_FLOWVIZ_ARROWS;
  fail_unless_equals_int (cf_cuda_flowviz_render (duv, 16, 2, 2, &params,
          1.0f, NULL, dout, 8, stream), CF_ERROR_INVALID);
  params.arrow_thickness = 2.0f;
  params.arrow_scale = -1.0f;
  fail_unless_equals_int (cf_cuda_flowviz_render (duv, 16, 2, 2, &params,
          1.0f, NULL, dout, 8, stream), CF_ERROR_INVALID);
  CUDA_OK (cudaStreamSynchronize (stream));
  cudaFree (duv);
  cudaFree (dout);
}

GST_END_TEST;

/* One video frame with random bytes (padding included) in host planes of
 * odd strides and in pitched device planes. */
typedef struct
{
  cf_flowviz_video host;
  cf_flowviz_video dev;
  uint8_t *hplanes[3];
  uint8_t *dplanes[3];
} test_video;

typedef struct
{
  const char *name;
  cf_flowviz_video_format format;
  int r, g, b;
} video_format;

static const video_format video_formats[] = {
  {"GRAY8", CF_FLOWVIZ_VIDEO_GRAY8, 0, 0, 0},
  {"GRAY16_LE", CF_FLOWVIZ_VIDEO_GRAY16_LE, 0, 0, 0},
  {"NV12", CF_FLOWVIZ_VIDEO_NV12, 0, 0, 0},
  {"I420", CF_FLOWVIZ_VIDEO_I420, 0, 0, 0},
  {"RGBA", CF_FLOWVIZ_VIDEO_RGB32, 0, 1, 2},
  {"BGRx", CF_FLOWVIZ_VIDEO_RGB32, 2, 1, 0},
};

static void
make_video (const video_format * vf, int width, int height, guint32 seed,
    test_video * tv)
{
  int cw = (width + 1) / 2, ch = (height + 1) / 2;
  int row_bytes[3] = { 0, 0, 0 }, rows[3] = { 0, 0, 0 };
  guint32 state = seed;
  int p, n_planes = 1;
  size_t i;

  switch (vf->format) {
    case CF_FLOWVIZ_VIDEO_GRAY8:
      row_bytes[0] = width;
      break;
    case CF_FLOWVIZ_VIDEO_GRAY16_LE:
      row_bytes[0] = 2 * width;
      break;
    case CF_FLOWVIZ_VIDEO_NV12:
      row_bytes[0] = width;
      row_bytes[1] = 2 * cw;
      rows[1] = ch;
      n_planes = 2;
      break;
    case CF_FLOWVIZ_VIDEO_I420:
      row_bytes[0] = width;
      row_bytes[1] = row_bytes[2] = cw;
      rows[1] = rows[2] = ch;
      n_planes = 3;
      break;
    default:
      row_bytes[0] = 4 * width;
      break;
  }
  rows[0] = height;

  memset (tv, 0, sizeof (*tv));
  tv->host.format = tv->dev.format = vf->format;
  tv->host.r = tv->dev.r = vf->r;
  tv->host.g = tv->dev.g = vf->g;
  tv->host.b = tv->dev.b = vf->b;
  for (p = 0; p < n_planes; p++) {
    size_t hstride = (size_t) row_bytes[p] + 5, dpitch = 0;
    size_t size = hstride * rows[p];
    tv->hplanes[p] = g_malloc (size);
    for (i = 0; i < size; i++) {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      tv->hplanes[p][i] = (uint8_t) (state >> 11);
    }
    CUDA_OK (cudaMallocPitch ((void **) &tv->dplanes[p], &dpitch,
            row_bytes[p], rows[p]));
    CUDA_OK (cudaMemcpy2D (tv->dplanes[p], dpitch, tv->hplanes[p], hstride,
            row_bytes[p], rows[p], cudaMemcpyHostToDevice));
    tv->host.data[p] = tv->hplanes[p];
    tv->host.stride[p] = hstride;
    tv->dev.data[p] = tv->dplanes[p];
    tv->dev.stride[p] = dpitch;
  }
}

static void
free_video (test_video * tv)
{
  int p;

  for (p = 0; p < 3; p++) {
    g_free (tv->hplanes[p]);
    if (tv->dplanes[p] != NULL)
      cudaFree (tv->dplanes[p]);
  }
}

GST_START_TEST (test_render_video_matches_cpu)
{
  static const int sizes[][2] = { {1, 1}, {17, 13}, {641, 479} };
  static const float max_flows[] = { 4.0f, 0.0f };
  static const float alphas[] = { 0.0f, ALPHA, 1.0f };
  int s, v, m, f, a;

  for (s = 0; s < (int) G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], h = sizes[s][1];
    size_t uv_stride = 2 * (size_t) w * sizeof (float) + 16;
    float *uv = make_uv (w, h, uv_stride, 10.0f, 4321 + s);

    for (v = 0; v < (int) G_N_ELEMENTS (video_formats); v++) {
      test_video tv;
      make_video (&video_formats[v], w, h, 99 + 7 * s + v, &tv);
      for (m = 0; m < (int) G_N_ELEMENTS (modes); m++) {
        int overlay = modes[m] == CF_FLOWVIZ_OVERLAY ||
            modes[m] == CF_FLOWVIZ_OVERLAY_ARROWS;
        /* every opacity on the small frames; the large one (arrows cost
         * the CPU reference ~0.2 s a frame) at the default */
        int n_alphas = overlay && w < 100 ? (int) G_N_ELEMENTS (alphas) : 1;
        for (a = 0; a < n_alphas; a++) {
          /* RGBx out: the fourth byte is never written */
          cf_flowviz_params params = { modes[m], 16, 0, 1, 2, -1,
            n_alphas > 1 ? alphas[a] : ALPHA, 4.0f, 0.5f, 2.0f, 0xffffff
          };
          for (f = 0; f < (int) G_N_ELEMENTS (max_flows); f++)
            compare_render_full (&tv.host, &tv.dev, uv, uv_stride, w, h,
                &params, max_flows[f], video_formats[v].name);
          /* no flow for this frame: the video alone */
          compare_render_full (&tv.host, &tv.dev, NULL, 0, w, h, &params,
              0.0f, video_formats[v].name);
        }
      }
      free_video (&tv);
    }
    g_free (uv);
  }
}

GST_END_TEST;

GST_START_TEST (test_render_video_rejects_bad_arguments)
{
  cf_flowviz_params params = { CF_FLOWVIZ_OVERLAY, 16, 0, 1, 2, 3, ALPHA,
    4.0f, 0.5f, 2.0f, 0xffffff
  };
  cf_flowviz_video video;
  uint8_t *dplane = NULL, *dout = NULL;
  float *duv = NULL;

  CUDA_OK (cudaMalloc ((void **) &dplane, 64));
  CUDA_OK (cudaMalloc ((void **) &duv, 64));
  CUDA_OK (cudaMalloc ((void **) &dout, 64));
  memset (&video, 0, sizeof (video));
  video.format = CF_FLOWVIZ_VIDEO_NV12;
  video.data[0] = dplane;
  video.stride[0] = video.stride[1] = 4;
  /* NV12 without its chroma plane */
  fail_unless_equals_int (cf_cuda_flowviz_render_video (&video, NULL, 0, 2,
          2, &params, 0.0f, NULL, dout, 8, stream), CF_ERROR_INVALID);
  video.data[1] = dplane;
  /* no flow: no maximum, no scratch needed */
  fail_unless_equals_int (cf_cuda_flowviz_render_video (&video, NULL, 0, 2,
          2, &params, 0.0f, NULL, dout, 8, stream), CF_OK);
  /* automatic max-flow of a flow needs the scratch */
  fail_unless_equals_int (cf_cuda_flowviz_render_video (&video, duv, 16, 2,
          2, &params, 0.0f, NULL, dout, 8, stream), CF_ERROR_INVALID);
  params.alpha = 2.0f;
  fail_unless_equals_int (cf_cuda_flowviz_render_video (&video, duv, 16, 2,
          2, &params, 1.0f, NULL, dout, 8, stream), CF_ERROR_INVALID);
  CUDA_OK (cudaStreamSynchronize (stream));
  cudaFree (dplane);
  cudaFree (duv);
  cudaFree (dout);
}

GST_END_TEST;

/* Arrows with every arrow parameter varied, alone (over the dimmed wheel)
 * and over a GRAY8 video, fixed and automatic max-flow, on a small and a
 * large odd frame; see the header for why they must cover the same
 * pixels. */
GST_START_TEST (test_arrow_parameters_match_cpu)
{
  static const int sizes[][2] = { {17, 13}, {641, 479} };
  static const struct
  {
    int step;
    float scale, min, thickness;
    uint32_t color;
  } styles[] = {
    {16, 0.0f, 0.0f, 1.0f, 0xffffff},   /* relative to max-flow */
    {16, 4.0f, 0.5f, 2.0f, 0x3366cc},   /* the defaults, a colour */
    {12, 10.0f, 3.0f, 5.5f, 0xff0000},  /* long, few, fractional width */
    {4, 1000.0f, 0.0f, 16.0f, 0x00ff80},        /* all capped, widest reach */
  };
  static const cf_flowviz_mode arrow_modes[] = { CF_FLOWVIZ_ARROWS,
    CF_FLOWVIZ_OVERLAY_ARROWS
  };
  static const float max_flows[] = { 4.0f, 0.0f };
  int s, k, m, f;

  for (s = 0; s < (int) G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], h = sizes[s][1];
    size_t uv_stride = 2 * (size_t) w * sizeof (float) + 16;
    float *uv = make_uv (w, h, uv_stride, 10.0f, 777 + s);
    test_video tv;

    make_video (&video_formats[0], w, h, 55 + s, &tv);
    for (k = 0; k < (int) G_N_ELEMENTS (styles); k++)
      for (m = 0; m < (int) G_N_ELEMENTS (arrow_modes); m++)
        for (f = 0; f < (int) G_N_ELEMENTS (max_flows); f++) {
          cf_flowviz_params params = { arrow_modes[m], styles[k].step, 0, 1,
            2, 3, ALPHA, styles[k].scale, styles[k].min,
            styles[k].thickness, styles[k].color
          };
          gchar *what = g_strdup_printf ("arrow style %d", k);
          compare_render (uv, uv_stride, w, h, &params, max_flows[f], what);
          compare_render_full (&tv.host, &tv.dev, uv, uv_stride, w, h,
              &params, max_flows[f], what);
          g_free (what);
        }
    free_video (&tv);
    g_free (uv);
  }
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
  tcase_add_test (tc, test_render_video_matches_cpu);
  tcase_add_test (tc, test_render_video_rejects_bad_arguments);
  tcase_add_test (tc, test_arrow_parameters_match_cpu);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_flowviz",
      cuda_flowviz_suite);
}
