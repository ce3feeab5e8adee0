/*
 * libxml2.c - parser=libxml2: libxml2 reads the text and the `build` axis
 * makes our tree from it (dom/build.h).  Nothing of its own: the choice
 * exists so the axis can be flipped against insitu.  It never finds a
 * fragment canonical (dom/parser.h): that needs the bytes as written,
 * and defers nothing (the Makefile refuses build=deferred with it).
 */
#include "dom/build.h"
#include "dom/deferred.h"
#include "dom/parser.h"

const char dom__parser_choice[] = "libxml2";

int dom__parse_tree(dom_doc *doc, dom_node *parent, const char *buf,
		    size_t len, const dom_limits *lim, dom_canon *canon,
		    int defer, lab_err *err)
{
	(void)defer;
	/* libxml2 decodes before we see anything: no answer but "unsure". */
	if (canon != NULL)
		canon->ok = 0;
	return dom__build(doc, parent, buf, len, lim, err);
}

/* Never reached: no content is deferred under this parser. */
int dom__parse_deferred(dom_doc *doc, const dom_lazy *z, char *buf,
			size_t len, const dom_limits *lim, lab_err *err)
{
	(void)doc;
	(void)z;
	(void)buf;
	(void)len;
	(void)lim;
	return lab_fail(err, LAB_EUSAGE, "parser=libxml2 defers no content");
}

/* Never reached either: nothing deferred, no gap. */
int dom__parse_canon(dom_doc *doc, const dom_lazy *z, const char *buf,
		     size_t len, const dom_limits *lim, lab_buf *out,
		     const char **prefix, size_t *n)
{
	(void)doc;
	(void)z;
	(void)buf;
	(void)len;
	(void)lim;
	(void)out;
	(void)prefix;
	*n = 0;
	return 0;
}
