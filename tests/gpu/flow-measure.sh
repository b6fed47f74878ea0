#!/bin/bash
# Flow measurements on a GPU machine: speed per frame and per stage
# (tools/gst-cudaflow-flow-bench) and accuracy of the elements on the
# Middlebury pairs (tools/gst-cudaflow-flow-eval, GPU backend, fp32 and
# fp16). Results go to $OUT (default _out/flow): bench.json, bench.md,
# eval-*.md. docs/flow-speed.md and docs/flow-accuracy.md quote them.
#
#   tests/gpu/flow-measure.sh [BUILD_DIR] [DATA_DIR]
#
# DATA_DIR holds the Middlebury pairs (default: $CUDAFLOW_DATA_DIR/middlebury).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
data=${2:-${CUDAFLOW_DATA_DIR:-$top/../shared/data}/middlebury}
out=${OUT:-$top/_out/flow}
mkdir -p "$out"

if ! command -v gst-launch-1.0 >/dev/null 2>&1 && [ -f "$top/.gst-runtime/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$top/.gst-runtime/env.sh"
fi
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-measure-registry-$$.bin

status=0
"$build/tools/gst-cudaflow-flow-bench" --frames 20 --json "$out/bench.json" \
  --markdown "$out/bench.md" > /dev/null 2> "$out/bench.log" || status=1
# Romera et al. 2021 and Romera 2023 quote their per-iteration figures at
# 2048 x 2048 (docs/references.md)
"$build/tools/gst-cudaflow-flow-bench" --frames 20 --sizes 2048x2048 \
  --config hs-realtime,hs-realtime-fp16,tvl1-realtime,tvl1-realtime-fp16,tvl1-fixed-100,tvl1-fixed-100-fp16,clg-config-a \
  --json "$out/bench-2048.json" --markdown "$out/bench-2048.md" > /dev/null \
  2> "$out/bench-2048.log" || status=1

# eval ELEMENT NAME SETTINGS...: one table per configuration
eval_cfg() {
  element=$1; name=$2; shift 2
  args=()
  for s in "$@"; do args+=(--set "$s"); done
  "$build/tools/gst-cudaflow-flow-eval" --element "$element" \
    --set backend=cuda "${args[@]}" "$data" \
    > "$out/eval-$name.md" 2> "$out/eval-$name.log" || status=1
}
if [ -d "$data" ]; then
  for p in fp32 fp16; do
    eval_cfg cudaflowhs "hs-default-$p" precision=$p
    eval_cfg cudaflowhs "hs-cuda-samples-$p" preset=cuda-samples precision=$p
    for it in 10 20 50 100 200; do
      eval_cfg cudaflowhs "hs-seed-$it-$p" levels=3 warps=1 iterations=$it precision=$p
    done
  done
  for p in fp32 fp16; do
    eval_cfg cudaflowtvl1 "tvl1-ipol-$p" precision=$p
    eval_cfg cudaflowtvl1 "tvl1-realtime-$p" preset=romera precision=$p
    eval_cfg cudaflowclg "clg-default-$p" precision=$p
    eval_cfg cudaflowclg "clg-config-a-$p" preset=config-a precision=$p
    eval_cfg cudaflowclg "clg-config-b-$p" preset=config-b precision=$p
  done
else
  echo "no Middlebury data at $data: accuracy not measured" | tee "$out/eval-missing.txt"
fi
exit $status
