#!/bin/sh
# Build tests/gpu/cufft-pairs.c (cuFFT's R2C + C2R time over a grid of
# transform shapes, as the FFT method's size timing measures it) with the
# CUDA toolkit a configured tree found. No GPU needed; run the binary on
# the GPU machine (it loads libcufft from the CUDA toolkit there).
#
#   tests/gpu/cufft-pairs.sh BUILD_DIR OUT_BIN
#   OUT_BIN --rows R,... --columns C,... [--reps N] [--rounds N]
#
# For instance, after tests/gpu/stage.sh _build _gpu:
#   tests/gpu/cufft-pairs.sh _build _gpu/tools/cufft-pairs
# and on the GPU machine:
#   _gpu/tools/cufft-pairs --rows 4320,4374,4500,4608 \
#       --columns 4320,4374,4500,4608 --reps 20
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_BIN" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/build-harness.sh" "$here/cufft-pairs.c" "$1" "$2" -lcufft
