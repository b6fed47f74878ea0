/* gst-cudaflow — status codes
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/status.h"

#include <stdarg.h>
#include <stdio.h>

const char *
cf_status_name (cf_status status)
{
  switch (status) {
    case CF_OK:
      return "ok";
    case CF_ERROR_INVALID:
      return "invalid argument";
    case CF_ERROR_NO_MEMORY:
      return "out of memory";
    case CF_ERROR_IO:
      return "I/O error";
    case CF_ERROR_FORMAT:
      return "malformed input";
    case CF_ERROR_UNSUPPORTED:
      return "unsupported";
    case CF_ERROR_NO_DEVICE:
      return "no CUDA device";
    case CF_ERROR_CUDA:
      return "CUDA error";
  }
  return "unknown status";
}

void
cf_error_set (cf_error * err, const char *format, ...)
{
  va_list args;

  if (err == NULL)
    return;
  va_start (args, format);
  vsnprintf (err->message, sizeof (err->message), format, args);
  va_end (args);
}
