#!/bin/sh
# requires: gpu
# Flow and its colour coding with every buffer in CUDA memory between
# cudaupload and cudadownload (one shared CUDA context; cudaupload is asked
# for CUDA memory, which it does not prefer by itself).
set -e
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=60 ! video/x-raw,format=NV12,width=1280,height=720 ! \
  cudaupload ! "video/x-raw(memory:CUDAMemory)" ! cudaflowhs preset=fast ! flowviz ! cudadownload ! fakesink
