/*
 * escscan.h - finding the next byte that XML output has to escape.
 *
 * The C14N writer (wss/c14n.c) and the serializer (dom/serialize.c)
 * escape the same two sets -- text: & < > CR; attribute values: & < "
 * TAB LF CR -- and both spend most of their time skipping the long runs
 * that need nothing (a 2 MB CipherValue holds no escapable byte at all).
 * With SSE2 (every x86-64) 16 bytes are tested at a time; the caller's
 * byte table finishes the tail, and is the whole scan elsewhere, so the
 * table stays the definition of each set.
 * Not for: the replacement strings (each writer spells its own).
 */
#ifndef DOM_ESCSCAN_H
#define DOM_ESCSCAN_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/*
 * The first byte in [s, end) whose entry in t (the writer's table for the
 * set `attr` picks) is non-zero, or end.
 */
static inline const char *dom__esc_scan(const char *s, const char *end,
					int attr, const unsigned char *t)
{
#if defined(__SSE2__)
	/* Most values are a few bytes: they go straight to the table. */
	if (end - s >= 16) {
		/* Text has four members: its last two compares repeat '&'. */
		const __m128i c0 = _mm_set1_epi8('&'), c1 = _mm_set1_epi8('<'),
			      c2 = _mm_set1_epi8('\r'),
			      c3 = _mm_set1_epi8(attr ? '"' : '>'),
			      c4 = _mm_set1_epi8(attr ? '\t' : '&'),
			      c5 = _mm_set1_epi8(attr ? '\n' : '&');

		do {
			__m128i v = _mm_loadu_si128(
				(const __m128i *)(const void *)s);
			__m128i m = _mm_or_si128(
				_mm_or_si128(_mm_cmpeq_epi8(v, c0),
					     _mm_cmpeq_epi8(v, c1)),
				_mm_or_si128(_mm_cmpeq_epi8(v, c2),
					     _mm_cmpeq_epi8(v, c3)));
			int bits;

			m = _mm_or_si128(m,
					 _mm_or_si128(_mm_cmpeq_epi8(v, c4),
						      _mm_cmpeq_epi8(v, c5)));
			bits = _mm_movemask_epi8(m);
			if (bits != 0)
				return s + __builtin_ctz((unsigned)bits);
			s += 16;
		} while (end - s >= 16);
	}
#else
	(void)attr;
#endif
	/* Four bytes a test while nothing needs replacing. */
	while (end - s >= 4 &&
	       (t[(unsigned char)s[0]] | t[(unsigned char)s[1]] |
		t[(unsigned char)s[2]] | t[(unsigned char)s[3]]) == 0)
		s += 4;
	while (s < end && t[(unsigned char)*s] == 0)
		s++;
	return s;
}

#endif
