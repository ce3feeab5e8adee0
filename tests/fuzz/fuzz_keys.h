/*
 * fuzz_keys.h - the receiver the receive targets run: bob's receive at
 * the fixed clock FUZZ_NOW + 1 (a compile definition, the time the seed
 * messages were made), and where the keys are found: the committed fuzz
 * keys (tests/fuzz/keys/, public, for fuzzing only), in the folder
 * FUZZ_KEYS_DIR when the build names one (the Makefile names
 * tests/fuzz/keys), else in the folder domlab-keys beside the fuzzer
 * binary (tests/fuzz/oss-fuzz/build.sh copies them there in $OUT:
 * OSS-Fuzz runs the binaries from a folder of its choosing, with no
 * network).  Bob receives; alice is the one trusted sender.
 * Defines LLVMFuzzerInitialize, so a target includes it at most once and
 * defines no initializer of its own.
 * Not for: key material in the source, or checking the verdict (each
 * target does).
 */
#ifndef FUZZ_KEYS_H
#define FUZZ_KEYS_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wss/keys.h"
#include "wss/wss.h"

#ifndef FUZZ_NOW
#error "FUZZ_NOW: the clock the seed messages were made at"
#endif

static char fuzz_bob_key[PATH_MAX], fuzz_bob_cert[PATH_MAX],
	fuzz_alice_key[PATH_MAX], fuzz_alice_cert[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* dir/name into out, or abort: a path that does not fit is a setup
 * error, not an input's. */
static void fuzz_key_path(char *out, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[PATH_MAX];
#ifdef FUZZ_KEYS_DIR
	(void)argv;
	snprintf(dir, sizeof dir, "%s", FUZZ_KEYS_DIR);
#else
	const char *self = *argc > 0 ? (*argv)[0] : "";
	const char *slash = strrchr(self, '/');
	int n = slash != NULL ? (int)(slash - self) : 1;

	snprintf(dir, sizeof dir, "%.*s/domlab-keys", n,
		 slash != NULL ? self : ".");
#endif
	(void)argc;
	fuzz_key_path(fuzz_bob_key, dir, "bob.key.pem");
	fuzz_key_path(fuzz_bob_cert, dir, "bob.cert.pem");
	fuzz_key_path(fuzz_alice_key, dir, "alice.key.pem");
	fuzz_key_path(fuzz_alice_cert, dir, "alice.cert.pem");
	return 0;
}

/* The receiver's paths: bob's key, alice trusted. */
static wss_key_paths fuzz_receiver_paths(void)
{
	wss_key_paths p = {fuzz_bob_key, NULL, NULL, fuzz_alice_cert};

	return p;
}


/* The receiver's options: the default ones at the fixed clock. */
static wss_opts fuzz_opts(void)
{
	wss_opts o;

	wss_opts_default(&o);
	o.now = (time_t)FUZZ_NOW + 1;
	return o;
}

/* Bob's receive of data[0..size) with alice trusted: LAB_OK or why not
 * in *err.  *doc is the parsed document, NULL when it did not parse; the
 * caller frees it. */
static int fuzz_receive(const uint8_t *data, size_t size, dom_doc **doc,
			lab_err *err)
{
	const wss_key_paths paths = fuzz_receiver_paths();
	const wss_opts o = fuzz_opts();
	void *handle = NULL;
	wss_keyset ks;
	int rc;

	*doc = NULL;
	if (wss_keys_acquire(&paths, &ks, &handle, err) != LAB_OK)
		abort(); /* the keys are fixed: not finding them is a setup error */
	rc = dom_parse((const char *)data, size, NULL, doc, err);
	if (rc == LAB_OK)
		rc = wss_receive_doc(*doc, ks.key, ks.trust, &o, err);
	wss_keys_release(handle);
	return rc;
}

#endif
