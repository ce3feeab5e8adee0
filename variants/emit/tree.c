/*
 * tree.c - emit=tree: content parsed from bytes the document took is
 * written from its nodes, like any other; the bytes are wiped and freed
 * as soon as they are parsed.
 */
#include "dom/emit.h"

const char dom__emit_choice[] = "tree";

void dom__emit_keep(dom_doc *doc, const dom_node *el, lab_buf *text,
		    size_t at, size_t len, int canonical)
{
	(void)doc;
	(void)el;
	(void)at;
	(void)len;
	(void)canonical;
	dom__emit_wipe(text);
}

const char *dom__emit_bytes(const dom_doc *doc, const dom_node **el,
			    size_t *len, int *canonical)
{
	(void)doc;
	*el = NULL;
	*len = 0;
	if (canonical != NULL)
		*canonical = 0;
	return NULL;
}

void dom__emit_release(dom_doc *doc)
{
	(void)doc;
}
