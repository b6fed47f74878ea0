#!/usr/bin/env python3
# gst-cudaflow — builds timed side by side: markdown tables and SVG plots
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare tools/gst-cudaflow-flow-bench runs of several builds.

  hs-report.py [--baseline LABEL] [--field NAME] [--label-by FIELD]
               [--markdown FILE] [--svg-dir DIR] LABEL=RESULTS.json...

Each input is the --json output of gst-cudaflow-flow-bench, named by the
build it ran (LABEL=; without one, the file's name), or each of its rows
by the Jacobi kernel it ran (--label-by hs_kernel: kernels of one build,
compared as builds are). Several files
with one label are rounds of that build: a result is identified by its
configuration, size and variant (the region geometry of --hs-geometry,
"auto" when the plan chose, followed by the Jacobi kernel where one was
forced and "no-pdl" where programmatic dependent launch was off), and its
rounds' times (frame_ms, or the --field given) reduce to their median.

The markdown (stdout without --markdown) has:
- per configuration, a row per size and variant: each build's
  times, every round in the order given, with the median in bold, then
  each build's median over the baseline's (the first label, or
  --baseline);
- per configuration and build with more than one variant, a row per
  size and a column per variant, the fastest of the row in bold (the
  per-level table of docs/flow-speed.md).
--svg-dir writes hs-LABEL-CONFIG.svg for the latter: median time against
the level's pixels, both axes logarithmic, a line per variant.
Standard library only.
"""

import argparse
import math
import os
import re
import statistics
import sys

import reportio
import svgplot


def log(msg):
    print("hs-report: " + msg, file=sys.stderr)


def parse_input(arg):
    """(label, path) from LABEL=PATH or PATH."""
    m = re.match(r"^([A-Za-z0-9_.+-]+)=(.+)$", arg)
    if m and not os.path.exists(arg):
        return m.group(1), m.group(2)
    return os.path.splitext(os.path.basename(arg))[0], arg


def variant_of(r, label_by=None):
    """The region geometry, then what else the bench was told to vary
    (except the field the label comes from)."""
    v = str(r.get("hs_geometry") or "auto")
    if label_by != "hs_kernel" and r.get("hs_kernel") not in (None, "auto"):
        v += " " + str(r["hs_kernel"])
    if r.get("hs_pdl") == 0:
        v += " no-pdl"
    return v


def load(args, field, label_by=None):
    """(devices, labels, configs, {(config, w, h, variant): {label:
    [ms per file]}}) with every list in the order first met."""
    devices, labels, configs, table = set(), [], [], {}
    for arg in args:
        label, path = parse_input(arg)
        doc = reportio.read_results(path, "hs-report")
        devices.add(str(doc.get("device", "unknown")))
        seen = set()
        for r in doc["results"]:
            try:
                if label_by:
                    label = str(r[label_by])
                key = (str(r["config"]), int(r["width"]), int(r["height"]),
                       variant_of(r, label_by))
                ms = float(r[field])
            except (KeyError, TypeError, ValueError):
                log("%s: row without config/width/height/%s%s skipped: %r"
                    % (path, field, "/" + label_by if label_by else "", r))
                continue
            if not ms > 0:
                log("%s: %s %dx%d %s: %s %r skipped"
                    % ((path,) + key + (field, r.get(field))))
                continue
            if (label, key) in seen:
                log("%s: %s %dx%d %s given twice in one file: both kept as "
                    "rounds" % ((path,) + key))
            seen.add((label, key))
            if label not in labels:
                labels.append(label)
            if key[0] not in configs:
                configs.append(key[0])
            table.setdefault(key, {}).setdefault(label, []).append(ms)
    return sorted(devices), labels, configs, table


def fmt_ms(v):
    """Microseconds are the resolution of a level's time."""
    return reportio.fmt_ms(v, finest=3)


def median(times):
    return statistics.median(times) if times else None


def sizes_of(table, config):
    """(w, h) of a configuration, largest first, as the levels of a
    pyramid run down."""
    return sorted({(w, h) for (c, w, h, _) in table if c == config},
                  key=lambda s: (-s[0] * s[1], -s[0]))


def variants_in(table, config, label=None):
    out = []
    for (c, _, _, g), cells in table.items():
        if c == config and g not in out and (label is None or label in cells):
            out.append(g)
    return out


def several_variants(configs, labels, table):
    """(config, label) of each build timed with more than one variant of
    a configuration: those get a per-level table and a plot."""
    return [(c, l) for c in configs for l in labels
            if len(variants_in(table, c, l)) > 1]


def times_table(labels, base, config, table):
    others = [l for l in labels if l != base]
    out = ["| size | variant | " + " | ".join(labels) + " | " +
           " | ".join("%s / %s" % (l, base) for l in others) + " |",
           "|---|---|" + "---|" * (len(labels) + len(others))]
    for w, h in sizes_of(table, config):
        for g in variants_in(table, config):
            cells = table.get((config, w, h, g))
            if not cells:
                continue
            row = ["%dx%d" % (w, h), g]
            for l in labels:
                t = cells.get(l, [])
                if len(t) > 1:
                    row.append(", ".join(fmt_ms(v) for v in t) +
                               " (**%s**)" % fmt_ms(median(t)))
                else:
                    row.append(fmt_ms(t[0]) if t else "")
            b = median(cells.get(base, []))
            for l in others:
                m = median(cells.get(l, []))
                row.append("%.3f" % (m / b) if m and b else "")
            out.append("| " + " | ".join(row) + " |")
    return out


def variant_table(label, config, table):
    variants = variants_in(table, config, label)
    out = ["| size | " + " | ".join(variants) + " |",
           "|---|" + "---|" * len(variants)]
    for w, h in sizes_of(table, config):
        meds = [median(table.get((config, w, h, v), {}).get(label, []))
                for v in variants]
        timed = [m for m in meds if m is not None]
        if not timed:
            continue
        best = min(timed)
        out.append("| %dx%d | " % (w, h) + " | ".join(
            "" if m is None else
            ("**%s**" if m == best else "%s") % fmt_ms(m) for m in meds) +
            " |")
    return out


def markdown(devices, labels, base, field, configs, table):
    out = []
    if len(devices) == 1:
        out.append("Device: %s." % devices[0])
    else:
        out.append("**Devices differ**: " + "; ".join(devices) + ".")
    out.append("")
    out.append("Milliseconds: %s (the bench's median frame of each run); "
               "several runs of a build are listed in the order given, "
               "their median in bold; ratios are medians over %s's (< 1: "
               "faster than %s)." % (field, base, base))
    for config in configs:
        out += ["", "### %s" % config, ""]
        out += times_table(labels, base, config, table)
    for config, label in several_variants(configs, labels, table):
        out += ["", "### %s, %s: every variant" % (config, label), "",
                "Median %s; **bold**: the fastest of the row." % field, ""]
        out += variant_table(label, config, table)
    return "\n".join(out) + "\n"


def svg_plot(label, config, field, device, table):
    sizes = sorted(sizes_of(table, config), key=lambda s: s[0] * s[1])
    xs = [math.log10(w * h) for (w, h) in sizes]
    series = []
    for n, g in enumerate(variants_in(table, config, label)):
        points = [(x, median(table.get((config, w, h, g), {}).get(label, [])))
                  for x, (w, h) in zip(xs, sizes)]
        # eight colours: the second eight variants dashed, square markers
        lap = n // len(svgplot.COLOURS) % 2 == 1
        series.append(svgplot.Series(
            g, svgplot.COLOURS[n % len(svgplot.COLOURS)], points,
            dashed=lap, square=lap))
    return svgplot.plot(
        "%s, %s: median %s against level size" % (config, label, field),
        device, [(x, "%dx%d" % s) for x, s in zip(xs, sizes)],
        "level size (pixels, log scale)", "median %s (log scale)" % field,
        "variant", series)


def main():
    ap = argparse.ArgumentParser(
        description="compare gst-cudaflow-flow-bench JSON files of several "
        "builds: markdown tables and SVG plots")
    ap.add_argument("inputs", nargs="+", metavar="LABEL=RESULTS.json")
    ap.add_argument("--baseline", help="the label ratios are taken against "
                    "(default: the first)")
    ap.add_argument("--field", default="frame_ms",
                    choices=("frame_ms", "solve_ms", "iterations_ms",
                             "around_iterations_ms"),
                    help="the time compared (default: frame_ms)")
    ap.add_argument("--label-by", choices=("hs_kernel",),
                    help="label each row by the Jacobi kernel it ran instead "
                    "of by its file: kernels of one build, each file a round")
    ap.add_argument("--markdown", help="write the tables here (default: "
                    "stdout)")
    ap.add_argument("--svg-dir", help="write hs-LABEL-CONFIG.svg here for "
                    "every configuration and build timed with several "
                    "variants")
    args = ap.parse_args()

    if args.label_by:
        named = [a for a in args.inputs if parse_input(a)[1] != a]
        if named:
            log("--label-by takes the labels from the rows, not from %s"
                % named[0])
            return 2
    devices, labels, configs, table = load(args.inputs, args.field,
                                           args.label_by)
    if not table:
        log("no results in " + ", ".join(args.inputs))
        return 1
    base = args.baseline or labels[0]
    if base not in labels:
        log("--baseline %s: no such label (labels: %s)"
            % (base, ", ".join(labels)))
        return 2
    text = markdown(devices, labels, base, args.field, configs, table)
    reportio.write_text(args.markdown, text)
    if args.svg_dir:
        os.makedirs(args.svg_dir, exist_ok=True)
        device = "; ".join(devices)
        for config, label in several_variants(configs, labels, table):
            path = os.path.join(args.svg_dir, "hs-%s-%s.svg" % (label, config))
            with open(path, "w", encoding="utf-8") as f:
                f.write(svg_plot(label, config, args.field, device, table))
            log("wrote " + path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
