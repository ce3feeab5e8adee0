/*
 * fuzz_common.h - the check more than one fuzz target makes: a form the
 * library writes is a fixed point -- it parses, and writing the new
 * document gives the very same bytes.  Included by tests/fuzz/parse.c
 * (serialization) and tests/fuzz/c14n.c (canonicalization).
 * Not for: a target of its own (the Makefile builds each .c file here), nor
 * what a target writes the first time, or from which node.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"

/* Writes top's tree into out, as the target's first write did; arg is
 * the target's own (its options). */
typedef int (*fuzz_emit_fn)(const dom_node *top, const void *arg,
			    lab_buf *out, lab_err *err);

/* Aborts unless `once`, what emit wrote, parses and emit writes the same
 * bytes from the new document's node. */
static void fuzz_fixed_point(const lab_buf *once, fuzz_emit_fn emit,
			     const void *arg)
{
	lab_buf twice = LAB_BUF_INIT;
	dom_doc *again = NULL;
	lab_err err;

	if (dom_parse(once->data, once->len, NULL, &again, &err) != LAB_OK)
		abort();
	if (emit(dom_doc_node(again), arg, &twice, &err) != LAB_OK)
		abort();
	if (once->len != twice.len ||
	    memcmp(once->data, twice.data, once->len) != 0)
		abort();
	dom_doc_free(again);
	lab_buf_free(&twice);
}

#endif
