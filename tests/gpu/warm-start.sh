#!/bin/bash
# use-previous-flow on decoded video with known motion: two 1080p H.264
# pans over a 1/f ("natural image") texture, (3, 1) and (24, 8) px per
# frame, through nvh264dec ! cudaflowtvl1 ! floenc; the mean EPE of each
# flow field against the known (−dx, −dy), 40 px borders left out (content
# enters there). docs/flow-frontier.md has the result.
#
#   tests/gpu/warm-start.sh --make-clips CLIP_DIR
#       (where gst-launch-1.0 has x264enc, and python3 has numpy)
#   tests/gpu/warm-start.sh BUILD_DIR CLIP_DIR
#       (on the GPU machine: a build tree or a tests/gpu/stage.sh copy;
#       needs nvh264dec, python3 with numpy)
set -u
# a python3 with numpy (the first in PATH may lack it)
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "$0: needs python3 with numpy" >&2; exit 1; }
if [ "${1:-}" = --make-clips ]; then
  out=${2:?clip dir}; mkdir -p "$out"
  "$(dirname "$0")/make-pan-clip.sh" 1920 1080 3 1 40 "$out/pan-small.mp4" 8000 &&
    "$(dirname "$0")/make-pan-clip.sh" 1920 1080 24 8 40 "$out/pan-large.mp4" 8000 || exit 1
  ls -l "$out"
  exit 0
fi

build=$(cd "${1:?build dir}" && pwd); clips=$(cd "${2:?clip dir}" && pwd)
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
export LD_LIBRARY_PATH=$build/gst-libs/gst/cudaflow/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-warm-registry-$$.bin
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for clip in small:-3:-1 large:-24:-8; do
  IFS=: read -r name u v <<< "$clip"
  for preset in fast balanced accurate ipol; do
    for warm in false true; do
      rm -f "$tmp"/f*.flo
      if ! gst-launch-1.0 -q filesrc location="$clips/pan-$name.mp4" ! \
          qtdemux ! h264parse ! nvh264dec ! cudaflowtvl1 preset=$preset \
          precision=fp16 use-previous-flow=$warm ! floenc ! \
          multifilesink location="$tmp/f%04d.flo" > "$tmp/log" 2>&1; then
        echo "pan-$name preset=$preset use-previous-flow=$warm: failed"
        tail -3 "$tmp/log"; continue
      fi
      printf 'pan-%s (%s, %s) preset=%s use-previous-flow=%s: ' "$name" \
          "$u" "$v" "$preset" "$warm"
      "$py" - "$tmp" "$u" "$v" <<'PY'
import sys, glob, numpy as np
u0, v0 = float(sys.argv[2]), float(sys.argv[3])
e = []
for f in sorted(glob.glob(sys.argv[1] + '/f*.flo')):
    raw = open(f, 'rb').read()
    w, h = np.frombuffer(raw[4:12], '<i4')
    uv = np.frombuffer(raw[12:], '<f4').reshape(h, w, 2)[40:-40, 40:-40]
    e.append(np.hypot(uv[..., 0] - u0, uv[..., 1] - v0).mean())
print('%d fields, mean EPE %.4f, worst field %.4f' % (len(e), np.mean(e),
                                                       np.max(e)))
PY
    done
  done
done
