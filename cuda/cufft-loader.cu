/* gst-cudaflow — cuFFT opened at run time
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See cufft-loader.h. Host code only; it lives in a .cu file so it is
 * compiled like the rest of the layer (nvcc, C++17: thread-safe statics).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cuda/cufft-loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>

#ifndef CF_CUFFT_SONAME
#define CF_CUFFT_SONAME "libcufft.so"
#endif

/* The typedefs in the header are written by hand (C has no decltype); a
 * cuFFT header that changes a signature must fail the build, not the run. */
static_assert (std::is_same < decltype (&cufftPlan2d),
    cf_cufft_plan_2d_fn >::value, "cufftPlan2d signature");
static_assert (std::is_same < decltype (&cufftPlanMany),
    cf_cufft_plan_many_fn >::value, "cufftPlanMany signature");
static_assert (std::is_same < decltype (&cufftSetStream),
    cf_cufft_set_stream_fn >::value, "cufftSetStream signature");
static_assert (std::is_same < decltype (&cufftExecR2C),
    cf_cufft_exec_r2c_fn >::value, "cufftExecR2C signature");
static_assert (std::is_same < decltype (&cufftExecC2R),
    cf_cufft_exec_c2r_fn >::value, "cufftExecC2R signature");
static_assert (std::is_same < decltype (&cufftDestroy),
    cf_cufft_destroy_fn >::value, "cufftDestroy signature");

namespace {

struct cufft_state
{
  cf_cufft_api api;
  int ok;
  char error[256];
};

/* Resolve one symbol into *slot; 0 (and the reason in state) if missing. */
template < typename Fn >
static int
resolve (void *lib, const char *name, Fn * slot, cufft_state * state)
{
  void *sym;

  dlerror ();                   /* clear any earlier message */
  sym = dlsym (lib, name);
  if (sym == NULL) {
    const char *why = dlerror ();

    snprintf (state->error, sizeof (state->error), "%s: %s", name,
        why != NULL ? why : "symbol not found");
    return 0;
  }
  *slot = reinterpret_cast < Fn > (sym);
  return 1;
}

static void
load (cufft_state * state)
{
  void *lib;

  memset (state, 0, sizeof (*state));
  /* RTLD_LOCAL: cuFFT's symbols must not interpose on anything else the
   * host process loads */
  lib = dlopen (CF_CUFFT_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char *why = dlerror ();

    /* keep the first reason: it names the library configure found */
    snprintf (state->error, sizeof (state->error), "%s",
        why != NULL ? why : "cannot open " CF_CUFFT_SONAME);
    if (strcmp (CF_CUFFT_SONAME, "libcufft.so") != 0)
      lib = dlopen ("libcufft.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
      return;
    state->error[0] = '\0';
  }
  if (!resolve (lib, "cufftPlan2d", &state->api.plan_2d, state)
      || !resolve (lib, "cufftPlanMany", &state->api.plan_many, state)
      || !resolve (lib, "cufftSetStream", &state->api.set_stream, state)
      || !resolve (lib, "cufftExecR2C", &state->api.exec_r2c, state)
      || !resolve (lib, "cufftExecC2R", &state->api.exec_c2r, state)
      || !resolve (lib, "cufftDestroy", &state->api.destroy, state)) {
    memset (&state->api, 0, sizeof (state->api));
    dlclose (lib);
    return;
  }
  /* never closed: plans may outlive any one user of this layer */
  state->ok = 1;
}

/* Written once, under the C++ static-initialisation lock, then only read. */
static const cufft_state *
get_state (void)
{
  static const cufft_state *state = [] {
    static cufft_state s;

    load (&s);
    return &s;
  } ();

  return state;
}

}                               /* namespace */

extern "C" const cf_cufft_api *
cf_cufft_load (void)
{
  const cufft_state *state = get_state ();

  return state->ok ? &state->api : NULL;
}

extern "C" const char *
cf_cufft_load_error (void)
{
  return get_state ()->error;
}
