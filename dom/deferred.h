/*
 * deferred.h - build=deferred's records: elements whose content the
 * parser checked but did not build, and what it takes to build it later
 * from the document's copy of the input (the insitu parser's text, in
 * the arena).  The tree code calls dom__need() before it reads a node's
 * children; the first call builds them (dom__parse_deferred), once.
 * Which elements are deferred, and why: variants/build/deferred.c.
 * Not for: the parse itself (variants/parser/insitu/) or the choice
 * between building and deferring (dom/build.h).
 */
#ifndef DOM_DEFERRED_H
#define DOM_DEFERRED_H

#include "dom/internal.h"

/* One element's unbuilt content. */
typedef struct dom_lazy {
	dom_node *el;
	/* The text of the parse that read it (NUL padded, in the arena: a
	 * document's, or a fragment's), and that parse's limits. */
	char *text;
	size_t len;
	const dom_limits *lim;
	size_t from, to;       /* the content: text[from .. to), to at el's
				* end tag */
	const char *qname;     /* el's name in its start tag, in the text */
	size_t qlen;
	/* The bindings in scope in the content, as the parser held them
	 * (prefix NULL: the default namespace; uri doc->empty: undeclared):
	 * outer[0..nouter) from the ancestors, shared by siblings, then
	 * own[0..nown) from el's start tag.  Copies: a later change to the
	 * tree's declarations does not change what the bytes parsed to. */
	const dom_nsdecl *outer;
	size_t nouter;
	const dom_nsdecl *own;
	size_t nown;
	int ids;               /* an attribute in it is named Id or ID */
	int exact;             /* the bytes are dom_serialize's for it */
} dom_lazy;

/* Starts the records of a parse of doc (the whole document, or a
 * fragment) whose text is text[0..len) (NUL padded, in doc's arena)
 * parsed under *lim. */
int dom__deferred_start(dom_doc *doc, char *text, size_t len,
			const dom_limits *lim);

/* Records z (copied, with the text and limits of the parse started
 * last) and marks z->el deferred. */
int dom__deferred_add(dom_doc *doc, const dom_lazy *z);

/* Whether el's unbuilt content holds an attribute named Id or ID. */
int dom__deferred_ids(const dom_node *el);

/*
 * The bytes of el's content, still unbuilt, when dom_serialize may write
 * them for it: they are its own output for the nodes they parse to, and
 * every binding they were parsed under is the one in scope at el now (a
 * reader of the output parses them in that scope).  Else NULL.
 */
const char *dom__deferred_source(const dom_node *el, size_t *len);

/*
 * Appends the exclusive canonical form of the content of gap g's element,
 * still unbuilt, to out (its room reserved: g->len bytes), with apex as
 * the apex, and the dependencies on the apex's bindings it takes added
 * to deps[0..*ndeps) (at most DOM_CANON_DEPS): 1; 0 when its bytes are
 * not that form, it was built since, or memory ran out.
 */
int dom__deferred_canon(dom_doc *doc, const dom_node *apex,
			const dom_canon_gap *g, lab_buf *out,
			dom_canon_dep *deps, size_t *ndeps);

/*
 * The bytes of gap g's element, g->len of them, when they are its
 * content's canonical form as they stand (g->ready: the parse put them
 * in order and took their dependencies) and it is still unbuilt; else
 * NULL.
 */
const char *dom__deferred_ready(const dom_doc *doc, const dom_canon_gap *g);

/* Whether building some deferred content failed (out of memory): then
 * that element reads as empty, and what can report it does. */
int dom__deferred_failed(const dom_doc *doc);

/* At dom_doc_free. */
void dom__deferred_free(dom_doc *doc);

/*
 * The parser's half (the insitu parser, variants/parser/insitu/parse.c;
 * a parser that defers nothing refuses):
 * builds z's content under z->el from buf (the text), which the check pass
 * left as it was read.
 */
int dom__parse_deferred(dom_doc *doc, const dom_lazy *z, char *buf,
			size_t len, const dom_limits *lim, lab_err *err);

/*
 * And for a digest: appends z's content's bytes from buf to out (room
 * reserved), each start tag's attributes in exclusive C14N's order, and
 * the prefixes its element names use to prefix[0..*n) (at most
 * DOM__CANON_PREFIXES; NULL: the default namespace): 1 when that is the
 * content's exclusive canonical form provided none of those prefixes
 * needs a declaration inside it; 0 when it is not sure.
 */
enum { DOM__CANON_PREFIXES = 4 };
int dom__parse_canon(dom_doc *doc, const dom_lazy *z, const char *buf,
		     size_t len, const dom_limits *lim, lab_buf *out,
		     const char **prefix, size_t *n);

#endif
