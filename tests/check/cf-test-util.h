/* gst-cudaflow — helpers shared by the test suites
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_TEST_UTIL_H
#define CF_TEST_UTIL_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "common/image.h"

G_BEGIN_DECLS

/* Automake's exit status for a skipped test. */
#define CF_TEST_SKIP 77

/* 1 when a CUDA device can be used by this process. */
int cf_test_gpu_available (void);

/* main () of a GPU suite: exits CF_TEST_SKIP (with a note on stderr) when
 * no CUDA device is present, else runs the suite without fork (CUDA state
 * does not survive fork) and returns the number of failures. */
int cf_test_run_gpu_suite (int argc, char **argv, const char *name,
    Suite * (*make_suite) (void));

/* A harness around a new @factory element whose `backend` (when not NULL)
 * and CUDA context (when not NULL) are set before it starts: a harness
 * starts its element at once, and both are fixed at start. */
GstHarness *cf_test_harness_new (const gchar * factory, const gchar * backend,
    GstContext * context);

/* Deterministic pseudo-random fill in [lo, hi) (xorshift, seeded). */
void cf_test_fill_random (cf_image * image, guint32 seed, float lo, float hi);

/* Directory of the optical-flow data with ground truth (CUDAFLOW_DATA_DIR),
 * or NULL when it is not set or does not exist. */
const char *cf_test_data_dir (void);

G_END_DECLS
#endif /* CF_TEST_UTIL_H */
