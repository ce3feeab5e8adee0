/*
 * arena.c - the bump allocator behind every document.
 *
 * Chunks grow geometrically up to a cap, so a document costs O(log n)
 * heap allocations while a small one does not pay for a big chunk.  A
 * request larger than a quarter of the next chunk gets a chunk of its own,
 * linked behind the current one, so it never strands the current chunk's
 * free space.
 */
#include "arena.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

enum {
	ARENA_MIN_CHUNK = 4096,
	/* 2^16 places of 8 bytes (dom__arena_alloc_placed) */
	ARENA_MAX_CHUNK = 1 << 19
};

_Static_assert(DOM_ARENA_SMALL <= ARENA_MIN_CHUNK / 4,
	       "small requests must never get a chunk of their own");
_Static_assert((size_t)ARENA_MAX_CHUNK / 8 <= (size_t)UINT16_MAX + 1,
	       "a place must fit dom__arena_alloc_placed's 16 bits");

void dom__arena_init(dom_arena *a, size_t size_hint)
{
	memset(a, 0, sizeof *a);
	a->next_size = ARENA_MIN_CHUNK;
	while (a->next_size < size_hint && a->next_size < ARENA_MAX_CHUNK)
		a->next_size *= 2;
}

void dom__arena_free(dom_arena *a)
{
	dom_chunk *c = a->chunks;

	while (c != NULL) {
		dom_chunk *next = c->next;

		lab_chunk_free(c);
		c = next;
	}
	memset(a, 0, sizeof *a);
}

static dom_chunk *chunk_new(dom_arena *a, size_t size)
{
	dom_chunk *c;

	if (size > SIZE_MAX - sizeof(dom_chunk))
		return NULL;
	c = lab_chunk_alloc(sizeof(dom_chunk) + size);
	if (c == NULL)
		return NULL;
	c->arena = a;
	c->size = size;
	a->held += size;
	return c;
}

/* A chunk for one large request, kept out of the bump path. */
static void *alloc_alone(dom_arena *a, size_t need)
{
	dom_chunk *c = chunk_new(a, need);

	if (c == NULL)
		return NULL;
	if (a->chunks != NULL) {
		c->next = a->chunks->next;
		a->chunks->next = c;
	} else {
		c->next = NULL;
		a->chunks = c;
	}
	return c->data;
}

static int refill(dom_arena *a)
{
	dom_chunk *c = chunk_new(a, a->next_size);

	if (c == NULL)
		return -1;
	c->next = a->chunks;
	a->chunks = c;
	a->cur = a->base = (char *)c->data;
	a->end = a->cur + c->size;
	if (a->next_size < ARENA_MAX_CHUNK)
		a->next_size *= 2;
	return 0;
}

void *dom__arena_alloc_slow(dom_arena *a, size_t n)
{
	size_t need = (n + 7) & ~(size_t)7;
	void *p;

	if (need < n)
		return NULL;
	if (a->cur != NULL && (size_t)(a->end - a->cur) >= need) {
		p = a->cur;
		a->cur += need;
	} else if (need > a->next_size / 4) {
		p = alloc_alone(a, need);
	} else if (refill(a) == 0) {
		p = a->cur;
		a->cur += need;
	} else {
		p = NULL;
	}
	if (p != NULL) {
		a->used += n;
		a->allocs++;
		lab_mem_note(n);
	}
	return p;
}

void *dom__arena_zalloc(dom_arena *a, size_t n)
{
	void *p = dom__arena_alloc(a, n);

	if (p != NULL)
		memset(p, 0, n);
	return p;
}

char *dom__arena_strndup(dom_arena *a, const char *s, size_t n)
{
	char *p = dom__arena_alloc(a, n + 1);

	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}
