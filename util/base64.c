/*
 * base64.c - base64 (RFC 4648, standard alphabet, padded) both ways: the
 * encoder the DOM's base64 texts (dom_create_text_b64) and wss share, and
 * the decoder with XML Signature's rules (whitespace anywhere, one
 * accepted encoding per byte string).
 *
 * The encoder sizes nothing and writes straight to where it is told.  Six
 * bytes a turn from one 8-byte load; on x86-64 CPUs with SSSE3 (checked
 * at run time) 12 bytes a turn with byte shuffles first (the method of
 * W. Mula and D. Lemire, "Faster Base64 Encoding and Decoding Using AVX2
 * Instructions", 2018), 24 with AVX2 where the CPU has it.
 *
 * The decoder sizes the output once and writes straight into the
 * buffer.  It takes eight characters, then four, at a time while they
 * are all in the alphabet (one OR of the table entries tells), and drops
 * to a character-at-a-time loop only around whitespace and padding, so
 * the common layouts -- one line, or 64/76-column lines -- cost one test
 * per quantum.  With SSSE3 it first takes 16 characters a turn (the same
 * method), and 32 with AVX2; a block holding anything but the 64
 * alphabet characters goes to the narrower paths and then the scalar
 * loops, which keep every rule and error message.
 *
 * Our own table-driven code rather than OpenSSL's: it is on the hot path
 * (every CipherValue of a large Body) and the whitespace rules are XML's.
 * Not for: streaming decode (callers have the whole text node), the
 * URL-safe alphabet, unpadded input.
 */
#include "util/base64.h"

#include <endian.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "util/cpu.h"

static const char enc[64] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Decoding classes above the 6-bit values: whitespace, '=' and the
 * rest, which the character-at-a-time loop tells apart. */
enum { WS = 64, EQ = 65, XX = 255 };

static const unsigned char dec[256] = {
	XX, XX, XX, XX, XX, XX, XX, XX, XX, WS, WS, XX, XX, WS, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
	WS, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, 62, XX, XX, XX, 63,
	52, 53, 54, 55, 56, 57, 58, 59, 60, 61, XX, XX, XX, EQ, XX, XX,
	XX,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, XX, XX, XX, XX, XX,
	XX, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
	41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, XX, XX, XX, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
	XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
};

/*
 * A per-process cache filled once (pthread_once), read-only afterwards,
 * so safe from any thread: the two characters of every 12-bit value (a
 * quantum costs two encoder lookups instead of four); each character's
 * sextet already shifted to its place in a quantum, with bit 31 set
 * outside the alphabet (four lookups and ORs decode a quantum and
 * validate it); and what util/cpu.h allows.
 */
static char pairs[4096][2];
static uint32_t sextets[4][256];
static int have_ssse3;
static int have_avx2;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_tables(void)
{
	unsigned i, k;

	for (i = 0; i < 4096; i++) {
		pairs[i][0] = enc[i >> 6];
		pairs[i][1] = enc[i & 63];
	}
	for (i = 0; i < 256; i++)
		for (k = 0; k < 4; k++)
			sextets[k][i] = dec[i] < 64
						? (uint32_t)dec[i] << (18 - 6 * k)
						: UINT32_C(1) << 31;
#if LAB_X86_VECTORS
	have_ssse3 = lab_cpu_has(LAB_CPU_SSSE3);
	have_avx2 = lab_cpu_has(LAB_CPU_AVX2);
#endif
}

#if LAB_X86_VECTORS
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
/*
 * Blocks of 16 characters to 12 bytes (16 writable at o) while n >= 16
 * and every character of the block is in the alphabet; returns the
 * characters consumed.  A character is in it when the table entries for
 * its low and its high nibble share no bit.
 */
__attribute__((target("ssse3"))) static size_t dec_blocks(
	const unsigned char *in, size_t n, unsigned char *o)
{
	const __m128i lut_lo = _mm_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11,
					     0x11, 0x11, 0x11, 0x11, 0x11,
					     0x13, 0x1a, 0x1b, 0x1b, 0x1b,
					     0x1a);
	const __m128i lut_hi = _mm_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04,
					     0x08, 0x04, 0x08, 0x10, 0x10,
					     0x10, 0x10, 0x10, 0x10, 0x10,
					     0x10);
	const __m128i lut_roll = _mm_setr_epi8(0, 16, 19, 4, -65, -65, -71,
					       -71, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m128i pack = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13,
					   12, -1, -1, -1, -1);
	const __m128i m2f = _mm_set1_epi8(0x2f);
	size_t i;

	for (i = 0; i + 16 <= n; i += 16, o += 12) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
		__m128i hin = _mm_and_si128(_mm_srli_epi32(v, 4), m2f);
		__m128i lo = _mm_shuffle_epi8(lut_lo, _mm_and_si128(v, m2f));
		__m128i hi = _mm_shuffle_epi8(lut_hi, hin);

		if (_mm_movemask_epi8(_mm_cmpgt_epi8(
			    _mm_and_si128(lo, hi), _mm_setzero_si128())) != 0)
			break;
		v = _mm_add_epi8(v, _mm_shuffle_epi8(
					    lut_roll,
					    _mm_add_epi8(_mm_cmpeq_epi8(v, m2f),
							 hin)));
		/* Four sextets to one 24-bit value per 32-bit lane, then its
		 * three bytes in order. */
		v = _mm_maddubs_epi16(v, _mm_set1_epi32(0x01400140));
		v = _mm_madd_epi16(v, _mm_set1_epi32(0x00011000));
		_mm_storeu_si128((__m128i *)(void *)o, _mm_shuffle_epi8(v, pack));
	}
	return i;
}

/*
 * The same on 32 characters to 24 bytes (28 writable at o) a turn while
 * n >= 32 and the block is clean.  Each 128-bit lane packs its 12 bytes
 * at its low end (AVX2's byte shuffle stays within a lane), and the two
 * lanes are stored 12 bytes apart, the second over the first's 4 spare
 * bytes: no cross-lane permute, and the same 4 bytes of slack as the
 * 16-character blocks.
 */
__attribute__((target("avx2"))) static size_t dec_blocks_avx2(
	const unsigned char *in, size_t n, unsigned char *o)
{
	const __m256i lut_lo = _mm256_setr_epi8(
		0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
		0x13, 0x1a, 0x1b, 0x1b, 0x1b, 0x1a,
		0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
		0x13, 0x1a, 0x1b, 0x1b, 0x1b, 0x1a);
	const __m256i lut_hi = _mm256_setr_epi8(
		0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10,
		0x10, 0x10, 0x10, 0x10, 0x10, 0x10,
		0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10,
		0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
	const __m256i lut_roll = _mm256_setr_epi8(
		0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m256i pack = _mm256_setr_epi8(
		2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
		2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
	const __m256i m2f = _mm256_set1_epi8(0x2f);
	size_t i;

	for (i = 0; i + 32 <= n; i += 32, o += 24) {
		__m256i v = _mm256_loadu_si256(
			(const __m256i *)(const void *)(in + i));
		__m256i hin = _mm256_and_si256(_mm256_srli_epi32(v, 4), m2f);
		__m256i lo = _mm256_shuffle_epi8(lut_lo,
						 _mm256_and_si256(v, m2f));
		__m256i hi = _mm256_shuffle_epi8(lut_hi, hin);

		/* Both table entries keep bit 7 clear, so any shared bit
		 * is the SSSE3 loop's positive byte. */
		if (!_mm256_testz_si256(lo, hi))
			break;
		v = _mm256_add_epi8(
			v, _mm256_shuffle_epi8(
				   lut_roll,
				   _mm256_add_epi8(_mm256_cmpeq_epi8(v, m2f),
						   hin)));
		v = _mm256_maddubs_epi16(v, _mm256_set1_epi32(0x01400140));
		v = _mm256_madd_epi16(v, _mm256_set1_epi32(0x00011000));
		v = _mm256_shuffle_epi8(v, pack);
		_mm_storeu_si128((__m128i *)(void *)o, _mm256_castsi256_si128(v));
		_mm_storeu_si128((__m128i *)(void *)(o + 12),
				 _mm256_extracti128_si256(v, 1));
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
#if LAB_X86_VECTORS
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

int lab_base64_encode(const void *p, size_t n, size_t line_len, lab_buf *out)
{
	size_t chars, breaks;
	char *o;

	if (line_len % 4 != 0)
		return LAB_EUSAGE;
	if (n / 3 >= ((size_t)-1 - 16) / 4 / 2)
		return LAB_ENOMEM;
	chars = lab_base64_len(n);
	breaks = line_len != 0 && chars != 0 ? (chars - 1) / line_len : 0;
	if (lab_buf_reserve(out, chars + breaks) != LAB_OK)
		return LAB_ENOMEM;
	o = lab_base64_put(p, n, line_len, out->data + out->len);
	if (o == NULL)
		return LAB_ENOMEM;
	out->len = (size_t)(o - out->data);
	out->data[out->len] = '\0';
	return LAB_OK;
}

static int bad(lab_err *err, const char *what, size_t at)
{
	return lab_fail(err, LAB_EMALFORMED, "invalid base64: %s at offset %zu",
			what, at);
}

/* A decode's state between runs over consecutive parts of one text. */
typedef struct dec_state {
	uint32_t acc;
	unsigned q;    /* sextets in acc */
	unsigned eqs;  /* '=' seen */
	size_t base;   /* characters read before this run: error offsets */
} dec_state;

/*
 * The bytes in[0..n) encodes, after what st has seen, written from *o on
 * (advanced): n / 4 * 3 of them at most, and the 16-byte stores of 12
 * may write 4 past the last.  Every store lands below the input
 * characters not yet read (3 bytes for 4 characters, a store after its
 * block's load), so *o may be in itself.  The end's checks are
 * decode_end's.
 */
static int decode_run(dec_state *st, const unsigned char *in, size_t n,
		      unsigned char **op, lab_err *err)
{
	unsigned char *o = *op;
	size_t i = 0;
	uint32_t acc = st->acc;
	unsigned q = st->q, eqs = st->eqs;
	int rc = LAB_OK;

	while (i < n) {
		unsigned v;

		/* The common case in a loop of its own: whole quanta, eight
		 * (AVX2), four (SSSE3) or two a turn while all are clean,
		 * then one. */
#if LAB_X86_VECTORS
		if (have_avx2 && q == 0 && eqs == 0 && n - i >= 32) {
			size_t k = dec_blocks_avx2(in + i, n - i, o);

			o += k / 4 * 3;
			i += k;
		}
		if (have_ssse3 && q == 0 && eqs == 0) {
			size_t k = dec_blocks(in + i, n - i, o);

			o += k / 4 * 3;
			i += k;
		}
#endif
		while (q == 0 && eqs == 0 && n - i >= 8) {
			uint32_t w = sextets[0][in[i]] | sextets[1][in[i + 1]] |
				     sextets[2][in[i + 2]] |
				     sextets[3][in[i + 3]];
			uint32_t x = sextets[0][in[i + 4]] |
				     sextets[1][in[i + 5]] |
				     sextets[2][in[i + 6]] |
				     sextets[3][in[i + 7]];

			if ((w | x) >> 24 != 0)
				break;
			o[0] = (unsigned char)(w >> 16);
			o[1] = (unsigned char)(w >> 8);
			o[2] = (unsigned char)w;
			o[3] = (unsigned char)(x >> 16);
			o[4] = (unsigned char)(x >> 8);
			o[5] = (unsigned char)x;
			o += 6;
			i += 8;
		}
		while (q == 0 && eqs == 0 && n - i >= 4) {
			uint32_t w = sextets[0][in[i]] | sextets[1][in[i + 1]] |
				     sextets[2][in[i + 2]] |
				     sextets[3][in[i + 3]];

			if (w >> 24 != 0)
				break;
			o[0] = (unsigned char)(w >> 16);
			o[1] = (unsigned char)(w >> 8);
			o[2] = (unsigned char)w;
			o += 3;
			i += 4;
		}
		if (i == n)
			break;
		v = dec[in[i]];
		if (v < 64) {
			if (eqs != 0) {
				rc = bad(err, "data after padding", st->base + i);
				break;
			}
			acc = acc << 6 | v;
			if (++q == 4) {
				o[0] = (unsigned char)(acc >> 16);
				o[1] = (unsigned char)(acc >> 8);
				o[2] = (unsigned char)acc;
				o += 3;
				q = 0;
				acc = 0;
			}
		} else if (v == EQ) {
			/* Only "xx==" and "xxx=" end a quantum. */
			eqs++;
			if (q < 2 || q + eqs > 4) {
				rc = bad(err, "misplaced '='", st->base + i);
				break;
			}
		} else if (v != WS) {
			rc = bad(err, "character not in the alphabet",
				 st->base + i);
			break;
		}
		i++;
	}
	st->acc = acc;
	st->q = q;
	st->eqs = eqs;
	st->base += n;
	*op = o;
	return rc;
}

/* After the last run: the last quantum's padding and bits, and its
 * bytes. */
static int decode_end(const dec_state *st, unsigned char **op, lab_err *err)
{
	unsigned char *o = *op;

	if (st->q != 0 && st->q + st->eqs != 4)
		return bad(err, "missing padding", st->base);
	/* The bits below the last byte must be zero, so each byte string has
	 * exactly one accepted encoding. */
	if (st->q == 2) {
		if (st->acc & 0xf)
			return bad(err, "non-zero bits before '='", st->base);
		*o++ = (unsigned char)(st->acc >> 4);
	} else if (st->q == 3) {
		if (st->acc & 0x3)
			return bad(err, "non-zero bits before '='", st->base);
		*o++ = (unsigned char)(st->acc >> 10);
		*o++ = (unsigned char)(st->acc >> 2);
	}
	*op = o;
	return LAB_OK;
}

/* The bytes in[0..n) encodes, whole, from o on; *end past the last. */
static int decode_at(const unsigned char *in, size_t n, unsigned char *o,
		     unsigned char **end, lab_err *err)
{
	dec_state st = {0, 0, 0, 0};
	int rc;

	if (pthread_once(&tables_once, make_tables) != 0)
		return lab_fail(err, LAB_ENOMEM, "base64 tables unavailable");
	rc = decode_run(&st, in, n, &o, err);
	if (rc == LAB_OK)
		rc = decode_end(&st, &o, err);
	*end = o;
	return rc;
}

int lab_base64_decode(const char *s, size_t n, lab_buf *out, lab_err *err)
{
	unsigned char *end;
	int rc;

	/* Every 4 input characters give at most 3 bytes; 4 more for the
	 * 16-byte stores of 12 (the 32-character blocks end with one). */
	if (lab_buf_reserve(out, n / 4 * 3 + 4) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM,
				"out of memory decoding base64");
	rc = decode_at((const unsigned char *)s, n,
		       (unsigned char *)out->data + out->len, &end, err);
	if (rc == LAB_OK)
		out->len = (size_t)((char *)end - out->data);
	out->data[out->len] = '\0';
	return rc;
}

/* The most room lab_base64_decode_in_place leaves, the whitespace its
 * first characters may hold, and what they take decoded apart. */
enum {
	ROOM_MAX = 1024,
	HEAD_WS = 1024,
	HEAD_MAX = (4 * ROOM_MAX + HEAD_WS) / 4 * 3 + 4
};

/* How many of in[0..n) are bytes up to ' '. */
static size_t count_low(const unsigned char *in, size_t n)
{
	size_t i = 0, ws = 0;
#if LAB_X86_VECTORS
	const __m128i space = _mm_set1_epi8(' ');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128(
			(const __m128i *)(const void *)(in + i));

		ws += (size_t)__builtin_popcount((unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_min_epu8(v, space), v)));
	}
#endif
	for (; i < n; i++)
		ws += in[i] <= ' ';
	return ws;
}

/*
 * Where decoding in[0..n) `room` bytes ahead of it may start in place:
 * past the first whole quanta that hold 4 * room characters or more
 * (whitespace aside), decoded apart first.  From there the output trails
 * the input, as decode_at needs (room plus 3 bytes for every 4
 * characters up to there is no more than the characters).  0 when a '='
 * comes first (padding ends the text: the two parts would each pass
 * alone), or the input is that short.  Bytes up to ' ' count as
 * whitespace: in a valid text only whitespace is, and an invalid one
 * fails in either part.
 */
static size_t head_end(const unsigned char *in, size_t n, size_t room)
{
	size_t p = 4 * room, ws;

	if (n <= p + 4)
		return 0;
	ws = count_low(in, p);
	while ((p - ws) % 4 != 0 && p < n && p < 4 * room + HEAD_WS)
		ws += in[p++] <= ' ';
	if ((p - ws) % 4 != 0 || p == n || memchr(in, '=', p) != NULL)
		return 0;
	return p;
}

int lab_base64_decode_in_place_each(char *s, size_t n, size_t room,
				    size_t piece, lab_base64_piece_fn each,
				    void *ctx, size_t *at, size_t *len,
				    lab_err *err)
{
	unsigned char *u = (unsigned char *)s, *o;
	size_t p = room > 0 && room <= ROOM_MAX ? head_end(u, n, room) : 0;
	dec_state st = {0, 0, 0, 0};
	int rc = LAB_OK;

	*len = 0;
	*at = p != 0 ? room : 0;
	o = u + *at;
	/* The head's bytes end at or before its last character (room is at
	 * most a quarter of them), so they go to their place at once. */
	if (p != 0) {
		unsigned char head[HEAD_MAX], *end;

		rc = decode_at(u, p, head, &end, err);
		if (rc == LAB_OK) {
			memcpy(o, head, (size_t)(end - head));
			o += end - head;
		}
	} else if (pthread_once(&tables_once, make_tables) != 0) {
		rc = lab_fail(err, LAB_ENOMEM, "base64 tables unavailable");
	}
	st.base = p;
	while (rc == LAB_OK && st.base < n) {
		size_t k = piece == 0 || n - st.base < piece ? n - st.base
							     : piece;

		rc = decode_run(&st, u + st.base, k, &o, err);
		if (rc == LAB_OK && each != NULL)
			rc = each(ctx, s + *at, (size_t)(o - u) - *at, err);
	}
	if (rc == LAB_OK)
		rc = decode_end(&st, &o, err);
	if (rc == LAB_OK)
		*len = (size_t)(o - u) - *at;
	return rc;
}

int lab_base64_decode_in_place(char *s, size_t n, size_t room, size_t *at,
			       size_t *len, lab_err *err)
{
	return lab_base64_decode_in_place_each(s, n, room, 0, NULL, NULL, at,
					       len, err);
}
