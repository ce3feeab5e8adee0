/*
 * hash_key.c - the hash axis's key, set once per process: from
 * DOMLAB_HASH_KEY when it is set (32 hex digits, the 16 key bytes in
 * order), else the choice's own (dom__hash_key_unset).
 * Every choice reads the variable, so a malformed one is the same error
 * on every variant.
 * Not for: any other secret; this key only spreads table slots.
 */
#include "dom/hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int from_hex(const char *s, unsigned char key[16])
{
	size_t i;

	if (strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		int hi = hex(s[2 * i]), lo = hex(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		key[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static lab_err failure; /* why the key could not be set, once for all */

static void setup(void)
{
	const char *s = getenv("DOMLAB_HASH_KEY");
	unsigned char key[16] = {0};
	int rc = LAB_OK;

	lab_err_clear(&failure);
	if (s != NULL && from_hex(s, key) != 0)
		rc = lab_fail(&failure, LAB_EUSAGE,
			      "DOMLAB_HASH_KEY must be 32 hex digits (the "
			      "128-bit hash key), not '%.40s'",
			      s);
	else if (s == NULL)
		rc = dom__hash_key_unset(key, &failure);
	if (rc == LAB_OK)
		dom__hash_set_key(key);
	explicit_bzero(key, sizeof key);
}

int dom__hash_ready(lab_err *err)
{
	pthread_once(&once, setup);
	if (failure.code == LAB_OK)
		return LAB_OK;
	if (err != NULL)
		*err = failure;
	return failure.code;
}
