/*
 * test_attrs.c - the attribute API over every attrs and attrlist choice:
 * lookups by interned name, by any string and by qualified name; set
 * (add, replace, prefixed), remove, order, dom_attributes(); one local
 * name in several namespaces; growth and shrinking past the point where
 * the hash and adaptive indexes resize or drop.
 * Not tested here: which variant is linked (a list from dom_attributes()
 * is checked for content only), or IDs (test_ids.c).
 */
#include <stdio.h>

#include "tests/util.h"

#define NS_A "urn:example:a"
#define NS_B "urn:example:b"

static dom_doc *new_doc(dom_node **el)
{
	dom_doc *doc = NULL;
	lab_err err;

	*el = NULL;
	if (!CHECK_OK(dom_doc_new(&doc, &err), &err))
		return NULL;
	if (!CHECK_OK(dom_create_element(doc, NULL, "e", el, &err), &err) ||
	    !CHECK_OK(dom_append(dom_doc_node(doc), *el, &err), &err)) {
		dom_doc_free(doc);
		return NULL;
	}
	return doc;
}

static int set(dom_node *el, const char *ns, const char *qname,
	       const char *value)
{
	lab_err err;

	return CHECK_OK(dom_attr_set(el, ns, qname, value, strlen(value),
				     &err), &err);
}

/* The attribute's parts are these strings (ns, prefix may be NULL). */
static void is_attr(const dom_attr *at, const char *ns, const char *prefix,
		    const char *local, const char *value)
{
	if (!CHECK_MSG(at != NULL, "no attribute %s", local))
		return;
	CHECK_EQ_STR(dom_attr_ns(at), ns);
	CHECK_EQ_STR(dom_attr_prefix(at), prefix);
	CHECK_EQ_STR(dom_attr_local(at), local);
	CHECK_EQ_STR(at->value, value);
	CHECK_EQ_INT(at->len, strlen(value));
}

/* The element's attributes in order, as "prefix:local=value ..." */
static void order_is(dom_node *el, const char *want)
{
	char got[4096];
	size_t i, n = 0;

	got[0] = '\0';
	for (i = 0; i < dom_attr_count(el) && n < sizeof got; i++) {
		const dom_attr *a = dom_attr_at(el, i);

		n += (size_t)snprintf(got + n, sizeof got - n, "%s%s%s%s=%s",
				      i > 0 ? " " : "",
				      dom_attr_prefix(a) ? dom_attr_prefix(a) : "",
				      dom_attr_prefix(a) ? ":" : "", dom_attr_local(a), a->value);
	}
	CHECK_EQ_STR(got, want);
	CHECK(dom_attr_at(el, dom_attr_count(el)) == NULL);
}

static void parsed_lookups(void)
{
	dom_doc *doc = T_PARSE("<e xmlns:a=\"" NS_A "\" xmlns:b=\"" NS_B "\""
			       " x=\"0\" a:x=\"1\" b:x=\"2\" a:y=\"3\"/>");
	const char *a, *x, *y;
	dom_node *el;

	if (doc == NULL)
		return;
	el = dom_doc_element(doc);
	a = dom_intern(doc, NS_A, strlen(NS_A));
	x = dom_intern(doc, "x", 1);
	y = dom_intern(doc, "y", 1);
	CHECK_EQ_INT(dom_attr_count(el), 4);
	order_is(el, "x=0 a:x=1 b:x=2 a:y=3");
	is_attr(dom_attr_get(el, NULL, x), NULL, NULL, "x", "0");
	is_attr(dom_attr_get(el, a, x), NS_A, "a", "x", "1");
	is_attr(dom_attr_get(el, a, y), NS_A, "a", "y", "3");
	CHECK(dom_attr_get(el, NULL, y) == NULL);
	CHECK(dom_attr_get(el, dom_attr_ns(dom_attr_at(el, 1)), x) == dom_attr_at(el, 1));
	is_attr(dom_attr_get_str(el, NS_B, "x"), NS_B, "b", "x", "2");
	is_attr(dom_attr_get_str(el, "", "x"), NULL, NULL, "x", "0");
	CHECK(dom_attr_get_str(el, NS_B, "y") == NULL);
	CHECK(dom_attr_get_str(el, "urn:example:none", "x") == NULL);
	CHECK(dom_attr_get_str(el, NULL, "never-seen") == NULL);
	is_attr(dom_attr_get_qname(el, "b:x"), NS_B, "b", "x", "2");
	is_attr(dom_attr_get_qname(el, "x"), NULL, NULL, "x", "0");
	CHECK(dom_attr_get_qname(el, "b:y") == NULL);
	CHECK(dom_attr_get_qname(el, "c:x") == NULL);
	CHECK(dom_attr_get_qname(el, "y") == NULL);
	CHECK_EQ_STR(dom_attr_value(el, a, y), "3");
	CHECK(dom_attr_value(el, NULL, y) == NULL);
	CHECK(dom_attr_has(el, a, x));
	CHECK(!dom_attr_has(el, NULL, y));
	/* Not an element: no attributes, no crash. */
	CHECK(dom_attr_count(dom_doc_node(doc)) == 0);
	CHECK(dom_attr_get_str(dom_doc_node(doc), NULL, "x") == NULL);
	dom_doc_free(doc);
}

static void set_add_replace(void)
{
	dom_node *el;
	dom_doc *doc = new_doc(&el);
	lab_err err;

	if (doc == NULL)
		return;
	set(el, NULL, "x", "1");
	set(el, NS_A, "p:x", "2");
	set(el, "", "y", "3");
	order_is(el, "x=1 p:x=2 y=3");
	/* Replacing keeps the position and takes the new prefix. */
	set(el, NULL, "x", "one");
	set(el, NS_A, "q:x", "two");
	order_is(el, "x=one q:x=two y=3");
	is_attr(dom_attr_get_str(el, NS_A, "x"), NS_A, "q", "x", "two");
	CHECK(dom_attr_get_qname(el, "p:x") == NULL);
	is_attr(dom_attr_get_qname(el, "q:x"), NS_A, "q", "x", "two");
	/* len counts, the value is NUL-terminated there. */
	if (CHECK_OK(dom_attr_set(el, NULL, "v", "abcdef", 3, &err), &err))
		is_attr(dom_attr_get_str(el, NULL, "v"), NULL, NULL, "v", "abc");
	set(el, NULL, "empty", "");
	is_attr(dom_attr_get_str(el, NULL, "empty"), NULL, NULL, "empty", "");
	CHECK_SERIALIZES(el, "<e x=\"one\" q:x=\"two\" y=\"3\" v=\"abc\""
			     " empty=\"\"/>");
	dom_doc_free(doc);
}

static void set_refusals(void)
{
	static const struct {
		const char *ns, *qname;
	} bad[] = {
		{NULL, ""}, {NULL, ":x"}, {NULL, "x:"}, {NS_A, "a:b:c"},
		{NULL, "p:x"}, {"", "p:x"}, {NULL, "xmlns"},
		{"http://www.w3.org/2000/xmlns/", "xmlns:p"},
	};
	dom_node *el, *text;
	dom_doc *doc = new_doc(&el);
	lab_err err;
	size_t i;

	if (doc == NULL)
		return;
	set(el, NULL, "keep", "1");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		t_context("qname \"%s\"", bad[i].qname);
		CHECK_EQ_INT(dom_attr_set(el, bad[i].ns, bad[i].qname, "v", 1,
					  &err), LAB_EUSAGE);
	}
	t_context(NULL);
	if (CHECK_OK(dom_create_text(doc, "t", 1, &text, &err), &err))
		CHECK_EQ_INT(dom_attr_set(text, NULL, "x", "v", 1, &err),
			     LAB_EUSAGE);
	order_is(el, "keep=1");
	dom_doc_free(doc);
}

static void remove_attrs(void)
{
	dom_doc *doc = T_PARSE("<e xmlns:a=\"" NS_A "\" x=\"0\" a:x=\"1\""
			       " y=\"2\" a:y=\"3\" z=\"4\"/>");
	dom_node *el;

	if (doc == NULL)
		return;
	el = dom_doc_element(doc);
	CHECK_EQ_INT(dom_attr_remove(el, NULL, "y"), 1);
	order_is(el, "x=0 a:x=1 a:y=3 z=4");
	CHECK_EQ_INT(dom_attr_remove(el, NULL, "y"), 0);
	CHECK_EQ_INT(dom_attr_remove(el, NS_B, "x"), 0);
	CHECK_EQ_INT(dom_attr_remove(el, NULL, "never-seen"), 0);
	CHECK_EQ_INT(dom_attr_remove(el, NS_A, "x"), 1);
	order_is(el, "x=0 a:y=3 z=4");
	is_attr(dom_attr_get_str(el, NULL, "x"), NULL, NULL, "x", "0");
	is_attr(dom_attr_get_str(el, NS_A, "y"), NS_A, "a", "y", "3");
	CHECK_EQ_INT(dom_attr_remove(el, NULL, "z"), 1);
	CHECK_EQ_INT(dom_attr_remove(el, NULL, "x"), 1);
	CHECK_EQ_INT(dom_attr_remove(el, NS_A, "y"), 1);
	CHECK_EQ_INT(dom_attr_count(el), 0);
	CHECK(dom_attr_get_str(el, NS_A, "y") == NULL);
	/* An emptied element takes attributes again. */
	set(el, NS_A, "a:y", "back");
	is_attr(dom_attr_get_str(el, NS_A, "y"), NS_A, "a", "y", "back");
	CHECK_SERIALIZES(el, "<e xmlns:a=\"" NS_A "\" a:y=\"back\"/>");
	dom_doc_free(doc);
}

/* dom_attributes() lists what dom_attr_at() does, in the same order. */
static void list_matches(dom_node *el)
{
	dom_attr_list list;
	lab_err err;
	size_t i;

	if (!CHECK_OK(dom_attributes(el, &list, &err), &err))
		return;
	CHECK_EQ_INT(list.count, dom_attr_count(el));
	for (i = 0; i < list.count && i < dom_attr_count(el); i++) {
		const dom_attr *a = &list.items[i];
		const dom_attr *b = dom_attr_at(el, i);

		CHECK(dom_attr_local(a) == dom_attr_local(b) &&
		      dom_attr_ns(a) == dom_attr_ns(b) &&
		      dom_attr_prefix(a) == dom_attr_prefix(b) && a->len == b->len);
		CHECK_EQ_MEM(a->value, a->len, b->value, b->len);
	}
	dom_attr_list_release(el, &list);
	CHECK(list.items == NULL && list.count == 0 && list.owned == NULL);
}

static void attribute_list(void)
{
	dom_doc *doc = T_PARSE("<e xmlns:a=\"" NS_A "\" x=\"0\" a:x=\"1\""
			       " y=\"2\"><empty/>t</e>");
	dom_attr_list list;
	dom_node *el;
	lab_err err;

	if (doc == NULL)
		return;
	el = dom_doc_element(doc);
	list_matches(el);
	set(el, NULL, "w", "3");
	dom_attr_remove(el, NULL, "x");
	list_matches(el);
	list_matches(dom_first_child(el));
	/* A text node lists nothing. */
	if (CHECK_OK(dom_attributes(dom_last_child(el), &list, &err), &err)) {
		CHECK_EQ_INT(list.count, 0);
		dom_attr_list_release(dom_last_child(el), &list);
	}
	dom_doc_free(doc);
}

/* Names from a buffer that is then overwritten: the DOM keeps copies. */
static void any_string_names(void)
{
	char ns[32], qname[16], value[16];
	dom_node *el;
	dom_doc *doc = new_doc(&el);

	if (doc == NULL)
		return;
	snprintf(ns, sizeof ns, "urn:example:%s", "dyn");
	snprintf(qname, sizeof qname, "d:%s", "name");
	snprintf(value, sizeof value, "%s", "val");
	set(el, ns, qname, value);
	memset(ns, 'z', sizeof ns - 1);
	memset(qname, 'z', sizeof qname - 1);
	memset(value, 'z', sizeof value - 1);
	is_attr(dom_attr_get_str(el, "urn:example:dyn", "name"),
		"urn:example:dyn", "d", "name", "val");
	is_attr(dom_attr_get_qname(el, "d:name"), "urn:example:dyn", "d",
		"name", "val");
	/* The interned copies are what dom_attr_get() compares. */
	CHECK(dom_attr_get(el, dom_intern(doc, "urn:example:dyn", 15),
			   dom_intern(doc, "name", 4)) != NULL);
	dom_doc_free(doc);
}

static void two_namespaces(void)
{
	dom_node *el;
	dom_doc *doc = new_doc(&el);

	if (doc == NULL)
		return;
	set(el, NS_A, "a:n", "A");
	set(el, NS_B, "b:n", "B");
	set(el, NULL, "n", "none");
	set(el, NS_B, "a:n", "B2"); /* same ns as b:n: replaces it */
	order_is(el, "a:n=A a:n=B2 n=none");
	is_attr(dom_attr_get_str(el, NS_A, "n"), NS_A, "a", "n", "A");
	is_attr(dom_attr_get_str(el, NS_B, "n"), NS_B, "a", "n", "B2");
	is_attr(dom_attr_get_str(el, NULL, "n"), NULL, NULL, "n", "none");
	CHECK_EQ_INT(dom_attr_remove(el, NS_A, "n"), 1);
	CHECK(dom_attr_get_str(el, NS_A, "n") == NULL);
	is_attr(dom_attr_get_str(el, NS_B, "n"), NS_B, "a", "n", "B2");
	is_attr(dom_attr_get_str(el, NULL, "n"), NULL, NULL, "n", "none");
	dom_doc_free(doc);
}

/*
 * A name is one record per (namespace, prefix, local) in a document: the
 * same name on two elements shares it, whether the parser or
 * dom_attr_set() made it, and a different prefix makes another record
 * with the same namespace and local name.
 */
static void name_records(void)
{
	dom_doc *doc = T_PARSE("<e xmlns:a=\"" NS_A "\" xmlns:b=\"" NS_A "\""
			       " x=\"0\" a:x=\"1\"><f x=\"2\" b:x=\"3\"/>"
			       "<f a:x=\"4\"/></e>");
	dom_node *e, *f, *g;
	lab_err err;

	if (doc == NULL)
		return;
	e = dom_doc_element(doc);
	f = dom_first_child(e);
	g = dom_next_sibling(f);
	CHECK(dom_attr_at(e, 0)->name == dom_attr_at(f, 0)->name);
	CHECK(dom_attr_at(e, 1)->name == dom_attr_at(g, 0)->name);
	CHECK(dom_attr_at(e, 1)->name != dom_attr_at(f, 1)->name);
	CHECK(dom_attr_ns(dom_attr_at(e, 1)) == dom_attr_ns(dom_attr_at(f, 1)));
	CHECK(dom_attr_local(dom_attr_at(e, 1)) ==
	      dom_attr_local(dom_attr_at(f, 1)));
	if (CHECK_OK(dom_attr_set(g, NS_A, "b:x", "5", 1, &err), &err)) {
		/* Replaced in place, under the prefix given. */
		CHECK_EQ_INT(dom_attr_count(g), 1);
		CHECK(dom_attr_at(g, 0)->name == dom_attr_at(f, 1)->name);
	}
	if (CHECK_OK(dom_attr_set(g, NULL, "x", "6", 1, &err), &err))
		CHECK(dom_attr_at(g, 1)->name == dom_attr_at(e, 0)->name);
	dom_doc_free(doc);
}

/* Attribute i of many_attrs: "n<i>", "a:n<i>" or "b:n<i>" = "v<i>". */
static const char *many_ns(size_t i)
{
	return i % 3 == 0 ? NULL : i % 3 == 1 ? NS_A : NS_B;
}

static void many_name(size_t i, char *q, size_t cap)
{
	snprintf(q, cap, "%sn%zu", i % 3 == 0 ? "" : i % 3 == 1 ? "a:" : "b:",
		 i);
}

static void many_set(dom_node *el, size_t i)
{
	char q[16], v[16];

	many_name(i, q, sizeof q);
	snprintf(v, sizeof v, "v%zu", i);
	set(el, many_ns(i), q, v);
}

static int many_remove(dom_node *el, size_t i)
{
	char q[16];

	many_name(i, q, sizeof q);
	return dom_attr_remove(el, many_ns(i), strchr(q, 'n'));
}

static void many_found(dom_node *el, size_t i, int present)
{
	char q[16], v[16];
	const dom_attr *at;

	many_name(i, q, sizeof q);
	snprintf(v, sizeof v, "v%zu", i);
	at = dom_attr_get_str(el, many_ns(i), strchr(q, 'n'));
	if (!present) {
		CHECK_MSG(at == NULL, "%s still found", q);
		return;
	}
	if (CHECK_MSG(at != NULL, "%s not found", q))
		CHECK_EQ_STR(at->value, v);
	CHECK(dom_attr_get_qname(el, q) == at);
}

/* Enough attributes to make the hash and adaptive indexes grow several
 * times, then removals down to under any small-size bound and back. */
static void many_attrs(void)
{
	enum { N = 100, KEEP = 8 };
	dom_node *el;
	dom_doc *doc = new_doc(&el);
	size_t i;

	if (doc == NULL)
		return;
	for (i = 0; i < N; i++) {
		many_set(el, i);
		CHECK_EQ_INT(dom_attr_count(el), i + 1);
		many_found(el, i, 1);
		many_found(el, i / 2, 1);
	}
	for (i = 0; i < N; i++)
		many_found(el, i, 1);
	for (i = 0; i < N; i += 2)
		CHECK_EQ_INT(many_remove(el, i), 1);
	CHECK_EQ_INT(dom_attr_count(el), N / 2);
	for (i = 0; i < N; i++)
		many_found(el, i, i % 2);
	for (i = 0; i < N / 2; i++) {
		char v[16];

		snprintf(v, sizeof v, "v%zu", 2 * i + 1);
		CHECK_EQ_STR(dom_attr_at(el, i)->value, v);
	}
	for (i = 1; i < N - KEEP; i += 2)
		CHECK_EQ_INT(many_remove(el, i), 1);
	CHECK_EQ_INT(dom_attr_count(el), KEEP / 2);
	for (i = 0; i < N; i++)
		many_found(el, i, i % 2 && i >= N - KEEP);
	for (i = 0; i < 20; i += 2)
		many_set(el, i);
	for (i = 0; i < N; i++)
		many_found(el, i, i % 2 ? i >= N - KEEP : i < 20);
	dom_doc_free(doc);
}

const t_case tests_attrs[] = {
	{"attrs/parsed_lookups", parsed_lookups},
	{"attrs/set_add_replace", set_add_replace},
	{"attrs/set_refusals", set_refusals},
	{"attrs/remove", remove_attrs},
	{"attrs/attribute_list", attribute_list},
	{"attrs/any_string_names", any_string_names},
	{"attrs/two_namespaces", two_namespaces},
	{"attrs/name_records", name_records},
	{"attrs/many", many_attrs},
	{NULL, NULL},
};
