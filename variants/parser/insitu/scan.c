/*
 * scan.c - the insitu parser's error reports, with line and
 * column, and its full name scanner for what the inline ASCII one
 * (scan_name in variants/parser/insitu/state.h) does not take: non-ASCII names and
 * names that are not names.
 * Not for: the hot path, which never comes here on well-formed ASCII.
 */
#include <stdarg.h>
#include <stdio.h>

#include "variants/parser/insitu/state.h"

int dom__insitu_fail_at(parser *ps, const char *at, int code,
			const char *fmt, ...)
{
	unsigned long line, col;
	char msg[sizeof ps->err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	dom__insitu_position(&ps->in, (size_t)(at - ps->in.text), &line, &col);
	return lab_fail_at(ps->err, code, line, col, "%s", msg);
}

/* What is wrong with the byte at r, which no scanning loop accepted. */
int dom__insitu_bad_char(parser *ps, const char *r, const char *where)
{
	unsigned char c = (unsigned char)*r;

	if (r == ps->end)
		return MALFORMED(ps, r, "document ends inside %s", where);
	if (c >= 0x80)
		return MALFORMED(ps, r, "invalid UTF-8, or a code point that is "
				 "not an XML character, in %s", where);
	return MALFORMED(ps, r, "character 0x%02x is not allowed in XML", c);
}

/*
 * The name at *pp when it is not plain ASCII, or not a name: the full
 * rules (a QName: at most one colon, not first or last; non-ASCII
 * characters checked against XML 1.0's name characters).
 */
int dom__insitu_scan_name_slow(parser *ps, char **pp, char **colon,
			  const char *what)
{
	char *p = *pp;
	int start = 1;

	*colon = NULL;
	for (;;) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x80) {
			if (dom__is(c, start ? IS_NSTART : IS_NAME)) {
				p++;
				start = 0;
				continue;
			}
			if (c == ':' && !start && *colon == NULL) {
				*colon = p++;
				start = 1;
				continue;
			}
			break;
		} else {
			size_t n = dom__insitu_utf8((const unsigned char *)p);

			if (n == 0 || !dom__insitu_name_char(
					      dom__insitu_decode(
						      (const unsigned char *)p, n),
					      start))
				break;
			p += n;
			start = 0;
		}
	}
	if (*p == ':' && *colon != NULL)
		return MALFORMED(ps, p, "%s: a qualified name has one colon at "
				 "most", what);
	if (start) {
		if (p == ps->end)
			return MALFORMED(ps, p, "document ends inside %s", what);
		return MALFORMED(ps, p, "%s: not a qualified name", what);
	}
	if ((size_t)(p - *pp) > ps->lim->max_name)
		return MALFORMED(ps, p, "name of %zu bytes is over the limit of %zu",
				 (size_t)(p - *pp), ps->lim->max_name);
	*pp = p;
	return LAB_OK;
}
