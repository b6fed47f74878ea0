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
 * Every property can change while PLAYING; the streaming thread picks the
 * change up before its next frame (and switches passthrough on or off
 * there). A kernel file is read on a thread of its own, so a slow file or
 * a FIFO holds neither the application nor the stream: frames keep the
 * current kernel until the file is read. An invalid kernel stops the
 * stream only if it is the first one; set later (including a transient
 * state such as kernel-preset=laplacian before kernel-size=5), it posts a
 * warning and the last valid kernel stays.
 *
 * Frames are 1x1 up to 32768x32768 (the size of the working planes on
 * the CPU and on the GPU).
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
/* What the working planes hold on both backends (cf_image_new,
 * cf_cuda_image_alloc and the plans refuse larger sides). */
#define SIZE_RANGE "(int) [ 1, " G_STRINGIFY (CF_MAX_DIMENSION) " ]"
#define VIDEO_CAPS(features) "video/x-raw" features ", format = (string) " \
    FORMATS ", width = " SIZE_RANGE ", height = " SIZE_RANGE \
    ", framerate = " GST_VIDEO_FPS_RANGE
#define TEMPLATE_CAPS \
    VIDEO_CAPS ("(memory:CUDAMemory)") "; " VIDEO_CAPS ("")

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

/* A kernel file read on a thread of its own: a FIFO or a slow disk must
 * hold neither the object lock, the application thread nor the stream.
 * Shared (reference counted) by the element and the reading thread. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gchar *path;
  guint cookie;                 /* the kernel_cookie it was started for */
  /* under lock */
  gboolean done;
  cf_kernel *kernel;
  cf_status status;
  cf_error err;
} GstCudaConvolveFileLoad;

struct _GstCudaConvolve
{
  GstCfBaseTransform parent;

  /* properties, under the object lock */
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
  guint cookie;                 /* bumped by every change */
  guint kernel_cookie;          /* bumped by every change of the kernel */
  gboolean flushing;            /* stopping: stop waiting for a file */

  /* streaming thread only (and start ()) */
  gboolean caps_equal;          /* in and out caps identical */
  guint used_cookie;
  guint stream_kernel_cookie;   /* the kernel_cookie stream_kernel answers */
  gboolean settled;             /* a kernel was settled since start () */
  GstCudaConvolveFileLoad *load;        /* a file being read, or read */
  cf_kernel *stream_kernel;     /* the last valid kernel; NULL: none */
  gchar *kernel_error;          /* invalid first kernel: stops the stream */
  gboolean kernel_error_io;
  gchar *settings_error;        /* settings that cannot run together */
  gboolean plans_stale;         /* kernel or parameters changed */
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
static GstStateChangeReturn gst_cuda_convolve_change_state (GstElement *
    element, GstStateChange transition);
static gboolean gst_cuda_convolve_start (GstBaseTransform * trans);
static void gst_cuda_convolve_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstCaps *gst_cuda_convolve_transform_media_caps (GstCfBaseTransform *
    base, GstPadDirection direction, GstCaps * caps);
static gboolean gst_cuda_convolve_set_info (GstCfBaseTransform * base,
    const GstCfLayout * in, const GstCfLayout * out);
static GstFlowReturn gst_cuda_convolve_process (GstCfBaseTransform * base,
    GstBuffer * inbuf, const GstCfPlanes * in, GstBuffer * outbuf,
    const GstCfPlanes * out);
static void gst_cuda_convolve_free_device_resources (GstCfBaseTransform *
    base);
static void refresh_settings (GstCudaConvolve * self,
    gboolean may_reconfigure);
static void file_load_drop (GstCudaConvolveFileLoad ** load);

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
          "fp32 sums for im2tensor, fp32 for the others; method=auto may "
          "pick im2tensor where it is the fastest measured", "auto"},
    {GST_CUDA_CONVOLVE_PRECISION_FP32, "fp32 throughout (stencil, direct, "
          "separable, fft; method=auto never picks im2tensor, "
          "method=im2tensor is refused)", "fp32"},
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
    {CF_CONV_METHOD_STENCIL, "Stencil: one pass from registers, the image "
          "read and written once (kernels up to 7x7)", "stencil"},
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

  cf_class->debug_category = gst_cuda_convolve_debug;

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
          "excludes it, auto lets method=auto pick it where it is fastest "
          "(the CPU backend computes in double whatever is set)",
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
      "(stencil, direct, separable, cuFFT or im2tensor tensor-core method; "
      "CPU reference without a GPU)",
      "gst-cudaflow");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_convolve_change_state);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_convolve_start);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_convolve_before_transform);

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
  self->cookie = 1;
  self->kernel_cookie = 1;
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
  file_load_drop (&self->load);
  cf_kernel_free (self->stream_kernel);
  g_free (self->kernel_error);
  g_free (self->settings_error);
  cf_image_free (self->cpu_src);
  cf_image_free (self->cpu_dst);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* --- properties ------------------------------------------------------ */

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
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_PRECISION:
      self->precision = g_value_get_enum (value);
      break;
    case PROP_CHANNELS:
      self->channels = g_value_get_flags (value);
      break;
    case PROP_OFFSET:
      self->offset = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  /* nothing is built or read here: the streaming thread does it before
   * its next frame, off the lock (a kernel file may be slow, or a FIFO) */
  if (kernel_changed)
    self->kernel_cookie++;
  self->cookie++;
  GST_OBJECT_UNLOCK (self);
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

/* --- kernel files ---------------------------------------------------- */

static void
file_load_clear (gpointer data)
{
  GstCudaConvolveFileLoad *load = data;

  g_free (load->path);
  cf_kernel_free (load->kernel);
  g_mutex_clear (&load->lock);
  g_cond_clear (&load->cond);
}

/* Give up the element's reference (the reading thread may still hold
 * one: a FIFO nobody writes keeps it until the process ends). */
static void
file_load_drop (GstCudaConvolveFileLoad ** load)
{
  if (*load != NULL)
    g_atomic_rc_box_release_full (*load, file_load_clear);
  *load = NULL;
}

static gpointer
file_load_run (gpointer data)
{
  GstCudaConvolveFileLoad *load = data;
  cf_kernel *kernel = NULL;
  cf_error err = { {0} };
  cf_status status = cf_kernel_load (load->path, &kernel, &err);

  g_mutex_lock (&load->lock);
  load->kernel = kernel;
  load->status = status;
  load->err = err;
  load->done = TRUE;
  g_cond_broadcast (&load->cond);
  g_mutex_unlock (&load->lock);
  g_atomic_rc_box_release_full (load, file_load_clear);
  return NULL;
}

static GstCudaConvolveFileLoad *
file_load_start (const gchar * path, guint cookie)
{
  GstCudaConvolveFileLoad *load =
      g_atomic_rc_box_new0 (GstCudaConvolveFileLoad);
  GThread *thread;
  GError *error = NULL;

  g_mutex_init (&load->lock);
  g_cond_init (&load->cond);
  load->path = g_strdup (path);
  load->cookie = cookie;
  thread = g_thread_try_new ("cudaconvolve-kernel", file_load_run,
      g_atomic_rc_box_acquire (load), &error);
  if (thread == NULL) {
    load->status = CF_ERROR_IO;
    cf_error_set (&load->err, "cannot start a thread to read kernel file "
        "'%s': %s", path, error->message);
    load->done = TRUE;
    g_atomic_rc_box_release (load);
    g_error_free (error);
  } else {
    g_thread_unref (thread);
  }
  return load;
}

/* Wait until @load is read, or the element stops. */
static void
file_load_wait (GstCudaConvolve * self, GstCudaConvolveFileLoad * load)
{
  g_mutex_lock (&load->lock);
  while (!load->done) {
    gboolean flushing;

    GST_OBJECT_LOCK (self);
    flushing = self->flushing;
    GST_OBJECT_UNLOCK (self);
    if (flushing)
      break;
    g_cond_wait_until (&load->cond, &load->lock,
        g_get_monotonic_time () + 50 * G_TIME_SPAN_MILLISECOND);
  }
  g_mutex_unlock (&load->lock);
}

/* The result of @load when it is read (the kernel moves to the caller);
 * FALSE while the file is still being read. */
static gboolean
file_load_take (GstCudaConvolveFileLoad * load, cf_kernel ** kernel,
    cf_status * status, cf_error * err)
{
  gboolean done;

  g_mutex_lock (&load->lock);
  done = load->done;
  if (done) {
    *kernel = load->kernel;
    *status = load->status;
    *err = load->err;
    load->kernel = NULL;
  }
  g_mutex_unlock (&load->lock);
  return done;
}

/* --- settings, on the streaming thread --------------------------------- */

/* What defines the kernel, copied from the properties. */
typedef struct
{
  gchar *text;
  gchar *location;
  cf_kernel_preset preset;
  gint size;
  gdouble sigma;
  gboolean normalize;
} KernelSpec;

/* Settle the kernel of @spec (kernel_cookie @cookie) as the stream's:
 * inline text and presets at once, a file once its thread has read it
 * (the first kernel of a stream waits for it). Valid: it replaces the
 * current one. Invalid: the first one becomes an error for process () to
 * post; a later one posts a warning and the last valid kernel stays. */
static void
update_kernel (GstCudaConvolve * self, const KernelSpec * spec, guint cookie)
{
  cf_kernel *kernel = NULL;
  cf_status status = CF_OK;
  cf_error err = { {0} };

  if (spec->text == NULL && spec->location != NULL) {
    if (self->load != NULL && self->load->cookie != cookie)
      file_load_drop (&self->load);
    if (self->load == NULL)
      self->load = file_load_start (spec->location, cookie);
    if (!self->settled)
      file_load_wait (self, self->load);
    if (!file_load_take (self->load, &kernel, &status, &err))
      return;                   /* still reading: keep the current kernel */
    file_load_drop (&self->load);
  } else {
    file_load_drop (&self->load);
    if (spec->text != NULL) {
      status = cf_kernel_parse (spec->text, &kernel, &err);
      if (status != CF_OK) {
        gchar *msg = g_strdup_printf ("kernel: %s", err.message);
        cf_error_set (&err, "%s", msg);
        g_free (msg);
      }
    } else if (spec->preset != CF_KERNEL_PRESET_NONE) {
      status = cf_kernel_preset_new (spec->preset, spec->size,
          (float) spec->sigma, &kernel, &err);
    }
  }
  /* zero-sum kernels stay as they are, as the property says */
  if (status == CF_OK && kernel != NULL && spec->normalize)
    (void) cf_kernel_normalize (kernel);

  if (status == CF_OK) {
    cf_kernel_free (self->stream_kernel);
    self->stream_kernel = kernel;
    g_clear_pointer (&self->kernel_error, g_free);
  } else {
    cf_kernel_free (kernel);
    if (!self->settled) {
      cf_kernel_free (self->stream_kernel);
      self->stream_kernel = NULL;
      g_free (self->kernel_error);
      self->kernel_error = g_strdup (err.message);
      self->kernel_error_io = status == CF_ERROR_IO;
    } else if (status == CF_ERROR_IO) {
      GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
          ("Could not read the kernel file; keeping the previous kernel: %s",
              err.message), ("status: %s", cf_status_name (status)));
    } else {
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
          ("Invalid kernel; keeping the previous kernel: %s", err.message),
          ("status: %s", cf_status_name (status)));
    }
  }
  self->stream_kernel_cookie = cookie;
  self->settled = TRUE;
  self->plans_stale = TRUE;
}

/* The method @method and @precision ask for together, and whether
 * method=auto may pick im2tensor; FALSE when they contradict each other
 * (fp16 is im2tensor's arithmetic only). */
static gboolean
method_for_precision (cf_conv_method method,
    GstCudaConvolvePrecision precision, cf_convolve_params * params)
{
  params->auto_im2tensor = precision == GST_CUDA_CONVOLVE_PRECISION_AUTO;
  switch (precision) {
    case GST_CUDA_CONVOLVE_PRECISION_FP16:
      params->method = CF_CONV_METHOD_IM2TENSOR;
      return method == CF_CONV_METHOD_AUTO
          || method == CF_CONV_METHOD_IM2TENSOR;
    case GST_CUDA_CONVOLVE_PRECISION_FP32:
      params->method = method;
      return method != CF_CONV_METHOD_IM2TENSOR;
    default:
      params->method = method;
      return TRUE;
  }
}

/* The message for method=stencil with a kernel it does not serve. */
static gchar *
stencil_refusal (const cf_kernel * kernel)
{
  return g_strdup_printf ("method=stencil serves kernels up to %dx%d; the "
      "kernel is %dx%d: use method=auto or method=direct.",
      CF_CONV_STENCIL_MAX_SIZE, CF_CONV_STENCIL_MAX_SIZE, kernel->width,
      kernel->height);
}

/* Why the settings cannot run together, whatever the backend (NULL when
 * they can): both backends refuse the same combinations with the same
 * message, so the CPU suite catches what the GPU would refuse. */
static gchar *
settings_conflict (cf_conv_method method, GstCudaConvolvePrecision precision,
    const cf_kernel * kernel, cf_convolve_params * params)
{
  gchar *text = NULL;

  if (!method_for_precision (method, precision, params)) {
    GEnumClass *mc = g_type_class_ref (GST_TYPE_CUDA_CONVOLVE_METHOD);
    GEnumClass *pc = g_type_class_ref (GST_TYPE_CUDA_CONVOLVE_PRECISION);

    text = g_strdup_printf ("method=%s cannot compute with precision=%s: "
        "im2tensor is the fp16 method and the others are fp32; use "
        "precision=auto.", g_enum_get_value (mc, method)->value_nick,
        g_enum_get_value (pc, precision)->value_nick);
    g_type_class_unref (mc);
    g_type_class_unref (pc);
  } else if (kernel != NULL
      && cf_cuda_convolve_check_settings (kernel, params) ==
      CF_ERROR_UNSUPPORTED) {
    /* the refusals that depend on the settings alone: separable needs a
     * rank-1 kernel, stencil a small one (cuda/convolve.h) */
    if (params->method == CF_CONV_METHOD_STENCIL)
      text = stencil_refusal (kernel);
    else
      text = g_strdup_printf ("method=separable: the %dx%d kernel is not "
          "separable (rank > 1); use method=direct or method=fft.",
          kernel->width, kernel->height);
  }
  return text;
}

/* Switch passthrough for the settings the stream now uses: only here, on
 * the streaming thread before a frame (or at caps), so that the frame
 * goes through prepare_output_buffer and transform under one decision. */
static void
apply_passthrough (GstCudaConvolve * self, gboolean may_reconfigure)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  gboolean identity;

  identity = self->kernel_error == NULL && self->settings_error == NULL &&
      self->caps_equal && (self->stream_kernel == NULL ||
      self->stream_channels == 0 ||
      (cf_kernel_is_identity (self->stream_kernel) &&
          self->stream_offset == 0.0));
  if (identity == gst_base_transform_is_passthrough (trans))
    return;
  GST_DEBUG_OBJECT (self, "passthrough %s", identity ? "on" : "off");
  gst_base_transform_set_passthrough (trans, identity);
  if (!identity && may_reconfigure) {
    GstBufferPool *pool = gst_base_transform_get_buffer_pool (trans);

    /* passthrough at the caps decided no output pool: decide one now
     * (before this frame: reconfiguration comes after before_transform) */
    if (pool == NULL)
      gst_base_transform_reconfigure_src (trans);
    else
      gst_object_unref (pool);
  }
}

/* Copy the properties into the stream's settings when they changed,
 * settle the kernel and switch passthrough. Streaming thread. */
static void
refresh_settings (GstCudaConvolve * self, gboolean may_reconfigure)
{
  KernelSpec spec = { NULL, NULL, CF_KERNEL_PRESET_NONE, 0, 0.0, FALSE };
  cf_conv_method method;
  GstCudaConvolvePrecision precision;
  guint kernel_cookie;
  gboolean kernel_changed;

  GST_OBJECT_LOCK (self);
  if (self->cookie == self->used_cookie && self->load == NULL) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  self->used_cookie = self->cookie;
  kernel_cookie = self->kernel_cookie;
  kernel_changed = kernel_cookie != self->stream_kernel_cookie;
  if (kernel_changed) {
    spec.text = g_strdup (self->kernel_text);
    spec.location = g_strdup (self->kernel_location);
    spec.preset = self->preset;
    spec.size = self->kernel_size;
    spec.sigma = self->sigma;
    spec.normalize = self->normalize;
  }
  self->params.border = self->border;
  self->params.mode = self->mode;
  method = self->method;
  precision = self->precision;
  self->stream_channels = self->channels;
  self->stream_offset = self->offset;
  GST_OBJECT_UNLOCK (self);

  if (kernel_changed)
    update_kernel (self, &spec, kernel_cookie);
  g_free (spec.text);
  g_free (spec.location);

  g_free (self->settings_error);
  self->settings_error = settings_conflict (method, precision,
      self->stream_kernel, &self->params);
  /* plans hold the kernel and border; rebuilt lazily */
  self->plans_stale = TRUE;
  apply_passthrough (self, may_reconfigure);
}

/* --- stream ---------------------------------------------------------- */

static GstStateChangeReturn
gst_cuda_convolve_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (element);

  /* stopping must not wait for a kernel file still being read (a FIFO
   * without writer): the pads' deactivation waits for the stream */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY ||
      transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    GST_OBJECT_LOCK (self);
    self->flushing = transition == GST_STATE_CHANGE_PAUSED_TO_READY;
    GST_OBJECT_UNLOCK (self);
  }
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static gboolean
gst_cuda_convolve_start (GstBaseTransform * trans)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (trans);

  /* the kernel is settled again, from the properties, on the stream */
  self->used_cookie = 0;
  self->stream_kernel_cookie = 0;
  self->settled = FALSE;
  file_load_drop (&self->load);
  g_clear_pointer (&self->kernel_error, g_free);
  g_clear_pointer (&self->settings_error, g_free);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans);
}

static void
gst_cuda_convolve_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  /* controlled properties first: they are settings of this frame */
  GST_BASE_TRANSFORM_CLASS (parent_class)->before_transform (trans, buffer);
  refresh_settings (GST_CUDA_CONVOLVE (trans), TRUE);
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

  self->caps_equal = gst_cf_base_transform_caps_are_equal (base);
  /* settle the kernel now, so that the allocation that follows the caps
   * knows whether the element is a passthrough */
  refresh_settings (self, FALSE);
  apply_passthrough (self, FALSE);
  return TRUE;
}

/* Post the error that stops the stream, if the settings hold one; FALSE
 * when they do. */
static gboolean
post_settings_error (GstCudaConvolve * self)
{
  if (self->kernel_error != NULL) {
    if (self->kernel_error_io)
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
          ("Could not read the kernel file: %s", self->kernel_error), (NULL));
    else
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid kernel: %s",
              self->kernel_error), (NULL));
    return FALSE;
  }
  if (self->settings_error != NULL) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", self->settings_error),
        (NULL));
    return FALSE;
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
      g_clear_pointer (&self->cpu_src, cf_image_free);
      g_clear_pointer (&self->cpu_dst, cf_image_free);
      if (in->layout->width > CF_MAX_DIMENSION ||
          in->layout->height > CF_MAX_DIMENSION)
        GST_ELEMENT_ERROR (self, STREAM, FORMAT,
            ("%dx%d frames are larger than the %dx%d the convolution "
                "supports.", in->layout->width, in->layout->height,
                CF_MAX_DIMENSION, CF_MAX_DIMENSION), (NULL));
      else
        GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
            ("Not enough memory for %dx%d working planes.",
                in->layout->width, in->layout->height), (NULL));
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
  gchar *text;
  guint comp;

  if (self->gpu_src.data == NULL) {
    status = cf_cuda_image_alloc (&self->gpu_src, in->layout->width,
        in->layout->height);
    if (status == CF_OK)
      status = cf_cuda_image_alloc (&self->gpu_dst, in->layout->width,
          in->layout->height);
    if (status != CF_OK) {
      cf_cuda_image_release (&self->gpu_src);
      if (status == CF_ERROR_INVALID) {
        GST_ELEMENT_ERROR (self, STREAM, FORMAT,
            ("%dx%d frames are larger than the %dx%d the convolution "
                "supports.", in->layout->width, in->layout->height,
                CF_MAX_DIMENSION, CF_MAX_DIMENSION), (NULL));
        return GST_FLOW_ERROR;
      }
      what = "Could not allocate the GPU working planes";
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
      /* the plan refuses separable only for a kernel of rank > 1, stencil
       * only for a kernel side above CF_CONV_STENCIL_MAX_SIZE (both caught
       * by settings_conflict () first), fft only when cuFFT cannot be
       * opened, and im2tensor only on a device without tensor cores
       * (cuda/convolve.cu) */
      if (self->params.method == CF_CONV_METHOD_STENCIL) {
        gchar *text = stencil_refusal (self->stream_kernel);

        GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", text), (NULL));
        g_free (text);
      } else if (self->params.method == CF_CONV_METHOD_SEPARABLE)
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
  /* the frame and kernel sizes say what to make smaller when memory ran
   * out */
  text = g_strdup_printf ("%s (%dx%d frames, %dx%d kernel)", what,
      in->layout->width, in->layout->height, self->stream_kernel->width,
      self->stream_kernel->height);
  gst_cf_post_status_error (GST_ELEMENT (self), status, NULL, text);
  g_free (text);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_cuda_convolve_process (GstCfBaseTransform * base, GstBuffer * inbuf,
    const GstCfPlanes * in, GstBuffer * outbuf, const GstCfPlanes * out)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (base);
  GstFlowReturn ret;

  if (!post_settings_error (self))
    return GST_FLOW_ERROR;
  if (self->plans_stale) {
    /* the context is pushed here (CUDA backend) */
    free_plans (self);
    self->plans_stale = FALSE;
    if (self->stream_kernel) {
      char desc[128];
      cf_kernel_describe (self->stream_kernel, desc, sizeof (desc));
      GST_DEBUG_OBJECT (self, "kernel %s, border %s", desc,
          cf_border_name (self->params.border));
    }
  }

  /* unfiltered channels (alpha, padding, unselected planes) pass unchanged */
  ret = gst_cf_base_transform_copy_planes (base, in, out);
  if (ret != GST_FLOW_OK || self->stream_kernel == NULL ||
      self->stream_channels == 0)
    return ret;

  if (in->on_device)
    return process_cuda (self, in, out);
  return process_cpu (self, in, out);
}
