/*
 * input.c - the text the insitu parser works on: a copy of the
 * input in the document's arena (the tree's strings point into it, so it
 * lives as long as the document), NUL-terminated so scanning loops need
 * no bounds test, in UTF-8 whatever it came in (UTF-16 with a BOM,
 * ISO-8859-1 as declared), with the long runs of plain text in UTF-8
 * input noted as it is made (insitu.h).  And positions: the parser
 * rewrites the copy behind its cursor, so lines and columns are counted,
 * only when an error needs them, in bytes nobody changes (the caller's
 * buffer, or our own transcoding).
 * Not for: parsing the XML declaration beyond its encoding.
 */
#include <string.h>

#include "util/alloc.h"
#include "util/cpu.h"

#include "variants/parser/insitu/insitu.h"

enum { ENC_UTF8, ENC_LATIN1, ENC_UTF16LE, ENC_UTF16BE };

static int ieq(const char *s, size_t n, const char *want)
{
	size_t i;

	if (strlen(want) != n)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c != want[i])
			return 0;
	}
	return 1;
}

/*
 * The encoding an XML declaration at buf names, by a light scan (the
 * parser checks the declaration properly later).  ENC_UTF8 also when
 * there is no declaration or no encoding in it.
 */
static int declared(const char *buf, size_t len, const char **name,
		    size_t *nlen)
{
	const char *end, *p, *q;
	char quote;

	*name = NULL;
	if (len < 6 || memcmp(buf, "<?xml", 5) != 0 ||
	    !dom__is((unsigned char)buf[5], IS_SPACE))
		return ENC_UTF8;
	end = memmem(buf, len, "?>", 2);
	if (end == NULL)
		return ENC_UTF8;
	p = memmem(buf, (size_t)(end - buf), "encoding", 8);
	if (p == NULL)
		return ENC_UTF8;
	for (p += 8; p < end && (dom__is((unsigned char)*p, IS_SPACE) ||
				 *p == '='); p++)
		;
	if (p >= end || (*p != '"' && *p != '\''))
		return ENC_UTF8;
	quote = *p++;
	q = memchr(p, quote, (size_t)(end - p));
	if (q == NULL)
		return ENC_UTF8;
	*name = p;
	*nlen = (size_t)(q - p);
	if (ieq(p, *nlen, "ISO-8859-1") || ieq(p, *nlen, "LATIN1") ||
	    ieq(p, *nlen, "ISO_8859-1") || ieq(p, *nlen, "ISO-LATIN-1"))
		return ENC_LATIN1;
	if (ieq(p, *nlen, "UTF-8") || ieq(p, *nlen, "UTF8") ||
	    ieq(p, *nlen, "US-ASCII") || ieq(p, *nlen, "ASCII"))
		return ENC_UTF8;
	return -1;
}

/* Notes the run from..to when it is long; 0: no memory. */
static int note_run(dom_insitu_input *in, size_t from, size_t to)
{
	if (to - from < DOM_INSITU_LONG_RUN)
		return 1;
	if (in->nruns == in->caprun) {
		size_t cap = in->caprun != 0 ? 2 * in->caprun : 16;
		dom_insitu_run *r = lab_realloc(in->runs, cap * sizeof *r);

		if (r == NULL)
			return 0;
		in->runs = r;
		in->caprun = cap;
	}
	in->runs[in->nruns].from = from;
	in->runs[in->nruns].to = to;
	in->nruns++;
	return 1;
}

#if LAB_X86_VECTORS
/*
 * The copy's loop, two vectors of STEP bytes a step (type T and its
 * intrinsics): the bytes go through registers, where a superset of the
 * stops of dom__insitu_skip_run with '>' is found -- every byte below
 * '(' (controls, TAB and LF among them, space, quotes, '&', and from
 * 0x80, which compare below as signed), '<' and '>' (one compare, bit 1
 * masked off), and ']' -- and the long runs between them noted.  A
 * superset only shortens runs, and base64 has none of the extra bytes.
 * Ends with *from after the last stop before *at.
 */
#define COPY_STEPS(STEP, T, LOAD, STORE, SET1, LT, EQ, OR, AND, MASK)        \
	do {                                                                 \
		const T below_ = SET1('('), bit1_ = SET1((char)0xfd),          \
			ltgt_ = SET1('<'), rb_ = SET1(']');                    \
		size_t i_;                                                   \
									     \
		for (i_ = 0; i_ + 2 * (STEP) <= len; i_ += 2 * (STEP)) {     \
			T a_ = LOAD((const T *)(const void *)(buf + i_));    \
			T b_ = LOAD((const T *)(const void *)(buf + i_ +     \
							      (STEP)));      \
			uint64_t bits_;                                      \
			size_t stop_;                                        \
									     \
			STORE((T *)(void *)(in->text + i_), a_);             \
			STORE((T *)(void *)(in->text + i_ + (STEP)), b_);    \
			bits_ = STOPS_IN(a_, LT, EQ, OR, AND, MASK) |        \
				STOPS_IN(b_, LT, EQ, OR, AND, MASK) << (STEP); \
			if (bits_ == 0)                                      \
				continue;                                    \
			stop_ = i_ + (size_t)__builtin_ctzll(bits_);         \
			if (stop_ - *from >= DOM_INSITU_LONG_RUN &&          \
			    !note_run(in, *from, stop_))                     \
				return 0;                                    \
			*from = i_ + 64 - (size_t)__builtin_clzll(bits_);    \
		}                                                            \
		*at = i_;                                                    \
	} while (0)

/* COPY_STEPS's bit for each byte of the vector v in the superset, with
 * its constants (below_, bit1_, ltgt_, rb_) and its operations. */
#define STOPS_IN(v, LT, EQ, OR, AND, MASK)                                   \
	((uint64_t)(uint32_t)MASK(OR(OR(LT(v, below_),                       \
					EQ(AND(v, bit1_), ltgt_)),           \
				     EQ(v, rb_))))

#define LT16(a, b) _mm_cmplt_epi8(a, b)
#define LOAD16(q) _mm_loadu_si128(q)
#define LOAD32(q) _mm256_loadu_si256(q)

static int steps16(dom_insitu_input *in, const char *buf, size_t len,
		   size_t *at, size_t *from)
{
	COPY_STEPS(16, __m128i, LOAD16, _mm_storeu_si128, _mm_set1_epi8,
		   LT16, _mm_cmpeq_epi8, _mm_or_si128, _mm_and_si128,
		   _mm_movemask_epi8);
	return 1;
}

__attribute__((target("avx2"))) static int
steps32(dom_insitu_input *in, const char *buf, size_t len, size_t *at,
	size_t *from)
{
	COPY_STEPS(32, __m256i, LOAD32, _mm256_storeu_si256, _mm256_set1_epi8,
		   LAB_LT32, _mm256_cmpeq_epi8, _mm256_or_si256, _mm256_and_si256,
		   _mm256_movemask_epi8);
	return 1;
}
#endif

/*
 * buf[0..len) into in->text, with the long runs of text noted as the
 * bytes pass through registers (COPY_STEPS): the scans of text then
 * read a long run's bytes no more, so a large text, such as a
 * CipherValue's, is read from memory once, not twice.  The copy's NUL
 * and padding are there already.  0: no memory.
 */
static int copy_noting_runs(dom_insitu_input *in, const char *buf, size_t len)
{
	size_t at = 0, from = 0, i;

#if LAB_X86_VECTORS
	if (!(lab_cpu_has(LAB_CPU_AVX2) ? steps32(in, buf, len, &at, &from)
					: steps16(in, buf, len, &at, &from)))
		return 0;
#endif
	/* The tail byte by byte, under the exact test (the table's
	 * IS_TEXT, less '>'): the superset above only cuts runs shorter,
	 * so the two may meet anywhere.  The NUL at len ends the last run. */
	memcpy(in->text + at, buf + at, len - at);
	for (i = at; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (dom__is(c, IS_TEXT) && c != '>')
			continue;
		if (!note_run(in, from, i))
			return 0;
		from = i + 1;
	}
	return note_run(in, from, len);
}

static size_t put_utf8(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* UTF-16 or Latin-1 into out (room for 2 bytes per input byte); its
 * length, or (size_t)-1 for a lone surrogate or an odd byte count. */
static size_t transcode(const unsigned char *s, size_t len, int enc,
			char *out)
{
	size_t i = 0, o = 0;

	if (enc == ENC_LATIN1) {
		for (; i < len; i++)
			o += put_utf8(s[i], out + o);
		return o;
	}
	if (len % 2 != 0)
		return (size_t)-1;
	while (i < len) {
		uint32_t c = enc == ENC_UTF16LE ? (uint32_t)(s[i] | s[i + 1] << 8)
						: (uint32_t)(s[i] << 8 | s[i + 1]);

		i += 2;
		if (c >= 0xdc00 && c <= 0xdfff)
			return (size_t)-1;
		if (c >= 0xd800 && c <= 0xdbff) {
			uint32_t lo;

			if (i + 2 > len)
				return (size_t)-1;
			lo = enc == ENC_UTF16LE ? (uint32_t)(s[i] | s[i + 1] << 8)
						: (uint32_t)(s[i] << 8 | s[i + 1]);
			if (lo < 0xdc00 || lo > 0xdfff)
				return (size_t)-1;
			i += 2;
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		}
		o += put_utf8(c, out + o);
	}
	return o;
}

int dom__insitu_input(dom_doc *doc, const char *buf, size_t len,
		      dom_insitu_input *in, lab_err *err)
{
	const unsigned char *u = (const unsigned char *)buf;
	const char *name;
	size_t nlen = 0, n;
	int enc;

	memset(in, 0, sizeof *in);
	if (len >= 2 && u[0] == 0xff && u[1] == 0xfe)
		enc = ENC_UTF16LE;
	else if (len >= 2 && u[0] == 0xfe && u[1] == 0xff)
		enc = ENC_UTF16BE;
	else {
		if (len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) {
			buf += 3;
			len -= 3;
		}
		enc = declared(buf, len, &name, &nlen);
		if (enc < 0)
			return lab_fail_at(err, LAB_EMALFORMED, 1, 1,
					   "encoding '%.*s' is not supported: "
					   "the insitu parser reads UTF-8, "
					   "UTF-16 and ISO-8859-1",
					   (int)nlen, name);
	}
	if (enc == ENC_UTF8) {
		in->text = dom__arena_alloc(&doc->arena, len + DOM_INSITU_PAD);
		if (in->text == NULL)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
		memset(in->text + len, 0, DOM_INSITU_PAD);
		if (!copy_noting_runs(in, buf, len))
			return lab_fail(err, LAB_ENOMEM, "out of memory");
		in->len = len;
		in->orig = buf;
		return LAB_OK;
	}
	if (enc != ENC_LATIN1) {
		u += 2;
		len -= 2;
	}
	if (len > (SIZE_MAX - 1) / 2)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	in->owned = lab_malloc(2 * len + 1);
	if (in->owned == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	in->owned_cap = 2 * len + 1;
	n = transcode(u, len, enc, in->owned);
	if (n == (size_t)-1)
		return lab_fail_at(err, LAB_EMALFORMED, 1, 1,
				   "invalid UTF-16 (a lone surrogate or an odd "
				   "number of bytes)");
	in->text = dom__arena_alloc(&doc->arena, n + DOM_INSITU_PAD);
	if (in->text == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	memcpy(in->text, in->owned, n);
	memset(in->text + n, 0, DOM_INSITU_PAD);
	in->len = n;
	in->orig = in->owned;
	in->transcoded = 1;
	return LAB_OK;
}

void dom__insitu_input_done(dom_insitu_input *in)
{
	/* It may be a transcoding of decrypted plaintext. */
	if (in->owned != NULL)
		explicit_bzero(in->owned, in->owned_cap);
	lab_free(in->owned);
	in->owned = NULL;
	lab_free(in->runs);
	in->runs = NULL;
	in->nruns = in->caprun = in->run_at = 0;
}

void dom__insitu_position(const dom_insitu_input *in, size_t off,
			  unsigned long *line, unsigned long *col)
{
	const unsigned char *s = (const unsigned char *)in->orig;
	unsigned long l = 1, c = 1;
	size_t i;

	if (off > in->len)
		off = in->len;
	for (i = 0; i < off; i++) {
		if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= in->len ||
						     s[i + 1] != '\n'))) {
			l++;
			c = 1;
		} else if ((s[i] & 0xc0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*col = c;
}
