/*
 * escscan.h - finding the next byte that XML output has to escape, and
 * writing a value, or a whole attribute, escaped into room the caller has
 * checked.
 *
 * The C14N writer (wss/c14n.c) and the serializer (dom/serialize.c)
 * escape the same two sets -- text: & < > CR; attribute values: & < "
 * TAB LF CR -- and both spend most of their time on values that need
 * nothing: long runs (a 2 MB CipherValue holds no escapable byte at all)
 * and, far more often, values of a few bytes (numbers, attribute values,
 * the indentation between elements).  With SSE2 (every x86-64) a value
 * of 4 bytes or more is tested 16 bytes at a time without reading outside
 * it: short values as two overlapping halves, long ones in blocks and a
 * last block that ends at the value's end.  The caller's byte table
 * finishes what is left, and is the whole scan elsewhere, so the table
 * stays the definition of each set.
 * Not for: the replacement strings (each writer spells its own).
 */
#ifndef UTIL_ESCSCAN_H
#define UTIL_ESCSCAN_H

#include <stddef.h>
#include <string.h>

#include "util/buf.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A replacement: its bytes, then its length in the eighth byte, so it
 * is copied as one 8-byte store. */
typedef struct lab_esc_rep {
	char s[7];
	unsigned char n;
} lab_esc_rep;

_Static_assert(sizeof(lab_esc_rep) == 8, "a replacement is 8 bytes");

/*
 * Room lab_esc_put needs for n bytes: each may become 6 ("&quot;"), and
 * the last replacement is stored as 8.
 */
#define LAB_ESC_ROOM(n) (6 * (size_t)(n) + 8)

/*
 * The two sets as vector compares, written once for every width: the
 * bytes of v that `attr`'s set holds, one bit each, with OR, EQ, SET1 and
 * MASK the or, byte compare, broadcast and movemask of v's width (SSE2
 * here, AVX2 in dom/serialize.c).  attr is a constant in every caller, so
 * text's four compares are four.
 */
#define LAB_ESC_MARKS(v, attr, OR, EQ, SET1, MASK)                            \
	((unsigned)MASK((attr) ? OR(OR(OR(EQ(v, SET1('&')), EQ(v, SET1('<'))), \
				       OR(EQ(v, SET1('\r')), EQ(v, SET1('"')))), \
				    OR(EQ(v, SET1('\t')), EQ(v, SET1('\n'))))   \
			       : OR(OR(EQ(v, SET1('&')), EQ(v, SET1('<'))),   \
				    OR(EQ(v, SET1('\r')), EQ(v, SET1('>'))))))

/*
 * The loop of lab_esc_put_blocks (below) for blocks of W bytes, written
 * once for every width: V is the vector type, LOAD(p) and STORE(p, v)
 * its unaligned load and store, MARKS(v) the set's bits of v.  It uses
 * and moves `o` and `s` and reads `end`, `t` and `reps` from the caller.
 * dom/serialize.c expands it with AVX2 inside a function compiled for
 * AVX2: GCC inlines AVX2 code only into such functions, so one shared
 * inline function cannot hold both widths.
 */
#define LAB_ESC_BLOCK_LOOP(W, V, LOAD, STORE, MARKS)                           \
	for (;;) {                                                             \
		const lab_esc_rep *r_;                                         \
		unsigned bits_;                                                \
		V v_;                                                          \
                                                                               \
		/* Two blocks a step while nothing needs replacing: their    \
		 * marks are or-ed before the one test. */                    \
		while (end - s >= 2 * (W)) {                                   \
			V a_ = LOAD(s), b_ = LOAD(s + (W));                    \
                                                                               \
			STORE(o, a_);                                          \
			STORE(o + (W), b_);                                    \
			if ((MARKS(a_) | MARKS(b_)) != 0)                      \
				break;                                         \
			s += 2 * (W);                                          \
			o += 2 * (W);                                          \
		}                                                              \
		if (end - s < (W))                                             \
			break;                                                 \
		v_ = LOAD(s);                                                  \
		STORE(o, v_);                                                  \
		bits_ = MARKS(v_);                                             \
		if (bits_ == 0) {                                              \
			s += (W);                                              \
			o += (W);                                              \
			continue;                                              \
		}                                                              \
		o += __builtin_ctz(bits_);                                     \
		s += __builtin_ctz(bits_);                                     \
		r_ = &reps[t[(unsigned char)*s]];                              \
		memcpy(o, r_, sizeof *r_);                                     \
		o += r_->n;                                                    \
		s++;                                                           \
	}

#if defined(__SSE2__)
#define LAB_LOAD16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define LAB_STORE16(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

/* One bit per byte of v that `attr`'s set holds. */
static inline __attribute__((always_inline)) unsigned lab_esc_bits(
	__m128i v, int attr)
{
	return LAB_ESC_MARKS(v, attr, _mm_or_si128, _mm_cmpeq_epi8,
			     _mm_set1_epi8, _mm_movemask_epi8);
}
#endif

/*
 * The first byte in [s, end) whose entry in t (the writer's table for the
 * set `attr` picks) is non-zero, or end.
 */
static inline __attribute__((always_inline)) const char *lab_esc_scan(
	const char *s, const char *end, int attr, const unsigned char *t)
{
#if defined(__SSE2__)
	if (end - s >= 16) {
		unsigned bits;

		do {
			bits = lab_esc_bits(
				_mm_loadu_si128((const __m128i *)(const void *)s),
				attr);
			if (bits != 0)
				return s + __builtin_ctz(bits);
			s += 16;
		} while (end - s >= 16);
		if (s == end)
			return end;
		/* The last block ends at end; its first bytes were seen. */
		bits = lab_esc_bits(_mm_loadu_si128((const __m128i *)(
					     const void *)(end - 16)),
				     attr) >>
		       (16 - (end - s));
		return bits != 0 ? s + __builtin_ctz(bits) : end;
	}
	if (end - s >= 8) {
		/* Bytes 0-7 from s, 8-15 from end - 8: a hit in the overlap
		 * is found in the first half. */
		unsigned bits = lab_esc_bits(
			_mm_unpacklo_epi64(
				_mm_loadl_epi64((const __m128i *)(const void *)s),
				_mm_loadl_epi64((const __m128i *)(const void *)(
					end - 8))),
			attr);

		if (bits == 0)
			return end;
		if ((bits & 0xff) != 0)
			return s + __builtin_ctz(bits);
		return end - 8 + (__builtin_ctz(bits) - 8);
	}
	if (end - s >= 4) {
		int lo, hi;
		unsigned bits;

		memcpy(&lo, s, 4);
		memcpy(&hi, end - 4, 4);
		bits = lab_esc_bits(_mm_unpacklo_epi32(_mm_cvtsi32_si128(lo),
						       _mm_cvtsi32_si128(hi)),
				     attr) &
		       0xff;
		if (bits == 0)
			return end;
		if ((bits & 0xf) != 0)
			return s + __builtin_ctz(bits);
		return end - 4 + (__builtin_ctz(bits) - 4);
	}
#else
	(void)attr;
	/* Four bytes a test while nothing needs replacing. */
	while (end - s >= 4 &&
	       (t[(unsigned char)s[0]] | t[(unsigned char)s[1]] |
		t[(unsigned char)s[2]] | t[(unsigned char)s[3]]) == 0)
		s += 4;
#endif
	while (s < end && t[(unsigned char)*s] == 0)
		s++;
	return s;
}

/*
 * Writes s[0..n) at o with every byte that t (set `attr`) marks replaced
 * by reps[t[byte]], and returns the end.  o has LAB_ESC_ROOM(n) bytes.
 */
static inline __attribute__((always_inline)) char *lab_esc_put(
	char *o, const char *s, size_t n, int attr, const unsigned char *t,
	const lab_esc_rep *reps)
{
	const char *end = s + n;

	for (;;) {
		const char *p = lab_esc_scan(s, end, attr, t);
		const lab_esc_rep *r;

		o = lab_copy(o, s, (size_t)(p - s));
		if (p == end)
			return o;
		r = &reps[t[(unsigned char)*p]];
		memcpy(o, r, sizeof *r);
		o += r->n;
		s = p + 1;
	}
}

/*
 * A long value in one pass: each 16 bytes are loaded, stored at o as they
 * are and tested, so a value with nothing to escape is read once and
 * written once (a scan and then a copy read it twice).  On a hit, o backs
 * up to the first byte needing escape, its replacement goes there, and
 * the next block starts after that byte.  Writes [*sp, end) while 16
 * bytes or more are left, advances *sp past what it wrote (fewer than 16
 * bytes are left, for the next call or lab_esc_put) and returns the end
 * of the output.  o has LAB_ESC_ROOM(end - *sp) bytes: a block's store
 * runs at most 16 past o while 16 input bytes or more remain, and
 * within the replacements' worst case.  Without SSE2, lab_esc_put
 * writes all of it.
 */
static inline __attribute__((always_inline)) char *lab_esc_put_blocks(
	char *o, const char **sp, const char *end, int attr,
	const unsigned char *t, const lab_esc_rep *reps)
{
#if defined(__SSE2__)
	const char *s = *sp;

#define LAB_MARKS16(v) lab_esc_bits((v), attr)
	LAB_ESC_BLOCK_LOOP(16, __m128i, LAB_LOAD16, LAB_STORE16,
			    LAB_MARKS16)
#undef LAB_MARKS16
	*sp = s;
	return o;
#else
	o = lab_esc_put(o, *sp, (size_t)(end - *sp), attr, t, reps);
	*sp = end;
	return o;
#endif
}

/* Room lab_esc_put_attr needs: ` p:l="`, the value escaped, `"`. */
#define LAB_ESC_ATTR_ROOM(pl, ll, n) ((pl) + (ll) + 5 + LAB_ESC_ROOM(n))

/*
 * Writes ` prefix:local="value"` at o (no prefix: prefix NULL), the value
 * escaped by the attribute set t and reps, and returns the end; o has
 * LAB_ESC_ATTR_ROOM(pl, ll, n) bytes.  Both XML writers' fast path for
 * an attribute.
 */
static inline __attribute__((always_inline)) char *lab_esc_put_attr(
	char *o, const char *prefix, size_t pl, const char *local, size_t ll,
	const char *v, size_t n, const unsigned char *t,
	const lab_esc_rep *reps)
{
	o = lab_put_qname(o, " ", 1, prefix, pl, local, ll, "=\"", 2);
	o = lab_esc_put(o, v, n, 1, t, reps);
	*o++ = '"';
	return o;
}

#endif
