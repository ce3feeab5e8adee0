/*
 * test_feed.c - what a parse for signing tells another thread
 * (dom/feed.h): a cursor waits where the parse has not vouched, streams
 * what it has with each noted tag's attributes in the noted order, and
 * fails where the parse cannot vouch; and through a real parse of
 * quakes as generated, the stream over the Body's content is exactly
 * the content of quakes generated canonical (the same records with
 * their attributes in C14N's order) on the builds whose parse puts
 * tags in order (build=deferred's), and fails on the others -- also
 * behind a byte order mark, which moves the parse's text against the
 * caller's bytes.  Named threads_* so that `make test` runs them under
 * ThreadSanitizer too.
 */
#include "dom/feed.h"
#include "tests/util.h"

/* The most drain reads at a time: a quake's start tag fits. */
enum { PIECE = 4096 };

/* The rest of the stream from c to `to` appended to out, read room <=
 * PIECE bytes at a time; the code that ended it. */
static int drain(const dom_feed *f, dom_feed_cursor *c, size_t to,
		 size_t room, lab_buf *out)
{
	char piece[PIECE];
	size_t n;
	int r;

	while ((r = dom_feed_read(f, c, to, piece, room, &n)) ==
	       DOM_FEED_RUN)
		if (!CHECK(n > 0 && n <= room) ||
		    !CHECK(lab_buf_put(out, piece, n) == LAB_OK))
			return DOM_FEED_FAILED;
	return r;
}

/* The stream of a feed whose parse has vouched for all of it, read
 * room bytes at a time from `from`: want, ending as `end`. */
static void streams(const dom_feed *f, size_t from, size_t to, size_t room,
		    const char *want, int end)
{
	lab_buf got = LAB_BUF_INIT;
	dom_feed_cursor c;

	t_context("%zu bytes at a time", room);
	dom_feed_seek(&c, from);
	CHECK_EQ_INT(drain(f, &c, to, room, &got), end);
	CHECK_EQ_MEM(got.data, got.len, want, strlen(want));
	t_context(NULL);
	lab_buf_free(&got);
}

/* A tag put in order: the stream waits for the parse to publish, has
 * the tag's attributes in the noted order, and ends at the stretch's
 * end; read in pieces, a tag goes in whole (and one longer than a piece
 * fails). */
static void test_feed_cursor(void)
{
	static const char s[] = "<r><a z=\"1\" b=\"2\" m=\"3\">t</a><c/>"
				"x yz 0123456789abcdef</r>";
	static const char want[] = "<a b=\"2\" m=\"3\" z=\"1\">t</a><c/>"
				   "x yz 0123456789abcdef";
	static const uint8_t perm[] = {1, 2, 0};
	static const uint16_t ends[] = {6, 12, 18};
	size_t to = sizeof s - 1 - 4;
	dom_feed *f = dom_feed_new(s, sizeof s - 1, 3, to);
	lab_buf got = LAB_BUF_INIT;
	dom_feed_cursor c;

	if (!CHECK(f != NULL))
		return;
	dom_feed_seek(&c, 3);
	CHECK_EQ_INT(drain(f, &c, to, 64, &got), DOM_FEED_WAIT);
	dom__feed_start(f, 0);
	dom__feed_read_to(f, 3, 0);
	CHECK_EQ_INT(drain(f, &c, to, 64, &got), DOM_FEED_WAIT);
	/* A note is told with the next publication: every 16 KB, or the
	 * end of a check pass. */
	dom__feed_tag(f, 5, perm, ends, 3);
	CHECK_EQ_INT(drain(f, &c, to, 64, &got), DOM_FEED_WAIT);
	CHECK_EQ_INT((int)got.len, 0);
	dom__feed_read_to(f, 30, 1);
	CHECK_EQ_INT(drain(f, &c, to, 64, &got), DOM_FEED_WAIT);
	CHECK_EQ_MEM(got.data, got.len, want, 27);
	dom__feed_close(f, 1);
	CHECK_EQ_INT(drain(f, &c, to, 64, &got), DOM_FEED_END);
	CHECK_EQ_MEM(got.data, got.len, want, strlen(want));
	streams(f, 3, to, 64, want, DOM_FEED_END);
	streams(f, 3, to, 21, want, DOM_FEED_END);
	streams(f, 3, to, 20, want, DOM_FEED_END);
	streams(f, 3, to, 8, "<a", DOM_FEED_FAILED);
	/* A cursor asked past the stretch gets nothing. */
	streams(f, 3, to + 1, 64, "", DOM_FEED_FAILED);
	lab_buf_free(&got);
	dom_feed_free(f);
}

/* Failures: one before the stretch is not the stretch's; one in it
 * stops a cursor there; a parse that checked nothing, or failed,
 * vouches for nothing. */
static void test_feed_fails(void)
{
	static const char s[] = "<r><h>head</h><b>0123456789</b></r>";
	lab_buf got = LAB_BUF_INIT;
	dom_feed_cursor c;
	dom_feed *f;
	int ok;

	f = dom_feed_new(s, sizeof s - 1, 17, 27);
	if (!CHECK(f != NULL))
		return;
	dom__feed_start(f, 0);
	dom__feed_fail(f, 6, 10);
	dom__feed_read_to(f, 25, 1);
	dom__feed_fail(f, 22, 23);
	dom_feed_seek(&c, 17);
	CHECK_EQ_INT(drain(f, &c, 27, 64, &got), DOM_FEED_FAILED);
	CHECK_EQ_MEM(got.data, got.len, "01234", 5);
	dom_feed_free(f);

	for (ok = 0; ok < 2; ok++) {
		f = dom_feed_new(s, sizeof s - 1, 17, 27);
		if (!CHECK(f != NULL))
			break;
		dom__feed_start(f, 0);
		dom__feed_read_to(f, 20, !ok);
		dom__feed_close(f, ok);
		dom_feed_seek(&c, 17);
		got.len = 0;
		CHECK_EQ_INT(drain(f, &c, 27, 64, &got), DOM_FEED_FAILED);
		CHECK_EQ_INT((int)got.len, 0);
		dom_feed_free(f);
	}
	lab_buf_free(&got);
}

/* Where the Body's content stands in an envelope: [*from, *to). */
static int body_content(const lab_buf *b, size_t *from, size_t *to)
{
	const char *open = memmem(b->data, b->len, "<soap:Body>", 11);
	const char *close = memmem(b->data, b->len, "</soap:Body>", 12);

	if (!CHECK(open != NULL && close != NULL && open < close))
		return 0;
	*from = (size_t)(open + 11 - b->data);
	*to = (size_t)(close - b->data);
	return 1;
}

/* in (quakes, perhaps behind a byte order mark) parsed with a feed on
 * its Body's content: the stream is want's Body content, or fails. */
static void fed_parse(const lab_buf *in, const lab_buf *want)
{
	lab_buf got = LAB_BUF_INIT;
	size_t from, to, wfrom, wto;
	dom_doc *doc = NULL;
	dom_feed_cursor c;
	dom_feed *f;
	lab_err err;

	if (!body_content(in, &from, &to) ||
	    !body_content(want, &wfrom, &wto))
		return;
	f = dom_feed_new(in->data, in->len, from, to);
	if (!CHECK(f != NULL))
		return;
	if (CHECK_OK(dom_parse_signing_fed(in->data, in->len, NULL, f, &doc,
					   &err),
		     &err)) {
		dom_feed_seek(&c, from);
		if (t_orders_in_place()) {
			CHECK_EQ_INT(drain(f, &c, to, PIECE, &got),
				     DOM_FEED_END);
			CHECK_EQ_MEM(got.data, got.len, want->data + wfrom,
				     wto - wfrom);
		} else {
			CHECK_EQ_INT(drain(f, &c, to, PIECE, &got),
				     DOM_FEED_FAILED);
		}
	}
	dom_doc_free(doc);
	dom_feed_free(f);
	lab_buf_free(&got);
}

static void test_feed_parse(void)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 300000, 0, 80, 0};
	lab_buf raw = LAB_BUF_INIT, canon = LAB_BUF_INIT, bom = LAB_BUF_INIT;

	CHECK_EQ_INT(dom_parse_feeds(), t_orders_in_place());
	if (T_GEN(&g, &raw) && (g.canonical = 1, T_GEN(&g, &canon)) &&
	    CHECK(raw.len == canon.len &&
		  memcmp(raw.data, canon.data, raw.len) != 0)) {
		t_context("quakes as generated");
		fed_parse(&raw, &canon);
		t_context("behind a byte order mark");
		if (CHECK(lab_buf_puts(&bom, "\xef\xbb\xbf") == LAB_OK &&
			  lab_buf_put(&bom, raw.data, raw.len) == LAB_OK))
			fed_parse(&bom, &canon);
		t_context(NULL);
	}
	lab_buf_free(&raw);
	lab_buf_free(&canon);
	lab_buf_free(&bom);
}

const t_case tests_feed[] = {
	{"threads_feed_cursor", test_feed_cursor},
	{"threads_feed_fails", test_feed_fails},
	{"threads_feed_parse", test_feed_parse},
	{NULL, NULL},
};
