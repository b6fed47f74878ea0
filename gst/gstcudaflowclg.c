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
 * The defaults are `preset=balanced` (6 levels, 50 sweeps on every level);
 * `fast` (25 sweeps) and `accurate` (100) are the other points of the
 * speed/accuracy front measured in docs/flow-frontier.md; their 6 levels
 * keep far more of large motions than the paper's 4 (on 20-100 px
 * motions, mean EPE about 4 px against 17).
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
#include "gstcfparams.h"

#include "common/clg.h"
#include "cuda/clg.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_flow_clg_debug);
#define GST_CAT_DEFAULT gst_cuda_flow_clg_debug

/* the method's properties and presets: cf_clg_param_table (common/clg.c) */
#define DEFAULT_KERNEL CF_CLG_KERNEL_AUTO

struct _GstCudaFlowClg
{
  GstCfFlowBase parent;

  /* properties, object lock */
  cf_clg_params params;
  cf_clg_kernel kernel;

  /* streaming thread */
  cf_clg_params stream_params;
  gchar *stream_error;          /* why iterations-per-level did not parse */
  cf_clg_kernel stream_kernel;
};

#define gst_cuda_flow_clg_parent_class parent_class
G_DEFINE_TYPE (GstCudaFlowClg, gst_cuda_flow_clg, GST_TYPE_CF_FLOW_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaflowclg, "cudaflowclg",
    GST_RANK_NONE, GST_TYPE_CUDA_FLOW_CLG,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_flow_clg_debug, "cudaflowclg", 0,
        "Combined Local-Global optical flow"));

static void gst_cuda_flow_clg_finalize (GObject * object);
static gboolean gst_cuda_flow_clg_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid);
static gboolean gst_cuda_flow_clg_solve (GstCfFlowBase * base,
    GstCfFlowFrame * frame);

/* enum fields are stored as int (common/params.h), with the values of
 * gst_cf_jacobi_kernel_choices */
G_STATIC_ASSERT (sizeof (cf_clg_kernel) == sizeof (int) &&
    CF_CLG_KERNEL_AUTO == GST_CF_JACOBI_KERNEL_AUTO &&
    CF_CLG_KERNEL_SIMPLE == GST_CF_JACOBI_KERNEL_SIMPLE &&
    CF_CLG_KERNEL_FUSED == GST_CF_JACOBI_KERNEL_FUSED);

/* What only the element has: the GPU implementation (a GstCudaFlowClgKernel) */
static const cf_param element_params[] = {
  GST_CF_KERNEL_ROW ("jacobi-kernel", "Jacobi Kernel",
      "GPU implementation of the Jacobi sweeps (for benchmarks; all "
      "give the same flow)", gst_cf_jacobi_kernel_choices,
      DEFAULT_KERNEL, G_STRUCT_OFFSET (GstCudaFlowClg, kernel)),
  {NULL}
};

static void
gst_cuda_flow_clg_class_init (GstCudaFlowClgClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCfFlowBaseClass *flow_class = GST_CF_FLOW_BASE_CLASS (klass);

  gobject_class->finalize = gst_cuda_flow_clg_finalize;
  gst_cf_flow_base_class_install_params (flow_class, &cf_clg_param_table,
      G_STRUCT_OFFSET (GstCudaFlowClg, params), element_params);

  gst_element_class_set_static_metadata (element_class,
      "CUDA CLG optical flow", "Filter/Analyzer/Video/Hardware",
      "Dense Combined Local-Global optical flow on the GPU (CPU reference "
      "without a GPU): video in, UV_F32LE flow fields out", "gst-cudaflow");

  flow_class->method = GST_CUDA_FLOW_METHOD_CLG;
  GST_CF_BASE_TRANSFORM_CLASS (klass)->debug_category = gst_cuda_flow_clg_debug;
  flow_class->update_settings =
      GST_DEBUG_FUNCPTR (gst_cuda_flow_clg_update_settings);
  flow_class->solve = GST_DEBUG_FUNCPTR (gst_cuda_flow_clg_solve);
}

static void
gst_cuda_flow_clg_init (GstCudaFlowClg * self)
{
  cf_clg_params_init (&self->params);
  self->kernel = DEFAULT_KERNEL;
}

static void
gst_cuda_flow_clg_finalize (GObject * object)
{
  GstCudaFlowClg *self = GST_CUDA_FLOW_CLG (object);

  g_free (self->stream_error);
  G_OBJECT_CLASS (parent_class)->finalize (object);
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
  self->stream_error = gst_cf_flow_base_dup_param_error (base);
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
