#!/bin/sh
# examples/apps/flow-to-numpy.py --frames --truth on the Middlebury
# RubberWhale pair: cudaflowtvl1 at its defaults, EPE against flow10.flo
# below 0.5 px (0.22 on the CPU backend).
# SKIP (77) without the data (CUDAFLOW_DATA_DIR), without a python3 that
# has gi and numpy, or without the GstCudaFlow typelib.
seq=${CUDAFLOW_DATA_DIR:-}/middlebury/RubberWhale
if [ -z "${CUDAFLOW_DATA_DIR:-}" ] || [ ! -f "$seq/flow10.flo" ]; then
  echo "SKIP: no Middlebury data (CUDAFLOW_DATA_DIR='${CUDAFLOW_DATA_DIR:-}')"
  exit 77
fi
top_src=$(cd "$(dirname "$0")/../.." && pwd)
top_build=$(cd "${CUDAFLOW_TOOLS_DIR:-$top_src/_build/tools}/.." && pwd)
. "$top_src/tests/check/python-gi.sh"
cf_python_from_build_tree "$top_build"

out=$("$py" "$top_src/examples/apps/flow-to-numpy.py" --frames "$seq/frame10.png" \
    "$seq/frame11.png" --truth "$seq/flow10.flo" 2>&1)
rc=$?
echo "$out"
epe=$(echo "$out" | sed -n 's/^EPE \([0-9.]*\) px.*/\1/p')
if [ $rc -eq 0 ] && [ -n "$epe" ] && awk "BEGIN { exit !($epe < 0.5) }"; then
  echo "PASS: cudaflowtvl1 on RubberWhale, EPE $epe"
else
  echo "FAIL: cudaflowtvl1 on RubberWhale (exit $rc, EPE '$epe', expected < 0.5)"
  exit 1
fi
