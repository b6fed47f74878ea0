/* gst-cudaflow — helpers for the flow element suites
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_FLOW_TEST_UTIL_H
#define CF_FLOW_TEST_UTIL_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "common/flow-engine.h"
#include "common/image.h"
#include "common/metrics.h"
#include "common/synth.h"

G_BEGIN_DECLS

/* Harness around @element with backend=@backend, system-memory video caps
 * of @format at 30/1 on the sink side, flow caps accepted on the source. */
GstHarness *flow_harness_new (const gchar * element, const gchar * backend,
    const gchar * format, int width, int height);

/* Apply "name=value name=value" settings (gst-launch syntax). */
void flow_test_set_properties (GstElement * element, const gchar * settings);

/* A frame of random bytes, PTS = index/30 s, duration 1/30 s. */
GstBuffer *flow_test_random_frame (const gchar * format, int width,
    int height, guint32 seed, int index);

/* A frame of @format carrying the grey image @grey (0..255): every luma
 * path (Y, 16-bit, R=G=B) reproduces it. */
GstBuffer *flow_test_frame_from_grey (const gchar * format,
    const cf_image * grey, int index);

/* Push two GRAY8 frames of @width x @height, the second of which must
 * fail; the text of the error message it posts (g_free it). */
gchar *flow_test_pair_error (GstHarness * h, int width, int height);

/* Fails unless @element's numeric property @name has the range @accepts
 * (the solver's own check) takes: both bounds accepted, a step beyond
 * either refused (1 for integers, a thousandth of the maximum for
 * doubles). */
void flow_test_assert_range_is (GstElement * element, const gchar * name,
    gboolean (*accepts) (const gchar * name, double value));

/* Packed UV_F32LE system buffer -> planar flow. */
cf_flow *flow_test_buffer_to_flow (GstBuffer * buffer, int width, int height);
float flow_test_max_abs (const cf_flow * flow);
gboolean flow_test_all_finite (const cf_flow * flow);

/* Run the synthetic pair of @params through the element; EPE against the
 * exact ground truth, 8-pixel border excluded. */
double flow_test_synthetic_epe (const gchar * element, const gchar * backend,
    const gchar * format, int width, int height,
    const cf_synth_params * params, const gchar * settings,
    cf_flow_error * result);

/* A translation by (tx, ty) per frame over @n_frames; mean EPE over the
 * flows after the first. */
double flow_test_synthetic_epe_sequence (const gchar * element,
    const gchar * backend, int width, int height,
    const cf_synth_params * params, const gchar * settings, int n_frames,
    cf_flow_error * result);

/* The synthetic translation (@tx, @ty) of the default texture as two packed
 * GRAY8 frames of @width x @height (rounded, clamped to 0..255). */
void flow_test_gray8_pair (int width, int height, float tx, float ty,
    guint8 * frame0, guint8 * frame1);

/* A packed GRAY8 frame at @data (host or device memory) as a cf_channel. */
cf_channel flow_test_gray8_channel (guint8 * data, int width, int height);

/* Pyramids of at most 3 levels down to 8 pixels (61x47: 31x24, 16x12),
 * presmoothed by @sigma: small frames with every level in use. */
void flow_test_small_pyramid (cf_pyramid_params * pyramid, float sigma);

/* Frame @gray (packed GRAY8 of the engine's size, in its memory) into
 * @slot of @engine, then its pyramid; the test fails on an error. */
void flow_test_engine_load (cf_flow_engine * engine, int slot,
    guint8 * gray);

/* @method with small but real settings for engine tests: HS 2 warps × 7
 * iterations, CLG 9 sweeps, TV-L1 2 warps × at most 40 iterations with an ε
 * large enough to end some warps early; kernel auto, fp32. */
void flow_test_solver_init (cf_flow_solver * solver, cf_flow_method method);

G_END_DECLS
#endif /* CF_FLOW_TEST_UTIL_H */
