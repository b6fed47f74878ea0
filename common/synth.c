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
 * Degradation (cf_synth_pair only; with the defaults none of it runs):
 *   motion blur:   frame0 (x) = mean_s T (x - s w (x)), s in [-e/2, e/2],
 *                  e the exposure; frame1 (y) = the same mean at the
 *                  source point x of y with w (x), so a translated pair
 *                  still satisfies frame1 (x + t) = frame0 (x) exactly;
 *                  other motions blur along the straight line of the
 *                  local w, an approximation. A midpoint sum of
 *                  n = ceil (2 e |w|) samples, 0.5 px apart or closer.
 *   illumination:  frame1 <- g frame1 + b.
 *   noise:         + sigma z per pixel of both frames, z standard normal
 *                  by Box-Muller from a splitmix32 stream of the seed.
 *   clamping:      to [0, 255], only when one of the above is asked for,
 *                  so the default pair is the exact one.
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

/* Noise stream: each frame's pixels draw, row by row, from one generator
 * started here (frame 0 first), apart from the texture's and the
 * motion's. */
#define NOISE_SEED_MULTIPLIER 0xc2b2ae35u
#define NOISE_SEED_OFFSET 0x3c6ef372u

/* Range of the stored frames (8-bit grey levels). */
#define GREY_MAX 255.0f

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
  params->motion_blur = 0.0f;
  params->gain = 1.0f;
  params->bias = 0.0f;
  params->noise = 0.0f;
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

/* Mean over s in [-e/2, e/2] of T (x - s (u, v)) by the midpoint rule,
 * s_i = e ((i + 0.5) / n - 0.5) for i < n = ceil (2 e |w|) clamped to
 * 1..CF_SYNTH_MAX_BLUR_SAMPLES, so samples lie at most 0.5 px apart on the
 * path of length e |w| (below the cap). n = 1 (no exposure, no motion, or
 * a path under 0.5 px) is T (x, y) itself. */
static double
blurred_texture_at (const wave waves[N_WAVES], double exposure, double x,
    double y, double u, double v)
{
  double n_real = ceil (2.0 * exposure * hypot (u, v)), sum = 0.0;
  int n, i;

  if (!(n_real > 1.0))
    return texture_at (waves, x, y);
  n = n_real < CF_SYNTH_MAX_BLUR_SAMPLES ? (int) n_real :
      CF_SYNTH_MAX_BLUR_SAMPLES;
  for (i = 0; i < n; i++) {
    double s = exposure * ((i + 0.5) / n - 0.5);

    sum += texture_at (waves, x - s * u, y - s * v);
  }
  return sum / n;
}

/* Standard normal deviate, Box-Muller: z = sqrt (-2 ln u1) cos (2 pi u2)
 * with u1 in (0, 1] and u2 in [0, 1) uniform (Box and Muller, Ann. Math.
 * Statist. 29, 1958); |z| <= 5.8 with next_unit's 24 bits. */
static double
next_gaussian (uint32_t * state)
{
  double u1 = 1.0 - next_unit (state);
  double u2 = next_unit (state);

  return sqrt (-2.0 * log (u1)) * cos (CF_SYNTH_TWO_PI * u2);
}

/* img <- gain img + bias at every pixel (grey levels). */
static void
apply_illumination (cf_image * img, double gain, double bias)
{
  int x, y;

  for (y = 0; y < img->height; y++) {
    float *row = cf_image_row (img, y);

    for (x = 0; x < img->width; x++)
      row[x] = (float) (gain * row[x] + bias);
  }
}

/* img <- img + sigma z, z independent standard normal per pixel, drawn
 * row by row from @state. */
static void
add_noise (cf_image * img, double sigma, uint32_t * state)
{
  int x, y;

  for (y = 0; y < img->height; y++) {
    float *row = cf_image_row (img, y);

    for (x = 0; x < img->width; x++)
      row[x] = (float) (row[x] + sigma * next_gaussian (state));
  }
}

/* img <- min (max (img, 0), GREY_MAX). */
static void
clamp_grey (cf_image * img)
{
  int x, y;

  for (y = 0; y < img->height; y++) {
    float *row = cf_image_row (img, y);

    for (x = 0; x < img->width; x++)
      row[x] = row[x] < 0.0f ? 0.0f : row[x] > GREY_MAX ? GREY_MAX : row[x];
  }
}

/* 1 when params ask for any degradation: blur, an illumination change or
 * noise. */
static int
is_degraded (const cf_synth_params * params)
{
  return params->motion_blur != 0.0f || params->gain != 1.0f
      || params->bias != 0.0f || params->noise != 0.0f;
}

/* Illumination change of frame 1, noise on both frames, then clamping to
 * the 8-bit range (blur is rendered with the texture). */
static void
degrade_frames (const cf_synth_params * params, cf_image * f0, cf_image * f1)
{
  uint32_t state = params->seed * NOISE_SEED_MULTIPLIER + NOISE_SEED_OFFSET;

  apply_illumination (f1, params->gain, params->bias);
  if (params->noise > 0.0f) {
    add_noise (f0, params->noise, &state);
    add_noise (f1, params->noise, &state);
  }
  clamp_grey (f0);
  clamp_grey (f1);
}

/* CF_OK when the degradation fields are within their ranges (synth.h);
 * NaN is out of every range. */
static cf_status
check_degradation (const cf_synth_params * params)
{
  if (!(params->motion_blur >= 0.0f
          && params->motion_blur <= CF_SYNTH_MAX_MOTION_BLUR)
      || !(params->gain >= CF_SYNTH_MIN_GAIN
          && params->gain <= CF_SYNTH_MAX_GAIN)
      || !(fabsf (params->bias) <= CF_SYNTH_MAX_BIAS)
      || !(params->noise >= 0.0f && params->noise <= CF_SYNTH_MAX_NOISE))
    return CF_ERROR_INVALID;
  return CF_OK;
}

/* CF_OK when params describe something we can render: a finite wavelength
 * of at least MIN_WAVELENGTH and, when @with_motion, a known motion type
 * with finite values, zoom > 0 and amplitude >= 0, and the degradation
 * within its ranges. */
static cf_status
check_params (const cf_synth_params * params, int with_motion)
{
  if (params == NULL || !isfinite (params->wavelength)
      || params->wavelength < MIN_WAVELENGTH)
    return CF_ERROR_INVALID;
  if (!with_motion)
    return CF_OK;
  if (!isfinite (params->tx) || !isfinite (params->ty)
      || check_degradation (params) != CF_OK)
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
 * truth (x) = w (x), at every pixel centre; with motion blur T is
 * averaged along w (x) at both points, then the frames are degraded
 * (see the file comment). */
cf_status
cf_synth_pair (int width, int height, const cf_synth_params * params,
    cf_image ** frame0, cf_image ** frame1, cf_flow ** truth)
{
  wave waves[N_WAVES];
  motion_model m;
  cf_image *f0, *f1;
  cf_flow *gt;
  double exposure;
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
  exposure = params->motion_blur;
  for (y = 0; y < height; y++) {
    float *row0 = cf_image_row (f0, y), *row1 = cf_image_row (f1, y);
    float *gu = gt->u + (size_t) y * gt->pitch;
    float *gv = gt->v + (size_t) y * gt->pitch;

    for (x = 0; x < width; x++) {
      double u, v, sx, sy, su = 0.0, sv = 0.0;

      motion_at (&m, x, y, &u, &v);
      row0[x] = (float) blurred_texture_at (waves, exposure, x, y, u, v);
      gu[x] = (float) u;
      gv[x] = (float) v;
      inverse_motion (&m, x, y, &sx, &sy);
      if (exposure > 0.0)
        motion_at (&m, sx, sy, &su, &sv);
      row1[x] = (float) blurred_texture_at (waves, exposure, sx, sy, su, sv);
    }
  }
  if (is_degraded (params))
    degrade_frames (params, f0, f1);
  *frame0 = f0;
  *frame1 = f1;
  *truth = gt;
  return CF_OK;
}
