/* gst-cudaflow — median filter of a flow field, CPU reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plain definition: gather the clipped window, sort it, take the
 * middle. Slow and obviously right; it is the oracle of the GPU twin.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/median.h"

#include <math.h>
#include <stdint.h>

#define MAX_WINDOW (CF_MEDIAN_SIZE_MAX * CF_MEDIAN_SIZE_MAX)

int
cf_median_size_valid (int size)
{
  return size == 3 || size == 5;
}

/* a before b in IEEE 754 totalOrder, for values that are not NaN: by value,
 * and −0 before +0 (which `<` calls equal). */
static int
before (float a, float b)
{
  return a < b || (a == b && signbit (a) && !signbit (b));
}

/* Insertion sort of @n values in total order. */
static void
sort_values (float *values, int n)
{
  int i, j;

  for (i = 1; i < n; i++) {
    const float t = values[i];

    for (j = i; j > 0 && before (t, values[j - 1]); j--)
      values[j] = values[j - 1];
    values[j] = t;
  }
}

/* The median of @n sorted values: the middle one (n odd), else the mean of
 * the two middle ones in fp32. */
static float
middle (const float *sorted, int n)
{
  if (n % 2 == 1)
    return sorted[n / 2];
  return (sorted[n / 2 - 1] + sorted[n / 2]) * 0.5f;
}

/* [@lo, @hi]: the window [@c − @radius, @c + @radius] clipped to 0 .. @n − 1
 * (never padded) */
static void
clipped_span (int c, int radius, int n, int *lo, int *hi)
{
  *lo = c - radius < 0 ? 0 : c - radius;
  *hi = c + radius > n - 1 ? n - 1 : c + radius;
}

/* One plane: dst(x, y) = median of src over [x − r, x + r] × [y − r, y + r]
 * ∩ the image (the window is clipped at the borders, never padded). */
static void
median_plane (const float *src, float *dst, size_t src_pitch,
    size_t dst_pitch, int width, int height, int radius)
{
  float window[MAX_WINDOW];
  int x, y, wx, wy;

  for (y = 0; y < height; y++) {
    int y0, y1;

    clipped_span (y, radius, height, &y0, &y1);
    for (x = 0; x < width; x++) {
      int x0, x1, n = 0;

      clipped_span (x, radius, width, &x0, &x1);
      for (wy = y0; wy <= y1; wy++)
        for (wx = x0; wx <= x1; wx++)
          window[n++] = src[wx + (size_t) wy * src_pitch];
      sort_values (window, n);
      dst[x + (size_t) y * dst_pitch] = middle (window, n);
    }
  }
}

/* 1 when the @width x @height planes at @a and @b (pitches in elements)
 * share any byte of their spans. */
static int
planes_overlap (const float *a, size_t pitch_a, const float *b,
    size_t pitch_b, int width, int height)
{
  const uintptr_t a0 = (uintptr_t) a, b0 = (uintptr_t) b;
  const uintptr_t a1 = a0 + ((height - 1) * pitch_a + width) * sizeof (float);
  const uintptr_t b1 = b0 + ((height - 1) * pitch_b + width) * sizeof (float);

  return a0 < b1 && b0 < a1;
}

/* 1 when @src and @dst are flows of one size whose planes do not overlap
 * (a filter reads the neighbours of what it writes). */
static int
flows_valid (const cf_flow * src, const cf_flow * dst)
{
  if (src == NULL || dst == NULL || src->width != dst->width ||
      src->height != dst->height || src->width < 1 || src->height < 1 ||
      src->pitch < (size_t) src->width || dst->pitch < (size_t) dst->width
      || src->u == NULL || src->v == NULL || dst->u == NULL || dst->v == NULL)
    return 0;
  if (planes_overlap (dst->u, dst->pitch, src->u, src->pitch, src->width,
          src->height) || planes_overlap (dst->u, dst->pitch, src->v,
          src->pitch, src->width, src->height) ||
      planes_overlap (dst->v, dst->pitch, src->u, src->pitch, src->width,
          src->height) || planes_overlap (dst->v, dst->pitch, src->v,
          src->pitch, src->width, src->height) ||
      planes_overlap (dst->u, dst->pitch, dst->v, dst->pitch, dst->width,
          dst->height))
    return 0;
  return 1;
}

cf_status
cf_flow_median (const cf_flow * src, int size, cf_flow * dst)
{
  if (!cf_median_size_valid (size) || !flows_valid (src, dst))
    return CF_ERROR_INVALID;
  median_plane (src->u, dst->u, src->pitch, dst->pitch, src->width,
      src->height, size / 2);
  median_plane (src->v, dst->v, src->pitch, dst->pitch, src->width,
      src->height, size / 2);
  return CF_OK;
}

/* ---------------------------------------------------------------------
 * Weighted median
 * --------------------------------------------------------------------- */

int
cf_wmedian_size_valid (int size)
{
  return size >= CF_WMEDIAN_SIZE_MIN && size <= CF_WMEDIAN_SIZE_MAX &&
      size % 2 == 1;
}

void
cf_wmedian_tables_init (cf_wmedian_tables * tables, float sigma)
{
  int k;

  for (k = 0; k < CF_WMEDIAN_RANGE_STEPS - 1; k++) {
    const double d = (double) k / CF_WMEDIAN_STEPS_PER_SIGMA;

    tables->range[k] = (unsigned int) lround (65536.0 * exp (-0.5 * d * d));
  }
  tables->range[CF_WMEDIAN_RANGE_STEPS - 1] = 0;
  tables->scale = (float) (CF_WMEDIAN_STEPS_PER_SIGMA / (double) sigma);
}

/* The weight of a neighbour @d away from the pixel in the guide. */
static unsigned int
range_weight (const cf_wmedian_tables * tables, float d)
{
  const float k = d * tables->scale + 0.5f;

  return k < (float) (CF_WMEDIAN_RANGE_STEPS - 1) ?
      tables->range[(int) k] : 0;
}

/* S(t): the weight of the @n values <= @t, in their order. */
static unsigned int
weight_at_most (const float *values, const unsigned int *weights, int n,
    float t)
{
  unsigned int s = 0;
  int i;

  for (i = 0; i < n; i++)
    if (values[i] <= t)
      s += weights[i];
  return s;
}

/* The weighted median of @n values by the bisection of the definition;
 * @own is the pixel's value (among them), where the minimum and maximum
 * start. */
static float
weighted_median_of (const float *values, const unsigned int *weights, int n,
    float own)
{
  unsigned int total = 0, s = 0;
  float a = own, b = own, m;
  int i, k;

  for (i = 0; i < n; i++) {
    total += weights[i];
    if (values[i] < a)
      a = values[i];
    if (values[i] > b)
      b = values[i];
  }
  for (k = 0; k < CF_WMEDIAN_BISECTIONS; k++) {
    const float t = (a + b) * 0.5f;

    if (!(t > a && t < b))
      break;
    if (2 * weight_at_most (values, weights, n, t) >= total)
      b = t;
    else
      a = t;
  }
  /* 2 S(a) < W unless a is still the minimum; then some value in
   * (a, b] carries weight, so the smallest value above a is <= b */
  m = b;
  for (i = 0; i < n; i++) {
    if (values[i] <= a)
      s += weights[i];
    else if (values[i] < m)
      m = values[i];
  }
  return 2 * s >= total ? a : m;
}

/* One plane: the values and weights of the clipped window's checkerboard
 * cells, in raster order. */
static void
weighted_median_plane (const float *src, size_t src_pitch,
    const cf_image * guide, const cf_wmedian_tables * tables, float *dst,
    size_t dst_pitch, int width, int height, int radius)
{
  float values[CF_WMEDIAN_CELLS (CF_WMEDIAN_SIZE_MAX)];
  unsigned int weights[CF_WMEDIAN_CELLS (CF_WMEDIAN_SIZE_MAX)];
  int x, y, wx, wy;

  for (y = 0; y < height; y++) {
    int y0, y1;

    clipped_span (y, radius, height, &y0, &y1);
    for (x = 0; x < width; x++) {
      const float g = guide->data[x + (size_t) y * guide->pitch];
      int x0, x1, n = 0;

      clipped_span (x, radius, width, &x0, &x1);
      for (wy = y0; wy <= y1; wy++)
        for (wx = x0; wx <= x1; wx++) {
          if ((wx - x + wy - y) % 2 != 0)
            continue;           /* not a cell of the checkerboard */
          values[n] = src[wx + (size_t) wy * src_pitch];
          weights[n] = range_weight (tables,
              fabsf (guide->data[wx + (size_t) wy * guide->pitch] - g));
          n++;
        }
      dst[x + (size_t) y * dst_pitch] = weighted_median_of (values, weights,
          n, src[x + (size_t) y * src_pitch]);
    }
  }
}

cf_status
cf_flow_weighted_median (const cf_flow * src, const cf_image * guide,
    int size, const cf_wmedian_tables * tables, cf_flow * dst)
{
  if (!cf_wmedian_size_valid (size) || !flows_valid (src, dst) ||
      guide == NULL || tables == NULL || guide->data == NULL ||
      guide->width != src->width || guide->height != src->height ||
      guide->pitch < (size_t) guide->width)
    return CF_ERROR_INVALID;
  weighted_median_plane (src->u, src->pitch, guide, tables, dst->u,
      dst->pitch, src->width, src->height, size / 2);
  weighted_median_plane (src->v, src->pitch, guide, tables, dst->v,
      dst->pitch, src->width, src->height, size / 2);
  return CF_OK;
}
