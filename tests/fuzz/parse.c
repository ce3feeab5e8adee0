/*
 * parse.c - libFuzzer target: arbitrary bytes through dom_parse (the
 * build variant this binary is linked with: the Makefile builds it once
 * per build choice), and for what parses, a serialization that must parse
 * again to the very same bytes -- the serializer's output is the form the
 * parser reads back unchanged.
 * Not for: canonicalization (c14n.c) or the pipeline (receive.c).
 */
#include <stdint.h>
#include <stdlib.h>

#include "dom/dom.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int serialize(const dom_node *top, const void *arg, lab_buf *out,
		     lab_err *err)
{
	(void)arg;
	return dom_serialize(top, out, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lab_buf once = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	lab_err err;

	if (dom_parse((const char *)data, size, NULL, &doc, &err) != LAB_OK)
		goto out;
	if (serialize(dom_doc_node(doc), NULL, &once, &err) != LAB_OK)
		abort();
	fuzz_fixed_point(&once, serialize, NULL);
out:
	dom_doc_free(doc);
	lab_buf_free(&once);
	return 0;
}
