/*
 * feed.c - a parse's notes for another thread (dom/feed.h): the tags
 * it puts in order, in blocks that never move, and how far it has read,
 * published with release stores and read with acquire loads, so that a
 * cursor that sees a position also sees every note before it.
 * Not for: putting tags in order in the parse's own text
 * (variants/parser/insitu/check/reorder.c).
 */
#include "dom/feed.h"

#include <stdatomic.h>
#include <string.h>

#include "dom/permute.h"
#include "util/alloc.h"

/*
 * A note: where the tag's name ends, from the stretch's start (4
 * bytes), n (1), the order (n) and each attribute's end from the name's
 * end (2n).  FEED_BLOCK: the bytes of notes a block holds, a few hundred
 * tags.  FEED_STEP: how far the parse reads between two publications
 * of its notes.  Each publication is a store to lines a reader close
 * behind keeps reading, which stalls the parse: at every tag of quakes-
 * 2m (11,443 of them) it took the parse on two threads from 1,020 to
 * 1,450 us.
 */
enum {
	NOTE_MAX = 5 + 3 * DOM_FEED_PERM,
	FEED_BLOCK = 8192,
	FEED_STEP = 16384
};

typedef struct block {
	_Atomic(struct block *) next;
	atomic_size_t len;  /* the bytes of notes published in it */
	size_t used;        /* the parse's own: the bytes written */
	unsigned char notes[FEED_BLOCK];
} block;

struct dom_feed {
	const char *buf;
	size_t len, from, to, bias;
	atomic_size_t read_to;   /* in the caller's buffer */
	atomic_size_t failed_at; /* len + 1: nowhere */
	/* The parse's own: read_to as it last published it, whether a
	 * check pass read some of the stretch, and the block it writes. */
	size_t published;
	int checked;
	_Atomic(block *) first;
	block *last;
};

dom_feed *dom_feed_new(const char *buf, size_t len, size_t from, size_t to)
{
	dom_feed *f;

	/* A note's offset is 4 bytes. */
	if (from > to || to > len || to - from > UINT32_MAX)
		return NULL;
	f = lab_calloc(1, sizeof *f);
	if (f == NULL)
		return NULL;
	f->buf = buf;
	f->len = len;
	f->from = from;
	f->to = to;
	atomic_init(&f->first, NULL);
	atomic_init(&f->read_to, 0);
	atomic_init(&f->failed_at, len + 1);
	return f;
}

void dom_feed_free(dom_feed *f)
{
	block *b, *next;

	if (f == NULL)
		return;
	for (b = atomic_load_explicit(&f->first, memory_order_relaxed);
	     b != NULL; b = next) {
		next = atomic_load_explicit(&b->next, memory_order_relaxed);
		lab_free(b);
	}
	lab_free(f);
}

/* ---- the parse's half ---- */

void dom__feed_start(dom_feed *f, size_t bias)
{
	f->bias = bias;
}

/* The caller's bytes from x on are not vouched for. */
static void fail_at(dom_feed *f, size_t x)
{
	if (x < atomic_load_explicit(&f->failed_at, memory_order_relaxed))
		atomic_store_explicit(&f->failed_at, x, memory_order_release);
}

void dom__feed_fail(dom_feed *f, size_t from, size_t to)
{
	from += f->bias;
	if (to + f->bias > f->from && from < f->to)
		fail_at(f, from > f->from ? from : f->from);
}

/* The notes written so far, and that the caller's bytes are read up to
 * x, published: the notes first, so that a reader that sees x sees
 * every note before it. */
static void publish(dom_feed *f, size_t x)
{
	if (f->last != NULL)
		atomic_store_explicit(&f->last->len, f->last->used,
				      memory_order_release);
	if (x > f->published) {
		atomic_store_explicit(&f->read_to, x, memory_order_release);
		f->published = x;
	}
}

void dom__feed_read_to(dom_feed *f, size_t at, int checked)
{
	size_t x = at + f->bias;

	if (checked && x > f->from)
		f->checked = 1;
	publish(f, x);
}

/* Room for one more note: the last block, or a new one, linked once
 * the last one's notes are all published. */
static block *room(dom_feed *f)
{
	block *b = f->last;

	if (b != NULL && b->used + NOTE_MAX <= FEED_BLOCK)
		return b;
	b = lab_malloc(sizeof *b);
	if (b == NULL)
		return NULL;
	atomic_init(&b->next, NULL);
	atomic_init(&b->len, 0);
	b->used = 0;
	if (f->last == NULL) {
		atomic_store_explicit(&f->first, b, memory_order_release);
	} else {
		publish(f, 0);
		atomic_store_explicit(&f->last->next, b,
				      memory_order_release);
	}
	return f->last = b;
}

void dom__feed_tag(dom_feed *f, size_t name_end, const uint8_t *perm,
		   const uint16_t *ends, size_t n)
{
	size_t at = name_end + f->bias;
	uint32_t rel;
	unsigned char *o;
	block *b;

	if (at < f->from || at >= f->to)
		return;
	b = n > 0 && n <= DOM_FEED_PERM ? room(f) : NULL;
	if (b == NULL) {
		fail_at(f, at);
		return;
	}
	o = b->notes + b->used;
	rel = (uint32_t)(at - f->from);
	memcpy(o, &rel, 4);
	o[4] = (unsigned char)n;
	memcpy(o + 5, perm, n);
	memcpy(o + 5 + n, ends, 2 * n);
	b->used += 5 + 3 * n;
	if (at + ends[n - 1] - f->published >= FEED_STEP)
		publish(f, at + ends[n - 1]);
}

void dom__feed_close(dom_feed *f, int ok)
{
	if (!ok || !f->checked)
		fail_at(f, f->from);
	dom__feed_read_to(f, f->len - f->bias, 0);
}

/* ---- the cursors ---- */

void dom_feed_seek(dom_feed_cursor *c, size_t at)
{
	memset(c, 0, sizeof *c);
	c->at = at;
}

/* The next note published after c's, or NULL. */
static const unsigned char *peek(const dom_feed *f, dom_feed_cursor *c)
{
	const block *b = c->block;

	if (b == NULL) {
		b = atomic_load_explicit(&f->first, memory_order_acquire);
		if (b == NULL)
			return NULL;
		c->block = b;
	}
	while (c->off ==
	       atomic_load_explicit(&b->len, memory_order_acquire)) {
		b = atomic_load_explicit(&b->next, memory_order_acquire);
		if (b == NULL)
			return NULL;
		c->block = b;
		c->off = 0;
	}
	return b->notes + c->off;
}

/* The bytes the noted tag at o spans from where its name ends. */
static size_t tag_len(const unsigned char *o)
{
	size_t n = o[4];
	uint16_t e;

	memcpy(&e, o + 5 + n + 2 * (n - 1), 2);
	return e;
}

/* The noted tag at o, whose name ends at offset at, into out: its
 * attributes in their order. */
static size_t copy_tag(const dom_feed *f, const unsigned char *o, size_t at,
		       char *out)
{
	size_t n = o[4], end[DOM_FEED_PERM] = {0};

	dom__permute_ends(end, o + 5 + n, n);
	return dom__permute_attrs(out, f->buf + at, o + 5, end, n);
}

/* The next note at or after c->at, the notes before it (other
 * stretches') passed over; NULL: none published. */
static const unsigned char *next_note(const dom_feed *f, dom_feed_cursor *c,
				      size_t *at)
{
	const unsigned char *o;
	uint32_t x;

	while ((o = peek(f, c)) != NULL) {
		memcpy(&x, o, 4);
		if (f->from + x >= c->at) {
			*at = f->from + x;
			return o;
		}
		c->off += 5 + 3 * (size_t)o[4];
	}
	return NULL;
}

/* What dom_feed_read returns when it stops for `why` with *n bytes. */
static int stop(int why, size_t n)
{
	return n > 0 ? DOM_FEED_RUN : why;
}

int dom_feed_read(const dom_feed *f, dom_feed_cursor *c, size_t to,
		  char *out, size_t room, size_t *n)
{
	size_t read = atomic_load_explicit(&f->read_to, memory_order_acquire);
	size_t failed =
		atomic_load_explicit(&f->failed_at, memory_order_acquire);

	*n = 0;
	if (to > f->to)
		return DOM_FEED_FAILED;
	for (;;) {
		size_t lim = to < read ? to : read, at, k;
		const unsigned char *o;

		if (failed <= c->at)
			return stop(DOM_FEED_FAILED, *n);
		if (c->at >= to)
			return stop(DOM_FEED_END, *n);
		if (failed < lim)
			lim = failed;
		o = next_note(f, c, &at);
		if (o != NULL && at == c->at) {
			k = tag_len(o);
			/* A tag across the end, or longer than the room. */
			if (at + k > to || k > room)
				return stop(DOM_FEED_FAILED, *n);
			if (k > room - *n)
				return DOM_FEED_RUN;
			*n += copy_tag(f, o, at, out + *n);
			c->at += k;
			c->off += 5 + 3 * (size_t)o[4];
			if (*n == room)
				return DOM_FEED_RUN;
			continue;
		}
		if (o != NULL && at < lim)
			lim = at;
		if (c->at >= lim)
			return stop(DOM_FEED_WAIT, *n);
		k = lim - c->at < room - *n ? lim - c->at : room - *n;
		memcpy(out + *n, f->buf + c->at, k);
		*n += k;
		c->at += k;
		if (*n == room)
			return DOM_FEED_RUN;
	}
}
