/* gst-cudaflow — border rules for out-of-image samples
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cf_border_fold () itself is header-only (common/border.h) so that CUDA
 * device code can inline it; only the names live here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "common/border.h"

/* Lower-case name of a border rule, as used in logs and property nicks;
 * "unknown" for values outside the enum. */
const char *
cf_border_name (cf_border border)
{
  switch (border) {
    case CF_BORDER_ZERO:
      return "zero";
    case CF_BORDER_CLAMP:
      return "clamp";
    case CF_BORDER_REFLECT:
      return "reflect";
    case CF_BORDER_WRAP:
      return "wrap";
  }
  return "unknown";
}
