/*
 * xenc.c - encrypting the Body's content and decrypting it back.
 *
 * The plaintext is the Body's children as a fragment that parses back in
 * the Body's namespace context, which is what XML Encryption's Content
 * type means and what xmlsec1 produces and expects: on send, the exc-c14n
 * of the content that signing already produced (one walk for digest and
 * plaintext; what is encrypted is then exactly what was signed, without
 * the comments and unused namespace declarations the signature does not
 * cover), otherwise the serializer's output.  After decryption the
 * fragment is parsed in place of the EncryptedData (dom_replace_parsed).
 */
#include "wss/xenc.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wss/wsse.h"

/* MAX_KEY: the longest session key; PARSE_ROOM: see decrypt_data. */
enum { MAX_KEY = 32, PARSE_ROOM = 512 };

static const char decryption_failed[] = "decryption failed";

static int add_cipher_value(dom_node *parent, const void *p, size_t n,
			    lab_err *err)
{
	dom_node *cd, *cv;
	int rc = wss_add(parent, NULL, WSS_NS_XENC, "xenc:CipherData", &cd, err);

	if (rc == LAB_OK)
		rc = wss_add(cd, NULL, WSS_NS_XENC, "xenc:CipherValue", &cv, err);
	return rc != LAB_OK ? rc : wss_add_b64(cv, p, n, err);
}

/* The Body's children serialized one after the other (unless signing
 * left their canonical form in m->content, after m->content_at bytes of
 * room), then removed; *at is where the plaintext starts in *plain. */
static int take_content(wss_msg *m, lab_buf *pt, lab_buf **plain,
			size_t *at, lab_err *err)
{
	dom_node *c;

	*plain = pt;
	*at = 0;
	if (m->content != NULL && m->content->len > m->content_at) {
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

static int add_encrypted_data(wss_msg *m, wss_cipher cipher, const char *id,
			      const char *ek_id, const char *ct, size_t n,
			      lab_err *err)
{
	dom_node *ed, *ki;
	int rc;

	rc = wss_add(m->body, NULL, WSS_NS_XENC, "xenc:EncryptedData", &ed, err);
	if (rc == LAB_OK)
		rc = dom_ns_declare(ed, "xenc", WSS_NS_XENC, err);
	if (rc == LAB_OK)
		rc = wss_set(ed, NULL, "Id", id, err);
	if (rc == LAB_OK)
		rc = wss_set(ed, NULL, "Type", WSS_TYPE_CONTENT, err);
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
		rc = add_cipher_value(ed, ct, n, err);
	return rc;
}

/* KeyInfo naming the recipient certificate by its SHA-1 thumbprint. */
static int add_recipient(dom_node *ek, const wss_cert *peer, lab_err *err)
{
	unsigned char thumb[WSS_SHA1_LEN];
	const unsigned char *der;
	dom_node *ki, *str, *kid;
	size_t len;
	int rc;

	der = wss_cert_der(peer, &len);
	rc = wss_add(ek, NULL, WSS_NS_DS, "ds:KeyInfo", &ki, err);
	if (rc == LAB_OK)
		rc = dom_ns_declare(ki, "ds", WSS_NS_DS, err);
	if (rc == LAB_OK)
		rc = wss_add(ki, NULL, WSS_NS_WSSE, "wsse:SecurityTokenReference",
			     &str, err);
	if (rc == LAB_OK)
		rc = wss_bind(str, "wsse", WSS_NS_WSSE, err);
	if (rc == LAB_OK)
		rc = wss_add(str, NULL, WSS_NS_WSSE, "wsse:KeyIdentifier", &kid,
			     err);
	if (rc == LAB_OK)
		rc = wss_set(kid, NULL, "EncodingType", WSS_BASE64, err);
	if (rc == LAB_OK)
		rc = wss_set(kid, NULL, "ValueType", WSS_THUMBPRINT, err);
	if (rc == LAB_OK && wss_sha1(der, len, thumb) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "digest failed");
	if (rc == LAB_OK)
		rc = wss_add_b64(kid, thumb, sizeof thumb, err);
	return rc;
}

static int add_encrypted_key(wss_msg *m, const wss_cert *peer,
			     const char *id, const char *ed_id,
			     const unsigned char *key, size_t keylen,
			     lab_err *err)
{
	lab_buf wrapped = LAB_BUF_INIT;
	dom_node *ek, *rl, *dr;
	char uri[80];
	int rc;

	snprintf(uri, sizeof uri, "#%s", ed_id);
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
		rc = add_recipient(ek, peer, err);
	if (rc == LAB_OK)
		rc = wss_rsa_oaep_wrap(peer, key, keylen, &wrapped, err);
	if (rc == LAB_OK)
		rc = add_cipher_value(ek, wrapped.data, wrapped.len, err);
	if (rc == LAB_OK)
		rc = wss_add(ek, NULL, WSS_NS_XENC, "xenc:ReferenceList", &rl,
			     err);
	if (rc == LAB_OK)
		rc = wss_add(rl, NULL, WSS_NS_XENC, "xenc:DataReference", &dr,
			     err);
	if (rc == LAB_OK)
		rc = wss_set(dr, NULL, "URI", uri, err);
	lab_buf_free(&wrapped);
	return rc;
}

int wss_xenc_encrypt(wss_msg *m, const wss_cert *peer, wss_cipher cipher,
		     lab_err *err)
{
	unsigned char key[MAX_KEY];
	lab_buf pt = LAB_BUF_INIT;
	lab_buf *plain = &pt;
	size_t keylen = wss_cipher_key_len(cipher), at = 0, off = 0;
	char ed_id[32], ek_id[32];
	int rc;

	if (dom_first_child(m->body) == NULL)
		return lab_fail(err, LAB_EUSAGE, "soap:Body is empty");
	rc = wss_msg_new_id(m, "ED", ed_id, sizeof ed_id, err);
	if (rc == LAB_OK)
		rc = wss_msg_new_id(m, "EK", ek_id, sizeof ek_id, err);
	if (rc == LAB_OK)
		rc = wss_random(key, keylen, err);
	if (rc == LAB_OK)
		rc = take_content(m, &pt, &plain, &at, err);
	/* The plaintext buffer becomes the ciphertext's. */
	if (rc == LAB_OK)
		rc = wss_encrypt_in_place_at(cipher, key, plain, at, &off, err);
	if (rc == LAB_OK)
		rc = add_encrypted_data(m, cipher, ed_id, ek_id,
					plain->data + off, plain->len - off,
					err);
	if (rc == LAB_OK)
		rc = add_encrypted_key(m, peer, ek_id, ed_id, key, keylen, err);
	OPENSSL_cleanse(key, sizeof key);
	lab_buf_free(&pt);
	return rc;
}

/* ---- decryption ---- */

/* The one CipherData/CipherValue of el, decoded. */
static int cipher_value(const wss_msg *m, const dom_node *el, lab_buf *out,
			lab_err *err)
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
	rc = cipher_value(m, ek, &wrapped, err);
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

static int decrypt_data(wss_msg *m, dom_node *ed, const unsigned char *key,
			size_t keylen, int bad, const dom_limits *lim,
			lab_err *err)
{
	lab_buf ct = LAB_BUF_INIT;
	const char *type = dom_attr_value(ed, NULL, m->n.Type);
	const char *alg = method_of(m, ed);
	size_t off = 0, len = 0;
	wss_cipher cipher;
	lab_err ignored;
	int rc;

	if (type == NULL || strcmp(type, WSS_TYPE_CONTENT) != 0)
		return lab_fail(err, LAB_ESECURITY,
				"EncryptedData Type '%s' is not allowed",
				type != NULL ? type : "(none)");
	rc = wss_cipher_from_uri(alg != NULL ? alg : "", &cipher);
	if (rc != LAB_OK)
		return lab_fail(err, LAB_ESECURITY,
				"data encryption '%s' is not allowed",
				alg != NULL ? alg : "(none)");
	/* Room in front of the ciphertext for the start tag of the wrapper
	 * the plaintext is parsed in, so that it is parsed where it was
	 * decrypted (dom_replace_parsed copies when the tag is longer). */
	if (lab_buf_reserve(&ct, PARSE_ROOM) != LAB_OK) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	ct.len = PARSE_ROOM;
	rc = cipher_value(m, ed, &ct, err);
	if (rc != LAB_OK)
		goto out;
	/* One message for every way the rest can fail.  The plaintext is
	 * decrypted where its ciphertext lies: one buffer, not two, which
	 * the document takes (and wipes) once it parses it. */
	if (bad || keylen != wss_cipher_key_len(cipher) ||
	    wss_decrypt_in_place(cipher, key,
				 (unsigned char *)ct.data + PARSE_ROOM,
				 ct.len - PARSE_ROOM, &off, &len,
				 &ignored) != LAB_OK ||
	    dom_replace_parsed(ed, &ct, PARSE_ROOM + off, len, lim,
			       &ignored) != LAB_OK)
		rc = lab_fail(err, LAB_ESECURITY, "%s", decryption_failed);
out:
	if (ct.data != NULL)
		OPENSSL_cleanse(ct.data, ct.len);
	lab_buf_free(&ct);
	return rc;
}

/* One DataReference: the EncryptedData it names and the EncryptedKey
 * whose session key decrypts it. */
typedef struct data_ref {
	dom_node *ed;
	const dom_node *ek;
} data_ref;

/* The DataReferences of ek's ReferenceList, counted against the caps
 * (*total across EncryptedKeys so far) before any is resolved. */
static int count_refs(const wss_msg *m, const dom_node *ek, size_t *total,
		      lab_err *err)
{
	size_t count, n = 0;
	const dom_node *rl = wss_child(ek, m->n.xenc, m->n.ReferenceList,
				       &count), *dr;

	if (rl == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"EncryptedKey has no ReferenceList");
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

/*
 * What a DataReference may name: an EncryptedData that is a child of the
 * Envelope's Body, named by no other DataReference.  The profile
 * encrypts the Body's content, which the signature covers; an
 * EncryptedData anywhere else (an unsigned header block) would be
 * decrypted into content no signature vouches for, at the cost of a
 * decryption per element, for anyone who has the receiver's public
 * certificate.  refs[0..n) are those already accepted.
 */
static int check_target(const wss_msg *m, const char *uri, const dom_node *ed,
			const data_ref *refs, size_t n, lab_err *err)
{
	size_t i;

	if (!dom_is(ed, m->n.xenc, m->n.EncryptedData))
		return lab_fail(err, LAB_ESECURITY,
				"DataReference does not name an EncryptedData");
	if (dom_parent(ed) != m->body)
		return lab_fail(err, LAB_ESECURITY,
				"DataReference '%.60s' names an EncryptedData "
				"outside the soap:Body: only the Body's "
				"content is decrypted",
				uri);
	for (i = 0; i < n; i++)
		if (refs[i].ed == ed)
			return lab_fail(err, LAB_ESECURITY,
					"EncryptedData '%.60s' is named by "
					"two DataReferences",
					uri);
	return LAB_OK;
}

/* Every DataReference of ek resolved, once, and checked, appended to
 * refs (*n so far). */
static int collect_refs(const wss_msg *m, const dom_node *ek, data_ref *refs,
			size_t *n, lab_err *err)
{
	size_t count;
	const dom_node *rl = wss_child(ek, m->n.xenc, m->n.ReferenceList,
				       &count), *dr;
	int rc = LAB_OK;

	for (dr = wss_first_el(rl); dr != NULL && rc == LAB_OK;
	     dr = wss_next_el(dr)) {
		const char *uri = dom_attr_value(dr, NULL, m->n.URI);
		dom_node *ed;

		rc = wss_resolve(m->doc, uri, &ed, err);
		if (rc == LAB_OK)
			rc = check_target(m, uri, ed, refs, *n, err);
		if (rc == LAB_OK) {
			refs[*n].ed = ed;
			refs[(*n)++].ek = ek;
		}
	}
	return rc;
}

/* Unwraps ek's session key and decrypts refs[0..n) that belong to it. */
static int decrypt_key(wss_msg *m, const dom_node *ek, const wss_privkey *key,
		       const data_ref *refs, size_t n, const dom_limits *lim,
		       lab_err *err)
{
	unsigned char session[MAX_KEY];
	size_t len = 0, i;
	int bad = 0, rc;

	rc = unwrap(m, ek, key, session, &len, &bad, err);
	for (i = 0; i < n && rc == LAB_OK; i++)
		if (refs[i].ek == ek)
			rc = decrypt_data(m, refs[i].ed, session, len, bad,
					  lim, err);
	OPENSSL_cleanse(session, sizeof session);
	return rc;
}

/* The Security header's EncryptedKeys, counted against their cap, and
 * their DataReferences against theirs. */
static int count_keys(const wss_msg *m, size_t *total, lab_err *err)
{
	const dom_node *c;
	size_t keys = 0;
	int rc = LAB_OK;

	for (c = wss_first_el(m->security); c != NULL && rc == LAB_OK;
	     c = wss_next_el(c)) {
		if (!dom_is(c, m->n.xenc, m->n.EncryptedKey))
			continue;
		if (++keys > wss_cap(m->caps, WSS_CAP_ENCRYPTED_KEYS))
			return wss_cap_refuse(m->caps, WSS_CAP_ENCRYPTED_KEYS,
					      err);
		rc = count_refs(m, c, total, err);
	}
	return rc;
}

/*
 * Everything is counted, resolved and checked before the first private
 * key operation or decryption: the caps bound the work, each reference
 * is resolved once against one build of the ID index, and decryption
 * then only replaces EncryptedData the checks accepted.
 */
int wss_xenc_decrypt(wss_msg *m, const wss_privkey *key, const dom_limits *lim,
		lab_err *err)
{
	const dom_node *c;
	data_ref *refs = NULL;
	size_t total = 0, n = 0;
	int rc;

	if (m->security == NULL)
		return lab_fail(err, LAB_ESECURITY, "no wsse:Security header");
	rc = count_keys(m, &total, err);
	if (rc == LAB_OK && total > 0 &&
	    (refs = dom_calloc(total, sizeof *refs)) == NULL)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	for (c = wss_first_el(m->security); c != NULL && rc == LAB_OK;
	     c = wss_next_el(c))
		if (dom_is(c, m->n.xenc, m->n.EncryptedKey))
			rc = collect_refs(m, c, refs, &n, err);
	for (c = wss_first_el(m->security); c != NULL && rc == LAB_OK;
	     c = wss_next_el(c))
		if (dom_is(c, m->n.xenc, m->n.EncryptedKey))
			rc = decrypt_key(m, c, key, refs, n, lim, err);
	dom_free(refs);
	return rc;
}
