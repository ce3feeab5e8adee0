/*
 * insitu.h - the pieces of the insitu parser (parse.c) that are ideas of
 * their own: the byte classes and UTF-8 and reference decoding
 * (chars.c), and the input as the parser sees it -- a mutable UTF-8 copy
 * in the document's arena, and positions in it (input.c).
 * Not for: anything the libxml2 parser uses.
 */
#ifndef DOM_INSITU_H
#define DOM_INSITU_H

#include <stddef.h>
#include <stdint.h>

#include "dom/internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- byte classes (chars.c) ---- */

enum {
	IS_TEXT = 1,    /* text that needs no work: not < & ] CR, not >= 0x80 */
	IS_ATTR = 2,    /* attribute value byte that needs no work */
	IS_NAME = 4,    /* ASCII name byte other than ':' */
	IS_NSTART = 8,  /* ASCII name start byte other than ':' */
	IS_SPACE = 16,  /* XML white space */
	IS_ASCII = 32   /* a valid ASCII character other than CR */
};

extern const uint8_t dom__insitu_class[256];

static inline int dom__is(unsigned char c, int cls)
{
	return dom__insitu_class[c] & cls;
}

/*
 * Past the run of IS_TEXT bytes at q, 16 bytes a test where SSE2 is
 * there, stopping at '>' too when gt (build=deferred's check pass, for
 * which a '>' in text is news); q itself elsewhere (the caller's table
 * loop does the rest, and finishes the run here too, so the table stays
 * the definition).  The bytes that end a run are those outside IS_TEXT:
 * below 0x20 but TAB and LF, 0x80 and above, '&', '<', ']'.  q must lie
 * in an input with DOM_INSITU_PAD bytes after its NUL.
 */
static inline const char *dom__insitu_skip_run(const char *q, int gt)
{
#if defined(__SSE2__)
	const __m128i sp = _mm_set1_epi8(0x20), tab = _mm_set1_epi8('\t'),
		      lf = _mm_set1_epi8('\n'), amp = _mm_set1_epi8('&'),
		      lt = _mm_set1_epi8('<'), rb = _mm_set1_epi8(']'),
		      g = _mm_set1_epi8(gt ? '>' : '<');

	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		/* Signed: 0x80 and above compare below 0x20 as well. */
		__m128i ctl = _mm_andnot_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lf)),
			_mm_cmplt_epi8(v, sp));
		__m128i m = _mm_or_si128(
			_mm_or_si128(ctl, _mm_cmpeq_epi8(v, amp)),
			_mm_or_si128(_mm_cmpeq_epi8(v, lt), _mm_cmpeq_epi8(v, rb)));
		int bits;

		if (gt)
			m = _mm_or_si128(m, _mm_cmpeq_epi8(v, g));
		bits = _mm_movemask_epi8(m);
		if (bits != 0)
			return q + __builtin_ctz((unsigned)bits);
		q += 16;
	}
#else
	(void)gt;
	return q;
#endif
}

static inline const char *dom__insitu_skip_text(const char *q)
{
	return dom__insitu_skip_run(q, 0);
}

/*
 * The length (2 to 4) of the UTF-8 sequence at s if it encodes an XML
 * Char, else 0 (overlong, surrogate, over U+10FFFF, U+FFFE, U+FFFF,
 * truncated).  s[0] >= 0x80; the bytes after it up to the sequence's end
 * must be readable (the input ends in a NUL, which stops any sequence).
 */
size_t dom__insitu_utf8(const unsigned char *s);

/* The code point of the valid sequence of n bytes at s. */
uint32_t dom__insitu_decode(const unsigned char *s, size_t n);

/* Whether c may start (start != 0) or continue an XML 1.0 (5th ed.) name. */
int dom__insitu_name_char(uint32_t c, int start);

/*
 * Decodes the reference at s ("&...;", s[0] == '&') into out, which may
 * be s itself (the result is never longer than the reference).  Returns
 * the bytes written (1 to 4) and sets *used to the reference's length;
 * 0 when it is not one of the five predefined entities or a character
 * reference to an XML Char, with *used the length to point past it.
 */
size_t dom__insitu_ref(const char *s, char *out, size_t *used,
		       const char **why);

/*
 * Whether s[0..n) uses only the characters of a URI reference (RFC 3986:
 * ASCII, no space, '%' only before two hex digits).  Namespace names must
 * be URI references; libxml2 refuses more (it parses them), this is the
 * part that needs no parser.
 */
int dom__insitu_uri_chars(const char *s, size_t n);

/* ---- the input (input.c) ---- */

/* NUL bytes after the text: the terminator, and room to read a word
 * (or, for dom__insitu_skip_text, 16 bytes) from any byte of it. */
#define DOM_INSITU_PAD 16

/* text[from..to): bytes that end no run of text ('>' included), at
 * least DOM_INSITU_LONG_RUN of them. */
typedef struct dom_insitu_run {
	size_t from, to;
} dom_insitu_run;

enum { DOM_INSITU_LONG_RUN = 4096 };

typedef struct dom_insitu_input {
	char *text;        /* UTF-8, NUL-padded, mutable, in the arena */
	size_t len;
	const char *orig;  /* the same bytes, never changed: for positions */
	char *owned;       /* orig when it is a transcoding of ours */
	size_t owned_cap;  /* its size, wiped before it is freed */
	int transcoded;    /* read from UTF-16 or ISO-8859-1 */
	/* The long runs of text, in order, found as the input was copied
	 * (input.c): a scan of text that starts in one can go to its end
	 * at once, so its bytes are read once, by the copy, not again from
	 * memory.  Valid while no byte at or after the scan is written:
	 * the parser writes behind it.  None for a deferred build. */
	dom_insitu_run *runs;
	size_t nruns, caprun;
	size_t run_at;     /* the first run a scan may still start in */
} dom_insitu_input;

/*
 * Where a scan of text from q may go straight to: the end of the long
 * run q lies in (a stop: dom__insitu_skip_run returns at once), or q.
 * Scans come in the order of the text, so the runs are walked once.
 */
static inline const char *dom__insitu_skip_long(dom_insitu_input *in,
						const char *q)
{
	size_t off = (size_t)(q - in->text);

	while (in->run_at < in->nruns && in->runs[in->run_at].to <= off)
		in->run_at++;
	if (in->run_at < in->nruns && in->runs[in->run_at].from <= off)
		return in->text + in->runs[in->run_at].to;
	return q;
}

/*
 * Makes in->text from buf: UTF-8 as is (a UTF-8 BOM dropped), UTF-16 with
 * a BOM and ISO-8859-1 (as declared) converted.  Other encodings are
 * LAB_EMALFORMED.  Release with dom__insitu_input_done().
 */
int dom__insitu_input(dom_doc *doc, const char *buf, size_t len,
		      dom_insitu_input *in, lab_err *err);
void dom__insitu_input_done(dom_insitu_input *in);

/* Line and column (from 1; columns count characters) of text offset off. */
void dom__insitu_position(const dom_insitu_input *in, size_t off,
			  unsigned long *line, unsigned long *col);

#endif
