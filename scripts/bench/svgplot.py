# gst-cudaflow — one log-scale line plot as SVG, for the bench reports
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A line plot with a logarithmic time axis, written as SVG text.

Shared by conv-report.py and hs-report.py; standard library only. The
caller places the points on the x axis itself (already in the axis's own
units, e.g. log2 of a kernel side) and gives the tick positions and their
labels; the y axis is log10 of the values, in whole decades. A series is
drawn as a line broken where a point is missing (value None), with a
marker on every point, and gets one legend row.
"""

import math
from xml.sax.saxutils import escape

# Okabe-Ito colours without the yellow, which is unreadable on white
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
           "#56B4E9", "#000000", "#999999"]

WIDTH, HEIGHT = 860, 470
LEFT, RIGHT, TOP, BOTTOM = 78, 600, 52, 400


class Series:
    """One line: points [(x, value or None)], drawn solid or dashed, with
    round or square markers; label is its legend text."""

    def __init__(self, label, colour, points, dashed=False, square=False):
        self.label = label
        self.colour = colour
        self.points = points
        self.dashed = dashed
        self.square = square


def nice_ticks(lo, hi):
    """Decade ticks in [lo, hi] (log10 units), with 2 and 5 between them
    when the range spans at most 3 decades: [(value, major)]."""
    ticks = []
    for e in range(int(math.floor(lo)), int(math.ceil(hi)) + 1):
        for m in (1, 2, 5):
            if m != 1 and hi - lo > 3:
                continue
            v = m * 10.0 ** e
            if lo - 1e-9 <= math.log10(v) <= hi + 1e-9:
                ticks.append((v, m == 1))
    return ticks


def fmt_tick(v):
    if v >= 1:
        return "%g" % v
    return ("%.6f" % v).rstrip("0")


def marker(series, x, y):
    if series.square:
        return '<rect x="%.1f" y="%.1f" width="7" height="7" fill="%s"/>' % (
            x - 3.5, y - 3.5, series.colour)
    return '<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>' % (
        x, y, series.colour)


def plot(title, subtitle, x_ticks, x_label, y_label, legend_title, series,
         notes=()):
    """The SVG text. x_ticks: [(x, label)] in the order of the axis, which
    spans them (with a margin that keeps markers off the frame); notes:
    lines of text under the legend."""
    values = [v for s in series for (_, v) in s.points if v is not None]
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">'
         % (WIDTH, HEIGHT, WIDTH, HEIGHT),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="16" font-weight="bold">%s</text>'
         % (LEFT, escape(title)),
         '<text x="%d" y="40" fill="#444">%s</text>'
         % (LEFT, escape(subtitle))]

    x0, x1 = x_ticks[0][0], x_ticks[-1][0]
    if x1 - x0 < 1e-9:
        x0, x1 = x0 - 1, x1 + 1
    x0, x1 = x0 - 0.15, x1 + 0.15   # keep markers off the frame

    def x_of(x):
        return LEFT + (x - x0) / (x1 - x0) * (RIGHT - LEFT)

    if values:
        y0 = math.floor(math.log10(min(values)))
        y1 = math.ceil(math.log10(max(values)))
        if y1 - y0 < 1:
            y1 = y0 + 1
    else:
        y0, y1 = -1, 1

    def y_of(v):
        return BOTTOM - (math.log10(v) - y0) / (y1 - y0) * (BOTTOM - TOP)

    # grid, ticks, frame
    for v, major in nice_ticks(y0, y1):
        y = y_of(v)
        s.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>'
                 % (LEFT, y, RIGHT, y, "#ccc" if major else "#eee"))
        s.append('<text x="%d" y="%.1f" text-anchor="end" '
                 'dominant-baseline="middle">%s</text>'
                 % (LEFT - 6, y, fmt_tick(v)))
    # labels closer than their width take two rows, every other one lower
    gaps = [x_of(b[0]) - x_of(a[0]) for a, b in zip(x_ticks, x_ticks[1:])]
    widest = max(7 * len(label) for _, label in x_ticks)
    stagger = 14 if gaps and min(gaps) < widest + 8 else 0
    for n, (x, label) in enumerate(x_ticks):
        s.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
                 % (x_of(x), TOP, x_of(x), BOTTOM))
        s.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                 % (x_of(x), BOTTOM + 16 + stagger * (n % 2), escape(label)))
    s.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
             'stroke="#333"/>' % (LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP))
    s.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
             % ((LEFT + RIGHT) // 2, BOTTOM + 38 + stagger, escape(x_label)))
    s.append('<text transform="translate(%d %d) rotate(-90)" '
             'text-anchor="middle">%s</text>'
             % (20, (TOP + BOTTOM) // 2, escape(y_label)))
    if not values:
        s.append('<text x="%d" y="%d" text-anchor="middle" fill="#888">'
                 'no timed results</text>'
                 % ((LEFT + RIGHT) // 2, (TOP + BOTTOM) // 2))

    # one line per series, broken where a point is missing
    ly = TOP + 8
    s.append('<text x="%d" y="%d" font-weight="bold">%s</text>'
             % (RIGHT + 20, ly, escape(legend_title)))
    for sr in series:
        dash = ' stroke-dasharray="6 4"' if sr.dashed else ""
        runs, run = [], []
        for x, v in sr.points:
            if v is not None:
                run.append((x_of(x), y_of(v)))
            elif run:
                runs.append(run)
                run = []
        if run:
            runs.append(run)
        for run in runs:
            if len(run) > 1:
                s.append('<polyline fill="none" stroke="%s" stroke-width="2"'
                         '%s points="%s"/>' % (sr.colour, dash, " ".join(
                             "%.1f,%.1f" % p for p in run)))
            for (x, y) in run:
                s.append(marker(sr, x, y))
        ly += 20
        timed = any(runs)
        s.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                 'stroke-width="2"%s/>' % (RIGHT + 20, ly - 4, RIGHT + 50,
                                           ly - 4, sr.colour, dash))
        s.append(marker(sr, RIGHT + 35, ly - 4))
        s.append('<text x="%d" y="%d" dominant-baseline="middle"%s>%s%s'
                 '</text>' % (RIGHT + 58, ly - 4,
                              "" if timed else ' fill="#888"',
                              escape(sr.label),
                              "" if timed else " (n/a)"))
    ly += 24
    for note in notes:
        s.append('<text x="%d" y="%d" fill="#444">%s</text>'
                 % (RIGHT + 20, ly, escape(note)))
        ly += 18
    s.append("</svg>")
    return "\n".join(s) + "\n"
