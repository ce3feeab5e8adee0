/*
 * xenc.h - XML Encryption as the profile uses it: the Body's content
 * encrypted into one xenc:EncryptedData (Type Content), and optionally
 * the Signature and header blocks each into one of Type Element, under
 * one session key wrapped with RSA-OAEP into an xenc:EncryptedKey in the
 * Security header, whose KeyInfo names the recipient (wss/keyid.h) and
 * whose ReferenceList names every EncryptedData.
 */
#ifndef WSS_XENC_H
#define WSS_XENC_H

#include "wss/crypto.h"
#include "wss/keyid.h"
#include "wss/msg.h"

enum { WSS_XENC_MAX_PARTS = 4 };

/* Encrypts the Body's content for peer, its EncryptedKey first in the
 * Security header, naming peer in form key_id; then each of the nparts
 * (at most WSS_XENC_MAX_PARTS) elements of parts -- the Signature, a
 * header block -- in its place (a header block inside a
 * wsse11:EncryptedHeader), under the same key. */
int wss_xenc_encrypt(wss_msg *m, const wss_cert *peer, wss_cipher cipher,
		     wss_key_id key_id, dom_node *const *parts, size_t nparts,
		     lab_err *err);

/*
 * Receiving, one Security header element at a time in the header's order
 * (pipeline.c walks it and verifies the Signature where it stands).
 *
 * begin counts the EncryptedKeys and every DataReference (an
 * EncryptedKey's ReferenceList or a standalone one) against m->caps,
 * picks the EncryptedKeys addressed to this receiver (wss/keyid.h: `key`
 * and `self`, its certificate, which may be NULL), and resolves and
 * checks every DataReference it will decrypt -- an EncryptedData child
 * of the Body (Type Content), of the Security header or of a
 * wsse11:EncryptedHeader (Type Element), named once, with XML
 * Encryption's children only -- all before the first private-key
 * operation; AES-128-CBC only where m->allow_cbc allows it (wss/msg.h).
 * What decrypts in the Security header must be one ds:Signature, in an
 * EncryptedHeader one element, which replaces it.
 *
 * step decrypts what el lists when el is an EncryptedKey addressed to
 * this receiver or a standalone ReferenceList, and nothing otherwise;
 * *decrypted says whether it did.  Every failure after the structure
 * checks -- wrong key, bad tag or padding, plaintext that does not parse
 * -- is the same LAB_ESECURITY "decryption failed" (rx->failed set), so
 * the receiver is no oracle.  What decrypted may not add an element of
 * the SOAP envelope namespace named Envelope, Header or Body, nor an ID
 * another element carries: LAB_ESECURITY naming the element.  On failure
 * the document may be partly decrypted: callers write nothing from it.
 *
 * policy is the receiver's rule on encryption: the Body's content is
 * EncryptedData only, and every one of them was decrypted.
 * end wipes the session keys and frees what begin took; it is safe after
 * a failed begin.
 */
typedef struct wss_xenc_rx {
	wss_msg *m;
	const wss_privkey *key;
	const wss_cert *self;
	const dom_limits *lim;
	struct wss_rx_ref *refs;
	size_t nrefs;
	struct wss_rx_key *keys;
	size_t nkeys;
	size_t body_eds;    /* the Body's EncryptedData before any step */
	size_t decrypted;   /* of them decrypted so far (the Body's only) */
	const char *plain;  /* the first Body element not encrypted, or
			     * "#text" for text beside the EncryptedData */
	int failed;         /* a step failed as "decryption failed" */
	/* What each decryption so far produced: the decrypted element, or
	 * the Body for its content. */
	dom_node **tops;
	size_t ntops;
} wss_xenc_rx;

int wss_xenc_rx_begin(wss_xenc_rx *rx, wss_msg *m, const wss_privkey *key,
		      const wss_cert *self, const dom_limits *lim,
		      lab_err *err);
int wss_xenc_rx_step(wss_xenc_rx *rx, const dom_node *el, int *decrypted,
		     lab_err *err);
int wss_xenc_rx_policy(const wss_xenc_rx *rx, lab_err *err);
/* Refuses a Signature Reference that resolves into decrypted content
 * (a decrypted element or its descendants, or the Body's decrypted
 * content); run once every step is done. */
int wss_xenc_rx_signed_check(const wss_xenc_rx *rx, lab_err *err);
void wss_xenc_rx_end(wss_xenc_rx *rx);

/* Every step of the header in order, without the policy (the decrypt
 * command). */
int wss_xenc_decrypt(wss_msg *m, const wss_privkey *key, const dom_limits *lim,
		     lab_err *err);

#endif
