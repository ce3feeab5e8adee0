/*
 * ref.h - the reference peer: docs/design.md's pipeline done by the standard C
 * stack, libxml2 + xmlsec1 (OpenSSL backend), through their own APIs, with
 * the same algorithms, keys, message layout and checks as wss/.  It is
 * what `domlab-bench bench --ref` compares the variants with and what
 * `domlab-bench ref` runs, so each side can be checked against the other.
 *
 * Keys are parsed once per process and kept (what the keys=cached axis
 * does, so `ref` is compared with `best` on equal terms), behind a mutex.
 * xmlsec1 is initialized on first use; lab_ref_cleanup() shuts it down
 * and releases the keys and libxml2's global state, once, at exit.
 *
 * Not for: domlab's DOM (nothing here touches dom.h), nor a second
 * hardened receiver -- the forged-message suite is wss/'s.  dom_limits
 * do not apply: libxml2 keeps its own.
 */
#ifndef LAB_REF_H
#define LAB_REF_H

#include <stddef.h>

#include <libxml/tree.h>

#include "util/buf.h"
#include "util/err.h"
#include "wss/keys.h"
#include "wss/wss.h"

/* Parses with the options of variants/parser/libxml2/xml2.c; external
 * entities are refused. */
int lab_ref_parse(const char *bytes, size_t len, xmlDocPtr *out,
		  lab_err *err);

/* Exclusive C14N 1.0 of the whole document: its length in *len, and the
 * bytes appended to out unless out is NULL. */
int lab_ref_c14n(xmlDocPtr doc, lab_buf *out, size_t *len, lab_err *err);

typedef enum lab_ref_op {
	LAB_REF_SIGN,    /* paths: key, cert */
	LAB_REF_VERIFY,  /* paths: trust */
	LAB_REF_ENCRYPT, /* paths: peer_cert; o->cipher */
	LAB_REF_DECRYPT, /* paths: key */
	LAB_REF_SEND,    /* paths: key, cert, peer_cert; o->cipher, o->layout,
			  * o->encrypt_signature, o->encrypt_header */
	LAB_REF_RECEIVE, /* paths: key, trust */
	LAB_REF_FORWARD  /* paths: trust; o->to: the address required */
} lab_ref_op;

/*
 * Parses bytes, runs op as wss/pipeline.c does (o->now and o->ttl for the
 * Timestamp, o->to and o->headers_only for what is signed; o->lim is not
 * used) and, when out is not NULL, appends the serialized result
 * (forward: bytes as they came).  Errors carry wss/'s codes: LAB_EMALFORMED for input
 * that is not a SOAP envelope, LAB_ESECURITY for a message that does not
 * verify or decrypt, LAB_EIO / LAB_EMALFORMED for unreadable key files.
 */
int lab_ref_message(lab_ref_op op, const char *bytes, size_t len,
		    const wss_key_paths *paths, const wss_opts *o,
		    lab_buf *out, lab_err *err);

/* Takes a received request's token: its EncryptedKey's wrapped key. */
typedef int (*lab_ref_admit_fn)(void *ctx, const unsigned char *wrapped,
				size_t len, lab_err *err);

/*
 * What `domlab serve --stack ref` does with a request: receive (as
 * LAB_REF_RECEIVE, with paths->key and paths->trust), then a new
 * envelope holding the received Body's content, sent (signed with
 * paths->key and paths->cert, encrypted for paths->peer_cert) and
 * appended to out.  With admit, the received request's token goes to it
 * before the reply is made, and its error refuses the request.  Errors
 * as lab_ref_message's; *stage is set to 1 once the request parsed as a
 * SOAP 1.1 Envelope (LAB_EMALFORMED before).
 */
int lab_ref_reply(const char *bytes, size_t len, const wss_key_paths *paths,
		  const wss_opts *o, lab_ref_admit_fn admit, void *admit_ctx,
		  int *stage, lab_buf *out, lab_err *err);

/* Walks every node of doc, reading names and the first byte of every
 * value, as the traverse case does on domlab's tree; the sum is *sink. */
void lab_ref_traverse(xmlDocPtr doc, size_t *sink);

/* The document as libxml2 writes it (xmlDocDumpMemory), appended. */
int lab_ref_serialize(xmlDocPtr doc, lab_buf *out, lab_err *err);

/* At exit only: frees the key cache and shuts xmlsec1 and libxml2 down;
 * no lab_ref_* call may follow. */
void lab_ref_cleanup(void);

#endif
