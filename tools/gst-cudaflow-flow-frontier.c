/* gst-cudaflow — error against GPU time per frame over a grid of settings
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gst-cudaflow-flow-frontier --element NAME [--set PROP=V1,V2,... ...]
 *       [--point 'PROP=V PROP=V ...' ...] --data DIR [--data DIR ...]
 *       [--sizes WxH,...] [--frames N] [--rank-by DATA] [--no-time]
 *       [--peers FILE] [--json FILE] [--markdown FILE] [--svg FILE]
 *
 * Users pick a point on the curve "error against time per frame". For one
 * flow element and a grid of property settings (the cross product of the
 * --set lists, plus each --point), this measures every point twice:
 *
 *   time      GPU ms per frame at each --sizes, with the timing loop of
 *             gst-cudaflow-flow-bench (tools/flow-bench-core.h: luma,
 *             pyramid, solve and output on one stream, CUDA events,
 *             medians after warm-up);
 *   accuracy  mean EPE and AAE over the pairs of each --data directory,
 *             through the element itself as gst-cudaflow-flow-eval runs it
 *             (tools/flow-eval-core.h: appsrc ! ELEMENT ! appsink).
 *
 * The timing's configuration is not a table: the element is created with
 * gst_element_factory_make, the point's settings are applied with
 * gst_util_set_object_arg (so presets, validation and defaults are the
 * element's own) and config_from_element reads the result back. A setting
 * the timing cannot reproduce refuses the point, with the reason, rather
 * than time something else.
 *
 * The Pareto set ranks the points by the EPE on one data directory
 * (--rank-by, default the first) against the time at the first size: a
 * point is on it when no other point is at least as fast and at least as
 * accurate, and better in one of the two. With --no-time (no GPU needed:
 * the accuracy then runs on the element's CPU backend where there is no
 * device) the cost axis is the work model instead: pixel-iterations per
 * frame at the first size (pixels of each pyramid level × that level's
 * warps × iterations, per-level lists included; with TV-L1's epsilon > 0
 * the iteration cap).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

#include "args-util.h"
#include "common/metrics.h"
#include "common/params.h"
#include "cuda/clg.h"
#include "cuda/hs.h"
#include "cuda/tvl1.h"
#include "flow-bench-core.h"
#include "flow-data.h"
#include "flow-eval-core.h"

#define PROG "gst-cudaflow-flow-frontier"
#define MAX_SIZES 16
#define MAX_DATA 16
#define MAX_SEQS 256
#define MAX_POINTS 10000

/* --- the points ------------------------------------------------------ */

/* One point of the grid: its settings, then what was measured. */
typedef enum
{
  POINT_OK,                     /* measured */
  POINT_REFUSED,                /* a setting the timing cannot reproduce */
  POINT_FAILED                  /* the element or the timing failed */
} point_status;

typedef struct
{
  guint index;                  /* 1, 2, ... in the order of the grid */
  gchar **names, **values;      /* the settings, in the order given */
  int n;
  gchar *label;                 /* "levels=5 warps=2", or "(defaults)" */

  point_status status;
  gchar *reason;                /* why refused or failed */
  cf_flow_bench_config config;
  double pixel_iterations;      /* at the first size */
  cf_flow_bench_result *time;   /* per size (timing only) */
  double *epe, *aae;            /* per data set: means over its pairs */
  double cost;                  /* ms, or pixel-iterations (--no-time) */
  double rank_epe;
  int pareto;
} point;

/* A --data directory, read once. */
typedef struct
{
  const char *dir;
  gchar *name;                  /* its last path component */
  int n;
  char *seqs[MAX_SEQS];
  cf_image *f0[MAX_SEQS], *f1[MAX_SEQS];
  cf_flow *truth[MAX_SEQS];
} data_set;

/* A reference method drawn on the plot (--peers). */
typedef struct
{
  gchar *name;
  double ms;                    /* < 0: no GPU time (a CPU method) */
  double epe;
} peer;

typedef struct
{
  const char *element;
  cf_flow_method method;
  int timing;
  int w[MAX_SIZES], h[MAX_SIZES], n_sizes;
  cf_flow_bench_frames *pairs[MAX_SIZES];       /* timing: one per size */
  int frames;
  data_set data[MAX_DATA];
  int n_data, rank;
  peer *peers;
  int n_peers;
  char device[256];
} frontier;

static void
point_add (GPtrArray * points, gchar ** names, gchar ** values, int n)
{
  point *p = g_new0 (point, 1);
  GString *label = g_string_new (NULL);
  int i;

  p->index = points->len + 1;
  p->names = g_new0 (gchar *, n + 1);
  p->values = g_new0 (gchar *, n + 1);
  for (i = 0; i < n; i++) {
    p->names[i] = g_strdup (names[i]);
    p->values[i] = g_strdup (values[i]);
    g_string_append_printf (label, "%s%s=%s", i ? " " : "", names[i],
        values[i]);
  }
  p->n = n;
  p->label = label->len ? g_string_free (label, FALSE) :
      (g_string_free (label, TRUE), g_strdup ("(defaults)"));
  g_ptr_array_add (points, p);
}

/* The cross product of the --set lists, the first varying slowest. */
static void
add_grid (GPtrArray * points, gchar ** sets)
{
  int n = sets ? (int) g_strv_length (sets) : 0, i, k;
  gchar **names = g_new0 (gchar *, n + 1);
  gchar ***lists = g_new0 (gchar **, n + 1);
  gchar **values = g_new0 (gchar *, n + 1);
  int *index = g_new0 (int, n + 1);
  long total = 1;

  for (i = 0; i < n; i++) {
    const char *eq = strchr (sets[i], '=');
    if (eq == NULL || eq == sets[i] || eq[1] == '\0')
      cf_args_usage_error (PROG, "--set '%s' is not PROP=VALUE[,VALUE...]",
          sets[i]);
    names[i] = g_strndup (sets[i], eq - sets[i]);
    for (k = 0; k < i; k++)
      if (strcmp (names[k], names[i]) == 0)
        cf_args_usage_error (PROG, "two --set for '%s' (one list per "
            "property)", names[i]);
    lists[i] = g_strsplit (eq + 1, ",", -1);
    for (k = 0; lists[i][k]; k++)
      if (lists[i][k][0] == '\0')
        cf_args_usage_error (PROG, "empty value in --set '%s'", sets[i]);
    total *= g_strv_length (lists[i]);
    if (total > MAX_POINTS)
      cf_args_usage_error (PROG, "the --set grid has more than %d points",
          MAX_POINTS);
  }
  while (1) {
    for (i = 0; i < n; i++)
      values[i] = lists[i][index[i]];
    point_add (points, names, values, n);
    /* next index, the last list fastest */
    for (i = n - 1; i >= 0; i--) {
      if (lists[i][++index[i]] != NULL)
        break;
      index[i] = 0;
    }
    if (i < 0)
      break;
  }
  for (i = 0; i < n; i++) {
    g_free (names[i]);
    g_strfreev (lists[i]);
  }
  g_free (names);
  g_free (lists);
  g_free (values);
  g_free (index);
}

/* --point 'PROP=V PROP=V ...' (shell quoting for a value with blanks). */
static void
add_explicit (GPtrArray * points, const char *text)
{
  gchar **argv = NULL, **names, **values;
  GError *error = NULL;
  int argc = 0, i;

  if (text[strspn (text, " \t")] == '\0') {
    point_add (points, NULL, NULL, 0);
    return;
  }
  if (!g_shell_parse_argv (text, &argc, &argv, &error))
    cf_args_usage_error (PROG, "--point '%s': %s", text, error->message);
  names = g_new0 (gchar *, argc + 1);
  values = g_new0 (gchar *, argc + 1);
  for (i = 0; i < argc; i++) {
    char *eq = strchr (argv[i], '=');
    if (eq == NULL || eq == argv[i])
      cf_args_usage_error (PROG, "--point '%s': '%s' is not PROP=VALUE", text,
          argv[i]);
    names[i] = g_strndup (argv[i], eq - argv[i]);
    values[i] = g_strdup (eq + 1);
  }
  point_add (points, names, values, argc);
  g_strfreev (names);
  g_strfreev (values);
  g_strfreev (argv);
}

/* --- the element ----------------------------------------------------- */

/* "1 .. 16", "one of fp32, fp16", ... for an error message (g_free). */
static gchar *
describe_values (GParamSpec * pspec)
{
  if (G_IS_PARAM_SPEC_INT (pspec))
    return g_strdup_printf ("%d .. %d", G_PARAM_SPEC_INT (pspec)->minimum,
        G_PARAM_SPEC_INT (pspec)->maximum);
  if (G_IS_PARAM_SPEC_DOUBLE (pspec))
    return g_strdup_printf ("%g .. %g", G_PARAM_SPEC_DOUBLE (pspec)->minimum,
        G_PARAM_SPEC_DOUBLE (pspec)->maximum);
  if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    GEnumClass *klass = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    GString *s = g_string_new ("one of ");
    guint i;
    for (i = 0; i < klass->n_values; i++)
      g_string_append_printf (s, "%s%s", i ? ", " : "",
          klass->values[i].value_nick);
    return g_string_free (s, FALSE);
  }
  if (G_IS_PARAM_SPEC_BOOLEAN (pspec))
    return g_strdup ("true or false");
  return g_strdup_printf ("a %s", g_type_name (pspec->value_type));
}

/* The element @factory with the settings of @p applied in order, each
 * checked first (it exists, is writable, parses and is in range, so that
 * GObject never replaces a bad value with a warning); NULL with a message
 * in @error (g_free) otherwise. */
static GstElement *
make_point_element (const char *factory, const point * p, gchar ** error)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  int i;

  *error = NULL;
  if (e == NULL) {
    *error = g_strdup_printf ("no element %s (is the cudaflow plugin in "
        "GST_PLUGIN_PATH?)", factory);
    return NULL;
  }
  gst_object_ref_sink (e);
  for (i = 0; i < p->n; i++) {
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        p->names[i]);
    GValue v = G_VALUE_INIT;
    gboolean bad;
    gchar *range;

    if (pspec == NULL) {
      *error = g_strdup_printf ("%s has no property '%s'", factory,
          p->names[i]);
      break;
    }
    if (!(pspec->flags & G_PARAM_WRITABLE)) {
      *error = g_strdup_printf ("%s's '%s' is read-only", factory,
          p->names[i]);
      break;
    }
    g_value_init (&v, pspec->value_type);
    bad = !gst_value_deserialize_with_pspec (&v, p->values[i], pspec) ||
        g_param_value_validate (pspec, &v);
    g_value_unset (&v);
    if (bad) {
      range = describe_values (pspec);
      *error = g_strdup_printf ("%s=%s is not a valid value (%s)",
          p->names[i], p->values[i], range);
      g_free (range);
      break;
    }
    gst_util_set_object_arg (G_OBJECT (e), p->names[i], p->values[i]);
  }
  if (*error != NULL)
    gst_clear_object (&e);
  return e;
}

/* The parameter table of @method (common/params.h): the same rows the
 * element makes its properties from. */
static const cf_param_table *
method_table (cf_flow_method method)
{
  switch (method) {
    case CF_FLOW_METHOD_HS:
      return &cf_hs_param_table;
    case CF_FLOW_METHOD_CLG:
      return &cf_clg_param_table;
    default:
      return &cf_tvl1_param_table;
  }
}

/* How the timing treats the element properties that are not rows of the
 * method's or the pyramid's parameter table (those are copied as the
 * element stores them):
 *   PRECISION, KERNEL  copied into the solver's precision and kernel
 *   REQUIRE   must hold the given value, else the point is refused (the
 *             timing and the pair-wise accuracy cannot reproduce another)
 *   TIMED     as REQUIRE, only when timing (changes the GPU run, not the
 *             flow)
 *   NEUTRAL   changes neither the GPU work of a frame nor the flow of a
 *             pair (QoS, the PTS gap rule), or only writes other properties
 *             (preset)
 * Any other property refuses the point when it is not at its default. */
typedef enum
{ PRECISION, KERNEL, REQUIRE, TIMED, NEUTRAL } property_role;

#define M_HS (1 << CF_FLOW_METHOD_HS)
#define M_TVL1 (1 << CF_FLOW_METHOD_TVL1)
#define M_CLG (1 << CF_FLOW_METHOD_CLG)
#define M_ALL (M_HS | M_TVL1 | M_CLG)

typedef struct
{
  int methods;
  const char *name;
  property_role role;
  const char *required;         /* REQUIRE, TIMED: the value, serialised;
                                 * "!X": anything but X; "!>0": not above 0 */
  const char *why;              /* REQUIRE, TIMED */
} property_rule;

static const property_rule rules[] = {
  {M_ALL, "precision", PRECISION, NULL, NULL},
  {M_HS | M_CLG, "jacobi-kernel", KERNEL, NULL, NULL},
  {M_TVL1, "solver-kernel", KERNEL, NULL, NULL},
  {M_ALL, "use-previous-flow", REQUIRE, "false",
      "a warm start needs a sequence; the frontier measures single pairs"},
  {M_ALL, "output", REQUIRE, "flow", "the accuracy reads the flow stream"},
  {M_ALL, "backend", TIMED, "!cpu",
      "the timing measures the GPU path (--no-time measures accuracy "
        "alone)"},
  {M_ALL, "cuda-device-id", TIMED, "!>0", "the timing runs on device 0"},
  {M_ALL, "post-messages", TIMED, "false",
      "post-messages waits for each solve and downloads the field, which "
        "the timing does not model"},
  {M_ALL, "qos", NEUTRAL, NULL, NULL},
  {M_ALL, "max-gap", NEUTRAL, NULL, NULL},
  {M_ALL, "preset", NEUTRAL, NULL, NULL},
  {M_ALL, "name", NEUTRAL, NULL, NULL},
  {M_ALL, "parent", NEUTRAL, NULL, NULL},
};

/* Kernel nicks of each method's kernel property and their cuda/ values. */
static const struct
{
  int methods;
  const char *nick;
  int value;
} kernels[] = {
  {M_HS, "auto", CF_HS_KERNEL_AUTO},
  {M_HS, "simple", CF_HS_KERNEL_SIMPLE},
  {M_HS, "fused", CF_HS_KERNEL_FUSED},
  {M_HS, "fused-db", CF_HS_KERNEL_FUSED_DB},
  {M_TVL1, "auto", CF_TVL1_KERNEL_AUTO},
  {M_TVL1, "steps", CF_TVL1_KERNEL_STEPS},
  {M_TVL1, "fused", CF_TVL1_KERNEL_FUSED},
  {M_TVL1, "blocked", CF_TVL1_KERNEL_BLOCKED},
  {M_CLG, "auto", CF_CLG_KERNEL_AUTO},
  {M_CLG, "simple", CF_CLG_KERNEL_SIMPLE},
  {M_CLG, "fused", CF_CLG_KERNEL_FUSED},
};

/* The nick of kernel @value of @method (for the JSON). */
static const char *
kernel_nick (cf_flow_method method, int value)
{
  size_t i;

  for (i = 0; i < G_N_ELEMENTS (kernels); i++)
    if ((kernels[i].methods & (1 << method)) && kernels[i].value == value)
      return kernels[i].nick;
  return "?";
}

static const property_rule *
find_rule (cf_flow_method method, const char *name)
{
  size_t i;

  for (i = 0; i < G_N_ELEMENTS (rules); i++)
    if ((rules[i].methods & (1 << method)) && !strcmp (rules[i].name, name))
      return &rules[i];
  return NULL;
}

/* The nick of an enum value, or NULL. */
static const char *
enum_nick (const GValue * v)
{
  GEnumClass *klass = g_type_class_ref (G_VALUE_TYPE (v));
  GEnumValue *ev = g_enum_get_value (klass, g_value_get_enum (v));
  const char *nick = ev ? ev->value_nick : NULL;

  g_type_class_unref (klass);   /* registered enums stay alive */
  return nick;
}

/* Store property value @v in the field of table row @row of @params (the
 * row's own check, cf_param_set, or its parser for text); FALSE with a
 * reason when the table refuses it. */
static gboolean
copy_param (const cf_param * row, const GValue * v, void *params,
    gchar ** reason)
{
  cf_error err = { {0} };
  cf_status status;
  double x;

  if (row->type == CF_PARAM_TEXT) {
    status = row->parse (params, g_value_get_string (v), &err);
  } else {
    if (G_VALUE_HOLDS_INT (v))
      x = g_value_get_int (v);
    else if (G_VALUE_HOLDS_UINT (v))
      x = g_value_get_uint (v);
    else if (G_VALUE_HOLDS_DOUBLE (v))
      x = g_value_get_double (v);
    else if (G_VALUE_HOLDS_FLOAT (v))
      x = g_value_get_float (v);
    else if (G_VALUE_HOLDS_BOOLEAN (v))
      x = g_value_get_boolean (v) ? 1 : 0;
    else if (G_VALUE_HOLDS_ENUM (v))
      x = g_value_get_enum (v);
    else {
      *reason = g_strdup_printf ("%s: a %s property where the parameter "
          "table has a number", row->name, G_VALUE_TYPE_NAME (v));
      return FALSE;
    }
    status = cf_param_set (row, params, x, &err);
  }
  if (status != CF_OK) {
    *reason = g_strdup_printf ("%s: %s", row->name, err.message[0] ?
        err.message : cf_status_name (status));
    return FALSE;
  }
  return TRUE;
}

/* Copy a PRECISION or KERNEL property; FALSE with a reason when its value
 * has no counterpart in the timing. */
static gboolean
copy_choice (const property_rule * rule, cf_flow_method method,
    const GValue * v, cf_flow_bench_config * c, gchar ** reason)
{
  const char *nick = G_VALUE_HOLDS_ENUM (v) ? enum_nick (v) : NULL;
  size_t i;

  if (rule->role == PRECISION && g_strcmp0 (nick, "fp32") == 0) {
    c->solver.precision = CF_PRECISION_FP32;
    return TRUE;
  }
  if (rule->role == PRECISION && g_strcmp0 (nick, "fp16") == 0) {
    c->solver.precision = CF_PRECISION_FP16;
    return TRUE;
  }
  for (i = 0; rule->role == KERNEL && i < G_N_ELEMENTS (kernels); i++)
    if ((kernels[i].methods & (1 << method)) &&
        g_strcmp0 (nick, kernels[i].nick) == 0) {
      c->solver.kernel = kernels[i].value;
      return TRUE;
    }
  *reason = g_strdup_printf ("%s=%s has no counterpart in the timing",
      rule->name, nick ? nick : "?");
  return FALSE;
}

/* Whether @v is the value a REQUIRE/TIMED rule asks for. */
static gboolean
meets_requirement (const property_rule * rule, const GValue * v)
{
  const char *want = rule->required;
  gchar *text = G_VALUE_HOLDS_ENUM (v) ? g_strdup (enum_nick (v)) :
      gst_value_serialize (v);
  gboolean ok;

  if (strcmp (want, "!>0") == 0)
    ok = g_value_get_int (v) <= 0;
  else if (want[0] == '!')
    ok = g_strcmp0 (text, want + 1) != 0;
  else
    ok = g_strcmp0 (text, want) == 0;
  g_free (text);
  return ok;
}

/* The value of @v for a message (g_free). */
static gchar *
value_text (const GValue * v)
{
  if (G_VALUE_HOLDS_ENUM (v))
    return g_strdup (enum_nick (v) ? enum_nick (v) : "?");
  return gst_value_serialize (v);
}

/* Say once per property that the rules do not know it (a property added
 * to the element after this tool): at its default it is assumed to change
 * nothing the timing runs. */
static void
note_unmodelled (GstElement * e, const char *name)
{
  static GHashTable *noted = NULL;

  if (noted == NULL)
    noted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (g_hash_table_contains (noted, name))
    return;
  g_hash_table_add (noted, g_strdup (name));
  fprintf (stderr, PROG ": note: %s's property '%s' is unknown to the "
      "timing: points that leave it at its default are measured as if it "
      "changed nothing on the GPU, others are refused\n",
      GST_OBJECT_NAME (gst_element_get_factory (e)), name);
}

/* The one mapping from an element's settings to the timing: every
 * writable property of @e is read back (g_object_get) and either copied
 * into @c — through the method's or the pyramid's parameter table, the
 * rows the element's properties are made from, or as precision or kernel —
 * or checked against the value the measurement can reproduce, or known to
 * change nothing; a property none of these covers must be at its default.
 * Then the GPU path's own checks (cf_flow_bench_config_check). FALSE with
 * the reason in @reason (g_free) when the point cannot be measured as set.
 * @timing: the TIMED rules apply. */
static gboolean
config_from_element (GstElement * e, cf_flow_method method,
    gboolean timing, cf_flow_bench_config * c, gchar ** reason)
{
  const cf_param_table *table = method_table (method);
  guint n, i;
  GParamSpec **specs =
      g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
  gboolean ok = TRUE;
  cf_error err = { {0} };

  *reason = NULL;
  cf_flow_bench_config_init (c, method);
  for (i = 0; i < n && ok; i++) {
    GParamSpec *pspec = specs[i];
    const cf_param *row = cf_params_find (table, pspec->name);
    const cf_param *pyramid_row =
        cf_params_find (&cf_pyramid_param_table, pspec->name);
    const property_rule *rule = find_rule (method, pspec->name);
    GValue v = G_VALUE_INIT;

    if (!(pspec->flags & G_PARAM_READABLE) ||
        !(pspec->flags & G_PARAM_WRITABLE) ||
        (rule != NULL && rule->role == NEUTRAL) ||
        (rule != NULL && rule->role == TIMED && !timing))
      continue;
    g_value_init (&v, pspec->value_type);
    g_object_get_property (G_OBJECT (e), pspec->name, &v);
    if (row != NULL && !(row->flags & CF_PARAM_NO_PROPERTY)) {
      ok = copy_param (row, &v, &c->solver.params, reason);
    } else if (pyramid_row != NULL) {
      ok = copy_param (pyramid_row, &v, &c->pyramid, reason);
    } else if (rule != NULL && (rule->role == PRECISION ||
            rule->role == KERNEL)) {
      ok = copy_choice (rule, method, &v, c, reason);
    } else if (rule != NULL) {
      if (!meets_requirement (rule, &v)) {
        gchar *text = value_text (&v);
        *reason = g_strdup_printf ("%s=%s: %s", pspec->name, text, rule->why);
        g_free (text);
        ok = FALSE;
      }
    } else {
      note_unmodelled (e, pspec->name);
      if (!g_param_value_defaults (pspec, &v)) {
        gchar *text = value_text (&v);
        *reason = g_strdup_printf ("%s=%s: the timing does not model this "
            "property (only its default)", pspec->name, text);
        g_free (text);
        ok = FALSE;
      }
    }
    g_value_unset (&v);
  }
  g_free (specs);
  if (ok && cf_flow_bench_config_check (c, &err) != CF_OK) {
    *reason = g_strdup (err.message);
    ok = FALSE;
  }
  return ok;
}

/* --- measuring ------------------------------------------------------- */

/* Load every pair of @d->dir; FALSE (printed) when there is none. */
static gboolean
load_data (data_set * d)
{
  int i;

  d->n = cf_list_flow_sequences (d->dir, d->seqs, MAX_SEQS);
  if (d->n <= 0) {
    if (d->n == 0)
      fprintf (stderr, PROG ": no <seq>/flow10.flo under %s\n", d->dir);
    return FALSE;
  }
  for (i = 0; i < d->n; i++) {
    cf_error err = { {0} };
    if (cf_load_flow_pair (d->dir, d->seqs[i], &d->f0[i], &d->f1[i],
            &d->truth[i], &err) != CF_OK) {
      fprintf (stderr, PROG ": %s/%s: %s\n", d->dir, d->seqs[i],
          err.message);
      return FALSE;
    }
  }
  return TRUE;
}

/* Mean EPE and AAE of @p over the pairs of @d; FALSE with p->reason. */
static gboolean
measure_accuracy (const frontier * f, cf_flow_eval * ev, point * p,
    const data_set * d, double *epe, double *aae)
{
  double sum_epe = 0, sum_aae = 0;
  int i;

  for (i = 0; i < d->n; i++) {
    gchar *error = NULL;
    GstElement *e = make_point_element (f->element, p, &error);
    cf_flow *flow = NULL;
    cf_flow_error r;

    if (e != NULL) {
      flow = cf_flow_eval_run (ev, e, d->f0[i], d->f1[i], &error);
      gst_object_unref (e);
    }
    if (flow == NULL || cf_flow_compare (flow, d->truth[i], 0, &r) != CF_OK) {
      p->reason = g_strdup_printf ("%s/%s: %s", d->name, d->seqs[i],
          error ? error : "no comparable flow");
      g_free (error);
      cf_flow_free (flow);
      return FALSE;
    }
    sum_epe += r.epe;
    sum_aae += r.aae;
    cf_flow_free (flow);
  }
  *epe = sum_epe / d->n;
  *aae = sum_aae / d->n;
  return TRUE;
}

static void
measure_point (const frontier * f, cf_flow_eval * ev, point * p)
{
  int k;

  p->time = g_new0 (cf_flow_bench_result, f->n_sizes);
  p->epe = g_new0 (double, f->n_data);
  p->aae = g_new0 (double, f->n_data);
  if (p->status != POINT_OK)
    return;
  p->pixel_iterations = cf_flow_bench_pixel_iterations (&p->config, f->w[0],
      f->h[0], NULL);
  for (k = 0; f->timing && k < f->n_sizes; k++) {
    cf_error err = { {0} };
    if (cf_flow_bench_run (&p->config, f->pairs[k], f->frames, 0,
            &p->time[k], &err) != CF_OK) {
      p->status = POINT_FAILED;
      p->reason = g_strdup_printf ("timing at %dx%d: %s", f->w[k], f->h[k],
          err.message);
      return;
    }
  }
  for (k = 0; k < f->n_data; k++)
    if (!measure_accuracy (f, ev, p, &f->data[k], &p->epe[k], &p->aae[k])) {
      p->status = POINT_FAILED;
      return;
    }
  p->cost = f->timing ? p->time[0].frame_ms : p->pixel_iterations;
  p->rank_epe = p->epe[f->rank];
}

/* A point is on the front when no other measured point has a cost and an
 * EPE at most its own with one of the two smaller. */
static void
mark_pareto (GPtrArray * points)
{
  guint i, j;

  for (i = 0; i < points->len; i++) {
    point *a = g_ptr_array_index (points, i);
    a->pareto = a->status == POINT_OK;
    for (j = 0; j < points->len && a->pareto; j++) {
      point *b = g_ptr_array_index (points, j);
      if (j != i && b->status == POINT_OK && b->cost <= a->cost &&
          b->rank_epe <= a->rank_epe &&
          (b->cost < a->cost || b->rank_epe < a->rank_epe))
        a->pareto = 0;
    }
  }
}

/* The Pareto points, cheapest first (g_ptr_array_unref; borrowed). */
static gint
by_cost (gconstpointer a, gconstpointer b)
{
  const point *x = *(point * const *) a, *y = *(point * const *) b;

  if (x->cost != y->cost)
    return x->cost < y->cost ? -1 : 1;
  return x->rank_epe < y->rank_epe ? -1 : x->rank_epe > y->rank_epe;
}

static GPtrArray *
pareto_points (GPtrArray * points)
{
  GPtrArray *front = g_ptr_array_new ();
  guint i;

  for (i = 0; i < points->len; i++)
    if (((point *) g_ptr_array_index (points, i))->pareto)
      g_ptr_array_add (front, g_ptr_array_index (points, i));
  g_ptr_array_sort (front, by_cost);
  return front;
}

/* --- peers ----------------------------------------------------------- */

/* Lines "MS,EPE,NAME" ('#' comments, blank lines skipped; MS "-" or
 * empty for a method without GPU time; NAME is the rest of the line and
 * may hold commas). */
static void
read_peers (frontier * f, const char *path)
{
  gchar *text = NULL, **lines;
  GError *error = NULL;
  int i;

  if (!g_file_get_contents (path, &text, NULL, &error))
    cf_args_usage_error (PROG, "--peers: %s", error->message);
  lines = g_strsplit (text, "\n", -1);
  f->peers = g_new0 (peer, g_strv_length (lines) + 1);
  for (i = 0; lines[i] != NULL; i++) {
    gchar *line = g_strstrip (lines[i]), **parts;
    char *end;
    peer *p = &f->peers[f->n_peers];

    if (line[0] == '\0' || line[0] == '#')
      continue;
    parts = g_strsplit (line, ",", 3);
    if (g_strv_length (parts) != 3)
      cf_args_usage_error (PROG, "%s line %d: not MS,EPE,NAME", path, i + 1);
    g_strstrip (parts[0]);
    g_strstrip (parts[1]);
    p->name = g_strdup (g_strstrip (parts[2]));
    if (parts[0][0] == '\0' || strcmp (parts[0], "-") == 0) {
      p->ms = -1;
    } else {
      p->ms = g_ascii_strtod (parts[0], &end);
      if (*end != '\0' || !(p->ms > 0))
        cf_args_usage_error (PROG, "%s line %d: time '%s' is not a positive "
            "number of ms or '-'", path, i + 1, parts[0]);
    }
    p->epe = g_ascii_strtod (parts[1], &end);
    if (*end != '\0' || parts[1][0] == '\0' || !(p->epe >= 0) ||
        p->name[0] == '\0')
      cf_args_usage_error (PROG, "%s line %d: EPE '%s' or name is missing or "
          "not a number", path, i + 1, parts[1]);
    g_strfreev (parts);
    f->n_peers++;
  }
  g_strfreev (lines);
  g_free (text);
}

/* --- output ---------------------------------------------------------- */

static const char *
status_name (point_status s)
{
  return s == POINT_OK ? "ok" : s == POINT_REFUSED ? "refused" : "failed";
}

static const char *
cost_unit (const frontier * f)
{
  return f->timing ? "ms" : "pixel-iterations";
}

/* A JSON string literal (with quotes) of @s, or null. */
static void
json_string (FILE * out, const char *s)
{
  if (s == NULL) {
    fputs ("null", out);
    return;
  }
  fputc ('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char) *s;
    if (ch == '"' || ch == '\\')
      fprintf (out, "\\%c", ch);
    else if (ch == '\n')
      fputs ("\\n", out);
    else if (ch < 0x20)
      fprintf (out, "\\u%04x", ch);
    else
      fputc (ch, out);
  }
  fputc ('"', out);
}

/* A number, or null when not finite (JSON has no NaN). */
static void
json_number (FILE * out, double x)
{
  if (isfinite (x))
    fprintf (out, "%.6g", x);
  else
    fputs ("null", out);
}

/* ", NAME: VALUE" for each numeric, boolean or choice row of @table in
 * @params (the names are the element's property names). */
static void
json_params (FILE * out, const cf_param_table * table, const void *params)
{
  const cf_param *row;

  for (row = table->params; row->name != NULL; row++) {
    double x;
    int k;

    if (row->type == CF_PARAM_TEXT)
      continue;
    x = cf_param_get (row, params);
    fprintf (out, ", ");
    json_string (out, row->name);
    if (row->type == CF_PARAM_BOOL) {
      fprintf (out, ": %s", x != 0 ? "true" : "false");
    } else if (row->type == CF_PARAM_CHOICE) {
      for (k = 0; row->choices[k].nick && row->choices[k].value != (int) x;
          k++);
      fprintf (out, ": ");
      json_string (out, row->choices[k].nick ? row->choices[k].nick : "?");
    } else {
      fprintf (out, ": ");
      json_number (out, x);
    }
  }
}

static void
write_json (FILE * out, const frontier * f, GPtrArray * points)
{
  guint i;
  int k;
  GPtrArray *front = pareto_points (points);

  fprintf (out, "{\n  \"tool\": \"" PROG "\",\n  \"element\": ");
  json_string (out, f->element);
  fprintf (out, ",\n  \"device\": ");
  json_string (out, f->timing ? f->device : NULL);
  if (f->timing)
    fprintf (out, ",\n  \"frames\": %d,\n  \"sizes\": [", f->frames);
  else
    fprintf (out, ",\n  \"frames\": null,\n  \"sizes\": [");
  for (k = 0; k < f->n_sizes; k++)
    fprintf (out, "%s\"%dx%d\"", k ? ", " : "", f->w[k], f->h[k]);
  fprintf (out, "],\n  \"cost\": \"%s\",\n  \"cost_size\": \"%dx%d\",\n"
      "  \"rank_by\": ", cost_unit (f), f->w[0], f->h[0]);
  json_string (out, f->data[f->rank].name);
  fprintf (out, ",\n  \"data\": [");
  for (k = 0; k < f->n_data; k++) {
    fprintf (out, "%s\n    {\"name\": ", k ? "," : "");
    json_string (out, f->data[k].name);
    fprintf (out, ", \"dir\": ");
    json_string (out, f->data[k].dir);
    fprintf (out, ", \"pairs\": %d}", f->data[k].n);
  }
  fprintf (out, "\n  ],\n  \"points\": [");
  for (i = 0; i < points->len; i++) {
    const point *p = g_ptr_array_index (points, i);
    const cf_flow_bench_config *c = &p->config;
    int j;

    fprintf (out, "%s\n    {\"index\": %u, \"settings\": {", i ? "," : "",
        p->index);
    for (j = 0; j < p->n; j++) {
      fprintf (out, "%s", j ? ", " : "");
      json_string (out, p->names[j]);
      fprintf (out, ": ");
      json_string (out, p->values[j]);
    }
    fprintf (out, "}, \"label\": ");
    json_string (out, p->label);
    fprintf (out, ", \"status\": \"%s\", \"reason\": ",
        status_name (p->status));
    json_string (out, p->reason);
    if (p->status != POINT_REFUSED) {
      /* what the timing ran: the element's settings read back */
      fprintf (out, ",\n     \"config\": {\"precision\": \"%s\", "
          "\"kernel\": \"%s\"", c->solver.precision == CF_PRECISION_FP16 ?
          "fp16" : "fp32", kernel_nick (c->solver.method, c->solver.kernel));
      json_params (out, &cf_pyramid_param_table, &c->pyramid);
      json_params (out, method_table (c->solver.method), &c->solver.params);
      if (c->solver.method == CF_FLOW_METHOD_CLG) {
        fprintf (out, ", \"sweeps_per_level\": [");
        for (j = 0; j < c->pyramid.max_levels; j++)
          fprintf (out, "%s%d", j ? ", " : "",
              cf_clg_level_iterations (&c->solver.params.clg, j));
        fprintf (out, "]");
      }
      if (c->solver.method == CF_FLOW_METHOD_TVL1) {
        /* what each level ran (the uniform fields above are ignored where
         * a per-level list is set) */
        const cf_tvl1_params *t = &c->solver.params.tvl1;

        fprintf (out, ", \"warps_per_level\": [");
        for (j = 0; j < c->pyramid.max_levels; j++)
          fprintf (out, "%s%d", j ? ", " : "", cf_tvl1_level_warps (t, j));
        fprintf (out, "], \"iterations_per_level\": [");
        for (j = 0; j < c->pyramid.max_levels; j++)
          fprintf (out, "%s%d", j ? ", " : "", cf_tvl1_level_iterations (t,
                  j));
        fprintf (out, "], \"median_size_per_level\": [");
        for (j = 0; j < c->pyramid.max_levels; j++)
          fprintf (out, "%s%d", j ? ", " : "", cf_tvl1_level_median_size (t,
                  j));
        fprintf (out, "], \"lambda_per_level\": [");
        for (j = 0; j < c->pyramid.max_levels; j++) {
          fprintf (out, "%s", j ? ", " : "");
          json_number (out, cf_tvl1_level_lambda (t, j));
        }
        fprintf (out, "]");
      }
      fprintf (out, "},\n     \"pixel_iterations\": %.0f",
          p->pixel_iterations);
    }
    if (p->status == POINT_OK) {
      if (f->timing) {
        fprintf (out, ",\n     \"time\": [");
        for (k = 0; k < f->n_sizes; k++) {
          const cf_flow_bench_result *r = &p->time[k];
          fprintf (out, "%s{\"size\": \"%dx%d\", \"frame_ms\": ", k ? ", " :
              "", r->width, r->height);
          json_number (out, r->frame_ms);
          fprintf (out, ", \"solve_ms\": ");
          json_number (out, r->stage_ms[CF_FLOW_BENCH_SOLVE]);
          fprintf (out, ", \"levels_used\": %d", r->n_levels);
          if (c->solver.method == CF_FLOW_METHOD_TVL1)
            fprintf (out, ", \"iterations_run\": %ld", r->iterations);
          fprintf (out, "}");
        }
        fprintf (out, "]");
      }
      fprintf (out, ",\n     \"accuracy\": [");
      for (k = 0; k < f->n_data; k++) {
        fprintf (out, "%s{\"data\": ", k ? ", " : "");
        json_string (out, f->data[k].name);
        fprintf (out, ", \"epe\": ");
        json_number (out, p->epe[k]);
        fprintf (out, ", \"aae\": ");
        json_number (out, p->aae[k]);
        fprintf (out, "}");
      }
      fprintf (out, "],\n     \"cost\": ");
      json_number (out, p->cost);
      fprintf (out, ", \"epe\": ");
      json_number (out, p->rank_epe);
    }
    fprintf (out, ", \"pareto\": %s}", p->pareto ? "true" : "false");
  }
  fprintf (out, "\n  ],\n  \"pareto\": [");
  for (i = 0; i < front->len; i++) {
    const point *p = g_ptr_array_index (front, i);
    fprintf (out, "%s%u", i ? ", " : "", p->index);
  }
  fprintf (out, "],\n  \"peers\": [");
  for (k = 0; k < f->n_peers; k++) {
    fprintf (out, "%s\n    {\"name\": ", k ? "," : "");
    json_string (out, f->peers[k].name);
    fprintf (out, ", \"ms\": ");
    if (f->peers[k].ms < 0)
      fputs ("null", out);
    else
      json_number (out, f->peers[k].ms);
    fprintf (out, ", \"epe\": ");
    json_number (out, f->peers[k].epe);
    fprintf (out, "}");
  }
  fprintf (out, "%s]\n}\n", f->n_peers ? "\n  " : "");
  g_ptr_array_unref (front);
}

/* @s for a markdown table cell ('|' escaped). */
static void
md_cell (FILE * out, const char *s)
{
  for (; *s; s++) {
    if (*s == '|')
      fputc ('\\', out);
    fputc (*s, out);
  }
}

static void
write_markdown (FILE * out, const frontier * f, GPtrArray * points)
{
  guint i;
  int k;

  fprintf (out, "Frontier of `%s`: mean EPE (px) and AAE (degrees) over the "
      "pairs of each data set", f->element);
  if (f->timing)
    fprintf (out, "; GPU ms per frame, medians of %d frames after %d warm-up "
        "frames (CUDA events on one stream), on %s", f->frames,
        CF_FLOW_BENCH_WARMUP_FRAMES, f->device);
  else
    fprintf (out, "; not timed (--no-time): the cost is the work model, "
        "pixel-iterations per %dx%d frame", f->w[0], f->h[0]);
  fprintf (out, ". Pareto points (**yes**) rank the EPE on %s against the "
      "%s at %dx%d.\n\n| # | settings |", f->data[f->rank].name,
      f->timing ? "time" : "work", f->w[0], f->h[0]);
  for (k = 0; f->timing && k < f->n_sizes; k++)
    fprintf (out, " ms %dx%d |", f->w[k], f->h[k]);
  fprintf (out, " Mpx-it %dx%d |", f->w[0], f->h[0]);
  for (k = 0; k < f->n_data; k++)
    fprintf (out, " EPE %s | AAE %s |", f->data[k].name, f->data[k].name);
  fprintf (out, " Pareto | note |\n|---|---|");
  for (k = 0; f->timing && k < f->n_sizes; k++)
    fprintf (out, "---|");
  fprintf (out, "---|");
  for (k = 0; k < f->n_data; k++)
    fprintf (out, "---|---|");
  fprintf (out, "---|---|\n");
  for (i = 0; i < points->len; i++) {
    const point *p = g_ptr_array_index (points, i);
    int ok = p->status == POINT_OK;

    fprintf (out, "| %u | ", p->index);
    md_cell (out, p->label);
    fprintf (out, " |");
    for (k = 0; f->timing && k < f->n_sizes; k++) {
      if (ok)
        fprintf (out, " %.3f |", p->time[k].frame_ms);
      else
        fprintf (out, " – |");
    }
    if (p->status != POINT_REFUSED)
      fprintf (out, " %.2f |", p->pixel_iterations / 1e6);
    else
      fprintf (out, " – |");
    for (k = 0; k < f->n_data; k++) {
      if (ok)
        fprintf (out, " %.3f | %.2f |", p->epe[k], p->aae[k]);
      else
        fprintf (out, " – | – |");
    }
    fprintf (out, " %s | ", p->pareto ? "**yes**" : "");
    if (p->reason) {
      fprintf (out, "%s: ", status_name (p->status));
      md_cell (out, p->reason);
    }
    fprintf (out, " |\n");
  }
  if (f->n_peers > 0) {
    fprintf (out, "\nReference points (--peers, as measured for them):\n\n"
        "| method | ms | EPE |\n|---|---|---|\n");
    for (k = 0; k < f->n_peers; k++) {
      fprintf (out, "| ");
      md_cell (out, f->peers[k].name);
      if (f->peers[k].ms < 0)
        fprintf (out, " | – | %.3f |\n", f->peers[k].epe);
      else
        fprintf (out, " | %.3g | %.3f |\n", f->peers[k].ms, f->peers[k].epe);
    }
  }
}

/* @s as SVG/XML text. */
static void
xml_text (FILE * out, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
      case '&':
        fputs ("&amp;", out);
        break;
      case '<':
        fputs ("&lt;", out);
        break;
      case '>':
        fputs ("&gt;", out);
        break;
      case '"':
        fputs ("&quot;", out);
        break;
      default:
        fputc (*s, out);
    }
  }
}

/* The plot's geometry: a log cost axis, a linear EPE axis from 0. */
#define SVG_WIDTH 820
#define PLOT_LEFT 70.0
#define PLOT_RIGHT 790.0
#define PLOT_TOP 50.0
#define PLOT_BOTTOM 450.0
#define LEGEND_LINE 15

typedef struct
{
  double lo, hi;                /* decades of the cost axis */
  double ymax;                  /* top of the EPE axis */
  double ystep;
} plot_scale;

static double
plot_x (const plot_scale * s, double cost)
{
  double t = (log10 (cost) - s->lo) / (s->hi - s->lo);

  return PLOT_LEFT + CLAMP (t, 0.0, 1.0) * (PLOT_RIGHT - PLOT_LEFT);
}

static double
plot_y (const plot_scale * s, double epe)
{
  double t = epe / s->ymax;

  return PLOT_BOTTOM - CLAMP (t, 0.0, 1.0) * (PLOT_BOTTOM - PLOT_TOP);
}

/* Whether a peer is drawn as a point (else as a horizontal line): only
 * GPU times go on a time axis. */
static gboolean
peer_is_point (const frontier * f, const peer * p)
{
  return f->timing && p->ms > 0;
}

static plot_scale
make_scale (const frontier * f, GPtrArray * points)
{
  plot_scale s;
  double cmin = INFINITY, cmax = 0, emax = 0, steps[] = { 1, 2, 2.5, 5 };
  double mag;
  guint i;
  int k;

  for (i = 0; i < points->len; i++) {
    const point *p = g_ptr_array_index (points, i);
    if (p->status != POINT_OK || !(p->cost > 0))
      continue;
    cmin = MIN (cmin, p->cost);
    cmax = MAX (cmax, p->cost);
    emax = MAX (emax, p->rank_epe);
  }
  for (k = 0; k < f->n_peers; k++) {
    if (peer_is_point (f, &f->peers[k])) {
      cmin = MIN (cmin, f->peers[k].ms);
      cmax = MAX (cmax, f->peers[k].ms);
    }
    emax = MAX (emax, f->peers[k].epe);
  }
  if (!(cmax > 0)) {
    cmin = 1;
    cmax = 10;
  }
  s.lo = floor (log10 (cmin));
  s.hi = ceil (log10 (cmax));
  if (s.hi <= s.lo)
    s.hi = s.lo + 1;
  if (!(emax > 0))
    emax = 1;
  /* about five steps of 1, 2, 2.5 or 5 times a power of ten */
  mag = pow (10, floor (log10 (emax / 5)));
  for (k = 0; k < 4 && steps[k] * mag * 5 < emax; k++);
  s.ystep = (k < 4 ? steps[k] : 10) * mag;
  s.ymax = ceil (emax * 1.05 / s.ystep) * s.ystep;
  return s;
}

static void
write_svg (FILE * out, const frontier * f, GPtrArray * points)
{
  GPtrArray *front = pareto_points (points);
  plot_scale s = make_scale (f, points);
  int height = (int) PLOT_BOTTOM + 60 + LEGEND_LINE * (front->len + 1);
  double y, d;
  guint i;
  int k, m;

  fprintf (out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      SVG_WIDTH, height, SVG_WIDTH, height);
  fprintf (out, "<text x=\"%g\" y=\"24\" font-size=\"14\">", PLOT_LEFT);
  xml_text (out, f->element);
  fprintf (out, ": mean EPE on ");
  xml_text (out, f->data[f->rank].name);
  fprintf (out, " against %s per %dx%d frame</text>\n", f->timing ?
      "GPU time" : "pixel-iterations", f->w[0], f->h[0]);

  /* grid: decades and their 2..9 multiples; EPE steps */
  for (d = s.lo; d <= s.hi; d++)
    for (m = 1; m <= (d < s.hi ? 9 : 1); m++) {
      double x = plot_x (&s, m * pow (10, d));
      fprintf (out, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
          "stroke=\"%s\"/>\n", x, PLOT_TOP, x, PLOT_BOTTOM,
          m == 1 ? "#bbb" : "#eee");
      if (m == 1 || (s.hi - s.lo <= 2 && (m == 2 || m == 5)))
        fprintf (out, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%g"
            "</text>\n", x, PLOT_BOTTOM + 16, m * pow (10, d));
    }
  for (y = 0; y <= s.ymax + s.ystep / 2; y += s.ystep) {
    fprintf (out, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" "
        "stroke=\"#ddd\"/>\n<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">"
        "%g</text>\n", PLOT_LEFT, plot_y (&s, y), PLOT_RIGHT, plot_y (&s, y),
        PLOT_LEFT - 6, plot_y (&s, y) + 4, y);
  }
  fprintf (out, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" "
      "fill=\"none\" stroke=\"#333\"/>\n", PLOT_LEFT, PLOT_TOP,
      PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP);
  fprintf (out, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s per "
      "%dx%d frame (log scale)</text>\n", (PLOT_LEFT + PLOT_RIGHT) / 2,
      PLOT_BOTTOM + 36, f->timing ? "GPU ms" : "pixel-iterations (work "
      "model, --no-time)", f->w[0], f->h[0]);
  fprintf (out, "<text transform=\"translate(18 %g) rotate(-90)\" "
      "text-anchor=\"middle\">mean EPE on ", (PLOT_TOP + PLOT_BOTTOM) / 2);
  xml_text (out, f->data[f->rank].name);
  fprintf (out, " (px)</text>\n");

  /* peers: GPU times as diamonds, the others as horizontal lines */
  for (k = 0; k < f->n_peers; k++) {
    const peer *p = &f->peers[k];
    double py = plot_y (&s, p->epe);
    if (peer_is_point (f, p)) {
      double px = plot_x (&s, p->ms);
      fprintf (out, "<path d=\"M %.1f %.1f l 6 6 l -6 6 l -6 -6 z\" "
          "fill=\"#d9822b\"><title>", px, py - 6);
      xml_text (out, p->name);
      fprintf (out, ": %g ms, EPE %.3f</title></path>\n<text x=\"%.1f\" "
          "y=\"%.1f\" fill=\"#a55d14\">", p->ms, p->epe, px + 9, py - 6);
    } else {
      fprintf (out, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" "
          "stroke=\"#d9822b\" stroke-dasharray=\"6 4\"/>\n<text x=\"%g\" "
          "y=\"%.1f\" text-anchor=\"end\" fill=\"#a55d14\">", PLOT_LEFT, py,
          PLOT_RIGHT, py, PLOT_RIGHT - 4, py - 4);
    }
    xml_text (out, p->name);
    fprintf (out, " (EPE %.3f)</text>\n", p->epe);
  }

  /* the front, then every measured point with its number */
  if (front->len > 0) {
    fprintf (out, "<polyline fill=\"none\" stroke=\"#1f4e9c\" "
        "stroke-width=\"1.5\" points=\"");
    for (i = 0; i < front->len; i++) {
      const point *p = g_ptr_array_index (front, i);
      fprintf (out, "%s%.1f,%.1f", i ? " " : "", plot_x (&s, p->cost),
          plot_y (&s, p->rank_epe));
    }
    fprintf (out, "\"/>\n");
  }
  /* the other points first, so that the front's are drawn over them */
  for (i = 0; i < 2 * points->len; i++) {
    const point *p = g_ptr_array_index (points, i % points->len);
    double px, py;
    if (p->status != POINT_OK || !(p->cost > 0) ||
        p->pareto != (i >= points->len))
      continue;
    px = plot_x (&s, p->cost);
    py = plot_y (&s, p->rank_epe);
    fprintf (out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\">"
        "<title>#%u ", px, py, p->pareto ? 4 : 3, p->pareto ? "#1f4e9c" :
        "#999", p->index);
    xml_text (out, p->label);
    fprintf (out, ": %.4g %s, EPE %.3f</title></circle>\n<text x=\"%.1f\" "
        "y=\"%.1f\" font-size=\"9\" fill=\"%s\">%u</text>\n", p->cost,
        cost_unit (f), p->rank_epe, px + 5, py - 4, p->pareto ? "#1f4e9c" :
        "#777", p->index);
  }

  /* legend: the front's points in cost order */
  fprintf (out, "<text x=\"%g\" y=\"%g\" font-weight=\"bold\">Pareto front "
      "(blue line; grey: other points; orange: reference methods, their EPE "
      "as measured for them):</text>\n",
      PLOT_LEFT, PLOT_BOTTOM + 60);
  for (i = 0; i < front->len; i++) {
    const point *p = g_ptr_array_index (front, i);
    fprintf (out, "<text x=\"%g\" y=\"%g\">#%u ", PLOT_LEFT,
        PLOT_BOTTOM + 60 + LEGEND_LINE * (i + 1), p->index);
    xml_text (out, p->label);
    fprintf (out, ": %.4g %s, EPE %.3f</text>\n", p->cost, cost_unit (f),
        p->rank_epe);
  }
  fprintf (out, "</svg>\n");
  g_ptr_array_unref (front);
}

/* The Pareto set on stdout, cheapest first. */
static void
print_front (const frontier * f, GPtrArray * points)
{
  GPtrArray *front = pareto_points (points);
  guint i, n_ok = 0;

  for (i = 0; i < points->len; i++)
    n_ok += ((point *) g_ptr_array_index (points, i))->status == POINT_OK;
  printf ("Pareto set of %s: EPE on %s against %s per %dx%d frame (%u of %u "
      "measured points)\n\n| # | %s | EPE | AAE | settings |\n"
      "|---|---|---|---|---|\n", f->element, f->data[f->rank].name,
      f->timing ? "GPU ms" : "pixel-iterations", f->w[0], f->h[0],
      front->len, n_ok, f->timing ? "ms" : "Mpx-it");
  for (i = 0; i < front->len; i++) {
    const point *p = g_ptr_array_index (front, i);
    printf ("| %u | %.4g | %.3f | %.2f | %s |\n", p->index, f->timing ?
        p->cost : p->cost / 1e6, p->rank_epe, p->aae[f->rank], p->label);
  }
  g_ptr_array_unref (front);
}

/* Write @f's results to @path with @writer; FALSE (printed) on failure. */
static gboolean
write_file (const char *path, void (*writer) (FILE *, const frontier *,
        GPtrArray *), const frontier * f, GPtrArray * points)
{
  FILE *out = fopen (path, "w");

  if (out == NULL) {
    perror (path);
    return FALSE;
  }
  writer (out, f, points);
  if (fclose (out) != 0) {
    perror (path);
    return FALSE;
  }
  return TRUE;
}

/* --- main ------------------------------------------------------------ */

static const struct
{
  const char *element;
  cf_flow_method method;
} methods[] = {
  {"cudaflowhs", CF_FLOW_METHOD_HS},
  {"cudaflowtvl1", CF_FLOW_METHOD_TVL1},
  {"cudaflowclg", CF_FLOW_METHOD_CLG},
};

int
main (int argc, char **argv)
{
  frontier f;
  GPtrArray *points;
  cf_flow_eval *ev;
  gchar *element = NULL, **sets = NULL, **explicit = NULL, **dirs = NULL,
      *sizes_opt = NULL, *frames_opt = NULL, *rank_opt = NULL,
      *peers_opt = NULL, *json_opt = NULL, *md_opt = NULL, *svg_opt = NULL,
      **rest = NULL;
  gboolean no_time = FALSE;
  guint i, n_failed = 0, n_ok = 0;
  int k;
  GOptionEntry entries[] = {
    {"element", 0, 0, G_OPTION_ARG_STRING, &element,
        "Flow element: cudaflowhs, cudaflowtvl1 or cudaflowclg", "NAME"},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "A grid axis: the points are the cross product of the --set "
          "lists (repeatable; a value with commas goes in --point)",
        "PROP=V1,V2,..."},
    {"point", 0, 0, G_OPTION_ARG_STRING_ARRAY, &explicit,
          "One more point, its settings separated by blanks (repeatable; "
          "shell quoting for a value with blanks)", "'PROP=V PROP=V ...'"},
    {"data", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs,
          "Middlebury-format directory: <seq>/frame10.png, frame11.png, "
          "flow10.flo (repeatable; at least one)", "DIR"},
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_opt,
          "Frame sizes to time (default 1920x1080); the first is the "
          "Pareto set's", "WxH,..."},
    {"frames", 0, 0, G_OPTION_ARG_STRING, &frames_opt,
        "Timed frames per point and size, after 3 warm-up frames "
          "(default 20)", "N"},
    {"rank-by", 0, 0, G_OPTION_ARG_STRING, &rank_opt,
          "Data set whose EPE ranks the points: a --data DIR or its last "
          "component (default the first)", "DATA"},
    {"no-time", 0, 0, G_OPTION_ARG_NONE, &no_time,
          "Measure accuracy only (no GPU needed); the cost axis is then "
          "pixel-iterations per frame", NULL},
    {"peers", 0, 0, G_OPTION_ARG_FILENAME, &peers_opt,
          "Reference methods for the plot and the table: lines MS,EPE,NAME "
          "(MS '-' without GPU time)", "FILE"},
    {"json", 0, 0, G_OPTION_ARG_FILENAME, &json_opt,
        "Write every point and the Pareto set as JSON", "FILE"},
    {"markdown", 0, 0, G_OPTION_ARG_FILENAME, &md_opt,
        "Write a table of every point, Pareto points marked", "FILE"},
    {"svg", 0, 0, G_OPTION_ARG_FILENAME, &svg_opt,
        "Plot EPE against time (log axis), front and peers, as SVG", "FILE"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = cf_args_context_new (PROG, NULL, entries,
      "Error against GPU time per frame for a grid of settings of one flow "
      "element:\nfor each point the GPU ms per frame (the timing of "
      "gst-cudaflow-flow-bench,\nconfigured from the element's own "
      "properties) and the mean EPE and AAE on\neach --data directory "
      "(through the element, as gst-cudaflow-flow-eval);\nthen the Pareto "
      "set. The Pareto set goes to stdout as a markdown table,\nprogress "
      "to stderr.",
      "A point whose settings the timing cannot reproduce (use-previous-flow,"
      "\noutput=meta, backend=cpu, a property it does not model) is refused "
      "with the\nreason and left off the front.\n\n"
      "Exit status: 0 when every point not refused was measured, 1 "
      "otherwise, 2 on a\nusage error, 77 without a usable CUDA device "
      "(unless --no-time).\n\n"
      "Example:\n"
      "  " PROG " --element cudaflowtvl1 \\\n"
      "      --set levels=4,5 --set warps=1,3 --set iterations=10,50 \\\n"
      "      --point 'preset=romera' --data data/middlebury \\\n"
      "      --json frontier.json --markdown frontier.md --svg frontier.svg\n");

  g_option_context_add_group (ctx, gst_init_get_option_group ());
  cf_args_parse (ctx, PROG, &argc, &argv);
  memset (&f, 0, sizeof (f));
  if (rest != NULL && rest[0] != NULL)
    cf_args_usage_error (PROG, "unexpected argument '%s'", rest[0]);
  if (element == NULL)
    cf_args_usage_error (PROG, "no --element");
  for (i = 0; i < G_N_ELEMENTS (methods); i++)
    if (strcmp (element, methods[i].element) == 0)
      break;
  if (i == G_N_ELEMENTS (methods))
    cf_args_usage_error (PROG, "--element %s: the timing knows cudaflowhs, "
        "cudaflowtvl1 and cudaflowclg", element);
  f.element = element;
  f.method = methods[i].method;
  f.timing = !no_time;
  f.n_sizes = cf_args_parse_sizes (PROG, "--sizes", sizes_opt ? sizes_opt :
      "1920x1080", f.w, f.h, MAX_SIZES);
  f.frames = 20;
  if (frames_opt != NULL) {
    char *end;
    long n = strtol (frames_opt, &end, 10);
    if (end == frames_opt || *end != '\0' || n < 1 || n > 100000)
      cf_args_usage_error (PROG, "bad --frames '%s' (1 .. 100000)",
          frames_opt);
    f.frames = (int) n;
  }
  if (dirs == NULL || dirs[0] == NULL)
    cf_args_usage_error (PROG, "no --data DIR");
  for (k = 0; dirs[k] != NULL; k++) {
    int j;
    if (k == MAX_DATA)
      cf_args_usage_error (PROG, "more than %d --data", MAX_DATA);
    f.data[k].dir = dirs[k];
    f.data[k].name = g_path_get_basename (dirs[k]);
    for (j = 0; j < k; j++)
      if (strcmp (f.data[j].name, f.data[k].name) == 0)
        cf_args_usage_error (PROG, "two --data named '%s' (the tables name "
            "a data set by its last path component)", f.data[k].name);
  }
  f.n_data = k;
  for (k = 0; rank_opt != NULL && k < f.n_data; k++)
    if (strcmp (rank_opt, f.data[k].name) == 0 ||
        strcmp (rank_opt, f.data[k].dir) == 0)
      break;
  if (k == f.n_data)
    cf_args_usage_error (PROG, "--rank-by '%s' is not one of the --data",
        rank_opt);
  f.rank = rank_opt != NULL ? k : 0;
  if (peers_opt != NULL)
    read_peers (&f, peers_opt);

  /* the points, each checked against the element before anything runs */
  if (gst_element_factory_find (element) == NULL) {
    fprintf (stderr, PROG ": no element %s (is the cudaflow plugin in "
        "GST_PLUGIN_PATH?)\n", element);
    return 1;
  }
  points = g_ptr_array_new ();
  if (sets != NULL || explicit == NULL)
    add_grid (points, sets);
  for (k = 0; explicit != NULL && explicit[k] != NULL; k++)
    add_explicit (points, explicit[k]);
  if (points->len > MAX_POINTS)
    cf_args_usage_error (PROG, "more than %d points", MAX_POINTS);
  for (i = 0; i < points->len; i++) {
    point *p = g_ptr_array_index (points, i);
    gchar *error = NULL;
    GstElement *e = make_point_element (element, p, &error);

    if (e == NULL)
      cf_args_usage_error (PROG, "point %u (%s): %s", p->index, p->label,
          error);
    if (!config_from_element (e, f.method, f.timing, &p->config,
            &p->reason))
      p->status = POINT_REFUSED;
    gst_object_unref (e);
  }

  if (f.timing && cf_flow_bench_device (f.device, sizeof (f.device)) !=
      CF_OK) {
    fprintf (stderr, PROG ": no usable CUDA device: the timing needs one "
        "(--no-time measures accuracy alone)\n");
    return 77;
  }
  for (k = 0; f.timing && k < f.n_sizes; k++) {
    cf_error err = { {0} };
    if (cf_flow_bench_frames_new (f.w[k], f.h[k], &f.pairs[k], &err) !=
        CF_OK) {
      fprintf (stderr, PROG ": frames of %dx%d: %s\n", f.w[k], f.h[k],
          err.message);
      return 1;
    }
  }
  for (k = 0; k < f.n_data; k++)
    if (!load_data (&f.data[k]))
      return 1;

  ev = cf_flow_eval_new ();
  for (i = 0; i < points->len; i++) {
    point *p = g_ptr_array_index (points, i);

    measure_point (&f, ev, p);
    fprintf (stderr, "[%u/%u] %s: ", p->index, points->len, p->label);
    if (p->status != POINT_OK) {
      fprintf (stderr, "%s: %s\n", status_name (p->status), p->reason);
      n_failed += p->status == POINT_FAILED;
      continue;
    }
    n_ok++;
    if (f.timing)
      fprintf (stderr, "%.3f ms", p->time[0].frame_ms);
    else
      fprintf (stderr, "%.3g pixel-iterations", p->pixel_iterations);
    for (k = 0; k < f.n_data; k++)
      fprintf (stderr, ", EPE %s %.3f", f.data[k].name, p->epe[k]);
    fprintf (stderr, "\n");
  }
  cf_flow_eval_free (ev);
  for (k = 0; k < f.n_sizes; k++)
    cf_flow_bench_frames_free (f.pairs[k]);

  mark_pareto (points);
  print_front (&f, points);
  if ((json_opt && !write_file (json_opt, write_json, &f, points)) ||
      (md_opt && !write_file (md_opt, write_markdown, &f, points)) ||
      (svg_opt && !write_file (svg_opt, write_svg, &f, points)))
    return 1;
  return n_failed == 0 && n_ok > 0 ? 0 : 1;
}
