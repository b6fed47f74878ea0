#!/bin/bash
# A soak with real decoding: FRAMES (default 100000) frames of a looped
# 1080p H.264 pan through STREAMS (default 8) pipelines
#   nvh264dec ! cudaflowtvl1 preset=fast precision=fp16 ! flowviz !
#   cudadownload ! fakesink
# in one process (tools/gst-cudaflow-streams --frames), host RSS and this
# process's device memory sampled every second. After WARMUP seconds
# (default 5) both must stay within 1 % of their first sample.
# docs/scaling.md has the result.
#
#   tests/gpu/soak.sh BUILD_DIR CLIP_DIR   (clips: tests/gpu/streams.sh --make-clips)
#
# ELEMENT and CLIP (pan-1080p.mp4) change what runs. Results in $OUT
# (default _out/soak): soak.log, memory.csv (seconds, frames, host RSS MiB,
# device MiB), soak.json.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?build dir}" && pwd); clips=$(cd "${2:?clip dir}" && pwd)
out=${OUT:-$here/../../_out/soak}
mkdir -p "$out"
export GST_PLUGIN_PATH_1_0=$build/gst/.libs
export LD_LIBRARY_PATH=$build/gst-libs/gst/cudaflow/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/cudaflow-soak-registry-$$.bin
tool=$build/tools/gst-cudaflow-streams
[ -x "$build/tools/.libs/gst-cudaflow-streams" ] && tool=$build/tools/.libs/gst-cudaflow-streams
if ! gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  echo "SKIP: no nvh264dec (an NVIDIA GPU with NVDEC and gst-plugins-bad's nvcodec)"
  exit 77
fi
element=${ELEMENT:-cudaflowtvl1 preset=fast precision=fp16}
rm -f "$out/soak.json"
"$tool" --clip "$clips/${CLIP:-pan-1080p.mp4}" \
  --element "$element ! flowviz ! cudadownload" --label soak \
  --streams "${STREAMS:-8}" --frames "${FRAMES:-100000}" --warmup "${WARMUP:-5}" \
  --memory-log "$out/memory.csv" --json "$out/soak.json" 2>&1 | tee "$out/soak.log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "FAIL: the soak stopped (exit $rc)"; exit 1; }
# flat: the largest sample after warm-up within 1 % of the first one
python3 - "$out/soak.json" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
ok = True
for what, first, top in (("host RSS", r["rss_first_mib"], r["rss_max_mib"]),
                         ("device memory", r["device_first_mib"], r["device_max_mib"])):
    if first <= 0:
        print("%s: not sampled" % what); ok = False if what == "host RSS" else ok
        continue
    grow = 100.0 * (top - first) / first
    print("%s: %.1f -> max %.1f MiB after warm-up (%+.2f %%): %s" %
          (what, first, top, grow, "flat" if grow <= 1.0 else "GROWS"))
    ok = ok and grow <= 1.0
print("%d frames after warm-up, %.0f frames/s" % (r["frames"], r["fps"]))
sys.exit(0 if ok else 1)
PY
