/*
 * gen.h - deterministic XML documents for the benchmarks and the
 * differential tests: SOAP envelopes (quakes, ints, strings), an
 * attribute-heavy one, a deep one and small random ones; and the binary
 * content of attachments (bytes).  The kinds and
 * the byte-level conventions are in datasets/README.md.
 *
 * Not for: reading, checking or canonicalizing documents.
 */
#ifndef LAB_GEN_H
#define LAB_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

typedef enum lab_gen_kind {
	LAB_GEN_QUAKES,
	LAB_GEN_INTS,
	LAB_GEN_STRINGS,
	LAB_GEN_WIDE,
	LAB_GEN_DEEP,
	LAB_GEN_RANDOM,
	LAB_GEN_BYTES,  /* not XML: an attachment's binary content */
	/* Hostile shapes (datasets/hostile.c), scaled by size. */
	LAB_GEN_COLLIDE_NAMES,
	LAB_GEN_COLLIDE_ATTRS,
	LAB_GEN_COLLIDE_IDS,
	LAB_GEN_WIDE_NS,
	LAB_GEN_MANY_ATTRS
} lab_gen_kind;

typedef struct lab_gen_opts {
	lab_gen_kind kind;
	size_t size;   /* target bytes (quakes, ints, strings, wide); 0 = use count */
	size_t count;  /* records, items, elements, depth or nodes; 0 = default */
	uint64_t seed; /* same opts => same bytes, on every machine */
	/* quakes only: each start tag's attributes in C14N's order, so
	 * that the Body's content is its own exclusive canonical form
	 * (the same records, the same values) */
	int canonical;
} lab_gen_opts;

/* "quakes", "ints", "strings", "wide", "deep", "random", "bytes",
 * "collide-names", "collide-attrs", "collide-ids", "wide-ns" or
 * "many-attrs"; else LAB_EUSAGE. */
int lab_gen_kind_parse(const char *name, lab_gen_kind *out);

/* The name lab_gen_kind_parse accepts, or "unknown". */
const char *lab_gen_kind_name(lab_gen_kind k);

/*
 * Appends the document to out.  On failure out is left as it was:
 * LAB_EUSAGE for bad options, LAB_ENOMEM when the buffer cannot grow.
 */
int lab_gen(const lab_gen_opts *o, lab_buf *out, lab_err *err);

#endif
