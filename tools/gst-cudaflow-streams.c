/* gst-cudaflow-streams — many decoded video streams through one element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * N pipelines in one process, each
 *   filesrc ! qtdemux ! h264parse ! nvh264dec ! ELEMENT ! fakesink|appsink
 * looping its clip with segment seeks, as an application serving N cameras
 * or files would run them. After a warm-up it counts the frames every
 * stream delivers and reports:
 *  - aggregate frames/s over the measured window;
 *  - per-stream latency, p50 and p99: from the compressed frame entering
 *    the decoder to the result reaching the sink (keyed by PTS), and the
 *    element's share (its sink pad to its source pad);
 *  - GPU busy (NVML's utilisation: the share of time a kernel ran) and
 *    NVDEC busy, sampled during the window, and this process's device
 *    memory, total and per stream (NVML, loaded at run time: without it
 *    these read "null");
 *  - optionally the flow itself: with --expect-flow U,V (a clip panned by
 *    a known motion) every --check-every'th flow field is read on the host
 *    and its mean endpoint error against (U, V) taken away from the
 *    borders; the median over the checked frames is reported.
 * --context per-pipeline gives each pipeline a CUDA context of its own when
 * an element asks for one (as if each ran alone in its process), shared
 * gives every pipeline the first one made; by default the elements decide.
 * One JSON object per run goes to --json (appended, one per line) and one
 * markdown row to --markdown (header written when the file is empty).
 */
#include "args-util.h"

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/cudaflow/cudaflow.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include <glib/gstdio.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PROG "gst-cudaflow-streams"

/* --context: what the application does when an element asks for a CUDA
 * context (need-context) */
enum
{
  CONTEXT_ELEMENTS,             /* nothing: the elements decide */
  CONTEXT_PER_PIPELINE,         /* a new context for each pipeline */
  CONTEXT_SHARED                /* the first context made, for all */
};
static const gchar *context_names[] = { "elements", "per-pipeline",
  "shared"
};

typedef struct
{
  gint index;
  GstElement *pipeline;
  GMutex lock;
  /* PTS -> monotonic µs at the decoder's and the element's input */
  GHashTable *decoder_in, *element_in;
  GArray *latency_ms, *element_ms, *epe;
  GstContext *own_context;      /* --context per-pipeline */
  guint64 frames_total, frames_window, checked;
  gboolean loop_failed;
} Stream;

typedef struct
{
  gint n;
  Stream *streams;
  GMainLoop *loop;
  gint64 window_start, window_end;     /* monotonic µs; 0 = not yet */
  volatile gint measuring;
  gchar *error;
  /* --frames and --memory-log */
  guint64 stop_frames;
  FILE *memory_log;
  gint64 start;
  gdouble rss_first, rss_max, dev_first, dev_max;
  gpointer nvml;
  /* options shared by the callbacks */
  gboolean check;
  gdouble expect_u, expect_v;
  gint check_every, border;
  gint context_mode;            /* CONTEXT_* */
  GstContext *shared_context;
  GMutex context_lock;
  /* flow checks run in their own thread: reading a field back on the
   * host would otherwise stall the stream it came from */
  GAsyncQueue *checks;
  GThread *checker;
} Run;

typedef struct
{
  Stream *stream;
  GstBuffer *buffer;
  GstCaps *caps;
} Check;

/* --- NVML, loaded at run time ------------------------------------------- */

typedef struct
{
  unsigned int gpu, memory;
} nvml_utilization;
typedef struct
{
  unsigned long long total, free, used;
} nvml_memory;
typedef struct
{
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
} nvml_process_info;

typedef struct
{
  void *lib;
  void *device;
  int (*utilization) (void *, nvml_utilization *);
  int (*decoder_utilization) (void *, unsigned int *, unsigned int *);
  int (*processes) (void *, unsigned int *, nvml_process_info *);
} Nvml;

static gboolean
nvml_open (Nvml * nv, guint device)
{
  int (*init) (void);
  int (*handle) (unsigned int, void **);

  memset (nv, 0, sizeof (*nv));
  nv->lib = dlopen ("libnvidia-ml.so.1", RTLD_NOW);
  if (nv->lib == NULL)
    return FALSE;
  init = (int (*)(void)) dlsym (nv->lib, "nvmlInit_v2");
  handle = (int (*)(unsigned int, void **)) dlsym (nv->lib,
      "nvmlDeviceGetHandleByIndex_v2");
  nv->utilization = (int (*)(void *, nvml_utilization *)) dlsym (nv->lib,
      "nvmlDeviceGetUtilizationRates");
  nv->decoder_utilization = (int (*)(void *, unsigned int *,
          unsigned int *)) dlsym (nv->lib, "nvmlDeviceGetDecoderUtilization");
  nv->processes = (int (*)(void *, unsigned int *, nvml_process_info *))
      dlsym (nv->lib, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (init == NULL || handle == NULL || nv->utilization == NULL
      || init () != 0 || handle (device, &nv->device) != 0) {
    dlclose (nv->lib);
    memset (nv, 0, sizeof (*nv));
    return FALSE;
  }
  return TRUE;
}

/* This process's device memory in MiB, or -1. */
static gdouble
nvml_process_mib (Nvml * nv)
{
  nvml_process_info info[64];
  unsigned int count = G_N_ELEMENTS (info), i;
  pid_t self = getpid ();

  if (nv->processes == NULL || nv->processes (nv->device, &count, info) != 0)
    return -1.0;
  for (i = 0; i < count; i++)
    if (info[i].pid == (unsigned int) self)
      return info[i].used_gpu_memory / (1024.0 * 1024.0);
  return 0.0;
}

typedef struct
{
  Nvml *nv;
  Run *run;
  volatile gint stop;
  gdouble gpu_sum, dec_sum, mem_max;
  guint samples;
} Sampler;

static gpointer
sampler_thread (gpointer data)
{
  Sampler *s = data;

  while (!g_atomic_int_get (&s->stop)) {
    g_usleep (100 * 1000);
    if (!g_atomic_int_get (&s->run->measuring))
      continue;
    {
      nvml_utilization u;
      unsigned int dec = 0, period = 0;
      gdouble mib = nvml_process_mib (s->nv);

      if (s->nv->utilization (s->nv->device, &u) != 0)
        continue;
      if (s->nv->decoder_utilization != NULL)
        s->nv->decoder_utilization (s->nv->device, &dec, &period);
      s->gpu_sum += u.gpu;
      s->dec_sum += dec;
      s->mem_max = MAX (s->mem_max, mib);
      s->samples++;
    }
  }
  return NULL;
}

/* --- per-stream measurements ------------------------------------------- */

static gint64
now_us (void)
{
  return g_get_monotonic_time ();
}

static gboolean
in_window (Run * run, gint64 t)
{
  return g_atomic_int_get (&run->measuring) && t >= run->window_start;
}

static GstPadProbeReturn
stamp_input (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *s = data;
  GHashTable *table = g_object_get_data (G_OBJECT (pad), "cf-table");
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  if (GST_BUFFER_PTS_IS_VALID (buf)) {
    g_mutex_lock (&s->lock);
    /* frames that never come out (dropped) must not pile up */
    if (g_hash_table_size (table) > 4096)
      g_hash_table_remove_all (table);
    g_hash_table_insert (table, GSIZE_TO_POINTER (GST_BUFFER_PTS (buf) + 1),
        g_memdup2 ((gint64[]) { now_us ()}, sizeof (gint64)));
    g_mutex_unlock (&s->lock);
  }
  return GST_PAD_PROBE_OK;
}

/* milliseconds since @pts entered the table, or -1 (and forgets it) */
static gdouble
take_stamp (Stream * s, GHashTable * table, GstClockTime pts, gint64 t)
{
  gpointer key = GSIZE_TO_POINTER (pts + 1), value;
  gdouble ms = -1.0;

  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return -1.0;
  g_mutex_lock (&s->lock);
  value = g_hash_table_lookup (table, key);
  if (value != NULL) {
    ms = (t - *(gint64 *) value) / 1000.0;
    g_hash_table_remove (table, key);
  }
  g_mutex_unlock (&s->lock);
  return ms;
}

static GstPadProbeReturn
element_output (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *s = data;
  Run *run = g_object_get_data (G_OBJECT (pad), "cf-run");
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 t = now_us ();
  gdouble ms = take_stamp (s, s->element_in, GST_BUFFER_PTS (buf), t);

  if (ms >= 0 && in_window (run, t)) {
    g_mutex_lock (&s->lock);
    g_array_append_val (s->element_ms, ms);
    g_mutex_unlock (&s->lock);
  }
  return GST_PAD_PROBE_OK;
}

/* mean endpoint error of @frame against the expected motion, borders off */
static gdouble
frame_epe (Run * run, const GstCudaFlowFrame * frame)
{
  gdouble sum = 0.0;
  gint x, y, b = run->border, count = 0;

  /* every second row and column: the motion is uniform */
  for (y = b; y < frame->height - b; y += 2) {
    const gfloat *uv = (const gfloat *) (frame->data + (gsize) y *
        frame->stride);
    for (x = b; x < frame->width - b; x += 2, count++)
      sum += hypot (uv[2 * x] - run->expect_u, uv[2 * x + 1] - run->expect_v);
  }
  return count > 0 ? sum / count : NAN;
}

static void
check_flow (Run * run, Stream * s, GstBuffer * buf, GstCaps * caps)
{
  GstCudaFlowMeta *meta = gst_buffer_get_cuda_flow_meta (buf);
  GstCudaFlowFrame frame;
  gboolean mapped = FALSE;
  gdouble epe;

  if (meta != NULL) {
    mapped = meta->valid && gst_cuda_flow_meta_map (meta, &frame);
  } else if (caps != NULL && !GST_BUFFER_FLAG_IS_SET (buf,
          GST_BUFFER_FLAG_GAP)) {
    GstCudaFlowInfo info;

    if (gst_cuda_flow_info_from_caps (&info, caps))
      mapped = gst_cuda_flow_frame_map (&frame, buf, info.width, info.height,
          info.stride);
  }
  if (!mapped)
    return;
  epe = frame_epe (run, &frame);
  gst_cuda_flow_frame_unmap (&frame);
  g_mutex_lock (&s->lock);
  g_array_append_val (s->epe, epe);
  g_mutex_unlock (&s->lock);
}

static gpointer
checker_thread (gpointer data)
{
  Run *run = data;
  Check *c;

  while ((c = g_async_queue_pop (run->checks))->stream != NULL) {
    check_flow (run, c->stream, c->buffer, c->caps);
    gst_buffer_unref (c->buffer);
    if (c->caps)
      gst_caps_unref (c->caps);
    g_free (c);
  }
  g_free (c);
  return NULL;
}

static void
stream_output (Run * run, Stream * s, GstBuffer * buf, GstCaps * caps)
{
  gint64 t = now_us ();
  gdouble ms = take_stamp (s, s->decoder_in, GST_BUFFER_PTS (buf), t);
  guint64 n;

  g_mutex_lock (&s->lock);
  n = s->frames_total++;
  if (in_window (run, t)) {
    s->frames_window++;
    if (ms >= 0)
      g_array_append_val (s->latency_ms, ms);
  }
  g_mutex_unlock (&s->lock);
  /* one check in flight at most: skipped ones are not waited for */
  if (run->check && n % run->check_every == 0 && in_window (run, t)
      && g_async_queue_length (run->checks) <= 0) {
    Check *c = g_new0 (Check, 1);

    c->stream = s;
    c->buffer = gst_buffer_ref (buf);
    c->caps = caps ? gst_caps_ref (caps) : NULL;
    g_async_queue_push (run->checks, c);
  }
}

static GstPadProbeReturn
fakesink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *s = data;
  Run *run = g_object_get_data (G_OBJECT (pad), "cf-run");
  GstCaps *caps = run->check ? gst_pad_get_current_caps (pad) : NULL;

  stream_output (run, s, GST_PAD_PROBE_INFO_BUFFER (info), caps);
  if (caps)
    gst_caps_unref (caps);
  return GST_PAD_PROBE_OK;
}

static GstFlowReturn
appsink_sample (GstAppSink * sink, gpointer data)
{
  Stream *s = data;
  Run *run = g_object_get_data (G_OBJECT (sink), "cf-run");
  GstSample *sample = gst_app_sink_pull_sample (sink);

  if (sample == NULL)
    return GST_FLOW_EOS;
  stream_output (run, s, gst_sample_get_buffer (sample),
      gst_sample_get_caps (sample));
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

/* --- pipelines --------------------------------------------------------- */

static GstBusSyncReply
bus_sync (GstBus * bus, GstMessage * msg, gpointer data)
{
  Stream *s = data;
  Run *run = g_object_get_data (G_OBJECT (s->pipeline), "cf-run");
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT
      && gst_message_parse_context_type (msg, &type)
      && g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) == 0) {
    GstElement *asker = GST_ELEMENT (GST_MESSAGE_SRC (msg));

    if (run->context_mode == CONTEXT_PER_PIPELINE) {
      /* as if each pipeline were alone in its process */
      if (s->own_context == NULL && gst_cuda_load_library ()) {
        GstCudaContext *ctx = gst_cuda_context_new (0);

        if (ctx != NULL) {
          s->own_context = gst_context_new_cuda_context (ctx);
          gst_object_unref (ctx);
        }
      }
      if (s->own_context != NULL)
        gst_element_set_context (asker, s->own_context);
    } else if (run->context_mode == CONTEXT_SHARED) {
      g_mutex_lock (&run->context_lock);
      if (run->shared_context != NULL)
        gst_element_set_context (asker, run->shared_context);
      g_mutex_unlock (&run->context_lock);
    }
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT
      && run->context_mode == CONTEXT_SHARED) {
    GstContext *context = NULL;

    gst_message_parse_have_context (msg, &context);
    g_mutex_lock (&run->context_lock);
    if (run->shared_context == NULL && context != NULL && g_strcmp0
        (gst_context_get_context_type (context), GST_CUDA_CONTEXT_TYPE) == 0)
      run->shared_context = gst_context_ref (context);
    g_mutex_unlock (&run->context_lock);
    if (context)
      gst_context_unref (context);
  }
  return GST_BUS_PASS;
}

static gboolean
bus_async (GstBus * bus, GstMessage * msg, gpointer data)
{
  Stream *s = data;
  Run *run = g_object_get_data (G_OBJECT (s->pipeline), "cf-run");

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      if (run->error == NULL)
        run->error = g_strdup_printf ("stream %d: %s (%s)", s->index,
            err->message, dbg ? dbg : "");
      g_clear_error (&err);
      g_free (dbg);
      g_main_loop_quit (run->loop);
      break;
    }
    case GST_MESSAGE_SEGMENT_DONE:
      /* loop: the next pass follows without a flush */
      if (!gst_element_seek (s->pipeline, 1.0, GST_FORMAT_TIME,
              GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET, 0,
              GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE))
        s->loop_failed = TRUE;
      break;
    case GST_MESSAGE_EOS:
      s->loop_failed = TRUE;
      break;
    default:
      break;
  }
  return TRUE;
}

static gboolean
stream_build (Run * run, Stream * s, const gchar * clip,
    const gchar * decoder, const gchar * element, gboolean queue,
    gboolean appsink, GError ** err)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "%s name=dec ! %s%s name=work ! %s name=sink",
      clip, decoder, queue ? "queue max-size-buffers=4 ! " : "", element,
      appsink ? "appsink sync=false max-buffers=4" : "fakesink sync=false");
  GstElement *dec, *work, *sink;
  GstPad *pad;
  GstBus *bus;

  s->pipeline = gst_parse_launch (desc, err);
  g_free (desc);
  if (s->pipeline == NULL)
    return FALSE;
  if (*err != NULL) {
    gst_clear_object (&s->pipeline);
    return FALSE;
  }
  g_object_set_data (G_OBJECT (s->pipeline), "cf-run", run);
  dec = gst_bin_get_by_name (GST_BIN (s->pipeline), "dec");
  work = gst_bin_get_by_name (GST_BIN (s->pipeline), "work");
  sink = gst_bin_get_by_name (GST_BIN (s->pipeline), "sink");

  pad = gst_element_get_static_pad (dec, "sink");
  g_object_set_data (G_OBJECT (pad), "cf-table", s->decoder_in);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, stamp_input, s, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (work, "sink");
  g_object_set_data (G_OBJECT (pad), "cf-table", s->element_in);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, stamp_input, s, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (work, "src");
  g_object_set_data (G_OBJECT (pad), "cf-run", run);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, element_output, s, NULL);
  gst_object_unref (pad);
  if (appsink) {
    GstAppSinkCallbacks cb = { 0 };

    cb.new_sample = appsink_sample;

    g_object_set_data (G_OBJECT (sink), "cf-run", run);
    gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, s, NULL);
  } else {
    pad = gst_element_get_static_pad (sink, "sink");
    g_object_set_data (G_OBJECT (pad), "cf-run", run);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, fakesink_probe, s,
        NULL);
    gst_object_unref (pad);
  }
  gst_object_unref (dec);
  gst_object_unref (work);
  gst_object_unref (sink);

  bus = gst_element_get_bus (s->pipeline);
  gst_bus_set_sync_handler (bus, bus_sync, s, NULL);
  gst_bus_add_watch (bus, bus_async, s);
  gst_object_unref (bus);
  return TRUE;
}

/* PAUSED, then a flushing segment seek so that the clip loops */
static gboolean
stream_start (Stream * s, gchar ** why)
{
  if (gst_element_set_state (s->pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE
      || gst_element_get_state (s->pipeline, NULL, NULL,
          30 * GST_SECOND) != GST_STATE_CHANGE_SUCCESS) {
    *why = g_strdup_printf ("stream %d did not preroll", s->index);
    return FALSE;
  }
  if (!gst_element_seek (s->pipeline, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET, 0,
          GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE)) {
    *why = g_strdup_printf ("stream %d: the clip cannot be looped (segment "
        "seek refused)", s->index);
    return FALSE;
  }
  return TRUE;
}

/* --- results ----------------------------------------------------------- */

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return (x > y) - (x < y);
}

/* the q-quantile (nearest rank) of @values, sorted in place; NAN if empty */
static gdouble
quantile (GArray * values, gdouble q)
{
  guint i;

  if (values->len == 0)
    return NAN;
  g_array_sort (values, cmp_double);
  i = (guint) ceil (q * values->len);
  i = CLAMP (i, 1, values->len) - 1;
  return g_array_index (values, gdouble, i);
}

/* JSON number with @decimals, or null */
static gchar *
num (gdouble v, gint decimals)
{
  if (!isfinite (v) || v < 0)
    return g_strdup ("null");
  return g_strdup_printf ("%.*f", decimals, v);
}

static gboolean
file_is_empty (const gchar * path)
{
  GStatBuf st;
  return g_stat (path, &st) != 0 || st.st_size == 0;
}

static gboolean
on_timer (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

/* resident set of this process in MiB, or -1 */
static gdouble
host_rss_mib (void)
{
  gchar *text = NULL, *line;
  gdouble mib = -1.0;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return -1.0;
  line = strstr (text, "VmRSS:");
  if (line != NULL)
    mib = g_ascii_strtod (line + 6, NULL) / 1024.0;
  g_free (text);
  return mib;
}

static guint64
frames_so_far (Run * run)
{
  guint64 total = 0;
  gint i;

  for (i = 0; i < run->n; i++) {
    g_mutex_lock (&run->streams[i].lock);
    total += run->streams[i].frames_total;
    g_mutex_unlock (&run->streams[i].lock);
  }
  return total;
}

/* once a second: the memory log, the flatness after warm-up, --frames */
static gboolean
on_second (gpointer data)
{
  Run *run = data;
  guint64 frames = frames_so_far (run);
  gdouble rss = host_rss_mib ();
  gdouble dev = run->nvml ? nvml_process_mib (run->nvml) : -1.0;

  if (run->memory_log != NULL) {
    fprintf (run->memory_log, "%.1f,%" G_GUINT64_FORMAT ",%.1f,%.1f\n",
        (now_us () - run->start) / 1e6, frames, rss, dev);
    fflush (run->memory_log);
  }
  if (g_atomic_int_get (&run->measuring)) {
    if (run->rss_first <= 0) {
      run->rss_first = rss;
      run->dev_first = dev;
    }
    run->rss_max = MAX (run->rss_max, rss);
    run->dev_max = MAX (run->dev_max, dev);
    if (run->stop_frames > 0 && frames >= run->stop_frames)
      g_main_loop_quit (run->loop);
  }
  return G_SOURCE_CONTINUE;
}

int
main (int argc, char *argv[])
{
  gchar *clip = NULL, *element = NULL, *decoder = NULL, *json = NULL;
  gchar *markdown = NULL, *label = NULL, *context_mode = NULL;
  gchar *expect = NULL;
  gint n = 1, check_every = 30, border = 40, nvml_device = 0;
  gdouble seconds = 10.0, warmup = 3.0, bound_fps = 0.0;
  gboolean queue = FALSE, appsink = FALSE;
  gchar *memory_log = NULL;
  gint64 stop_frames = 0;
  GOptionEntry entries[] = {
    {"clip", 0, 0, G_OPTION_ARG_FILENAME, &clip,
        "H.264 clip in MP4 (required)", "FILE"},
    {"streams", 0, 0, G_OPTION_ARG_INT, &n,
        "Concurrent pipelines (default 1)", "N"},
    {"element", 0, 0, G_OPTION_ARG_STRING, &element,
        "Element and its properties, as in gst-launch (default "
          "'cudaflowtvl1 preset=fast precision=fp16')", "'NAME PROP=V ...'"},
    {"decoder", 0, 0, G_OPTION_ARG_STRING, &decoder,
        "What follows qtdemux up to the element: parser and decoder, as in "
          "gst-launch (default 'h264parse ! nvh264dec')", "'NAME ! ...'"},
    {"appsink", 0, 0, G_OPTION_ARG_NONE, &appsink,
        "End in an appsink that pulls every sample (the application's "
          "output=meta path) instead of a fakesink", NULL},
    {"queue", 0, 0, G_OPTION_ARG_NONE, &queue,
        "A queue between decoder and element (decoding and the element in "
          "two threads per stream)", NULL},
    {"context", 0, 0, G_OPTION_ARG_STRING, &context_mode,
        "What the application answers an element that asks for a CUDA "
          "context: elements (nothing; the default), per-pipeline (a new "
          "context for each pipeline) or shared (the first one made)",
        "MODE"},
    {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &seconds,
        "Measured window (default 10)", "S"},
    {"frames", 0, 0, G_OPTION_ARG_INT64, &stop_frames,
        "Run until the streams together delivered N frames (a soak) "
          "instead of for --seconds", "N"},
    {"memory-log", 0, 0, G_OPTION_ARG_FILENAME, &memory_log,
        "Every second, append 'seconds,frames,host RSS MiB,device MiB' "
          "to FILE", "FILE"},
    {"warmup", 0, 0, G_OPTION_ARG_DOUBLE, &warmup,
        "Seconds run before the window opens (default 3)", "S"},
    {"expect-flow", 0, 0, G_OPTION_ARG_STRING, &expect,
        "The clip's known flow: check every --check-every'th field "
          "against it", "U,V"},
    {"check-every", 0, 0, G_OPTION_ARG_INT, &check_every,
        "Frames between two checked flow fields per stream (default 30)",
        "K"},
    {"border", 0, 0, G_OPTION_ARG_INT, &border,
        "Pixels left out at each edge of a checked field (default 40)", "B"},
    {"bound-fps", 0, 0, G_OPTION_ARG_DOUBLE, &bound_fps,
        "The single-stream GPU-time bound (1000 / GPU ms per frame), "
          "reported beside the result", "FPS"},
    {"nvml-device", 0, 0, G_OPTION_ARG_INT, &nvml_device,
        "NVML index of the GPU to sample (default 0)", "I"},
    {"label", 0, 0, G_OPTION_ARG_STRING, &label,
        "Name of the run in the outputs (default: the element)", "TEXT"},
    {"json", 0, 0, G_OPTION_ARG_FILENAME, &json,
        "Append the result as one JSON line", "FILE"},
    {"markdown", 0, 0, G_OPTION_ARG_FILENAME, &markdown,
        "Append the result as a markdown row", "FILE"},
    {NULL}
  };
  GOptionContext *ctx;
  Run run;
  Nvml nv;
  gboolean have_nvml;
  Sampler sampler;
  GThread *sampler_th = NULL;
  GArray *lat_all, *elem_all, *epe_all;
  gdouble window_s, fps, worst_p99 = 0, fps_min = 1e30, mem_idle = -1.0;
  guint64 frames = 0;
  gint i, status = 0;
  GString *js;
  gchar *fields[12];

  ctx = cf_args_context_new (PROG, NULL, entries,
      "Runs N copies of 'filesrc ! qtdemux ! DECODER ! ELEMENT ! sink' "
      "in one process, each looping its clip, and reports aggregate "
      "frames/s, per-stream latency (p50, p99), GPU and NVDEC busy time and "
      "device memory per stream over a measured window; with --expect-flow "
      "each stream also checks its flow against the clip's known motion. "
      "A summary goes to stdout.",
      "Exit status: 0 on success, 1 when a stream failed, 2 on a usage "
      "error.\n\nExample:\n  " PROG " --clip pan-1080p.mp4 --streams 8 \\\n"
      "      --element 'cudaflowtvl1 preset=fast precision=fp16' \\\n"
      "      --expect-flow -3,-1 --json streams.json");
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  cf_args_parse (ctx, PROG, &argc, &argv);
  if (clip == NULL)
    cf_args_usage_error (PROG, "--clip is required");
  if (n < 1 || n > 256)
    cf_args_usage_error (PROG, "--streams must be 1..256");
  if (seconds <= 0 || warmup < 0)
    cf_args_usage_error (PROG, "--seconds must be > 0, --warmup >= 0");
  if (stop_frames < 0)
    cf_args_usage_error (PROG, "--frames must be >= 0");
  if (check_every < 1 || border < 0)
    cf_args_usage_error (PROG, "--check-every must be >= 1, --border >= 0");
  memset (&run, 0, sizeof (run));
  if (context_mode != NULL) {
    for (i = 0; i < (gint) G_N_ELEMENTS (context_names); i++)
      if (strcmp (context_mode, context_names[i]) == 0)
        break;
    if (i == G_N_ELEMENTS (context_names))
      cf_args_usage_error (PROG, "--context is elements, per-pipeline or "
          "shared");
    run.context_mode = i;
  }
  if (expect != NULL) {
    if (sscanf (expect, "%lf,%lf", &run.expect_u, &run.expect_v) != 2)
      cf_args_usage_error (PROG, "--expect-flow wants U,V");
    run.check = TRUE;
  }
  if (!g_file_test (clip, G_FILE_TEST_IS_REGULAR))
    cf_args_usage_error (PROG, "no clip at %s", clip);
  if (element == NULL)
    element = g_strdup ("cudaflowtvl1 preset=fast precision=fp16");
  if (decoder == NULL)
    decoder = g_strdup ("h264parse ! nvh264dec");
  if (label == NULL)
    label = g_strdup (element);
  if (run.check) {
    run.checks = g_async_queue_new ();
    run.checker = g_thread_new ("check", checker_thread, &run);
  }
  run.check_every = check_every;
  run.border = border;
  run.n = n;
  run.loop = g_main_loop_new (NULL, FALSE);
  g_mutex_init (&run.context_lock);
  run.streams = g_new0 (Stream, n);

  have_nvml = nvml_open (&nv, nvml_device);
  if (have_nvml) {
    mem_idle = nvml_process_mib (&nv);
    run.nvml = &nv;
  }
  run.stop_frames = stop_frames;
  run.start = now_us ();
  if (memory_log != NULL) {
    run.memory_log = fopen (memory_log, "w");
    if (run.memory_log == NULL) {
      g_printerr ("%s: cannot write %s\n", PROG, memory_log);
      return 1;
    }
    fprintf (run.memory_log, "seconds,frames,host_rss_mib,device_mib\n");
  }

  for (i = 0; i < n; i++) {
    Stream *s = &run.streams[i];
    GError *err = NULL;

    s->index = i;
    g_mutex_init (&s->lock);
    s->decoder_in = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    s->element_in = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    s->latency_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
    s->element_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
    s->epe = g_array_new (FALSE, FALSE, sizeof (gdouble));
    if (!stream_build (&run, s, clip, decoder, element, queue, appsink,
            &err)) {
      g_printerr ("%s: cannot build the pipeline: %s\n", PROG,
          err ? err->message : "?");
      return 1;
    }
  }

  /* one after the other: with --context shared the first stream makes
   * the CUDA context and the sync handler gives it to the others */
  for (i = 0; i < n; i++) {
    gchar *why = NULL;

    if (!stream_start (&run.streams[i], &why)) {
      g_printerr ("%s: %s\n", PROG, why);
      return 1;
    }
  }
  if (run.context_mode == CONTEXT_SHARED && n > 1
      && run.shared_context == NULL)
    g_printerr ("%s: warning: no CUDA context was shared (the decoder and "
        "the element made none)\n", PROG);

  if (have_nvml) {
    memset (&sampler, 0, sizeof (sampler));
    sampler.nv = &nv;
    sampler.run = &run;
    sampler_th = g_thread_new ("nvml", sampler_thread, &sampler);
  }

  for (i = 0; i < n; i++)
    gst_element_set_state (run.streams[i].pipeline, GST_STATE_PLAYING);
  g_timeout_add_seconds (1, on_second, &run);
  g_timeout_add ((guint) (warmup * 1000), on_timer, run.loop);
  g_main_loop_run (run.loop);
  if (run.error == NULL) {
    run.window_start = now_us ();
    g_atomic_int_set (&run.measuring, 1);
    if (stop_frames == 0)
      g_timeout_add ((guint) (seconds * 1000), on_timer, run.loop);
    g_main_loop_run (run.loop);
  }
  run.window_end = now_us ();
  g_atomic_int_set (&run.measuring, 0);
  if (run.memory_log)
    fclose (run.memory_log);
  if (run.checker) {
    g_async_queue_push (run.checks, g_new0 (Check, 1));
    g_thread_join (run.checker);
  }
  if (sampler_th) {
    g_atomic_int_set (&sampler.stop, 1);
    g_thread_join (sampler_th);
  }
  for (i = 0; i < n; i++)
    gst_element_set_state (run.streams[i].pipeline, GST_STATE_NULL);

  if (run.error != NULL) {
    g_printerr ("%s: %s\n", PROG, run.error);
    return 1;
  }

  /* aggregate, then per stream */
  window_s = (run.window_end - run.window_start) / 1e6;
  lat_all = g_array_new (FALSE, FALSE, sizeof (gdouble));
  elem_all = g_array_new (FALSE, FALSE, sizeof (gdouble));
  epe_all = g_array_new (FALSE, FALSE, sizeof (gdouble));
  for (i = 0; i < n; i++) {
    Stream *s = &run.streams[i];
    gdouble p99 = quantile (s->latency_ms, 0.99);

    frames += s->frames_window;
    if (isfinite (p99))
      worst_p99 = MAX (worst_p99, p99);
    fps_min = MIN (fps_min, s->frames_window / window_s);
    if (s->loop_failed) {
      g_printerr ("%s: stream %d stopped looping\n", PROG, i);
      status = 1;
    }
    if (s->frames_window == 0) {
      g_printerr ("%s: stream %d delivered no frame in the window\n", PROG,
          i);
      status = 1;
    }
    g_array_append_vals (lat_all, s->latency_ms->data, s->latency_ms->len);
    g_array_append_vals (elem_all, s->element_ms->data, s->element_ms->len);
    g_array_append_vals (epe_all, s->epe->data, s->epe->len);
  }
  fps = frames / window_s;

  {
    gdouble lat50 = quantile (lat_all, 0.50), lat99 = quantile (lat_all,
        0.99), el50 = quantile (elem_all, 0.50), el99 = quantile (elem_all,
        0.99), epe = quantile (epe_all, 0.50);
    gdouble gpu = -1, dec = -1, mem = -1, mem_stream = -1;

    if (have_nvml && sampler.samples > 0) {
      gpu = sampler.gpu_sum / sampler.samples;
      dec = sampler.dec_sum / sampler.samples;
      mem = sampler.mem_max;
      mem_stream = mem >= 0 ? (mem - MAX (mem_idle, 0)) / n : -1;
    }

    g_print ("%s: %d stream(s), CUDA context: %s%s%s\n", label, n,
        context_names[run.context_mode], queue ? ", queue" : "",
        appsink ? ", appsink" : "");
    g_print ("  %.1f frames/s aggregate over %.1f s (slowest stream %.1f)",
        fps, window_s, fps_min);
    if (bound_fps > 0)
      g_print (", %.0f %% of the GPU-time bound %.0f", 100 * fps / bound_fps,
          bound_fps);
    g_print ("\n  latency decoder-in to sink: p50 %.2f ms, p99 %.2f ms "
        "(worst stream p99 %.2f); element: p50 %.2f, p99 %.2f ms\n",
        lat50, lat99, worst_p99, el50, el99);
    if (gpu >= 0)
      g_print ("  GPU busy %.0f %%, NVDEC busy %.0f %%, device memory %.0f "
          "MiB (%.0f per stream)\n", gpu, dec, mem, mem_stream);
    else
      g_print ("  GPU busy and device memory: n/a (no NVML)\n");
    if (run.rss_first > 0)
      g_print ("  memory after warm-up: host RSS %.1f -> max %.1f MiB "
          "(+%.2f %%)%s\n", run.rss_first, run.rss_max,
          100 * (run.rss_max - run.rss_first) / run.rss_first,
          run.dev_first > 0 ? "" : ", device n/a");
    if (run.dev_first > 0)
      g_print ("  device memory after warm-up: %.1f -> max %.1f MiB "
          "(+%.2f %%)\n", run.dev_first, run.dev_max,
          100 * (run.dev_max - run.dev_first) / run.dev_first);
    if (run.check)
      g_print ("  flow check: median EPE %.3f px over %u fields against "
          "(%g, %g)\n", epe, epe_all->len, run.expect_u, run.expect_v);

    if (json != NULL) {
      FILE *f = fopen (json, "a");

      fields[0] = num (fps, 2);
      fields[1] = num (lat50, 3);
      fields[2] = num (lat99, 3);
      fields[3] = num (worst_p99, 3);
      fields[4] = num (el50, 3);
      fields[5] = num (el99, 3);
      fields[6] = num (gpu, 1);
      fields[7] = num (dec, 1);
      fields[8] = num (mem, 0);
      fields[9] = num (mem_stream, 1);
      fields[10] = num (run.check ? epe : -1, 4);
      fields[11] = num (bound_fps > 0 ? bound_fps : -1, 1);
      js = g_string_new (NULL);
      g_string_append_printf (js, "{\"label\": \"%s\", \"element\": \"%s\", "
          "\"clip\": \"%s\", \"streams\": %d, \"context\": \"%s\", "
          "\"queue\": %s, \"appsink\": %s, \"window_s\": %.2f, "
          "\"frames\": %" G_GUINT64_FORMAT ", \"fps\": %s, "
          "\"slowest_stream_fps\": %.2f, \"latency_p50_ms\": %s, "
          "\"latency_p99_ms\": %s, \"worst_stream_p99_ms\": %s, "
          "\"element_p50_ms\": %s, \"element_p99_ms\": %s, "
          "\"gpu_busy_pct\": %s, \"nvdec_busy_pct\": %s, "
          "\"device_mib\": %s, \"device_mib_per_stream\": %s, "
          "\"median_epe\": %s, \"checked_fields\": %u, \"bound_fps\": %s, "
          "\"rss_first_mib\": %.1f, \"rss_max_mib\": %.1f, "
          "\"device_first_mib\": %.1f, \"device_max_mib\": %.1f}\n",
          label, element, clip, n,
          context_names[run.context_mode], queue ? "true" : "false",
          appsink ? "true" : "false", window_s,
          frames, fields[0], fps_min, fields[1], fields[2], fields[3],
          fields[4], fields[5], fields[6], fields[7], fields[8], fields[9],
          fields[10], epe_all->len, fields[11], run.rss_first, run.rss_max,
          run.dev_first, run.dev_max);
      if (f == NULL || fputs (js->str, f) < 0) {
        g_printerr ("%s: cannot write %s\n", PROG, json);
        status = 1;
      }
      if (f)
        fclose (f);
      g_string_free (js, TRUE);
      for (i = 0; i < 12; i++)
        g_free (fields[i]);
    }
    if (markdown != NULL) {
      gboolean empty = file_is_empty (markdown);
      FILE *f = fopen (markdown, "a");

      if (f == NULL) {
        g_printerr ("%s: cannot write %s\n", PROG, markdown);
        status = 1;
      } else {
        if (empty)
          fprintf (f, "| run | N | context | frames/s | %% of bound | "
              "p50 ms | p99 ms | element p99 ms | GPU busy %% | "
              "NVDEC busy %% | MiB per stream | flow EPE |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        fprintf (f, "| %s | %d | %s | %.0f | ", label, n,
            context_names[run.context_mode], fps);
        if (bound_fps > 0)
          fprintf (f, "%.0f | ", 100 * fps / bound_fps);
        else
          fprintf (f, "– | ");
        fprintf (f, "%.2f | %.2f | %.2f | ", lat50, lat99, el99);
        if (gpu >= 0)
          fprintf (f, "%.0f | %.0f | %.0f | ", gpu, dec, mem_stream);
        else
          fprintf (f, "– | – | – | ");
        if (run.check)
          fprintf (f, "%.3f |\n", epe);
        else
          fprintf (f, "– |\n");
        fclose (f);
      }
    }
  }
  return status;
}
