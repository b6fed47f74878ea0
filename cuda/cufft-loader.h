/* gst-cudaflow — cuFFT opened at run time, internal
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to cuda/ (and the tests): the plugin must load on machines that
 * have a GPU driver but no cuFFT, so libcufft is never linked. The first
 * call to cf_cufft_load () dlopens CF_CUFFT_SONAME (config.h, e.g.
 * "libcufft.so.12"), falling back to "libcufft.so", and resolves the few
 * entry points the FFT method uses. Types come from <cufft.h> (header only).
 * Plain C declarations, no device code.
 */
#ifndef CF_CUDA_CUFFT_LOADER_H
#define CF_CUDA_CUFFT_LOADER_H

#include <cufft.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Pointer types of the cuFFT functions we use; cufft-loader.cu checks at
 * compile time that they match the declarations in <cufft.h>. */
typedef cufftResult (*cf_cufft_plan_2d_fn) (cufftHandle * plan, int nx,
    int ny, cufftType type);
typedef cufftResult (*cf_cufft_plan_many_fn) (cufftHandle * plan, int rank,
    int *n, int *inembed, int istride, int idist, int *onembed, int ostride,
    int odist, cufftType type, int batch);
typedef cufftResult (*cf_cufft_set_stream_fn) (cufftHandle plan,
    cudaStream_t stream);
typedef cufftResult (*cf_cufft_exec_r2c_fn) (cufftHandle plan,
    cufftReal * idata, cufftComplex * odata);
typedef cufftResult (*cf_cufft_exec_c2r_fn) (cufftHandle plan,
    cufftComplex * idata, cufftReal * odata);
typedef cufftResult (*cf_cufft_destroy_fn) (cufftHandle plan);

typedef struct
{
  cf_cufft_plan_2d_fn plan_2d;
  cf_cufft_plan_many_fn plan_many;
  cf_cufft_set_stream_fn set_stream;
  cf_cufft_exec_r2c_fn exec_r2c;
  cf_cufft_exec_c2r_fn exec_c2r;
  cf_cufft_destroy_fn destroy;
} cf_cufft_api;

/* The resolved entry points, or NULL when cuFFT could not be opened or
 * lacks one of them. Loads once per process (thread-safe); the library
 * stays open until the process exits. */
const cf_cufft_api *cf_cufft_load (void);

/* Why cf_cufft_load () returns NULL (the dlopen or dlsym error text), or ""
 * when cuFFT is available. Loads first if that was not done yet. */
const char *cf_cufft_load_error (void);

#ifdef __cplusplus
}
#endif
#endif /* CF_CUDA_CUFFT_LOADER_H */
