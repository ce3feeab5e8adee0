/*
 * gen.c - the document generator behind `domlab gen` and the tests.
 *
 * Every document is written in the one form the DOM serializer produces
 * (datasets/README.md), so parse->serialize must give back the same
 * bytes.  Output depends only on the options: the PRNG is our own and
 * numbers are formatted from integers, never through floating point or
 * the locale.
 * Not for: anything read from outside; the only input is lab_gen_opts.
 */
#include "datasets/gen.h"

#include "datasets/hostile.h"

#include <string.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(g, a) ((a)[below((g), (uint32_t)NELEM(a))])

#define DEEP_MAX 240 /* + Envelope and Body stays under libxml2's 256 */
#define DEEP_DEFAULT 128
#define RND_DEFAULT 40
#define WORD_MAX 40

#define ENV_OPEN "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" \
	"<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"" \
	" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"" \
	" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n" \
	"  <soap:Header/>\n" \
	"  <soap:Body>\n"
#define ENV_CLOSE "  </soap:Body>\n</soap:Envelope>\n"

/*
 * Output goes to memory, so the only failure is ENOMEM.  The writers
 * latch the first one in rc and do nothing after it; lab_gen reports it
 * once and rolls the buffer back, which keeps the per-kind code free of
 * error plumbing.
 */
struct gen {
	uint64_t s; /* splitmix64 state */
	lab_buf *b;
	int rc;
	int canonical; /* lab_gen_opts.canonical */
};

enum esc { RAW, TEXT, ATTR };

static uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, n) by multiply-shift: no modulo bias worth caring about. */
static uint32_t below(struct gen *g, uint32_t n)
{
	return (uint32_t)(((rnd(g) >> 32) * n) >> 32);
}

static uint32_t range(struct gen *g, uint32_t lo, uint32_t hi)
{
	return lo + below(g, hi - lo + 1);
}

/* True one time in n. */
static int chance(struct gen *g, uint32_t n)
{
	return below(g, n) == 0;
}

static void put(struct gen *g, const char *s, size_t n)
{
	if (g->rc == LAB_OK)
		g->rc = lab_buf_put(g->b, s, n);
}

static void put_s(struct gen *g, const char *s)
{
	put(g, s, strlen(s));
}

/* Zero-padded to width digits. */
static void put_u(struct gen *g, uint64_t v, size_t width)
{
	char d[24];
	size_t i = sizeof d;

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 || sizeof d - i < width);
	put(g, d + i, sizeof d - i);
}

/* s, then v as put_u writes it. */
static void put_su(struct gen *g, const char *s, uint64_t v, size_t width)
{
	put_s(g, s);
	put_u(g, v, width);
}

static void put_i(struct gen *g, int64_t v)
{
	put_su(g, v < 0 ? "-" : "", v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 1);
}

/* v / 10^frac with exactly frac decimals; the sign is explicit so -0.5 stays negative. */
static void put_fixed(struct gen *g, int64_t v, unsigned frac)
{
	uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v, p = 1;
	unsigned i;

	for (i = 0; i < frac; i++)
		p *= 10;
	put_su(g, v < 0 ? "-" : "", a / p, 1);
	put_su(g, ".", a % p, frac);
}

static void put_esc(struct gen *g, const char *s, size_t n, enum esc m)
{
	const char *run = s, *end = s + n;

	for (; m != RAW && s < end; s++) {
		const char *rep = NULL;

		if (*s == '&')
			rep = "&amp;";
		else if (*s == '<')
			rep = "&lt;";
		else if (*s == '>' && m == TEXT)
			rep = "&gt;";
		else if (*s == '"' && m == ATTR)
			rep = "&quot;";
		if (rep != NULL) {
			put(g, run, (size_t)(s - run));
			put_s(g, rep);
			run = s + 1;
		}
	}
	put(g, run, (size_t)(end - run));
}

static void put_indent(struct gen *g, size_t n)
{
	static const char sp[] = "                                ";

	for (; n > sizeof sp - 1; n -= sizeof sp - 1)
		put(g, sp, sizeof sp - 1);
	put(g, sp, n);
}

/*
 * A printable word of lo..hi characters (at most WORD_MAX), mostly
 * alphanumeric, with the characters that need escaping and 2-, 3- and
 * 4-byte UTF-8 mixed in.
 */
static void put_word(struct gen *g, uint32_t lo, uint32_t hi, enum esc m)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static const char *const special[] = {"&", "<", ">", "\""};
	char w[4 * WORD_MAX];
	size_t n = 0;
	uint32_t len = range(g, lo, hi), i;

	for (i = 0; i < len; i++) {
		uint32_t r = below(g, 200);
		const char *s;

		if (r < 8) {
			s = special[r % 4];
		} else if (r < 12) {
			s = "\xC3\xA9"; /* é */
		} else if (r < 14 && i + 1 < len) {
			s = "\xE6\x97\xA5\xE6\x9C\xAC"; /* 日本, two characters */
			i++;
		} else if (r == 14) {
			s = "\xF0\x9F\x8C\x8D"; /* U+1F30D */
		} else {
			w[n++] = alnum[below(g, (uint32_t)sizeof alnum - 1)];
			continue;
		}
		memcpy(w + n, s, strlen(s));
		n += strlen(s);
	}
	put_esc(g, w, n, m);
}

/* ---- list-shaped documents: a head, N items, a tail ---- */

struct list_kind {
	size_t def_size, def_count;     /* used when both options are 0 */
	void (*head)(struct gen *g, size_t n); /* must not draw from the PRNG */
	void (*item)(struct gen *g);
	const char *tail;
};

static void quakes_head(struct gen *g, size_t n)
{
	put_su(g, ENV_OPEN "    <q:getEventsResponse xmlns:q=\"urn:example:seismic:quakes:v1\">\n"
	      "     <q:results count=\"", n, 1);
	put_s(g, g->canonical
		 ? "\" generated=\"2024-03-31T00:00:00Z\" source=\"domlab-gen\">\n"
		 : "\" source=\"domlab-gen\" generated=\"2024-03-31T00:00:00Z\">\n");
}

/* A quake's attributes, drawn before any is written so that both
 * orders write the same values. */
struct quake {
	const char *net;
	uint32_t id, day, hour, min, sec, ms, depth, mag;
	int64_t lat, lon;
};

/* The attribute of q its letter names (i: id, t: time, a: lat, o: lon,
 * d: depth, m: magnitude), with its leading space. */
static void put_quake_attr(struct gen *g, const struct quake *q, char name)
{
	switch (name) {
	case 'i':
		put_s(g, " id=\"");
		put_s(g, q->net);
		put_u(g, q->id, 8);
		break;
	case 't':
		put_su(g, " time=\"2024-03-", q->day, 2);
		put_su(g, "T", q->hour, 2);
		put_su(g, ":", q->min, 2);
		put_su(g, ":", q->sec, 2);
		put_su(g, ".", q->ms, 3);
		put_s(g, "Z");
		break;
	case 'a':
		put_s(g, " lat=\"");
		put_fixed(g, q->lat, 4);
		break;
	case 'o':
		put_s(g, " lon=\"");
		put_fixed(g, q->lon, 4);
		break;
	case 'd':
		put_s(g, " depth=\"");
		put_fixed(g, q->depth, 2);
		break;
	default:
		put_s(g, " magnitude=\"");
		put_fixed(g, q->mag, 1);
		break;
	}
	put_s(g, "\"");
}

static void quakes_item(struct gen *g)
{
	static const char *const net[] = {"us", "uw", "nc", "hv", "ak", "ci", "nn", "pr"};
	static const char *const dir[] = {"N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE",
					  "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"};
	static const char *const place[] = {
		"Wellington, New Zealand", "Lima, Peru", "Hilo, Hawaii",
		"Ocotillo Wells, CA", "Kathmandu, Nepal", "Pahala, Hawaii",
		"Mexico City, Mexico", "Athens, Greece", "Anchorage, Alaska",
		"Tokyo, Japan", "Santiago, Chile", "Reykjavik, Iceland",
		"Ridgecrest, CA", "Padang, Indonesia", "Izmir, Turkey", "Petrolia, CA"};

	/* put_quake_attr's letters in quakes' order, or in C14N's (by
	 * name) when canonical. */
	const char *order = g->canonical ? "diaomt" : "itaodm";
	struct quake q;

	q.net = PICK(g, net);
	q.id = below(g, 100000000);
	q.day = range(g, 1, 31);
	q.hour = below(g, 24);
	q.min = below(g, 60);
	q.sec = below(g, 60);
	q.ms = below(g, 1000);
	q.lat = (int64_t)below(g, 1800001) - 900000;
	q.lon = (int64_t)below(g, 3600001) - 1800000;
	q.depth = below(g, 70001);
	q.mag = range(g, 10, 79);
	put_s(g, "      <q:quake");
	for (; *order != '\0'; order++)
		put_quake_attr(g, &q, *order);
	put_su(g, "><q:region>", range(g, 1, 300), 1);
	put_s(g, " km ");
	put_s(g, PICK(g, dir));
	put_s(g, " of ");
	put_s(g, PICK(g, place));
	put_s(g, "</q:region></q:quake>\n");
}

/* The SOAP-encoded array of the interop echo tests, as in in-ints-200.xml. */
static void array_head(struct gen *g, size_t n, const char *what, const char *type)
{
	put_s(g, ENV_OPEN "    <ns1:echo");
	put_s(g, what);
	put_s(g, "Array xmlns:ns1=\"http://soapinterop.org/\""
	      " soap:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\">\n      <input");
	put_s(g, what);
	put_s(g, "Array xmlns:soapenc=\"http://schemas.xmlsoap.org/soap/encoding/\""
	      " xsi:type=\"soapenc:Array\" soapenc:arrayType=\"xsd:");
	put_s(g, type);
	put_su(g, "[", n, 1);
	put_s(g, "]\">\n");
}

static void ints_head(struct gen *g, size_t n)
{
	array_head(g, n, "Integer", "int");
}

static void ints_item(struct gen *g)
{
	put_s(g, "        <item xsi:type=\"xsd:int\">");
	put_i(g, (int64_t)(rnd(g) >> 32) - INT64_C(2147483648));
	put_s(g, "</item>\n");
}

static void strings_head(struct gen *g, size_t n)
{
	array_head(g, n, "String", "string");
}

static void strings_item(struct gen *g)
{
	put_s(g, "        <item xsi:type=\"xsd:string\">");
	put_word(g, 5, WORD_MAX, TEXT);
	put_s(g, "</item>\n");
}

static void wide_head(struct gen *g, size_t n)
{
	put_su(g, ENV_OPEN "    <w:rows xmlns:w=\"urn:example:domlab:wide:v1\""
	      " xmlns:a=\"urn:example:domlab:wide:alpha\""
	      " xmlns:b=\"urn:example:domlab:wide:beta\" count=\"", n, 1);
	put_s(g, "\">\n");
}

/*
 * 30-60 distinct (namespace, name) pairs out of 4 x 24: more attributes
 * than local names, so every row has some name in two namespaces.
 */
static void wide_item(struct gen *g)
{
	static const char *const ns[] = {"", "a:", "b:", "w:"};
	static const char *const name[] = {
		"id", "name", "type", "value", "kind", "ref", "lang", "unit",
		"scale", "min", "max", "step", "code", "label", "group", "order",
		"flag", "mode", "state", "owner", "since", "until", "hash", "note"};
	unsigned char pair[NELEM(ns) * NELEM(name)];
	uint32_t n = range(g, 30, 60), i;

	for (i = 0; i < NELEM(pair); i++)
		pair[i] = (unsigned char)i;
	put_s(g, "      <w:row");
	for (i = 0; i < n; i++) {
		uint32_t j = i + below(g, (uint32_t)NELEM(pair) - i);
		unsigned char c = pair[j];

		pair[j] = pair[i];
		pair[i] = c;
		put_s(g, " ");
		put_s(g, ns[c / NELEM(name)]);
		put_s(g, name[c % NELEM(name)]);
		put_s(g, "=\"");
		put_word(g, 1, 12, ATTR);
		put_s(g, "\"");
	}
	put_s(g, "/>\n");
}

static const struct list_kind quakes = {
	2048, 0, quakes_head, quakes_item,
	"     </q:results>\n    </q:getEventsResponse>\n" ENV_CLOSE};
static const struct list_kind ints = {
	0, 200, ints_head, ints_item,
	"      </inputIntegerArray>\n    </ns1:echoIntegerArray>\n" ENV_CLOSE};
static const struct list_kind strings = {
	0, 200, strings_head, strings_item,
	"      </inputStringArray>\n    </ns1:echoStringArray>\n" ENV_CLOSE};
static const struct list_kind wide = {
	0, 200, wide_head, wide_item, "    </w:rows>\n" ENV_CLOSE};

static size_t ndigits(size_t n)
{
	size_t d = 1;

	for (; n >= 10; n /= 10)
		d++;
	return d;
}

static size_t dist(size_t a, size_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * With a size, items go to a side buffer until one more would take the
 * document further from the target; the head, which carries the count,
 * is written once that count is known.  Items are drawn in the same
 * order either way, so size mode gives the count-mode document for the
 * count it arrives at.
 */
static void gen_list(struct gen *g, const struct list_kind *k, size_t size, size_t count)
{
	lab_buf items = LAB_BUF_INIT;
	struct gen side = *g;
	size_t fixed;

	if (size == 0) {
		k->head(g, count);
		for (; count > 0 && g->rc == LAB_OK; count--)
			k->item(g);
		put_s(g, k->tail);
		return;
	}
	/* side's PRNG state is dropped with it: nothing draws after the items. */
	side.b = &items;
	k->head(&side, 0);
	fixed = items.len - 1 + strlen(k->tail);
	items.len = 0;
	for (count = 0; side.rc == LAB_OK; count++) {
		size_t before = items.len;

		k->item(&side);
		if (side.rc == LAB_OK &&
		    dist(fixed + ndigits(count + 1) + items.len, size) >=
		    dist(fixed + ndigits(count) + before, size)) {
			items.len = before;
			break;
		}
	}
	g->rc = side.rc;
	k->head(g, count);
	put(g, items.data, items.len);
	put_s(g, k->tail);
	lab_buf_free(&items);
}

/* ---- deep: one chain of nested elements ---- */

#define DEEP_URI "urn:example:domlab:deep:"

/* Level i is named e<i>; prefix d<k> is the one first declared at level k. */
static void deep_name(struct gen *g, int pfx, size_t level)
{
	if (pfx >= 0) {
		put_su(g, "d", (uint64_t)pfx, 1);
		put_s(g, ":");
	}
	put_su(g, "e", level, 1);
}

/*
 * A chain has no siblings, so a declaration stays in scope for every
 * deeper level and the set of usable prefixes only grows.  Each
 * declaration binds a URI unique to its level, so a redeclaration always
 * changes the binding.
 */
static void gen_deep(struct gen *g, size_t depth)
{
	int pfx[DEEP_MAX], epfx[DEEP_MAX];
	uint32_t npfx = 0;
	size_t i;
	int has_default = 0;

	put_s(g, ENV_OPEN);
	for (i = 0; i < depth; i++) {
		uint32_t r = i == 0 ? 0 : below(g, 10);
		int dp = -1, def = 0, undef = 0;

		if (r < 2) {
			dp = (int)i;
			pfx[npfx++] = dp;
		} else if (r == 2) {
			dp = pfx[below(g, npfx)];
		} else if (r == 3) {
			def = has_default = 1;
		} else if (r == 4 && has_default) {
			undef = 1;
			has_default = 0;
		}
		epfx[i] = chance(g, 3) ? -1 : pfx[below(g, npfx)];
		put_indent(g, 4 + i);
		put_s(g, "<");
		deep_name(g, epfx[i], i);
		if (dp >= 0) {
			put_su(g, " xmlns:d", (uint64_t)dp, 1);
			put_su(g, "=\"" DEEP_URI, i, 1);
			put_s(g, "\"");
		} else if (def) {
			put_su(g, " xmlns=\"" DEEP_URI, i, 1);
			put_s(g, "\"");
		} else if (undef) {
			put_s(g, " xmlns=\"\"");
		}
		put_su(g, " n=\"", i, 1);
		put_s(g, "\"");
		if (chance(g, 2)) {
			put_su(g, " d", (uint64_t)pfx[below(g, npfx)], 1);
			put_s(g, ":n=\"");
			put_word(g, 1, 8, ATTR);
			put_s(g, "\"");
		}
		put_s(g, i + 1 < depth ? ">\n" : ">");
	}
	put_word(g, 5, 20, TEXT);
	for (i = depth; i-- > 0;) {
		if (i + 1 < depth)
			put_indent(g, 4 + i);
		put_s(g, "</");
		deep_name(g, epfx[i], i);
		put_s(g, ">\n");
	}
	put_s(g, ENV_CLOSE);
}

/* ---- random: small documents for differential testing ---- */

#define RND_DEPTH 8
#define RND_BINDS (3 * (RND_DEPTH + 1))
#define XML_NS "http://www.w3.org/XML/1998/namespace"

static const char *const rnd_pfx[] = {"p", "q", "ns1", "p\xC3\xA9"};
static const char *const rnd_uri[] = {
	"urn:example:domlab:one", "urn:example:domlab:two",
	"http://example.com/ns/three", "urn:example:domlab:four"};
/* Few names so that one name in two namespaces comes up often. */
static const char *const rnd_local[] = {"id", "a", "type", "lang", "space", "v", "\xC3\xA9t\xC3\xA9"};
/* All non-empty; tab and newline last, as attributes must not use them. */
static const char *const atom[] = {
	"lorem", "ipsum", "x", "42", " ", "  ", "&", "<", ">", "\"", "'", "-", "?",
	"]", "]]", "\xC3\xA9", "\xC3\xBC", "\xE6\x97\xA5\xE6\x9C\xAC",
	"\xF0\x9F\x8C\x8D", "\n", "\t"};
#define ATOMS_NOWS (NELEM(atom) - 2)

struct rnd {
	const char *pfx[RND_BINDS]; /* "" binds the default namespace */
	const char *uri[RND_BINDS]; /* "" for xmlns="" */
	size_t nb;
	size_t budget;              /* nodes still to make */
};

static const char *rnd_lookup(const struct rnd *c, const char *pfx)
{
	size_t i;

	for (i = c->nb; i-- > 0;)
		if (strcmp(c->pfx[i], pfx) == 0)
			return c->uri[i];
	return NULL;
}

/* A prefix in scope, or NULL when there is none. */
static const char *rnd_in_scope(struct gen *g, const struct rnd *c)
{
	const char *have[NELEM(rnd_pfx)];
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < NELEM(rnd_pfx); i++)
		if (rnd_lookup(c, rnd_pfx[i]) != NULL)
			have[n++] = rnd_pfx[i];
	return n > 0 ? have[below(g, n)] : NULL;
}

static void spend(struct rnd *c)
{
	if (c->budget > 0)
		c->budget--;
}

/* Never starts with x or X, so no name is reserved ("xml..."). */
static void rnd_name(struct gen *g, char *dst)
{
	static const char first[] = "abcdefghijklmnopqrstuvwyzABCDEFGHIJKLMNOPQRSTUVWYZ_";
	static const char rest[] = "abcdefghijklmnopqrstuvwxyz0123456789._-";
	uint32_t len = below(g, 7), i;
	size_t n = 0;

	if (chance(g, 8)) {
		memcpy(dst, "\xC3\xA9", 2);
		n = 2;
	} else {
		dst[n++] = first[below(g, (uint32_t)sizeof first - 1)];
	}
	for (i = 0; i < len; i++) {
		if (chance(g, 12)) {
			memcpy(dst + n, "\xC3\xA9", 2);
			n += 2;
		} else {
			dst[n++] = rest[below(g, (uint32_t)sizeof rest - 1)];
		}
	}
	dst[n] = '\0';
}

static void put_atoms(struct gen *g, uint32_t n, size_t natoms, enum esc m)
{
	for (; n > 0; n--) {
		const char *s = atom[below(g, (uint32_t)natoms)];

		put_esc(g, s, strlen(s), m);
	}
}

/*
 * Unescaped content written since start must not contain bad ("--",
 * "]]>", "?>"): the last byte of each match is replaced.  Every byte
 * involved is ASCII, so UTF-8 sequences are never touched.
 */
static void defuse(struct gen *g, size_t start, const char *bad)
{
	size_t n = strlen(bad), i;
	char *p = g->b->data;

	if (g->rc != LAB_OK)
		return;
	for (i = start; i + n <= g->b->len; i++)
		if (memcmp(p + i, bad, n) == 0)
			p[i + n - 1] = '_';
}

static void rnd_comment(struct gen *g)
{
	size_t start;

	put_s(g, "<!--");
	start = g->b->len;
	put_atoms(g, range(g, 1, 5), NELEM(atom), RAW);
	defuse(g, start, "--");
	if (g->rc == LAB_OK && g->b->data[g->b->len - 1] == '-')
		g->b->data[g->b->len - 1] = '_';
	put_s(g, "-->");
}

/* The parser drops whitespace after the target, so data never starts with it. */
static void rnd_pi(struct gen *g)
{
	char target[32];
	size_t start;

	rnd_name(g, target);
	put_s(g, "<?");
	put_s(g, target);
	if (chance(g, 4)) {
		put_s(g, "?>");
		return;
	}
	put_s(g, " ");
	start = g->b->len;
	put_atoms(g, range(g, 1, 4), NELEM(atom), RAW);
	defuse(g, start, "?>");
	if (g->rc == LAB_OK && strchr(" \t\n", g->b->data[start]) != NULL)
		g->b->data[start] = '_';
	put_s(g, "?>");
}

static void rnd_cdata(struct gen *g)
{
	size_t start;

	put_s(g, "<![CDATA[");
	start = g->b->len;
	put_atoms(g, range(g, 1, 6), NELEM(atom), RAW);
	defuse(g, start, "]]>");
	put_s(g, "]]>");
}

static void rnd_text(struct gen *g)
{
	static const char *const ws[] = {" ", "\n", "\n  ", "\t", "\n\t \n"};

	if (chance(g, 4))
		put_s(g, PICK(g, ws));
	else
		put_atoms(g, range(g, 1, 6), NELEM(atom), TEXT);
}

struct seen {
	const char *uri, *local;
};

/* Writes ` qname="value"` unless (uri, local) is already on the element. */
static void rnd_attr(struct gen *g, struct seen *s, size_t *ns, const char *pfx,
		     const char *uri, const char *local)
{
	static const char *const lang[] = {"en", "fr-CA", "ja", ""};
	static const char *const space[] = {"preserve", "default"};
	size_t i;

	for (i = 0; i < *ns; i++)
		if (strcmp(s[i].uri, uri) == 0 && strcmp(s[i].local, local) == 0)
			return;
	s[*ns].uri = uri;
	s[(*ns)++].local = local;
	put_s(g, " ");
	if (*pfx != '\0') {
		put_s(g, pfx);
		put_s(g, ":");
	}
	put_s(g, local);
	put_s(g, "=\"");
	if (strcmp(uri, XML_NS) == 0)
		put_s(g, strcmp(local, "lang") == 0 ? PICK(g, lang) : PICK(g, space));
	else
		put_atoms(g, below(g, 5), ATOMS_NOWS, ATTR);
	put_s(g, "\"");
}

/* Pushes 0-3 declarations for a new element; at most one per prefix. */
static void rnd_decls(struct gen *g, struct rnd *c)
{
	size_t mark = c->nb, i;
	uint32_t r = below(g, 20), n = r < 11 ? 0 : r < 16 ? 1 : r < 19 ? 2 : 3;

	for (; n > 0; n--) {
		const char *pfx = chance(g, 3) ? "" : PICK(g, rnd_pfx);
		const char *cur = rnd_lookup(c, pfx), *uri;

		for (i = mark; i < c->nb; i++)
			if (strcmp(c->pfx[i], pfx) == 0)
				break;
		if (i < c->nb)
			continue;
		/* A redeclaration always changes the binding; xmlns="" only undoes one. */
		do
			uri = *pfx == '\0' && cur != NULL && *cur != '\0' && chance(g, 2) ?
				"" : PICK(g, rnd_uri);
		while (cur != NULL && strcmp(uri, cur) == 0);
		c->pfx[c->nb] = pfx;
		c->uri[c->nb++] = uri;
	}
}

static void rnd_attrs(struct gen *g, const struct rnd *c)
{
	struct seen seen[8];
	size_t nseen = 0;
	uint32_t n = below(g, 5);

	for (; n > 0; n--) {
		uint32_t t = below(g, 8);
		const char *pfx = rnd_in_scope(g, c), *local = PICK(g, rnd_local);

		if (t == 0)
			rnd_attr(g, seen, &nseen, "xml", XML_NS, "lang");
		else if (t == 1)
			rnd_attr(g, seen, &nseen, "xml", XML_NS, "space");
		else if (t < 5 || pfx == NULL)
			rnd_attr(g, seen, &nseen, "", "", local);
		else
			rnd_attr(g, seen, &nseen, pfx, rnd_lookup(c, pfx), local);
		if (t >= 2 && t < 5 && pfx != NULL && chance(g, 3))
			rnd_attr(g, seen, &nseen, pfx, rnd_lookup(c, pfx), local);
	}
}

/*
 * Character data never follows character data: a parser would merge two
 * texts, and some merge text with CDATA, so the tree would not
 * serialize back to the same bytes.
 */
static void rnd_elem(struct gen *g, struct rnd *c, unsigned depth)
{
	char qname[48];
	const char *pfx;
	size_t mark = c->nb, nkids, i, n;
	int last_chars = 0;

	spend(c);
	rnd_decls(g, c);
	pfx = chance(g, 2) ? rnd_in_scope(g, c) : NULL;
	n = 0;
	if (pfx != NULL) {
		n = strlen(pfx);
		memcpy(qname, pfx, n);
		qname[n++] = ':';
	}
	rnd_name(g, qname + n);
	put_s(g, "<");
	put_s(g, qname);
	for (i = mark; i < c->nb; i++) {
		put_s(g, *c->pfx[i] == '\0' ? " xmlns" : " xmlns:");
		put_s(g, c->pfx[i]);
		put_s(g, "=\"");
		put_s(g, c->uri[i]);
		put_s(g, "\"");
	}
	rnd_attrs(g, c);
	if (depth == 0)
		nkids = (size_t)-1;
	else if (c->budget > 0 && depth < RND_DEPTH && !chance(g, 4))
		nkids = range(g, 1, 5);
	else
		nkids = 0;
	/* Past here the first child is written before anything spends the budget. */
	if (nkids == 0 || c->budget == 0) {
		put_s(g, "/>");
		c->nb = mark;
		return;
	}
	put_s(g, ">");
	for (i = 0; i < nkids && c->budget > 0 && g->rc == LAB_OK; i++) {
		uint32_t t = below(g, last_chars ? 6 : 10);

		last_chars = t >= 6;
		if (t < 4) {
			rnd_elem(g, c, depth + 1);
			continue;
		}
		spend(c);
		if (t == 4)
			rnd_comment(g);
		else if (t == 5)
			rnd_pi(g);
		else if (t < 9)
			rnd_text(g);
		else
			rnd_cdata(g);
	}
	put_s(g, "</");
	put_s(g, qname);
	put_s(g, ">");
	c->nb = mark;
}

static void rnd_misc(struct gen *g, struct rnd *c)
{
	uint32_t n = below(g, 3);

	for (; n > 0; n--) {
		spend(c);
		if (chance(g, 2))
			rnd_comment(g);
		else
			rnd_pi(g);
		put_s(g, "\n");
	}
}

/* An attachment's content: size bytes (default 150 KiB) from the PRNG,
 * every byte value present, so binary framing is exercised. */
#define BYTES_DEFAULT (150 * 1024)

static void gen_bytes(struct gen *g, size_t size)
{
	size_t i;

	if (g->rc != LAB_OK || lab_buf_reserve(g->b, size) != LAB_OK) {
		g->rc = LAB_ENOMEM;
		return;
	}
	for (i = 0; i < size; i += 8) {
		uint64_t v = rnd(g);
		size_t k;

		for (k = 0; k < 8 && i + k < size; k++)
			g->b->data[g->b->len + i + k] = (char)(v >> (8 * k));
	}
	g->b->len += size;
	g->b->data[g->b->len] = '\0';
}

static void gen_random(struct gen *g, size_t count)
{
	struct rnd c;

	c.nb = 0;
	c.budget = count;
	put_s(g, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	rnd_misc(g, &c);
	rnd_elem(g, &c, 0);
	put_s(g, "\n");
	rnd_misc(g, &c);
}

/* ---- public ---- */

static const char *const kind_name[] = {
	"quakes", "ints", "strings", "wide", "deep", "random", "bytes",
	"collide-names", "collide-attrs", "collide-ids", "wide-ns", "many-attrs"};

int lab_gen_kind_parse(const char *name, lab_gen_kind *out)
{
	size_t i;

	for (i = 0; name != NULL && i < NELEM(kind_name); i++) {
		if (strcmp(name, kind_name[i]) == 0) {
			*out = (lab_gen_kind)i;
			return LAB_OK;
		}
	}
	return LAB_EUSAGE;
}

const char *lab_gen_kind_name(lab_gen_kind k)
{
	return (size_t)k < NELEM(kind_name) ? kind_name[k] : "unknown";
}

int lab_gen(const lab_gen_opts *o, lab_buf *out, lab_err *err)
{
	static const struct list_kind *const list[] = {&quakes, &ints, &strings, &wide};
	struct gen g;
	size_t start;

	if (o == NULL || out == NULL)
		return lab_fail(err, LAB_EUSAGE, "no options or no output buffer");
	if ((size_t)o->kind >= NELEM(kind_name))
		return lab_fail(err, LAB_EUSAGE, "unknown kind %d", (int)o->kind);
	if (o->kind == LAB_GEN_BYTES && o->count != 0)
		return lab_fail(err, LAB_EUSAGE, "bytes takes a size, not a count");
	if (o->kind == LAB_GEN_RANDOM && o->size != 0)
		return lab_fail(err, LAB_EUSAGE, "%s takes a count, not a size",
				kind_name[o->kind]);
	if ((o->kind == LAB_GEN_DEEP && o->size != 0 && o->count != 0) ||
	    (o->kind > LAB_GEN_BYTES && o->kind != LAB_GEN_WIDE_NS &&
	     o->count != 0))
		return lab_fail(err, LAB_EUSAGE, "%s takes a size, not a count",
				kind_name[o->kind]);
	if (o->kind == LAB_GEN_DEEP && o->count > DEEP_MAX)
		return lab_fail(err, LAB_EUSAGE, "deep: depth %zu is over %d",
				o->count, DEEP_MAX);
	if (o->canonical && o->kind != LAB_GEN_QUAKES)
		return lab_fail(err, LAB_EUSAGE, "canonical is for quakes, not %s",
				kind_name[o->kind]);
	g.s = o->seed;
	g.b = out;
	g.rc = LAB_OK;
	g.canonical = o->canonical;
	start = out->len;
	if (o->kind > LAB_GEN_BYTES || (o->kind == LAB_GEN_DEEP && o->size != 0)) {
		g.rc = lab_gen_hostile(o->kind, o->size, o->count, o->seed, out);
	} else if (o->kind == LAB_GEN_BYTES) {
		gen_bytes(&g, o->size != 0 ? o->size : BYTES_DEFAULT);
	} else if (o->kind == LAB_GEN_DEEP) {
		gen_deep(&g, o->count != 0 ? o->count : DEEP_DEFAULT);
	} else if (o->kind == LAB_GEN_RANDOM) {
		gen_random(&g, o->count != 0 ? o->count : RND_DEFAULT);
	} else {
		const struct list_kind *k = list[o->kind];

		if (o->size == 0 && o->count == 0)
			gen_list(&g, k, k->def_size, k->def_count);
		else
			gen_list(&g, k, o->size, o->count);
	}
	if (g.rc != LAB_OK) {
		out->len = start;
		if (out->data != NULL)
			out->data[start] = '\0';
		return lab_fail(err, g.rc, "%s: out of memory", kind_name[o->kind]);
	}
	return LAB_OK;
}
