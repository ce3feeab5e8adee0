/*
 * wsse.h - the WS-Security header's own elements: the Timestamp, the
 * BinarySecurityToken carrying the sender's certificate, and namespace
 * bookkeeping for the wsu:Id attributes the references point at.
 */
#ifndef WSS_WSSE_H
#define WSS_WSSE_H

#include <time.h>

#include "wss/crypto.h"
#include "wss/msg.h"

/* Seconds a Created time may lie in the future (clocks differ). */
enum { WSS_CLOCK_SKEW = 60 };

/* Declares prefix -> uri on el unless it is already bound so there;
 * refuses when el itself binds the prefix to something else. */
int wss_bind(dom_node *el, const char *prefix, const char *uri, lab_err *err);

/* The element's wsu:Id, set to a new "base-N" when it has none; the value
 * is copied into id. */
int wss_ensure_id(wss_msg *m, dom_node *el, const char *base, char *id,
		  size_t cap, lab_err *err);

/* Appends wsu:Timestamp (Created = now, Expires = now + ttl) to Security. */
int wss_timestamp_add(wss_msg *m, time_t now, unsigned ttl, dom_node **out,
		      lab_err *err);

/* The Security header's one Timestamp, checked against now: refused
 * (LAB_ESECURITY) when missing, duplicated, malformed, expired, or
 * created more than WSS_CLOCK_SKEW seconds in the future. */
int wss_timestamp_check(wss_msg *m, time_t now, dom_node **out, lab_err *err);

/* Its rules, for any tree the Timestamp is read from (the reference
 * peer's too): one of its times, `local` ("Created", "Expires"), from the
 * text of its one such child (count: how many there are; text NULL: no
 * text); then the two times against now. */
int wss_timestamp_time(const char *text, size_t count, const char *local,
		       time_t *out, lab_err *err);
int wss_timestamp_window(time_t created, time_t expires, time_t now,
			 lab_err *err);

/* Appends a BinarySecurityToken holding cert to Security. */
int wss_bst_add(wss_msg *m, const wss_cert *cert, char *id, size_t cap,
		lab_err *err);

/*
 * Appends to KeyInfo `ki` a wsse:SecurityTokenReference holding one
 * wsse:Reference to "#id" of the given ValueType.
 */
int wss_add_token_ref(dom_node *ki, const char *id, const char *value_type,
		      lab_err *err);

/* The certificate in a BinarySecurityToken (X509v3, Base64Binary); when
 * it is `known`'s (may be NULL), known is shared instead of parsed. */
int wss_bst_cert(const wss_msg *m, const dom_node *bst, const wss_cert *known,
		 wss_cert **out, lab_err *err);

/* xsd:dateTime in UTC ("2026-11-30T01:00:19Z", fraction allowed). */
int wss_time_parse(const char *s, time_t *out);
void wss_time_format(time_t t, char out[32]);

#endif
