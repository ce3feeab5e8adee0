/*
 * deferred.c - the records of build=deferred (dom/deferred.h): which
 * elements' content is still only bytes, found by the element's address,
 * and the build on first need.
 *
 * A build is not a change: the document's counter (dom__touch) stays, so
 * the ID index and kept bytes keep their standing, and it happens at
 * most once per element (the mark is cleared before the parse).  When it
 * fails (memory), the text is half rewritten and cannot be parsed again:
 * the element is left empty, and the document says
 * so (dom__deferred_failed) to the calls that can report an error.
 * Not for: deciding what is deferred (the parser does, see
 * variants/build/deferred.c).
 */
#include <string.h>

#include "dom/deferred.h"
#include "dom/hash.h"

struct dom_deferred {
	char *text;          /* the last parse's text, in the arena */
	size_t len;
	const dom_limits *lim; /* its limits, copied into the arena */
	dom_lazy *items;
	size_t n, cap;
	size_t *slots;       /* index + 1 into items, 0 free; by address */
	size_t nslots;       /* a power of two, at least twice n */
	int failed;
};

int dom__deferred_start(dom_doc *doc, char *text, size_t len,
			const dom_limits *lim)
{
	dom_deferred *d = doc->deferred;
	dom_limits *l;

	if (d == NULL) {
		d = lab_calloc(1, sizeof *d);
		if (d == NULL)
			return LAB_ENOMEM;
		doc->deferred = d;
	}
	l = dom__arena_alloc(&doc->arena, sizeof *l);
	if (l == NULL)
		return LAB_ENOMEM;
	*l = *lim;
	d->lim = l;
	d->text = text;
	d->len = len;
	return LAB_OK;
}

static size_t *slot_of(const dom_deferred *d, const dom_node *el)
{
	size_t mask = d->nslots - 1;
	size_t i = dom__hash_ptrs(el, NULL, NULL) & mask;

	while (d->slots[i] != 0 && d->items[d->slots[i] - 1].el != el)
		i = (i + 1) & mask;
	return &d->slots[i];
}

static int grow_slots(dom_deferred *d)
{
	size_t cap = d->nslots ? d->nslots * 2 : 64, i;
	size_t *slots = lab_calloc(cap, sizeof *slots);

	if (slots == NULL)
		return LAB_ENOMEM;
	lab_free(d->slots);
	d->slots = slots;
	d->nslots = cap;
	for (i = 0; i < d->n; i++)
		*slot_of(d, d->items[i].el) = i + 1;
	return LAB_OK;
}

int dom__deferred_add(dom_doc *doc, const dom_lazy *z)
{
	dom_deferred *d = doc->deferred;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		dom_lazy *items = lab_realloc(d->items, cap * sizeof *items);

		if (items == NULL)
			return LAB_ENOMEM;
		d->items = items;
		d->cap = cap;
	}
	if ((d->n + 1) * 2 > d->nslots && grow_slots(d) != LAB_OK)
		return LAB_ENOMEM;
	d->items[d->n] = *z;
	d->items[d->n].text = d->text;
	d->items[d->n].len = d->len;
	d->items[d->n].lim = d->lim;
	*slot_of(d, z->el) = ++d->n;
	z->el->flags |= DOM__DEFERRED;
	return LAB_OK;
}

static const dom_lazy *find(const dom_doc *doc, const dom_node *el)
{
	const dom_deferred *d = doc->deferred;
	size_t i = d != NULL && d->nslots > 0 ? *slot_of(d, el) : 0;

	return i != 0 ? &d->items[i - 1] : NULL;
}

void dom__deferred_build(dom_node *el)
{
	dom_doc *doc = dom__doc(el);
	const dom_lazy *z = find(doc, el);
	dom_deferred *d = doc->deferred;

	el->flags &= (uint8_t)~DOM__DEFERRED;
	if (z != NULL &&
	    dom__parse_deferred(doc, z, z->text, z->len, z->lim, NULL) ==
		    LAB_OK)
		return;
	/* What was built of it goes: the element reads as empty. */
	el->first = NULL;
	d->failed = 1;
}

/* A namespace URI, with "" (undeclared) as none. */
static const char *uri_or_none(const dom_doc *doc, const char *uri)
{
	return uri == doc->empty ? NULL : uri;
}

/* Whether each prefix (and the default namespace) binds at el as it did
 * where z's content was parsed. */
static int same_scope(const dom_doc *doc, const dom_node *el,
		      const dom_lazy *z)
{
	size_t n = z->nouter + z->nown, i, j;
	int had_default = 0;

	for (i = 0; i < n; i++) {
		const dom_nsdecl *b = i < z->nouter ? &z->outer[i]
						    : &z->own[i - z->nouter];

		for (j = i + 1; j < n; j++) {
			const dom_nsdecl *c = j < z->nouter ? &z->outer[j]
							    : &z->own[j - z->nouter];

			if (c->prefix == b->prefix)
				break;
		}
		if (j < n)
			continue; /* a later binding of the prefix holds */
		had_default |= b->prefix == NULL;
		if (dom_ns_lookup(el, b->prefix) != uri_or_none(doc, b->uri))
			return 0;
	}
	return had_default || dom_ns_lookup(el, NULL) == NULL;
}

const char *dom__deferred_source(const dom_node *el, size_t *len)
{
	const dom_doc *doc = dom__doc(el);
	const dom_lazy *z = find(doc, el);

	if (z == NULL || !z->exact || !same_scope(doc, el, z))
		return NULL;
	*len = z->to - z->from;
	return z->text + z->from;
}

/* The i-th of z's bindings: outer, then own. */
static const dom_nsdecl *binding(const dom_lazy *z, size_t i)
{
	return i < z->nouter ? &z->outer[i] : &z->own[i - z->nouter];
}

/* Whether the apex visibly utilizes prefix p (exclusive C14N renders
 * its binding there): its own prefix, or an attribute's. */
static int utilizes(const dom_node *apex, const char *p)
{
	size_t n = dom_attr_count(apex), i;

	if (dom_prefix(apex) == p)
		return 1;
	for (i = 0; p != NULL && i < n; i++)
		if (dom_attr_prefix(dom_attr_at(apex, i)) == p)
			return 1;
	return 0;
}

/*
 * Whether exclusive C14N renders no declaration of prefix p inside z's
 * content, which declares none: p's binding there is one declared inside
 * the apex (bindings from `inside` on: the copy was canonical through
 * their tags, so they are rendered ones), or the apex's, which the apex
 * must then render (or p be bound to nothing) -- a dependency, added to
 * deps, which the digest checks (the same prefix's dependency already
 * there must say so).
 */
static int renders_none(const dom_doc *doc, const dom_node *apex,
			const dom_lazy *z, size_t inside, const char *p,
			dom_canon_dep *deps, size_t *ndeps)
{
	size_t i = z->nouter + z->nown;
	const char *uri = NULL;

	if (p != NULL && p == doc->xml_prefix)
		return 1;
	while (i-- > 0 && binding(z, i)->prefix != p)
		;
	if (i != (size_t)-1 && i >= inside)
		return 1;
	if (i != (size_t)-1)
		uri = uri_or_none(doc, binding(z, i)->uri);
	if (uri != NULL && !utilizes(apex, p))
		return 0;
	for (i = 0; i < *ndeps; i++)
		if (deps[i].prefix == p)
			return lab_nsuri_same(deps[i].in_scope, deps[i].rendered) &&
			       lab_nsuri_same(deps[i].in_scope, uri);
	if (*ndeps == DOM_CANON_DEPS)
		return 0;
	deps[*ndeps].prefix = p;
	deps[*ndeps].in_scope = uri;
	deps[*ndeps].rendered = uri;
	(*ndeps)++;
	return 1;
}

/* g's element's record while it is still unbuilt, else NULL: a build
 * rewrites the element's bytes in the text (references, in place), so
 * the gap no longer holds what the parse saw there. */
static const dom_lazy *unbuilt(const dom_doc *doc, const dom_canon_gap *g)
{
	const dom_lazy *z = find(doc, g->el);

	if (z == NULL || (g->el->flags & DOM__DEFERRED) == 0 ||
	    z->to - z->from != g->len)
		return NULL;
	return z;
}

int dom__deferred_canon(dom_doc *doc, const dom_node *apex,
			const dom_canon_gap *g, lab_buf *out,
			dom_canon_dep *deps, size_t *ndeps)
{
	const dom_lazy *z = unbuilt(doc, g);
	const char *prefix[DOM__CANON_PREFIXES];
	size_t n, i;

	if (z == NULL ||
	    !dom__parse_canon(doc, z, z->text, z->len, z->lim, out, prefix,
			      &n))
		return 0;
	for (i = 0; i < n; i++)
		if (!renders_none(doc, apex, z, g->inside, prefix[i], deps,
				  ndeps))
			return 0;
	return 1;
}

const char *dom__deferred_ready(const dom_doc *doc, const dom_canon_gap *g)
{
	const dom_lazy *z = g->ready ? unbuilt(doc, g) : NULL;

	return z != NULL ? z->text + z->from : NULL;
}

int dom__deferred_ids(const dom_node *el)
{
	const dom_lazy *z = find(dom__doc(el), el);

	return z == NULL || z->ids;
}

int dom__deferred_failed(const dom_doc *doc)
{
	return doc->deferred != NULL && doc->deferred->failed;
}

void dom__deferred_free(dom_doc *doc)
{
	dom_deferred *d = doc->deferred;

	if (d == NULL)
		return;
	lab_free(d->items);
	lab_free(d->slots);
	lab_free(d);
	doc->deferred = NULL;
}
