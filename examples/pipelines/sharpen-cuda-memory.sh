#!/bin/sh
# requires: gpu
# Sharpening with frames in CUDA memory end to end: cudaupload and
# cudadownload are nvcodec's elements; the frames never visit the host in
# between.
set -e
gst-launch-1.0 -q videotestsrc num-buffers=60 ! video/x-raw,format=NV12,width=1280,height=720 ! \
  cudaupload ! cudaconvolve kernel="0 -1 0; -1 5 -1; 0 -1 0" ! cudadownload ! \
  fakesink
