/* gst-cudaflow — a moving scene with known motion, as a Middlebury pair
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gst-cudaflow-synth [--motion translation|rotation-zoom|smooth]
 *       [--size WxH] [--amount PX] [--wavelength PX] [--seed N]
 *       [--motion-blur FRACTION] [--gain G] [--bias B] [--noise SIGMA]
 *       OUT_DIR
 *
 * Writes OUT_DIR/frame10.png and frame11.png (an analytic texture, the
 * second frame moved by the motion) and OUT_DIR/flow10.flo (the exact
 * motion), the layout gst-cudaflow-flow-eval reads. --amount is the
 * displacement in pixels: the translation's length, the largest
 * displacement of the rotation/zoom (at the corners) or of the smooth
 * field.
 *
 * The texture's waves have wavelengths from --wavelength to four times it
 * (common/synth.h). A displacement beyond half the shortest wavelength is
 * ambiguous at the finest level, and since the ratio of motion to
 * wavelength is the same on every pyramid level, a coarse-to-fine method
 * finds it only through the longer waves: for large motions give a
 * wavelength near the displacement (e.g. --amount 100 --wavelength 100).
 * --seed picks another texture.
 *
 * --motion-blur, --gain, --bias and --noise degrade the frames the way
 * camera video is degraded (motion blur over the exposure, an
 * illumination change of the second frame, Gaussian sensor noise drawn
 * from --seed, then clamping to 0..255; see common/synth.h); the flow
 * written is the same exact motion.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args-util.h"
#include "png-io.h"
#include "common/flo.h"
#include "common/synth.h"

#define PROG "gst-cudaflow-synth"

/* Parameters whose largest displacement over a width x height frame is
 * @amount pixels. */
static void
scene_params (cf_synth_params * p, const char *motion, int width,
    int height, float amount)
{
  if (strcmp (motion, "translation") == 0) {
    /* an oblique direction, so both components are exercised */
    p->motion = CF_SYNTH_TRANSLATION;
    p->tx = amount * 0.8f;
    p->ty = -amount * 0.6f;
  } else if (strcmp (motion, "rotation-zoom") == 0) {
    /* a corner at radius r moves by about r * |(zoom cos a - 1, zoom sin a)|;
     * split the amount between a turn and a zoom */
    float r = 0.5f * hypotf ((float) width, (float) height);
    p->motion = CF_SYNTH_ROTATION_ZOOM;
    p->angle = (float) (asin (fminf (1.0f, 0.7f * amount / r)) * 180.0 /
        M_PI);
    p->zoom = 1.0f + 0.7f * amount / r;
    p->tx = p->ty = 0.0f;
  } else {
    p->motion = CF_SYNTH_SMOOTH;
    p->amplitude = amount;
  }
}

/* The number in @text given to --@option, which must lie in [lo, hi];
 * anything else is a usage error "--OPTION 'TEXT' is not LO..HI@what". */
static float
parse_number (const char *option, const char *text, float lo, float hi,
    const char *what)
{
  char *end;
  float value = strtof (text, &end);

  if (end == text || *end != '\0' || !(value >= lo && value <= hi))
    cf_args_usage_error (PROG, "--%s '%s' is not %g..%g%s", option, text,
        lo, hi, what);
  return value;
}

/* mkdir -p */
static int
make_dirs (const char *dir)
{
  char path[4096];
  size_t i, n = strlen (dir);

  if (n == 0 || n >= sizeof (path))
    return -1;
  memcpy (path, dir, n + 1);
  for (i = 1; i <= n; i++)
    if (path[i] == '/' || path[i] == '\0') {
      char c = path[i];
      path[i] = '\0';
      if (mkdir (path, 0755) != 0 && errno != EEXIST)
        return -1;
      path[i] = c;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  const char *motion = "translation", *out_dir = NULL;
  int width = 320, height = 240;
  float amount = 3.0f;
  cf_synth_params params;
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL;
  cf_error err = { 0 };
  char path[4096];
  cf_status status;
  gchar *motion_opt = NULL, *size_opt = NULL, *amount_opt = NULL,
      *wavelength_opt = NULL, *seed_opt = NULL, *blur_opt = NULL,
      *gain_opt = NULL, *bias_opt = NULL, *noise_opt = NULL, **args = NULL;
  GOptionEntry entries[] = {
    {"motion", 0, 0, G_OPTION_ARG_STRING, &motion_opt,
        "translation (default), rotation-zoom or smooth", "M"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size_opt,
        "Frame size (default 320x240)", "WxH"},
    {"amount", 0, 0, G_OPTION_ARG_STRING, &amount_opt,
        "Largest displacement in pixels (default 3)", "PX"},
    {"wavelength", 0, 0, G_OPTION_ARG_STRING, &wavelength_opt,
          "Shortest wavelength of the texture in pixels, 4..1000; the "
          "longest is four times it (default 12)", "PX"},
    {"seed", 0, 0, G_OPTION_ARG_STRING, &seed_opt,
        "Texture seed, 1..4294967295 (default 1)", "N"},
    {"motion-blur", 0, 0, G_OPTION_ARG_STRING, &blur_opt,
          "Exposure as a fraction of the frame interval, 0..1: each frame "
          "is averaged along the motion over it (default 0, sharp)",
        "FRACTION"},
    {"gain", 0, 0, G_OPTION_ARG_STRING, &gain_opt,
          "Illumination change of the second frame, "
          "frame11 = G frame11 + B: G in 0.1..10 (default 1)", "G"},
    {"bias", 0, 0, G_OPTION_ARG_STRING, &bias_opt,
        "B of that change, -255..255 grey levels (default 0)", "B"},
    {"noise", 0, 0, G_OPTION_ARG_STRING, &noise_opt,
          "Standard deviation of Gaussian noise on both frames, 0..255 "
          "grey levels, drawn from --seed (default 0)", "SIGMA"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL,
        NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };

  cf_args_parse (cf_args_context_new (PROG, "OUT_DIR", entries,
          "Write a textured scene moved by a known motion as "
          "OUT_DIR/frame10.png,\nframe11.png and the exact flow "
          "OUT_DIR/flow10.flo (Middlebury layout).",
          "Exit status: 0 written, 1 a file could not be written, 2 usage."
          "\n\nExample:\n"
          "  " PROG " --motion smooth --amount 20 scenes/smooth\n"
          "  " PROG " --amount 100 --wavelength 100 scenes/shift-100\n"
          "  " PROG " --amount 20 --wavelength 20 --motion-blur 0.5 "
          "--noise 2 scenes/blurred-20\n"
          "  gst-cudaflow-flow-eval --element cudaflowtvl1 scenes\n"),
      PROG, &argc, &argv);
  if (motion_opt != NULL) {
    if (strcmp (motion_opt, "translation") != 0 &&
        strcmp (motion_opt, "rotation-zoom") != 0 &&
        strcmp (motion_opt, "smooth") != 0)
      cf_args_usage_error (PROG, "unknown motion '%s'", motion_opt);
    motion = motion_opt;
  }
  if (size_opt != NULL && (sscanf (size_opt, "%dx%d", &width, &height) != 2
          || width < 8 || height < 8 || width > 8192 || height > 8192))
    cf_args_usage_error (PROG, "--size '%s' is not WxH from 8x8 to "
        "8192x8192", size_opt);
  if (amount_opt != NULL)
    amount = parse_number ("amount", amount_opt, 0.0f, 500.0f, " pixels");
  cf_synth_params_init (&params);
  if (wavelength_opt != NULL)
    params.wavelength = parse_number ("wavelength", wavelength_opt, 4.0f,
        1000.0f, " pixels");
  if (blur_opt != NULL)
    params.motion_blur = parse_number ("motion-blur", blur_opt, 0.0f,
        CF_SYNTH_MAX_MOTION_BLUR, " of the frame interval");
  if (gain_opt != NULL)
    params.gain = parse_number ("gain", gain_opt, CF_SYNTH_MIN_GAIN,
        CF_SYNTH_MAX_GAIN, "");
  if (bias_opt != NULL)
    params.bias = parse_number ("bias", bias_opt, -CF_SYNTH_MAX_BIAS,
        CF_SYNTH_MAX_BIAS, " grey levels");
  if (noise_opt != NULL)
    params.noise = parse_number ("noise", noise_opt, 0.0f,
        CF_SYNTH_MAX_NOISE, " grey levels");
  if (seed_opt != NULL) {
    char *end;
    unsigned long long seed = g_ascii_strtoull (seed_opt, &end, 10);
    if (*end != '\0' || seed_opt[0] == '\0' || seed_opt[0] == '-' ||
        seed < 1 || seed > 4294967295ULL)
      cf_args_usage_error (PROG, "--seed '%s' is not 1..4294967295",
          seed_opt);
    params.seed = (unsigned int) seed;
  }
  if (args != NULL && args[0] != NULL) {
    if (args[1] != NULL)
      cf_args_usage_error (PROG, "one OUT_DIR only");
    out_dir = args[0];
  }
  if (out_dir == NULL)
    cf_args_usage_error (PROG, "no OUT_DIR");

  if (make_dirs (out_dir) != 0) {
    perror (out_dir);
    return 1;
  }
  scene_params (&params, motion, width, height, amount);
  status = cf_synth_pair (width, height, &params, &f0, &f1, &truth);
  if (status == CF_OK) {
    snprintf (path, sizeof (path), "%s/frame10.png", out_dir);
    status = cf_png_write_grey (path, f0, &err);
  }
  if (status == CF_OK) {
    snprintf (path, sizeof (path), "%s/frame11.png", out_dir);
    status = cf_png_write_grey (path, f1, &err);
  }
  if (status == CF_OK) {
    snprintf (path, sizeof (path), "%s/flow10.flo", out_dir);
    status = cf_flo_write (path, truth, &err);
  }
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  if (status != CF_OK) {
    fprintf (stderr, PROG ": %s: %s\n", path, err.message[0] ? err.message :
        cf_status_name (status));
    return 1;
  }
  return 0;
}
