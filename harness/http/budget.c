/*
 * budget.c - the server's memory budget and per-client limits
 * (budget.h): a charge is taken under one lock before anything is
 * allocated, and given back when the request is done.  The clients with
 * requests in flight are a small array searched linearly: there are at
 * most as many as connections, and a search is a few microseconds even
 * at thousands.
 * Not for: measuring memory (the worker measures a request's peak
 * through util/alloc.h and hands it to http_budget_settle).
 */
#include "harness/http/budget.h"

#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

/* What a request holds whatever its body: its connection's buffers, the
 * key material and the response's envelope. */
enum { FIXED_BYTES = 64 * 1024 };

/* Bodies under this say more about fixed costs than about expansion. */
enum { SETTLE_MIN_LEN = 64 * 1024 };

uint64_t http_budget_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return (uint64_t)1 << 30;
	return (uint64_t)pages * (uint64_t)size / 4;
}

int http_budget_init(http_budget *b, const http_budget_cfg *cfg,
		     size_t max_clients)
{
	memset(b, 0, sizeof *b);
	b->cfg = *cfg;
	b->cap = max_clients;
	b->clients = lab_calloc(max_clients, sizeof *b->clients);
	if (b->clients == NULL)
		return -1;
	pthread_mutex_init(&b->lock, NULL);
	return 0;
}

void http_budget_free(http_budget *b)
{
	if (b->clients != NULL)
		pthread_mutex_destroy(&b->lock);
	lab_free(b->clients);
	b->clients = NULL;
}

static void addr_key(const struct sockaddr *sa, unsigned char key[16])
{
	memset(key, 0, 16);
	if (sa != NULL && sa->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
	} else if (sa != NULL && sa->sa_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	}
}

/* The client's entry, or NULL (under the lock). */
static http_client *find(http_budget *b, const unsigned char key[16])
{
	size_t i;

	for (i = 0; i < b->nclients; i++)
		if (memcmp(b->clients[i].addr, key, 16) == 0)
			return &b->clients[i];
	return NULL;
}

static uint64_t cost(const http_budget *b, uint64_t body_bytes)
{
	unsigned f = b->factor_seen > b->cfg.factor ? b->factor_seen
						      : b->cfg.factor;

	return body_bytes * f;
}

/* 1 when the process and the client can hold more bytes (under the lock). */
static int fits(const http_budget *b, const http_client *c, uint64_t more)
{
	return b->held + more <= b->cfg.max_bytes &&
	       c->bytes + more <= b->cfg.client_bytes;
}

static void take(http_budget *b, http_client *c, uint64_t more)
{
	b->held += more;
	c->bytes += more;
	if (b->held > b->peak)
		b->peak = b->held;
}

int http_budget_open(http_budget *b, const struct sockaddr *addr,
		     uint64_t body_bytes, http_charge *ch)
{
	uint64_t more = FIXED_BYTES + cost(b, body_bytes);
	http_client *c;
	int rc = -1;

	memset(ch, 0, sizeof *ch);
	addr_key(addr, ch->addr);
	pthread_mutex_lock(&b->lock);
	c = find(b, ch->addr);
	if (c == NULL && b->nclients < b->cap) {
		c = &b->clients[b->nclients++];
		memset(c, 0, sizeof *c);
		memcpy(c->addr, ch->addr, 16);
	}
	if (c != NULL && c->requests < b->cfg.client_requests &&
	    fits(b, c, more)) {
		c->requests++;
		take(b, c, more);
		ch->bytes = more;
		ch->open = 1;
		rc = 0;
	} else {
		b->refused++;
		if (c != NULL && c->requests == 0)
			*c = b->clients[--b->nclients];
	}
	pthread_mutex_unlock(&b->lock);
	return rc;
}

int http_budget_grow(http_budget *b, http_charge *ch, uint64_t body_bytes)
{
	http_client *c;
	uint64_t more;
	int rc = -1;

	pthread_mutex_lock(&b->lock);
	more = cost(b, body_bytes);
	c = find(b, ch->addr);
	if (c != NULL && fits(b, c, more)) {
		take(b, c, more);
		ch->bytes += more;
		rc = 0;
	} else {
		b->refused++;
	}
	pthread_mutex_unlock(&b->lock);
	return rc;
}

void http_budget_settle(http_budget *b, uint64_t len, uint64_t peak)
{
	uint64_t f;

	if (len < SETTLE_MIN_LEN)
		return;
	f = (peak + len - 1) / len;
	pthread_mutex_lock(&b->lock);
	if (f > b->factor_seen && f <= 10000)
		b->factor_seen = (unsigned)f;
	pthread_mutex_unlock(&b->lock);
}

void http_budget_close(http_budget *b, http_charge *ch)
{
	http_client *c;

	if (!ch->open)
		return;
	pthread_mutex_lock(&b->lock);
	c = find(b, ch->addr);
	b->held -= ch->bytes;
	if (c != NULL) {
		c->bytes -= ch->bytes;
		if (--c->requests == 0)
			*c = b->clients[--b->nclients];
	}
	pthread_mutex_unlock(&b->lock);
	ch->open = 0;
	ch->bytes = 0;
}
