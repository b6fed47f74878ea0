#!/bin/sh
# examples/apps/flow-stats (built in the tree) on the moving ball: a meta
# on every frame, the first without flow, motion on the others; the field
# it reads from the meta equals the flow stream of output=flow on the same
# input, for each estimator; video without the meta, a pipeline error and
# --help.
top_src=$(cd "$(dirname "$0")/../.." && pwd)
top_build=$(cd "${CUDAFLOW_TOOLS_DIR:-$top_src/_build/tools}/.." && pwd)
app=$top_build/examples/apps/flow-stats
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
ball="videotestsrc pattern=ball num-buffers=8 ! video/x-raw,width=320,height=240"

# frame 0 "invalid", then valid lines whose max is above half a pixel
check_ball() {
  awk 'NR == 1 && $6 != "invalid" { bad = 1 }
       NR > 1 && ($6 != "valid" || $10 + 0 <= 0.5) { bad = 1 }
       END { exit bad || NR != 8 }' "$1"
}

for e in cudaflowtvl1 cudaflowhs cudaflowclg; do
  if "$app" -p "$ball ! $e output=meta ! appsink" > "$tmp/meta.txt" 2>&1 \
      && check_ball "$tmp/meta.txt"; then
    ok "$e output=meta: 8 frames, first invalid, motion on the others"
  else
    bad "$e output=meta"; cat "$tmp/meta.txt"
  fi
  if "$app" -p "$ball ! $e output=flow ! appsink" > "$tmp/flow.txt" 2>&1 \
      && cmp -s "$tmp/meta.txt" "$tmp/flow.txt"; then
    ok "$e: the meta's field equals output=flow"
  else
    bad "$e: meta and flow stream differ"; diff "$tmp/meta.txt" "$tmp/flow.txt"
  fi
done

# the default pipeline (cudaflowtvl1 on the ball, 10 frames)
if "$app" > "$tmp/default.txt" 2>&1 && [ "$(wc -l < "$tmp/default.txt")" -eq 10 ]; then
  ok "default pipeline"
else
  bad "default pipeline"; cat "$tmp/default.txt"
fi

if "$app" -p "$ball ! appsink" > "$tmp/none.txt" 2>&1; then
  bad "video without the meta accepted"
elif grep -q "has no flow meta" "$tmp/none.txt"; then
  ok "video without the meta: non-zero exit"
else
  bad "video without the meta: wrong message"; cat "$tmp/none.txt"
fi

if "$app" -p "filesrc location=$tmp/missing.mp4 ! decodebin ! appsink" \
    > "$tmp/err.txt" 2>&1; then
  bad "a pipeline error went unnoticed"
else
  ok "a pipeline error: non-zero exit"
fi

if "$app" --help > "$tmp/help.txt" 2>&1 && grep -q -- "--pipeline" "$tmp/help.txt"; then
  ok "--help"
else
  bad "--help"; cat "$tmp/help.txt"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
