/*
 * attrindex.h - the open-addressing index over an element's attribute
 * array that the hash and adaptive attrs choices share.  Keyed by the
 * interned (ns, local) pointers, so hashing is a multiply, not a pass over
 * the bytes.  Not an axis choice by itself.
 */
#ifndef DOM_ATTRINDEX_H
#define DOM_ATTRINDEX_H

#include "dom/internal.h"

long dom__attrindex_find(const dom_attrs *a, const char *ns,
			 const char *local);

/* Brings a->index up to date (see dom__attrs_update); allocates in doc's
 * arena when the index is missing or too small. */
int dom__attrindex_update(dom_doc *doc, dom_attrs *a, uint32_t from,
			  lab_err *err);

#endif
