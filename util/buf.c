/*
 * buf.c - lab_buf.  Growth doubles, so appending n bytes one at a time
 * costs O(n) copies overall.  A request for more than twice the room
 * held (a 2 MB text written after a few KB of tags) grows to what it
 * needs plus the room held before (256 bytes at least) instead: rounding
 * it up to a doubling would leave up to half of a message-sized buffer
 * unused at the peak.  Growth stays geometric (at least threefold).
 */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"

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
	cap = exact ? need : b->cap ? b->cap : 256;
	if (need / 2 > cap)
		cap = need > (size_t)-1 - cap ? need : need + cap;
	while (cap < need)
		cap = cap > (size_t)-1 / 2 ? need : cap * 2;
	p = dom_realloc(b->data, cap);
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
	if (lab_buf_reserve(b, n) != LAB_OK)
		return LAB_ENOMEM;
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
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return LAB_ENOMEM;
	if (lab_buf_reserve(b, (size_t)n) != LAB_OK)
		return LAB_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return LAB_OK;
}

void lab_buf_free(lab_buf *b)
{
	dom_free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}
