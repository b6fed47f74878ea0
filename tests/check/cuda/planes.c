/* gst-cudaflow — tests for cuda/planes (GPU channel unpack/pack)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GPU twins must equal cf_channel_unpack / cf_channel_pack bit for bit:
 * the same random bytes go to a host buffer and a device buffer, both sides
 * run, and the float planes (unpack) or the whole byte buffers, padding and
 * other channels included (pack), are compared exactly.
 * Exits 77 (skip) without a CUDA device.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cf-test-util.h"
#include "common/planes.h"
#include "cuda/planes.h"

/* How one channel lies in its buffer. */
typedef struct
{
  int width;
  int height;
  int depth;                    /* 8 or 16 */
  int pixel_stride;             /* bytes */
  int offset;                   /* byte of the channel inside a pixel */
  int row_pad;                  /* bytes after the last sample of a row */
  gboolean backwards;           /* negative stride: rows bottom-up */
} layout;

/* A host buffer and a device buffer holding the same bytes, and the channel
 * description for each. */
typedef struct
{
  guint8 *host;
  guint8 *dev;
  size_t size;
  cf_channel host_ch;
  cf_channel dev_ch;
} channel_pair;

static guint32 next_seed = 1;

static void
fill_bytes (guint8 * bytes, size_t n, guint32 seed)
{
  guint32 state = seed ? seed : 0x9e3779b9u;
  size_t i;

  for (i = 0; i < n; i++) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    bytes[i] = (guint8) (state >> 24);
  }
}

static void
describe (cf_channel * ch, guint8 * base, const layout * l, ptrdiff_t stride)
{
  ch->width = l->width;
  ch->height = l->height;
  ch->depth = l->depth;
  ch->pixel_stride = l->pixel_stride;
  if (l->backwards) {
    ch->data = base + l->offset + (size_t) (l->height - 1) * stride;
    ch->stride = -stride;
  } else {
    ch->data = base + l->offset;
    ch->stride = stride;
  }
}

/* Random bytes, identical on host and device. */
static void
channel_pair_init (channel_pair * p, const layout * l)
{
  ptrdiff_t stride = (ptrdiff_t) (l->width - 1) * l->pixel_stride
      + l->depth / 8 + l->offset + l->row_pad;

  p->size = (size_t) l->height * (size_t) stride;
  p->host = g_malloc (p->size);
  fill_bytes (p->host, p->size, next_seed++ * 2654435761u);
  CUDA_OK (cudaMalloc ((void **) &p->dev, p->size));
  CUDA_OK (cudaMemcpy (p->dev, p->host, p->size, cudaMemcpyHostToDevice));
  describe (&p->host_ch, p->host, l, stride);
  describe (&p->dev_ch, p->dev, l, stride);
}

static void
channel_pair_clear (channel_pair * p)
{
  g_free (p->host);
  CUDA_OK (cudaFree (p->dev));
}

static gchar *
layout_name (const layout * l)
{
  return g_strdup_printf ("%dx%d depth %d, pixel_stride %d, byte offset %d, "
      "row pad %d%s", l->width, l->height, l->depth, l->pixel_stride,
      l->offset, l->row_pad, l->backwards ? ", bottom-up" : "");
}

/* GPU unpack into a NaN-poisoned plane equals the CPU unpack exactly. */
static void
check_unpack (const layout * l, cudaStream_t stream)
{
  channel_pair p;
  cf_image *cpu = cf_image_new (l->width, l->height);
  cf_image *gpu = cf_image_new (l->width, l->height);
  cf_cuda_image dimg;
  gchar *what = layout_name (l);
  int y;

  channel_pair_init (&p, l);
  fail_unless_equals_int (cf_channel_unpack (&p.host_ch, cpu), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&dimg, l->width, l->height),
      CF_OK);
  fail_unless_equals_int (cf_cuda_image_fill (&dimg, NAN, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_channel_unpack (&p.dev_ch, &dimg, stream),
      CF_OK);
  fail_unless_equals_int (cf_cuda_image_download (&dimg, gpu, stream), CF_OK);
  CUDA_OK (cudaStreamSynchronize (stream));
  for (y = 0; y < l->height; y++)
    fail_unless (memcmp (cf_image_row (gpu, y), cf_image_row (cpu, y),
            (size_t) l->width * sizeof (float)) == 0,
        "unpack %s: row %d differs", what, y);

  g_free (what);
  cf_cuda_image_release (&dimg);
  cf_image_free (cpu);
  cf_image_free (gpu);
  channel_pair_clear (&p);
}

/* A float plane for packing: random values around and beyond the sample
 * range, exact halves, and the special values rounding and clamping must
 * agree on. */
static cf_image *
pack_input (const layout * l)
{
  static const float specials[] = {
    NAN, INFINITY, -INFINITY, -0.0f, -0.5f, -0.49999997f, 0.49999997f, 0.5f,
    1.5f, 2.5f, 127.5f, 254.49998f, 254.5f, 255.0f, 255.49998f, 255.5f,
    256.0f, 1e9f, -1e9f, 65534.5f, 65535.0f, 65535.49f, 65535.5f, 70000.0f
  };
  float max = cf_channel_max (l->depth);
  cf_image *img = cf_image_new (l->width, l->height);
  int x, y, n = 0;

  fail_unless (img != NULL);
  cf_test_fill_random (img, next_seed++ * 40503u, -0.1f * max, 1.1f * max);
  for (y = 0; y < l->height; y++) {
    float *row = cf_image_row (img, y);

    for (x = 0; x < l->width; x++, n++) {
      if (n % 7 == 0)
        row[x] = specials[(n / 7) % G_N_ELEMENTS (specials)];
      else if (n % 5 == 0)
        row[x] = floorf (row[x]) + 0.5f;
    }
  }
  return img;
}

/* GPU pack equals the CPU pack on every byte of the buffer: the described
 * samples bit for bit, everything else (other channels, row padding) left
 * as it was. */
static void
check_pack (const layout * l, float offset, cudaStream_t stream)
{
  channel_pair p;
  cf_image *src = pack_input (l);
  cf_cuda_image dimg;
  guint8 *back;
  gchar *what = layout_name (l);
  size_t i;

  channel_pair_init (&p, l);
  back = g_malloc (p.size);
  fail_unless_equals_int (cf_channel_pack (src, offset, &p.host_ch), CF_OK);
  fail_unless_equals_int (cf_cuda_image_alloc (&dimg, l->width, l->height),
      CF_OK);
  fail_unless_equals_int (cf_cuda_image_upload (src, &dimg, stream), CF_OK);
  fail_unless_equals_int (cf_cuda_channel_pack (&dimg, offset, &p.dev_ch,
          stream), CF_OK);
  CUDA_OK (cudaStreamSynchronize (stream));
  CUDA_OK (cudaMemcpy (back, p.dev, p.size, cudaMemcpyDeviceToHost));
  if (memcmp (back, p.host, p.size) != 0) {
    for (i = 0; back[i] == p.host[i]; i++);
    fail ("pack %s, value offset %g: byte %" G_GSIZE_FORMAT " is %u, CPU %u",
        what, offset, i, back[i], p.host[i]);
  }

  g_free (what);
  g_free (back);
  cf_cuda_image_release (&dimg);
  cf_image_free (src);
  channel_pair_clear (&p);
}

static const float pack_offsets[] = { 0.0f, 0.5f, -0.25f, 128.0f };

static void
check_unpack_and_pack (const layout * l, cudaStream_t stream)
{
  guint o;

  check_unpack (l, stream);
  for (o = 0; o < G_N_ELEMENTS (pack_offsets); o++)
    check_pack (l, pack_offsets[o], stream);
}

GST_START_TEST (test_gray8_matches_cpu_bit_exact)
{
  const layout layouts[] = {
    {1, 1, 8, 1, 0, 0, FALSE},
    {37, 11, 8, 1, 0, 0, FALSE},
    {641, 479, 8, 1, 0, 13, FALSE},
    {641, 479, 8, 1, 0, 3, TRUE},
  };
  cudaStream_t stream = cf_test_make_stream ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (layouts); i++)
    check_unpack_and_pack (&layouts[i], stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_gray16_le_matches_cpu_bit_exact)
{
  const layout layouts[] = {
    {1, 1, 16, 2, 0, 0, FALSE},
    {37, 11, 16, 2, 0, 0, FALSE},
    {641, 479, 16, 2, 0, 7, FALSE},
    {333, 17, 16, 2, 0, 6, TRUE},
    {101, 9, 16, 6, 2, 5, FALSE},       /* G of RGB16-like pixels */
    {101, 9, 16, 3, 1, 1, FALSE},       /* samples at odd addresses */
  };
  cudaStream_t stream = cf_test_make_stream ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (layouts); i++)
    check_unpack_and_pack (&layouts[i], stream);
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_rgba_channels_match_cpu_and_leave_neighbours)
{
  cudaStream_t stream = cf_test_make_stream ();
  int c;

  for (c = 0; c < 4; c++) {
    const layout l = { 321, 47, 8, 4, c, 12, FALSE };

    check_unpack_and_pack (&l, stream);
  }
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_nv12_uv_samples_match_cpu_and_leave_neighbours)
{
  cudaStream_t stream = cf_test_make_stream ();
  int c;

  /* chroma of a 641 x 479 frame: 321 x 240 UV pairs */
  for (c = 0; c < 2; c++) {
    const layout l = { 321, 240, 8, 2, c, 30, FALSE };

    check_unpack_and_pack (&l, stream);
  }
  CUDA_OK (cudaStreamDestroy (stream));
}

GST_END_TEST;

GST_START_TEST (test_rejects_invalid_arguments)
{
  cf_cuda_image img;
  guint8 *dev = NULL;
  cf_channel ch;

  fail_unless_equals_int (cf_cuda_image_alloc (&img, 8, 4), CF_OK);
  CUDA_OK (cudaMalloc ((void **) &dev, 8 * 4 * 2));
  ch.data = dev;
  ch.width = 8;
  ch.height = 4;
  ch.stride = 16;
  ch.pixel_stride = 2;
  ch.depth = 16;

  fail_unless_equals_int (cf_cuda_channel_unpack (&ch, &img, NULL), CF_OK);
  fail_unless_equals_int (cf_cuda_channel_pack (&img, 0.0f, &ch, NULL), CF_OK);
  CUDA_OK (cudaStreamSynchronize (NULL));

  fail_unless_equals_int (cf_cuda_channel_unpack (NULL, &img, NULL),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_channel_unpack (&ch, NULL, NULL),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_channel_pack (NULL, 0.0f, &ch, NULL),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_channel_pack (&img, 0.0f, NULL, NULL),
      CF_ERROR_INVALID);
  ch.depth = 12;
  fail_unless_equals_int (cf_cuda_channel_unpack (&ch, &img, NULL),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_channel_pack (&img, 0.0f, &ch, NULL),
      CF_ERROR_INVALID);
  ch.depth = 16;
  ch.pixel_stride = 1;          /* narrower than a 16-bit sample */
  fail_unless_equals_int (cf_cuda_channel_unpack (&ch, &img, NULL),
      CF_ERROR_INVALID);
  ch.pixel_stride = 2;
  ch.width = 7;                 /* plane is 8 wide */
  fail_unless_equals_int (cf_cuda_channel_unpack (&ch, &img, NULL),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_cuda_channel_pack (&img, 0.0f, &ch, NULL),
      CF_ERROR_INVALID);
  ch.width = 8;
  ch.data = NULL;
  fail_unless_equals_int (cf_cuda_channel_unpack (&ch, &img, NULL),
      CF_ERROR_INVALID);

  CUDA_OK (cudaFree (dev));
  cf_cuda_image_release (&img);
  cf_cuda_image_release (&img); /* zeroed: no-op */
}

GST_END_TEST;

static Suite *
cuda_planes_suite (void)
{
  Suite *s = suite_create ("cuda_planes");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gray8_matches_cpu_bit_exact);
  tcase_add_test (tc, test_gray16_le_matches_cpu_bit_exact);
  tcase_add_test (tc, test_rgba_channels_match_cpu_and_leave_neighbours);
  tcase_add_test (tc, test_nv12_uv_samples_match_cpu_and_leave_neighbours);
  tcase_add_test (tc, test_rejects_invalid_arguments);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (argc, argv, "cuda_planes", cuda_planes_suite);
}
