/* gst-cudaflow — cudaconvolve: 2-D convolution of video frames
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudaconvolve
 * @title: cudaconvolve
 *
 * Convolves every selected channel of a video frame with a user kernel of
 * any size (1x1 up to 1023x1023), on the GPU (frames in CUDA or system
 * memory) or with the CPU reference when no CUDA device is present.
 *
 * The kernel comes from, in this order of precedence: the `kernel` property
 * (inline text), `kernel-location` (a text file), or `kernel-preset`
 * (gaussian, box, disk, laplacian, sized by `kernel-size` and `sigma`). With
 * none of them set, or with an identity kernel, the element is a
 * passthrough.
 *
 * Kernel text: rows separated by ';' (or new lines in a file), values by
 * ',' or spaces, '#' starts a comment. "1 2 1; 2 4 2; 1 2 1" is a 3x3
 * kernel; with `normalize=true` (the default) it is divided by its sum, 16.
 * The anchor is the tap (width/2, height/2). `mode=convolution` (default)
 * flips the kernel, `mode=correlation` does not. Samples outside the frame
 * follow `border`: zero, clamp, reflect (half-sample symmetric) or wrap;
 * kernels larger than the frame are allowed and follow the same rule.
 *
 * Channels are filtered in their own planes at their own resolution (the
 * chroma of NV12/I420 at half size); `channels` picks them (default: every
 * colour channel, alpha untouched). Integer results are rounded and
 * clamped; `offset` adds a constant first (e.g. 0.5 to see both signs of a
 * Laplacian).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! cudaconvolve kernel-preset=gaussian sigma=3 ! videoconvert ! pngenc ! multifilesink location=blur_%05d.png
 * ]| Blurs a test pattern (on the GPU when present, else the CPU).
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! cudaupload ! "video/x-raw(memory:CUDAMemory)" ! cudaconvolve kernel="0 -1 0; -1 5 -1; 0 -1 0" ! cudadownload ! autovideosink
 * ]| Sharpens in CUDA memory: the frames never leave the GPU.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconvolve.h"
#include "gstcudaflowelements.h"

#include <math.h>

#include "common/convolve.h"
#include "common/kernel.h"
#include "common/planes.h"
#include "cuda/convolve.h"
#include "cuda/planes.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_convolve_debug);
#define GST_CAT_DEFAULT gst_cuda_convolve_debug

#define DEFAULT_KERNEL NULL
#define DEFAULT_KERNEL_LOCATION NULL
#define DEFAULT_KERNEL_PRESET CF_KERNEL_PRESET_NONE
#define DEFAULT_KERNEL_SIZE 0
#define DEFAULT_SIGMA 1.0
#define DEFAULT_NORMALIZE TRUE
#define DEFAULT_BORDER CF_BORDER_REFLECT
#define DEFAULT_MODE CF_CONVOLUTION
#define DEFAULT_METHOD CF_CONV_METHOD_AUTO
#define DEFAULT_PRECISION GST_CUDA_CONVOLVE_PRECISION_AUTO
#define DEFAULT_OFFSET 0.0
#define DEFAULT_CHANNELS (GST_CUDA_CONVOLVE_CHANNEL_R | \
    GST_CUDA_CONVOLVE_CHANNEL_G | GST_CUDA_CONVOLVE_CHANNEL_B | \
    GST_CUDA_CONVOLVE_CHANNEL_Y | GST_CUDA_CONVOLVE_CHANNEL_U | \
    GST_CUDA_CONVOLVE_CHANNEL_V)

/* Channel sizes a frame can have: luma and chroma, each for up to two
 * formats while caps change (plans are per size). */
#define MAX_PLANS 4

enum
{
  PROP_0,
  PROP_KERNEL,
  PROP_KERNEL_LOCATION,
  PROP_KERNEL_PRESET,
  PROP_KERNEL_SIZE,
  PROP_SIGMA,
  PROP_NORMALIZE,
  PROP_BORDER,
  PROP_MODE,
  PROP_METHOD,
  PROP_PRECISION,
  PROP_CHANNELS,
  PROP_OFFSET
};

#define FORMATS "{ GRAY8, GRAY16_LE, NV12, I420, RGBA, BGRA, RGBx, BGRx }"
#define TEMPLATE_CAPS \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", FORMATS) "; " \
    GST_VIDEO_CAPS_MAKE (FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (TEMPLATE_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (TEMPLATE_CAPS));

/* Arithmetic of the GPU methods. Only im2tensor computes with fp16
 * inputs; the others are fp32 throughout (docs/convolution.md has the
 * measured errors of each). */
typedef enum
{
  GST_CUDA_CONVOLVE_PRECISION_AUTO,
  GST_CUDA_CONVOLVE_PRECISION_FP32,
  GST_CUDA_CONVOLVE_PRECISION_FP16
} GstCudaConvolvePrecision;

typedef struct
{
  int width;
  int height;
  cf_cuda_convolve_plan *plan;
} GstCudaConvolvePlanSlot;

struct _GstCudaConvolve
{
  GstCfBaseTransform parent;

  /* properties and the kernel built from them, under the object lock */
  gchar *kernel_text;
  gchar *kernel_location;
  cf_kernel_preset preset;
  gint kernel_size;
  gdouble sigma;
  gboolean normalize;
  cf_border border;
  cf_conv_mode mode;
  cf_conv_method method;
  GstCudaConvolvePrecision precision;
  guint channels;
  gdouble offset;
  cf_kernel *kernel;            /* NULL: no kernel set */
  cf_status kernel_status;
  cf_error kernel_error;
  guint cookie;                 /* bumped by every change */

  /* streaming thread only */
  gboolean caps_equal;          /* in and out caps identical */
  guint used_cookie;
  cf_kernel *stream_kernel;
  cf_convolve_params params;
  guint stream_channels;
  gdouble stream_offset;
  /* CPU backend scratch planes, sized for the largest channel */
  cf_image *cpu_src;
  cf_image *cpu_dst;
  /* CUDA backend */
  cf_cuda_image gpu_src;
  cf_cuda_image gpu_dst;
  GstCudaConvolvePlanSlot plans[MAX_PLANS];
};

#define gst_cuda_convolve_parent_class parent_class
G_DEFINE_TYPE (GstCudaConvolve, gst_cuda_convolve, GST_TYPE_CF_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaconvolve, "cudaconvolve",
    GST_RANK_NONE, GST_TYPE_CUDA_CONVOLVE,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_convolve_debug, "cudaconvolve", 0,
        "2-D convolution on CUDA"));

static void gst_cuda_convolve_finalize (GObject * object);
static void gst_cuda_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_convolve_start (GstBaseTransform * trans);
static GstCaps *gst_cuda_convolve_transform_media_caps (GstCfBaseTransform *
    base, GstPadDirection direction, GstCaps * caps);
static gboolean gst_cuda_convolve_set_info (GstCfBaseTransform * base,
    const GstCfLayout * in, const GstCfLayout * out);
static GstFlowReturn gst_cuda_convolve_process (GstCfBaseTransform * base,
    GstBuffer * inbuf, const GstCfPlanes * in, GstBuffer * outbuf,
    const GstCfPlanes * out);
static void gst_cuda_convolve_free_device_resources (GstCfBaseTransform *
    base);

/* --- enum and flags types ------------------------------------------- */

#define GST_TYPE_CUDA_CONVOLVE_PRESET (gst_cuda_convolve_preset_get_type ())
static GType
gst_cuda_convolve_preset_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_KERNEL_PRESET_NONE, "No preset (use kernel or kernel-location)",
        "none"},
    {CF_KERNEL_PRESET_GAUSSIAN, "Gaussian of standard deviation sigma",
        "gaussian"},
    {CF_KERNEL_PRESET_BOX, "Box (mean) filter", "box"},
    {CF_KERNEL_PRESET_DISK, "Disk: mean over the inscribed circle", "disk"},
    {CF_KERNEL_PRESET_LAPLACIAN, "Laplacian (3x3), or Laplacian of Gaussian "
          "of sigma for larger sizes", "laplacian"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvolvePreset",
            values));
  return (GType) type;
}

#define GST_TYPE_CUDA_CONVOLVE_BORDER (gst_cuda_convolve_border_get_type ())
static GType
gst_cuda_convolve_border_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_BORDER_ZERO, "Zero outside the frame", "zero"},
    {CF_BORDER_CLAMP, "Repeat the edge sample", "clamp"},
    {CF_BORDER_REFLECT, "Mirror about the edge (half-sample symmetric: "
          "b a | a b c)", "reflect"},
    {CF_BORDER_WRAP, "Periodic: wrap to the opposite edge", "wrap"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvolveBorder",
            values));
  return (GType) type;
}

#define GST_TYPE_CUDA_CONVOLVE_MODE (gst_cuda_convolve_mode_get_type ())
static GType
gst_cuda_convolve_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_CONVOLUTION, "Convolution (kernel flipped)", "convolution"},
    {CF_CORRELATION, "Cross-correlation (kernel as written)", "correlation"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvolveMode",
            values));
  return (GType) type;
}

#define GST_TYPE_CUDA_CONVOLVE_PRECISION \
  (gst_cuda_convolve_precision_get_type ())
static GType
gst_cuda_convolve_precision_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CONVOLVE_PRECISION_AUTO, "The method's own: fp16 inputs with "
          "fp32 sums for im2tensor, fp32 for the others", "auto"},
    {GST_CUDA_CONVOLVE_PRECISION_FP32, "fp32 throughout (direct, separable, "
          "fft; refuses method=im2tensor)", "fp32"},
    {GST_CUDA_CONVOLVE_PRECISION_FP16, "fp16 inputs, fp32 sums: im2tensor "
          "(method=auto picks it; other methods are refused)", "fp16"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaConvolvePrecision", values));
  return (GType) type;
}

#define GST_TYPE_CUDA_CONVOLVE_METHOD (gst_cuda_convolve_method_get_type ())
static GType
gst_cuda_convolve_method_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {CF_CONV_METHOD_AUTO, "Fastest measured method for the kernel and size",
        "auto"},
    {CF_CONV_METHOD_DIRECT, "Direct, shared-memory tiled (any kernel)",
        "direct"},
    {CF_CONV_METHOD_SEPARABLE, "Separable: row then column pass (rank-1 "
          "kernels)", "separable"},
    {CF_CONV_METHOD_FFT, "FFT with cuFFT (large kernels)", "fft"},
    {CF_CONV_METHOD_IM2TENSOR, "im2tensor on tensor cores (fp16 inputs, "
          "fp32 accumulation)", "im2tensor"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvolveMethod",
            values));
  return (GType) type;
}

#define GST_TYPE_CUDA_CONVOLVE_CHANNELS (gst_cuda_convolve_channels_get_type ())
static GType
gst_cuda_convolve_channels_get_type (void)
{
  static gsize type = 0;
  static const GFlagsValue values[] = {
    {GST_CUDA_CONVOLVE_CHANNEL_R, "Red", "r"},
    {GST_CUDA_CONVOLVE_CHANNEL_G, "Green", "g"},
    {GST_CUDA_CONVOLVE_CHANNEL_B, "Blue", "b"},
    {GST_CUDA_CONVOLVE_CHANNEL_A, "Alpha", "a"},
    {GST_CUDA_CONVOLVE_CHANNEL_Y, "Luma (Y or GRAY)", "y"},
    {GST_CUDA_CONVOLVE_CHANNEL_U, "Chroma U (Cb)", "u"},
    {GST_CUDA_CONVOLVE_CHANNEL_V, "Chroma V (Cr)", "v"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_flags_register_static ("GstCudaConvolveChannels", values));
  return (GType) type;
}

/* --- class ----------------------------------------------------------- */

static void
gst_cuda_convolve_class_init (GstCudaConvolveClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCfBaseTransformClass *cf_class = GST_CF_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw_playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->finalize = gst_cuda_convolve_finalize;
  gobject_class->set_property = gst_cuda_convolve_set_property;
  gobject_class->get_property = gst_cuda_convolve_get_property;

  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_string ("kernel", "Kernel",
          "Kernel as text: rows separated by ';', values by ',' or spaces, "
          "e.g. \"1 2 1; 2 4 2; 1 2 1\" (up to 1023x1023; anchor at "
          "(width/2, height/2)). Takes precedence over kernel-location and "
          "kernel-preset. NULL = not set", DEFAULT_KERNEL, rw_playing));
  g_object_class_install_property (gobject_class, PROP_KERNEL_LOCATION,
      g_param_spec_string ("kernel-location", "Kernel Location",
          "Text file holding the kernel matrix: one row per line, values "
          "separated by spaces or commas, '#' comments. Used when kernel is "
          "not set. NULL = not set", DEFAULT_KERNEL_LOCATION, rw_playing));
  g_object_class_install_property (gobject_class, PROP_KERNEL_PRESET,
      g_param_spec_enum ("kernel-preset", "Kernel Preset",
          "Built-in kernel, used when neither kernel nor kernel-location is "
          "set; sized by kernel-size and sigma",
          GST_TYPE_CUDA_CONVOLVE_PRESET, DEFAULT_KERNEL_PRESET, rw_playing));
  g_object_class_install_property (gobject_class, PROP_KERNEL_SIZE,
      g_param_spec_int ("kernel-size", "Kernel Size",
          "Side of the preset kernel in pixels, odd (0 = automatic: "
          "2*ceil(3*sigma)+1 for gaussian and laplacian, 3 for box and disk)",
          0, 1023, DEFAULT_KERNEL_SIZE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation in pixels of the gaussian preset and of the "
          "Laplacian of Gaussian (laplacian preset with kernel-size > 3)",
          0.01, 200.0, DEFAULT_SIGMA, rw_playing | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize",
          "Divide the kernel by the sum of its taps (kernels summing to 0, "
          "like a Laplacian, are left as they are)", DEFAULT_NORMALIZE,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "Value of samples outside the frame", GST_TYPE_CUDA_CONVOLVE_BORDER,
          DEFAULT_BORDER, rw_playing));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "True convolution (kernel flipped) or cross-correlation",
          GST_TYPE_CUDA_CONVOLVE_MODE, DEFAULT_MODE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "GPU algorithm (the CPU backend computes every method with its "
          "reference)", GST_TYPE_CUDA_CONVOLVE_METHOD, DEFAULT_METHOD,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_PRECISION,
      g_param_spec_enum ("precision", "Precision",
          "Arithmetic of the GPU method: fp16 selects im2tensor, fp32 "
          "excludes it (the CPU backend computes in double whatever is set)",
          GST_TYPE_CUDA_CONVOLVE_PRECISION, DEFAULT_PRECISION, rw_playing));
  g_object_class_install_property (gobject_class, PROP_CHANNELS,
      g_param_spec_flags ("channels", "Channels",
          "Channels to filter; the others are copied unchanged (a flag that "
          "does not exist in the format is ignored)",
          GST_TYPE_CUDA_CONVOLVE_CHANNELS, DEFAULT_CHANNELS, rw_playing));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_double ("offset", "Offset",
          "Added to every filtered sample before rounding, as a fraction of "
          "the full range (0.5 = mid-grey; useful with zero-sum kernels)",
          -1.0, 1.0, DEFAULT_OFFSET, rw_playing | GST_PARAM_CONTROLLABLE));

  gst_element_class_set_static_metadata (element_class,
      "CUDA 2-D convolution", "Filter/Effect/Video/Hardware",
      "Convolves video frames with a kernel of any size on the GPU "
      "(direct, separable, cuFFT or im2tensor tensor-core method; CPU "
      "reference without a GPU)",
      "gst-cudaflow");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_convolve_start);

  cf_class->transform_media_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_convolve_transform_media_caps);
  cf_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_convolve_set_info);
  cf_class->process = GST_DEBUG_FUNCPTR (gst_cuda_convolve_process);
  cf_class->free_device_resources =
      GST_DEBUG_FUNCPTR (gst_cuda_convolve_free_device_resources);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CONVOLVE_PRESET, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CONVOLVE_BORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CONVOLVE_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CONVOLVE_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CONVOLVE_CHANNELS, 0);
}

static void
gst_cuda_convolve_init (GstCudaConvolve * self)
{
  self->kernel_text = DEFAULT_KERNEL;
  self->kernel_location = DEFAULT_KERNEL_LOCATION;
  self->preset = DEFAULT_KERNEL_PRESET;
  self->kernel_size = DEFAULT_KERNEL_SIZE;
  self->sigma = DEFAULT_SIGMA;
  self->normalize = DEFAULT_NORMALIZE;
  self->border = DEFAULT_BORDER;
  self->mode = DEFAULT_MODE;
  self->method = DEFAULT_METHOD;
  self->precision = DEFAULT_PRECISION;
  self->channels = DEFAULT_CHANNELS;
  self->offset = DEFAULT_OFFSET;
  self->kernel_status = CF_OK;
  self->cookie = 1;
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
  /* no kernel yet: an identity until one is set */
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cuda_convolve_finalize (GObject * object)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (object);

  g_free (self->kernel_text);
  g_free (self->kernel_location);
  cf_kernel_free (self->kernel);
  cf_kernel_free (self->stream_kernel);
  cf_image_free (self->cpu_src);
  cf_image_free (self->cpu_dst);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* --- properties ------------------------------------------------------ */

/* Rebuild self->kernel from the kernel properties; remembers the error for
 * start () or the next frame to post. Object lock held. */
static void
rebuild_kernel_locked (GstCudaConvolve * self)
{
  cf_kernel *kernel = NULL;
  cf_status status = CF_OK;
  cf_error err = { {0} };

  if (self->kernel_text != NULL) {
    status = cf_kernel_parse (self->kernel_text, &kernel, &err);
    if (status != CF_OK) {
      gchar *msg = g_strdup_printf ("kernel: %s", err.message);
      cf_error_set (&err, "%s", msg);
      g_free (msg);
    }
  } else if (self->kernel_location != NULL) {
    status = cf_kernel_load (self->kernel_location, &kernel, &err);
  } else if (self->preset != CF_KERNEL_PRESET_NONE) {
    status = cf_kernel_preset_new (self->preset, self->kernel_size,
        (float) self->sigma, &kernel, &err);
  }
  /* zero-sum kernels stay as they are, as the property says */
  if (status == CF_OK && kernel != NULL && self->normalize)
    (void) cf_kernel_normalize (kernel);

  cf_kernel_free (self->kernel);
  self->kernel = status == CF_OK ? kernel : NULL;
  if (status != CF_OK)
    cf_kernel_free (kernel);
  self->kernel_status = status;
  self->kernel_error = err;
  self->cookie++;

  if (status != CF_OK)
    GST_WARNING_OBJECT (self, "invalid kernel: %s", err.message);
}

/* Identity settings become passthrough (only when both pads carry the same
 * caps: a memory change still needs the copy that transform does). */
static void
update_passthrough (GstCudaConvolve * self)
{
  gboolean identity;

  GST_OBJECT_LOCK (self);
  identity = self->kernel_status == CF_OK &&
      (self->kernel == NULL || self->channels == 0 ||
      (cf_kernel_is_identity (self->kernel) && self->offset == 0.0));
  identity = identity && self->caps_equal;
  GST_OBJECT_UNLOCK (self);

  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), identity);
}

static void
gst_cuda_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (object);
  gboolean kernel_changed = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      g_free (self->kernel_text);
      self->kernel_text = g_value_dup_string (value);
      kernel_changed = TRUE;
      break;
    case PROP_KERNEL_LOCATION:
      g_free (self->kernel_location);
      self->kernel_location = g_value_dup_string (value);
      kernel_changed = TRUE;
      break;
    case PROP_KERNEL_PRESET:
      self->preset = g_value_get_enum (value);
      kernel_changed = TRUE;
      break;
    case PROP_KERNEL_SIZE:
      self->kernel_size = g_value_get_int (value);
      kernel_changed = TRUE;
      break;
    case PROP_SIGMA:
      self->sigma = g_value_get_double (value);
      kernel_changed = TRUE;
      break;
    case PROP_NORMALIZE:
      self->normalize = g_value_get_boolean (value);
      kernel_changed = TRUE;
      break;
    case PROP_BORDER:
      self->border = g_value_get_enum (value);
      self->cookie++;
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      self->cookie++;
      break;
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      self->cookie++;
      break;
    case PROP_PRECISION:
      self->precision = g_value_get_enum (value);
      self->cookie++;
      break;
    case PROP_CHANNELS:
      self->channels = g_value_get_flags (value);
      self->cookie++;
      break;
    case PROP_OFFSET:
      self->offset = g_value_get_double (value);
      self->cookie++;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (kernel_changed)
    rebuild_kernel_locked (self);
  GST_OBJECT_UNLOCK (self);

  update_passthrough (self);
}

static void
gst_cuda_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      g_value_set_string (value, self->kernel_text);
      break;
    case PROP_KERNEL_LOCATION:
      g_value_set_string (value, self->kernel_location);
      break;
    case PROP_KERNEL_PRESET:
      g_value_set_enum (value, self->preset);
      break;
    case PROP_KERNEL_SIZE:
      g_value_set_int (value, self->kernel_size);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, self->sigma);
      break;
    case PROP_NORMALIZE:
      g_value_set_boolean (value, self->normalize);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, self->border);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_PRECISION:
      g_value_set_enum (value, self->precision);
      break;
    case PROP_CHANNELS:
      g_value_set_flags (value, self->channels);
      break;
    case PROP_OFFSET:
      g_value_set_double (value, self->offset);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* --- stream ---------------------------------------------------------- */

/* Post the stored kernel error, if any; FALSE when there was one. */
static gboolean
check_kernel (GstCudaConvolve * self)
{
  cf_status status;
  cf_error err;

  GST_OBJECT_LOCK (self);
  status = self->kernel_status;
  err = self->kernel_error;
  GST_OBJECT_UNLOCK (self);

  if (status == CF_OK)
    return TRUE;
  if (status == CF_ERROR_IO)
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Could not read the kernel file: %s", err.message),
        ("status: %s", cf_status_name (status)));
  else
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid kernel: %s",
            err.message), ("status: %s", cf_status_name (status)));
  return FALSE;
}

static gboolean
gst_cuda_convolve_start (GstBaseTransform * trans)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (trans);

  if (!check_kernel (self))
    return FALSE;
  self->used_cookie = 0;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans);
}

static GstCaps *
gst_cuda_convolve_transform_media_caps (GstCfBaseTransform * base,
    GstPadDirection direction, GstCaps * caps)
{
  /* same format and size on both pads */
  return gst_caps_ref (caps);
}

static void
free_plans (GstCudaConvolve * self)
{
  guint i;

  for (i = 0; i < MAX_PLANS; i++) {
    cf_cuda_convolve_plan_free (self->plans[i].plan);
    memset (&self->plans[i], 0, sizeof (self->plans[i]));
  }
}

static void
gst_cuda_convolve_free_device_resources (GstCfBaseTransform * base)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (base);

  free_plans (self);
  cf_cuda_image_release (&self->gpu_src);
  cf_cuda_image_release (&self->gpu_dst);
  g_clear_pointer (&self->cpu_src, cf_image_free);
  g_clear_pointer (&self->cpu_dst, cf_image_free);
}

static gboolean
gst_cuda_convolve_set_info (GstCfBaseTransform * base, const GstCfLayout * in,
    const GstCfLayout * out)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (base);

  GST_OBJECT_LOCK (self);
  self->caps_equal = gst_cf_base_transform_caps_are_equal (base);
  GST_OBJECT_UNLOCK (self);
  update_passthrough (self);
  return TRUE;
}

/* The method @method and @precision ask for together; FALSE when they
 * contradict each other (fp16 is im2tensor's arithmetic only). */
static gboolean
method_for_precision (cf_conv_method method,
    GstCudaConvolvePrecision precision, cf_conv_method * resolved)
{
  switch (precision) {
    case GST_CUDA_CONVOLVE_PRECISION_FP16:
      *resolved = CF_CONV_METHOD_IM2TENSOR;
      return method == CF_CONV_METHOD_AUTO
          || method == CF_CONV_METHOD_IM2TENSOR;
    case GST_CUDA_CONVOLVE_PRECISION_FP32:
      *resolved = method;
      return method != CF_CONV_METHOD_IM2TENSOR;
    default:
      *resolved = method;
      return TRUE;
  }
}

/* Copy the settings into streaming state when they changed; FALSE (error
 * posted) when the kernel is invalid or method and precision conflict. */
static gboolean
sync_settings (GstCudaConvolve * self)
{
  gboolean changed = FALSE, consistent = TRUE;
  cf_conv_method method = CF_CONV_METHOD_AUTO;
  GstCudaConvolvePrecision precision = DEFAULT_PRECISION;

  if (!check_kernel (self))
    return FALSE;

  GST_OBJECT_LOCK (self);
  if (self->cookie != self->used_cookie) {
    cf_kernel_free (self->stream_kernel);
    self->stream_kernel = self->kernel ? cf_kernel_copy (self->kernel) : NULL;
    self->params.border = self->border;
    self->params.mode = self->mode;
    consistent = method_for_precision (self->method, self->precision,
        &self->params.method);
    method = self->method;
    precision = self->precision;
    self->stream_channels = self->channels;
    self->stream_offset = self->offset;
    self->used_cookie = self->cookie;
    changed = TRUE;
  }
  GST_OBJECT_UNLOCK (self);

  if (!consistent) {
    GEnumClass *mc = g_type_class_ref (GST_TYPE_CUDA_CONVOLVE_METHOD);
    GEnumClass *pc = g_type_class_ref (GST_TYPE_CUDA_CONVOLVE_PRECISION);

    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("method=%s cannot compute with precision=%s: im2tensor is the "
            "fp16 method and the others are fp32; use precision=auto.",
            g_enum_get_value (mc, method)->value_nick,
            g_enum_get_value (pc, precision)->value_nick), (NULL));
    g_type_class_unref (mc);
    g_type_class_unref (pc);
    /* look again after the next property change */
    self->used_cookie = 0;
    return FALSE;
  }

  if (changed) {
    /* plans hold the kernel and border; rebuild lazily */
    free_plans (self);
    if (self->stream_kernel) {
      char desc[128];
      cf_kernel_describe (self->stream_kernel, desc, sizeof (desc));
      GST_DEBUG_OBJECT (self, "kernel %s, border %s", desc,
          cf_border_name (self->params.border));
    }
  }
  return TRUE;
}

/* Which flag a component of @info answers to. */
static guint
component_flag (const GstVideoInfo * info, guint comp)
{
  static const guint rgb[] = { GST_CUDA_CONVOLVE_CHANNEL_R,
    GST_CUDA_CONVOLVE_CHANNEL_G, GST_CUDA_CONVOLVE_CHANNEL_B,
    GST_CUDA_CONVOLVE_CHANNEL_A
  };
  static const guint yuv[] = { GST_CUDA_CONVOLVE_CHANNEL_Y,
    GST_CUDA_CONVOLVE_CHANNEL_U, GST_CUDA_CONVOLVE_CHANNEL_V,
    GST_CUDA_CONVOLVE_CHANNEL_A
  };
  if (comp >= 4)
    return 0;
  return GST_VIDEO_INFO_IS_RGB (info) ? rgb[comp] : yuv[comp];
}

/* Describe component @comp of mapped planes as a cf_channel. */
static void
describe_channel (const GstCfPlanes * planes, guint comp, cf_channel * ch)
{
  const GstVideoInfo *info = &planes->layout->info;
  guint plane = GST_VIDEO_INFO_COMP_PLANE (info, comp);

  ch->data = planes->data[plane] + GST_VIDEO_INFO_COMP_POFFSET (info, comp);
  ch->width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
  ch->height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
  ch->stride = planes->stride[plane];
  ch->pixel_stride = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp);
  ch->depth = GST_VIDEO_INFO_COMP_DEPTH (info, comp) > 8 ? 16 : 8;
}

static GstFlowReturn
process_cpu (GstCudaConvolve * self, const GstCfPlanes * in,
    const GstCfPlanes * out)
{
  const GstVideoInfo *info = &in->layout->info;
  guint comp;

  if (self->cpu_src == NULL) {
    self->cpu_src = cf_image_new (in->layout->width, in->layout->height);
    self->cpu_dst = cf_image_new (in->layout->width, in->layout->height);
    if (self->cpu_src == NULL || self->cpu_dst == NULL) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory for %dx%d working planes.", in->layout->width,
              in->layout->height), (NULL));
      return GST_FLOW_ERROR;
    }
  }

  for (comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    cf_channel src, dst;
    cf_image a, b;
    cf_status status;

    if (!(component_flag (info, comp) & self->stream_channels))
      continue;
    describe_channel (in, comp, &src);
    describe_channel (out, comp, &dst);
    a = cf_image_view (self->cpu_src->data, src.width, src.height,
        self->cpu_src->pitch);
    b = cf_image_view (self->cpu_dst->data, src.width, src.height,
        self->cpu_dst->pitch);
    status = cf_channel_unpack (&src, &a);
    if (status == CF_OK)
      status = cf_convolve (&a, self->stream_kernel, self->params.border,
          self->params.mode, &b);
    if (status == CF_OK)
      status = cf_channel_pack (&b, (float) (self->stream_offset *
              cf_channel_max (dst.depth)), &dst);
    if (status != CF_OK) {
      gst_cf_post_status_error (GST_ELEMENT (self), status, NULL,
          "Convolution on the CPU failed");
      return GST_FLOW_ERROR;
    }
  }
  return GST_FLOW_OK;
}

/* The plan for a channel size (made on first use, kept until settings or
 * caps change). */
static cf_status
get_plan (GstCudaConvolve * self, int width, int height,
    cf_cuda_convolve_plan ** plan)
{
  guint i;
  cf_status status;

  for (i = 0; i < MAX_PLANS; i++) {
    if (self->plans[i].plan && self->plans[i].width == width &&
        self->plans[i].height == height) {
      *plan = self->plans[i].plan;
      return CF_OK;
    }
  }
  for (i = 0; i < MAX_PLANS && self->plans[i].plan; i++);
  if (i == MAX_PLANS) {
    free_plans (self);
    i = 0;
  }
  status = cf_cuda_convolve_plan_new (width, height, self->stream_kernel,
      &self->params, &self->plans[i].plan);
  if (status != CF_OK)
    return status;
  self->plans[i].width = width;
  self->plans[i].height = height;
  GST_DEBUG_OBJECT (self, "new %dx%d plan, method %s", width, height,
      cf_conv_method_name (cf_cuda_convolve_plan_method (self->plans[i].plan)));
  *plan = self->plans[i].plan;
  return CF_OK;
}

static GstFlowReturn
process_cuda (GstCudaConvolve * self, const GstCfPlanes * in,
    const GstCfPlanes * out)
{
  const GstVideoInfo *info = &in->layout->info;
  cudaStream_t stream =
      gst_cf_base_transform_get_stream (GST_CF_BASE_TRANSFORM (self));
  cf_status status = CF_OK;
  const gchar *what = "Convolution on the GPU failed";
  guint comp;

  if (self->gpu_src.data == NULL) {
    status = cf_cuda_image_alloc (&self->gpu_src, in->layout->width,
        in->layout->height);
    if (status == CF_OK)
      status = cf_cuda_image_alloc (&self->gpu_dst, in->layout->width,
          in->layout->height);
    if (status != CF_OK) {
      what = "Not enough GPU memory for the working planes";
      goto failed;
    }
  }

  for (comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    cf_cuda_convolve_plan *plan = NULL;
    cf_cuda_image a, b;
    cf_channel src, dst;

    if (!(component_flag (info, comp) & self->stream_channels))
      continue;
    describe_channel (in, comp, &src);
    describe_channel (out, comp, &dst);
    a = self->gpu_src;
    a.width = src.width;
    a.height = src.height;
    b = self->gpu_dst;
    b.width = src.width;
    b.height = src.height;

    status = get_plan (self, src.width, src.height, &plan);
    if (status == CF_ERROR_UNSUPPORTED) {
      /* the plan refuses separable only for a kernel of rank > 1, fft
       * only when cuFFT cannot be opened, and im2tensor only on a device
       * without tensor cores (cuda/convolve.cu) */
      if (self->params.method == CF_CONV_METHOD_SEPARABLE)
        GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
            ("method=separable: the %dx%d kernel is not separable "
                "(rank > 1); use method=direct or method=fft.",
                self->stream_kernel->width, self->stream_kernel->height),
            (NULL));
      else if (self->params.method == CF_CONV_METHOD_FFT)
        GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
            ("method=fft: cuFFT (" CF_CUFFT_SONAME ") could not be loaded; "
                "install cuFFT or use method=auto or method=direct."),
            ("%s", cf_cuda_convolve_fft_load_error ()));
      else if (self->params.method == CF_CONV_METHOD_IM2TENSOR)
        GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
            ("method=im2tensor needs a GPU with tensor cores (compute "
                "capability 7.0 or newer); use method=auto or "
                "method=direct."), (NULL));
      else
        GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
            ("method=%s is not available in this build; use method=auto or "
                "method=direct.", cf_conv_method_name (self->params.method)),
            (NULL));
      return GST_FLOW_ERROR;
    }
    if (status != CF_OK) {
      what = "Could not prepare the GPU convolution";
      goto failed;
    }
    status = cf_cuda_channel_unpack (&src, &a, stream);
    if (status == CF_OK)
      status = cf_cuda_convolve_plan_run (plan, a.data, a.pitch, b.data,
          b.pitch, stream);
    if (status == CF_OK)
      status = cf_cuda_channel_pack (&b, (float) (self->stream_offset *
              cf_channel_max (dst.depth)), &dst, stream);
    if (status != CF_OK)
      goto failed;
  }
  return GST_FLOW_OK;

failed:
  gst_cf_post_status_error (GST_ELEMENT (self), status, NULL, what);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_cuda_convolve_process (GstCfBaseTransform * base, GstBuffer * inbuf,
    const GstCfPlanes * in, GstBuffer * outbuf, const GstCfPlanes * out)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (base);
  GstFlowReturn ret;

  if (!sync_settings (self))
    return GST_FLOW_ERROR;

  /* unfiltered channels (alpha, padding, unselected planes) pass unchanged */
  ret = gst_cf_base_transform_copy_planes (base, in, out);
  if (ret != GST_FLOW_OK || self->stream_kernel == NULL)
    return ret;

  if (in->on_device)
    return process_cuda (self, in, out);
  return process_cpu (self, in, out);
}
