#!/bin/sh
# CLG flow (the CLG paper's configuration B) drawn as arrows over the colour
# wheel, written as PNG files (GPU when present, else CPU).
set -e
OUTDIR=${OUTDIR:-$(mktemp -d)}
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=8 ! video/x-raw,width=160,height=120 ! \
  cudaflowclg preset=config-b ! flowviz mode=arrows max-flow=8 ! videoconvert ! pngenc ! \
  multifilesink location="$OUTDIR/clg_%05d.png"
echo "wrote $OUTDIR/clg_00000.png ..."
