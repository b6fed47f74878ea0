#!/bin/bash
# Horn-Schunck Jacobi kernels side by side on a GPU machine, in one binary:
# jacobi-kernel=fused (8 sweeps per launch on 64 x 64 / 32 x 32 regions,
# two barriers per sweep) against fused-db (double-buffered regions, one
# barrier per sweep, region geometry per level). Four parts:
#
#   identity  the bit-identity suites: tests/check/cuda/hs (every kernel
#             and FUSED_DB geometry against SIMPLE, fp32 and fp16, odd and
#             tiny sizes, counts that are not multiples of the depth; the
#             CPU comparisons) and tests/check/elements/flow-gpu
#             (jacobi-kernel values through the element)
#   speed     gst-cudaflow-flow-bench on the presets cuda-samples, fast and
#             balanced, fp32 and fp16, at SIZES: ROUNDS rounds, each runs
#             both kernels, the order alternating (fused first in odd
#             rounds); per configuration the median over the rounds of the
#             bench's per-frame medians, and new / old
#   geometry  every FUSED_DB geometry forced, with and without
#             programmatic dependent launch, on one level of each size of
#             a 1080p pyramid (hs-one-level: 1 warp x 504 sweeps) and on
#             the presets: the data the AUTO cost model is checked against
#   sanitize  compute-sanitizer racecheck and memcheck on the plan test
#             that runs every geometry (slow; not in the default PARTS)
#
#   tests/gpu/hs-speed.sh [BUILD_DIR]
#
# BUILD_DIR: a build tree or a tests/gpu/stage.sh copy (default _build).
# Environment: PARTS (default "identity speed geometry"), ROUNDS (default
# 5), FRAMES (timed frames per bench run, default 20), SIZES (default
# 1920x1080), OUT (default _out/hs-speed). Results: OUT/summary.md (the
# speed table), OUT/geometry.md, OUT/identity-*.log, OUT/*.json.
# The speed summary needs python3 (scripts/bench/hs-report.py).
# Exit status: 0 when every part ran and passed, 1 otherwise, 77 without a
# CUDA device.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/_build}" && pwd) || exit 1
out=${OUT:-$top/_out/hs-speed}
rounds=${ROUNDS:-5}
frames=${FRAMES:-20}
sizes=${SIZES:-1920x1080}
parts=" ${PARTS:-identity speed geometry} "
mkdir -p "$out" || exit 1
bench=$build/tools/gst-cudaflow-flow-bench

if ! command -v gst-launch-1.0 >/dev/null 2>&1 && [ -f "$top/.gst-runtime/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$top/.gst-runtime/env.sh"
fi
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
export LD_LIBRARY_PATH=$build/gst-libs/gst/cudaflow/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-hs-speed-registry-$$.bin
export CK_FORK=no                 # CUDA state does not survive fork
export CK_DEFAULT_TIMEOUT=1800
command -v compute-sanitizer >/dev/null 2>&1 || export PATH=$PATH:/usr/local/cuda/bin

want() { case $parts in *" $1 "*) return 0 ;; esac; return 1; }
status=0
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv \
  > "$out/device.txt" 2>&1 || echo "no nvidia-smi" > "$out/device.txt"

# --- identity ---------------------------------------------------------
if want identity; then
  for s in cuda/hs elements/flow-gpu; do
    log=$out/identity-$(echo "$s" | tr / _).log
    (cd "$build/tests/check" && "./$s") > "$log" 2>&1
    rc=$?
    case $rc in
      0) echo "PASS  $s" ;;
      77) echo "SKIP  $s (no CUDA device)"; exit 77 ;;
      *) echo "FAIL  $s (exit $rc, $log)"; status=1 ;;
    esac
  done
fi

# --- speed ------------------------------------------------------------
configs=hs-cuda-samples,hs-cuda-samples-fp16,hs-fast,hs-fast-fp16,hs-balanced,hs-balanced-fp16
run_bench() {  # KERNEL JSON
  "$bench" --sizes "$sizes" --frames "$frames" --config "$configs" \
    --hs-kernel "$1" --json "$2" > /dev/null 2> "$2.log"
  rc=$?
  if [ $rc -eq 77 ]; then echo "SKIP  speed (no CUDA device)"; exit 77; fi
  if [ $rc -ne 0 ]; then
    echo "FAIL  bench --hs-kernel $1 (exit $rc):"; cat "$2.log"; status=1
  fi
}
if want speed; then
  rm -f "$out"/speed-*.json
  for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then order="fused fused-db"; else order="fused-db fused"; fi
    for k in $order; do
      echo "speed: round $r of $rounds, $k" >&2
      run_bench "$k" "$out/speed-$r-$k.json"
    done
  done
  # the rounds' medians and fused-db / fused, per frame and for the sweeps
  runs=$(for r in $(seq 1 "$rounds"); do
    echo "$out/speed-$r-fused.json $out/speed-$r-fused-db.json"; done)
  report() {  # FIELD
    python3 "$top/scripts/bench/hs-report.py" --label-by hs_kernel \
      --baseline fused --field "$1" $runs 2>> "$out/report.log" \
      | sed -n '/^###/,$p'
  }
  {
    echo "# Horn-Schunck: fused (old) vs fused-db (new)"
    echo
    echo "Device: $(tail -n 1 "$out/device.txt") (nvidia-smi name, max SM clock, driver)."
    echo "$rounds alternating rounds of the bench's medians of $frames frames, ms;"
    echo "ratios: fused-db / fused medians (< 1: fused-db is faster)."
    echo
    echo "## A frame (frame_ms)"
    echo
    report frame_ms
    echo
    echo "## Its sweeps (iterations_ms: the Jacobi iterations' share)"
    echo
    report iterations_ms
  } > "$out/summary.md"
  if ! grep -q '^| ' "$out/summary.md"; then
    echo "FAIL  speed summary (hs-report.py: $out/report.log)"; status=1
  fi
  cat "$out/summary.md"
fi

# --- geometry ---------------------------------------------------------
if want geometry; then
  geoms=all                     # auto and every geometry cuda/hs has
  echo "geometry: one level per size" >&2
  "$bench" --sizes 1920x1080,960x540,480x270,240x135,120x68 --frames 10 \
    --config hs-one-level,hs-one-level-fp16 --hs-kernel fused,fused-db \
    --hs-geometry "$geoms" --hs-pdl 1,0 --json "$out/geometry-levels.json" \
    --markdown "$out/geometry-levels.md" > /dev/null 2> "$out/geometry-levels.log" \
    || { echo "FAIL  geometry, levels"; cat "$out/geometry-levels.log"; status=1; }
  echo "geometry: presets" >&2
  "$bench" --sizes "$sizes" --frames 10 --config "$configs" \
    --hs-kernel fused-db --hs-geometry "$geoms" --hs-pdl 1,0 \
    --json "$out/geometry-presets.json" --markdown "$out/geometry-presets.md" \
    > /dev/null 2> "$out/geometry-presets.log" \
    || { echo "FAIL  geometry, presets"; cat "$out/geometry-presets.log"; status=1; }
  cat "$out/geometry-levels.md" "$out/geometry-presets.md" > "$out/geometry.md" 2> /dev/null
  echo "geometry: $out/geometry.md (tables per configuration; rows: size, kernel, geometry)"
fi

# --- sanitize ---------------------------------------------------------
if want sanitize; then
  for tool in racecheck memcheck; do
    log=$out/sanitize-$tool.log
    (cd "$build/tests/check" && GST_CHECKS=test_plan_simple_and_fused_identical \
      compute-sanitizer --tool "$tool" --error-exitcode 1 ./cuda/hs) > "$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then echo "PASS  $tool"; else echo "FAIL  $tool (exit $rc, $log)"; status=1; fi
  done
fi
exit $status
