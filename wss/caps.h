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
 * Whether top's subtree, as written without escapes (names, attribute
 * values, namespace declarations, text, and their delimiters), fits in
 * `limit` bytes.  It stops once past the limit, so the work is bounded
 * by the limit, not by the subtree.
 */
int wss_cap_size_within(const dom_node *top, size_t limit);

#endif
