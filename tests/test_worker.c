/*
 * test_worker.c - the second threads kept for the process
 * (util/worker.h): a job runs and its writes are seen once it is waited
 * for, the next job gets the thread the last one parked, callers on
 * several threads never make more threads than run jobs at once, and a
 * forked child starts with none and makes its own.  The names begin with
 * threads_, so ThreadSanitizer runs them (`make test`).
 * Not for: the jobs the pipeline gives (test_threads.c, test_pipelined.c).
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "util/worker.h"

/* The forked child starts a thread, which ThreadSanitizer's default
 * (die_after_fork) would end the child for. */
#if defined(__SANITIZE_THREAD__)
#define T_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define T_TSAN 1
#endif
#endif
#ifdef T_TSAN
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "die_after_fork=0";
}
#endif

enum { CALLERS = 4, JOBS = 50 };

/* What a job writes, plain (not atomic): the wait must make it seen. */
typedef struct record {
	pthread_t thread;
	int ran;
	unsigned long sum;
} record;

static void note(void *arg)
{
	record *r = arg;

	r->thread = pthread_self();
	r->ran++;
}

/* One job run and ended; whether it ran once. */
static int run_one(record *r)
{
	lab_worker_job job = {0};

	if (!lab_worker_start(&job, note, r))
		return 0;
	lab_worker_end(&job);
	return r->ran == 1;
}

static void test_threads_worker_reuse(void)
{
	record first = {0}, second = {0};
	lab_worker_job job = {0};

	if (!CHECK(run_one(&first)))
		return;
	/* The thread parked itself before it marked the job done. */
	CHECK(lab_worker_parked() >= 1);
	CHECK(!pthread_equal(first.thread, pthread_self()));
	if (!CHECK(run_one(&second)))
		return;
	CHECK_MSG(pthread_equal(first.thread, second.thread),
		  "the second job ran on a new thread, not the parked one");
	/* A job not started: waiting and ending return at once. */
	lab_worker_wait(&job);
	lab_worker_end(&job);
	CHECK(job.started == 0);
}

static void add(void *arg)
{
	record *r = arg;
	unsigned long i;

	for (i = 1; i <= 1000; i++)
		r->sum += i;
}

/* A caller: JOBS jobs, one at a time; what each added. */
static void *caller(void *arg)
{
	record *r = arg;
	int i;

	for (i = 0; i < JOBS; i++) {
		lab_worker_job job = {0};

		if (!lab_worker_start(&job, add, r))
			return NULL;
		lab_worker_end(&job);
		r->ran++;
	}
	return NULL;
}

static void test_threads_worker_callers(void)
{
	pthread_t t[CALLERS];
	record r[CALLERS] = {{0}};
	size_t before = lab_worker_parked(), most, i;
	int made = 0;

	for (i = 0; i < CALLERS; i++)
		made += pthread_create(&t[i], NULL, caller, &r[i]) == 0;
	if (!CHECK(made == CALLERS))
		return;
	for (i = 0; i < CALLERS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < CALLERS; i++) {
		t_context("caller %zu", i);
		CHECK(r[i].ran == JOBS);
		CHECK(r[i].sum == (unsigned long)JOBS * 500500);
	}
	t_context(NULL);
	/* Every thread parked again, and no more of them than jobs ran at
	 * once. */
	most = before > CALLERS ? before : CALLERS;
	CHECK_MSG(lab_worker_parked() >= 1 && lab_worker_parked() <= most,
		  "%zu threads parked, at most %zu expected",
		  lab_worker_parked(), most);
}

/* The child's verdict: 0, or which step failed. */
static int in_child(void)
{
	record r = {0};

	alarm(30); /* a job that never ends fails the test, not hangs it */
	if (lab_worker_parked() != 0)
		return 1;
	if (!run_one(&r))
		return 2;
	return lab_worker_parked() == 1 ? 0 : 3;
}

/*
 * This table runs first (tests/main.c), before any thread used OpenSSL:
 * a child forked after that holds the parent's threads' per-thread
 * memory, out of its reach without the threads, and valgrind counts it
 * as lost at the child's exit.
 */
static void test_threads_worker_fork(void)
{
	record r = {0};
	pid_t pid;
	int status = 0;

	/* A thread parked in this process, which the child will not have. */
	if (!CHECK(run_one(&r)) || !CHECK(lab_worker_parked() >= 1))
		return;
	pid = fork();
	if (pid == 0)
		_exit(in_child());
	if (!CHECK(pid > 0) || !CHECK(waitpid(pid, &status, 0) == pid))
		return;
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the child %s %d",
		  WIFEXITED(status) ? "exited with" : "was ended by signal",
		  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	/* This process's threads are still there. */
	CHECK(run_one(&(record){0}));
}

const t_case tests_worker[] = {
	{"threads_worker_reuse", test_threads_worker_reuse},
	{"threads_worker_callers", test_threads_worker_callers},
	{"threads_worker_fork", test_threads_worker_fork},
	{NULL, NULL},
};
