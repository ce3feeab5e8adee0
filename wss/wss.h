/*
 * wss.h - the pipeline's entry points, one per command: sign, verify,
 * encrypt, decrypt, and the two compositions the profile is about --
 * send (sign, then encrypt, or the other way round) and receive (the
 * Timestamp, then the Security header's elements in order, then the
 * receiver policy).  Each works on a parsed document in place; the caller
 * serializes it only when the call succeeded.
 */
#ifndef WSS_WSS_H
#define WSS_WSS_H

#include <time.h>

#include "dom/dom.h"
#include "wss/caps.h"
#include "wss/crypto.h"

struct lab_timeline;

/* How send names the recipient's certificate in the EncryptedKey
 * (wss/keyid.c writes and matches the four forms). */
typedef enum wss_key_id {
	WSS_KEYID_THUMBPRINT,    /* KeyIdentifier, ThumbprintSHA1 */
	WSS_KEYID_ISSUER_SERIAL, /* ds:X509Data/ds:X509IssuerSerial */
	WSS_KEYID_SKI,           /* KeyIdentifier, X509SubjectKeyIdentifier */
	WSS_KEYID_BST            /* Reference to a BinarySecurityToken */
} wss_key_id;

/* "thumbprint" | "issuer-serial" | "ski" | "bst" (send --key-id), else
 * LAB_EUSAGE. */
int wss_key_id_from_name(const char *name, wss_key_id *out, lab_err *err);

/* The order send applies its two protections in.  Receive takes either:
 * it processes the Security header in order. */
typedef enum wss_layout {
	WSS_SIGN_ENCRYPT, /* the Signature covers the plaintext Body */
	WSS_ENCRYPT_SIGN  /* the Signature covers the EncryptedData */
} wss_layout;

/* What receive says for a failed decryption and for a signature that
 * fails after anything was decrypted: one message, so that neither
 * tells how a ciphertext decrypted (SECURITY.md). */
#define WSS_NOT_RECEIVED "decryption failed or the signature does not verify"

typedef struct wss_opts {
	time_t now;        /* the clock, fixed by tests */
	unsigned ttl;      /* Timestamp lifetime in seconds */
	wss_cipher cipher;
	wss_layout layout;   /* send */
	wss_key_id key_id;   /* how send names the recipient */
	/* send: the Signature encrypted too (WS-SecurityPolicy's
	 * EncryptSignature), sign-encrypt only; and the first header block
	 * named "{uri}local" encrypted into a wsse11:EncryptedHeader (NULL:
	 * none). */
	int encrypt_signature;
	const char *encrypt_header;
	/* The receiver's own certificate, which picks the EncryptedKey
	 * addressed to it when that names it by thumbprint, SKI or issuer
	 * and serial; NULL: such keys are tried. */
	const wss_cert *self;
	dom_limits lim;    /* for the decrypted plaintext */
	wss_caps caps;     /* pre-authentication work (wss/caps.h) */
	/* Attachments signed with the message or required signed in it
	 * (wss/attach.h); none by default. */
	const struct wss_attachment *att;
	size_t natt;
	/* sign, send: the wsa:To header block to add and sign (NULL: none);
	 * forward: the address the message must carry (NULL: any). */
	const char *to;
	/* sign, send: 1 signs the Timestamp and wsa:To, not the Body. */
	int headers_only;
	/* receive, decrypt: 1 accepts AES-128-CBC data, only where a
	 * Signature verified before its decryption covers it (SECURITY.md);
	 * 0 refuses it. */
	int allow_cbc;
	/* send: 2 encrypts the Body's content on a second thread while this
	 * one digests and signs (wss/seal.h), where it is sealed; given the
	 * message's bytes (wss_send_bytes), the second thread digests the
	 * Body during the parse instead, and this one encrypts
	 * (wss/send_ahead.h).  The same bytes as 1.  receive: 2 digests the Body on a second thread as
	 * this one decrypts and parses it (wss/digest_ahead.h); the same
	 * answers as 1. */
	int threads;
	/* Marks when each step of the message ends, on either thread
	 * (util/timeline.h: parsed, signed, encrypted, unwrapped; the
	 * second thread's ahead_started and ahead_hashed...); NULL: none. */
	struct lab_timeline *timeline;
} wss_opts;

/* Defaults: the real clock, 300 s, AES-256-GCM, sign then encrypt, the
 * recipient named by thumbprint, only the Body's content encrypted, no
 * own certificate, default limits and caps, no attachments, no wsa:To,
 * the Body signed, one thread, no timeline. */
void wss_opts_default(wss_opts *o);

/*
 * Each returns LAB_OK, or the code and message of the first failure.
 * The senders (sign, encrypt, send) fail with LAB_EMALFORMED on a
 * document that is not a SOAP 1.1 envelope; the receivers (verify,
 * decrypt, receive) with LAB_ESECURITY when a check refuses the message
 * (SECURITY.md).  After a failure the document may be half-processed:
 * free it, never read or serialize it.
 */

/* Adds a Timestamp and a BinarySecurityToken of cert to the Security
 * header and signs Body and Timestamp (exc-c14n, RSA-SHA256) with key. */
int wss_sign_doc(dom_doc *doc, const wss_privkey *key, const wss_cert *cert,
		 const wss_opts *o, lab_err *err);
/* Checks the Timestamp against o->now, then that the signature covers
 * Body and Timestamp, verifies, and was made by trust's certificate. */
int wss_verify_doc(dom_doc *doc, const wss_cert *trust, const wss_opts *o,
		   lab_err *err);
/* Encrypts the Body's content (o->cipher under a fresh key, wrapped
 * for peer with RSA-OAEP) in place. */
int wss_encrypt_doc(dom_doc *doc, const wss_cert *peer, const wss_opts *o,
		    lab_err *err);
/* Decrypts every EncryptedData the header's EncryptedKey lists, with
 * key; the plaintext is parsed back in place under o->lim. */
int wss_decrypt_doc(dom_doc *doc, const wss_privkey *key, const wss_opts *o,
		    lab_err *err);
/* Sign, then encrypt (or the other way round, o->layout), with the
 * Signature and a header block encrypted too when o asks: the message a
 * receiver takes. */
int wss_send_doc(dom_doc *doc, const wss_privkey *key, const wss_cert *cert,
		 const wss_cert *peer, const wss_opts *o, lab_err *err);
/* wss_send_doc of a document dom_parse_signing parsed from bytes that
 * ahead, a guess at the Body's digest, was started on before the parse
 * (wss/send_ahead.h); the guess is taken only where proved.  NULL:
 * wss_send_doc.  wire not NULL: the message also serialized into it
 * (dom_serialize), on LAB_OK only; where the second thread signs and
 * wire has no writer, while it signs, the SignatureValue written in
 * last. */
struct wss_send_ahead;
int wss_send_doc_ahead(dom_doc *doc, const wss_privkey *key,
		       const wss_cert *cert, const wss_cert *peer,
		       const wss_opts *o, struct wss_send_ahead *ahead,
		       lab_buf *wire, lab_err *err);
/* The bytes buf[0..len) parsed for signing within o->lim into *out (the
 * caller frees it, on failure too), then sent, and serialized into wire
 * when not NULL, as wss_send_doc_ahead does: with o->threads 2 the
 * Body's digest guessed on the second thread during the parse. */
int wss_send_bytes(const char *buf, size_t len, const wss_privkey *key,
		   const wss_cert *cert, const wss_cert *peer,
		   const wss_opts *o, dom_doc **out, lab_buf *wire,
		   lab_err *err);
/* Timestamp, decrypt, check the message kept its shape, verify: on
 * LAB_OK the document is the plaintext message whose Body and Timestamp
 * trust signed; a decrypted header block stands where its
 * EncryptedHeader stood, as unauthenticated as any header block the
 * Signature does not reference. */
int wss_receive_doc(dom_doc *doc, const wss_privkey *key,
		    const wss_cert *trust, const wss_opts *o, lab_err *err);

/*
 * What an intermediary does (wss/hop.c): checks the Timestamp, then a
 * Signature by trust that covers the Timestamp and the Header's one
 * wsa:To, and with o->to that wsa:To is o->to.  Only header blocks are
 * read and digested; a Reference to anything else (the Body, or in it)
 * is the final recipient's to check, not this hop's.  The document is
 * not changed; on LAB_OK the wsa:To's text is appended to `to` (which
 * it reads back: a buffer with a writer is LAB_EUSAGE).
 */
int wss_forward_doc(dom_doc *doc, const wss_cert *trust, const wss_opts *o,
		    lab_buf *to, lab_err *err);

#endif
