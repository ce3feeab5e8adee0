/*
 * check.c - build=deferred's check pass: whether the content of a
 * deferred element is well-formed and within the limits, read without
 * making a node or interning a name (nor, at parse time, writing a
 * byte).
 *
 * It reads the forms a message's payload is made of: ASCII names,
 * attributes, text with references and UTF-8, nested elements.  On
 * those it checks what the building pass checks -- names, the end tag
 * matching, prefixes bound, no attribute twice by name or by
 * (namespace, local name), references to XML characters, UTF-8, no
 * "]]>" in text, no '<' in a value, depth, name, attribute and text
 * limits -- and answers yes.  On anything else it answers "not sure"
 * without a reason: an error, a number near a limit, a comment, CDATA
 * section or PI, a namespace declaration, a non-ASCII name, an end tag
 * with white space.  The caller then builds the content at once, with
 * the same code as build=direct, which reports any error with its own
 * message, line and column.  So a "yes" has to be sound and a "not sure"
 * costs only time: its answer never decides an error.
 *
 * With the yes come the two notes the records keep (dom/deferred.h):
 * whether an attribute inside is named like an ID, and whether the bytes
 * are, byte for byte, what dom_serialize writes for them (the building
 * pass's rules, so the answer is never "exact" where a build would not
 * serialize to the same bytes).  Where the caller asks, a third, the
 * CANON note: whether the bytes are their own exclusive canonical form
 * but for declarations, and which prefixes their element names use,
 * which the caller checks against the bindings rendered around them.
 * A digest filling a gap in a Body's canonical copy asks it with start
 * tags put in order into the copy (dom__parse_canon, tee.c); a
 * fragment's parse asks it of the bytes as they are (parse.c's defer,
 * canon.c's dom__insitu_canon_uses).
 * It is the whole parse of a payload no one reads, so it reads a
 * payload's repetition from memos (a name by its spelling and as the
 * name the last child of its parent's name had, a start tag's attribute
 * names as the last tag of its name had them), a repeated tag's values
 * from blocks of compares (shaped_run), and a repeated element whole, as
 * the fixed bytes of the last one read at its depth with plain values
 * and texts between them (record), the runs' ends read from a window of
 * bytes classified ahead where they can be (as_placed); docs/parser.md
 * has why each is sound.
 * Not for: building (parse.c), or deciding what the canonical form's
 * bindings are (canon.c, dom/deferred.c).
 */
#include "util/cpu.h"
#include "variants/parser/insitu/state.h"

#if defined(__x86_64__) && defined(__SSE2__) && \
    (defined(__GNUC__) || defined(__clang__))
#define CHECK_AVX2 1
#include <immintrin.h>
#else
#define CHECK_AVX2 0
#endif

/*
 * NAMES: the names remembered, and the start tags' shapes, by the
 * first bytes of the spelling.  SHAPE: the most attributes a shape
 * holds.  CHECK_ATTRS: the most attributes on a tag whose uniqueness the
 * pass works out (more is "not sure").
 */
enum { NAMES = 64, SHAPE = 8, CHECK_ATTRS = 32, CHECK_DEPTH = 64 };

/*
 * The notes a yes comes with about the bytes, cleared where the bytes
 * show otherwise: EXACT, dom_serialize's output; CANON, exclusive C14N's
 * (wss/c14n.c's, section 2.3 of the spec: no empty-element tags, one
 * space before each attribute, double quotes, attributes in order,
 * only the references C14N writes, no '>' or CR in text, no TAB, LF or
 * CR in a value).
 */
enum { NOTE_EXACT = 1, NOTE_CANON = 2 };

/*
 * Up to 16 bytes the text is expected to hold, as two words and the
 * masks of the bytes that count: one compare of two loads where
 * same_text() would loop.  The text's padding makes 16 bytes readable
 * from any position in it.
 */
typedef struct pattern {
	uint64_t w[2], m[2];
} pattern;

/* p from the n <= 16 bytes at s. */
static void pattern_of(pattern *p, const char *s, size_t n)
{
	unsigned char b[16], m[16];

	memset(b, 0, sizeof b);
	memset(m, 0, sizeof m);
	memcpy(b, s, n);
	memset(m, 0xff, n);
	memcpy(p->w, b, sizeof b);
	memcpy(p->m, m, sizeof m);
}

static inline int matches(const pattern *p, const char *at)
{
	uint64_t x[2];

	memcpy(x, at, sizeof x);
	return (((x[0] & p->m[0]) ^ p->w[0]) | ((x[1] & p->m[1]) ^ p->w[1])) ==
	       0;
}

/* The flags of a remembered name. */
enum {
	XMLNS_PREFIX = 1, /* its prefix is xmlns: a declaration, or an error */
	XMLNS_NAME = 2,   /* it is xmlns: as an attribute, a declaration */
	ID_NAME = 4       /* its local name is Id or ID (dom/ids.c's) */
};

/*
 * A name read before, remembered by its spelling in the text: a payload
 * repeats a few names, which are then recognized by one compare instead
 * of a scan, with what was worked out about them.
 */
typedef struct name {
	pattern end;      /* the name and '>', as an end tag has it (len < 16) */
	const char *s;    /* when checker.named has its bit */
	uint32_t len, plen; /* plen: the prefix's length, 0 for none */
	int flags;
	uint64_t bit;     /* one of 64, by the name's bytes alone */
	const char *uri;  /* the prefix's binding, once looked up */
	struct name *child; /* the last child's, of an element so named */
} name;

/* One attribute name of a start tag. */
typedef struct shape_attr {
	pattern at;       /* ' ', the name, '=', '"' (len <= 13) */
	const char *s;
	uint32_t len;
	uint8_t prefixed;
	uint8_t id;       /* named like an ID */
	uint64_t bit;
} shape_attr;

/*
 * The attribute names a start tag had, in order, the last time an
 * element whose name took the same slot (owner, its spelling) was read
 * and found well-formed: a payload repeats its tags, so the next one is
 * checked against this first.  Its names are bound, no declarations, and
 * unique as a sequence.
 */
typedef struct shape {
	const char *owner; /* when checker.shaped has its bit */
	size_t n;
	shape_attr a[SHAPE];
} shape;

/* The attributes of the start tag being read. */
typedef struct tag_seen {
	uint64_t bits;    /* their names' bits */
	int again;        /* a bit met twice: the same name, perhaps */
	size_t n, prefixed;
	shape_attr rec[SHAPE]; /* the first SHAPE, for the shape */
	/* For the CANON note: whether the attributes are out of C14N's
	 * order, and each one's name and end (the first CANON_PERM). */
	int unsorted;
	const char *cs[CANON_PERM], *ce[CANON_PERM];
	uint32_t cl[CANON_PERM];
} tag_seen;

/*
 * RECORDS: the records a pass holds (siblings of a few kinds taking
 * turns each have theirs); RECORD_SPANS: the most pieces of fixed bytes
 * a record holds; RECORD_BYTES: the longest element taken as one, and
 * what the pass may read to take records beyond the bytes it has read
 * (so that taking them costs at most one more read of the content);
 * RECORD_TRIES: how far the records taken at one depth may outnumber
 * the elements there read as one before the pass stops taking them at
 * that depth (until more are read as one); and the elements in a row
 * read against a record in vain that drop it.
 */
enum {
	RECORDS = 4,
	RECORD_SPANS = 48,
	RECORD_BYTES = 2048,
	RECORD_TRIES = 16,
	RECORD_RECENT = 2 * RECORDS
};

/* What follows a piece of a record's fixed bytes: more of them, a
 * value, a text, the end. */
enum { RUN_NONE, RUN_VALUE, RUN_TEXT, RUN_END };

/*
 * RECORD_PERMS: the most start tags of a record that the CANON note puts
 * in order.  Such a tag (record_perm) is found again in an element read
 * as the record by pieces, whose starts the reading notes: its name ends
 * name_off bytes into piece name_piece, and its k-th attribute at the
 * closing quote that starts piece end_piece[k].
 */
enum { RECORD_PERMS = 4 };

typedef struct record_perm {
	uint8_t name_piece, name_off, n;
	uint8_t end_piece[CANON_PERM];
	uint8_t perm[CANON_PERM];
} record_perm;

/*
 * An element read whole whose bytes are fixed spans with plain values
 * and plain text between them (record_of): a payload repeats such an
 * element with other values and texts, and an element whose bytes are
 * these spans with plain runs of its own between them is the same tags,
 * attributes and nesting (docs/parser.md, "Records").
 */
typedef struct record {
	size_t n;             /* pieces of fixed bytes; 0: none */
	size_t depth;         /* the depth of the element's parent */
	int ids;              /* the pass's ids when it ended */
	unsigned long used;   /* when it was last taken or followed */
	unsigned misses;      /* elements read against it since, in vain */
	/* The fixed bytes in pieces of up to 16, each one compare. */
	pattern fixed[RECORD_SPANS];
	uint8_t len[RECORD_SPANS];
	uint8_t run[RECORD_SPANS]; /* what follows fixed[i] */
	/* Taken while the CANON note held: its tags to put in order. */
	size_t nperm;
	record_perm perm[RECORD_PERMS];
	/* Whether no run of it holds a stop (holds_stop) and it fits a
	 * window, which lets an element be read as it from the window's bits
	 * (as_placed); the bytes of the element it was taken from. */
	int placed;
	size_t bytes;
} record;

/*
 * STOP_LANES blocks of 64 bytes of the text, classified at once for
 * as_placed: where the stops (holds_stop) are.  STOP_BYTES: the bytes a
 * window holds, and the longest element read from one.
 */
enum { STOP_LANES = 16, STOP_BYTES = 64 * STOP_LANES };

#if defined(__SSE2__)
typedef struct stops_window {
	const char *b;             /* the first byte classified */
	size_t n;                  /* the blocks classified */
	uint64_t bits[STOP_LANES]; /* bit i of bits[k]: byte 64k + i */
} stops_window;
#endif

typedef struct checker {
	parser *ps;
	size_t top;         /* the deferred element's depth */
	size_t depth;
	int ids, notes;
	int avx2;           /* the CPU has AVX2: windows two loads each */
	check_canon *canon; /* where the CANON note's prefixes go */
	size_t max_text;
	const char *open_end; /* past the last start tag with content */
	/* The elements open below top: each one's name, and with '>' as
	 * its end tag is expected when shorter than 16 bytes. */
	struct {
		pattern end;
		const char *qname;
		size_t qlen;
		name *el;
	} open[CHECK_DEPTH];
	record rec[RECORDS];
#if defined(__SSE2__)
	stops_window stops;   /* where the stops are, for as_placed */
#endif
	unsigned long clock;  /* counts the records taken and followed */
	/* By depth below top: the records taken there (end_of) less the
	 * elements read as one, down to 0. */
	uint8_t failed[CHECK_DEPTH];
	/* The bits (bit_of) of the names of the elements closed so far: a
	 * record is taken of a name's second element, not its first. */
	uint64_t closed;
	const char *start;    /* where the pass began */
	size_t spent;         /* bytes read to take records */
	name *top_child;    /* the last name of an element at top + 1 */
	/* Bit i of named: names[i] holds a name; of shaped: shapes[i] has
	 * an owner.  Bits, not NULLs, say so, since a pass starts by
	 * clearing them and the tables are most of its 46 KB: clearing
	 * theirs would touch 140 cache lines for each deferred element. */
	uint64_t named, shaped;
	name names[NAMES];
	shape shapes[NAMES];
	/* For the CANON note, each shape's first `sorted` attributes have
	 * no prefix and are in C14N's order; a tag that was its first
	 * perm_n (0: none) is put in order by perm. */
	uint8_t sorted[NAMES];
	uint8_t perm_n[NAMES];
	uint8_t perm[NAMES][SHAPE];
} checker;

static inline const char *skip_ws(const char *p)
{
	while (dom__is((unsigned char)*p, IS_SPACE))
		p++;
	return p;
}

static int is_xmlns(const char *s, size_t n)
{
	return n == 5 && memcmp(s, "xmlns", 5) == 0;
}

/* One bit of 64 for the name s[0..n), n > 0, by its bytes alone. */
static inline uint64_t bit_of(const char *s, size_t n)
{
	return (uint64_t)1 << ((n * 7u + (unsigned char)s[0] * 3u +
				(unsigned char)s[n - 1]) & 63);
}

/* scan_name's fast case (state.h) into m: past the ASCII QName at p,
 * or NULL. */
static const char *scan(const checker *c, const char *p, name *m)
{
	const char *s = p, *l;

	if (!dom__is((unsigned char)*p, IS_NSTART))
		return NULL;
	while (dom__is((unsigned char)*++p, IS_NAME))
		;
	m->plen = 0;
	if (*p == ':' && dom__is((unsigned char)p[1], IS_NSTART)) {
		m->plen = (uint32_t)(p - s);
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
		pattern_of(&m->end, b, m->len + 1);
	}
	m->bit = bit_of(s, m->len);
	l = s + (m->plen ? m->plen + 1 : 0);
	m->flags = (m->plen && is_xmlns(s, m->plen) ? XMLNS_PREFIX : 0) |
		   (is_xmlns(s, m->len) ? XMLNS_NAME : 0) |
		   (p - l == 2 && l[0] == 'I' && (l[1] == 'd' || l[1] == 'D')
			    ? ID_NAME : 0);
	return p;
}

/*
 * The slot of the name at p, by its first four bytes: a name's own for
 * most names, and "id=\"" for a short one, which its value does not
 * change.  Names that share four first bytes share the slot.
 */
static inline size_t slot_at(const char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return (size_t)((w * 0x9e3779b1u) >> 26);
}

/* name_at's miss: the name at *pp scanned into slot i. */
static __attribute__((noinline)) name *scanned(checker *c, const char **pp,
					       size_t i)
{
	name *m = &c->names[i];
	const char *end;

	if ((c->named >> i & 1) == 0)
		m->child = NULL;
	end = scan(c, *pp, m);
	if (end == NULL) {
		c->named &= ~((uint64_t)1 << i);
		return NULL;
	}
	c->named |= (uint64_t)1 << i;
	*pp = end;
	return m;
}

/* The name at *pp, remembered or scanned, with *pp moved past it; NULL
 * when scan_name would not take it at once.  A remembered spelling that
 * the text repeats, followed by a byte that cannot continue a name, is
 * the name scan() found at it before. */
static inline name *name_at(checker *c, const char **pp)
{
	size_t i = slot_at(*pp);
	name *m = &c->names[i];

	if ((c->named >> i & 1) != 0 && same_text(m->s, *pp, m->len)) {
		unsigned char e = (unsigned char)(*pp)[m->len];

		if (!dom__is(e, IS_NAME) && e != ':' && e < 0x80) {
			*pp += m->len;
			return m;
		}
	}
	return scanned(c, pp, i);
}

/* The name of a start tag at *pp, as name_at, tried first as the name
 * the last child of an element named as its parent had: elements so
 * named mostly have children so named, and the try needs no hash of the
 * bytes before the compare, which any name in names[] may pass. */
static inline name *child_at(checker *c, const char **pp)
{
	size_t d = c->depth - c->top;
	name **last = d == 0 ? &c->top_child : &c->open[d].el->child;
	name *m = *last;

	if (m != NULL && (c->named >> (m - c->names) & 1) != 0 &&
	    same_text(m->s, *pp, m->len)) {
		unsigned char e = (unsigned char)(*pp)[m->len];

		if (!dom__is(e, IS_NAME) && e != ':' && e < 0x80) {
			*pp += m->len;
			return m;
		}
	}
	return *last = name_at(c, pp);
}

/* The URI m's prefix is bound to, or NULL when it is unbound. */
static const char *bound_to(const checker *c, name *m)
{
	const parser *ps = c->ps;
	size_t i = ps->nbinds;

	if (m->uri != NULL)
		return m->uri;
	if (m->plen == 3 && memcmp(m->s, "xml", 3) == 0)
		return m->uri = ps->doc->xml_ns;
	while (i-- > 0) {
		const char *p = ps->binds[i].prefix;

		if (p != NULL && dom_names_len(p) == m->plen &&
		    memcmp(p, m->s, m->plen) == 0)
			break;
	}
	if (i == (size_t)-1 || ps->binds[i].uri == ps->doc->empty)
		return NULL;
	return m->uri = ps->binds[i].uri;
}

/* The reference at r: its length, 0 when it is not one; *n gets the
 * bytes it stands for. */
static inline size_t ref_at(const char *r, size_t *n)
{
	char out[4];
	const char *why;
	size_t used;

	*n = dom__insitu_ref(r, out, &used, &why);
	return *n != 0 ? used : 0;
}

/* Whether the reference at r is the one dom_serialize writes for its
 * character, in a value (attr) or in text. */
static int as_written(const char *r, int attr)
{
	return strncmp(r, "&amp;", 5) == 0 || strncmp(r, "&lt;", 4) == 0 ||
	       strncmp(r, attr ? "&quot;" : "&gt;", attr ? 6 : 4) == 0;
}

/* The notes the reference at r, in a value (attr) or in text, leaves:
 * each writer has its own spellings. */
static void note_ref(checker *c, const char *r, int attr)
{
	if (!as_written(r, attr))
		c->notes &= ~NOTE_EXACT;
	if (!dom__insitu_canon_ref(r, attr))
		c->notes &= ~NOTE_CANON;
}

/* A reference or a non-ASCII character at p, in a value (attr) or in
 * text: past it, or NULL; *shrink grows by the bytes a build saves. */
static const char *ref_or_utf8(checker *c, const char *p, int attr,
			       size_t *shrink)
{
	size_t n, used;

	if (*p == '&') {
		used = ref_at(p, &n);
		if (used == 0)
			return NULL;
		if (c->notes != 0)
			note_ref(c, p, attr);
		*shrink += used - n;
		return p + used;
	}
	used = dom__insitu_utf8((const unsigned char *)p);
	return used != 0 ? p + used : NULL;
}

/* text()'s general case. */
static const char *text_slow(checker *c, const char *p)
{
	const char *start = p;
	size_t shrink = 0;

	for (;;) {
		unsigned char b;

		p = dom__insitu_skip_text(p);
		while (dom__is((unsigned char)*p, IS_TEXT))
			p++;
		b = (unsigned char)*p;
		if (b == '<')
			break;
		if (b == '&' || b >= 0x80) {
			p = ref_or_utf8(c, p, 0, &shrink);
			if (p == NULL)
				return NULL;
		} else if (b == '\r') {
			c->notes = 0;
			p++;
		} else if (b == ']') {
			if (p[1] == ']' && p[2] == '>')
				return NULL;
			p++;
		} else {
			return NULL;
		}
	}
	/* What a build keeps is no longer than what is read. */
	if ((size_t)(p - start) - shrink > c->max_text)
		return NULL;
	/* Both writers write '>' in text as "&gt;". */
	if (c->notes != 0 && memchr(start, '>', (size_t)(p - start)) != NULL)
		c->notes = 0;
	return p;
}

/* Text from p to the '<' it ends at, or NULL.  Most is plain: bytes
 * that need no look, no '>', and not near the limit. */
static inline const char *text(checker *c, const char *p)
{
	const char *q = dom__insitu_skip_run(p, 1);

	if (*q == '<' && (size_t)(q - p) <= c->max_text)
		return q;
	return text_slow(c, p);
}

/* value()'s general case. */
static const char *value_slow(checker *c, const char *p)
{
	char quote = *p;
	const char *start = ++p;
	size_t shrink = 0;

	for (;;) {
		unsigned char b;

		p = skip_attr(p);
		while (dom__is((unsigned char)*p, IS_ATTR))
			p++;
		b = (unsigned char)*p;
		if (b == (unsigned char)quote)
			break;
		if (b == '"' || b == '\'') {
			p++;
		} else if (b == '\t' || b == '\n' || b == '\r') {
			c->notes = 0;
			p++;
		} else if (b == '&' || b >= 0x80) {
			p = ref_or_utf8(c, p, 1, &shrink);
			if (p == NULL)
				return NULL;
		} else {
			return NULL;
		}
	}
	if ((size_t)(p - start) - shrink > c->max_text)
		return NULL;
	return p + 1;
}

/* A quoted value at p: past its closing quote, or NULL.  Most are
 * plain. */
static inline const char *value(checker *c, const char *p)
{
	const char *q = skip_attr(p + 1);

	if (*q == *p && (size_t)(q - p - 1) <= c->max_text)
		return q + 1;
	return value_slow(c, p);
}

/* The '=' and quoted value after an attribute's name at p: past the
 * value, or NULL. */
static const char *eq_value(checker *c, const char *p)
{
	if (*p != '=') {
		c->notes = 0;
		p = skip_ws(p);
	}
	if (*p++ != '=')
		return NULL;
	if (*p != '"') {
		c->notes = 0;
		if (*p != '\'')
			p = skip_ws(p);
	}
	if (*p != '"' && *p != '\'')
		return NULL;
	return value(c, p);
}

/* Whether the unprefixed attribute name a[0..la) comes before b[0..lb)
 * in C14N's order: by local name, strcmp's order, which on the bytes
 * and lengths of ASCII names is this. */
static inline int in_order(const char *a, size_t la, const char *b,
			   size_t lb)
{
	size_t i, n = la < lb ? la : lb;

	/* Most names differ early: no call. */
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return (unsigned char)a[i] < (unsigned char)b[i];
	return la < lb;
}

/* The CANON note after the i-th attribute of t, named s[0..len) (plen:
 * its prefix's length) and ending at end: an attribute with a prefix,
 * whose namespace orders it, is left to the walk. */
static __attribute__((noinline)) void
note_attr(checker *c, tag_seen *t, size_t i, const char *s, uint32_t len,
	  uint32_t plen, const char *end)
{
	if (plen > 0 || i >= CANON_PERM) {
		c->notes &= ~NOTE_CANON;
		return;
	}
	if (i > 0 && !in_order(t->cs[i - 1], t->cl[i - 1], s, len))
		t->unsorted = 1;
	t->cs[i] = s;
	t->cl[i] = len;
	t->ce[i] = end;
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

/* Notes an attribute's name in t. */
static inline void seen_attr(tag_seen *t, uint64_t bit, int prefixed)
{
	t->again |= (t->bits & bit) != 0;
	t->bits |= bit;
	t->prefixed += prefixed != 0;
	t->n++;
}

/* One attribute at p (its name's start), noted in t: past its value, or
 * NULL. */
static const char *attribute(checker *c, const char *p, tag_seen *t)
{
	name *m = name_at(c, &p);

	/* A declaration binds: the building pass's. */
	if (m == NULL || (m->flags & (XMLNS_PREFIX | XMLNS_NAME)) != 0 ||
	    (m->plen > 0 && bound_to(c, m) == NULL))
		return NULL;
	if (t->n < SHAPE) {
		shape_attr *a = &t->rec[t->n];

		a->s = m->s;
		a->len = m->len;
		a->prefixed = m->plen > 0;
		a->id = (m->flags & ID_NAME) != 0;
		a->bit = m->bit;
	}
	c->ids |= m->flags & ID_NAME;
	seen_attr(t, m->bit, m->plen > 0);
	p = eq_value(c, p);
	if (p != NULL && (c->notes & NOTE_CANON) != 0)
		note_attr(c, t, t->n - 1, m->s, m->len, m->plen, p);
	return p;
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

#if CHECK_AVX2
#define LT32(a, b) _mm256_cmpgt_epi8((b), (a))

/* window_at with 32-byte loads, for CPUs with AVX2 (the caller checks):
 * with 16-byte loads the windows were a quarter of the pass's time. */
__attribute__((target("avx2"))) static void window_at32(window *x,
							const char *s)
{
	WINDOW_AT(x, s, 32, __m256i, _mm256_loadu_si256, _mm256_set1_epi8,
		  LT32, _mm256_cmpeq_epi8, _mm256_or_si256,
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
static inline const char *shaped_value(checker *c, window *x, const char *q)
{
#if defined(__SSE2__)
	const char *e = value_in(c, x, q);

	if (e != NULL)
		return e;
	if (x->b != q + 1 && window_fits(c, q + 1)) {
#if CHECK_AVX2
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
 * shaped_as's first part, for a tag inside the two windows at *pp (after
 * the name): the positions of the stops there, taken in order, are each
 * value's opening and closing quote while the values are plain -- the
 * bytes of " name=" before an opening quote are none, and a stop in a
 * value is its end or a byte that needs a look -- so each attribute is
 * checked apart from the one before, not after its value was scanned.
 * The attributes it read, with *pp past them, where shaped_as goes on
 * (and stops at once where the text left the shape).
 */
static inline __attribute__((always_inline)) size_t
shaped_run(checker *c, const shape *sh, const char **pp, tag_seen *t,
	   const int canon)
{
	const char *p = *pp;
	uint8_t pos[2 * SHAPE];
	window x[2];
	size_t i, k, start = 0;

	for (i = 0; i < 2; i++) {
#if CHECK_AVX2
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
			t->cs[i] = a->s;
			t->cl[i] = a->len;
			t->ce[i] = p + start;
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
shaped_as(checker *c, const shape *sh, const char *p, tag_seen *t,
	  const int canon)
{
	window x;
	size_t i = 0;

#if defined(__SSE2__)
	if (sh->n > 0 && c->ps->end - p >= 2 * WINDOW)
		i = shaped_run(c, sh, &p, t, canon);
#endif
	/* Empty, at a byte no value starts at: the first value fills it. */
	x.b = p;
	x.stop = 0;
	for (; i < sh->n; i++) {
		const shape_attr *a = &sh->a[i];

		if (!matches(&a->at, p))
			break;
		c->ids |= a->id;
		p = shaped_value(c, &x, p + a->len + 2);
		if (p == NULL)
			return NULL;
		if (canon) {
			if (a->prefixed)
				c->notes &= ~NOTE_CANON;
			t->cs[i] = a->s;
			t->cl[i] = a->len;
			t->ce[i] = p;
		}
	}
	t->n = i;
	if (canon)
		t->unsorted = i > c->sorted[sh - c->shapes];
	return p;
}

static const char *shaped(checker *c, const shape *sh, const char *p,
			  tag_seen *t)
{
	return shaped_as(c, sh, p, t, 0);
}

/* shaped() for the CANON note: out of line, so that shaped(), inlined
 * into the parse's loop, stays as it is without it. */
static __attribute__((noinline)) const char *
shaped_canon(checker *c, const shape *sh, const char *p, tag_seen *t)
{
	return shaped_as(c, sh, p, t, 1);
}

/* The attribute at p, read again for unique(): past its value. */
static const char *reread(const checker *c, const char *p, name *m)
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
static int unique(const checker *c, const char *p, size_t n)
{
	name a[CHECK_ATTRS];
	size_t i, j;

	if (n > CHECK_ATTRS)
		return 0;
	for (i = 0; i < n; i++) {
		p = reread(c, p, &a[i]);
		if (a[i].plen > 0)
			bound_to(c, &a[i]);
		for (j = 0; j < i; j++) {
			size_t oi = a[i].plen ? a[i].plen + 1 : 0,
			       oj = a[j].plen ? a[j].plen + 1 : 0;

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

/* The attributes after the name (ending at p) of a start tag whose
 * element has the shape sh: past '>' or "/>", or NULL; into t. */
static const char *attributes(checker *c, const shape *sh, const char *p,
			      tag_seen *t, int *empty)
{
	size_t i;

	if (sh != NULL) {
		p = (c->notes & NOTE_CANON) != 0 ? shaped_canon(c, sh, p, t)
						 : shaped(c, sh, p, t);
		if (p == NULL)
			return NULL;
	}
	for (;;) {
		const char *before = p;

		if (p[0] == ' ' && (unsigned char)p[1] > ' ') {
			p++;
		} else {
			p = skip_ws(p);
			if (p != before)
				c->notes = 0;
		}
		if (*p == '>' || (p[0] == '/' && p[1] == '>')) {
			if (p != before)
				c->notes = 0;
			*empty = *p == '/';
			return p + (*empty ? 2 : 1);
		}
		if (p == before)
			return NULL;
		/* What the shape read is noted before the first other. */
		if (sh != NULL && t->bits == 0 && t->n > 0) {
			size_t k = t->n;

			memcpy(t->rec, sh->a, k * sizeof *t->rec);
			for (t->n = 0, i = 0; i < k; i++)
				seen_attr(t, sh->a[i].bit, sh->a[i].prefixed);
		}
		p = attribute(c, p, t);
		if (p == NULL)
			return NULL;
	}
}

/* Keeps the attribute names of the tag just read (t->rec) as the shape
 * of its element el, spelled qname[0..qlen), unless an attribute's
 * name has taken el's slot since. */
static void remember(checker *c, const name *el, const char *qname,
		     size_t qlen, const tag_seen *t)
{
	shape *sh = &c->shapes[el - c->names];
	char b[16];
	size_t i;

	if (el->len != qlen || !same_text(el->s, qname, qlen))
		return;
	/* A name too long for a pattern ends the shape. */
	for (i = 0; i < t->n && i < SHAPE && t->rec[i].len <= sizeof b - 3;
	     i++) {
		const shape_attr *r = &t->rec[i];

		sh->a[i] = *r;
		b[0] = ' ';
		memcpy(b + 1, r->s, r->len);
		b[r->len + 1] = '=';
		b[r->len + 2] = '"';
		pattern_of(&sh->a[i].at, b, r->len + 3);
	}
	sh->n = i;
	sh->owner = el->s;
	c->shaped |= (uint64_t)1 << (sh - c->shapes);
	c->perm_n[sh - c->shapes] = 0;
	/* Asked only while it matters: the note never comes back. */
	for (i = 0; (c->notes & NOTE_CANON) != 0 && i < sh->n; i++)
		if (sh->a[i].prefixed ||
		    (i > 0 && !in_order(sh->a[i - 1].s, sh->a[i - 1].len,
					sh->a[i].s, sh->a[i].len)))
			break;
	c->sorted[sh - c->shapes] = (uint8_t)i;
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

		if (p != NULL && dom_names_len(p) == n && memcmp(p, qname, n) == 0)
			return p;
	}
	return NULL;
}

/* perm: the n <= CANON_PERM unprefixed attribute names s[i][0..len[i])
 * in C14N's order, as their indexes (an insertion sort: a tag has a few). */
static void c14n_order(uint8_t *perm, const char *const *s,
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
	size_t len = (size_t)(ends[n - 1] - name_end), i;
	uint32_t at = (uint32_t)(name_end - c->ps->in.text);
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
		uint16_t e = (uint16_t)(ends[i] - name_end);

		o[i] = perm[i];
		memcpy(o + n + 2 * i, &e, 2);
	}
	k->ntags = (size_t)(o - k->tags) + (n == TAG_LONG ? 0 : 3 * n);
	if (len > k->longest)
		k->longest = len;
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
	int whole = sh != NULL && t->bits == 0;

	if (whole && c->perm_n[k] == t->n) {
		memcpy(perm, c->perm[k], t->n);
	} else {
		c14n_order(perm, t->cs, t->cl, t->n);
		if (whole) {
			memcpy(c->perm[k], perm, t->n);
			c->perm_n[k] = (uint8_t)t->n;
		}
	}
	if (c->canon->in_place)
		return note_tag(c, name_end, t->ce, perm, t->n);
	return dom__insitu_own_permute(c->ps, name_end, t->ce, perm, t->n);
}

/* Whether the CANON note holds after the start tag whose name is
 * qname[0..name_end), with the attributes t (empty: an empty-element
 * tag, which C14N writes <a></a>). */
static __attribute__((noinline)) int
canon_tag(checker *c, const shape *sh, const char *qname,
	  const char *name_end, const tag_seen *t, int empty)
{
	if (empty)
		return 0;
	note_prefix(c, prefix_of(c, qname, (size_t)(name_end - qname)));
	return !t->unsorted ||
	       (c->canon->reorder && reorder(c, sh, name_end, t));
}

/* A start tag, its name at p: past it, or NULL.  *empty: "/>". */
static const char *start_tag(checker *c, const char *p, int *empty)
{
	parser *ps = c->ps;
	const char *qname = p, *name_end;
	name *el = child_at(c, &p);
	const shape *sh;
	tag_seen t;
	pattern end;
	size_t qlen;

	if (el == NULL ||
	    (el->plen > 0 && ((el->flags & XMLNS_PREFIX) != 0 ||
			      (el->uri == NULL && bound_to(c, el) == NULL))))
		return NULL;
	name_end = p;
	qlen = el->len;
	/* An attribute's name may take el's slot. */
	if (qlen < 16)
		end = el->end;
	sh = &c->shapes[el - c->names];
	if ((c->shaped >> (el - c->names) & 1) == 0 || sh->owner != el->s)
		sh = NULL;
	t.bits = 0;
	t.again = 0;
	t.n = t.prefixed = 0;
	t.unsorted = 0;
	p = attributes(c, sh, p, &t, empty);
	/* tag_limits' depth: the parent's, plus one.  A tag the shape read
	 * whole is unique; a read past it was noted in t. */
	if (p == NULL ||
	    ((t.again || t.prefixed > 1) && !unique(c, name_end, t.n)) ||
	    c->depth + 1 > ps->lim->max_depth || t.n > ps->lim->max_attrs)
		return NULL;
	if ((c->notes & NOTE_CANON) != 0 &&
	    !canon_tag(c, sh, qname, name_end, &t, *empty))
		c->notes &= ~NOTE_CANON;
	/* A shape that foretold a prefix of the tag, and no more, stays. */
	if (sh == NULL || t.bits != 0)
		remember(c, el, qname, qlen, &t);
	if (!*empty) {
		size_t d = ++c->depth - c->top;

		/* Deeper than CHECK_DEPTH below top is left to the building
		 * pass. */
		if (d >= CHECK_DEPTH)
			return NULL;
		if (qlen < 16)
			c->open[d].end = end;
		c->open[d].qname = qname;
		c->open[d].qlen = qlen;
		c->open[d].el = el;
		c->open_end = p;
	}
	return p;
}

/* At '<' + 1 of an end tag's name: past it, or NULL. */
static const char *end_tag(checker *c, const char *p)
{
	size_t d = c->depth - c->top, n = c->open[d].qlen;

	if (n < 16 ? !matches(&c->open[d].end, p)
		   : !same_text(c->open[d].qname, p, n) || p[n] != '>')
		return NULL;
	/* dom_serialize writes <a></a> as <a/>. */
	if (p - 2 == c->open_end)
		c->notes &= ~NOTE_EXACT;
	return p + c->open[d].qlen + 1;
}

/* Past the run of plain value bytes (IS_ATTR) at p.  With SSE2,
 * skip_attr ends at the run's end: no table loop waits for it. */
static inline const char *plain_value(const char *p)
{
	p = skip_attr(p);
#if !defined(__SSE2__)
	while (dom__is((unsigned char)*p, IS_ATTR))
		p++;
#endif
	return p;
}

/* Past the run of plain text bytes (IS_TEXT but '>') at p, as
 * plain_value. */
static inline const char *plain_text(const char *p)
{
	p = dom__insitu_skip_run(p, 1);
#if !defined(__SSE2__)
	while (dom__is((unsigned char)*p, IS_TEXT) && *p != '>')
		p++;
#endif
	return p;
}

/*
 * A stop: a byte that ends a plain value (skip_attr) or a plain text
 * (dom__insitu_skip_run with '>'): below 0x20, 0x80 and above, either
 * quote, '&', '<', '>' and ']'.  A run with none is plain either way.
 * Whether the stop x may stand in a plain run of the kind `run`
 * (RUN_VALUE or RUN_TEXT): a '>' or ']' in a value, a quote, TAB or LF
 * in a text.
 */
static inline int plain_stop(unsigned char x, int run)
{
	if (run == RUN_VALUE)
		return (x == '>') | (x == ']');
	return (x == '"') | (x == '\'') | (x == '\t') | (x == '\n');
}

/* Whether the plain run a[0..b - a) of the kind `run` holds a stop. */
static int holds_stop(const char *a, const char *b, int run)
{
	int held = 0;

	for (; a < b; a++)
		held |= plain_stop((unsigned char)*a, run);
	return held;
}

#if defined(__SSE2__)
/* The bits of w's blocks from block k on, STEP bytes a load with the
 * vector type T and its intrinsics: the SSE2 and the AVX2 classification
 * are this loop, a bit for each stop (holds_stop says which they are). */
#define STOPS_AT(w, k, STEP, T, LOAD, SET1, LT, EQ, OR, MASK)              \
	do {                                                               \
		const T sp_ = SET1(0x20), dq_ = SET1('"'), sq_ = SET1('\''), \
			amp_ = SET1('&'), lt_ = SET1('<'), gt_ = SET1('>'),  \
			rb_ = SET1(']');                                   \
		size_t i_;                                                 \
									   \
		for (i_ = 64 * (k); i_ < 64 * (w)->n; i_ += (STEP)) {      \
			T v_ = LOAD((const T *)(const void *)((w)->b + i_)); \
			/* Signed: 0x80 and above compare below 0x20. */   \
			T m_ = OR(OR(OR(LT(v_, sp_), EQ(v_, dq_)),         \
				     OR(EQ(v_, sq_), EQ(v_, amp_))),       \
				  OR(OR(EQ(v_, lt_), EQ(v_, gt_)),         \
				     EQ(v_, rb_)));                        \
			uint64_t b_ = (uint64_t)(uint32_t)MASK(m_)         \
				      << (i_ % 64);                        \
									   \
			(w)->bits[i_ / 64] =                               \
				i_ % 64 == 0 ? b_ : (w)->bits[i_ / 64] | b_; \
		}                                                          \
	} while (0)

static void classify16(stops_window *w, size_t k)
{
	STOPS_AT(w, k, 16, __m128i, _mm_loadu_si128, _mm_set1_epi8,
		 _mm_cmplt_epi8, _mm_cmpeq_epi8, _mm_or_si128,
		 _mm_movemask_epi8);
}

#if CHECK_AVX2
/* With 32-byte loads. */
__attribute__((target("avx2"))) static void
classify32(stops_window *w, size_t k)
{
	STOPS_AT(w, k, 32, __m256i, _mm256_loadu_si256, _mm256_set1_epi8,
		 LT32, _mm256_cmpeq_epi8, _mm256_or_si256,
		 _mm256_movemask_epi8);
}
#endif

/*
 * w moved on to hold p: as many whole blocks as the text has from its
 * start, up to STOP_LANES.  Where w held p, it starts at p's block and
 * keeps the blocks it held from there, so that only the blocks after
 * them are classified; else it starts at p.
 */
static __attribute__((noinline)) void move_to(const checker *c,
					      stops_window *w, const char *p)
{
	size_t k = (size_t)(p - w->b) / 64, kept = 0, n;

	if (k < w->n) {
		kept = w->n - k;
		memmove(w->bits, w->bits + k, kept * sizeof *w->bits);
		w->b += 64 * k;
	} else {
		w->b = p;
	}
	n = (size_t)(c->ps->end - w->b) / 64;
	w->n = n < STOP_LANES ? n : STOP_LANES;
#if CHECK_AVX2
	if (c->avx2) {
		classify32(w, kept);
		return;
	}
#endif
	classify16(w, kept);
}

/*
 * The offset of the first stop at or after off in w, from the block k
 * whose bits *cur holds on, with k and *cur moved to its block: SIZE_MAX
 * where w has none.  Most runs end in the block they start in: a shift
 * and a count.
 */
static inline size_t stop_from(const stops_window *w, size_t off, size_t *k,
			       uint64_t *cur)
{
	uint64_t m;

	if (off / 64 != *k) {
		*k = off / 64;
		if (*k >= w->n)
			return SIZE_MAX;
		*cur = w->bits[*k];
	}
	m = *cur >> (off % 64);
	while (m == 0) {
		if (++*k >= w->n)
			return SIZE_MAX;
		*cur = m = w->bits[*k];
		off = 64 * *k;
	}
	return off + (unsigned)__builtin_ctzll(m);
}

/*
 * The element at p (its '<') read as the placed record r: past it, or
 * NULL where its bytes are not r's, or (*unsure set) where the window
 * (moved on to p if it must be) does not hold it or a run
 * ends at a stop its kind may hold (as_record reads on).  A placed
 * record's runs hold no stop, so each run of an element read as it
 * ends at the first stop after the fixed bytes before it: found in the
 * window's bits, where a scan of the run would wait for its bytes.
 * Offsets from the window's start are what one run's end waits for from
 * the run before.  Up to a difference, it read the bytes as_record would
 * and cut them at the same places, so a NULL without *unsure is
 * as_record's answer too.  at as for as_record.
 */
static inline __attribute__((always_inline)) const char *
as_placed(checker *c, const record *r, const char *p, const char **at,
	  int *unsure)
{
	stops_window *w = &c->stops;
	size_t off = (size_t)(p - w->b), k, i;
	uint64_t cur;

	/* Moved on where the window does not hold p, or may not hold the
	 * element and p is in its second half: each byte is classified
	 * once, whatever the text, and the window moves on by STOP_BYTES /
	 * 2 or more.  The element may still run past its end (p up to a
	 * block in, near the text's end): its run's end is then not found,
	 * and the answer is unsure. */
	if (off >= 64 * w->n ||
	    (off >= STOP_BYTES / 2 && off + r->bytes > 64 * w->n)) {
		move_to(c, w, p);
		off = (size_t)(p - w->b);
		if (off >= 64 * w->n) {
			*unsure = 1;
			return NULL;
		}
	}
	*unsure = 0;
	k = off / 64;
	cur = w->bits[k];
	for (i = 0;; i++) {
		size_t q;

		if (at != NULL)
			at[i] = w->b + off;
		if (!matches(&r->fixed[i], w->b + off)) {
			/* Past a run, at a stop its kind may hold:
			 * as_record's run goes on. */
			*unsure = i > 0 && r->run[i - 1] != RUN_NONE &&
				  plain_stop((unsigned char)w->b[off],
					     r->run[i - 1]);
			return NULL;
		}
		off += r->len[i];
		if (r->run[i] == RUN_NONE)
			continue;
		if (r->run[i] == RUN_END)
			break;
		q = stop_from(w, off, &k, &cur);
		if (q == SIZE_MAX) {
			*unsure = 1;
			return NULL;
		}
		/* An empty text ends at a stop (as_record's run may go on past
		 * it); a run over the limit is longer still as_record's way. */
		if (r->run[i] == RUN_TEXT && q == off) {
			*unsure = plain_stop((unsigned char)w->b[q], RUN_TEXT);
			return NULL;
		}
		if (q - off > c->max_text)
			return NULL;
		off = q;
	}
	c->ids |= r->ids;
	return w->b + off;
}
#endif

/* Adds the fixed bytes f[0..p - f) followed by run to r: 0 when r is
 * full. */
static int add_span(record *r, const char *f, const char *p, int run)
{
	do {
		size_t n = (size_t)(p - f) < 16 ? (size_t)(p - f) : 16;

		if (r->n == RECORD_SPANS)
			return 0;
		pattern_of(&r->fixed[r->n], f, n);
		r->len[r->n] = (uint8_t)n;
		f += n;
		r->run[r->n++] = (uint8_t)(f == p ? run : RUN_NONE);
	} while (f != p);
	return 1;
}

/*
 * The record of the element s[0..e - s), just found well-formed and
 * within the limits: its bytes cut into fixed bytes at each value
 * (between its quotes) and each text of at least one byte, all plain.
 * 0 where a value or a text is not plain, or the element is cut too
 * often.  Out of line: it runs once a record, and inline it would push
 * start_tag() out of the pass's loop.
 */
static __attribute__((noinline)) int record_of(record *r, const char *s,
					       const char *e)
{
	const char *f = s, *p = s;
	int in_tag = 0;

	r->n = 0;
	r->bytes = (size_t)(e - s);
	r->placed = r->bytes <= STOP_BYTES;
	while (p < e) {
		const char *q;

		if (in_tag) {
			if (*p == '>')
				in_tag = 0;
			if (*p != '"' && *p != '\'') {
				p++;
				continue;
			}
			q = plain_value(p + 1);
			if (*q != *p || !add_span(r, f, p + 1, RUN_VALUE))
				return 0;
			r->placed &= !holds_stop(p + 1, q, RUN_VALUE);
			/* The closing quote starts the next fixed span. */
			f = q;
			p = q + 1;
			continue;
		} else if (*p == '<') {
			in_tag = 1;
			p++;
			continue;
		} else {
			q = plain_text(p);
			if (*q != '<' || !add_span(r, f, p, RUN_TEXT))
				return 0;
			r->placed &= !holds_stop(p, q, RUN_TEXT);
			f = p = q;
		}
	}
	return add_span(r, f, e, RUN_END);
}

/* at[i]: where piece i of r starts in the element s[0..) r was taken
 * from. */
static void starts_of(const record *r, const char *s, const char **at)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		at[i] = s;
		s += r->len[i];
		if (r->run[i] == RUN_VALUE)
			s = plain_value(s);
		else if (r->run[i] == RUN_TEXT)
			s = plain_text(s);
	}
}

/* The piece of r whose fixed bytes hold x, their starts at: its index,
 * or r->n where none does. */
static size_t piece_of(const record *r, const char *const *at, const char *x)
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
	k = piece_of(r, at, name_end);
	if (k == r->n)
		return 0;
	m->name_piece = (uint8_t)k;
	m->name_off = (uint8_t)(name_end - at[k]);
	for (i = 0; i < n; i++) {
		/* The closing quote starts the piece after the value. */
		k = piece_of(r, at, ce[i] - 1);
		if (k == r->n || at[k] != ce[i] - 1)
			return 0;
		m->end_piece[i] = (uint8_t)k;
	}
	m->n = (uint8_t)n;
	c14n_order(m->perm, cs, cl, n);
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
static __attribute__((noinline)) int record_canon(record *r, const char *s,
						  const char *e)
{
	const char *at[RECORD_SPANS], *p = s;

	starts_of(r, s, at);
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
		for (i = 1; i < n && in_order(cs[i - 1], cl[i - 1], cs[i], cl[i]);
		     i++)
			;
		if (i < n && !add_perm(r, at, name_end, cs, cl, ce, n))
			return 0;
	}
	return 1;
}

/*
 * The element at p (its '<') read as the record r: past it, or NULL
 * where its bytes are not r's fixed spans with plain runs between them
 * (then nothing was changed).  A text run must not be empty: "<a></a>"
 * is not written as it is read (NOTE_EXACT).  at (NULL: not asked): where
 * each piece starts.
 */
static inline __attribute__((always_inline)) const char *
as_record(checker *c, const record *r, const char *p, const char **at)
{
	size_t i;

	for (i = 0;; i++) {
		const char *q;

		if (at != NULL)
			at[i] = p;
		if (!matches(&r->fixed[i], p))
			return NULL;
		p += r->len[i];
		if (r->run[i] == RUN_NONE)
			continue;
		if (r->run[i] == RUN_END)
			break;
		q = r->run[i] == RUN_VALUE ? plain_value(p) : plain_text(p);
		if ((r->run[i] == RUN_TEXT && q == p) ||
		    (size_t)(q - p) > c->max_text)
			return NULL;
		p = q;
	}
	c->ids |= r->ids;
	return p;
}

/* The element at p read as the record r: from the stops' places where r
 * is placed and they are at hand, else (as_record) run by run. */
static inline __attribute__((always_inline)) const char *
read_as(checker *c, const record *r, const char *p, const char **at)
{
#if defined(__SSE2__)
	if (r->placed) {
		int unsure;
		const char *q = as_placed(c, r, p, at, &unsure);

		if (q != NULL || !unsure)
			return q;
	}
#endif
	return as_record(c, r, p, at);
}

/*
 * The CANON note's copy of an element read as the record r, its pieces
 * starting at at: each tag r puts in order, written in order into the
 * canonical copy (tee.c), as reorder() does for a tag read the general
 * way.  0: no memory, which ends the note.
 */
static __attribute__((noinline)) int
record_reorder(checker *c, const record *r, const char *const *at)
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
 * The element at p (its '<') read as one of the records taken at its
 * depth whose first bytes it has: past it, or NULL.  With canon (the
 * CANON note holds), its tags put in order in the copy.
 */
static inline __attribute__((always_inline)) const char *
record_at(checker *c, const char *p, const int canon)
{
	const char *at[RECORD_SPANS];
	size_t i;

	for (i = 0; i < RECORDS; i++) {
		record *r = &c->rec[i];
		const char *q;

		if (r->n == 0 || r->depth != c->depth ||
		    !matches(&r->fixed[0], p))
			continue;
		q = canon && r->nperm > 0 ? read_as(c, r, p, at)
					  : read_as(c, r, p, NULL);
		if (q != NULL) {
			if (canon && r->nperm > 0 &&
			    !(c->canon->reorder && record_reorder(c, r, at)))
				c->notes &= ~NOTE_CANON;
			r->used = ++c->clock;
			r->misses = 0;
			if (c->failed[c->depth - c->top] > 0)
				c->failed[c->depth - c->top]--;
			return q;
		}
		/* Siblings that share the record's first bytes and differ
		 * further on would each be read against it, and then again:
		 * a record they keep missing is dropped. */
		if (++r->misses == RECORD_TRIES) {
			r->n = 0;
			r->used = 0;
		}
	}
	return NULL;
}

/* record_at under the CANON note: out of line, so that the reading
 * without it, inlined into the pass's loop, stays as it is. */
static __attribute__((noinline)) const char *record_canon_at(checker *c,
							     const char *p)
{
	return record_at(c, p, 1);
}

static inline const char *as_a_record(checker *c, const char *p)
{
	return (c->notes & NOTE_CANON) != 0 ? record_canon_at(c, p)
					    : record_at(c, p, 0);
}

/*
 * Where the end tag that closed the element at d (below top) ends, at
 * e: the element, read the general way, becomes a record in place of
 * the one least recently taken or followed.  While the CANON note
 * holds, with the tags it puts in order (record_canon): what else the
 * note collects, the prefixes of the element names, the general reading
 * of the record collected, and the note stands or falls on the fixed
 * bytes alone (docs/parser.md, "Records").
 */
static inline void end_of(checker *c, size_t d, const char *e)
{
	const char *s = c->open[d].qname - 1;
	uint8_t *failed = &c->failed[c->depth - c->top];
	record *r = &c->rec[0];
	uint64_t bit = bit_of(s + 1, c->open[d].qlen);
	size_t i;

	if (*failed >= RECORD_TRIES || e - s > RECORD_BYTES ||
	    c->spent + (size_t)(e - s) > (size_t)(e - c->start) + RECORD_BYTES)
		return;
	/* Most elements whose name was not seen closing before are
	 * containers, each of them alone (a payload's list, a header's
	 * block): taking them would read them again for nothing. */
	if ((c->closed & bit) == 0) {
		c->closed |= bit;
		return;
	}
	for (i = 1; i < RECORDS; i++)
		if (c->rec[i].used < r->used)
			r = &c->rec[i];
	/* Siblings of more kinds than there are records, taking turns,
	 * would evict each record just before the element that follows it:
	 * a record taken or followed in the last RECORD_RECENT ticks stays,
	 * and the element is not taken (the clock ticks, so that records no
	 * element follows any more age all the same). */
	if (r->n != 0 && c->clock - r->used < RECORD_RECENT) {
		c->clock++;
		return;
	}
	/* Siblings that each differ from the one before, or of more kinds
	 * than there are records, would make most elements records that
	 * few follow: each one taken is paid back only by an element read
	 * as one. */
	++*failed;
	c->spent += (size_t)(e - s);
	r->nperm = 0;
	if (!record_of(r, s, e) ||
	    ((c->notes & NOTE_CANON) != 0 && !record_canon(r, s, e))) {
		r->n = 0;
		r->used = 0;
		return;
	}
	r->depth = c->depth;
	r->ids = c->ids;
	r->used = ++c->clock;
	r->misses = 0;
}

int dom__insitu_check(parser *ps, const char *p, const char **end, int *ids,
		      int *exact, check_canon *canon)
{
	checker c;
	size_t i;

	c.ps = ps;
	c.top = c.depth = ps->depth;
	c.ids = 0;
#if CHECK_AVX2
	c.avx2 = lab_cpu_has(LAB_CPU_AVX2);
#else
	c.avx2 = 0;
#endif
	c.notes = ps->in.transcoded ? 0
				    : NOTE_EXACT | (canon != NULL ? NOTE_CANON : 0);
	c.canon = canon;
	if (canon != NULL)
		canon->n = 0;
	c.max_text = ps->lim->max_text;
	c.open_end = NULL;
	c.top_child = NULL;
	for (i = 0; i < RECORDS; i++) {
		c.rec[i].n = 0;
		c.rec[i].used = 0;
	}
#if defined(__SSE2__)
	c.stops.b = p;
	c.stops.n = 0;
#endif
	c.clock = 0;
	c.closed = 0;
	memset(c.failed, 0, sizeof c.failed);
	c.start = p;
	c.spent = 0;
	c.named = c.shaped = 0;
	for (;;) {
		int empty;

		if (*p != '<' && (p = text(&c, p)) == NULL)
			return 0;
		if (p[1] == '/') {
			size_t d = c.depth - c.top;

			if (d == 0)
				break;
			p = end_tag(&c, p + 2);
			c.depth--;
			if (p != NULL)
				end_of(&c, d, p);
		} else if (p[1] == '!' || p[1] == '?') {
			return 0;
		} else {
			const char *q = NULL;

			if (c.clock != 0)
				q = as_a_record(&c, p);
			/* One call: start_tag() stays inline. */
			p = q != NULL ? q : start_tag(&c, p + 1, &empty);
		}
		if (p == NULL)
			return 0;
	}
	*end = p;
	*ids = c.ids;
	*exact = (c.notes & NOTE_EXACT) != 0;
	if (canon != NULL)
		canon->ok = (c.notes & NOTE_CANON) != 0;
	return 1;
}

/* SCRATCH_SLACK: what move_in_order may read past a tag in scratch. */
enum { SCRATCH_SLACK = 16 };

/*
 * The tag at p, its attributes ending at end[i] bytes from p, put in the
 * order perm where it stands, through scratch (room for the tag and
 * SCRATCH_SLACK); with none (n == 0) it stays as it is.  An attribute
 * is a few dozen bytes: one moved whole 16 bytes at a time, inline,
 * costs less than a call to memcpy, and what it writes past its end
 * falls on the attributes still to come, which overwrite it; the last
 * ones, with no such room, get memcpy.
 */
static void move_in_order(char *p, const uint8_t *perm, const size_t *end,
			  size_t n, char *scratch)
{
	char *o = p, *stop;
	size_t i;

	if (n == 0)
		return;
	stop = p + end[n - 1];
	memcpy(scratch, p, end[n - 1]);
	for (i = 0; i < n; i++) {
		size_t k = perm[i], from = k == 0 ? 0 : end[k - 1];
		size_t len = end[k] - from;

		if ((size_t)(stop - o) < len + SCRATCH_SLACK) {
			memcpy(o, scratch + from, len);
		} else {
			size_t j;

			for (j = 0; j < len; j += 16)
				memcpy(o + j, scratch + from + j, 16);
		}
		o += len;
	}
}

/*
 * The tag whose name ends at p, in a text ending at e, put in C14N's
 * order where it stands, through scratch.  The pass found it canonical
 * but for that order (canon_attrs reads it whole: at most CANON_PERM
 * attributes, each closed before e).
 */
static void order_tag(char *p, const char *e, char *scratch)
{
	const char *cs[CANON_PERM], *ce[CANON_PERM];
	uint32_t cl[CANON_PERM];
	uint8_t perm[CANON_PERM];
	size_t end[CANON_PERM], n, i;

	if (canon_attrs(p, e, cs, cl, ce, &n) == NULL)
		return;
	c14n_order(perm, cs, cl, n);
	for (i = 0; i < n; i++)
		end[i] = (size_t)(ce[i] - p);
	move_in_order(p, perm, end, n, scratch);
}

/* The tag at p noted with its order perm and its attributes' ends (2-byte
 * values, bytes from p), put in that order through scratch. */
static void order_noted(char *p, const uint8_t *perm, const uint8_t *ends,
			size_t n, char *scratch)
{
	size_t end[CANON_PERM], i;

	for (i = 0; i < n; i++) {
		uint16_t e;

		memcpy(&e, ends + 2 * i, 2);
		end[i] = e;
	}
	move_in_order(p, perm, end, n, scratch);
}

int dom__insitu_order_in_place(parser *ps, const check_canon *canon)
{
	char *scratch;
	size_t i = 0;

	/* Nothing noted: tags is NULL, and there is nothing to move. */
	if (canon->ntags == 0)
		return 1;
	scratch = dom_malloc(canon->longest + SCRATCH_SLACK);
	if (scratch == NULL)
		return 0;
	while (i < canon->ntags) {
		const uint8_t *t = canon->tags + i;
		uint32_t at;
		size_t n = t[4];

		memcpy(&at, t, 4);
		if (n == TAG_LONG) {
			order_tag(ps->in.text + at,
				  ps->in.text + ps->in.len, scratch);
			i += 5;
			continue;
		}
		order_noted(ps->in.text + at, t + 5, t + 5 + n, n, scratch);
		i += 5 + 3 * n;
	}
	dom_free(scratch);
	return 1;
}
