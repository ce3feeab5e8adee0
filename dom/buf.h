/*
 * buf.h - a growable byte buffer (the serializer's, the generator's and
 * the command line's output).  Always NUL-terminated after `len` bytes so
 * it can be handed to string functions; the NUL is not counted.
 * Not for: the tree's own strings, which live in the document's arena.
 */
#ifndef LAB_BUF_H
#define LAB_BUF_H

#include <stddef.h>

typedef struct lab_buf {
	char *data;
	size_t len;
	size_t cap;
} lab_buf;

#define LAB_BUF_INIT {NULL, 0, 0}

/* Each returns 0, or LAB_ENOMEM with the buffer unchanged. */
int lab_buf_reserve(lab_buf *b, size_t extra);
int lab_buf_put(lab_buf *b, const void *p, size_t n);
int lab_buf_puts(lab_buf *b, const char *s);
int lab_buf_putc(lab_buf *b, char c);
int lab_buf_printf(lab_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void lab_buf_free(lab_buf *b);

#endif
