#!/usr/bin/env python3
# gst-cudaflow — which kernels of one cubin are byte for byte those of others
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare the kernels of cubins built from two or more versions of a file.

    same-kernels.py NEW.cubin OLD.cubin [OLD2.cubin ...]

For each kernel of NEW.cubin, prints the OLD cubins in which every section
that belongs to it (.text, .rela.text, .nv.info, .nv.shared, .nv.constant0,
...) has the same bytes: the same machine code, registers, shared memory
and parameters, so what a GPU run measured or tested of that kernel holds
for NEW. Build each version the same way, from a file of the same name
(a kernel in an anonymous namespace is named after its file), e.g.

    nvcc -cubin -gencode arch=compute_90,code=sm_90 -O3 -std=c++17 \\
        -I. -I_build -DHAVE_CONFIG_H -o new.cubin cuda/convolve-im2tensor-mma.cu

Needs readelf (binutils). Exits 1 if some kernel of NEW matches no OLD.
"""
import hashlib
import re
import subprocess
import sys

# the anonymous namespace's part of a mangled name, which differs by path
ANON = re.compile(r"N\d+_GLOBAL__N__[0-9a-f]+_\d+_\w+?_[0-9a-f]{8}")
SECTION = re.compile(
    r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)")


def kernels(path):
    """{kernel: {section kind: sha1}} of the sections named after a kernel"""
    listing = subprocess.run(["readelf", "-S", "-W", path], check=True,
                             capture_output=True, text=True).stdout
    data = open(path, "rb").read()
    found = {}
    for line in listing.splitlines():
        m = SECTION.match(line)
        if not m or "._Z" not in m.group(1):
            continue
        kind, name = m.group(1).split("._Z", 1)
        off, size = int(m.group(2), 16), int(m.group(3), 16)
        digest = hashlib.sha1(data[off:off + size]).hexdigest()
        found.setdefault(ANON.sub("", name), {})[kind] = digest
    return found


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    new = kernels(argv[1])
    olds = [(path, kernels(path)) for path in argv[2:]]
    unmatched = 0
    for name in sorted(new):
        same = [path for path, k in olds if k.get(name) == new[name]]
        unmatched += not same
        print("%s: %s" % (name, ", ".join(same) if same else "NEW"))
    return 1 if unmatched else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
