#!/bin/bash
# Convolution timings on a GPU machine, ours beside the vendor libraries:
# every method of cuda/convolve.h (tools/gst-cudaflow-conv-bench), then
# cuDNN, cuFFT and NPP on the same sizes and kernels
# (scripts/bench/conv-baselines.py, needs Python 3 with PyTorch; NPP through
# ctypes), merged into one table and one plot per size
# (scripts/bench/conv-report.py). No GStreamer needed.
# Results go to $OUT (default _out/conv): ours.json/.md/.log,
# baselines.json/.md/.log, report.md, conv-WxH.svg, nvidia-smi.txt.
#
#   tests/gpu/conv-measure.sh [BUILD_DIR]
#
# SIZES (default 4096x4096,1920x1080), KS (3,7,15,31,63,127) and REPS (20)
# change what is timed; PYTHON picks the interpreter (python3).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
out=${OUT:-$top/_out/conv}
sizes=${SIZES:-4096x4096,1920x1080}
ks=${KS:-3,7,15,31,63,127}
reps=${REPS:-20}
python=${PYTHON:-python3}
bench=$top/scripts/bench
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "no nvidia-smi" > "$out/nvidia-smi.txt"

status=0
inputs=()
"$build/tools/gst-cudaflow-conv-bench" --sizes "$sizes" --ks "$ks" \
  --reps "$reps" --json "$out/ours.json" --markdown "$out/ours.md" \
  > /dev/null 2> "$out/ours.log"
rc=$?
case $rc in
  0) inputs+=("$out/ours.json") ;;
  77) echo "gst-cudaflow-conv-bench: no GPU (see $out/ours.log)"; status=77 ;;
  *) echo "gst-cudaflow-conv-bench failed (exit $rc), see $out/ours.log"; status=1
     [ -s "$out/ours.json" ] && inputs+=("$out/ours.json") ;;
esac

"$python" "$bench/conv-baselines.py" --sizes "$sizes" --ks "$ks" --reps "$reps" \
  --json "$out/baselines.json" --markdown "$out/baselines.md" > /dev/null \
  2> "$out/baselines.log"
rc=$?
case $rc in
  0) inputs+=("$out/baselines.json") ;;
  77) echo "conv-baselines.py: no GPU visible to torch (see $out/baselines.log)" ;;
  *) echo "conv-baselines.py failed (exit $rc), see $out/baselines.log"; status=1
     [ -s "$out/baselines.json" ] && inputs+=("$out/baselines.json") ;;
esac
# baselines that were skipped say why
grep -E 'unavailable|skipped|cannot' "$out/baselines.log" || true

if [ ${#inputs[@]} -gt 0 ]; then
  if "$python" "$bench/conv-report.py" --markdown "$out/report.md" \
      --svg-dir "$out" "${inputs[@]}" 2> "$out/report.log"; then
    cat "$out/report.md"
  else
    echo "conv-report.py failed, see $out/report.log"; status=1
  fi
fi
echo "results in $out"
exit $status
