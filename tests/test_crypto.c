/*
 * test_crypto.c - wss/crypto.h, wss/base64.h and the keys axis
 * (wss/keys.h): FIPS 180 digests, RFC 4648 base64 both ways and its
 * refusals, RSA-SHA256 and RSA-OAEP round trips and failures, both
 * ciphers at the edge sizes, uniform decryption failures, and known
 * answers from xmlsec1 (the W3C/Phaos aes128-cbc + rsa-oaep-mgf1p vector,
 * and the WS-Security messages xmlsec1 sent with AES-256-GCM and
 * AES-128-CBC).
 *
 * Keys and vectors are the public test material in tests/vectors/
 * (VECTORS: the Makefile passes its absolute path as DOMLAB_VECTORS_DIR,
 * so the tests run from any directory; read-only).  Key files the
 * vectors lack (an EC key, an encrypted key, the Phaos DER key as PEM)
 * are written to a temporary directory.
 * Not tested here: signing or encrypting documents (the dsig/xenc tests).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "tests/util.h"
#include "wss/base64.h"
#include "wss/crypto.h"
#include "wss/keys.h"

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

/* ---- helpers ----------------------------------------------------------- */

static unsigned nibble(char c)
{
	return c <= '9' ? (unsigned)(c - '0')
			: (unsigned)((c | 0x20) - 'a' + 10);
}

static void unhex(const char *hex, unsigned char *out)
{
	size_t i;

	for (i = 0; hex[2 * i] != '\0'; i++)
		out[i] = (unsigned char)(nibble(hex[2 * i]) << 4 |
					 nibble(hex[2 * i + 1]));
}

static int read_file_at(const char *file, int line, const char *path,
			lab_buf *out)
{
	if (t_read_file(path, out) == 0)
		return t_pass();
	return t_fail(file, line, "cannot read %s", path);
}
#define READ_FILE(path, out) read_file_at(__FILE__, __LINE__, (path), (out))

static wss_privkey *key_at(const char *file, int line, const char *path)
{
	wss_privkey *k = NULL;
	lab_err err;

	lab_err_clear(&err);
	if (!t_ok(file, line, path, wss_privkey_load(path, &k, &err), &err))
		return NULL;
	return k;
}
#define LOAD_KEY(path) key_at(__FILE__, __LINE__, (path))

static wss_cert *cert_at(const char *file, int line, const char *path)
{
	wss_cert *c = NULL;
	lab_err err;

	lab_err_clear(&err);
	if (!t_ok(file, line, path, wss_cert_load(path, &c, &err), &err))
		return NULL;
	return c;
}
#define LOAD_CERT(path) cert_at(__FILE__, __LINE__, (path))

/* Just after the nth (0-based) start tag <name> or <prefix:name>. */
static const char *start_tag(const char *p, const char *name, int nth)
{
	size_t n = strlen(name);

	while ((p = strchr(p, '<')) != NULL) {
		const char *q = ++p, *local;
		size_t len = strcspn(q, " \t\r\n/>");

		if (*q == '/')
			continue;
		local = memchr(q, ':', len);
		local = local != NULL ? local + 1 : q;
		if ((size_t)(q + len - local) == n &&
		    strncmp(local, name, n) == 0 && q[len] == '>' && nth-- == 0)
			return q + len + 1;
	}
	return NULL;
}

/* Base64-decodes the text of the nth element `name` of xml into out. */
static int element_b64(const char *xml, const char *name, int nth,
		       lab_buf *out)
{
	const char *p = start_tag(xml, name, nth), *end;
	lab_err err;

	if (!CHECK_MSG(p != NULL, "no %s #%d", name, nth))
		return 0;
	end = strstr(p, "</");
	if (!CHECK(end != NULL))
		return 0;
	lab_err_clear(&err);
	return CHECK_OK(wss_base64_decode(p, (size_t)(end - p), out, &err),
			&err);
}

static void crlf_to_lf(lab_buf *b)
{
	size_t i, j = 0;

	for (i = 0; i < b->len; i++)
		if (b->data[i] != '\r' || i + 1 == b->len ||
		    b->data[i + 1] != '\n')
			b->data[j++] = b->data[i];
	b->len = j;
	b->data[j] = '\0';
}

/* ---- digests ----------------------------------------------------------- */

static const char fips_448[] =
	"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

/* FIPS 180-2's messages with their SHA-256 and SHA-1 digests. */
static const struct {
	const char *msg, *sha256, *sha1;
} kats[] = {
	{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	 "a9993e364706816aba3e25717850c26c9cd0d89d"},
	{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	 "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
	{fips_448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	 "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
};

/* Every message of kats[] through SHA-1 (sha1) or SHA-256. */
static void digest_kats(int sha1)
{
	unsigned char want[WSS_SHA256_LEN], got[WSS_SHA256_LEN];
	size_t len = sha1 ? WSS_SHA1_LEN : WSS_SHA256_LEN, i;

	for (i = 0; i < sizeof kats / sizeof kats[0]; i++) {
		const char *m = kats[i].msg;

		t_context("\"%s\"", m);
		unhex(sha1 ? kats[i].sha1 : kats[i].sha256, want);
		CHECK_EQ_INT(sha1 ? wss_sha1(m, strlen(m), got)
				  : wss_sha256(m, strlen(m), got),
			     LAB_OK);
		CHECK_EQ_MEM(got, len, want, len);
	}
}

static void sha256_kat(void)
{
	digest_kats(0);
}

static void sha1_kat(void)
{
	digest_kats(1);
}

/* The streaming digest in odd-sized pieces, reused after each final. */
static void sha256_streaming(void)
{
	static const size_t chunks[] = {1, 3, 7, 13, 64, 127, 1000, 4099};
	unsigned char want[WSS_SHA256_LEN], got[WSS_SHA256_LEN];
	wss_sha256_ctx *h = NULL;
	char *million;
	lab_err err;
	size_t c, off;

	lab_err_clear(&err);
	if (!CHECK_OK(wss_sha256_new(&h, &err), &err))
		return;
	/* FIPS 180-2: a million 'a'. */
	million = malloc(1000000);
	if (!CHECK(million != NULL))
		goto out;
	memset(million, 'a', 1000000);
	unhex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	      want);
	for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
		t_context("million 'a' in pieces of %zu", chunks[c]);
		for (off = 0; off < 1000000; off += chunks[c]) {
			size_t k = 1000000 - off < chunks[c] ? 1000000 - off
							     : chunks[c];

			if (!CHECK_EQ_INT(wss_sha256_update(h, million + off, k),
					  LAB_OK))
				break;
		}
		CHECK_EQ_INT(wss_sha256_final(h, got), LAB_OK);
		CHECK_EQ_MEM(got, sizeof got, want, sizeof want);
	}
	t_context("448-bit message byte by byte, after reuse");
	unhex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	      want);
	for (off = 0; off < strlen(fips_448); off++)
		CHECK_EQ_INT(wss_sha256_update(h, fips_448 + off, 1), LAB_OK);
	CHECK_EQ_INT(wss_sha256_final(h, got), LAB_OK);
	CHECK_EQ_MEM(got, sizeof got, want, sizeof want);
	t_context("nothing fed after a final: the empty digest");
	unhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      want);
	CHECK_EQ_INT(wss_sha256_final(h, got), LAB_OK);
	CHECK_EQ_MEM(got, sizeof got, want, sizeof want);
out:
	free(million);
	wss_sha256_free(h);
}

static void ct_equal(void)
{
	CHECK(wss_ct_equal("abcd", "abcd", 4));
	CHECK(!wss_ct_equal("abcd", "abce", 4));
	CHECK(!wss_ct_equal("xbcd", "abcd", 4));
	CHECK(wss_ct_equal("a", "b", 0));
}

/* ---- base64 ------------------------------------------------------------ */

static const struct {
	const char *raw, *b64;
} rfc4648[] = {
	{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
	{"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
};

static void base64_rfc4648(void)
{
	size_t i;

	for (i = 0; i < sizeof rfc4648 / sizeof rfc4648[0]; i++) {
		lab_buf enc = LAB_BUF_INIT, dec = LAB_BUF_INIT;
		const char *raw = rfc4648[i].raw, *b64 = rfc4648[i].b64;
		lab_err err;

		t_context("\"%s\"", raw);
		lab_err_clear(&err);
		CHECK_EQ_INT(wss_base64_encode(raw, strlen(raw), 0, &enc), LAB_OK);
		CHECK_EQ_MEM(enc.data, enc.len, b64, strlen(b64));
		CHECK_OK(wss_base64_decode(b64, strlen(b64), &dec, &err), &err);
		CHECK_EQ_MEM(dec.data, dec.len, raw, strlen(raw));
		lab_buf_free(&enc);
		lab_buf_free(&dec);
	}
}

/* RFC 4648's encoding one bit at a time, as a reference. */
static size_t ref_base64(const unsigned char *p, size_t n, char *o)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t bits = n * 8, b, k = 0;

	for (b = 0; b < bits; b += 6) {
		unsigned v = 0, j;

		for (j = b; j < b + 6; j++)
			v = v << 1 | (j < bits ? p[j / 8] >> (7 - j % 8) & 1u : 0);
		o[k++] = a[v];
	}
	while (k % 4 != 0)
		o[k++] = '=';
	return k;
}

/*
 * The encoder's block paths (12, 24 bytes a turn) and the loops after
 * them, against the reference: every length to 300 and lengths around
 * larger blocks, at every alignment, with bytes that reach every
 * character.
 */
static void base64_as_reference(void)
{
	static const size_t far[] = {1000, 1001, 1002, 1003, 1004, 1005,
				     1006, 1007, 1008, 1009, 1010, 1011,
				     4093, 4096, 4099};
	static unsigned char raw[4099 + 3];
	static char want[4 * 1368], got[4 * 1368 + 1];
	size_t i, a, k;
	uint32_t x = 1;

	for (i = 0; i < sizeof raw; i++) {
		x = x * 1103515245u + 12345u;
		raw[i] = (unsigned char)(x >> 16);
	}
	for (i = 0; i <= 300 + sizeof far / sizeof far[0]; i++) {
		size_t n = i <= 300 ? i : far[i - 301];

		for (a = 0; a < 3; a++) {
			lab_buf b = LAB_BUF_INIT;

			t_context("%zu bytes at offset %zu", n, a);
			k = ref_base64(raw + a, n, want);
			memset(got, '#', sizeof got);
			CHECK_EQ_INT(wss_base64_encode_to(raw + a, n, got), LAB_OK);
			CHECK_EQ_MEM(got, k, want, k);
			CHECK(got[k] == '#');
			if (CHECK_EQ_INT(wss_base64_encode(raw + a, n, 0, &b),
					 LAB_OK))
				CHECK_EQ_MEM(b.data, b.len, want, k);
			lab_buf_free(&b);
		}
	}
}

/* Every byte value and length, one line and broken lines, both ways. */
static void base64_roundtrip(void)
{
	static const size_t lines[] = {0, 4, 64, 76};
	unsigned char raw[300];
	size_t n, l, i;

	for (i = 0; i < sizeof raw; i++)
		raw[i] = (unsigned char)(i * 7 + 3);
	for (l = 0; l < sizeof lines / sizeof lines[0]; l++)
		for (n = 0; n <= sizeof raw; n++) {
			lab_buf enc = LAB_BUF_INIT, dec = LAB_BUF_INIT;
			lab_err err;

			t_context("%zu bytes, lines of %zu", n, lines[l]);
			lab_err_clear(&err);
			if (CHECK_EQ_INT(wss_base64_encode(raw, n, lines[l], &enc),
					 LAB_OK) &&
			    CHECK_OK(wss_base64_decode(enc.data, enc.len, &dec,
						       &err), &err))
				CHECK_EQ_MEM(dec.data, dec.len, raw, n);
			lab_buf_free(&enc);
			lab_buf_free(&dec);
		}
}

static void base64_lines(void)
{
	unsigned char raw[96];
	lab_buf b = LAB_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof raw; i++)
		raw[i] = (unsigned char)i;
	/* 96 bytes = 128 characters: two lines of 64, no newline at the end. */
	CHECK_EQ_INT(wss_base64_encode(raw, 96, 64, &b), LAB_OK);
	CHECK_EQ_INT(b.len, 129);
	CHECK(b.len == 129 && b.data[64] == '\n' && b.data[128] != '\n');
	CHECK(strchr(b.data, '\n') == b.data + 64);
	lab_buf_free(&b);
	/* 3 bytes at line length 4: one quantum, no newline at all. */
	CHECK_EQ_INT(wss_base64_encode("abc", 3, 4, &b), LAB_OK);
	CHECK_EQ_STR(b.data, "YWJj");
	lab_buf_free(&b);
	CHECK_EQ_INT(wss_base64_encode("abcdefg", 7, 4, &b), LAB_OK);
	CHECK_EQ_STR(b.data, "YWJj\nZGVm\nZw==");
	/* Appends; a bad line length changes nothing. */
	CHECK_EQ_INT(wss_base64_encode("f", 1, 0, &b), LAB_OK);
	CHECK_EQ_STR(b.data, "YWJj\nZGVm\nZw==Zg==");
	CHECK_EQ_INT(wss_base64_encode("f", 1, 6, &b), LAB_EUSAGE);
	CHECK_EQ_STR(b.data, "YWJj\nZGVm\nZw==Zg==");
	lab_buf_free(&b);
}

static void base64_whitespace(void)
{
	static const char *const ok[] = {
		" Zm9v YmFy ", "\tZm9v\r\nYmFy\n", "Z m 9 v Y m F y",
		"\n\n\nZm9vYmFy\r\n\t ", "Zm9vYg=\n=", "Zm9vYg = = \n",
	};
	static const char *const want[] = {
		"foobar", "foobar", "foobar", "foobar", "foob", "foob",
	};
	size_t i;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		lab_buf b = LAB_BUF_INIT;
		lab_err err;

		t_context("\"%s\"", ok[i]);
		lab_err_clear(&err);
		CHECK_OK(wss_base64_decode(ok[i], strlen(ok[i]), &b, &err), &err);
		CHECK_EQ_MEM(b.data, b.len, want[i], strlen(want[i]));
		lab_buf_free(&b);
	}
	t_context("only whitespace");
	{
		lab_buf b = LAB_BUF_INIT;
		lab_err err;

		CHECK_OK(wss_base64_decode(" \n\t\r ", 5, &b, &err), &err);
		CHECK_EQ_INT(b.len, 0);
		lab_buf_free(&b);
	}
}

static void base64_rejects(void)
{
	static const char *const bad[] = {
		"Zm9v!", "Zm-9", "Zm9v\xc3\xa9", "Zm9v\v", "Zm9v\f", "Zm_v",
		"Zg", "Zm9vY", "Zg=", "Z===", "=", "====", "Zm9=v", "Zg==Zg==",
		"Zg==A", "Zm9vY===", "Zh==", "Zm9=", "Zm\0v",
	};
	static const size_t len[] = {
		5, 4, 6, 5, 5, 4, 2, 5, 3, 4, 1, 4, 5, 8, 5, 8, 4, 4, 4,
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		lab_buf b = LAB_BUF_INIT;
		lab_err err;

		t_context("case %zu", i);
		lab_err_clear(&err);
		CHECK_EQ_INT(lab_buf_puts(&b, "kept"), LAB_OK);
		CHECK_EQ_INT(wss_base64_decode(bad[i], len[i], &b, &err),
			     LAB_EMALFORMED);
		CHECK(strncmp(err.msg, "invalid base64", 14) == 0);
		CHECK_EQ_INT(b.len, 4);
		CHECK_EQ_STR(b.data, "kept");
		lab_buf_free(&b);
	}
}

/*
 * Every byte value at every position of a 64-character text (the wide
 * loops take 16 characters a test): accepted exactly when the byte is in
 * the alphabet, and then decoded as the one-character-at-a-time
 * definition below says; anything else -- '=' inside, whitespace leaving
 * 63 characters, a byte outside the alphabet -- refused, a byte outside
 * the alphabet at its own offset.
 */
static void base64_every_byte(void)
{
	static const char alpha[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char text[65], at[32];
	unsigned char want[48];
	size_t p, i;
	unsigned b;

	for (i = 0; i < 64; i++)
		text[i] = alpha[(i * 37 + 11) % 64];
	text[64] = '\0';
	for (p = 0; p < 64; p++)
		for (b = 0; b < 256; b++) {
			const char *pos = b != 0 ? strchr(alpha, (int)b) : NULL;
			char t[65];
			lab_buf out = LAB_BUF_INIT;
			lab_err err;
			int rc;

			memcpy(t, text, sizeof t);
			t[p] = (char)b;
			lab_err_clear(&err);
			rc = wss_base64_decode(t, 64, &out, &err);
			t_context("byte 0x%02x at %zu", b, p);
			if (pos == NULL) {
				CHECK_EQ_INT(rc, LAB_EMALFORMED);
				snprintf(at, sizeof at, "offset %zu", p);
				if (b != '=' && b != ' ' && b != '\t' &&
				    b != '\r' && b != '\n')
					CHECK(strstr(err.msg, at) != NULL);
			} else if (CHECK_OK(rc, &err)) {
				for (i = 0; i < 16; i++) {
					uint32_t v = 0;
					size_t k;

					for (k = 0; k < 4; k++)
						v = v << 6 |
						    (uint32_t)(strchr(alpha,
							      t[4 * i + k]) -
							       alpha);
					want[3 * i] = (unsigned char)(v >> 16);
					want[3 * i + 1] = (unsigned char)(v >> 8);
					want[3 * i + 2] = (unsigned char)v;
				}
				CHECK_EQ_MEM(out.data, out.len, want, 48);
			}
			lab_buf_free(&out);
		}
}

/* RFC 4648 decoding one character at a time, XML whitespace skipped,
 * as a reference for the decoder's block paths: NULL and the bytes at o
 * (*olen of them), or what is wrong and its offset in *at. */
static const char *ref_unbase64(const unsigned char *s, size_t n,
				unsigned char *o, size_t *olen, size_t *at)
{
	uint32_t acc = 0;
	unsigned q = 0, eqs = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned c = s[i];

		*at = i;
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			eqs++;
			if (q < 2 || q + eqs > 4)
				return "misplaced '='";
			continue;
		}
		if (c >= 'A' && c <= 'Z')
			c -= 'A';
		else if (c >= 'a' && c <= 'z')
			c = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			c = c - '0' + 52;
		else if (c == '+')
			c = 62;
		else if (c == '/')
			c = 63;
		else
			return "character not in the alphabet";
		if (eqs != 0)
			return "data after padding";
		acc = acc << 6 | c;
		if (++q == 4) {
			o[k++] = (unsigned char)(acc >> 16);
			o[k++] = (unsigned char)(acc >> 8);
			o[k++] = (unsigned char)acc;
			q = 0;
			acc = 0;
		}
	}
	*at = n;
	if (q != 0 && q + eqs != 4)
		return "missing padding";
	if ((q == 2 && (acc & 0xf) != 0) || (q == 3 && (acc & 0x3) != 0))
		return "non-zero bits before '='";
	if (q == 2)
		o[k++] = (unsigned char)(acc >> 4);
	if (q == 3) {
		o[k++] = (unsigned char)(acc >> 10);
		o[k++] = (unsigned char)(acc >> 2);
	}
	*olen = k;
	return NULL;
}

/* wss_base64_decode(s, n) appended to "kept" against the reference:
 * the same bytes, or the same message with "kept" left alone. */
static void decode_as_reference(const unsigned char *s, size_t n,
				unsigned char *want)
{
	lab_buf b = LAB_BUF_INIT;
	lab_err err;
	size_t wlen = 0, at = 0;
	const char *what = ref_unbase64(s, n, want, &wlen, &at);
	int rc;

	lab_err_clear(&err);
	if (!CHECK_EQ_INT(lab_buf_puts(&b, "kept"), LAB_OK))
		return;
	rc = wss_base64_decode((const char *)s, n, &b, &err);
	if (what == NULL) {
		if (CHECK_OK(rc, &err))
			CHECK_EQ_MEM(b.data + 4, b.len - 4, want, wlen);
	} else {
		char msg[128];

		snprintf(msg, sizeof msg, "invalid base64: %s at offset %zu",
			 what, at);
		CHECK_EQ_INT(rc, LAB_EMALFORMED);
		CHECK_EQ_STR(err.msg, msg);
		CHECK_EQ_INT(b.len, 4);
		CHECK_EQ_STR(b.data, "kept");
	}
	CHECK_EQ_INT(b.data[b.len], '\0');
	lab_buf_free(&b);
}

static unsigned rnd15(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 16 & 0x7fff;
}

/* Text of about len characters at t (room for 2 * len + 16), raw room
 * for len bytes: kind 0 the encoding of random bytes, 1 that with
 * whitespace strewn in, 2 with one byte replaced by any byte, 3 mostly
 * alphabet with '=', whitespace and bytes outside it mixed in.  Returns
 * its length. */
static size_t random_text(unsigned char *t, unsigned char *raw, size_t len,
			  unsigned kind, uint32_t *x)
{
	static const char odd[] = "= \t\r\n!-_.:@[`{\x7f\x80\xc3\xff";
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *e = t + len + 8;
	size_t i, j, w, k, n = len * 3 / 4;

	if (kind == 3) {
		for (i = 0; i < len; i++)
			t[i] = rnd15(x) % 8 != 0
				       ? (unsigned char)a[rnd15(x) % 64]
				       : (unsigned char)odd[rnd15(x) %
							    (sizeof odd - 1)];
		return len;
	}
	for (i = 0; i < n; i++)
		raw[i] = (unsigned char)rnd15(x);
	if (kind != 1) {
		k = ref_base64(raw, n, (char *)t);
		if (kind == 2 && k > 0)
			t[rnd15(x) % k] = (unsigned char)rnd15(x);
		return k;
	}
	/* Encoded at len + 8 (at most len + 4 characters), then copied
	 * down with a whitespace character before about one in twelve; the
	 * copy stays below what it reads while fewer than len go in. */
	k = ref_base64(raw, n, (char *)t + len + 8);
	for (i = j = w = 0; j < k; j++) {
		if (w < len && rnd15(x) % 12 == 0) {
			t[i++] = (unsigned char)" \t\r\n"[rnd15(x) % 4];
			w++;
		}
		t[i++] = e[j];
	}
	return i;
}

/*
 * Random texts of every length to 300 and a few long ones, at any
 * alignment, through every decoding path (32, 16, 8, 4 characters a turn
 * and one at a time): the reference's bytes or its error.
 */
static void base64_decode_as_reference(void)
{
	static const size_t far[] = {1000, 1023, 4096, 4101, 70001};
	static unsigned char t[2 * 70001 + 16 + 32], raw[70001],
		want[70001];
	size_t i, n, a;
	unsigned kind, r;
	uint32_t x = 7;

	for (i = 0; i <= 300 + sizeof far / sizeof far[0]; i++) {
		size_t len = i <= 300 ? i : far[i - 301];

		for (kind = 0; kind < 4; kind++)
			for (r = 0; r < (i <= 300 ? 6u : 2u); r++) {
				a = rnd15(&x) % 32;
				n = random_text(t + a, raw, len, kind, &x);
				t_context("kind %u, %zu characters at %zu, "
					  "round %u", kind, n, a, r);
				decode_as_reference(t + a, n, want);
			}
	}
}

/*
 * Each byte outside the alphabet at every offset of a 1000-character
 * text, all but its last 8 characters in 32-character blocks: refused at
 * its own offset, but for '=' and whitespace, which the reference judges
 * (they may fail further on, or, '=' near the end, leave a valid text).
 */
static void base64_refuses_everywhere(void)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	static unsigned char raw[750], t[1000], want[750];
	char msg[128];
	size_t p, i;
	unsigned b;
	uint32_t x = 11;

	for (i = 0; i < sizeof raw; i++)
		raw[i] = (unsigned char)rnd15(&x);
	if (!CHECK_EQ_INT(ref_base64(raw, sizeof raw, (char *)t), sizeof t))
		return;
	for (p = 0; p < sizeof t; p++)
		for (b = 0; b < 256; b++) {
			unsigned char keep = t[p];
			lab_buf out = LAB_BUF_INIT;
			lab_err err;

			if (b != 0 && strchr(a, (int)b) != NULL)
				continue;
			t_context("byte 0x%02x at %zu", b, p);
			t[p] = (unsigned char)b;
			if (b == '=' || b == ' ' || b == '\t' || b == '\r' ||
			    b == '\n') {
				decode_as_reference(t, sizeof t, want);
			} else {
				lab_err_clear(&err);
				snprintf(msg, sizeof msg,
					 "invalid base64: character not in the "
					 "alphabet at offset %zu", p);
				CHECK_EQ_INT(wss_base64_decode((char *)t,
							       sizeof t, &out,
							       &err),
					     LAB_EMALFORMED);
				CHECK_EQ_STR(err.msg, msg);
				CHECK_EQ_INT(out.len, 0);
			}
			t[p] = keep;
			lab_buf_free(&out);
		}
}

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

/* ---- interop with xmlsec1 ---------------------------------------------- */

/*
 * W3C XML Encryption interop (Phaos): aes128-cbc data, session key under
 * rsa-oaep-mgf1p.  The CipherValues are indented with tabs and spaces.
 * The key is PKCS#1 DER; wrapped as PEM here for wss_privkey_load.
 */
static void xmlsec_phaos_oaep_cbc(void)
{
	static const char *const names[] = {"phaos.pem"};
	lab_buf xml = LAB_BUF_INIT, data = LAB_BUF_INIT, der = LAB_BUF_INIT;
	lab_buf pem = LAB_BUF_INIT, ek = LAB_BUF_INIT, ed = LAB_BUF_INIT;
	lab_buf pt = LAB_BUF_INIT, cert_der = LAB_BUF_INIT;
	unsigned char key[WSS_MAX_KEY_LEN];
	wss_privkey *k = NULL;
	wss_cert *cert = NULL, *ours = NULL;
	char dir[256], path[512];
	size_t klen = 0;
	lab_err err;

	lab_err_clear(&err);
	if (!READ_FILE(E1 ".xml", &xml) || !READ_FILE(E1 ".data", &data) ||
	    !READ_FILE(VECTORS "/xmlsec/01-phaos-xmlenc-3/rsa-priv-key.der",
		       &der) ||
	    !element_b64(xml.data, "CipherValue", 0, &ek) ||
	    !element_b64(xml.data, "CipherValue", 1, &ed) ||
	    !element_b64(xml.data, "X509Certificate", 0, &cert_der))
		goto out;
	CHECK_EQ_INT(lab_buf_puts(&pem, "-----BEGIN RSA PRIVATE KEY-----\n"),
		     LAB_OK);
	CHECK_EQ_INT(wss_base64_encode(der.data, der.len, 64, &pem), LAB_OK);
	CHECK_EQ_INT(lab_buf_puts(&pem, "\n-----END RSA PRIVATE KEY-----\n"),
		     LAB_OK);
	if (!t_tmp_dir(dir, sizeof dir))
		goto out;
	if (t_write_tmp(dir, names[0], pem.data, pem.len, path, sizeof path))
		k = LOAD_KEY(path);
	t_rm_tmp(dir, names, 1);
	if (k == NULL)
		goto out;
	if (!CHECK_OK(wss_rsa_oaep_unwrap(k, (unsigned char *)ek.data, ek.len,
					  key, sizeof key, &klen, &err), &err) ||
	    !CHECK_EQ_INT(klen, 16) ||
	    !CHECK_OK(wss_decrypt(WSS_AES128_CBC, key, ed.data, ed.len, &pt,
				  &err), &err))
		goto out;
	/* Type Element: the plaintext is the CreditCard element of .data,
	 * once its CRLFs are read as an XML parser reads them. */
	CHECK(pt.len > 30 && strncmp(pt.data, "<CreditCard", 11) == 0);
	crlf_to_lf(&pt);
	CHECK(memmem(data.data, data.len, pt.data, pt.len) != NULL);
	CHECK(strstr(pt.data, "4019 2445 0277 5567") != NULL);

	/* The certificate in its KeyInfo: a DER certificate we can read,
	 * and not ours. */
	t_context("X509Certificate");
	if (CHECK_OK(wss_cert_from_der((unsigned char *)cert_der.data,
				       cert_der.len, &cert, &err), &err) &&
	    (ours = LOAD_CERT(CERT_PEM)) != NULL)
		CHECK(!wss_cert_equal(cert, ours));
out:
	lab_buf_free(&xml);
	lab_buf_free(&data);
	lab_buf_free(&der);
	if (pem.data != NULL)
		memset(pem.data, 0, pem.len);
	lab_buf_free(&pem);
	lab_buf_free(&ek);
	lab_buf_free(&ed);
	lab_buf_free(&pt);
	lab_buf_free(&cert_der);
	wss_privkey_free(k);
	wss_cert_free(cert);
	wss_cert_free(ours);
}

/*
 * The messages xmlsec1 sent in this project's profile: the EncryptedKey's
 * CipherValue (first) unwraps with the test key, the EncryptedData's
 * (second) decrypts to the input envelope's Body content.
 */
static void xmlsec_wss_message(const char *file, wss_cipher c)
{
	lab_buf xml = LAB_BUF_INIT, in = LAB_BUF_INIT, ek = LAB_BUF_INIT;
	lab_buf ed = LAB_BUF_INIT, pt = LAB_BUF_INIT;
	unsigned char key[WSS_MAX_KEY_LEN];
	wss_privkey *k = NULL;
	const char *body, *end;
	size_t klen = 0;
	char path[512];
	lab_err err;

	t_context("%s", file);
	lab_err_clear(&err);
	snprintf(path, sizeof path, "%s/wss/%s", VECTORS, file);
	if (!READ_FILE(path, &xml) ||
	    !READ_FILE(VECTORS "/wss/in-quakes-2k.xml", &in) ||
	    !element_b64(xml.data, "CipherValue", 0, &ek) ||
	    !element_b64(xml.data, "CipherValue", 1, &ed) ||
	    (k = LOAD_KEY(KEY_PEM)) == NULL)
		goto out;
	if (!CHECK_OK(wss_rsa_oaep_unwrap(k, (unsigned char *)ek.data, ek.len,
					  key, sizeof key, &klen, &err), &err) ||
	    !CHECK_EQ_INT(klen, wss_cipher_key_len(c)) ||
	    !CHECK_OK(wss_decrypt(c, key, ed.data, ed.len, &pt, &err), &err))
		goto out;
	body = strstr(in.data, "<soap:Body");
	body = body != NULL ? strchr(body, '>') : NULL;
	end = strstr(in.data, "</soap:Body>");
	if (CHECK(body != NULL && end != NULL))
		CHECK_EQ_MEM(pt.data, pt.len, body + 1, (size_t)(end - body - 1));
out:
	lab_buf_free(&xml);
	lab_buf_free(&in);
	lab_buf_free(&ek);
	lab_buf_free(&ed);
	lab_buf_free(&pt);
	wss_privkey_free(k);
}

static void xmlsec_wss_gcm(void)
{
	xmlsec_wss_message("sent-gcm-quakes-2k.xml", WSS_AES256_GCM);
}

static void xmlsec_wss_cbc(void)
{
	xmlsec_wss_message("sent-cbc-quakes-2k.xml", WSS_AES128_CBC);
}

/* ---- the keys axis ----------------------------------------------------- */

static const wss_key_paths all_paths = {KEY_PEM, CERT_PEM, CERT_PEM,
					OTHER_CERT_PEM};

static void keys_acquire(void)
{
	int cached = strcmp(wss__keys_choice, "cached") == 0;
	wss_keyset a = {0}, b = {0}, none = {0};
	wss_key_paths only = {NULL, CERT_PEM, NULL, NULL};
	wss_key_paths missing = {KEY_PEM, VECTORS "/nonexistent.pem", NULL,
				 NULL};
	void *ha = NULL, *hb = NULL, *hn = NULL;
	wss_cert *mine;
	lab_buf sig = LAB_BUF_INIT;
	lab_err err;

	lab_err_clear(&err);
	CHECK(cached || strcmp(wss__keys_choice, "reload") == 0);
	if (!CHECK_OK(wss_keys_acquire(&all_paths, &a, &ha, &err), &err) ||
	    !CHECK_OK(wss_keys_acquire(&all_paths, &b, &hb, &err), &err))
		goto out;
	if (!CHECK(a.key && a.cert && a.peer_cert && a.trust && b.key &&
		   b.cert && b.peer_cert && b.trust))
		goto out;
	CHECK(wss_cert_equal(a.cert, b.cert));
	CHECK(wss_cert_equal(a.cert, a.peer_cert));
	CHECK(wss_cert_equal(a.trust, b.trust));
	CHECK(!wss_cert_equal(a.cert, a.trust));
	if (cached) {
		/* One object per (kind, path), whoever asks. */
		CHECK(a.key == b.key && a.cert == b.cert && a.trust == b.trust);
		CHECK(a.cert == a.peer_cert);
	} else {
		CHECK(a.key != b.key && a.cert != b.cert && a.cert != a.peer_cert);
	}
	/* The keys work: one set signs, the other verifies. */
	if (CHECK_OK(wss_rsa_sign_sha256(a.key, "m", 1, &sig, &err), &err))
		CHECK_OK(wss_rsa_verify_sha256(b.cert, "m", 1,
					       (unsigned char *)sig.data,
					       sig.len, &err), &err);

	t_context("NULL paths give NULL");
	if (CHECK_OK(wss_keys_acquire(&only, &none, &hn, &err), &err))
		CHECK(none.key == NULL && none.cert != NULL &&
		      none.peer_cert == NULL && none.trust == NULL);
	wss_keys_release(hn);
	t_context("a missing file");
	hn = &hn;
	CHECK_EQ_INT(wss_keys_acquire(&missing, &none, &hn, &err), LAB_EIO);
	CHECK(hn == NULL);
out:
	lab_buf_free(&sig);
	wss_keys_release(ha);
	wss_keys_release(hb);
	wss_keys_cache_clear();
	/* After a clear, the files are read again. */
	t_context("after a clear");
	mine = LOAD_CERT(CERT_PEM);
	if (CHECK_OK(wss_keys_acquire(&all_paths, &a, &ha, &err), &err) &&
	    mine != NULL)
		CHECK(wss_cert_equal(a.cert, mine));
	wss_keys_release(ha);
	wss_keys_cache_clear();
	wss_cert_free(mine);
}

typedef struct job {
	wss_keyset set;
	void *handle;
	int rc;
	lab_err err;
} job;

static void *acquire_job(void *arg)
{
	job *j = arg;

	lab_err_clear(&j->err);
	j->rc = wss_keys_acquire(&all_paths, &j->set, &j->handle, &j->err);
	return NULL;
}

/* Threads acquiring at once all get good keys (cached: the same ones). */
static void keys_threads(void)
{
	enum { NT = 8 };
	pthread_t th[NT];
	job jobs[NT];
	int started[NT], i;
	lab_buf sig = LAB_BUF_INIT;
	lab_err err;

	memset(jobs, 0, sizeof jobs);
	for (i = 0; i < NT; i++)
		started[i] = CHECK(pthread_create(&th[i], NULL, acquire_job,
						  &jobs[i]) == 0);
	for (i = 0; i < NT; i++)
		if (started[i])
			CHECK(pthread_join(th[i], NULL) == 0);
	for (i = 0; i < NT; i++) {
		t_context("thread %d", i);
		if (!started[i] || !CHECK_OK(jobs[i].rc, &jobs[i].err))
			continue;
		CHECK(wss_cert_equal(jobs[i].set.cert, jobs[0].set.cert));
		if (strcmp(wss__keys_choice, "cached") == 0)
			CHECK(jobs[i].set.key == jobs[0].set.key);
		lab_buf_free(&sig);
		lab_err_clear(&err);
		if (CHECK_OK(wss_rsa_sign_sha256(jobs[i].set.key, "t", 1, &sig,
						 &err), &err))
			CHECK_OK(wss_rsa_verify_sha256(jobs[0].set.cert, "t", 1,
						       (unsigned char *)sig.data,
						       sig.len, &err), &err);
	}
	for (i = 0; i < NT; i++)
		if (started[i] && jobs[i].rc == LAB_OK)
			wss_keys_release(jobs[i].handle);
	lab_buf_free(&sig);
	wss_keys_cache_clear();
}

const t_case tests_crypto[] = {
	{"crypto/sha256_kat", sha256_kat},
	{"crypto/sha1_kat", sha1_kat},
	{"crypto/sha256_streaming", sha256_streaming},
	{"crypto/ct_equal", ct_equal},
	{"crypto/base64_rfc4648", base64_rfc4648},
	{"crypto/base64_roundtrip", base64_roundtrip},
	{"crypto/base64_as_reference", base64_as_reference},
	{"crypto/base64_lines", base64_lines},
	{"crypto/base64_whitespace", base64_whitespace},
	{"crypto/base64_rejects", base64_rejects},
	{"crypto/base64_every_byte", base64_every_byte},
	{"crypto/base64_decode_as_reference", base64_decode_as_reference},
	{"crypto/base64_refuses_everywhere", base64_refuses_everywhere},
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
	{"crypto/random", random_bytes},
	{"crypto/xmlsec_phaos_oaep_cbc", xmlsec_phaos_oaep_cbc},
	{"crypto/xmlsec_wss_gcm", xmlsec_wss_gcm},
	{"crypto/xmlsec_wss_cbc", xmlsec_wss_cbc},
	{"crypto/keys_acquire", keys_acquire},
	{"crypto/keys_threads", keys_threads},
	{NULL, NULL},
};
