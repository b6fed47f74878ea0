/* gst-cudaflow — parameter tables
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/params.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cf_param *
cf_params_find (const cf_param_table * table, const char *name)
{
  const cf_param *p;

  if (table == NULL || name == NULL)
    return NULL;
  for (p = table->params; p->name != NULL; p++)
    if (!strcmp (p->name, name))
      return p;
  return NULL;
}

const cf_preset *
cf_params_find_preset (const cf_param_table * table, const char *name)
{
  const cf_preset *p;

  if (table == NULL || table->presets == NULL || name == NULL)
    return NULL;
  for (p = table->presets; p->name != NULL; p++)
    if (!strcmp (p->name, name))
      return p;
  return NULL;
}

cf_status
cf_params_apply_preset (const cf_param_table * table, void *params,
    const cf_param_table * pyramid_table, void *pyramid_params,
    const char *name, cf_error * err)
{
  const cf_preset *preset = cf_params_find_preset (table, name);
  int i;

  if (preset == NULL) {
    cf_error_set (err, "no preset \"%s\"", name ? name : "(null)");
    return CF_ERROR_INVALID;
  }
  for (i = 0; i < CF_PRESET_MAX_SETTINGS && preset->settings[i].name; i++) {
    const cf_param_setting *s = &preset->settings[i];
    const cf_param *param = cf_params_find (table, s->name);
    cf_status status;

    if (param == NULL && cf_params_find (pyramid_table, s->name) != NULL)
      status = cf_params_set (pyramid_table, pyramid_params, s->name,
          s->value, err);
    else if (param != NULL && param->type == CF_PARAM_TEXT)
      status = cf_params_set_text (table, params, s->name, s->text, err);
    else
      status = cf_params_set (table, params, s->name, s->value, err);
    if (status != CF_OK)
      return CF_ERROR_INVALID;
  }
  return CF_OK;
}

static void *
field (const cf_param * param, void *params)
{
  return (char *) params + param->offset;
}

/* Store a value cf_param_check accepted. */
static void
store (const cf_param * param, void *params, double value)
{
  if (param->type == CF_PARAM_FLOAT)
    *(float *) field (param, params) = (float) value;
  else
    *(int *) field (param, params) = (int) value;
}

void
cf_params_init (const cf_param_table * table, void *params)
{
  const cf_param *p;

  memset (params, 0, table->params_size);
  for (p = table->params; p->name != NULL; p++) {
    if (p->type == CF_PARAM_TEXT)       /* def_text parses: tested */
      p->parse (params, p->def_text, NULL);
    else
      store (p, params, p->def);
  }
}

static int
is_choice (const cf_param * param, double value)
{
  const cf_param_choice *c;

  for (c = param->choices; c->nick != NULL; c++)
    if (value == (double) c->value)
      return 1;
  return 0;
}

/* "name: VALUE is not one of A, B, C" for an INT row with choices */
static void
set_not_a_choice (const cf_param * param, double value, cf_error * err)
{
  char list[CF_ERROR_MESSAGE_MAX] = "";
  const cf_param_choice *c;
  size_t n = 0;

  for (c = param->choices; c->nick != NULL && n < sizeof (list); c++)
    n += snprintf (list + n, sizeof (list) - n, "%s%d",
        c == param->choices ? "" : ", ", c->value);
  cf_error_set (err, "%s: %g is not one of %s", param->name, value, list);
}

cf_status
cf_param_check (const cf_param * param, double value, cf_error * err)
{
  int ok = 0;

  if (param == NULL)
    return CF_ERROR_INVALID;
  if (!isnan (value)) {
    switch (param->type) {
      case CF_PARAM_INT:
        ok = value >= param->min && value <= param->max &&
            value == floor (value) &&
            (param->choices == NULL || is_choice (param, value));
        break;
      case CF_PARAM_FLOAT:
        /* the float the field will hold against the float bounds (the
         * rounding is monotonic, so [min, max] in double stays inside) */
        ok = fabs (value) <= FLT_MAX &&
            (double) (float) value >= (double) (float) param->min &&
            (double) (float) value <= (double) (float) param->max;
        break;
      case CF_PARAM_BOOL:
        ok = value == 0.0 || value == 1.0;
        break;
      case CF_PARAM_CHOICE:
        ok = is_choice (param, value);
        break;
      case CF_PARAM_TEXT:
        break;
    }
  }
  if (ok)
    return CF_OK;
  if (param->type == CF_PARAM_INT && param->choices != NULL)
    set_not_a_choice (param, value, err);
  else if (param->type == CF_PARAM_INT || param->type == CF_PARAM_FLOAT)
    cf_error_set (err, "%s: %g is outside %g ... %g%s%s", param->name, value,
        param->min, param->max, param->unit ? " " : "",
        param->unit ? param->unit : "");
  else if (param->type == CF_PARAM_TEXT)
    cf_error_set (err, "%s takes text, not a number", param->name);
  else
    cf_error_set (err, "%s: %g is not one of its values", param->name, value);
  return CF_ERROR_INVALID;
}

double
cf_param_get (const cf_param * param, const void *params)
{
  const void *f = (const char *) params + param->offset;

  if (param->type == CF_PARAM_FLOAT)
    return *(const float *) f;
  return *(const int *) f;
}

cf_status
cf_param_set (const cf_param * param, void *params, double value,
    cf_error * err)
{
  cf_status status = cf_param_check (param, value, err);

  if (status == CF_OK && params != NULL)
    store (param, params, value);
  return params != NULL ? status : CF_ERROR_INVALID;
}

cf_status
cf_params_set (const cf_param_table * table, void *params, const char *name,
    double value, cf_error * err)
{
  const cf_param *param = cf_params_find (table, name);
  const cf_param *list;
  cf_status status;

  if (param == NULL) {
    cf_error_set (err, "no parameter \"%s\"", name ? name : "(null)");
    return CF_ERROR_INVALID;
  }
  status = cf_param_set (param, params, value, err);
  if (status == CF_OK && (list = cf_params_replaced_list (table, param)))
    list->parse (params, NULL, NULL);
  return status;
}

const cf_param *
cf_params_replaced_list (const cf_param_table * table, const cf_param * param)
{
  const cf_param *list;

  if (param == NULL || param->replaces == NULL)
    return NULL;
  list = cf_params_find (table, param->replaces);
  return list != NULL && list->type == CF_PARAM_TEXT ? list : NULL;
}

const cf_param *
cf_params_find_replaced_by (const cf_param_table * table, const char *name)
{
  const cf_param *p;

  if (table == NULL || name == NULL)
    return NULL;
  for (p = table->params; p->name != NULL; p++)
    if (p->replaces != NULL && !strcmp (p->replaces, name))
      return p;
  return NULL;
}

/* A number that is the whole of @text (blanks around it allowed). */
static int
parse_number (const char *text, double *value)
{
  char *end;

  *value = strtod (text, &end);
  if (end == text)
    return 0;
  while (isspace ((unsigned char) *end))
    end++;
  return *end == '\0';
}

/* The value @text stands for in a BOOL or CHOICE row. */
static int
parse_word (const cf_param * param, const char *text, double *value)
{
  const cf_param_choice *c;

  if (param->type == CF_PARAM_BOOL) {
    if (!strcmp (text, "true") || !strcmp (text, "false")) {
      *value = !strcmp (text, "true");
      return 1;
    }
  } else if (param->type == CF_PARAM_CHOICE || param->choices != NULL) {
    for (c = param->choices; c->nick != NULL; c++) {
      if (!strcmp (text, c->nick)) {
        *value = c->value;
        return 1;
      }
    }
  }
  return parse_number (text, value);
}

cf_status
cf_params_set_text (const cf_param_table * table, void *params,
    const char *name, const char *text, cf_error * err)
{
  const cf_param *param = cf_params_find (table, name);
  double value;

  if (param == NULL || params == NULL) {
    cf_error_set (err, "no parameter \"%s\"", name ? name : "(null)");
    return CF_ERROR_INVALID;
  }
  if (param->type == CF_PARAM_TEXT)
    return param->parse (params, text, err);
  if (text == NULL || !parse_word (param, text, &value)) {
    cf_error_set (err, "%s: \"%s\" is not a value of it", name,
        text ? text : "(null)");
    return CF_ERROR_FORMAT;
  }
  return cf_params_set (table, params, name, value, err);
}

int
cf_params_valid (const cf_param_table * table, const void *params)
{
  const cf_param *p;

  if (table == NULL || params == NULL)
    return 0;
  for (p = table->params; p->name != NULL; p++)
    if (p->type != CF_PARAM_TEXT &&
        cf_param_check (p, cf_param_get (p, params), NULL) != CF_OK)
      return 0;
  return 1;
}

/* The entry of a per-level list that starts at *@p: [*@start, *@end),
 * blanks around it trimmed, *@p left on the comma or the end of the text.
 * CF_ERROR_FORMAT with a message when it is empty or would be entry
 * @max_entries + 1 (@count entries read before it). */
static cf_status
next_list_entry (const char **p, const char *what, const char *example,
    int count, int max_entries, const char **start, const char **end,
    cf_error * err)
{
  const char *q = *p;

  while (isspace ((unsigned char) *q))
    q++;
  *start = q;
  while (*q != '\0' && *q != ',')
    q++;
  *p = q;
  while (q > *start && isspace ((unsigned char) q[-1]))
    q--;
  *end = q;
  if (*end == *start) {
    if (count == 0 && **p == '\0')
      cf_error_set (err, "%s: empty list, expected e.g. \"%s\" (finest "
          "level first)", what, example);
    else
      cf_error_set (err, "%s: entry %d is empty", what, count + 1);
    return CF_ERROR_FORMAT;
  }
  if (count == max_entries) {
    cf_error_set (err, "%s: more than %d entries (one per pyramid level "
        "at most)", what, max_entries);
    return CF_ERROR_FORMAT;
  }
  return CF_OK;
}

cf_status
cf_params_parse_level_list (const char *text, const char *what,
    const char *example, int min, int max, int max_entries, int *values,
    int *n, cf_error * err)
{
  const char *p = text;
  int count = 0, i;

  if (text == NULL) {
    cf_error_set (err, "%s: no text", what);
    return CF_ERROR_INVALID;
  }
  for (;;) {
    const char *start, *end;
    cf_status status;
    long value;

    status = next_list_entry (&p, what, example, count, max_entries, &start,
        &end, err);
    if (status != CF_OK)
      return status;
    /* digits only: no sign, no fraction, no blank inside */
    for (i = 0; start + i < end && isdigit ((unsigned char) start[i]); i++);
    errno = 0;
    value = start + i == end ? strtol (start, NULL, 10) : (long) min - 1;
    if (value < min) {
      cf_error_set (err, "%s: entry %d \"%.*s\" is not a whole number >= %d",
          what, count + 1, (int) (end - start), start, min);
      return CF_ERROR_FORMAT;
    }
    if (errno != 0 || value > max) {
      cf_error_set (err, "%s: entry %d \"%.*s\" is above the limit %d",
          what, count + 1, (int) (end - start), start, max);
      return CF_ERROR_FORMAT;
    }
    values[count++] = (int) value;
    if (*p == '\0')
      break;
    p++;                        /* the comma */
  }
  *n = count;
  return CF_OK;
}

cf_status
cf_params_parse_float_level_list (const char *text, const char *what,
    const char *example, double min, double max, int max_entries,
    float *values, int *n, cf_error * err)
{
  const char *p = text;
  int count = 0;

  if (text == NULL) {
    cf_error_set (err, "%s: no text", what);
    return CF_ERROR_INVALID;
  }
  for (;;) {
    const char *start, *end;
    char number[64], *stop;
    cf_status status;
    double value = NAN;
    float f;

    status = next_list_entry (&p, what, example, count, max_entries, &start,
        &end, err);
    if (status != CF_OK)
      return status;
    /* the whole entry is one finite number ("0.4", "4e-1"), nothing else */
    if ((size_t) (end - start) < sizeof (number)) {
      memcpy (number, start, (size_t) (end - start));
      number[end - start] = '\0';
      value = strtod (number, &stop);
      if (*stop != '\0' || stop == number)
        value = NAN;
    }
    /* in float, as the FLOAT rows compare (cf_param_check) */
    f = (float) value;
    if (!isfinite (value) || !isfinite (f) || f < (float) min ||
        f > (float) max) {
      cf_error_set (err, "%s: entry %d \"%.*s\" is not a number in "
          "[%g, %g]", what, count + 1, (int) (end - start), start, min, max);
      return CF_ERROR_FORMAT;
    }
    values[count++] = f;
    if (*p == '\0')
      break;
    p++;                        /* the comma */
  }
  *n = count;
  return CF_OK;
}
