/*
 * msg.c - locating the parts of a SOAP envelope, and the tree helpers
 * the stages share.  Strictness lives here: one Body, one Header, one
 * Security header, the Body a child of the Envelope -- what the receive
 * path's wrapping defences rely on.
 */
#include "wss/msg.h"

#include <stdio.h>
#include <string.h>

#include "util/base64.h"

dom_node *wss_first_el(const dom_node *parent)
{
	dom_node *c = dom_first_child(parent);

	while (c != NULL && dom_node_type(c) != DOM_ELEMENT)
		c = dom_next_sibling(c);
	return c;
}

dom_node *wss_next_el(const dom_node *n)
{
	dom_node *c = dom_next_sibling(n);

	while (c != NULL && dom_node_type(c) != DOM_ELEMENT)
		c = dom_next_sibling(c);
	return c;
}

dom_node *wss_child(const dom_node *parent, const char *ns, const char *local,
		    size_t *count)
{
	dom_node *c, *found = NULL;

	*count = 0;
	for (c = wss_first_el(parent); c != NULL; c = wss_next_el(c)) {
		if (!dom_is(c, ns, local))
			continue;
		if (++*count == 1)
			found = c;
	}
	return *count == 1 ? found : NULL;
}

int wss_add(dom_node *parent, dom_node *ref, const char *ns,
	    const char *qname, dom_node **out, lab_err *err)
{
	int rc = dom_create_element(dom_node_doc(parent), ns, qname, out, err);

	if (rc == LAB_OK)
		rc = dom_insert_before(parent, *out, ref, err);
	return rc;
}

int wss_add_text(dom_node *parent, const char *s, size_t n, lab_err *err)
{
	dom_node *t;
	int rc = dom_create_text(dom_node_doc(parent), s, n, &t, err);

	if (rc == LAB_OK)
		rc = dom_append(parent, t, err);
	return rc;
}

int wss_set(dom_node *el, const char *ns, const char *qname,
	    const char *value, lab_err *err)
{
	return dom_attr_set(el, ns, qname, value, strlen(value), err);
}

int wss_add_alg(dom_node *parent, const char *ns, const char *qname,
		const char *alg, dom_node **out, lab_err *err)
{
	dom_node *el;
	int rc = wss_add(parent, NULL, ns, qname, &el, err);

	if (rc == LAB_OK)
		rc = wss_set(el, NULL, "Algorithm", alg, err);
	if (out != NULL)
		*out = el;
	return rc;
}

/* Encoded by the DOM straight into the text node's own storage (a
 * CipherValue is the largest text of a message, not worth a second
 * copy), which output then takes as it stands. */
int wss_add_b64(dom_node *el, const void *p, size_t n, lab_err *err)
{
	dom_node *t;
	dom_b64 w;
	int rc;

	rc = dom_create_text_b64(dom_node_doc(el), n, &w, &t, err);
	if (rc == LAB_OK && dom_b64_put(&w, p, n) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK)
		rc = dom_b64_end(&w, err);
	if (rc == LAB_OK)
		rc = dom_append(el, t, err);
	if (rc != LAB_OK && t != NULL)
		dom_node_free(t);
	return rc;
}

/* The text of an element holding one text or CDATA node -- every
 * base64 element in practice -- read in place, without a copy. */
static const char *only_text(const dom_node *el, size_t *len)
{
	const dom_node *c = dom_first_child(el);

	if (c == NULL || dom_next_sibling(c) != NULL ||
	    (dom_node_type(c) != DOM_TEXT && dom_node_type(c) != DOM_CDATA))
		return NULL;
	return dom_value(c, len);
}

int wss_b64_text(const dom_node *el, lab_buf *out, lab_err *err)
{
	lab_buf text = LAB_BUF_INIT;
	size_t len = 0;
	const char *s = only_text(el, &len);
	int rc = LAB_OK;

	/* The decoder skips XML whitespace itself: no trimming needed. */
	if (s == NULL && dom_text_content(el, &text) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	else if (s != NULL)
		rc = lab_base64_decode(s, len, out, err);
	else
		rc = lab_base64_decode(text.data != NULL ? text.data : "",
				       text.len, out, err);
	if (rc == LAB_EMALFORMED)
		rc = lab_fail(err, LAB_ESECURITY, "<%s> is not base64",
			      dom_local_name(el));
	lab_buf_free(&text);
	return rc;
}

int wss_new_id(dom_doc *doc, const char *base, char *out, size_t cap,
	       lab_err *err)
{
	unsigned i;

	for (i = 1; i < 1000000; i++) {
		size_t count;

		if ((size_t)snprintf(out, cap, "%s-%u", base, i) >= cap)
			break;
		if (dom_get_by_id(doc, out, &count) == NULL && count == 0)
			return LAB_OK;
	}
	return lab_fail(err, LAB_EUSAGE, "no free ID for '%s'", base);
}

int wss_draw_ids(wss_msg *m, const char *const *bases, size_t n,
		 lab_err *err)
{
	size_t i, j;
	int rc = LAB_OK;

	for (i = 0; i < n && rc == LAB_OK; i++) {
		for (j = 0; j < m->ndrawn; j++)
			if (m->drawn[j].base != NULL &&
			    strcmp(m->drawn[j].base, bases[i]) == 0)
				break;
		if (j < m->ndrawn)
			continue;
		if (strchr(bases[i], '-') != NULL)
			return lab_fail(err, LAB_EUSAGE,
					"cannot draw an ID for '%s' ahead",
					bases[i]);
		/* Full: that base's ID is found when it is taken instead. */
		if (m->ndrawn == WSS_DRAWN_MAX)
			continue;
		rc = wss_new_id(m->doc, bases[i], m->drawn[m->ndrawn].id,
				sizeof m->drawn[m->ndrawn].id, err);
		if (rc == LAB_OK)
			m->drawn[m->ndrawn++].base = bases[i];
	}
	return rc;
}

int wss_msg_new_id(wss_msg *m, const char *base, char *out, size_t cap,
		   lab_err *err)
{
	size_t i;

	for (i = 0; i < m->ndrawn; i++) {
		if (m->drawn[i].base == NULL ||
		    strcmp(m->drawn[i].base, base) != 0)
			continue;
		if (strlen(m->drawn[i].id) >= cap)
			break;
		memcpy(out, m->drawn[i].id, strlen(m->drawn[i].id) + 1);
		m->drawn[i].base = NULL;
		return LAB_OK;
	}
	return wss_new_id(m->doc, base, out, cap, err);
}

int wss_resolve(dom_doc *doc, const char *uri, dom_node **out, lab_err *err)
{
	size_t count;

	*out = NULL;
	if (uri == NULL || uri[0] != '#' || uri[1] == '\0' ||
	    strchr(uri, '(') != NULL)
		return lab_fail(err, LAB_ESECURITY,
				"reference '%s' is not a same-document '#id'",
				uri != NULL ? uri : "(none)");
	*out = dom_get_by_id(doc, uri + 1, &count);
	if (count > 1)
		return lab_fail(err, LAB_ESECURITY,
				"ID '%s' is carried by %zu elements", uri + 1,
				count);
	if (*out == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"reference '%s' resolves to nothing", uri);
	return LAB_OK;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int wss_text(const dom_node *el, lab_buf *out, lab_err *err)
{
	size_t start = out->len;
	char *p;
	size_t n;

	/* It trims what it appended: read back, moved, rewound. */
	if (lab_buf_need_plain(out, "wss_text", err) != LAB_OK)
		return LAB_EUSAGE;
	if (dom_text_content(el, out) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	p = out->data != NULL ? out->data + start : NULL;
	n = out->len - start;
	while (n > 0 && is_space(p[n - 1]))
		n--;
	while (n > 0 && is_space(*p)) {
		p++;
		n--;
	}
	if (n > 0)
		memmove(out->data + start, p, n);
	out->len = start + n;
	if (out->data != NULL)
		out->data[out->len] = '\0';
	return LAB_OK;
}

/* The Header, placed first in the Envelope as SOAP requires. */
static int make_header(wss_msg *m, lab_err *err)
{
	const char *prefix = dom_prefix(m->envelope);
	char qname[64];

	snprintf(qname, sizeof qname, "%s%sHeader", prefix ? prefix : "",
		 prefix ? ":" : "");
	return wss_add(m->envelope, m->body, m->n.soap, qname, &m->header,
		       err);
}

static int make_security(wss_msg *m, lab_err *err)
{
	const char *soap_prefix = dom_prefix(m->envelope);
	char qname[64];
	int rc;

	rc = wss_add(m->header, wss_first_el(m->header), WSS_NS_WSSE,
		     "wsse:Security", &m->security, err);
	if (rc == LAB_OK)
		rc = dom_ns_declare(m->security, "wsse", WSS_NS_WSSE, err);
	if (rc != LAB_OK)
		return rc;
	/* mustUnderstand in the envelope's own namespace and prefix. */
	snprintf(qname, sizeof qname, "%s%smustUnderstand",
		 soap_prefix ? soap_prefix : "soap", ":");
	if (soap_prefix == NULL)
		rc = dom_ns_declare(m->security, "soap", m->n.soap, err);
	if (rc == LAB_OK)
		rc = wss_set(m->security, m->n.soap, qname, "1", err);
	return rc;
}

int wss_msg_content_room(wss_msg *m, lab_buf *content, lab_err *err)
{
	if (lab_buf_reserve_exact(content, WSS_IV_ROOM +
						   dom_doc_source_len(m->doc) +
						   WSS_TAIL_ROOM) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	content->len = WSS_IV_ROOM;
	m->content = content;
	m->content_at = WSS_IV_ROOM;
	return LAB_OK;
}

int wss_msg_open(dom_doc *doc, int create, int code, wss_msg *m,
		 lab_err *err)
{
	const wss_names *n = &m->n;
	dom_node *c;
	size_t count;
	int rc;

	memset(m, 0, sizeof *m);
	m->doc = doc;
	rc = wss_names_init(doc, &m->n, err);
	if (rc != LAB_OK)
		return rc;
	/* SOAP 1.1 (section 3) and 1.2 (part 1, 5): a message has no DTD;
	 * the insitu parser refuses one, libxml2's reads it: refused here,
	 * as malformed, on every path and variant alike. */
	if (dom_doc_has_dtd(doc))
		return lab_fail(err, LAB_EMALFORMED,
				"a SOAP message may not have a DTD (document "
				"type declaration)");
	m->envelope = dom_doc_element(doc);
	if (m->envelope != NULL && dom_is(m->envelope, n->soap12, n->Envelope))
		m->n.soap = n->soap12;
	if (m->envelope == NULL || !dom_is(m->envelope, n->soap, n->Envelope))
		return lab_fail(err, LAB_EMALFORMED,
				"not a SOAP 1.1 or 1.2 envelope");
	m->body = wss_child(m->envelope, n->soap, n->Body, &count);
	if (m->body == NULL)
		return lab_fail(err, code, "envelope has %zu soap:Body", count);
	m->header = wss_child(m->envelope, n->soap, n->Header, &count);
	if (count > 1)
		return lab_fail(err, code, "envelope has %zu soap:Header",
				count);
	for (c = wss_first_el(m->envelope); c != NULL; c = wss_next_el(c))
		if (c != m->header && c != m->body)
			return lab_fail(err, code,
					"envelope holds an element other than "
					"Header and Body");
	if (m->header != NULL && wss_first_el(m->envelope) != m->header)
		return lab_fail(err, code, "soap:Header must come first");
	if (m->header == NULL && create) {
		rc = make_header(m, err);
		if (rc != LAB_OK)
			return rc;
	}
	if (m->header != NULL) {
		m->security = wss_child(m->header, n->wsse, n->Security, &count);
		if (count > 1)
			return lab_fail(err, code,
					"%zu wsse:Security headers", count);
	}
	if (m->security == NULL && create)
		return make_security(m, err);
	return LAB_OK;
}

int wss_msg_key_token(dom_doc *doc, lab_buf *wrapped,
		      unsigned char id[WSS_SHA1_LEN], lab_err *err)
{
	const dom_node *ek, *cd, *cv = NULL;
	size_t count, at = wrapped->len;
	wss_msg m;
	int rc = wss_msg_open(doc, 0, LAB_ESECURITY, &m, err);

	if (rc != LAB_OK)
		return rc;
	count = 0;
	ek = m.security != NULL ? wss_child(m.security, m.n.xenc,
					    m.n.EncryptedKey, &count)
				: NULL;
	if (ek == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"the message has %zu EncryptedKeys: a token "
				"store keeps the one key a request is sent "
				"under",
				count);
	cd = wss_child(ek, m.n.xenc, m.n.CipherData, &count);
	if (cd != NULL)
		cv = wss_child(cd, m.n.xenc, m.n.CipherValue, &count);
	if (cv == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"the EncryptedKey has no CipherData/"
				"CipherValue");
	rc = wss_b64_text(cv, wrapped, err);
	if (rc == LAB_OK &&
	    wss_sha1(wrapped->data + at, wrapped->len - at, id) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "digest failed");
	return rc;
}
