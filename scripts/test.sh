#!/bin/sh
# Set up (packages, configure, build) and run the whole test suite.
# GPU suites skip (exit 77) on machines without an NVIDIA GPU.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
cd "$top/_build"
if ! make -j"$(nproc 2>/dev/null || echo 2)" check; then
  for log in tests/check/*.log tests/check/*/*.log; do
    [ -f "$log" ] || continue
    case "$log" in */test-suite.log) continue ;; esac
    if grep -q '^FAIL\|^ERROR' "${log%.log}.trs" 2>/dev/null; then
      echo "==== $log"; tail -n 60 "$log"
    fi
  done
  exit 1
fi
