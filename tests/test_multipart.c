/*
 * test_multipart.c - SOAP with Attachments: the multipart reader through
 * this variant's io choice (round trips, byte-exact parts, and a table of
 * malformed messages that must all be LAB_EMALFORMED), and attachments
 * under the signature (a changed byte, an unsigned attachment, a
 * Reference to a missing part: LAB_ESECURITY).  Inputs reach the reader
 * through a real pipe, as the command line's do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/util.h"
#include "util/base64.h"
#include "wss/attach.h"
#include "wss/c14n.h"
#include "wss/io.h"
#include "wss/multipart.h"
#include "wss/wss.h"

/* Reads msg[0..len) through a pipe into *out; returns the reader's code.
 * Inputs here fit the pipe's buffer, so one thread writes then reads. */
static int read_via_pipe(const char *msg, size_t len, wss_multipart *out,
			 lab_err *err)
{
	wss_io *r = NULL;
	int fds[2], rc;
	size_t off = 0;

	if (len > 60000 || pipe(fds) != 0)
		return lab_fail(err, LAB_EIO, "test: no pipe for %zu bytes", len);
	while (off < len) {
		ssize_t n = write(fds[1], msg + off, len - off);

		if (n <= 0 && errno != EINTR)
			break;
		if (n > 0)
			off += (size_t)n;
	}
	close(fds[1]);
	rc = wss_io_open(fds[0], &r, err);
	if (rc == LAB_OK)
		rc = wss_multipart_read(r, NULL, 0, 0, out, err);
	wss_io_free(r);
	close(fds[0]);
	return rc;
}

/* Every byte value, so binary framing is tested. */
static void binary(char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)(i * 7 + seed);
}

static void round_trip(void)
{
	static char a[3000], b[40000];
	static const char env[] = "<e:Envelope xmlns:e=\"u\"/>";
	wss_part parts[2];
	wss_multipart m;
	lab_buf msg = LAB_BUF_INIT;
	lab_err err;

	binary(a, sizeof a, 1);
	binary(b, sizeof b, 2);
	memset(parts, 0, sizeof parts);
	parts[0] = (wss_part){"one@x", NULL, {.data = a, .len = sizeof a}};
	parts[1] = (wss_part){"two@x", NULL, {.data = b, .len = sizeof b}};
	if (!CHECK_OK(wss_multipart_write("root@x", env, sizeof env - 1, parts,
					  2, &msg, &err),
		      &err))
		return;
	if (CHECK_OK(read_via_pipe(msg.data, msg.len, &m, &err), &err)) {
		CHECK_EQ_INT(m.n, 3);
		CHECK_EQ_INT(m.root, 0);
		CHECK_EQ_STR(m.parts[0].id, "root@x");
		CHECK_EQ_MEM(m.parts[0].body.data, m.parts[0].body.len, env,
			     sizeof env - 1);
		CHECK_EQ_STR(m.parts[1].id, "one@x");
		CHECK_EQ_MEM(m.parts[1].body.data, m.parts[1].body.len, a,
			     sizeof a);
		CHECK_EQ_STR(m.parts[2].id, "two@x");
		CHECK_EQ_MEM(m.parts[2].body.data, m.parts[2].body.len, b,
			     sizeof b);
		wss_multipart_free(&m);
	}
	lab_buf_free(&msg);
}

/* Hand-written forms the writer does not produce but the profile allows:
 * LF line ends, folded headers, start naming a later part, an epilogue. */
static void accepted_forms(void)
{
	static const char lf[] =
		"Content-Type: multipart/related;\n"
		"\tboundary=b1; start=\"<r>\"\n"
		"\n"
		"--b1\n"
		"Content-ID: <a>\n"
		"Content-Length: 3\n"
		"\n"
		"A\nB\n"
		"--b1\n"
		"content-id: <r>\n"
		"CONTENT-LENGTH: 4\n"
		"Content-Transfer-Encoding: 8bit\n"
		"\n"
		"<r/>\n"
		"--b1--\n"
		"epilogue bytes";
	wss_multipart m;
	lab_err err;

	if (!CHECK_OK(read_via_pipe(lf, sizeof lf - 1, &m, &err), &err))
		return;
	CHECK_EQ_INT(m.n, 2);
	CHECK_EQ_INT(m.root, 1);
	CHECK_EQ_MEM(m.parts[0].body.data, m.parts[0].body.len, "A\nB", 3);
	CHECK_EQ_MEM(m.parts[1].body.data, m.parts[1].body.len, "<r/>", 4);
	wss_multipart_free(&m);
}

#define TOP "Content-Type: multipart/related; boundary=\"B\"\r\n\r\n"
#define PART(id, len) "Content-ID: <" id ">\r\nContent-Length: " len "\r\n\r\n"

static void malformed(void)
{
	static const struct {
		const char *name, *msg;
	} cases[] = {
		{"empty input", ""},
		{"not multipart", "Content-Type: text/xml\r\n\r\n<a/>"},
		{"multipart/mixed", "Content-Type: multipart/mixed; "
				    "boundary=B\r\n\r\n--B\r\n"},
		{"missing boundary parameter",
		 "Content-Type: multipart/related; type=\"text/xml\"\r\n\r\n"
		 "--B\r\n" PART("r", "4") "<r/>\r\n--B--\r\n"},
		{"empty boundary", "Content-Type: multipart/related; "
				   "boundary=\"\"\r\n\r\n--\r\n"},
		{"first boundary missing",
		 TOP PART("r", "4") "<r/>\r\n--B--\r\n"},
		{"first boundary wrong", TOP "--C\r\n" PART("r", "4")
					     "<r/>\r\n--B--\r\n"},
		{"truncated part", TOP "--B\r\n" PART("r", "400") "<r/>"},
		{"truncated in the headers", TOP "--B\r\nContent-ID: <r>\r\n"},
		{"Content-Length too short",
		 TOP "--B\r\n" PART("r", "3") "<r/>\r\n--B--\r\n"},
		{"Content-Length too long",
		 TOP "--B\r\n" PART("r", "5") "<r/>\r\n--B--\r\n"},
		{"Content-Length not a number",
		 TOP "--B\r\n" PART("r", "4x") "<r/>\r\n--B--\r\n"},
		{"Content-Length negative",
		 TOP "--B\r\n" PART("r", "-4") "<r/>\r\n--B--\r\n"},
		{"Content-Length overflowing",
		 TOP "--B\r\n" PART("r", "99999999999999999999999")
		     "<r/>\r\n--B--\r\n"},
		{"no Content-Length",
		 TOP "--B\r\nContent-ID: <r>\r\n\r\n<r/>\r\n--B--\r\n"},
		{"no Content-ID",
		 TOP "--B\r\nContent-Length: 4\r\n\r\n<r/>\r\n--B--\r\n"},
		{"Content-ID without brackets",
		 TOP "--B\r\nContent-ID: r\r\nContent-Length: 4\r\n\r\n<r/>"
		     "\r\n--B--\r\n"},
		{"two Content-IDs", TOP "--B\r\nContent-ID: <r>\r\n"
					"Content-ID: <s>\r\n"
					"Content-Length: 4\r\n\r\n<r/>"
					"\r\n--B--\r\n"},
		{"duplicate part ids", TOP "--B\r\n" PART("r", "4")
					   "<r/>\r\n--B\r\n" PART("r", "1")
					   "x\r\n--B--\r\n"},
		{"missing start part",
		 "Content-Type: multipart/related; boundary=B; "
		 "start=\"<nowhere>\"\r\n\r\n--B\r\n" PART("r", "4")
		 "<r/>\r\n--B--\r\n"},
		{"base64 transfer encoding",
		 TOP "--B\r\nContent-Transfer-Encoding: base64\r\n" PART("r", "4")
		     "PHIv\r\n--B--\r\n"},
		{"no closing boundary", TOP "--B\r\n" PART("r", "4") "<r/>\r\n"},
		{"boundary followed by junk",
		 TOP "--B\r\n" PART("r", "4") "<r/>\r\n--Bx\r\n"},
		{"header without colon",
		 TOP "--B\r\nContent-ID <r>\r\n\r\n<r/>\r\n--B--\r\n"},
		{"continuation first", " folded\r\n" TOP},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wss_multipart m;
		lab_err err;
		int rc;

		t_context("%s", cases[i].name);
		rc = read_via_pipe(cases[i].msg, strlen(cases[i].msg), &m, &err);
		CHECK_EQ_INT(rc, LAB_EMALFORMED);
		if (rc == LAB_OK)
			wss_multipart_free(&m);
	}
	t_context(NULL);
}

static void limits(void)
{
	lab_buf msg = LAB_BUF_INIT;
	wss_multipart m;
	lab_err err;
	size_t i;
	int rc;

	/* A header line over 998 bytes. */
	lab_buf_puts(&msg, "Content-Type: multipart/related; boundary=B; x=\"");
	for (i = 0; i < 1000; i++)
		lab_buf_putc(&msg, 'x');
	lab_buf_puts(&msg, "\"\r\n\r\n");
	CHECK_EQ_INT(read_via_pipe(msg.data, msg.len, &m, &err), LAB_EMALFORMED);
	/* More parts than WSS_MIME_MAX_PARTS. */
	msg.len = 0;
	lab_buf_puts(&msg, TOP);
	for (i = 0; i <= WSS_MIME_MAX_PARTS; i++)
		lab_buf_printf(&msg, "--B\r\nContent-ID: <p%zu>\r\n"
				     "Content-Length: 1\r\n\r\nx\r\n",
			       i);
	lab_buf_puts(&msg, "--B--\r\n");
	rc = read_via_pipe(msg.data, msg.len, &m, &err);
	CHECK_EQ_INT(rc, LAB_EMALFORMED);
	CHECK(strstr(err.msg, "parts") != NULL);
	lab_buf_free(&msg);
}

/* A message whose boundary is `len` b's between `open` and `close`:
 * quotes, or nothing and the white space a bare value ends at. */
static int boundary_of(size_t len, const char *open, const char *close,
		       wss_multipart *m, lab_err *err)
{
	lab_buf msg = LAB_BUF_INIT;
	char b[80];
	int rc;

	memset(b, 'b', len);
	b[len] = '\0';
	lab_buf_printf(&msg,
		       "Content-Type: multipart/related; boundary=%s%s%s; x=y\r\n"
		       "\r\n--%s\r\n" PART("r", "4") "<r/>\r\n--%s--\r\n",
		       open, b, close, b, b);
	rc = read_via_pipe(msg.data, msg.len, m, err);
	lab_buf_free(&msg);
	return rc;
}

/*
 * Content-Type parameters: quoted values with backslash escapes (an
 * escaped quote neither ends the value nor lets what follows it pass
 * for a parameter), and the boundary's 70 characters (RFC 2046) in
 * either form, one more being too long.
 */
static void parameters(void)
{
	static const char escaped[] =
		"Content-Type: multipart/related; "
		"x=\"\\\";boundary=wrong\"; start=\"<\\r>\"; "
		"boundary=\"q\\\"b\"\r\n\r\n"
		"--q\"b\r\n" PART("a", "1") "A\r\n"
		"--q\"b\r\n" PART("r", "4") "<r/>\r\n--q\"b--\r\n";
	static const struct {
		const char *name, *open, *close;
	} forms[] = {
		{"quoted", "\"", "\""},
		{"bare, then a space", "", " "},
		{"bare, then a tab", "", "\t"},
	};
	wss_multipart m;
	lab_err err;
	size_t i;

	if (CHECK_OK(read_via_pipe(escaped, sizeof escaped - 1, &m, &err),
		     &err)) {
		CHECK_EQ_INT(m.n, 2);
		CHECK_EQ_INT(m.root, 1);
		wss_multipart_free(&m);
	}
	for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		t_context("%s", forms[i].name);
		if (CHECK_OK(boundary_of(70, forms[i].open, forms[i].close, &m,
					 &err),
			     &err))
			wss_multipart_free(&m);
		CHECK_EQ_INT(boundary_of(71, forms[i].open, forms[i].close, &m,
					 &err),
			     LAB_EMALFORMED);
		CHECK_EQ_STR(err.msg, "MIME: parameter boundary is too long");
	}
	t_context(NULL);
}

/* ---- under the signature ---- */

#define NOW 1796000000

typedef struct keys {
	wss_privkey *key;
	wss_cert *cert;
} keys;

static int alice(keys *k)
{
	const char *dir = getenv("DOMLAB_KEYS");
	char path[512];
	lab_err err;

	memset(k, 0, sizeof *k);
	snprintf(path, sizeof path, "%s/alice.key.pem",
		 dir != NULL ? dir : "build/keys");
	if (!CHECK_OK(wss_privkey_load(path, &k->key, &err), &err))
		return 0;
	snprintf(path, sizeof path, "%s/alice.cert.pem",
		 dir != NULL ? dir : "build/keys");
	return CHECK_OK(wss_cert_load(path, &k->cert, &err), &err);
}

/* A quakes message signed by alice with atts; NULL on failure. */
static dom_doc *signed_with(const keys *k, const wss_attachment *atts,
			    size_t n)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 2048, 0, 42, 0};
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;

	wss_opts_default(&o);
	o.now = NOW;
	o.att = atts;
	o.natt = n;
	if (T_GEN(&g, &text))
		doc = T_PARSE_N(text.data, text.len);
	if (doc != NULL &&
	    !CHECK_OK(wss_sign_doc(doc, k->key, k->cert, &o, &err), &err)) {
		dom_doc_free(doc);
		doc = NULL;
	}
	lab_buf_free(&text);
	return doc;
}

static int verify_with(dom_doc *doc, const keys *k,
		       const wss_attachment *atts, size_t n, lab_err *err)
{
	wss_opts o;

	wss_opts_default(&o);
	o.now = NOW;
	o.att = atts;
	o.natt = n;
	return wss_verify_doc(doc, k->cert, &o, err);
}

static void signed_attachments(void)
{
	static unsigned char data[5000], changed[5000], extra[10];
	wss_attachment good = {"att@x", data, sizeof data};
	wss_attachment bad = {"att@x", changed, sizeof changed};
	wss_attachment renamed = {"other@x", data, sizeof data};
	wss_attachment two[2] = {{"att@x", data, sizeof data},
				 {"extra@x", extra, sizeof extra}};
	dom_doc *doc;
	keys k;
	lab_err err;

	binary((char *)data, sizeof data, 3);
	memcpy(changed, data, sizeof data);
	changed[4321] ^= 0x10;
	if (!alice(&k) || (doc = signed_with(&k, &good, 1)) == NULL)
		goto out;
	CHECK_OK(verify_with(doc, &k, &good, 1, &err), &err);
	t_context("a changed attachment byte");
	CHECK_EQ_INT(verify_with(doc, &k, &bad, 1, &err), LAB_ESECURITY);
	CHECK(strstr(err.msg, "attachment was changed") != NULL);
	t_context("an attachment not covered by the signature");
	CHECK_EQ_INT(verify_with(doc, &k, two, 2, &err), LAB_ESECURITY);
	CHECK(strstr(err.msg, "not covered") != NULL);
	t_context("a cid: Reference to no part");
	CHECK_EQ_INT(verify_with(doc, &k, NULL, 0, &err), LAB_ESECURITY);
	CHECK(strstr(err.msg, "names no part") != NULL);
	t_context("the part under another Content-ID");
	CHECK_EQ_INT(verify_with(doc, &k, &renamed, 1, &err), LAB_ESECURITY);
	t_context(NULL);
	dom_doc_free(doc);
	/* Signed without attachments, received with one: not covered. */
	if ((doc = signed_with(&k, NULL, 0)) != NULL) {
		CHECK_EQ_INT(verify_with(doc, &k, &good, 1, &err),
			     LAB_ESECURITY);
		dom_doc_free(doc);
	}
out:
	wss_privkey_free(k.key);
	wss_cert_free(k.cert);
}

/* Signs SignedInfo again after a change, as an attacker holding the
 * trusted key could, so only the check under test can catch the change. */
static void resign(dom_doc *doc, const wss_privkey *key)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	lab_buf c14n = LAB_BUF_INIT, sig = LAB_BUF_INIT, b64 = LAB_BUF_INIT;
	dom_node *sv = t_find(dom_doc_node(doc), "SignatureValue"), *t;
	lab_err err;

	if (CHECK(sv != NULL) &&
	    CHECK_OK(wss_c14n_buf(t_find(dom_doc_node(doc), "SignedInfo"), &o,
				  &c14n, &err),
		     &err) &&
	    CHECK_OK(wss_rsa_sign_sha256(key, c14n.data, c14n.len, &sig, &err),
		     &err) &&
	    CHECK(lab_base64_encode(sig.data, sig.len, 0, &b64) == LAB_OK)) {
		while (dom_first_child(sv) != NULL)
			dom_node_free(dom_first_child(sv));
		if (CHECK_OK(dom_create_text(doc, b64.data, b64.len, &t, &err),
			     &err))
			CHECK_OK(dom_append(sv, t, &err), &err);
	}
	lab_buf_free(&c14n);
	lab_buf_free(&sig);
	lab_buf_free(&b64);
}

/* The Reference's form is the SwA profile's; other transforms are
 * refused. */
static void attachment_reference_form(void)
{
	static unsigned char data[100];
	wss_attachment a = {"att@x", data, sizeof data};
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc, *forged = NULL;
	char *p;
	keys k;
	lab_err err;

	if (!alice(&k) || (doc = signed_with(&k, &a, 1)) == NULL)
		goto out;
	if (!T_SERIALIZE(dom_doc_node(doc), &text))
		goto free_doc;
	CHECK(strstr(text.data, "URI=\"cid:att@x\"") != NULL);
	p = strstr(text.data, WSS_ALG_SWA_CONTENT);
	if (CHECK(p != NULL)) {
		/* Attachment-Complete-Signature-Transform instead. */
		memcpy(strstr(p, "Content-Signature"), "Completesignatur", 16);
		forged = T_PARSE_N(text.data, text.len);
	}
	if (forged != NULL) {
		resign(forged, k.key);
		CHECK_EQ_INT(verify_with(forged, &k, &a, 1, &err),
			     LAB_ESECURITY);
		CHECK(strstr(err.msg, "Transform") != NULL);
		dom_doc_free(forged);
	}
free_doc:
	dom_doc_free(doc);
out:
	lab_buf_free(&text);
	wss_privkey_free(k.key);
	wss_cert_free(k.cert);
}

const t_case tests_multipart[] = {
	{"multipart/round_trip", round_trip},
	{"multipart/accepted_forms", accepted_forms},
	{"multipart/malformed", malformed},
	{"multipart/limits", limits},
	{"multipart/parameters", parameters},
	{"multipart/signed_attachments", signed_attachments},
	{"multipart/attachment_reference_form", attachment_reference_form},
	{NULL, NULL},
};
