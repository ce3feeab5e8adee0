/*
 * load.h - what `domlab load` measures (load.c) and reports
 * (load_report.c).
 * Not for: the server (serve.c).
 */
#ifndef LAB_HTTP_LOAD_H
#define LAB_HTTP_LOAD_H

#include "harness/http/http.h"

typedef struct load_cfg {
	const char *url;
	wss_key_paths paths;
	unsigned clients, requests, seconds;
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

/* One level: n clients at once. */
typedef struct load_result {
	unsigned clients;
	unsigned long requests, errors;
	double seconds;
	double p50, p90, p99, max; /* latency, milliseconds */
	/* --requests: the median latency of the first and of the last tenth
	 * of the requests in the order they were sent; growth 0 without */
	double first, last;
	int growth;
	load_stats before, after;
} load_result;

/* Writes the table (to -o FILE or standard output) and --json FILE. */
int load_report(const load_cfg *cfg, const load_result *r, unsigned n,
		lab_err *err);

#endif
