/*
 * base64.h - base64 (RFC 4648, standard alphabet, padded) both ways: the
 * encoder the DOM's base64 texts and wss share, and the decoder for what
 * XML Signature and XML Encryption carry (DigestValue, SignatureValue,
 * CipherValue, BinarySecurityToken), with XML's whitespace rules.
 * Not for: the URL-safe alphabet, unpadded input, MIME's 76-column rule
 * (the caller picks the line length).
 */
#ifndef LAB_BASE64_H
#define LAB_BASE64_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

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

/*
 * Appends the encoding of p[0..n).  line_len 0 writes one line; otherwise
 * a '\n' separates lines of line_len characters (no newline after the
 * last).  Returns 0, LAB_EUSAGE when line_len is not a multiple of 4, or
 * LAB_ENOMEM; out is unchanged on failure.
 */
int lab_base64_encode(const void *p, size_t n, size_t line_len, lab_buf *out);

/*
 * Appends the bytes s[0..n) encodes.  XML whitespace (space, tab, CR, LF)
 * is skipped anywhere.  Anything else that is not in the alphabet, a
 * missing or misplaced '=', non-zero bits left over in the last quantum,
 * or data after the padding: LAB_EMALFORMED, with out unchanged.
 */
int lab_base64_decode(const char *s, size_t n, lab_buf *out, lab_err *err);

/*
 * The same, decoded over s itself (a CipherValue's text, whose characters
 * are not read again): the *len bytes s[0..n) encodes end up at s + *at,
 * which is `room` (up to 1 KB, for what the caller puts in front) when
 * the text is long enough and starts with whole quanta, else 0.  On
 * failure s holds a mix of both and *len is 0.
 */
int lab_base64_decode_in_place(char *s, size_t n, size_t room, size_t *at,
			       size_t *len, lab_err *err);
/*
 * The same in runs of `piece` characters (0: one run), calling
 * each(ctx, s + *at, k, err) after each run with k the bytes decoded so
 * far, which lie at s + *at on: a consumer works on them while they are
 * still in cache, in place.  The bytes it is given are final (the end
 * may add two more after them); it may change them, never those past
 * them.  A non-zero return stops the decode with that code.
 */
typedef int (*lab_base64_piece_fn)(void *ctx, char *p, size_t k,
				   lab_err *err);
int lab_base64_decode_in_place_each(char *s, size_t n, size_t room,
				    size_t piece, lab_base64_piece_fn each,
				    void *ctx, size_t *at, size_t *len,
				    lab_err *err);

#endif
