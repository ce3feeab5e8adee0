/*
 * worker.c - the second threads kept for the process (util/worker.h).
 * One mutex guards the parked list and every thread's job slot; each
 * thread sleeps on its own condition variable, so a start wakes the one
 * thread it gives the job to.  A thread parks itself again before it
 * marks the job done: a caller that starts its next job as soon as it
 * sees the last one done finds the same thread parked.
 * Not for: the jobs' own synchronization with their callers.
 */
#include "util/worker.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

typedef struct worker {
	pthread_cond_t wake;  /* a job was given: job not NULL */
	lab_worker_job *job;  /* the job given and not done; NULL: parked */
	lab_worker_fn *fn;
	void *arg;
	struct worker *next;  /* on the parked list */
} worker;

/*
 * The per-process cache: the threads parked between jobs.  Threads that
 * run a job are on no list; each comes back on its own.  Their records
 * are the C heap's, not util/alloc.h's, whose per-thread counts are the
 * messages'.  watched: the fork handlers are in place (a pool without
 * them is not used, since a child would wait for threads it does not
 * have).
 */
static struct {
	pthread_mutex_t mu;
	worker *parked;
	size_t nparked;
	int watched;
} pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

/* Around a fork the mutex is held, so the child's copy is in a known
 * state; the child has none of the threads, so it forgets them. */
static void before_fork(void)
{
	pthread_mutex_lock(&pool.mu);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&pool.mu);
}

static void after_fork_child(void)
{
	worker *w, *next;

	for (w = pool.parked; w != NULL; w = next) {
		next = w->next;
		free(w);
	}
	pool.parked = NULL;
	pool.nparked = 0;
	pthread_mutex_unlock(&pool.mu);
}

static void watch_forks(void)
{
	pool.watched = pthread_atfork(before_fork, after_fork_parent,
				      after_fork_child) == 0;
}

/* A thread: each job given, then parked until the next. */
static void *work(void *arg)
{
	worker *w = arg;

	pthread_mutex_lock(&pool.mu);
	for (;;) {
		lab_worker_job *job;
		lab_worker_fn *fn;
		void *fn_arg;

		while (w->job == NULL)
			pthread_cond_wait(&w->wake, &pool.mu);
		job = w->job;
		fn = w->fn;
		fn_arg = w->arg;
		pthread_mutex_unlock(&pool.mu);
		fn(fn_arg);
		pthread_mutex_lock(&pool.mu);
		w->job = NULL;
		w->next = pool.parked;
		pool.parked = w;
		pool.nparked++;
		/* The last touch of the job: the caller may free it now. */
		atomic_store_explicit(&job->done, 1, memory_order_release);
	}
	return NULL; /* never: the process's exit ends the thread */
}

/* A new thread, not parked (pool.mu held); NULL when none can be had. */
static worker *spawn(void)
{
	worker *w = calloc(1, sizeof *w);
	pthread_attr_t attr;
	pthread_t tid;
	int ok = 0;

	if (w == NULL)
		return NULL;
	if (pthread_cond_init(&w->wake, NULL) != 0) {
		free(w);
		return NULL;
	}
	if (pthread_attr_init(&attr) == 0) {
		ok = pthread_attr_setdetachstate(&attr,
						 PTHREAD_CREATE_DETACHED) == 0 &&
		     pthread_create(&tid, &attr, work, w) == 0;
		pthread_attr_destroy(&attr);
	}
	if (!ok) {
		pthread_cond_destroy(&w->wake);
		free(w);
		return NULL;
	}
	return w;
}

int lab_worker_start(lab_worker_job *job, lab_worker_fn *fn, void *arg)
{
	worker *w;

	job->started = 0;
	atomic_store_explicit(&job->done, 0, memory_order_relaxed);
	if (pthread_once(&watch_once, watch_forks) != 0 || !pool.watched)
		return 0;
	pthread_mutex_lock(&pool.mu);
	w = pool.parked;
	if (w != NULL) {
		pool.parked = w->next;
		pool.nparked--;
	} else {
		w = spawn();
	}
	if (w != NULL) {
		w->job = job;
		w->fn = fn;
		w->arg = arg;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&pool.mu);
	job->started = w != NULL;
	return job->started;
}

void lab_worker_wait(const lab_worker_job *job)
{
	while (job->started &&
	       !atomic_load_explicit(&job->done, memory_order_acquire))
		sched_yield();
}

void lab_worker_end(lab_worker_job *job)
{
	lab_worker_wait(job);
	job->started = 0;
}

size_t lab_worker_parked(void)
{
	size_t n;

	pthread_mutex_lock(&pool.mu);
	n = pool.nparked;
	pthread_mutex_unlock(&pool.mu);
	return n;
}
