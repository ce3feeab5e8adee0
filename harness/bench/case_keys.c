/*
 * case_keys.c - the paths of alice's and bob's PEM files (tests/
 * make-keys.sh's names) under a case's keys folder, built once for every
 * case that hands them to the keys axis or loads them itself.
 *
 * Not for: loading or caching keys (wss/keys.h, the keys axis).
 */
#include <stdio.h>

#include "harness/bench/bench.h"

static int pem_path(char *out, size_t cap, const char *dir, const char *file,
		    lab_err *err)
{
	int n = snprintf(out, cap, "%s/%s", dir, file);

	if (n < 0 || (size_t)n >= cap)
		return lab_fail(err, LAB_EUSAGE,
				"keys folder '%.200s': the path of %s is "
				"over %zu bytes",
				dir, file, cap - 1);
	return LAB_OK;
}

int lab_case_key_paths(const lab_case_data *d, lab_case_keys *k,
		       lab_err *err)
{
	int rc = pem_path(k->key, sizeof k->key, d->keys, "alice.key.pem",
			  err);

	if (rc == LAB_OK)
		rc = pem_path(k->cert, sizeof k->cert, d->keys,
			      "alice.cert.pem", err);
	if (rc == LAB_OK)
		rc = pem_path(k->peer_key, sizeof k->peer_key, d->keys,
			      "bob.key.pem", err);
	if (rc == LAB_OK)
		rc = pem_path(k->peer_cert, sizeof k->peer_cert, d->keys,
			      "bob.cert.pem", err);
	return rc;
}
