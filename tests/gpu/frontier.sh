#!/bin/bash
# The speed/accuracy frontier of cudaflowtvl1 on a GPU machine
# (tools/gst-cudaflow-flow-frontier; docs/flow-frontier.md shows the
# result): levels 3..6 x warps 1,2,3,5 x iterations 5,10,20,50 (epsilon 0,
# so each point does a fixed amount of work) x fp32, fp16, plus the ipol
# and romera presets, timed at 1920x1080 and evaluated on the Middlebury
# pairs, on a large-motion synthetic set made here by gst-cudaflow-synth
# (20 to 100 px; sharp and noise-free), on a degraded one (large motions
# with motion blur, noise and illumination changes), on Yosemite and on a
# second degraded set. Results go to $OUT (default _out/frontier):
# tvl1.json, tvl1.md, tvl1.svg, tvl1.log, and the synthetic sets under
# large-motion/, degraded/ and degraded-2/.
#
#   tests/gpu/frontier.sh [BUILD_DIR] [DATA_DIR]
#
# BUILD_DIR: a build tree or a copy made by tests/gpu/stage.sh (default
# _build). DATA_DIR holds the Middlebury pairs (default:
# $CUDAFLOW_DATA_DIR/middlebury, else .data/middlebury next to this tree).
# PRECISIONS (default fp32,fp16) runs a part of the grid, for a machine
# with a per-command time limit; the files are then tvl1-<precisions>.*.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
data=${2:-${CUDAFLOW_DATA_DIR:-$top/.data}/middlebury}
out=${OUT:-$top/_out/frontier}
precisions=${PRECISIONS:-fp32,fp16}
mkdir -p "$out"

if ! command -v gst-launch-1.0 >/dev/null 2>&1 && [ -f "$top/.gst-runtime/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$top/.gst-runtime/env.sh"
fi
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
# libgstcudaflow-1.0 (the plugin links it) from the build tree wherever it
# was copied
export LD_LIBRARY_PATH=$build/gst-libs/gst/cudaflow/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-frontier-registry-$$.bin

if [ ! -f "$data/RubberWhale/flow10.flo" ]; then
  echo "no Middlebury data at $data (set CUDAFLOW_DATA_DIR or pass DATA_DIR)" >&2
  exit 1
fi

# Large motions: one textured pair per motion and displacement, 960x540 so
# that 100 px is a tenth of the width, each with its own texture (seed)
# whose shortest wave is the displacement (shorter waves alone would make
# the motion ambiguous on every pyramid level). The frames are sharp and
# noise-free: no --motion-blur, no --noise.
large=$out/large-motion
rm -rf "$large"
seed=1
for spec in translation:20 translation:60 translation:100 rotation-zoom:40 \
    smooth:20 smooth:50; do
  motion=${spec%%:*} amount=${spec##*:}
  "$build/tools/gst-cudaflow-synth" --size 960x540 --motion "$motion" \
    --amount "$amount" --wavelength "$amount" --seed $seed \
    "$large/$motion-$amount" || exit 1
  seed=$((seed + 1))
done

# synth_set DIR SEED SPEC...: one 960x540 pair per SPEC ("MOTION AMOUNT
# [gst-cudaflow-synth options]") in DIR/MOTION-AMOUNT-SEED, its texture's
# shortest wave the displacement, the seeds counting up from SEED
synth_set() {
  local dir=$1 seed=$2 spec words
  shift 2
  rm -rf "$dir"
  for spec in "$@"; do
    read -r -a words <<< "$spec"
    "$build/tools/gst-cudaflow-synth" --size 960x540 --motion "${words[0]}" \
      --amount "${words[1]}" --wavelength "${words[1]}" --seed "$seed" \
      "${words[@]:2}" "$dir/${words[0]}-${words[1]}-$seed" > /dev/null ||
      return 1
    seed=$((seed + 1))
  done
}

# Degraded: large motions through what real video does to frames (motion
# blur, sensor noise, an illumination change between the frames, as in
# fog or an exposure change); the same generator, its degradation
# options. Held-back data of that kind (rendered film with blur and fog,
# driving) is what a setting tuned on Middlebury alone tends to lose.
degraded=$out/degraded
synth_set "$degraded" 11 "translation 20 --motion-blur 0.5 --noise 2" \
  "translation 60 --motion-blur 0.5 --noise 3" \
  "smooth 20 --gain 0.8 --bias 20 --noise 2" \
  "smooth 50 --motion-blur 0.5 --gain 1.15 --bias -10 --noise 2" \
  "rotation-zoom 40 --motion-blur 0.5 --noise 4" \
  "translation 8 --gain 0.7 --bias 30 --noise 5" || exit 1

# Degraded, second set: other motions, seeds and degradations, made to
# check a choice made on the first (docs/flow-frontier.md, "lambda per
# level"): a setting picked there must not lose this one.
degraded2=$out/degraded-2
synth_set "$degraded2" 101 "translation 30 --motion-blur 0.3 --noise 2" \
  "translation 80 --noise 1" "smooth 30 --noise 3" \
  "smooth 40 --gain 0.9 --bias 10 --noise 2" \
  "rotation-zoom 25 --motion-blur 0.5 --noise 2" \
  "translation 12 --gain 1.2 --bias -15 --noise 4" "smooth 10 --noise 1" \
  "rotation-zoom 60" || exit 1

points=()
# Yosemite (next to the Middlebury directory when present): the pair and
# Barron's ground truth in Middlebury layout, the sky (its ground truth is
# exactly (1,0) and meaningless for a black sky) marked unknown, as the
# evaluations of this sequence mask it. Needs python3 with numpy.
yos=$(dirname "$data")/yosemite
yos_args=()
if [ -f "$yos/correct_yos.flo" ] && python3 -c 'import numpy' 2>/dev/null; then
  mkdir -p "$out/yosemite/Yosemite"
  cp "$yos/frame10.png" "$yos/frame11.png" "$out/yosemite/Yosemite/"
  python3 - "$yos/correct_yos.flo" "$out/yosemite/Yosemite/flow10.flo" <<'PY'
import sys, numpy as np
raw = open(sys.argv[1], 'rb').read()
w, h = np.frombuffer(raw[4:12], '<i4')
uv = np.frombuffer(raw[12:], '<f4').reshape(h, w, 2).copy()
sky = (uv[..., 0] == 1.0) & (uv[..., 1] == 0.0)
uv[sky] = 1e10
open(sys.argv[2], 'wb').write(raw[:12] + uv.astype('<f4').tobytes())
print('yosemite: %d sky pixels masked' % sky.sum(), file=sys.stderr)
PY
  yos_args=(--data "$out/yosemite")
fi

# EXTRA_POINTS: more points, separated by ';' (e.g. other scale factors);
# EXTRA_POINTS_FILE: one point per line (tests/gpu/frontier-levers.txt: the
# per-level schedules and the median filter of docs/flow-frontier.md;
# tests/gpu/frontier-presets.txt: the presets beside their variants;
# tests/gpu/frontier-wmedian.txt: the weighted median in accurate as it
# was (6 x 3 x 20, 5 x 5 median) and in balanced;
# tests/gpu/frontier-beyond-ipol.txt: lambda per level with it, past
# IPOL's accuracy; tests/gpu/frontier-brightness.txt: the brightness
# model in each preset, and accurate as it is now;
# tests/gpu/frontier-targets.txt: the presets as they are and the
# configuration past IPOL: every point of docs/flow-frontier.md's
# *Against the targets we set* in one run);
# POINTS_ONLY=1 leaves the grid out (only the points are measured).
# The grid and the files' points set gradient-blend=0: they were measured
# with IPOL's linearisation, the default before 2026-12-05 (0.5 since);
# tests/gpu/frontier-gradient-blend.txt has the presets as they are. The
# grid also sets sigma=0.8, the default before balanced took 0.7 (and
# warps 1,2 x iterations 35,20 per level, which its warps and iterations
# clear) on 2026-12-05. Since 2026-12-06 balanced (so the defaults) also
# couples with theta 0.4 and filters the finest level with a 5 x 5
# median: the grid and the files' points without a preset set theta=0.3
# (IPOL's) and a median-size (which clears that list); the points that
# start from preset=balanced run today's balanced, not the one they were
# measured with (35,20, sigma 0.7, theta 0.3, no median before that day).
IFS=';' read -r -a extra <<< "${EXTRA_POINTS:-}"
for e in "${extra[@]}"; do
  [ -n "$e" ] && points+=(--point "$e")
done
if [ -n "${EXTRA_POINTS_FILE:-}" ]; then
  while IFS= read -r e; do
    [ -n "$e" ] && points+=(--point "$e")
  done < "$EXTRA_POINTS_FILE"
fi

name=tvl1
[ "$precisions" = fp32,fp16 ] || name=tvl1-$(echo "$precisions" | tr , -)
grid=(--set levels=3,4,5,6 --set warps=1,2,3,5 --set iterations=5,10,20,50
  --set epsilon=0 --set gradient-blend=0 --set sigma=0.8 --set theta=0.3
  --set median-size=0 --set "precision=$precisions")
if [ -n "${POINTS_ONLY:-}" ]; then
  grid=()
  name=$name-points
else
  for p in ${precisions//,/ }; do
    points+=(--point "preset=ipol precision=$p" --point "preset=romera precision=$p")
  done
fi
"$build/tools/gst-cudaflow-flow-frontier" --element cudaflowtvl1 \
  --sizes 1920x1080 --frames 20 "${grid[@]}" "${points[@]}" \
  --data "$data" --data "$large" --data "$degraded" "${yos_args[@]}" \
  --data "$degraded2" \
  --rank-by "$data" \
  --peers "$top/tools/flow-frontier-peers.txt" \
  --json "$out/$name.json" --markdown "$out/$name.md" --svg "$out/$name.svg" \
  > "$out/$name-front.md" 2> "$out/$name.log"
status=$?
cat "$out/$name-front.md"
tail -n 3 "$out/$name.log"
exit $status
