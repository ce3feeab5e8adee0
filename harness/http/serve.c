/*
 * serve.c - `domlab serve`: SOAP over HTTP/1.1 on libmicrohttpd.  One
 * epoll event loop holds every connection and reads the bodies; a body
 * all in, its connection is suspended and a worker (pool.h) answers it
 * through answer.c, then resumes it.  Limits: ambiguous framing (400,
 * the connection closed), the body's size (413), the memory budget and
 * a client's share of it (503 with Retry-After, before the body is
 * read: budget.h), the connections at once in all and per address,
 * and the time a connection may take to send its headers and then its
 * body (a watchdog thread shuts the socket of a connection over either;
 * libmicrohttpd's own timeout counts only idle time, so a byte every
 * second would pass it).  SIGINT or SIGTERM stops the server: queued
 * requests are answered, connections closed, threads joined, exit 0.
 * Not for: what a request is answered with (answer.c), load (load.c).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "harness/http/args.h"
#include "harness/http/budget.h"
#include "harness/http/pool.h"
#include "harness/refpeer/ref.h"
#include "util/alloc.h"
#include "wss/io.h"
#include "wss/read.h"

typedef struct serve_cfg {
	http_answer_cfg ans;
	const char *listen;
	unsigned port;
	unsigned max_body;
	unsigned header_ms, body_ms; /* the two timeouts */
	unsigned max_conns, per_ip_conns;
	unsigned workers;
	unsigned read_timeout_ms;
	http_budget_cfg budget;
	int stats;
	int tokens;
} serve_cfg;

/* Where a connection is: the watchdog bounds the first two. */
enum { PHASE_HEADERS, PHASE_BODY, PHASE_WORK };

/* How long, and for how many connections at once, a connection refused
 * before its body is read goes on being drained (pool.h). */
enum { LINGER_MS = 2000, LINGER_MAX = 256 };

/* The descriptors the server needs beside its connections. */
enum { SPARE_FDS = LINGER_MAX + 64 };

/* One open connection, from libmicrohttpd's open notice to its close
 * notice (which comes before the socket is closed, so the watchdog never
 * shuts a descriptor that another connection has reused). */
typedef struct conn {
	struct conn *prev, *next;
	int fd;
	int phase;
	int cut; /* the watchdog shut it */
	struct timespec since;
} conn;

/* Where a request is: its body being read, queued or being answered by
 * a worker (its connection suspended), or answered. */
enum { REQ_READING, REQ_QUEUED, REQ_DONE };

struct server;

/* One request on a connection: its body so far, its charge, its answer. */
typedef struct request {
	struct server *s;
	struct MHD_Connection *mc;
	conn *c;
	lab_buf body;
	http_charge charge;
	unsigned long long announced; /* Content-Length; 0 when chunked */
	const char *ctype;
	int state;
	int answered;    /* refused on its headers */
	int unread;      /* refused before its announced body: lingered */
	int too_large;   /* the body outgrew the limit: dropped */
	int over_budget; /* a chunked body outgrew the budget: dropped */
	int failed;      /* not even a Fault could be built */
	unsigned status;
	lab_buf out;
} request;

typedef struct server {
	serve_cfg cfg;
	pthread_mutex_t lock; /* conns, stopping */
	pthread_cond_t wake;
	conn *conns;
	int stopping;
	atomic_ulong requests, faults, stalls;
	http_tokens tokens; /* --tokens */
	http_budget budget;
	http_pool *pool;
	http_linger *linger;
} server;

static long ms_since(const struct timespec *t0, const struct timespec *t1)
{
	return (t1->tv_sec - t0->tv_sec) * 1000 +
	       (t1->tv_nsec - t0->tv_nsec) / 1000000;
}

static void set_phase(server *s, conn *c, int phase)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	c->phase = phase;
	clock_gettime(CLOCK_MONOTONIC, &c->since);
	pthread_mutex_unlock(&s->lock);
}

/* Shuts the socket of every connection over its phase's timeout; the
 * event loop then sees the end of the stream and closes it. */
static void *watchdog(void *arg)
{
	server *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		struct timespec now, until;
		conn *c;

		clock_gettime(CLOCK_MONOTONIC, &now);
		for (c = s->conns; c != NULL; c = c->next) {
			long limit = c->phase == PHASE_HEADERS ? s->cfg.header_ms
				     : c->phase == PHASE_BODY  ? s->cfg.body_ms
							       : 0;

			if (limit > 0 && !c->cut && ms_since(&c->since, &now) >= limit) {
				shutdown(c->fd, SHUT_RDWR);
				c->cut = 1;
			}
		}
		until = now;
		until.tv_nsec += 100 * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->wake, &s->lock, &until);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *mc,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	server *s = cls;
	conn *c = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
			mc, MHD_CONNECTION_INFO_CONNECTION_FD);

		c = lab_calloc(1, sizeof *c);
		if (c == NULL || ci == NULL) {
			/* Out of memory: the connection goes unwatched. */
			lab_free(c);
			*socket_context = NULL;
			return;
		}
		c->fd = ci->connect_fd;
		clock_gettime(CLOCK_MONOTONIC, &c->since);
		pthread_mutex_lock(&s->lock);
		c->next = s->conns;
		if (s->conns != NULL)
			s->conns->prev = c;
		s->conns = c;
		pthread_mutex_unlock(&s->lock);
		*socket_context = c;
		return;
	}
	if (c == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&s->lock);
	lab_free(c);
	*socket_context = NULL;
}

static conn *conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci != NULL ? ci->socket_context : NULL;
}

/* What an answer says about the connection besides its body. */
enum { RESP_CLOSE = 1, RESP_RETRY = 2 };

static enum MHD_Result respond(struct MHD_Connection *mc, unsigned status,
			       const char *type, const lab_buf *body,
			       unsigned flags)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		body->len, body->data, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	if (r == NULL)
		return MHD_NO;
	ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (ok == MHD_YES && (flags & RESP_CLOSE))
		ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION,
					     "close");
	if (ok == MHD_YES && (flags & RESP_RETRY))
		ok = MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER,
					     "1");
	if (ok == MHD_YES)
		ok = MHD_queue_response(mc, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result fault_as(server *s, struct MHD_Connection *mc,
				unsigned status, const char *code,
				const char *msg, unsigned flags)
{
	lab_buf out = LAB_BUF_INIT;
	enum MHD_Result ok = MHD_NO;

	atomic_fetch_add(&s->faults, 1);
	if (http_fault(code, msg, &out) == LAB_OK)
		ok = respond(mc, status, "text/xml; charset=utf-8", &out,
			     flags);
	lab_buf_free(&out);
	return ok;
}

static enum MHD_Result fault(server *s, struct MHD_Connection *mc,
			     unsigned status, const char *msg)
{
	return fault_as(s, mc, status, "Client", msg, 0);
}

static enum MHD_Result too_large(server *s, struct MHD_Connection *mc)
{
	char msg[80];

	snprintf(msg, sizeof msg,
		 "the request body is over the limit of %u bytes",
		 s->cfg.max_body);
	return fault(s, mc, 413, msg);
}

/* Over the memory budget or a client's share: nothing was allocated for
 * the request, the client may come back. */
static const char busy_msg[] = "the server is busy: retry later";

static enum MHD_Result busy(server *s, struct MHD_Connection *mc)
{
	return fault_as(s, mc, 503, "Server", busy_msg,
			RESP_CLOSE | RESP_RETRY);
}

/* The framing headers of a request, all of them (libmicrohttpd keeps
 * each line, and frames the body by the first it likes). */
typedef struct framing {
	unsigned lengths, encodings;
	int other_coding;
	int spaced_name; /* a field name holding white space */
} framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind,
				     const char *key, const char *value)
{
	framing *f = cls;

	(void)kind;
	/* libmicrohttpd keeps "Transfer-Encoding " (white space before the
	 * colon) as a name of its own, which a proxy in front may read as
	 * the framing header: RFC 9112 section 5.1 has it refused. */
	if (strpbrk(key, " \t") != NULL)
		f->spaced_name = 1;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
		f->lengths++;
	else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
		f->encodings++;
		if (value == NULL || strcasecmp(value, "chunked") != 0)
			f->other_coding = 1;
	}
	return MHD_YES;
}

/*
 * RFC 9112 section 6.1: a request whose body's end two parsers could
 * place differently is answered 400 and its connection closed, so that
 * no bytes behind the body are read as another request; so is one with
 * white space in a field name (section 5.1).  NULL when the framing is
 * one Content-Length, or one Transfer-Encoding: chunked, or neither.
 */
static const char *ambiguous(struct MHD_Connection *mc)
{
	framing f = {0, 0, 0, 0};

	MHD_get_connection_values(mc, MHD_HEADER_KIND, count_framing, &f);
	if (f.spaced_name)
		return "a header whose name holds white space is refused";
	if (f.lengths > 0 && f.encodings > 0)
		return "a request with both Content-Length and "
		       "Transfer-Encoding is refused";
	if (f.lengths > 1)
		return "a request with more than one Content-Length is refused";
	if (f.encodings > 1 || f.other_coding)
		return "a Transfer-Encoding other than one chunked is refused";
	return NULL;
}

/* The resident set now, from /proc/self/statm (0 when unreadable). */
static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, resident = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* The budget's lines of GET /stats. */
static int budget_stats(server *s, lab_buf *out)
{
	http_budget *b = &s->budget;
	int rc;

	pthread_mutex_lock(&b->lock);
	rc = lab_buf_printf(
		out,
		"budget_bytes %llu\nheld_bytes %llu\nheld_peak_bytes %llu\n"
		"busy %lu\nfactor %u\nfactor_seen %u\nworkers %u\nrss_kb %ld\n",
		(unsigned long long)b->cfg.max_bytes,
		(unsigned long long)b->held, (unsigned long long)b->peak,
		b->refused, b->cfg.factor, b->factor_seen, s->cfg.workers,
		rss_kb());
	pthread_mutex_unlock(&b->lock);
	return rc;
}

/* GET /stats: what `domlab load` reads before and after each level. */
static enum MHD_Result stats(server *s, struct MHD_Connection *mc)
{
	lab_buf out = LAB_BUF_INIT;
	struct rusage ru;
	enum MHD_Result ok = MHD_NO;
	unsigned long open = 0;
	const conn *c;

	pthread_mutex_lock(&s->lock);
	for (c = s->conns; c != NULL; c = c->next)
		open++;
	pthread_mutex_unlock(&s->lock);
	getrusage(RUSAGE_SELF, &ru);
	if (lab_buf_printf(
		    &out,
		    "variant %s\nstack %s\nread %s\ntokens_store %s\nio %s\n"
		    "requests %lu\nfaults %lu\nstalls %lu\ntokens %zu\n"
		    "connections %lu\ncpu_us %lld\nmaxrss_kb %ld\n",
		    DOMLAB_VARIANT,
		    s->cfg.ans.stack == HTTP_STACK_REF ? "ref" : "domlab",
		    wss__read_choice,
		    s->cfg.tokens ? wss__tokens_choice : "off", wss__io_choice,
		    atomic_load(&s->requests),
		    atomic_load(&s->faults), atomic_load(&s->stalls),
		    s->cfg.tokens ? http_tokens_count(&s->tokens) : (size_t)0,
		    open,
		    (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
			    ru.ru_utime.tv_usec + ru.ru_stime.tv_usec,
		    ru.ru_maxrss) == LAB_OK &&
	    budget_stats(s, &out) == LAB_OK)
		ok = respond(mc, 200, "text/plain", &out, 0);
	lab_buf_free(&out);
	return ok;
}

/* A refusal on the headers: the body is never read. */
static enum MHD_Result refuse_unread(request *r, enum MHD_Result ok)
{
	r->answered = 1;
	r->unread = 1;
	return ok;
}

/* The first call, headers in: ambiguous framing, anything but a POST
 * (or GET /stats), a body announced over the limit and a request the
 * budget cannot hold are refused here, before any of the body is read. */
static enum MHD_Result begin(server *s, struct MHD_Connection *mc,
			     const char *url, const char *method,
			     request *r)
{
	const char *len = MHD_lookup_connection_value(
		mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const char *why = ambiguous(mc);

	set_phase(s, conn_of(mc), PHASE_BODY);
	if (why != NULL)
		return refuse_unread(r, fault_as(s, mc, 400, "Client", why,
						 RESP_CLOSE));
	if (s->cfg.stats && strcmp(method, "GET") == 0 &&
	    strcmp(url, "/stats") == 0) {
		r->answered = 1;
		return stats(s, mc);
	}
	if (strcmp(method, "POST") != 0) {
		r->answered = 1;
		return fault(s, mc, 405, "only POST carries a SOAP request");
	}
	r->announced = len != NULL ? strtoull(len, NULL, 10) : 0;
	if (r->announced > s->cfg.max_body)
		return refuse_unread(r, too_large(s, mc));
	if (http_budget_open(&s->budget, ci != NULL ? ci->client_addr : NULL,
			     r->announced, &r->charge) != 0)
		return refuse_unread(r, busy(s, mc));
	return MHD_YES;
}

/* A piece of the body: kept, or dropped once the body is over the limit
 * or (chunked, its size unknown at the headers) over the budget. */
static int take_piece(server *s, request *r, const char *p, size_t n)
{
	if (!r->too_large && !r->over_budget &&
	    r->body.len + n > s->cfg.max_body) {
		r->too_large = 1;
		lab_buf_free(&r->body);
	}
	if (!r->too_large && !r->over_budget && r->announced == 0 &&
	    http_budget_grow(&s->budget, &r->charge, n) != 0) {
		r->over_budget = 1;
		lab_buf_free(&r->body);
	}
	if (r->too_large || r->over_budget)
		return LAB_OK;
	if (r->body.cap == 0 && r->announced > 0 &&
	    lab_buf_reserve_exact(&r->body, (size_t)r->announced) != LAB_OK)
		return LAB_ENOMEM;
	return lab_buf_put(&r->body, p, n);
}

/* A worker's job, the connection suspended: the read axis's wait, then
 * the answer; what the DOM held at its peak is settled with the budget. */
static void answer_job(void *arg)
{
	request *r = arg;
	server *s = r->s;
	wss_read_end how = WSS_READ_FRAMED;
	size_t len = r->body.len;
	lab_err err;

	lab_mem_reset();
	if (r->c != NULL &&
	    wss_read_body_end(r->c->fd, s->cfg.read_timeout_ms, &how, &err) == LAB_OK &&
	    how == WSS_READ_TIMEOUT)
		atomic_fetch_add(&s->stalls, 1);
	if (http_answer(&s->cfg.ans, r->body.data != NULL ? r->body.data : "",
			len, r->ctype, &r->status, &r->out) == LAB_OK) {
		atomic_fetch_add(&s->requests, 1);
		if (r->status != 200)
			atomic_fetch_add(&s->faults, 1);
	} else {
		r->failed = 1;
	}
	lab_buf_free(&r->body);
	http_budget_settle(&s->budget, len,
			   (uint64_t)lab_mem_get().peak + len);
	r->state = REQ_DONE;
	MHD_resume_connection(r->mc);
}

/* The body all in: the connection is suspended and the request queued
 * for a worker; the event loop goes on with the other connections. */
static enum MHD_Result dispatch(server *s, struct MHD_Connection *mc,
				request *r)
{
	r->s = s;
	r->mc = mc;
	r->c = conn_of(mc);
	r->ctype = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
					       MHD_HTTP_HEADER_CONTENT_TYPE);
	set_phase(s, r->c, PHASE_WORK);
	r->state = REQ_QUEUED;
	MHD_suspend_connection(mc);
	if (http_pool_push(s->pool, r) == 0)
		return MHD_YES;
	/* Stopping, or out of memory: answered 503 on resuming. */
	r->status = 503;
	r->state = REQ_DONE;
	if (http_fault("Server", busy_msg, &r->out) != LAB_OK)
		r->failed = 1;
	MHD_resume_connection(mc);
	return MHD_YES;
}

/*
 * libmicrohttpd calls this once with the headers, then with each piece
 * of the body, then once more with none; that last call hands the
 * request to a worker, and the call after the worker resumes the
 * connection sends its answer.  A body that outgrows the limit or (with
 * no length announced) the budget is dropped piece by piece from there
 * on, and refused with 413 or 503 on the last call; the body timeout
 * bounds how long that may take.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	server *s = cls;
	request *r = *req_cls;

	(void)version;
	if (r == NULL) {
		r = lab_calloc(1, sizeof *r);
		if (r == NULL)
			return MHD_NO;
		*req_cls = r;
		return begin(s, mc, url, method, r);
	}
	if (r->answered || r->state == REQ_QUEUED) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->state == REQ_DONE)
		return r->failed ? MHD_NO
				 : respond(mc, r->status,
					   "text/xml; charset=utf-8", &r->out,
					   r->status == 503 ? RESP_CLOSE | RESP_RETRY : 0);
	if (*upload_size == 0)
		return r->too_large     ? too_large(s, mc)
		       : r->over_budget ? busy(s, mc)
					: dispatch(s, mc, r);
	if (take_piece(s, r, upload, *upload_size) != LAB_OK)
		return MHD_NO;
	*upload_size = 0;
	return MHD_YES;
}

/*
 * A request refused on its headers leaves its body unread, and
 * libmicrohttpd then closes the connection.  Closing a socket with
 * unread bytes makes TCP reset the connection, and a client still
 * sending its body (as curl does for a body too small to wait for
 * "100 Continue") may then lose the answer before reading it.  So the
 * lingerer takes the socket over once the answer is out (pool.h).
 */
static void on_completed(void *cls, struct MHD_Connection *mc,
			 void **req_cls, enum MHD_RequestTerminationCode code)
{
	server *s = cls;
	request *r = *req_cls;
	conn *c = conn_of(mc);

	if (r != NULL && r->unread && c != NULL &&
	    code == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		http_linger_add(s->linger, c->fd);
	/* Answered (or given up): the next request's headers are due. */
	set_phase(s, c, PHASE_HEADERS);
	if (r != NULL) {
		http_budget_close(&s->budget, &r->charge);
		lab_buf_free(&r->body);
		lab_buf_free(&r->out);
		lab_free(r);
		*req_cls = NULL;
	}
}

/* The options that take a count or a size (the rest are in set_opt). */
static int set_number(serve_cfg *c, const char *name, const char *v,
		      lab_err *err)
{
	size_t bytes = 0;
	unsigned secs = 0;
	int rc;

	if (strcmp(name, "--max-memory") == 0 ||
	    strcmp(name, "--max-client-memory") == 0) {
		rc = lab_parse_size(name, v, &bytes, err);
		if (name[6] == 'm')
			c->budget.max_bytes = bytes;
		else
			c->budget.client_bytes = bytes;
		return rc;
	}
	if (strcmp(name, "--max-body") == 0)
		return http_parse_uint(name, v, 1u << 30, &c->max_body, err);
	if (strcmp(name, "--max-connections") == 0)
		return http_parse_uint(name, v, 65536, &c->max_conns, err);
	if (strcmp(name, "--max-connections-per-ip") == 0)
		return http_parse_uint(name, v, 65536, &c->per_ip_conns, err);
	if (strcmp(name, "--max-client-requests") == 0)
		return http_parse_uint(name, v, 65536,
				       &c->budget.client_requests, err);
	if (strcmp(name, "--workers") == 0)
		return http_parse_uint(name, v, 1024, &c->workers, err);
	if (strcmp(name, "--memory-factor") == 0)
		return http_parse_uint(name, v, 10000, &c->budget.factor, err);
	if (strcmp(name, "--read-timeout") == 0)
		return http_parse_uint(name, v, 600000, &c->read_timeout_ms, err);
	/* The two timeouts, in seconds. */
	rc = http_parse_uint(name, v, 3600, &secs, err);
	if (strcmp(name, "--header-timeout") == 0)
		c->header_ms = secs * 1000;
	else
		c->body_ms = secs * 1000;
	return rc;
}

static int set_opt(void *ctx, const char *name, const char *v, lab_err *err)
{
	serve_cfg *c = ctx;
	int rc = LAB_OK;

	if (strcmp(name, "--key") == 0)
		c->ans.paths.key = v;
	else if (strcmp(name, "--cert") == 0)
		c->ans.paths.cert = v;
	else if (strcmp(name, "--trust") == 0)
		c->ans.paths.trust = v;
	else if (strcmp(name, "--peer-cert") == 0)
		c->ans.paths.peer_cert = v;
	else if (strcmp(name, "--listen") == 0)
		c->listen = v;
	else if (strcmp(name, "--port") == 0)
		rc = http_parse_uint(name, v, 65535, &c->port, err);
	else if (strcmp(name, "--stack") == 0) {
		if (strcmp(v, "domlab") != 0 && strcmp(v, "ref") != 0)
			rc = lab_fail(err, LAB_EUSAGE,
				      "--stack is domlab or ref");
		c->ans.stack = strcmp(v, "ref") == 0 ? HTTP_STACK_REF
						     : HTTP_STACK_DOMLAB;
	} else if (strcmp(name, "--stats") == 0)
		c->stats = 1;
	else if (strcmp(name, "--tokens") == 0)
		c->tokens = 1;
	else
		rc = set_number(c, name, v, err);
	return rc;
}

/*
 * Bytes a request holds at its peak per byte of its body, this preset's
 * parser and tree included: measured as the server's peak RSS over one
 * 15 MB signed request (docs/http.md), with a margin.  A variant that is
 * not a preset is charged the most.  The server raises it when it sees
 * a request cost more (http_budget_settle).
 */
static unsigned default_factor(void)
{
	static const struct {
		const char *preset;
		unsigned factor;
	} table[] = {{"best", 10}, {"xerces", 16}, {"doom2010", 32}};
	size_t i;

	for (i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(dom_variant_name(), table[i].preset) == 0)
			return table[i].factor;
	return 32;
}

static void serve_defaults(serve_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->listen = "127.0.0.1";
	c->port = 8080;
	c->max_body = 16u << 20;
	c->header_ms = 10000;
	c->body_ms = 30000;
	c->max_conns = 4096;
	c->per_ip_conns = 256;
	c->workers = 16;
	c->read_timeout_ms = 300;
	c->budget.max_bytes = http_budget_default();
	c->budget.client_requests = 64;
	c->budget.factor = default_factor();
}

static int serve_args(int argc, char **argv, serve_cfg *c, lab_err *err)
{
	lab_io io;
	int rc;

	serve_defaults(c);
	rc = http_args(argc, argv, lab_serve_options, &io, set_opt, c, err);
	if (rc == LAB_OK && (io.in != NULL || io.out != NULL))
		rc = lab_fail(err, LAB_EUSAGE,
			      "serve takes no input file and no -o");
	if (rc == LAB_OK &&
	    (c->max_body == 0 || c->max_conns == 0 || c->workers == 0 ||
	     c->budget.max_bytes == 0 || c->budget.client_requests == 0 ||
	     c->budget.factor == 0))
		rc = lab_fail(err, LAB_EUSAGE,
			      "--max-body, --max-connections, --workers, "
			      "--max-memory, --max-client-requests and "
			      "--memory-factor must be over 0");
	/* A client's share: half the budget unless said. */
	if (c->budget.client_bytes == 0 ||
	    c->budget.client_bytes > c->budget.max_bytes)
		c->budget.client_bytes = c->budget.client_bytes == 0
						 ? c->budget.max_bytes / 2
						 : c->budget.max_bytes;
	if (c->ans.paths.peer_cert == NULL)
		c->ans.paths.peer_cert = c->ans.paths.trust;
	c->ans.lim = io.lim;
	return rc;
}

/* The address to bind: IPv4 or IPv6, numeric only. */
static int bind_addr(const serve_cfg *c, struct sockaddr_storage *ss,
		     unsigned *flags, lab_err *err)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof *ss);
	if (inet_pton(AF_INET, c->listen, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)c->port);
		return LAB_OK;
	}
	if (inet_pton(AF_INET6, c->listen, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)c->port);
		*flags |= MHD_USE_IPv6;
		return LAB_OK;
	}
	return lab_fail(err, LAB_EUSAGE, "--listen needs a numeric address, not '%s'",
			c->listen);
}

/* Prints the address the daemon's socket is bound to. */
static int announce(struct MHD_Daemon *d, lab_err *err)
{
	const union MHD_DaemonInfo *di =
		MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	char host[INET6_ADDRSTRLEN];
	unsigned port;

	if (di == NULL ||
	    getsockname(di->listen_fd, (struct sockaddr *)&ss, &len) != 0)
		return lab_fail(err, LAB_EIO, "cannot read the bound address");
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
		port = ntohs(v6->sin6_port);
		printf("listening on [%s]:%u\n", host, port);
	} else {
		const struct sockaddr_in *v4 = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
		port = ntohs(v4->sin_port);
		printf("listening on %s:%u\n", host, port);
	}
	return fflush(stdout) == 0 ? LAB_OK
				   : lab_fail(err, LAB_EIO,
					      "cannot write standard output");
}

/* Checks the key files once before listening, so a typo is a usage
 * error at start and not a Fault on every request. */
static int check_keys(const http_answer_cfg *a, lab_err *err)
{
	void *handle = NULL;
	wss_keyset ks;
	int rc = wss_keys_acquire(&a->paths, &ks, &handle, err);

	wss_keys_release(handle);
	return rc;
}

/* Raises the descriptor limit to what max_conns connections and the
 * server's own need, within the hard limit. */
static int raise_fds(unsigned max_conns, lab_err *err)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)max_conns + SPARE_FDS;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return lab_fail(err, LAB_EIO, "cannot read the descriptor limit");
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
			return lab_fail(err, LAB_EUSAGE,
					"--max-connections %u needs %llu "
					"descriptors; the hard limit is %llu",
					max_conns, (unsigned long long)need,
					(unsigned long long)rl.rlim_max);
		rl.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			return lab_fail(err, LAB_EIO,
					"cannot raise the descriptor limit");
	}
	return LAB_OK;
}

static struct MHD_Daemon *start_daemon(server *s, unsigned flags,
				       const struct sockaddr_storage *ss)
{
	return MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, ss,
		MHD_OPTION_CONNECTION_LIMIT, s->cfg.max_conns,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->cfg.per_ip_conns,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
		MHD_OPTION_END);
}

/* Stops the watchdog thread. */
static void stop_watchdog(server *s, pthread_t dog)
{
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(dog, NULL);
}

/*
 * Runs the daemon until SIGINT or SIGTERM; those are blocked in every
 * thread (the mask is inherited) and taken here by sigwait.  One event
 * loop (epoll) holds every connection, so an idle one costs a
 * descriptor and its buffers, not a thread; the workers answer.  On the
 * way out the workers finish what is queued (a request finishing its
 * body after that is answered 503), then the daemon closes everything.
 */
static int run(server *s, lab_err *err)
{
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	struct sockaddr_storage ss;
	struct MHD_Daemon *d = NULL;
	pthread_t dog;
	sigset_t sigs;
	int sig, rc = bind_addr(&s->cfg, &ss, &flags, err);

	if (rc == LAB_OK)
		rc = raise_fds(s->cfg.max_conns, err);
	if (rc != LAB_OK)
		return rc;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	s->pool = http_pool_start(s->cfg.workers, answer_job);
	s->linger = http_linger_start(HTTP_LINGER_MAX, LINGER_MS);
	if (s->pool == NULL || s->linger == NULL ||
	    pthread_create(&dog, NULL, watchdog, s) != 0) {
		rc = lab_fail(err, LAB_ENOMEM, "cannot start a thread");
		goto out;
	}
	d = start_daemon(s, flags, &ss);
	if (d == NULL)
		rc = lab_fail(err, LAB_EIO, "cannot listen on %s port %u",
			      s->cfg.listen, s->cfg.port);
	if (rc == LAB_OK)
		rc = announce(d, err);
	if (rc == LAB_OK)
		sigwait(&sigs, &sig);
	http_pool_stop(s->pool);
	if (d != NULL)
		MHD_stop_daemon(d);
	stop_watchdog(s, dog);
out:
	if (s->pool != NULL) {
		http_pool_stop(s->pool);
		http_pool_free(s->pool);
	}
	if (s->linger != NULL)
		http_linger_stop(s->linger);
	return rc;
}

int lab_cmd_serve(int argc, char **argv, lab_err *err)
{
	pthread_condattr_t ca;
	server s;
	int rc;

	memset(&s, 0, sizeof s);
	rc = serve_args(argc, argv, &s.cfg, err);
	if (rc == LAB_OK)
		rc = check_keys(&s.cfg.ans, err);
	if (rc == LAB_OK &&
	    http_budget_init(&s.budget, &s.cfg.budget, s.cfg.max_conns) != 0)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK && s.cfg.tokens) {
		rc = wss_tokens_new(&s.tokens.store, err);
		if (rc == LAB_OK) {
			pthread_mutex_init(&s.tokens.lock, NULL);
			s.cfg.ans.tokens = &s.tokens;
		}
	}
	if (rc != LAB_OK) {
		http_budget_free(&s.budget);
		return rc;
	}
	pthread_mutex_init(&s.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s.wake, &ca);
	pthread_condattr_destroy(&ca);
	rc = run(&s, err);
	pthread_cond_destroy(&s.wake);
	pthread_mutex_destroy(&s.lock);
	if (s.cfg.tokens) {
		pthread_mutex_destroy(&s.tokens.lock);
		wss_tokens_free(s.tokens.store);
	}
	http_budget_free(&s.budget);
	wss_keys_cache_clear();
	if (s.cfg.ans.stack == HTTP_STACK_REF)
		lab_ref_cleanup();
	return rc;
}
