#!/bin/sh
# The README's Python example ("Using the flow in your application") runs
# as printed, against the build tree: every valid frame of the ball shows
# motion. Skips (77) where python3-gi or the GstCudaFlow typelib is missing.
top_src=$(cd "$(dirname "$0")/../.." && pwd)
top_build=$(cd "${CUDAFLOW_TOOLS_DIR:-$top_src/_build/tools}/.." && pwd)
. "$top_src/tests/check/python-gi.sh"
cf_python_from_build_tree "$top_build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the first ```python block after the section's heading
awk '/^## Using the flow in your application/ { in_section = 1 }
     in_section && /^```python$/ { grab = 1; next }
     grab && /^```$/ { exit }
     grab { print }' "$top_src/README.md" > "$tmp/example.py"
if [ ! -s "$tmp/example.py" ]; then
  echo "FAIL: no Python example found in README.md"; exit 1
fi

"$py" "$tmp/example.py" > "$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
if [ $rc -ne 0 ]; then
  echo "FAIL: the README's Python example exited $rc"; exit 1
fi
# 10 frames, the first without an earlier one: 9 lines, each with motion
lines=$(grep -c 'max motion' "$tmp/out")
still=$(awk '/max motion/ && $NF < 0.5' "$tmp/out" | wc -l)
if [ "$lines" -eq 9 ] && [ "$still" -eq 0 ]; then
  echo "1 passed, 0 failed"
  exit 0
fi
echo "FAIL: expected 9 frames with motion, got $lines ($still still)"
exit 1
