/*
 * test_wss.c - the pipeline on the DOM: sign/verify and send/receive
 * round trips, and every forged message the receive path must refuse
 * with LAB_ESECURITY and a message naming the reason.  Forgeries are made
 * with the DOM itself (move the signed Body, duplicate an ID, swap an
 * algorithm) and, where the attacker is assumed to hold a trusted key,
 * re-signed so that only the check under test can catch them.
 *
 * Keys come from DOMLAB_KEYS (default build/keys, made by
 * tests/make-keys.sh): alice signs, bob receives, mallory is untrusted.
 * Interop with xmlsec1 is tests/interop.sh's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "datasets/preauth.h"
#include "tests/util.h"
#include "util/alloc.h"
#include "util/base64.h"
#include "wss/c14n.h"
#include "wss/crypto.h"
#include "wss/dsig.h"
#include "wss/msg.h"
#include "wss/pass.h"
#include "wss/soapnames.h"
#include "wss/wss.h"
#include "wss/xenc.h"

/* 2026-11-30T00:53:20Z: inside every window below. */
#define NOW 1796000000

#define DS "http://www.w3.org/2000/09/xmldsig#"
#define SOAP "http://schemas.xmlsoap.org/soap/envelope/"
#define WSU "http://docs.oasis-open.org/wss/2004/01/" \
	"oasis-200401-wss-wssecurity-utility-1.0.xsd"

typedef struct keys {
	wss_privkey *alice_key, *bob_key, *mallory_key;
	wss_cert *alice, *bob, *mallory;
} keys;

static int load_keys(keys *k)
{
	static const char *const who[] = {"alice", "bob", "mallory"};
	wss_privkey **priv[] = {&k->alice_key, &k->bob_key, &k->mallory_key};
	wss_cert **cert[] = {&k->alice, &k->bob, &k->mallory};
	const char *dir = getenv("DOMLAB_KEYS");
	char path[512];
	lab_err err;
	size_t i;

	memset(k, 0, sizeof *k);
	if (dir == NULL)
		dir = "build/keys";
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s.key.pem", dir, who[i]);
		if (!CHECK_OK(wss_privkey_load(path, priv[i], &err), &err))
			return 0;
		snprintf(path, sizeof path, "%s/%s.cert.pem", dir, who[i]);
		if (!CHECK_OK(wss_cert_load(path, cert[i], &err), &err))
			return 0;
	}
	return 1;
}

static void free_keys(keys *k)
{
	wss_privkey_free(k->alice_key);
	wss_privkey_free(k->bob_key);
	wss_privkey_free(k->mallory_key);
	wss_cert_free(k->alice);
	wss_cert_free(k->bob);
	wss_cert_free(k->mallory);
}

static void opts_at(wss_opts *o, time_t now, wss_cipher c)
{
	wss_opts_default(o);
	o->now = now;
	o->cipher = c;
}

/* A quakes message signed by `key`/`cert` at NOW; NULL on failure. */
static dom_doc *signed_msg(const wss_privkey *key, const wss_cert *cert)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 2048, 0, 42, 0};
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;

	opts_at(&o, NOW, WSS_AES256_GCM);
	if (T_GEN(&g, &text))
		doc = T_PARSE_N(text.data, text.len);
	lab_buf_free(&text);
	if (doc != NULL &&
	    !CHECK_OK(wss_sign_doc(doc, key, cert, &o, &err), &err)) {
		dom_doc_free(doc);
		doc = NULL;
	}
	return doc;
}

/* What a receiver gets: the document serialized and parsed again. */
static dom_doc *wire(dom_doc *doc)
{
	lab_buf text = LAB_BUF_INIT;
	dom_doc *out = NULL;

	if (T_SERIALIZE(dom_doc_node(doc), &text))
		out = T_PARSE_N(text.data, text.len);
	lab_buf_free(&text);
	dom_doc_free(doc);
	return out;
}

/* verify (or receive, with key) of doc, under caps (NULL: defaults):
 * accepted when reason is NULL, else refused with `reason` in the
 * message; frees doc. */
static void outcome(dom_doc *doc, const wss_privkey *key,
		    const wss_cert *trust, time_t now, const wss_caps *caps,
		    const char *reason)
{
	wss_opts o;
	lab_err err;
	int rc;

	doc = wire(doc);
	if (doc == NULL)
		return;
	opts_at(&o, now, WSS_AES256_GCM);
	if (caps != NULL)
		o.caps = *caps;
	lab_err_clear(&err);
	rc = key != NULL ? wss_receive_doc(doc, key, trust, &o, &err)
			 : wss_verify_doc(doc, trust, &o, &err);
	if (reason == NULL) {
		CHECK_OK(rc, &err);
	} else {
		CHECK_EQ_INT(rc, LAB_ESECURITY);
		CHECK_MSG(strstr(err.msg, reason) != NULL,
			  "message \"%s\" does not say \"%s\"", err.msg,
			  reason);
	}
	dom_doc_free(doc);
}

/* verify (or receive, with key) must refuse doc with `reason` in the
 * message; frees doc. */
static void refused(dom_doc *doc, const wss_privkey *key,
		    const wss_cert *trust, time_t now, const char *reason)
{
	outcome(doc, key, trust, now, NULL, reason);
}

static dom_node *el(dom_doc *doc, const char *local)
{
	dom_node *n = t_find(dom_doc_node(doc), local);

	CHECK_MSG(n != NULL, "no <%s>", local);
	return n;
}

static void set_text(dom_node *e, const char *s)
{
	dom_node *t;
	lab_err err;

	while (dom_first_child(e) != NULL)
		dom_node_free(dom_first_child(e));
	if (CHECK_OK(dom_create_text(dom_node_doc(e), s, strlen(s), &t, &err),
		     &err))
		CHECK_OK(dom_append(e, t, &err), &err);
}

static void set_attr(dom_node *e, const char *qname, const char *value)
{
	lab_err err;

	CHECK_OK(dom_attr_set(e, NULL, qname, value, strlen(value), &err),
		 &err);
}

/* A new element, declaring its own prefix so it survives the wire. */
static dom_node *add_el(dom_node *parent, const char *ns, const char *qname)
{
	const char *colon = strchr(qname, ':');
	char prefix[32];
	dom_node *n = NULL;
	lab_err err;

	snprintf(prefix, sizeof prefix, "%.*s",
		 colon != NULL ? (int)(colon - qname) : 0, qname);
	if (CHECK_OK(dom_create_element(dom_node_doc(parent), ns, qname, &n,
					&err),
		     &err) &&
	    CHECK_OK(dom_ns_declare(n, prefix, ns, &err), &err))
		CHECK_OK(dom_append(parent, n, &err), &err);
	return n;
}

/* The nth (0-based) ds:Reference of SignedInfo. */
static dom_node *reference(dom_doc *doc, int nth)
{
	dom_node *r = el(doc, "Reference");

	while (r != NULL && nth-- > 0)
		r = dom_next_sibling(r);
	CHECK_MSG(r != NULL, "no such Reference");
	return r;
}

/*
 * Signs SignedInfo again after a change, as an attacker holding the
 * trusted key could: the check under test must catch the change itself.
 */
static void resign(dom_doc *doc, const wss_privkey *key)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	lab_buf c14n = LAB_BUF_INIT, sig = LAB_BUF_INIT, b64 = LAB_BUF_INIT;
	lab_err err;

	if (CHECK_OK(wss_c14n_buf(el(doc, "SignedInfo"), &o, &c14n, &err),
		     &err) &&
	    CHECK_OK(wss_rsa_sign_sha256(key, c14n.data, c14n.len, &sig, &err),
		     &err) &&
	    CHECK(lab_base64_encode(sig.data, sig.len, 0, &b64) == LAB_OK))
		set_text(el(doc, "SignatureValue"), b64.data);
	lab_buf_free(&c14n);
	lab_buf_free(&sig);
	lab_buf_free(&b64);
}

/* The exc-c14n of the message's soap:Body, for comparing contents. */
static void body_c14n(dom_doc *doc, lab_buf *out)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	lab_err err;

	CHECK_OK(wss_c14n_buf(el(doc, "Body"), &o, out, &err), &err);
}

/* ---- what must work ---- */

static void sign_then_verify(void)
{
	keys k;
	dom_doc *doc;
	wss_opts o;
	lab_err err;

	if (!load_keys(&k))
		goto out;
	doc = wire(signed_msg(k.alice_key, k.alice));
	opts_at(&o, NOW, WSS_AES256_GCM);
	if (doc != NULL)
		CHECK_OK(wss_verify_doc(doc, k.alice, &o, &err), &err);
	dom_doc_free(doc);
out:
	free_keys(&k);
}

static void send_then_receive(void)
{
	static const wss_cipher ciphers[] = {WSS_AES256_GCM, WSS_AES128_CBC};
	lab_gen_opts g = {LAB_GEN_QUAKES, 2048, 0, 42, 0};
	lab_buf text = LAB_BUF_INIT;
	keys k;
	size_t i;

	if (!load_keys(&k) || !T_GEN(&g, &text))
		goto out;
	for (i = 0; i < 2; i++) {
		lab_buf want = LAB_BUF_INIT, got = LAB_BUF_INIT;
		dom_doc *plain = signed_msg(k.alice_key, k.alice);
		dom_doc *doc = T_PARSE_N(text.data, text.len);
		wss_opts o;
		lab_err err;

		t_context("%s", i == 0 ? "aes256-gcm" : "aes128-cbc");
		opts_at(&o, NOW, ciphers[i]);
		/* CBC is received only signed after it is encrypted. */
		o.allow_cbc = ciphers[i] == WSS_AES128_CBC;
		o.layout = o.allow_cbc ? WSS_ENCRYPT_SIGN : WSS_SIGN_ENCRYPT;
		if (doc != NULL &&
		    CHECK_OK(wss_send_doc(doc, k.alice_key, k.alice, k.bob, &o,
					  &err),
			     &err) &&
		    (doc = wire(doc)) != NULL &&
		    CHECK_OK(wss_receive_doc(doc, k.bob_key, k.alice, &o, &err),
			     &err) &&
		    plain != NULL) {
			body_c14n(plain, &want);
			body_c14n(doc, &got);
			CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
		}
		dom_doc_free(doc);
		dom_doc_free(plain);
		lab_buf_free(&want);
		lab_buf_free(&got);
	}
out:
	lab_buf_free(&text);
	free_keys(&k);
}

/*
 * Send's and receive's output written through a writer (util/buf.h), at
 * windows from one byte up to larger than the CipherValue's text and the
 * decrypted Body: the same bytes as a whole buffer holds.
 */
static void send_receive_in_pieces(void)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 65536, 0, 42, 0};
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;
	keys k;

	if (!load_keys(&k) || !T_GEN(&g, &text) ||
	    (doc = T_PARSE_N(text.data, text.len)) == NULL)
		goto out;
	opts_at(&o, NOW, WSS_AES256_GCM);
	t_context("sent");
	if (!CHECK_OK(wss_send_doc(doc, k.alice_key, k.alice, k.bob, &o, &err),
		      &err))
		goto out;
	CHECK_SERIALIZES_IN_PIECES(dom_doc_node(doc));
	t_context("received");
	if ((doc = wire(doc)) != NULL &&
	    CHECK_OK(wss_receive_doc(doc, k.bob_key, k.alice, &o, &err), &err))
		CHECK_SERIALIZES_IN_PIECES(dom_doc_node(doc));
out:
	dom_doc_free(doc);
	lab_buf_free(&text);
	free_keys(&k);
}

/*
 * The message already carries every ID the sender would draw first
 * ("Body-1", "TS-1", "X509-1", "ED-1", "EK-1", the last one twice as
 * EK-2): each new ID must be another (the five are drawn before the tree
 * changes), no value may appear twice, and the message must still be
 * received.
 */
static void send_avoids_ids(void)
{
	static const char text[] =
		"<soap:Envelope xmlns:soap=\"" SOAP "\" xmlns:wsu=\"" WSU "\">"
		"<soap:Body><a Id=\"ED-1\"><b wsu:Id=\"TS-1\"/>"
		"<c ID=\"X509-1\"/><d Id=\"Body-1\"/><e Id=\"EK-1\"/>"
		"<f Id=\"EK-2\"/></a></soap:Body></soap:Envelope>";
	static const char *const want[] = {"Body-2", "TS-2", "X509-2", "ED-2",
					   "EK-3"};
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;
	keys k;
	size_t i;

	if (!load_keys(&k) || (doc = T_PARSE_N(text, sizeof text - 1)) == NULL)
		goto out;
	opts_at(&o, NOW, WSS_AES256_GCM);
	if (!CHECK_OK(wss_send_doc(doc, k.alice_key, k.alice, k.bob, &o, &err),
		      &err))
		goto out;
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		size_t count;

		t_context("%s", want[i]);
		CHECK(dom_get_by_id(doc, want[i], &count) != NULL);
		CHECK_EQ_INT(count, 1);
	}
	t_context("received");
	if ((doc = wire(doc)) != NULL)
		CHECK_OK(wss_receive_doc(doc, k.bob_key, k.alice, &o, &err),
			 &err);
	/* The EncryptedData (ED-2) gave way to the content it held. */
	for (i = 0; doc != NULL && i < 5; i++) {
		static const char *const after[] = {"Body-2", "TS-2", "X509-2",
						    "EK-3", "ED-1"};
		size_t count;

		t_context("%s after receiving", after[i]);
		dom_get_by_id(doc, after[i], &count);
		CHECK_EQ_INT(count, 1);
	}
out:
	dom_doc_free(doc);
	free_keys(&k);
}

/*
 * Send reserves the message's length for the Body's canonical content;
 * here that content is over five times the message (each of the many
 * empty q:a elements gets the q declaration from the Envelope and an end
 * tag), so the buffer must go on growing past the reserve, over several
 * of the canonicalizer's 16 KB flushes, and still hold every byte.
 */
static void children_c14n(dom_doc *doc, lab_buf *out)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	const dom_node *c;
	lab_err err;

	for (c = dom_first_child(el(doc, "Body")); c != NULL;
	     c = dom_next_sibling(c))
		if (!CHECK_OK(wss_c14n_buf(c, &o, out, &err), &err))
			break;
}

static void send_body_outgrows_message(void)
{
	enum { N = 2000 };
	lab_buf text = LAB_BUF_INIT, want = LAB_BUF_INIT, got = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;
	keys k;
	size_t i;
	int ok;

	if (!load_keys(&k))
		goto out;
	ok = lab_buf_puts(&text, "<soap:Envelope xmlns:soap=\"" SOAP
			  "\" xmlns:q=\"urn:example:q\"><soap:Body>") == 0;
	for (i = 0; ok && i < N; i++)
		ok = lab_buf_puts(&text, "<q:a/>") == 0;
	if (!CHECK(ok && lab_buf_puts(&text,
				      "</soap:Body></soap:Envelope>") == 0) ||
	    (doc = T_PARSE_N(text.data, text.len)) == NULL)
		goto out;
	children_c14n(doc, &want);
	CHECK(want.len > 5 * text.len);
	opts_at(&o, NOW, WSS_AES256_GCM);
	if (CHECK_OK(wss_send_doc(doc, k.alice_key, k.alice, k.bob, &o, &err),
		     &err) &&
	    (doc = wire(doc)) != NULL &&
	    CHECK_OK(wss_receive_doc(doc, k.bob_key, k.alice, &o, &err), &err)) {
		children_c14n(doc, &got);
		CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
	}
out:
	dom_doc_free(doc);
	lab_buf_free(&text);
	lab_buf_free(&want);
	lab_buf_free(&got);
	free_keys(&k);
}

/*
 * A Body of n children whose content is larger than the windows a send
 * streams through (wss/seal.h: 4 KB of plaintext, base64 in 4 KB
 * pieces; under build=deferred each child's content is a gap read again
 * in pieces), lengths stepping by one so that pieces end at every offset
 * modulo 3 (the base64 carry), attributes out of canonical order.  With
 * `broken`, the last child's content is read (built) before the send:
 * under build=deferred its bytes then no longer stand for it, found only
 * after the digest took the children before it, which must then walk.
 */
static int streamed_text(lab_buf *text, size_t n, size_t len)
{
	size_t i, j;
	int ok = lab_buf_puts(text, "<soap:Envelope xmlns:soap=\"" SOAP
			      "\"><soap:Body>") == 0;

	for (i = 0; ok && i < n; i++) {
		ok = lab_buf_printf(text, "<e z=\"%zu\" a=\"x\"><f y=\"1\" "
				    "b=\"2\">", i) == 0;
		for (j = 0; ok && j < len + i; j++)
			ok = lab_buf_putc(text, (char)('a' + (i + j) % 26)) == 0;
		ok = ok && lab_buf_puts(text, "</f></e>") == 0;
	}
	return ok && lab_buf_puts(text, "</soap:Body></soap:Envelope>") == 0;
}

/* receive, or for CBC sent sign-then-encrypt, which receive refuses,
 * decrypt (allowed to) then verify. */
static int receive_any(dom_doc *doc, const keys *k, wss_opts *o,
		       lab_err *err)
{
	int rc;

	if (o->cipher != WSS_AES128_CBC)
		return wss_receive_doc(doc, k->bob_key, k->alice, o, err);
	o->allow_cbc = 1;
	rc = wss_decrypt_doc(doc, k->bob_key, o, err);
	return rc != LAB_OK ? rc : wss_verify_doc(doc, k->alice, o, err);
}

static void send_streams_body(void)
{
	static const wss_cipher ciphers[] = {WSS_AES256_GCM, WSS_AES128_CBC};
	static const size_t lens[] = {40000, 40001, 40002, 16383};
	keys k;
	size_t c, l;
	int broken;

	if (!load_keys(&k))
		goto out;
	for (c = 0; c < 2; c++)
		for (l = 0; l < sizeof lens / sizeof lens[0]; l++)
			for (broken = 0; broken < 2; broken++) {
				lab_buf text = LAB_BUF_INIT, want = LAB_BUF_INIT,
					got = LAB_BUF_INIT;
				dom_doc *plain = NULL, *doc = NULL;
				wss_opts o;
				lab_err err;

				t_context("%s, %zu bytes%s",
					  c == 0 ? "aes256-gcm" : "aes128-cbc",
					  lens[l], broken ? ", not canonical" : "");
				opts_at(&o, NOW, ciphers[c]);
				if (CHECK(streamed_text(&text, 5, lens[l])) &&
				    (plain = T_PARSE_N(text.data, text.len)) !=
					    NULL &&
				    (doc = T_PARSE_N(text.data, text.len)) != NULL &&
				    (!broken ||
				     CHECK(dom_first_child(dom_last_child(
						   el(doc, "Body"))) != NULL)) &&
				    CHECK_OK(wss_send_doc(doc, k.alice_key,
							  k.alice, k.bob, &o,
							  &err),
					     &err) &&
				    (doc = wire(doc)) != NULL &&
				    CHECK_OK(receive_any(doc, &k, &o, &err),
					     &err)) {
					children_c14n(plain, &want);
					children_c14n(doc, &got);
					CHECK_EQ_MEM(got.data, got.len, want.data,
						     want.len);
				}
				dom_doc_free(doc);
				dom_doc_free(plain);
				lab_buf_free(&text);
				lab_buf_free(&want);
				lab_buf_free(&got);
			}
out:
	free_keys(&k);
}

/* ---- forged signatures ---- */

/* A forgery: change a signed message, then expect `reason`. */
typedef struct forgery {
	const char *name;
	void (*forge)(dom_doc *doc, const keys *k);
	const char *reason;
} forgery;

static void change_body(dom_doc *doc, const keys *k)
{
	(void)k;
	set_text(el(doc, "region"), "somewhere else");
}

static void change_timestamp(dom_doc *doc, const keys *k)
{
	(void)k;
	set_text(el(doc, "Expires"), "2027-11-30T00:58:20Z");
}

static void change_signed_info(dom_doc *doc, const keys *k)
{
	(void)k;
	set_attr(reference(doc, 0), "Id", "touched");
}

static void drop_signature(dom_doc *doc, const keys *k)
{
	(void)k;
	dom_node_free(el(doc, "Signature"));
}

static void drop_timestamp_reference(dom_doc *doc, const keys *k)
{
	dom_node_free(reference(doc, 1));
	resign(doc, k->alice_key);
}

static void drop_body_reference(dom_doc *doc, const keys *k)
{
	dom_node_free(reference(doc, 0));
	resign(doc, k->alice_key);
}

/* Gives e the wsu:Id `id`. */
static void copy_id(dom_node *e, const dom_attr *id)
{
	lab_err err;

	if (CHECK_OK(dom_ns_declare(e, "wsu", WSU, &err), &err))
		CHECK_OK(dom_attr_set(e, WSU, "wsu:Id", id->value, id->len,
				      &err),
			 &err);
}

/* The signed Body moves under `where`; a new Body takes its place. */
static void move_body(dom_doc *doc, dom_node *where, int keep_id)
{
	dom_node *body = el(doc, "Body"), *env = dom_doc_element(doc);
	dom_node *fresh;
	const dom_attr *id = dom_attr_get_str(body, WSU, "Id");
	lab_err err;

	if (where == NULL || id == NULL ||
	    !CHECK_OK(dom_append(where, body, &err), &err))
		return;
	fresh = add_el(env, SOAP, "soap:Body");
	if (fresh != NULL && keep_id)
		copy_id(fresh, id);
	if (fresh != NULL)
		add_el(fresh, "urn:evil", "e:transferAllFunds");
}

static void body_into_header(dom_doc *doc, const keys *k)
{
	(void)k;
	move_body(doc, add_el(el(doc, "Header"), "urn:w", "w:Wrapper"), 0);
}

static void body_into_security(dom_doc *doc, const keys *k)
{
	(void)k;
	move_body(doc, el(doc, "Security"), 0);
}

static void body_id_copied(dom_doc *doc, const keys *k)
{
	(void)k;
	move_body(doc, add_el(el(doc, "Header"), "urn:w", "w:Wrapper"), 1);
}

static void body_wrapped(dom_doc *doc, const keys *k)
{
	dom_node *body = el(doc, "Body");
	dom_node *w = add_el(dom_doc_element(doc), "urn:w", "w:Wrapper");
	lab_err err;

	(void)k;
	if (w != NULL)
		CHECK_OK(dom_append(w, body, &err), &err);
}

static void duplicate_id(dom_doc *doc, const keys *k)
{
	const dom_attr *id = dom_attr_get_str(el(doc, "Body"), WSU, "Id");
	dom_node *x = add_el(el(doc, "Header"), "urn:w", "w:Other");

	(void)k;
	if (x != NULL && id != NULL)
		copy_id(x, id);
}

static void second_body(dom_doc *doc, const keys *k)
{
	(void)k;
	add_el(dom_doc_element(doc), SOAP, "soap:Body");
}

static void second_security(dom_doc *doc, const keys *k)
{
	(void)k;
	add_el(el(doc, "Header"),
	       "http://docs.oasis-open.org/wss/2004/01/"
	       "oasis-200401-wss-wssecurity-secext-1.0.xsd",
	       "wsse:Security");
}

static void drop_timestamp(dom_doc *doc, const keys *k)
{
	(void)k;
	dom_node_free(el(doc, "Timestamp"));
}

/* Algorithm substitution, signed again with the trusted key. */
static void swap_alg(dom_doc *doc, const keys *k, const char *local,
		     const char *alg)
{
	set_attr(el(doc, local), "Algorithm", alg);
	resign(doc, k->alice_key);
}

static void hmac(dom_doc *doc, const keys *k)
{
	swap_alg(doc, k, "SignatureMethod",
		 "http://www.w3.org/2000/09/xmldsig#hmac-sha1");
}

static void rsa_sha1(dom_doc *doc, const keys *k)
{
	swap_alg(doc, k, "SignatureMethod",
		 "http://www.w3.org/2000/09/xmldsig#rsa-sha1");
}

static void inclusive_c14n(dom_doc *doc, const keys *k)
{
	swap_alg(doc, k, "CanonicalizationMethod",
		 "http://www.w3.org/TR/2001/REC-xml-c14n-20010315");
}

static void xpath_transform(dom_doc *doc, const keys *k)
{
	swap_alg(doc, k, "Transform",
		 "http://www.w3.org/TR/1999/REC-xpath-19991116");
}

static void sha1_digest(dom_doc *doc, const keys *k)
{
	swap_alg(doc, k, "DigestMethod", DS "sha1");
}

static void xslt_added(dom_doc *doc, const keys *k)
{
	dom_node *t = add_el(el(doc, "Transforms"), DS, "ds:Transform");

	if (t != NULL)
		set_attr(t, "Algorithm", "http://www.w3.org/TR/1999/REC-xslt-19991116");
	resign(doc, k->alice_key);
}

static void external_uri(dom_doc *doc, const keys *k)
{
	set_attr(reference(doc, 0), "URI", "http://example.org/body.xml");
	resign(doc, k->alice_key);
}

static void xpointer_uri(dom_doc *doc, const keys *k)
{
	set_attr(reference(doc, 0), "URI", "#xpointer(/)");
	resign(doc, k->alice_key);
}

static void retrieval_method(dom_doc *doc, const keys *k)
{
	dom_node *ki = el(doc, "KeyInfo");

	(void)k;
	dom_node_free(dom_first_child(ki));
	set_attr(add_el(ki, DS, "ds:RetrievalMethod"), "URI", "#X509-1");
}

static void object_added(dom_doc *doc, const keys *k)
{
	(void)k;
	add_el(el(doc, "Signature"), DS, "ds:Object");
}

static const forgery forgeries[] = {
	{"a changed byte in the Body", change_body, "digest"},
	{"a changed byte in the Timestamp", change_timestamp, "digest"},
	{"a changed SignedInfo", change_signed_info,
	 "signature value does not verify"},
	{"no Signature", drop_signature, "0 Signatures"},
	{"no Timestamp", drop_timestamp, "0 Timestamps"},
	{"the Timestamp unsigned", drop_timestamp_reference,
	 "Timestamp is not signed"},
	{"the Body unsigned", drop_body_reference, "Body is not signed"},
	{"signed Body moved into the Header", body_into_header,
	 "signature wrapping"},
	{"signed Body moved into the Security header", body_into_security,
	 "signature wrapping"},
	{"signed Body moved, its ID on the new Body", body_id_copied,
	 "carried by 2 elements"},
	{"Body wrapped in another element", body_wrapped, "0 soap:Body"},
	{"a second element with the Body's ID", duplicate_id,
	 "carried by 2 elements"},
	{"two Bodies", second_body, "2 soap:Body"},
	{"two Security headers", second_security, "2 wsse:Security"},
	{"HMAC instead of RSA", hmac, "not allowed"},
	{"RSA-SHA1 instead of RSA-SHA256", rsa_sha1, "not allowed"},
	{"inclusive C14N of SignedInfo", inclusive_c14n, "not allowed"},
	{"an XPath transform", xpath_transform, "not allowed"},
	{"an added XSLT transform", xslt_added, "more than one Transform"},
	{"SHA-1 digests", sha1_digest, "not allowed"},
	{"an external reference", external_uri, "same-document"},
	{"an XPointer reference", xpointer_uri, "same-document"},
	{"a RetrievalMethod", retrieval_method, "SecurityTokenReference"},
	{"an Object in the Signature", object_added, "unexpected"},
};

static void forged_signatures(void)
{
	keys k;
	size_t i;

	if (!load_keys(&k))
		goto out;
	for (i = 0; i < sizeof forgeries / sizeof forgeries[0]; i++) {
		dom_doc *doc = signed_msg(k.alice_key, k.alice);

		t_context("%s", forgeries[i].name);
		if (doc == NULL)
			continue;
		forgeries[i].forge(doc, &k);
		refused(doc, NULL, k.alice, NOW, forgeries[i].reason);
	}
out:
	free_keys(&k);
}

static void stale_and_future(void)
{
	keys k;

	if (!load_keys(&k))
		goto out;
	t_context("expired");
	refused(signed_msg(k.alice_key, k.alice), NULL, k.alice, NOW + 300,
		"expired");
	t_context("created in the future");
	refused(signed_msg(k.alice_key, k.alice), NULL, k.alice, NOW - 61,
		"future");
	t_context("within the skew");
	{
		dom_doc *doc = wire(signed_msg(k.alice_key, k.alice));
		wss_opts o;
		lab_err err;

		opts_at(&o, NOW - 60, WSS_AES256_GCM);
		if (doc != NULL)
			CHECK_OK(wss_verify_doc(doc, k.alice, &o, &err), &err);
		dom_doc_free(doc);
	}
out:
	free_keys(&k);
}

static void untrusted_certificates(void)
{
	keys k;

	if (!load_keys(&k))
		goto out;
	t_context("alice's message, mallory trusted");
	refused(signed_msg(k.alice_key, k.alice), NULL, k.mallory, NOW,
		"not the trusted one");
	t_context("mallory's message, alice trusted");
	refused(signed_msg(k.mallory_key, k.mallory), NULL, k.alice, NOW,
		"not the trusted one");
	t_context("mallory's key behind alice's certificate");
	refused(signed_msg(k.mallory_key, k.alice), NULL, k.alice, NOW,
		"signature value does not verify");
out:
	free_keys(&k);
}

/* ---- forged encryption ---- */

/* A quakes message alice sends to `peer` with cipher c, in `layout`,
 * naming peer by `id`; NULL on failure. */
static dom_doc *sent_as(const keys *k, wss_cipher c, wss_layout layout,
			wss_key_id id, const wss_cert *peer)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 2048, 0, 42, 0};
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts o;
	lab_err err;

	opts_at(&o, NOW, c);
	o.layout = layout;
	o.key_id = id;
	if (T_GEN(&g, &text))
		doc = T_PARSE_N(text.data, text.len);
	lab_buf_free(&text);
	if (doc != NULL &&
	    !CHECK_OK(wss_send_doc(doc, k->alice_key, k->alice, peer, &o, &err),
		      &err)) {
		dom_doc_free(doc);
		doc = NULL;
	}
	return doc;
}

static dom_doc *sent_msg(const keys *k, wss_cipher c)
{
	return sent_as(k, c, WSS_SIGN_ENCRYPT, WSS_KEYID_THUMBPRINT, k->bob);
}

/* The EncryptedData's CipherValue (the Body's), or the EncryptedKey's. */
static dom_node *cipher_value(dom_doc *doc, int of_data)
{
	dom_node *owner = el(doc, of_data ? "EncryptedData" : "EncryptedKey");

	return owner != NULL ? t_find(owner, "CipherValue") : NULL;
}

/* Rewrites a CipherValue's base64 text through `edit`. */
static void edit_cipher(dom_doc *doc, int of_data,
			void (*edit)(lab_buf *b64))
{
	dom_node *cv = cipher_value(doc, of_data);
	lab_buf text = LAB_BUF_INIT;

	if (cv == NULL || dom_text_content(cv, &text) != LAB_OK ||
	    !CHECK(text.len > 8))
		goto out;
	edit(&text);
	set_text(cv, text.data);
out:
	lab_buf_free(&text);
}

/* Base64 digits that decode to other bits. */
static void flip_middle(lab_buf *b)
{
	char *c = &b->data[b->len / 2];

	*c = *c == 'A' ? 'B' : 'A';
}

static void flip_tail(lab_buf *b)
{
	/* The last full quantum before any padding: the GCM tag's bytes. */
	char *c = &b->data[b->len - 6];

	*c = *c == 'A' ? 'B' : 'A';
}

static void cut_half(lab_buf *b)
{
	b->len = (b->len / 2) & ~(size_t)3;
	b->data[b->len] = '\0';
}

static const char cbc_refused[] = "aes128-cbc is refused on receive";

/* receive of doc (on the wire) with CBC allowed or not: accepted when
 * reason is NULL, else refused with it; frees doc. */
static void cbc_case(dom_doc *doc, const keys *k, int allow,
		     const char *reason)
{
	wss_opts o;
	lab_err err;
	int rc;

	doc = doc != NULL ? wire(doc) : NULL;
	if (doc == NULL)
		return;
	opts_at(&o, NOW, WSS_AES128_CBC);
	o.allow_cbc = allow;
	lab_err_clear(&err);
	rc = wss_receive_doc(doc, k->bob_key, k->alice, &o, &err);
	if (reason == NULL) {
		CHECK_OK(rc, &err);
	} else {
		CHECK_EQ_INT(rc, LAB_ESECURITY);
		CHECK_MSG(strstr(err.msg, reason) != NULL,
			  "message \"%s\" does not say \"%s\"", err.msg,
			  reason);
	}
	dom_doc_free(doc);
}

static void flip_first(lab_buf *b)
{
	b->data[2] = b->data[2] == 'A' ? 'B' : 'A';
}

/* CBC is received only where allowed and signed after it was encrypted,
 * the signature checked before the cipher runs: a changed IV is then a
 * digest failure over the ciphertext, never a decryption. */
static void cbc_policy(void)
{
	static const char not_covered[] = "is not covered by a Signature "
					  "verified before it is decrypted";
	dom_doc *doc;
	dom_node *sig, *sec;
	lab_err err;
	keys k;
	int allow;

	if (!load_keys(&k))
		goto out;
	for (allow = 0; allow < 2; allow++) {
		t_context("sign-encrypt, %s", allow ? "allowed" : "not allowed");
		cbc_case(sent_as(&k, WSS_AES128_CBC, WSS_SIGN_ENCRYPT,
				 WSS_KEYID_THUMBPRINT, k.bob),
			 &k, allow, allow ? not_covered : cbc_refused);
		t_context("encrypt-sign, %s", allow ? "allowed" : "not allowed");
		cbc_case(sent_as(&k, WSS_AES128_CBC, WSS_ENCRYPT_SIGN,
				 WSS_KEYID_THUMBPRINT, k.bob),
			 &k, allow, allow ? NULL : cbc_refused);
	}
	t_context("encrypt-sign, allowed, a changed IV");
	doc = sent_as(&k, WSS_AES128_CBC, WSS_ENCRYPT_SIGN,
		      WSS_KEYID_THUMBPRINT, k.bob);
	if (doc != NULL)
		edit_cipher(doc, 1, flip_first);
	cbc_case(doc, &k, 1, "digest of '#Body-1' does not match");
	t_context("encrypt-sign, allowed, the Signature after the key");
	doc = sent_as(&k, WSS_AES128_CBC, WSS_ENCRYPT_SIGN,
		      WSS_KEYID_THUMBPRINT, k.bob);
	sig = doc != NULL ? el(doc, "Signature") : NULL;
	sec = doc != NULL ? el(doc, "Security") : NULL;
	if (sig != NULL && sec != NULL) {
		dom_remove(sig);
		CHECK_OK(dom_append(sec, sig, &err), &err);
	}
	cbc_case(doc, &k, 1, not_covered);
out:
	free_keys(&k);
}

static void forged_encryption(void)
{
	static const struct {
		const char *name;
		int of_data;
		void (*edit)(lab_buf *b64);
	} edits[] = {
		{"a changed ciphertext byte", 1, flip_middle},
		{"a changed tag or last block", 1, flip_tail},
		{"a truncated ciphertext", 1, cut_half},
		{"a changed wrapped key", 0, flip_middle},
	};
	static const wss_cipher ciphers[] = {WSS_AES256_GCM, WSS_AES128_CBC};
	keys k;
	size_t i, c;

	if (!load_keys(&k))
		goto out;
	for (c = 0; c < 2; c++) {
		t_context("%s, wrong key", c == 0 ? "gcm" : "cbc");
		refused(sent_msg(&k, ciphers[c]), k.mallory_key, k.alice, NOW,
			c == 0 ? "decryption failed" : cbc_refused);
		for (i = 0; i < sizeof edits / sizeof edits[0]; i++) {
			dom_doc *doc = sent_msg(&k, ciphers[c]);

			t_context("%s, %s", c == 0 ? "gcm" : "cbc",
				  edits[i].name);
			if (doc == NULL)
				continue;
			edit_cipher(doc, edits[i].of_data, edits[i].edit);
			refused(doc, k.bob_key, k.alice, NOW,
				c == 0 ? "decryption failed" : cbc_refused);
		}
	}
out:
	free_keys(&k);
}

/* The signature forgeries again with the Signature encrypted after the
 * forgery (EncryptSignature): each is refused once the Signature is
 * decrypted where it stands, with the one message of a signature that
 * fails after a decryption.  A forgery that leaves no
 * message send could encrypt (two Bodies, no Signature) is skipped. */
static void forged_encrypted_signature(void)
{
	size_t i, built = 0;
	keys k;

	if (!load_keys(&k))
		goto out;
	for (i = 0; i < sizeof forgeries / sizeof forgeries[0]; i++) {
		dom_doc *doc = signed_msg(k.alice_key, k.alice);
		dom_node *sig;
		size_t count;
		wss_msg m;
		lab_err err;

		t_context("%s", forgeries[i].name);
		if (doc == NULL)
			continue;
		forgeries[i].forge(doc, &k);
		if (wss_msg_open(doc, 0, LAB_EMALFORMED, &m, &err) != LAB_OK ||
		    (sig = wss_child(m.security, m.n.ds, m.n.Signature,
				     &count)) == NULL) {
			dom_doc_free(doc);
			continue;
		}
		if (!CHECK_OK(wss_xenc_encrypt(&m, k.bob, WSS_AES256_GCM,
					       WSS_KEYID_THUMBPRINT, &sig, 1,
					       &err),
			      &err)) {
			dom_doc_free(doc);
			continue;
		}
		CHECK(t_find(el(doc, "Security"), "SignedInfo") == NULL);
		built++;
		/* The envelope's shape is read before anything is decrypted;
		 * what the Signature's check finds after, is the one
		 * message. */
		refused(doc, k.bob_key, k.alice, NOW,
			strstr(forgeries[i].reason, "soap:Body") != NULL ||
					strstr(forgeries[i].reason,
					       "wsse:Security") != NULL ||
					strstr(forgeries[i].reason,
					       "Timestamps") != NULL
				? forgeries[i].reason
				: WSS_NOT_RECEIVED);
	}
	t_context("forgeries built");
	CHECK_MSG(built + 5 >= sizeof forgeries / sizeof forgeries[0],
		  "only %zu of %zu forgeries could be encrypted", built,
		  sizeof forgeries / sizeof forgeries[0]);
out:
	free_keys(&k);
}

/*
 * A signed Body changed, then encrypted to the receiver again (anyone can:
 * it takes only the receiver's certificate).  This content serializes to
 * its own exc-c14n, so where the build can (parser=insitu, emit other
 * than tree)
 * the Body's digest takes the decrypted bytes instead of a walk: the
 * change must be refused all the same, and the unchanged message taken.
 */
static void forged_then_encrypted(void)
{
	static const char text[] =
		"<soap:Envelope xmlns:soap=\"" SOAP "\"><soap:Header/>"
		"<soap:Body><p:x xmlns:p=\"urn:p\" a=\"1\">text</p:x>"
		"</soap:Body></soap:Envelope>";
	int as_parsed = t_is_choice("parser", "insitu") &&
			!t_is_choice("emit", "tree");
	keys k;
	int forge;

	if (!load_keys(&k))
		goto out;
	for (forge = 0; forge < 2; forge++) {
		dom_doc *doc = T_PARSE_N(text, sizeof text - 1);
		const dom_canon_dep *deps;
		wss_opts o;
		lab_err err;
		size_t len, ndeps;

		t_context("%s", forge ? "changed" : "unchanged");
		opts_at(&o, NOW, WSS_AES256_GCM);
		if (doc == NULL ||
		    !CHECK_OK(wss_sign_doc(doc, k.alice_key, k.alice, &o, &err),
			      &err))
			goto next;
		if (forge)
			set_text(el(doc, "x"), "other");
		if (!CHECK_OK(wss_encrypt_doc(doc, k.bob, &o, &err), &err))
			goto next;
		if (forge) {
			refused(doc, k.bob_key, k.alice, NOW, WSS_NOT_RECEIVED);
			continue;
		}
		if ((doc = wire(doc)) != NULL &&
		    CHECK_OK(wss_receive_doc(doc, k.bob_key, k.alice, &o, &err),
			     &err))
			CHECK_EQ_INT(dom_canonical_content(el(doc, "Body"), &len,
							   &deps, &ndeps) != NULL,
				     as_parsed);
next:
		dom_doc_free(doc);
	}
out:
	free_keys(&k);
}

static void weak_encryption_algorithms(void)
{
	static const struct {
		const char *element, *alg;
	} swaps[] = {
		{"EncryptedKey", "http://www.w3.org/2001/04/xmlenc#rsa-1_5"},
		{"EncryptedData", "http://www.w3.org/2001/04/xmlenc#tripledes-cbc"},
		{"EncryptedData", "http://www.w3.org/2001/04/xmlenc#aes256-cbc"},
	};
	keys k;
	size_t i;

	if (!load_keys(&k))
		goto out;
	for (i = 0; i < sizeof swaps / sizeof swaps[0]; i++) {
		dom_doc *doc = sent_msg(&k, WSS_AES256_GCM);
		dom_node *owner;

		t_context("%s", swaps[i].alg);
		if (doc == NULL)
			continue;
		owner = el(doc, swaps[i].element);
		if (owner != NULL)
			set_attr(t_find(owner, "EncryptionMethod"), "Algorithm",
				 swaps[i].alg);
		refused(doc, k.bob_key, k.alice, NOW, "not allowed");
	}
out:
	free_keys(&k);
}

/* ---- caps on pre-authentication work (wss/caps.h) ---- */

/* Parses `text` into parent before ref (NULL: at the end). */
static int put_xml(dom_node *parent, dom_node *ref, const lab_buf *text)
{
	lab_err err;

	return CHECK_OK(dom_parse_into(parent, ref, text->data, text->len,
				       NULL, &err),
			&err);
}

/* An EncryptedData "sp-i" holding el's bytes under key, in el's place. */
static int encrypt_part(dom_node *el, size_t i, const unsigned char *key)
{
	lab_buf pt = LAB_BUF_INIT, ct = LAB_BUF_INIT, x = LAB_BUF_INIT;
	lab_err err;
	int ok = T_SERIALIZE(el, &pt) &&
		 CHECK_OK(wss_encrypt(WSS_AES256_GCM, key, pt.data, pt.len,
				      &ct, &err),
			  &err) &&
		 CHECK(lab_buf_printf(&x,
				      "<xenc:EncryptedData xmlns:xenc=\"%s\" "
				      "Id=\"sp-%zu\" Type=\"%s\">"
				      "<xenc:EncryptionMethod Algorithm=\"%s\"/>"
				      "<xenc:CipherData><xenc:CipherValue>",
				      WSS_NS_XENC, i, WSS_TYPE_CONTENT,
				      wss_cipher_uri(WSS_AES256_GCM)) ==
			       LAB_OK &&
		       lab_base64_encode(ct.data, ct.len, 0, &x) == LAB_OK &&
		       lab_buf_puts(&x, "</xenc:CipherValue></xenc:CipherData>"
					"</xenc:EncryptedData>") == LAB_OK) &&
		 put_xml(dom_parent(el), el, &x);

	if (ok)
		dom_node_free(el);
	lab_buf_free(&pt);
	lab_buf_free(&ct);
	lab_buf_free(&x);
	return ok;
}

/* The EncryptedKey for bob holding key, naming sp-i for every i < n with
 * i % nkeys == j, first in the Security header. */
static int add_key(dom_doc *doc, const keys *k, const unsigned char *key,
		   size_t j, size_t n, size_t nkeys)
{
	lab_buf w = LAB_BUF_INIT, x = LAB_BUF_INIT;
	dom_node *sec = el(doc, "Security");
	lab_err err;
	size_t i;
	int ok = sec != NULL &&
		 CHECK_OK(wss_rsa_oaep_wrap(k->bob, key, 32, &w, &err), &err) &&
		 CHECK(lab_buf_printf(&x,
				      "<xenc:EncryptedKey xmlns:xenc=\"%s\">"
				      "<xenc:EncryptionMethod Algorithm=\"%s\"/>"
				      "<xenc:CipherData><xenc:CipherValue>",
				      WSS_NS_XENC, WSS_ALG_RSA_OAEP) == LAB_OK &&
		       lab_base64_encode(w.data, w.len, 0, &x) == LAB_OK &&
		       lab_buf_puts(&x, "</xenc:CipherValue></xenc:CipherData>"
					"<xenc:ReferenceList>") == LAB_OK);

	for (i = j; ok && i < n; i += nkeys)
		ok = CHECK(lab_buf_printf(&x, "<xenc:DataReference "
					      "URI=\"#sp-%zu\"/>",
					  i) == LAB_OK);
	ok = ok && CHECK(lab_buf_puts(&x, "</xenc:ReferenceList>"
					  "</xenc:EncryptedKey>") == LAB_OK) &&
	     put_xml(sec, dom_first_child(sec), &x);
	lab_buf_free(&w);
	lab_buf_free(&x);
	return ok;
}

/*
 * Signed by alice: a Body of n elements (the first with Id `id` unless
 * NULL), each then encrypted on its own for bob, their DataReferences
 * spread over nkeys EncryptedKeys (element i under key i % nkeys).
 * Received whole, it is accepted: a sender that encrypts Body parts
 * separately, which is what the caps count.
 */
static dom_doc *split_msg(const keys *k, size_t n, size_t nkeys,
			  const char *id)
{
	unsigned char key[8][32];
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	dom_node *c;
	wss_opts o;
	lab_err err;
	size_t i;
	int ok = CHECK(nkeys <= 8) &&
		 lab_buf_printf(&text, "<soap:Envelope xmlns:soap=\"%s\">"
				       "<soap:Header/><soap:Body>", SOAP) ==
			 LAB_OK;

	for (i = 0; ok && i < n; i++)
		ok = lab_buf_printf(&text, "<p:x xmlns:p=\"urn:p\"%s%s%s>%zu"
					   "</p:x>", i == 0 && id ? " Id=\"" : "",
				    i == 0 && id ? id : "",
				    i == 0 && id ? "\"" : "", i) == LAB_OK;
	ok = ok && lab_buf_puts(&text, "</soap:Body></soap:Envelope>") == LAB_OK &&
	     (doc = T_PARSE_N(text.data, text.len)) != NULL &&
	     CHECK_OK(wss_random(key, sizeof key, &err), &err);
	opts_at(&o, NOW, WSS_AES256_GCM);
	ok = ok && CHECK_OK(wss_sign_doc(doc, k->alice_key, k->alice, &o, &err),
			    &err);
	for (i = 0, c = ok ? wss_first_el(el(doc, "Body")) : NULL;
	     ok && c != NULL; i++) {
		dom_node *next = wss_next_el(c);

		ok = encrypt_part(c, i, key[i % nkeys]);
		c = next;
	}
	for (i = 0; ok && i < nkeys; i++)
		ok = add_key(doc, k, key[i], i, n, nkeys);
	lab_buf_free(&text);
	if (!ok) {
		dom_doc_free(doc);
		doc = NULL;
	}
	return doc;
}

/* alice's signed message with `extra` more References (to the
 * BinarySecurityToken, digested) and `transforms` exc-c14n Transforms
 * in the first, signed again. */
static dom_doc *refs_msg(const keys *k, size_t extra, size_t transforms)
{
	unsigned char d[WSS_SHA256_LEN];
	dom_doc *doc = signed_msg(k->alice_key, k->alice);
	dom_node *bst = doc != NULL ? el(doc, "BinarySecurityToken") : NULL;
	const dom_attr *id = bst != NULL ? dom_attr_get_str(bst, WSU, "Id")
					 : NULL;
	lab_buf x = LAB_BUF_INIT;
	lab_err err;
	size_t i;
	int ok = id != NULL && CHECK_OK(wss_digest(bst, NULL, 0, d, &err), &err);

	for (i = 0; ok && i < extra; i++) {
		x.len = 0;
		ok = lab_buf_printf(&x, "<ds:Reference URI=\"#%s\"><ds:Transforms>"
					"<ds:Transform Algorithm=\"%s\"/>"
					"</ds:Transforms><ds:DigestMethod "
					"Algorithm=\"%s\"/><ds:DigestValue>",
				    id->value, WSS_ALG_EXC_C14N,
				    WSS_ALG_SHA256) == LAB_OK &&
		     lab_base64_encode(d, sizeof d, 0, &x) == LAB_OK &&
		     lab_buf_puts(&x, "</ds:DigestValue></ds:Reference>") ==
			     LAB_OK &&
		     put_xml(el(doc, "SignedInfo"), NULL, &x);
	}
	for (i = 1; ok && i < transforms; i++) {
		x.len = 0;
		ok = lab_buf_printf(&x, "<ds:Transform Algorithm=\"%s\"/>",
				    WSS_ALG_EXC_C14N) == LAB_OK &&
		     put_xml(el(doc, "Transforms"), NULL, &x);
	}
	lab_buf_free(&x);
	if (ok)
		resign(doc, k->alice_key);
	return doc;
}

/* One case of a cap: the message (a and b as caps_on_* say), the cap
 * set (limit 0: the default), and the reason it is refused (NULL: it is
 * accepted). */
typedef struct cap_case {
	size_t a, b;
	wss_cap_kind cap;
	size_t limit;
	const char *reason;
} cap_case;

/* Runs n cases on split_msg(a parts, b keys) received, or with `dsig` on
 * refs_msg(a more References, b Transforms) verified. */
static void cap_cases(const cap_case *c, size_t n, int dsig)
{
	keys k;
	size_t i;

	if (!load_keys(&k))
		goto out;
	for (i = 0; i < n; i++) {
		wss_caps caps;

		memset(&caps, 0, sizeof caps);
		caps.max[c[i].cap] = c[i].limit;
		t_context("%zu, %zu, %s %zu", c[i].a, c[i].b,
			  wss_cap_flag(c[i].cap), c[i].limit);
		if (dsig)
			outcome(refs_msg(&k, c[i].a, c[i].b), NULL, k.alice,
				NOW, &caps, c[i].reason);
		else
			outcome(split_msg(&k, c[i].a, c[i].b, NULL), k.bob_key,
				k.alice, NOW, &caps, c[i].reason);
	}
out:
	free_keys(&k);
}

/* Each cap on decryption at its limit (accepted) and one over (refused,
 * naming the limit and its flag), at the default and as set: a parts
 * encrypted under b keys. */
static void caps_on_decryption(void)
{
	static const cap_case cases[] = {
		{5, 5, WSS_CAP_ENCRYPTED_KEYS, 0, NULL},
		{6, 6, WSS_CAP_ENCRYPTED_KEYS, 0,
		 "more than 5 EncryptedKeys in the Security header: over the "
		 "limit of 5 (--max-encrypted-keys)"},
		{3, 3, WSS_CAP_ENCRYPTED_KEYS, 3, NULL},
		{3, 3, WSS_CAP_ENCRYPTED_KEYS, 2,
		 "more than 2 EncryptedKeys in the Security header: over the "
		 "limit of 2 (--max-encrypted-keys)"},
		{100, 1, WSS_CAP_DATA_REFS, 0, NULL},
		{101, 1, WSS_CAP_DATA_REFS, 0,
		 "more than 100 DataReferences in one ReferenceList: over the "
		 "limit of 100 (--max-data-refs)"},
		{4, 1, WSS_CAP_DATA_REFS, 4, NULL},
		{4, 1, WSS_CAP_DATA_REFS, 3,
		 "more than 3 DataReferences in one ReferenceList: over the "
		 "limit of 3 (--max-data-refs)"},
		{200, 2, WSS_CAP_DATA_REFS_TOTAL, 0, NULL},
		{201, 3, WSS_CAP_DATA_REFS_TOTAL, 0,
		 "more than 200 DataReferences in the Security header: over "
		 "the limit of 200 (--max-data-refs-total)"},
		{4, 2, WSS_CAP_DATA_REFS_TOTAL, 4, NULL},
		{4, 2, WSS_CAP_DATA_REFS_TOTAL, 3,
		 "more than 3 DataReferences in the Security header: over the "
		 "limit of 3 (--max-data-refs-total)"},
	};

	cap_cases(cases, sizeof cases / sizeof cases[0], 0);
}

/* The caps on References and Transforms, as caps_on_decryption: a more
 * References, b Transforms in the first; two Transforms under the
 * default cap meet the profile's whitelist. */
static void caps_on_references(void)
{
	static const cap_case cases[] = {
		{28, 1, WSS_CAP_REFERENCES, 0, NULL},
		{29, 1, WSS_CAP_REFERENCES, 0,
		 "more than 30 References in SignedInfo: over the limit of 30 "
		 "(--max-references)"},
		{1, 1, WSS_CAP_REFERENCES, 3, NULL},
		{1, 1, WSS_CAP_REFERENCES, 2,
		 "more than 2 References in SignedInfo: over the limit of 2 "
		 "(--max-references)"},
		{0, 1, WSS_CAP_TRANSFORMS, 1, NULL},
		{0, 2, WSS_CAP_TRANSFORMS, 1,
		 "more than 1 Transforms in one Reference: over the limit of 1 "
		 "(--max-transforms)"},
		{0, 2, WSS_CAP_TRANSFORMS, 0, "more than one Transform"},
		{0, 6, WSS_CAP_TRANSFORMS, 0,
		 "more than 5 Transforms in one Reference: over the limit of 5 "
		 "(--max-transforms)"},
	};

	cap_cases(cases, sizeof cases / sizeof cases[0], 1);
}

/* SignedInfo's size: accepted at exactly its size, refused a byte under;
 * the junk shape refused at the default before it is canonicalized (200
 * prefixes, within the parser's --max-ns, so the cap is what refuses). */
static void cap_on_signed_info(void)
{
	lab_hostile_opts h = {LAB_HOSTILE_SIGNEDINFO_JUNK, 100000, 200, NULL,
			      NULL, NULL, NOW, NULL, 0, NULL, 0};
	lab_buf text = LAB_BUF_INIT, want = LAB_BUF_INIT;
	dom_doc *doc;
	wss_caps caps;
	lab_err err;
	size_t size = 1;
	keys k;

	memset(&caps, 0, sizeof caps);
	if (!load_keys(&k) || (doc = signed_msg(k.alice_key, k.alice)) == NULL)
		goto out;
	while (!wss_cap_size_within(el(doc, "SignedInfo"), size))
		size++;
	CHECK(size > 500);
	t_context("at its size, %zu", size);
	caps.max[WSS_CAP_SIGNEDINFO] = size;
	outcome(doc, NULL, k.alice, NOW, &caps, NULL);
	t_context("a byte under");
	caps.max[WSS_CAP_SIGNEDINFO] = size - 1;
	lab_buf_printf(&want, "more than %zu bytes in SignedInfo: over the "
			      "limit of %zu (--max-signedinfo)",
		       size - 1, size - 1);
	outcome(signed_msg(k.alice_key, k.alice), NULL, k.alice, NOW, &caps,
		want.data);
	t_context("the junk shape");
	h.key = k.alice_key;
	h.cert = k.alice;
	if (CHECK_OK(lab_hostile(&h, &text, &err), &err) &&
	    (doc = T_PARSE_N(text.data, text.len)) != NULL)
		outcome(doc, k.bob_key, k.alice, NOW, NULL,
			"over the limit of 65536 (--max-signedinfo)");
out:
	lab_buf_free(&text);
	lab_buf_free(&want);
	free_keys(&k);
}

/*
 * The many-enc shape: refused before any decryption, by the cap at the
 * default scale and for where its EncryptedData stand below it; in the
 * Body they are decrypted and the changed Body refused by its digest.
 * The ID of a decrypted element that is the BinarySecurityToken's
 * (renamed to it after sending: KeyInfo is not signed) makes a duplicate
 * across the decryption, refused like any other.
 */
static void many_encrypted(void)
{
	static const struct {
		lab_hostile_kind kind;
		size_t count;
		const char *reason;
	} cases[] = {
		{LAB_HOSTILE_MANY_ENC, 101, "(--max-data-refs)"},
		{LAB_HOSTILE_MANY_ENC, 3, "outside the soap:Body"},
		{LAB_HOSTILE_MANY_ENC_BODY, 3, WSS_NOT_RECEIVED},
	};
	keys k;
	size_t i;

	if (!load_keys(&k))
		goto out;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		lab_hostile_opts h = {cases[i].kind, 0, cases[i].count,
				      k.alice_key, k.alice, k.bob, NOW,
				      NULL, 0, NULL, 0};
		lab_buf text = LAB_BUF_INIT;
		dom_doc *doc;
		lab_err err;

		t_context("%zu EncryptedData, %s", cases[i].count,
			  cases[i].reason);
		if (CHECK_OK(lab_hostile(&h, &text, &err), &err) &&
		    (doc = T_PARSE_N(text.data, text.len)) != NULL)
			outcome(doc, k.bob_key, k.alice, NOW, NULL,
				cases[i].reason);
		lab_buf_free(&text);
	}
	t_context("a decrypted ID that is the token's");
	{
		dom_doc *doc = split_msg(&k, 2, 1, "X509-1");
		dom_node *bst = doc != NULL ? el(doc, "BinarySecurityToken")
					    : NULL;
		lab_err err;

		if (bst != NULL &&
		    CHECK_OK(dom_attr_set(bst, WSU, "wsu:Id", "X509-1", 6,
					  &err),
			     &err)) {
			set_attr(t_find(el(doc, "KeyInfo"), "Reference"), "URI",
				 "#X509-1");
			outcome(doc, k.bob_key, k.alice, NOW, NULL,
				"carries the ID 'X509-1', which 2 elements "
				"carry");
		} else {
			dom_doc_free(doc);
		}
	}
out:
	free_keys(&k);
}

/* ---- layouts, recipients and SOAP versions ---- */

/* sent_as in AES-256-GCM, on the wire. */
static dom_doc *layout_msg(const keys *k, wss_layout layout, wss_key_id id,
			   const wss_cert *peer)
{
	dom_doc *doc = sent_as(k, WSS_AES256_GCM, layout, id, peer);

	return doc != NULL ? wire(doc) : NULL;
}

/* receive of doc by (key, self), alice trusted: accepted with the Body
 * `want` (NULL: any) when reason is NULL, else refused with reason;
 * frees doc. */
static void received_as(dom_doc *doc, const wss_privkey *key,
			const wss_cert *self, const keys *k,
			const lab_buf *want, const char *reason)
{
	lab_buf got = LAB_BUF_INIT;
	wss_opts o;
	lab_err err;
	int rc;

	if (doc == NULL)
		return;
	opts_at(&o, NOW, WSS_AES256_GCM);
	o.self = self;
	lab_err_clear(&err);
	rc = wss_receive_doc(doc, key, k->alice, &o, &err);
	if (reason != NULL) {
		CHECK_EQ_INT(rc, LAB_ESECURITY);
		CHECK_MSG(strstr(err.msg, reason) != NULL,
			  "message \"%s\" does not say \"%s\"", err.msg,
			  reason);
	} else if (CHECK_OK(rc, &err) && want != NULL) {
		body_c14n(doc, &got);
		CHECK_EQ_MEM(got.data, got.len, want->data, want->len);
	}
	lab_buf_free(&got);
	dom_doc_free(doc);
}

static const char *const layout_names[] = {"sign-encrypt", "encrypt-sign"};
static const char *const key_id_names[] = {"thumbprint", "issuer-serial",
					   "ski", "bst"};

/* Every layout and key identifier: received by bob, with its
 * certificate and without, with the Body alice signed; mallory, whose
 * name it does not carry, is told so. */
static void layouts_received(void)
{
	lab_buf want = LAB_BUF_INIT;
	dom_doc *plain;
	keys k;
	int lay, id;

	if (!load_keys(&k) ||
	    (plain = signed_msg(k.alice_key, k.alice)) == NULL)
		goto out;
	body_c14n(plain, &want);
	dom_doc_free(plain);
	for (lay = 0; lay < 2; lay++)
		for (id = 0; id < 4; id++) {
			t_context("%s, %s", layout_names[lay], key_id_names[id]);
			received_as(layout_msg(&k, (wss_layout)lay,
					       (wss_key_id)id, k.bob),
				    k.bob_key, k.bob, &k, &want, NULL);
			received_as(layout_msg(&k, (wss_layout)lay,
					       (wss_key_id)id, k.bob),
				    k.bob_key, NULL, &k, &want, NULL);
			received_as(layout_msg(&k, (wss_layout)lay,
					       (wss_key_id)id, k.bob),
				    k.mallory_key, k.mallory, &k, NULL,
				    "no EncryptedKey is addressed to this "
				    "receiver");
		}
out:
	lab_buf_free(&want);
	free_keys(&k);
}

/* A change to a message and why receive refuses it, per layout (NULL:
 * the layout has no such part). */
typedef struct layout_edit {
	const char *name;
	void (*edit)(dom_doc *doc);
	const char *reason[2];
} layout_edit;

/* Each edit in each layout on a fresh message make(k, layout) gives,
 * received by bob. */
static void edits_refused(const layout_edit *edits, size_t n,
			  dom_doc *(*make)(const keys *k, wss_layout layout))
{
	keys k;
	size_t i;
	int lay;

	if (!load_keys(&k))
		goto out;
	for (lay = 0; lay < 2; lay++)
		for (i = 0; i < n; i++) {
			dom_doc *doc;

			if (edits[i].reason[lay] == NULL)
				continue;
			doc = make(&k, (wss_layout)lay);
			t_context("%s, %s", layout_names[lay], edits[i].name);
			if (doc == NULL)
				continue;
			edits[i].edit(doc);
			received_as(wire(doc), k.bob_key, k.bob, &k, NULL,
				    edits[i].reason[lay]);
		}
out:
	free_keys(&k);
}

static dom_doc *thumbprint_msg(const keys *k, wss_layout layout)
{
	return layout_msg(k, layout, WSS_KEYID_THUMBPRINT, k->bob);
}

static void change_timestamp_text(dom_doc *doc)
{
	set_text(el(doc, "Created"), "2026-11-30T00:53:21Z");
}

static void flip_data(dom_doc *doc)
{
	edit_cipher(doc, 1, flip_middle);
}

static void flip_key(dom_doc *doc)
{
	edit_cipher(doc, 0, flip_middle);
}

/* In either layout, a change to anything signed or encrypted is
 * refused; the signed ciphertext of encrypt-sign fails its digest before
 * anything is decrypted. */
static void layouts_tampered(void)
{
	static const layout_edit edits[] = {
		{"the Body's ciphertext", flip_data,
		 {"decryption failed", "digest of '#Body-1' does not match"}},
		{"the wrapped key", flip_key,
		 {"decryption failed", "decryption failed"}},
		{"the Timestamp", change_timestamp_text,
		 {WSS_NOT_RECEIVED, "digest of '#TS-1' does not match"}},
	};

	edits_refused(edits, sizeof edits / sizeof edits[0], thumbprint_msg);
}

/* The header is taken in order: a sign-encrypt message whose Signature
 * is moved before the EncryptedKey is verified over the ciphertext. */
static void header_order(void)
{
	dom_doc *doc;
	dom_node *sig, *sec;
	lab_err err;
	keys k;

	if (!load_keys(&k))
		goto out;
	doc = layout_msg(&k, WSS_SIGN_ENCRYPT, WSS_KEYID_THUMBPRINT, k.bob);
	sig = doc != NULL ? el(doc, "Signature") : NULL;
	sec = doc != NULL ? el(doc, "Security") : NULL;
	if (sig != NULL && sec != NULL) {
		dom_remove(sig);
		CHECK_OK(dom_insert_before(sec, sig, wss_first_el(sec), &err),
			 &err);
	}
	received_as(doc, k.bob_key, k.bob, &k, NULL,
		    "digest of '#Body-1' does not match");
out:
	free_keys(&k);
}

/* An EncryptedKey for `to` holding key, its KeyInfo the thumbprint, Id
 * `id`; with a ReferenceList naming sp-0 when `list`. */
static int recipient_key(dom_doc *doc, const wss_cert *to,
			 const unsigned char *key, const char *id, int list)
{
	unsigned char thumb[WSS_SHA1_LEN];
	lab_buf w = LAB_BUF_INIT, x = LAB_BUF_INIT;
	dom_node *sec = el(doc, "Security");
	const unsigned char *der;
	lab_err err;
	size_t len;
	int ok;

	der = wss_cert_der(to, &len);
	ok = sec != NULL && CHECK(wss_sha1(der, len, thumb) == LAB_OK) &&
	     CHECK_OK(wss_rsa_oaep_wrap(to, key, 32, &w, &err), &err) &&
	     CHECK(lab_buf_printf(
			   &x,
			   "<xenc:EncryptedKey xmlns:xenc=\"%s\" Id=\"%s\">"
			   "<xenc:EncryptionMethod Algorithm=\"%s\"/>"
			   "<ds:KeyInfo xmlns:ds=\"%s\"><wsse:SecurityTokenReference "
			   "xmlns:wsse=\"%s\"><wsse:KeyIdentifier ValueType=\"%s\">",
			   WSS_NS_XENC, id, WSS_ALG_RSA_OAEP, DS, WSS_NS_WSSE,
			   WSS_THUMBPRINT) == LAB_OK &&
		   lab_base64_encode(thumb, sizeof thumb, 0, &x) == LAB_OK &&
		   lab_buf_puts(&x, "</wsse:KeyIdentifier>"
				    "</wsse:SecurityTokenReference></ds:KeyInfo>"
				    "<xenc:CipherData><xenc:CipherValue>") ==
			   LAB_OK &&
		   lab_base64_encode(w.data, w.len, 0, &x) == LAB_OK &&
		   lab_buf_puts(&x, "</xenc:CipherValue></xenc:CipherData>") ==
			   LAB_OK &&
		   lab_buf_puts(&x, list ? "<xenc:ReferenceList><xenc:"
					   "DataReference URI=\"#sp-0\"/>"
					   "</xenc:ReferenceList>"
					 : "") == LAB_OK &&
		   lab_buf_puts(&x, "</xenc:EncryptedKey>") == LAB_OK) &&
	     put_xml(sec, wss_first_el(sec), &x);
	lab_buf_free(&w);
	lab_buf_free(&x);
	return ok;
}

/* alice's signed message, its one Body element encrypted as sp-0 under
 * a key each of `to` gets an EncryptedKey for (the first listed first,
 * each with its ReferenceList when `lists`, else one standalone
 * ReferenceList after them). */
static dom_doc *recipients_msg(const keys *k, const wss_cert *const *to,
			       size_t n, int lists)
{
	static const char text[] =
		"<soap:Envelope xmlns:soap=\"" SOAP "\"><soap:Header/>"
		"<soap:Body><p:x xmlns:p=\"urn:p\">text</p:x></soap:Body>"
		"</soap:Envelope>";
	static const char standalone[] =
		"<xenc:ReferenceList xmlns:xenc=\"" WSS_NS_XENC "\">"
		"<xenc:DataReference URI=\"#sp-0\"/></xenc:ReferenceList>";
	unsigned char key[32];
	dom_doc *doc = T_PARSE_N(text, sizeof text - 1);
	lab_buf x = LAB_BUF_INIT;
	wss_opts o;
	lab_err err;
	char id[24];
	size_t i;
	int ok;

	opts_at(&o, NOW, WSS_AES256_GCM);
	ok = doc != NULL && CHECK_OK(wss_random(key, sizeof key, &err), &err) &&
	     CHECK_OK(wss_sign_doc(doc, k->alice_key, k->alice, &o, &err),
		      &err) &&
	     encrypt_part(el(doc, "x"), 0, key);
	for (i = n; ok && i-- > 0;) {
		snprintf(id, sizeof id, "EK-%zu", i);
		ok = recipient_key(doc, to[i], key, id, lists);
	}
	if (ok && !lists) {
		dom_node *sec = el(doc, "Security");

		ok = lab_buf_puts(&x, standalone) == LAB_OK &&
		     put_xml(sec, wss_next_el(wss_first_el(sec)), &x);
	}
	lab_buf_free(&x);
	if (!ok) {
		dom_doc_free(doc);
		return NULL;
	}
	return wire(doc);
}

/* One message for two recipients is received by either, each with its
 * certificate; a standalone ReferenceList decrypts as one inside the
 * EncryptedKey does. */
/* The token a store keeps: the one EncryptedKey's; none or two are
 * refused, saying how many there are. */
static void key_token(void)
{
	const wss_cert *both[2];
	unsigned char id[WSS_SHA1_LEN];
	lab_buf wrapped = LAB_BUF_INIT;
	dom_doc *doc;
	lab_err err;
	keys k;

	if (!load_keys(&k))
		goto out;
	both[0] = k.bob;
	both[1] = k.mallory;
	t_context("one EncryptedKey");
	doc = layout_msg(&k, WSS_SIGN_ENCRYPT, WSS_KEYID_THUMBPRINT, k.bob);
	if (doc != NULL)
		CHECK_OK(wss_msg_key_token(doc, &wrapped, id, &err), &err);
	CHECK_EQ_INT(wrapped.len, 256);
	dom_doc_free(doc);
	t_context("two EncryptedKeys");
	doc = recipients_msg(&k, both, 2, 1);
	if (doc != NULL) {
		CHECK_EQ_INT(wss_msg_key_token(doc, &wrapped, id, &err),
			     LAB_ESECURITY);
		CHECK_EQ_STR(err.msg, "the message has 2 EncryptedKeys: a token "
				      "store keeps the one key a request is "
				      "sent under");
	}
	dom_doc_free(doc);
	t_context("no EncryptedKey");
	doc = signed_msg(k.alice_key, k.alice);
	if (doc != NULL) {
		CHECK_EQ_INT(wss_msg_key_token(doc, &wrapped, id, &err),
			     LAB_ESECURITY);
		CHECK(strstr(err.msg, "has 0 EncryptedKeys") != NULL);
	}
	dom_doc_free(doc);
out:
	lab_buf_free(&wrapped);
	free_keys(&k);
}

static void two_recipients(void)
{
	keys k;

	if (!load_keys(&k))
		goto out;
	{
		const wss_cert *both[] = {k.bob, k.mallory};
		const wss_cert *bob[] = {k.bob};
		const wss_cert *mallory[] = {k.mallory};

		t_context("bob of bob and mallory");
		received_as(recipients_msg(&k, both, 2, 1), k.bob_key, k.bob,
			    &k, NULL, NULL);
		t_context("mallory of bob and mallory");
		received_as(recipients_msg(&k, both, 2, 1), k.mallory_key,
			    k.mallory, &k, NULL, NULL);
		t_context("bob, a standalone ReferenceList");
		received_as(recipients_msg(&k, bob, 1, 0), k.bob_key, k.bob,
			    &k, NULL, NULL);
		t_context("mallory's only, received by bob");
		received_as(recipients_msg(&k, mallory, 1, 1), k.bob_key, k.bob,
			    &k, NULL,
			    "no EncryptedKey is addressed to this receiver");
	}
out:
	free_keys(&k);
}

/* A child element of `owner` in another namespace. */
static void foreign_child(dom_doc *doc, const char *owner, const char *ns)
{
	dom_node *o = el(doc, owner);

	if (o != NULL)
		add_el(o, ns, "x:KeyInfo");
}

/* Moves the Body's EncryptedData to the end of `where`. */
static void move_data(dom_doc *doc, const char *where)
{
	dom_node *ed = el(doc, "EncryptedData"), *to = el(doc, where);
	lab_err err;

	if (ed != NULL && to != NULL) {
		dom_remove(ed);
		CHECK_OK(dom_append(to, ed, &err), &err);
	}
}

static void foreign_in_data(dom_doc *doc)
{
	foreign_child(doc, "EncryptedData", "urn:not-dsig");
}

static void foreign_in_key(dom_doc *doc)
{
	foreign_child(doc, "EncryptedKey", "http://www.v3.org/2000/09/xmldsig#");
}

static void data_in_security(dom_doc *doc)
{
	move_data(doc, "Security");
}

static void data_in_header(dom_doc *doc)
{
	move_data(doc, "Header");
}

/* Encrypt, then sign, a Body whose element is encrypted and whose text
 * beside it is not: every signature and decryption holds, the receiver
 * policy does not. */
static dom_doc *text_beside(const keys *k)
{
	static const char text[] =
		"<soap:Envelope xmlns:soap=\"" SOAP "\"><soap:Body>"
		"<p:x xmlns:p=\"urn:p\">x</p:x>secret</soap:Body>"
		"</soap:Envelope>";
	unsigned char key[32];
	dom_doc *doc = T_PARSE_N(text, sizeof text - 1);
	dom_node *ek = NULL;
	wss_opts o;
	lab_err err;
	int ok;

	opts_at(&o, NOW, WSS_AES256_GCM);
	ok = doc != NULL && CHECK_OK(wss_random(key, sizeof key, &err), &err) &&
	     encrypt_part(el(doc, "x"), 0, key) &&
	     CHECK_OK(wss_sign_doc(doc, k->alice_key, k->alice, &o, &err),
		      &err) &&
	     recipient_key(doc, k->bob, key, "EK-0", 1) &&
	     (ek = el(doc, "EncryptedKey")) != NULL;
	if (ok) {
		dom_remove(ek);
		ok = CHECK_OK(dom_append(el(doc, "Security"), ek, &err), &err);
	}
	if (!ok) {
		dom_doc_free(doc);
		return NULL;
	}
	return wire(doc);
}

/* What receive refuses besides tampering: children outside XML
 * Encryption's schema, layouts it does not support (named), and a Body
 * not encrypted (the receiver policy). */
static void layouts_refused(void)
{
	static const struct {
		const char *name;
		void (*edit)(dom_doc *doc);
		const char *reason;
	} cases[] = {
		{"an EncryptedData child in another namespace", foreign_in_data,
		 "EncryptedData holds <KeyInfo>, which XML Encryption does not "
		 "allow there"},
		{"an EncryptedKey's KeyInfo in another namespace",
		 foreign_in_key, "EncryptedKey holds <KeyInfo>"},
		{"the Body's EncryptedData in the Security header",
		 data_in_security,
		 "EncryptedData Type 'http://www.w3.org/2001/04/xmlenc#Content' "
		 "is not allowed there"},
		{"an EncryptedData header block outside an EncryptedHeader",
		 data_in_header,
		 "names an EncryptedData outside the soap:Body, the Security "
		 "header and a wsse11:EncryptedHeader"},
	};
	keys k;
	size_t i;

	if (!load_keys(&k))
		goto out;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		dom_doc *doc = sent_msg(&k, WSS_AES256_GCM);

		t_context("%s", cases[i].name);
		if (doc == NULL)
			continue;
		cases[i].edit(doc);
		received_as(wire(doc), k.bob_key, k.bob, &k, NULL,
			    cases[i].reason);
	}
	t_context("a Body signed, not encrypted");
	received_as(wire(signed_msg(k.alice_key, k.alice)), k.bob_key, k.bob,
		    &k, NULL,
		    "receiver policy: the Body's content must be encrypted");
	t_context("text beside the EncryptedData, signed with it");
	received_as(text_beside(&k), k.bob_key, k.bob, &k, NULL,
		    "it holds <#text> in the clear");
out:
	free_keys(&k);
}

/* A SOAP 1.2 envelope is sent and received in its own namespace. */
static void soap12(void)
{
	static const char text[] =
		"<env:Envelope xmlns:env=\"" WSS_NS_SOAP12 "\"><env:Body>"
		"<p:x xmlns:p=\"urn:p\">text</p:x></env:Body></env:Envelope>";
	dom_doc *doc = T_PARSE_N(text, sizeof text - 1);
	const dom_node *sec;
	wss_opts o;
	lab_err err;
	keys k;

	if (!load_keys(&k) || doc == NULL)
		goto out;
	opts_at(&o, NOW, WSS_AES256_GCM);
	if (!CHECK_OK(wss_send_doc(doc, k.alice_key, k.alice, k.bob, &o, &err),
		      &err))
		goto out;
	doc = wire(doc);
	sec = doc != NULL ? el(doc, "Security") : NULL;
	if (sec != NULL) {
		CHECK_EQ_STR(dom_ns_uri(dom_parent(sec)), WSS_NS_SOAP12);
		CHECK(dom_attr_get_str(sec, WSS_NS_SOAP12, "mustUnderstand") !=
		      NULL);
	}
	received_as(doc, k.bob_key, k.bob, &k, NULL, NULL);
	doc = NULL;
out:
	dom_doc_free(doc);
	free_keys(&k);
}

/* ---- the encrypted Signature and encrypted header blocks ---- */

#define TO_NS "urn:example:addressing"

/* The exc-c14n of the first element named local. */
static void el_c14n(dom_doc *doc, const char *local, lab_buf *out)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	dom_node *e = el(doc, local);
	lab_err err;

	if (e != NULL)
		CHECK_OK(wss_c14n_buf(e, &o, out, &err), &err);
}

/* The quakes message with a header block a:To in front of the Body; the
 * block's c14n in to (NULL: not wanted). */
static dom_doc *to_msg(lab_buf *to)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 2048, 0, 42, 0};
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	dom_node *block;

	if (T_GEN(&g, &text))
		doc = T_PARSE_N(text.data, text.len);
	lab_buf_free(&text);
	if (doc == NULL)
		return NULL;
	block = add_el(el(doc, "Header"), TO_NS, "a:To");
	if (block != NULL) {
		set_attr(block, "n", "1");
		set_text(block, "https://example.org/quakes");
	}
	if (to != NULL)
		el_c14n(doc, "To", to);
	return doc;
}

/* to_msg's message sent by alice to bob in layout, with the Signature
 * (sig) and the header block (hdr) encrypted too; on the wire. */
static dom_doc *parts_msg(const keys *k, wss_layout layout, int sig, int hdr)
{
	dom_doc *doc = to_msg(NULL);
	wss_opts o;
	lab_err err;

	opts_at(&o, NOW, WSS_AES256_GCM);
	o.layout = layout;
	o.encrypt_signature = sig;
	o.encrypt_header = hdr ? "{" TO_NS "}To" : NULL;
	if (doc != NULL &&
	    !CHECK_OK(wss_send_doc(doc, k->alice_key, k->alice, k->bob, &o,
				   &err),
		      &err)) {
		dom_doc_free(doc);
		return NULL;
	}
	return doc != NULL ? wire(doc) : NULL;
}

/* parts_msg with every part the layout encrypts: the header block, and
 * in sign-encrypt the Signature. */
static dom_doc *all_parts_msg(const keys *k, wss_layout layout)
{
	return parts_msg(k, layout, layout == WSS_SIGN_ENCRYPT, 1);
}

/* Each layout with the Signature, the header block or both encrypted:
 * what is encrypted is, and bob receives the Body alice signed and the
 * header block as it was; encrypt-sign does not encrypt the Signature. */
static void parts_received(void)
{
	static const int parts[][3] = {
		{WSS_SIGN_ENCRYPT, 1, 0}, {WSS_SIGN_ENCRYPT, 0, 1},
		{WSS_SIGN_ENCRYPT, 1, 1}, {WSS_ENCRYPT_SIGN, 0, 1},
	};
	lab_buf want = LAB_BUF_INIT, to = LAB_BUF_INIT, got = LAB_BUF_INIT;
	dom_doc *doc;
	wss_opts o;
	lab_err err;
	size_t i;
	keys k;

	if (!load_keys(&k) || (doc = to_msg(&to)) == NULL)
		goto out;
	dom_doc_free(doc);
	if ((doc = signed_msg(k.alice_key, k.alice)) == NULL)
		goto out;
	body_c14n(doc, &want);
	dom_doc_free(doc);
	for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		t_context("%s, Signature %d, header %d", layout_names[parts[i][0]],
			  parts[i][1], parts[i][2]);
		doc = parts_msg(&k, (wss_layout)parts[i][0], parts[i][1],
				parts[i][2]);
		if (doc == NULL)
			continue;
		CHECK_EQ_INT(t_find(el(doc, "Security"), "SignedInfo") == NULL,
			     parts[i][1]);
		CHECK_EQ_INT(t_find(el(doc, "Header"), "To") == NULL,
			     parts[i][2]);
		opts_at(&o, NOW, WSS_AES256_GCM);
		o.self = k.bob;
		if (CHECK_OK(wss_receive_doc(doc, k.bob_key, k.alice, &o, &err),
			     &err)) {
			body_c14n(doc, &got);
			CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
			got.len = 0;
			el_c14n(doc, "To", &got);
			CHECK_EQ_MEM(got.data, got.len, to.data, to.len);
			got.len = 0;
			CHECK(t_find(dom_doc_node(doc), "EncryptedHeader") == NULL);
		}
		dom_doc_free(doc);
	}
	t_context("the Signature encrypted in encrypt-sign");
	opts_at(&o, NOW, WSS_AES256_GCM);
	o.layout = WSS_ENCRYPT_SIGN;
	o.encrypt_signature = 1;
	if ((doc = to_msg(NULL)) != NULL) {
		CHECK_EQ_INT(wss_send_doc(doc, k.alice_key, k.alice, k.bob, &o,
					  &err),
			     LAB_EUSAGE);
		CHECK(strstr(err.msg, "sign-encrypt layout only") != NULL);
		dom_doc_free(doc);
	}
out:
	lab_buf_free(&want);
	lab_buf_free(&to);
	lab_buf_free(&got);
	free_keys(&k);
}

/* The nth (0-based) EncryptedData in document order: with the Signature
 * and the header block encrypted, sign-encrypt puts the header's first,
 * the Signature's second, the Body's last. */
static dom_node *nth_data(dom_doc *doc, int nth)
{
	dom_node *hdr = el(doc, "EncryptedHeader");
	dom_node *sig = t_find(el(doc, "Security"), "EncryptedData");
	dom_node *body = t_find(el(doc, "Body"), "EncryptedData");
	dom_node *all[3];

	all[0] = hdr != NULL ? t_find(hdr, "EncryptedData") : NULL;
	all[1] = sig;
	all[2] = body;
	CHECK_MSG(all[nth] != NULL, "no EncryptedData %d", nth);
	return all[nth];
}

static void flip_in(dom_doc *doc, int nth)
{
	dom_node *ed = nth_data(doc, nth);
	dom_node *cv = ed != NULL ? t_find(ed, "CipherValue") : NULL;
	lab_buf text = LAB_BUF_INIT;

	if (cv != NULL && dom_text_content(cv, &text) == LAB_OK &&
	    CHECK(text.len > 8)) {
		flip_middle(&text);
		set_text(cv, text.data);
	}
	lab_buf_free(&text);
}

static void flip_header_data(dom_doc *doc)
{
	flip_in(doc, 0);
}

static void flip_signature_data(dom_doc *doc)
{
	flip_in(doc, 1);
}

static void flip_body_data(dom_doc *doc)
{
	flip_in(doc, 2);
}

/* The ReferenceList names the Body's EncryptedData no more. */
static void drop_body_data_ref(dom_doc *doc)
{
	dom_node *rl = el(doc, "ReferenceList"), *dr;

	for (dr = rl != NULL ? dom_first_child(rl) : NULL; dr != NULL;
	     dr = dom_next_sibling(dr)) {
		const char *uri = dom_attr_value(
			dr, NULL, dom_intern(doc, "URI", 3));

		if (uri != NULL && strcmp(uri, "#ED-1") == 0) {
			dom_node_free(dr);
			return;
		}
	}
	CHECK_MSG(0, "no DataReference to #ED-1");
}

/* In each layout with encrypted parts, a change to any signed or
 * encrypted part is refused.  The Body's EncryptedData left undecrypted
 * fails the plaintext's digest in sign-encrypt and the receiver policy in
 * encrypt-sign, though the header block's was decrypted. */
static void parts_tampered(void)
{
	static const layout_edit edits[] = {
		{"the header block's ciphertext", flip_header_data,
		 {"decryption failed", "decryption failed"}},
		{"the Signature's ciphertext", flip_signature_data,
		 {"decryption failed", NULL}},
		{"the Body's ciphertext", flip_body_data,
		 {"decryption failed", "digest of '#Body-1' does not match"}},
		{"the Timestamp", change_timestamp_text,
		 {WSS_NOT_RECEIVED, "digest of '#TS-1' does not match"}},
		{"the Body's DataReference", drop_body_data_ref,
		 {WSS_NOT_RECEIVED,
		  "1 of the Body's 1 EncryptedData are named by no "
		  "DataReference"}},
	};

	edits_refused(edits, sizeof edits / sizeof edits[0], all_parts_msg);
}

/* to_msg's message signed by alice, then encrypted for bob with the
 * element `local` encrypted besides the Body's content, carrying wsu:Id
 * `id` when that is not NULL; when local is "Security", a second
 * wsse:Security header block is added and encrypted.  On the wire. */
static dom_doc *encrypted_part(const keys *k, const char *local,
			       const char *id)
{
	dom_doc *doc = to_msg(NULL);
	dom_node *part;
	wss_msg m;
	lab_err err;
	int ok = doc != NULL &&
		 CHECK_OK(wss_msg_open(doc, 1, LAB_EMALFORMED, &m, &err),
			  &err) &&
		 CHECK_OK(wss_dsig_sign(&m, k->alice_key, k->alice, NOW, 300,
					&err),
			  &err);

	part = !ok ? NULL
	       : strcmp(local, "Security") == 0
		       ? add_el(m.header, WSS_NS_WSSE, "o:Security")
		       : el(doc, local);
	if (part != NULL && id != NULL &&
	    CHECK_OK(dom_ns_declare(part, "wsu", WSU, &err), &err))
		CHECK_OK(dom_attr_set(part, WSU, "wsu:Id", id, strlen(id),
				      &err),
			 &err);
	ok = part != NULL &&
	     CHECK_OK(wss_xenc_encrypt(&m, k->bob, WSS_AES256_GCM,
				       WSS_KEYID_THUMBPRINT, &part, 1, &err),
		      &err);
	if (!ok) {
		dom_doc_free(doc);
		return NULL;
	}
	return wire(doc);
}

/* to_msg's message with its header block signed with the Body and the
 * Timestamp, then encrypted with the Body's content: what a Signature
 * references comes out of a decryption.  On the wire. */
static dom_doc *signed_part_encrypted(const keys *k)
{
	dom_doc *doc = to_msg(NULL);
	dom_node *part = doc != NULL ? el(doc, "To") : NULL;
	wss_msg m;
	lab_err err;
	int ok = part != NULL &&
		 CHECK_OK(wss_msg_open(doc, 1, LAB_EMALFORMED, &m, &err), &err);

	m.sign_to = part;
	ok = ok &&
	     CHECK_OK(wss_dsig_sign(&m, k->alice_key, k->alice, NOW, 300, &err),
		      &err) &&
	     CHECK_OK(wss_xenc_encrypt(&m, k->bob, WSS_AES256_GCM,
				       WSS_KEYID_THUMBPRINT, &part, 1, &err),
		      &err);
	if (!ok) {
		dom_doc_free(doc);
		return NULL;
	}
	return wire(doc);
}

/* A DataReference that names the EncryptedHeader itself; with extra, the
 * EncryptedHeader holds a second EncryptedData. */
static dom_doc *header_named(const keys *k, int extra)
{
	dom_doc *doc = parts_msg(k, WSS_SIGN_ENCRYPT, 0, 1);
	dom_node *eh = doc != NULL ? el(doc, "EncryptedHeader") : NULL;
	dom_node *ed = eh != NULL ? t_find(eh, "EncryptedData") : NULL;
	dom_node *dr = doc != NULL ? el(doc, "DataReference") : NULL;
	const char *id = ed != NULL ? dom_attr_value(ed, NULL,
						     dom_intern(doc, "Id", 2))
				    : NULL;
	const char *uri_name = doc != NULL ? dom_intern(doc, "URI", 3) : NULL;

	for (; dr != NULL && id != NULL; dr = dom_next_sibling(dr)) {
		const char *uri = dom_attr_value(dr, NULL, uri_name);

		if (uri != NULL && uri[0] == '#' && strcmp(uri + 1, id) == 0)
			break;
	}
	if (dr == NULL) {
		CHECK_MSG(0, "no DataReference to the EncryptedHeader's data");
		dom_doc_free(doc);
		return NULL;
	}
	set_attr(dr, "URI", "#EH-1");
	if (extra)
		add_el(eh, WSS_NS_XENC, "xenc:EncryptedData");
	return doc;
}

/* What the layouts with encrypted parts must not let through: a
 * Security element that decrypts to anything but a Signature, an
 * EncryptedHeader that decrypts to a second Security header or to an
 * element with the signed Body's ID, an EncryptedHeader holding more
 * than its one EncryptedData. */
static void parts_refused(void)
{
	keys k;

	if (!load_keys(&k))
		goto out;
	t_context("the BinarySecurityToken encrypted in the Security header");
	received_as(encrypted_part(&k, "BinarySecurityToken", NULL), k.bob_key,
		    k.bob, &k, NULL, "decryption failed");
	t_context("a second Security header, encrypted");
	received_as(encrypted_part(&k, "Security", NULL), k.bob_key, k.bob,
		    &k, NULL, "Security headers");
	t_context("a header block decrypted with the Body's ID");
	received_as(encrypted_part(&k, "To", "Body-1"), k.bob_key, k.bob, &k,
		    NULL, "carries the ID 'Body-1', which 2 elements carry");
	t_context("the same header block without the ID");
	received_as(encrypted_part(&k, "To", NULL), k.bob_key, k.bob, &k, NULL,
		    NULL);
	t_context("a signed header block, encrypted");
	received_as(signed_part_encrypted(&k), k.bob_key, k.bob, &k, NULL,
		    "decrypted element <To> carries the ID 'To-1', which the "
		    "Signature references");
	t_context("the EncryptedHeader named itself");
	received_as(header_named(&k, 0), k.bob_key, k.bob, &k, NULL, NULL);
	t_context("an EncryptedHeader with two EncryptedData");
	received_as(header_named(&k, 1), k.bob_key, k.bob, &k, NULL,
		    "EncryptedHeader '#EH-1' holds 2 EncryptedData");
out:
	free_keys(&k);
}

/* ---- bounds on single fields read before the signature ---- */

/* local's text made `len` characters long: its own characters (trimmed)
 * after `len - own` zeros (lead) or before as many spaces. */
static void pad_field(dom_doc *doc, const char *local, size_t len, int lead)
{
	dom_node *e = el(doc, local);
	lab_buf text = LAB_BUF_INIT, out = LAB_BUF_INIT;
	lab_err err;
	size_t i, own;

	if (e == NULL || !CHECK_OK(wss_text(e, &text, &err), &err))
		goto out;
	own = text.len;
	if (!CHECK(own <= len))
		goto out;
	for (i = 0; lead && i < len - own; i++)
		lab_buf_putc(&out, '0');
	lab_buf_put(&out, text.data, own);
	for (i = 0; !lead && i < len - own; i++)
		lab_buf_putc(&out, ' ');
	if (CHECK(lab_buf_putc(&out, '\0') == 0))
		set_text(e, out.data);
out:
	lab_buf_free(&text);
	lab_buf_free(&out);
}

/*
 * Each field's bound at its limit and one past it.  Padding with
 * whitespace (a serial number with leading zeros) keeps the value, so at
 * the limit the message is received; one past, the bound refuses it naming the field and the limit.  The
 * fields the Signature reads are shown on verify: on receive their
 * refusal comes after the Body's decryption, as the one message.
 */
static void field_caps(void)
{
	static const struct {
		const char *local;
		size_t max;
		int lead;
		wss_key_id id; /* receive with it; -1: verify */
		const char *at_limit;
	} fields[] = {
		{"SignatureValue", WSS_FIELD_SIGNATURE, 0, (wss_key_id)-1, NULL},
		{"BinarySecurityToken", WSS_FIELD_CERT, 0, (wss_key_id)-1, NULL},
		{"CipherValue", WSS_FIELD_WRAPPED_KEY, 0, WSS_KEYID_THUMBPRINT,
		 NULL},
		{"KeyIdentifier", WSS_FIELD_KEY_ID, 0, WSS_KEYID_THUMBPRINT, NULL},
		{"X509IssuerName", WSS_FIELD_ISSUER, 0, WSS_KEYID_ISSUER_SERIAL,
		 NULL},
		{"X509SerialNumber", WSS_FIELD_SERIAL_DIGITS, 1,
		 WSS_KEYID_ISSUER_SERIAL, NULL},
		{"X509SerialNumber", WSS_FIELD_SERIAL_TEXT, 0,
		 WSS_KEYID_ISSUER_SERIAL, NULL},
	};
	keys k;
	size_t i;
	int past;

	if (!load_keys(&k))
		goto out;
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++)
		for (past = 0; past < 2; past++) {
			int verify = fields[i].id == (wss_key_id)-1;
			dom_doc *doc = verify ? signed_msg(k.alice_key, k.alice)
					      : layout_msg(&k, WSS_SIGN_ENCRYPT,
							   fields[i].id, k.bob);
			char reason[200];

			t_context("%s, %s", fields[i].local,
				  past ? "one past the limit" : "at the limit");
			if (doc == NULL)
				continue;
			pad_field(doc, fields[i].local, fields[i].max + past,
				  fields[i].lead);
			if (fields[i].lead)
				snprintf(reason, sizeof reason,
					 "has %zu digits: over the limit of "
					 "%zu (RFC 5280: at most 20 octets)",
					 fields[i].max + past, fields[i].max);
			else
				snprintf(reason, sizeof reason,
					 "<%s> holds more than %zu characters: "
					 "over the limit of %zu",
					 fields[i].local, fields[i].max,
					 fields[i].max);
			if (verify)
				outcome(doc, NULL, k.alice, NOW, NULL,
					past ? reason : fields[i].at_limit);
			else
				received_as(doc, k.bob_key, k.bob, &k, NULL,
					    past ? reason : fields[i].at_limit);
		}
	t_context("X509SerialNumber of 2^160, 21 octets in 49 digits");
	{
		dom_doc *doc = layout_msg(&k, WSS_SIGN_ENCRYPT,
					  WSS_KEYID_ISSUER_SERIAL, k.bob);

		if (doc != NULL)
			set_text(el(doc, "X509SerialNumber"),
				 "1461501637330902918203684832716283019655932542976");
		received_as(doc, k.bob_key, k.bob, &k, NULL,
			    "X509SerialNumber is 21 octets: over the limit of 20");
	}
	t_context("X509SerialNumber of 2^160 - 1, 20 octets");
	{
		dom_doc *doc = layout_msg(&k, WSS_SIGN_ENCRYPT,
					  WSS_KEYID_ISSUER_SERIAL, k.bob);

		if (doc != NULL)
			set_text(el(doc, "X509SerialNumber"),
				 "1461501637330902918203684832716283019655932542975");
		/* Within the bound: then not bob's serial. */
		received_as(doc, k.bob_key, k.bob, &k, NULL,
			    "no EncryptedKey is addressed to this receiver");
	}
out:
	free_keys(&k);
}

/* ---- wrapping through decryption ---- */

/* The quakes message alice sends bob in layout (with the Signature
 * encrypted when sig), in SOAP 1.2 when v12, serialized. */
static int wrap_base(const keys *k, int v12, wss_layout layout, int sig,
		     lab_buf *out)
{
	lab_gen_opts g = {LAB_GEN_QUAKES, 2048, 0, 42, 0};
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	char *ns;
	wss_opts o;
	lab_err err;
	int ok;

	opts_at(&o, NOW, WSS_AES256_GCM);
	o.layout = layout;
	o.encrypt_signature = sig;
	ok = T_GEN(&g, &text);
	ns = ok ? strstr(text.data, WSS_NS_SOAP) : NULL;
	ok = ok && CHECK(ns != NULL);
	if (ok && v12) {
		/* The same length: the URI is replaced in place. */
		lab_buf v = LAB_BUF_INIT;

		ok = lab_buf_put(&v, text.data, (size_t)(ns - text.data)) == 0 &&
		     lab_buf_puts(&v, WSS_NS_SOAP12) == 0 &&
		     lab_buf_puts(&v, ns + strlen(WSS_NS_SOAP)) == 0;
		lab_buf_free(&text);
		text = v;
	}
	if (ok)
		doc = T_PARSE_N(text.data, text.len);
	ok = doc != NULL &&
	     CHECK_OK(wss_send_doc(doc, k->alice_key, k->alice, k->bob, &o,
				   &err),
		      &err) &&
	     T_SERIALIZE(dom_doc_node(doc), out);
	dom_doc_free(doc);
	lab_buf_free(&text);
	return ok;
}

/* The decrypt-wrap attack on base (datasets/preauth.h): an EncryptedKey
 * for bob, first in the Security header or after the Signature, and an
 * EncryptedHeader of `plain`; received by bob as received_as says. */
static void wrapped_received(const keys *k, const lab_buf *base,
			     const char *plain, int after, const char *reason)
{
	lab_hostile_opts h;
	lab_buf att = LAB_BUF_INIT;
	lab_err err;

	memset(&h, 0, sizeof h);
	h.kind = LAB_HOSTILE_DECRYPT_WRAP;
	h.peer = k->bob;
	h.message = base->data;
	h.message_len = base->len;
	h.plain = plain;
	h.after_signature = after;
	if (CHECK_OK(lab_hostile(&h, &att, &err), &err))
		received_as(T_PARSE_N(att.data, att.len), k->bob_key, k->bob,
			    k, NULL, reason);
	lab_buf_free(&att);
}

/*
 * The attack, made with bob's certificate alone (datasets/preauth.h,
 * decrypt-wrap): an EncryptedKey for bob, first in the Security header
 * or right after the Signature, names an EncryptedHeader whose plaintext
 * is a soap:Body carrying the signed Body's ID, one carrying none, a
 * whole Envelope, or an element carrying the Timestamp's or the token's
 * ID.  Refused naming what it adds, in every layout and both SOAP
 * versions; the message without the attack is received.
 */
static void decrypt_wrapping(void)
{
	static const struct {
		const char *name, *plain, *reason;
	} plains[] = {
		{"a Body with the signed Body's ID",
		 "<soap:Body xmlns:soap=\"%s\" xmlns:wsu=\"" WSU "\" "
		 "wsu:Id=\"Body-1\"><pay>1000000 to mallory</pay></soap:Body>",
		 "decrypted content adds a <Body>"},
		{"a Body without an ID",
		 "<soap:Body xmlns:soap=\"%s\"><pay>1</pay></soap:Body>",
		 "decrypted content adds a <Body>"},
		{"a Body in the default namespace, within another element",
		 "<x:W xmlns:x=\"urn:x\">\n <Body xmlns=\"%s\"><pay>1</pay>"
		 "</Body></x:W>",
		 "decrypted content adds a <Body>"},
		{"a Header after text",
		 "<x:W xmlns:x=\"urn:x\">a:b &lt; c<s:Header xmlns:s=\"%s\"/>"
		 "</x:W>",
		 "decrypted content adds a <Header>"},
		{"a whole Envelope",
		 "<e:Envelope xmlns:e=\"%s\"><e:Header/><e:Body><pay>1</pay>"
		 "</e:Body></e:Envelope>",
		 "decrypted content adds a <Envelope>"},
		{"the Timestamp's ID",
		 "<x:T xmlns:x=\"urn:x\" xmlns:wsu=\"" WSU "\" wsu:Id=\"TS-1\" "
		 "n=\"%s\"/>",
		 "<T> carries the ID 'TS-1', which 2 elements carry"},
		{"the token's ID",
		 "<x:T xmlns:x=\"urn:x\" xmlns:wsu=\"" WSU "\" "
		 "wsu:Id=\"X509-1\" n=\"%s\"/>",
		 "<T> carries the ID 'X509-1', which 2 elements carry"},
	};
	static const struct {
		const char *name;
		wss_layout layout;
		int sig;
	} layouts[] = {{"sign-encrypt", WSS_SIGN_ENCRYPT, 0},
		       {"encrypt-sign", WSS_ENCRYPT_SIGN, 0},
		       {"sign-encrypt, Signature encrypted", WSS_SIGN_ENCRYPT,
			1}};
	keys k;
	size_t l, p;
	int v12, after;

	if (!load_keys(&k))
		goto out;
	for (v12 = 0; v12 < 2; v12++)
		for (l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
			lab_buf base = LAB_BUF_INIT;

			t_context("SOAP 1.%d, %s, as sent", v12 ? 2 : 1,
				  layouts[l].name);
			if (!wrap_base(&k, v12, layouts[l].layout,
				       layouts[l].sig, &base))
				continue;
			received_as(T_PARSE_N(base.data, base.len), k.bob_key,
				    k.bob, &k, NULL, NULL);
			for (after = 0; after < 2 - layouts[l].sig; after++)
				for (p = 0; p < sizeof plains / sizeof plains[0];
				     p++) {
					char plain[512];

					t_context("SOAP 1.%d, %s, %s, %s",
						  v12 ? 2 : 1, layouts[l].name,
						  after ? "after the Signature"
							: "first",
						  plains[p].name);
					snprintf(plain, sizeof plain,
						 plains[p].plain,
						 v12 ? WSS_NS_SOAP12
						     : WSS_NS_SOAP);
					wrapped_received(&k, &base, plain,
							 after,
							 plains[p].reason);
				}
			lab_buf_free(&base);
		}
out:
	free_keys(&k);
}

/*
 * wss_soap_scan on its own: a plaintext whose only use of the three words
 * is one "Envelope", at every offset across a piece's end that readies
 * come at; the same with its last bytes reaching the scan with no ready
 * (CBC's last block); a plaintext without the words, which needs no
 * second pass; and a stop, after which the whole is scanned again.
 */
static void soap_scan(void)
{
	static const char word[] = "<e:Envelope/>";
	char plain[96];
	size_t at, cut;

	for (at = 0; at + sizeof word <= sizeof plain; at++)
		for (cut = 1; cut < sizeof plain; cut += 1 + (cut > 40) * 7) {
			wss_soap_scan s;

			t_context("the word at %zu, a ready at %zu", at, cut);
			memset(plain, 'a', sizeof plain);
			memcpy(plain + at, word, sizeof word - 1);
			wss_soap_scan_init(&s, NULL);
			s.watch.ready(s.watch.ctx, plain, cut);
			if (cut + 16 < sizeof plain)
				s.watch.ready(s.watch.ctx, plain,
					      sizeof plain - 16);
			s.watch.whole(s.watch.ctx, sizeof plain);
			CHECK_EQ_INT(wss_soap_scan_names(&s, plain,
							 sizeof plain),
				     1);
		}
	{
		wss_soap_scan s;

		t_context("no word; then a stop");
		memset(plain, 'a', sizeof plain);
		wss_soap_scan_init(&s, NULL);
		s.watch.ready(s.watch.ctx, plain, sizeof plain);
		CHECK_EQ_INT(wss_soap_scan_names(&s, plain, sizeof plain), 0);
		CHECK_EQ_INT(s.done, sizeof plain);
		s.watch.stop(s.watch.ctx);
		memcpy(plain + 40, word, sizeof word - 1);
		CHECK_EQ_INT(wss_soap_scan_names(&s, plain, sizeof plain), 1);
	}
}

/*
 * The check for SOAP's element names runs on each piece of plaintext as
 * pass=fused decrypts it (wss/soapnames.h): a soap:Body, the plaintext's
 * only use of the word, at every offset from well before the end of the
 * first piece to past it, so that some straddle that end; and in the
 * plaintext's last bytes, which may come only with the tag's check.
 * Refused each time, as on pass=staged, which checks the whole.
 */
static void decrypt_wrapping_pieces(void)
{
	/* The octets of the first piece, IV and all. */
	enum { FIRST = WSS_PASS_PIECE / 4 * 3, BEFORE = 96, PAST = 16 };
	static const char head[] =
		"<x:W xmlns:x=\"urn:x\" xmlns:s=\"" WSS_NS_SOAP "\">";
	static const char tail[] = "<s:Body/></x:W>";
	const size_t at = sizeof head - 1 + 3; /* where "Body" starts */
	lab_buf base = LAB_BUF_INIT;
	char *plain = NULL;
	size_t fill;
	keys k;

	if (!load_keys(&k))
		goto out;
	plain = malloc(sizeof head + FIRST + PAST + sizeof tail);
	if (!CHECK(plain != NULL) ||
	    !wrap_base(&k, 0, WSS_SIGN_ENCRYPT, 0, &base))
		goto out;
	for (fill = FIRST - BEFORE - at; fill <= FIRST + PAST - at; fill++) {
		t_context("a Body at plaintext offset %zu", fill + at);
		memcpy(plain, head, sizeof head - 1);
		memset(plain + sizeof head - 1, 'a', fill);
		memcpy(plain + sizeof head - 1 + fill, tail, sizeof tail);
		wrapped_received(&k, &base, plain, 0,
				 "decrypted content adds a <Body>");
	}
out:
	free(plain);
	lab_buf_free(&base);
	free_keys(&k);
}

/*
 * Decrypted plaintext is wiped before its memory is freed (SECURITY.md,
 * "decrypted plaintext left in freed memory"): every block lab_free lets
 * go of during a receive or decrypt, and the freeing of its document, is
 * searched for a marker that only the plaintext holds.  Arena chunks are
 * searched under parser=insitu, whose copy of a decrypted fragment lies
 * there; under parser=libxml2 the tree's copies of text (in the chunks)
 * and libxml2's own buffers are documented as not wiped, so there only
 * the decrypted bytes and the parse's copy of them are.  OpenSSL's
 * memory and blocks realloc moves are not seen here.
 */
#define WIPE_MARK "WIPE-ME-7c1e"

static struct {
	int chunks; /* search arena chunks too */
	size_t seen;
} wipe;

static void seek_mark(const void *p, size_t n, int chunk)
{
	if ((!chunk || wipe.chunks) &&
	    memmem(p, n, WIPE_MARK, sizeof WIPE_MARK - 1) != NULL)
		wipe.seen++;
}

/* The message with the marker in its Body's text and an attribute (and
 * in its wsa:To header block when that is encrypted), sent to bob in the
 * given way, serialized into wire. */
static int wipe_msg(const keys *k, wss_cipher c, wss_layout layout,
		    int sig, int hdr, lab_buf *wire)
{
	static const char form[] =
		"<soap:Envelope xmlns:soap=\"" SOAP "\"><soap:Header>"
		"<a:To xmlns:a=\"" TO_NS "\">%s</a:To>"
		"</soap:Header><soap:Body><m:r xmlns:m=\"urn:m\" n=\""
		WIPE_MARK "\">" WIPE_MARK " &amp; " WIPE_MARK "<m:s>"
		WIPE_MARK "</m:s></m:r></soap:Body></soap:Envelope>";
	char text[sizeof form + 64];
	int len = snprintf(text, sizeof text, form,
			   hdr ? WIPE_MARK : "https://example.org/");
	dom_doc *doc = T_PARSE_N(text, (size_t)len);
	wss_opts o;
	lab_err err;
	int ok;

	opts_at(&o, NOW, c);
	o.layout = layout;
	o.encrypt_signature = sig;
	o.encrypt_header = hdr ? "{" TO_NS "}To" : NULL;
	ok = doc != NULL &&
	     CHECK_OK(wss_send_doc(doc, k->alice_key, k->alice, k->bob, &o,
				   &err),
		      &err) &&
	     T_SERIALIZE(dom_doc_node(doc), wire);
	dom_doc_free(doc);
	return ok && CHECK(memmem(wire->data, wire->len, WIPE_MARK,
				  sizeof WIPE_MARK - 1) == NULL);
}

/* op on the wire message: 0 receive, 1 receive trusting mallory
 * (refused after decrypting), 2 decrypt; what it freed is searched. */
static void wipe_case(const keys *k, const lab_buf *wire, wss_cipher c,
		      int op)
{
	dom_doc *doc;
	wss_opts o;
	lab_err err;
	int rc;

	opts_at(&o, NOW, c);
	o.allow_cbc = 1;
	wipe.seen = 0;
	lab_set_free_hook(seek_mark);
	doc = T_PARSE_N(wire->data, wire->len);
	rc = doc == NULL   ? LAB_EUSAGE
	     : op == 2 ? wss_decrypt_doc(doc, k->bob_key, &o, &err)
		       : wss_receive_doc(doc, k->bob_key,
					 op == 1 ? k->mallory : k->alice, &o,
					 &err);
	dom_doc_free(doc);
	lab_set_free_hook(NULL);
	if (op == 1)
		CHECK(rc == LAB_ESECURITY);
	else
		CHECK_OK(rc, &err);
	CHECK_EQ_INT(wipe.seen, 0);
}

static void plaintext_wiped(void)
{
	static const struct {
		const char *name;
		wss_cipher c;
		wss_layout layout;
		int sig, hdr;
	} ways[] = {
		{"sign-encrypt", WSS_AES256_GCM, WSS_SIGN_ENCRYPT, 0, 0},
		{"encrypt-sign", WSS_AES256_GCM, WSS_ENCRYPT_SIGN, 0, 0},
		{"encrypted Signature", WSS_AES256_GCM, WSS_SIGN_ENCRYPT, 1, 0},
		{"encrypted header", WSS_AES256_GCM, WSS_SIGN_ENCRYPT, 0, 1},
		{"CBC encrypt-sign", WSS_AES128_CBC, WSS_ENCRYPT_SIGN, 0, 0},
	};
	const dom_axis_choice *axes;
	size_t i, n = dom_variant_axes(&axes);
	char *probe;
	keys k;
	int op;

	wipe.chunks = 0;
	for (i = 0; i < n; i++)
		if (strcmp(axes[i].axis, "parser") == 0)
			wipe.chunks = strcmp(axes[i].choice, "insitu") == 0;
	if (!load_keys(&k))
		goto out;
	/* The search sees an unwiped block: it can fail. */
	wipe.seen = 0;
	lab_set_free_hook(seek_mark);
	probe = lab_strdup("<" WIPE_MARK ">");
	lab_free(probe);
	lab_set_free_hook(NULL);
	CHECK_EQ_INT(wipe.seen, 1);
	for (i = 0; i < sizeof ways / sizeof ways[0]; i++) {
		lab_buf sent = LAB_BUF_INIT;

		t_context("%s", ways[i].name);
		if (wipe_msg(&k, ways[i].c, ways[i].layout, ways[i].sig,
			     ways[i].hdr, &sent))
			for (op = 0; op < 3; op++) {
				t_context("%s, %s", ways[i].name,
					  op == 0   ? "received"
					  : op == 1 ? "refused after decryption"
						    : "decrypted");
				wipe_case(&k, &sent, ways[i].c, op);
			}
		lab_buf_free(&sent);
	}
	t_context(NULL);
out:
	free_keys(&k);
}

const t_case tests_wss[] = {
	{"wss/sign_then_verify", sign_then_verify},
	{"wss/send_then_receive", send_then_receive},
	{"wss/send_receive_in_pieces", send_receive_in_pieces},
	{"wss/send_avoids_ids", send_avoids_ids},
	{"wss/send_body_outgrows_message", send_body_outgrows_message},
	{"wss/send_streams_body", send_streams_body},
	{"wss/forged_signatures", forged_signatures},
	{"wss/stale_and_future", stale_and_future},
	{"wss/untrusted_certificates", untrusted_certificates},
	{"wss/forged_encryption", forged_encryption},
	{"wss/cbc_policy", cbc_policy},
	{"wss/forged_then_encrypted", forged_then_encrypted},
	{"wss/forged_encrypted_signature", forged_encrypted_signature},
	{"wss/weak_encryption_algorithms", weak_encryption_algorithms},
	{"wss/caps_on_decryption", caps_on_decryption},
	{"wss/caps_on_references", caps_on_references},
	{"wss/cap_on_signed_info", cap_on_signed_info},
	{"wss/many_encrypted", many_encrypted},
	{"wss/layouts_received", layouts_received},
	{"wss/layouts_tampered", layouts_tampered},
	{"wss/header_order", header_order},
	{"wss/two_recipients", two_recipients},
	{"wss/key_token", key_token},
	{"wss/layouts_refused", layouts_refused},
	{"wss/soap12", soap12},
	{"wss/parts_received", parts_received},
	{"wss/parts_tampered", parts_tampered},
	{"wss/parts_refused", parts_refused},
	{"wss/decrypt_wrapping", decrypt_wrapping},
	{"wss/decrypt_wrapping_pieces", decrypt_wrapping_pieces},
	{"wss/soap_scan", soap_scan},
	{"wss/field_caps", field_caps},
	{"wss/plaintext_wiped", plaintext_wiped},
	{NULL, NULL},
};
