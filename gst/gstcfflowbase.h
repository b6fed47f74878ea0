/* gst-cudaflow — base class of the dense optical-flow estimators
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CF_FLOW_BASE_H__
#define __GST_CF_FLOW_BASE_H__

#include "gstcfbasetransform.h"

#include <gst/cudaflow/cudaflow.h>

#include "common/image.h"
#include "common/params.h"
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

  /* Pyramid for the current settings (levels, scale-factor and the
   * method's presmoothing); called with the object lock held. */
  void (*get_pyramid_params) (GstCfFlowBase * self,
      cf_pyramid_params * params);

  /* Copy the method's settings for this frame (object lock held). Return
   * TRUE when solver resources must be rebuilt. */
  gboolean (*sync_settings) (GstCfFlowBase * self);

  /* Flow from @p0 (frame t-1) to @p1 (frame t) into @flow (level-0 size),
   * which holds the initial estimate when @use_initial. CPU and CUDA
   * variants; post an element error before returning FALSE. */
  gboolean (*solve_cpu) (GstCfFlowBase * self, const cf_pyramid * p0,
      const cf_pyramid * p1, gboolean use_initial, cf_flow * flow);
  gboolean (*solve_cuda) (GstCfFlowBase * self, const cf_cuda_pyramid * p0,
      const cf_cuda_pyramid * p1, gboolean use_initial, cf_cuda_flow * flow,
      cudaStream_t stream);

  /* Refuse settings that cannot run, whatever the backend (called on the
   * streaming thread before every solve, after sync_settings): post an
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

  /* Set by gst_cf_flow_base_class_install_params: the method's parameter
   * table, where its params struct sits in the instance, and the rows only
   * the element has (offsets from the instance). */
  const cf_param_table *param_table;
  gsize params_offset;
  const cf_param *element_params;
};

/* Reference caps of the GstReferenceTimestampMeta every non-GAP field of
 * the flow stream carries: timestamp = PTS of frame t−1 of the pair,
 * duration = |PTS(t) − PTS(t−1)|, the interval the flow spans (the buffer
 * keeps frame t's PTS and duration). */
#define GST_CF_FLOW_PREVIOUS_FRAME_CAPS "timestamp/x-cudaflow-previous-frame"

/* Name of the element message post-messages=true posts per frame. */
#define GST_CF_FLOW_STATS_MESSAGE "cudaflow-stats"

/* Properties every flow element has, installed by
 * gst_cf_flow_base_class_install_params (so each method shows its own
 * default levels). */
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

/* From the subclass's class_init: install the properties every estimator
 * has, one property per row of @table (common/params.h: the method's
 * parameters, kept in the params struct at @params_offset in the instance,
 * e.g. G_STRUCT_OFFSET (GstCudaFlowHs, params)), `preset` (a GEnum
 * <TypeName>Preset of the table's presets), then one per row of
 * @element_params (what only the element has, offsets from the instance;
 * NULL-terminated, may be NULL). The base then sets and gets all of them,
 * under the object lock, through the table's check. The subclass
 * initialises the params struct (cf_<method>_params_init) and its own rows
 * in its instance init.
 *
 * Presets, order-independent: a property set explicitly (whenever, before
 * or after `preset`) wins over any preset; the read-only
 * `overridden-properties` lists the preset's names that were set so. */
void gst_cf_flow_base_class_install_params (GstCfFlowBaseClass * klass,
    const cf_param_table * table, gsize params_offset,
    const cf_param * element_params);

/* Why a TEXT property's value did not parse ("iterations-per-level \"x\":
 * …"), newly allocated, or NULL when all did; object lock held (e.g. from
 * sync_settings). A bad text does not stop the property from being set: the
 * element reports it when it processes a frame. */
gchar *gst_cf_flow_base_dup_param_error (GstCfFlowBase * self);

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
