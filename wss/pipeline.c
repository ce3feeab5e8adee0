/*
 * pipeline.c - the commands of the profile as compositions of the stages.
 * The order is the point: send signs then encrypts (or, with
 * WSS_ENCRYPT_SIGN, the other way round); receive checks the Timestamp,
 * then takes the Security header's elements in the order they stand, as
 * SOAP Message Security's processing rules have it: an EncryptedKey or a
 * ReferenceList decrypts what it lists there, the Signature verifies what
 * it references as it stands there.  The receiver policy comes last.
 */
#include "wss/wss.h"

#include <openssl/crypto.h>
#include <string.h>

#include "util/timeline.h"
#include "wss/attach.h"
#include "wss/digest_ahead.h"
#include "wss/dsig.h"
#include "wss/hop.h"
#include "wss/msg.h"
#include "wss/pass.h"
#include "wss/seal.h"
#include "wss/send_ahead.h"
#include "wss/wsse.h"
#include "wss/xenc.h"

void wss_opts_default(wss_opts *o)
{
	o->now = time(NULL);
	o->ttl = 300;
	o->cipher = WSS_AES256_GCM;
	o->layout = WSS_SIGN_ENCRYPT;
	o->key_id = WSS_KEYID_THUMBPRINT;
	o->encrypt_signature = 0;
	o->encrypt_header = NULL;
	o->self = NULL;
	o->lim = (dom_limits){0};
	memset(&o->caps, 0, sizeof o->caps);
	o->att = NULL;
	o->natt = 0;
	o->to = NULL;
	o->headers_only = 0;
	o->allow_cbc = 0;
	o->threads = 1;
	o->timeline = NULL;
}

int wss_sign_doc(dom_doc *doc, const wss_privkey *key, const wss_cert *cert,
		 const wss_opts *o, lab_err *err)
{
	wss_msg m;
	int rc = wss_msg_open(doc, 1, LAB_EMALFORMED, &m, err);

	m.att = o->att;
	m.natt = o->natt;
	if (rc == LAB_OK)
		rc = wss_hop_prepare(&m, o, err);
	return rc != LAB_OK ? rc : wss_dsig_sign(&m, key, cert, o->now, o->ttl, err);
}

int wss_verify_doc(dom_doc *doc, const wss_cert *trust, const wss_opts *o,
		   lab_err *err)
{
	dom_node *ts = NULL;
	wss_msg m;
	int rc = wss_msg_open(doc, 0, LAB_ESECURITY, &m, err);

	m.att = o->att;
	m.natt = o->natt;
	m.caps = &o->caps;
	if (rc == LAB_OK)
		rc = wss_timestamp_check(&m, o->now, &ts, err);
	return rc != LAB_OK ? rc : wss_dsig_verify(&m, trust, ts, err);
}

int wss_encrypt_doc(dom_doc *doc, const wss_cert *peer, const wss_opts *o,
		    lab_err *err)
{
	wss_msg m;
	int rc = wss_msg_open(doc, 1, LAB_EMALFORMED, &m, err);

	return rc != LAB_OK ? rc
			    : wss_xenc_encrypt(&m, peer, o->cipher, o->key_id,
					       NULL, 0, err);
}

int wss_decrypt_doc(dom_doc *doc, const wss_privkey *key, const wss_opts *o,
		    lab_err *err)
{
	wss_msg m;
	int rc = wss_msg_open(doc, 0, LAB_ESECURITY, &m, err);

	m.caps = &o->caps;
	/* decrypt authenticates nothing: allowed, CBC is decrypted as it
	 * comes. */
	m.allow_cbc = o->allow_cbc ? 2 : 0;
	return rc != LAB_OK ? rc : wss_xenc_decrypt(&m, key, &o->lim, err);
}

/* Encrypt, then sign the Body that holds the EncryptedData; the
 * EncryptedKey then moves after the Signature, so that a receiver taking
 * the header in order verifies before it decrypts. */
static int encrypt_sign(wss_msg *m, const wss_privkey *key,
			const wss_cert *cert, const wss_cert *peer,
			const wss_opts *o, dom_node *const *parts,
			size_t nparts, lab_err *err)
{
	size_t count;
	dom_node *ek;
	int rc = wss_xenc_encrypt(m, peer, o->cipher, o->key_id, parts, nparts,
				  err);

	if (rc == LAB_OK)
		rc = wss_dsig_sign(m, key, cert, o->now, o->ttl, err);
	ek = rc == LAB_OK ? wss_child(m->security, m->n.xenc,
				      m->n.EncryptedKey, &count)
			  : NULL;
	if (ek != NULL) {
		dom_remove(ek);
		rc = dom_append(m->security, ek, err);
	}
	return rc;
}

/* The header block send encrypts: the first child of the Header named
 * clark, "{uri}local", other than the Security header. */
static int header_block(const wss_msg *m, const char *clark, dom_node **out,
			lab_err *err)
{
	const char *end = clark[0] == '{' ? strchr(clark, '}') : NULL;
	dom_node *c;

	if (end == NULL || end[1] == '\0')
		return lab_fail(err, LAB_EUSAGE,
				"a header block is named {uri}local, not '%s'",
				clark);
	for (c = wss_first_el(m->header); c != NULL; c = wss_next_el(c)) {
		const char *ns = dom_ns_uri(c);

		if (c != m->security && ns != NULL &&
		    strlen(ns) == (size_t)(end - clark - 1) &&
		    strncmp(ns, clark + 1, strlen(ns)) == 0 &&
		    strcmp(dom_local_name(c), end + 1) == 0) {
			*out = c;
			return LAB_OK;
		}
	}
	return lab_fail(err, LAB_EUSAGE, "the Header has no block %s to encrypt",
			clark);
}

/* Sign, then encrypt the Body's content, the header block in parts (if
 * any) and, with o->encrypt_signature, the Signature.  Where a second
 * thread signs, the SignatureValue may be left to write (wss/dsig.h):
 * the EncryptedKey and EncryptedData are made while it signs, unless
 * they encrypt the Signature. */
static int sign_encrypt(wss_msg *m, const wss_privkey *key,
			const wss_cert *cert, const wss_cert *peer,
			const wss_opts *o, dom_node **parts, size_t nparts,
			lab_err *err)
{
	size_t count;
	int rc = wss_dsig_sign_begin(m, key, cert, o->now, o->ttl, err);

	if (rc == LAB_OK && o->encrypt_signature) {
		rc = wss_dsig_sign_end(m, NULL, err);
		parts[nparts++] = wss_child(m->security, m->n.ds,
					    m->n.Signature, &count);
	}
	/* A pipelined seal's thread may still be encrypting. */
	if (rc == LAB_OK && m->seal != NULL)
		rc = wss_seal_join(m->seal, err);
	if (rc == LAB_OK)
		rc = wss_xenc_encrypt(m, peer, o->cipher, o->key_id, parts,
				      nparts, err);
	lab_timeline_mark(m->timeline, "encrypted");
	return rc;
}

/*
 * The message finished and, wire not NULL, serialized into it.  A
 * SignatureValue still to write (a second thread signing) is written
 * last, into the message and into wire, where the serialization left
 * room for it, so the output is written while the thread signs; wire
 * with a writer cannot be written into afterwards, and gets the finished
 * message.  A failure leaves a plain wire as it was.
 */
static int finish(wss_msg *m, lab_buf *wire, lab_err *err)
{
	const dom_node *mark = wss_dsig_unsigned_text(m);
	size_t from = wire != NULL ? wire->len : 0, at = 0;
	int rc = LAB_OK;

	if (wire != NULL && mark != NULL && !lab_buf_has_writer(wire)) {
		rc = dom_serialize_marked(dom_doc_node(m->doc), mark, wire, &at,
					  err);
		lab_timeline_mark(m->timeline, "serialized");
		if (rc == LAB_OK)
			rc = wss_dsig_sign_end(m, wire->data + at, err);
	} else {
		rc = wss_dsig_sign_end(m, NULL, err);
		if (rc == LAB_OK && wire != NULL) {
			rc = dom_serialize(dom_doc_node(m->doc), wire, err);
			lab_timeline_mark(m->timeline, "serialized");
		}
	}
	if (rc != LAB_OK && wire != NULL && !lab_buf_has_writer(wire))
		lab_buf_truncate(wire, from);
	return rc;
}

/*
 * The Body's canonical content, digested while signing, is what gets
 * encrypted: one walk over the Body instead of a c14n and a serialize.
 * Where the document keeps the content's canonical bytes, whose length
 * is then known first, they are encrypted and encoded as they are
 * digested (wss/seal.h, pass=fused): no whole copy of the plaintext or
 * of the ciphertext.  Else signing captures them whole.  With two
 * threads the sealing, and the key's wrapping, run on the second
 * (wss/seal.h's wss_seal_pipeline), unless that one is digesting the
 * Body already (wss/send_ahead.h): then this one seals.
 */
static int capture(wss_msg *m, const wss_opts *o, const wss_cert *peer,
		   lab_buf *content, wss_seal *seal, lab_err *err)
{
	size_t n = 0, ndeps;
	int rc;

	if (o->layout != WSS_SIGN_ENCRYPT || o->headers_only)
		return LAB_OK;
	if (!wss_pass_fused() ||
	    dom_canonical_content_peek(m->body, &n, &ndeps) == NULL || n == 0)
		return wss_msg_content_room(m, content, err);
	rc = wss_seal_begin(seal, m, o->cipher, n, err);
	return rc == LAB_OK && o->threads > 1 && m->send_ahead == NULL
		       ? wss_seal_pipeline(seal, peer, err)
		       : rc;
}

/* The five IDs are drawn from the untouched tree, one ID index build. */
int wss_send_doc_ahead(dom_doc *doc, const wss_privkey *key,
		       const wss_cert *cert, const wss_cert *peer,
		       const wss_opts *o, struct wss_send_ahead *ahead,
		       lab_buf *wire, lab_err *err)
{
	static const char *const bases[] = {"Body", "X509", "TS", "ED", "EK"};
	lab_buf content = LAB_BUF_INIT;
	dom_node *parts[2];
	size_t nparts = 0;
	wss_seal seal;
	wss_msg m;
	int rc = wss_msg_open(doc, 1, LAB_EMALFORMED, &m, err);

	memset(&seal, 0, sizeof seal);
	if (rc == LAB_OK && o->encrypt_signature &&
	    o->layout != WSS_SIGN_ENCRYPT)
		rc = lab_fail(err, LAB_EUSAGE,
			      "the Signature is encrypted in the sign-encrypt "
			      "layout only: encrypt-sign signs the ciphertext "
			      "after encrypting");
	if (rc == LAB_OK && o->encrypt_header != NULL)
		rc = header_block(&m, o->encrypt_header, &parts[nparts++], err);
	m.att = o->att;
	m.natt = o->natt;
	m.send_ahead = ahead;
	m.timeline = o->timeline;
	if (rc == LAB_OK)
		rc = wss_hop_prepare(&m, o, err);
	if (rc == LAB_OK)
		rc = wss_draw_ids(&m, bases, sizeof bases / sizeof bases[0],
				  err);
	if (rc == LAB_OK)
		rc = capture(&m, o, peer, &content, &seal, err);
	if (rc == LAB_OK && o->layout == WSS_ENCRYPT_SIGN)
		rc = encrypt_sign(&m, key, cert, peer, o, parts, nparts, err);
	else if (rc == LAB_OK)
		rc = sign_encrypt(&m, key, cert, peer, o, parts, nparts, err);
	if (rc == LAB_OK)
		rc = finish(&m, wire, err);
	/* After encryption the buffer holds the ciphertext, encrypted where
	 * the plaintext was; only a failure can leave plaintext in it. */
	if (rc != LAB_OK && content.data != NULL)
		OPENSSL_cleanse(content.data, content.len);
	lab_buf_free(&content);
	wss_seal_free(&seal);
	return rc;
}

int wss_send_doc(dom_doc *doc, const wss_privkey *key, const wss_cert *cert,
		 const wss_cert *peer, const wss_opts *o, lab_err *err)
{
	return wss_send_doc_ahead(doc, key, cert, peer, o, NULL, NULL, err);
}

int wss_send_bytes(const char *buf, size_t len, const wss_privkey *key,
		   const wss_cert *cert, const wss_cert *peer,
		   const wss_opts *o, dom_doc **out, lab_buf *wire,
		   lab_err *err)
{
	wss_send_ahead *ahead;
	int rc;

	*out = NULL;
	wss_send_ahead_start(&ahead, buf, len, o);
	rc = dom_parse_signing_fed(buf, len, &o->lim, wss_send_ahead_feed(ahead),
				   out, err);
	lab_timeline_mark(o->timeline, "parsed");
	if (rc == LAB_OK)
		rc = wss_send_doc_ahead(*out, key, cert, peer, o, ahead, wire,
					err);
	wss_send_ahead_free(ahead);
	return rc;
}

/*
 * Plaintext lands wherever an EncryptedData stood, so decryption could
 * add a second Body, Security header or Timestamp; verification must see
 * the same message the application will, so the structure is checked
 * again and must still be the one that was found before.
 */
static int same_shape(dom_doc *doc, const wss_msg *before,
		      const dom_node *ts, lab_err *err)
{
	dom_node *ts_after;
	size_t count;
	wss_msg m;
	int rc = wss_msg_open(doc, 0, LAB_ESECURITY, &m, err);

	if (rc != LAB_OK)
		return rc;
	ts_after = wss_child(m.security, m.n.wsu, m.n.Timestamp, &count);
	if (m.body != before->body || m.security != before->security ||
	    ts_after != ts)
		return lab_fail(err, LAB_ESECURITY,
				"decrypted content changed the message's "
				"Body, Security header or Timestamp");
	return LAB_OK;
}

/* The Signature verified; a failure once anything was decrypted, or
 * failed to, is the one message. */
static int verify(wss_msg *m, const wss_xenc_rx *rx, int decrypted,
		  const wss_cert *trust, const dom_node *ts, lab_err *err)
{
	int rc = wss_dsig_verify(m, trust, ts, err);

	lab_timeline_mark(m->timeline, "verified");
	if (rc == LAB_ESECURITY && (decrypted || rx->failed))
		rc = lab_fail(err, LAB_ESECURITY, "%s", WSS_NOT_RECEIVED);
	return rc;
}

/*
 * The Security header's elements in order (pipeline.c's comment); the
 * one Signature is verified where it stands, or at the end to report
 * that there is none.  After a failed decryption nothing more is
 * decrypted but the Signature is still verified, so that a ciphertext
 * that fails costs what one that decrypts and then fails the signature
 * does.  Last, no Reference may resolve into decrypted content.
 */
static int walk_header(wss_msg *m, wss_xenc_rx *rx, const wss_cert *trust,
		       const dom_node *ts, lab_err *err)
{
	const dom_node *c;
	int verified = 0, any = 0, decrypted, rc = LAB_OK;

	for (c = wss_first_el(m->security); c != NULL && rc == LAB_OK;
	     c = wss_next_el(c)) {
		if (dom_is(c, m->n.ds, m->n.Signature)) {
			rc = verify(m, rx, any, trust, ts, err);
			verified = 1;
			/* What is decrypted after it is digested by no one. */
			wss_ahead_free(m->ahead);
			m->ahead = NULL;
			continue;
		}
		if (rx->failed)
			continue;
		rc = wss_xenc_rx_step(rx, c, &decrypted, err);
		if (rx->failed)
			rc = LAB_OK;
		any |= rc == LAB_OK && decrypted;
		if (rc == LAB_OK && decrypted) {
			lab_timeline_mark(m->timeline, "decrypted");
			rc = same_shape(m->doc, m, ts, err);
		}
	}
	if (rc == LAB_OK && !verified)
		rc = verify(m, rx, any, trust, ts, err);
	if (rc == LAB_OK && rx->failed)
		rc = lab_fail(err, LAB_ESECURITY, "%s", WSS_NOT_RECEIVED);
	return rc != LAB_OK ? rc : wss_xenc_rx_signed_check(rx, err);
}

/* The bytes a plaintext may be decrypted from: the message's and its
 * attachments'. */
static size_t received_len(const dom_doc *doc, const wss_opts *o)
{
	size_t n = dom_doc_source_len(doc), i;

	for (i = 0; i < o->natt; i++)
		n += o->att[i].len;
	return n;
}

int wss_receive_doc(dom_doc *doc, const wss_privkey *key,
		    const wss_cert *trust, const wss_opts *o, lab_err *err)
{
	dom_node *ts = NULL;
	wss_xenc_rx rx;
	wss_msg m;
	int rc = wss_msg_open(doc, 0, LAB_ESECURITY, &m, err);

	memset(&rx, 0, sizeof rx);
	m.att = o->att;
	m.natt = o->natt;
	m.caps = &o->caps;
	m.allow_cbc = o->allow_cbc;
	m.timeline = o->timeline;
	if (rc == LAB_OK && (o->threads > 1 || wss_pass_fused()) &&
	    wss_ahead_worth(received_len(doc, o), o->threads > 1))
		rc = wss_ahead_new(&m.ahead, o->threads > 1, o->timeline,
				   err);
	if (rc == LAB_OK)
		rc = wss_timestamp_check(&m, o->now, &ts, err);
	if (rc == LAB_OK)
		rc = wss_xenc_rx_begin(&rx, &m, key, o->self, &o->lim, err);
	if (rc == LAB_OK)
		rc = walk_header(&m, &rx, trust, ts, err);
	if (rc == LAB_OK)
		rc = wss_xenc_rx_policy(&rx, err);
	wss_xenc_rx_end(&rx);
	wss_ahead_free(m.ahead);
	lab_timeline_mark(m.timeline, "received");
	return rc;
}
