/* gst-cudaflow — synthetic image pairs with exact ground-truth flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Texture. T(x, y) = 128 + sum_i a_i cos (k_i . (x, y) + phi_i) over
 * N_WAVES plane waves with a_i = 11 (sum 110, so T stays in [18, 238] and
 * never clips when quantised to 8 bits), directions spread evenly over the
 * half circle (one per sector of pi / N_WAVES, jittered) so every direction
 * has gradient, wavelengths drawn in [lambda, 4 lambda] with lambda =
 * params->wavelength (band-limited: nothing shorter than lambda), phases
 * uniform. The seed drives a private splitmix32 generator (no rand ()), so
 * a seed gives the same texture on every host.
 *
 * Motion (Middlebury convention, u right, v down, pixel centres at integer
 * coordinates): frame0 (x) = T (x), and frame1 is defined by
 * frame1 (x + w (x)) = frame0 (x), i.e. frame1 (y) = T (x) with x the unique
 * solution of x + w (x) = y. The truth holds w at frame0's pixel centres.
 *   translation:   w (x) = t, so frame1 (y) = T (y - t).
 *   rotation/zoom: x' = c + z R (x - c) + t, c = ((W - 1) / 2, (H - 1) / 2),
 *                  R = [cos a, sin a; -sin a, cos a], which turns the
 *                  picture counter-clockwise on screen (y points down: the
 *                  point right of c moves up); inverse
 *                  x = c + R^T (x' - c - t) / z, exact.
 *   smooth:        w = A s (cos phi, sin phi), |w| = A |s| <= A, with
 *                  s = sin (k x + p0) cos (0.8 k y + p1) and
 *                  phi = p4 + 0.75 (sin (0.9 k x + p2) + sin (k y + p3));
 *                  its Jacobian norm is at most 1.43 A k <= 0.25, so
 *                  x_{n+1} = y - w (x_n) is a contraction and converges to
 *                  1e-9 px in a few tens of steps.
 *
 * Everything is evaluated in double on purpose and rounded to float once:
 * this is the ground truth the fp32 code is measured against, and T is
 * evaluated at coordinates of several hundred pixels where a float argument
 * would already cost 1e-3 grey levels.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/synth.h"

#include <math.h>
#include <stdint.h>

#define CF_SYNTH_PI 3.14159265358979323846
#define CF_SYNTH_TWO_PI 6.28318530717958647692

/* Number of plane waves in T, and the amplitude of each (grey levels). */
#define N_WAVES 10
#define WAVE_AMPLITUDE (110.0 / N_WAVES)
#define TEXTURE_MEAN 128.0

/* Shortest accepted texture wavelength, pixels (2 px is Nyquist; 4 keeps
 * derivative filters accurate). */
#define MIN_WAVELENGTH 4.0

/* Smooth field: longest-side fraction and floor of its period (pixels),
 * and the bound on its Jacobian norm (contraction factor of the inverse
 * iteration). */
#define SMOOTH_PERIOD_FRACTION 0.75
#define SMOOTH_MIN_PERIOD 64.0
#define SMOOTH_MAX_GRADIENT 0.25
#define SMOOTH_GRADIENT_FACTOR 1.43     /* ||J|| <= 1.43 A k, see above */

/* Fixed-point inversion: stop when a step moves less than this (pixels),
 * or after this many steps. */
#define INVERSE_TOLERANCE 1e-9
#define INVERSE_MAX_STEPS 200

typedef struct
{
  double kx, ky;                /* spatial frequency, radians per pixel */
  double phase;                 /* radians */
  double amplitude;             /* grey levels */
} wave;

/* The motion of one (params, width, height), precomputed. */
typedef struct
{
  cf_synth_motion motion;
  double tx, ty;
  /* rotation/zoom */
  double cos_a, sin_a, zoom, cx, cy;
  /* smooth */
  double amplitude, k, p[5];
} motion_model;

/* Documented defaults (synth.h). Amplitude 2 px for the smooth field. */
void
cf_synth_params_init (cf_synth_params * params)
{
  params->motion = CF_SYNTH_TRANSLATION;
  params->tx = 1.5f;
  params->ty = -0.75f;
  params->angle = 0.0f;
  params->zoom = 1.0f;
  params->amplitude = 2.0f;
  params->wavelength = 12.0f;
  params->seed = 1;
}

/* Uniform double in [0, 1) with 24 random bits; splitmix32-style mixing of
 * a Weyl sequence (deterministic per seed, host-independent). */
static double
next_unit (uint32_t * state)
{
  uint32_t z = (*state += 0x9e3779b9u);

  z = (z ^ (z >> 16)) * 0x85ebca6bu;
  z = (z ^ (z >> 13)) * 0xc2b2ae35u;
  z ^= z >> 16;
  return (double) (z >> 8) * (1.0 / 16777216.0);
}

/* Draw the N_WAVES waves of T for params->seed (see the file comment).
 * A wavelength below MIN_WAVELENGTH (or NaN) is raised to it here; the
 * functions that can report errors reject it instead. */
static void
make_waves (const cf_synth_params * params, wave waves[N_WAVES])
{
  uint32_t state = params->seed * 2654435761u + 12345u;
  double lambda = params->wavelength;
  int i;

  if (!(lambda >= MIN_WAVELENGTH))
    lambda = MIN_WAVELENGTH;
  for (i = 0; i < N_WAVES; i++) {
    double dir = (i + next_unit (&state)) * (CF_SYNTH_PI / N_WAVES);
    double wl = lambda * (1.0 + 3.0 * next_unit (&state));

    waves[i].kx = CF_SYNTH_TWO_PI / wl * cos (dir);
    waves[i].ky = CF_SYNTH_TWO_PI / wl * sin (dir);
    waves[i].phase = CF_SYNTH_TWO_PI * next_unit (&state);
    waves[i].amplitude = WAVE_AMPLITUDE;
  }
}

/* T (x, y) = 128 + sum_i a_i cos (kx_i x + ky_i y + phi_i). */
static double
texture_at (const wave waves[N_WAVES], double x, double y)
{
  double t = TEXTURE_MEAN;
  int i;

  for (i = 0; i < N_WAVES; i++)
    t += waves[i].amplitude * cos (waves[i].kx * x + waves[i].ky * y +
        waves[i].phase);
  return t;
}

/* CF_OK when params describe something we can render: a finite wavelength
 * of at least MIN_WAVELENGTH and, when @with_motion, a known motion type
 * with finite values, zoom > 0 and amplitude >= 0. */
static cf_status
check_params (const cf_synth_params * params, int with_motion)
{
  if (params == NULL || !isfinite (params->wavelength)
      || params->wavelength < MIN_WAVELENGTH)
    return CF_ERROR_INVALID;
  if (!with_motion)
    return CF_OK;
  if (!isfinite (params->tx) || !isfinite (params->ty))
    return CF_ERROR_INVALID;
  switch (params->motion) {
    case CF_SYNTH_TRANSLATION:
      return CF_OK;
    case CF_SYNTH_ROTATION_ZOOM:
      return isfinite (params->angle) && isfinite (params->zoom)
          && params->zoom > 0.0f ? CF_OK : CF_ERROR_INVALID;
    case CF_SYNTH_SMOOTH:
      return isfinite (params->amplitude) && params->amplitude >= 0.0f
          ? CF_OK : CF_ERROR_INVALID;
  }
  return CF_ERROR_INVALID;
}

/* Precompute the motion of a width x height frame (see the file comment
 * for the formulas). The smooth field's wavenumber is 2 pi / period with
 * period = max (64, 0.75 max (W, H)), lowered further when needed so that
 * 1.43 A k <= SMOOTH_MAX_GRADIENT; its five phases come from the seed. */
static void
make_motion (const cf_synth_params * params, int width, int height,
    motion_model * m)
{
  double a = params->angle * (CF_SYNTH_PI / 180.0);
  double longest = width > height ? width : height;
  double period = SMOOTH_PERIOD_FRACTION * longest;
  uint32_t state = params->seed * 0x85ebca6bu + 0x6a09e667u;
  int i;

  m->motion = params->motion;
  m->tx = params->tx;
  m->ty = params->ty;
  m->cos_a = cos (a);
  m->sin_a = sin (a);
  m->zoom = params->zoom;
  m->cx = 0.5 * (width - 1);
  m->cy = 0.5 * (height - 1);
  m->amplitude = params->amplitude;
  if (period < SMOOTH_MIN_PERIOD)
    period = SMOOTH_MIN_PERIOD;
  m->k = CF_SYNTH_TWO_PI / period;
  if (SMOOTH_GRADIENT_FACTOR * fabs (m->amplitude) * m->k > SMOOTH_MAX_GRADIENT)
    m->k = SMOOTH_MAX_GRADIENT / (SMOOTH_GRADIENT_FACTOR * fabs (m->amplitude));
  for (i = 0; i < 5; i++)
    m->p[i] = CF_SYNTH_TWO_PI * next_unit (&state);
}

/* w (x, y) = A s (cos phi, sin phi): the smooth non-rigid field. */
static void
smooth_motion (const motion_model * m, double x, double y, double *u, double *v)
{
  double k = m->k;
  double s = sin (k * x + m->p[0]) * cos (0.8 * k * y + m->p[1]);
  double phi = m->p[4] + 0.75 * (sin (0.9 * k * x + m->p[2]) +
      sin (k * y + m->p[3]));

  *u = m->amplitude * s * cos (phi);
  *v = m->amplitude * s * sin (phi);
}

/* w (x) = x' - x with x' = c + z R (x - c) + t (rotation/zoom about the
 * centre, then translation; R turns counter-clockwise on screen). */
static void
affine_motion (const motion_model * m, double x, double y, double *u, double *v)
{
  double rx = x - m->cx, ry = y - m->cy;
  double nx = m->cx + m->zoom * (m->cos_a * rx + m->sin_a * ry) + m->tx;
  double ny = m->cy + m->zoom * (-m->sin_a * rx + m->cos_a * ry) + m->ty;

  *u = nx - x;
  *v = ny - y;
}

/* w at a point of frame 0, for any motion type. */
static void
motion_at (const motion_model * m, double x, double y, double *u, double *v)
{
  switch (m->motion) {
    case CF_SYNTH_ROTATION_ZOOM:
      affine_motion (m, x, y, u, v);
      return;
    case CF_SYNTH_SMOOTH:
      smooth_motion (m, x, y, u, v);
      return;
    case CF_SYNTH_TRANSLATION:
      break;
  }
  *u = m->tx;
  *v = m->ty;
}

/* The point (x0, y0) of frame 0 with (x0, y0) + w (x0, y0) = (x1, y1).
 * Translation: x = y - t. Rotation/zoom: x = c + R^T (y - c - t) / z, with
 * R^-1 = R^T. Smooth: fixed-point iteration x_{n+1} = y - w (x_n) started
 * from y - w (y); w's Jacobian norm is <= 0.25, so the error shrinks at
 * least 4x per step and the last step bounds it (Banach). */
static void
inverse_motion (const motion_model * m, double x1, double y1, double *x0,
    double *y0)
{
  double px, py, u, v;
  int i;

  switch (m->motion) {
    case CF_SYNTH_ROTATION_ZOOM:
      px = (x1 - m->cx - m->tx) / m->zoom;
      py = (y1 - m->cy - m->ty) / m->zoom;
      *x0 = m->cx + m->cos_a * px - m->sin_a * py;
      *y0 = m->cy + m->sin_a * px + m->cos_a * py;
      return;
    case CF_SYNTH_SMOOTH:
      px = x1;
      py = y1;
      for (i = 0; i < INVERSE_MAX_STEPS; i++) {
        double nx, ny;

        smooth_motion (m, px, py, &u, &v);
        nx = x1 - u;
        ny = y1 - v;
        if (fabs (nx - px) < INVERSE_TOLERANCE
            && fabs (ny - py) < INVERSE_TOLERANCE) {
          px = nx;
          py = ny;
          break;
        }
        px = nx;
        py = ny;
      }
      *x0 = px;
      *y0 = py;
      return;
    case CF_SYNTH_TRANSLATION:
      break;
  }
  *x0 = x1 - m->tx;
  *y0 = y1 - m->ty;
}

/* T at one point; exact up to the final rounding to float. */
float
cf_synth_sample (const cf_synth_params * params, float x, float y)
{
  wave waves[N_WAVES];

  if (params == NULL)
    return NAN;
  make_waves (params, waves);
  return (float) texture_at (waves, x, y);
}

/* out (x, y) = T (x + dx, y + dy) at every pixel centre: a shifted view of
 * the same texture (dx = -k tx renders frame k of a translation). */
cf_status
cf_synth_texture (const cf_synth_params * params, float dx, float dy,
    cf_image * out)
{
  wave waves[N_WAVES];
  int x, y;

  if (out == NULL || out->data == NULL || !isfinite (dx) || !isfinite (dy)
      || check_params (params, 0) != CF_OK)
    return CF_ERROR_INVALID;
  make_waves (params, waves);
  for (y = 0; y < out->height; y++) {
    float *row = cf_image_row (out, y);

    for (x = 0; x < out->width; x++)
      row[x] = (float) texture_at (waves, (double) x + dx, (double) y + dy);
  }
  return CF_OK;
}

/* w at (x, y) of frame 0 of a width x height frame; (NaN, NaN) for
 * parameters cf_synth_pair would reject. */
void
cf_synth_motion_at (const cf_synth_params * params, int width, int height,
    float x, float y, float *u, float *v)
{
  motion_model m;
  double du, dv;

  if (check_params (params, 1) != CF_OK) {
    *u = *v = NAN;
    return;
  }
  make_motion (params, width, height, &m);
  motion_at (&m, x, y, &du, &dv);
  *u = (float) du;
  *v = (float) dv;
}

/* Inverse of x -> x + w (x), see inverse_motion; (NaN, NaN) for parameters
 * cf_synth_pair would reject. */
void
cf_synth_motion_inverse_at (const cf_synth_params * params, int width,
    int height, float x1, float y1, float *x, float *y)
{
  motion_model m;
  double dx, dy;

  if (check_params (params, 1) != CF_OK) {
    *x = *y = NAN;
    return;
  }
  make_motion (params, width, height, &m);
  inverse_motion (&m, x1, y1, &dx, &dy);
  *x = (float) dx;
  *y = (float) dy;
}

/* frame0 (x) = T (x); frame1 (y) = T (x) with x + w (x) = y;
 * truth (x) = w (x), at every pixel centre. */
cf_status
cf_synth_pair (int width, int height, const cf_synth_params * params,
    cf_image ** frame0, cf_image ** frame1, cf_flow ** truth)
{
  wave waves[N_WAVES];
  motion_model m;
  cf_image *f0, *f1;
  cf_flow *gt;
  int x, y;

  if (frame0 == NULL || frame1 == NULL || truth == NULL)
    return CF_ERROR_INVALID;
  *frame0 = *frame1 = NULL;
  *truth = NULL;
  if (width < 1 || height < 1 || width > CF_MAX_DIMENSION
      || height > CF_MAX_DIMENSION || check_params (params, 1) != CF_OK)
    return CF_ERROR_INVALID;
  f0 = cf_image_new (width, height);
  f1 = cf_image_new (width, height);
  gt = cf_flow_new (width, height);
  if (f0 == NULL || f1 == NULL || gt == NULL) {
    cf_image_free (f0);
    cf_image_free (f1);
    cf_flow_free (gt);
    return CF_ERROR_NO_MEMORY;
  }
  make_waves (params, waves);
  make_motion (params, width, height, &m);
  for (y = 0; y < height; y++) {
    float *row0 = cf_image_row (f0, y), *row1 = cf_image_row (f1, y);
    float *gu = gt->u + (size_t) y * gt->pitch;
    float *gv = gt->v + (size_t) y * gt->pitch;

    for (x = 0; x < width; x++) {
      double u, v, sx, sy;

      row0[x] = (float) texture_at (waves, x, y);
      motion_at (&m, x, y, &u, &v);
      gu[x] = (float) u;
      gv[x] = (float) v;
      inverse_motion (&m, x, y, &sx, &sy);
      row1[x] = (float) texture_at (waves, sx, sy);
    }
  }
  *frame0 = f0;
  *frame1 = f1;
  *truth = gt;
  return CF_OK;
}
