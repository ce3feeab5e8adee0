/*
 * test_keyfile.c - how wss_privkey_load and wss_cert_load read their
 * files (wss/keyfile.c): the direct DER path and OpenSSL's PEM reader give
 * the same key for the same file, and every shape the direct path does not
 * take (CRLF lines, the traditional PKCS#1 label, an encrypted key, another
 * key type, broken base64, a file over the size bound) is read or refused
 * as the PEM reader decides, with the message it always had; and
 * wss_cert_load_bytes, which carries a certificate's bytes unparsed.
 *
 * The files are variants of the public test key and certificate
 * (tests/vectors/wss/keys/), written to a temporary directory.
 * Not tested here: what the keys do (test_rsa_aes.c).
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "tests/check.h"
#include "tests/util.h"
#include "wss/crypto.h"

#define KEYS DOMLAB_VECTORS_DIR "/wss/keys"

static char dir[256];

/* Writes b to dir/name; path gets its name. */
static int put(const char *name, const lab_buf *b, char *path, size_t cap)
{
	return t_write_tmp(dir, name, b->data, b->len, path, cap);
}

/* src with every "\n" made "\r\n": a shape only the PEM reader takes. */
static int crlf(const lab_buf *src, lab_buf *out)
{
	size_t i;

	for (i = 0; i < src->len; i++)
		if ((src->data[i] == '\n' && lab_buf_putc(out, '\r') != LAB_OK) ||
		    lab_buf_putc(out, src->data[i]) != LAB_OK)
			return CHECK(0);
	return 1;
}

/* The key's traditional PEM (PKCS#1, "RSA PRIVATE KEY"), encrypted under
 * a passphrase when enc is not NULL, written by OpenSSL itself. */
static int traditional(const lab_buf *pkcs8, const EVP_CIPHER *enc,
		       lab_buf *out)
{
	BIO *in = BIO_new_mem_buf(pkcs8->data, (int)pkcs8->len);
	BIO *mem = BIO_new(BIO_s_mem());
	EVP_PKEY *pk = in != NULL ? PEM_read_bio_PrivateKey(in, NULL, NULL,
							    NULL)
				  : NULL;
	unsigned char pass[] = "passphrase";
	char *p;
	long n;
	int ok = pk != NULL && mem != NULL &&
		 PEM_write_bio_PrivateKey_traditional(
			 mem, pk, enc, enc != NULL ? pass : NULL,
			 enc != NULL ? (int)sizeof pass - 1 : 0, NULL,
			 NULL) == 1 &&
		 (n = BIO_get_mem_data(mem, &p)) > 0 &&
		 lab_buf_put(out, p, (size_t)n) == LAB_OK;

	EVP_PKEY_free(pk);
	BIO_free(mem);
	BIO_free(in);
	return CHECK_MSG(ok, "cannot write the traditional PEM");
}

/* The signature path's key makes over a fixed text, into sig; 0 when
 * the key does not load. */
static int sign_with(const char *path, lab_buf *sig)
{
	static const char text[] = "the same key signs the same bytes";
	wss_privkey *k = NULL;
	lab_err err;
	int ok;

	lab_err_clear(&err);
	ok = CHECK_OK(wss_privkey_load(path, &k, &err), &err) &&
	     CHECK_OK(wss_rsa_sign_sha256(k, text, sizeof text - 1, sig, &err),
		      &err);
	wss_privkey_free(k);
	return ok;
}

/* The key refused with code, and err's message starting with path and
 * then want. */
static void key_refused(const char *path, int code, const char *want)
{
	wss_privkey *k = NULL;
	char msg[600];
	lab_err err;

	lab_err_clear(&err);
	CHECK_EQ_INT(wss_privkey_load(path, &k, &err), code);
	CHECK(k == NULL);
	snprintf(msg, sizeof msg, "%s: %s", path, want);
	CHECK_MSG(strncmp(err.msg, msg, strlen(msg)) == 0,
		  "message '%s', not '%s...'", err.msg, msg);
	wss_privkey_free(k);
}

/*
 * PKCS#8 (the direct path), the same in CRLF lines (the PEM reader), and
 * the traditional PKCS#1 form (the direct path again): one key, one
 * signature.
 */
static void key_shapes_agree(void)
{
	static const char *const names[] = {"lf.pem", "crlf.pem", "rsa.pem"};
	lab_buf pem = LAB_BUF_INIT, other = LAB_BUF_INIT, trad = LAB_BUF_INIT;
	lab_buf s1 = LAB_BUF_INIT, s2 = LAB_BUF_INIT, s3 = LAB_BUF_INIT;
	char p1[512], p2[512], p3[512];

	if (!CHECK_EQ_INT(t_read_file(KEYS "/key.pem", &pem), 0) ||
	    !CHECK(strncmp(pem.data, "-----BEGIN PRIVATE KEY-----\n", 28) ==
		   0) ||
	    !crlf(&pem, &other) || !traditional(&pem, NULL, &trad) ||
	    !CHECK(strstr(trad.data, "BEGIN RSA PRIVATE KEY") != NULL) ||
	    !t_tmp_dir(dir, sizeof dir))
		goto out;
	if (put(names[0], &pem, p1, sizeof p1) &&
	    put(names[1], &other, p2, sizeof p2) &&
	    put(names[2], &trad, p3, sizeof p3) && sign_with(p1, &s1) &&
	    sign_with(p2, &s2) && sign_with(p3, &s3)) {
		CHECK_EQ_MEM(s1.data, s1.len, s2.data, s2.len);
		CHECK_EQ_MEM(s1.data, s1.len, s3.data, s3.len);
	}
	t_rm_tmp(dir, names, 3);
out:
	lab_buf_free(&pem);
	lab_buf_free(&other);
	lab_buf_free(&trad);
	lab_buf_free(&s1);
	lab_buf_free(&s2);
	lab_buf_free(&s3);
}

/* The test key's PEM with the byte at `at` (counted from the end of its
 * first line) replaced by c. */
static int damaged(const lab_buf *pem, size_t at, char c, lab_buf *out)
{
	const char *body = memchr(pem->data, '\n', pem->len);

	if (!CHECK(body != NULL && (size_t)(body - pem->data) + at < pem->len) ||
	    !CHECK_EQ_INT(lab_buf_put(out, pem->data, pem->len), LAB_OK))
		return 0;
	out->data[body - pem->data + at] = c;
	return 1;
}

/* Refusals keep their code and message whichever path saw the file. */
static void key_refusals(void)
{
	static const char *const names[] = {"b64.pem", "enc.pem", "big.pem",
					    "empty.pem"};
	lab_buf pem = LAB_BUF_INIT, bad = LAB_BUF_INIT, enc = LAB_BUF_INIT;
	lab_buf big = LAB_BUF_INIT, empty = LAB_BUF_INIT;
	char path[512];

	if (!CHECK_EQ_INT(t_read_file(KEYS "/key.pem", &pem), 0) ||
	    !damaged(&pem, 10, '*', &bad) ||
	    !traditional(&pem, EVP_aes_128_cbc(), &enc) ||
	    !CHECK(strstr(enc.data, "Proc-Type: 4,ENCRYPTED") != NULL) ||
	    !CHECK_EQ_INT(lab_buf_puts(&empty, "-----BEGIN PRIVATE KEY-----\n"
					       "-----END PRIVATE KEY-----\n"),
			  LAB_OK) ||
	    !t_tmp_dir(dir, sizeof dir))
		goto out;
	while (big.len <= (1u << 20))
		if (!CHECK_EQ_INT(lab_buf_put(&big, pem.data, pem.len), LAB_OK))
			break;
	t_context("broken base64");
	if (put(names[0], &bad, path, sizeof path))
		key_refused(path, LAB_EMALFORMED,
			    "no unencrypted PEM private key");
	t_context("encrypted, traditional: fails, never asks");
	if (put(names[1], &enc, path, sizeof path))
		key_refused(path, LAB_EMALFORMED,
			    "no unencrypted PEM private key");
	t_context("over the size bound");
	if (put(names[2], &big, path, sizeof path))
		key_refused(path, LAB_EMALFORMED, "over 1048576 bytes");
	t_context("an empty block");
	if (put(names[3], &empty, path, sizeof path))
		key_refused(path, LAB_EMALFORMED,
			    "no unencrypted PEM private key");
	t_context("a certificate");
	key_refused(KEYS "/cert.pem", LAB_EMALFORMED,
		    "no unencrypted PEM private key");
	t_context(NULL);
	t_rm_tmp(dir, names, 4);
out:
	lab_buf_free(&pem);
	lab_buf_free(&bad);
	lab_buf_free(&enc);
	lab_buf_free(&big);
	lab_buf_free(&empty);
}

/* load refuses path as holding no certificate, with the usual message. */
static void cert_refused(int (*load)(const char *, wss_cert **, lab_err *),
			 const char *path)
{
	wss_cert *c = NULL;
	char want[600];
	lab_err err;

	lab_err_clear(&err);
	CHECK_EQ_INT(load(path, &c, &err), LAB_EMALFORMED);
	snprintf(want, sizeof want, "%s: no PEM certificate", path);
	CHECK_MSG(strncmp(err.msg, want, strlen(want)) == 0,
		  "message '%s', not '%s...'", err.msg, want);
	CHECK(c == NULL);
	wss_cert_free(c);
}

/* A certificate in CRLF lines (the PEM reader) is the one in LF lines
 * (the direct path); a damaged one is refused as always. */
static void cert_shapes(void)
{
	static const char *const names[] = {"crlf.pem", "bad.pem"};
	lab_buf pem = LAB_BUF_INIT, other = LAB_BUF_INIT, bad = LAB_BUF_INIT;
	wss_cert *a = NULL, *b = NULL;
	char path[512];
	lab_err err;

	lab_err_clear(&err);
	if (!CHECK_EQ_INT(t_read_file(KEYS "/cert.pem", &pem), 0) ||
	    !crlf(&pem, &other) || !damaged(&pem, 10, '*', &bad) ||
	    !t_tmp_dir(dir, sizeof dir))
		goto out;
	if (CHECK_OK(wss_cert_load(KEYS "/cert.pem", &a, &err), &err) &&
	    put(names[0], &other, path, sizeof path) &&
	    CHECK_OK(wss_cert_load(path, &b, &err), &err))
		CHECK(wss_cert_equal(a, b));
	if (put(names[1], &bad, path, sizeof path))
		cert_refused(wss_cert_load, path);
	t_rm_tmp(dir, names, 2);
out:
	wss_cert_free(a);
	wss_cert_free(b);
	lab_buf_free(&pem);
	lab_buf_free(&other);
	lab_buf_free(&bad);
}

/* A PEM CERTIFICATE block around b64, written to dir/name. */
static int put_block(const char *name, const char *b64, char *path,
		     size_t cap)
{
	lab_buf b = LAB_BUF_INIT;
	int ok = lab_buf_printf(&b, "-----BEGIN CERTIFICATE-----\n%s\n"
				"-----END CERTIFICATE-----\n", b64) == LAB_OK &&
		 put(name, &b, path, cap);

	lab_buf_free(&b);
	return CHECK(ok);
}

/* wss_cert_load_bytes: the same bytes as the parsed certificate, on the
 * direct path and the reader's; one whole DER SEQUENCE is carried without
 * being read (the receiver checks it), anything else is refused as
 * wss_cert_load refuses it. */
static void cert_bytes(void)
{
	static const char *const names[] = {"crlf.pem", "seq.pem", "int.pem"};
	lab_buf pem = LAB_BUF_INIT, other = LAB_BUF_INIT;
	wss_cert *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	const unsigned char *der;
	char path[512];
	size_t len;
	lab_err err;

	lab_err_clear(&err);
	if (!CHECK_EQ_INT(t_read_file(KEYS "/cert.pem", &pem), 0) ||
	    !crlf(&pem, &other) || !t_tmp_dir(dir, sizeof dir))
		goto out;
	if (CHECK_OK(wss_cert_load(KEYS "/cert.pem", &a, &err), &err) &&
	    CHECK_OK(wss_cert_load_bytes(KEYS "/cert.pem", &b, &err), &err))
		CHECK(wss_cert_equal(a, b));
	if (put(names[0], &other, path, sizeof path) &&
	    CHECK_OK(wss_cert_load_bytes(path, &c, &err), &err) && a != NULL)
		CHECK(wss_cert_equal(a, c));
	if (put_block(names[1], "MAA=", path, sizeof path) &&
	    CHECK_OK(wss_cert_load_bytes(path, &d, &err), &err)) {
		der = wss_cert_der(d, &len);
		CHECK(len == 2 && der[0] == 0x30 && der[1] == 0);
		cert_refused(wss_cert_load, path);
	}
	if (put_block(names[2], "AgEB", path, sizeof path))
		cert_refused(wss_cert_load_bytes, path);
	t_rm_tmp(dir, names, 3);
out:
	wss_cert_free(a);
	wss_cert_free(b);
	wss_cert_free(c);
	wss_cert_free(d);
	lab_buf_free(&pem);
	lab_buf_free(&other);
}

const t_case tests_keyfile[] = {
	{"keyfile/key_shapes_agree", key_shapes_agree},
	{"keyfile/key_refusals", key_refusals},
	{"keyfile/cert_shapes", cert_shapes},
	{"keyfile/cert_bytes", cert_bytes},
	{NULL, NULL},
};
