/*
 * test_tree.c - building and changing trees through the API: node
 * creation and its refusals, append / insert_before / replace / remove
 * with sibling and parent links read both ways, the refusals that keep
 * the tree a tree, text content, qualified names, and the serialization
 * of a tree built by hand.
 * Not tested here: parsing (test_roundtrip.c, test_diff.c), attributes
 * (test_attrs.c), namespaces (test_ns.c), user data (test_userdata.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/util.h"
#include "util/base64.h"

/* A document whose root <r> holds elements named by each letter of kids. */
static dom_doc *letters(const char *kids, dom_node **root)
{
	dom_doc *doc;
	dom_node *n;
	lab_err err;
	char name[2] = {0, 0};

	if (!CHECK_OK(dom_doc_new(&doc, &err), &err))
		return NULL;
	if (!CHECK_OK(dom_create_element(doc, NULL, "r", root, &err), &err) ||
	    !CHECK_OK(dom_append(dom_doc_node(doc), *root, &err), &err))
		goto fail;
	for (; *kids != '\0'; kids++) {
		name[0] = *kids;
		if (!CHECK_OK(dom_create_element(doc, NULL, name, &n, &err),
			      &err) ||
		    !CHECK_OK(dom_append(*root, n, &err), &err))
			goto fail;
	}
	return doc;
fail:
	dom_doc_free(doc);
	return NULL;
}

/* The children of p, named by one letter each, read forward and back. */
static void kids_are(const dom_node *p, const char *want)
{
	char fwd[64], back[64];
	const dom_node *c;
	size_t n = 0, i;

	for (c = dom_first_child(p); c != NULL && n < sizeof fwd - 1;
	     c = dom_next_sibling(c)) {
		CHECK(dom_parent(c) == p);
		fwd[n++] = dom_local_name(c)[0];
	}
	fwd[n] = '\0';
	CHECK_EQ_STR(fwd, want);
	i = n;
	back[n] = '\0';
	for (c = dom_last_child(p); c != NULL && i > 0; c = dom_prev_sibling(c))
		back[--i] = dom_local_name(c)[0];
	CHECK_MSG(i == 0 && c == NULL, "backward walk does not end at the "
		  "first child");
	CHECK_EQ_STR(back, want);
	CHECK((dom_first_child(p) == NULL) == (dom_last_child(p) == NULL));
}

/* n is detached: no parent and no siblings either way. */
static void detached(const dom_node *n)
{
	CHECK(dom_parent(n) == NULL);
	CHECK(dom_next_sibling(n) == NULL);
	CHECK(dom_prev_sibling(n) == NULL);
}

static void create_nodes(void)
{
	dom_doc *doc;
	dom_node *n;
	lab_err err;
	size_t len;

	if (!CHECK_OK(dom_doc_new(&doc, &err), &err))
		return;
	CHECK(dom_node_type(dom_doc_node(doc)) == DOM_DOCUMENT);
	CHECK(dom_doc_element(doc) == NULL);
	if (CHECK_OK(dom_create_element(doc, "urn:x", "p:e", &n, &err), &err)) {
		CHECK(dom_node_type(n) == DOM_ELEMENT && dom_node_doc(n) == doc);
		CHECK_EQ_STR(dom_local_name(n), "e");
		CHECK_EQ_STR(dom_prefix(n), "p");
		CHECK_EQ_STR(dom_ns_uri(n), "urn:x");
		CHECK(dom_is(n, dom_intern(doc, "urn:x", 5),
			     dom_intern(doc, "e", 1)));
		CHECK(!dom_is(n, NULL, dom_intern(doc, "e", 1)));
		CHECK(dom_value(n, &len) == NULL && len == 0);
		detached(n);
	}
	if (CHECK_OK(dom_create_element(doc, "", "plain", &n, &err), &err))
		CHECK(dom_ns_uri(n) == NULL && dom_prefix(n) == NULL);
	if (CHECK_OK(dom_create_text(doc, "a\0b<", 4, &n, &err), &err)) {
		const char *v = dom_value(n, &len);

		CHECK(dom_node_type(n) == DOM_TEXT);
		CHECK_EQ_MEM(v, len, "a\0b<", 4);
		CHECK(dom_local_name(n) == NULL);
	}
	{
		char *buf = NULL;

		/* Written by the caller after creation, NUL-terminated. */
		if (CHECK_OK(dom_create_text_buf(doc, 5, &buf, &n, &err),
			     &err) &&
		    CHECK(buf != NULL)) {
			CHECK(dom_node_type(n) == DOM_TEXT);
			CHECK_EQ_INT(buf[5], '\0');
			memcpy(buf, "a<b&c", 5);
			CHECK_EQ_STR(dom_value(n, &len), "a<b&c");
			CHECK_EQ_INT(len, 5);
			detached(n);
		}
	}
	if (CHECK_OK(dom_create_cdata(doc, "x]]y", 4, &n, &err), &err))
		CHECK(dom_node_type(n) == DOM_CDATA);
	if (CHECK_OK(dom_create_comment(doc, "- c", 3, &n, &err), &err))
		CHECK_EQ_STR(dom_value(n, NULL), "- c");
	if (CHECK_OK(dom_create_pi(doc, "tgt", "d ?", &n, &err), &err)) {
		CHECK(dom_node_type(n) == DOM_PI);
		CHECK_EQ_STR(dom_local_name(n), "tgt");
		CHECK_EQ_STR(dom_value(n, &len), "d ?");
		CHECK_EQ_INT(len, 3);
	}
	dom_doc_free(doc);
}

static void create_refusals(void)
{
	static const char *const bad_qnames[] = {"", ":e", "e:", "a:b:c"};
	dom_doc *doc;
	dom_node *n;
	lab_err err;
	size_t i;

	if (!CHECK_OK(dom_doc_new(&doc, &err), &err))
		return;
	for (i = 0; i < sizeof bad_qnames / sizeof bad_qnames[0]; i++)
		CHECK_EQ_INT(dom_create_element(doc, "urn:x", bad_qnames[i], &n,
						&err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_create_element(doc, NULL, "p:e", &n, &err), LAB_EUSAGE);
	CHECK(n == NULL);
	CHECK_EQ_INT(dom_create_cdata(doc, "a]]>b", 5, &n, &err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_create_comment(doc, "a--b", 4, &n, &err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_create_comment(doc, "a-", 2, &n, &err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_create_pi(doc, "", "d", &n, &err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_create_pi(doc, "a:b", "d", &n, &err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_create_pi(doc, "t", "a?>b", &n, &err), LAB_EUSAGE);
	CHECK(n == NULL);
	dom_doc_free(doc);
}

static void insert_move_remove(void)
{
	dom_node *r, *a, *b, *c, *d, *e;
	dom_doc *doc = letters("abcde", &r);
	lab_err err;

	if (doc == NULL)
		return;
	a = t_find(r, "a");
	b = t_find(r, "b");
	c = t_find(r, "c");
	d = t_find(r, "d");
	e = t_find(r, "e");
	dom_remove(d);
	dom_remove(e);
	detached(d);
	kids_are(r, "abc");
	CHECK(dom_prev_sibling(a) == NULL && dom_next_sibling(c) == NULL);
	CHECK_OK(dom_insert_before(r, d, b, &err), &err);
	kids_are(r, "adbc");
	CHECK_OK(dom_insert_before(r, c, a, &err), &err);  /* moves c first */
	kids_are(r, "cadb");
	CHECK_OK(dom_append(r, a, &err), &err);            /* moves a last */
	kids_are(r, "cdba");
	CHECK_OK(dom_insert_before(r, d, d, &err), &err);  /* no-op */
	kids_are(r, "cdba");
	CHECK_OK(dom_insert_before(r, e, NULL, &err), &err);
	kids_are(r, "cdbae");
	CHECK_OK(dom_replace(b, e, &err), &err);           /* e moves to b */
	kids_are(r, "cdea");
	detached(b);
	CHECK_OK(dom_replace(c, b, &err), &err);
	kids_are(r, "bdea");
	detached(c);
	CHECK_OK(dom_replace(b, b, &err), &err);
	kids_are(r, "bdea");
	dom_remove(a);
	dom_remove(b);
	kids_are(r, "de");
	dom_remove(d);
	dom_remove(e);
	kids_are(r, "");
	detached(e);
	dom_remove(e); /* already detached: nothing happens */
	detached(e);
	CHECK_OK(dom_append(r, c, &err), &err);
	kids_are(r, "c");
	/* Nesting: a subtree moves whole. */
	CHECK_OK(dom_append(c, a, &err), &err);
	CHECK_OK(dom_append(a, b, &err), &err);
	CHECK_OK(dom_append(r, a, &err), &err);
	kids_are(r, "ca");
	kids_are(a, "b");
	kids_are(c, "");
	dom_doc_free(doc);
}

/* Each refused change fails with LAB_EUSAGE and leaves the tree alone. */
static void refusals(void)
{
	static const char shape[] = "<r><a><b/></a><c/>t</r>\n";
	dom_node *r, *a, *b, *c, *t, *foreign;
	dom_doc *doc = T_PARSE("<r><a><b/></a><c/>t</r>"), *other;
	lab_err err;

	if (doc == NULL)
		return;
	if (!CHECK_OK(dom_doc_new(&other, &err), &err)) {
		dom_doc_free(doc);
		return;
	}
	r = dom_doc_element(doc);
	a = t_find(r, "a");
	b = t_find(r, "b");
	c = t_find(r, "c");
	t = dom_last_child(r);
	CHECK_EQ_INT(dom_append(b, a, &err), LAB_EUSAGE);     /* cycle */
	CHECK_EQ_INT(dom_append(a, a, &err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_append(b, r, &err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_replace(b, a, &err), LAB_EUSAGE);
	CHECK_EQ_INT(dom_append(t, c, &err), LAB_EUSAGE);     /* text parent */
	CHECK_EQ_INT(dom_insert_before(r, c, b, &err), LAB_EUSAGE); /* not r's */
	CHECK_EQ_INT(dom_append(a, dom_doc_node(doc), &err), LAB_EUSAGE);
	if (CHECK_OK(dom_create_element(other, NULL, "f", &foreign, &err),
		     &err)) {
		CHECK_EQ_INT(dom_append(a, foreign, &err), LAB_EUSAGE);
		CHECK_EQ_INT(dom_replace(c, foreign, &err), LAB_EUSAGE);
		CHECK_EQ_INT(dom_append(foreign, c, &err), LAB_EUSAGE);
		/* Detached, so nothing to replace. */
		CHECK_EQ_INT(dom_replace(foreign, foreign, &err), LAB_EUSAGE);
	}
	CHECK(err.msg[0] != '\0');
	CHECK_SERIALIZES(dom_doc_node(doc), shape);
	dom_doc_free(other);
	dom_doc_free(doc);
}

static void text_content(void)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
		{"r", "x<yz>w"}, {"b", "yz>"}, {"c", ""},
	};
	dom_doc *doc = T_PARSE("<r>x&lt;<b>y<![CDATA[z>]]><c/></b><!--no-->"
			       "<?pi no?>w</r>");
	size_t i;

	if (doc == NULL)
		return;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		lab_buf out = LAB_BUF_INIT;

		t_context("<%s>", cases[i].path);
		if (CHECK_EQ_INT(dom_text_content(t_find(dom_doc_node(doc),
							 cases[i].path), &out),
				 LAB_OK))
			CHECK_EQ_MEM(out.data, out.len, cases[i].want,
				     strlen(cases[i].want));
		lab_buf_free(&out);
	}
	dom_doc_free(doc);
}

/* Through a writer that fails at its second piece: the writer's code,
 * LAB_EIO, and the first piece handed on whole. */
static void text_content_writer_fails(void)
{
	dom_doc *doc = T_PARSE("<r>abcd<b>efgh</b>ijkl</r>");
	t_pieces t = {LAB_BUF_INIT, 0, 2, 0, NULL};
	lab_buf out;

	if (doc == NULL)
		return;
	CHECK_OK(lab_buf_init_writer(&out, 4, t_take, &t), NULL);
	CHECK_EQ_INT(dom_text_content(dom_doc_element(doc), &out), LAB_EIO);
	CHECK_EQ_INT(t.calls, 2);
	CHECK_EQ_MEM(t.got.data, t.got.len, "abcd", 4);
	lab_buf_free(&out);
	lab_buf_free(&t.got);
	dom_doc_free(doc);
}

static void qname(void)
{
	dom_doc *doc = T_PARSE("<p:e xmlns:p=\"urn:p\"><plain/><?tgt d?>t</p:e>");
	char buf[16];
	dom_node *e;

	if (doc == NULL)
		return;
	e = dom_doc_element(doc);
	CHECK_EQ_INT(dom_qname(e, buf, sizeof buf), 3);
	CHECK_EQ_STR(buf, "p:e");
	CHECK_EQ_INT(dom_qname(dom_first_child(e), buf, sizeof buf), 5);
	CHECK_EQ_STR(buf, "plain");
	CHECK_EQ_INT(dom_qname(dom_next_sibling(dom_first_child(e)), buf,
			       sizeof buf), 3);
	CHECK_EQ_STR(buf, "tgt");
	CHECK_EQ_INT(dom_qname(dom_last_child(e), buf, sizeof buf), 0);
	CHECK_EQ_STR(buf, "");
	CHECK_EQ_INT(dom_qname(e, NULL, 0), 3);
	/* Too small (no room for the NUL): the length, nothing written. */
	memcpy(buf, "untouched", 10);
	CHECK_EQ_INT(dom_qname(e, buf, 3), 3);
	CHECK_EQ_STR(buf, "untouched");
	dom_doc_free(doc);
}

/* Appends *n, which the call returning rc just made, to parent. */
static dom_node *add(dom_node *parent, int rc, dom_node **n, lab_err *err)
{
	if (!CHECK_OK(rc, err) || !CHECK_OK(dom_append(parent, *n, err), err))
		return NULL;
	return *n;
}

static void serialize_built(void)
{
	static const char want[] =
		"<!--top-->\n"
		"<r:root xmlns:r=\"urn:r\" a=\"1 &amp; &lt;2> &quot;q&quot;&#9;\""
		" r:b=\"&#9;&#10;&#13;\">"
		"text &lt;&amp;&gt; \"'&#13;"
		"<![CDATA[x<y&]]><!--c--><?pi data?><?empty?>"
		"<child><r:leaf/></child></r:root>\n";
	dom_doc *doc;
	dom_node *d, *root, *child, *n;
	lab_err err;

	if (!CHECK_OK(dom_doc_new(&doc, &err), &err))
		return;
	d = dom_doc_node(doc);
	if (!add(d, dom_create_comment(doc, "top", 3, &n, &err), &n, &err) ||
	    !add(d, dom_create_element(doc, "urn:r", "r:root", &root, &err),
		 &root, &err))
		goto out;
	CHECK_OK(dom_ns_declare(root, "r", "urn:r", &err), &err);
	CHECK_OK(dom_attr_set(root, NULL, "a", "1 & <2> \"q\"\t", 12, &err),
		 &err);
	CHECK_OK(dom_attr_set(root, "urn:r", "r:b", "\t\n\r", 3, &err), &err);
	add(root, dom_create_text(doc, "text <&> \"'\r", 12, &n, &err), &n, &err);
	add(root, dom_create_cdata(doc, "x<y&", 4, &n, &err), &n, &err);
	add(root, dom_create_comment(doc, "c", 1, &n, &err), &n, &err);
	add(root, dom_create_pi(doc, "pi", "data", &n, &err), &n, &err);
	add(root, dom_create_pi(doc, "empty", "", &n, &err), &n, &err);
	child = add(root, dom_create_element(doc, NULL, "child", &n, &err),
		    &n, &err);
	if (child != NULL)
		add(child, dom_create_element(doc, "urn:r", "r:leaf", &n, &err),
		    &n, &err);
	CHECK(dom_doc_element(doc) == root);
	CHECK_SERIALIZES(d, want);
	/* A subtree alone: no newline, no declarations added. */
	if (child != NULL)
		CHECK_SERIALIZES(child, "<child><r:leaf/></child>");
	CHECK_SERIALIZES(dom_first_child(d), "<!--top-->");
out:
	dom_doc_free(doc);
}

static void node_free(void)
{
	dom_node *r;
	dom_doc *doc = letters("abc", &r);

	if (doc == NULL)
		return;
	dom_node_free(t_find(r, "b"));
	kids_are(r, "ac");
	dom_node_free(dom_doc_node(doc)); /* the document node: no-op */
	CHECK(dom_doc_element(doc) == r);
	CHECK_SERIALIZES(dom_doc_node(doc), "<r><a/><c/></r>\n");
	dom_doc_free(doc);
}

static void free_count(void *data, void *arg)
{
	(void)data;
	++*(int *)arg;
}

/*
 * A chain far deeper than any parse allows, built through the API: every
 * whole-tree walk (serializing, text content, IDs, freeing with user
 * data) must work without recursing; the parser refuses it back.
 */
static void deep_built(void)
{
	enum { DEPTH = 100000 };
	static int key;
	dom_doc *doc, *back = NULL;
	dom_node *n, *top = NULL, *bottom = NULL;
	lab_buf out = LAB_BUF_INIT;
	lab_err err;
	size_t i, count;
	int freed = 0;

	if (!CHECK_OK(dom_doc_new(&doc, &err), &err))
		return;
	/* Bottom up: each insertion checks the new parent's ancestors for a
	 * cycle, and a detached parent has none, so building stays linear. */
	for (i = 0; i < DEPTH; i++) {
		if (!CHECK_OK(dom_create_element(doc, NULL, "e", &n, &err), &err) ||
		    (top != NULL && !CHECK_OK(dom_append(n, top, &err), &err)))
			goto out;
		bottom = bottom != NULL ? bottom : n;
		top = n;
	}
	if (!CHECK_OK(dom_append(dom_doc_node(doc), top, &err), &err))
		goto out;
	CHECK_OK(dom_attr_set(bottom, NULL, "Id", "deep", 4, &err), &err);
	CHECK_OK(dom_user_data_set(bottom, &key, &key, free_count, &freed,
				   &err), &err);
	if (add(bottom, dom_create_text(doc, "x", 1, &n, &err), &n, &err) &&
	    T_SERIALIZE(dom_doc_node(doc), &out)) {
		/* DEPTH - 1 of "<e>", the bottom's tag, "x", the end tags. */
		CHECK_EQ_INT(out.len, 3 * (DEPTH - 1) + 13 + 1 + 4 * DEPTH + 1);
		CHECK(strncmp(out.data + 3 * (DEPTH - 1),
			      "<e Id=\"deep\">x</e>", 18) == 0);
		CHECK_EQ_INT(dom_parse(out.data, out.len, NULL, &back, &err),
			     LAB_EMALFORMED);
	}
	CHECK(dom_get_by_id(doc, "deep", &count) == bottom && count == 1);
	out.len = 0;
	CHECK_EQ_INT(dom_text_content(top, &out), LAB_OK);
	CHECK_EQ_MEM(out.data, out.len, "x", 1);
	dom_node_free(top);
	CHECK_EQ_INT(freed, 1);
	CHECK(dom_doc_element(doc) == NULL);
out:
	lab_buf_free(&out);
	dom_doc_free(doc);
	CHECK_EQ_INT(freed, 1);
}

/*
 * Every node knows its document, attached or not, wherever in the
 * document's memory it was made: nodes of two documents made in turn,
 * enough of them to fill many arena chunks.
 */
static void node_doc(void)
{
	enum { N = 40000 };
	dom_doc *doc[2] = {NULL, NULL};
	dom_node **made = calloc(2 * N, sizeof *made);
	lab_err err;
	size_t i;

	if (!CHECK(made != NULL) ||
	    !CHECK_OK(dom_doc_new(&doc[0], &err), &err) ||
	    !CHECK_OK(dom_doc_new(&doc[1], &err), &err))
		goto out;
	for (i = 0; i < 2 * N; i++) {
		dom_doc *d = doc[i % 2];
		int rc = i % 3 == 0 ? dom_create_text(d, "t", 1, &made[i], &err)
				    : dom_create_element(d, NULL, "e", &made[i],
							 &err);

		if (!CHECK_OK(rc, &err))
			goto out;
		/* Attach a third of them, under the previous element. */
		if (i % 3 == 1 && i >= 2 && made[i - 2] != NULL &&
		    dom_node_type(made[i - 2]) == DOM_ELEMENT &&
		    !CHECK_OK(dom_append(made[i - 2], made[i], &err), &err))
			goto out;
	}
	for (i = 0; i < 2 * N; i++)
		if (!CHECK(dom_node_doc(made[i]) == doc[i % 2]))
			break;
	CHECK(dom_node_doc(dom_doc_node(doc[0])) == doc[0]);
	CHECK(dom_node_doc(dom_doc_node(doc[1])) == doc[1]);
	CHECK_EQ_INT(dom_append(made[1], made[2], &err), LAB_EUSAGE);
out:
	free(made);
	dom_doc_free(doc[0]);
	dom_doc_free(doc[1]);
}

/* The length a parsed document came from, kept as a size hint; 0 for a
 * document built by hand, and not changed by later edits or parses into
 * the tree. */
static void source_len(void)
{
	static const char xml[] = "<r><a/></r>";
	dom_doc *built = NULL, *parsed = NULL;
	lab_err err;

	if (!CHECK_OK(dom_doc_new(&built, &err), &err) ||
	    !CHECK_OK(dom_parse(xml, sizeof xml - 1, NULL, &parsed, &err),
		      &err))
		goto out;
	CHECK_EQ_INT(dom_doc_source_len(built), 0);
	CHECK_EQ_INT(dom_doc_source_len(parsed), sizeof xml - 1);
	if (!CHECK_OK(dom_parse_into(dom_doc_element(parsed), NULL, "<b/>", 4,
				     NULL, &err), &err))
		goto out;
	CHECK_EQ_INT(dom_doc_source_len(parsed), sizeof xml - 1);
out:
	dom_doc_free(built);
	dom_doc_free(parsed);
}

/*
 * dom_create_text_b64: the bytes handed over in pieces of every split
 * (1 to 7 bytes, then the rest) give the encoder's text of them whole,
 * serialized as it stands into one buffer and through writers of every
 * window; more bytes than announced, or fewer, and dom_b64_end refuses;
 * taken (dom_text_take), the text is empty.
 */
static void text_b64(void)
{
	static const char bytes[] = "\x00<&>\r\xff\x80\"]]>x1234567890";
	enum { N = sizeof bytes - 1 };
	char want[64], *end = lab_base64_put(bytes, N, 0, want);
	dom_doc *doc = NULL;
	dom_node *el = NULL, *t;
	lab_buf xml = LAB_BUF_INIT;
	size_t first, at, len;
	dom_b64 w;
	lab_err err;

	if (!CHECK_OK(dom_doc_new(&doc, &err), &err) || !CHECK(end != NULL) ||
	    !CHECK_OK(dom_create_element(doc, NULL, "v", &el, &err), &err) ||
	    !CHECK_OK(dom_append(dom_doc_node(doc), el, &err), &err))
		goto out;
	*end = '\0';
	for (first = 0; first <= 7; first++) {
		t_context("pieces of %zu", first);
		if (!CHECK_OK(dom_create_text_b64(doc, N, &w, &t, &err), &err))
			continue;
		for (at = 0; at < N; at += first == 0 ? N : first)
			CHECK_EQ_INT(dom_b64_put(&w, bytes + at,
						 first == 0 || N - at < first
							 ? N - at
							 : first),
				     LAB_OK);
		CHECK_OK(dom_b64_end(&w, &err), &err);
		CHECK_EQ_STR(dom_value(t, &len), want);
		if (!CHECK_OK(dom_append(el, t, &err), &err))
			continue;
		xml.len = 0;
		CHECK(lab_buf_printf(&xml, "<v>%s</v>", want) == LAB_OK &&
		      CHECK_SERIALIZES(el, xml.data));
		CHECK_SERIALIZES_IN_PIECES(el);
		dom_node_free(t);
	}
	t_context("refusals");
	if (CHECK_OK(dom_create_text_b64(doc, 4, &w, &t, &err), &err)) {
		CHECK_EQ_INT(dom_b64_put(&w, bytes, 5), LAB_EUSAGE);
		CHECK_EQ_INT(dom_b64_put(&w, bytes, 4), LAB_OK);
		CHECK_EQ_INT(dom_b64_end(&w, &err), LAB_EUSAGE);
		dom_node_free(t);
	}
	if (CHECK_OK(dom_create_text_b64(doc, 4, &w, &t, &err), &err)) {
		CHECK_EQ_INT(dom_b64_put(&w, bytes, 3), LAB_OK);
		CHECK_EQ_INT(dom_b64_end(&w, &err), LAB_EUSAGE);
		dom_node_free(t);
	}
	if (CHECK_OK(dom_create_text_b64(doc, 2, &w, &t, &err), &err) &&
	    CHECK_EQ_INT(dom_b64_put(&w, bytes, 2), LAB_OK) &&
	    CHECK_OK(dom_b64_end(&w, &err), &err) &&
	    CHECK_OK(dom_append(el, t, &err), &err)) {
		CHECK(dom_text_take(t, &len) != NULL);
		CHECK_SERIALIZES(el, "<v></v>");
	}
out:
	lab_buf_free(&xml);
	dom_doc_free(doc);
}

const t_case tests_tree[] = {
	{"tree/create_nodes", create_nodes},
	{"tree/create_refusals", create_refusals},
	{"tree/text_b64", text_b64},
	{"tree/insert_move_remove", insert_move_remove},
	{"tree/refusals", refusals},
	{"tree/text_content", text_content},
	{"tree/text_content_writer_fails", text_content_writer_fails},
	{"tree/qname", qname},
	{"tree/serialize_built", serialize_built},
	{"tree/node_free", node_free},
	{"tree/deep_built", deep_built},
	{"tree/node_doc", node_doc},
	{"tree/source_len", source_len},
	{NULL, NULL},
};
