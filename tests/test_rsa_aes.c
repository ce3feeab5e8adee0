/*
 * test_rsa_aes.c - wss/crypto.h's keys and public-key and symmetric
 * operations: loading keys and certificates (and refusing an EC key, an
 * encrypted key, a small key), RSA-SHA256 and RSA-OAEP round trips and
 * failures, both ciphers at the edge sizes, in place and as the octets
 * arrive (and wss/pass.h's opening of a CipherValue), the CBC padding
 * as xmlenc lays it out, uniform decryption failures, random bytes.
 * Key files the vectors lack (an EC key, an encrypted key) are written to
 * a temporary directory.
 * Not tested here: signing or encrypting documents (the dsig/xenc tests),
 * the xmlsec1 vectors (test_xmlsec_vectors.c), the keys axis
 * (test_keycache.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "tests/crypto_util.h"
#include "util/base64.h"
#include "wss/pass.h"

/* Test-only keys, generated for this file. */
static const char ec_key_pem[] =
	"-----BEGIN PRIVATE KEY-----\n"
	"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgS2TGyhktek9MIojW\n"
	"+iU9/RNdSV2Va6fNH+Q/9r7Dz/WhRANCAAQPBRwNF6Nm3MnqD7cjCLGJLHM7Jfcj\n"
	"HUmJ6OXIjMmGj+24nuijzg1Uv8M1Jn/A/VqXNnbXTzGj8Rty0X3NwhiH\n"
	"-----END PRIVATE KEY-----\n";

static const char ec_cert_pem[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBejCCASGgAwIBAgIUSheWAzugQzPLdWzfp2dOoUwl/YUwCgYIKoZIzj0EAwIw\n"
	"EjEQMA4GA1UEAwwHZWMtdGVzdDAgFw0yNjExMzAwMTQ0NDhaGA8yMTI2MTEwNjAx\n"
	"NDQ0OFowEjEQMA4GA1UEAwwHZWMtdGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEH\n"
	"A0IABA8FHA0Xo2bcyeoPtyMIsYksczsl9yMdSYno5ciMyYaP7bie6KPODVS/wzUm\n"
	"f8D9Wpc2dtdPMaPxG3LRfc3CGIejUzBRMB0GA1UdDgQWBBTg90aO6cSXk9z03V3G\n"
	"Vb7Re2eG6TAfBgNVHSMEGDAWgBTg90aO6cSXk9z03V3GVb7Re2eG6TAPBgNVHRMB\n"
	"Af8EBTADAQH/MAoGCCqGSM49BAMCA0cAMEQCIEVpBG3afZ5zfZRVTMnXsdP29v6J\n"
	"7GBSvGOtCABf5GDYAiBYwSgShqHUe8Kr24E25YDiY/VZfO95/Mg7m87nyVhtag==\n"
	"-----END CERTIFICATE-----\n";

/* The EC key above under the passphrase "secret". */
static const char encrypted_key_pem[] =
	"-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
	"MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAhRrGshrOO29wICCAAw\n"
	"DAYIKoZIhvcNAgkFADAdBglghkgBZQMEAQIEEF4KhNVi3xA8/GjEibOY73UEgZBn\n"
	"P20fFdP/geOL95jtq7MIMuSf7hyj7N+oBbwxLxO3qoMnsza/6OZdeIRHcEi+LicT\n"
	"7XhL+aocGlBcEZCcXRu2ArpvVkz0xUmQIe3d3OdTvC2dtVmQ+0qFCUjHzURaqOzg\n"
	"mZNBfl/ce+3DZuqXXfxhHFjEE2Da5ipzNWxvgVKXp56+QHizlZq2Lxi0t2Leu1U=\n"
	"-----END ENCRYPTED PRIVATE KEY-----\n";

/* ---- keys and certificates --------------------------------------------- */

static void load_keys_and_certs(void)
{
	static const char *const names[] = {"ec.pem", "ec-cert.pem", "enc.pem"};
	char dir[256], ec[512], ec_cert[512], enc[512];
	wss_privkey *k = NULL, *k2 = NULL;  /* k2, c2: must stay NULL */
	wss_cert *c = NULL, *c2 = NULL, *back = NULL;
	lab_buf der = LAB_BUF_INIT;
	const unsigned char *d;
	size_t dlen;
	lab_err err;

	k = LOAD_KEY(KEY_PEM);
	c = LOAD_CERT(CERT_PEM);
	if (k == NULL || c == NULL || !READ_FILE(CERT_DER, &der))
		goto out;
	/* The DER is the file openssl wrote, and reads back as the same. */
	d = wss_cert_der(c, &dlen);
	CHECK_EQ_MEM(d, dlen, der.data, der.len);
	lab_err_clear(&err);
	if (CHECK_OK(wss_cert_from_der(d, dlen, &back, &err), &err))
		CHECK(wss_cert_equal(c, back));

	/* Refusals, each with its code. */
	t_context("missing file");
	CHECK_EQ_INT(wss_privkey_load(VECTORS "/nonexistent.pem", &k2, &err),
		     LAB_EIO);
	CHECK_EQ_INT(wss_cert_load(VECTORS "/nonexistent.pem", &c2, &err),
		     LAB_EIO);
	t_context("a directory");
	CHECK_EQ_INT(wss_cert_load(VECTORS, &c2, &err), LAB_EIO);
	t_context("certificate as key, key as certificate");
	CHECK_EQ_INT(wss_privkey_load(CERT_PEM, &k2, &err), LAB_EMALFORMED);
	CHECK_EQ_INT(wss_cert_load(KEY_PEM, &c2, &err), LAB_EMALFORMED);
	t_context("RSA-1024");
	CHECK_EQ_INT(wss_privkey_load(SMALL_KEY_PEM, &k2, &err), LAB_ESECURITY);
	t_context("DER with a trailing byte, truncated DER, not DER");
	CHECK_EQ_INT(lab_buf_putc(&der, 0), LAB_OK);
	CHECK_EQ_INT(wss_cert_from_der((unsigned char *)der.data, der.len,
				       &c2, &err), LAB_EMALFORMED);
	CHECK_EQ_INT(wss_cert_from_der((unsigned char *)der.data, der.len - 2,
				       &c2, &err), LAB_EMALFORMED);
	CHECK_EQ_INT(wss_cert_from_der((const unsigned char *)"abc", 3, &c2,
				       &err), LAB_EMALFORMED);
	CHECK_EQ_INT(wss_cert_from_der((const unsigned char *)"", 0, &c2,
				       &err), LAB_EMALFORMED);
	t_context("EC key and certificate, encrypted key");
	if (t_tmp_dir(dir, sizeof dir)) {
		if (t_write_tmp(dir, names[0], ec_key_pem, strlen(ec_key_pem),
				ec, sizeof ec) &&
		    t_write_tmp(dir, names[1], ec_cert_pem, strlen(ec_cert_pem),
				ec_cert, sizeof ec_cert) &&
		    t_write_tmp(dir, names[2], encrypted_key_pem,
				strlen(encrypted_key_pem), enc, sizeof enc)) {
			CHECK_EQ_INT(wss_privkey_load(ec, &k2, &err),
				     LAB_EMALFORMED);
			CHECK_EQ_INT(wss_cert_load(ec_cert, &c2, &err),
				     LAB_EMALFORMED);
			/* Fails instead of asking for a passphrase. */
			CHECK_EQ_INT(wss_privkey_load(enc, &k2, &err),
				     LAB_EMALFORMED);
		}
		t_rm_tmp(dir, names, 3);
	}
	t_context(NULL);
	CHECK(k2 == NULL && c2 == NULL);
out:
	lab_buf_free(&der);
	wss_privkey_free(k);
	wss_privkey_free(k2);
	wss_cert_free(c);
	wss_cert_free(c2);
	wss_cert_free(back);
}

/* ---- signatures -------------------------------------------------------- */

/* A token holding the known certificate's bytes shares it and verifies
 * like it; other bytes are parsed (and refused when they are not a
 * certificate) as wss_cert_from_der does. */
static void cert_known(void)
{
	static const char msg[] = "signed bytes";
	wss_privkey *k = LOAD_KEY(KEY_PEM);
	wss_cert *c = LOAD_CERT(CERT_PEM), *other = LOAD_CERT(OTHER_CERT_PEM);
	wss_cert *same = NULL, *parsed = NULL, *bad = NULL;
	lab_buf sig = LAB_BUF_INIT;
	const unsigned char *der;
	unsigned char junk[3] = {1, 2, 3};
	size_t len;
	lab_err err;

	if (k == NULL || c == NULL || other == NULL)
		goto out;
	lab_err_clear(&err);
	der = wss_cert_der(c, &len);
	if (!CHECK_OK(wss_cert_from_der_known(der, len, c, &same, &err), &err) ||
	    !CHECK_OK(wss_rsa_sign_sha256(k, msg, strlen(msg), &sig, &err),
		      &err))
		goto out;
	CHECK(wss_cert_equal(same, c));
	CHECK_OK(wss_rsa_verify_sha256(same, msg, strlen(msg),
				       (const unsigned char *)sig.data,
				       sig.len, &err), &err);
	der = wss_cert_der(other, &len);
	if (CHECK_OK(wss_cert_from_der_known(der, len, c, &parsed, &err),
		     &err)) {
		CHECK(wss_cert_equal(parsed, other) && !wss_cert_equal(parsed, c));
		CHECK_EQ_INT(wss_rsa_verify_sha256(parsed, msg, strlen(msg),
						   (const unsigned char *)sig.data,
						   sig.len, &err),
			     LAB_ESECURITY);
	}
	CHECK_EQ_INT(wss_cert_from_der_known(junk, sizeof junk, c, &bad, &err),
		     LAB_EMALFORMED);
	CHECK(bad == NULL);
out:
	/* The shared certificate outlives the one it was taken from. */
	wss_cert_free(c);
	wss_cert_free(same);
	wss_cert_free(parsed);
	wss_cert_free(other);
	wss_privkey_free(k);
	lab_buf_free(&sig);
}

static void sign_verify(void)
{
	static const char msg[] = "<ds:SignedInfo>canonical bytes</ds:SignedInfo>";
	wss_privkey *k = LOAD_KEY(KEY_PEM);
	wss_cert *c = LOAD_CERT(CERT_PEM), *other = LOAD_CERT(OTHER_CERT_PEM);
	lab_buf sig = LAB_BUF_INIT, sig2 = LAB_BUF_INIT;
	unsigned char *s;
	char data[sizeof msg];
	lab_err err;

	if (k == NULL || c == NULL || other == NULL)
		goto out;
	lab_err_clear(&err);
	if (!CHECK_OK(wss_rsa_sign_sha256(k, msg, strlen(msg), &sig, &err),
		      &err) ||
	    !CHECK_EQ_INT(sig.len, 256))
		goto out;
	s = (unsigned char *)sig.data;
	CHECK_OK(wss_rsa_verify_sha256(c, msg, strlen(msg), s, sig.len, &err),
		 &err);
	/* PKCS#1 v1.5 is deterministic: the same bytes again, appended. */
	CHECK_EQ_INT(lab_buf_puts(&sig2, "x"), LAB_OK);
	CHECK_OK(wss_rsa_sign_sha256(k, msg, strlen(msg), &sig2, &err), &err);
	CHECK_EQ_MEM(sig2.data + 1, sig2.len - 1, sig.data, sig.len);

	t_context("one data byte changed");
	memcpy(data, msg, sizeof msg);
	data[5] ^= 1;
	CHECK_EQ_INT(wss_rsa_verify_sha256(c, data, strlen(msg), s, sig.len,
					   &err), LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "signature value does not verify");
	t_context("one signature byte changed");
	s[100] ^= 0x40;
	CHECK_EQ_INT(wss_rsa_verify_sha256(c, msg, strlen(msg), s, sig.len,
					   &err), LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "signature value does not verify");
	s[100] ^= 0x40;
	t_context("signature truncated, empty");
	CHECK_EQ_INT(wss_rsa_verify_sha256(c, msg, strlen(msg), s, sig.len - 1,
					   &err), LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "signature value does not verify");
	CHECK_EQ_INT(wss_rsa_verify_sha256(c, msg, strlen(msg), s, 0, &err),
		     LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "signature value does not verify");
	t_context("another certificate");
	CHECK_EQ_INT(wss_rsa_verify_sha256(other, msg, strlen(msg), s, sig.len,
					   &err), LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "signature value does not verify");
	CHECK(!wss_cert_equal(c, other));
	t_context("restored");
	CHECK_OK(wss_rsa_verify_sha256(c, msg, strlen(msg), s, sig.len, &err),
		 &err);
out:
	lab_buf_free(&sig);
	lab_buf_free(&sig2);
	wss_privkey_free(k);
	wss_cert_free(c);
	wss_cert_free(other);
}

/* ---- key transport ----------------------------------------------------- */

static void oaep(void)
{
	wss_privkey *k = LOAD_KEY(KEY_PEM), *other = LOAD_KEY(OTHER_KEY_PEM);
	wss_cert *c = LOAD_CERT(CERT_PEM);
	unsigned char key[32], got[WSS_MAX_KEY_LEN];
	lab_buf w = LAB_BUF_INIT, w2 = LAB_BUF_INIT;
	size_t glen = 0;
	lab_err err;

	if (k == NULL || other == NULL || c == NULL)
		goto out;
	lab_err_clear(&err);
	CHECK_OK(wss_random(key, sizeof key, &err), &err);
	if (!CHECK_OK(wss_rsa_oaep_wrap(c, key, sizeof key, &w, &err), &err) ||
	    !CHECK_EQ_INT(w.len, 256))
		goto out;
	if (CHECK_OK(wss_rsa_oaep_unwrap(k, (unsigned char *)w.data, w.len,
					 got, sizeof got, &glen, &err), &err))
		CHECK_EQ_MEM(got, glen, key, sizeof key);
	/* OAEP is randomized: wrapping again gives other bytes. */
	CHECK_OK(wss_rsa_oaep_wrap(c, key, sizeof key, &w2, &err), &err);
	CHECK(w2.len == w.len && memcmp(w2.data, w.data, w.len) != 0);

	t_context("wrong key");
	CHECK_EQ_INT(wss_rsa_oaep_unwrap(other, (unsigned char *)w.data, w.len,
					 got, sizeof got, &glen, &err),
		     LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "key unwrap failed");
	t_context("room for 16 bytes only");
	CHECK_EQ_INT(wss_rsa_oaep_unwrap(k, (unsigned char *)w.data, w.len,
					 got, 16, &glen, &err), LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "key unwrap failed");
	t_context("one byte changed, truncated");
	w.data[7] ^= 1;
	CHECK_EQ_INT(wss_rsa_oaep_unwrap(k, (unsigned char *)w.data, w.len,
					 got, sizeof got, &glen, &err),
		     LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "key unwrap failed");
	w.data[7] ^= 1;
	CHECK_EQ_INT(wss_rsa_oaep_unwrap(k, (unsigned char *)w.data, 255,
					 got, sizeof got, &glen, &err),
		     LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "key unwrap failed");
	t_context("nothing to wrap");
	CHECK_EQ_INT(wss_rsa_oaep_wrap(c, key, 0, &w2, &err), LAB_EUSAGE);
out:
	lab_buf_free(&w);
	lab_buf_free(&w2);
	wss_privkey_free(k);
	wss_privkey_free(other);
	wss_cert_free(c);
}

/* ---- data encryption --------------------------------------------------- */

static void cipher_names(void)
{
	wss_cipher c = WSS_AES128_CBC;

	CHECK_EQ_INT(wss_cipher_key_len(WSS_AES256_GCM), 32);
	CHECK_EQ_INT(wss_cipher_key_len(WSS_AES128_CBC), 16);
	CHECK_EQ_INT(wss_cipher_key_len((wss_cipher)7), 0);
	CHECK_EQ_STR(wss_cipher_uri(WSS_AES256_GCM),
		     "http://www.w3.org/2009/xmlenc11#aes256-gcm");
	CHECK_EQ_STR(wss_cipher_uri(WSS_AES128_CBC),
		     "http://www.w3.org/2001/04/xmlenc#aes128-cbc");
	CHECK_EQ_STR(wss_cipher_uri((wss_cipher)7), NULL);
	CHECK_EQ_INT(wss_cipher_from_uri(
		"http://www.w3.org/2009/xmlenc11#aes256-gcm", &c), LAB_OK);
	CHECK_EQ_INT(c, WSS_AES256_GCM);
	CHECK_EQ_INT(wss_cipher_from_uri(
		"http://www.w3.org/2001/04/xmlenc#aes128-cbc", &c), LAB_OK);
	CHECK_EQ_INT(c, WSS_AES128_CBC);
	/* No other algorithm, however close. */
	CHECK_EQ_INT(wss_cipher_from_uri(
		"http://www.w3.org/2009/xmlenc11#aes128-gcm", &c), LAB_ESECURITY);
	CHECK_EQ_INT(wss_cipher_from_uri(
		"http://www.w3.org/2001/04/xmlenc#aes256-cbc", &c), LAB_ESECURITY);
	CHECK_EQ_INT(wss_cipher_from_uri(
		"http://www.w3.org/2001/04/xmlenc#tripledes-cbc", &c),
		LAB_ESECURITY);
	CHECK_EQ_INT(wss_cipher_from_uri("", &c), LAB_ESECURITY);
	CHECK_EQ_INT(wss_cipher_from_uri(NULL, &c), LAB_ESECURITY);
	CHECK_EQ_INT(c, WSS_AES128_CBC);
	CHECK_EQ_INT(wss_cipher_from_name("aes256-gcm", &c), LAB_OK);
	CHECK_EQ_INT(c, WSS_AES256_GCM);
	CHECK_EQ_INT(wss_cipher_from_name("aes128-cbc", &c), LAB_OK);
	CHECK_EQ_INT(c, WSS_AES128_CBC);
	CHECK_EQ_INT(wss_cipher_from_name("AES256-GCM", &c), LAB_EUSAGE);
	CHECK_EQ_INT(wss_cipher_from_name("aes256", &c), LAB_EUSAGE);
}

static const size_t sizes[] = {0, 1, 15, 16, 17, 1000, 100000};

/* A recognizable plaintext, so a leak into a buffer can be searched for. */
static unsigned char *plaintext(size_t n)
{
	unsigned char *p = malloc(n + 1);
	size_t i;

	for (i = 0; p != NULL && i < n; i++)
		p[i] = (unsigned char)("SECRET-plaintext"[i % 16] ^
				       (char)(i / 16 % 7));
	return p;
}

static size_t ct_len(wss_cipher c, size_t n)
{
	return c == WSS_AES256_GCM ? 12 + n + 16 : 16 + (n / 16 + 1) * 16;
}

static void encrypt_roundtrip(void)
{
	wss_cipher c;
	size_t i;

	for (c = WSS_AES256_GCM; c <= WSS_AES128_CBC; c++)
		for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
			unsigned char key[WSS_MAX_KEY_LEN];
			unsigned char *pt = plaintext(sizes[i]);
			lab_buf ct = LAB_BUF_INIT, ct2 = LAB_BUF_INIT;
			lab_buf back = LAB_BUF_INIT;
			size_t n = sizes[i];
			lab_err err;

			t_context("%s, %zu bytes", wss_cipher_uri(c), n);
			lab_err_clear(&err);
			if (!CHECK(pt != NULL) ||
			    !CHECK_OK(wss_random(key, sizeof key, &err), &err))
				goto next;
			/* Appends after what the buffer holds. */
			CHECK_EQ_INT(lab_buf_puts(&ct, "<CipherValue>"), LAB_OK);
			CHECK_EQ_INT(lab_buf_puts(&back, "<Body>"), LAB_OK);
			if (!CHECK_OK(wss_encrypt(c, key, pt, n, &ct, &err), &err) ||
			    !CHECK_EQ_INT(ct.len, 13 + ct_len(c, n)))
				goto next;
			CHECK(memcmp(ct.data, "<CipherValue>", 13) == 0);
			if (CHECK_OK(wss_decrypt(c, key, ct.data + 13, ct.len - 13,
						 &back, &err), &err)) {
				CHECK_EQ_MEM(back.data + 6, back.len - 6, pt, n);
				CHECK(memcmp(back.data, "<Body>", 6) == 0);
				CHECK(back.data[back.len] == '\0');
			}
			/* A fresh IV each time. */
			CHECK_OK(wss_encrypt(c, key, pt, n, &ct2, &err), &err);
			CHECK(ct2.len == ct.len - 13 &&
			      memcmp(ct2.data, ct.data + 13, 12) != 0);
next:
			free(pt);
			lab_buf_free(&ct);
			lab_buf_free(&ct2);
			lab_buf_free(&back);
		}
}

/* In place after some room: the octets start where the IV fits before
 * the plaintext (at 0 when it does not), and decrypt back to it. */
static void in_place_at(void)
{
	static const size_t rooms[] = {0, 5, 12, 16, 40};
	wss_cipher c;
	size_t i, r;

	for (c = WSS_AES256_GCM; c <= WSS_AES128_CBC; c++)
		for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
			for (r = 0; r < sizeof rooms / sizeof rooms[0]; r++) {
				unsigned char key[WSS_MAX_KEY_LEN];
				unsigned char *pt = plaintext(sizes[i]);
				lab_buf b = LAB_BUF_INIT, back = LAB_BUF_INIT;
				size_t n = sizes[i], iv = c == WSS_AES256_GCM
								 ? 12
								 : 16;
				size_t off = 99;
				lab_err err;

				t_context("%s, %zu bytes after %zu", wss_cipher_uri(c),
					  n, rooms[r]);
				lab_err_clear(&err);
				if (!CHECK(pt != NULL) ||
				    !CHECK_OK(wss_random(key, sizeof key, &err),
					      &err) ||
				    !CHECK_EQ_INT(lab_buf_reserve(&b, rooms[r]),
						  LAB_OK))
					goto next;
				memset(b.data, 'R', rooms[r]);
				b.len = rooms[r];
				if (!CHECK_EQ_INT(lab_buf_put(&b, pt, n), LAB_OK) ||
				    !CHECK_OK(wss_encrypt_in_place_at(
						      c, key, &b, rooms[r], &off,
						      &err),
					      &err))
					goto next;
				CHECK_EQ_INT(off, rooms[r] >= iv ? rooms[r] - iv : 0);
				CHECK_EQ_INT(b.len - off, ct_len(c, n));
				if (CHECK_OK(wss_decrypt(c, key, b.data + off,
							 b.len - off, &back, &err),
					     &err))
					CHECK_EQ_MEM(back.data, back.len, pt, n);
next:
				free(pt);
				lab_buf_free(&b);
				lab_buf_free(&back);
			}
}

/* In place: the octets wss_decrypt reads back, the plaintext where its
 * ciphertext was; a flipped byte is the one error and leaves no
 * plaintext behind. */
static void in_place(void)
{
	wss_cipher c;
	size_t i;

	for (c = WSS_AES256_GCM; c <= WSS_AES128_CBC; c++)
		for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
			unsigned char key[WSS_MAX_KEY_LEN];
			unsigned char *pt = plaintext(sizes[i]);
			lab_buf b = LAB_BUF_INIT, back = LAB_BUF_INIT;
			size_t n = sizes[i], off = 0, len = 0;
			lab_err err;

			t_context("%s, %zu bytes", wss_cipher_uri(c), n);
			lab_err_clear(&err);
			if (!CHECK(pt != NULL) ||
			    !CHECK_OK(wss_random(key, sizeof key, &err), &err) ||
			    !CHECK_EQ_INT(lab_buf_put(&b, pt, n), LAB_OK) ||
			    !CHECK_OK(wss_encrypt_in_place(c, key, &b, &err),
				      &err) ||
			    !CHECK_EQ_INT(b.len, ct_len(c, n)))
				goto next;
			if (CHECK_OK(wss_decrypt(c, key, b.data, b.len, &back,
						 &err), &err))
				CHECK_EQ_MEM(back.data, back.len, pt, n);
			if (CHECK_OK(wss_decrypt_in_place(
					     c, key, (unsigned char *)b.data,
					     b.len, &off, &len, &err), &err)) {
				CHECK_EQ_INT(off, c == WSS_AES256_GCM ? 12 : 16);
				CHECK_EQ_MEM(b.data + off, len, pt, n);
			}
			/* Encrypted again, then one byte flipped: GCM's last
			 * ciphertext byte, or the CBC block that sets the pad
			 * count, so that it becomes 0. */
			b.len = 0;
			if (n < 16 || lab_buf_put(&b, pt, n) != LAB_OK ||
			    !CHECK_OK(wss_encrypt_in_place(c, key, &b, &err),
				      &err))
				goto next;
			b.data[b.len - 17] ^= c == WSS_AES256_GCM
						     ? 0x01
						     : (char)(16 - n % 16);
			CHECK_EQ_INT(wss_decrypt_in_place(c, key,
							  (unsigned char *)b.data,
							  b.len, &off, &len,
							  &err),
				     LAB_ESECURITY);
			CHECK_EQ_STR(err.msg, "decryption failed");
			CHECK(len == 0 && memmem(b.data, b.len, pt, 16) == NULL);
next:
			free(pt);
			lab_buf_free(&b);
			lab_buf_free(&back);
		}
}

/* The octets of pt[0..n) under key, decrypted by a wss_dec_stream told
 * of them `step` octets at a time (the last step what is left):
 * wss_dec_end's code, the plaintext checked where it says, and what
 * wss_dec_ready said was final along the way is a prefix of it (never
 * CBC's padding). */
static int stream_one(wss_cipher c, const unsigned char *key,
		      const lab_buf *octets, size_t step,
		      const unsigned char *pt, size_t n)
{
	wss_dec_stream *d = NULL;
	unsigned char *buf = malloc(octets->len + 1);
	size_t k = 0, off = 0, len = 99, iv = 0, ready = 0;
	lab_err err;
	int rc = LAB_ENOMEM;

	lab_err_clear(&err);
	if (buf == NULL || !CHECK_OK(wss_dec_begin(&d, c, key, &err), &err))
		goto out;
	memcpy(buf, octets->data, octets->len);
	while (k + step < octets->len) {
		size_t r;

		k += step;
		if (!CHECK_OK(wss_dec_more(d, buf, k, &err), &err))
			goto out;
		r = wss_dec_ready(d, &iv);
		CHECK(r >= ready);
		ready = r;
	}
	rc = wss_dec_end(d, buf, octets->len, &off, &len, &err);
	if (rc == LAB_OK) {
		CHECK_EQ_INT(off, c == WSS_AES256_GCM ? 12 : 16);
		CHECK_EQ_MEM(buf + off, len, pt, n);
		if (CHECK(ready <= len) && ready > 0)
			CHECK_EQ_INT(iv, off);
	} else {
		/* The caller wipes buf (pass_open below checks that the
		 * axis's choices leave nothing). */
		CHECK_EQ_STR(err.msg, "decryption failed");
		CHECK(len == 0);
	}
out:
	wss_dec_free(d);
	free(buf);
	return rc;
}

/*
 * Decryption in place as the octets arrive (pass=fused): the plaintext
 * of wss_decrypt whatever the steps (one octet, a tag's length, blocks
 * and a half, all at once); a flipped byte anywhere, a tag or block cut
 * short, the one error and no plaintext left.
 */
static void dec_stream(void)
{
	static const size_t steps[] = {1, 5, 16, 24, 4096, 1000000};
	wss_cipher c;
	size_t i, s;

	for (c = WSS_AES256_GCM; c <= WSS_AES128_CBC; c++)
		for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
			unsigned char key[WSS_MAX_KEY_LEN];
			unsigned char *pt = plaintext(sizes[i]);
			lab_buf ct = LAB_BUF_INIT;
			size_t n = sizes[i];
			lab_err err;
			char x;

			lab_err_clear(&err);
			if (!CHECK(pt != NULL) ||
			    !CHECK_OK(wss_random(key, sizeof key, &err), &err) ||
			    !CHECK_OK(wss_encrypt(c, key, pt, n, &ct, &err),
				      &err))
				goto next;
			for (s = 0; s < sizeof steps / sizeof steps[0]; s++) {
				t_context("%s, %zu bytes, steps of %zu",
					  wss_cipher_uri(c), n, steps[s]);
				CHECK_EQ_INT(stream_one(c, key, &ct, steps[s],
							pt, n),
					     LAB_OK);
			}
			t_context("%s, %zu bytes, tampered", wss_cipher_uri(c),
				  n);
			/* The first octet after the IV; then the last. */
			ct.data[c == WSS_AES256_GCM ? 12 : 16] ^= 0x40;
			if (c == WSS_AES256_GCM)
				CHECK_EQ_INT(stream_one(c, key, &ct, 7, pt, n),
					     LAB_ESECURITY);
			ct.data[c == WSS_AES256_GCM ? 12 : 16] ^= 0x40;
			/* GCM's last tag octet; the CBC octet that sets the pad
			 * count, so that it becomes 0 (as in_place). */
			x = c == WSS_AES256_GCM ? 0x01 : (char)(16 - n % 16);
			ct.data[ct.len - (c == WSS_AES256_GCM ? 1 : 17)] ^= x;
			CHECK_EQ_INT(stream_one(c, key, &ct, 7, pt, n),
				     LAB_ESECURITY);
			ct.data[ct.len - (c == WSS_AES256_GCM ? 1 : 17)] ^= x;
			ct.len -= c == WSS_AES256_GCM ? 1 : 16;
			CHECK_EQ_INT(stream_one(c, key, &ct, 7, pt, n),
				     LAB_ESECURITY);
next:
			free(pt);
			lab_buf_free(&ct);
		}
}

/* A watch that notes what wss_pass_open tells it (wss/pass.h). */
typedef struct heard {
	const char *plain;
	size_t ready, len;
	int wholes, stops, moved, shrank;
} heard;

static void heard_ready(void *ctx, const char *plain, size_t n)
{
	heard *h = ctx;

	h->moved |= h->plain != NULL && h->plain != plain;
	h->shrank |= n < h->ready;
	h->plain = plain;
	h->ready = n;
}

static void heard_whole(void *ctx, size_t len)
{
	heard *h = ctx;

	h->len = len;
	h->wholes++;
}

static void heard_stop(void *ctx)
{
	((heard *)ctx)->stops++;
}

/* wss_pass_open(txt, key) with a fresh watch noting into *h. */
static int open_heard(lab_buf *txt, wss_cipher c, const unsigned char *key,
		      heard *h, size_t *off, size_t *len, lab_err *err)
{
	const wss_pass_watch w = {heard_ready, heard_whole, heard_stop, h};

	memset(h, 0, sizeof *h);
	return wss_pass_open(txt->data, txt->len, 512, c, key, &w, off, len,
			     err);
}

/* What a watch heard of a decryption that succeeded, the plaintext at
 * txt + off: whole once with its length, no stop, and every ready a
 * prefix of it where it lies. */
static void heard_whole_ok(const heard *h, const lab_buf *txt, size_t off,
			   size_t len)
{
	CHECK_EQ_INT(h->wholes, 1);
	CHECK_EQ_INT(h->stops, 0);
	CHECK_EQ_INT(h->len, len);
	CHECK(!h->moved && !h->shrank && h->ready <= len);
	CHECK(h->ready == 0 || h->plain == txt->data + off);
}

/*
 * wss_pass_open on the axis built: the plaintext of a CipherValue's
 * text, `room` in front of it when the text is long enough, line breaks
 * or not; without a key the octets; a changed octet the one
 * "decryption failed" with no plaintext left in the text; a character
 * not in the alphabet LAB_EMALFORMED.  A watch hears ready pieces of the
 * plaintext where it lies, then whole once; stop instead on each failure
 * with a key; nothing without one.
 */
static void pass_open(void)
{
	static const size_t lines[] = {0, 76};
	wss_cipher c;
	size_t i, l;

	for (c = WSS_AES256_GCM; c <= WSS_AES128_CBC; c++)
		for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
			for (l = 0; l < 2; l++) {
				unsigned char key[WSS_MAX_KEY_LEN];
				unsigned char *pt = plaintext(sizes[i]);
				lab_buf ct = LAB_BUF_INIT, txt = LAB_BUF_INIT;
				lab_buf keep = LAB_BUF_INIT;
				size_t n = sizes[i], off = 0, len = 0;
				heard h;
				lab_err err;

				t_context("%s, %zu bytes, lines of %zu",
					  wss_cipher_uri(c), n, lines[l]);
				lab_err_clear(&err);
				if (!CHECK(pt != NULL) ||
				    !CHECK_OK(wss_random(key, sizeof key, &err),
					      &err) ||
				    !CHECK_OK(wss_encrypt(c, key, pt, n, &ct,
							  &err), &err) ||
				    !CHECK_EQ_INT(lab_base64_encode(ct.data,
						  ct.len, lines[l], &txt),
						  LAB_OK) ||
				    !CHECK_EQ_INT(lab_buf_put(&keep, txt.data,
							      txt.len), LAB_OK))
					goto next;
				if (CHECK_OK(open_heard(&txt, c, key, &h, &off,
							&len, &err), &err)) {
					CHECK_EQ_MEM(txt.data + off, len, pt, n);
					CHECK(off >= (n > 2000 ? 512u : 0u));
					heard_whole_ok(&h, &txt, off, len);
				}
				memcpy(txt.data, keep.data, keep.len);
				/* Without a key the watch hears nothing. */
				if (CHECK_OK(open_heard(&txt, c, NULL, &h, &off,
							&len, &err), &err))
					CHECK_EQ_MEM(txt.data + off, len,
						     ct.data, ct.len);
				CHECK(h.wholes + h.stops + (h.plain != NULL) ==
				      0);
				memcpy(txt.data, keep.data, keep.len);
				/* One sextet of the first ciphertext octet. */
				txt.data[18] = txt.data[18] == 'A' ? 'B' : 'A';
				CHECK_EQ_INT(open_heard(&txt, c, key, &h, &off,
							&len, &err),
					     c == WSS_AES256_GCM
						     ? LAB_ESECURITY
						     : LAB_OK);
				if (c == WSS_AES256_GCM && n >= 16)
					CHECK(memmem(txt.data, txt.len, pt,
						     16) == NULL);
				CHECK_EQ_INT(h.stops,
					     c == WSS_AES256_GCM ? 1 : 0);
				CHECK_EQ_INT(h.wholes + h.stops, 1);
				memcpy(txt.data, keep.data, keep.len);
				txt.data[txt.len - 5] = '*';
				CHECK_EQ_INT(open_heard(&txt, c, key, &h, &off,
							&len, &err),
					     LAB_EMALFORMED);
				CHECK(h.stops == 1 && h.wholes == 0);
next:
				free(pt);
				lab_buf_free(&ct);
				lab_buf_free(&txt);
				lab_buf_free(&keep);
			}
}

/* The CBC octets end in XML Enc 5.2 padding: random filler, then the count. */
static void cbc_padding_layout(void)
{
	size_t n;

	for (n = 0; n <= 32; n++) {
		unsigned char key[16], *pt = plaintext(n), raw[64];
		lab_buf ct = LAB_BUF_INIT;
		EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
		size_t pad = 16 - n % 16, i, same = 0;
		int len = 0, fin = 0;
		lab_err err;

		t_context("%zu bytes", n);
		lab_err_clear(&err);
		if (!CHECK(pt != NULL && x != NULL) ||
		    !CHECK_OK(wss_random(key, sizeof key, &err), &err) ||
		    !CHECK_OK(wss_encrypt(WSS_AES128_CBC, key, pt, n, &ct, &err),
			      &err))
			goto next;
		CHECK(EVP_DecryptInit_ex2(x, EVP_aes_128_cbc(), key,
					  (unsigned char *)ct.data, NULL) == 1 &&
		      EVP_CIPHER_CTX_set_padding(x, 0) == 1 &&
		      EVP_DecryptUpdate(x, raw, &len, (unsigned char *)ct.data + 16,
					(int)ct.len - 16) == 1 &&
		      EVP_DecryptFinal_ex(x, raw + len, &fin) == 1);
		if (!CHECK_EQ_INT(len + fin, n + pad))
			goto next;
		CHECK_EQ_MEM(raw, n, pt, n);
		CHECK_EQ_INT(raw[n + pad - 1], pad);
		for (i = n; i + 1 < n + pad; i++)
			same += raw[i] == pad;
		/* Filler is random, not PKCS#7's copies of the count. */
		CHECK(pad < 4 || same < pad - 1);
next:
		free(pt);
		lab_buf_free(&ct);
		EVP_CIPHER_CTX_free(x);
	}
}

/* Decrypting ct must fail as every failure does, leaving out as it was
 * and no trace of the plaintext in its spare room. */
static void refused(wss_cipher c, const unsigned char *key, const void *ct,
		    size_t n, const char *what, const unsigned char *pt)
{
	lab_buf out = LAB_BUF_INIT;
	lab_err err;

	t_context("%s: %s", wss_cipher_uri(c), what);
	lab_err_clear(&err);
	CHECK_EQ_INT(lab_buf_puts(&out, "kept"), LAB_OK);
	CHECK_EQ_INT(wss_decrypt(c, key, ct, n, &out, &err), LAB_ESECURITY);
	CHECK_EQ_STR(err.msg, "decryption failed");
	CHECK_EQ_INT(out.len, 4);
	CHECK_EQ_STR(out.data, "kept");
	/* Decryption wrote at most n bytes after "kept". */
	CHECK(memmem(out.data, 4 + n, pt, 16) == NULL);
	lab_buf_free(&out);
}

static void decrypt_failures(void)
{
	enum { N = 1000 };
	unsigned char key[32], other[32], *pt = plaintext(N), *bad = NULL;
	lab_buf gcm = LAB_BUF_INIT, cbc = LAB_BUF_INIT;
	size_t g, b, last;
	lab_err err;

	lab_err_clear(&err);
	if (!CHECK(pt != NULL) ||
	    !CHECK_OK(wss_random(key, sizeof key, &err), &err) ||
	    !CHECK_OK(wss_random(other, sizeof other, &err), &err) ||
	    !CHECK_OK(wss_encrypt(WSS_AES256_GCM, key, pt, N, &gcm, &err), &err) ||
	    !CHECK_OK(wss_encrypt(WSS_AES128_CBC, key, pt, N, &cbc, &err), &err))
		goto out;
	g = gcm.len;
	b = cbc.len;
	bad = malloc(g > b ? g : b);
	if (!CHECK(bad != NULL))
		goto out;

	memcpy(bad, gcm.data, g);
	bad[g - 1] ^= 0x01;
	refused(WSS_AES256_GCM, key, bad, g, "tag byte flipped", pt);
	memcpy(bad, gcm.data, g);
	bad[12 + 500] ^= 0x80;
	refused(WSS_AES256_GCM, key, bad, g, "ciphertext byte flipped", pt);
	memcpy(bad, gcm.data, g);
	bad[3] ^= 0x10;
	refused(WSS_AES256_GCM, key, bad, g, "IV byte flipped", pt);
	refused(WSS_AES256_GCM, key, gcm.data, g - 1, "last byte cut", pt);
	refused(WSS_AES256_GCM, key, gcm.data, 27, "shorter than IV + tag", pt);
	refused(WSS_AES256_GCM, key, gcm.data, 0, "empty", pt);
	refused(WSS_AES256_GCM, other, gcm.data, g, "wrong key", pt);

	/* The pad count is the last plaintext octet: flipping bits of the
	 * block before it sets it to what we like (1000 % 16 = 8, pad 8). */
	last = b - 16 - 1;
	memcpy(bad, cbc.data, b);
	bad[last] ^= 8 ^ 0;
	refused(WSS_AES128_CBC, key, bad, b, "pad count 0", pt);
	memcpy(bad, cbc.data, b);
	bad[last] ^= 8 ^ 17;
	refused(WSS_AES128_CBC, key, bad, b, "pad count 17", pt);
	memcpy(bad, cbc.data, b);
	bad[last] ^= 8 ^ 0xff;
	refused(WSS_AES128_CBC, key, bad, b, "pad count 255", pt);
	refused(WSS_AES128_CBC, key, cbc.data, b - 1, "last byte cut", pt);
	refused(WSS_AES128_CBC, key, cbc.data, 16, "IV only", pt);
	refused(WSS_AES128_CBC, key, cbc.data, 0, "empty", pt);

	t_context("pad count 16 is still good");
	{
		lab_buf out = LAB_BUF_INIT;

		memcpy(bad, cbc.data, b);
		bad[last] ^= 8 ^ 16;
		/* (The flipped block itself decrypts to garbage: CBC.) */
		if (CHECK_OK(wss_decrypt(WSS_AES128_CBC, key, bad, b, &out, &err),
			     &err) &&
		    CHECK_EQ_INT(out.len, N - 8))
			CHECK_EQ_MEM(out.data, N - 24, pt, N - 24);
		lab_buf_free(&out);
	}
out:
	free(pt);
	free(bad);
	lab_buf_free(&gcm);
	lab_buf_free(&cbc);
}

static void random_bytes(void)
{
	unsigned char a[32], b[32];
	lab_err err;

	lab_err_clear(&err);
	CHECK_OK(wss_random(a, 0, &err), &err);
	CHECK_OK(wss_random(a, sizeof a, &err), &err);
	CHECK_OK(wss_random(b, sizeof b, &err), &err);
	CHECK(memcmp(a, b, sizeof a) != 0);
}

/* Issuer names are compared as X509_NAMEs: either RDN order, case and
 * runs of spaces aside, escapes read, a multi-valued RDN in any of its
 * orders; a changed value, RDN, serial or an unreadable form is no
 * match.  The vector's issuer: C=DE, O=Example Labs, OU=Lab One + CN=Multi
 * Valued, CN=Issuer  CA (two spaces), serial 4660. */
static void issuer_serial_names(void)
{
	static const struct {
		const char *issuer, *serial;
		int match;
	} cases[] = {
		{"CN=Issuer  CA,CN=Multi Valued+OU=Lab One,O=Example Labs,C=DE",
		 "4660", 1},
		{"C=DE, O=Example Labs, OU=Lab One+CN=Multi Valued, CN=Issuer CA",
		 "4660", 1},
		{"cn=issuer ca, ou=lab one + cn=multi valued, o=EXAMPLE LABS, "
		 "c=de",
		 "04660", 1},
		{"CN=Issuer\\20 CA,CN=Multi Valued+OU=Lab One,O=Example\\2C "
		 "Labs,C=DE",
		 "4660", 0},
		{"CN=Issuer CA,CN=Multi Valued+OU=Lab One,O=Example\\20Labs,C=DE",
		 "4660", 1},
		{"CN=Issuer CA,CN=Multi Valued+OU=Lab One,O=Example Labs,C=DE",
		 "4661", 0},
		{"CN=Issuer CA,CN=Multi Valued+OU=Lab One,O=Example Labs,C=DE",
		 "0x1234", 0},
		{"CN=Issuer CA,CN=Multi Valued,OU=Lab One,O=Example Labs,C=DE",
		 "4660", 0},
		{"CN=Issuer CA,O=Example Labs,C=DE", "4660", 0},
		{"CN=#0c0949737375657220434", "4660", 0},
		{"XX=Issuer CA,CN=Multi Valued+OU=Lab One,O=Example Labs,C=DE",
		 "4660", 0},
		{"", "4660", 0},
	};
	wss_cert *c = LOAD_CERT(VECTORS "/names/cert.pem");
	lab_err err;
	size_t i;

	for (i = 0; c != NULL && i < sizeof cases / sizeof cases[0]; i++) {
		int match = -1;

		t_context("%s, %s", cases[i].issuer, cases[i].serial);
		if (CHECK_OK(wss_cert_issuer_serial_is(c, cases[i].issuer,
						       cases[i].serial, &match,
						       &err),
			     &err))
			CHECK_EQ_INT(match, cases[i].match);
	}
	wss_cert_free(c);
}

const t_case tests_rsa_aes[] = {
	{"crypto/load_keys_and_certs", load_keys_and_certs},
	{"crypto/sign_verify", sign_verify},
	{"crypto/oaep", oaep},
	{"crypto/cipher_names", cipher_names},
	{"crypto/encrypt_roundtrip", encrypt_roundtrip},
	{"crypto/cbc_padding_layout", cbc_padding_layout},
	{"crypto/cert_known", cert_known},
	{"crypto/decrypt_failures", decrypt_failures},
	{"crypto/in_place", in_place},
	{"crypto/in_place_at", in_place_at},
	{"crypto/dec_stream", dec_stream},
	{"crypto/pass_open", pass_open},
	{"crypto/random", random_bytes},
	{"crypto/issuer_serial_names", issuer_serial_names},
	{NULL, NULL},
};
