/*
 * dsig.c - signing and verifying the profile's one Signature.
 *
 * Verification is a whitelist, not a general XML Signature processor:
 * one SignedInfo with exc-c14n and RSA-SHA256, References that are
 * same-document "#id" with exactly one exc-c14n Transform and SHA-256,
 * KeyInfo a SecurityTokenReference to the header's BinarySecurityToken.
 * Anything else -- another algorithm, an XPath or XSLT transform, an
 * external URI, a RetrievalMethod, an Object -- is refused, because every
 * option a verifier accepts is an option an attacker chooses.
 *
 * Digests stream the canonical bytes straight into SHA-256.
 */
#include "wss/dsig.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "util/base64.h"
#include "util/timeline.h"
#include "wss/attach.h"
#include "wss/c14n.h"
#include "wss/digest_ahead.h"
#include "wss/hop.h"
#include "wss/seal.h"
#include "wss/send_ahead.h"
#include "wss/wsse.h"

enum { MAX_PREFIXES = 32 };

static int to_digest(void *ctx, const char *p, size_t n)
{
	return wss_sha256_update(ctx, p, n);
}

/* One walk of top's canonical form into sink, its content appended to
 * content and sealed (seal not NULL); WSS_C14N_AGAIN: what the sink and
 * the content took does not count. */
static int walk_once(const dom_node *top, const wss_c14n_opts *o,
		     wss_sink_fn sink, void *ctx, lab_buf *content,
		     struct wss_seal *seal, lab_err *err)
{
	int rc = wss_c14n_pieces(top, o, sink, ctx, content, err);

	return rc == LAB_OK && seal != NULL ? wss_seal_end(seal, err) : rc;
}

/* One try of digest_tee; WSS_C14N_AGAIN as walk_once. */
static int digest_once(const dom_node *top, const wss_c14n_opts *o,
		       lab_buf *content, struct wss_seal *seal,
		       unsigned char out[WSS_SHA256_LEN], lab_err *err)
{
	wss_sha256_ctx *h = NULL;
	int rc = wss_sha256_new(&h, err);

	if (rc == LAB_OK)
		rc = walk_once(top, o, to_digest, h, content, seal, err);
	if (rc == LAB_OK && wss_sha256_final(h, out) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "digest failed");
	wss_sha256_free(h);
	return rc;
}

/* The first try for a Body whose digest a second thread guessed
 * (wss/send_ahead.h): the walk proves the guess instead of hashing, and
 * captures the content; the guess's digest when it held, else one made
 * by a walk that captures nothing again.  A walk that does not finish
 * stops the thread: the restart digests without it. */
static int guessed_once(const dom_node *top, const wss_c14n_opts *o,
			struct wss_send_ahead *a, lab_buf *content,
			struct wss_seal *seal,
			unsigned char out[WSS_SHA256_LEN], lab_err *err)
{
	int rc = walk_once(top, o, wss_send_ahead_match, a, content, seal,
			   err);

	if (rc != LAB_OK) {
		wss_send_ahead_drop(a);
		return rc;
	}
	if (wss_send_ahead_take(a, out))
		return rc;
	return digest_once(top, o, NULL, NULL, out, err);
}

/*
 * The digest, and top's canonical content appended to m->content (m not
 * NULL: the Body of a send), or sealed (m->seal).  The bytes the
 * document keeps for the content are read in pieces, part of them
 * checked only as they are read: if they turn out not to stand for the
 * content, the digest starts again (and the content, unsealed), and the
 * second walk does not take them.
 */
static int digest_tee(const dom_node *top, const char *const *prefixes,
		      size_t nprefixes, wss_msg *m,
		      unsigned char out[WSS_SHA256_LEN], lab_err *err)
{
	wss_c14n_opts o = {1, 0, prefixes, nprefixes, NULL};
	lab_buf *content = m != NULL ? m->content : NULL;
	struct wss_seal *seal = m != NULL && m->seal != NULL &&
					content == &m->seal->window
				? m->seal
				: NULL;
	struct wss_send_ahead *a =
		m != NULL && top == m->body && nprefixes == 0 ? m->send_ahead
							       : NULL;
	size_t start = content != NULL ? content->len : 0;
	int rc = a != NULL ? guessed_once(top, &o, a, content, seal, out, err)
			   : digest_once(top, &o, content, seal, out, err);

	if (rc != WSS_C14N_AGAIN)
		return rc;
	rc = LAB_OK;
	if (seal != NULL) {
		rc = wss_seal_abandon(seal, m, err);
		content = m->content;
	} else if (content != NULL && content->data != NULL) {
		OPENSSL_cleanse(content->data + start, content->len - start);
		lab_buf_truncate(content, start);
	}
	if (rc == LAB_OK)
		rc = digest_once(top, &o, content, NULL, out, err);
	return rc != WSS_C14N_AGAIN
		       ? rc
		       : lab_fail(err, LAB_ESECURITY,
				  "the digest of %s could not be made",
				  dom_local_name(top));
}

int wss_digest(const dom_node *top, const char *const *prefixes,
	       size_t nprefixes, unsigned char out[WSS_SHA256_LEN],
	       lab_err *err)
{
	return digest_tee(top, prefixes, nprefixes, NULL, out, err);
}

/* ---- signing ---- */

/* target's digest into dv, a DigestValue left empty for it. */
static int digest_into(dom_node *dv, const dom_node *target, wss_msg *m,
		       lab_err *err)
{
	unsigned char digest[WSS_SHA256_LEN];
	int rc = digest_tee(target, NULL, 0, m, digest, err);

	return rc != LAB_OK ? rc : wss_add_b64(dv, digest, sizeof digest, err);
}

/*
 * A Reference to target, whose digest is made now, or, with later not
 * NULL, whose DigestValue is left empty in *later for digest_into to
 * fill.
 */
static int add_reference(dom_node *si, const char *id, const dom_node *target,
			 wss_msg *m, dom_node **later, lab_err *err)
{
	char uri[80];
	dom_node *ref, *tr, *dv;
	int rc;

	snprintf(uri, sizeof uri, "#%s", id);
	rc = wss_add(si, NULL, WSS_NS_DS, "ds:Reference", &ref, err);
	if (rc == LAB_OK)
		rc = wss_set(ref, NULL, "URI", uri, err);
	if (rc == LAB_OK)
		rc = wss_add(ref, NULL, WSS_NS_DS, "ds:Transforms", &tr, err);
	if (rc == LAB_OK)
		rc = wss_add_alg(tr, WSS_NS_DS, "ds:Transform",
				 WSS_ALG_EXC_C14N, NULL, err);
	if (rc == LAB_OK)
		rc = wss_add_alg(ref, WSS_NS_DS, "ds:DigestMethod",
				 WSS_ALG_SHA256, NULL, err);
	if (rc == LAB_OK)
		rc = wss_add(ref, NULL, WSS_NS_DS, "ds:DigestValue", &dv, err);
	if (rc == LAB_OK && later != NULL)
		*later = dv;
	else if (rc == LAB_OK)
		rc = digest_into(dv, target, m, err);
	return rc;
}

/*
 * SignedInfo si, whole but for the Body's DigestValue (empty), offered
 * to the thread that guesses the Body's digest (wss/send_ahead.h), so
 * that it signs as soon as it has the digest.  Never an error: without
 * an offer this thread signs.  The empty DigestValue is found in the
 * canonical form as its tags with nothing between them, and only where
 * that is the one such pair.
 */
static void offer_signature(const dom_node *si, wss_msg *m,
			    const wss_privkey *key)
{
	static const char empty[] = "<ds:DigestValue></ds:DigestValue>";
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	lab_buf c14n = LAB_BUF_INIT;
	lab_err ignored;
	const char *at;

	if (wss_c14n_buf(si, &o, &c14n, &ignored) != LAB_OK ||
	    (at = strstr(c14n.data, empty)) == NULL ||
	    strstr(at + 1, empty) != NULL)
		(void)wss_send_ahead_offer(m->send_ahead, key, NULL, 0, 0);
	else
		(void)wss_send_ahead_offer(m->send_ahead, key, c14n.data,
					   c14n.len,
					   (size_t)(at - c14n.data) +
						   sizeof "<ds:DigestValue>" - 1);
	lab_buf_free(&c14n);
}

static int add_key_info(dom_node *sig, const char *bst_id, lab_err *err)
{
	dom_node *ki;
	int rc = wss_add(sig, NULL, WSS_NS_DS, "ds:KeyInfo", &ki, err);

	return rc != LAB_OK ? rc : wss_add_token_ref(ki, bst_id, WSS_X509V3, err);
}

/* The signature of si: the one the Body's guessing thread made
 * (m->send_ahead; NULL: none) where it signed these very bytes, else
 * made here; appended to sig. */
static int sign_signed_info(const dom_node *si, const wss_privkey *key,
			    struct wss_send_ahead *a, lab_buf *sig,
			    lab_err *err)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	lab_buf c14n = LAB_BUF_INIT;
	int rc = wss_c14n_buf(si, &o, &c14n, err);

	if (rc == LAB_OK &&
	    !wss_send_ahead_signature(a, c14n.data, c14n.len, sig))
		rc = wss_rsa_sign_sha256(key, c14n.data, c14n.len, sig, err);
	lab_buf_free(&c14n);
	return rc;
}

/* SignatureValue sv for si, made here. */
static int sign_into(const dom_node *si, dom_node *sv, const wss_privkey *key,
		     lab_err *err)
{
	lab_buf sig = LAB_BUF_INIT;
	int rc = sign_signed_info(si, key, NULL, &sig, err);

	if (rc == LAB_OK)
		rc = wss_add_b64(sv, sig.data, sig.len, err);
	lab_buf_free(&sig);
	return rc;
}

/* SignatureValue sv's text made at the size of key's signature, for
 * wss_dsig_sign_end to write: until then, characters that a serializer
 * writes as they stand. */
static int leave_value(wss_msg *m, const dom_node *si, dom_node *sv,
		       const wss_privkey *key, lab_err *err)
{
	size_t len = lab_base64_len(wss_rsa_sig_len(key));
	char *chars;
	dom_node *t;
	int rc = dom_create_text_buf(m->doc, len, &chars, &t, err);

	if (rc == LAB_OK) {
		memset(chars, 'A', len);
		rc = dom_append(sv, t, err);
	}
	if (rc == LAB_OK) {
		m->unsigned_sv.si = si;
		m->unsigned_sv.key = key;
		m->unsigned_sv.text = t;
		m->unsigned_sv.chars = chars;
		m->unsigned_sv.len = len;
	}
	return rc;
}

/*
 * SignedInfo si's References: the Body (unless headers_only), the
 * Timestamp ts, the To header (m->sign_to) and the attachments.  A Body
 * whose digest a second thread guesses (m->send_ahead) is digested
 * last, once SignedInfo, whole but for that digest, is offered to the
 * thread to sign (wss/send_ahead.h).
 */
static int add_references(wss_msg *m, dom_node *si, const char *body_id,
			  const dom_node *ts, const char *ts_id,
			  const char *to_id, const wss_privkey *key,
			  lab_err *err)
{
	wss_msg *tee = m->content != NULL ? m : NULL;
	dom_node *later = NULL;
	int rc = LAB_OK;

	if (!m->headers_only)
		rc = add_reference(si, body_id, m->body, tee,
				   tee != NULL && m->send_ahead != NULL
					   ? &later
					   : NULL,
				   err);
	if (rc == LAB_OK)
		rc = add_reference(si, ts_id, ts, NULL, NULL, err);
	if (rc == LAB_OK && m->sign_to != NULL)
		rc = add_reference(si, to_id, m->sign_to, NULL, NULL, err);
	if (rc == LAB_OK)
		rc = wss_attach_sign(m, si, err);
	if (rc == LAB_OK && later != NULL) {
		offer_signature(si, m, key);
		rc = digest_into(later, m->body, m, err);
	}
	return rc;
}

int wss_dsig_sign_begin(wss_msg *m, const wss_privkey *key,
			const wss_cert *cert, time_t now, unsigned ttl,
			lab_err *err)
{
	static const char *const bases[] = {"Body", "X509", "TS", "To"};
	char body_id[64], bst_id[64], ts_id[64], to_id[64];
	dom_node *sig, *si, *sv, *ts;
	int rc;

	/* Each change below would otherwise cost the next ID a rebuild of
	 * the ID index. */
	rc = wss_draw_ids(m, bases, sizeof bases / sizeof bases[0], err);
	if (rc == LAB_OK && !m->headers_only)
		rc = wss_ensure_id(m, m->body, "Body", body_id, sizeof body_id,
				   err);
	if (rc == LAB_OK && m->sign_to != NULL)
		rc = wss_ensure_id(m, m->sign_to, "To", to_id, sizeof to_id,
				   err);
	if (rc == LAB_OK)
		rc = wss_bst_add(m, cert, bst_id, sizeof bst_id, err);
	if (rc == LAB_OK)
		rc = wss_add(m->security, NULL, WSS_NS_DS, "ds:Signature", &sig,
			     err);
	if (rc == LAB_OK)
		rc = dom_ns_declare(sig, "ds", WSS_NS_DS, err);
	if (rc == LAB_OK)
		rc = wss_timestamp_add(m, now, ttl, &ts, err);
	if (rc == LAB_OK)
		rc = wss_ensure_id(m, ts, "TS", ts_id, sizeof ts_id, err);
	if (rc == LAB_OK)
		rc = wss_add(sig, NULL, WSS_NS_DS, "ds:SignedInfo", &si, err);
	if (rc == LAB_OK)
		rc = wss_add_alg(si, WSS_NS_DS, "ds:CanonicalizationMethod",
				 WSS_ALG_EXC_C14N, NULL, err);
	if (rc == LAB_OK)
		rc = wss_add_alg(si, WSS_NS_DS, "ds:SignatureMethod",
				 WSS_ALG_RSA_SHA256, NULL, err);
	if (rc == LAB_OK)
		rc = add_references(m, si, body_id, ts, ts_id, to_id, key, err);
	if (rc == LAB_OK)
		rc = wss_add(sig, NULL, WSS_NS_DS, "ds:SignatureValue", &sv, err);
	if (rc == LAB_OK)
		rc = add_key_info(sig, bst_id, err);
	/* Only a second thread's signature is worth waiting for later. */
	if (rc == LAB_OK && wss_send_ahead_taken(m->send_ahead))
		rc = leave_value(m, si, sv, key, err);
	else if (rc == LAB_OK) {
		rc = sign_into(si, sv, key, err);
		lab_timeline_mark(m->timeline, "signed");
	}
	return rc;
}

const dom_node *wss_dsig_unsigned_text(const wss_msg *m)
{
	return m->unsigned_sv.text;
}

int wss_dsig_sign_end(wss_msg *m, char *also, lab_err *err)
{
	lab_buf sig = LAB_BUF_INIT;
	int rc;

	if (m->unsigned_sv.text == NULL)
		return LAB_OK;
	m->unsigned_sv.text = NULL;
	rc = sign_signed_info(m->unsigned_sv.si, m->unsigned_sv.key,
			      m->send_ahead, &sig, err);
	if (rc == LAB_OK && lab_base64_len(sig.len) != m->unsigned_sv.len)
		rc = lab_fail(err, LAB_ESECURITY,
			      "the signature is not the key's size");
	if (rc == LAB_OK &&
	    lab_base64_put(sig.data, sig.len, 0, m->unsigned_sv.chars) == NULL)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK && also != NULL)
		memcpy(also, m->unsigned_sv.chars, m->unsigned_sv.len);
	lab_timeline_mark(m->timeline, "signed");
	lab_buf_free(&sig);
	return rc;
}

int wss_dsig_sign(wss_msg *m, const wss_privkey *key, const wss_cert *cert,
		  time_t now, unsigned ttl, lab_err *err)
{
	int rc = wss_dsig_sign_begin(m, key, cert, now, ttl, err);

	return rc == LAB_OK ? wss_dsig_sign_end(m, NULL, err) : rc;
}

/* ---- verifying ---- */

/* "#id" in the whole document, or in m->id_scope only (wss/hop.h):
 * there *out NULL means the Reference is not this verifier's. */
static int resolve(const wss_msg *m, const char *uri, dom_node **out,
		   lab_err *err)
{
	return m->id_scope != NULL ? wss_hop_resolve(m, uri, out, err)
				   : wss_resolve(m->doc, uri, out, err);
}

/* An InclusiveNamespaces PrefixList, split in place. */
typedef struct prefix_list {
	lab_buf text;
	const char *items[MAX_PREFIXES];
	size_t n;
} prefix_list;

static int refuse(lab_err *err, const char *what, const dom_node *el)
{
	return lab_fail(err, LAB_ESECURITY, "%s: unexpected <%s>", what,
			el != NULL ? dom_local_name(el) : "(end)");
}

/*
 * el must be ds:<local> (local interned) with Algorithm `alg`; its only
 * allowed child is an InclusiveNamespaces (read into pl) when pl is not
 * NULL.
 */
static int expect_alg(const wss_msg *m, const dom_node *el, const char *local,
		      const char *alg, prefix_list *pl, lab_err *err)
{
	const char *have;
	const dom_node *c;
	char *save = NULL, *tok;

	if (el == NULL || !dom_is(el, m->n.ds, local))
		return lab_fail(err, LAB_ESECURITY, "expected ds:%s", local);
	have = dom_attr_value(el, NULL, m->n.Algorithm);
	if (have == NULL || strcmp(have, alg) != 0)
		return lab_fail(err, LAB_ESECURITY,
				"ds:%s algorithm '%s' is not allowed (only %s)",
				local, have != NULL ? have : "(none)", alg);
	c = wss_first_el(el);
	if (c == NULL)
		return LAB_OK;
	if (pl == NULL || !dom_is(c, m->n.exc, m->n.InclusiveNamespaces) ||
	    wss_next_el(c) != NULL)
		return refuse(err, local, c);
	have = dom_attr_value(c, NULL, m->n.PrefixList);
	if (have == NULL || lab_buf_puts(&pl->text, have) != LAB_OK)
		return lab_fail(err, LAB_ESECURITY, "bad InclusiveNamespaces");
	for (tok = strtok_r(pl->text.data, " \t\r\n", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (pl->n == MAX_PREFIXES)
			return lab_fail(err, LAB_ESECURITY,
					"PrefixList too long");
		pl->items[pl->n++] = tok;
	}
	return LAB_OK;
}

/* One Reference: resolves, checks its algorithms, compares the digest. */
static int check_reference(const wss_msg *m, const dom_node *ref,
			   const dom_node **target, lab_err *err)
{
	unsigned char digest[WSS_SHA256_LEN];
	prefix_list pl = {LAB_BUF_INIT, {NULL}, 0};
	lab_buf want = LAB_BUF_INIT;
	const dom_node *c = wss_first_el(ref), *t;
	dom_node *found;
	int rc;

	rc = resolve(m, dom_attr_value(ref, NULL, m->n.URI), &found, err);
	if (rc != LAB_OK)
		goto out;
	*target = found;
	if (c == NULL || !dom_is(c, m->n.ds, m->n.Transforms)) {
		rc = lab_fail(err, LAB_ESECURITY,
			      "Reference lacks the exc-c14n Transform");
		goto out;
	}
	t = wss_first_el(c);
	if (t != NULL && wss_next_el(t) != NULL) {
		rc = lab_fail(err, LAB_ESECURITY,
			      "Reference has more than one Transform");
		goto out;
	}
	rc = expect_alg(m, t, m->n.Transform, WSS_ALG_EXC_C14N, &pl, err);
	if (rc == LAB_OK) {
		c = wss_next_el(c);
		rc = expect_alg(m, c, m->n.DigestMethod, WSS_ALG_SHA256,
				NULL, err);
	}
	if (rc != LAB_OK)
		goto out;
	c = wss_next_el(c);
	if (c == NULL || !dom_is(c, m->n.ds, m->n.DigestValue) ||
	    wss_next_el(c) != NULL) {
		rc = refuse(err, "Reference", c);
		goto out;
	}
	if (found == NULL)
		goto out;
	rc = wss_b64_text(c, &want, err);
	/* A decrypted Body's digest may have been made, and proved, while
	 * it was parsed (wss/digest_ahead.h). */
	if (rc == LAB_OK && !wss_ahead_take(m->ahead, found, pl.n, digest))
		rc = wss_digest(found, pl.items, pl.n, digest, err);
	if (rc == LAB_OK &&
	    (want.len != sizeof digest ||
	     !wss_ct_equal(want.data, digest, sizeof digest)))
		rc = lab_fail(err, LAB_ESECURITY,
			      "digest of '%s' does not match: the signed "
			      "content was changed",
			      dom_attr_value(ref, NULL, m->n.URI));
out:
	lab_buf_free(&pl.text);
	lab_buf_free(&want);
	return rc;
}

/* The certificate KeyInfo names: STR -> Reference -> our BST. */
static int key_info_cert(const wss_msg *m, const dom_node *ki,
			 const wss_cert *trust, wss_cert **cert, lab_err *err)
{
	const dom_node *str, *ref;
	const char *vt;
	dom_node *bst;
	int rc;

	*cert = NULL;
	if (ki == NULL || !dom_is(ki, m->n.ds, m->n.KeyInfo))
		return lab_fail(err, LAB_ESECURITY, "Signature has no KeyInfo");
	str = wss_first_el(ki);
	if (str == NULL || wss_next_el(str) != NULL ||
	    !dom_is(str, m->n.wsse, m->n.SecurityTokenReference))
		return lab_fail(err, LAB_ESECURITY,
				"KeyInfo is not one SecurityTokenReference");
	ref = wss_first_el(str);
	if (ref == NULL || wss_next_el(ref) != NULL ||
	    !dom_is(ref, m->n.wsse, m->n.Reference))
		return lab_fail(err, LAB_ESECURITY,
				"SecurityTokenReference is not one Reference");
	vt = dom_attr_value(ref, NULL, m->n.ValueType);
	if (vt != NULL && strcmp(vt, WSS_X509V3) != 0)
		return lab_fail(err, LAB_ESECURITY,
				"token type '%s' is not allowed", vt);
	rc = resolve(m, dom_attr_value(ref, NULL, m->n.URI), &bst, err);
	if (rc == LAB_OK && bst == NULL)
		rc = lab_fail(err, LAB_ESECURITY,
			      "the KeyInfo's token is not in the Header");
	if (rc == LAB_OK)
		rc = wss_bst_cert(m, bst, trust, cert, err);
	return rc;
}

static int check_signature_value(const dom_node *si, const prefix_list *pl,
				 const dom_node *sv, const wss_cert *cert,
				 lab_err *err)
{
	wss_c14n_opts o = {1, 0, pl->items, pl->n, NULL};
	lab_buf c14n = LAB_BUF_INIT, sig = LAB_BUF_INIT;
	int rc = wss_field_within(sv, WSS_FIELD_SIGNATURE,
				  "an RSA signature of up to 8192 bits", err);

	if (rc == LAB_OK)
		rc = wss_b64_text(sv, &sig, err);

	if (rc == LAB_OK)
		rc = wss_c14n_buf(si, &o, &c14n, err);
	if (rc == LAB_OK)
		rc = wss_rsa_verify_sha256(cert, c14n.data, c14n.len,
					   (const unsigned char *)sig.data,
					   sig.len, err);
	lab_buf_free(&c14n);
	lab_buf_free(&sig);
	return rc;
}

/* How many element children el has, counting stops past `cap`. */
static size_t count_els(const dom_node *el, size_t cap)
{
	const dom_node *c;
	size_t n = 0;

	for (c = wss_first_el(el); c != NULL && n <= cap; c = wss_next_el(c))
		n++;
	return n;
}

/*
 * The caps on what canonicalizing SignedInfo and checking its References
 * costs, checked before any of it: SignedInfo's size, then how many
 * References it holds (besides its two methods) and Transforms each has.
 */
static int check_caps(const wss_msg *m, const dom_node *si, lab_err *err)
{
	size_t refs = wss_cap(m->caps, WSS_CAP_REFERENCES);
	size_t transforms = wss_cap(m->caps, WSS_CAP_TRANSFORMS);
	const dom_node *c;

	if (!wss_cap_size_within(si, wss_cap(m->caps, WSS_CAP_SIGNEDINFO)))
		return wss_cap_refuse(m->caps, WSS_CAP_SIGNEDINFO, err);
	if (count_els(si, refs + 2) > refs + 2)
		return wss_cap_refuse(m->caps, WSS_CAP_REFERENCES, err);
	for (c = wss_first_el(si); c != NULL; c = wss_next_el(c)) {
		const dom_node *tr = wss_first_el(c);

		if (dom_is(c, m->n.ds, m->n.Reference) && tr != NULL &&
		    dom_is(tr, m->n.ds, m->n.Transforms) &&
		    count_els(tr, transforms) > transforms)
			return wss_cap_refuse(m->caps, WSS_CAP_TRANSFORMS, err);
	}
	return LAB_OK;
}

/*
 * The Signature's shape and caps, its two methods, its key (trust's
 * certificate) and its SignatureValue: on LAB_OK *si is the SignedInfo
 * and *refs the element after its methods, where the References start.
 */
static int check_signature(const wss_msg *m, const wss_cert *trust,
			   const dom_node **si, const dom_node **refs,
			   lab_err *err)
{
	prefix_list pl = {LAB_BUF_INIT, {NULL}, 0};
	const dom_node *sig, *sv, *ki, *c;
	wss_cert *cert = NULL;
	size_t count;
	int rc;

	if (m->security == NULL)
		return lab_fail(err, LAB_ESECURITY, "no wsse:Security header");
	sig = wss_child(m->security, m->n.ds, m->n.Signature, &count);
	if (sig == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"Security header has %zu Signatures", count);
	*si = wss_first_el(sig);
	sv = *si != NULL ? wss_next_el(*si) : NULL;
	ki = sv != NULL ? wss_next_el(sv) : NULL;
	if (*si == NULL || !dom_is(*si, m->n.ds, m->n.SignedInfo) ||
	    sv == NULL || !dom_is(sv, m->n.ds, m->n.SignatureValue) ||
	    (ki != NULL && wss_next_el(ki) != NULL))
		return refuse(err, "Signature", *si);
	rc = check_caps(m, *si, err);
	if (rc != LAB_OK)
		return rc;
	c = wss_first_el(*si);
	rc = expect_alg(m, c, m->n.CanonicalizationMethod, WSS_ALG_EXC_C14N,
			&pl, err);
	if (rc == LAB_OK) {
		c = wss_next_el(c);
		rc = expect_alg(m, c, m->n.SignatureMethod, WSS_ALG_RSA_SHA256,
				NULL, err);
	}
	if (rc == LAB_OK)
		rc = key_info_cert(m, ki, trust, &cert, err);
	if (rc == LAB_OK && !wss_cert_equal(cert, trust))
		rc = lab_fail(err, LAB_ESECURITY,
			      "signing certificate is not the trusted one");
	if (rc == LAB_OK)
		rc = check_signature_value(*si, &pl, sv, cert, err);
	*refs = c != NULL ? wss_next_el(c) : NULL;
	wss_cert_free(cert);
	lab_buf_free(&pl.text);
	return rc;
}

/* Which of the parts a verifier asks for the References cover. */
typedef struct covered {
	int body, timestamp, block;
} covered;

/* Every Reference from c on, checked; attachments' only when the whole
 * message is verified (block NULL), a hop reads none. */
static int check_references(const wss_msg *m, const dom_node *c,
			    const dom_node *timestamp, const dom_node *block,
			    covered *cv, lab_err *err)
{
	int rc = LAB_OK;

	for (; rc == LAB_OK && c != NULL; c = wss_next_el(c)) {
		const dom_node *target = NULL;

		if (!dom_is(c, m->n.ds, m->n.Reference))
			return refuse(err, "SignedInfo", c);
		if (wss_attach_is_ref(m, c)) {
			if (block == NULL)
				rc = wss_attach_check_ref(m, c, err);
			continue;
		}
		rc = check_reference(m, c, &target, err);
		cv->body |= target != NULL && target == m->body;
		cv->timestamp |= target != NULL && target == timestamp;
		cv->block |= target != NULL && target == block;
		if (rc == LAB_OK && target != NULL &&
		    dom_is(target, m->n.soap, m->n.Body) && target != m->body)
			rc = lab_fail(err, LAB_ESECURITY,
				      "a signed soap:Body is not the "
				      "Envelope's Body (signature wrapping)");
	}
	return rc;
}

/* The Signature, then what it must cover: the Timestamp, and the Body
 * (block NULL) or the header block. */
static int verify(wss_msg *m, const wss_cert *trust,
		  const dom_node *timestamp, const dom_node *block,
		  lab_err *err)
{
	const dom_node *si = NULL, *refs = NULL;
	covered cv = {0, 0, 0};
	int rc = check_signature(m, trust, &si, &refs, err);

	if (rc == LAB_OK)
		rc = check_references(m, refs, timestamp, block, &cv, err);
	if (rc == LAB_OK && block == NULL && !cv.body)
		rc = lab_fail(err, LAB_ESECURITY,
			      "the Envelope's soap:Body is not signed");
	if (rc == LAB_OK && !cv.timestamp)
		rc = lab_fail(err, LAB_ESECURITY, "the Timestamp is not signed");
	if (rc == LAB_OK && block != NULL && !cv.block)
		rc = lab_fail(err, LAB_ESECURITY,
			      "the header block <%s> is not signed",
			      dom_local_name(block));
	if (rc == LAB_OK && block == NULL)
		rc = wss_attach_all_signed(m, si, err);
	return rc;
}

int wss_dsig_verify(wss_msg *m, const wss_cert *trust,
		    const dom_node *timestamp, lab_err *err)
{
	return verify(m, trust, timestamp, NULL, err);
}

int wss_dsig_verify_block(wss_msg *m, const wss_cert *trust,
			  const dom_node *timestamp, const dom_node *block,
			  lab_err *err)
{
	return verify(m, trust, timestamp, block, err);
}
