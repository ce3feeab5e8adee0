/*
 * load.c - `domlab load`: the envelope FILE, secured once per level
 * (signed, encrypted for the server), POSTed by 1, 2, 4 ... clients at
 * once, each a thread with one libcurl handle whose connection is kept
 * alive, for a number of requests or of seconds per level.  Before and
 * after each level it reads the server's GET /stats (`serve --stats`)
 * for its CPU time and peak RSS.  Every request of a level carries the
 * same bytes (the endpoint keeps no replay cache, and the client's own
 * cost stays out of the measurement), except with --tokens: each client
 * secures every request anew, a fresh EncryptedKey being a fresh token
 * for `serve --tokens`, before its clock starts.  --attach sends SOAP
 * with Attachments: the multipart/related message `send --attach`
 * writes, its MIME header as the HTTP Content-Type.  An error is a
 * transfer that failed or a status other than 200.
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

/* A secured request as sent: its body and its Content-Type header line. */
typedef struct wire {
	lab_buf body;
	lab_buf ctype; /* "Content-Type: ...", NUL-terminated */
} wire;

/* One level's shared state: the request and how many were handed out. */
typedef struct level {
	const load_cfg *cfg;
	const lab_buf *plain;   /* --tokens: what each request secures */
	const lab_msg *att;     /* --attach: the attachment */
	const wire *msg;        /* the request, without --tokens */
	double *by_index;       /* --requests: latency in sending order */
	atomic_uint next;
	struct timespec deadline; /* --seconds */
} level;

typedef struct client {
	level *lv;
	double *lat; /* milliseconds, one per request */
	size_t n, cap;
	unsigned long errors;
	int oom;
	wire own; /* --tokens: this client's request */
	int rc;   /* securing a request failed: err says why */
	lab_err err;
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

/* 1 while the level has requests to send; *idx the next one's number. */
static int more(level *lv, unsigned *idx)
{
	struct timespec now;

	*idx = atomic_fetch_add(&lv->next, 1);
	if (lv->cfg->seconds == 0)
		return *idx < lv->cfg->requests;
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

/* The request's headers: its Content-Type, SOAPAction, no Expect. */
static struct curl_slist *headers(const wire *w)
{
	const char *lines[] = {w->ctype.data, "SOAPAction: \"\"", "Expect:"};
	struct curl_slist *h = NULL, *tmp;
	size_t i;

	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		tmp = curl_slist_append(h, lines[i]);
		if (tmp == NULL) {
			curl_slist_free_all(h);
			return NULL;
		}
		h = tmp;
	}
	return h;
}

static int secure(const load_cfg *cfg, const lab_buf *plain,
		  const lab_msg *att, wire *out, lab_err *err);

/* Points h at w: its body and headers (*hdrs replaced). */
static int aim(CURL *h, const wire *w, struct curl_slist **hdrs)
{
	curl_slist_free_all(*hdrs);
	*hdrs = headers(w);
	if (*hdrs == NULL)
		return LAB_ENOMEM;
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, w->body.data);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)w->body.len);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
	return LAB_OK;
}

static void *client_main(void *arg)
{
	client *c = arg;
	level *lv = c->lv;
	CURL *h = curl_easy_init();
	struct curl_slist *hdrs = NULL;
	unsigned idx;

	c->oom = h == NULL ||
		 (!lv->cfg->tokens && aim(h, lv->msg, &hdrs) != LAB_OK);
	if (h != NULL) {
		curl_easy_setopt(h, CURLOPT_URL, lv->cfg->url);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, drop);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	}
	while (!c->oom && c->rc == LAB_OK && more(lv, &idx)) {
		struct timespec t0, t1;
		long code = 0;
		CURLcode res;

		if (lv->cfg->tokens) {
			c->rc = secure(lv->cfg, lv->plain, lv->att, &c->own,
				       &c->err);
			if (c->rc != LAB_OK)
				break;
			c->oom = aim(h, &c->own, &hdrs) != LAB_OK;
			if (c->oom)
				break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		res = curl_easy_perform(h);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		c->errors += res != CURLE_OK || code != 200;
		c->oom = keep(c, ms_between(&t0, &t1)) != LAB_OK;
		if (lv->by_index != NULL)
			lv->by_index[idx] = ms_between(&t0, &t1);
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
			st->tokens = stat_value(text.data, "tokens");
			stat_word(text.data, "tokens_store", st->tokens_store,
				  sizeof st->tokens_store);
			stat_word(text.data, "io", st->io, sizeof st->io);
		}
	}
	curl_free(stats_url);
	curl_url_cleanup(u);
	curl_easy_cleanup(h);
	lab_buf_free(&text);
}

/* A multipart message as HTTP carries it: its MIME header block's
 * Content-Type line becomes the request's header, the rest the body. */
static int split_mime(const lab_buf *mime, wire *out, lab_err *err)
{
	static const char ct[] = "Content-Type:";
	const char *p = mime->data, *end = p + mime->len, *eol;
	int rc = LAB_OK;

	for (; p < end && *p != '\r'; p = eol + 2) {
		eol = memchr(p, '\r', (size_t)(end - p));
		if (eol == NULL || eol + 1 >= end)
			break;
		if ((size_t)(eol - p) > sizeof ct &&
		    memcmp(p, ct, sizeof ct - 1) == 0)
			rc = lab_buf_put(&out->ctype, p, (size_t)(eol - p));
	}
	if (p + 1 >= end || p[0] != '\r' || p[1] != '\n' || out->ctype.len == 0)
		return lab_fail(err, LAB_EUSAGE, "the multipart message has "
				"no header block");
	if (rc == LAB_OK)
		rc = lab_buf_putc(&out->ctype, '\0');
	if (rc == LAB_OK)
		rc = lab_buf_put(&out->body, p + 2, (size_t)(end - p - 2));
	return rc == LAB_OK ? LAB_OK : lab_fail(err, LAB_ENOMEM, "out of memory");
}

/* The envelope, secured now (a fresh Timestamp and EncryptedKey), with
 * att's attachment signed with it and sent as multipart when att. */
static int secure(const load_cfg *cfg, const lab_buf *plain,
		  const lab_msg *att, wire *out, lab_err *err)
{
	static const char xml[] = "Content-Type: text/xml; charset=utf-8";
	lab_buf env = LAB_BUF_INIT, mime = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	void *handle = NULL;
	wss_keyset ks;
	wss_opts o;
	int rc;

	wss_opts_default(&o);
	o.lim = cfg->io.lim;
	o.ttl = 3600;
	if (att != NULL) {
		o.att = att->att;
		o.natt = att->natt;
	}
	out->body.len = 0;
	out->ctype.len = 0;
	rc = dom_parse_signing(plain->data, plain->len, &o.lim, &doc, err);
	if (rc == LAB_OK)
		rc = wss_keys_acquire(&cfg->paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = wss_send_doc(doc, ks.key, ks.cert, ks.peer_cert, &o, err);
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), att != NULL ? &env
								 : &out->body,
				   err);
	if (rc == LAB_OK && att != NULL)
		rc = lab_msg_wrap(att, &env, &mime, err);
	if (rc == LAB_OK && att != NULL)
		rc = split_mime(&mime, out, err);
	else if (rc == LAB_OK &&
		 lab_buf_put(&out->ctype, xml, sizeof xml) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	wss_keys_release(handle);
	dom_doc_free(doc);
	lab_buf_free(&env);
	lab_buf_free(&mime);
	return rc;
}

static int cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n latencies, sorted in place. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_ms);
	return v[(n - 1) / 2];
}

/* The first and last tenth of the requests in sending order (at least
 * one each); by_index is spent. */
static void growth(double *by_index, size_t total, load_result *r)
{
	size_t w = total / 10 > 0 ? total / 10 : 1;

	r->first = median(by_index, w);
	r->last = median(by_index + total - w, w);
	r->growth = 1;
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

static int run_level(level *lv, unsigned n, load_result *r, lab_err *err)
{
	const load_cfg *cfg = lv->cfg;
	client *cl = dom_calloc(n, sizeof *cl);
	pthread_t *th = dom_calloc(n, sizeof *th);
	struct timespec t0, t1;
	unsigned i, started = 0;
	int rc = cl != NULL && th != NULL ? LAB_OK : LAB_ENOMEM;

	memset(r, 0, sizeof *r);
	r->clients = n;
	lv->by_index = NULL;
	if (rc == LAB_OK && cfg->seconds == 0) {
		lv->by_index = dom_calloc(cfg->requests, sizeof *lv->by_index);
		rc = lv->by_index != NULL ? LAB_OK : LAB_ENOMEM;
	}
	atomic_init(&lv->next, 0);
	server_stats(cfg->url, &r->before);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	lv->deadline = t0;
	lv->deadline.tv_sec += cfg->seconds;
	for (i = 0; rc == LAB_OK && i < n; i++, started++) {
		cl[i].lv = lv;
		if (pthread_create(&th[i], NULL, client_main, &cl[i]) != 0)
			rc = LAB_ENOMEM;
	}
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		if (cl[i].oom)
			rc = LAB_ENOMEM;
		else if (cl[i].rc != LAB_OK && rc == LAB_OK) {
			rc = cl[i].rc;
			*err = cl[i].err;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	server_stats(cfg->url, &r->after);
	r->seconds = ms_between(&t0, &t1) / 1e3;
	if (rc == LAB_OK)
		rc = summarize(cl, n, r);
	if (rc == LAB_OK && lv->by_index != NULL && r->requests > 0)
		growth(lv->by_index, r->requests, r);
	for (i = 0; cl != NULL && i < n; i++) {
		dom_free(cl[i].lat);
		lab_buf_free(&cl[i].own.body);
		lab_buf_free(&cl[i].own.ctype);
	}
	dom_free(cl);
	dom_free(th);
	dom_free(lv->by_index);
	lv->by_index = NULL;
	if (rc == LAB_ENOMEM)
		return lab_fail(err, rc, "out of memory for the clients");
	return rc;
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
	else if (strcmp(name, "--attach") == 0)
		c->attach = v;
	else if (strcmp(name, "--tokens") == 0)
		c->tokens = 1;
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
	lab_buf plain = LAB_BUF_INIT;
	wire msg = {LAB_BUF_INIT, LAB_BUF_INIT};
	lab_msg att;
	load_result res[16];
	load_cfg cfg;
	level lv;
	unsigned n, nres = 0;
	int rc;

	memset(&cfg, 0, sizeof cfg);
	memset(&att, 0, sizeof att);
	memset(&lv, 0, sizeof lv);
	cfg.clients = 4;
	cfg.requests = 200;
	rc = http_args(argc, argv, lab_load_options, &cfg.io, set_opt, &cfg, err);
	if (rc == LAB_OK && (cfg.clients == 0 || (cfg.requests == 0 && cfg.seconds == 0)))
		rc = lab_fail(err, LAB_EUSAGE,
			      "--clients and --requests or --seconds must be over 0");
	if (rc == LAB_OK)
		rc = lab_read_input(cfg.io.in, cfg.io.lim.max_input, &plain, err);
	if (rc == LAB_OK && cfg.attach != NULL)
		rc = lab_msg_attach_file(cfg.attach, &att, err);
	cfg.attach_len = att.natt > 0 ? att.att[0].len : 0;
	if (rc == LAB_OK && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		rc = lab_fail(err, LAB_EIO, "libcurl could not start");
	lv.cfg = &cfg;
	lv.plain = &plain;
	lv.att = cfg.attach != NULL ? &att : NULL;
	lv.msg = &msg;
	for (n = 1; rc == LAB_OK && nres < 16;
	     n = n * 2 < cfg.clients ? n * 2 : cfg.clients) {
		if (!cfg.tokens)
			rc = secure(&cfg, &plain, lv.att, &msg, err);
		if (rc == LAB_OK)
			rc = run_level(&lv, n, &res[nres++], err);
		if (n == cfg.clients)
			break;
	}
	if (rc == LAB_OK)
		rc = load_report(&cfg, res, nres, err);
	wss_keys_cache_clear();
	curl_global_cleanup();
	lab_buf_free(&plain);
	lab_buf_free(&msg.body);
	lab_buf_free(&msg.ctype);
	lab_msg_free(&att);
	return rc;
}
