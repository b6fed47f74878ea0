#!/bin/sh
# Edges of a moving ball in grey: the 3x3 Laplacian, shifted to mid-grey so
# both signs show.
set -e
OUTDIR=${OUTDIR:-$(mktemp -d)}
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=5 ! \
  video/x-raw,format=GRAY8,width=320,height=240 ! \
  cudaconvolve kernel-preset=laplacian kernel-size=3 offset=0.5 ! \
  videoconvert ! pngenc ! multifilesink location="$OUTDIR/edges_%05d.png"
echo "wrote $OUTDIR/edges_00000.png ..."
