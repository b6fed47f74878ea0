/* gst-cudaflow — base class of the dense optical-flow estimators
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CF_FLOW_BASE_H__
#define __GST_CF_FLOW_BASE_H__

#include "gstcfbasetransform.h"

#include <gst/cudaflow/cudaflow.h>

#include "common/image.h"
#include "common/pyramid.h"
#include "cuda/flow.h"
#include "cuda/pyramid.h"

G_BEGIN_DECLS

#define GST_TYPE_CF_FLOW_BASE (gst_cf_flow_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCfFlowBase, gst_cf_flow_base, GST, CF_FLOW_BASE,
    GstCfBaseTransform);

#define GST_TYPE_CF_PRECISION (gst_cf_precision_get_type ())
GType gst_cf_precision_get_type (void);

/* What an estimator's source pad carries. */
typedef enum
{
  GST_CF_FLOW_OUTPUT_FLOW = 0,  /* the flow stream (video/x-optical-flow) */
  GST_CF_FLOW_OUTPUT_META = 1   /* the video, each frame with a GstCudaFlowMeta */
} GstCfFlowOutput;

#define GST_TYPE_CF_FLOW_OUTPUT (gst_cf_flow_output_get_type ())
GType gst_cf_flow_output_get_type (void);

/* Flow caps in CUDA and in system memory. */
#define GST_CF_FLOW_CAPS_STR \
    GST_CUDA_FLOW_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory") "; " \
    GST_CUDA_FLOW_CAPS_MAKE

struct _GstCfFlowBaseClass
{
  GstCfBaseTransformClass parent_class;

  /* Take this frame's settings: copy the method's properties into the
   * fields its solver reads, and set @pyramid's presmoothing for them
   * (levels, eta and the minimum size are set already). The base calls it
   * once per frame, before anything else of the frame, with the object
   * lock held while it takes its own copy (levels, precision, ...), so
   * that both copies belong to one moment.
   * The lock rule: copy values, nothing else. No solver, CUDA or
   * allocation work beyond copying, no element messages, nothing that
   * takes the object lock; settings that cannot run are reported later on
   * the streaming thread, without the lock (check_settings).
   * Return TRUE when solver resources must be rebuilt (a setting the
   * solver is built for, such as its GPU kernel, changed): the base then
   * frees its frames and the solver (free_solver) and restarts the history
   * before this frame. */
  gboolean (*update_settings) (GstCfFlowBase * self,
      cf_pyramid_params * pyramid);

  /* Flow from @p0 (frame t-1) to @p1 (frame t) into @flow (level-0 size),
   * which holds the initial estimate when @use_initial. CPU and CUDA
   * variants; post an element error before returning FALSE. */
  gboolean (*solve_cpu) (GstCfFlowBase * self, const cf_pyramid * p0,
      const cf_pyramid * p1, gboolean use_initial, cf_flow * flow);
  gboolean (*solve_cuda) (GstCfFlowBase * self, const cf_cuda_pyramid * p0,
      const cf_cuda_pyramid * p1, gboolean use_initial, cf_cuda_flow * flow,
      cudaStream_t stream);

  /* Refuse settings that cannot run, whatever the backend (called on the
   * streaming thread before every solve, after update_settings): post an
   * element error and return FALSE. The CPU backend refuses what the GPU
   * would, so a CPU test catches it. */
  gboolean (*check_settings) (GstCfFlowBase * self);

  /* Free solver plans and scratch (context pushed when on the GPU). */
  void (*free_solver) (GstCfFlowBase * self);

  /* Set by methods whose parameters depend on the intensity range of the
   * pair (TV-L1's normalisation): the base then records each frame's luma
   * minimum and maximum before the pyramid is built (on the GPU this costs
   * one small reduction and a stream synchronisation per frame). */
  gboolean needs_frame_range;

  /* What GstCudaFlowMeta.method says (output=meta). */
  GstCudaFlowMethod method;
};

/* Reference caps of the GstReferenceTimestampMeta every non-GAP field of
 * the flow stream carries: timestamp = PTS of frame t−1 of the pair,
 * duration = |PTS(t) − PTS(t−1)|, the interval the flow spans (the buffer
 * keeps frame t's PTS and duration). */
#define GST_CF_FLOW_PREVIOUS_FRAME_CAPS "timestamp/x-cudaflow-previous-frame"

/* Name of the element message post-messages=true posts per frame. */
#define GST_CF_FLOW_STATS_MESSAGE "cudaflow-stats"

/* Properties every flow element has; the subclass installs them (so each
 * method shows its own defaults) and forwards set/get to the base. */
enum
{
  GST_CF_FLOW_BASE_PROP_LEVELS = 0x1000,
  GST_CF_FLOW_BASE_PROP_SCALE_FACTOR,
  GST_CF_FLOW_BASE_PROP_USE_PREVIOUS_FLOW,
  GST_CF_FLOW_BASE_PROP_PRECISION,
  GST_CF_FLOW_BASE_PROP_OUTPUT,
  GST_CF_FLOW_BASE_PROP_MAX_GAP,
  GST_CF_FLOW_BASE_PROP_POST_MESSAGES,
  GST_CF_FLOW_BASE_PROP_OVERRIDDEN
};

void gst_cf_flow_base_install_properties (GObjectClass * klass,
    gint default_levels);
gboolean gst_cf_flow_base_set_common_property (GObject * object,
    guint prop_id, const GValue * value);
gboolean gst_cf_flow_base_get_common_property (GObject * object,
    guint prop_id, GValue * value);

/* Presets, order-independent: a property set explicitly (whenever, before
 * or after `preset`) wins over any preset. The subclass calls
 * note_property_set from set_property for every property it or the base
 * handles, and apply_preset with NULL-terminated name/value pairs (like
 * g_object_set) when `preset` changes: names set explicitly are skipped
 * and listed by the read-only `overridden-properties`. */
void gst_cf_flow_base_note_property_set (GstCfFlowBase * self,
    GParamSpec * pspec);
void gst_cf_flow_base_apply_preset (GstCfFlowBase * self,
    const gchar * first_property, ...) G_GNUC_NULL_TERMINATED;
/* preset=none: no preset, nothing overridden. */
void gst_cf_flow_base_clear_preset (GstCfFlowBase * self);

/* The solver of this frame ran @iterations iterations in all (levels,
 * warps); what post-messages reports (-1, the default: unknown). */
void gst_cf_flow_base_report_iterations (GstCfFlowBase * self,
    gint64 iterations);

/* TRUE when post-messages is on for this frame (streaming thread): a GPU
 * solver may then synchronise its stream to report exact iterations. */
gboolean gst_cf_flow_base_wants_stats (GstCfFlowBase * self);

/* Joint luma range (0..255 scale, before presmoothing) of frames t-1 and t,
 * inside solve_cpu/solve_cuda of a class with needs_frame_range. */
void gst_cf_flow_base_get_pair_range (GstCfFlowBase * self, gfloat * min,
    gfloat * max);

/* The precision of the frame being processed (streaming thread). */
cf_precision gst_cf_flow_base_get_precision (GstCfFlowBase * self);

G_END_DECLS
#endif /* __GST_CF_FLOW_BASE_H__ */
