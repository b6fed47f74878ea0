#!/bin/sh
# examples/apps/flow-to-numpy.py (GstCudaFlow through introspection, the
# build tree's typelib) on the moving ball: the same lines as flow-stats
# (both read the same fields), --save, video without the meta. SKIP (77)
# when no python3 has gi and numpy, or without the GstCudaFlow typelib
# (configured without introspection).
top_src=$(cd "$(dirname "$0")/../.." && pwd)
top_build=$(cd "${CUDAFLOW_TOOLS_DIR:-$top_src/_build/tools}/.." && pwd)
. "$top_src/tests/check/python-gi.sh"
cf_python_from_build_tree "$top_build"
apps_src=$top_src/examples/apps
app=$top_build/examples/apps/flow-stats
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
numpy_app="$py $apps_src/flow-to-numpy.py"

if $numpy_app -n 8 --save "$tmp/last.npy" > "$tmp/py.txt" 2>&1 \
    && "$app" -n 8 > "$tmp/c.txt" 2>&1; then
  ok "flow-to-numpy.py and flow-stats run"
else
  bad "flow-to-numpy.py or flow-stats failed"; cat "$tmp/py.txt" "$tmp/c.txt"
fi
# the words equal, mean and max ($8, $10) within rounding (other sum order)
if paste -d '\n' "$tmp/py.txt" "$tmp/c.txt" | awk '
    NR % 2 == 1 { na = split ($0, a); next }
    { n = split ($0, b); if (n != na) bad = 1
      for (i = 1; i <= n; i++)
        if (i == 8 || i == 10) { d = b[i] - a[i]; if (d > 2e-4 || d < -2e-4) bad = 1 }
        else if (b[i] != a[i]) bad = 1 }
    END { exit bad || NR != 16 }'; then
  ok "flow-to-numpy.py prints what flow-stats prints"
else
  bad "flow-to-numpy.py and flow-stats differ"; diff "$tmp/py.txt" "$tmp/c.txt"
fi
if "$py" -c '
import sys, numpy
a = numpy.load (sys.argv[1])
assert a.shape == (240, 320, 2) and a.dtype == numpy.float32, a.shape
m = float (sys.argv[2])
assert abs (numpy.linalg.norm (a.astype (numpy.float64), axis=2).max () - m) < 2e-4
' "$tmp/last.npy" "$(tail -n 1 "$tmp/py.txt" | awk '{ print $10 }')"; then
  ok "--save: the last field, 240x320x2 float32"
else
  bad "--save"
fi

if $numpy_app -p "videotestsrc num-buffers=2 ! appsink name=sink" \
    > "$tmp/none.txt" 2>&1; then
  bad "video without the meta accepted"
elif grep -q "has no flow meta" "$tmp/none.txt"; then
  ok "video without the meta: non-zero exit"
else
  bad "video without the meta: wrong message"; cat "$tmp/none.txt"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
