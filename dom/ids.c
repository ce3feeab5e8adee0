/*
 * ids.c - ID lookup: which element carries a given wsu:Id, Id or ID.
 *
 * The index is built on first use and rebuilt after any change to the
 * tree or to attributes (the document's generation counter), because the
 * pipeline looks IDs up in bursts -- all References of a signature, after
 * all decryption -- and a stale index would be a security bug.  Each entry
 * counts how many elements carry the value, so duplicates are visible to
 * the caller instead of silently resolved to the first.
 */
#include <string.h>

#include "dom/internal.h"

#define WSU_NS \
	"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"

typedef struct id_entry {
	const char *value; /* NULL = empty slot */
	dom_node *el;      /* first in document order */
	size_t count;
} id_entry;

struct dom_ids {
	id_entry *slots;
	size_t cap; /* power of two */
	uint64_t gen;
};

void dom__ids_free(dom_doc *doc)
{
	if (doc->ids == NULL)
		return;
	dom_free(doc->ids->slots);
	dom_free(doc->ids);
	doc->ids = NULL;
}

static id_entry *slot_for(const struct dom_ids *ids, const char *value,
			  size_t len)
{
	size_t mask = ids->cap - 1;
	size_t i = dom_hash_bytes(value, len) & mask;

	while (ids->slots[i].value != NULL &&
	       (strncmp(ids->slots[i].value, value, len) != 0 ||
		ids->slots[i].value[len] != '\0'))
		i = (i + 1) & mask;
	return &ids->slots[i];
}

/* The ID attributes of one element (at most three: wsu:Id, Id, ID). */
static size_t element_ids(const dom_node *el, const char *names[3][2],
			  const dom_attr *out[3])
{
	size_t k = 0, i;

	for (i = 0; i < 3; i++) {
		const dom_attr *at;

		if (names[i][1] == NULL)
			continue;
		at = dom_attr_get(el, names[i][0], names[i][1]);
		if (at != NULL)
			out[k++] = at;
	}
	return k;
}

static int rebuild(dom_doc *doc)
{
	const char *wsu = dom_intern_find(doc, WSU_NS, sizeof WSU_NS - 1);
	const char *id = dom_intern_find(doc, "Id", 2);
	const char *names[3][2] = {
		{wsu, wsu != NULL ? id : NULL},
		{NULL, id},
		{NULL, dom_intern_find(doc, "ID", 2)},
	};
	struct dom_ids *ids = doc->ids;
	dom_node *n;
	size_t total = 0, cap = 16;

	for (n = &doc->node; n != NULL; n = dom__walk_next(n, &doc->node))
		if (n->type == DOM_ELEMENT) /* at most three ID attributes */
			total += dom__el(n)->attrs.count < 3
					 ? dom__el(n)->attrs.count
					 : 3;
	while (cap < total * 2)
		cap *= 2;
	if (ids == NULL) {
		ids = dom_calloc(1, sizeof *ids);
		if (ids == NULL)
			return LAB_ENOMEM;
		doc->ids = ids;
	}
	if (ids->cap != cap) {
		id_entry *slots = dom_calloc(cap, sizeof *slots);

		if (slots == NULL)
			return LAB_ENOMEM;
		dom_free(ids->slots);
		ids->slots = slots;
		ids->cap = cap;
	} else {
		memset(ids->slots, 0, cap * sizeof *ids->slots);
	}
	for (n = &doc->node; n != NULL; n = dom__walk_next(n, &doc->node)) {
		const dom_attr *found[3];
		size_t k, i;

		if (n->type != DOM_ELEMENT || dom__el(n)->attrs.count == 0)
			continue;
		k = element_ids(n, names, found);
		for (i = 0; i < k; i++) {
			id_entry *e = slot_for(ids, found[i]->value,
					       found[i]->len);

			if (e->value == NULL) {
				e->value = found[i]->value;
				e->el = n;
			}
			e->count++;
		}
	}
	ids->gen = doc->gen;
	return LAB_OK;
}

dom_node *dom_get_by_id(dom_doc *doc, const char *id, size_t *count)
{
	id_entry *e;

	*count = 0;
	if ((doc->ids == NULL || doc->ids->gen != doc->gen) &&
	    rebuild(doc) != LAB_OK) {
		dom__ids_free(doc);
		return NULL;
	}
	e = slot_for(doc->ids, id, strlen(id));
	*count = e->count;
	return e->el;
}
