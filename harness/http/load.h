/*
 * load.h - what `domlab load` measures (load.c: the closed loop, one
 * thread per client; load_rate.c: the open loop, --rate) and how it
 * judges and reports each request (load_check.c: a request is done only
 * when its answer is 2xx and verifies; load_report.c: the table and
 * JSON).
 * Not for: the server (serve.c).
 */
#ifndef LAB_HTTP_LOAD_H
#define LAB_HTTP_LOAD_H

#include <curl/curl.h>

#include "harness/http/http.h"
#include "util/hist.h"

typedef struct load_cfg {
	const char *url;
	wss_key_paths paths;
	unsigned clients, requests, seconds;
	unsigned rate;       /* --rate: requests per second, open loop; 0 off */
	unsigned timeout_ms; /* --timeout: a request's whole transfer */
	const char *json;
	int tokens;         /* --tokens: every request secured anew */
	const char *attach; /* --attach FILE: SwA, multipart/related */
	size_t attach_len;
	lab_io io; /* FILE, -o, the parser's limits */
} load_cfg;

/* The server's GET /stats at one moment; got 0 when it had none. */
typedef struct load_stats {
	int got;
	long long cpu_us, maxrss_kb, stalls, tokens;
	char variant[128], stack[16], read[16], tokens_store[16], io[16];
} load_stats;

/* Why requests failed, grouped: a reason ("connection refused",
 * "status 500", ...), how many, and the first one's details. */
#define LOAD_REASONS 8
typedef struct load_reason {
	char what[64];
	unsigned long n;
	char first[192];
} load_reason;

typedef struct load_fails {
	pthread_mutex_t lock;
	load_reason r[LOAD_REASONS];
	unsigned nr;
	unsigned long n, other; /* all failures; those past LOAD_REASONS */
} load_fails;

/* One level: n clients (connections) at once. */
typedef struct load_result {
	unsigned clients;
	unsigned rate; /* the open loop's schedule, requests/s; 0: closed */
	unsigned long requests, errors; /* sent; of which failed */
	double seconds;
	/* latency of the requests done, milliseconds; under --rate from
	 * each request's intended send time */
	double p50, p90, p99, p999, max;
	/* --requests: the median latency of the first and of the last tenth
	 * of the requests in the order they were sent; growth 0 without */
	double first, last;
	int growth;
	load_stats before, after;
	load_reason why[LOAD_REASONS];
	unsigned nwhy;
	unsigned long why_other;
} load_result;

/* A secured request as sent: its body and its Content-Type header line. */
typedef struct load_wire {
	lab_buf body;
	lab_buf ctype; /* "Content-Type: ...", NUL-terminated */
} load_wire;

/* The envelope plain, secured now (a fresh Timestamp and EncryptedKey),
 * with att's attachment as multipart when att is not NULL. */
int load_secure(const load_cfg *cfg, const lab_buf *plain,
		const lab_msg *att, load_wire *out, lab_err *err);

/* The request's header list for w (NULL: out of memory). */
struct curl_slist *load_headers(const load_wire *w);

/*
 * Checks answers off the clients' threads: each 2xx answer is handed to
 * a thread that decrypts and verifies it as `domlab receive` would, with
 * the client's key and the server's certificate (--peer-cert) as the one
 * trusted signer, and counts its latency only then.  Past 64 MiB of
 * answers waiting, the thread that hands one in checks it itself.
 */
typedef struct load_checker load_checker;

int load_checker_start(const load_cfg *cfg, load_fails *fails,
		       load_checker **out, lab_err *err);
/* Judges one finished transfer: res and code from libcurl, body the
 * answer (taken: emptied), ms its latency, errbuf curl's message. */
void load_checker_judge(load_checker *c, CURLcode res, long code,
			const char *errbuf, lab_buf *body, double ms);
/* Waits for every answer handed in, then the verified latencies into h;
 * frees c. */
void load_checker_stop(load_checker *c, lab_hist *h);

/* The failures table: init, one more, into r (and destroy). */
int load_fails_init(load_fails *f);
void load_fails_note(load_fails *f, const char *what, const char *first);
void load_fails_take(load_fails *f, load_result *r);

/* h's percentiles (microseconds) into r's latencies (milliseconds). */
void load_latency(const lab_hist *h, load_result *r);

/* A body sink for libcurl into a lab_buf, refusing past 256 MiB. */
size_t load_to_buf(char *p, size_t size, size_t n, void *ctx);

/* The open loop (--rate): one level of cfg->clients connections, its
 * requests from wires (count of them: one, or one per request). */
int load_run_rate(const load_cfg *cfg, const load_wire *wires, size_t count,
		  load_result *r, lab_err *err);

double load_ms_between(const struct timespec *a, const struct timespec *b);

/* Writes the table (to -o FILE or standard output) and --json FILE. */
int load_report(const load_cfg *cfg, const load_result *r, unsigned n,
		lab_err *err);

#endif
