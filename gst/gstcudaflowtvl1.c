/* gst-cudaflow — cudaflowtvl1: dense TV-L1 optical flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudaflowtvl1
 * @title: cudaflowtvl1
 *
 * Dense TV-L1 optical flow: the dual scheme of Zach, Pock and Bischof as
 * implemented by IPOL `tvl1flow` (Sánchez, Meinhardt-Llopis, Facciolo
 * 2013) and accelerated on the GPU: per iteration a thresholding
 * step, the primal update u = v + θ div p and the dual update of p, on a
 * coarse-to-fine pyramid with bicubic warping. Emits
 * `video/x-optical-flow, format=UV_F32LE`.
 *
 * The defaults are IPOL's (τ 0.25, λ 0.15, θ 0.3, 5 levels at scale 0.5,
 * 5 warps, up to 300 iterations per warp stopped at ε 0.01, Gaussian
 * presmoothing σ 0.8), which give IPOL's accuracy on the Middlebury pairs
 * (mean EPE 0.375; docs/flow-accuracy.md). `preset=realtime` is a
 * time-budget configuration (3 levels, 1 warp, 10 iterations).
 *
 * Like IPOL, each pair of frames is normalised so that its joint intensity
 * range maps to 0..255 (`normalize`); the element does it by scaling λ by
 * 255 / (max − min), which is the same thing for this model and keeps each
 * frame's pyramid reusable for the next pair.
 *
 * `precision=fp16` keeps the GPU solver's state in half2 (each warp's
 * flow increment and the dual variables; pyramids, warping and the output
 * stay fp32): faster than fp32, most in the realtime preset (measured in
 * docs/flow-speed.md), with the same Middlebury accuracy to 0.001 px
 * (docs/flow-accuracy.md). It has the fused and blocked kernels, not
 * `solver-kernel=steps`: both backends refuse that pair with the same
 * message. The CPU backend computes in fp32 whatever is set.
 *
 * With `post-messages=true` the message's `iterations` is what ran, summed
 * over levels and warps: below levels × warps × iterations when ε stops
 * warps early (on the GPU the count the device kept, read once the solve
 * is done).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=30 ! cudaflowtvl1 ! flowviz ! videoconvert ! pngenc ! multifilesink location=tvl1_%05d.png
 * ]| Colour-coded flow of a moving ball (GPU when present, else CPU).
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudaflowtvl1 preset=realtime ! flowviz ! cudadownload ! autovideosink
 * ]| Decoded frames stay in CUDA memory from the decoder to flowviz.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaflowtvl1.h"
#include "gstcudaflowelements.h"

#include "common/tvl1.h"
#include "cuda/tvl1.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_flow_tvl1_debug);
#define GST_CAT_DEFAULT gst_cuda_flow_tvl1_debug

#define DEFAULT_LEVELS 5
#define DEFAULT_TAU 0.25
#define DEFAULT_LAMBDA 0.15
#define DEFAULT_THETA 0.3
#define DEFAULT_WARPS 5
#define DEFAULT_ITERATIONS 300
#define DEFAULT_EPSILON 0.01
#define DEFAULT_SIGMA 0.8
#define DEFAULT_NORMALIZE TRUE
#define DEFAULT_PRESET GST_CUDA_FLOW_TVL1_PRESET_NONE
#define DEFAULT_KERNEL CF_TVL1_KERNEL_AUTO

enum
{
  PROP_0,
  PROP_TAU,
  PROP_LAMBDA,
  PROP_THETA,
  PROP_WARPS,
  PROP_ITERATIONS,
  PROP_EPSILON,
  PROP_SIGMA,
  PROP_NORMALIZE,
  PROP_PRESET,
  PROP_KERNEL
};

typedef enum
{
  GST_CUDA_FLOW_TVL1_PRESET_NONE = 0,
  GST_CUDA_FLOW_TVL1_PRESET_IPOL,
  GST_CUDA_FLOW_TVL1_PRESET_REALTIME
} GstCudaFlowTvl1Preset;

struct _GstCudaFlowTvl1
{
  GstCfFlowBase parent;

  /* properties, object lock */
  cf_tvl1_params params;
  gboolean normalize;
  GstCudaFlowTvl1Preset preset;
  cf_tvl1_kernel kernel;

  /* streaming thread */
  cf_tvl1_params stream_params;
  gboolean stream_normalize;
  cf_tvl1_kernel stream_kernel;
};

#define gst_cuda_flow_tvl1_parent_class parent_class
G_DEFINE_TYPE (GstCudaFlowTvl1, gst_cuda_flow_tvl1, GST_TYPE_CF_FLOW_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaflowtvl1, "cudaflowtvl1",
    GST_RANK_NONE, GST_TYPE_CUDA_FLOW_TVL1,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_flow_tvl1_debug, "cudaflowtvl1", 0,
        "TV-L1 optical flow"));

static void gst_cuda_flow_tvl1_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_flow_tvl1_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_flow_tvl1_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid);
static gboolean gst_cuda_flow_tvl1_solve (GstCfFlowBase * base,
    GstCfFlowFrame * frame);

#define GST_TYPE_CUDA_FLOW_TVL1_PRESET (gst_cuda_flow_tvl1_preset_get_type ())
static GType
gst_cuda_flow_tvl1_preset_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_FLOW_TVL1_PRESET_NONE, "Use the individual properties", "none"},
    {GST_CUDA_FLOW_TVL1_PRESET_IPOL, "IPOL tvl1flow defaults: 5 levels, "
          "5 warps, up to 300 iterations, epsilon 0.01 (the element's "
          "defaults)", "ipol"},
    {GST_CUDA_FLOW_TVL1_PRESET_REALTIME, "Time-budget configuration: "
          "3 levels, 1 warp, 10 iterations, epsilon 0", "realtime"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaFlowTvl1Preset", values));
  return (GType) type;
}

#define GST_TYPE_CUDA_FLOW_TVL1_KERNEL (gst_cuda_flow_tvl1_kernel_get_type ())
static GType
gst_cuda_flow_tvl1_kernel_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_TVL1_KERNEL_AUTO, "Fastest measured (blocked with a fixed "
          "iteration count, else fused)", "auto"},
    {CF_TVL1_KERNEL_STEPS, "One kernel per step of an iteration (fp32 "
          "only)", "steps"},
    {CF_TVL1_KERNEL_FUSED, "Two fused stencil kernels per iteration "
          "(identical results)", "fused"},
    {CF_TVL1_KERNEL_BLOCKED, "Several iterations per launch in shared "
          "memory (identical results; epsilon > 0 runs fused)", "blocked"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaFlowTvl1Kernel", values));
  return (GType) type;
}

static void
gst_cuda_flow_tvl1_class_init (GstCudaFlowTvl1Class * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCfFlowBaseClass *flow_class = GST_CF_FLOW_BASE_CLASS (klass);
  const GParamFlags rw_playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags controllable = rw_playing | GST_PARAM_CONTROLLABLE;

  gobject_class->set_property = gst_cuda_flow_tvl1_set_property;
  gobject_class->get_property = gst_cuda_flow_tvl1_get_property;

  gst_cf_flow_base_install_properties (gobject_class, DEFAULT_LEVELS);
  g_object_class_install_property (gobject_class, PROP_TAU,
      g_param_spec_double ("tau", "Tau",
          "Time step tau of the dual update (stable up to 0.25)",
          CF_TVL1_TAU_MIN, CF_TVL1_TAU_MAX, DEFAULT_TAU, controllable));
  g_object_class_install_property (gobject_class, PROP_LAMBDA,
      g_param_spec_double ("lambda", "Lambda",
          "Weight of the data term (intensities normalised to 0..255, see "
          "normalize); smaller = smoother flow", CF_TVL1_LAMBDA_MIN,
          CF_TVL1_LAMBDA_MAX, DEFAULT_LAMBDA, controllable));
  g_object_class_install_property (gobject_class, PROP_THETA,
      g_param_spec_double ("theta", "Theta",
          "Coupling between the flow u and its auxiliary v (|u - v|^2 / "
          "2 theta)", CF_TVL1_THETA_MIN, CF_TVL1_THETA_MAX, DEFAULT_THETA,
          controllable));
  g_object_class_install_property (gobject_class, PROP_WARPS,
      g_param_spec_int ("warps", "Warps",
          "Warps per pyramid level: each re-warps frame t by the current flow",
          1, CF_TVL1_WARPS_MAX, DEFAULT_WARPS, controllable));
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      g_param_spec_int ("iterations", "Iterations",
          "Iterations per warp: the count when epsilon is 0, else the most",
          1, CF_TVL1_ITERATIONS_MAX, DEFAULT_ITERATIONS, controllable));
  g_object_class_install_property (gobject_class, PROP_EPSILON,
      g_param_spec_double ("epsilon", "Epsilon",
          "Stop a warp's iterations when the mean squared update of the flow "
          "falls below epsilon^2 (pixels); 0 = always run iterations", 0.0,
          CF_TVL1_EPSILON_MAX, DEFAULT_EPSILON, controllable));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Gaussian presmoothing of both frames before the pyramid, pixels "
          "(0 = none)", 0.0, CF_TVL1_SIGMA_MAX, DEFAULT_SIGMA, controllable));
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize",
          "Stretch each pair's joint intensity range to 0..255 (as IPOL), so "
          "lambda means the same for dark and bright video", DEFAULT_NORMALIZE,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset",
          "Set levels, warps, iterations and epsilon at once; properties set "
          "explicitly keep their values, before or after the preset (see "
          "overridden-properties)", GST_TYPE_CUDA_FLOW_TVL1_PRESET,
          DEFAULT_PRESET, rw_playing));
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_enum ("solver-kernel", "Solver Kernel",
          "GPU implementation of the iterations (for benchmarks; all give "
          "the same flow at one precision)", GST_TYPE_CUDA_FLOW_TVL1_KERNEL,
          DEFAULT_KERNEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "CUDA TV-L1 optical flow", "Filter/Analyzer/Video/Hardware",
      "Dense TV-L1 optical flow on the GPU, IPOL's scheme (CPU reference "
      "without a GPU): video in, UV_F32LE flow fields out", "gst-cudaflow");

  flow_class->method = GST_CUDA_FLOW_METHOD_TV_L1;
  GST_CF_BASE_TRANSFORM_CLASS (klass)->debug_category = gst_cuda_flow_tvl1_debug;
  flow_class->update_settings =
      GST_DEBUG_FUNCPTR (gst_cuda_flow_tvl1_update_settings);
  flow_class->solve = GST_DEBUG_FUNCPTR (gst_cuda_flow_tvl1_solve);
  flow_class->needs_frame_range = TRUE;

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FLOW_TVL1_PRESET, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FLOW_TVL1_KERNEL, 0);
}

static void
gst_cuda_flow_tvl1_init (GstCudaFlowTvl1 * self)
{
  cf_tvl1_params_init (&self->params);
  /* the property defaults above are IPOL's, as cf_tvl1_params_init */
  self->normalize = DEFAULT_NORMALIZE;
  self->preset = DEFAULT_PRESET;
  self->kernel = DEFAULT_KERNEL;
}

/* A preset is a shortcut: it writes the properties it stands for, except
 * those set explicitly (gst_cf_flow_base_apply_preset). */
static void
apply_preset (GstCudaFlowTvl1 * self, GstCudaFlowTvl1Preset preset)
{
  GstCfFlowBase *base = GST_CF_FLOW_BASE (self);

  switch (preset) {
    case GST_CUDA_FLOW_TVL1_PRESET_IPOL:
      gst_cf_flow_base_apply_preset (base, "levels", DEFAULT_LEVELS,
          "scale-factor", 0.5, "warps", DEFAULT_WARPS, "iterations",
          DEFAULT_ITERATIONS, "epsilon", DEFAULT_EPSILON, "tau", DEFAULT_TAU,
          "lambda", DEFAULT_LAMBDA, "theta", DEFAULT_THETA, NULL);
      break;
    case GST_CUDA_FLOW_TVL1_PRESET_REALTIME:
      gst_cf_flow_base_apply_preset (base, "levels", 3, "warps", 1,
          "iterations", 10, "epsilon", 0.0, NULL);
      break;
    case GST_CUDA_FLOW_TVL1_PRESET_NONE:
      gst_cf_flow_base_clear_preset (base);
      break;
  }
}

static void
gst_cuda_flow_tvl1_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFlowTvl1 *self = GST_CUDA_FLOW_TVL1 (object);

  gst_cf_flow_base_note_property_set (GST_CF_FLOW_BASE (self), pspec);
  if (gst_cf_flow_base_set_common_property (object, prop_id, value))
    return;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TAU:
      self->params.tau = (float) g_value_get_double (value);
      break;
    case PROP_LAMBDA:
      self->params.lambda = (float) g_value_get_double (value);
      break;
    case PROP_THETA:
      self->params.theta = (float) g_value_get_double (value);
      break;
    case PROP_WARPS:
      self->params.warps = g_value_get_int (value);
      break;
    case PROP_ITERATIONS:
      self->params.max_iterations = g_value_get_int (value);
      break;
    case PROP_EPSILON:
      self->params.epsilon = (float) g_value_get_double (value);
      break;
    case PROP_SIGMA:
      self->params.presmooth_sigma = (float) g_value_get_double (value);
      break;
    case PROP_NORMALIZE:
      self->normalize = g_value_get_boolean (value);
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
gst_cuda_flow_tvl1_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFlowTvl1 *self = GST_CUDA_FLOW_TVL1 (object);

  if (gst_cf_flow_base_get_common_property (object, prop_id, value))
    return;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TAU:
      g_value_set_double (value, self->params.tau);
      break;
    case PROP_LAMBDA:
      g_value_set_double (value, self->params.lambda);
      break;
    case PROP_THETA:
      g_value_set_double (value, self->params.theta);
      break;
    case PROP_WARPS:
      g_value_set_int (value, self->params.warps);
      break;
    case PROP_ITERATIONS:
      g_value_set_int (value, self->params.max_iterations);
      break;
    case PROP_EPSILON:
      g_value_set_double (value, self->params.epsilon);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, self->params.presmooth_sigma);
      break;
    case PROP_NORMALIZE:
      g_value_set_boolean (value, self->normalize);
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

/* Object lock held: copies only. A new solver kernel needs a new plan. */
static gboolean
gst_cuda_flow_tvl1_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid)
{
  GstCudaFlowTvl1 *self = GST_CUDA_FLOW_TVL1 (base);
  gboolean rebuild = self->kernel != self->stream_kernel;

  cf_tvl1_prepare_pyramid_params (&self->params, pyramid);
  self->stream_params = self->params;
  self->stream_normalize = self->normalize;
  self->stream_kernel = self->kernel;
  return rebuild;
}

/* The parameters for this pair: with normalize, λ scaled so that the raw
 * frames behave as IPOL's frames stretched to 0..255 (the data term and the
 * thresholds scale with the intensities; every other step is linear). A
 * nearly flat pair could push λ past the solvers' range: it stops at
 * CF_TVL1_LAMBDA_MAX, where the data term dominates anyway. */
static cf_tvl1_params
pair_params (GstCudaFlowTvl1 * self, const GstCfFlowFrame * frame)
{
  cf_tvl1_params p = self->stream_params;

  if (self->stream_normalize) {
    gfloat lo = frame->range_min, hi = frame->range_max;
    if (hi > lo)
      p.lambda = MIN (p.lambda * (255.0f / (hi - lo)),
          (float) CF_TVL1_LAMBDA_MAX);
  }
  return p;
}

/* The same solver description for either engine, after the check both
 * refuse alike, with one message: what the GPU cannot run. The engine
 * counts the iterations ε lets run (on the GPU only when the frame asks,
 * since reading the device's count waits for the solve). */
static gboolean
gst_cuda_flow_tvl1_solve (GstCfFlowBase * base, GstCfFlowFrame * frame)
{
  GstCudaFlowTvl1 *self = GST_CUDA_FLOW_TVL1 (base);
  cf_flow_solver solver = {.method = CF_FLOW_METHOD_TVL1 };

  if (cf_cuda_tvl1_config_check (frame->precision,
          self->stream_kernel) != CF_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("solver-kernel=steps has no precision=fp16 variant; use "
            "solver-kernel=fused, blocked or auto, or precision=fp32"),
        (NULL));
    return FALSE;
  }
  solver.params.tvl1 = pair_params (self, frame);
  solver.kernel = self->stream_kernel;
  solver.precision = frame->precision;
  return gst_cf_flow_frame_solve (frame, GST_ELEMENT (self), &solver,
      "TV-L1");
}
