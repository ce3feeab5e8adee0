/*
 * insitu.c - parser=insitu: domlab's own parser for the SOAP profile of
 * XML (no DTD, so only the five predefined entities and character
 * references), building our tree directly.
 *
 * It works on a mutable copy of the input in the document's arena
 * (dom/insitu_input.c).  Text, CDATA, comments, PI data and attribute
 * values become slices of that copy: references are decoded, line ends
 * and attribute white space normalized in place (the result is never
 * longer than its source, so a write cursor trails the read cursor), and
 * a NUL is written where each slice ends -- over the '<', quote or
 * terminator that ended it, which has been read by then.  Names are
 * interned (they are shared and compared by pointer); the tag names in
 * the copy are never written, so end tags compare against them.
 *
 * Well-formedness is checked, not assumed (tags, attributes, namespaces,
 * characters, references, the one root), and the dom_limits are enforced
 * with the libxml2 path's messages (dom/xml2.c).  Nesting is a loop over
 * an explicit stack bounded by max_depth, never recursion.
 * Not for: DTDs (refused), encodings beyond UTF-8, UTF-16, ISO-8859-1.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dom/insitu.h"
#include "dom/parser.h"

const char dom__parser_choice[] = "insitu";

#define XMLNS_NS "http://www.w3.org/2000/xmlns/"

typedef struct frame {
	dom_node *node;
	const char *qname; /* the start tag's name, in the text */
	size_t qlen;
	size_t nbind;      /* bindings in scope outside this element */
} frame;

typedef struct binding {
	const char *prefix; /* NULL: the default namespace */
	const char *uri;    /* doc->empty: undeclared */
} binding;

/*
 * A qualified name as it appears in the text (tag names are never
 * rewritten, so the first occurrence can stand for later ones), and the
 * name records it resolved to as an element name [0] and an attribute
 * name [1], good while the bindings are those of `scope`.
 */
typedef struct qmemo {
	const char *src;
	size_t len;
	const char *prefix, *local;
	const dom_name *name[2];
	uint32_t scope[2];
} qmemo;

typedef struct rawattr {
	const char *prefix; /* interned, NULL for none; unused by decls */
	const char *local;  /* interned; for a decl the prefix it binds */
	const char *ns;     /* a decl's URI */
	const dom_name *name; /* resolved; unused by decls */
	qmemo *memo;        /* where its spelling was split; unused by decls */
	char *value;
	size_t vlen;
	const char *end;    /* just past it, where errors about it point */
	int decl;           /* xmlns or xmlns:p */
} rawattr;

typedef struct parser {
	dom_doc *doc;
	const dom_limits *lim;
	lab_err *err;
	dom_insitu_input in;
	char *end;          /* the text's terminating NUL */
	frame *stack;       /* stack[0] is the parent given; depth open */
	size_t depth;
	binding *binds;
	size_t nbinds, capbinds;
	/* Changes with every binding made or dropped, so a name resolved
	 * under one value resolves the same while it holds.  32 bits do:
	 * each change takes a declaration, and max_input bounds those. */
	uint32_t scope;
	rawattr *attrs;
	size_t capattrs;
	uint32_t *seen;     /* duplicate check: attribute index + 1, 0 free */
	size_t capseen;
	int rooted;         /* the root element has been read */
	const char *memo[256]; /* recently interned names, by a cheap hash */
	qmemo qnames[256];     /* the same for qualified names in tags */
} parser;

static int fail_at(parser *ps, const char *at, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(parser *ps, const char *at, int code, const char *fmt, ...)
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

#define MALFORMED(ps, at, ...) fail_at((ps), (at), LAB_EMALFORMED, __VA_ARGS__)

static int nomem(parser *ps)
{
	return lab_fail(ps->err, LAB_ENOMEM, "out of memory");
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = dom_realloc(*p, n * size);
	if (q == NULL)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* ---- characters ---- */

static char *skip_space(char *p)
{
	while (dom__is((unsigned char)*p, IS_SPACE))
		p++;
	return p;
}

/* What is wrong with the byte at r, which no scanning loop accepted. */
static int bad_char(parser *ps, const char *r, const char *where)
{
	unsigned char c = (unsigned char)*r;

	if (r == ps->end)
		return MALFORMED(ps, r, "document ends inside %s", where);
	if (c >= 0x80)
		return MALFORMED(ps, r, "invalid UTF-8, or a code point that is "
				 "not an XML character, in %s", where);
	return MALFORMED(ps, r, "character 0x%02x is not allowed in XML", c);
}

/* A non-ASCII character at *r, moved to *w; 0 or the error. */
static int copy_utf8(parser *ps, char **r, char **w, const char *where)
{
	size_t n = dom__insitu_utf8((const unsigned char *)*r);

	if (n == 0)
		return bad_char(ps, *r, where);
	if (*w != *r)
		memmove(*w, *r, n);
	*r += n;
	*w += n;
	return LAB_OK;
}

static int reference(parser *ps, char **r, char **w)
{
	const char *why = NULL;
	size_t used, n = dom__insitu_ref(*r, *w, &used, &why);

	if (n == 0)
		return MALFORMED(ps, *r + used, "%s: '%.*s'", why, (int)used, *r);
	*r += used;
	*w += n;
	return LAB_OK;
}

/*
 * The name at *pp when it is not plain ASCII, or not a name: the full
 * rules (a QName: at most one colon, not first or last; non-ASCII
 * characters checked against XML 1.0's name characters).
 */
static int scan_name_slow(parser *ps, char **pp, char **colon,
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

/*
 * The QName at *pp; its end goes to *pp and the colon, if any, to
 * *colon.  Inline for the common case, ASCII names: a table loop per
 * part; anything else is scan_name_slow's.
 */
static inline int scan_name(parser *ps, char **pp, char **colon,
			    const char *what)
{
	char *p = *pp;

	*colon = NULL;
	if (!dom__is((unsigned char)*p, IS_NSTART))
		return scan_name_slow(ps, pp, colon, what);
	while (dom__is((unsigned char)*++p, IS_NAME))
		;
	if (*p == ':' && dom__is((unsigned char)p[1], IS_NSTART)) {
		*colon = p++;
		while (dom__is((unsigned char)*++p, IS_NAME))
			;
	}
	if (*p == ':' || (unsigned char)*p >= 0x80 ||
	    (size_t)(p - *pp) > ps->lim->max_name)
		return scan_name_slow(ps, pp, colon, what);
	*pp = p;
	return LAB_OK;
}

/* Whether a[0..n) == b[0..n), byte by byte: stops at the first
 * difference, so b may run into the text's terminating NUL. */
static inline int same(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/*
 * The same for two spans of the text, a word at a time: the padding
 * after the text (DOM_INSITU_PAD) makes reading up to 8 bytes past
 * either span safe.  The last word is masked to the n bytes that count.
 */
static inline int same_text(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	for (; n >= 8; a += 8, b += 8, n -= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return 0;
	}
	if (n == 0)
		return 1;
	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ((x ^ y) << (64 - 8 * n)) == 0;
#else
	return ((x ^ y) >> (64 - 8 * n)) == 0;
#endif
}

/* ---- character data ---- */

static int add_chars(parser *ps, dom_type type, const char *target,
		     const char *s, size_t len)
{
	dom_chars *c = dom__new_chars_ref(ps->doc, type, s, len);

	if (c == NULL)
		return nomem(ps);
	if (type == DOM_PI)
		c->target = target;
	dom__link_last(ps->stack[ps->depth].node, &c->base);
	return LAB_OK;
}

/* Text from *pp to the next '<', which *pp is left at. */
static int text(parser *ps, char **pp)
{
	char *r = *pp, *w = r, *start = r;
	int rc;

	for (;;) {
		char *q = r + (dom__insitu_skip_text(r) - r);
		unsigned char c;

		while (dom__is((unsigned char)q[0], IS_TEXT)) {
			if (!dom__is((unsigned char)q[1], IS_TEXT)) {
				q += 1;
				break;
			}
			if (!dom__is((unsigned char)q[2], IS_TEXT)) {
				q += 2;
				break;
			}
			if (!dom__is((unsigned char)q[3], IS_TEXT)) {
				q += 3;
				break;
			}
			q += 4;
		}
		if (w != r)
			memmove(w, r, (size_t)(q - r));
		w += q - r;
		r = q;
		c = (unsigned char)*r;
		if (c == '<')
			break;
		if (c == '&') {
			rc = reference(ps, &r, &w);
		} else if (c == '\r') {
			*w++ = '\n';
			r += r[1] == '\n' ? 2 : 1;
			rc = LAB_OK;
		} else if (c == ']') {
			if (r[1] == ']' && r[2] == '>')
				return MALFORMED(ps, r + 3, "']]>' is not allowed "
						 "in text");
			*w++ = *r++;
			rc = LAB_OK;
		} else if (c >= 0x80) {
			rc = copy_utf8(ps, &r, &w, "text");
		} else {
			return bad_char(ps, r, "an element");
		}
		if (rc != LAB_OK)
			return rc;
	}
	if ((size_t)(w - start) > ps->lim->max_text)
		return MALFORMED(ps, r, "text of more than %zu bytes is over the "
				 "limit", ps->lim->max_text);
	*w = '\0';
	*pp = r;
	return add_chars(ps, DOM_TEXT, NULL, start, (size_t)(w - start));
}

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
			return bad_char(ps, r, where);
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
static int comment(parser *ps, char **pp)
{
	char *s;
	size_t len;
	int rc = until(ps, pp, "-->", 3, "a comment", &s, &len);

	return rc != LAB_OK ? rc : add_chars(ps, DOM_COMMENT, NULL, s, len);
}

/* After "<![CDATA[". */
static int cdata(parser *ps, char **pp)
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
static int pi(parser *ps, char **pp)
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
		return p == ps->end ? bad_char(ps, p, "a processing instruction")
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

/* ---- the XML declaration ---- */

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
static int xml_decl(parser *ps, char **pp)
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

/* ---- start tags ---- */

static int attr_value(parser *ps, char **pp, rawattr *a)
{
	char *r = *pp, *w, *start;
	char quote = *r;
	int rc;

	if (quote != '"' && quote != '\'')
		return r == ps->end ? bad_char(ps, r, "a start tag")
				    : MALFORMED(ps, r, "attribute value must "
						"be quoted");
	start = w = ++r;
	for (;;) {
		char *q = r;
		unsigned char c;

		while (dom__is((unsigned char)q[0], IS_ATTR)) {
			if (!dom__is((unsigned char)q[1], IS_ATTR)) {
				q += 1;
				break;
			}
			if (!dom__is((unsigned char)q[2], IS_ATTR)) {
				q += 2;
				break;
			}
			q += 3;
		}
		if (w != r)
			memmove(w, r, (size_t)(q - r));
		w += q - r;
		r = q;
		c = (unsigned char)*r;
		if (c == (unsigned char)quote)
			break;
		if (c == '"' || c == '\'') {
			*w++ = *r++;
			rc = LAB_OK;
		} else if (c == '\t' || c == '\n') {
			*w++ = ' ';
			r++;
			rc = LAB_OK;
		} else if (c == '\r') {
			*w++ = ' ';
			r += r[1] == '\n' ? 2 : 1;
			rc = LAB_OK;
		} else if (c == '&') {
			rc = reference(ps, &r, &w);
		} else if (c == '<') {
			return MALFORMED(ps, r, "'<' is not allowed in an "
					 "attribute value");
		} else if (c >= 0x80) {
			rc = copy_utf8(ps, &r, &w, "an attribute value");
		} else {
			return bad_char(ps, r, "an attribute value");
		}
		if (rc != LAB_OK)
			return rc;
	}
	*w = '\0';
	a->value = start;
	a->vlen = (size_t)(w - start);
	*pp = r + 1;
	return LAB_OK;
}

/*
 * Interns s[0..n).  A document repeats a few names: a memo keyed by
 * length and end bytes answers most with one compare instead of a full
 * hash and probe of the document's table.
 */
static const char *intern(parser *ps, const char *s, size_t n)
{
	const char **m;

	if (n == 0)
		return ps->doc->empty;
	m = &ps->memo[(n * 7 + (unsigned char)s[0] * 31 +
		       (unsigned char)s[n - 1]) & 255];
	if (*m != NULL && dom_names_len(*m) == n && same(*m, s, n))
		return *m;
	*m = dom_intern(ps->doc, s, n);
	return *m;
}

/* split_qname's miss: interns both parts and remembers them in m. */
static int remember_qname(parser *ps, qmemo *m, const char *s, size_t n,
			  const char *colon)
{
	const char *l = colon != NULL ? colon + 1 : s;

	m->src = NULL;
	m->name[0] = m->name[1] = NULL;
	m->prefix = colon != NULL ? dom_intern(ps->doc, s, (size_t)(colon - s))
				  : NULL;
	m->local = dom_intern(ps->doc, l, (size_t)(s + n - l));
	if (m->local == NULL || (colon != NULL && m->prefix == NULL))
		return nomem(ps);
	m->src = s;
	m->len = n;
	return LAB_OK;
}

/* The interned prefix (NULL: none) and local name of s[0..n), whose
 * colon is at colon (NULL: none), remembered per spelling in *memo. */
static inline int split_qname(parser *ps, const char *s, size_t n,
			      const char *colon, const char **prefix,
			      const char **local, qmemo **memo)
{
	qmemo *m = &ps->qnames[(n * 7 + (unsigned char)s[0] * 31 +
				(unsigned char)s[n - 1]) & 255];

	if (m->len != n || m->src == NULL || !same_text(m->src, s, n)) {
		int rc = remember_qname(ps, m, s, n, colon);

		if (rc != LAB_OK)
			return rc;
	}
	*prefix = m->prefix;
	*local = m->local;
	*memo = m;
	return LAB_OK;
}

static int is_xmlns(const char *s, size_t n)
{
	return n == 5 && memcmp(s, "xmlns", 5) == 0;
}

/* One attribute at *pp (name start) into a. */
static int attribute(parser *ps, char **pp, rawattr *a)
{
	char *p = *pp, *name = p, *colon;
	int rc = scan_name(ps, &p, &colon, "an attribute name");

	if (rc != LAB_OK)
		return rc;
	/* Every other field is set below for the kind of attribute that
	 * reads it. */
	a->prefix = NULL;
	a->local = NULL;
	a->decl = 0;
	if (colon != NULL && is_xmlns(name, (size_t)(colon - name))) {
		a->decl = 1;
		a->local = intern(ps, colon + 1, (size_t)(p - colon - 1));
	} else if (colon == NULL && is_xmlns(name, (size_t)(p - name))) {
		a->decl = 1;
	} else {
		rc = split_qname(ps, name, (size_t)(p - name), colon, &a->prefix,
				 &a->local, &a->memo);
		if (rc != LAB_OK)
			return rc;
		/* A guess start_tag() keeps if the tag binds nothing. */
		a->name = a->memo->scope[1] == ps->scope ? a->memo->name[1]
							 : NULL;
	}
	if (a->decl && colon != NULL && a->local == NULL)
		return nomem(ps);
	p = skip_space(p);
	if (*p != '=')
		return p == ps->end ? bad_char(ps, p, "a start tag")
				    : MALFORMED(ps, p, "'=' expected after "
						"attribute name '%.*s'",
						(int)(p - name), name);
	p = skip_space(p + 1);
	rc = attr_value(ps, &p, a);
	if (rc != LAB_OK)
		return rc;
	a->end = p;
	*pp = p;
	return LAB_OK;
}

static uint32_t hash2(const void *a, const void *b)
{
	uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL ^
		     (uint64_t)(uintptr_t)b * 0xc2b2ae3d27d4eb4fULL;

	return (uint32_t)(h >> 32);
}

/*
 * The first attribute whose key (k1, k2) an earlier one has, or -1.
 * byns: the key is (namespace, local) and declarations are left out;
 * else it is (prefix, local), declarations keyed apart by `ps`.
 */
static long duplicate(parser *ps, size_t n, int byns)
{
	size_t i, j, mask;

#define K1(a) (byns ? (const void *)(a)->name->ns \
		    : (a)->decl ? (const void *)ps : (const void *)(a)->prefix)
#define K2(a) ((const void *)(a)->local)
#define SKIP(a) (byns && (a)->decl)
	if (n <= 8) {
		for (i = 1; i < n; i++) {
			if (SKIP(&ps->attrs[i]))
				continue;
			for (j = 0; j < i; j++)
				if (!SKIP(&ps->attrs[j]) &&
				    K1(&ps->attrs[j]) == K1(&ps->attrs[i]) &&
				    K2(&ps->attrs[j]) == K2(&ps->attrs[i]))
					return (long)i;
		}
		return -1;
	}
	if (grow((void **)&ps->seen, &ps->capseen, 4 * n, sizeof *ps->seen) != 0)
		return -2;
	mask = 1;
	while (mask < 2 * n)
		mask <<= 1;
	memset(ps->seen, 0, mask * sizeof *ps->seen);
	mask--;
	for (i = 0; i < n; i++) {
		const rawattr *a = &ps->attrs[i];

		if (SKIP(a))
			continue;
		for (j = hash2(K1(a), K2(a)) & mask; ps->seen[j] != 0;
		     j = (j + 1) & mask) {
			const rawattr *b = &ps->attrs[ps->seen[j] - 1];

			if (K1(b) == K1(a) && K2(b) == K2(a))
				return (long)i;
		}
		ps->seen[j] = (uint32_t)i + 1;
	}
	return -1;
#undef K1
#undef K2
#undef SKIP
}

/*
 * Whether attribute a could duplicate one read before it on the tag,
 * either way: both kinds need the same local name (declarations: the
 * same declared prefix), so a 64-bit set of the local names seen rules
 * both out, and duplicate() runs only when this finds a repeat.
 */
static inline int may_clash(const parser *ps, const rawattr *a,
			    uint64_t *seen)
{
	uint64_t bit = (uint64_t)1 << (hash2(a->local, a->decl ? ps : NULL) >>
				       26);
	int repeat = (*seen & bit) != 0;

	*seen |= bit;
	return repeat;
}

static const char *lookup(const parser *ps, const char *prefix)
{
	size_t i = ps->nbinds;

	if (prefix == ps->doc->xml_prefix)
		return ps->doc->xml_ns;
	while (i-- > 0)
		if (ps->binds[i].prefix == prefix)
			return ps->binds[i].uri;
	return NULL;
}

/* The declarations among n attributes: checked, bound, counted (*ndecls
 * kept, *nxmlns all the xmlns attributes). */
static int declare(parser *ps, size_t n, size_t *ndecls, size_t *nxmlns)
{
	dom_doc *doc = ps->doc;
	size_t i;

	*ndecls = 0;
	*nxmlns = 0;
	for (i = 0; i < n; i++) {
		rawattr *a = &ps->attrs[i];
		const char *uri;
		int is_xml = a->vlen == sizeof DOM_XML_NS - 1 &&
			     memcmp(a->value, DOM_XML_NS, a->vlen) == 0;

		if (!a->decl)
			continue;
		(*nxmlns)++;
		if (a->local == doc->xml_prefix) {
			if (!is_xml)
				return MALFORMED(ps, a->end, "the xml prefix "
						 "cannot be bound to another "
						 "namespace");
			/* Always in scope: libxml2 records no declaration. */
			a->decl = 2;
			continue;
		}
		if (a->local != NULL && strcmp(a->local, "xmlns") == 0)
			return MALFORMED(ps, a->end, "the xmlns prefix cannot be "
					 "declared");
		if (is_xml || (a->vlen == sizeof XMLNS_NS - 1 &&
			       memcmp(a->value, XMLNS_NS, a->vlen) == 0))
			return MALFORMED(ps, a->end, "the namespace '%s' cannot "
					 "be declared", a->value);
		if (!dom__insitu_uri_chars(a->value, a->vlen))
			return MALFORMED(ps, a->end, "namespace name '%s' is not "
					 "a URI", a->value);
		if (a->local != NULL && a->vlen == 0)
			return MALFORMED(ps, a->end, "prefix '%s' cannot be bound "
					 "to an empty namespace", a->local);
		uri = intern(ps, a->value, a->vlen);
		if (uri == NULL ||
		    grow((void **)&ps->binds, &ps->capbinds, ps->nbinds + 1,
			 sizeof *ps->binds) != 0)
			return nomem(ps);
		a->ns = uri;
		ps->binds[ps->nbinds].prefix = a->local;
		ps->binds[ps->nbinds].uri = uri;
		ps->nbinds++;
		ps->scope++;
		(*ndecls)++;
	}
	return LAB_OK;
}

/* Drops the bindings made since there were `to`. */
static inline void unbind(parser *ps, size_t to)
{
	if (ps->nbinds != to) {
		ps->nbinds = to;
		ps->scope++;
	}
}

/*
 * The record of prefix:local (split into m) as an element name (attr 0)
 * or an attribute name (attr 1) under the bindings in scope.  NULL when
 * the prefix is not declared (*undeclared set) or memory runs out.  The
 * memo answers while the bindings have not changed, which in most
 * documents is from the root's declarations on.
 */
static inline const dom_name *resolve(parser *ps, qmemo *m,
				      const char *prefix, const char *local,
				      int attr, int *undeclared)
{
	const dom_name *name;
	const char *ns = NULL;

	if (m->local == local && m->prefix == prefix &&
	    m->name[attr] != NULL && m->scope[attr] == ps->scope)
		return m->name[attr];
	if (prefix != NULL || !attr) {
		ns = lookup(ps, prefix);
		if (prefix != NULL && (ns == NULL || ns == ps->doc->empty)) {
			*undeclared = 1;
			return NULL;
		}
		if (ns == ps->doc->empty)
			ns = NULL;
	}
	name = dom__name(ps->doc, ns, prefix, local);
	if (m->local == local && m->prefix == prefix) {
		m->name[attr] = name;
		m->scope[attr] = ps->scope;
	}
	return name;
}

static int build(parser *ps, const dom_name *name, size_t n, size_t ndecls,
		 int empty, const char *qname, size_t qlen)
{
	dom_element *el = dom__new_element(ps->doc, name);
	size_t i, d = 0, k = 0;

	if (el == NULL ||
	    (ndecls > 0 && dom__reserve_nsdecls(el, (uint32_t)ndecls) != LAB_OK) ||
	    (n > ndecls && dom__reserve_attrs(el, (uint32_t)(n - ndecls)) != LAB_OK))
		return nomem(ps);
	for (i = 0; i < n; i++) {
		const rawattr *a = &ps->attrs[i];

		if (a->decl == 1) {
			el->nsdecls[d].prefix = a->local;
			el->nsdecls[d].uri = a->ns;
			d++;
		} else if (a->decl == 0) {
			dom_attr *at = &el->attrs.items[k++];

			at->name = a->name;
			at->value = a->value;
			at->len = a->vlen;
		}
	}
	el->base.len = (uint32_t)d;
	el->attrs.count = (uint32_t)k;
	if (k > 0) {
		int rc = dom__attrs_built(el, ps->err);

		if (rc != LAB_OK)
			return rc;
	}
	dom__link_last(ps->stack[ps->depth].node, &el->base);
	if (!empty) {
		frame *f = &ps->stack[++ps->depth];

		f->node = &el->base;
		f->qname = qname;
		f->qlen = qlen;
	}
	return LAB_OK;
}

/* At the name after '<'. */
static int start_tag(parser *ps, char **pp)
{
	char *p = *pp, *qname = p, *colon, *name_end;
	const char *prefix = NULL, *local;
	const dom_name *name;
	qmemo *memo;
	rawattr *a;
	size_t n = 0, ndecls, nxmlns, nattrs, i, nbind = ps->nbinds;
	size_t longest = 0, xmlns_seen = 0, guessed = 0;
	uint32_t scope = ps->scope;
	uint64_t locals = 0;
	int empty, rc, clash = 0, undeclared = 0;
	long dup;

	rc = scan_name(ps, &p, &colon, "an element name");
	if (rc != LAB_OK)
		return rc;
	name_end = p;
	for (;;) {
		char *before = p;

		p = skip_space(p);
		if (*p == '>') {
			p++;
			empty = 0;
			break;
		}
		if (p[0] == '/' && p[1] == '>') {
			p += 2;
			empty = 1;
			break;
		}
		if (p == before || *p == '\0')
			return p == ps->end ? bad_char(ps, p, "a start tag")
					    : MALFORMED(ps, p, "'>', '/>' or white "
							"space and an attribute "
							"expected");
		if (grow((void **)&ps->attrs, &ps->capattrs, n + 1,
			 sizeof *ps->attrs) != 0)
			return nomem(ps);
		a = &ps->attrs[n];
		rc = attribute(ps, &p, a);
		if (rc != LAB_OK)
			return rc;
		if (!a->decl && a->vlen > longest)
			longest = a->vlen;
		xmlns_seen += a->decl != 0;
		guessed += a->decl == 0 && a->name != NULL;
		clash |= may_clash(ps, a, &locals);
		n++;
	}
	dup = clash ? duplicate(ps, n, 0) : -1;
	if (dup == -2)
		return nomem(ps);
	if (dup >= 0) {
		a = &ps->attrs[dup];
		return MALFORMED(ps, a->end, "%s '%s%s%s' appears twice",
				 a->decl ? "namespace declaration" : "attribute",
				 a->decl ? "xmlns" : a->prefix ? a->prefix : "",
				 a->decl ? (a->local ? ":" : "")
					 : a->prefix ? ":" : "",
				 a->local ? a->local : "");
	}
	ndecls = nxmlns = 0;
	rc = xmlns_seen > 0 ? declare(ps, n, &ndecls, &nxmlns) : LAB_OK;
	if (rc != LAB_OK)
		return rc;
	if (colon != NULL && is_xmlns(qname, (size_t)(colon - qname)))
		return MALFORMED(ps, name_end, "element names cannot use the "
				 "xmlns prefix");
	rc = split_qname(ps, qname, (size_t)(name_end - qname), colon, &prefix,
			 &local, &memo);
	if (rc != LAB_OK)
		return rc;
	name = resolve(ps, memo, prefix, local, 0, &undeclared);
	if (name == NULL)
		return undeclared ? MALFORMED(ps, name_end, "namespace prefix "
					      "'%s' of <%.*s> is not declared",
					      prefix, (int)(name_end - qname),
					      qname)
				  : nomem(ps);
	/* Unless every guess holds, resolve those that may not. */
	for (i = 0; i < n && (guessed + xmlns_seen < n || ps->scope != scope);
	     i++) {
		a = &ps->attrs[i];
		if (a->decl || (a->name != NULL && ps->scope == scope))
			continue;
		a->name = resolve(ps, a->memo, a->prefix, a->local, 1,
				  &undeclared);
		if (a->name == NULL)
			return undeclared ? MALFORMED(ps, a->end, "namespace "
						      "prefix '%s' of attribute "
						      "'%s:%s' is not declared",
						      a->prefix, a->prefix,
						      a->local)
					  : nomem(ps);
	}
	dup = clash ? duplicate(ps, n, 1) : -1;
	if (dup == -2)
		return nomem(ps);
	if (dup >= 0)
		return MALFORMED(ps, ps->attrs[dup].end, "attribute '%s' in "
				 "namespace '%s' appears twice",
				 ps->attrs[dup].local, ps->attrs[dup].name->ns);
	/* The limits, in the order and words of the libxml2 path. */
	nattrs = n - nxmlns;
	if (ps->depth + 1 > ps->lim->max_depth)
		return MALFORMED(ps, p, "elements nested deeper than the limit "
				 "of %zu", ps->lim->max_depth);
	if (nattrs > ps->lim->max_attrs)
		return MALFORMED(ps, p, "%zu attributes on <%s>, over the limit "
				 "of %zu", nattrs, local, ps->lim->max_attrs);
	if (longest > ps->lim->max_text)
		return MALFORMED(ps, p, "attribute value of %zu bytes is over "
				 "the limit of %zu", longest, ps->lim->max_text);
	rc = build(ps, name, n, ndecls, empty, qname,
		   (size_t)(name_end - qname));
	if (rc != LAB_OK)
		return rc;
	if (empty)
		unbind(ps, nbind);
	else
		ps->stack[ps->depth].nbind = nbind;
	*pp = p;
	return LAB_OK;
}

/* At the name after "</". */
static int end_tag(parser *ps, char **pp)
{
	char *p = *pp, *name = p, *colon;
	const frame *f = &ps->stack[ps->depth];
	int rc;

	/* The open element's name, spelled the same and not continued. */
	if (ps->depth > 0 && same_text(f->qname, p, f->qlen)) {
		unsigned char c = (unsigned char)p[f->qlen];

		if (c == '>') {
			unbind(ps, f->nbind);
			ps->depth--;
			*pp = p + f->qlen + 1;
			return LAB_OK;
		}
	}
	rc = scan_name(ps, &p, &colon, "an end tag");
	if (rc != LAB_OK)
		return rc;
	if (ps->depth == 0) {
		char *gt = strchr(p, '>');

		return MALFORMED(ps, gt != NULL ? gt + 1 : p, "end tag </%.*s> "
				 "with no open element", (int)(p - name), name);
	}
	if ((size_t)(p - name) != f->qlen || memcmp(name, f->qname, f->qlen) != 0) {
		char *gt = strchr(p, '>');

		return MALFORMED(ps, gt != NULL ? gt + 1 : p, "end tag </%.*s> "
				 "does not match <%.*s>", (int)(p - name), name,
				 (int)f->qlen, f->qname);
	}
	p = skip_space(p);
	if (*p != '>')
		return p == ps->end ? bad_char(ps, p, "an end tag")
				    : MALFORMED(ps, p, "'>' expected to close "
						"</%.*s>", (int)f->qlen,
						f->qname);
	unbind(ps, f->nbind);
	ps->depth--;
	*pp = p + 1;
	return LAB_OK;
}

/* ---- the document ---- */

/* After '<' (p). */
static int markup(parser *ps, char **pp)
{
	char *p = *pp;

	if (*p == '/') {
		*pp = p + 1;
		return end_tag(ps, pp);
	}
	if (*p == '?') {
		*pp = p + 1;
		return pi(ps, pp);
	}
	if (*p == '!') {
		if (strncmp(p, "!--", 3) == 0) {
			*pp = p + 3;
			return comment(ps, pp);
		}
		if (strncmp(p, "![CDATA[", 8) == 0) {
			if (ps->depth == 0)
				return MALFORMED(ps, p - 1, "CDATA is not allowed "
						 "outside the root element");
			*pp = p + 8;
			return cdata(ps, pp);
		}
		if (strncmp(p, "!DOCTYPE", 8) == 0)
			return MALFORMED(ps, p - 1, "DTDs are not allowed in SOAP "
					 "messages: the insitu parser refuses "
					 "<!DOCTYPE>");
		return MALFORMED(ps, p, "'<!' starts neither a comment nor a "
				 "CDATA section in element content");
	}
	if (ps->depth == 0 && ps->rooted)
		return MALFORMED(ps, p - 1, "a second root element: a document "
				 "has one");
	ps->rooted = 1;
	return start_tag(ps, pp);
}

static int document(parser *ps)
{
	char *p = ps->in.text;
	int rc;

	if (ps->stack[0].node->type == DOM_DOCUMENT &&
	    strncmp(p, "<?xml", 5) == 0 &&
	    dom__is((unsigned char)p[5], IS_SPACE)) {
		p += 5;
		rc = xml_decl(ps, &p);
		if (rc != LAB_OK)
			return rc;
	}
	for (;;) {
		if (ps->depth == 0) {
			p = skip_space(p);
			if (p == ps->end) {
				if (!ps->rooted)
					return MALFORMED(ps, p, "document has "
							 "no element");
				return LAB_OK;
			}
			if (*p != '<')
				return *p == '\0' || (unsigned char)*p >= 0x80
					       ? bad_char(ps, p, "the document")
					       : MALFORMED(ps, p, "text is not "
							   "allowed outside "
							   "the root element");
		} else if (*p != '<') {
			rc = text(ps, &p);
			if (rc != LAB_OK)
				return rc;
		}
		p++;
		rc = markup(ps, &p);
		if (rc != LAB_OK)
			return rc;
	}
}

int dom__parse_tree(dom_doc *doc, dom_node *parent, const char *buf,
		    size_t len, const dom_limits *lim, lab_err *err)
{
	parser ps;
	int rc;

	memset(&ps, 0, sizeof ps);
	ps.doc = doc;
	ps.lim = lim;
	ps.err = err;
	rc = dom__insitu_input(doc, buf, len, &ps.in, err);
	if (rc != LAB_OK)
		goto out;
	ps.end = ps.in.text + ps.in.len;
	ps.stack = dom_malloc((lim->max_depth + 1) * sizeof *ps.stack);
	if (ps.stack == NULL) {
		rc = nomem(&ps);
		goto out;
	}
	ps.stack[0].node = parent;
	ps.stack[0].nbind = 0;
	rc = document(&ps);
out:
	dom__insitu_input_done(&ps.in);
	dom_free(ps.stack);
	dom_free(ps.binds);
	dom_free(ps.attrs);
	dom_free(ps.seen);
	return rc;
}
