/*
 * test_wordscan.c - util/wordscan.h: each word planted at every position
 * of buffers of every length up to a few vector blocks (so at block
 * boundaries and in the byte-by-byte tail) is found, also among near
 * misses packed close; a near miss, whose first and last bytes are a
 * word's but not its middle, and random bytes from an alphabet that
 * cannot spell a word are not; a word cut off by the buffer's end is
 * not; lab_words_at finds a word where it starts, with room for it.
 * make test runs it with AVX2 and again held to SSE2 (DOMLAB_SIMD=sse2),
 * so both block loops are covered.
 * Not tested here: wss/xenc.c's use of it (the wrapping tests in
 * tests/test_wss.c).
 */
#include <string.h>

#include "tests/util.h"
#include "util/alloc.h"
#include "util/wordscan.h"

static const lab_words soap = {{"Envelope", "Header", "Body"}, {8, 6, 4}, 3};

enum { LEN = 130 };

/* buf[0..n) of bytes no word holds, from a fixed sequence. */
static void filler(char *buf, size_t n, unsigned seed)
{
	static const char alphabet[] = "<>/=\" acdfgikmnqstuvwxz0123456789";
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
	}
}

/* Buffers of exactly n bytes, on the heap, so that the sanitizers'
 * runs catch a read past the end. */
static void wordscan_found_everywhere(void)
{
	size_t n, at, k;
	int ok = 1;

	for (n = 1; n <= LEN; n++) {
		char *buf = lab_malloc(n);

		if (!CHECK(buf != NULL))
			return;
		for (k = 0; k < soap.n; k++)
			for (at = 0; at + soap.len[k] <= n; at++) {
				filler(buf, n, (unsigned)(n * 31 + at));
				memcpy(buf + at, soap.w[k], soap.len[k]);
				ok &= lab_words_any(buf, n, &soap) == 1;
			}
		filler(buf, n, (unsigned)n);
		ok &= lab_words_any(buf, n, &soap) == 0;
		lab_free(buf);
	}
	CHECK(ok);
}

/* Near misses packed close, then one word over them at every
 * position: a block holds several candidates, of which the word is
 * any one. */
static void wordscan_among_near_misses(void)
{
	static const char near[] = "BzzyHzzzzrEzzzzzze";
	char buf[LEN];
	size_t at, k, i;
	int ok = 1;

	for (k = 0; k < soap.n; k++)
		for (at = 0; at + soap.len[k] <= LEN; at++) {
			for (i = 0; i < LEN; i++)
				buf[i] = near[i % (sizeof near - 1)];
			ok &= lab_words_any(buf, LEN, &soap) == 0;
			memcpy(buf + at, soap.w[k], soap.len[k]);
			ok &= lab_words_any(buf, LEN, &soap) == 1;
		}
	CHECK(ok);
}

/* "Bzzy", "Hzzzzr", "Ezzzzzze" at every position: each block's first
 * test passes and the whole compare says no. */
static void wordscan_near_misses(void)
{
	static const char *const near[] = {"Bzzy", "Hzzzzr", "Ezzzzzze",
					   "Bod", "Heade", "Envelop"};
	char buf[LEN];
	size_t at, k;
	int ok = 1;

	for (k = 0; k < sizeof near / sizeof near[0]; k++)
		for (at = 0; at + strlen(near[k]) <= LEN; at++) {
			filler(buf, LEN, (unsigned)at);
			memcpy(buf + at, near[k], strlen(near[k]));
			ok &= lab_words_any(buf, LEN, &soap) == 0;
		}
	CHECK(ok);
}

/* A word whose last bytes lie past n is not in p[0..n). */
static void wordscan_cut_off(void)
{
	char buf[LEN];
	size_t n;
	int ok = 1;

	for (n = 40; n < 100; n++) {
		filler(buf, LEN, (unsigned)n);
		memcpy(buf + n - 3, "Body", 4);
		ok &= lab_words_any(buf, n, &soap) == 0;
		ok &= lab_words_any(buf, n + 1, &soap) == 1;
	}
	CHECK(ok);
}

/* lab_words_at: a word at p with room for it, not with one byte less,
 * nor where only its first and last bytes are the word's. */
static void wordscan_at(void)
{
	size_t k;

	for (k = 0; k < soap.n; k++) {
		CHECK_EQ_INT(lab_words_at(soap.w[k], soap.len[k], &soap), 1);
		CHECK_EQ_INT(lab_words_at(soap.w[k], soap.len[k] - 1, &soap), 0);
	}
	CHECK_EQ_INT(lab_words_at("Bzzy", 4, &soap), 0);
	CHECK_EQ_INT(lab_words_at("Bodyguard", 9, &soap), 1);
	CHECK_EQ_INT(lab_words_at("", 0, &soap), 0);
}

const t_case tests_wordscan[] = {
	{"util/wordscan_at", wordscan_at},
	{"util/wordscan_found_everywhere", wordscan_found_everywhere},
	{"util/wordscan_among_near_misses", wordscan_among_near_misses},
	{"util/wordscan_near_misses", wordscan_near_misses},
	{"util/wordscan_cut_off", wordscan_cut_off},
	{NULL, NULL},
};
