/*
 * timeline.c - marks taken into fixed slots (util/timeline.h): each
 * thread claims its slot with one atomic add, so two threads mark
 * without a lock and a mark never allocates.
 * Not for: reading marks while threads still take them.
 */
#include "util/timeline.h"

#include <stdatomic.h>
#include <time.h>

#include "util/alloc.h"

struct lab_timeline {
	uint64_t t0;
	atomic_size_t n;  /* marks taken, kept or not */
	struct {
		const char *what;
		uint64_t ns;
	} marks[LAB_TIMELINE_MARKS];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail on Linux with a valid pointer. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

lab_timeline *lab_timeline_new(void)
{
	lab_timeline *t = lab_calloc(1, sizeof *t);

	if (t != NULL)
		atomic_init(&t->n, 0);
	return t;
}

void lab_timeline_free(lab_timeline *t)
{
	lab_free(t);
}

void lab_timeline_start(lab_timeline *t)
{
	atomic_store_explicit(&t->n, 0, memory_order_relaxed);
	t->t0 = now_ns();
}

void lab_timeline_mark(lab_timeline *t, const char *what)
{
	size_t i;

	if (t == NULL)
		return;
	i = atomic_fetch_add_explicit(&t->n, 1, memory_order_relaxed);
	if (i < LAB_TIMELINE_MARKS) {
		t->marks[i].what = what;
		t->marks[i].ns = now_ns() - t->t0;
	}
}

size_t lab_timeline_count(const lab_timeline *t)
{
	size_t n = atomic_load_explicit(&t->n, memory_order_relaxed);

	return n < LAB_TIMELINE_MARKS ? n : LAB_TIMELINE_MARKS;
}

int lab_timeline_get(const lab_timeline *t, size_t i, const char **what,
		     uint64_t *ns)
{
	if (i >= lab_timeline_count(t))
		return 0;
	*what = t->marks[i].what;
	*ns = t->marks[i].ns;
	return 1;
}
