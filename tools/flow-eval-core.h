/* gst-cudaflow — a flow element on one pair of frames, through GStreamer
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The measuring half of gst-cudaflow-flow-eval, shared with
 * gst-cudaflow-flow-frontier: for each pair a pipeline
 *   appsrc (GRAY8) ! ELEMENT ! appsink (UV_F32LE, system memory)
 * takes the two frames and gives back the flow of the second one. The
 * element runs exactly as in an application's pipeline (backend=auto picks
 * the GPU where there is one).
 *
 * A cf_flow_eval keeps the CUDA context the first pipeline's element
 * announces (GstContext "gst.cuda.context", as nvcodec elements share it)
 * and hands it to every later pipeline, as an application with several
 * pipelines would: a sweep over many settings and pairs then creates one
 * CUDA context, not one per pair.
 */
#ifndef CF_FLOW_EVAL_CORE_H
#define CF_FLOW_EVAL_CORE_H

#include <gst/gst.h>

#include "common/image.h"

typedef struct cf_flow_eval cf_flow_eval;

cf_flow_eval *cf_flow_eval_new (void);
void cf_flow_eval_free (cf_flow_eval * ev);     /* NULL: no-op */

/* Frames are pushed as 8-bit luma: each sample of @f0 and @f1 (same size,
 * 0..255) rounded, as a GRAY8 stream carries them. @element (a floating
 * or owned reference; consumed) must take video in and give
 * video/x-optical-flow, format=UV_F32LE out; a bin with ghost pads will do.
 * Returns the second frame's flow (cf_flow_free it), or NULL with a
 * message for the user in @error (g_free it): the element's own error when
 * it posted one, else what went wrong around it. */
cf_flow *cf_flow_eval_run (cf_flow_eval * ev, GstElement * element,
    const cf_image * f0, const cf_image * f1, gchar ** error);

#endif /* CF_FLOW_EVAL_CORE_H */
