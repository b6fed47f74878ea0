#!/bin/bash
# An H.264 clip (MP4) of a pan over a 1/f ("natural image") texture with a
# known motion: frame t shows the texture window at (t dx, t dy), so the
# content moves by (-dx, -dy) per frame, and the flow from frame t-1 to t
# is (-dx, -dy) everywhere (content enters at the borders).
#
#   tests/gpu/make-pan-clip.sh WIDTH HEIGHT DX DY FRAMES OUT.mp4 [KBPS]
#
# Needs python3 with numpy and gst-launch-1.0 with x264enc
# (gstreamer1.0-plugins-ugly). No B-frames, a key frame every 30 frames.
set -eu
w=${1:?width} h=${2:?height} dx=${3:?dx} dy=${4:?dy} n=${5:?frames}
out=${6:?output} kbps=${7:-$(( w * h / 260 ))}
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "$0: needs python3 with numpy" >&2; exit 1; }
"$py" - "$w" "$h" "$dx" "$dy" "$n" <<'PY' | gst-launch-1.0 -q fdsrc blocksize=$((w * h)) ! \
  rawvideoparse width="$w" height="$h" format=gray8 framerate=30/1 ! \
  videoconvert ! video/x-raw,format=I420 ! \
  x264enc bitrate="$kbps" speed-preset=fast key-int-max=30 bframes=0 ! \
  h264parse ! mp4mux ! filesink location="$out"
import sys, numpy as np
W, H, dx, dy, n = map(int, sys.argv[1:6])
rng = np.random.default_rng(7)
tw, th = W + n * abs(dx) + 64, H + n * abs(dy) + 64
fy = np.fft.fftfreq(th)[:, None]
fx = np.fft.rfftfreq(tw)[None, :]
f = np.sqrt(fx * fx + fy * fy)
f[0, 0] = 1
tex = np.fft.irfft2((rng.standard_normal(f.shape) +
                     1j * rng.standard_normal(f.shape)) / f, s=(th, tw))
tex = np.clip(128 + 40 * (tex - tex.mean()) / tex.std(), 0, 255)
tex = tex.astype(np.uint8)
x0 = 32 + (n * -dx if dx < 0 else 0)
y0 = 32 + (n * -dy if dy < 0 else 0)
for t in range(n):
    y, x = y0 + t * dy, x0 + t * dx
    sys.stdout.buffer.write(tex[y:y + H, x:x + W].tobytes())
PY
