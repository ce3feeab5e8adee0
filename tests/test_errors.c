/*
 * test_errors.c - inputs dom_parse must refuse, each with LAB_EMALFORMED,
 * no document, a message and a line (checked where it is certain), and
 * the things it must never do: fetch an external entity (refused, and a
 * marker file's content never reaches the output), load an external DTD
 * subset (ignored: its attribute default does not appear), or expand
 * billion laughs.
 * Not tested here: configurable limits (test_limits.c), fragments
 * (test_fragment.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/util.h"

/* Parses what must be refused; returns 1 when it was, as required. */
static int refused(const char *in, size_t len, lab_err *err)
{
	dom_doc *doc = NULL;
	int ok;

	lab_err_clear(err);
	ok = CHECK_EQ_INT(dom_parse(in, len, NULL, &doc, err), LAB_EMALFORMED);
	ok &= CHECK(doc == NULL);
	ok &= CHECK_EQ_INT(err->code, LAB_EMALFORMED);
	ok &= CHECK_MSG(err->msg[0] != '\0', "no message");
	ok &= CHECK_MSG(err->line > 0, "no line (%s)", err->msg);
	dom_doc_free(doc);
	return ok;
}

static void malformed(void)
{
	static const struct {
		const char *name, *in;
		unsigned long line; /* 0: not certain enough to check */
	} cases[] = {
		{"truncated", "<a>\n<b>\n</b>\n", 0},
		{"truncated in a tag", "<a>\n<b c=\"x", 0},
		{"mismatched tags", "<a>\n<b>\n</c>\n</a>\n", 3},
		{"invalid UTF-8", "<a>\n\xff\xfe</a>", 2},
		{"overlong UTF-8", "<a>\n\n\xc0\xaf</a>", 3},
		{"UTF-8 surrogate", "<a>\xed\xa0\x80</a>", 1},
		{"undeclared element prefix", "<a>\n<p:b/>\n</a>", 2},
		{"undeclared attribute prefix", "<a>\n<b p:x=\"1\"/></a>", 2},
		{"duplicate attribute", "<a>\n<b x=\"1\" x=\"2\"/></a>", 2},
		{"duplicate after namespace resolution",
		 "<a xmlns:a=\"urn:u\" xmlns:b=\"urn:u\">\n"
		 "<c a:x=\"1\" b:x=\"2\"/></a>", 2},
		{"empty prefixed namespace", "<a>\n<p:b xmlns:p=\"\"/></a>", 2},
		{"xml prefix rebound", "<a xmlns:xml=\"urn:x\"/>", 1},
		{"empty input", "", 1},
		{"only whitespace", "  \n ", 0},
		{"only a declaration", "<?xml version=\"1.0\"?>\n", 0},
		{"only a comment", "<!-- no root -->", 0},
		{"text after the root", "<a/>\ntext", 2},
		{"second root", "<a/>\n\n<b/>", 3},
		{"undefined entity", "<a>\n&nope;</a>", 2},
		{"]]> in text", "<a>]]></a>", 1},
		{"NUL character reference", "<a>&#0;</a>", 1},
		{"surrogate character reference", "<a>&#xD800;</a>", 1},
		{"control character", "<a>\x01</a>", 1},
		{"< in an attribute", "<a b=\"<\"/>", 1},
		{"bad name", "<1a/>", 1},
		{"late XML declaration", "<a/>\n<?xml version=\"1.0\"?>", 2},
		{"unbalanced entity",
		 "<!DOCTYPE a [<!ENTITY e \"<b>\">]><a>&e;</a>", 1},
	};
	lab_err err;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t_context("%s", cases[i].name);
		if (refused(cases[i].in, strlen(cases[i].in), &err) &&
		    cases[i].line != 0)
			CHECK_EQ_INT(err.line, cases[i].line);
	}
}

/* A file in /tmp holding a marker string, removed by the caller. */
static int marker_file(char *path, size_t cap, const char *suffix,
		       const char *content)
{
	FILE *f;

	snprintf(path, cap, "/tmp/domlab-test-%ld%s", (long)getpid(), suffix);
	f = fopen(path, "w");
	if (f == NULL)
		return FAIL("cannot write %s", path);
	fputs(content, f);
	return CHECK(fclose(f) == 0);
}

#define MARKER "DOMLAB-SECRET-MARKER"

/* Either refused with a message about it, or (never) parsed without it. */
static void no_external(const char *in)
{
	dom_doc *doc = NULL;
	lab_buf out = LAB_BUF_INIT;
	lab_err err;
	int rc;

	if (!t_reads_dtds()) {
		T_DTD_REFUSED(in, strlen(in), "external entity");
		return;
	}
	lab_err_clear(&err);
	rc = dom_parse(in, strlen(in), NULL, &doc, &err);
	CHECK_EQ_INT(rc, LAB_EMALFORMED);
	CHECK_MSG(strstr(err.msg, "external") != NULL, "message: %s", err.msg);
	CHECK(strstr(err.msg, MARKER) == NULL);
	if (doc != NULL && T_SERIALIZE(dom_doc_node(doc), &out))
		CHECK(strstr(out.data, MARKER) == NULL);
	lab_buf_free(&out);
	dom_doc_free(doc);
}

static void external_entities(void)
{
	char text[256], dtd[256], in[1024];
	lab_buf out = LAB_BUF_INIT;
	dom_doc *doc;

	if (!marker_file(text, sizeof text, ".txt", MARKER) ||
	    !marker_file(dtd, sizeof dtd, ".dtd",
			 "<!ENTITY leak \"" MARKER "\">"))
		goto out;
	t_context("/etc/passwd");
	no_external("<!DOCTYPE a [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
		    "\n<a>&e;</a>");
	t_context("file URL");
	snprintf(in, sizeof in, "<!DOCTYPE a [<!ENTITY e SYSTEM \"file://%s\">]>"
		 "<a>&e;</a>", text);
	no_external(in);
	t_context("plain path, public id");
	snprintf(in, sizeof in, "<!DOCTYPE a [<!ENTITY e PUBLIC \"-//x//y\""
		 " \"%s\">]><a><b>&e;</b></a>", text);
	no_external(in);
	t_context("parameter entity");
	snprintf(in, sizeof in, "<!DOCTYPE a [<!ENTITY %% p SYSTEM \"%s\">"
		 "%%p;]><a>&leak;</a>", dtd);
	no_external(in);
	/* Declared but never referenced: nothing to fetch, nothing shown. */
	t_context("unreferenced");
	snprintf(in, sizeof in, "<!DOCTYPE a [<!ENTITY e SYSTEM \"%s\">]><a/>",
		 text);
	if (!t_reads_dtds()) {
		T_DTD_REFUSED(in, strlen(in), "unreferenced external entity");
		goto out;
	}
	doc = T_PARSE(in);
	if (doc != NULL && T_SERIALIZE(dom_doc_node(doc), &out))
		CHECK_EQ_STR(out.data, "<a/>\n");
	dom_doc_free(doc);
out:
	lab_buf_free(&out);
	remove(text);
	remove(dtd);
}

/*
 * data/ext/defaults.dtd declares a default attribute for <doc>.  The
 * same declaration in the internal subset adds it (so the file would
 * matter if loaded); referenced as the external subset it must not.
 */
static void external_dtd(void)
{
	char rel[512], abs[PATH_MAX], in[PATH_MAX + 512];
	lab_buf dtd = LAB_BUF_INIT;
	dom_doc *doc;

	t_data_path(rel, sizeof rel, "ext/defaults.dtd");
	if (!CHECK_MSG(t_read_file(rel, &dtd) == 0, "cannot read %s", rel) ||
	    !CHECK(strstr(dtd.data, "injected") != NULL))
		goto out;
	snprintf(in, sizeof in, "<!DOCTYPE doc [%s]><doc/>", dtd.data);
	if (!t_reads_dtds()) {
		T_DTD_REFUSED(in, strlen(in), "internal subset");
		snprintf(in, sizeof in, "<!DOCTYPE doc SYSTEM \"%s\"><doc/>",
			 rel);
		T_DTD_REFUSED(in, strlen(in), "external subset");
		goto out;
	}
	doc = T_PARSE(in);
	if (doc != NULL)
		CHECK_SERIALIZES(dom_doc_node(doc), "<doc injected=\"yes\"/>\n");
	dom_doc_free(doc);
	snprintf(in, sizeof in, "<!DOCTYPE doc SYSTEM \"%s\"><doc/>", rel);
	doc = T_PARSE(in);
	if (doc != NULL)
		CHECK_SERIALIZES(dom_doc_node(doc), "<doc/>\n");
	dom_doc_free(doc);
	if (CHECK(realpath(rel, abs) != NULL)) {
		snprintf(in, sizeof in, "<!DOCTYPE doc PUBLIC \"-//x//y\" "
			 "\"file://%s\">\n<doc>text</doc>", abs);
		doc = T_PARSE(in);
		if (doc != NULL)
			CHECK_SERIALIZES(dom_doc_node(doc), "<doc>text</doc>\n");
		dom_doc_free(doc);
	}
out:
	lab_buf_free(&dtd);
}

/*
 * Attribute defaults from the internal subset whose names are not
 * QNames.  libxml2 refuses them in a tag; on an element written inside
 * an entity it once let "kin:" through, and the tree serialized to a
 * document that did not parse again (found by fuzz/parse).
 */
static void dtd_default_names(void)
{
	static const char *const in[] = {
		"<!DOCTYPE doc [<!ENTITY bold \"<b/>\">"
		"<!ATTLIST b kin: CDATA #FIXED \"strong\">]><doc>&bold;</doc>",
		"<!DOCTYPE doc [<!ATTLIST doc :a CDATA \"x\">]><doc/>",
	};
	size_t i;

	for (i = 0; i < sizeof in / sizeof in[0]; i++) {
		dom_doc *doc = NULL;
		lab_err err;
		int rc;

		t_context("%zu", i);
		if (!t_reads_dtds()) {
			T_DTD_REFUSED(in[i], strlen(in[i]), "default attribute");
			continue;
		}
		lab_err_clear(&err);
		rc = dom_parse(in[i], strlen(in[i]), NULL, &doc, &err);
		CHECK_EQ_INT(rc, LAB_EMALFORMED);
		CHECK(doc == NULL);
		CHECK_MSG(strstr(err.msg, "namespace-well-formed") != NULL,
			  "message: %s", err.msg);
		dom_doc_free(doc);
	}
}

/* levels entities, each `fan` references to the one below, the root
 * referencing the last: 3 * fan^(levels - 1) bytes of "lol". */
static void laughs(lab_buf *in, int levels, int fan)
{
	int i, j;

	lab_buf_puts(in, "<!DOCTYPE lolz [\n<!ENTITY lol0 \"lol\">\n");
	for (i = 1; i < levels; i++) {
		lab_buf_printf(in, "<!ENTITY lol%d \"", i);
		for (j = 0; j < fan; j++)
			lab_buf_printf(in, "&lol%d;", i - 1);
		lab_buf_puts(in, "\">\n");
	}
	lab_buf_printf(in, "]>\n<lolz>&lol%d;</lolz>\n", levels - 1);
}

/*
 * A small expansion is fine (so the construction is sound); a billion
 * laughs is refused.  Small means under libxml2's amplification
 * heuristic, which its tree builder (build=built) applies more eagerly
 * than its SAX path: 3 levels of 10 already trip it there.
 */
static void billion_laughs(void)
{
	lab_buf in = LAB_BUF_INIT, text = LAB_BUF_INIT;
	lab_err err;
	dom_doc *doc;

	laughs(&in, 3, 9);
	if (!t_reads_dtds()) {
		T_DTD_REFUSED(in.data, in.len, "entity expansion");
		in.len = 0;
		laughs(&in, 10, 10);
		T_DTD_REFUSED(in.data, in.len, "billion laughs");
		goto out;
	}
	doc = T_PARSE_N(in.data, in.len);
	if (doc != NULL &&
	    CHECK_EQ_INT(dom_text_content(dom_doc_node(doc), &text), LAB_OK))
		CHECK_EQ_INT(text.len, 3 * 9 * 9);
	dom_doc_free(doc);
	in.len = 0;
	laughs(&in, 10, 10);
	refused(in.data, in.len, &err);
out:
	lab_buf_free(&text);
	lab_buf_free(&in);
}

/* The parse of in[0..len) whole (eager 0) or as a fragment under a new
 * document's node, which no build choice defers (eager 1): its result,
 * error in *err, serialization in *out; *parsed: whether the parse call
 * itself succeeded (content it deferred is built by the serialization). */
static int parse_as(const char *in, size_t len, const dom_limits *lim,
		    int eager, lab_buf *out, lab_err *err, int *parsed)
{
	dom_doc *doc = NULL;
	int rc;

	lab_err_clear(err);
	rc = eager ? dom_doc_new(&doc, err) : LAB_OK;
	if (rc == LAB_OK)
		rc = eager ? dom_parse_into(dom_doc_node(doc), NULL, in, len, lim,
					    err)
			   : dom_parse(in, len, lim, &doc, err);
	*parsed = rc == LAB_OK;
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), out, err);
	dom_doc_free(doc);
	return rc;
}

/*
 * in[0..len) parsed with deferral and built at once (parse_as): with ok,
 * both accept it and write the same bytes; else both refuse it at parse
 * time, under parser=insitu with the same message, line and column.
 */
static void agree(const char *in, size_t len, const dom_limits *lim, int ok)
{
	lab_buf out[2] = {LAB_BUF_INIT, LAB_BUF_INIT};
	lab_err err[2];
	int rc[2], parsed[2], k;

	for (k = 0; k < 2; k++)
		rc[k] = parse_as(in, len, lim, k, &out[k], &err[k], &parsed[k]);
	if (ok) {
		if (CHECK_OK(rc[0], &err[0]) && CHECK_OK(rc[1], &err[1]))
			CHECK_EQ_MEM(out[0].data, out[0].len, out[1].data,
				     out[1].len);
	} else if (CHECK_EQ_INT(rc[0], LAB_EMALFORMED) &&
		   CHECK_EQ_INT(rc[1], LAB_EMALFORMED) &&
		   /* Deferred content is checked by the parse: a hop
		    * passes on what it never builds. */
		   CHECK_MSG(!parsed[0] && !parsed[1],
			     "refused only when built (%s)", err[0].msg) &&
		   t_is_choice("parser", "insitu")) {
		CHECK_EQ_STR(err[0].msg, err[1].msg);
		CHECK_EQ_INT(err[0].line, err[1].line);
		CHECK_EQ_INT(err[0].col, err[1].col);
	}
	lab_buf_free(&out[0]);
	lab_buf_free(&out[1]);
}

/* Elements after a case, so that its tags are more than 128 bytes from
 * the input's end (check/records.c's blocks). */
#define TEN "<f>0123456789</f>"
#define FILL TEN TEN TEN TEN TEN TEN TEN TEN TEN "<f/>"
/* And less than 128 but more than 64: values a 64-byte block at a time. */
#define FILL64 TEN TEN TEN TEN "<f/>"

/*
 * Content three levels down -- a header block's or a Body child's, which
 * build=deferred reads with a check pass that builds nothing and leaves
 * whatever it is not sure of to the building pass -- is refused with the
 * building pass's code, message, line and column, as the same bytes are
 * in a fragment dom_parse_into parses, which defers nothing, both by the
 * parse call, not later when deferred content is built; and content
 * that is well-formed serializes as the fragment does.  Limits are
 * tight, so that each case breaks its own.  Under parser=libxml2 a fragment's errors are worded
 * by another path: there, only that both refuse.
 */
static void deferred_content(void)
{
	static const char host[] =
		"<r xmlns:m=\"urn:u\" xmlns:n=\"urn:u\">\n<h>\n<d>\n%s%s\n</d>\n"
		"</h>\n</r>";
	static const struct {
		const char *name, *in;
		int ok;
	} cases[] = {
		{"mismatched tags", "<b>\n</c>", 0},
		{"end tag not closed", "<b></b </d>", 0},
		{"unclosed element", "<b>", 0},
		{"invalid UTF-8", "<b>\xff</b>", 0},
		{"invalid UTF-8 in a value", "<b c=\"\xc0\xaf\"/>", 0},
		{"undeclared element prefix", "<p:b/>", 0},
		{"undeclared attribute prefix", "<b p:x=\"1\"/>", 0},
		{"xmlns prefix on an element", "<xmlns:b/>", 0},
		{"duplicate attribute", "<b x=\"1\" x=\"2\"/>", 0},
		{"duplicate attribute, spaced", "<b x=\"1\" x = '2'/>", 0},
		{"duplicate after namespace resolution",
		 "<b m:x=\"1\" n:x=\"2\"/>", 0},
		{"duplicate in a repeated tag",
		 "<b x=\"1\" y=\"2\"/><b x=\"1\" y=\"2\" x=\"3\"/>", 0},
		{"no space between attributes", "<b x=\"1\"y=\"2\"/>", 0},
		{"undefined entity", "<b>&nope;</b>", 0},
		{"]]> in text", "<b>]]></b>", 0},
		{"control character", "<b>\x01</b>", 0},
		{"< in a value", "<b c=\"<\"/>", 0},
		{"NUL reference in a value", "<b c=\"&#0;\"/>", 0},
		{"bad name", "<1b/>", 0},
		{"too many attributes", "<b a=\"1\" c=\"2\" e=\"3\"/>", 0},
		{"name over the limit", "<bbbbbbbbbbbbbbbbbbbbb/>", 0},
		{"text over the limit", "<b>0123456789012345678901</b>", 0},
		{"value over the limit",
		 "<b c=\"0123456789012345678901\"/>", 0},
		{"references", "<b c=\"&lt;&amp;&quot;&#x41;\">&gt;&#10;</b>", 1},
		{"single quotes, spaces", "<b  c = 'x\"' >t</b >", 1},
		{"a carriage return", "<b c=\"\r\">\r\n</b>", 1},
		{"UTF-8", "<b c=\"\xc3\xa9\">\xe2\x82\xac</b>", 1},
		{"one local name in two namespaces",
		 "<b x=\"1\" m:x=\"2\"/><m:b m:y=\"1\" y=\"2\"/>", 1},
		{"'>' in text, an empty element", "<b>a>b</b><c></c>", 1},
		{"a repeated tag, then another", "<b x=\"1\" y=\"2\"/>"
		 "<b x=\"1\" y=\"2\"/><b x=\"1\"/><b y=\"2\" x=\"1\"/>", 1},
		{"a comment, CDATA and a PI",
		 "<b><!--c--><![CDATA[<]]><?p d?></b>", 1},
		{"a declaration", "<b xmlns:q=\"urn:q\"><q:c/></b>", 1},
		/* A repeated tag is read against the attribute names it had the
		 * time before (check/names.c's shape), its values from bits
		 * found for 128 bytes at once: what follows gives each case
		 * those bytes before the end of the input.  The names are
		 * chosen not to share the memo's slots (check/check.h's
		 * slot_at). */
		{"a prefix bound again between two tags",
		 "<b xmlns:o=\"urn:o\"><c m:x=\"1\" o:x=\"2\"/><e xmlns:o="
		 "\"urn:u\"><c m:x=\"1\" o:x=\"2\"/></e></b>" FILL, 0},
		{"a duplicate after a repeated tag",
		 "<g k=\"1\"/><g k=\"1\"/><g k=\"1\" k=\"2\"/>" FILL, 0},
		{"one attribute fewer, then one more than the tag before",
		 "<g k=\"1\" v=\"2\"/><g k=\"1\"/><g k=\"1\" v=\"2\" "
		 "z=\"3\"/>" FILL, 0},
		{"a value over the limit in a repeated tag",
		 "<g k=\"1\" v=\"2\"/><g k=\"1\" v=\"012345678901234567891\"/>"
		 FILL, 0},
		{"< in a value of a repeated tag",
		 "<g k=\"1\" v=\"2\"/><g k=\"1\" v=\"a<b\"/>" FILL, 0},
		{"a bad reference in a value of a repeated tag",
		 "<g k=\"1\" v=\"2\"/><g k=\"1\" v=\"&#0;\"/>" FILL, 0},
		{"invalid UTF-8 in a value of a repeated tag",
		 "<g k=\"1\" v=\"2\"/><g k=\"1\" v=\"\xc0\xaf\"/>" FILL, 0},
		{"a control character in a value of a repeated tag",
		 "<g k=\"1\" v=\"2\"/><g k=\"1\" v=\"\x01\"/>" FILL, 0},
		{"a control character where a repeated tag's value would end",
		 "<g k=\"1\" v=\"2\"/><g k=\"\x01 v=\"2\"/>" FILL, 0},
		{"< in a value of a repeated tag, 64 bytes a block",
		 "<g k=\"1\" v=\"2\"/><g k=\"1\" v=\"a<b\"/>" FILL64, 0},
		{"a control character where a value would end, 64 bytes a block",
		 "<g k=\"1\" v=\"2\"/><g k=\"\x01 v=\"2\"/>" FILL64, 0},
		{"a value left open in a repeated tag",
		 "<g k=\"1\" v=\"2\"/><g k=\"1\" v=\"2/>" FILL, 0},
		{"values of a repeated tag, plain and not",
		 "<g k=\"1\" v=\"2\"/><g k=\"01234567890123456789\" v=\"'\"/>"
		 "<g k=\"&lt;\" v=\"\xc3\xa9\t\"/><g k=\"\" v=\"0123456789"
		 "0123456789\"/><g k=\"1\" v=\"2\"/>" FILL, 1},
		{"values of a repeated tag, 64 bytes a block",
		 "<g k=\"1\" v=\"2\"/><g k=\"01234567890123456789\" v=\"'\"/>"
		 FILL64, 1},
		/* An element read whole, the second of its name, is the
		 * record its next siblings are read against
		 * (check/records.c's record): its fixed bytes compared, its values and texts
		 * read as plain runs.  Each case below starts with two (REC)
		 * and breaks a rule in a sibling. */
#define REC "<g k=\"0\"><f>w</f></g><g k=\"1\"><f>x</f></g>"
#define F5 "<f>x</f><f>y</f><f>z</f><f>x</f><f>y</f>"
#define MANY "<g>" F5 F5 F5 F5 F5 F5 F5 F5 F5 F5 "</g>"
		{"a repeated element, its values and texts changed",
		 REC "<g k=\"22\"><f>yy</f></g><g k=\"\"><f>z</f></g>", 1},
		{"a repeated element with an empty text",
		 REC "<g k=\"1\"><f></f></g>", 1},
		{"a repeated element of more pieces than a record holds",
		 MANY MANY MANY, 1},
		{"a repeated element with '>' in its text",
		 REC "<g k=\"1\"><f>a>b</f></g>", 1},
		{"a repeated element with a tab and quotes",
		 REC "<g k=\"\t\"><f>x</f></g><g k=\"'\"><f>'\"</f></g>", 1},
		{"a repeated element in single quotes",
		 "<g k='1'><f>x</f></g><g k='2'><f>y</f></g>", 1},
		{"a repeated element with references, a CR and UTF-8",
		 REC "<g k=\"&lt;\"><f>&amp;\r\xc3\xa9</f></g>", 1},
		{"a repeated element one level deeper",
		 REC "<e>" REC "</e>" REC, 1},
		{"siblings of two kinds taking turns",
		 REC "<h v=\"1\">a</h><h v=\"2\">b</h>" REC "<h v=\"3\">c</h>"
		 REC "<h v=\"\">d</h>", 1},
		{"< in the text of a repeated element of the second kind",
		 REC "<e><f>1</f></e>" REC "<e><f>2</f></e>" REC
		 "<e><f>a<b</f></e>", 0},
		{"< in the text of a repeated element",
		 REC "<g k=\"1\"><f>a<b</f></g>", 0},
		{"text over the limit in a repeated element",
		 REC "<g k=\"1\"><f>012345678901234567890</f></g>", 0},
		{"a value over the limit in a repeated element",
		 REC "<g k=\"012345678901234567890\"><f>x</f></g>", 0},
		{"]]> in the text of a repeated element",
		 REC "<g k=\"1\"><f>]]></f></g>", 0},
		{"a control character in the text of a repeated element",
		 REC "<g k=\"1\"><f>\x01</f></g>", 0},
		{"a control character in a value of a repeated element",
		 REC "<g k=\"\x01\"><f>x</f></g>", 0},
		{"a bad reference in the text of a repeated element",
		 REC "<g k=\"1\"><f>&#0;</f></g>", 0},
		{"invalid UTF-8 in the text of a repeated element",
		 REC "<g k=\"1\"><f>\xc0\xaf</f></g>", 0},
		{"< in a value of a repeated element",
		 REC "<g k=\"<\"><f>x</f></g>", 0},
		{"a duplicate in a repeated element",
		 REC "<g k=\"1\" k=\"2\"><f>x</f></g>", 0},
		{"a repeated element left open", REC "<g k=\"1\"><f>x</f>", 0},
		{"a repeated element with another end tag",
		 REC "<g k=\"1\"><f>x</f></h>", 0},
		/* Siblings of six kinds that share their first bytes, taking
		 * turns: more kinds than a pass holds records, each read
		 * against the others' records in vain (which drops them) and
		 * taken or refused as the others are recent. */
#define SIX "<g k=\"1\"><f>x</f><c0/></g><g k=\"2\"><f>y</f><c1/></g>" \
	"<g k=\"3\"><f>z</f><c2/></g><g k=\"4\"><f>x</f><c3/></g>" \
	"<g k=\"5\"><f>y</f><c4/></g><g k=\"6\"><f>z</f><c5/></g>"
		{"siblings of six kinds sharing their first bytes",
		 SIX SIX SIX SIX SIX SIX, 1},
		{"< in a text after siblings of six kinds",
		 SIX SIX SIX SIX SIX SIX "<g k=\"1\"><f>a<b</f><c0/></g>", 0},
		{"a duplicate after siblings of six kinds",
		 SIX SIX SIX SIX SIX SIX "<g k=\"1\" k=\"2\"><f>x</f><c0/></g>",
		 0},
#undef SIX
#undef MANY
#undef F5
#undef REC
	};
	dom_limits lim;
	size_t i;

	memset(&lim, 0, sizeof lim);
	lim.max_attrs = 2;
	lim.max_name = 20;
	lim.max_text = 20;
	/* Each case twice: as it is, and with FILL after it, so that the
	 * repeated elements are also read from a window of classified
	 * bytes (check/records.c's record_read_window), which needs 64 of
	 * them. */
	for (i = 0; i < 2 * (sizeof cases / sizeof cases[0]); i++) {
		lab_buf in = LAB_BUF_INIT;
		size_t c = i / 2;

		t_context("%s%s", cases[c].name, i % 2 ? ", then FILL" : "");
		if (CHECK_OK(lab_buf_printf(&in, host, cases[c].in,
					    i % 2 ? FILL : ""),
			     NULL))
			agree(in.data, in.len, &lim, cases[c].ok);
		lab_buf_free(&in);
	}
}

/* NUL-terminated n bytes of c, for the siblings below. */
static const char *run_of(char c, size_t n)
{
	static char b[1600];

	memset(b, c, n);
	b[n] = '\0';
	return b;
}

/*
 * A payload's repeated elements are read from a window of the text's
 * classified bytes where they can be (check/records.c's
 * record_read_window): siblings whose value and text lengths step
 * through every offset in a 64-byte block and past a window (1 KB), so
 * that runs start and end anywhere in one, cross blocks and run off its
 * end, read as a direct parse reads them.  Then '<' in each in turn, in
 * its value and in its text, refused with the building pass's message,
 * line and column.
 */
static void record_windows(void)
{
	enum { SIBLINGS = 48 };
	lab_buf in = LAB_BUF_INIT;
	size_t value_at[SIBLINGS], text_at[SIBLINGS], i, k;

	CHECK_OK(lab_buf_puts(&in, "<r>\n<h>\n<d>\n"), NULL);
	for (i = 0; i < SIBLINGS; i++) {
		size_t nv = i * 37 % 1500, nt = 1 + i * 53 % 1300;

		CHECK_OK(lab_buf_puts(&in, "<g k=\""), NULL);
		value_at[i] = in.len;
		CHECK_OK(lab_buf_printf(&in, "%s\"><f>", run_of('v', nv)), NULL);
		text_at[i] = in.len;
		CHECK_OK(lab_buf_printf(&in, "%s</f></g>\n", run_of('t', nt)),
			 NULL);
	}
	CHECK_OK(lab_buf_puts(&in, "</d>\n</h>\n</r>"), NULL);
	for (k = 0; k <= 2 * SIBLINGS; k++) {
		/* k == 0: as it is; then '<' in sibling (k - 1) / 2's value
		 * or text, where its run starts (an empty value's quote). */
		size_t at = k == 0 ? 0
				   : (k % 2 ? value_at : text_at)[(k - 1) / 2];
		char was = in.data[at];

		if (k > 0) {
			t_context("'<' in the %s of sibling %zu",
				  k % 2 ? "value" : "text", (k - 1) / 2);
			in.data[at] = '<';
		}
		agree(in.data, in.len, NULL, k == 0);
		in.data[at] = was;
	}
	t_context(NULL);
	lab_buf_free(&in);
}

/*
 * The record cache's policy (check/records.c's dom__check_record_take
 * and record_match): 120 siblings each unlike the others but for their
 * first bytes (an attribute's name; a child element's would be taken as
 * records of its own, one depth down, which evict theirs), which use up
 * the takes the pass may make at their depth, then 40 of one kind that
 * share those first bytes: each is read against the records held in vain
 * until they are dropped.  Read as a direct parse reads them; then a '<'
 * in the last one's text, refused with the same message, line and
 * column.
 */
static void record_misses(void)
{
	lab_buf in = LAB_BUF_INIT;
	size_t i, last = 0;
	int bad;

	CHECK_OK(lab_buf_puts(&in, "<r>\n<h>\n<d>\n"), NULL);
	for (i = 0; i < 120; i++)
		CHECK_OK(lab_buf_printf(&in, "<g k=\"%zu\" f%zu=\"x\">y</g>\n",
					i, i),
			 NULL);
	for (i = 0; i < 40; i++) {
		CHECK_OK(lab_buf_printf(&in, "<g k=\"%zu\"><e>", i), NULL);
		last = in.len;
		CHECK_OK(lab_buf_puts(&in, "y</e></g>\n"), NULL);
	}
	CHECK_OK(lab_buf_puts(&in, "</d>\n</h>\n</r>"), NULL);
	for (bad = 0; bad < 2; bad++) {
		t_context("%s", bad ? "'<' in the last text" : "as it is");
		in.data[last] = bad ? '<' : 'y';
		agree(in.data, in.len, NULL, !bad);
	}
	t_context(NULL);
	lab_buf_free(&in);
}

/*
 * A record (check/records.c) is read only at the depth it was taken at: read
 * deeper, its own nesting would pass the depth limit unseen.  The same
 * element, repeated three and four levels deeper than the first, in
 * content three levels down: at the limit of 8, then one past it,
 * refused by the parse.
 */
static void record_depth(void)
{
#define REC "<g k=\"1\"><f>x</f></g>"
	static const char *const in[] = {
		"<r><h><d>" REC "<e><e><e>" REC "</e></e></e></d></h></r>",
		"<r><h><d>" REC "<e><e><e><e>" REC "</e></e></e></e></d></h></r>",
	};
#undef REC
	dom_limits lim;
	dom_doc *doc = NULL;
	lab_err err;

	memset(&lim, 0, sizeof lim);
	lim.max_depth = 8;
	if (CHECK_OK(dom_parse(in[0], strlen(in[0]), &lim, &doc, &err), &err))
		dom_doc_free(doc);
	doc = NULL;
	CHECK_EQ_INT(dom_parse(in[1], strlen(in[1]), &lim, &doc, &err),
		     LAB_EMALFORMED);
	CHECK(doc == NULL);
	CHECK(strstr(err.msg, "deeper than the limit of 8") != NULL);
}

const t_case tests_errors[] = {
	{"errors/malformed", malformed},
	{"errors/deferred_content", deferred_content},
	{"errors/record_windows", record_windows},
	{"errors/record_misses", record_misses},
	{"errors/record_depth", record_depth},
	{"errors/external_entities", external_entities},
	{"errors/external_dtd", external_dtd},
	{"errors/dtd_default_names", dtd_default_names},
	{"errors/billion_laughs", billion_laughs},
	{NULL, NULL},
};
