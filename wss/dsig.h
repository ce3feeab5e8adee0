/*
 * dsig.h - XML Signature as the profile uses it: one ds:Signature in the
 * Security header over the Body and the Timestamp, exc-c14n and
 * RSA-SHA256, its key a SecurityTokenReference to the
 * BinarySecurityToken.  Verification accepts that shape only.
 */
#ifndef WSS_DSIG_H
#define WSS_DSIG_H

#include <time.h>

#include "wss/crypto.h"
#include "wss/msg.h"

/* Adds BinarySecurityToken, Signature and Timestamp (in that order) to the
 * Security header and signs Body (unless m->headers_only), Timestamp and
 * m->sign_to when set. */
int wss_dsig_sign(wss_msg *m, const wss_privkey *key, const wss_cert *cert,
		  time_t now, unsigned ttl, lab_err *err);

/*
 * wss_dsig_sign in two steps, for a sender with other work to do while
 * a second thread signs (m->send_ahead, once it gave the Body's
 * digest): _begin adds everything, the SignatureValue's text made at
 * its final size but not written (wss_dsig_unsigned_text), and _end
 * writes it, waiting for that thread's signature.  Where no thread
 * signs, _begin signs itself and _end does nothing.  Between the two
 * nothing may change SignedInfo, and a message whose _begin succeeded
 * gets its _end before it is read (a second _end does nothing).
 */
int wss_dsig_sign_begin(wss_msg *m, const wss_privkey *key,
			const wss_cert *cert, time_t now, unsigned ttl,
			lab_err *err);
/* The SignatureValue's text _begin left unwritten; NULL: none. */
const dom_node *wss_dsig_unsigned_text(const wss_msg *m);
/* Writes it; also not NULL: its characters written there too, where a
 * serialization of the message put them (dom_serialize_marked). */
int wss_dsig_sign_end(wss_msg *m, char *also, lab_err *err);

/*
 * Verifies the Security header's one Signature: every Reference digest,
 * the SignatureValue with the certificate the KeyInfo names, which must
 * be `trust`; and that the signed parts include the Envelope's own Body
 * and `timestamp`.  Every failure is LAB_ESECURITY with the reason.
 */
int wss_dsig_verify(wss_msg *m, const wss_cert *trust, const dom_node *timestamp,
	       lab_err *err);

/*
 * The same Signature as a hop checks it (wss/hop.h): the Timestamp and
 * `block`, a header block, must be signed, the Body need not be; with
 * m->id_scope set, Reference digests are checked for the elements found
 * there only.
 */
int wss_dsig_verify_block(wss_msg *m, const wss_cert *trust,
			  const dom_node *timestamp, const dom_node *block,
			  lab_err *err);

/* Streams the exc-c14n form of `top` (PrefixList as given) into SHA-256. */
int wss_digest(const dom_node *top, const char *const *prefixes,
	       size_t nprefixes, unsigned char out[WSS_SHA256_LEN],
	       lab_err *err);

#endif
