/*
 * receive_diff.c - libFuzzer target, differential: domlab's receive
 * (wss_receive_doc over the variant's tree) against the reference peer's
 * (harness/refpeer/: libxml2 + xmlsec1) on the same bytes, messages alice
 * signed and encrypted for bob changed by the structure-aware mutator
 * (msg_mutate.h).  The two must agree on accept or refuse.  Where they
 * do not, the input must fall in one of the classes SECURITY.md lists
 * ("Where domlab is stricter than the reference peer"), each tested by a
 * named predicate below over libxml2's tree of the input; any other
 * disagreement aborts with both verdicts, so every one left is a finding.
 * Fixed keys (fuzz_keys.h) and clock (FUZZ_NOW).
 * Not for: memory safety of the reference (libxml2 and xmlsec1 are not
 * instrumented here), or what either side writes when both accept.
 */
#include <libxml/tree.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"
#include "harness/refpeer/ref.h"
#include "tests/fuzz/fuzz_keys.h"
#include "tests/fuzz/msg_mutate.h"
#include "util/base64.h"
#include "wss/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define X(s) BAD_CAST(s)

static int is_el(const xmlNode *n, const char *ns, const char *local)
{
	return n != NULL && n->type == XML_ELEMENT_NODE && n->ns != NULL &&
	       xmlStrEqual(n->name, X(local)) && xmlStrEqual(n->ns->href, X(ns));
}

/* Element children only. */
static xmlNodePtr first_el(const xmlNode *n)
{
	xmlNodePtr c = n != NULL ? n->children : NULL;

	while (c != NULL && c->type != XML_ELEMENT_NODE)
		c = c->next;
	return c;
}

static xmlNodePtr next_el(const xmlNode *n)
{
	xmlNodePtr c = n->next;

	while (c != NULL && c->type != XML_ELEMENT_NODE)
		c = c->next;
	return c;
}

/* The next element in document order under top. */
static xmlNodePtr walk(xmlNodePtr n, const xmlNode *top)
{
	if (first_el(n) != NULL)
		return first_el(n);
	while (n != NULL && n != top) {
		if (next_el(n) != NULL)
			return next_el(n);
		n = n->parent;
	}
	return NULL;
}

/* Whether el carries `id` in an attribute dom_get_by_id reads (wsu:Id,
 * or Id or ID without a namespace). */
static int has_id(const xmlNode *el, const xmlChar *id)
{
	const xmlAttr *a;

	for (a = el->properties; a != NULL; a = a->next) {
		int named = a->ns != NULL
				    ? xmlStrEqual(a->ns->href, X(WSS_NS_WSU)) &&
					      xmlStrEqual(a->name, X("Id"))
				    : xmlStrEqual(a->name, X("Id")) ||
					      xmlStrEqual(a->name, X("ID"));
		if (named && a->children != NULL &&
		    xmlStrEqual(a->children->content, id))
			return 1;
	}
	return 0;
}

/* How many elements carry the ID uri names ("#id"); *one is one of them. */
static size_t resolve(xmlDocPtr doc, const xmlChar *uri, xmlNodePtr *one)
{
	xmlNodePtr root = xmlDocGetRootElement(doc), n;
	size_t count = 0;

	*one = NULL;
	if (uri == NULL || uri[0] != '#' || uri[1] == '\0' ||
	    xmlStrchr(uri, '(') != NULL)
		return 0;
	for (n = root; n != NULL; n = walk(n, root))
		if (has_id(n, uri + 1)) {
			*one = n;
			count++;
		}
	return count;
}

/* The message's parts as wss_msg_open finds them (NULL when absent). */
typedef struct diff_msg {
	xmlDocPtr doc;
	xmlNodePtr envelope, body, security, signature;
	const wss_cert *trust;
} diff_msg;

/* el is ds:<local> with Algorithm alg and no child, or with one
 * InclusiveNamespaces when `inclusive` allows it. */
static int alg_el(const xmlNode *el, const char *local, const char *alg,
		  int inclusive)
{
	xmlChar *have = is_el(el, WSS_NS_DS, local)
				? xmlGetNoNsProp(el, X("Algorithm"))
				: NULL;
	xmlNodePtr c = el != NULL ? first_el(el) : NULL;
	int ok = have != NULL && xmlStrEqual(have, X(alg)) &&
		 (c == NULL ||
		  (inclusive && is_el(c, WSS_NS_EXC_C14N, "InclusiveNamespaces") &&
		   next_el(c) == NULL));

	xmlFree(have);
	return ok;
}

/* A Reference as the profile has it: "#id" URI, Transforms with one
 * exc-c14n Transform, SHA-256 DigestMethod, DigestValue. */
static int profile_reference(const xmlNode *ref)
{
	xmlChar *uri = xmlGetNoNsProp(ref, X("URI"));
	xmlNodePtr t = first_el(ref), dm, dv;
	int ok = uri != NULL && uri[0] == '#' && uri[1] != '\0' &&
		 xmlStrchr(uri, '(') == NULL;

	xmlFree(uri);
	if (!ok || !is_el(t, WSS_NS_DS, "Transforms") || first_el(t) == NULL ||
	    next_el(first_el(t)) != NULL ||
	    !alg_el(first_el(t), "Transform", WSS_ALG_EXC_C14N, 1))
		return 0;
	dm = next_el(t);
	dv = dm != NULL ? next_el(dm) : NULL;
	return alg_el(dm, "DigestMethod", WSS_ALG_SHA256, 0) &&
	       is_el(dv, WSS_NS_DS, "DigestValue") && next_el(dv) == NULL;
}

/* ---- the classes in which domlab is deliberately stricter --------------- */

/* The Signature holds anything but SignedInfo (exc-c14n, RSA-SHA256,
 * profile References), SignatureValue and KeyInfo, in that order. */
static int signature_outside_profile(const diff_msg *m)
{
	xmlNodePtr si = first_el(m->signature), sv, ki, c;

	sv = si != NULL ? next_el(si) : NULL;
	ki = sv != NULL ? next_el(sv) : NULL;
	if (!is_el(si, WSS_NS_DS, "SignedInfo") ||
	    !is_el(sv, WSS_NS_DS, "SignatureValue") ||
	    (ki != NULL && next_el(ki) != NULL))
		return 1;
	c = first_el(si);
	if (!alg_el(c, "CanonicalizationMethod", WSS_ALG_EXC_C14N, 1))
		return 1;
	c = next_el(c);
	if (!alg_el(c, "SignatureMethod", WSS_ALG_RSA_SHA256, 0))
		return 1;
	for (c = next_el(c); c != NULL; c = next_el(c))
		if (!is_el(c, WSS_NS_DS, "Reference") || !profile_reference(c))
			return 1;
	return 0;
}

/* The key is not the trusted certificate in a BinarySecurityToken of the
 * Security header that the Signature's KeyInfo names through one
 * SecurityTokenReference with one Reference (the reference peer takes the
 * trusted key from its configuration and reads neither). */
static int token_not_the_trusted_one(const diff_msg *m)
{
	xmlNodePtr sv = next_el(first_el(m->signature));
	xmlNodePtr ki = sv != NULL ? next_el(sv) : NULL, str, ref, bst;
	xmlChar *uri, *vt, *et, *text;
	lab_buf der = LAB_BUF_INIT;
	const unsigned char *want;
	size_t len, count;
	lab_err err;
	int ok;

	str = is_el(ki, WSS_NS_DS, "KeyInfo") ? first_el(ki) : NULL;
	if (!is_el(str, WSS_NS_WSSE, "SecurityTokenReference") ||
	    next_el(str) != NULL)
		return 1;
	ref = first_el(str);
	if (!is_el(ref, WSS_NS_WSSE, "Reference") || next_el(ref) != NULL)
		return 1;
	vt = xmlGetNoNsProp(ref, X("ValueType"));
	uri = xmlGetNoNsProp(ref, X("URI"));
	count = resolve(m->doc, uri, &bst);
	ok = (vt == NULL || xmlStrEqual(vt, X(WSS_X509V3))) && count == 1 &&
	     is_el(bst, WSS_NS_WSSE, "BinarySecurityToken") &&
	     bst->parent == m->security;
	xmlFree(vt);
	xmlFree(uri);
	if (!ok)
		return 1;
	vt = xmlGetNoNsProp(bst, X("ValueType"));
	et = xmlGetNoNsProp(bst, X("EncodingType"));
	text = xmlNodeGetContent(bst);
	want = wss_cert_der(m->trust, &len);
	ok = vt != NULL && xmlStrEqual(vt, X(WSS_X509V3)) &&
	     (et == NULL || xmlStrEqual(et, X(WSS_BASE64))) && text != NULL &&
	     lab_base64_decode((const char *)text, (size_t)xmlStrlen(text),
			       &der, &err) == LAB_OK &&
	     der.len == len && memcmp(der.data, want, len) == 0;
	xmlFree(vt);
	xmlFree(et);
	xmlFree(text);
	lab_buf_free(&der);
	return !ok;
}

/* A URI anywhere names an ID two elements carry (domlab resolves only a
 * unique ID; xmlsec takes the one libxml2 registered). */
static int duplicate_id_named(const diff_msg *m)
{
	xmlNodePtr root = xmlDocGetRootElement(m->doc), n, one;
	int dup = 0;

	for (n = root; n != NULL && !dup; n = walk(n, root)) {
		xmlChar *uri = xmlGetNoNsProp(n, X("URI"));

		dup = resolve(m->doc, uri, &one) > 1;
		xmlFree(uri);
	}
	return dup;
}

/* A signed soap:Body that is not the Envelope's own (signature
 * wrapping: domlab refuses it even when the real Body is signed too). */
static int signed_body_elsewhere(const diff_msg *m)
{
	xmlNodePtr si = first_el(m->signature), c, t;
	int elsewhere = 0;

	for (c = si != NULL ? first_el(si) : NULL; c != NULL && !elsewhere;
	     c = next_el(c)) {
		xmlChar *uri = is_el(c, WSS_NS_DS, "Reference")
				       ? xmlGetNoNsProp(c, X("URI"))
				       : NULL;

		elsewhere = resolve(m->doc, uri, &t) == 1 &&
			    is_el(t, WSS_NS_SOAP, "Body") && t != m->body;
		xmlFree(uri);
	}
	return elsewhere;
}

/* An algorithm outside rsa-oaep-mgf1p for an EncryptedKey and
 * aes256-gcm / aes128-cbc of Type Content for an EncryptedData. */
/* A document type declaration: SOAP forbids one, and domlab refuses it
 * on every parser; the reference reads it. */
static int dtd_in_message(const diff_msg *m)
{
	return m->doc->intSubset != NULL || m->doc->extSubset != NULL;
}

static int encryption_outside_profile(const diff_msg *m)
{
	xmlNodePtr root = xmlDocGetRootElement(m->doc), n;

	for (n = root; n != NULL; n = walk(n, root)) {
		int ek = is_el(n, WSS_NS_XENC, "EncryptedKey");
		xmlNodePtr em = first_el(n);
		xmlChar *alg, *type;
		wss_cipher c;
		int ok;

		if (!ek && !is_el(n, WSS_NS_XENC, "EncryptedData"))
			continue;
		alg = is_el(em, WSS_NS_XENC, "EncryptionMethod")
			      ? xmlGetNoNsProp(em, X("Algorithm"))
			      : NULL;
		type = xmlGetNoNsProp(n, X("Type"));
		ok = alg != NULL &&
		     (ek ? xmlStrEqual(alg, X(WSS_ALG_RSA_OAEP))
			 : wss_cipher_from_uri((const char *)alg, &c) ==
					   LAB_OK &&
				   c == WSS_AES256_GCM && type != NULL &&
				   xmlStrEqual(type, X(WSS_TYPE_CONTENT)));
		xmlFree(alg);
		xmlFree(type);
		if (!ok)
			return 1;
	}
	return 0;
}

/* Whether el's text is base64 as domlab reads it (util/base64.c: XML
 * whitespace skipped). */
static int is_base64(const xmlNode *el)
{
	xmlChar *t = xmlNodeGetContent(el);
	lab_buf out = LAB_BUF_INIT;
	lab_err err;
	int ok = t != NULL &&
		 lab_base64_decode((const char *)t, strlen((const char *)t),
				   &out, &err) == LAB_OK;

	lab_buf_free(&out);
	xmlFree(t);
	return ok;
}

/* An EncryptedKey of the Security header whose KeyInfo names its
 * recipient in a form other than a thumbprint or SKI KeyIdentifier
 * holding base64 (which a receiver without its certificate tries, as the
 * reference peer tries every key): domlab reads the name, skips a key
 * addressed to another certificate and refuses a form it does not read
 * or a value that is not base64; the reference peer puts its key in the
 * context and reads no name. */
static int recipient_named_otherwise(const diff_msg *m)
{
	xmlNodePtr ek, ki, str, kid;

	for (ek = first_el(m->security); ek != NULL; ek = next_el(ek)) {
		xmlChar *vt;
		int tried;

		if (!is_el(ek, WSS_NS_XENC, "EncryptedKey"))
			continue;
		for (ki = first_el(ek); ki != NULL &&
					!is_el(ki, WSS_NS_DS, "KeyInfo");
		     ki = next_el(ki))
			;
		if (ki == NULL)
			continue;
		str = first_el(ki);
		kid = is_el(str, WSS_NS_WSSE, "SecurityTokenReference") &&
			      next_el(str) == NULL
		      ? first_el(str)
		      : NULL;
		if (!is_el(kid, WSS_NS_WSSE, "KeyIdentifier") ||
		    next_el(kid) != NULL)
			return 1;
		vt = xmlGetNoNsProp(kid, X("ValueType"));
		tried = vt != NULL && (xmlStrEqual(vt, X(WSS_THUMBPRINT)) ||
				       xmlStrEqual(vt, X(WSS_SKI)));
		xmlFree(vt);
		if (!tried || !is_base64(kid))
			return 1;
	}
	return 0;
}

typedef struct diff_class {
	const char *name;
	int (*holds)(const diff_msg *m);
} diff_class;

/* SECURITY.md, "Where domlab is stricter than the reference peer". */
static const diff_class stricter[] = {
	{"signature_outside_profile", signature_outside_profile},
	{"token_not_the_trusted_one", token_not_the_trusted_one},
	{"duplicate_id_named", duplicate_id_named},
	{"signed_body_elsewhere", signed_body_elsewhere},
	{"encryption_outside_profile", encryption_outside_profile},
	{"recipient_named_otherwise", recipient_named_otherwise},
	{"dtd_in_message", dtd_in_message},
};

/* The first class of `stricter` the message falls in, or NULL. */
static const char *explained(const uint8_t *data, size_t size,
			     const wss_cert *trust)
{
	diff_msg m = {NULL, NULL, NULL, NULL, NULL, trust};
	const char *why = NULL;
	lab_err ignored;
	xmlNodePtr h = NULL, c;
	size_t i;

	if (lab_ref_parse((const char *)data, size, &m.doc, &ignored) !=
	    LAB_OK)
		return NULL;
	m.envelope = xmlDocGetRootElement(m.doc);
	for (c = first_el(m.envelope); c != NULL; c = next_el(c)) {
		if (is_el(c, WSS_NS_SOAP, "Header"))
			h = c;
		if (is_el(c, WSS_NS_SOAP, "Body"))
			m.body = c;
	}
	for (c = first_el(h); c != NULL; c = next_el(c))
		if (is_el(c, WSS_NS_WSSE, "Security"))
			m.security = c;
	for (c = first_el(m.security); c != NULL; c = next_el(c))
		if (is_el(c, WSS_NS_DS, "Signature"))
			m.signature = c;
	for (i = 0; i < sizeof stricter / sizeof stricter[0] && why == NULL;
	     i++)
		if (stricter[i].holds(&m))
			why = stricter[i].name;
	xmlFreeDoc(m.doc);
	return why;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const wss_key_paths paths = fuzz_receiver_paths();
	const wss_opts o = fuzz_opts();
	lab_err ours, theirs;
	void *handle = NULL;
	dom_doc *doc = NULL;
	wss_keyset ks;
	int a, b;

	a = fuzz_receive(data, size, &doc, &ours);
	/* Whether domlab's parser takes the input is the insitu target's
	 * comparison with libxml2, not this one's. */
	if (doc == NULL)
		return 0;
	dom_doc_free(doc);
	b = lab_ref_message(LAB_REF_RECEIVE, (const char *)data, size, &paths,
			    &o, NULL, &theirs);
	if ((a == LAB_OK) == (b == LAB_OK))
		return 0;
	if (wss_keys_acquire(&paths, &ks, &handle, &ours) != LAB_OK)
		abort(); /* the keys are fixed: not finding them is a setup error */
	if (a != LAB_OK && explained(data, size, ks.trust) != NULL) {
		wss_keys_release(handle);
		return 0;
	}
	fprintf(stderr,
		"receive_diff: domlab %s (%d: %s), reference %s (%d: %s)\n",
		a == LAB_OK ? "accepts" : "refuses", a,
		a == LAB_OK ? "" : ours.msg, b == LAB_OK ? "accepts" : "refuses",
		b, b == LAB_OK ? "" : theirs.msg);
	abort();
}
