/*
 * test_textruns.c - long texts with one byte that needs a look: the
 * insitu parser notes the long runs of plain text while it copies its
 * input and lets its scans of text jump to their ends (dom/parser.h's
 * insitu, variants/parser/insitu/input.c), so a run that ends one byte
 * late or starts one byte early would step over markup, a reference or
 * a byte XML refuses.  Texts of two 4 KB runs and more, each with one
 * such byte at the places near a vector block's edges, a run's minimum
 * length and the text's ends, at several alignments, as a root's
 * content and deeper (where build=deferred's check pass reads them):
 * accepted ones must read back as the text the byte stands for, refused
 * ones must be refused.  And in a Body parsed for signing, where the
 * parser answers whether content is its own canonical form (a '>' in
 * text is not: exc-c14n writes "&gt;"), the Body's exclusive C14N must
 * be the same bytes whether it takes what the parse kept or walks the
 * nodes.  Every variant runs it; for libxml2 it is a check of the same
 * answers.
 * Not tested here: texts of every shape (test_roundtrip.c), or how
 * errors are worded (test_errors.c).
 */
#include <stdio.h>

#include "tests/util.h"
#include "wss/c14n.h"

enum { TEXT_LEN = 2 * 4096 + 40 };

/* A byte or sequence put into the text, and what the text then reads
 * as there (NULL: the document is refused). */
typedef struct insert {
	const char *in, *reads;
} insert;

static const insert inserts[] = {
	{"&amp;", "&"},	   {"&#62;", ">"},   {">", ">"},
	{"]", "]"},	   {"\r", "\n"},     {"\r\n", "\n"},
	{"\t", "\t"},	   {"\xc3\xa9", "\xc3\xa9"},
	{"<x/>", ""},	   {"<!--c-->", ""}, {"\x01", NULL},
	{"]]>", NULL},	   {"\xff", NULL},   {"&bad;", NULL},
};

/* Where the insert goes, counted in the text. */
static const size_t places[] = {
	0,    1,    2,    15,   16,   17,   31,   32,   33,   4094,
	4095, 4096, 4097, 4127, 4128, 4129, 8191, 8192, 8193,
	TEXT_LEN - 2, TEXT_LEN - 1, TEXT_LEN,
};

/* Bytes before the element, to move the text across vector blocks. */
static const size_t shifts[] = {0, 1, 7, 15, 16, 31};

/* The document: shift spaces, then the text in <r>, as the root (flat)
 * or two elements down; *text gets the text's expected reading. */
static int make_doc(lab_buf *doc, lab_buf *text, const insert *ins,
		    size_t at, size_t shift, int flat)
{
	size_t i;
	int ok = 1;

	for (i = 0; ok && i < shift; i++)
		ok = lab_buf_putc(doc, ' ') == LAB_OK;
	ok = ok && lab_buf_puts(doc, flat ? "<r>" : "<e><h/><b><r>") == LAB_OK;
	for (i = 0; ok && i <= TEXT_LEN; i++) {
		char c = (char)('a' + i % 26);

		if (i == at)
			ok = lab_buf_puts(doc, ins->in) == LAB_OK &&
			     (ins->reads == NULL ||
			      lab_buf_puts(text, ins->reads) == LAB_OK);
		if (ok && i < TEXT_LEN)
			ok = lab_buf_putc(doc, c) == LAB_OK &&
			     lab_buf_putc(text, c) == LAB_OK;
	}
	return CHECK(ok && lab_buf_puts(doc, flat ? "</r>"
						   : "</r></b></e>") == LAB_OK);
}

/* One document: refused, or read back as its text. */
static void one(const insert *ins, size_t at, size_t shift, int flat)
{
	lab_buf doc = LAB_BUF_INIT, want = LAB_BUF_INIT, got = LAB_BUF_INIT;
	dom_doc *d = NULL;
	lab_err err;

	if (!make_doc(&doc, &want, ins, at, shift, flat))
		goto out;
	if (ins->reads == NULL) {
		CHECK_EQ_INT(dom_parse(doc.data, doc.len, NULL, &d, &err),
			     LAB_EMALFORMED);
		goto out;
	}
	d = T_PARSE_N(doc.data, doc.len);
	if (d != NULL &&
	    CHECK_OK(dom_text_content(t_find(dom_doc_element(d), "r"), &got),
		     NULL))
		CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
out:
	dom_doc_free(d);
	lab_buf_free(&doc);
	lab_buf_free(&want);
	lab_buf_free(&got);
}

static void test_long_runs(void)
{
	size_t i, p, s;
	int flat;

	for (i = 0; i < sizeof inserts / sizeof inserts[0]; i++)
		for (p = 0; p < sizeof places / sizeof places[0]; p++)
			for (s = 0; s < sizeof shifts / sizeof shifts[0]; s++)
				for (flat = 0; flat < 2; flat++) {
					t_context("%s at %zu, shift %zu, %s",
						  inserts[i].in, places[p],
						  shifts[s],
						  flat ? "root" : "deeper");
					one(&inserts[i], places[p], shifts[s],
					    flat);
				}
	t_context(NULL);
}

/* A text with no byte that needs a look, longer than the runs are
 * noted for, and one just under: read back whole. */
static void test_plain_runs(void)
{
	static const size_t lens[] = {4095, 4096, 4097, 65536 + 3};
	size_t i, k;

	for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		lab_buf doc = LAB_BUF_INIT, want = LAB_BUF_INIT;
		lab_buf got = LAB_BUF_INIT;
		dom_doc *d;
		int ok = lab_buf_puts(&doc, "<r>") == LAB_OK;

		for (k = 0; ok && k < lens[i]; k++)
			ok = lab_buf_putc(&want, (char)('A' + k % 26)) == LAB_OK;
		ok = ok && lab_buf_put(&doc, want.data, want.len) == LAB_OK &&
		     lab_buf_puts(&doc, "</r>") == LAB_OK;
		t_context("%zu bytes", lens[i]);
		d = CHECK(ok) ? T_PARSE_N(doc.data, doc.len) : NULL;
		if (d != NULL &&
		    CHECK_OK(dom_text_content(dom_doc_element(d), &got), NULL))
			CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
		dom_doc_free(d);
		lab_buf_free(&doc);
		lab_buf_free(&want);
		lab_buf_free(&got);
	}
	t_context(NULL);
}

/* The Body's exc-c14n, then again once a change (a comment added and
 * taken away) ends what the parse kept, so the second walks the nodes. */
static void canonical_both_ways(const insert *ins, size_t at)
{
	lab_buf doc = LAB_BUF_INIT, text = LAB_BUF_INIT;
	lab_buf kept = LAB_BUF_INIT, walked = LAB_BUF_INIT;
	const wss_c14n_opts exc = {1, 0, NULL, 0, NULL};
	dom_doc *d = NULL;
	dom_node *body, *c;
	lab_err err;

	if (!CHECK_OK(lab_buf_puts(&doc, "<e:Env xmlns:e=\"urn:e\"><e:Body>"),
		      NULL) ||
	    !make_doc(&doc, &text, ins, at, 0, 1) ||
	    !CHECK_OK(lab_buf_puts(&doc, "</e:Body></e:Env>"), NULL) ||
	    !CHECK_OK(dom_parse_signing(doc.data, doc.len, NULL, &d, &err),
		      &err))
		goto out;
	body = t_find(dom_doc_element(d), "Body");
	if (CHECK_OK(wss_c14n_buf(body, &exc, &kept, &err), &err) &&
	    CHECK_OK(dom_create_comment(d, "c", 1, &c, &err), &err) &&
	    CHECK_OK(dom_append(body, c, &err), &err)) {
		dom_node_free(c);
		if (CHECK_OK(wss_c14n_buf(body, &exc, &walked, &err), &err))
			CHECK_EQ_MEM(kept.data, kept.len, walked.data,
				     walked.len);
	}
out:
	dom_doc_free(d);
	lab_buf_free(&doc);
	lab_buf_free(&text);
	lab_buf_free(&kept);
	lab_buf_free(&walked);
}

static void test_canonical_runs(void)
{
	size_t i, p;

	for (i = 0; i < sizeof inserts / sizeof inserts[0]; i++)
		for (p = 0; p < sizeof places / sizeof places[0]; p++) {
			if (inserts[i].reads == NULL)
				continue;
			t_context("%s at %zu", inserts[i].in, places[p]);
			canonical_both_ways(&inserts[i], places[p]);
		}
	t_context(NULL);
}

const t_case tests_textruns[] = {
	{"textruns/long_runs", test_long_runs},
	{"textruns/plain_runs", test_plain_runs},
	{"textruns/canonical_runs", test_canonical_runs},
	{NULL, NULL},
};
