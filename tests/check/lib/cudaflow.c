/* gst-cudaflow — the installed library: caps info, host access, the meta
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything here runs without CUDA, as the library does: pitched CUDA
 * layouts are stood in for by system buffers of stride × height bytes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/cudaflow/cudaflow.h>

/* A flow buffer of @height rows of @stride bytes, vector (x, y) of value
 * (x + 0.5, -y), padding bytes 0xAB. */
static GstBuffer *
make_flow (gint width, gint height, gint stride)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) stride * height,
      NULL);
  GstMapInfo map;
  gint x, y;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  memset (map.data, 0xAB, map.size);
  for (y = 0; y < height; y++) {
    gfloat *row = (gfloat *) (map.data + (gsize) stride * y);
    for (x = 0; x < width; x++) {
      row[2 * x] = x + 0.5f;
      row[2 * x + 1] = -(gfloat) y;
    }
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

GST_START_TEST (test_info_from_caps)
{
  GstCudaFlowInfo info;
  GstCaps *caps;

  caps = gst_caps_from_string ("video/x-optical-flow, format=UV_F32LE, "
      "width=33, height=7, framerate=25/2");
  fail_unless (gst_cuda_flow_info_from_caps (&info, caps));
  fail_unless_equals_int (info.width, 33);
  fail_unless_equals_int (info.height, 7);
  fail_unless_equals_int (info.stride, 33 * 8);
  fail_unless_equals_int (info.fps_n, 25);
  fail_unless_equals_int (info.fps_d, 2);
  fail_if (info.is_cuda);
  gst_caps_unref (caps);

  /* CUDA memory: rows are pitched, each buffer says its stride */
  caps = gst_caps_from_string ("video/x-optical-flow(memory:CUDAMemory), "
      "format=UV_F32LE, width=640, height=480");
  fail_unless (gst_cuda_flow_info_from_caps (&info, caps));
  fail_unless (info.is_cuda);
  fail_unless_equals_int (info.stride, 0);
  fail_unless_equals_int (info.fps_n, 0);
  fail_unless_equals_int (info.fps_d, 1);
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_info_rejects_other_caps)
{
  const gchar *bad[] = {
    "video/x-raw, format=GRAY8, width=4, height=4",
    "video/x-optical-flow, format=UV_F16LE, width=4, height=4",
    "video/x-optical-flow, format=UV_F32LE, width=4",
    "video/x-optical-flow, format=UV_F32LE, width=0, height=4",
    "video/x-optical-flow, format=UV_F32LE, width=[1, 8], height=4",
    "video/x-optical-flow, format=UV_F32LE, width=4, height=4; "
        "video/x-optical-flow, format=UV_F32LE, width=8, height=8",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstCaps *caps = gst_caps_from_string (bad[i]);
    GstCudaFlowInfo info;

    memset (&info, 0x5A, sizeof (info));
    fail_if (gst_cuda_flow_info_from_caps (&info, caps), "%s", bad[i]);
    fail_unless_equals_int (info.width, 0);
    fail_unless_equals_int (info.stride, 0);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

GST_START_TEST (test_frame_map_stride)
{
  GstBuffer *packed = make_flow (5, 3, 5 * 8);
  GstBuffer *pitched = make_flow (5, 3, 64);
  GstCudaFlowFrame frame;
  const gfloat *row;

  /* stride 0: from the size (packed here) */
  fail_unless (gst_cuda_flow_frame_map (&frame, packed, 5, 3, 0));
  fail_unless_equals_int (frame.stride, 40);
  row = (const gfloat *) (frame.data + 2 * frame.stride);
  fail_unless (row[2 * 4] == 4.5f && row[2 * 4 + 1] == -2.0f);
  gst_cuda_flow_frame_unmap (&frame);

  /* pitched rows, stride read from the size or given */
  fail_unless (gst_cuda_flow_frame_map (&frame, pitched, 5, 3, 0));
  fail_unless_equals_int (frame.stride, 64);
  row = (const gfloat *) (frame.data + 1 * frame.stride);
  fail_unless (row[0] == 0.5f && row[1] == -1.0f);
  gst_cuda_flow_frame_unmap (&frame);
  fail_unless (gst_cuda_flow_frame_map (&frame, pitched, 5, 3, 64));
  gst_cuda_flow_frame_unmap (&frame);
  /* unmapping twice is harmless */
  gst_cuda_flow_frame_unmap (&frame);

  /* a buffer too small for the size, or a stride below the row */
  fail_if (gst_cuda_flow_frame_map (&frame, packed, 6, 3, 0));
  fail_if (gst_cuda_flow_frame_map (&frame, packed, 5, 4, 40));
  fail_if (gst_cuda_flow_frame_map (&frame, pitched, 5, 3, 32));
  fail_unless (frame.data == NULL);

  gst_buffer_unref (packed);
  gst_buffer_unref (pitched);
}

GST_END_TEST;

GST_START_TEST (test_read_packed)
{
  GstBuffer *pitched = make_flow (3, 4, 40);
  GBytes *bytes = gst_cuda_flow_buffer_read_packed (pitched, 3, 4, 0);
  const gfloat *v;
  gsize size;
  gint x, y;

  fail_unless (bytes != NULL);
  v = g_bytes_get_data (bytes, &size);
  fail_unless_equals_uint64 (size, 3 * 4 * 8);
  for (y = 0; y < 4; y++)
    for (x = 0; x < 3; x++) {
      fail_unless (v[(y * 3 + x) * 2] == x + 0.5f);
      fail_unless (v[(y * 3 + x) * 2 + 1] == -(gfloat) y);
    }
  g_bytes_unref (bytes);

  fail_unless (gst_cuda_flow_buffer_read_packed (pitched, 6, 4, 40) == NULL);
  gst_buffer_unref (pitched);
}

GST_END_TEST;

static void
flow_freed (gpointer data, GstMiniObject * where)
{
  *(gboolean *) data = TRUE;
}

GST_START_TEST (test_meta_fields_and_lifetime)
{
  GstBuffer *video = gst_buffer_new_allocate (NULL, 16, NULL);
  GstBuffer *flow = make_flow (4, 2, 48);
  gboolean freed = FALSE;
  GstCudaFlowMeta *meta;
  GBytes *bytes;

  gst_mini_object_weak_ref (GST_MINI_OBJECT (flow), flow_freed, &freed);
  fail_unless (gst_buffer_get_cuda_flow_meta (video) == NULL);
  meta = gst_buffer_add_cuda_flow_meta (video, flow, 4, 2, 48, 10 * GST_MSECOND,
      20 * GST_MSECOND, TRUE, GST_CUDA_FLOW_METHOD_TV_L1);
  fail_unless (meta != NULL);
  gst_buffer_unref (flow);      /* the meta holds its own reference */

  meta = gst_buffer_get_cuda_flow_meta (video);
  fail_unless (meta != NULL && meta->flow == flow);
  fail_unless_equals_int (meta->width, 4);
  fail_unless_equals_int (meta->height, 2);
  fail_unless_equals_int (meta->stride, 48);
  fail_unless_equals_uint64 (meta->prev_pts, 10 * GST_MSECOND);
  fail_unless_equals_uint64 (meta->pts, 20 * GST_MSECOND);
  fail_unless (meta->valid);
  fail_unless_equals_int (meta->method, GST_CUDA_FLOW_METHOD_TV_L1);

  bytes = gst_cuda_flow_meta_read_packed (meta);
  fail_unless_equals_uint64 (g_bytes_get_size (bytes), 4 * 2 * 8);
  fail_unless (((const gfloat *) g_bytes_get_data (bytes, NULL))[2 * 7] ==
      3.5f);
  g_bytes_unref (bytes);

  fail_if (freed);
  gst_buffer_unref (video);
  fail_unless (freed);
}

GST_END_TEST;

GST_START_TEST (test_meta_kept_by_copies_dropped_by_regions)
{
  GstBuffer *video = gst_buffer_new_allocate (NULL, 64, NULL);
  GstBuffer *flow = make_flow (2, 2, 16);
  GstBuffer *copy, *part;
  GstCudaFlowMeta *meta;

  gst_buffer_add_cuda_flow_meta (video, flow, 2, 2, 16, GST_CLOCK_TIME_NONE,
      0, FALSE, GST_CUDA_FLOW_METHOD_CLG);

  /* a whole copy (tee, make_writable) shares the field */
  copy = gst_buffer_copy (video);
  meta = gst_buffer_get_cuda_flow_meta (copy);
  fail_unless (meta != NULL && meta->flow == flow);
  fail_if (meta->valid);
  fail_unless_equals_uint64 (meta->prev_pts, GST_CLOCK_TIME_NONE);
  fail_unless_equals_int (meta->method, GST_CUDA_FLOW_METHOD_CLG);
  gst_buffer_unref (copy);

  /* part of a frame no longer matches the field */
  part = gst_buffer_copy_region (video, GST_BUFFER_COPY_ALL, 0, 32);
  fail_unless (gst_buffer_get_cuda_flow_meta (part) == NULL);
  gst_buffer_unref (part);

  fail_unless (gst_meta_api_type_has_tag (GST_CUDA_FLOW_META_API_TYPE,
          g_quark_from_string ("size")));
  gst_buffer_unref (flow);
  gst_buffer_unref (video);
}

GST_END_TEST;

GST_START_TEST (test_method_enum)
{
  GEnumClass *klass = g_type_class_ref (GST_TYPE_CUDA_FLOW_METHOD);

  fail_unless_equals_string (g_enum_get_value (klass,
          GST_CUDA_FLOW_METHOD_HORN_SCHUNCK)->value_nick, "horn-schunck");
  fail_unless_equals_string (g_enum_get_value (klass,
          GST_CUDA_FLOW_METHOD_TV_L1)->value_nick, "tv-l1");
  g_type_class_unref (klass);
}

GST_END_TEST;

static Suite *
cudaflow_lib_suite (void)
{
  Suite *s = suite_create ("lib/cudaflow");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_info_from_caps);
  tcase_add_test (tc, test_info_rejects_other_caps);
  tcase_add_test (tc, test_frame_map_stride);
  tcase_add_test (tc, test_read_packed);
  tcase_add_test (tc, test_meta_fields_and_lifetime);
  tcase_add_test (tc, test_meta_kept_by_copies_dropped_by_regions);
  tcase_add_test (tc, test_method_enum);
  return s;
}

GST_CHECK_MAIN (cudaflow_lib);
