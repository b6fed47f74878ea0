#!/bin/sh
# Gaussian blur of a test pattern, written as PNG files.
# Runs on the GPU when one is present, else on the CPU reference backend.
set -e
OUTDIR=${OUTDIR:-$(mktemp -d)}
gst-launch-1.0 -q videotestsrc num-buffers=10 ! video/x-raw,width=320,height=240 ! \
  cudaconvolve kernel-preset=gaussian sigma=3 ! \
  videoconvert ! pngenc ! multifilesink location="$OUTDIR/blur_%05d.png"
echo "wrote $OUTDIR/blur_00000.png ... blur_00009.png"
