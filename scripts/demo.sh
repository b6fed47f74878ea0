#!/bin/sh
# Set up (packages, configure, build), then run the main job on a built-in
# input, GPU when present, else CPU; pictures go to _out/demo/:
#  1. optical flow: a generated scene moved by a known motion through each
#     estimator, printed EPE against that motion, the flow colour-coded
#     alone (flow-*.png) and over the video (overlay-*.png);
#  2. convolution: a test pattern through cudaconvolve with each preset.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
out="$top/_out/demo"
tools="$top/_build/tools"
scenes="$out/scenes"
mkdir -p "$out"
export GST_PLUGIN_PATH="$top/_build/gst/.libs${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

echo "demo: optical flow of a scene with known motion (640x480)"
"$tools/gst-cudaflow-synth" --motion translation --amount 4 --size 640x480 "$scenes/translation"
"$tools/gst-cudaflow-synth" --motion rotation-zoom --amount 4 --size 640x480 "$scenes/rotation-zoom"
"$tools/gst-cudaflow-synth" --motion smooth --amount 4 --size 640x480 "$scenes/smooth"
for element in cudaflowtvl1 cudaflowclg cudaflowhs; do
  echo "  $element: end-point error against the known motion (pixels)"
  "$tools/gst-cudaflow-flow-eval" --element $element --png "$out/flow-$element" \
    "$scenes" | sed -n 's/^| \([a-z-]*\) | \([0-9.]*\) |.*/    \1: \2/p'
  echo "    pictures: $out/flow-$element/<scene>.png (truth: <scene>-truth.png)"
  # the video with its flow drawn over it: output=meta keeps the video and
  # attaches the flow, flowviz blends the colour coding over the frame
  gst-launch-1.0 -q multifilesrc location="$scenes/rotation-zoom/frame%02d.png" \
    start-index=10 stop-index=11 caps=image/png,framerate=1/1 ! pngdec ! \
    videoconvert ! video/x-raw,format=RGBA ! $element output=meta ! \
    flowviz mode=overlay max-flow=4 ! videoconvert ! pngenc ! \
    multifilesink location="$out/overlay-$element-%d.png"
  # frame 0 has no earlier frame: it is the plain video
  mv "$out/overlay-$element-1.png" "$out/overlay-$element.png"
  rm -f "$out/overlay-$element-0.png"
  echo "    over the video: $out/overlay-$element.png"
done

run() {
  name=$1; shift
  gst-launch-1.0 -q videotestsrc pattern=smpte num-buffers=1 ! \
    video/x-raw,format=RGBA,width=640,height=480 ! cudaconvolve "$@" ! \
    videoconvert ! pngenc ! filesink location="$out/$name.png"
  echo "  $out/$name.png  (cudaconvolve $*)"
}
echo "demo: convolution pictures"
run original
run gaussian kernel-preset=gaussian sigma=4
run box kernel-preset=box kernel-size=15
run disk kernel-preset=disk kernel-size=21
run laplacian kernel-preset=laplacian kernel-size=3 offset=0.5
run sharpen kernel="0 -1 0; -1 5 -1; 0 -1 0"
run emboss kernel-location="$top/examples/kernels/emboss.txt" normalize=false offset=0.5
