/* gst-cudaflow — cudaconvolve on the GPU: agreement with the CPU backend,
 * CUDA memory in and out without host copies. Exits 77 without a device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cf-test-util.h"

static const gchar *all_formats[] = { "GRAY8", "GRAY16_LE", "NV12", "I420",
  "RGBA", "BGRA", "RGBx", "BGRx"
};

static const gchar *all_borders[] = { "zero", "clamp", "reflect", "wrap" };

static const gchar *k3_text = "1 2 0; 0 4 1; 3 0 5";

static GstHarness *
harness_with_backend (const gchar * backend, const GstVideoInfo * info)
{
  GstHarness *h = cf_test_harness_new ("cudaconvolve", backend, NULL);
  GstCaps *caps = gst_video_info_to_caps ((GstVideoInfo *) info);

  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  return h;
}

/* Run the same frame through backend=cuda and backend=cpu with @method
 * and @precision (property nicks) and compare, within @tol levels. */
static void
compare_backends_with (const gchar * format, int width, int height,
    const gchar * kernel, const gchar * border, guint32 seed,
    const gchar * method, const gchar * precision, guint tol)
{
  GstVideoInfo info;
  GstHarness *gpu, *cpu;
  GstBuffer *in, *out_gpu, *out_cpu;
  gchar *what;

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  gpu = harness_with_backend ("cuda", &info);
  cpu = harness_with_backend ("cpu", &info);
  g_object_set (gpu->element, "kernel", kernel, NULL);
  g_object_set (cpu->element, "kernel", kernel, NULL);
  gst_util_set_object_arg (G_OBJECT (gpu->element), "border", border);
  gst_util_set_object_arg (G_OBJECT (cpu->element), "border", border);
  gst_util_set_object_arg (G_OBJECT (gpu->element), "method", method);
  gst_util_set_object_arg (G_OBJECT (cpu->element), "method", method);
  gst_util_set_object_arg (G_OBJECT (gpu->element), "precision", precision);
  gst_util_set_object_arg (G_OBJECT (cpu->element), "precision", precision);

  in = cf_test_random_frame (&info, seed);
  out_gpu = gst_harness_push_and_pull (gpu, gst_buffer_ref (in));
  out_cpu = gst_harness_push_and_pull (cpu, gst_buffer_ref (in));
  fail_unless (out_gpu != NULL && out_cpu != NULL);
  what = g_strdup_printf ("%dx%d border %s method %s precision %s", width,
      height, border, method, precision);
  cf_test_assert_frames_close (&info, out_gpu, out_cpu, tol, what);
  g_free (what);
  gst_buffer_unref (out_gpu);
  gst_buffer_unref (out_cpu);
  gst_buffer_unref (in);
  gst_harness_teardown (gpu);
  gst_harness_teardown (cpu);
}

/* method=auto, precision=auto; fp32 sums in another order than the CPU's
 * may round the other way at .5 */
static void
compare_backends (const gchar * format, int width, int height,
    const gchar * kernel, const gchar * border, guint32 seed)
{
  compare_backends_with (format, width, height, kernel, border, seed, "auto",
      "auto", 1);
}

GST_START_TEST (test_gpu_matches_cpu_for_every_format_and_border)
{
  guint f, b;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
    for (b = 0; b < G_N_ELEMENTS (all_borders); b++)
      compare_backends (all_formats[f], 37, 23, k3_text, all_borders[b],
          1 + f * 4 + b);
}

GST_END_TEST;

GST_START_TEST (test_gpu_matches_cpu_on_tiny_odd_and_hd_sizes)
{
  static const int sizes[][2] = { {1, 1}, {2, 2}, {1, 9}, {641, 479},
  {1920, 1080}
  };
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    compare_backends ("NV12", sizes[s][0], sizes[s][1], k3_text, "reflect",
        50 + s);
    compare_backends ("RGBA", sizes[s][0], sizes[s][1], k3_text, "zero",
        60 + s);
  }
}

GST_END_TEST;

/* method=auto, precision=auto: whichever method auto picks for 31 x 31
 * at 200x150 (im2tensor where its window in auto_table covers it, as
 * since the counted row copies of 2026-12-06; fft with the table before),
 * im2tensor's tolerance covers it */
GST_START_TEST (test_gpu_matches_cpu_with_large_kernels)
{
  gchar *k31 = cf_test_random_kernel_text (31, 7);
  gchar *k127 = cf_test_random_kernel_text (127, 8);
  guint b;

  for (b = 0; b < G_N_ELEMENTS (all_borders); b++)
    compare_backends_with ("GRAY8", 200, 150, k31, all_borders[b], 70 + b,
        "auto", "auto", 2);
  compare_backends ("GRAY16_LE", 160, 130, k127, "reflect", 80);
  /* larger than the frame */
  compare_backends ("GRAY8", 50, 40, k127, "wrap", 81);
  g_free (k31);
  g_free (k127);
}

GST_END_TEST;

/* Every method and precision on the GPU against the CPU reference: 8-bit
 * output, so fp32 methods agree within one level (rounding at .5) and
 * im2tensor (fp16 inputs: up to 2^-11 relative per product) within two. */
GST_START_TEST (test_every_method_and_precision_matches_cpu)
{
  static const struct
  {
    const gchar *method, *precision;
    gboolean rank1;
    guint tol;
  } runs[] = {
    {"direct", "fp32", FALSE, 1}, {"fft", "fp32", FALSE, 1},
    {"separable", "fp32", TRUE, 1}, {"im2tensor", "auto", FALSE, 2},
    {"auto", "fp16", FALSE, 2}, {"auto", "fp32", FALSE, 1},
  };
  gchar *k31 = cf_test_random_kernel_text (31, 9);
  gchar *k5 = cf_test_random_kernel_text (5, 10);
  gchar *k7 = cf_test_random_kernel_text (7, 11);
  const gchar *k5_rank1 = "1 4 6 4 1; 4 16 24 16 4; 6 24 36 24 6; "
      "4 16 24 16 4; 1 4 6 4 1";
  guint r, b;

  for (r = 0; r < G_N_ELEMENTS (runs); r++)
    for (b = 0; b < G_N_ELEMENTS (all_borders); b++)
      compare_backends_with ("GRAY8", 203, 151, runs[r].rank1 ? k5_rank1 :
          k31, all_borders[b], 90 + r * 4 + b, runs[r].method,
          runs[r].precision, runs[r].tol);
  /* the stencil serves kernels up to 7x7, and auto picks it there */
  for (b = 0; b < G_N_ELEMENTS (all_borders); b++) {
    compare_backends_with ("GRAY8", 203, 151, k5, all_borders[b], 120 + b,
        "stencil", "fp32", 1);
    compare_backends_with ("I420", 203, 151, k7, all_borders[b], 124 + b,
        "stencil", "auto", 1);
    compare_backends_with ("RGBA", 203, 151, k5, all_borders[b], 128 + b,
        "auto", "auto", 1);
  }
  g_free (k31);
  g_free (k5);
  g_free (k7);
}

GST_END_TEST;

/* cudaconvolve on the CUDA backend in @ctx (shared through a GstContext),
 * with @kernel (NULL: none, a passthrough) set before the caps, 64x48 RGBA
 * in CUDA memory on both pads. */
static GstHarness *
rgba_cuda_harness (GstCudaContext * ctx, const gchar * kernel)
{
  GstContext *gst_ctx = gst_context_new_cuda_context (ctx);
  GstHarness *h = cf_test_harness_new ("cudaconvolve", "cuda", gst_ctx);

  gst_context_unref (gst_ctx);
  if (kernel != NULL)
    g_object_set (h->element, "kernel", kernel, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw(memory:CUDAMemory), "
      "format=RGBA, width=64, height=48, framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory), "
      "format=RGBA, width=64, height=48, framerate=30/1");
  return h;
}

GST_START_TEST (test_cuda_memory_never_touches_the_host)
{
  GstCudaContext *ctx;
  GstVideoInfo info;
  GstHarness *h, *cpu;
  GstBuffer *src, *in, *out, *expect;
  GstMemory *in_mem, *out_mem;

  fail_unless (gst_cuda_load_library ());
  ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  gst_cuda_memory_init_once ();
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);

  h = rgba_cuda_harness (ctx, k3_text);

  src = cf_test_random_frame (&info, 11);
  in = cf_test_cuda_buffer_from (ctx, &info, src);
  in_mem = gst_buffer_peek_memory (in, 0);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);

  /* the input was read on the device only: a host map would have cleared
   * NEED_DOWNLOAD */
  fail_unless (GST_MEMORY_FLAG_IS_SET (in_mem,
          GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD));
  out_mem = gst_buffer_peek_memory (out, 0);
  fail_unless (gst_is_cuda_memory (out_mem));
  fail_unless (GST_CUDA_MEMORY_CAST (out_mem)->context == ctx);
  fail_unless (GST_MEMORY_FLAG_IS_SET (out_mem,
          GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD));

  /* and the values are right */
  cpu = harness_with_backend ("cpu", &info);
  g_object_set (cpu->element, "kernel", k3_text, NULL);
  expect = gst_harness_push_and_pull (cpu, gst_buffer_ref (src));
  cf_test_assert_frames_close (&info, out, expect, 1, "cuda memory path");

  gst_buffer_unref (expect);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (src);
  gst_harness_teardown (cpu);
  gst_harness_teardown (h);
  gst_object_unref (ctx);
}

GST_END_TEST;

GST_START_TEST (test_cudaupload_cudadownload_pipeline)
{
  GstElementFactory *up = gst_element_factory_find ("cudaupload");
  GstVideoInfo info;
  GstHarness *h, *cpu;
  GstBuffer *in, *out, *expect;

  if (up == NULL) {
    GST_WARNING ("nvcodec's cudaupload is not available; skipping");
    return;
  }
  gst_object_unref (up);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);
  h = gst_harness_new_parse ("cudaupload ! cudaconvolve backend=cuda "
      "kernel-preset=gaussian sigma=2 ! cudadownload");
  gst_harness_set_src_caps_str (h, "video/x-raw, format=NV12, width=320, "
      "height=240, framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=NV12, width=320, "
      "height=240, framerate=30/1");
  in = cf_test_random_frame (&info, 21);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);

  cpu = harness_with_backend ("cpu", &info);
  gst_util_set_object_arg (G_OBJECT (cpu->element), "kernel-preset",
      "gaussian");
  g_object_set (cpu->element, "sigma", 2.0, NULL);
  expect = gst_harness_push_and_pull (cpu, gst_buffer_ref (in));
  cf_test_assert_frames_close (&info, out, expect, 1, "cudaupload pipeline");
  gst_buffer_unref (expect);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (cpu);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_gray_frames_in_cuda_memory_between_two_elements)
{
  GstVideoInfo info;
  GstHarness *h, *cpu;
  GstBuffer *in, *out, *expect;

  /* GRAY8 cannot be a native 1.22 GstCudaMemory: this goes through the
   * proxy layout of our pool */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 101, 67);
  h = gst_harness_new_parse ("cudaconvolve backend=cuda kernel=\"1 2 1\" ! "
      "video/x-raw(memory:CUDAMemory) ! cudaconvolve backend=cuda "
      "kernel=\"1;2;1\"");
  gst_harness_set_src_caps_str (h, "video/x-raw, format=GRAY8, width=101, "
      "height=67, framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=GRAY8, width=101, "
      "height=67, framerate=30/1");
  in = cf_test_random_frame (&info, 31);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);

  cpu = gst_harness_new_parse ("cudaconvolve backend=cpu kernel=\"1 2 1\" ! "
      "cudaconvolve backend=cpu kernel=\"1;2;1\"");
  gst_harness_set_src_caps_str (cpu, "video/x-raw, format=GRAY8, width=101, "
      "height=67, framerate=30/1");
  gst_harness_set_sink_caps_str (cpu, "video/x-raw, format=GRAY8, "
      "width=101, height=67, framerate=30/1");
  expect = gst_harness_push_and_pull (cpu, gst_buffer_ref (in));
  cf_test_assert_frames_close (&info, out, expect, 1, "gray in cuda memory");
  gst_buffer_unref (expect);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (cpu);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_many_frames_keep_results_stable)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *in, *first = NULL;
  int i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 352, 288);
  h = harness_with_backend ("cuda", &info);
  g_object_set (h->element, "kernel", k3_text, NULL);
  in = cf_test_random_frame (&info, 41);
  for (i = 0; i < 300; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    if (first == NULL)
      first = out;
    else {
      cf_test_assert_frames_close (&info, out, first, 0, "repeat");
      gst_buffer_unref (out);
    }
  }
  gst_buffer_unref (first);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Caps negotiated while the element was a passthrough (no kernel yet),
 * then a kernel set while PLAYING: the switch out of passthrough decides
 * an output pool before the frame, so the output is still CUDA memory of
 * our context, with the right values. */
GST_START_TEST (test_kernel_set_after_caps_keeps_cuda_memory)
{
  GstCudaContext *ctx;
  GstVideoInfo info;
  GstHarness *h, *cpu;
  GstBuffer *src, *in, *out, *expect;
  GstMemory *out_mem;

  fail_unless (gst_cuda_load_library ());
  ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  gst_cuda_memory_init_once ();
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);

  h = rgba_cuda_harness (ctx, NULL);

  src = cf_test_random_frame (&info, 12);
  in = cf_test_cuda_buffer_from (ctx, &info, src);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in, "no kernel: not a passthrough");
  gst_buffer_unref (out);

  g_object_set (h->element, "kernel", k3_text, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL && out != in);
  out_mem = gst_buffer_peek_memory (out, 0);
  fail_unless (gst_is_cuda_memory (out_mem));
  fail_unless (GST_CUDA_MEMORY_CAST (out_mem)->context == ctx);

  cpu = harness_with_backend ("cpu", &info);
  g_object_set (cpu->element, "kernel", k3_text, NULL);
  expect = gst_harness_push_and_pull (cpu, gst_buffer_ref (src));
  cf_test_assert_frames_close (&info, out, expect, 1, "kernel set after caps");

  gst_buffer_unref (expect);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (src);
  gst_harness_teardown (cpu);
  gst_harness_teardown (h);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* CUDA memory of another context than the element's: the element switches
 * to that context (cuda-device-id -1 allows any device) instead of copying
 * through the host, and back again when the next frame comes from the
 * first context. The inputs keep NEED_DOWNLOAD (never read on the host) and
 * each output is CUDA memory of the input's context with the CPU's
 * values. */
GST_START_TEST (test_other_context_is_adopted_not_copied)
{
  GstCudaContext *mine, *other, *ctx[3];
  GstVideoInfo info;
  GstHarness *h, *cpu;
  GstBuffer *src, *expect;
  guint i;

  fail_unless (gst_cuda_load_library ());
  mine = gst_cuda_context_new (0);
  other = gst_cuda_context_new (0);
  fail_unless (mine != NULL && other != NULL && mine != other);
  gst_cuda_memory_init_once ();
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);

  h = rgba_cuda_harness (mine, k3_text);

  src = cf_test_random_frame (&info, 13);
  cpu = harness_with_backend ("cpu", &info);
  g_object_set (cpu->element, "kernel", k3_text, NULL);
  expect = gst_harness_push_and_pull (cpu, gst_buffer_ref (src));

  ctx[0] = mine;
  ctx[1] = other;
  ctx[2] = mine;
  for (i = 0; i < G_N_ELEMENTS (ctx); i++) {
    GstBuffer *in = cf_test_cuda_buffer_from (ctx[i], &info, src);
    GstMemory *in_mem = gst_buffer_peek_memory (in, 0);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    GstMemory *out_mem;

    fail_unless (out != NULL, "frame %u", i);
    fail_unless (GST_MEMORY_FLAG_IS_SET (in_mem,
            GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD),
        "frame %u went through the host", i);
    out_mem = gst_buffer_peek_memory (out, 0);
    fail_unless (gst_is_cuda_memory (out_mem));
    fail_unless (GST_CUDA_MEMORY_CAST (out_mem)->context == ctx[i],
        "frame %u: output in another context than its input", i);
    cf_test_assert_frames_close (&info, out, expect, 1, "adopted context");
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }

  gst_buffer_unref (expect);
  gst_buffer_unref (src);
  gst_harness_teardown (cpu);
  gst_harness_teardown (h);
  gst_object_unref (other);
  gst_object_unref (mine);
}

GST_END_TEST;

/* A context given through set_context to an element that never starts is
 * released with the element. */
GST_START_TEST (test_context_set_before_start_is_released)
{
  GstCudaContext *ctx;
  GstContext *gst_ctx;
  GstElement *e;
  gint refs;

  fail_unless (gst_cuda_load_library ());
  ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  refs = GST_OBJECT_REFCOUNT_VALUE (ctx);
  gst_ctx = gst_context_new_cuda_context (ctx);
  e = gst_element_factory_make ("cudaconvolve", NULL);
  fail_unless (e != NULL);
  gst_object_ref_sink (e);
  gst_element_set_context (e, gst_ctx);
  gst_context_unref (gst_ctx);
  fail_unless (GST_OBJECT_REFCOUNT_VALUE (ctx) > refs,
      "the element did not adopt the context");
  gst_object_unref (e);
  fail_unless_equals_int (GST_OBJECT_REFCOUNT_VALUE (ctx), refs);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* The pads advertise sides up to 32768: the GPU computes them (every
 * method that takes the kernel), as the CPU does. Thin frames keep the
 * memory small; 32768x32768 needs 4 GiB per working plane. */
GST_START_TEST (test_largest_advertised_sides_match_cpu)
{
  static const gchar *methods[] = { "direct", "fft", "im2tensor",
    "stencil"
  };
  guint m;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    compare_backends_with ("GRAY8", 32768, 3, k3_text, "reflect", 7 + m,
        methods[m], "auto", 2);
    compare_backends_with ("GRAY8", 3, 32768, k3_text, "wrap", 17 + m,
        methods[m], "auto", 2);
  }
  compare_backends_with ("NV12", 32768, 2, "1 2 1; 2 4 2; 1 2 1", "clamp",
      27, "separable", "auto", 1);
}

GST_END_TEST;

/* The error that pushing one frame with @method and @kernel posts on
 * @backend (NULL when the frame went through). */
static gchar *
push_error (const gchar * backend, const gchar * method, const gchar * kernel)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *text = NULL;
  GstFlowReturn ret;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 33, 17);
  h = harness_with_backend (backend, &info);
  gst_element_set_bus (h->element, bus);
  gst_util_set_object_arg (G_OBJECT (h->element), "method", method);
  g_object_set (h->element, "kernel", kernel, NULL);
  ret = gst_harness_push (h, cf_test_random_frame (&info, 5));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg != NULL) {
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
    gst_message_unref (msg);
  }
  fail_unless ((ret == GST_FLOW_ERROR) == (text != NULL),
      "%s: flow %s, message %s", backend, gst_flow_get_name (ret), text);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return text;
}

/* Both backends refuse method=stencil for a kernel above 7x7, with the
 * same message, and both take 7x7. */
GST_START_TEST (test_stencil_refusal_is_the_same_on_both_backends)
{
  gchar *k9 = cf_test_random_kernel_text (9, 12);
  gchar *k7 = cf_test_random_kernel_text (7, 13);
  gchar *gpu = push_error ("cuda", "stencil", k9);
  gchar *cpu = push_error ("cpu", "stencil", k9);

  fail_unless (gpu != NULL && cpu != NULL);
  fail_unless_equals_string (gpu, cpu);
  fail_unless (strstr (gpu, "up to 7x7") != NULL, "message: %s", gpu);
  g_free (gpu);
  g_free (cpu);
  fail_unless (push_error ("cuda", "stencil", k7) == NULL);
  fail_unless (push_error ("cpu", "stencil", k7) == NULL);
  g_free (k9);
  g_free (k7);
}

GST_END_TEST;

/* Both backends refuse method=separable for a rank-2 kernel, with the
 * same message, and both take a rank-1 one. */
GST_START_TEST (test_separable_refusal_is_the_same_on_both_backends)
{
  gchar *gpu = push_error ("cuda", "separable", k3_text);
  gchar *cpu = push_error ("cpu", "separable", k3_text);

  fail_unless (gpu != NULL && cpu != NULL);
  fail_unless_equals_string (gpu, cpu);
  fail_unless (strstr (gpu, "not separable") != NULL, "message: %s", gpu);
  g_free (gpu);
  g_free (cpu);
  fail_unless (push_error ("cuda", "separable", "1 2 1; 2 4 2; 1 2 1") ==
      NULL);
  fail_unless (push_error ("cpu", "separable", "1 2 1; 2 4 2; 1 2 1") ==
      NULL);
}

GST_END_TEST;

static Suite *
elements_cudaconvolve_gpu_suite (void)
{
  Suite *s = suite_create ("cudaconvolve-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_gpu_matches_cpu_for_every_format_and_border);
  tcase_add_test (tc, test_gpu_matches_cpu_on_tiny_odd_and_hd_sizes);
  tcase_add_test (tc, test_gpu_matches_cpu_with_large_kernels);
  tcase_add_test (tc, test_every_method_and_precision_matches_cpu);
  tcase_add_test (tc, test_cuda_memory_never_touches_the_host);
  tcase_add_test (tc, test_cudaupload_cudadownload_pipeline);
  tcase_add_test (tc, test_gray_frames_in_cuda_memory_between_two_elements);
  tcase_add_test (tc, test_many_frames_keep_results_stable);
  tcase_add_test (tc, test_kernel_set_after_caps_keeps_cuda_memory);
  tcase_add_test (tc, test_other_context_is_adopted_not_copied);
  tcase_add_test (tc, test_context_set_before_start_is_released);
  tcase_add_test (tc, test_separable_refusal_is_the_same_on_both_backends);
  tcase_add_test (tc, test_stencil_refusal_is_the_same_on_both_backends);
  tcase_add_test (tc, test_largest_advertised_sides_match_cpu);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "elements_cudaconvolve_gpu",
      elements_cudaconvolve_gpu_suite);
}
