/* gst-cudaflow — tests for common/image (planar images and flow fields)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include "cf-test-util.h"
#include "common/image.h"

/* Bit-level float equality (NaN == NaN, 0.0 != -0.0). */
static gboolean
same_bits (float a, float b)
{
  return memcmp (&a, &b, sizeof (float)) == 0;
}

GST_START_TEST (test_image_new_is_zero_filled_and_tightly_pitched)
{
  cf_image *img = cf_image_new (3, 5);
  int x, y;

  fail_unless (img != NULL);
  fail_unless_equals_int (img->width, 3);
  fail_unless_equals_int (img->height, 5);
  fail_unless_equals_int ((int) img->pitch, 3);
  fail_unless (img->owns_data);
  for (y = 0; y < 5; y++)
    for (x = 0; x < 3; x++)
      fail_unless (same_bits (cf_image_row (img, y)[x], 0.0f));
  fail_unless (cf_image_row (img, 4) == img->data + 12);
  cf_image_free (img);

  img = cf_image_new (1, 1);
  fail_unless (img != NULL);
  fail_unless (img->data[0] == 0.0f);
  cf_image_free (img);
}

GST_END_TEST;

GST_START_TEST (test_image_new_rejects_bad_sizes)
{
  fail_unless (cf_image_new (0, 5) == NULL);
  fail_unless (cf_image_new (5, 0) == NULL);
  fail_unless (cf_image_new (-1, 5) == NULL);
  fail_unless (cf_image_new (5, -3) == NULL);
  fail_unless (cf_image_new (CF_MAX_DIMENSION + 1, 1) == NULL);
  fail_unless (cf_image_new (1, CF_MAX_DIMENSION + 1) == NULL);
  fail_unless (cf_flow_new (0, 1) == NULL);
  fail_unless (cf_flow_new (1, -1) == NULL);
  fail_unless (cf_flow_new (CF_MAX_DIMENSION + 1, 2) == NULL);
}

GST_END_TEST;

GST_START_TEST (test_free_and_copy_of_null_are_harmless)
{
  cf_image_free (NULL);
  cf_flow_free (NULL);
  fail_unless (cf_image_copy (NULL) == NULL);
  fail_unless (cf_flow_copy (NULL) == NULL);
}

GST_END_TEST;

GST_START_TEST (test_view_aliases_memory_with_its_pitch)
{
  float data[4 * 7];
  cf_image view;
  int i;

  for (i = 0; i < 28; i++)
    data[i] = (float) i;
  view = cf_image_view (data, 5, 4, 7);
  fail_unless_equals_int (view.width, 5);
  fail_unless_equals_int (view.height, 4);
  fail_unless_equals_int ((int) view.pitch, 7);
  fail_unless (!view.owns_data);
  fail_unless (cf_image_row (&view, 2) == data + 14);
  fail_unless (cf_image_row (&view, 3)[4] == 25.0f);
  cf_image_row (&view, 1)[2] = -1.0f;
  fail_unless (data[9] == -1.0f);
}

GST_END_TEST;

GST_START_TEST (test_fill_writes_only_the_visible_columns)
{
  float data[3 * 7];
  cf_image view;
  int x, y;

  for (x = 0; x < 21; x++)
    data[x] = 99.0f;
  view = cf_image_view (data, 5, 3, 7);
  cf_image_fill (&view, -2.5f);
  for (y = 0; y < 3; y++) {
    for (x = 0; x < 7; x++)
      fail_unless (data[x + y * 7] == (x < 5 ? -2.5f : 99.0f),
          "(%d, %d) = %g", x, y, data[x + y * 7]);
  }
}

GST_END_TEST;

GST_START_TEST (test_copy_is_deep_and_drops_the_source_pitch)
{
  float data[4 * 9];
  cf_image view, *copy;
  int x, y;

  for (x = 0; x < 36; x++)
    data[x] = 0.5f * (float) x - 3.0f;
  view = cf_image_view (data, 6, 4, 9);
  copy = cf_image_copy (&view);
  fail_unless (copy != NULL);
  fail_unless (copy->data != data);
  fail_unless (copy->owns_data);
  fail_unless_equals_int (copy->width, 6);
  fail_unless_equals_int (copy->height, 4);
  fail_unless_equals_int ((int) copy->pitch, 6);
  for (y = 0; y < 4; y++)
    for (x = 0; x < 6; x++)
      fail_unless (copy->data[x + y * 6] == data[x + y * 9]);
  /* the copy does not follow later changes of the source */
  data[0] = 1000.0f;
  fail_unless (copy->data[0] == -3.0f);
  cf_image_free (copy);
}

GST_END_TEST;

GST_START_TEST (test_flow_new_fill_and_copy)
{
  cf_flow *flow = cf_flow_new (3, 5), *copy;
  int x, y;

  fail_unless (flow != NULL);
  fail_unless_equals_int ((int) flow->pitch, 3);
  fail_unless (flow->owns_data);
  for (y = 0; y < 5; y++)
    for (x = 0; x < 3; x++)
      fail_unless (flow->u[x + y * 3] == 0.0f && flow->v[x + y * 3] == 0.0f);
  cf_flow_fill (flow, 1.25f, -7.5f);
  for (y = 0; y < 5; y++)
    for (x = 0; x < 3; x++)
      fail_unless (flow->u[x + y * 3] == 1.25f && flow->v[x + y * 3] == -7.5f);
  flow->u[7] = 42.0f;
  flow->v[14] = NAN;
  copy = cf_flow_copy (flow);
  fail_unless (copy != NULL);
  fail_unless (copy->u != flow->u && copy->v != flow->v);
  fail_unless (copy->u[7] == 42.0f);
  fail_unless (isnan (copy->v[14]));
  fail_unless (copy->u[0] == 1.25f && copy->v[0] == -7.5f);
  cf_flow_free (flow);
  cf_flow_free (copy);
}

GST_END_TEST;

/* cf_flow_view: the top-left part of both planes, the same memory and
 * pitch, not owned; a fill through it stays inside it. */
GST_START_TEST (test_flow_view_is_the_top_left_part)
{
  cf_flow *flow = cf_flow_new (5, 4);
  cf_flow view;
  int x, y;

  fail_unless (flow != NULL);
  view = cf_flow_view (flow, 3, 2);
  fail_unless (view.u == flow->u && view.v == flow->v);
  fail_unless_equals_int (view.width, 3);
  fail_unless_equals_int (view.height, 2);
  fail_unless_equals_int ((int) view.pitch, 5);
  fail_if (view.owns_data);
  cf_flow_fill (&view, 2.0f, -3.0f);
  for (y = 0; y < 4; y++)
    for (x = 0; x < 5; x++) {
      const gboolean inside = x < 3 && y < 2;

      fail_unless (flow->u[x + y * 5] == (inside ? 2.0f : 0.0f) &&
          flow->v[x + y * 5] == (inside ? -3.0f : 0.0f), "(%d, %d)", x, y);
    }
  cf_flow_free (flow);
}

GST_END_TEST;

GST_START_TEST (test_interleave_round_trip_with_padded_stride)
{
  /* 3 x 5 field, interleaved rows of 3 * 2 floats padded to 8 floats */
  const int w = 3, h = 5, row_floats = 8;
  float uv[5 * 8];
  cf_flow *flow = cf_flow_new (w, h), *back = cf_flow_new (w, h);
  int x, y;

  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      flow->u[x + y * w] = (float) (10 * y + x) + 0.25f;
      flow->v[x + y * w] = -(float) (10 * y + x) - 0.5f;
    }
  }
  for (x = 0; x < 5 * 8; x++)
    uv[x] = 777.0f;
  cf_flow_to_interleaved (flow, uv, row_floats * sizeof (float));
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      fail_unless (uv[y * row_floats + 2 * x] == flow->u[x + y * w]);
      fail_unless (uv[y * row_floats + 2 * x + 1] == flow->v[x + y * w]);
    }
    /* row padding untouched */
    fail_unless (uv[y * row_floats + 6] == 777.0f);
    fail_unless (uv[y * row_floats + 7] == 777.0f);
  }
  cf_flow_from_interleaved (back, uv, row_floats * sizeof (float));
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      fail_unless (back->u[x + y * w] == flow->u[x + y * w]);
      fail_unless (back->v[x + y * w] == flow->v[x + y * w]);
    }
  }
  cf_flow_free (flow);
  cf_flow_free (back);
}

GST_END_TEST;

GST_START_TEST (test_flow_is_known_threshold_and_nan)
{
  /* 1e9 is exactly representable; the threshold itself is still known */
  const float above = nextafterf (CF_FLOW_UNKNOWN_THRESH, INFINITY);

  fail_unless (cf_flow_is_known (0.0f, 0.0f));
  fail_unless (cf_flow_is_known (-3.5f, 1234.0f));
  fail_unless (cf_flow_is_known (1e9f, -1e9f));
  fail_unless (!cf_flow_is_known (above, 0.0f));
  fail_unless (!cf_flow_is_known (0.0f, -above));
  fail_unless (!cf_flow_is_known (CF_FLOW_UNKNOWN, 0.0f));
  fail_unless (!cf_flow_is_known (0.0f, CF_FLOW_UNKNOWN));
  /* the marker found in the Middlebury ground truth */
  fail_unless (!cf_flow_is_known (1666666752.0f, 1666666752.0f));
  fail_unless (!cf_flow_is_known (NAN, 0.0f));
  fail_unless (!cf_flow_is_known (0.0f, NAN));
  fail_unless (!cf_flow_is_known (-NAN, -NAN));
  fail_unless (!cf_flow_is_known (INFINITY, 0.0f));
  fail_unless (!cf_flow_is_known (0.0f, -INFINITY));
}

GST_END_TEST;

static Suite *
common_image_suite (void)
{
  Suite *s = suite_create ("common_image");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_image_new_is_zero_filled_and_tightly_pitched);
  tcase_add_test (tc, test_image_new_rejects_bad_sizes);
  tcase_add_test (tc, test_free_and_copy_of_null_are_harmless);
  tcase_add_test (tc, test_view_aliases_memory_with_its_pitch);
  tcase_add_test (tc, test_fill_writes_only_the_visible_columns);
  tcase_add_test (tc, test_copy_is_deep_and_drops_the_source_pitch);
  tcase_add_test (tc, test_flow_new_fill_and_copy);
  tcase_add_test (tc, test_flow_view_is_the_top_left_part);
  tcase_add_test (tc, test_interleave_round_trip_with_padded_stride);
  tcase_add_test (tc, test_flow_is_known_threshold_and_nan);
  return s;
}

GST_CHECK_MAIN (common_image);
