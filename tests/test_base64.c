/*
 * test_base64.c - util/base64.h: RFC 4648 base64 both ways, against the
 * RFC's vectors and a plain reference implementation, line breaks and
 * white space, and its refusals at every place; and util/cpu.h, which
 * picks the vector paths base64 (and the serializer and the check pass)
 * take.
 * Not tested here: digests (test_sha.c), RSA and AES (test_rsa_aes.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/util.h"
#include "util/base64.h"
#include "util/cpu.h"

static const struct {
	const char *raw, *b64;
} rfc4648[] = {
	{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
	{"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
};

static void base64_rfc4648(void)
{
	size_t i;

	for (i = 0; i < sizeof rfc4648 / sizeof rfc4648[0]; i++) {
		lab_buf enc = LAB_BUF_INIT, dec = LAB_BUF_INIT;
		const char *raw = rfc4648[i].raw, *b64 = rfc4648[i].b64;
		lab_err err;

		t_context("\"%s\"", raw);
		lab_err_clear(&err);
		CHECK_EQ_INT(lab_base64_encode(raw, strlen(raw), 0, &enc), LAB_OK);
		CHECK_EQ_MEM(enc.data, enc.len, b64, strlen(b64));
		CHECK_OK(lab_base64_decode(b64, strlen(b64), &dec, &err), &err);
		CHECK_EQ_MEM(dec.data, dec.len, raw, strlen(raw));
		lab_buf_free(&enc);
		lab_buf_free(&dec);
	}
}

/* RFC 4648's encoding one bit at a time, as a reference. */
static size_t ref_base64(const unsigned char *p, size_t n, char *o)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t bits = n * 8, b, k = 0;

	for (b = 0; b < bits; b += 6) {
		unsigned v = 0, j;

		for (j = b; j < b + 6; j++)
			v = v << 1 | (j < bits ? p[j / 8] >> (7 - j % 8) & 1u : 0);
		o[k++] = a[v];
	}
	while (k % 4 != 0)
		o[k++] = '=';
	return k;
}

/*
 * The encoder's block paths (12, 24 bytes a turn) and the loops after
 * them, against the reference: every length to 300 and lengths around
 * larger blocks, at every alignment, with bytes that reach every
 * character.
 */
static void base64_as_reference(void)
{
	static const size_t far[] = {1000, 1001, 1002, 1003, 1004, 1005,
				     1006, 1007, 1008, 1009, 1010, 1011,
				     4093, 4096, 4099};
	static unsigned char raw[4099 + 3];
	static char want[4 * 1368], got[4 * 1368 + 1];
	size_t i, a, k;
	uint32_t x = 1;

	for (i = 0; i < sizeof raw; i++) {
		x = x * 1103515245u + 12345u;
		raw[i] = (unsigned char)(x >> 16);
	}
	for (i = 0; i <= 300 + sizeof far / sizeof far[0]; i++) {
		size_t n = i <= 300 ? i : far[i - 301];

		for (a = 0; a < 3; a++) {
			lab_buf b = LAB_BUF_INIT;

			t_context("%zu bytes at offset %zu", n, a);
			k = ref_base64(raw + a, n, want);
			memset(got, '#', sizeof got);
			CHECK(lab_base64_put(raw + a, n, 0, got) == got + k);
			CHECK_EQ_MEM(got, k, want, k);
			CHECK(got[k] == '#');
			if (CHECK_EQ_INT(lab_base64_encode(raw + a, n, 0, &b),
					 LAB_OK))
				CHECK_EQ_MEM(b.data, b.len, want, k);
			lab_buf_free(&b);
		}
	}
}

/* Every byte value and length, one line and broken lines, both ways. */
static void base64_roundtrip(void)
{
	static const size_t lines[] = {0, 4, 64, 76};
	unsigned char raw[300];
	size_t n, l, i;

	for (i = 0; i < sizeof raw; i++)
		raw[i] = (unsigned char)(i * 7 + 3);
	for (l = 0; l < sizeof lines / sizeof lines[0]; l++)
		for (n = 0; n <= sizeof raw; n++) {
			lab_buf enc = LAB_BUF_INIT, dec = LAB_BUF_INIT;
			lab_err err;

			t_context("%zu bytes, lines of %zu", n, lines[l]);
			lab_err_clear(&err);
			if (CHECK_EQ_INT(lab_base64_encode(raw, n, lines[l], &enc),
					 LAB_OK) &&
			    CHECK_OK(lab_base64_decode(enc.data, enc.len, &dec,
						       &err), &err))
				CHECK_EQ_MEM(dec.data, dec.len, raw, n);
			lab_buf_free(&enc);
			lab_buf_free(&dec);
		}
}

static void base64_lines(void)
{
	unsigned char raw[96];
	lab_buf b = LAB_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof raw; i++)
		raw[i] = (unsigned char)i;
	/* 96 bytes = 128 characters: two lines of 64, no newline at the end. */
	CHECK_EQ_INT(lab_base64_encode(raw, 96, 64, &b), LAB_OK);
	CHECK_EQ_INT(b.len, 129);
	CHECK(b.len == 129 && b.data[64] == '\n' && b.data[128] != '\n');
	CHECK(strchr(b.data, '\n') == b.data + 64);
	lab_buf_free(&b);
	/* 3 bytes at line length 4: one quantum, no newline at all. */
	CHECK_EQ_INT(lab_base64_encode("abc", 3, 4, &b), LAB_OK);
	CHECK_EQ_STR(b.data, "YWJj");
	lab_buf_free(&b);
	CHECK_EQ_INT(lab_base64_encode("abcdefg", 7, 4, &b), LAB_OK);
	CHECK_EQ_STR(b.data, "YWJj\nZGVm\nZw==");
	/* Appends; a bad line length changes nothing. */
	CHECK_EQ_INT(lab_base64_encode("f", 1, 0, &b), LAB_OK);
	CHECK_EQ_STR(b.data, "YWJj\nZGVm\nZw==Zg==");
	CHECK_EQ_INT(lab_base64_encode("f", 1, 6, &b), LAB_EUSAGE);
	CHECK_EQ_STR(b.data, "YWJj\nZGVm\nZw==Zg==");
	lab_buf_free(&b);
}

static void base64_whitespace(void)
{
	static const char *const ok[] = {
		" Zm9v YmFy ", "\tZm9v\r\nYmFy\n", "Z m 9 v Y m F y",
		"\n\n\nZm9vYmFy\r\n\t ", "Zm9vYg=\n=", "Zm9vYg = = \n",
	};
	static const char *const want[] = {
		"foobar", "foobar", "foobar", "foobar", "foob", "foob",
	};
	size_t i;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		lab_buf b = LAB_BUF_INIT;
		lab_err err;

		t_context("\"%s\"", ok[i]);
		lab_err_clear(&err);
		CHECK_OK(lab_base64_decode(ok[i], strlen(ok[i]), &b, &err), &err);
		CHECK_EQ_MEM(b.data, b.len, want[i], strlen(want[i]));
		lab_buf_free(&b);
	}
	t_context("only whitespace");
	{
		lab_buf b = LAB_BUF_INIT;
		lab_err err;

		CHECK_OK(lab_base64_decode(" \n\t\r ", 5, &b, &err), &err);
		CHECK_EQ_INT(b.len, 0);
		lab_buf_free(&b);
	}
}

static void base64_rejects(void)
{
	static const char *const bad[] = {
		"Zm9v!", "Zm-9", "Zm9v\xc3\xa9", "Zm9v\v", "Zm9v\f", "Zm_v",
		"Zg", "Zm9vY", "Zg=", "Z===", "=", "====", "Zm9=v", "Zg==Zg==",
		"Zg==A", "Zm9vY===", "Zh==", "Zm9=", "Zm\0v",
	};
	static const size_t len[] = {
		5, 4, 6, 5, 5, 4, 2, 5, 3, 4, 1, 4, 5, 8, 5, 8, 4, 4, 4,
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		lab_buf b = LAB_BUF_INIT;
		lab_err err;

		t_context("case %zu", i);
		lab_err_clear(&err);
		CHECK_EQ_INT(lab_buf_puts(&b, "kept"), LAB_OK);
		CHECK_EQ_INT(lab_base64_decode(bad[i], len[i], &b, &err),
			     LAB_EMALFORMED);
		CHECK(strncmp(err.msg, "invalid base64", 14) == 0);
		CHECK_EQ_INT(b.len, 4);
		CHECK_EQ_STR(b.data, "kept");
		lab_buf_free(&b);
	}
}

/*
 * Every byte value at every position of a 64-character text (the wide
 * loops take 16 characters a test): accepted exactly when the byte is in
 * the alphabet, and then decoded as the one-character-at-a-time
 * definition below says; anything else -- '=' inside, whitespace leaving
 * 63 characters, a byte outside the alphabet -- refused, a byte outside
 * the alphabet at its own offset.
 */
static void base64_every_byte(void)
{
	static const char alpha[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char text[65], at[32];
	unsigned char want[48];
	size_t p, i;
	unsigned b;

	for (i = 0; i < 64; i++)
		text[i] = alpha[(i * 37 + 11) % 64];
	text[64] = '\0';
	for (p = 0; p < 64; p++)
		for (b = 0; b < 256; b++) {
			const char *pos = b != 0 ? strchr(alpha, (int)b) : NULL;
			char t[65];
			lab_buf out = LAB_BUF_INIT;
			lab_err err;
			int rc;

			memcpy(t, text, sizeof t);
			t[p] = (char)b;
			lab_err_clear(&err);
			rc = lab_base64_decode(t, 64, &out, &err);
			t_context("byte 0x%02x at %zu", b, p);
			if (pos == NULL) {
				CHECK_EQ_INT(rc, LAB_EMALFORMED);
				snprintf(at, sizeof at, "offset %zu", p);
				if (b != '=' && b != ' ' && b != '\t' &&
				    b != '\r' && b != '\n')
					CHECK(strstr(err.msg, at) != NULL);
			} else if (CHECK_OK(rc, &err)) {
				for (i = 0; i < 16; i++) {
					uint32_t v = 0;
					size_t k;

					for (k = 0; k < 4; k++)
						v = v << 6 |
						    (uint32_t)(strchr(alpha,
							      t[4 * i + k]) -
							       alpha);
					want[3 * i] = (unsigned char)(v >> 16);
					want[3 * i + 1] = (unsigned char)(v >> 8);
					want[3 * i + 2] = (unsigned char)v;
				}
				CHECK_EQ_MEM(out.data, out.len, want, 48);
			}
			lab_buf_free(&out);
		}
}

/* RFC 4648 decoding one character at a time, XML whitespace skipped,
 * as a reference for the decoder's block paths: NULL and the bytes at o
 * (*olen of them), or what is wrong and its offset in *at. */
static const char *ref_unbase64(const unsigned char *s, size_t n,
				unsigned char *o, size_t *olen, size_t *at)
{
	uint32_t acc = 0;
	unsigned q = 0, eqs = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned c = s[i];

		*at = i;
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			eqs++;
			if (q < 2 || q + eqs > 4)
				return "misplaced '='";
			continue;
		}
		if (c >= 'A' && c <= 'Z')
			c -= 'A';
		else if (c >= 'a' && c <= 'z')
			c = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			c = c - '0' + 52;
		else if (c == '+')
			c = 62;
		else if (c == '/')
			c = 63;
		else
			return "character not in the alphabet";
		if (eqs != 0)
			return "data after padding";
		acc = acc << 6 | c;
		if (++q == 4) {
			o[k++] = (unsigned char)(acc >> 16);
			o[k++] = (unsigned char)(acc >> 8);
			o[k++] = (unsigned char)acc;
			q = 0;
			acc = 0;
		}
	}
	*at = n;
	if (q != 0 && q + eqs != 4)
		return "missing padding";
	if ((q == 2 && (acc & 0xf) != 0) || (q == 3 && (acc & 0x3) != 0))
		return "non-zero bits before '='";
	if (q == 2)
		o[k++] = (unsigned char)(acc >> 4);
	if (q == 3) {
		o[k++] = (unsigned char)(acc >> 10);
		o[k++] = (unsigned char)(acc >> 2);
	}
	*olen = k;
	return NULL;
}

/* lab_base64_decode(s, n) appended to "kept" against the reference:
 * the same bytes, or the same message with "kept" left alone. */
static void decode_as_reference(const unsigned char *s, size_t n,
				unsigned char *want)
{
	lab_buf b = LAB_BUF_INIT;
	lab_err err;
	size_t wlen = 0, at = 0;
	const char *what = ref_unbase64(s, n, want, &wlen, &at);
	int rc;

	lab_err_clear(&err);
	if (!CHECK_EQ_INT(lab_buf_puts(&b, "kept"), LAB_OK))
		return;
	rc = lab_base64_decode((const char *)s, n, &b, &err);
	if (what == NULL) {
		if (CHECK_OK(rc, &err))
			CHECK_EQ_MEM(b.data + 4, b.len - 4, want, wlen);
	} else {
		char msg[128];

		snprintf(msg, sizeof msg, "invalid base64: %s at offset %zu",
			 what, at);
		CHECK_EQ_INT(rc, LAB_EMALFORMED);
		CHECK_EQ_STR(err.msg, msg);
		CHECK_EQ_INT(b.len, 4);
		CHECK_EQ_STR(b.data, "kept");
	}
	CHECK_EQ_INT(b.data[b.len], '\0');
	lab_buf_free(&b);
}

static unsigned rnd15(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 16 & 0x7fff;
}

/* Text of about len characters at t (room for 2 * len + 16), raw room
 * for len bytes: kind 0 the encoding of random bytes, 1 that with
 * whitespace strewn in, 2 with one byte replaced by any byte, 3 mostly
 * alphabet with '=', whitespace and bytes outside it mixed in.  Returns
 * its length. */
static size_t random_text(unsigned char *t, unsigned char *raw, size_t len,
			  unsigned kind, uint32_t *x)
{
	static const char odd[] = "= \t\r\n!-_.:@[`{\x7f\x80\xc3\xff";
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *e = t + len + 8;
	size_t i, j, w, k, n = len * 3 / 4;

	if (kind == 3) {
		for (i = 0; i < len; i++)
			t[i] = rnd15(x) % 8 != 0
				       ? (unsigned char)a[rnd15(x) % 64]
				       : (unsigned char)odd[rnd15(x) %
							    (sizeof odd - 1)];
		return len;
	}
	for (i = 0; i < n; i++)
		raw[i] = (unsigned char)rnd15(x);
	if (kind != 1) {
		k = ref_base64(raw, n, (char *)t);
		if (kind == 2 && k > 0)
			t[rnd15(x) % k] = (unsigned char)rnd15(x);
		return k;
	}
	/* Encoded at len + 8 (at most len + 4 characters), then copied
	 * down with a whitespace character before about one in twelve; the
	 * copy stays below what it reads while fewer than len go in. */
	k = ref_base64(raw, n, (char *)t + len + 8);
	for (i = j = w = 0; j < k; j++) {
		if (w < len && rnd15(x) % 12 == 0) {
			t[i++] = (unsigned char)" \t\r\n"[rnd15(x) % 4];
			w++;
		}
		t[i++] = e[j];
	}
	return i;
}

/*
 * Random texts of every length to 300 and a few long ones, at any
 * alignment, through every decoding path (32, 16, 8, 4 characters a turn
 * and one at a time): the reference's bytes or its error.
 */
static void base64_decode_as_reference(void)
{
	static const size_t far[] = {1000, 1023, 4096, 4101, 70001};
	static unsigned char t[2 * 70001 + 16 + 32], raw[70001],
		want[70001];
	size_t i, n, a;
	unsigned kind, r;
	uint32_t x = 7;

	for (i = 0; i <= 300 + sizeof far / sizeof far[0]; i++) {
		size_t len = i <= 300 ? i : far[i - 301];

		for (kind = 0; kind < 4; kind++)
			for (r = 0; r < (i <= 300 ? 6u : 2u); r++) {
				a = rnd15(&x) % 32;
				n = random_text(t + a, raw, len, kind, &x);
				t_context("kind %u, %zu characters at %zu, "
					  "round %u", kind, n, a, r);
				decode_as_reference(t + a, n, want);
			}
	}
}

/*
 * Each byte outside the alphabet at every offset of a 1000-character
 * text, all but its last 8 characters in 32-character blocks: refused at
 * its own offset, but for '=' and whitespace, which the reference judges
 * (they may fail further on, or, '=' near the end, leave a valid text).
 */
static void base64_refuses_everywhere(void)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	static unsigned char raw[750], t[1000], want[750];
	char msg[128];
	size_t p, i;
	unsigned b;
	uint32_t x = 11;

	for (i = 0; i < sizeof raw; i++)
		raw[i] = (unsigned char)rnd15(&x);
	if (!CHECK_EQ_INT(ref_base64(raw, sizeof raw, (char *)t), sizeof t))
		return;
	for (p = 0; p < sizeof t; p++)
		for (b = 0; b < 256; b++) {
			unsigned char keep = t[p];
			lab_buf out = LAB_BUF_INIT;
			lab_err err;

			if (b != 0 && strchr(a, (int)b) != NULL)
				continue;
			t_context("byte 0x%02x at %zu", b, p);
			t[p] = (unsigned char)b;
			if (b == '=' || b == ' ' || b == '\t' || b == '\r' ||
			    b == '\n') {
				decode_as_reference(t, sizeof t, want);
			} else {
				lab_err_clear(&err);
				snprintf(msg, sizeof msg,
					 "invalid base64: character not in the "
					 "alphabet at offset %zu", p);
				CHECK_EQ_INT(lab_base64_decode((char *)t,
							       sizeof t, &out,
							       &err),
					     LAB_EMALFORMED);
				CHECK_EQ_STR(err.msg, msg);
				CHECK_EQ_INT(out.len, 0);
			}
			t[p] = keep;
			lab_buf_free(&out);
		}
}

/* 5000 bytes of raw encoded after `spaces` spaces, one character
 * replaced by '*' at `bad` (0: none), decoded in place with 512 bytes of
 * room: *at and the result. */
static int in_place_one(const unsigned char *raw, size_t spaces, size_t bad,
			size_t *at)
{
	lab_buf enc = LAB_BUF_INIT;
	size_t len = 0;
	lab_err err;
	int rc = LAB_ENOMEM;

	*at = 99;
	if (lab_buf_reserve(&enc, spaces) == LAB_OK) {
		memset(enc.data, ' ', spaces);
		enc.len = spaces;
	}
	if (enc.len == spaces &&
	    lab_base64_encode(raw, 5000, 76, &enc) == LAB_OK) {
		if (bad != 0)
			enc.data[bad] = '*';
		lab_err_clear(&err);
		rc = lab_base64_decode_in_place(enc.data, enc.len, 512, at,
						&len, &err);
		if (rc == LAB_OK)
			CHECK_EQ_MEM(enc.data + *at, len, raw, 5000);
		else
			CHECK(len == 0 && strstr(err.msg, "not in the "
						 "alphabet") != NULL);
	}
	lab_buf_free(&enc);
	return rc;
}

static void in_place_edges(const unsigned char *raw)
{
	size_t at;

	t_context("whitespace in front");
	CHECK_EQ_INT(in_place_one(raw, 1000, 0, &at), LAB_OK);
	CHECK_EQ_INT(at, 512);
	CHECK_EQ_INT(in_place_one(raw, 4000, 0, &at), LAB_OK);
	CHECK_EQ_INT(at, 512);
	t_context("refusals");
	CHECK_EQ_INT(in_place_one(raw, 0, 10, &at), LAB_EMALFORMED);
	CHECK_EQ_INT(in_place_one(raw, 0, 6000, &at), LAB_EMALFORMED);
	CHECK_EQ_INT(in_place_one(raw, 3000, 3500, &at), LAB_EMALFORMED);
}

/* Decoding over the text itself: the same bytes as lab_base64_decode,
 * `room` bytes in (up to 1 KB) when the text is long enough, at the
 * start otherwise, whitespace in front or not; and the same refusals,
 * among the first characters and past them. */
static void base64_in_place(void)
{
	static const size_t sizes[] = {0, 10, 300, 1535, 1536, 1537, 5000,
				       20000};
	static const size_t lines[] = {0, 4, 76}, rooms[] = {0, 5, 16, 512,
							       1024, 2000};
	static unsigned char raw[20000];
	size_t z, l, r, i;

	for (i = 0; i < 20000; i++)
		raw[i] = (unsigned char)(i * 13 + 5);
	for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
		for (l = 0; l < sizeof lines / sizeof lines[0]; l++)
			for (r = 0; r < sizeof rooms / sizeof rooms[0]; r++) {
				lab_buf enc = LAB_BUF_INIT;
				size_t at = 99, len = 99, room = rooms[r];
				lab_err err;

				t_context("%zu bytes, lines of %zu, room %zu",
					  sizes[z], lines[l], room);
				if (!CHECK_EQ_INT(lab_base64_encode(raw,
					      sizes[z], lines[l], &enc), LAB_OK))
					continue;
				if (CHECK_OK(lab_base64_decode_in_place(
						     enc.data, enc.len, room,
						     &at, &len, &err), &err))
					CHECK_EQ_MEM(enc.data + at, len, raw,
						     sizes[z]);
				CHECK(at == 0 || at == room);
				if (room == 0 || room > 1024 ||
				    enc.len < 4 * room)
					CHECK_EQ_INT(at, 0);
				else if (sizes[z] >= 5000)
					CHECK_EQ_INT(at, room);
				lab_buf_free(&enc);
			}
	in_place_edges(raw);
}

/* What a piece consumer saw: each k no smaller than the last, and the
 * bytes given then equal to the expected ones. */
typedef struct pieces_seen {
	const unsigned char *want;
	size_t wlen, last, calls;
	int ok;
} pieces_seen;

static int see_piece(void *ctx, char *p, size_t k, lab_err *err)
{
	pieces_seen *s = ctx;

	(void)err;
	s->calls++;
	if (k < s->last || k > s->wlen || memcmp(p, s->want, k) != 0)
		s->ok = 0;
	s->last = k;
	return LAB_OK;
}

static int stop_piece(void *ctx, char *p, size_t k, lab_err *err)
{
	(void)ctx;
	(void)p;
	(void)k;
	return lab_fail(err, LAB_ESECURITY, "stopped");
}

/*
 * Decoding in runs (pass=fused's decode): for every run length, the
 * bytes and *at of the whole decode, each run's bytes final when handed
 * over; a refusal among the runs, at its absolute offset, whichever run
 * it falls in; a consumer's failure stops the decode with its code.
 */
static void base64_in_place_pieces(void)
{
	static const size_t pieces[] = {1, 3, 4, 7, 100, 16384, 0};
	static unsigned char raw[20000];
	size_t i, z;

	for (i = 0; i < sizeof raw; i++)
		raw[i] = (unsigned char)(i * 29 + 3);
	for (z = 0; z < sizeof pieces / sizeof pieces[0]; z++) {
		lab_buf enc = LAB_BUF_INIT, bad = LAB_BUF_INIT;
		pieces_seen seen = {raw, sizeof raw, 0, 0, 1};
		size_t at = 99, len = 99, off;
		lab_err err;

		t_context("runs of %zu characters", pieces[z]);
		lab_err_clear(&err);
		if (!CHECK_EQ_INT(lab_base64_encode(raw, sizeof raw, 76, &enc),
				  LAB_OK) ||
		    !CHECK_EQ_INT(lab_buf_put(&bad, enc.data, enc.len), LAB_OK))
			goto next;
		if (CHECK_OK(lab_base64_decode_in_place_each(
				     enc.data, enc.len, 512, pieces[z],
				     see_piece, &seen, &at, &len, &err),
			     &err)) {
			CHECK_EQ_INT(at, 512);
			CHECK_EQ_MEM(enc.data + at, len, raw, sizeof raw);
			CHECK(seen.ok && seen.calls > 0);
		}
		/* "xx==" in the middle: data after the padding. */
		off = bad.len / 2 / 77 * 77 + 42;
		bad.data[off] = '=';
		bad.data[off + 1] = '=';
		CHECK_EQ_INT(lab_base64_decode_in_place_each(
				     bad.data, bad.len, 512, pieces[z], NULL,
				     NULL, &at, &len, &err),
			     LAB_EMALFORMED);
		CHECK_EQ_STR(err.msg, "invalid base64: data after padding at "
				      "offset 13519");
		CHECK_EQ_INT(len, 0);
		lab_buf_free(&bad);
		if (pieces[z] == 0 ||
		    !CHECK_EQ_INT(lab_base64_encode(raw, sizeof raw, 76, &bad),
				  LAB_OK))
			goto next;
		CHECK_EQ_INT(lab_base64_decode_in_place_each(
				     bad.data, bad.len, 512, pieces[z],
				     stop_piece, NULL, &at, &len, &err),
			     LAB_ESECURITY);
		CHECK_EQ_STR(err.msg, "stopped");
next:
		lab_buf_free(&enc);
		lab_buf_free(&bad);
	}
}

/*
 * The vector paths the process takes: none past SSE2 when DOMLAB_SIMD is
 * sse2 (`make test` runs test-libdomlab so, to cover the SSE2 paths on
 * a CPU with AVX2), else those the CPU has.
 */
static void cpu_features(void)
{
	const char *cap = getenv("DOMLAB_SIMD");

	if (cap != NULL && strcmp(cap, "sse2") == 0) {
		CHECK(!lab_cpu_has(LAB_CPU_SSSE3));
		CHECK(!lab_cpu_has(LAB_CPU_AVX2));
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	CHECK_EQ_INT(lab_cpu_has(LAB_CPU_SSSE3),
		     __builtin_cpu_supports("ssse3") != 0);
	CHECK_EQ_INT(lab_cpu_has(LAB_CPU_AVX2),
		     __builtin_cpu_supports("avx2") != 0);
#else
	CHECK(!lab_cpu_has(LAB_CPU_SSSE3) && !lab_cpu_has(LAB_CPU_AVX2));
#endif
}

const t_case tests_base64[] = {
	{"crypto/base64_rfc4648", base64_rfc4648},
	{"crypto/base64_roundtrip", base64_roundtrip},
	{"crypto/base64_as_reference", base64_as_reference},
	{"crypto/base64_lines", base64_lines},
	{"crypto/base64_whitespace", base64_whitespace},
	{"crypto/base64_rejects", base64_rejects},
	{"crypto/base64_in_place", base64_in_place},
	{"crypto/base64_in_place_pieces", base64_in_place_pieces},
	{"crypto/base64_every_byte", base64_every_byte},
	{"crypto/base64_decode_as_reference", base64_decode_as_reference},
	{"crypto/base64_refuses_everywhere", base64_refuses_everywhere},
	{"crypto/cpu_features", cpu_features},
	{NULL, NULL},
};
