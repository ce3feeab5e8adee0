/*
 * canon.c - the insitu parser's answer to dom/parser.h's question:
 * are a fragment's bytes already the Exclusive XML Canonicalization
 * (without PrefixList) of what they parse to, with the element they go
 * into as the apex?  And the same about the content of each child of a
 * whole document's root element, where a start tag whose attributes are
 * only out of order still passes: the parser writes that content's
 * canonical form with them in order (variants/parser/insitu/parse.c).
 *
 * The parser clears ps->canon where the bytes show a form exc-c14n never
 * writes: a comment, PI or CDATA section, a CR, a '>' in text, a
 * reference other than the one exc-c14n writes for its character,
 * single quotes, any white space in a tag but one space before each
 * attribute, an empty-element tag.  A relative namespace URI is a "no"
 * too: C14N has no canonical form for it (util/nsuri.h).  This file holds what needs the tag
 * read: the declarations (exactly those wss/c14n.c would render) and the
 * order (declarations by prefix, then attributes by namespace URI and
 * local name).  The rules are wss/c14n.c's, restated in the parser's
 * terms; tests/test_canon.c holds the two to each other.  Which
 * declarations are rendered inside depends on the apex's bindings: each
 * one the answer took is noted (dom_canon_dep) for the digest to check.
 * Not for: deciding anything when unsure -- every doubt is a "no", which
 * costs only the walk the answer would have saved.
 */
#include "util/nsuri.h"
#include "variants/parser/insitu/state.h"

int dom__insitu_canon_ref(const char *r, int attr)
{
	/* The input is NUL-padded: six bytes from any position are there. */
	switch (r[1]) {
	case 'a':
		return memcmp(r, "&amp;", 5) == 0;
	case 'l':
		return memcmp(r, "&lt;", 4) == 0;
	case 'g':
		return !attr && memcmp(r, "&gt;", 4) == 0;
	case 'q':
		return attr && memcmp(r, "&quot;", 6) == 0;
	case '#':
		return memcmp(r, "&#xD;", 5) == 0 ||
		       (attr && (memcmp(r, "&#x9;", 5) == 0 ||
				 memcmp(r, "&#xA;", 5) == 0));
	default:
		return 0;
	}
}

/* A URI as C14N compares it: no namespace and "" are the same. */
static const char *c14n_uri(const char *uri)
{
	return uri == NULL || uri[0] == '\0' ? NULL : uri;
}

/*
 * The binding the apex renders for prefix (NULL: none), noting that the
 * answer takes it and prefix's binding in scope at the apex
 * (binds[0..canon_binds), which hold the apex's own).  The caller checks
 * both again (dom_canon_dep).
 */
static const char *apex_binding(parser *ps, const char *prefix)
{
	dom_canon *q = ps->ask;
	const char *in_scope = NULL, *rendered = NULL;
	size_t i;

	for (i = 0; i < q->ndeps; i++)
		if (q->deps[i].prefix == prefix)
			return q->deps[i].rendered;
	for (i = 0; i < q->nrendered; i++)
		if (q->rendered[i].prefix == prefix) {
			rendered = c14n_uri(q->rendered[i].uri);
			break;
		}
	if (q->ndeps == DOM_CANON_DEPS) {
		ps->canon_lost = 1;
		return rendered;
	}
	for (i = ps->canon_binds; i-- > 0;)
		if (ps->binds[i].prefix == prefix) {
			in_scope = c14n_uri(ps->binds[i].uri);
			break;
		}
	q->deps[q->ndeps].prefix = prefix;
	q->deps[q->ndeps].in_scope = in_scope;
	q->deps[q->ndeps].rendered = rendered;
	q->ndeps++;
	return rendered;
}

/*
 * The binding of prefix rendered above the element: the nearest of the
 * content's declarations made before it (binds up to nbind), else the
 * apex's, else none.  Those declarations are the rendered ones: the
 * answer is still yes, so each was exactly what exc-c14n renders.
 */
static const char *rendered_above(parser *ps, const char *prefix,
				  size_t nbind)
{
	size_t i;

	for (i = nbind; i-- > ps->canon_binds;)
		if (ps->binds[i].prefix == prefix)
			return c14n_uri(ps->binds[i].uri);
	return apex_binding(ps, prefix);
}

/* Whether exc-c14n renders a declaration of prefix, bound to ns in
 * scope, on the element (wss/c14n.c's to_render). */
static int renders(parser *ps, const char *prefix, const char *ns,
		   size_t nbind)
{
	if (prefix != NULL && prefix == ps->doc->xml_prefix)
		return 0;
	return !lab_nsuri_same(c14n_uri(ns),
			       rendered_above(ps, prefix, nbind));
}

/* Whether the element visibly utilizes prefix (NULL: the default). */
static int utilized(const parser *ps, const dom_name *name, size_t n,
		    const char *prefix)
{
	size_t i;

	if (name->prefix == prefix)
		return 1;
	for (i = 0; prefix != NULL && i < n; i++)
		if (!ps->attrs[i].decl && ps->attrs[i].prefix == prefix)
			return 1;
	return 0;
}

/* The memo slot of an element name. */
static canon_memo *slot(parser *ps, const dom_name *name)
{
	/* Name records sit close together in the arena: the multiply
	 * spreads them over the slots. */
	return &ps->canon_seen[((uint64_t)(uintptr_t)name *
				0x9E3779B97F4A7C15u) >> 59];
}

/* The memo's answer if the tag is the memo's (same names, no
 * declarations, same bindings: ps->scope changes with each binding made
 * or dropped), else 0. */
static int remembered(parser *ps, const dom_name *name, size_t n)
{
	const canon_memo *m = slot(ps, name);
	size_t i;

	if (m->name != name || m->n != n || m->scope != ps->scope)
		return 0;
	for (i = 0; i < n; i++)
		if (ps->attrs[i].decl || ps->attrs[i].name != m->attrs[i])
			return 0;
	if (!m->sorted)
		memcpy(ps->canon_perm, m->perm, n);
	return m->sorted ? 1 : 2;
}

static void remember(parser *ps, const dom_name *name, size_t n, int answer)
{
	canon_memo *m = slot(ps, name);
	size_t i;

	m->name = NULL;
	if (n > CANON_MEMO)
		return;
	for (i = 0; i < n; i++) {
		if (ps->attrs[i].decl)
			return;
		m->attrs[i] = ps->attrs[i].name;
	}
	m->name = name;
	m->n = n;
	m->scope = ps->scope;
	m->sorted = answer == 1;
	if (!m->sorted)
		memcpy(m->perm, ps->canon_perm, n);
}

/* The attributes' canonical order into ps->canon_perm: insertion sort,
 * as there are few. */
static void order(parser *ps, size_t n)
{
	uint8_t *perm = ps->canon_perm;
	size_t i, j;

	for (i = 0; i < n; i++) {
		uint8_t x = (uint8_t)i;

		for (j = i; j > 0 && dom_names_c14n_attr_cmp(
					     ps->attrs[perm[j - 1]].name,
					     ps->attrs[x].name) > 0;
		     j--)
			perm[j] = perm[j - 1];
		perm[j] = x;
	}
}

/* 1: canonical; 2: canonical once its attributes are in canon_perm's
 * order (only a tag without declarations, whose attributes then are all
 * of it after the name); 0: not. */
static int check_tag(parser *ps, const dom_name *name, size_t n,
		     size_t nbind)
{
	const dom_name *prev = NULL;
	const char *last = NULL;
	size_t i, j, decls = 0, need;
	int sorted = 1;

	for (i = 0; i < n; i++) {
		const rawattr *a = &ps->attrs[i];

		if (!a->decl) {
			if (prev != NULL &&
			    dom_names_c14n_attr_cmp(prev, a->name) >= 0)
				sorted = 0;
			prev = a->name;
			continue;
		}
		/* Declarations first, the default before the prefixes, the
		 * prefixes in strcmp order; none of xml (decl 2). */
		if (a->decl != 1 || prev != NULL)
			return 0;
		if (decls > 0 &&
		    dom_names_c14n_prefix_cmp(last, a->local) >= 0)
			return 0;
		if (lab_nsuri_relative(a->ns) ||
		    !utilized(ps, name, n, a->local) ||
		    lab_nsuri_same(rendered_above(ps, a->local, nbind),
				   c14n_uri(a->ns)))
			return 0;
		last = a->local;
		decls++;
	}
	if (!sorted && (decls > 0 || n > CANON_PERM))
		return 0;
	/* Each declaration is one exc-c14n renders; are they all of them? */
	need = (size_t)renders(ps, name->prefix, name->ns, nbind);
	for (i = 0; i < n; i++) {
		const rawattr *a = &ps->attrs[i];

		if (a->decl || a->prefix == NULL || a->prefix == name->prefix)
			continue;
		for (j = 0; j < i; j++)
			if (!ps->attrs[j].decl && ps->attrs[j].prefix == a->prefix)
				break;
		if (j == i)
			need += (size_t)renders(ps, a->prefix, a->name->ns, nbind);
	}
	if (need != decls)
		return 0;
	if (sorted)
		return 1;
	order(ps, n);
	return 2;
}

int dom__insitu_canon_uses(parser *ps, const char *const *prefix, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (renders(ps, prefix[i], dom__insitu_lookup(ps, prefix[i]),
			    ps->nbinds))
			return 0;
	return 1;
}

int dom__insitu_canon_tag(parser *ps, const dom_name *name, size_t n,
			  size_t nbind)
{
	int answer = remembered(ps, name, n);

	if (answer != 0)
		return answer;
	answer = check_tag(ps, name, n, nbind);
	if (answer != 0)
		remember(ps, name, n, answer);
	return answer;
}
