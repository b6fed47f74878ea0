#!/bin/sh
# The evaluation and benchmark programs (tools/): cf-flow-eval through
# GStreamer on one Middlebury pair with the CPU backend (its EPE is known
# from the reference: RubberWhale 0.276 at cudaflowhs defaults), its PNGs,
# its errors; cf-flow-bench on a tiny size (skips without a GPU).
tools=${CUDAFLOW_TOOLS_DIR:-$(dirname "$0")/../../tools}
data=${CUDAFLOW_DATA_DIR:-}/middlebury
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0 skip=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

if [ -f "$data/RubberWhale/flow10.flo" ]; then
  if "$tools/cf-flow-eval" --set backend=cpu --png "$tmp/png" "$data" RubberWhale > "$tmp/eval.md" 2>&1; then
    epe=$(sed -n 's/^| RubberWhale | \([0-9.]*\) |.*/\1/p' "$tmp/eval.md")
    if [ -n "$epe" ] && awk "BEGIN{exit !($epe > 0.25 && $epe < 0.30)}"; then
      ok "cf-flow-eval RubberWhale EPE $epe"
    else
      bad "cf-flow-eval RubberWhale EPE '$epe' (expected 0.276)"; cat "$tmp/eval.md"
    fi
    if [ -s "$tmp/png/RubberWhale.png" ] && [ -s "$tmp/png/RubberWhale-truth.png" ]; then
      ok "cf-flow-eval --png"
    else
      bad "cf-flow-eval --png wrote no pictures"
    fi
  else
    bad "cf-flow-eval exit status"; cat "$tmp/eval.md"
  fi
else
  echo "SKIP: cf-flow-eval on Middlebury (no data at $data)"; skip=$((skip + 1))
fi

mkdir -p "$tmp/empty"
if "$tools/cf-flow-eval" "$tmp/empty" > "$tmp/err.txt" 2>&1; then
  bad "cf-flow-eval on an empty directory succeeded"
else
  ok "cf-flow-eval on an empty directory fails"
fi
if [ -f "$data/RubberWhale/flow10.flo" ]; then
  if "$tools/cf-flow-eval" --element nosuchelement "$data" RubberWhale > "$tmp/err.txt" 2>&1; then
    bad "cf-flow-eval with a missing element succeeded"
  elif grep -q 'nosuchelement' "$tmp/err.txt"; then
    ok "cf-flow-eval names a missing element"
  else
    bad "cf-flow-eval error does not name the element"; cat "$tmp/err.txt"
  fi
fi

"$tools/cf-flow-bench" --sizes 64x48 --frames 2 --config hs-realtime \
  --json "$tmp/b.json" > "$tmp/bench.md" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  echo "SKIP: cf-flow-bench (no GPU)"; skip=$((skip + 1))
elif [ $rc -eq 0 ] && grep -q '"config": "hs-realtime"' "$tmp/b.json" && grep -q '| 64x48 |' "$tmp/bench.md"; then
  ok "cf-flow-bench"
else
  bad "cf-flow-bench exit $rc"; cat "$tmp/bench.md"
fi
if "$tools/cf-flow-bench" --config nosuch > /dev/null 2>&1; then
  bad "cf-flow-bench accepted an unknown config"
else
  ok "cf-flow-bench rejects an unknown config"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
