/* gst-cudaflow — common/flowviz.c: the Middlebury colour coding
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include <gst/check/gstcheck.h>

#include "common/flowviz.h"

GST_START_TEST (test_wheel_has_the_middlebury_segments)
{
  uint8_t wheel[CF_FLOWVIZ_NCOLS][3];

  cf_flowviz_wheel (wheel);
  /* segment starts: red, yellow, green, cyan, blue, magenta */
  fail_unless (wheel[0][0] == 255 && wheel[0][1] == 0 && wheel[0][2] == 0);
  fail_unless (wheel[15][0] == 255 && wheel[15][1] == 255
      && wheel[15][2] == 0);
  fail_unless (wheel[21][0] == 0 && wheel[21][1] == 255 && wheel[21][2] == 0);
  fail_unless (wheel[25][0] == 0 && wheel[25][1] == 255
      && wheel[25][2] == 255);
  fail_unless (wheel[36][0] == 0 && wheel[36][1] == 0 && wheel[36][2] == 255);
  fail_unless (wheel[49][0] == 255 && wheel[49][1] == 0
      && wheel[49][2] == 255);
  /* integer division inside a segment: RY entry 7 = 255*7/15 = 119 */
  fail_unless_equals_int (wheel[7][1], 119);
  /* last entry: MR 5 = 255 - 255*5/6 = 43 */
  fail_unless_equals_int (wheel[54][2], 43);
}

GST_END_TEST;

GST_START_TEST (test_max_magnitude_ignores_unknown)
{
  const float uv[] = { 3, 4, 1e10f, 0, NAN, 1, -6, 8 };

  fail_unless_equals_float (cf_flowviz_max_magnitude (uv, 4 * sizeof (float),
          2, 2), 10.0f);
  fail_unless_equals_float (cf_flowviz_max_magnitude (uv + 2,
          2 * sizeof (float), 1, 1), 0.0f);
}

GST_END_TEST;

GST_START_TEST (test_render_writes_every_pixel_and_alpha)
{
  const float uv[] = { 0, 0, 1, 0, 1e10f, 1e10f };
  cf_flowviz_params p = { CF_FLOWVIZ_MIDDLEBURY, 16, 2, 1, 0, 3 };
  uint8_t out[12];

  memset (out, 0x55, sizeof (out));
  fail_unless_equals_int (cf_flowviz_render (uv, sizeof (uv), 3, 1, &p, 0.0f,
          out, sizeof (out)), CF_OK);
  /* BGRA: zero flow white, unit vector red (R at byte 2), unknown black */
  fail_unless (out[0] == 255 && out[1] == 255 && out[2] == 255);
  fail_unless (out[4] == 0 && out[5] == 0 && out[6] == 255);
  fail_unless (out[8] == 0 && out[9] == 0 && out[10] == 0);
  fail_unless (out[3] == 255 && out[7] == 255 && out[11] == 255);
  /* bad parameters */
  p.arrow_step = 1;
  fail_unless_equals_int (cf_flowviz_render (uv, sizeof (uv), 3, 1, &p, 0.0f,
          out, sizeof (out)), CF_ERROR_INVALID);
}

GST_END_TEST;

GST_START_TEST (test_opposite_directions_have_opposite_hues)
{
  uint8_t a[3], b[3];

  /* right is red; left is the wheel's middle, a cyan-blue (no red) */
  cf_flowviz_middlebury_rgb (1.0f, 0.0f, a);
  cf_flowviz_middlebury_rgb (-1.0f, 0.0f, b);
  fail_unless (a[0] == 255 && b[0] == 0);
  /* saturation grows with the magnitude: half way is paler */
  cf_flowviz_middlebury_rgb (0.5f, 0.0f, b);
  fail_unless (b[0] == 255 && b[1] > 100 && b[1] == b[2]);
}

GST_END_TEST;

static Suite *
common_flowviz_suite (void)
{
  Suite *s = suite_create ("common-flowviz");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wheel_has_the_middlebury_segments);
  tcase_add_test (tc, test_max_magnitude_ignores_unknown);
  tcase_add_test (tc, test_render_writes_every_pixel_and_alpha);
  tcase_add_test (tc, test_opposite_directions_have_opposite_hues);
  return s;
}

GST_CHECK_MAIN (common_flowviz);
