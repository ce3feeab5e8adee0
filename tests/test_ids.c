/*
 * test_ids.c - dom_get_by_id: which attributes are IDs (wsu:Id in the
 * WS-Security utility namespace whatever its prefix, Id and ID with no
 * namespace; not an Id in another namespace, not lowercase id), the
 * duplicate count signature-wrapping checks rely on, and an index that
 * follows every change to attributes and to the tree, and is updated
 * across dom_replace_parsed as a build would have it.
 * Not tested here: the pipeline's rules on duplicates (wss/).
 */
#include "tests/util.h"

#define WSU "http://docs.oasis-open.org/wss/2004/01/" \
	"oasis-200401-wss-wssecurity-utility-1.0.xsd"

/* The element carrying id is the one named want (NULL: none), count times. */
static void id_is(dom_doc *doc, const char *id, const char *want,
		  size_t count)
{
	size_t n = 99;
	dom_node *el = dom_get_by_id(doc, id, &n);

	t_context("id \"%s\"", id);
	CHECK_EQ_INT(n, count);
	if (want == NULL)
		CHECK(el == NULL);
	else if (CHECK_MSG(el != NULL, "not found"))
		CHECK_EQ_STR(dom_local_name(el), want);
	t_context(NULL);
}

static void which_attributes(void)
{
	dom_doc *doc = T_PARSE(
		"<r xmlns:wsu=\"" WSU "\" xmlns:u=\"" WSU "\""
		" xmlns:o=\"urn:other\">"
		"<a wsu:Id=\"w1\"/><b u:Id=\"w2\"/><c Id=\"i1\"/><d ID=\"I1\"/>"
		"<e o:Id=\"other\"/><f id=\"lower\"/><g wsu:ID=\"wsuID\"/>"
		"<h wsu:id=\"wsuid\"/><k o:ID=\"oID\"/><m iD=\"mixed\"/></r>");

	if (doc == NULL)
		return;
	id_is(doc, "w1", "a", 1);
	id_is(doc, "w2", "b", 1);
	id_is(doc, "i1", "c", 1);
	id_is(doc, "I1", "d", 1);
	id_is(doc, "other", NULL, 0);
	id_is(doc, "lower", NULL, 0);
	id_is(doc, "wsuID", NULL, 0);
	id_is(doc, "wsuid", NULL, 0);
	id_is(doc, "oID", NULL, 0);
	id_is(doc, "mixed", NULL, 0);
	id_is(doc, "w", NULL, 0);
	id_is(doc, "w1x", NULL, 0);
	id_is(doc, "", NULL, 0);
	dom_doc_free(doc);
}

static void no_ids_at_all(void)
{
	dom_doc *doc = T_PARSE("<r a=\"w1\"><id>w1</id></r>");

	if (doc == NULL)
		return;
	id_is(doc, "w1", NULL, 0);
	dom_doc_free(doc);
}

/*
 * A document whose names hold no ID's until one is added: the names
 * interned as strings (as the pipeline interns its profile) or an
 * element named Id are not attributes, and the first attribute set
 * after a lookup is found by the next, through the tree or a fragment.
 */
static void first_id_added(void)
{
	static const char *const how[] = {"Id", "ID", "wsu:Id", "fragment"};
	size_t k;

	for (k = 0; k < sizeof how / sizeof how[0]; k++) {
		dom_doc *doc = T_PARSE("<r xmlns:wsu=\"" WSU "\"><a id=\"X\"/>"
				       "<Id>X</Id></r>");
		dom_node *a;
		lab_err err;

		t_context("added as %s", how[k]);
		if (doc == NULL)
			continue;
		a = t_find(dom_doc_element(doc), "a");
		CHECK(dom_intern(doc, "Id", 2) != NULL &&
		      dom_intern(doc, "ID", 2) != NULL);
		id_is(doc, "X", NULL, 0);
		if (k == 0)
			CHECK_OK(dom_attr_set(a, NULL, "Id", "X", 1, &err),
				 &err);
		else if (k == 1)
			CHECK_OK(dom_attr_set(a, NULL, "ID", "X", 1, &err),
				 &err);
		else if (k == 2)
			CHECK_OK(dom_attr_set(a, WSU, "wsu:Id", "X", 1, &err),
				 &err);
		else
			CHECK_OK(dom_parse_into(a, NULL, "<f Id=\"X\"/>", 11,
						NULL, &err),
				 &err);
		id_is(doc, "X", k == 3 ? "f" : "a", 1);
		dom_doc_free(doc);
	}
}

static void duplicates(void)
{
	dom_doc *doc = T_PARSE(
		"<r xmlns:wsu=\"" WSU "\"><a wsu:Id=\"dup\"/>"
		"<b><c wsu:Id=\"dup\"/></b><d Id=\"mix\"/><e wsu:Id=\"mix\"/>"
		"<f ID=\"mix\"/><g Id=\"one\"/></r>");

	if (doc == NULL)
		return;
	id_is(doc, "dup", "a", 2);  /* the first in document order */
	id_is(doc, "mix", "d", 3);
	id_is(doc, "one", "g", 1);
	dom_doc_free(doc);
}

static void follows_changes(void)
{
	dom_doc *doc = T_PARSE("<r xmlns:wsu=\"" WSU "\"><a wsu:Id=\"A\"/>"
			       "<b Id=\"B\"><c ID=\"C\"/></b></r>");
	dom_node *r, *a, *b, *n;
	lab_err err;

	if (doc == NULL)
		return;
	r = dom_doc_element(doc);
	a = t_find(r, "a");
	b = t_find(r, "b");
	id_is(doc, "A", "a", 1);
	/* Attributes: change, add, remove. */
	CHECK_OK(dom_attr_set(a, WSU, "wsu:Id", "A2", 2, &err), &err);
	id_is(doc, "A", NULL, 0);
	id_is(doc, "A2", "a", 1);
	CHECK_OK(dom_attr_set(a, NULL, "ID", "B", 1, &err), &err);
	id_is(doc, "B", "a", 2);
	CHECK_EQ_INT(dom_attr_remove(a, NULL, "ID"), 1);
	id_is(doc, "B", "b", 1);
	CHECK_EQ_INT(dom_attr_remove(a, WSU, "Id"), 1);
	id_is(doc, "A2", NULL, 0);
	/* The tree: a removed subtree's IDs go, and come back with it. */
	dom_remove(b);
	id_is(doc, "B", NULL, 0);
	id_is(doc, "C", NULL, 0);
	CHECK_OK(dom_insert_before(r, b, a, &err), &err);
	id_is(doc, "C", "c", 1);
	/* Set on a detached element: found once it is inserted. */
	if (CHECK_OK(dom_create_element(doc, NULL, "late", &n, &err), &err)) {
		CHECK_OK(dom_attr_set(n, NULL, "Id", "L", 1, &err), &err);
		id_is(doc, "L", NULL, 0);
		CHECK_OK(dom_append(a, n, &err), &err);
		id_is(doc, "L", "late", 1);
		dom_node_free(n);
		id_is(doc, "L", NULL, 0);
	}
	CHECK_OK(dom_parse_into(a, NULL, "<frag wsu:Id=\"F\"/>", 18, NULL,
				&err), &err);
	id_is(doc, "F", "frag", 1);
	dom_doc_free(doc);
}

/*
 * dom_replace_parsed brings a built index up to date itself: every ID
 * then looks up as in the same document parsed afresh, whose index is
 * built by a walk.  The replaced <b> takes IDs with it (OLD, C, one of
 * A's two carriers, Z's first carrier), and the fragment brings new ones
 * (F), one that left (C), and duplicates of IDs outside on either side
 * of it (D after, W before), with the fragment parsed in place and from
 * a copy.
 */
static void replaced_like_rebuilt(void)
{
	static const char text[] =
		"<r xmlns:wsu=\"" WSU "\"><a Id=\"A\"/><w Id=\"W\"/>"
		"<b Id=\"OLD\"><c Id=\"C\"/><x Id=\"A\"/><y Id=\"Z\"/></b>"
		"<d Id=\"D\"/><z wsu:Id=\"Z\"/></r>";
	static const char frag[] = "<f Id=\"F\"/><g Id=\"D\"/>"
				   "<k wsu:Id=\"C\"/><v ID=\"W\"/>";
	static const struct {
		const char *id, *want;
		size_t count;
	} after[] = {
		{"A", "a", 1}, {"OLD", NULL, 0}, {"C", "k", 1}, {"F", "f", 1},
		{"D", "g", 2}, {"W", "w", 2},	 {"Z", "z", 1},
	};
	size_t at, i;

	for (at = 0; at <= 512; at += 512) {
		dom_doc *doc = T_PARSE(text), *fresh = NULL;
		lab_buf b = LAB_BUF_INIT, out = LAB_BUF_INIT;
		lab_err err;

		t_context("fragment at %zu", at);
		if (doc == NULL)
			continue;
		id_is(doc, "A", "a", 2);
		id_is(doc, "Z", "y", 2);
		if (CHECK(lab_buf_reserve(&b, at + sizeof frag) == LAB_OK)) {
			memset(b.data, ' ', at);
			memcpy(b.data + at, frag, sizeof frag - 1);
			b.len = at + sizeof frag - 1;
		}
		if (CHECK_OK(dom_replace_parsed(t_find(dom_doc_element(doc), "b"),
						&b, at, sizeof frag - 1, NULL,
						&err),
			     &err) &&
		    T_SERIALIZE(dom_doc_node(doc), &out))
			fresh = T_PARSE_N(out.data, out.len);
		for (i = 0; fresh != NULL && i < sizeof after / sizeof after[0];
		     i++) {
			id_is(doc, after[i].id, after[i].want, after[i].count);
			id_is(fresh, after[i].id, after[i].want,
			      after[i].count);
		}
		lab_buf_free(&b);
		lab_buf_free(&out);
		dom_doc_free(fresh);
		dom_doc_free(doc);
	}
}

const t_case tests_ids[] = {
	{"ids/which_attributes", which_attributes},
	{"ids/no_ids_at_all", no_ids_at_all},
	{"ids/first_id_added", first_id_added},
	{"ids/duplicates", duplicates},
	{"ids/follows_changes", follows_changes},
	{"ids/replaced_like_rebuilt", replaced_like_rebuilt},
	{NULL, NULL},
};
