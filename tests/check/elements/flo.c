/* gst-cudaflow — floenc and flodec: .flo bytes in and out
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

static GstBuffer *
flow_buffer (int width, int height, guint32 state)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) width * height * 8,
      NULL);
  GstMapInfo map;
  float *f;
  int i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  f = (float *) map.data;
  for (i = 0; i < width * height * 2; i++) {
    state = state * 1664525u + 1013904223u;
    f[i] = ((state >> 8) % 20001) / 1000.0f - 10.0f;
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

static GstHarness *
enc_harness (int width, int height)
{
  GstHarness *h = gst_harness_new ("floenc");
  gchar *caps = g_strdup_printf ("video/x-optical-flow, format=UV_F32LE, "
      "width=%d, height=%d, framerate=30/1", width, height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

GST_START_TEST (test_floenc_writes_header_and_pairs)
{
  GstHarness *h = enc_harness (3, 2);
  GstBuffer *in = flow_buffer (3, 2, 7), *out;
  GstMapInfo in_map, out_map;
  gint32 w, hh;

  GST_BUFFER_PTS (in) = 5 * GST_SECOND;
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless_equals_int (gst_buffer_get_size (out), 12 + 3 * 2 * 8);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 5 * GST_SECOND);
  gst_buffer_map (out, &out_map, GST_MAP_READ);
  gst_buffer_map (in, &in_map, GST_MAP_READ);
  fail_unless (memcmp (out_map.data, "PIEH", 4) == 0);
  w = GST_READ_UINT32_LE (out_map.data + 4);
  hh = GST_READ_UINT32_LE (out_map.data + 8);
  fail_unless_equals_int (w, 3);
  fail_unless_equals_int (hh, 2);
  /* the payload is the interleaved pairs, little-endian like the input */
  fail_unless (memcmp (out_map.data + 12, in_map.data, 48) == 0);
  gst_buffer_unmap (in, &in_map);
  gst_buffer_unmap (out, &out_map);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_floenc_flodec_round_trip)
{
  GstHarness *h = gst_harness_new_parse ("floenc ! flodec");
  GstBuffer *in, *out;
  GstCaps *caps;
  GstStructure *s;
  gint w, hh;
  int i;

  gst_harness_set_src_caps_str (h, "video/x-optical-flow, format=UV_F32LE, "
      "width=17, height=5, framerate=30/1");
  for (i = 0; i < 3; i++) {
    in = flow_buffer (17, 5, 100 + i);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless_equals_int (gst_buffer_get_size (out), 17 * 5 * 8);
    {
      GstMapInfo m;
      gst_buffer_map (in, &m, GST_MAP_READ);
      fail_unless (gst_buffer_memcmp (out, 0, m.data, m.size) == 0);
      gst_buffer_unmap (in, &m);
    }
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  caps = gst_pad_get_current_caps (h->sinkpad);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, "video/x-optical-flow"));
  fail_unless (gst_structure_get_int (s, "width", &w) && w == 17);
  fail_unless (gst_structure_get_int (s, "height", &hh) && hh == 5);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flodec_reassembles_files_split_across_buffers)
{
  GstHarness *enc = enc_harness (4, 3);
  GstHarness *dec = gst_harness_new ("flodec");
  GstBuffer *in = flow_buffer (4, 3, 9), *bytes, *out;
  gsize size, cut;

  bytes = gst_harness_push_and_pull (enc, gst_buffer_ref (in));
  size = gst_buffer_get_size (bytes);
  gst_harness_set_src_caps_str (dec, "application/x-middlebury-flo");
  /* in three pieces: inside the header, inside the payload, the rest */
  cut = 7;
  fail_unless_equals_int (gst_harness_push (dec,
          gst_buffer_copy_region (bytes, GST_BUFFER_COPY_ALL, 0, cut)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (dec), 0);
  fail_unless_equals_int (gst_harness_push (dec,
          gst_buffer_copy_region (bytes, GST_BUFFER_COPY_ALL, cut, 30)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (dec), 0);
  fail_unless_equals_int (gst_harness_push (dec,
          gst_buffer_copy_region (bytes, GST_BUFFER_COPY_ALL, cut + 30,
              size - cut - 30)), GST_FLOW_OK);
  out = gst_harness_pull (dec);
  {
    GstMapInfo m;
    gst_buffer_map (in, &m, GST_MAP_READ);
    fail_unless (gst_buffer_memcmp (out, 0, m.data, m.size) == 0);
    gst_buffer_unmap (in, &m);
  }
  gst_buffer_unref (out);
  gst_buffer_unref (bytes);
  gst_buffer_unref (in);
  gst_harness_teardown (enc);
  gst_harness_teardown (dec);
}

GST_END_TEST;

GST_START_TEST (test_flodec_rejects_bad_tag_and_absurd_size)
{
  static const guint8 bad_tag[12] = { 'P', 'I', 'E', 'X', 2, 0, 0, 0, 2, 0,
    0, 0
  };
  static const guint8 huge[12] = { 'P', 'I', 'E', 'H', 0xff, 0xff, 0xff, 0x7f,
    2, 0, 0, 0
  };
  GstHarness *h;
  GstBuffer *buf;

  h = gst_harness_new ("flodec");
  gst_harness_set_src_caps_str (h, "application/x-middlebury-flo");
  buf = gst_buffer_new_memdup (bad_tag, sizeof (bad_tag));
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  gst_harness_teardown (h);

  h = gst_harness_new ("flodec");
  gst_harness_set_src_caps_str (h, "application/x-middlebury-flo");
  buf = gst_buffer_new_memdup (huge, sizeof (huge));
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_floenc_drops_gap_fields_unless_write_gaps)
{
  GstHarness *h = enc_harness (2, 2);
  GstBuffer *in, *out;
  guint8 zero[2 * 2 * 8] = { 0 };

  /* default: the GAP field of the first frame is not written */
  in = flow_buffer (2, 2, 1);
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_GAP);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  out = gst_harness_push_and_pull (h, flow_buffer (2, 2, 2));
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  gst_buffer_unref (out);

  /* write-gaps=true: written like any other field */
  g_object_set (h->element, "write-gaps", TRUE, NULL);
  in = flow_buffer (2, 2, 3);
  memset (zero, 0, sizeof (zero));
  gst_buffer_fill (in, 0, zero, sizeof (zero));
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_GAP);
  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_int (gst_buffer_get_size (out), 12 + sizeof (zero));
  fail_unless (gst_buffer_memcmp (out, 12, zero, sizeof (zero)) == 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_floenc_empty_buffers_dropped_or_zero_field)
{
  GstHarness *h = enc_harness (3, 2);
  guint8 zero[3 * 2 * 8] = { 0 };
  GstBuffer *in, *out;

  /* no memory at all, as fakesrc sizetype=empty makes them */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()),
      GST_FLOW_OK);
  in = gst_buffer_new ();
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_GAP);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);

  /* with write-gaps, an empty GAP buffer is a zero field */
  g_object_set (h->element, "write-gaps", TRUE, NULL);
  in = gst_buffer_new ();
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_GAP);
  GST_BUFFER_PTS (in) = GST_SECOND;
  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_int (gst_buffer_get_size (out), 12 + sizeof (zero));
  fail_unless (gst_buffer_memcmp (out, 0, "PIEH", 4) == 0);
  fail_unless (gst_buffer_memcmp (out, 12, zero, sizeof (zero)) == 0);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_SECOND);
  gst_buffer_unref (out);
  /* a real field still goes through */
  out = gst_harness_push_and_pull (h, flow_buffer (3, 2, 4));
  fail_unless_equals_int (gst_buffer_get_size (out), 12 + sizeof (zero));
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_floenc_output_caps_keep_the_frame_rate)
{
  GstHarness *h = enc_harness (2, 2);
  GstCaps *caps;
  gint n = 0, d = 0;

  gst_buffer_unref (gst_harness_push_and_pull (h, flow_buffer (2, 2, 1)));
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "application/x-middlebury-flo"));
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d));
  fail_unless (n == 30 && d == 1, "framerate %d/%d", n, d);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_files_written_by_multifilesink_replay)
{
  gchar *dir = g_dir_make_tmp ("cf-flo-XXXXXX", NULL);
  gchar *desc, *path;
  GError *error = NULL;
  GstElement *pipe;
  GstBus *bus;
  GstMessage *msg;
  gsize len;
  gchar *contents;

  desc = g_strdup_printf ("videotestsrc pattern=ball num-buffers=3 ! "
      "video/x-raw,width=64,height=48 ! cudaflowhs backend=cpu "
      "preset=realtime ! floenc ! multifilesink location=%s/f_%%05d.flo", dir);
  pipe = gst_parse_launch (desc, &error);
  fail_unless (pipe != NULL, "%s", error ? error->message : "");
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);

  /* three frames, two fields: the first frame's GAP field is not written */
  path = g_strdup_printf ("%s/f_00001.flo", dir);
  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  fail_unless_equals_int (len, 12 + 64 * 48 * 8);
  fail_unless (memcmp (contents, "PIEH", 4) == 0);
  g_free (contents);
  g_free (path);
  path = g_strdup_printf ("%s/f_00002.flo", dir);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);

  desc = g_strdup_printf ("multifilesrc location=%s/f_%%05d.flo "
      "caps=application/x-middlebury-flo,framerate=30/1 ! flodec ! "
      "flowviz backend=cpu ! fakesink", dir);
  pipe = gst_parse_launch (desc, &error);
  fail_unless (pipe != NULL);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (dir);
}

GST_END_TEST;

static Suite *
elements_flo_suite (void)
{
  Suite *s = suite_create ("flo");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_floenc_writes_header_and_pairs);
  tcase_add_test (tc, test_floenc_flodec_round_trip);
  tcase_add_test (tc, test_flodec_reassembles_files_split_across_buffers);
  tcase_add_test (tc, test_flodec_rejects_bad_tag_and_absurd_size);
  tcase_add_test (tc, test_floenc_drops_gap_fields_unless_write_gaps);
  tcase_add_test (tc, test_floenc_empty_buffers_dropped_or_zero_field);
  tcase_add_test (tc, test_floenc_output_caps_keep_the_frame_rate);
  tcase_add_test (tc, test_files_written_by_multifilesink_replay);
  return s;
}

GST_CHECK_MAIN (elements_flo);
