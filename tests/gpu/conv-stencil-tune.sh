#!/bin/sh
# Build tests/gpu/conv-stencil-tune.c (strip heights of the stencil
# convolution against the direct method) against a configured and built
# tree: its static common/ and cuda/ archives, the CUDA flags and libraries
# its configure found. No GPU needed; run the binary on the GPU machine.
#
#   tests/gpu/conv-stencil-tune.sh BUILD_DIR OUT_BIN
#   OUT_BIN [--sizes WxH,...] [--ks K,...] [--reps N]
#
# For instance, after tests/gpu/stage.sh _build _gpu:
#   tests/gpu/conv-stencil-tune.sh _build _gpu/tools/conv-stencil-tune
# and on the GPU machine: _gpu/tools/conv-stencil-tune (a markdown table
# on stdout; exit status 77 without a CUDA device).
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_BIN" >&2
  exit 2
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd) || exit 2
out=$2
for a in cuda/.libs/libcfcuda.a common/.libs/libcfcommon.a; do
  if [ ! -f "$build/$a" ]; then
    echo "$0: $build/$a missing: build the tree first" >&2
    exit 1
  fi
done
cuda_cflags=$(sed -n 's/^CUDA_CFLAGS = //p' "$build/Makefile")
cuda_libs=$(sed -n 's/^CUDA_LIBS = //p' "$build/Makefile")
mkdir -p "$(dirname "$out")" || exit 1
# shellcheck disable=SC2086
${CC:-cc} -std=gnu11 -O2 -Wall -I"$top" -I"$build" $cuda_cflags \
    -c "$top/tests/gpu/conv-stencil-tune.c" -o "$out.o" || exit 1
# the archives hold C++ (nvcc) objects: link with the C++ driver; the C++
# runtime static too, so the binary runs on a host with another one
# shellcheck disable=SC2086
${CXX:-c++} -o "$out" "$out.o" "$build/cuda/.libs/libcfcuda.a" \
    "$build/common/.libs/libcfcommon.a" $cuda_libs -lm \
    -static-libstdc++ -static-libgcc || exit 1
rm -f "$out.o"
