#!/bin/bash
# output=meta on decoded video, on a machine with an NVIDIA GPU:
#  - `nvh264dec ! E output=meta ! appsink` (video and flow in CUDA memory)
#    and `nvh264dec ! E ! appsink` (the flow stream) give the same numbers
#    to the application, for E = cudaflowtvl1, cudaflowhs, cudaflowclg
#    (examples/apps/flow-stats reads both, through the host map);
#  - `nvh264dec ! cudaflowtvl1 output=meta ! flowviz mode=overlay !
#    cudadownload` keeps the estimator's and flowviz's output in CUDA memory.
#
#   tests/gpu/meta-decode.sh [BUILD_DIR [CLIP.mp4]]
#
# Without CLIP, a 720p H.264 clip of the moving ball is made with x264enc
# (gstreamer1.0-plugins-ugly). Logs go to $OUT (default _out/gpu-meta).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
clip=${2:-}
out=${OUT:-$top/_out/gpu-meta}
mkdir -p "$out"

if ! command -v gst-launch-1.0 >/dev/null 2>&1 && [ -f "$top/.gst-runtime/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$top/.gst-runtime/env.sh"
fi
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
export LD_LIBRARY_PATH=$build/gst-libs/gst/cudaflow/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-meta-registry-$$.bin
if ! gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  echo "SKIP: no nvh264dec (an NVIDIA GPU with NVDEC and gst-plugins-bad's nvcodec)"
  exit 77
fi
stats=$build/examples/apps/flow-stats
[ -x "$build/examples/apps/.libs/flow-stats" ] && stats=$build/examples/apps/.libs/flow-stats

if [ -z "$clip" ]; then
  clip=$out/ball-720p.mp4
  gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=120 ! \
    video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ! \
    x264enc speed-preset=ultrafast key-int-max=30 ! h264parse ! mp4mux ! \
    filesink location="$clip" || { echo "SKIP: cannot make a clip (x264enc?)"; exit 77; }
fi
decode="filesrc location=$clip ! qtdemux ! h264parse ! nvh264dec"

pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

for e in cudaflowtvl1 cudaflowhs cudaflowclg; do
  "$stats" --pipeline "$decode ! $e output=meta ! video/x-raw(memory:CUDAMemory) ! appsink" \
    > "$out/$e-meta.txt" 2> "$out/$e-meta.err"
  rc_meta=$?
  "$stats" --pipeline "$decode ! $e ! video/x-optical-flow(memory:CUDAMemory) ! appsink" \
    > "$out/$e-flow.txt" 2> "$out/$e-flow.err"
  rc_flow=$?
  if [ $rc_meta -eq 0 ] && [ $rc_flow -eq 0 ] && [ -s "$out/$e-meta.txt" ] \
      && cmp -s "$out/$e-meta.txt" "$out/$e-flow.txt"; then
    ok "$e: output=meta reads as output=flow ($(wc -l < "$out/$e-meta.txt") frames)"
  else
    bad "$e: meta (exit $rc_meta) and flow (exit $rc_flow) differ"
    diff "$out/$e-meta.txt" "$out/$e-flow.txt" | head -5
  fi
done

gst-launch-1.0 -v $decode ! cudaflowtvl1 output=meta ! flowviz mode=overlay max-flow=8 ! \
  cudadownload ! videoconvert ! pngenc ! multifilesink max-files=1 \
  location="$out/overlay-%03d.png" > "$out/overlay.log" 2>&1
rc=$?
cuda_caps() { grep -q "$1.GstPad:src: caps = video/x-raw(memory:CUDAMemory)" "$out/overlay.log"; }
if [ $rc -eq 0 ] && cuda_caps cudaflowtvl1-0 && cuda_caps flowviz0; then
  ok "nvh264dec ! cudaflowtvl1 output=meta ! flowviz mode=overlay stays in CUDA memory"
else
  bad "overlay on decoded video (exit $rc)"; grep "caps = " "$out/overlay.log" | head -8
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
