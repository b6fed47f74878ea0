#!/bin/sh
# Set up (packages, configure, build), then run the main job on a built-in
# input: a test pattern through cudaconvolve with each kernel preset,
# written as PNG files to _out/demo/ (GPU when present, else CPU).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
out="$top/_out/demo"
mkdir -p "$out"
export GST_PLUGIN_PATH="$top/_build/gst/.libs${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
run() {
  name=$1; shift
  gst-launch-1.0 -q videotestsrc pattern=smpte num-buffers=1 ! \
    video/x-raw,format=RGBA,width=640,height=480 ! cudaconvolve "$@" ! \
    videoconvert ! pngenc ! filesink location="$out/$name.png"
  echo "  $out/$name.png  (cudaconvolve $*)"
}
echo "demo: writing pictures"
run original
run gaussian kernel-preset=gaussian sigma=4
run box kernel-preset=box kernel-size=15
run disk kernel-preset=disk kernel-size=21
run laplacian kernel-preset=laplacian kernel-size=3 offset=0.5
run sharpen kernel="0 -1 0; -1 5 -1; 0 -1 0"
run emboss kernel-location="$top/examples/kernels/emboss.txt" normalize=false offset=0.5
