/*
 * receive_struct.c - libFuzzer target: the receive path on signed and
 * encrypted messages changed by a structure-aware mutator (msg_mutate.h:
 * header blocks, references, IDs, algorithms, EncryptedKey and
 * EncryptedData counts, ciphertexts re-encrypted under the message's own
 * session key), so that inputs get past the parser into what runs before
 * the signature is checked: the Timestamp, the key unwraps, the
 * decryptions, the shape check after them.  Besides the sanitizers'
 * findings, a refusal must say why and be one of the receive path's two
 * refusals (malformed, exit 2; security, exit 3), and what is accepted
 * must serialize.  Fixed keys (fuzz_keys.h) and clock (FUZZ_NOW); the
 * seeds are messages `domlab send` and `domlab sign` made at FUZZ_NOW.
 * Not for: whether accepting is right (receive_diff.c compares with the
 * reference peer), or the parser's own properties (parse.c, insitu.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dom/dom.h"
#include "tests/fuzz/fuzz_keys.h"
#include "tests/fuzz/msg_mutate.h"
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
	int rc;

	wss_opts_default(&o);
	o.now = (time_t)FUZZ_NOW + 1;
	if (wss_keys_acquire(&paths, &ks, &handle, &err) != LAB_OK)
		abort(); /* the keys are fixed: not finding them is a setup error */
	rc = dom_parse((const char *)data, size, NULL, &doc, &err);
	if (rc == LAB_OK)
		rc = wss_receive_doc(doc, ks.key, ks.trust, &o, &err);
	if (rc == LAB_OK && dom_serialize(dom_doc_node(doc), &out, &err) !=
				    LAB_OK)
		abort();
	if (rc != LAB_OK &&
	    ((rc != LAB_EMALFORMED && rc != LAB_ESECURITY) ||
	     err.msg[0] == '\0')) {
		fprintf(stderr, "receive refused with code %d: '%s'\n", rc,
			err.msg);
		abort();
	}
	wss_keys_release(handle);
	dom_doc_free(doc);
	lab_buf_free(&out);
	return 0;
}
