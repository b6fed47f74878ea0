#!/bin/sh
# CLG flow (the CLG paper's configuration B) drawn as arrows over the colour
# wheel, written as PNG files (GPU when present, else CPU). Arrows are 4 px
# per pixel of motion and 2 px wide by default (arrow-scale,
# arrow-thickness); still areas get none, and the first frame, which has no
# flow yet, is plain grey.
set -e
OUTDIR=${OUTDIR:-$(mktemp -d)}
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=8 ! video/x-raw,width=160,height=120 ! \
  cudaflowclg preset=config-b ! flowviz mode=arrows max-flow=8 arrow-scale=4 ! videoconvert ! pngenc ! \
  multifilesink location="$OUTDIR/clg_%05d.png"
echo "wrote $OUTDIR/clg_00000.png ..."
