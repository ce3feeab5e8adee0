/*
 * keyfile.h - the objects in a key or certificate file's bytes, for
 * wss/cert.c: a direct DER path for the usual files, OpenSSL's PEM
 * reader for the rest.
 *
 * Not for: reading the file (cert.c bounds its size and wipes it), or
 * checking what the key is (cert.c's check_rsa).
 */
#ifndef WSS_KEYFILE_H
#define WSS_KEYFILE_H

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "util/buf.h"
#include "util/err.h"

/*
 * The private key in pem (NUL-terminated), or NULL with OpenSSL's reason
 * on its error queue.  der is scratch for the decoded bytes, which the
 * caller wipes.  Never asks for a passphrase: an encrypted key fails.
 */
EVP_PKEY *wss__keyfile_privkey(const lab_buf *pem, lab_buf *der);

/* The first certificate in pem, or NULL as wss__keyfile_privkey. */
X509 *wss__keyfile_cert(const lab_buf *pem, lab_buf *der);

/*
 * d2i_X509(NULL, pp, len), except that the certificate's public key is not
 * decoded (keyfile.c says why): take it with wss__keyfile_cert_key.
 */
X509 *wss__keyfile_d2i_x509(const unsigned char **pp, long len);

/* A new reference to x's public key, or NULL when it cannot be read. */
EVP_PKEY *wss__keyfile_cert_key(const X509 *x);

/*
 * 1 with der holding the bytes of pem's first block when it is a
 * CERTIFICATE block the direct path takes and they are one whole DER
 * SEQUENCE, not parsed further; 0 when not (wss__keyfile_cert decides).
 */
int wss__keyfile_cert_der(const lab_buf *pem, lab_buf *der);

#endif
