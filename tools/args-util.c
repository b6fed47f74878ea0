/* gst-cudaflow — command-line conventions of the installed tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "args-util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cf_args_is_help (const char *arg)
{
  return !strcmp (arg, "-h") || !strcmp (arg, "--help");
}

const char *
cf_args_value (const char *prog, int argc, char **argv, int *i,
    const char *name)
{
  const char *arg = argv[*i];
  size_t len = strlen (name);

  if (strncmp (arg, name, len) != 0)
    return NULL;
  if (arg[len] == '=')
    return arg + len + 1;
  if (arg[len] != '\0')
    return NULL;                /* a longer option that starts like @name */
  if (*i + 1 >= argc)
    cf_args_usage_error (prog, "option '%s' needs a value", name);
  return argv[++*i];
}

void
cf_args_usage_error (const char *prog, const char *format, ...)
{
  va_list ap;

  fprintf (stderr, "%s: ", prog);
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fprintf (stderr, "\nTry '%s --help' for more information.\n", prog);
  exit (2);
}
