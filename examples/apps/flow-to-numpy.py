#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""flow-to-numpy: the optical flow of a pipeline as numpy arrays.

Runs a pipeline whose flow element has output=meta, reads each frame's
GstCudaFlowMeta through GObject introspection (GstCudaFlow 1.0) into a
(height, width, 2) float32 array of (u, v), and prints the same line per
frame as flow-stats. With --frames A.png B.png it estimates the flow of
that pair; --truth compares the last field with a Middlebury .flo file.
"""
import argparse
import sys

import numpy as np
import gi

gi.require_version("Gst", "1.0")
try:
    gi.require_version("GstCudaFlow", "1.0")
except ValueError:
    sys.exit("GstCudaFlow-1.0.typelib not found: install gst-cudaflow built "
             "with introspection, or set GI_TYPELIB_PATH")
from gi.repository import Gst, GstCudaFlow  # noqa: E402

DEFAULT_PIPELINE = ("videotestsrc pattern=ball num-buffers={n} ! "
                    "video/x-raw,width=320,height=240 ! {element} output=meta "
                    "! appsink name=sink")
# Two still images as two frames one second apart; the estimators take
# GRAY8 but not the RGB that pngdec gives for colour files.
FRAMES_PIPELINE = ("appsrc name=src format=time caps=image/png,framerate=1/1 "
                   "! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! "
                   "{element} output=meta ! appsink name=sink")


def read_flo(path):
    """A Middlebury .flo file as a (height, width, 2) float32 array."""
    with open(path, "rb") as f:
        tag = np.fromfile(f, "<f4", 1)
        if tag.size != 1 or tag[0] != 202021.25:
            raise ValueError(f"{path}: not a .flo file")
        width, height = np.fromfile(f, "<i4", 2)
        flow = np.fromfile(f, "<f4", 2 * width * height)
    return flow.reshape(height, width, 2)


def time_str(t):
    return "none" if t == Gst.CLOCK_TIME_NONE else f"{t / Gst.SECOND:.3f}s"


def pull_samples(pipeline):
    """Yields the samples of the appsink named "sink" until EOS."""
    sink = pipeline.get_by_name("sink")
    # statistics as fast as they come, not at the frame rate
    sink.set_property("sync", False)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    try:
        while True:
            # a timeout, so that an error (no EOS then) is seen on the bus
            sample = sink.emit("try-pull-sample", Gst.SECOND // 10)
            if sample is not None:
                yield sample
            elif sink.get_property("eos"):
                return
            else:
                msg = bus.pop_filtered(Gst.MessageType.ERROR)
                if msg is not None:
                    err, _ = msg.parse_error()
                    raise RuntimeError(f"{msg.src.get_name()}: {err.message}")
    finally:
        pipeline.set_state(Gst.State.NULL)


def read_flow(index, sample):
    """Prints the line of one frame; returns its field, or None if invalid."""
    caps = sample.get_caps().get_structure(0)
    size = (caps.get_value("width"), caps.get_value("height"))
    meta = GstCudaFlow.buffer_get_cuda_flow_meta(sample.get_buffer())
    if meta is None:
        sys.exit(f"frame {index} has no flow meta")
    if (meta.width, meta.height) != size:
        sys.exit(f"frame {index}: flow is {meta.width}x{meta.height}, "
                 f"video {size[0]}x{size[1]}")
    interval = f"{time_str(meta.prev_pts)} -> {time_str(meta.pts)}"
    if not meta.valid:
        print(f"frame {index}  {interval}  invalid  no flow")
        return None
    # packed rows on the host, whatever memory the field is in
    flow = np.frombuffer(meta.read_packed().get_data(), np.float32)
    flow = flow.reshape(meta.height, meta.width, 2)
    length = np.linalg.norm(flow.astype(np.float64), axis=2)
    print(f"frame {index}  {interval}  valid  "
          f"mean {length.mean():.4f}  max {length.max():.4f}")
    return flow


def main():
    parser = argparse.ArgumentParser(
        description="Print the optical flow of each frame; numpy arrays "
        "from GstCudaFlowMeta.",
        epilog="Example: flow-to-numpy.py --frames frame10.png frame11.png "
        "--truth flow10.flo")
    parser.add_argument("-e", "--element", default="cudaflowtvl1",
                        help="flow element, with properties if any "
                        "(default: %(default)s)")
    parser.add_argument("-n", "--num-buffers", type=int, default=10,
                        metavar="N",
                        help="frames of the default pipeline "
                        "(default: %(default)s)")
    parser.add_argument("-p", "--pipeline",
                        help="pipeline to run instead, ending in "
                        "'appsink name=sink'")
    parser.add_argument("--frames", nargs=2, metavar=("A.png", "B.png"),
                        help="estimate the flow from A to B")
    parser.add_argument("--truth", metavar="FILE.flo",
                        help="print the endpoint error of the last field "
                        "against this ground truth")
    parser.add_argument("--save", metavar="FILE.npy",
                        help="save the last field, (height, width, 2) float32")
    args = parser.parse_args()

    Gst.init(None)
    if args.pipeline:
        description = args.pipeline
    elif args.frames:
        description = FRAMES_PIPELINE.format(element=args.element)
    else:
        description = DEFAULT_PIPELINE.format(n=args.num_buffers,
                                              element=args.element)
    pipeline = Gst.parse_launch(description)
    if args.frames:
        src = pipeline.get_by_name("src")
        for i, path in enumerate(args.frames):
            with open(path, "rb") as f:
                buf = Gst.Buffer.new_wrapped(f.read())
            buf.pts, buf.duration = i * Gst.SECOND, Gst.SECOND
            src.emit("push-buffer", buf)
        src.emit("end-of-stream")

    last = None
    try:
        for index, sample in enumerate(pull_samples(pipeline)):
            flow = read_flow(index, sample)
            if flow is not None:
                last = flow
    except RuntimeError as e:
        sys.exit(str(e))

    if (args.truth or args.save) and last is None:
        sys.exit("no valid flow field")
    if args.save:
        np.save(args.save, last)
    if args.truth:
        truth = read_flo(args.truth)
        if truth.shape != last.shape:
            sys.exit(f"{args.truth}: {truth.shape[1]}x{truth.shape[0]}, "
                     f"flow {last.shape[1]}x{last.shape[0]}")
        # the ground truth marks unknown vectors with huge values
        known = (np.abs(truth) < 1e9).all(axis=2)
        error = np.linalg.norm(last - truth, axis=2)[known]
        print(f"EPE {error.mean():.4f} px over {known.sum()} of "
              f"{known.size} vectors")


if __name__ == "__main__":
    main()
