/*
 * feed.h - what a parse for signing tells another thread while it reads:
 * how far it has read the caller's bytes, and which start tags in them
 * it puts in C14N's attribute order (dom_parse_signing_fed).  From
 * these the other thread streams a guess of the canonical bytes of any
 * stretch of the input as soon as the parse has passed it, without
 * waiting for the tree: a sender's Body digest made beside the parse
 * (wss/send_ahead.h).
 *
 * The guess is the caller's bytes with each noted tag's attributes
 * moved into the order the parse puts them in where they stand
 * (build=deferred's check pass, docs/parser.md).  It is only a guess:
 * nothing here says that those bytes are the canonical form of
 * anything, and a user proves it by comparing them with a real
 * canonicalization (dom_feed_read serves both sides).
 *
 * Threads: one parse writes (the dom__feed_* half), any number of
 * cursors read, each on one thread; the feed outlives the parse and
 * every cursor.  A feed is for one parse.
 * Not for: a parse that transcodes its input (the notes are offsets in
 * the UTF-8 text, which then are not the caller's), which fails the feed.
 */
#ifndef DOM_FEED_H
#define DOM_FEED_H

#include <stddef.h>
#include <stdint.h>

typedef struct dom_feed dom_feed;

/* The most attributes of a tag the parse notes. */
enum { DOM_FEED_PERM = 16 };

/* ---- for the caller ---- */

/* A feed for one parse of buf[0..len), about the stretch of it at
 * [from, to): what the parse does elsewhere is not told.  NULL: no
 * memory, or a stretch not in buf or over 4 GiB. */
dom_feed *dom_feed_new(const char *buf, size_t len, size_t from, size_t to);

/* Frees f (NULL: nothing); no parse or cursor may use it any more. */
void dom_feed_free(dom_feed *f);

/* A position in the guessed stream; set by dom_feed_seek. */
typedef struct dom_feed_cursor {
	size_t at;          /* the next byte of the input to stream */
	const void *block;  /* the next note to look at: its block */
	size_t off;         /* and its offset there */
} dom_feed_cursor;

/* c at offset at of the input, before any byte was streamed. */
void dom_feed_seek(dom_feed_cursor *c, size_t at);

/* What dom_feed_read found. */
enum {
	DOM_FEED_RUN = 0,     /* *n > 0 bytes of the stream in out */
	DOM_FEED_WAIT = 1,    /* the parse has not vouched for more yet */
	DOM_FEED_END = 2,     /* c stands at `to` */
	DOM_FEED_FAILED = -1  /* the parse cannot vouch for c's bytes */
};

/*
 * The stream from c on, up to the input's offset to (within the feed's
 * stretch), as far as the parse has vouched for it, into out[0..room):
 * *n bytes, c moved past them.  A noted tag goes in whole or waits for
 * the next call, and one longer than room fails.  Never waits:
 * DOM_FEED_WAIT says to come back later (only while the parse runs).
 */
int dom_feed_read(const dom_feed *f, dom_feed_cursor *c, size_t to,
		  char *out, size_t room, size_t *n);

/* ---- for the parse (dom/parse.c and the parser variants) ---- */

/* The text the parse reads starts bias bytes into the caller's buffer
 * (a byte order mark skipped); before anything is noted. */
void dom__feed_start(dom_feed *f, size_t bias);

/*
 * The tag whose name ends at offset name_end of the text, its 0 < n <=
 * DOM_FEED_PERM attributes ending ends[i] bytes after it, to be put in
 * the order perm; and the parse has read everything before it.  Where
 * it cannot be noted (no memory) the feed fails there.
 */
void dom__feed_tag(dom_feed *f, size_t name_end, const uint8_t *perm,
		  const uint16_t *ends, size_t n);

/* The parse has read the text up to offset at, with every tag before
 * it that it puts in order noted; checked: a check pass read the
 * stretch that ends there, and its notes stand. */
void dom__feed_read_to(dom_feed *f, size_t at, int checked);

/* The parse cannot vouch for the text at [from, to), nor, since the
 * stream is read in order, for the rest of the feed's stretch after
 * it. */
void dom__feed_fail(dom_feed *f, size_t from, size_t to);

/* The parse is over: when ok and a check pass read some of the feed's
 * stretch, the bytes not failed are vouched for to the end; else the
 * feed fails (a parse with no check pass guesses nothing). */
void dom__feed_close(dom_feed *f, int ok);

#endif
