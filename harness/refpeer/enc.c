/*
 * enc.c - the reference peer's encryption: one EncryptedKey (RSA-OAEP)
 * in the Security header and an EncryptedData per part, as wss/ lays
 * them out, and their decryption, every DataReference of the one key.
 * Not for: the signature (sign.c) or the message's parts (msg.c).
 */
#include "harness/refpeer/peer.h"

/*
 * The xenc:EncryptedKey, first in Security: RSA-OAEP, KeyInfo naming the
 * recipient's certificate by thumbprint (as wss/ does), and a
 * ReferenceList to the EncryptedData.  Linked at once, so the document
 * frees it on any failure.
 */
static int add_encrypted_key(ref_msg *m, const ref_key *peer, size_t nparts,
			     xmlNodePtr *out, lab_err *err)
{
	xmlNodePtr rl;
	char uri[64];
	size_t i;
	xmlNodePtr ek = xmlNewDocNode(m->doc, NULL, X("EncryptedKey"), NULL);
	xmlNodePtr linked = ek == NULL ? NULL
			    : m->security->children != NULL
				    ? xmlAddPrevSibling(m->security->children, ek)
				    : xmlAddChild(m->security, ek);
	xmlNsPtr xenc, ds;
	xmlNodePtr n, ki, kid;

	if (linked == NULL) {
		xmlFreeNode(ek);
		return ref__nomem(err);
	}
	*out = ek;
	xenc = xmlNewNs(ek, xmlSecEncNs, X("xenc"));
	xmlSetNs(ek, xenc);
	n = xmlNewChild(ek, xenc, X("EncryptionMethod"), NULL);
	ki = xmlNewChild(ek, NULL, X("KeyInfo"), NULL);
	ds = ki != NULL ? xmlNewNs(ki, xmlSecDSigNs, X("ds")) : NULL;
	xmlSetNs(ki, ds);
	kid = ds != NULL ? ref__add_str(m, ki, "KeyIdentifier", peer->thumb_b64)
			 : NULL;
	if (xenc == NULL || xmlNewProp(ek, X("Id"), X(ID_EK)) == NULL ||
	    n == NULL || xmlNewProp(n, X("Algorithm"), xmlSecHrefRsaOaep) == NULL ||
	    kid == NULL ||
	    xmlNewProp(kid, X("EncodingType"), X(WSS_BASE64)) == NULL ||
	    xmlNewProp(kid, X("ValueType"), X(WSS_THUMBPRINT)) == NULL)
		return ref__nomem(err);
	n = xmlNewChild(ek, xenc, X("CipherData"), NULL);
	if (n == NULL || xmlNewChild(n, xenc, X("CipherValue"), NULL) == NULL)
		return ref__nomem(err);
	rl = xmlNewChild(ek, xenc, X("ReferenceList"), NULL);
	for (i = 0; i <= nparts; i++) {
		n = rl != NULL ? xmlNewChild(rl, xenc, X("DataReference"), NULL)
			       : NULL;
		snprintf(uri, sizeof uri, "#%s",
			 i == 0 ? ID_ED : ID_PART[i - 1]);
		if (n == NULL || xmlNewProp(n, X("URI"), X(uri)) == NULL)
			return ref__nomem(err);
	}
	return LAB_OK;
}

/*
 * One element encrypted under aes as Type Element, the EncryptedData
 * taking its place; a header block's is then wrapped in a
 * wsse11:EncryptedHeader, as wss/xenc.c does.
 */
static int encrypt_part(ref_msg *m, xmlNodePtr el, const char *id,
			wss_cipher cipher, xmlSecKeyPtr aes, lab_err *err)
{
	int header = el->parent == m->header;
	xmlSecEncCtxPtr ctx = xmlSecEncCtxCreate(NULL);
	xmlNodePtr eh, ed = xmlSecTmplEncDataCreate(
		m->doc,
		cipher == WSS_AES128_CBC ? xmlSecTransformAes128CbcId
					 : xmlSecTransformAes256GcmId,
		X(id), xmlSecTypeEncElement, NULL, NULL);
	xmlNodePtr ki = ed != NULL ? xmlSecTmplEncDataEnsureKeyInfo(ed, NULL)
				   : NULL;
	int rc = ctx != NULL && ki != NULL &&
			 xmlSecTmplEncDataEnsureCipherValue(ed) != NULL &&
			 (ctx->encKey = xmlSecKeyDuplicate(aes)) != NULL
		 ? ref__add_token_ref(m, ki, ID_EK, WSS_EK_TOKEN, err)
		 : ref__nomem(err);

	if (rc == LAB_OK && xmlSecEncCtxXmlEncrypt(ctx, ed, el) < 0)
		rc = lab_fail(err, LAB_ESECURITY, "encryption failed%s",
			      ref__xmlsec_msg());
	eh = rc == LAB_OK && header ? xmlNewDocNode(m->doc, NULL,
						    X("EncryptedHeader"), NULL)
				    : NULL;
	if (eh != NULL) {
		xmlReplaceNode(ed, eh);
		xmlAddChild(eh, ed);
		xmlSetNs(eh, xmlNewNs(eh, X(WSS_NS_WSSE11), X("wsse11")));
	}
	if (rc == LAB_OK && header && (eh == NULL || eh->ns == NULL))
		rc = ref__nomem(err);
	if (ed != NULL && ed->parent == NULL)
		xmlFreeNode(ed);
	if (ctx != NULL)
		xmlSecEncCtxDestroy(ctx);
	return rc;
}

/* The Body's content becomes an EncryptedData under a fresh session key,
 * which the EncryptedKey carries wrapped for the recipient; so do the
 * nparts elements of parts (the Signature, a header block). */
int ref__encrypt_msg(ref_msg *m, const ref_key *peer, wss_cipher cipher,
		     xmlNodePtr *parts, size_t nparts, lab_err *err)
{
	size_t i;
	unsigned char kb[WSS_MAX_KEY_LEN];
	size_t klen = wss_cipher_key_len(cipher);
	xmlSecKeyPtr aes = NULL;
	xmlSecEncCtxPtr ectx = NULL, kctx = NULL;
	xmlNodePtr ed = NULL, ki, ek = NULL;
	int rc = LAB_OK;

	if (klen == 0)
		return lab_fail(err, LAB_EUSAGE, "no such cipher");
	if (RAND_bytes(kb, (int)klen) != 1) {
		rc = lab_fail(err, LAB_ESECURITY, "no random bytes for the key");
		goto out;
	}
	aes = xmlSecKeyReadMemory(xmlSecKeyDataAesId, kb, (xmlSecSize)klen);
	ed = xmlSecTmplEncDataCreate(m->doc,
				     cipher == WSS_AES128_CBC
					     ? xmlSecTransformAes128CbcId
					     : xmlSecTransformAes256GcmId,
				     X(ID_ED), xmlSecTypeEncContent, NULL, NULL);
	ki = ed != NULL ? xmlSecTmplEncDataEnsureKeyInfo(ed, NULL) : NULL;
	ectx = xmlSecEncCtxCreate(NULL);
	if (aes == NULL || ki == NULL || ectx == NULL ||
	    xmlSecTmplEncDataEnsureCipherValue(ed) == NULL) {
		rc = ref__nomem(err);
		goto out;
	}
	rc = ref__add_token_ref(m, ki, ID_EK, WSS_EK_TOKEN, err);
	if (rc != LAB_OK)
		goto out;
	for (i = 0; i < nparts && rc == LAB_OK; i++)
		rc = encrypt_part(m, parts[i], ID_PART[i], cipher, aes, err);
	if (rc != LAB_OK)
		goto out;
	ectx->encKey = aes;
	aes = NULL;
	if (xmlSecEncCtxXmlEncrypt(ectx, ed, m->body) < 0) {
		rc = lab_fail(err, LAB_ESECURITY, "encryption failed%s",
			      ref__xmlsec_msg());
		goto out;
	}
	rc = add_encrypted_key(m, peer, nparts, &ek, err);
	if (rc != LAB_OK)
		goto out;
	kctx = xmlSecEncCtxCreate(NULL);
	if (kctx == NULL ||
	    (kctx->encKey = xmlSecKeyDuplicate(peer->key)) == NULL) {
		rc = ref__nomem(err);
		goto out;
	}
	kctx->mode = xmlEncCtxModeEncryptedKey;
	if (xmlSecEncCtxBinaryEncrypt(kctx, ek, kb, (xmlSecSize)klen) < 0)
		rc = lab_fail(err, LAB_ESECURITY, "key wrap failed%s",
			      ref__xmlsec_msg());
out:
	OPENSSL_cleanse(kb, sizeof kb);
	/* Once it replaced the Body's content, the template is the
	 * document's to free. */
	if (ed != NULL && ed->parent == NULL)
		xmlFreeNode(ed);
	if (aes != NULL)
		xmlSecKeyDestroy(aes);
	if (ectx != NULL)
		xmlSecEncCtxDestroy(ectx);
	if (kctx != NULL)
		xmlSecEncCtxDestroy(kctx);
	return rc;
}

/* The EncryptedData "#id" names among the places a layout puts one: the
 * Body, the Security header, a wsse11:EncryptedHeader of the Header. */
static xmlNodePtr find_data(const ref_msg *m, const xmlChar *uri)
{
	const xmlNode *places[] = {m->body, m->security, m->header};
	xmlNodePtr n, c;
	size_t i;

	for (i = 0; uri != NULL && uri[0] == '#' && i < 3; i++)
		for (n = places[i] != NULL ? places[i]->children : NULL;
		     n != NULL; n = n->next) {
			c = i == 2 && ref__is_el(n, WSS_NS_WSSE11,
						 "EncryptedHeader")
				    ? n->children
				    : n;
			for (; c != NULL; c = c == n ? NULL : c->next) {
				xmlChar *id = ref__is_el(c, WSS_NS_XENC,
							 "EncryptedData")
						      ? xmlGetProp(c, X("Id"))
						      : NULL;
				int hit = id != NULL && xmlStrEqual(uri + 1, id);

				xmlFree(id);
				if (hit)
					return c;
			}
		}
	return NULL;
}

/* The one EncryptedKey and the ReferenceList that names its data: its
 * own, or the Security header's one standalone list when it has none. */
static int find_key(const ref_msg *m, xmlNodePtr *ek, xmlNodePtr *rl,
		    lab_err *err)
{
	size_t count;

	*ek = ref__one_child(m->security, WSS_NS_XENC, "EncryptedKey", &count);
	if (*ek == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"Security header has %zu EncryptedKeys", count);
	*rl = ref__one_child(*ek, WSS_NS_XENC, "ReferenceList", &count);
	if (count == 0)
		*rl = ref__one_child(m->security, WSS_NS_XENC, "ReferenceList",
				     &count);
	if (*rl == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"the EncryptedKey has no ReferenceList");
	return LAB_OK;
}

/*
 * Whether enc's CipherData holds its CipherValue.  Without one xmlsec
 * takes the cipher's input from a URI, and with none given, from the
 * whole document through C14N; when that fails (a relative namespace
 * URI), xmlsec 1.2.37 leaks what xmlSecTransformCreateOutputBuffer made
 * (LeakSanitizer, the receive_diff target).  A CipherReference is
 * refused anyway (no URI is enabled), so both are refused before xmlsec
 * sees them, as domlab does.
 */
static int has_cipher_value(const xmlNode *enc)
{
	size_t count;
	const xmlNode *cd = ref__one_child(enc, WSS_NS_XENC, "CipherData",
					   &count);

	return cd != NULL &&
	       ref__one_child(cd, WSS_NS_XENC, "CipherValue", &count) != NULL;
}

/* One EncryptedData decrypted with aes in place; a header block comes
 * out of its EncryptedHeader. */
static int decrypt_data(xmlNodePtr ed, xmlSecKeyPtr aes, lab_err *err)
{
	xmlSecEncCtxPtr ctx = xmlSecEncCtxCreate(NULL);
	xmlNodePtr eh = ed->parent, block;
	int header = ref__is_el(eh, WSS_NS_WSSE11, "EncryptedHeader");
	int rc = LAB_OK;

	if (ctx == NULL || (ctx->encKey = xmlSecKeyDuplicate(aes)) == NULL)
		rc = ref__nomem(err);
	if (rc == LAB_OK) {
		/* A CipherReference would make xmlsec fetch a URI. */
		ctx->transformCtx.enabledUris = xmlSecTransformUriTypeNone;
		if (!has_cipher_value(ed) || xmlSecEncCtxDecrypt(ctx, ed) < 0)
			rc = lab_fail(err, LAB_ESECURITY, "decryption failed");
	}
	if (rc == LAB_OK && header) {
		for (block = eh->children;
		     block != NULL && block->type != XML_ELEMENT_NODE;
		     block = block->next)
			;
		if (block == NULL)
			rc = lab_fail(err, LAB_ESECURITY, "decryption failed");
		else {
			xmlUnlinkNode(block);
			xmlReplaceNode(eh, block);
			xmlFreeNode(eh);
		}
	}
	if (ctx != NULL)
		xmlSecEncCtxDestroy(ctx);
	return rc;
}

/* The session key unwrapped with our private key, then every
 * EncryptedData the key's ReferenceList names replaced by its plaintext,
 * the Body's among them. */
int ref__decrypt_msg(ref_msg *m, const ref_key *key, lab_err *err)
{
	xmlSecEncCtxPtr kctx = NULL;
	xmlSecKeyPtr aes = NULL;
	xmlSecBufferPtr kbuf = NULL;
	xmlNodePtr ek = NULL, rl = NULL, dr, ed;
	size_t count;
	int body = 0, rc = find_key(m, &ek, &rl, err);

	if (rc != LAB_OK)
		goto out;
	kctx = xmlSecEncCtxCreate(NULL);
	if (kctx == NULL ||
	    (kctx->encKey = xmlSecKeyDuplicate(key->key)) == NULL) {
		rc = ref__nomem(err);
		goto out;
	}
	kctx->mode = xmlEncCtxModeEncryptedKey;
	kctx->transformCtx.enabledUris = xmlSecTransformUriTypeNone;
	kbuf = has_cipher_value(ek) ? xmlSecEncCtxDecryptToBuffer(kctx, ek)
				    : NULL;
	if (kbuf != NULL)
		aes = xmlSecKeyReadMemory(xmlSecKeyDataAesId,
					  xmlSecBufferGetData(kbuf),
					  xmlSecBufferGetSize(kbuf));
	/* Like wss/crypto.h, nothing about why: no padding or OAEP oracle. */
	if (aes == NULL) {
		rc = lab_fail(err, LAB_ESECURITY,
			      "decryption failed: key unwrap failed");
		goto out;
	}
	for (dr = rl->children; dr != NULL && rc == LAB_OK; dr = dr->next) {
		xmlChar *uri = ref__is_el(dr, WSS_NS_XENC, "DataReference")
				       ? xmlGetProp(dr, X("URI"))
				       : NULL;

		ed = find_data(m, uri);
		xmlFree(uri);
		if (ed == NULL && ref__is_el(dr, WSS_NS_XENC, "DataReference"))
			rc = lab_fail(err, LAB_ESECURITY,
				      "a DataReference names no EncryptedData "
				      "of the Body, the Security header or an "
				      "EncryptedHeader");
		body |= ed != NULL && ed->parent == m->body;
		if (ed != NULL)
			rc = decrypt_data(ed, aes, err);
	}
	if (rc == LAB_OK &&
	    (!body || ref__one_child(m->body, WSS_NS_XENC, "EncryptedData",
				     &count) != NULL || count != 0))
		rc = lab_fail(err, LAB_ESECURITY,
			      "the EncryptedKey does not reference the Body's "
			      "one EncryptedData");
out:
	/* kbuf is kctx's result. */
	if (aes != NULL)
		xmlSecKeyDestroy(aes);
	if (kctx != NULL)
		xmlSecEncCtxDestroy(kctx);
	return rc;
}

/* Whether a ds:Signature comes before the first EncryptedKey in the
 * Security header. */
int ref__signed_first(const ref_msg *m)
{
	xmlNodePtr n;

	for (n = m->security != NULL ? m->security->children : NULL;
	     n != NULL; n = n->next) {
		if (ref__is_el(n, WSS_NS_DS, "Signature"))
			return 1;
		if (ref__is_el(n, WSS_NS_XENC, "EncryptedKey"))
			return 0;
	}
	return 0;
}
