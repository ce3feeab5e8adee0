/*
 * slowloris.c - holds many slow HTTP connections to a loopback server:
 * each sends a request line and then one header byte per interval,
 * never ending its headers, and is opened again when the server cuts
 * it.  For measuring `domlab serve` under that attack
 * (harness/reports/attack_slowloris.sh); bounded in every way: loopback
 * targets only, at most 5000 connections, at most 600 seconds, then it
 * closes everything and exits by itself.
 *
 *   slowloris --target 127.0.0.1:PORT [--source 127.0.0.2] [--conns N]
 *             [--seconds S] [--interval-ms MS]
 *
 * Prints one line at the end: connections opened, cut by the server,
 * and the mean number held open.
 * Not for: anything but loopback; valid traffic (domlab load).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_CONNS = 5000, MAX_SECONDS = 600 };

typedef struct opts {
	struct sockaddr_in target, source;
	long conns, seconds, interval_ms;
} opts;

typedef struct tally {
	unsigned long opened, cut, held_sum, rounds;
} tally;

static const char head[] = "POST /soap HTTP/1.1\r\nHost: x\r\nX-Slow: ";

static int usage(const char *why)
{
	fprintf(stderr,
		"slowloris: %s\nusage: slowloris --target 127.0.0.1:PORT "
		"[--source 127.0.0.2] [--conns N<=%d] [--seconds S<=%d] "
		"[--interval-ms MS]\n",
		why, MAX_CONNS, MAX_SECONDS);
	return 1;
}

static int loopback(const struct sockaddr_in *a)
{
	return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
}

static long number(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s != '\0' && *end == '\0' && v > 0 && v <= max ? v : -1;
}

static int parse(int argc, char **argv, opts *o)
{
	int i;

	memset(o, 0, sizeof *o);
	o->conns = 1000;
	o->seconds = 30;
	o->interval_ms = 1000;
	o->target.sin_family = o->source.sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.2", &o->source.sin_addr);
	for (i = 1; i + 1 < argc; i += 2) {
		const char *v = argv[i + 1];
		char host[64];

		if (strcmp(argv[i], "--target") == 0 && strlen(v) < sizeof host) {
			char *colon;

			strcpy(host, v);
			colon = strchr(host, ':');
			if (colon == NULL || number(colon + 1, 65535) < 0)
				return usage("--target is ADDR:PORT");
			*colon = '\0';
			o->target.sin_port = htons((unsigned short)atoi(colon + 1));
			if (inet_pton(AF_INET, host, &o->target.sin_addr) != 1)
				return usage("--target needs a numeric address");
		} else if (strcmp(argv[i], "--source") == 0) {
			if (inet_pton(AF_INET, v, &o->source.sin_addr) != 1)
				return usage("--source needs a numeric address");
		} else if (strcmp(argv[i], "--conns") == 0) {
			o->conns = number(v, MAX_CONNS);
		} else if (strcmp(argv[i], "--seconds") == 0) {
			o->seconds = number(v, MAX_SECONDS);
		} else if (strcmp(argv[i], "--interval-ms") == 0) {
			o->interval_ms = number(v, 60000);
		} else {
			return usage("unknown option or missing value");
		}
	}
	if (i != argc || o->target.sin_port == 0)
		return usage("--target is required");
	if (o->conns < 0 || o->seconds < 0 || o->interval_ms < 0)
		return usage("a count out of range");
	if (!loopback(&o->target) || !loopback(&o->source))
		return usage("loopback addresses only");
	return 0;
}

/* A new connection, its request line sent once it is up; -1 on failure. */
static int open_conn(const opts *o)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (const struct sockaddr *)&o->source, sizeof o->source) != 0 ||
	    (connect(fd, (const struct sockaddr *)&o->target, sizeof o->target) != 0 &&
	     errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One byte more of the headers (the request line first); 0 while the
 * connection holds, -1 once the server has cut it. */
static int dribble(int fd, size_t *sent)
{
	char sink[256];
	ssize_t n = recv(fd, sink, sizeof sink, MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		       errno != ENOTCONN))
		return -1;
	if (*sent == 0) {
		n = send(fd, head, sizeof head - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			*sent = (size_t)n;
	} else {
		n = send(fd, "a", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		return -1;
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void run(const opts *o, int *fds, size_t *sent, tally *t)
{
	double end = now_s() + (double)o->seconds;
	struct timespec pause = {o->interval_ms / 1000,
				 (o->interval_ms % 1000) * 1000000};
	long i;

	while (now_s() < end) {
		unsigned long held = 0;

		for (i = 0; i < o->conns; i++) {
			if (fds[i] >= 0 && dribble(fds[i], &sent[i]) != 0) {
				close(fds[i]);
				fds[i] = -1;
				t->cut++;
			}
			if (fds[i] < 0) {
				fds[i] = open_conn(o);
				sent[i] = 0;
				if (fds[i] >= 0)
					t->opened++;
			}
			held += fds[i] >= 0 && sent[i] > 0;
		}
		t->held_sum += held;
		t->rounds++;
		nanosleep(&pause, NULL);
	}
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	tally t = {0, 0, 0, 0};
	opts o;
	int *fds;
	size_t *sent;
	long i;

	if (parse(argc, argv, &o) != 0)
		return 1;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur < (rlim_t)o.conns + 16 && rl.rlim_max >= (rlim_t)o.conns + 16) {
		rl.rlim_cur = (rlim_t)o.conns + 16;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	fds = malloc((size_t)o.conns * sizeof *fds);
	sent = calloc((size_t)o.conns, sizeof *sent);
	if (fds == NULL || sent == NULL) {
		free(fds);
		free(sent);
		return usage("out of memory");
	}
	for (i = 0; i < o.conns; i++)
		fds[i] = -1;
	run(&o, fds, sent, &t);
	for (i = 0; i < o.conns; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	printf("opened %lu cut %lu held_mean %.0f\n", t.opened, t.cut,
	       t.rounds ? (double)t.held_sum / (double)t.rounds : 0.0);
	free(fds);
	free(sent);
	return 0;
}
