/*
 * reload.c - keys=reload: every acquire reads and parses the files again
 * and release frees what it read.  Nothing outlives a message and nothing
 * is shared, so there is nothing to lock.
 */
#include "wss/keys.h"

#include "util/alloc.h"

const char wss__keys_choice[] = "reload";

typedef struct held {
	wss_privkey *key;
	wss_cert *cert;
	wss_cert *peer_cert;
	wss_cert *trust;
} held;

static int load_cert(const char *path, wss_cert **out, lab_err *err)
{
	return path == NULL ? LAB_OK : wss_cert_load(path, out, err);
}

int wss_keys_acquire(const wss_key_paths *paths, wss_keyset *out,
		     void **handle, lab_err *err)
{
	held *h = lab_calloc(1, sizeof *h);
	int rc = LAB_OK;

	*handle = NULL;
	if (h == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory loading keys");
		goto out;
	}
	if (paths->key != NULL)
		rc = wss_privkey_load(paths->key, &h->key, err);
	if (rc == LAB_OK)
		rc = load_cert(paths->cert, &h->cert, err);
	if (rc == LAB_OK)
		rc = load_cert(paths->peer_cert, &h->peer_cert, err);
	if (rc == LAB_OK)
		rc = load_cert(paths->trust, &h->trust, err);
	if (rc != LAB_OK)
		goto out;
	out->key = h->key;
	out->cert = h->cert;
	out->peer_cert = h->peer_cert;
	out->trust = h->trust;
	*handle = h;
	h = NULL;
out:
	wss_keys_release(h);
	return rc;
}

void wss_keys_release(void *handle)
{
	held *h = handle;

	if (h == NULL)
		return;
	wss_privkey_free(h->key);
	wss_cert_free(h->cert);
	wss_cert_free(h->peer_cert);
	wss_cert_free(h->trust);
	lab_free(h);
}

void wss_keys_cache_clear(void)
{
}
