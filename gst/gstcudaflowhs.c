/* gst-cudaflow — cudaflowhs: dense Horn–Schunck optical flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudaflowhs
 * @title: cudaflowhs
 *
 * Dense Horn–Schunck optical flow (Horn and Schunck 1981, in the GPU
 * formulation of Romera's thesis, §4.3): derivatives averaged
 * over the 2x2x2 cube of the two frames, Jacobi iterations with the 1/6 and
 * 1/12 neighbour average, an incremental coarse-to-fine pyramid with
 * bicubic warping. Emits `video/x-optical-flow, format=UV_F32LE` (see
 * flowviz to look at it, floenc to save it).
 *
 * The defaults (5 levels, 1 warp, 500 iterations, alpha 15) are the most
 * accurate we measured on the Middlebury training pairs (mean EPE 0.58 with
 * the CPU reference; docs/flow-accuracy.md).
 *
 * Intensities are 0..255: `alpha` = 51 is NVIDIA's cuda-samples
 * HSOpticalFlow alpha 0.2 on [0, 1]. `preset=cuda-samples` sets that
 * sample's parameters (5 levels, 3 warps, 500 iterations); `preset=realtime`
 * a time-budget configuration (3 levels, 1 warp, 10 iterations).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=30 ! cudaflowhs ! flowviz ! videoconvert ! pngenc ! multifilesink location=hs_%05d.png
 * ]| Colour-coded flow of a moving ball (GPU when present, else CPU).
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudaflowhs preset=cuda-samples ! flowviz ! cudadownload ! autovideosink
 * ]| Decoded frames stay in CUDA memory from the decoder to flowviz.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaflowhs.h"
#include "gstcudaflowelements.h"

#include "common/hs.h"
#include "cuda/hs.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_flow_hs_debug);
#define GST_CAT_DEFAULT gst_cuda_flow_hs_debug

#define DEFAULT_LEVELS 5
#define DEFAULT_ALPHA 15.0
#define DEFAULT_WARPS 1
#define DEFAULT_ITERATIONS 500
#define DEFAULT_PRESET GST_CUDA_FLOW_HS_PRESET_NONE
#define DEFAULT_KERNEL CF_HS_KERNEL_AUTO

enum
{
  PROP_0,
  PROP_ALPHA,
  PROP_WARPS,
  PROP_ITERATIONS,
  PROP_PRESET,
  PROP_KERNEL
};

typedef enum
{
  GST_CUDA_FLOW_HS_PRESET_NONE = 0,
  GST_CUDA_FLOW_HS_PRESET_CUDA_SAMPLES,
  GST_CUDA_FLOW_HS_PRESET_REALTIME
} GstCudaFlowHsPreset;

struct _GstCudaFlowHs
{
  GstCfFlowBase parent;

  /* properties, object lock */
  cf_hs_params params;
  GstCudaFlowHsPreset preset;
  cf_hs_kernel kernel;

  /* streaming thread */
  cf_hs_params stream_params;
  cf_hs_kernel stream_kernel;
};

#define gst_cuda_flow_hs_parent_class parent_class
G_DEFINE_TYPE (GstCudaFlowHs, gst_cuda_flow_hs, GST_TYPE_CF_FLOW_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaflowhs, "cudaflowhs",
    GST_RANK_NONE, GST_TYPE_CUDA_FLOW_HS,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_flow_hs_debug, "cudaflowhs", 0,
        "Horn-Schunck optical flow"));

static void gst_cuda_flow_hs_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_flow_hs_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_flow_hs_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid);
static gboolean gst_cuda_flow_hs_solve (GstCfFlowBase * base,
    GstCfFlowFrame * frame);

#define GST_TYPE_CUDA_FLOW_HS_PRESET (gst_cuda_flow_hs_preset_get_type ())
static GType
gst_cuda_flow_hs_preset_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_FLOW_HS_PRESET_NONE, "Use the individual properties", "none"},
    {GST_CUDA_FLOW_HS_PRESET_CUDA_SAMPLES, "NVIDIA cuda-samples "
          "HSOpticalFlow: 5 levels, 3 warps, 500 iterations, alpha 51 "
          "(0.2 on [0,1])", "cuda-samples"},
    {GST_CUDA_FLOW_HS_PRESET_REALTIME, "Time-budget configuration: "
          "3 levels, 1 warp, 10 iterations", "realtime"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaFlowHsPreset",
            values));
  return (GType) type;
}

#define GST_TYPE_CUDA_FLOW_HS_KERNEL (gst_cuda_flow_hs_kernel_get_type ())
static GType
gst_cuda_flow_hs_kernel_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_HS_KERNEL_AUTO, "Fastest measured", "auto"},
    {CF_HS_KERNEL_SIMPLE, "One Jacobi sweep per kernel launch", "simple"},
    {CF_HS_KERNEL_FUSED, "Several sweeps per launch on shared-memory tiles "
          "(identical results)", "fused"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaFlowHsKernel",
            values));
  return (GType) type;
}

static void
gst_cuda_flow_hs_class_init (GstCudaFlowHsClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCfFlowBaseClass *flow_class = GST_CF_FLOW_BASE_CLASS (klass);
  const GParamFlags rw_playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags controllable = rw_playing | GST_PARAM_CONTROLLABLE;

  gobject_class->set_property = gst_cuda_flow_hs_set_property;
  gobject_class->get_property = gst_cuda_flow_hs_get_property;

  gst_cf_flow_base_install_properties (gobject_class, DEFAULT_LEVELS);
  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha",
          "Smoothness weight alpha (intensities 0..255; alpha^2 weighs the "
          "flow gradient against the brightness constancy term)",
          CF_HS_ALPHA_MIN, CF_HS_ALPHA_MAX, DEFAULT_ALPHA, controllable));
  g_object_class_install_property (gobject_class, PROP_WARPS,
      g_param_spec_int ("warps", "Warps",
          "Warps per pyramid level: each re-warps frame t by the current flow "
          "and solves for an increment", 1, CF_HS_WARPS_MAX, DEFAULT_WARPS,
          controllable));
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      g_param_spec_int ("iterations", "Iterations",
          "Jacobi iterations per warp and level", 0, CF_HS_ITERATIONS_MAX,
          DEFAULT_ITERATIONS, controllable));
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset",
          "Set levels, warps, iterations and alpha at once; properties set "
          "explicitly keep their values, before or after the preset (see "
          "overridden-properties)", GST_TYPE_CUDA_FLOW_HS_PRESET,
          DEFAULT_PRESET, rw_playing));
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_enum ("jacobi-kernel", "Jacobi Kernel",
          "GPU implementation of the Jacobi iterations (for benchmarks; all "
          "give the same flow)", GST_TYPE_CUDA_FLOW_HS_KERNEL, DEFAULT_KERNEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "CUDA Horn-Schunck optical flow", "Filter/Analyzer/Video/Hardware",
      "Dense Horn-Schunck optical flow on the GPU (CPU reference without "
      "a GPU): video in, UV_F32LE flow fields out", "gst-cudaflow");

  flow_class->method = GST_CUDA_FLOW_METHOD_HORN_SCHUNCK;
  GST_CF_BASE_TRANSFORM_CLASS (klass)->debug_category = gst_cuda_flow_hs_debug;
  flow_class->update_settings =
      GST_DEBUG_FUNCPTR (gst_cuda_flow_hs_update_settings);
  flow_class->solve = GST_DEBUG_FUNCPTR (gst_cuda_flow_hs_solve);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FLOW_HS_PRESET, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FLOW_HS_KERNEL, 0);
}

static void
gst_cuda_flow_hs_init (GstCudaFlowHs * self)
{
  self->params.alpha = DEFAULT_ALPHA;
  self->params.warps = DEFAULT_WARPS;
  self->params.iterations = DEFAULT_ITERATIONS;
  self->preset = DEFAULT_PRESET;
  self->kernel = DEFAULT_KERNEL;
}

/* A preset is a shortcut: it writes the properties it stands for, except
 * those set explicitly (gst_cf_flow_base_apply_preset). */
static void
apply_preset (GstCudaFlowHs * self, GstCudaFlowHsPreset preset)
{
  GstCfFlowBase *base = GST_CF_FLOW_BASE (self);

  switch (preset) {
    case GST_CUDA_FLOW_HS_PRESET_CUDA_SAMPLES:
      gst_cf_flow_base_apply_preset (base, "levels", 5, "warps", 3,
          "iterations", 500, "alpha", 0.2 * 255.0, NULL);
      break;
    case GST_CUDA_FLOW_HS_PRESET_REALTIME:
      gst_cf_flow_base_apply_preset (base, "levels", 3, "warps", 1,
          "iterations", 10, NULL);
      break;
    case GST_CUDA_FLOW_HS_PRESET_NONE:
      gst_cf_flow_base_clear_preset (base);
      break;
  }
}

static void
gst_cuda_flow_hs_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFlowHs *self = GST_CUDA_FLOW_HS (object);

  gst_cf_flow_base_note_property_set (GST_CF_FLOW_BASE (self), pspec);
  if (gst_cf_flow_base_set_common_property (object, prop_id, value))
    return;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ALPHA:
      self->params.alpha = (float) g_value_get_double (value);
      break;
    case PROP_WARPS:
      self->params.warps = g_value_get_int (value);
      break;
    case PROP_ITERATIONS:
      self->params.iterations = g_value_get_int (value);
      break;
    case PROP_PRESET:
      self->preset = g_value_get_enum (value);
      break;
    case PROP_KERNEL:
      self->kernel = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);

  if (prop_id == PROP_PRESET)
    apply_preset (self, g_value_get_enum (value));
}

static void
gst_cuda_flow_hs_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFlowHs *self = GST_CUDA_FLOW_HS (object);

  if (gst_cf_flow_base_get_common_property (object, prop_id, value))
    return;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ALPHA:
      g_value_set_double (value, self->params.alpha);
      break;
    case PROP_WARPS:
      g_value_set_int (value, self->params.warps);
      break;
    case PROP_ITERATIONS:
      g_value_set_int (value, self->params.iterations);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, self->preset);
      break;
    case PROP_KERNEL:
      g_value_set_enum (value, self->kernel);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Object lock held: copies only. HS works on the raw frames (no
 * presmoothing), like cuda-samples; a new Jacobi kernel needs a new plan. */
static gboolean
gst_cuda_flow_hs_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid)
{
  GstCudaFlowHs *self = GST_CUDA_FLOW_HS (base);
  gboolean rebuild = self->kernel != self->stream_kernel;

  pyramid->presmooth_sigma = 0.0f;
  self->stream_params = self->params;
  self->stream_kernel = self->kernel;
  return rebuild;
}

/* The same solver description for either engine; the iteration count
 * is fixed (levels × warps × iterations) and the engine reports it. */
static gboolean
gst_cuda_flow_hs_solve (GstCfFlowBase * base, GstCfFlowFrame * frame)
{
  GstCudaFlowHs *self = GST_CUDA_FLOW_HS (base);
  cf_flow_solver solver = {.method = CF_FLOW_METHOD_HS };

  solver.params.hs = self->stream_params;
  solver.kernel = self->stream_kernel;
  solver.precision = frame->precision;
  return gst_cf_flow_frame_solve (frame, GST_ELEMENT (self), &solver,
      "Horn-Schunck");
}
