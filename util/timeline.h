/*
 * timeline.h - when each step of one call ended, and in what order,
 * whichever thread took it: the schedule of a message two threads share
 * (wss_opts.timeline), which its total time does not show.  The
 * benchmark's pipelined cases report it (docs/measuring.md).
 * A mark costs one clock read; code marks only where it was given a
 * timeline, and a NULL one marks nothing.
 * Not for: timing whole calls (the benchmark does) or counting work
 * (`make profile`).
 */
#ifndef LAB_TIMELINE_H
#define LAB_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct lab_timeline lab_timeline;

/* The most marks one call keeps; later ones are counted, not kept. */
enum { LAB_TIMELINE_MARKS = 32 };

/* An empty timeline, or NULL without memory. */
lab_timeline *lab_timeline_new(void);
void lab_timeline_free(lab_timeline *t);

/* Empties t and starts its clock: before the call, on its thread. */
void lab_timeline_start(lab_timeline *t);

/*
 * what (a string literal, kept by address) ended now.  Any thread of the
 * call may mark, at the same time as others; t NULL: nothing.
 */
void lab_timeline_mark(lab_timeline *t, const char *what);

/* The marks kept since the start, once every thread that marked is
 * joined: at most LAB_TIMELINE_MARKS. */
size_t lab_timeline_count(const lab_timeline *t);

/* Mark i: what ended, ns after the start; 0 (and nothing set) when i is
 * not below lab_timeline_count(t). */
int lab_timeline_get(const lab_timeline *t, size_t i, const char **what,
		     uint64_t *ns);

#endif
