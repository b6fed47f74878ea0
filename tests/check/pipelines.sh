#!/bin/sh
# Runs every script in examples/pipelines/ against the plugin in the build
# tree. Scripts marked "# requires: gpu" are skipped (not failed) when no
# NVIDIA GPU is visible.
dir=${CUDAFLOW_EXAMPLES_DIR:-$(dirname "$0")/../../examples/pipelines}
have_gpu=no
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  have_gpu=yes
fi
OUTDIR=$(mktemp -d)
export OUTDIR
pass=0 fail=0 skip=0
for script in "$dir"/*.sh; do
  name=$(basename "$script")
  if grep -q '^# requires: gpu' "$script" && [ "$have_gpu" = no ]; then
    echo "SKIP: $name (no GPU)"
    skip=$((skip + 1))
    continue
  fi
  if sh "$script" >"$OUTDIR/$name.log" 2>&1; then
    echo "PASS: $name"
    pass=$((pass + 1))
  else
    echo "FAIL: $name"
    sed 's/^/    /' "$OUTDIR/$name.log"
    fail=$((fail + 1))
  fi
done
rm -rf "$OUTDIR"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
