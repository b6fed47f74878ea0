#!/bin/bash
# Run every test suite on a machine with an NVIDIA GPU (the GPU suites skip
# elsewhere), then compute-sanitizer memcheck/racecheck on the GPU suites,
# then the example pipelines and the tools. Logs go to $OUT (default
# _out/gpu). Speed and accuracy measurements: tests/gpu/flow-measure.sh.
#
#   tests/gpu/run-all.sh [BUILD_DIR]
#
# RUN_ALL_PARTS picks a subset (default "suites memcheck racecheck tools"),
# and RUN_ALL_MATCH (an extended regex) the suites, so that a machine with a
# per-command time limit can run it in pieces.
#
# The machine needs the CUDA driver; GStreamer comes from the system or from
# a bundle made by ../shared/gpu-host/make-gst-bundle at .gst-runtime/.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
out=${OUT:-$top/_out/gpu}
mkdir -p "$out"

if ! command -v gst-launch-1.0 >/dev/null 2>&1 && [ -f "$top/.gst-runtime/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$top/.gst-runtime/env.sh"
fi
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
# libgstcudaflow-1.0 (the plugin and the programs that link it) from the
# build tree wherever it was copied
export LD_LIBRARY_PATH=$build/gst-libs/gst/cudaflow/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-gpu-registry-$$.bin
export CK_FORK=no                 # CUDA state does not survive fork
export CK_DEFAULT_TIMEOUT=900
export CUDAFLOW_EXAMPLES_DIR=$top/examples/pipelines
[ -n "${CUDAFLOW_DATA_DIR:-}" ] || { [ -d "$top/.data" ] && export CUDAFLOW_DATA_DIR=$top/.data; }
command -v compute-sanitizer >/dev/null 2>&1 || export PATH=$PATH:/usr/local/cuda/bin

nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "no nvidia-smi" > "$out/nvidia-smi.txt"

pass=0 fail=0 skip=0
summary="$out/summary.txt"
: > "$summary"
record() {  # name rc
  case $2 in
    0) pass=$((pass + 1)); echo "PASS  $1" | tee -a "$summary" ;;
    77) skip=$((skip + 1)); echo "SKIP  $1" | tee -a "$summary" ;;
    *) fail=$((fail + 1)); echo "FAIL  $1 (exit $2)" | tee -a "$summary" ;;
  esac
}

parts=" ${RUN_ALL_PARTS:-suites memcheck racecheck tools} "
want() { case $parts in *" $1 "*) return 0 ;; esac; return 1; }

suites=$(cd "$build/tests/check" && ls lib/* common/* cuda/* elements/* 2>/dev/null | grep -v '\.\(o\|log\|trs\)$' \
  | grep -E "${RUN_ALL_MATCH:-.}" | sort)
want suites && for s in $suites; do
  [ -x "$build/tests/check/$s" ] || continue
  log="$out/$(echo "$s" | tr / _).log"
  (cd "$build/tests/check" && "./$s") > "$log" 2>&1
  record "$s" $?
done

# memory checks of everything that launches kernels; race checks of the
# shared-memory kernels on their quickest tests (racecheck is ~100x slower)
racecheck_tests=${RACECHECK_TESTS:-"cuda/convolve:test_direct_uneven_chunks_match_cpu cuda/hs:test_fused_is_bit_identical_to_simple cuda/pyramid:test_blur_matches_cpu cuda/pyramid:test_luma_range_matches_cpu cuda/flowviz: cuda/tvl1:test_fused_identical_to_steps cuda/tvl1:test_blocked_plan_identical_to_fused cuda/tvl1:test_fp16_epsilon_warm_start_and_reuse cuda/clg:test_fused_is_bit_identical_to_simple cuda/clg:test_fp16_fused_identical_to_simple cuda/convolve-methods:test_separable_long_and_one_sided_kernels"}
if command -v compute-sanitizer >/dev/null 2>&1; then
  # not the cuda/*-emu suites: they run the kernels' programs on the CPU
  # and make no CUDA call, which compute-sanitizer reports as an error
  # (exit 255, "terminated before first instrumented API call")
  want memcheck && for s in $(echo "$suites" | grep -E '^cuda/|-gpu$' | grep -v -- '-emu$'); do
    log="$out/memcheck_$(echo "$s" | tr / _).log"
    # Leaks are checked on the cuda/ suites, which create and free every
    # plan (cuFFT ones included) in one context. The element suites make a
    # GstCudaContext (a CUDA context) per element: cuFFT keeps ~7 MB of
    # per-context state from the first plan until the context is destroyed,
    # which the leak check reports although every plan was destroyed.
    case $s in cuda/*) leak=full ;; *) leak=no ;; esac
    if [ "$s" = elements/faults-gpu ]; then
      # its memory tests make allocations fail on purpose: they run without
      # reports of failed API calls, the other tests with them
      (cd "$build/tests/check" && GST_CHECKS_IGNORE='test_out_of_memory_*' \
        compute-sanitizer --tool memcheck --leak-check $leak \
        --error-exitcode 86 "./$s" && GST_CHECKS='test_out_of_memory_*' \
        compute-sanitizer --tool memcheck --leak-check $leak \
        --report-api-errors no --error-exitcode 86 "./$s") > "$log" 2>&1
    else
      (cd "$build/tests/check" && compute-sanitizer --tool memcheck --leak-check $leak \
        --error-exitcode 86 "./$s") > "$log" 2>&1
    fi
    record "memcheck $s" $?
  done
  want racecheck && for item in $racecheck_tests; do
    s=${item%%:*}; t=${item#*:}
    [ -x "$build/tests/check/$s" ] || continue
    log="$out/racecheck_$(echo "$s" | tr / _).log"
    (cd "$build/tests/check" && GST_CHECKS=$t compute-sanitizer --tool racecheck \
      --error-exitcode 86 "./$s") > "$log" 2>&1
    record "racecheck $s${t:+ ($t)}" $?
  done
else
  echo "compute-sanitizer not found: memcheck/racecheck not run" | tee -a "$summary"
fi

if want tools; then
  sh "$top/tests/check/pipelines.sh" > "$out/pipelines.log" 2>&1
  record "examples/pipelines" $?
  CUDAFLOW_TOOLS_DIR=$build/tools sh "$top/tests/check/tools.sh" > "$out/tools.log" 2>&1
  record "tools (gst-cudaflow-*)" $?
fi

echo "$pass passed, $fail failed, $skip skipped" | tee -a "$summary"
# one archive of every log (the failing ones are what matters)
tar -C "$out" -czf "$out/../gpu-logs.tar.gz" . 2>/dev/null || true
[ "$fail" -eq 0 ]
