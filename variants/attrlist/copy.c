/*
 * copy.c - attrlist=copy: dom_attributes() builds a fresh list on every
 * call, as Axiom DOOM's getAttributes() built a new map for each call from
 * the canonicalizer.  One heap allocation and a copy of every attribute
 * record per call; released by dom_attr_list_release().
 */
#include <string.h>

#include "dom/attrlist.h"

const char dom__attrlist_choice[] = "copy";

int dom__attrlist_get(const dom_element *el, dom_attr_list *out,
		      lab_err *err)
{
	dom_attr *copy;
	size_t n = el->attrs.count;

	memset(out, 0, sizeof *out);
	copy = lab_malloc(n * sizeof *copy);
	if (copy == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	if (n > 0)
		memcpy(copy, el->attrs.items, n * sizeof *copy);
	out->items = copy;
	out->count = n;
	out->owned = copy;
	return LAB_OK;
}

void dom__attrlist_release(const dom_element *el, dom_attr_list *list)
{
	(void)el;
	lab_free(list->owned);
}
