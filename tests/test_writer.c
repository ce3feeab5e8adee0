/*
 * test_writer.c - a lab_buf with a writer (util/buf.h): the pieces it
 * hands on add up to what a plain buffer holds, for the buffer's own
 * appends and for dom_serialize and wss_c14n_buf at every window; a
 * large put goes through uncopied; a writer's failure is LAB_EIO and
 * sticks; lab_buf_put_all hands its bytes on whole; bad set-ups and the calls that read back their output refuse
 * a writer with LAB_EUSAGE.
 * Not tested here: send and receive through a writer (test_wss.c).
 */
#include <stdio.h>

#include "tests/util.h"
#include "wss/c14n.h"
#include "wss/crypto.h"
#include "wss/msg.h"
#include "wss/multipart.h"
#include "wss/wss.h"

/* The same appends to b, plain or not: short and long puts, a put
 * larger than any window below, putc, printf and a reserve written into
 * directly, as the serializer does. */
static int appends(lab_buf *b, const char *big, size_t nbig)
{
	int rc = lab_buf_puts(b, "<a>\xc3\xa9\xe6\x97\xa5");

	if (rc == LAB_OK)
		rc = lab_buf_put(b, big, nbig);
	if (rc == LAB_OK)
		rc = lab_buf_putc(b, '&');
	if (rc == LAB_OK)
		rc = lab_buf_printf(b, "%s=%d\xf0\x9d\x84\x9e", "n", 12345);
	if (rc == LAB_OK)
		rc = lab_buf_reserve(b, 5);
	if (rc == LAB_OK) {
		memcpy(b->data + b->len, "</a>\n", 5);
		b->len += 5;
	}
	return rc;
}

static void pieces_match(void)
{
	static const size_t windows[] = {1, 2, 3, 5, 16, 200, 4096};
	char big[300];
	lab_buf plain = LAB_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof big; i++)
		big[i] = (char)('a' + i % 26);
	if (!CHECK_OK(appends(&plain, big, sizeof big), NULL))
		return;
	for (i = 0; i < sizeof windows / sizeof windows[0]; i++) {
		t_pieces t = {LAB_BUF_INIT, 0, 0, 0, NULL};
		lab_buf b;

		t_context("window %zu", windows[i]);
		CHECK_OK(lab_buf_init_writer(&b, windows[i], t_take, &t), NULL);
		CHECK_OK(appends(&b, big, sizeof big), NULL);
		CHECK_OK(lab_buf_flush(&b), NULL);
		CHECK_EQ_INT(b.len, 0);
		CHECK_EQ_MEM(t.got.data, t.got.len, plain.data, plain.len);
		CHECK_EQ_INT(t.empty, 0);
		/* Flushing with nothing held hands nothing on. */
		CHECK_OK(lab_buf_flush(&b), NULL);
		CHECK_EQ_INT(t.got.len, plain.len);
		lab_buf_free(&b);
		lab_buf_free(&t.got);
	}
	lab_buf_free(&plain);
}

/* A put larger than the window reaches the writer as the caller's own
 * bytes, after what the buffer held, and the room stays the window. */
static void large_put_uncopied(void)
{
	static const char big[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	t_pieces t = {LAB_BUF_INIT, 0, 0, 0, NULL};
	lab_buf b;

	CHECK_OK(lab_buf_init_writer(&b, 8, t_take, &t), NULL);
	CHECK_OK(lab_buf_puts(&b, "<x>"), NULL);
	CHECK_EQ_INT(t.calls, 0);
	CHECK_OK(lab_buf_put(&b, big, sizeof big - 1), NULL);
	CHECK_EQ_INT(t.calls, 2);
	CHECK(t.last == big);
	CHECK_EQ_MEM(t.got.data, t.got.len, "<x>" "0123456789abcdefghijklmnop"
		     "qrstuvwxyz", 3 + sizeof big - 1);
	CHECK(b.cap <= 9);
	lab_buf_free(&b);
	lab_buf_free(&t.got);
}

/* A reserve larger than the window gets its room, after a flush. */
static void large_reserve(void)
{
	t_pieces t = {LAB_BUF_INIT, 0, 0, 0, NULL};
	lab_buf b;

	CHECK_OK(lab_buf_init_writer(&b, 4, t_take, &t), NULL);
	CHECK_OK(lab_buf_puts(&b, "abc"), NULL);
	CHECK_OK(lab_buf_reserve(&b, 100), NULL);
	CHECK(b.cap >= 101);
	CHECK_EQ_INT(b.len, 0);
	CHECK_EQ_MEM(t.got.data, t.got.len, "abc", 3);
	memset(b.data, 'z', 100);
	b.len = 100;
	CHECK_OK(lab_buf_flush(&b), NULL);
	CHECK_EQ_INT(t.got.len, 103);
	lab_buf_free(&b);
	lab_buf_free(&t.got);
}

/* The writer fails at its second piece: that call and every later one
 * that must hand bytes on is LAB_EIO, and nothing is held any more. */
static void failure_sticks(void)
{
	t_pieces t = {LAB_BUF_INIT, 0, 2, 0, NULL};
	lab_buf b;

	CHECK_OK(lab_buf_init_writer(&b, 4, t_take, &t), NULL);
	CHECK_OK(lab_buf_puts(&b, "abc"), NULL);
	CHECK_OK(lab_buf_puts(&b, "de"), NULL);
	CHECK_EQ_INT(lab_buf_error(&b), LAB_OK);
	CHECK_EQ_INT(lab_buf_puts(&b, "fgh"), LAB_EIO);
	CHECK_EQ_INT(lab_buf_error(&b), LAB_EIO);
	CHECK(b.data == NULL && b.len == 0);
	CHECK_EQ_INT(lab_buf_putc(&b, 'x'), LAB_EIO);
	CHECK_EQ_INT(lab_buf_printf(&b, "%d", 1), LAB_EIO);
	CHECK_EQ_INT(lab_buf_reserve(&b, 1), LAB_EIO);
	CHECK_EQ_INT(lab_buf_put(&b, "0123456789", 10), LAB_EIO);
	CHECK_EQ_INT(lab_buf_flush(&b), LAB_EIO);
	CHECK_EQ_INT(t.calls, 2);
	CHECK_EQ_MEM(t.got.data, t.got.len, "abc", 3);
	lab_buf_free(&b);
	CHECK(!lab_buf_has_writer(&b));
	lab_buf_free(&t.got);
}

/* lab_buf_put_all: the bytes after those held, all handed on at once;
 * a failing writer is LAB_EIO with its message; a plain buffer keeps
 * them. */
static void put_all(void)
{
	t_pieces t = {LAB_BUF_INIT, 0, 0, 0, NULL};
	t_pieces bad = {LAB_BUF_INIT, 0, 1, 0, NULL};
	lab_buf b, p = LAB_BUF_INIT;
	lab_err err;

	CHECK_OK(lab_buf_init_writer(&b, 4, t_take, &t), NULL);
	CHECK_OK(lab_buf_puts(&b, "ab"), NULL);
	CHECK_OK(lab_buf_put_all(&b, "cdefg", 5, &err), &err);
	CHECK_EQ_MEM(t.got.data, t.got.len, "abcdefg", 7);
	CHECK_EQ_INT(b.len, 0);
	lab_buf_free(&b);
	CHECK_OK(lab_buf_init_writer(&b, 4, t_take, &bad), NULL);
	CHECK_EQ_INT(lab_buf_put_all(&b, "xy", 2, &err), LAB_EIO);
	CHECK(strstr(err.msg, "writer failed") != NULL);
	lab_buf_free(&b);
	CHECK_OK(lab_buf_puts(&p, "ab"), NULL);
	CHECK_OK(lab_buf_put_all(&p, "cd", 2, &err), &err);
	CHECK_EQ_MEM(p.data, p.len, "abcd", 4);
	lab_buf_free(&p);
	lab_buf_free(&t.got);
	lab_buf_free(&bad.got);
}

static void refused_setups(void)
{
	t_pieces t = {LAB_BUF_INIT, 0, 0, 0, NULL};
	lab_buf b;

	CHECK_EQ_INT(lab_buf_init_writer(&b, 0, t_take, &t), LAB_EUSAGE);
	CHECK(!lab_buf_has_writer(&b) && b.data == NULL);
	CHECK_EQ_INT(lab_buf_init_writer(&b, 16, NULL, &t), LAB_EUSAGE);
	CHECK(!lab_buf_has_writer(&b) && b.data == NULL);
	/* A plain buffer's flush has nothing to do. */
	CHECK_OK(lab_buf_puts(&b, "kept"), NULL);
	CHECK_OK(lab_buf_flush(&b), NULL);
	CHECK_EQ_STR(b.data, "kept");
	lab_buf_free(&b);
}

static void serialize(void)
{
	static const char doc[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<!-- caf\xc3\xa9 -->\n"
		"<r xmlns=\"urn:r\" xmlns:p=\"urn:p\" p:a=\"x &amp; &lt;y&gt; "
		"&quot;\xe6\x97\xa5&#9;\"><p:e>\xf0\x9d\x84\x9e &amp; "
		"\xc3\xa9\xc3\xa9</p:e><![CDATA[<raw> \xe6\x97\xa5]]><?pi "
		"d\xc3\xa9?><e/>&#13;</r>\n";
	dom_doc *d = T_PARSE(doc);

	if (d == NULL)
		return;
	CHECK_SERIALIZES_IN_PIECES(dom_doc_node(d));
	/* A subtree as well as the document. */
	CHECK_SERIALIZES_IN_PIECES(t_find(dom_doc_node(d), "e"));
	dom_doc_free(d);
}

/* Values longer than the serializer escapes in one go (4 KB), with
 * bytes to escape and multi-byte characters across its chunks. */
static void serialize_long_values(void)
{
	lab_buf doc = LAB_BUF_INIT, v = LAB_BUF_INIT;
	dom_doc *d = NULL;
	size_t i;
	int rc = LAB_OK;

	for (i = 0; rc == LAB_OK && i < 3000; i++)
		rc = lab_buf_puts(&v, i % 7 == 0 ? "&amp;\xc3\xa9" : "ab\xe6\x97\xa5");
	if (rc == LAB_OK)
		rc = lab_buf_printf(&doc, "<r a=\"%s\">%s<t>%s</t></r>", v.data,
				    v.data, v.data);
	if (CHECK_OK(rc, NULL))
		d = T_PARSE_N(doc.data, doc.len);
	if (d != NULL)
		CHECK_SERIALIZES_IN_PIECES(dom_doc_node(d));
	dom_doc_free(d);
	lab_buf_free(&doc);
	lab_buf_free(&v);
}

/* wss_c14n_buf through a writer: the same bytes, all handed on. */
static void c14n_in_pieces(void)
{
	dom_doc *d = T_PARSE("<r xmlns:p=\"urn:p\" b=\"2\" a=\"1\">"
			     "<p:e>t\xc3\xa9xt &amp; more</p:e></r>");
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	lab_buf plain = LAB_BUF_INIT, b;
	t_pieces t = {LAB_BUF_INIT, 0, 0, 0, NULL};
	lab_err err;

	if (d == NULL)
		return;
	CHECK_OK(wss_c14n_buf(dom_doc_node(d), &o, &plain, &err), &err);
	CHECK_OK(lab_buf_init_writer(&b, 3, t_take, &t), NULL);
	CHECK_OK(wss_c14n_buf(dom_doc_node(d), &o, &b, &err), &err);
	CHECK_EQ_INT(b.len, 0);
	CHECK_EQ_MEM(t.got.data, t.got.len, plain.data, plain.len);
	lab_buf_free(&b);
	lab_buf_free(&t.got);
	t = (t_pieces){LAB_BUF_INIT, 0, 1, 0, NULL};
	CHECK_OK(lab_buf_init_writer(&b, 3, t_take, &t), NULL);
	CHECK_EQ_INT(wss_c14n_buf(dom_doc_node(d), &o, &b, &err), LAB_EIO);
	CHECK_EQ_INT(err.code, LAB_EIO);
	lab_buf_free(&b);
	lab_buf_free(&t.got);
	lab_buf_free(&plain);
	dom_doc_free(d);
}

/* What reads back or takes over its buffer refuses one with a writer. */
static void readers_refuse(void)
{
	static const unsigned char key[32];
	dom_doc *d = T_PARSE("<r><a> text </a></r>");
	t_pieces t = {LAB_BUF_INIT, 0, 0, 0, NULL};
	wss_c14n_opts c = {1, 0, NULL, 0, NULL};
	lab_buf b;
	lab_err err;
	wss_opts o;

	if (d == NULL)
		return;
	wss_opts_default(&o);
	CHECK_OK(lab_buf_init_writer(&b, 64, t_take, &t), NULL);
	CHECK_EQ_INT(wss_text(t_find(dom_doc_node(d), "a"), &b, &err),
		     LAB_EUSAGE);
	CHECK(strstr(err.msg, "writer") != NULL);
	CHECK_EQ_INT(wss_forward_doc(d, NULL, &o, &b, &err), LAB_EUSAGE);
	CHECK_EQ_INT(wss_c14n_tee(dom_doc_element(d), &c, t_take, &t, &b,
				  &err),
		     LAB_EUSAGE);
	CHECK_EQ_INT(wss_multipart_write("root@x", "<r/>", 4, NULL, 0, &b,
					 &err),
		     LAB_EUSAGE);
	CHECK_EQ_INT(wss_encrypt_in_place(WSS_AES256_GCM, key, &b, &err),
		     LAB_EUSAGE);
	CHECK_OK(lab_buf_puts(&b, "<b/>"), NULL);
	CHECK_EQ_INT(dom_replace_parsed(t_find(dom_doc_node(d), "a"), &b, 0,
					4, NULL, &err),
		     LAB_EUSAGE);
	/* Taken all the same, as the contract says: empty, and plain. */
	CHECK(b.data == NULL && !lab_buf_has_writer(&b));
	CHECK_SERIALIZES(dom_doc_node(d), "<r><a> text </a></r>\n");
	CHECK_EQ_INT(t.calls, 0);
	lab_buf_free(&t.got);
	dom_doc_free(d);
}

const t_case tests_writer[] = {
	{"writer/pieces_match", pieces_match},
	{"writer/large_put_uncopied", large_put_uncopied},
	{"writer/large_reserve", large_reserve},
	{"writer/failure_sticks", failure_sticks},
	{"writer/put_all", put_all},
	{"writer/refused_setups", refused_setups},
	{"writer/serialize", serialize},
	{"writer/serialize_long_values", serialize_long_values},
	{"writer/c14n_in_pieces", c14n_in_pieces},
	{"writer/readers_refuse", readers_refuse},
	{NULL, NULL},
};
