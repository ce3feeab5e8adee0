/*
 * staged.c - pass=staged: each step over the whole Body (wss/pass.h),
 * as a stack that decodes, decrypts and then parses runs.  A watch hears
 * of the plaintext once, whole.
 */
#include "wss/pass.h"

#include "util/base64.h"

const char wss__pass_choice[] = "staged";

int wss_pass_open(char *s, size_t n, size_t room, wss_cipher c,
		  const unsigned char *key, const wss_pass_watch *w,
		  size_t *off, size_t *len, lab_err *err)
{
	size_t at = 0, octets = 0, ivoff = 0;
	int rc = lab_base64_decode_in_place(s, n, room, &at, &octets, err);

	*off = at;
	*len = octets;
	if (key == NULL)
		return rc;
	/* It wipes what it decrypted when the ciphertext fails. */
	if (rc == LAB_OK)
		rc = wss_decrypt_in_place(c, key, (unsigned char *)s + at,
					  octets, &ivoff, len, err);
	*off = at + ivoff;
	if (w == NULL)
		return rc;
	if (rc == LAB_OK) {
		w->ready(w->ctx, s + *off, *len);
		w->whole(w->ctx, *len);
	} else {
		w->stop(w->ctx);
	}
	return rc;
}

int wss_pass_fused(void)
{
	return 0;
}
