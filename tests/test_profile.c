/*
 * test_profile.c - the well-formedness the SOAP profile relies on, as a
 * table of malformed inputs every parser must refuse with
 * LAB_EMALFORMED, a message, a line and a column (and the line where it
 * is certain): comments, PIs and the XML declaration, references,
 * attributes, namespaces and the reserved prefixes, names, characters,
 * truncation, the one root.  Then the DTD policy: parser=libxml2 reads
 * a DTD, parser=insitu refuses it saying why; an entity other than the
 * five predefined is refused by both.  Every byte value at every
 * position of a text, accepted or refused as XML says.  And the inputs the fuzz target
 * (tests/fuzz/insitu.c) found, kept in tests/fuzz/regress/insitu/:
 * bad-* refused, ok-* parsed, by either parser.
 * Not tested here: limits (test_limits.c), external resources
 * (test_errors.c).
 */
#include <dirent.h>
#include <stdio.h>

#include "tests/util.h"

static void refused_at(const char *in, size_t len, unsigned long line)
{
	dom_doc *doc = NULL;
	lab_err err;

	lab_err_clear(&err);
	CHECK_EQ_INT(dom_parse(in, len, NULL, &doc, &err), LAB_EMALFORMED);
	CHECK(doc == NULL);
	CHECK_MSG(err.msg[0] != '\0', "no message");
	CHECK_MSG(err.line > 0 && err.col > 0, "no position: %lu:%lu (%s)",
		  err.line, err.col, err.msg);
	if (line != 0)
		CHECK_EQ_INT(err.line, line);
	dom_doc_free(doc);
}

static void malformed(void)
{
	static const struct {
		const char *in;
		unsigned long line; /* 0: the parsers differ; not checked */
	} cases[] = {
		/* comments, PIs, the declaration */
		{"<a>\n<!-- a -- b --></a>", 2},
		{"<a>\n<!-- a --->\n</a>", 0},
		{"<a><!-- never closed </a>", 1},
		{"<a>\n<?xml version=\"1.0\"?></a>", 2},
		{"<a>\n<?XmL x?></a>", 2},
		{"<a>\n<?p:q x?></a>", 2},
		{"<a><?pi never closed</a>", 1},
		{"<?xml?><a/>", 1},
		{"<?xml encoding=\"UTF-8\"?><a/>", 1},
		{"<?xml version=\"1.0\" standalone=\"maybe\"?><a/>", 1},
		{"<?xml version=\"1.0\"\n?><a/>\n<?xml version=\"1.0\"?>", 3},
		{" <?xml version=\"1.0\"?><a/>", 1},
		/* references */
		{"<a>\n&#x110000;</a>", 2},
		{"<a>\n&#xFFFE;</a>", 2},
		{"<a>\n&#1;</a>", 2},
		{"<a>\n&#;</a>", 2},
		{"<a>\n&#x;</a>", 2},
		{"<a>\n&#12a;</a>", 2},
		{"<a>\n&amp</a>", 2},
		{"<a>\n& x</a>", 2},
		{"<a>\n&nbsp;</a>", 2},
		{"<a b=\"&#0;\"/>", 1},
		{"<a b=\"&unknown;\"/>", 1},
		/* attributes */
		{"<a\nb=\"1\" b='2'/>", 2},
		{"<a b=1/>", 1},
		{"<a b/>", 1},
		{"<a b=\"1\"c=\"2\"/>", 1},
		{"<a b=\"1\" b:c=\"2\"/>", 1},
		{"<a xmlns:p=\"urn:1\" xmlns:p=\"urn:2\"/>", 1},
		{"<a xmlns=\"urn:1\" xmlns=\"urn:1\"/>", 1},
		/* namespaces and the reserved prefixes */
		{"<a xmlns:xmlns=\"urn:x\"/>", 1},
		{"<a xmlns:p=\"http://www.w3.org/XML/1998/namespace\"/>", 1},
		{"<a xmlns=\"http://www.w3.org/XML/1998/namespace\"/>", 1},
		{"<a xmlns:p=\"http://www.w3.org/2000/xmlns/\"/>", 1},
		{"<a xmlns=\"http://www.w3.org/2000/xmlns/\"/>", 1},
		{"<xmlns:a/>", 1},
		{"<a xmlns:p=\"urn:p\">\n<b/><p:c/></a>\n<p:d/>", 0},
		{"<a><b xmlns:p=\"urn:q\"/>\n<c p:x=\"\"/></a>", 2},
		/* names */
		{"<a:b:c xmlns:a=\"urn:a\"/>", 1},
		{"<:a/>", 1},
		{"<a:/>", 1},
		{"<a\xc3\x97/>", 1},
		{"<a>\n</ a>", 2},
		{"<a>\n</a b>", 2},
		/* characters */
		{"<a>\n\x0c</a>", 2},
		{"<a b=\"\x01\"/>", 1},
		{"<a>\n\xef\xbf\xbe</a>", 2},
		{"<a b=\"\xc3\"/>", 1},
		{"<a><!-- \xff --></a>", 1},
		{"<a><?p \xed\xa0\x80?></a>", 1},
		{"<a><![CDATA[\xf4\x90\x80\x80]]></a>", 1},
		/* truncation */
		{"<a", 1}, {"<a b", 1}, {"<a b=", 1}, {"<a b=\"", 1},
		{"<a><![CDATA[x", 1}, {"<a>&amp", 1}, {"<a></a", 1},
		/* the one root */
		{"x<a/>", 1},
		{"<![CDATA[x]]><a/>", 1},
		{"</a>", 1},
		{"<a/></a>", 1},
		{"<a/>\n<!DOCTYPE a>", 2},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t_context("case %zu: %s", i, cases[i].in);
		refused_at(cases[i].in, strlen(cases[i].in), cases[i].line);
	}
	t_context("a NUL byte");
	refused_at("<a>\0</a>", 8, 1);
}

static void dtd_policy(void)
{
	static const char dtd[] = "<!DOCTYPE a [<!ATTLIST a b CDATA \"1\">]>\n<a/>";
	dom_doc *doc = NULL;
	lab_err err;

	if (!t_reads_dtds()) {
		T_DTD_REFUSED(dtd, strlen(dtd), "an internal subset");
		lab_err_clear(&err);
		CHECK_EQ_INT(dom_parse("<a/>\n<!DOCTYPE a>", 16, NULL, &doc,
				       &err), LAB_EMALFORMED);
		CHECK_EQ_INT(err.line, 2);
		lab_err_clear(&err);
		CHECK_EQ_INT(dom_parse("<a>&nbsp;</a>", 13, NULL, &doc, &err),
			     LAB_EMALFORMED);
		CHECK_MSG(strstr(err.msg, "predefined") != NULL, "message: %s",
			  err.msg);
		return;
	}
	doc = T_PARSE(dtd);
	if (doc != NULL)
		CHECK_SERIALIZES(dom_doc_node(doc), "<a b=\"1\"/>\n");
	dom_doc_free(doc);
}

/*
 * Every byte value at every position of a text longer than two 16-byte
 * blocks: taken (CR read as LF) exactly when XML allows it alone in
 * text, wherever it falls in a block the insitu parser tests at once.
 */
static void text_bytes(void)
{
	enum { RUN = 38 };
	unsigned b;
	size_t k;

	for (b = 0; b < 256; b++) {
		int ok = b == '\t' || b == '\n' || b == '\r' ||
			 (b >= 0x20 && b < 0x80 && b != '&' && b != '<');

		for (k = 0; k < RUN; k++) {
			char in[RUN + 8], want[RUN];
			lab_buf got = LAB_BUF_INIT;
			dom_doc *doc = NULL;
			lab_err err;
			int rc;

			memcpy(in, "<a>", 3);
			memset(want, 'x', RUN);
			want[k] = (char)(b == '\r' ? '\n' : b);
			memset(in + 3, 'x', RUN);
			in[3 + k] = (char)b;
			memcpy(in + 3 + RUN, "</a>", 4);
			t_context("byte 0x%02x at %zu", b, k);
			lab_err_clear(&err);
			rc = dom_parse(in, RUN + 7, NULL, &doc, &err);
			if (!ok) {
				CHECK_EQ_INT(rc, LAB_EMALFORMED);
			} else if (CHECK_EQ_INT(rc, LAB_OK) &&
				   CHECK(dom_text_content(dom_doc_element(doc),
							  &got) == LAB_OK)) {
				CHECK_EQ_MEM(got.data, got.len, want, RUN);
			}
			lab_buf_free(&got);
			dom_doc_free(doc);
		}
	}
	t_context(NULL);
}

static void fuzz_regressions(void)
{
	char dir[1024], path[1400];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	t_data_path(dir, sizeof dir, "../fuzz/regress/insitu");
	d = opendir(dir);
	if (!CHECK_MSG(d != NULL, "cannot open %s", dir))
		return;
	while ((e = readdir(d)) != NULL) {
		lab_buf in = LAB_BUF_INIT;
		int bad = strncmp(e->d_name, "bad-", 4) == 0;

		if (!bad && strncmp(e->d_name, "ok-", 3) != 0)
			continue;
		t_context("%s", e->d_name);
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (CHECK(t_read_file(path, &in) == 0)) {
			if (bad)
				refused_at(in.data, in.len, 0);
			else
				dom_doc_free(T_PARSE_N(in.data, in.len));
		}
		lab_buf_free(&in);
		n++;
	}
	closedir(d);
	t_context(NULL);
	CHECK_MSG(n >= 4, "only %zu files in %s", n, dir);
}

const t_case tests_profile[] = {
	{"profile/malformed", malformed},
	{"profile/dtd_policy", dtd_policy},
	{"profile/text_bytes", text_bytes},
	{"profile/fuzz_regressions", fuzz_regressions},
	{NULL, NULL},
};
