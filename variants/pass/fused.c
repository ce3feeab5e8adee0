/*
 * fused.c - pass=fused: the decode and the decryption in pieces
 * (wss/pass.h).  The decoder hands over each run's octets where they
 * landed; the decryption takes them there while they are in L1, holding
 * back what may be GCM's tag, and the tag is checked after the last.  A
 * watch hears of the plaintext that is final after each piece.
 */
#include "wss/pass.h"

#include <openssl/crypto.h>

#include "util/base64.h"

const char wss__pass_choice[] = "fused";

/* The decryption, and who hears of its progress. */
typedef struct feed {
	wss_dec_stream *d;
	const wss_pass_watch *w;
	size_t told; /* plaintext octets the watch has heard of */
} feed;

static int decrypt_more(void *ctx, char *p, size_t k, lab_err *err)
{
	feed *f = ctx;
	size_t iv, ready;
	int rc = wss_dec_more(f->d, (unsigned char *)p, k, err);

	if (rc != LAB_OK || f->w == NULL)
		return rc;
	ready = wss_dec_ready(f->d, &iv);
	if (ready > f->told) {
		f->w->ready(f->w->ctx, p + iv, ready);
		f->told = ready;
	}
	return LAB_OK;
}

int wss_pass_open(char *s, size_t n, size_t room, wss_cipher c,
		  const unsigned char *key, const wss_pass_watch *w,
		  size_t *off, size_t *len, lab_err *err)
{
	feed f = {NULL, w, 0};
	size_t at = 0, octets = 0, ivoff = 0;
	int rc = key != NULL ? wss_dec_begin(&f.d, c, key, err) : LAB_OK;

	if (rc == LAB_OK)
		rc = lab_base64_decode_in_place_each(
			s, n, room, WSS_PASS_PIECE,
			f.d != NULL ? decrypt_more : NULL, &f, &at, &octets,
			err);
	*off = at;
	*len = octets;
	if (key == NULL)
		return rc;
	if (rc == LAB_OK)
		rc = wss_dec_end(f.d, (unsigned char *)s + at, octets, &ivoff,
				 len, err);
	*off = at + ivoff;
	if (rc == LAB_OK) {
		if (w != NULL)
			w->whole(w->ctx, *len);
	} else {
		/* Whatever was decrypted, once the watch reads it no more:
		 * a text found not base64 part way, or a ciphertext that
		 * failed. */
		if (w != NULL)
			w->stop(w->ctx);
		OPENSSL_cleanse(s, n);
		*len = 0;
	}
	wss_dec_free(f.d);
	return rc;
}

int wss_pass_fused(void)
{
	return 1;
}
