#!/bin/sh
# The README's Python example ("Using the flow in your application") runs
# as printed, against the build tree: every valid frame of the ball shows
# motion. Skips (77) where python3-gi or the GstCudaFlow typelib is missing.
top_src=$(cd "$(dirname "$0")/../.." && pwd)
lib=${CUDAFLOW_TOOLS_DIR:-$top_src/_build/tools}/../gst-libs/gst/cudaflow
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import gi, numpy' 2>/dev/null; then python=$p; break; fi
done
if [ -z "$python" ]; then
  echo "SKIP: no python3 with gi and numpy (apt-get install python3-gi python3-numpy)"
  exit 77
fi
if [ ! -f "$lib/GstCudaFlow-1.0.typelib" ]; then
  echo "SKIP: no GstCudaFlow typelib (configured without gobject-introspection)"
  exit 77
fi

# the first ```python block after the section's heading
awk '/^## Using the flow in your application/ { in_section = 1 }
     in_section && /^```python$/ { grab = 1; next }
     grab && /^```$/ { exit }
     grab { print }' "$top_src/README.md" > "$tmp/example.py"
if [ ! -s "$tmp/example.py" ]; then
  echo "FAIL: no Python example found in README.md"; exit 1
fi

GI_TYPELIB_PATH="$lib${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}" \
LD_LIBRARY_PATH="$lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$python" "$tmp/example.py" > "$tmp/out" 2>&1
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
