/*
 * serve.c - `domlab serve`: SOAP over HTTP/1.1 on libmicrohttpd, one
 * thread per connection (as Axis 1 ran on Tomcat), connections kept
 * alive.  A POST's body is read up to --max-body, the read axis decides
 * when it has ended (wss/read.h), and answer.c turns it into the
 * response.  Limits: the body's size (413), the connections at once
 * (more are not accepted until one closes), the time a connection may
 * take to send its headers and then its body (a watchdog thread shuts
 * the socket of a connection over either; libmicrohttpd's own timeout
 * counts only idle time, so a byte every second would pass it).
 * SIGINT or SIGTERM stops the server: connections are closed, threads
 * joined, and it exits 0.
 * Not for: what a request is answered with (answer.c), load (load.c).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "harness/http/args.h"
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
	unsigned max_conns;
	unsigned read_timeout_ms;
	int stats;
	int tokens;
} serve_cfg;

/* Where a connection is: the watchdog bounds the first two. */
enum { PHASE_HEADERS, PHASE_BODY, PHASE_WORK };

/* How long a connection refused on its headers goes on reading what the
 * client still sends (linger()). */
enum { LINGER_MS = 2000 };

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

/* One request on a connection: its body so far. */
typedef struct request {
	lab_buf body;
	int answered;  /* refused on its headers */
	int unread;    /* refused before its announced body: linger() */
	int too_large; /* the body outgrew the limit: dropped */
} request;

typedef struct server {
	serve_cfg cfg;
	pthread_mutex_t lock; /* conns, stopping */
	pthread_cond_t wake;
	conn *conns;
	int stopping;
	atomic_ulong requests, faults, stalls;
	http_tokens tokens; /* --tokens */
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

/* Shuts the socket of every connection over its phase's timeout; its
 * thread then sees the end of the stream and libmicrohttpd closes it. */
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

		c = dom_calloc(1, sizeof *c);
		if (c == NULL || ci == NULL) {
			/* Out of memory: the connection goes unwatched. */
			dom_free(c);
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
	dom_free(c);
	*socket_context = NULL;
}

static conn *conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci != NULL ? ci->socket_context : NULL;
}

static enum MHD_Result respond(struct MHD_Connection *mc, unsigned status,
			       const char *type, const lab_buf *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		body->len, body->data, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	if (r == NULL)
		return MHD_NO;
	ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (ok == MHD_YES)
		ok = MHD_queue_response(mc, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result fault(server *s, struct MHD_Connection *mc,
			     unsigned status, const char *msg)
{
	lab_buf out = LAB_BUF_INIT;
	enum MHD_Result ok = MHD_NO;

	atomic_fetch_add(&s->faults, 1);
	if (http_fault("Client", msg, &out) == LAB_OK)
		ok = respond(mc, status, "text/xml; charset=utf-8", &out);
	lab_buf_free(&out);
	return ok;
}

static enum MHD_Result too_large(server *s, struct MHD_Connection *mc)
{
	char msg[80];

	snprintf(msg, sizeof msg,
		 "the request body is over the limit of %u bytes",
		 s->cfg.max_body);
	return fault(s, mc, 413, msg);
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
		    ru.ru_maxrss) == LAB_OK)
		ok = respond(mc, 200, "text/plain", &out);
	lab_buf_free(&out);
	return ok;
}

/* The first call, headers in: anything but a POST (or GET /stats) is
 * refused here, and so is a body announced over the limit. */
static enum MHD_Result begin(server *s, struct MHD_Connection *mc,
			     const char *url, const char *method,
			     request *r)
{
	const char *len = MHD_lookup_connection_value(
		mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	set_phase(s, conn_of(mc), PHASE_BODY);
	if (s->cfg.stats && strcmp(method, "GET") == 0 &&
	    strcmp(url, "/stats") == 0) {
		r->answered = 1;
		return stats(s, mc);
	}
	if (strcmp(method, "POST") != 0) {
		r->answered = 1;
		return fault(s, mc, 405, "only POST carries a SOAP request");
	}
	if (len != NULL && strtoull(len, NULL, 10) > s->cfg.max_body) {
		r->answered = 1;
		r->unread = 1;
		return too_large(s, mc);
	}
	return MHD_YES;
}

/* The last call, the body all in: the read axis's wait, then the answer. */
static enum MHD_Result finish(server *s, struct MHD_Connection *mc,
			      request *r)
{
	conn *c = conn_of(mc);
	lab_buf out = LAB_BUF_INIT;
	wss_read_end how = WSS_READ_FRAMED;
	unsigned status = 500;
	enum MHD_Result ok = MHD_NO;
	lab_err err;

	set_phase(s, c, PHASE_WORK);
	if (c != NULL &&
	    wss_read_body_end(c->fd, s->cfg.read_timeout_ms, &how, &err) == LAB_OK &&
	    how == WSS_READ_TIMEOUT)
		atomic_fetch_add(&s->stalls, 1);
	if (http_answer(&s->cfg.ans, r->body.data != NULL ? r->body.data : "",
			r->body.len,
			MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_CONTENT_TYPE),
			&status, &out) == LAB_OK) {
		atomic_fetch_add(&s->requests, 1);
		if (status != 200)
			atomic_fetch_add(&s->faults, 1);
		ok = respond(mc, status, "text/xml; charset=utf-8", &out);
	}
	lab_buf_free(&out);
	return ok;
}

/*
 * libmicrohttpd calls this once with the headers, then with each piece
 * of the body, then once more with none.  A body that outgrows the limit
 * (chunked: no length announced) is dropped piece by piece from there
 * on, and refused with 413 on the last call; the body timeout bounds
 * how long that may take.
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
		r = dom_calloc(1, sizeof *r);
		if (r == NULL)
			return MHD_NO;
		*req_cls = r;
		return begin(s, mc, url, method, r);
	}
	if (r->answered) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size == 0)
		return r->too_large ? too_large(s, mc) : finish(s, mc, r);
	if (!r->too_large && r->body.len + *upload_size > s->cfg.max_body) {
		r->too_large = 1;
		lab_buf_free(&r->body);
	}
	if (!r->too_large &&
	    lab_buf_put(&r->body, upload, *upload_size) != LAB_OK)
		return MHD_NO;
	*upload_size = 0;
	return MHD_YES;
}

/*
 * A request refused on its headers leaves its body unread, and
 * libmicrohttpd then closes the connection.  Closing a socket with
 * unread bytes makes TCP reset the connection, and a client still
 * sending its body (as curl does for a body too small to wait for
 * "100 Continue") may then lose the answer before reading it.  So, the
 * answer sent, the connection is shut for writing and read to its end
 * or for LINGER_MS, what arrives dropped: the lingering close of RFC 9112
 * section 9.6.  Bounded by time, not by what the client announced.
 */
static void linger(int fd)
{
	struct timespec t0, now;
	char sink[16384];

	if (shutdown(fd, SHUT_WR) != 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = LINGER_MS - ms_since(&t0, &now);
		if (left <= 0 || poll(&p, 1, (int)left) <= 0 ||
		    recv(fd, sink, sizeof sink, 0) <= 0)
			return;
	}
}

static void on_completed(void *cls, struct MHD_Connection *mc,
			 void **req_cls, enum MHD_RequestTerminationCode code)
{
	request *r = *req_cls;
	conn *c = conn_of(mc);

	if (r != NULL && r->unread && c != NULL &&
	    code == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		linger(c->fd);
	/* Answered (or given up): the next request's headers are due. */
	set_phase(cls, c, PHASE_HEADERS);
	if (r != NULL) {
		lab_buf_free(&r->body);
		dom_free(r);
		*req_cls = NULL;
	}
}

static int set_opt(void *ctx, const char *name, const char *v, lab_err *err)
{
	serve_cfg *c = ctx;
	unsigned secs;
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
	} else if (strcmp(name, "--max-body") == 0)
		rc = http_parse_uint(name, v, 1u << 30, &c->max_body, err);
	else if (strcmp(name, "--max-connections") == 0)
		rc = http_parse_uint(name, v, 10000, &c->max_conns, err);
	else if (strcmp(name, "--read-timeout") == 0)
		rc = http_parse_uint(name, v, 600000, &c->read_timeout_ms, err);
	else if (strcmp(name, "--stats") == 0)
		c->stats = 1;
	else if (strcmp(name, "--tokens") == 0)
		c->tokens = 1;
	else {
		/* The two timeouts, in seconds. */
		rc = http_parse_uint(name, v, 3600, &secs, err);
		if (strcmp(name, "--header-timeout") == 0)
			c->header_ms = secs * 1000;
		else
			c->body_ms = secs * 1000;
	}
	return rc;
}

static int serve_args(int argc, char **argv, serve_cfg *c, lab_err *err)
{
	lab_io io;
	int rc;

	memset(c, 0, sizeof *c);
	c->listen = "127.0.0.1";
	c->port = 8080;
	c->max_body = 16u << 20;
	c->header_ms = 10000;
	c->body_ms = 30000;
	c->max_conns = 64;
	c->read_timeout_ms = 300;
	rc = http_args(argc, argv, lab_serve_options, &io, set_opt, c, err);
	if (rc == LAB_OK && (io.in != NULL || io.out != NULL))
		rc = lab_fail(err, LAB_EUSAGE,
			      "serve takes no input file and no -o");
	if (rc == LAB_OK && (c->max_body == 0 || c->max_conns == 0))
		rc = lab_fail(err, LAB_EUSAGE,
			      "--max-body and --max-connections must be over 0");
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

/* Runs the daemon until SIGINT or SIGTERM; those are blocked in every
 * thread (the mask is inherited) and taken here by sigwait. */
static int run(server *s, lab_err *err)
{
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
			 MHD_USE_ERROR_LOG;
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	pthread_t dog;
	sigset_t sigs;
	int sig, rc = bind_addr(&s->cfg, &ss, &flags, err);

	if (rc != LAB_OK)
		return rc;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	if (pthread_create(&dog, NULL, watchdog, s) != 0)
		return lab_fail(err, LAB_ENOMEM, "cannot start a thread");
	d = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, &ss,
		MHD_OPTION_CONNECTION_LIMIT, s->cfg.max_conns,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
		MHD_OPTION_END);
	if (d == NULL)
		rc = lab_fail(err, LAB_EIO, "cannot listen on %s port %u",
			      s->cfg.listen, s->cfg.port);
	if (rc == LAB_OK)
		rc = announce(d, err);
	if (rc == LAB_OK)
		sigwait(&sigs, &sig);
	if (d != NULL)
		MHD_stop_daemon(d);
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(dog, NULL);
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
	if (rc != LAB_OK)
		return rc;
	if (s.cfg.tokens) {
		rc = wss_tokens_new(&s.tokens.store, err);
		if (rc != LAB_OK)
			return rc;
		pthread_mutex_init(&s.tokens.lock, NULL);
		s.cfg.ans.tokens = &s.tokens;
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
	wss_keys_cache_clear();
	if (s.cfg.ans.stack == HTTP_STACK_REF)
		lab_ref_cleanup();
	return rc;
}
