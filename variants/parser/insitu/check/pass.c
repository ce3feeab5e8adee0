/*
 * pass.c - build=deferred's check pass: whether the content of a
 * deferred element is well-formed and within the limits, read without
 * making a node or interning a name (nor, at parse time, writing a
 * byte).
 *
 * It reads the forms a message's payload is made of: ASCII names,
 * attributes, text with references and UTF-8, nested elements.  On
 * those it checks what the building pass checks -- names, the end tag
 * matching, prefixes bound, no attribute twice by name or by
 * (namespace, local name), references to XML characters, UTF-8, no
 * "]]>" in text, no '<' in a value, depth, name, attribute and text
 * limits -- and answers yes.  On anything else it answers "not sure"
 * without a reason: an error, a number near a limit, a comment, CDATA
 * section or PI, a namespace declaration, a non-ASCII name, an end tag
 * with white space.  The caller then builds the content at once, with
 * the same code as build=direct, which reports any error with its own
 * message, line and column.  So a "yes" has to be sound and a "not sure"
 * costs only time: its answer never decides an error.
 *
 * With the yes come the two notes the records keep (dom/deferred.h):
 * whether an attribute inside is named like an ID, and whether the bytes
 * are, byte for byte, what dom_serialize writes for them (the building
 * pass's rules, so the answer is never "exact" where a build would not
 * serialize to the same bytes).  Where the caller asks, a third, the
 * CANON note: whether the bytes are their own exclusive canonical form
 * but for declarations, and which prefixes their element names use,
 * which the caller checks against the bindings rendered around them.
 * A digest filling a gap in a Body's canonical copy asks it with start
 * tags put in order into the copy (dom__parse_canon, tee.c); a
 * fragment's parse asks it of the bytes as they are (parse.c's defer,
 * canon.c's dom__insitu_canon_uses).
 * It is the whole parse of a payload no one reads, so it reads a
 * payload's repetition from memos (a name by its spelling and as the
 * name the last child of its parent's name had, a start tag's attribute
 * names as the last tag of its name had them), a repeated tag's values
 * from blocks of compares (names.c), and a repeated element whole, as
 * the fixed bytes of the last one read at its depth with plain values
 * and texts between them (records.c), the runs' ends read from a window
 * of bytes classified ahead where they can be; docs/parser.md has why
 * each is sound.  DOMLAB_CHECK=plain in the environment turns all of
 * that off (every name scanned, every tag read the general way), for
 * tests/check_plain.sh, which holds the two passes to the same answers.
 *
 * Map:
 *   dom__insitu_check   the loop: text, then a record, a start tag or an
 *                       end tag, until the deferred element's end tag
 *   start_tag           name (child_at), attributes, limits, the CANON
 *                       note, the shape kept, the element opened
 *   attributes          the shape's attributes, then the general loop
 *   attribute, eq_value one attribute the general way
 *   end_tag             the end tag against the open element's name
 *   text, value         plain runs inline; the _slow cases read
 *                       references, UTF-8, CR and "]]>"
 * Invariants: c->depth - c->top_depth indexes open[] and is below
 * CHECK_DEPTH; a yes (1) is returned only at the deferred element's end
 * tag with every check the building pass makes passed; any doubt is 0.
 * Not for: building (../parse.c), or deciding what the canonical form's
 * bindings are (../canon.c, dom/deferred.c).
 */
#include "variants/parser/insitu/check/check.h"

#include <pthread.h>
#include <stdlib.h>

/* Whether DOMLAB_CHECK=plain is set: a per-process cache, written once
 * under pthread_once and read-only after. */
static int plain_asked;
static pthread_once_t plain_once = PTHREAD_ONCE_INIT;

static void read_plain(void)
{
	const char *v = getenv("DOMLAB_CHECK");

	plain_asked = v != NULL && strcmp(v, "plain") == 0;
}

/* Whether this process's passes run plain.  pthread_once fails only
 * when misused; the pass would then run with its memos. */
static int plain(void)
{
	(void)pthread_once(&plain_once, read_plain);
	return plain_asked;
}

/* The reference at r: its length, 0 when it is not one; *n gets the
 * bytes it stands for. */
static inline size_t ref_at(const char *r, size_t *n)
{
	char out[4];
	const char *why;
	size_t used;

	*n = dom__insitu_ref(r, out, &used, &why);
	return *n != 0 ? used : 0;
}

/* Whether the reference at r is the one dom_serialize writes for its
 * character, in a value (attr) or in text. */
static int as_written(const char *r, int attr)
{
	return strncmp(r, "&amp;", 5) == 0 || strncmp(r, "&lt;", 4) == 0 ||
	       strncmp(r, attr ? "&quot;" : "&gt;", attr ? 6 : 4) == 0;
}

/* The notes the reference at r, in a value (attr) or in text, leaves:
 * each writer has its own spellings. */
static void note_ref(checker *c, const char *r, int attr)
{
	if (!as_written(r, attr))
		c->notes &= ~NOTE_EXACT;
	if (!dom__insitu_canon_ref(r, attr))
		c->notes &= ~NOTE_CANON;
}

/* A reference or a non-ASCII character at p, in a value (attr) or in
 * text: past it, or NULL; *shrink grows by the bytes a build saves. */
static const char *ref_or_utf8(checker *c, const char *p, int attr,
			       size_t *shrink)
{
	size_t n, used;

	if (*p == '&') {
		used = ref_at(p, &n);
		if (used == 0)
			return NULL;
		if (c->notes != 0)
			note_ref(c, p, attr);
		*shrink += used - n;
		return p + used;
	}
	used = dom__insitu_utf8((const unsigned char *)p);
	return used != 0 ? p + used : NULL;
}

/* text()'s general case. */
static const char *text_slow(checker *c, const char *p)
{
	const char *start = p;
	size_t shrink = 0;

	for (;;) {
		unsigned char b;

		p = dom__insitu_skip_text(p);
		while (dom__is((unsigned char)*p, IS_TEXT))
			p++;
		b = (unsigned char)*p;
		if (b == '<')
			break;
		if (b == '&' || b >= 0x80) {
			p = ref_or_utf8(c, p, 0, &shrink);
			if (p == NULL)
				return NULL;
		} else if (b == '\r') {
			c->notes = 0;
			p++;
		} else if (b == ']') {
			if (p[1] == ']' && p[2] == '>')
				return NULL;
			p++;
		} else {
			return NULL;
		}
	}
	/* What a build keeps is no longer than what is read. */
	if ((size_t)(p - start) - shrink > c->max_text)
		return NULL;
	/* Both writers write '>' in text as "&gt;". */
	if (c->notes != 0 && memchr(start, '>', (size_t)(p - start)) != NULL)
		c->notes = 0;
	return p;
}

/* Text from p to the '<' it ends at, or NULL.  Most is plain: bytes
 * that need no look, no '>', and not near the limit. */
static inline const char *text(checker *c, const char *p)
{
	const char *q =
		dom__insitu_skip_run(dom__insitu_skip_long(&c->ps->in, p), 1);

	if (*q == '<' && (size_t)(q - p) <= c->max_text)
		return q;
	return text_slow(c, p);
}

/* value()'s general case. */
const char *dom__check_value_slow(checker *c, const char *p)
{
	char quote = *p;
	const char *start = ++p;
	size_t shrink = 0;

	for (;;) {
		unsigned char b;

		p = skip_attr(p);
		while (dom__is((unsigned char)*p, IS_ATTR))
			p++;
		b = (unsigned char)*p;
		if (b == (unsigned char)quote)
			break;
		if (b == '"' || b == '\'') {
			p++;
		} else if (b == '\t' || b == '\n' || b == '\r') {
			c->notes = 0;
			p++;
		} else if (b == '&' || b >= 0x80) {
			p = ref_or_utf8(c, p, 1, &shrink);
			if (p == NULL)
				return NULL;
		} else {
			return NULL;
		}
	}
	if ((size_t)(p - start) - shrink > c->max_text)
		return NULL;
	return p + 1;
}

/* The '=' and quoted value after an attribute's name at p: past the
 * value, or NULL. */
static const char *eq_value(checker *c, const char *p)
{
	if (*p != '=') {
		c->notes = 0;
		p = skip_ws(p);
	}
	if (*p++ != '=')
		return NULL;
	if (*p != '"') {
		c->notes = 0;
		if (*p != '\'')
			p = skip_ws(p);
	}
	if (*p != '"' && *p != '\'')
		return NULL;
	return value(c, p);
}

/* Notes an attribute's name in t. */
static inline void seen_attr(tag_seen *t, uint64_t bit, int prefixed)
{
	t->bit_twice |= (t->name_bits & bit) != 0;
	t->name_bits |= bit;
	t->prefixed += prefixed != 0;
	t->n++;
}

/* One attribute at p (its name's start), noted in t: past its value, or
 * NULL. */
static const char *attribute(checker *c, const char *p, tag_seen *t)
{
	name *m = name_at(c, &p);

	/* A declaration binds: the building pass's. */
	if (m == NULL || (m->flags & (XMLNS_PREFIX | XMLNS_NAME)) != 0 ||
	    (m->prefix_len > 0 && dom__check_prefix_uri(c, m) == NULL))
		return NULL;
	if (t->n < SHAPE) {
		shape_attr *a = &t->for_shape[t->n];

		a->s = m->s;
		a->len = m->len;
		a->prefixed = m->prefix_len > 0;
		a->id = (m->flags & ID_NAME) != 0;
		a->bit = m->bit;
	}
	c->ids |= m->flags & ID_NAME;
	seen_attr(t, m->bit, m->prefix_len > 0);
	p = eq_value(c, p);
	if (p != NULL && (c->notes & NOTE_CANON) != 0)
		dom__check_note_attr(c, t, t->n - 1, m->s, m->len,
				     m->prefix_len, p);
	return p;
}

/* The attributes after the name (ending at p) of a start tag whose
 * element has the shape sh: past '>' or "/>", or NULL; into t. */
static const char *attributes(checker *c, const shape *sh, const char *p,
			      tag_seen *t, int *empty)
{
	size_t i;

	if (sh != NULL) {
		p = (c->notes & NOTE_CANON) != 0
			    ? dom__check_shape_read_canon(c, sh, p, t)
			    : dom__check_shape_read(c, sh, p, t);
		if (p == NULL)
			return NULL;
	}
	for (;;) {
		const char *before = p;

		if (p[0] == ' ' && (unsigned char)p[1] > ' ') {
			p++;
		} else {
			p = skip_ws(p);
			if (p != before)
				c->notes = 0;
		}
		if (*p == '>' || (p[0] == '/' && p[1] == '>')) {
			if (p != before)
				c->notes = 0;
			*empty = *p == '/';
			return p + (*empty ? 2 : 1);
		}
		if (p == before)
			return NULL;
		/* What the shape read is noted before the first other. */
		if (sh != NULL && t->name_bits == 0 && t->n > 0) {
			size_t k = t->n;

			memcpy(t->for_shape, sh->a, k * sizeof *t->for_shape);
			for (t->n = 0, i = 0; i < k; i++)
				seen_attr(t, sh->a[i].bit, sh->a[i].prefixed);
		}
		p = attribute(c, p, t);
		if (p == NULL)
			return NULL;
	}
}

/* A start tag, its name at p: past it, or NULL.  *empty: "/>". */
static const char *start_tag(checker *c, const char *p, int *empty)
{
	parser *ps = c->ps;
	const char *qname = p, *name_end;
	name *el = child_at(c, &p);
	const shape *sh;
	tag_seen t;
	pattern end;
	size_t qlen;

	if (el == NULL ||
	    (el->prefix_len > 0 &&
	     ((el->flags & XMLNS_PREFIX) != 0 ||
	      (el->uri == NULL && dom__check_prefix_uri(c, el) == NULL))))
		return NULL;
	name_end = p;
	qlen = el->len;
	/* An attribute's name may take el's slot. */
	if (qlen < 16)
		end = el->end_tag;
	sh = &c->shapes[el - c->names];
	if ((c->shapes_held >> (el - c->names) & 1) == 0 || sh->owner != el->s)
		sh = NULL;
	t.name_bits = 0;
	t.bit_twice = 0;
	t.n = t.prefixed = 0;
	t.unsorted = 0;
	p = attributes(c, sh, p, &t, empty);
	/* tag_limits' depth: the parent's, plus one.  A tag the shape read
	 * whole is unique; a read past it was noted in t. */
	if (p == NULL ||
	    ((t.bit_twice || t.prefixed > 1) &&
	     !dom__check_attrs_unique(c, name_end, t.n)) ||
	    c->depth + 1 > ps->lim->max_depth || t.n > ps->lim->max_attrs)
		return NULL;
	if ((c->notes & NOTE_CANON) != 0 &&
	    !dom__check_canon_tag(c, sh, qname, name_end, &t, *empty))
		c->notes &= ~NOTE_CANON;
	/* A shape that foretold a prefix of the tag, and no more, stays. */
	if (sh == NULL || t.name_bits != 0)
		dom__check_shape_remember(c, el, qname, qlen, &t);
	if (!*empty) {
		size_t d = ++c->depth - c->top_depth;

		/* Deeper than CHECK_DEPTH below top is left to the building
		 * pass. */
		if (d >= CHECK_DEPTH)
			return NULL;
		if (qlen < 16)
			c->open[d].end_tag = end;
		c->open[d].qname = qname;
		c->open[d].qlen = qlen;
		c->open[d].el = el;
		c->open_end = p;
	}
	return p;
}

/* At '<' + 1 of an end tag's name: past it, or NULL. */
static const char *end_tag(checker *c, const char *p)
{
	size_t d = c->depth - c->top_depth, n = c->open[d].qlen;

	if (n < 16 ? !matches(&c->open[d].end_tag, p)
		   : !same_text(c->open[d].qname, p, n) || p[n] != '>')
		return NULL;
	/* dom_serialize writes <a></a> as <a/>. */
	if (p - 2 == c->open_end)
		c->notes &= ~NOTE_EXACT;
	return p + c->open[d].qlen + 1;
}

int dom__insitu_check(parser *ps, const char *p, const char **end, int *ids,
		      int *exact, check_canon *canon)
{
	checker c;
	size_t i;

	c.ps = ps;
	c.top_depth = c.depth = ps->depth;
	c.ids = 0;
#if LAB_X86_VECTORS
	c.avx2 = lab_cpu_has(LAB_CPU_AVX2);
#else
	c.avx2 = 0;
#endif
	c.plain = plain();
	c.notes = ps->in.transcoded
			  ? 0
			  : NOTE_EXACT | (canon != NULL ? NOTE_CANON : 0);
	c.canon = canon;
	if (canon != NULL)
		canon->n = 0;
	c.max_text = ps->lim->max_text;
	c.open_end = NULL;
	c.top_child = NULL;
	for (i = 0; i < RECORDS; i++) {
		c.records[i].n = 0;
		c.records[i].last_used = 0;
	}
#if defined(__SSE2__)
	c.stops.b = p;
	c.stops.n = 0;
#endif
	c.record_clock = 0;
	c.names_closed = 0;
	memset(c.records_unpaid, 0, sizeof c.records_unpaid);
	c.start = p;
	c.record_bytes_read = 0;
	c.names_held = c.shapes_held = 0;
	for (;;) {
		int empty;

		if (*p != '<' && (p = text(&c, p)) == NULL)
			return 0;
		if (p[1] == '/') {
			size_t d = c.depth - c.top_depth;

			if (d == 0)
				break;
			p = end_tag(&c, p + 2);
			c.depth--;
			if (p != NULL)
				dom__check_record_take(&c, d, p);
		} else if (p[1] == '!' || p[1] == '?') {
			return 0;
		} else {
			const char *q = NULL;

			if (c.record_clock != 0)
				q = dom__check_record_read(&c, p);
			/* One call: start_tag() stays inline. */
			p = q != NULL ? q : start_tag(&c, p + 1, &empty);
		}
		if (p == NULL)
			return 0;
	}
	*end = p;
	*ids = c.ids;
	*exact = (c.notes & NOTE_EXACT) != 0;
	if (canon != NULL)
		canon->ok = (c.notes & NOTE_CANON) != 0;
	return 1;
}
