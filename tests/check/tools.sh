#!/bin/sh
# The evaluation and benchmark programs (tools/, installed as
# gst-cudaflow-*): --help, -h and an unknown option for each;
# gst-cudaflow-flow-eval through GStreamer on one Middlebury pair with the
# CPU backend (its EPE is known from the reference: RubberWhale 0.276 at
# cudaflowhs 5 levels x 500 iterations), its PNGs, its errors; gst-cudaflow-flow-bench and
# gst-cudaflow-conv-bench on a tiny size (skip without a GPU);
# gst-cudaflow-flow-frontier on a tiny grid and two synthetic pairs without
# timing (its JSON, markdown and SVG, and its Pareto set recomputed here),
# with timing where there is a GPU; gst-cudaflow-streams on a JPEG clip
# with the CPU backend (loops, counts, checks the flow, writes its outputs);
# scripts/bench/conv-report.py on a made-up pair of result files and
# scripts/bench/hs-report.py on made-up rounds of two builds.
tools=${CUDAFLOW_TOOLS_DIR:-$(dirname "$0")/../../tools}
bench_scripts=$(dirname "$0")/../../scripts/bench
peers=$(dirname "$0")/../../tools/flow-frontier-peers.txt
data=${CUDAFLOW_DATA_DIR:-}/middlebury
tmp=$(mktemp -d)
# the report scripts import their modules: no __pycache__ in the source tree
export PYTHONDONTWRITEBYTECODE=1
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0 skip=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

# the command-line conventions (tools/args-util.h): help on stdout with
# exit 0, a usage error as one line and a hint on stderr with exit 2
for t in gst-cudaflow-flow-eval gst-cudaflow-ref-eval gst-cudaflow-flow-bench \
    gst-cudaflow-conv-bench gst-cudaflow-conv-accuracy gst-cudaflow-synth \
    gst-cudaflow-flow-frontier gst-cudaflow-streams; do
  for h in --help -h; do
    "$tools/$t" $h > "$tmp/help.out" 2> "$tmp/help.err"
    rc=$?
    # usage, the options and an example, on stdout
    if [ $rc -eq 0 ] && grep -q '^Usage' "$tmp/help.out" \
        && grep -q -- '-h, --help' "$tmp/help.out" \
        && grep -q '^Example' "$tmp/help.out" \
        && grep -q "^  $t " "$tmp/help.out"; then
      ok "$t $h"
    else
      bad "$t $h (exit $rc)"; cat "$tmp/help.out" "$tmp/help.err"
    fi
  done
  "$tools/$t" --no-such-option > "$tmp/opt.out" 2> "$tmp/opt.err"
  rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/opt.out" ] \
      && [ "$(wc -l < "$tmp/opt.err")" -eq 2 ] \
      && grep -q -- '--no-such-option' "$tmp/opt.err" \
      && grep -q -- "$t --help" "$tmp/opt.err"; then
    ok "$t rejects an unknown option"
  else
    bad "$t --no-such-option (exit $rc)"; cat "$tmp/opt.out" "$tmp/opt.err"
  fi
done

# gst-cudaflow-synth: a scene with known motion that flow-eval reads; the
# estimate must find the motion it was given (a 3 px translation); a
# smooth field of 20 px is written too
if "$tools/gst-cudaflow-synth" --size 96x64 --amount 3 "$tmp/scenes/shift" \
    && "$tools/gst-cudaflow-synth" --motion smooth --amount 20 --size 160x120 \
        "$tmp/scenes/large" \
    && [ -s "$tmp/scenes/large/flow10.flo" ] \
    && [ -s "$tmp/scenes/shift/frame10.png" ] && [ -s "$tmp/scenes/shift/frame11.png" ] \
    && [ "$(wc -c < "$tmp/scenes/shift/flow10.flo")" -eq $((12 + 96 * 64 * 8)) ]; then
  ok "gst-cudaflow-synth writes a Middlebury pair"
  if "$tools/gst-cudaflow-flow-eval" --element cudaflowtvl1 --set backend=cpu \
      "$tmp/scenes" shift > "$tmp/synth.md" 2>&1; then
    epe=$(sed -n 's/^| shift | \([0-9.]*\) |.*/\1/p' "$tmp/synth.md")
    if [ -n "$epe" ] && awk "BEGIN{exit !($epe < 0.15)}"; then
      ok "cudaflowtvl1 finds the synthetic 3 px shift (EPE $epe)"
    else
      bad "cudaflowtvl1 on the synthetic shift: EPE '$epe'"; cat "$tmp/synth.md"
    fi
  else
    bad "gst-cudaflow-flow-eval on the synthetic scene"; cat "$tmp/synth.md"
  fi
else
  bad "gst-cudaflow-synth"
fi
"$tools/gst-cudaflow-synth" --motion spin "$tmp/x" 2> "$tmp/synth.err"
if [ $? -eq 2 ] && grep -q "unknown motion 'spin'" "$tmp/synth.err"; then
  ok "gst-cudaflow-synth rejects an unknown motion"
else
  bad "gst-cudaflow-synth --motion spin"; cat "$tmp/synth.err"
fi
# gst-cudaflow-ref-eval says why it refuses a setting, in the table's words
"$tools/gst-cudaflow-ref-eval" --method tvl1 --set lambda-per-level=0.4,0 \
  "$tmp/scenes" > /dev/null 2> "$tmp/ref.err"
if [ $? -eq 2 ] \
    && grep -q 'lambda per level: entry 2 "0" is not a number' "$tmp/ref.err"; then
  ok "gst-cudaflow-ref-eval names the reason for a refused setting"
else
  bad "gst-cudaflow-ref-eval --set lambda-per-level=0.4,0"; cat "$tmp/ref.err"
fi
# gst-cudaflow-ref-eval's defaults are the element's: the same EPE and AAE
# as the element's CPU backend on a pair large enough for 6 levels (every
# element's default; the generic pyramid default of 5 gives other numbers)
if "$tools/gst-cudaflow-synth" --size 544x512 --amount 40 --wavelength 40 \
    --seed 3 "$tmp/deep/t40" > /dev/null; then
  # and a preset of each, set by name (levels among its settings)
  for run in "hs" "tvl1" "clg" "hs preset=romera" "tvl1 preset=fast" \
      "clg preset=config-b"; do
    m=${run%% *} set=
    [ "$m" = "$run" ] || set="--set ${run#* }"
    ref=$("$tools/gst-cudaflow-ref-eval" --method $m $set "$tmp/deep" 2>&1 |
        sed -n 's/^| t40 | \([0-9.]*\) | \([0-9.]*\) |.*/\1 \2/p')
    el=$("$tools/gst-cudaflow-flow-eval" --element cudaflow$m $set \
        --set backend=cpu "$tmp/deep" 2>&1 |
        sed -n 's/^| t40 | \([0-9.]*\) | \([0-9.]*\) |.*/\1 \2/p')
    if [ -n "$ref" ] && [ "$ref" = "$el" ]; then
      ok "gst-cudaflow-ref-eval --method $m${set:+ $set} gives cudaflow$m's flow (EPE, AAE $ref)"
    else
      bad "gst-cudaflow-ref-eval --method $m${set:+ $set}: '$ref', cudaflow$m backend=cpu: '$el'"
    fi
  done
else
  bad "gst-cudaflow-synth --size 544x512"
fi
# --wavelength and --seed change the texture: another file, same size
if "$tools/gst-cudaflow-synth" --size 96x64 --amount 3 --wavelength 30 \
    --seed 7 "$tmp/scenes/long" \
    && [ "$(wc -c < "$tmp/scenes/long/flow10.flo")" -eq $((12 + 96 * 64 * 8)) ] \
    && ! cmp -s "$tmp/scenes/long/frame10.png" "$tmp/scenes/shift/frame10.png"; then
  ok "gst-cudaflow-synth --wavelength --seed"
else
  bad "gst-cudaflow-synth --wavelength 30 --seed 7"
fi
"$tools/gst-cudaflow-synth" --wavelength 2 "$tmp/x" 2> "$tmp/synth.err"
if [ $? -eq 2 ] && grep -q "wavelength '2' is not 4..1000" "$tmp/synth.err"; then
  ok "gst-cudaflow-synth rejects a wavelength below 4 px"
else
  bad "gst-cudaflow-synth --wavelength 2"; cat "$tmp/synth.err"
fi
# --motion-blur, --gain, --bias and --noise change both frames, not the flow
if "$tools/gst-cudaflow-synth" --size 96x64 --amount 3 --motion-blur 0.5 \
    --gain 0.9 --bias 10 --noise 2 "$tmp/degraded" \
    && cmp -s "$tmp/degraded/flow10.flo" "$tmp/scenes/shift/flow10.flo" \
    && ! cmp -s "$tmp/degraded/frame10.png" "$tmp/scenes/shift/frame10.png" \
    && ! cmp -s "$tmp/degraded/frame11.png" "$tmp/scenes/shift/frame11.png"; then
  ok "gst-cudaflow-synth --motion-blur --gain --bias --noise"
else
  bad "gst-cudaflow-synth --motion-blur 0.5 --gain 0.9 --bias 10 --noise 2"
fi
"$tools/gst-cudaflow-synth" --motion-blur 1.5 "$tmp/x" 2> "$tmp/synth.err"
if [ $? -eq 2 ] && grep -q "motion-blur '1.5' is not 0..1" "$tmp/synth.err"; then
  ok "gst-cudaflow-synth rejects a motion blur beyond the frame interval"
else
  bad "gst-cudaflow-synth --motion-blur 1.5"; cat "$tmp/synth.err"
fi

if [ -f "$data/RubberWhale/flow10.flo" ]; then
  if "$tools/gst-cudaflow-flow-eval" --set backend=cpu --set levels=5 \
      --set iterations=500 --png "$tmp/png" \
      "$data" RubberWhale > "$tmp/eval.md" 2>&1; then
    epe=$(sed -n 's/^| RubberWhale | \([0-9.]*\) |.*/\1/p' "$tmp/eval.md")
    if [ -n "$epe" ] && awk "BEGIN{exit !($epe > 0.25 && $epe < 0.30)}"; then
      ok "gst-cudaflow-flow-eval RubberWhale EPE $epe"
    else
      bad "gst-cudaflow-flow-eval RubberWhale EPE '$epe' (expected 0.276)"; cat "$tmp/eval.md"
    fi
    if [ -s "$tmp/png/RubberWhale.png" ] && [ -s "$tmp/png/RubberWhale-truth.png" ]; then
      ok "gst-cudaflow-flow-eval --png"
    else
      bad "gst-cudaflow-flow-eval --png wrote no pictures"
    fi
  else
    bad "gst-cudaflow-flow-eval exit status"; cat "$tmp/eval.md"
  fi
else
  echo "SKIP: gst-cudaflow-flow-eval on Middlebury (no data at $data)"; skip=$((skip + 1))
fi

mkdir -p "$tmp/empty"
if "$tools/gst-cudaflow-flow-eval" "$tmp/empty" > "$tmp/err.txt" 2>&1; then
  bad "gst-cudaflow-flow-eval on an empty directory succeeded"
else
  ok "gst-cudaflow-flow-eval on an empty directory fails"
fi

if [ -f "$data/RubberWhale/flow10.flo" ]; then
  if "$tools/gst-cudaflow-flow-eval" --element nosuchelement "$data" RubberWhale \
      > "$tmp/err.txt" 2>&1; then
    bad "gst-cudaflow-flow-eval with a missing element succeeded"
  elif grep -q 'nosuchelement' "$tmp/err.txt"; then
    ok "gst-cudaflow-flow-eval names a missing element"
  else
    bad "gst-cudaflow-flow-eval error does not name the element"; cat "$tmp/err.txt"
  fi
fi

"$tools/gst-cudaflow-flow-bench" --sizes 64x48 --frames 2 --config hs-realtime \
  --json "$tmp/b.json" > "$tmp/bench.md" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  echo "SKIP: gst-cudaflow-flow-bench (no GPU)"; skip=$((skip + 1))
elif [ $rc -eq 0 ] && grep -q '"config": "hs-realtime"' "$tmp/b.json" && grep -q '| 64x48 |' "$tmp/bench.md"; then
  ok "gst-cudaflow-flow-bench"
else
  bad "gst-cudaflow-flow-bench exit $rc"; cat "$tmp/bench.md"
fi
"$tools/gst-cudaflow-flow-bench" --config nosuch > /dev/null 2>&1
rc=$?
if [ $rc -eq 2 ]; then
  ok "gst-cudaflow-flow-bench rejects an unknown config"
else
  bad "gst-cudaflow-flow-bench --config nosuch exit $rc (expected 2)"
fi
"$tools/gst-cudaflow-flow-bench" --hs-geometry 32x32-k8,nosuch > /dev/null 2>&1
rc=$?
if [ $rc -eq 2 ]; then
  ok "gst-cudaflow-flow-bench rejects an unknown geometry"
else
  bad "gst-cudaflow-flow-bench --hs-geometry 32x32-k8,nosuch exit $rc (expected 2)"
fi
# --hs-geometry all: one run per geometry --help names (and auto)
n_geom=$("$tools/gst-cudaflow-flow-bench" --help 2> /dev/null |
  tr -d '\n' | sed -n 's/.*region geometries (\([^;)]*\)[;)].*/\1/p' | tr ',' '\n' | grep -c .)
"$tools/gst-cudaflow-flow-bench" --sizes 64x48 --frames 1 --config hs-one-level \
  --hs-geometry all --json "$tmp/ball.json" > /dev/null 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  echo "SKIP: gst-cudaflow-flow-bench --hs-geometry all (no GPU)"; skip=$((skip + 1))
elif [ $rc -eq 0 ] && [ "$n_geom" -ge 2 ] &&
    [ "$(grep -o '"hs_geometry": "[^"]*"' "$tmp/ball.json" | sort -u | grep -c .)" -eq "$n_geom" ]; then
  ok "gst-cudaflow-flow-bench --hs-geometry all ($n_geom geometries)"
else
  bad "gst-cudaflow-flow-bench --hs-geometry all: exit $rc, $n_geom geometries in --help"
  cat "$tmp/ball.json" 2> /dev/null
fi

# gst-cudaflow-flow-frontier: a 2 x 2 grid of cudaflowtvl1 settings, a
# preset point and a refused one, on two synthetic pairs, accuracy only
fr=$tmp/frontier
if "$tools/gst-cudaflow-synth" --size 64x48 --amount 2 "$fr/synth/shift" \
    && "$tools/gst-cudaflow-synth" --size 64x48 --motion smooth --amount 3 \
        "$fr/synth/smooth"; then
  "$tools/gst-cudaflow-flow-frontier" --element cudaflowtvl1 --no-time \
    --sizes 320x240 --set levels=1,3 --set iterations=5,30 \
    --point 'preset=romera warps=2' --point 'use-previous-flow=true' \
    --data "$fr/synth" --peers "$peers" --json "$fr/f.json" \
    --markdown "$fr/f.md" --svg "$fr/f.svg" > "$fr/front.md" 2> "$fr/err.txt"
  rc=$?
  if [ $rc -eq 0 ] && [ -s "$fr/f.json" ] && [ -s "$fr/f.md" ] && [ -s "$fr/f.svg" ] \
      && grep -q '^| # | Mpx-it | EPE | AAE | settings |$' "$fr/front.md"; then
    ok "gst-cudaflow-flow-frontier --no-time writes JSON, markdown and SVG"
  else
    bad "gst-cudaflow-flow-frontier --no-time exit $rc"; cat "$fr/front.md" "$fr/err.txt"
  fi
  if command -v python3 > /dev/null 2>&1; then
    # the Pareto set recomputed from the JSON's numbers, the cost model
    # from the level sizes, the preset as the element applied it, and the
    # structure of the three files
    if python3 - "$fr" > "$fr/check.txt" 2>&1 <<'EOF'
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
j = json.load(open(d + "/f.json"))
pts = j["points"]
assert j["cost"] == "pixel-iterations" and j["device"] is None, j["cost"]
assert [p["label"] for p in pts] == [
    "levels=1 iterations=5", "levels=1 iterations=30",
    "levels=3 iterations=5", "levels=3 iterations=30",
    "preset=romera warps=2", "use-previous-flow=true"], pts
ok = [p for p in pts if p["status"] == "ok"]
assert len(ok) == 5, [p["status"] for p in pts]
assert pts[5]["status"] == "refused" and "use-previous-flow" in pts[5]["reason"]
# pixels of the levels used x warps (the default warps-per-level: 1 on the
# finest level, 2 on the others) x iterations
assert pts[0]["cost"] == 320 * 240 * 1 * 5, pts[0]["cost"]
assert pts[2]["cost"] == (320 * 240 * 1 + (160 * 120 + 80 * 60) * 2) * 5, pts[2]
c = pts[4]["config"]
assert (c["levels"], c["warps"], c["iterations"], c["epsilon"]) == (3, 2, 10, 0), c
for p in ok:
    assert p["epe"] == [a["epe"] for a in p["accuracy"]
                        if a["data"] == j["rank_by"]][0], p
    # the cheapest point, one warp of 5 iterations on one level, stays
    # near 1 px on this pair
    assert 0 < p["epe"] < 1.5, p
front = sorted(p["index"] for p in ok if not any(
    q is not p and q["cost"] <= p["cost"] and q["epe"] <= p["epe"]
    and (q["cost"] < p["cost"] or q["epe"] < p["epe"]) for q in ok))
assert front, "empty front"
assert front == sorted(p["index"] for p in pts if p["pareto"]), front
assert front == sorted(j["pareto"]), (front, j["pareto"])
costs = [next(p["cost"] for p in pts if p["index"] == i) for i in j["pareto"]]
assert costs == sorted(costs), "the Pareto list is not cheapest first"
assert len(j["peers"]) == 5 and j["peers"][2]["ms"] is None, j["peers"]
rows = [l for l in open(d + "/f.md").read().splitlines()
        if l.startswith("| ") and l[2].isdigit()]
assert len(rows) == 6, rows
marked = sorted(int(l.split("|")[1]) for l in rows if "**yes**" in l)
assert marked == front, marked
assert "refused: use-previous-flow" in rows[5], rows[5]
svg = ET.parse(d + "/f.svg").getroot()
ns = "{http://www.w3.org/2000/svg}"
assert svg.tag == ns + "svg", svg.tag
assert len(svg.findall(ns + "circle")) == 5
assert len(svg.findall(ns + "polyline")) == 1
texts = " ".join(t.text or "" for t in svg.iter(ns + "text"))
assert "NVOF FAST" in texts and "DeepFlow" in texts, texts
print("front", front)
EOF
    then
      ok "gst-cudaflow-flow-frontier Pareto set, cost model, preset and files ($(cat "$fr/check.txt"))"
    else
      bad "gst-cudaflow-flow-frontier output"; cat "$fr/check.txt" "$fr/f.json"
    fi
  else
    echo "SKIP: gst-cudaflow-flow-frontier output check (no python3)"; skip=$((skip + 1))
  fi
else
  bad "gst-cudaflow-synth for the frontier"
fi
"$tools/gst-cudaflow-flow-frontier" --element cudaflowtvl1 --set levels=40 \
  --data "$fr/synth" --no-time > /dev/null 2> "$fr/usage.txt"
rc=$?
if [ $rc -eq 2 ] && grep -q 'levels=40 is not a valid value (1 \.\. 16)' "$fr/usage.txt"; then
  ok "gst-cudaflow-flow-frontier rejects an out-of-range setting"
else
  bad "gst-cudaflow-flow-frontier --set levels=40 exit $rc (expected 2)"; cat "$fr/usage.txt"
fi
# TV-L1's per-level lists reach the work model (320x240 + 160x120 x 2 x 10
# + 80x60 x 2 x 20 = 960000) and the JSON; a list that does not parse
# refuses its point with the reason
"$tools/gst-cudaflow-flow-frontier" --element cudaflowtvl1 --no-time \
  --sizes 320x240 --point 'levels=3 epsilon=0 warps-per-level=1,2 iterations-per-level=5,10,20' \
  --point 'iterations-per-level=5,0' --data "$fr/synth" --json "$fr/pl.json" \
  > /dev/null 2> "$fr/pl.txt"
rc=$?
if [ $rc -eq 0 ] && grep -q '"pixel_iterations": 960000,' "$fr/pl.json" \
    && grep -q '"warps_per_level": \[1, 2, 2\], "iterations_per_level": \[5, 10, 20\]' "$fr/pl.json" \
    && grep -q 'refused: iterations-per-level: .*entry 2 "0"' "$fr/pl.txt"; then
  ok "gst-cudaflow-flow-frontier honours and checks TV-L1's per-level lists"
else
  bad "gst-cudaflow-flow-frontier per-level lists exit $rc"; cat "$fr/pl.txt" "$fr/pl.json"
fi
"$tools/gst-cudaflow-flow-frontier" --element cudaflowhs --sizes 64x48 \
  --frames 2 --set iterations=5 --data "$fr/synth" --json "$fr/t.json" \
  > /dev/null 2> "$fr/time.txt"
rc=$?
if [ $rc -eq 77 ] && grep -q -- '--no-time' "$fr/time.txt"; then
  ok "gst-cudaflow-flow-frontier without a GPU exits 77 and names --no-time"
elif [ $rc -eq 0 ] && grep -q '"cost": "ms"' "$fr/t.json" \
    && grep -q '"frame_ms": [0-9]' "$fr/t.json"; then
  ok "gst-cudaflow-flow-frontier times on the GPU"
else
  bad "gst-cudaflow-flow-frontier with timing exit $rc"; cat "$fr/time.txt"
fi

"$tools/gst-cudaflow-conv-bench" --sizes 64x48 --ks 3 --reps 2 \
  --json "$tmp/c.json" > "$tmp/conv.md" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  echo "SKIP: gst-cudaflow-conv-bench (no GPU)"; skip=$((skip + 1))
elif [ $rc -eq 0 ] && grep -q '"impl": "ours-direct", "width": 64, "height": 48, "k": 3,' "$tmp/c.json" \
    && grep -q '| 64x48 | 3 | ours-direct |' "$tmp/conv.md"; then
  ok "gst-cudaflow-conv-bench"
else
  bad "gst-cudaflow-conv-bench exit $rc"; cat "$tmp/conv.md"
fi
"$tools/gst-cudaflow-conv-bench" --methods nosuch > /dev/null 2>&1
rc=$?
if [ $rc -eq 2 ]; then
  ok "gst-cudaflow-conv-bench rejects an unknown method"
else
  bad "gst-cudaflow-conv-bench --methods nosuch exit $rc (expected 2)"
fi

# gst-cudaflow-streams: two looped pipelines on the CPU backend (a still
# picture: the flow is zero, and a check against a wrong motion must see
# it), the JSON line and the markdown row
st=$tmp/streams; mkdir -p "$st"
if gst-launch-1.0 -q videotestsrc pattern=smpte num-buffers=12 ! \
    video/x-raw,width=96,height=64,framerate=30/1 ! jpegenc quality=95 ! \
    qtmux ! filesink location="$st/still.mp4" 2> "$st/make.err"; then
  for expect in 0,0 5,0; do
    "$tools/gst-cudaflow-streams" --clip "$st/still.mp4" --decoder jpegdec \
      --element 'cudaflowtvl1 backend=cpu preset=fast' --streams 2 \
      --seconds 1 --warmup 0.3 --expect-flow $expect --border 8 \
      --check-every 2 --json "$st/r.json" --markdown "$st/r.md" \
      > "$st/out-$expect.txt" 2>&1
    echo "exit $?" >> "$st/out-$expect.txt"
  done
  epe0=$(sed -n 's/.*median EPE \([0-9.]*\) px.*/\1/p' "$st/out-0,0.txt")
  epe5=$(sed -n 's/.*median EPE \([0-9.]*\) px.*/\1/p' "$st/out-5,0.txt")
  # 12 frames a pass: a second of 2 streams loops many times
  frames=$(sed -n '1s/.*"frames": \([0-9]*\),.*/\1/p' "$st/r.json")
  if grep -q 'exit 0' "$st/out-0,0.txt" && grep -q 'exit 0' "$st/out-5,0.txt" \
      && awk -v a="$epe0" -v b="$epe5" 'BEGIN { exit !(a != "" && a < 0.1 && b > 4.5) }' \
      && [ "$(wc -l < "$st/r.json")" -eq 2 ] && [ "${frames:-0}" -gt 48 ] \
      && grep -q '"streams": 2, "context": "elements"' "$st/r.json" \
      && [ "$(grep -c '^| cudaflowtvl1 backend=cpu preset=fast | 2 |' "$st/r.md")" -eq 2 ]; then
    ok "gst-cudaflow-streams loops, counts and checks the flow (EPE $epe0 / $epe5, $frames frames)"
  else
    bad "gst-cudaflow-streams on the CPU"; cat "$st"/out-*.txt "$st/r.json" "$st/r.md"
  fi
  "$tools/gst-cudaflow-streams" --clip "$st/still.mp4" --decoder jpegdec \
    --element 'nosuchelement' > "$st/bad.txt" 2>&1
  rc=$?
  if [ $rc -eq 1 ] && grep -q 'nosuchelement' "$st/bad.txt"; then
    ok "gst-cudaflow-streams reports a pipeline it cannot build"
  else
    bad "gst-cudaflow-streams with a missing element exit $rc"; cat "$st/bad.txt"
  fi
else
  echo "SKIP: gst-cudaflow-streams (no jpegenc/qtmux)"; skip=$((skip + 1))
fi


# conv-report.py: one size, two kernel sides, ours and a vendor, one n/a
if command -v python3 > /dev/null 2>&1; then
  cat > "$tmp/ours.json" <<'EOF'
{"device": "Test GPU (1 SMs)", "tool": "gst-cudaflow-conv-bench", "border": "zero", "reps": 2,
 "results": [
  {"impl": "ours-direct", "width": 64, "height": 48, "k": 3, "kernel": "random", "status": "ok", "median_ms": 0.25, "min_ms": 0.2, "note": ""},
  {"impl": "ours-direct", "width": 64, "height": 48, "k": 7, "kernel": "random", "status": "ok", "median_ms": 1.5, "min_ms": 1.4, "note": ""},
  {"impl": "ours-im2tensor", "width": 64, "height": 48, "k": 3, "kernel": "random", "status": "n/a", "median_ms": null, "min_ms": null, "note": "not built"}]}
EOF
  cat > "$tmp/vendor.json" <<'EOF'
{"device": "Test GPU (1 SMs)", "tool": "conv-baselines.py", "reps": 2,
 "results": [
  {"impl": "cudnn", "width": 64, "height": 48, "k": 3, "kernel": "random", "status": "ok", "median_ms": 0.5, "min_ms": 0.4, "note": ""},
  {"impl": "cudnn", "width": 64, "height": 48, "k": 7, "kernel": "random", "status": "ok", "median_ms": 1.0, "min_ms": 0.9, "note": ""}]}
EOF
  if python3 "$bench_scripts/conv-report.py" --markdown "$tmp/report.md" \
      --svg-dir "$tmp/svg" "$tmp/ours.json" "$tmp/vendor.json" > "$tmp/report.log" 2>&1 \
      && grep -q '^| 3 | \*\*0.2500\*\* | n/a | 0.5000 | ours-direct | 2.00× (ours-direct vs cudnn) |$' "$tmp/report.md" \
      && grep -q '^| 7 | 1.500 |  | \*\*1.000\*\* | cudnn | 0.67× (ours-direct vs cudnn) |$' "$tmp/report.md" \
      && grep -q '<polyline' "$tmp/svg/conv-64x48.svg" && grep -q '</svg>' "$tmp/svg/conv-64x48.svg"; then
    ok "conv-report.py table and SVG"
  else
    bad "conv-report.py"; cat "$tmp/report.log" "$tmp/report.md"
  fi
else
  echo "SKIP: conv-report.py (no python3)"; skip=$((skip + 1))
fi

# hs-report.py: build A in three rounds, build B in one; A timed with two
# geometries at two sizes, B with one (so only A gets a per-geometry table
# and plot); an unknown --baseline is a usage error
if command -v python3 > /dev/null 2>&1; then
  hs_row() { printf '{"config": "%s", "width": %d, "height": %d, "hs_geometry": "%s", "frame_ms": %s}' "$@"; }
  hs_file() { f=$1; shift; { echo '{"device": "Test GPU (1 SMs)", "frames": 3, "results": ['
      sep=; while [ $# -gt 0 ]; do printf '%s' "$sep"; hs_row $1 $2 $3 $4 $5; sep=', '; shift 5; done
      echo ']}'; } > "$tmp/$f"; }
  hs_file a1.json hs-cuda-samples 64 48 auto 2.0  hs-one-level 64 48 g1 1.0 \
    hs-one-level 64 48 g2 0.5  hs-one-level 32 24 g1 0.25  hs-one-level 32 24 g2 0.3
  hs_file a2.json hs-cuda-samples 64 48 auto 5.0
  hs_file a3.json hs-cuda-samples 64 48 auto 3.0
  hs_file b.json hs-cuda-samples 64 48 auto 1.5  hs-one-level 64 48 g1 2.0
  # variants of one geometry: a forced kernel, launches without PDL
  cat > "$tmp/v.json" <<'EOF'
{"device": "Test GPU (1 SMs)", "results": [
 {"config": "hs-one-level", "width": 64, "height": 48, "hs_kernel": "fused", "hs_geometry": "g1", "hs_pdl": 1, "frame_ms": 1.0, "iterations_ms": 0.7},
 {"config": "hs-one-level", "width": 64, "height": 48, "hs_kernel": "fused-db", "hs_geometry": "g1", "hs_pdl": 0, "frame_ms": 0.9, "iterations_ms": 0.6}]}
EOF
  # the same variant run by two kernels, labelled by the kernel
  sed -e 's/"hs_pdl": 0/"hs_pdl": 1/' "$tmp/v.json" > "$tmp/w.json"
  python3 "$bench_scripts/hs-report.py" --baseline nosuch A="$tmp/a1.json" > /dev/null 2> "$tmp/hsr.err"
  hs_bad=$?
  if python3 "$bench_scripts/hs-report.py" --markdown "$tmp/hsr.md" --svg-dir "$tmp/hsr" \
        A="$tmp/a1.json" A="$tmp/a2.json" A="$tmp/a3.json" B="$tmp/b.json" > "$tmp/hsr.log" 2>&1 \
      && grep -qxF '| 64x48 | auto | 2.000, 5.000, 3.000 (**3.000**) | 1.500 | 0.500 |' "$tmp/hsr.md" \
      && grep -qxF '| 64x48 | g1 | 1.000 | 2.000 | 2.000 |' "$tmp/hsr.md" \
      && grep -qxF '| 64x48 | g2 | 0.500 |  |  |' "$tmp/hsr.md" \
      && grep -qxF '| size | g1 | g2 |' "$tmp/hsr.md" \
      && grep -qxF '| 64x48 | 1.000 | **0.500** |' "$tmp/hsr.md" \
      && grep -qxF '| 32x24 | **0.250** | 0.300 |' "$tmp/hsr.md" \
      && [ "$(grep -c 'every variant' "$tmp/hsr.md")" -eq 1 ] \
      && grep -q '<polyline' "$tmp/hsr/hs-A-hs-one-level.svg" \
      && grep -q '</svg>' "$tmp/hsr/hs-A-hs-one-level.svg" \
      && [ ! -e "$tmp/hsr/hs-B-hs-one-level.svg" ] \
      && [ $hs_bad -eq 2 ] && grep -q 'nosuch' "$tmp/hsr.err" \
      && python3 "$bench_scripts/hs-report.py" --field iterations_ms "$tmp/v.json" > "$tmp/hsv.md" 2>&1 \
      && grep -qxF '| 64x48 | g1 fused | 0.700 |' "$tmp/hsv.md" \
      && grep -qxF '| 64x48 | g1 fused-db no-pdl | 0.600 |' "$tmp/hsv.md" \
      && python3 "$bench_scripts/hs-report.py" --label-by hs_kernel --baseline fused "$tmp/w.json" > "$tmp/hsw.md" 2>&1 \
      && grep -qxF '| 64x48 | g1 | 1.000 | 0.900 | 0.900 |' "$tmp/hsw.md" \
      && ! python3 "$bench_scripts/hs-report.py" --label-by hs_kernel A="$tmp/w.json" > /dev/null 2>&1; then
    ok "hs-report.py rounds, ratios, per-geometry table and SVG, variants, labels by kernel"
  else
    bad "hs-report.py (bad baseline: exit $hs_bad)"; cat "$tmp/hsr.log" "$tmp/hsr.md" "$tmp/hsr.err"
  fi
else
  echo "SKIP: hs-report.py (no python3)"; skip=$((skip + 1))
fi

# same-kernels.py: objects whose functions sit in sections named after them,
# as a cubin's kernels do; one function the same in both, one changed
cc=${CC:-cc}
if command -v python3 > /dev/null 2>&1 && command -v readelf > /dev/null 2>&1 \
    && command -v "$cc" > /dev/null 2>&1; then
  for v in 3 5; do
    printf '%s\n' \
      '__attribute__ ((section (".text._Z4keepi"))) int keep (int x) { return x + 1; }' \
      "__attribute__ ((section (\".text._Z6changei\"))) int change (int x) { return x * $v; }" \
      > "$tmp/k$v.c"
    "$cc" -O2 -c -o "$tmp/k$v.o" "$tmp/k$v.c"
  done
  if python3 "$bench_scripts/same-kernels.py" "$tmp/k5.o" "$tmp/k3.o" > "$tmp/same.txt" 2>&1; then
    bad "same-kernels.py: a changed function passed"; cat "$tmp/same.txt"
  elif grep -qx "4keepi: $tmp/k3.o" "$tmp/same.txt" \
      && grep -qx '6changei: NEW' "$tmp/same.txt" \
      && python3 "$bench_scripts/same-kernels.py" "$tmp/k3.o" "$tmp/k5.o" "$tmp/k3.o" > "$tmp/same2.txt" 2>&1 \
      && grep -qx "6changei: $tmp/k3.o" "$tmp/same2.txt"; then
    ok "same-kernels.py matches sections, not names"
  else
    bad "same-kernels.py"; cat "$tmp/same.txt" "$tmp/same2.txt"
  fi
else
  echo "SKIP: same-kernels.py (no python3, readelf or C compiler)"; skip=$((skip + 1))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
