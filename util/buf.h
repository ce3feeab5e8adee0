/*
 * buf.h - a growable byte buffer (the serializer's, the generator's and
 * the command line's output).  Always NUL-terminated after `len` bytes so
 * it can be handed to string functions; the NUL is not counted.
 * Not for: the tree's own strings, which live in the document's arena.
 */
#ifndef LAB_BUF_H
#define LAB_BUF_H

#include <stddef.h>
#include <string.h>

typedef struct lab_buf {
	char *data;
	size_t len;
	size_t cap;
} lab_buf;

#define LAB_BUF_INIT {NULL, 0, 0}

/* Each returns 0, or LAB_ENOMEM with the buffer unchanged. */
/* Room for extra more bytes: growth doubles, except that a request for
 * more than twice the room held grows to it plus that room (buf.c). */
int lab_buf_reserve(lab_buf *b, size_t extra);
/* lab_buf_reserve, growing (when it must) to exactly that room and no
 * more: for a caller that knows about how much will follow, which
 * doubling would round up to as much as twice. */
int lab_buf_reserve_exact(lab_buf *b, size_t extra);
int lab_buf_put(lab_buf *b, const void *p, size_t n);
int lab_buf_puts(lab_buf *b, const char *s);
int lab_buf_putc(lab_buf *b, char c);
int lab_buf_printf(lab_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Frees the bytes and leaves b empty (LAB_BUF_INIT), ready for reuse. */
void lab_buf_free(lab_buf *b);

/*
 * Copies n bytes to o (room checked by the caller) and returns o + n.
 * For the XML writers' many short copies -- names, values of a few
 * bytes -- where a call to memcpy costs more than the bytes: up to 16
 * bytes are two overlapping fixed-size moves.
 */
static inline __attribute__((always_inline)) char *lab_copy(char *o,
							     const char *s,
							     size_t n)
{
	if (n > 16) {
		memcpy(o, s, n);
	} else if (n >= 8) {
		memcpy(o, s, 8);
		memcpy(o + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(o, s, 4);
		memcpy(o + n - 4, s + n - 4, 4);
	} else if (n > 0) {
		o[0] = s[0];
		o[n / 2] = s[n / 2];
		o[n - 1] = s[n - 1];
	}
	return o + n;
}

#endif
