/*
 * test_timeline.c - a call's steps marked in order (util/timeline.h):
 * marks kept in the order taken, with times that never go back; a NULL
 * timeline marking nothing; marks past the slots counted and not kept;
 * a start emptying it; and two threads marking at once, each mark kept
 * once.  Named threads_* so that `make test` runs them under
 * ThreadSanitizer too.
 */
#include <pthread.h>

#include "tests/util.h"
#include "util/timeline.h"

/* The marks of t: their count, and each one's name and time. */
static size_t marks(const lab_timeline *t, const char **what, uint64_t *ns)
{
	size_t i;

	for (i = 0; lab_timeline_get(t, i, &what[i], &ns[i]); i++)
		;
	return i;
}

static void test_timeline_marks(void)
{
	const char *what[LAB_TIMELINE_MARKS];
	uint64_t ns[LAB_TIMELINE_MARKS];
	lab_timeline *t = lab_timeline_new();
	size_t i;

	if (!CHECK(t != NULL))
		return;
	lab_timeline_mark(NULL, "nowhere");
	lab_timeline_start(t);
	CHECK_EQ_INT((int)lab_timeline_count(t), 0);
	lab_timeline_mark(t, "parsed");
	lab_timeline_mark(t, "signed");
	if (CHECK_EQ_INT((int)marks(t, what, ns), 2)) {
		CHECK_EQ_STR(what[0], "parsed");
		CHECK_EQ_STR(what[1], "signed");
		CHECK(ns[0] <= ns[1]);
	}
	for (i = 0; i < LAB_TIMELINE_MARKS + 8; i++)
		lab_timeline_mark(t, "more");
	CHECK_EQ_INT((int)lab_timeline_count(t), LAB_TIMELINE_MARKS);
	CHECK_EQ_INT((int)marks(t, what, ns), LAB_TIMELINE_MARKS);
	CHECK_EQ_STR(what[LAB_TIMELINE_MARKS - 1], "more");
	lab_timeline_start(t);
	CHECK_EQ_INT((int)lab_timeline_count(t), 0);
	lab_timeline_free(t);
}

enum { PER_THREAD = LAB_TIMELINE_MARKS / 2 };

static void *mark_many(void *arg)
{
	lab_timeline *t = arg;
	int i;

	for (i = 0; i < PER_THREAD; i++)
		lab_timeline_mark(t, "second");
	return NULL;
}

/* The marks of two threads that took PER_THREAD each, "first" and
 * "second": each slot one mark, each thread's marks all there, and each
 * thread's times in its order. */
static void check_two(const lab_timeline *t)
{
	const char *what[LAB_TIMELINE_MARKS];
	uint64_t ns[LAB_TIMELINE_MARKS], last[2] = {0, 0};
	size_t n = marks(t, what, ns), i, counts[2] = {0, 0};

	CHECK_EQ_INT((int)n, LAB_TIMELINE_MARKS);
	for (i = 0; i < n; i++) {
		size_t k = strcmp(what[i], "first") == 0 ? 0 : 1;

		counts[k]++;
		CHECK(ns[i] >= last[k]);
		last[k] = ns[i];
	}
	CHECK_EQ_INT((int)counts[0], PER_THREAD);
	CHECK_EQ_INT((int)counts[1], PER_THREAD);
}

/* Two threads fill the slots at once. */
static void test_timeline_two_threads(void)
{
	lab_timeline *t = lab_timeline_new();
	pthread_t tid;

	if (!CHECK(t != NULL))
		return;
	lab_timeline_start(t);
	if (CHECK(pthread_create(&tid, NULL, mark_many, t) == 0)) {
		int i;

		for (i = 0; i < PER_THREAD; i++)
			lab_timeline_mark(t, "first");
		pthread_join(tid, NULL);
		check_two(t);
	}
	lab_timeline_free(t);
}

const t_case tests_timeline[] = {
	{"threads_timeline_marks", test_timeline_marks},
	{"threads_timeline_two_threads", test_timeline_two_threads},
	{NULL, NULL},
};
