/*
 * markup.c - the insitu parser's markup other than elements:
 * comments, CDATA sections, processing instructions and the XML
 * declaration, each read in place like text (line ends normalized, a NUL
 * written where it ends).
 * Not for: elements and text (variants/parser/insitu/parse.c).
 */
#include "variants/parser/insitu/state.h"

/*
 * The content of a comment, PI or CDATA section from *pp up to `term`
 * (whose first byte is term[0]; tlen bytes long), line ends normalized
 * in place; *pp goes past the terminator.  For comments, "--" is refused
 * wherever it is not the terminator.
 */
static int until(parser *ps, char **pp, const char *term, size_t tlen,
		 const char *where, char **s, size_t *len)
{
	char *r = *pp, *w = r;
	int in_comment = term[0] == '-';
	int rc;

	*s = r;
	for (;;) {
		char *q = r;
		unsigned char c;

		while (dom__is((unsigned char)*q, IS_ASCII) && *q != term[0])
			q++;
		if (w != r)
			memmove(w, r, (size_t)(q - r));
		w += q - r;
		r = q;
		c = (unsigned char)*r;
		if (c == (unsigned char)term[0] &&
		    strncmp(r, term, tlen) == 0) {
			break;
		} else if (in_comment && c == '-' && r[1] == '-') {
			return MALFORMED(ps, r + 2, "'--' is not allowed in a "
					 "comment");
		} else if (c == (unsigned char)term[0]) {
			*w++ = *r++;
			rc = LAB_OK;
		} else if (c == '\r') {
			*w++ = '\n';
			r += r[1] == '\n' ? 2 : 1;
			rc = LAB_OK;
		} else if (c >= 0x80) {
			rc = copy_utf8(ps, &r, &w, where);
		} else {
			return dom__insitu_bad_char(ps, r, where);
		}
		if (rc != LAB_OK)
			return rc;
	}
	*w = '\0';
	*len = (size_t)(w - *s);
	*pp = r + tlen;
	return LAB_OK;
}

/* After "<!--". */
int dom__insitu_comment(parser *ps, char **pp)
{
	char *s;
	size_t len;
	int rc = until(ps, pp, "-->", 3, "a comment", &s, &len);

	return rc != LAB_OK ? rc : add_chars(ps, DOM_COMMENT, NULL, s, len);
}

/* After "<![CDATA[". */
int dom__insitu_cdata(parser *ps, char **pp)
{
	char *s;
	size_t len;
	int rc = until(ps, pp, "]]>", 3, "a CDATA section", &s, &len);

	if (rc != LAB_OK)
		return rc;
	if (len > ps->lim->max_text)
		return MALFORMED(ps, *pp, "text of more than %zu bytes is over "
				 "the limit", ps->lim->max_text);
	return add_chars(ps, DOM_CDATA, NULL, s, len);
}

static int ieq3(const char *s, const char *lower)
{
	int i;

	for (i = 0; i < 3; i++)
		if ((s[i] | 0x20) != lower[i])
			return 0;
	return 1;
}

/* After "<?". */
int dom__insitu_pi(parser *ps, char **pp)
{
	char *p = *pp, *target = p, *colon, *s;
	const char *name;
	size_t len;
	int rc = scan_name(ps, &p, &colon, "a processing instruction target");

	if (rc != LAB_OK)
		return rc;
	if (colon != NULL)
		return MALFORMED(ps, p, "colons are not allowed in processing "
				 "instruction targets");
	if (p - target == 3 && ieq3(target, "xml"))
		return MALFORMED(ps, p, memcmp(target, "xml", 3) == 0
				 ? "the XML declaration is only allowed at the "
				   "start of the document"
				 : "processing instruction targets matching "
				   "'xml' are reserved");
	name = dom_intern(ps->doc, target, (size_t)(p - target));
	if (name == NULL)
		return nomem(ps);
	if (p[0] == '?' && p[1] == '>') {
		*p = '\0';
		*pp = p + 2;
		return add_chars(ps, DOM_PI, name, p, 0);
	}
	if (!dom__is((unsigned char)*p, IS_SPACE))
		return p == ps->end ? dom__insitu_bad_char(ps, p, "a processing instruction")
				    : MALFORMED(ps, p, "white space expected "
						"after a processing "
						"instruction target");
	p = skip_space(p);
	rc = until(ps, &p, "?>", 2, "a processing instruction", &s, &len);
	if (rc != LAB_OK)
		return rc;
	*pp = p;
	return add_chars(ps, DOM_PI, name, s, len);
}

/* ` name = "value"` at *pp, name optional; the value (unterminated). */
static int pseudo_attr(parser *ps, char **pp, const char *name, char **v,
		       size_t *vlen, int *found)
{
	char *p = skip_space(*pp), *q;
	size_t n = strlen(name);
	char quote;

	*found = 0;
	if (p == *pp || strncmp(p, name, n) != 0)
		return LAB_OK;
	p = skip_space(p + n);
	if (*p != '=')
		return MALFORMED(ps, p, "'=' expected in the XML declaration");
	p = skip_space(p + 1);
	quote = *p;
	if (quote != '"' && quote != '\'')
		return MALFORMED(ps, p, "quoted value expected in the XML "
				 "declaration");
	q = strchr(p + 1, quote);
	if (q == NULL)
		return MALFORMED(ps, ps->end, "document ends inside the XML "
				 "declaration");
	*v = p + 1;
	*vlen = (size_t)(q - p - 1);
	*pp = q + 1;
	*found = 1;
	return LAB_OK;
}

/* An encoding name: [A-Za-z] ([A-Za-z0-9._] | '-')*. */
static int enc_name(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

		if (!alpha && (i == 0 || (!(c >= '0' && c <= '9') &&
					  c != '.' && c != '_' && c != '-')))
			return 0;
	}
	return n > 0;
}

/* After "<?xml" and white space, at the very start. */
int dom__insitu_xml_decl(parser *ps, char **pp)
{
	dom_decl *d = &ps->doc->decl;
	char *p = *pp, *v;
	size_t n;
	int found, rc;

	rc = pseudo_attr(ps, &p, "version", &v, &n, &found);
	if (rc != LAB_OK)
		return rc;
	if (!found)
		return MALFORMED(ps, p, "the XML declaration has no version");
	/* "1." alone too, as libxml2 reads it. */
	if (n < 2 || strncmp(v, "1.", 2) != 0 ||
	    strspn(v + 2, "0123456789") != n - 2)
		return MALFORMED(ps, p, "XML version '%.*s' is not supported",
				 (int)n, v);
	d->version = dom_intern(ps->doc, v, n);
	if (d->version == NULL)
		return nomem(ps);
	rc = pseudo_attr(ps, &p, "encoding", &v, &n, &found);
	if (rc != LAB_OK)
		return rc;
	/* Which encodings are read was settled with the input. */
	if (found && !enc_name(v, n))
		return MALFORMED(ps, p, "invalid encoding name '%.*s'", (int)n, v);
	d->encoding = (uint8_t)(found || ps->in.transcoded);
	rc = pseudo_attr(ps, &p, "standalone", &v, &n, &found);
	if (rc != LAB_OK)
		return rc;
	if (found) {
		if (n == 3 && strncmp(v, "yes", 3) == 0)
			d->standalone = 1;
		else if (n == 2 && strncmp(v, "no", 2) == 0)
			d->standalone = 0;
		else
			return MALFORMED(ps, p, "standalone must be 'yes' or "
					 "'no'");
	}
	p = skip_space(p);
	if (p[0] != '?' || p[1] != '>')
		return MALFORMED(ps, p, "the XML declaration is not closed by "
				 "'?>'");
	*pp = p + 2;
	return LAB_OK;
}
