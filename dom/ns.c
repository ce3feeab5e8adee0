/*
 * ns.c - namespace declarations as first-class data: what an element
 * declares, and what is in scope at it.  Declarations are kept apart from
 * attributes because exclusive C14N decides per element which of them to
 * render, and attribute lookups should not have to skip them.
 */
#include <string.h>

#include "dom/emit.h"
#include "dom/internal.h"

const dom_nsdecl *dom_ns_decls(const dom_node *el, size_t *count)
{
	if (el->type != DOM_ELEMENT) {
		*count = 0;
		return NULL;
	}
	*count = el->len;
	return dom__el(el)->nsdecls;
}

int dom__reserve_nsdecls(dom_element *el, uint32_t n)
{
	dom_nsdecl *d;
	uint32_t have = el->base.len;

	if (n > UINT32_MAX - have)
		return LAB_ENOMEM;
	/* Declarations are few and set once by the parser; growth by hand is
	 * rare (the pipeline declares a handful), so no spare capacity. */
	d = dom__arena_alloc(&dom__doc(&el->base)->arena,
			     (have + n) * sizeof *d);
	if (d == NULL)
		return LAB_ENOMEM;
	if (have > 0)
		memcpy(d, el->nsdecls, have * sizeof *d);
	el->nsdecls = d;
	return LAB_OK;
}

int dom_ns_declare(dom_node *el, const char *prefix, const char *uri,
		   lab_err *err)
{
	dom_doc *doc = dom__doc(el);
	dom_element *e = dom__el(el);
	const char *ip = NULL, *iu;
	uint32_t i;

	if (el->type != DOM_ELEMENT)
		return lab_fail(err, LAB_EUSAGE,
				"only elements declare namespaces");
	if (prefix != NULL && prefix[0] != '\0') {
		if (strcmp(prefix, "xmlns") == 0 ||
		    (strcmp(prefix, "xml") == 0 && strcmp(uri, DOM_XML_NS) != 0) ||
		    uri[0] == '\0')
			return lab_fail(err, LAB_EUSAGE,
					"cannot bind prefix '%s' to '%s'",
					prefix, uri);
		ip = dom_intern(doc, prefix, strlen(prefix));
		if (ip == NULL)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
	}
	iu = dom_intern(doc, uri, strlen(uri));
	if (iu == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	dom__touch(doc);
	dom__emit_changed(doc, el, DOM__CHANGE_OWN);
	dom__note_ns(doc, iu);
	for (i = 0; i < el->len; i++) {
		if (e->nsdecls[i].prefix == ip) {
			e->nsdecls[i].uri = iu;
			return LAB_OK;
		}
	}
	if (dom__reserve_nsdecls(e, 1) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	e->nsdecls[el->len].prefix = ip;
	e->nsdecls[el->len].uri = iu;
	el->len++;
	return LAB_OK;
}

/* The first relative URI el declares, its prefix in *prefix; or NULL. */
static const char *relative_at(const dom_node *el, const char **prefix)
{
	const dom_nsdecl *d = dom__el(el)->nsdecls;
	uint32_t i;

	for (i = 0; i < el->len; i++)
		if (lab_nsuri_relative(d[i].uri)) {
			*prefix = d[i].prefix;
			return d[i].uri;
		}
	return NULL;
}

const char *dom_ns_relative(const dom_node *n, const char **prefix)
{
	const dom_node *top = n;
	const char *uri = NULL;

	*prefix = NULL;
	if (!dom__doc(n)->relative_ns)
		return NULL;
	while (top->parent != NULL)
		top = top->parent;
	/* Through the tree's accessors, which build deferred content. */
	for (n = top; n != NULL && uri == NULL;) {
		const dom_node *next = dom_first_child(n);

		if (n->type == DOM_ELEMENT)
			uri = relative_at(n, prefix);
		while (next == NULL && n != top) {
			next = dom_next_sibling(n);
			n = dom_parent(n);
		}
		n = next;
	}
	return uri;
}

const char *dom_ns_lookup(const dom_node *el, const char *prefix)
{
	const dom_node *n;

	if (prefix != NULL && prefix == dom__doc(el)->xml_prefix)
		return dom__doc(el)->xml_ns;
	for (n = el; n != NULL && n->type == DOM_ELEMENT; n = n->parent) {
		const dom_nsdecl *d = dom__el(n)->nsdecls;
		uint32_t i;

		for (i = 0; i < n->len; i++)
			if (d[i].prefix == prefix)
				return d[i].uri == dom__doc(n)->empty ? NULL
								  : d[i].uri;
	}
	return NULL;
}

static int seen(const dom_nsdecl *list, size_t count, const char *prefix)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (list[i].prefix == prefix)
			return 1;
	return 0;
}

int dom_ns_in_scope(const dom_node *el, dom_nsdecl **out, size_t *count,
		    lab_err *err)
{
	const dom_node *n;
	dom_nsdecl *list = NULL;
	size_t total = 0, k = 0;

	*out = NULL;
	*count = 0;
	for (n = el; n != NULL && n->type == DOM_ELEMENT; n = n->parent)
		total += n->len;
	if (total == 0)
		return LAB_OK;
	list = lab_malloc(total * sizeof *list);
	if (list == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	/* Nearest first, so the first declaration of a prefix wins; an
	 * undeclared default is recorded while walking, then dropped. */
	for (n = el; n != NULL && n->type == DOM_ELEMENT; n = n->parent) {
		const dom_nsdecl *d = dom__el(n)->nsdecls;
		uint32_t i;

		for (i = 0; i < n->len; i++)
			if (!seen(list, k, d[i].prefix))
				list[k++] = d[i];
	}
	for (total = 0; total < k;) {
		if (list[total].uri == dom__doc(el)->empty)
			list[total] = list[--k];
		else
			total++;
	}
	*out = list;
	*count = k;
	return LAB_OK;
}
