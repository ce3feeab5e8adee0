/*
 * keyid.c - the recipient's name in an EncryptedKey (keyid.h): written
 * in the form the sender picks, matched in every form the X.509 Token
 * Profile gives.  The names are public, so matching them leaks nothing;
 * a wrong key that gets past them still fails as "decryption failed".
 */
#include "wss/keyid.h"

#include <stdio.h>
#include <string.h>

#include "wss/wsse.h"

int wss_key_id_from_name(const char *name, wss_key_id *out, lab_err *err)
{
	static const struct {
		const char *name;
		wss_key_id id;
	} names[] = {
		{"thumbprint", WSS_KEYID_THUMBPRINT},
		{"issuer-serial", WSS_KEYID_ISSUER_SERIAL},
		{"ski", WSS_KEYID_SKI},
		{"bst", WSS_KEYID_BST},
	};
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i].name) == 0) {
			*out = names[i].id;
			return LAB_OK;
		}
	return lab_fail(err, LAB_EUSAGE,
			"--key-id is thumbprint, issuer-serial, ski or bst");
}

/* ---- writing ---- */

static int thumbprint(const wss_cert *c, unsigned char out[WSS_SHA1_LEN],
		      lab_err *err)
{
	size_t len;
	const unsigned char *der = wss_cert_der(c, &len);

	return wss_sha1(der, len, out) == LAB_OK
		       ? LAB_OK
		       : lab_fail(err, LAB_ENOMEM, "digest failed");
}

static int add_key_identifier(dom_node *str, const char *value_type,
			      const void *p, size_t n, lab_err *err)
{
	dom_node *kid;
	int rc = wss_add(str, NULL, WSS_NS_WSSE, "wsse:KeyIdentifier", &kid,
			 err);

	if (rc == LAB_OK)
		rc = wss_set(kid, NULL, "EncodingType", WSS_BASE64, err);
	if (rc == LAB_OK)
		rc = wss_set(kid, NULL, "ValueType", value_type, err);
	return rc != LAB_OK ? rc : wss_add_b64(kid, p, n, err);
}

static int add_text_el(dom_node *parent, const char *qname,
		       const lab_buf *text, lab_err *err)
{
	dom_node *el;
	int rc = wss_add(parent, NULL, WSS_NS_DS, qname, &el, err);

	return rc != LAB_OK ? rc : wss_add_text(el, text->data, text->len, err);
}

static int add_issuer_serial(dom_node *str, const wss_cert *peer,
			     lab_err *err)
{
	lab_buf name = LAB_BUF_INIT, serial = LAB_BUF_INIT;
	dom_node *xd, *is;
	int rc = wss_cert_issuer(peer, &name, err);

	if (rc == LAB_OK)
		rc = wss_cert_serial(peer, &serial, err);
	if (rc == LAB_OK)
		rc = wss_add(str, NULL, WSS_NS_DS, "ds:X509Data", &xd, err);
	if (rc == LAB_OK)
		rc = wss_add(xd, NULL, WSS_NS_DS, "ds:X509IssuerSerial", &is,
			     err);
	if (rc == LAB_OK)
		rc = add_text_el(is, "ds:X509IssuerName", &name, err);
	if (rc == LAB_OK)
		rc = add_text_el(is, "ds:X509SerialNumber", &serial, err);
	lab_buf_free(&name);
	lab_buf_free(&serial);
	return rc;
}

/* A BinarySecurityToken holding peer, placed before ek, and ki's
 * reference to it. */
static int add_bst_ref(wss_msg *m, dom_node *ek, dom_node *ki,
		       const wss_cert *peer, lab_err *err)
{
	char id[WSS_ID_CAP];
	dom_node *bst;
	int rc = wss_bst_add(m, peer, id, sizeof id, err);

	if (rc != LAB_OK)
		return rc;
	bst = dom_last_child(m->security);
	dom_remove(bst);
	rc = dom_insert_before(m->security, bst, ek, err);
	return rc != LAB_OK ? rc : wss_add_token_ref(ki, id, WSS_X509V3, err);
}

static int add_ski(dom_node *str, const wss_cert *peer, lab_err *err)
{
	size_t len;
	const unsigned char *ski = wss_cert_ski(peer, &len);

	if (ski == NULL)
		return lab_fail(err, LAB_EUSAGE,
				"the recipient's certificate has no "
				"SubjectKeyIdentifier: --key-id ski cannot "
				"name it");
	return add_key_identifier(str, WSS_SKI, ski, len, err);
}

int wss_keyid_add(wss_msg *m, dom_node *ek, const wss_cert *peer,
		  wss_key_id id, lab_err *err)
{
	unsigned char thumb[WSS_SHA1_LEN];
	dom_node *ki, *str = NULL;
	int rc = wss_add(ek, NULL, WSS_NS_DS, "ds:KeyInfo", &ki, err);

	if (rc == LAB_OK)
		rc = dom_ns_declare(ki, "ds", WSS_NS_DS, err);
	if (rc == LAB_OK && id == WSS_KEYID_BST)
		return add_bst_ref(m, ek, ki, peer, err);
	if (rc == LAB_OK)
		rc = wss_add(ki, NULL, WSS_NS_WSSE,
			     "wsse:SecurityTokenReference", &str, err);
	if (rc == LAB_OK)
		rc = wss_bind(str, "wsse", WSS_NS_WSSE, err);
	if (rc != LAB_OK)
		return rc;
	if (id == WSS_KEYID_ISSUER_SERIAL)
		return add_issuer_serial(str, peer, err);
	if (id == WSS_KEYID_SKI)
		return add_ski(str, peer, err);
	rc = thumbprint(peer, thumb, err);
	return rc != LAB_OK ? rc
			    : add_key_identifier(str, WSS_THUMBPRINT, thumb,
						 sizeof thumb, err);
}

/* ---- matching ---- */

static int unread(lab_err *err, const char *what, const dom_node *el)
{
	return lab_fail(err, LAB_ESECURITY,
			"an EncryptedKey's KeyInfo names its recipient by %s "
			"<%s>, which this receiver does not read",
			what, el != NULL ? dom_local_name(el) : "(nothing)");
}

/* A certificate given by value names this receiver when it holds its
 * key. */
static wss_addressee addressee(const wss_cert *c, const wss_privkey *key)
{
	return wss_cert_has_key(c, key) ? WSS_FOR_ME : WSS_FOR_OTHER;
}

/* el's base64 text, a DER certificate, compared by key. */
static int match_cert(const dom_node *el, const wss_privkey *key,
		      const wss_cert *self, wss_addressee *out, lab_err *err)
{
	lab_buf der = LAB_BUF_INIT;
	wss_cert *c = NULL;
	int rc = wss_field_within(el, WSS_FIELD_CERT, "a certificate", err);

	if (rc != LAB_OK)
		return rc;
	rc = wss_b64_text(el, &der, err);

	if (rc == LAB_OK)
		rc = wss_cert_from_der_known((const unsigned char *)der.data,
					     der.len, self, &c, err);
	if (rc != LAB_OK && rc != LAB_ENOMEM)
		rc = lab_fail(err, LAB_ESECURITY,
			      "an EncryptedKey's KeyInfo holds no certificate");
	if (rc == LAB_OK)
		*out = addressee(c, key);
	wss_cert_free(c);
	lab_buf_free(&der);
	return rc;
}

/*
 * RFC 5280's bound on a serial number, checked on its decimal text
 * before any conversion: at most 49 digits (converting 2 million took
 * 8.6 s, quadratic), then at most 20 octets.
 */
static int serial_within(const lab_buf *serial, lab_err *err)
{
	size_t digits = serial->len, octets = 0;

	if (digits > WSS_FIELD_SERIAL_DIGITS)
		return lab_fail(err, LAB_ESECURITY,
				"X509SerialNumber has %zu digits: over the limit "
				"of %d (RFC 5280: at most %d octets)",
				digits, WSS_FIELD_SERIAL_DIGITS,
				WSS_FIELD_SERIAL_OCTETS);
	if (digits > 0 && wss_decimal_octets(serial->data, &octets) &&
	    octets > WSS_FIELD_SERIAL_OCTETS)
		return lab_fail(err, LAB_ESECURITY,
				"X509SerialNumber is %zu octets: over the limit "
				"of %d (RFC 5280)",
				octets, WSS_FIELD_SERIAL_OCTETS);
	return LAB_OK;
}

static int match_issuer_serial(const wss_msg *m, const dom_node *is,
			       const wss_cert *self, wss_addressee *out,
			       lab_err *err)
{
	lab_buf name = LAB_BUF_INIT, serial = LAB_BUF_INIT;
	size_t count;
	int match = 0;
	const dom_node *n = wss_child(is, m->n.ds, m->n.X509IssuerName, &count);
	const dom_node *s = wss_child(is, m->n.ds, m->n.X509SerialNumber,
				      &count);
	int rc = LAB_OK;

	if (n == NULL || s == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"X509IssuerSerial needs one X509IssuerName "
				"and one X509SerialNumber");
	rc = wss_field_within(n, WSS_FIELD_ISSUER, "an issuer name", err);
	if (rc == LAB_OK)
		rc = wss_field_within(s, WSS_FIELD_SERIAL_TEXT,
				      "a serial number: RFC 5280, at most 20 "
				      "octets", err);
	if (rc == LAB_OK)
		rc = wss_text(n, &name, err);
	if (rc == LAB_OK)
		rc = wss_text(s, &serial, err);
	if (rc == LAB_OK)
		rc = serial_within(&serial, err);
	if (rc != LAB_OK || self == NULL)
		goto out;
	if (name.data != NULL && serial.data != NULL)
		rc = wss_cert_issuer_serial_is(self, name.data, serial.data,
					       &match, err);
	if (rc == LAB_OK)
		*out = match ? WSS_FOR_ME : WSS_FOR_OTHER;
out:
	lab_buf_free(&name);
	lab_buf_free(&serial);
	return rc;
}

static int match_x509data(const wss_msg *m, const dom_node *xd,
			  const wss_privkey *key, const wss_cert *self,
			  wss_addressee *out, lab_err *err)
{
	const dom_node *c = wss_first_el(xd);

	if (c != NULL && wss_next_el(c) == NULL &&
	    dom_is(c, m->n.ds, m->n.X509IssuerSerial))
		return match_issuer_serial(m, c, self, out, err);
	if (c != NULL && wss_next_el(c) == NULL &&
	    dom_is(c, m->n.ds, m->n.X509Certificate))
		return match_cert(c, key, self, out, err);
	return unread(err, "X509Data holding", c);
}

/* A thumbprint or SKI KeyIdentifier against self's. */
static int match_digest(const dom_node *kid, int by_thumbprint,
			const wss_cert *self, wss_addressee *out, lab_err *err)
{
	unsigned char thumb[WSS_SHA1_LEN];
	lab_buf have = LAB_BUF_INIT;
	const unsigned char *mine;
	size_t len;
	int rc = wss_field_within(kid, WSS_FIELD_KEY_ID,
				  "a thumbprint or SubjectKeyIdentifier", err);

	if (rc == LAB_OK)
		rc = wss_b64_text(kid, &have, err);

	if (rc != LAB_OK || self == NULL)
		goto out;
	mine = by_thumbprint ? thumb : wss_cert_ski(self, &len);
	if (by_thumbprint) {
		rc = thumbprint(self, thumb, err);
		len = sizeof thumb;
	}
	if (rc == LAB_OK)
		*out = mine != NULL && have.len == len &&
				       memcmp(have.data, mine, len) == 0
			       ? WSS_FOR_ME
			       : WSS_FOR_OTHER;
out:
	lab_buf_free(&have);
	return rc;
}

/* A Reference to a BinarySecurityToken of the Security header. */
static int match_bst(const wss_msg *m, const dom_node *ref,
		     const wss_privkey *key, const wss_cert *self,
		     wss_addressee *out, lab_err *err)
{
	wss_cert *cert = NULL;
	dom_node *bst;
	int rc = wss_resolve(m->doc, dom_attr_value(ref, NULL, m->n.URI), &bst,
			     err);

	if (rc == LAB_OK)
		rc = wss_bst_cert(m, bst, self, &cert, err);
	if (rc == LAB_OK)
		*out = addressee(cert, key);
	wss_cert_free(cert);
	return rc;
}

static int match_str(const wss_msg *m, const dom_node *str,
		     const wss_privkey *key, const wss_cert *self,
		     wss_addressee *out, lab_err *err)
{
	const dom_node *c = wss_first_el(str);
	const char *vt = c != NULL ? dom_attr_value(c, NULL, m->n.ValueType)
				   : NULL;

	if (c == NULL || wss_next_el(c) != NULL)
		return unread(err, "a SecurityTokenReference holding", c);
	if (dom_is(c, m->n.ds, m->n.X509Data))
		return match_x509data(m, c, key, self, out, err);
	if (dom_is(c, m->n.wsse, m->n.Reference))
		return match_bst(m, c, key, self, out, err);
	if (!dom_is(c, m->n.wsse, m->n.KeyIdentifier) || vt == NULL)
		return unread(err, "a SecurityTokenReference holding", c);
	if (strcmp(vt, WSS_X509V3) == 0)
		return match_cert(c, key, self, out, err);
	if (strcmp(vt, WSS_THUMBPRINT) == 0 || strcmp(vt, WSS_SKI) == 0)
		return match_digest(c, strcmp(vt, WSS_THUMBPRINT) == 0, self,
				    out, err);
	return lab_fail(err, LAB_ESECURITY,
			"an EncryptedKey's KeyIdentifier ValueType '%.100s' "
			"is not read by this receiver",
			vt);
}

int wss_keyid_match(const wss_msg *m, const dom_node *ek,
		    const wss_privkey *key, const wss_cert *self,
		    wss_addressee *out, lab_err *err)
{
	size_t count;
	const dom_node *ki = wss_child(ek, m->n.ds, m->n.KeyInfo, &count);
	const dom_node *c = ki != NULL ? wss_first_el(ki) : NULL;

	*out = WSS_FOR_UNKNOWN;
	if (count > 1)
		return lab_fail(err, LAB_ESECURITY,
				"an EncryptedKey has %zu KeyInfo", count);
	if (ki == NULL)
		return LAB_OK;
	if (c == NULL || wss_next_el(c) != NULL)
		return unread(err, "a KeyInfo holding", c);
	if (dom_is(c, m->n.wsse, m->n.SecurityTokenReference))
		return match_str(m, c, key, self, out, err);
	if (dom_is(c, m->n.ds, m->n.X509Data))
		return match_x509data(m, c, key, self, out, err);
	return unread(err, "a KeyInfo holding", c);
}
