/*
 * input.c - the text the insitu parser works on: a copy of the
 * input in the document's arena (the tree's strings point into it, so it
 * lives as long as the document), NUL-terminated so scanning loops need
 * no bounds test, in UTF-8 whatever it came in (UTF-16 with a BOM,
 * ISO-8859-1 as declared).  And positions: the parser rewrites the copy
 * behind its cursor, so lines and columns are counted, only when an
 * error needs them, in bytes nobody changes (the caller's buffer, or our
 * own transcoding).
 * Not for: parsing the XML declaration beyond its encoding.
 */
#include <string.h>

#include "variants/parser/insitu/insitu.h"

enum { ENC_UTF8, ENC_LATIN1, ENC_UTF16LE, ENC_UTF16BE };

static int ieq(const char *s, size_t n, const char *want)
{
	size_t i;

	if (strlen(want) != n)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c != want[i])
			return 0;
	}
	return 1;
}

/*
 * The encoding an XML declaration at buf names, by a light scan (the
 * parser checks the declaration properly later).  ENC_UTF8 also when
 * there is no declaration or no encoding in it.
 */
static int declared(const char *buf, size_t len, const char **name,
		    size_t *nlen)
{
	const char *end, *p, *q;
	char quote;

	*name = NULL;
	if (len < 6 || memcmp(buf, "<?xml", 5) != 0 ||
	    !dom__is((unsigned char)buf[5], IS_SPACE))
		return ENC_UTF8;
	end = memmem(buf, len, "?>", 2);
	if (end == NULL)
		return ENC_UTF8;
	p = memmem(buf, (size_t)(end - buf), "encoding", 8);
	if (p == NULL)
		return ENC_UTF8;
	for (p += 8; p < end && (dom__is((unsigned char)*p, IS_SPACE) ||
				 *p == '='); p++)
		;
	if (p >= end || (*p != '"' && *p != '\''))
		return ENC_UTF8;
	quote = *p++;
	q = memchr(p, quote, (size_t)(end - p));
	if (q == NULL)
		return ENC_UTF8;
	*name = p;
	*nlen = (size_t)(q - p);
	if (ieq(p, *nlen, "ISO-8859-1") || ieq(p, *nlen, "LATIN1") ||
	    ieq(p, *nlen, "ISO_8859-1") || ieq(p, *nlen, "ISO-LATIN-1"))
		return ENC_LATIN1;
	if (ieq(p, *nlen, "UTF-8") || ieq(p, *nlen, "UTF8") ||
	    ieq(p, *nlen, "US-ASCII") || ieq(p, *nlen, "ASCII"))
		return ENC_UTF8;
	return -1;
}

static size_t put_utf8(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* UTF-16 or Latin-1 into out (room for 2 bytes per input byte); its
 * length, or (size_t)-1 for a lone surrogate or an odd byte count. */
static size_t transcode(const unsigned char *s, size_t len, int enc,
			char *out)
{
	size_t i = 0, o = 0;

	if (enc == ENC_LATIN1) {
		for (; i < len; i++)
			o += put_utf8(s[i], out + o);
		return o;
	}
	if (len % 2 != 0)
		return (size_t)-1;
	while (i < len) {
		uint32_t c = enc == ENC_UTF16LE ? (uint32_t)(s[i] | s[i + 1] << 8)
						: (uint32_t)(s[i] << 8 | s[i + 1]);

		i += 2;
		if (c >= 0xdc00 && c <= 0xdfff)
			return (size_t)-1;
		if (c >= 0xd800 && c <= 0xdbff) {
			uint32_t lo;

			if (i + 2 > len)
				return (size_t)-1;
			lo = enc == ENC_UTF16LE ? (uint32_t)(s[i] | s[i + 1] << 8)
						: (uint32_t)(s[i] << 8 | s[i + 1]);
			if (lo < 0xdc00 || lo > 0xdfff)
				return (size_t)-1;
			i += 2;
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		}
		o += put_utf8(c, out + o);
	}
	return o;
}

int dom__insitu_input(dom_doc *doc, const char *buf, size_t len,
		      dom_insitu_input *in, lab_err *err)
{
	const unsigned char *u = (const unsigned char *)buf;
	const char *name;
	size_t nlen = 0, n;
	int enc;

	memset(in, 0, sizeof *in);
	if (len >= 2 && u[0] == 0xff && u[1] == 0xfe)
		enc = ENC_UTF16LE;
	else if (len >= 2 && u[0] == 0xfe && u[1] == 0xff)
		enc = ENC_UTF16BE;
	else {
		if (len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) {
			buf += 3;
			len -= 3;
		}
		enc = declared(buf, len, &name, &nlen);
		if (enc < 0)
			return lab_fail_at(err, LAB_EMALFORMED, 1, 1,
					   "encoding '%.*s' is not supported: "
					   "the insitu parser reads UTF-8, "
					   "UTF-16 and ISO-8859-1",
					   (int)nlen, name);
	}
	if (enc == ENC_UTF8) {
		in->text = dom__arena_alloc(&doc->arena, len + DOM_INSITU_PAD);
		if (in->text == NULL)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
		memcpy(in->text, buf, len);
		memset(in->text + len, 0, DOM_INSITU_PAD);
		in->len = len;
		in->orig = buf;
		return LAB_OK;
	}
	if (enc != ENC_LATIN1) {
		u += 2;
		len -= 2;
	}
	if (len > (SIZE_MAX - 1) / 2)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	in->owned = lab_malloc(2 * len + 1);
	if (in->owned == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	in->owned_cap = 2 * len + 1;
	n = transcode(u, len, enc, in->owned);
	if (n == (size_t)-1)
		return lab_fail_at(err, LAB_EMALFORMED, 1, 1,
				   "invalid UTF-16 (a lone surrogate or an odd "
				   "number of bytes)");
	in->text = dom__arena_alloc(&doc->arena, n + DOM_INSITU_PAD);
	if (in->text == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	memcpy(in->text, in->owned, n);
	memset(in->text + n, 0, DOM_INSITU_PAD);
	in->len = n;
	in->orig = in->owned;
	in->transcoded = 1;
	return LAB_OK;
}

void dom__insitu_input_done(dom_insitu_input *in)
{
	/* It may be a transcoding of decrypted plaintext. */
	if (in->owned != NULL)
		explicit_bzero(in->owned, in->owned_cap);
	lab_free(in->owned);
	in->owned = NULL;
}

void dom__insitu_position(const dom_insitu_input *in, size_t off,
			  unsigned long *line, unsigned long *col)
{
	const unsigned char *s = (const unsigned char *)in->orig;
	unsigned long l = 1, c = 1;
	size_t i;

	if (off > in->len)
		off = in->len;
	for (i = 0; i < off; i++) {
		if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= in->len ||
						     s[i + 1] != '\n'))) {
			l++;
			c = 1;
		} else if ((s[i] & 0xc0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*col = c;
}
