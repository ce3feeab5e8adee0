/*
 * rsa.c - RSA with the profile's parameters: RSA-SHA256 signatures
 * (PKCS#1 v1.5) and RSA-OAEP key transport (rsa-oaep-mgf1p: SHA-1 for
 * OAEP and MGF1, empty label).
 * Not for: loading or checking keys (cert.c), the data cipher
 * (cipher.c).
 */
#include <openssl/rsa.h>

#include "util/alloc.h"
#include "wss/crypto_ossl.h"

/* ---- signatures -------------------------------------------------------- */

int wss_rsa_sign_sha256(const wss_privkey *k, const void *data, size_t n,
			lab_buf *sig, lab_err *err)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pc = NULL;  /* owned by md */
	size_t len = wss_rsa_sig_len(k);
	int rc = LAB_OK;

	if (md == NULL || lab_buf_reserve(sig, len) != LAB_OK) {
		rc = nomem(err);
		goto out;
	}
	/* PKCS#1 v1.5 is OpenSSL's default for RSA; set anyway, since the
	 * URI names exactly this padding. */
	if (EVP_DigestSignInit_ex(md, &pc, "SHA256", NULL, NULL, k->pkey,
				  NULL) != 1 ||
	    EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PADDING) != 1 ||
	    EVP_DigestSign(md, (unsigned char *)sig->data + sig->len, &len,
			   data, n) != 1) {
		rc = ossl_fail(err, LAB_ESECURITY, "RSA-SHA256 signing failed");
		goto out;
	}
	sig->len += len;
out:
	if (sig->data != NULL)
		sig->data[sig->len] = '\0';
	EVP_MD_CTX_free(md);
	return rc;
}

size_t wss_rsa_sig_len(const wss_privkey *k)
{
	return (size_t)EVP_PKEY_get_size(k->pkey);
}

int wss_rsa_verify_sha256(const wss_cert *c, const void *data, size_t n,
			  const unsigned char *sig, size_t siglen, lab_err *err)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pc = NULL;  /* owned by md */
	int rc = LAB_OK;

	if (md == NULL) {
		rc = nomem(err);
		goto out;
	}
	if (EVP_DigestVerifyInit_ex(md, &pc, "SHA256", NULL, NULL, c->pub,
				    NULL) != 1 ||
	    EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PADDING) != 1) {
		rc = ossl_fail(err, LAB_ESECURITY,
			       "cannot set up RSA-SHA256 verification");
		goto out;
	}
	/* 0 is a wrong signature, < 0 one OpenSSL could not even parse
	 * (wrong length): the same thing to a receiver. */
	if (EVP_DigestVerify(md, sig, siglen, data, n) != 1)
		rc = quiet_fail(err, "signature value does not verify");
out:
	EVP_MD_CTX_free(md);
	return rc;
}

/* ---- key transport ----------------------------------------------------- */

/*
 * rsa-oaep-mgf1p: SHA-1 for both the OAEP digest and MGF1, empty label.
 * Set explicitly rather than trusting OpenSSL's defaults to be the spec's.
 */
static int oaep_params(EVP_PKEY_CTX *pc)
{
	return EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_OAEP_PADDING) == 1 &&
	       EVP_PKEY_CTX_set_rsa_oaep_md(pc, EVP_sha1()) == 1 &&
	       EVP_PKEY_CTX_set_rsa_mgf1_md(pc, EVP_sha1()) == 1;
}

int wss_rsa_oaep_wrap(const wss_cert *c, const unsigned char *key,
		      size_t keylen, lab_buf *out, lab_err *err)
{
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(NULL, c->pub, NULL);
	size_t len = (size_t)EVP_PKEY_get_size(c->pub);
	int rc = LAB_OK;

	if (keylen == 0) {
		rc = lab_fail(err, LAB_EUSAGE, "no key to wrap");
		goto out;
	}
	if (pc == NULL || lab_buf_reserve(out, len) != LAB_OK) {
		rc = nomem(err);
		goto out;
	}
	if (EVP_PKEY_encrypt_init(pc) != 1 || !oaep_params(pc) ||
	    EVP_PKEY_encrypt(pc, (unsigned char *)out->data + out->len, &len,
			     key, keylen) != 1) {
		rc = ossl_fail(err, LAB_ESECURITY, "RSA-OAEP key wrap failed");
		goto out;
	}
	out->len += len;
out:
	if (out->data != NULL)
		out->data[out->len] = '\0';
	EVP_PKEY_CTX_free(pc);
	return rc;
}

int wss_rsa_oaep_unwrap(const wss_privkey *k, const unsigned char *in,
			size_t n, unsigned char *key, size_t cap,
			size_t *keylen, lab_err *err)
{
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(NULL, k->pkey, NULL);
	size_t size = (size_t)EVP_PKEY_get_size(k->pkey), len = size;
	/* OpenSSL wants room for a modulus-sized result, however short the
	 * key inside; this buffer holds it so key[] needs only cap. */
	unsigned char *tmp = lab_malloc(size);
	int rc = LAB_OK;

	if (pc == NULL || tmp == NULL) {
		rc = nomem(err);
		goto out;
	}
	if (EVP_PKEY_decrypt_init(pc) != 1 || !oaep_params(pc)) {
		rc = ossl_fail(err, LAB_ESECURITY, "cannot set up RSA-OAEP");
		goto out;
	}
	if (EVP_PKEY_decrypt(pc, tmp, &len, in, n) != 1 || len > cap) {
		rc = quiet_fail(err, "key unwrap failed");
		goto out;
	}
	memcpy(key, tmp, len);
	*keylen = len;
out:
	if (tmp != NULL) {
		OPENSSL_cleanse(tmp, size);
		lab_free(tmp);
	}
	EVP_PKEY_CTX_free(pc);
	return rc;
}
