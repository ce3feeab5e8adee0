/*
 * receive.c - libFuzzer target: arbitrary bytes through the receive path
 * (parse, Timestamp, decrypt, verify) with fixed test keys -- bob
 * receives, alice is the one trusted sender -- and a fixed clock, then
 * the serialization of what was accepted.  The keys are the committed
 * fuzz keys (fuzz_keys.h says where they are found); the seeds are
 * messages `domlab send` made with them at FUZZ_NOW.
 * Not for: the parser's or the canonicalizer's own properties (parse.c,
 * c14n.c).
 */
#include <stdint.h>
#include <stdlib.h>

#include "dom/dom.h"
#include "tests/fuzz/fuzz_keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lab_buf out = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	lab_err err;

	if (fuzz_receive(data, size, &doc, &err) == LAB_OK &&
	    dom_serialize(dom_doc_node(doc), &out, &err) != LAB_OK)
		abort();
	dom_doc_free(doc);
	lab_buf_free(&out);
	return 0;
}
