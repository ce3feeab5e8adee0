/*
 * load.c - `domlab load`: the envelope FILE, secured once per level
 * (signed, encrypted for the server), POSTed by 1, 2, 4 ... clients at
 * once, each a thread with one libcurl handle whose connection is kept
 * alive, for a number of requests or of seconds per level.  Before and
 * after each level it reads the server's GET /stats (`serve --stats`)
 * for its CPU time and peak RSS.  Every request of a level carries the
 * same bytes: the endpoint keeps no replay cache, and the client's own
 * cost stays out of the measurement.  An error is a transfer that failed
 * or a status other than 200.
 * Not for: checking the responses' content (tests/http.sh does) or
 * writing the report (load_report.c).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "harness/http/args.h"
#include "harness/http/load.h"
#include "util/alloc.h"

/* One level's shared state: the request and how many were handed out. */
typedef struct level {
	const load_cfg *cfg;
	const lab_buf *msg;
	atomic_uint next;
	struct timespec deadline; /* --seconds */
} level;

typedef struct client {
	level *lv;
	double *lat; /* milliseconds, one per request */
	size_t n, cap;
	unsigned long errors;
	int oom;
} client;

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static size_t drop(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

static int more(level *lv)
{
	struct timespec now;

	if (lv->cfg->seconds == 0)
		return atomic_fetch_add(&lv->next, 1) < lv->cfg->requests;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return ms_between(&now, &lv->deadline) > 0;
}

static int keep(client *c, double ms)
{
	if (c->n == c->cap) {
		size_t cap = c->cap != 0 ? 2 * c->cap : 1024;
		double *p = dom_realloc(c->lat, cap * sizeof *p);

		if (p == NULL)
			return LAB_ENOMEM;
		c->lat = p;
		c->cap = cap;
	}
	c->lat[c->n++] = ms;
	return LAB_OK;
}

static void *client_main(void *arg)
{
	client *c = arg;
	CURL *h = curl_easy_init();
	struct curl_slist *hdrs = NULL, *tmp;
	static const char *const lines[] = {
		"Content-Type: text/xml; charset=utf-8", "SOAPAction: \"\"",
		"Expect:"};
	size_t i;

	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		tmp = curl_slist_append(hdrs, lines[i]);
		c->oom |= tmp == NULL;
		hdrs = tmp != NULL ? tmp : hdrs;
	}
	if (h == NULL || c->oom) {
		c->oom = 1;
		curl_slist_free_all(hdrs);
		curl_easy_cleanup(h);
		return NULL;
	}
	curl_easy_setopt(h, CURLOPT_URL, c->lv->cfg->url);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->lv->msg->data);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)c->lv->msg->len);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, drop);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	while (!c->oom && more(c->lv)) {
		struct timespec t0, t1;
		long code = 0;
		CURLcode res;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		res = curl_easy_perform(h);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		c->errors += res != CURLE_OK || code != 200;
		c->oom = keep(c, ms_between(&t0, &t1)) != LAB_OK;
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return NULL;
}

/* GET /stats on the URL's server; *got 0 when it does not answer one. */
static size_t to_buf(char *p, size_t size, size_t n, void *ctx)
{
	return lab_buf_put(ctx, p, size * n) == LAB_OK ? size * n : 0;
}

static long long stat_value(const char *text, const char *key)
{
	size_t k = strlen(key);
	const char *p;

	for (p = text; p != NULL; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, k) == 0 && p[k] == ' ')
			return strtoll(p + k + 1, NULL, 10);
	return -1;
}

static void stat_word(const char *text, const char *key, char *out,
		      size_t cap)
{
	size_t k = strlen(key);
	const char *p;

	for (p = text; p != NULL; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, k) == 0 && p[k] == ' ') {
			size_t n = strcspn(p + k + 1, "\n");

			if (n >= cap)
				n = cap - 1;
			memcpy(out, p + k + 1, n);
			out[n] = '\0';
			return;
		}
}

static void server_stats(const char *url, load_stats *st)
{
	CURLU *u = curl_url();
	lab_buf text = LAB_BUF_INIT;
	char *stats_url = NULL;
	CURL *h = curl_easy_init();
	long code = 0;

	st->got = 0;
	if (u != NULL && h != NULL &&
	    curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_PATH, "/stats", 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_QUERY, NULL, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &stats_url, 0) == CURLUE_OK) {
		curl_easy_setopt(h, CURLOPT_URL, stats_url);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, to_buf);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &text);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		if (curl_easy_perform(h) == CURLE_OK &&
		    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK &&
		    code == 200 && lab_buf_putc(&text, '\0') == LAB_OK) {
			st->got = 1;
			st->cpu_us = stat_value(text.data, "cpu_us");
			st->maxrss_kb = stat_value(text.data, "maxrss_kb");
			st->stalls = stat_value(text.data, "stalls");
			stat_word(text.data, "variant", st->variant,
				  sizeof st->variant);
			stat_word(text.data, "stack", st->stack,
				  sizeof st->stack);
			stat_word(text.data, "read", st->read, sizeof st->read);
		}
	}
	curl_free(stats_url);
	curl_url_cleanup(u);
	curl_easy_cleanup(h);
	lab_buf_free(&text);
}

/* The envelope, secured now (a fresh Timestamp for each level). */
static int secure(const load_cfg *cfg, const lab_buf *plain, lab_buf *out,
		  lab_err *err)
{
	dom_doc *doc = NULL;
	void *handle = NULL;
	wss_keyset ks;
	wss_opts o;
	int rc;

	wss_opts_default(&o);
	o.lim = cfg->io.lim;
	o.ttl = 3600;
	out->len = 0;
	rc = dom_parse(plain->data, plain->len, &o.lim, &doc, err);
	if (rc == LAB_OK)
		rc = wss_keys_acquire(&cfg->paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = wss_send_doc(doc, ks.key, ks.cert, ks.peer_cert, &o, err);
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), out, err);
	wss_keys_release(handle);
	dom_doc_free(doc);
	return rc;
}

static int cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Pools the clients' latencies into r's percentiles. */
static int summarize(client *cl, unsigned n, load_result *r)
{
	size_t total = 0, k = 0, i;
	double *all;

	for (i = 0; i < n; i++) {
		total += cl[i].n;
		r->errors += cl[i].errors;
	}
	r->requests = total;
	if (total == 0)
		return LAB_OK;
	all = dom_malloc(total * sizeof *all);
	if (all == NULL)
		return LAB_ENOMEM;
	for (i = 0; i < n; i++) {
		memcpy(all + k, cl[i].lat, cl[i].n * sizeof *all);
		k += cl[i].n;
	}
	qsort(all, total, sizeof *all, cmp_ms);
	r->p50 = all[(total - 1) * 50 / 100];
	r->p90 = all[(total - 1) * 90 / 100];
	r->p99 = all[(total - 1) * 99 / 100];
	r->max = all[total - 1];
	dom_free(all);
	return LAB_OK;
}

static int run_level(const load_cfg *cfg, const lab_buf *msg, unsigned n,
		     load_result *r, lab_err *err)
{
	client *cl = dom_calloc(n, sizeof *cl);
	pthread_t *th = dom_calloc(n, sizeof *th);
	struct timespec t0, t1;
	level lv;
	unsigned i, started = 0;
	int rc = cl != NULL && th != NULL ? LAB_OK : LAB_ENOMEM;

	memset(r, 0, sizeof *r);
	r->clients = n;
	lv.cfg = cfg;
	lv.msg = msg;
	atomic_init(&lv.next, 0);
	server_stats(cfg->url, &r->before);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	lv.deadline = t0;
	lv.deadline.tv_sec += cfg->seconds;
	for (i = 0; rc == LAB_OK && i < n; i++, started++) {
		cl[i].lv = &lv;
		if (pthread_create(&th[i], NULL, client_main, &cl[i]) != 0)
			rc = LAB_ENOMEM;
	}
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		if (cl[i].oom)
			rc = LAB_ENOMEM;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	server_stats(cfg->url, &r->after);
	r->seconds = ms_between(&t0, &t1) / 1e3;
	if (rc == LAB_OK)
		rc = summarize(cl, n, r);
	for (i = 0; cl != NULL && i < n; i++)
		dom_free(cl[i].lat);
	dom_free(cl);
	dom_free(th);
	return rc == LAB_OK ? LAB_OK
			    : lab_fail(err, rc, "out of memory for the clients");
}

static int set_opt(void *ctx, const char *name, const char *v, lab_err *err)
{
	load_cfg *c = ctx;

	if (strcmp(name, "--url") == 0)
		c->url = v;
	else if (strcmp(name, "--key") == 0)
		c->paths.key = v;
	else if (strcmp(name, "--cert") == 0)
		c->paths.cert = v;
	else if (strcmp(name, "--peer-cert") == 0)
		c->paths.peer_cert = v;
	else if (strcmp(name, "--json") == 0)
		c->json = v;
	else if (strcmp(name, "--clients") == 0)
		return http_parse_uint(name, v, 1024, &c->clients, err);
	else if (strcmp(name, "--requests") == 0)
		return http_parse_uint(name, v, 100000000, &c->requests, err);
	else
		return http_parse_uint(name, v, 86400, &c->seconds, err);
	return LAB_OK;
}

int lab_cmd_load(int argc, char **argv, lab_err *err)
{
	lab_buf plain = LAB_BUF_INIT, msg = LAB_BUF_INIT;
	load_result res[16];
	load_cfg cfg;
	unsigned n, nres = 0;
	int rc;

	memset(&cfg, 0, sizeof cfg);
	cfg.clients = 4;
	cfg.requests = 200;
	rc = http_args(argc, argv, lab_load_options, &cfg.io, set_opt, &cfg, err);
	if (rc == LAB_OK && (cfg.clients == 0 || (cfg.requests == 0 && cfg.seconds == 0)))
		rc = lab_fail(err, LAB_EUSAGE,
			      "--clients and --requests or --seconds must be over 0");
	if (rc == LAB_OK)
		rc = lab_read_input(cfg.io.in, cfg.io.lim.max_input, &plain, err);
	if (rc == LAB_OK && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		rc = lab_fail(err, LAB_EIO, "libcurl could not start");
	for (n = 1; rc == LAB_OK && nres < 16;
	     n = n * 2 < cfg.clients ? n * 2 : cfg.clients) {
		rc = secure(&cfg, &plain, &msg, err);
		if (rc == LAB_OK)
			rc = run_level(&cfg, &msg, n, &res[nres++], err);
		if (n == cfg.clients)
			break;
	}
	if (rc == LAB_OK)
		rc = load_report(&cfg, res, nres, err);
	wss_keys_cache_clear();
	curl_global_cleanup();
	lab_buf_free(&plain);
	lab_buf_free(&msg);
	return rc;
}
