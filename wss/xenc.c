/*
 * xenc.c - encrypting the Body's content (and the Signature or a header
 * block, Type Element, under the same key) and decrypting it back.
 *
 * The plaintext is the Body's children as a fragment that parses back in
 * the Body's namespace context, which is what XML Encryption's Content
 * type means and what xmlsec1 produces and expects: on send, the exc-c14n
 * of the content that signing already produced (one walk for digest and
 * plaintext; what is encrypted is then exactly what was signed, without
 * the comments and unused namespace declarations the signature does not
 * cover; encrypted as it was digested, wss/seal.h, where the document
 * keeps those bytes), otherwise the serializer's output.  An element's plaintext is
 * its own exc-c14n.  After decryption the fragment is parsed in place of
 * the EncryptedData, or of the EncryptedHeader around it
 * (dom_replace_parsed).
 */
#include "wss/xenc.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/base64.h"
#include "util/timeline.h"
#include "wss/c14n.h"
#include "wss/digest_ahead.h"
#include "wss/pass.h"
#include "wss/seal.h"
#include "wss/soapnames.h"
#include "wss/wsse.h"

/* MAX_KEY: the longest session key; PARSE_ROOM: see take_ciphertext. */
enum { MAX_KEY = 32, PARSE_ROOM = 512 };

static const char decryption_failed[] = "decryption failed";

/* The CipherValue: the base64 of p[0..n), or the text node `sealed`
 * already holds it in (wss/seal.h), which the document then owns. */
static int add_cipher_value(dom_node *parent, dom_node *sealed, const void *p,
			    size_t n, lab_err *err)
{
	dom_node *cd, *cv;
	int rc = wss_add(parent, NULL, WSS_NS_XENC, "xenc:CipherData", &cd, err);

	if (rc == LAB_OK)
		rc = wss_add(cd, NULL, WSS_NS_XENC, "xenc:CipherValue", &cv, err);
	if (rc == LAB_OK && sealed != NULL)
		return dom_append(cv, sealed, err);
	return rc != LAB_OK ? rc : wss_add_b64(cv, p, n, err);
}

/* The Body's children serialized one after the other (unless signing
 * left their canonical form in m->content, after m->content_at bytes of
 * room, or sealed them), then removed; *at is where the plaintext starts
 * in *plain. */
static int take_content(wss_msg *m, int sealed, lab_buf *pt, lab_buf **plain,
			size_t *at, lab_err *err)
{
	dom_node *c;

	*plain = pt;
	*at = 0;
	if (sealed) {
		/* Nothing to take: encrypted while digested. */
	} else if (m->content != NULL && m->content->len > m->content_at) {
		*plain = m->content;
		*at = m->content_at;
	} else {
		for (c = dom_first_child(m->body); c != NULL;
		     c = dom_next_sibling(c)) {
			int rc = dom_serialize(c, pt, err);

			if (rc != LAB_OK)
				return rc;
		}
	}
	while ((c = dom_first_child(m->body)) != NULL)
		dom_node_free(c);
	return LAB_OK;
}

/* An EncryptedData of `type` holding ct[0..n), inserted in parent before
 * ref (NULL: appended). */
static int add_encrypted_data(dom_node *parent, dom_node *ref,
			      const char *type, wss_cipher cipher,
			      const char *id, const char *ek_id,
			      dom_node *sealed, const char *ct, size_t n,
			      lab_err *err)
{
	dom_node *ed, *ki;
	int rc;

	rc = wss_add(parent, ref, WSS_NS_XENC, "xenc:EncryptedData", &ed, err);
	if (rc == LAB_OK)
		rc = dom_ns_declare(ed, "xenc", WSS_NS_XENC, err);
	if (rc == LAB_OK)
		rc = wss_set(ed, NULL, "Id", id, err);
	if (rc == LAB_OK)
		rc = wss_set(ed, NULL, "Type", type, err);
	if (rc == LAB_OK)
		rc = wss_add_alg(ed, WSS_NS_XENC, "xenc:EncryptionMethod",
				 wss_cipher_uri(cipher), NULL, err);
	if (rc == LAB_OK)
		rc = wss_add(ed, NULL, WSS_NS_DS, "ds:KeyInfo", &ki, err);
	if (rc == LAB_OK)
		rc = dom_ns_declare(ki, "ds", WSS_NS_DS, err);
	if (rc == LAB_OK)
		rc = wss_add_token_ref(ki, ek_id, WSS_EK_TOKEN, err);
	if (rc == LAB_OK)
		rc = add_cipher_value(ed, sealed, ct, n, err);
	return rc;
}

/* A wsse11:EncryptedHeader with a wsu:Id, just before the header block
 * it will hold the encryption of. */
static int add_encrypted_header(wss_msg *m, dom_node *block, dom_node **out,
				lab_err *err)
{
	char id[32];
	int rc = wss_add(m->header, block, WSS_NS_WSSE11,
			 "wsse11:EncryptedHeader", out, err);

	if (rc == LAB_OK)
		rc = dom_ns_declare(*out, "wsse11", WSS_NS_WSSE11, err);
	return rc != LAB_OK ? rc
			    : wss_ensure_id(m, *out, "EH", id, sizeof id, err);
}

/*
 * One element encrypted under key as Type Element: its exc-c14n, which
 * declares every namespace it uses, is the plaintext, so it parses back
 * anywhere.  The EncryptedData takes the element's place; a header block's
 * goes inside a wsse11:EncryptedHeader there (SOAP Message Security 1.1,
 * section 9.3), so the Header keeps only header blocks.
 */
static int encrypt_element(wss_msg *m, dom_node *el, wss_cipher cipher,
			   const unsigned char *key, const char *ek_id,
			   char *id, size_t cap, lab_err *err)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	lab_buf pt = LAB_BUF_INIT;
	dom_node *parent = dom_parent(el), *ref = el;
	size_t off = 0;
	int rc = wss_msg_new_id(m, "ED", id, cap, err);

	if (rc == LAB_OK)
		rc = wss_c14n_buf(el, &o, &pt, err);
	if (rc == LAB_OK)
		rc = wss_encrypt_in_place_at(cipher, key, &pt, 0, &off, err);
	if (rc == LAB_OK && parent == m->header) {
		rc = add_encrypted_header(m, el, &parent, err);
		ref = NULL;
	}
	if (rc == LAB_OK)
		rc = add_encrypted_data(parent, ref, WSS_TYPE_ELEMENT, cipher,
					id, ek_id, NULL, pt.data + off,
					pt.len - off, err);
	if (rc == LAB_OK)
		dom_node_free(el);
	if (pt.data != NULL)
		OPENSSL_cleanse(pt.data, pt.len);
	lab_buf_free(&pt);
	return rc;
}

/* The EncryptedKey for key, wrapped for peer here or, when `done` holds
 * it already (a pipelined seal's thread wrapped it), taken from there. */
static int add_encrypted_key(wss_msg *m, const wss_cert *peer,
			     wss_key_id key_id, const char *id,
			     char (*ed_ids)[32], size_t nids,
			     const unsigned char *key, size_t keylen,
			     const lab_buf *done, lab_err *err)
{
	lab_buf wrapped = LAB_BUF_INIT;
	const lab_buf *w = done != NULL && done->len > 0 ? done : &wrapped;
	dom_node *ek, *rl, *dr;
	char uri[80];
	size_t i;
	int rc;

	rc = wss_add(m->security, wss_first_el(m->security), WSS_NS_XENC,
		     "xenc:EncryptedKey", &ek, err);
	if (rc == LAB_OK)
		rc = dom_ns_declare(ek, "xenc", WSS_NS_XENC, err);
	if (rc == LAB_OK)
		rc = wss_set(ek, NULL, "Id", id, err);
	if (rc == LAB_OK)
		rc = wss_add_alg(ek, WSS_NS_XENC, "xenc:EncryptionMethod",
				 WSS_ALG_RSA_OAEP, NULL, err);
	if (rc == LAB_OK)
		rc = wss_keyid_add(m, ek, peer, key_id, err);
	if (rc == LAB_OK && w == &wrapped)
		rc = wss_rsa_oaep_wrap(peer, key, keylen, &wrapped, err);
	if (rc == LAB_OK)
		rc = add_cipher_value(ek, NULL, w->data, w->len, err);
	if (rc == LAB_OK)
		rc = wss_add(ek, NULL, WSS_NS_XENC, "xenc:ReferenceList", &rl,
			     err);
	for (i = 0; i < nids && rc == LAB_OK; i++) {
		snprintf(uri, sizeof uri, "#%s", ed_ids[i]);
		rc = wss_add(rl, NULL, WSS_NS_XENC, "xenc:DataReference", &dr,
			     err);
		if (rc == LAB_OK)
			rc = wss_set(dr, NULL, "URI", uri, err);
	}
	lab_buf_free(&wrapped);
	return rc;
}

int wss_xenc_encrypt(wss_msg *m, const wss_cert *peer, wss_cipher cipher,
		     wss_key_id key_id, dom_node *const *parts, size_t nparts,
		     lab_err *err)
{
	unsigned char key[MAX_KEY];
	lab_buf pt = LAB_BUF_INIT;
	lab_buf *plain = &pt;
	const lab_buf *wrapped = NULL;
	dom_node *sealed = NULL;
	size_t keylen = wss_cipher_key_len(cipher), at = 0, off = 0, i;
	char ed_ids[1 + WSS_XENC_MAX_PARTS][32], ek_id[32];
	int rc;

	if (dom_first_child(m->body) == NULL)
		return lab_fail(err, LAB_EUSAGE, "soap:Body is empty");
	if (nparts > WSS_XENC_MAX_PARTS)
		return lab_fail(err, LAB_EUSAGE, "more than %d parts to encrypt",
				WSS_XENC_MAX_PARTS);
	/* The Body's EncryptedData is listed last, so the receiver decrypts
	 * it last: the bytes it parses stay the Body's canonical content
	 * for the digest (dom_canonical_content) only while nothing else in
	 * the document changes. */
	rc = wss_msg_new_id(m, "ED", ed_ids[nparts], sizeof ed_ids[nparts],
			    err);
	if (rc == LAB_OK)
		rc = wss_msg_new_id(m, "EK", ek_id, sizeof ek_id, err);
	/* Sealing drew the key, and may have encrypted the content. */
	if (rc == LAB_OK && m->seal != NULL && m->seal->cipher == cipher) {
		memcpy(key, m->seal->key, keylen);
		sealed = wss_seal_take(m->seal);
		if (m->seal->peer == peer)
			wrapped = &m->seal->wrapped;
	} else if (rc == LAB_OK) {
		rc = wss_random(key, keylen, err);
	}
	if (rc == LAB_OK)
		rc = take_content(m, sealed != NULL, &pt, &plain, &at, err);
	/* The plaintext buffer becomes the ciphertext's. */
	if (rc == LAB_OK && sealed == NULL)
		rc = wss_encrypt_in_place_at(cipher, key, plain, at, &off, err);
	if (rc == LAB_OK)
		rc = add_encrypted_data(m->body, NULL, WSS_TYPE_CONTENT, cipher,
					ed_ids[nparts], ek_id, sealed,
					plain->data + off, plain->len - off,
					err);
	if (sealed != NULL && rc != LAB_OK && dom_parent(sealed) == NULL)
		dom_node_free(sealed);
	for (i = 0; i < nparts && rc == LAB_OK; i++)
		rc = encrypt_element(m, parts[i], cipher, key, ek_id, ed_ids[i],
				     sizeof ed_ids[i], err);
	if (rc == LAB_OK)
		rc = add_encrypted_key(m, peer, key_id, ek_id, ed_ids,
				       1 + nparts, key, keylen, wrapped, err);
	OPENSSL_cleanse(key, sizeof key);
	lab_buf_free(&pt);
	return rc;
}

/* ---- decryption ---- */

/* The one CipherData/CipherValue of el, decoded; at most max
 * characters of it (0: any). */
static int cipher_value(const wss_msg *m, const dom_node *el, size_t max,
			lab_buf *out, lab_err *err)
{
	const dom_node *cd, *cv;
	size_t count;

	cd = wss_child(el, m->n.xenc, m->n.CipherData, &count);
	cv = cd != NULL ? wss_child(cd, m->n.xenc, m->n.CipherValue, &count)
			: NULL;
	if (cv == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"%s has no CipherData/CipherValue",
				dom_local_name(el));
	if (max != 0 &&
	    wss_field_within(cv, max, "a key wrapped with RSA of up to 8192 "
				      "bits", err) != LAB_OK)
		return LAB_ESECURITY;
	return wss_b64_text(cv, out, err);
}

static const char *method_of(const wss_msg *m, const dom_node *el)
{
	size_t count;
	const dom_node *em = wss_child(el, m->n.xenc, m->n.EncryptionMethod,
				       &count);

	return em != NULL ? dom_attr_value(em, NULL, m->n.Algorithm) : NULL;
}

/*
 * The session key of one EncryptedKey.  A failed unwrap yields a random
 * key and *bad = 1 instead of an error, so that what follows fails the
 * same way a wrong ciphertext would (no Bleichenbacher/Manger oracle).
 */
static int unwrap(const wss_msg *m, const dom_node *ek,
		  const wss_privkey *key, unsigned char *out, size_t *len,
		  int *bad, lab_err *err)
{
	lab_buf wrapped = LAB_BUF_INIT;
	const char *alg = method_of(m, ek);
	lab_err ignored;
	int rc;

	if (alg == NULL || strcmp(alg, WSS_ALG_RSA_OAEP) != 0)
		return lab_fail(err, LAB_ESECURITY,
				"key transport '%s' is not allowed (only %s)",
				alg != NULL ? alg : "(none)", WSS_ALG_RSA_OAEP);
	rc = cipher_value(m, ek, WSS_FIELD_WRAPPED_KEY, &wrapped, err);
	if (rc == LAB_OK &&
	    wss_rsa_oaep_unwrap(key, (const unsigned char *)wrapped.data,
				wrapped.len, out, MAX_KEY, len,
				&ignored) != LAB_OK) {
		*bad = 1;
		*len = MAX_KEY;
		rc = wss_random(out, MAX_KEY, err);
	}
	lab_buf_free(&wrapped);
	return rc;
}

/* Whether n is text or CDATA with more than XML whitespace in it. */
static int visible_text(const dom_node *n)
{
	size_t len, i;
	const char *v;

	if (dom_node_type(n) != DOM_TEXT && dom_node_type(n) != DOM_CDATA)
		return 0;
	v = dom_value(n, &len);
	for (i = 0; i < len; i++)
		if (v[i] != ' ' && v[i] != '\t' && v[i] != '\n' && v[i] != '\r')
			return 1;
	return 0;
}

/* What a DataReference names, which decides the EncryptedData's Type
 * and what its plaintext must be. */
enum ref_kind {
	REF_BODY,      /* the Body's content */
	REF_SIGNATURE, /* a Security header element: one ds:Signature */
	REF_HEADER     /* an EncryptedHeader's: one header block */
};

/* Whether the nodes from `from` up to `to` (exclusive; NULL: the end)
 * are one element, (ns, local) unless local is NULL, with nothing but
 * whitespace beside it. */
static int one_element(const dom_node *from, const dom_node *to,
		       const char *ns, const char *local)
{
	const dom_node *n, *found = NULL;

	for (n = from; n != to; n = dom_next_sibling(n)) {
		if (dom_node_type(n) == DOM_ELEMENT && found == NULL)
			found = n;
		else if (dom_node_type(n) == DOM_ELEMENT || visible_text(n))
			return 0;
	}
	return found != NULL && (local == NULL || dom_is(found, ns, local));
}

/* The one text (or CDATA) of el's CipherData/CipherValue when it is all
 * of the CipherValue, else NULL. */
static dom_node *cipher_text(const wss_msg *m, const dom_node *el)
{
	dom_node *cd, *cv, *t;
	size_t count;

	cd = wss_child(el, m->n.xenc, m->n.CipherData, &count);
	cv = cd != NULL ? wss_child(cd, m->n.xenc, m->n.CipherValue, &count)
			: NULL;
	t = cv != NULL ? dom_first_child(cv) : NULL;
	if (t == NULL || dom_next_sibling(t) != NULL ||
	    (dom_node_type(t) != DOM_TEXT && dom_node_type(t) != DOM_CDATA))
		return NULL;
	return t;
}

/* Where a ciphertext lies: in the document's bytes of its CipherValue
 * (held[0..nheld)), or in an owned buffer after PARSE_ROOM bytes; and,
 * once opened, its plaintext p[0..n) there, and what the search for
 * SOAP's names saw of it while it was decrypted. */
typedef struct ciphertext {
	lab_buf owned;
	char *held;
	size_t nheld;
	char *p;
	size_t n;
	int opened;
	wss_soap_scan scan;
} ciphertext;

/*
 * ed's ciphertext, decoded and, with a key, decrypted (c->opened), with
 * room in front of it for the start tag of the wrapper the plaintext is
 * parsed in, so that it is parsed where it was decrypted.  A
 * CipherValue that is one text is opened where it stands
 * (dom_text_take, wss/pass.h): its characters are read once, and the
 * ciphertext, then the plaintext, take their place instead of a buffer
 * the size of the message.  Otherwise in c->owned.  A ciphertext that
 * does not decrypt is not an error here: the caller gives its one
 * message for every way the rest can fail.  The Body's (body_old: what
 * its plaintext replaces), on two threads, is digested as it is
 * decrypted (wss/digest_ahead.h).
 */
static int take_plaintext(const wss_msg *m, dom_node *ed,
			  const dom_node *body_old, ciphertext *c,
			  wss_cipher cipher, const unsigned char *key,
			  lab_err *err)
{
	dom_node *t = cipher_text(m, ed);
	size_t off = 0, len = 0;
	int rc;

	c->held = t != NULL ? dom_text_take(t, &c->nheld) : NULL;
	if (c->held != NULL) {
		wss_soap_scan_init(
			&c->scan,
			m->ahead != NULL && body_old != NULL && key != NULL
				? wss_ahead_decrypting(m->ahead, m->body,
						       body_old, c->nheld)
				: NULL);
		rc = wss_pass_open(c->held, c->nheld, PARSE_ROOM, cipher, key,
				   &c->scan.watch, &off, &len, err);
		c->p = c->held + off;
		if (rc == LAB_EMALFORMED)
			return lab_fail(err, LAB_ESECURITY, "<%s> is not base64",
					dom_local_name(dom_parent(t)));
	} else {
		wss_soap_scan_init(&c->scan, NULL); /* sees nothing */
		if (lab_buf_reserve(&c->owned, PARSE_ROOM) != LAB_OK)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
		c->owned.len = PARSE_ROOM;
		rc = cipher_value(m, ed, 0, &c->owned, err);
		if (rc != LAB_OK || key == NULL)
			return rc;
		rc = wss_decrypt_in_place(
			cipher, key, (unsigned char *)c->owned.data + PARSE_ROOM,
			c->owned.len - PARSE_ROOM, &off, &len, err);
		c->p = c->owned.data + PARSE_ROOM + off;
	}
	c->n = len;
	c->opened = rc == LAB_OK && key != NULL;
	return rc == LAB_ESECURITY ? LAB_OK : rc;
}

/* The plaintext p[0..len) parsed in place of old; the document takes
 * the bytes it lies in.  The Body's, on two threads, goes on being
 * digested while it is parsed (wss/digest_ahead.h). */
static int parse_plaintext(const wss_msg *m, ciphertext *c, dom_node *old,
			   const char *p, size_t len, const dom_limits *lim,
			   lab_err *err)
{
	char *held = c->held;
	const dom_parse_watch *watch = NULL;

	c->held = NULL;
	if (held == NULL)
		return dom_replace_parsed(old, &c->owned,
					  (size_t)(p - c->owned.data), len,
					  lim, err);
	if (m->ahead != NULL && dom_parent(old) == m->body)
		watch = wss_ahead_begin(m->ahead, m->body, old, len);
	return dom_replace_parsed_held(old, held, c->nheld, (size_t)(p - held),
				       len, lim, watch, err);
}

/* The first SOAP Envelope, Header or Body (either version's namespace)
 * in the subtrees of from .. to (exclusive), or NULL. */
static const dom_node *soap_element(const wss_msg *m, const dom_node *from,
				    const dom_node *to)
{
	const dom_node *top, *n;

	for (top = from; top != NULL && top != to; top = dom_next_sibling(top))
		for (n = top; n != NULL;) {
			const dom_node *next = dom_first_child(n);
			const char *ns = dom_ns_uri(n);

			if (dom_node_type(n) == DOM_ELEMENT &&
			    (ns == m->n.soap11 || ns == m->n.soap12) &&
			    (dom_is(n, ns, m->n.Envelope) ||
			     dom_is(n, ns, m->n.Header) ||
			     dom_is(n, ns, m->n.Body)))
				return n;
			while (next == NULL && n != top) {
				next = dom_next_sibling(n);
				n = dom_parent(n);
			}
			n = next;
		}
	return NULL;
}

/* dom_ids_each's check on a decrypted element (arg: the lab_err): its
 * ID is carried once. */
static int id_once(void *arg, dom_node *el, const char *value)
{
	size_t count;

	(void)dom_get_by_id(dom_node_doc(el), value, &count);
	if (count == 1)
		return 0;
	return lab_fail(arg, LAB_ESECURITY,
			"decrypted element <%s> carries the ID '%.60s', which "
			"%zu elements carry: decrypted content may not add "
			"an ID",
			dom_local_name(el), value, count);
}

/*
 * What a decryption may not do, whatever the header order: add a SOAP
 * Envelope, Header or Body (the message keeps exactly one of each, the
 * Body the one the Signature covers) or an ID another element carries
 * (references resolve to exactly one element).  An authenticated
 * plaintext is held to it too: that costs nothing where the bytes name
 * no SOAP element, and the ID walk builds only content with IDs.
 */
static int check_plaintext(const wss_msg *m, dom_node *from,
			   const dom_node *to, int suspect, lab_err *err)
{
	const dom_node *soap = suspect ? soap_element(m, from, to) : NULL;

	if (soap != NULL)
		return lab_fail(err, LAB_ESECURITY,
				"decrypted content adds a <%s> in the SOAP "
				"envelope namespace: the message must keep "
				"exactly one Envelope, Header and Body",
				dom_local_name(soap));
	return dom_ids_each(from, to, id_once, err) != 0 ? LAB_ESECURITY
							: LAB_OK;
}

/*
 * Decrypts ed and parses its plaintext in place of `old` (ed itself, or
 * the EncryptedHeader around it); an element's plaintext must be the one
 * element its kind allows.  Every failure here is the one "decryption
 * failed" (*failed set): the receiver tells no one how a forged
 * ciphertext decrypted.  A plaintext that decrypts is then held to
 * check_plaintext; *top is the element it became (NULL: the Body's
 * content).
 */
static int decrypt_data(wss_msg *m, dom_node *ed, dom_node *old,
			enum ref_kind kind, const unsigned char *key,
			size_t keylen, int bad, const dom_limits *lim,
			int *failed, dom_node **top, lab_err *err)
{
	ciphertext c = {.owned = LAB_BUF_INIT};
	const char *alg = method_of(m, ed);
	dom_node *parent = dom_parent(old), *prev = dom_prev_sibling(old);
	dom_node *next = dom_next_sibling(old), *first;
	wss_cipher cipher;
	lab_err ignored;
	int rc, suspect = 0;

	rc = wss_cipher_from_uri(alg != NULL ? alg : "", &cipher);
	if (rc != LAB_OK)
		return lab_fail(err, LAB_ESECURITY,
				"data encryption '%s' is not allowed",
				alg != NULL ? alg : "(none)");
	/* A key that cannot be this cipher's still has the text decoded:
	 * its failure is then the one below, as for any other key. */
	rc = take_plaintext(m, ed,
			    kind == REF_BODY && parent == m->body ? old : NULL,
			    &c, cipher,
			    bad || keylen != wss_cipher_key_len(cipher) ? NULL
									: key,
			    err);
	if (rc != LAB_OK)
		goto out;
	/* One message for every way the rest can fail.  The plaintext is
	 * decrypted where its ciphertext lies: one buffer, not two, which
	 * the document takes (and wipes) once it parses it.  Whether it
	 * may name SOAP's elements, the scan found while it decrypted. */
	if (!c.opened ||
	    (suspect = wss_soap_scan_names(&c.scan, c.p, c.n),
	     parse_plaintext(m, &c, old, c.p, c.n, lim, &ignored)) != LAB_OK ||
	    (kind != REF_BODY &&
	     !one_element(prev != NULL ? dom_next_sibling(prev)
				       : dom_first_child(parent),
			  next, m->n.ds,
			  kind == REF_SIGNATURE ? m->n.Signature : NULL))) {
		*failed = 1;
		rc = lab_fail(err, LAB_ESECURITY, "%s", decryption_failed);
		goto out;
	}
	if (kind == REF_BODY && m->ahead != NULL)
		wss_ahead_check(m->ahead, m->body);
	first = prev != NULL ? dom_next_sibling(prev) : dom_first_child(parent);
	*top = kind == REF_BODY || first == NULL ? NULL
	       : dom_node_type(first) == DOM_ELEMENT ? first
						   : wss_next_el(first);
	rc = check_plaintext(m, first, next, suspect, err);
out:
	/* What the document did not take. */
	if (c.held != NULL)
		OPENSSL_cleanse(c.held, c.nheld);
	if (c.owned.data != NULL)
		OPENSSL_cleanse(c.owned.data, c.owned.len);
	lab_buf_free(&c.owned);
	return rc;
}


/* One DataReference: the EncryptedData it names, the header element
 * whose step decrypts it (an EncryptedKey, or a standalone
 * ReferenceList) and the EncryptedKey that holds its session key. */
struct wss_rx_ref {
	dom_node *ed;
	dom_node *old; /* what the plaintext replaces */
	enum ref_kind kind;
	const dom_node *owner;
	const dom_node *ek;
};

/* An EncryptedKey addressed to this receiver, unwrapped when first
 * needed. */
struct wss_rx_key {
	const dom_node *ek;
	int done, bad;
	size_t len;
	unsigned char key[MAX_KEY];
};

/* A child of ek or ed outside XML Encryption's schema is refused: what
 * the receiver does not read, it does not accept either. */
static int check_children(const wss_msg *m, const dom_node *el, int is_key,
			  lab_err *err)
{
	const dom_node *c;

	for (c = wss_first_el(el); c != NULL; c = wss_next_el(c)) {
		const char *ns = dom_ns_uri(c);

		if (dom_is(c, m->n.ds, m->n.KeyInfo) ||
		    (ns == m->n.xenc &&
		     (dom_is(c, ns, m->n.EncryptionMethod) ||
		      dom_is(c, ns, m->n.CipherData) ||
		      dom_is(c, ns, m->n.EncryptionProperties) ||
		      (is_key && (dom_is(c, ns, m->n.ReferenceList) ||
				  dom_is(c, ns, m->n.CarriedKeyName))))))
			continue;
		return lab_fail(err, LAB_ESECURITY,
				"%s holds <%s>, which XML Encryption does not "
				"allow there",
				dom_local_name(el), dom_local_name(c));
	}
	return LAB_OK;
}

/* The DataReferences of a ReferenceList, counted against the caps
 * (*total across the header so far) before any is resolved. */
static int count_list(const wss_msg *m, const dom_node *rl, size_t *total,
		      lab_err *err)
{
	const dom_node *dr;
	size_t n = 0;

	for (dr = wss_first_el(rl); dr != NULL; dr = wss_next_el(dr)) {
		if (!dom_is(dr, m->n.xenc, m->n.DataReference))
			return lab_fail(err, LAB_ESECURITY,
					"ReferenceList holds <%s>",
					dom_local_name(dr));
		if (++n > wss_cap(m->caps, WSS_CAP_DATA_REFS))
			return wss_cap_refuse(m->caps, WSS_CAP_DATA_REFS, err);
		if (++*total > wss_cap(m->caps, WSS_CAP_DATA_REFS_TOTAL))
			return wss_cap_refuse(m->caps, WSS_CAP_DATA_REFS_TOTAL,
					      err);
	}
	return LAB_OK;
}

static const dom_node *key_list(const wss_msg *m, const dom_node *ek)
{
	size_t count;

	return wss_child(ek, m->n.xenc, m->n.ReferenceList, &count);
}

/*
 * Counts the EncryptedKeys and every DataReference (an EncryptedKey's or
 * a standalone ReferenceList's) against the caps, and checks each
 * EncryptedKey's children, before anything is resolved or unwrapped.
 */
static int count_header(const wss_msg *m, size_t *keys, size_t *total,
			lab_err *err)
{
	const dom_node *c;
	int rc = LAB_OK;

	for (c = wss_first_el(m->security); c != NULL && rc == LAB_OK;
	     c = wss_next_el(c)) {
		if (dom_is(c, m->n.xenc, m->n.ReferenceList)) {
			rc = count_list(m, c, total, err);
			continue;
		}
		if (!dom_is(c, m->n.xenc, m->n.EncryptedKey))
			continue;
		if (++*keys > wss_cap(m->caps, WSS_CAP_ENCRYPTED_KEYS))
			return wss_cap_refuse(m->caps, WSS_CAP_ENCRYPTED_KEYS,
					      err);
		rc = check_children(m, c, 1, err);
		if (rc == LAB_OK && key_list(m, c) != NULL)
			rc = count_list(m, key_list(m, c), total, err);
	}
	return rc;
}

/* The Type an EncryptedData of this kind must have. */
static int check_type(const wss_msg *m, const dom_node *ed,
		      enum ref_kind kind, lab_err *err)
{
	const char *type = dom_attr_value(ed, NULL, m->n.Type);
	const char *want = kind == REF_BODY ? WSS_TYPE_CONTENT
					    : WSS_TYPE_ELEMENT;

	if (type == NULL || strcmp(type, want) != 0)
		return lab_fail(err, LAB_ESECURITY,
				"EncryptedData Type '%s' is not allowed "
				"there (only %s)",
				type != NULL ? type : "(none)", want);
	return LAB_OK;
}

/*
 * What a DataReference may name, and what its plaintext replaces: an
 * EncryptedData child of the Envelope's Body (Type Content); one child
 * of the Security header (Type Element: the encrypted Signature); or the
 * one EncryptedData of a wsse11:EncryptedHeader child of the Header,
 * named itself or through the EncryptedHeader (Type Element: a header
 * block, which replaces the EncryptedHeader).  Each is named by no other
 * DataReference and has XML Encryption's children only.  Anywhere else
 * -- inside the Body's content, a header block, another EncryptedData --
 * it is refused: what decrypts there would stand where no layout puts
 * plaintext.
 */
static int check_target(const wss_xenc_rx *rx, const char *uri,
			struct wss_rx_ref *r, lab_err *err)
{
	const wss_msg *m = rx->m;
	const dom_node *p;
	size_t i, count;
	int rc;

	r->old = r->ed;
	if (dom_is(r->ed, m->n.wsse11, m->n.EncryptedHeader) &&
	    dom_parent(r->ed) == m->header) {
		r->ed = wss_child(r->old, m->n.xenc, m->n.EncryptedData, &count);
		if (r->ed == NULL)
			return lab_fail(err, LAB_ESECURITY,
					"EncryptedHeader '%.60s' holds %zu "
					"EncryptedData",
					uri, count);
	}
	if (!dom_is(r->ed, m->n.xenc, m->n.EncryptedData))
		return lab_fail(err, LAB_ESECURITY,
				"DataReference does not name an EncryptedData");
	p = dom_parent(r->ed);
	r->kind = p == m->body ? REF_BODY : REF_SIGNATURE;
	if (p != m->body && p != m->security) {
		if (!dom_is(p, m->n.wsse11, m->n.EncryptedHeader) ||
		    dom_parent(p) != m->header)
			return lab_fail(err, LAB_ESECURITY,
					"DataReference '%.60s' names an "
					"EncryptedData outside the soap:Body, "
					"the Security header and a "
					"wsse11:EncryptedHeader",
					uri);
		r->kind = REF_HEADER;
		r->old = dom_parent(r->ed);
	}
	for (i = 0; i < rx->nrefs; i++)
		if (rx->refs[i].ed == r->ed)
			return lab_fail(err, LAB_ESECURITY,
					"EncryptedData '%.60s' is named by "
					"two DataReferences",
					uri);
	rc = check_type(m, r->ed, r->kind, err);
	return rc != LAB_OK ? rc : check_children(m, r->ed, 0, err);
}

static struct wss_rx_key *find_key(const wss_xenc_rx *rx,
				   const dom_node *ek)
{
	size_t i;

	for (i = 0; i < rx->nkeys; i++)
		if (rx->keys[i].ek == ek)
			return &rx->keys[i];
	return NULL;
}

/*
 * The EncryptedKey of an EncryptedData a standalone ReferenceList names:
 * the one its KeyInfo references (wsse:Reference to the key's Id), or,
 * when it references none, the one key addressed to this receiver.
 */
static int data_key(const wss_xenc_rx *rx, const char *uri,
		    const dom_node *ed, const dom_node **ek, lab_err *err)
{
	const wss_msg *m = rx->m;
	const dom_node *ki, *str, *ref;
	dom_node *found;
	size_t count;
	int rc;

	ki = wss_child(ed, m->n.ds, m->n.KeyInfo, &count);
	str = ki != NULL ? wss_first_el(ki) : NULL;
	ref = str != NULL && dom_is(str, m->n.wsse, m->n.SecurityTokenReference)
		      ? wss_first_el(str)
		      : NULL;
	if (ref == NULL || !dom_is(ref, m->n.wsse, m->n.Reference)) {
		*ek = rx->nkeys == 1 ? rx->keys[0].ek : NULL;
		if (*ek == NULL)
			return lab_fail(err, LAB_ESECURITY,
					"EncryptedData '%.60s' names no "
					"EncryptedKey",
					uri);
		return LAB_OK;
	}
	rc = wss_resolve(m->doc, dom_attr_value(ref, NULL, m->n.URI), &found,
			 err);
	if (rc == LAB_OK && find_key(rx, found) == NULL)
		rc = lab_fail(err, LAB_ESECURITY,
			      "EncryptedData '%.60s' is not encrypted under "
			      "an EncryptedKey addressed to this receiver",
			      uri);
	*ek = found;
	return rc;
}

/* Every DataReference of rl resolved, once, and checked, each with the
 * step that decrypts it (owner) and its key (ek; NULL: data_key's). */
static int collect_refs(wss_xenc_rx *rx, const dom_node *rl,
			const dom_node *owner, const dom_node *ek,
			lab_err *err)
{
	const wss_msg *m = rx->m;
	const dom_node *dr;
	int rc = LAB_OK;

	for (dr = wss_first_el(rl); dr != NULL && rc == LAB_OK;
	     dr = wss_next_el(dr)) {
		const char *uri = dom_attr_value(dr, NULL, m->n.URI);
		struct wss_rx_ref *r = &rx->refs[rx->nrefs];

		rc = wss_resolve(m->doc, uri, &r->ed, err);
		if (rc == LAB_OK)
			rc = check_target(rx, uri, r, err);
		r->ek = ek;
		if (rc == LAB_OK && ek == NULL)
			rc = data_key(rx, uri, r->ed, &r->ek, err);
		r->owner = owner;
		if (rc == LAB_OK)
			rx->nrefs++;
	}
	return rc;
}

/*
 * The EncryptedKeys this receiver unwraps: those whose KeyInfo names it,
 * or, when none does, those whose KeyInfo it cannot match (no KeyInfo,
 * or a form only its certificate could match and it has none).  Keys
 * addressed to someone else are skipped.
 */
static int select_keys(wss_xenc_rx *rx, size_t nek, lab_err *err)
{
	wss_addressee want = WSS_FOR_UNKNOWN, who;
	const dom_node *c;
	int pass, rc = LAB_OK;

	if (nek > 0 && (rx->keys = lab_calloc(nek, sizeof *rx->keys)) == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	/* Pass 0 finds whether any key names this receiver; pass 1 keeps
	 * the keys of the wanted kind. */
	for (pass = 0; pass < 2 && rc == LAB_OK; pass++)
		for (c = wss_first_el(rx->m->security); c != NULL && rc == LAB_OK;
		     c = wss_next_el(c)) {
			if (!dom_is(c, rx->m->n.xenc, rx->m->n.EncryptedKey))
				continue;
			rc = wss_keyid_match(rx->m, c, rx->key, rx->self, &who,
					     err);
			if (pass == 0 && who == WSS_FOR_ME)
				want = WSS_FOR_ME;
			if (rc == LAB_OK && pass == 1 && who == want)
				rx->keys[rx->nkeys++].ek = c;
		}
	if (rc == LAB_OK && nek > 0 && rx->nkeys == 0)
		rc = lab_fail(err, LAB_ESECURITY,
			      "no EncryptedKey is addressed to this receiver "
			      "(each names another recipient's certificate)");
	return rc;
}

/* The Body's EncryptedData, counted before any is decrypted, and the
 * first thing beside them, for the receiver policy. */
static void count_body(wss_xenc_rx *rx)
{
	const dom_node *c;

	for (c = dom_first_child(rx->m->body); c != NULL;
	     c = dom_next_sibling(c)) {
		if (dom_is(c, rx->m->n.xenc, rx->m->n.EncryptedData))
			rx->body_eds++;
		else if (rx->plain == NULL &&
			 dom_node_type(c) == DOM_ELEMENT)
			rx->plain = dom_local_name(c);
		else if (rx->plain == NULL && visible_text(c))
			rx->plain = "#text";
	}
}

/* The Security header's one ds:Signature as it stands (not encrypted),
 * or NULL. */
static const dom_node *plain_signature(const wss_msg *m)
{
	size_t count;
	const dom_node *sig = wss_child(m->security, m->n.ds, m->n.Signature,
					&count);

	return count == 1 ? sig : NULL;
}

/* The element the i-th Reference of sig's SignedInfo names by "#id"
 * (carried by exactly one element), or NULL; *ref the Reference, NULL
 * past the last. */
static dom_node *signed_target(const wss_msg *m, const dom_node *sig,
			       size_t i, const dom_node **ref)
{
	size_t count;
	const dom_node *si = wss_child(sig, m->n.ds, m->n.SignedInfo, &count);
	const dom_node *r = si != NULL ? wss_first_el(si) : NULL;
	const char *uri;
	dom_node *el;

	for (; r != NULL; r = wss_next_el(r))
		if (dom_is(r, m->n.ds, m->n.Reference) && i-- == 0)
			break;
	*ref = r;
	uri = r != NULL ? dom_attr_value(r, NULL, m->n.URI) : NULL;
	if (uri == NULL || uri[0] != '#')
		return NULL;
	el = dom_get_by_id(m->doc, uri + 1, &count);
	return count == 1 ? el : NULL;
}

/* Whether anc is n or one of its ancestors. */
static int holds(const dom_node *anc, const dom_node *n)
{
	for (; n != NULL; n = dom_parent(n))
		if (n == anc)
			return 1;
	return 0;
}

/*
 * AES-CBC has no integrity of its own: a receiver that decrypts a forged
 * CBC ciphertext and answers differently for padding, parse and digest
 * failures is a decryption oracle (Jager and Somorovsky, "How to Break
 * XML Encryption", CCS 2011).  So it is refused unless allowed
 * (--allow-cbc), and then only for an EncryptedData a Signature standing
 * before its decryption step covers (encrypt-then-sign): the Signature
 * is verified first, so a changed ciphertext never reaches the cipher.
 */
static int check_cbc(const wss_xenc_rx *rx, const struct wss_rx_ref *r,
		     lab_err *err)
{
	const wss_msg *m = rx->m;
	const char *alg = method_of(m, r->ed);
	const dom_node *sig = plain_signature(m), *c, *ref;
	const char *id = dom_attr_value(r->ed, NULL, m->n.Id);
	wss_cipher cipher;
	size_t i;

	if (alg == NULL || wss_cipher_from_uri(alg, &cipher) != LAB_OK ||
	    cipher != WSS_AES128_CBC)
		return LAB_OK;
	if (!m->allow_cbc)
		return lab_fail(err, LAB_ESECURITY,
				"data encryption aes128-cbc is refused on "
				"receive (no integrity: a decryption oracle); "
				"--allow-cbc accepts it where a signature "
				"covers the EncryptedData");
	if (m->allow_cbc == 2)
		return LAB_OK;
	for (c = wss_first_el(m->security); c != NULL && c != r->owner;
	     c = wss_next_el(c))
		if (c == sig)
			break;
	for (i = 0; c == sig && sig != NULL &&
		    i < wss_cap(m->caps, WSS_CAP_REFERENCES);
	     i++) {
		const dom_node *el = signed_target(m, sig, i, &ref);

		if (ref == NULL)
			break;
		if (el != NULL && holds(el, r->ed))
			return LAB_OK;
	}
	return lab_fail(err, LAB_ESECURITY,
			"aes128-cbc EncryptedData '%.60s' is not covered by a "
			"Signature verified before it is decrypted "
			"(encrypt-then-sign)",
			id != NULL ? id : "");
}

/* Whether el lies in what decryption produced: a decrypted element, or
 * strictly inside the Body once its content was decrypted. */
static int in_decrypted(const wss_xenc_rx *rx, const dom_node *el)
{
	size_t i;

	for (i = 0; i < rx->ntops; i++)
		if (holds(rx->tops[i], el) &&
		    (rx->tops[i] != rx->m->body || el != rx->m->body))
			return 1;
	return 0;
}

int wss_xenc_rx_signed_check(const wss_xenc_rx *rx, lab_err *err)
{
	const wss_msg *m = rx->m;
	const dom_node *sig = plain_signature(m), *ref = NULL;
	size_t i;

	for (i = 0; sig != NULL && rx->ntops > 0 &&
		    i < wss_cap(m->caps, WSS_CAP_REFERENCES);
	     i++) {
		const dom_node *el = signed_target(m, sig, i, &ref);

		if (ref == NULL)
			break;
		if (el != NULL && in_decrypted(rx, el))
			return lab_fail(err, LAB_ESECURITY,
					"decrypted element <%s> carries the ID "
					"'%.60s', which the Signature "
					"references: what a signature covers "
					"may not come from decryption",
					dom_local_name(el),
					dom_attr_value(ref, NULL, m->n.URI) + 1);
	}
	return LAB_OK;
}

int wss_xenc_rx_begin(wss_xenc_rx *rx, wss_msg *m, const wss_privkey *key,
		      const wss_cert *self, const dom_limits *lim,
		      lab_err *err)
{
	const dom_node *c;
	size_t nek = 0, total = 0, i;
	int rc;

	memset(rx, 0, sizeof *rx);
	rx->m = m;
	rx->key = key;
	rx->self = self;
	rx->lim = lim;
	if (m->security == NULL)
		return lab_fail(err, LAB_ESECURITY, "no wsse:Security header");
	count_body(rx);
	rc = count_header(m, &nek, &total, err);
	if (rc == LAB_OK)
		rc = select_keys(rx, nek, err);
	if (rc == LAB_OK && total > 0 &&
	    ((rx->refs = lab_calloc(total, sizeof *rx->refs)) == NULL ||
	     (rx->tops = lab_calloc(total, sizeof *rx->tops)) == NULL))
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	for (c = wss_first_el(m->security); c != NULL && rc == LAB_OK;
	     c = wss_next_el(c)) {
		if (dom_is(c, m->n.xenc, m->n.ReferenceList))
			rc = collect_refs(rx, c, c, NULL, err);
		else if (find_key(rx, c) != NULL && key_list(m, c) != NULL)
			rc = collect_refs(rx, key_list(m, c), c, c, err);
	}
	for (i = 0; i < rx->nrefs && rc == LAB_OK; i++)
		rc = check_cbc(rx, &rx->refs[i], err);
	return rc;
}

int wss_xenc_rx_step(wss_xenc_rx *rx, const dom_node *el, int *decrypted,
		     lab_err *err)
{
	size_t i;
	int rc = LAB_OK;

	*decrypted = 0;
	for (i = 0; i < rx->nrefs && rc == LAB_OK; i++) {
		struct wss_rx_key *k = find_key(rx, rx->refs[i].ek);
		dom_node *top = NULL;

		if (rx->refs[i].owner != el)
			continue;
		if (!k->done) {
			rc = unwrap(rx->m, k->ek, rx->key, k->key, &k->len,
				    &k->bad, err);
			k->done = 1;
			lab_timeline_mark(rx->m->timeline, "unwrapped");
		}
		if (rc == LAB_OK)
			rc = decrypt_data(rx->m, rx->refs[i].ed,
					  rx->refs[i].old, rx->refs[i].kind,
					  k->key, k->len, k->bad, rx->lim,
					  &rx->failed, &top, err);
		if (rc == LAB_OK) {
			rx->tops[rx->ntops++] = top != NULL ? top : rx->m->body;
			rx->decrypted += rx->refs[i].kind == REF_BODY;
			*decrypted = 1;
		}
	}
	return rc;
}

int wss_xenc_rx_policy(const wss_xenc_rx *rx, lab_err *err)
{
	if (rx->plain != NULL)
		return lab_fail(err, LAB_ESECURITY,
				"receiver policy: the Body's content must be "
				"encrypted, and it holds <%s> in the clear",
				rx->plain);
	if (rx->body_eds == 0)
		return lab_fail(err, LAB_ESECURITY,
				"receiver policy: the Body's content must be "
				"encrypted, and it is empty");
	if (rx->decrypted < rx->body_eds)
		return lab_fail(err, LAB_ESECURITY,
				"receiver policy: %zu of the Body's %zu "
				"EncryptedData are named by no DataReference "
				"addressed to this receiver",
				rx->body_eds - rx->decrypted, rx->body_eds);
	return LAB_OK;
}

void wss_xenc_rx_end(wss_xenc_rx *rx)
{
	if (rx->keys != NULL)
		OPENSSL_cleanse(rx->keys, rx->nkeys * sizeof *rx->keys);
	lab_free(rx->keys);
	lab_free(rx->refs);
	lab_free(rx->tops);
	memset(rx, 0, sizeof *rx);
}

int wss_xenc_decrypt(wss_msg *m, const wss_privkey *key, const dom_limits *lim,
		     lab_err *err)
{
	const dom_node *c;
	wss_xenc_rx rx;
	int decrypted, rc = wss_xenc_rx_begin(&rx, m, key, NULL, lim, err);

	for (c = m->security != NULL ? wss_first_el(m->security) : NULL;
	     c != NULL && rc == LAB_OK; c = wss_next_el(c))
		rc = wss_xenc_rx_step(&rx, c, &decrypted, err);
	wss_xenc_rx_end(&rx);
	return rc;
}
