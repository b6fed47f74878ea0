#!/bin/sh
# Set up (packages, configure, build), run the whole test suite, then
# make distcheck: the release tarball configures, builds, passes the same
# suite (docs/elements.md equal to the registry's included), installs and
# uninstalls cleanly. GPU suites skip (exit 77) on machines without an
# NVIDIA GPU.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
cd "$top/_build"
jobs=-j"$(nproc 2>/dev/null || echo 2)"

# the end of each failed test's log under $1
show_failures() {
  for log in "$1"/tests/check/*.log "$1"/tests/check/*/*.log; do
    [ -f "$log" ] || continue
    case "$log" in */test-suite.log) continue ;; esac
    if grep -q '^FAIL\|^ERROR' "${log%.log}.trs" 2>/dev/null; then
      echo "==== $log"; tail -n 60 "$log"
    fi
  done
}

if ! make $jobs check; then
  show_failures .
  exit 1
fi
if ! make $jobs distcheck; then
  show_failures "$(ls -d gst-cudaflow-*/_build/sub 2>/dev/null | head -n 1)"
  exit 1
fi
