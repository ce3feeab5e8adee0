/*
 * caps.h - bounds on the work a message makes its receiver do before the
 * signature is checked (pre-authentication work): how many EncryptedKeys,
 * DataReferences, References and Transforms it may carry and how large
 * its SignedInfo may be.  Each is counted or measured before the work it
 * bounds (decryption, canonicalization) and refused with LAB_ESECURITY
 * and a message that names the limit and its flag.
 *
 * Defaults follow Apache Santuario's secure validation (30 References per
 * SignedInfo, 5 Transforms per Reference) and its streaming configuration
 * that WSS4J includes (MaximumAllowedEncryptedDataEvents, 200 EncryptedData
 * per message); see SECURITY.md.
 * Not for: the parser's limits (dom_limits), which every command shares.
 */
#ifndef WSS_CAPS_H
#define WSS_CAPS_H

#include <stddef.h>

#include "dom/dom.h"

typedef enum wss_cap_kind {
	WSS_CAP_ENCRYPTED_KEYS,  /* EncryptedKeys in the Security header */
	WSS_CAP_DATA_REFS,       /* DataReferences in one ReferenceList */
	WSS_CAP_DATA_REFS_TOTAL, /* DataReferences in the whole header */
	WSS_CAP_REFERENCES,      /* References in SignedInfo */
	WSS_CAP_TRANSFORMS,      /* Transforms in one Reference */
	WSS_CAP_SIGNEDINFO,      /* bytes of SignedInfo (wss_cap_size) */
	WSS_NCAPS
} wss_cap_kind;

/* The caps of one run; a zero entry takes the default. */
typedef struct wss_caps {
	size_t max[WSS_NCAPS];
} wss_caps;

/* The cap in force (caps may be NULL: every default). */
size_t wss_cap(const wss_caps *caps, wss_cap_kind k);

/* The command-line flag that sets k ("--max-references"). */
const char *wss_cap_flag(wss_cap_kind k);

/* The kind a flag sets, or WSS_NCAPS when it sets none. */
wss_cap_kind wss_cap_by_flag(const char *flag);

/* LAB_ESECURITY: "more than N <what>: over the limit of N (--flag)". */
int wss_cap_refuse(const wss_caps *caps, wss_cap_kind k, lab_err *err);

/*
 * Fixed bounds on one field a receiver reads before the signature is
 * checked, in characters as written (base64 may carry line breaks):
 * each is several times what a real message holds, so only a hostile
 * one reaches it.  (A DigestValue is read only once the SignatureValue
 * over it verified, and SignedInfo's size is capped before.)
 */
enum {
	/* RFC 5280, 4.1.2.2: a serial number is at most 20 octets, and
	 * 2^160 - 1 has 49 decimal digits. */
	WSS_FIELD_SERIAL_OCTETS = 20,
	WSS_FIELD_SERIAL_DIGITS = 49,
	WSS_FIELD_SERIAL_TEXT = 256,  /* its text with any whitespace */
	WSS_FIELD_ISSUER = 4096,      /* X509IssuerName */
	WSS_FIELD_CERT = 65536,       /* a certificate's base64: BST,
				       * X509Certificate, X509v3 KeyIdentifier */
	WSS_FIELD_KEY_ID = 256,       /* a thumbprint or SKI KeyIdentifier */
	WSS_FIELD_WRAPPED_KEY = 2048, /* an EncryptedKey's CipherValue (RSA up
				       * to 8192 bits: 1368 characters) */
	WSS_FIELD_SIGNATURE = 2048    /* SignatureValue, likewise */
};

/* LAB_OK when el's text (all of it below el), as written, is at most
 * max characters; else
 * LAB_ESECURITY "<el> holds more than max characters: over the limit
 * of max (why)".  It stops reading once past max. */
int wss_field_within(const dom_node *el, size_t max, const char *why,
		     lab_err *err);

/*
 * Whether top's subtree, as written without escapes (names, attribute
 * values, namespace declarations, text, and their delimiters), fits in
 * `limit` bytes.  It stops once past the limit, so the work is bounded
 * by the limit, not by the subtree.
 */
int wss_cap_size_within(const dom_node *top, size_t limit);

#endif
