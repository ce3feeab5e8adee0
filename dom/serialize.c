/*
 * serialize.c - writes a tree back as XML text, as it was read.
 *
 * Escaping is the minimum that keeps the text well-formed and keeps
 * attribute values from being renormalised on the next parse (the same
 * set C14N escapes), so parse -> serialize -> parse is a fixed point and
 * a document already in that form comes back byte for byte.  A subtree is
 * written as it stands: declarations its prefixes need from ancestors are
 * not added (the pipeline uses C14N, not this, for anything it hashes).
 * Not for: pretty printing, encodings other than UTF-8.
 */
#include <string.h>

#include "dom/internal.h"

/* Appends s, replacing the bytes that need it; `attr` picks the set. */
static int put_escaped(lab_buf *b, const char *s, size_t len, int attr)
{
	const char *run = s, *end = s + len;

	for (; s < end; s++) {
		const char *rep;

		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = attr ? NULL : "&gt;"; break;
		case '"': rep = attr ? "&quot;" : NULL; break;
		case '\t': rep = attr ? "&#9;" : NULL; break;
		case '\n': rep = attr ? "&#10;" : NULL; break;
		case '\r': rep = "&#13;"; break;
		default: rep = NULL;
		}
		if (rep == NULL)
			continue;
		if (lab_buf_put(b, run, (size_t)(s - run)) != LAB_OK ||
		    lab_buf_puts(b, rep) != LAB_OK)
			return LAB_ENOMEM;
		run = s + 1;
	}
	return lab_buf_put(b, run, (size_t)(end - run));
}

static int put_name(lab_buf *b, const char *prefix, const char *local)
{
	if (prefix != NULL &&
	    (lab_buf_put(b, prefix, dom_names_len(prefix)) != LAB_OK ||
	     lab_buf_putc(b, ':') != LAB_OK))
		return LAB_ENOMEM;
	return lab_buf_put(b, local, dom_names_len(local));
}

static int start_tag(lab_buf *b, const dom_element *el)
{
	uint32_t i;

	if (lab_buf_putc(b, '<') != LAB_OK ||
	    put_name(b, el->prefix, el->local) != LAB_OK)
		return LAB_ENOMEM;
	for (i = 0; i < el->base.len; i++) {
		const dom_nsdecl *d = &el->nsdecls[i];

		if (lab_buf_puts(b, d->prefix ? " xmlns:" : " xmlns") ||
		    (d->prefix != NULL &&
		     lab_buf_put(b, d->prefix, dom_names_len(d->prefix))) ||
		    lab_buf_put(b, "=\"", 2) ||
		    put_escaped(b, d->uri, dom_names_len(d->uri), 1) ||
		    lab_buf_putc(b, '"'))
			return LAB_ENOMEM;
	}
	for (i = 0; i < el->attrs.count; i++) {
		const dom_attr *a = &el->attrs.items[i];

		if (lab_buf_putc(b, ' ') || put_name(b, a->prefix, a->local) ||
		    lab_buf_put(b, "=\"", 2) ||
		    put_escaped(b, a->value, a->len, 1) || lab_buf_putc(b, '"'))
			return LAB_ENOMEM;
	}
	return lab_buf_puts(b, el->base.first != NULL ? ">" : "/>");
}

static int leaf(lab_buf *b, const dom_node *n)
{
	const dom_chars *c = dom__chars(n);

	switch (n->type) {
	case DOM_TEXT:
		return put_escaped(b, c->value, n->len, 0);
	case DOM_CDATA:
		return lab_buf_puts(b, "<![CDATA[") ||
		       lab_buf_put(b, c->value, n->len) ||
		       lab_buf_puts(b, "]]>");
	case DOM_COMMENT:
		return lab_buf_puts(b, "<!--") ||
		       lab_buf_put(b, c->value, n->len) ||
		       lab_buf_puts(b, "-->");
	case DOM_PI:
		return lab_buf_puts(b, "<?") ||
		       lab_buf_put(b, c->target, dom_names_len(c->target)) ||
		       (n->len > 0 && lab_buf_putc(b, ' ')) ||
		       lab_buf_put(b, c->value, n->len) || lab_buf_puts(b, "?>");
	default:
		return LAB_OK;
	}
}

/* The subtree at top, iteratively: end tags are written on the way up. */
static int subtree(lab_buf *b, const dom_node *top)
{
	const dom_node *n = top;

	for (;;) {
		if (n->type == DOM_ELEMENT) {
			if (start_tag(b, dom__el(n)) != LAB_OK)
				return LAB_ENOMEM;
			if (n->first != NULL) {
				n = n->first;
				continue;
			}
		} else if (leaf(b, n) != LAB_OK) {
			return LAB_ENOMEM;
		}
		/* Close every element we finish on the way to a next sibling. */
		while (n != top && n->next == NULL) {
			const dom_element *p = dom__el(n->parent);

			n = n->parent;
			if (lab_buf_put(b, "</", 2) ||
			    put_name(b, p->prefix, p->local) ||
			    lab_buf_putc(b, '>'))
				return LAB_ENOMEM;
		}
		if (n == top)
			return LAB_OK;
		n = n->next;
	}
}

static int document(lab_buf *b, const dom_doc *doc)
{
	const dom_decl *d = &doc->decl;
	const dom_node *n;

	if (d->version != NULL) {
		if (lab_buf_puts(b, "<?xml version=\"") ||
		    lab_buf_puts(b, d->version) || lab_buf_putc(b, '"') ||
		    (d->encoding && lab_buf_puts(b, " encoding=\"UTF-8\"")) ||
		    (d->standalone >= 0 &&
		     lab_buf_puts(b, d->standalone ? " standalone=\"yes\""
						   : " standalone=\"no\"")) ||
		    lab_buf_puts(b, "?>\n"))
			return LAB_ENOMEM;
	}
	/* Top-level nodes one per line, as libxml2 writes them: the text
	 * between them is not part of the document. */
	for (n = doc->node.first; n != NULL; n = n->next)
		if (subtree(b, n) != LAB_OK || lab_buf_putc(b, '\n') != LAB_OK)
			return LAB_ENOMEM;
	return LAB_OK;
}

int dom_serialize(const dom_node *n, lab_buf *out, lab_err *err)
{
	int rc = n->type == DOM_DOCUMENT ? document(out, n->doc)
					 : subtree(out, n);

	if (rc != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory while serializing");
	return LAB_OK;
}
