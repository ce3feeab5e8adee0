/*
 * pass.h - the `pass` axis: how many times the Body's encrypted content
 * crosses memory between its CipherValue's characters and its
 * plaintext, and its plaintext and the CipherValue on send.
 *
 *   staged  one whole pass per step: on receive the base64 is decoded
 *           over the whole CipherValue, then the octets are decrypted;
 *           on send the Body's canonical content is captured whole while
 *           it is digested, then encrypted, then encoded;
 *   fused   the steps in pieces that stay in the first-level cache: on
 *           receive each run of WSS_PASS_PIECE characters is decoded and
 *           its octets decrypted where they landed before the next run
 *           is read; on send the content is encrypted and encoded as it
 *           is digested (wss/seal.h), where the document keeps the
 *           content's canonical bytes, whose length is then known first;
 *           on receive the Body's plaintext is digested piece by piece
 *           behind the decryption as well (wss/digest_ahead.h).
 *
 * Both decrypt in place and refuse the same input with the same error;
 * nothing decrypted is used before the whole ciphertext authenticated
 * (GCM) or unpadded (CBC).  A watch (wss/digest_ahead.h, and the search
 * for SOAP's element names, wss/soapnames.h) may read the plaintext as it
 * is decrypted, for work whose result waits for that: fused tells it
 * after each piece, staged once at the end.  Not for: the
 * digest itself, which the signature's verification takes once the
 * plaintext is parsed and the guess proved.
 */
#ifndef WSS_PASS_H
#define WSS_PASS_H

#include <stddef.h>

#include "util/err.h"
#include "wss/crypto.h"

/* Base64 characters decoded between two steps of the decryption: 12 KB
 * of octets, decrypted while they are in L1. */
enum { WSS_PASS_PIECE = 16 * 1024 };

/*
 * Who reads the plaintext while it is decrypted: `ready` when
 * plain[0..n) is decrypted and will not change (plain stays, n grows;
 * not yet authentic), `whole` when the plaintext is all there and
 * authentic, plain[0..len) (ready's plain; after it, the bytes are the
 * caller's), `stop` before anything decrypted is wiped on a failure:
 * it returns once nothing reads the bytes any more.  With a key, exactly
 * one of `whole` and `stop` ends each wss_pass_open.
 */
typedef struct wss_pass_watch {
	void (*ready)(void *ctx, const char *plain, size_t n);
	void (*whole)(void *ctx, size_t len);
	void (*stop)(void *ctx);
	void *ctx;
} wss_pass_watch;

/*
 * The base64 text s[0..n) decoded in place with `room` bytes in front
 * (lab_base64_decode_in_place) and, with a key, decrypted where it lies
 * (wss_decrypt_in_place): the plaintext at s[*off .. *off + *len); a NULL
 * key decodes only, the octets there (and tells w nothing).  w: NULL, or
 * who reads the plaintext meanwhile.  LAB_EMALFORMED when s is not
 * base64 (err says where), LAB_ESECURITY for the one "decryption
 * failed", LAB_ENOMEM; on every failure nothing decrypted is left.
 */
int wss_pass_open(char *s, size_t n, size_t room, wss_cipher c,
		  const unsigned char *key, const wss_pass_watch *w,
		  size_t *off, size_t *len, lab_err *err);

/* 1 for fused: send seals the content as it is digested (wss/seal.h),
 * and receive digests the Body's plaintext as it is decrypted, on one
 * thread too (wss/digest_ahead.h). */
int wss_pass_fused(void);

extern const char wss__pass_choice[];   /* "staged" / "fused" */

#endif
