/*
 * digest_ahead.h - a decrypted Body's digest made behind its
 * decryption: on a second thread, which goes on while this one parses
 * the plaintext (receive on two threads, wss_opts.threads = 2), or on
 * this thread, each piece hashed as soon as it is decrypted, while it
 * is still in the first-level cache (one thread with pass=fused).
 *
 * The Signature's Reference to the Body digests exc-c14n(Body): its
 * start tag, its content, its end tag.  Where the content's canonical
 * form is the plaintext itself (a sender that encrypted the canonical
 * bytes it digested, as this one does), that digest can be made before
 * the plaintext is parsed: the tags come from the Body as it stands,
 * which its content does not enter, and the content is the bytes the
 * parse reads.  So they are hashed as they are decrypted, piece by
 * piece behind the decryption (wss/pass.h's watch): on a second thread
 * that goes on while the parse runs, or on this one before the next
 * piece is decoded, which saves the digest's own pass over a plaintext
 * larger than the caches.
 *
 * It is a guess, and it is taken only once proved.  After the parse,
 * when the document keeps the very bytes that were hashed for the
 * Body's content, the Body's canonical form is streamed as a verifier's
 * digest streams it and compared with what was hashed: the kept bytes
 * by their address (the document's own memory, which it has not
 * written since), the rest byte for byte.  The digest then stands for
 * the Body while the document does not change (dom_doc_generation),
 * for a Reference without a PrefixList: the guess is made without one.
 * Otherwise the Reference is digested as it would have been, so a wrong
 * guess costs the hashing and never changes an answer.  The guess hashes
 * at most the plaintext the parse reads anyway.  It reads plaintext
 * before GCM's tag or CBC's padding is checked, which only a proved
 * digest, after both, can use; a failed decryption stops it before the
 * bytes are wiped, and the failure costs no more than the hashing of
 * what was decrypted.
 * Not for: header blocks, the Signature, or a plaintext decrypted in a
 * buffer of its own (the CipherValue not one text).
 */
#ifndef WSS_DIGEST_AHEAD_H
#define WSS_DIGEST_AHEAD_H

#include "dom/dom.h"
#include "wss/crypto.h"
#include "wss/pass.h"

typedef struct wss_ahead wss_ahead;

struct lab_timeline;

/* An empty guesser, for one message's receive: hashing on a second
 * thread (on_thread), or on the one that decrypts; the thread marks its
 * steps on tl (util/timeline.h; NULL: nowhere). */
int wss_ahead_new(wss_ahead **out, int on_thread, struct lab_timeline *tl,
		  lab_err *err);

/* Whether a message of source_len bytes may carry a plaintext large
 * enough for a guess (a CipherValue decodes to 3 bytes in 4 at most):
 * below that, the guesser is not worth making. */
int wss_ahead_worth(size_t source_len, int on_thread);

/*
 * Prepares a guess for body, whose only child old a plaintext of about
 * len bytes is about to replace: the Body's canonical tags.  When old
 * is not alone, the plaintext is shorter than the guess is worth, or
 * the tags cannot be had, no guess is made: NULL, no watch.
 * wss_ahead_decrypting is called before the decryption (len: what the
 * CipherValue's characters decode to at most), and its watch, handed to
 * wss_pass_open, starts the hashing on the first plaintext decrypted.
 * wss_ahead_begin is called before the parse, with the plaintext's
 * length: its watch, handed to dom_replace_parsed_held, goes on with
 * the thread the decryption started (or starts it) at `parsing` and
 * waits for it at `done`.  On this thread the guess is the one the
 * decryption hashed whole, or none.
 */
const wss_pass_watch *wss_ahead_decrypting(wss_ahead *a, const dom_node *body,
					   const dom_node *old, size_t len);
const dom_parse_watch *wss_ahead_begin(wss_ahead *a, const dom_node *body,
				       const dom_node *old, size_t len);

/* After the parse replaced old: proves the guess, or drops it. */
void wss_ahead_check(wss_ahead *a, const dom_node *body);

/* 1 and the digest when the guess stands for a Reference to target
 * with nprefixes prefixes in its PrefixList; else 0. */
int wss_ahead_take(const wss_ahead *a, const dom_node *target,
		   size_t nprefixes, unsigned char out[WSS_SHA256_LEN]);

/* Waits for a thread still running; frees a (NULL: nothing). */
void wss_ahead_free(wss_ahead *a);

#endif
