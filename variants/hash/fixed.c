/*
 * fixed.c - hash=fixed: one unkeyed function for every process, as the
 * 2010 parsers had.  Fast on short names, well spread on friendly input,
 * and invertible by anyone who reads it (datasets/ does, to make names
 * that collide).  DOMLAB_HASH_KEY is checked but has nothing to change.
 */
#include "dom/hash.h"

#include <string.h>

const char dom__hash_choice[] = "fixed";

/* No key: nothing to draw. */
int dom__hash_key_unset(unsigned char key[16], lab_err *err)
{
	(void)key;
	(void)err;
	return LAB_OK;
}

void dom__hash_set_key(const unsigned char key[16])
{
	(void)key;
}

uint32_t dom__hash_bytes(const void *p, size_t len)
{
	/* FNV-1a over 8-byte words, folded: fast on short names, good enough
	 * spread for a table that also compares the full hash. */
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ len;

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	while (len > 0) {
		h = (h ^ *s++) * 0x100000001b3ULL;
		len--;
	}
	h ^= h >> 32;
	return (uint32_t)h;
}

/* Interned names sit in the document's arena: the multiplies spread
 * their addresses, and the high bits mix them all. */
uint32_t dom__hash_ptrs(const void *a, const void *b, const void *c)
{
	uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL ^
		     (uint64_t)(uintptr_t)b * 0xc2b2ae3d27d4eb4fULL ^
		     (uint64_t)(uintptr_t)c * 0x165667b19e3779f9ULL;

	return (uint32_t)(h >> 32);
}
