#!/usr/bin/env python3
"""Crossovers of method=auto (cuda/convolve.cu, auto_table) from timings.

Reads gst-cudaflow-conv-bench JSON files holding, per image size, the
sweeps:
  direct vs fft        (dense kernels, K = 3 .. 63)
  direct vs separable  (rank-1 kernels, small K)
  separable vs fft     (rank-1 kernels, large K)
and, when given, im2tensor against direct and fft (dense kernels), and
prints the C rows of auto_table: for each measured size, the number
of taps from which fft beats direct, from which separable beats direct,
the kw + kh from which fft beats separable, and the taps of the window
where im2tensor beats both (the longest run of measured K where it wins:
from its first K squared to its last K squared plus one). A crossover is the
smallest K from which the faster method stays faster at every larger K
measured (one noisy point does not move it). A row covers the images up
to the geometric mean of its size and the next one's.

  scripts/bench/conv-crossovers.py sweep-df.json sweep-ds.json sweep-sf.json \
      [sweep-i2t.json]

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


def im2tensor_window(times):
    """(first K, last K) of the longest run of measured K where im2tensor
    beats both direct and fft; None if it never does."""
    ks = sorted(k for k in times
                if all(m in times[k] for m in ("direct", "fft", "im2tensor")))
    best, run = None, []
    for k in ks + [None]:
        wins = k is not None and times[k]["im2tensor"] < min(
            times[k]["direct"], times[k]["fft"])
        if wins:
            run.append(k)
            continue
        if run and (best is None or len(run) > len(best)):
            best = run
        run = []
    return (best[0], best[-1]) if best else None


def column(swept, a, b, value):
    """A crossover of a and b as the table's text; "unmeasured" (which
    does not compile: keep that column's old values) when no sweep timed
    both, as with a subset of PARTS."""
    if not any({a, b} <= methods for methods in swept):
        return "unmeasured"
    return "%d" % value


def main(paths):
    times = {}      # (w, h) -> k -> method -> median ms
    device = "?"
    swept = []      # the methods of each sweep: a pair is compared only
    for path in paths:  # where one sweep timed both
        with open(path) as f:
            data = json.load(f)
        device = data.get("device", device)
        swept.append({r["method"] for r in data["results"]})
        for r in data["results"]:
            # forced kernels (im2tensor-wmma, ...) are not what auto runs
            if r.get("status") != "ok" or \
                    r.get("impl", "ours-" + r["method"]) != "ours-" + r["method"]:
                continue
            size = (r["width"], r["height"])
            times.setdefault(size, {}).setdefault(r["k"], {})[r["method"]] = \
                r["median_ms"]
    methods = {m for t in times.values() for k in t for m in t[k]}
    full = {"direct", "fft", "separable"} <= methods
    sizes = sorted(times, key=lambda s: s[0] * s[1])
    print("  /* %s; scripts/bench/conv-crossovers.py */" % device)
    if not full:
        print("  /* only the im2tensor columns were measured */")
    for i, (w, h) in enumerate(sizes):
        t = times[(w, h)]
        largest = max(t)
        # im2tensor from the first K of its window to the last, in taps;
        # 0, 0: it never won
        win = im2tensor_window(t) if "im2tensor" in methods else None
        i2t = "%d, %d" % (win[0] ** 2, win[1] ** 2 + 1) if win else "0, 0"
        if not full:
            print("  %-34s /* %dx%d */" % (i2t + ",", w, h))
            continue
        fft_k = crossover(t, "direct", "fft")
        sep_k = crossover(t, "direct", "separable")
        sep_fft_k = crossover(t, "separable", "fft")
        if i + 1 < len(sizes):
            nw, nh = sizes[i + 1]
            limit = "%d" % int(math.sqrt(w * h * nw * nh))
        else:
            limit = "LONG_MAX"
        # never measured to win: beyond the largest K of the sweep
        beyond = largest + 1
        fft_taps = column(swept, "direct", "fft", (fft_k or beyond) ** 2)
        sep_taps = column(swept, "direct", "separable", (sep_k or beyond) ** 2)
        sep_fft = column(swept, "separable", "fft", 2 * (sep_fft_k or beyond))
        row = "  {%s, %s, %s, %s, %s}," % (limit, fft_taps, sep_taps, sep_fft,
                                          i2t)
        print("%s /* %dx%d */" % (row.ljust(44), w, h))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
