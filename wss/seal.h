/*
 * seal.h - the Body's CipherValue made while signing digests the Body's
 * content (sign-then-encrypt encrypts exactly the bytes it digested):
 * the content's canonical bytes go, in pieces, from the digest's walk
 * to the cipher and from there, as base64, straight into the text node
 * that becomes the CipherValue's.  Neither the plaintext nor the
 * ciphertext is ever held whole; the only plaintext held is a window
 * (and CBC's partial block), wiped.
 * It needs the content's length before the first byte (the text node is
 * made at its final size): the bytes the document keeps for the Body's
 * content tell it (dom_canonical_content_peek).  Where they are not kept,
 * or the digest's bytes turn out to be others, encryption takes today's
 * whole buffer instead (wss_seal_abandon; wss/xenc.c).
 * Not for: other parts (header blocks, the Signature), or the
 * encrypt-sign layout, whose plaintext is not digested.
 */
#ifndef WSS_SEAL_H
#define WSS_SEAL_H

#include "wss/crypto.h"
#include "wss/msg.h"

enum { WSS_SEAL_KEY = 32 };

typedef struct wss_seal {
	wss_cipher cipher;
	unsigned char key[WSS_SEAL_KEY]; /* the session key, drawn first */
	size_t keylen;
	wss_enc_stream *enc;   /* NULL once abandoned */
	lab_buf window;        /* what the digest's walk writes: m->content */
	lab_buf plain;         /* the whole-buffer fallback, once abandoned */
	dom_node *text;        /* the CipherValue's text, until taken */
	dom_b64 b64;           /* what writes it */
	size_t expect, got;    /* plaintext bytes: announced, and seen */
	int done;              /* the text is finished (after the join) */
	struct wss_pipelined *pipe; /* the encrypting thread, or NULL */
	const wss_cert *peer;  /* pipelined: whom the thread wraps key for */
	lab_buf wrapped;       /* and the wrapped key, after the join */
	struct lab_timeline *timeline; /* m's: "sealed", on either thread */
} wss_seal;

/*
 * Draws the session key (and the IV), makes the text node for n bytes of
 * plaintext under cipher c, and points m->content at the seal's window
 * (m->seal at the seal).  On failure the seal is still freed by
 * wss_seal_free.
 */
int wss_seal_begin(wss_seal *s, wss_msg *m, wss_cipher c, size_t n,
		   lab_err *err);
/*
 * Right after wss_seal_begin, for content longer than one piece
 * (WSS_PIPELINED_PIECE): a second thread encrypts and encodes the
 * content as the digest's walk hands it over (wss/send_pipelined.h),
 * then wraps the session key for peer (RSA-OAEP, into s->wrapped) while
 * this thread signs.  Shorter content stays on this thread: the thread
 * would cost more than it saves.  The output is the same bytes either
 * way but the random ones.
 */
int wss_seal_pipeline(wss_seal *s, const wss_cert *peer, lab_err *err);
/* After the digest's walk: the tag or padding (pipelined: handed to the
 * thread, which then finishes alone).  WSS_C14N_AGAIN when the walk gave
 * other than the n bytes announced (then abandon it). */
int wss_seal_end(wss_seal *s, lab_err *err);
/* Waits for a pipelined seal's thread and gives its code; LAB_OK at once
 * when there is none.  Before wss_seal_take: the text is the thread's
 * until then. */
int wss_seal_join(wss_seal *s, lab_err *err);
/*
 * Gives up streaming (a thread stopped, what the seal made wiped): m->content becomes a
 * plain buffer with room for the content at m->content_at, after room
 * for the IV, as for a send that does not stream; m->seal stays, for
 * the key.  LAB_ENOMEM when that room cannot be had.
 */
int wss_seal_abandon(wss_seal *s, wss_msg *m, lab_err *err);
/* The finished CipherValue text, taken (once); NULL when not done. */
dom_node *wss_seal_take(wss_seal *s);
/* Stops a thread still running; wipes the key and the window; frees a
 * text node not taken. */
void wss_seal_free(wss_seal *s);

#endif
