/* gst-cudaflow — plugin entry point
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every element registers even without an NVIDIA driver or GPU (unlike
 * nvcodec): gst-inspect, documentation and the CPU backend keep working,
 * and backend=cuda fails at start with a message instead.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaflowelements.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (cudaconvolve, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaflowhs, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaflowtvl1, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaflowclg, plugin);
  ret |= GST_ELEMENT_REGISTER (flowviz, plugin);
  ret |= GST_ELEMENT_REGISTER (floenc, plugin);
  ret |= GST_ELEMENT_REGISTER (flodec, plugin);
  /* .flo files: so filesrc ! decodebin and gst-typefind-1.0 find flodec */
  ret |= GST_TYPE_FIND_REGISTER (middlebury_flo, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaflow,
    "Large 2-D convolution and dense optical flow on CUDA GPUs, with CPU "
    "reference backends", plugin_init, PACKAGE_VERSION, "LGPL",
    "gst-cudaflow", "Unknown package origin")
