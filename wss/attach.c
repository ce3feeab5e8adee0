/*
 * attach.c - signing and verifying attachments by cid: References (the
 * rules are in attach.h).  An unsigned attachment or a Reference to a part
 * the message does not carry is refused, so what the receiver hands on
 * (the envelope and the attachments) is exactly what was signed.
 */
#include "wss/attach.h"

#include <stdio.h>
#include <string.h>

#include "wss/crypto.h"

static const char cid_prefix[] = "cid:";

static int add_ref(dom_node *si, const wss_attachment *a, lab_err *err)
{
	unsigned char digest[WSS_SHA256_LEN];
	dom_node *ref, *tr, *dv;
	lab_buf uri = LAB_BUF_INIT;
	int rc = LAB_OK;

	if (lab_buf_printf(&uri, "%s%s", cid_prefix, a->id) != LAB_OK ||
	    wss_sha256(a->data, a->len, digest) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory signing an "
				"attachment");
	if (rc == LAB_OK)
		rc = wss_add(si, NULL, WSS_NS_DS, "ds:Reference", &ref, err);
	if (rc == LAB_OK)
		rc = wss_set(ref, NULL, "URI", uri.data, err);
	if (rc == LAB_OK)
		rc = wss_add(ref, NULL, WSS_NS_DS, "ds:Transforms", &tr, err);
	if (rc == LAB_OK)
		rc = wss_add_alg(tr, WSS_NS_DS, "ds:Transform",
				 WSS_ALG_SWA_CONTENT, NULL, err);
	if (rc == LAB_OK)
		rc = wss_add_alg(ref, WSS_NS_DS, "ds:DigestMethod",
				 WSS_ALG_SHA256, NULL, err);
	if (rc == LAB_OK)
		rc = wss_add(ref, NULL, WSS_NS_DS, "ds:DigestValue", &dv, err);
	if (rc == LAB_OK)
		rc = wss_add_b64(dv, digest, sizeof digest, err);
	lab_buf_free(&uri);
	return rc;
}

int wss_attach_sign(const wss_msg *m, dom_node *signed_info, lab_err *err)
{
	size_t i;
	int rc = LAB_OK;

	for (i = 0; rc == LAB_OK && i < m->natt; i++)
		rc = add_ref(signed_info, &m->att[i], err);
	return rc;
}

static const char *ref_cid(const wss_msg *m, const dom_node *ref)
{
	const char *uri = dom_attr_value(ref, NULL, m->n.URI);

	return uri != NULL &&
			       strncmp(uri, cid_prefix, sizeof cid_prefix - 1) == 0
		       ? uri + sizeof cid_prefix - 1
		       : NULL;
}

int wss_attach_is_ref(const wss_msg *m, const dom_node *ref)
{
	return ref_cid(m, ref) != NULL;
}

/* el is ds:<local> with Algorithm alg and no children. */
static int is_alg(const wss_msg *m, const dom_node *el, const char *local,
		  const char *alg)
{
	const char *have;

	if (el == NULL || !dom_is(el, m->n.ds, local) ||
	    wss_first_el(el) != NULL)
		return 0;
	have = dom_attr_value(el, NULL, m->n.Algorithm);
	return have != NULL && strcmp(have, alg) == 0;
}

int wss_attach_check_ref(const wss_msg *m, const dom_node *ref, lab_err *err)
{
	unsigned char digest[WSS_SHA256_LEN];
	const char *cid = ref_cid(m, ref);
	const wss_attachment *a = NULL;
	const dom_node *tr, *t, *dm, *dv;
	lab_buf want = LAB_BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; cid != NULL && i < m->natt && a == NULL; i++)
		if (strcmp(m->att[i].id, cid) == 0)
			a = &m->att[i];
	if (a == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"Reference 'cid:%.60s' names no part of the "
				"message",
				cid != NULL ? cid : "");
	tr = wss_first_el(ref);
	t = tr != NULL && dom_is(tr, m->n.ds, m->n.Transforms)
		    ? wss_first_el(tr)
		    : NULL;
	dm = tr != NULL ? wss_next_el(tr) : NULL;
	dv = dm != NULL ? wss_next_el(dm) : NULL;
	if (!is_alg(m, t, m->n.Transform, WSS_ALG_SWA_CONTENT) ||
	    wss_next_el(t) != NULL)
		return lab_fail(err, LAB_ESECURITY,
				"attachment Reference 'cid:%.60s' must have "
				"exactly the SwA Attachment-Content-Signature "
				"Transform",
				cid);
	if (!is_alg(m, dm, m->n.DigestMethod, WSS_ALG_SHA256))
		return lab_fail(err, LAB_ESECURITY,
				"attachment Reference 'cid:%.60s': SHA-256 "
				"digests only",
				cid);
	if (dv == NULL || !dom_is(dv, m->n.ds, m->n.DigestValue) ||
	    wss_next_el(dv) != NULL)
		return lab_fail(err, LAB_ESECURITY,
				"attachment Reference 'cid:%.60s' is not "
				"Transforms, DigestMethod, DigestValue",
				cid);
	rc = wss_b64_text(dv, &want, err);
	if (rc == LAB_OK && wss_sha256(a->data, a->len, digest) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "digest failed");
	if (rc == LAB_OK &&
	    (want.len != sizeof digest ||
	     !wss_ct_equal(want.data, digest, sizeof digest)))
		rc = lab_fail(err, LAB_ESECURITY,
			      "digest of attachment 'cid:%.60s' does not "
			      "match: the attachment was changed",
			      cid);
	lab_buf_free(&want);
	return rc;
}

int wss_attach_all_signed(const wss_msg *m, const dom_node *signed_info,
			  lab_err *err)
{
	size_t i;

	for (i = 0; i < m->natt; i++) {
		const dom_node *c;
		int seen = 0;

		for (c = wss_first_el(signed_info); c != NULL && !seen;
		     c = wss_next_el(c)) {
			const char *cid = dom_is(c, m->n.ds, m->n.Reference)
						  ? ref_cid(m, c)
						  : NULL;

			seen = cid != NULL && strcmp(cid, m->att[i].id) == 0;
		}
		if (!seen)
			return lab_fail(err, LAB_ESECURITY,
					"attachment <%.60s> is not covered by "
					"the signature",
					m->att[i].id);
	}
	return LAB_OK;
}
