/*
 * ids.c - ID lookup: which element carries a given wsu:Id, Id or ID.
 *
 * The index is built on first use and rebuilt after a change to the tree
 * or to attributes (the document's generation counter), because a stale
 * index would be a security bug -- except across dom_replace_parsed,
 * which brings a current index up to date itself (dom__ids_replaced):
 * decryption replaces one element after another, and a rebuild after
 * each would make N decryptions cost N walks of the document.  Each
 * entry counts how many elements carry the value, so duplicates are
 * visible to the caller instead of silently resolved to the first.
 */
#include <string.h>

#include "dom/deferred.h"

#define WSU_NS \
	"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"

/* An entry stays once made, with count 0 when no element carries its
 * value any more; its value is the first carrier's, in the arena. */
typedef struct id_entry {
	const char *value; /* NULL = empty slot */
	dom_node *el;      /* first in document order; NULL: none, or not
			    * known after an update (the next lookup of it
			    * rebuilds) */
	size_t count;
} id_entry;

struct dom_ids {
	id_entry *slots;
	size_t cap;  /* power of two */
	size_t used; /* entries */
	uint64_t gen;
};

/* The interned names that make an attribute an ID (NULL: not in the
 * document, so no attribute has it). */
typedef struct id_names {
	const char *wsu, *id, *ID;
} id_names;

void dom__ids_free(dom_doc *doc)
{
	if (doc->ids == NULL)
		return;
	lab_free(doc->ids->slots);
	lab_free(doc->ids);
	doc->ids = NULL;
}

static id_entry *slot_for(const struct dom_ids *ids, const char *value,
			  size_t len)
{
	size_t mask = ids->cap - 1;
	size_t i = dom__hash_bytes(value, len) & mask;

	while (ids->slots[i].value != NULL &&
	       (strncmp(ids->slots[i].value, value, len) != 0 ||
		ids->slots[i].value[len] != '\0'))
		i = (i + 1) & mask;
	return &ids->slots[i];
}

static int grow(struct dom_ids *ids)
{
	size_t cap = ids->cap ? ids->cap * 2 : 64, i;
	id_entry *old = ids->slots, *slots = lab_calloc(cap, sizeof *slots);
	size_t old_cap = ids->cap;

	if (slots == NULL)
		return LAB_ENOMEM;
	ids->slots = slots;
	ids->cap = cap;
	for (i = 0; i < old_cap; i++)
		if (old[i].value != NULL)
			*slot_for(ids, old[i].value, strlen(old[i].value)) =
				old[i];
	lab_free(old);
	return LAB_OK;
}

static void names_of(const dom_doc *doc, id_names *k)
{
	k->wsu = dom_intern_find(doc, WSU_NS, sizeof WSU_NS - 1);
	k->id = dom_intern_find(doc, "Id", 2);
	k->ID = dom_intern_find(doc, "ID", 2);
}

static int is_id(const id_names *k, const dom_attr *at)
{
	const dom_name *nm = at->name;

	return (nm->local == k->id && k->id != NULL &&
		(nm->ns == NULL || nm->ns == k->wsu)) ||
	       (nm->local == k->ID && k->ID != NULL && nm->ns == NULL);
}

/* el carries at's value.  `in_order`: every carrier added so far comes
 * before el in document order (a build's walk), so the first stays
 * first; otherwise which is first among several is not known. */
static int add(struct dom_ids *ids, dom_node *el, const dom_attr *at,
	       int in_order)
{
	id_entry *e;

	if (ids->used * 2 >= ids->cap) {
		if (grow(ids) != LAB_OK)
			return LAB_ENOMEM;
	}
	e = slot_for(ids, at->value, at->len);
	if (e->value == NULL) {
		e->value = at->value;
		ids->used++;
	}
	if (e->count == 0)
		e->el = el;
	else if (!in_order)
		e->el = NULL;
	e->count++;
	return LAB_OK;
}

/* el, no longer in the document, carried at's value.  LAB_EUSAGE when
 * the index did not have it: then it was not current. */
static int drop(struct dom_ids *ids, const dom_node *el, const dom_attr *at)
{
	id_entry *e = slot_for(ids, at->value, at->len);

	if (e->value == NULL || e->count == 0)
		return LAB_EUSAGE;
	e->count--;
	if (e->el == el)
		e->el = NULL;
	return LAB_OK;
}

/* The node after n in top's subtree for each_id: deferred content is
 * built when it holds an attribute named like an ID (the parser noted
 * which do), else passed by, as it holds no ID. */
static dom_node *next_with_ids(const dom_node *n, const dom_node *top)
{
	if ((n->flags & DOM__DEFERRED) && !dom__deferred_ids(n))
		return dom__walk_next_built(n, top);
	return dom__walk_next(n, top);
}

/* add (in_order as add's) or drop every ID attribute in top's subtree;
 * the attribute arrays are read directly, and interned names compare as
 * pointers.  wsu:Id, Id and ID each count, so an element carrying two of
 * them with one value is a duplicate, as it must be. */
static int each_id(struct dom_ids *ids, const id_names *k, dom_node *top,
		   int adding, int in_order)
{
	dom_node *n;

	for (n = top; n != NULL; n = next_with_ids(n, top)) {
		const dom_attrs *as;
		uint32_t i;

		if (n->type != DOM_ELEMENT)
			continue;
		as = &dom__el(n)->attrs;
		for (i = 0; i < as->count; i++) {
			const dom_attr *at = &as->items[i];
			int rc;

			if (!is_id(k, at))
				continue;
			rc = adding ? add(ids, n, at, in_order)
				    : drop(ids, n, at);
			if (rc != LAB_OK)
				return rc;
		}
	}
	return LAB_OK;
}

/*
 * One walk of the whole document, in document order.  The table keeps
 * its size from the last build and doubles as it fills.
 */
static int rebuild(dom_doc *doc)
{
	struct dom_ids *ids = doc->ids;
	id_names k;

	names_of(doc, &k);
	if (ids == NULL) {
		ids = lab_calloc(1, sizeof *ids);
		if (ids == NULL)
			return LAB_ENOMEM;
		doc->ids = ids;
	}
	if (ids->slots != NULL)
		memset(ids->slots, 0, ids->cap * sizeof *ids->slots);
	else if (grow(ids) != LAB_OK)
		return LAB_ENOMEM;
	ids->used = 0;
	ids->gen = doc->gen;
	/* Every name in the tree has a record, so when none is an ID's, no
	 * element carries one: a sender's message before it adds its own. */
	if ((k.id == NULL || !dom__names_has_local(&doc->names, k.id)) &&
	    (k.ID == NULL || !dom__names_has_local(&doc->names, k.ID)))
		return LAB_OK;
	return each_id(ids, &k, &doc->node, 1, 1);
}

void dom__ids_replaced(dom_doc *doc, uint64_t gen, dom_node *old,
		       dom_node *first, const dom_node *stop)
{
	struct dom_ids *ids = doc->ids;
	dom_node *n;
	id_names k;

	if (ids == NULL || ids->gen != gen)
		return;
	names_of(doc, &k);
	if (k.id == NULL && k.ID == NULL) {
		ids->gen = doc->gen;
		return;
	}
	if (each_id(ids, &k, old, 0, 0) != LAB_OK)
		return;
	for (n = first; n != stop; n = n->next)
		if (each_id(ids, &k, n, 1, 0) != LAB_OK)
			return;
	ids->gen = doc->gen;
}

void dom__ids_unchanged(dom_doc *doc, uint64_t gen)
{
	if (doc->ids != NULL && doc->ids->gen == gen)
		doc->ids->gen = doc->gen;
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
	/* Content that could not be built may hold the ID, or a second. */
	if (dom__deferred_failed(doc)) {
		dom__ids_free(doc);
		return NULL;
	}
	e = slot_for(doc->ids, id, strlen(id));
	/* An update left which carrier is first unknown: a build finds it. */
	if (e->count > 0 && e->el == NULL) {
		if (rebuild(doc) != LAB_OK) {
			dom__ids_free(doc);
			return NULL;
		}
		e = slot_for(doc->ids, id, strlen(id));
	}
	*count = e->count;
	return e->el;
}

int dom_ids_each(dom_node *first, const dom_node *stop, dom_id_fn fn,
		 void *arg)
{
	dom_node *top, *n;
	id_names k;

	if (first == NULL)
		return 0;
	names_of(dom__doc(first), &k);
	for (top = first; top != NULL && top != stop; top = top->next)
		for (n = top; n != NULL; n = next_with_ids(n, top)) {
			const dom_attrs *as;
			uint32_t i;

			if (n->type != DOM_ELEMENT)
				continue;
			as = &dom__el(n)->attrs;
			for (i = 0; i < as->count; i++) {
				int rc;

				if (is_id(&k, &as->items[i]) &&
				    (rc = fn(arg, n, as->items[i].value)) != 0)
					return rc;
			}
		}
	return 0;
}
