/*
 * keyfile.c - keys and certificates out of PEM files.
 *
 * OpenSSL 3's generic PEM decoder tries every format and key type through
 * its decoder chains; for one RSA key that costs more instructions than a
 * whole small message (docs/measuring.md).  The files this lab makes and
 * uses are one unencrypted block, so their usual shapes take a direct
 * path: the block's base64 decoded with OpenSSL's decoder, then
 *
 *   PRIVATE KEY (PKCS#8) and RSA PRIVATE KEY (PKCS#1): the RSAPrivateKey
 *     read with OpenSSL's ASN.1 parser and its numbers handed to the RSA
 *     key manager (EVP_PKEY_fromdata);
 *   CERTIFICATE: d2i_X509, or, for a certificate that is only carried
 *     (wss__keyfile_cert_der), its bytes when they are one whole DER
 *     SEQUENCE: what is in it is the receiver's to check.
 *
 * d2i_X509 decodes the certificate's public key through OpenSSL 3's
 * decoders, and the first decode in a process builds every decoder the
 * providers offer: 1.9 M instructions, more than signing a small message
 * apart from the RSA operation.  So certificates are parsed in a library
 * context that holds only the null provider, where that decode finds no
 * decoder and leaves the key unread; wss__keyfile_cert_key then reads an
 * RSA key's two numbers (RFC 8017 A.1.1) as the private key's are read,
 * and hands any other key type to OpenSSL's decoders in the default
 * context, which decide and give the error.  Nothing else in a parsed
 * certificate is used with that context: names, serial numbers and
 * extensions need no provider.
 *
 * Anything else, or anything the direct path does not take whole (other
 * labels, headers such as an encrypted key's, other key types, trailing
 * bytes), goes to OpenSSL's PEM reader, which decides and gives the error:
 * the direct path never accepts what the reader would refuse (except a
 * carried certificate's contents, which it does not read), nor refuses
 * what it would accept.
 * Not for: reading or bounding the file (cert.c), key checks (cert.c).
 */
#include "wss/keyfile.h"

#include <limits.h>
#include <string.h>

#include <openssl/asn1.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/x509v3.h>

/*
 * The base64 between the armour of pem's first block when that block is
 * label's and holds nothing else (no "Name: value" headers); NULL when it
 * is not.  OpenSSL's PEM reader takes the first block whose label it
 * accepts, so where this finds one the reader would read the same bytes.
 */
static const char *armoured(const lab_buf *pem, const char *label, size_t *n)
{
	static const char begin[] = "-----BEGIN ", end[] = "-----END ";
	const char *stop = pem->data + pem->len, *s, *body;
	size_t ln = strlen(label);

	s = memmem(pem->data, pem->len, begin, sizeof begin - 1);
	if (s == NULL || (s != pem->data && s[-1] != '\n'))
		return NULL;
	s += sizeof begin - 1;
	if ((size_t)(stop - s) < ln + 6 || memcmp(s, label, ln) != 0 ||
	    memcmp(s + ln, "-----\n", 6) != 0)
		return NULL;
	body = s + ln + 6;
	for (s = body; s < stop && *s != '-'; s++)
		if (*s == ':')
			return NULL;
	if ((size_t)(stop - s) < sizeof end - 1 + ln + 5 ||
	    memcmp(s, end, sizeof end - 1) != 0 ||
	    memcmp(s + sizeof end - 1, label, ln) != 0 ||
	    memcmp(s + sizeof end - 1 + ln, "-----", 5) != 0)
		return NULL;
	*n = (size_t)(s - body);
	return body;
}

/*
 * The bytes label's block encodes, into der, reserved once so a private
 * key's bytes land in one block for the caller to wipe; 0 when pem has no
 * such block or its base64 is broken.
 */
static int pem_der(const lab_buf *pem, const char *label, lab_buf *der)
{
	size_t n;
	const char *b64 = armoured(pem, label, &n);
	EVP_ENCODE_CTX *ctx;
	int got, last, ok = 0;

	if (b64 == NULL || n == 0 || n > INT_MAX ||
	    lab_buf_reserve(der, n) != LAB_OK)
		return 0;
	ctx = EVP_ENCODE_CTX_new();
	if (ctx == NULL)
		return 0;
	EVP_DecodeInit(ctx);
	der->len = 0;
	if (EVP_DecodeUpdate(ctx, (unsigned char *)der->data, &got,
			     (const unsigned char *)b64, (int)n) >= 0 &&
	    EVP_DecodeFinal(ctx, (unsigned char *)der->data + got, &last) ==
		    1) {
		der->len = (size_t)got + (size_t)last;
		ok = der->len > 0;
	}
	EVP_ENCODE_CTX_free(ctx);
	return ok;
}

/* RSAPrivateKey's numbers after its version, in order (RFC 8017 A.1.2). */
static const char *const rsa_names[] = {
	OSSL_PKEY_PARAM_RSA_N,         OSSL_PKEY_PARAM_RSA_E,
	OSSL_PKEY_PARAM_RSA_D,         OSSL_PKEY_PARAM_RSA_FACTOR1,
	OSSL_PKEY_PARAM_RSA_FACTOR2,   OSSL_PKEY_PARAM_RSA_EXPONENT1,
	OSSL_PKEY_PARAM_RSA_EXPONENT2, OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
};
enum { RSA_NUMS = sizeof rsa_names / sizeof rsa_names[0] };

/* Whether seq is a two-prime RSAPrivateKey: version 0, then the numbers,
 * none negative. */
static int rsa_shape(const STACK_OF(ASN1_TYPE) *seq)
{
	int i;

	if (sk_ASN1_TYPE_num(seq) != RSA_NUMS + 1)
		return 0;
	for (i = 0; i <= RSA_NUMS; i++) {
		const ASN1_TYPE *t = sk_ASN1_TYPE_value(seq, i);

		if (t->type != V_ASN1_INTEGER)
			return 0;
	}
	return ASN1_INTEGER_get(sk_ASN1_TYPE_value(seq, 0)->value.integer) ==
	       0;
}

/*
 * The key made by the RSA key manager of seq's numbers from index first on,
 * named as rsa_names' first n (a key pair's eight or a public key's two),
 * or NULL.
 */
static EVP_PKEY *rsa_build(const STACK_OF(ASN1_TYPE) *seq, int first, int n,
			   int selection)
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	BIGNUM *bn[RSA_NUMS] = {NULL};
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pk = NULL;
	int i, ok = bld != NULL;

	for (i = 0; ok && i < n; i++) {
		const ASN1_TYPE *t = sk_ASN1_TYPE_value(seq, first + i);

		/* Secure: the parameters' copy is then wiped when freed. */
		bn[i] = BN_secure_new();
		ok = bn[i] != NULL &&
		     ASN1_INTEGER_to_BN(t->value.integer, bn[i]) != NULL &&
		     !BN_is_negative(bn[i]) &&
		     OSSL_PARAM_BLD_push_BN(bld, rsa_names[i], bn[i]) == 1;
	}
	if (ok && (params = OSSL_PARAM_BLD_to_param(bld)) != NULL &&
	    (ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) != NULL &&
	    EVP_PKEY_fromdata_init(ctx) == 1 &&
	    EVP_PKEY_fromdata(ctx, &pk, selection, params) != 1)
		pk = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	for (i = 0; i < n; i++)
		BN_clear_free(bn[i]);
	return pk;
}

/* The RSA key a whole RSAPrivateKey encoding holds, or NULL. */
static EVP_PKEY *rsa_pkcs1(const unsigned char *der, long n)
{
	const unsigned char *p = der;
	STACK_OF(ASN1_TYPE) *seq = d2i_ASN1_SEQUENCE_ANY(NULL, &p, n);
	EVP_PKEY *pk = NULL;

	if (seq != NULL && p == der + n && rsa_shape(seq))
		pk = rsa_build(seq, 1, RSA_NUMS, EVP_PKEY_KEYPAIR);
	sk_ASN1_TYPE_pop_free(seq, ASN1_TYPE_free);
	return pk;
}

/* The RSA key a whole PKCS#8 PrivateKeyInfo holds, or NULL. */
static EVP_PKEY *rsa_pkcs8(const unsigned char *der, long n)
{
	const unsigned char *p = der, *key;
	PKCS8_PRIV_KEY_INFO *p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &p, n);
	const ASN1_OBJECT *alg;
	EVP_PKEY *pk = NULL;
	int klen;

	if (p8 != NULL && p == der + n &&
	    PKCS8_pkey_get0(&alg, &key, &klen, NULL, p8) == 1 &&
	    OBJ_obj2nid(alg) == NID_rsaEncryption)
		pk = rsa_pkcs1(key, klen);
	PKCS8_PRIV_KEY_INFO_free(p8);
	return pk;
}

/*
 * OpenSSL's default would prompt on the terminal for an encrypted key's
 * passphrase; a pipeline must fail instead.
 */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

EVP_PKEY *wss__keyfile_privkey(const lab_buf *pem, lab_buf *der)
{
	EVP_PKEY *pk = NULL;
	BIO *bio;

	if (pem_der(pem, "PRIVATE KEY", der))
		pk = rsa_pkcs8((unsigned char *)der->data, (long)der->len);
	else if (pem_der(pem, "RSA PRIVATE KEY", der))
		pk = rsa_pkcs1((unsigned char *)der->data, (long)der->len);
	ERR_clear_error();
	if (pk != NULL)
		return pk;
	bio = BIO_new_mem_buf(pem->data, (int)pem->len);
	if (bio == NULL)
		return NULL;
	pk = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
	BIO_free(bio);
	return pk;
}

int wss__keyfile_cert_der(const lab_buf *pem, lab_buf *der)
{
	const unsigned char *p;
	long len;
	int tag, cls, ok;

	if (!pem_der(pem, "CERTIFICATE", der))
		return 0;
	p = (const unsigned char *)der->data;
	ok = ASN1_get_object(&p, &len, &tag, &cls, (long)der->len) ==
		     V_ASN1_CONSTRUCTED &&
	     tag == V_ASN1_SEQUENCE && cls == V_ASN1_UNIVERSAL &&
	     p + len == (const unsigned char *)der->data + der->len;
	ERR_clear_error();
	return ok;
}

static OSSL_LIB_CTX *parse_only;  /* per process: see the header comment */

static void parse_only_init(void)
{
	OSSL_LIB_CTX *ctx = OSSL_LIB_CTX_new();

	/* A context with no provider loaded would load the default one at
	 * its first fetch; the null provider stops that. */
	if (ctx != NULL && OSSL_PROVIDER_load(ctx, "null") == NULL) {
		OSSL_LIB_CTX_free(ctx);
		ctx = NULL;
	}
	parse_only = ctx;
}

X509 *wss__keyfile_d2i_x509(const unsigned char **pp, long len)
{
	static CRYPTO_ONCE once = CRYPTO_ONCE_STATIC_INIT;
	X509 *x;

	if (!CRYPTO_THREAD_run_once(&once, parse_only_init) ||
	    parse_only == NULL || (x = X509_new_ex(parse_only, NULL)) == NULL)
		return NULL;
	/* A failed d2i_X509 frees x and sets it to NULL, except when the
	 * certificate parsed and its extensions did not. */
	if (d2i_X509(&x, pp, len) == NULL) {
		X509_free(x);
		return NULL;
	}
	/* OpenSSL caches the extensions at the first question about them,
	 * with the certificate's SHA-1 fingerprint, which needs a provider:
	 * that first answer is "failed" whatever the extensions.  Asking
	 * once here leaves later answers (the SKI, whether the extensions
	 * are valid) to the extensions alone.  Nothing here uses the
	 * fingerprint (X509_cmp would). */
	(void)X509_get_extension_flags(x);
	ERR_clear_error();
	return x;
}

/* The certificate a whole DER encoding holds, or NULL. */
static X509 *cert_der(const lab_buf *der)
{
	const unsigned char *p = (const unsigned char *)der->data;
	X509 *x = der->len <= LONG_MAX
			  ? wss__keyfile_d2i_x509(&p, (long)der->len)
			  : NULL;

	if (x != NULL && p != (const unsigned char *)der->data + der->len) {
		X509_free(x);
		x = NULL;
	}
	return x;
}

/* The RSA public key that a whole RSAPublicKey encoding holds, or NULL. */
static EVP_PKEY *rsa_public(const unsigned char *der, int n)
{
	const unsigned char *p = der;
	STACK_OF(ASN1_TYPE) *seq = d2i_ASN1_SEQUENCE_ANY(NULL, &p, n);
	EVP_PKEY *pk = NULL;

	if (seq != NULL && p == der + n && sk_ASN1_TYPE_num(seq) == 2 &&
	    sk_ASN1_TYPE_value(seq, 0)->type == V_ASN1_INTEGER &&
	    sk_ASN1_TYPE_value(seq, 1)->type == V_ASN1_INTEGER)
		pk = rsa_build(seq, 0, 2, EVP_PKEY_PUBLIC_KEY);
	sk_ASN1_TYPE_pop_free(seq, ASN1_TYPE_free);
	return pk;
}

EVP_PKEY *wss__keyfile_cert_key(const X509 *x)
{
	const X509_PUBKEY *xpk = X509_get_X509_PUBKEY(x);
	const unsigned char *bits, *q;
	unsigned char *spki = NULL;
	ASN1_OBJECT *alg;
	EVP_PKEY *pk = NULL;
	int n;

	if (xpk == NULL ||
	    X509_PUBKEY_get0_param(&alg, &bits, &n, NULL, xpk) != 1)
		return NULL;
	if (OBJ_obj2nid(alg) == NID_rsaEncryption)
		pk = rsa_public(bits, n);
	if (pk != NULL)
		return pk;
	ERR_clear_error();
	n = i2d_X509_PUBKEY(xpk, &spki);
	q = spki;
	if (n > 0)
		pk = d2i_PUBKEY(NULL, &q, n);
	OPENSSL_free(spki);
	return pk;
}

X509 *wss__keyfile_cert(const lab_buf *pem, lab_buf *der)
{
	X509 *x = pem_der(pem, "CERTIFICATE", der) ? cert_der(der) : NULL;
	BIO *bio;

	ERR_clear_error();
	if (x != NULL)
		return x;
	bio = BIO_new_mem_buf(pem->data, (int)pem->len);
	if (bio == NULL)
		return NULL;
	x = PEM_read_bio_X509(bio, NULL, no_passphrase, NULL);
	BIO_free(bio);
	return x;
}
