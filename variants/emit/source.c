/*
 * source.c - emit=source: the bytes dom_replace_parsed took are kept and
 * written back for the content they were parsed into while the document
 * is unchanged (decrypted plaintext: a copy instead of a walk), and a
 * digest takes them where the parser found them canonical (dom/kept.c).
 * A parsed document is not asked for its own canonical form.
 */
#include "dom/emit.h"

const char dom__emit_choice[] = "source";

void dom__emit_keep(dom_doc *doc, const dom_node *el, lab_buf *text,
		    size_t at, size_t len, int exact, const dom_canon *canon)
{
	dom__emit_store(doc, el, text, at, len, exact, canon);
}

dom_canon *dom__emit_question(dom_canon *q)
{
	(void)q;
	return NULL;
}
