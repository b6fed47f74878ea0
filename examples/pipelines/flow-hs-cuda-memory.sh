#!/bin/sh
# requires: gpu
# Flow and its colour coding with every buffer in CUDA memory between
# cudaupload and cudadownload (one shared CUDA context).
set -e
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=60 ! video/x-raw,format=NV12,width=1280,height=720 ! \
  cudaupload ! cudaflowhs preset=realtime ! flowviz ! cudadownload ! fakesink
