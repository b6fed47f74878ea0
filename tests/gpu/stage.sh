#!/bin/sh
# Copy what tests/gpu/run-all.sh needs from a build tree into DEST (same
# layout, no objects): the plugin, the test programs, the tools. Keeps the
# copy sent to a GPU machine small.
#   tests/gpu/stage.sh BUILD_DIR DEST_DIR
set -e
build=$(cd "${1:?build dir}" && pwd); dest=${2:?dest dir}
mkdir -p "$dest" && dest=$(cd "$dest" && pwd)
rm -rf "$dest"
mkdir -p "$dest/gst/.libs" "$dest/tests/check" "$dest/tools"
cp "$build/gst/.libs/libgstcudaflow.so" "$dest/gst/.libs/"
(cd "$build/tests/check" && find common cuda elements -type f -perm -u+x ! -name '*.o' ! -path '*/.libs/*' \
  -exec sh -c 'mkdir -p "$2/$(dirname "$1")" && cp "$1" "$2/$1"' _ {} "$dest/tests/check" \;)
for t in "$build"/tools/gst-cudaflow-* "$build"/tools/cf-*; do [ -x "$t" ] && [ -f "$t" ] && cp "$t" "$dest/tools/"; done
find "$dest" -type f -perm -u+x -exec strip -g {} \; 2>/dev/null || true
strip -g "$dest/gst/.libs/libgstcudaflow.so" 2>/dev/null || true
du -sh "$dest"
