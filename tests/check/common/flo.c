/* gst-cudaflow — tests for common/flo (Middlebury .flo files)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/flo.h"
#include "cf-test-util.h"

/* A w x h flow with distinct, sign-varying, non-integer values. */
static cf_flow *
make_pattern (int width, int height)
{
  cf_flow *flow = cf_flow_new (width, height);
  int x, y;

  fail_unless (flow != NULL);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      flow->u[x + y * flow->pitch] = 0.25f * x - 1.5f * y + 0.125f;
      flow->v[x + y * flow->pitch] = -0.75f * x + 2.0f * y - 3.0625f;
    }
  return flow;
}

/* Bit-exact equality of two flows (NaN patterns included). */
static void
assert_flows_identical (const cf_flow * a, const cf_flow * b)
{
  int x, y;

  fail_unless_equals_int (a->width, b->width);
  fail_unless_equals_int (a->height, b->height);
  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++) {
      fail_unless (memcmp (&a->u[x + y * a->pitch], &b->u[x + y * b->pitch],
              sizeof (float)) == 0, "u differs at (%d, %d)", x, y);
      fail_unless (memcmp (&a->v[x + y * a->pitch], &b->v[x + y * b->pitch],
              sizeof (float)) == 0, "v differs at (%d, %d)", x, y);
    }
}

/* Little-endian header with arbitrary tag bytes and sizes. */
static void
put_le32 (uint8_t * p, uint32_t v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = (v >> 24) & 0xff;
}

/* Decode and expect failure with status and a message containing needle. */
static void
decode_fails (const uint8_t * bytes, size_t n, cf_status expected,
    const char *needle)
{
  cf_flow *flow = (cf_flow *) 0x1;
  cf_error err = { "" };
  cf_status st = cf_flo_decode (bytes, n, &flow, &err);

  fail_unless_equals_int (st, expected);
  fail_unless (flow == NULL);
  fail_unless (strstr (err.message, needle) != NULL,
      "message '%s' lacks '%s'", err.message, needle);
}

/* Encode then decode a w x h pattern; the result is bit-identical. */
static void
round_trip (int width, int height)
{
  cf_flow *flow = make_pattern (width, height), *back = NULL;
  size_t size = cf_flo_size (width, height);
  uint8_t *bytes = g_malloc (size);
  cf_error err = { "" };

  fail_unless_equals_int ((int) size, 12 + 8 * width * height);
  fail_unless_equals_int (cf_flo_encode (flow, bytes, size), CF_OK);
  fail_unless (cf_flo_decode (bytes, size, &back, &err) == CF_OK, "%s",
      err.message);
  assert_flows_identical (flow, back);
  cf_flow_free (flow);
  cf_flow_free (back);
  g_free (bytes);
}

GST_START_TEST (test_size_is_12_plus_8wh_and_0_when_out_of_range)
{
  fail_unless_equals_int ((int) cf_flo_size (1, 1), 20);
  fail_unless_equals_int ((int) cf_flo_size (3, 5), 12 + 120);
  fail_unless_equals_int ((int) cf_flo_size (584, 388), 12 + 8 * 584 * 388);
  fail_unless (cf_flo_size (CF_MAX_DIMENSION, CF_MAX_DIMENSION) ==
      12 + (size_t) 8 * CF_MAX_DIMENSION * CF_MAX_DIMENSION);
  fail_unless_equals_int ((int) cf_flo_size (0, 1), 0);
  fail_unless_equals_int ((int) cf_flo_size (1, 0), 0);
  fail_unless_equals_int ((int) cf_flo_size (-1, 5), 0);
  fail_unless_equals_int ((int) cf_flo_size (CF_MAX_DIMENSION + 1, 1), 0);
}

GST_END_TEST;

GST_START_TEST (test_header_bytes_read_pieh_then_le_sizes)
{
  uint8_t h[CF_FLO_HEADER_SIZE];
  static const uint8_t expected[CF_FLO_HEADER_SIZE] = {
    'P', 'I', 'E', 'H', 0x48, 0x02, 0, 0, 0x84, 0x01, 0, 0
  };
  int w = 0, hh = 0;

  fail_unless_equals_int (cf_flo_write_header (h, 584, 388), CF_OK);
  fail_unless (memcmp (h, expected, sizeof (h)) == 0,
      "header %02x %02x %02x %02x %02x %02x %02x %02x", h[0], h[1], h[2],
      h[3], h[4], h[5], h[8], h[9]);
  fail_unless_equals_int (cf_flo_parse_header (h, sizeof (h), &w, &hh, NULL),
      CF_OK);
  fail_unless_equals_int (w, 584);
  fail_unless_equals_int (hh, 388);
  fail_unless_equals_int (cf_flo_write_header (h, 0, 4), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flo_write_header (h, 4, CF_MAX_DIMENSION + 1),
      CF_ERROR_INVALID);
}

GST_END_TEST;

GST_START_TEST (test_encoded_values_are_little_endian_pairs)
{
  cf_flow *flow = cf_flow_new (2, 1);
  uint8_t bytes[12 + 16];
  float f;
  uint32_t bits;

  flow->u[0] = 1.0f;            /* 0x3f800000 */
  flow->v[0] = -2.0f;           /* 0xc0000000 */
  flow->u[1] = 0.5f;            /* 0x3f000000 */
  flow->v[1] = CF_FLOW_UNKNOWN;
  fail_unless_equals_int (cf_flo_encode (flow, bytes, sizeof (bytes)), CF_OK);
  fail_unless (bytes[12] == 0x00 && bytes[13] == 0x00 && bytes[14] == 0x80
      && bytes[15] == 0x3f);
  fail_unless (bytes[16] == 0x00 && bytes[17] == 0x00 && bytes[18] == 0x00
      && bytes[19] == 0xc0);
  fail_unless (bytes[22] == 0x00 && bytes[23] == 0x3f);
  f = CF_FLOW_UNKNOWN;
  memcpy (&bits, &f, 4);
  fail_unless (bytes[24] == (bits & 0xff) && bytes[27] == (bits >> 24));
  /* a buffer one byte short is refused */
  fail_unless_equals_int (cf_flo_encode (flow, bytes, sizeof (bytes) - 1),
      CF_ERROR_INVALID);
  cf_flow_free (flow);
}

GST_END_TEST;

GST_START_TEST (test_round_trip_1x1_3x5_and_odd_sizes_is_bit_exact)
{
  round_trip (1, 1);
  round_trip (3, 5);
  round_trip (5, 3);
  round_trip (385, 289);
}

GST_END_TEST;

GST_START_TEST (test_round_trip_keeps_unknown_and_nan_markers)
{
  cf_flow *flow = make_pattern (4, 2), *back = NULL;
  uint8_t bytes[12 + 64];

  flow->u[1] = CF_FLOW_UNKNOWN;
  flow->v[5] = NAN;
  flow->u[7] = 1666666752.0f;
  fail_unless_equals_int (cf_flo_encode (flow, bytes, sizeof (bytes)), CF_OK);
  fail_unless_equals_int (cf_flo_decode (bytes, sizeof (bytes), &back, NULL),
      CF_OK);
  assert_flows_identical (flow, back);
  fail_unless (!cf_flow_is_known (back->u[1], back->v[1]));
  fail_unless (isnan (back->v[5]));
  fail_unless (cf_flow_is_known (back->u[0], back->v[0]));
  cf_flow_free (flow);
  cf_flow_free (back);
}

GST_END_TEST;

GST_START_TEST (test_rejects_bad_tag)
{
  uint8_t bytes[20] = { 0 };

  fail_unless_equals_int (cf_flo_write_header (bytes, 1, 1), CF_OK);
  bytes[3] = 'X';               /* "PIEX" */
  decode_fails (bytes, sizeof (bytes), CF_ERROR_FORMAT, "PIEH");
  memcpy (bytes, "\x89PNG", 4);
  decode_fails (bytes, sizeof (bytes), CF_ERROR_FORMAT, "PIEH");
}

GST_END_TEST;

GST_START_TEST (test_rejects_zero_negative_and_huge_sizes)
{
  static const int32_t sizes[][2] = {
    {0, 1}, {1, 0}, {0, 0}, {-1, 5}, {5, -1}, {INT32_MIN, 1},
    {CF_MAX_DIMENSION + 1, 1}, {1, CF_MAX_DIMENSION + 1},
    {INT32_MAX, INT32_MAX}
  };
  uint8_t bytes[20] = { 0 };
  size_t i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    fail_unless_equals_int (cf_flo_write_header (bytes, 1, 1), CF_OK);
    put_le32 (bytes + 4, (uint32_t) sizes[i][0]);
    put_le32 (bytes + 8, (uint32_t) sizes[i][1]);
    decode_fails (bytes, sizeof (bytes), CF_ERROR_FORMAT, "bad size");
  }
}

GST_END_TEST;

GST_START_TEST (test_rejects_truncated_and_padded_data)
{
  uint8_t bytes[12 + 120 + 1];
  cf_flow *flow = make_pattern (3, 5);
  size_t n;

  fail_unless_equals_int (cf_flo_encode (flow, bytes, 12 + 120), CF_OK);
  bytes[132] = 0;
  decode_fails (bytes, 131, CF_ERROR_FORMAT,
      "truncated: expected 132 bytes, got 131");
  decode_fails (bytes, 12, CF_ERROR_FORMAT,
      "truncated: expected 132 bytes, got 12");
  decode_fails (bytes, 133, CF_ERROR_FORMAT,
      "trailing data: expected 132 bytes, got 133");
  /* less than a header */
  for (n = 0; n < 12; n++)
    decode_fails (bytes, n, CF_ERROR_FORMAT, "truncated");
  decode_fails (NULL, 0, CF_ERROR_FORMAT, "truncated");
  cf_flow_free (flow);
}

GST_END_TEST;

GST_START_TEST (test_decode_survives_random_garbage)
{
  uint8_t bytes[64];
  guint32 state = 12345;
  int round, i;

  for (round = 0; round < 2000; round++) {
    cf_flow *flow = NULL;
    size_t n = state % sizeof (bytes);
    cf_status st;

    for (i = 0; i < (int) sizeof (bytes); i++) {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      bytes[i] = (uint8_t) state;
    }
    /* half the time, a valid tag so the size checks are reached */
    if (round & 1) {
      cf_flo_write_header (bytes, 1, 1);
      bytes[4] = (uint8_t) (state >> 8);
    }
    st = cf_flo_decode (bytes, n, &flow, NULL);
    if (st == CF_OK) {
      fail_unless (flow != NULL);
      fail_unless_equals_int ((int) n, 12 + 8 * flow->width * flow->height);
      cf_flow_free (flow);
    } else {
      fail_unless_equals_int (st, CF_ERROR_FORMAT);
      fail_unless (flow == NULL);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_file_round_trip_in_temp_dir)
{
  gchar *dir = g_dir_make_tmp ("cf-flo-XXXXXX", NULL);
  gchar *path, *contents = NULL;
  gsize length = 0;
  cf_flow *flow = make_pattern (3, 5), *back = NULL;
  cf_error err = { "" };

  fail_unless (dir != NULL);
  path = g_build_filename (dir, "a.flo", NULL);
  fail_unless (cf_flo_write (path, flow, &err) == CF_OK, "%s", err.message);
  fail_unless (g_file_get_contents (path, &contents, &length, NULL));
  fail_unless_equals_int ((int) length, 132);
  fail_unless (memcmp (contents, "PIEH", 4) == 0);
  fail_unless (cf_flo_read (path, &back, &err) == CF_OK, "%s", err.message);
  assert_flows_identical (flow, back);
  cf_flow_free (back);
  back = NULL;

  /* the same file with one byte cut off, then one byte appended */
  fail_unless (g_file_set_contents (path, contents, 131, NULL));
  fail_unless_equals_int (cf_flo_read (path, &back, &err), CF_ERROR_FORMAT);
  fail_unless (back == NULL);
  fail_unless (strstr (err.message, "truncated: expected 132 bytes, got 131")
      != NULL, "%s", err.message);
  contents = g_realloc (contents, 133);
  contents[132] = 'x';
  fail_unless (g_file_set_contents (path, contents, 133, NULL));
  fail_unless_equals_int (cf_flo_read (path, &back, &err), CF_ERROR_FORMAT);
  fail_unless (strstr (err.message, "trailing data") != NULL, "%s",
      err.message);
  /* a bad header is reported with the path */
  contents[0] = 'X';
  fail_unless (g_file_set_contents (path, contents, 132, NULL));
  fail_unless_equals_int (cf_flo_read (path, &back, &err), CF_ERROR_FORMAT);
  fail_unless (strstr (err.message, "PIEH") != NULL, "%s", err.message);
  /* a huge size in a tiny file is refused without allocating */
  fail_unless_equals_int (cf_flo_write_header ((uint8_t *) contents,
          CF_MAX_DIMENSION, CF_MAX_DIMENSION), CF_OK);
  fail_unless (g_file_set_contents (path, contents, 132, NULL));
  fail_unless_equals_int (cf_flo_read (path, &back, &err), CF_ERROR_FORMAT);
  fail_unless (strstr (err.message, "truncated") != NULL, "%s", err.message);
  fail_unless (back == NULL);

  g_unlink (path);
  g_rmdir (dir);
  g_free (contents);
  g_free (path);
  g_free (dir);
  cf_flow_free (flow);
}

GST_END_TEST;

GST_START_TEST (test_unreadable_path_reports_path_and_reason)
{
  cf_flow *flow = (cf_flow *) 0x1;
  cf_flow *small = make_pattern (1, 1);
  cf_error err = { "" };
  const char *path = "/nonexistent-cudaflow-dir/none.flo";

  fail_unless_equals_int (cf_flo_read (path, &flow, &err), CF_ERROR_IO);
  fail_unless (flow == NULL);
  fail_unless (strstr (err.message, path) != NULL, "%s", err.message);
  fail_unless (strstr (err.message, "No such file or directory") != NULL,
      "%s", err.message);
  err.message[0] = '\0';
  fail_unless_equals_int (cf_flo_write (path, small, &err), CF_ERROR_IO);
  fail_unless (strstr (err.message, path) != NULL, "%s", err.message);
  fail_unless (strstr (err.message, "No such file or directory") != NULL,
      "%s", err.message);
  /* a directory is not a .flo */
  flow = NULL;
  fail_unless (cf_flo_read ("/", &flow, &err) != CF_OK);
  fail_unless (flow == NULL);
  fail_unless (strstr (err.message, "'/'") != NULL, "%s", err.message);
  cf_flow_free (small);
}

GST_END_TEST;

/* Per-sequence facts of the Middlebury ground truth (flow10.flo): size,
 * unknown pixels, and u/v ranges of the known ones rounded to 0.01. */
typedef struct
{
  const char *name;
  int width, height;
  long unknown;
  float u_min, u_max, v_min, v_max;
} sequence_facts;

static const sequence_facts middlebury[] = {
  {"Dimetrodon", 584, 388, 10772, -4.33f, -0.27f, -2.65f, 2.23f},
  {"Grove2", 640, 480, 0, -3.31f, -2.00f, -2.26f, 4.01f},
  {"Grove3", 640, 480, 0, -2.32f, 14.34f, -4.09f, 11.89f},
  {"Hydrangea", 584, 388, 14880, -7.02f, 11.01f, -3.20f, 2.35f},
  {"RubberWhale", 584, 388, 3622, -4.58f, 2.58f, -2.58f, 2.92f},
  {"Urban2", 640, 480, 0, -21.32f, 6.26f, -0.87f, 8.51f},
  {"Urban3", 640, 480, 0, -4.19f, 2.35f, -3.34f, 17.33f},
  {"Venus", 420, 380, 0, -9.38f, 7.00f, 0.0f, 0.0f},
};

GST_START_TEST (test_reads_middlebury_ground_truth_sizes_unknowns_ranges)
{
  const char *data = cf_test_data_dir ();
  size_t i;

  fail_unless (data != NULL, "CUDAFLOW_DATA_DIR not set");
  for (i = 0; i < G_N_ELEMENTS (middlebury); i++) {
    const sequence_facts *s = &middlebury[i];
    gchar *path = g_build_filename (data, "middlebury", s->name, "flow10.flo",
        NULL);
    cf_flow *flow = NULL;
    cf_error err = { "" };
    double u_min = INFINITY, u_max = -INFINITY;
    double v_min = INFINITY, v_max = -INFINITY;
    long unknown = 0;
    int x, y;

    fail_unless (cf_flo_read (path, &flow, &err) == CF_OK, "%s", err.message);
    fail_unless_equals_int (flow->width, s->width);
    fail_unless_equals_int (flow->height, s->height);
    for (y = 0; y < flow->height; y++)
      for (x = 0; x < flow->width; x++) {
        float u = flow->u[x + y * flow->pitch];
        float v = flow->v[x + y * flow->pitch];

        if (!cf_flow_is_known (u, v)) {
          unknown++;
          continue;
        }
        u_min = MIN (u_min, u);
        u_max = MAX (u_max, u);
        v_min = MIN (v_min, v);
        v_max = MAX (v_max, v);
      }
    fail_unless (unknown == s->unknown, "%s: %ld unknown pixels, expected %ld",
        s->name, unknown, s->unknown);
    /* the ranges above are rounded to 0.01 */
    fail_unless (fabs (u_min - s->u_min) <= 0.006, "%s u_min %f", s->name,
        u_min);
    fail_unless (fabs (u_max - s->u_max) <= 0.006, "%s u_max %f", s->name,
        u_max);
    fail_unless (fabs (v_min - s->v_min) <= 0.006, "%s v_min %f", s->name,
        v_min);
    fail_unless (fabs (v_max - s->v_max) <= 0.006, "%s v_max %f", s->name,
        v_max);
    if (strcmp (s->name, "Venus") == 0)
      fail_unless (v_min == 0.0 && v_max == 0.0, "Venus v is not all zero");
    cf_flow_free (flow);
    g_free (path);
  }
}

GST_END_TEST;

GST_START_TEST (test_middlebury_unknown_marker_is_1666666752)
{
  const char *data = cf_test_data_dir ();
  gchar *path;
  cf_flow *flow = NULL;
  long marked = 0;
  int i;

  fail_unless (data != NULL, "CUDAFLOW_DATA_DIR not set");
  path = g_build_filename (data, "middlebury", "Dimetrodon", "flow10.flo",
      NULL);
  fail_unless_equals_int (cf_flo_read (path, &flow, NULL), CF_OK);
  for (i = 0; i < flow->width * flow->height; i++)
    if (flow->u[i] == 1666666752.0f && flow->v[i] == 1666666752.0f)
      marked++;
  fail_unless_equals_int (marked, 10772);
  cf_flow_free (flow);
  g_free (path);
}

GST_END_TEST;

static Suite *
common_flo_suite (void)
{
  Suite *s = suite_create ("common_flo");
  TCase *tc = tcase_create ("general");
  TCase *data = tcase_create ("middlebury");

  cf_test_suite_add_tcase (s, tc, FALSE);
  tcase_add_test (tc, test_size_is_12_plus_8wh_and_0_when_out_of_range);
  tcase_add_test (tc, test_header_bytes_read_pieh_then_le_sizes);
  tcase_add_test (tc, test_encoded_values_are_little_endian_pairs);
  tcase_add_test (tc, test_round_trip_1x1_3x5_and_odd_sizes_is_bit_exact);
  tcase_add_test (tc, test_round_trip_keeps_unknown_and_nan_markers);
  tcase_add_test (tc, test_rejects_bad_tag);
  tcase_add_test (tc, test_rejects_zero_negative_and_huge_sizes);
  tcase_add_test (tc, test_rejects_truncated_and_padded_data);
  tcase_add_test (tc, test_decode_survives_random_garbage);
  tcase_add_test (tc, test_file_round_trip_in_temp_dir);
  tcase_add_test (tc, test_unreadable_path_reports_path_and_reason);

  /* in common/flo-data, which skips (77) without CUDAFLOW_DATA_DIR */
  cf_test_suite_add_tcase (s, data, TRUE);
  tcase_add_test (data,
      test_reads_middlebury_ground_truth_sizes_unknowns_ranges);
  tcase_add_test (data, test_middlebury_unknown_marker_is_1666666752);
  return s;
}

#ifdef CF_TEST_DATA_SUITE
int
main (int argc, char **argv)
{
  return cf_test_run_data_suite (argc, argv, "common_flo", common_flo_suite,
      FALSE);
}
#else
GST_CHECK_MAIN (common_flo);
#endif
