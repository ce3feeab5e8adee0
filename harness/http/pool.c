/*
 * pool.c - serve's workers and lingerer (pool.h).  The workers take jobs
 * from one queue under one lock; the lingerer polls its sockets and a
 * pipe that wakes it when one is added or it is told to stop.
 * Not for: the jobs themselves (serve.c).
 */
#include "harness/http/pool.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"

typedef struct job {
	struct job *next;
	void *data;
} job;

struct http_pool {
	pthread_mutex_t lock;
	pthread_cond_t more;
	job *head, *tail;
	int stopping;
	http_job_fn fn;
	unsigned n;
	pthread_t threads[];
};

static void *work(void *arg)
{
	http_pool *p = arg;

	for (;;) {
		job *j;

		pthread_mutex_lock(&p->lock);
		while (p->head == NULL && !p->stopping)
			pthread_cond_wait(&p->more, &p->lock);
		j = p->head;
		if (j != NULL) {
			p->head = j->next;
			if (p->head == NULL)
				p->tail = NULL;
		}
		pthread_mutex_unlock(&p->lock);
		if (j == NULL)
			return NULL; /* stopping, and nothing left */
		p->fn(j->data);
		lab_free(j);
	}
}

http_pool *http_pool_start(unsigned n, http_job_fn fn)
{
	http_pool *p = lab_calloc(1, sizeof *p + n * sizeof(pthread_t));
	unsigned i;

	if (p == NULL)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	p->fn = fn;
	for (i = 0; i < n; i++) {
		if (pthread_create(&p->threads[i], NULL, work, p) != 0)
			break;
		p->n++;
	}
	if (p->n == n)
		return p;
	http_pool_stop(p);
	http_pool_free(p);
	return NULL;
}

int http_pool_push(http_pool *p, void *data)
{
	job *j = lab_calloc(1, sizeof *j);
	int rc = -1;

	if (j == NULL)
		return -1;
	j->data = data;
	pthread_mutex_lock(&p->lock);
	if (!p->stopping) {
		if (p->tail != NULL)
			p->tail->next = j;
		else
			p->head = j;
		p->tail = j;
		pthread_cond_signal(&p->more);
		rc = 0;
	}
	pthread_mutex_unlock(&p->lock);
	if (rc != 0)
		lab_free(j);
	return rc;
}

void http_pool_stop(http_pool *p)
{
	unsigned i;

	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->n; i++)
		pthread_join(p->threads[i], NULL);
	p->n = 0;
}

void http_pool_free(http_pool *p)
{
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->lock);
	lab_free(p);
}

/* ---- the lingerer ---- */

typedef struct held {
	int fd;
	struct timespec until;
} held;

struct http_linger {
	pthread_mutex_t lock;
	pthread_t thread;
	int wake[2]; /* a byte in it: look at the list again */
	int stopping;
	unsigned ms, max, n;
	held socks[];
};

static long ms_left(const struct timespec *until)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (until->tv_sec - now.tv_sec) * 1000 +
	       (until->tv_nsec - now.tv_nsec) / 1000000;
}

/* Reads what socket i has and drops it; 1 when it is done with. */
static int drain(http_linger *l, unsigned i, short revents)
{
	char sink[16384];

	if (ms_left(&l->socks[i].until) <= 0)
		return 1;
	if (revents == 0)
		return 0;
	return recv(l->socks[i].fd, sink, sizeof sink, MSG_DONTWAIT) <= 0;
}

/* One round: waits for the first socket to say something or to be due. */
static void linger_round(http_linger *l)
{
	struct pollfd fds[1 + HTTP_LINGER_MAX];
	unsigned i, n;
	long wait = 1000;

	pthread_mutex_lock(&l->lock);
	n = l->n;
	for (i = 0; i < n; i++) {
		long left = ms_left(&l->socks[i].until);

		fds[1 + i].fd = l->socks[i].fd;
		fds[1 + i].events = POLLIN;
		fds[1 + i].revents = 0;
		if (left < wait)
			wait = left < 0 ? 0 : left;
	}
	pthread_mutex_unlock(&l->lock);
	fds[0].fd = l->wake[0];
	fds[0].events = POLLIN;
	fds[0].revents = 0;
	if (poll(fds, 1 + n, (int)wait) > 0 && fds[0].revents != 0) {
		char byte[64];

		(void)!read(l->wake[0], byte, sizeof byte);
	}
	pthread_mutex_lock(&l->lock);
	/* Only the first n can have moved: add() appends, this removes. */
	for (i = n; i-- > 0;)
		if (l->stopping || drain(l, i, fds[1 + i].revents)) {
			close(l->socks[i].fd);
			l->socks[i] = l->socks[--l->n];
		}
	pthread_mutex_unlock(&l->lock);
}

static void *linger_loop(void *arg)
{
	http_linger *l = arg;
	int stop = 0;

	while (!stop) {
		linger_round(l);
		pthread_mutex_lock(&l->lock);
		stop = l->stopping && l->n == 0;
		pthread_mutex_unlock(&l->lock);
	}
	return NULL;
}

http_linger *http_linger_start(unsigned max, unsigned ms)
{
	http_linger *l = lab_calloc(1, sizeof *l + max * sizeof(held));

	if (l == NULL)
		return NULL;
	l->max = max < HTTP_LINGER_MAX ? max : HTTP_LINGER_MAX;
	l->ms = ms;
	if (pipe2(l->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		lab_free(l);
		return NULL;
	}
	pthread_mutex_init(&l->lock, NULL);
	if (pthread_create(&l->thread, NULL, linger_loop, l) != 0) {
		pthread_mutex_destroy(&l->lock);
		close(l->wake[0]);
		close(l->wake[1]);
		lab_free(l);
		return NULL;
	}
	return l;
}

void http_linger_add(http_linger *l, int fd)
{
	int dup_fd = -1;

	pthread_mutex_lock(&l->lock);
	if (!l->stopping && l->n < l->max)
		dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd >= 0) {
		held *h = &l->socks[l->n++];

		shutdown(dup_fd, SHUT_WR);
		h->fd = dup_fd;
		clock_gettime(CLOCK_MONOTONIC, &h->until);
		h->until.tv_sec += l->ms / 1000;
		h->until.tv_nsec += (long)(l->ms % 1000) * 1000000;
		if (h->until.tv_nsec >= 1000000000) {
			h->until.tv_sec++;
			h->until.tv_nsec -= 1000000000;
		}
	}
	pthread_mutex_unlock(&l->lock);
	if (dup_fd >= 0)
		(void)!write(l->wake[1], "", 1);
}

void http_linger_stop(http_linger *l)
{
	pthread_mutex_lock(&l->lock);
	l->stopping = 1;
	pthread_mutex_unlock(&l->lock);
	(void)!write(l->wake[1], "", 1);
	pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->lock);
	close(l->wake[0]);
	close(l->wake[1]);
	lab_free(l);
}
