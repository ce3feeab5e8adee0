/*
 * build.h - the `build` axis: how parser output becomes our tree.
 *
 * `built` lets libxml2 build its own tree and converts it (Axiom's OM tree
 * then DOOM tree); `direct` builds our nodes from libxml2's SAX2 events
 * with no intermediate tree.  `deferred` is the insitu parser's: it
 * checks the whole document and builds some elements' content only when
 * it is first read (variants/build/deferred.c).  built and direct parse with the same options and limits
 * (dom/xml2.h) so they accept and refuse the same documents.
 * Implementations: variants/build/{built,direct,deferred}.c.
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

/* Whether a whole document's parse defers content (build=deferred, which
 * the insitu parser reads; dom/deferred.h), and dom_replace_parsed's
 * too.  0 for built and direct. */
extern const int dom__build_defers;

#endif
