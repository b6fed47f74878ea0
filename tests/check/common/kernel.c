/* gst-cudaflow — tests for common/kernel and common/gaussian
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/gaussian.h"
#include "common/kernel.h"

/* Tap (i, j) of a kernel. */
static float
tap (const cf_kernel * k, int i, int j)
{
  return k->taps[i + j * k->width];
}

static double
tap_sum (const cf_kernel * k)
{
  double s = 0.0;
  int t;

  for (t = 0; t < k->width * k->height; t++)
    s += k->taps[t];
  return s;
}

/* Parse text, expect CF_OK, return the kernel. */
static cf_kernel *
parse_ok (const char *text)
{
  cf_kernel *k = NULL;
  cf_error err = { "" };
  cf_status st = cf_kernel_parse (text, &k, &err);

  fail_unless (st == CF_OK && k != NULL, "'%s': %s (%s)", text,
      cf_status_name (st), err.message);
  return k;
}

/* Parse text, expect CF_ERROR_FORMAT with exactly the given message. */
static void
parse_fails_with (const char *text, const char *message)
{
  cf_kernel *k = (cf_kernel *) 0x1;
  cf_error err = { "" };
  cf_status st = cf_kernel_parse (text, &k, &err);

  fail_unless_equals_int (st, CF_ERROR_FORMAT);
  fail_unless (k == NULL);
  fail_unless_equals_string (err.message, message);
}

/* Write text to a new temporary file; returns its path (g_free it). */
static gchar *
write_temp (const char *text, gsize len)
{
  GError *error = NULL;
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("cf-kernel-XXXXXX.txt", &path, &error);

  fail_unless (fd >= 0, "g_file_open_tmp: %s", error ? error->message : "");
  g_close (fd, NULL);
  fail_unless (g_file_set_contents (path, text, (gssize) len, &error));
  return path;
}

static void
load_fails_with (const char *text, const char *message)
{
  gchar *path = write_temp (text, strlen (text));
  cf_kernel *k = NULL;
  cf_error err = { "" };

  fail_unless_equals_int (cf_kernel_load (path, &k, &err), CF_ERROR_FORMAT);
  fail_unless (k == NULL);
  fail_unless_equals_string (err.message, message);
  g_unlink (path);
  g_free (path);
}

/* ---- container ---- */

GST_START_TEST (test_new_is_zero_filled_and_rejects_bad_sizes)
{
  cf_kernel *k = cf_kernel_new (3, 2), *c;
  int t;

  fail_unless (k != NULL);
  fail_unless_equals_int (k->width, 3);
  fail_unless_equals_int (k->height, 2);
  for (t = 0; t < 6; t++)
    fail_unless (k->taps[t] == 0.0f);
  k->taps[4] = 7.0f;
  c = cf_kernel_copy (k);
  fail_unless (c != NULL && c->taps != k->taps);
  fail_unless (memcmp (c->taps, k->taps, 6 * sizeof (float)) == 0);
  cf_kernel_free (c);
  cf_kernel_free (k);
  cf_kernel_free (NULL);
  fail_unless (cf_kernel_new (0, 3) == NULL);
  fail_unless (cf_kernel_new (3, -1) == NULL);
  fail_unless (cf_kernel_new (CF_KERNEL_MAX_SIZE + 1, 1) == NULL);
  k = cf_kernel_new (CF_KERNEL_MAX_SIZE, 1);
  fail_unless (k != NULL);
  cf_kernel_free (k);
}

GST_END_TEST;

/* ---- gaussian ---- */

GST_START_TEST (test_gaussian_taps_sum_to_one_and_follow_exp)
{
  float taps[7];
  double s = 0.0;
  int i;

  fail_unless_equals_int (cf_gaussian_radius (1.0f), 3);
  fail_unless_equals_int (cf_gaussian_radius (0.1f), 1);
  fail_unless_equals_int (cf_gaussian_radius (1.5f), 5);
  fail_unless_equals_int (cf_gaussian_taps (1.0f, 3, taps), CF_OK);
  for (i = 0; i < 7; i++)
    s += taps[i];
  fail_unless (fabs (s - 1.0) < 1e-6);
  for (i = 0; i < 3; i++)
    fail_unless (taps[i] == taps[6 - i]);
  /* ratio of neighbours is exp(-(2i+1)/2) for sigma 1 */
  fail_unless (fabs (taps[4] / taps[3] - exp (-0.5)) < 1e-6);
  fail_unless (fabs (taps[5] / taps[3] - exp (-2.0)) < 1e-6);
  fail_unless_equals_int (cf_gaussian_taps (2.0f, 0, taps), CF_OK);
  fail_unless (taps[0] == 1.0f);
  fail_unless_equals_int (cf_gaussian_taps (0.0f, 1, taps), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_gaussian_taps (1.0f, -1, taps), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_gaussian_taps (NAN, 1, taps), CF_ERROR_INVALID);
}

GST_END_TEST;

/* ---- presets ---- */

static void
check_symmetric (const cf_kernel * k)
{
  int i, j, n = k->width;

  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) {
      fail_unless (tap (k, i, j) == tap (k, n - 1 - i, j));
      fail_unless (tap (k, i, j) == tap (k, i, n - 1 - j));
      fail_unless (tap (k, i, j) == tap (k, j, i));
    }
}

GST_START_TEST (test_preset_gaussian_sums_to_one_with_central_peak)
{
  cf_kernel *k = NULL;
  cf_error err = { "" };
  int t, c;

  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_GAUSSIAN,
          0, 1.5f, &k, &err), CF_OK);
  fail_unless_equals_int (k->width, 2 * 5 + 1);
  fail_unless_equals_int (k->height, 11);
  fail_unless (fabs (tap_sum (k) - 1.0) < 1e-5);
  check_symmetric (k);
  c = k->width / 2;
  for (t = 0; t < k->width * k->height; t++)
    fail_unless (k->taps[t] > 0.0f && k->taps[t] <= tap (k, c, c));
  /* separable: K(i,j) K(c,c) = K(i,c) K(c,j) */
  fail_unless (fabs (tap (k, 1, 3) * tap (k, c, c)
          - tap (k, 1, c) * tap (k, c, 3)) < 1e-7);
  cf_kernel_free (k);

  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_GAUSSIAN,
          5, 10.0f, &k, &err), CF_OK);
  fail_unless_equals_int (k->width, 5);
  fail_unless (fabs (tap_sum (k) - 1.0) < 1e-5);
  cf_kernel_free (k);

  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_GAUSSIAN,
          1, 1.0f, &k, &err), CF_OK);
  fail_unless (k->width == 1 && k->taps[0] == 1.0f);
  cf_kernel_free (k);
}

GST_END_TEST;

GST_START_TEST (test_preset_box_has_equal_taps_summing_to_one)
{
  cf_kernel *k = NULL;
  int t;

  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_BOX, 0,
          0.0f, &k, NULL), CF_OK);
  fail_unless_equals_int (k->width, 3);
  for (t = 0; t < 9; t++)
    fail_unless (k->taps[t] == 1.0f / 9.0f);
  cf_kernel_free (k);
  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_BOX, 7,
          -1.0f, &k, NULL), CF_OK);
  fail_unless_equals_int (k->width, 7);
  fail_unless (fabs (tap_sum (k) - 1.0) < 1e-6);
  check_symmetric (k);
  cf_kernel_free (k);
}

GST_END_TEST;

GST_START_TEST (test_preset_disk_covers_inscribed_disc)
{
  cf_kernel *k = NULL;
  int i, j, count = 0;

  /* size 5, r = 2: 13 taps with i^2 + j^2 <= 4 */
  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_DISK, 5,
          0.0f, &k, NULL), CF_OK);
  for (j = 0; j < 5; j++)
    for (i = 0; i < 5; i++) {
      int inside = (i - 2) * (i - 2) + (j - 2) * (j - 2) <= 4;

      if (inside) {
        fail_unless (tap (k, i, j) == 1.0f / 13.0f);
        count++;
      } else {
        fail_unless (tap (k, i, j) == 0.0f);
      }
    }
  fail_unless_equals_int (count, 13);
  fail_unless (tap (k, 0, 0) == 0.0f && tap (k, 0, 2) > 0.0f);
  fail_unless (fabs (tap_sum (k) - 1.0) < 1e-6);
  check_symmetric (k);
  cf_kernel_free (k);

  /* default size 3, r = 1: the 5-point cross */
  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_DISK, 0,
          0.0f, &k, NULL), CF_OK);
  fail_unless_equals_int (k->width, 3);
  fail_unless (tap (k, 0, 0) == 0.0f && tap (k, 1, 0) == 0.2f
      && tap (k, 1, 1) == 0.2f);
  cf_kernel_free (k);
}

GST_END_TEST;

GST_START_TEST (test_preset_laplacian_3_is_five_point_stencil)
{
  static const float expected[9] = { 0, 1, 0, 1, -4, 1, 0, 1, 0 };
  cf_kernel *k = NULL;
  int t;

  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_LAPLACIAN,
          3, 0.0f, &k, NULL), CF_OK);
  for (t = 0; t < 9; t++)
    fail_unless (k->taps[t] == expected[t]);
  cf_kernel_free (k);
}

GST_END_TEST;

GST_START_TEST (test_preset_laplacian_of_gaussian_is_zero_sum)
{
  cf_kernel *k = NULL;
  double abs_sum = 0.0;
  int t, c;

  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_LAPLACIAN,
          9, 1.4f, &k, NULL), CF_OK);
  fail_unless_equals_int (k->width, 9);
  c = 4;
  for (t = 0; t < 81; t++) {
    abs_sum += fabs (k->taps[t]);
    fail_unless (k->taps[t] >= tap (k, c, c));
  }
  fail_unless (tap (k, c, c) < 0.0f);
  /* positive ring at radius ~ sqrt(2) sigma */
  fail_unless (tap (k, c + 2, c) > 0.0f);
  fail_unless (fabs (tap_sum (k)) < 1e-6 * abs_sum);
  check_symmetric (k);
  cf_kernel_free (k);

  /* automatic size 2 ceil(3 sigma) + 1 */
  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_LAPLACIAN,
          0, 2.0f, &k, NULL), CF_OK);
  fail_unless_equals_int (k->width, 13);
  fail_unless (fabs (tap_sum (k)) < 1e-7);
  cf_kernel_free (k);
}

GST_END_TEST;

static void
preset_fails_with (cf_kernel_preset preset, int size, float sigma,
    const char *message)
{
  cf_kernel *k = (cf_kernel *) 0x1;
  cf_error err = { "" };

  fail_unless_equals_int (cf_kernel_preset_new (preset, size, sigma, &k,
          &err), CF_ERROR_INVALID);
  fail_unless (k == NULL);
  fail_unless_equals_string (err.message, message);
}

GST_START_TEST (test_preset_rejects_bad_size_and_sigma)
{
  preset_fails_with (CF_KERNEL_PRESET_BOX, 4, 1.0f,
      "kernel-size 4 must be odd");
  preset_fails_with (CF_KERNEL_PRESET_GAUSSIAN, -3, 1.0f,
      "kernel-size -3 is out of range: use 0 (automatic) or an odd size "
      "1..1023");
  preset_fails_with (CF_KERNEL_PRESET_DISK, 1025, 1.0f,
      "kernel-size 1025 is out of range: use 0 (automatic) or an odd size "
      "1..1023");
  preset_fails_with (CF_KERNEL_PRESET_GAUSSIAN, 5, 0.0f,
      "sigma 0 must be positive and finite for the gaussian kernel");
  preset_fails_with (CF_KERNEL_PRESET_LAPLACIAN, 7, -1.0f,
      "sigma -1 must be positive and finite for the laplacian kernel");
  preset_fails_with (CF_KERNEL_PRESET_GAUSSIAN, 0, 200.0f,
      "sigma 200 needs kernel-size 1201, above the largest allowed 1023");
  preset_fails_with (CF_KERNEL_PRESET_LAPLACIAN, 1, 1.0f,
      "kernel-size 1 is too small for the laplacian kernel; use 3 or more");
  preset_fails_with (CF_KERNEL_PRESET_NONE, 3, 1.0f,
      "no kernel preset selected");
}

GST_END_TEST;

/* ---- parser ---- */

GST_START_TEST (test_parse_accepts_semicolons_commas_and_spaces)
{
  static const float expected[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  const char *texts[] = {
    "1 2 1; 2 4 2; 1 2 1",
    "1,2,1;2,4,2;1,2,1",
    "1, 2, 1\n2, 4, 2\n1, 2, 1\n",
    "  1\t2  1 ;; 2 4 2;\n\n 1 2 1  ;",
    "# a 3x3 binomial\n1 2 1   # top\n\n2 4 2\n# middle done\n1 2 1",
    "1 2 1\r\n2 4 2\r\n1 2 1\r\n",
    "1.0 2e0 +1; 0.2e1 4. 2; 1 20e-1 1",
  };
  guint n;
  int t;

  for (n = 0; n < G_N_ELEMENTS (texts); n++) {
    cf_kernel *k = parse_ok (texts[n]);

    fail_unless_equals_int (k->width, 3);
    fail_unless_equals_int (k->height, 3);
    for (t = 0; t < 9; t++)
      fail_unless (k->taps[t] == expected[t], "text %u tap %d", n, t);
    cf_kernel_free (k);
  }
}

GST_END_TEST;

GST_START_TEST (test_parse_accepts_1x1_row_column_and_exponents)
{
  cf_kernel *k = parse_ok ("1e-3");

  fail_unless (k->width == 1 && k->height == 1);
  fail_unless (k->taps[0] == 1e-3f);
  cf_kernel_free (k);

  k = parse_ok ("1,1,1,1,1");
  fail_unless (k->width == 5 && k->height == 1);
  fail_unless (k->taps[4] == 1.0f);
  cf_kernel_free (k);

  k = parse_ok ("-0.25\n0.5\n-2.5E-2");
  fail_unless (k->width == 1 && k->height == 3);
  fail_unless (k->taps[0] == -0.25f && k->taps[1] == 0.5f
      && k->taps[2] == -2.5e-2f);
  cf_kernel_free (k);
}

GST_END_TEST;

/* Minimal locale source: only LC_NUMERIC, with ',' as decimal point. */
static const char comma_locale_source[] =
    "comment_char %\n"
    "escape_char /\n"
    "LC_NUMERIC\n"
    "decimal_point \"<U002C>\"\n"
    "thousands_sep \"<U002E>\"\n" "grouping 3;3\n" "END LC_NUMERIC\n";

/* Remove dir and the files directly inside it. */
static void
remove_dir (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  if (d != NULL) {
    while ((name = g_dir_read_name (d)) != NULL) {
      gchar *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
      g_free (path);
    }
    g_dir_close (d);
  }
  g_rmdir (dir);
}

/* Switch LC_NUMERIC to a locale whose decimal point is ','. Installed
 * German/French/Russian locales first; else compile the minimal source
 * above with localedef into a temporary directory (*tmpdir, remove it
 * afterwards) and point LOCPATH there. Returns the locale name or NULL. */
static const char *
set_comma_locale (gchar ** tmpdir)
{
  static const char *installed[] = { "de_DE.UTF-8", "de_DE.utf8", "de_DE",
    "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8"
  };
  gchar *src, *out;
  gchar *argv[6];
  guint i;

  *tmpdir = NULL;
  for (i = 0; i < G_N_ELEMENTS (installed); i++)
    if (setlocale (LC_NUMERIC, installed[i]) != NULL)
      return installed[i];

  *tmpdir = g_dir_make_tmp ("cf-locale-XXXXXX", NULL);
  if (*tmpdir == NULL)
    return NULL;
  src = g_build_filename (*tmpdir, "source", NULL);
  out = g_build_filename (*tmpdir, "cf_COMMA", NULL);
  g_file_set_contents (src, comma_locale_source, -1, NULL);
  argv[0] = (gchar *) "localedef";
  argv[1] = (gchar *) "-c";     /* write it although categories are missing */
  argv[2] = (gchar *) "-i";
  argv[3] = src;
  argv[4] = out;
  argv[5] = NULL;
  /* exit status 1 only reports the missing categories */
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH
      | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
      NULL, NULL, NULL, NULL);
  g_unlink (src);
  g_free (src);
  g_free (out);
  g_setenv ("LOCPATH", *tmpdir, TRUE);
  if (setlocale (LC_NUMERIC, "cf_COMMA") != NULL)
    return "cf_COMMA (generated)";
  return NULL;
}

/* A comma decimal locale must not change the syntax: "0.5" stays 0.5 and
 * "0,5" stays two values. */
GST_START_TEST (test_parse_ignores_numeric_locale)
{
  gchar *saved = g_strdup (setlocale (LC_NUMERIC, NULL));
  gchar *tmpdir = NULL;
  const char *used = set_comma_locale (&tmpdir);
  cf_kernel *k;
  char text[64];

  if (used == NULL) {
    g_printerr ("note: no comma-decimal locale could be installed or "
        "generated; test_parse_ignores_numeric_locale runs in the C "
        "locale\n");
  } else {
    /* the trap is live: plain strtod now stops at the '.' */
    GST_INFO ("checking under LC_NUMERIC=%s", used);
    fail_unless_equals_string (localeconv ()->decimal_point, ",");
    fail_unless (strtod ("0.5", NULL) == 0.0);
  }

  k = parse_ok ("0.5 0,5");
  fail_unless (k->width == 3);
  fail_unless (k->taps[0] == 0.5f && k->taps[1] == 0.0f && k->taps[2] == 5.0f);
  cf_kernel_free (k);
  k = parse_ok ("0.25; 1.5e-1");
  fail_unless (k->taps[0] == 0.25f && k->taps[1] == 0.15f);
  cf_kernel_describe (k, text, sizeof (text));
  fail_unless_equals_string (text, "1x2 [0.25; 0.15]");
  cf_kernel_free (k);

  setlocale (LC_NUMERIC, saved);
  g_free (saved);
  if (tmpdir != NULL) {
    g_unsetenv ("LOCPATH");
    remove_dir (tmpdir);
    g_free (tmpdir);
  }
}

GST_END_TEST;

GST_START_TEST (test_parse_reports_row_with_wrong_count)
{
  parse_fails_with ("1 2 3 4 5; 1 2 3 4 5; 1 2 3 4",
      "row 3: expected 5 values, got 4");
  parse_fails_with ("1\n2 3", "row 2: expected 1 value, got 2");
  /* blank rows do not count */
  parse_fails_with ("1 2;;\n# note\n3 4 5", "row 2: expected 2 values, got 3");
}

GST_END_TEST;

GST_START_TEST (test_parse_reports_values_that_are_not_numbers)
{
  parse_fails_with ("1 2; x1 3", "row 2: 'x1' is not a number");
  parse_fails_with ("1 2 3abc", "row 1: '3abc' is not a number");
  parse_fails_with ("0,5;1e", "row 2: '1e' is not a number");
  parse_fails_with ("1 2 abcdefghijklmnopqrstuvwxyz0123",
      "row 1: 'abcdefghijklmnopqrstu...' is not a number");
  parse_fails_with ("1 ,, 2", "row 1: missing value before ','");
  parse_fails_with (", 2", "row 1: missing value before ','");
  parse_fails_with ("1 2,\n3 4", "row 1: missing value after ','");
}

GST_END_TEST;

GST_START_TEST (test_parse_rejects_non_finite_values)
{
  parse_fails_with ("1 inf", "row 1: value 'inf' is not finite");
  parse_fails_with ("1; nan", "row 2: value 'nan' is not finite");
  parse_fails_with ("-Infinity", "row 1: value '-Infinity' is not finite");
  parse_fails_with ("1e39", "row 1: value '1e39' is out of range for float");
  parse_fails_with ("1e999", "row 1: value '1e999' is out of range for float");
}

GST_END_TEST;

GST_START_TEST (test_parse_rejects_empty_and_oversized_kernels)
{
  GString *s;
  int i;

  parse_fails_with ("", "empty kernel");
  parse_fails_with ("  ;\n ; # only a comment", "empty kernel");

  s = g_string_new (NULL);
  for (i = 0; i < 1100; i++)
    g_string_append (s, i ? " 0" : "1");
  g_string_append_printf (s, ";%s;%s", s->str, s->str);
  parse_fails_with (s->str, "kernel is 1100x3; the largest side allowed is "
      "1023");
  g_string_truncate (s, 0);
  for (i = 0; i < 1024; i++)
    g_string_append (s, "1\n");
  parse_fails_with (s->str, "kernel is 1x1024; the largest side allowed is "
      "1023");
  g_string_free (s, TRUE);
}

GST_END_TEST;

/* Underflow is refused like overflow: a non-zero literal that would be 0
 * as a float is an error, not a silent 0; zero written any way, and
 * subnormal floats, are values. */
GST_START_TEST (test_parse_refuses_underflow_like_overflow)
{
  cf_kernel *k;

  parse_fails_with ("1 1e-400", "row 1: value '1e-400' is out of range for "
      "float (too close to 0; write 0 for zero)");
  parse_fails_with ("-1e-46; 1", "row 1: value '-1e-46' is out of range for "
      "float (too close to 0; write 0 for zero)");
  parse_fails_with ("1e400", "row 1: value '1e400' is out of range for "
      "float");
  k = parse_ok ("0 -0 0e-400 0.0e5 1e-40");
  fail_unless_equals_int (k->width, 5);
  fail_unless (k->taps[0] == 0.0f && k->taps[1] == 0.0f
      && k->taps[2] == 0.0f && k->taps[3] == 0.0f);
  fail_unless (k->taps[4] > 0.0f && k->taps[4] < 1.2e-38f);
  cf_kernel_free (k);
}

GST_END_TEST;

/* Inline text is one line: '#' comments end at the row's ';', so a
 * comment cannot swallow the rows after it. */
GST_START_TEST (test_parse_inline_comment_ends_at_its_row)
{
  cf_kernel *k = parse_ok ("1 # c ; 2");

  fail_unless_equals_int (k->width, 1);
  fail_unless_equals_int (k->height, 2);
  fail_unless (k->taps[0] == 1.0f && k->taps[1] == 2.0f);
  cf_kernel_free (k);

  k = parse_ok ("1 2 1 # top; 2 4 2 # middle; 1 2 1 # bottom");
  fail_unless (k->width == 3 && k->height == 3);
  fail_unless (tap (k, 1, 1) == 4.0f && tap (k, 2, 2) == 1.0f);
  cf_kernel_free (k);
  parse_fails_with ("1 2 # c; 3", "row 2: expected 2 values, got 1");
}

GST_END_TEST;

/* A UTF-8 byte order mark is skipped, inline and in files. */
GST_START_TEST (test_parse_skips_utf8_byte_order_mark)
{
  const char *text = "\xef\xbb\xbf" "1 2 1\n2 4 2\n1 2 1\n";
  gchar *path = write_temp (text, strlen (text));
  cf_kernel *k = parse_ok ("\xef\xbb\xbf" "1 2; 3 4");
  cf_error err = { "" };

  fail_unless (k->width == 2 && k->height == 2 && k->taps[0] == 1.0f);
  cf_kernel_free (k);
  k = NULL;
  fail_unless_equals_int (cf_kernel_load (path, &k, &err), CF_OK);
  fail_unless (k->width == 3 && k->height == 3 && k->taps[0] == 1.0f);
  cf_kernel_free (k);
  g_unlink (path);
  g_free (path);
  /* only at the start: elsewhere it is not a number */
  parse_fails_with ("1 \xef\xbb\xbf" "2", "row 1: '\xef\xbb\xbf" "2' is "
      "not a number");
}

GST_END_TEST;

/* Load raw bytes (NULs included) and expect a format error. */
static void
load_bytes_fails_with (const char *bytes, gsize len, const char *message)
{
  gchar *path = write_temp (bytes, len);
  cf_kernel *k = NULL;
  cf_error err = { "" };

  fail_unless_equals_int (cf_kernel_load (path, &k, &err), CF_ERROR_FORMAT);
  fail_unless (k == NULL);
  fail_unless_equals_string (err.message, message);
  fail_unless (g_utf8_validate (err.message, -1, NULL));
  g_unlink (path);
  g_free (path);
}

/* Binary files: a NUL byte, or bytes that are not UTF-8 (a PNG header,
 * Latin-1 text), are refused at their line and named by value; the
 * message stays valid UTF-8 with no raw byte copied in. */
GST_START_TEST (test_load_refuses_nul_and_non_utf8_bytes)
{
  static const char nul_in_row[] = "1 2\n3 4\n5\0 6\n";
  static const char nul_in_comment[] = "# a\0b\n1\n";
  static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
  static const char latin1_comment[] = "1 2\n# caf\xe9\n3 4\n";
  static const char latin1_value[] = "1 2\n3 \xb5" "4\n";
  static const char utf8_value[] = "1 \xc2\xb5" "2\n";

  load_bytes_fails_with (nul_in_row, sizeof (nul_in_row) - 1,
      "line 3: NUL byte; a kernel is text");
  load_bytes_fails_with (nul_in_comment, sizeof (nul_in_comment) - 1,
      "line 1: NUL byte; a kernel is text");
  load_bytes_fails_with (png, sizeof (png) - 1,
      "line 1: byte 0x89 is not UTF-8; a kernel is text");
  load_bytes_fails_with (latin1_comment, sizeof (latin1_comment) - 1,
      "line 2: byte 0xE9 is not UTF-8; a kernel is text");
  load_bytes_fails_with (latin1_value, sizeof (latin1_value) - 1,
      "line 2: byte 0xB5 is not UTF-8; a kernel is text");
  /* well-formed UTF-8 is quoted as it is */
  load_bytes_fails_with (utf8_value, sizeof (utf8_value) - 1,
      "line 1: '\xc2\xb5" "2' is not a number");
  /* control characters are escaped, never copied */
  parse_fails_with ("1 2\x01" "3", "row 1: '2\\x013' is not a number");
  /* a long token is cut at a character boundary */
  parse_fails_with ("\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5"
      "\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5",
      "row 1: '\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5"
      "\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5...' is not a number");
  /* inline text names the row */
  parse_fails_with ("1; 2 \xff", "row 2: byte 0xFF is not UTF-8; a kernel is "
      "text");
}

GST_END_TEST;

/* ---- file loading ---- */

GST_START_TEST (test_load_reads_file_with_comments)
{
  const char *text = "# Sobel x\r\n\r\n-1 0 1\r\n-2 0 2  # centre\r\n"
      "-1 0 1\r\n";
  gchar *path = write_temp (text, strlen (text));
  cf_kernel *k = NULL;
  cf_error err = { "" };

  fail_unless_equals_int (cf_kernel_load (path, &k, &err), CF_OK);
  fail_unless (k->width == 3 && k->height == 3);
  fail_unless (tap (k, 0, 1) == -2.0f && tap (k, 2, 2) == 1.0f);
  cf_kernel_free (k);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_load_reports_file_line_numbers)
{
  load_fails_with ("# 5x5 box\n\n1 1 1 1 1\n1 1 1 1 1\n# gap\n\n"
      "1 1 1 1\n", "line 7: expected 5 values, got 4");
  load_fails_with ("1 2\r\n\r\n3 x4\r\n", "line 3: 'x4' is not a number");
  load_fails_with ("1 2; 3 4\n# c\n5 6; 7\n",
      "line 3: expected 2 values, got 1");
  load_fails_with ("# nothing here\n\n", "empty kernel");
  load_fails_with ("1\n\n\nnan\n", "line 4: value 'nan' is not finite");
}

GST_END_TEST;

GST_START_TEST (test_load_reports_missing_file_as_io_error)
{
  gchar *dir = g_dir_make_tmp ("cf-kernel-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "missing.txt", NULL);
  gchar *expected = g_strdup_printf ("cannot open kernel file '%s': %s",
      path, g_strerror (ENOENT));
  cf_kernel *k = (cf_kernel *) 0x1;
  cf_error err = { "" };

  fail_unless_equals_int (cf_kernel_load (path, &k, &err), CF_ERROR_IO);
  fail_unless (k == NULL);
  fail_unless_equals_string (err.message, expected);
  g_free (expected);

  /* a directory opens but cannot be read */
  expected = g_strdup_printf ("cannot read kernel file '%s': %s", dir,
      g_strerror (EISDIR));
  fail_unless_equals_int (cf_kernel_load (dir, &k, &err), CF_ERROR_IO);
  fail_unless (k == NULL);
  fail_unless_equals_string (err.message, expected);
  g_rmdir (dir);
  g_free (expected);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* ---- operations ---- */

GST_START_TEST (test_normalize_divides_by_sum_and_rejects_zero_sum)
{
  cf_kernel *k = parse_ok ("1 2 1; 2 4 2; 1 2 1");
  cf_kernel *lap;

  fail_unless_equals_int (cf_kernel_normalize (k), CF_OK);
  fail_unless (tap (k, 1, 1) == 0.25f && tap (k, 0, 0) == 0.0625f);
  cf_kernel_free (k);

  k = parse_ok ("-1 0 1; -2 0 2; -1 0 1");
  fail_unless_equals_int (cf_kernel_normalize (k), CF_ERROR_INVALID);
  fail_unless (tap (k, 0, 1) == -2.0f); /* unchanged */
  cf_kernel_free (k);

  fail_unless_equals_int (cf_kernel_preset_new (CF_KERNEL_PRESET_LAPLACIAN,
          7, 1.0f, &lap, NULL), CF_OK);
  k = cf_kernel_copy (lap);
  fail_unless_equals_int (cf_kernel_normalize (k), CF_ERROR_INVALID);
  fail_unless (memcmp (k->taps, lap->taps, 49 * sizeof (float)) == 0);
  cf_kernel_free (k);
  cf_kernel_free (lap);
  fail_unless_equals_int (cf_kernel_normalize (NULL), CF_ERROR_INVALID);
}

GST_END_TEST;

GST_START_TEST (test_identity_needs_single_one_at_anchor)
{
  cf_kernel *k = parse_ok ("0 0 0; 0 1 0; 0 0 0");

  fail_unless (cf_kernel_is_identity (k));
  cf_kernel_free (k);
  k = parse_ok ("1");
  fail_unless (cf_kernel_is_identity (k));
  cf_kernel_free (k);
  /* 4x2: anchor (2, 1) */
  k = parse_ok ("0 0 0 0; 0 0 1 -0");
  fail_unless (cf_kernel_is_identity (k));
  cf_kernel_free (k);
  k = parse_ok ("0 0 0 0; 0 1 0 0");
  fail_unless (!cf_kernel_is_identity (k));
  cf_kernel_free (k);
  k = parse_ok ("0 0 0; 0 1 0; 0 0 1e-30");
  fail_unless (!cf_kernel_is_identity (k));
  cf_kernel_free (k);
  k = parse_ok ("0 0 0; 0 2 0; 0 0 0");
  fail_unless (!cf_kernel_is_identity (k));
  cf_kernel_free (k);
  fail_unless (!cf_kernel_is_identity (NULL));
}

GST_END_TEST;

GST_START_TEST (test_flipped_reverses_both_axes)
{
  cf_kernel *k = parse_ok ("1 2 3; 4 5 6");
  cf_kernel *f = cf_kernel_flipped (k);
  static const float expected[6] = { 6, 5, 4, 3, 2, 1 };
  int t;

  fail_unless (f->width == 3 && f->height == 2);
  for (t = 0; t < 6; t++)
    fail_unless (f->taps[t] == expected[t]);
  cf_kernel_free (f);
  cf_kernel_free (k);
  fail_unless (cf_kernel_flipped (NULL) == NULL);
}

GST_END_TEST;

GST_START_TEST (test_describe_renders_taps_and_truncates)
{
  cf_kernel *k = parse_ok ("1 2 1; 2 4 2; 1 2 1");
  char out[64];
  char small[16];
  char tiny[3];

  cf_kernel_describe (k, out, sizeof (out));
  fail_unless_equals_string (out, "3x3 [1 2 1; 2 4 2; 1 2 1]");
  /* exactly fits: 25 characters + NUL */
  cf_kernel_describe (k, out, 26);
  fail_unless_equals_string (out, "3x3 [1 2 1; 2 4 2; 1 2 1]");
  cf_kernel_describe (k, out, 25);
  fail_unless_equals_string (out, "3x3 [1 2 1; 2 4 2; 1\xe2\x80\xa6");
  cf_kernel_describe (k, small, sizeof (small));
  fail_unless_equals_string (small, "3x3 [1 2 1\xe2\x80\xa6");
  fail_unless (strlen (small) < sizeof (small));
  cf_kernel_describe (k, tiny, sizeof (tiny));
  fail_unless_equals_string (tiny, "3x");
  cf_kernel_free (k);

  k = parse_ok ("0.0625 -0.125 1e-7");
  cf_kernel_describe (k, out, sizeof (out));
  fail_unless_equals_string (out, "3x1 [0.0625 -0.125 1e-07]");
  cf_kernel_describe (k, small, sizeof (small));
  fail_unless_equals_string (small, "3x1 [0.0625\xe2\x80\xa6");
  cf_kernel_free (k);
}

GST_END_TEST;

static Suite *
common_kernel_suite (void)
{
  Suite *s = suite_create ("common_kernel");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_new_is_zero_filled_and_rejects_bad_sizes);
  tcase_add_test (tc, test_gaussian_taps_sum_to_one_and_follow_exp);
  tcase_add_test (tc, test_preset_gaussian_sums_to_one_with_central_peak);
  tcase_add_test (tc, test_preset_box_has_equal_taps_summing_to_one);
  tcase_add_test (tc, test_preset_disk_covers_inscribed_disc);
  tcase_add_test (tc, test_preset_laplacian_3_is_five_point_stencil);
  tcase_add_test (tc, test_preset_laplacian_of_gaussian_is_zero_sum);
  tcase_add_test (tc, test_preset_rejects_bad_size_and_sigma);
  tcase_add_test (tc, test_parse_accepts_semicolons_commas_and_spaces);
  tcase_add_test (tc, test_parse_accepts_1x1_row_column_and_exponents);
  tcase_add_test (tc, test_parse_ignores_numeric_locale);
  tcase_add_test (tc, test_parse_reports_row_with_wrong_count);
  tcase_add_test (tc, test_parse_reports_values_that_are_not_numbers);
  tcase_add_test (tc, test_parse_rejects_non_finite_values);
  tcase_add_test (tc, test_parse_rejects_empty_and_oversized_kernels);
  tcase_add_test (tc, test_parse_refuses_underflow_like_overflow);
  tcase_add_test (tc, test_parse_inline_comment_ends_at_its_row);
  tcase_add_test (tc, test_parse_skips_utf8_byte_order_mark);
  tcase_add_test (tc, test_load_refuses_nul_and_non_utf8_bytes);
  tcase_add_test (tc, test_load_reads_file_with_comments);
  tcase_add_test (tc, test_load_reports_file_line_numbers);
  tcase_add_test (tc, test_load_reports_missing_file_as_io_error);
  tcase_add_test (tc, test_normalize_divides_by_sum_and_rejects_zero_sum);
  tcase_add_test (tc, test_identity_needs_single_one_at_anchor);
  tcase_add_test (tc, test_flipped_reverses_both_axes);
  tcase_add_test (tc, test_describe_renders_taps_and_truncates);
  return s;
}

GST_CHECK_MAIN (common_kernel);
