/*
 * cert.c - RSA private keys and X.509 certificates for the profile:
 * reading key and certificate files (bounded, wiped), the certificate's
 * DER, key, subject key identifier, issuer and serial number, and the
 * comparisons a receiver makes (same certificate, issuer and serial as
 * a message names them).  Keys are RSA of at least 2048 bits.
 * Not for: parsing the file's objects (keyfile.c), trust beyond "same
 * certificate" (no chains, no expiry), using the keys (rsa.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/x509v3.h>

#include "util/alloc.h"
#include "wss/crypto_ossl.h"
#include "wss/keyfile.h"

enum {
	RSA_MIN_BITS = 2048,
	FILE_MAX = 1 << 20      /* PEM keys and certificates are far smaller */
};

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
