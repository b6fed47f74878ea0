#!/bin/sh
# Copy what tests/gpu/run-all.sh needs from a build tree into DEST (same
# layout, no objects): the plugin, the test programs, the tools. Keeps the
# copy sent to a GPU machine small.
#   tests/gpu/stage.sh BUILD_DIR DEST_DIR
set -e
build=$(cd "${1:?build dir}" && pwd); dest=${2:?dest dir}
mkdir -p "$dest" && dest=$(cd "$dest" && pwd)
rm -rf "$dest"
lib=gst-libs/gst/cudaflow/.libs
mkdir -p "$dest/gst/.libs" "$dest/$lib" "$dest/tests/check" "$dest/tools" "$dest/examples/apps"
cp "$build/gst/.libs/libgstcudaflow.so" "$dest/gst/.libs/"
# the plugin and the programs below find it through LD_LIBRARY_PATH
# (run-all.sh sets it): their run paths name the build tree
cp -P "$build/$lib"/libgstcudaflow-1.0.so* "$dest/$lib/"
# a program linked with the shared library is a libtool wrapper script:
# copy the program it runs instead
copy_program () {  # FROM_DIR RELATIVE_PATH TO_DIR
  real="$1/$(dirname "$2")/.libs/$(basename "$2")"
  [ -f "$real" ] || real="$1/$2"
  mkdir -p "$3/$(dirname "$2")" && cp "$real" "$3/$2"
}
for p in $(cd "$build/tests/check" && find common cuda elements lib -type f -perm -u+x \
    ! -name '*.o' ! -path '*/.libs/*' 2>/dev/null); do
  copy_program "$build/tests/check" "$p" "$dest/tests/check"
done
for p in $(cd "$build/examples/apps" 2>/dev/null && find . -maxdepth 1 -type f -perm -u+x \
    ! -name '*.o' 2>/dev/null); do
  copy_program "$build/examples/apps" "${p#./}" "$dest/examples/apps"
done
for t in "$build"/tools/gst-cudaflow-* "$build"/tools/cf-*; do
  [ -x "$t" ] && [ -f "$t" ] && copy_program "$build/tools" "$(basename "$t")" "$dest/tools"
done
find "$dest" -type f -perm -u+x -exec strip -g {} \; 2>/dev/null || true
strip -g "$dest/gst/.libs/libgstcudaflow.so" 2>/dev/null || true
du -sh "$dest"
