/*
 * send_ahead.c - a sent Body's digest guessed from the message's bytes
 * on a second thread while this one parses them, then proved or dropped
 * (wss/send_ahead.h).  The guess is read off the bytes with a light
 * scan -- the root's prefix and its binding, the Body's tags -- that
 * needs to be right only as often as senders write `<soap:Body>`: the
 * proof, not the scan, decides whether the digest is taken.
 * Not for: the digest a Reference gets otherwise (wss/dsig.c).
 */
#include "wss/send_ahead.h"

#include <openssl/crypto.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dom/feed.h"
#include "util/alloc.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/timeline.h"
#include "util/worker.h"
#include "wss/guess.h"
#include "wss/profile.h"

/* The longest prefix and namespace name the guess is made with. */
enum { PREFIX_MAX = 64, URI_MAX = 512 };

struct wss_send_ahead {
	/* The guessed tags around the Body's content, in the caller's
	 * bytes. */
	wss_guess g;
	/* Content the parse puts in order: its bytes as the parse's feed
	 * streams them (NULL: as they stand), the feed's stretch from
	 * `from`, the thread's pieces in scratch, and the proof's cursor,
	 * its pieces in proofbuf, the part not yet compared pending. */
	dom_feed *feed;
	size_t from;
	char *scratch, *proofbuf;
	dom_feed_cursor proof;
	struct lab_timeline *timeline; /* the thread marks its steps */
	const char *pending;
	size_t npending;
	size_t at;           /* bytes of the stream the proof has seen */
	int mismatch;        /* the proof saw a byte the guess lacks */
	atomic_int stop;     /* the thread stops at its next chunk */
	lab_worker_job job;  /* the thread's */
	/* The thread is done hashing (it may sign next): hashed and
	 * digest are final once it is seen 1. */
	atomic_int digest_done;
	int hashed;          /* the thread made `digest` */
	int taken;           /* and wss_send_ahead_take gave it */
	unsigned char digest[WSS_SHA256_LEN];
	/* The signature made ahead: whether a SignedInfo was offered
	 * (OFFER_*), the key, the SignedInfo with the digest's base64 to
	 * go in at sign_at, and what the thread made of it. */
	atomic_int offer;
	const wss_privkey *key;
	lab_buf si, sig;
	size_t sign_at;
	int signed_ok;
};

/* offer: OPEN until the caller's thread offers a SignedInfo (MADE) or
 * says none will come (CLOSED); only that thread writes it. */
enum { OFFER_OPEN, OFFER_MADE, OFFER_CLOSED };

/* The base64 of a SHA-256 digest: 44 characters. */
enum { DIGEST_B64 = (WSS_SHA256_LEN + 2) / 3 * 4 };

/* ---- the guess ---- */

/* Where lit first stands in s[from..n); n when nowhere. */
static size_t find(const char *s, size_t n, size_t from, const char *lit)
{
	const char *at = from < n ? memmem(s + from, n - from, lit, strlen(lit))
				  : NULL;

	return at != NULL ? (size_t)(at - s) : n;
}

/* Where lit last stands in s[from..n); n when nowhere. */
static size_t find_last(const char *s, size_t n, size_t from, const char *lit)
{
	size_t k = strlen(lit), i;

	if (n < k || n - k < from)
		return n;
	for (i = n - k + 1; i-- > from;)
		if (s[i] == lit[0] && memcmp(s + i, lit, k) == 0)
			return i;
	return n;
}

/* Past the XML declaration, comments and white space in front of the
 * root element: where its '<' stands, or n. */
static size_t root_at(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')
			i++;
		else if (n - i >= 2 && memcmp(s + i, "<?", 2) == 0)
			i = find(s, n, i, "?>") + 2;
		else if (n - i >= 4 && memcmp(s + i, "<!--", 4) == 0)
			i = find(s, n, i, "-->") + 3;
		else
			return s[i] == '<' ? i : n;
	}
	return n;
}

/* A byte a namespace name is copied with as it stands in a canonical
 * attribute value (no character C14N would write as a reference). */
static int plain_value_byte(char c)
{
	return c != '&' && c != '<' && c != '"' && c != '\t' && c != '\n' &&
	       c != '\r' && c != '\0';
}

/* The binding of prefix (empty: the default namespace) that the root's
 * start tag s[from..end) declares: uri[0..*len).  0: none found. */
static int root_binding(const char *s, size_t from, size_t end,
			const char *prefix, const char **uri, size_t *len)
{
	char decl[PREFIX_MAX + 8];
	size_t at, v;
	char q;

	snprintf(decl, sizeof decl, prefix[0] ? " xmlns:%s=" : " xmlns=",
		 prefix);
	at = find(s, end, from, decl);
	if (at == end || at + strlen(decl) >= end)
		return 0;
	q = s[at + strlen(decl)];
	v = at + strlen(decl) + 1;
	if (q != '"' && q != '\'')
		return 0;
	*uri = s + v;
	for (*len = 0; v + *len < end && s[v + *len] != q; ++*len)
		if (!plain_value_byte(s[v + *len]) || *len == URI_MAX)
			return 0;
	return v + *len < end;
}

/* The Body's canonical start tag as the sender will make it, with the
 * wsu:Id "Body-1" and the two bindings it renders in prefix order, then
 * its end tag. */
static int put_tags(wss_send_ahead *a, const char *prefix, const char *uri,
		    size_t ulen)
{
	char soap[PREFIX_MAX + 16], wsu[sizeof WSS_NS_WSU + 16];
	const char *colon = prefix[0] ? ":" : "";
	int wsu_first = prefix[0] && strcmp("wsu", prefix) < 0;
	lab_buf *t = &a->g.tags;
	int rc;

	snprintf(soap, sizeof soap, " xmlns%s%s=\"", colon, prefix);
	snprintf(wsu, sizeof wsu, " xmlns:wsu=\"%s\"", WSS_NS_WSU);
	rc = lab_buf_printf(t, "<%s%sBody%s", prefix, colon,
			    wsu_first ? wsu : "");
	if (rc == LAB_OK)
		rc = lab_buf_puts(t, soap);
	if (rc == LAB_OK)
		rc = lab_buf_put(t, uri, ulen);
	if (rc == LAB_OK)
		rc = lab_buf_printf(t, "\"%s wsu:Id=\"Body-1\">",
				    wsu_first ? "" : wsu);
	a->g.split = t->len;
	if (rc == LAB_OK)
		rc = lab_buf_printf(t, "</%s%sBody>", prefix, colon);
	return rc == LAB_OK;
}

/* What tag_canonical found. */
enum { TAG_NOT = -1, TAG_CUT = -2 };

/* Whether the attribute name b[0..lb) comes after a[0..la) in C14N's
 * order (unprefixed names: bytewise, a prefix of a name first). */
static int after(const char *a, size_t la, const char *b, size_t lb)
{
	int d = memcmp(a, b, la < lb ? la : lb);

	return d < 0 || (d == 0 && la < lb);
}

/* The start tag's attributes at s[0..n), just past its name: each
 * " name=\"value\"", declarations first, the rest in C14N's order
 * (unprefixed names).  Where its '>' stands; TAG_NOT when it is not
 * so; TAG_CUT when it runs past n. */
static long tag_canonical(const char *s, size_t n)
{
	const char *last = NULL;
	size_t i = 0, lastlen = 0;

	while (i < n && s[i] == ' ') {
		const char *name = s + i + 1;
		const char *eq = memchr(name, '=', n - i - 1), *q;
		size_t k;
		int decl;

		if (eq == NULL || (size_t)(eq - s) + 1 >= n)
			return TAG_CUT;
		k = (size_t)(eq - name);
		decl = k >= 5 && memcmp(name, "xmlns", 5) == 0 &&
		       (k == 5 || name[5] == ':');
		if (k == 0 || eq[1] != '"' || memchr(name, ' ', k) != NULL ||
		    memchr(name, '>', k) != NULL || (decl && last != NULL) ||
		    (!decl && memchr(name, ':', k) != NULL) ||
		    (!decl && last != NULL && !after(last, lastlen, name, k)))
			return TAG_NOT;
		if (!decl) {
			last = name;
			lastlen = k;
		}
		q = memchr(eq + 2, '"', n - (size_t)(eq + 2 - s));
		if (q == NULL)
			return TAG_CUT;
		i = (size_t)(q - s) + 1;
	}
	if (i == n)
		return TAG_CUT;
	return s[i] == '>' ? (long)i : TAG_NOT;
}

/* Whether the first PEEK bytes of the content s[0..n) read as their own
 * canonical form: start tags as tag_canonical wants them, no comment,
 * CDATA section or processing instruction, no '>' or CR in text.  The
 * thread starts only then, so that a message whose content the parse
 * puts in order (quakes: id before depth) does not pay for it; the
 * proof still reads every byte. */
enum { PEEK = 4096 };

static int looks_canonical(const char *s, size_t n)
{
	size_t i = 0;

	if (n > PEEK)
		n = PEEK;
	while (i < n) {
		long k;

		if (s[i] == '>' || s[i] == '\r')
			return 0;
		if (s[i++] != '<')
			continue;
		if (i == n)
			break;
		if (s[i] == '!' || s[i] == '?')
			return 0;
		if (s[i] == '/') {
			const char *gt = memchr(s + i, '>', n - i);

			if (gt == NULL)
				break;
			i = (size_t)(gt - s) + 1;
			continue;
		}
		while (i < n && strchr(" \t\r\n/>", s[i]) == NULL)
			i++;
		if (i == n)
			break;
		if (s[i] != ' ' && s[i] != '>')
			return 0;
		k = tag_canonical(s + i, n - i);
		if (k == TAG_CUT)
			break;
		if (k == TAG_NOT)
			return 0;
		i += (size_t)k + 1;
	}
	return 1;
}

/* Content that does not read as its own canonical form: guessed as the
 * parse's feed streams it, with the tags it puts in order in that
 * order.  0: no memory. */
static int fed(wss_send_ahead *a, const char *s, size_t n)
{
	a->feed = dom_feed_new(s, n, a->from, a->from + a->g.n);
	a->scratch = lab_malloc(WSS_GUESS_CHUNK);
	a->proofbuf = lab_malloc(WSS_GUESS_CHUNK);
	dom_feed_seek(&a->proof, a->from);
	return a->feed != NULL && a->scratch != NULL && a->proofbuf != NULL;
}

/* The guess from s[0..n): the tags, and the content between the Body's
 * tags.  0: none, the bytes not shaped as the guess needs. */
static int guess(wss_send_ahead *a, const char *s, size_t n)
{
	char prefix[PREFIX_MAX + 1], open[PREFIX_MAX + 8];
	char close[PREFIX_MAX + 9];
	size_t root = root_at(s, n), name, end, colon, local, plen, from, to;
	size_t ulen;
	const char *uri;

	if (root == n)
		return 0;
	name = root + 1;
	for (end = name; end < n && strchr(" \t\r\n/>", s[end]) == NULL; end++)
		;
	colon = find(s, end, name, ":");
	plen = colon == end ? 0 : colon - name;
	local = colon == end ? name : colon + 1;
	if (plen > PREFIX_MAX || end - local != 8 ||
	    memcmp(s + local, "Envelope", 8) != 0)
		return 0;
	memcpy(prefix, s + name, plen);
	prefix[plen] = '\0';
	if (strcmp(prefix, "wsu") == 0)
		return 0;
	from = find(s, n, end, ">");
	if (from == n || !root_binding(s, end, from, prefix, &uri, &ulen))
		return 0;
	snprintf(open, sizeof open, "<%s%sBody>", prefix, prefix[0] ? ":" : "");
	snprintf(close, sizeof close, "</%s%sBody>", prefix,
		 prefix[0] ? ":" : "");
	from = find(s, n, from, open);
	if (from == n)
		return 0;
	from += strlen(open);
	to = find_last(s, n, from, close);
	if (to == n || to - from < WSS_GUESS_MIN)
		return 0;
	a->g.p = s + from;
	a->g.n = to - from;
	a->from = from;
	return put_tags(a, prefix, uri, ulen) &&
	       (looks_canonical(s + from, to - from) ||
		(dom_parse_feeds() && fed(a, s, n)));
}

/* ---- the thread ---- */

/* The content, chunk by chunk, until done or told to stop. */
static int hash_content(void *ctx, wss_sha256_ctx *h)
{
	wss_send_ahead *a = ctx;
	size_t at, k;

	for (at = 0; at < a->g.n; at += k) {
		if (atomic_load_explicit(&a->stop, memory_order_relaxed))
			return 0;
		k = a->g.n - at < WSS_GUESS_CHUNK ? a->g.n - at
						  : WSS_GUESS_CHUNK;
		if (wss_sha256_update(h, a->g.p + at, k) != LAB_OK)
			return 0;
	}
	return 1;
}

/*
 * The content as the parse's feed streams it, as far as the parse has
 * read it, in pieces of up to a chunk through scratch: the thread waits
 * (yields) where it has caught up with the parse, and stops where the
 * feed fails or it is told to.
 */
static int hash_fed(void *ctx, wss_sha256_ctx *h)
{
	wss_send_ahead *a = ctx;
	dom_feed_cursor c;

	dom_feed_seek(&c, a->from);
	while (!atomic_load_explicit(&a->stop, memory_order_relaxed)) {
		size_t n;
		int r = dom_feed_read(a->feed, &c, a->from + a->g.n,
				      a->scratch, WSS_GUESS_CHUNK, &n);

		if (r == DOM_FEED_RUN) {
			if (wss_sha256_update(h, a->scratch, n) != LAB_OK)
				return 0;
		} else if (r == DOM_FEED_WAIT) {
			sched_yield();
		} else {
			return r == DOM_FEED_END;
		}
	}
	return 0;
}

/* The offered SignedInfo with the digest's base64 in its place, signed,
 * unless the guess was dropped meanwhile. */
static void sign_offered(wss_send_ahead *a)
{
	lab_err ignored;

	if (atomic_load_explicit(&a->stop, memory_order_relaxed) ||
	    lab_base64_put(a->digest, WSS_SHA256_LEN, 0,
			   a->si.data + a->sign_at) == NULL)
		return;
	a->signed_ok = wss_rsa_sign_sha256(a->key, a->si.data, a->si.len,
					   &a->sig, &ignored) == LAB_OK;
	lab_timeline_mark(a->timeline, "ahead_signed");
}

/* Whether a SignedInfo was offered: waited for, yielding, until the
 * caller's thread offers one or says none will come (an offer made or
 * refused, the digest taken), or drops the guess.  The caller offers
 * right after the parse, so the wait is short where there is one: the
 * thread hashed faster than the parse and the ID drawing went. */
static int offered(const wss_send_ahead *a)
{
	int state;

	while ((state = atomic_load(&a->offer)) == OFFER_OPEN &&
	       !atomic_load_explicit(&a->stop, memory_order_relaxed))
		sched_yield();
	return state == OFFER_MADE;
}

static void hash(void *arg)
{
	wss_send_ahead *a = arg;

	lab_timeline_mark(a->timeline, "ahead_started");
	a->hashed = wss_guess_hash(&a->g,
				   a->feed != NULL ? hash_fed : hash_content,
				   a, a->digest);
	lab_timeline_mark(a->timeline, "ahead_hashed");
	atomic_store(&a->digest_done, 1);
	if (a->hashed && offered(a))
		sign_offered(a);
}

void wss_send_ahead_start(wss_send_ahead **out, const char *buf, size_t len,
			  const wss_opts *o)
{
	wss_send_ahead *a = NULL;

	*out = NULL;
	if (o->threads < 2 || o->layout != WSS_SIGN_ENCRYPT ||
	    o->headers_only || len < WSS_GUESS_MIN)
		return;
	a = lab_calloc(1, sizeof *a);
	if (a == NULL)
		return;
	a->g.tags = (lab_buf)LAB_BUF_INIT;
	a->si = (lab_buf)LAB_BUF_INIT;
	a->sig = (lab_buf)LAB_BUF_INIT;
	a->timeline = o->timeline;
	atomic_init(&a->stop, 0);
	atomic_init(&a->digest_done, 0);
	atomic_init(&a->offer, OFFER_OPEN);
	if (guess(a, buf, len) && lab_worker_start(&a->job, hash, a))
		*out = a;
	else
		wss_send_ahead_free(a);
}

struct dom_feed *wss_send_ahead_feed(const wss_send_ahead *a)
{
	return a != NULL ? a->feed : NULL;
}

/* ---- the proof ---- */

/* Whether the stream's byte at a->at is the fed content's. */
static int in_fed(const wss_send_ahead *a)
{
	return a->feed != NULL && a->at >= a->g.split &&
	       a->at < a->g.split + a->g.n;
}

/* The guessed stream at a->at, and how many bytes of it follow in one
 * run (0: none, past the end or where the feed cannot say). */
static const char *want(wss_send_ahead *a, size_t *run)
{
	if (!in_fed(a))
		return wss_guess_at(&a->g, a->at, run);
	if (a->npending == 0) {
		a->pending = a->proofbuf;
		if (dom_feed_read(a->feed, &a->proof, a->from + a->g.n,
				  a->proofbuf, WSS_GUESS_CHUNK,
				  &a->npending) != DOM_FEED_RUN)
			a->npending = 0;
	}
	*run = a->npending;
	return a->pending;
}

int wss_send_ahead_match(void *ctx, const char *p, size_t n)
{
	wss_send_ahead *a = ctx;

	while (n > 0 && !a->mismatch) {
		size_t run;
		const char *w = want(a, &run);
		size_t k = n < run ? n : run;

		if (run == 0 || memcmp(w, p, k) != 0) {
			/* A guess proved wrong needs no more hashing. */
			a->mismatch = 1;
			wss_send_ahead_drop(a);
			break;
		}
		if (in_fed(a)) {
			a->pending += k;
			a->npending -= k;
		}
		a->at += k;
		p += k;
		n -= k;
	}
	return LAB_OK;
}

void wss_send_ahead_drop(wss_send_ahead *a)
{
	atomic_store_explicit(&a->stop, 1, memory_order_relaxed);
}

int wss_send_ahead_take(wss_send_ahead *a, unsigned char out[WSS_SHA256_LEN])
{
	if (a == NULL)
		return 0;
	if (a->mismatch || a->at != a->g.tags.len + a->g.n) {
		wss_send_ahead_drop(a);
		return 0;
	}
	/* The walk proved the guess; what follows waits for the thread's
	 * digest, not for its signature, and the thread must not wait for
	 * an offer any more. */
	lab_timeline_mark(a->timeline, "ahead_proved");
	if (atomic_load(&a->offer) == OFFER_OPEN)
		atomic_store(&a->offer, OFFER_CLOSED);
	while (!atomic_load(&a->digest_done))
		sched_yield();
	if (!a->hashed)
		return 0;
	memcpy(out, a->digest, WSS_SHA256_LEN);
	a->taken = 1;
	lab_timeline_mark(a->timeline, "digest_taken");
	return 1;
}

/* ---- the signature ---- */

int wss_send_ahead_offer(wss_send_ahead *a, const wss_privkey *key,
			 const char *si, size_t n, size_t at)
{
	int state = OFFER_CLOSED;

	/* Offered once: the thread may be reading the first offer. */
	if (a == NULL || atomic_load(&a->offer) != OFFER_OPEN)
		return 0;
	if (si != NULL && at <= n && n <= SIZE_MAX - DIGEST_B64 &&
	    lab_buf_reserve(&a->si, n + DIGEST_B64) == LAB_OK) {
		/* The digest's characters go in between; until then,
		 * zeros. */
		memcpy(a->si.data, si, at);
		memset(a->si.data + at, 0, DIGEST_B64);
		memcpy(a->si.data + at + DIGEST_B64, si + at, n - at);
		a->si.len = n + DIGEST_B64;
		a->key = key;
		a->sign_at = at;
		state = OFFER_MADE;
	}
	/* Sequentially consistent: a thread that sees MADE sees the
	 * SignedInfo and the key. */
	atomic_store(&a->offer, state);
	return state == OFFER_MADE;
}

int wss_send_ahead_signature(wss_send_ahead *a, const char *si, size_t n,
			     lab_buf *sig)
{
	if (a == NULL || !a->taken)
		return 0;
	/* The thread's last store: what it wrote is seen after it. */
	lab_worker_wait(&a->job);
	if (!a->signed_ok || a->si.len != n ||
	    memcmp(a->si.data, si, n) != 0 ||
	    lab_buf_put(sig, a->sig.data, a->sig.len) != LAB_OK)
		return 0;
	lab_timeline_mark(a->timeline, "signature_taken");
	return 1;
}

int wss_send_ahead_taken(const wss_send_ahead *a)
{
	return a != NULL && a->taken;
}

void wss_send_ahead_free(wss_send_ahead *a)
{
	if (a == NULL)
		return;
	wss_send_ahead_drop(a);
	lab_worker_end(&a->job);
	OPENSSL_cleanse(a->digest, sizeof a->digest);
	lab_buf_free(&a->g.tags);
	lab_buf_free(&a->si);
	lab_buf_free(&a->sig);
	dom_feed_free(a->feed);
	/* They held plaintext of the Body. */
	if (a->scratch != NULL)
		OPENSSL_cleanse(a->scratch, WSS_GUESS_CHUNK);
	if (a->proofbuf != NULL)
		OPENSSL_cleanse(a->proofbuf, WSS_GUESS_CHUNK);
	lab_free(a->scratch);
	lab_free(a->proofbuf);
	lab_free(a);
}
