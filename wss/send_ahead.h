/*
 * send_ahead.h - a sent Body's digest made on a second thread while
 * this one parses the message: send on two threads (wss_opts.threads =
 * 2) with the sign-then-encrypt layout.
 *
 * The Body's Reference digests exc-c14n(Body): its start tag (which
 * gains the wsu:Id the sender draws), its content and its end tag.
 * Where the content in the message's bytes is already its canonical
 * form, that digest can be made from the bytes before they are parsed:
 * the thread hashes a guess of the start tag ("Body-1", the Id the
 * sender draws when no other element has it), the bytes between the
 * Body's tags as they stand, and the end tag, while this thread parses,
 * and then encrypts.  So on two cores the parse and SHA-256 overlap,
 * and SHA-256 and AES-GCM, where wss/send_pipelined.h overlaps only the
 * last two.
 *
 * Content whose bytes are not their canonical form as they stand but
 * for the order of attributes, which build=deferred's parse puts right
 * (quakes as generated: id before depth), is guessed as the parse goes:
 * the parse tells the thread, through a feed (dom/feed.h), how far it
 * has read and which tags it puts in order, and the thread hashes each
 * stretch in that order as soon as the parse has passed it.  So the
 * digest is made beside the parse, not after it.  On builds whose
 * parse notes nothing the thread learns that when the parse ends, and
 * stops.
 *
 * Offered SignedInfo's canonical form with the Body's DigestValue left
 * out (wss_send_ahead_offer), the thread also signs it once it has the
 * digest, so that RSA's signature is made beside this thread's walk and
 * not after it; the signature is taken only with the digest, and only
 * when the SignedInfo this thread then makes is the one signed.
 *
 * It is a guess, taken only once proved: when the Body is digested, its
 * canonical form is streamed past the guessed one (wss_send_ahead_match)
 * and compared byte for byte; only when every byte matched does the
 * digest stand (wss_send_ahead_take).  Otherwise the Body is digested
 * as it would have been, so a wrong guess costs the second thread's
 * work and never changes an answer.  The thread reads only the caller's
 * bytes, which stay unchanged until wss_send_ahead_free, and at most
 * all of them once.
 * Not for: header blocks, a Body with attributes of its own, the
 * encrypt-then-sign layout, or receive (wss/digest_ahead.h).
 */
#ifndef WSS_SEND_AHEAD_H
#define WSS_SEND_AHEAD_H

#include <stddef.h>

#include "wss/crypto.h"
#include "wss/wss.h"

typedef struct wss_send_ahead wss_send_ahead;

/*
 * Before the parse of buf[0..len): starts the thread on a guess when o
 * asks for two threads and sign-then-encrypt of the Body, and the bytes
 * hold a Body, with no attributes, long enough for the thread to pay
 * for itself.  *out is NULL when no guess is made: never an error.
 * buf must stay as it is until wss_send_ahead_free, and be parsed by
 * dom_parse_signing_fed with wss_send_ahead_feed(*out).
 */
void wss_send_ahead_start(wss_send_ahead **out, const char *buf, size_t len,
			  const wss_opts *o);

/* The feed the parse of the bytes tells (dom_parse_signing_fed); NULL
 * when the guess needs none (a NULL: none either). */
struct dom_feed *wss_send_ahead_feed(const wss_send_ahead *a);

/* A wss_sink_fn (wss/c14n.h) for the Body's canonical bytes, in order:
 * compares them with the guess; always LAB_OK, so that the walk goes on
 * capturing the content whatever the guess. */
int wss_send_ahead_match(void *a, const char *p, size_t n);

/* After the Body's walk: 1 and the thread's digest (waited for, not
 * its signature) when the walk gave exactly the guessed stream; else 0,
 * and the thread stops at its next chunk, its work no longer wanted. */
int wss_send_ahead_take(wss_send_ahead *a, unsigned char out[WSS_SHA256_LEN]);

/* A walk that did not finish (an error, or WSS_C14N_AGAIN's restart,
 * which digests without a guess): the thread stops at its next chunk,
 * so that it does not hash on beside the restart. */
void wss_send_ahead_drop(wss_send_ahead *a);

/*
 * The Signature made ahead too, offered before the Body's walk: si[0..n)
 * is SignedInfo's canonical form with the Body's DigestValue left empty
 * at si[at].  The thread, once it has the digest, writes its base64
 * there and signs the result with key, while this thread walks the
 * Body; done hashing first, it waits for the offer.  si NULL: none will
 * come, and it stops waiting (so does wss_send_ahead_take).  1 when
 * offered; 0 when not (a NULL, an offer made before, no memory): this
 * thread then signs.  key must stay as it is until wss_send_ahead_free.
 */
int wss_send_ahead_offer(wss_send_ahead *a, const wss_privkey *key,
			 const char *si, size_t n, size_t at);

/* After wss_send_ahead_take gave the digest: 1 and the thread's
 * signature (waited for) appended to sig when the thread signed
 * exactly si[0..n) (compared byte for byte); else 0, and this thread
 * signs.  Asked as late as the message allows, it leaves the time
 * between the digest and the signature to this thread's other work. */
int wss_send_ahead_signature(wss_send_ahead *a, const char *si, size_t n,
			     lab_buf *sig);

/* 1 when wss_send_ahead_take gave the thread's digest (NULL: 0). */
int wss_send_ahead_taken(const wss_send_ahead *a);

/* Stops the thread where it is, waits for it, frees a (NULL: nothing). */
void wss_send_ahead_free(wss_send_ahead *a);

#endif
