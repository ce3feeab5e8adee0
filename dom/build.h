/*
 * build.h - the `build` axis: when and from what our tree is made.
 *
 * `built` has the general parser build its own tree and converts it
 * (Axiom's OM tree then DOOM tree); `direct` builds our nodes as the
 * parser reads, from its SAX2 events or by the insitu parser.  `deferred`
 * is the insitu parser's: it checks the whole document and builds some
 * elements' content only when it is first read
 * (variants/build/deferred.c).  Under parser=insitu `built` and `direct` are the same.
 * Each choice answers the questions below at link time; the core asks
 * them and never names a choice.
 * Implementations: variants/build/{built,direct,deferred}.c.
 */
#ifndef DOM_BUILD_AXIS_H
#define DOM_BUILD_AXIS_H

#include <stddef.h>

extern const char dom__build_choice[];

/*
 * The defer word a parse passes dom__parse_tree (dom/parser.h): 0 when
 * every node is built as it is read; DOM__DEFER with `signing` added
 * (DOM__DEFER_SIGNING for a whole document parsed for signing, else 0)
 * when content is deferred.
 */
int dom__build_defer(int signing);

/* The bytes a document's arena starts with, given what the whole tree
 * of its input would take (`whole`). */
size_t dom__build_arena_start(size_t whole);

/* For the general parser: 1 when our tree is converted from the one it
 * builds, 0 when it is made from its SAX2 events. */
int dom__build_via_tree(void);

#endif
