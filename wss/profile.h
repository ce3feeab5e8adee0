/*
 * profile.h - the names of the WS-Security profile (docs/design.md: Timestamp,
 * Signature, Encrypt): namespace URIs, algorithm URIs, and the element and
 * attribute names the pipeline reads, interned once per document so every
 * test in the hot path is a pointer compare.
 */
#ifndef WSS_PROFILE_H
#define WSS_PROFILE_H

#include "dom/dom.h"

#define WSS_NS_SOAP "http://schemas.xmlsoap.org/soap/envelope/"
#define WSS_NS_SOAP12 "http://www.w3.org/2003/05/soap-envelope"
#define WSS_NS_WSSE \
	"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
#define WSS_NS_WSSE11 \
	"http://docs.oasis-open.org/wss/oasis-wss-wssecurity-secext-1.1.xsd"
#define WSS_NS_WSU \
	"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
#define WSS_NS_DS "http://www.w3.org/2000/09/xmldsig#"
#define WSS_NS_XENC "http://www.w3.org/2001/04/xmlenc#"
#define WSS_NS_EXC_C14N "http://www.w3.org/2001/10/xml-exc-c14n#"

#define WSS_ALG_EXC_C14N "http://www.w3.org/2001/10/xml-exc-c14n#"
#define WSS_ALG_RSA_SHA256 "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
#define WSS_ALG_SHA256 "http://www.w3.org/2001/04/xmlenc#sha256"
#define WSS_ALG_SHA1 "http://www.w3.org/2000/09/xmldsig#sha1"
#define WSS_ALG_RSA_OAEP "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"
#define WSS_TYPE_CONTENT "http://www.w3.org/2001/04/xmlenc#Content"
#define WSS_TYPE_ELEMENT "http://www.w3.org/2001/04/xmlenc#Element"

#define WSS_X509V3 \
	"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"
#define WSS_BASE64 \
	"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"
#define WSS_THUMBPRINT \
	"http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#ThumbprintSHA1"
#define WSS_SKI \
	"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509SubjectKeyIdentifier"
#define WSS_EK_TOKEN \
	"http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#EncryptedKey"

/* Interned in one document; NULL never (interning failure fails init).
 * soap is the envelope's namespace, SOAP 1.1's until wss_msg_open finds
 * a SOAP 1.2 envelope (soap11 and soap12 are both versions'). */
typedef struct wss_names {
	const char *soap, *soap11, *soap12, *wsse, *wsse11, *wsu, *ds, *xenc,
		*exc;
	const char *Envelope, *Header, *Body, *Security, *Timestamp, *Created,
		*Expires, *BinarySecurityToken, *SecurityTokenReference,
		*Reference, *KeyIdentifier, *Signature, *SignedInfo,
		*CanonicalizationMethod, *SignatureMethod, *Transforms,
		*Transform, *DigestMethod, *DigestValue, *SignatureValue,
		*KeyInfo, *InclusiveNamespaces, *EncryptedKey, *EncryptedData,
		*EncryptionMethod, *CipherData, *CipherValue, *ReferenceList,
		*DataReference, *EncryptionProperties, *CarriedKeyName,
		*X509Data, *X509IssuerSerial, *X509IssuerName,
		*X509SerialNumber, *X509Certificate, *EncryptedHeader;
	const char *Id, *URI, *Algorithm, *PrefixList, *ValueType,
		*EncodingType, *Type, *actor;
} wss_names;

int wss_names_init(dom_doc *doc, wss_names *n, lab_err *err);

#endif
