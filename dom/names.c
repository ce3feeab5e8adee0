/*
 * names.c - interning: open addressing with linear probing, the full
 * 32-bit hash kept beside each slot so a probe compares bytes only when
 * the hashes already match.  Grows at half load.  Both tables hash
 * through the hash axis (dom/hash.h): the names by their bytes, the
 * records by their three interned pointers.
 */
#include "names.h"

#include <string.h>

#include "util/alloc.h"

enum { NAMES_MIN_CAP = 64 };

void dom__names_init(dom_names *t)
{
	memset(t, 0, sizeof *t);
}

void dom__names_free(dom_names *t)
{
	lab_free((void *)t->slots);
	lab_free(t->hashes);
	lab_free((void *)t->qslots);
	memset(t, 0, sizeof *t);
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
	const char **slots = lab_calloc(cap, sizeof *slots);
	uint32_t *hashes = lab_calloc(cap, sizeof *hashes);
	size_t i;

	if (slots == NULL || hashes == NULL) {
		lab_free((void *)slots);
		lab_free(hashes);
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
	lab_free((void *)t->slots);
	lab_free(t->hashes);
	t->slots = slots;
	t->hashes = hashes;
	t->cap = cap;
	return 0;
}

const char *dom__names_find(const dom_names *t, const char *s, size_t len)
{
	if (t->cap == 0)
		return NULL;
	return t->slots[probe(t, s, len, dom__hash_bytes(s, len))];
}

const char *dom__names_intern(dom_names *t, dom_arena *arena, const char *s,
			      size_t len)
{
	uint32_t hash = dom__hash_bytes(s, len);
	dom_name_hdr *h;
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
	h = dom__arena_alloc(arena, sizeof *h + len + 1);
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

static int qgrow(dom_names *t)
{
	size_t cap = t->qcap ? t->qcap * 2 : NAMES_MIN_CAP;
	const dom_name **slots = lab_calloc(cap, sizeof *slots);
	size_t i;

	if (slots == NULL)
		return -1;
	for (i = 0; i < t->qcap; i++) {
		const dom_name *q = t->qslots[i];
		size_t j;

		if (q == NULL)
			continue;
		j = dom__hash_ptrs(q->local, q->ns, q->prefix) & (cap - 1);
		while (slots[j] != NULL)
			j = (j + 1) & (cap - 1);
		slots[j] = q;
	}
	lab_free((void *)t->qslots);
	t->qslots = slots;
	t->qcap = cap;
	return 0;
}

const dom_name *dom__names_qname(dom_names *t, dom_arena *arena,
				 const char *ns, const char *prefix,
				 const char *local)
{
	dom_name *q;
	size_t i, mask;

	if ((t->qcount + 1) * 2 > t->qcap && qgrow(t) != 0)
		return NULL;
	mask = t->qcap - 1;
	for (i = dom__hash_ptrs(local, ns, prefix) & mask; t->qslots[i] != NULL;
	     i = (i + 1) & mask) {
		const dom_name *s = t->qslots[i];

		if (s->local == local && s->ns == ns && s->prefix == prefix)
			return s;
	}
	q = dom__arena_alloc(arena, sizeof *q);
	if (q == NULL)
		return NULL;
	q->local = local;
	q->ns = ns;
	q->prefix = prefix;
	t->qslots[i] = q;
	t->qcount++;
	return q;
}

int dom__names_has_local(const dom_names *t, const char *local)
{
	size_t i;

	for (i = 0; i < t->qcap; i++)
		if (t->qslots[i] != NULL && t->qslots[i]->local == local)
			return 1;
	return 0;
}
