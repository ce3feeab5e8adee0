/*
 * test_canon.c - content that stands for itself in a digest: after
 * dom_replace_parsed, exclusive C14N of the parent takes the kept bytes
 * instead of walking the nodes when the parser proved them canonical
 * (dom_canonical_content; parser=insitu with emit=source).
 *
 * Each case replaces a placeholder by a fragment, canonicalizes the
 * parent, and compares with the same parent in a document parsed whole
 * (no kept bytes, so a walk): the two must always agree.  Each case also
 * says whether the bytes are canonical, and the build must find exactly
 * that where it can answer: a "yes" too many is a digest over bytes that
 * are not the canonical form, a "no" too many an optimisation that
 * silently never runs.  Then the shortcut's limits: a PrefixList,
 * inclusive C14N, a left-out node inside, a change to the document.
 * Not tested here: the walk itself (test_c14n.c, against libxml2's
 * suite) and signatures over it (test_wss.c).
 */
#include <stdio.h>

#include "tests/util.h"
#include "wss/c14n.h"

/* Hosts, each with a placeholder <x/> as the only child of Body. */
/* Body renders e and w; u is in scope and not rendered. */
static const char renders_prefixes[] =
	"<e:Env xmlns:e=\"urn:e\" xmlns:w=\"urn:w\" xmlns:u=\"urn:u\">"
	"<e:Body w:Id=\"b\"><x/></e:Body></e:Env>";
/* A default namespace in scope that Body does not render. */
static const char default_above[] =
	"<Env xmlns=\"urn:d\" xmlns:e=\"urn:e\"><e:Body><x/></e:Body></Env>";
/* Body renders the default namespace. */
static const char renders_default[] = "<Body xmlns=\"urn:d\"><x/></Body>";
static const char *const hosts[] = {renders_prefixes, default_above,
				    renders_default};

typedef struct canon_case {
	int host;
	int canonical;
	const char *frag;
} canon_case;

static const canon_case cases[] = {
	/* Canonical. */
	{0, 1, "<a xmlns=\"urn:a\">t</a>"},
	{0, 1, "\n<m:a xmlns:m=\"urn:m\" x=\"1\" y=\"2\"><m:b>t&amp;&lt;&gt;"
	       "&#xD;\xc3\xa9</m:b></m:a>\n"},
	{0, 1, "<a b=\"&quot;&amp;&lt;&#x9;&#xA;&#xD;>'\"></a>"},
	{0, 1, "<a xmlns:p=\"urn:p\" xmlns:q=\"urn:q\" z=\"1\" p:b=\"3\" "
	       "q:a=\"2\"></a>"},
	{0, 1, "<e:x w:y=\"1\">t</e:x>"},
	{0, 1, "<m:a xmlns:m=\"urn:m\"><m:b xmlns:m=\"urn:n\"></m:b></m:a>"},
	{0, 1, "<a xml:lang=\"en\"></a>"},
	{0, 1, "<a xmlns=\"urn:a\"><b></b><c xmlns=\"\"></c></a>"},
	{0, 1, "text only &amp; more"},
	{1, 1, "<a xmlns=\"urn:d\"></a>"},
	{2, 1, "<a></a><b xmlns=\"\"></b>"},
	/* Forms exc-c14n never writes. */
	{0, 0, "<a xmlns=\"urn:a\"/>"},
	{0, 0, "<a  xmlns=\"urn:a\"></a>"},
	{0, 0, "<a xmlns=\"urn:a\" ></a>"},
	{0, 0, "<a\txmlns=\"urn:a\"></a>"},
	{0, 0, "<a xmlns =\"urn:a\"></a>"},
	{0, 0, "<a xmlns= \"urn:a\"></a>"},
	{0, 0, "<a xmlns='urn:a'></a>"},
	{0, 0, "<a xmlns=\"urn:a\"></a >"},
	{0, 0, "<a>x>y</a>"},
	{0, 0, "<a>&#65;</a>"},
	{0, 0, "<a>&apos;</a>"},
	{0, 0, "<a>&quot;</a>"},
	{0, 0, "<a>&#x9;</a>"},
	{0, 0, "<a>&#xd;</a>"},
	{0, 0, "<a b=\"&gt;\"></a>"},
	{0, 0, "<a b=\"&apos;\"></a>"},
	{0, 0, "<a>\r\n</a>"},
	{0, 0, "<a b=\"x\ty\"></a>"},
	{0, 0, "<a b=\"x\ny\"></a>"},
	{0, 0, "<a><!--c--></a>"},
	{0, 0, "<a><?p d?></a>"},
	{0, 0, "<a><![CDATA[x]]></a>"},
	/* Order. */
	{0, 0, "<a y=\"1\" x=\"2\"></a>"},
	{0, 0, "<a xmlns:p=\"urn:p\" p:b=\"3\" z=\"1\"></a>"},
	{0, 0, "<a b=\"1\" xmlns=\"urn:a\"></a>"},
	{0, 0, "<m:a xmlns:n=\"urn:n\" xmlns:m=\"urn:m\" n:x=\"1\"></m:a>"},
	{0, 0, "<m:a xmlns:m=\"urn:m\" xmlns=\"urn:a\"><b></b></m:a>"},
	/* Declarations exc-c14n would not render, or would add. */
	{0, 0, "<a xmlns=\"urn:a\" xmlns:z=\"urn:z\"></a>"},
	{0, 0, "<e:x xmlns:e=\"urn:e\"></e:x>"},
	{0, 0, "<m:a xmlns:m=\"urn:m\"><m:b xmlns:m=\"urn:m\"></m:b></m:a>"},
	{0, 0, "<u:x></u:x>"},
	{0, 0, "<a u:y=\"1\"></a>"},
	{0, 0, "<a xmlns=\"\"></a>"},
	{0, 0, "<a xmlns:xml=\"http://www.w3.org/XML/1998/namespace\"></a>"},
	{1, 0, "<a></a>"},
	{2, 0, "<a xmlns=\"urn:d\"></a>"},
};

static const wss_c14n_opts exc = {1, 0, NULL, 0, NULL};

/* The host with its placeholder replaced by frag through the buffer
 * dom_replace_parsed takes. */
static dom_doc *replaced(const char *host, const char *frag)
{
	dom_doc *doc = T_PARSE(host);
	lab_buf text = LAB_BUF_INIT;
	lab_err err;

	if (doc == NULL)
		return NULL;
	CHECK_OK(lab_buf_puts(&text, frag), NULL);
	if (!CHECK_OK(dom_replace_parsed(t_find(dom_doc_element(doc), "x"),
					 &text, 0, strlen(frag), NULL, &err),
		      &err)) {
		dom_doc_free(doc);
		return NULL;
	}
	return doc;
}

/* The host with frag written in place of the placeholder. */
static dom_doc *whole(const char *host, const char *frag)
{
	const char *x = strstr(host, "<x/>");
	lab_buf b = LAB_BUF_INIT;
	dom_doc *doc = NULL;

	if (CHECK_OK(lab_buf_printf(&b, "%.*s%s%s", (int)(x - host), host, frag,
				    x + 4),
		     NULL))
		doc = T_PARSE_N(b.data, b.len);
	lab_buf_free(&b);
	return doc;
}

/* C14N of the Body of both documents, under opts; exclude names an
 * element inside to leave out (NULL: none). */
static void same_c14n(dom_doc *doc, dom_doc *ref, const wss_c14n_opts *opts,
		      const char *exclude)
{
	lab_buf got = LAB_BUF_INIT, want = LAB_BUF_INIT;
	wss_c14n_opts o = *opts, r = *opts;
	dom_node *body = t_find(dom_doc_element(doc), "Body");
	dom_node *rbody = t_find(dom_doc_element(ref), "Body");
	lab_err err;

	if (exclude != NULL) {
		o.exclude = t_find(body, exclude);
		r.exclude = t_find(rbody, exclude);
	}
	if (CHECK_OK(wss_c14n_buf(body, &o, &got, &err), &err) &&
	    CHECK_OK(wss_c14n_buf(rbody, &r, &want, &err), &err))
		CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
	lab_buf_free(&got);
	lab_buf_free(&want);
}

/* Whether this build can answer at all. */
static int answers(void)
{
	return t_is_choice("parser", "insitu") && t_is_choice("emit", "source");
}

static void cases_agree(void)
{
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const canon_case *k = &cases[i];
		dom_doc *doc = replaced(hosts[k->host], k->frag);
		dom_doc *ref = whole(hosts[k->host], k->frag);
		size_t len;
		const char *bytes;

		t_context("host %d, fragment %s", k->host, k->frag);
		if (doc == NULL || ref == NULL)
			goto next;
		bytes = dom_canonical_content(
			t_find(dom_doc_element(doc), "Body"), &len);
		CHECK_EQ_INT(bytes != NULL, answers() && k->canonical);
		if (bytes != NULL)
			CHECK_EQ_MEM(bytes, len, k->frag, strlen(k->frag));
		same_c14n(doc, ref, &exc, NULL);
next:
		dom_doc_free(doc);
		dom_doc_free(ref);
	}
}

/*
 * Where the bytes, canonical as they are, are not what the walk would
 * write: a PrefixList renders more, inclusive C14N renders the scope, a
 * left-out node is in them.  Each must still come out as the walk's.
 */
static void shortcut_limits(void)
{
	static const char frag[] =
		"<a xmlns=\"urn:a\"><b xmlns:u=\"urn:u\" u:k=\"1\"></b>"
		"<c></c></a>";
	static const char *const listed[] = {"u", "#default"};
	const wss_c14n_opts with_list = {1, 0, listed, 2, NULL};
	const wss_c14n_opts inclusive = {0, 0, NULL, 0, NULL};
	const wss_c14n_opts comments = {1, 1, NULL, 0, NULL};
	dom_doc *doc = replaced(hosts[0], frag), *ref = whole(hosts[0], frag);
	size_t len;

	if (doc == NULL || ref == NULL)
		goto out;
	CHECK_EQ_INT(dom_canonical_content(t_find(dom_doc_element(doc),
						  "Body"), &len) != NULL,
		     answers());
	same_c14n(doc, ref, &with_list, NULL);
	same_c14n(doc, ref, &inclusive, NULL);
	same_c14n(doc, ref, &comments, NULL);
	same_c14n(doc, ref, &exc, "c");
	same_c14n(doc, ref, &exc, NULL);
out:
	dom_doc_free(doc);
	dom_doc_free(ref);
}

/* Any change to the document ends the bytes' standing, here one inside
 * the content and one outside it. */
static void change_ends_it(void)
{
	static const char frag[] = "<a xmlns=\"urn:a\"><b></b></a>";
	int kind;

	for (kind = 0; kind < 2; kind++) {
		dom_doc *doc = replaced(hosts[0], frag);
		dom_doc *ref = whole(hosts[0], frag);
		dom_node *body;
		size_t len;
		lab_err err;

		t_context("change %d", kind);
		if (doc == NULL || ref == NULL)
			goto next;
		body = t_find(dom_doc_element(doc), "Body");
		CHECK_OK(dom_attr_set(kind ? dom_doc_element(doc)
					   : t_find(body, "b"),
				      NULL, "n", "v", 1, &err),
			 &err);
		CHECK_OK(dom_attr_set(kind ? dom_doc_element(ref)
					   : t_find(dom_doc_element(ref), "b"),
				      NULL, "n", "v", 1, &err),
			 &err);
		CHECK(dom_canonical_content(body, &len) == NULL);
		same_c14n(doc, ref, &exc, NULL);
next:
		dom_doc_free(doc);
		dom_doc_free(ref);
	}
}

const t_case tests_canon[] = {
	{"canon/cases_agree", cases_agree},
	{"canon/shortcut_limits", shortcut_limits},
	{"canon/change_ends_it", change_ends_it},
	{NULL, NULL},
};
