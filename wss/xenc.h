/*
 * xenc.h - XML Encryption as the profile uses it: the Body's content
 * encrypted into one xenc:EncryptedData (Type Content), its session key
 * wrapped with RSA-OAEP into an xenc:EncryptedKey first in the Security
 * header, whose ReferenceList names the EncryptedData.
 */
#ifndef WSS_XENC_H
#define WSS_XENC_H

#include "wss/crypto.h"
#include "wss/msg.h"

int wss_xenc_encrypt(wss_msg *m, const wss_cert *peer, wss_cipher cipher,
		     lab_err *err);

/*
 * Decrypts what every EncryptedKey of the Security header references and
 * puts the plaintext back in place.  Only EncryptedData that are children
 * of the Body are decrypted, each named once; the counts are held to
 * m->caps (wss/caps.h), and all of it is checked before the first
 * decryption.  Every failure after the structure
 * checks -- wrong key, bad tag or padding, plaintext that does not parse
 * -- is the same LAB_ESECURITY "decryption failed", so the receiver is no
 * oracle.  On failure the document may be partly decrypted: callers write
 * nothing from it.
 */
int wss_xenc_decrypt(wss_msg *m, const wss_privkey *key, const dom_limits *lim,
		lab_err *err);

#endif
