/* gst-cudaflow — helpers shared by the test suites
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_TEST_UTIL_H
#define CF_TEST_UTIL_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>

#include "common/convolve.h"
#include "common/image.h"
#include "common/kernel.h"
#include "common/pyramid.h"
#include "common/tvl1.h"
#include "cuda/cuda-util.h"
#include "cuda/flow.h"

G_BEGIN_DECLS

/* Automake's exit status for a skipped test. */
#define CF_TEST_SKIP 77

/* 1 when a CUDA device can be used by this process. */
int cf_test_gpu_available (void);

/* main () of a GPU suite: exits CF_TEST_SKIP (with a note on stderr) when
 * no CUDA device is present, else runs the suite without fork (CUDA state
 * does not survive fork) and returns the number of failures. */
int cf_test_run_gpu_suite (int argc, char **argv, const char *name,
    Suite * (*make_suite) (void));

/* Data suites. A suite that mixes tests on generated input with tests on
 * the Middlebury pairs is built twice: as itself, and with
 * -DCF_TEST_DATA_SUITE as "<suite>-data". cf_test_suite_add_tcase () adds a
 * test case to the build it belongs to (@needs_data: it reads
 * CUDAFLOW_DATA_DIR), so each test runs in exactly one program. */
#ifdef CF_TEST_DATA_SUITE
#define cf_test_suite_add_tcase(suite, tcase, needs_data) \
  G_STMT_START { if (needs_data) suite_add_tcase ((suite), (tcase)); } G_STMT_END
#else
#define cf_test_suite_add_tcase(suite, tcase, needs_data) \
  G_STMT_START { if (!(needs_data)) suite_add_tcase ((suite), (tcase)); } G_STMT_END
#endif

/* main () of a data suite: exits CF_TEST_SKIP with "SKIP: no data
 * (CUDAFLOW_DATA_DIR)" on stdout when $CUDAFLOW_DATA_DIR/middlebury is not
 * a directory; with @gpu, runs like cf_test_run_gpu_suite (), else like
 * GST_CHECK_MAIN. */
int cf_test_run_data_suite (int argc, char **argv, const char *name,
    Suite * (*make_suite) (void), gboolean gpu);

/* A harness around a new @factory element whose `backend` (when not NULL)
 * and CUDA context (when not NULL) are set before it starts: a harness
 * starts its element at once, and both are fixed at start. */
GstHarness *cf_test_harness_new (const gchar * factory, const gchar * backend,
    GstContext * context);

/* Deterministic pseudo-random fill in [lo, hi) (xorshift, seeded). */
void cf_test_fill_random (cf_image * image, guint32 seed, float lo, float hi);

/* A new image / flow filled by cf_test_fill_random (v with another seed
 * than u); the test fails when out of memory. */
cf_image *cf_test_random_image (int width, int height, guint32 seed, float lo,
    float hi);
cf_flow *cf_test_random_flow (int width, int height, guint32 seed, float lo,
    float hi);

/* A new flow of values drawn from {−2.5, −1, −0, +0, 1, 2}: ties in every
 * window of a median filter, and both zeros. */
cf_flow *cf_test_few_values_flow (int width, int height, guint32 seed);

/* A new image of plateaus: 8 x 8 cells of 4 levels 30 apart (0..90), so a
 * guided filter sees equal weights within a cell and a boundary every
 * few pixels. */
cf_image *cf_test_plateau_image (int width, int height);

/* One case of the weighted median's matrix (a filter of @src guided by
 * @guide at @size and @sigma, as the suites check it). */
typedef void (*cf_test_wmedian_check) (const cf_flow * src,
    const cf_image * guide, int size, float sigma, const char *what);

/* The weighted median's matrix on a @width x @height image (@seed varies
 * the random fields): continuous values and ties with −0 and +0 (the
 * fields above), a guide of noise and one of plateaus, every window size,
 * σ 10 and 3 (more weights past the table); @check on each case. */
void cf_test_weighted_median_cases (int width, int height, guint32 seed,
    cf_test_wmedian_check check);

/* A new kw x kh kernel with taps in [-1, 1) (full rank but for 1-wide
 * ones). */
cf_kernel *cf_test_random_kernel (int kw, int kh, guint32 seed);

/* Fail unless @got holds no NaN and max |got - ref| <= tol * max (1,
 * max |ref|) (images of one size). */
void cf_test_assert_image_close (const cf_image * got, const cf_image * ref,
    double tol, const char *what);

/* im2tensor's bar. It rounds every input sample and every tap to fp16
 * (unit roundoff u = 2^-11) and sums exact products in fp32, so each
 * product F in is off by at most (1 + u)^2 - 1 ~ 2u = 9.8e-4 of |F in|.
 * The bar is therefore per pixel, against A(x, y) = sum |F| |in| over the
 * same taps (cf_convolve () of |K|; the inputs are >= 0):
 *   |got - cpu| <= CF_TEST_IM2TENSOR_TOLERANCE A(x, y)
 *                  + CF_TEST_IM2TENSOR_FLOOR max (1, max A),
 * twice the worst case of the roundings, leaving room for the fp32 sums
 * (the WMMA kernel adds at most kh_hat + kw + 17 terms in sequence, the
 * MMA kernel kh ceil (kw / 16) results of 16 products each: below 1e-4
 * relative at K = 127) and for taps below 2^-14 max |F| that fp16 holds
 * as subnormals. A bar relative to max |cpu| would not do: a random signed
 * kernel whose taps nearly cancel (a kernel larger than a 1 x 1 image
 * under wrap multiplies one sample by sum F) keeps the rounding error of
 * every tap. */
#define CF_TEST_IM2TENSOR_TOLERANCE 2e-3
#define CF_TEST_IM2TENSOR_FLOOR 1e-6

/* Fail unless every pixel of @got is within the im2tensor bar of @cpu,
 * the CPU result of @src (>= 0) with @k, @border and @mode, and no NaN is
 * left; the message names the worst pixel. */
void cf_test_assert_im2tensor_close (const cf_image * got,
    const cf_image * cpu, const cf_image * src, const cf_kernel * k,
    cf_border border, cf_conv_mode mode, const char *what);

/* Fail the test, naming the call, unless a CUDA runtime call succeeds. */
#define CUDA_OK(expr)                                                   \
  G_STMT_START {                                                        \
    cudaError_t cuda_ok_err_ = (expr);                                  \
    fail_unless (cuda_ok_err_ == cudaSuccess, "%s failed: %s", #expr,   \
        cudaGetErrorName (cuda_ok_err_));                               \
  } G_STMT_END

/* A new non-blocking stream (GPU suites); fails the test on an error. */
cudaStream_t cf_test_make_stream (void);

/* Device copies for the GPU suites; each fails the test on an error.
 * upload: allocate @dst of @src's size and queue the copy on @stream;
 * poisoned: allocate and fill with NaN (outputs a kernel must overwrite);
 * download: a new host copy, @stream synchronised. */
void cf_test_upload_image (const cf_image * src, cf_cuda_image * dst,
    cudaStream_t stream);
void cf_test_poisoned_image (int width, int height, cf_cuda_image * dst,
    cudaStream_t stream);
cf_image *cf_test_download_image (const cf_cuda_image * src,
    cudaStream_t stream);
void cf_test_upload_flow (const cf_flow * src, cf_cuda_flow * dst,
    cudaStream_t stream);
void cf_test_poisoned_flow (int width, int height, cf_cuda_flow * dst,
    cudaStream_t stream);
cf_flow *cf_test_download_flow (const cf_cuda_flow * src, cudaStream_t stream);

/* Download @gpu and fail unless it holds no NaN where @ref has none and
 * max |gpu - ref| <= tol * max (1, max |ref|) (a difference below the
 * bound is logged at INFO level: "not bit-identical"). */
void cf_test_assert_cuda_image_close (const cf_cuda_image * gpu,
    const cf_image * ref, double tol, const char *what, cudaStream_t stream);
/* The same for both planes of a flow. */
void cf_test_assert_cuda_flow_close (const cf_cuda_flow * gpu,
    const cf_flow * ref, double tol, const char *what, cudaStream_t stream);
/* Fail unless two host flows of one size hold the same bits. */
void cf_test_assert_flow_identical (const cf_flow * a, const cf_flow * b,
    const char *what);
/* Fail unless the mean |got − ref| over both planes is <= @tol px (mean
 * and max logged at INFO level). */
void cf_test_assert_flow_mean_close (const cf_flow * got, const cf_flow * ref,
    double tol, const char *what);
/* Mean end-point error of @est against @truth, @border pixels left out. */
double cf_test_flow_epe (const cf_flow * est, const cf_flow * truth,
    int border);

/* A frame of @info (system memory) of pseudo-random bytes (xorshift,
 * seeded). */
GstBuffer *cf_test_random_frame (const GstVideoInfo * info, guint32 seed);

/* The text of a @size x @size kernel with taps in [-0.5, 0.5] (g_free
 * it). */
gchar *cf_test_random_kernel_text (int size, guint32 seed);

/* Fail unless every sample of the frames @a and @b of @info differs by at
 * most @tol (8- and 16-bit components). */
void cf_test_assert_frames_close (const GstVideoInfo * info, GstBuffer * a,
    GstBuffer * b, guint tol, const gchar * what);

/* A buffer of genuine GstCudaMemory of @ctx holding the frame @src (both
 * of @info, a format gst_cuda_allocator_alloc () takes: RGBA, NV12, ...),
 * the device copy newer than any host copy (NEED_DOWNLOAD set). */
GstBuffer *cf_test_cuda_buffer_from (GstCudaContext * ctx,
    const GstVideoInfo * info, GstBuffer * src);

/* Device memory a test holds so that the code under test runs out of it.
 * Device memory is one pool for every context on the device, so memory
 * taken here (with the runtime API, in the calling thread's current
 * context, the runtime's own for device 0 when none is current) is
 * missing to a GstCudaContext too. */
typedef struct cf_test_gpu_hog cf_test_gpu_hog;

/* Free device memory now, in bytes (cudaMemGetInfo); fails the test on an
 * error. */
size_t cf_test_gpu_free_bytes (void);
/* Take all free device memory but about @leave bytes (to within the
 * driver's 2 MiB granularity), in chunks of at most 1 GiB. */
cf_test_gpu_hog *cf_test_gpu_hog_take (size_t leave);
/* Bytes @hog holds. */
size_t cf_test_gpu_hog_size (const cf_test_gpu_hog * hog);
/* Give everything back; NULL is a no-op. */
void cf_test_gpu_hog_release (cf_test_gpu_hog * hog);

/* A PNG file decoded to 0..255 luma through pngdec (the suites do not
 * link libpng); NULL when the file cannot be read. */
cf_image *cf_test_read_png_grey (const char *path);

/* Directory of the optical-flow data with ground truth (CUDAFLOW_DATA_DIR;
 * the Middlebury pairs in its middlebury/ folder), or NULL when it is not
 * set or does not exist. */
const char *cf_test_data_dir (void);

/* cf_tvl1_flow_counted written out with the public steps, from normalised
 * pyramids, with each rule of common/tvl1.h written out again (per-level
 * λ, warps, iterations and median windows; the weighted median on the
 * levels at least wmedian_min_width wide, else the plain median, after
 * each warp; the brightness model after each warp's constants, its fit
 * carried from warp to warp): per level
 * ∇I1 and p = 0, per warp the constants and the iterations, between
 * levels cf_flow_resample; the coarsest level starts from the resampled
 * @flow with @use_initial, else from 0. Returns the iterations run. */
long cf_test_tvl1_steps_flow (const cf_pyramid * p0, const cf_pyramid * p1,
    const cf_tvl1_params * params, int use_initial, cf_flow * flow);

G_END_DECLS
#endif /* CF_TEST_UTIL_H */
