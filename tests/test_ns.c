/*
 * test_ns.c - namespace declarations as data: what an element declares
 * (dom_ns_decls), adding and replacing declarations and the refusals
 * (dom_ns_declare), resolving a prefix in scope (dom_ns_lookup) and
 * listing every binding in scope (dom_ns_in_scope).
 * Not tested here: how parsed names resolve (test_diff.c compares them
 * with libxml2) or fragments parsed in context (test_fragment.c).
 */
#include <stdio.h>

#include "util/alloc.h"
#include "tests/util.h"

#define XML_NS "http://www.w3.org/XML/1998/namespace"

static const char doc_text[] =
	"<r xmlns=\"urn:d\" xmlns:p=\"urn:p\">"
	"<c xmlns:p=\"urn:p2\" xmlns=\"\"><g/></c>"
	"<k xmlns=\"urn:d2\"/></r>";

/* A prefix as these tests spell it: ":" for the default namespace. */
static const char *pfx(const char *p)
{
	return p != NULL ? p : ":";
}

/* The declarations are exactly "prefix=uri ..." (":" for the default). */
static void decls_are(const dom_node *el, const char *want)
{
	char got[512];
	size_t n, i, len = 0;
	const dom_nsdecl *d = dom_ns_decls(el, &n);

	got[0] = '\0';
	for (i = 0; i < n && len < sizeof got; i++)
		len += (size_t)snprintf(got + len, sizeof got - len, "%s%s=%s",
					i > 0 ? " " : "",
					pfx(d[i].prefix),
					d[i].uri);
	CHECK_EQ_STR(got, want);
}

static void decls(void)
{
	dom_doc *doc = T_PARSE(doc_text);
	const dom_nsdecl *d;
	size_t n = 99;

	if (doc == NULL)
		return;
	decls_are(dom_doc_element(doc), ":=urn:d p=urn:p");
	decls_are(t_find(dom_doc_element(doc), "c"), "p=urn:p2 :=");
	decls_are(t_find(dom_doc_element(doc), "g"), "");
	d = dom_ns_decls(dom_doc_element(doc), &n);
	/* Interned: the pointers compare. */
	CHECK(n == 2 && d[1].prefix == dom_intern(doc, "p", 1) &&
	      d[1].uri == dom_intern(doc, "urn:p", 5));
	CHECK(dom_ns_decls(dom_doc_node(doc), &n) == NULL && n == 0);
	dom_doc_free(doc);
}

static void lookup(void)
{
	dom_doc *doc = T_PARSE(doc_text);
	const char *p, *xml, *zz;
	dom_node *r, *g, *k, *lone;
	lab_err err;

	if (doc == NULL)
		return;
	r = dom_doc_element(doc);
	g = t_find(r, "g");
	k = t_find(r, "k");
	p = dom_intern(doc, "p", 1);
	xml = dom_intern(doc, "xml", 3);
	zz = dom_intern(doc, "zz", 2);
	CHECK_EQ_STR(dom_ns_lookup(r, p), "urn:p");
	CHECK_EQ_STR(dom_ns_lookup(g, p), "urn:p2");
	CHECK_EQ_STR(dom_ns_lookup(k, p), "urn:p");
	CHECK_EQ_STR(dom_ns_lookup(r, NULL), "urn:d");
	CHECK_EQ_STR(dom_ns_lookup(g, NULL), NULL);
	CHECK_EQ_STR(dom_ns_lookup(k, NULL), "urn:d2");
	CHECK_EQ_STR(dom_ns_lookup(g, zz), NULL);
	CHECK(dom_ns_lookup(g, p) == dom_intern(doc, "urn:p2", 6));
	CHECK_EQ_STR(dom_ns_lookup(r, xml), XML_NS);
	CHECK_EQ_STR(dom_ns_lookup(g, xml), XML_NS);
	if (CHECK_OK(dom_create_element(doc, NULL, "lone", &lone, &err), &err)) {
		CHECK_EQ_STR(dom_ns_lookup(lone, xml), XML_NS);
		CHECK_EQ_STR(dom_ns_lookup(lone, p), NULL);
	}
	/* A declaration added to an ancestor is seen below it. */
	if (CHECK_OK(dom_ns_declare(r, "zz", "urn:zz", &err), &err))
		CHECK_EQ_STR(dom_ns_lookup(g, zz), "urn:zz");
	dom_doc_free(doc);
}

/* The bindings in scope at el are exactly want's, in any order. */
static void scope_is(const dom_node *el, const char *const *want, size_t n)
{
	dom_nsdecl *s = NULL;
	size_t count = 0, i, j;
	lab_err err;

	if (!CHECK_OK(dom_ns_in_scope(el, &s, &count, &err), &err))
		return;
	CHECK_EQ_INT(count, n);
	for (i = 0; i < n; i++) {
		for (j = 0; j < count; j++)
			if (strcmp(pfx(s[j].prefix), want[2 * i]) == 0)
				break;
		if (CHECK_MSG(j < count, "prefix %s not in scope", want[2 * i]))
			CHECK_EQ_STR(s[j].uri, want[2 * i + 1]);
	}
	lab_free(s);
}

static void in_scope(void)
{
	static const char *const at_r[] = {":", "urn:d", "p", "urn:p"};
	static const char *const at_g[] = {"p", "urn:p2"};
	static const char *const at_k[] = {":", "urn:d2", "p", "urn:p"};
	static const char *const at_x[] = {":", "urn:x", "p", "urn:p2",
					   "q", "urn:q"};
	dom_doc *doc = T_PARSE(doc_text);
	dom_node *r, *x;
	lab_err err;

	if (doc == NULL)
		return;
	r = dom_doc_element(doc);
	scope_is(r, at_r, 2);
	scope_is(t_find(r, "g"), at_g, 1);
	scope_is(t_find(r, "k"), at_k, 2);
	/* A default declared again under an undeclaration is back. */
	if (CHECK_OK(dom_create_element(doc, "urn:x", "x", &x, &err), &err) &&
	    CHECK_OK(dom_append(t_find(r, "g"), x, &err), &err) &&
	    CHECK_OK(dom_ns_declare(x, NULL, "urn:x", &err), &err) &&
	    CHECK_OK(dom_ns_declare(x, "q", "urn:q", &err), &err))
		scope_is(x, at_x, 3);
	if (CHECK_OK(dom_create_element(doc, NULL, "lone", &x, &err), &err))
		scope_is(x, NULL, 0);
	dom_doc_free(doc);
}

static void declare(void)
{
	static const struct {
		const char *prefix, *uri;
	} bad[] = {
		{"xmlns", "urn:x"}, {"xml", "urn:x"}, {"p", ""},
	};
	dom_doc *doc = NULL;
	dom_node *el, *text;
	lab_err err;
	size_t i;

	if (!CHECK_OK(dom_doc_new(&doc, &err), &err))
		return;
	if (!CHECK_OK(dom_create_element(doc, "urn:p2", "p:e", &el, &err),
		      &err))
		goto out;
	CHECK_OK(dom_ns_declare(el, "p", "urn:p", &err), &err);
	CHECK_OK(dom_ns_declare(el, NULL, "urn:d", &err), &err);
	decls_are(el, "p=urn:p :=urn:d");
	/* Same prefix: replaced in place; "" is the default too. */
	CHECK_OK(dom_ns_declare(el, "p", "urn:p2", &err), &err);
	CHECK_OK(dom_ns_declare(el, "", "urn:d2", &err), &err);
	decls_are(el, "p=urn:p2 :=urn:d2");
	CHECK_OK(dom_ns_declare(el, NULL, "", &err), &err);
	decls_are(el, "p=urn:p2 :=");
	CHECK_EQ_STR(dom_ns_lookup(el, NULL), NULL);
	CHECK_OK(dom_ns_declare(el, "xml", XML_NS, &err), &err);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		t_context("%s=\"%s\"", bad[i].prefix, bad[i].uri);
		CHECK_EQ_INT(dom_ns_declare(el, bad[i].prefix, bad[i].uri, &err),
			     LAB_EUSAGE);
	}
	t_context(NULL);
	if (CHECK_OK(dom_create_text(doc, "t", 1, &text, &err), &err))
		CHECK_EQ_INT(dom_ns_declare(text, "p", "urn:p", &err),
			     LAB_EUSAGE);
	CHECK_SERIALIZES(el, "<p:e xmlns:p=\"urn:p2\" xmlns=\"\""
			 " xmlns:xml=\"" XML_NS "\"/>");
out:
	dom_doc_free(doc);
}

const t_case tests_ns[] = {
	{"ns/decls", decls},
	{"ns/lookup", lookup},
	{"ns/in_scope", in_scope},
	{"ns/declare", declare},
	{NULL, NULL},
};
