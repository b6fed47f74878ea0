/* gst-cudaflow — helpers shared by the test suites
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cf-test-util.h"
#include "common/median.h"
#include "common/tvl1.h"

#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/metrics.h"
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

int
cf_test_run_data_suite (int argc, char **argv, const char *name,
    Suite * (*make_suite) (void), gboolean gpu)
{
  const char *dir = cf_test_data_dir ();
  gchar *middlebury = NULL;
  gboolean found;
  Suite *suite;

  if (dir != NULL)
    middlebury = g_build_filename (dir, "middlebury", NULL);
  found = middlebury != NULL && g_file_test (middlebury, G_FILE_TEST_IS_DIR);
  g_free (middlebury);
  if (!found) {
    const char *env = g_getenv ("CUDAFLOW_DATA_DIR");

    printf ("SKIP: no data (CUDAFLOW_DATA_DIR): no middlebury/ in '%s'\n",
        env != NULL ? env : "");
    return CF_TEST_SKIP;
  }
  if (gpu)
    return cf_test_run_gpu_suite (argc, argv, name, make_suite);
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

cf_image *
cf_test_random_image (int width, int height, guint32 seed, float lo, float hi)
{
  cf_image *img = cf_image_new (width, height);

  fail_unless (img != NULL);
  cf_test_fill_random (img, seed, lo, hi);
  return img;
}

cf_flow *
cf_test_random_flow (int width, int height, guint32 seed, float lo, float hi)
{
  cf_flow *flow = cf_flow_new (width, height);
  cf_image u, v;

  fail_unless (flow != NULL);
  u = cf_image_view (flow->u, width, height, flow->pitch);
  v = cf_image_view (flow->v, width, height, flow->pitch);
  cf_test_fill_random (&u, seed, lo, hi);
  cf_test_fill_random (&v, seed * 7919u + 1u, lo, hi);
  return flow;
}

cf_flow *
cf_test_few_values_flow (int width, int height, guint32 seed)
{
  static const float values[] = { -2.5f, -1.0f, -0.0f, 0.0f, 1.0f, 2.0f };
  cf_flow *f = cf_flow_new (width, height);
  guint32 s = seed * 2654435761u + 1u;
  int x, y;

  fail_unless (f != NULL);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      f->u[x + (size_t) y * f->pitch] = values[s % G_N_ELEMENTS (values)];
      f->v[x + (size_t) y * f->pitch] =
          values[(s >> 8) % G_N_ELEMENTS (values)];
    }
  return f;
}

cf_image *
cf_test_plateau_image (int width, int height)
{
  cf_image *g = cf_image_new (width, height);
  int x, y;

  fail_unless (g != NULL);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      g->data[x + (size_t) y * g->pitch] =
          (float) (30 * (((x / 8) * 7 + (y / 8) * 3) % 4));
  return g;
}

void
cf_test_weighted_median_cases (int width, int height, guint32 seed,
    cf_test_wmedian_check check)
{
  cf_flow *smooth = cf_test_random_flow (width, height, 7u + seed, -40.0f,
      40.0f);
  cf_flow *ties = cf_test_few_values_flow (width, height, 11u + seed);
  cf_image *noise = cf_test_random_image (width, height, 13u + seed, 0.0f,
      255.0f);
  cf_image *plateaus = cf_test_plateau_image (width, height);
  gchar *what = g_strdup_printf ("%dx%d", width, height);
  int size;

  for (size = CF_WMEDIAN_SIZE_MIN; size <= CF_WMEDIAN_SIZE_MAX; size += 2) {
    check (smooth, noise, size, 10.0f, what);
    check (smooth, plateaus, size, 10.0f, what);
    check (ties, noise, size, 3.0f, what);
    check (ties, plateaus, size, 10.0f, what);
  }
  g_free (what);
  cf_flow_free (smooth);
  cf_flow_free (ties);
  cf_image_free (noise);
  cf_image_free (plateaus);
}

void
cf_test_upload_image (const cf_image * src, cf_cuda_image * dst,
    cudaStream_t stream)
{
  fail_unless_equals_int (cf_cuda_image_alloc (dst, src->width, src->height),
      CF_OK);
  fail_unless_equals_int (cf_cuda_image_upload (src, dst, stream), CF_OK);
}

void
cf_test_poisoned_image (int width, int height, cf_cuda_image * dst,
    cudaStream_t stream)
{
  fail_unless_equals_int (cf_cuda_image_alloc (dst, width, height), CF_OK);
  fail_unless_equals_int (cf_cuda_image_fill (dst, NAN, stream), CF_OK);
}

cf_image *
cf_test_download_image (const cf_cuda_image * src, cudaStream_t stream)
{
  cf_image *img = cf_image_new (src->width, src->height);

  fail_unless (img != NULL);
  fail_unless_equals_int (cf_cuda_image_download (src, img, stream), CF_OK);
  fail_unless_equals_int (cudaStreamSynchronize (stream), cudaSuccess);
  return img;
}

void
cf_test_upload_flow (const cf_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream)
{
  fail_unless_equals_int (cf_cuda_flow_alloc (dst, src->width, src->height),
      CF_OK);
  fail_unless_equals_int (cf_cuda_flow_upload (src, dst, stream), CF_OK);
}

void
cf_test_poisoned_flow (int width, int height, cf_cuda_flow * dst,
    cudaStream_t stream)
{
  fail_unless_equals_int (cf_cuda_flow_alloc (dst, width, height), CF_OK);
  fail_unless_equals_int (cf_cuda_flow_fill (dst, NAN, NAN, stream), CF_OK);
}

cf_flow *
cf_test_download_flow (const cf_cuda_flow * src, cudaStream_t stream)
{
  cf_flow *flow = cf_flow_new (src->width, src->height);

  fail_unless (flow != NULL);
  fail_unless_equals_int (cf_cuda_flow_download (src, flow, stream), CF_OK);
  fail_unless_equals_int (cudaStreamSynchronize (stream), cudaSuccess);
  return flow;
}

cf_kernel *
cf_test_random_kernel (int kw, int kh, guint32 seed)
{
  cf_kernel *k = cf_kernel_new (kw, kh);
  cf_image view;

  fail_unless (k != NULL);
  view = cf_image_view (k->taps, kw, kh, (size_t) kw);
  cf_test_fill_random (&view, seed, -1.0f, 1.0f);
  return k;
}

void
cf_test_assert_image_close (const cf_image * got, const cf_image * ref,
    double tol, const char *what)
{
  double max_ref = 0.0, max_diff = 0.0;
  int x, y, nan_count = 0;

  for (y = 0; y < ref->height; y++) {
    const float *g = cf_image_row (got, y);
    const float *c = cf_image_row (ref, y);

    for (x = 0; x < ref->width; x++) {
      double d;

      if (isnan (g[x])) {
        nan_count++;
        continue;
      }
      d = fabs ((double) g[x] - (double) c[x]);
      if (d > max_diff)
        max_diff = d;
      if (fabs ((double) c[x]) > max_ref)
        max_ref = fabs ((double) c[x]);
    }
  }
  fail_unless (nan_count == 0, "%s: %d NaN outputs", what, nan_count);
  fail_unless (max_diff <= tol * MAX (1.0, max_ref),
      "%s: max |gpu - cpu| = %g, max |cpu| = %g", what, max_diff, max_ref);
}

void
cf_test_assert_im2tensor_close (const cf_image * got, const cf_image * cpu,
    const cf_image * src, const cf_kernel * k, cf_border border,
    cf_conv_mode mode, const char *what)
{
  cf_kernel *abs_k = cf_kernel_new (k->width, k->height);
  cf_image *abs_out = cf_image_new (cpu->width, cpu->height);
  double max_a = 0.0, worst = 0.0, floor_abs;
  int x, y, i, nan_count = 0, worst_x = 0, worst_y = 0;

  fail_unless (abs_k != NULL && abs_out != NULL);
  for (i = 0; i < k->width * k->height; i++)
    abs_k->taps[i] = fabsf (k->taps[i]);
  fail_unless_equals_int (cf_convolve (src, abs_k, border, mode, abs_out),
      CF_OK);
  for (y = 0; y < cpu->height; y++)
    for (x = 0; x < cpu->width; x++)
      max_a = MAX (max_a, (double) cf_image_row (abs_out, y)[x]);
  floor_abs = CF_TEST_IM2TENSOR_FLOOR * MAX (1.0, max_a);

  /* worst = largest |got - cpu| / allowed over the image */
  for (y = 0; y < cpu->height; y++) {
    const float *g = cf_image_row (got, y);
    const float *c = cf_image_row (cpu, y);
    const float *a = cf_image_row (abs_out, y);

    for (x = 0; x < cpu->width; x++) {
      double ratio;

      if (isnan (g[x])) {
        nan_count++;
        continue;
      }
      ratio = fabs ((double) g[x] - (double) c[x])
          / (CF_TEST_IM2TENSOR_TOLERANCE * (double) a[x] + floor_abs);
      if (!(ratio <= worst)) {
        worst = ratio;
        worst_x = x;
        worst_y = y;
      }
    }
  }
  fail_unless (nan_count == 0, "%s: %d NaN outputs", what, nan_count);
  fail_unless (worst <= 1.0, "%s: at (%d, %d) got %.9g, cpu %.9g, "
      "sum |F| |in| %.9g: %.3g times the allowed error", what, worst_x,
      worst_y, (double) cf_image_row (got, worst_y)[worst_x],
      (double) cf_image_row (cpu, worst_y)[worst_x],
      (double) cf_image_row (abs_out, worst_y)[worst_x], worst);

  cf_kernel_free (abs_k);
  cf_image_free (abs_out);
}

cudaStream_t
cf_test_make_stream (void)
{
  cudaStream_t stream = NULL;

  fail_unless_equals_int (cudaStreamCreateWithFlags (&stream,
          cudaStreamNonBlocking), cudaSuccess);
  return stream;
}

cf_image *
cf_test_read_png_grey (const char *path)
{
  GstHarness *h;
  GstBuffer *in, *out;
  GstCaps *caps;
  GstVideoInfo info;
  GstMapInfo map;
  gchar *bytes = NULL;
  gsize size = 0;
  cf_image *img;
  int x, y;

  if (!g_file_get_contents (path, &bytes, &size, NULL))
    return NULL;
  h = gst_harness_new_parse ("pngdec ! videoconvert ! "
      "capsfilter caps=video/x-raw,format=GRAY8");
  gst_harness_set_src_caps_str (h, "image/png");
  in = gst_buffer_new_wrapped (bytes, size);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  img = cf_image_new (GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info));
  fail_unless (img != NULL);
  for (y = 0; y < img->height; y++) {
    const guint8 *row = map.data + (gsize) y *
        GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);

    for (x = 0; x < img->width; x++)
      cf_image_row (img, y)[x] = row[x];
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  return img;
}

void
cf_test_assert_cuda_image_close (const cf_cuda_image * gpu,
    const cf_image * ref, double tol, const char *what, cudaStream_t stream)
{
  cf_image *got = cf_test_download_image (gpu, stream);
  double max_abs = 0.0, max_ref = 0.0;
  int x, y;

  for (y = 0; y < got->height; y++)
    for (x = 0; x < got->width; x++)
      fail_unless (!isnan (cf_image_row (got, y)[x])
          || isnan (cf_image_row (ref, y)[x]),
          "%s (%dx%d): NaN at (%d, %d)", what, ref->width, ref->height, x, y);
  fail_unless_equals_int (cf_image_diff (got, ref, &max_abs, &max_ref), CF_OK);
  if (max_abs > 0.0)
    GST_INFO ("%s (%dx%d): not bit-identical, max |diff| %g (max |ref| %g)",
        what, ref->width, ref->height, max_abs, max_ref);
  fail_unless (max_abs <= tol * MAX (1.0, max_ref),
      "%s (%dx%d): max |diff| %g, max |ref| %g", what, ref->width,
      ref->height, max_abs, max_ref);
  cf_image_free (got);
}

void
cf_test_assert_cuda_flow_close (const cf_cuda_flow * gpu, const cf_flow * ref,
    double tol, const char *what, cudaStream_t stream)
{
  cf_image ru = cf_image_view (ref->u, ref->width, ref->height, ref->pitch);
  cf_image rv = cf_image_view (ref->v, ref->width, ref->height, ref->pitch);
  cf_cuda_image gu = { gpu->u, gpu->width, gpu->height, gpu->pitch };
  cf_cuda_image gv = { gpu->v, gpu->width, gpu->height, gpu->pitch };

  cf_test_assert_cuda_image_close (&gu, &ru, tol, what, stream);
  cf_test_assert_cuda_image_close (&gv, &rv, tol, what, stream);
}

void
cf_test_assert_flow_identical (const cf_flow * a, const cf_flow * b,
    const char *what)
{
  int y;

  fail_unless (a->width == b->width && a->height == b->height);
  for (y = 0; y < a->height; y++) {
    fail_unless (memcmp (a->u + (size_t) y * a->pitch,
            b->u + (size_t) y * b->pitch, a->width * sizeof (float)) == 0 &&
        memcmp (a->v + (size_t) y * a->pitch, b->v + (size_t) y * b->pitch,
            a->width * sizeof (float)) == 0,
        "%s (%dx%d): row %d differs", what, a->width, a->height, y);
  }
}

void
cf_test_assert_flow_mean_close (const cf_flow * got, const cf_flow * ref,
    double tol, const char *what)
{
  double mean = 0.0, max = 0.0;

  fail_unless_equals_int (cf_flow_diff (got, ref, &mean, &max), CF_OK);
  GST_INFO ("%s: mean |diff| %g px, max %g px", what, mean, max);
  fail_unless (mean <= tol, "%s: mean |diff| %g px (max %g)", what, mean,
      max);
}

double
cf_test_flow_epe (const cf_flow * est, const cf_flow * truth, int border)
{
  cf_flow_error err;

  fail_unless_equals_int (cf_flow_compare (est, truth, border, &err), CF_OK);
  return err.epe;
}

GstBuffer *
cf_test_cuda_buffer_from (GstCudaContext * ctx, const GstVideoInfo * info,
    GstBuffer * src)
{
  GstAllocator *alloc;
  GstMemory *mem;
  GstCudaMemory *cmem;
  GstBuffer *buf;
  GstVideoFrame fsrc, fdst;
  GstMapInfo map;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  guint p;

  gst_cuda_memory_init_once ();
  alloc = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  fail_unless (alloc != NULL);
  mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc), ctx,
      (GstVideoInfo *) info);
  gst_object_unref (alloc);
  fail_unless (mem != NULL);
  cmem = GST_CUDA_MEMORY_CAST (mem);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, p);
    stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, p);
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info), offset,
      stride);
  fail_unless (gst_video_frame_map (&fsrc, (GstVideoInfo *) info, src,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fdst, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  fail_unless (gst_video_frame_copy (&fdst, &fsrc));
  gst_video_frame_unmap (&fdst);
  gst_video_frame_unmap (&fsrc);
  /* upload, then claim the device copy as the newest */
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE | GST_MAP_CUDA));
  gst_memory_unmap (mem, &map);
  fail_unless (GST_MEMORY_FLAG_IS_SET (mem,
          GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD));
  return buf;
}

/* The driver hands out device memory in pages of this size: a smaller
 * chunk cannot take what is left. */
#define HOG_MIN_CHUNK ((size_t) 2 << 20)
#define HOG_MAX_CHUNK ((size_t) 1 << 30)

struct cf_test_gpu_hog
{
  GPtrArray *blocks;            /* device pointers */
  size_t bytes;
};

/* cudaMemGetInfo, or FALSE (the runtime's error state cleared). */
static gboolean
query_free_bytes (size_t * free_bytes)
{
  size_t total = 0;

  if (cudaMemGetInfo (free_bytes, &total) != cudaSuccess) {
    cudaGetLastError ();
    return FALSE;
  }
  return TRUE;
}

size_t
cf_test_gpu_free_bytes (void)
{
  size_t free_bytes = 0;

  fail_unless (query_free_bytes (&free_bytes), "cudaMemGetInfo failed");
  return free_bytes;
}

cf_test_gpu_hog *
cf_test_gpu_hog_take (size_t leave)
{
  cf_test_gpu_hog *hog = g_new0 (cf_test_gpu_hog, 1);
  size_t chunk = HOG_MAX_CHUNK, free_bytes = 0;
  gboolean queried;

  hog->blocks = g_ptr_array_new ();
  /* largest chunks first, halved whenever one does not fit, until what is
   * left is about @leave */
  while ((queried = query_free_bytes (&free_bytes)) && free_bytes > leave) {
    void *p = NULL;

    chunk = MIN (chunk, free_bytes - leave);
    if (chunk < HOG_MIN_CHUNK)
      break;
    if (cudaMalloc (&p, chunk) != cudaSuccess) {
      /* out of memory is not sticky: clear it and try a smaller chunk */
      cudaGetLastError ();
      chunk /= 2;
      continue;
    }
    g_ptr_array_add (hog->blocks, p);
    hog->bytes += chunk;
  }
  if (!queried) {
    cf_test_gpu_hog_release (hog);
    fail ("cudaMemGetInfo failed");
  }
  GST_INFO ("holding %" G_GSIZE_FORMAT " MiB of device memory in %u blocks, "
      "%" G_GSIZE_FORMAT " MiB left", (gsize) (hog->bytes >> 20),
      hog->blocks->len, (gsize) (free_bytes >> 20));
  return hog;
}

size_t
cf_test_gpu_hog_size (const cf_test_gpu_hog * hog)
{
  return hog != NULL ? hog->bytes : 0;
}

void
cf_test_gpu_hog_release (cf_test_gpu_hog * hog)
{
  guint i;

  if (hog == NULL)
    return;
  for (i = 0; i < hog->blocks->len; i++)
    if (cudaFree (g_ptr_array_index (hog->blocks, i)) != cudaSuccess)
      cudaGetLastError ();
  g_ptr_array_unref (hog->blocks);
  g_free (hog);
}

GstBuffer *
cf_test_random_frame (const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;
  guint32 s = seed;
  gsize i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    map.data[i] = (guint8) (s >> 11);
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

gchar *
cf_test_random_kernel_text (int size, guint32 seed)
{
  GString *s = g_string_new (NULL);
  int i;

  for (i = 0; i < size * size; i++) {
    seed = seed * 1664525u + 1013904223u;
    g_string_append_printf (s, "%.4f%s", ((seed >> 9) % 2001) / 1000.0 - 0.5,
        (i % size == size - 1) ? ";" : " ");
  }
  return g_string_free (s, FALSE);
}

void
cf_test_assert_frames_close (const GstVideoInfo * info, GstBuffer * a,
    GstBuffer * b, guint tol, const gchar * what)
{
  GstVideoFrame fa, fb;
  guint comp;

  fail_unless (gst_video_frame_map (&fa, (GstVideoInfo *) info, a,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, (GstVideoInfo *) info, b,
          GST_MAP_READ));
  for (comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    int w = GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp);
    int h = GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp);
    int ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp);
    gboolean wide = GST_VIDEO_FRAME_COMP_DEPTH (&fa, comp) > 8;
    int x, y;
    for (y = 0; y < h; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fa,
          comp) + y * GST_VIDEO_FRAME_COMP_STRIDE (&fa, comp);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fb,
          comp) + y * GST_VIDEO_FRAME_COMP_STRIDE (&fb, comp);
      for (x = 0; x < w; x++) {
        guint va = wide ? (ra[x * ps] | ra[x * ps + 1] << 8) : ra[x * ps];
        guint vb = wide ? (rb[x * ps] | rb[x * ps + 1] << 8) : rb[x * ps];
        if ((guint) ABS ((gint) va - (gint) vb) > tol)
          fail ("%s: %s comp %u (%d,%d): %u vs %u", what,
              gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)), comp,
              x, y, va, vb);
      }
    }
  }
  gst_video_frame_unmap (&fb);
  gst_video_frame_unmap (&fa);
}

/* ---------------------------------------------------------------------
 * TV-L1 written out with its public steps
 * --------------------------------------------------------------------- */

/* Entry @l of a per-level list as documented (common/tvl1.h): the list's
 * entry, its last past its end, @uniform without a list. Written out
 * here, not cf_tvl1_level_*, so the solvers are checked against the
 * rule. */
static int
documented_entry (const int *list, int n, int uniform, int l)
{
  return n == 0 ? uniform : list[l < n ? l : n - 1];
}

static float
documented_lambda (const cf_tvl1_params * params, int l)
{
  const int n = params->n_lambda_per_level;

  if (n == 0)
    return params->lambda;
  return params->lambda_per_level[l < n ? l : n - 1];
}

static void
copy_flow_rows (const cf_flow * src, cf_flow * dst)
{
  int y;

  for (y = 0; y < src->height; y++) {
    memcpy (dst->u + (size_t) y * dst->pitch, src->u + (size_t) y * src->pitch,
        src->width * sizeof (float));
    memcpy (dst->v + (size_t) y * dst->pitch, src->v + (size_t) y * src->pitch,
        src->width * sizeof (float));
  }
}

long
cf_test_tvl1_steps_flow (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_tvl1_params * params, int use_initial, cf_flow * flow)
{
  const double eps2 = (double) params->epsilon * (double) params->epsilon;
  cf_tvl1_workspace *ws = cf_tvl1_workspace_new (flow->width, flow->height);
  cf_flow *u = cf_flow_new (flow->width, flow->height);
  cf_flow *m = cf_flow_new (flow->width, flow->height);
  /* the frame's first warp trims against nothing, each next one against
   * the fit before it, across levels */
  cf_tvl1_brightness_fit fit = { 1.0, 0.0, 0.0, 0 };
  long count = 0;
  int l, k, n;

  fail_unless (ws != NULL && u != NULL && m != NULL);
  for (l = p0->n_levels - 1; l >= 0; l--) {
    const cf_image *f0 = p0->level[l], *f1 = p1->level[l];
    cf_flow ul = cf_flow_view (u, f0->width, f0->height);
    cf_flow ml = cf_flow_view (m, f0->width, f0->height);
    cf_flow parked = cf_flow_view (flow, f0->width, f0->height);
    const int warps = documented_entry (params->warps_per_level,
        params->n_warps_per_level, params->warps, l);
    const int iterations = documented_entry (params->iterations_per_level,
        params->n_iterations_per_level, params->max_iterations, l);
    const int msize = documented_entry (params->median_size_per_level,
        params->n_median_size_per_level, params->median_size, l);
    /* the weighted median's rule (common/tvl1.h), written out */
    const int wsize = f0->width >= params->wmedian_min_width ?
        params->wmedian_size : 0;
    cf_tvl1_params level = *params;
    cf_wmedian_tables tables;
    cf_tvl1_workspace wl;

    level.lambda = documented_lambda (params, l);
    level.n_lambda_per_level = 0;
    cf_wmedian_tables_init (&tables, params->wmedian_sigma);
    fail_unless_equals_int (cf_tvl1_workspace_level (ws, f0->width,
            f0->height, &wl), CF_OK);
    if (l == p0->n_levels - 1) {
      if (use_initial) {
        fail_unless_equals_int (cf_flow_resample (flow, &ul), CF_OK);
      } else {
        cf_flow_fill (&ul, 0.0f, 0.0f);
      }
    } else {
      cf_flow prev = cf_flow_view (flow, p0->level[l + 1]->width,
          p0->level[l + 1]->height);
      fail_unless_equals_int (cf_flow_resample (&prev, &ul), CF_OK);
    }
    fail_unless_equals_int (cf_tvl1_centered_gradient (f1, &wl.i1x,
            &wl.i1y), CF_OK);
    cf_flow_fill (&wl.p1, 0.0f, 0.0f);
    cf_flow_fill (&wl.p2, 0.0f, 0.0f);
    for (k = 0; k < warps; k++) {
      fail_unless_equals_int (cf_tvl1_warp_prepare (f0, f1, &wl.i1x,
              &wl.i1y, &ul, params->warp_border, params->gradient_blend,
              &wl.i1w, &wl.i1wx, &wl.i1wy, &wl.grad, &wl.rho_c), CF_OK);
      if (params->brightness_model) {
        float gain, bias;

        fail_unless_equals_int (cf_tvl1_fit_brightness (f0, &wl.i1w, &ul,
                &fit, &gain, &bias), CF_OK);
        /* the identity leaves the constants as they are */
        if (gain != 1.0f || bias != 0.0f)
          fail_unless_equals_int (cf_tvl1_apply_brightness (f0, gain, bias,
                  &wl.rho_c), CF_OK);
      }
      for (n = 0; n < iterations; n++) {
        double e = 0.0;

        fail_unless_equals_int (cf_tvl1_iteration (&wl, &level, &ul, &e),
            CF_OK);
        count++;
        if (params->epsilon > 0.0f && !(e > eps2))
          break;
      }
      if (wsize > 0) {
        fail_unless_equals_int (cf_flow_weighted_median (&ul, f0, wsize,
                &tables, &ml), CF_OK);
      } else if (msize > 0) {
        fail_unless_equals_int (cf_flow_median (&ul, msize, &ml), CF_OK);
      }
      if (wsize > 0 || msize > 0)
        copy_flow_rows (&ml, &ul);
    }
    copy_flow_rows (&ul, &parked);
  }
  cf_tvl1_workspace_free (ws);
  cf_flow_free (u);
  cf_flow_free (m);
  return count;
}
