/*
 * cases_threads.c - which cases run on several threads at once, and on
 * how many.  threads_send and threads_receive (and their ref: peers) are
 * the pipeline's send and receive stages (cases_wss.c, cases_ref.c) run
 * by T threads together, T = 1, 2, 4, ... up to twice the CPUs this
 * process may use, read when the benchmark starts.  Each thread makes its
 * own context with the case's setup, so every thread parses, signs and
 * encrypts documents of its own; what they share is what a service's
 * threads share: the keys (keys=cached), libxml2's and OpenSSL's
 * process-wide state and the allocator.  Throughput is messages per
 * second of wall-clock time (harness/bench/bench.cc times these by the wall
 * clock); harness/reports/summary.py turns it into scaling per variant.
 *
 * threads_control is the yardstick: FNV-1a over the message's bytes,
 * nothing shared, nothing allocated, no library called.  On a machine
 * others use too, it shows how much parallel CPU the run actually got,
 * so a variant's scaling can be read against it.
 *
 * Not for: checking that threads get the right answers
 * (tests/test_threads.c does, under ThreadSanitizer).
 */
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "harness/bench/bench.h"

typedef struct control_ctx {
	const lab_case_data *d;
	uint64_t sink;
} control_ctx;

static const char prefix[] = "threads_";

int lab_case_threaded(const lab_case *c)
{
	const char *stage = strchr(c->stage, ':');

	/* "ref:threads_send" as well as "threads_send". */
	stage = stage != NULL ? stage + 1 : c->stage;
	return strncmp(stage, prefix, sizeof prefix - 1) == 0;
}

int lab_case_pipelined(const lab_case *c)
{
	static const char suffix[] = "_pipelined";
	size_t n = strlen(c->stage);

	return n >= sizeof suffix - 1 &&
	       strcmp(c->stage + n - (sizeof suffix - 1), suffix) == 0;
}

int lab_bench_max_threads(void)
{
	cpu_set_t set;
	int n = 1;

	/* The CPUs this process may run on, not the machine's: a container
	 * or taskset limit is what the threads really get. */
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	return 2 * n;
}

int lab_threads_setup_control(void **ctx, const lab_case_data *d,
			      lab_err *err)
{
	control_ctx *c = lab_calloc(1, sizeof *c);

	*ctx = c;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->d = d;
	return LAB_OK;
}

/* Eight passes, so one call costs about what a small send does. */
int lab_threads_run_control(void *ctx, lab_err *err)
{
	control_ctx *c = ctx;
	uint64_t h = 14695981039346656037u;
	int pass;
	size_t i;

	(void)err;
	for (pass = 0; pass < 8; pass++)
		for (i = 0; i < c->d->len; i++)
			h = (h ^ (unsigned char)c->d->bytes[i]) *
			    1099511628211u;
	c->sink = h;
	return LAB_OK;
}

void lab_threads_teardown_control(void *ctx)
{
	lab_free(ctx);
}
