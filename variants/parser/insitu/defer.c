/*
 * defer.c - build=deferred's side of the insitu parser: an element at the
 * defer depth has its content checked without building it (check/) and
 * recorded for later (dom__insitu_defer, called by the building pass's
 * start tag), and the two entry points that come back to such content:
 * dom__parse_deferred builds it when it is first read, dom__parse_canon
 * makes its canonical form for a digest (dom/deferred.h).
 * Not for: the building pass itself (parse.c), or the records kept of
 * deferred content (dom/deferred.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dom/deferred.h"
#include "variants/parser/insitu/state.h"

/* A copy of binds[from..to) in the arena, as declarations. */
static const dom_nsdecl *copy_binds(parser *ps, size_t from, size_t to)
{
	dom_nsdecl *c;
	size_t i;

	if (to == from)
		return NULL;
	c = dom__arena_alloc(&ps->doc->arena, (to - from) * sizeof *c);
	if (c == NULL)
		return NULL;
	for (i = from; i < to; i++) {
		c[i - from].prefix = ps->binds[i].prefix;
		c[i - from].uri = ps->binds[i].uri;
	}
	return c;
}

/*
 * The ID index (dom/ids.c) looks for IDs only when the document has a
 * name record with the local name Id or ID, as every name read has one.
 * The check pass makes no records, so content it found an ID-like name
 * in gets both, unused: the index then looks, and builds that content.
 * 0: out of memory.
 */
static int id_names(parser *ps)
{
	const char *id = intern(ps, "Id", 2), *ID = intern(ps, "ID", 2);

	return id != NULL && ID != NULL &&
	       dom__name(ps->doc, NULL, NULL, id) != NULL &&
	       dom__name(ps->doc, NULL, NULL, ID) != NULL;
}

/* The check pass's canonical question: whether its tags may be put in
 * order (`reorder`), and then where they stand (`in_place`) or into the
 * copy. */
static void canon_ask(check_canon *k, int reorder, int in_place)
{
	memset(k, 0, sizeof *k);
	k->reorder = reorder;
	k->in_place = in_place;
}

/*
 * A parse for signing's feed (dom/feed.h) told about the content at
 * [start, end) that a check pass read: vouched for when its notes put
 * it in canonical order (`ordered`), else not -- what the pass noted
 * before it stopped need not be all, and content the building pass
 * reads instead is not noted at all (its end then unknown, end is
 * start + 1).
 */
static void feed_told(parser *ps, int ordered, size_t start, size_t end)
{
	dom_feed *feed = ps->doc->feed;

	if (feed != NULL && ordered)
		dom__feed_read_to(feed, end, 1);
	else if (feed != NULL)
		dom__feed_fail(feed, start, end);
}

/*
 * The element just opened at DEFER_DEPTH, its content starting at *pp
 * and its bindings before its start tag nbind: its content is checked
 * without building it (check/) and recorded, with *pp left at its end
 * tag's '<'.  When the check is not sure, the content is left to this
 * pass, which builds it at once as build=direct does and reports its
 * errors.  Siblings share the copy of the bindings around them.
 */
int dom__insitu_defer(parser *ps, char **pp, size_t nbind)
{
	const frame *f = &ps->stack[ps->depth];
	const char *end;
	dom_lazy z;
	/* A fragment's question is about its bytes as they are, and a
	 * receiver digests them next: the check pass answers it now. */
	int frag = ps->canon && ps->ask != NULL && ps->ask != ps->own;
	int own = ps->canon && ps->own != NULL && ps->ask == ps->own;
	/* So does a document's, parsed for signing: the digest is next. */
	int now = own && (ps->defer & DOM__DEFER_SIGNING) != 0;
	size_t start = (size_t)(*pp - ps->in.text);
	check_canon canon;
	int ok, ordered = 0;

	canon_ask(&canon, now, now);
	if (ps->doc->feed != NULL)
		dom__feed_read_to(ps->doc->feed, start, 0);
	ok = dom__insitu_check(ps, *pp, &end, &z.ids, &z.exact,
			       frag || now ? &canon : NULL);
	if (ok) {
		z.from = start;
		z.to = (size_t)(end - ps->in.text);
		*pp = ps->in.text + z.to;
	}
	/* Skipped content is a gap in a document's canonical copy (tee.c),
	 * which a digest fills: only a digest pays for its canonical form
	 * -- unless the parse, for signing, put it in order where it
	 * stands, its dependencies taken now. */
	if (ok && z.to > z.from && frag) {
		ps->canon = canon.ok && dom__insitu_canon_uses(ps, canon.prefix,
							       canon.n);
	} else if (ok && z.to > z.from && own) {
		ordered = now && canon.ok &&
			  dom__insitu_canon_uses(ps, canon.prefix, canon.n);
		if (ordered)
			dom__insitu_order_in_place(ps, &canon);
		ps->canon = dom__insitu_own_gap(ps, z.from, z.to, f->node,
						ordered);
	}
	feed_told(ps, ok && (ordered || z.to == z.from), start,
		  ok ? z.to : start + 1);
	lab_free(canon.tags);
	if (!ok || z.to == z.from)
		return LAB_OK;
	if (ps->outer_of != ps->stack[ps->depth - 1].node) {
		ps->outer = copy_binds(ps, 0, nbind);
		if (nbind > 0 && ps->outer == NULL)
			return nomem(ps);
		ps->outer_of = ps->stack[ps->depth - 1].node;
	}
	z.el = f->node;
	z.qname = f->qname;
	z.qlen = f->qlen;
	z.outer = ps->outer;
	z.nouter = nbind;
	z.own = copy_binds(ps, nbind, ps->nbinds);
	z.nown = ps->nbinds - nbind;
	if ((z.nown > 0 && z.own == NULL) ||
	    dom__deferred_add(ps->doc, &z) != LAB_OK ||
	    (z.ids && !id_names(ps)))
		return nomem(ps);
	return LAB_OK;
}

/* A parser for z's content in buf[0..len), with the bindings in scope
 * there; 0: no memory.  Its name memos are left as they were, for
 * memos_clear() before a tag is read. */
static int parser_for(parser *ps, dom_doc *doc, const dom_lazy *z,
		      char *buf, size_t len, const dom_limits *lim,
		      lab_err *err)
{
	size_t i;

	memset(ps, 0, offsetof(parser, memo));
	ps->doc = doc;
	ps->lim = lim;
	ps->err = err;
	ps->in.text = buf;
	ps->in.orig = buf;
	ps->in.len = len;
	ps->end = buf + len;
	if (grow((void **)&ps->binds, &ps->capbinds, z->nouter + z->nown + 1,
		 sizeof *ps->binds) != 0)
		return 0;
	for (i = 0; i < z->nouter + z->nown; i++) {
		const dom_nsdecl *b = i < z->nouter ? &z->outer[i]
						    : &z->own[i - z->nouter];

		ps->binds[i].prefix = b->prefix;
		ps->binds[i].uri = b->uri;
	}
	ps->nbinds = z->nouter + z->nown;
	return 1;
}

static void memos_clear(parser *ps)
{
	memset(ps->memo, 0, sizeof ps->memo);
	memset(ps->qnames, 0, sizeof ps->qnames);
}

int dom__parse_canon(dom_doc *doc, const dom_lazy *z, const char *buf,
		     size_t len, const dom_limits *lim, lab_buf *out,
		     const char **prefix, size_t *n)
{
	parser ps;
	check_canon canon;
	const char *end;
	int ids, exact, ok;

	*n = 0;
	/* The check pass only reads the text. */
	ok = parser_for(&ps, doc, z, (char *)(uintptr_t)buf, len, lim, NULL);
	if (ok) {
		ps.depth = 1;
		canon_ask(&canon, 1, 0);
		ps.own_out = *out;
		ps.own_from = ps.own_copied = z->from;
		ok = dom__insitu_check(&ps, buf + z->from, &end, &ids, &exact,
				       &canon) &&
		     canon.ok && dom__insitu_own_rest(&ps, z->to);
		*out = ps.own_out;
	}
	lab_free(ps.binds);
	if (!ok)
		return 0;
	memcpy(prefix, canon.prefix, canon.n * sizeof *prefix);
	*n = canon.n;
	return 1;
}

int dom__parse_deferred(dom_doc *doc, const dom_lazy *z, char *buf,
			size_t len, const dom_limits *lim, lab_err *err)
{
	parser ps;
	frame *f;
	char *p = buf + z->from;
	int rc = LAB_OK;

	if (!parser_for(&ps, doc, z, buf, len, lim, err)) {
		rc = nomem(&ps);
		goto out;
	}
	/* Text alone (a header block's value) reads no name: its end tag
	 * is compared with f->qname. */
	if (memchr(p, '<', z->to - z->from) != NULL)
		memos_clear(&ps);
	ps.stack = lab_malloc((lim->max_depth + 1) * sizeof *ps.stack);
	if (ps.stack == NULL) {
		rc = nomem(&ps);
		goto out;
	}
	/* The element is open at depth 1 (0 holds nothing): its end tag
	 * ends the loop, as the check pass read it. */
	ps.stack[0].node = NULL;
	ps.depth = 1;
	ps.rooted = 1;
	ps.one = 1;
	f = &ps.stack[1];
	f->node = z->el;
	f->last = NULL;
	f->qname = z->qname;
	f->qlen = z->qlen;
	f->nbind = z->nouter;
	rc = dom__insitu_content(&ps, p);
out:
	lab_free(ps.stack);
	lab_free(ps.binds);
	lab_free(ps.attrs);
	lab_free(ps.seen);
	return rc;
}
