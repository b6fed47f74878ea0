/* gst-cudaflow — cudaconvolve: 2-D convolution of video frames
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_CONVOLVE_H__
#define __GST_CUDA_CONVOLVE_H__

#include "gstcfbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CONVOLVE (gst_cuda_convolve_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaConvolve, gst_cuda_convolve, GST, CUDA_CONVOLVE,
    GstCfBaseTransform);

/**
 * GstCudaConvolveChannels:
 * @GST_CUDA_CONVOLVE_CHANNEL_R: red
 * @GST_CUDA_CONVOLVE_CHANNEL_G: green
 * @GST_CUDA_CONVOLVE_CHANNEL_B: blue
 * @GST_CUDA_CONVOLVE_CHANNEL_A: alpha
 * @GST_CUDA_CONVOLVE_CHANNEL_Y: luma (Y, or GRAY)
 * @GST_CUDA_CONVOLVE_CHANNEL_U: chroma U (Cb)
 * @GST_CUDA_CONVOLVE_CHANNEL_V: chroma V (Cr)
 */
typedef enum
{
  GST_CUDA_CONVOLVE_CHANNEL_R = (1 << 0),
  GST_CUDA_CONVOLVE_CHANNEL_G = (1 << 1),
  GST_CUDA_CONVOLVE_CHANNEL_B = (1 << 2),
  GST_CUDA_CONVOLVE_CHANNEL_A = (1 << 3),
  GST_CUDA_CONVOLVE_CHANNEL_Y = (1 << 4),
  GST_CUDA_CONVOLVE_CHANNEL_U = (1 << 5),
  GST_CUDA_CONVOLVE_CHANNEL_V = (1 << 6)
} GstCudaConvolveChannels;

G_END_DECLS
#endif /* __GST_CUDA_CONVOLVE_H__ */
