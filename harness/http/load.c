/*
 * load.c - `domlab load`, the closed loop: the envelope FILE, secured
 * once per level (signed, encrypted for the server), POSTed by 1, 2, 4
 * ... clients at once, each a thread with one libcurl handle whose
 * connection is kept alive and which sends its next request when the
 * last is answered, for a number of requests or of seconds per level.
 * --rate runs the open loop instead (load_rate.c).  Before and after
 * each level it reads the server's GET /stats (`serve --stats`) for its
 * CPU time and peak RSS.  Every request of a level carries the same
 * bytes (the endpoint keeps no replay cache, and the client's own cost
 * stays out of the measurement), except with --tokens: each client
 * secures every request anew, a fresh EncryptedKey being a fresh token
 * for `serve --tokens`, before its clock starts.  --attach sends SOAP
 * with Attachments: the multipart/related message `send --attach`
 * writes, its MIME header as the HTTP Content-Type.  A request is done
 * when its answer is 2xx and verifies (load_check.c); a run with any
 * other writes its report and exits 4, saying how many failed and why.
 * Not for: checking answers (load_check.c) or writing the report
 * (load_report.c).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/http/args.h"
#include "harness/http/load.h"
#include "util/alloc.h"

/* One level's shared state: the request and how many were handed out. */
typedef struct level {
	const load_cfg *cfg;
	const lab_buf *plain;   /* --tokens: what each request secures */
	const lab_msg *att;     /* --attach: the attachment */
	const load_wire *msg;   /* the request, without --tokens */
	load_checker *check;    /* judges every answer */
	double *by_index;       /* --requests: latency in sending order */
	atomic_uint next;
	struct timespec deadline; /* --seconds */
} level;

typedef struct client {
	level *lv;
	unsigned long n; /* requests sent */
	int oom;
	lab_buf answer;
	char errbuf[CURL_ERROR_SIZE];
	load_wire own; /* --tokens: this client's request */
	int rc;   /* securing a request failed: err says why */
	lab_err err;
} client;

/* 1 while the level has requests to send; *idx the next one's number. */
static int more(level *lv, unsigned *idx)
{
	struct timespec now;

	*idx = atomic_fetch_add(&lv->next, 1);
	if (lv->cfg->seconds == 0)
		return *idx < lv->cfg->requests;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return load_ms_between(&now, &lv->deadline) > 0;
}

/* The request's headers: its Content-Type, SOAPAction, no Expect. */
struct curl_slist *load_headers(const load_wire *w)
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

/* Points h at w: its body and headers (*hdrs replaced). */
static int aim(CURL *h, const load_wire *w, struct curl_slist **hdrs)
{
	curl_slist_free_all(*hdrs);
	*hdrs = load_headers(w);
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
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, load_to_buf);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &c->answer);
		curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
				 (long)lv->cfg->timeout_ms);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	}
	while (!c->oom && c->rc == LAB_OK && more(lv, &idx)) {
		struct timespec t0, t1;
		long code = 0;
		CURLcode res;

		if (lv->cfg->tokens) {
			c->rc = load_secure(lv->cfg, lv->plain, lv->att, &c->own,
				       &c->err);
			if (c->rc != LAB_OK)
				break;
			c->oom = aim(h, &c->own, &hdrs) != LAB_OK;
			if (c->oom)
				break;
		}
		c->errbuf[0] = '\0';
		c->answer.len = 0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		res = curl_easy_perform(h);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		c->n++;
		load_checker_judge(lv->check, res, code, c->errbuf, &c->answer,
				   load_ms_between(&t0, &t1));
		if (lv->by_index != NULL)
			lv->by_index[idx] = load_ms_between(&t0, &t1);
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return NULL;
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

/* GET /stats on the URL's server; *got 0 when it does not answer one
 * within STATS_TIMEOUT_MS. */
#define STATS_TIMEOUT_MS 2000L
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
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, load_to_buf);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &text);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		/* A server that does not answer it has no stats. */
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, STATS_TIMEOUT_MS);
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
static int split_mime(const lab_buf *mime, load_wire *out, lab_err *err)
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
int load_secure(const load_cfg *cfg, const lab_buf *plain,
		const lab_msg *att, load_wire *out, lab_err *err)
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
	rc = wss_keys_acquire(&cfg->paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = wss_send_bytes(plain->data, plain->len, ks.key, ks.cert,
				    ks.peer_cert, &o, &doc,
				    att != NULL ? &env : &out->body, err);
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

/* The clients' threads, started and joined; cl[i].n their requests. */
static int run_clients(level *lv, client *cl, pthread_t *th, unsigned n,
		       lab_err *err)
{
	unsigned i, started = 0;
	int rc = LAB_OK;

	for (i = 0; i < n; i++, started++) {
		cl[i].lv = lv;
		if (pthread_create(&th[i], NULL, client_main, &cl[i]) != 0) {
			rc = LAB_ENOMEM;
			break;
		}
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
	return rc;
}

/* One closed-loop level of n clients into r (its server stats aside). */
static int run_level(level *lv, unsigned n, load_result *r, lab_err *err)
{
	const load_cfg *cfg = lv->cfg;
	client *cl = lab_calloc(n, sizeof *cl);
	pthread_t *th = lab_calloc(n, sizeof *th);
	lab_hist *h = lab_malloc(sizeof *h);
	struct timespec t0, t1;
	load_fails fails;
	unsigned i;
	int rc = cl != NULL && th != NULL && h != NULL ? LAB_OK : LAB_ENOMEM;

	r->clients = n;
	lv->by_index = NULL;
	lv->check = NULL;
	if (rc == LAB_OK && cfg->seconds == 0) {
		lv->by_index = lab_calloc(cfg->requests, sizeof *lv->by_index);
		rc = lv->by_index != NULL ? LAB_OK : LAB_ENOMEM;
	}
	if (rc == LAB_OK)
		rc = load_fails_init(&fails);
	if (rc == LAB_OK) {
		lab_hist_init(h);
		rc = load_checker_start(cfg, &fails, &lv->check, err);
		if (rc != LAB_OK)
			pthread_mutex_destroy(&fails.lock);
	}
	atomic_init(&lv->next, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	lv->deadline = t0;
	lv->deadline.tv_sec += cfg->seconds;
	if (rc == LAB_OK)
		rc = run_clients(lv, cl, th, n, err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->seconds = load_ms_between(&t0, &t1) / 1e3;
	if (lv->check != NULL) {
		load_checker_stop(lv->check, h);
		load_fails_take(&fails, r);
		load_latency(h, r);
	}
	for (i = 0; cl != NULL && i < n; i++) {
		r->requests += cl[i].n;
		lab_buf_free(&cl[i].answer);
		lab_buf_free(&cl[i].own.body);
		lab_buf_free(&cl[i].own.ctype);
	}
	if (rc == LAB_OK && lv->by_index != NULL && r->requests > 0)
		growth(lv->by_index, r->requests, r);
	lab_free(cl);
	lab_free(th);
	lab_free(h);
	lab_free(lv->by_index);
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
	else if (strcmp(name, "--rate") == 0)
		return http_parse_uint(name, v, 100000, &c->rate, err);
	else if (strcmp(name, "--timeout") == 0)
		return http_parse_uint(name, v, 3600000, &c->timeout_ms, err);
	else
		return http_parse_uint(name, v, 86400, &c->seconds, err);
	return LAB_OK;
}

/* The open loop's requests, secured before its clock starts: one, or
 * with --tokens one per request (at most RATE_TOKENS). */
#define RATE_TOKENS 100000
static int rate_level(const load_cfg *cfg, const lab_buf *plain,
		      const lab_msg *att, load_result *r, lab_err *err)
{
	size_t total = cfg->seconds > 0 ? (size_t)cfg->rate * cfg->seconds
					: cfg->requests;
	size_t count = cfg->tokens ? total : 1, i;
	load_wire *w = NULL;
	int rc = LAB_OK;

	if (count > RATE_TOKENS)
		return lab_fail(err, LAB_EUSAGE, "--rate with --tokens secures "
				"every request first: at most %d of them",
				RATE_TOKENS);
	w = lab_calloc(count, sizeof *w);
	if (w == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	for (i = 0; rc == LAB_OK && i < count; i++)
		rc = load_secure(cfg, plain, att, &w[i], err);
	if (rc == LAB_OK)
		rc = load_run_rate(cfg, w, count, r, err);
	for (i = 0; i < count; i++) {
		lab_buf_free(&w[i].body);
		lab_buf_free(&w[i].ctype);
	}
	lab_free(w);
	return rc;
}

/* The closed loop's levels: 1, 2, 4 ... clients; *nres of them. */
static int closed_levels(level *lv, load_wire *msg, load_result *res,
			 unsigned *nres, lab_err *err)
{
	const load_cfg *cfg = lv->cfg;
	unsigned n;
	int rc = LAB_OK;

	for (n = 1; rc == LAB_OK && *nres < 16;
	     n = n * 2 < cfg->clients ? n * 2 : cfg->clients) {
		load_result *r = &res[(*nres)++];

		if (!cfg->tokens)
			rc = load_secure(cfg, lv->plain, lv->att, msg, err);
		server_stats(cfg->url, &r->before);
		if (rc == LAB_OK)
			rc = run_level(lv, n, r, err);
		server_stats(cfg->url, &r->after);
		if (n == cfg->clients)
			break;
	}
	return rc;
}

/* LAB_EIO when any request failed, saying how many and why (each
 * reason summed over the levels). */
static int judge_run(const load_result *res, unsigned n, lab_err *err)
{
	load_reason all[LOAD_REASONS];
	unsigned long failed = 0, sent = 0;
	unsigned i, j, k, nall = 0;
	char why[400] = "";
	size_t len = 0;

	for (i = 0; i < n; i++) {
		failed += res[i].errors;
		sent += res[i].requests;
		for (j = 0; j < res[i].nwhy; j++) {
			for (k = 0; k < nall && strcmp(all[k].what,
						       res[i].why[j].what) != 0;
			     k++)
				;
			if (k == nall && nall < LOAD_REASONS) {
				all[nall] = res[i].why[j];
				all[nall++].n = 0;
			}
			if (k < nall)
				all[k].n += res[i].why[j].n;
		}
	}
	if (failed == 0)
		return LAB_OK;
	for (k = 0; k < nall && len < sizeof why; k++)
		len += (size_t)snprintf(why + len, sizeof why - len, "%s%lu %s",
					k > 0 ? ", " : "", all[k].n,
					all[k].what);
	return lab_fail(err, LAB_EIO, "%lu of %lu requests failed: %s%s",
			failed, sent, why,
			len >= sizeof why ? "..." : " (the report lists them)");
}

int lab_cmd_load(int argc, char **argv, lab_err *err)
{
	lab_buf plain = LAB_BUF_INIT;
	load_wire msg = {LAB_BUF_INIT, LAB_BUF_INIT};
	lab_msg att;
	load_result res[16];
	load_cfg cfg;
	level lv;
	unsigned nres = 0;
	int rc;

	memset(&cfg, 0, sizeof cfg);
	memset(&att, 0, sizeof att);
	memset(&lv, 0, sizeof lv);
	memset(res, 0, sizeof res);
	cfg.clients = 4;
	cfg.requests = 200;
	cfg.timeout_ms = 30000;
	rc = http_args(argc, argv, lab_load_options, &cfg.io, set_opt, &cfg, err);
	if (rc == LAB_OK && (cfg.clients == 0 || (cfg.requests == 0 && cfg.seconds == 0)))
		rc = lab_fail(err, LAB_EUSAGE,
			      "--clients and --requests or --seconds must be over 0");
	if (rc == LAB_OK && cfg.timeout_ms == 0)
		rc = lab_fail(err, LAB_EUSAGE, "--timeout must be over 0");
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
	if (rc == LAB_OK && cfg.rate > 0) {
		server_stats(cfg.url, &res[0].before);
		rc = rate_level(&cfg, &plain, lv.att, &res[nres++], err);
		server_stats(cfg.url, &res[0].after);
	} else if (rc == LAB_OK)
		rc = closed_levels(&lv, &msg, res, &nres, err);
	if (rc == LAB_OK)
		rc = load_report(&cfg, res, nres, err);
	if (rc == LAB_OK)
		rc = judge_run(res, nres, err);
	wss_keys_cache_clear();
	curl_global_cleanup();
	lab_buf_free(&plain);
	lab_buf_free(&msg.body);
	lab_buf_free(&msg.ctype);
	lab_msg_free(&att);
	return rc;
}
