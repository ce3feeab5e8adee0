/*
 * test_roundtrip.c - parse -> serialize, byte for byte: every generator
 * kind and 200 random-kind seeds come back unchanged (the generator
 * writes the serializer's own form), each data/roundtrip/NAME.xml comes
 * out as NAME.expected (written by hand from the rules in
 * dom/serialize.c), each .expected is a fixed point, and so is a value
 * with a byte to escape at every place; dom_serialize_marked finds its
 * text or refuses.
 * Not tested here: the tree's shape (test_diff.c compares it with
 * libxml2's) or inputs that must be refused (test_errors.c).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "tests/util.h"

/* Parses in, serializes the document, compares with want. */
static void roundtrip(const char *in, size_t len, const char *want,
		      size_t wlen)
{
	dom_doc *doc = T_PARSE_N(in, len);
	lab_buf out = LAB_BUF_INIT;

	if (doc == NULL)
		return;
	if (T_SERIALIZE(dom_doc_node(doc), &out))
		CHECK_EQ_MEM(out.data, out.len, want, wlen);
	lab_buf_free(&out);
	dom_doc_free(doc);
}

static void gen_kinds(void)
{
	size_t i;

	for (i = 0; i < t_gen_ncases; i++) {
		lab_buf in = LAB_BUF_INIT;

		t_context("%s", t_gen_cases[i].name);
		if (T_GEN(&t_gen_cases[i].opts, &in) &&
		    CHECK(in.len > 100))
			roundtrip(in.data, in.len, in.data, in.len);
		lab_buf_free(&in);
	}
}

static void random_seeds(void)
{
	uint64_t seed;

	for (seed = 1000; seed < 1200; seed++) {
		lab_gen_opts o = {LAB_GEN_RANDOM, 0, 0, seed, 0};
		lab_buf in = LAB_BUF_INIT;

		/* Sizes from a handful of nodes to a few hundred. */
		o.count = 5 + (size_t)(seed * 37 % 300);
		t_context("random seed %llu count %zu",
			  (unsigned long long)seed, o.count);
		if (T_GEN(&o, &in))
			roundtrip(in.data, in.len, in.data, in.len);
		lab_buf_free(&in);
	}
}

/* NAME.xml -> NAME.expected, and NAME.expected -> itself. */
static void one_file(const char *name)
{
	char path[1024];
	lab_buf in = LAB_BUF_INIT, want = LAB_BUF_INIT;
	size_t stem = strlen(name) - 4;

	t_context("roundtrip/%s", name);
	snprintf(path, sizeof path, "%s/roundtrip/%s", t_data_dir, name);
	if (CHECK_MSG(t_read_file(path, &in) == 0, "cannot read %s", path)) {
		snprintf(path, sizeof path, "%s/roundtrip/%.*s.expected",
			 t_data_dir, (int)stem, name);
		if (!t_reads_dtds() &&
		    memmem(in.data, in.len, "<!DOCTYPE", 9) != NULL)
			T_DTD_REFUSED(in.data, in.len, name);
		else if (CHECK_MSG(t_read_file(path, &want) == 0,
				   "cannot read %s", path)) {
			roundtrip(in.data, in.len, want.data, want.len);
			roundtrip(want.data, want.len, want.data, want.len);
		}
	}
	lab_buf_free(&in);
	lab_buf_free(&want);
}

static void data_files(void)
{
	char dir[1024];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	t_data_path(dir, sizeof dir, "roundtrip");
	d = opendir(dir);
	if (!CHECK_MSG(d != NULL, "cannot open %s", dir))
		return;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 4 && strcmp(e->d_name + len - 4, ".xml") == 0) {
			one_file(e->d_name);
			n++;
		}
	}
	closedir(d);
	t_context(NULL);
	CHECK_MSG(n >= 20, "only %zu files in %s", n, dir);
}

/*
 * Two CDATA sections in a row stay two: libxml2's own tree builder
 * merges them, and the built variant must not inherit that.
 */
static void adjacent_cdata(void)
{
	static const char in[] =
		"<d><![CDATA[a]]><![CDATA[b]]>t<![CDATA[]]><![CDATA[c]]></d>";
	dom_doc *doc = T_PARSE(in);
	dom_node *c;

	if (doc == NULL)
		return;
	c = dom_first_child(dom_doc_element(doc));
	CHECK(c != NULL && dom_node_type(c) == DOM_CDATA);
	CHECK_EQ_INT(t_nchildren(dom_doc_element(doc)), 5);
	CHECK_SERIALIZES(dom_doc_node(doc),
			 "<d><![CDATA[a]]><![CDATA[b]]>t<![CDATA[]]>"
			 "<![CDATA[c]]></d>\n");
	dom_doc_free(doc);
}

/* A document the serializer writes back byte for byte. */
static void fixed_point(const char *doc, size_t len)
{
	roundtrip(doc, len, doc, len);
}

/*
 * Values of every length from 1 to 40 with a byte to escape at every place
 * (the scan works in blocks of 16, halves of 8 and 4, and single bytes),
 * and long ones past the writer's direct-write limit.
 */
static void escapes_every_place(void)
{
	static const size_t longer[] = {4095, 4096, 4097, 5000};

	t_escape_docs(longer, sizeof longer / sizeof longer[0], fixed_point);
}

/*
 * <r a="v">v</r> built through the API and serialized must equal the
 * reference byte for byte, and parse back to v in both places.
 */
static void long_value(const char *v, size_t len)
{
	dom_doc *doc = NULL, *back = NULL;
	dom_node *r, *text;
	lab_buf out = LAB_BUF_INIT, want = LAB_BUF_INIT, got = LAB_BUF_INIT;
	lab_err err;
	const dom_attr *a;

	if (!CHECK_OK(dom_doc_new(&doc, &err), &err))
		return;
	if (!CHECK_OK(dom_create_element(doc, NULL, "r", &r, &err), &err) ||
	    !CHECK_OK(dom_append(dom_doc_node(doc), r, &err), &err) ||
	    !CHECK_OK(dom_attr_set(r, NULL, "a", v, len, &err), &err) ||
	    !CHECK_OK(dom_create_text(doc, v, len, &text, &err), &err) ||
	    !CHECK_OK(dom_append(r, text, &err), &err) ||
	    !T_SERIALIZE(r, &out))
		goto out;
	lab_buf_puts(&want, "<r a=\"");
	t_escape_ref(&want, v, len, 1);
	lab_buf_puts(&want, "\">");
	t_escape_ref(&want, v, len, 0);
	lab_buf_puts(&want, "</r>");
	if (!CHECK_EQ_MEM(out.data, out.len, want.data, want.len))
		goto out;
	back = T_PARSE_N(out.data, out.len);
	if (back == NULL)
		goto out;
	a = dom_attr_get_qname(dom_doc_element(back), "a");
	if (CHECK(a != NULL))
		CHECK_EQ_MEM(a->value, a->len, v, len);
	if (CHECK(dom_text_content(dom_doc_element(back), &got) == LAB_OK))
		CHECK_EQ_MEM(got.data, got.len, v, len);
out:
	lab_buf_free(&got);
	lab_buf_free(&want);
	lab_buf_free(&out);
	dom_doc_free(back);
	dom_doc_free(doc);
}

/* Is at within 24 bytes of a multiple of 4096 (a chunk of the long path),
 * or of either end of a value of len bytes? */
static int near_edge(size_t at, size_t len)
{
	size_t m = at % 4096;

	return at < 48 || at + 24 >= len || m < 24 || m >= 4096 - 24;
}

/*
 * Values past the serializer's direct-write limit (4096 bytes), which it
 * escapes 16 bytes a step in chunks: one escapable byte of each kind at
 * every place near a 16-byte block, a chunk's edge and the value's ends;
 * runs of 1 to 40 escapable bytes starting around chunk edges; and values
 * of nothing but escapable bytes (the worst case, 6 bytes out for each
 * in, across every chunk).
 */
static void long_escapes(void)
{
	static const char esc[] = "&<>\r\"\t\n";
	static const size_t lens[] = {4097, 4111, 4112, 4113, 3 * 4096 + 21};
	char v[3 * 4096 + 21];
	size_t len = sizeof v, i, at, k, run;

	for (i = 0; i < len; i++)
		v[i] = (char)('a' + i % 26);
	for (at = 0; at < len; at++) {
		if (!near_edge(at, len))
			continue;
		for (k = 0; k < sizeof esc - 1; k++) {
			t_context("one %#x at %zu", (unsigned)esc[k], at);
			v[at] = esc[k];
			long_value(v, len);
			v[at] = (char)('a' + at % 26);
		}
	}
	for (at = 4096 - 24; at < 2 * 4096 + 24; at++) {
		if (!near_edge(at, len))
			continue;
		for (run = 1; run <= 40; run++) {
			t_context("run of %zu at %zu", run, at);
			for (i = 0; i < run; i++)
				v[at + i] = esc[(at + i) % (sizeof esc - 1)];
			long_value(v, len);
			for (i = 0; i < run; i++)
				v[at + i] = (char)('a' + (at + i) % 26);
		}
	}
	for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		for (k = 0; k < lens[i]; k++)
			v[k] = esc[k % (sizeof esc - 1)];
		t_context("all escapable, %zu bytes", lens[i]);
		long_value(v, lens[i]);
		memset(v, '"', lens[i]);
		t_context("all quotes, %zu bytes", lens[i]);
		long_value(v, lens[i]);
	}
	t_context(NULL);
}

/*
 * dom_serialize_marked writes what dom_serialize writes and says where
 * the marked text's characters went; it refuses a buffer with a writer,
 * a mark that is no text, is not written, or has a character escaped.
 */
static void serialize_marked(void)
{
	dom_doc *d = T_PARSE("<r><a>xyz</a><b>q&amp;r</b><c/></r>");
	t_pieces t = {LAB_BUF_INIT, 0, 0, 0, NULL};
	lab_buf out = LAB_BUF_INIT, w;
	dom_node *a, *b;
	size_t at = 0;
	lab_err err;

	if (d == NULL)
		return;
	a = dom_first_child(t_find(dom_doc_node(d), "a"));
	b = dom_first_child(t_find(dom_doc_node(d), "b"));
	CHECK_OK(lab_buf_puts(&out, "before"), NULL);
	if (CHECK_OK(dom_serialize_marked(dom_doc_node(d), a, &out, &at, &err),
		     &err)) {
		CHECK_EQ_STR(out.data, "before<r><a>xyz</a><b>q&amp;r</b>"
				       "<c/></r>\n");
		CHECK_EQ_INT(at, strlen("before<r><a>"));
	}
	out.len = 0;
	out.data[0] = '\0';
	CHECK_EQ_INT(dom_serialize_marked(dom_doc_node(d), b, &out, &at, &err),
		     LAB_EUSAGE);
	CHECK_EQ_INT(dom_serialize_marked(t_find(dom_doc_node(d), "b"), a, &out,
					  &at, &err),
		     LAB_EUSAGE);
	CHECK_EQ_INT(dom_serialize_marked(dom_doc_node(d),
					  t_find(dom_doc_node(d), "c"), &out,
					  &at, &err),
		     LAB_EUSAGE);
	CHECK_EQ_INT(out.len, 0);
	CHECK_OK(lab_buf_init_writer(&w, 64, t_take, &t), NULL);
	CHECK_EQ_INT(dom_serialize_marked(dom_doc_node(d), a, &w, &at, &err),
		     LAB_EUSAGE);
	CHECK_EQ_INT(t.calls, 0);
	lab_buf_free(&w);
	lab_buf_free(&t.got);
	lab_buf_free(&out);
	dom_doc_free(d);
}

const t_case tests_roundtrip[] = {
	{"roundtrip/gen_kinds", gen_kinds},
	{"roundtrip/random_seeds", random_seeds},
	{"roundtrip/data_files", data_files},
	{"roundtrip/adjacent_cdata", adjacent_cdata},
	{"roundtrip/escapes_every_place", escapes_every_place},
	{"roundtrip/long_escapes", long_escapes},
	{"roundtrip/serialize_marked", serialize_marked},
	{NULL, NULL},
};
