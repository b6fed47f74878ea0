#!/bin/sh
# TV-L1 flow of a moving ball (preset=fast: the fastest preset that keeps
# large motions; preset=romera is the 3 levels x 1 warp x 10 iterations of
# Romera et al. 2021),
# colour-coded and written as PNG files (GPU when present, else CPU).
set -e
OUTDIR=${OUTDIR:-$(mktemp -d)}
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=8 ! video/x-raw,width=160,height=120 ! \
  cudaflowtvl1 preset=fast ! flowviz max-flow=8 ! videoconvert ! pngenc ! \
  multifilesink location="$OUTDIR/tvl1_%05d.png"
echo "wrote $OUTDIR/tvl1_00000.png ..."
