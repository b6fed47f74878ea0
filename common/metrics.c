/* gst-cudaflow — flow accuracy metrics
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * EPE and AAE exactly as defined by Baker et al. ("A Database and Evaluation Methodology for Optical Flow", IJCV 2011; the
 * (u, v, 1) angle goes back to Barron, Fleet, Beauchemin, IJCV 1994).
 * Sums are accumulated in double on purpose: these are the numbers we
 * report, and a 4K frame has 8 million terms.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/metrics.h"

#include <math.h>

/* 180 / pi */
#define CF_RAD_TO_DEG 57.295779513082320876798

/* End-point error |w - w_gt| = sqrt ((u - u_gt)^2 + (v - v_gt)^2). */
static double
endpoint_error (double u, double v, double gu, double gv)
{
  double du = u - gu, dv = v - gv;

  return sqrt (du * du + dv * dv);
}

/* Angular error in degrees between the space-time vectors (u, v, 1) and
 * (u_gt, v_gt, 1): acos ((u u_gt + v v_gt + 1) / (|(u, v, 1)| |(u_gt,
 * v_gt, 1)|)). Rounding can push the cosine a hair past 1 for identical
 * vectors, so it is clamped to [-1, 1] before acos. */
static double
angular_error (double u, double v, double gu, double gv)
{
  double c = (u * gu + v * gv + 1.0) /
      (sqrt (u * u + v * v + 1.0) * sqrt (gu * gu + gv * gv + 1.0));

  if (c > 1.0)
    c = 1.0;
  else if (c < -1.0)
    c = -1.0;
  return acos (c) * CF_RAD_TO_DEG;
}

/* Mean EPE, mean AAE and largest EPE over the pixels at least @border from
 * every edge whose ground truth is known; an unknown estimate counts as
 * (0, 0) so that a method cannot improve its score by giving up. */
cf_status
cf_flow_compare (const cf_flow * estimate, const cf_flow * truth, int border,
    cf_flow_error * result)
{
  double sum_epe = 0.0, sum_aae = 0.0, max_epe = 0.0;
  long n = 0;
  int x, y;

  if (estimate == NULL || truth == NULL || result == NULL || border < 0
      || estimate->width != truth->width || estimate->height != truth->height)
    return CF_ERROR_INVALID;

  for (y = border; y < truth->height - border; y++) {
    const float *gu_row = truth->u + (size_t) y * truth->pitch;
    const float *gv_row = truth->v + (size_t) y * truth->pitch;
    const float *u_row = estimate->u + (size_t) y * estimate->pitch;
    const float *v_row = estimate->v + (size_t) y * estimate->pitch;

    for (x = border; x < truth->width - border; x++) {
      double u = u_row[x], v = v_row[x], epe;

      if (!cf_flow_is_known (gu_row[x], gv_row[x]))
        continue;
      if (!cf_flow_is_known (u_row[x], v_row[x]))
        u = v = 0.0;
      epe = endpoint_error (u, v, gu_row[x], gv_row[x]);
      sum_epe += epe;
      sum_aae += angular_error (u, v, gu_row[x], gv_row[x]);
      if (epe > max_epe)
        max_epe = epe;
      n++;
    }
  }
  if (n == 0)
    return CF_ERROR_INVALID;
  result->epe = sum_epe / (double) n;
  result->aae = sum_aae / (double) n;
  result->epe_max = max_epe;
  result->n_valid = n;
  return CF_OK;
}

/* |a - b| for one component; a NaN on either side (or inf - inf) is an
 * infinite difference, so a NaN can never pass a tolerance check. Equal
 * values (including two identical "unknown" markers) differ by 0. */
static double
component_diff (float a, float b)
{
  double d;

  if (a == b)
    return 0.0;
  d = fabs ((double) a - (double) b);
  return isnan (d) ? INFINITY : d;
}

/* mean_abs = (1 / N) sum (|u_a - u_b| + |v_a - v_b|) / 2 over all N pixels;
 * max_abs = largest single component difference. Either output may be
 * NULL. */
cf_status
cf_flow_diff (const cf_flow * a, const cf_flow * b, double *mean_abs,
    double *max_abs)
{
  double sum = 0.0, max = 0.0;
  int x, y;

  if (a == NULL || b == NULL || a->width != b->width
      || a->height != b->height || a->width < 1 || a->height < 1)
    return CF_ERROR_INVALID;
  for (y = 0; y < a->height; y++) {
    const float *ua = a->u + (size_t) y * a->pitch;
    const float *va = a->v + (size_t) y * a->pitch;
    const float *ub = b->u + (size_t) y * b->pitch;
    const float *vb = b->v + (size_t) y * b->pitch;

    for (x = 0; x < a->width; x++) {
      double du = component_diff (ua[x], ub[x]);
      double dv = component_diff (va[x], vb[x]);

      sum += 0.5 * (du + dv);
      if (du > max)
        max = du;
      if (dv > max)
        max = dv;
    }
  }
  if (mean_abs != NULL)
    *mean_abs = sum / ((double) a->width * (double) a->height);
  if (max_abs != NULL)
    *max_abs = max;
  return CF_OK;
}

/* max_abs = max |a - b| (NaN counts as infinite), max_ref = max |b|: the
 * caller forms the relative error max_abs / max_ref. Either output may be
 * NULL. */
cf_status
cf_image_diff (const cf_image * a, const cf_image * b, double *max_abs,
    double *max_ref)
{
  double max = 0.0, ref = 0.0;
  int x, y;

  if (a == NULL || b == NULL || a->width != b->width
      || a->height != b->height || a->width < 1 || a->height < 1)
    return CF_ERROR_INVALID;
  for (y = 0; y < a->height; y++) {
    const float *ra = cf_image_row (a, y), *rb = cf_image_row (b, y);

    for (x = 0; x < a->width; x++) {
      double d = component_diff (ra[x], rb[x]);
      double r = fabs ((double) rb[x]);

      if (d > max)
        max = d;
      if (r > ref)
        ref = r;
    }
  }
  if (max_abs != NULL)
    *max_abs = max;
  if (max_ref != NULL)
    *max_ref = ref;
  return CF_OK;
}
