/*
 * send_pipelined.c - the bounded ring between a producer thread and one
 * worker thread (wss/send_pipelined.h).  One mutex and two condition
 * variables: with 64 KB slots a 2 MB message is 32 hand-overs, so the
 * locking is far below the work on each piece.  The producer writes
 * only into the slot at `head`, which the worker never reads until it
 * is published; the worker reads only published slots.
 * Not for: the work itself (the caller's piece and end functions).
 */
#include "wss/send_pipelined.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <string.h>

#include "util/alloc.h"

struct wss_pipelined {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t filled; /* the worker waits: a slot, the end, a stop */
	pthread_cond_t freed;  /* the producer waits: a free slot */
	wss_pipelined_piece_fn piece;
	wss_pipelined_end_fn end;
	void *ctx;
	char *slots;           /* WSS_PIPELINED_SLOTS * WSS_PIPELINED_PIECE */
	size_t len[WSS_PIPELINED_SLOTS];
	size_t head, tail;     /* slots published, and taken back free */
	size_t fill;           /* bytes in the producer's slot (head's) */
	int ended, stopped, failed;
	int rc;                /* the worker's, read after the join */
	lab_err err;
};

static char *slot(const wss_pipelined *w, size_t i)
{
	return w->slots + (i % WSS_PIPELINED_SLOTS) * WSS_PIPELINED_PIECE;
}

/* The next published slot, or 0 at the end or a stop. */
static int take(wss_pipelined *w, const char **p, size_t *n)
{
	int got;

	pthread_mutex_lock(&w->mu);
	while (w->tail == w->head && !w->ended && !w->stopped)
		pthread_cond_wait(&w->filled, &w->mu);
	got = w->tail != w->head && !w->stopped;
	if (got) {
		*p = slot(w, w->tail);
		*n = w->len[w->tail % WSS_PIPELINED_SLOTS];
	}
	pthread_mutex_unlock(&w->mu);
	return got;
}

/* The slot taken is free again; a failure frees the producer for good. */
static void give_back(wss_pipelined *w, int failed)
{
	pthread_mutex_lock(&w->mu);
	w->tail++;
	w->failed = failed;
	pthread_cond_signal(&w->freed);
	pthread_mutex_unlock(&w->mu);
}

static void *work(void *arg)
{
	wss_pipelined *w = arg;
	const char *p;
	size_t n;
	int stopped;

	lab_err_clear(&w->err);
	w->rc = LAB_OK;
	while (take(w, &p, &n)) {
		w->rc = w->piece(w->ctx, p, n);
		give_back(w, w->rc != LAB_OK);
		if (w->rc != LAB_OK) {
			lab_fail(&w->err, w->rc, "encrypting the content failed");
			return NULL;
		}
	}
	pthread_mutex_lock(&w->mu);
	stopped = w->stopped;
	pthread_mutex_unlock(&w->mu);
	if (!stopped)
		w->rc = w->end(w->ctx, &w->err);
	return NULL;
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
	if (w->slots == NULL || pthread_create(&w->tid, NULL, work, w) != 0) {
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
	int rc;

	pthread_mutex_lock(&w->mu);
	if (w->fill > 0) {
		w->len[w->head % WSS_PIPELINED_SLOTS] = w->fill;
		w->head++;
	}
	w->ended = last;
	pthread_cond_signal(&w->filled);
	while (!last && !w->failed && w->head - w->tail == WSS_PIPELINED_SLOTS)
		pthread_cond_wait(&w->freed, &w->mu);
	rc = w->failed ? LAB_EIO : LAB_OK;
	pthread_mutex_unlock(&w->mu);
	w->fill = 0;
	return rc;
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
		memcpy(slot(w, w->head) + w->fill, p, k);
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

/* After the join: wipes the slots and frees w. */
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

	pthread_join(w->tid, NULL);
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
	pthread_mutex_lock(&w->mu);
	w->stopped = 1;
	pthread_cond_signal(&w->filled);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->tid, NULL);
	release(w);
}
