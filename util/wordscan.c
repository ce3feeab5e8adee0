/*
 * wordscan.c - util/wordscan.h: the block loop written once for both
 * vector widths (a macro, as GCC inlines AVX2 code only into functions
 * compiled for AVX2), and the byte-by-byte loop for what is left.
 * Not for: finding the words' positions.
 */
#include "util/wordscan.h"

#include <string.h>

#include "util/cpu.h"

int lab_words_at(const char *p, size_t left, const lab_words *ws)
{
	size_t k;

	for (k = 0; k < ws->n; k++)
		if (ws->len[k] <= left && memcmp(p, ws->w[k], ws->len[k]) == 0)
			return 1;
	return 0;
}

/* The longest word's length. */
static size_t longest(const lab_words *ws)
{
	size_t k, m = 0;

	for (k = 0; k < ws->n; k++)
		m = ws->len[k] > m ? ws->len[k] : m;
	return m;
}

#if LAB_X86_VECTORS
/*
 * Positions [*at, ...) in blocks of W while a block and the longest
 * word's last byte after it are readable; *at moves past the blocks
 * tested.  V, LOAD, EQ, AND, SET1 and MASK are the width's type and
 * operations.  Words past ws->n repeat the first, so that the loop over
 * them has a fixed count, unrolled with each word's two vectors and
 * offset in registers.  Returns 1 as soon as a word is found.
 */
#define WORDS_BLOCKS(W, V, LOAD, EQ, AND, SET1, MASK)                          \
	do {                                                                   \
		V first_[LAB_WORDS_MAX], last_[LAB_WORDS_MAX];                 \
		size_t k_, off_[LAB_WORDS_MAX], reach_ = longest(ws);          \
                                                                               \
		for (k_ = 0; k_ < LAB_WORDS_MAX; k_++) {                       \
			size_t w_ = k_ < ws->n ? k_ : 0;                       \
                                                                               \
			off_[k_] = ws->len[w_] - 1;                            \
			first_[k_] = SET1(ws->w[w_][0]);                       \
			last_[k_] = SET1(ws->w[w_][off_[k_]]);                 \
		}                                                              \
		for (; *at + (W) + reach_ - 1 <= n; *at += (W)) {              \
			const char *q_ = p + *at;                              \
			V a_ = LOAD(q_);                                       \
			unsigned bits_ = 0;                                    \
                                                                               \
			_Pragma("GCC unroll 3")                                \
			for (k_ = 0; k_ < LAB_WORDS_MAX; k_++)                 \
				bits_ |= (unsigned)MASK(                       \
					AND(EQ(a_, first_[k_]),                \
					    EQ(LOAD(q_ + off_[k_]), last_[k_])));\
			for (; bits_ != 0; bits_ &= bits_ - 1) {               \
				size_t j_ = *at + (size_t)__builtin_ctz(bits_);\
                                                                               \
				if (lab_words_at(p + j_, n - j_, ws))          \
					return 1;                              \
			}                                                      \
		}                                                              \
	} while (0)

#define LOAD16(q) _mm_loadu_si128((const __m128i *)(const void *)(q))
#define LOAD32(q) _mm256_loadu_si256((const __m256i *)(const void *)(q))

static int blocks16(const char *p, size_t n, const lab_words *ws, size_t *at)
{
	WORDS_BLOCKS(16, __m128i, LOAD16, _mm_cmpeq_epi8, _mm_and_si128,
		     _mm_set1_epi8, _mm_movemask_epi8);
	return 0;
}

__attribute__((target("avx2"))) static int
blocks32(const char *p, size_t n, const lab_words *ws, size_t *at)
{
	WORDS_BLOCKS(32, __m256i, LOAD32, _mm256_cmpeq_epi8, _mm256_and_si256,
		     _mm256_set1_epi8, _mm256_movemask_epi8);
	return 0;
}
#endif

int lab_words_any(const char *p, size_t n, const lab_words *ws)
{
	size_t at = 0;

#if LAB_X86_VECTORS
	if (lab_cpu_has(LAB_CPU_AVX2) ? blocks32(p, n, ws, &at)
				      : blocks16(p, n, ws, &at))
		return 1;
#endif
	for (; at < n; at++)
		if (lab_words_at(p + at, n - at, ws))
			return 1;
	return 0;
}
