#!/bin/sh
# Horn-Schunck flow of a moving ball, colour-coded with the Middlebury wheel
# and written as PNG files (GPU when present, else CPU).
set -e
OUTDIR=${OUTDIR:-$(mktemp -d)}
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=8 ! video/x-raw,width=160,height=120 ! \
  cudaflowhs preset=fast ! flowviz max-flow=8 ! videoconvert ! pngenc ! \
  multifilesink location="$OUTDIR/flow_%05d.png"
echo "wrote $OUTDIR/flow_00000.png ..."
