/*
 * hash_key.c - the hash axis's key, set once per process: from
 * DOMLAB_HASH_KEY when it is set (32 hex digits, the 16 key bytes in
 * order), else from the OS's random bytes when the choice is keyed.
 * Every choice reads the variable, so a malformed one is the same error
 * on every variant.
 * Not for: any other secret; this key only spreads table slots.
 */
#include "dom/hash.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

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

/* getrandom() returns fewer bytes than asked only on a signal; loop
 * until the 16 are there. */
static int from_os(unsigned char key[16], lab_err *err)
{
	size_t got = 0;

	while (got < 16) {
		ssize_t n = getrandom(key + got, 16 - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lab_fail(err, LAB_EIO,
					"no random bytes for the hash key: %s",
					strerror(errno));
		got += (size_t)n;
	}
	return LAB_OK;
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
	else if (s == NULL && dom__hash_keyed)
		rc = from_os(key, &failure);
	if (rc == LAB_OK)
		dom__hash_set_key(key);
	explicit_bzero(key, sizeof key);
}

int dom_hash_ready(lab_err *err)
{
	pthread_once(&once, setup);
	if (failure.code == LAB_OK)
		return LAB_OK;
	if (err != NULL)
		*err = failure;
	return failure.code;
}
