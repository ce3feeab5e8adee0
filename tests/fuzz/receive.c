/*
 * receive.c - libFuzzer target: arbitrary bytes through the receive path
 * (parse, Timestamp, decrypt, verify) with fixed test keys -- bob
 * receives, alice is the one trusted sender -- and a fixed clock, then
 * the serialization of what was accepted.  The keys are made at build
 * time (fuzz_keys.h says where they are found); the seeds are messages
 * `domlab send` made with them at FUZZ_NOW.
 * Not for: the parser's or the canonicalizer's own properties (parse.c,
 * c14n.c).
 */
#include <stdint.h>
#include <stdlib.h>

#include "dom/dom.h"
#include "tests/fuzz/fuzz_keys.h"
#include "wss/wss.h"
#ifndef FUZZ_NOW
#error "FUZZ_NOW: the clock the seed messages were made at"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const wss_key_paths paths = fuzz_receiver_paths();
	lab_buf out = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	void *handle = NULL;
	wss_keyset ks;
	wss_opts o;
	lab_err err;

	wss_opts_default(&o);
	o.now = (time_t)FUZZ_NOW + 1;
	if (wss_keys_acquire(&paths, &ks, &handle, &err) != LAB_OK)
		abort(); /* the keys are fixed: not finding them is a setup error */
	if (dom_parse((const char *)data, size, NULL, &doc, &err) != LAB_OK)
		goto out;
	if (wss_receive_doc(doc, ks.key, ks.trust, &o, &err) != LAB_OK)
		goto out;
	if (dom_serialize(dom_doc_node(doc), &out, &err) != LAB_OK)
		abort();
out:
	wss_keys_release(handle);
	dom_doc_free(doc);
	lab_buf_free(&out);
	return 0;
}
