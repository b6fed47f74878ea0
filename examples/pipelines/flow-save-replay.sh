#!/bin/sh
# Save flow fields as Middlebury .flo files, then replay them into flowviz:
# the whole sequence at 30 fields per second, and one file on its own
# through the .flo typefinder and decodebin.
set -e
OUTDIR=${OUTDIR:-$(mktemp -d)}
# 5 frames give 4 fields (the first frame has no previous one: its GAP field
# is not written); flow_00000.flo maps frame 0 to frame 1, as Middlebury's
# flow10.flo maps frame10 to frame11
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=5 ! video/x-raw,width=96,height=64 ! \
  cudaflowhs preset=fast ! floenc ! multifilesink location="$OUTDIR/flow_%05d.flo"
gst-launch-1.0 -q multifilesrc location="$OUTDIR/flow_%05d.flo" \
  caps="application/x-middlebury-flo,framerate=30/1" ! flodec ! flowviz mode=arrows ! \
  videoconvert ! pngenc ! multifilesink location="$OUTDIR/replay_%05d.png"
gst-launch-1.0 -q filesrc location="$OUTDIR/flow_00003.flo" ! decodebin caps=video/x-optical-flow ! \
  flowviz ! videoconvert ! pngenc ! filesink location="$OUTDIR/flow_00003.png"
echo "wrote $OUTDIR/flow_00000.flo ... flow_00003.flo, replay_00000.png ... and flow_00003.png"
