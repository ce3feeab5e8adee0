/*
 * xml2.h - parser=libxml2's own contract between its files: the two ways
 * it makes our tree (tree.c for build=built, sax.c for build=direct), and
 * what both share about driving libxml2 (xml2.c, tags.c): one set of
 * parser options, the refusal of everything external, limits, and the
 * translation of libxml2's errors into lab_err.  Keeping it in one place
 * is what makes `built` and `direct` accept and refuse the same inputs.
 * Not for: anything outside variants/parser/libxml2/; the core knows
 * this parser by dom/parser.h alone.
 */
#ifndef DOM_PARSER_LIBXML2_H
#define DOM_PARSER_LIBXML2_H

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "dom/internal.h"

/*
 * Lives at ctxt->_private for every parse: the external-entity loader
 * records what it refused there, and the builders record their own limit
 * failures, so one error path reports whichever came first.
 */
typedef struct dom_xml2_guard {
	xmlParserCtxtPtr ctxt; /* the document's parser (entities get their own) */
	const dom_limits *lim;
	lab_err *err;
	int failed;    /* err already holds the reason; stop */
	size_t depth;  /* element nesting */
	size_t run;    /* bytes of the character data being read */
	size_t expanded; /* bytes of entity replacement text referenced */
	size_t budget;   /* how many it may be (dom__xml2_ctxt sets it) */
	const char *text; /* the document's bytes, as dom__xml2_ctxt got them */
	size_t text_len;
} dom_xml2_guard;

/*
 * A parser context for buf with domlab's options and guard installed:
 * entities in the internal subset are expanded (libxml2 refuses
 * amplification such as billion laughs), the external subset is never
 * loaded, and any external entity reference fails the parse.  `sax` NULL
 * keeps libxml2's tree-building SAX2 handlers.
 */
xmlParserCtxtPtr dom__xml2_ctxt(const char *buf, size_t len,
				const xmlSAXHandler *sax, void *user,
				dom_xml2_guard *guard);

/*
 * The attributes and declarations of every start tag in buf counted
 * against lim (its zero fields already given their defaults) before
 * libxml2 reads it, so a tag over a limit costs a linear pass, not
 * libxml2's quadratic duplicate checks (tags.c); dom__xml2_run
 * does it for the document and the entity hook for each entity's
 * replacement text.
 */
int dom__xml2_check_tags(const char *buf, size_t len, const dom_limits *lim,
			 lab_err *err);
/* The same on UTF-8 text. */
int dom__xml2_count_tags(const char *buf, size_t len, const dom_limits *lim,
			 lab_err *err);

/* Runs the parse; LAB_OK or the first error with line and column. */
int dom__xml2_run(xmlParserCtxtPtr ctxt, dom_xml2_guard *guard);

/* Records a builder-side failure at the parser's current position and
 * stops the parser. */
void dom__xml2_fail(xmlParserCtxtPtr ctxt, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The limit checks, called by both builders from their SAX2 handlers so
 * a limit fails at the same place whichever builds the tree.  Each
 * returns 0, or -1 after recording the error and stopping the parser.
 */
int dom__xml2_enter(xmlParserCtxtPtr ctxt, const xmlChar *local,
		    const xmlChar *prefix, int nb_attributes,
		    const xmlChar **attributes);
void dom__xml2_leave(xmlParserCtxtPtr ctxt);
/* own_node: the piece is a node by itself (CDATA), not part of a run. */
int dom__xml2_text(xmlParserCtxtPtr ctxt, size_t len, int own_node);
/* A comment or PI was read: the text on either side of it is two nodes. */
void dom__xml2_leaf(xmlParserCtxtPtr ctxt);

/*
 * libxml2's getEntity, counting each reference's replacement text
 * against the guard's budget (ten times the input plus 1 MiB): libxml2's
 * own check stops billion laughs but lets a quadratic blowup (one large
 * entity referenced many times) through.  A reference to an undeclared
 * entity (one the unread external subset may declare) fails the parse
 * rather than vanishing.  Both builders install it.
 */
xmlEntityPtr dom__xml2_get_entity(xmlParserCtxtPtr ctxt, const xmlChar *name);

/* Copies the XML declaration the parser saw into doc. */
int dom__xml2_decl(xmlParserCtxtPtr ctxt, dom_doc *doc);

/*
 * The two builders, as dom__parse_tree calls them (dom/parser.h): buf
 * parsed into doc under `parent`; on failure the caller frees what was
 * appended.  _tree converts the tree libxml2 builds (build=built), _sax
 * builds ours from its SAX2 events (build=direct); dom__build_via_tree
 * (dom/build.h) says which.
 */
int dom__xml2_build_tree(dom_doc *doc, dom_node *parent, const char *buf,
			 size_t len, const dom_limits *lim, lab_err *err);
int dom__xml2_build_sax(dom_doc *doc, dom_node *parent, const char *buf,
			size_t len, const dom_limits *lim, lab_err *err);

#endif
