/* gst-cudaflow — floenc, flodec and the .flo typefinder
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * floenc writes one .flo per field and drops GAP fields unless asked;
 * flodec reads one file per buffer (multifilesrc) or a byte stream
 * (filesrc), names the file that is too short or too long, and times
 * untimed input from the caps frame rate; the typefinder lets filesrc !
 * decodebin find flodec. Empty buffers pass through both cleanly.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gsttypefindhelper.h>
#include <glib/gstdio.h>

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

/* The bytes of a .flo holding flow_buffer (width, height, state). */
static guint8 *
flo_bytes (int width, int height, guint32 state, gsize * size)
{
  GstBuffer *field = flow_buffer (width, height, state);
  guint8 *bytes;

  *size = 12 + (gsize) width * height * 8;
  bytes = g_malloc (*size);
  memcpy (bytes, "PIEH", 4);
  GST_WRITE_UINT32_LE (bytes + 4, width);
  GST_WRITE_UINT32_LE (bytes + 8, height);
  gst_buffer_extract (field, 0, bytes + 12, *size - 12);
  gst_buffer_unref (field);
  return bytes;
}

/* Writes n_files 4x3 .flo files (108 bytes each) as dir/f_%05d.flo; file
 * i keeps keep[i] bytes (0: all) and gains extra[i] bytes 'x'. */
static gchar *
write_flo_files (guint n_files, const gsize * keep, const gsize * extra)
{
  gchar *dir = g_dir_make_tmp ("cf-flo-XXXXXX", NULL);
  guint i;

  fail_unless (dir != NULL);
  for (i = 0; i < n_files; i++) {
    gsize size, n;
    guint8 *bytes = flo_bytes (4, 3, i, &size);
    gchar *path = g_strdup_printf ("%s/f_%05u.flo", dir, i);

    n = keep != NULL && keep[i] > 0 ? keep[i] : size;
    if (extra != NULL && extra[i] > 0) {
      bytes = g_realloc (bytes, n + extra[i]);
      memset (bytes + n, 'x', extra[i]);
      n += extra[i];
    }
    fail_unless (g_file_set_contents (path, (gchar *) bytes, n, NULL));
    g_free (path);
    g_free (bytes);
  }
  return dir;
}

static void
remove_dir (gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while ((name = g_dir_read_name (d)) != NULL) {
    gchar *path = g_build_filename (dir, name, NULL);
    g_unlink (path);
    g_free (path);
  }
  g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
}

typedef struct
{
  guint n_buffers;
  GstClockTime pts[16];
  GstClockTime duration[16];
} SinkLog;

static GstPadProbeReturn
log_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SinkLog *log = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  if (log->n_buffers < G_N_ELEMENTS (log->pts)) {
    log->pts[log->n_buffers] = GST_BUFFER_PTS (buf);
    log->duration[log->n_buffers] = GST_BUFFER_DURATION (buf);
  }
  log->n_buffers++;
  return GST_PAD_PROBE_OK;
}

/* Runs desc (with a sink named "sink") to EOS or error. Returns the error
 * message or NULL; logs the buffers reaching the sink, and its caps. */
static gchar *
run_pipeline (const gchar * desc, SinkLog * log, GstCaps ** caps)
{
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  gchar *message = NULL;

  fail_unless (pipe != NULL && error == NULL, "%s: %s", desc,
      error ? error->message : "");
  memset (log, 0, sizeof (*log));
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, log_buffer, log, NULL);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: timed out", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    message = g_strdup (error->message);
    g_clear_error (&error);
  }
  gst_message_unref (msg);
  if (caps != NULL)
    *caps = gst_pad_get_current_caps (pad);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return message;
}

/* Replays dir/f_%05d.flo through multifilesrc ! flodec. */
static gchar *
replay_files (const gchar * dir, const gchar * flodec_props, SinkLog * log)
{
  gchar *desc = g_strdup_printf ("multifilesrc location=%s/f_%%05d.flo "
      "caps=application/x-middlebury-flo,framerate=30/1 ! flodec %s ! "
      "fakesink name=sink sync=false", dir, flodec_props);
  gchar *message = run_pipeline (desc, log, NULL);

  g_free (desc);
  return message;
}

#define assert_message(message, expected) \
  fail_unless ((message) != NULL && strstr ((message), (expected)) != NULL, \
      "error '%s', expected '%s'", (message) ? (message) : "(none)", \
      (expected))

/* Replays @n_files .flo files (write_flo_files: @keep, @extra) through
 * multifilesrc ! flodec @flodec_props: fails unless the stream stops with
 * an error naming @expected after @n_buffers fields. */
static void
assert_replay_error (guint n_files, const gsize * keep, const gsize * extra,
    const gchar * flodec_props, const gchar * expected, guint n_buffers)
{
  gchar *dir = write_flo_files (n_files, keep, extra);
  SinkLog log;
  gchar *message = replay_files (dir, flodec_props, &log);

  assert_message (message, expected);
  fail_unless_equals_int (log.n_buffers, n_buffers);
  g_free (message);
  remove_dir (dir);
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
      "preset=romera ! floenc ! multifilesink location=%s/f_%%05d.flo", dir);
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

GST_START_TEST (test_multifilesrc_truncated_file_is_named_not_stitched)
{
  static const gsize keep[4] = { 0, 0, 50, 0 };
  gchar *dir = write_flo_files (4, keep, NULL);
  SinkLog log;
  gchar *message = replay_files (dir, "", &log);

  /* files 0 and 1 play, file 2 is reported, nothing is stitched */
  assert_message (message, "file 2: expected 108 bytes, got 50");
  fail_unless_equals_int (log.n_buffers, 2);
  g_free (message);
  remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_multifilesrc_truncated_first_file_is_named)
{
  static const gsize keep[2] = { 50, 0 };

  assert_replay_error (2, keep, NULL,
      "", "file 0: expected 108 bytes, got 50", 0);
}

GST_END_TEST;

GST_START_TEST (test_multifilesrc_over_long_file_is_named)
{
  static const gsize extra_second[3] = { 0, 5, 0 };
  static const gsize extra_first[2] = { 5, 0 };

  assert_replay_error (3, NULL, extra_second,
      "", "file 1: expected 108 bytes, got 113", 1);

  /* the first file decides the framing: a stream then, same verdict */
  assert_replay_error (2, NULL, extra_first,
      "", "file 0: expected 108 bytes, got 113", 0);
}

GST_END_TEST;

GST_START_TEST (test_multifilesrc_last_file_truncated_at_eos)
{
  static const gsize keep[2] = { 50, 0 };
  static const gsize keep_last[3] = { 0, 0, 50 };

  assert_replay_error (3, keep_last, NULL,
      "framing=stream", "file 2: expected 108 bytes, got 50", 2);

  /* framing=buffer: the first file is judged on its own */
  assert_replay_error (2, keep, NULL,
      "framing=buffer", "file 0: expected 108 bytes, got 50", 0);
}

GST_END_TEST;

GST_START_TEST (test_filesrc_concatenated_files_in_any_chunking)
{
  static const guint blocksizes[] = { 1, 7, 12, 108, 109, 4096 };
  gchar *dir = g_dir_make_tmp ("cf-flo-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "three.flo", NULL);
  GString *stream = g_string_new (NULL);
  guint i;

  for (i = 0; i < 3; i++) {
    gsize size;
    guint8 *bytes = flo_bytes (4, 3, i, &size);
    g_string_append_len (stream, (gchar *) bytes, size);
    g_free (bytes);
  }
  fail_unless (g_file_set_contents (path, stream->str, stream->len, NULL));
  for (i = 0; i < G_N_ELEMENTS (blocksizes); i++) {
    gchar *desc = g_strdup_printf ("filesrc location=%s blocksize=%u ! "
        "flodec ! fakesink name=sink sync=false", path, blocksizes[i]);
    SinkLog log;
    gchar *message = run_pipeline (desc, &log, NULL);

    fail_unless (message == NULL, "blocksize %u: %s", blocksizes[i],
        message);
    fail_unless (log.n_buffers == 3, "blocksize %u: %u fields",
        blocksizes[i], log.n_buffers);
    g_free (desc);
  }
  g_string_free (stream, TRUE);
  g_unlink (path);
  g_free (path);
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

GST_START_TEST (test_filesrc_concatenated_file_cut_short_is_named)
{
  gchar *dir = g_dir_make_tmp ("cf-flo-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "three.flo", NULL);
  GString *stream = g_string_new (NULL);
  gchar *desc, *message;
  SinkLog log;
  guint i;

  /* file 1 loses its last 20 bytes */
  for (i = 0; i < 3; i++) {
    gsize size;
    guint8 *bytes = flo_bytes (4, 3, i, &size);
    g_string_append_len (stream, (gchar *) bytes, i == 1 ? size - 20 : size);
    g_free (bytes);
  }
  fail_unless (g_file_set_contents (path, stream->str, stream->len, NULL));
  desc = g_strdup_printf ("filesrc location=%s ! flodec ! "
      "fakesink name=sink sync=false", path);
  message = run_pipeline (desc, &log, NULL);
  assert_message (message,
      "file 1: expected 108 bytes, but what follows is not another .flo");
  fail_unless_equals_int (log.n_buffers, 1);
  g_free (message);
  g_free (desc);
  g_string_free (stream, TRUE);
  g_unlink (path);
  g_free (path);
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

/* Three whole files, no timestamps, into a harnessed flodec. */
static void
push_untimed_files (GstHarness * h)
{
  guint i;

  for (i = 0; i < 3; i++) {
    gsize size;
    guint8 *bytes = flo_bytes (4, 3, i, &size);
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_new_wrapped (bytes, size)), GST_FLOW_OK);
  }
}

GST_START_TEST (test_flodec_times_untimed_files_from_the_caps_frame_rate)
{
  GstHarness *h = gst_harness_new ("flodec");
  guint i;

  gst_harness_set_src_caps_str (h,
      "application/x-middlebury-flo, framerate=30/1");
  push_untimed_files (h);
  for (i = 0; i < 3; i++) {
    GstBuffer *out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
        gst_util_uint64_scale (i, GST_SECOND, 30));
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
        gst_util_uint64_scale (i + 1, GST_SECOND, 30) -
        gst_util_uint64_scale (i, GST_SECOND, 30));
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);

  /* without a frame rate, untimed stays untimed */
  h = gst_harness_new ("flodec");
  gst_harness_set_src_caps_str (h, "application/x-middlebury-flo");
  push_untimed_files (h);
  for (i = 0; i < 3; i++) {
    GstBuffer *out = gst_harness_pull (h);
    fail_if (GST_BUFFER_PTS_IS_VALID (out));
    fail_if (GST_BUFFER_DURATION_IS_VALID (out));
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flodec_keeps_input_timestamps)
{
  GstHarness *h = gst_harness_new ("flodec");
  gsize size;
  guint8 *bytes;
  GstBuffer *in, *out;

  gst_harness_set_src_caps_str (h,
      "application/x-middlebury-flo, framerate=10/1");
  bytes = flo_bytes (2, 2, 1, &size);
  in = gst_buffer_new_wrapped (bytes, size);
  GST_BUFFER_PTS (in) = 5 * GST_SECOND;
  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 5 * GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), GST_SECOND / 10);
  gst_buffer_unref (out);
  /* the next untimed file follows one frame later */
  bytes = flo_bytes (2, 2, 2, &size);
  out = gst_harness_push_and_pull (h, gst_buffer_new_wrapped (bytes, size));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
      5 * GST_SECOND + GST_SECOND / 10);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_replay_at_30_fps_spans_two_seconds_for_60_files)
{
  gchar *dir = write_flo_files (16, NULL, NULL);
  SinkLog log;
  gchar *message = replay_files (dir, "", &log);

  fail_unless (message == NULL, "%s", message);
  fail_unless_equals_int (log.n_buffers, 16);
  /* 60 files would end at 2 s: file 15 starts at 0.5 s */
  fail_unless_equals_uint64 (log.pts[15], GST_SECOND / 2);
  fail_unless_equals_uint64 (log.pts[1], gst_util_uint64_scale (1,
          GST_SECOND, 30));
  remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_flodec_drops_empty_buffers)
{
  GstHarness *h = gst_harness_new ("flodec");
  gsize size;
  guint8 *bytes = flo_bytes (3, 2, 5, &size);
  GstBuffer *gap = gst_buffer_new ();
  GstBuffer *out;

  gst_harness_set_src_caps_str (h, "application/x-middlebury-flo");
  GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
  fail_unless_equals_int (gst_harness_push (h, gap), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  /* an empty buffer inside a file neither splits nor ends it */
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_memdup (bytes, 20)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()),
      GST_FLOW_OK);
  out = gst_harness_push_and_pull (h, gst_buffer_new_memdup (bytes + 20,
          size - 20));
  fail_unless (gst_buffer_memcmp (out, 0, bytes + 12, size - 12) == 0);
  gst_buffer_unref (out);
  g_free (bytes);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_typefinder_grades_flo_data)
{
  gsize size;
  guint8 *bytes = flo_bytes (4, 3, 1, &size);
  guint8 *three = g_malloc (3 * size);
  GstTypeFindProbability prob = 0;
  GstTypeFindFactory *factory;
  const gchar *const *extensions;
  GstCaps *caps;

  /* one field; data alone has no known length, a file has (below) */
  caps = gst_type_find_helper_for_data (NULL, bytes, size, &prob);
  fail_unless (caps != NULL);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "application/x-middlebury-flo"));
  fail_unless_equals_int (prob, GST_TYPE_FIND_LIKELY);
  gst_caps_unref (caps);

  /* concatenated fields */
  memcpy (three, bytes, size);
  memcpy (three + size, bytes, size);
  memcpy (three + 2 * size, bytes, size);
  caps = gst_type_find_helper_for_data (NULL, three, 3 * size, &prob);
  fail_unless (caps != NULL);
  fail_unless_equals_int (prob, GST_TYPE_FIND_NEARLY_CERTAIN);
  gst_caps_unref (caps);

  /* cut short: without a length, it looks like the start of a stream */
  caps = gst_type_find_helper_for_data (NULL, bytes, 50, &prob);
  fail_unless (caps != NULL);
  fail_unless_equals_int (prob, GST_TYPE_FIND_LIKELY);
  gst_caps_unref (caps);

  /* a bad tag or an implausible size is not a .flo */
  GST_WRITE_UINT32_LE (bytes + 4, 0);
  caps = gst_type_find_helper_for_data (NULL, bytes, size, &prob);
  fail_unless (caps == NULL || !gst_structure_has_name
      (gst_caps_get_structure (caps, 0), "application/x-middlebury-flo"));
  gst_clear_caps (&caps);
  GST_WRITE_UINT32_LE (bytes + 4, 4);
  bytes[3] = 'X';
  caps = gst_type_find_helper_for_data (NULL, bytes, size, &prob);
  fail_unless (caps == NULL || !gst_structure_has_name
      (gst_caps_get_structure (caps, 0), "application/x-middlebury-flo"));
  gst_clear_caps (&caps);

  /* the factory: extension and caps */
  factory = GST_TYPE_FIND_FACTORY (gst_registry_find_feature
      (gst_registry_get (), "application/x-middlebury-flo",
          GST_TYPE_TYPE_FIND_FACTORY));
  fail_unless (factory != NULL);
  extensions = gst_type_find_factory_get_extensions (factory);
  fail_unless (extensions != NULL && g_strcmp0 (extensions[0], "flo") == 0);
  caps = gst_caps_from_string ("application/x-middlebury-flo");
  fail_unless (gst_caps_is_equal (gst_type_find_factory_get_caps (factory),
          caps));
  gst_caps_unref (caps);
  gst_object_unref (factory);
  g_free (three);
  g_free (bytes);
}

GST_END_TEST;

static void
have_type (GstElement * typefind, guint probability, GstCaps * caps,
    gpointer user_data)
{
  *(guint *) user_data = probability;
}

/* The probability typefind gives dir/name read by filesrc (length known). */
static guint
typefind_file (const gchar * dir, const gchar * name)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s/%s ! typefind name=tf "
      "! fakesink name=sink", dir, name);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *tf = gst_bin_get_by_name (GST_BIN (pipe), "tf");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  guint probability = 0;

  g_signal_connect (tf, "have-type", G_CALLBACK (have_type), &probability);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (tf);
  gst_object_unref (pipe);
  g_free (desc);
  return probability;
}

GST_START_TEST (test_typefinder_is_certain_of_a_whole_file)
{
  static const gsize keep[3] = { 0, 50, 0 };
  static const gsize extra[3] = { 0, 0, 5 };
  gchar *dir = write_flo_files (3, keep, extra);
  gchar *path = g_build_filename (dir, "three.flo", NULL);
  GString *stream = g_string_new (NULL);
  guint i;

  for (i = 0; i < 3; i++) {
    gsize size;
    guint8 *bytes = flo_bytes (4, 3, i, &size);
    g_string_append_len (stream, (gchar *) bytes, size);
    g_free (bytes);
  }
  fail_unless (g_file_set_contents (path, stream->str, stream->len, NULL));
  g_string_free (stream, TRUE);
  g_free (path);

  fail_unless_equals_int (typefind_file (dir, "f_00000.flo"),
      GST_TYPE_FIND_MAXIMUM);
  fail_unless_equals_int (typefind_file (dir, "three.flo"),
      GST_TYPE_FIND_NEARLY_CERTAIN);
  /* truncated, over-long */
  fail_unless_equals_int (typefind_file (dir, "f_00001.flo"),
      GST_TYPE_FIND_POSSIBLE);
  fail_unless_equals_int (typefind_file (dir, "f_00002.flo"),
      GST_TYPE_FIND_POSSIBLE);
  remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_filesrc_typefind_and_decodebin_give_flow_caps)
{
  gchar *dir = write_flo_files (1, NULL, NULL);
  gchar *desc;
  SinkLog log;
  GstCaps *caps = NULL;
  gchar *message;
  gint w = 0, h = 0;

  desc = g_strdup_printf ("filesrc location=%s/f_00000.flo ! typefind ! "
      "fakesink name=sink", dir);
  message = run_pipeline (desc, &log, &caps);
  fail_unless (message == NULL, "%s", message);
  fail_unless (caps != NULL && gst_caps_get_size (caps) == 1);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "application/x-middlebury-flo"), "%" GST_PTR_FORMAT, caps);
  gst_clear_caps (&caps);
  g_free (desc);

  /* decodebin stops at raw media unless asked for flow */
  desc = g_strdup_printf ("filesrc location=%s/f_00000.flo ! "
      "decodebin caps=video/x-optical-flow ! fakesink name=sink", dir);
  message = run_pipeline (desc, &log, &caps);
  fail_unless (message == NULL, "%s", message);
  fail_unless_equals_int (log.n_buffers, 1);
  fail_unless (caps != NULL);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "video/x-optical-flow"));
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "width", &w) && w == 4);
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "height", &h) && h == 3);
  gst_caps_unref (caps);
  g_free (desc);
  remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_flodec_is_a_ranked_decoder)
{
  GstElementFactory *f = gst_element_factory_find ("flodec");

  fail_unless (f != NULL);
  fail_unless (gst_element_factory_list_is_type (f,
          GST_ELEMENT_FACTORY_TYPE_DECODER));
  fail_unless (gst_plugin_feature_get_rank (GST_PLUGIN_FEATURE (f)) >=
      GST_RANK_MARGINAL);
  gst_object_unref (f);
}

GST_END_TEST;

GST_START_TEST (test_flodec_framing_buffer_refuses_two_files_in_one)
{
  GstHarness *h = gst_harness_new ("flodec");
  gsize size;
  guint8 *bytes = flo_bytes (4, 3, 1, &size);
  guint8 *two = g_malloc (2 * size);

  memcpy (two, bytes, size);
  memcpy (two + size, bytes, size);
  g_object_set (h->element, "framing", 2 /* buffer */ , NULL);
  gst_harness_set_src_caps_str (h, "application/x-middlebury-flo");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_wrapped (two, 2 * size)), GST_FLOW_ERROR);
  gst_harness_teardown (h);

  /* framing=stream reads the same buffer as two files */
  h = gst_harness_new ("flodec");
  g_object_set (h->element, "framing", 1 /* stream */ , NULL);
  gst_harness_set_src_caps_str (h, "application/x-middlebury-flo");
  two = g_malloc (2 * size);
  memcpy (two, bytes, size);
  memcpy (two + size, bytes, size);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_wrapped (two, 2 * size)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 2);
  gst_harness_teardown (h);
  g_free (bytes);
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
  tcase_add_test (tc, test_multifilesrc_truncated_file_is_named_not_stitched);
  tcase_add_test (tc, test_multifilesrc_truncated_first_file_is_named);
  tcase_add_test (tc, test_multifilesrc_over_long_file_is_named);
  tcase_add_test (tc, test_multifilesrc_last_file_truncated_at_eos);
  tcase_add_test (tc, test_filesrc_concatenated_files_in_any_chunking);
  tcase_add_test (tc, test_filesrc_concatenated_file_cut_short_is_named);
  tcase_add_test (tc, test_flodec_times_untimed_files_from_the_caps_frame_rate);
  tcase_add_test (tc, test_flodec_keeps_input_timestamps);
  tcase_add_test (tc, test_replay_at_30_fps_spans_two_seconds_for_60_files);
  tcase_add_test (tc, test_flodec_drops_empty_buffers);
  tcase_add_test (tc, test_typefinder_grades_flo_data);
  tcase_add_test (tc, test_typefinder_is_certain_of_a_whole_file);
  tcase_add_test (tc, test_filesrc_typefind_and_decodebin_give_flow_caps);
  tcase_add_test (tc, test_flodec_is_a_ranked_decoder);
  tcase_add_test (tc, test_flodec_framing_buffer_refuses_two_files_in_one);
  return s;
}

GST_CHECK_MAIN (elements_flo);
