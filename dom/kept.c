/*
 * kept.c - the bytes a document keeps for one element's content, for the
 * emit axis (dom/emit.h; emit=source and emit=canonical keep them):
 * the last bytes dom_replace_parsed took, or the larger of the insitu
 * parser's canonical forms, and the serializer writes them for the
 * element's content while the document is unchanged.
 *
 * Why it is sound: the bytes were parsed in the element's namespace
 * context into exactly the nodes the element holds, and the serializer
 * writes that context (the ancestors' start tags) from the same tree, so
 * a reader of the output parses the same nodes a second time.  It relies
 * on that reader parsing the bytes as our parser did, which is what the
 * insitu parser's differential fuzzing against libxml2 checks.
 *
 * A digest may take the bytes for the content too, but only when the
 * parser proved them to be the content's exclusive canonical form with
 * the element as the apex (dom/parser.h): then they are, byte for byte,
 * what a walk over the nodes would produce while nothing inside the
 * element changes and the apex's context is the one they assume, which
 * the digest checks (dom_canon_dep).  So a change ends their standing
 * for a digest only where it reaches inside the element.
 */
#include <string.h>

#include "dom/emit.h"

/* Bytes dom_replace_parsed took are decrypted plaintext: wiped.  The
 * insitu parser's canonical form is a copy of input the document's arena
 * holds unwiped anyway. */
static void let_go(dom_kept *k)
{
	if (k->exact)
		dom__emit_wipe(&k->buf);
	else
		lab_buf_free(&k->buf);
}

void dom__emit_store(dom_doc *doc, const dom_node *el, lab_buf *text,
		     size_t at, size_t len, int exact, const dom_canon *canon)
{
	dom_kept *k = &doc->kept;
	char *fit;

	let_go(k);
	k->buf = *text;
	*text = (lab_buf)LAB_BUF_INIT;
	/* Kept as long as the document: without the slack of its growth.
	 * If the shrink fails, the bytes stay where they were, slack and
	 * all; the document's own bytes (cap 0) are never resized. */
	fit = k->buf.cap != 0 || k->buf.data == NULL
		      ? dom_realloc(k->buf.data, k->buf.len + 1)
		      : NULL;
	if (fit != NULL) {
		k->buf.data = fit;
		k->buf.cap = k->buf.len + 1;
	}
	k->el = el;
	k->at = at;
	k->len = len;
	k->gen = doc->gen;
	k->exact = exact;
	k->canonical = canon != NULL && canon->ok;
	k->ndeps = 0;
	if (k->canonical) {
		k->ndeps = canon->ndeps;
		memcpy(k->deps, canon->deps, k->ndeps * sizeof *k->deps);
	}
}

size_t dom__emit_canonical_len(const dom_doc *doc)
{
	return doc->kept.el != NULL && doc->kept.canonical ? doc->kept.len : 0;
}

/* Whether n is el or inside it. */
static int within(const dom_node *n, const dom_node *el)
{
	for (; n != NULL; n = n->parent)
		if (n == el)
			return 1;
	return 0;
}

void dom__emit_changed(dom_doc *doc, const dom_node *n, int what)
{
	dom_kept *k = &doc->kept;
	int inside;

	if (k->el == NULL || !k->canonical)
		return;
	if (what == DOM__CHANGE_CHILDREN)
		inside = within(n, k->el);
	else if (what == DOM__CHANGE_OWN)
		inside = n != k->el && within(n, k->el);
	else /* the content loses n, or el leaves with n */
		inside = within(n->parent, k->el) || within(k->el, n);
	/* Then the bytes stand for nothing: not for a digest, and not for
	 * the serializer, whose count the change moves too.  Let go now:
	 * a send frees the Body's content before the largest buffers come. */
	if (inside) {
		let_go(k);
		k->el = NULL;
		k->canonical = 0;
	}
}

const char *dom__emit_bytes(const dom_doc *doc, const dom_node **el,
			    size_t *len)
{
	const dom_kept *k = &doc->kept;

	if (k->el == NULL || !k->exact || k->gen != doc->gen) {
		*el = NULL;
		*len = 0;
		return NULL;
	}
	*el = k->el;
	*len = k->len;
	return k->buf.data + k->at;
}

const char *dom__emit_canonical(const dom_doc *doc, const dom_node *el,
				size_t *len, const dom_canon_dep **deps,
				size_t *ndeps)
{
	const dom_kept *k = &doc->kept;

	if (k->el != el || !k->canonical) {
		*len = 0;
		*deps = NULL;
		*ndeps = 0;
		return NULL;
	}
	*len = k->len;
	*deps = k->deps;
	*ndeps = k->ndeps;
	return k->buf.data + k->at;
}

void dom__emit_release(dom_doc *doc)
{
	let_go(&doc->kept);
	doc->kept.el = NULL;
}
