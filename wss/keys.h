/*
 * keys.h - the `keys` axis: how the pipeline gets its keys and
 * certificates for a message.
 *
 *   reload  reads and parses the PEM files for every message, as Rampart
 *           (2010) rebuilt its crypto objects per request;
 *   cached  parses each file once per process, keyed by its path, behind
 *           a mutex, and hands every caller the same objects.
 *
 * Both give identical keys for the same files.  The objects are read-only
 * to the pipeline and may be used from several threads at once.
 * Not for: choosing which files (the command line's business) or trust
 * decisions (the receiver compares against `trust`).
 */
#ifndef WSS_KEYS_H
#define WSS_KEYS_H

#include "wss/crypto.h"

/* Files to read; NULL for what a command does not need. */
typedef struct wss_key_paths {
	const char *key;        /* own private key (sign, decrypt) */
	const char *cert;       /* own certificate (the BinarySecurityToken) */
	const char *peer_cert;  /* recipient's certificate (encrypt) */
	const char *trust;      /* the one trusted sender's certificate */
} wss_key_paths;

/* What was read; NULL where the path was NULL. */
typedef struct wss_keyset {
	const wss_privkey *key;
	const wss_cert *cert;
	const wss_cert *peer_cert;
	const wss_cert *trust;
} wss_keyset;

/*
 * Fills *out and sets *handle for wss_keys_release.  Fails as
 * wss_privkey_load / wss_cert_load do for the first file that fails;
 * then *out is untouched and *handle is NULL.
 */
int wss_keys_acquire(const wss_key_paths *paths, wss_keyset *out,
		     void **handle, lab_err *err);

/* Ends the use of a keyset (NULL is fine).  reload: frees it; cached:
 * nothing. */
void wss_keys_release(void *handle);

/* cached: frees the process cache, so a leak checker sees nothing at exit;
 * no keyset may be in use.  reload: nothing. */
void wss_keys_cache_clear(void);

extern const char wss__keys_choice[];   /* "reload" / "cached" */

#endif
