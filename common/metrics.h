/* gst-cudaflow — flow accuracy metrics
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * EPE = mean over valid pixels of |w - w_gt|; AAE = mean of
 * acos((u u_gt + v v_gt + 1) / (sqrt(u^2+v^2+1) sqrt(u_gt^2+v_gt^2+1))) in
 * degrees (Baker et al., IJCV 2011). Pixels
 * whose ground truth is unknown (cf_flow_is_known) are excluded.
 */
#ifndef CF_METRICS_H
#define CF_METRICS_H

#include "common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  double epe;                   /* mean end-point error, pixels */
  double aae;                   /* mean angular error, degrees */
  double epe_max;               /* largest end-point error, pixels */
  long n_valid;                 /* pixels counted */
} cf_flow_error;

/* Compare an estimate with ground truth of the same size. border > 0 skips
 * that many pixels on each side (synthetic sequences whose edges see content
 * from outside the frame). An estimate vector that is unknown counts as
 * zero flow. CF_ERROR_INVALID on size mismatch or when no pixel is valid. */
cf_status cf_flow_compare (const cf_flow * estimate, const cf_flow * truth,
    int border, cf_flow_error * result);

/* Mean over all pixels of (|u_a - u_b| + |v_a - v_b|) / 2, and the largest
 * component difference; for GPU-vs-CPU comparisons. */
cf_status cf_flow_diff (const cf_flow * a, const cf_flow * b,
    double *mean_abs, double *max_abs);

/* Largest |a - b| over the image and largest |b|; for convolution checks. */
cf_status cf_image_diff (const cf_image * a, const cf_image * b,
    double *max_abs, double *max_ref);

#ifdef __cplusplus
}
#endif
#endif /* CF_METRICS_H */
