/* gst-cudaflow — convolution kernels: container, text syntax, presets
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/kernel.h"
#include "common/gaussian.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest kernel file read by cf_kernel_load (bytes). A 1023x1023 kernel
 * written with 17 significant digits is about 25 MiB. */
#define CF_KERNEL_FILE_MAX (64 * 1024 * 1024)

/* Longest token quoted in an error message before it is shortened. */
#define CF_TOKEN_QUOTE_MAX 24

/* ---------------------------------------------------------------------- */
/* Container                                                              */

/* Zero-filled width x height kernel; NULL when a side is outside
 * 1..CF_KERNEL_MAX_SIZE or memory runs out. */
cf_kernel *
cf_kernel_new (int width, int height)
{
  cf_kernel *kernel;

  if (width < 1 || height < 1 || width > CF_KERNEL_MAX_SIZE
      || height > CF_KERNEL_MAX_SIZE)
    return NULL;
  kernel = calloc (1, sizeof (*kernel));
  if (kernel == NULL)
    return NULL;
  kernel->taps = calloc ((size_t) width * height, sizeof (float));
  if (kernel->taps == NULL) {
    free (kernel);
    return NULL;
  }
  kernel->width = width;
  kernel->height = height;
  return kernel;
}

/* Release a kernel and its taps; NULL is a no-op. */
void
cf_kernel_free (cf_kernel * kernel)
{
  if (kernel == NULL)
    return;
  free (kernel->taps);
  free (kernel);
}

/* Deep copy; NULL for a NULL or malformed kernel or on no memory. */
cf_kernel *
cf_kernel_copy (const cf_kernel * kernel)
{
  cf_kernel *copy;

  if (kernel == NULL || kernel->taps == NULL)
    return NULL;
  copy = cf_kernel_new (kernel->width, kernel->height);
  if (copy == NULL)
    return NULL;
  memcpy (copy->taps, kernel->taps,
      (size_t) kernel->width * kernel->height * sizeof (float));
  return copy;
}

/* ---------------------------------------------------------------------- */
/* Text syntax                                                            */

/* Growable array of parsed values. */
typedef struct
{
  float *values;
  size_t count;
  size_t capacity;
} value_list;

/* Append a value, growing the array; 0 when memory runs out or the list
 * would pass 1 GiB. */
static int
value_list_push (value_list * list, float value)
{
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 64;
    float *values;

    /* Never more than 1023 * 1023 useful values plus one full row too
     * many; anything beyond is rejected later anyway, so cap the growth. */
    if (capacity > ((size_t) 1 << 30) / sizeof (float))
      return 0;
    values = realloc (list->values, capacity * sizeof (float));
    if (values == NULL)
      return 0;
    list->values = values;
    list->capacity = capacity;
  }
  list->values[list->count++] = value;
  return 1;
}

/* White space inside a row (the newline separates rows instead). */
static int
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Characters that end a value token. */
static int
ends_token (char c)
{
  return is_blank (c) || c == ',' || c == ';' || c == '\n' || c == '#'
      || c == '\0';
}

/* Length of the well-formed UTF-8 sequence at text[pos] (1 for ASCII),
 * or 0 when the bytes there are not UTF-8 (stray continuation byte,
 * overlong form, surrogate, above U+10FFFF, or cut short). */
static size_t
utf8_sequence_length (const unsigned char *text, size_t pos, size_t length)
{
  unsigned char b = text[pos];
  size_t n, i;
  unsigned int cp;

  if (b < 0x80)
    return 1;
  if (b >= 0xc2 && b <= 0xdf) {
    n = 2;
    cp = b & 0x1f;
  } else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    cp = b & 0x0f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (pos + n > length)
    return 0;
  for (i = 1; i < n; i++) {
    if ((text[pos + i] & 0xc0) != 0x80)
      return 0;
    cp = (cp << 6) | (text[pos + i] & 0x3f);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
      || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return n;
}

/* Offset of the first byte in [start, end) that is not text (a NUL, or
 * not UTF-8), or end when all of it is. */
static size_t
first_non_text (const char *text, size_t start, size_t end)
{
  size_t pos = start;

  while (pos < end) {
    size_t n = utf8_sequence_length ((const unsigned char *) text, pos, end);

    if (n == 0 || text[pos] == '\0')
      return pos;
    pos += n;
  }
  return end;
}

/* Copy token [start, start + len) (UTF-8) into out (size n) for quoting in
 * a message: control characters are written as \xNN, and a long token is
 * cut after CF_TOKEN_QUOTE_MAX - 3 bytes (at a character boundary) and
 * ends in "...". */
static void
quote_token (const char *start, size_t len, char *out, size_t n)
{
  size_t keep = len, i, o = 0;

  if (len > CF_TOKEN_QUOTE_MAX) {
    keep = CF_TOKEN_QUOTE_MAX - 3;
    while (keep > 0 && ((unsigned char) start[keep] & 0xc0) == 0x80)
      keep--;
  }
  for (i = 0; i < keep && o + 5 < n; i++) {
    unsigned char b = (unsigned char) start[i];

    if (b < 0x20 || b == 0x7f)
      o += (size_t) snprintf (out + o, n - o, "\\x%02X", b);
    else
      out[o++] = (char) b;
  }
  out[o] = '\0';
  if (keep < len && o + 4 <= n)
    memcpy (out + o, "...", 4);
}

/* Outcome of converting one token. */
typedef enum
{
  TOKEN_OK,
  TOKEN_NOT_A_NUMBER,
  TOKEN_NOT_FINITE,
  TOKEN_OUT_OF_RANGE,           /* |value| above the largest float */
  TOKEN_UNDERFLOW               /* not zero, but 0 once stored as float */
} token_result;

/* Convert one token to float with the C locale's number syntax (strtod in
 * a thread-local "C" numeric locale, so a German LC_NUMERIC cannot turn
 * "0.5" into an error). The whole token must be consumed. */
static token_result
convert_token (const char *start, size_t len, locale_t c_locale, float *out)
{
  char stack_buf[64];
  char *buf = stack_buf, *end;
  locale_t old_locale;
  double d;
  int saved_errno, range_error;
  token_result result = TOKEN_OK;

  if (len >= sizeof (stack_buf)) {
    buf = malloc (len + 1);
    if (buf == NULL)
      return TOKEN_NOT_A_NUMBER;
  }
  memcpy (buf, start, len);
  buf[len] = '\0';

  saved_errno = errno;
  errno = 0;
  old_locale = uselocale (c_locale);
  d = strtod (buf, &end);
  uselocale (old_locale);
  range_error = errno == ERANGE;
  errno = saved_errno;

  if (end == buf || *end != '\0' || strlen (buf) != len) {
    result = TOKEN_NOT_A_NUMBER;
  } else if (isnan (d) || (isinf (d) && !range_error)) {
    /* "inf", "nan", "infinity" spelled out */
    result = TOKEN_NOT_FINITE;
  } else if (isinf (d) || !isfinite ((float) d)) {
    /* overflows double or float */
    result = TOKEN_OUT_OF_RANGE;
  } else if ((float) d == 0.0f && (d != 0.0 || range_error)) {
    /* a non-zero literal too small for float ("1e-400", "1e-46"): refused
     * like an overflow rather than silently read as 0; subnormal floats
     * ("1e-40") are kept */
    result = TOKEN_UNDERFLOW;
  } else {
    *out = (float) d;
  }
  if (buf != stack_buf)
    free (buf);
  return result;
}

/* "line N" (file loading) or "row N" (inline text) for error messages;
 * writes into buf and returns it. */
static const char *
location (char *buf, size_t n, int by_line, int line, int row)
{
  if (by_line)
    snprintf (buf, n, "line %d", line);
  else
    snprintf (buf, n, "row %d", row);
  return buf;
}

/* Inside parse_text (): the "line N" / "row N" of an error, and failing
 * with a status and a message (jumps to the cleanup at done). */
#define LOCATION(l) location (where, sizeof (where), by_line, (l), rows + 1)
#define FAIL(st, ...) do { status = (st); cf_error_set (err, __VA_ARGS__); \
    goto done; } while (0)
/* A byte that no text holds: a NUL, or one that is not UTF-8 (its value,
 * never the byte itself, goes into the message). */
#define NOT_TEXT(b) do { if ((b) == '\0') \
      FAIL (CF_ERROR_FORMAT, "%s: NUL byte; a kernel is text", \
          LOCATION (line)); \
    FAIL (CF_ERROR_FORMAT, "%s: byte 0x%02X is not UTF-8; a kernel is text", \
        LOCATION (line), (unsigned char) (b)); } while (0)

/* Shared parser. With by_line set, locations are reported as "line N"
 * (1-based lines of the text, blank and comment lines included), otherwise
 * as "row N" (1-based rows of the matrix, blank rows not counted).
 *
 * The text must be UTF-8 without NUL bytes (a leading byte order mark is
 * skipped): a binary file is refused at its first such byte, which the
 * message names by its value instead of copying it. A '#' comment ends
 * with its line in a file; inline text is usually one line, so there a
 * comment ends with its row: at the next ';' or newline. */
static cf_status
parse_text (const char *text, size_t length, int by_line,
    cf_kernel ** kernel, cf_error * err)
{
  value_list list = { NULL, 0, 0 };
  locale_t c_locale;
  cf_status status = CF_OK;
  size_t pos = 0;
  int line = 1;                 /* current line of the text */
  int rows = 0;                 /* completed non-blank rows */
  int width = 0;                /* values per row, set by the first row */
  int in_row = 0;               /* values in the current row */
  int row_line = 1;             /* line of the current row's first value */
  int after_comma = 0;          /* last separator of this row was ',' */
  char where[48];
  char quoted[4 * CF_TOKEN_QUOTE_MAX + 8];

  c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  if (c_locale == (locale_t) 0) {
    cf_error_set (err, "cannot create the C locale for number parsing");
    return CF_ERROR_NO_MEMORY;
  }
  /* UTF-8 byte order mark, as some editors write it */
  if (length >= 3 && memcmp (text, "\xef\xbb\xbf", 3) == 0)
    pos = 3;

  for (;;) {
    char c = pos < length ? text[pos] : '\0';
    int at_end = pos >= length;

    if (!at_end && is_blank (c)) {
      pos++;
      continue;
    }
    if (!at_end && c == '\0')
      NOT_TEXT (c);
    if (!at_end && c == '#') {
      size_t start = pos, bad;

      while (pos < length && text[pos] != '\n'
          && (by_line || text[pos] != ';'))
        pos++;
      bad = first_non_text (text, start, pos);
      if (bad < pos)
        NOT_TEXT (text[bad]);
      continue;
    }
    if (at_end || c == ';' || c == '\n') {
      /* end of a row */
      if (after_comma)
        FAIL (CF_ERROR_FORMAT, "%s: missing value after ','", LOCATION (line));
      if (in_row > 0) {
        if (rows == 0) {
          width = in_row;
        } else if (in_row != width) {
          FAIL (CF_ERROR_FORMAT, "%s: expected %d value%s, got %d",
              LOCATION (row_line), width, width == 1 ? "" : "s", in_row);
        }
        rows++;
        in_row = 0;
      }
      if (at_end)
        break;
      if (c == '\n')
        line++;
      pos++;
      continue;
    }
    if (c == ',') {
      if (in_row == 0 || after_comma)
        FAIL (CF_ERROR_FORMAT, "%s: missing value before ','", LOCATION (line));
      after_comma = 1;
      pos++;
      continue;
    }
    /* a value token */
    {
      size_t start = pos, len, bad;
      float value = 0.0f;
      token_result result;

      while (pos < length && !ends_token (text[pos]))
        pos++;
      len = pos - start;
      if (in_row == 0)
        row_line = line;
      bad = first_non_text (text, start, pos);
      if (bad < pos)
        NOT_TEXT (text[bad]);
      quote_token (text + start, len, quoted, sizeof (quoted));
      result = convert_token (text + start, len, c_locale, &value);
      switch (result) {
        case TOKEN_OK:
          break;
        case TOKEN_NOT_A_NUMBER:
          FAIL (CF_ERROR_FORMAT, "%s: '%s' is not a number",
              LOCATION (line), quoted);
        case TOKEN_NOT_FINITE:
          FAIL (CF_ERROR_FORMAT, "%s: value '%s' is not finite",
              LOCATION (line), quoted);
        case TOKEN_OUT_OF_RANGE:
          FAIL (CF_ERROR_FORMAT, "%s: value '%s' is out of range for float",
              LOCATION (line), quoted);
        case TOKEN_UNDERFLOW:
          FAIL (CF_ERROR_FORMAT, "%s: value '%s' is out of range for float "
              "(too close to 0; write 0 for zero)", LOCATION (line), quoted);
      }
      if (!value_list_push (&list, value))
        FAIL (CF_ERROR_NO_MEMORY, "out of memory after %zu values", list.count);
      in_row++;
      after_comma = 0;
    }
  }

  if (rows == 0)
    FAIL (CF_ERROR_FORMAT, "empty kernel");
  if (width > CF_KERNEL_MAX_SIZE || rows > CF_KERNEL_MAX_SIZE)
    FAIL (CF_ERROR_FORMAT, "kernel is %dx%d; the largest side allowed is %d",
        width, rows, CF_KERNEL_MAX_SIZE);
  *kernel = cf_kernel_new (width, rows);
  if (*kernel == NULL)
    FAIL (CF_ERROR_NO_MEMORY, "out of memory for a %dx%d kernel", width, rows);
  memcpy ((*kernel)->taps, list.values, list.count * sizeof (float));

done:
  free (list.values);
  freelocale (c_locale);
  return status;
}

#undef NOT_TEXT
#undef FAIL
#undef LOCATION

/* Parse inline text (see kernel.h); errors name matrix rows. */
cf_status
cf_kernel_parse (const char *text, cf_kernel ** kernel, cf_error * err)
{
  if (kernel == NULL) {
    cf_error_set (err, "no output kernel given");
    return CF_ERROR_INVALID;
  }
  *kernel = NULL;
  if (text == NULL) {
    cf_error_set (err, "empty kernel");
    return CF_ERROR_INVALID;
  }
  return parse_text (text, strlen (text), 0, kernel, err);
}

/* Read a whole kernel file and parse it; errors name file lines, I/O
 * failures name the path and the system's reason. */
cf_status
cf_kernel_load (const char *path, cf_kernel ** kernel, cf_error * err)
{
  FILE *file;
  char *buf = NULL;
  size_t length = 0, capacity = 0;
  cf_status status;

  if (kernel == NULL || path == NULL) {
    cf_error_set (err, "no kernel file or output kernel given");
    return CF_ERROR_INVALID;
  }
  *kernel = NULL;
  file = fopen (path, "rb");
  if (file == NULL) {
    cf_error_set (err, "cannot open kernel file '%s': %s", path,
        strerror (errno));
    return CF_ERROR_IO;
  }
  for (;;) {
    size_t got;

    if (length == capacity) {
      char *grown;

      if (capacity >= CF_KERNEL_FILE_MAX) {
        cf_error_set (err, "kernel file '%s' is larger than %d MiB", path,
            CF_KERNEL_FILE_MAX / (1024 * 1024));
        free (buf);
        fclose (file);
        return CF_ERROR_FORMAT;
      }
      capacity = capacity ? 2 * capacity : 4096;
      grown = realloc (buf, capacity);
      if (grown == NULL) {
        cf_error_set (err, "out of memory reading kernel file '%s'", path);
        free (buf);
        fclose (file);
        return CF_ERROR_NO_MEMORY;
      }
      buf = grown;
    }
    got = fread (buf + length, 1, capacity - length, file);
    length += got;
    if (got == 0) {
      if (ferror (file)) {
        cf_error_set (err, "cannot read kernel file '%s': %s", path,
            strerror (errno));
        free (buf);
        fclose (file);
        return CF_ERROR_IO;
      }
      break;
    }
  }
  fclose (file);
  status = parse_text (buf, length, 1, kernel, err);
  free (buf);
  return status;
}

/* ---------------------------------------------------------------------- */
/* Presets                                                                */

/* Lower-case preset name for messages. */
static const char *
preset_name (cf_kernel_preset preset)
{
  switch (preset) {
    case CF_KERNEL_PRESET_GAUSSIAN:
      return "gaussian";
    case CF_KERNEL_PRESET_BOX:
      return "box";
    case CF_KERNEL_PRESET_DISK:
      return "disk";
    case CF_KERNEL_PRESET_LAPLACIAN:
      return "laplacian";
    case CF_KERNEL_PRESET_NONE:
      break;
  }
  return "none";
}

/* sigma must be positive and finite where a preset uses it. */
static cf_status
check_sigma (cf_kernel_preset preset, float sigma, cf_error * err)
{
  if (!(sigma > 0.0f) || !isfinite (sigma)) {
    cf_error_set (err, "sigma %g must be positive and finite for the %s "
        "kernel", (double) sigma, preset_name (preset));
    return CF_ERROR_INVALID;
  }
  return CF_OK;
}

/* Box: every tap 1 / size^2. */
static void
fill_box (cf_kernel * k)
{
  size_t i, n = (size_t) k->width * k->height;
  float v = (float) (1.0 / (double) n);

  for (i = 0; i < n; i++)
    k->taps[i] = v;
}

/* Disk: 1 where (i - c)^2 + (j - c)^2 <= r^2 with c = r = size / 2 (the
 * inscribed disc, centre on the anchor), then divided by the tap count. */
static void
fill_disk (cf_kernel * k)
{
  int size = k->width, c = size / 2, i, j, count = 0;
  float v;

  for (j = 0; j < size; j++)
    for (i = 0; i < size; i++)
      if ((i - c) * (i - c) + (j - c) * (j - c) <= c * c)
        count++;
  v = (float) (1.0 / (double) count);
  for (j = 0; j < size; j++)
    for (i = 0; i < size; i++)
      k->taps[i + j * size] =
          (i - c) * (i - c) + (j - c) * (j - c) <= c * c ? v : 0.0f;
}

/* Gaussian: outer product g[j] g[i] of the normalised 1-D taps
 * (cf_gaussian_taps), so the 2-D kernel is separable and sums to 1. */
static cf_status
fill_gaussian (cf_kernel * k, float sigma)
{
  int size = k->width, i, j;
  float *g = malloc ((size_t) size * sizeof (float));
  cf_status status;

  if (g == NULL)
    return CF_ERROR_NO_MEMORY;
  status = cf_gaussian_taps (sigma, size / 2, g);
  if (status == CF_OK)
    for (j = 0; j < size; j++)
      for (i = 0; i < size; i++)
        k->taps[i + j * size] = g[j] * g[i];
  free (g);
  return status;
}

/* Laplacian. Size 3: the 5-point stencil [0 1 0; 1 -4 1; 0 1 0]. Larger:
 * Laplacian of Gaussian sampled at integer offsets (Marr & Hildreth 1980;
 * Gonzalez & Woods, 3rd ed., eq. 10.2-21):
 *   LoG(x, y) = (x^2 + y^2 - 2 sigma^2) / sigma^4 * G(x, y),
 *   G(x, y) = exp (-(x^2 + y^2) / (2 sigma^2)) / (2 pi sigma^2),
 * negative at the centre like the stencil, then made zero-sum by
 * subtracting the mean (in double). After rounding to float, the residual
 * sum is moved into the centre tap so the float taps sum to 0 as exactly
 * as float allows. */
static cf_status
fill_laplacian (cf_kernel * k, float sigma)
{
  int size = k->width, c = size / 2, i, j;
  size_t n = (size_t) size * size, t;
  double *v, mean = 0.0, s2, residual = 0.0;

  if (size == 3) {
    static const float stencil[9] = { 0.0f, 1.0f, 0.0f, 1.0f, -4.0f, 1.0f,
      0.0f, 1.0f, 0.0f
    };
    memcpy (k->taps, stencil, sizeof (stencil));
    return CF_OK;
  }
  v = malloc (n * sizeof (double));
  if (v == NULL)
    return CF_ERROR_NO_MEMORY;
  s2 = (double) sigma;
  s2 *= s2;
  for (j = 0; j < size; j++) {
    for (i = 0; i < size; i++) {
      double r2 = (double) ((i - c) * (i - c) + (j - c) * (j - c));
      double g = exp (-r2 / (2.0 * s2)) / (2.0 * M_PI * s2);

      v[i + j * size] = (r2 - 2.0 * s2) / (s2 * s2) * g;
      mean += v[i + j * size];
    }
  }
  mean /= (double) n;
  for (t = 0; t < n; t++)
    k->taps[t] = (float) (v[t] - mean);
  for (t = 0; t < n; t++)
    residual += k->taps[t];
  k->taps[c + c * size] = (float) (k->taps[c + c * size] - residual);
  free (v);
  return CF_OK;
}

/* Build a preset kernel (see kernel.h). Errors name the offending
 * property value, e.g. "kernel-size 4 must be odd". */
cf_status
cf_kernel_preset_new (cf_kernel_preset preset, int size, float sigma,
    cf_kernel ** kernel, cf_error * err)
{
  cf_kernel *k;
  cf_status status = CF_OK;
  int uses_sigma;

  if (kernel == NULL) {
    cf_error_set (err, "no output kernel given");
    return CF_ERROR_INVALID;
  }
  *kernel = NULL;
  if (preset != CF_KERNEL_PRESET_GAUSSIAN && preset != CF_KERNEL_PRESET_BOX
      && preset != CF_KERNEL_PRESET_DISK
      && preset != CF_KERNEL_PRESET_LAPLACIAN) {
    cf_error_set (err, "no kernel preset selected");
    return CF_ERROR_INVALID;
  }
  if (size < 0 || size > CF_KERNEL_MAX_SIZE) {
    cf_error_set (err, "kernel-size %d is out of range: use 0 (automatic) "
        "or an odd size 1..%d", size, CF_KERNEL_MAX_SIZE);
    return CF_ERROR_INVALID;
  }
  if (size > 0 && size % 2 == 0) {
    cf_error_set (err, "kernel-size %d must be odd", size);
    return CF_ERROR_INVALID;
  }

  uses_sigma = preset == CF_KERNEL_PRESET_GAUSSIAN
      || (preset == CF_KERNEL_PRESET_LAPLACIAN && size != 3);
  if (uses_sigma) {
    status = check_sigma (preset, sigma, err);
    if (status != CF_OK)
      return status;
  }

  if (size == 0) {
    if (uses_sigma) {
      double auto_size = 2.0 * ceil (3.0 * (double) sigma) + 1.0;

      if (auto_size < 3.0)
        auto_size = 3.0;
      if (auto_size > CF_KERNEL_MAX_SIZE) {
        cf_error_set (err, "sigma %g needs kernel-size %.0f, above the "
            "largest allowed %d", (double) sigma, auto_size,
            CF_KERNEL_MAX_SIZE);
        return CF_ERROR_INVALID;
      }
      size = (int) auto_size;
    } else {
      size = 3;
    }
  }
  if (preset == CF_KERNEL_PRESET_LAPLACIAN && size < 3) {
    cf_error_set (err, "kernel-size %d is too small for the laplacian "
        "kernel; use 3 or more", size);
    return CF_ERROR_INVALID;
  }

  k = cf_kernel_new (size, size);
  if (k == NULL) {
    cf_error_set (err, "out of memory for a %dx%d kernel", size, size);
    return CF_ERROR_NO_MEMORY;
  }
  switch (preset) {
    case CF_KERNEL_PRESET_GAUSSIAN:
      status = fill_gaussian (k, sigma);
      break;
    case CF_KERNEL_PRESET_BOX:
      fill_box (k);
      break;
    case CF_KERNEL_PRESET_DISK:
      fill_disk (k);
      break;
    case CF_KERNEL_PRESET_LAPLACIAN:
      status = fill_laplacian (k, sigma);
      break;
    case CF_KERNEL_PRESET_NONE:
      status = CF_ERROR_INVALID;
      break;
  }
  if (status != CF_OK) {
    cf_error_set (err, "cannot build the %s kernel: %s",
        preset_name (preset), cf_status_name (status));
    cf_kernel_free (k);
    return status;
  }
  *kernel = k;
  return CF_OK;
}

/* ---------------------------------------------------------------------- */
/* Operations                                                             */

/* Divide every tap by the sum (accumulated in double). A sum that is not
 * finite, or zero up to float rounding (|sum| <= 1e-6 * sum |tap|, e.g. a
 * Laplacian), is rejected with the kernel unchanged. */
cf_status
cf_kernel_normalize (cf_kernel * kernel)
{
  size_t i, n;
  double sum = 0.0, abs_sum = 0.0;

  if (kernel == NULL || kernel->taps == NULL || kernel->width < 1
      || kernel->height < 1)
    return CF_ERROR_INVALID;
  n = (size_t) kernel->width * kernel->height;
  for (i = 0; i < n; i++) {
    sum += kernel->taps[i];
    abs_sum += fabs ((double) kernel->taps[i]);
  }
  if (!isfinite (sum) || !isfinite (abs_sum) || sum == 0.0
      || fabs (sum) <= 1e-6 * abs_sum)
    return CF_ERROR_INVALID;
  for (i = 0; i < n; i++)
    kernel->taps[i] = (float) (kernel->taps[i] / sum);
  return CF_OK;
}

/* 1 when the tap at the anchor (width/2, height/2) is exactly 1 and every
 * other tap is (plus or minus) zero; 0 otherwise and for NULL. */
int
cf_kernel_is_identity (const cf_kernel * kernel)
{
  size_t i, n, anchor;

  if (kernel == NULL || kernel->taps == NULL || kernel->width < 1
      || kernel->height < 1)
    return 0;
  n = (size_t) kernel->width * kernel->height;
  anchor = (size_t) (kernel->width / 2)
      + (size_t) (kernel->height / 2) * kernel->width;
  for (i = 0; i < n; i++) {
    if (kernel->taps[i] != (i == anchor ? 1.0f : 0.0f))
      return 0;
  }
  return 1;
}

/* New kernel F with F[j][i] = K[h-1-j][w-1-i]; NULL on bad input or no
 * memory. */
cf_kernel *
cf_kernel_flipped (const cf_kernel * kernel)
{
  cf_kernel *flipped;
  int i, j, w, h;

  if (kernel == NULL || kernel->taps == NULL)
    return NULL;
  w = kernel->width;
  h = kernel->height;
  flipped = cf_kernel_new (w, h);
  if (flipped == NULL)
    return NULL;
  for (j = 0; j < h; j++)
    for (i = 0; i < w; i++)
      flipped->taps[i + j * w] =
          kernel->taps[(w - 1 - i) + (size_t) (h - 1 - j) * w];
  return flipped;
}

/* Append s to out (capacity n) at *len; returns 0 once out is full. */
static int
append (char *out, size_t n, size_t *len, const char *s)
{
  size_t l = strlen (s);

  if (*len + l >= n) {
    size_t room = n - 1 - *len;

    memcpy (out + *len, s, room);
    *len += room;
    out[*len] = '\0';
    return 0;
  }
  memcpy (out + *len, s, l + 1);
  *len += l;
  return 1;
}

/* "WxH [a b c; d e f]" with taps printed as %.6g in the C locale. When the
 * text does not fit in n bytes, it is cut after the last whole value that
 * fits and ends in "…" (UTF-8, 3 bytes), still NUL-terminated in n. */
void
cf_kernel_describe (const cf_kernel * kernel, char *out, int n)
{
  static const char ellipsis[] = "\xe2\x80\xa6";        /* U+2026 */
  char *buf;
  size_t cap, len = 0, cut;
  char piece[48];
  int i, j, full = 1;
  locale_t c_locale, old_locale = (locale_t) 0;

  if (out == NULL || n <= 0)
    return;
  out[0] = '\0';
  if (kernel == NULL || kernel->taps == NULL) {
    snprintf (out, (size_t) n, "(no kernel)");
    return;
  }
  /* Build into a scratch buffer a little longer than out, so that we know
   * whether the text was cut. */
  cap = (size_t) n + 64;
  buf = malloc (cap);
  if (buf == NULL) {
    snprintf (out, (size_t) n, "%dx%d", kernel->width, kernel->height);
    return;
  }
  buf[0] = '\0';
  c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  if (c_locale != (locale_t) 0)
    old_locale = uselocale (c_locale);

  snprintf (piece, sizeof (piece), "%dx%d [", kernel->width, kernel->height);
  full = append (buf, cap, &len, piece);
  for (j = 0; full && j < kernel->height; j++) {
    for (i = 0; full && i < kernel->width; i++) {
      snprintf (piece, sizeof (piece), "%s%.6g",
          i > 0 ? " " : (j > 0 ? "; " : ""),
          (double) kernel->taps[i + (size_t) j * kernel->width]);
      full = append (buf, cap, &len, piece);
    }
  }
  if (full)
    full = append (buf, cap, &len, "]");

  if (c_locale != (locale_t) 0) {
    uselocale (old_locale);
    freelocale (c_locale);
  }

  if (full && len < (size_t) n) {
    memcpy (out, buf, len + 1);
    free (buf);
    return;
  }
  /* Does not fit: keep at most n - 1 - 3 bytes, cut back to the end of the
   * last whole value, then add the ellipsis. */
  if ((size_t) n < sizeof (ellipsis)) {
    /* no room for the ellipsis: plain truncation */
    memcpy (out, buf, (size_t) n - 1);
    out[n - 1] = '\0';
    free (buf);
    return;
  }
  cut = (size_t) n - sizeof (ellipsis);
  if (cut > len)
    cut = len;
  if (cut < len && buf[cut] != ' ' && buf[cut] != ';' && buf[cut] != ']') {
    size_t back = cut;

    while (back > 0 && buf[back - 1] != ' ' && buf[back - 1] != '[')
      back--;
    if (back > 0)
      cut = back;
  }
  while (cut > 0 && (buf[cut - 1] == ' ' || buf[cut - 1] == ';'))
    cut--;
  memcpy (out, buf, cut);
  memcpy (out + cut, ellipsis, sizeof (ellipsis));
  free (buf);
}
