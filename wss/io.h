/*
 * io.h - the `io` axis: how a message with attachments is read from a
 * file descriptor (a file or a pipe).
 *
 *   unbuffered  one read(2) per byte, as Axis2 (2010) read MIME parts
 *               from an InputStream nobody had wrapped in a buffer;
 *   buffered    reads in 64 KiB blocks and serves the bytes from memory.
 *
 * Both return the same bytes in the same order; only the number of
 * system calls differs.  The reader does not own the descriptor.
 * Not for: parsing what is read (wss/multipart.c) or writing.
 */
#ifndef WSS_IO_H
#define WSS_IO_H

#include <stddef.h>

#include "util/err.h"

typedef struct wss_io wss_io;

int wss_io_open(int fd, wss_io **out, lab_err *err);

/* Frees the reader, not the descriptor (NULL is fine). */
void wss_io_free(wss_io *r);

/*
 * Reads up to n bytes into p; *got is less than n only at the end of the
 * input.  A read error is LAB_EIO; EINTR is retried.
 */
int wss_io_read(wss_io *r, void *p, size_t n, size_t *got, lab_err *err);

extern const char wss__io_choice[];   /* "unbuffered" / "buffered" */

#endif
