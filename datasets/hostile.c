/*
 * hostile.c - hostile shapes for `domlab gen`, each scaled by --size:
 *
 * collide-names  a Body of empty elements whose names all have one
 *                dom__hash_bytes under hash=fixed (distinct names)
 * collide-attrs  elements of 10,000 attributes (the default --max-attrs)
 *                whose names collide the same way
 * collide-ids    a message with a Security header that `receive` takes
 *                as far as resolving its token reference (the ID index),
 *                and a Body of elements whose wsu:Id values collide
 * wide-ns        a root declaring --count prefixes (default 9,000), each
 *                child using every one of them as an attribute prefix
 * deep           (with --size; datasets/gen.c makes the --count form)
 *                chains nested to the deepest the limit allows
 * many-attrs     one element with as many attributes as the size holds
 *
 * Colliding names are full collisions of hash=fixed's 64-bit state, made
 * by inverting it (variants/hash/fixed.c): each 8-byte word w maps the
 * state h to f(h ^ w), f a bijection.  For two-word blocks (a1, a2),
 * f(f(S ^ a1) ^ a2) == f(X) whenever a2 == X ^ f(S ^ a1); so with X
 * drawn once, every a1 whose a2 comes out as name characters gives a
 * block taking S to the same f(X).  K such blocks per step and m steps
 * give K^m names of 16m bytes with one final state (a multicollision),
 * hence one hash and one table slot in any table size.
 * Not for: hash=keyed, whose key makes any such set an accident.
 */
#include "datasets/hostile.h"

#include <string.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum { BLOCKS = 256, MAX_STEPS = 3, MAX_ATTRS = 10000, DEEP = 240 };

#define ENV_OPEN "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" \
	"<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\n"
#define WSU "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"

/* Output latches the first failure (as datasets/gen.c's writers do). */
struct out {
	lab_buf *b;
	int rc;
	uint64_t s; /* splitmix64 */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->rc == LAB_OK)
		o->rc = lab_buf_put(o->b, s, n);
}

static void put_s(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u(struct out *o, size_t v)
{
	char d[24];
	size_t i = sizeof d;

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	put(o, d + i, sizeof d - i);
}

static uint64_t rnd(struct out *o)
{
	uint64_t z = (o->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* ---- names that collide under hash=fixed ---- */

static const char name_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-";

/* hash=fixed's step for one word, and its constants. */
static uint64_t step(uint64_t h, uint64_t w)
{
	h = (h ^ w) * UINT64_C(0x100000001b3);
	return h ^ h >> 29;
}

/* One of name_chars: a byte that may stand after a name's first. */
static int name_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static int name_word(uint64_t w)
{
	unsigned char b[8];
	size_t i;

	memcpy(b, &w, 8);
	for (i = 0; i < 8; i++)
		if (!name_byte(b[i]))
			return 0;
	return 1;
}

typedef struct colliders {
	size_t steps;
	uint64_t block[MAX_STEPS][BLOCKS][2];
} colliders;

/* K blocks per step from the state a name of 16 * steps bytes starts in;
 * the very first word starts with a letter, as a name must. */
static void make_colliders(struct out *o, colliders *c, size_t steps)
{
	uint64_t s = UINT64_C(0xcbf29ce484222325) ^ (16 * steps);
	size_t i, k;

	c->steps = steps;
	for (i = 0; i < steps; i++) {
		uint64_t x = rnd(o);

		for (k = 0; k < BLOCKS;) {
			unsigned char b[8];
			uint64_t r = rnd(o), a1, a2;
			size_t j;

			for (j = 0; j < 8; j++)
				b[j] = (unsigned char)name_chars[(r >> (8 * j) & 0xff) %
								 (sizeof name_chars - 1)];
			if (i == 0)
				b[0] = (unsigned char)name_chars[b[0] % 52];
			memcpy(&a1, b, 8);
			a2 = x ^ step(s, a1);
			if (!name_word(a2))
				continue;
			c->block[i][k][0] = a1;
			c->block[i][k][1] = a2;
			k++;
		}
		s = step(x, 0);
	}
}

/* The n-th colliding name (n < BLOCKS^steps). */
static void put_collider(struct out *o, const colliders *c, size_t n)
{
	char name[16 * MAX_STEPS];
	size_t i;

	for (i = c->steps; i-- > 0; n /= BLOCKS) {
		memcpy(name + 16 * i, &c->block[i][n % BLOCKS][0], 8);
		memcpy(name + 16 * i + 8, &c->block[i][n % BLOCKS][1], 8);
	}
	put(o, name, 16 * c->steps);
}

/* Enough steps for n names. */
static size_t steps_for(size_t n)
{
	return n <= (size_t)BLOCKS * BLOCKS ? 2 : 3;
}

/* ---- the shapes ---- */

/* How many items of `per` bytes fit in size after `fixed` bytes. */
static size_t fit(size_t size, size_t fixed, size_t per)
{
	return size > fixed ? (size - fixed) / per : 0;
}

static size_t cap_names(const colliders *c, size_t n)
{
	size_t most = c->steps == 2 ? (size_t)BLOCKS * BLOCKS
				    : (size_t)BLOCKS * BLOCKS * BLOCKS;

	return n < most ? n : most;
}

static void collide_names(struct out *o, size_t size, colliders *c)
{
	size_t i, n;

	make_colliders(o, c, steps_for(size / 36));
	n = cap_names(c, fit(size, 120, 16 * c->steps + 8));
	put_s(o, ENV_OPEN "  <soap:Body>\n");
	for (i = 0; i < n; i++) {
		put_s(o, "    <");
		put_collider(o, c, i);
		put_s(o, "/>\n");
	}
	put_s(o, "  </soap:Body>\n</soap:Envelope>\n");
}

static void collide_attrs(struct out *o, size_t size, colliders *c)
{
	size_t i, n;

	make_colliders(o, c, steps_for(size / 36));
	n = cap_names(c, fit(size, 120, 16 * c->steps + 4));
	put_s(o, ENV_OPEN "  <soap:Body>\n");
	for (i = 0; i < n; i++) {
		if (i % MAX_ATTRS == 0)
			put_s(o, "    <e");
		put_s(o, " ");
		put_collider(o, c, i);
		put_s(o, "=\"\"");
		if (i % MAX_ATTRS == MAX_ATTRS - 1 || i + 1 == n)
			put_s(o, "/>\n");
	}
	put_s(o, "  </soap:Body>\n</soap:Envelope>\n");
}

/*
 * The Security header of a signed message as `receive` checks it up to
 * the ID index: a Timestamp good at --now 1796000000 (5 minutes), a
 * Signature whose algorithms are the allowed ones and whose KeyInfo
 * names the token by ID.  The token is no certificate, so the message
 * is refused there (exit 3) after the index is built.
 */
static const char security[] =
	"  <soap:Header><wsse:Security xmlns:wsse=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd\" soap:mustUnderstand=\"1\">"
	"<wsse:BinarySecurityToken xmlns:wsu=\"" WSU "\" EncodingType=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary\" ValueType=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3\" wsu:Id=\"X509-1\">AAAA</wsse:BinarySecurityToken>"
	"<ds:Signature xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\"><ds:SignedInfo>"
	"<ds:CanonicalizationMethod Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"/>"
	"<ds:SignatureMethod Algorithm=\"http://www.w3.org/2001/04/xmldsig-more#rsa-sha256\"/>"
	"<ds:Reference URI=\"#Body-1\"><ds:Transforms><ds:Transform Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"/></ds:Transforms>"
	"<ds:DigestMethod Algorithm=\"http://www.w3.org/2001/04/xmlenc#sha256\"/><ds:DigestValue>AAAA</ds:DigestValue></ds:Reference>"
	"<ds:Reference URI=\"#TS-1\"><ds:Transforms><ds:Transform Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"/></ds:Transforms>"
	"<ds:DigestMethod Algorithm=\"http://www.w3.org/2001/04/xmlenc#sha256\"/><ds:DigestValue>AAAA</ds:DigestValue></ds:Reference>"
	"</ds:SignedInfo><ds:SignatureValue>AAAA</ds:SignatureValue>"
	"<ds:KeyInfo><wsse:SecurityTokenReference><wsse:Reference URI=\"#X509-1\" ValueType=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3\"/></wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature>"
	"<wsu:Timestamp xmlns:wsu=\"" WSU "\" wsu:Id=\"TS-1\"><wsu:Created>2026-11-30T00:53:20Z</wsu:Created><wsu:Expires>2026-11-30T00:58:20Z</wsu:Expires></wsu:Timestamp>"
	"</wsse:Security></soap:Header>\n"
	"  <soap:Body xmlns:wsu=\"" WSU "\" wsu:Id=\"Body-1\">\n";

static void collide_ids(struct out *o, size_t size, colliders *c)
{
	size_t i, n;

	make_colliders(o, c, steps_for(size / 52));
	n = cap_names(c, fit(size, sizeof security + 120, 16 * c->steps + 19));
	put_s(o, ENV_OPEN);
	put_s(o, security);
	for (i = 0; i < n; i++) {
		put_s(o, "    <e wsu:Id=\"");
		put_collider(o, c, i);
		put_s(o, "\"/>\n");
	}
	put_s(o, "  </soap:Body>\n</soap:Envelope>\n");
}

static void wide_ns(struct out *o, size_t size, size_t prefixes)
{
	size_t start = o->b->len, i;

	put_s(o, "<r");
	for (i = 0; i < prefixes; i++) {
		put_s(o, " xmlns:p");
		put_u(o, i);
		put_s(o, "=\"urn:p");
		put_u(o, i);
		put_s(o, "\"");
	}
	put_s(o, ">\n");
	do {
		put_s(o, "<c");
		for (i = 0; i < prefixes; i++) {
			put_s(o, " p");
			put_u(o, i);
			put_s(o, ":a=\"\"");
		}
		put_s(o, "/>\n");
	} while (o->rc == LAB_OK && o->b->len - start + 5 < size);
	put_s(o, "</r>\n");
}

static void deep_chains(struct out *o, size_t size)
{
	size_t start = o->b->len, i;

	put_s(o, ENV_OPEN "  <soap:Body>\n");
	do {
		for (i = 0; i < DEEP; i++)
			put_s(o, "<d>");
		put_s(o, "x");
		for (i = 0; i < DEEP; i++)
			put_s(o, "</d>");
		put_s(o, "\n");
	} while (o->rc == LAB_OK && o->b->len - start + 30 < size);
	put_s(o, "  </soap:Body>\n</soap:Envelope>\n");
}

static void many_attrs(struct out *o, size_t size)
{
	size_t start = o->b->len, i;

	put_s(o, "<r");
	for (i = 0; o->rc == LAB_OK && o->b->len - start + 4 < size; i++) {
		put_s(o, " a");
		put_u(o, i);
		put_s(o, "=\"\"");
	}
	put_s(o, "/>\n");
}

int lab_gen_hostile(lab_gen_kind kind, size_t size, size_t count,
		    uint64_t seed, lab_buf *out)
{
	struct out o = {out, LAB_OK, seed};
	colliders c;

	if (size == 0)
		size = 1000000;
	switch (kind) {
	case LAB_GEN_COLLIDE_NAMES:
		collide_names(&o, size, &c);
		break;
	case LAB_GEN_COLLIDE_ATTRS:
		collide_attrs(&o, size, &c);
		break;
	case LAB_GEN_COLLIDE_IDS:
		collide_ids(&o, size, &c);
		break;
	case LAB_GEN_WIDE_NS:
		wide_ns(&o, size, count != 0 ? count : 9000);
		break;
	case LAB_GEN_DEEP:
		deep_chains(&o, size);
		break;
	default:
		many_attrs(&o, size);
		break;
	}
	return o.rc;
}
