/* gst-cudaflow — command-line conventions of the installed tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "args-util.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GOptionContext *
cf_args_context_new (const char *prog, const char *parameter_string,
    const GOptionEntry * entries, const char *summary,
    const char *description)
{
  GOptionContext *ctx;

  setlocale (LC_CTYPE, "");
  g_set_prgname (prog);
  ctx = g_option_context_new (parameter_string);
  if (summary != NULL)
    g_option_context_set_summary (ctx, summary);
  if (description != NULL)
    g_option_context_set_description (ctx, description);
  if (entries != NULL)
    g_option_context_add_main_entries (ctx, entries, NULL);
  return ctx;
}

void
cf_args_parse (GOptionContext * ctx, const char *prog, int *argc,
    char ***argv)
{
  GError *error = NULL;

  if (!g_option_context_parse (ctx, argc, argv, &error))
    cf_args_usage_error (prog, "%s", error->message);
  g_option_context_free (ctx);
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

int
cf_args_parse_sizes (const char *prog, const char *option, const char *list,
    int *width, int *height, int max)
{
  gchar **items = g_strsplit (list, ",", -1);
  int i, n = 0;

  for (i = 0; items[i] != NULL; i++) {
    char tail;
    int w, h;
    if (n == max || sscanf (items[i], "%dx%d%c", &w, &h, &tail) != 2 ||
        w < 1 || h < 1 || w > CF_ARGS_MAX_SIDE || h > CF_ARGS_MAX_SIDE)
      cf_args_usage_error (prog, "bad size '%s' in %s (WxH, 1..%d, at most "
          "%d sizes)", items[i], option, CF_ARGS_MAX_SIDE, max);
    width[n] = w;
    height[n] = h;
    n++;
  }
  g_strfreev (items);
  if (n == 0)
    cf_args_usage_error (prog, "no size in %s '%s'", option, list);
  return n;
}
