/* gst-cudaflow — base class of the dense optical-flow estimators
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CF_FLOW_BASE_H__
#define __GST_CF_FLOW_BASE_H__

#include "gstcfbasetransform.h"

#include <gst/cudaflow/cudaflow.h>

#include "common/flow-engine.h"
#include "common/params.h"

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

/* One pair, as solve () gets it: everything the method needs for this
 * frame, so that it never asks the base. */
typedef struct
{
  cf_flow_engine *engine;       /* both frames' pyramids and the flow, on
                                 * the CPU or the GPU */
  cf_flow_pair pair;            /* their slots and the warm start, as
                                 * cf_flow_engine_solve takes them; the
                                 * iterations run come back in it */
  cf_precision precision;       /* this frame's precision setting */
  gfloat range_min;             /* needs_frame_range: the joint luma range */
  gfloat range_max;             /* of both frames (0..255, before
                                 * presmoothing); else 0 and 0 */
} GstCfFlowFrame;

struct _GstCfFlowBaseClass
{
  GstCfBaseTransformClass parent_class;

  /* Take this frame's settings: copy the method's properties into the
   * fields its solve reads, and set @pyramid's presmoothing for them
   * (levels, eta and the minimum size are set already). The base calls it
   * once per frame, before anything else of the frame, with the object
   * lock held while it takes its own copy (levels, precision, ...), so
   * that both copies belong to one moment.
   * The lock rule: copy values, nothing else. No solver, CUDA or
   * allocation work beyond copying, no element messages, nothing that
   * takes the object lock; settings that cannot run are reported by
   * solve, which runs without the lock.
   * Return TRUE when solver resources must be rebuilt (a setting the
   * solver is built for, such as its GPU kernel, changed): the base then
   * makes a new engine (pyramids, flow, solver state) and restarts the
   * history before this frame. */
  gboolean (*update_settings) (GstCfFlowBase * self,
      cf_pyramid_params * pyramid);

  /* The flow of @frame's pair, frame t-1 to frame t, into the engine's
   * flow (which holds the last flow as initial estimate when
   * frame->pair.use_initial): the method's cf_flow_solver for this pair,
   * run by gst_cf_flow_frame_solve (). Called on the streaming thread,
   * without the object lock, after update_settings, for every pair. It
   * refuses settings that cannot run on any engine alike, so a CPU test
   * catches what the GPU would refuse: post an element error and return
   * FALSE. */
  gboolean (*solve) (GstCfFlowBase * self, GstCfFlowFrame * frame);

  /* Set by methods whose parameters depend on the intensity range of the
   * pair (TV-L1's normalisation): the engine then records each frame's
   * luma minimum and maximum before the pyramid is built (on the GPU one
   * small reduction and a wait for its two values per frame), and solve
   * gets the pair's range in the frame. */
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
 * update_settings). A bad text does not stop the property from being set: the
 * element reports it when it processes a frame. */
gchar *gst_cf_flow_base_dup_param_error (GstCfFlowBase * self);

/* Run @solver on @frame's pair (cf_flow_engine_solve), for solve ():
 * TRUE, or FALSE with an element error "<method_name> on the CPU failed"
 * (or GPU) posted on @element. */
gboolean gst_cf_flow_frame_solve (GstCfFlowFrame * frame,
    GstElement * element, const cf_flow_solver * solver,
    const gchar * method_name);

G_END_DECLS
#endif /* __GST_CF_FLOW_BASE_H__ */
