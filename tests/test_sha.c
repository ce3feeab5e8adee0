/*
 * test_sha.c - wss/crypto.h's digests: FIPS 180 known answers for SHA-256
 * and SHA-1, SHA-256 fed in pieces of every size, and the constant-time
 * compare.
 * Not tested here: base64 (test_base64.c), RSA and AES (test_rsa_aes.c).
 */
#include <stdlib.h>

#include "tests/util.h"
#include "wss/crypto.h"

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

const t_case tests_sha[] = {
	{"crypto/sha256_kat", sha256_kat},
	{"crypto/sha1_kat", sha1_kat},
	{"crypto/sha256_streaming", sha256_streaming},
	{"crypto/ct_equal", ct_equal},
	{NULL, NULL},
};
