#!/bin/sh
# requires: gpu
# Sharpening with frames in CUDA memory end to end: cudaupload and
# cudadownload are nvcodec's elements; the frames never visit the host in
# between (cudaupload is asked for CUDA memory: left free, it passes system
# memory through).
set -e
gst-launch-1.0 -q videotestsrc num-buffers=60 ! video/x-raw,format=NV12,width=1280,height=720 ! \
  cudaupload ! "video/x-raw(memory:CUDAMemory)" ! cudaconvolve kernel="0 -1 0; -1 5 -1; 0 -1 0" ! cudadownload ! \
  fakesink
