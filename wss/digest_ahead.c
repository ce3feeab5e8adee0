/*
 * digest_ahead.c - a decrypted Body's digest guessed behind the
 * plaintext's decryption, then proved or dropped (wss/digest_ahead.h).
 * On a second thread: the decryption publishes how much plaintext is
 * final (avail, a release store after the bytes); the thread hashes up
 * to it, then waits for more, the whole, or a stop, and goes on during
 * the parse.  On this thread: each piece is hashed as the decryption
 * hands it over, while it is still in the first-level cache.
 * Not for: the digest a Reference gets otherwise (wss/dsig.c).
 */
#include "wss/digest_ahead.h"

#include <openssl/crypto.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "util/alloc.h"
#include "util/timeline.h"
#include "util/worker.h"
#include "wss/c14n.h"
#include "wss/guess.h"

/* Where the plaintext the thread reads stands. */
enum { FEEDING, WHOLE, STOPPED };

struct wss_ahead {
	dom_parse_watch watch;
	wss_pass_watch pass;
	/* The Body's canonical tags around the plaintext hashed (in the
	 * document's bytes; its length once whole). */
	wss_guess g;
	atomic_size_t avail; /* p[0..avail) final: the thread may hash it */
	atomic_int state;   /* FEEDING, WHOLE (avail is n), STOPPED */
	lab_worker_job job; /* the thread's: job.started, a thread runs */
	int finished_seen;  /* done() saw it finished: its digest stands */
	int on_thread;      /* hash on a second thread, else on this one */
	struct lab_timeline *timeline; /* the thread marks its steps */
	wss_sha256_ctx *h;  /* on this thread: the hash being made */
	size_t at;          /* on this thread: p[0..at) went into h */
	int parsed_here;    /* the parse read the very bytes hashed */
	int hashed;         /* `digest` was made */
	int proved;         /* and it is the Body's, at generation `gen` */
	const dom_node *body, *old;
	uint64_t gen;
	unsigned char digest[WSS_SHA256_LEN];
};

int wss_ahead_new(wss_ahead **out, int on_thread, struct lab_timeline *tl,
		  lab_err *err)
{
	wss_ahead *a = lab_calloc(1, sizeof *a);

	*out = a;
	if (a == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	a->on_thread = on_thread;
	a->timeline = tl;
	return LAB_OK;
}

/* The least plaintext a guess is made for. */
static size_t guess_min(int on_thread)
{
	return on_thread ? WSS_GUESS_MIN : WSS_GUESS_HERE_MIN;
}

/* The most bytes n base64 characters decode to. */
static size_t decoded_most(size_t n)
{
	return n / 4 * 3;
}

int wss_ahead_worth(size_t source_len, int on_thread)
{
	return decoded_most(source_len) >= guess_min(on_thread);
}

/* The plaintext as it becomes final, until it is whole or stopped;
 * whether all of it went into h.  It waits by yielding, not sleeping:
 * the decryption runs ahead of SHA-256 (in the floor's parts, AES-GCM
 * takes under half SHA-256's time), so the thread waits for little
 * more than the first piece, and a sleep would cost a wake-up for
 * every piece it did wait for. */
static int hash_plaintext(void *ctx, wss_sha256_ctx *h)
{
	wss_ahead *a = ctx;
	size_t at = 0;

	for (;;) {
		/* The state first: WHOLE is stored after the last avail. */
		int state = atomic_load_explicit(&a->state,
						 memory_order_acquire);
		size_t avail = atomic_load_explicit(&a->avail,
						    memory_order_acquire);

		if (state == STOPPED)
			return 0;
		if (avail > at) {
			size_t k = avail - at < WSS_GUESS_CHUNK ? avail - at
							    : WSS_GUESS_CHUNK;

			if (wss_sha256_update(h, a->g.p + at, k) != LAB_OK)
				return 0;
			at += k;
		} else if (state == WHOLE) {
			return 1;
		} else {
			sched_yield();
		}
	}
}

/* The thread: the tags around the plaintext, into a->digest. */
static void hash(void *arg)
{
	wss_ahead *a = arg;

	lab_timeline_mark(a->timeline, "ahead_started");
	a->hashed = wss_guess_hash(&a->g, hash_plaintext, a, a->digest);
	lab_timeline_mark(a->timeline, "ahead_hashed");
}

/* Starts the thread on p[0..avail) in state; a guess without one is
 * dropped. */
static void start(wss_ahead *a, const char *p, size_t avail, int state)
{
	a->g.p = p;
	atomic_store_explicit(&a->avail, avail, memory_order_relaxed);
	atomic_store_explicit(&a->state, state, memory_order_relaxed);
	if (!lab_worker_start(&a->job, hash, a))
		a->body = NULL;
}

/* Waits for the thread to finish what it was given. */
static void end_job(wss_ahead *a)
{
	lab_worker_end(&a->job);
	a->finished_seen = 0;
}

/* Stops the thread where it is and drops the guess. */
static void forget(wss_ahead *a)
{
	atomic_store_explicit(&a->state, STOPPED, memory_order_release);
	end_job(a);
	wss_sha256_free(a->h); /* OpenSSL cleanses its state */
	a->h = NULL;
	a->at = 0;
	a->hashed = a->proved = 0;
	a->body = a->old = NULL;
	a->g.p = NULL;
	a->g.n = 0;
}

/* On this thread: plain[a->at .. n) into the hash, begun with the
 * start tag on the first piece; a hash that fails drops the guess. */
static void hash_here(wss_ahead *a, const char *plain, size_t n)
{
	lab_err ignored;

	if (a->h == NULL) {
		a->g.p = plain;
		if (wss_sha256_new(&a->h, &ignored) != LAB_OK ||
		    wss_sha256_update(a->h, a->g.tags.data, a->g.split) !=
			    LAB_OK) {
			forget(a);
			return;
		}
	}
	if (wss_sha256_update(a->h, plain + a->at, n - a->at) != LAB_OK)
		forget(a);
	else
		a->at = n;
}

/* On this thread, once the plaintext is whole: the rest, the end tag. */
static void hash_end(wss_ahead *a, size_t len)
{
	hash_here(a, a->g.p, len);
	a->hashed =
		a->h != NULL &&
		wss_sha256_update(a->h, a->g.tags.data + a->g.split,
				  a->g.tags.len - a->g.split) == LAB_OK &&
		wss_sha256_final(a->h, a->digest) == LAB_OK;
	wss_sha256_free(a->h);
	a->h = NULL;
	if (!a->hashed)
		forget(a);
}

/* The decryption's watch (wss/pass.h): a piece more, the whole, a stop. */
static void pass_ready(void *ctx, const char *plain, size_t n)
{
	wss_ahead *a = ctx;

	if (a->body == NULL)
		return;
	if (!a->on_thread)
		hash_here(a, plain, n);
	else if (a->job.started)
		atomic_store_explicit(&a->avail, n, memory_order_release);
	else
		start(a, plain, n, FEEDING);
}

static void pass_whole(void *ctx, size_t len)
{
	wss_ahead *a = ctx;

	a->g.n = len;
	if (!a->on_thread && a->h != NULL)
		hash_end(a, len);
	if (!a->job.started)
		return;
	atomic_store_explicit(&a->avail, len, memory_order_release);
	atomic_store_explicit(&a->state, WHOLE, memory_order_release);
}

static void pass_stop(void *ctx)
{
	forget(ctx);
}

/* The parse's watch (dom/dom.h): where the bytes are parsed, and when
 * they are the document's again. */
static void parsing(void *ctx, const char *p, size_t n)
{
	wss_ahead *a = ctx;

	if (!a->on_thread) {
		/* Hashed whole behind the decryption, or not at all. */
		if (!a->hashed || p != a->g.p || n != a->g.n)
			forget(a);
		a->parsed_here = a->hashed;
		return;
	}
	if (a->job.started && (p != a->g.p || n != a->g.n))
		forget(a);
	else if (!a->job.started && a->body != NULL) {
		a->g.n = n;
		start(a, p, n, WHOLE);
	}
	a->parsed_here = a->job.started;
}

/* Without `parsing` first, the bytes moved or were never parsed: what
 * was hashed is not what the document holds. */
static void done(void *ctx)
{
	wss_ahead *a = ctx;

	lab_worker_wait(&a->job);
	a->finished_seen = a->job.started;
	if (!a->parsed_here)
		forget(a);
}

/* The Body's canonical tags with old left out: the start tag, then the
 * end tag.  0: no guess. */
static int prepare(wss_ahead *a, const dom_node *body, const dom_node *old,
		   size_t len)
{
	wss_c14n_opts o = {1, 0, NULL, 0, old};
	char qname[256];
	lab_err ignored;
	size_t end;

	forget(a);
	a->g.tags.len = 0;
	if (len < guess_min(a->on_thread) ||
	    dom_first_child(body) != old ||
	    dom_next_sibling(old) != NULL)
		return 0;
	end = dom_qname(body, qname, sizeof qname) + 3;
	if (wss_c14n_buf(body, &o, &a->g.tags, &ignored) != LAB_OK ||
	    a->g.tags.len < end)
		return 0;
	a->g.split = a->g.tags.len - end;
	a->body = body;
	a->old = old;
	return 1;
}

const wss_pass_watch *wss_ahead_decrypting(wss_ahead *a, const dom_node *body,
					   const dom_node *old, size_t len)
{
	if (!prepare(a, body, old, decoded_most(len)))
		return NULL;
	a->pass = (wss_pass_watch){pass_ready, pass_whole, pass_stop, a};
	return &a->pass;
}

const dom_parse_watch *wss_ahead_begin(wss_ahead *a, const dom_node *body,
				       const dom_node *old, size_t len)
{
	/* The guess the decryption prepared goes on, and its thread with
	 * it, when it is for these bytes; else one made afresh. */
	int same_guess = a->body == body && a->old == old &&
			 (a->on_thread ? len >= WSS_GUESS_MIN &&
						 (!a->job.started || a->g.n == len)
				       : a->hashed && a->g.n == len);

	/* On this thread a guess is only made behind the decryption: one
	 * made here would be a pass of its own before the parse. */
	if (!same_guess && (!a->on_thread || !prepare(a, body, old, len))) {
		forget(a);
		return NULL;
	}
	a->parsed_here = 0;
	a->watch = (dom_parse_watch){parsing, done, a};
	return &a->watch;
}

/* Where the stream compared so far stands against the one hashed. */
typedef struct compare {
	const wss_ahead *a;
	size_t at; /* bytes of the stream seen */
} compare;

/* The sink: each piece the same bytes as the hashed stream's, in order;
 * bytes at the same address within the plaintext are the same bytes. */
static int same(void *ctx, const char *p, size_t n)
{
	compare *c = ctx;

	while (n > 0) {
		size_t run;
		const char *want = wss_guess_at(&c->a->g, c->at, &run);
		size_t k = n < run ? n : run;

		if (run == 0 || (want != p && memcmp(want, p, k) != 0))
			return LAB_ESECURITY;
		c->at += k;
		p += k;
		n -= k;
	}
	return LAB_OK;
}

void wss_ahead_check(wss_ahead *a, const dom_node *body)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	compare c = {a, 0};
	size_t len, ndeps;
	lab_err ignored;

	/* A thread done() did not see finish was never told the parse was
	 * done. */
	if (a->job.started && !a->finished_seen)
		forget(a);
	a->proved = 0;
	if (!a->hashed || body != a->body ||
	    dom_canonical_content_peek(body, &len, &ndeps) == NULL)
		return;
	a->proved = wss_c14n_pieces(body, &o, same, &c, NULL, &ignored) ==
			    LAB_OK &&
		    c.at == a->g.tags.len + a->g.n;
	a->gen = dom_doc_generation(dom_node_doc(body));
}

int wss_ahead_take(const wss_ahead *a, const dom_node *target,
		   size_t nprefixes, unsigned char out[WSS_SHA256_LEN])
{
	if (a == NULL || !a->proved || target != a->body || nprefixes != 0 ||
	    dom_doc_generation(dom_node_doc(target)) != a->gen)
		return 0;
	memcpy(out, a->digest, WSS_SHA256_LEN);
	return 1;
}

void wss_ahead_free(wss_ahead *a)
{
	if (a == NULL)
		return;
	forget(a);
	/* The tags are the Body's, not plaintext; the digest is of it. */
	OPENSSL_cleanse(a->digest, sizeof a->digest);
	lab_buf_free(&a->g.tags);
	lab_free(a);
}
