/* gst-cudaflow — Middlebury-format data directories for the evaluation tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_FLOW_DATA_H
#define CF_FLOW_DATA_H

#include "common/image.h"

/* The sequences under @dir that have ground truth (<seq>/flow10.flo), in
 * name order, as at most @max new strings in @seqs (free them with
 * free ()). Returns their number, or -1 (with perror) when @dir cannot be
 * read. */
int cf_list_flow_sequences (const char *dir, char **seqs, int max);

/* Read @dir/@seq/frame10.png and frame11.png as luma in 0..255 and
 * flow10.flo, the ground truth; the three must have one size. The caller
 * frees all three; on an error none is returned and @err says which file
 * failed and why. */
cf_status cf_load_flow_pair (const char *dir, const char *seq,
    cf_image ** frame0, cf_image ** frame1, cf_flow ** truth,
    cf_error * err);

#endif /* CF_FLOW_DATA_H */
