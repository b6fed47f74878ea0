/* gst-cudaflow — cudaflowclg: dense Combined Local-Global optical flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudaflowclg
 * @title: cudaflowclg
 *
 * Dense Combined Local-Global optical flow (Bruhn, Weickert, Schnörr; the
 * linear spatial variant as accelerated by Seznec et al., JRTIP 2022): the
 * structure tensor J_ρ = K_ρ ∗ (∇₃f ∇₃fᵀ) joins the local (Lucas–Kanade)
 * and global (Horn–Schunck) data terms, solved by pointwise-coupled Jacobi
 * sweeps on a coarse-to-fine pyramid, one bicubic warp per level solving for
 * an increment. Emits `video/x-optical-flow, format=UV_F32LE`.
 *
 * Intensities are 0..255: `alpha` = 50 here is about 7.7e-4 on [0, 1]; the
 * paper's 5e-3 on [0, 1] is 325 (too smooth for the paper's own iteration
 * budgets; docs/flow-accuracy.md). `iterations-per-level` takes the
 * paper's per-level lists, finest level first ("60,120,180,240" is its
 * configuration B); when empty, `iterations` applies to every level.
 *
 * `precision=fp16` keeps the GPU's Jacobi increments in half2 (half
 * neighbour sums) while the coefficients, pyramids, warps and the output
 * flow stay fp32; the CPU backend always computes in fp32.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=30 ! cudaflowclg ! flowviz ! videoconvert ! pngenc ! multifilesink location=clg_%05d.png
 * ]| Colour-coded flow of a moving ball (GPU when present, else CPU).
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! cudaflowclg preset=config-b ! flowviz mode=arrows ! videoconvert ! autovideosink
 * ]| The paper's configuration B (4 levels, 60/120/180/240 sweeps).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaflowclg.h"
#include "gstcudaflowelements.h"

#include "common/clg.h"
#include "cuda/clg.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_flow_clg_debug);
#define GST_CAT_DEFAULT gst_cuda_flow_clg_debug

#define DEFAULT_LEVELS 4
#define DEFAULT_ALPHA 50.0
#define DEFAULT_RHO 2.5
#define DEFAULT_SIGMA 0.0
#define DEFAULT_ITERATIONS 200
#define DEFAULT_PRESET GST_CUDA_FLOW_CLG_PRESET_NONE
#define DEFAULT_KERNEL CF_CLG_KERNEL_AUTO

enum
{
  PROP_0,
  PROP_ALPHA,
  PROP_RHO,
  PROP_SIGMA,
  PROP_ITERATIONS,
  PROP_ITERATIONS_PER_LEVEL,
  PROP_PRESET,
  PROP_KERNEL
};

typedef enum
{
  GST_CUDA_FLOW_CLG_PRESET_NONE = 0,
  GST_CUDA_FLOW_CLG_PRESET_CONFIG_A,
  GST_CUDA_FLOW_CLG_PRESET_CONFIG_B
} GstCudaFlowClgPreset;

struct _GstCudaFlowClg
{
  GstCfFlowBase parent;

  /* properties, object lock */
  cf_clg_params params;
  gchar *iterations_per_level;  /* as set; NULL or "" = uniform */
  gchar *iterations_error;      /* why it did not parse, or NULL */
  GstCudaFlowClgPreset preset;
  cf_clg_kernel kernel;

  /* streaming thread */
  cf_clg_params stream_params;
  gchar *stream_error;
  cf_clg_kernel stream_kernel;
};

#define gst_cuda_flow_clg_parent_class parent_class
G_DEFINE_TYPE (GstCudaFlowClg, gst_cuda_flow_clg, GST_TYPE_CF_FLOW_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaflowclg, "cudaflowclg",
    GST_RANK_NONE, GST_TYPE_CUDA_FLOW_CLG,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_flow_clg_debug, "cudaflowclg", 0,
        "Combined Local-Global optical flow"));

static void gst_cuda_flow_clg_finalize (GObject * object);
static void gst_cuda_flow_clg_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_flow_clg_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_flow_clg_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid);
static gboolean gst_cuda_flow_clg_solve (GstCfFlowBase * base,
    GstCfFlowFrame * frame);

#define GST_TYPE_CUDA_FLOW_CLG_PRESET (gst_cuda_flow_clg_preset_get_type ())
static GType
gst_cuda_flow_clg_preset_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_FLOW_CLG_PRESET_NONE, "Use the individual properties", "none"},
    {GST_CUDA_FLOW_CLG_PRESET_CONFIG_A, "Seznec et al.'s configuration A: "
          "4 levels, 75 sweeps on every level", "config-a"},
    {GST_CUDA_FLOW_CLG_PRESET_CONFIG_B, "Seznec et al.'s configuration B: "
          "4 levels, 60,120,180,240 sweeps (finest first)", "config-b"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaFlowClgPreset", values));
  return (GType) type;
}

#define GST_TYPE_CUDA_FLOW_CLG_KERNEL (gst_cuda_flow_clg_kernel_get_type ())
static GType
gst_cuda_flow_clg_kernel_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_CLG_KERNEL_AUTO, "Fastest measured", "auto"},
    {CF_CLG_KERNEL_SIMPLE, "One Jacobi sweep per kernel launch", "simple"},
    {CF_CLG_KERNEL_FUSED, "Several sweeps per launch on shared-memory tiles "
          "(identical results)", "fused"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaFlowClgKernel", values));
  return (GType) type;
}

static void
gst_cuda_flow_clg_class_init (GstCudaFlowClgClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCfFlowBaseClass *flow_class = GST_CF_FLOW_BASE_CLASS (klass);
  const GParamFlags rw_playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags controllable = rw_playing | GST_PARAM_CONTROLLABLE;

  gobject_class->finalize = gst_cuda_flow_clg_finalize;
  gobject_class->set_property = gst_cuda_flow_clg_set_property;
  gobject_class->get_property = gst_cuda_flow_clg_get_property;

  gst_cf_flow_base_install_properties (gobject_class, DEFAULT_LEVELS);
  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha",
          "Smoothness weight (intensities 0..255: 255^2 times the value for "
          "[0, 1] intensities, so the paper's 5e-3 is 325)", CF_CLG_ALPHA_MIN,
          CF_CLG_ALPHA_MAX, DEFAULT_ALPHA, controllable));
  g_object_class_install_property (gobject_class, PROP_RHO,
      g_param_spec_double ("rho", "Rho",
          "Standard deviation of the Gaussian that integrates the structure "
          "tensor, pixels of each level (0 = Horn-Schunck data term)", 0.0,
          CF_CLG_RHO_MAX, DEFAULT_RHO, controllable));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Gaussian presmoothing of both frames before the pyramid, pixels "
          "(0 = none)", 0.0, CF_CLG_SIGMA_MAX, DEFAULT_SIGMA, controllable));
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      g_param_spec_int ("iterations", "Iterations",
          "Jacobi sweeps on every level (when iterations-per-level is empty)",
          0, CF_CLG_MAX_ITERATIONS, DEFAULT_ITERATIONS, controllable));
  g_object_class_install_property (gobject_class, PROP_ITERATIONS_PER_LEVEL,
      g_param_spec_string ("iterations-per-level", "Iterations Per Level",
          "Jacobi sweeps per level, finest first, comma-separated, e.g. "
          "\"60,120,180,240\"; levels past the list reuse its last entry; "
          "empty = iterations on every level", NULL, rw_playing));
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset",
          "Set levels and sweeps at once; properties set explicitly keep "
          "their values, before or after the preset (see "
          "overridden-properties)", GST_TYPE_CUDA_FLOW_CLG_PRESET,
          DEFAULT_PRESET,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_enum ("jacobi-kernel", "Jacobi Kernel",
          "GPU implementation of the Jacobi sweeps (for benchmarks; all give "
          "the same flow)", GST_TYPE_CUDA_FLOW_CLG_KERNEL, DEFAULT_KERNEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "CUDA CLG optical flow", "Filter/Analyzer/Video/Hardware",
      "Dense Combined Local-Global optical flow on the GPU (CPU reference "
      "without a GPU): video in, UV_F32LE flow fields out", "gst-cudaflow");

  flow_class->method = GST_CUDA_FLOW_METHOD_CLG;
  GST_CF_BASE_TRANSFORM_CLASS (klass)->debug_category = gst_cuda_flow_clg_debug;
  flow_class->update_settings =
      GST_DEBUG_FUNCPTR (gst_cuda_flow_clg_update_settings);
  flow_class->solve = GST_DEBUG_FUNCPTR (gst_cuda_flow_clg_solve);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FLOW_CLG_PRESET, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FLOW_CLG_KERNEL, 0);
}

static void
gst_cuda_flow_clg_init (GstCudaFlowClg * self)
{
  cf_clg_params_init (&self->params);
  self->preset = DEFAULT_PRESET;
  self->kernel = DEFAULT_KERNEL;
}

static void
gst_cuda_flow_clg_finalize (GObject * object)
{
  GstCudaFlowClg *self = GST_CUDA_FLOW_CLG (object);

  g_free (self->iterations_per_level);
  g_free (self->iterations_error);
  g_free (self->stream_error);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* A preset is a shortcut: it writes the properties it stands for, except
 * those set explicitly (gst_cf_flow_base_apply_preset). */
static void
apply_preset (GstCudaFlowClg * self, GstCudaFlowClgPreset preset)
{
  GstCfFlowBase *base = GST_CF_FLOW_BASE (self);

  switch (preset) {
    case GST_CUDA_FLOW_CLG_PRESET_CONFIG_A:
      gst_cf_flow_base_apply_preset (base, "levels", 4, "iterations", 75,
          "iterations-per-level", NULL, NULL);
      break;
    case GST_CUDA_FLOW_CLG_PRESET_CONFIG_B:
      gst_cf_flow_base_apply_preset (base, "levels", 4,
          "iterations-per-level", "60,120,180,240", NULL);
      break;
    case GST_CUDA_FLOW_CLG_PRESET_NONE:
      gst_cf_flow_base_clear_preset (base);
      break;
  }
}

/* Parse the per-level list into params (object lock held); a bad list
 * is kept with its error, reported when the next frame is processed. */
static void
set_iterations_per_level (GstCudaFlowClg * self, const gchar * text)
{
  cf_error err = { {0} };

  g_free (self->iterations_per_level);
  g_clear_pointer (&self->iterations_error, g_free);
  self->iterations_per_level = g_strdup (text);
  if (text == NULL || *g_strstrip (self->iterations_per_level) == '\0') {
    self->params.n_iterations_per_level = 0;
    return;
  }
  if (cf_clg_parse_iterations_per_level (&self->params,
          self->iterations_per_level, &err) != CF_OK) {
    self->iterations_error = g_strdup_printf ("iterations-per-level \"%s\": "
        "%s", text, err.message);
    GST_WARNING_OBJECT (self, "%s", self->iterations_error);
  }
}

static void
gst_cuda_flow_clg_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFlowClg *self = GST_CUDA_FLOW_CLG (object);

  gst_cf_flow_base_note_property_set (GST_CF_FLOW_BASE (self), pspec);
  if (gst_cf_flow_base_set_common_property (object, prop_id, value))
    return;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ALPHA:
      self->params.alpha = (float) g_value_get_double (value);
      break;
    case PROP_RHO:
      self->params.rho = (float) g_value_get_double (value);
      break;
    case PROP_SIGMA:
      self->params.presmooth_sigma = (float) g_value_get_double (value);
      break;
    case PROP_ITERATIONS:
      self->params.iterations = g_value_get_int (value);
      break;
    case PROP_ITERATIONS_PER_LEVEL:
      set_iterations_per_level (self, g_value_get_string (value));
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
gst_cuda_flow_clg_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFlowClg *self = GST_CUDA_FLOW_CLG (object);

  if (gst_cf_flow_base_get_common_property (object, prop_id, value))
    return;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ALPHA:
      g_value_set_double (value, self->params.alpha);
      break;
    case PROP_RHO:
      g_value_set_double (value, self->params.rho);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, self->params.presmooth_sigma);
      break;
    case PROP_ITERATIONS:
      g_value_set_int (value, self->params.iterations);
      break;
    case PROP_ITERATIONS_PER_LEVEL:
      g_value_set_string (value, self->iterations_per_level);
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

/* Object lock held: copies only (a bad iterations-per-level is reported
 * before the solve, without the lock). A new Jacobi kernel needs a new
 * plan. */
static gboolean
gst_cuda_flow_clg_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid)
{
  GstCudaFlowClg *self = GST_CUDA_FLOW_CLG (base);
  gboolean rebuild = self->kernel != self->stream_kernel;

  cf_clg_prepare_pyramid_params (&self->params, pyramid);
  self->stream_params = self->params;
  g_free (self->stream_error);
  self->stream_error = g_strdup (self->iterations_error);
  self->stream_kernel = self->kernel;
  return rebuild;
}

/* The same solver description for either engine, after the one check
 * both refuse alike: a per-level list that did not parse. The sweep
 * counts are fixed and the engine reports their sum over the levels. */
static gboolean
gst_cuda_flow_clg_solve (GstCfFlowBase * base, GstCfFlowFrame * frame)
{
  GstCudaFlowClg *self = GST_CUDA_FLOW_CLG (base);
  cf_flow_solver solver = {.method = CF_FLOW_METHOD_CLG };

  if (self->stream_error) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Invalid %s",
            self->stream_error), (NULL));
    return FALSE;
  }
  solver.params.clg = self->stream_params;
  solver.kernel = self->stream_kernel;
  solver.precision = frame->precision;
  return gst_cf_flow_frame_solve (frame, GST_ELEMENT (self), &solver, "CLG");
}
