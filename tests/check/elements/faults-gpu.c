/* gst-cudaflow — faults and edge cases of the GPU path. Exits 77 without a
 * device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the suite expects, on backend=cuda:
 * - Device memory exhausted (the test holds all free device memory but
 *   HOG_LEAVE_MB, see cf_test_gpu_hog_take), at the first frame, when a
 *   solver plan or a convolution plan is first needed mid-stream, and when
 *   the caps grow mid-stream (system and CUDA memory): the push fails, the
 *   element posts GST_RESOURCE_ERROR_NO_SPACE_LEFT whose text says GPU
 *   memory, the frame size and backend=cpu, and nothing crashes; the
 *   element stops under the hog; with the memory back a fresh element
 *   works, and so does the one that failed, with nothing half-built left
 *   from the failure (its result equals a fresh element's).
 * - Two elements given one GstCudaContext (two cudaconvolve on two threads
 *   at once; cudaflowtvl1 ! flowviz in one bin) both use it, and their
 *   outputs match the CPU backend's.
 * - Properties changed while PLAYING (TV-L1 precision, preset, levels,
 *   lambda; the convolution kernel and its size, the border): the output
 *   after the change equals a fresh element's with the new settings, and
 *   the CPU backend's within the usual tolerances.
 * - Caps renegotiated in CUDA memory to other sizes (odd, 1x1): outputs
 *   match the CPU's at every size.
 * - 8192 x 8192 frames: cudaconvolve with a 31 x 31 kernel matches the CPU
 *   on windows at the corners and the centre; cudaflowtvl1 (preset=fast)
 *   recovers a known translation, finite everywhere.
 * - Frames that alternate between system and CUDA memory on one element,
 *   within one caps and across a caps change, give the CPU's results.
 *
 * Each tolerance below is a named constant with its reason. The memory
 * hog is released by the test case's teardown too, so a failing test
 * does not starve the next one.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudaflow/cudaflow.h>

#include "cf-test-util.h"
#include "flow-test-util.h"
#include "common/metrics.h"

/* Device memory the hog leaves free, MiB (CF_TEST_GPU_HOG_LEAVE_MB
 * overrides it, e.g. for tools that need some themselves): far below what
 * an OOM_W x OOM_H frame needs (one float plane of it is 32 MiB, a
 * flow engine several hundred). */
#define HOG_LEAVE_MB 16
#define HOG_LEAVE_MAX_MB 64
/* after taking the memory, at most this much more than the leave may
 * remain free (the hog's smallest chunk, the driver's page) */
#define HOG_SLACK_MB 8
/* the frames that cannot fit while the hog holds the memory */
#define OOM_W 3840
#define OOM_H 2160
#define OOM_SIZE "3840x2160"
/* the frames that fit before the hog is taken */
#define SMALL_W 320
#define SMALL_H 240

/* The synthetic translation of every flow test (pixels per frame): the
 * exact flow of texture_image's frames. */
#define TX 1.5f
#define TY -0.75f
/* pixels left out at each edge of a translation, where frame 1 shows
 * content frame 0 does not have */
#define TRANSLATION_BORDER 16
/* mean EPE of a fast preset on this translation of the 8-bit texture:
 * the CPU reference scores 0.083 (TV-L1), 0.024 (HS) and 0.014 (CLG) from
 * 640 x 360 to 2560 x 1440, and fp16 may add FP16_EPE_ABS; a zero field
 * scores 1.68 */
#define TRANSLATION_EPE_MAX 0.15
/* mean |gpu − cpu| of one fp32 flow solve, px (flow-gpu's bar) */
#define FLOW_CPU_TOL 1e-3
/* the same element after a change vs a fresh one with the new settings:
 * the same kernels on the same bits; anything above rounding noise means
 * state from before the change was used */
#define FLOW_SAME_TOL 1e-6
/* fp16 state: EPE within FP16_EPE_ABS + FP16_EPE_REL · EPE(CPU, fp32)
 * (flow-gpu's budget for fp16) */
#define FP16_EPE_REL 1.05
#define FP16_EPE_ABS 0.01
/* 8-bit convolution output: fp32 sums in another order than the CPU's
 * may round the other way at .5 (cudaconvolve-gpu's bar) */
#define CONV_CPU_TOL 1
/* flowviz pictures of two flows within FLOW_CPU_TOL: colours move a
 * level or two on a few bytes (flow-gpu's bar) */
#define PICTURE_LEVEL_TOL 2
#define PICTURE_BYTES_PER_MILLE 1

/* --- device memory hog ------------------------------------------------ */

static cf_test_gpu_hog *hog;

static size_t
hog_leave_bytes (void)
{
  const gchar *env = g_getenv ("CF_TEST_GPU_HOG_LEAVE_MB");
  guint64 mb = HOG_LEAVE_MB;

  if (env != NULL && *env != '\0')
    mb = g_ascii_strtoull (env, NULL, 10);
  fail_unless (mb <= HOG_LEAVE_MAX_MB, "CF_TEST_GPU_HOG_LEAVE_MB=%s: more "
      "than %d MiB free would let " OOM_SIZE " frames fit", env,
      HOG_LEAVE_MAX_MB);
  return (size_t) mb << 20;
}

/* Hold all free device memory but the leave. */
static void
hog_take (void)
{
  size_t leave = hog_leave_bytes (), left;

  fail_unless (hog == NULL);
  hog = cf_test_gpu_hog_take (leave);
  left = cf_test_gpu_free_bytes ();
  fail_unless (left <= leave + ((size_t) HOG_SLACK_MB << 20),
      "could not take the device's memory: %" G_GSIZE_FORMAT " MiB still "
      "free", (gsize) (left >> 20));
}

static void
hog_release (void)
{
  g_clear_pointer (&hog, cf_test_gpu_hog_release);
}

/* every test case's teardown: a failed test may leave the hog held */
static void
release_hog_fixture (void)
{
  hog_release ();
}

/* --- frames ----------------------------------------------------------- */

#define TEX_WAVES 8
/* amplitude of each wave: they sum to 100, so T stays in [28, 228] */
#define TEX_AMPLITUDE 12.5f

/* T (x − tx, y − ty) for T = 128 + Σ A cos (k_i · (x, y) + φ_i), a band-
 * limited texture (wavelengths 10 to 24 px, directions spread over a half
 * turn): frame 1 = texture_image (tx, ty) moves frame 0 = texture_image
 * (0, 0) by exactly (tx, ty) (Middlebury: frame1 (x + w) = frame0 (x)).
 * cos (a + b) = cos a cos b − sin a sin b keeps the trigonometry per row
 * and column, so 8192 x 8192 takes a second, not the minute and more of
 * cf_synth_texture. */
static cf_image *
texture_image (int width, int height, float tx, float ty)
{
  cf_image *img = cf_image_new (width, height);
  float *cx = g_new (float, (gsize) TEX_WAVES * width);
  float *sx = g_new (float, (gsize) TEX_WAVES * width);
  float *cy = g_new (float, (gsize) TEX_WAVES * height);
  float *sy = g_new (float, (gsize) TEX_WAVES * height);
  int i, x, y;

  fail_unless (img != NULL);
  for (i = 0; i < TEX_WAVES; i++) {
    double dir = (i + 0.37) * G_PI / TEX_WAVES;
    double k = 2.0 * G_PI / (10.0 + 2.0 * i);
    double kx = k * cos (dir), ky = k * sin (dir), phase = 0.7 * i;

    for (x = 0; x < width; x++) {
      cx[(gsize) i * width + x] = (float) cos (kx * (x - tx));
      sx[(gsize) i * width + x] = (float) sin (kx * (x - tx));
    }
    for (y = 0; y < height; y++) {
      cy[(gsize) i * height + y] = (float) cos (ky * (y - ty) + phase);
      sy[(gsize) i * height + y] = (float) sin (ky * (y - ty) + phase);
    }
  }
  for (y = 0; y < height; y++) {
    float *row = cf_image_row (img, y);

    for (x = 0; x < width; x++)
      row[x] = 128.0f;
    for (i = 0; i < TEX_WAVES; i++) {
      const float *ci = cx + (gsize) i * width, *si = sx + (gsize) i * width;
      float c = TEX_AMPLITUDE * cy[(gsize) i * height + y];
      float s = TEX_AMPLITUDE * sy[(gsize) i * height + y];

      for (x = 0; x < width; x++)
        row[x] += ci[x] * c - si[x] * s;
    }
  }
  g_free (cx);
  g_free (sx);
  g_free (cy);
  g_free (sy);
  return img;
}

/* Frame @index of a sequence translated by (TX, TY) per frame. */
static cf_image *
sequence_image (int width, int height, int index)
{
  return texture_image (width, height, index * TX, index * TY);
}

/* The text of a @size x @size kernel of positive taps summing to 1: a
 * weighted mean, so 8-bit outputs stay in range (no clipping hides a
 * wrong sum). */
static gchar *
mean_kernel_text (int size, guint32 seed)
{
  GString *s = g_string_new (NULL);
  double *w = g_new (double, (gsize) size * size), sum = 0.0;
  int i;

  for (i = 0; i < size * size; i++) {
    seed = seed * 1664525u + 1013904223u;
    w[i] = 0.05 + ((seed >> 9) % 1000) / 1000.0;
    sum += w[i];
  }
  for (i = 0; i < size * size; i++)
    g_string_append_printf (s, "%.9f%s", w[i] / sum,
        (i % size == size - 1) ? ";" : " ");
  g_free (w);
  return g_string_free (s, FALSE);
}

/* --- harnesses -------------------------------------------------------- */

static gboolean
is_flow_element (const gchar * factory)
{
  return g_str_has_prefix (factory, "cudaflow");
}

/* @factory on @backend (in @ctx when not NULL) with @kernel (cudaconvolve;
 * NULL for none) and @settings (gst-launch syntax) set before the caps,
 * @format frames of @w x @h at 30/1 in, in CUDA memory when @cuda_in, and
 * out (the same video for cudaconvolve, UV_F32LE flow for the estimators)
 * in CUDA memory when @cuda_out. The sink caps leave the size open, so the
 * input may change size. */
static GstHarness *
harness_for (const gchar * factory, const gchar * backend,
    GstCudaContext * ctx, const gchar * kernel, const gchar * settings,
    const gchar * format, int w, int h, gboolean cuda_in, gboolean cuda_out)
{
  GstContext *gst_ctx = ctx ? gst_context_new_cuda_context (ctx) : NULL;
  GstHarness *hh = cf_test_harness_new (factory, backend, gst_ctx);
  const gchar *in_mem = cuda_in ? "(memory:CUDAMemory)" : "";
  const gchar *out_mem = cuda_out ? "(memory:CUDAMemory)" : "";
  gchar *caps;

  if (gst_ctx)
    gst_context_unref (gst_ctx);
  if (kernel != NULL)
    g_object_set (hh->element, "kernel", kernel, NULL);
  flow_test_set_properties (hh->element, settings);
  caps = g_strdup_printf ("video/x-raw%s, format=%s, width=%d, height=%d, "
      "framerate=30/1", in_mem, format, w, h);
  gst_harness_set_src_caps_str (hh, caps);
  g_free (caps);
  if (is_flow_element (factory))
    caps = g_strdup_printf ("video/x-optical-flow%s, format=UV_F32LE",
        out_mem);
  else
    caps = g_strdup_printf ("video/x-raw%s, format=%s", out_mem, format);
  gst_harness_set_sink_caps_str (hh, caps);
  g_free (caps);
  return hh;
}

/* New input caps for @h: @format, @w x @h, in CUDA memory when @cuda, with
 * pixel-aspect-ratio @tag/1, which makes caps that differ from a refused
 * event of the same size. FALSE when the element refused them
 * (gst_harness_set_src_caps () would abort). */
static gboolean
push_caps (GstHarness * h, const gchar * format, int w, int hh,
    gboolean cuda, int tag)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, format, "width", G_TYPE_INT, w, "height", G_TYPE_INT,
      hh, "framerate", GST_TYPE_FRACTION, 30, 1, "pixel-aspect-ratio",
      GST_TYPE_FRACTION, tag, 1, NULL);
  GstEvent *event;

  if (cuda)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  event = gst_event_new_caps (caps);
  gst_caps_unref (caps);
  return gst_harness_push_event (h, event);
}

/* The frame @index of @format carrying @grey, in CUDA memory of @ctx
 * (with the system frame's timestamps). */
static GstBuffer *
cuda_frame (GstCudaContext * ctx, const gchar * format, const cf_image * grey,
    int index)
{
  GstBuffer *src = flow_test_frame_from_grey (format, grey, index);
  GstVideoInfo info;
  GstBuffer *buf;

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      grey->width, grey->height);
  buf = cf_test_cuda_buffer_from (ctx, &info, src);
  GST_BUFFER_PTS (buf) = GST_BUFFER_PTS (src);
  GST_BUFFER_DURATION (buf) = GST_BUFFER_DURATION (src);
  gst_buffer_unref (src);
  return buf;
}

/* A new GstCudaContext on device 0. */
static GstCudaContext *
new_context (void)
{
  GstCudaContext *ctx;

  fail_unless (gst_cuda_load_library ());
  ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  gst_cuda_memory_init_once ();
  return ctx;
}

static GstBus *
watch_errors (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  return bus;
}

static void
unwatch_errors (GstHarness * h, GstBus * bus)
{
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
}

/* Fail unless the first error on @bus is the out-of-GPU-memory error: the
 * resource domain's NO_SPACE_LEFT, a text naming GPU memory, the frame
 * size @size and backend=cpu. Later errors of the same failure (a refused
 * caps event is retried with the next buffer) are dropped. */
static void
assert_gpu_memory_error (GstBus * bus, const gchar * size, const gchar * what)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *debug = NULL;

  fail_unless (msg != NULL, "%s: no error message", what);
  gst_message_parse_error (msg, &err, &debug);
  GST_INFO ("%s: \"%s\" (%s)", what, err->message, debug);
  fail_unless (err->domain == GST_RESOURCE_ERROR &&
      err->code == GST_RESOURCE_ERROR_NO_SPACE_LEFT,
      "%s: error %s %d, not NO_SPACE_LEFT: %s", what,
      g_quark_to_string (err->domain), err->code, err->message);
  fail_unless (strstr (err->message, "GPU memory") != NULL &&
      strstr (err->message, size) != NULL &&
      strstr (err->message, "backend=cpu") != NULL,
      "%s: the message does not say GPU memory, %s and backend=cpu: %s",
      what, size, err->message);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) != NULL)
    gst_message_unref (msg);
}

/* The GstCudaContext @element answers a context query with (a new ref),
 * NULL when it holds none. */
static GstCudaContext *
element_cuda_context (GstElement * element)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *ctx = NULL;
  GstContext *gst_ctx = NULL;

  if (gst_element_query (element, query)) {
    gst_query_parse_context (query, &gst_ctx);
    if (gst_ctx != NULL)
      gst_structure_get (gst_context_get_structure (gst_ctx),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &ctx, NULL);
  }
  gst_query_unref (query);
  return ctx;
}

static void
assert_element_in_context (GstElement * element, GstCudaContext * ctx)
{
  GstCudaContext *has = element_cuda_context (element);

  fail_unless (has == ctx, "%s runs in %" GST_PTR_FORMAT ", not in the "
      "shared %" GST_PTR_FORMAT, GST_ELEMENT_NAME (element), has, ctx);
  gst_clear_object (&has);
}

/* TRUE when @buf is one GstCudaMemory of @ctx. */
static gboolean
is_cuda_memory_of (GstBuffer * buf, GstCudaContext * ctx)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);

  return gst_buffer_n_memory (buf) == 1 && gst_is_cuda_memory (mem) &&
      GST_CUDA_MEMORY_CAST (mem)->context == ctx;
}

/* --- flow helpers ----------------------------------------------------- */

/* A flow buffer of @w x @h (system or CUDA memory, packed or pitched) as
 * planar fields. */
static cf_flow *
flow_of (GstBuffer * buf, int w, int h)
{
  cf_flow *flow = cf_flow_new (w, h);
  GstCudaFlowFrame f;

  fail_unless (flow != NULL);
  fail_unless (gst_cuda_flow_frame_map (&f, buf, w, h, 0));
  cf_flow_from_interleaved (flow, (const float *) f.data, (size_t) f.stride);
  gst_cuda_flow_frame_unmap (&f);
  return flow;
}

/* Whether (x, y) of a @w x @h field is inside the translation's border. */
static gboolean
in_translation_interior (int x, int y, int w, int h)
{
  return x >= TRANSLATION_BORDER && y >= TRANSLATION_BORDER &&
      x < w - TRANSLATION_BORDER && y < h - TRANSLATION_BORDER;
}

/* Mean EPE of the flow buffer @buf (@w x @h) against the translation
 * (TX, TY) inside the border; fails on a non-finite vector anywhere.
 * Reads the mapped rows in place: no planar copy of an 8192 x 8192
 * field. */
static double
buffer_translation_epe (GstBuffer * buf, int w, int h, const gchar * what)
{
  GstCudaFlowFrame f;
  double sum = 0.0;
  guint64 n = 0, bad = 0;
  int x, y;

  fail_unless (gst_cuda_flow_frame_map (&f, buf, w, h, 0));
  for (y = 0; y < h; y++) {
    const float *row = (const float *) (f.data + (gsize) y * f.stride);

    for (x = 0; x < w; x++) {
      float u = row[2 * x], v = row[2 * x + 1];

      if (!isfinite (u) || !isfinite (v))
        bad++;
      else if (in_translation_interior (x, y, w, h)) {
        sum += hypot (u - TX, v - TY);
        n++;
      }
    }
  }
  gst_cuda_flow_frame_unmap (&f);
  fail_unless (bad == 0, "%s: %" G_GUINT64_FORMAT " non-finite vectors",
      what, bad);
  fail_unless (n > 0);
  GST_INFO ("%s (%dx%d): translation EPE %.4f", what, w, h, sum / n);
  return sum / n;
}

/* The same for a planar field. */
static double
flow_translation_epe (const cf_flow * flow)
{
  double sum = 0.0;
  guint64 n = 0;
  int x, y;

  for (y = 0; y < flow->height; y++)
    for (x = 0; x < flow->width; x++)
      if (in_translation_interior (x, y, flow->width, flow->height)) {
        sum += hypot (flow->u[x + y * flow->pitch] - TX,
            flow->v[x + y * flow->pitch] - TY);
        n++;
      }
  fail_unless (n > 0);
  return sum / n;
}

/* Push @frame; fail unless a flow comes out, flagged GAP as @gap says. */
static GstBuffer *
push_expect_flow (GstHarness * h, GstBuffer * frame, gboolean gap,
    const gchar * what)
{
  GstBuffer *out;

  fail_unless_equals_int (gst_harness_push (h, frame), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL, "%s: no output", what);
  fail_unless (!GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP) == !gap,
      "%s: GAP flag %s", what, gap ? "missing" : "set");
  return out;
}

/* The flow a fresh @factory with @settings on @backend computes for the
 * pair (@f0, @f1) of @format (system memory). */
static cf_flow *
fresh_flow (const gchar * factory, const gchar * backend,
    const gchar * settings, const gchar * format, const cf_image * f0,
    const cf_image * f1)
{
  GstHarness *h = harness_for (factory, backend, NULL, NULL, settings,
      format, f0->width, f0->height, FALSE, FALSE);
  GstBuffer *out;
  cf_flow *flow;

  gst_buffer_unref (push_expect_flow (h, flow_test_frame_from_grey (format,
              f0, 0), TRUE, "fresh frame 0"));
  out = push_expect_flow (h, flow_test_frame_from_grey (format, f1, 1),
      FALSE, "fresh frame 1");
  flow = flow_of (out, f0->width, f0->height);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  return flow;
}

static void
assert_flows_close (const cf_flow * got, const cf_flow * ref, double tol,
    const gchar * what)
{
  double mean = 0.0, max = 0.0;

  fail_unless_equals_int (cf_flow_diff (got, ref, &mean, &max), CF_OK);
  GST_INFO ("%s: mean |diff| %.3g px, max %.3g", what, mean, max);
  fail_unless (mean <= tol, "%s: mean |diff| %g px (max %g), more than %g",
      what, mean, max, tol);
}

/* --- convolution helpers ---------------------------------------------- */

/* What a fresh cudaconvolve on @backend with @kernel and @settings makes
 * of @in (@format, @w x @h, system memory). */
static GstBuffer *
fresh_convolution (const gchar * backend, const gchar * kernel,
    const gchar * settings, const gchar * format, int w, int h,
    GstBuffer * in)
{
  GstHarness *hh = harness_for ("cudaconvolve", backend, NULL, kernel,
      settings, format, w, h, FALSE, FALSE);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));

  fail_unless (out != NULL);
  gst_harness_teardown (hh);
  return out;
}

/* Fail unless the GRAY8 frame @out (@w x @h, any memory) is what the CPU
 * backend makes of @in with @kernel and @settings, on windows at the four
 * corners and the centre: each window's input, with the kernel's reach
 * @radius around it (cut at the frame's edges, where the border rule then
 * applies alike), goes through a CPU element of that size. Cheap for any
 * frame size. */
static void
assert_windows_match_cpu (GstBuffer * in, GstBuffer * out, int w, int h,
    const gchar * kernel, const gchar * settings, int radius,
    const gchar * what)
{
  const int win = 192;
  /* window origins as fractions of the free range; -1: the centre */
  static const int origins[][2] = {
    {0, 0}, {1, 0}, {0, 1}, {1, 1}, {-1, -1}
  };
  GstVideoInfo info;
  GstVideoFrame fin, fout;
  guint c;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
  for (c = 0; c < G_N_ELEMENTS (origins); c++) {
    /* the window [x0, x0 + ww) x [y0, y0 + wh); its input [cx0, cx1) x
     * [cy0, cy1) */
    int ww = MIN (win, w), wh = MIN (win, h);
    int x0 = origins[c][0] < 0 ? (w - ww) / 2 : origins[c][0] * (w - ww);
    int y0 = origins[c][1] < 0 ? (h - wh) / 2 : origins[c][1] * (h - wh);
    int cx0 = MAX (0, x0 - radius), cy0 = MAX (0, y0 - radius);
    int cx1 = MIN (w, x0 + ww + radius), cy1 = MIN (h, y0 + wh + radius);
    GstVideoInfo cinfo;
    GstVideoFrame fc, fr;
    GstBuffer *crop, *ref;
    int x, y;

    gst_video_info_set_format (&cinfo, GST_VIDEO_FORMAT_GRAY8, cx1 - cx0,
        cy1 - cy0);
    crop = gst_buffer_new_allocate (NULL, cinfo.size, NULL);
    fail_unless (gst_video_frame_map (&fc, &cinfo, crop, GST_MAP_WRITE));
    for (y = cy0; y < cy1; y++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fc, 0) +
          (gsize) (y - cy0) * GST_VIDEO_FRAME_PLANE_STRIDE (&fc, 0),
          (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fin, 0) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fin, 0) + cx0,
          cx1 - cx0);
    gst_video_frame_unmap (&fc);

    ref = fresh_convolution ("cpu", kernel, settings, "GRAY8", cx1 - cx0,
        cy1 - cy0, crop);
    fail_unless (gst_video_frame_map (&fr, &cinfo, ref, GST_MAP_READ));
    for (y = y0; y < y0 + wh; y++) {
      const guint8 *g = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fout,
          0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fout, 0);
      const guint8 *r = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fr,
          0) + (gsize) (y - cy0) * GST_VIDEO_FRAME_PLANE_STRIDE (&fr, 0);

      for (x = x0; x < x0 + ww; x++)
        if (ABS ((int) g[x] - (int) r[x - cx0]) > CONV_CPU_TOL)
          fail ("%s (%dx%d): (%d, %d): GPU %u, CPU %u", what, w, h, x, y,
              g[x], r[x - cx0]);
    }
    gst_video_frame_unmap (&fr);
    gst_buffer_unref (ref);
    gst_buffer_unref (crop);
  }
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
}

/* --- device memory exhausted ------------------------------------------ */

/* The elements of the memory tests, with settings that keep the GPU's
 * work small: the fast presets; for cudaconvolve a 31 x 31 kernel. */
typedef struct
{
  const gchar *factory;
  const gchar *settings;
  int kernel_size;              /* cudaconvolve: mean_kernel_text's size */
} oom_case;

static const oom_case oom_cases[] = {
  {"cudaflowtvl1", "preset=fast", 0},
  {"cudaflowhs", "preset=fast", 0},
  {"cudaflowclg", "preset=fast", 0},
  {"cudaconvolve", NULL, 31},
};

/* A working @c on the OOM_W x OOM_H pair (@f0, @f1): the flow recovers
 * the translation, the convolution matches the CPU's. */
static void
assert_case_works (const oom_case * c, const gchar * kernel,
    const cf_image * f0, const cf_image * f1)
{
  GstHarness *h = harness_for (c->factory, "cuda", NULL, kernel, c->settings,
      "GRAY8", OOM_W, OOM_H, FALSE, FALSE);
  GstBuffer *in, *out;

  if (is_flow_element (c->factory)) {
    gst_buffer_unref (push_expect_flow (h, flow_test_frame_from_grey
            ("GRAY8", f0, 0), TRUE, c->factory));
    out = push_expect_flow (h, flow_test_frame_from_grey ("GRAY8", f1, 1),
        FALSE, c->factory);
    fail_unless (buffer_translation_epe (out, OOM_W, OOM_H, c->factory) <
        TRANSLATION_EPE_MAX, "%s: translation EPE too large", c->factory);
  } else {
    in = flow_test_frame_from_grey ("GRAY8", f0, 0);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    assert_windows_match_cpu (in, out, OOM_W, OOM_H, kernel, c->settings,
        c->kernel_size / 2, c->factory);
    gst_buffer_unref (in);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* Out of device memory at the first frame: a clear error, a clean stop
 * with the memory still short, and a fresh element works once it is
 * back. */
GST_START_TEST (test_out_of_memory_at_first_frame_is_a_clear_error)
{
  cf_image *f0 = texture_image (OOM_W, OOM_H, 0.0f, 0.0f);
  cf_image *f1 = texture_image (OOM_W, OOM_H, TX, TY);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (oom_cases); i++) {
    const oom_case *c = &oom_cases[i];
    gchar *kernel = c->kernel_size > 0 ? mean_kernel_text (c->kernel_size,
        i) : NULL;
    GstHarness *h = harness_for (c->factory, "cuda", NULL, kernel,
        c->settings, "GRAY8", OOM_W, OOM_H, FALSE, FALSE);
    GstBus *bus = watch_errors (h);

    hog_take ();
    fail_unless_equals_int (gst_harness_push (h,
            flow_test_frame_from_grey ("GRAY8", f0, 0)), GST_FLOW_ERROR);
    assert_gpu_memory_error (bus, OOM_SIZE, c->factory);
    unwatch_errors (h, bus);
    gst_harness_teardown (h);
    hog_release ();

    assert_case_works (c, kernel, f0, f1);
    g_free (kernel);
  }
  cf_image_free (f0);
  cf_image_free (f1);
}

GST_END_TEST;

/* The estimators make their solver's plan at the first pair: out of
 * memory there fails that frame and the next try, and once the memory is
 * back the same element gives a fresh element's flow for the pair (the
 * failed plan left nothing behind, the history survived). */
GST_START_TEST (test_out_of_memory_for_a_solver_plan_is_recoverable)
{
  static const gchar *runs[][2] = {
    {"cudaflowtvl1", "preset=fast"}, {"cudaflowtvl1", "preset=fast "
          "precision=fp16"}, {"cudaflowhs", "preset=fast"},
    {"cudaflowclg", "preset=fast"}
  };
  cf_image *f0 = texture_image (OOM_W, OOM_H, 0.0f, 0.0f);
  cf_image *f1 = texture_image (OOM_W, OOM_H, TX, TY);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (runs); i++) {
    const gchar *what = runs[i][0];
    GstHarness *h = harness_for (what, "cuda", NULL, NULL, runs[i][1],
        "GRAY8", OOM_W, OOM_H, FALSE, FALSE);
    GstBus *bus = watch_errors (h);
    GstBuffer *out;
    cf_flow *got, *want;
    int attempt;

    /* frame 0 allocates the pyramids; the plan waits for a pair */
    gst_buffer_unref (push_expect_flow (h, flow_test_frame_from_grey
            ("GRAY8", f0, 0), TRUE, what));
    hog_take ();
    for (attempt = 0; attempt < 2; attempt++) {
      fail_unless_equals_int (gst_harness_push (h,
              flow_test_frame_from_grey ("GRAY8", f1, 1)), GST_FLOW_ERROR);
      assert_gpu_memory_error (bus, OOM_SIZE, what);
    }
    hog_release ();

    out = push_expect_flow (h, flow_test_frame_from_grey ("GRAY8", f1, 1),
        FALSE, what);
    fail_unless (buffer_translation_epe (out, OOM_W, OOM_H, what) <
        TRANSLATION_EPE_MAX, "%s: translation EPE too large", what);
    got = flow_of (out, OOM_W, OOM_H);
    want = fresh_flow (what, "cuda", runs[i][1], "GRAY8", f0, f1);
    assert_flows_close (got, want, FLOW_SAME_TOL, what);
    cf_flow_free (got);
    cf_flow_free (want);
    gst_buffer_unref (out);
    unwatch_errors (h, bus);
    gst_harness_teardown (h);
  }
  cf_image_free (f0);
  cf_image_free (f1);
}

GST_END_TEST;

/* cudaconvolve makes its plan at the first frame after a kernel change: a
 * 3 x 3 kernel runs direct (no buffers), a 63 x 63 one by FFT needs
 * padded planes of the frame's size. Out of memory there fails that frame
 * and the next; once the memory is back the same element gives a fresh
 * element's frame, bit for bit. */
GST_START_TEST (test_out_of_memory_for_a_convolution_plan_is_recoverable)
{
  cf_image *f0 = texture_image (OOM_W, OOM_H, 0.0f, 0.0f);
  gchar *k63 = mean_kernel_text (63, 63);
  GstHarness *h = harness_for ("cudaconvolve", "cuda", NULL,
      "1 2 1; 2 4 2; 1 2 1", NULL, "GRAY8", OOM_W, OOM_H, FALSE, FALSE);
  GstBus *bus = watch_errors (h);
  GstBuffer *in = flow_test_frame_from_grey ("GRAY8", f0, 0), *out, *ref;
  GstVideoInfo info;
  int attempt;

  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  gst_buffer_unref (out);

  hog_take ();
  g_object_set (h->element, "kernel", k63, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "fft");
  for (attempt = 0; attempt < 2; attempt++) {
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_ERROR);
    assert_gpu_memory_error (bus, OOM_SIZE, "cudaconvolve method=fft");
  }
  hog_release ();

  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  ref = fresh_convolution ("cuda", k63, "method=fft", "GRAY8", OOM_W, OOM_H,
      in);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, OOM_W, OOM_H);
  cf_test_assert_frames_close (&info, out, ref, 0,
      "after the failed plan vs a fresh element");
  assert_windows_match_cpu (in, out, OOM_W, OOM_H, k63, "method=fft", 31,
      "after the failed plan vs the CPU");

  gst_buffer_unref (ref);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  unwatch_errors (h, bus);
  gst_harness_teardown (h);
  g_free (k63);
  cf_image_free (f0);
}

GST_END_TEST;

/* The caps grow mid-stream while the memory is short. In system memory
 * (cudaflowtvl1) the first large frame fails; in CUDA memory
 * (cudaconvolve) already the output pool for the new caps cannot be
 * made, and the caps or the frame are refused. Either way the error says
 * so; once the memory is back the element runs the large frames. */
GST_START_TEST (test_out_of_memory_when_the_caps_grow_is_recoverable)
{
  cf_image *s0 = texture_image (SMALL_W, SMALL_H, 0.0f, 0.0f);
  cf_image *s1 = texture_image (SMALL_W, SMALL_H, TX, TY);
  cf_image *f0 = texture_image (OOM_W, OOM_H, 0.0f, 0.0f);
  cf_image *f1 = texture_image (OOM_W, OOM_H, TX, TY);
  const gchar *k3 = "1 2 0; 0 4 1; 3 0 5";
  GstCudaContext *ctx = new_context ();
  GstVideoInfo small, large;
  GstHarness *h, *cpu;
  GstBus *bus;
  GstBuffer *in, *src, *out, *ref;
  GstFlowReturn ret;
  gboolean accepted;

  /* cudaflowtvl1, system memory */
  h = harness_for ("cudaflowtvl1", "cuda", NULL, NULL, "preset=fast",
      "GRAY8", SMALL_W, SMALL_H, FALSE, FALSE);
  bus = watch_errors (h);
  gst_buffer_unref (push_expect_flow (h, flow_test_frame_from_grey ("GRAY8",
              s0, 0), TRUE, "small frame 0"));
  gst_buffer_unref (push_expect_flow (h, flow_test_frame_from_grey ("GRAY8",
              s1, 1), FALSE, "small frame 1"));
  hog_take ();
  fail_unless (push_caps (h, "GRAY8", OOM_W, OOM_H, FALSE, 1));
  fail_unless_equals_int (gst_harness_push (h,
          flow_test_frame_from_grey ("GRAY8", f0, 2)), GST_FLOW_ERROR);
  assert_gpu_memory_error (bus, OOM_SIZE, "cudaflowtvl1 larger caps");
  hog_release ();
  gst_buffer_unref (push_expect_flow (h, flow_test_frame_from_grey ("GRAY8",
              f0, 2), TRUE, "large frame 0"));
  out = push_expect_flow (h, flow_test_frame_from_grey ("GRAY8", f1, 3),
      FALSE, "large frame 1");
  fail_unless (buffer_translation_epe (out, OOM_W, OOM_H, "larger caps") <
      TRANSLATION_EPE_MAX);
  gst_buffer_unref (out);
  unwatch_errors (h, bus);
  gst_harness_teardown (h);

  /* cudaconvolve, CUDA memory in and out; the large input is made while
   * there is memory for it */
  gst_video_info_set_format (&small, GST_VIDEO_FORMAT_RGBA, 64, 48);
  gst_video_info_set_format (&large, GST_VIDEO_FORMAT_RGBA, OOM_W, OOM_H);
  h = harness_for ("cudaconvolve", "cuda", ctx, k3, NULL, "RGBA", 64, 48,
      TRUE, TRUE);
  bus = watch_errors (h);
  src = cf_test_random_frame (&small, 1);
  in = cf_test_cuda_buffer_from (ctx, &small, src);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  gst_buffer_unref (src);
  src = cf_test_random_frame (&large, 2);
  in = cf_test_cuda_buffer_from (ctx, &large, src);

  hog_take ();
  accepted = push_caps (h, "RGBA", OOM_W, OOM_H, TRUE, 1);
  ret = gst_harness_push (h, gst_buffer_ref (in));
  GST_INFO ("larger CUDA caps with the memory short: caps %s, frame %s",
      accepted ? "accepted" : "refused", gst_flow_get_name (ret));
  fail_unless (ret != GST_FLOW_OK, "a frame went through without memory");
  assert_gpu_memory_error (bus, OOM_SIZE, "cudaconvolve larger CUDA caps");
  hog_release ();

  fail_unless (push_caps (h, "RGBA", OOM_W, OOM_H, TRUE, 2));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless (is_cuda_memory_of (out, ctx));
  cpu = harness_for ("cudaconvolve", "cpu", NULL, k3, NULL, "RGBA", OOM_W,
      OOM_H, FALSE, FALSE);
  ref = gst_harness_push_and_pull (cpu, gst_buffer_ref (src));
  fail_unless (ref != NULL);
  cf_test_assert_frames_close (&large, out, ref, CONV_CPU_TOL,
      "larger CUDA caps once the memory is back");

  gst_buffer_unref (ref);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (src);
  gst_harness_teardown (cpu);
  unwatch_errors (h, bus);
  gst_harness_teardown (h);
  gst_object_unref (ctx);
  cf_image_free (s0);
  cf_image_free (s1);
  cf_image_free (f0);
  cf_image_free (f1);
}

GST_END_TEST;

/* --- one context, two elements ---------------------------------------- */

#define SHARE_FRAMES 12
#define SHARE_W 161
#define SHARE_H 97

typedef struct
{
  GstHarness *h;
  GstBuffer *in[SHARE_FRAMES];  /* CUDA memory of the shared context */
  GstBuffer *out[SHARE_FRAMES];
} share_job;

/* On its own thread: no check macros here (they must run on the test's
 * thread); the outputs are checked after the join. */
static gpointer
run_share_job (gpointer data)
{
  share_job *job = data;
  int i;

  for (i = 0; i < SHARE_FRAMES; i++)
    job->out[i] = gst_harness_push_and_pull (job->h,
        gst_buffer_ref (job->in[i]));
  return NULL;
}

/* Two cudaconvolve given one GstCudaContext run at the same time on two
 * threads, in CUDA memory of that context: both stay in it, and every
 * output matches the CPU's. */
GST_START_TEST (test_two_convolutions_share_one_context_concurrently)
{
  GstCudaContext *ctx = new_context ();
  gchar *k7 = mean_kernel_text (7, 7);
  const gchar *kernels[2] = { "1 2 0; 0 4 1; 3 0 5", k7 };
  const gchar *settings[2] = { "border=reflect", "border=wrap" };
  GstBuffer *src[2][SHARE_FRAMES];
  share_job job[2];
  GThread *thread[2];
  GstVideoInfo info;
  int j, i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, SHARE_W, SHARE_H);
  for (j = 0; j < 2; j++) {
    job[j].h = harness_for ("cudaconvolve", "cuda", ctx, kernels[j],
        settings[j], "RGBA", SHARE_W, SHARE_H, TRUE, TRUE);
    assert_element_in_context (job[j].h->element, ctx);
    for (i = 0; i < SHARE_FRAMES; i++) {
      src[j][i] = cf_test_random_frame (&info, 100 * j + i + 1);
      job[j].in[i] = cf_test_cuda_buffer_from (ctx, &info, src[j][i]);
    }
  }
  for (j = 0; j < 2; j++)
    thread[j] = g_thread_new (j ? "share-b" : "share-a", run_share_job,
        &job[j]);
  for (j = 0; j < 2; j++)
    g_thread_join (thread[j]);

  for (j = 0; j < 2; j++) {
    GstHarness *cpu = harness_for ("cudaconvolve", "cpu", NULL, kernels[j],
        settings[j], "RGBA", SHARE_W, SHARE_H, FALSE, FALSE);

    assert_element_in_context (job[j].h->element, ctx);
    for (i = 0; i < SHARE_FRAMES; i++) {
      GstBuffer *ref;

      fail_unless (job[j].out[i] != NULL, "element %d frame %d: no output",
          j, i);
      fail_unless (is_cuda_memory_of (job[j].out[i], ctx),
          "element %d frame %d: not CUDA memory of the shared context", j, i);
      ref = gst_harness_push_and_pull (cpu, gst_buffer_ref (src[j][i]));
      cf_test_assert_frames_close (&info, job[j].out[i], ref, CONV_CPU_TOL,
          j ? "second element" : "first element");
      gst_buffer_unref (ref);
      gst_buffer_unref (job[j].out[i]);
      gst_buffer_unref (job[j].in[i]);
      gst_buffer_unref (src[j][i]);
    }
    gst_harness_teardown (cpu);
    gst_harness_teardown (job[j].h);
  }
  g_free (k7);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* Two flowviz pictures of flows within FLOW_CPU_TOL of each other. */
static void
assert_pictures_close (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gsize i, differ = 0;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless_equals_int (ma.size, mb.size);
  for (i = 0; i < ma.size; i++)
    if (ABS ((int) ma.data[i] - (int) mb.data[i]) > PICTURE_LEVEL_TOL)
      differ++;
  fail_unless (differ <= ma.size * PICTURE_BYTES_PER_MILLE / 1000,
      "%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes differ", differ,
      ma.size);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
}

/* cudaflowtvl1 ! flowviz in one bin given one GstCudaContext: both run in
 * it, the frames, the field and the picture stay in its memory, and the
 * picture matches the CPU chain's. The pictures are RGBA of a packed
 * width (128 x 4 bytes), so the CUDA pool's pitch adds no padding. */
#define VIZ_CHAIN(backend) "cudaflowtvl1 name=est backend=" backend \
  " preset=fast ! flowviz name=viz backend=" backend " max-flow=3"

GST_START_TEST (test_flow_and_flowviz_share_one_context)
{
  GstCudaContext *ctx = new_context ();
  GstContext *gst_ctx = gst_context_new_cuda_context (ctx);
  cf_image *f0 = texture_image (128, 96, 0.0f, 0.0f);
  cf_image *f1 = texture_image (128, 96, TX, TY);
  GstElement *bin, *est, *viz;
  GstHarness *h, *cpu;
  GstBuffer *out, *ref;
  GError *err = NULL;

  bin = gst_parse_bin_from_description (VIZ_CHAIN ("cuda"), TRUE, &err);
  fail_unless (bin != NULL, "%s", err ? err->message : "");
  gst_object_ref_sink (bin);
  /* a bin gives a context to every child */
  gst_element_set_context (bin, gst_ctx);
  gst_context_unref (gst_ctx);
  h = gst_harness_new_with_element (bin, "sink", "src");
  est = gst_bin_get_by_name (GST_BIN (bin), "est");
  viz = gst_bin_get_by_name (GST_BIN (bin), "viz");
  gst_object_unref (bin);
  gst_harness_set_src_caps_str (h, "video/x-raw(memory:CUDAMemory), "
      "format=NV12, width=128, height=96, framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory), "
      "format=RGBA");
  assert_element_in_context (est, ctx);
  assert_element_in_context (viz, ctx);

  out = gst_harness_push_and_pull (h, cuda_frame (ctx, "NV12", f0, 0));
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  out = gst_harness_push_and_pull (h, cuda_frame (ctx, "NV12", f1, 1));
  fail_unless (out != NULL);
  fail_unless (is_cuda_memory_of (out, ctx), "the picture left the shared "
      "context's memory");
  assert_element_in_context (est, ctx);
  assert_element_in_context (viz, ctx);

  cpu = gst_harness_new_parse (VIZ_CHAIN ("cpu"));
  gst_harness_set_src_caps_str (cpu, "video/x-raw, format=NV12, width=128, "
      "height=96, framerate=30/1");
  gst_harness_set_sink_caps_str (cpu, "video/x-raw, format=RGBA");
  gst_buffer_unref (gst_harness_push_and_pull (cpu,
          flow_test_frame_from_grey ("NV12", f0, 0)));
  ref = gst_harness_push_and_pull (cpu, flow_test_frame_from_grey ("NV12",
          f1, 1));
  fail_unless (ref != NULL);
  assert_pictures_close (out, ref);

  gst_buffer_unref (ref);
  gst_buffer_unref (out);
  gst_harness_teardown (cpu);
  gst_object_unref (est);
  gst_object_unref (viz);
  gst_harness_teardown (h);
  gst_object_unref (ctx);
  cf_image_free (f0);
  cf_image_free (f1);
}

GST_END_TEST;

/* --- properties changed while PLAYING --------------------------------- */

#define SEQ_W 160
#define SEQ_H 120
#define SEQ_FRAMES 14

/* cudaflowtvl1 changed while PLAYING, each change before frame k: the
 * pair (k, k + 1) then equals a fresh element's with every setting so far
 * (and so does (k − 1, k) where the change kept the history: lambda is a
 * tunable, the others make a new engine, hence a GAP at k); against the
 * CPU, fp32 within FLOW_CPU_TOL and fp16 by EPE. */
GST_START_TEST (test_tvl1_settings_changed_while_playing)
{
  static const struct
  {
    int frame;
    const gchar *settings;
    gboolean fp16;
  } changes[] = {
    {3, "precision=fp16", TRUE},
    {6, "precision=fp32 preset=fast", FALSE},
    {9, "levels=3", FALSE},
    {12, "lambda=0.3", FALSE},
  };
  GstHarness *h = harness_for ("cudaflowtvl1", "cuda", NULL, NULL, NULL,
      "GRAY8", SEQ_W, SEQ_H, FALSE, FALSE);
  cf_image *frames[SEQ_FRAMES];
  cf_flow *flows[SEQ_FRAMES];   /* NULL: a GAP */
  GString *so_far = g_string_new (NULL);
  guint c = 0;
  int k;

  for (k = 0; k < SEQ_FRAMES; k++) {
    GstBuffer *out;

    frames[k] = sequence_image (SEQ_W, SEQ_H, k);
    if (c < G_N_ELEMENTS (changes) && changes[c].frame == k)
      flow_test_set_properties (h->element, changes[c++].settings);
    fail_unless_equals_int (gst_harness_push (h,
            flow_test_frame_from_grey ("GRAY8", frames[k], k)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    flows[k] = GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP) ? NULL :
        flow_of (out, SEQ_W, SEQ_H);
    gst_buffer_unref (out);
  }

  for (c = 0; c < G_N_ELEMENTS (changes); c++) {
    const gchar *s;
    cf_flow *want, *cpu;
    gchar *what;

    k = changes[c].frame;
    g_string_append_printf (so_far, "%s%s", c ? " " : "",
        changes[c].settings);
    s = so_far->str;
    what = g_strdup_printf ("frame %d after \"%s\"", k + 1, s);
    fail_unless (flows[k + 1] != NULL, "%s: GAP", what);
    want = fresh_flow ("cudaflowtvl1", "cuda", s, "GRAY8", frames[k],
        frames[k + 1]);
    assert_flows_close (flows[k + 1], want, FLOW_SAME_TOL, what);
    cf_flow_free (want);
    if (flows[k] != NULL) {
      want = fresh_flow ("cudaflowtvl1", "cuda", s, "GRAY8", frames[k - 1],
          frames[k]);
      assert_flows_close (flows[k], want, FLOW_SAME_TOL, what);
      cf_flow_free (want);
    }
    cpu = fresh_flow ("cudaflowtvl1", "cpu", s, "GRAY8", frames[k],
        frames[k + 1]);
    if (changes[c].fp16) {
      double epe16 = flow_translation_epe (flows[k + 1]);
      double epe32 = flow_translation_epe (cpu);

      GST_INFO ("%s: EPE fp16 %.4f, CPU %.4f", what, epe16, epe32);
      fail_unless (epe16 <= FP16_EPE_REL * epe32 + FP16_EPE_ABS,
          "%s: EPE fp16 %.4f vs CPU %.4f", what, epe16, epe32);
    } else {
      assert_flows_close (flows[k + 1], cpu, FLOW_CPU_TOL, what);
    }
    cf_flow_free (cpu);
    g_free (what);
  }

  for (k = 0; k < SEQ_FRAMES; k++) {
    cf_image_free (frames[k]);
    if (flows[k] != NULL)
      cf_flow_free (flows[k]);
  }
  g_string_free (so_far, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* cudaconvolve's kernel (and its size), border and mode changed between
 * frames while PLAYING: each frame equals, bit for bit, a fresh element's
 * with the settings of that frame, and the CPU's within CONV_CPU_TOL. */
GST_START_TEST (test_convolution_settings_changed_while_playing)
{
  gchar *k31 = mean_kernel_text (31, 3), *k15 = mean_kernel_text (15, 5);
  const struct
  {
    const gchar *kernel;        /* NULL: unchanged */
    const gchar *settings;
  } frames[] = {
    {"1 2 0; 0 4 1; 3 0 5", NULL}, {NULL, NULL},
    {k31, NULL}, {NULL, NULL},
    {"1 2 1", NULL},
    {k15, "border=wrap"}, {NULL, "mode=correlation"},
    {"1 2 0; 0 4 1; 3 0 5", "border=zero"},
  };
  GstVideoInfo info;
  GstHarness *h;
  const gchar *kernel = NULL;
  GString *so_far = g_string_new (NULL);
  guint k;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 203, 151);
  h = harness_for ("cudaconvolve", "cuda", NULL, frames[0].kernel, NULL,
      "RGBA", 203, 151, FALSE, FALSE);
  for (k = 0; k < G_N_ELEMENTS (frames); k++) {
    GstBuffer *in = cf_test_random_frame (&info, 7 + k), *out, *ref;
    gchar *what;

    if (frames[k].kernel != NULL) {
      kernel = frames[k].kernel;
      g_object_set (h->element, "kernel", kernel, NULL);
    }
    if (frames[k].settings != NULL) {
      flow_test_set_properties (h->element, frames[k].settings);
      g_string_append_printf (so_far, " %s", frames[k].settings);
    }
    what = g_strdup_printf ("frame %u (settings:%s)", k, so_far->str);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    ref = fresh_convolution ("cuda", kernel, so_far->str, "RGBA", 203, 151,
        in);
    cf_test_assert_frames_close (&info, out, ref, 0, what);
    gst_buffer_unref (ref);
    ref = fresh_convolution ("cpu", kernel, so_far->str, "RGBA", 203, 151,
        in);
    cf_test_assert_frames_close (&info, out, ref, CONV_CPU_TOL, what);
    gst_buffer_unref (ref);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    g_free (what);
  }
  gst_harness_teardown (h);
  g_string_free (so_far, TRUE);
  g_free (k31);
  g_free (k15);
}

GST_END_TEST;

/* --- renegotiation in CUDA memory ------------------------------------- */

/* cudaconvolve in CUDA memory (in and out, one context) through sizes
 * that change mid-stream, odd ones and 1 x 1 included: every frame
 * matches the CPU's and stays in the context's memory. */
GST_START_TEST (test_convolution_in_cuda_memory_changes_size)
{
  static const int sizes[][2] = {
    {64, 48}, {641, 479}, {1, 1}, {3, 2}, {64, 48}
  };
  const gchar *k3 = "1 2 0; 0 4 1; 3 0 5";
  GstCudaContext *ctx = new_context ();
  GstHarness *h = harness_for ("cudaconvolve", "cuda", ctx, k3,
      "border=reflect", "RGBA", sizes[0][0], sizes[0][1], TRUE, TRUE);
  guint s, i;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], hh = sizes[s][1];
    GstVideoInfo info;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, w, hh);
    if (s > 0)
      fail_unless (push_caps (h, "RGBA", w, hh, TRUE, 1));
    for (i = 0; i < 2; i++) {
      GstBuffer *src = cf_test_random_frame (&info, 10 * s + i + 1);
      GstBuffer *out, *ref;
      gchar *what = g_strdup_printf ("%dx%d frame %u", w, hh, i);

      out = gst_harness_push_and_pull (h, cf_test_cuda_buffer_from (ctx,
              &info, src));
      fail_unless (out != NULL, "%s: no output", what);
      fail_unless (is_cuda_memory_of (out, ctx), "%s: left CUDA memory",
          what);
      ref = fresh_convolution ("cpu", k3, "border=reflect", "RGBA", w, hh,
          src);
      cf_test_assert_frames_close (&info, out, ref, CONV_CPU_TOL, what);
      gst_buffer_unref (ref);
      gst_buffer_unref (out);
      gst_buffer_unref (src);
      g_free (what);
    }
  }
  gst_harness_teardown (h);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* cudaflowtvl1 with frames and fields in CUDA memory through size
 * changes: after each, a GAP, then the pair's flow within FLOW_CPU_TOL of
 * the CPU's, in the context's memory. */
GST_START_TEST (test_tvl1_in_cuda_memory_changes_size)
{
  static const int sizes[][2] = { {96, 72}, {161, 97}, {33, 17}, {96, 72} };
  GstCudaContext *ctx = new_context ();
  GstHarness *h = harness_for ("cudaflowtvl1", "cuda", ctx, NULL,
      "preset=fast", "NV12", sizes[0][0], sizes[0][1], TRUE, TRUE);
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], hh = sizes[s][1];
    cf_image *f0 = texture_image (w, hh, 0.0f, 0.0f);
    cf_image *f1 = texture_image (w, hh, TX, TY);
    GstBuffer *out;
    cf_flow *got, *cpu;
    gchar *what = g_strdup_printf ("%dx%d", w, hh);

    if (s > 0)
      fail_unless (push_caps (h, "NV12", w, hh, TRUE, 1));
    gst_buffer_unref (push_expect_flow (h, cuda_frame (ctx, "NV12", f0, 0),
            TRUE, what));
    out = push_expect_flow (h, cuda_frame (ctx, "NV12", f1, 1), FALSE, what);
    fail_unless (is_cuda_memory_of (out, ctx), "%s: left CUDA memory", what);
    got = flow_of (out, w, hh);
    cpu = fresh_flow ("cudaflowtvl1", "cpu", "preset=fast", "NV12", f0, f1);
    assert_flows_close (got, cpu, FLOW_CPU_TOL, what);
    cf_flow_free (got);
    cf_flow_free (cpu);
    gst_buffer_unref (out);
    cf_image_free (f0);
    cf_image_free (f1);
    g_free (what);
  }
  gst_harness_teardown (h);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* --- 8192 x 8192 ------------------------------------------------------ */

#define HUGE_SIDE 8192

/* A 31 x 31 kernel on an 8192 x 8192 GRAY8 frame, uploaded by the
 * element, the result in CUDA memory: the CPU's on windows at the corners
 * (reflect border) and the centre. */
GST_START_TEST (test_8192_convolution_matches_cpu)
{
  gchar *k31 = mean_kernel_text (31, 8192);
  cf_image *tex = texture_image (HUGE_SIDE, HUGE_SIDE, 0.0f, 0.0f);
  GstHarness *h = harness_for ("cudaconvolve", "cuda", NULL, k31,
      "border=reflect", "GRAY8", HUGE_SIDE, HUGE_SIDE, FALSE, TRUE);
  GstBuffer *in = flow_test_frame_from_grey ("GRAY8", tex, 0), *out;

  cf_image_free (tex);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
  assert_windows_match_cpu (in, out, HUGE_SIDE, HUGE_SIDE, k31,
      "border=reflect", 15, "8192x8192, 31x31");
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_free (k31);
}

GST_END_TEST;

/* TV-L1 (preset=fast) on an 8192 x 8192 pair in CUDA memory (cudaupload's
 * where nvcodec has it, else the element's own upload), the field in CUDA
 * memory: finite everywhere, the translation within
 * TRANSLATION_EPE_MAX. */
GST_START_TEST (test_8192_tvl1_recovers_a_translation)
{
  GstElementFactory *up = gst_element_factory_find ("cudaupload");
  cf_image *f0 = texture_image (HUGE_SIDE, HUGE_SIDE, 0.0f, 0.0f);
  cf_image *f1 = texture_image (HUGE_SIDE, HUGE_SIDE, TX, TY);
  const gchar *format = up != NULL ? "NV12" : "GRAY8";
  GstHarness *h;
  GstBuffer *out;
  gchar *caps;

  if (up != NULL) {
    gst_object_unref (up);
    h = gst_harness_new_parse ("cudaupload ! video/x-raw(memory:CUDAMemory) "
        "! cudaflowtvl1 backend=cuda preset=fast");
    caps = g_strdup_printf ("video/x-raw, format=NV12, width=%d, height=%d, "
        "framerate=30/1", HUGE_SIDE, HUGE_SIDE);
    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
    gst_harness_set_sink_caps_str (h, "video/x-optical-flow"
        "(memory:CUDAMemory), format=UV_F32LE");
  } else {
    GST_INFO ("no cudaupload: the element uploads the frames itself");
    h = harness_for ("cudaflowtvl1", "cuda", NULL, NULL, "preset=fast",
        "GRAY8", HUGE_SIDE, HUGE_SIDE, FALSE, TRUE);
  }
  gst_buffer_unref (push_expect_flow (h, flow_test_frame_from_grey (format,
              f0, 0), TRUE, "8192x8192 frame 0"));
  cf_image_free (f0);
  out = push_expect_flow (h, flow_test_frame_from_grey (format, f1, 1),
      FALSE, "8192x8192 frame 1");
  cf_image_free (f1);
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
  fail_unless (buffer_translation_epe (out, HUGE_SIDE, HUGE_SIDE,
          "8192x8192 TV-L1") < TRANSLATION_EPE_MAX);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- frames in system and CUDA memory on one element ------------------- */

#define MIX_W 97
#define MIX_H 61

/* cudaconvolve gets frames that alternate between system and CUDA
 * memory, starting with either: within one caps (system memory caps that
 * carry CUDA memory too), and across caps changes between the memories.
 * Every output matches the CPU's. */
GST_START_TEST (test_convolution_frames_switch_memory)
{
  const gchar *k3 = "1 2 0; 0 4 1; 3 0 5";
  GstCudaContext *ctx = new_context ();
  GstVideoInfo info;
  int start, across, i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, MIX_W, MIX_H);
  for (across = 0; across < 2; across++) {
    for (start = 0; start < 2; start++) {
      GstHarness *h = harness_for ("cudaconvolve", "cuda", ctx, k3, NULL,
          "RGBA", MIX_W, MIX_H, across && start, FALSE);

      /* system or CUDA memory out, whichever the input caps prefer */
      gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory), "
          "format=RGBA; video/x-raw, format=RGBA");
      for (i = 0; i < 4; i++) {
        gboolean cuda = (i + start) % 2 == 1;
        GstBuffer *src = cf_test_random_frame (&info, 40 + i);
        GstBuffer *in = cuda ? cf_test_cuda_buffer_from (ctx, &info, src) :
            gst_buffer_ref (src);
        GstBuffer *out, *ref;
        gchar *what = g_strdup_printf ("%s, frame %d in %s memory",
            across ? "caps follow the memory" : "one caps", i,
            cuda ? "CUDA" : "system");

        if (across && i > 0)
          fail_unless (push_caps (h, "RGBA", MIX_W, MIX_H, cuda, 1 + i));
        out = gst_harness_push_and_pull (h, in);
        fail_unless (out != NULL, "%s: no output", what);
        ref = fresh_convolution ("cpu", k3, NULL, "RGBA", MIX_W, MIX_H, src);
        cf_test_assert_frames_close (&info, out, ref, CONV_CPU_TOL, what);
        gst_buffer_unref (ref);
        gst_buffer_unref (out);
        gst_buffer_unref (src);
        g_free (what);
      }
      gst_harness_teardown (h);
    }
  }
  gst_object_unref (ctx);
}

GST_END_TEST;

/* cudaflowtvl1 gets frames that alternate between system and CUDA memory.
 * Within one caps the pairs go on across the switch: each flow within
 * FLOW_CPU_TOL of the CPU's for the same pair. When the caps follow the
 * memory, each caps change starts a new pair (a GAP), and the pair after
 * it is the CPU's. */
GST_START_TEST (test_tvl1_frames_switch_memory)
{
  GstCudaContext *ctx = new_context ();
  cf_image *frames[5];
  int start, k;

  for (k = 0; k < 5; k++)
    frames[k] = sequence_image (MIX_W, MIX_H, k);

  for (start = 0; start < 2; start++) {
    GstHarness *h = harness_for ("cudaflowtvl1", "cuda", ctx, NULL,
        "preset=fast", "NV12", MIX_W, MIX_H, FALSE, FALSE);

    for (k = 0; k < 5; k++) {
      gboolean cuda = (k + start) % 2 == 1;
      GstBuffer *in = cuda ? cuda_frame (ctx, "NV12", frames[k], k) :
          flow_test_frame_from_grey ("NV12", frames[k], k);
      gchar *what = g_strdup_printf ("one caps, frame %d in %s memory", k,
          cuda ? "CUDA" : "system");
      GstBuffer *out = push_expect_flow (h, in, k == 0, what);

      if (k > 0) {
        cf_flow *got = flow_of (out, MIX_W, MIX_H);
        cf_flow *cpu = fresh_flow ("cudaflowtvl1", "cpu", "preset=fast",
            "NV12", frames[k - 1], frames[k]);

        assert_flows_close (got, cpu, FLOW_CPU_TOL, what);
        cf_flow_free (got);
        cf_flow_free (cpu);
      }
      gst_buffer_unref (out);
      g_free (what);
    }
    gst_harness_teardown (h);
  }

  /* the caps follow the memory: two frames per memory */
  for (start = 0; start < 2; start++) {
    GstHarness *h = harness_for ("cudaflowtvl1", "cuda", ctx, NULL,
        "preset=fast", "NV12", MIX_W, MIX_H, start == 1, FALSE);

    for (k = 0; k < 4; k++) {
      gboolean cuda = (k / 2 + start) % 2 == 1;
      GstBuffer *in = cuda ? cuda_frame (ctx, "NV12", frames[k], k) :
          flow_test_frame_from_grey ("NV12", frames[k], k);
      gchar *what = g_strdup_printf ("caps follow the memory, frame %d in "
          "%s memory", k, cuda ? "CUDA" : "system");
      GstBuffer *out;

      if (k == 2)
        fail_unless (push_caps (h, "NV12", MIX_W, MIX_H, cuda, 1));
      out = push_expect_flow (h, in, k % 2 == 0, what);
      if (k % 2 == 1) {
        cf_flow *got = flow_of (out, MIX_W, MIX_H);
        cf_flow *cpu = fresh_flow ("cudaflowtvl1", "cpu", "preset=fast",
            "NV12", frames[k - 1], frames[k]);

        assert_flows_close (got, cpu, FLOW_CPU_TOL, what);
        cf_flow_free (got);
        cf_flow_free (cpu);
      }
      gst_buffer_unref (out);
      g_free (what);
    }
    gst_harness_teardown (h);
  }

  for (k = 0; k < 5; k++)
    cf_image_free (frames[k]);
  gst_object_unref (ctx);
}

GST_END_TEST;

static Suite *
elements_faults_gpu_suite (void)
{
  Suite *s = suite_create ("faults-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_checked_fixture (tc, NULL, release_hog_fixture);
  tcase_add_test (tc, test_out_of_memory_at_first_frame_is_a_clear_error);
  tcase_add_test (tc, test_out_of_memory_for_a_solver_plan_is_recoverable);
  tcase_add_test (tc,
      test_out_of_memory_for_a_convolution_plan_is_recoverable);
  tcase_add_test (tc, test_out_of_memory_when_the_caps_grow_is_recoverable);
  tcase_add_test (tc, test_two_convolutions_share_one_context_concurrently);
  tcase_add_test (tc, test_flow_and_flowviz_share_one_context);
  tcase_add_test (tc, test_tvl1_settings_changed_while_playing);
  tcase_add_test (tc, test_convolution_settings_changed_while_playing);
  tcase_add_test (tc, test_convolution_in_cuda_memory_changes_size);
  tcase_add_test (tc, test_tvl1_in_cuda_memory_changes_size);
  tcase_add_test (tc, test_8192_convolution_matches_cpu);
  tcase_add_test (tc, test_8192_tvl1_recovers_a_translation);
  tcase_add_test (tc, test_convolution_frames_switch_memory);
  tcase_add_test (tc, test_tvl1_frames_switch_memory);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "elements_faults_gpu",
      elements_faults_gpu_suite);
}
