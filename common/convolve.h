/* gst-cudaflow — CPU reference 2-D convolution (the test oracle)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * 'same' output size. With K of size kw x kh and anchor (ax, ay) =
 * (kw/2, kh/2):
 *   correlation  out(x, y) = sum_{j,i} K[j][i] in(x + i - ax, y + j - ay)
 *   convolution  out(x, y) = sum_{j,i} K[j][i] in(x - i + ax, y - j + ay)
 * Out-of-image samples follow the border rule (common/border.h), applied to
 * every tap, so kernels larger than the image are well defined. Sums are
 * accumulated in double on purpose: this is the accuracy reference the fp32
 * and fp16 GPU methods are measured against.
 */
#ifndef CF_CONVOLVE_H
#define CF_CONVOLVE_H

#include "common/border.h"
#include "common/image.h"
#include "common/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_CONVOLUTION = 0,           /* true convolution (kernel flipped) */
  CF_CORRELATION                /* cross-correlation */
} cf_conv_mode;

/* src and dst must have the same size and must not overlap. */
cf_status cf_convolve (const cf_image * src, const cf_kernel * kernel,
    cf_border border, cf_conv_mode mode, cf_image * dst);

/* The same sums, not rounded to float: the float64 reference of the
 * accuracy tables. dst holds src->height rows of dst_stride doubles. */
cf_status cf_convolve_f64 (const cf_image * src, const cf_kernel * kernel,
    cf_border border, cf_conv_mode mode, double *dst, size_t dst_stride);

/* Relative error of a result against a float64 reference, per pixel
 * |img - ref| / max (|ref|, CF_RELATIVE_ERROR_FLOOR * max |ref|): the
 * floor keeps pixels whose true value is (nearly) 0 from dominating. On
 * positive data (the accuracy protocol: image and kernel in [0, 1)) it
 * never applies. A non-finite result counts as an infinite error. */
#define CF_RELATIVE_ERROR_FLOOR 1e-6

typedef struct
{
  double median;
  double max;
} cf_relative_error_stats;

cf_status cf_relative_error (const cf_image * img, const double *ref,
    size_t ref_stride, cf_relative_error_stats * stats);

#ifdef __cplusplus
}
#endif
#endif /* CF_CONVOLVE_H */
