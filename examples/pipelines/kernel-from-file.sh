#!/bin/sh
# A kernel read from a text file (an emboss filter), on RGBA frames with
# the alpha channel left untouched.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
gst-launch-1.0 -q videotestsrc num-buffers=10 ! video/x-raw,format=RGBA,width=320,height=240 ! \
  cudaconvolve kernel-location="$HERE/../kernels/emboss.txt" normalize=false offset=0.5 ! \
  fakesink
