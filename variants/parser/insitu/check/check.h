/*
 * check.h - the check pass's private contract, shared by the four files
 * of variants/parser/insitu/check/ and by nothing else (the parser knows
 * the pass by state.h's dom__insitu_check and
 * dom__insitu_order_in_place).
 *
 *   pass.c     the pass: text, values, start and end tags, the loop
 *   names.c    the name memos: names by spelling, start tags' shapes
 *              and the vector windows that read a shaped tag's values
 *   records.c  the records: elements read whole as fixed bytes with
 *              plain runs, and the window of classified bytes they are
 *              read from
 *   reorder.c  the CANON note: tags put in C14N's attribute order, in
 *              the canonical copy or in place after the pass
 *
 * What this file holds: the checker (one pass's state, on the stack),
 * the memos' and records' types, and the inline helpers every file's
 * hot path uses.  Invariants the files share:
 *   - A memo (names[], shapes[], records[]) only ever makes the pass
 *     faster: what it answers, a scan of the bytes would answer the
 *     same, and a miss is a scan.  DOMLAB_CHECK=plain (checker.plain)
 *     turns every memo off, and the answers must not change
 *     (tests/check_plain.sh).
 *   - A slot holds something only when its bit in names_held or
 *     shapes_held is set; a record only when its n is not 0.
 *   - Nothing reads past the text's padding: 16 bytes are readable from
 *     any position in the text (pattern, matches), and a window is
 *     loaded only where window_fits / the stops window's block count
 *     says the text holds it.
 *   - The notes (NOTE_EXACT, NOTE_CANON) only ever get cleared.
 */
#ifndef DOM_INSITU_CHECK_H
#define DOM_INSITU_CHECK_H

#include "util/cpu.h"
#include "variants/parser/insitu/state.h"

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
static inline void pattern_of(pattern *p, const char *s, size_t n)
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
	pattern end_tag;  /* the name and '>', as its end tag (len < 16) */
	const char *s;    /* when checker.names_held has its bit */
	uint32_t len;
	uint32_t prefix_len; /* the prefix's length, 0 for none */
	int flags;
	uint64_t bit;     /* one of 64, by the name's bytes alone */
	const char *uri;  /* the prefix's binding, once looked up */
	struct name *last_child; /* the last child's, of an element so named */
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
	const char *owner; /* when checker.shapes_held has its bit */
	size_t n;
	shape_attr a[SHAPE];
} shape;

/* The attributes of the start tag being read. */
typedef struct tag_seen {
	uint64_t name_bits; /* their names' bits */
	int bit_twice;        /* a bit met twice: the same name, perhaps */
	size_t n, prefixed;
	shape_attr for_shape[SHAPE]; /* the first SHAPE, for the shape */
	/* For the CANON note: whether the attributes are out of C14N's
	 * order, and each one's name and end (the first CANON_PERM). */
	int unsorted;
	const char *attr_name[CANON_PERM], *attr_end[CANON_PERM];
	uint32_t attr_len[CANON_PERM];
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
	unsigned long last_used; /* when it was last taken or followed */
	unsigned misses;      /* elements read against it since, in vain */
	/* The fixed bytes in pieces of up to 16, each one compare. */
	pattern fixed[RECORD_SPANS];
	uint8_t len[RECORD_SPANS];
	uint8_t after[RECORD_SPANS]; /* what follows fixed[i] */
	/* Taken while the CANON note held: its tags to put in order. */
	size_t nperm;
	record_perm perm[RECORD_PERMS];
	/* Whether no run of it holds a stop (holds_stop) and it fits a
	 * window, which lets an element be read as it from the window's bits
	 * (record_read_window); the bytes of the element it was taken from. */
	int windowable;
	size_t bytes;
} record;

/*
 * STOP_LANES blocks of 64 bytes of the text, classified at once for
 * record_read_window: where the stops (holds_stop) are.  STOP_BYTES:
 * the bytes a window holds, and the longest element read from one.
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
	size_t top_depth;   /* the deferred element's depth */
	size_t depth;
	int ids, notes;
	int avx2;           /* the CPU has AVX2: windows two loads each */
	int plain;          /* DOMLAB_CHECK=plain: no memo, shape or record */
	check_canon *canon; /* where the CANON note's prefixes go */
	size_t max_text;
	const char *open_end; /* past the last start tag with content */
	/* The elements open below top_depth: each one's name, and with '>' as
	 * its end tag is expected when shorter than 16 bytes. */
	struct {
		pattern end_tag;
		const char *qname;
		size_t qlen;
		name *el;
	} open[CHECK_DEPTH];
	record records[RECORDS];
#if defined(__SSE2__)
	stops_window stops;   /* where the stops are, for record_read_window */
#endif
	unsigned long record_clock; /* the records taken and followed */
	/* By depth below top_depth: the records taken there
	 * (dom__check_record_take) less the elements read as one, down
	 * to 0. */
	uint8_t records_unpaid[CHECK_DEPTH];
	/* The bits (bit_of) of the names of the elements closed so far: a
	 * record is taken of a name's second element, not its first. */
	uint64_t names_closed;
	const char *start;    /* where the pass began */
	size_t record_bytes_read; /* bytes read to take records */
	name *top_child;    /* the last name of an element at top_depth + 1 */
	/* Bit i of names_held: names[i] holds a name; of shapes_held:
	 * shapes[i] has an owner.  Bits, not NULLs, say so, since a pass
	 * starts by clearing them and the tables are most of its 46 KB:
	 * clearing theirs would touch 140 cache lines for each deferred
	 * element. */
	uint64_t names_held, shapes_held;
	name names[NAMES];
	shape shapes[NAMES];
	/* For the CANON note, each shape's first `sorted` attributes have
	 * no prefix and are in C14N's order; a tag that was its first
	 * perm_n (0: none) is put in order by perm. */
	uint8_t sorted[NAMES];
	uint8_t perm_n[NAMES];
	uint8_t perm[NAMES][SHAPE];
} checker;


/* ---- what each file gives the others ---- */

/* names.c: name_at's miss, the name at *pp scanned into slot i (not
 * remembered under plain). */
name *dom__check_name_miss(checker *c, const char **pp, size_t i);
/* names.c: the URI m's prefix is bound to, or NULL when it is unbound. */
const char *dom__check_prefix_uri(const checker *c, name *m);
/* names.c: the attributes the shape sh foretells, from p (after the
 * name); _canon also notes their names and ends for the CANON note. */
const char *dom__check_shape_read(checker *c, const shape *sh, const char *p,
				  tag_seen *t);
const char *dom__check_shape_read_canon(checker *c, const shape *sh,
					const char *p, tag_seen *t);
/* names.c: whether no two of the n attributes after p share a name. */
int dom__check_attrs_unique(const checker *c, const char *p, size_t n);
/* names.c: the attribute names of the tag just read kept as el's shape. */
void dom__check_shape_remember(checker *c, const name *el, const char *qname,
			       size_t qlen, const tag_seen *t);

/* pass.c: value()'s general case. */
const char *dom__check_value_slow(checker *c, const char *p);

/* records.c: the element at p read as one of the records taken at its
 * depth, or NULL. */
const char *dom__check_record_read(checker *c, const char *p);
/* records.c: the element closed at depth d below the top, ending at e,
 * taken as a record when it pays. */
void dom__check_record_take(checker *c, size_t d, const char *e);

/* reorder.c: the CANON note after one attribute, and after a start tag. */
void dom__check_note_attr(checker *c, tag_seen *t, size_t i, const char *s,
			  uint32_t len, uint32_t prefix_len, const char *end);
int dom__check_canon_tag(checker *c, const shape *sh, const char *qname,
			 const char *name_end, const tag_seen *t, int empty);
/* reorder.c: the tags of a record to put in order, and their copy for an
 * element read as the record. */
int dom__check_record_canon(record *r, const char *s, const char *e);
int dom__check_record_reorder(checker *c, const record *r,
			      const char *const *at);

static inline const char *skip_ws(const char *p)
{
	while (dom__is((unsigned char)*p, IS_SPACE))
		p++;
	return p;
}

static inline int is_xmlns(const char *s, size_t n)
{
	return n == 5 && memcmp(s, "xmlns", 5) == 0;
}

/* One bit of 64 for the name s[0..n), n > 0, by its bytes alone. */
static inline uint64_t bit_of(const char *s, size_t n)
{
	return (uint64_t)1 << ((n * 7u + (unsigned char)s[0] * 3u +
				(unsigned char)s[n - 1]) & 63);
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

/* The name at *pp, remembered or scanned, with *pp moved past it; NULL
 * when scan_name would not take it at once.  A remembered spelling that
 * the text repeats, followed by a byte that cannot continue a name, is
 * the name scan() found at it before. */
static inline name *name_at(checker *c, const char **pp)
{
	size_t i = slot_at(*pp);
	name *m = &c->names[i];

	if ((c->names_held >> i & 1) != 0 && same_text(m->s, *pp, m->len)) {
		unsigned char e = (unsigned char)(*pp)[m->len];

		if (!dom__is(e, IS_NAME) && e != ':' && e < 0x80) {
			*pp += m->len;
			return m;
		}
	}
	return dom__check_name_miss(c, pp, i);
}

/* The name of a start tag at *pp, as name_at, tried first as the name
 * the last child of an element named as its parent had: elements so
 * named mostly have children so named, and the try needs no hash of the
 * bytes before the compare, which any name in names[] may pass. */
static inline name *child_at(checker *c, const char **pp)
{
	size_t d = c->depth - c->top_depth;
	name **last = d == 0 ? &c->top_child : &c->open[d].el->last_child;
	name *m = *last;

	if (m != NULL && (c->names_held >> (m - c->names) & 1) != 0 &&
	    same_text(m->s, *pp, m->len)) {
		unsigned char e = (unsigned char)(*pp)[m->len];

		if (!dom__is(e, IS_NAME) && e != ':' && e < 0x80) {
			*pp += m->len;
			return m;
		}
	}
	return *last = name_at(c, pp);
}

/* A quoted value at p: past its closing quote, or NULL.  Most are
 * plain. */
static inline const char *value(checker *c, const char *p)
{
	const char *q = skip_attr(p + 1);

	if (*q == *p && (size_t)(q - p - 1) <= c->max_text)
		return q + 1;
	return dom__check_value_slow(c, p);
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

#endif
