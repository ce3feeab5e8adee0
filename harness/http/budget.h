/*
 * budget.h - what `domlab serve` lets requests hold at once: one memory
 * budget for the process, and per client address a share of it and a
 * count of requests.  A request is charged before its memory is
 * allocated (its announced body times the expansion of parsing and
 * answering it), so a request over the budget is answered 503 instead of
 * being read.  Not for: deciding the answer (serve.c), connections
 * (libmicrohttpd's limits).
 */
#ifndef LAB_HTTP_BUDGET_H
#define LAB_HTTP_BUDGET_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct http_budget_cfg {
	uint64_t max_bytes;       /* the process's budget */
	uint64_t client_bytes;    /* one address's share of it */
	unsigned client_requests; /* one address's requests at once */
	unsigned factor;          /* bytes charged per body byte */
} http_budget_cfg;

/* One client address with requests in flight. */
typedef struct http_client {
	unsigned char addr[16]; /* IPv4 mapped into IPv6 */
	unsigned requests;
	uint64_t bytes;
} http_client;

typedef struct http_budget {
	pthread_mutex_t lock;
	http_budget_cfg cfg;
	http_client *clients; /* [cap]: every request has a connection */
	size_t nclients, cap;
	uint64_t held, peak; /* bytes charged now, and the most at once */
	unsigned long refused; /* requests answered 503 */
	unsigned factor_seen;  /* the highest measured bytes per body byte */
} http_budget;

/* One request's charge: who, and how much it holds. */
typedef struct http_charge {
	unsigned char addr[16];
	uint64_t bytes;
	int open; /* counted in its client's requests */
} http_charge;

/* A budget for at most max_clients addresses at once. */
int http_budget_init(http_budget *b, const http_budget_cfg *cfg,
		     size_t max_clients);
void http_budget_free(http_budget *b);

/* Counts a request from addr and charges it body_bytes times the factor
 * (plus the body itself); 0, or -1 when that would take the process or
 * the client over its budget or count (nothing is then held). */
int http_budget_open(http_budget *b, const struct sockaddr *addr,
		     uint64_t body_bytes, http_charge *ch);

/* Charges body_bytes more (a chunked body growing); 0 or -1 as above,
 * the charge unchanged on -1. */
int http_budget_grow(http_budget *b, http_charge *ch, uint64_t body_bytes);

/* Notes what answering a body of len bytes held at its peak, so the
 * factor charged is never below what a request was seen to cost. */
void http_budget_settle(http_budget *b, uint64_t len, uint64_t peak);

/* Gives the request's charge and count back. */
void http_budget_close(http_budget *b, http_charge *ch);

/* The default budget: a quarter of physical memory. */
uint64_t http_budget_default(void);

#endif
