/* gst-cudaflow — flodec
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_FLO_DEC_H__
#define __GST_FLO_DEC_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GstFloDecFraming:
 * @GST_FLO_DEC_FRAMING_AUTO: one file per buffer when the first buffer of
 *   the stream holds exactly one .flo, else a byte stream
 * @GST_FLO_DEC_FRAMING_STREAM: a byte stream of concatenated .flo files in
 *   any chunking (filesrc); a buffer that starts with a .flo header starts a
 *   new file
 * @GST_FLO_DEC_FRAMING_BUFFER: every buffer is one whole .flo file
 *   (multifilesrc, appsrc)
 *
 * Where flodec's .flo files begin and end.
 */
typedef enum
{
  GST_FLO_DEC_FRAMING_AUTO,
  GST_FLO_DEC_FRAMING_STREAM,
  GST_FLO_DEC_FRAMING_BUFFER
} GstFloDecFraming;

#define GST_TYPE_FLO_DEC_FRAMING (gst_flo_dec_framing_get_type ())
GType gst_flo_dec_framing_get_type (void);

#define GST_TYPE_FLO_DEC (gst_flo_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstFloDec, gst_flo_dec, GST, FLO_DEC, GstElement);

G_END_DECLS
#endif /* __GST_FLO_DEC_H__ */
