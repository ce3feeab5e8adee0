/*
 * libxml2.c - parser=libxml2: libxml2 reads the text and the `build` axis
 * makes our tree from it (dom/build.h).  Nothing of its own: the choice
 * exists so the axis can be flipped against insitu.  It never finds a
 * fragment canonical (dom/parser.h): that needs the bytes as written.
 */
#include "dom/build.h"
#include "dom/parser.h"

const char dom__parser_choice[] = "libxml2";

int dom__parse_tree(dom_doc *doc, dom_node *parent, const char *buf,
		    size_t len, const dom_limits *lim, dom_canon *canon,
		    lab_err *err)
{
	/* libxml2 decodes before we see anything: no answer but "unsure". */
	if (canon != NULL)
		canon->ok = 0;
	return dom__build(doc, parent, buf, len, lim, err);
}
