#!/bin/sh
# A/B of the GPU TV-L1 solver (cuda/tvl1*.cu) between two builds, with the
# harness tests/gpu/tvl1-ab.c built against each.
#
#   tests/gpu/tvl1-ab.sh --build SRC_DIR BUILD_DIR OUT_BIN
#       Build the harness against a configured and built tree (SRC_DIR its
#       sources, BUILD_DIR where it was built, the same for an in-tree
#       build): the static common/ and cuda/ archives of BUILD_DIR, the
#       CUDA flags and libraries its configure found. No GPU needed.
#   tests/gpu/tvl1-ab.sh OLD_BIN NEW_BIN OUT_DIR
#       On a GPU machine: run both binaries over the configuration grid
#       and diff the hash lists (every differing line is printed; exit
#       status 1 on any difference; configurations that either build
#       prints as "unsupported", per-level schedules on a tree without
#       them, are left out and counted), then time both with --time
#       alternately (old, new, old, new, old, new) and write
#       OUT_DIR/timing.md: per configuration the median of the three
#       medians of each side and new/old. Exit status 77 when a binary
#       finds no CUDA device.
#
# RUNS (default 11) is the --runs of each timing pass.
set -u

if [ "${1:-}" = --build ]; then
  if [ $# -ne 4 ]; then
    echo "usage: $0 --build SRC_DIR BUILD_DIR OUT_BIN" >&2
    exit 2
  fi
  here=$(cd "$(dirname "$0")" && pwd)
  set -x
  exec sh "$here/build-harness.sh" --archives --src "$2" "$here/tvl1-ab.c" \
      "$3" "$4"
fi

if [ $# -ne 3 ]; then
  echo "usage: $0 OLD_BIN NEW_BIN OUT_DIR" >&2
  echo "       $0 --build SRC_DIR BUILD_DIR OUT_BIN" >&2
  exit 2
fi
old=$1 new=$2 out=$3
runs=${RUNS:-11}
mkdir -p "$out" || exit 1

run() {  # BIN OUTPUT [ARGS...]
  bin=$1 dst=$2
  shift 2
  "$bin" "$@" > "$dst" 2> "$dst.err"
  rc=$?
  cat "$dst.err" >&2
  if [ $rc -eq 77 ]; then
    echo "tvl1-ab: $bin: no CUDA device, skipped" >&2
    exit 77
  fi
  if [ $rc -ne 0 ]; then
    echo "tvl1-ab: $bin $* failed (exit $rc)" >&2
    exit 1
  fi
}

echo "tvl1-ab: hashes, old" >&2
run "$old" "$out/hashes-old.txt"
echo "tvl1-ab: hashes, new" >&2
run "$new" "$out/hashes-new.txt"

# what one side cannot run is compared on neither (by name)
awk '$2 == "unsupported" { print $1 }' "$out/hashes-old.txt" \
  "$out/hashes-new.txt" | sort -u > "$out/unsupported.txt"
for side in old new; do
  awk 'FILENAME == ARGV[1] { skip[$1] = 1; next } !($1 in skip)' \
    "$out/unsupported.txt" "$out/hashes-$side.txt" > "$out/compared-$side.txt"
done
n_skipped=$(wc -l < "$out/unsupported.txt")
[ "$n_skipped" -eq 0 ] || echo "tvl1-ab: $n_skipped configurations one" \
  "build cannot run (listed in $out/unsupported.txt) left out"

status=0
n_old=$(wc -l < "$out/compared-old.txt")
n_new=$(wc -l < "$out/compared-new.txt")
if cmp -s "$out/compared-old.txt" "$out/compared-new.txt"; then
  echo "tvl1-ab: all $n_new configurations identical (name, hash, iterations)"
else
  status=1
  echo "tvl1-ab: DIFFERENT: $n_old old lines, $n_new new lines;" \
    "differing lines:"
  diff "$out/compared-old.txt" "$out/compared-new.txt" | grep '^[<>]'
fi

for i in 1 2 3; do
  echo "tvl1-ab: timing pass $i of 3" >&2
  run "$old" "$out/time-old-$i.txt" --time --runs "$runs"
  run "$new" "$out/time-new-$i.txt" --time --runs "$runs"
done

device=$(sed -n 's/^tvl1-ab: //p' "$out/time-new-1.txt.err" | head -n 1)
if [ $status -eq 0 ]; then
  hashes="all $n_new configurations identical"
  [ "$n_skipped" -eq 0 ] || hashes="$hashes ($n_skipped that one build cannot run left out)"
else
  hashes="DIFFERENT (see the run's output)"
fi
{
  echo "# TV-L1 A/B: GPU ms of cf_cuda_tvl1_plan_run"
  echo
  echo "$device; median of $runs runs after 3 warm-ups per pass, three"
  echo "passes per side run alternately; the table gives the median of the"
  echo "three passes. Hashes: $hashes."
  echo
  echo "| configuration | old ms | new ms | new/old |"
  echo "|---|---:|---:|---:|"
  awk '
    FNR == 1 { side = (FILENAME ~ /time-old-/) ? "old" : "new" }
    {
      v[$1, side, ++n[$1, side]] = $2
      if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 }
    }
    function med3(a, b, c) {
      if ((a <= b && b <= c) || (c <= b && b <= a)) return b
      if ((b <= a && a <= c) || (c <= a && a <= b)) return a
      return c
    }
    END {
      for (i = 1; i <= k; i++) {
        c = order[i]
        o = med3(v[c, "old", 1], v[c, "old", 2], v[c, "old", 3])
        w = med3(v[c, "new", 1], v[c, "new", 2], v[c, "new", 3])
        printf "| %s | %.3f | %.3f | %.3f |\n", c, o, w, (o > 0 ? w / o : 0)
      }
    }' "$out"/time-old-1.txt "$out"/time-old-2.txt "$out"/time-old-3.txt \
      "$out"/time-new-1.txt "$out"/time-new-2.txt "$out"/time-new-3.txt
} > "$out/timing.md"
cat "$out/timing.md"
exit $status
