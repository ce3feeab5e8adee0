/*
 * arena.h - a bump allocator: the memory of one document.
 *
 * Nodes, strings and attribute arrays of a document are never freed one by
 * one; they die with the document.  An arena makes each allocation a
 * pointer bump and the whole free a walk over a few chunks.  Not for
 * memory whose lifetime is shorter than its document's (attribute list
 * copies, scratch buffers): those use lab_malloc.
 *
 * A small allocation can also tell which arena it came from, the way
 * pugixml finds a node's allocator from the page the node lives on: each
 * chunk knows its arena and is at most 512 KiB, so 16 bits of "where"
 * (8-byte units into the chunk) lead back to it.  Nodes use this instead
 * of a document pointer apiece.
 */
#ifndef DOM_ARENA_H
#define DOM_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"

typedef struct dom_chunk dom_chunk;

struct dom_chunk {
	struct dom_arena *arena;
	dom_chunk *next;
	size_t size;
	max_align_t data[];
};

typedef struct dom_arena {
	char *cur;          /* next free byte in the current chunk */
	char *end;          /* end of the current chunk */
	char *base;         /* start of the current chunk's data */
	dom_chunk *chunks;  /* newest first */
	size_t next_size;   /* size of the next chunk */
	size_t used;        /* bytes handed out */
	size_t held;        /* bytes of chunks */
	size_t allocs;      /* allocations handed out */
} dom_arena;

/* size_hint: expected total, so a parse of a known input gets one chunk. */
void dom__arena_init(dom_arena *a, size_t size_hint);
void dom__arena_free(dom_arena *a);

/* dom__arena_alloc when the current chunk cannot bump n bytes. */
void *dom__arena_alloc_slow(dom_arena *a, size_t n);

/*
 * 8-byte aligned, uninitialised; NULL when memory runs out.  The bump is
 * inline: a parse makes an allocation or two per node.
 */
static inline void *dom__arena_alloc(dom_arena *a, size_t n)
{
	size_t need = (n + 7) & ~(size_t)7;
	void *p = a->cur;

	if (p == NULL || need < n || (size_t)(a->end - a->cur) < need)
		return dom__arena_alloc_slow(a, n);
	a->cur += need;
	a->used += n;
	a->allocs++;
	lab_mem_note(n);
	return p;
}
void *dom__arena_zalloc(dom_arena *a, size_t n);
char *dom__arena_strndup(dom_arena *a, const char *s, size_t n);

/* Requests up to this many bytes can be placed (see above). */
#define DOM_ARENA_SMALL 1024

/*
 * dom__arena_alloc for n <= DOM_ARENA_SMALL (the caller's promise) that
 * also stores in *where where the block lies in its chunk:
 * dom__arena_of(p, *where) is a then.  So is dom__arena_of(p + 8 * k,
 * *where + k) for any p + 8 * k inside the block.
 */
static inline void *dom__arena_alloc_placed(dom_arena *a, size_t n,
					    uint16_t *where)
{
	char *p = dom__arena_alloc(a, n);

	/* A small request is always bumped from the newest chunk. */
	if (p != NULL)
		*where = (uint16_t)((size_t)(p - a->base) / 8);
	return p;
}

/* The arena of p, which dom__arena_alloc_placed placed at `where`. */
static inline dom_arena *dom__arena_of(const void *p, uint16_t where)
{
	const dom_chunk *c = (const dom_chunk *)(const void *)
		((const char *)p - (size_t)where * 8 - offsetof(dom_chunk, data));

	return c->arena;
}

#endif
