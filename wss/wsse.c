/*
 * wsse.c - Timestamp, BinarySecurityToken and wsu:Id handling.  Times are
 * UTC only: a Timestamp with an offset or without a zone is refused
 * rather than guessed at.
 */
#include "wss/wsse.h"

#include <stdio.h>
#include <string.h>


int wss_bind(dom_node *el, const char *prefix, const char *uri, lab_err *err)
{
	dom_doc *doc = dom_node_doc(el);
	const char *ip = dom_intern(doc, prefix, strlen(prefix));
	const char *bound, *own = NULL;
	const dom_nsdecl *d;
	size_t n, i;

	if (ip == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	bound = dom_ns_lookup(el, ip);
	if (bound != NULL && strcmp(bound, uri) == 0)
		return LAB_OK;
	d = dom_ns_decls(el, &n);
	for (i = 0; i < n; i++)
		if (d[i].prefix == ip)
			own = d[i].uri;
	if (own != NULL)
		return lab_fail(err, LAB_EMALFORMED,
				"prefix '%s' is already bound to '%s'", prefix,
				own);
	return dom_ns_declare(el, prefix, uri, err);
}

int wss_ensure_id(wss_msg *m, dom_node *el, const char *base, char *id,
		  size_t cap, lab_err *err)
{
	const char *have = dom_attr_value(el, m->n.wsu, m->n.Id);
	int rc;

	if (have != NULL) {
		if (strlen(have) >= cap)
			return lab_fail(err, LAB_EMALFORMED, "wsu:Id too long");
		memcpy(id, have, strlen(have) + 1);
		return LAB_OK;
	}
	rc = wss_msg_new_id(m, base, id, cap, err);
	if (rc == LAB_OK)
		rc = wss_bind(el, "wsu", WSS_NS_WSU, err);
	if (rc == LAB_OK)
		rc = wss_set(el, WSS_NS_WSU, "wsu:Id", id, err);
	return rc;
}

void wss_time_format(time_t t, char out[32])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int wss_time_parse(const char *s, time_t *out)
{
	struct tm tm;
	const char *p;

	memset(&tm, 0, sizeof tm);
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p == NULL)
		return -1;
	if (*p == '.') {
		/* Fractions of a second do not change the verdict. */
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	}
	if (strcmp(p, "Z") != 0)
		return -1;
	*out = timegm(&tm);
	return 0;
}

static int add_time(dom_node *ts, const char *qname, time_t t, lab_err *err)
{
	char text[32];
	dom_node *el;
	int rc = wss_add(ts, NULL, WSS_NS_WSU, qname, &el, err);

	wss_time_format(t, text);
	if (rc == LAB_OK)
		rc = wss_add_text(el, text, strlen(text), err);
	return rc;
}

int wss_timestamp_add(wss_msg *m, time_t now, unsigned ttl, dom_node **out,
		      lab_err *err)
{
	int rc;

	rc = wss_add(m->security, NULL, WSS_NS_WSU, "wsu:Timestamp", out, err);
	if (rc == LAB_OK)
		rc = wss_bind(*out, "wsu", WSS_NS_WSU, err);
	if (rc == LAB_OK) {
		char id[32];

		rc = wss_ensure_id(m, *out, "TS", id, sizeof id, err);
	}
	if (rc == LAB_OK)
		rc = add_time(*out, "wsu:Created", now, err);
	if (rc == LAB_OK)
		rc = add_time(*out, "wsu:Expires", now + (time_t)ttl, err);
	return rc;
}

int wss_timestamp_time(const char *text, size_t count, const char *local,
		       time_t *out, lab_err *err)
{
	if (count != 1)
		return lab_fail(err, LAB_ESECURITY,
				"Timestamp has %zu %s elements", count, local);
	if (text == NULL || wss_time_parse(text, out) != 0)
		return lab_fail(err, LAB_ESECURITY,
				"Timestamp %s is not a UTC dateTime", local);
	return LAB_OK;
}

int wss_timestamp_window(time_t created, time_t expires, time_t now,
			 lab_err *err)
{
	if (now >= expires)
		return lab_fail(err, LAB_ESECURITY,
				"message expired %lld s ago",
				(long long)(now - expires));
	if (created > now + WSS_CLOCK_SKEW)
		return lab_fail(err, LAB_ESECURITY,
				"message is created %lld s in the future",
				(long long)(created - now));
	return LAB_OK;
}

/* The time in the one child element (ns, local) of ts. */
static int read_time(const dom_node *ts, const char *ns, const char *local,
		     time_t *out, lab_err *err)
{
	lab_buf text = LAB_BUF_INIT;
	size_t count;
	const dom_node *el = wss_child(ts, ns, local, &count);
	int rc = el != NULL ? wss_text(el, &text, err) : LAB_OK;

	if (rc == LAB_OK)
		rc = wss_timestamp_time(text.data, el != NULL ? 1 : count,
					local, out, err);
	lab_buf_free(&text);
	return rc;
}

int wss_timestamp_check(wss_msg *m, time_t now, dom_node **out, lab_err *err)
{
	time_t created, expires;
	size_t count;
	int rc;

	*out = NULL;
	if (m->security == NULL)
		return lab_fail(err, LAB_ESECURITY, "no wsse:Security header");
	*out = wss_child(m->security, m->n.wsu, m->n.Timestamp, &count);
	if (*out == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"Security header has %zu Timestamps", count);
	rc = read_time(*out, m->n.wsu, m->n.Created, &created, err);
	if (rc == LAB_OK)
		rc = read_time(*out, m->n.wsu, m->n.Expires, &expires, err);
	return rc == LAB_OK ? wss_timestamp_window(created, expires, now, err)
			    : rc;
}

int wss_bst_add(wss_msg *m, const wss_cert *cert, char *id, size_t cap,
		lab_err *err)
{
	const unsigned char *der;
	dom_node *bst;
	size_t len;
	int rc;

	der = wss_cert_der(cert, &len);
	rc = wss_add(m->security, NULL, WSS_NS_WSSE,
		     "wsse:BinarySecurityToken", &bst, err);
	if (rc == LAB_OK)
		rc = wss_bind(bst, "wsse", WSS_NS_WSSE, err);
	if (rc == LAB_OK)
		rc = wss_set(bst, NULL, "EncodingType", WSS_BASE64, err);
	if (rc == LAB_OK)
		rc = wss_set(bst, NULL, "ValueType", WSS_X509V3, err);
	if (rc == LAB_OK)
		rc = wss_ensure_id(m, bst, "X509", id, cap, err);
	if (rc == LAB_OK)
		rc = wss_add_b64(bst, der, len, err);
	return rc;
}

int wss_add_token_ref(dom_node *ki, const char *id, const char *value_type,
		      lab_err *err)
{
	dom_node *str, *ref;
	char uri[80];
	int rc;

	snprintf(uri, sizeof uri, "#%s", id);
	rc = wss_add(ki, NULL, WSS_NS_WSSE, "wsse:SecurityTokenReference",
		     &str, err);
	if (rc == LAB_OK)
		rc = wss_bind(str, "wsse", WSS_NS_WSSE, err);
	if (rc == LAB_OK)
		rc = wss_add(str, NULL, WSS_NS_WSSE, "wsse:Reference", &ref, err);
	if (rc == LAB_OK)
		rc = wss_set(ref, NULL, "URI", uri, err);
	if (rc == LAB_OK)
		rc = wss_set(ref, NULL, "ValueType", value_type, err);
	return rc;
}

int wss_bst_cert(const wss_msg *m, const dom_node *bst, const wss_cert *known,
		 wss_cert **out, lab_err *err)
{
	lab_buf der = LAB_BUF_INIT;
	const char *vt, *et;
	int rc;

	*out = NULL;
	if (!dom_is(bst, m->n.wsse, m->n.BinarySecurityToken) ||
	    dom_parent(bst) != m->security)
		return lab_fail(err, LAB_ESECURITY,
				"key reference does not name a "
				"BinarySecurityToken of the Security header");
	vt = dom_attr_value(bst, NULL, m->n.ValueType);
	et = dom_attr_value(bst, NULL, m->n.EncodingType);
	if (vt == NULL || strcmp(vt, WSS_X509V3) != 0 ||
	    (et != NULL && strcmp(et, WSS_BASE64) != 0))
		return lab_fail(err, LAB_ESECURITY,
				"BinarySecurityToken is not an X509v3 "
				"certificate in Base64Binary");
	rc = wss_field_within(bst, WSS_FIELD_CERT, "a certificate", err);
	if (rc == LAB_OK)
		rc = wss_b64_text(bst, &der, err);
	if (rc == LAB_OK)
		rc = wss_cert_from_der_known((const unsigned char *)der.data,
					     der.len, known, out, err);
	if (rc != LAB_OK && rc != LAB_ENOMEM) {
		char why[sizeof err->msg];

		snprintf(why, sizeof why, "%s", err->msg);
		rc = lab_fail(err, LAB_ESECURITY,
			      "BinarySecurityToken holds no certificate: %s",
			      why);
	}
	lab_buf_free(&der);
	return rc;
}
