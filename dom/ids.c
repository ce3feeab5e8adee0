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

static int grow(struct dom_ids *ids)
{
	size_t cap = ids->cap ? ids->cap * 2 : 64, i;
	id_entry *old = ids->slots, *slots = dom_calloc(cap, sizeof *slots);
	size_t old_cap = ids->cap;

	if (slots == NULL)
		return LAB_ENOMEM;
	ids->slots = slots;
	ids->cap = cap;
	for (i = 0; i < old_cap; i++)
		if (old[i].value != NULL)
			*slot_for(ids, old[i].value, strlen(old[i].value)) =
				old[i];
	dom_free(old);
	return LAB_OK;
}

static int add(struct dom_ids *ids, size_t *used, dom_node *el,
	       const dom_attr *at)
{
	id_entry *e;

	if (*used * 2 >= ids->cap) {
		if (grow(ids) != LAB_OK)
			return LAB_ENOMEM;
	}
	e = slot_for(ids, at->value, at->len);
	if (e->value == NULL) {
		e->value = at->value;
		e->el = el;
		++*used;
	}
	e->count++;
	return LAB_OK;
}

/*
 * One walk, the attribute arrays read directly (interned names compare
 * as pointers): wsu:Id, Id and ID each count, so an element carrying two
 * of them with one value is a duplicate, as it must be.  The table keeps
 * its size from the last build and doubles as it fills.
 */
static int rebuild(dom_doc *doc)
{
	const char *wsu = dom_intern_find(doc, WSU_NS, sizeof WSU_NS - 1);
	const char *id = dom_intern_find(doc, "Id", 2);
	const char *ID = dom_intern_find(doc, "ID", 2);
	struct dom_ids *ids = doc->ids;
	size_t used = 0;
	dom_node *n;

	if (ids == NULL) {
		ids = dom_calloc(1, sizeof *ids);
		if (ids == NULL)
			return LAB_ENOMEM;
		doc->ids = ids;
	}
	if (ids->slots != NULL)
		memset(ids->slots, 0, ids->cap * sizeof *ids->slots);
	else if (grow(ids) != LAB_OK)
		return LAB_ENOMEM;
	ids->gen = doc->gen;
	/* Every name in the tree has a record, so when none is an ID's, no
	 * element carries one: a sender's message before it adds its own. */
	if ((id == NULL || !dom_names_has_local(&doc->names, id)) &&
	    (ID == NULL || !dom_names_has_local(&doc->names, ID)))
		return LAB_OK;
	for (n = &doc->node; n != NULL; n = dom__walk_next(n, &doc->node)) {
		const dom_attrs *as;
		uint32_t i;

		if (n->type != DOM_ELEMENT)
			continue;
		as = &dom__el(n)->attrs;
		for (i = 0; i < as->count; i++) {
			const dom_attr *at = &as->items[i];

			const dom_name *nm = at->name;

			if ((nm->local == id && id != NULL &&
			     (nm->ns == NULL || nm->ns == wsu)) ||
			    (nm->local == ID && ID != NULL && nm->ns == NULL)) {
				if (add(ids, &used, n, at) != LAB_OK)
					return LAB_ENOMEM;
			}
		}
	}
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
