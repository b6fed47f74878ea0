/* gst-cudaflow — Middlebury-format data directories for the evaluation tools
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_FLOW_DATA_H
#define CF_FLOW_DATA_H

/* The sequences under @dir that have ground truth (<seq>/flow10.flo), in
 * name order, as at most @max new strings in @seqs (free them with
 * free ()). Returns their number, or -1 (with perror) when @dir cannot be
 * read. */
int cf_list_flow_sequences (const char *dir, char **seqs, int max);

#endif /* CF_FLOW_DATA_H */
