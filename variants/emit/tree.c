/*
 * tree.c - emit=tree: content parsed from bytes the document took is
 * written from its nodes, like any other; the bytes are wiped and freed
 * as soon as they are parsed, and a digest always walks the nodes.  So
 * nothing is ever kept (dom/kept.c answers "none" throughout).
 */
#include "dom/emit.h"

const char dom__emit_choice[] = "tree";

void dom__emit_keep(dom_doc *doc, const dom_node *el, lab_buf *text,
		    size_t at, size_t len, int exact, const dom_canon *canon)
{
	(void)doc;
	(void)el;
	(void)at;
	(void)len;
	(void)exact;
	(void)canon;
	dom__emit_wipe(text);
}

dom_canon *dom__emit_question(dom_canon *q)
{
	(void)q;
	return NULL;
}
