/*
 * pernode.c - userdata=pernode: every node gets its own table when it is
 * created, used or not -- Axiom DOOM's Hashtable per node, sized like
 * java.util.Hashtable's default (11 buckets).  The cost this reproduces is
 * the allocation and the bytes on every node of every parse.
 *
 * Tables that ever received data are chained from the document, so
 * dom_doc_free() finds pending free callbacks without walking the tree
 * (which would miss detached nodes).
 */
#include "dom/udentry.h"
#include "dom/userdata.h"

const char dom__userdata_choice[] = "pernode";
const size_t dom__ud_slot_size = sizeof(void *);

enum { BUCKETS = 11 };

typedef struct node_table node_table;

struct node_table {
	dom_ud_entry *buckets[BUCKETS];
	node_table *next_used; /* chain of tables that held data */
	uint32_t count;
	uint32_t used;         /* already on the chain */
};

static node_table *table_of(const dom_node *n)
{
	return *dom__ud_slot(n);
}

static dom_ud_entry **bucket(node_table *t, const void *key)
{
	return &t->buckets[((uintptr_t)key >> 3) % BUCKETS];
}

int dom__ud_doc_init(dom_doc *doc, lab_err *err)
{
	(void)err;
	doc->ud = NULL;
	return LAB_OK;
}

void dom__ud_doc_release(dom_doc *doc)
{
	node_table *t;

	for (t = doc->ud; t != NULL; t = t->next_used) {
		size_t i;

		for (i = 0; i < BUCKETS; i++)
			dom__ud_list_release(&t->buckets[i]);
		t->count = 0;
	}
	doc->ud = NULL;
}

int dom__ud_node_created(dom_doc *doc, dom_node *n)
{
	node_table *t = dom__arena_zalloc(&doc->arena, sizeof *t);

	*dom__ud_slot(n) = t;
	return t != NULL ? LAB_OK : LAB_ENOMEM;
}

static void node_release(const dom_node *n)
{
	node_table *t = table_of(n);
	size_t i;

	if (t->count == 0)
		return;
	for (i = 0; i < BUCKETS; i++)
		dom__ud_list_release(&t->buckets[i]);
	t->count = 0;
}

/* Every node has its own table, so every node of the subtree is visited. */
void dom__ud_subtree_release(dom_node *top)
{
	const dom_node *c;

	for (c = top; c != NULL; c = dom__walk_next_built(c, top))
		node_release(c);
}

int dom__ud_set(dom_node *n, const void *key, void *data,
		dom_ud_free_fn free_fn, void *arg, lab_err *err)
{
	node_table *t = table_of(n);
	int added, rc;

	rc = dom__ud_list_set(dom__doc(n), bucket(t, key), key, data, free_fn, arg,
			      &added, err);
	if (rc != LAB_OK)
		return rc;
	t->count = (uint32_t)((int)t->count + added);
	if (t->count > 0 && !t->used) {
		t->used = 1;
		t->next_used = dom__doc(n)->ud;
		dom__doc(n)->ud = t;
	}
	return LAB_OK;
}

void *dom__ud_get(const dom_node *n, const void *key)
{
	node_table *t = table_of(n);

	return t->count > 0 ? dom__ud_list_get(*bucket(t, key), key) : NULL;
}
