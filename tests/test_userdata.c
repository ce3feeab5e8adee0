/*
 * test_userdata.c - user data under both userdata choices: set, get,
 * overwrite and remove; keys compare by address; every value's free
 * function runs exactly once, when it is overwritten or removed, when
 * its node (or an ancestor) is freed, or at dom_doc_free for whatever
 * is left, detached nodes included.  Each value is a counter, so a
 * callback that runs twice or never shows.
 * Not tested here: what the data is used for (the pipeline's business).
 */
#include "tests/util.h"

/* Two keys with the same bytes at different addresses. */
static const char key_a[] = "key";
static const char key_b[] = "key";

typedef struct tally {
	int calls;
	void *data; /* what the last call received */
} tally;

static void count_free(void *data, void *arg)
{
	tally *t = arg;

	t->calls++;
	t->data = data;
}

/* Sets t as the data on n, counting into t itself. */
static int set(dom_node *n, const void *key, tally *t)
{
	lab_err err;

	return CHECK_OK(dom_user_data_set(n, key, t, count_free, t, &err),
			&err);
}

static void calls_are(const tally *t, size_t n, const char *want)
{
	size_t i;

	for (i = 0; i < n; i++) {
		CHECK_MSG(t[i].calls == want[i] - '0',
			  "value %zu freed %d times, want %c", i, t[i].calls,
			  want[i]);
		if (t[i].calls > 0)
			CHECK(t[i].data == &t[i]);
	}
}

static void set_get(void)
{
	tally t[3] = {{0, NULL}, {0, NULL}, {0, NULL}};
	dom_doc *doc = T_PARSE("<r><c/>text</r>");
	dom_node *r, *text;
	lab_err err;

	if (doc == NULL)
		return;
	r = dom_doc_element(doc);
	text = dom_last_child(r);
	CHECK(dom_user_data_get(r, key_a) == NULL);
	set(r, key_a, &t[0]);
	CHECK(dom_user_data_get(r, key_a) == &t[0]);
	CHECK(dom_user_data_get(r, key_b) == NULL);
	CHECK(dom_user_data_get(dom_first_child(r), key_a) == NULL);
	set(r, key_b, &t[1]);
	CHECK(dom_user_data_get(r, key_a) == &t[0]);
	CHECK(dom_user_data_get(r, key_b) == &t[1]);
	set(text, key_a, &t[2]);
	CHECK(dom_user_data_get(text, key_a) == &t[2]);
	/* No free function: nothing to call, nothing to crash. */
	CHECK_OK(dom_user_data_set(dom_doc_node(doc), key_a, "static", NULL,
				   NULL, &err), &err);
	CHECK_EQ_STR(dom_user_data_get(dom_doc_node(doc), key_a), "static");
	calls_are(t, 3, "000");
	dom_doc_free(doc);
	calls_are(t, 3, "111");
}

static void overwrite_remove(void)
{
	tally t[4] = {{0, NULL}, {0, NULL}, {0, NULL}, {0, NULL}};
	dom_doc *doc = T_PARSE("<r/>");
	dom_node *r;
	lab_err err;

	if (doc == NULL)
		return;
	r = dom_doc_element(doc);
	set(r, key_a, &t[0]);
	set(r, key_a, &t[1]);
	calls_are(t, 4, "1000");
	CHECK(dom_user_data_get(r, key_a) == &t[1]);
	CHECK_OK(dom_user_data_set(r, key_a, NULL, NULL, NULL, &err), &err);
	calls_are(t, 4, "1100");
	CHECK(dom_user_data_get(r, key_a) == NULL);
	/* Removing what is not there calls nothing. */
	CHECK_OK(dom_user_data_set(r, key_b, NULL, NULL, NULL, &err), &err);
	set(r, key_a, &t[2]);
	set(r, key_b, &t[3]);
	CHECK_OK(dom_user_data_set(r, key_b, NULL, count_free, &t[3], &err),
		 &err);
	calls_are(t, 4, "1101");
	dom_doc_free(doc);
	calls_are(t, 4, "1111");
}

static void node_free_subtree(void)
{
	tally t[5];
	dom_doc *doc = T_PARSE("<r><a><b/>text</a><d/></r>");
	dom_node *r, *a;

	memset(t, 0, sizeof t);
	if (doc == NULL)
		return;
	r = dom_doc_element(doc);
	a = t_find(r, "a");
	set(a, key_a, &t[0]);
	set(t_find(a, "b"), key_a, &t[1]);
	set(dom_last_child(a), key_a, &t[2]);
	set(t_find(r, "d"), key_a, &t[3]);
	set(r, key_b, &t[4]);
	dom_node_free(a);
	calls_are(t, 5, "11100");
	CHECK(t_find(r, "a") == NULL);
	dom_doc_free(doc);
	calls_are(t, 5, "11111");
}

/* Values on nodes that are detached but not freed, or never attached. */
static void doc_free_detached(void)
{
	tally t[4];
	dom_doc *doc = T_PARSE("<r><a><b/></a></r>");
	dom_node *a, *lone;
	lab_err err;

	memset(t, 0, sizeof t);
	if (doc == NULL)
		return;
	a = t_find(dom_doc_element(doc), "a");
	set(a, key_a, &t[0]);
	set(t_find(a, "b"), key_a, &t[1]);
	dom_remove(a);
	if (CHECK_OK(dom_create_element(doc, NULL, "lone", &lone, &err), &err))
		set(lone, key_a, &t[2]);
	set(dom_doc_node(doc), key_a, &t[3]);
	calls_are(t, 4, "0000");
	dom_doc_free(doc);
	calls_are(t, 4, "1111");
}

/* STEP is a prime no churn size is a multiple of, so i * STEP % n visits
 * every node once. */
enum { CHURN_MAX = 20000, CHURN_STEP = 7919 };

/* How many of nodes[0..n) that are still alive (calls == 0) lost their
 * data or read someone else's. */
static size_t lost(dom_node *const *nodes, const tally *t, size_t n)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		if (t[i].calls == 0 &&
		    dom_user_data_get(nodes[i], i % 3 ? key_a : key_b) != &t[i])
			bad++;
	return bad;
}

/*
 * A document with n text nodes carrying data, freed one at a time in a
 * scattered order (from off) down to `keep`; every survivor must still
 * read its own data.  A table that moves entries when one is deleted
 * must not lose any; a lost entry stays lost, so checking every
 * `every` frees is enough.  Texts of varied lengths give the nodes
 * irregular addresses.  Returns how many things went wrong.
 */
static size_t churn(size_t n, size_t off, size_t keep, size_t every)
{
	static const char pad[64] = "padding";
	static tally t[CHURN_MAX];
	static dom_node *nodes[CHURN_MAX];
	dom_doc *doc = T_PARSE("<r/>");
	lab_err err;
	size_t i, bad = 0;

	memset(t, 0, n * sizeof t[0]);
	if (doc == NULL)
		return 1;
	for (i = 0; i < n; i++)
		if (!CHECK_OK(dom_create_text(doc, pad, i * 13 % sizeof pad,
					      &nodes[i], &err), &err) ||
		    !CHECK_OK(dom_append(dom_doc_element(doc), nodes[i], &err),
			      &err) ||
		    !set(nodes[i], i % 3 ? key_a : key_b, &t[i]))
			goto out;
	for (i = 0; i + keep < n; i++) {
		size_t k = (i * CHURN_STEP + off) % n;

		dom_node_free(nodes[k]);
		bad += t[k].calls != 1;
		if (i % every == 0)
			bad += lost(nodes, t, n);
	}
	bad += lost(nodes, t, n);
	bad += t_nchildren(dom_doc_element(doc)) != keep;
out:
	dom_doc_free(doc);
	for (i = 0; i < n; i++)
		bad += t[i].calls != 1;
	return bad;
}

/* One big table, grown many times. */
static void many_nodes(void)
{
	CHECK_EQ_INT(churn(CHURN_MAX, 0, 100, 500), 0);
}

/* Many small tables, where probe runs often wrap around the end. */
static void small_tables(void)
{
	size_t n, off, bad = 0;

	for (n = 2; n < 40; n++)
		for (off = 0; off < 32; off++)
			bad += churn(n, off, n % 3, 1);
	CHECK_EQ_INT(bad, 0);
}

const t_case tests_userdata[] = {
	{"userdata/set_get", set_get},
	{"userdata/overwrite_remove", overwrite_remove},
	{"userdata/node_free_subtree", node_free_subtree},
	{"userdata/doc_free_detached", doc_free_detached},
	{"userdata/many_nodes", many_nodes},
	{"userdata/small_tables", small_tables},
	{NULL, NULL},
};
