/*
 * keyid.h - how an EncryptedKey names the certificate its session key is
 * wrapped for: a wsse:SecurityTokenReference in its ds:KeyInfo, written
 * by the sender in one of four forms (the X.509 Token Profile's), and
 * matched by the receiver against its own certificate and key, so that
 * it unwraps only what is addressed to it.
 * Not for: the Signature's KeyInfo (dsig.c), which names the sender's
 * BinarySecurityToken only.
 */
#ifndef WSS_KEYID_H
#define WSS_KEYID_H

#include "wss/crypto.h"
#include "wss/msg.h"
#include "wss/wss.h"

/* Appends to ek a ds:KeyInfo naming peer in form `id`; for WSS_KEYID_BST
 * also a BinarySecurityToken holding peer, just before ek. */
int wss_keyid_add(wss_msg *m, dom_node *ek, const wss_cert *peer,
		  wss_key_id id, lab_err *err);

typedef enum wss_addressee {
	WSS_FOR_ME,      /* names this receiver's certificate or key */
	WSS_FOR_OTHER,   /* names another certificate */
	WSS_FOR_UNKNOWN  /* no KeyInfo, or a form only `self` could match */
} wss_addressee;

/*
 * Whom ek's KeyInfo names.  A certificate given by value (a referenced
 * BinarySecurityToken, an X509v3 KeyIdentifier, ds:X509Certificate) is
 * compared by public key with `key`; a thumbprint, SKI or issuer and
 * serial with `self`, the receiver's certificate (NULL: unknown).  A
 * KeyInfo in no form above is refused (LAB_ESECURITY), naming it.
 */
int wss_keyid_match(const wss_msg *m, const dom_node *ek,
		    const wss_privkey *key, const wss_cert *self,
		    wss_addressee *out, lab_err *err);

#endif
