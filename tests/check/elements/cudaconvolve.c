/* gst-cudaflow — cudaconvolve element tests on the CPU backend (run in CI)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The expected frames are computed here with a plain per-pixel loop and a
 * border rule written out again, independent of common/convolve.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

#include "cf-test-util.h"

static const gchar *all_formats[] = { "GRAY8", "GRAY16_LE", "NV12", "I420",
  "RGBA", "BGRA", "RGBx", "BGRx"
};

static const gchar *all_borders[] = { "zero", "clamp", "reflect", "wrap" };

/* --- an independent reference --------------------------------------- */

static int
ref_fold (int i, int n, const gchar * border)
{
  if (i >= 0 && i < n)
    return i;
  if (!strcmp (border, "zero"))
    return -1;
  if (!strcmp (border, "clamp"))
    return i < 0 ? 0 : n - 1;
  if (!strcmp (border, "wrap"))
    return ((i % n) + n) % n;
  /* reflect, half-sample symmetric: walk back and forth until inside */
  while (i < 0 || i >= n) {
    if (i < 0)
      i = -1 - i;
    if (i >= n)
      i = 2 * n - 1 - i;
  }
  return i;
}

typedef struct
{
  int w, h;
  const double *k;              /* row-major */
} RefKernel;

/* Expected sample of one channel (values as doubles in native range). */
static double
ref_sample (const double *plane, int w, int h, int x, int y,
    const RefKernel * k, const gchar * border, gboolean correlation)
{
  int ax = k->w / 2, ay = k->h / 2, i, j;
  double sum = 0.0;

  for (j = 0; j < k->h; j++) {
    for (i = 0; i < k->w; i++) {
      int sx, sy;
      if (correlation) {
        sx = ref_fold (x + i - ax, w, border);
        sy = ref_fold (y + j - ay, h, border);
      } else {
        sx = ref_fold (x - i + ax, w, border);
        sy = ref_fold (y - j + ay, h, border);
      }
      if (sx < 0 || sy < 0)
        continue;
      sum += k->k[j * k->w + i] * plane[sy * w + sx];
    }
  }
  return sum;
}

/* --- frames ---------------------------------------------------------- */

static guint
read_sample (const GstVideoFrame * f, guint comp, int x, int y)
{
  const guint8 *p = GST_VIDEO_FRAME_COMP_DATA (f, comp);
  p += y * GST_VIDEO_FRAME_COMP_STRIDE (f, comp) +
      x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, comp);
  if (GST_VIDEO_FRAME_COMP_DEPTH (f, comp) > 8)
    return p[0] | (p[1] << 8);
  return p[0];
}

/* Check every component of @out against @in: filtered ones against the
 * reference (within 1 for rounding), the rest bit-exact. Returns the number
 * of filtered samples compared. */
static int
check_frame (const GstVideoInfo * info, GstBuffer * inbuf, GstBuffer * outbuf,
    const RefKernel * k, const gchar * border, gboolean correlation,
    gboolean filter_alpha, double offset)
{
  GstVideoFrame fin, fout;
  guint comp;
  int compared = 0;

  fail_unless (gst_video_frame_map (&fin, (GstVideoInfo *) info, inbuf,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, (GstVideoInfo *) info, outbuf,
          GST_MAP_READ));
  for (comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    int w = GST_VIDEO_FRAME_COMP_WIDTH (&fin, comp);
    int h = GST_VIDEO_FRAME_COMP_HEIGHT (&fin, comp);
    double max = GST_VIDEO_FRAME_COMP_DEPTH (&fin, comp) > 8 ? 65535 : 255;
    gboolean is_alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (info->finfo) &&
        comp == 3;
    gboolean filtered = !is_alpha || filter_alpha;
    double *plane = g_new (double, w * h);
    int x, y;

    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        plane[y * w + x] = read_sample (&fin, comp, x, y);

    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        guint got = read_sample (&fout, comp, x, y);
        if (filtered) {
          double v = ref_sample (plane, w, h, x, y, k, border, correlation) +
              offset * max;
          double want = floor (v + 0.5);
          want = want < 0 ? 0 : (want > max ? max : want);
          if (fabs (got - want) > 1.0)
            fail ("%s comp %u (%d,%d) border %s: got %u, want %.0f (%.4f)",
                gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
                comp, x, y, border, got, want, v);
          compared++;
        } else {
          fail_unless_equals_int (got, (guint) plane[y * w + x]);
        }
      }
    }
    g_free (plane);
  }
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  return compared;
}

static GstHarness *
harness_for (const gchar * format, int width, int height, GstVideoInfo * info)
{
  GstHarness *h = cf_test_harness_new ("cudaconvolve", "cpu", NULL);
  GstCaps *caps;

  gst_video_info_set_format (info, gst_video_format_from_string (format),
      width, height);
  caps = gst_video_info_to_caps (info);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  return h;
}

/* Push one random frame through @h and compare with the reference. */
static void
run_and_check (GstHarness * h, const GstVideoInfo * info, guint32 seed,
    const RefKernel * k, const gchar * border, gboolean correlation,
    double offset)
{
  GstBuffer *in = cf_test_random_frame (info, seed);
  GstBuffer *out;

  gst_buffer_ref (in);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  check_frame (info, in, out, k, border, correlation, FALSE, offset);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
}

/* asymmetric, so a flip or anchor mistake shows */
static const double k3_taps[] = { 1, 2, 0, 0, 4, 1, 3, 0, 5 };
static const gchar *k3_text = "1 2 0; 0 4 1; 3 0 5";
/* asymmetric too, and rank 1 ((1 2 0)^T (1 3 2)): every method takes it */
static const double r1_taps[] = { 1, 3, 2, 2, 6, 4, 0, 0, 0 };
static const gchar *r1_text = "1 3 2; 2 6 4; 0 0 0";

/* --- tests ----------------------------------------------------------- */

GST_START_TEST (test_every_format_and_border_matches_reference)
{
  RefKernel k = { 3, 3, NULL };
  double taps[9];
  guint f, b, i;

  /* normalize=true divides by the sum, 16 */
  for (i = 0; i < 9; i++)
    taps[i] = k3_taps[i] / 16.0;
  k.k = taps;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    for (b = 0; b < G_N_ELEMENTS (all_borders); b++) {
      GstVideoInfo info;
      GstHarness *h = harness_for (all_formats[f], 37, 23, &info);

      gst_util_set_object_arg (G_OBJECT (h->element), "border",
          all_borders[b]);
      g_object_set (h->element, "kernel", k3_text, NULL);
      run_and_check (h, &info, 17 + f * 7 + b, &k, all_borders[b], FALSE, 0);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_correlation_does_not_flip_kernel)
{
  RefKernel k = { 3, 3, k3_taps };
  GstVideoInfo info;
  GstHarness *h = harness_for ("GRAY16_LE", 19, 11, &info);

  g_object_set (h->element, "kernel", k3_text, "normalize", FALSE,
      "border", 1 /* clamp */ , NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "mode", "correlation");
  run_and_check (h, &info, 5, &k, "clamp", TRUE, 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_tiny_and_odd_sizes)
{
  static const int sizes[][2] = { {1, 1}, {2, 2}, {1, 7}, {7, 1}, {3, 5},
  {641, 479}
  };
  RefKernel k = { 3, 3, NULL };
  double taps[9];
  guint s, f, i;

  for (i = 0; i < 9; i++)
    taps[i] = k3_taps[i] / 16.0;
  k.k = taps;
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
      GstVideoInfo info;
      GstHarness *h;
      /* the large size once, in one format, keeps the suite quick */
      if (sizes[s][0] > 100 && f > 0)
        continue;
      h = harness_for (all_formats[f], sizes[s][0], sizes[s][1], &info);
      g_object_set (h->element, "kernel", k3_text, NULL);
      run_and_check (h, &info, 100 + s * 10 + f, &k, "reflect", FALSE, 0);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_kernel_larger_than_frame)
{
  RefKernel k = { 15, 15, NULL };
  double taps[15 * 15];
  guint b, i;
  GString *text = g_string_new (NULL);

  for (i = 0; i < 15 * 15; i++) {
    int v = (int) ((i * 37) % 11) - 3;
    taps[i] = v / 64.0;
    g_string_append_printf (text, "%g%s", taps[i], (i % 15 == 14) ? ";" : " ");
  }
  k.k = taps;
  for (b = 0; b < G_N_ELEMENTS (all_borders); b++) {
    GstVideoInfo info;
    GstHarness *h = harness_for ("GRAY8", 7, 5, &info);
    g_object_set (h->element, "kernel", text->str, "normalize", FALSE, NULL);
    gst_util_set_object_arg (G_OBJECT (h->element), "border", all_borders[b]);
    run_and_check (h, &info, 99 + b, &k, all_borders[b], FALSE, 0);
    gst_harness_teardown (h);
  }
  g_string_free (text, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_no_kernel_is_passthrough)
{
  GstVideoInfo info;
  GstHarness *h = harness_for ("RGBA", 16, 8, &info);
  GstBuffer *in = cf_test_random_frame (&info, 3), *out;

  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  /* passthrough hands the very same buffer on */
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_identity_kernel_is_passthrough)
{
  GstVideoInfo info;
  GstHarness *h = harness_for ("NV12", 16, 8, &info);
  GstBuffer *in = cf_test_random_frame (&info, 4), *out;

  g_object_set (h->element, "kernel", "0 0 0; 0 1 0; 0 0 0", NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  /* decided on the streaming thread, before the frame */
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (h->element)));
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_alpha_and_unselected_channels_untouched)
{
  RefKernel k = { 3, 3, NULL };
  double taps[9];
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *in, *out;
  GstVideoFrame fin, fout;
  int x, y, i;

  for (i = 0; i < 9; i++)
    taps[i] = 1.0 / 9.0;
  k.k = taps;

  /* RGBA: alpha untouched by default (check_frame asserts it bit-exact) */
  h = harness_for ("BGRA", 21, 9, &info);
  g_object_set (h->element, "kernel", "1 1 1; 1 1 1; 1 1 1", NULL);
  run_and_check (h, &info, 8, &k, "reflect", FALSE, 0);
  gst_harness_teardown (h);

  /* NV12 with channels=y: the UV plane passes unchanged */
  h = harness_for ("NV12", 20, 10, &info);
  g_object_set (h->element, "kernel", "1 1 1; 1 1 1; 1 1 1", NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "channels", "y");
  in = cf_test_random_frame (&info, 9);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
  for (y = 0; y < 5; y++)
    for (x = 0; x < 20; x++)
      fail_unless_equals_int (read_sample (&fout, 1 + (x & 1), x / 2, y),
          read_sample (&fin, 1 + (x & 1), x / 2, y));
  /* and luma did change somewhere */
  {
    gboolean changed = FALSE;
    for (y = 0; y < 10 && !changed; y++)
      for (x = 0; x < 20 && !changed; x++)
        changed = read_sample (&fout, 0, x, y) != read_sample (&fin, 0, x, y);
    fail_unless (changed);
  }
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_offset_shows_laplacian_of_flat_frame_as_mid_grey)
{
  GstVideoInfo info;
  GstHarness *h = harness_for ("GRAY8", 9, 7, &info);
  GstBuffer *in = gst_buffer_new_allocate (NULL, info.size, NULL), *out;
  GstMapInfo map;
  gsize i;

  gst_buffer_memset (in, 0, 77, info.size);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-preset",
      "laplacian");
  /* the 3x3 five-point stencil has integer taps: exactly 0 on a flat frame */
  g_object_set (h->element, "offset", 0.5, "kernel-size", 3, NULL);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  /* zero response + 127.5 rounds half up to 128 */
  for (i = 0; i < map.size; i++)
    if (i % GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) < 9)
      fail_unless_equals_int (map.data[i], 128);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_presets_blur_an_impulse)
{
  static const gchar *presets[] = { "gaussian", "box", "disk" };
  guint p;

  for (p = 0; p < G_N_ELEMENTS (presets); p++) {
    GstVideoInfo info;
    GstHarness *h = harness_for ("GRAY16_LE", 15, 15, &info);
    GstBuffer *in = gst_buffer_new_allocate (NULL, info.size, NULL), *out;
    GstVideoFrame f;
    guint64 total = 0;
    int x, y;

    gst_buffer_memset (in, 0, 0, info.size);
    fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
    ((guint16 *) ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
            7 * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0)))[7] = 60000;
    gst_video_frame_unmap (&f);

    gst_util_set_object_arg (G_OBJECT (h->element), "kernel-preset",
        presets[p]);
    g_object_set (h->element, "kernel-size", 5, "sigma", 1.0, NULL);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
    for (y = 0; y < 15; y++)
      for (x = 0; x < 15; x++) {
        guint v = read_sample (&f, 0, x, y);
        total += v;
        /* a 5x5 kernel spreads the impulse over |dx|,|dy| <= 2 only */
        if (ABS (x - 7) > 2 || ABS (y - 7) > 2)
          fail_unless_equals_int (v, 0);
      }
    /* the kernels sum to 1: energy is kept up to rounding */
    fail_unless (total > 60000 - 25 && total < 60000 + 25,
        "%s: total %" G_GUINT64_FORMAT, presets[p], total);
    fail_unless (read_sample (&f, 0, 7, 7) < 60000);
    gst_video_frame_unmap (&f);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_every_method_accepted_on_cpu)
{
  static const gchar *methods[] = { "auto", "direct", "separable", "fft",
    "im2tensor", "stencil"
  };
  RefKernel k = { 3, 3, NULL };
  double taps[9];
  guint m, i;

  /* rank 1: separable takes it too (a rank-2 kernel is refused, below) */
  for (i = 0; i < 9; i++)
    taps[i] = r1_taps[i] / 18.0;
  k.k = taps;
  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    GstVideoInfo info;
    GstHarness *h = harness_for ("I420", 24, 18, &info);
    gst_util_set_object_arg (G_OBJECT (h->element), "method", methods[m]);
    g_object_set (h->element, "kernel", r1_text, NULL);
    run_and_check (h, &info, 40 + m, &k, "reflect", FALSE, 0);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static gchar *run_pipeline_error (const gchar * description);

/* Every precision with every method it goes with: the CPU backend
 * computes the reference whatever is set. */
GST_START_TEST (test_every_consistent_precision_accepted_on_cpu)
{
  static const struct
  {
    const gchar *method, *precision;
  } pairs[] = {
    {"auto", "auto"}, {"auto", "fp32"}, {"auto", "fp16"},
    {"direct", "fp32"}, {"separable", "fp32"}, {"fft", "fp32"},
    {"stencil", "fp32"}, {"stencil", "auto"},
    {"im2tensor", "auto"}, {"im2tensor", "fp16"},
  };
  RefKernel k = { 3, 3, NULL };
  double taps[9];
  guint m, i;

  for (i = 0; i < 9; i++)
    taps[i] = r1_taps[i] / 18.0;
  k.k = taps;
  for (m = 0; m < G_N_ELEMENTS (pairs); m++) {
    GstVideoInfo info;
    GstHarness *h = harness_for ("GRAY8", 21, 13, &info);
    gst_util_set_object_arg (G_OBJECT (h->element), "method", pairs[m].method);
    gst_util_set_object_arg (G_OBJECT (h->element), "precision",
        pairs[m].precision);
    g_object_set (h->element, "kernel", r1_text, NULL);
    run_and_check (h, &info, 60 + m, &k, "clamp", FALSE, 0);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* fp16 is im2tensor's arithmetic: asking another method for it, or
 * im2tensor for fp32, stops the pipeline with a message naming both. */
GST_START_TEST (test_rejects_method_precision_conflict)
{
  static const gchar *conflicts[][2] = {
    {"direct", "fp16"}, {"fft", "fp16"}, {"separable", "fp16"},
    {"stencil", "fp16"},
    {"im2tensor", "fp32"},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (conflicts); c++) {
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=2 ! "
        "cudaconvolve backend=cpu kernel-preset=box method=%s precision=%s "
        "! fakesink", conflicts[c][0], conflicts[c][1]);
    gchar *err = run_pipeline_error (launch);
    gchar *m = g_strdup_printf ("method=%s", conflicts[c][0]);
    gchar *p = g_strdup_printf ("precision=%s", conflicts[c][1]);

    fail_unless (err != NULL, "%s ran", launch);
    fail_unless (strstr (err, m) != NULL && strstr (err, p) != NULL,
        "message: %s", err);
    g_free (err);
    g_free (m);
    g_free (p);
    g_free (launch);
  }
}

GST_END_TEST;

/* The GPU refuses method=separable for a kernel of rank > 1; the CPU
 * backend refuses it too, with the same message, so this suite catches
 * it without a GPU. */
GST_START_TEST (test_separable_refuses_rank2_kernel_like_gpu)
{
  gchar *err = run_pipeline_error ("videotestsrc num-buffers=2 ! "
      "cudaconvolve backend=cpu method=separable kernel=\"1 2 0; 0 4 1; "
      "3 0 5\" ! fakesink");

  fail_unless (err != NULL, "a rank-2 kernel ran with method=separable");
  fail_unless_equals_string (err, "method=separable: the 3x3 kernel is not "
      "separable (rank > 1); use method=direct or method=fft.");
  g_free (err);
  /* the same in correlation mode, and a rank-1 kernel runs */
  err = run_pipeline_error ("videotestsrc num-buffers=2 ! cudaconvolve "
      "backend=cpu method=separable mode=correlation kernel=\"0 1; 1 0\" "
      "! fakesink");
  fail_unless (err != NULL && strstr (err, "not separable") != NULL,
      "message: %s", err);
  g_free (err);
  err = run_pipeline_error ("videotestsrc num-buffers=2 ! cudaconvolve "
      "backend=cpu method=separable kernel-preset=gaussian sigma=2 ! "
      "fakesink");
  fail_unless (err == NULL, "a gaussian was refused: %s", err);
}

GST_END_TEST;

/* method=stencil serves kernels up to 7x7: the CPU backend refuses a
 * larger one with the GPU's message, and takes 7x7 and 7x1. */
GST_START_TEST (test_stencil_refuses_kernels_above_7x7_like_gpu)
{
  gchar *err = run_pipeline_error ("videotestsrc num-buffers=2 ! "
      "cudaconvolve backend=cpu method=stencil kernel-preset=box "
      "kernel-size=9 ! fakesink");

  fail_unless (err != NULL, "a 9x9 kernel ran with method=stencil");
  fail_unless_equals_string (err, "method=stencil serves kernels up to 7x7; "
      "the kernel is 9x9: use method=auto or method=direct.");
  g_free (err);
  err = run_pipeline_error ("videotestsrc num-buffers=2 ! cudaconvolve "
      "backend=cpu method=stencil kernel=\"1 2 3 4 5 6 7 8\" ! fakesink");
  fail_unless (err != NULL && strstr (err, "the kernel is 8x1") != NULL,
      "message: %s", err);
  g_free (err);
  err = run_pipeline_error ("videotestsrc num-buffers=2 ! cudaconvolve "
      "backend=cpu method=stencil kernel-preset=box kernel-size=7 ! "
      "fakesink");
  fail_unless (err == NULL, "a 7x7 box was refused: %s", err);
  err = run_pipeline_error ("videotestsrc num-buffers=2 ! cudaconvolve "
      "backend=cpu method=stencil kernel=\"1 2 3 4 3 2 1\" ! fakesink");
  fail_unless (err == NULL, "a 7x1 kernel was refused: %s", err);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation_to_another_size_and_format)
{
  RefKernel k = { 3, 3, NULL };
  double taps[9];
  GstVideoInfo info;
  GstHarness *h;
  GstCaps *caps;
  guint i;

  for (i = 0; i < 9; i++)
    taps[i] = k3_taps[i] / 16.0;
  k.k = taps;
  h = harness_for ("RGBx", 32, 24, &info);
  g_object_set (h->element, "kernel", k3_text, NULL);
  run_and_check (h, &info, 1, &k, "reflect", FALSE, 0);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 17, 13);
  caps = gst_video_info_to_caps (&info);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  run_and_check (h, &info, 2, &k, "reflect", FALSE, 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_property_change_while_playing)
{
  RefKernel k3 = { 3, 3, NULL }, k1 = { 1, 3, NULL };
  double taps[9];
  static const double t1[] = { 0.25, 0.5, 0.25 };
  GstVideoInfo info;
  GstHarness *h;
  guint i;

  for (i = 0; i < 9; i++)
    taps[i] = k3_taps[i] / 16.0;
  k3.k = taps;
  k1.k = t1;
  h = harness_for ("GRAY8", 30, 20, &info);
  g_object_set (h->element, "kernel", k3_text, NULL);
  run_and_check (h, &info, 1, &k3, "reflect", FALSE, 0);
  /* a column kernel and another border, mid-stream */
  g_object_set (h->element, "kernel", "1;2;1", NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "border", "wrap");
  run_and_check (h, &info, 2, &k1, "wrap", FALSE, 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Run a pipeline to its end; return the error text (or NULL on EOS). */
static gchar *
run_pipeline_error (const gchar * description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GstBus *bus;
  GstMessage *msg;
  gchar *text = NULL;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "?");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "pipeline neither finished nor failed");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return text;
}

GST_START_TEST (test_rejects_kernel_with_ragged_rows)
{
  gchar *err = run_pipeline_error ("videotestsrc num-buffers=2 ! "
      "cudaconvolve backend=cpu kernel=\"1 2 3; 4 5\" ! fakesink");
  fail_unless (err != NULL);
  fail_unless (strstr (err, "row 2") != NULL, "message: %s", err);
  fail_unless (strstr (err, "expected 3") != NULL, "message: %s", err);
  g_free (err);
}

GST_END_TEST;

GST_START_TEST (test_rejects_kernel_that_is_not_a_number)
{
  gchar *err = run_pipeline_error ("videotestsrc num-buffers=2 ! "
      "cudaconvolve backend=cpu kernel=\"1 2; 3 x4\" ! fakesink");
  fail_unless (err != NULL);
  fail_unless (strstr (err, "x4") != NULL, "message: %s", err);
  g_free (err);
}

GST_END_TEST;

GST_START_TEST (test_rejects_kernel_file_with_wrong_count)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "cf-bad-kernel.txt", NULL);
  gchar *pipe, *err;

  fail_unless (g_file_set_contents (path,
          "# a 3x3 kernel with a short last row\n1 2 1\n2 4 2\n1 2\n", -1,
          NULL));
  pipe = g_strdup_printf ("videotestsrc num-buffers=2 ! cudaconvolve "
      "backend=cpu kernel-location=\"%s\" ! fakesink", path);
  err = run_pipeline_error (pipe);
  fail_unless (err != NULL);
  fail_unless (strstr (err, "line 4") != NULL, "message: %s", err);
  g_free (err);
  g_free (pipe);
  unlink (path);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_reports_missing_kernel_file)
{
  gchar *err = run_pipeline_error ("videotestsrc num-buffers=2 ! "
      "cudaconvolve backend=cpu kernel-location=/nonexistent/k.txt ! "
      "fakesink");
  fail_unless (err != NULL);
  fail_unless (strstr (err, "/nonexistent/k.txt") != NULL, "message: %s",
      err);
  g_free (err);
}

GST_END_TEST;

/* Pop the next warning posted on @bus and return its text, or NULL. */
static gchar *
pop_warning (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  GError *err = NULL;
  gchar *text;

  if (msg == NULL)
    return NULL;
  gst_message_parse_warning (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

/* An invalid kernel set while PLAYING keeps the last valid kernel and
 * posts a warning; a later valid one is used again. */
GST_START_TEST (test_invalid_kernel_set_while_playing_keeps_last_kernel)
{
  static const double row[] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };
  RefKernel k = { 3, 1, row }, k1 = { 1, 3, NULL };
  static const double t1[] = { 0.25, 0.5, 0.25 };
  GstVideoInfo info;
  GstHarness *h = harness_for ("GRAY8", 8, 8, &info);
  GstBus *bus = gst_bus_new ();
  gchar *warning;

  k1.k = t1;
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "kernel", "1 1 1", NULL);
  run_and_check (h, &info, 1, &k, "reflect", FALSE, 0);
  fail_unless (pop_warning (bus) == NULL);

  g_object_set (h->element, "kernel", "1 1 nan", NULL);
  run_and_check (h, &info, 2, &k, "reflect", FALSE, 0);
  warning = pop_warning (bus);
  fail_unless (warning != NULL, "no warning for an invalid kernel");
  fail_unless (strstr (warning, "keeping the previous kernel") != NULL &&
      strstr (warning, "'nan' is not finite") != NULL, "warning: %s",
      warning);
  g_free (warning);
  /* said once, not for every frame */
  run_and_check (h, &info, 3, &k, "reflect", FALSE, 0);
  fail_unless (pop_warning (bus) == NULL);

  /* a preset that cannot be built at this size: warned, kernel kept */
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-preset",
      "laplacian");
  g_object_set (h->element, "kernel", NULL, "kernel-size", 1, NULL);
  run_and_check (h, &info, 4, &k, "reflect", FALSE, 0);
  warning = pop_warning (bus);
  fail_unless (warning != NULL && strstr (warning, "too small") != NULL,
      "warning: %s", warning);
  g_free (warning);

  g_object_set (h->element, "kernel", "1; 2; 1", NULL);
  run_and_check (h, &info, 5, &k1, "reflect", FALSE, 0);
  fail_unless (pop_warning (bus) == NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* kernel-preset=laplacian then kernel-size=5, set between two frames:
 * the stream never sees the state in between (laplacian at the old size
 * 1 is invalid), so nothing is warned and the next frame has the 5x5
 * Laplacian of Gaussian. */
GST_START_TEST (test_transient_kernel_state_between_frames_is_not_used)
{
  GstVideoInfo info;
  GstHarness *h = harness_for ("GRAY8", 9, 9, &info);
  GstBus *bus = gst_bus_new ();
  GstBuffer *in, *out;
  GstMapInfo map;
  gsize i;

  gst_element_set_bus (h->element, bus);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-preset", "box");
  g_object_set (h->element, "kernel-size", 1, NULL);
  gst_buffer_unref (gst_harness_push_and_pull (h, cf_test_random_frame (&info,
              1)));
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-preset",
      "laplacian");
  g_object_set (h->element, "kernel-size", 5, "offset", 0.5, NULL);
  /* a flat frame: a zero-sum kernel gives the offset alone */
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (in, 0, 90, info.size);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (i = 0; i < map.size; i++)
    if (i % GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) < 9)
      fail_unless_equals_int (map.data[i], 128);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  fail_unless (pop_warning (bus) == NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

typedef struct
{
  GObject *element;
  const gchar *property;
  const gchar *value;
  gboolean done;
  GMutex lock;
  GCond cond;
} SetJob;

static gpointer
set_job_run (gpointer data)
{
  SetJob *job = data;

  g_object_set (job->element, job->property, job->value, NULL);
  g_mutex_lock (&job->lock);
  job->done = TRUE;
  g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
  return NULL;
}

/* Set a property from another thread; TRUE when g_object_set returned
 * within 5 s (the thread is left running otherwise). */
static gboolean
set_returns_promptly (GstElement * element, const gchar * property,
    const gchar * value, SetJob * job)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  gboolean done;

  job->element = G_OBJECT (element);
  job->property = property;
  job->value = value;
  job->done = FALSE;
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);
  g_thread_unref (g_thread_new ("set", set_job_run, job));
  g_mutex_lock (&job->lock);
  while (!job->done && g_cond_wait_until (&job->cond, &job->lock, deadline));
  done = job->done;
  g_mutex_unlock (&job->lock);
  return done;
}

/* Write @text into the FIFO at @path (blocks until a reader opens it). */
static gpointer
fifo_writer_run (gpointer path)
{
  FILE *f = fopen (path, "w");

  fail_unless (f != NULL);
  fputs ("1 2 1\n", f);
  fclose (f);
  return NULL;
}

/* TRUE when every sample of GRAY8 @out, away from the left and right
 * edges, is within 1 of the row kernel @taps applied to @in. */
static gboolean
row_kernel_applied (const GstVideoInfo * info, GstBuffer * in,
    GstBuffer * out, const double *taps)
{
  GstVideoFrame fin, fout;
  gboolean all = TRUE;
  int x, y;

  fail_unless (gst_video_frame_map (&fin, (GstVideoInfo *) info, in,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, (GstVideoInfo *) info, out,
          GST_MAP_READ));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    for (x = 1; x + 1 < GST_VIDEO_INFO_WIDTH (info); x++) {
      double v = taps[0] * read_sample (&fin, 0, x - 1, y) +
          taps[1] * read_sample (&fin, 0, x, y) +
          taps[2] * read_sample (&fin, 0, x + 1, y);
      if (fabs (read_sample (&fout, 0, x, y) - floor (v + 0.5)) > 1.0)
        all = FALSE;
    }
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  return all;
}

/* Let a reader blocked on the FIFO at @path go on (end of file). */
static void
unblock_fifo (const gchar * path)
{
  int fd = open (path, O_WRONLY | O_NONBLOCK);

  if (fd >= 0)
    close (fd);
}

/* kernel-location names a FIFO nobody writes yet: setting it returns at
 * once (the setter reads nothing), frames keep flowing with the current
 * kernel, and the file's kernel is used once it has been written. */
GST_START_TEST (test_kernel_location_is_read_off_the_stream)
{
  static const double row[] = { 0.25, 0.5, 0.25 };
  static const double box[] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };
  RefKernel k_file = { 3, 1, row }, k_box = { 3, 1, box };
  gchar *dir = g_dir_make_tmp ("cf-fifo-XXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "kernel", NULL);
  GstVideoInfo info;
  GstHarness *h;
  GThread *writer;
  SetJob job;
  gint64 deadline;
  gboolean changed = FALSE;
  guint32 seed = 10;

  fail_unless (mkfifo (fifo, 0600) == 0);
  h = harness_for ("GRAY8", 12, 6, &info);
  g_object_set (h->element, "kernel", "1 1 1", NULL);
  run_and_check (h, &info, 1, &k_box, "reflect", FALSE, 0);

  /* kernel takes precedence over kernel-location: unset it after */
  fail_unless (set_returns_promptly (h->element, "kernel-location", fifo,
          &job), "setting kernel-location blocked on the FIFO");
  g_object_set (h->element, "kernel", NULL, NULL);
  /* the stream goes on with the kernel it has */
  run_and_check (h, &info, seed++, &k_box, "reflect", FALSE, 0);
  run_and_check (h, &info, seed++, &k_box, "reflect", FALSE, 0);

  writer = g_thread_new ("writer", fifo_writer_run, fifo);
  deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  while (!changed && g_get_monotonic_time () < deadline) {
    GstBuffer *in = cf_test_random_frame (&info, seed++);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));

    /* until the file is read, the frames keep the box kernel */
    changed = row_kernel_applied (&info, in, out, row);
    if (!changed)
      fail_unless (row_kernel_applied (&info, in, out, box));
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    if (!changed)
      g_usleep (10000);
  }
  g_thread_join (writer);
  fail_unless (changed, "the kernel file was never used");
  run_and_check (h, &info, seed++, &k_file, "reflect", FALSE, 0);
  gst_harness_teardown (h);
  unlink (fifo);
  g_rmdir (dir);
  g_free (fifo);
  g_free (dir);
}

GST_END_TEST;

/* Setting kernel-location to a FIFO before the pipeline runs returns at
 * once too (gst-launch-1.0 used to hang in the setter). */
GST_START_TEST (test_kernel_location_setter_does_not_read)
{
  gchar *dir = g_dir_make_tmp ("cf-fifo-XXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "kernel", NULL);
  GstElement *element = gst_element_factory_make ("cudaconvolve", NULL);
  SetJob job;
  gboolean prompt;

  fail_unless (mkfifo (fifo, 0600) == 0);
  prompt = set_returns_promptly (element, "kernel-location", fifo, &job);
  if (!prompt) {
    /* release the blocked setter before failing */
    unblock_fifo (fifo);
    g_usleep (G_USEC_PER_SEC / 2);
  }
  fail_unless (prompt, "setting kernel-location blocked on the FIFO");
  gst_object_unref (element);
  unlink (fifo);
  g_rmdir (dir);
  g_free (fifo);
  g_free (dir);
}

GST_END_TEST;

static GstElement *window_element;
static gint window_hits;

/* A debug log handler that acts as the application thread at the worst
 * moment: GstBaseTransform logs "using allocated buffer" between
 * prepare_output_buffer (which decided passthrough or not) and transform.
 * It toggles the kernel between an identity and a real one right there. */
static void
set_kernel_in_transform_window (GstDebugCategory * category,
    GstDebugLevel level, const gchar * file, const gchar * function,
    gint line, GObject * object, GstDebugMessage * message, gpointer data)
{
  if (object != (GObject *) window_element
      || g_strcmp0 (function, "default_generate_output") != 0
      || !g_str_has_prefix (gst_debug_message_get (message),
          "using allocated buffer"))
    return;
  g_object_set (window_element, "kernel", g_atomic_int_add (&window_hits,
          1) % 2 == 0 ? "1 2 1" : "1", NULL);
}

/* The race of the stress test below, made certain: the kernel flips
 * between an identity and a real kernel after the output buffer was
 * prepared and before the transform. Each frame is computed with the
 * settings it started with: the identity frame passes through (no write
 * map on the shared input, a critical that is fatal here), the real one
 * is filtered (not a prepared but never written buffer). */
GST_START_TEST (test_property_set_between_prepare_and_transform)
{
  static const double taps[] = { 0.25, 0.5, 0.25 };
  RefKernel k = { 3, 1, taps };
  GstVideoInfo info;
  GstHarness *h = harness_for ("GRAY8", 10, 4, &info);
  GstBuffer *in, *out;
  guint removed;

  g_object_set (h->element, "kernel", "1", NULL);
  gst_buffer_unref (gst_harness_push_and_pull (h, cf_test_random_frame (&info,
              1)));
  window_element = h->element;
  g_atomic_int_set (&window_hits, 0);
  removed = gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (set_kernel_in_transform_window, NULL, NULL);
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("basetransform", GST_LEVEL_DEBUG);

  /* identity when it starts: passes through, although "1 2 1" is set
   * while it is on its way */
  in = cf_test_random_frame (&info, 2);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless_equals_int (g_atomic_int_get (&window_hits), 1);
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  /* "1 2 1" when it starts: filtered, although "1" is set on its way */
  in = cf_test_random_frame (&info, 3);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless_equals_int (g_atomic_int_get (&window_hits), 2);
  fail_unless (out != in);
  check_frame (&info, in, out, &k, "reflect", FALSE, FALSE, 0);
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  gst_debug_unset_threshold_for_name ("basetransform");
  gst_debug_remove_log_function (set_kernel_in_transform_window);
  if (removed > 0)
    gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  window_element = NULL;
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A running pipeline while another thread toggles identity settings
 * (kernel="1", channels=0) and real ones 100 000 times: passthrough is
 * switched on the streaming thread only, so no frame meets a half-made
 * decision ("write map requested on non-writable buffer", a critical,
 * fatal here) and nothing is warned. */
GST_START_TEST (test_toggling_identity_while_playing_stress)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("videotestsrc pattern=snow ! "
      "video/x-raw,format=GRAY8,width=16,height=8 ! cudaconvolve name=c "
      "backend=cpu kernel=\"1 2 1\" ! fakesink name=s sync=false "
      "signal-handoffs=true", &error);
  GstElement *conv, *sink;
  GstBus *bus;
  GstMessage *msg;
  guint i;
  gint frames_before;
  static gint frames;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "?");
  conv = gst_bin_get_by_name (GST_BIN (pipeline), "c");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "s");
  g_atomic_int_set (&frames, 0);
  g_signal_connect_swapped (sink, "handoff", G_CALLBACK (g_atomic_int_inc),
      &frames);
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS);

  frames_before = g_atomic_int_get (&frames);
  for (i = 0; i < 100000; i++) {
    switch (i % 4) {
      case 0:
        g_object_set (conv, "kernel", "1", NULL);
        break;
      case 1:
        g_object_set (conv, "kernel", "1 2 1", NULL);
        break;
      case 2:
        g_object_set (conv, "channels", 0, NULL);
        break;
      default:
        gst_util_set_object_arg (G_OBJECT (conv), "channels", "y");
        break;
    }
    if (i % 1000 == 0)
      g_thread_yield ();
  }
  /* frames did flow while the settings changed */
  fail_unless (g_atomic_int_get (&frames) > frames_before + 100,
      "only %d frames", g_atomic_int_get (&frames) - frames_before);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  if (msg != NULL) {
    GError *err = NULL;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &err, NULL);
    else
      gst_message_parse_warning (msg, &err, NULL);
    fail ("%s: %s", GST_MESSAGE_TYPE_NAME (msg), err->message);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (conv);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* An empty buffer, GAP-flagged or not, at @pts. */
static GstBuffer *
empty_buffer (GstClockTime pts, gboolean gap)
{
  GstBuffer *buf = gst_buffer_new ();

  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  if (gap)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
  return buf;
}

/* The next GAP event that reached the harness's sink, or NULL. */
static GstEvent *
pull_gap_event (GstHarness * h)
{
  GstEvent *event;

  while ((event = gst_harness_try_pull_event (h)) != NULL) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_GAP)
      return event;
    gst_event_unref (event);
  }
  return NULL;
}

/* Zero-length buffers through an element of the common base class
 * (GstCfBaseTransform): a GAP-flagged one comes out as a GAP event with
 * its timestamp and duration, any other is dropped with one warning; no
 * assertion, no error, and the frames after them are computed. */
static void
check_empty_buffers (GstHarness * h, GstBuffer * (*frame) (guint32 seed))
{
  GstBus *bus = gst_bus_new ();
  GstEvent *gap;
  GstClockTime ts, dur;
  GstBuffer *out;
  gchar *warning;

  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, empty_buffer (GST_SECOND,
              TRUE)), GST_FLOW_OK);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gap = pull_gap_event (h);
  fail_unless (gap != NULL, "no GAP event for an empty GAP buffer");
  gst_event_parse_gap (gap, &ts, &dur);
  fail_unless_equals_uint64 (ts, GST_SECOND);
  fail_unless_equals_uint64 (dur, GST_SECOND / 30);
  gst_event_unref (gap);
  fail_unless (pop_warning (bus) == NULL);

  /* not GAP: dropped, warned once */
  fail_unless_equals_int (gst_harness_push (h, empty_buffer (2 * GST_SECOND,
              FALSE)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, empty_buffer (3 * GST_SECOND,
              FALSE)), GST_FLOW_OK);
  fail_unless (gst_harness_try_pull (h) == NULL);
  warning = pop_warning (bus);
  fail_unless (warning != NULL && strstr (warning, "without data") != NULL,
      "warning: %s", warning);
  g_free (warning);
  fail_unless (pop_warning (bus) == NULL);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  /* and the stream goes on */
  out = gst_harness_push_and_pull (h, frame (4));
  fail_unless (out != NULL && gst_buffer_get_size (out) > 0);
  gst_buffer_unref (out);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
}

static GstVideoInfo empty_test_info;

static GstBuffer *
video_frame (guint32 seed)
{
  return cf_test_random_frame (&empty_test_info, seed);
}

static GstBuffer *
flow_field (guint32 seed)
{
  /* 8x4 (u, v) floats, all 0.5 */
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 8 * 4 * 2 * 4, NULL);
  GstMapInfo map;
  guint i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < 8 * 4 * 2; i++)
    ((gfloat *) map.data)[i] = 0.5f;
  gst_buffer_unmap (buf, &map);
  return buf;
}

GST_START_TEST (test_empty_buffers_in_cudaconvolve)
{
  GstHarness *h = harness_for ("NV12", 16, 8, &empty_test_info);

  g_object_set (h->element, "kernel", k3_text, NULL);
  check_empty_buffers (h, video_frame);
  gst_harness_teardown (h);
  /* a passthrough too (no kernel) */
  h = harness_for ("GRAY8", 16, 8, &empty_test_info);
  check_empty_buffers (h, video_frame);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_empty_buffers_in_flowviz)
{
  GstHarness *h = cf_test_harness_new ("flowviz", "cpu", NULL);

  gst_harness_set_src_caps_str (h, "video/x-optical-flow, format=UV_F32LE, "
      "width=8, height=4, framerate=30/1");
  check_empty_buffers (h, flow_field);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The pads advertise the sizes the working planes hold on both backends
 * (32768 a side), not up to 2^31 - 1. */
GST_START_TEST (test_caps_advertise_the_supported_size_range)
{
  GstElementFactory *factory = gst_element_factory_find ("cudaconvolve");
  const GList *l;
  GstHarness *h;
  GstVideoInfo info;
  GstCaps *caps;
  guint n = 0;

  fail_unless (factory != NULL);
  for (l = gst_element_factory_get_static_pad_templates (factory); l;
      l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *tc = gst_static_caps_get (&t->static_caps);
    guint c;

    for (c = 0; c < gst_caps_get_size (tc); c++) {
      GstStructure *st = gst_caps_get_structure (tc, c);
      const GValue *w = gst_structure_get_value (st, "width");
      const GValue *hv = gst_structure_get_value (st, "height");

      fail_unless_equals_int (gst_value_get_int_range_min (w), 1);
      fail_unless_equals_int (gst_value_get_int_range_max (w), 32768);
      fail_unless_equals_int (gst_value_get_int_range_max (hv), 32768);
      n++;
    }
    gst_caps_unref (tc);
  }
  fail_unless_equals_int (n, 4);
  gst_object_unref (factory);

  /* one more is refused at negotiation, not with a false "not enough
   * memory" at the first frame */
  h = cf_test_harness_new ("cudaconvolve", "cpu", NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 32769, 1);
  caps = gst_video_info_to_caps (&info);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  fail_unless (!gst_pad_query_accept_caps (GST_PAD_PEER (h->srcpad), caps));
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_backend_cuda_without_gpu_fails_with_message)
{
  gchar *err;

  if (cf_test_gpu_available ())
    return;                     /* covered by the GPU suite on a GPU host */
  err = run_pipeline_error ("videotestsrc num-buffers=2 ! "
      "cudaconvolve backend=cuda kernel-preset=box ! fakesink");
  fail_unless (err != NULL);
  fail_unless (strstr (err, "backend=cpu") != NULL, "message: %s", err);
  g_free (err);
}

GST_END_TEST;

GST_START_TEST (test_gaussian_pipeline_to_png_runs)
{
  gchar *dir = g_dir_make_tmp ("cf-conv-XXXXXX", NULL);
  gchar *pipe, *err, *first;

  pipe = g_strdup_printf ("videotestsrc num-buffers=3 ! "
      "video/x-raw,width=160,height=120 ! cudaconvolve kernel-preset=gaussian "
      "sigma=2 ! videoconvert ! pngenc ! multifilesink location=%s/f_%%05d.png",
      dir);
  err = run_pipeline_error (pipe);
  fail_unless (err == NULL, "pipeline failed: %s", err);
  first = g_build_filename (dir, "f_00002.png", NULL);
  fail_unless (g_file_test (first, G_FILE_TEST_EXISTS));
  g_free (first);
  g_free (pipe);
  g_free (dir);
}

GST_END_TEST;

static Suite *
elements_cudaconvolve_suite (void)
{
  Suite *s = suite_create ("cudaconvolve");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_every_format_and_border_matches_reference);
  tcase_add_test (tc, test_correlation_does_not_flip_kernel);
  tcase_add_test (tc, test_tiny_and_odd_sizes);
  tcase_add_test (tc, test_kernel_larger_than_frame);
  tcase_add_test (tc, test_no_kernel_is_passthrough);
  tcase_add_test (tc, test_identity_kernel_is_passthrough);
  tcase_add_test (tc, test_alpha_and_unselected_channels_untouched);
  tcase_add_test (tc, test_offset_shows_laplacian_of_flat_frame_as_mid_grey);
  tcase_add_test (tc, test_presets_blur_an_impulse);
  tcase_add_test (tc, test_every_method_accepted_on_cpu);
  tcase_add_test (tc, test_every_consistent_precision_accepted_on_cpu);
  tcase_add_test (tc, test_rejects_method_precision_conflict);
  tcase_add_test (tc, test_renegotiation_to_another_size_and_format);
  tcase_add_test (tc, test_property_change_while_playing);
  tcase_add_test (tc, test_rejects_kernel_with_ragged_rows);
  tcase_add_test (tc, test_rejects_kernel_that_is_not_a_number);
  tcase_add_test (tc, test_rejects_kernel_file_with_wrong_count);
  tcase_add_test (tc, test_reports_missing_kernel_file);
  tcase_add_test (tc, test_separable_refuses_rank2_kernel_like_gpu);
  tcase_add_test (tc, test_stencil_refuses_kernels_above_7x7_like_gpu);
  tcase_add_test (tc, test_invalid_kernel_set_while_playing_keeps_last_kernel);
  tcase_add_test (tc, test_transient_kernel_state_between_frames_is_not_used);
  tcase_add_test (tc, test_kernel_location_is_read_off_the_stream);
  tcase_add_test (tc, test_kernel_location_setter_does_not_read);
  tcase_add_test (tc, test_property_set_between_prepare_and_transform);
  tcase_add_test (tc, test_toggling_identity_while_playing_stress);
  tcase_add_test (tc, test_caps_advertise_the_supported_size_range);
  tcase_add_test (tc, test_empty_buffers_in_cudaconvolve);
  tcase_add_test (tc, test_empty_buffers_in_flowviz);
  tcase_add_test (tc, test_backend_cuda_without_gpu_fails_with_message);
  tcase_add_test (tc, test_gaussian_pipeline_to_png_runs);
  return s;
}

GST_CHECK_MAIN (elements_cudaconvolve);
