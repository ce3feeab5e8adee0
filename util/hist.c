/*
 * hist.c - the log-bucketed histogram of hist.h.  Bucket i < 128 holds
 * the value i; above, a value v whose highest set bit is e is shifted
 * right by s = e - 7, leaving a mantissa m in [128, 255], and counted in
 * bucket 128 + 128 s + (m - 128), which holds [m << s, ((m + 1) << s) - 1].
 * Not for: anything but counting (no allocation, no locking: one thread
 * per histogram, added together afterwards).
 */
#include <string.h>

#include "util/hist.h"

#define SUB (1u << LAB_HIST_SUB_BITS)
#define LIMIT ((uint64_t)1 << LAB_HIST_TOP_BIT)

static unsigned bucket_of(uint64_t v)
{
	unsigned e, s;

	if (v < SUB)
		return (unsigned)v;
	if (v >= LIMIT)
		return LAB_HIST_BUCKETS - 1;
	e = 63u - (unsigned)__builtin_clzll(v);
	s = e - LAB_HIST_SUB_BITS;
	return SUB + SUB * s + (unsigned)((v >> s) - SUB);
}

/* The highest value bucket i holds. */
static uint64_t bucket_high(unsigned i)
{
	unsigned s;
	uint64_t m;

	if (i < SUB)
		return i;
	s = (i - SUB) / SUB;
	m = SUB + (i - SUB) % SUB;
	return ((m + 1) << s) - 1;
}

void lab_hist_init(lab_hist *h)
{
	memset(h, 0, sizeof *h);
}

void lab_hist_record(lab_hist *h, uint64_t v)
{
	h->count[bucket_of(v)]++;
	if (h->total == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->total++;
}

void lab_hist_add(lab_hist *to, const lab_hist *from)
{
	unsigned i;

	if (from->total == 0)
		return;
	for (i = 0; i < LAB_HIST_BUCKETS; i++)
		to->count[i] += from->count[i];
	if (to->total == 0 || from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->total += from->total;
}

uint64_t lab_hist_percentile(const lab_hist *h, double p)
{
	/* In thousandths of a percent, in whole numbers: 99.9 % of 1000
	 * values is rank 999, where doubles would give 999.0000000000001. */
	uint64_t milli = p <= 0 ? 0 : p >= 100 ? 100000 : (uint64_t)(p * 1000 + 0.5);
	uint64_t rank = (milli * h->total + 99999) / 100000, seen = 0;
	unsigned i;

	if (h->total == 0)
		return 0;
	if (rank == 0)
		rank = 1;
	if (rank >= h->total)
		return h->max;
	for (i = 0; i < LAB_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank)
			break;
	}
	/* The last bucket holds everything past the top: only the maximum
	 * bounds it. */
	return i < LAB_HIST_BUCKETS - 1 && bucket_high(i) < h->max
		       ? bucket_high(i)
		       : h->max;
}
