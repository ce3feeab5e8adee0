/*
 * base64.c - the base64 encoder (RFC 4648, standard alphabet, padded)
 * that the DOM's base64 texts (dom_create_text_b64) and wss share.
 *
 * It sizes nothing and writes straight to where it is told.  Six bytes a
 * turn from one 8-byte load; on x86-64 CPUs with SSSE3 (checked at run
 * time) 12 bytes a turn with byte shuffles first (the method of W. Mula
 * and D. Lemire, "Faster Base64 Encoding and Decoding Using AVX2
 * Instructions", 2018), 24 with AVX2 where the CPU has it.
 * Not for: decoding, which is XML Signature's business and its rules
 * (wss/base64.c).
 */
#include "util/base64.h"

#include <endian.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "util/cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define B64_X86 1
#include <immintrin.h>
#else
#define B64_X86 0
#endif

static const char enc[64] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/*
 * A per-process cache filled once (pthread_once), read-only afterwards,
 * so safe from any thread: the two characters of every 12-bit value (a
 * quantum costs two lookups instead of four), and what util/cpu.h allows.
 */
static char pairs[4096][2];
static int have_ssse3;
static int have_avx2;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_tables(void)
{
	unsigned i;

	for (i = 0; i < 4096; i++) {
		pairs[i][0] = enc[i >> 6];
		pairs[i][1] = enc[i & 63];
	}
#if B64_X86
	have_ssse3 = lab_cpu_has(LAB_CPU_SSSE3);
	have_avx2 = lab_cpu_has(LAB_CPU_AVX2);
#endif
}

#if B64_X86
/*
 * Whole blocks of 12 bytes (16 readable) to 16 characters while
 * i + 16 <= n; returns the bytes consumed.  Each 3-byte group is spread
 * over four bytes, its sextets moved into place by two multiplies, then
 * each sextet offset to its character by a 16-entry table indexed by its
 * range.
 */
__attribute__((target("ssse3"))) static size_t enc_blocks(
	const unsigned char *in, size_t n, char *o)
{
	const __m128i lut = _mm_setr_epi8(65, 71, -4, -4, -4, -4, -4, -4, -4,
					  -4, -4, -4, -19, -16, 0, 0);
	const __m128i spread = _mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8,
					     7, 10, 9, 11, 10);
	size_t i;

	for (i = 0; i + 16 <= n; i += 12, o += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
		__m128i hi, lo, idx;

		v = _mm_shuffle_epi8(v, spread);
		hi = _mm_mulhi_epu16(_mm_and_si128(v, _mm_set1_epi32(0x0fc0fc00)),
				     _mm_set1_epi32(0x04000040));
		lo = _mm_mullo_epi16(_mm_and_si128(v, _mm_set1_epi32(0x003f03f0)),
				     _mm_set1_epi32(0x01000010));
		v = _mm_or_si128(hi, lo);
		/* 0 for A-Z, 1 a-z, 2-11 digits, 12 '+', 13 '/'. */
		idx = _mm_subs_epu8(v, _mm_set1_epi8(51));
		idx = _mm_sub_epi8(idx, _mm_cmpgt_epi8(v, _mm_set1_epi8(25)));
		v = _mm_add_epi8(v, _mm_shuffle_epi8(lut, idx));
		_mm_storeu_si128((__m128i *)(void *)o, v);
	}
	return i;
}

/*
 * The same on 24 bytes (28 readable) to 32 characters a turn while
 * i + 28 <= n: each 128-bit lane takes 12 bytes from a load of its own,
 * as AVX2's byte shuffle stays within a lane.
 */
__attribute__((target("avx2"))) static size_t enc_blocks_avx2(
	const unsigned char *in, size_t n, char *o)
{
	const __m256i lut = _mm256_setr_epi8(
		65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0,
		65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0);
	const __m256i spread = _mm256_setr_epi8(
		1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,
		1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10);
	size_t i;

	for (i = 0; i + 28 <= n; i += 24, o += 32) {
		__m256i v = _mm256_inserti128_si256(
			_mm256_castsi128_si256(_mm_loadu_si128(
				(const __m128i *)(const void *)(in + i))),
			_mm_loadu_si128((const __m128i *)(const void *)(in + i + 12)),
			1);
		__m256i hi, lo, idx;

		v = _mm256_shuffle_epi8(v, spread);
		hi = _mm256_mulhi_epu16(
			_mm256_and_si256(v, _mm256_set1_epi32(0x0fc0fc00)),
			_mm256_set1_epi32(0x04000040));
		lo = _mm256_mullo_epi16(
			_mm256_and_si256(v, _mm256_set1_epi32(0x003f03f0)),
			_mm256_set1_epi32(0x01000010));
		v = _mm256_or_si256(hi, lo);
		idx = _mm256_subs_epu8(v, _mm256_set1_epi8(51));
		idx = _mm256_sub_epi8(idx,
				      _mm256_cmpgt_epi8(v, _mm256_set1_epi8(25)));
		v = _mm256_add_epi8(v, _mm256_shuffle_epi8(lut, idx));
		_mm256_storeu_si256((__m256i *)(void *)o, v);
	}
	return i;
}
#endif

size_t lab_base64_len(size_t n)
{
	return (n / 3 + (n % 3 != 0)) * 4;
}

char *lab_base64_put(const void *p, size_t n, size_t line_len, char *o)
{
	const unsigned char *in = p;
	size_t col = 0, i;

	/* Without line breaks (what the pipeline writes), no column test. */
	if (line_len == 0 && n >= 3 &&
	    pthread_once(&tables_once, make_tables) != 0)
		return NULL;
	i = 0;
#if B64_X86
	if (line_len == 0 && n >= 28 && have_avx2) {
		i = enc_blocks_avx2(in, n, o);
		o += i / 3 * 4;
	}
	if (line_len == 0 && n - i >= 16 && have_ssse3) {
		size_t k = enc_blocks(in + i, n - i, o);

		i += k;
		o += k / 3 * 4;
	}
#endif
	/* Two quanta a turn from one 8-byte load (its top six bytes, in
	 * big-endian order whatever the host's), four pair lookups. */
	for (; line_len == 0 && i + 8 <= n; i += 6) {
		uint64_t v;

		memcpy(&v, in + i, 8);
		v = be64toh(v) >> 16;
		memcpy(o, pairs[v >> 36], 2);
		memcpy(o + 2, pairs[v >> 24 & 0xfff], 2);
		memcpy(o + 4, pairs[v >> 12 & 0xfff], 2);
		memcpy(o + 6, pairs[v & 0xfff], 2);
		o += 8;
	}
	for (; line_len == 0 && i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
			     in[i + 2];

		memcpy(o, pairs[v >> 12], 2);
		memcpy(o + 2, pairs[v & 0xfff], 2);
		o += 4;
	}
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
			     in[i + 2];

		/* line_len is a multiple of 4: breaks fall between quanta. */
		if (col == line_len && line_len != 0) {
			*o++ = '\n';
			col = 0;
		}
		o[0] = enc[v >> 18];
		o[1] = enc[v >> 12 & 63];
		o[2] = enc[v >> 6 & 63];
		o[3] = enc[v & 63];
		o += 4;
		col += 4;
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (col == line_len && line_len != 0)
			*o++ = '\n';
		o[0] = enc[v >> 18];
		o[1] = enc[v >> 12 & 63];
		o[2] = i + 1 < n ? enc[v >> 6 & 63] : '=';
		o[3] = '=';
		o += 4;
	}
	return o;
}
