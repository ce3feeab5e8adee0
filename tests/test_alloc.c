/*
 * test_alloc.c - the allocation accounting of util/alloc.h: a parse
 * counts allocations and bytes, peak never trails live, and once a
 * document (or a failed parse, or a result the API handed out) is freed,
 * live bytes are back where they were: the counters leak nothing; and
 * how much a lab_buf takes when it grows (util/buf.h).
 * Not tested here: libxml2's or OpenSSL's memory (the harness routes
 * those), or how many bytes a variant should use.
 */
#include "util/alloc.h"
#include "tests/util.h"

static void reset(void)
{
	lab_mem_stats s;
	void *p = lab_malloc(100);

	lab_mem_reset();
	s = lab_mem_get();
	CHECK(s.allocs == 0 && s.heap_allocs == 0 && s.bytes == 0);
	CHECK_EQ_INT(s.peak, s.live);
	lab_free(p);
	s = lab_mem_get();
	CHECK(s.live < s.peak);
	p = lab_malloc(100);
	s = lab_mem_get();
	CHECK(s.allocs == 1 && s.bytes == 100);
	p = lab_realloc(p, 5000);
	s = lab_mem_get();
	CHECK(s.allocs == 2 && s.bytes == 5100 && s.live >= 5000);
	CHECK(s.heap_allocs == 2);
	lab_free(p);
	/* An arena's logical allocation is an alloc, not a heap request. */
	lab_mem_note(40);
	s = lab_mem_get();
	CHECK(s.allocs == 3 && s.heap_allocs == 2);
	p = lab_chunk_alloc(4096);
	s = lab_mem_get();
	CHECK(s.allocs == 3 && s.heap_allocs == 3);
	lab_chunk_free(p);
}

static void parse_and_free(void)
{
	lab_gen_opts o = {LAB_GEN_QUAKES, 20480, 0, 1, 0};
	lab_buf in = LAB_BUF_INIT;
	lab_mem_stats s;
	dom_doc *doc;
	int64_t before;

	if (!T_GEN(&o, &in))
		return;
	before = lab_mem_get().live;
	lab_mem_reset();
	doc = T_PARSE_N(in.data, in.len);
	s = lab_mem_get();
	CHECK(s.allocs > 0);
	CHECK(s.bytes >= in.len);
	CHECK(s.live > before);
	CHECK(s.peak >= s.live);
	dom_doc_free(doc);
	CHECK_EQ_INT(lab_mem_get().live, before);
	CHECK(lab_mem_get().peak >= s.peak);
	lab_buf_free(&in);
}

/* Everything the API hands out to be freed by the caller, then freed. */
static void api_results(void)
{
	static const char in[] =
		"<r xmlns:a=\"urn:a\" Id=\"x\"><a:b a:k=\"1\" k=\"2\"/></r>";
	static int tag;
	int64_t before = lab_mem_get().live;
	dom_doc *doc = T_PARSE(in);
	lab_buf out = LAB_BUF_INIT;
	dom_attr_list list;
	dom_nsdecl *scope;
	dom_node *b;
	size_t n;
	lab_err err;

	if (doc == NULL)
		return;
	b = t_find(dom_doc_element(doc), "b");
	T_SERIALIZE(dom_doc_node(doc), &out);
	lab_buf_free(&out);
	if (CHECK_OK(dom_attributes(b, &list, &err), &err))
		dom_attr_list_release(b, &list);
	if (CHECK_OK(dom_ns_in_scope(b, &scope, &n, &err), &err))
		lab_free(scope);
	CHECK(dom_get_by_id(doc, "x", &n) == dom_doc_element(doc));
	CHECK_OK(dom_user_data_set(b, &tag, &tag, NULL, NULL, &err), &err);
	CHECK_OK(dom_parse_into(b, NULL, "<c/>", 4, NULL, &err), &err);
	CHECK(dom_parse_into(b, NULL, "<c>", 3, NULL, &err) == LAB_EMALFORMED);
	dom_doc_free(doc);
	CHECK_EQ_INT(lab_mem_get().live, before);
}

static void failed_parse(void)
{
	static const char *const bad[] = {
		"<a><b></a>", "", "<a x=\"1\" x=\"2\"/>",
		"<!DOCTYPE a [<!ENTITY e SYSTEM \"/etc/passwd\">]><a>&e;</a>",
	};
	int64_t before = lab_mem_get().live;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		dom_doc *doc = NULL;
		lab_err err;

		t_context("%s", bad[i]);
		CHECK_EQ_INT(dom_parse(bad[i], strlen(bad[i]), NULL, &doc, &err),
			     LAB_EMALFORMED);
		CHECK_EQ_INT(lab_mem_get().live, before);
	}
}

/* lab_buf_reserve rounds its growth up by doubling from 256 bytes, but
 * a request for more than twice the room held gets what it needs plus
 * that room; lab_buf_reserve_exact takes just the room asked for, and a
 * buffer grown that way doubles from there when it outgrows it. */
static void buf_reserve_exact(void)
{
	lab_buf a = LAB_BUF_INIT, b = LAB_BUF_INIT;

	if (!CHECK_EQ_INT(lab_buf_reserve(&a, 300), LAB_OK) ||
	    !CHECK_EQ_INT(lab_buf_reserve_exact(&b, 1000), LAB_OK))
		goto out;
	CHECK_EQ_INT(a.cap, 512);
	a.len = 500;
	if (!CHECK_EQ_INT(lab_buf_reserve(&a, 100), LAB_OK))
		goto out;
	CHECK_EQ_INT(a.cap, 1024);
	/* 2 MB after 1 KB of room: not rounded up to 4 MB. */
	if (!CHECK_EQ_INT(lab_buf_reserve(&a, 2000000), LAB_OK))
		goto out;
	CHECK_EQ_INT(a.cap, 500 + 2000000 + 1 + 1024);
	CHECK_EQ_INT(b.cap, 1001);
	CHECK_EQ_INT(lab_buf_reserve_exact(&b, 10), LAB_OK);
	CHECK_EQ_INT(b.cap, 1001);
	if (!CHECK_EQ_INT(lab_buf_put(&b, "x", 1), LAB_OK) ||
	    !CHECK_EQ_INT(lab_buf_reserve_exact(&b, 1000), LAB_OK))
		goto out;
	CHECK_EQ_INT(b.cap, 1002);
	if (!CHECK_EQ_INT(lab_buf_reserve(&b, 1002), LAB_OK))
		goto out;
	CHECK_EQ_INT(b.cap, 2004);
	CHECK_EQ_INT(b.len, 1);
	CHECK_EQ_MEM(b.data, b.len + 1, "x", 2);
	CHECK_EQ_INT(lab_buf_reserve_exact(&b, (size_t)-1), LAB_ENOMEM);
	CHECK_EQ_INT(b.cap, 2004);
out:
	lab_buf_free(&a);
	lab_buf_free(&b);
}

const t_case tests_alloc[] = {
	{"alloc/reset", reset},
	{"alloc/parse_and_free", parse_and_free},
	{"alloc/api_results", api_results},
	{"alloc/failed_parse", failed_parse},
	{"alloc/buf_reserve_exact", buf_reserve_exact},
	{NULL, NULL},
};
