/*
 * preauth.h - messages shaped to make a WS-Security receiver work before
 * it can authenticate them (`domlab gen many-enc|many-enc-body|
 * signedinfo-junk`), for the tests and the worst-case measurements of the
 * pipeline's caps (wss/caps.h), and the attack the receiver's checks on
 * decrypted content stop (`decrypt-wrap`).  They are built on a quakes envelope and
 * need keys, so unlike gen.h their bytes differ from run to run (RSA-OAEP
 * padding and IVs are random); their shape does not.
 *
 * Not for: colliding names or IDs and other parser-side shapes (gen.h),
 * or messages a receiver should accept.
 */
#ifndef LAB_PREAUTH_H
#define LAB_PREAUTH_H

#include <stddef.h>
#include <time.h>

#include "util/buf.h"
#include "util/err.h"
#include "wss/crypto.h"

typedef enum lab_hostile_kind {
	/* One EncryptedKey for the receiver with N DataReferences, and N
	 * EncryptedData in an unsigned header block. */
	LAB_HOSTILE_MANY_ENC,
	/* The same, the N EncryptedData put first in the Body, each
	 * decrypting to an element with an Id. */
	LAB_HOSTILE_MANY_ENC_BODY,
	/* A signed message whose SignedInfo declares P junk prefixes and
	 * holds junk elements that use them all. */
	LAB_HOSTILE_SIGNEDINFO_JUNK,
	/* Signature wrapping through decryption, made with nothing but the
	 * receiver's certificate: a message sent to it (`message`, else one
	 * the keys send) with an EncryptedKey for the receiver added to the
	 * Security header (first, or right after the Signature) and a
	 * wsse11:EncryptedHeader its ReferenceList names, whose plaintext is
	 * `plain` (default: a soap:Body carrying the ID Body-1). */
	LAB_HOSTILE_DECRYPT_WRAP,
	/* A quakes message of about `size` bytes sent to the receiver,
	 * refused after the Body's decryption: its ciphertext's last
	 * characters (GCM's tag) changed, so decryption fails
	 * (oracle-decrypt), or its Timestamp's Expires a year later, so
	 * the signature fails after the Body decrypted (oracle-signature):
	 * the two refusals a receiver must not tell apart, for timing them
	 * side by side. */
	LAB_HOSTILE_ORACLE_DECRYPT,
	LAB_HOSTILE_ORACLE_SIGNATURE,
	/* What an oracle attacker sends: a quakes message of about `size`
	 * bytes sent to the receiver, one octet of the Body's ciphertext
	 * changed so that the plaintext it would decrypt to differs in its
	 * second byte (a space of the Body's leading white space): '!',
	 * which parses (*-parses), or '<', which does not (*-garbled).
	 * AES-256-GCM, sign then encrypt: a ciphertext octet, refused at
	 * the tag.  AES-128-CBC, encrypt then sign: an IV octet, refused
	 * at the signature before any decryption with --allow-cbc, and as
	 * CBC without it (oracle-cbc-refused: the parsing change). */
	LAB_HOSTILE_ORACLE_GCM_PARSES,
	LAB_HOSTILE_ORACLE_GCM_GARBLED,
	LAB_HOSTILE_ORACLE_CBC_PARSES,
	LAB_HOSTILE_ORACLE_CBC_GARBLED,
	LAB_HOSTILE_ORACLE_CBC_REFUSED
} lab_hostile_kind;

typedef struct lab_hostile_opts {
	lab_hostile_kind kind;
	size_t size;  /* target bytes; 0 = use count */
	size_t count; /* many-enc*: N (default 100); junk: P (default by size) */
	/* The sender's key and certificate: the base message is signed (and
	 * encrypted for peer when given) at `now`.  many-enc* without them:
	 * an unsigned envelope.  signedinfo-junk needs them. */
	const wss_privkey *key;
	const wss_cert *cert;
	const wss_cert *peer; /* the receiver's; many-enc*, decrypt-wrap
			       * need it */
	time_t now;
	/* decrypt-wrap: the message as domlab serializes it (prefixes
	 * soap, wsse, ds; NULL: made as above), the plaintext (NULL: the
	 * default) and 1 to put the EncryptedKey after the Signature. */
	const char *message;
	size_t message_len;
	const char *plain;
	int after_signature;
} lab_hostile_opts;

/* "many-enc", "many-enc-body", "signedinfo-junk", "decrypt-wrap",
 * "oracle-decrypt", "oracle-signature", "oracle-gcm-parses",
 * "oracle-gcm-garbled", "oracle-cbc-parses", "oracle-cbc-garbled" or
 * "oracle-cbc-refused": 1 and *out set; else 0. */
int lab_hostile_kind_parse(const char *name, lab_hostile_kind *out);

/* Appends the message to out.  LAB_EUSAGE when a key it needs is
 * missing; the pipeline's codes otherwise. */
int lab_hostile(const lab_hostile_opts *o, lab_buf *out, lab_err *err);

#endif
