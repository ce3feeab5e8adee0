/*
 * pool.h - the two kinds of background thread `domlab serve` runs
 * beside libmicrohttpd's event loop: workers that answer requests (so
 * the loop, which holds every connection, never waits on one), and a
 * lingerer that drains the sockets of connections closed before their
 * body was read.
 * Not for: what a job does (serve.c).
 */
#ifndef LAB_HTTP_POOL_H
#define LAB_HTTP_POOL_H

typedef struct http_pool http_pool;
typedef void (*http_job_fn)(void *job);

/* Starts n workers that run fn on each job pushed, in order. */
http_pool *http_pool_start(unsigned n, http_job_fn fn);

/* Queues a job; -1 once the pool is stopping (the job is not run). */
int http_pool_push(http_pool *p, void *job);

/* Refuses new jobs (http_pool_push then fails), runs those queued and
 * joins the workers. */
void http_pool_stop(http_pool *p);

/* Frees a stopped pool, once nothing can push to it. */
void http_pool_free(http_pool *p);

typedef struct http_linger http_linger;

/* The most sockets a lingerer holds at once. */
enum { HTTP_LINGER_MAX = 256 };

/* A lingerer for at most max sockets at once, each for at most ms. */
http_linger *http_linger_start(unsigned max, unsigned ms);

/*
 * Takes a duplicate of fd, shuts it for writing once the answer is out
 * and reads and drops what the client still sends, to its end or for
 * the time allowed, then closes it: the lingering close of RFC 9112
 * section 9.6, without the event loop waiting.  Over max sockets the
 * duplicate is not taken (the connection then closes as it would).
 */
void http_linger_add(http_linger *l, int fd);

/* Closes every socket held, joins, frees. */
void http_linger_stop(http_linger *l);

#endif
