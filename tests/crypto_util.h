/*
 * crypto_util.h - what the tests of wss/crypto.h and the keys axis share:
 * the public test keys and certificates in tests/vectors/ (VECTORS: the
 * Makefile passes its absolute path as DOMLAB_VECTORS_DIR, so the tests
 * run from any directory; read-only), and loading them as one check each.
 * Not for: the tests themselves (test_sha.c, test_base64.c,
 * test_rsa_aes.c, test_xmlsec_vectors.c, test_keycache.c).
 */
#ifndef TESTS_CRYPTO_UTIL_H
#define TESTS_CRYPTO_UTIL_H

#include "tests/util.h"
#include "wss/crypto.h"

#define VECTORS DOMLAB_VECTORS_DIR
#define KEY_PEM VECTORS "/wss/keys/key.pem"
#define CERT_PEM VECTORS "/wss/keys/cert.pem"
#define CERT_DER VECTORS "/wss/keys/cert.der"
#define OTHER_CERT_PEM VECTORS "/xmlsec/keys/cacert.pem"     /* RSA-2048 */
#define OTHER_KEY_PEM VECTORS "/xmlsec/keys/rsa/rsa-4096-key.pem"
/* RSA-1024 */
#define SMALL_KEY_PEM VECTORS "/xmlsec/merlin-xmlenc-five/rsapriv.pem"
#define E1 \
	VECTORS "/xmlsec/01-phaos-xmlenc-3/enc-element-aes128-kt-rsa_oaep_sha1"


/* Each a passed check, or a failed one at file:line. */
int t_read_file_at(const char *file, int line, const char *path,
		   lab_buf *out);
wss_privkey *t_key_at(const char *file, int line, const char *path);
wss_cert *t_cert_at(const char *file, int line, const char *path);
#define READ_FILE(path, out) t_read_file_at(__FILE__, __LINE__, (path), (out))
#define LOAD_KEY(path) t_key_at(__FILE__, __LINE__, (path))
#define LOAD_CERT(path) t_cert_at(__FILE__, __LINE__, (path))

#endif
