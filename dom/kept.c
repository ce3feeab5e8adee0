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
 * insitu parser's differential fuzzing against the general parser checks.
 *
 * A digest may take the bytes for the content too, but only when the
 * parser proved them to be the content's exclusive canonical form with
 * the element as the apex (dom/parser.h): then they are, byte for byte,
 * what a walk over the nodes would produce while nothing inside the
 * element changes and the apex's context is the one they assume, which
 * the digest checks (dom_canon_dep).  So a change ends their standing
 * for a digest only where it reaches inside the element.
 *
 * The insitu parser leaves a gap in its copy for content it deferred
 * (build=deferred): a parse that only forwards a message pays nothing
 * for it.  The first digest that asks for the bytes fills the gaps from
 * the unbuilt content, which the parser's check pass reads again for its
 * canonical form (dom__deferred_canon); where one cannot be filled, the
 * bytes go, and the digest walks.  A digest that streams (wss/c14n.c's
 * wss_c14n_pieces) takes them in pieces instead of a filled copy: the
 * kept runs as they are, and each gap's form through a writer's window
 * (dom__emit_canonical_write), so a 2 MB gap never becomes a 2 MB
 * buffer.  A gap found not canonical there ends the bytes' standing as
 * a failed fill does, and the caller discards what it was handed.
 * A parse for signing (dom_parse_signing) put a gap's content in
 * canonical order where it stands, taking its dependencies then: such a
 * gap is its bytes, handed on without a copy or a second read, while its
 * element is unbuilt.
 */
#include <string.h>

#include "dom/deferred.h"
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
	lab_free(k->gaps);
	k->gaps = NULL;
	k->ngaps = k->gapped = 0;
}

/* The gaps of canon, copied into k; 0: no memory. */
static int take_gaps(dom_kept *k, const dom_canon *canon)
{
	size_t i;

	if (canon->ngaps == 0)
		return 1;
	k->gaps = lab_malloc(canon->ngaps * sizeof *k->gaps);
	if (k->gaps == NULL)
		return 0;
	memcpy(k->gaps, canon->gaps, canon->ngaps * sizeof *k->gaps);
	k->ngaps = canon->ngaps;
	for (i = 0; i < k->ngaps; i++)
		k->gapped += k->gaps[i].len;
	return 1;
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
		      ? lab_realloc(k->buf.data, k->buf.len + 1)
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
	k->canonical = canon != NULL && canon->ok && take_gaps(k, canon);
	k->ndeps = 0;
	if (k->canonical) {
		k->ndeps = canon->ndeps;
		memcpy(k->deps, canon->deps, k->ndeps * sizeof *k->deps);
	}
}

size_t dom__emit_canonical_len(const dom_doc *doc)
{
	const dom_kept *k = &doc->kept;

	return k->el != NULL && k->canonical ? k->len + k->gapped : 0;
}

/* Gap g's canonical form appended to out (room reserved): its bytes as
 * they stand where the parse made them so, else the check pass's. */
static int fill_gap(dom_doc *doc, dom_kept *k, const dom_canon_gap *g,
		    lab_buf *out)
{
	const char *ready = dom__deferred_ready(doc, g);

	if (ready == NULL)
		return dom__deferred_canon(doc, k->el, g, out, k->deps,
					   &k->ndeps);
	out->len = (size_t)(lab_copy(out->data + out->len, ready, g->len) -
			    out->data);
	return 1;
}

/*
 * The kept bytes with their gaps filled, in a buffer of their own that
 * replaces them: 1; 0 when a gap cannot be filled (or no memory).
 */
static int fill(dom_doc *doc, dom_kept *k)
{
	lab_buf out = LAB_BUF_INIT;
	const char *in = k->buf.data + k->at;
	size_t from = 0, i;

	if (lab_buf_reserve_exact(&out, k->len + k->gapped + 1) != LAB_OK)
		return 0;
	for (i = 0; i < k->ngaps; i++) {
		const dom_canon_gap *g = &k->gaps[i];

		out.len = (size_t)(lab_copy(out.data + out.len, in + from,
					    g->at - from) -
				   out.data);
		from = g->at;
		if (!fill_gap(doc, k, g, &out)) {
			lab_buf_free(&out);
			return 0;
		}
	}
	out.len = (size_t)(lab_copy(out.data + out.len, in + from,
				    k->len - from) -
			   out.data);
	lab_buf_free(&k->buf);
	lab_free(k->gaps);
	k->gaps = NULL;
	k->ngaps = k->gapped = 0;
	k->buf = out;
	k->at = 0;
	k->len = out.len;
	return 1;
}

/* The canonical bytes' standing ends: not for a digest, not for the
 * serializer. */
static void drop(dom_kept *k)
{
	let_go(k);
	k->el = NULL;
	k->canonical = 0;
}

/* Gap g's canonical form to write(ctx, ...) through a window: 1; 0 when
 * it is not canonical (or no memory); -1 when the writer failed. */
static int write_gap(dom_doc *doc, dom_kept *k, const dom_canon_gap *g,
		     size_t window, lab_buf_write_fn write, void *ctx)
{
	const char *ready = dom__deferred_ready(doc, g);
	lab_buf w = LAB_BUF_INIT;
	int ok;

	/* Made canonical by the parse: handed on as they stand. */
	if (ready != NULL)
		return write(ctx, ready, g->len) == 0 ? 1 : -1;
	ok = lab_buf_init_writer(&w, window, write, ctx) == LAB_OK &&
		 dom__deferred_canon(doc, k->el, g, &w, k->deps, &k->ndeps) &&
		 lab_buf_flush(&w) == LAB_OK;

	if (!ok && lab_buf_error(&w) != LAB_OK)
		ok = -1;
	lab_buf_free(&w);
	return ok;
}

const dom_canon_dep *dom__emit_canonical_peek(const dom_doc *doc,
					      const dom_node *el, size_t *len,
					      size_t *ndeps)
{
	const dom_kept *k = &doc->kept;

	if (k->el != el || !k->canonical)
		return NULL;
	*len = k->len + k->gapped;
	*ndeps = k->ndeps;
	return k->deps;
}

int dom__emit_canonical_write(dom_doc *doc, const dom_node *el,
			      size_t window, lab_buf_write_fn write,
			      void *ctx, size_t *ndeps)
{
	dom_kept *k = &doc->kept;
	const char *in = k->buf.data + k->at;
	size_t from = 0, i;
	int ok = 1;

	if (k->el != el || !k->canonical)
		return 0;
	for (i = 0; i < k->ngaps && ok == 1; i++) {
		const dom_canon_gap *g = &k->gaps[i];

		if (g->at > from && write(ctx, in + from, g->at - from) != 0)
			return -1;
		from = g->at;
		ok = write_gap(doc, k, g, window, write, ctx);
	}
	if (ok == 0)
		drop(k);
	if (ok != 1)
		return ok;
	if (k->len > from && write(ctx, in + from, k->len - from) != 0)
		return -1;
	*ndeps = k->ndeps;
	return 1;
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
	if (inside)
		drop(k);
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

const char *dom__emit_canonical(dom_doc *doc, const dom_node *el,
				size_t *len, const dom_canon_dep **deps,
				size_t *ndeps)
{
	dom_kept *k = &doc->kept;

	if (k->el == el && k->canonical && k->ngaps > 0 && !fill(doc, k))
		drop(k);
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
