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

void dom__names_init(dom_names *t);
void dom__names_free(dom_names *t);

/* The canonical copy of s[0..len), made in `arena` when new; NULL on OOM. */
const char *dom__names_intern(dom_names *t, dom_arena *arena, const char *s,
			      size_t len);
/* The canonical copy if present, else NULL. */
const char *dom__names_find(const dom_names *t, const char *s, size_t len);

/*
 * The record for (ns, prefix, local), all three already interned in this
 * table (ns and prefix may be NULL), made in `arena` when new; NULL on OOM.
 */
const dom_name *dom__names_qname(dom_names *t, dom_arena *arena,
				 const char *ns, const char *prefix,
				 const char *local);

/* Whether a record with this (interned) local name exists: a name no
 * record has is on no element or attribute.  A walk over the records. */
int dom__names_has_local(const dom_names *t, const char *local);

#endif
