/*
 * tags.c - the attribute and declaration counts of every start tag,
 * taken before libxml2 reads the text.
 *
 * libxml2 2.9 finds a repeated attribute, and a repeated or shadowed
 * namespace declaration, by comparing each with all those read before it
 * in the tag, so a tag with n attributes costs n^2/2 compares before any
 * SAX callback could count them (150,000 attributes: seconds).  This
 * pass counts them first, in one linear pass, and refuses a tag over
 * --max-attrs or --max-ns with the words the callbacks use.
 *
 * It counts quoted values: every attribute libxml2 accepts has one, and
 * a value cannot hold '<', so the values of one start tag all lie
 * between its '<' and the next one.  Each '<' starts afresh, whatever
 * came before (a comment, CDATA, a malformed tag), so nothing can hide a
 * tag from this pass; the price is that a comment, CDATA section or PI
 * holding '<' and a name followed by more quoted strings than a limit,
 * with no '<' or '>' among them, is refused too.  Values whose name is
 * xmlns or xmlns:p count as declarations, the rest as attributes, as
 * libxml2's callbacks count them.
 * UTF-16 and UCS-4 text is counted on a copy with one byte per
 * character; an encoding declared whose bytes below 0x80 may not be
 * ASCII (EBCDIC, UTF-7, ISO-2022, ...) is refused, as the insitu parser
 * refuses it, since no byte count could be trusted there.
 * Not for: the insitu parser, which counts as it reads.
 */
#include "variants/parser/libxml2/xml2.h"

#include <string.h>
#include <strings.h>

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A byte that may start a name: ASCII letters, '_', ':', and any byte of
 * a multi-byte character (the scan needs no more than that). */
static int may_start_name(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || c >= 0x80;
}

static int is_xmlns(const char *tok, const char *eq)
{
	return eq - tok >= 5 && memcmp(tok, "xmlns", 5) == 0 &&
	       (tok + 5 == eq || tok[5] == ':' || tok[5] == '=' ||
		is_space((unsigned char)tok[5]));
}

typedef struct tag_count {
	const char *name, *name_end; /* the tag's name */
	size_t attrs, decls;
} tag_count;

/* The start tag whose name begins at p: its counts into *t; returns where
 * it ends (its '>', the next '<' or end). */
static const char *count_tag(const char *p, const char *end, tag_count *t)
{
	const char *tok = NULL;

	t->name = p;
	while (p < end && !is_space((unsigned char)*p) && *p != '>' &&
	       *p != '<' && *p != '/' && *p != '"' && *p != '\'')
		p++;
	t->name_end = p;
	t->attrs = t->decls = 0;
	for (; p < end && *p != '>' && *p != '<'; p++) {
		char q = *p;
		const char *close;

		if (q != '"' && q != '\'') {
			if (tok == NULL && !is_space((unsigned char)q))
				tok = p;
			continue;
		}
		for (close = p + 1; close < end && *close != q && *close != '<';
		     close++)
			;
		if (close == end || *close == '<')
			return close;
		if (tok != NULL && is_xmlns(tok, p))
			t->decls++;
		else
			t->attrs++;
		tok = NULL;
		p = close;
	}
	return p;
}

/* 1-based line and column of at in buf. */
static void where(const char *buf, const char *at, unsigned long *line,
		  unsigned long *col)
{
	const char *p, *bol = buf;

	*line = 1;
	for (p = buf; p < at; p++)
		if (*p == '\n') {
			(*line)++;
			bol = p + 1;
		}
	*col = (unsigned long)(at - bol) + 1;
}

int dom__xml2_count_tags(const char *buf, size_t len, const dom_limits *lim,
			 lab_err *err)
{
	const char *p = buf, *end = buf + len;
	unsigned long line, col;
	tag_count t;

	while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		const char *local;

		if (++p == end || !may_start_name((unsigned char)*p))
			continue;
		p = count_tag(p, end, &t);
		if (t.attrs <= lim->max_attrs && t.decls <= lim->max_ns)
			continue;
		where(buf, p, &line, &col);
		local = memchr(t.name, ':', (size_t)(t.name_end - t.name));
		local = local != NULL ? local + 1 : t.name;
		if (t.attrs > lim->max_attrs)
			return lab_fail_at(err, LAB_EMALFORMED, line, col,
					   "%zu attributes on <%.*s>, over the "
					   "limit of %zu",
					   t.attrs, (int)(t.name_end - local),
					   local, lim->max_attrs);
		return lab_fail_at(err, LAB_EMALFORMED, line, col,
				   "%zu namespace declarations in scope, over "
				   "the limit of %zu",
				   t.decls, lim->max_ns);
	}
	return LAB_OK;
}

/* Whether the declared encoding's bytes below 0x80 are always ASCII (and
 * ASCII's never stand inside a multi-byte character): UTF-8, ASCII, the
 * ISO-8859 and Windows single-byte sets, and the EUC, Shift_JIS, GB and
 * Big5 families, whose trail bytes avoid quotes, '<' and '>'. */
static int ascii_safe(const char *e, size_t n)
{
	static const char *const prefixes[] = {
		"UTF-8", "UTF8", "US-ASCII", "ASCII", "ISO-8859-", "ISO_8859-",
		"ISO8859-", "LATIN", "WINDOWS-125", "CP125", "KOI8-", "EUC-",
		"SHIFT_JIS", "SJIS", "GB2312", "GBK", "GB18030", "BIG5",
	};
	size_t i;

	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t k = strlen(prefixes[i]);

		if (n >= k && strncasecmp(e, prefixes[i], k) == 0)
			return 1;
	}
	return 0;
}

/* The encoding the XML declaration at the start of buf names, if any. */
static const char *declared(const char *buf, size_t len, size_t *n)
{
	const char *end, *e;
	char q;

	if (len < 6 || memcmp(buf, "<?xml", 5) != 0 ||
	    !is_space((unsigned char)buf[5]))
		return NULL;
	end = memchr(buf, '>', len);
	if (end == NULL)
		return NULL;
	e = memmem(buf, (size_t)(end - buf), "encoding", 8);
	if (e == NULL)
		return NULL;
	for (e += 8; e < end && (is_space((unsigned char)*e) || *e == '=');
	     e++)
		;
	if (e == end || (*e != '"' && *e != '\''))
		return NULL;
	q = *e++;
	*n = 0;
	while (e + *n < end && e[*n] != q)
		(*n)++;
	return e;
}

/*
 * The width (2: UTF-16, 4: UCS-4) and byte order of a text whose bytes
 * below 0x80 are not its characters, from its first four bytes as XML
 * 1.0 appendix F reads them; 0 when it is not such a text.
 */
static int wide(const unsigned char *b, size_t len, int *big)
{
	static const struct {
		unsigned char sig[4];
		size_t n;
		int width, big;
	} sigs[] = {
		{{0x00, 0x00, 0xFE, 0xFF}, 4, 4, 1}, {{0xFF, 0xFE, 0x00, 0x00}, 4, 4, 0},
		{{0x00, 0x00, 0x00, 0x3C}, 4, 4, 1}, {{0x3C, 0x00, 0x00, 0x00}, 4, 4, 0},
		{{0xFE, 0xFF}, 2, 2, 1},             {{0xFF, 0xFE}, 2, 2, 0},
		{{0x00, 0x3C}, 2, 2, 1},             {{0x3C, 0x00}, 2, 2, 0},
	};
	size_t i;

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (len >= sigs[i].n && memcmp(b, sigs[i].sig, sigs[i].n) == 0) {
			*big = sigs[i].big;
			return sigs[i].width;
		}
	return 0;
}

/* Wide text as one byte per character: the ASCII ones as they are but
 * NUL, every other one as 'x', which is all the tag count needs. */
static int skeleton(const unsigned char *b, size_t len, int width, int big,
		    lab_buf *out)
{
	size_t i;

	if (lab_buf_reserve_exact(out, len / (size_t)width) != LAB_OK)
		return LAB_ENOMEM;
	for (i = 0; i + (size_t)width <= len; i += (size_t)width) {
		uint32_t u = 0;
		int k;

		for (k = 0; k < width; k++)
			u = u << 8 | b[i + (size_t)(big ? k : width - 1 - k)];
		if (u != 0)
			out->data[out->len++] = u < 0x80 ? (char)u : 'x';
	}
	out->data[out->len] = '\0';
	return LAB_OK;
}

int dom__xml2_check_tags(const char *buf, size_t len, const dom_limits *lim,
			 lab_err *err)
{
	static const unsigned char ebcdic[4] = {0x4C, 0x6F, 0xA7, 0x94};
	const unsigned char *b = (const unsigned char *)buf;
	lab_buf s = LAB_BUF_INIT;
	const char *e;
	size_t n = 0;
	int big = 0, width = wide(b, len, &big);

	if (width != 0) {
		int rc = skeleton(b, len, width, big, &s);

		if (rc == LAB_OK)
			rc = dom__xml2_count_tags(s.data, s.len, lim, err);
		else
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		lab_buf_free(&s);
		return rc;
	}
	e = declared(buf, len, &n);
	if (e == NULL && len >= 4 && memcmp(b, ebcdic, 4) == 0) {
		e = "EBCDIC";
		n = 6;
	}
	if (e != NULL && !ascii_safe(e, n))
		return lab_fail(err, LAB_EMALFORMED,
				"encoding '%.*s' is not read here: domlab "
				"reads UTF-8, UTF-16, UCS-4 and encodings whose "
				"bytes below 0x80 are ASCII",
				(int)n, e);
	return dom__xml2_count_tags(buf, len, lim, err);
}
