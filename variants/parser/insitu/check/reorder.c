/*
 * reorder.c - the check pass's CANON note: whether the bytes are their own
 * exclusive canonical form but for the order of attributes, and the
 * tags put in C14N's order -- in the canonical copy during the pass
 * (tee.c), or in place after it (dom__insitu_order_in_place).
 *
 * Map:
 *   dom__check_note_attr,       the note after an attribute and after
 *   note_prefix, prefix_of,     a start tag: order, prefixes used
 *   dom__check_canon_tag
 *   c14n_attr_order             attribute names in C14N's order
 *   note_tag, reorder           a tag's order, noted for in place or
 *                               written into the copy
 *   record_piece_starts,        a record's tags to put in order, found
 *   record_piece_at, add_perm,  in its pieces
 *   canon_attrs,
 *   dom__check_record_canon,
 *   dom__check_record_reorder
 *   move_in_order, order_tag,   the noted tags put in order in place
 *   order_noted,
 *   dom__insitu_order_in_place
 * Invariants: the note is cleared, never set, when a tag cannot be put
 * in order (no memory, more than CANON_PERM attributes, a prefixed
 * attribute); a tag noted in tags[] was read canonical but for its
 * attributes' order, so reordering moves whole attributes and never
 * changes a byte count, and it holds nothing the parse rewrites, so
 * the input as it came (in->orig) has the same bytes at its offset.
 * Not for: the bindings the canonical form renders (canon.c one folder
 * up, dom/deferred.c).
 */
#include "variants/parser/insitu/check/check.h"

#include "dom/permute.h"

/* The CANON note after the i-th attribute of t, named s[0..len) (prefix_len:
 * its prefix's length) and ending at end: an attribute with a prefix,
 * whose namespace orders it, is left to the walk. */
void dom__check_note_attr(checker *c, tag_seen *t, size_t i, const char *s,
			  uint32_t len, uint32_t prefix_len, const char *end)
{
	if (prefix_len > 0 || i >= CANON_PERM) {
		c->notes &= ~NOTE_CANON;
		return;
	}
	if (i > 0 && !in_order(t->attr_name[i - 1], t->attr_len[i - 1], s, len))
		t->unsorted = 1;
	t->attr_name[i] = s;
	t->attr_len[i] = len;
	t->attr_end[i] = end;
}

/* The CANON note after an element name with the prefix `prefix` (NULL:
 * none, the default namespace): the prefix is added to those the
 * caller checks, of which it holds DOM__CANON_PREFIXES. */
static void note_prefix(checker *c, const char *prefix)
{
	check_canon *k = c->canon;
	size_t i;

	for (i = 0; i < k->n; i++)
		if (k->prefix[i] == prefix)
			return;
	if (k->n == DOM__CANON_PREFIXES)
		c->notes &= ~NOTE_CANON;
	else
		k->prefix[k->n++] = prefix;
}

/* The prefix (interned; NULL: none) of the element name qname[0..qlen),
 * found bound when it was read. */
static const char *prefix_of(const checker *c, const char *qname,
			     size_t qlen)
{
	const parser *ps = c->ps;
	const char *colon = memchr(qname, ':', qlen);
	size_t n = colon != NULL ? (size_t)(colon - qname) : 0, i;

	if (n == 0)
		return NULL;
	if (n == 3 && memcmp(qname, "xml", 3) == 0)
		return ps->doc->xml_prefix;
	for (i = ps->nbinds; i-- > 0;) {
		const char *p = ps->binds[i].prefix;

		if (p != NULL && dom_names_len(p) == n &&
		    memcmp(p, qname, n) == 0)
			return p;
	}
	return NULL;
}

/* perm: the n <= CANON_PERM unprefixed attribute names s[i][0..len[i])
 * in C14N's order, as their indexes (an insertion sort: a tag has a few). */
static void c14n_attr_order(uint8_t *perm, const char *const *s,
		       const uint32_t *len, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		uint8_t x = (uint8_t)i;

		for (j = i; j > 0 && in_order(s[x], len[x], s[perm[j - 1]],
					     len[perm[j - 1]]);
		     j--)
			perm[j] = perm[j - 1];
		perm[j] = x;
	}
}

/*
 * An in_place pass's tag to put in order, noted for after the pass: its
 * name ends at name_end, its n attributes at ends[0..n), perm their
 * order.  Noted as the name's end's offset in the text (4 bytes), n,
 * perm and each end's distance from name_end (2 bytes each), so that
 * the reordering is copies; a tag whose attributes take more than 64 KB
 * is noted with n as TAG_LONG and read again then.  0 for no memory,
 * which ends the note.
 */
enum { TAG_LONG = 0xff };

static int note_tag(checker *c, const char *name_end, const char *const *ends,
		    const uint8_t *perm, size_t n)
{
	check_canon *k = c->canon;
	dom_feed *feed = c->ps->doc->feed;
	size_t len = (size_t)(ends[n - 1] - name_end), i;
	uint32_t at = (uint32_t)(name_end - c->ps->in.text);
	uint16_t e[CANON_PERM];
	uint8_t *o;

	if (len > UINT16_MAX)
		n = TAG_LONG;
	if (grow((void **)&k->tags, &k->captags,
		 k->ntags + 5 + (n == TAG_LONG ? 0 : 3 * n), 1) != 0)
		return 0;
	o = k->tags + k->ntags;
	memcpy(o, &at, 4);
	o[4] = (uint8_t)n;
	o += 5;
	for (i = 0; n != TAG_LONG && i < n; i++) {
		e[i] = (uint16_t)(ends[i] - name_end);
		o[i] = perm[i];
		memcpy(o + n + 2 * i, &e[i], 2);
	}
	k->ntags = (size_t)(o - k->tags) + (n == TAG_LONG ? 0 : 3 * n);
	/* A parse for signing tells another thread as it goes. */
	if (feed != NULL && n == TAG_LONG)
		dom__feed_fail(feed, at, at + len);
	else if (feed != NULL)
		dom__feed_tag(feed, at, perm, e, n);
	return 1;
}

/*
 * The CANON note's copy of the tag whose name ends at name_end, its
 * attributes (t) out of order: written in C14N's order into the
 * canonical copy (tee.c).  A tag the shape sh read whole takes the order
 * worked out for the same attributes before.  0: no memory, which ends
 * the note.
 */
static int reorder(checker *c, const shape *sh, const char *name_end,
		   const tag_seen *t)
{
	uint8_t perm[CANON_PERM];
	size_t k = sh != NULL ? (size_t)(sh - c->shapes) : 0;
	int whole = sh != NULL && t->name_bits == 0;

	if (whole && c->perm_n[k] == t->n) {
		memcpy(perm, c->perm[k], t->n);
	} else {
		c14n_attr_order(perm, t->attr_name, t->attr_len, t->n);
		if (whole) {
			memcpy(c->perm[k], perm, t->n);
			c->perm_n[k] = (uint8_t)t->n;
		}
	}
	if (c->canon->in_place)
		return note_tag(c, name_end, t->attr_end, perm, t->n);
	return dom__insitu_own_permute(c->ps, name_end, t->attr_end, perm,
				       t->n);
}

/* Whether the CANON note holds after the start tag whose name is
 * qname[0..name_end), with the attributes t (empty: an empty-element
 * tag, which C14N writes <a></a>). */
int dom__check_canon_tag(checker *c, const shape *sh, const char *qname,
			 const char *name_end, const tag_seen *t, int empty)
{
	if (empty)
		return 0;
	note_prefix(c, prefix_of(c, qname, (size_t)(name_end - qname)));
	return !t->unsorted ||
	       (c->canon->reorder && reorder(c, sh, name_end, t));
}

/* at[i]: where piece i of r starts in the element s[0..) r was taken
 * from. */
static void record_piece_starts(const record *r, const char *s, const char **at)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		at[i] = s;
		s += r->len[i];
		if (r->after[i] == RUN_VALUE)
			s = plain_value(s);
		else if (r->after[i] == RUN_TEXT)
			s = plain_text(s);
	}
}

/* The piece of r whose fixed bytes hold x, their starts at: its index,
 * or r->n where none does. */
static size_t record_piece_at(const record *r, const char *const *at,
			      const char *x)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (x >= at[i] && x < at[i] + r->len[i])
			break;
	return i;
}

/* The tag of r whose name ends at name_end and whose n attributes are
 * named cs[i][0..cl[i]) and end at ce[i], at in r->perm: 0 when r holds
 * RECORD_PERMS. */
static int add_perm(record *r, const char *const *at, const char *name_end,
		    const char *const *cs, const uint32_t *cl,
		    const char *const *ce, size_t n)
{
	record_perm *m = &r->perm[r->nperm];
	size_t i, k;

	if (r->nperm == RECORD_PERMS)
		return 0;
	k = record_piece_at(r, at, name_end);
	if (k == r->n)
		return 0;
	m->name_piece = (uint8_t)k;
	m->name_off = (uint8_t)(name_end - at[k]);
	for (i = 0; i < n; i++) {
		/* The closing quote starts the piece after the value. */
		k = record_piece_at(r, at, ce[i] - 1);
		if (k == r->n || at[k] != ce[i] - 1)
			return 0;
		m->end_piece[i] = (uint8_t)k;
	}
	m->n = (uint8_t)n;
	c14n_attr_order(m->perm, cs, cl, n);
	r->nperm++;
	return 1;
}

/*
 * The attributes of a tag the CANON note found canonical but for their
 * order, from p (where its name ends) on: one space, an unprefixed name,
 * '="', a value without a '"' and '"' each.  Their names cs[i][0..cl[i])
 * and ends ce[i] for i < *n; past the last, or NULL where there are more
 * than CANON_PERM or one does not close before e.
 */
static const char *canon_attrs(const char *p, const char *e,
			       const char **cs, uint32_t *cl,
			       const char **ce, size_t *n)
{
	for (*n = 0; *p == ' '; (*n)++) {
		const char *eq = memchr(p, '=', (size_t)(e - p));

		if (*n == CANON_PERM || eq == NULL)
			return NULL;
		cs[*n] = p + 1;
		cl[*n] = (uint32_t)(eq - p - 1);
		p = memchr(eq + 2, '"', (size_t)(e - eq - 2));
		if (p == NULL)
			return NULL;
		ce[*n] = ++p;
	}
	return p;
}

/*
 * The tags of the record r, taken from s[0..e - s) while the CANON note
 * held, whose attributes C14N puts in another order: into r->perm.  The
 * note held, so each tag is as C14N writes it but for that order: the
 * name, then for each attribute one space, an unprefixed name, '="', a
 * value without a quote and '"'; and every '<' starts a tag, plain runs
 * holding none.  0 where r has more such tags than RECORD_PERMS.
 */
int dom__check_record_canon(record *r, const char *s, const char *e)
{
	const char *at[RECORD_SPANS], *p = s;

	record_piece_starts(r, s, at);
	r->nperm = 0;
	while ((p = memchr(p, '<', (size_t)(e - p))) != NULL) {
		const char *cs[CANON_PERM], *ce[CANON_PERM], *name_end;
		uint32_t cl[CANON_PERM];
		size_t n, i;

		if (*++p == '/')
			continue;
		name_end = p + strcspn(p, " >");
		p = canon_attrs(name_end, e, cs, cl, ce, &n);
		if (p == NULL)
			return 0;
		for (i = 1;
		     i < n && in_order(cs[i - 1], cl[i - 1], cs[i], cl[i]);
		     i++)
			;
		if (i < n && !add_perm(r, at, name_end, cs, cl, ce, n))
			return 0;
	}
	return 1;
}

/*
 * The CANON note's copy of an element read as the record r, its pieces
 * starting at at: each tag r puts in order, written in order into the
 * canonical copy (tee.c), as reorder() does for a tag read the general
 * way.  0: no memory, which ends the note.
 */
int dom__check_record_reorder(checker *c, const record *r,
			      const char *const *at)
{
	size_t i, k;

	for (i = 0; i < r->nperm; i++) {
		const record_perm *m = &r->perm[i];
		const char *ends[CANON_PERM];

		for (k = 0; k < m->n; k++)
			ends[k] = at[m->end_piece[k]] + 1;
		if (c->canon->in_place) {
			if (!note_tag(c, at[m->name_piece] + m->name_off, ends,
				      m->perm, m->n))
				return 0;
			continue;
		}
		if (!dom__insitu_own_permute(c->ps,
					     at[m->name_piece] + m->name_off,
					     ends, m->perm, m->n))
			return 0;
	}
	return 1;
}

/*
 * The tag whose name ends at the text offset at, its n attributes ending
 * at end[i] bytes from there, put in the order perm where it stands in
 * the text.  The bytes come from the input as it came (in->orig, which
 * nothing rewrites and which holds the same tag at the same offset: a
 * canonical tag has nothing the parse normalizes), so no copy of the tag
 * is made first, or read back.
 */
static void move_in_order(const dom_insitu_input *in, size_t at,
			  const uint8_t *perm, const size_t *end, size_t n)
{
	if (n == 0)
		return;
	dom__permute_attrs(in->text + at, in->orig + at, perm, end, n);
}

/*
 * The tag whose name ends at the text offset at put in C14N's order
 * where it stands.  The pass found it canonical but for that order
 * (canon_attrs reads it whole: at most CANON_PERM attributes, each
 * closed before the input's end).
 */
static void order_tag(const dom_insitu_input *in, size_t at)
{
	const char *cs[CANON_PERM], *ce[CANON_PERM], *p = in->orig + at;
	uint32_t cl[CANON_PERM];
	uint8_t perm[CANON_PERM];
	size_t end[CANON_PERM], n, i;

	if (canon_attrs(p, in->orig + in->len, cs, cl, ce, &n) == NULL)
		return;
	c14n_attr_order(perm, cs, cl, n);
	for (i = 0; i < n; i++)
		end[i] = (size_t)(ce[i] - p);
	move_in_order(in, at, perm, end, n);
}

/* The tag whose name ends at the text offset at, noted with its order
 * perm and its attributes' ends (2-byte values, bytes from there), put
 * in that order. */
static void order_noted(const dom_insitu_input *in, size_t at,
			const uint8_t *perm, const uint8_t *ends, size_t n)
{
	size_t end[CANON_PERM];

	dom__permute_ends(end, ends, n);
	move_in_order(in, at, perm, end, n);
}

void dom__insitu_order_in_place(parser *ps, const check_canon *canon)
{
	size_t i = 0;

	while (i < canon->ntags) {
		const uint8_t *t = canon->tags + i;
		uint32_t at;
		size_t n = t[4];

		memcpy(&at, t, 4);
		if (n == TAG_LONG) {
			order_tag(&ps->in, at);
			i += 5;
			continue;
		}
		order_noted(&ps->in, at, t + 5, t + 5 + n, n);
		i += 5 + 3 * n;
	}
}
