/*
 * arena.h - a bump allocator: the memory of one document.
 *
 * Nodes, strings and attribute arrays of a document are never freed one by
 * one; they die with the document.  An arena makes each allocation a
 * pointer bump and the whole free a walk over a few chunks.  Not for
 * memory whose lifetime is shorter than its document's (attribute list
 * copies, scratch buffers): those use dom_malloc.
 */
#ifndef DOM_ARENA_H
#define DOM_ARENA_H

#include <stddef.h>

typedef struct dom_chunk dom_chunk;

typedef struct dom_arena {
	char *cur;          /* next free byte in the current chunk */
	char *end;          /* end of the current chunk */
	dom_chunk *chunks;  /* newest first */
	size_t next_size;   /* size of the next chunk */
	size_t used;        /* bytes handed out */
	size_t held;        /* bytes of chunks */
	size_t allocs;      /* allocations handed out */
} dom_arena;

/* size_hint: expected total, so a parse of a known input gets one chunk. */
void dom_arena_init(dom_arena *a, size_t size_hint);
void dom_arena_free(dom_arena *a);

/* 8-byte aligned, uninitialised; NULL when memory runs out. */
void *dom_arena_alloc(dom_arena *a, size_t n);
void *dom_arena_zalloc(dom_arena *a, size_t n);
char *dom_arena_strndup(dom_arena *a, const char *s, size_t n);

#endif
