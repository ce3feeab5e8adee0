/*
 * send_pipelined.c - the bounded ring between a producer thread and one
 * worker thread (wss/send_pipelined.h).  head and tail are atomics: the
 * producer writes only into the slot at `head`, which the worker never
 * reads until head moves past it, and the worker reads only published
 * slots, so a slot's bytes need no lock.
 *
 * A thread that finds nothing to do spins first, for up to SPIN_NS, and
 * only then sleeps on a condition variable.  The two threads run on two
 * cores and each waits for about one piece's work of the other (tens of
 * microseconds for 64 KB); waking a sleeping thread costs an interrupt
 * to the other core, which under a hypervisor is of that same order, and
 * 32 such waits per 2 MB cost more than the second core saved.  The
 * spin is bounded so that a loaded machine, or a stopped producer,
 * costs one SPIN_NS per wait and no more.  A wake (mutex, signal) after
 * every change keeps a sleeper from missing it: the waiter checks again
 * under the mutex before it sleeps.
 * Not for: the work itself (the caller's piece and end functions).
 */
#include "wss/send_pipelined.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/worker.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* How long a waiting thread spins before it sleeps. */
enum { SPIN_NS = 200 * 1000 };

struct wss_pipelined {
	atomic_size_t head;    /* slots published */
	atomic_size_t tail;    /* slots taken back free */
	atomic_int ended, stopped, failed;
	size_t fill;           /* bytes in the producer's slot (head's) */
	char *slots;           /* WSS_PIPELINED_SLOTS * WSS_PIPELINED_PIECE */
	size_t len[WSS_PIPELINED_SLOTS];
	wss_pipelined_piece_fn piece;
	wss_pipelined_end_fn end;
	void *ctx;
	lab_worker_job job;
	pthread_mutex_t mu;
	pthread_cond_t filled; /* the worker sleeps: a slot, the end, a stop */
	pthread_cond_t freed;  /* the producer sleeps: a free slot, a failure */
	int rc;                /* the worker's, read once its job ended */
	lab_err err;
};

static char *slot(const wss_pipelined *w, size_t i)
{
	return w->slots + (i % WSS_PIPELINED_SLOTS) * WSS_PIPELINED_PIECE;
}

/* The worker may go on: a slot published, the end, or a stop. */
static int worker_ready(wss_pipelined *w)
{
	return atomic_load(&w->tail) != atomic_load(&w->head) ||
	       atomic_load(&w->ended) || atomic_load(&w->stopped);
}

/* The producer may go on: a slot free, or the worker failed. */
static int producer_ready(wss_pipelined *w)
{
	return atomic_load(&w->head) - atomic_load(&w->tail) <
		       WSS_PIPELINED_SLOTS ||
	       atomic_load(&w->failed);
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Returns once ready(w): spinning up to SPIN_NS, then asleep on cv. */
static void wait_for(wss_pipelined *w, int (*ready)(wss_pipelined *),
		     pthread_cond_t *cv)
{
	long long until = 0;
	unsigned spins;

	for (spins = 0; !ready(w); spins++) {
		if (spins % 64 == 0) {
			long long t = now_ns();

			if (until == 0)
				until = t + SPIN_NS;
			else if (t > until)
				break;
		}
		CPU_RELAX();
	}
	pthread_mutex_lock(&w->mu);
	while (!ready(w))
		pthread_cond_wait(cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/* After a change the other thread waits for: wakes it if it sleeps. */
static void wake(wss_pipelined *w, pthread_cond_t *cv)
{
	pthread_mutex_lock(&w->mu);
	pthread_cond_signal(cv);
	pthread_mutex_unlock(&w->mu);
}

/* The next published slot, or 0 at the end or a stop. */
static int take(wss_pipelined *w, const char **p, size_t *n)
{
	size_t tail = atomic_load(&w->tail);

	wait_for(w, worker_ready, &w->filled);
	if (atomic_load(&w->stopped) || tail == atomic_load(&w->head))
		return 0;
	*p = slot(w, tail);
	*n = w->len[tail % WSS_PIPELINED_SLOTS];
	return 1;
}

/* The slot taken is free again; a failure frees the producer for good. */
static void give_back(wss_pipelined *w, int failed)
{
	if (failed)
		atomic_store(&w->failed, 1);
	atomic_fetch_add(&w->tail, 1);
	wake(w, &w->freed);
}

static void work(void *arg)
{
	wss_pipelined *w = arg;
	const char *p;
	size_t n;

	lab_err_clear(&w->err);
	w->rc = LAB_OK;
	while (take(w, &p, &n)) {
		w->rc = w->piece(w->ctx, p, n);
		give_back(w, w->rc != LAB_OK);
		if (w->rc != LAB_OK) {
			lab_fail(&w->err, w->rc, "encrypting the content failed");
			return;
		}
	}
	if (!atomic_load(&w->stopped))
		w->rc = w->end(w->ctx, &w->err);
}

int wss_pipelined_start(wss_pipelined **out, wss_pipelined_piece_fn piece,
			wss_pipelined_end_fn end, void *ctx, lab_err *err)
{
	wss_pipelined *w = lab_calloc(1, sizeof *w);

	*out = NULL;
	if (w == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	w->slots = lab_malloc((size_t)WSS_PIPELINED_SLOTS *
			      WSS_PIPELINED_PIECE);
	w->piece = piece;
	w->end = end;
	w->ctx = ctx;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->filled, NULL);
	pthread_cond_init(&w->freed, NULL);
	if (w->slots == NULL || !lab_worker_start(&w->job, work, w)) {
		pthread_cond_destroy(&w->freed);
		pthread_cond_destroy(&w->filled);
		pthread_mutex_destroy(&w->mu);
		lab_free(w->slots);
		lab_free(w);
		return lab_fail(err, LAB_ENOMEM,
				"the encryption thread could not be started");
	}
	*out = w;
	return LAB_OK;
}

/* Publishes the producer's slot (last: with the end), then waits until
 * the next one is free.  LAB_EIO once the worker failed. */
static int publish(wss_pipelined *w, int last)
{
	if (w->fill > 0) {
		size_t head = atomic_load(&w->head);

		w->len[head % WSS_PIPELINED_SLOTS] = w->fill;
		atomic_store(&w->head, head + 1);
		w->fill = 0;
	}
	if (last)
		atomic_store(&w->ended, 1);
	wake(w, &w->filled);
	if (!last)
		wait_for(w, producer_ready, &w->freed);
	return atomic_load(&w->failed) ? LAB_EIO : LAB_OK;
}

int wss_pipelined_put(wss_pipelined *w, const char *p, size_t n)
{
	while (n > 0) {
		size_t k = WSS_PIPELINED_PIECE - w->fill;

		if (k == 0) {
			if (publish(w, 0) != LAB_OK)
				return LAB_EIO;
			continue;
		}
		k = k < n ? k : n;
		memcpy(slot(w, atomic_load(&w->head)) + w->fill, p, k);
		w->fill += k;
		p += k;
		n -= k;
	}
	return LAB_OK;
}

int wss_pipelined_finish(wss_pipelined *w)
{
	return publish(w, 1);
}

/* Once the worker's job ended: wipes the slots and frees w. */
static void release(wss_pipelined *w)
{
	pthread_cond_destroy(&w->freed);
	pthread_cond_destroy(&w->filled);
	pthread_mutex_destroy(&w->mu);
	OPENSSL_cleanse(w->slots,
			(size_t)WSS_PIPELINED_SLOTS * WSS_PIPELINED_PIECE);
	lab_free(w->slots);
	lab_free(w);
}

int wss_pipelined_join(wss_pipelined *w, lab_err *err)
{
	int rc;

	lab_worker_end(&w->job);
	rc = w->rc;
	if (rc != LAB_OK)
		*err = w->err;
	release(w);
	return rc;
}

void wss_pipelined_cancel(wss_pipelined *w)
{
	if (w == NULL)
		return;
	atomic_store(&w->stopped, 1);
	wake(w, &w->filled);
	lab_worker_end(&w->job);
	release(w);
}
