/*
 * test_fragment.c - dom_parse_into: a fragment parsed in the context of
 * an element (prefixes and the default namespace in scope there resolve
 * without being declared again), inserted before a reference node or at
 * the end, with mixed content; a failed parse leaves the parent as it
 * was and reports a position relative to the fragment; the same through
 * dom_replace_parsed, in place or not (and dom_replace_parsed_held, in
 * a text's bytes dom_text_take hands over), and what the serializer
 * writes for the content it replaced under each choice of the emit axis.
 * Not tested here: limits and external entities (test_limits.c and
 * test_errors.c cover them for whole documents, through the same code).
 */
#include <stdio.h>

#include "tests/util.h"

static const char host[] =
	"<r xmlns=\"urn:d\" xmlns:a=\"urn:a\"><p xmlns:b=\"urn:b\">"
	"<x/></p></r>";

static int parse_into(dom_node *parent, dom_node *ref, const char *frag,
		      lab_err *err)
{
	lab_err_clear(err);
	return dom_parse_into(parent, ref, frag, strlen(frag), NULL, err);
}

static void uses_ancestor_prefixes(void)
{
	dom_doc *doc = T_PARSE(host);
	dom_node *p, *y, *z;
	const dom_attr *at;
	lab_err err;
	size_t n;

	if (doc == NULL)
		return;
	p = t_find(dom_doc_element(doc), "p");
	if (!CHECK_OK(parse_into(p, NULL, "<a:y b:at=\"1\" at=\"2\"/>text<z/>",
				 &err), &err))
		goto out;
	y = t_find(p, "y");
	z = t_find(p, "z");
	if (!CHECK(y != NULL && z != NULL))
		goto out;
	CHECK_EQ_STR(dom_ns_uri(y), "urn:a");
	CHECK_EQ_STR(dom_prefix(y), "a");
	CHECK(dom_ns_uri(y) == dom_intern(doc, "urn:a", 5));
	CHECK_EQ_STR(dom_ns_uri(z), "urn:d");
	CHECK(dom_parent(y) == p && dom_parent(z) == p);
	/* Nothing was declared on the new nodes. */
	CHECK(dom_ns_decls(y, &n) == NULL || n == 0);
	CHECK_EQ_INT(n, 0);
	at = dom_attr_get_str(y, "urn:b", "at");
	CHECK(at != NULL && strcmp(at->value, "1") == 0 &&
	      strcmp(dom_attr_prefix(at), "b") == 0);
	at = dom_attr_get_str(y, NULL, "at");
	CHECK(at != NULL && strcmp(at->value, "2") == 0);
	CHECK_SERIALIZES(dom_doc_node(doc),
			 "<r xmlns=\"urn:d\" xmlns:a=\"urn:a\">"
			 "<p xmlns:b=\"urn:b\"><x/><a:y b:at=\"1\" at=\"2\"/>text<z/></p></r>\n");
out:
	dom_doc_free(doc);
}

/* The wrapper re-declares the bindings in scope, escaping what an
 * attribute value must ('&' is the one a namespace URI may hold): at
 * the end, doubled, between two runs. */
static void escaped_scope_uris(void)
{
	static const char doc_text[] =
		"<r xmlns:a=\"urn:a&amp;&amp;b&amp;\" xmlns:b=\"urn:&amp;\" "
		"xmlns=\"urn:d&amp;x\"><p/></r>";
	dom_doc *doc = T_PARSE(doc_text);
	dom_node *p, *n;
	lab_err err;

	if (doc == NULL)
		return;
	p = t_find(dom_doc_element(doc), "p");
	if (!CHECK_OK(parse_into(p, NULL, "<a:x/><b:y/><z/>", &err), &err))
		goto out;
	n = t_find(p, "x");
	CHECK(n != NULL && strcmp(dom_ns_uri(n), "urn:a&&b&") == 0);
	n = t_find(p, "y");
	CHECK(n != NULL && strcmp(dom_ns_uri(n), "urn:&") == 0);
	n = t_find(p, "z");
	CHECK(n != NULL && strcmp(dom_ns_uri(n), "urn:d&x") == 0);
out:
	dom_doc_free(doc);
}

static void before_reference(void)
{
	dom_doc *doc = T_PARSE(host);
	dom_node *p, *x;
	lab_err err;

	if (doc == NULL)
		return;
	p = t_find(dom_doc_element(doc), "p");
	x = t_find(p, "x");
	CHECK_OK(parse_into(p, x, "<f/><!--c-->", &err), &err);
	CHECK_OK(parse_into(p, NULL, "<g/>", &err), &err);
	CHECK_OK(parse_into(p, x, "t", &err), &err);
	CHECK_OK(parse_into(p, NULL, "", &err), &err);
	CHECK_SERIALIZES(p, "<p xmlns:b=\"urn:b\"><f/><!--c-->t<x/><g/></p>");
	CHECK(dom_prev_sibling(x) != NULL &&
	      dom_node_type(dom_prev_sibling(x)) == DOM_TEXT);
	CHECK(dom_last_child(p) == t_find(p, "g"));
	dom_doc_free(doc);
}

static void mixed_content(void)
{
	static const char frag[] =
		"lead &amp; &#x41;<a:e a:k=\"&lt;\" xmlns:c=\"urn:c\">"
		"<c:in>deep</c:in><![CDATA[<raw>]]></a:e>"
		"<?pi data?><!-- note -->tail\n";
	dom_doc *doc = T_PARSE(host);
	dom_node *x, *in;
	lab_buf text = LAB_BUF_INIT;
	lab_err err;

	if (doc == NULL)
		return;
	x = t_find(dom_doc_element(doc), "x");
	if (!CHECK_OK(parse_into(x, NULL, frag, &err), &err))
		goto out;
	CHECK_EQ_INT(t_nchildren(x), 5);
	in = t_find(x, "in");
	CHECK(in != NULL && strcmp(dom_ns_uri(in), "urn:c") == 0);
	CHECK_EQ_INT(dom_text_content(x, &text), LAB_OK);
	CHECK_EQ_STR(text.data, "lead & Adeep<raw>tail\n");
	CHECK_SERIALIZES(x, "<x>lead &amp; A<a:e xmlns:c=\"urn:c\" a:k=\"&lt;\">"
			 "<c:in>deep</c:in><![CDATA[<raw>]]></a:e>"
			 "<?pi data?><!-- note -->tail\n</x>");
out:
	lab_buf_free(&text);
	dom_doc_free(doc);
}

/* Each bad fragment: LAB_EMALFORMED with a position, parent untouched. */
static void failure_leaves_parent(void)
{
	static const char *const bad[] = {
		"<a>", "<a></b>", "</p>", "<u:x/>", "&undefined;", "<f/><g>",
		"ok<", "<a x=\"1\" x=\"2\"/>", "<a:e a:k=\"1\" a:k=\"2\"/>",
	};
	static const char want[] =
		"<r xmlns=\"urn:d\" xmlns:a=\"urn:a\"><p xmlns:b=\"urn:b\">"
		"<x/></p></r>\n";
	dom_doc *doc = T_PARSE(host);
	dom_node *p;
	lab_err err;
	size_t i;

	if (doc == NULL)
		return;
	p = t_find(dom_doc_element(doc), "p");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		t_context("fragment %s", bad[i]);
		CHECK_EQ_INT(parse_into(p, NULL, bad[i], &err), LAB_EMALFORMED);
		CHECK(err.code == LAB_EMALFORMED && err.msg[0] != '\0');
		CHECK(err.line > 0);
		CHECK_SERIALIZES(dom_doc_node(doc), want);
	}
	t_context(NULL);
	/* Misuse: a reference that is not a child, a parent that is text. */
	CHECK_EQ_INT(parse_into(p, dom_doc_element(doc), "<y/>", &err),
		     LAB_EUSAGE);
	if (CHECK_OK(parse_into(p, NULL, "text", &err), &err)) {
		dom_node *t = dom_last_child(p);

		CHECK_EQ_INT(parse_into(t, NULL, "<y/>", &err), LAB_EUSAGE);
		dom_node_free(t);
	}
	CHECK_SERIALIZES(dom_doc_node(doc), want);
	dom_doc_free(doc);
}

/*
 * Lines and columns count from the fragment's first byte (libxml2 points
 * just past the offending construct): the same text inside "<w>...</w>"
 * as a document reports the same line, and 3 columns more on line 1.
 */
static void error_position(void)
{
	static const struct {
		const char *frag;
		unsigned long line, col;
	} cases[] = {
		{"<ok/>&bad;", 1, 11},
		{"<ok/><u:x/>", 1, 10},
		{"<ok/>\n<b>\n</c>", 3, 5},
		{"text\n  <y z=\"1\" z=\"2\"/>", 2, 17},
	};
	dom_doc *doc = T_PARSE(host), *none = NULL;
	char wrapped[128];
	dom_node *p;
	lab_err err, ref;
	size_t i;

	if (doc == NULL)
		return;
	p = t_find(dom_doc_element(doc), "p");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t_context("fragment %s", cases[i].frag);
		CHECK_EQ_INT(parse_into(p, NULL, cases[i].frag, &err),
			     LAB_EMALFORMED);
		CHECK_EQ_INT(err.line, cases[i].line);
		CHECK_EQ_INT(err.col, cases[i].col);
		snprintf(wrapped, sizeof wrapped, "<w>%s</w>", cases[i].frag);
		CHECK_EQ_INT(dom_parse(wrapped, strlen(wrapped), NULL, &none,
				       &ref), LAB_EMALFORMED);
		CHECK_EQ_INT(err.line, ref.line);
		CHECK_EQ_INT(err.col, ref.col - (ref.line == 1 ? 3 : 0));
		CHECK_EQ_STR(err.msg, ref.msg);
	}
	dom_doc_free(doc);
}

/* want's x replaced the reference way: frag parsed into p before x
 * (dom_parse_into), then x removed when that worked. */
static int reference(dom_doc *want, const char *frag, lab_err *ref)
{
	int rc = parse_into(t_find(dom_doc_element(want), "p"),
			    t_find(dom_doc_element(want), "x"), frag, ref);

	if (rc == LAB_OK)
		dom_node_free(t_find(dom_doc_element(want), "x"));
	return rc;
}

/* A replacement in doc (rc, err) against the reference in want: the same
 * result, error and position, and the same output. */
static void same_as(dom_doc *doc, int rc, const lab_err *err, dom_doc *want,
		    int rc_ref, const lab_err *ref)
{
	lab_buf w = LAB_BUF_INIT, got = LAB_BUF_INIT;

	CHECK_EQ_INT(rc, rc_ref);
	if (rc != LAB_OK) {
		CHECK_EQ_INT(err->line, ref->line);
		CHECK_EQ_INT(err->col, ref->col);
		CHECK_EQ_STR(err->msg, ref->msg);
	}
	if (T_SERIALIZE(dom_doc_node(want), &w) &&
	    T_SERIALIZE(dom_doc_node(doc), &got))
		CHECK_EQ_MEM(got.data, got.len, w.data, w.len);
	lab_buf_free(&w);
	lab_buf_free(&got);
}

/*
 * dom_replace_parsed, with no room, too little room and enough room in
 * front of the fragment (and bytes after it that must not be read): the
 * same tree as dom_parse_into followed by the old node's removal, or the
 * same error at the same position with the parent unchanged; the buffer
 * is taken either way.
 */
static void replace_parsed(void)
{
	static const char *const frags[] = {
		"<a:y b:at=\"1\" at=\"2\"/>text<z/>", "<ok/>&bad;",
		"<ok/>\n<b>\n</c>", "</p>", "ok<", "<f/><g>",
		"x</dom-fragment><evil/>",
	};
	static const size_t rooms[] = {0, 3, 256};
	size_t f, r;

	for (f = 0; f < sizeof frags / sizeof frags[0]; f++)
		for (r = 0; r < sizeof rooms / sizeof rooms[0]; r++) {
			dom_doc *want = T_PARSE(host), *doc = T_PARSE(host);
			lab_buf text = LAB_BUF_INIT;
			size_t n = strlen(frags[f]);
			lab_err err, ref;
			int rc, rc_ref;

			t_context("fragment %s, room %zu", frags[f], rooms[r]);
			if (want == NULL || doc == NULL ||
			    !CHECK_EQ_INT(lab_buf_reserve(&text, rooms[r]),
					  LAB_OK))
				goto next;
			memset(text.data, '<', rooms[r]);
			text.len = rooms[r];
			if (!CHECK_EQ_INT(lab_buf_put(&text, frags[f], n),
					  LAB_OK) ||
			    !CHECK_EQ_INT(lab_buf_puts(&text, "<junk"), LAB_OK))
				goto next;
			rc_ref = reference(want, frags[f], &ref);
			lab_err_clear(&err);
			rc = dom_replace_parsed(t_find(dom_doc_element(doc), "x"),
						&text, rooms[r], n, NULL, &err);
			CHECK(text.data == NULL && text.len == 0);
			same_as(doc, rc, &err, want, rc_ref, &ref);
next:
			lab_buf_free(&text);
			dom_doc_free(want);
			dom_doc_free(doc);
		}
}

/* Whether b[0..n) is all zero bytes. */
static int wiped(const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != '\0')
			return 0;
	return 1;
}

/*
 * dom_replace_parsed_held over the bytes of x's text, taken with
 * dom_text_take: the fragment at the start of them (moved forward for
 * the wrapper's tag), with room in front (parsed where it is), and in
 * bytes too few for both (copied).  The same tree or error as
 * dom_parse_into (x's text read empty since it was taken); on failure,
 * and under emit=tree at once, the bytes are wiped up to the fragment's
 * end.
 */
static void replace_parsed_held(void)
{
	static const char *const frags[] = {
		"<a:y b:at=\"1\" at=\"2\"/>text<z/>", "<ok/>&bad;",
		"</p>", "x</dom-fragment><evil/>",
	};
	static const size_t sizes[] = {400, 400, 0}, ats[] = {0, 200, 0};
	int tree = t_is_choice("emit", "tree");
	size_t f, c;

	for (f = 0; f < sizeof frags / sizeof frags[0]; f++)
		for (c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
			size_t n = strlen(frags[f]);
			size_t size = sizes[c] != 0 ? sizes[c] : n + 5, got_n;
			lab_buf in = LAB_BUF_INIT;
			dom_doc *want = NULL, *doc = NULL;
			dom_node *x, *t;
			lab_err err, ref;
			char *b;
			int rc, rc_ref;

			t_context("fragment %s, case %zu", frags[f], c);
			if (lab_buf_printf(&in, "<r xmlns=\"urn:d\" xmlns:a="
					   "\"urn:a\"><p xmlns:b=\"urn:b\">"
					   "<x>%0*d</x></p></r>",
					   (int)size, 0) == LAB_OK) {
				doc = T_PARSE_N(in.data, in.len);
				want = T_PARSE_N(in.data, in.len);
			}
			if (want == NULL || doc == NULL)
				goto next;
			/* want's x reads empty too, where the parse fails. */
			dom_text_take(dom_first_child(t_find(
					      dom_doc_element(want), "x")),
				      &got_n);
			x = t_find(dom_doc_element(doc), "x");
			t = dom_first_child(x);
			CHECK(dom_text_take(x, &got_n) == NULL && got_n == 0);
			b = dom_text_take(t, &got_n);
			if (!CHECK(b != NULL) || !CHECK_EQ_INT(got_n, size))
				goto next;
			CHECK(dom_value(t, &got_n) != NULL && got_n == 0);
			CHECK(dom_text_take(t, &got_n) == NULL);
			memset(b, '<', size);
			memcpy(b + ats[c], frags[f], n);
			rc_ref = reference(want, frags[f], &ref);
			lab_err_clear(&err);
			rc = dom_replace_parsed_held(x, b, size, ats[c], n, NULL,
						     NULL, &err);
			if (rc != LAB_OK || tree)
				CHECK(wiped(b, ats[c] + n));
			same_as(doc, rc, &err, want, rc_ref, &ref);
next:
			lab_buf_free(&in);
			dom_doc_free(want);
			dom_doc_free(doc);
		}
}

/* A fragment outside the buffer, or a node without a parent, is the
 * caller's bug; the buffer is taken all the same. */
static void replace_parsed_misuse(void)
{
	dom_doc *doc = T_PARSE(host);
	lab_buf text = LAB_BUF_INIT;
	dom_node *el = NULL;
	lab_err err;

	if (doc == NULL)
		return;
	CHECK_OK(lab_buf_puts(&text, "<a/>"), NULL);
	CHECK_EQ_INT(dom_replace_parsed(t_find(dom_doc_element(doc), "x"),
					&text, 1, 4, NULL, &err),
		     LAB_EUSAGE);
	CHECK(text.data == NULL);
	CHECK_OK(lab_buf_puts(&text, "<a/>"), NULL);
	CHECK_OK(dom_create_element(doc, NULL, "d", &el, &err), &err);
	CHECK_EQ_INT(dom_replace_parsed(el, &text, 0, 4, NULL, &err),
		     LAB_EUSAGE);
	CHECK(text.data == NULL);
	lab_buf_free(&text);
	dom_doc_free(doc);
}

/* The host with p's content as given. */
static void host_with(lab_buf *b, const char *content)
{
	b->len = 0;
	CHECK_OK(lab_buf_printf(b, "<r xmlns=\"urn:d\" xmlns:a=\"urn:a\">"
				"<p xmlns:b=\"urn:b\">%s</p></r>\n", content),
		 NULL);
}

/*
 * What the serializer writes for replaced content: under emit=source the
 * bytes as they were (entities, quotes, spacing and all) while nothing
 * changes, the tree's form once anything in the document does, or when
 * the bytes were not all of the parent's content; under emit=tree always
 * the tree's form.  Both parse to the same tree.
 */
static void replaced_source(void)
{
	static const char frag[] =
		"<a:y  b:at='1&#65;'\tat=\"2\" ></a:y>t&amp;&#x42;<z/><!--c-->";
	static const char tree[] =
		"<a:y b:at=\"1A\" at=\"2\"/>t&amp;B<z/><!--c-->";
	int source = !t_is_choice("emit", "tree");
	lab_buf want = LAB_BUF_INIT, got = LAB_BUF_INIT;
	dom_node *p, *y;
	dom_doc *doc = t_replaced(host, frag), *again = NULL;
	lab_err err;

	if (doc == NULL)
		return;
	p = t_find(dom_doc_element(doc), "p");
	y = t_find(p, "y");
	host_with(&want, source ? frag : tree);
	if (T_SERIALIZE(dom_doc_node(doc), &got)) {
		CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
		again = T_PARSE_N(got.data, got.len);
	}
	/* p alone: its tags from the tree, its content as kept. */
	got.len = 0;
	if (T_SERIALIZE(p, &got))
		CHECK_EQ_MEM(got.data, got.len, want.data + 33,
			     want.len - 33 - 5);
	/* Inside the content, the tree as always. */
	got.len = 0;
	if (T_SERIALIZE(y, &got))
		CHECK_EQ_STR(got.data, "<a:y b:at=\"1A\" at=\"2\"/>");
	/* The output parses back to the tree the bytes made. */
	if (again != NULL) {
		got.len = 0;
		host_with(&want, tree);
		if (T_SERIALIZE(p = t_find(dom_doc_element(again), "p"), &got))
			CHECK_EQ_MEM(got.data, got.len, want.data + 33,
				     want.len - 33 - 5);
	}
	/* Any change ends it: here an attribute far from the content. */
	CHECK_OK(dom_attr_set(dom_doc_element(doc), NULL, "new", "v", 1, &err),
		 &err);
	got.len = 0;
	want.len = 0;
	CHECK_OK(lab_buf_printf(&want, "<r xmlns=\"urn:d\" xmlns:a=\"urn:a\" "
				"new=\"v\"><p xmlns:b=\"urn:b\">%s</p></r>\n",
				tree),
		 NULL);
	if (T_SERIALIZE(dom_doc_node(doc), &got))
		CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
	lab_buf_free(&want);
	lab_buf_free(&got);
	dom_doc_free(again);
	dom_doc_free(doc);
}

/* Each kind of change ends the kept bytes: insertion, removal, an
 * attribute set or removed, a namespace declared. */
static void replaced_changes(void)
{
	static const char frag[] = "<y  k='1'/><z/>";
	int kind;

	for (kind = 0; kind < 5; kind++) {
		dom_doc *doc = t_replaced(host, frag);
		lab_buf got = LAB_BUF_INIT, want = LAB_BUF_INIT;
		dom_node *y, *z, *e = NULL;
		lab_err err;

		t_context("change %d", kind);
		if (doc == NULL)
			continue;
		y = t_find(dom_doc_element(doc), "y");
		z = t_find(dom_doc_element(doc), "z");
		switch (kind) {
		case 0:
			CHECK_OK(dom_create_element(doc, NULL, "e", &e, &err),
				 &err);
			CHECK_OK(dom_append(z, e, &err), &err);
			break;
		case 1:
			dom_node_free(z);
			break;
		case 2:
			CHECK_OK(dom_attr_set(y, NULL, "k", "2", 1, &err),
				 &err);
			break;
		case 3:
			CHECK(dom_attr_remove(y, NULL, "k") == 1);
			break;
		default:
			CHECK_OK(dom_ns_declare(z, "q", "urn:q", &err), &err);
			break;
		}
		host_with(&want, kind == 0   ? "<y k=\"1\"/><z><e/></z>"
				 : kind == 1 ? "<y k=\"1\"/>"
				 : kind == 2 ? "<y k=\"2\"/><z/>"
				 : kind == 3 ? "<y/><z/>"
					     : "<y k=\"1\"/><z xmlns:q=\"urn:q\"/>");
		if (T_SERIALIZE(dom_doc_node(doc), &got))
			CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
		lab_buf_free(&got);
		lab_buf_free(&want);
		dom_doc_free(doc);
	}
}

/* Bytes that were not all of the parent's content are not kept. */
static void replaced_not_alone(void)
{
	static const char two[] = "<r><p><x/><w/></p></r>";
	dom_doc *doc = T_PARSE(two);
	lab_buf text = LAB_BUF_INIT, got = LAB_BUF_INIT;
	lab_err err;

	if (doc == NULL)
		return;
	CHECK_OK(lab_buf_puts(&text, "<y  k='1'/>"), NULL);
	CHECK_OK(dom_replace_parsed(t_find(dom_doc_element(doc), "x"), &text,
				    0, text.len, NULL, &err),
		 &err);
	if (T_SERIALIZE(dom_doc_node(doc), &got))
		CHECK_EQ_STR(got.data, "<r><p><y k=\"1\"/><w/></p></r>\n");
	lab_buf_free(&got);
	dom_doc_free(doc);
}

const t_case tests_fragment[] = {
	{"fragment/uses_ancestor_prefixes", uses_ancestor_prefixes},
	{"fragment/escaped_scope_uris", escaped_scope_uris},
	{"fragment/before_reference", before_reference},
	{"fragment/mixed_content", mixed_content},
	{"fragment/failure_leaves_parent", failure_leaves_parent},
	{"fragment/error_position", error_position},
	{"fragment/replace_parsed", replace_parsed},
	{"fragment/replace_parsed_held", replace_parsed_held},
	{"fragment/replace_parsed_misuse", replace_parsed_misuse},
	{"fragment/replaced_source", replaced_source},
	{"fragment/replaced_changes", replaced_changes},
	{"fragment/replaced_not_alone", replaced_not_alone},
	{NULL, NULL},
};
