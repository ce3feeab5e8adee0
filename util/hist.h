/*
 * hist.h - a log-bucketed histogram of whole numbers (latencies in
 * microseconds), laid out as HdrHistogram lays out its counts: values
 * under 128 are kept exactly, and each power of two above is cut into 128
 * buckets, so a value is known to within 1/128 (0.8 %) of itself, in a
 * fixed 34 KB whatever the count.  Percentiles are read off the counts
 * without keeping or sorting the values, and two histograms add.
 * Not for: values of 2^40 and more (they are counted in the last bucket,
 * whose percentiles answer the maximum, still exact) or fractions.
 */
#ifndef LAB_HIST_H
#define LAB_HIST_H

#include <stdint.h>

#define LAB_HIST_SUB_BITS 7
#define LAB_HIST_TOP_BIT 40 /* values < 2^40 are bucketed as above */
#define LAB_HIST_BUCKETS                                                     \
	((1u << LAB_HIST_SUB_BITS) *                                         \
	 (LAB_HIST_TOP_BIT - LAB_HIST_SUB_BITS + 1))

typedef struct lab_hist {
	uint64_t count[LAB_HIST_BUCKETS];
	uint64_t total; /* values recorded */
	uint64_t min, max; /* exact; 0 when empty */
} lab_hist;

/* Empties h. */
void lab_hist_init(lab_hist *h);

/* Counts one value. */
void lab_hist_record(lab_hist *h, uint64_t v);

/* Adds from's counts to to's. */
void lab_hist_add(lab_hist *to, const lab_hist *from);

/*
 * The value at percentile p (0 < p <= 100, to a thousandth): the highest value of the
 * bucket holding the value of rank ceil(p / 100 x total), at most the
 * maximum, so it is no lower than that value and within 1/128 of it;
 * 100 gives the maximum.  0 when h is empty.
 */
uint64_t lab_hist_percentile(const lab_hist *h, double p);

#endif
