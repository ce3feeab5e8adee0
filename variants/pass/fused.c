/*
 * fused.c - pass=fused: the decode and the decryption in pieces
 * (wss/pass.h).  The decoder hands over each run's octets where they
 * landed; the decryption takes them there while they are in L1, holding
 * back what may be GCM's tag, and the tag is checked after the last.
 */
#include "wss/pass.h"

#include <openssl/crypto.h>

#include "util/base64.h"

const char wss__pass_choice[] = "fused";

static int decrypt_more(void *ctx, char *p, size_t k, lab_err *err)
{
	return wss_dec_more(ctx, (unsigned char *)p, k, err);
}

int wss_pass_open(char *s, size_t n, size_t room, wss_cipher c,
		  const unsigned char *key, size_t *off, size_t *len,
		  lab_err *err)
{
	wss_dec_stream *d = NULL;
	size_t at = 0, octets = 0, ivoff = 0;
	int rc = key != NULL ? wss_dec_begin(&d, c, key, err) : LAB_OK;

	if (rc == LAB_OK)
		rc = lab_base64_decode_in_place_each(
			s, n, room, WSS_PASS_PIECE,
			d != NULL ? decrypt_more : NULL, d, &at, &octets, err);
	*off = at;
	*len = octets;
	if (d == NULL)
		return rc;
	if (rc == LAB_OK) {
		/* It wipes what it decrypted when the ciphertext fails. */
		rc = wss_dec_end(d, (unsigned char *)s + at, octets, &ivoff,
				 len, err);
		*off = at + ivoff;
	} else {
		/* A text found not base64 after some of it was decrypted. */
		OPENSSL_cleanse(s, n);
	}
	wss_dec_free(d);
	return rc;
}

int wss_pass_seal(void)
{
	return 1;
}
