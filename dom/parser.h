/*
 * parser.h - the `parser` axis: what reads the XML text.
 *
 * `libxml2` is the conformant general parser; the tree is then made by the
 * `build` axis (dom/build.h).  `insitu` is domlab's own parser for the
 * SOAP profile (no DTD, the five predefined entities only): it parses a
 * mutable copy of the input held by the document and builds the tree
 * directly, so `build` does not apply to it.
 * Implementations: variants/parser/{libxml2,insitu}.c.
 * Not for: limits' defaults (dom/xml2.h) or the fragment wrapper (parse.c).
 */
#ifndef DOM_PARSER_AXIS_H
#define DOM_PARSER_AXIS_H

#include "dom/internal.h"

/*
 * Parses buf into doc, appending what it reads under `parent` (the
 * document node for a whole document, an element holding the wrapped
 * fragment otherwise).  lim has its defaults filled in.  On failure the
 * caller frees what was appended; err holds the reason, line and column.
 */
int dom__parse_tree(dom_doc *doc, dom_node *parent, const char *buf,
		    size_t len, const dom_limits *lim, lab_err *err);

extern const char dom__parser_choice[];

#endif
