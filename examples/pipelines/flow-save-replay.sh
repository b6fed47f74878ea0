#!/bin/sh
# Save flow fields as Middlebury .flo files, then replay them into flowviz.
set -e
OUTDIR=${OUTDIR:-$(mktemp -d)}
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=5 ! video/x-raw,width=96,height=64 ! \
  cudaflowhs preset=realtime ! floenc ! multifilesink location="$OUTDIR/flow_%05d.flo"
gst-launch-1.0 -q multifilesrc location="$OUTDIR/flow_%05d.flo" \
  caps="application/x-middlebury-flo,framerate=30/1" ! flodec ! flowviz mode=arrows ! \
  videoconvert ! pngenc ! multifilesink location="$OUTDIR/replay_%05d.png"
echo "wrote $OUTDIR/flow_00000.flo ... and replay_00000.png ..."
