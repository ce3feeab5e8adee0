/*
 * names.c - the check pass's name memos: the names it has read, by their
 * spelling, and the attribute names each start tag had last (its shape),
 * with the vector windows that read a shaped tag's values.
 *
 * A payload repeats a few names and a few tags: a name is recognized by
 * one compare of its remembered spelling (name_at, check.h), a tag by a
 * compare per attribute name, its values' ends found from a window of
 * bytes classified 16 or 32 at a time.
 * Map:
 *   scan, dom__check_name_miss  a name read the slow way into its slot
 *   dom__check_prefix_uri       a name's prefix's binding, kept in it
 *   window_at(32), value_in,    the values of a shaped tag from windows
 *   shape_value, stops_of,
 *   shape_read_windowed
 *   shape_read_as and           the shape followed as far as the text
 *   dom__check_shape_read(_canon) follows it
 *   attr_reread,                the uniqueness of a tag's attributes by
 *   dom__check_attrs_unique     name and by (namespace, local name)
 *   dom__check_shape_remember   the tag just read kept as its shape
 * Invariants: a name in a slot is one scan() accepted (ASCII, within
 * max_name); a shape holds names that were bound, unique and no
 * declarations when it was read; what a shape or a window reads is what
 * value() would read, and where it cannot tell, value() reads it.
 * Under plain nothing is kept, so every lookup misses.
 * Not for: the records (records.c) or the CANON note (reorder.c).
 */
#include "variants/parser/insitu/check/check.h"

/* scan_name's fast case (state.h) into m: past the ASCII QName at p,
 * or NULL. */
static const char *scan(const checker *c, const char *p, name *m)
{
	const char *s = p, *l;

	if (!dom__is((unsigned char)*p, IS_NSTART))
		return NULL;
	while (dom__is((unsigned char)*++p, IS_NAME))
		;
	m->prefix_len = 0;
	if (*p == ':' && dom__is((unsigned char)p[1], IS_NSTART)) {
		m->prefix_len = (uint32_t)(p - s);
		p++;
		while (dom__is((unsigned char)*++p, IS_NAME))
			;
	}
	if (*p == ':' || (unsigned char)*p >= 0x80 ||
	    (size_t)(p - s) > c->ps->lim->max_name)
		return NULL;
	m->s = s;
	m->len = (uint32_t)(p - s);
	m->uri = NULL;
	if (m->len < 16) {
		char b[16];

		memcpy(b, s, m->len);
		b[m->len] = '>';
		pattern_of(&m->end_tag, b, m->len + 1);
	}
	m->bit = bit_of(s, m->len);
	l = s + (m->prefix_len ? m->prefix_len + 1 : 0);
	m->flags = is_xmlns(s, m->len) ? XMLNS_NAME : 0;
	if (m->prefix_len && is_xmlns(s, m->prefix_len))
		m->flags |= XMLNS_PREFIX;
	if (p - l == 2 && l[0] == 'I' && (l[1] == 'd' || l[1] == 'D'))
		m->flags |= ID_NAME;
	return p;
}

/* name_at's miss: the name at *pp scanned into slot i. */
name *dom__check_name_miss(checker *c, const char **pp, size_t i)
{
	name *m = &c->names[i];
	const char *end;

	if ((c->names_held >> i & 1) == 0)
		m->last_child = NULL;
	end = scan(c, *pp, m);
	if (end == NULL) {
		c->names_held &= ~((uint64_t)1 << i);
		return NULL;
	}
	if (!c->plain)
		c->names_held |= (uint64_t)1 << i;
	*pp = end;
	return m;
}

/* The URI m's prefix is bound to, or NULL when it is unbound. */
const char *dom__check_prefix_uri(const checker *c, name *m)
{
	const parser *ps = c->ps;
	size_t i = ps->nbinds;

	if (m->uri != NULL)
		return m->uri;
	if (m->prefix_len == 3 && memcmp(m->s, "xml", 3) == 0)
		return m->uri = ps->doc->xml_ns;
	while (i-- > 0) {
		const char *p = ps->binds[i].prefix;

		if (p != NULL && dom_names_len(p) == m->prefix_len &&
		    memcmp(p, m->s, m->prefix_len) == 0)
			break;
	}
	if (i == (size_t)-1 || ps->binds[i].uri == ps->doc->empty)
		return NULL;
	return m->uri = ps->binds[i].uri;
}

/*
 * WINDOW bytes of the text read at once for the values of a tag the
 * shape foretells: where a value's run of plain bytes stops, at its
 * closing '"' (the shape's quote) or at a byte that needs a look (below
 * 0x20, 0x80 and above, '&', '<': the bytes that end skip_attr's run but
 * for the quotes, of which the other one needs none in a double-quoted
 * value).  A shaped tag's values are short, and value() reads each one
 * with a load that waits for the end of the one before; bits found in
 * one go leave only a shift and a count between one value and the next.
 */
enum { WINDOW = 64 };

typedef struct window {
	const char *b;      /* the first byte of the window */
	uint64_t stop;      /* bit i: b[i] ends a plain run */
} window;

/* Whether a window at s stays inside the text. */
static inline int window_fits(const checker *c, const char *s)
{
	return c->ps->end - s >= WINDOW;
}

#if defined(__SSE2__)
/* x for the WINDOW bytes at s, STEP bytes a load with the vector type T
 * and its intrinsics: the SSE2 and the AVX2 windows are this loop. */
#define WINDOW_AT(x, s, STEP, T, LOAD, SET1, LT, EQ, OR, MASK)            \
	do {                                                              \
		const T sp_ = SET1(0x20), dq_ = SET1('"'), amp_ = SET1('&'), \
			lt_ = SET1('<');                                  \
		size_t i_;                                                \
									  \
		(x)->b = (s);                                             \
		(x)->stop = 0;                                            \
		for (i_ = 0; i_ < WINDOW; i_ += (STEP)) {                 \
			T v_ = LOAD((const T *)(const void *)((s) + i_)); \
			/* Signed: 0x80 and above compare below 0x20. */  \
			T m_ = OR(OR(LT(v_, sp_), EQ(v_, dq_)),           \
				  OR(EQ(v_, amp_), EQ(v_, lt_)));         \
									  \
			(x)->stop |= (uint64_t)(uint32_t)MASK(m_) << i_;  \
		}                                                         \
	} while (0)

/* x, for the WINDOW bytes at s (window_fits). */
static inline void window_at(window *x, const char *s)
{
	WINDOW_AT(x, s, 16, __m128i, _mm_loadu_si128, _mm_set1_epi8,
		  _mm_cmplt_epi8, _mm_cmpeq_epi8, _mm_or_si128,
		  _mm_movemask_epi8);
}

#if LAB_X86_VECTORS

/* window_at with 32-byte loads, for CPUs with AVX2 (the caller checks):
 * with 16-byte loads the windows were a quarter of the pass's time. */
__attribute__((target("avx2"))) static void window_at32(window *x,
							const char *s)
{
	WINDOW_AT(x, s, 32, __m256i, _mm256_loadu_si256, _mm256_set1_epi8,
		  LAB_LT32, _mm256_cmpeq_epi8, _mm256_or_si256,
		  _mm256_movemask_epi8);
}
#endif

/* The plain value whose opening '"' is at q, ending in x: past its
 * closing quote, or NULL when x does not show it whole and plain. */
static inline const char *value_in(const checker *c, const window *x,
				   const char *q)
{
	size_t v = (size_t)(q + 1 - x->b), n;
	uint64_t stops;

	if (v >= WINDOW)
		return NULL;
	stops = x->stop >> v;
	if (stops == 0)
		return NULL;
	n = (size_t)__builtin_ctzll(stops);
	if (q[n + 1] != '"' || n > c->max_text)
		return NULL;
	return q + n + 2;
}
#endif

/* The value whose opening '"' is at q, of a tag the shape foretells:
 * past its closing quote, or NULL.  Read from x, moved on where it does
 * not show the value whole; value() reads what x cannot answer. */
static inline const char *shape_value(checker *c, window *x, const char *q)
{
#if defined(__SSE2__)
	const char *e = value_in(c, x, q);

	if (e != NULL)
		return e;
	if (x->b != q + 1 && window_fits(c, q + 1)) {
#if LAB_X86_VECTORS
		if (c->avx2)
			window_at32(x, q + 1);
		else
#endif
			window_at(x, q + 1);
		e = value_in(c, x, q);
		if (e != NULL)
			return e;
	}
#else
	(void)x;
#endif
	return value(c, q);
}

#if defined(__SSE2__)
/* Up to max - k more positions, from base, of the bits of w, into pos
 * from k: the count after them. */
static inline size_t stops_of(uint64_t w, size_t base, uint8_t *pos, size_t k,
			      size_t max)
{
	for (; w != 0 && k < max; w &= w - 1)
		pos[k++] = (uint8_t)(base + (size_t)__builtin_ctzll(w));
	return k;
}

/*
 * shape_read_as's first part, for a tag inside the two windows at *pp (after
 * the name): the positions of the stops there, taken in order, are each
 * value's opening and closing quote while the values are plain -- the
 * bytes of " name=" before an opening quote are none, and a stop in a
 * value is its end or a byte that needs a look -- so each attribute is
 * checked apart from the one before, not after its value was scanned.
 * The attributes it read, with *pp past them, where shape_read_as goes on
 * (and stops at once where the text left the shape).
 */
static inline __attribute__((always_inline)) size_t
shape_read_windowed(checker *c, const shape *sh, const char **pp, tag_seen *t,
	   const int canon)
{
	const char *p = *pp;
	uint8_t pos[2 * SHAPE];
	window x[2];
	size_t i, k, start = 0;

	for (i = 0; i < 2; i++) {
#if LAB_X86_VECTORS
		if (c->avx2)
			window_at32(&x[i], p + i * WINDOW);
		else
#endif
			window_at(&x[i], p + i * WINDOW);
	}
	k = stops_of(x[0].stop, 0, pos, 0, 2 * sh->n);
	k = stops_of(x[1].stop, WINDOW, pos, k, 2 * sh->n);
	for (i = 0; i < sh->n; i++) {
		const shape_attr *a = &sh->a[i];
		size_t o = start + a->len + 2, e;

		if (!matches(&a->at, p + start))
			break;
		/* pos[2 * i] is o: the quote the pattern ends with. */
		if (2 * i + 1 >= k)
			break;
		e = pos[2 * i + 1];
		if (p[e] != '"' || e - o - 1 > c->max_text)
			break;
		c->ids |= a->id;
		start = e + 1;
		if (canon) {
			if (a->prefixed)
				c->notes &= ~NOTE_CANON;
			t->attr_name[i] = a->s;
			t->attr_len[i] = a->len;
			t->attr_end[i] = p + start;
		}
	}
	*pp = p + start;
	return i;
}
#endif

/*
 * The attributes the shape foretells, from p (after the name) for as long
 * as the text follows it: one space, the name, '=', '"' and a value.
 * Where it stops (or NULL), the general loop takes over.  What it read
 * is unique, being part of a sequence that was; t->n counts it, and only
 * a general attribute after it makes start_tag() note its names.  With
 * canon, also each attribute's name and end for the CANON note, and
 * whether they are in order.
 */
static inline __attribute__((always_inline)) const char *
shape_read_as(checker *c, const shape *sh, const char *p, tag_seen *t,
	  const int canon)
{
	window x;
	size_t i = 0;

#if defined(__SSE2__)
	if (sh->n > 0 && c->ps->end - p >= 2 * WINDOW)
		i = shape_read_windowed(c, sh, &p, t, canon);
#endif
	/* Empty, at a byte no value starts at: the first value fills it. */
	x.b = p;
	x.stop = 0;
	for (; i < sh->n; i++) {
		const shape_attr *a = &sh->a[i];

		if (!matches(&a->at, p))
			break;
		c->ids |= a->id;
		p = shape_value(c, &x, p + a->len + 2);
		if (p == NULL)
			return NULL;
		if (canon) {
			if (a->prefixed)
				c->notes &= ~NOTE_CANON;
			t->attr_name[i] = a->s;
			t->attr_len[i] = a->len;
			t->attr_end[i] = p;
		}
	}
	t->n = i;
	if (canon)
		t->unsorted = i > c->sorted[sh - c->shapes];
	return p;
}

/* shape_read_as without the CANON note's bookkeeping. */
const char *dom__check_shape_read(checker *c, const shape *sh, const char *p,
				  tag_seen *t)
{
	return shape_read_as(c, sh, p, t, 0);
}

/* dom__check_shape_read() for the CANON note: a function of its own, so
 * that dom__check_shape_read() stays as it is without it. */
const char *dom__check_shape_read_canon(checker *c, const shape *sh,
					const char *p, tag_seen *t)
{
	return shape_read_as(c, sh, p, t, 1);
}

/* The attribute at p, read again for dom__check_attrs_unique(): past its
 * value. */
static const char *attr_reread(const checker *c, const char *p, name *m)
{
	p = scan(c, skip_ws(p), m);
	p = skip_ws(skip_ws(p) + 1);
	return strchr(p + 1, *p) + 1;
}

/*
 * Whether no two of the n attributes of the tag whose name ends at p
 * share a name, or a namespace and a local name: 1 when none do.  Asked
 * only when two names had the same bit or two have a prefix; the tag is
 * read again, as it was found well-formed.
 */
int dom__check_attrs_unique(const checker *c, const char *p, size_t n)
{
	name a[CHECK_ATTRS];
	size_t i, j;

	if (n > CHECK_ATTRS)
		return 0;
	for (i = 0; i < n; i++) {
		p = attr_reread(c, p, &a[i]);
		if (a[i].prefix_len > 0)
			dom__check_prefix_uri(c, &a[i]);
		for (j = 0; j < i; j++) {
			size_t oi = a[i].prefix_len ? a[i].prefix_len + 1 : 0,
			       oj = a[j].prefix_len ? a[j].prefix_len + 1 : 0;

			/* The same name has the same namespace (NULL
			 * without a prefix). */
			if (a[i].uri == a[j].uri &&
			    a[i].len - oi == a[j].len - oj &&
			    same_text(a[i].s + oi, a[j].s + oj, a[i].len - oi))
				return 0;
		}
	}
	return 1;
}

/* Keeps the attribute names of the tag just read (t->for_shape) as the shape
 * of its element el, spelled qname[0..qlen), unless an attribute's
 * name has taken el's slot since. */
void dom__check_shape_remember(checker *c, const name *el, const char *qname,
			       size_t qlen, const tag_seen *t)
{
	shape *sh = &c->shapes[el - c->names];
	char b[16];
	size_t i;

	if (c->plain || el->len != qlen || !same_text(el->s, qname, qlen))
		return;
	/* A name too long for a pattern ends the shape. */
	for (i = 0;
	     i < t->n && i < SHAPE && t->for_shape[i].len <= sizeof b - 3;
	     i++) {
		const shape_attr *r = &t->for_shape[i];

		sh->a[i] = *r;
		b[0] = ' ';
		memcpy(b + 1, r->s, r->len);
		b[r->len + 1] = '=';
		b[r->len + 2] = '"';
		pattern_of(&sh->a[i].at, b, r->len + 3);
	}
	sh->n = i;
	sh->owner = el->s;
	c->shapes_held |= (uint64_t)1 << (sh - c->shapes);
	c->perm_n[sh - c->shapes] = 0;
	/* Asked only while it matters: the note never comes back. */
	for (i = 0; (c->notes & NOTE_CANON) != 0 && i < sh->n; i++)
		if (sh->a[i].prefixed ||
		    (i > 0 && !in_order(sh->a[i - 1].s, sh->a[i - 1].len,
					sh->a[i].s, sh->a[i].len)))
			break;
	c->sorted[sh - c->shapes] = (uint8_t)i;
}
