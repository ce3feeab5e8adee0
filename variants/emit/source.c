/*
 * source.c - emit=source: the document keeps the bytes a fragment was
 * parsed from (one fragment: the last one kept), and the serializer
 * writes them for the element's content while the document is unchanged.
 *
 * Why it is sound: the bytes were parsed in the element's namespace
 * context into exactly the nodes the element holds, and the serializer
 * writes that context (the ancestors' start tags) from the same tree, so
 * a reader of the output parses the same nodes a second time.  It relies
 * on that reader parsing the bytes as our parser did, which is what the
 * insitu parser's differential fuzzing against libxml2 checks.
 *
 * A digest may take the bytes for the content too, but only when the
 * parser proved them to be their own exclusive canonical form in the
 * element's context (dom/parser.h): then they are, byte for byte, what a
 * walk over the nodes would produce, and nothing is left to trust.
 */
#include "dom/emit.h"

const char dom__emit_choice[] = "source";

void dom__emit_keep(dom_doc *doc, const dom_node *el, lab_buf *text,
		    size_t at, size_t len, int canonical)
{
	dom_kept *k = &doc->kept;
	char *fit;

	dom__emit_wipe(&k->buf);
	k->buf = *text;
	*text = (lab_buf)LAB_BUF_INIT;
	/* Kept as long as the document: without the slack of its growth
	 * (a 2 MB plaintext decoded into a buffer doubled to 4 MB).  If the
	 * shrink fails, the bytes stay where they were, slack and all. */
	fit = dom_realloc(k->buf.data, k->buf.len + 1);
	if (fit != NULL) {
		k->buf.data = fit;
		k->buf.cap = k->buf.len + 1;
	}
	k->el = el;
	k->at = at;
	k->len = len;
	k->gen = doc->gen;
	k->canonical = canonical;
}

const char *dom__emit_bytes(const dom_doc *doc, const dom_node **el,
			    size_t *len, int *canonical)
{
	const dom_kept *k = &doc->kept;

	if (k->el == NULL || k->gen != doc->gen) {
		*el = NULL;
		*len = 0;
		if (canonical != NULL)
			*canonical = 0;
		return NULL;
	}
	*el = k->el;
	*len = k->len;
	if (canonical != NULL)
		*canonical = k->canonical;
	return k->buf.data + k->at;
}

void dom__emit_release(dom_doc *doc)
{
	dom__emit_wipe(&doc->kept.buf);
	doc->kept.el = NULL;
}
