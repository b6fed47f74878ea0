#!/bin/sh
# Strip heights of the stencil convolution against the direct method on a
# GPU machine: builds tests/gpu/conv-stencil-tune.c against a configured
# and built tree (its static common/ and cuda/ archives, the CUDA flags
# and libraries its configure found) and runs it; the markdown table goes
# to stdout and to $OUT/stencil-tune.md (default _out/conv).
#
#   tests/gpu/conv-stencil-tune.sh [BUILD_DIR] [-- HARNESS_ARGS...]
#
# HARNESS_ARGS: --sizes WxH,... --ks K,... --reps N (defaults
# 4096x4096,1920x1080, 3,5,7, 50). Exit status: the harness's (77 without
# a CUDA device), 1 when the build fails.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/_build
if [ $# -gt 0 ] && [ "$1" != -- ]; then
  build=$(cd "$1" && pwd) || exit 2
  shift
fi
[ "${1:-}" = -- ] && shift
out=${OUT:-$top/_out/conv}
mkdir -p "$out" || exit 1
for a in cuda/.libs/libcfcuda.a common/.libs/libcfcommon.a; do
  if [ ! -f "$build/$a" ]; then
    echo "$0: $build/$a missing: build the tree first" >&2
    exit 1
  fi
done
cuda_cflags=$(sed -n 's/^CUDA_CFLAGS = //p' "$build/Makefile")
cuda_libs=$(sed -n 's/^CUDA_LIBS = //p' "$build/Makefile")
bin=$out/conv-stencil-tune
# shellcheck disable=SC2086
${CC:-cc} -std=gnu11 -O2 -Wall -I"$top" -I"$build" $cuda_cflags \
    -c "$top/tests/gpu/conv-stencil-tune.c" -o "$bin.o" || exit 1
# the archives hold C++ (nvcc) objects: link with the C++ driver
# shellcheck disable=SC2086
${CXX:-c++} -o "$bin" "$bin.o" "$build/cuda/.libs/libcfcuda.a" \
    "$build/common/.libs/libcfcommon.a" $cuda_libs -lm \
    -static-libstdc++ -static-libgcc || exit 1
rm -f "$bin.o"
"$bin" "$@" > "$out/stencil-tune.md"
rc=$?
cat "$out/stencil-tune.md"
exit $rc
