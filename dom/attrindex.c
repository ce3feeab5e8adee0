/*
 * attrindex.c - a hash index of attribute positions.  Slots hold
 * position + 1 (0 is empty); the table stays at most half full, so a miss
 * ends within a couple of probes.  Removals rebuild in place rather than
 * leave tombstones: attributes are removed rarely, looked up often.
 * Slots come from the hash axis (dom/hash.h), keyed by the two interned
 * pointers.
 */
#include "dom/attrindex.h"

#include <string.h>

#include "dom/hash.h"

typedef struct attr_index {
	uint32_t cap; /* power of two */
	uint32_t slots[];
} attr_index;

static uint32_t slot_of(const char *ns, const char *local, uint32_t mask)
{
	return dom__hash_ptrs(local, ns, NULL) & mask;
}

long dom__attrindex_find(const dom_attrs *a, const char *ns,
			 const char *local)
{
	const attr_index *ix = a->index;
	uint32_t mask = ix->cap - 1, i = slot_of(ns, local, mask);

	while (ix->slots[i] != 0) {
		const dom_attr *at = &a->items[ix->slots[i] - 1];

		if (dom_attr_local(at) == local && dom_attr_ns(at) == ns)
			return (long)ix->slots[i] - 1;
		i = (i + 1) & mask;
	}
	return -1;
}

static void insert(attr_index *ix, const dom_attrs *a, uint32_t pos)
{
	uint32_t mask = ix->cap - 1;
	uint32_t i = slot_of(dom_attr_ns(&a->items[pos]),
			     dom_attr_local(&a->items[pos]), mask);

	while (ix->slots[i] != 0)
		i = (i + 1) & mask;
	ix->slots[i] = pos + 1;
}

int dom__attrindex_update(dom_doc *doc, dom_attrs *a, uint32_t from,
			  lab_err *err)
{
	attr_index *ix = a->index;
	uint32_t i;

	if (ix == NULL || (uint64_t)a->count * 2 > ix->cap) {
		uint32_t cap;

		for (cap = 4; cap < (uint64_t)a->count * 2; cap *= 2)
			;
		ix = dom__arena_alloc(&doc->arena,
				      sizeof *ix + cap * sizeof ix->slots[0]);
		if (ix == NULL)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
		ix->cap = cap;
		a->index = ix;
		from = 0;
	}
	if (from == 0)
		memset(ix->slots, 0, ix->cap * sizeof ix->slots[0]);
	for (i = from; i < a->count; i++)
		insert(ix, a, i);
	return LAB_OK;
}
