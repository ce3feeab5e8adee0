/*
 * digest.c - SHA-256 (one-shot and incremental) and SHA-1 over EVP, and the
 * constant-time comparison digests are checked with.
 * Not for: signatures over a digest (rsa.c), HMAC or other digests (the
 * profile has none).
 */
#include <openssl/crypto.h>

#include "util/alloc.h"
#include "wss/crypto_ossl.h"

struct wss_sha256_ctx {
	EVP_MD *md;             /* fetched once, so reuse skips the lookup */
	EVP_MD_CTX *ctx;
};

void wss_sha256_free(wss_sha256_ctx *h)
{
	if (h == NULL)
		return;
	EVP_MD_CTX_free(h->ctx);
	EVP_MD_free(h->md);
	lab_free(h);
}

int wss_sha256_new(wss_sha256_ctx **out, lab_err *err)
{
	wss_sha256_ctx *h = lab_calloc(1, sizeof *h);
	int rc = LAB_OK;

	if (h == NULL) {
		rc = nomem(err);
		goto out;
	}
	h->md = EVP_MD_fetch(NULL, "SHA256", NULL);
	h->ctx = EVP_MD_CTX_new();
	if (h->md == NULL || h->ctx == NULL ||
	    EVP_DigestInit_ex2(h->ctx, h->md, NULL) != 1) {
		rc = ossl_fail(err, LAB_ENOMEM, "cannot set up SHA-256");
		goto out;
	}
	*out = h;
	h = NULL;
out:
	wss_sha256_free(h);
	return rc;
}

int wss_sha256_update(wss_sha256_ctx *h, const void *p, size_t n)
{
	if (EVP_DigestUpdate(h->ctx, p, n) != 1) {
		ERR_clear_error();
		return LAB_ENOMEM;
	}
	return LAB_OK;
}

int wss_sha256_final(wss_sha256_ctx *h, unsigned char out[WSS_SHA256_LEN])
{
	unsigned int len = 0;

	if (EVP_DigestFinal_ex(h->ctx, out, &len) != 1 ||
	    len != WSS_SHA256_LEN ||
	    EVP_DigestInit_ex2(h->ctx, h->md, NULL) != 1) {
		ERR_clear_error();
		return LAB_ENOMEM;
	}
	return LAB_OK;
}

static int digest(const EVP_MD *md, const void *p, size_t n,
		  unsigned char *out, unsigned int want)
{
	unsigned int len = 0;

	if (EVP_Digest(p, n, out, &len, md, NULL) != 1 || len != want) {
		ERR_clear_error();
		return LAB_ENOMEM;
	}
	return LAB_OK;
}

int wss_sha256(const void *p, size_t n, unsigned char out[WSS_SHA256_LEN])
{
	return digest(EVP_sha256(), p, n, out, WSS_SHA256_LEN);
}

int wss_sha1(const void *p, size_t n, unsigned char out[WSS_SHA1_LEN])
{
	return digest(EVP_sha1(), p, n, out, WSS_SHA1_LEN);
}

int wss_ct_equal(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}
