/*
 * worker.h - second threads kept for the process.  A job (a function and
 * its argument) runs on a thread parked since an earlier job, or on one
 * made for it and parked afterwards.  A message's second thread then
 * costs a wake-up, not a thread's creation: a fresh stack whose pages
 * fault in one by one, and OpenSSL's per-thread state made and freed
 * again around every message (docs/pipeline.md, "The second thread of
 * all three").
 *
 * The threads are a per-process cache: as many as ever ran jobs at
 * once, parked on a condition variable between jobs, detached, ended by
 * the process's exit.  A child forked starts with none.
 * Not for: waiting on a job from the thread that runs it, or work that
 * waits for long (the caller's wait yields, it does not sleep).
 */
#ifndef LAB_WORKER_H
#define LAB_WORKER_H

#include <stdatomic.h>
#include <stddef.h>

typedef void lab_worker_fn(void *arg);

/* One job, the caller's: zeroed before its first start, and not freed
 * or started again before lab_worker_end. */
typedef struct lab_worker_job {
	atomic_int done; /* fn returned: the thread's last touch of the job */
	int started;     /* a thread took it and it was not ended */
} lab_worker_job;

/* Runs fn(arg) on a second thread: 1.  0 when none could be had (no
 * memory, no thread): nothing runs, and the caller does without. */
int lab_worker_start(lab_worker_job *job, lab_worker_fn *fn, void *arg);

/* Returns once fn has returned (at once for a job not started): what it
 * wrote is then seen.  It yields while it waits: a sleeper would wake
 * tens of microseconds after the store it waits for. */
void lab_worker_wait(const lab_worker_job *job);

/* lab_worker_wait, then the job is the caller's again: to free, or to
 * start anew. */
void lab_worker_end(lab_worker_job *job);

/* How many threads are parked now, waiting for a job. */
size_t lab_worker_parked(void);

#endif
