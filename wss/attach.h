/*
 * attach.h - attachments under the profile's signature (WSS SwA profile
 * 1.1): each attachment is covered by one ds:Reference in the Signature's
 * SignedInfo,
 *
 *   URI="cid:<content-id>", one Transform
 *   http://docs.oasis-open.org/wss/oasis-wss-SwAProfile-1.1#Attachment-Content-Signature-Transform,
 *   DigestMethod SHA-256 over the part's bytes as they travel.
 *
 * The Content-Signature transform is the SwA profile's for content
 * without MIME headers; the parts here are binary, so the transform's
 * output is the part's bytes.  Attachments are signed, not encrypted.
 * dsig.c calls these at three points; everything about attachments is
 * here.  Not for: MIME framing (wss/multipart.c).
 */
#ifndef WSS_ATTACH_H
#define WSS_ATTACH_H

#include <stddef.h>

#include "wss/msg.h"

#define WSS_ALG_SWA_CONTENT \
	"http://docs.oasis-open.org/wss/oasis-wss-SwAProfile-1.1#Attachment-Content-Signature-Transform"

/* One attachment as the pipeline sees it; wss_opts and wss_msg carry an
 * array of them. */
typedef struct wss_attachment {
	const char *id;            /* Content-ID, no angle brackets */
	const unsigned char *data;
	size_t len;
} wss_attachment;

/* Signing: appends one Reference per attachment of m to SignedInfo. */
int wss_attach_sign(const wss_msg *m, dom_node *signed_info, lab_err *err);

/* 1 when the Reference's URI is a cid: URI (an attachment's). */
int wss_attach_is_ref(const wss_msg *m, const dom_node *ref);

/*
 * Verifying one cid: Reference: the part must exist, the transform and
 * digest algorithms be the profile's, the digest match the part's bytes.
 * LAB_ESECURITY otherwise.
 */
int wss_attach_check_ref(const wss_msg *m, const dom_node *ref, lab_err *err);

/* Verifying: every attachment of m is named by a Reference of
 * signed_info; LAB_ESECURITY naming the first that is not. */
int wss_attach_all_signed(const wss_msg *m, const dom_node *signed_info,
			  lab_err *err);

#endif
