#!/bin/bash
# Frames per second of cudaconvolve in a pipeline, frames in CUDA memory:
#   videotestsrc (one frame) ! cudaupload ! imagefreeze ! cudaconvolve !
#   fakesink
# (the frame is uploaded once; imagefreeze pushes it again and again, so
# only cudaconvolve works per frame)
# at 1920x1080 NV12 (luma and chroma filtered), for each KERNEL (preset:size or random:size) and
# METHOD, and the same pipeline without cudaconvolve. Each case runs twice
# (N1 and N2 frames); fps = (N2 - N1) / (t2 - t1) cancels start-up (plugin
# loading, CUDA context, plans). Prints a markdown table.
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
n1=${N1:-500} n2=${N2:-5500}
size=${SIZE:-1920x1080}
w=${size%x*} h=${size#*x}

# a K x K kernel of random taps in gst-launch syntax
random_kernel() {
  awk -v k="$1" 'BEGIN { srand(7); for (j = 0; j < k; j++) { for (i = 0; i < k; i++)
    printf "%.3f%s", rand(), (i < k - 1 ? " " : ""); if (j < k - 1) printf ";" } }'
}

# seconds for one run of $1 frames through the element description $2
run() {
  local t0 t1
  t0=$(date +%s.%N)
  gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=snow \
    ! "video/x-raw,format=NV12,width=$w,height=$h,framerate=30/1" \
    ! cudaupload ! "video/x-raw(memory:CUDAMemory)" \
    ! imagefreeze num-buffers="$1" $2 ! fakesink sync=false || return 1
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{ print $2 - $1 }'
}

fps() {  # element description
  local a b
  a=$(run "$n1" "$1") && b=$(run "$n2" "$1") || { echo "error"; return; }
  echo "$a $b" | awk -v n="$((n2 - n1))" '{ printf "%.0f", n / ($2 - $1) }'
}

echo "cudaconvolve in a pipeline, ${w}x${h} NV12 in CUDA memory, frames/s"
echo "(cudaupload ! imagefreeze ! ... ! fakesink; ($n2 - $n1) frames / time difference)"
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
