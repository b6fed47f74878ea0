/* gst-cudaflow — cached CUDA graph of one pyramid level's iterations
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The iterative solvers (hs.cu, clg.cu) replay a level's launch sequence
 * as one graph: launches on coarse levels are too short to hide their
 * overhead. A graph is captured on the plan's private stream the first
 * time and again whenever its key (size, iteration count, alpha) changes.
 */
#ifndef CF_CUDA_LEVEL_GRAPH_H
#define CF_CUDA_LEVEL_GRAPH_H

#include <cuda_runtime_api.h>

#include "common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  cudaGraphExec_t exec;         /* NULL: none captured */
  int width, height, iterations;
  float alpha;
  int result;                   /* what the enqueue reported, e.g. which
                                 * ping-pong buffer holds the result */
} cf_level_graph;

/* Queues a level's launches on @stream (the capture stream) and reports
 * @result; @data is the plan. */
typedef cf_status (*cf_level_graph_enqueue) (void *data, int width,
    int height, float alpha, int iterations, int *result,
    cudaStream_t stream);

/* Launch @lg on @stream, capturing it on @capture_stream through @enqueue
 * first when the key changed; *result is the captured sequence's. */
cf_status cf_level_graph_run (cf_level_graph * lg,
    cudaStream_t capture_stream, cf_level_graph_enqueue enqueue, void *data,
    int width, int height, float alpha, int iterations, int *result,
    cudaStream_t stream);

/* Drop the captured graph (the next run captures again); an exec still in
 * flight is freed when it completes. */
cf_status cf_level_graph_reset (cf_level_graph * lg);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_LEVEL_GRAPH_H */
