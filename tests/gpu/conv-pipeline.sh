#!/bin/bash
# Frames per second of cudaconvolve in a pipeline, frames in CUDA memory:
#   videotestsrc (one frame) ! cudaupload ! imagefreeze ! cudaconvolve !
#   fakesink
# (the frame is uploaded once; imagefreeze pushes it again and again, so
# only cudaconvolve works per frame)
# at 1920x1080 NV12 (luma and chroma filtered), for each KERNEL
# (preset:size or random:size) and METHOD, and the same pipeline without
# cudaconvolve. The time is gst-launch's own "Execution ended after", from
# PLAYING to EOS: plugin loading, the CUDA context and the plans (made on
# the preroll frame) are outside it. Prints a markdown table.
#
#   tests/gpu/conv-pipeline.sh [BUILD_DIR]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
if ! command -v gst-launch-1.0 >/dev/null 2>&1 && [ -f "$top/.gst-runtime/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$top/.gst-runtime/env.sh"
fi
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-pipeline-registry-$$.bin
frames=${FRAMES:-5000}
size=${SIZE:-1920x1080}
w=${size%x*} h=${size#*x}

# a K x K kernel of random taps in gst-launch syntax
random_kernel() {
  awk -v k="$1" 'BEGIN { srand(7); for (j = 0; j < k; j++) { for (i = 0; i < k; i++)
    printf "%.3f%s", rand(), (i < k - 1 ? " " : ""); if (j < k - 1) printf ";" } }'
}

# frames/s of $frames frames through the element description $1
fps() {
  local log
  log=$(gst-launch-1.0 videotestsrc num-buffers=1 pattern=snow \
    ! "video/x-raw,format=NV12,width=$w,height=$h,framerate=30/1" \
    ! cudaupload ! "video/x-raw(memory:CUDAMemory)" \
    ! imagefreeze num-buffers="$frames" $1 ! fakesink sync=false 2>&1) \
    || { echo "error"; return; }
  # "Execution ended after 0:00:01.234567890"
  echo "$log" | sed -n 's/.*Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\).*/\1 \2 \3/p' \
    | awk -v n="$frames" '{ s = $1 * 3600 + $2 * 60 + $3; printf "%.0f", (n - 1) / s }'
}

echo "cudaconvolve in a pipeline, ${w}x${h} NV12 in CUDA memory, frames/s"
echo "(cudaupload ! imagefreeze ! ... ! fakesink; $frames frames, PLAYING to EOS)"
echo
echo "| pipeline | frames/s |"
echo "|---|---|"
echo "| without cudaconvolve | $(fps "") |"
for spec in ${KERNELS:-gaussian:7 gaussian:31 random:3 random:15 random:31 random:63 random:127}; do
  kind=${spec%:*} k=${spec#*:}
  if [ "$kind" = random ]; then
    kprop="kernel=\"$(random_kernel "$k")\""
  else
    kprop="kernel-preset=$kind kernel-size=$k"
  fi
  for m in ${METHODS:-auto}; do
    echo "| $kind ${k}x${k}, method=$m | $(fps "! cudaconvolve $kprop method=$m") |"
  done
done
