/*
 * alloc.h - the accounting allocator every DOM allocation goes through.
 *
 * Two kinds of memory are counted: heap blocks (lab_malloc and friends,
 * arena chunks among them) and logical allocations carved out of an arena.
 * `allocs` and `bytes` count every request of either kind, so a variant
 * that allocates a small table per node shows it even when the arena
 * serves it; `live` and `peak` count heap bytes actually held, which is
 * what the process pays.  `heap_allocs` counts only real heap requests
 * (malloc, calloc, realloc, arena chunks; libxml2's and OpenSSL's when
 * the harness routes them here), the cost an arena saves.
 *
 * The counters are per thread (each benchmark or pipeline thread reads its
 * own, with no atomics on the hot path).  Memory freed by another thread
 * than the one that allocated it is subtracted from the freeing thread.
 * Not for: pooling or reuse policy; that is the arena's business.
 */
#ifndef UTIL_ALLOC_H
#define UTIL_ALLOC_H

#include <stddef.h>
#include <stdint.h>

typedef struct lab_mem_stats {
	uint64_t allocs; /* allocation requests (heap + arena) */
	uint64_t bytes;  /* bytes requested by those */
	int64_t live;    /* heap bytes held now */
	int64_t peak;    /* highest `live` since the last reset */
	uint64_t heap_allocs; /* heap requests only, arena chunks included */
} lab_mem_stats;

/* malloc, calloc, realloc, free and strdup that keep this thread's
 * counters; memory a DOM call hands over (dom_ns_in_scope) is freed
 * with lab_free. */
void *lab_malloc(size_t n);
void *lab_calloc(size_t count, size_t size);
void *lab_realloc(void *p, size_t n);
void lab_free(void *p);
char *lab_strdup(const char *s);

/* Counts an allocation served from memory already held (an arena chunk). */
void lab_mem_note(size_t n);

/* Heap blocks that back other allocations (arena chunks): they count in
 * live and peak, not in allocs and bytes, which the arena counts itself. */
void *lab_chunk_alloc(size_t n);
void lab_chunk_free(void *p);

/*
 * A test's look at each block lab_free or lab_chunk_free lets go of,
 * before it is freed: its address, usable size, and 1 for an arena
 * chunk.  Blocks realloc moves are not shown.  While a hook is set,
 * blocks are zeroed when handed out (realloc: past the old size), so a
 * block holds at its free only what was written since.  NULL (the
 * default) calls nothing.  Per process, not per thread: set only by tests, while no
 * other thread allocates.
 */
typedef void lab_free_hook(const void *p, size_t n, int chunk);
void lab_set_free_hook(lab_free_hook *hook);

/* This thread's counters. */
lab_mem_stats lab_mem_get(void);

/* Zeroes allocs, heap_allocs and bytes and restarts peak from the current live bytes. */
void lab_mem_reset(void);

#endif
