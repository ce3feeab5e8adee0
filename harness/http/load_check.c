/*
 * load_check.c - what makes a request of `domlab load` done: its
 * transfer finished, its status is 2xx, and its answer -- the request's
 * Body sent back by the server, signed by it and encrypted for the
 * client -- decrypts with the client's key and verifies with the
 * server's certificate as the one trusted signer, as `domlab receive
 * --key CLIENT --trust SERVER` would.  Anything else is a failure,
 * grouped by why: connection refused, timeout, another transfer error,
 * a status (with its code and the Fault's faultstring), or an answer
 * that does not verify (with receive's message).  Only done requests'
 * latencies are counted.
 *
 * Verifying costs the client CPU (a 2 KB answer about as much as the
 * server's own receive), so it runs on a thread of its own, off the
 * clients' threads and the open loop's schedule: answers wait in a
 * queue, bounded at 64 MiB, past which the client's thread verifies the
 * answer itself.
 * Not for: sending (load.c, load_rate.c) or the report (load_report.c).
 */
#include <stdio.h>
#include <string.h>

#include "harness/http/load.h"
#include "util/alloc.h"

#define QUEUE_BYTES ((size_t)64 << 20)
#define ANSWER_MAX ((size_t)256 << 20)

typedef struct answer {
	struct answer *next;
	lab_buf body;
	double ms;
} answer;

struct load_checker {
	const load_cfg *cfg;
	load_fails *fails;
	wss_keyset ks;
	void *handle;
	pthread_mutex_t lock;
	pthread_cond_t ready;
	answer *head, *tail;
	size_t queued; /* bytes */
	int stop;
	pthread_t thread;
	lab_hist hist; /* verified latencies, microseconds; under lock */
};

double load_ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

size_t load_to_buf(char *p, size_t size, size_t n, void *ctx)
{
	lab_buf *b = ctx;

	if (b->len + size * n > ANSWER_MAX)
		return 0;
	return lab_buf_put(b, p, size * n) == LAB_OK ? size * n : 0;
}

void load_latency(const lab_hist *h, load_result *r)
{
	r->p50 = (double)lab_hist_percentile(h, 50) / 1e3;
	r->p90 = (double)lab_hist_percentile(h, 90) / 1e3;
	r->p99 = (double)lab_hist_percentile(h, 99) / 1e3;
	r->p999 = (double)lab_hist_percentile(h, 99.9) / 1e3;
	r->max = (double)h->max / 1e3;
}

int load_fails_init(load_fails *f)
{
	memset(f, 0, sizeof *f);
	return pthread_mutex_init(&f->lock, NULL) == 0 ? LAB_OK : LAB_ENOMEM;
}

void load_fails_note(load_fails *f, const char *what, const char *first)
{
	unsigned i;

	pthread_mutex_lock(&f->lock);
	f->n++;
	for (i = 0; i < f->nr && strcmp(f->r[i].what, what) != 0; i++)
		;
	if (i == f->nr && f->nr < LOAD_REASONS) {
		snprintf(f->r[i].what, sizeof f->r[i].what, "%s", what);
		snprintf(f->r[i].first, sizeof f->r[i].first, "%s", first);
		f->nr++;
	}
	if (i < f->nr)
		f->r[i].n++;
	else
		f->other++;
	pthread_mutex_unlock(&f->lock);
}

void load_fails_take(load_fails *f, load_result *r)
{
	memcpy(r->why, f->r, sizeof r->why);
	r->nwhy = f->nr;
	r->why_other = f->other;
	r->errors = f->n;
	pthread_mutex_destroy(&f->lock);
}

/* The Fault's faultstring in body, or its first bytes, into out. */
static void fault_text(const lab_buf *body, char *out, size_t cap)
{
	static const char open[] = "<faultstring>";
	const char *p = body->data, *end = p + body->len, *q;
	size_t n;

	out[0] = '\0';
	if (body->len == 0)
		return;
	q = memmem(p, body->len, open, sizeof open - 1);
	if (q != NULL) {
		p = q + sizeof open - 1;
		q = memchr(p, '<', (size_t)(end - p));
		end = q != NULL ? q : end;
	}
	n = (size_t)(end - p) < cap - 1 ? (size_t)(end - p) : cap - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	for (q = out; *q != '\0'; q++)
		if (*q == '\n' || *q == '\r' || *q == '|')
			out[q - out] = ' ';
}

/* 1 when the answer decrypts and verifies; else its failure noted. */
static int verify(load_checker *c, const lab_buf *body)
{
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;
	int rc;

	lab_err_clear(&err);
	wss_opts_default(&o);
	o.lim = c->cfg->io.lim;
	rc = dom_parse(body->data, body->len, &o.lim, &doc, &err);
	if (rc == LAB_OK)
		rc = wss_receive_doc(doc, c->ks.key, c->ks.trust, &o, &err);
	dom_doc_free(doc);
	if (rc != LAB_OK)
		load_fails_note(c->fails, "answer does not verify", err.msg);
	return rc == LAB_OK;
}

static void count(load_checker *c, double ms)
{
	pthread_mutex_lock(&c->lock);
	lab_hist_record(&c->hist, ms > 0 ? (uint64_t)(ms * 1e3 + 0.5) : 0);
	pthread_mutex_unlock(&c->lock);
}

static void *check_main(void *arg)
{
	load_checker *c = arg;
	answer *a;

	for (;;) {
		pthread_mutex_lock(&c->lock);
		while (c->head == NULL && !c->stop)
			pthread_cond_wait(&c->ready, &c->lock);
		a = c->head;
		if (a != NULL) {
			c->head = a->next;
			c->tail = c->head != NULL ? c->tail : NULL;
			c->queued -= a->body.len;
		}
		pthread_mutex_unlock(&c->lock);
		if (a == NULL)
			return NULL;
		if (verify(c, &a->body))
			count(c, a->ms);
		lab_buf_free(&a->body);
		lab_free(a);
	}
}

int load_checker_start(const load_cfg *cfg, load_fails *fails,
		       load_checker **out, lab_err *err)
{
	wss_key_paths paths = {cfg->paths.key, NULL, NULL,
			       cfg->paths.peer_cert};
	load_checker *c = lab_calloc(1, sizeof *c);
	int rc = c != NULL ? LAB_OK : lab_fail(err, LAB_ENOMEM, "out of memory");

	*out = NULL;
	if (rc == LAB_OK)
		rc = wss_keys_acquire(&paths, &c->ks, &c->handle, err);
	if (rc != LAB_OK) {
		lab_free(c);
		return rc;
	}
	c->cfg = cfg;
	c->fails = fails;
	lab_hist_init(&c->hist);
	if (pthread_mutex_init(&c->lock, NULL) != 0 ||
	    pthread_cond_init(&c->ready, NULL) != 0 ||
	    pthread_create(&c->thread, NULL, check_main, c) != 0) {
		/* A mutex or condition never made needs no destroying. */
		wss_keys_release(c->handle);
		lab_free(c);
		return lab_fail(err, LAB_ENOMEM, "cannot start the checker");
	}
	*out = c;
	return LAB_OK;
}

/* Hands a 2xx answer to the checker's thread, or checks it here when
 * the queue is full (or no memory for its place in it). */
static void hand_in(load_checker *c, lab_buf *body, double ms)
{
	answer *a = NULL;

	pthread_mutex_lock(&c->lock);
	if (c->queued + body->len <= QUEUE_BYTES)
		a = lab_calloc(1, sizeof *a);
	if (a != NULL) {
		a->body = *body;
		a->ms = ms;
		*body = (lab_buf)LAB_BUF_INIT;
		if (c->tail != NULL)
			c->tail->next = a;
		else
			c->head = a;
		c->tail = a;
		c->queued += a->body.len;
		pthread_cond_signal(&c->ready);
	}
	pthread_mutex_unlock(&c->lock);
	if (a == NULL && verify(c, body))
		count(c, ms);
	body->len = 0;
}

void load_checker_judge(load_checker *c, CURLcode res, long code,
			const char *errbuf, lab_buf *body, double ms)
{
	char what[64], first[192];

	if (res == CURLE_OK && code >= 200 && code <= 299) {
		hand_in(c, body, ms);
		return;
	}
	if (res == CURLE_COULDNT_CONNECT)
		snprintf(what, sizeof what, "connection refused");
	else if (res == CURLE_OPERATION_TIMEDOUT)
		snprintf(what, sizeof what, "timeout");
	else if (res != CURLE_OK)
		snprintf(what, sizeof what, "transfer failed: %s",
			 curl_easy_strerror(res));
	else
		snprintf(what, sizeof what, "status %ld", code);
	if (res != CURLE_OK)
		snprintf(first, sizeof first, "%s", errbuf);
	else
		fault_text(body, first, sizeof first);
	load_fails_note(c->fails, what, first);
	body->len = 0;
}

void load_checker_stop(load_checker *c, lab_hist *h)
{
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_signal(&c->ready);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	lab_hist_add(h, &c->hist);
	pthread_cond_destroy(&c->ready);
	pthread_mutex_destroy(&c->lock);
	wss_keys_release(c->handle);
	lab_free(c);
}
