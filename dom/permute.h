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

/* How far an attribute's 16-byte moves may reach past its end. */
enum { DOM_PERMUTE_SLACK = 16 };

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
 * The n > 0 attributes that follow src (a tag's name end), the k-th
 * ending end[k] bytes after it, written to out in the order perm: what
 * they span, end[n - 1] bytes, out and src not overlapping.  An
 * attribute is a few dozen bytes, and moving it whole 16 bytes at a
 * time, inline, costs less than a call to memcpy: what a move writes
 * past the attribute's end falls on those still to come, which
 * overwrite it.  It is done where the move may also reach past the
 * tag's end: in_slack bytes readable after src + end[n - 1] and
 * out_slack writable after out + end[n - 1], at least
 * DOM_PERMUTE_SLACK of each; the attributes without such room get
 * memcpy.  Inlined into each caller, whose slacks are mostly constant.
 */
static inline size_t dom__permute_attrs(char *out, const char *src,
					const uint8_t *perm, const size_t *end,
					size_t n, size_t in_slack,
					size_t out_slack)
{
	char *o = out, *tag_end = out + end[n - 1];
	int fast_in = in_slack >= DOM_PERMUTE_SLACK;
	size_t i;

	for (i = 0; i < n; i++) {
		size_t k = perm[i], from = k == 0 ? 0 : end[k - 1];
		size_t len = end[k] - from;

		if (!fast_in ||
		    (size_t)(tag_end - o) + out_slack < len + DOM_PERMUTE_SLACK) {
			memcpy(o, src + from, len);
		} else {
			size_t j;

			for (j = 0; j < len; j += 16)
				memcpy(o + j, src + from + j, 16);
		}
		o += len;
	}
	return end[n - 1];
}

#endif
