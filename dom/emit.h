/*
 * emit.h - the `emit` axis: what dom_serialize writes for content that
 * was parsed from bytes the document took (dom_replace_parsed) and has
 * not changed since.
 *
 * `tree` writes those nodes like any others and wipes the bytes at once.
 * `source` keeps the bytes and writes them back in place of a walk over
 * the nodes: a copy instead of a second pass over, say, a 2 MB decrypted
 * Body.  They stand for the content only while the document's change
 * counter (dom__touch) stands where it stood when they were kept; any
 * insertion, removal or attribute or namespace change anywhere ends that.
 * Under `source` the bytes also stand in for the content in a digest of
 * the element (dom_canonical_content) when the parser found them
 * canonical.
 * Implementations: variants/emit/{tree,source}.c.
 * Not for: whole documents, whose input is the caller's (and which the
 * insitu parser rewrites in its copy).
 */
#ifndef DOM_EMIT_AXIS_H
#define DOM_EMIT_AXIS_H

#include "dom/internal.h"

/*
 * Takes *text (left empty): its `len` bytes at `at` are all of el's
 * content, as just parsed; `canonical`: the parser found them to be that
 * content's exclusive canonical form with el as the apex (dom/parser.h).
 */
void dom__emit_keep(dom_doc *doc, const dom_node *el, lab_buf *text,
		    size_t at, size_t len, int canonical);

/*
 * The bytes to write for the content of *el, or NULL (then *el is NULL);
 * *canonical, unless canonical is NULL, what dom__emit_keep was told.
 */
const char *dom__emit_bytes(const dom_doc *doc, const dom_node **el,
			    size_t *len, int *canonical);

/* Lets go of what dom__emit_keep kept; at dom_doc_free. */
void dom__emit_release(dom_doc *doc);

/* The bytes may be decrypted plaintext: wiped before they are freed. */
static inline void dom__emit_wipe(lab_buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->len);
	lab_buf_free(b);
}

extern const char dom__emit_choice[];

#endif
