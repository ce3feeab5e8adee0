/*
 * test_pipelined.c - the send on two threads (wss_opts.threads = 2,
 * wss/seal.h), the ring under it (wss/send_pipelined.h), and the
 * receive on two threads (wss/digest_ahead.h), and the send whose Body
 * digest a second thread guesses from the bytes (wss/send_ahead.h).
 *
 * A pipelined send must be the single-threaded send's bytes.  The
 * session key and IV are random and cannot be fixed from outside, so the
 * two outputs are compared byte for byte with the two CipherValues'
 * texts left out (same lengths required), the Signature included: its
 * digest is of the Body's plaintext, so an equal SignatureValue proves
 * the same bytes were digested.  Then the pipelined message is received
 * (decrypted, verified), on one thread and on two, and its Body
 * compared with the single one's, and one changed byte of its
 * ciphertext, its SignatureValue or the Body's DigestValue must be
 * refused on either.  The sizes cross the thread's threshold (one piece), the
 * ring's size (four pieces) and a piece boundary.
 *
 * On variants that do not keep the Body's canonical bytes (the libxml2
 * parser) the seal is not used and both sends are the same code; the
 * ring's own cases run everywhere.  Named threads_* so that `make test`
 * runs them under ThreadSanitizer too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/util.h"
#include "util/timeline.h"
#include "wss/c14n.h"
#include "wss/crypto.h"
#include "wss/profile.h"
#include "wss/send_ahead.h"
#include "wss/send_pipelined.h"
#include "wss/wss.h"

/* 2026-11-30T00:53:20Z, as test_wss.c: the Timestamp is fixed. */
#define NOW 1796000000

typedef struct keys {
	wss_privkey *alice_key, *bob_key;
	wss_cert *alice, *bob;
} keys;

static int load_keys(keys *k)
{
	const char *dir = getenv("DOMLAB_KEYS");
	char path[512];
	lab_err err;

	memset(k, 0, sizeof *k);
	if (dir == NULL)
		dir = "build/keys";
	snprintf(path, sizeof path, "%s/alice.key.pem", dir);
	if (!CHECK_OK(wss_privkey_load(path, &k->alice_key, &err), &err))
		return 0;
	snprintf(path, sizeof path, "%s/alice.cert.pem", dir);
	if (!CHECK_OK(wss_cert_load(path, &k->alice, &err), &err))
		return 0;
	snprintf(path, sizeof path, "%s/bob.key.pem", dir);
	if (!CHECK_OK(wss_privkey_load(path, &k->bob_key, &err), &err))
		return 0;
	snprintf(path, sizeof path, "%s/bob.cert.pem", dir);
	return CHECK_OK(wss_cert_load(path, &k->bob, &err), &err);
}

static void free_keys(keys *k)
{
	wss_privkey_free(k->alice_key);
	wss_privkey_free(k->bob_key);
	wss_cert_free(k->alice);
	wss_cert_free(k->bob);
}

/* in sent by alice to bob in `layout` on `threads` threads, serialized
 * into out by the send (where the thread signs, before its signature is
 * written in), and the same bytes as the document it leaves.  Parsed as
 * a signing sender parses (the canonical bytes kept).  taken not NULL:
 * the Body's digest guessed from in during the parse, as wss_send_bytes
 * does, and *taken says what became of the guess: -1 none made, 0 made
 * and not taken, 1 taken. */
static int send_as(const keys *k, const lab_buf *in, wss_cipher c,
		   wss_layout layout, int threads, lab_buf *out, int *taken)
{
	wss_send_ahead *a = NULL;
	lab_buf again = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;
	int ok;

	wss_opts_default(&o);
	o.now = NOW;
	o.cipher = c;
	o.layout = layout;
	o.threads = threads;
	if (taken != NULL)
		wss_send_ahead_start(&a, in->data, in->len, &o);
	ok = CHECK_OK(dom_parse_signing_fed(in->data, in->len, NULL,
					    wss_send_ahead_feed(a), &doc,
					    &err),
		      &err) &&
	     CHECK_OK(wss_send_doc_ahead(doc, k->alice_key, k->alice, k->bob,
					 &o, a, out, &err),
		      &err) &&
	     T_SERIALIZE(dom_doc_node(doc), &again) &&
	     CHECK_EQ_MEM(out->data, out->len, again.data, again.len);
	if (taken != NULL)
		*taken = a == NULL ? -1 : wss_send_ahead_taken(a);
	wss_send_ahead_free(a);
	dom_doc_free(doc);
	lab_buf_free(&again);
	return ok;
}

static int send_on(const keys *k, const lab_buf *in, wss_cipher c,
		   int threads, lab_buf *out)
{
	return send_as(k, in, c, WSS_SIGN_ENCRYPT, threads, out, NULL);
}

/* The Body msg gives bob's receiver on `threads` threads: the code,
 * and the Body serialized into body.  Sign-then-encrypt CBC is what
 * receive refuses (SECURITY.md, decryption oracles): cbc takes it apart
 * as a CBC receiver must, decrypt (allow_cbc) then verify. */
static int receive_on(const keys *k, const lab_buf *msg, int cbc,
		      int threads, lab_buf *body, lab_err *err)
{
	dom_doc *doc = NULL;
	dom_node *b;
	wss_opts o;
	int rc;

	wss_opts_default(&o);
	o.now = NOW;
	o.allow_cbc = cbc;
	o.threads = threads;
	rc = dom_parse(msg->data, msg->len, NULL, &doc, err);
	if (rc == LAB_OK && cbc) {
		rc = wss_decrypt_doc(doc, k->bob_key, &o, err);
		if (rc == LAB_OK)
			rc = wss_verify_doc(doc, k->alice, &o, err);
	} else if (rc == LAB_OK)
		rc = wss_receive_doc(doc, k->bob_key, k->alice, &o, err);
	if (rc == LAB_OK && (b = t_find(dom_doc_node(doc), "Body")) != NULL)
		rc = dom_serialize(b, body, err);
	dom_doc_free(doc);
	return rc;
}

/* s without the texts of its CipherValues, into out; their lengths
 * written to lens.  1 when it found two (EncryptedKey, EncryptedData). */
static int blank_ciphers(const lab_buf *s, lab_buf *out, lab_buf *lens)
{
	static const char open[] = "<xenc:CipherValue>";
	const char *p = s->data, *end = s->data + s->len, *q;
	int n = 0, ok = 1;

	while (ok && (q = memmem(p, (size_t)(end - p), open,
				 sizeof open - 1)) != NULL) {
		const char *t = q + sizeof open - 1;
		const char *e = memmem(t, (size_t)(end - t), "</", 2);

		ok = e != NULL && lab_buf_put(out, p, (size_t)(t - p)) == 0 &&
		     lab_buf_printf(lens, "%zu ", (size_t)(e - t)) == 0;
		n++;
		p = e;
	}
	ok = ok && lab_buf_put(out, p, (size_t)(end - p)) == 0;
	return CHECK(ok) && CHECK_EQ_INT(n, 2);
}

/* one and two the same message but for their CipherValues' texts, of
 * the same lengths. */
static void same_but_ciphers(const lab_buf *one, const lab_buf *two)
{
	lab_buf b1 = LAB_BUF_INIT, b2 = LAB_BUF_INIT, l1 = LAB_BUF_INIT,
		l2 = LAB_BUF_INIT;

	if (blank_ciphers(one, &b1, &l1) && blank_ciphers(two, &b2, &l2)) {
		CHECK_EQ_MEM(l2.data, l2.len, l1.data, l1.len);
		CHECK_EQ_MEM(b2.data, b2.len, b1.data, b1.len);
	}
	lab_buf_free(&b1);
	lab_buf_free(&b2);
	lab_buf_free(&l1);
	lab_buf_free(&l2);
}

/* Flips one base64 digit in the middle of the first text after `after`
 * that follows `within`. */
static void flip_after(lab_buf *b, const char *within, const char *after)
{
	char *w = memmem(b->data, b->len, within, strlen(within));
	char *t = w != NULL ? memmem(w, b->len - (size_t)(w - b->data), after,
				     strlen(after))
			    : NULL;
	char *e = t != NULL ? memmem(t, b->len - (size_t)(t - b->data), "</",
				     2)
			    : NULL;

	if (!CHECK(e != NULL))
		return;
	t += strlen(after);
	t += (e - t) / 2;
	*t = *t == 'A' ? 'B' : 'A';
}

/* One changed byte in msg, in the text after `after` in `within`:
 * refused on one thread and on two, by the receiver that takes msg
 * unchanged. */
static void refused_changed(const keys *k, const lab_buf *msg, int cbc,
			    const char *within, const char *after)
{
	lab_buf bad = LAB_BUF_INIT, body = LAB_BUF_INIT;
	lab_err err;

	if (CHECK(lab_buf_put(&bad, msg->data, msg->len) == LAB_OK)) {
		flip_after(&bad, within, after);
		CHECK_EQ_INT(receive_on(k, &bad, cbc, 1, &body, &err),
			     LAB_ESECURITY);
		CHECK_EQ_INT(receive_on(k, &bad, cbc, 2, &body, &err),
			     LAB_ESECURITY);
	}
	lab_buf_free(&bad);
	lab_buf_free(&body);
}

static void one_size(const keys *k, size_t size, wss_cipher c)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, size, 0, 77, 0};
	lab_buf in = LAB_BUF_INIT, one = LAB_BUF_INIT, two = LAB_BUF_INIT;
	lab_buf r1 = LAB_BUF_INIT, r2 = LAB_BUF_INIT;
	lab_err err;

	t_context("%zu bytes, %s", size,
		  c == WSS_AES256_GCM ? "aes256-gcm" : "aes128-cbc");
	if (!T_GEN(&g, &in) || !send_on(k, &in, c, 1, &one) ||
	    !send_on(k, &in, c, 2, &two))
		goto out;
	same_but_ciphers(&one, &two);
	if (CHECK_OK(receive_on(k, &one, c == WSS_AES128_CBC, 1, &r1, &err),
		     &err) &&
	    CHECK_OK(receive_on(k, &two, c == WSS_AES128_CBC, 1, &r2, &err),
		     &err))
		CHECK_EQ_MEM(r2.data, r2.len, r1.data, r1.len);
	lab_buf_free(&r2);
	if (CHECK_OK(receive_on(k, &one, c == WSS_AES128_CBC, 2, &r2, &err),
		     &err))
		CHECK_EQ_MEM(r2.data, r2.len, r1.data, r1.len);
	refused_changed(k, &two, c == WSS_AES128_CBC, "EncryptedData",
			"CipherValue>");
	refused_changed(k, &two, c == WSS_AES128_CBC, "Signature",
			"SignatureValue>");
	refused_changed(k, &two, c == WSS_AES128_CBC, "Reference URI=\"#Body",
			"DigestValue>");
out:
	t_context(NULL);
	lab_buf_free(&in);
	lab_buf_free(&one);
	lab_buf_free(&two);
	lab_buf_free(&r1);
	lab_buf_free(&r2);
}

static void test_pipelined_send(void)
{
	/* Below one piece (one thread), one piece and a bit, more than the
	 * ring holds, and a large message. */
	static const size_t sizes[] = {20000, 70000, 300000, 1100000};
	keys k;

	if (load_keys(&k)) {
		size_t i;

		for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
			one_size(&k, sizes[i], WSS_AES256_GCM);
		one_size(&k, 300000, WSS_AES128_CBC);
	}
	free_keys(&k);
}

/* Encrypt-sign on two receiving threads: the Signature verifies the
 * EncryptedData before the decryption, so no digest is made ahead; the
 * Body is the one-thread receive's, and a changed Body DigestValue is
 * refused on both. */
static void test_pipelined_receive_encrypt_sign(void)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 300000, 0, 78, 0};
	lab_buf in = LAB_BUF_INIT, msg = LAB_BUF_INIT, r1 = LAB_BUF_INIT,
		r2 = LAB_BUF_INIT;
	lab_err err;
	keys k;

	if (load_keys(&k) && T_GEN(&g, &in) &&
	    send_as(&k, &in, WSS_AES256_GCM, WSS_ENCRYPT_SIGN, 1, &msg, NULL) &&
	    CHECK_OK(receive_on(&k, &msg, 0, 1, &r1, &err), &err) &&
	    CHECK_OK(receive_on(&k, &msg, 0, 2, &r2, &err), &err)) {
		CHECK_EQ_MEM(r2.data, r2.len, r1.data, r1.len);
		refused_changed(&k, &msg, 0, "Reference URI=\"#Body",
				"DigestValue>");
	}
	free_keys(&k);
	lab_buf_free(&in);
	lab_buf_free(&msg);
	lab_buf_free(&r1);
	lab_buf_free(&r2);
}

/* ---- the Body's digest guessed from the bytes ---- */

static int discard(void *ctx, const char *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return LAB_OK;
}

/* A quakes envelope of about size bytes whose Body content is its own
 * canonical form (a message re-sent after a receive), under the root
 * open and the Body's start tag body_open. */
static int canonical_quakes(size_t size, const char *open,
			    const char *body_open, const char *close,
			    lab_buf *out)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, size, 0, 79, 0};
	wss_c14n_opts c = {1, 0, NULL, 0, NULL};
	lab_buf in = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	lab_err err;
	int ok = T_GEN(&g, &in) &&
		 CHECK_OK(dom_parse(in.data, in.len, NULL, &doc, &err), &err) &&
		 CHECK(lab_buf_puts(out, open) == LAB_OK &&
		       lab_buf_puts(out, body_open) == LAB_OK) &&
		 CHECK_OK(wss_c14n_tee(t_find(dom_doc_node(doc), "Body"), &c,
				       discard, NULL, out, &err),
			  &err) &&
		 CHECK(lab_buf_puts(out, close) == LAB_OK);

	dom_doc_free(doc);
	lab_buf_free(&in);
	return ok;
}

/* The Body's canonical content in the document in, appended to out. */
static int body_content(const lab_buf *in, lab_buf *out)
{
	wss_c14n_opts c = {1, 0, NULL, 0, NULL};
	dom_doc *doc = NULL;
	lab_err err;
	int ok = CHECK_OK(dom_parse(in->data, in->len, NULL, &doc, &err),
			  &err) &&
		 CHECK_OK(wss_c14n_tee(t_find(dom_doc_node(doc), "Body"), &c,
				       discard, NULL, out, &err),
			  &err);

	dom_doc_free(doc);
	return ok;
}

/* quakes --canonical (the bench's quakes-canon-2m): the Body's content
 * as it stands is its own canonical form, and that of quakes with the
 * same seed, the same records in another attribute order. */
static void test_gen_canonical(void)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 300000, 0, 81, 1};
	lab_buf canon = LAB_BUF_INIT, plain = LAB_BUF_INIT;
	lab_buf c1 = LAB_BUF_INIT, c2 = LAB_BUF_INIT;
	const char *from, *to;

	if (!T_GEN(&g, &canon))
		goto out;
	g.canonical = 0;
	if (!T_GEN(&g, &plain) || !body_content(&canon, &c1) ||
	    !body_content(&plain, &c2))
		goto out;
	CHECK_EQ_MEM(c1.data, c1.len, c2.data, c2.len);
	from = strstr(canon.data, "<soap:Body>");
	to = strstr(canon.data, "</soap:Body>");
	if (CHECK(from != NULL && to != NULL)) {
		from += strlen("<soap:Body>");
		CHECK_EQ_MEM(from, (size_t)(to - from), c1.data, c1.len);
	}
	CHECK(canon.len == plain.len &&
	      memcmp(canon.data, plain.data, canon.len) != 0);
out:
	lab_buf_free(&canon);
	lab_buf_free(&plain);
	lab_buf_free(&c1);
	lab_buf_free(&c2);
}

/* The root's start tag with the SOAP 1.1 namespace as the default, or
 * bound to the prefix p. */
#define SOAP_ROOT "<Envelope xmlns=\"" WSS_NS_SOAP "\">"
#define SOAP_NS_OF(p) "<" p ":Envelope xmlns:" p "=\"" WSS_NS_SOAP "\">"

/* in sent on two threads with its guess `want` (as send_as's
 * taken): the one-thread send's bytes but for the ciphers, received as
 * that one is, and a changed Body DigestValue refused. */
static void guessed_as(const keys *k, const lab_buf *in, int want)
{
	lab_buf one = LAB_BUF_INIT, two = LAB_BUF_INIT, r1 = LAB_BUF_INIT,
		r2 = LAB_BUF_INIT;
	lab_err err;
	int taken = -2;

	if (send_on(k, in, WSS_AES256_GCM, 1, &one) &&
	    send_as(k, in, WSS_AES256_GCM, WSS_SIGN_ENCRYPT, 2, &two, &taken)) {
		CHECK_EQ_INT(taken, want);
		same_but_ciphers(&one, &two);
		if (CHECK_OK(receive_on(k, &one, 0, 1, &r1, &err), &err) &&
		    CHECK_OK(receive_on(k, &two, 0, 2, &r2, &err), &err))
			CHECK_EQ_MEM(r2.data, r2.len, r1.data, r1.len);
		refused_changed(k, &two, 0, "Reference URI=\"#Body",
				"DigestValue>");
	}
	lab_buf_free(&one);
	lab_buf_free(&two);
	lab_buf_free(&r1);
	lab_buf_free(&r2);
}

/* in with `from`, where it first stands after `after` bytes of it,
 * changed into `to`; 0 (recorded) where it cannot be. */
static int edited(lab_buf *in, size_t after, const char *from,
		  const char *to)
{
	lab_buf out = LAB_BUF_INIT;
	char *at = memmem(in->data + after, in->len - after, from,
			  strlen(from));

	if (!CHECK(at != NULL) ||
	    !CHECK(lab_buf_put(&out, in->data, (size_t)(at - in->data)) ==
			   LAB_OK &&
		   lab_buf_puts(&out, to) == LAB_OK &&
		   lab_buf_put(&out, at + strlen(from),
			       in->len - (size_t)(at - in->data) -
				       strlen(from)) == LAB_OK)) {
		lab_buf_free(&out);
		return 0;
	}
	lab_buf_free(in);
	*in = out;
	return 1;
}

/* One envelope, built by canonical_quakes and then edited (from NULL:
 * unchanged), sent with the guess expected. */
static void guess_case(const keys *k, const char *what, size_t size,
		       const char *open, const char *body_open,
		       const char *close, size_t after, const char *from,
		       const char *to, int want)
{
	lab_buf in = LAB_BUF_INIT;

	t_context("%s, %zu bytes", what, size);
	if (canonical_quakes(size, open, body_open, close, &in) &&
	    (from == NULL || edited(&in, after, from, to)))
		guessed_as(k, &in, want);
	t_context(NULL);
	lab_buf_free(&in);
}

/*
 * The guess taken where the Body's content is canonical as it stands,
 * under a prefix that sorts before wsu, after it, and the default
 * namespace; not taken where the proof finds a byte it lacks (an ID
 * "Body-1" taken elsewhere, a tag out of order past what the start
 * looks at); not made where the start shows it would fail (a Body with
 * an attribute) or the message is small.  Quakes as generated, whose
 * tags the parse puts in order: taken on the builds that do so and
 * tell the thread (t_orders_in_place), not made on the others; and not
 * taken where one tag has a byte the parse does not put right (two
 * spaces before an attribute).  Every one the one-thread send's message
 * but for the ciphers.
 */
static void test_send_ahead(void)
{
	static const char soap_close[] = "</soap:Body></soap:Envelope>";
	lab_gen_opts g = {LAB_GEN_QUAKES, 300000, 0, 80, 0};
	lab_buf raw = LAB_BUF_INIT;
	keys k;

	if (!load_keys(&k))
		goto out;
	guess_case(&k, "soap:", 300000, SOAP_NS_OF("soap"), "<soap:Body>",
		   soap_close, 0, NULL, NULL, 1);
	guess_case(&k, "soap:", 1100000, SOAP_NS_OF("soap"), "<soap:Body>",
		   soap_close, 0, NULL, NULL, 1);
	guess_case(&k, "x: after wsu", 300000, SOAP_NS_OF("x"), "<x:Body>",
		   "</x:Body></x:Envelope>", 0, NULL, NULL, 1);
	guess_case(&k, "the default namespace", 300000, SOAP_ROOT,
		   "<Body>", "</Body></Envelope>", 0, NULL, NULL, 1);
	guess_case(&k, "Body-1 taken", 300000,
		   SOAP_NS_OF("soap") "<soap:Header><h xmlns:wsu=\""
		   WSS_NS_WSU "\" wsu:Id=\"Body-1\"></h></soap:Header>",
		   "<soap:Body>", soap_close, 0, NULL, NULL, 0);
	guess_case(&k, "a tag out of order late", 300000,
		   SOAP_NS_OF("soap"), "<soap:Body>", soap_close, 200000,
		   " depth=\"", " zz=\"1\" depth=\"", 0);
	guess_case(&k, "a Body with an attribute", 300000,
		   SOAP_NS_OF("soap"), "<soap:Body a=\"1\">", soap_close, 0,
		   NULL, NULL, -1);
	guess_case(&k, "small", 100000, SOAP_NS_OF("soap"), "<soap:Body>",
		   soap_close, 0, NULL, NULL, -1);
	t_context("quakes as generated");
	if (T_GEN(&g, &raw))
		guessed_as(&k, &raw, t_orders_in_place() ? 1 : -1);
	t_context("quakes with a tag the parse does not put right");
	if (edited(&raw, 200000, " depth=\"", "  depth=\""))
		guessed_as(&k, &raw, t_orders_in_place() ? 0 : -1);
	t_context("quakes --canonical");
	g.canonical = 1;
	lab_buf_free(&raw);
	if (T_GEN(&g, &raw))
		guessed_as(&k, &raw, 1);
	t_context(NULL);
out:
	free_keys(&k);
	lab_buf_free(&raw);
}

/* When t's step `what` ended, in ns; -1 when it was not marked.  A step
 * marked twice is a failure. */
static int64_t step(const lab_timeline *t, const char *what)
{
	int64_t at = -1;
	const char *w;
	uint64_t ns;
	size_t i;

	for (i = 0; lab_timeline_get(t, i, &w, &ns); i++)
		if (strcmp(w, what) == 0 && CHECK(at < 0))
			at = (int64_t)ns;
	return at;
}

/* The steps of the message in, sent on two threads, in the order the
 * code takes them; with the thread's digest taken exactly when
 * `guessed`.  Then its receive on two threads. */
static void timeline_of(const keys *k, const lab_buf *in, int guessed)
{
	lab_timeline *t = lab_timeline_new();
	lab_buf msg = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	int64_t parsed, sig, enc, taken, sealed;
	wss_opts o;
	lab_err err;

	wss_opts_default(&o);
	o.now = NOW;
	o.threads = 2;
	o.timeline = t;
	if (!CHECK(t != NULL))
		return;
	lab_timeline_start(t);
	if (!CHECK_OK(wss_send_bytes(in->data, in->len, k->alice_key, k->alice,
				     k->bob, &o, &doc, &msg, &err),
		      &err))
		goto out;
	parsed = step(t, "parsed");
	sig = step(t, "signed");
	enc = step(t, "encrypted");
	taken = step(t, "digest_taken");
	sealed = step(t, "sealed");
	/* The thread that signs does so while this one encrypts and
	 * writes the output. */
	CHECK(parsed >= 0 && parsed <= sig && parsed <= enc &&
	      enc <= step(t, "serialized"));
	CHECK(guessed ? step(t, "serialized") <= sig : sig <= enc);
	CHECK(sealed <= enc);
	if (guessed) {
		int64_t hashed = step(t, "ahead_hashed");

		CHECK(step(t, "ahead_started") >= 0 &&
		      step(t, "ahead_started") <= hashed && hashed <= taken);
		CHECK(parsed <= step(t, "ahead_proved") &&
		      step(t, "ahead_proved") <= taken && taken <= enc);
		/* The Signature made on the second thread, then taken once
		 * this one has made the EncryptedKey and EncryptedData. */
		CHECK(hashed <= step(t, "ahead_signed") &&
		      step(t, "ahead_signed") <= step(t, "signature_taken") &&
		      enc <= step(t, "signature_taken") &&
		      step(t, "signature_taken") <= sig);
	} else {
		CHECK(taken < 0 && step(t, "signature_taken") < 0);
	}
	dom_doc_free(doc);
	doc = NULL;
	lab_timeline_start(t);
	if (CHECK_OK(dom_parse(msg.data, msg.len, NULL, &doc, &err), &err) &&
	    CHECK_OK(wss_receive_doc(doc, k->bob_key, k->alice, &o, &err),
		     &err)) {
		int64_t got = step(t, "received"), hashed;
		int64_t unwrapped = step(t, "unwrapped");

		CHECK(unwrapped >= 0 && unwrapped <= step(t, "decrypted") &&
		      step(t, "decrypted") <= step(t, "verified") &&
		      step(t, "verified") <= got);
		/* The thread hashes plaintext, which needs the key. */
		hashed = step(t, "ahead_hashed");
		if (hashed >= 0)
			CHECK(unwrapped <= step(t, "ahead_started") &&
			      step(t, "ahead_started") <= hashed &&
			      hashed <= got);
	}
out:
	dom_doc_free(doc);
	lab_buf_free(&msg);
	lab_timeline_free(t);
}

/*
 * A send on two threads marks its steps on the timeline it is given
 * (wss_opts.timeline), each once and in the order the code takes them:
 * the thread's digest made, then taken once the walk proved it, before
 * the signature; the parse before both; and so a receive on two
 * threads.  Quakes generated canonical are guessed on every build,
 * quakes as generated where the parse puts their tags in order.
 */
static void test_timeline_send(void)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 300000, 0, 80, 0};
	lab_buf raw = LAB_BUF_INIT;
	wss_opts o;
	keys k;

	wss_opts_default(&o);
	CHECK(o.timeline == NULL);
	if (!load_keys(&k))
		goto out;
	t_context("quakes as generated");
	if (T_GEN(&g, &raw))
		timeline_of(&k, &raw, t_orders_in_place());
	t_context("quakes --canonical");
	g.canonical = 1;
	lab_buf_free(&raw);
	if (T_GEN(&g, &raw))
		timeline_of(&k, &raw, 1);
	t_context(NULL);
out:
	free_keys(&k);
	lab_buf_free(&raw);
}

/*
 * With the Signature encrypted too, a send whose second thread signs
 * waits for that signature before it encrypts (the EncryptedData holds
 * the SignatureValue): the steps in that order, the thread's signature
 * taken, and bob receives the Body alice sent on one thread.
 */
static void test_send_ahead_signature_encrypted(void)
{
	lab_timeline *t = lab_timeline_new();
	lab_buf in = LAB_BUF_INIT, msg = LAB_BUF_INIT, one = LAB_BUF_INIT,
		b1 = LAB_BUF_INIT, b2 = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;
	keys k;

	memset(&k, 0, sizeof k);
	wss_opts_default(&o);
	o.now = NOW;
	o.threads = 2;
	o.encrypt_signature = 1;
	o.timeline = t;
	if (!CHECK(t != NULL) || !load_keys(&k))
		goto out;
	lab_timeline_start(t);
	if (canonical_quakes(300000, SOAP_NS_OF("soap"), "<soap:Body>",
			     "</soap:Body></soap:Envelope>", &in) &&
	    CHECK_OK(wss_send_bytes(in.data, in.len, k.alice_key, k.alice,
				    k.bob, &o, &doc, &msg, &err),
		     &err)) {
		CHECK(step(t, "signature_taken") >= 0 &&
		      step(t, "signature_taken") <= step(t, "signed") &&
		      step(t, "signed") <= step(t, "encrypted"));
		CHECK(memmem(msg.data, msg.len, "SignatureValue", 14) == NULL);
		if (send_on(&k, &in, WSS_AES256_GCM, 1, &one) &&
		    CHECK_OK(receive_on(&k, &msg, 0, 1, &b2, &err), &err) &&
		    CHECK_OK(receive_on(&k, &one, 0, 1, &b1, &err), &err))
			CHECK_EQ_MEM(b2.data, b2.len, b1.data, b1.len);
	}
out:
	free_keys(&k);
	dom_doc_free(doc);
	lab_buf_free(&in);
	lab_buf_free(&msg);
	lab_buf_free(&one);
	lab_buf_free(&b1);
	lab_buf_free(&b2);
	lab_timeline_free(t);
}

/* One thread asks for no guess. */
static void test_send_ahead_one_thread(void)
{
	lab_buf in = LAB_BUF_INIT, out = LAB_BUF_INIT;
	int taken = -2;
	keys k;

	if (load_keys(&k) &&
	    canonical_quakes(300000, SOAP_NS_OF("soap"), "<soap:Body>",
			     "</soap:Body></soap:Envelope>", &in) &&
	    send_as(&k, &in, WSS_AES256_GCM, WSS_SIGN_ENCRYPT, 1, &out,
		    &taken))
		CHECK_EQ_INT(taken, -1);
	free_keys(&k);
	lab_buf_free(&in);
	lab_buf_free(&out);
}

/* A malformed message whose guess started: wss_send_bytes fails as the
 * parse does, the thread stopped and joined on the way out. */
static void test_send_ahead_malformed(void)
{
	wss_send_ahead *a = NULL;
	lab_buf in = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;
	char *at;
	keys k;

	wss_opts_default(&o);
	o.threads = 2;
	if (load_keys(&k) &&
	    canonical_quakes(300000, SOAP_NS_OF("soap"), "<soap:Body>",
			     "</soap:Body></soap:Envelope>", &in) &&
	    CHECK((at = memmem(in.data + 200000, in.len - 200000, "</",
			       2)) != NULL)) {
		at[1] = '<';
		/* The guess is made: the break lies past what the start
		 * reads. */
		wss_send_ahead_start(&a, in.data, in.len, &o);
		CHECK(a != NULL);
		wss_send_ahead_free(a);
		CHECK_EQ_INT(wss_send_bytes(in.data, in.len, k.alice_key,
					    k.alice, k.bob, &o, &doc, NULL,
					    &err),
			     LAB_EMALFORMED);
	}
	dom_doc_free(doc);
	free_keys(&k);
	lab_buf_free(&in);
}

/* ---- the ring ---- */

typedef struct sink {
	pthread_t caller;
	lab_buf got;
	size_t pieces, fail_at; /* fail_at: the piece that fails (0: none) */
	int elsewhere;          /* every piece on another thread */
	int ends;
} sink;

static int sink_piece(void *ctx, const char *p, size_t n)
{
	sink *s = ctx;

	s->elsewhere &= !pthread_equal(pthread_self(), s->caller);
	if (++s->pieces == s->fail_at || n > WSS_PIPELINED_PIECE)
		return LAB_ENOMEM;
	return lab_buf_put(&s->got, p, n) == 0 ? LAB_OK : LAB_ENOMEM;
}

static int sink_end(void *ctx, lab_err *err)
{
	sink *s = ctx;

	s->ends++;
	return s->got.len > 0 ? LAB_OK
			      : lab_fail(err, LAB_EUSAGE, "nothing came");
}

/* Hands over want in pieces of the given sizes, cycled; the code of the
 * first put that fails (the rest are not made), else LAB_OK. */
static int feed(wss_pipelined *w, const lab_buf *want)
{
	static const size_t steps[] = {1, 3, 65535, 65537, 200000, 16384};
	size_t at = 0, i = 0;

	while (at < want->len) {
		size_t n = steps[i++ % (sizeof steps / sizeof steps[0])];

		n = n < want->len - at ? n : want->len - at;
		if (wss_pipelined_put(w, want->data + at, n) != LAB_OK)
			return LAB_EIO;
		at += n;
	}
	return LAB_OK;
}

/* sink s set up for this thread, failing at piece fail_at. */
static void sink_init(sink *s, size_t fail_at)
{
	memset(s, 0, sizeof *s);
	s->caller = pthread_self();
	s->got = (lab_buf)LAB_BUF_INIT;
	s->elsewhere = 1;
	s->fail_at = fail_at;
}

static int pattern(lab_buf *b, size_t n)
{
	size_t i;
	int ok = 1;

	for (i = 0; ok && i < n; i++)
		ok = lab_buf_putc(b, (char)(i * 7 + i / 251)) == 0;
	return CHECK(ok);
}

static void test_pipelined_ring(void)
{
	lab_buf want = LAB_BUF_INIT;
	wss_pipelined *w;
	sink s;
	lab_err err;

	sink_init(&s, 0);
	if (pattern(&want, 9 * WSS_PIPELINED_PIECE + 12345) &&
	    CHECK_OK(wss_pipelined_start(&w, sink_piece, sink_end, &s, &err),
		     &err)) {
		CHECK_EQ_INT(feed(w, &want), LAB_OK);
		CHECK_EQ_INT(wss_pipelined_finish(w), LAB_OK);
		CHECK_OK(wss_pipelined_join(w, &err), &err);
		CHECK_EQ_MEM(s.got.data, s.got.len, want.data, want.len);
		CHECK_EQ_INT(s.pieces, 10);
		CHECK_EQ_INT(s.ends, 1);
		CHECK(s.elsewhere);
	}
	lab_buf_free(&want);
	lab_buf_free(&s.got);
}

/* A piece that fails: the producer hears it, join gives the reason, the
 * end is not run. */
static void test_pipelined_ring_fails(void)
{
	lab_buf want = LAB_BUF_INIT;
	wss_pipelined *w;
	sink s;
	lab_err err;

	sink_init(&s, 2);
	if (pattern(&want, 9 * WSS_PIPELINED_PIECE) &&
	    CHECK_OK(wss_pipelined_start(&w, sink_piece, sink_end, &s, &err),
		     &err)) {
		int rc = feed(w, &want);

		if (rc == LAB_OK)
			rc = wss_pipelined_finish(w);
		CHECK_EQ_INT(rc, LAB_EIO);
		CHECK_EQ_INT(wss_pipelined_join(w, &err), LAB_ENOMEM);
		CHECK(strstr(err.msg, "encrypting") != NULL);
		CHECK_EQ_INT(s.ends, 0);
		CHECK_EQ_INT(s.pieces, 2);
	}
	lab_buf_free(&want);
	lab_buf_free(&s.got);
}

/* Cancelled before the end, with pieces in flight: the end is not run,
 * and nothing is left (the sanitizers' runs check the leak). */
static void test_pipelined_ring_cancel(void)
{
	lab_buf want = LAB_BUF_INIT;
	wss_pipelined *w;
	sink s;
	lab_err err;

	sink_init(&s, 0);
	if (pattern(&want, 3 * WSS_PIPELINED_PIECE + 5) &&
	    CHECK_OK(wss_pipelined_start(&w, sink_piece, sink_end, &s, &err),
		     &err)) {
		CHECK_EQ_INT(feed(w, &want), LAB_OK);
		wss_pipelined_cancel(w);
		CHECK_EQ_INT(s.ends, 0);
		CHECK(s.got.len <= want.len);
	}
	wss_pipelined_cancel(NULL);
	lab_buf_free(&want);
	lab_buf_free(&s.got);
}

const t_case tests_pipelined[] = {
	{"threads_pipelined_send", test_pipelined_send},
	{"threads_pipelined_receive_encrypt_sign",
	 test_pipelined_receive_encrypt_sign},
	{"gen_canonical", test_gen_canonical},
	{"threads_send_ahead", test_send_ahead},
	{"threads_send_ahead_one_thread", test_send_ahead_one_thread},
	{"threads_timeline_send", test_timeline_send},
	{"threads_send_ahead_signature_encrypted",
	 test_send_ahead_signature_encrypted},
	{"threads_send_ahead_malformed", test_send_ahead_malformed},
	{"threads_pipelined_ring", test_pipelined_ring},
	{"threads_pipelined_ring_fails", test_pipelined_ring_fails},
	{"threads_pipelined_ring_cancel", test_pipelined_ring_cancel},
	{NULL, NULL},
};
