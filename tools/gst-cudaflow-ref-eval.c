/* gst-cudaflow — accuracy of the CPU reference flow methods on
 * Middlebury-format data
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gst-cudaflow-ref-eval [--method hs|tvl1|clg] [--set name=value ...]
 *       DATA_DIR [SEQ ...]
 *
 * DATA_DIR holds <seq>/frame10.png, frame11.png and flow10.flo (see
 * docs/flow-accuracy.md); without SEQ every sub-directory that has the
 * three files is evaluated. Prints EPE and AAE per sequence and the mean.
 * The same numbers come out of the elements with backend=cpu
 * (gst-cudaflow-flow-eval); this program exists to study the algorithms
 * alone.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args-util.h"
#include "common/clg.h"
#include "common/hs.h"
#include "common/metrics.h"
#include "flow-data.h"
#include "common/pyramid.h"
#include "common/tvl1.h"

#define PROG "gst-cudaflow-ref-eval"
#define MAX_SEQS 256
#define MAX_SETS 64

typedef struct
{
  const char *method;
  cf_pyramid_params pyramid;
  cf_hs_params hs;
  cf_tvl1_params tvl1;
  cf_clg_params clg;
} eval_config;

/* @c's parameters of its method */
static void *
method_params (eval_config * c)
{
  if (!strcmp (c->method, "tvl1"))
    return &c->tvl1;
  if (!strcmp (c->method, "clg"))
    return &c->clg;
  return &c->hs;
}

/* The parameter table of @method ("hs", "tvl1" or "clg") */
static const cf_param_table *
method_table (const char *method)
{
  if (!strcmp (method, "tvl1"))
    return &cf_tvl1_param_table;
  if (!strcmp (method, "clg"))
    return &cf_clg_param_table;
  return &cf_hs_param_table;
}

/* 0 when @assignment is not NAME=VALUE of a known parameter, or the value
 * is refused (the reason, where the table gives one, in @err) */
static int
set_param (eval_config * c, const char *assignment, cf_error * err)
{
  char name[64];
  const char *eq = strchr (assignment, '=');
  double value;

  if (eq == NULL || eq - assignment >= (int) sizeof (name))
    return 0;
  memcpy (name, assignment, eq - assignment);
  name[eq - assignment] = '\0';
  value = atof (eq + 1);

  if (!strcmp (name, "levels"))
    c->pyramid.max_levels = (int) value;
  else if (!strcmp (name, "eta"))
    c->pyramid.eta = (float) value;
  else if (!strcmp (name, "presmooth"))
    c->pyramid.presmooth_sigma = (float) value;
  else if (!strcmp (name, "preset"))
    return cf_params_apply_preset (method_table (c->method),
        method_params (c), &cf_pyramid_param_table, &c->pyramid, eq + 1,
        err) == CF_OK;
  /* the method's parameters by their element property names */
  else
    return cf_params_set_text (method_table (c->method), method_params (c),
        name, eq + 1, err) == CF_OK;
  return 1;
}

static cf_status
run_method (const eval_config * c, const cf_pyramid * p0,
    const cf_pyramid * p1, cf_flow * flow)
{
  if (!strcmp (c->method, "hs"))
    return cf_hs_flow (p0, p1, &c->hs, 0, flow);
  if (!strcmp (c->method, "tvl1"))
    return cf_tvl1_flow (p0, p1, &c->tvl1, 0, flow);
  if (!strcmp (c->method, "clg"))
    return cf_clg_flow (p0, p1, &c->clg, 0, flow);
  return CF_ERROR_INVALID;
}

/* Evaluate one sequence directory; 1 on success. */
static int
eval_sequence (const eval_config * c, const char *dir, const char *seq,
    cf_flow_error * result, double *seconds)
{
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow = NULL;
  cf_pyramid *y0 = NULL, *y1 = NULL;
  cf_error err = { {0} };
  cf_status status;
  struct timespec t0, t1;
  cf_pyramid_params pp = c->pyramid;
  int ok = 0;

  if (cf_load_flow_pair (dir, seq, &f0, &f1, &truth, &err) != CF_OK) {
    fprintf (stderr, "%s: %s\n", seq, err.message);
    goto out;
  }
  if (!strcmp (c->method, "tvl1"))
    cf_tvl1_prepare_pyramid_params (&c->tvl1, &pp);
  else if (!strcmp (c->method, "clg"))
    cf_clg_prepare_pyramid_params (&c->clg, &pp);

  clock_gettime (CLOCK_MONOTONIC, &t0);
  if (!strcmp (c->method, "tvl1") && c->tvl1.normalize)
    cf_tvl1_normalize_pair (f0, f1);
  y0 = cf_pyramid_new (f0->width, f0->height, &pp);
  y1 = cf_pyramid_new (f1->width, f1->height, &pp);
  flow = cf_flow_new (f0->width, f0->height);
  if (!y0 || !y1 || !flow) {
    fprintf (stderr, "%s: out of memory\n", seq);
    goto out;
  }
  status = cf_pyramid_build (y0, f0, &pp);
  if (status == CF_OK)
    status = cf_pyramid_build (y1, f1, &pp);
  if (status == CF_OK)
    status = run_method (c, y0, y1, flow);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  if (status != CF_OK) {
    fprintf (stderr, "%s: %s failed: %s\n", seq, c->method,
        cf_status_name (status));
    goto out;
  }
  *seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  ok = cf_flow_compare (flow, truth, 0, result) == CF_OK;

out:
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
  cf_pyramid_free (y0);
  cf_pyramid_free (y1);
  return ok;
}

int
main (int argc, char **argv)
{
  eval_config c;
  const char *dir = NULL;
  char *seqs[MAX_SEQS];
  int n_seqs = 0, i, n_ok = 0;
  double sum_epe = 0, sum_aae = 0, sum_t = 0;
  gchar *method = NULL, **sets = NULL, **args = NULL;
  GOptionEntry entries[] = {
    {"method", 0, 0, G_OPTION_ARG_STRING, &method,
        "hs (default), tvl1 or clg", "NAME"},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "A parameter of the method, repeatable, in order: preset (the "
          "element's presets), levels (default: the element's), eta, "
          "presmooth "
          "(all methods), else a property of the method's element with its "
          "range (cf_<method>_param_table), e.g. hs: alpha, warps, "
          "iterations; tvl1: lambda, normalize=false; clg: "
          "iterations-per-level=60,120,180,240", "NAME=VALUE"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL,
        NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };

  memset (&c, 0, sizeof (c));
  c.method = "hs";
  cf_pyramid_params_init (&c.pyramid);
  cf_hs_params_init (&c.hs);
  cf_tvl1_params_init (&c.tvl1);
  cf_clg_params_init (&c.clg);

  cf_args_parse (cf_args_context_new (PROG, "DATA_DIR [SEQ...]", entries,
          "Accuracy of the CPU reference flow methods (common/, no "
          "GStreamer, no GPU)\non Middlebury-format data: DATA_DIR holds "
          "<seq>/frame10.png, frame11.png\nand flow10.flo; without SEQ every "
          "such sub-directory is evaluated. Prints\nEPE and AAE per sequence "
          "and their mean as a markdown table.",
          "Exit status: 0 when every sequence was evaluated, 1 otherwise, 2 "
          "on a usage\nerror.\n\n"
          "Example:\n"
          "  " PROG " --method hs --set alpha=15 --set iterations=500 \\\n"
          "      data/middlebury RubberWhale\n"), PROG, &argc, &argv);
  if (method != NULL) {
    if (strcmp (method, "hs") && strcmp (method, "tvl1")
        && strcmp (method, "clg"))
      cf_args_usage_error (PROG, "unknown method '%s' (hs, tvl1 or clg)",
          method);
    c.method = method;
  }
  /* the element's default pyramid depth (its balanced preset), not the
   * generic one: the defaults here are the element's */
  c.pyramid.max_levels = method_table (c.method)->default_levels;
  /* applied once the method is known */
  for (i = 0; sets != NULL && sets[i] != NULL; i++)
    if (i == MAX_SETS)
      cf_args_usage_error (PROG, "more than %d --set", MAX_SETS);
  for (i = 0; args != NULL && args[i] != NULL; i++) {
    if (dir == NULL)
      dir = args[i];
    else if (n_seqs < MAX_SEQS)
      seqs[n_seqs++] = args[i];
  }
  for (i = 0; sets != NULL && sets[i] != NULL; i++) {
    cf_error err = { {0} };

    if (!set_param (&c, sets[i], &err))
      cf_args_usage_error (PROG, "unknown or invalid setting '%s' for %s%s%s",
          sets[i], c.method, err.message[0] ? ": " : "", err.message);
  }
  if (dir == NULL)
    cf_args_usage_error (PROG, "no DATA_DIR");
  if (n_seqs == 0 &&
      (n_seqs = cf_list_flow_sequences (dir, seqs, MAX_SEQS)) < 0)
    return 1;

  printf ("| sequence | EPE | AAE (deg) | seconds |\n|---|---|---|---|\n");
  for (i = 0; i < n_seqs; i++) {
    cf_flow_error r;
    double t = 0;
    if (!eval_sequence (&c, dir, seqs[i], &r, &t))
      continue;
    printf ("| %s | %.3f | %.3f | %.2f |\n", seqs[i], r.epe, r.aae, t);
    fflush (stdout);
    sum_epe += r.epe;
    sum_aae += r.aae;
    sum_t += t;
    n_ok++;
  }
  if (n_ok > 0)
    printf ("| **mean** | **%.3f** | **%.3f** | %.2f |\n", sum_epe / n_ok,
        sum_aae / n_ok, sum_t / n_ok);
  return n_ok == n_seqs ? 0 : 1;
}
