#!/usr/bin/env python3
"""Crossovers of method=auto (cuda/convolve.cu, auto_table) from timings.

Reads gst-cudaflow-conv-bench JSON files holding, per image size, the
sweeps:
  direct vs fft        (dense kernels, K = 3 .. 63)
  direct vs separable  (rank-1 kernels, small K)
  separable vs fft     (rank-1 kernels, large K)
and prints the C rows of auto_table: for each measured size, the number
of taps from which fft beats direct, from which separable beats direct,
and the kw + kh from which fft beats separable. A crossover is the
smallest K from which the faster method stays faster at every larger K
measured (one noisy point does not move it). A row covers the images up
to the geometric mean of its size and the next one's.

  scripts/bench/conv-crossovers.py sweep-df.json sweep-ds.json sweep-sf.json

tests/gpu/conv-crossovers.sh runs the sweeps and this script.
"""
import json
import math
import sys


def crossover(times, slow, fast):
    """Smallest K from which `fast` beats `slow` at every larger K; None
    if `fast` never wins at the largest K measured."""
    ks = sorted(k for k in times if slow in times[k] and fast in times[k])
    found = None
    for k in reversed(ks):
        if times[k][fast] < times[k][slow]:
            found = k
        else:
            break
    return found


def main(paths):
    times = {}      # (w, h) -> k -> method -> median ms
    device = "?"
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        device = data.get("device", device)
        for r in data["results"]:
            if r.get("status") != "ok":
                continue
            size = (r["width"], r["height"])
            times.setdefault(size, {}).setdefault(r["k"], {})[r["method"]] = \
                r["median_ms"]
    sizes = sorted(times, key=lambda s: s[0] * s[1])
    print("  /* %s; scripts/bench/conv-crossovers.py */" % device)
    for i, (w, h) in enumerate(sizes):
        t = times[(w, h)]
        fft_k = crossover(t, "direct", "fft")
        sep_k = crossover(t, "direct", "separable")
        sep_fft_k = crossover(t, "separable", "fft")
        largest = max(t)
        if i + 1 < len(sizes):
            nw, nh = sizes[i + 1]
            limit = "%d" % int(math.sqrt(w * h * nw * nh))
        else:
            limit = "LONG_MAX"
        # never measured to win: beyond the largest K of the sweep
        fft_taps = fft_k * fft_k if fft_k else (largest + 1) ** 2
        sep_taps = sep_k * sep_k if sep_k else (largest + 1) ** 2
        sep_fft = 2 * sep_fft_k if sep_fft_k else 2 * (largest + 1)
        row = "  {%s, %d, %d, %d}," % (limit, fft_taps, sep_taps, sep_fft)
        print("%s /* %dx%d */" % (row.ljust(36), w, h))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
