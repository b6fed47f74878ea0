/* gst-cudaflow — Middlebury-format data directories for the evaluation tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "flow-data.h"
#include "png-io.h"
#include "common/flo.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

int
cf_list_flow_sequences (const char *dir, char **seqs, int max)
{
  DIR *d = opendir (dir);
  struct dirent *e;
  int n = 0;

  if (d == NULL) {
    perror (dir);
    return -1;
  }
  while ((e = readdir (d)) != NULL && n < max) {
    char probe[4096];
    struct stat st;

    if (e->d_name[0] == '.')
      continue;
    snprintf (probe, sizeof (probe), "%s/%s/flow10.flo", dir, e->d_name);
    if (stat (probe, &st) == 0 && S_ISREG (st.st_mode))
      seqs[n++] = strdup (e->d_name);
  }
  closedir (d);
  qsort (seqs, n, sizeof (char *), compare_strings);
  return n;
}

cf_status
cf_load_flow_pair (const char *dir, const char *seq, cf_image ** frame0,
    cf_image ** frame1, cf_flow ** truth, cf_error * err)
{
  char path[4096];
  cf_image *f0 = NULL, *f1 = NULL;
  cf_flow *t = NULL;
  cf_status status;

  snprintf (path, sizeof (path), "%s/%s/frame10.png", dir, seq);
  status = cf_png_read_luma (path, &f0, err);
  if (status == CF_OK) {
    snprintf (path, sizeof (path), "%s/%s/frame11.png", dir, seq);
    status = cf_png_read_luma (path, &f1, err);
  }
  if (status == CF_OK) {
    snprintf (path, sizeof (path), "%s/%s/flow10.flo", dir, seq);
    status = cf_flo_read (path, &t, err);
  }
  if (status == CF_OK && (f0->width != f1->width ||
          f0->height != f1->height || t->width != f0->width ||
          t->height != f0->height)) {
    cf_error_set (err, "frames (%dx%d, %dx%d) and ground truth (%dx%d) "
        "differ in size", f0->width, f0->height, f1->width, f1->height,
        t->width, t->height);
    status = CF_ERROR_FORMAT;
  }
  if (status != CF_OK) {
    cf_image_free (f0);
    cf_image_free (f1);
    cf_flow_free (t);
    return status;
  }
  *frame0 = f0;
  *frame1 = f1;
  *truth = t;
  return CF_OK;
}
