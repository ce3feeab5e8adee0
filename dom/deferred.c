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
	char *text;          /* the parser's text, in the arena */
	size_t len;
	dom_limits lim;
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

	if (d == NULL) {
		d = dom_calloc(1, sizeof *d);
		if (d == NULL)
			return LAB_ENOMEM;
		doc->deferred = d;
	}
	d->text = text;
	d->len = len;
	d->lim = *lim;
	return LAB_OK;
}

static size_t *slot_of(const dom_deferred *d, const dom_node *el)
{
	size_t mask = d->nslots - 1;
	size_t i = dom_hash_ptrs(el, NULL, NULL) & mask;

	while (d->slots[i] != 0 && d->items[d->slots[i] - 1].el != el)
		i = (i + 1) & mask;
	return &d->slots[i];
}

static int grow_slots(dom_deferred *d)
{
	size_t cap = d->nslots ? d->nslots * 2 : 64, i;
	size_t *slots = dom_calloc(cap, sizeof *slots);

	if (slots == NULL)
		return LAB_ENOMEM;
	dom_free(d->slots);
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
		dom_lazy *items = dom_realloc(d->items, cap * sizeof *items);

		if (items == NULL)
			return LAB_ENOMEM;
		d->items = items;
		d->cap = cap;
	}
	if ((d->n + 1) * 2 > d->nslots && grow_slots(d) != LAB_OK)
		return LAB_ENOMEM;
	d->items[d->n] = *z;
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
	    dom__parse_deferred(doc, z, d->text, d->len, &d->lim, NULL) ==
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
	return doc->deferred->text + z->from;
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
	dom_free(d->items);
	dom_free(d->slots);
	dom_free(d);
	doc->deferred = NULL;
}
