/*
 * tee.c - the insitu parser's copy of a document's Body in canonical form
 * (emit=canonical): while a whole document is read, each child of the
 * root element is asked dom/parser.h's question about its content, and
 * its canonical form is written as the content is read -- the input as
 * it is, each start tag's attributes put in canonical order -- and kept
 * through the emit axis (dom/emit.h) when it is the largest so far.
 * Content the parse defers (build=deferred) is left as a gap, which a
 * digest fills (dom/kept.c) with what the check pass writes here when
 * it reads the content again for its canonical form (check/).
 * Not for: the question's checks on each tag and reference
 * (variants/parser/insitu/canon.c), or fragments, whose question the
 * caller asks.
 */
#include <string.h>

#include "dom/emit.h"
#include "dom/permute.h"
#include "util/nsuri.h"
#include "variants/parser/insitu/state.h"

/*
 * Room for the canonical form, taken at its first byte: it is the
 * content's bytes rearranged, each input byte once at most, so the rest
 * of the input is room enough -- less `gap`, the bytes of deferred
 * content about to be left out, where the first byte comes before a gap
 * (build=deferred: a Body whose content is one gap then takes room for
 * its tags, not for the message).
 * A buffer with a writer (a digest reading a gap's form in pieces,
 * dom/kept.c) gets room for the `need` bytes that follow instead: a tag
 * fits its window, which is handed on when full.
 */
static int own_room(parser *ps, size_t need, size_t gap)
{
	lab_buf *b = &ps->own_out;

	if (lab_buf_has_writer(b))
		return lab_buf_reserve(b, need) == LAB_OK;
	return b->cap != 0 ||
	       lab_buf_reserve_exact(b, ps->in.len - ps->own_from - gap) ==
		       LAB_OK;
}

/* Adds the input's bytes [from, to) (offsets into the text), room
 * taken. */
static inline __attribute__((always_inline)) void own_put(parser *ps,
							  size_t from,
							  size_t to)
{
	lab_buf *b = &ps->own_out;

	b->len = (size_t)(lab_copy(b->data + b->len, ps->in.orig + from,
				   to - from) -
			  b->data);
}

/* What the apex renders for prefix (dom/parse.c's rendered_by): its
 * binding in scope, unless it is xml or bound to nothing.  0: no room. */
static int own_renders(parser *ps, const char *prefix)
{
	dom_canon *q = ps->own;
	const char *uri;
	size_t i;

	if (prefix != NULL && prefix == ps->doc->xml_prefix)
		return 1;
	for (i = 0; i < q->nrendered; i++)
		if (ps->own_rendered[i].prefix == prefix)
			return 1;
	uri = dom__insitu_lookup(ps, prefix);
	if (uri == NULL || uri[0] == '\0')
		return 1;
	if (q->nrendered == CANON_APEX)
		return 0;
	ps->own_rendered[q->nrendered].prefix = prefix;
	ps->own_rendered[q->nrendered].uri = uri;
	q->nrendered++;
	return 1;
}

/* A child of the root element starts, its start tag (name, n attributes)
 * read up to p: the question about its content, with it as the apex. */
void dom__insitu_own_start(parser *ps, const dom_name *name, size_t n,
			   int empty, const char *p)
{
	dom_canon *q = ps->own;
	size_t i;

	ps->canon = 0;
	ps->ask = NULL;
	q->nrendered = 0;
	q->ndeps = 0;
	q->ngaps = 0;
	q->ok = 0;
	if (empty || !own_renders(ps, name->prefix))
		return;
	for (i = 0; i < n; i++)
		if (!ps->attrs[i].decl && ps->attrs[i].prefix != NULL &&
		    !own_renders(ps, ps->attrs[i].prefix))
			return;
	/* No canonical form with a relative namespace URI in scope; the
	 * ones declared inside are canon.c's. */
	for (i = 0; i < ps->nbinds; i++)
		if (lab_nsuri_relative(ps->binds[i].uri))
			return;
	q->rendered = ps->own_rendered;
	/* The memo's answers took the last apex's bindings. */
	memset(ps->canon_seen, 0, sizeof ps->canon_seen);
	ps->canon_lost = 0;
	ps->canon_binds = ps->nbinds;
	ps->own_from = ps->own_copied = (size_t)(p - ps->in.text);
	ps->own_out.len = 0;
	ps->own_ngaps = 0;
	ps->ask = q;
	ps->canon = 1;
}

/* Adds the input's bytes [own_copied, to), which may be most of it:
 * with a writer, handed on without a copy where they pass the window.
 * gap: own_room's. */
static int own_run(parser *ps, size_t to, size_t gap)
{
	lab_buf *b = &ps->own_out;
	size_t from = ps->own_copied;

	if (!lab_buf_has_writer(b)) {
		if (!own_room(ps, 0, gap))
			return 0;
		own_put(ps, from, to);
	} else if (to > from &&
		   lab_buf_put(b, ps->in.orig + from, to - from) != LAB_OK) {
		return 0;
	}
	ps->own_copied = to;
	return 1;
}

int dom__insitu_own_gap(parser *ps, size_t from, size_t to,
			const dom_node *el, int ready)
{
	dom_canon_gap *g;

	if (grow((void **)&ps->own_gaps, &ps->own_capgaps, ps->own_ngaps + 1,
		 sizeof *ps->own_gaps) != 0 ||
	    !own_run(ps, from, to - from))
		return 0;
	g = &ps->own_gaps[ps->own_ngaps++];
	g->at = ps->own_out.len;
	g->len = to - from;
	g->el = el;
	g->inside = ps->canon_binds;
	g->ready = ready;
	ps->own_copied = to;
	return 1;
}

int dom__insitu_own_rest(parser *ps, size_t to)
{
	return own_run(ps, to, 0);
}

/* The input up to name_end, then the 0 < n <= CANON_PERM attributes in
 * perm's order, the k-th ending at ends[k] (or, without ends, at the
 * parser's attrs[k].end), moved as reorder.c moves them in place
 * (dom__permute_attrs): inlined into each caller, which passes one or
 * the other. */
static inline __attribute__((always_inline)) int
permute(parser *ps, const char *name_end, const char *const *ends,
	const uint8_t *perm, size_t n)
{
	lab_buf *b = &ps->own_out;
	size_t at = (size_t)(name_end - ps->in.text), end[CANON_PERM], i;

	for (i = 0; i < n; i++)
		end[i] = (size_t)((ends != NULL ? ends[i] : ps->attrs[i].end) -
				  name_end);
	/* With a writer, the text before the tag first: room for the tag
	 * alone then keeps to the window. */
	if (lab_buf_has_writer(b) && !own_run(ps, at, 0))
		return 0;
	if (!own_room(ps, at + end[n - 1] - ps->own_copied, 0))
		return 0;
	own_put(ps, ps->own_copied, at);
	b->len += dom__permute_attrs(b->data + b->len, ps->in.orig + at, perm,
				     end, n);
	ps->own_copied = at + end[n - 1];
	return 1;
}

int dom__insitu_own_permute(parser *ps, const char *name_end,
			    const char *const *ends, const uint8_t *perm,
			    size_t n)
{
	return permute(ps, name_end, ends, perm, n);
}

int dom__insitu_own_reorder(parser *ps, const char *name_end, size_t n)
{
	return permute(ps, name_end, NULL, ps->canon_perm, n);
}

/* The child of the root element whose end tag starts at lt ("</") ends:
 * its content's canonical form, if it still is one, is kept when it is
 * larger than any kept before (the Body, not the Header). */
void dom__insitu_own_end(parser *ps, const char *lt)
{
	dom_canon *q = ps->own;
	size_t to = (size_t)(lt - ps->in.text);

	ps->ask = NULL;
	q->ok = ps->canon && !ps->canon_lost && to > ps->own_from &&
		to - ps->own_from > dom__emit_canonical_len(ps->doc) &&
		own_room(ps, 0, 0);
	ps->canon = 0;
	if (q->ok) {
		own_put(ps, ps->own_copied, to);
		q->gaps = ps->own_gaps;
		q->ngaps = ps->own_ngaps;
		dom__emit_keep(ps->doc, ps->stack[ps->depth].node,
			       &ps->own_out, 0, ps->own_out.len, 0, q);
	}
}
