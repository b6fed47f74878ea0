#!/usr/bin/env python3
"""GPU time of one real 2-D FFT pair (rfft2 then irfft2, cuFFT through
PyTorch) per transform shape: how cuFFT's speed depends on the lengths,
which is why cuda/convolve-fft.cu times its candidate sizes, and its
overlap-save tiles, at plan creation. Per shape: a random fp32 array, 3
warm-up pairs, then --reps pairs, each bracketed by CUDA events; the
median in ms is printed, and with --product also that of the pair with
the spectrum multiplied by one complex array (the FFT method's run
without its pad and crop).

  python3 scripts/bench/cufft-sizes.py --shapes 1152x2000,1152x2048
  python3 scripts/bench/cufft-sizes.py --rows 4320,4608 --columns 4320,4374
  python3 scripts/bench/cufft-sizes.py --product --shapes 4608x4374,25x1024x1024

A shape is ROWSxCOLUMNS (rows: the slow axis; columns: the contiguous one,
the R2C axis) or BATCHxROWSxCOLUMNS, a batch of that many transforms (the
tiles). --rows and --columns time their cross product. Exits 77 without
a CUDA device visible to PyTorch.
"""
import argparse
import statistics
import sys


def time_pair(torch, batch, rows, cols, reps, product=False):
    x = torch.randn(batch, rows, cols, device="cuda")
    k = torch.randn(rows, cols // 2 + 1, dtype=torch.complex64, device="cuda")

    def run():
        spec = torch.fft.rfft2(x)
        if product:
            spec = spec * k
        torch.fft.irfft2(spec, s=(rows, cols))

    for _ in range(3):
        run()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        run()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def ints(text):
    return [int(v) for v in text.split(",") if v]


def shapes(text):
    out = []
    for item in text.split(","):
        dims = [int(v) for v in item.lower().split("x")]
        if len(dims) == 2:
            dims = [1] + dims
        if len(dims) != 3:
            raise argparse.ArgumentTypeError("shape %r: ROWSxCOLUMNS or "
                                             "BATCHxROWSxCOLUMNS" % item)
        out.append(tuple(dims))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", type=shapes, default=[])
    ap.add_argument("--rows", type=ints, default=[])
    ap.add_argument("--columns", type=ints, default=[])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--product", action="store_true",
                    help="also time the pair with the spectrum product")
    args = ap.parse_args()
    todo = list(args.shapes) + [(1, r, c) for r in args.rows
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
    head = "| batch | rows | columns | points | ms (rfft2 + irfft2, median of %d) |" \
        % args.reps
    rule = "|---|---|---|---|---|"
    if args.product:
        head += " ms with the product |"
        rule += "---|"
    print(head)
    print(rule)
    for batch, rows, cols in todo:
        line = "| %d | %d | %d | %.2f M | %.3f |" % (
            batch, rows, cols, batch * rows * cols / 1e6,
            time_pair(torch, batch, rows, cols, args.reps))
        if args.product:
            line += " %.3f |" % time_pair(torch, batch, rows, cols, args.reps,
                                          True)
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
