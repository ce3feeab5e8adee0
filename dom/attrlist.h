/*
 * attrlist.h - the `attrlist` axis: what dom_attributes() hands back.
 * `copy` builds a fresh list on every call (Axiom DOOM's getAttributes(),
 * ~10% of CPU under its canonicalizer); `cached` returns a view of the
 * element's own array.  Implementations: variants/attrlist/{copy,cached}.c.
 */
#ifndef DOM_ATTRLIST_AXIS_H
#define DOM_ATTRLIST_AXIS_H

#include "dom/internal.h"

int dom__attrlist_get(const dom_element *el, dom_attr_list *out,
		      lab_err *err);
void dom__attrlist_release(const dom_element *el, dom_attr_list *list);

extern const char dom__attrlist_choice[];

#endif
