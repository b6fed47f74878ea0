/* gst-cudaflow — convolution kernels: container, text syntax, presets
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Text syntax (inline property and files alike): rows separated by ';' or a
 * newline, values in a row separated by ',' or white space; '#' starts a
 * comment that runs to the end of the line in a file, and to the end of the
 * row (the next ';' or newline) in inline text: "1 # one; 2" is a 1x2
 * column. Blank rows are ignored. Every row must hold the same number of
 * values. Values are C floating-point literals ("1", "-0.25", "1e-3") that
 * fit a float: beyond its largest value ("1e39") or non-zero but below its
 * smallest ("1e-400", which would become 0) they are refused alike. The
 * text is UTF-8 (a leading byte order mark is skipped); a NUL byte or a
 * byte that is not UTF-8 (a binary file) is refused, named by its value.
 * Examples: "1 2 1; 2 4 2; 1 2 1" is a 3x3 kernel, "1,1,1,1,1" a 1x5 row.
 * The anchor is tap (width/2, height/2).
 */
#ifndef CF_KERNEL_H
#define CF_KERNEL_H

#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest kernel side accepted (the elements document 1 .. 1023). */
#define CF_KERNEL_MAX_SIZE 1023

typedef struct
{
  int width;
  int height;
  float *taps;                  /* row-major, width * height values */
} cf_kernel;

typedef enum
{
  CF_KERNEL_PRESET_NONE = 0,
  CF_KERNEL_PRESET_GAUSSIAN,    /* sampled Gaussian, sum 1 */
  CF_KERNEL_PRESET_BOX,         /* all taps 1/(size^2) */
  CF_KERNEL_PRESET_DISK,        /* 1 inside the inscribed disc, sum 1 */
  CF_KERNEL_PRESET_LAPLACIAN    /* size 3: 5-point [0 1 0;1 -4 1;0 1 0];
                                 * larger: Laplacian of Gaussian, zero sum */
} cf_kernel_preset;

/* Zero-filled kernel; NULL on bad size or no memory. */
cf_kernel *cf_kernel_new (int width, int height);
void cf_kernel_free (cf_kernel * kernel);  /* NULL is a no-op */
cf_kernel *cf_kernel_copy (const cf_kernel * kernel);

/* Parse the text syntax above. On CF_ERROR_FORMAT, err says where and why,
 * e.g. "row 3: expected 5 values, got 4" or "row 2: 'x1' is not a number".
 * "Row" counts rows of the matrix for inline text; cf_kernel_load reports
 * file line numbers instead ("line 7: ..."). */
cf_status cf_kernel_parse (const char *text, cf_kernel ** kernel,
    cf_error * err);
cf_status cf_kernel_load (const char *path, cf_kernel ** kernel,
    cf_error * err);

/* Build a preset. size: odd side length >= 1, or 0 for automatic
 * (Gaussian / Laplacian of Gaussian: 2*ceil(3 sigma)+1; box and disk: 3).
 * sigma is used by the Gaussian and by the Laplacian of Gaussian (size > 3). */
cf_status cf_kernel_preset_new (cf_kernel_preset preset, int size,
    float sigma, cf_kernel ** kernel, cf_error * err);

/* Divide by the sum of taps; CF_ERROR_INVALID (kernel unchanged) when the
 * sum is zero or not finite. */
cf_status cf_kernel_normalize (cf_kernel * kernel);

/* 1 for a kernel whose only non-zero tap is 1.0 at the anchor. */
int cf_kernel_is_identity (const cf_kernel * kernel);

/* Taps flipped in both directions (convolution = correlation with the
 * flipped kernel, anchored at (width-1-width/2, height-1-height/2)). */
cf_kernel *cf_kernel_flipped (const cf_kernel * kernel);

/* "WxH" plus a compact rendering of the taps, for logs. Returns a static
 * description length-limited to n bytes of out. */
void cf_kernel_describe (const cf_kernel * kernel, char *out, int n);

#ifdef __cplusplus
}
#endif
#endif /* CF_KERNEL_H */
