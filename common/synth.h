/* gst-cudaflow — synthetic image pairs with exact ground-truth flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The texture is an analytic, smooth, band-limited function T(x, y) with
 * values in [0, 255] (a seeded sum of oriented sinusoids), so it can be
 * sampled exactly anywhere: frame0(x) = T(x) and frame1 is built so that
 * frame1(x + w(x)) = frame0(x) holds exactly (Middlebury convention), with
 * no interpolation error. Pixel centres are at integer coordinates.
 *
 * Optionally the pair is degraded the way camera video is (motion blur,
 * an illumination change between the frames, sensor noise, then 8-bit
 * range clamping), to check how robust a flow method is; the ground-truth
 * flow is the same with or without degradation. With the defaults
 * (no degradation) the pair is the exact one above, bit for bit.
 */
#ifndef CF_SYNTH_H
#define CF_SYNTH_H

#include "common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_SYNTH_TRANSLATION,         /* w(x) = (tx, ty) */
  CF_SYNTH_ROTATION_ZOOM,       /* about the image centre, plus (tx, ty) */
  CF_SYNTH_SMOOTH               /* smooth non-rigid field, |w| <= amplitude */
} cf_synth_motion;

typedef struct
{
  cf_synth_motion motion;
  float tx, ty;                 /* translation, pixels */
  float angle;                  /* rotation, degrees, counter-clockwise on screen */
  float zoom;                   /* scale factor, 1 = none */
  float amplitude;              /* CF_SYNTH_SMOOTH: peak displacement, pixels */
  float wavelength;             /* shortest texture wavelength, pixels (>= 4) */
  unsigned int seed;

  /* Degradation of cf_synth_pair's frames, applied in this order: */

  /* Motion blur: the exposure time as a fraction of the frame interval,
   * 0..1 (0 = sharp). Each frame is the mean of the texture over the
   * exposure, along the motion:
   *   frame0 (x) = mean over s in [-e/2, e/2] of T (x - s w (x)),
   *   frame1 (y) = the same mean at the source point x of y
   *                (x + w (x) = y), along w (x),
   * so frame1 (x + w (x)) = frame0 (x) still holds exactly for a
   * translation (before illumination and noise). For rotation/zoom and the smooth field the path is the
   * straight line through x along the local w (x), an approximation of
   * the true (curved, non-uniform) trajectory. The mean is a midpoint sum
   * of n = ceil (2 e |w|) samples (at least 1), 0.5 px apart or closer,
   * capped at CF_SYNTH_MAX_BLUR_SAMPLES (longer blurs are sampled more
   * coarsely). */
  float motion_blur;
  /* Illumination change of frame 1 (fog, exposure change):
   * frame1 <- gain * frame1 + bias, grey levels 0..255. gain in
   * [CF_SYNTH_MIN_GAIN, CF_SYNTH_MAX_GAIN], default 1; bias in
   * [-CF_SYNTH_MAX_BIAS, CF_SYNTH_MAX_BIAS], default 0. Frame 0 keeps
   * its illumination. */
  float gain;
  float bias;
  /* Sensor noise: the standard deviation, in grey levels, of independent
   * zero-mean Gaussian noise added to every pixel of both frames after
   * blur and illumination, 0..CF_SYNTH_MAX_NOISE (0 = none). Drawn from
   * @seed in a stream of its own: for one frame size, the same seed gives
   * the same noise whatever the motion, blur and illumination. */
  float noise;
  /* Finally, when any of the above is asked for, every value is clamped
   * to 0..255 (frames are stored as 8-bit images); without degradation
   * the frames are left exactly as computed. */
} cf_synth_params;

/* Ranges of the degradation fields (see cf_synth_params). */
#define CF_SYNTH_MAX_MOTION_BLUR 1.0f
#define CF_SYNTH_MIN_GAIN 0.1f
#define CF_SYNTH_MAX_GAIN 10.0f
#define CF_SYNTH_MAX_BIAS 255.0f
#define CF_SYNTH_MAX_NOISE 255.0f
/* Most texture samples per pixel for motion blur. */
#define CF_SYNTH_MAX_BLUR_SAMPLES 256

/* Defaults: translation (1.5, -0.75), zoom 1, wavelength 12, seed 1; no
 * degradation (motion_blur 0, gain 1, bias 0, noise 0). */
void cf_synth_params_init (cf_synth_params * params);

/* T at any point (exact; the texture is analytic). */
float cf_synth_sample (const cf_synth_params * params, float x, float y);

/* out(x, y) = T(x + dx, y + dy) at every pixel centre of @out. */
cf_status cf_synth_texture (const cf_synth_params * params, float dx,
    float dy, cf_image * out);

/* The motion field w at a point of frame 0 (translation, rotation/zoom
 * about the centre of a width x height frame, or the smooth field). */
void cf_synth_motion_at (const cf_synth_params * params, int width,
    int height, float x, float y, float *u, float *v);

/* The point x of frame 0 that moves onto (x1, y1) of frame 1, i.e. the
 * solution of x + w(x) = (x1, y1), so that frame1 (x1, y1) = T (x): exact
 * for translation and rotation/zoom, fixed-point iteration to 1e-9 px for
 * the smooth field. */
void cf_synth_motion_inverse_at (const cf_synth_params * params, int width,
    int height, float x1, float y1, float *x, float *y);

/* Make (frame0, frame1, truth), degraded as @params asks (cf_synth_sample,
 * cf_synth_texture and the motion functions never are): caller frees all
 * three. CF_ERROR_INVALID for a size outside 1..CF_MAX_DIMENSION or any
 * parameter outside its range. */
cf_status cf_synth_pair (int width, int height, const cf_synth_params * params,
    cf_image ** frame0, cf_image ** frame1, cf_flow ** truth);

#ifdef __cplusplus
}
#endif
#endif /* CF_SYNTH_H */
