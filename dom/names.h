/*
 * names.h - the per-document intern table for names and namespace URIs.
 *
 * Why per document and not per process: a document's names die with it,
 * so the table needs no locks (each pipeline thread owns its documents)
 * and cannot grow without bound in a long-running process fed hostile
 * names -- the never-evicted cache is one of the findings this lab
 * reproduces, not one to repeat.  The price is one hash probe per name
 * while parsing, and re-interning when nodes move between documents
 * (rare: the pipeline builds everything in the message's document).
 *
 * Interned strings are stored in the document's arena behind a small
 * header holding their length, so dom_names_len() is O(1).  Qualified
 * names (namespace, prefix, local) are interned a second time as one
 * dom_name record, keyed by the three interned pointers, so a node or
 * attribute spends one pointer on its name instead of three.
 */
#ifndef DOM_NAMES_H
#define DOM_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "dom.h"
#include "hash.h"

typedef struct dom_names {
	const char **slots; /* open addressing, NULL = empty */
	uint32_t *hashes;   /* the full hash of each slot, to skip compares */
	size_t cap;         /* power of two */
	size_t count;
	const dom_name **qslots; /* name records, open addressing */
	size_t qcap;             /* power of two */
	size_t qcount;
} dom_names;

void dom_names_init(dom_names *t);
void dom_names_free(dom_names *t);

/* The canonical copy of s[0..len), made in `arena` when new; NULL on OOM. */
const char *dom_names_intern(dom_names *t, dom_arena *arena, const char *s,
			     size_t len);
/* The canonical copy if present, else NULL. */
const char *dom_names_find(const dom_names *t, const char *s, size_t len);

/*
 * The record for (ns, prefix, local), all three already interned in this
 * table (ns and prefix may be NULL), made in `arena` when new; NULL on OOM.
 */
const dom_name *dom_names_qname(dom_names *t, dom_arena *arena,
				const char *ns, const char *prefix,
				const char *local);

/* Whether a record with this (interned) local name exists: a name no
 * record has is on no element or attribute.  A walk over the records. */
int dom_names_has_local(const dom_names *t, const char *local);

/* Header stored just before an interned string's bytes. */
typedef struct dom_name_hdr {
	uint32_t len;
	uint32_t hash;
} dom_name_hdr;

/* Length of an interned string: inline, as both XML writers ask it for
 * every name they write. */
static inline size_t dom_names_len(const char *interned)
{
	const dom_name_hdr *h = (const dom_name_hdr *)(const void *)interned - 1;

	return h->len;
}

/*
 * Canonical XML's two orders, as qsort compares: namespace declarations
 * by prefix, the default (NULL) first; attributes by namespace URI, none
 * (NULL) first, then by local name.  wss/c14n.c sorts by them, and the
 * insitu parser (variants/parser/insitu/canon.c) checks that bytes already are in
 * them.  strcmp's order, which on UTF-8 is the code points' order; most
 * names differ in their first byte, which then decides without a call.
 */
static inline int dom_names_cmp(const char *x, const char *y)
{
	if (*x != *y)
		return (unsigned char)*x - (unsigned char)*y;
	return strcmp(x, y);
}

static inline int dom_names_c14n_prefix_cmp(const char *x, const char *y)
{
	if (x == NULL || y == NULL)
		return (x != NULL) - (y != NULL);
	return dom_names_cmp(x, y);
}

static inline int dom_names_c14n_attr_cmp(const dom_name *x,
					  const dom_name *y)
{
	/* Interned: the same pointer is the same URI. */
	if (x->ns != y->ns) {
		int r = dom_names_c14n_prefix_cmp(x->ns, y->ns);

		if (r != 0)
			return r;
	}
	return dom_names_cmp(x->local, y->local);
}

/*
 * Writes lead, then "prefix:" when prefix is not NULL (pl bytes before
 * the colon), local (ll bytes) and tail at o, and returns the end.  The
 * caller has checked the room: nlead + pl + 1 + ll + ntail bytes.  Both
 * XML writers (dom/serialize.c, wss/c14n.c) put every name through it;
 * inlined so that the short copies of constant length become stores.
 */
static inline __attribute__((always_inline)) char *
dom_names_put_qname(char *o, const char *lead, size_t nlead,
		    const char *prefix, size_t pl, const char *local,
		    size_t ll, const char *tail, size_t ntail)
{
	memcpy(o, lead, nlead);
	o += nlead;
	if (prefix != NULL) {
		o = lab_copy(o, prefix, pl);
		*o++ = ':';
	}
	o = lab_copy(o, local, ll);
	memcpy(o, tail, ntail);
	return o + ntail;
}

#endif
