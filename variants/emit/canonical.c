/*
 * canonical.c - emit=canonical: source's keeping, and a parsed document
 * is asked for the exclusive canonical form of the content of each child
 * of its root element: the insitu parser writes it while it reads, where
 * that content is canonical but for the order of attributes, and keeps
 * the largest (the Body of a message to sign), so that signing it
 * digests those bytes instead of walking the nodes.  The parse pays for
 * it (a check per tag and a copy of the content) for every document,
 * signed or not.
 */
#include "dom/emit.h"

const char dom__emit_choice[] = "canonical";

void dom__emit_keep(dom_doc *doc, const dom_node *el, lab_buf *text,
		    size_t at, size_t len, int exact, const dom_canon *canon)
{
	dom__emit_store(doc, el, text, at, len, exact, canon);
}

dom_canon *dom__emit_question(dom_canon *q)
{
	return q;
}
