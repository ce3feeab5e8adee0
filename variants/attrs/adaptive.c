/*
 * adaptive.c - attrs=adaptive: a linear scan while an element has few
 * attributes, where it beats hashing and costs no memory, and a hash
 * index once it has more than ADAPTIVE_MAX.
 */
#include "dom/attrindex.h"
#include "dom/attrs.h"

const char dom__attrs_choice[] = "adaptive";

/* A scan of 8 pointer pairs fits in two cache lines and beats a probe. */
enum { ADAPTIVE_MAX = 8 };

long dom__attrs_find(const dom_attrs *a, const char *ns, const char *local)
{
	return a->index != NULL ? dom__attrindex_find(a, ns, local)
				: dom__attrs_scan(a, ns, local);
}

int dom__attrs_update(dom_doc *doc, dom_attrs *a, uint32_t from,
		      lab_err *err)
{
	if (a->count <= ADAPTIVE_MAX) {
		/* Back under the bound after removals: scan again. */
		a->index = NULL;
		return LAB_OK;
	}
	return dom__attrindex_update(doc, a, from, err);
}
