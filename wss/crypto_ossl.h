/*
 * crypto_ossl.h - what the crypto files (cert.c, digest.c, rsa.c,
 * cipher.c) share over OpenSSL 3's EVP interface: the key and
 * certificate structs behind crypto.h's opaque types, and the failure
 * policy.
 *
 * OpenSSL's error queue is drained on every failure, so a rejected message
 * leaves nothing behind for the next call on the thread to trip over.
 * Failures on received data (verify, unwrap, decrypt) carry fixed
 * messages; failures on our own files carry OpenSSL's reason, which is
 * what someone fixing a key file needs: its text, or its code where the
 * process did not load OpenSSL's error strings (the domlab command line
 * does not; `openssl errstr CODE` names it).
 * Not for: anything outside wss/'s crypto files (the API is crypto.h).
 */
#ifndef WSS_CRYPTO_OSSL_H
#define WSS_CRYPTO_OSSL_H

#include <stdarg.h>
#include <stdio.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "util/err.h"
#include "wss/crypto.h"

/* EVP takes int lengths: longer inputs go in chunks of this many bytes,
 * a multiple of the AES block. */
enum { CHUNK = 1 << 30 };

struct wss_privkey {
	EVP_PKEY *pkey;
};

struct wss_cert {
	X509 *x509;             /* NULL: its bytes only (wss_cert_load_bytes) */
	EVP_PKEY *pub;          /* x509's key, a reference of its own */
	unsigned char *der;
	size_t der_len;
};

/* Records a failure with OpenSSL's reason for it (its text, else its
 * code), and drains the queue. */
static inline int ossl_fail(lab_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline int ossl_fail(lab_err *err, int code, const char *fmt, ...)
{
	char what[256];
	unsigned long e = ERR_peek_last_error();
	const char *reason = e != 0 ? ERR_reason_error_string(e) : NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	ERR_clear_error();
	if (reason != NULL)
		return lab_fail(err, code, "%s (%s)", what, reason);
	if (e != 0)
		return lab_fail(err, code, "%s (OpenSSL error %08lX)", what, e);
	return lab_fail(err, code, "%s", what);
}

/* A failure on received data: a fixed message, whatever OpenSSL said. */
static inline int quiet_fail(lab_err *err, const char *msg)
{
	ERR_clear_error();
	return lab_fail(err, LAB_ESECURITY, "%s", msg);
}

static inline int nomem(lab_err *err)
{
	ERR_clear_error();
	return lab_fail(err, LAB_ENOMEM, "out of memory in crypto");
}

#endif
