/*
 * c14n.h - XML canonicalization over the DOM: Exclusive XML
 * Canonicalization 1.0 (with and without comments, with an
 * InclusiveNamespaces PrefixList) and Canonical XML 1.0 (inclusive), of a
 * whole document or of one element's subtree (the node-set a same-document
 * "#id" reference selects).
 *
 * The canonical bytes go to a sink as they are produced, so a caller can
 * stream them into a digest without holding them.  The walk reads the
 * tree through dom.h only -- dom_attributes() on every element -- because
 * that is where the attrs and attrlist variants show their cost.
 * Not for: general XPath node-sets (only whole subtrees).
 */
#ifndef WSS_C14N_H
#define WSS_C14N_H

#include "dom/dom.h"

/* Receives canonical bytes in order; non-zero return aborts with that code. */
typedef int (*wss_sink_fn)(void *ctx, const char *p, size_t n);

typedef struct wss_c14n_opts {
	int exclusive;            /* 1: exc-c14n; 0: inclusive C14N 1.0 */
	int with_comments;
	/* Exclusive only: the InclusiveNamespaces PrefixList, "#default"
	 * naming the default namespace. */
	const char *const *prefixes;
	size_t nprefixes;
	/* A subtree left out (the enveloped-signature transform), or NULL. */
	const dom_node *exclude;
} wss_c14n_opts;

/*
 * Canonicalizes `top`: the document node (whole document) or an element
 * (that element's subtree).  Returns LAB_OK, the sink's code, or an error.
 */
int wss_c14n(const dom_node *top, const wss_c14n_opts *opts, wss_sink_fn sink,
	     void *ctx, lab_err *err);

/*
 * The same, and appends to `content` the canonical bytes between top's
 * start and end tags (top an element): the exc-c14n of its content, a
 * fragment that parses back in top's namespace context.  Lets a sender
 * digest the Body and keep its content for encryption in one walk.
 * `content` is written in place and kept: one with a writer is
 * LAB_EUSAGE.
 */
int wss_c14n_tee(const dom_node *top, const wss_c14n_opts *opts,
		 wss_sink_fn sink, void *ctx, lab_buf *content, lab_err *err);

/*
 * wss_c14n_tee without a whole copy of bytes the document keeps for
 * top's content (dom_canonical_content_write): they go to the sink, and
 * to `content`, in pieces.  `content` may have a writer (util/buf.h):
 * then it gets the content's bytes in order, and holds none whole.
 * Part of those bytes is checked only as it is read, so this may end
 * with WSS_C14N_AGAIN after the sink and `content` took bytes: they do
 * not count; a call again (a fresh sink and content) walks the tree.
 */
enum { WSS_C14N_AGAIN = -1 };
int wss_c14n_pieces(const dom_node *top, const wss_c14n_opts *opts,
		    wss_sink_fn sink, void *ctx, lab_buf *content,
		    lab_err *err);

/* The same into a buffer (appends); one with a writer (util/buf.h) has
 * every byte on LAB_OK, and its writer's failure is LAB_EIO. */
int wss_c14n_buf(const dom_node *top, const wss_c14n_opts *opts,
		 lab_buf *out, lab_err *err);

#endif
