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
 * The defaults are `preset=balanced` (6 levels, 1 warp, 50 iterations,
 * alpha 15); `fast` (6 × 1 × 20) and `accurate` (5 × 1 × 200, as accurate
 * on Middlebury as cuda-samples' 5 × 3 × 500 in a seventh of its time) are
 * the other points of the speed/accuracy front measured in
 * docs/flow-frontier.md. 5 levels × 500 iterations gives the lowest mean
 * Middlebury EPE we measured (0.58 with the CPU reference;
 * docs/flow-accuracy.md).
 *
 * Intensities are 0..255: `alpha` = 51 is NVIDIA's cuda-samples
 * HSOpticalFlow alpha 0.2 on [0, 1]. `preset=cuda-samples` sets that
 * sample's parameters (5 levels, 3 warps, 500 iterations); `preset=romera`
 * a time-budget configuration (3 levels, 1 warp, 10 iterations; Romera et
 * al.); `preset=realtime` is an alias of `fast`.
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
#include "gstcfparams.h"

#include "common/hs.h"
#include "cuda/hs.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_flow_hs_debug);
#define GST_CAT_DEFAULT gst_cuda_flow_hs_debug

/* the method's properties and presets: cf_hs_param_table (common/hs.c) */
#define DEFAULT_KERNEL CF_HS_KERNEL_AUTO

struct _GstCudaFlowHs
{
  GstCfFlowBase parent;

  /* properties, object lock */
  cf_hs_params params;
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

static gboolean gst_cuda_flow_hs_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid);
static gboolean gst_cuda_flow_hs_solve (GstCfFlowBase * base,
    GstCfFlowFrame * frame);

/* enum fields are stored as int (common/params.h), with the values of
 * gst_cf_jacobi_kernel_choices and HS's own fused-db */
G_STATIC_ASSERT (sizeof (cf_hs_kernel) == sizeof (int) &&
    CF_HS_KERNEL_AUTO == GST_CF_JACOBI_KERNEL_AUTO &&
    CF_HS_KERNEL_SIMPLE == GST_CF_JACOBI_KERNEL_SIMPLE &&
    CF_HS_KERNEL_FUSED == GST_CF_JACOBI_KERNEL_FUSED);

static const cf_param_choice hs_kernel_choices[] = {
  {CF_HS_KERNEL_AUTO, "auto", "Fastest measured"},
  {CF_HS_KERNEL_SIMPLE, "simple", "One Jacobi sweep per kernel launch"},
  {CF_HS_KERNEL_FUSED, "fused", "8 sweeps per launch on 64 x 64 or "
        "32 x 32 shared-memory regions, two barriers per sweep (identical "
        "results)"},
  {CF_HS_KERNEL_FUSED_DB, "fused-db", "Several sweeps per launch on "
        "double-buffered shared-memory regions sized per pyramid level, "
        "one barrier per sweep (identical results)"},
  {0, NULL, NULL}
};

/* What only the element has: the GPU implementation (a GstCudaFlowHsKernel) */
static const cf_param element_params[] = {
  GST_CF_KERNEL_ROW ("jacobi-kernel", "Jacobi Kernel",
      "GPU implementation of the Jacobi iterations (for benchmarks; "
      "all give the same flow)", hs_kernel_choices,
      DEFAULT_KERNEL, G_STRUCT_OFFSET (GstCudaFlowHs, kernel)),
  {NULL}
};

static void
gst_cuda_flow_hs_class_init (GstCudaFlowHsClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCfFlowBaseClass *flow_class = GST_CF_FLOW_BASE_CLASS (klass);

  gst_cf_flow_base_class_install_params (flow_class, &cf_hs_param_table,
      G_STRUCT_OFFSET (GstCudaFlowHs, params), element_params);

  gst_element_class_set_static_metadata (element_class,
      "CUDA Horn-Schunck optical flow", "Filter/Analyzer/Video/Hardware",
      "Dense Horn-Schunck optical flow on the GPU (CPU reference without "
      "a GPU): video in, UV_F32LE flow fields out", "gst-cudaflow");

  flow_class->method = GST_CUDA_FLOW_METHOD_HORN_SCHUNCK;
  GST_CF_BASE_TRANSFORM_CLASS (klass)->debug_category = gst_cuda_flow_hs_debug;
  flow_class->update_settings =
      GST_DEBUG_FUNCPTR (gst_cuda_flow_hs_update_settings);
  flow_class->solve = GST_DEBUG_FUNCPTR (gst_cuda_flow_hs_solve);
}

static void
gst_cuda_flow_hs_init (GstCudaFlowHs * self)
{
  cf_hs_params_init (&self->params);
  self->kernel = DEFAULT_KERNEL;
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
