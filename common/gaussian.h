/* gst-cudaflow — sampled Gaussian kernels
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_GAUSSIAN_H
#define CF_GAUSSIAN_H

#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Radius used when none is given: ceil(3 sigma), at least 1. */
int cf_gaussian_radius (float sigma);

/* taps[0 .. 2*radius] = exp(-i^2 / (2 sigma^2)) for i = -radius..radius,
 * normalised to sum 1. sigma > 0, radius >= 0 (radius 0 gives {1}). */
cf_status cf_gaussian_taps (float sigma, int radius, float *taps);

#ifdef __cplusplus
}
#endif
#endif /* CF_GAUSSIAN_H */
