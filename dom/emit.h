/*
 * emit.h - the `emit` axis: what dom_serialize writes for content that
 * was parsed from bytes the document took (dom_replace_parsed) and has
 * not changed since, and what a digest may take for content the parser
 * found canonical.
 *
 * `tree` writes those nodes like any others and wipes the bytes at once.
 * `source` keeps the bytes and writes them back in place of a walk over
 * the nodes: a copy instead of a second pass over, say, a 2 MB decrypted
 * Body.  They stand for the content only while the document's change
 * counter (dom__touch) stands where it stood when they were kept; any
 * insertion, removal or attribute or namespace change anywhere ends that.
 * Under `source` the bytes also stand in for the content in a digest of
 * the element (dom_canonical_content) when the parser found them
 * canonical.  For a digest, only a change inside the element ends
 * their standing (dom__emit_changed): what they take from outside, the
 * bindings at the apex, the digest checks itself (dom_canon_dep).
 * `canonical` is source's, and asks a document's parse for the canonical
 * form of the largest child of its root element (the Body of a message
 * to sign), which the insitu parser writes as it reads; under source
 * only the bytes dom_replace_parsed took are kept.
 * Choices: variants/emit/{tree,source,canonical}.c, each the code that
 * differs; the kept bytes, which tree never fills: dom/kept.c.
 * Not for: serializing a whole document, whose input is the caller's
 * (and which the insitu parser rewrites in its copy).
 */
#ifndef DOM_EMIT_AXIS_H
#define DOM_EMIT_AXIS_H

#include "dom/parser.h"

/* ---- what differs: each choice's code (variants/emit/) ---- */

/*
 * Takes *text (left empty): its `len` bytes at `at` are all of el's
 * content; `exact`: as dom_replace_parsed just parsed them (dom_serialize
 * may write them, and they are wiped when let go);
 * `canon`, unless NULL: canon->ok says they are that content's exclusive
 * canonical form with el as the apex, under canon->deps (dom/parser.h).
 * tree wipes them; source and canonical keep them (dom__emit_store).
 */
void dom__emit_keep(dom_doc *doc, const dom_node *el, lab_buf *text,
		    size_t at, size_t len, int exact, const dom_canon *canon);

/* The question a whole document's parse is asked (dom__parse_tree's
 * canon), with q as its room: canonical asks it (q), tree and source do
 * not (NULL). */
dom_canon *dom__emit_question(dom_canon *q);

/* ---- the kept bytes (dom/kept.c) ---- */

/* dom__emit_keep's arguments: keeps the bytes in place of any kept. */
void dom__emit_store(dom_doc *doc, const dom_node *el, lab_buf *text,
		     size_t at, size_t len, int exact, const dom_canon *canon);

/* How many bytes are kept for a digest (0: none): the insitu parser
 * keeps the larger of two contents. */
size_t dom__emit_canonical_len(const dom_doc *doc);

/* What changes at a node, for dom__emit_changed. */
enum {
	DOM__CHANGE_CHILDREN, /* children come or go */
	DOM__CHANGE_OWN,      /* its attributes or declarations */
	DOM__CHANGE_LEAVES    /* it is about to be unlinked from its parent */
};

/* Ends the kept bytes' standing for a digest when the content they
 * stand for changes with this. */
void dom__emit_changed(dom_doc *doc, const dom_node *n, int what);

/*
 * The bytes to write for the content of *el, or NULL (then *el is NULL).
 */
const char *dom__emit_bytes(const dom_doc *doc, const dom_node **el,
			    size_t *len);

/* The canonical bytes kept for el's content, under *deps; else NULL.
 * Gaps in them are filled first (a failure lets the bytes go). */
const char *dom__emit_canonical(dom_doc *doc, const dom_node *el,
				size_t *len, const dom_canon_dep **deps,
				size_t *ndeps);

/* Whether bytes are kept for el's content: their deps (so far), with
 * *len their count once the gaps are filled; else NULL. */
const dom_canon_dep *dom__emit_canonical_peek(const dom_doc *doc,
					      const dom_node *el, size_t *len,
					      size_t *ndeps);

/* The same bytes in pieces, gaps not filled: write(ctx, ...) gets the
 * kept runs and each gap's canonical form through a window of `window`
 * bytes, in order, and *ndeps is then the count of the deps (which the
 * gaps may have added to).  1: all of them; 0: not kept for el, or a gap
 * is not canonical, which lets the bytes go (what write got does not
 * count); -1: write failed. */
int dom__emit_canonical_write(dom_doc *doc, const dom_node *el,
			      size_t window, lab_buf_write_fn write,
			      void *ctx, size_t *ndeps);

/* Lets go of what dom__emit_keep kept; at dom_doc_free. */
void dom__emit_release(dom_doc *doc);

/* The bytes may be decrypted plaintext: wiped before they are freed.  A
 * buffer with bytes and cap 0 is the document's own memory
 * (dom_replace_parsed_held): wiped, never freed or resized. */
static inline void dom__emit_wipe(lab_buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->len);
	if (b->cap != 0)
		lab_buf_free(b);
	*b = (lab_buf)LAB_BUF_INIT;
}

extern const char dom__emit_choice[];

#endif
