/* gst-cudaflow — GPU time of one real 2-D transform pair per shape
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the FFT method's size timing (choose_sizes () in
 * cuda/convolve-fft.cu) measures, over a grid of shapes: cufftPlan2d R2C
 * and C2R plans of rows x columns, then one cufftExecR2C followed by one
 * cufftExecC2R, bracketed by CUDA events on the default stream; after two
 * warm-up pairs, the median of --reps pairs. Every rows x columns of the
 * two lists, --rounds times over (so that drift shows). A markdown table
 * goes to stdout. Built by tests/gpu/cufft-pairs.sh.
 *
 *   cufft-pairs --rows 4320,4608 --columns 4320,4374 [--reps 20] [--rounds 2]
 *
 * Exit status: 0, 1 when CUDA or cuFFT failed, 2 on a usage error, 77
 * without a CUDA device.
 */
#include <cuda_runtime.h>
#include <cufft.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LENGTHS 16
#define MAX_REPS 1000
#define WARM_UPS 2

static int
parse_list (const char *text, int *out)
{
  int n = 0;
  char *end;

  while (*text != '\0' && n < MAX_LENGTHS) {
    long v = strtol (text, &end, 10);

    if (end == text || v < 2 || v > 65536)
      return -1;
    out[n++] = (int) v;
    text = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0')
      return -1;
  }
  return *text == '\0' ? n : -1;
}

static int
compare_floats (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;

  return (x > y) - (x < y);
}

/* Median ms of @reps R2C + C2R pairs of rows x cols; < 0 on failure. */
static float
time_pair (int rows, int cols, int reps, cufftReal * real,
    cufftComplex * spec, cudaEvent_t a, cudaEvent_t b)
{
  cufftHandle r2c, c2r;
  float times[MAX_REPS], median = -1.0f;
  int i;

  if (cufftPlan2d (&r2c, rows, cols, CUFFT_R2C) != CUFFT_SUCCESS)
    return -1.0f;
  if (cufftPlan2d (&c2r, rows, cols, CUFFT_C2R) != CUFFT_SUCCESS) {
    cufftDestroy (r2c);
    return -1.0f;
  }
  for (i = 0; i < WARM_UPS + reps; i++) {
    float ms;

    if (cudaEventRecord (a, 0) != cudaSuccess
        || cufftExecR2C (r2c, real, spec) != CUFFT_SUCCESS
        || cufftExecC2R (c2r, spec, real) != CUFFT_SUCCESS
        || cudaEventRecord (b, 0) != cudaSuccess
        || cudaEventSynchronize (b) != cudaSuccess
        || cudaEventElapsedTime (&ms, a, b) != cudaSuccess)
      goto out;
    if (i >= WARM_UPS)
      times[i - WARM_UPS] = ms;
  }
  qsort (times, reps, sizeof (float), compare_floats);
  median = times[reps / 2];
out:
  cufftDestroy (r2c);
  cufftDestroy (c2r);
  return median;
}

static int
usage (const char *prog)
{
  fprintf (stderr, "usage: %s --rows R,... --columns C,... [--reps N] "
      "[--rounds N]\n", prog);
  return 2;
}

int
main (int argc, char **argv)
{
  int rows[MAX_LENGTHS], cols[MAX_LENGTHS], n_rows = 0, n_cols = 0;
  int reps = 20, rounds = 2, devices = 0, max_rows = 0, max_cols = 0;
  int i, j, round;
  cufftReal *real = NULL;
  cufftComplex *spec = NULL;
  cudaEvent_t a = NULL, b = NULL;
  struct cudaDeviceProp prop;
  int status = 0;

  for (i = 1; i < argc; i++) {
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;

    if (value == NULL)
      return usage (argv[0]);
    if (strcmp (argv[i], "--rows") == 0)
      n_rows = parse_list (value, rows);
    else if (strcmp (argv[i], "--columns") == 0)
      n_cols = parse_list (value, cols);
    else if (strcmp (argv[i], "--reps") == 0)
      reps = atoi (value);
    else if (strcmp (argv[i], "--rounds") == 0)
      rounds = atoi (value);
    else
      return usage (argv[0]);
    i++;
  }
  if (n_rows < 1 || n_cols < 1 || reps < 1 || reps > MAX_REPS
      || rounds < 1 || rounds > 100)
    return usage (argv[0]);
  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices < 1) {
    fprintf (stderr, "no CUDA device\n");
    return 77;
  }
  for (i = 0; i < n_rows; i++)
    max_rows = rows[i] > max_rows ? rows[i] : max_rows;
  for (j = 0; j < n_cols; j++)
    max_cols = cols[j] > max_cols ? cols[j] : max_cols;
  /* zeros: the time does not depend on the values */
  if (cudaGetDeviceProperties (&prop, 0) != cudaSuccess
      || cudaMalloc ((void **) &real, (size_t) max_rows * max_cols
          * sizeof (cufftReal)) != cudaSuccess
      || cudaMalloc ((void **) &spec, (size_t) max_rows * (max_cols / 2 + 1)
          * sizeof (cufftComplex)) != cudaSuccess
      || cudaMemset (real, 0, (size_t) max_rows * max_cols
          * sizeof (cufftReal)) != cudaSuccess
      || cudaEventCreate (&a) != cudaSuccess
      || cudaEventCreate (&b) != cudaSuccess) {
    fprintf (stderr, "CUDA setup failed\n");
    status = 1;
    goto out;
  }

  printf ("%s (%d SMs); cuFFT R2C + C2R, median ms of %d pairs after %d "
      "warm-ups; rounds separated by /\n\n| rows \\ columns |", prop.name,
      prop.multiProcessorCount, reps, WARM_UPS);
  for (j = 0; j < n_cols; j++)
    printf (" %d |", cols[j]);
  printf ("\n|---|");
  for (j = 0; j < n_cols; j++)
    printf ("---|");
  printf ("\n");
  for (i = 0; i < n_rows; i++) {
    printf ("| %d |", rows[i]);
    for (j = 0; j < n_cols; j++) {
      for (round = 0; round < rounds; round++) {
        const float ms = time_pair (rows[i], cols[j], reps, real, spec, a, b);

        if (ms < 0.0f) {
          printf ("%sfailed", round ? " / " : " ");
          status = 1;
        } else {
          printf ("%s%.3f", round ? " / " : " ", ms);
        }
      }
      printf (" |");
      fflush (stdout);
    }
    printf ("\n");
  }

out:
  if (a != NULL)
    cudaEventDestroy (a);
  if (b != NULL)
    cudaEventDestroy (b);
  cudaFree (real);
  cudaFree (spec);
  return status;
}
