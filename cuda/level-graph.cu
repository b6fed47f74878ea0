/* gst-cudaflow — cached CUDA graph of one pyramid level's iterations
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cuda-internal.h"
#include "cuda/level-graph.h"

extern "C" cf_status
cf_level_graph_reset (cf_level_graph * lg)
{
  cf_status status = CF_OK;

  if (lg->exec != NULL) {
    CF_CUDA_TRY (cudaGraphExecDestroy (lg->exec));
    lg->exec = NULL;
  }
out:
  return status;
}

extern "C" cf_status
cf_level_graph_run (cf_level_graph * lg, cudaStream_t capture_stream,
    cf_level_graph_enqueue enqueue, void *data, int width, int height,
    float alpha, int iterations, int *result, cudaStream_t stream)
{
  cf_status status = CF_OK;
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;

  if (lg->exec == NULL || lg->width != width || lg->height != height ||
      lg->iterations != iterations || lg->alpha != alpha) {
    int res = 0;
    cf_status enq;

    status = cf_level_graph_reset (lg);
    if (status != CF_OK)
      goto out;
    /* the capture always ends, also when a launch in it failed (the
     * partial graph is then dropped) */
    CF_CUDA_TRY (cudaStreamBeginCapture (capture_stream,
            cudaStreamCaptureModeThreadLocal));
    enq = enqueue (data, width, height, alpha, iterations, &res,
        capture_stream);
    CF_CUDA_TRY (cudaStreamEndCapture (capture_stream, &graph));
    if (enq != CF_OK) {
      status = enq;
      goto out;
    }
    CF_CUDA_TRY (cudaGraphInstantiate (&exec, graph, 0));
    lg->exec = exec;
    lg->width = width;
    lg->height = height;
    lg->iterations = iterations;
    lg->alpha = alpha;
    lg->result = res;
  }
  CF_CUDA_TRY (cudaGraphLaunch (lg->exec, stream));
  *result = lg->result;

out:
  if (graph != NULL)
    cudaGraphDestroy (graph);
  return status;
}
