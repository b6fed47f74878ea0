/* gst-cudaflow — status codes shared by common/ and cuda/
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CF_STATUS_H
#define CF_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible function in common/ and cuda/ returns one of these; none of
 * them prints, exits or aborts on bad input. */
typedef enum
{
  CF_OK = 0,
  CF_ERROR_INVALID,             /* bad argument or parameter value */
  CF_ERROR_NO_MEMORY,           /* host or device allocation failed */
  CF_ERROR_IO,                  /* a file could not be opened, read or written */
  CF_ERROR_FORMAT,              /* malformed file or text */
  CF_ERROR_UNSUPPORTED,         /* valid request this build cannot serve */
  CF_ERROR_NO_DEVICE,           /* no usable CUDA device */
  CF_ERROR_CUDA                 /* a CUDA call failed (see cf_cuda_last_error) */
} cf_status;

/* Human-readable detail for errors a user can fix ("line 3: expected 25
 * values, got 24"). Functions take a nullable cf_error *. */
#define CF_ERROR_MESSAGE_MAX 256
typedef struct
{
  char message[CF_ERROR_MESSAGE_MAX];
} cf_error;

const char *cf_status_name (cf_status status);

/* printf-style; a NULL err is allowed and ignored. */
void cf_error_set (cf_error * err, const char *format, ...)
#if defined(__GNUC__)
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* CF_STATUS_H */
