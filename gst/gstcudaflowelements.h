/* gst-cudaflow — element and typefinder registration
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_FLOW_ELEMENTS_H__
#define __GST_CUDA_FLOW_ELEMENTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (cudaconvolve);
GST_ELEMENT_REGISTER_DECLARE (cudaflowhs);
GST_ELEMENT_REGISTER_DECLARE (cudaflowtvl1);
GST_ELEMENT_REGISTER_DECLARE (cudaflowclg);
GST_ELEMENT_REGISTER_DECLARE (flowviz);
GST_ELEMENT_REGISTER_DECLARE (floenc);
GST_ELEMENT_REGISTER_DECLARE (flodec);

GST_TYPE_FIND_REGISTER_DECLARE (middlebury_flo);

G_END_DECLS
#endif /* __GST_CUDA_FLOW_ELEMENTS_H__ */
