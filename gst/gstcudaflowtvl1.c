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
 * Presets name what users choose, each a point of the speed/accuracy
 * front measured in docs/flow-frontier.md that also finds motions of
 * 20-100 px: `fast`, `balanced` (the defaults: IPOL's model — τ 0.25,
 * λ 0.15, scale 0.5 — with the coupling θ 0.4 instead of 0.3, presmoothed
 * with σ 0.65, on 6 levels: one warp of 30 iterations on the finest, then
 * a 5 × 5 median of its flow, two of 20 on the others, ε 0) and
 * `accurate` (6 levels, 3 warps, 20 iterations, the weighted median).
 * `preset=ipol` reproduces IPOL's schedule (5 levels, 5 warps, up to 300
 * iterations stopped at ε 0.01) and accuracy (mean Middlebury EPE 0.375;
 * docs/flow-accuracy.md);
 * `preset=romera` the 3 levels, 1 warp, 10 iterations of TV-L1 on
 * embedded GPUs (Romera et al.); `preset=realtime` is an alias of `fast`
 * (it set romera's schedule before `fast` existed). Each preset sets the
 * whole schedule.
 *
 * `warps-per-level` and `iterations-per-level` give each pyramid level its
 * own schedule, finest level first (e.g. `warps-per-level=1,2,4
 * iterations-per-level=20,50,100`): coarse levels are cheap, so they can
 * take many warps and iterations while the costly finest level takes few.
 * Levels past a list reuse its last entry; an empty list means `warps` or
 * `iterations` on every level. With ε > 0 a level's entry is its cap. A
 * list that does not parse is reported as an error at the next frame.
 * `fast` and `balanced` (so the defaults) set the lists (`balanced` its
 * `median-size-per-level` too); the other presets clear them, unless they
 * were set explicitly. Setting `warps`
 * or `iterations` explicitly asks for that count on every level: it
 * clears the matching list, and presets leave that list empty (so
 * `cudaflowtvl1 warps=3` runs 3 warps everywhere); a list set after it
 * applies again. `lambda` and `median-size` do the same with their
 * lists.
 *
 * Like IPOL, each pair of frames is normalised so that its joint intensity
 * range maps to 0..255 (`normalize`); the element does it by scaling λ by
 * 255 / (max − min), which is the same thing for this model and keeps each
 * frame's pyramid reusable for the next pair.
 *
 * `precision=fp16` keeps the GPU solver's state in half2 (each warp's
 * flow increment and the dual variables; pyramids, warping and the output
 * stay fp32): faster than fp32, most in the romera preset (measured in
 * docs/flow-speed.md), with the same Middlebury accuracy to 0.001 px
 * (docs/flow-accuracy.md). It has the fused and blocked kernels, not
 * `solver-kernel=steps`: both backends refuse that pair with the same
 * message. The CPU backend computes in fp32 whatever is set.
 *
 * `median-size=5` (or 3) median-filters the flow after every warp, the
 * step Wedel, Pock, Zach, Bischof and Cremers add to the scheme ("An
 * improved algorithm for TV-L1 optical flow", Statistical and Geometrical
 * Approaches to Visual Motion Analysis, LNCS 5604, Springer 2009) and
 * that Sun, Roth and Black found the most effective of the classic
 * practices ("Secrets of optical flow estimation and their principles",
 * CVPR 2010, with a 5 × 5 window): outliers between warps go, motion
 * edges stay. Each component is filtered on its own over the window
 * clipped to the image (no padding; an even count takes the mean of its
 * two middle values); the GPU and the CPU backends give the same bits for
 * the same flow. Off by default and in every preset but `accurate`; it
 * may change while playing.
 *
 * `weighted-median-size=9` (or 3, 5, 7) puts the weighted median of Sun,
 * Roth and Black's non-local term in its place on the pyramid levels at
 * least `weighted-median-min-width` pixels wide (150): each neighbour
 * counts by its brightness likeness in the level's first frame
 * (`weighted-median-sigma`, 14 of 255), so that motion edges follow image
 * edges instead of being rounded off. Coarser levels keep `median-size`,
 * because there the filter puts steps into smooth large motions. It
 * takes the window's checkerboard cells (41 of 9 × 9: the whole window's
 * accuracy for half the work) and finds the median by bisection on their
 * values (common/median.h defines it to the bit); both backends give the
 * same bits. Off by default and in every preset but `accurate`, which
 * takes the 5 × 5 window.
 *
 * `lambda-per-level` gives each pyramid level its own λ, finest first,
 * like the schedule lists: `lambda-per-level=0.25,0.25,0.15` fits the two
 * finest levels closer to the data and keeps IPOL's λ on the coarse
 * ones, where a larger λ loses large motions in blurred, noisy frames.
 * It suits sharp, clean video: with 6 levels × 5 warps × 20 iterations,
 * `sigma=0.7` and `weighted-median-size=9` the mean Middlebury EPE is
 * 0.310 on the CPU reference (IPOL 0.375), but frames with noise or a
 * change of illumination come out less accurate than with λ 0.15
 * everywhere (docs/flow-frontier.md). Every preset clears it but
 * `accurate`, which takes `0.2,0.2,0.15` together with the brightness
 * model below, which makes up for it on such frames.
 *
 * `brightness-model=true` is for frames whose light changes between them
 * (exposure, a lamp, fog): after each warp's constants it fits the
 * second frame, sampled along the flow, as gain × first frame + bias over
 * the pixels whose match lies at least 3 px inside the frame (the gain
 * from the ratio of the two standard deviations, the bias from the
 * means), leaving out those whose residual under the previous warp's fit
 * exceeds twice its root-mean-square residual, so occlusions weigh less,
 * and compares the frames through that fit. When the whole frame's fit is
 * within 2 % of gain 1 and 2 grey levels of bias 0 the light counts as
 * unchanged and nothing changes, so frames of constant light keep IPOL's
 * data term bit for bit. A global gain and bias is what a change of
 * exposure does; local changes (shadows, vignetting) fit it less well.
 * Both backends have it; on the GPU each fit is one launch, about 11 µs
 * per warp at 1080p on an H200 (docs/flow-frontier.md gives what it
 * costs and gains per preset). Off by default and in every preset but
 * `accurate`; `fast` and `balanced` gain on every set we check with it,
 * for 18 % and 11 % more time (H100, 1080p, fp16; `balanced` as it was,
 * 2 warps × 20 iterations on every level).
 *
 * `gradient-blend=0.5` linearises the data term with the mean of the two
 * frames' gradients (the first frame's and the warped second frame's)
 * instead of the warped second frame's alone, as IPOL does. It is the
 * default and in `fast`, `balanced` and `accurate` (`ipol` and `romera`
 * keep IPOL's 0): there it improves every set we check or stays within
 * 0.001 px, large motions most (`balanced` as it was, 2 warps × 20
 * iterations on every level: 0.168 → 0.113 px on our synthetic set), for
 * about 1 % more time; docs/flow-frontier.md gives
 * where it loses (frames whose light changes, without the brightness
 * model).
 *
 * With `post-messages=true` the message's `iterations` is what ran, summed
 * over levels and warps: below the sum over levels of warps × iterations
 * when ε stops warps early (on the GPU the count the device kept, read
 * once the solve is done).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=30 ! cudaflowtvl1 ! flowviz ! videoconvert ! pngenc ! multifilesink location=tvl1_%05d.png
 * ]| Colour-coded flow of a moving ball (GPU when present, else CPU).
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudaflowtvl1 preset=fast ! flowviz ! cudadownload ! autovideosink
 * ]| Decoded frames stay in CUDA memory from the decoder to flowviz.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaflowtvl1.h"
#include "gstcudaflowelements.h"
#include "gstcfparams.h"

#include "common/tvl1.h"
#include "cuda/tvl1.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_flow_tvl1_debug);
#define GST_CAT_DEFAULT gst_cuda_flow_tvl1_debug

/* the method's properties and presets: cf_tvl1_param_table
 * (common/tvl1.c) */
#define DEFAULT_KERNEL CF_TVL1_KERNEL_AUTO

struct _GstCudaFlowTvl1
{
  GstCfFlowBase parent;

  /* properties, object lock */
  cf_tvl1_params params;
  cf_tvl1_kernel kernel;

  /* streaming thread */
  cf_tvl1_params stream_params;
  gchar *stream_error;          /* why a per-level list did not parse */
  gboolean stream_normalize;
  cf_tvl1_kernel stream_kernel;
};

#define gst_cuda_flow_tvl1_parent_class parent_class
G_DEFINE_TYPE (GstCudaFlowTvl1, gst_cuda_flow_tvl1, GST_TYPE_CF_FLOW_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaflowtvl1, "cudaflowtvl1",
    GST_RANK_NONE, GST_TYPE_CUDA_FLOW_TVL1,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_flow_tvl1_debug, "cudaflowtvl1", 0,
        "TV-L1 optical flow"));

static void gst_cuda_flow_tvl1_finalize (GObject * object);
static gboolean gst_cuda_flow_tvl1_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid);
static gboolean gst_cuda_flow_tvl1_solve (GstCfFlowBase * base,
    GstCfFlowFrame * frame);

/* enum fields are stored as int (common/params.h) */
G_STATIC_ASSERT (sizeof (cf_tvl1_kernel) == sizeof (int));

static const cf_param_choice kernel_choices[] = {
  {CF_TVL1_KERNEL_AUTO, "auto", "Fastest measured (blocked with a fixed "
        "iteration count, else fused)"},
  {CF_TVL1_KERNEL_STEPS, "steps", "One kernel per step of an iteration "
        "(fp32 only)"},
  {CF_TVL1_KERNEL_FUSED, "fused", "Two fused stencil kernels per iteration "
        "(identical results)"},
  {CF_TVL1_KERNEL_BLOCKED, "blocked", "Several iterations per launch in "
        "shared memory (identical results; epsilon > 0 runs fused)"},
  {0, NULL, NULL}
};

/* What only the element has: the GPU implementation (a
 * GstCudaFlowTvl1Kernel) */
static const cf_param element_params[] = {
  GST_CF_KERNEL_ROW ("solver-kernel", "Solver Kernel",
      "GPU implementation of the iterations (for benchmarks; all "
      "give the same flow at one precision)", kernel_choices,
      DEFAULT_KERNEL, G_STRUCT_OFFSET (GstCudaFlowTvl1, kernel)),
  {NULL}
};

static void
gst_cuda_flow_tvl1_class_init (GstCudaFlowTvl1Class * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCfFlowBaseClass *flow_class = GST_CF_FLOW_BASE_CLASS (klass);

  gobject_class->finalize = gst_cuda_flow_tvl1_finalize;
  gst_cf_flow_base_class_install_params (flow_class, &cf_tvl1_param_table,
      G_STRUCT_OFFSET (GstCudaFlowTvl1, params), element_params);

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
}

static void
gst_cuda_flow_tvl1_init (GstCudaFlowTvl1 * self)
{
  cf_tvl1_params_init (&self->params);
  self->kernel = DEFAULT_KERNEL;
}

static void
gst_cuda_flow_tvl1_finalize (GObject * object)
{
  GstCudaFlowTvl1 *self = GST_CUDA_FLOW_TVL1 (object);

  g_free (self->stream_error);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* Object lock held: copies only (a per-level list that did not parse is
 * reported before the solve, without the lock). A new solver kernel needs
 * a new plan. */
static gboolean
gst_cuda_flow_tvl1_update_settings (GstCfFlowBase * base,
    cf_pyramid_params * pyramid)
{
  GstCudaFlowTvl1 *self = GST_CUDA_FLOW_TVL1 (base);
  gboolean rebuild = self->kernel != self->stream_kernel;

  cf_tvl1_prepare_pyramid_params (&self->params, pyramid);
  self->stream_params = self->params;
  g_free (self->stream_error);
  self->stream_error = gst_cf_flow_base_dup_param_error (base);
  self->stream_normalize = self->params.normalize;
  self->stream_kernel = self->kernel;
  return rebuild;
}

/* The parameters for this pair: with normalize, λ (and its per-level list)
 * scaled so that the raw frames behave as IPOL's frames stretched to
 * 0..255 (the data term and the thresholds scale with the intensities;
 * every other step is linear). A
 * nearly flat pair could push λ past the solvers' range: it stops at
 * CF_TVL1_LAMBDA_MAX, where the data term dominates anyway. */
static cf_tvl1_params
pair_params (GstCudaFlowTvl1 * self, const GstCfFlowFrame * frame)
{
  cf_tvl1_params p = self->stream_params;

  if (self->stream_normalize) {
    gfloat lo = frame->range_min, hi = frame->range_max;
    if (hi > lo)
      cf_tvl1_scale_lambda (&p, 255.0f / (hi - lo));
  }
  return p;
}

/* The same solver description for either engine, after the checks both
 * refuse alike, each with one message: a per-level list that did not
 * parse, what the GPU cannot run. The engine counts the iterations ε lets
 * run (on the GPU only when the frame asks, since reading the device's
 * count waits for the solve). */
static gboolean
gst_cuda_flow_tvl1_solve (GstCfFlowBase * base, GstCfFlowFrame * frame)
{
  GstCudaFlowTvl1 *self = GST_CUDA_FLOW_TVL1 (base);
  cf_flow_solver solver = {.method = CF_FLOW_METHOD_TVL1 };

  if (self->stream_error) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Invalid %s",
            self->stream_error), (NULL));
    return FALSE;
  }
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
