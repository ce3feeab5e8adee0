/*
 * test_c14n.c - wss/c14n.c against libxml2's own canonicalizer
 * (xmlC14NDocDumpMemory) on the same bytes: exclusive with and without
 * comments, and inclusive, over every generator kind and 300 random
 * documents; plus a subtree, whose output must not depend on where the
 * walk starts.  The W3C/libxml2 conformance vectors run through the
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
		lab_gen_opts o = {LAB_GEN_RANDOM, 0, 20 + seed % 80, seed};
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

const t_case tests_c14n[] = {
	{"c14n/gen_kinds_as_libxml2", gen_kinds},
	{"c14n/random_docs_as_libxml2", random_docs},
	{"c14n/subtree_ignores_context", subtree_ignores_context},
	{NULL, NULL},
};
