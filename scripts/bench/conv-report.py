#!/usr/bin/env python3
# gst-cudaflow — side-by-side convolution timings: markdown table and SVG plots
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Merge convolution timing files into one table and one plot per size.

  conv-report.py [--markdown FILE] [--svg-dir DIR] RESULTS.json...

Each input is the JSON of tools/gst-cudaflow-conv-bench or of
scripts/bench/conv-baselines.py: {"device": ..., "results": [{"impl",
"width", "height", "k", "median_ms", "min_ms", "status", "note"}, ...]}
(a row without "status" counts as "ok" when it has a median). The markdown
(stdout without --markdown) has one table per image size: a row per kernel
side K, a column per implementation in the order first met, the fastest
median of the row in bold, then the fastest implementation and the speed-up
of our best method ("ours-*") over the best vendor one. Rows that were not
timed show their status (n/a, error); their reasons are listed under the
table. --svg-dir writes conv-WxH.svg per size: median time against K, both
axes logarithmic, one line per implementation (ours solid, vendors dashed),
a gap where a point is missing. Standard library only; no matplotlib.
"""

import argparse
import math
import os
import sys

import reportio
import svgplot


def log(msg):
    print("conv-report: " + msg, file=sys.stderr)


def load(paths):
    """(devices, impl order, {(w, h): {k: {impl: row}}}, per-file info)."""
    devices, order, table, info = [], [], {}, []
    for path in paths:
        doc = reportio.read_results(path, "conv-report")
        tool = doc.get("tool", os.path.basename(path))
        devices.append((tool, str(doc.get("device", "unknown"))))
        info.append((tool, doc))
        for r in doc["results"]:
            try:
                key = (int(r["width"]), int(r["height"]))
                k = int(r["k"])
                impl = str(r["impl"])
            except (KeyError, TypeError, ValueError):
                log("%s: row without impl/width/height/k skipped: %r"
                    % (path, r))
                continue
            med = r.get("median_ms")
            status = r.get("status", "ok" if med is not None else "n/a")
            if status == "ok" and not (isinstance(med, (int, float))
                                       and med > 0):
                status = "error"
            row = {"impl": impl, "status": status, "median_ms": med,
                   "min_ms": r.get("min_ms"), "note": str(r.get("note") or ""),
                   "kernel": str(r.get("kernel") or "")}
            cell = table.setdefault(key, {}).setdefault(k, {})
            if impl in cell:
                log("%s: %s at %dx%d K=%d given twice: the later is kept"
                    % (path, impl, key[0], key[1], k))
            cell[impl] = row
            if impl not in order:
                order.append(impl)
    return devices, order, table, info


def is_ours(impl):
    return impl.startswith("ours-")


def comparable(r):
    """Timed on the dense random kernel every vendor baseline uses (rows
    without a kernel field count as such)."""
    return r["kernel"] in ("", "random")


def best_of(cells, pick):
    best = None
    for impl, r in cells.items():
        if pick(impl) and r["status"] == "ok" and comparable(r):
            if best is None or r["median_ms"] < cells[best]["median_ms"]:
                best = impl
    return best


def size_impls(order, sizes_table):
    """Implementations present at this size, in the global order."""
    present = set()
    for cells in sizes_table.values():
        present.update(cells)
    return [i for i in order if i in present]


def md_cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(devices, order, table, info):
    out = ["# Convolution timings: ours beside the vendor libraries", ""]
    names = sorted(set(d for _, d in devices))
    if len(names) == 1:
        out.append("Device: %s." % names[0])
    else:
        out.append("**Devices differ**: " + "; ".join(
            "%s on %s" % (t, d) for t, d in devices) + ".")
    reps = sorted(set(str(doc.get("reps")) for _, doc in info
                      if doc.get("reps") is not None))
    rules = ["Median milliseconds per frame", "single-channel fp32 image",
             "'same' output"]
    borders = sorted(set(str(doc["border"]) for _, doc in info
                         if doc.get("border")))
    if borders:
        rules.append("%s border" % "/".join(borders))
    out.append("")
    out.append(", ".join(rules) + "; plans, spectra and padded sources made "
               "before timing; %s runs after 3 warm-up runs, each timed by "
               "CUDA events on one stream. **Bold**: the fastest median of "
               "the row. Speed-up: best vendor median / best ours median "
               "(> 1: ours is faster)." % ("/".join(reps) or "?"))
    kinds = {}
    for sizes_table in table.values():
        for cells in sizes_table.values():
            for impl, r in cells.items():
                if r["kernel"]:
                    kinds.setdefault(impl, set()).add(r["kernel"])
    special = sorted(i for i, k in kinds.items() if k != {"random"})
    if special:
        out.append("")
        out.append("Kernels: dense random, except † " + ", ".join(
            "%s (%s)" % (i, "/".join(sorted(kinds[i]))) for i in special) +
            ", left out of the bold, \"fastest\" and the speed-up: the "
            "time of a method does not depend on the tap values, but a "
            "separable method only applies to a rank-1 kernel.")
    extra = []
    for tool, doc in info:
        for key in ("fft_pad", "npp", "torch", "cuda", "cudnn"):
            if doc.get(key) is not None:
                extra.append("%s %s: %s" % (tool, key, doc[key]))
    if extra:
        out.append("")
        out.extend("- " + md_cell(e) for e in extra)

    for (w, h) in sorted(table, key=lambda s: (-s[0] * s[1], s)):
        sizes_table = table[(w, h)]
        impls = size_impls(order, sizes_table)
        out += ["", "## %dx%d" % (w, h), ""]
        out.append("| K | " + " | ".join(
            i + ("†" if i in special else "") for i in impls) +
            " | fastest | speed-up ours vs vendors |")
        out.append("|---" * (len(impls) + 3) + "|")
        for k in sorted(sizes_table):
            cells = sizes_table[k]
            best = best_of(cells, lambda i: True)
            line = ["%d" % k]
            for impl in impls:
                r = cells.get(impl)
                if r is None:
                    line.append("")
                elif r["status"] != "ok":
                    line.append(md_cell(r["status"]))
                elif impl == best:
                    line.append("**%s**" % reportio.fmt_ms(r["median_ms"]))
                else:
                    line.append(reportio.fmt_ms(r["median_ms"]))
            line.append(best or "–")
            ours = best_of(cells, is_ours)
            vendor = best_of(cells, lambda i: not is_ours(i))
            if ours and vendor:
                line.append("%.2f× (%s vs %s)" % (
                    cells[vendor]["median_ms"] / cells[ours]["median_ms"],
                    ours, vendor))
            else:
                line.append("–")
            out.append("| " + " | ".join(line) + " |")
        notes = notes_for(impls, sizes_table)
        if notes:
            out.append("")
            out.extend(notes)
    return "\n".join(out) + "\n"


def notes_for(impls, sizes_table, limit=3):
    """Distinct notes per implementation, with the Ks they apply to."""
    lines = []
    for impl in impls:
        seen = {}
        for k in sorted(sizes_table):
            r = sizes_table[k].get(impl)
            if r is None or not r["note"]:
                continue
            tag = (r["status"], r["note"])
            seen.setdefault(tag, []).append(k)
        items = list(seen.items())
        for (status, note), ks in items[:limit]:
            where = "all K" if len(ks) == len(sizes_table) else \
                "K=" + ",".join(str(k) for k in ks)
            lines.append("- %s%s (%s): %s" % (
                impl, "" if status == "ok" else " " + status, where,
                md_cell(note)))
        if len(items) > limit:
            lines.append("- %s: %d more notes" % (impl, len(items) - limit))
    return lines


# ---------------------------------------------------------------- SVG

def svg_plot(w, h, device, order, sizes_table):
    ks = sorted(sizes_table)
    series, daggers = [], False
    for n, impl in enumerate(size_impls(order, sizes_table)):
        points = []
        for k in ks:
            r = sizes_table[k].get(impl)
            ok = r is not None and r["status"] == "ok"
            points.append((math.log2(k), r["median_ms"] if ok else None))
        dagger = "" if all(comparable(cells[impl]) for cells in
                           sizes_table.values() if impl in cells) else "†"
        daggers = daggers or bool(dagger)
        series.append(svgplot.Series(
            impl + dagger, svgplot.COLOURS[n % len(svgplot.COLOURS)], points,
            dashed=not is_ours(impl), square=not is_ours(impl)))
    notes = ["solid: ours; dashed: vendor"]
    if daggers:
        notes.append("† rank-1 kernel, not the dense one")
    return svgplot.plot(
        "Convolution, %dx%d: median time per frame against kernel side"
        % (w, h), device, [(math.log2(k), "%d" % k) for k in ks],
        "kernel side K (taps K x K, log scale)",
        "median ms per frame (log scale)", "implementation", series, notes)


def main():
    ap = argparse.ArgumentParser(
        description="merge gst-cudaflow-conv-bench and conv-baselines.py "
        "JSON files into a markdown table and SVG plots")
    ap.add_argument("inputs", nargs="+", metavar="RESULTS.json")
    ap.add_argument("--markdown", help="write the table here (default: "
                    "stdout)")
    ap.add_argument("--svg-dir", help="write conv-WxH.svg here, one per size")
    args = ap.parse_args()

    devices, order, table, info = load(args.inputs)
    if not table:
        log("no results in " + ", ".join(args.inputs))
        return 1
    text = markdown(devices, order, table, info)
    reportio.write_text(args.markdown, text)
    if args.svg_dir:
        os.makedirs(args.svg_dir, exist_ok=True)
        device = "; ".join(sorted(set(d for _, d in devices)))
        for (w, h), sizes_table in sorted(table.items()):
            path = os.path.join(args.svg_dir, "conv-%dx%d.svg" % (w, h))
            with open(path, "w", encoding="utf-8") as f:
                f.write(svg_plot(w, h, device, order, sizes_table))
            log("wrote " + path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
