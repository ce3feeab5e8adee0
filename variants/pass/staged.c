/*
 * staged.c - pass=staged: each step over the whole Body (wss/pass.h),
 * as a stack that decodes, decrypts and then parses runs.
 */
#include "wss/pass.h"

#include "util/base64.h"

const char wss__pass_choice[] = "staged";

int wss_pass_open(char *s, size_t n, size_t room, wss_cipher c,
		  const unsigned char *key, size_t *off, size_t *len,
		  lab_err *err)
{
	size_t at = 0, octets = 0, ivoff = 0;
	int rc = lab_base64_decode_in_place(s, n, room, &at, &octets, err);

	*off = at;
	*len = octets;
	if (rc != LAB_OK || key == NULL)
		return rc;
	rc = wss_decrypt_in_place(c, key, (unsigned char *)s + at, octets,
				  &ivoff, len, err);
	*off = at + ivoff;
	return rc;
}

int wss_pass_seal(void)
{
	return 0;
}
