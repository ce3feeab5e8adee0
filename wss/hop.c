/*
 * hop.c - the WS-Security intermediary: a hop that checks the Timestamp
 * and a Signature over header blocks, reads the WS-Addressing To and
 * passes the message on unchanged.  Everything it reads lies in the
 * Header; its references resolve there too, so the Body is never read,
 * built or indexed, and a Reference into it is left to the final
 * recipient.  Also the sender's half: the wsa:To it signs.
 * Not for: the end-to-end receiver (wss/pipeline.c), which checks every
 * Reference and requires the Body signed.
 */
#include "wss/hop.h"

#include <string.h>

#include "wss/dsig.h"
#include "wss/wsse.h"

/* The Header's one wsa:To; `code` when there is none or more. */
static int find_to(const wss_msg *m, int code, dom_node **out, lab_err *err)
{
	const char *wsa = dom_intern(m->doc, WSS_NS_WSA, strlen(WSS_NS_WSA));
	const char *local = dom_intern(m->doc, "To", 2);
	size_t count = 0;

	if (wsa == NULL || local == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	*out = m->header != NULL ? wss_child(m->header, wsa, local, &count)
				 : NULL;
	if (*out == NULL)
		return lab_fail(err, code, "the Header has %zu wsa:To", count);
	return LAB_OK;
}

int wss_hop_prepare(wss_msg *m, const wss_opts *o, lab_err *err)
{
	dom_node *to;
	int rc;

	m->headers_only = o->headers_only;
	if (o->headers_only && o->to == NULL)
		return lab_fail(err, LAB_EUSAGE,
				"signing header blocks only needs a wsa:To "
				"to sign (--to)");
	if (o->to == NULL)
		return LAB_OK;
	if (find_to(m, LAB_EMALFORMED, &to, err) == LAB_OK)
		return lab_fail(err, LAB_EMALFORMED,
				"the message already has a wsa:To");
	rc = wss_add(m->header, NULL, WSS_NS_WSA, "wsa:To", &to, err);
	if (rc == LAB_OK)
		rc = dom_ns_declare(to, "wsa", WSS_NS_WSA, err);
	if (rc == LAB_OK)
		rc = wss_add_text(to, o->to, strlen(o->to), err);
	m->sign_to = rc == LAB_OK ? to : NULL;
	return rc;
}

/* The element after n in document order, staying under top. */
static const dom_node *next_under(const dom_node *n, const dom_node *top)
{
	if (dom_first_child(n) != NULL)
		return dom_first_child(n);
	for (; n != top; n = dom_parent(n))
		if (dom_next_sibling(n) != NULL)
			return dom_next_sibling(n);
	return NULL;
}

/* 1 when el carries id in one of dom_get_by_id's ID attributes. */
static int has_id(const wss_msg *m, const dom_node *el, const char *ID,
		  const char *id)
{
	const char *v[3];
	size_t i;

	v[0] = dom_attr_value(el, m->n.wsu, m->n.Id);
	v[1] = dom_attr_value(el, NULL, m->n.Id);
	v[2] = dom_attr_value(el, NULL, ID);
	for (i = 0; i < 3; i++)
		if (v[i] != NULL && strcmp(v[i], id) == 0)
			return 1;
	return 0;
}

int wss_hop_resolve(const wss_msg *m, const char *uri, dom_node **out,
		    lab_err *err)
{
	const char *ID = dom_intern(m->doc, "ID", 2);
	const dom_node *n;
	size_t count = 0;

	*out = NULL;
	if (uri == NULL || uri[0] != '#' || uri[1] == '\0' ||
	    strchr(uri, '(') != NULL)
		return lab_fail(err, LAB_ESECURITY,
				"reference '%s' is not a same-document '#id'",
				uri != NULL ? uri : "(none)");
	if (ID == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	for (n = m->id_scope; n != NULL; n = next_under(n, m->id_scope)) {
		if (dom_node_type(n) != DOM_ELEMENT ||
		    !has_id(m, n, ID, uri + 1))
			continue;
		if (++count > 1)
			return lab_fail(err, LAB_ESECURITY,
					"ID '%s' is carried by more than one "
					"element of the Header",
					uri + 1);
		*out = (dom_node *)n;
	}
	return LAB_OK;
}

/*
 * WS-Addressing's message addressing properties are each at most once in
 * a message; the hop reads the wsa:To it finds by position, so a second
 * one anywhere in the Header (nested in another block, where an
 * application walking the tree may find it first) is refused, as is a
 * second of the others.  RelatesTo may repeat, and an endpoint
 * reference's Address does (ReplyTo, FaultTo), so they are not counted.
 */
static int one_of_each(const wss_msg *m, lab_err *err)
{
	static const char *const kinds[] = {"To",      "From",   "ReplyTo",
					    "FaultTo", "Action", "MessageID"};
	const char *wsa = dom_intern(m->doc, WSS_NS_WSA, strlen(WSS_NS_WSA));
	size_t count[sizeof kinds / sizeof kinds[0]] = {0}, i;
	const dom_node *n;

	if (wsa == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	for (n = m->header; n != NULL; n = next_under(n, m->header)) {
		if (dom_node_type(n) != DOM_ELEMENT || dom_ns_uri(n) != wsa)
			continue;
		for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
			if (strcmp(dom_local_name(n), kinds[i]) == 0 &&
			    ++count[i] > 1)
				return lab_fail(err, LAB_ESECURITY,
						"the Header has more than one "
						"wsa:%s (one in <%s>)",
						kinds[i],
						dom_local_name(dom_parent(n)));
	}
	return LAB_OK;
}

int wss_forward_doc(dom_doc *doc, const wss_cert *trust, const wss_opts *o,
		    lab_buf *to, lab_err *err)
{
	dom_node *ts = NULL, *block = NULL;
	size_t at = to->len;
	const char *got;
	wss_msg m;
	int rc;

	/* The wsa:To's text is read back from `to`. */
	if (lab_buf_need_plain(to, "wss_forward_doc", err) != LAB_OK)
		return LAB_EUSAGE;
	rc = wss_msg_open(doc, 0, LAB_ESECURITY, &m, err);
	m.caps = &o->caps;
	m.id_scope = m.header;
	if (rc == LAB_OK && m.header != NULL)
		rc = one_of_each(&m, err);
	if (rc == LAB_OK)
		rc = wss_timestamp_check(&m, o->now, &ts, err);
	if (rc == LAB_OK)
		rc = find_to(&m, LAB_ESECURITY, &block, err);
	if (rc == LAB_OK)
		rc = wss_dsig_verify_block(&m, trust, ts, block, err);
	if (rc == LAB_OK)
		rc = wss_text(block, to, err);
	got = to->data != NULL ? to->data + at : "";
	if (rc == LAB_OK && o->to != NULL && strcmp(got, o->to) != 0)
		rc = lab_fail(err, LAB_ESECURITY,
			      "the message is addressed to '%s', not '%s'",
			      got, o->to);
	return rc;
}
