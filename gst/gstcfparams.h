/* gst-cudaflow — element properties from the parameter tables of common/
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CF_PARAMS_H__
#define __GST_CF_PARAMS_H__

#include <gst/gst.h>

#include "common/params.h"

G_BEGIN_DECLS

/* The GParamSpec of one table row (common/params.h): gint, gdouble (FLOAT
 * rows: the field is a float), gboolean, a string (TEXT), or for CHOICE a
 * GEnum registered as @type_prefix + choice_type (e.g. "GstCudaFlowHs" +
 * "Kernel"), marked as plugin API. Readable and writable, static strings;
 * GST_PARAM_MUTABLE_PLAYING for CF_PARAM_LIVE rows, else
 * GST_PARAM_MUTABLE_READY; GST_PARAM_CONTROLLABLE for CF_PARAM_SMOOTH. */
GParamSpec *gst_cf_param_spec_new (const cf_param * param,
    const gchar * type_prefix);

/* The GEnum @type_name of a `preset` property: "none" (0, the individual
 * properties), then @table's presets in order from 1, each with its
 * description; marked as plugin API. */
GType gst_cf_preset_get_type (const gchar * type_name,
    const cf_param_table * table);

/* The row's field in @params into @value (of the row's GParamSpec type);
 * not for TEXT rows. */
void gst_cf_param_get_value (const cf_param * param, const void *params,
    GValue * value);

/* @value into the row's field through the table's check (cf_params_set);
 * not for TEXT rows. FALSE (nothing stored) when the check refuses it,
 * which the GParamSpec's own range makes impossible. */
gboolean gst_cf_param_set_value (const cf_param * param, void *params,
    const GValue * value);

/* The row of an estimator's GPU implementation choice: a GEnum
 * <TypeName>Kernel of @choices, default @def, changeable only while
 * stopped (the plan is built for it), at @offset in the instance. */
#define GST_CF_KERNEL_ROW(name_, nick_, blurb_, choices_, def_, offset_) \
  { .name = (name_), .nick = (nick_), .blurb = (blurb_), \
    .type = CF_PARAM_CHOICE, .choices = (choices_), .choice_type = "Kernel", \
    .def = (def_), .offset = (offset_) }

/* The GPU implementations both Jacobi solvers offer (cudaflowhs'
 * jacobi-kernel, cudaflowclg's): the values of cf_hs_kernel and
 * cf_clg_kernel, which each element asserts. */
#define GST_CF_JACOBI_KERNEL_AUTO 0
#define GST_CF_JACOBI_KERNEL_SIMPLE 1
#define GST_CF_JACOBI_KERNEL_FUSED 2
extern const cf_param_choice gst_cf_jacobi_kernel_choices[];

/* One assignment of a preset as a value for @pspec (initialised here). */
void gst_cf_param_setting_to_value (const cf_param_setting * setting,
    GParamSpec * pspec, GValue * value);

G_END_DECLS
#endif /* __GST_CF_PARAMS_H__ */
