/*
 * digest_ahead.c - a decrypted Body's digest guessed on a second thread
 * during the plaintext's parse, then proved or dropped
 * (wss/digest_ahead.h).
 * Not for: the digest a Reference gets otherwise (wss/dsig.c).
 */
#include "wss/digest_ahead.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <string.h>

#include "util/alloc.h"
#include "wss/c14n.h"

/* Below this much plaintext the thread costs what its hashing saves:
 * starting it takes about 70 us here, SHA-256 runs at about 1.4 GB/s
 * against the parse's 1.8, so the parse waits for the hash's tail; on
 * 2 cores receive_pipelined/quakes-200k took about 2% longer than
 * receive, quakes-2m 12% less. */
enum { AHEAD_MIN = 256 * 1024 };

struct wss_ahead {
	dom_parse_watch watch;
	lab_buf tags;       /* the Body's canonical start and end tags */
	size_t split;       /* where the end tag starts in tags */
	const char *p;      /* the plaintext hashed, in the document's bytes */
	size_t n;
	int running;        /* a thread to join */
	int hashed;         /* the thread made `digest` */
	int proved;         /* and it is the Body's, at generation `gen` */
	const dom_node *body;
	uint64_t gen;
	pthread_t tid;
	unsigned char digest[WSS_SHA256_LEN];
};

int wss_ahead_new(wss_ahead **out, lab_err *err)
{
	wss_ahead *a = lab_calloc(1, sizeof *a);

	*out = a;
	if (a == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	return LAB_OK;
}

/* The thread: the tags around the plaintext, into a->digest. */
static void *hash(void *arg)
{
	wss_ahead *a = arg;
	wss_sha256_ctx *h = NULL;
	lab_err ignored;

	a->hashed = wss_sha256_new(&h, &ignored) == LAB_OK &&
		    wss_sha256_update(h, a->tags.data, a->split) == LAB_OK &&
		    wss_sha256_update(h, a->p, a->n) == LAB_OK &&
		    wss_sha256_update(h, a->tags.data + a->split,
				      a->tags.len - a->split) == LAB_OK &&
		    wss_sha256_final(h, a->digest) == LAB_OK;
	wss_sha256_free(h);
	return NULL;
}

/* The watch's first call: the bytes are where they will be parsed. */
static void parsing(void *ctx, const char *p, size_t n)
{
	wss_ahead *a = ctx;

	a->p = p;
	a->n = n;
	a->running = pthread_create(&a->tid, NULL, hash, a) == 0;
}

/* Its second: the parse is over, the bytes are the document's again. */
static void parsed(void *ctx)
{
	wss_ahead *a = ctx;

	if (a->running)
		pthread_join(a->tid, NULL);
	a->running = 0;
}

static void forget(wss_ahead *a)
{
	parsed(a);
	a->hashed = a->proved = 0;
	a->body = NULL;
	a->p = NULL;
	a->n = 0;
}

const dom_parse_watch *wss_ahead_begin(wss_ahead *a, const dom_node *body,
				       const dom_node *old, size_t len)
{
	wss_c14n_opts o = {1, 0, NULL, 0, old};
	char qname[256];
	lab_err ignored;
	size_t end;

	forget(a);
	a->tags.len = 0;
	if (len < AHEAD_MIN || dom_first_child(body) != old ||
	    dom_next_sibling(old) != NULL)
		return NULL;
	/* With old left out: the start tag, then the end tag. */
	end = dom_qname(body, qname, sizeof qname) + 3;
	if (wss_c14n_buf(body, &o, &a->tags, &ignored) != LAB_OK ||
	    a->tags.len < end)
		return NULL;
	a->split = a->tags.len - end;
	a->body = body;
	a->watch = (dom_parse_watch){parsing, parsed, a};
	return &a->watch;
}

/* Where the stream compared so far stands against the one hashed. */
typedef struct compare {
	const wss_ahead *a;
	size_t at; /* bytes of the stream seen */
} compare;

/* The expected stream's bytes at offset `at`, and how many follow in
 * the same part (tags before, plaintext, tags after). */
static const char *expected(const wss_ahead *a, size_t at, size_t *run)
{
	if (at < a->split) {
		*run = a->split - at;
		return a->tags.data + at;
	}
	at -= a->split;
	if (at < a->n) {
		*run = a->n - at;
		return a->p + at;
	}
	at -= a->n;
	*run = a->tags.len - a->split - at;
	return a->tags.data + a->split + at;
}

/* The sink: each piece the same bytes as the hashed stream's, in order;
 * bytes at the same address within the plaintext are the same bytes. */
static int same(void *ctx, const char *p, size_t n)
{
	compare *c = ctx;

	while (n > 0) {
		size_t run;
		const char *want = expected(c->a, c->at, &run);
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

	a->proved = 0;
	if (!a->hashed || body != a->body ||
	    dom_canonical_content_peek(body, &len, &ndeps) == NULL)
		return;
	a->proved = wss_c14n_pieces(body, &o, same, &c, NULL, &ignored) ==
			    LAB_OK &&
		    c.at == a->tags.len + a->n;
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
	lab_buf_free(&a->tags);
	lab_free(a);
}
