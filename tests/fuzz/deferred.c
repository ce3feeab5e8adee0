/*
 * deferred.c - libFuzzer target: a document read in a random order
 * equals the same bytes built eagerly, node for node, and content that
 * is deferred is refused exactly as it is built eagerly.  Under
 * build=deferred, dom_parse defers the content of some elements and
 * builds each on its first read; a fragment parse (dom_parse_into under
 * a document node) never defers, so it is the eager build of the same
 * bytes by the same parser.
 * Refusals: the input is put as the content of a host document's root's
 * grandchild, the content build=deferred defers, and the host is parsed
 * both ways.  Both must accept and give the same tree, or both refuse
 * with the same code, message, line and column.  The input alone is not
 * compared so: a document and a fragment differ at the top level (an
 * XML declaration, text or a second element beside the root, the end of
 * the input), whatever the build.  Three things still tell the fragment
 * apart, each from the wrapper dom_parse_into puts around its bytes: it
 * is one element deeper (its depth limit is one more, and a refusal for
 * depth names the limit); it reports the end of the input after the
 * wrapper's end tag, so an error at the end is compared without its
 * column; and an input that closes the host's element would leave the
 * host, so one that spells that end tag is not compared.  An input of
 * odd length gets tight limits, so that each limit can break inside
 * deferred content.  The wording is parser=insitu's: the target does not
 * run on parser=libxml2, which words a fragment's errors another way.
 * Trees: when the input parses both ways, the deferred document is
 * first navigated by moves the input's hash chooses (children, siblings,
 * parents, attributes, text content, ID lookups) with the same mutations
 * applied to both at the same places; then both are serialized (what is
 * still unbuilt may be written from its bytes) and compared, compared
 * whole node for node, and every ID the input spells is looked up in
 * both.  Any difference aborts.  Under the other build choices the
 * two are built alike, and the check still holds.  Before the moves,
 * the exclusive C14N of each child of the root element is compared
 * too: the deferred document's is the canonical copy its parse kept,
 * with what it deferred filled in unbuilt (dom/kept.c), where the eager
 * one walks its nodes.
 * Not for: well-formedness (parse.c, insitu.c) or canonical form as such
 * (c14n.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"
#include "wss/c14n.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_PATH = 64, ROUNDS = 8, STEPS = 24, MAX_IDS = 16 };

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* n's place under its root element (which the document node's other
 * children do not shift): child indexes from the root, or -1 when it is
 * deeper than MAX_PATH. */
static int path_of(const dom_node *n, size_t *path)
{
	const dom_node *top = dom_doc_element(dom_node_doc(n));
	size_t rev[MAX_PATH], k = 0, i;

	for (; n != top; n = dom_parent(n)) {
		const dom_node *c;
		size_t at = 0;

		if (k == MAX_PATH)
			return -1;
		for (c = dom_prev_sibling(n); c != NULL; c = dom_prev_sibling(c))
			at++;
		rev[k++] = at;
	}
	for (i = 0; i < k; i++)
		path[i] = rev[k - 1 - i];
	return (int)k;
}

static dom_node *follow(dom_node *top, const size_t *path, int k)
{
	int i;

	for (i = 0; i < k && top != NULL; i++) {
		size_t at;

		top = dom_first_child(top);
		for (at = path[i]; at > 0 && top != NULL; at--)
			top = dom_next_sibling(top);
	}
	return top;
}

/* The same mutation at the same place in both; n is in the deferred one. */
static void mutate(dom_node *n, dom_node *eager_root, uint64_t r)
{
	size_t path[MAX_PATH];
	int k = path_of(n, path);
	dom_node *m = k >= 0 ? follow(eager_root, path, k) : NULL;
	dom_node *t[2] = {NULL, NULL};
	dom_node *at[2];
	lab_err err;
	int i;

	if (m == NULL)
		abort();
	at[0] = n;
	at[1] = m;
	for (i = 0; i < 2; i++) {
		dom_doc *doc = dom_node_doc(at[i]);

		if (r % 3 == 0 && dom_node_type(at[i]) == DOM_ELEMENT) {
			if (dom_create_text(doc, "x", 1, &t[i], &err) != LAB_OK ||
			    dom_append(at[i], t[i], &err) != LAB_OK)
				abort();
		} else if (r % 3 == 1 && dom_node_type(at[i]) == DOM_ELEMENT) {
			/* A binding the bytes below may have been parsed under
			 * changes: they no longer stand for the content. */
			(void)dom_ns_declare(at[i], (r >> 2) % 2 ? "p" : NULL,
					     "urn:fuzz", &err);
		} else if (r % 3 == 2 &&
			   dom_node_type(dom_parent(at[i])) == DOM_ELEMENT) {
			dom_node_free(at[i]);
		}
	}
}

/* One walk of moves from the root element. */
static void wander(dom_doc *doc, dom_doc *eager, uint64_t *s)
{
	dom_node *root = dom_doc_element(doc), *n = root;
	lab_buf b = LAB_BUF_INIT;
	int i;

	for (i = 0; i < STEPS; i++) {
		uint64_t r = next_rand(s);
		dom_node *to = NULL;

		switch (r % 9) {
		case 0: case 1: to = dom_first_child(n); break;
		case 2: to = dom_last_child(n); break;
		case 3: case 4: to = dom_next_sibling(n); break;
		case 5: to = dom_prev_sibling(n); break;
		case 6:
			if (dom_attr_count(n) > 0)
				(void)dom_attr_at(n, (r >> 8) % dom_attr_count(n));
			break;
		case 7:
			if (dom_text_content(n, &b) != LAB_OK)
				abort();
			b.len = 0;
			break;
		default:
			if ((r >> 8) % 4 != 0) {
				to = dom_parent(n);
			} else if (n != root) {
				mutate(n, dom_doc_element(eager), r >> 10);
				i = STEPS;
			}
		}
		/* The root's siblings and parent are not in the comparison. */
		if (to != NULL && n != root)
			n = to;
		else if (to != NULL && dom_parent(to) == root)
			n = to;
	}
	lab_buf_free(&b);
}

static void same_node(const dom_node *a, const dom_node *b)
{
	size_t i, na, nb, la, lb;
	const dom_nsdecl *da, *db;
	const char *va, *vb;

	if (dom_node_type(a) != dom_node_type(b) ||
	    !same_str(dom_local_name(a), dom_local_name(b)) ||
	    !same_str(dom_ns_uri(a), dom_ns_uri(b)) ||
	    !same_str(dom_prefix(a), dom_prefix(b)))
		abort();
	va = dom_value(a, &la);
	vb = dom_value(b, &lb);
	if (la != lb || (la > 0 && memcmp(va, vb, la) != 0))
		abort();
	if (dom_node_type(a) != DOM_ELEMENT)
		return;
	if (dom_attr_count(a) != dom_attr_count(b))
		abort();
	for (i = 0; i < dom_attr_count(a); i++) {
		const dom_attr *x = dom_attr_at(a, i), *y = dom_attr_at(b, i);

		if (!same_str(x->name->local, y->name->local) ||
		    !same_str(x->name->ns, y->name->ns) ||
		    !same_str(x->name->prefix, y->name->prefix) ||
		    x->len != y->len || memcmp(x->value, y->value, x->len) != 0)
			abort();
	}
	da = dom_ns_decls(a, &na);
	db = dom_ns_decls(b, &nb);
	if (na != nb)
		abort();
	for (i = 0; i < na; i++)
		if (!same_str(da[i].prefix, db[i].prefix) ||
		    !same_str(da[i].uri, db[i].uri))
			abort();
}

/* Both trees from their root elements, in document order, in step. */
static void same_tree(const dom_node *a, const dom_node *b)
{
	const dom_node *ta = a;

	while (a != NULL) {
		const dom_node *ca, *cb;

		if (b == NULL)
			abort();
		same_node(a, b);
		ca = dom_first_child(a);
		cb = dom_first_child(b);
		if ((ca == NULL) != (cb == NULL))
			abort();
		if (ca != NULL) {
			a = ca;
			b = cb;
			continue;
		}
		while (a != ta && dom_next_sibling(a) == NULL) {
			if (dom_next_sibling(b) != NULL)
				abort();
			a = dom_parent(a);
			b = dom_parent(b);
		}
		if (a == ta)
			return;
		a = dom_next_sibling(a);
		b = dom_next_sibling(b);
	}
	if (b != NULL)
		abort();
}

/* The values the input writes as Id="..." or ID="...", into ids. */
static size_t find_ids(const char *s, size_t n, char ids[][32])
{
	size_t k = 0, i;

	for (i = 0; i + 5 < n && k < MAX_IDS; i++) {
		size_t j;

		if (s[i] != 'I' || (s[i + 1] != 'd' && s[i + 1] != 'D') ||
		    s[i + 2] != '=' || (s[i + 3] != '"' && s[i + 3] != '\''))
			continue;
		for (j = 0; j < 31 && i + 4 + j < n && s[i + 4 + j] != s[i + 3] &&
			    s[i + 4 + j] != '\0';
		     j++)
			ids[k][j] = s[i + 4 + j];
		ids[k++][j] = '\0';
	}
	return k;
}

/* Both serialized from their root elements: the same bytes. */
static void same_output(dom_doc *a, dom_doc *b)
{
	lab_buf x = LAB_BUF_INIT, y = LAB_BUF_INIT;
	lab_err err;

	if (dom_serialize(dom_doc_element(a), &x, &err) != LAB_OK ||
	    dom_serialize(dom_doc_element(b), &y, &err) != LAB_OK ||
	    x.len != y.len || memcmp(x.data, y.data, x.len) != 0)
		abort();
	lab_buf_free(&x);
	lab_buf_free(&y);
}

/* Exclusive C14N of each child element of the two root elements: the
 * same bytes, or the same refusal. */
static void same_c14n(dom_doc *a, dom_doc *b)
{
	static const wss_c14n_opts exc = {1, 0, NULL, 0, NULL};
	const dom_node *x = dom_first_child(dom_doc_element(a));
	const dom_node *y = dom_first_child(dom_doc_element(b));

	for (; x != NULL && y != NULL;
	     x = dom_next_sibling(x), y = dom_next_sibling(y)) {
		lab_buf p = LAB_BUF_INIT, q = LAB_BUF_INIT;
		lab_err err;
		int rp, rq;

		if (dom_node_type(x) != DOM_ELEMENT)
			continue;
		rp = wss_c14n_buf(x, &exc, &p, &err);
		rq = wss_c14n_buf(y, &exc, &q, &err);
		if (rp != rq || (rp == LAB_OK && (p.len != q.len ||
						  memcmp(p.data, q.data,
							 p.len) != 0)))
			abort();
		lab_buf_free(&p);
		lab_buf_free(&q);
	}
}

static void same_ids(dom_doc *a, dom_doc *b, char ids[][32], size_t k)
{
	size_t i;

	for (i = 0; i < k; i++) {
		size_t ca, cb, pa[MAX_PATH], pb[MAX_PATH];
		const dom_node *x = dom_get_by_id(a, ids[i], &ca);
		const dom_node *y = dom_get_by_id(b, ids[i], &cb);
		int ka, kb;

		if (ca != cb || (x == NULL) != (y == NULL))
			abort();
		if (x == NULL)
			continue;
		ka = path_of(x, pa);
		kb = path_of(y, pb);
		if (ka != kb ||
		    (ka > 0 && memcmp(pa, pb, (size_t)ka * sizeof *pa) != 0))
			abort();
	}
}

/* The host: the input goes where build=deferred defers content. */
static const char host_open[] =
	"<fuzz-r xmlns:m=\"urn:u\" xmlns:n=\"urn:u\">\n<fuzz-h>\n<fuzz-d>\n";
static const char host_close[] = "\n</fuzz-d>\n</fuzz-h>\n</fuzz-r>";
static const char host_leave[] = "</fuzz-d";

static int holds(const uint8_t *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;

	for (i = 0; i + k <= n; i++)
		if (memcmp(s + i, w, k) == 0)
			return 1;
	return 0;
}

/* The whole parse's refusal a and the fragment's b under depth limits
 * depth and depth + 1: the same, but for the wrapper (see the top). */
static int same_refusal(const lab_err *a, const lab_err *b, size_t depth)
{
	char da[64], db[64];

	snprintf(da, sizeof da, "elements nested deeper than the limit of %zu",
		 depth);
	snprintf(db, sizeof db, "elements nested deeper than the limit of %zu",
		 depth + 1);
	if (a->code != b->code || a->line != b->line)
		return 0;
	if (strcmp(a->msg, da) == 0)
		return strcmp(b->msg, db) == 0 && a->col == b->col;
	return strcmp(a->msg, b->msg) == 0 &&
	       (a->col == b->col ||
		strncmp(a->msg, "document ends inside", 20) == 0);
}

/* The hosted input whole (deferred) and as a fragment (eager): the same
 * verdict, and the same refusal or the same tree. */
static void same_verdict(const uint8_t *data, size_t size)
{
	lab_buf in = LAB_BUF_INIT;
	dom_doc *doc = NULL, *eager = NULL;
	dom_limits lim[2];
	lab_err err[2];
	int rc[2];

	if (holds(data, size, host_leave))
		return;
	if (lab_buf_puts(&in, host_open) != LAB_OK ||
	    lab_buf_put(&in, data, size) != LAB_OK ||
	    lab_buf_puts(&in, host_close) != LAB_OK)
		abort();
	memset(lim, 0, sizeof lim);
	/* Depth under the cap of 256, which the fragment's must not pass. */
	lim[0].max_depth = 255;
	if (size % 2 == 1) {
		lim[0].max_depth = 8;
		lim[0].max_attrs = 2;
		lim[0].max_name = 20;
		lim[0].max_text = 20;
	}
	lim[1] = lim[0];
	lim[1].max_depth = lim[0].max_depth + 1;
	rc[0] = dom_parse(in.data, in.len, &lim[0], &doc, &err[0]);
	if (dom_doc_new(&eager, &err[1]) != LAB_OK)
		abort();
	rc[1] = dom_parse_into(dom_doc_node(eager), NULL, in.data, in.len,
			       &lim[1], &err[1]);
	if (rc[0] != rc[1] ||
	    (rc[0] != LAB_OK &&
	     !same_refusal(&err[0], &err[1], lim[0].max_depth)))
		abort();
	if (rc[0] == LAB_OK) {
		same_output(doc, eager);
		same_tree(dom_doc_element(doc), dom_doc_element(eager));
	}
	dom_doc_free(doc);
	dom_doc_free(eager);
	lab_buf_free(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	dom_doc *doc = NULL, *eager = NULL;
	char ids[MAX_IDS][32];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t i, k;
	lab_err err;

	same_verdict(data, size);
	if (dom_parse(s, size, NULL, &doc, &err) != LAB_OK ||
	    dom_doc_new(&eager, &err) != LAB_OK ||
	    dom_parse_into(dom_doc_node(eager), NULL, s, size, NULL, &err) !=
		    LAB_OK ||
	    dom_doc_element(eager) == NULL)
		goto out;
	for (i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ULL;
	seed |= 1;
	k = find_ids(s, size, ids);
	same_c14n(doc, eager);
	/* Once with what C14N left unbuilt, once after the moves. */
	if (next_rand(&seed) % 2 == 0)
		same_output(doc, eager);
	for (i = 0; i < ROUNDS; i++) {
		if (next_rand(&seed) % 3 == 0 && k > 0) {
			size_t c;

			(void)dom_get_by_id(doc, ids[next_rand(&seed) % k], &c);
		}
		wander(doc, eager, &seed);
	}
	same_output(doc, eager);
	same_tree(dom_doc_element(doc), dom_doc_element(eager));
	same_ids(doc, eager, ids, k);
out:
	dom_doc_free(doc);
	dom_doc_free(eager);
	return 0;
}
