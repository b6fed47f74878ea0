/* gst-cudaflow — sampled Gaussian kernels
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/gaussian.h"

#include <math.h>
#include <stddef.h>

/* Cap on the automatic radius so that 2 * radius + 1 never overflows; far
 * above any kernel side the elements accept (CF_KERNEL_MAX_SIZE). */
#define CF_GAUSSIAN_RADIUS_CAP (1 << 20)

/* Automatic radius r = ceil(3 sigma), at least 1: the truncated tails hold
 * less than 0.3 % of the mass (three-sigma rule). Non-positive or NaN sigma
 * gives 1; huge sigma is capped at CF_GAUSSIAN_RADIUS_CAP. */
int
cf_gaussian_radius (float sigma)
{
  double r;

  if (!(sigma > 0.0f))
    return 1;
  r = ceil (3.0 * (double) sigma);
  if (r < 1.0)
    return 1;
  if (r > (double) CF_GAUSSIAN_RADIUS_CAP)
    return CF_GAUSSIAN_RADIUS_CAP;
  return (int) r;
}

/* taps[r + i] = exp (-i^2 / (2 sigma^2)) / sum, i = -r..r: the sampled
 * (not integrated) Gaussian, renormalised after truncation so the taps sum
 * to 1 (Gonzalez & Woods, Digital Image Processing, 3rd ed., eq. 3.6-7).
 * Evaluated in double and rounded once to float. */
cf_status
cf_gaussian_taps (float sigma, int radius, float *taps)
{
  double s = (double) sigma, two_sigma2, sum = 0.0;
  int i;

  if (taps == NULL || !(sigma > 0.0f) || !isfinite (sigma) || radius < 0
      || radius > CF_GAUSSIAN_RADIUS_CAP)
    return CF_ERROR_INVALID;
  two_sigma2 = 2.0 * s * s;
  for (i = -radius; i <= radius; i++)
    sum += exp (-(double) i * i / two_sigma2);
  for (i = -radius; i <= radius; i++)
    taps[i + radius] = (float) (exp (-(double) i * i / two_sigma2) / sum);
  return CF_OK;
}
