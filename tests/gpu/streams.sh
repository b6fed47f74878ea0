#!/bin/bash
# Many decoded streams on one GPU (docs/scaling.md): N = 1, 2, 4, 8, 16
# pipelines in one process, each
#   filesrc ! qtdemux ! h264parse ! nvh264dec ! ELEMENT ! fakesink
# looping a 1080p or 4K H.264 pan with known motion, through
# tools/gst-cudaflow-streams: aggregate frames/s, p50/p99 latency per stream,
# GPU and NVDEC busy, device memory per stream, each stream's flow checked
# against the pan, and the single-stream GPU-time bound beside it (the
# element's GPU ms per frame from gst-cudaflow-flow-frontier or
# gst-cudaflow-conv-bench).
#
#   tests/gpu/streams.sh --make-clips CLIP_DIR
#       (where gst-launch-1.0 has x264enc and python3 has numpy)
#   tests/gpu/streams.sh BUILD_DIR CLIP_DIR
#       (on the GPU machine: a build tree or a tests/gpu/stage.sh copy)
#
# Results go to $OUT (default _out/streams): streams.json (one line per
# run), streams.md, bounds.txt, streams.log. STREAMS (default
# "1 2 4 8 16"; STREAMS_OTHERS, default the same, for every run but the
# two TV-L1 fast 1080p ones), WINDOW (measured seconds, default 6), WARMUP
# (2) and RUNS (a regular expression over the run names below; default
# all) trim it.
# The bound of the flow runs needs one Middlebury-format directory:
# BOUND_DATA, default $CUDAFLOW_DATA_DIR/middlebury.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --make-clips ]; then
  dir=${2:?clip dir}; mkdir -p "$dir"
  "$here/make-pan-clip.sh" 1920 1080 3 1 90 "$dir/pan-1080p.mp4" &&
    "$here/make-pan-clip.sh" 3840 2160 6 2 60 "$dir/pan-2160p.mp4" &&
    ls -l "$dir"
  exit
fi

build=$(cd "${1:?build dir}" && pwd); clips=$(cd "${2:?clip dir}" && pwd)
out=${OUT:-$here/../../_out/streams}
mkdir -p "$out"
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
export LD_LIBRARY_PATH=$build/gst-libs/gst/cudaflow/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-streams-registry-$$.bin
tool=$build/tools/gst-cudaflow-streams
[ -x "$build/tools/.libs/gst-cudaflow-streams" ] && tool=$build/tools/.libs/gst-cudaflow-streams
if ! gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  echo "SKIP: no nvh264dec (an NVIDIA GPU with NVDEC and gst-plugins-bad's nvcodec)"
  exit 77
fi
streams=${STREAMS:-1 2 4 8 16}
streams_others=${STREAMS_OTHERS:-$streams}
window=${WINDOW:-6} warmup=${WARMUP:-2}
runs=${RUNS:-.}
data=${BOUND_DATA:-${CUDAFLOW_DATA_DIR:-}/middlebury}
json=$out/streams.json md=$out/streams.md log=$out/streams.log
: > "$json"; : > "$md"; : > "$log"
nvidia-smi -L >> "$log" 2>&1

# GPU ms per frame of a flow element's settings at a size (3 decimals)
flow_ms () {  # ELEMENT 'PROP=V ...' WxH
  "$build/tools/gst-cudaflow-flow-frontier" --element "$1" --point "$2" \
    --data "$data" --sizes "$3" --frames 50 --json "$out/bound.json" \
    >> "$log" 2>&1 || return 1
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; print("%.4f" % p["time"][0]["frame_ms"])' \
    "$out/bound.json" 2>>"$log"
}
# GPU ms of cudaconvolve on NV12 at WxH: the luma plane plus the two
# interleaved chroma planes counted as two half-size single planes
conv_ms () {  # K W H
  "$build/tools/gst-cudaflow-conv-bench" --sizes "${2}x${3},$(($2 / 2))x$(($3 / 2))" \
    --ks "$1" --methods auto --reps 50 --json "$out/bound.json" >> "$log" 2>&1 || return 1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; m=[x["median_ms"] for x in r]; print("%.4f" % (m[0] + 2 * m[1]))' \
    "$out/bound.json" 2>>"$log"
}
fps_of () { awk -v ms="$1" 'BEGIN { if (ms > 0) printf "%.1f", 1000 / ms; else print 0 }'; }

# name | clip | element | expected flow | extra options | bound
one () {  # NAME CLIP ELEMENT EXPECT BOUND_FPS EXTRA...
  local name=$1 clip=$2 element=$3 expect=$4 bound=$5; shift 5
  [[ $name =~ $runs ]] || return 0
  local ns=$streams_others
  case $name in tvl1-fast-1080p|tvl1-fast-1080p-own-contexts) ns=$streams ;; esac
  for n in $ns; do
    echo "== $name N=$n" >> "$log"
    "$tool" --clip "$clips/$clip" --streams "$n" --element "$element" \
      ${expect:+--expect-flow "$expect"} --bound-fps "$bound" \
      --seconds "$window" --warmup "$warmup" --label "$name" \
      --json "$json" --markdown "$md" "$@" >> "$log" 2>&1
    echo "$name N=$n: exit $?" | tee -a "$log"
  done
}

fast="cudaflowtvl1 preset=fast precision=fp16"
bal="cudaflowtvl1 preset=balanced precision=fp16"
b_fast=$(fps_of "$(flow_ms cudaflowtvl1 'preset=fast precision=fp16' 1920x1080)")
b_bal=$(fps_of "$(flow_ms cudaflowtvl1 'preset=balanced precision=fp16' 1920x1080)")
b_fast4k=$(fps_of "$(flow_ms cudaflowtvl1 'preset=fast precision=fp16' 3840x2160)")
b_k7=$(fps_of "$(conv_ms 7 1920 1080)")
b_k31=$(fps_of "$(conv_ms 31 1920 1080)")
{ echo "GPU-time bounds (frames/s = 1000 / GPU ms per frame, one stream):"
  echo "  tvl1 fast fp16 1080p $b_fast, balanced fp16 1080p $b_bal, fast fp16 4K $b_fast4k"
  echo "  cudaconvolve NV12 1080p K=7 $b_k7, K=31 $b_k31"; } | tee "$out/bounds.txt"

one decode-1080p pan-1080p.mp4 identity "" 0
# each pipeline in a CUDA context of its own (what an application gets
# from elements that make one each), against the process's one context
one tvl1-fast-1080p-own-contexts pan-1080p.mp4 "$fast" -3,-1 "$b_fast" --context per-pipeline
one tvl1-fast-1080p pan-1080p.mp4 "$fast" -3,-1 "$b_fast"
one tvl1-fast-1080p-meta-appsink pan-1080p.mp4 "$fast output=meta" -3,-1 "$b_fast" --appsink
one tvl1-balanced-1080p pan-1080p.mp4 "$bal" -3,-1 "$b_bal"
one decode-4k pan-2160p.mp4 identity "" 0
one tvl1-fast-4k pan-2160p.mp4 "$fast" -6,-2 "$b_fast4k"
one conv-k7-1080p pan-1080p.mp4 "cudaconvolve kernel-preset=disk kernel-size=7" "" "$b_k7"
one conv-k31-1080p pan-1080p.mp4 "cudaconvolve kernel-preset=disk kernel-size=31" "" "$b_k31"
cat "$md"
