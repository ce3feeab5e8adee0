/*
 * buf.h - a growable byte buffer (the serializer's, the generator's and
 * the command line's output).  Always NUL-terminated after `len` bytes so
 * it can be handed to string functions; the NUL is not counted.
 *
 * A buffer may instead hand its bytes to a writer (lab_buf_init_writer):
 * output in pieces, as a service writes a message to a socket, with a
 * window's worth of memory instead of the whole output.  Then `data`
 * holds only the bytes not yet handed over.  The writer gets pieces while
 * a call is still writing; if the call then fails, what the writer got is
 * a truncated output the caller must discard (a socket: close it).
 * Not for: the tree's own strings, which live in the document's arena;
 * with a writer, for code that reads back, patches, rewinds or takes over
 * bytes it wrote (lab_buf_need_plain refuses those).
 */
#ifndef LAB_BUF_H
#define LAB_BUF_H

#include <stddef.h>
#include <string.h>

#include "util/err.h"

/* Takes the n bytes at p (n > 0); returns 0, or nonzero when it failed. */
typedef int (*lab_buf_write_fn)(void *ctx, const char *p, size_t n);

typedef struct lab_buf {
	char *data;
	size_t len;
	size_t cap;
	/* Set by lab_buf_init_writer alone, never by hand; write NULL: a
	 * plain buffer. */
	lab_buf_write_fn write;
	void *ctx;
	size_t window;
	int failed; /* LAB_EIO once the writer failed, for good */
} lab_buf;

#define LAB_BUF_INIT {NULL, 0, 0, NULL, NULL, 0, LAB_OK}

/*
 * Makes b (whatever it held: its bytes are not freed) an empty buffer
 * that hands its bytes to write(ctx, ...): when a reserve would take it
 * past its room (window bytes; more once one reserve asked for more),
 * the bytes so far go to the writer and the buffer starts again, and a
 * put of more than window bytes goes to the writer without a copy.  The
 * room is allocated at the first append.  A writer's failure is
 * LAB_EIO from that call and from every later one that must reserve or
 * flush (the bytes then held are dropped).  LAB_EUSAGE, b left plain and
 * empty, for no writer or a window of 0 (or SIZE_MAX).
 */
int lab_buf_init_writer(lab_buf *b, size_t window, lab_buf_write_fn write,
			void *ctx);
/*
 * Hands the bytes held to the writer: after the last append of an
 * output, so that the writer has all of it (dom_serialize and
 * wss_c14n_buf flush before they return).  LAB_OK, LAB_EIO (sticky), and
 * LAB_OK with nothing to do on a plain buffer.
 */
int lab_buf_flush(lab_buf *b);

/*
 * Appends the n bytes at p and flushes: an output that is these bytes,
 * handed on whole (a hop passing a message on as it came).  LAB_OK, or
 * LAB_ENOMEM or LAB_EIO with err saying which.
 */
int lab_buf_put_all(lab_buf *b, const void *p, size_t n, lab_err *err);

/* LAB_EIO once b's writer failed, else LAB_OK: for callers whose own
 * error path cannot tell a failed writer from a failed allocation. */
static inline int lab_buf_error(const lab_buf *b)
{
	return b->failed;
}

static inline int lab_buf_has_writer(const lab_buf *b)
{
	return b->write != NULL;
}

/* LAB_OK for a plain buffer; LAB_EUSAGE, naming `who`, for one with a
 * writer: `who` reads back, patches, rewinds or takes over its bytes. */
int lab_buf_need_plain(const lab_buf *b, const char *who, lab_err *err);

/* Each returns 0, or LAB_ENOMEM with the buffer unchanged (with a
 * writer: LAB_EIO, or LAB_ENOMEM with the bytes before flushed). */
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

/* Drops the bytes past the first len, if any, NUL-terminated again:
 * for a plain buffer, whose caller undoes what a failed call appended
 * (a writer's buffer holds only what it has not handed on). */
void lab_buf_truncate(lab_buf *b, size_t len);

/* Frees the bytes and leaves b empty (LAB_BUF_INIT), ready for reuse;
 * a writer's buffer becomes plain, its unflushed bytes dropped. */
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

/*
 * Writes lead, then "prefix:" when prefix is not NULL (pl bytes before
 * the colon), local (ll bytes) and tail at o, and returns the end.  The
 * caller has checked the room: nlead + pl + 1 + ll + ntail bytes.  Both
 * XML writers (dom/serialize.c, wss/c14n.c) put every name through it;
 * inlined so that the short copies of constant length become stores.
 */
static inline __attribute__((always_inline)) char *
lab_put_qname(char *o, const char *lead, size_t nlead,
	      const char *prefix, size_t pl, const char *local,
	      size_t ll, const char *tail, size_t ntail)
{
	memcpy(o, lead, nlead);
	o += nlead;
	if (prefix != NULL) {
		o = lab_copy(o, prefix, pl);
		*o++ = ':';
	}
	o = lab_copy(o, local, ll);
	memcpy(o, tail, ntail);
	return o + ntail;
}

#endif
