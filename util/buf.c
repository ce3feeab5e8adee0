/*
 * buf.c - lab_buf.  Growth doubles, so appending n bytes one at a time
 * costs O(n) copies overall.  A request for more than twice the room
 * held (a 2 MB text written after a few KB of tags) grows to what it
 * needs plus the room held before (256 bytes at least) instead: rounding
 * it up to a doubling would leave up to half of a message-sized buffer
 * unused at the peak.  Growth stays geometric (at least threefold).
 * A buffer with a writer never grows by doubling: its room is the window
 * (or one reserve's need, if larger), emptied into the writer when full.
 */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"

int lab_buf_init_writer(lab_buf *b, size_t window, lab_buf_write_fn write,
			void *ctx)
{
	*b = (lab_buf)LAB_BUF_INIT;
	if (write == NULL || window == 0 || window == (size_t)-1)
		return LAB_EUSAGE;
	b->write = write;
	b->ctx = ctx;
	b->window = window;
	return LAB_OK;
}

/* Hands n bytes at p to the writer; a failure sticks and drops what the
 * buffer holds, so that every later reserve fails at once. */
static int hand(lab_buf *b, const char *p, size_t n)
{
	if (b->write(b->ctx, p, n) == 0)
		return LAB_OK;
	lab_free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = LAB_EIO;
	return LAB_EIO;
}

int lab_buf_flush(lab_buf *b)
{
	if (b->failed != LAB_OK)
		return b->failed;
	if (b->write == NULL || b->len == 0)
		return LAB_OK;
	if (hand(b, b->data, b->len) != LAB_OK)
		return LAB_EIO;
	b->len = 0;
	b->data[0] = '\0';
	return LAB_OK;
}

int lab_buf_put_all(lab_buf *b, const void *p, size_t n, lab_err *err)
{
	int rc = lab_buf_put(b, p, n);

	if (rc == LAB_OK)
		rc = lab_buf_flush(b);
	if (rc == LAB_OK)
		return LAB_OK;
	return lab_fail(err, rc, rc == LAB_EIO ? "the output's writer failed"
					      : "out of memory");
}

int lab_buf_need_plain(const lab_buf *b, const char *who, lab_err *err)
{
	if (b->write == NULL)
		return LAB_OK;
	return lab_fail(err, LAB_EUSAGE,
			"%s takes a buffer without a writer: it reads back "
			"or rewrites what it wrote",
			who);
}

/* A writer's buffer out of room: flushed, then the window, or a larger
 * room for a larger reserve (extra more bytes and the NUL).  A fresh
 * block, not a realloc: nothing held needs copying. */
static int reserve_writer(lab_buf *b, size_t extra)
{
	size_t room = extra > b->window ? extra : b->window;
	int rc = lab_buf_flush(b);
	char *p;

	if (rc != LAB_OK || extra < b->cap)
		return rc;
	if (room == (size_t)-1)
		return LAB_ENOMEM;
	p = lab_malloc(room + 1);
	if (p == NULL)
		return LAB_ENOMEM;
	lab_free(b->data);
	p[0] = '\0';
	b->data = p;
	b->cap = room + 1;
	return LAB_OK;
}

/* Room for extra more bytes and the NUL; `exact` grows to just that. */
static int reserve(lab_buf *b, size_t extra, int exact)
{
	size_t need, cap;
	char *p;

	if (extra > (size_t)-1 - b->len - 1)
		return LAB_ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return LAB_OK;
	if (b->write != NULL)
		return reserve_writer(b, extra);
	cap = exact ? need : b->cap ? b->cap : 256;
	if (need / 2 > cap)
		cap = need > (size_t)-1 - cap ? need : need + cap;
	while (cap < need)
		cap = cap > (size_t)-1 / 2 ? need : cap * 2;
	p = lab_realloc(b->data, cap);
	if (p == NULL)
		return LAB_ENOMEM;
	b->data = p;
	b->cap = cap;
	return LAB_OK;
}

int lab_buf_reserve(lab_buf *b, size_t extra)
{
	return reserve(b, extra, 0);
}

int lab_buf_reserve_exact(lab_buf *b, size_t extra)
{
	return reserve(b, extra, 1);
}

int lab_buf_put(lab_buf *b, const void *p, size_t n)
{
	int rc;

	/* More than a window: straight to the writer, after what is held. */
	if (b->write != NULL && n > b->window) {
		rc = lab_buf_flush(b);
		return rc != LAB_OK ? rc : hand(b, p, n);
	}
	rc = lab_buf_reserve(b, n);
	if (rc != LAB_OK)
		return rc;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return LAB_OK;
}

int lab_buf_puts(lab_buf *b, const char *s)
{
	return lab_buf_put(b, s, strlen(s));
}

int lab_buf_putc(lab_buf *b, char c)
{
	return lab_buf_put(b, &c, 1);
}

int lab_buf_printf(lab_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return LAB_ENOMEM;
	rc = lab_buf_reserve(b, (size_t)n);
	if (rc != LAB_OK)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return LAB_OK;
}

void lab_buf_truncate(lab_buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	b->data[len] = '\0';
}

void lab_buf_free(lab_buf *b)
{
	lab_free(b->data);
	*b = (lab_buf)LAB_BUF_INIT;
}
