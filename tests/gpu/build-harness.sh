#!/bin/sh
# Build one C harness of tests/gpu/ against a configured tree, with the
# CUDA flags and libraries its configure found. No GPU needed; run the
# binary on the GPU machine. Shared by conv-stencil-tune.sh,
# cufft-pairs.sh and tvl1-ab.sh --build.
#
#   tests/gpu/build-harness.sh [--archives] [--src SRC_DIR] HARNESS_C
#       BUILD_DIR OUT_BIN [LIB ...]
#
# --archives links the built tree's static common/ and cuda/ archives
# (which hold nvcc's C++ objects: the C++ driver links, the C++ runtime
# static, so the binary runs on a host with another one); the tree must
# then be built, not only configured. SRC_DIR (default: this tree) is
# where the harness finds the project's headers. LIB: more libraries
# (-lcufft).
set -u
archives=0
src=$(cd "$(dirname "$0")/../.." && pwd)
while [ $# -gt 0 ]; do
  case $1 in
    --archives) archives=1; shift ;;
    --src) src=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 3 ]; then
  echo "usage: $0 [--archives] [--src SRC_DIR] HARNESS_C BUILD_DIR OUT_BIN [LIB ...]" >&2
  exit 2
fi
harness=$1
build=$(cd "$2" && pwd) || exit 2
out=$3
shift 3
if [ ! -f "$build/Makefile" ]; then
  echo "$0: $build/Makefile missing: configure the tree first" >&2
  exit 1
fi
if [ $archives = 1 ]; then
  for a in cuda/.libs/libcfcuda.a common/.libs/libcfcommon.a; do
    if [ ! -f "$build/$a" ]; then
      echo "$0: $build/$a missing: build the tree first" >&2
      exit 1
    fi
  done
fi
cuda_cflags=$(sed -n 's/^CUDA_CFLAGS = //p' "$build/Makefile")
cuda_libs=$(sed -n 's/^CUDA_LIBS = //p' "$build/Makefile")
mkdir -p "$(dirname "$out")" || exit 1
if [ $archives = 0 ]; then
  # shellcheck disable=SC2086
  exec ${CC:-cc} -std=gnu11 -O2 -Wall -I"$src" -I"$build" $cuda_cflags \
      "$harness" -o "$out" $cuda_libs "$@"
fi
# shellcheck disable=SC2086
${CC:-cc} -std=gnu11 -O2 -Wall -I"$src" -I"$build" $cuda_cflags \
    -c "$harness" -o "$out.o" || exit 1
# shellcheck disable=SC2086
${CXX:-c++} -o "$out" "$out.o" "$build/cuda/.libs/libcfcuda.a" \
    "$build/common/.libs/libcfcommon.a" $cuda_libs -lm "$@" \
    -static-libstdc++ -static-libgcc || exit 1
rm -f "$out.o"
