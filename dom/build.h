/*
 * build.h - the `build` axis: how parser output becomes our tree.
 *
 * `built` lets libxml2 build its own tree and converts it (Axiom's OM tree
 * then DOOM tree); `direct` builds our nodes from libxml2's SAX2 events
 * with no intermediate tree.  Both parse with the same options and limits
 * (dom/xml2.h) so they accept and refuse the same documents.
 * Implementations: variants/build/{built,direct}.c.
 */
#ifndef DOM_BUILD_AXIS_H
#define DOM_BUILD_AXIS_H

#include "dom/internal.h"

/*
 * Parses buf into doc, appending what it reads under `parent` (the
 * document node for a whole document, an element for a fragment wrapped
 * by the caller).  On failure the caller frees what was appended.
 */
int dom__build(dom_doc *doc, dom_node *parent, const char *buf, size_t len,
	       const dom_limits *lim, lab_err *err);

extern const char dom__build_choice[];

#endif
