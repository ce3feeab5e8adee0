/*
 * soapnames.h - whether decrypted content may name one of SOAP's own
 * elements (Envelope, Header, Body), which wss/xenc.c refuses to let a
 * decryption add: the cheap test in front of the walk over the nodes
 * that decides.  Bytes that do not spell one of the three words anywhere
 * name none of them, and a payload almost never does, so the test is
 * mostly one filter over the bytes (util/wordscan.h): whole, or piece by
 * piece while the decryption (wss/pass.h) leaves each in cache.
 * Not for: the refusal itself (xenc.c walks the parsed nodes for that).
 */
#ifndef WSS_SOAPNAMES_H
#define WSS_SOAPNAMES_H

#include <stddef.h>

#include "wss/pass.h"

/*
 * 1 when p[0..n) may name one of SOAP's own elements: a tag whose name,
 * or a part of it after a ':', starts with "Envelope", "Header" or
 * "Body"; 0 when it cannot.
 */
int wss_names_soap(const char *p, size_t n);

/*
 * A watch (wss/pass.h) that runs wss_names_soap's filter over the
 * plaintext as it is decrypted, each piece while it is in cache, and
 * hands every call on to `next`.  Give wss_pass_open &scan->watch.
 */
typedef struct wss_soap_scan {
	wss_pass_watch watch;
	const wss_pass_watch *next; /* NULL: none */
	const char *plain;          /* the plaintext's start, once ready */
	size_t done;                /* bytes of it filtered */
	int seen;                   /* a word in them */
} wss_soap_scan;

void wss_soap_scan_init(wss_soap_scan *scan, const wss_pass_watch *next);

/*
 * wss_names_soap(p, n) for the plaintext the scan watched (p its start):
 * the filter runs only over the bytes no ready reached, so a plaintext
 * without the words costs no second pass.  For any other p, or after a
 * stop, it is wss_names_soap(p, n) itself.
 */
int wss_soap_scan_names(wss_soap_scan *scan, const char *p, size_t n);

#endif
