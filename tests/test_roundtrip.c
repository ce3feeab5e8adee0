/*
 * test_roundtrip.c - parse -> serialize, byte for byte: every generator
 * kind and 200 random-kind seeds come back unchanged (the generator
 * writes the serializer's own form), each data/roundtrip/NAME.xml comes
 * out as NAME.expected (written by hand from the rules in
 * dom/serialize.c), each .expected is a fixed point, and so is a value
 * with a byte to escape at every place.
 * Not tested here: the tree's shape (test_diff.c compares it with
 * libxml2's) or inputs that must be refused (test_errors.c).
 */
#include <dirent.h>
#include <stdio.h>

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
		lab_gen_opts o = {LAB_GEN_RANDOM, 0, 0, seed};
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

const t_case tests_roundtrip[] = {
	{"roundtrip/gen_kinds", gen_kinds},
	{"roundtrip/random_seeds", random_seeds},
	{"roundtrip/data_files", data_files},
	{"roundtrip/adjacent_cdata", adjacent_cdata},
	{"roundtrip/escapes_every_place", escapes_every_place},
	{NULL, NULL},
};
