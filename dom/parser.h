/*
 * parser.h - the `parser` axis: what reads the XML text.
 *
 * `libxml2` is the conformant general parser; the tree is then made by the
 * `build` axis (dom/build.h).  `insitu` is domlab's own parser for the
 * SOAP profile (no DTD, the five predefined entities only): it parses a
 * mutable copy of the input held by the document and builds the tree
 * directly: `built` and `direct` are the same to it, and `deferred`
 * (dom/build.h) has it defer some elements' content.
 * Implementations: variants/parser/libxml2.c and the folder
 * variants/parser/insitu/.
 * Not for: limits' defaults (dom/xml2.h) or the fragment wrapper (parse.c).
 */
#ifndef DOM_PARSER_AXIS_H
#define DOM_PARSER_AXIS_H

#include "dom/internal.h"

/*
 * A question a fragment's parse can answer on the way: are the
 * fragment's bytes, as they are, the Exclusive XML Canonicalization
 * (without PrefixList) of the content they parse to, when the element
 * they go into is the apex?  Then a digest of that element can take the
 * bytes instead of a walk over the nodes.  `rendered` are the bindings
 * the apex's own start tag renders (its visibly utilized prefixes bound
 * in scope; prefix NULL is the default namespace).  The parser sets `ok`,
 * and sets it to 0 whenever it is not sure; and `deps`, what the answer
 * took from the apex's context (dom.h's dom_canon_dep).  A document's
 * parse may be asked the same about each child of its root element
 * (dom/emit.h's dom__emit_question), and keeps what it finds; there
 * content it deferred (build=deferred) is a gap in the bytes, gaps[0..
 * ngaps) in order, whose canonical form is made when a digest asks for
 * it (dom/kept.c), and whose bindings are then checked as deps are.
 */
typedef struct dom_canon {
	const dom_nsdecl *rendered;
	size_t nrendered;
	int ok;
	size_t ndeps;
	dom_canon_dep deps[DOM_CANON_DEPS];
	const dom_canon_gap *gaps;
	size_t ngaps;
} dom_canon;

/*
 * Parses buf into doc, appending what it reads under `parent` (the
 * document node for a whole document, an element holding the wrapped
 * fragment otherwise).  lim has its defaults filled in.  canon, when not
 * NULL, asks the question above: about a wrapped fragment, or for a
 * whole document about each child of its root element, whose canonical
 * form the parser keeps (dom__emit_keep) when the answer is yes and it
 * is the largest so far; canon is then the parser's room for the answers
 * and `ok` says nothing.  A parser that cannot tell answers no.  defer:
 * 0, or DOM__DEFER when the parse defers content (build=deferred,
 * dom/build.h; the insitu parser only), with DOM__DEFER_SIGNING for a
 * whole document parsed for signing (dom_parse_signing): a Body child's
 * content whose canonical form is its bytes but for the order of
 * attributes is put in that order where it stands.  On failure the
 * caller frees what was appended; err holds the reason, line and
 * column.
 */
enum { DOM__DEFER = 1, DOM__DEFER_SIGNING = 2 };
int dom__parse_tree(dom_doc *doc, dom_node *parent, const char *buf,
		    size_t len, const dom_limits *lim, dom_canon *canon,
		    int defer, lab_err *err);

extern const char dom__parser_choice[];

#endif
