/*
 * util.c - the shared test helpers (tests/util.h).  Each reports its own
 * failure through the framework at the caller's file and line, so a test
 * reads as a list of expectations.
 * Not for: test cases; those live in tests/test_*.c.
 */
#include "tests/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const t_gen_case t_gen_cases[] = {
	{"quakes-2k", {LAB_GEN_QUAKES, 2048, 0, 1, 0}},
	{"quakes-20k", {LAB_GEN_QUAKES, 20480, 0, 2, 0}},
	{"quakes-200k", {LAB_GEN_QUAKES, 204800, 0, 3, 0}},
	/* Its Body's content its own canonical form (no reordering). */
	{"quakes-canon-20k", {LAB_GEN_QUAKES, 20480, 0, 2, 1}},
	{"ints", {LAB_GEN_INTS, 0, 0, 4, 0}},
	{"strings", {LAB_GEN_STRINGS, 0, 0, 5, 0}},
	{"wide", {LAB_GEN_WIDE, 0, 50, 6, 0}},
	{"deep", {LAB_GEN_DEEP, 0, 0, 7, 0}},
	{"deep-240", {LAB_GEN_DEEP, 0, 240, 8, 0}},
	{"random", {LAB_GEN_RANDOM, 0, 0, 9, 0}},
	{"random-400", {LAB_GEN_RANDOM, 0, 400, 10, 0}},
};

const size_t t_gen_ncases = sizeof t_gen_cases / sizeof t_gen_cases[0];

dom_doc *t_parse_at(const char *file, int line, const char *s, size_t len,
		    const dom_limits *lim)
{
	dom_doc *doc = NULL;
	lab_err err;
	int rc;

	lab_err_clear(&err);
	rc = dom_parse(s, len, lim, &doc, &err);
	if (rc != LAB_OK) {
		t_fail(file, line, "dom_parse: %d at %lu:%lu: %s", rc,
		       err.line, err.col, err.msg);
		return NULL;
	}
	t_pass();
	return doc;
}

int t_is_choice(const char *axis, const char *choice)
{
	const dom_axis_choice *axes;
	size_t n = dom_variant_axes(&axes), i;

	for (i = 0; i < n; i++)
		if (strcmp(axes[i].axis, axis) == 0)
			return strcmp(axes[i].choice, choice) == 0;
	return 0;
}

int t_orders_in_place(void)
{
	return t_is_choice("parser", "insitu") &&
	       t_is_choice("emit", "canonical") &&
	       t_is_choice("build", "deferred");
}

int t_reads_dtds(void)
{
	return !t_is_choice("parser", "insitu");
}

int t_dtd_refused_at(const char *file, int line, const char *s, size_t len,
		     const char *what)
{
	dom_doc *doc = NULL;
	lab_err err;
	int rc;

	lab_err_clear(&err);
	rc = dom_parse(s, len, NULL, &doc, &err);
	dom_doc_free(doc);
	printf("SKIP %s: has a DTD, which parser=insitu refuses (SOAP "
	       "profile)\n", what);
	if (rc != LAB_EMALFORMED || strstr(err.msg, "DTD") == NULL ||
	    err.line == 0 || err.col == 0)
		return t_fail(file, line, "DTD not refused: %d at %lu:%lu: %s",
			      rc, err.line, err.col, err.msg);
	return t_pass();
}

int t_serialize_at(const char *file, int line, const dom_node *n,
		   lab_buf *out)
{
	lab_err err;
	int rc;

	lab_err_clear(&err);
	rc = dom_serialize(n, out, &err);
	return t_ok(file, line, "dom_serialize", rc, &err);
}

int t_serializes_as_at(const char *file, int line, const dom_node *n,
		       const char *want)
{
	lab_buf out = LAB_BUF_INIT;
	int ok = t_serialize_at(file, line, n, &out) &&
		 t_eq_mem(file, line, "serialized", out.data, out.len, want,
			  strlen(want));

	lab_buf_free(&out);
	return ok;
}

int t_take(void *ctx, const char *p, size_t n)
{
	t_pieces *t = ctx;

	t->calls++;
	t->last = p;
	if (n == 0)
		t->empty++;
	if (t->fail_at != 0 && t->calls == t->fail_at)
		return -1;
	return lab_buf_put(&t->got, p, n) != LAB_OK;
}

/* dom_serialize of n through t_take, window w, failing at fail_at (0:
 * never); fills *t (its `got` the caller's to free). */
static int in_pieces(const dom_node *n, size_t w, size_t fail_at,
		     t_pieces *t, lab_err *err)
{
	lab_buf out;
	int rc;

	memset(t, 0, sizeof *t);
	t->got = (lab_buf)LAB_BUF_INIT;
	t->fail_at = fail_at;
	lab_err_clear(err);
	rc = lab_buf_init_writer(&out, w, t_take, t);
	if (rc == LAB_OK)
		rc = dom_serialize(n, &out, err);
	/* Every byte is the writer's once dom_serialize succeeded; after a
	 * failure every later flush fails too. */
	if (rc == LAB_OK &&
	    !CHECK_MSG(out.len == 0, "%zu bytes left in the window", out.len))
		rc = LAB_EIO;
	else if (rc != LAB_OK)
		CHECK_MSG(lab_buf_flush(&out) == rc, "the failure did not stick");
	lab_buf_free(&out);
	return rc;
}

/* Writers failing at the first, second and last of `calls` pieces. */
static int failing(const char *file, int line, const dom_node *n, size_t w,
		   size_t calls, size_t whole)
{
	const size_t at[] = {1, 2, calls};
	char what[96];
	int ok = 1;
	size_t i;

	for (i = 0; i < sizeof at / sizeof at[0]; i++) {
		t_pieces t;
		lab_err err;

		if (at[i] > calls || (i == 2 && calls <= 2))
			continue;
		snprintf(what, sizeof what, "window %zu, failing at piece %zu",
			 w, at[i]);
		ok &= t_eq_int(file, line, what,
			       in_pieces(n, w, at[i], &t, &err), LAB_EIO) &&
		      t_eq_int(file, line, what, err.code, LAB_EIO) &&
		      t_eq_int(file, line, what, t.got.len < whole, 1);
		lab_buf_free(&t.got);
	}
	return ok;
}

int t_serializes_in_pieces_at(const char *file, int line, const dom_node *n)
{
	static const size_t windows[] = {1, 2, 3, 7, 64, 4096, 65536};
	lab_buf whole = LAB_BUF_INIT;
	char what[64];
	int ok = t_serialize_at(file, line, n, &whole);
	size_t i;

	for (i = 0; ok && i < sizeof windows / sizeof windows[0]; i++) {
		t_pieces t;
		lab_err err;

		snprintf(what, sizeof what, "window %zu", windows[i]);
		ok &= t_ok(file, line, what,
			   in_pieces(n, windows[i], 0, &t, &err), &err) &&
		      t_eq_mem(file, line, what, t.got.data, t.got.len,
			       whole.data, whole.len) &&
		      t_eq_int(file, line, "empty pieces", t.empty, 0) &&
		      failing(file, line, n, windows[i], t.calls, whole.len);
		lab_buf_free(&t.got);
	}
	lab_buf_free(&whole);
	return ok;
}

int t_gen_at(const char *file, int line, const lab_gen_opts *o,
	     lab_buf *out)
{
	lab_err err;

	lab_err_clear(&err);
	return t_ok(file, line, "lab_gen", lab_gen(o, out, &err), &err);
}

dom_node *t_find(dom_node *top, const char *local)
{
	dom_node *n = top;

	while (n != NULL) {
		dom_node *next;

		if (dom_node_type(n) == DOM_ELEMENT &&
		    strcmp(dom_local_name(n), local) == 0)
			return n;
		next = dom_first_child(n);
		while (next == NULL && n != top) {
			next = dom_next_sibling(n);
			if (next == NULL)
				n = dom_parent(n);
		}
		n = next;
	}
	return NULL;
}

size_t t_nchildren(const dom_node *n)
{
	const dom_node *c;
	size_t k = 0;

	for (c = dom_first_child(n); c != NULL; c = dom_next_sibling(c))
		k++;
	return k;
}

int t_read_file(const char *path, lab_buf *out)
{
	FILE *f = fopen(path, "rb");
	char chunk[8192];
	size_t n;
	int rc = 0;

	if (f == NULL)
		return -1;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (lab_buf_put(out, chunk, n) != LAB_OK)
			rc = -1;
	if (ferror(f))
		rc = -1;
	fclose(f);
	return rc;
}

void t_data_path(char *out, size_t cap, const char *rel)
{
	snprintf(out, cap, "%s/%s", t_data_dir, rel);
}

static const char escapable[8] = "&<>\r\"\t\n";

void t_escape_ref(lab_buf *out, const char *v, size_t len, int attr)
{
	size_t i;

	for (i = 0; i < len; i++)
		switch (v[i]) {
		case '&': lab_buf_puts(out, "&amp;"); break;
		case '<': lab_buf_puts(out, "&lt;"); break;
		case '\r': lab_buf_puts(out, "&#13;"); break;
		case '>': lab_buf_puts(out, attr ? ">" : "&gt;"); break;
		case '"': lab_buf_puts(out, attr ? "&quot;" : "\""); break;
		case '\t': lab_buf_puts(out, attr ? "&#9;" : "\t"); break;
		case '\n': lab_buf_puts(out, attr ? "&#10;" : "\n"); break;
		default: lab_buf_putc(out, v[i]);
		}
}

/* The value in the serializer's form: filler with c at `at`. */
static void escape_value(lab_buf *out, size_t len, size_t at, char c,
			 int attr)
{
	static const char filler[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	size_t i;

	for (i = 0; i < len; i++) {
		char ch = i == at ? c : filler[i % (sizeof filler - 1)];

		t_escape_ref(out, &ch, 1, attr);
	}
}

static void escape_doc(lab_buf *out, size_t len, size_t at, char c)
{
	lab_buf_puts(out, "<r a=\"");
	escape_value(out, len, at, c, 1);
	lab_buf_puts(out, "\">");
	escape_value(out, len, at, c, 0);
	lab_buf_puts(out, "</r>\n");
}

void t_escape_docs(const size_t *longer, size_t nlonger,
		   void (*check)(const char *doc, size_t len))
{
	size_t len, at, k, i;

	for (len = 1; len <= 40; len++)
		for (at = 0; at <= len; at++)
			for (k = 0; k < sizeof escapable - 1; k++) {
				lab_buf in = LAB_BUF_INIT;

				escape_doc(&in, len, at, escapable[k]);
				check(in.data, in.len);
				lab_buf_free(&in);
			}
	for (i = 0; i < nlonger; i++)
		for (at = 0; at <= longer[i]; at += longer[i] / 7 + 1) {
			lab_buf in = LAB_BUF_INIT;

			escape_doc(&in, longer[i], at, escapable[at % 7]);
			check(in.data, in.len);
			lab_buf_free(&in);
		}
}

dom_doc *t_replaced(const char *host, const char *frag)
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

int t_tmp_dir(char *dir, size_t cap)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, cap, "%s/domlab-test-XXXXXX",
		 base != NULL && base[0] != '\0' ? base : "/tmp");
	return CHECK_MSG(mkdtemp(dir) != NULL, "mkdtemp %s failed", dir);
}

int t_write_tmp(const char *dir, const char *name, const void *p, size_t n,
		char *path, size_t cap)
{
	FILE *f;
	int ok;

	snprintf(path, cap, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL)
		return t_fail(__FILE__, __LINE__, "cannot create %s", path);
	ok = fwrite(p, 1, n, f) == n;
	ok = fclose(f) == 0 && ok;
	return CHECK_MSG(ok, "cannot write %s", path);
}

void t_rm_tmp(const char *dir, const char *const *names, size_t n)
{
	char path[512];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	CHECK_MSG(rmdir(dir) == 0, "cannot remove %s", dir);
}
