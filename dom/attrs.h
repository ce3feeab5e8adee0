/*
 * attrs.h - the `attrs` axis: how an element finds an attribute.
 *
 * Every choice keeps el->attrs.items in document order; a choice differs
 * in the index it maintains beside the array (none, a hash table, or a
 * hash table only past a size) and so in lookup time and bytes per
 * element.  Implementations: variants/attrs/{vector,hash,adaptive}.c.
 */
#ifndef DOM_ATTRS_AXIS_H
#define DOM_ATTRS_AXIS_H

#include "dom/internal.h"

/* Position of the attribute (ns, local) -- both interned -- or -1. */
long dom__attrs_find(const dom_attrs *a, const char *ns, const char *local);

/*
 * items[from, count) are new or changed since the index was last brought
 * up to date; from == 0 means anything may have changed (removals, bulk
 * building).  The index lives in doc's arena.  When count has not grown
 * since the index was last brought up to date (a removal), it does not
 * allocate and cannot fail.
 */
int dom__attrs_update(dom_doc *doc, dom_attrs *a, uint32_t from,
		      lab_err *err);

/* The linear scan by interned pointers, for choices that scan. */
long dom__attrs_scan(const dom_attrs *a, const char *ns, const char *local);

extern const char dom__attrs_choice[];

#endif
