/* gst-cudaflow — accuracy of a flow element on Middlebury-format data,
 * through GStreamer
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gst-cudaflow-flow-eval [--element NAME] [--set prop=value ...]
 *       [--png OUT_DIR] DATA_DIR [SEQ ...]
 *
 * DATA_DIR holds <seq>/frame10.png, frame11.png and flow10.flo (see
 * docs/flow-accuracy.md); without SEQ every sub-directory that has the
 * three files is evaluated. For each pair the program builds
 *   appsrc (GRAY8) ! NAME prop=value ... ! appsink (UV_F32LE, system memory)
 * pushes the two frames and compares the second flow field with the ground
 * truth: EPE and AAE per sequence and the mean, as a markdown table. The
 * element runs exactly as in a pipeline (backend=auto picks the GPU where
 * there is one; tools/flow-eval-core.c, which gst-cudaflow-flow-frontier
 * shares). The pipelines share one CUDA context, so "seconds" of the first
 * pair includes creating it. With --png, OUT_DIR/<seq>.png is the
 * Middlebury colour coding of the estimate and OUT_DIR/<seq>-truth.png that
 * of the ground truth, both scaled by the ground truth's largest known
 * magnitude.
 *
 * Frames go in as 8-bit luma (grey PNGs exactly; colour ones through
 * Rec.601 rounded to 8 bits, like a GRAY8 stream would carry them).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

#include "args-util.h"
#include "common/flowviz.h"
#include "common/metrics.h"
#include "flow-data.h"
#include "flow-eval-core.h"
#include "png-io.h"

#define PROG "gst-cudaflow-flow-eval"
#define MAX_SEQS 256
#define MAX_SETS 64

typedef struct
{
  const char *element;
  const char *sets[MAX_SETS];
  int n_sets;
  const char *png_dir;
} eval_config;

/* Element description for gst_parse_launch: NAME prop=value ... */
static gchar *
element_description (const eval_config * c)
{
  GString *s = g_string_new (c->element);
  int i;

  for (i = 0; i < c->n_sets; i++)
    g_string_append_printf (s, " %s", c->sets[i]);
  return g_string_free (s, FALSE);
}

/* Run the element on (f0, f1) through @ev; the flow of the second frame,
 * or NULL with the reason printed. */
static cf_flow *
run_element (const eval_config * c, cf_flow_eval * ev, const char *seq,
    const cf_image * f0, const cf_image * f1)
{
  gchar *desc = element_description (c), *message = NULL;
  GError *error = NULL;
  GstElement *element = gst_parse_bin_from_description (desc, TRUE, &error);
  cf_flow *flow = NULL;

  g_free (desc);
  if (element == NULL || error != NULL) {
    fprintf (stderr, "%s: %s\n", seq, error ? error->message : "no element");
    g_clear_error (&error);
    if (element)
      gst_object_unref (gst_object_ref_sink (element));
    return NULL;
  }
  flow = cf_flow_eval_run (ev, element, f0, f1, &message);
  if (flow == NULL)
    fprintf (stderr, "%s: %s\n", seq, message);
  g_free (message);
  return flow;
}

static void
write_png (const char *path, const cf_flow * flow, float max_flow)
{
  /* designated: the fields for the other modes (overlay opacity) stay 0 */
  cf_flowviz_params vp = { .mode = CF_FLOWVIZ_MIDDLEBURY, .arrow_step = 16,
    .r = 0, .g = 1, .b = 2, .a = 3
  };
  size_t uv_stride = (size_t) flow->width * 2 * sizeof (float);
  float *uv = g_malloc (uv_stride * flow->height);
  guint8 *rgba = g_malloc ((size_t) flow->width * 4 * flow->height);
  guint8 *rgb = g_malloc ((size_t) flow->width * 3 * flow->height);
  cf_error err = { {0} };
  size_t i, n = (size_t) flow->width * flow->height;

  cf_flow_to_interleaved (flow, uv, uv_stride);
  cf_flowviz_render (uv, uv_stride, flow->width, flow->height, &vp, max_flow,
      rgba, (size_t) flow->width * 4);
  for (i = 0; i < n; i++)
    memcpy (rgb + 3 * i, rgba + 4 * i, 3);
  if (cf_png_write_rgb (path, rgb, flow->width, flow->height,
          flow->width * 3, &err) != CF_OK)
    fprintf (stderr, "%s: %s\n", path, err.message);
  g_free (uv);
  g_free (rgba);
  g_free (rgb);
}

static int
eval_sequence (const eval_config * c, cf_flow_eval * ev, const char *dir,
    const char *seq, cf_flow_error * result, double *seconds)
{
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *truth = NULL, *flow = NULL;
  cf_error err = { {0} };
  gint64 t0;
  int ok = 0;

  if (cf_load_flow_pair (dir, seq, &f0, &f1, &truth, &err) != CF_OK) {
    fprintf (stderr, "%s: %s\n", seq, err.message);
    goto out;
  }
  t0 = g_get_monotonic_time ();
  flow = run_element (c, ev, seq, f0, f1);
  *seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (flow == NULL)
    goto out;
  ok = cf_flow_compare (flow, truth, 0, result) == CF_OK;
  if (ok && c->png_dir) {
    size_t uv_stride = (size_t) truth->width * 2 * sizeof (float);
    float *uv = g_malloc (uv_stride * truth->height);
    float max_flow;
    gchar *path;

    cf_flow_to_interleaved (truth, uv, uv_stride);
    max_flow = cf_flowviz_max_magnitude (uv, uv_stride, truth->width,
        truth->height);
    g_free (uv);
    path = g_strdup_printf ("%s/%s.png", c->png_dir, seq);
    write_png (path, flow, max_flow);
    g_free (path);
    path = g_strdup_printf ("%s/%s-truth.png", c->png_dir, seq);
    write_png (path, truth, max_flow);
    g_free (path);
  }

out:
  cf_image_free (f0);
  cf_image_free (f1);
  cf_flow_free (truth);
  cf_flow_free (flow);
  return ok;
}

int
main (int argc, char **argv)
{
  eval_config c;
  cf_flow_eval *ev;
  const char *dir = NULL;
  char *seqs[MAX_SEQS];
  int n_seqs = 0, i, n_ok = 0;
  double sum_epe = 0, sum_aae = 0, sum_t = 0;
  gchar *element = NULL, *png_dir = NULL, **sets = NULL, **args = NULL;
  GOptionEntry entries[] = {
    {"element", 0, 0, G_OPTION_ARG_STRING, &element,
        "Flow element to run (default cudaflowhs)", "NAME"},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
        "Element property, as in gst-launch-1.0 (repeatable)", "PROP=VALUE"},
    {"png", 0, 0, G_OPTION_ARG_FILENAME, &png_dir,
        "Also write the flows as pictures to OUT_DIR", "OUT_DIR"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL,
        NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx;

  ctx = cf_args_context_new (PROG, "DATA_DIR [SEQ...]", entries,
      "Accuracy of a flow element on "
      "Middlebury-format data, through GStreamer:\n"
      "appsrc (GRAY8) ! NAME PROP=VALUE ... ! appsink (UV_F32LE). DATA_DIR "
      "holds\n<seq>/frame10.png, frame11.png and flow10.flo; without SEQ "
      "every such\nsub-directory is evaluated. Prints EPE and AAE per "
      "sequence and their mean\nas a markdown table.",
      "NAME is cudaflowhs, cudaflowtvl1, "
      "cudaflowclg or any element with video in and\nUV_F32LE flow out. "
      "With --png, OUT_DIR/<seq>.png is the Middlebury colour\ncoding of "
      "the estimate and OUT_DIR/<seq>-truth.png that of the ground truth.\n\n"
      "Exit status: 0 when every sequence was evaluated, 1 otherwise, 2 on a "
      "usage\nerror.\n\n"
      "Example:\n"
      "  " PROG " --element cudaflowtvl1 --set preset=fast \\\n"
      "      --png out data/middlebury RubberWhale\n");
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  cf_args_parse (ctx, PROG, &argc, &argv);

  memset (&c, 0, sizeof (c));
  c.element = element ? element : "cudaflowhs";
  c.png_dir = png_dir;
  for (i = 0; sets && sets[i]; i++) {
    if (c.n_sets == MAX_SETS)
      cf_args_usage_error (PROG, "more than %d --set", MAX_SETS);
    if (strchr (sets[i], '=') == NULL)
      cf_args_usage_error (PROG, "--set '%s' is not PROP=VALUE", sets[i]);
    c.sets[c.n_sets++] = sets[i];
  }
  for (i = 0; args && args[i]; i++) {
    if (dir == NULL)
      dir = args[i];
    else if (n_seqs < MAX_SEQS)
      seqs[n_seqs++] = args[i];
  }
  if (dir == NULL)
    cf_args_usage_error (PROG, "no DATA_DIR");
  if (c.png_dir && g_mkdir_with_parents (c.png_dir, 0755) != 0) {
    perror (c.png_dir);
    return 1;
  }
  if (n_seqs == 0 &&
      (n_seqs = cf_list_flow_sequences (dir, seqs, MAX_SEQS)) < 0)
    return 1;
  if (n_seqs == 0) {
    fprintf (stderr, PROG ": no <seq>/flow10.flo under %s\n", dir);
    return 1;
  }

  {
    gchar *desc = element_description (&c);
    printf ("`%s`\n\n", desc);
    g_free (desc);
  }
  printf ("| sequence | EPE | AAE (deg) | seconds |\n|---|---|---|---|\n");
  ev = cf_flow_eval_new ();
  for (i = 0; i < n_seqs; i++) {
    cf_flow_error r;
    double t = 0;
    if (!eval_sequence (&c, ev, dir, seqs[i], &r, &t))
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
  cf_flow_eval_free (ev);
  return n_ok == n_seqs ? 0 : 1;
}
