/*
 * crypto_util.c - loading the test keys and certificates as checks
 * (tests/crypto_util.h).
 * Not for: the tests themselves.
 */
#include "tests/crypto_util.h"

int t_read_file_at(const char *file, int line, const char *path,
			lab_buf *out)
{
	if (t_read_file(path, out) == 0)
		return t_pass();
	return t_fail(file, line, "cannot read %s", path);
}

wss_privkey *t_key_at(const char *file, int line, const char *path)
{
	wss_privkey *k = NULL;
	lab_err err;

	lab_err_clear(&err);
	if (!t_ok(file, line, path, wss_privkey_load(path, &k, &err), &err))
		return NULL;
	return k;
}

wss_cert *t_cert_at(const char *file, int line, const char *path)
{
	wss_cert *c = NULL;
	lab_err err;

	lab_err_clear(&err);
	if (!t_ok(file, line, path, wss_cert_load(path, &c, &err), &err))
		return NULL;
	return c;
}
