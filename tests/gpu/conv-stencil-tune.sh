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
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/build-harness.sh" --archives "$here/conv-stencil-tune.c" \
    "$1" "$2"
