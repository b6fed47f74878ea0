/* gst-cudaflow — command-line conventions of the installed tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every tool parses its command line with GOption: long options
 * (--name VALUE or --name=VALUE), -h/--help prints the help text on stdout
 * and exits 0; a usage error prints one line and a hint to run --help on
 * stderr and exits 2.
 */
#ifndef CF_ARGS_UTIL_H
#define CF_ARGS_UTIL_H

#include <glib.h>

#if defined(__GNUC__)
#define CF_ARGS_USAGE_ERROR_ATTRS \
  __attribute__ ((format (printf, 2, 3), noreturn))
#else
#define CF_ARGS_USAGE_ERROR_ATTRS
#endif

/* A context for the tool @prog with @entries: the help and error texts
 * name @prog however the program was started, and the help is written in
 * the locale's charset (LC_CTYPE only, so that numbers keep their '.').
 * @parameter_string follows "[OPTION…]" in the usage line; @summary goes
 * before the options, @description (exit status, an example) after. */
GOptionContext *cf_args_context_new (const char *prog,
    const char *parameter_string, const GOptionEntry * entries,
    const char *summary, const char *description);

/* Parses and frees @ctx; a usage error does not return (exit 2). */
void cf_args_parse (GOptionContext * ctx, const char *prog, int *argc,
    char ***argv);

/* "PROG: MESSAGE" and "Try 'PROG --help' ..." on stderr, then exit (2). */
void cf_args_usage_error (const char *prog, const char *format, ...)
    CF_ARGS_USAGE_ERROR_ATTRS;

/* Frame sizes "WxH,WxH,..." from option @option of @prog into @width and
 * @height (room for @max): each side 1..CF_ARGS_MAX_SIDE. Returns their
 * number (>= 1); a bad entry, more than @max or none is a usage error. */
#define CF_ARGS_MAX_SIDE 16384
int cf_args_parse_sizes (const char *prog, const char *option,
    const char *list, int *width, int *height, int max);

#endif /* CF_ARGS_UTIL_H */
