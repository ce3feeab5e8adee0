/*
 * profile.c - interns the profile's names in a document.  Done once per
 * message; what it costs is a few dozen hash probes.
 */
#include "wss/profile.h"

#include <stddef.h>
#include <string.h>

static const struct {
	size_t offset;
	const char *text;
} table[] = {
#define N(field, text) {offsetof(wss_names, field), text}
	N(soap, WSS_NS_SOAP), N(soap11, WSS_NS_SOAP),
	N(soap12, WSS_NS_SOAP12), N(wsse, WSS_NS_WSSE), N(wsse11, WSS_NS_WSSE11),
	N(wsu, WSS_NS_WSU),
	N(ds, WSS_NS_DS), N(xenc, WSS_NS_XENC), N(exc, WSS_NS_EXC_C14N),
	N(Envelope, "Envelope"), N(Header, "Header"), N(Body, "Body"),
	N(Security, "Security"), N(Timestamp, "Timestamp"),
	N(Created, "Created"), N(Expires, "Expires"),
	N(BinarySecurityToken, "BinarySecurityToken"),
	N(SecurityTokenReference, "SecurityTokenReference"),
	N(Reference, "Reference"), N(KeyIdentifier, "KeyIdentifier"),
	N(Signature, "Signature"), N(SignedInfo, "SignedInfo"),
	N(CanonicalizationMethod, "CanonicalizationMethod"),
	N(SignatureMethod, "SignatureMethod"), N(Transforms, "Transforms"),
	N(Transform, "Transform"), N(DigestMethod, "DigestMethod"),
	N(DigestValue, "DigestValue"), N(SignatureValue, "SignatureValue"),
	N(KeyInfo, "KeyInfo"), N(InclusiveNamespaces, "InclusiveNamespaces"),
	N(EncryptedKey, "EncryptedKey"), N(EncryptedData, "EncryptedData"),
	N(EncryptionMethod, "EncryptionMethod"), N(CipherData, "CipherData"),
	N(CipherValue, "CipherValue"), N(ReferenceList, "ReferenceList"),
	N(DataReference, "DataReference"),
	N(EncryptionProperties, "EncryptionProperties"),
	N(CarriedKeyName, "CarriedKeyName"), N(X509Data, "X509Data"),
	N(X509IssuerSerial, "X509IssuerSerial"),
	N(X509IssuerName, "X509IssuerName"),
	N(X509SerialNumber, "X509SerialNumber"),
	N(X509Certificate, "X509Certificate"),
	N(EncryptedHeader, "EncryptedHeader"), N(Id, "Id"), N(URI, "URI"),
	N(Algorithm, "Algorithm"), N(PrefixList, "PrefixList"),
	N(ValueType, "ValueType"), N(EncodingType, "EncodingType"),
	N(Type, "Type"), N(actor, "actor"),
#undef N
};

int wss_names_init(dom_doc *doc, wss_names *n, lab_err *err)
{
	size_t i;

	for (i = 0; i < sizeof table / sizeof table[0]; i++) {
		const char *s = dom_intern(doc, table[i].text,
					   strlen(table[i].text));

		if (s == NULL)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
		*(const char **)(void *)((char *)n + table[i].offset) = s;
	}
	return LAB_OK;
}
