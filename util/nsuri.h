/*
 * nsuri.h - whether a namespace URI is relative, for canonicalization.
 *
 * Canonical XML 1.0, on which Exclusive XML Canonicalization builds,
 * requires an implementation to report failure on a document with a
 * relative namespace URI: its canonical form is undefined.  A URI is
 * absolute here when it starts with a scheme (RFC 3986: a letter, then
 * letters, digits, '+', '-' or '.', then ':'), as libxml2's C14N decides;
 * "" (no namespace, xmlns="") is not a URI and passes.  The parsers ask
 * it of each declaration they read (dom__note_ns, dom/internal.h), so
 * that C14N (wss/c14n.c) can refuse a document that declares one
 * anywhere, and the insitu parser keeps no canonical bytes under one
 * (variants/parser/insitu/canon.c).
 * lab_nsuri_same compares two bindings' URIs, either of which may be
 * NULL (no binding), as the canonical-content checks do.
 * Not for: checking that a URI is well-formed beyond its scheme.
 */
#ifndef UTIL_NSURI_H
#define UTIL_NSURI_H

#include <string.h>

static inline int lab_nsuri_relative(const char *uri)
{
	const char *p = uri;

	if (uri[0] == '\0')
		return 0;
	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return 1;
	for (p++; *p != ':'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' ||
		      *p == '.'))
			return 1;
	return 0;
}

/* Whether a and b (NULL: no binding) are the same URI. */
static inline int lab_nsuri_same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

#endif
