/* gst-cudaflow — parameter tables: one description per method parameter
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each flow method describes its parameters once, in a table next to its
 * CPU reference (cf_hs_param_table in common/hs.c, cf_clg_param_table,
 * cf_tvl1_param_table; the pyramid's in common/pyramid.c): the name users
 * see (the element property, e.g. "lambda"), nick, blurb, type, closed
 * range, default, and where the value lives in the method's params struct.
 * The same row serves the element property (gst/ turns it into a
 * GParamSpec), the solvers' range check (cf_*_params_valid, CPU and GPU)
 * and setting by name (cf_*_params_set, tools), so a value one of them
 * accepts the others accept too. A table also lists the method's presets.
 *
 * Adding a parameter is one row (and its field in the params struct);
 * adding a preset is one entry of the presets list.
 */
#ifndef CF_PARAMS_H
#define CF_PARAMS_H

#include <stddef.h>

#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_PARAM_INT,                 /* int field, whole numbers in [min, max]
                                 * (only the `choices`, when listed) */
  CF_PARAM_FLOAT,               /* float field, [min, max] compared in float;
                                 * a double property */
  CF_PARAM_BOOL,                /* int field, 0 or 1 */
  CF_PARAM_CHOICE,              /* int-sized enum field, one of `choices` */
  CF_PARAM_TEXT                 /* text that `parse` turns into fields, e.g.
                                 * a per-level list "60,120,180,240" */
} cf_param_type;

typedef enum
{
  CF_PARAM_LIVE = 1 << 0,       /* may change between two frames of a stream
                                 * (else only while stopped) */
  CF_PARAM_SMOOTH = 1 << 1,     /* values between two settings make sense,
                                 * so it may be interpolated over time */
  CF_PARAM_NO_PROPERTY = 1 << 2,        /* library only: no element property */
  CF_PARAM_TUNABLE = CF_PARAM_LIVE | CF_PARAM_SMOOTH    /* weights, counts */
} cf_param_flags;

/* One value of a CF_PARAM_CHOICE row; a list ends with nick NULL. */
typedef struct
{
  int value;
  const char *nick;             /* lowercase-hyphenated name */
  const char *description;      /* one line */
} cf_param_choice;

typedef struct
{
  const char *name;             /* lowercase-hyphenated: the property name */
  const char *nick;             /* Title Case */
  const char *blurb;            /* a sentence: meaning, unit, special values */
  const char *unit;             /* of the value ("pixels"), NULL: none */
  cf_param_type type;
  double min, max;              /* closed range (INT, FLOAT) */
  double def;                   /* default (all but TEXT: def_text) */
  const char *def_text;         /* TEXT: the default text, NULL: none */
  const char *replaces;         /* INT, FLOAT: the TEXT row (a per-level
                                 * list) that overrides this value where it
                                 * has entries; setting this row by name
                                 * clears that list, so the value set is
                                 * the one used */
  size_t offset;                /* offsetof the field in the params struct */
  unsigned flags;               /* cf_param_flags */
  const cf_param_choice *choices;       /* CHOICE: the values; INT: NULL,
                                         * or the only values allowed in
                                         * [min, max] (say window sizes 0,
                                         * 3, 5), by number or nick */
  const char *choice_type;      /* CHOICE: name of the enumeration, appended
                                 * to the element's type name ("Kernel") */
  /* TEXT: set the fields @text stands for (NULL or blank: no list, the
   * scalar row on every level, whatever def_text is);
   * CF_ERROR_FORMAT with a message in @err (nullable), @params unchanged,
   * when it does not parse */
  cf_status (*parse) (void *params, const char *text, cf_error * err);
} cf_param;

/* One assignment of a preset: @value for numeric, boolean and choice
 * parameters, @text for TEXT ones (NULL: no text). */
typedef struct
{
  const char *name;
  double value;
  const char *text;
} cf_param_setting;

/* Assignments in a preset: a number (numeric, boolean or choice value), or
 * a text (NULL: none). */
#define CF_SET(name, value) { (name), (value), NULL }
#define CF_SET_TEXT(name, text) { (name), 0.0, (text) }

#define CF_PRESET_MAX_SETTINGS 24

/* A named set of assignments. Names are those of the method's table or of
 * cf_pyramid_param_table ("levels", "scale-factor"). A list of presets ends
 * with name NULL, the settings with name NULL. */
typedef struct
{
  const char *name;             /* lowercase-hyphenated, e.g. "ipol" */
  const char *description;      /* what it reproduces, with its numbers */
  cf_param_setting settings[CF_PRESET_MAX_SETTINGS];
} cf_preset;

typedef struct
{
  const char *method;           /* "hs", "clg", "tvl1", "pyramid" */
  size_t params_size;           /* sizeof the params struct */
  const cf_param *params;       /* ends with name NULL */
  const cf_preset *presets;     /* ends with name NULL; may be NULL */
  const char *presets_blurb;    /* what the presets set, e.g. "Set levels
                                 * and sweeps at once" */
  int default_levels;           /* pyramid levels the defaults assume */
} cf_param_table;

/* The row of @table named @name, or NULL. */
const cf_param *cf_params_find (const cf_param_table * table,
    const char *name);

/* The preset of @table named @name, or NULL. */
const cf_preset *cf_params_find_preset (const cf_param_table * table,
    const char *name);

/* Apply @table's preset @name to @params as an element does, setting by
 * setting in the preset's order; the settings that are rows of
 * @pyramid_table ("levels", "scale-factor") go to @pyramid_params. A
 * list's text NULL clears it. CF_ERROR_INVALID, the reason in @err, when
 * there is no such preset or a setting is refused (the settings before
 * it are applied). */
cf_status cf_params_apply_preset (const cf_param_table * table,
    void *params, const cf_param_table * pyramid_table,
    void *pyramid_params, const char *name, cf_error * err);

/* Zero @params (table->params_size bytes), then every row's default (a
 * TEXT row's def_text parsed). */
void cf_params_init (const cf_param_table * table, void *params);

/* CF_OK when @value suits @param: INT a whole number in [min, max]; FLOAT
 * in [min, max] once stored as a float (so a property value at a bound
 * passes); BOOL 0 or 1; CHOICE, and INT with choices, one of the
 * choices. CF_ERROR_INVALID otherwise (NaN, TEXT rows), with a message in
 * @err (nullable). */
cf_status cf_param_check (const cf_param * param, double value,
    cf_error * err);

/* The field of a non-TEXT row in @params, as a double. */
double cf_param_get (const cf_param * param, const void *params);

/* Check @value (cf_param_check), then store it in @params' field of
 * @param; CF_ERROR_INVALID (@params unchanged) when the check refuses it. */
cf_status cf_param_set (const cf_param * param, void *params, double value,
    cf_error * err);

/* cf_param_set for the row named @name; once set, the list the row
 * `replaces` is cleared. CF_ERROR_INVALID for an unknown name, a TEXT row
 * or a value out of range, @params unchanged. */
cf_status cf_params_set (const cf_param_table * table, void *params,
    const char *name, double value, cf_error * err);

/* The TEXT row (a per-level list) that @param `replaces` in @table, or
 * NULL. */
const cf_param *cf_params_replaced_list (const cf_param_table * table,
    const cf_param * param);

/* The row whose `replaces` names @name (a per-level list), or NULL. */
const cf_param *cf_params_find_replaced_by (const cf_param_table * table,
    const char *name);

/* Set from text, as a command line gives it: TEXT rows parse it; numbers
 * for INT and FLOAT; "true", "false", 1 or 0 for BOOL; a nick or its value
 * for CHOICE and for INT with choices. CF_ERROR_INVALID (unknown name, out
 * of range) or CF_ERROR_FORMAT (does not parse), @params unchanged. */
cf_status cf_params_set_text (const cf_param_table * table, void *params,
    const char *name, const char *text, cf_error * err);

/* 1 when every non-TEXT field of @params passes cf_param_check. */
int cf_params_valid (const cf_param_table * table, const void *params);

/* Parse a per-level list, finest level first, e.g. "60,120,180,240": 1 to
 * @max_entries whole numbers in [@min, @max] separated by commas, blanks
 * allowed around each, into @values (room for @max_entries) and @n. On
 * anything else CF_ERROR_FORMAT with a message in @err (nullable) that
 * starts with @what ("iterations per level"), names the entry and, for an
 * empty list, gives @example; @values is then scratch and @n unchanged.
 * CF_ERROR_INVALID for a NULL @text. The parse of the TEXT rows that hold
 * one count per pyramid level (CLG's and TV-L1's). */
cf_status cf_params_parse_level_list (const char *text, const char *what,
    const char *example, int min, int max, int max_entries, int *values,
    int *n, cf_error * err);

/* The same for a list of numbers, e.g. TV-L1's "0.4,0.4,0.15": each entry
 * one finite number (decimal or exponent notation) in [@min, @max],
 * compared in float as the FLOAT rows are, into float @values. */
cf_status cf_params_parse_float_level_list (const char *text,
    const char *what, const char *example, double min, double max,
    int max_entries, float *values, int *n, cf_error * err);

#ifdef __cplusplus
}
#endif
#endif /* CF_PARAMS_H */
