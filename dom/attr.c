/*
 * attr.c - the public attribute API.  Lookup goes through the attrs
 * variant (dom/attrs.h); dom_attributes() through the attrlist variant.
 * This file owns the array's growth and the checks, not the index.
 */
#include <string.h>

#include "dom/attrlist.h"
#include "dom/attrs.h"
#include "dom/emit.h"
#include "dom/internal.h"

static const dom_attrs *attrs_of(const dom_node *el)
{
	return el->type == DOM_ELEMENT ? &dom__el(el)->attrs : NULL;
}

const dom_attr *dom_attr_get(const dom_node *el, const char *ns,
			     const char *local)
{
	const dom_attrs *a = attrs_of(el);
	long i;

	if (a == NULL || a->count == 0)
		return NULL;
	i = dom__attrs_find(a, ns, local);
	return i < 0 ? NULL : &a->items[i];
}

const dom_attr *dom_attr_get_str(const dom_node *el, const char *ns,
				 const char *local)
{
	const dom_doc *doc = dom__doc(el);
	const char *ins = NULL, *il;

	if (ns != NULL && ns[0] != '\0') {
		ins = dom_intern_find(doc, ns, strlen(ns));
		if (ins == NULL)
			return NULL;
	}
	il = dom_intern_find(doc, local, strlen(local));
	return il == NULL ? NULL : dom_attr_get(el, ins, il);
}

const dom_attr *dom_attr_get_qname(const dom_node *el, const char *qname)
{
	const dom_attrs *a = attrs_of(el);
	const char *colon = strchr(qname, ':');
	const char *prefix = NULL, *local = qname;
	uint32_t i;

	if (a == NULL)
		return NULL;
	if (colon != NULL) {
		prefix = dom_intern_find(dom__doc(el), qname,
					 (size_t)(colon - qname));
		local = colon + 1;
		if (prefix == NULL)
			return NULL;
	}
	local = dom_intern_find(dom__doc(el), local, strlen(local));
	if (local == NULL)
		return NULL;
	for (i = 0; i < a->count; i++)
		if (dom_attr_local(&a->items[i]) == local &&
		    dom_attr_prefix(&a->items[i]) == prefix)
			return &a->items[i];
	return NULL;
}

const char *dom_attr_value(const dom_node *el, const char *ns,
			   const char *local)
{
	const dom_attr *at = dom_attr_get(el, ns, local);

	return at != NULL ? at->value : NULL;
}

int dom_attr_has(const dom_node *el, const char *ns, const char *local)
{
	return dom_attr_get(el, ns, local) != NULL;
}

size_t dom_attr_count(const dom_node *el)
{
	const dom_attrs *a = attrs_of(el);

	return a != NULL ? a->count : 0;
}

const dom_attr *dom_attr_at(const dom_node *el, size_t i)
{
	const dom_attrs *a = attrs_of(el);

	return a != NULL && i < a->count ? &a->items[i] : NULL;
}

long dom__attrs_scan(const dom_attrs *a, const char *ns, const char *local)
{
	uint32_t i;

	for (i = 0; i < a->count; i++)
		if (dom_attr_local(&a->items[i]) == local &&
		    dom_attr_ns(&a->items[i]) == ns)
			return (long)i;
	return -1;
}

int dom__reserve_attrs(dom_element *el, uint32_t n)
{
	dom_attrs *a = &el->attrs;
	dom_attr *items;
	uint32_t cap;

	if (a->cap - a->count >= n)
		return LAB_OK;
	if (n > UINT32_MAX / 2 - a->count)
		return LAB_ENOMEM;
	cap = a->count + n;
	/* The parser asks for exactly what a tag holds; growth by hand doubles. */
	if (a->count > 0 && cap < a->cap * 2)
		cap = a->cap * 2;
	items = dom__arena_alloc(&dom__doc(&el->base)->arena,
				 cap * sizeof *items);
	if (items == NULL)
		return LAB_ENOMEM;
	if (a->count > 0)
		memcpy(items, a->items, a->count * sizeof *items);
	a->items = items;
	a->cap = cap;
	return LAB_OK;
}

int dom__attrs_built(dom_element *el, lab_err *err)
{
	return dom__attrs_update(dom__doc(&el->base), &el->attrs, 0, err);
}

int dom_attr_set(dom_node *el, const char *ns, const char *qname,
		 const char *value, size_t len, lab_err *err)
{
	dom_doc *doc = dom__doc(el);
	const char *prefix, *local, *ins, *v;
	const dom_name *name;
	dom_attrs *a;
	dom_attr *at;
	long i;
	int rc;

	if (el->type != DOM_ELEMENT)
		return lab_fail(err, LAB_EUSAGE, "only elements have attributes");
	rc = dom__intern_name(doc, ns, qname, &ins, &prefix, &local, err);
	if (rc != LAB_OK)
		return rc;
	if (strcmp(qname, "xmlns") == 0 ||
	    (prefix != NULL && strcmp(prefix, "xmlns") == 0))
		return lab_fail(err, LAB_EUSAGE,
				"namespace declarations are set with dom_ns_declare");
	name = dom__name(doc, ins, prefix, local);
	v = dom__arena_strndup(&doc->arena, value, len);
	if (name == NULL || v == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	a = &dom__el(el)->attrs;
	dom__touch(doc);
	dom__emit_changed(doc, el, DOM__CHANGE_OWN);
	i = a->count > 0 ? dom__attrs_find(a, ins, local) : -1;
	if (i >= 0) {
		a->items[i].name = name;
		a->items[i].value = v;
		a->items[i].len = len;
		return LAB_OK;
	}
	if (dom__reserve_attrs(dom__el(el), 1) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	at = &a->items[a->count++];
	at->name = name;
	at->value = v;
	at->len = len;
	return dom__attrs_update(doc, a, a->count - 1, err);
}

int dom_attr_remove(dom_node *el, const char *ns, const char *local)
{
	const dom_attr *at = dom_attr_get_str(el, ns, local);
	dom_attrs *a;
	size_t i;

	if (at == NULL)
		return 0;
	a = &dom__el(el)->attrs;
	i = (size_t)(at - a->items);
	memmove(&a->items[i], &a->items[i + 1],
		(a->count - i - 1) * sizeof *a->items);
	a->count--;
	dom__touch(dom__doc(el));
	dom__emit_changed(dom__doc(el), el, DOM__CHANGE_OWN);
	/* Rebuilding after a removal cannot need memory it did not have. */
	(void)dom__attrs_update(dom__doc(el), a, 0, NULL);
	return 1;
}

int dom_attributes(const dom_node *el, dom_attr_list *out, lab_err *err)
{
	if (el->type != DOM_ELEMENT) {
		memset(out, 0, sizeof *out);
		return LAB_OK;
	}
	return dom__attrlist_get(dom__el(el), out, err);
}

void dom_attr_list_release(const dom_node *el, dom_attr_list *list)
{
	if (el->type == DOM_ELEMENT)
		dom__attrlist_release(dom__el(el), list);
	memset(list, 0, sizeof *list);
}
