/*
 * names.c - interning: open addressing with linear probing, the full
 * 32-bit hash kept beside each slot so a probe compares bytes only when
 * the hashes already match.  Grows at half load.
 */
#include "names.h"

#include <string.h>

#include "alloc.h"

/* Header stored just before an interned string's bytes. */
typedef struct name_hdr {
	uint32_t len;
	uint32_t hash;
} name_hdr;

enum { NAMES_MIN_CAP = 64 };

uint32_t dom_hash_bytes(const void *p, size_t len)
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

void dom_names_init(dom_names *t)
{
	memset(t, 0, sizeof *t);
}

void dom_names_free(dom_names *t)
{
	dom_free((void *)t->slots);
	dom_free(t->hashes);
	memset(t, 0, sizeof *t);
}

size_t dom_names_len(const char *interned)
{
	const name_hdr *h = (const name_hdr *)(const void *)interned - 1;

	return h->len;
}

static size_t probe(const dom_names *t, const char *s, size_t len,
		    uint32_t hash)
{
	size_t mask = t->cap - 1;
	size_t i = hash & mask;

	while (t->slots[i] != NULL) {
		if (t->hashes[i] == hash && dom_names_len(t->slots[i]) == len &&
		    memcmp(t->slots[i], s, len) == 0)
			return i;
		i = (i + 1) & mask;
	}
	return i;
}

static int grow(dom_names *t)
{
	size_t cap = t->cap ? t->cap * 2 : NAMES_MIN_CAP;
	const char **slots = dom_calloc(cap, sizeof *slots);
	uint32_t *hashes = dom_calloc(cap, sizeof *hashes);
	size_t i;

	if (slots == NULL || hashes == NULL) {
		dom_free((void *)slots);
		dom_free(hashes);
		return -1;
	}
	for (i = 0; i < t->cap; i++) {
		size_t j;

		if (t->slots[i] == NULL)
			continue;
		j = t->hashes[i] & (cap - 1);
		while (slots[j] != NULL)
			j = (j + 1) & (cap - 1);
		slots[j] = t->slots[i];
		hashes[j] = t->hashes[i];
	}
	dom_free((void *)t->slots);
	dom_free(t->hashes);
	t->slots = slots;
	t->hashes = hashes;
	t->cap = cap;
	return 0;
}

const char *dom_names_find(const dom_names *t, const char *s, size_t len)
{
	if (t->cap == 0)
		return NULL;
	return t->slots[probe(t, s, len, dom_hash_bytes(s, len))];
}

const char *dom_names_intern(dom_names *t, dom_arena *arena, const char *s,
			     size_t len)
{
	uint32_t hash = dom_hash_bytes(s, len);
	name_hdr *h;
	char *copy;
	size_t i;

	if (len > UINT32_MAX)
		return NULL;
	if (t->cap > 0) {
		i = probe(t, s, len, hash);
		if (t->slots[i] != NULL)
			return t->slots[i];
	}
	if ((t->count + 1) * 2 > t->cap && grow(t) != 0)
		return NULL;
	h = dom_arena_alloc(arena, sizeof *h + len + 1);
	if (h == NULL)
		return NULL;
	h->len = (uint32_t)len;
	h->hash = hash;
	copy = (char *)(h + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	i = probe(t, s, len, hash);
	t->slots[i] = copy;
	t->hashes[i] = hash;
	t->count++;
	return copy;
}
