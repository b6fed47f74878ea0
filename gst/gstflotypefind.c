/* gst-cudaflow — typefinder for Middlebury .flo files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A .flo starts with the tag "PIEH" (the float 202021.25, little-endian),
 * then int32 width and height; the file is exactly 12 + 8 × width × height
 * bytes. The typefinder checks the tag and that both sizes are 1..32768,
 * then grades what it can see of the length:
 *
 * - the length is known and is exactly 12 + 8wh: maximum;
 * - another valid .flo header follows right after the first file
 *   (concatenated fields, one stream): nearly certain;
 * - the length is unknown and nothing after the first file can be seen
 *   yet: likely;
 * - the length disagrees with the header (a truncated or padded file):
 *   possible, so that flodec gets the file and says what is wrong with it.
 *
 * The caps are those flodec takes; the extension is "flo".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaflowelements.h"

#include "common/flo.h"

#define FLO_CAPS "application/x-middlebury-flo"

static GstStaticCaps flo_caps = GST_STATIC_CAPS (FLO_CAPS);

/* TRUE when data[0..12) is a .flo header with a plausible size. */
static gboolean
is_flo_header (const guint8 * data, gint * width, gint * height)
{
  return data != NULL && cf_flo_parse_header (data, CF_FLO_HEADER_SIZE,
      width, height, NULL) == CF_OK;
}

static void
flo_type_find (GstTypeFind * tf, gpointer user_data)
{
  const guint8 *header = gst_type_find_peek (tf, 0, CF_FLO_HEADER_SIZE);
  const guint8 *next;
  guint64 length, expected;
  GstTypeFindProbability probability;
  gint width, height;

  if (!is_flo_header (header, &width, &height))
    return;
  expected = cf_flo_size (width, height);
  length = gst_type_find_get_length (tf);       /* 0: unknown */
  next = gst_type_find_peek (tf, expected, CF_FLO_HEADER_SIZE);

  if (length == expected)
    probability = GST_TYPE_FIND_MAXIMUM;
  else if (is_flo_header (next, NULL, NULL))
    probability = GST_TYPE_FIND_NEARLY_CERTAIN;
  else if (length == 0 && next == NULL)
    probability = GST_TYPE_FIND_LIKELY;
  else
    probability = GST_TYPE_FIND_POSSIBLE;
  gst_type_find_suggest_empty_simple (tf, probability, FLO_CAPS);
}

static gboolean
register_flo_type_find (GstPlugin * plugin)
{
  GstCaps *caps = gst_static_caps_get (&flo_caps);
  gboolean ret;

  ret = gst_type_find_register (plugin, FLO_CAPS, GST_RANK_PRIMARY,
      flo_type_find, "flo", caps, NULL, NULL);
  gst_caps_unref (caps);
  return ret;
}

GST_TYPE_FIND_REGISTER_DEFINE_CUSTOM (middlebury_flo, register_flo_type_find);
