/* gst-cudaflow — GPU time per frame of a flow method, as the elements run it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The timing half of gst-cudaflow-flow-bench, shared with
 * gst-cudaflow-flow-frontier. It runs the same sequence of cuda/ calls as
 * the flow elements' GPU path on one stream, frame after frame, with the
 * previous frame's pyramid kept:
 *   luma     8-bit frame (device memory) -> float level 0 (TV-L1: and its
 *            intensity range, which scales λ as cudaflowtvl1 normalize=true)
 *   pyramid  Gaussian anti-alias + decimation of the new frame
 *   solve    the method on (previous, current) pyramids
 *   output   planar flow -> interleaved UV_F32LE (device memory)
 * Each stage is bracketed by CUDA events; the figures are medians over the
 * timed frames after CF_FLOW_BENCH_WARMUP_FRAMES warm-up frames. Allocation
 * happens once, before timing, as in the elements (plans live until caps
 * change). Frames are synthetic (common/synth: band-limited texture, a
 * small translation), made once per size (cf_flow_bench_frames) and
 * alternating, so every frame does the full work.
 *
 * With split_solve, "solve" is split further by timing a second plan with
 * the same settings and zero iterations (HS, CLG) or one (TV-L1, whose
 * count is >= 1; its per-iteration time is then taken out): that is the
 * work around the iterations (warps, derivatives or structure tensor,
 * increments, flow upsampling); the rest is the iterations themselves.
 * Over the pixel-iterations they make (pixels of each level times warps
 * times iterations), they give ns per pixel-iteration and a bandwidth
 * figure from the unfused fp32 traffic models of docs/flow-speed.md: 28
 * bytes per pixel per HS sweep, 36 per CLG sweep, 64 per fused TV-L1
 * iteration (above the device's bandwidth it shows DRAM traffic that
 * shared-memory fusion avoids). With TV-L1's epsilon > 0 the iteration
 * count depends on the data: the per-iteration figures are left out and
 * the count run is given.
 */
#ifndef CF_FLOW_BENCH_CORE_H
#define CF_FLOW_BENCH_CORE_H

#include <stddef.h>

#include "common/flow-engine.h"
#include "common/status.h"

#define CF_FLOW_BENCH_WARMUP_FRAMES 3

/* Everything that decides the GPU work of one flow element's frame. */
typedef struct
{
  cf_flow_solver solver;        /* the method, its parameters, kernel and
                                 * precision (common/flow-engine.h);
                                 * TV-L1's normalize scales λ by each
                                 * pair's intensity range, as the element */
  cf_pyramid_params pyramid;    /* levels, η and the smallest side (16 px,
                                 * as the elements); the presmoothing is
                                 * the method's: cf_flow_bench_pyramid_params */
  int clg_fused_depth;          /* FUSED sweeps per launch, 0 = the
                                 * plan's default */
  int hs_geometry;              /* cf_hs_geometry of a FUSED_DB HS plan,
                                 * 0 = AUTO (per level) */
  int hs_pdl;                   /* FUSED_DB launches with programmatic
                                 * dependent launch (1, where the device
                                 * has it) or without (0) */
} cf_flow_bench_config;

/* @method with common/'s defaults (its parameter table's, as the
 * element's), the pyramid's defaults (5 levels at η 0.5), fp32, the
 * automatic kernel. */
void cf_flow_bench_config_init (cf_flow_bench_config * c,
    cf_flow_method method);

/* The pyramid of @c: c->pyramid with the method's presmoothing. */
void cf_flow_bench_pyramid_params (const cf_flow_bench_config * c,
    cf_pyramid_params * p);

/* CF_OK when the GPU path runs @c; else a message in @err saying which
 * setting it cannot run (the GPU's own checks: cf_cuda_tvl1_config_check,
 * cf_clg_params_valid, parameter ranges). No device needed. */
cf_status cf_flow_bench_config_check (const cf_flow_bench_config * c,
    cf_error * err);

/* Pixel-iterations of one width x height frame: over the levels used,
 * pixels × warps × iterations of each level (per-level lists included;
 * TV-L1 with epsilon > 0: its cap, an upper bound). @sweeps (nullable):
 * iterations of all levels and warps. */
double cf_flow_bench_pixel_iterations (const cf_flow_bench_config * c,
    int width, int height, long *sweeps);

/* 1 when the iteration count is fixed (not TV-L1 with epsilon > 0). */
int cf_flow_bench_fixed_iterations (const cf_flow_bench_config * c);

enum
{
  CF_FLOW_BENCH_LUMA,
  CF_FLOW_BENCH_PYRAMID,
  CF_FLOW_BENCH_SOLVE,
  CF_FLOW_BENCH_OUTPUT,
  CF_FLOW_BENCH_N_STAGES
};

/* "luma", "pyramid", "solve", "output" */
extern const char *const cf_flow_bench_stage_names[CF_FLOW_BENCH_N_STAGES];

typedef struct
{
  int width, height;
  int n_levels;                 /* levels used */
  long sweeps;                  /* iterations of all levels and warps */
  double stage_ms[CF_FLOW_BENCH_N_STAGES];      /* medians */
  double frame_ms;              /* median of the frame's total */
  /* split_solve only: */
  double around_sweeps_ms;      /* solve without the iterations */
  double sweeps_ms;             /* the iterations */
  double cells_swept;           /* pixel-iterations per frame, all levels;
                                 * 0 when data-dependent */
  double ns_per_px_it;
  double gbps;
  long iterations;              /* TV-L1: iterations run, all levels/warps
                                 * (the device's count of the last frame) */
} cf_flow_bench_result;

/* "NAME (N SMs)" of the device the runs use, or CF_ERROR_NO_DEVICE. */
cf_status cf_flow_bench_device (char *name, size_t len);

/* The synthetic 8-bit pair of one size, in device memory: made once, used
 * by every run at that size. */
typedef struct cf_flow_bench_frames cf_flow_bench_frames;

cf_status cf_flow_bench_frames_new (int width, int height,
    cf_flow_bench_frames ** frames, cf_error * err);
void cf_flow_bench_frames_free (cf_flow_bench_frames * frames); /* NULL ok */

/* Time @c on @pair: @frames timed frames (>= 1) after the warm-up. Fills
 * @r; on a failure returns its status with a message in @err (a CUDA
 * call's error, an unusable setting). */
cf_status cf_flow_bench_run (const cf_flow_bench_config * c,
    const cf_flow_bench_frames * pair, int frames, int split_solve,
    cf_flow_bench_result * r, cf_error * err);

#endif /* CF_FLOW_BENCH_CORE_H */
