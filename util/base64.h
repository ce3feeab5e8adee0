/*
 * base64.h - the base64 encoder (RFC 4648, standard alphabet, padded)
 * that the DOM's base64 texts and wss share.
 * Not for: decoding (wss/base64.h), the URL-safe alphabet, MIME's
 * 76-column rule (the caller picks the line length).
 */
#ifndef LAB_BASE64_H
#define LAB_BASE64_H

#include <stddef.h>

/* How many characters the one-line encoding of n bytes takes (n below
 * SIZE_MAX / 2). */
size_t lab_base64_len(size_t n);

/*
 * Writes the encoding of p[0..n) at o (no NUL): one line when line_len
 * is 0, else a '\n' between lines of line_len characters, a multiple of
 * 4 (no newline after the last).  Returns the end, or NULL when the
 * encoder's tables cannot be made (then nothing was written).
 */
char *lab_base64_put(const void *p, size_t n, size_t line_len, char *o);

#endif
