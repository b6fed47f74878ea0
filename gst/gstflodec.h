/* gst-cudaflow — flodec
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_FLO_DEC_H__
#define __GST_FLO_DEC_H__

#include <gst/gst.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_FLO_DEC (gst_flo_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstFloDec, gst_flo_dec, GST, FLO_DEC, GstElement);

G_END_DECLS
#endif /* __GST_FLO_DEC_H__ */
