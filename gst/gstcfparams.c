/* gst-cudaflow — element properties from the parameter tables of common/
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tables (common/params.h) hold names, nicks, blurbs, ranges and
 * defaults; this file only maps them onto GObject: a row becomes a
 * GParamSpec, a value moves between a GValue and the row's field, and a
 * preset's assignment becomes a GValue. The strings of a table are static,
 * so the specs use G_PARAM_STATIC_STRINGS.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfparams.h"

const cf_param_choice gst_cf_jacobi_kernel_choices[] = {
  {GST_CF_JACOBI_KERNEL_AUTO, "auto", "Fastest measured"},
  {GST_CF_JACOBI_KERNEL_SIMPLE, "simple", "One Jacobi sweep per kernel "
        "launch"},
  {GST_CF_JACOBI_KERNEL_FUSED, "fused", "Several sweeps per launch on "
        "shared-memory tiles (identical results)"},
  {0, NULL, NULL}
};

/* GEnumValues of a choice list or of presets: registered once per type and
 * kept for the life of the process, as g_enum_register_static wants. */
static GType
register_enum (const gchar * type_name, GEnumValue * values)
{
  GType type = g_enum_register_static (type_name, values);

  gst_type_mark_as_plugin_api (type, 0);
  return type;
}

static GType
choice_type (const cf_param * param, const gchar * type_prefix)
{
  gchar *name = g_strconcat (type_prefix, param->choice_type, NULL);
  GType type = g_type_from_name (name);
  GEnumValue *values;
  guint n = 0, i;

  if (type == 0) {
    while (param->choices[n].nick != NULL)
      n++;
    values = g_new0 (GEnumValue, n + 1);
    for (i = 0; i < n; i++) {
      values[i].value = param->choices[i].value;
      values[i].value_name = param->choices[i].description;
      values[i].value_nick = param->choices[i].nick;
    }
    type = register_enum (name, values);
  }
  g_free (name);
  return type;
}

GType
gst_cf_preset_get_type (const gchar * type_name, const cf_param_table * table)
{
  GType type = g_type_from_name (type_name);
  GEnumValue *values;
  guint n = 0, i;

  if (type != 0)
    return type;
  while (table->presets != NULL && table->presets[n].name != NULL)
    n++;
  values = g_new0 (GEnumValue, n + 2);
  values[0].value = 0;
  values[0].value_name = "Use the individual properties";
  values[0].value_nick = "none";
  for (i = 0; i < n; i++) {
    values[i + 1].value = i + 1;
    values[i + 1].value_name = table->presets[i].description;
    values[i + 1].value_nick = table->presets[i].name;
  }
  return register_enum (type_name, values);
}

GParamSpec *
gst_cf_param_spec_new (const cf_param * param, const gchar * type_prefix)
{
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  flags |= (param->flags & CF_PARAM_LIVE) ? GST_PARAM_MUTABLE_PLAYING :
      GST_PARAM_MUTABLE_READY;
  if (param->flags & CF_PARAM_SMOOTH)
    flags |= GST_PARAM_CONTROLLABLE;

  switch (param->type) {
    case CF_PARAM_INT:
      return g_param_spec_int (param->name, param->nick, param->blurb,
          (gint) param->min, (gint) param->max, (gint) param->def, flags);
    case CF_PARAM_FLOAT:
      return g_param_spec_double (param->name, param->nick, param->blurb,
          param->min, param->max, param->def, flags);
    case CF_PARAM_BOOL:
      return g_param_spec_boolean (param->name, param->nick, param->blurb,
          param->def != 0.0, flags);
    case CF_PARAM_CHOICE:
      return g_param_spec_enum (param->name, param->nick, param->blurb,
          choice_type (param, type_prefix), (gint) param->def, flags);
    case CF_PARAM_TEXT:
      return g_param_spec_string (param->name, param->nick, param->blurb,
          param->def_text, flags);
  }
  g_return_val_if_reached (NULL);
}

void
gst_cf_param_get_value (const cf_param * param, const void *params,
    GValue * value)
{
  double v = cf_param_get (param, params);

  switch (param->type) {
    case CF_PARAM_INT:
      g_value_set_int (value, (gint) v);
      break;
    case CF_PARAM_FLOAT:
      g_value_set_double (value, v);
      break;
    case CF_PARAM_BOOL:
      g_value_set_boolean (value, v != 0.0);
      break;
    case CF_PARAM_CHOICE:
      g_value_set_enum (value, (gint) v);
      break;
    case CF_PARAM_TEXT:
      g_return_if_reached ();
  }
}

gboolean
gst_cf_param_set_value (const cf_param * param, void *params,
    const GValue * value)
{
  double v = 0.0;

  switch (param->type) {
    case CF_PARAM_INT:
      v = g_value_get_int (value);
      break;
    case CF_PARAM_FLOAT:
      v = g_value_get_double (value);
      break;
    case CF_PARAM_BOOL:
      v = g_value_get_boolean (value) ? 1.0 : 0.0;
      break;
    case CF_PARAM_CHOICE:
      v = g_value_get_enum (value);
      break;
    case CF_PARAM_TEXT:
      g_return_val_if_reached (FALSE);
  }
  return cf_param_set (param, params, v, NULL) == CF_OK;
}

void
gst_cf_param_setting_to_value (const cf_param_setting * setting,
    GParamSpec * pspec, GValue * value)
{
  GType type = G_PARAM_SPEC_VALUE_TYPE (pspec);

  g_value_init (value, type);
  if (type == G_TYPE_STRING)
    g_value_set_string (value, setting->text);
  else if (type == G_TYPE_INT)
    g_value_set_int (value, (gint) setting->value);
  else if (type == G_TYPE_DOUBLE)
    g_value_set_double (value, setting->value);
  else if (type == G_TYPE_BOOLEAN)
    g_value_set_boolean (value, setting->value != 0.0);
  else if (G_TYPE_IS_ENUM (type))
    g_value_set_enum (value, (gint) setting->value);
  else
    g_warn_if_reached ();
}
