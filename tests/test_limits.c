/*
 * test_limits.c - the bounds in dom_limits: each is refused with
 * LAB_EMALFORMED one step over and accepted at the bound itself (depth,
 * attributes per element, name bytes, text and value bytes, input
 * bytes), also for content an entity expands to again and again; the
 * default depth agrees with libxml2's own cap of 256, fragments are
 * held to the same limits, and entity expansion is bounded (a quadratic
 * blowup is refused; an undeclared entity is an error).
 * Not tested here: malformed input (test_errors.c).
 */
#include <stdio.h>

#include "tests/util.h"

/* depth nested <e> elements. */
static void nest(lab_buf *b, size_t depth)
{
	size_t i;

	for (i = 0; i < depth; i++)
		lab_buf_puts(b, "<e>");
	for (i = 0; i < depth; i++)
		lab_buf_puts(b, "</e>");
}

static int parses(const char *in, size_t len, const dom_limits *lim,
		  lab_err *err)
{
	dom_doc *doc = NULL;
	int rc;

	lab_err_clear(err);
	rc = dom_parse(in, len, lim, &doc, err);
	CHECK((rc == LAB_OK) == (doc != NULL));
	dom_doc_free(doc);
	return rc;
}

static void depth(void)
{
	static const struct {
		size_t limit, depth;
		int rc;
	} cases[] = {
		{0, 256, LAB_OK}, {0, 257, LAB_EMALFORMED},
		{0, 300, LAB_EMALFORMED}, {10, 10, LAB_OK},
		{10, 11, LAB_EMALFORMED}, {1, 1, LAB_OK}, {1, 2, LAB_EMALFORMED},
	};
	lab_err err;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		dom_limits lim = {.max_depth = cases[i].limit};
		lab_buf in = LAB_BUF_INIT;

		t_context("depth %zu, limit %zu", cases[i].depth,
			  cases[i].limit);
		nest(&in, cases[i].depth);
		if (CHECK(in.len == 7 * cases[i].depth))
			CHECK_EQ_INT(parses(in.data, in.len, &lim, &err),
				     cases[i].rc);
		lab_buf_free(&in);
	}
}

static void limits(void)
{
	static const struct {
		const char *name;
		dom_limits lim;
		const char *ok, *bad;
	} cases[] = {
		{"attributes", {.max_attrs = 3},
		 "<a xmlns:p=\"urn:p\" xmlns:q=\"urn:q\""
		 " x=\"\" p:x=\"\" q:x=\"\"/>",
		 "<a x=\"\" y=\"\"><b w=\"\" x=\"\" y=\"\" z=\"\"/></a>"},
		{"element name", {.max_name = 8},
		 "<abcdefgh/>", "<abcdefgh><abcdefghi/></abcdefgh>"},
		{"prefixed name", {.max_name = 8},
		 "<p:abcdef xmlns:p=\"urn:p\"/>",
		 "<p:abcdefg xmlns:p=\"urn:p\"/>"},
		{"attribute name", {.max_name = 8},
		 "<a abcdefgh=\"\" p:abcdef=\"\" xmlns:p=\"urn:p\"/>",
		 "<a abcdefghi=\"\"/>"},
		{"text", {.max_text = 10},
		 "<a>0123456789<b/>0123456789</a>", "<a>0123456789A</a>"},
		{"text with references", {.max_text = 10},
		 "<a>01234&amp;6789</a>", "<a>01234&#x41;67890</a>"},
		{"attribute value", {.max_text = 10},
		 "<a v=\"0123456789\" w=\"&lt;123456789\"/>",
		 "<a v=\"01234567890\"/>"},
		{"CDATA", {.max_text = 10},
		 "<a><![CDATA[0123456789]]></a>",
		 "<a><![CDATA[0123456789A]]></a>"},
		{"text split by a comment and a PI", {.max_text = 10},
		 "<a>12345<!---->123456<?p?>0123456789</a>",
		 "<a>12345<!---->0123456789A</a>"},
		/* libxml2 copies an entity's content after its first use. */
		{"depth through a repeated entity", {.max_depth = 4},
		 "<!DOCTYPE a [<!ENTITY e \"<x><y/></x>\">]><a>&e;<b>&e;</b></a>",
		 "<!DOCTYPE a [<!ENTITY e \"<x><y/></x>\">]>"
		 "<a>&e;<b><c>&e;</c></b></a>"},
		{"text through a repeated entity", {.max_text = 10},
		 "<!DOCTYPE a [<!ENTITY e \"12345\">]><a>&e;&e;</a>",
		 "<!DOCTYPE a [<!ENTITY e \"12345\">]><a>&e;&e;1</a>"},
		{"input", {.max_input = 12}, "<a>12345</a>", "<a>123456</a>"},
	};
	lab_err err;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t_context("%s", cases[i].name);
		if (!t_reads_dtds() && strstr(cases[i].ok, "<!DOCTYPE")) {
			T_DTD_REFUSED(cases[i].ok, strlen(cases[i].ok),
				      cases[i].name);
			continue;
		}
		CHECK_OK(parses(cases[i].ok, strlen(cases[i].ok),
				&cases[i].lim, &err), &err);
		CHECK_EQ_INT(parses(cases[i].bad, strlen(cases[i].bad),
				    &cases[i].lim, &err), LAB_EMALFORMED);
		CHECK(err.code == LAB_EMALFORMED && err.msg[0] != '\0');
		/* Without the limit, the refused input is fine. */
		CHECK_OK(parses(cases[i].bad, strlen(cases[i].bad), NULL, &err),
			 &err);
	}
}

static void fragment_limits(void)
{
	static const dom_limits lim = {.max_attrs = 1, .max_text = 4};
	static const char *const bad[] = {
		"<y a=\"\" b=\"\"/>", "<y>12345</y>", "12345",
	};
	dom_doc *doc = T_PARSE("<r/>");
	dom_node *r;
	lab_err err;
	size_t i;

	if (doc == NULL)
		return;
	r = dom_doc_element(doc);
	CHECK_OK(dom_parse_into(r, NULL, "<y a=\"\">1234</y>", 16, &lim, &err),
		 &err);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		t_context("%s", bad[i]);
		CHECK_EQ_INT(dom_parse_into(r, NULL, bad[i], strlen(bad[i]), &lim,
					    &err), LAB_EMALFORMED);
	}
	CHECK_SERIALIZES(r, "<r><y a=\"\">1234</y></r>");
	dom_doc_free(doc);
}

/* One entity of `size` bytes referenced `refs` times, in text or in an
 * attribute value. */
static void blowup(lab_buf *in, size_t size, size_t refs, int in_attr)
{
	size_t i;

	lab_buf_puts(in, "<!DOCTYPE a [<!ENTITY e \"");
	for (i = 0; i < size; i++)
		lab_buf_putc(in, 'x');
	lab_buf_puts(in, "\">]><a>");
	for (i = 0; i < refs; i++)
		lab_buf_puts(in, in_attr ? "<b v=\"&e;\"/>" : "&e;");
	lab_buf_puts(in, "</a>");
}

/* Bytes of text under the root, or of the v attributes on its children. */
static size_t expanded(dom_doc *doc, int in_attr)
{
	const dom_node *b = dom_first_child(dom_doc_element(doc));
	lab_buf text = LAB_BUF_INIT;
	size_t n = 0;

	if (!in_attr) {
		if (CHECK_EQ_INT(dom_text_content(dom_doc_node(doc), &text), LAB_OK))
			n = text.len;
		lab_buf_free(&text);
		return n;
	}
	for (; b != NULL; b = dom_next_sibling(b)) {
		const dom_attr *v = dom_attr_get_str(b, NULL, "v");

		n += v != NULL ? v->len : 0;
	}
	return n;
}

/*
 * A quadratic blowup (one large entity referenced many times) passes
 * libxml2's own amplification check; the replacement text referenced may
 * be at most ten times the input plus 1 MiB.  Under that, the same shape
 * is read in full by a parser that reads DTDs at all (as a one-entity
 * document shows), and refused by one that refuses every DTD as SOAP
 * asks: either way nothing is cut short.  An entity the
 * unread external subset might declare fails rather than vanishing from
 * the text.  Only exit codes are asserted: the parsers' messages differ.
 */
static void entity_expansion(void)
{
	static const struct {
		size_t size, refs;
		int in_attr, refused;
	} cases[] = {
		{1000, 500, 0, 0},     /* 500 KB from 6.5 KB */
		{1000, 500, 1, 0},
		{20000, 100, 0, 1},    /* 2 MB from 20 KB */
		{20000, 100, 1, 1},
		{10000, 10000, 0, 1},  /* 100 MB from 60 KB */
	};
	static const char *const undeclared[] = {
		"<!DOCTYPE a SYSTEM \"a.dtd\"><a>1&x;2</a>",
		"<!DOCTYPE a SYSTEM \"a.dtd\"><a v=\"&x;\"/>",
	};
	static const char control[] = "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>";
	lab_err err;
	int reads_dtds = parses(control, strlen(control), NULL, &err) == LAB_OK;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		lab_buf in = LAB_BUF_INIT;
		dom_doc *doc = NULL;
		size_t want = cases[i].size * cases[i].refs;
		int rc;

		t_context("%zu bytes x %zu %s", cases[i].size, cases[i].refs,
			  cases[i].in_attr ? "attributes" : "references");
		blowup(&in, cases[i].size, cases[i].refs, cases[i].in_attr);
		lab_err_clear(&err);
		rc = dom_parse(in.data, in.len, NULL, &doc, &err);
		if (cases[i].refused || !reads_dtds)
			CHECK_EQ_INT(rc, LAB_EMALFORMED);
		else if (CHECK_OK(rc, &err))
			CHECK_EQ_INT(expanded(doc, cases[i].in_attr), want);
		dom_doc_free(doc);
		lab_buf_free(&in);
	}
	for (i = 0; i < sizeof undeclared / sizeof undeclared[0]; i++) {
		t_context("%s", undeclared[i]);
		CHECK_EQ_INT(parses(undeclared[i], strlen(undeclared[i]), NULL,
				    &err), LAB_EMALFORMED);
	}
}

const t_case tests_limits[] = {
	{"limits/depth", depth},
	{"limits/each_limit", limits},
	{"limits/fragment", fragment_limits},
	{"limits/entity_expansion", entity_expansion},
	{NULL, NULL},
};
