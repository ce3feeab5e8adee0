/*
 * load_rate.c - `domlab load --rate R`, the open loop: request k is due
 * at k / R seconds after the start, whatever happened to the ones before
 * it, and its latency runs from that intended time to its answer (wrk2's
 * correction for coordinated omission).  A server that stalls for a
 * second under 100 requests/s is charged for the hundred requests that
 * should have gone out meanwhile, each with the part of the stall it
 * waited, not for one slow request as a closed loop charges it.
 *
 * One thread drives cfg->clients libcurl easy handles through one multi
 * handle, each with its own kept-alive connection; a due request waits
 * for a free handle (that wait is in its latency).  The schedule ends
 * after --requests requests or --seconds seconds (R x S requests), and
 * every transfer is bounded by --timeout, so the run ends by itself.
 * Not for: the closed loop (load.c) or judging answers (load_check.c).
 */
#include <string.h>
#include <time.h>

#include "harness/http/load.h"
#include "util/alloc.h"

typedef struct slot {
	CURL *h;
	struct curl_slist *hdrs;
	lab_buf body;
	char errbuf[CURL_ERROR_SIZE];
	double due; /* ms after the start the request was due */
	int busy;
} slot;

typedef struct run {
	const load_cfg *cfg;
	CURLM *multi;
	slot *slots;
	load_checker *check;
	struct timespec t0;
	double gap; /* ms between two due times */
} run;

static double now_ms(const run *r)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return load_ms_between(&r->t0, &t);
}

/* Starts request k on the free slot s. */
static int launch(run *r, slot *s, const load_wire *w, size_t k)
{
	curl_slist_free_all(s->hdrs);
	s->hdrs = load_headers(w);
	if (s->hdrs == NULL)
		return LAB_ENOMEM;
	s->errbuf[0] = '\0';
	s->body.len = 0;
	s->due = (double)k * r->gap;
	s->busy = 1;
	curl_easy_setopt(s->h, CURLOPT_POSTFIELDS, w->body.data);
	curl_easy_setopt(s->h, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)w->body.len);
	curl_easy_setopt(s->h, CURLOPT_HTTPHEADER, s->hdrs);
	return curl_multi_add_handle(r->multi, s->h) == CURLM_OK ? LAB_OK
								: LAB_ENOMEM;
}

/* Judges every transfer that ended and frees its slot. */
static void reap(run *r)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(r->multi, &left)) != NULL) {
		char *priv = NULL;
		slot *s;
		long code = 0;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
		s = (slot *)(void *)priv;
		curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &code);
		load_checker_judge(r->check, m->data.result, code, s->errbuf,
				   &s->body, now_ms(r) - s->due);
		curl_multi_remove_handle(r->multi, m->easy_handle);
		s->busy = 0;
	}
}

static slot *free_slot(run *r)
{
	unsigned i;

	for (i = 0; i < r->cfg->clients; i++)
		if (!r->slots[i].busy)
			return &r->slots[i];
	return NULL;
}

static int set_up(run *r)
{
	unsigned i;

	r->multi = curl_multi_init();
	r->slots = lab_calloc(r->cfg->clients, sizeof *r->slots);
	if (r->multi == NULL || r->slots == NULL)
		return LAB_ENOMEM;
	curl_multi_setopt(r->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
			  (long)r->cfg->clients);
	for (i = 0; i < r->cfg->clients; i++) {
		slot *s = &r->slots[i];

		s->h = curl_easy_init();
		if (s->h == NULL)
			return LAB_ENOMEM;
		curl_easy_setopt(s->h, CURLOPT_URL, r->cfg->url);
		curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(s->h, CURLOPT_PRIVATE, (char *)s);
		curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, load_to_buf);
		curl_easy_setopt(s->h, CURLOPT_WRITEDATA, &s->body);
		curl_easy_setopt(s->h, CURLOPT_ERRORBUFFER, s->errbuf);
		curl_easy_setopt(s->h, CURLOPT_TIMEOUT_MS,
				 (long)r->cfg->timeout_ms);
	}
	return LAB_OK;
}

static void tear_down(run *r)
{
	unsigned i;

	for (i = 0; r->slots != NULL && i < r->cfg->clients; i++) {
		if (r->slots[i].busy)
			curl_multi_remove_handle(r->multi, r->slots[i].h);
		curl_easy_cleanup(r->slots[i].h);
		curl_slist_free_all(r->slots[i].hdrs);
		lab_buf_free(&r->slots[i].body);
	}
	lab_free(r->slots);
	curl_multi_cleanup(r->multi);
}

/* The schedule: start what is due while a slot is free, drive the
 * transfers, sleep until the next is due or a transfer moves. */
static int drive(run *r, const load_wire *wires, size_t count, size_t total)
{
	size_t k = 0;
	int running = 1, rc = LAB_OK;

	while (rc == LAB_OK && (k < total || running > 0)) {
		double now = now_ms(r), wait = 100;
		slot *s;

		while (rc == LAB_OK && k < total && (double)k * r->gap <= now &&
		       (s = free_slot(r)) != NULL) {
			rc = launch(r, s, &wires[count > 1 ? k : 0], k);
			k++;
		}
		if (rc != LAB_OK ||
		    curl_multi_perform(r->multi, &running) != CURLM_OK)
			return LAB_ENOMEM;
		reap(r);
		if (k < total && free_slot(r) != NULL)
			wait = (double)k * r->gap - now_ms(r);
		if (wait > 0 && (k < total || running > 0))
			curl_multi_poll(r->multi, NULL, 0,
					wait < 1 ? 1 : (int)(wait > 100 ? 100 : wait),
					NULL);
	}
	return rc;
}

int load_run_rate(const load_cfg *cfg, const load_wire *wires, size_t count,
		  load_result *res, lab_err *err)
{
	size_t total = cfg->seconds > 0 ? (size_t)cfg->rate * cfg->seconds
					: cfg->requests;
	struct timespec t1;
	load_fails fails;
	lab_hist *h = lab_malloc(sizeof *h);
	run r;
	int rc;

	memset(&r, 0, sizeof r);
	r.cfg = cfg;
	r.gap = 1e3 / cfg->rate;
	if (h == NULL || load_fails_init(&fails) != LAB_OK) {
		lab_free(h);
		return lab_fail(err, LAB_ENOMEM, "out of memory for the clients");
	}
	lab_hist_init(h);
	rc = load_checker_start(cfg, &fails, &r.check, err);
	if (rc == LAB_OK && set_up(&r) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory for the clients");
	clock_gettime(CLOCK_MONOTONIC, &r.t0);
	if (rc == LAB_OK && drive(&r, wires, count, total) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory for the clients");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tear_down(&r);
	if (r.check != NULL)
		load_checker_stop(r.check, h);
	load_fails_take(&fails, res);
	res->clients = cfg->clients;
	res->rate = cfg->rate;
	res->requests = total;
	res->seconds = load_ms_between(&r.t0, &t1) / 1e3;
	load_latency(h, res);
	lab_free(h);
	return rc;
}
