/*
 * hash.c - attrs=hash: every element with attributes carries a hash index
 * beside its array (Java's HashMap per element), even for one attribute.
 * O(1) lookups, paid for in bytes per element.
 */
#include "dom/attrindex.h"
#include "dom/attrs.h"

const char dom__attrs_choice[] = "hash";

long dom__attrs_find(const dom_attrs *a, const char *ns, const char *local)
{
	return a->index != NULL ? dom__attrindex_find(a, ns, local) : -1;
}

int dom__attrs_update(dom_doc *doc, dom_attrs *a, uint32_t from,
		      lab_err *err)
{
	if (a->count == 0)
		return LAB_OK;
	return dom__attrindex_update(doc, a, from, err);
}
