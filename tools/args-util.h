/* gst-cudaflow — command-line conventions of the installed tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * -h/--help prints the help text on stdout and exits 0; a usage error
 * prints one line and a hint to run --help on stderr and exits 2. The
 * tools that do not link GLib parse with cf_args_value; the GStreamer one
 * parses with GOption and reports through cf_args_usage_error.
 */
#ifndef CF_ARGS_UTIL_H
#define CF_ARGS_UTIL_H

#if defined(__GNUC__)
#define CF_ARGS_USAGE_ERROR_ATTRS \
  __attribute__ ((format (printf, 2, 3), noreturn))
#else
#define CF_ARGS_USAGE_ERROR_ATTRS
#endif

/* 1 if @arg asks for the help text (-h or --help). */
int cf_args_is_help (const char *arg);

/* If argv[*i] is the option @name ("--name VALUE" or "--name=VALUE"),
 * returns VALUE and leaves *i on the last word it used; NULL when argv[*i]
 * is something else. A missing VALUE is a usage error. */
const char *cf_args_value (const char *prog, int argc, char **argv, int *i,
    const char *name);

/* "PROG: MESSAGE" and "Try 'PROG --help' ..." on stderr, then exit (2). */
void cf_args_usage_error (const char *prog, const char *format, ...)
    CF_ARGS_USAGE_ERROR_ATTRS;

#endif /* CF_ARGS_UTIL_H */
