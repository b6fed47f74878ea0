#!/usr/bin/env python3
# gst-cudaflow — vendor convolution baselines beside gst-cudaflow-conv-bench
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Time the vendor libraries on the convolution gst-cudaflow-conv-bench times.

Same images and rules as tools/gst-cudaflow-conv-bench: a single-channel
float32 image of each size, square kernels of side K, 'same' output, zero
border; everything that the per-frame call does not need (weights, kernel
spectrum, padded source, cuFFT plans, cuDNN autotuning) is made before the
timing; 3 warm-up runs, then --reps runs, each bracketed by CUDA events
(torch.cuda.Event) on one stream; median and minimum reported.

  cudnn                    torch.nn.functional.conv2d, fp32 (TF32 off unless
                           --tf32), input (1,1,H,W), weight (1,1,K,K),
                           padding K//2, torch.backends.cudnn.benchmark on.
  torch-cufft-precomputed  torch.fft.rfft2 of the image zero-padded to
                           Lh x Lw, times the kernel spectrum computed once,
                           irfft2, crop to H x W (copied into the output).
                           Lh >= H+K-1 and Lw >= W+K-1 so the circular
                           convolution equals the linear one; with
                           --fft-pad fast (default) each is rounded up to
                           the next 2^a 3^b 5^c (scipy next_fast_len,
                           real=True: 4096+31-1 -> 4320), with --fft-pad
                           exact it is H+K-1 / W+K-1 as is (4126 = 2*2063,
                           a large prime factor: cuFFT's slower Bluestein
                           path).
  npp                      nppiFilter_32f_C1R_Ctx from libnppif through
                           ctypes, on the stream torch times. NPP reads
                           outside the ROI and has no border rule, so the
                           source is copied once, before timing, into a
                           zero-filled buffer with a margin of at least K on
                           every side (rounded to 32 floats so rows and the
                           first pixel stay 128-byte aligned); pSrc points at
                           the image's first pixel inside it, the ROI is
                           H x W and the anchor (K//2, K//2).

NPP's NppStreamContext is passed by value, so its layout must be exact. The
ctypes mirror below is the one of nppdefs.h in NPP 11.1 to 12.x (hStream;
nCudaDeviceId, nMultiProcessorCount, nMaxThreadsPerMultiProcessor,
nMaxThreadsPerBlock as int; size_t nSharedMemPerBlock; int major and minor
compute capability; unsigned int nStreamFlags; int nReserved0: 48 bytes).
Before use it is checked against the nppdefs.h found on the machine (CUDA
toolkit include directories), and so is the prototype of
nppiFilter_32f_C1R_Ctx in nppi_filtering_functions.h; a mismatch skips NPP
with the reason, no header found is noted. The context fields come from the
driver (cuDeviceGetAttribute, cuStreamGetFlags on torch's stream).

NPP's documentation of nppiFilter says the kernel coefficients are "stored
in reverse order": the filter is then a true convolution with the array
given (out = sum src(x - i) k[i] around the anchor), not a correlation.
Which of the two the library really computes is measured by a self-check
before timing (--no-check skips it):
each baseline runs once on a 53x37 image with a random 7x7 kernel and is
compared with a float64 CPU convolution; NPP is tried with the kernel as
given and flipped, and the orientation that gives the true convolution is
used and recorded in the note. A baseline that matches neither is reported
as "n/a" rather than timed. All three compute the true convolution, like
gst-cudaflow-conv-bench's default --mode convolution (the time does not
depend on it).

A baseline that cannot run (no torch, no cuDNN, no libnppif, a layout
mismatch, an NPP error status for a kernel size) is printed and reported as
status "n/a" with the reason; the JSON schema is the one of
gst-cudaflow-conv-bench: {"device": ..., "results": [{"impl", "width",
"height", "k", "median_ms", "min_ms", "status", "note", ...}]}. Exit
status: 0, 77 without a CUDA device, 1 on a failure other than an
unavailable baseline, 2 on bad usage.
"""

import argparse
import ctypes
import glob
import json
import os
import re
import statistics
import sys
import traceback

WARMUP = 3
DEVICE = "cuda"     # where tensors live (a test can point it elsewhere)
IMPLS = ("cudnn", "torch-cufft-precomputed", "npp")

# NppStreamContext as (type, name), nppdefs.h of NPP 11.1 .. 12.x
NPP_CONTEXT_FIELDS = [
    ("cudaStream_t", "hStream"),
    ("int", "nCudaDeviceId"),
    ("int", "nMultiProcessorCount"),
    ("int", "nMaxThreadsPerMultiProcessor"),
    ("int", "nMaxThreadsPerBlock"),
    ("size_t", "nSharedMemPerBlock"),
    ("int", "nCudaDevAttrComputeCapabilityMajor"),
    ("int", "nCudaDevAttrComputeCapabilityMinor"),
    ("unsigned int", "nStreamFlags"),
    ("int", "nReserved0"),
]
NPP_SIZE_FIELDS = [("int", "width"), ("int", "height")]
NPP_POINT_FIELDS = [("int", "x"), ("int", "y")]
# parameter types of nppiFilter_32f_C1R_Ctx (Npp32s is int)
NPP_FILTER_PARAMS = ["const Npp32f *", "int", "Npp32f *", "int", "NppiSize",
                     "const Npp32f *", "NppiSize", "NppiPoint",
                     "NppStreamContext"]

# driver attributes (cuda.h CUdevice_attribute)
CU_ATTR_MAX_THREADS_PER_BLOCK = 1
CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8
CU_ATTR_MULTIPROCESSOR_COUNT = 16
CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39
CU_ATTR_COMPUTE_CAPABILITY_MAJOR = 75
CU_ATTR_COMPUTE_CAPABILITY_MINOR = 76


class Unavailable(Exception):
    """A baseline that cannot run here; the message says why."""


def log(msg):
    print("conv-baselines: " + msg, file=sys.stderr, flush=True)


def parse_sizes(text):
    sizes = []
    for tok in text.split(","):
        m = re.fullmatch(r"(\d+)x(\d+)", tok.strip())
        if not m or not 1 <= int(m.group(1)) <= 16384 \
                or not 1 <= int(m.group(2)) <= 16384:
            raise argparse.ArgumentTypeError("bad size '%s'" % tok)
        sizes.append((int(m.group(1)), int(m.group(2))))
    return sizes


def parse_ks(text):
    ks = []
    for tok in text.split(","):
        if not tok.strip().isdigit() or not 1 <= int(tok) <= 1023:
            raise argparse.ArgumentTypeError("bad kernel side '%s'" % tok)
        ks.append(int(tok))
    return ks


def parse_impls(text):
    impls = [t.strip() for t in text.split(",")]
    for name in impls:
        if name not in IMPLS:
            raise argparse.ArgumentTypeError(
                "unknown baseline '%s' (known: %s)" % (name, ",".join(IMPLS)))
    return impls


def next_fast_len(n):
    """Smallest m >= n whose only prime factors are 2, 3 and 5."""
    m = n
    while True:
        r = m
        for p in (2, 3, 5):
            while r % p == 0:
                r //= p
        if r == 1:
            return m
        m += 1


# ---------------------------------------------------------------- headers

def strip_c_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def normalise_decl(decl):
    """'const  Npp32f*pSrc' -> ('const Npp32f *', 'pSrc'); Npp32s -> int."""
    decl = " ".join(decl.replace("*", " * ").split())
    m = re.fullmatch(r"(.*\S)\s+([A-Za-z_]\w*)", decl)
    if not m:
        return decl, ""
    return re.sub(r"\bNpp32s\b", "int", m.group(1)), m.group(2)


def header_struct(text, name):
    """Fields (type, name) of 'typedef struct ... { ... } name;', or None."""
    m = re.search(r"typedef\s+struct\s*\w*\s*\{([^{}]*)\}\s*" + name +
                  r"\s*;", strip_c_comments(text))
    if not m:
        return None
    return [normalise_decl(d) for d in m.group(1).split(";") if d.strip()]


def header_prototype(text, name):
    """Parameter types of function name, or None."""
    m = re.search(r"\b" + name + r"\s*\(([^)]*)\)", strip_c_comments(text))
    if not m:
        return None
    return [normalise_decl(p)[0] for p in m.group(1).split(",")]


def cuda_include_dirs():
    dirs = []
    for env in ("CUDA_HOME", "CUDA_PATH", "CUDA_PREFIX"):
        if os.environ.get(env):
            dirs.append(os.path.join(os.environ[env], "include"))
    dirs += ["/usr/local/cuda/include",
             "/usr/local/cuda/targets/x86_64-linux/include",
             "/usr/include", "/usr/include/x86_64-linux-gnu"]
    dirs += sorted(glob.glob("/usr/local/cuda-*/include"), reverse=True)
    for p in sys.path:
        dirs += glob.glob(os.path.join(p, "nvidia", "*", "include"))
    return [d for d in dirs if os.path.isdir(d)]


def cuda_lib_dirs():
    dirs = []
    for env in ("CUDA_HOME", "CUDA_PATH", "CUDA_PREFIX"):
        if os.environ.get(env):
            dirs.append(os.path.join(os.environ[env], "lib64"))
    dirs += ["/usr/local/cuda/lib64",
             "/usr/local/cuda/targets/x86_64-linux/lib",
             "/usr/lib/x86_64-linux-gnu"]
    dirs += sorted(glob.glob("/usr/local/cuda-*/lib64"), reverse=True)
    for p in sys.path:
        dirs += glob.glob(os.path.join(p, "nvidia", "*", "lib"))
    return [d for d in dirs if os.path.isdir(d)]


def check_npp_headers():
    """Compare our ctypes mirror with the machine's NPP headers.

    Returns a note; raises Unavailable on a mismatch."""
    for d in cuda_include_dirs():
        defs = os.path.join(d, "nppdefs.h")
        filt = os.path.join(d, "nppi_filtering_functions.h")
        if not os.path.isfile(defs):
            continue
        with open(defs, encoding="utf-8", errors="replace") as f:
            text = f.read()
        checked, unparsed = [], []
        for name, want in (("NppStreamContext", NPP_CONTEXT_FIELDS),
                           ("NppiSize", NPP_SIZE_FIELDS),
                           ("NppiPoint", NPP_POINT_FIELDS)):
            got = header_struct(text, name)
            if got is None:
                unparsed.append(name)
            elif got != want:
                raise Unavailable("%s: %s is %s, this script mirrors %s"
                                  % (defs, name, got, want))
            else:
                checked.append(name)
        got = None
        if os.path.isfile(filt):
            with open(filt, encoding="utf-8", errors="replace") as f:
                got = header_prototype(f.read(), "nppiFilter_32f_C1R_Ctx")
        if got is None:
            unparsed.append("nppiFilter_32f_C1R_Ctx")
        elif got != NPP_FILTER_PARAMS:
            raise Unavailable("%s: nppiFilter_32f_C1R_Ctx takes %s, this "
                              "script passes %s"
                              % (filt, got, NPP_FILTER_PARAMS))
        else:
            checked.append("nppiFilter_32f_C1R_Ctx")
        note = "%s checked against %s" % (", ".join(checked) or "nothing",
                                          os.path.dirname(defs))
        if unparsed:
            note += " (not found or not parsed: %s)" % ", ".join(unparsed)
        return note
    return "nppdefs.h not found: layout of NPP 11.1-12.x assumed, " \
        "unchecked (the self-check still runs)"


# ---------------------------------------------------------------- NPP

class NppiSize(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int)]


class NppiPoint(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]


class NppStreamContext(ctypes.Structure):
    _fields_ = [
        ("hStream", ctypes.c_void_p),
        ("nCudaDeviceId", ctypes.c_int),
        ("nMultiProcessorCount", ctypes.c_int),
        ("nMaxThreadsPerMultiProcessor", ctypes.c_int),
        ("nMaxThreadsPerBlock", ctypes.c_int),
        ("nSharedMemPerBlock", ctypes.c_size_t),
        ("nCudaDevAttrComputeCapabilityMajor", ctypes.c_int),
        ("nCudaDevAttrComputeCapabilityMinor", ctypes.c_int),
        ("nStreamFlags", ctypes.c_uint),
        ("nReserved0", ctypes.c_int),
    ]


def soname_key(path):
    """Sort key: libnppif.so.13.0.1 after libnppif.so.12 after .so."""
    tail = os.path.basename(path).split(".so")[-1]
    return [int(x) for x in tail.split(".") if x.isdigit()]


def load_npp():
    """(filter function, library path); raises Unavailable."""
    for d in cuda_lib_dirs():
        found = sorted(glob.glob(os.path.join(d, "libnppif.so*")),
                       key=soname_key)
        if not found:
            continue
        path = found[-1]
        # libnppif needs libnppc (and libcudart) by soname, and the
        # directory need not be on the loader's path: load those first. A
        # library already loaded satisfies a soname whatever its scope, so
        # RTLD_LOCAL does, without putting a second cudart in front of
        # torch's in the global scope.
        for dep in ("libcudart.so*", "libnppc.so*"):
            deps = sorted(glob.glob(os.path.join(d, dep)), key=soname_key)
            if deps:
                try:
                    ctypes.CDLL(deps[-1], mode=ctypes.RTLD_LOCAL)
                except OSError as e:
                    log("could not preload %s: %s" % (deps[-1], e))
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise Unavailable("cannot load %s: %s" % (path, e))
        try:
            fn = lib.nppiFilter_32f_C1R_Ctx
        except AttributeError:
            raise Unavailable("%s has no nppiFilter_32f_C1R_Ctx" % path)
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                       ctypes.c_int, NppiSize, ctypes.c_void_p, NppiSize,
                       NppiPoint, NppStreamContext]
        return fn, path
    raise Unavailable("no libnppif.so* in " + ", ".join(cuda_lib_dirs()))


def npp_stream_context(torch, stream):
    """NppStreamContext for a torch stream, filled from the driver."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        raise Unavailable("cannot load libcuda.so.1: %s" % e)
    ordinal = torch.cuda.current_device()
    dev = ctypes.c_int()
    if cu.cuDeviceGet(ctypes.byref(dev), ordinal) != 0:
        raise Unavailable("cuDeviceGet failed")

    def attr(a):
        v = ctypes.c_int()
        if cu.cuDeviceGetAttribute(ctypes.byref(v), a, dev) != 0:
            raise Unavailable("cuDeviceGetAttribute(%d) failed" % a)
        return v.value

    flags = ctypes.c_uint()
    if cu.cuStreamGetFlags(ctypes.c_void_p(stream.cuda_stream),
                           ctypes.byref(flags)) != 0:
        raise Unavailable("cuStreamGetFlags failed")
    ctx = NppStreamContext()
    ctx.hStream = stream.cuda_stream
    ctx.nCudaDeviceId = ordinal
    ctx.nMultiProcessorCount = attr(CU_ATTR_MULTIPROCESSOR_COUNT)
    ctx.nMaxThreadsPerMultiProcessor = attr(
        CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR)
    ctx.nMaxThreadsPerBlock = attr(CU_ATTR_MAX_THREADS_PER_BLOCK)
    ctx.nSharedMemPerBlock = attr(CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK)
    ctx.nCudaDevAttrComputeCapabilityMajor = attr(
        CU_ATTR_COMPUTE_CAPABILITY_MAJOR)
    ctx.nCudaDevAttrComputeCapabilityMinor = attr(
        CU_ATTR_COMPUTE_CAPABILITY_MINOR)
    ctx.nStreamFlags = flags.value
    ctx.nReserved0 = 0
    return ctx


# ---------------------------------------------------------------- baselines

class Baselines:
    """The three baselines on one torch stream; make_* return a callable
    that runs one frame into a preallocated output."""

    def __init__(self, torch, args):
        self.torch = torch
        self.F = torch.nn.functional
        self.args = args
        self.stream = torch.cuda.Stream()
        self.npp = None          # (function, context) once loaded
        self.npp_note = ""
        self.npp_flip = False    # pass the kernel flipped to get convolution
        self.broken = {}         # impl -> reason, for every size and K

    # cuDNN: conv2d is a correlation; the flipped weight makes it the true
    # convolution
    def make_cudnn(self, x, k):
        torch = self.torch
        if not torch.backends.cudnn.is_available():
            raise Unavailable("cuDNN is not available to torch")
        kk = k.shape[-1]
        w = torch.flip(k, dims=(0, 1)).reshape(1, 1, kk, kk).contiguous()
        x4 = x.reshape(1, 1, *x.shape)
        F = self.F

        def run():
            return F.conv2d(x4, w, padding=kk // 2)[0, 0]
        return run, "fp32, TF32 %s" % ("allowed" if self.args.tf32 else "off")

    def make_cufft(self, x, k):
        torch = self.torch
        h, w = x.shape
        kk = k.shape[-1]
        if self.args.fft_pad == "fast":
            lh, lw = next_fast_len(h + kk - 1), next_fast_len(w + kk - 1)
        else:
            lh, lw = h + kk - 1, w + kk - 1
        spectrum = torch.fft.rfft2(k, s=(lh, lw))
        out = torch.empty_like(x)
        a = kk // 2

        def run():
            xs = torch.fft.rfft2(x, s=(lh, lw))
            xs.mul_(spectrum)
            y = torch.fft.irfft2(xs, s=(lh, lw))
            out.copy_(y[a:a + h, a:a + w])
            return out
        return run, "padded to %dx%d (%s; H+K-1 = %dx%d)" % (
            lw, lh, "next 2^a3^b5^c" if self.args.fft_pad == "fast"
            else "exact", w + kk - 1, h + kk - 1)

    def load_npp(self):
        if self.npp is None:
            self.npp_note = check_npp_headers()
            fn, path = load_npp()
            ctx = npp_stream_context(self.torch, self.stream)
            self.npp = (fn, ctx)
            self.npp_note = "%s; %s" % (os.path.basename(path),
                                        self.npp_note)
            log("NPP: " + self.npp_note)
        return self.npp

    def make_npp(self, x, k, flip=None):
        torch = self.torch
        fn, ctx = self.load_npp()
        h, w = x.shape
        kk = k.shape[-1]
        flip = self.npp_flip if flip is None else flip
        kdev = (torch.flip(k, dims=(0, 1)) if flip else k).contiguous()
        # zero margin >= K on every side, multiples of 32 floats
        m = -(-kk // 32) * 32
        pitch = -(-(m + w + m) // 32) * 32
        padded = torch.zeros(m + h + m, pitch, device=x.device,
                             dtype=torch.float32)
        padded[m:m + h, m:m + w].copy_(x)
        out = torch.empty_like(x)
        src = padded.data_ptr() + (m * pitch + m) * 4
        args = (ctypes.c_void_p(src), pitch * 4,
                ctypes.c_void_p(out.data_ptr()), out.stride(0) * 4,
                NppiSize(w, h), ctypes.c_void_p(kdev.data_ptr()),
                NppiSize(kk, kk), NppiPoint(kk // 2, kk // 2), ctx)

        def run():
            status = fn(*args)
            if status < 0:
                raise Unavailable("nppiFilter_32f_C1R_Ctx returned NPP "
                                  "status %d" % status)
            return out
        run.keep = (padded, kdev)   # args hold raw pointers into these
        return run, "padded source, 'valid' ROI; kernel %s" % (
            "flipped (NPP correlates)" if flip else
            "as given (NPP convolves: coefficients in reverse order)")

    def make(self, impl, x, k):
        if impl in self.broken:
            raise Unavailable(self.broken[impl])
        if impl == "cudnn":
            return self.make_cudnn(x, k)
        if impl == "torch-cufft-precomputed":
            return self.make_cufft(x, k)
        return self.make_npp(x, k)

    def self_check(self, impl):
        """Compare with a float64 CPU convolution on a small case; for NPP,
        pick the kernel orientation. Marks the impl broken on failure."""
        torch = self.torch
        gen = torch.Generator().manual_seed(7)
        xc = torch.rand(37, 53, generator=gen, dtype=torch.float64)
        kc = torch.rand(7, 7, generator=gen, dtype=torch.float64)
        ref = self.F.conv2d(xc[None, None], torch.flip(kc, (0, 1))[None, None],
                            padding=3)[0, 0]
        x = xc.float().to(DEVICE)
        k = kc.float().to(DEVICE)
        torch.cuda.synchronize()    # made on the default stream
        scale = float(ref.abs().max())
        tol = 2e-3 if self.args.tf32 and impl == "cudnn" else 1e-4
        try:
            with torch.cuda.stream(self.stream):
                tries = [False, True] if impl == "npp" else [None]
                errs = []
                for flip in tries:
                    if impl == "npp":
                        run, _ = self.make_npp(x, k, flip)
                    else:
                        run, _ = self.make(impl, x, k)
                    y = run().double().cpu()
                    self.stream.synchronize()
                    err = float((y - ref).abs().max()) / scale
                    errs.append(err)
                    if err < tol:
                        if impl == "npp":
                            self.npp_flip = flip
                        log("self-check %s: max relative error %.2e%s"
                            % (impl, err, "" if flip is None else
                               (" with the kernel flipped" if flip else
                                " with the kernel as given")))
                        return
            self.broken[impl] = "self-check failed: max relative error " + \
                ", ".join("%.2e" % e for e in errs) + \
                (" (kernel as given, flipped)" if impl == "npp" else "")
        except Unavailable as e:
            self.broken[impl] = str(e)
        except Exception as e:   # a broken library must not stop the others
            self.broken[impl] = "%s: %s" % (type(e).__name__, e)
        log("%s unavailable: %s" % (impl, self.broken[impl]))

    def time(self, run, reps):
        torch = self.torch
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        times = []
        with torch.cuda.stream(self.stream):
            for i in range(-WARMUP, reps):
                start.record(self.stream)
                run()
                end.record(self.stream)
                end.synchronize()
                if i >= 0:
                    times.append(start.elapsed_time(end))
        return statistics.median(times), min(times)


def row(impl, w, h, k, status, note, median=None, minimum=None):
    return {"impl": impl, "width": w, "height": h, "k": k, "kernel": "random",
            "status": status, "median_ms": median, "min_ms": minimum,
            "note": note}


def write_markdown(f, doc):
    f.write("Device: %s. Median and minimum of %d runs after %d warm-up "
            "runs, CUDA events on one stream.\n\n"
            % (doc["device"], doc["reps"], doc["warmup"]))
    f.write("| size | K | impl | median ms | min ms | note |\n"
            "|---|---|---|---|---|---|\n")
    for r in doc["results"]:
        if r["status"] == "ok":
            f.write("| %dx%d | %d | %s | %.4f | %.4f | %s |\n"
                    % (r["width"], r["height"], r["k"], r["impl"],
                       r["median_ms"], r["min_ms"], r["note"]))
        else:
            f.write("| %dx%d | %d | %s | %s | – | %s |\n"
                    % (r["width"], r["height"], r["k"], r["impl"],
                       r["status"], r["note"]))


def write_json(f, doc):
    """One result per line, like gst-cudaflow-conv-bench."""
    f.write("{\n")
    for key, value in doc.items():
        if key != "results":
            f.write("  %s: %s,\n" % (json.dumps(key), json.dumps(value)))
    f.write('  "results": [\n%s\n  ]\n}\n' % ",\n".join(
        "    " + json.dumps(r) for r in doc["results"]))


def main():
    ap = argparse.ArgumentParser(
        description="cuDNN, cuFFT and NPP convolution timings in "
        "gst-cudaflow-conv-bench's JSON schema (see the file's docstring)")
    ap.add_argument("--sizes", type=parse_sizes,
                    default=parse_sizes("4096x4096,1920x1080"))
    ap.add_argument("--ks", type=parse_ks,
                    default=parse_ks("3,7,15,31,63,127"))
    ap.add_argument("--impls", type=parse_impls, default=list(IMPLS))
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--fft-pad", choices=("fast", "exact"), default="fast")
    ap.add_argument("--tf32", action="store_true",
                    help="let cuDNN use TF32 tensor cores")
    ap.add_argument("--no-check", action="store_true",
                    help="skip the small correctness self-check")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps must be >= 1")

    doc = {"device": "unknown", "tool": "conv-baselines.py",
           "border": "zero", "mode": "convolution", "warmup": WARMUP,
           "reps": args.reps, "fft_pad": args.fft_pad, "results": []}
    status = 0
    try:
        import torch
    except Exception as e:      # ImportError, or a broken CUDA install
        reason = "torch cannot be imported: %s" % e
        log(reason + "; every baseline skipped")
        for (w, h) in args.sizes:
            for k in args.ks:
                for impl in args.impls:
                    doc["results"].append(row(impl, w, h, k, "n/a", reason))
        torch = None
    if torch is not None:
        if not torch.cuda.is_available():
            log("no CUDA device visible to torch")
            return 77
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        doc["device"] = "%s (%d SMs)" % (props.name,
                                         props.multi_processor_count)
        doc["torch"] = torch.__version__
        doc["cuda"] = torch.version.cuda
        doc["cudnn"] = torch.backends.cudnn.version() \
            if torch.backends.cudnn.is_available() else None
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = args.tf32
        torch.set_grad_enabled(False)
        b = Baselines(torch, args)
        if not args.no_check:
            for impl in args.impls:
                b.self_check(impl)
        gen = torch.Generator(device=DEVICE).manual_seed(1)
        for (w, h) in args.sizes:
            x = 255 * torch.rand(h, w, device=DEVICE, generator=gen)
            for k in args.ks:
                kern = torch.rand(k, k, device=DEVICE, generator=gen) + 0.05
                kern /= kern.sum()
                torch.cuda.synchronize()    # made on the default stream
                for impl in args.impls:
                    try:
                        with torch.cuda.stream(b.stream):
                            run, note = b.make(impl, x, kern)
                        med, mn = b.time(run, args.reps)
                        doc["results"].append(
                            row(impl, w, h, k, "ok", note, med, mn))
                        log("%-24s %5dx%-5d K=%-4d %10.4f ms (min %.4f)"
                            % (impl, w, h, k, med, mn))
                    except Unavailable as e:
                        doc["results"].append(row(impl, w, h, k, "n/a",
                                                  str(e)))
                        log("%-24s %5dx%-5d K=%-4d n/a: %s"
                            % (impl, w, h, k, e))
                    except Exception as e:
                        # e.g. out of memory: record, go on, fail at the end
                        traceback.print_exc()
                        doc["results"].append(row(
                            impl, w, h, k, "error",
                            "%s: %s" % (type(e).__name__, e)))
                        status = 1
                        try:
                            torch.cuda.synchronize()
                        except Exception:
                            pass
                    torch.cuda.empty_cache()
        if b.npp is not None:
            doc["npp"] = b.npp_note

    write_markdown(sys.stdout, doc)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            write_markdown(f, doc)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            write_json(f, doc)
    return status


if __name__ == "__main__":
    sys.exit(main())
