/*
 * sign.c - the reference peer's Signature and Timestamp: the sender's
 * signature over the Timestamp and the parts wss_opts names, the
 * receiver's checks (the Timestamp's window, the signed parts, the
 * trusted key), and the intermediary's (the wsa:To).
 * Not for: encryption (enc.c) or the message's parts (msg.c).
 */
#include "harness/refpeer/peer.h"

static int add_timestamp(ref_msg *m, xmlNsPtr wsu, const wss_opts *o,
			 char *id, size_t cap, lab_err *err)
{
	char created[32], expires[32];
	xmlNodePtr ts = xmlNewChild(m->security, wsu, X("Timestamp"), NULL);

	if (ts == NULL)
		return ref__nomem(err);
	wss_time_format(o->now, created);
	wss_time_format(o->now + (time_t)o->ttl, expires);
	if (xmlNewTextChild(ts, wsu, X("Created"), X(created)) == NULL ||
	    xmlNewTextChild(ts, wsu, X("Expires"), X(expires)) == NULL)
		return ref__nomem(err);
	return ref__wsu_id(m, ts, ID_TS, LAB_EMALFORMED, id, cap, err);
}

/* One Reference to "#id" with the exc-c14n transform and a SHA-256 digest. */
static int add_reference(xmlNodePtr sig, const char *id, lab_err *err)
{
	char uri[72];
	xmlNodePtr ref;

	snprintf(uri, sizeof uri, "#%s", id);
	ref = xmlSecTmplSignatureAddReference(sig, xmlSecTransformSha256Id,
					      NULL, X(uri), NULL);
	if (ref == NULL || xmlSecTmplReferenceAddTransform(
				   ref, xmlSecTransformExclC14NId) == NULL)
		return ref__nomem(err);
	return LAB_OK;
}

/* A wsa:To holding uri, appended to the Header, with its wsu:Id. */
static int add_to(ref_msg *m, const char *uri, char *id, size_t cap,
		  lab_err *err)
{
	size_t count;
	xmlNodePtr to;
	xmlNsPtr wsa;

	if (ref__one_child(m->header, WSS_NS_WSA, "To", &count) != NULL ||
	    count > 0)
		return lab_fail(err, LAB_EMALFORMED,
				"the message already has a wsa:To");
	to = xmlNewTextChild(m->header, NULL, X("To"), X(uri));
	wsa = to != NULL ? xmlNewNs(to, X(WSS_NS_WSA), X("wsa")) : NULL;
	if (wsa == NULL)
		return ref__nomem(err);
	xmlSetNs(to, wsa);
	return ref__wsu_id(m, to, ID_TO, LAB_EMALFORMED, id, cap, err);
}

/* What the Signature covers besides the Timestamp, as wss/ has it: the
 * Body unless o->headers_only, a wsa:To holding o->to when set. */
static int sign_parts(ref_msg *m, const wss_opts *o, char *body_id,
		      char *to_id, size_t cap, lab_err *err)
{
	int rc = LAB_OK;

	if (o->headers_only && o->to == NULL)
		return lab_fail(err, LAB_EUSAGE,
				"signing header blocks only needs a wsa:To "
				"to sign (--to)");
	if (!o->headers_only)
		rc = ref__wsu_id(m, m->body, ID_BODY, LAB_EMALFORMED, body_id,
				 cap, err);
	if (rc == LAB_OK && o->to != NULL)
		rc = add_to(m, o->to, to_id, cap, err);
	return rc;
}

/* Security gets BinarySecurityToken, Signature, Timestamp, in the order
 * wss/ writes them; the Signature covers the Timestamp and sign_parts'. */
int ref__sign_msg(ref_msg *m, const ref_key *key, const ref_key *cert,
		  const wss_opts *o, lab_err *err)
{
	char body_id[64], ts_id[64], bst_id[64], to_id[64];
	xmlSecDSigCtxPtr ctx = NULL;
	xmlNodePtr bst, sig = NULL, ki;
	xmlNsPtr wsu = ref__ns_for(m, m->security, WSS_NS_WSU, "wsu");
	int rc = sign_parts(m, o, body_id, to_id, sizeof body_id, err);

	if (rc != LAB_OK)
		goto out;
	bst = xmlNewTextChild(m->security, m->security->ns,
			      X("BinarySecurityToken"), cert->der_b64);
	if (wsu == NULL || bst == NULL ||
	    xmlNewProp(bst, X("EncodingType"), X(WSS_BASE64)) == NULL ||
	    xmlNewProp(bst, X("ValueType"), X(WSS_X509V3)) == NULL) {
		rc = ref__nomem(err);
		goto out;
	}
	rc = ref__wsu_id(m, bst, ID_BST, LAB_EMALFORMED, bst_id, sizeof bst_id,
			 err);
	if (rc != LAB_OK)
		goto out;
	sig = xmlSecTmplSignatureCreateNsPref(m->doc, xmlSecTransformExclC14NId,
					      xmlSecTransformRsaSha256Id, NULL,
					      X("ds"));
	if (sig == NULL || xmlAddChild(m->security, sig) == NULL) {
		rc = ref__nomem(err);
		goto out;
	}
	rc = add_timestamp(m, wsu, o, ts_id, sizeof ts_id, err);
	if (rc == LAB_OK && !o->headers_only)
		rc = add_reference(sig, body_id, err);
	if (rc == LAB_OK)
		rc = add_reference(sig, ts_id, err);
	if (rc == LAB_OK && o->to != NULL)
		rc = add_reference(sig, to_id, err);
	if (rc != LAB_OK)
		goto out;
	ki = xmlSecTmplSignatureEnsureKeyInfo(sig, NULL);
	rc = ki != NULL ? ref__add_token_ref(m, ki, bst_id, WSS_X509V3, err)
			: ref__nomem(err);
	if (rc != LAB_OK)
		goto out;
	ctx = xmlSecDSigCtxCreate(NULL);
	if (ctx == NULL || (ctx->signKey = xmlSecKeyDuplicate(key->key)) ==
				   NULL) {
		rc = ref__nomem(err);
		goto out;
	}
	ctx->enabledReferenceUris = xmlSecTransformUriTypeSameDocument;
	if (xmlSecDSigCtxSign(ctx, sig) < 0)
		rc = lab_fail(err, LAB_ESECURITY, "signing failed%s",
			      ref__xmlsec_msg());
out:
	/* Once linked, the template is the document's to free. */
	if (sig != NULL && sig->parent == NULL)
		xmlFreeNode(sig);
	if (ctx != NULL)
		xmlSecDSigCtxDestroy(ctx);
	return rc;
}

/* The time in ts's one child (WSU, local), by wss/'s rule. */
static int read_time(const xmlNode *ts, const char *local, time_t *out,
		     lab_err *err)
{
	size_t count;
	xmlNodePtr el = ref__one_child(ts, WSS_NS_WSU, local, &count);
	xmlChar *text = el != NULL ? xmlNodeGetContent(el) : NULL;
	int rc = wss_timestamp_time((const char *)text, el != NULL ? 1 : count,
				    local, out, err);

	xmlFree(text);
	return rc;
}

/* wss_timestamp_check's rules (wss/wsse.h) on the reference's tree: one
 * Timestamp, its times as wss_timestamp_time and wss_timestamp_window
 * judge them. */
int ref__check_timestamp(const ref_msg *m, time_t now, xmlNodePtr *ts,
			 lab_err *err)
{
	time_t created, expires;
	size_t count;
	int rc;

	if (m->security == NULL)
		return lab_fail(err, LAB_ESECURITY, "no wsse:Security header");
	*ts = ref__one_child(m->security, WSS_NS_WSU, "Timestamp", &count);
	if (*ts == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"Security header has %zu Timestamps", count);
	rc = read_time(*ts, "Created", &created, err);
	if (rc == LAB_OK)
		rc = read_time(*ts, "Expires", &expires, err);
	return rc == LAB_OK ? wss_timestamp_window(created, expires, now, err)
			    : rc;
}

/* Whether a verified Reference of ctx points at "#id". */
static int signs(xmlSecDSigCtxPtr ctx, const char *id)
{
	xmlSecSize i, n = xmlSecPtrListGetSize(&ctx->signedInfoReferences);

	for (i = 0; i < n; i++) {
		const xmlSecDSigReferenceCtx *r =
			xmlSecPtrListGetItem(&ctx->signedInfoReferences, i);

		if (r != NULL && r->status == xmlSecDSigStatusSucceeded &&
		    r->uri != NULL && r->uri[0] == '#' &&
		    xmlStrEqual(r->uri + 1, X(id)))
			return 1;
	}
	return 0;
}

/* Why a verification failed: the first Reference whose digest differs,
 * else the SignatureValue. */
static int verify_failure(xmlSecDSigCtxPtr ctx, lab_err *err)
{
	xmlSecSize i, n = xmlSecPtrListGetSize(&ctx->signedInfoReferences);

	for (i = 0; i < n; i++) {
		const xmlSecDSigReferenceCtx *r =
			xmlSecPtrListGetItem(&ctx->signedInfoReferences, i);

		if (r != NULL && r->status != xmlSecDSigStatusSucceeded)
			return lab_fail(err, LAB_ESECURITY,
					"digest mismatch for Reference %s",
					r->uri != NULL ? (const char *)r->uri
						       : "?");
	}
	return lab_fail(err, LAB_ESECURITY,
			"signature value does not verify with the trusted "
			"certificate");
}

/*
 * The IDs a verifier lets References reach, registered: the Body's
 * (unless `to`, a hop's wsa:To, is given: then that one's), the
 * Timestamp's, and a wsa:To's the sender signed with the Body.
 */
static int reachable_ids(ref_msg *m, xmlNodePtr ts, xmlNodePtr to,
			 char *body_id, char *ts_id, char *to_id, size_t cap,
			 lab_err *err)
{
	size_t count;
	xmlNodePtr signed_to =
		to != NULL ? to
			   : ref__one_child(m->header, WSS_NS_WSA, "To", &count);
	int rc = to != NULL ? LAB_OK
			    : ref__wsu_id(m, m->body, NULL, LAB_ESECURITY,
					  body_id, cap, err);

	if (rc == LAB_OK)
		rc = ref__wsu_id(m, ts, NULL, LAB_ESECURITY, ts_id, cap, err);
	if (rc == LAB_OK && signed_to != NULL &&
	    (to != NULL || xmlHasNsProp(signed_to, X("Id"), X(WSS_NS_WSU))))
		rc = ref__wsu_id(m, signed_to, NULL, LAB_ESECURITY, to_id, cap,
				 err);
	return rc;
}

/*
 * The Signature verified with the trusted certificate's key, put in the
 * context (xmlsec does not follow the SecurityTokenReference; a token
 * that is not the trusted one cannot verify).  Only the profile's
 * algorithms and same-document references are enabled, and the
 * Timestamp must be signed, with the Body or, for a hop, the wsa:To
 * `to`.  xmlsec checks every Reference: a hop's Signature that also
 * covers the Body cannot be verified without reading it, so a hop here
 * takes a Signature over header blocks only.
 */
int ref__verify_msg(ref_msg *m, const ref_key *trust, xmlNodePtr ts,
		    xmlNodePtr to, lab_err *err)
{
	char body_id[64], ts_id[64], to_id[64];
	xmlSecDSigCtxPtr ctx = NULL;
	size_t count;
	xmlNodePtr sig = ref__one_child(m->security, WSS_NS_DS, "Signature",
					&count);
	int rc = sig != NULL ? LAB_OK
			     : lab_fail(err, LAB_ESECURITY,
					"Security header has %zu Signatures",
					count);

	if (rc == LAB_OK)
		rc = reachable_ids(m, ts, to, body_id, ts_id, to_id,
				   sizeof body_id, err);
	if (rc != LAB_OK)
		goto out;
	ctx = xmlSecDSigCtxCreate(NULL);
	if (ctx == NULL ||
	    (ctx->signKey = xmlSecKeyDuplicate(trust->key)) == NULL ||
	    xmlSecDSigCtxEnableReferenceTransform(
		    ctx, xmlSecTransformExclC14NId) < 0 ||
	    xmlSecDSigCtxEnableReferenceTransform(ctx, xmlSecTransformSha256Id) <
		    0 ||
	    xmlSecDSigCtxEnableSignatureTransform(
		    ctx, xmlSecTransformExclC14NId) < 0 ||
	    xmlSecDSigCtxEnableSignatureTransform(
		    ctx, xmlSecTransformRsaSha256Id) < 0) {
		rc = ref__nomem(err);
		goto out;
	}
	ctx->enabledReferenceUris = xmlSecTransformUriTypeSameDocument;
	if (xmlSecDSigCtxVerify(ctx, sig) < 0)
		rc = lab_fail(err, LAB_ESECURITY,
			      "the Signature cannot be processed%s",
			      ref__xmlsec_msg());
	else if (ctx->status != xmlSecDSigStatusSucceeded)
		rc = verify_failure(ctx, err);
	else if (to == NULL && !signs(ctx, body_id))
		rc = lab_fail(err, LAB_ESECURITY, "the Body is not signed");
	else if (!signs(ctx, ts_id))
		rc = lab_fail(err, LAB_ESECURITY, "the Timestamp is not signed");
	else if (to != NULL && !signs(ctx, to_id))
		rc = lab_fail(err, LAB_ESECURITY, "the wsa:To is not signed");
out:
	if (ctx != NULL)
		xmlSecDSigCtxDestroy(ctx);
	return rc;
}

/* The wsa:To's text, without XML whitespace at either end, is want,
 * as wss/ reads it. */
int ref__check_to(const xmlNode *to, const char *want, lab_err *err)
{
	xmlChar *text = xmlNodeGetContent(to);
	const char *p = (const char *)text;
	size_t n = text != NULL ? strlen(p) : 0;
	int rc = LAB_OK;

	if (text == NULL)
		return ref__nomem(err);
	while (n > 0 && strchr(" \t\r\n", p[n - 1]) != NULL)
		n--;
	while (n > 0 && strchr(" \t\r\n", *p) != NULL) {
		p++;
		n--;
	}
	if (n != strlen(want) || memcmp(p, want, n) != 0)
		rc = lab_fail(err, LAB_ESECURITY,
			      "the message is addressed to '%.*s', not '%s'",
			      (int)(n < 200 ? n : 200), p, want);
	xmlFree(text);
	return rc;
}

/* What a hop does (wss_forward_doc): the Timestamp, the Signature over
 * it and the Header's one wsa:To, and that To is o->to when set. */
int ref__forward_msg(ref_msg *m, const ref_key *trust, const wss_opts *o,
		     lab_err *err)
{
	xmlNodePtr ts = NULL, to;
	size_t count = 0;
	int rc = ref__check_timestamp(m, o->now, &ts, err);

	to = ref__one_child(m->header, WSS_NS_WSA, "To", &count);
	if (rc == LAB_OK && to == NULL)
		rc = lab_fail(err, LAB_ESECURITY, "the Header has %zu wsa:To",
			      count);
	if (rc == LAB_OK)
		rc = ref__verify_msg(m, trust, ts, to, err);
	if (rc == LAB_OK && o->to != NULL)
		rc = ref__check_to(to, o->to, err);
	return rc;
}
