/* gst-cudaflow — Middlebury-format data directories for the evaluation tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "flow-data.h"

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
