/*
 * vector.c - attrs=vector: the attribute array and nothing else; lookup
 * is a linear scan comparing interned pointers (Xerces' and Axiom's
 * findNamePoint).  No bytes beyond the array, O(n) per lookup.
 */
#include "dom/attrs.h"

const char dom__attrs_choice[] = "vector";

long dom__attrs_find(const dom_attrs *a, const char *ns, const char *local)
{
	return dom__attrs_scan(a, ns, local);
}

int dom__attrs_update(dom_doc *doc, dom_attrs *a, uint32_t from,
		      lab_err *err)
{
	(void)doc;
	(void)a;
	(void)from;
	(void)err;
	return LAB_OK;
}
