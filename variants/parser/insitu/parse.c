/*
 * insitu.c - parser=insitu: domlab's own parser for the SOAP profile of
 * XML (no DTD, so only the five predefined entities and character
 * references), building our tree directly.
 *
 * It works on a mutable copy of the input in the document's arena
 * (variants/parser/insitu/input.c).  Text, CDATA, comments, PI data and attribute
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
 * with the libxml2 path's messages (variants/parser/libxml2/xml2.c).
 * Nesting is a loop over an explicit stack bounded by max_depth, never
 * recursion.
 *
 * This file is the hot path: the document, text, start and end tags and
 * attributes, kept together so that they inline into one loop.  The rest
 * is in this folder: markup.c, ns.c, scan.c, canon.c, tee.c, defer.c
 * (build=deferred's side) and check/ (state.h has the state they
 * share).
 * Not for: DTDs (refused), encodings beyond UTF-8, UTF-16, ISO-8859-1.
 */
#include <stddef.h>
#include <string.h>

#include "dom/attrs.h"
#include "dom/parser.h"
#include "variants/parser/insitu/state.h"

const char dom__parser_choice[] = "insitu";

/* The parser keeps no process-wide state. */
void dom__parser_init(void)
{
}

/* ---- characters ---- */

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

/* ---- character data ---- */

/* Text from *pp to the next '<', which *pp is left at. */
static int text(parser *ps, char **pp)
{
	char *r = *pp, *w = r, *start = r;
	int rc;

	for (;;) {
		char *q = r + (dom__insitu_skip_text(
				       dom__insitu_skip_long(&ps->in, r)) -
			       r);
		unsigned char c;

		/* Most runs end at markup: no table look for that. */
		while (*q != '<' && dom__is((unsigned char)q[0], IS_TEXT)) {
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
			ps->canon &= dom__insitu_canon_ref(r, 0);
			rc = reference(ps, &r, &w);
		} else if (c == '\r') {
			ps->canon = 0;
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
			return dom__insitu_bad_char(ps, r, "an element");
		}
		if (rc != LAB_OK)
			return rc;
	}
	if ((size_t)(w - start) > ps->lim->max_text)
		return MALFORMED(ps, r, "text of more than %zu bytes is over the "
				 "limit", ps->lim->max_text);
	/* exc-c14n writes '>' in text as "&gt;"; the run loops pass it by,
	 * so the unchanged input is asked (only while the answer matters). */
	if (ps->canon && memchr(ps->in.orig + (*pp - ps->in.text), '>',
				(size_t)(r - *pp)) != NULL)
		ps->canon = 0;
	*w = '\0';
	*pp = r;
	return add_chars(ps, DOM_TEXT, NULL, start, (size_t)(w - start));
}

/* ---- start tags ---- */

static int attr_value(parser *ps, char **pp, rawattr *a)
{
	char *r = *pp, *w, *start;
	char quote = *r;
	int rc;

	if (quote != '"' && quote != '\'')
		return r == ps->end ? dom__insitu_bad_char(ps, r, "a start tag")
				    : MALFORMED(ps, r, "attribute value must "
						"be quoted");
	start = w = ++r;
	for (;;) {
		char *q = r + (skip_attr(r) - r);
		unsigned char c;

		/* Most runs end at the quote: no table look for that. */
		while (*q != quote && dom__is((unsigned char)q[0], IS_ATTR)) {
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
			ps->canon = 0;
			*w++ = ' ';
			r++;
			rc = LAB_OK;
		} else if (c == '\r') {
			ps->canon = 0;
			*w++ = ' ';
			r += r[1] == '\n' ? 2 : 1;
			rc = LAB_OK;
		} else if (c == '&') {
			ps->canon &= dom__insitu_canon_ref(r, 1);
			rc = reference(ps, &r, &w);
		} else if (c == '<') {
			return MALFORMED(ps, r, "'<' is not allowed in an "
					 "attribute value");
		} else if (c >= 0x80) {
			rc = copy_utf8(ps, &r, &w, "an attribute value");
		} else {
			return dom__insitu_bad_char(ps, r, "an attribute value");
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

static int is_xmlns(const char *s, size_t n)
{
	return n == 5 && memcmp(s, "xmlns", 5) == 0;
}

/*
 * The interned prefix (NULL: none) and local name of s[0..n), whose
 * colon is at colon (NULL: none), remembered per spelling in *memo.  An
 * element named xmlns gets a memo of its own, never a slot of the table:
 * as an attribute that name is a declaration, and predicted() may offer
 * any slot (see predictable()).
 */
static inline int split_qname(parser *ps, const char *s, size_t n,
			      const char *colon, const char **prefix,
			      const char **local, qmemo **memo)
{
	qmemo *m = colon == NULL && is_xmlns(s, n)
			   ? &ps->xmlns_name
			   : &ps->qnames[(n * 7 + (unsigned char)s[0] * 31 +
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

/*
 * Whether the tag or attribute name at p is the one read after the
 * previous name last time, and so needs neither scanning nor splitting:
 * element after element and attribute after attribute, a document
 * repeats its sequences of names.  On a yes, that memo is in *memo and p
 * is left past the name.  The same bytes passed scan_name() when the memo
 * was made, so only where they end needs a look: at a byte that would not
 * continue the name.  No memo that may be predicted is a declaration's
 * name (see predictable()), so the name is an element's or an
 * attribute's.
 */
static inline int predicted(parser *ps, char **pp, qmemo **memo)
{
	qmemo *m = ps->last != NULL ? ps->last->next : NULL;
	unsigned char c;

	if (m == NULL || m->src == NULL || !same_text(m->src, *pp, m->len))
		return 0;
	c = (unsigned char)(*pp)[m->len];
	if (dom__is(c, IS_NAME) || c == ':' || c >= 0x80)
		return 0;
	*pp += m->len;
	*memo = m;
	ps->last = m;
	return 1;
}

/*
 * Whether m may be predicted.  No memo holds a name with the xmlns prefix
 * (those are not split), but an element may be named xmlns, which as an
 * attribute is a declaration: that name is never predicted, so it is
 * always scanned.  It has a memo of its own (split_qname()), so no slot
 * of the table, whatever it holds later, can be it.
 */
static inline int predictable(const parser *ps, const qmemo *m)
{
	return m != &ps->xmlns_name;
}

/* Records that m's name came after the previous one. */
static inline void note_order(parser *ps, qmemo *m)
{
	if (ps->last != NULL && predictable(ps, m))
		ps->last->next = m;
	ps->last = m;
}

/* One attribute at *pp (name start) into a. */
static int attribute(parser *ps, char **pp, rawattr *a)
{
	char *p = *pp, *name = p, *colon;
	int rc;

	/* Every other field is set below for the kind of attribute that
	 * reads it. */
	a->decl = 0;
	if (predicted(ps, &p, &a->memo)) {
		a->prefix = a->memo->prefix;
		a->local = a->memo->local;
		a->name = a->memo->scope[1] == ps->scope ? a->memo->name[1]
							 : NULL;
		goto value;
	}
	rc = scan_name(ps, &p, &colon, "an attribute name");
	if (rc != LAB_OK)
		return rc;
	a->prefix = NULL;
	a->local = NULL;
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
		note_order(ps, a->memo);
		/* A guess start_tag() keeps if the tag binds nothing. */
		a->name = a->memo->scope[1] == ps->scope ? a->memo->name[1]
							 : NULL;
	}
	if (a->decl && colon != NULL && a->local == NULL)
		return nomem(ps);
value:
	/* Most documents write name="value", with no space to skip. */
	if (*p != '=') {
		ps->canon = 0;
		p = skip_space(p);
	}
	if (*p != '=')
		return p == ps->end ? dom__insitu_bad_char(ps, p, "a start tag")
				    : MALFORMED(ps, p, "'=' expected after "
						"attribute name '%.*s'",
						(int)(p - name), name);
	p++;
	if (*p != '"') {
		ps->canon = 0;
		if (*p != '\'')
			p = skip_space(p);
	}
	rc = attr_value(ps, &p, a);
	if (rc != LAB_OK)
		return rc;
	a->end = p;
	*pp = p;
	return LAB_OK;
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
		ns = dom__insitu_lookup(ps, prefix);
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

/*
 * The element: a small one's attribute array shares its bump (the array
 * is exactly `nattrs` long, as dom__reserve_attrs would make it, and
 * grows the same way later); a larger one's is dom__reserve_attrs's.
 */
static dom_element *new_element(parser *ps, const dom_name *name,
				size_t nattrs)
{
	size_t extra = nattrs * sizeof(dom_attr);
	int shared = dom__ud_slot_size + sizeof(dom_element) + extra <=
		     DOM_ARENA_SMALL;
	dom_element *el = (dom_element *)(void *)new_child(ps, sizeof *el,
		DOM_ELEMENT, 0, shared ? extra : 0);

	if (el == NULL)
		return NULL;
	el->name = name;
	el->nsdecls = NULL;
	el->attrs.count = 0;
	el->attrs.index = NULL;
	if (shared) {
		el->attrs.cap = (uint32_t)nattrs;
		el->attrs.items = nattrs > 0 ? (dom_attr *)(void *)(el + 1)
					     : NULL;
		return el;
	}
	el->attrs.cap = 0;
	el->attrs.items = NULL;
	return dom__reserve_attrs(el, (uint32_t)nattrs) == LAB_OK ? el : NULL;
}

static int build(parser *ps, const dom_name *name, size_t n, size_t ndecls,
		 size_t nattrs, int empty, const char *qname, size_t qlen)
{
	dom_element *el;
	size_t i, d = 0, k = 0;

	el = new_element(ps, name, nattrs);
	if (el == NULL ||
	    (ndecls > 0 && dom__reserve_nsdecls(el, (uint32_t)ndecls) != LAB_OK))
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
		int rc = dom__attrs_update(ps->doc, &el->attrs, 0, ps->err);

		if (rc != LAB_OK)
			return rc;
	}
	if (!empty) {
		frame *f = &ps->stack[++ps->depth];

		f->node = &el->base;
		f->last = NULL;
		f->qname = qname;
		f->qlen = qlen;
	}
	return LAB_OK;
}

/* A start tag as start_tag's steps read it. */
typedef struct tag {
	char *qname, *colon, *name_end; /* colon: unset when hit */
	const char *prefix, *local;      /* the name, once split */
	qmemo *memo;   /* the name's */
	qmemo *prev;   /* the memo before the name, when not predicted */
	qmemo *first;  /* the first attribute's, NULL: none */
	size_t n;      /* attributes read, declarations among them */
	size_t longest;    /* the longest attribute value */
	size_t xmlns_seen; /* declarations */
	size_t guessed;    /* attributes whose name was guessed */
	size_t nbind;      /* the bindings in scope before the tag */
	uint32_t scope;    /* ps->scope before the tag */
	int empty, clash, hit;
	int canon;         /* ps->canon before the tag */
} tag;

/* The element name at *pp: the one predicted, or scanned. */
static inline int tag_name(parser *ps, char **pp, tag *t)
{
	if (predicted(ps, pp, &t->memo)) {
		/* Taken now: an attribute's name may take over the memo. */
		t->prefix = t->memo->prefix;
		t->local = t->memo->local;
		t->hit = 1;
		return LAB_OK;
	}
	/* The name is split after the attributes (its errors come after
	 * theirs), so it is fitted into the sequence then. */
	t->prev = ps->last;
	ps->last = NULL;
	return scan_name(ps, pp, &t->colon, "an element name");
}

/* The attributes from *pp (after the name) to '>' or "/>", past which
 * *pp is left. */
static inline int tag_attrs(parser *ps, char **pp, tag *t)
{
	char *p = *pp;
	uint64_t locals = 0;

	for (;;) {
		char *before = p;
		rawattr *a;
		int rc;

		/* One space before the next attribute is the common case;
		 * any byte above ' ' is not white space. */
		if (p[0] == ' ' && (unsigned char)p[1] > ' ') {
			p++;
		} else {
			p = skip_space(p);
			ps->canon &= p == before;
		}
		if (*p == '>') {
			ps->canon &= p == before;
			*pp = p + 1;
			t->empty = 0;
			return LAB_OK;
		}
		if (p[0] == '/' && p[1] == '>') {
			ps->canon = 0;
			*pp = p + 2;
			t->empty = 1;
			return LAB_OK;
		}
		if (p == before || *p == '\0')
			return p == ps->end ? dom__insitu_bad_char(ps, p, "a start tag")
					    : MALFORMED(ps, p, "'>', '/>' or white "
							"space and an attribute "
							"expected");
		if (grow((void **)&ps->attrs, &ps->capattrs, t->n + 1,
			 sizeof *ps->attrs) != 0)
			return nomem(ps);
		a = &ps->attrs[t->n];
		rc = attribute(ps, &p, a);
		if (rc != LAB_OK)
			return rc;
		if (!a->decl && a->vlen > t->longest)
			t->longest = a->vlen;
		t->xmlns_seen += a->decl != 0;
		t->guessed += a->decl == 0 && a->name != NULL;
		if (a->decl == 0 && t->first == NULL)
			t->first = a->memo;
		t->clash |= may_clash(ps, a, &locals);
		t->n++;
	}
}

/* No attribute twice: by prefix and local name (byns 0, before the
 * declarations are bound), or by namespace and local name (byns 1). */
static inline int tag_unique(parser *ps, const tag *t, int byns)
{
	long dup = t->clash ? dom__insitu_duplicate(ps, t->n, byns) : -1;
	const rawattr *a;

	if (dup == -2)
		return nomem(ps);
	if (dup < 0)
		return LAB_OK;
	a = &ps->attrs[dup];
	if (byns)
		return MALFORMED(ps, a->end, "attribute '%s' in namespace "
				 "'%s' appears twice", a->local, a->name->ns);
	return MALFORMED(ps, a->end, "%s '%s%s%s' appears twice",
			 a->decl ? "namespace declaration" : "attribute",
			 a->decl ? "xmlns" : a->prefix ? a->prefix : "",
			 a->decl ? (a->local ? ":" : "")
				 : a->prefix ? ":" : "",
			 a->local ? a->local : "");
}

/* The element's name record, into *name: the name split and fitted into
 * the sequence of names unless it was predicted, then resolved. */
static inline int tag_resolve(parser *ps, tag *t, const dom_name **name)
{
	int undeclared = 0;

	if (!t->hit) {
		int rc;

		if (t->colon != NULL &&
		    is_xmlns(t->qname, (size_t)(t->colon - t->qname)))
			return MALFORMED(ps, t->name_end, "element names cannot "
					 "use the xmlns prefix");
		rc = split_qname(ps, t->qname, (size_t)(t->name_end - t->qname),
				 t->colon, &t->prefix, &t->local, &t->memo);
		if (rc != LAB_OK)
			return rc;
		if (t->prev != NULL && predictable(ps, t->memo))
			t->prev->next = t->memo;
		if (t->first != NULL)
			t->memo->next = t->first;
		else
			ps->last = t->memo;
	}
	*name = resolve(ps, t->memo, t->prefix, t->local, 0, &undeclared);
	if (*name != NULL)
		return LAB_OK;
	return undeclared ? MALFORMED(ps, t->name_end, "namespace prefix '%s' "
				      "of <%.*s> is not declared", t->prefix,
				      (int)(t->name_end - t->qname), t->qname)
			  : nomem(ps);
}

/* The attributes' name records: unless every guess holds, those that
 * may not are resolved. */
static inline int tag_resolve_attrs(parser *ps, const tag *t)
{
	size_t i;
	int undeclared = 0;

	for (i = 0; (t->guessed + t->xmlns_seen < t->n ||
		     ps->scope != t->scope) && i < t->n;
	     i++) {
		rawattr *a = &ps->attrs[i];

		if (a->decl || (a->name != NULL && ps->scope == t->scope))
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
	return LAB_OK;
}

/* The limits, in the order and words of the libxml2 path. */
static inline int tag_limits(parser *ps, const tag *t, size_t nattrs,
			     const char *p)
{
	if (ps->depth + 1 > ps->lim->max_depth)
		return MALFORMED(ps, p, "elements nested deeper than the limit "
				 "of %zu", ps->lim->max_depth);
	if (nattrs > ps->lim->max_attrs)
		return MALFORMED(ps, p, "%zu attributes on <%s>, over the limit "
				 "of %zu", nattrs, t->local, ps->lim->max_attrs);
	if (t->longest > ps->lim->max_text)
		return MALFORMED(ps, p, "attribute value of %zu bytes is over "
				 "the limit of %zu", t->longest, ps->lim->max_text);
	return LAB_OK;
}

/* dom/parser.h's question about the tag read up to p: the fragment
 * wrapper's (at depth 0) is not the fragment's, a child of a whole
 * document's root element starts the document's own question (tee.c),
 * and any other tag is asked while the answer is still yes. */
static inline void tag_canonical(parser *ps, const tag *t,
				 const dom_name *name, const char *p)
{
	if (ps->depth == 0) {
		ps->canon = t->canon;
		ps->canon_binds = ps->nbinds;
	} else if (ps->own != NULL && ps->depth == 1) {
		dom__insitu_own_start(ps, name, t->n, t->empty, p);
	} else if (ps->canon) {
		int answer = dom__insitu_canon_tag(ps, name, t->n, t->nbind);

		/* Only the parser's own question has somewhere to write the
		 * attributes in order. */
		if (answer == 2)
			answer = ps->ask == ps->own &&
				 dom__insitu_own_reorder(ps, t->name_end, t->n);
		ps->canon = answer != 0;
	}
}

/* At the name after '<': the tag read, checked, resolved, asked about
 * and built, in that order. */
static int start_tag(parser *ps, char **pp)
{
	char *p = *pp;
	const dom_name *name = NULL;
	size_t ndecls = 0, nxmlns = 0;
	int rc;
	tag t;

	t.qname = p;
	t.prefix = NULL;
	t.prev = t.first = NULL;
	t.n = t.longest = t.xmlns_seen = t.guessed = 0;
	t.nbind = ps->nbinds;
	t.scope = ps->scope;
	t.clash = t.hit = 0;
	t.canon = ps->canon;
	rc = tag_name(ps, &p, &t);
	if (rc != LAB_OK)
		return rc;
	t.name_end = p;
	rc = tag_attrs(ps, &p, &t);
	if (rc == LAB_OK)
		rc = tag_unique(ps, &t, 0);
	if (rc == LAB_OK && t.xmlns_seen > 0)
		rc = dom__insitu_declare(ps, t.n, &ndecls, &nxmlns);
	if (rc == LAB_OK)
		rc = tag_resolve(ps, &t, &name);
	if (rc == LAB_OK)
		rc = tag_resolve_attrs(ps, &t);
	if (rc == LAB_OK)
		rc = tag_unique(ps, &t, 1);
	if (rc == LAB_OK)
		rc = tag_limits(ps, &t, t.n - nxmlns, p);
	if (rc != LAB_OK)
		return rc;
	tag_canonical(ps, &t, name, p);
	rc = build(ps, name, t.n, ndecls, t.n - nxmlns, t.empty, t.qname,
		   (size_t)(t.name_end - t.qname));
	if (rc != LAB_OK)
		return rc;
	if (t.empty) {
		unbind(ps, t.nbind);
	} else {
		ps->stack[ps->depth].nbind = t.nbind;
		if (ps->defer && ps->depth == ps->defer_depth) {
			rc = dom__insitu_defer(ps, &p, t.nbind);
			if (rc != LAB_OK)
				return rc;
		}
	}
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
			if (ps->depth == 2 && ps->own != NULL &&
		    ps->ask == ps->own)
				dom__insitu_own_end(ps, name - 2);
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
		return p == ps->end ? dom__insitu_bad_char(ps, p, "an end tag")
				    : MALFORMED(ps, p, "'>' expected to close "
						"</%.*s>", (int)f->qlen,
						f->qname);
	/* Only white space before '>' (or a mismatch, refused above) takes
	 * this path: not exc-c14n's. */
	ps->canon = 0;
	if (ps->depth == 2 && ps->own != NULL &&
		    ps->ask == ps->own)
		dom__insitu_own_end(ps, name - 2);
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
		ps->canon = 0;
		*pp = p + 1;
		return dom__insitu_pi(ps, pp);
	}
	if (*p == '!') {
		/* Comments go, CDATA becomes text: neither is as written. */
		ps->canon = 0;
		if (strncmp(p, "!--", 3) == 0) {
			*pp = p + 3;
			return dom__insitu_comment(ps, pp);
		}
		if (strncmp(p, "![CDATA[", 8) == 0) {
			if (ps->depth == 0)
				return MALFORMED(ps, p - 1, "CDATA is not allowed "
						 "outside the root element");
			*pp = p + 8;
			return dom__insitu_cdata(ps, pp);
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

/*
 * From p to the end of the text, or for a deferred element's content
 * (ps->one) to its end tag: the one loop that reads content, so that
 * text() and markup() inline into it alone.
 */
int dom__insitu_content(parser *ps, char *p)
{
	int rc;

	for (;;) {
		if (ps->depth == 0) {
			if (ps->one)
				return LAB_OK;
			p = skip_space(p);
			if (p == ps->end) {
				if (!ps->rooted)
					return MALFORMED(ps, p, "document has "
							 "no element");
				return LAB_OK;
			}
			if (*p != '<')
				return *p == '\0' || (unsigned char)*p >= 0x80
					       ? dom__insitu_bad_char(ps, p, "the document")
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

static int document(parser *ps)
{
	char *p = ps->in.text;

	if (ps->stack[0].node->type == DOM_DOCUMENT &&
	    strncmp(p, "<?xml", 5) == 0 &&
	    dom__is((unsigned char)p[5], IS_SPACE)) {
		int rc;

		p += 5;
		rc = dom__insitu_xml_decl(ps, &p);
		if (rc != LAB_OK)
			return rc;
	}
	return dom__insitu_content(ps, p);
}

int dom__parse_tree(dom_doc *doc, dom_node *parent, const char *buf,
		    size_t len, const dom_limits *lim, dom_canon *canon,
		    int defer, lab_err *err)
{
	parser ps;
	int rc;

	memset(&ps, 0, sizeof ps);
	ps.doc = doc;
	ps.lim = lim;
	ps.err = err;
	rc = dom__insitu_input(doc, buf, len, &ps.in, err);
	/* A fragment is decrypted plaintext (dom_replace_parsed): its copy
	 * is wiped with the document. */
	if (rc == LAB_OK && parent->type != DOM_DOCUMENT &&
	    dom__wipe_later(doc, ps.in.text, ps.in.len) != LAB_OK)
		rc = nomem(&ps);
	if (rc != LAB_OK)
		goto out;
	/* The feed's notes are offsets in the text: the caller's bytes
	 * only where the text is their copy. */
	if (doc->feed != NULL && ps.in.transcoded)
		dom__feed_fail(doc->feed, 0, len);
	else if (doc->feed != NULL)
		dom__feed_start(doc->feed, (size_t)(ps.in.orig - buf));
	ps.end = ps.in.text + ps.in.len;
	ps.stack = lab_malloc((lim->max_depth + 1) * sizeof *ps.stack);
	if (ps.stack == NULL) {
		rc = nomem(&ps);
		goto out;
	}
	ps.stack[0].node = parent;
	ps.stack[0].last = parent->first != NULL ? parent->first->prev : NULL;
	ps.stack[0].nbind = 0;
	/* Answered in UTF-8 only: other input is not the bytes the answer
	 * is about.  A whole document's question is asked of each child of
	 * its root element (tee.c); a wrapped fragment's, of all of it. */
	if (parent->type == DOM_DOCUMENT) {
		ps.own = ps.in.transcoded ? NULL : canon;
		ps.defer_depth = DEFER_DEPTH;
	} else {
		ps.ask = canon;
		ps.canon = canon != NULL && !ps.in.transcoded;
		ps.defer_depth = FRAGMENT_DEFER_DEPTH;
	}
	ps.defer = defer;
	if (defer && dom__deferred_start(doc, ps.in.text, ps.in.len, lim) !=
			     LAB_OK) {
		rc = nomem(&ps);
		goto out;
	}
	rc = document(&ps);
	if (canon != NULL && parent->type != DOM_DOCUMENT)
		canon->ok = rc == LAB_OK && ps.canon && !ps.canon_lost;
out:
	dom__insitu_input_done(&ps.in);
	lab_buf_free(&ps.own_out);
	lab_free(ps.own_gaps);
	lab_free(ps.stack);
	lab_free(ps.binds);
	lab_free(ps.attrs);
	lab_free(ps.seen);
	return rc;
}
