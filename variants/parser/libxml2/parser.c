/*
 * parser.c - parser=libxml2: libxml2 reads the text, and our tree is made
 * from libxml2's own tree (tree.c) or from its SAX2 events (sax.c), as
 * the build axis says (dom/build.h).  The choice exists so the axis can
 * be flipped against insitu.  It never finds a fragment canonical
 * (dom/parser.h): that needs the bytes as written, and defers nothing
 * (the Makefile refuses build=deferred with it).
 * Files: parser.c the axis's entry points; xml2.c libxml2's set-up,
 * errors and limits; tags.c the start tags counted before libxml2 reads
 * them; tree.c and sax.c the two builders; xml2.h what they share.
 */
#include "dom/build.h"
#include "dom/deferred.h"
#include "dom/parser.h"
#include "variants/parser/libxml2/xml2.h"

const char dom__parser_choice[] = "libxml2";

int dom__parse_tree(dom_doc *doc, dom_node *parent, const char *buf,
		    size_t len, const dom_limits *lim, dom_canon *canon,
		    int defer, lab_err *err)
{
	(void)defer;
	/* libxml2 decodes before we see anything: no answer but "unsure". */
	if (canon != NULL)
		canon->ok = 0;
	if (dom__build_via_tree())
		return dom__xml2_build_tree(doc, parent, buf, len, lim, err);
	return dom__xml2_build_sax(doc, parent, buf, len, lim, err);
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
