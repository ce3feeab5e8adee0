/*
 * c14n.c - libFuzzer target: canonicalization of whatever parses.  The
 * first input byte picks the options (exclusive or inclusive, with or
 * without comments, an InclusiveNamespaces PrefixList, the whole document
 * or the subtree of the n-th element), the rest is the document.  What
 * canonicalizes must parse again and canonicalize to the same bytes: the
 * canonical form is a fixed point.  A subtree is refused as a security
 * failure (a relative namespace URI) exactly when the whole document is.
 * Not for: the parser on its own (parse.c) or digests and signatures
 * (receive.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"
#include "tests/fuzz/fuzz_common.h"
#include "wss/c14n.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int canonicalize(const dom_node *top, const void *opts, lab_buf *out,
			lab_err *err)
{
	return wss_c14n_buf(top, opts, out, err);
}

/* The n-th element in document order (counting from 0, wrapping), or the
 * document node when there is none. */
static const dom_node *nth_element(dom_doc *doc, unsigned n)
{
	const dom_node *root = dom_doc_element(doc), *e = root, *pick = NULL;
	unsigned seen = 0;

	while (e != NULL) {
		const dom_node *next;

		if (dom_node_type(e) == DOM_ELEMENT) {
			if (seen++ == n)
				return e;
			if (pick == NULL)
				pick = e;
		}
		next = dom_first_child(e);
		while (next == NULL && e != NULL && e != root) {
			next = dom_next_sibling(e);
			e = dom_parent(e);
		}
		e = next;
	}
	return pick != NULL ? pick : dom_doc_node(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefixes[] = {"#default", "p", "soap"};
	lab_buf once = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_c14n_opts o;
	const dom_node *top;
	lab_err err;
	unsigned flags;
	int rc;

	if (size < 1)
		return 0;
	flags = data[0];
	memset(&o, 0, sizeof o);
	o.exclusive = flags & 1;
	o.with_comments = (flags >> 1) & 1;
	if (o.exclusive && (flags & 4)) {
		o.prefixes = prefixes;
		o.nprefixes = sizeof prefixes / sizeof prefixes[0];
	}
	if (dom_parse((const char *)data + 1, size - 1, NULL, &doc, &err) !=
	    LAB_OK)
		goto out;
	top = (flags & 8) ? nth_element(doc, flags >> 4) : dom_doc_node(doc);
	rc = canonicalize(top, &o, &once, &err);
	/* Canonical XML fails on the document, whatever part of it is
	 * canonicalized: a subtree is refused exactly when the whole is. */
	if (top != dom_doc_node(doc)) {
		lab_buf whole = LAB_BUF_INIT;
		int all = canonicalize(dom_doc_node(doc), &o, &whole, &err);

		lab_buf_free(&whole);
		if ((rc == LAB_ESECURITY) != (all == LAB_ESECURITY))
			abort();
	}
	if (rc != LAB_OK)
		goto out;
	fuzz_fixed_point(&once, canonicalize, &o);
out:
	dom_doc_free(doc);
	lab_buf_free(&once);
	return 0;
}
