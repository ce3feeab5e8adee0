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
#include <string.h>

#include "dom/dom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lab_buf once = LAB_BUF_INIT, twice = LAB_BUF_INIT;
	dom_doc *doc = NULL, *again = NULL;
	lab_err err;

	if (dom_parse((const char *)data, size, NULL, &doc, &err) != LAB_OK)
		goto out;
	if (dom_serialize(dom_doc_node(doc), &once, &err) != LAB_OK)
		abort();
	if (dom_parse(once.data, once.len, NULL, &again, &err) != LAB_OK)
		abort();
	if (dom_serialize(dom_doc_node(again), &twice, &err) != LAB_OK)
		abort();
	if (once.len != twice.len || memcmp(once.data, twice.data, once.len) != 0)
		abort();
out:
	dom_doc_free(again);
	dom_doc_free(doc);
	lab_buf_free(&once);
	lab_buf_free(&twice);
	return 0;
}
