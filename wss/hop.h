/*
 * hop.h - what a WS-Security intermediary and its sender need beyond
 * the end-to-end profile: the WS-Addressing To header block (added and
 * signed by a sender, read by the hop), and ID resolution confined to
 * the Header, so a hop verifying header blocks never reads, builds or
 * indexes the Body.
 * Not for: the hop's policy as a whole (wss_forward_doc, wss/wss.h) or
 * the Signature itself (wss/dsig.h).
 */
#ifndef WSS_HOP_H
#define WSS_HOP_H

#include "wss/msg.h"
#include "wss/wss.h"

#define WSS_NS_WSA "http://www.w3.org/2005/08/addressing"

/*
 * The sender's side: with o->to, appends a wsa:To holding it to the
 * Header and has m sign it (m->sign_to); with o->headers_only, m signs
 * no Body (m->headers_only), which needs o->to (else LAB_EUSAGE).  A
 * message that already has a wsa:To is LAB_EMALFORMED.
 */
int wss_hop_prepare(wss_msg *m, const wss_opts *o, lab_err *err);

/*
 * "#id" (refused as wss_resolve refuses it) among m->id_scope and its
 * descendants, by the ID attributes dom_get_by_id reads; an ID carried
 * twice there is refused (LAB_ESECURITY).  *out is NULL, with LAB_OK,
 * when no element there carries it.
 */
int wss_hop_resolve(const wss_msg *m, const char *uri, dom_node **out,
		    lab_err *err);

#endif
