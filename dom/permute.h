/*
 * permute.h - a start tag's attributes copied in another order: the one
 * move that putting a tag in C14N's order makes, whether in the parse's
 * own text (variants/parser/insitu/check/reorder.c) or into a feed's
 * reader (dom/feed.c).
 * Not for: working the order out (reorder.c's c14n_attr_order) or
 * copying runs that keep theirs (memcpy).
 */
#ifndef DOM_PERMUTE_H
#define DOM_PERMUTE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The n ends of a noted tag's attributes, 2-byte values at p, as the
 * check pass and a feed note them (5 + 3n bytes a tag), into end. */
static inline void dom__permute_ends(size_t *end, const unsigned char *p,
				     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint16_t e;

		memcpy(&e, p + 2 * i, 2);
		end[i] = e;
	}
}

/*
 * An attribute's len >= 4 bytes (it is at least ` a=""`) from src to
 * out, which do not overlap, without a call and without touching a byte
 * past either end: moves of 16 bytes, the last one ending at len (it
 * overlaps the one before), or of 8 or 4 the same way for a shorter
 * one.  An attribute is a few dozen bytes, and a call to memcpy costs
 * more than moving it inline.
 */
static inline void dom__permute_copy(char *out, const char *src, size_t len)
{
	if (len >= 16) {
		size_t j;

		for (j = 0; j + 16 < len; j += 16)
			memcpy(out + j, src + j, 16);
		memcpy(out + len - 16, src + len - 16, 16);
	} else if (len >= 8) {
		memcpy(out, src, 8);
		memcpy(out + len - 8, src + len - 8, 8);
	} else {
		memcpy(out, src, 4);
		memcpy(out + len - 4, src + len - 4, 4);
	}
}

/*
 * The n > 0 attributes that follow src (a tag's name end), the k-th
 * ending end[k] bytes after it, written to out in the order perm: what
 * they span, end[n - 1] bytes, out and src not overlapping.  Nothing
 * past the tag is read or written (dom__permute_copy).  Inlined into
 * each caller.
 */
static inline size_t dom__permute_attrs(char *out, const char *src,
					const uint8_t *perm, const size_t *end,
					size_t n)
{
	char *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		size_t k = perm[i], from = k == 0 ? 0 : end[k - 1];
		size_t len = end[k] - from;

		dom__permute_copy(o, src + from, len);
		o += len;
	}
	return end[n - 1];
}

#endif
