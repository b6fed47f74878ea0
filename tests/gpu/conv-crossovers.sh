#!/bin/bash
# Measure the crossovers of cudaconvolve's method=auto on this GPU: times
# direct vs fft (dense kernels), direct vs separable (rank-1, small K),
# separable vs fft (rank-1, large K) and im2tensor against both direct and
# fft (dense kernels, the window where it is fastest) at seven image sizes
# with tools/gst-cudaflow-conv-bench, then prints the rows of auto_table in
# cuda/convolve.cu (scripts/bench/conv-crossovers.py). Paste them there to
# tune auto for another GPU. PARTS (default "df ds sf i2t") runs some of
# the sweeps only: the script then prints the columns it can. Raw timings
# go to $OUT (default _out/conv-crossovers).
#
#   tests/gpu/conv-crossovers.sh [BUILD_DIR]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
out=${OUT:-$top/_out/conv-crossovers}
python=${PYTHON:-python3}
sizes=${SIZES:-320x240,640x480,1280x720,1920x1080,3840x2160,4096x4096,8192x8192}
bench="$build/tools/gst-cudaflow-conv-bench --sizes $sizes --reps ${REPS:-20}"
parts=" ${PARTS:-df ds sf i2t} "
want() { case $parts in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$out"
files=()
want df && files+=("$out/sweep-df.json") && $bench --methods direct,fft --json "$out/sweep-df.json" \
  --ks 3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,35,39,43,47,55,63 > /dev/null
want ds && files+=("$out/sweep-ds.json") && $bench --methods direct,separable --json "$out/sweep-ds.json" \
  --ks 3,5,7,9,11 > /dev/null
want sf && files+=("$out/sweep-sf.json") && $bench --methods separable,fft --json "$out/sweep-sf.json" \
  --ks 63,95,127,191,255,383 > /dev/null
want i2t && files+=("$out/sweep-i2t.json") && $bench --methods direct,fft,im2tensor --json "$out/sweep-i2t.json" \
  --ks 9,11,13,15,17,19,21,23,25,27,31,35,39,43,47,51,55,59,63,71,79,87,95,111,127 \
  > /dev/null
"$python" "$top/scripts/bench/conv-crossovers.py" "${files[@]}"
