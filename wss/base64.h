/*
 * base64.h - base64 (RFC 4648, standard alphabet, padded) as XML Signature
 * and XML Encryption carry it: DigestValue, SignatureValue, CipherValue,
 * BinarySecurityToken.
 *
 * Our own table-driven code rather than OpenSSL's: it is on the hot path
 * (every CipherValue of a large Body) and the whitespace rules are XML's.
 * Not for: the URL-safe alphabet, unpadded input, MIME's 76-column rule
 * (the caller picks the line length).
 */
#ifndef WSS_BASE64_H
#define WSS_BASE64_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/*
 * Appends the encoding of p[0..n).  line_len 0 writes one line; otherwise
 * a '\n' separates lines of line_len characters (no newline after the
 * last).  Returns 0, LAB_EUSAGE when line_len is not a multiple of 4, or
 * LAB_ENOMEM; out is unchanged on failure.
 */
int wss_base64_encode(const void *p, size_t n, size_t line_len, lab_buf *out);

/*
 * Appends the bytes s[0..n) encodes.  XML whitespace (space, tab, CR, LF)
 * is skipped anywhere.  Anything else that is not in the alphabet, a
 * missing or misplaced '=', non-zero bits left over in the last quantum,
 * or data after the padding: LAB_EMALFORMED, with out unchanged.
 */
int wss_base64_decode(const char *s, size_t n, lab_buf *out, lab_err *err);

/*
 * The same, decoded over s itself (a CipherValue's text, whose characters
 * are not read again): the *len bytes s[0..n) encodes end up at s + *at,
 * which is `room` (up to 1 KB, for what the caller puts in front) when
 * the text is long enough and starts with whole quanta, else 0.  On
 * failure s holds a mix of both and *len is 0.
 */
int wss_base64_decode_in_place(char *s, size_t n, size_t room, size_t *at,
			       size_t *len, lab_err *err);

#endif
