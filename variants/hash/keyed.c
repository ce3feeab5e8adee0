/*
 * keyed.c - hash=keyed: SipHash-1-3 under a per-process 128-bit key
 * (dom/hash_key.c draws it from getrandom(), or takes DOMLAB_HASH_KEY),
 * so colliding names, IDs or values cannot be written in advance.
 *
 * Why the reference SipHash (util/siphash.c) and not OpenSSL 3's EVP_MAC
 * "SIPHASH": a table hashes names of a few bytes, and through EVP_MAC
 * each costs a context (duplicated from a keyed one, or re-initialised),
 * an update and a final through indirect calls.  Under callgrind, for
 * names of 2-9 bytes: about 1,020 instructions a name with a duplicated
 * context, 740 re-initialising one, 150 for the reference.  SipHash-1-3
 * rather than 2-4: the variant hash tables use (Python, Rust), enough
 * against flooding where the output never leaves the process.  What it
 * costs a parse is small because the insitu parser's memos answer most
 * names before the table: parse of quakes-200k, 11,825,379 instructions
 * against 11,818,257 under hash=fixed.
 */
#include "dom/hash.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "util/siphash.h"

const char dom__hash_choice[] = "keyed";

/* Without DOMLAB_HASH_KEY, 16 bytes from the OS.  getrandom() returns
 * fewer bytes than asked only on a signal; loop until the 16 are there. */
int dom__hash_key_unset(unsigned char key[16], lab_err *err)
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

/* Written once, under dom__hash_ready's pthread_once, before any table
 * is made; read-only afterwards. */
static unsigned char key[16];

void dom__hash_set_key(const unsigned char k[16])
{
	memcpy(key, k, sizeof key);
}

static uint32_t fold(const uint8_t out[8])
{
	uint64_t h;

	memcpy(&h, out, sizeof h);
	return (uint32_t)(h ^ h >> 32);
}

uint32_t dom__hash_bytes(const void *p, size_t len)
{
	uint8_t out[8];

	lab_siphash(p, len, key, out, sizeof out);
	return fold(out);
}

uint32_t dom__hash_ptrs(const void *a, const void *b, const void *c)
{
	const void *w[3] = {a, b, c};
	uint8_t out[8];

	lab_siphash(w, sizeof w, key, out, sizeof out);
	return fold(out);
}
