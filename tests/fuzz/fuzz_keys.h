/*
 * fuzz_keys.h - where a target that needs the test keys finds them: the
 * folder FUZZ_KEYS_DIR when the build names one (the Makefile's, made by
 * tests/make-keys.sh), else the folder domlab-keys beside the fuzzer
 * binary (tests/fuzz/oss-fuzz/build.sh makes it in $OUT: OSS-Fuzz runs
 * the binaries from a folder of its choosing, with no network and no keys
 * of ours).  Bob receives; alice is the one trusted sender.
 * Defines LLVMFuzzerInitialize, so a target includes it at most once and
 * defines no initializer of its own.
 * Not for: the clock (FUZZ_NOW, a compile definition) or key material in
 * the source.
 */
#ifndef FUZZ_KEYS_H
#define FUZZ_KEYS_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wss/keys.h"

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

#endif
