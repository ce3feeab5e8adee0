/*
 * alloc.c - malloc wrappers that keep per-thread counters.
 *
 * Live bytes are measured with malloc_usable_size rather than a size
 * header: a header would change the layout we are trying to measure, and
 * the foreign libraries the harness also routes here (libxml2, OpenSSL)
 * free without telling us the size.
 */
#include "util/alloc.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* Per-thread by design: see alloc.h. */
static _Thread_local lab_mem_stats stats;
/* The one per-process test hook of alloc.h; NULL outside tests. */
static lab_free_hook *free_hook;

static void note_held(void *p)
{
	stats.live += (int64_t)malloc_usable_size(p);
	if (stats.live > stats.peak)
		stats.peak = stats.live;
}

/* While a free hook is set, a block's bytes from `from` on are zeroed
 * when it is handed out, so what the hook sees at its free was written
 * since, not left by an earlier owner of the memory. */
static void clear_for_hook(void *p, size_t from)
{
	size_t n = malloc_usable_size(p);

	if (free_hook != NULL && n > from)
		memset((char *)p + from, 0, n - from);
}

static void note_heap(void *p, size_t requested)
{
	stats.allocs++;
	stats.heap_allocs++;
	stats.bytes += requested;
	note_held(p);
}

void *lab_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p != NULL) {
		clear_for_hook(p, 0);
		note_heap(p, n);
	}
	return p;
}

void *lab_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (p != NULL)
		note_heap(p, count * size);
	return p;
}

void *lab_realloc(void *p, size_t n)
{
	size_t old = p != NULL ? malloc_usable_size(p) : 0;
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		return NULL;
	clear_for_hook(q, old);
	stats.live -= (int64_t)old;
	note_heap(q, n);
	return q;
}

static void let_go(void *p, int chunk)
{
	size_t n = malloc_usable_size(p);

	if (free_hook != NULL)
		free_hook(p, n, chunk);
	stats.live -= (int64_t)n;
	free(p);
}

void lab_free(void *p)
{
	if (p != NULL)
		let_go(p, 0);
}

void lab_set_free_hook(lab_free_hook *hook)
{
	free_hook = hook;
}

char *lab_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = lab_malloc(n);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

void *lab_chunk_alloc(size_t n)
{
	void *p = malloc(n);

	if (p != NULL) {
		clear_for_hook(p, 0);
		stats.heap_allocs++;
		note_held(p);
	}
	return p;
}

void lab_chunk_free(void *p)
{
	if (p != NULL)
		let_go(p, 1);
}

void lab_mem_note(size_t n)
{
	stats.allocs++;
	stats.bytes += n;
}

lab_mem_stats lab_mem_get(void)
{
	return stats;
}

void lab_mem_reset(void)
{
	stats.allocs = 0;
	stats.heap_allocs = 0;
	stats.bytes = 0;
	stats.peak = stats.live;
}
