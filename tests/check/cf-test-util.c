/* gst-cudaflow — helpers shared by the test suites
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cf-test-util.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuda/cuda-util.h"

int
cf_test_gpu_available (void)
{
  return cf_cuda_device_available ();
}

int
cf_test_run_gpu_suite (int argc, char **argv, const char *name,
    Suite * (*make_suite) (void))
{
  Suite *suite;

  if (!cf_test_gpu_available ()) {
    fprintf (stderr, "SKIP: no CUDA device available\n");
    return CF_TEST_SKIP;
  }
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  suite = make_suite ();
  return gst_check_run_suite (suite, name, __FILE__);
}

GstHarness *
cf_test_harness_new (const gchar * factory, const gchar * backend,
    GstContext * context)
{
  GstElement *element = gst_element_factory_make (factory, NULL);
  GstHarness *h;

  fail_unless (element != NULL, "cannot create %s", factory);
  if (backend != NULL)
    gst_util_set_object_arg (G_OBJECT (element), "backend", backend);
  if (context != NULL)
    gst_element_set_context (element, context);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  return h;
}

void
cf_test_fill_random (cf_image * image, guint32 seed, float lo, float hi)
{
  guint32 state = seed ? seed : 0x9e3779b9u;
  int x, y;

  for (y = 0; y < image->height; y++) {
    float *row = cf_image_row (image, y);
    for (x = 0; x < image->width; x++) {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      row[x] = lo + (hi - lo) * (float) ((state >> 8) * (1.0 / 16777216.0));
    }
  }
}

const char *
cf_test_data_dir (void)
{
  const char *dir = g_getenv ("CUDAFLOW_DATA_DIR");

  if (dir == NULL || *dir == '\0' || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    return NULL;
  return dir;
}
