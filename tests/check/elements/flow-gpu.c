/* gst-cudaflow — flow elements on the GPU against the CPU backend, and in
 * CUDA memory end to end. Exits 77 without a device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cudaflow/cudaflow.h>

#include "cf-test-util.h"
#include "flow-test-util.h"
#include "common/metrics.h"
#include "common/synth.h"

/* The second flow of the synthetic pair from @element on @backend. */
static cf_flow *
synthetic_flow (const gchar * element, const gchar * backend,
    const gchar * format, int w, int h, const cf_synth_params * sp,
    const gchar * settings, cf_flow ** truth)
{
  cf_image *f0, *f1;
  GstHarness *hh;
  GstBuffer *out;
  cf_flow *flow;

  fail_unless_equals_int (cf_synth_pair (w, h, sp, &f0, &f1, truth), CF_OK);
  hh = flow_harness_new (element, backend, format, w, h);
  flow_test_set_properties (hh->element, settings);
  gst_buffer_unref (gst_harness_push_and_pull (hh,
          flow_test_frame_from_grey (format, f0, 0)));
  out = gst_harness_push_and_pull (hh, flow_test_frame_from_grey (format, f1,
          1));
  fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
  flow = flow_test_buffer_to_flow (out, w, h);
  gst_buffer_unref (out);
  gst_harness_teardown (hh);
  cf_image_free (f0);
  cf_image_free (f1);
  return flow;
}

static void
compare_backends (const gchar * element, const gchar * format, int w, int h,
    const gchar * settings, double tol)
{
  cf_synth_params sp;
  cf_flow *gt0, *gt1, *gpu, *cpu;
  double mean, max;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_SMOOTH;
  gpu = synthetic_flow (element, "cuda", format, w, h, &sp, settings, &gt0);
  cpu = synthetic_flow (element, "cpu", format, w, h, &sp, settings, &gt1);
  fail_unless_equals_int (cf_flow_diff (gpu, cpu, &mean, &max), CF_OK);
  GST_INFO ("%s %s %dx%d [%s]: mean |gpu - cpu| %.2e px, max %.2e", element,
      format, w, h, settings, mean, max);
  fail_unless (mean <= tol, "%s %s %dx%d [%s]: mean |gpu - cpu| = %g px",
      element, format, w, h, settings, mean);
  cf_flow_free (gpu);
  cf_flow_free (cpu);
  cf_flow_free (gt0);
  cf_flow_free (gt1);
}

GST_START_TEST (test_hs_gpu_matches_cpu_in_fp32)
{
  compare_backends ("cudaflowhs", "GRAY8", 96, 72, "", 1e-3);
  compare_backends ("cudaflowhs", "NV12", 161, 97, "preset=romera", 1e-3);
  compare_backends ("cudaflowhs", "BGRx", 64, 48, "warps=3 iterations=50", 1e-3);
  compare_backends ("cudaflowhs", "GRAY16_LE", 640, 480, "levels=5 iterations=200",
      1e-3);
  compare_backends ("cudaflowhs", "I420", 1, 1, "", 1e-3);
  compare_backends ("cudaflowhs", "RGBA", 3, 2, "", 1e-3);
}

GST_END_TEST;

GST_START_TEST (test_hs_fp16_epe_close_to_fp32)
{
  cf_synth_params sp;
  cf_flow_error e32, e16;
  double epe32, epe16;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.angle = 1.5f;
  sp.zoom = 1.01f;
  epe32 = flow_test_synthetic_epe ("cudaflowhs", "cuda", "GRAY8", 320, 240,
      &sp, "precision=fp32", &e32);
  epe16 = flow_test_synthetic_epe ("cudaflowhs", "cuda", "GRAY8", 320, 240,
      &sp, "precision=fp16", &e16);
  GST_INFO ("EPE fp32 %.4f fp16 %.4f", epe32, epe16);
  fail_unless (epe16 < epe32 * 1.05 + 0.01, "fp16 %.4f vs fp32 %.4f", epe16,
      epe32);
}

GST_END_TEST;

/* jacobi-kernel is for benchmarks only: every kernel gives SIMPLE's bits,
 * in fp32 and fp16, at a size no region geometry divides (200 x 150, 37
 * sweeps: not a multiple of any depth). */
GST_START_TEST (test_jacobi_kernels_give_identical_flow)
{
  static const gchar *const kernels[] = { "fused", "fused-db", "auto" };
  static const gchar *const precisions[] = { "fp32", "fp16" };
  cf_synth_params sp;
  int p, k;

  cf_synth_params_init (&sp);
  for (p = 0; p < (int) G_N_ELEMENTS (precisions); p++) {
    gchar *settings = g_strdup_printf ("jacobi-kernel=simple iterations=37 "
        "precision=%s", precisions[p]);
    cf_flow *gt0, *a = synthetic_flow ("cudaflowhs", "cuda", "GRAY8", 200,
        150, &sp, settings, &gt0);

    g_free (settings);
    for (k = 0; k < (int) G_N_ELEMENTS (kernels); k++) {
      cf_flow *gt1, *b;
      double mean, max;

      settings = g_strdup_printf ("jacobi-kernel=%s iterations=37 "
          "precision=%s", kernels[k], precisions[p]);
      b = synthetic_flow ("cudaflowhs", "cuda", "GRAY8", 200, 150, &sp,
          settings, &gt1);
      fail_unless_equals_int (cf_flow_diff (a, b, &mean, &max), CF_OK);
      fail_unless (max == 0.0, "simple vs %s differ by %g", settings, max);
      g_free (settings);
      cf_flow_free (b);
      cf_flow_free (gt1);
    }
    cf_flow_free (a);
    cf_flow_free (gt0);
  }
}

GST_END_TEST;

GST_START_TEST (test_tvl1_gpu_matches_cpu_in_fp32)
{
  compare_backends ("cudaflowtvl1", "GRAY8", 96, 72, "", 1e-3);
  compare_backends ("cudaflowtvl1", "NV12", 161, 97, "preset=romera", 1e-3);
  compare_backends ("cudaflowtvl1", "BGRx", 64, 48,
      "solver-kernel=steps warps=2 iterations=40 epsilon=0", 1e-3);
  compare_backends ("cudaflowtvl1", "GRAY16_LE", 640, 480, "", 1e-3);
  compare_backends ("cudaflowtvl1", "I420", 1, 1, "", 1e-3);
  compare_backends ("cudaflowtvl1", "RGBA", 3, 2, "", 1e-3);
}

GST_END_TEST;

GST_START_TEST (test_clg_gpu_matches_cpu_in_fp32)
{
  compare_backends ("cudaflowclg", "GRAY8", 96, 72, "", 1e-3);
  compare_backends ("cudaflowclg", "NV12", 161, 97, "preset=config-b", 1e-3);
  compare_backends ("cudaflowclg", "BGRx", 64, 48,
      "jacobi-kernel=simple iterations=37 rho=0", 1e-3);
  compare_backends ("cudaflowclg", "GRAY16_LE", 640, 480, "sigma=1", 1e-3);
  compare_backends ("cudaflowclg", "I420", 1, 1, "", 1e-3);
  compare_backends ("cudaflowclg", "RGBA", 3, 2, "", 1e-3);
}

GST_END_TEST;

/* The solver variants are bit-identical in fp32 (tests/check/cuda/ checks
 * the kernels; this checks the elements select them). */
GST_START_TEST (test_tvl1_and_clg_kernels_give_identical_flow)
{
  cf_synth_params sp;
  cf_flow *a, *b, *gt0, *gt1;
  double mean, max;

  cf_synth_params_init (&sp);
  a = synthetic_flow ("cudaflowtvl1", "cuda", "GRAY8", 200, 150, &sp,
      "solver-kernel=steps", &gt0);
  b = synthetic_flow ("cudaflowtvl1", "cuda", "GRAY8", 200, 150, &sp,
      "solver-kernel=fused", &gt1);
  fail_unless_equals_int (cf_flow_diff (a, b, &mean, &max), CF_OK);
  fail_unless (max == 0.0, "TV-L1 steps vs fused differ by %g", max);
  cf_flow_free (a);
  cf_flow_free (b);
  cf_flow_free (gt0);
  cf_flow_free (gt1);

  /* blocked needs a fixed count: the romera preset (epsilon 0) */
  a = synthetic_flow ("cudaflowtvl1", "cuda", "GRAY8", 200, 150, &sp,
      "preset=romera solver-kernel=fused iterations=23", &gt0);
  b = synthetic_flow ("cudaflowtvl1", "cuda", "GRAY8", 200, 150, &sp,
      "preset=romera solver-kernel=blocked iterations=23", &gt1);
  fail_unless_equals_int (cf_flow_diff (a, b, &mean, &max), CF_OK);
  fail_unless (max == 0.0, "TV-L1 fused vs blocked differ by %g", max);
  cf_flow_free (a);
  cf_flow_free (b);
  cf_flow_free (gt0);
  cf_flow_free (gt1);

  a = synthetic_flow ("cudaflowclg", "cuda", "GRAY8", 200, 150, &sp,
      "jacobi-kernel=simple iterations-per-level=37,41,5", &gt0);
  b = synthetic_flow ("cudaflowclg", "cuda", "GRAY8", 200, 150, &sp,
      "jacobi-kernel=fused iterations-per-level=37,41,5", &gt1);
  fail_unless_equals_int (cf_flow_diff (a, b, &mean, &max), CF_OK);
  fail_unless (max == 0.0, "CLG simple vs fused differ by %g", max);
  cf_flow_free (a);
  cf_flow_free (b);
  cf_flow_free (gt0);
  cf_flow_free (gt1);
}

GST_END_TEST;

/* precision=fp16 on the TV-L1 and CLG elements: EPE against ground truth
 * close to fp32's (the budget of the HS test above). */
GST_START_TEST (test_tvl1_and_clg_fp16_epe_close_to_fp32)
{
  static const gchar *runs[][2] = {
    {"cudaflowtvl1", "preset=romera"}, {"cudaflowtvl1", ""},
    {"cudaflowclg", "preset=config-b"}, {"cudaflowclg", ""}
  };
  cf_synth_params sp;
  guint i;

  cf_synth_params_init (&sp);
  sp.motion = CF_SYNTH_ROTATION_ZOOM;
  sp.angle = 1.5f;
  sp.zoom = 1.01f;
  for (i = 0; i < G_N_ELEMENTS (runs); i++) {
    cf_flow_error e32, e16;
    gchar *s32 = g_strdup_printf ("%s precision=fp32", runs[i][1]);
    gchar *s16 = g_strdup_printf ("%s precision=fp16", runs[i][1]);
    double epe32 = flow_test_synthetic_epe (runs[i][0], "cuda", "GRAY8", 320,
        240, &sp, s32, &e32);
    double epe16 = flow_test_synthetic_epe (runs[i][0], "cuda", "GRAY8", 320,
        240, &sp, s16, &e16);

    GST_INFO ("%s [%s]: EPE fp32 %.4f fp16 %.4f", runs[i][0], runs[i][1],
        epe32, epe16);
    fail_unless (epe16 < epe32 * 1.05 + 0.01, "%s [%s]: fp16 %.4f vs fp32 "
        "%.4f", runs[i][0], runs[i][1], epe16, epe32);
    g_free (s32);
    g_free (s16);
  }
}

GST_END_TEST;

/* TV-L1's step-by-step kernels are fp32 only: a clear error. */
GST_START_TEST (test_tvl1_fp16_steps_is_refused_clearly)
{
  GstHarness *h = flow_harness_new ("cudaflowtvl1", "cuda", "GRAY8", 32, 24);
  gchar *text;

  flow_test_set_properties (h->element, "precision=fp16 solver-kernel=steps");
  text = flow_test_pair_error (h, 32, 24);
  fail_unless (strstr (text, "fp16") != NULL && strstr (text, "steps") !=
      NULL, "%s", text);
  g_free (text);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A sequence with post-messages, use-previous-flow and QoS on both
 * backends: what the flow engines do per frame beyond the solve (late
 * frames' pyramids, warm starts, the TV-L1 count read from the device,
 * the field read back for the motion statistics). */
#define SEQ_W 80
#define SEQ_H 60
#define SEQ_FRAMES 8
/* two solves chained by the warm start: twice the one-pair bar (1e-3) */
#define SEQ_FLOW_TOL 2e-3

typedef struct
{
  cf_flow *flow[SEQ_FRAMES];    /* NULL: dropped (QoS) */
  gboolean valid[SEQ_FRAMES];
  gint64 iterations[SEQ_FRAMES];
  gdouble mean[SEQ_FRAMES];
} seq_run;

static GstClockTime
seq_pts (int k)
{
  return gst_util_uint64_scale_int (k, GST_SECOND, 30);
}

static void
run_sequence (const gchar * element, const gchar * backend,
    const gchar * settings, seq_run * r)
{
  GstHarness *h = flow_harness_new (element, backend, "GRAY8", SEQ_W, SEQ_H);
  GstBus *bus = gst_bus_new ();
  cf_image *frame = cf_image_new (SEQ_W, SEQ_H);
  cf_synth_params sp;
  int k;

  cf_synth_params_init (&sp);
  gst_element_set_bus (h->element, bus);
  flow_test_set_properties (h->element, "post-messages=true "
      "use-previous-flow=true qos=true");
  flow_test_set_properties (h->element, settings);
  for (k = 0; k < SEQ_FRAMES; k++) {
    GstBuffer *out;
    GstMessage *msg;

    /* frames 3 to 5 are late: earliest = frame 5's PTS; then frame 4's */
    if (k == 3)
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.5,
                  (GstClockTimeDiff) (seq_pts (5) - seq_pts (2)),
                  seq_pts (2))));
    if (k == 6)
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_qos (GST_QOS_TYPE_OVERFLOW, 1.0,
                  -(GstClockTimeDiff) (seq_pts (5) - seq_pts (4)),
                  seq_pts (5))));
    /* the texture moved by k (tx, ty) */
    fail_unless_equals_int (cf_synth_texture (&sp, -k * sp.tx, -k * sp.ty,
            frame), CF_OK);
    fail_unless_equals_int (gst_harness_push (h,
            flow_test_frame_from_grey ("GRAY8", frame, k)), GST_FLOW_OK);
    out = gst_harness_try_pull (h);
    r->flow[k] = NULL;
    if (out == NULL)
      continue;
    r->flow[k] = flow_test_buffer_to_flow (out, SEQ_W, SEQ_H);
    gst_buffer_unref (out);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
    fail_unless (msg != NULL);
    fail_unless (gst_structure_get (gst_message_get_structure (msg),
            "valid", G_TYPE_BOOLEAN, &r->valid[k],
            "iterations", G_TYPE_INT64, &r->iterations[k],
            "mean-motion", G_TYPE_DOUBLE, &r->mean[k], NULL));
    gst_message_unref (msg);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  cf_image_free (frame);
}

GST_START_TEST (test_stats_qos_and_warm_start_on_gpu_match_cpu)
{
  static const gchar *const cases[][2] = {
    {"cudaflowhs", "iterations=30 warps=2"},
    {"cudaflowclg", "iterations-per-level=20,30 levels=3"},
    /* ε = 0: a count the GPU must read back from the device, and one
     * that cannot flip between backends */
    {"cudaflowtvl1", "iterations=40 warps=2 epsilon=0"},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    seq_run gpu, cpu;
    int k, outputs = 0;

    run_sequence (cases[c][0], "cuda", cases[c][1], &gpu);
    run_sequence (cases[c][0], "cpu", cases[c][1], &cpu);
    for (k = 0; k < SEQ_FRAMES; k++) {
      double mean, max;

      fail_unless ((gpu.flow[k] == NULL) == (cpu.flow[k] == NULL),
          "%s frame %d: dropped on one backend only", cases[c][0], k);
      fail_unless ((gpu.flow[k] == NULL) == (k >= 3 && k <= 5),
          "%s frame %d: QoS", cases[c][0], k);
      if (gpu.flow[k] == NULL)
        continue;
      outputs++;
      fail_unless_equals_int (gpu.valid[k], k > 0);
      fail_unless_equals_int (cpu.valid[k], k > 0);
      fail_unless_equals_int (cf_flow_diff (gpu.flow[k], cpu.flow[k], &mean,
              &max), CF_OK);
      GST_INFO ("%s frame %d: mean |gpu - cpu| %.2e px, iterations %"
          G_GINT64_FORMAT " / %" G_GINT64_FORMAT ", mean motion %.4f / "
          "%.4f", cases[c][0], k, mean, gpu.iterations[k],
          cpu.iterations[k], gpu.mean[k], cpu.mean[k]);
      fail_unless (mean <= SEQ_FLOW_TOL, "%s frame %d: mean |gpu - cpu| %g",
          cases[c][0], k, mean);
      /* the statistics of nearly the same field */
      fail_unless (fabs (gpu.mean[k] - cpu.mean[k]) <= SEQ_FLOW_TOL,
          "%s frame %d: mean motion %g vs %g", cases[c][0], k, gpu.mean[k],
          cpu.mean[k]);
      if (k == 0)
        continue;
      fail_unless (gpu.iterations[k] == cpu.iterations[k] &&
          gpu.iterations[k] > 0, "%s frame %d: %" G_GINT64_FORMAT
          " iterations on the GPU, %" G_GINT64_FORMAT " on the CPU",
          cases[c][0], k, gpu.iterations[k], cpu.iterations[k]);
    }
    fail_unless_equals_int (outputs, SEQ_FRAMES - 3);
    for (k = 0; k < SEQ_FRAMES; k++) {
      cf_flow_free (gpu.flow[k]);
      cf_flow_free (cpu.flow[k]);
    }
  }
}

GST_END_TEST;

/* The caps on @element's source pad carry memory:CUDAMemory. */
static gboolean
src_in_cuda_memory (GstHarness * h, const gchar * factory)
{
  GstIterator *it = gst_bin_iterate_elements (GST_BIN (h->element));
  GValue item = G_VALUE_INIT;
  gboolean cuda = FALSE, found = FALSE;

  while (!found && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);
    if (g_strcmp0 (GST_OBJECT_NAME (gst_element_get_factory (e)),
            factory) == 0) {
      GstPad *pad = gst_element_get_static_pad (e, "src");
      GstCaps *caps = gst_pad_get_current_caps (pad);
      cuda = gst_caps_features_contains (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
      found = TRUE;
      gst_caps_unref (caps);
      gst_object_unref (pad);
    }
    g_value_unset (&item);
  }
  gst_iterator_free (it);
  fail_unless (found, "no %s in the harness", factory);
  return cuda;
}

/* Two flowviz pictures of one flow from the GPU and the CPU: the flows
 * agree to 1e-3 px, so colours may move a level or two, on few bytes. */
static void
assert_pictures_close (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gsize i, differ = 0;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless_equals_int (ma.size, mb.size);
  for (i = 0; i < ma.size; i++)
    if (ABS ((int) ma.data[i] - (int) mb.data[i]) > 2)
      differ++;
  fail_unless (differ < ma.size / 1000, "%" G_GSIZE_FORMAT " bytes differ",
      differ);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
}

/* Frame 1 of the synthetic pair (NV12, 128 x 96) through @gpu_chain, fed
 * by cudaupload asked for CUDA memory and ending in cudadownload, and
 * through @cpu_chain, both to RGBA: fails unless @estimator and flowviz
 * keep their output in CUDA memory up to cudadownload (which lists system
 * memory first when its downstream wants it) and the pictures agree. */
static void
assert_gpu_chain_matches_cpu (const gchar * gpu_chain,
    const gchar * cpu_chain, const gchar * estimator)
{
  GstElementFactory *up = gst_element_factory_find ("cudaupload");
  cf_synth_params sp;
  cf_image *f0, *f1;
  cf_flow *gt;
  GstHarness *gpu, *cpu;
  GstBuffer *a, *b;
  gchar *desc;

  if (up == NULL)
    return;
  gst_object_unref (up);
  cf_synth_params_init (&sp);
  fail_unless_equals_int (cf_synth_pair (128, 96, &sp, &f0, &f1, &gt), CF_OK);
  /* cudaupload passes system memory through unless asked for CUDA memory */
  desc = g_strdup_printf ("cudaupload ! video/x-raw(memory:CUDAMemory) ! "
      "%s ! cudadownload", gpu_chain);
  gpu = gst_harness_new_parse (desc);
  g_free (desc);
  cpu = gst_harness_new_parse (cpu_chain);
  gst_harness_set_src_caps_str (gpu, "video/x-raw, format=NV12, width=128, "
      "height=96, framerate=30/1");
  gst_harness_set_sink_caps_str (gpu, "video/x-raw, format=RGBA");
  gst_harness_set_src_caps_str (cpu, "video/x-raw, format=NV12, width=128, "
      "height=96, framerate=30/1");
  gst_harness_set_sink_caps_str (cpu, "video/x-raw, format=RGBA");

  gst_buffer_unref (gst_harness_push_and_pull (gpu,
          flow_test_frame_from_grey ("NV12", f0, 0)));
  gst_buffer_unref (gst_harness_push_and_pull (cpu,
          flow_test_frame_from_grey ("NV12", f0, 0)));
  a = gst_harness_push_and_pull (gpu, flow_test_frame_from_grey ("NV12", f1,
          1));
  b = gst_harness_push_and_pull (cpu, flow_test_frame_from_grey ("NV12", f1,
          1));
  fail_unless (src_in_cuda_memory (gpu, estimator), "%s left CUDA memory",
      estimator);
  fail_unless (src_in_cuda_memory (gpu, "flowviz"), "flowviz's output left "
      "CUDA memory before cudadownload");
  assert_pictures_close (a, b);

  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_harness_teardown (gpu);
  gst_harness_teardown (cpu);
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (gt);
}

/* Frames into flow and colour with everything in CUDA memory. */
GST_START_TEST (test_cuda_memory_chain_matches_cpu_chain)
{
  assert_gpu_chain_matches_cpu ("cudaflowhs backend=cuda ! flowviz "
      "backend=cuda max-flow=3", "cudaflowhs backend=cpu ! flowviz "
      "backend=cpu max-flow=3", "cudaflowhs");
}

GST_END_TEST;

/* TRUE while nobody has mapped @buf's CUDA memory on the host: the device
 * copy is newer than the (never filled) staging copy. */
static gboolean
never_host_mapped (GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);

  return gst_buffer_n_memory (buf) == 1 && gst_is_cuda_memory (mem) &&
      GST_MEMORY_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD);
}

/* output=meta in CUDA memory: the frame and its field stay on the GPU
 * until the application reads the field, which then equals, bit for bit,
 * what output=flow sends; in system memory the field is in system memory
 * and equal too. */
GST_START_TEST (test_meta_stays_in_cuda_memory)
{
  GstElementFactory *up = gst_element_factory_find ("cudaupload");
  const gchar *memories[] = { "cuda", "system" };
  cf_synth_params sp;
  cf_image *f0, *f1;
  cf_flow *gt;
  guint m;

  if (up == NULL)
    return;
  gst_object_unref (up);
  cf_synth_params_init (&sp);
  fail_unless_equals_int (cf_synth_pair (160, 96, &sp, &f0, &f1, &gt), CF_OK);

  for (m = 0; m < G_N_ELEMENTS (memories); m++) {
    gboolean cuda = m == 0;
    const gchar *head = cuda ? "cudaupload ! " : "";
    gchar *desc_meta = g_strdup_printf ("%scudaflowtvl1 backend=cuda "
        "preset=romera output=meta", head);
    gchar *desc_flow = g_strdup_printf ("%scudaflowtvl1 backend=cuda "
        "preset=romera", head);
    GstHarness *hm = gst_harness_new_parse (desc_meta);
    GstHarness *hf = gst_harness_new_parse (desc_flow);
    GstBuffer *video, *flow;
    GstCudaFlowMeta *meta;
    GstCudaFlowFrame a, b;
    gint y;

    gst_harness_set_src_caps_str (hm, "video/x-raw, format=NV12, "
        "width=160, height=96, framerate=30/1");
    gst_harness_set_src_caps_str (hf, "video/x-raw, format=NV12, "
        "width=160, height=96, framerate=30/1");
    gst_harness_set_sink_caps_str (hm, cuda ?
        "video/x-raw(memory:CUDAMemory)" : "video/x-raw");
    gst_harness_set_sink_caps_str (hf, cuda ?
        "video/x-optical-flow(memory:CUDAMemory)" : "video/x-optical-flow");

    gst_buffer_unref (gst_harness_push_and_pull (hm,
            flow_test_frame_from_grey ("NV12", f0, 0)));
    gst_buffer_unref (gst_harness_push_and_pull (hf,
            flow_test_frame_from_grey ("NV12", f0, 0)));
    video = gst_harness_push_and_pull (hm, flow_test_frame_from_grey ("NV12",
            f1, 1));
    flow = gst_harness_push_and_pull (hf, flow_test_frame_from_grey ("NV12",
            f1, 1));

    meta = gst_buffer_get_cuda_flow_meta (video);
    fail_unless (meta != NULL && meta->valid);
    if (cuda) {
      fail_unless (never_host_mapped (video), "the frame was mapped on the "
          "host");
      fail_unless (never_host_mapped (meta->flow), "the field was mapped on "
          "the host");
      fail_unless (never_host_mapped (flow));
      fail_unless (meta->stride >= 160 * 8);
    } else {
      fail_if (gst_is_cuda_memory (gst_buffer_peek_memory (meta->flow, 0)));
      fail_unless_equals_int (meta->stride, 160 * 8);
    }

    /* what the application reads: a download for CUDA memory */
    fail_unless (gst_cuda_flow_meta_map (meta, &a));
    fail_unless (gst_cuda_flow_frame_map (&b, flow, 160, 96, 0));
    for (y = 0; y < 96; y++)
      fail_unless (memcmp (a.data + (gsize) y * a.stride,
              b.data + (gsize) y * b.stride, 160 * 8) == 0,
          "%s memory: row %d differs from output=flow", memories[m], y);
    gst_cuda_flow_frame_unmap (&a);
    gst_cuda_flow_frame_unmap (&b);
    if (cuda)
      fail_if (never_host_mapped (meta->flow), "the map did not download");

    gst_buffer_unref (video);
    gst_buffer_unref (flow);
    gst_harness_teardown (hm);
    gst_harness_teardown (hf);
    g_free (desc_meta);
    g_free (desc_flow);
  }
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (gt);
}

GST_END_TEST;


/* The overlay of output=meta: video and flow stay in CUDA memory up to
 * cudadownload, and the overlay drawn on the GPU matches the CPU's. */
GST_START_TEST (test_overlay_stays_in_cuda_memory_to_download)
{
  assert_gpu_chain_matches_cpu ("cudaflowtvl1 backend=cuda preset=romera "
      "output=meta ! flowviz backend=cuda mode=overlay max-flow=3",
      "cudaflowtvl1 backend=cpu preset=romera output=meta ! flowviz "
      "backend=cpu mode=overlay max-flow=3", "cudaflowtvl1");
}

GST_END_TEST;

GST_START_TEST (test_flow_in_cuda_memory_saves_to_flo)
{
  GstHarness *h = gst_harness_new_parse ("cudaflowhs backend=cuda "
      "preset=romera ! video/x-optical-flow(memory:CUDAMemory) ! "
      "floenc write-gaps=true");
  GstBuffer *out;
  int i;

  gst_harness_set_src_caps_str (h, "video/x-raw, format=GRAY8, width=33, "
      "height=17, framerate=30/1");
  for (i = 0; i < 2; i++) {
    out = gst_harness_push_and_pull (h, flow_test_random_frame ("GRAY8", 33,
            17, 3 + i, i));
    fail_unless_equals_int (gst_buffer_get_size (out), 12 + 33 * 17 * 8);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_many_frames_and_size_changes_on_gpu)
{
  GstHarness *h = flow_harness_new ("cudaflowhs", "cuda", "GRAY8", 320, 240);
  int i;

  gst_util_set_object_arg (G_OBJECT (h->element), "preset", "romera");
  for (i = 0; i < 200; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h,
        flow_test_random_frame ("GRAY8", 320, 240, i + 1, i));
    fail_unless (out != NULL);
    gst_buffer_unref (out);
  }
  gst_harness_set_src_caps_str (h, "video/x-raw, format=GRAY8, width=1921, "
      "height=1081, framerate=30/1");
  for (i = 0; i < 3; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h,
        flow_test_random_frame ("GRAY8", 1921, 1081, i + 7, 200 + i));
    fail_unless_equals_int (gst_buffer_get_size (out), 1921 * 1081 * 8);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
elements_flow_gpu_suite (void)
{
  Suite *s = suite_create ("flow-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_hs_gpu_matches_cpu_in_fp32);
  tcase_add_test (tc, test_hs_fp16_epe_close_to_fp32);
  tcase_add_test (tc, test_jacobi_kernels_give_identical_flow);
  tcase_add_test (tc, test_tvl1_gpu_matches_cpu_in_fp32);
  tcase_add_test (tc, test_clg_gpu_matches_cpu_in_fp32);
  tcase_add_test (tc, test_tvl1_and_clg_kernels_give_identical_flow);
  tcase_add_test (tc, test_tvl1_and_clg_fp16_epe_close_to_fp32);
  tcase_add_test (tc, test_tvl1_fp16_steps_is_refused_clearly);
  tcase_add_test (tc, test_stats_qos_and_warm_start_on_gpu_match_cpu);
  tcase_add_test (tc, test_cuda_memory_chain_matches_cpu_chain);
  tcase_add_test (tc, test_meta_stays_in_cuda_memory);
  tcase_add_test (tc, test_overlay_stays_in_cuda_memory_to_download);
  tcase_add_test (tc, test_flow_in_cuda_memory_saves_to_flo);
  tcase_add_test (tc, test_many_frames_and_size_changes_on_gpu);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "elements_flow_gpu",
      elements_flow_gpu_suite);
}
