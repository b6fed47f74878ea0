/* gst-cudaflow — CPU reference 2-D convolution (the test oracle)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both modes are computed as correlation with a kernel F and anchor
 * (ax, ay): F = K and (kw/2, kh/2) for correlation; for convolution F is K
 * flipped in both directions and the anchor becomes (kw-1-kw/2, kh-1-kh/2),
 * since sum K[j][i] in(x - i + kw/2) = sum F[j][i'] in(x + i' - (kw-1-kw/2))
 * with i' = kw-1-i. Then
 *   out(x, y) = sum_{j=0}^{kh-1} sum_{i=0}^{kw-1} F[j][i] in(x+i-ax, y+j-ay),
 * summed in double in the order j, then i.
 *
 * The image splits into an interior, where every tap lands inside the image
 * (plain loops over contiguous rows, no per-tap branches), and a border
 * frame, where every tap's coordinates go through cf_border_fold () (via
 * per-axis lookup tables built with it); for CF_BORDER_ZERO an outside tap
 * is skipped, i.e. contributes 0. The same rule applies to every tap, so
 * kernels larger than the image are well defined.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/convolve.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* 1 when the float ranges covered by the two images share memory. */
static int
images_overlap (const cf_image * a, const cf_image * b)
{
  uintptr_t a0 = (uintptr_t) a->data, b0 = (uintptr_t) b->data;
  uintptr_t a1 = a0 + (((size_t) (a->height - 1) * a->pitch + a->width)
      * sizeof (float));
  uintptr_t b1 = b0 + (((size_t) (b->height - 1) * b->pitch + b->width)
      * sizeof (float));

  return a0 < b1 && b0 < a1;
}

/* Non-NULL, positive size, pitch at least the width. */
static int
image_is_valid (const cf_image * image)
{
  return image != NULL && image->data != NULL && image->width > 0
      && image->height > 0 && image->pitch >= (size_t) image->width;
}

/* Fold table for one axis: table[o] = cf_border_fold (o - anchor, n,
 * border) for o in [0, n + k - 1), i.e. every coordinate x + i - anchor
 * with x in [0, n) and i in [0, k). -1 marks a skipped (zero) sample. */
static int *
fold_table (int n, int k, int anchor, cf_border border)
{
  int o, count = n + k - 1;
  int *table = malloc ((size_t) count * sizeof (int));

  if (table == NULL)
    return NULL;
  for (o = 0; o < count; o++)
    table[o] = cf_border_fold (o - anchor, n, border);
  return table;
}

/* One output pixel (x, y) of the border frame: every tap through the fold
 * tables; outside taps (index -1, zero rule only) are skipped. */
static double
border_pixel (const cf_image * src, const double *f, int kw, int kh,
    const int *xt, const int *yt, int x, int y)
{
  double acc = 0.0;
  int i, j;

  for (j = 0; j < kh; j++) {
    const float *row;
    const double *fr = f + (size_t) j * kw;
    int sy = yt[y + j];

    if (sy < 0)
      continue;
    row = cf_image_row (src, sy);
    for (i = 0; i < kw; i++) {
      int sx = xt[x + i];

      if (sx < 0)
        continue;
      acc += fr[i] * (double) row[sx];
    }
  }
  return acc;
}

/* The output row y: dst's row, or row y of the double array out64. */
typedef struct
{
  cf_image *dst;
  double *out64;
  size_t stride64;
} conv_output;

static void
put (const conv_output * o, int x, int y, double v)
{
  if (o->out64 != NULL)
    o->out64[x + (size_t) y * o->stride64] = v;
  else
    cf_image_row (o->dst, y)[x] = (float) v;
}

/* out = K (*) in or K (x) in with 'same' size; see convolve.h. */
static cf_status
convolve (const cf_image * src, const cf_kernel * kernel, cf_border border,
    cf_conv_mode mode, const conv_output * o)
{
  int w, h, kw, kh, ax, ay, x0, x1, y0, y1, x, y, i, j;
  double *f = NULL, *acc = NULL;
  int *xt = NULL, *yt = NULL;
  cf_status status = CF_OK;

  if (!image_is_valid (src) || kernel == NULL
      || kernel->taps == NULL || kernel->width < 1 || kernel->height < 1
      || kernel->width > CF_KERNEL_MAX_SIZE
      || kernel->height > CF_KERNEL_MAX_SIZE)
    return CF_ERROR_INVALID;
  if ((unsigned) border >= CF_BORDER_COUNT
      || (mode != CF_CONVOLUTION && mode != CF_CORRELATION))
    return CF_ERROR_INVALID;

  w = src->width;
  h = src->height;
  kw = kernel->width;
  kh = kernel->height;

  /* Correlation kernel F (in double) and its anchor, computed once. */
  f = malloc ((size_t) kw * kh * sizeof (double));
  acc = malloc ((size_t) w * sizeof (double));
  if (f == NULL || acc == NULL) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }
  if (mode == CF_CORRELATION) {
    ax = kw / 2;
    ay = kh / 2;
    for (j = 0; j < kh; j++)
      for (i = 0; i < kw; i++)
        f[i + (size_t) j * kw] = kernel->taps[i + (size_t) j * kw];
  } else {
    ax = kw - 1 - kw / 2;
    ay = kh - 1 - kh / 2;
    for (j = 0; j < kh; j++)
      for (i = 0; i < kw; i++)
        f[i + (size_t) j * kw] =
            kernel->taps[(kw - 1 - i) + (size_t) (kh - 1 - j) * kw];
  }

  xt = fold_table (w, kw, ax, border);
  yt = fold_table (h, kh, ay, border);
  if (xt == NULL || yt == NULL) {
    status = CF_ERROR_NO_MEMORY;
    goto out;
  }

  /* Interior: x0 <= x <= x1 and y0 <= y <= y1 need no folding (may be
   * empty when the kernel is wider or taller than the image). */
  x0 = ax;
  x1 = w - kw + ax;
  y0 = ay;
  y1 = h - kh + ay;

  for (y = 0; y < h; y++) {
    if (y >= y0 && y <= y1 && x0 <= x1) {
      int n = x1 - x0 + 1;

      /* Interior span: accumulate whole rows, tap by tap, so the inner
       * loop runs over contiguous memory; the per-pixel summation order
       * (j, then i) is the same as in border_pixel (). */
      for (x = 0; x < n; x++)
        acc[x] = 0.0;
      for (j = 0; j < kh; j++) {
        const float *row = cf_image_row (src, y + j - ay) + (x0 - ax);
        const double *fr = f + (size_t) j * kw;

        for (i = 0; i < kw; i++) {
          const double t = fr[i];
          const float *p = row + i;

          for (x = 0; x < n; x++)
            acc[x] += t * (double) p[x];
        }
      }
      for (x = 0; x < n; x++)
        put (o, x0 + x, y, acc[x]);
      for (x = 0; x < x0 && x < w; x++)
        put (o, x, y, border_pixel (src, f, kw, kh, xt, yt, x, y));
      for (x = x1 + 1; x < w; x++)
        put (o, x, y, border_pixel (src, f, kw, kh, xt, yt, x, y));
    } else {
      for (x = 0; x < w; x++)
        put (o, x, y, border_pixel (src, f, kw, kh, xt, yt, x, y));
    }
  }

out:
  free (f);
  free (acc);
  free (xt);
  free (yt);
  return status;
}

cf_status
cf_convolve (const cf_image * src, const cf_kernel * kernel,
    cf_border border, cf_conv_mode mode, cf_image * dst)
{
  const conv_output o = { dst, NULL, 0 };

  if (!image_is_valid (src) || !image_is_valid (dst)
      || src->width != dst->width || src->height != dst->height
      || images_overlap (src, dst))
    return CF_ERROR_INVALID;
  return convolve (src, kernel, border, mode, &o);
}

cf_status
cf_convolve_f64 (const cf_image * src, const cf_kernel * kernel,
    cf_border border, cf_conv_mode mode, double *dst, size_t dst_stride)
{
  const conv_output o = { NULL, dst, dst_stride };

  if (dst == NULL || !image_is_valid (src)
      || dst_stride < (size_t) src->width)
    return CF_ERROR_INVALID;
  return convolve (src, kernel, border, mode, &o);
}

/* sort key for the median */
static int
compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

cf_status
cf_relative_error (const cf_image * img, const double *ref,
    size_t ref_stride, cf_relative_error_stats * stats)
{
  double *rel, ref_max = 0.0, floor_;
  size_t n, k = 0;
  int x, y;

  if (stats == NULL || ref == NULL || !image_is_valid (img)
      || ref_stride < (size_t) img->width)
    return CF_ERROR_INVALID;
  n = (size_t) img->width * img->height;
  rel = malloc (n * sizeof (double));
  if (rel == NULL)
    return CF_ERROR_NO_MEMORY;
  for (y = 0; y < img->height; y++)
    for (x = 0; x < img->width; x++)
      ref_max = fmax (ref_max, fabs (ref[x + (size_t) y * ref_stride]));
  floor_ = CF_RELATIVE_ERROR_FLOOR * ref_max;
  stats->max = 0.0;
  for (y = 0; y < img->height; y++) {
    const float *row = cf_image_row (img, y);
    const double *r = ref + (size_t) y * ref_stride;

    for (x = 0; x < img->width; x++) {
      const double e = fabs ((double) row[x] - r[x]) / fmax (fabs (r[x]),
          floor_);

      /* NaN compares false: count it as the worst error */
      rel[k++] = e == e ? e : HUGE_VAL;
      stats->max = fmax (stats->max, rel[k - 1]);
    }
  }
  qsort (rel, n, sizeof (double), compare_doubles);
  stats->median = n % 2 ? rel[n / 2] : 0.5 * (rel[n / 2 - 1] + rel[n / 2]);
  free (rel);
  return CF_OK;
}
