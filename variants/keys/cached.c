/*
 * cached.c - keys=cached: each file is parsed the first time a message
 * names it and kept for the life of the process, keyed by (kind, path),
 * so a path used both as peer_cert and as trust is one object.
 *
 * One mutex guards the list; a miss reads the file while holding it (first
 * messages only), a hit is a short list walk -- a process uses a handful
 * of files.  The objects are never changed after loading, so callers use
 * them without the lock.  A file changed on disk is not seen again: that
 * is the point of caching, and the difference this axis measures.
 */
#include "wss/keys.h"

#include <pthread.h>
#include <string.h>

#include "util/alloc.h"

const char wss__keys_choice[] = "cached";

typedef struct entry {
	struct entry *next;
	char *path;
	wss_privkey *key;   /* exactly one of key and cert is set */
	wss_cert *cert;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *cache;    /* guarded by lock */

static void entry_free(entry *e)
{
	if (e == NULL)
		return;
	wss_privkey_free(e->key);
	wss_cert_free(e->cert);
	lab_free(e->path);
	lab_free(e);
}

/* Finds or loads (path, kind); the caller holds lock.  NULL path: nothing. */
static int get(const char *path, int want_key, entry **found, lab_err *err)
{
	entry *e;
	int rc;

	*found = NULL;
	if (path == NULL)
		return LAB_OK;
	for (e = cache; e != NULL; e = e->next)
		if ((e->key != NULL) == want_key &&
		    strcmp(e->path, path) == 0) {
			*found = e;
			return LAB_OK;
		}
	e = lab_calloc(1, sizeof *e);
	if (e == NULL || (e->path = lab_strdup(path)) == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory loading keys");
		goto out;
	}
	rc = want_key ? wss_privkey_load(path, &e->key, err)
		      : wss_cert_load(path, &e->cert, err);
	if (rc != LAB_OK)
		goto out;
	e->next = cache;
	cache = e;
	*found = e;
	e = NULL;
out:
	entry_free(e);
	return rc;
}

int wss_keys_acquire(const wss_key_paths *paths, wss_keyset *out,
		     void **handle, lab_err *err)
{
	entry *key = NULL, *cert = NULL, *peer = NULL, *trust = NULL;
	int rc;

	*handle = NULL;
	if (pthread_mutex_lock(&lock) != 0)
		return lab_fail(err, LAB_EUSAGE, "keys cache: cannot lock");
	rc = get(paths->key, 1, &key, err);
	if (rc == LAB_OK)
		rc = get(paths->cert, 0, &cert, err);
	if (rc == LAB_OK)
		rc = get(paths->peer_cert, 0, &peer, err);
	if (rc == LAB_OK)
		rc = get(paths->trust, 0, &trust, err);
	/* Unlocking a mutex this thread holds cannot fail. */
	(void)pthread_mutex_unlock(&lock);
	if (rc != LAB_OK)
		return rc;
	out->key = key != NULL ? key->key : NULL;
	out->cert = cert != NULL ? cert->cert : NULL;
	out->peer_cert = peer != NULL ? peer->cert : NULL;
	out->trust = trust != NULL ? trust->cert : NULL;
	return LAB_OK;
}

void wss_keys_release(void *handle)
{
	(void)handle;
}

void wss_keys_cache_clear(void)
{
	entry *e, *next;

	if (pthread_mutex_lock(&lock) != 0)
		return;
	for (e = cache; e != NULL; e = next) {
		next = e->next;
		entry_free(e);
	}
	cache = NULL;
	(void)pthread_mutex_unlock(&lock);
}
