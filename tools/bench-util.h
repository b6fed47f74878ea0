/* gst-cudaflow — small helpers shared by the benchmark programs
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_BENCH_UTIL_H
#define CF_BENCH_UTIL_H

#include <stdint.h>

/* Median of @n > 0 values; sorts @v in place (v[0] is then the minimum). */
double cf_bench_median (double *v, int n);

/* xorshift32 in [0, 1): the same data on every run and machine; @state
 * must not be 0. */
float cf_bench_uniform (uint32_t * state);

#endif /* CF_BENCH_UTIL_H */
