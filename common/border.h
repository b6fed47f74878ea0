/* gst-cudaflow — border rules for out-of-image samples
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One helper folds any integer coordinate into [0, n) (or reports "outside"
 * for the zero rule). It is header-only and usable from CUDA device code so
 * the CPU reference and every GPU kernel apply the same rule to every tap,
 * including kernels larger than the image:
 *   zero     ... 0 0 | a b c d | 0 0 ...
 *   clamp    ... a a | a b c d | d d ...
 *   reflect  ... b a | a b c d | d c ...   (half-sample symmetric, period 2n)
 *   wrap     ... c d | a b c d | a b ...   (periodic, period n)
 */
#ifndef CF_BORDER_H
#define CF_BORDER_H

#ifdef __CUDACC__
#define CF_HOST_DEVICE __host__ __device__
#else
#define CF_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_BORDER_ZERO = 0,
  CF_BORDER_CLAMP,
  CF_BORDER_REFLECT,
  CF_BORDER_WRAP
} cf_border;

#define CF_BORDER_COUNT 4

/* Fold coordinate i for a row or column of n > 0 samples. Returns the index
 * in [0, n), or -1 when the sample is outside and the rule is CF_BORDER_ZERO. */
static inline CF_HOST_DEVICE int
cf_border_fold (int i, int n, cf_border border)
{
  int period;

  if (i >= 0 && i < n)
    return i;
  switch (border) {
    case CF_BORDER_ZERO:
      return -1;
    case CF_BORDER_CLAMP:
      return i < 0 ? 0 : n - 1;
    case CF_BORDER_REFLECT:
      period = 2 * n;
      i %= period;
      if (i < 0)
        i += period;
      return i < n ? i : period - 1 - i;
    case CF_BORDER_WRAP:
    default:
      i %= n;
      return i < 0 ? i + n : i;
  }
}

const char *cf_border_name (cf_border border);

#ifdef __cplusplus
}
#endif
#endif /* CF_BORDER_H */
