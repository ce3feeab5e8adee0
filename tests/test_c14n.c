/*
 * test_c14n.c - wss/c14n.c against libxml2's own canonicalizer
 * (xmlC14NDocDumpMemory) on the same bytes: exclusive with and without
 * comments, and inclusive, over every generator kind and 300 random
 * documents; plus a subtree, whose output must not depend on where the
 * walk starts, wss_c14n_tee's copy of an apex's content (also over many
 * output buffers, against wss_c14n of the same apex), and values
 * with a byte to escape at every place, and the refusal of a document
 * declaring a relative namespace URI (as libxml2's, with the kept bytes
 * and with the walk, and after the tree changes).  The
 * W3C/libxml2 conformance vectors run through the
 * command line in tests/interop.sh.
 * Not tested here: digests and signatures (test_wss.c).
 */
#include <libxml/c14n.h>
#include <libxml/parser.h>

#include "tests/util.h"
#include "wss/c14n.h"

enum { RANDOM_DOCS = 300 };

static const struct {
	const char *name;
	int exclusive, with_comments;
	int mode; /* libxml2's xmlC14NMode */
} modes[] = {
	{"exc-c14n", 1, 0, XML_C14N_EXCLUSIVE_1_0},
	{"exc-c14n with comments", 1, 1, XML_C14N_EXCLUSIVE_1_0},
	{"c14n with comments", 0, 1, XML_C14N_1_0},
};

/* Our canonical form of the whole document equals libxml2's, per mode. */
static void same_as_libxml2(const char *buf, size_t len)
{
	xmlDocPtr x = xmlReadMemory(buf, (int)len, NULL, NULL,
				    XML_PARSE_NONET | XML_PARSE_NOENT);
	dom_doc *doc = T_PARSE_N(buf, len);
	size_t i;

	if (!CHECK(x != NULL) || doc == NULL)
		goto out;
	for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		wss_c14n_opts o = {modes[i].exclusive, modes[i].with_comments,
				   NULL, 0, NULL};
		lab_buf ours = LAB_BUF_INIT;
		xmlChar *theirs = NULL;
		int n = xmlC14NDocDumpMemory(x, NULL, modes[i].mode, NULL,
					     modes[i].with_comments, &theirs);
		lab_err err;

		if (CHECK_MSG(n >= 0, "libxml2 failed (%s)", modes[i].name) &&
		    CHECK_OK(wss_c14n_buf(dom_doc_node(doc), &o, &ours, &err),
			     &err))
			CHECK_EQ_MEM(ours.data, ours.len, theirs, (size_t)n);
		xmlFree(theirs);
		lab_buf_free(&ours);
	}
out:
	xmlFreeDoc(x);
	dom_doc_free(doc);
}

static void gen_kinds(void)
{
	size_t i;

	for (i = 0; i < t_gen_ncases; i++) {
		lab_buf b = LAB_BUF_INIT;

		t_context("%s", t_gen_cases[i].name);
		if (T_GEN(&t_gen_cases[i].opts, &b))
			same_as_libxml2(b.data, b.len);
		lab_buf_free(&b);
	}
}

static void random_docs(void)
{
	size_t seed;

	for (seed = 1; seed <= RANDOM_DOCS; seed++) {
		lab_gen_opts o = {LAB_GEN_RANDOM, 0, 20 + seed % 80, seed, 0};
		lab_buf b = LAB_BUF_INIT;

		t_context("random seed %zu", seed);
		if (T_GEN(&o, &b))
			same_as_libxml2(b.data, b.len);
		lab_buf_free(&b);
	}
}

/*
 * Exclusive C14N of a subtree renders what the subtree uses and nothing
 * of its context: the Body of a message canonicalizes the same whether
 * its envelope declares ten namespaces or one.
 */
static void subtree_ignores_context(void)
{
	static const char a[] =
		"<e:Envelope xmlns:e=\"urn:e\" xmlns:x=\"urn:x\" xmlns=\"urn:d\">"
		"<e:Body x:id=\"1\"><p>t</p></e:Body></e:Envelope>";
	static const char b[] =
		"<e:Envelope xmlns:e=\"urn:e\"><e:Body xmlns:x=\"urn:x\""
		" x:id=\"1\"><p xmlns=\"urn:d\">t</p></e:Body></e:Envelope>";
	static const char want[] =
		"<e:Body xmlns:e=\"urn:e\" xmlns:x=\"urn:x\" x:id=\"1\">"
		"<p xmlns=\"urn:d\">t</p></e:Body>";
	const char *const docs[] = {a, b};
	size_t i;

	for (i = 0; i < 2; i++) {
		wss_c14n_opts o = {1, 0, NULL, 0, NULL};
		dom_doc *doc = T_PARSE(docs[i]);
		lab_buf out = LAB_BUF_INIT;
		lab_err err;

		t_context("document %zu", i);
		if (doc != NULL &&
		    CHECK_OK(wss_c14n_buf(t_find(dom_doc_node(doc), "Body"), &o,
					  &out, &err),
			     &err))
			CHECK_EQ_MEM(out.data, out.len, want, sizeof want - 1);
		lab_buf_free(&out);
		dom_doc_free(doc);
	}
}

static int to_buf(void *ctx, const char *p, size_t n)
{
	return lab_buf_put(ctx, p, n);
}

/* wss_c14n_tee: the same canonical bytes, and a copy of exactly those
 * between the apex's tags -- short, empty, and longer than c14n's
 * output buffer (written to the sink directly). */
static void tee_content(void)
{
	static const char open[] = "<e:Body xmlns:e=\"urn:e\">";
	static const char close[] = "</e:Body>";
	const char *inner[3] = {"<p xmlns=\"urn:d\">t &amp; u</p><q></q>", "",
				NULL};
	lab_buf big = LAB_BUF_INIT;
	size_t i;

	CHECK_EQ_INT(lab_buf_puts(&big, "<p>"), LAB_OK);
	for (i = 0; i < 5000; i++)
		CHECK_EQ_INT(lab_buf_puts(&big, "0123456789"), LAB_OK);
	CHECK_EQ_INT(lab_buf_puts(&big, "</p>"), LAB_OK);
	inner[2] = big.data;
	for (i = 0; i < 3; i++) {
		wss_c14n_opts o = {1, 0, NULL, 0, NULL};
		lab_buf xml = LAB_BUF_INIT, out = LAB_BUF_INIT;
		lab_buf content = LAB_BUF_INIT;
		dom_doc *doc = NULL;
		lab_err err;

		t_context("content %zu", i);
		CHECK_EQ_INT(lab_buf_printf(&xml,
					    "<e:Envelope xmlns:e=\"urn:e\">%s%s%s"
					    "</e:Envelope>",
					    open, inner[i], close),
			     LAB_OK);
		doc = T_PARSE(xml.data);
		if (doc != NULL &&
		    CHECK_OK(wss_c14n_tee(t_find(dom_doc_node(doc), "Body"), &o,
					  to_buf, &out, &content, &err),
			     &err)) {
			CHECK_EQ_MEM(content.data != NULL ? content.data : "",
				     content.len, inner[i], strlen(inner[i]));
			CHECK_EQ_INT(out.len, strlen(open) + strlen(inner[i]) +
						      strlen(close));
			CHECK(out.data != NULL &&
			      memcmp(out.data, open, strlen(open)) == 0);
		}
		lab_buf_free(&xml);
		lab_buf_free(&out);
		lab_buf_free(&content);
		dom_doc_free(doc);
	}
	lab_buf_free(&big);
}

/* One document: a Body with the (canonical) start tag `start` around
 * `inner`, teed and canonicalized alone. */
static void tee_matches_one(const char *start, const lab_buf *inner,
			   int with_comments)
{
	static const char end[] = "</e:Body>";
	wss_c14n_opts o = {1, with_comments, NULL, 0, NULL};
	lab_buf xml = LAB_BUF_INIT, out = LAB_BUF_INIT, whole = LAB_BUF_INIT;
	lab_buf content = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	dom_node *body;
	lab_err err;
	size_t sl = strlen(start), el = strlen(end);

	if (!CHECK_EQ_INT(lab_buf_printf(&xml,
					 "<e:Envelope xmlns:e=\"urn:e\" "
					 "xmlns:u=\"urn:u\">%s%s%s</e:Envelope>",
					 start, inner->data, end),
			  LAB_OK))
		goto out;
	doc = T_PARSE(xml.data);
	body = doc != NULL ? t_find(dom_doc_node(doc), "Body") : NULL;
	if (!CHECK(body != NULL) ||
	    !CHECK_OK(wss_c14n_buf(body, &o, &whole, &err), &err) ||
	    !CHECK_OK(wss_c14n_tee(body, &o, to_buf, &out, &content, &err),
		      &err))
		goto out;
	/* The sink sees what c14n alone writes; the content is that
	 * between the (canonical) start tag and the end tag. */
	CHECK_EQ_MEM(out.data, out.len, whole.data, whole.len);
	if (CHECK(whole.len >= sl + el) &&
	    CHECK(memcmp(whole.data, start, sl) == 0) &&
	    CHECK(memcmp(whole.data + whole.len - el, end, el) == 0))
		CHECK_EQ_MEM(content.data != NULL ? content.data : "",
			     content.len, whole.data + sl, whole.len - sl - el);
	CHECK(content.data == NULL || content.data[content.len] == '\0');
out:
	lab_buf_free(&xml);
	lab_buf_free(&out);
	lab_buf_free(&whole);
	lab_buf_free(&content);
	dom_doc_free(doc);
}

/*
 * wss_c14n_tee gathers the content in the content buffer itself: its
 * content must be what wss_c14n writes between the apex's tags, over
 * many output buffers' worth of small writes (several flushes), long
 * runs handed over whole between them, and comments, whitespace, PIs,
 * namespaces and escapes, with and without comments.
 */
static void tee_matches_c14n(void)
{
	static const char start[] = "<e:Body xmlns:e=\"urn:e\" Id=\"b\">";
	lab_buf inner[4] = {LAB_BUF_INIT, LAB_BUF_INIT, LAB_BUF_INIT,
			    LAB_BUF_INIT};
	size_t i, k;

	for (i = 0; i < 3000; i++)
		CHECK_EQ_INT(lab_buf_printf(
				     &inner[0],
				     "\n  <d:r xmlns:d=\"urn:d\" b=\"%zu\" a=\"&lt;\">"
				     " x &lt; y\r&#xD; <!-- c%zu --> <e:s u:z=\"'\"/>"
				     "<?pi %zu?></d:r>",
				     i, i, i),
			     LAB_OK);
	for (i = 0; i < 6; i++) {
		CHECK_EQ_INT(lab_buf_puts(&inner[1], "<p>short &amp;</p><!--x-->"),
			     LAB_OK);
		for (k = 0; k < 2000 * (i + 1); k++)
			CHECK_EQ_INT(lab_buf_puts(&inner[1], "0123456789"),
				     LAB_OK);
		CHECK_EQ_INT(lab_buf_puts(&inner[1], "<q a=\"&quot;\"/>"),
			     LAB_OK);
	}
	for (i = 0; i < 40; i++) {
		CHECK_EQ_INT(lab_buf_puts(&inner[2], "<v w=\""), LAB_OK);
		for (k = 0; k < 400 + i * 37; k++)
			CHECK_EQ_INT(lab_buf_puts(&inner[2], "ab\t&amp;c"),
				     LAB_OK);
		CHECK_EQ_INT(lab_buf_puts(&inner[2], "\"><![CDATA[<&>]]></v> "),
			     LAB_OK);
	}
	CHECK_EQ_INT(lab_buf_puts(&inner[3], " <!-- only --> "), LAB_OK);
	for (i = 0; i < 4; i++) {
		t_context("document %zu", i);
		tee_matches_one(start, &inner[i], 0);
		t_context("document %zu with comments", i);
		tee_matches_one(start, &inner[i], 1);
		lab_buf_free(&inner[i]);
	}
}

/*
 * Values of every length from 1 to 40 with a byte to escape at every place
 * (the scan works in blocks of 16, halves of 8 and 4, and single bytes),
 * and long ones past the direct-write limit, as libxml2 writes them.
 */
static void escapes_every_place(void)
{
	static const size_t longer[] = {2728, 2729, 2730, 5000, 20000};

	t_escape_docs(longer, sizeof longer / sizeof longer[0], same_as_libxml2);
}

/* Whether libxml2's exclusive C14N of the whole document succeeds: it
 * checks every element's declarations.  Its error report is silenced. */
static void quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static int libxml2_canonicalizes(const char *buf, size_t len)
{
	xmlDocPtr x;
	xmlChar *out = NULL;
	int n = -1;

	xmlSetGenericErrorFunc(NULL, quiet);
	x = xmlReadMemory(buf, (int)len, NULL, NULL, XML_PARSE_NONET);
	if (x != NULL)
		n = xmlC14NDocDumpMemory(x, NULL, XML_C14N_EXCLUSIVE_1_0, NULL,
					 0, &out);
	xmlFree(out);
	xmlFreeDoc(x);
	xmlSetGenericErrorFunc(NULL, NULL);
	return n >= 0;
}

/*
 * A relative namespace URI has no canonical form: C14N refuses a
 * document that declares one (LAB_ESECURITY, the URI named) wherever it
 * is -- above the apex, on it, deep inside, as a prefix or the default,
 * or on an element outside what is canonicalized, before or after it --
 * as libxml2 does, even where the Body's content was kept in canonical
 * form.  A document parsed whole keeps no canonical bytes for a Body
 * with one in scope.  The same documents with absolute URIs are
 * canonicalized, and their Body's content kept where the build keeps it
 * (parser=insitu, emit=canonical), so the "no" above is the URI's.
 */
static void relative_ns_refused(void)
{
	static const struct {
		const char *text;
		int outside; /* the declaration is not in scope at the Body */
	} docs[] = {
		{"<e:Env xmlns:e=\"urn:e\" xmlns:r=\"%s\"><e:Body><a>t</a>"
		 "</e:Body></e:Env>", 0},
		{"<e:Env xmlns:e=\"urn:e\"><e:Body xmlns:r=\"%s\"><a>t</a>"
		 "</e:Body></e:Env>", 0},
		{"<e:Env xmlns:e=\"urn:e\"><e:Body><a><r:b xmlns:r=\"%s\">t"
		 "</r:b></a></e:Body></e:Env>", 0},
		{"<e:Env xmlns:e=\"urn:e\"><e:Body><a><b xmlns=\"%s\">t</b></a>"
		 "</e:Body></e:Env>", 0},
		{"<e:Env xmlns:e=\"urn:e\"><e:Header><h xmlns:r=\"%s\"/>"
		 "</e:Header><e:Body><a>t</a></e:Body></e:Env>", 1},
		{"<e:Env xmlns:e=\"urn:e\"><e:Body><a>t</a></e:Body>"
		 "<z xmlns=\"%s\"/></e:Env>", 1},
	};
	static const struct {
		const char *uri;
		int relative;
	} uris[] = {{"rel/XMLSchema", 1}, {"../x", 1},	     {"#f", 1},
		    {"x", 1},		  {"/p/q", 1},	     {"a/b:c", 1},
		    {"urn:ok", 0},	  {"http://h/x", 0}, {"a+b-c.9:x", 0}};
	const wss_c14n_opts inclusive = {0, 0, NULL, 0, NULL};
	const wss_c14n_opts exclusive = {1, 0, NULL, 0, NULL};
	size_t d, u;

	for (d = 0; d < sizeof docs / sizeof docs[0]; d++)
		for (u = 0; u < sizeof uris / sizeof uris[0]; u++) {
			lab_buf text = LAB_BUF_INIT, out = LAB_BUF_INIT;
			const dom_canon_dep *deps;
			dom_doc *doc = NULL;
			dom_node *body;
			size_t len, ndeps;
			lab_err err;
			int m, rc, want, got;

			t_context("document %zu, URI %s", d, uris[u].uri);
			if (CHECK_OK(lab_buf_printf(&text, docs[d].text,
						    uris[u].uri), NULL))
				doc = T_PARSE_N(text.data, text.len);
			if (doc == NULL)
				goto next;
			CHECK_EQ_INT(libxml2_canonicalizes(text.data, text.len),
				     !uris[u].relative);
			body = t_find(dom_doc_element(doc), "Body");
			want = (!uris[u].relative || docs[d].outside) &&
			       t_is_choice("parser", "insitu") &&
			       t_is_choice("emit", "canonical");
			got = dom_canonical_content(body, &len, &deps,
						    &ndeps) != NULL;
			CHECK_EQ_INT(got, want);
			for (m = 0; m < 3; m++) {
				out.len = 0;
				rc = wss_c14n_buf(m == 2 ? dom_doc_node(doc) : body,
						  m == 1 ? &inclusive : &exclusive,
						  &out, &err);
				if (!uris[u].relative) {
					CHECK_OK(rc, &err);
					continue;
				}
				CHECK_EQ_INT(rc, LAB_ESECURITY);
				CHECK_MSG(strstr(err.msg, uris[u].uri) != NULL,
					  "message: %s", err.msg);
			}
next:
			dom_doc_free(doc);
			lab_buf_free(&text);
			lab_buf_free(&out);
		}
}

/*
 * The refusal follows the tree as it is: a relative URI declared through
 * dom_ns_declare on an element outside the Body makes C14N of the Body
 * refuse, and once that element is removed the Body is canonicalized
 * again, to the bytes it had before.
 */
static void relative_ns_follows_tree(void)
{
	static const char doc_text[] =
		"<e:Env xmlns:e=\"urn:e\"><e:Header><h/></e:Header>"
		"<e:Body><a>t</a></e:Body></e:Env>";
	const wss_c14n_opts exclusive = {1, 0, NULL, 0, NULL};
	lab_buf before = LAB_BUF_INIT, after = LAB_BUF_INIT;
	dom_doc *doc = T_PARSE(doc_text);
	dom_node *body, *h;
	lab_err err;

	if (doc == NULL)
		return;
	body = t_find(dom_doc_element(doc), "Body");
	h = t_find(dom_doc_element(doc), "h");
	if (CHECK_OK(wss_c14n_buf(body, &exclusive, &before, &err), &err) &&
	    CHECK_OK(dom_ns_declare(h, "r", "rel", &err), &err)) {
		CHECK_EQ_INT(wss_c14n_buf(body, &exclusive, &after, &err),
			     LAB_ESECURITY);
		CHECK_MSG(strstr(err.msg, "\"rel\" (xmlns:r)") != NULL,
			  "message: %s", err.msg);
		dom_remove(h);
		dom_node_free(h);
		after.len = 0;
		if (CHECK_OK(wss_c14n_buf(body, &exclusive, &after, &err),
			     &err))
			CHECK_EQ_MEM(after.data, after.len, before.data,
				     before.len);
	}
	dom_doc_free(doc);
	lab_buf_free(&before);
	lab_buf_free(&after);
}

const t_case tests_c14n[] = {
	{"c14n/gen_kinds_as_libxml2", gen_kinds},
	{"c14n/random_docs_as_libxml2", random_docs},
	{"c14n/subtree_ignores_context", subtree_ignores_context},
	{"c14n/tee_content", tee_content},
	{"c14n/tee_matches_c14n", tee_matches_c14n},
	{"c14n/escapes_every_place", escapes_every_place},
	{"c14n/relative_ns_refused", relative_ns_refused},
	{"c14n/relative_ns_follows_tree", relative_ns_follows_tree},
	{NULL, NULL},
};
