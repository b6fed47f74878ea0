# gst-cudaflow — what the bench reports share: reading results, writing text
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reading a benchmark's JSON results and writing a report, for
conv-report.py and hs-report.py; standard library only."""

import json
import sys


def read_results(path, prog):
    """The document of a JSON results file: a dict with a "results" list;
    otherwise the program stops with a message naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit("%s: %s: %s" % (prog, path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise SystemExit("%s: %s: no \"results\" list" % (prog, path))
    return doc


def fmt_ms(v, finest=4):
    """Milliseconds: four significant digits from 1 ms up, `finest`
    decimals below."""
    if v >= 100:
        return "%.1f" % v
    if v >= 10:
        return "%.2f" % v
    if v >= 1:
        return "%.3f" % v
    return "%.*f" % (finest, v)


def write_text(path, text):
    """To the file, or to stdout without one."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
