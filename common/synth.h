/* gst-cudaflow — synthetic image pairs with exact ground-truth flow
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The texture is an analytic, smooth, band-limited function T(x, y) with
 * values in [0, 255] (a seeded sum of oriented sinusoids), so it can be
 * sampled exactly anywhere: frame0(x) = T(x) and frame1 is built so that
 * frame1(x + w(x)) = frame0(x) holds exactly (Middlebury convention), with
 * no interpolation error. Pixel centres are at integer coordinates.
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
} cf_synth_params;

/* Defaults: translation (1.5, -0.75), zoom 1, wavelength 12, seed 1. */
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

/* Make (frame0, frame1, truth): caller frees all three. */
cf_status cf_synth_pair (int width, int height, const cf_synth_params * params,
    cf_image ** frame0, cf_image ** frame1, cf_flow ** truth);

#ifdef __cplusplus
}
#endif
#endif /* CF_SYNTH_H */
