/*
 * records.c - the check pass's records: an element read whole, kept as
 * its fixed bytes with plain values and texts between them, against
 * which the next elements at its depth are read (docs/parser.md,
 * "Records"), and the window of classified bytes they are read from.
 *
 * Map:
 *   plain_stop, holds_stop      which bytes may stand in a plain run
 *   STOPS_AT, classify16/32,    the stops window: 64-byte blocks of the
 *   stops_move, stops_next      text, a bit for each stop
 *   record_read_window          an element read as a record from the
 *                               window's bits
 *   add_span, record_of         an element cut into a record
 *   record_read_runs,           an element read as a record run by run,
 *   record_read_as              or from the window where it can be
 *   record_match(_canon),       the records at the element's depth tried
 *   dom__check_record_read      in turn, the misses counted
 *   dom__check_record_take      an element closed becomes a record when
 *                               taking it pays
 * Invariants: a record with n != 0 was cut from an element found
 * well-formed and within the limits; an element read as it has the same
 * tags, attributes and nesting; record_read_window answers as
 * record_read_runs does, or says it is unsure; the bytes read to take
 * records stay within RECORD_BYTES of the bytes the pass has read.
 * Under plain no record is taken, so none is read.
 * Not for: the CANON note's reordering of a record's tags (reorder.c).
 */
#include "variants/parser/insitu/check/check.h"

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

#if LAB_X86_VECTORS
/* With 32-byte loads. */
__attribute__((target("avx2"))) static void
classify32(stops_window *w, size_t k)
{
	STOPS_AT(w, k, 32, __m256i, _mm256_loadu_si256, _mm256_set1_epi8,
		 LAB_LT32, _mm256_cmpeq_epi8, _mm256_or_si256,
		 _mm256_movemask_epi8);
}
#endif

/*
 * w moved on to hold p: as many whole blocks as the text has from its
 * start, up to STOP_LANES.  Where w held p, it starts at p's block and
 * keeps the blocks it held from there, so that only the blocks after
 * them are classified; else it starts at p.
 */
static __attribute__((noinline)) void stops_move(const checker *c,
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
#if LAB_X86_VECTORS
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
static inline size_t stops_next(const stops_window *w, size_t off, size_t *k,
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
 * ends at a stop its kind may hold (record_read_runs reads on).  A placed
 * record's runs hold no stop, so each run of an element read as it
 * ends at the first stop after the fixed bytes before it: found in the
 * window's bits, where a scan of the run would wait for its bytes.
 * Offsets from the window's start are what one run's end waits for from
 * the run before.  Up to a difference, it read the bytes record_read_runs would
 * and cut them at the same places, so a NULL without *unsure is
 * record_read_runs's answer too.  at as for record_read_runs.
 */
static inline __attribute__((always_inline)) const char *
record_read_window(checker *c, const record *r, const char *p, const char **at,
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
		stops_move(c, w, p);
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
			 * record_read_runs's run goes on. */
			*unsure = i > 0 && r->after[i - 1] != RUN_NONE &&
				  plain_stop((unsigned char)w->b[off],
					     r->after[i - 1]);
			return NULL;
		}
		off += r->len[i];
		if (r->after[i] == RUN_NONE)
			continue;
		if (r->after[i] == RUN_END)
			break;
		q = stops_next(w, off, &k, &cur);
		if (q == SIZE_MAX) {
			*unsure = 1;
			return NULL;
		}
		/* An empty text ends at a stop (record_read_runs's run may go
		 * on past it); a run over the limit is longer still
		 * record_read_runs's way. */
		if (r->after[i] == RUN_TEXT && q == off) {
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
		r->after[r->n++] = (uint8_t)(f == p ? run : RUN_NONE);
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
	r->windowable = r->bytes <= STOP_BYTES;
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
			r->windowable &= !holds_stop(p + 1, q, RUN_VALUE);
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
			r->windowable &= !holds_stop(p, q, RUN_TEXT);
			f = p = q;
		}
	}
	return add_span(r, f, e, RUN_END);
}

/*
 * The element at p (its '<') read as the record r: past it, or NULL
 * where its bytes are not r's fixed spans with plain runs between them
 * (then nothing was changed).  A text run must not be empty: "<a></a>"
 * is not written as it is read (NOTE_EXACT).  at (NULL: not asked): where
 * each piece starts.
 */
static inline __attribute__((always_inline)) const char *
record_read_runs(checker *c, const record *r, const char *p, const char **at)
{
	size_t i;

	for (i = 0;; i++) {
		const char *q;

		if (at != NULL)
			at[i] = p;
		if (!matches(&r->fixed[i], p))
			return NULL;
		p += r->len[i];
		if (r->after[i] == RUN_NONE)
			continue;
		if (r->after[i] == RUN_END)
			break;
		q = r->after[i] == RUN_VALUE ? plain_value(p) : plain_text(p);
		if ((r->after[i] == RUN_TEXT && q == p) ||
		    (size_t)(q - p) > c->max_text)
			return NULL;
		p = q;
	}
	c->ids |= r->ids;
	return p;
}

/* The element at p read as the record r: from the stops' places where r
 * is placed and they are at hand, else (record_read_runs) run by run. */
static inline __attribute__((always_inline)) const char *
record_read_as(checker *c, const record *r, const char *p, const char **at)
{
#if defined(__SSE2__)
	if (r->windowable) {
		int unsure;
		const char *q = record_read_window(c, r, p, at, &unsure);

		if (q != NULL || !unsure)
			return q;
	}
#endif
	return record_read_runs(c, r, p, at);
}

/*
 * The element at p (its '<') read as one of the records taken at its
 * depth whose first bytes it has: past it, or NULL.  With canon (the
 * CANON note holds), its tags put in order in the copy.
 */
static inline __attribute__((always_inline)) const char *
record_match(checker *c, const char *p, const int canon)
{
	const char *at[RECORD_SPANS];
	size_t i;

	for (i = 0; i < RECORDS; i++) {
		record *r = &c->records[i];
		const char *q;

		if (r->n == 0 || r->depth != c->depth ||
		    !matches(&r->fixed[0], p))
			continue;
		q = canon && r->nperm > 0 ? record_read_as(c, r, p, at)
					  : record_read_as(c, r, p, NULL);
		if (q != NULL) {
			if (canon && r->nperm > 0 &&
			    !(c->canon->reorder &&
			      dom__check_record_reorder(c, r, at)))
				c->notes &= ~NOTE_CANON;
			r->last_used = ++c->record_clock;
			r->misses = 0;
			if (c->records_unpaid[c->depth - c->top_depth] > 0)
				c->records_unpaid[c->depth - c->top_depth]--;
			return q;
		}
		/* Siblings that share the record's first bytes and differ
		 * further on would each be read against it, and then again:
		 * a record they keep missing is dropped. */
		if (++r->misses == RECORD_TRIES) {
			r->n = 0;
			r->last_used = 0;
		}
	}
	return NULL;
}

/* record_match under the CANON note: out of line, so that the reading
 * without it, inlined into dom__check_record_read, stays as it is. */
static __attribute__((noinline)) const char *record_match_canon(checker *c,
							     const char *p)
{
	return record_match(c, p, 1);
}

/* The pass's one call per element it may read as a record. */
const char *dom__check_record_read(checker *c, const char *p)
{
	return (c->notes & NOTE_CANON) != 0 ? record_match_canon(c, p)
					    : record_match(c, p, 0);
}

/*
 * Where the end tag that closed the element at d (below top) ends, at
 * e: the element, read the general way, becomes a record in place of
 * the one least recently taken or followed.  While the CANON note
 * holds, with the tags it puts in order (dom__check_record_canon): what
 * else the note collects, the prefixes of the element names, the general
 * reading of the record collected, and the note stands or falls on the
 * fixed bytes alone (docs/parser.md, "Records").
 */
void dom__check_record_take(checker *c, size_t d, const char *e)
{
	const char *s = c->open[d].qname - 1;
	uint8_t *unpaid = &c->records_unpaid[c->depth - c->top_depth];
	record *r = &c->records[0];
	uint64_t bit = bit_of(s + 1, c->open[d].qlen);
	size_t i;

	if (c->plain || *unpaid >= RECORD_TRIES || e - s > RECORD_BYTES ||
	    c->record_bytes_read + (size_t)(e - s) >
		    (size_t)(e - c->start) + RECORD_BYTES)
		return;
	/* Most elements whose name was not seen closing before are
	 * containers, each of them alone (a payload's list, a header's
	 * block): taking them would read them again for nothing. */
	if ((c->names_closed & bit) == 0) {
		c->names_closed |= bit;
		return;
	}
	for (i = 1; i < RECORDS; i++)
		if (c->records[i].last_used < r->last_used)
			r = &c->records[i];
	/* Siblings of more kinds than there are records, taking turns,
	 * would evict each record just before the element that follows it:
	 * a record taken or followed in the last RECORD_RECENT ticks stays,
	 * and the element is not taken (the clock ticks, so that records no
	 * element follows any more age all the same). */
	if (r->n != 0 && c->record_clock - r->last_used < RECORD_RECENT) {
		c->record_clock++;
		return;
	}
	/* Siblings that each differ from the one before, or of more kinds
	 * than there are records, would make most elements records that
	 * few follow: each one taken is paid back only by an element read
	 * as one. */
	++*unpaid;
	c->record_bytes_read += (size_t)(e - s);
	r->nperm = 0;
	if (!record_of(r, s, e) ||
	    ((c->notes & NOTE_CANON) != 0 &&
	     !dom__check_record_canon(r, s, e))) {
		r->n = 0;
		r->last_used = 0;
		return;
	}
	r->depth = c->depth;
	r->ids = c->ids;
	r->last_used = ++c->record_clock;
	r->misses = 0;
}
