/* gst-cudaflow — flowviz: optical-flow fields as pictures
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_FLOW_VIZ_H__
#define __GST_FLOW_VIZ_H__

#include "gstcfbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_FLOW_VIZ (gst_flow_viz_get_type ())
G_DECLARE_FINAL_TYPE (GstFlowViz, gst_flow_viz, GST, FLOW_VIZ,
    GstCfBaseTransform);

G_END_DECLS
#endif /* __GST_FLOW_VIZ_H__ */
