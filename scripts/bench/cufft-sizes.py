#!/usr/bin/env python3
"""GPU time of one real 2-D FFT pair (rfft2 then irfft2, cuFFT through
PyTorch) per transform shape: how cuFFT's speed depends on the lengths,
which is why cuda/convolve-fft.cu times its candidate sizes at plan
creation. Per shape: a random fp32 array, 3 warm-up pairs, then --reps
pairs, each bracketed by CUDA events; the median in ms is printed.

  python3 scripts/bench/cufft-sizes.py --shapes 1152x2000,1152x2048
  python3 scripts/bench/cufft-sizes.py --rows 4320,4608 --columns 4320,4374

A shape is ROWSxCOLUMNS (rows: the slow axis; columns: the contiguous one,
the R2C axis). --rows and --columns time their cross product. Exits 77
without a CUDA device visible to PyTorch.
"""
import argparse
import statistics
import sys


def time_pair(torch, rows, cols, reps):
    x = torch.randn(rows, cols, device="cuda")
    for _ in range(3):
        torch.fft.irfft2(torch.fft.rfft2(x), s=(rows, cols))
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        torch.fft.irfft2(torch.fft.rfft2(x), s=(rows, cols))
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def ints(text):
    return [int(v) for v in text.split(",") if v]


def shapes(text):
    out = []
    for item in text.split(","):
        rows, cols = item.lower().split("x")
        out.append((int(rows), int(cols)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", type=shapes, default=[])
    ap.add_argument("--rows", type=ints, default=[])
    ap.add_argument("--columns", type=ints, default=[])
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    todo = list(args.shapes) + [(r, c) for r in args.rows
                                for c in args.columns]
    if not todo:
        ap.error("give --shapes, or --rows and --columns")
    try:
        import torch
    except ImportError:
        print("cufft-sizes.py: PyTorch is not installed", file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        print("cufft-sizes.py: no CUDA device", file=sys.stderr)
        return 77
    print("| rows | columns | ms (rfft2 + irfft2, median of %d) |" % args.reps)
    print("|---|---|---|")
    for rows, cols in todo:
        print("| %d | %d | %.3f |" % (rows, cols,
                                      time_pair(torch, rows, cols, args.reps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
