/*
 * crypto.c - the profile's cryptography over OpenSSL 3's EVP interface
 * (no deprecated calls: builds with OPENSSL_NO_DEPRECATED).
 *
 * OpenSSL's error queue is drained on every failure, so a rejected message
 * leaves nothing behind for the next call on the thread to trip over.
 * Failures on received data (verify, unwrap, decrypt) carry fixed
 * messages; failures on our own files carry OpenSSL's reason, which is
 * what someone fixing a key file needs: its text, or its code where the
 * process did not load OpenSSL's error strings (the domlab command line
 * does not; `openssl errstr CODE` names it).
 * Not for: XML, base64, trust decisions beyond "same certificate".
 */
#include "wss/crypto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "util/alloc.h"
#include "wss/keyfile.h"

enum {
	RSA_MIN_BITS = 2048,
	FILE_MAX = 1 << 20,     /* PEM keys and certificates are far smaller */
	GCM_IV = 12,            /* xmlenc11#aes256-gcm: 96-bit IV, */
	GCM_TAG = 16,           /* 128-bit tag */
	BLOCK = 16,             /* AES; the CBC IV is one block */
	CHUNK = 1 << 30         /* EVP takes int lengths; a multiple of BLOCK */
};

_Static_assert((int)WSS_IV_ROOM >= GCM_IV && (int)WSS_IV_ROOM >= BLOCK,
	       "WSS_IV_ROOM holds every IV");
_Static_assert((int)WSS_TAIL_ROOM >= GCM_TAG && (int)WSS_TAIL_ROOM >= BLOCK,
	       "WSS_TAIL_ROOM holds every tag and padding");

struct wss_privkey {
	EVP_PKEY *pkey;
};

struct wss_cert {
	X509 *x509;             /* NULL: its bytes only (wss_cert_load_bytes) */
	EVP_PKEY *pub;          /* x509's key, a reference of its own */
	unsigned char *der;
	size_t der_len;
};

struct wss_sha256_ctx {
	EVP_MD *md;             /* fetched once, so reuse skips the lookup */
	EVP_MD_CTX *ctx;
};

static const struct {
	const char *uri;
	const char *name;
	size_t key_len;
} ciphers[] = {
	[WSS_AES256_GCM] = {"http://www.w3.org/2009/xmlenc11#aes256-gcm",
			    "aes256-gcm", 32},
	[WSS_AES128_CBC] = {"http://www.w3.org/2001/04/xmlenc#aes128-cbc",
			    "aes128-cbc", 16},
};

static int is_cipher(wss_cipher c)
{
	return (unsigned)c < sizeof ciphers / sizeof ciphers[0];
}

/* Records a failure with OpenSSL's reason for it (its text, else its
 * code), and drains the queue. */
static int ossl_fail(lab_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ossl_fail(lab_err *err, int code, const char *fmt, ...)
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
static int quiet_fail(lab_err *err, const char *msg)
{
	ERR_clear_error();
	return lab_fail(err, LAB_ESECURITY, "%s", msg);
}

static int nomem(lab_err *err)
{
	ERR_clear_error();
	return lab_fail(err, LAB_ENOMEM, "out of memory in crypto");
}

/* ---- files ------------------------------------------------------------- */

static int too_big(const char *path, lab_err *err)
{
	return lab_fail(err, LAB_EMALFORMED,
			"%s: over %d bytes, not a key or certificate", path,
			FILE_MAX);
}

/*
 * Reads a whole key or certificate file.  Plain read(2) into a buffer
 * sized from the file's length, so a private key's bytes land in exactly
 * one block (no stdio buffer, no blocks given up by a growing buffer),
 * which the caller wipes.
 */
static int read_small_file(const char *path, lab_buf *b, lab_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int rc = LAB_OK;

	if (fd < 0)
		return lab_fail(err, LAB_EIO, "cannot open %s: %s", path,
				strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = lab_fail(err, LAB_EIO, "cannot read %s: %s", path,
			      strerror(errno));
		goto out;
	}
	if (st.st_size > FILE_MAX) {
		rc = too_big(path, err);
		goto out;
	}
	for (;;) {
		ssize_t got;

		/* Grows only when full: never for a regular file, whose size
		 * was known; as it comes for a pipe, which reports 0. */
		if (b->len + 1 >= b->cap &&
		    lab_buf_reserve(b, (size_t)st.st_size + 1) != LAB_OK) {
			rc = nomem(err);
			goto out;
		}
		got = read(fd, b->data + b->len, b->cap - b->len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = lab_fail(err, LAB_EIO, "cannot read %s: %s", path,
				      strerror(errno));
			goto out;
		}
		b->len += (size_t)got;
		b->data[b->len] = '\0';
		if (got == 0)
			goto out;
		if (b->len > FILE_MAX) {
			rc = too_big(path, err);
			goto out;
		}
	}
out:
	close(fd);
	return rc;
}

static void wipe_free(lab_buf *b)
{
	if (b->data != NULL)
		OPENSSL_cleanse(b->data, b->cap);
	lab_buf_free(b);
}

static int check_rsa(EVP_PKEY *pk, const char *what, lab_err *err)
{
	int bits;

	if (!EVP_PKEY_is_a(pk, "RSA"))
		return lab_fail(err, LAB_EMALFORMED, "%s: not an RSA key",
				what);
	bits = EVP_PKEY_get_bits(pk);
	if (bits < RSA_MIN_BITS)
		return lab_fail(err, LAB_ESECURITY,
				"%s: RSA key of %d bits, at least %d required",
				what, bits, RSA_MIN_BITS);
	return LAB_OK;
}

/* ---- keys and certificates --------------------------------------------- */

int wss_privkey_load(const char *pem_path, wss_privkey **out, lab_err *err)
{
	lab_buf pem = LAB_BUF_INIT, der = LAB_BUF_INIT;
	EVP_PKEY *pk = NULL;
	wss_privkey *k;
	int rc;

	rc = read_small_file(pem_path, &pem, err);
	if (rc != LAB_OK)
		goto out;
	pk = wss__keyfile_privkey(&pem, &der);
	if (pk == NULL) {
		rc = ossl_fail(err, LAB_EMALFORMED,
			       "%s: no unencrypted PEM private key", pem_path);
		goto out;
	}
	rc = check_rsa(pk, pem_path, err);
	if (rc != LAB_OK)
		goto out;
	k = lab_malloc(sizeof *k);
	if (k == NULL) {
		rc = nomem(err);
		goto out;
	}
	k->pkey = pk;
	pk = NULL;
	*out = k;
out:
	EVP_PKEY_free(pk);
	wipe_free(&der);
	wipe_free(&pem);
	return rc;
}

void wss_privkey_free(wss_privkey *k)
{
	if (k == NULL)
		return;
	EVP_PKEY_free(k->pkey);
	lab_free(k);
}

void wss_cert_free(wss_cert *c)
{
	if (c == NULL)
		return;
	EVP_PKEY_free(c->pub);
	X509_free(c->x509);
	lab_free(c->der);
	lab_free(c);
}

/* Makes a wss_cert of x, which it owns from here on, on every path. */
static int cert_wrap(X509 *x, const char *what, wss_cert **out, lab_err *err)
{
	EVP_PKEY *pub = wss__keyfile_cert_key(x);
	wss_cert *c = NULL;
	unsigned char *p;
	int len, rc;

	if (pub == NULL) {
		rc = ossl_fail(err, LAB_EMALFORMED,
			       "%s: unreadable public key", what);
		goto out;
	}
	rc = check_rsa(pub, what, err);
	if (rc != LAB_OK)
		goto out;
	len = i2d_X509(x, NULL);
	if (len <= 0) {
		rc = ossl_fail(err, LAB_EMALFORMED,
			       "%s: cannot encode the certificate", what);
		goto out;
	}
	c = lab_calloc(1, sizeof *c);
	if (c == NULL || (c->der = lab_malloc((size_t)len)) == NULL) {
		rc = nomem(err);
		goto out;
	}
	p = c->der;
	if (i2d_X509(x, &p) != len) {
		rc = ossl_fail(err, LAB_EMALFORMED,
			       "%s: cannot encode the certificate", what);
		goto out;
	}
	c->der_len = (size_t)len;
	c->pub = pub;
	c->x509 = x;
	pub = NULL;
	x = NULL;
	*out = c;
	c = NULL;
out:
	EVP_PKEY_free(pub);
	X509_free(x);
	wss_cert_free(c);
	return rc;
}

int wss_cert_load(const char *pem_path, wss_cert **out, lab_err *err)
{
	lab_buf pem = LAB_BUF_INIT, der = LAB_BUF_INIT;
	X509 *x;
	int rc;

	rc = read_small_file(pem_path, &pem, err);
	if (rc != LAB_OK)
		goto out;
	x = wss__keyfile_cert(&pem, &der);
	if (x == NULL) {
		rc = ossl_fail(err, LAB_EMALFORMED, "%s: no PEM certificate",
			       pem_path);
		goto out;
	}
	rc = cert_wrap(x, pem_path, out, err);
out:
	lab_buf_free(&der);
	lab_buf_free(&pem);
	return rc;
}

int wss_cert_load_bytes(const char *pem_path, wss_cert **out, lab_err *err)
{
	lab_buf pem = LAB_BUF_INIT, der = LAB_BUF_INIT;
	wss_cert *c = NULL;
	int rc;

	rc = read_small_file(pem_path, &pem, err);
	if (rc != LAB_OK)
		goto out;
	if (!wss__keyfile_cert_der(&pem, &der)) {
		rc = wss_cert_load(pem_path, out, err);
		goto out;
	}
	c = lab_calloc(1, sizeof *c);
	if (c == NULL || (c->der = lab_malloc(der.len)) == NULL) {
		wss_cert_free(c);
		rc = nomem(err);
		goto out;
	}
	memcpy(c->der, der.data, der.len);
	c->der_len = der.len;
	*out = c;
out:
	lab_buf_free(&der);
	lab_buf_free(&pem);
	return rc;
}

int wss_cert_from_der(const unsigned char *der, size_t len, wss_cert **out,
		      lab_err *err)
{
	const unsigned char *p = der;
	X509 *x;

	if (len == 0 || len > LONG_MAX)
		return lab_fail(err, LAB_EMALFORMED,
				"certificate of %zu bytes", len);
	x = wss__keyfile_d2i_x509(&p, (long)len);
	if (x == NULL)
		return ossl_fail(err, LAB_EMALFORMED,
				 "not a DER X.509 certificate");
	if (p != der + len) {
		X509_free(x);
		return lab_fail(err, LAB_EMALFORMED,
				"%zu bytes after the DER certificate",
				(size_t)(der + len - p));
	}
	return cert_wrap(x, "certificate", out, err);
}

int wss_cert_from_der_known(const unsigned char *der, size_t len,
			    const wss_cert *known, wss_cert **out,
			    lab_err *err)
{
	wss_cert *c;

	if (known == NULL || len != known->der_len ||
	    memcmp(der, known->der, len) != 0)
		return wss_cert_from_der(der, len, out, err);
	/* The same bytes make the same certificate: share the parsed one
	 * (d2i_X509 and its key are most of a small receive). */
	c = lab_calloc(1, sizeof *c);
	if (c == NULL || (c->der = lab_malloc(len)) == NULL)
		goto nomem;
	if (X509_up_ref(known->x509) != 1)
		goto nomem;
	c->x509 = known->x509;
	if (EVP_PKEY_up_ref(known->pub) != 1)
		goto nomem;
	c->pub = known->pub;
	memcpy(c->der, der, len);
	c->der_len = len;
	*out = c;
	return LAB_OK;
nomem:
	wss_cert_free(c);
	return nomem(err);
}

const unsigned char *wss_cert_der(const wss_cert *c, size_t *len)
{
	*len = c->der_len;
	return c->der;
}

int wss_cert_equal(const wss_cert *a, const wss_cert *b)
{
	/* Certificates are public: an ordinary compare is enough. */
	return a->der_len == b->der_len &&
	       memcmp(a->der, b->der, a->der_len) == 0;
}

int wss_cert_has_key(const wss_cert *c, const wss_privkey *k)
{
	return EVP_PKEY_eq(c->pub, k->pkey) == 1;
}

const unsigned char *wss_cert_ski(const wss_cert *c, size_t *len)
{
	const ASN1_OCTET_STRING *ski = X509_get0_subject_key_id(c->x509);

	*len = ski != NULL ? (size_t)ASN1_STRING_length(ski) : 0;
	return ski != NULL ? ASN1_STRING_get0_data(ski) : NULL;
}

/* Appends what BIO b holds. */
static int bio_append(BIO *b, lab_buf *out, lab_err *err)
{
	char *p;
	long n = BIO_get_mem_data(b, &p);

	if (n < 0 || lab_buf_put(out, p, (size_t)n) != LAB_OK)
		return nomem(err);
	return LAB_OK;
}

int wss_cert_issuer(const wss_cert *c, lab_buf *out, lab_err *err)
{
	BIO *b = BIO_new(BIO_s_mem());
	int rc;

	if (b == NULL || X509_NAME_print_ex(b, X509_get_issuer_name(c->x509),
					    0, XN_FLAG_RFC2253) < 0)
		rc = nomem(err);
	else
		rc = bio_append(b, out, err);
	BIO_free(b);
	return rc;
}

int wss_cert_serial(const wss_cert *c, lab_buf *out, lab_err *err)
{
	BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(c->x509), NULL);
	char *dec = bn != NULL ? BN_bn2dec(bn) : NULL;
	int rc = dec == NULL || lab_buf_puts(out, dec) != LAB_OK ? nomem(err)
							       : LAB_OK;

	OPENSSL_free(dec);
	BN_free(bn);
	return rc;
}

/* An RFC 2253 name's attribute-value pairs, in the string's order. */
enum { NAME_MAX_AVAS = 32, NAME_MAX_TYPE = 64 };
typedef struct name_avas {
	char type[NAME_MAX_AVAS][NAME_MAX_TYPE];
	lab_buf value[NAME_MAX_AVAS];
	int joined[NAME_MAX_AVAS]; /* after a '+': in the previous RDN */
	size_t n;
} name_avas;

static int hex_digit(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* One value at *p, up to an unescaped ',', '+' or the end, unescaped
 * ("\," and "\2C") and trimmed of unescaped spaces into out; 0 for a
 * BER value ("#...") or a dangling escape, which name no string. */
static int rdn_value(const char **p, lab_buf *out)
{
	const char *s = *p;
	size_t keep = 0;

	while (*s == ' ')
		s++;
	if (*s == '#')
		return 0;
	for (; *s != '\0' && *s != ',' && *s != '+'; s++) {
		char c = *s;
		int escaped = c == '\\';

		if (escaped && hex_digit(s[1]) >= 0 && hex_digit(s[2]) >= 0) {
			c = (char)(hex_digit(s[1]) * 16 + hex_digit(s[2]));
			s += 2;
		} else if (escaped && s[1] != '\0') {
			c = *++s;
		} else if (escaped) {
			return 0;
		}
		if (lab_buf_put(out, &c, 1) != LAB_OK)
			return -1;
		if (c != ' ' || escaped)
			keep = out->len;
	}
	out->len = keep;
	*p = s;
	return 1;
}

/* name's pairs into a; 0 when it is not a name this reader knows, -1 out
 * of memory. */
static int split_name(const char *s, name_avas *a)
{
	while (*s != '\0') {
		const char *eq;
		size_t tl;
		int rc;

		while (*s == ' ')
			s++;
		eq = strchr(s, '=');
		if (eq == NULL)
			return 0;
		for (tl = (size_t)(eq - s); tl > 0 && s[tl - 1] == ' '; tl--)
			;
		if (tl == 0 || tl >= NAME_MAX_TYPE)
			return 0;
		memcpy(a->type[a->n], s, tl);
		a->type[a->n][tl] = '\0';
		s = eq + 1;
		rc = rdn_value(&s, &a->value[a->n]);
		if (rc <= 0)
			return rc;
		a->n++;
		if (*s == '\0')
			return 1;
		if (a->n == NAME_MAX_AVAS)
			return 0;
		a->joined[a->n] = *s++ == '+';
	}
	return 0;
}

/* An attribute type as OpenSSL knows it: a name or OID as written, or
 * in capitals (types are case-insensitive: "cn", "Cn"), or the short
 * forms some peers write for emailAddress and stateOrProvinceName. */
static int type_nid(const char *type)
{
	char upper[NAME_MAX_TYPE];
	int nid = OBJ_txt2nid(type);
	size_t i;

	for (i = 0; nid == NID_undef && type[i] != '\0'; i++)
		upper[i] = (char)(type[i] >= 'a' && type[i] <= 'z'
					  ? type[i] - 'a' + 'A'
					  : type[i]);
	if (nid != NID_undef)
		return nid;
	upper[i] = '\0';
	nid = strcmp(upper, "E") == 0   ? NID_pkcs9_emailAddress
	      : strcmp(upper, "S") == 0 ? NID_stateOrProvinceName
					: OBJ_txt2nid(upper);
	return nid;
}

/* a as an X509_NAME, its RDNs in reverse (RFC 2253 writes the DER's
 * last RDN first) or in the string's order; NULL when an attribute type
 * is unknown to OpenSSL or memory ran out. */
static X509_NAME *name_of(const name_avas *a, int reverse)
{
	X509_NAME *name = X509_NAME_new();
	size_t i = 0, end, k;

	while (name != NULL && i < a->n) {
		/* The next RDN: the avas from first to end. */
		size_t first = reverse ? a->n - 1 - i : i;

		while (reverse && first > 0 && a->joined[first])
			first--;
		for (end = first + 1; end < a->n && a->joined[end]; end++)
			;
		for (k = first; k < end && name != NULL; k++)
			if (type_nid(a->type[k]) == NID_undef ||
			    X509_NAME_add_entry_by_NID(
				    name, type_nid(a->type[k]), MBSTRING_UTF8,
				    (const unsigned char *)a->value[k].data,
				    (int)a->value[k].len, -1,
				    k == first ? 0 : -1) != 1) {
				X509_NAME_free(name);
				name = NULL;
			}
		i += end - first;
	}
	return name;
}

int wss_decimal_octets(const char *dec, size_t *octets)
{
	BIGNUM *bn = NULL;
	int ok = dec[0] != '\0' && strspn(dec, "0123456789") == strlen(dec) &&
		 BN_dec2bn(&bn, dec) > 0;

	*octets = ok ? (size_t)BN_num_bytes(bn) : 0;
	BN_free(bn);
	ERR_clear_error();
	return ok;
}

int wss_cert_issuer_serial_is(const wss_cert *c, const char *issuer,
			      const char *serial, int *match, lab_err *err)
{
	BIGNUM *want = NULL, *have = NULL;
	name_avas a;
	size_t i;
	int rc = LAB_OK, order, known;

	memset(&a, 0, sizeof a);
	*match = 0;
	known = split_name(issuer, &a);
	if (known < 0)
		rc = nomem(err);
	for (order = 0; known > 0 && !*match && order < 2; order++) {
		X509_NAME *n = name_of(&a, order == 0);

		*match = n != NULL &&
			 X509_NAME_cmp(n, X509_get_issuer_name(c->x509)) == 0;
		X509_NAME_free(n);
	}
	ERR_clear_error();
	if (*match) {
		have = ASN1_INTEGER_to_BN(X509_get0_serialNumber(c->x509),
					  NULL);
		*match = have != NULL && strspn(serial, "0123456789") ==
						 strlen(serial) &&
			 BN_dec2bn(&want, serial) > 0 && BN_cmp(want, have) == 0;
		if (have == NULL)
			rc = nomem(err);
	}
	BN_free(want);
	BN_free(have);
	for (i = 0; i < NAME_MAX_AVAS; i++)
		lab_buf_free(&a.value[i]);
	return rc;
}

/* ---- digests ----------------------------------------------------------- */

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

/* ---- signatures -------------------------------------------------------- */

int wss_rsa_sign_sha256(const wss_privkey *k, const void *data, size_t n,
			lab_buf *sig, lab_err *err)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pc = NULL;  /* owned by md */
	size_t len = (size_t)EVP_PKEY_get_size(k->pkey);
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

/* ---- data encryption --------------------------------------------------- */

size_t wss_cipher_key_len(wss_cipher c)
{
	return is_cipher(c) ? ciphers[c].key_len : 0;
}

const char *wss_cipher_uri(wss_cipher c)
{
	return is_cipher(c) ? ciphers[c].uri : NULL;
}

int wss_cipher_from_uri(const char *uri, wss_cipher *out)
{
	size_t i;

	for (i = 0; uri != NULL && i < sizeof ciphers / sizeof ciphers[0]; i++)
		if (strcmp(uri, ciphers[i].uri) == 0) {
			*out = (wss_cipher)i;
			return LAB_OK;
		}
	return LAB_ESECURITY;
}

int wss_cipher_from_name(const char *name, wss_cipher *out)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof ciphers / sizeof ciphers[0]; i++)
		if (strcmp(name, ciphers[i].name) == 0) {
			*out = (wss_cipher)i;
			return LAB_OK;
		}
	return LAB_EUSAGE;
}

/* EVP_CipherUpdate over a size_t length.  Padding is always off, so each
 * call's output is exactly its input (CHUNK is whole blocks). */
static int update(EVP_CIPHER_CTX *x, unsigned char *dst,
		  const unsigned char *src, size_t n)
{
	while (n > 0) {
		int k = n > CHUNK ? CHUNK : (int)n, got = 0;

		if (EVP_CipherUpdate(x, dst, &got, src, k) != 1 || got != k)
			return 0;
		dst += k;
		src += k;
		n -= (size_t)k;
	}
	return 1;
}

/* The final call of a stream cipher or an unpadded block cipher writes
 * nothing; its answer is whether the stream was good (GCM: the tag). */
static int finish(EVP_CIPHER_CTX *x)
{
	unsigned char none[BLOCK];
	int got = 0;

	return EVP_CipherFinal_ex(x, none, &got) == 1 && got == 0;
}

static int gcm_encrypt(EVP_CIPHER_CTX *x, const unsigned char *key,
		       const unsigned char *pt, size_t n, unsigned char *dst,
		       lab_err *err)
{
	int rc = wss_random(dst, GCM_IV, err);

	if (rc != LAB_OK)
		return rc;
	if (EVP_EncryptInit_ex2(x, EVP_aes_256_gcm(), key, dst, NULL) != 1 ||
	    !update(x, dst + GCM_IV, pt, n) || !finish(x) ||
	    EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, GCM_TAG,
				dst + GCM_IV + n) != 1)
		return ossl_fail(err, LAB_ESECURITY, "AES-256-GCM failed");
	return LAB_OK;
}

static int cbc_encrypt(EVP_CIPHER_CTX *x, const unsigned char *key,
		       const unsigned char *pt, size_t n, unsigned char *dst,
		       lab_err *err)
{
	size_t full = n - n % BLOCK, rest = n % BLOCK;
	unsigned char last[BLOCK];
	int rc;

	/* XML Enc 5.2 padding, not PKCS#7: random filler, then the count. */
	if (rest > 0)
		memcpy(last, pt + full, rest);
	rc = wss_random(last + rest, BLOCK - rest - 1, err);
	if (rc != LAB_OK)
		goto out;
	last[BLOCK - 1] = (unsigned char)(BLOCK - rest);
	rc = wss_random(dst, BLOCK, err);
	if (rc != LAB_OK)
		goto out;
	if (EVP_EncryptInit_ex2(x, EVP_aes_128_cbc(), key, dst, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(x, 0) != 1 ||
	    !update(x, dst + BLOCK, pt, full) ||
	    !update(x, dst + BLOCK + full, last, BLOCK) || !finish(x))
		rc = ossl_fail(err, LAB_ESECURITY, "AES-128-CBC failed");
out:
	OPENSSL_cleanse(last, sizeof last);
	return rc;
}

int wss_encrypt(wss_cipher c, const unsigned char *key, const void *pt,
		size_t n, lab_buf *out, lab_err *err)
{
	EVP_CIPHER_CTX *x = NULL;
	size_t total;
	unsigned char *dst;
	int rc;

	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	if (n > (size_t)-1 / 2)
		return nomem(err);
	total = wss_cipher_octets(c, n);
	x = EVP_CIPHER_CTX_new();
	if (x == NULL || lab_buf_reserve(out, total) != LAB_OK) {
		rc = nomem(err);
		goto out;
	}
	dst = (unsigned char *)out->data + out->len;
	if (c == WSS_AES256_GCM)
		rc = gcm_encrypt(x, key, pt, n, dst, err);
	else
		rc = cbc_encrypt(x, key, pt, n, dst, err);
	if (rc == LAB_OK)
		out->len += total;
out:
	if (out->data != NULL)
		out->data[out->len] = '\0';
	EVP_CIPHER_CTX_free(x);
	return rc;
}

int wss_encrypt_in_place_at(wss_cipher c, const unsigned char *key,
			    lab_buf *b, size_t at, size_t *off, lab_err *err)
{
	EVP_CIPHER_CTX *x = NULL;
	size_t n = b->len - at, iv, total;
	unsigned char *dst;
	int rc;

	*off = 0;
	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	if (lab_buf_need_plain(b, "encryption in place", err) != LAB_OK)
		return LAB_EUSAGE;
	if (at > b->len)
		return lab_fail(err, LAB_EUSAGE, "plaintext is not in the buffer");
	if (n > (size_t)-1 / 2)
		return nomem(err);
	iv = c == WSS_AES256_GCM ? GCM_IV : BLOCK;
	total = wss_cipher_octets(c, n);
	/* The octets start at *off: the IV right before the plaintext, or,
	 * without room for it there, at the start with the plaintext moved
	 * up once.  The cipher then runs over the plaintext where it lies
	 * (OpenSSL allows in == out). */
	*off = at >= iv ? at - iv : 0;
	x = EVP_CIPHER_CTX_new();
	if (x == NULL || lab_buf_reserve(b, *off + total - b->len) != LAB_OK) {
		rc = nomem(err);
		goto out;
	}
	dst = (unsigned char *)b->data + *off;
	if (at < iv)
		memmove(dst + iv, b->data + at, n);
	if (c == WSS_AES256_GCM)
		rc = gcm_encrypt(x, key, dst + iv, n, dst, err);
	else
		rc = cbc_encrypt(x, key, dst + iv, n, dst, err);
	b->len = rc == LAB_OK ? *off + total : 0;
	if (rc != LAB_OK) {
		OPENSSL_cleanse(b->data, *off + total);
		*off = 0;
	}
	b->data[b->len] = '\0';
out:
	EVP_CIPHER_CTX_free(x);
	return rc;
}

int wss_encrypt_in_place(wss_cipher c, const unsigned char *key, lab_buf *b,
			 lab_err *err)
{
	size_t off;

	return wss_encrypt_in_place_at(c, key, b, 0, &off, err);
}

struct wss_enc_stream {
	EVP_CIPHER_CTX *x;
	wss_cipher c;
};

size_t wss_cipher_octets(wss_cipher c, size_t n)
{
	return c == WSS_AES256_GCM ? GCM_IV + n + GCM_TAG
				   : BLOCK + (n / BLOCK + 1) * BLOCK;
}

int wss_enc_begin(wss_enc_stream **s, wss_cipher c, const unsigned char *key,
		  unsigned char iv[WSS_IV_ROOM], size_t *ivlen, lab_err *err)
{
	wss_enc_stream *e;
	int rc;

	*s = NULL;
	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	*ivlen = c == WSS_AES256_GCM ? GCM_IV : BLOCK;
	rc = wss_random(iv, *ivlen, err);
	if (rc != LAB_OK)
		return rc;
	e = lab_calloc(1, sizeof *e);
	if (e == NULL || (e->x = EVP_CIPHER_CTX_new()) == NULL) {
		lab_free(e);
		return nomem(err);
	}
	e->c = c;
	*s = e;
	if (c == WSS_AES256_GCM
		    ? EVP_EncryptInit_ex2(e->x, EVP_aes_256_gcm(), key, iv,
					  NULL) != 1
		    : EVP_EncryptInit_ex2(e->x, EVP_aes_128_cbc(), key, iv,
					  NULL) != 1 ||
			      EVP_CIPHER_CTX_set_padding(e->x, 0) != 1)
		return ossl_fail(err, LAB_ESECURITY, "%s failed",
				 ciphers[c].name);
	return LAB_OK;
}

int wss_enc_update(wss_enc_stream *s, const void *in, size_t n,
		   unsigned char *out, size_t *outlen, lab_err *err)
{
	const unsigned char *p = in;

	*outlen = 0;
	while (n > 0) {
		int k = n > CHUNK ? CHUNK : (int)n, got = 0;

		if (EVP_EncryptUpdate(s->x, out + *outlen, &got, p, k) != 1)
			return ossl_fail(err, LAB_ESECURITY, "%s failed",
					 ciphers[s->c].name);
		*outlen += (size_t)got;
		p += k;
		n -= (size_t)k;
	}
	return LAB_OK;
}

int wss_enc_end(wss_enc_stream *s, size_t total, unsigned char *out,
		size_t *outlen, lab_err *err)
{
	size_t rest = total % BLOCK;
	unsigned char last[BLOCK];
	int rc = LAB_OK;

	*outlen = 0;
	if (s->c == WSS_AES256_GCM) {
		if (!finish(s->x) ||
		    EVP_CIPHER_CTX_ctrl(s->x, EVP_CTRL_AEAD_GET_TAG, GCM_TAG,
					out) != 1)
			return ossl_fail(err, LAB_ESECURITY, "%s failed",
					 ciphers[s->c].name);
		*outlen = GCM_TAG;
		return LAB_OK;
	}
	/* XML Enc 5.2 padding after the partial block the cipher holds:
	 * random filler, then the count (cbc_encrypt's). */
	rc = wss_random(last, BLOCK - rest - 1, err);
	last[BLOCK - rest - 1] = (unsigned char)(BLOCK - rest);
	if (rc == LAB_OK)
		rc = wss_enc_update(s, last, BLOCK - rest, out, outlen, err);
	if (rc == LAB_OK && !finish(s->x))
		rc = ossl_fail(err, LAB_ESECURITY, "%s failed",
			       ciphers[s->c].name);
	OPENSSL_cleanse(last, sizeof last);
	return rc;
}

void wss_enc_free(wss_enc_stream *s)
{
	if (s == NULL)
		return;
	EVP_CIPHER_CTX_free(s->x);
	lab_free(s);
}

/* Each returns 1 when the data decrypts and authenticates (GCM) or
 * unpads (CBC), with the plaintext length in *len; 0 otherwise. */
static int gcm_decrypt(EVP_CIPHER_CTX *x, const unsigned char *key,
		       const unsigned char *in, size_t n, unsigned char *dst,
		       size_t *len)
{
	unsigned char tag[GCM_TAG];

	if (n < GCM_IV + GCM_TAG)
		return 0;
	*len = n - GCM_IV - GCM_TAG;
	/* A copy: the control call takes a non-const pointer. */
	memcpy(tag, in + n - GCM_TAG, GCM_TAG);
	return EVP_DecryptInit_ex2(x, EVP_aes_256_gcm(), key, in, NULL) == 1 &&
	       update(x, dst, in + GCM_IV, *len) &&
	       EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, GCM_TAG,
				   tag) == 1 &&
	       finish(x);
}

static int cbc_decrypt(EVP_CIPHER_CTX *x, const unsigned char *key,
		       const unsigned char *in, size_t n, unsigned char *dst,
		       size_t *len)
{
	unsigned pad;

	if (n < 2 * BLOCK || n % BLOCK != 0)
		return 0;
	if (EVP_DecryptInit_ex2(x, EVP_aes_128_cbc(), key, in, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(x, 0) != 1 ||
	    !update(x, dst, in + BLOCK, n - BLOCK) || !finish(x))
		return 0;
	/*
	 * XML Enc 5.2: only the last octet counts; the others are arbitrary.
	 * One check and one error for every bad value.  (CBC without a MAC
	 * stays malleable whatever we do here; GCM is the default for that.)
	 */
	pad = dst[n - BLOCK - 1];
	*len = n - BLOCK - pad;
	return pad - 1u < BLOCK;
}

int wss_decrypt(wss_cipher c, const unsigned char *key, const void *ct,
		size_t n, lab_buf *out, lab_err *err)
{
	EVP_CIPHER_CTX *x = NULL;
	unsigned char *dst;
	size_t len = 0;
	int ok, rc = LAB_OK;

	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	x = EVP_CIPHER_CTX_new();
	/* Plaintext is never longer than the octets. */
	if (x == NULL || lab_buf_reserve(out, n) != LAB_OK) {
		rc = nomem(err);
		goto out;
	}
	dst = (unsigned char *)out->data + out->len;
	if (c == WSS_AES256_GCM)
		ok = gcm_decrypt(x, key, ct, n, dst, &len);
	else
		ok = cbc_decrypt(x, key, ct, n, dst, &len);
	if (!ok) {
		/* Plaintext that failed its check must not outlive the call. */
		OPENSSL_cleanse(dst, n);
		rc = quiet_fail(err, "decryption failed");
		goto out;
	}
	out->len += len;
out:
	if (out->data != NULL)
		out->data[out->len] = '\0';
	EVP_CIPHER_CTX_free(x);
	return rc;
}

int wss_decrypt_in_place(wss_cipher c, const unsigned char *key,
			 unsigned char *buf, size_t n, size_t *off, size_t *len,
			 lab_err *err)
{
	EVP_CIPHER_CTX *x = NULL;
	int ok;

	*off = 0;
	*len = 0;
	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	x = EVP_CIPHER_CTX_new();
	if (x == NULL)
		return nomem(err);
	*off = c == WSS_AES256_GCM ? GCM_IV : BLOCK;
	if (n < *off)
		ok = 0;
	else if (c == WSS_AES256_GCM)
		ok = gcm_decrypt(x, key, buf, n, buf + *off, len);
	else
		ok = cbc_decrypt(x, key, buf, n, buf + *off, len);
	EVP_CIPHER_CTX_free(x);
	if (!ok) {
		OPENSSL_cleanse(buf, n);
		*len = 0;
		return quiet_fail(err, "decryption failed");
	}
	return LAB_OK;
}

/* ---- randomness -------------------------------------------------------- */

int wss_random(void *p, size_t n, lab_err *err)
{
	unsigned char *b = p;

	while (n > 0) {
		int k = n > CHUNK ? CHUNK : (int)n;

		if (RAND_bytes(b, k) != 1)
			return ossl_fail(err, LAB_ESECURITY,
					 "random number generator failed");
		b += k;
		n -= (size_t)k;
	}
	return LAB_OK;
}
