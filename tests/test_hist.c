/*
 * test_hist.c - util/hist.h: values under 128 kept exactly; every
 * percentile of random samples no lower than the exact rank's value and
 * within 1/128 above it (the exact one from the sorted samples); the
 * maximum exact; p99.9 of 1000 values the 999th; two histograms added
 * equal one that counted both; values past the top counted, the maximum
 * still exact; an empty histogram answers 0.
 * Not tested here: how `domlab load` uses it (tests/http.sh).
 */
#include <stdlib.h>

#include "tests/util.h"
#include "util/alloc.h"
#include "util/hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* A reproducible spread of values over many powers of two. */
static uint64_t next_value(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (*state >> 33) >> ((*state >> 8) % 28);
}

static void hist_small_exact(void)
{
	lab_hist *h = lab_malloc(sizeof *h);
	uint64_t v;

	if (!CHECK(h != NULL))
		return;
	lab_hist_init(h);
	for (v = 0; v < 128; v++)
		lab_hist_record(h, v);
	CHECK_EQ_INT((long long)h->total, 128);
	CHECK_EQ_INT((long long)h->min, 0);
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 50), 63);
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 1), 1);
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 100), 127);
	lab_free(h);
}

static void hist_percentiles_within_bucket(void)
{
	static const double ps[] = {1, 10, 50, 90, 99, 99.9, 99.99, 100};
	enum { N = 20000 };
	uint64_t *v = lab_malloc(N * sizeof *v), state = 7;
	lab_hist *h = lab_malloc(sizeof *h);
	size_t i;

	if (!CHECK(v != NULL && h != NULL))
		goto out;
	lab_hist_init(h);
	for (i = 0; i < N; i++) {
		v[i] = next_value(&state);
		lab_hist_record(h, v[i]);
	}
	qsort(v, N, sizeof *v, cmp_u64);
	CHECK_EQ_INT((long long)h->max, (long long)v[N - 1]);
	CHECK_EQ_INT((long long)h->min, (long long)v[0]);
	for (i = 0; i < sizeof ps / sizeof ps[0]; i++) {
		/* The rank as HdrHistogram counts it: ceil(p / 100 x N). */
		size_t rank = (size_t)((ps[i] * 1000 * N + 99999) / 100000);
		uint64_t exact = v[(rank > 0 ? rank : 1) - 1];
		uint64_t got = lab_hist_percentile(h, ps[i]);

		t_context("p%g: exact %llu, got %llu", ps[i],
			  (unsigned long long)exact, (unsigned long long)got);
		CHECK(got >= exact);
		CHECK(got - exact <= exact / 128);
	}
out:
	lab_free(v);
	lab_free(h);
}

static void hist_p999_rank(void)
{
	lab_hist *h = lab_malloc(sizeof *h);
	uint64_t v;

	if (!CHECK(h != NULL))
		return;
	lab_hist_init(h);
	for (v = 1; v <= 1000; v++)
		lab_hist_record(h, v * 1000);
	/* The 999th of 1000 is 999000: 243 << 12 = 995328 <= 999000 <
	 * 244 << 12, its bucket's highest value 999423; the 1000th is the
	 * maximum; the 500th, 500000, is in [244 << 11, (245 << 11) - 1]. */
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 99.9), 999423);
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 99.95), 1000000);
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 50), 501759);
	lab_free(h);
}

static void hist_add(void)
{
	lab_hist *a = lab_malloc(sizeof *a), *b = lab_malloc(sizeof *b);
	lab_hist *both = lab_malloc(sizeof *both);
	uint64_t state = 3, x;
	int i;

	if (!CHECK(a != NULL && b != NULL && both != NULL))
		goto out;
	lab_hist_init(a);
	lab_hist_init(b);
	lab_hist_init(both);
	for (i = 0; i < 5000; i++) {
		x = next_value(&state);
		lab_hist_record(i % 3 == 0 ? a : b, x);
		lab_hist_record(both, x);
	}
	lab_hist_add(a, b);
	CHECK_EQ_MEM(a, sizeof *a, both, sizeof *both);
	lab_hist_init(b);
	lab_hist_add(a, b);
	CHECK_EQ_MEM(a, sizeof *a, both, sizeof *both);
out:
	lab_free(a);
	lab_free(b);
	lab_free(both);
}

static void hist_edges(void)
{
	lab_hist *h = lab_malloc(sizeof *h);
	uint64_t huge = (uint64_t)1 << 50;

	if (!CHECK(h != NULL))
		return;
	lab_hist_init(h);
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 50), 0);
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 100), 0);
	lab_hist_record(h, 5);
	lab_hist_record(h, huge);
	lab_hist_record(h, UINT64_MAX);
	CHECK(h->max == UINT64_MAX);
	CHECK_EQ_INT((long long)h->min, 5);
	CHECK_EQ_INT((long long)lab_hist_percentile(h, 30), 5);
	CHECK(lab_hist_percentile(h, 60) == UINT64_MAX);
	CHECK(lab_hist_percentile(h, 100) == UINT64_MAX);
	lab_free(h);
}

const t_case tests_hist[] = {
	{"util/hist_small_exact", hist_small_exact},
	{"util/hist_percentiles_within_bucket", hist_percentiles_within_bucket},
	{"util/hist_p999_rank", hist_p999_rank},
	{"util/hist_add", hist_add},
	{"util/hist_edges", hist_edges},
	{NULL, NULL},
};
