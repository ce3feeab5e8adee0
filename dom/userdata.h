/*
 * userdata.h - the `userdata` axis: where dom_user_data_set() keeps data.
 *
 * `pernode` gives every node its own table, allocated when the node is
 * created whether or not it is ever used (Axiom DOOM's Hashtable per
 * node); `shared` keeps one table per document keyed by node (Xerces).
 * The node allocator reserves dom__ud_slot_size bytes just before each
 * node for the variant's per-node pointer, so a variant that needs no
 * per-node field costs no byte per node.
 * Implementations: variants/userdata/{pernode,shared}.c.
 */
#ifndef DOM_USERDATA_AXIS_H
#define DOM_USERDATA_AXIS_H

#include "dom/internal.h"

extern const size_t dom__ud_slot_size;

/* The variant's slot in front of n (valid only when the slot size > 0). */
static inline void **dom__ud_slot(const dom_node *n)
{
	return (void **)((uintptr_t)n - sizeof(void *));
}

/*
 * A node of `size` bytes (its tail, and anything bumped with it,
 * included) from doc's arena, with the variant's slot in front of it;
 * *where is the node's place for dom__doc(), which the caller stores in
 * it with the other fields.  The one allocation every node maker uses
 * (tree.c, and the insitu parser's inline one), so a node's place is
 * reckoned in one spot.  NULL when memory runs out.
 */
static inline dom_node *dom__node_alloc(dom_doc *doc, size_t size,
					uint16_t *where)
{
	char *p = dom__arena_alloc_placed(&doc->arena, dom__ud_slot_size + size,
					  where);

	if (p == NULL)
		return NULL;
	*where = (uint16_t)(*where + dom__ud_slot_size / 8);
	return (dom_node *)(void *)(p + dom__ud_slot_size);
}

int dom__ud_doc_init(dom_doc *doc, lab_err *err);
/* Runs every pending free callback and releases the variant's state. */
void dom__ud_doc_release(dom_doc *doc);

int dom__ud_node_created(dom_doc *doc, dom_node *n);
/*
 * Runs the pending free callbacks of top and of every node under it.  The
 * walk is the variant's: a variant that knows no node of the document holds
 * data need not visit the subtree at all.
 */
void dom__ud_subtree_release(dom_node *top);

int dom__ud_set(dom_node *n, const void *key, void *data,
		dom_ud_free_fn free_fn, void *arg, lab_err *err);
void *dom__ud_get(const dom_node *n, const void *key);

extern const char dom__userdata_choice[];

#endif
