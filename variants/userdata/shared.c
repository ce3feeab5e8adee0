/*
 * shared.c - userdata=shared: one table per document, keyed by node, as
 * Xerces keeps it.  Nodes carry no field for it; a node pays only when
 * data is set on it.  Open addressing with backward-shift deletion, so
 * freeing nodes leaves no tombstones behind.
 */
#include <string.h>

#include "dom/udentry.h"
#include "dom/userdata.h"

const char dom__userdata_choice[] = "shared";
const size_t dom__ud_slot_size = 0;

typedef struct ud_slot {
	const dom_node *node; /* NULL = empty */
	dom_ud_entry *list;
} ud_slot;

typedef struct ud_map {
	ud_slot *slots;
	size_t cap; /* power of two, or 0 before the first set */
	size_t count;
} ud_map;

static size_t home(const ud_map *m, const dom_node *n)
{
	return (size_t)(((uint64_t)(uintptr_t)n * 0x9e3779b97f4a7c15ULL) >> 32) &
	       (m->cap - 1);
}

static ud_slot *find(const ud_map *m, const dom_node *n)
{
	size_t i;

	if (m->count == 0)
		return NULL;
	for (i = home(m, n); m->slots[i].node != NULL;
	     i = (i + 1) & (m->cap - 1))
		if (m->slots[i].node == n)
			return &m->slots[i];
	return NULL;
}

static int grow(ud_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16, i;
	ud_slot *old = m->slots;
	size_t old_cap = m->cap;

	m->slots = lab_calloc(cap, sizeof *m->slots);
	if (m->slots == NULL) {
		m->slots = old;
		return LAB_ENOMEM;
	}
	m->cap = cap;
	for (i = 0; i < old_cap; i++) {
		size_t j;

		if (old[i].node == NULL)
			continue;
		for (j = home(m, old[i].node); m->slots[j].node != NULL;
		     j = (j + 1) & (cap - 1))
			;
		m->slots[j] = old[i];
	}
	lab_free(old);
	return LAB_OK;
}

/* Empties slot s and shifts later members of its probe run back. */
static void erase(ud_map *m, const ud_slot *s)
{
	size_t mask = m->cap - 1, i = (size_t)(s - m->slots), j = i;

	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (m->slots[j].node == NULL)
			break;
		h = home(m, m->slots[j].node);
		/* Move j back to i unless its home lies in (i, j]. */
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].node = NULL;
	m->slots[i].list = NULL;
	m->count--;
}

int dom__ud_doc_init(dom_doc *doc, lab_err *err)
{
	doc->ud = lab_calloc(1, sizeof(ud_map));
	if (doc->ud == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	return LAB_OK;
}

void dom__ud_doc_release(dom_doc *doc)
{
	ud_map *m = doc->ud;
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].node != NULL)
			dom__ud_list_release(&m->slots[i].list);
	lab_free(m->slots);
	lab_free(m);
	doc->ud = NULL;
}

int dom__ud_node_created(dom_doc *doc, dom_node *n)
{
	(void)doc;
	(void)n;
	return LAB_OK;
}

/*
 * A document whose table is empty -- every send and receive -- frees a
 * subtree without visiting it: a node pays only when data is set on it.
 */
void dom__ud_subtree_release(dom_node *top)
{
	ud_map *m = dom__doc(top)->ud;
	const dom_node *c;

	for (c = top; c != NULL && m->count > 0; c = dom__walk_next_built(c, top)) {
		ud_slot *s = find(m, c);

		if (s == NULL)
			continue;
		dom__ud_list_release(&s->list);
		erase(m, s);
	}
}

int dom__ud_set(dom_node *n, const void *key, void *data,
		dom_ud_free_fn free_fn, void *arg, lab_err *err)
{
	ud_map *m = dom__doc(n)->ud;
	ud_slot *s = find(m, n);
	int added, rc;

	if (s == NULL) {
		size_t i;

		if (data == NULL)
			return LAB_OK;
		if ((m->count + 1) * 2 > m->cap && grow(m) != LAB_OK)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
		for (i = home(m, n); m->slots[i].node != NULL;
		     i = (i + 1) & (m->cap - 1))
			;
		s = &m->slots[i];
		s->node = n;
		s->list = NULL;
		m->count++;
	}
	rc = dom__ud_list_set(dom__doc(n), &s->list, key, data, free_fn, arg,
			      &added, err);
	if (s->list == NULL)
		erase(m, s);
	return rc;
}

void *dom__ud_get(const dom_node *n, const void *key)
{
	const ud_slot *s = find(dom__doc(n)->ud, n);

	return s != NULL ? dom__ud_list_get(s->list, key) : NULL;
}
