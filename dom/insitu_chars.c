/*
 * insitu_chars.c - what the insitu parser knows about characters: one
 * table of byte classes (so its hot loops are one load and one test per
 * byte), UTF-8 checked against XML's Char production, XML 1.0 (5th
 * edition) name characters beyond ASCII, and the references the SOAP
 * profile allows (the five predefined entities and character references).
 * Not for: scanning or building (variants/parser/insitu.c).
 */
#include <string.h>

#include "dom/insitu.h"

/* Generated: see the IS_ bits in insitu.h. */
const uint8_t dom__insitu_class[256] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x31, 0x31, 0x00, 0x00, 0x10, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x33, 0x23, 0x21, 0x23, 0x23, 0x23, 0x20, 0x21, 0x23, 0x23, 0x23, 0x23, 0x23, 0x27, 0x27, 0x23,
	0x27, 0x27, 0x27, 0x27, 0x27, 0x27, 0x27, 0x27, 0x27, 0x27, 0x23, 0x23, 0x20, 0x23, 0x23, 0x23,
	0x23, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f,
	0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x23, 0x23, 0x22, 0x23, 0x2f,
	0x23, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f,
	0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x2f, 0x23, 0x23, 0x23, 0x23, 0x23,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static int cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t dom__insitu_utf8(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c >= 0xc2 && c <= 0xdf)
		return cont(s[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (!cont(s[1]) || !cont(s[2]))
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0; /* surrogate */
		if (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
			return 0; /* U+FFFE, U+FFFF */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (!cont(s[1]) || !cont(s[2]) || !cont(s[3]))
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
			return 0; /* overlong, over U+10FFFF */
		return 4;
	}
	return 0;
}

uint32_t dom__insitu_decode(const unsigned char *s, size_t n)
{
	uint32_t c = s[0] & (0xff >> (n + 1));
	size_t i;

	for (i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

int dom__insitu_name_char(uint32_t c, int start)
{
	if ((c >= 0xc0 && c <= 0xd6) || (c >= 0xd8 && c <= 0xf6) ||
	    (c >= 0xf8 && c <= 0x2ff) || (c >= 0x370 && c <= 0x37d) ||
	    (c >= 0x37f && c <= 0x1fff) || c == 0x200c || c == 0x200d ||
	    (c >= 0x2070 && c <= 0x218f) || (c >= 0x2c00 && c <= 0x2fef) ||
	    (c >= 0x3001 && c <= 0xd7ff) || (c >= 0xf900 && c <= 0xfdcf) ||
	    (c >= 0xfdf0 && c <= 0xfffd) || (c >= 0x10000 && c <= 0xeffff))
		return 1;
	return !start && (c == 0xb7 || (c >= 0x300 && c <= 0x36f) ||
			  c == 0x203f || c == 0x2040);
}

static int is_char(uint32_t c)
{
	return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

static size_t encode(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

static size_t char_ref(const char *s, char *out, size_t *used,
		       const char **why)
{
	const char *p = s + 2;
	uint32_t c = 0;
	int hex = *p == 'x', digits = 0;

	if (hex)
		p++;
	for (;; p++, digits++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (hex && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (hex && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		/* Past U+10FFFF is an error whatever follows: stop growing. */
		if (c <= 0x10ffff)
			c = c * (hex ? 16 : 10) + d;
	}
	if (*p != ';' || digits == 0) {
		*used = (size_t)(p - s);
		*why = "malformed character reference";
		return 0;
	}
	*used = (size_t)(p - s) + 1;
	if (!is_char(c)) {
		*why = "character reference to a code point that is not an "
		       "XML character";
		return 0;
	}
	return encode(c, out);
}

size_t dom__insitu_ref(const char *s, char *out, size_t *used,
		       const char **why)
{
	static const struct {
		char name[6];
		char len, c;
	} predefined[] = {
		{"lt;", 3, '<'}, {"gt;", 3, '>'}, {"amp;", 4, '&'},
		{"quot;", 5, '"'}, {"apos;", 5, '\''},
	};
	size_t i;

	if (s[1] == '#')
		return char_ref(s, out, used, why);
	for (i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
		if (strncmp(s + 1, predefined[i].name,
			   (size_t)predefined[i].len) == 0) {
			*used = (size_t)predefined[i].len + 1;
			out[0] = predefined[i].c;
			return 1;
		}
	}
	for (i = 1; dom__is((unsigned char)s[i], IS_NAME) || s[i] == ':'; i++)
		;
	*used = s[i] == ';' ? i + 1 : i;
	*why = i > 1 && s[i] == ';'
		       ? "entity is not one of the five predefined: SOAP "
			 "messages have no DTD to declare it"
		       : "'&' does not start a reference";
	return 0;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/*
 * Whether c is one of "-._~:/?#[]@!$&'()*+,;=", the URI characters
 * beyond letters and digits: a bit per ASCII byte (bits 0-63 in the
 * first word, 64-127 in the second), as each byte of every namespace
 * URI declared is tested.
 */
static int uri_other(unsigned char c)
{
	static const uint64_t set[2] = {0xac00ffda00000000ULL,
					0x40000000a8000001ULL};

	return c < 128 && (set[c >> 6] >> (c & 63) & 1) != 0;
}

int dom__insitu_uri_chars(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || uri_other((unsigned char)c))
			continue;
		if (c == '%' && i + 2 < n &&
		    is_hex(s[i + 1]) && is_hex(s[i + 2])) {
			i += 2;
			continue;
		}
		return 0;
	}
	return 1;
}
