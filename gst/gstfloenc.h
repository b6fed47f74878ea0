/* gst-cudaflow — floenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_FLO_ENC_H__
#define __GST_FLO_ENC_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_FLO_ENC (gst_flo_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstFloEnc, gst_flo_enc, GST, FLO_ENC, GstBaseTransform);

G_END_DECLS
#endif /* __GST_FLO_ENC_H__ */
