/* gst-cudaflow — tests for common/synth (synthetic pairs with exact flow)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include "common/synth.h"
#include "cf-test-util.h"

typedef struct
{
  cf_image *f0, *f1;
  cf_flow *gt;
} pair;

/* cf_synth_pair that must succeed. */
static pair
make_pair (int width, int height, const cf_synth_params * params)
{
  pair p = { NULL, NULL, NULL };

  fail_unless_equals_int (cf_synth_pair (width, height, params, &p.f0, &p.f1,
          &p.gt), CF_OK);
  fail_unless (p.f0 != NULL && p.f1 != NULL && p.gt != NULL);
  fail_unless_equals_int (p.f0->width, width);
  fail_unless_equals_int (p.f1->height, height);
  fail_unless_equals_int (p.gt->width, width);
  return p;
}

static void
free_pair (pair * p)
{
  cf_image_free (p->f0);
  cf_image_free (p->f1);
  cf_flow_free (p->gt);
}

static float
px (const cf_image * img, int x, int y)
{
  return cf_image_row (img, y)[x];
}

/* Mean |d/dx|, |d/dy| and |d/d(diagonals)| of an image by differences. */
static void
mean_gradients (const cf_image * img, double *gx, double *gy, double *gd,
    double *ga)
{
  double sx = 0, sy = 0, sd = 0, sa = 0;
  long n = 0;
  int x, y;

  for (y = 0; y + 1 < img->height; y++)
    for (x = 1; x + 1 < img->width; x++) {
      sx += fabs (px (img, x + 1, y) - px (img, x, y));
      sy += fabs (px (img, x, y + 1) - px (img, x, y));
      sd += fabs (px (img, x + 1, y + 1) - px (img, x, y)) / G_SQRT2;
      sa += fabs (px (img, x - 1, y + 1) - px (img, x, y)) / G_SQRT2;
      n++;
    }
  *gx = sx / n;
  *gy = sy / n;
  *gd = sd / n;
  *ga = sa / n;
}

GST_START_TEST (test_params_init_sets_documented_defaults)
{
  cf_synth_params p;

  memset (&p, 0xff, sizeof (p));
  cf_synth_params_init (&p);
  fail_unless_equals_int (p.motion, CF_SYNTH_TRANSLATION);
  fail_unless_equals_float (p.tx, 1.5f);
  fail_unless_equals_float (p.ty, -0.75f);
  fail_unless_equals_float (p.zoom, 1.0f);
  fail_unless_equals_float (p.angle, 0.0f);
  fail_unless_equals_float (p.wavelength, 12.0f);
  fail_unless_equals_int (p.seed, 1);
  /* no degradation */
  fail_unless_equals_float (p.motion_blur, 0.0f);
  fail_unless_equals_float (p.gain, 1.0f);
  fail_unless_equals_float (p.bias, 0.0f);
  fail_unless_equals_float (p.noise, 0.0f);
}

GST_END_TEST;

GST_START_TEST (test_integer_translation_3_m2_moves_frame_exactly)
{
  cf_synth_params p;
  pair s;
  int x, y;

  cf_synth_params_init (&p);
  p.tx = 3.0f;
  p.ty = -2.0f;
  s = make_pair (41, 33, &p);
  for (y = 0; y < 33; y++)
    for (x = 0; x < 41; x++) {
      fail_unless_equals_float (s.gt->u[x + y * s.gt->pitch], 3.0f);
      fail_unless_equals_float (s.gt->v[x + y * s.gt->pitch], -2.0f);
      fail_unless_equals_float (px (s.f0, x, y), cf_synth_sample (&p, x, y));
      if (x + 3 < 41 && y - 2 >= 0)
        fail_unless (px (s.f1, x + 3, y - 2) == px (s.f0, x, y),
            "frame1 (%d, %d) = %.9g, frame0 (%d, %d) = %.9g", x + 3, y - 2,
            px (s.f1, x + 3, y - 2), x, y, px (s.f0, x, y));
    }
  free_pair (&s);
}

GST_END_TEST;

GST_START_TEST (test_subpixel_translation_samples_texture_at_y_minus_t)
{
  cf_synth_params p;
  pair s;
  int x, y;

  cf_synth_params_init (&p);    /* t = (1.5, -0.75) */
  s = make_pair (37, 29, &p);
  for (y = 0; y < 29; y++)
    for (x = 0; x < 37; x++) {
      float want = cf_synth_sample (&p, x - 1.5f, y + 0.75f);

      fail_unless (fabsf (px (s.f1, x, y) - want) <= 1e-4f,
          "(%d, %d): %.9g vs %.9g", x, y, px (s.f1, x, y), want);
      /* frame1 really differs from frame0 */
    }
  fail_unless (px (s.f1, 10, 10) != px (s.f0, 10, 10));
  free_pair (&s);
}

GST_END_TEST;

GST_START_TEST (test_rotation_zoom_samples_texture_at_inverse_affine_point)
{
  cf_synth_params p;
  pair s;
  const int w = 64, h = 48;
  const double a = 5.0 * G_PI / 180.0, z = 1.05, tx = 0.5, ty = -0.25;
  const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1);
  int x, y;

  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_ROTATION_ZOOM;
  p.angle = 5.0f;
  p.zoom = 1.05f;
  p.tx = 0.5f;
  p.ty = -0.25f;
  s = make_pair (w, h, &p);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      /* forward: x' = c + z R (x - c) + t, R = [cos a, sin a; -sin a, cos a] */
      double fx = cx + z * (cos (a) * (x - cx) + sin (a) * (y - cy)) + tx;
      double fy = cy + z * (-sin (a) * (x - cx) + cos (a) * (y - cy)) + ty;
      /* inverse for the pixel y = (x, y) of frame 1 */
      double rx = (x - cx - tx) / z, ry = (y - cy - ty) / z;
      double sx = cx + cos (a) * rx - sin (a) * ry;
      double sy = cy + sin (a) * rx + cos (a) * ry;
      float want = cf_synth_sample (&p, (float) sx, (float) sy);

      fail_unless (fabs (s.gt->u[x + y * s.gt->pitch] - (fx - x)) < 1e-4);
      fail_unless (fabs (s.gt->v[x + y * s.gt->pitch] - (fy - y)) < 1e-4);
      fail_unless (fabsf (px (s.f1, x, y) - want) <= 5e-3f,
          "(%d, %d): %.9g vs %.9g", x, y, px (s.f1, x, y), want);
    }
  free_pair (&s);
}

GST_END_TEST;

GST_START_TEST (test_rotation_by_90_is_counter_clockwise_on_screen)
{
  cf_synth_params p;
  pair s;
  int x, y;

  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_ROTATION_ZOOM;
  p.angle = 90.0f;
  p.tx = p.ty = 0.0f;
  s = make_pair (21, 21, &p);   /* centre (10, 10) */
  /* right of the centre moves up: (20, 10) -> (10, 0) */
  fail_unless (fabsf (s.gt->u[20 + 10 * 21] + 10.0f) < 1e-4f);
  fail_unless (fabsf (s.gt->v[20 + 10 * 21] + 10.0f) < 1e-4f);
  /* below the centre moves right: (10, 20) -> (20, 10) */
  fail_unless (fabsf (s.gt->u[10 + 20 * 21] - 10.0f) < 1e-4f);
  fail_unless (fabsf (s.gt->v[10 + 20 * 21] + 10.0f) < 1e-4f);
  /* pixels map onto pixels: frame1 (x + w (x)) = frame0 (x) */
  for (y = 0; y < 21; y++)
    for (x = 0; x < 21; x++) {
      int x1 = (int) lround (x + s.gt->u[x + y * 21]);
      int y1 = (int) lround (y + s.gt->v[x + y * 21]);

      fail_unless (x1 >= 0 && x1 < 21 && y1 >= 0 && y1 < 21);
      fail_unless (fabsf (px (s.f1, x1, y1) - px (s.f0, x, y)) < 1e-3f,
          "(%d, %d) -> (%d, %d)", x, y, x1, y1);
    }
  free_pair (&s);
}

GST_END_TEST;

/* Solve x + w (x) = y by fixed-point iteration on cf_synth_motion_at. */
static void
invert_smooth (const cf_synth_params * p, int w, int h, double y0, double y1,
    double *x0, double *x1)
{
  double a = y0, b = y1;
  int i;

  for (i = 0; i < 200; i++) {
    float u, v;

    cf_synth_motion_at (p, w, h, (float) a, (float) b, &u, &v);
    a = y0 - u;
    b = y1 - v;
  }
  *x0 = a;
  *x1 = b;
}

/* Check a smooth pair: truth = w at pixels, |w| <= A (and >= min_peak A
 * somewhere), |grad w| well below 1, frame1 inverts w. */
static void
check_smooth (int w, int h, float amplitude, unsigned int seed, double min_peak)
{
  cf_synth_params p;
  pair s;
  double max_mag = 0.0, max_grad = 0.0;
  int x, y;

  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_SMOOTH;
  p.amplitude = amplitude;
  p.seed = seed;
  s = make_pair (w, h, &p);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      float u = s.gt->u[x + y * s.gt->pitch], v = s.gt->v[x + y * s.gt->pitch];
      float mu, mv, lx, ly;
      double sx, sy, want;

      cf_synth_motion_at (&p, w, h, x, y, &mu, &mv);
      fail_unless (u == mu && v == mv);
      max_mag = MAX (max_mag, hypot (u, v));
      if (x + 1 < w) {
        max_grad = MAX (max_grad, fabs (s.gt->u[x + 1 + y * w] - u));
        max_grad = MAX (max_grad, fabs (s.gt->v[x + 1 + y * w] - v));
      }
      if (y + 1 < h) {
        max_grad = MAX (max_grad, fabs (s.gt->u[x + (y + 1) * w] - u));
        max_grad = MAX (max_grad, fabs (s.gt->v[x + (y + 1) * w] - v));
      }
      invert_smooth (&p, w, h, x, y, &sx, &sy);
      cf_synth_motion_at (&p, w, h, sx, sy, &mu, &mv);
      fail_unless (hypot (sx + mu - x, sy + mv - y) < 1e-4,
          "residual %g at (%d, %d)", hypot (sx + mu - x, sy + mv - y), x, y);
      /* the library's own inverse solves x + w (x) = y as well */
      cf_synth_motion_inverse_at (&p, w, h, x, y, &lx, &ly);
      cf_synth_motion_at (&p, w, h, lx, ly, &mu, &mv);
      fail_unless (hypot (lx + mu - x, ly + mv - y) < 1e-4,
          "library inverse residual %g at (%d, %d)",
          hypot (lx + mu - x, ly + mv - y), x, y);
      fail_unless (hypot (lx - sx, ly - sy) < 1e-4);
      want = cf_synth_sample (&p, sx, sy);
      fail_unless (fabs (px (s.f1, x, y) - want) <= 5e-3,
          "(%d, %d): %.9g vs %.9g", x, y, px (s.f1, x, y), want);
    }
  fail_unless (max_mag <= amplitude * (1.0 + 1e-6), "max |w| %g", max_mag);
  fail_unless (max_mag >= min_peak * amplitude, "max |w| %g", max_mag);
  fail_unless (max_grad < 0.3, "max |grad w| %g", max_grad);
  free_pair (&s);
}

GST_START_TEST (test_smooth_field_is_inverted_to_1e_4_px)
{
  check_smooth (64, 48, 2.0f, 1, 0.3);
  check_smooth (160, 120, 3.0f, 7, 0.5);
  check_smooth (97, 61, 5.0f, 2, 0.0);
  /* a large field on a small frame stays a contraction */
  check_smooth (33, 17, 25.0f, 3, 0.0);
  check_smooth (1, 1, 2.0f, 1, 0.0);
}

GST_END_TEST;

GST_START_TEST (test_frames_stay_within_0_255_for_all_motions)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM, CF_SYNTH_SMOOTH
  };
  size_t m;
  unsigned int seed;

  for (m = 0; m < G_N_ELEMENTS (motions); m++)
    for (seed = 0; seed < 6; seed++) {
      cf_synth_params p;
      pair s;
      float lo = 1e9f, hi = -1e9f;
      int i;

      cf_synth_params_init (&p);
      p.motion = motions[m];
      p.seed = seed;
      p.angle = 30.0f;
      p.zoom = 0.8f;
      p.amplitude = 4.0f;
      p.wavelength = 4.0f + seed;
      s = make_pair (200, 150, &p);
      for (i = 0; i < 200 * 150; i++) {
        lo = MIN (lo, MIN (s.f0->data[i], s.f1->data[i]));
        hi = MAX (hi, MAX (s.f0->data[i], s.f1->data[i]));
      }
      fail_unless (lo >= 16.0f && hi <= 240.0f, "range [%g, %g]", lo, hi);
      /* and the range is used */
      fail_unless (hi - lo > 80.0f, "range [%g, %g]", lo, hi);
      free_pair (&s);
    }
}

GST_END_TEST;

GST_START_TEST (test_same_seed_gives_identical_pairs)
{
  cf_synth_params p;
  pair a, b;

  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_SMOOTH;
  p.seed = 42;
  a = make_pair (31, 23, &p);
  b = make_pair (31, 23, &p);
  fail_unless (memcmp (a.f0->data, b.f0->data, 31 * 23 * 4) == 0);
  fail_unless (memcmp (a.f1->data, b.f1->data, 31 * 23 * 4) == 0);
  fail_unless (memcmp (a.gt->u, b.gt->u, 2 * 31 * 23 * 4) == 0);
  free_pair (&a);
  free_pair (&b);
}

GST_END_TEST;

GST_START_TEST (test_different_seeds_give_different_textures)
{
  cf_synth_params p;
  cf_image *a = cf_image_new (64, 64), *b = cf_image_new (64, 64);
  double diff = 0.0;
  int i;

  cf_synth_params_init (&p);
  p.seed = 1;
  fail_unless_equals_int (cf_synth_texture (&p, 0, 0, a), CF_OK);
  p.seed = 2;
  fail_unless_equals_int (cf_synth_texture (&p, 0, 0, b), CF_OK);
  for (i = 0; i < 64 * 64; i++)
    diff += fabs (a->data[i] - b->data[i]);
  diff /= 64 * 64;
  fail_unless (diff > 10.0, "mean |a - b| %g", diff);
  cf_image_free (a);
  cf_image_free (b);
}

GST_END_TEST;

GST_START_TEST (test_texture_has_gradient_in_every_direction)
{
  cf_synth_params p;
  cf_image *img = cf_image_new (128, 96);
  double gx, gy, gd, ga, prev = 1e9;
  unsigned int seed;
  float wl;

  for (seed = 1; seed <= 5; seed++) {
    cf_synth_params_init (&p);
    p.seed = seed;
    fail_unless_equals_int (cf_synth_texture (&p, 0, 0, img), CF_OK);
    mean_gradients (img, &gx, &gy, &gd, &ga);
    fail_unless (gx > 1.0 && gy > 1.0 && gd > 1.0 && ga > 1.0,
        "seed %u: mean gradients %g %g %g %g", seed, gx, gy, gd, ga);
  }
  /* longer wavelengths give a smoother texture */
  for (wl = 4.0f; wl <= 32.0f; wl *= 2.0f) {
    cf_synth_params_init (&p);
    p.wavelength = wl;
    fail_unless_equals_int (cf_synth_texture (&p, 0, 0, img), CF_OK);
    mean_gradients (img, &gx, &gy, &gd, &ga);
    fail_unless (gx + gy < prev, "wavelength %g: %g", wl, gx + gy);
    prev = gx + gy;
  }
  cf_image_free (img);
}

GST_END_TEST;

GST_START_TEST (test_texture_renders_t_at_shifted_points)
{
  cf_synth_params p;
  cf_image *img = cf_image_new (17, 9);
  pair s;
  int x, y;

  cf_synth_params_init (&p);
  p.seed = 9;
  fail_unless_equals_int (cf_synth_texture (&p, 0.25f, -3.5f, img), CF_OK);
  for (y = 0; y < 9; y++)
    for (x = 0; x < 17; x++)
      fail_unless (fabsf (px (img, x, y) - cf_synth_sample (&p, x + 0.25f,
                  y - 3.5f)) <= 1e-4f);
  /* no shift: frame0 exactly */
  s = make_pair (17, 9, &p);
  fail_unless_equals_int (cf_synth_texture (&p, 0, 0, img), CF_OK);
  fail_unless (memcmp (img->data, s.f0->data, 17 * 9 * 4) == 0);
  free_pair (&s);
  cf_image_free (img);
}

GST_END_TEST;

GST_START_TEST (test_rejects_invalid_sizes_and_params)
{
  cf_synth_params p;
  cf_image *f0 = (cf_image *) 0x1, *f1 = (cf_image *) 0x1;
  cf_flow *gt = (cf_flow *) 0x1;
  cf_image *img = cf_image_new (4, 4);

  cf_synth_params_init (&p);
  fail_unless_equals_int (cf_synth_pair (0, 4, &p, &f0, &f1, &gt),
      CF_ERROR_INVALID);
  fail_unless (f0 == NULL && f1 == NULL && gt == NULL);
  fail_unless_equals_int (cf_synth_pair (4, -1, &p, &f0, &f1, &gt),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_synth_pair (CF_MAX_DIMENSION + 1, 4, &p, &f0,
          &f1, &gt), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_synth_pair (4, 4, NULL, &f0, &f1, &gt),
      CF_ERROR_INVALID);
  p.wavelength = 3.0f;
  fail_unless_equals_int (cf_synth_pair (4, 4, &p, &f0, &f1, &gt),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_synth_texture (&p, 0, 0, img), CF_ERROR_INVALID);
  cf_synth_params_init (&p);
  p.tx = NAN;
  fail_unless_equals_int (cf_synth_pair (4, 4, &p, &f0, &f1, &gt),
      CF_ERROR_INVALID);
  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_ROTATION_ZOOM;
  p.zoom = 0.0f;
  fail_unless_equals_int (cf_synth_pair (4, 4, &p, &f0, &f1, &gt),
      CF_ERROR_INVALID);
  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_SMOOTH;
  p.amplitude = -1.0f;
  fail_unless_equals_int (cf_synth_pair (4, 4, &p, &f0, &f1, &gt),
      CF_ERROR_INVALID);
  fail_unless (f0 == NULL && f1 == NULL && gt == NULL);
  cf_image_free (img);
}

GST_END_TEST;

/* cf_synth_motion_inverse_at solves x + w (x) = y (to 1e-4 px, float
 * output) for every motion, and frame1 (y) is T at that point. */
static void
check_inverse (int w, int h, const cf_synth_params * p)
{
  pair s = make_pair (w, h, p);
  double worst = 0.0;
  int x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      float sx, sy, u, v;
      double r;

      cf_synth_motion_inverse_at (p, w, h, x, y, &sx, &sy);
      cf_synth_motion_at (p, w, h, sx, sy, &u, &v);
      r = hypot ((double) sx + u - x, (double) sy + v - y);
      worst = MAX (worst, r);
      fail_unless (fabsf (px (s.f1, x, y) - cf_synth_sample (p, sx, sy))
          <= 5e-3f, "(%d, %d): frame1 %.9g, T (x) %.9g", x, y,
          px (s.f1, x, y), cf_synth_sample (p, sx, sy));
    }
  fail_unless (worst < 1e-4, "motion %d: inversion error %g px", p->motion,
      worst);
  free_pair (&s);
}

GST_START_TEST (test_motion_inverse_at_solves_x_plus_w_equals_y)
{
  cf_synth_params p;
  float x, y;

  cf_synth_params_init (&p);    /* translation (1.5, -0.75) */
  check_inverse (23, 17, &p);
  cf_synth_motion_inverse_at (&p, 23, 17, 4.0f, 4.0f, &x, &y);
  fail_unless (x == 2.5f && y == 4.75f, "(%g, %g)", x, y);

  p.motion = CF_SYNTH_ROTATION_ZOOM;
  p.angle = -12.0f;
  p.zoom = 0.9f;
  check_inverse (64, 48, &p);

  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_SMOOTH;
  p.amplitude = 3.0f;
  check_inverse (97, 61, &p);
  p.amplitude = 25.0f;          /* large field on a small frame */
  check_inverse (33, 17, &p);

  /* parameters cf_synth_pair rejects give NaN, not garbage */
  p.amplitude = -1.0f;
  cf_synth_motion_inverse_at (&p, 33, 17, 1.0f, 1.0f, &x, &y);
  fail_unless (isnan (x) && isnan (y));
  cf_synth_motion_at (&p, 33, 17, 1.0f, 1.0f, &x, &y);
  fail_unless (isnan (x) && isnan (y));
}

GST_END_TEST;

/* Every 16x16 block of the default texture has a mean gradient of at least
 * 1 grey level per pixel, in both directions: the smaller eigenvalue of the
 * block's structure tensor is at least 0.3^2 (measured: >= 1.57 and >=
 * 0.64^2 over seeds 0-19). */
GST_START_TEST (test_texture_gradient_is_non_negligible_in_every_block)
{
  const int w = 256, h = 192, b = 16;
  cf_image *img = cf_image_new (w, h);
  unsigned int seed;

  for (seed = 1; seed <= 5; seed++) {
    cf_synth_params p;
    int bx, by, x, y;

    cf_synth_params_init (&p);
    p.seed = seed;
    fail_unless_equals_int (cf_synth_texture (&p, 0, 0, img), CF_OK);
    for (by = 0; by < h; by += b)
      for (bx = 0; bx < w; bx += b) {
        double mag = 0, jxx = 0, jxy = 0, jyy = 0, tr, det, lmin;
        int n = 0;

        for (y = MAX (by, 1); y < MIN (by + b, h - 1); y++)
          for (x = MAX (bx, 1); x < MIN (bx + b, w - 1); x++) {
            double gx = 0.5 * (px (img, x + 1, y) - px (img, x - 1, y));
            double gy = 0.5 * (px (img, x, y + 1) - px (img, x, y - 1));

            mag += hypot (gx, gy);
            jxx += gx * gx;
            jxy += gx * gy;
            jyy += gy * gy;
            n++;
          }
        mag /= n;
        tr = (jxx + jyy) / n;
        det = (jxx * jyy - jxy * jxy) / ((double) n * n);
        lmin = 0.5 * tr - sqrt (MAX (0.25 * tr * tr - det, 0.0));
        fail_unless (mag > 1.0, "seed %u block (%d, %d): mean |grad| %g",
            seed, bx, by, mag);
        fail_unless (lmin > 0.09, "seed %u block (%d, %d): lambda_min %g",
            seed, bx, by, lmin);
      }
  }
  cf_image_free (img);
}

GST_END_TEST;

/* Degradation. The noise statistics are measured over two 512 x 384
 * frames (196 608 samples each): the standard error of the mean is
 * sigma / 443 and that of the standard deviation sigma / 627, so the
 * bounds below are 10 or more standard errors wide. */
#define NOISE_W 512
#define NOISE_H 384
#define NOISE_SIGMA 4.0f
#define NOISE_MEAN_TOLERANCE (0.03 * NOISE_SIGMA)
#define NOISE_SIGMA_TOLERANCE 0.03      /* relative */
/* Independent noise on the two frames: |correlation| below this. */
#define NOISE_MAX_CORRELATION 0.02

/* 1 when the two images hold the same values bit for bit. */
static gboolean
same_image (const cf_image * a, const cf_image * b)
{
  int y;

  if (a->width != b->width || a->height != b->height)
    return FALSE;
  for (y = 0; y < a->height; y++)
    if (memcmp (cf_image_row (a, y), cf_image_row (b, y),
            sizeof (float) * a->width) != 0)
      return FALSE;
  return TRUE;
}

/* The defaults are no degradation at all: the pair equals one made with
 * the degradation fields set to none explicitly, bit for bit, and is still
 * the analytic texture (no clamping, no rounding on the way). */
GST_START_TEST (test_default_pair_is_undegraded_and_analytic)
{
  static const cf_synth_motion motions[] = { CF_SYNTH_TRANSLATION,
    CF_SYNTH_ROTATION_ZOOM, CF_SYNTH_SMOOTH
  };
  size_t m;

  for (m = 0; m < G_N_ELEMENTS (motions); m++) {
    cf_synth_params p, none;
    pair a, b;
    int x, y;

    cf_synth_params_init (&p);
    p.motion = motions[m];
    p.angle = 8.0f;
    p.zoom = 1.1f;
    p.amplitude = 6.0f;
    p.seed = 5;
    none = p;
    none.motion_blur = 0.0f;
    none.gain = 1.0f;
    none.bias = 0.0f;
    none.noise = 0.0f;
    a = make_pair (45, 31, &p);
    b = make_pair (45, 31, &none);
    fail_unless (same_image (a.f0, b.f0) && same_image (a.f1, b.f1));
    fail_unless (memcmp (a.gt->u, b.gt->u, 2 * 45 * 31 * 4) == 0);
    for (y = 0; y < 31; y++)
      for (x = 0; x < 45; x++) {
        float sx, sy;

        fail_unless (px (a.f0, x, y) == cf_synth_sample (&p, x, y),
            "motion %d (%d, %d)", p.motion, x, y);
        if (p.motion == CF_SYNTH_TRANSLATION) {
          /* (1.5, -0.75): x - t is exact in float */
          sx = x - p.tx;
          sy = y - p.ty;
          fail_unless (px (a.f1, x, y) == cf_synth_sample (&p, sx, sy),
              "(%d, %d)", x, y);
        } else {
          cf_synth_motion_inverse_at (&p, 45, 31, x, y, &sx, &sy);
          fail_unless (fabsf (px (a.f1, x, y) - cf_synth_sample (&p, sx, sy))
              <= 5e-3f, "motion %d (%d, %d)", p.motion, x, y);
        }
      }
    free_pair (&a);
    free_pair (&b);
  }
}

GST_END_TEST;

/* Mean and standard deviation of noisy - clean. */
static void
difference_stats (const cf_image * noisy, const cf_image * clean,
    double *mean, double *sd)
{
  double sum = 0.0, sum2 = 0.0;
  long n = 0;
  int x, y;

  for (y = 0; y < clean->height; y++)
    for (x = 0; x < clean->width; x++) {
      double d = px (noisy, x, y) - px (clean, x, y);

      sum += d;
      sum2 += d * d;
      n++;
    }
  *mean = sum / n;
  *sd = sqrt (MAX (sum2 / n - *mean * *mean, 0.0));
}

/* Correlation of (a1 - a0) and (b1 - b0): the noise of two frames. */
static double
noise_correlation (const cf_image * a1, const cf_image * a0,
    const cf_image * b1, const cf_image * b0)
{
  double sab = 0.0, saa = 0.0, sbb = 0.0;
  int x, y;

  for (y = 0; y < a0->height; y++)
    for (x = 0; x < a0->width; x++) {
      double da = px (a1, x, y) - px (a0, x, y);
      double db = px (b1, x, y) - px (b0, x, y);

      sab += da * db;
      saa += da * da;
      sbb += db * db;
    }
  return sab / sqrt (saa * sbb);
}

GST_START_TEST (test_noise_has_asked_sigma_zero_mean_and_follows_seed)
{
  cf_synth_params p;
  pair clean, noisy, again, other, other_clean;
  double mean, sd, diff = 0.0, corr;
  int i;

  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_SMOOTH;
  p.seed = 3;
  clean = make_pair (NOISE_W, NOISE_H, &p);
  p.noise = NOISE_SIGMA;
  noisy = make_pair (NOISE_W, NOISE_H, &p);
  difference_stats (noisy.f0, clean.f0, &mean, &sd);
  fail_unless (fabs (mean) < NOISE_MEAN_TOLERANCE, "frame0 mean %g", mean);
  fail_unless (fabs (sd / NOISE_SIGMA - 1.0) < NOISE_SIGMA_TOLERANCE,
      "frame0 sd %g for sigma %g", sd, NOISE_SIGMA);
  difference_stats (noisy.f1, clean.f1, &mean, &sd);
  fail_unless (fabs (mean) < NOISE_MEAN_TOLERANCE, "frame1 mean %g", mean);
  fail_unless (fabs (sd / NOISE_SIGMA - 1.0) < NOISE_SIGMA_TOLERANCE,
      "frame1 sd %g for sigma %g", sd, NOISE_SIGMA);
  /* the two frames draw independent noise */
  corr = noise_correlation (noisy.f0, clean.f0, noisy.f1, clean.f1);
  fail_unless (fabs (corr) < NOISE_MAX_CORRELATION, "correlation %g", corr);
  /* the truth does not change */
  fail_unless (memcmp (noisy.gt->u, clean.gt->u,
          2 * sizeof (float) * NOISE_W * NOISE_H) == 0);

  /* repeatable for one seed */
  again = make_pair (NOISE_W, NOISE_H, &p);
  fail_unless (same_image (again.f0, noisy.f0)
      && same_image (again.f1, noisy.f1));

  /* another seed, another noise (compared as noise, not texture) */
  p.seed = 4;
  other = make_pair (NOISE_W, NOISE_H, &p);
  p.noise = 0.0f;
  other_clean = make_pair (NOISE_W, NOISE_H, &p);
  for (i = 0; i < NOISE_W * NOISE_H; i++)
    diff += fabs ((other.f0->data[i] - other_clean.f0->data[i]) -
        (noisy.f0->data[i] - clean.f0->data[i]));
  diff /= NOISE_W * NOISE_H;
  /* E |z1 - z2| = 2 sigma / sqrt (pi) for independent noise */
  fail_unless (diff > NOISE_SIGMA, "mean |noise 3 - noise 4| %g", diff);
  free_pair (&clean);
  free_pair (&noisy);
  free_pair (&again);
  free_pair (&other);
  free_pair (&other_clean);
}

GST_END_TEST;

/* frame1 <- gain frame1 + bias, frame0 untouched; then clamping to
 * 0..255 when the result leaves the 8-bit range. */
GST_START_TEST (test_gain_bias_map_frame1_and_clamp_to_8_bits)
{
  cf_synth_params p;
  pair clean, lit, bright, dark;
  int x, y, n_high = 0, n_low = 0;

  cf_synth_params_init (&p);    /* translation (1.5, -0.75) */
  p.seed = 7;
  clean = make_pair (39, 27, &p);
  p.gain = 0.8f;
  p.bias = 20.0f;
  lit = make_pair (39, 27, &p);
  fail_unless (same_image (lit.f0, clean.f0));
  for (y = 0; y < 27; y++)
    for (x = 0; x < 39; x++) {
      float want = 0.8f * cf_synth_sample (&p, x - 1.5f, y + 0.75f) + 20.0f;

      fail_unless (fabsf (px (lit.f1, x, y) - want) <= 1e-4f,
          "(%d, %d): %.9g vs %.9g", x, y, px (lit.f1, x, y), want);
    }
  /* 2 T + 100 and 0.5 T - 100 leave 0..255 for part of T's [18, 238] */
  p.gain = 2.0f;
  p.bias = 100.0f;
  bright = make_pair (39, 27, &p);
  p.gain = 0.5f;
  p.bias = -100.0f;
  dark = make_pair (39, 27, &p);
  for (y = 0; y < 27; y++)
    for (x = 0; x < 39; x++) {
      double c = px (clean.f1, x, y);

      fail_unless (fabs (px (bright.f1, x, y) - MIN (2.0 * c + 100.0,
                  255.0)) <= 1e-4, "bright (%d, %d)", x, y);
      fail_unless (fabs (px (dark.f1, x, y) - MAX (0.5 * c - 100.0,
                  0.0)) <= 1e-4, "dark (%d, %d)", x, y);
      n_high += 2.0 * c + 100.0 > 255.0;
      n_low += 0.5 * c - 100.0 < 0.0;
    }
  /* both clamps were exercised */
  fail_unless (n_high > 0 && n_low > 0, "%d high, %d low", n_high, n_low);
  free_pair (&clean);
  free_pair (&lit);
  free_pair (&bright);
  free_pair (&dark);
}

GST_END_TEST;

/* Blur of a translation by (4, 0) with the whole frame interval exposed:
 * frame0 (x) is the midpoint mean of T over x - s (4, 0), s in
 * [-1/2, 1/2], with ceil (2 * 4) = 8 samples; frame1 (x + 4, y) =
 * frame0 (x, y) still holds exactly; the blurred frame has a smaller mean
 * gradient than the sharp one, most of all along the motion. The shortest
 * wavelength is 4 px so that a 4 px blur shows (measured for seed 2: d/dx
 * 0.79 of the sharp frame's, all four directions 0.83). */
GST_START_TEST (test_motion_blur_keeps_translation_exact_and_smooths)
{
  const int w = 64, h = 48, n = 8;
  cf_synth_params p;
  pair sharp, blurred;
  double sgx, sgy, sgd, sga, bgx, bgy, bgd, bga;
  int x, y, i;

  cf_synth_params_init (&p);
  p.tx = 4.0f;
  p.ty = 0.0f;
  p.seed = 2;
  p.wavelength = 4.0f;
  sharp = make_pair (w, h, &p);
  p.motion_blur = 1.0f;
  blurred = make_pair (w, h, &p);
  fail_unless (memcmp (blurred.gt->u, sharp.gt->u,
          2 * sizeof (float) * w * h) == 0);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double mean = 0.0;

      for (i = 0; i < n; i++)
        mean += cf_synth_sample (&p, x - 4.0f * ((i + 0.5f) / n - 0.5f), y);
      mean /= n;
      fail_unless (fabs (px (blurred.f0, x, y) - mean) <= 1e-3,
          "(%d, %d): %.9g vs %.9g", x, y, px (blurred.f0, x, y), mean);
      if (x + 4 < w)
        fail_unless (px (blurred.f1, x + 4, y) == px (blurred.f0, x, y),
            "frame1 (%d, %d) = %.9g, frame0 (%d, %d) = %.9g", x + 4, y,
            px (blurred.f1, x + 4, y), x, y, px (blurred.f0, x, y));
    }
  mean_gradients (sharp.f0, &sgx, &sgy, &sgd, &sga);
  mean_gradients (blurred.f0, &bgx, &bgy, &bgd, &bga);
  fail_unless (bgx < 0.85 * sgx, "d/dx: sharp %g, blurred %g", sgx, bgx);
  fail_unless (bgx + bgy + bgd + bga < 0.9 * (sgx + sgy + sgd + sga),
      "sum: sharp %g, blurred %g", sgx + sgy + sgd + sga,
      bgx + bgy + bgd + bga);
  /* half the exposure blurs less */
  p.motion_blur = 0.5f;
  free_pair (&sharp);
  sharp = make_pair (w, h, &p);
  mean_gradients (sharp.f0, &sgx, &sgy, &sgd, &sga);
  fail_unless (bgx < sgx, "d/dx: exposure 1 %g, exposure 0.5 %g", bgx, sgx);
  free_pair (&sharp);
  free_pair (&blurred);
}

GST_END_TEST;

/* The documented blur: the midpoint mean of T over x - s (u, v),
 * s in [-e/2, e/2], with n = ceil (2 e |w|) samples (1..256), computed
 * here from the public functions. */
static double
blur_reference (const cf_synth_params * p, float x, float y, float u, float v)
{
  double e = p->motion_blur, sum = 0.0;
  int n = (int) ceil (2.0 * e * hypot (u, v)), i;

  n = CLAMP (n, 1, CF_SYNTH_MAX_BLUR_SAMPLES);
  for (i = 0; i < n; i++) {
    double s = e * ((i + 0.5) / n - 0.5);

    sum += cf_synth_sample (p, (float) (x - s * u), (float) (y - s * v));
  }
  return sum / n;
}

/* Rotation/zoom: both frames are blurred along the local w at the point of
 * frame 0 they show (frame 1 at pixel y: the source x of y and w (x)). */
GST_START_TEST (test_motion_blur_of_rotation_zoom_follows_local_w)
{
  const int w = 48, h = 40;
  cf_synth_params p;
  pair s;
  int x, y;

  cf_synth_params_init (&p);
  p.motion = CF_SYNTH_ROTATION_ZOOM;
  p.angle = 6.0f;
  p.zoom = 1.08f;
  p.seed = 4;
  p.motion_blur = 0.75f;
  s = make_pair (w, h, &p);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      float u = s.gt->u[x + y * s.gt->pitch], v = s.gt->v[x + y * s.gt->pitch];
      float sx, sy, su, sv;
      double want0 = blur_reference (&p, x, y, u, v), want1;

      fail_unless (fabs (px (s.f0, x, y) - want0) <= 5e-3,
          "frame0 (%d, %d): %.9g vs %.9g", x, y, px (s.f0, x, y), want0);
      cf_synth_motion_inverse_at (&p, w, h, x, y, &sx, &sy);
      cf_synth_motion_at (&p, w, h, sx, sy, &su, &sv);
      want1 = blur_reference (&p, sx, sy, su, sv);
      fail_unless (fabs (px (s.f1, x, y) - want1) <= 5e-3,
          "frame1 (%d, %d): %.9g vs %.9g", x, y, px (s.f1, x, y), want1);
    }
  free_pair (&s);
}

GST_END_TEST;

/* A 300 px blur is sampled CF_SYNTH_MAX_BLUR_SAMPLES times, not 600: on
 * a fine texture (wavelengths from 6 px) the two sums differ by up to
 * 8e-3 grey levels here, the frame and the 256-sample reference by less
 * than 1e-5. */
GST_START_TEST (test_motion_blur_samples_are_capped)
{
  cf_synth_params p;
  pair s;
  int x;

  cf_synth_params_init (&p);
  p.tx = 300.0f;
  p.ty = 0.0f;
  p.wavelength = 6.0f;
  p.motion_blur = 1.0f;
  s = make_pair (7, 2, &p);
  for (x = 0; x < 7; x++) {
    double want = blur_reference (&p, x, 1, 300.0f, 0.0f);

    fail_unless (fabs (px (s.f0, x, 1) - want) <= 1e-4, "(%d, 1): %.9g vs %.9g",
        x, px (s.f0, x, 1), want);
  }
  free_pair (&s);
}

GST_END_TEST;

GST_START_TEST (test_rejects_out_of_range_degradation)
{
  static const struct
  {
    float motion_blur, gain, bias, noise;
    cf_status want;
  } cases[] = {
    {-0.01f, 1.0f, 0.0f, 0.0f, CF_ERROR_INVALID},
    {1.01f, 1.0f, 0.0f, 0.0f, CF_ERROR_INVALID},
    {NAN, 1.0f, 0.0f, 0.0f, CF_ERROR_INVALID},
    {0.0f, 0.0f, 0.0f, 0.0f, CF_ERROR_INVALID},
    {0.0f, 0.09f, 0.0f, 0.0f, CF_ERROR_INVALID},
    {0.0f, 10.5f, 0.0f, 0.0f, CF_ERROR_INVALID},
    {0.0f, -1.0f, 0.0f, 0.0f, CF_ERROR_INVALID},
    {0.0f, NAN, 0.0f, 0.0f, CF_ERROR_INVALID},
    {0.0f, 1.0f, 256.0f, 0.0f, CF_ERROR_INVALID},
    {0.0f, 1.0f, -256.0f, 0.0f, CF_ERROR_INVALID},
    {0.0f, 1.0f, INFINITY, 0.0f, CF_ERROR_INVALID},
    {0.0f, 1.0f, NAN, 0.0f, CF_ERROR_INVALID},
    {0.0f, 1.0f, 0.0f, -0.5f, CF_ERROR_INVALID},
    {0.0f, 1.0f, 0.0f, 256.0f, CF_ERROR_INVALID},
    {0.0f, 1.0f, 0.0f, NAN, CF_ERROR_INVALID},
    /* the ends of each range are accepted */
    {1.0f, 0.1f, -255.0f, 255.0f, CF_OK},
    {0.0f, 10.0f, 255.0f, 0.0f, CF_OK},
  };
  size_t i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    cf_synth_params p;
    cf_image *f0 = (cf_image *) 0x1, *f1 = (cf_image *) 0x1;
    cf_flow *gt = (cf_flow *) 0x1;
    cf_status status;

    cf_synth_params_init (&p);
    p.motion_blur = cases[i].motion_blur;
    p.gain = cases[i].gain;
    p.bias = cases[i].bias;
    p.noise = cases[i].noise;
    status = cf_synth_pair (5, 3, &p, &f0, &f1, &gt);
    fail_unless_equals_int (status, cases[i].want);
    if (status == CF_OK) {
      cf_image_free (f0);
      cf_image_free (f1);
      cf_flow_free (gt);
    } else {
      fail_unless (f0 == NULL && f1 == NULL && gt == NULL, "case %d", (int) i);
    }
  }
}

GST_END_TEST;

static Suite *
common_synth_suite (void)
{
  Suite *s = suite_create ("common_synth");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_params_init_sets_documented_defaults);
  tcase_add_test (tc, test_integer_translation_3_m2_moves_frame_exactly);
  tcase_add_test (tc, test_subpixel_translation_samples_texture_at_y_minus_t);
  tcase_add_test (tc,
      test_rotation_zoom_samples_texture_at_inverse_affine_point);
  tcase_add_test (tc, test_rotation_by_90_is_counter_clockwise_on_screen);
  tcase_add_test (tc, test_smooth_field_is_inverted_to_1e_4_px);
  tcase_add_test (tc, test_frames_stay_within_0_255_for_all_motions);
  tcase_add_test (tc, test_same_seed_gives_identical_pairs);
  tcase_add_test (tc, test_different_seeds_give_different_textures);
  tcase_add_test (tc, test_texture_has_gradient_in_every_direction);
  tcase_add_test (tc, test_texture_renders_t_at_shifted_points);
  tcase_add_test (tc, test_rejects_invalid_sizes_and_params);
  tcase_add_test (tc, test_motion_inverse_at_solves_x_plus_w_equals_y);
  tcase_add_test (tc, test_texture_gradient_is_non_negligible_in_every_block);
  tcase_add_test (tc, test_default_pair_is_undegraded_and_analytic);
  tcase_add_test (tc, test_noise_has_asked_sigma_zero_mean_and_follows_seed);
  tcase_add_test (tc, test_gain_bias_map_frame1_and_clamp_to_8_bits);
  tcase_add_test (tc, test_motion_blur_keeps_translation_exact_and_smooths);
  tcase_add_test (tc, test_motion_blur_of_rotation_zoom_follows_local_w);
  tcase_add_test (tc, test_motion_blur_samples_are_capped);
  tcase_add_test (tc, test_rejects_out_of_range_degradation);
  return s;
}

GST_CHECK_MAIN (common_synth);
