/*
 * peer.h - the reference peer's own contract between its files, for
 * nothing outside harness/refpeer/ (the rest of the harness knows the
 * peer by ref.h):
 *   ref.c   process state, keys, parsing and the operations (ref.h)
 *   msg.c   the SOAP message: its parts, IDs and the elements both
 *           WS-Security steps add
 *   sign.c  the Signature and Timestamp: sign, verify, forward
 *   enc.c   the EncryptedKey and EncryptedData: encrypt, decrypt
 * The libraries' headers are included here, once, with the flags the
 * Makefile gives these objects (xmlsec1's).
 */
#ifndef HARNESS_REFPEER_PEER_H
#define HARNESS_REFPEER_PEER_H

#include "harness/refpeer/ref.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libxml/c14n.h>
#include <libxml/parser.h>
#include <libxslt/xslt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <xmlsec/base64.h>
#include <xmlsec/crypto.h>
#include <xmlsec/errors.h>
#include <xmlsec/keys.h>
#include <xmlsec/templates.h>
#include <xmlsec/xmldsig.h>
#include <xmlsec/xmlenc.h>
#include <xmlsec/xmlsec.h>

#include "util/alloc.h"
#include "harness/cli/cli.h"
#include "wss/hop.h"
#include "wss/profile.h"
#include "wss/wsse.h"

#define X(s) BAD_CAST(s)

/* The IDs the sender gives (wss/ gives "base-N" too), and the
 * EncryptedData of the parts encrypted besides the Body's content. */
extern const char ID_BODY[], ID_TS[], ID_BST[], ID_EK[], ID_ED[], ID_TO[];
extern const char *const ID_PART[2];

/* A key or certificate, parsed once per process (ref.c). */
typedef struct ref_key {
	struct ref_key *next;
	int kind;
	xmlSecKeyPtr key;   /* the RSA key alone, cheap to duplicate */
	xmlChar *der_b64;   /* certificates: the BinarySecurityToken's text */
	xmlChar *thumb_b64; /* certificates: the ThumbprintSHA1 */
	char path[];
} ref_key;

/* A message being read or written, and its parts. */
typedef struct ref_msg {
	xmlDocPtr doc;
	xmlNodePtr envelope, header, body, security; /* header, security: or NULL */
	const char *soap; /* the Envelope's namespace: SOAP 1.1's or 1.2's */
} ref_msg;

/* ref.c: xmlsec1's first message of the operation on this thread, as
 * " (xmlsec1: ...)", or "". */
const char *ref__xmlsec_msg(void);

/* ---- msg.c: the message ---- */

int ref__nomem(lab_err *err);

int ref__is_el(const xmlNode *n, const char *ns, const char *local);

/* The child element (ns, local) when there is exactly one, else NULL;
 * *count says how many there were. */
xmlNodePtr ref__one_child(const xmlNode *parent, const char *ns,
			  const char *local, size_t *count);

/* A namespace with a prefix for uri in scope at el, declared there as
 * prefix when there is none. */
xmlNsPtr ref__ns_for(ref_msg *m, xmlNodePtr el, const char *uri,
		     const char *prefix);

/* What wss_msg_open checks: a SOAP 1.1 or 1.2 Envelope with one Body, at
 * most one Header before it and one Security in it; `create` adds the
 * missing Header and Security (the sender). */
int ref__msg_open(xmlDocPtr doc, int create, int code, ref_msg *m,
		  lab_err *err);

/*
 * The wsu:Id of el copied into id and registered with xmlAddID, the only
 * IDs xmlsec resolves: registering exactly the Body and the Timestamp is
 * what keeps a reference from reaching any other element.  `fresh` NULL:
 * el must carry one (the receiver); else el gets `fresh` when it has none.
 */
int ref__wsu_id(ref_msg *m, xmlNodePtr el, const char *fresh, int code,
		char *id, size_t cap, lab_err *err);

/* Appends a wsse:SecurityTokenReference to parent holding `local`
 * (Reference or KeyIdentifier, with text or none); wsse is declared on it
 * when not in scope (an EncryptedData template is not in the document
 * yet). */
xmlNodePtr ref__add_str(ref_msg *m, xmlNodePtr parent, const char *local,
			const xmlChar *text);

/* A wsse:Reference to "#id" of the given ValueType under parent. */
int ref__add_token_ref(ref_msg *m, xmlNodePtr parent, const char *id,
		       const char *value_type, lab_err *err);

/* ---- sign.c: Signature and Timestamp ---- */

/* Security gets BinarySecurityToken, Signature, Timestamp, in the order
 * wss/ writes them; the Signature covers the Timestamp and sign_parts'. */
int ref__sign_msg(ref_msg *m, const ref_key *key, const ref_key *cert,
		  const wss_opts *o, lab_err *err);

/* wss_timestamp_check's rules (wss/wsse.h) on the reference's tree: one
 * Timestamp, its times as wss_timestamp_time and wss_timestamp_window
 * judge them. */
int ref__check_timestamp(const ref_msg *m, time_t now, xmlNodePtr *ts,
			 lab_err *err);

/*
 * The Signature verified with the trusted certificate's key, put in the
 * context (xmlsec does not follow the SecurityTokenReference; a token
 * that is not the trusted one cannot verify).  Only the profile's
 * algorithms and same-document references are enabled, and the
 * Timestamp must be signed, with the Body or, for a hop, the wsa:To
 * `to`.  xmlsec checks every Reference: a hop's Signature that also
 * covers the Body cannot be verified without reading it, so a hop here
 * takes a Signature over header blocks only.
 */
int ref__verify_msg(ref_msg *m, const ref_key *trust, xmlNodePtr ts,
		    xmlNodePtr to, lab_err *err);

/* The wsa:To's text, without XML whitespace at either end, is want,
 * as wss/ reads it. */
int ref__check_to(const xmlNode *to, const char *want, lab_err *err);

/* What a hop does (wss_forward_doc): the Timestamp, the Signature over
 * it and the Header's one wsa:To, and that To is o->to when set. */
int ref__forward_msg(ref_msg *m, const ref_key *trust, const wss_opts *o,
		     lab_err *err);

/* ---- enc.c: EncryptedKey and EncryptedData ---- */

/* The Body's content becomes an EncryptedData under a fresh session key,
 * which the EncryptedKey carries wrapped for the recipient; so do the
 * nparts elements of parts (the Signature, a header block). */
int ref__encrypt_msg(ref_msg *m, const ref_key *peer, wss_cipher cipher,
		     xmlNodePtr *parts, size_t nparts, lab_err *err);

/* The session key unwrapped with our private key, then every
 * EncryptedData the key's ReferenceList names replaced by its plaintext,
 * the Body's among them. */
int ref__decrypt_msg(ref_msg *m, const ref_key *key, lab_err *err);

/* Whether a ds:Signature comes before the first EncryptedKey in the
 * Security header. */
int ref__signed_first(const ref_msg *m);

#endif
