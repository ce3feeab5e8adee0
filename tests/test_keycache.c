/*
 * test_keycache.c - the keys axis (wss/keys.h): what a keyset holds and
 * when it is loaded again (cached: once per set of paths; reload: every
 * time), a missing file's error, and many threads acquiring at once.
 * Not tested here: the keys and certificates themselves (test_rsa_aes.c).
 */
#include <pthread.h>

#include "tests/crypto_util.h"
#include "wss/keys.h"


static const wss_key_paths all_paths = {KEY_PEM, CERT_PEM, CERT_PEM,
					OTHER_CERT_PEM};

static void keys_acquire(void)
{
	int cached = strcmp(wss__keys_choice, "cached") == 0;
	wss_keyset a = {0}, b = {0}, none = {0};
	wss_key_paths only = {NULL, CERT_PEM, NULL, NULL};
	wss_key_paths missing = {KEY_PEM, VECTORS "/nonexistent.pem", NULL,
				 NULL};
	void *ha = NULL, *hb = NULL, *hn = NULL;
	wss_cert *mine;
	lab_buf sig = LAB_BUF_INIT;
	lab_err err;

	lab_err_clear(&err);
	CHECK(cached || strcmp(wss__keys_choice, "reload") == 0);
	if (!CHECK_OK(wss_keys_acquire(&all_paths, &a, &ha, &err), &err) ||
	    !CHECK_OK(wss_keys_acquire(&all_paths, &b, &hb, &err), &err))
		goto out;
	if (!CHECK(a.key && a.cert && a.peer_cert && a.trust && b.key &&
		   b.cert && b.peer_cert && b.trust))
		goto out;
	CHECK(wss_cert_equal(a.cert, b.cert));
	CHECK(wss_cert_equal(a.cert, a.peer_cert));
	CHECK(wss_cert_equal(a.trust, b.trust));
	CHECK(!wss_cert_equal(a.cert, a.trust));
	if (cached) {
		/* One object per (kind, path), whoever asks. */
		CHECK(a.key == b.key && a.cert == b.cert && a.trust == b.trust);
		CHECK(a.cert == a.peer_cert);
	} else {
		CHECK(a.key != b.key && a.cert != b.cert && a.cert != a.peer_cert);
	}
	/* The keys work: one set signs, the other verifies. */
	if (CHECK_OK(wss_rsa_sign_sha256(a.key, "m", 1, &sig, &err), &err))
		CHECK_OK(wss_rsa_verify_sha256(b.cert, "m", 1,
					       (unsigned char *)sig.data,
					       sig.len, &err), &err);

	t_context("NULL paths give NULL");
	if (CHECK_OK(wss_keys_acquire(&only, &none, &hn, &err), &err))
		CHECK(none.key == NULL && none.cert != NULL &&
		      none.peer_cert == NULL && none.trust == NULL);
	wss_keys_release(hn);
	t_context("a missing file");
	hn = &hn;
	CHECK_EQ_INT(wss_keys_acquire(&missing, &none, &hn, &err), LAB_EIO);
	CHECK(hn == NULL);
out:
	lab_buf_free(&sig);
	wss_keys_release(ha);
	wss_keys_release(hb);
	wss_keys_cache_clear();
	/* After a clear, the files are read again. */
	t_context("after a clear");
	mine = LOAD_CERT(CERT_PEM);
	if (CHECK_OK(wss_keys_acquire(&all_paths, &a, &ha, &err), &err) &&
	    mine != NULL)
		CHECK(wss_cert_equal(a.cert, mine));
	wss_keys_release(ha);
	wss_keys_cache_clear();
	wss_cert_free(mine);
}

typedef struct job {
	wss_keyset set;
	void *handle;
	int rc;
	lab_err err;
} job;

static void *acquire_job(void *arg)
{
	job *j = arg;

	lab_err_clear(&j->err);
	j->rc = wss_keys_acquire(&all_paths, &j->set, &j->handle, &j->err);
	return NULL;
}

/* Threads acquiring at once all get good keys (cached: the same ones). */
static void keys_threads(void)
{
	enum { NT = 8 };
	pthread_t th[NT];
	job jobs[NT];
	int started[NT], i;
	lab_buf sig = LAB_BUF_INIT;
	lab_err err;

	memset(jobs, 0, sizeof jobs);
	for (i = 0; i < NT; i++)
		started[i] = CHECK(pthread_create(&th[i], NULL, acquire_job,
						  &jobs[i]) == 0);
	for (i = 0; i < NT; i++)
		if (started[i])
			CHECK(pthread_join(th[i], NULL) == 0);
	for (i = 0; i < NT; i++) {
		t_context("thread %d", i);
		if (!started[i] || !CHECK_OK(jobs[i].rc, &jobs[i].err))
			continue;
		CHECK(wss_cert_equal(jobs[i].set.cert, jobs[0].set.cert));
		if (strcmp(wss__keys_choice, "cached") == 0)
			CHECK(jobs[i].set.key == jobs[0].set.key);
		lab_buf_free(&sig);
		lab_err_clear(&err);
		if (CHECK_OK(wss_rsa_sign_sha256(jobs[i].set.key, "t", 1, &sig,
						 &err), &err))
			CHECK_OK(wss_rsa_verify_sha256(jobs[0].set.cert, "t", 1,
						       (unsigned char *)sig.data,
						       sig.len, &err), &err);
	}
	for (i = 0; i < NT; i++)
		if (started[i] && jobs[i].rc == LAB_OK)
			wss_keys_release(jobs[i].handle);
	lab_buf_free(&sig);
	wss_keys_cache_clear();
}

const t_case tests_keycache[] = {
	{"crypto/keys_acquire", keys_acquire},
	{"crypto/keys_threads", keys_threads},
	{NULL, NULL},
};
