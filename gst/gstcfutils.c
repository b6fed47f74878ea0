/* gst-cudaflow — helpers shared by every element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcfutils.h"

#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcfbasetransform.h"
#include "cuda/cuda-util.h"

GType
gst_cf_backend_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CF_BACKEND_AUTO, "GPU when a CUDA device is usable, else CPU",
        "auto"},
    {GST_CF_BACKEND_CUDA, "GPU (fail when no CUDA device is usable)", "cuda"},
    {GST_CF_BACKEND_CPU, "CPU reference implementation", "cpu"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCfBackend", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

static GstCaps *
caps_with_feature (const GstCaps * caps, const gchar * feature)
{
  GstCaps *out = gst_caps_new_empty ();
  guint i, n = gst_caps_get_size (caps);

  for (i = 0; i < n; i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    GstCapsFeatures *f = feature ? gst_caps_features_new (feature, NULL) :
        gst_caps_features_new_empty ();
    gst_caps_append_structure_full (out, s, f);
  }
  return out;
}

GstCaps *
gst_cf_caps_both_memories (const GstCaps * caps, gboolean first_cuda)
{
  GstCaps *cuda = caps_with_feature (caps, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  GstCaps *sys = caps_with_feature (caps, NULL);

  if (first_cuda)
    return gst_caps_merge (cuda, sys);
  return gst_caps_merge (sys, cuda);
}

/* The structures of @caps whose memory is (@cuda) or is not CUDA memory. */
static GstCaps *
caps_of_memory (const GstCaps * caps, gboolean cuda)
{
  GstCaps *out = gst_caps_new_empty ();
  guint i, n = gst_caps_get_size (caps);

  for (i = 0; i < n; i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gboolean is_cuda = f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    if (is_cuda != cuda)
      continue;
    gst_caps_append_structure_full (out,
        gst_structure_copy (gst_caps_get_structure (caps, i)),
        f ? gst_caps_features_copy (f) : NULL);
  }
  return out;
}

GstCaps *
gst_cf_caps_system_only (const GstCaps * caps)
{
  return caps_of_memory (caps, FALSE);
}

GstCaps *
gst_cf_caps_cuda_only (const GstCaps * caps)
{
  return caps_of_memory (caps, TRUE);
}

gboolean
gst_cf_caps_is_cuda (const GstCaps * caps)
{
  GstCapsFeatures *f;

  if (caps == NULL || gst_caps_get_size (caps) == 0)
    return FALSE;
  f = gst_caps_get_features (caps, 0);
  return f != NULL && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* TRUE when @element computes on the GPU: its memory failures are the
 * device's (the host allocations of the GPU path are a few bytes). */
static gboolean
element_on_gpu (GstElement * element)
{
  return GST_IS_CF_BASE_TRANSFORM (element) &&
      gst_cf_base_transform_get_active_backend (GST_CF_BASE_TRANSFORM
      (element)) == GST_CF_BACKEND_CUDA;
}

/* "free N of M MiB" of @element's device, for the debug string; "" when the
 * context cannot be made current. Pushes the context itself: the caller
 * may or may not hold it. */
static gchar *
device_memory_note (GstElement * element)
{
  GstCudaContext *context =
      gst_cf_base_transform_get_context (GST_CF_BASE_TRANSFORM (element));
  size_t free_bytes = 0, total_bytes = 0;
  cudaError_t err;

  if (context == NULL || !gst_cuda_context_push (context))
    return g_strdup ("");
  err = cudaMemGetInfo (&free_bytes, &total_bytes);
  gst_cuda_context_pop (NULL);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    return g_strdup ("");
  }
  return g_strdup_printf ("; device memory free %" G_GSIZE_FORMAT " of %"
      G_GSIZE_FORMAT " MiB", (gsize) (free_bytes >> 20),
      (gsize) (total_bytes >> 20));
}

void
gst_cf_post_status_error (GstElement * element, cf_status status,
    const cf_error * err, const gchar * what)
{
  const gchar *detail = (err && err->message[0]) ? err->message :
      cf_status_name (status);
  gchar *debug = g_strdup_printf ("status: %s; last CUDA error: %s",
      cf_status_name (status), cf_cuda_last_error_name ());

  switch (status) {
    case CF_ERROR_NO_MEMORY:
      if (element_on_gpu (element)) {
        gchar *note = device_memory_note (element);
        gchar *full = g_strconcat (debug, note, NULL);

        /* what a user can change: the frame size, how many streams share
         * the GPU, or the backend */
        gst_element_message_full (element, GST_MESSAGE_ERROR,
            GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
            g_strdup_printf ("%s: GPU memory exhausted (a device allocation "
                "failed). Use smaller frames, fewer streams on this GPU, or "
                "backend=cpu.", what), full, __FILE__, GST_FUNCTION,
            __LINE__);
        g_free (note);
        g_free (debug);
        break;
      }
      gst_element_message_full (element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT,
          g_strdup_printf ("%s: %s", what, detail), debug, __FILE__,
          GST_FUNCTION, __LINE__);
      break;
    case CF_ERROR_IO:
      gst_element_message_full (element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_READ, g_strdup_printf ("%s: %s", what, detail),
          debug, __FILE__, GST_FUNCTION, __LINE__);
      break;
    case CF_ERROR_INVALID:
    case CF_ERROR_FORMAT:
    case CF_ERROR_UNSUPPORTED:
      gst_element_message_full (element, GST_MESSAGE_ERROR, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS, g_strdup_printf ("%s: %s", what, detail),
          debug, __FILE__, GST_FUNCTION, __LINE__);
      break;
    case CF_ERROR_NO_DEVICE:
      gst_element_message_full (element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND, g_strdup_printf ("%s: %s", what,
              detail), debug, __FILE__, GST_FUNCTION, __LINE__);
      break;
    case CF_OK:
    case CF_ERROR_CUDA:
    default:
      gst_element_message_full (element, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_FAILED, g_strdup_printf ("%s: %s", what, detail),
          debug, __FILE__, GST_FUNCTION, __LINE__);
      break;
  }
}
