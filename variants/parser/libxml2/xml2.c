/*
 * xml2.c - libxml2 set up the same way for both builders (tree.c, sax.c).
 *
 * libxml2's external entity loader is a process-wide setting; we install
 * one that refuses everything, once, and document it as the per-process
 * state it is.  Nothing domlab parses may make it open a file or a socket.
 */
#include "dom/parser.h"
#include "variants/parser/libxml2/xml2.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum {
	XML2_OPTIONS = XML_PARSE_NONET | XML_PARSE_NOENT | XML_PARSE_DTDATTR |
		       XML_PARSE_NOERROR | XML_PARSE_NOWARNING
};

static void position(xmlParserCtxtPtr ctxt, unsigned long *line,
		     unsigned long *col)
{
	*line = ctxt->input != NULL ? (unsigned long)ctxt->input->line : 0;
	*col = ctxt->input != NULL ? (unsigned long)ctxt->input->col : 0;
}

void dom__xml2_fail(xmlParserCtxtPtr ctxt, int code, const char *fmt, ...)
{
	dom_xml2_guard *g = ctxt->_private;
	unsigned long line, col;
	char msg[sizeof g->err->msg];
	va_list ap;

	if (g->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* Report where the document's parser is: an external entity is
	 * refused from a context libxml2 made for the entity alone. */
	position(g->ctxt, &line, &col);
	lab_fail_at(g->err, code, line, col, "%s", msg);
	g->failed = 1;
	xmlStopParser(ctxt);
	if (ctxt != g->ctxt)
		xmlStopParser(g->ctxt);
}

/*
 * A name within the limit and namespace-well-formed.  libxml2 refuses a
 * malformed QName in a tag it reads, but one that reaches an element
 * another way -- an attribute default the internal subset declares for
 * an element written inside an entity -- arrives with its colon in the
 * local part ("kin:"), and a tree holding it would serialize to a
 * document that does not parse again.
 */
static int name_ok(xmlParserCtxtPtr ctxt, const xmlChar *prefix,
		   const xmlChar *local)
{
	const dom_xml2_guard *g = ctxt->_private;
	size_t n = strlen((const char *)local);

	if (n == 0 || memchr(local, ':', n) != NULL ||
	    (prefix != NULL && *prefix == '\0')) {
		dom__xml2_fail(ctxt, LAB_EMALFORMED,
			       "name '%s%s%s' is not a namespace-well-formed "
			       "QName",
			       prefix != NULL ? (const char *)prefix : "",
			       prefix != NULL ? ":" : "", (const char *)local);
		return -1;
	}
	if (prefix != NULL)
		n += strlen((const char *)prefix) + 1;
	if (n <= g->lim->max_name)
		return 0;
	dom__xml2_fail(ctxt, LAB_EMALFORMED,
		       "name of %zu bytes is over the limit of %zu", n,
		       g->lim->max_name);
	return -1;
}

int dom__xml2_enter(xmlParserCtxtPtr ctxt, const xmlChar *local,
		    const xmlChar *prefix, int nb_attributes,
		    const xmlChar **attributes)
{
	dom_xml2_guard *g = ctxt->_private;
	int i;

	g->run = 0;
	if (++g->depth > g->lim->max_depth) {
		dom__xml2_fail(ctxt, LAB_EMALFORMED,
			       "elements nested deeper than the limit of %zu",
			       g->lim->max_depth);
		return -1;
	}
	if ((size_t)ctxt->nsNr / 2 > g->lim->max_ns) {
		dom__xml2_fail(ctxt, LAB_EMALFORMED,
			       "%zu namespace declarations in scope, over the "
			       "limit of %zu",
			       (size_t)ctxt->nsNr / 2, g->lim->max_ns);
		return -1;
	}
	if ((size_t)nb_attributes > g->lim->max_attrs) {
		dom__xml2_fail(ctxt, LAB_EMALFORMED,
			       "%d attributes on <%s>, over the limit of %zu",
			       nb_attributes, (const char *)local,
			       g->lim->max_attrs);
		return -1;
	}
	if (name_ok(ctxt, prefix, local) != 0)
		return -1;
	for (i = 0; i < nb_attributes; i++) {
		const xmlChar **a = &attributes[5 * i];
		size_t vlen = (size_t)(a[4] - a[3]);

		if (name_ok(ctxt, a[1], a[0]) != 0)
			return -1;
		if (vlen > g->lim->max_text) {
			dom__xml2_fail(ctxt, LAB_EMALFORMED,
				       "attribute value of %zu bytes is over "
				       "the limit of %zu",
				       vlen, g->lim->max_text);
			return -1;
		}
	}
	return 0;
}

void dom__xml2_leave(xmlParserCtxtPtr ctxt)
{
	dom_xml2_guard *g = ctxt->_private;

	g->depth--;
	g->run = 0;
}

int dom__xml2_text(xmlParserCtxtPtr ctxt, size_t len, int own_node)
{
	dom_xml2_guard *g = ctxt->_private;

	g->run = own_node ? len : g->run + len;
	if (g->run <= g->lim->max_text) {
		if (own_node)
			g->run = 0;
		return 0;
	}
	dom__xml2_fail(ctxt, LAB_EMALFORMED,
		       "text of more than %zu bytes is over the limit",
		       g->lim->max_text);
	return -1;
}

void dom__xml2_leaf(xmlParserCtxtPtr ctxt)
{
	dom_xml2_guard *g = ctxt->_private;

	g->run = 0;
}

xmlEntityPtr dom__xml2_get_entity(xmlParserCtxtPtr ctxt, const xmlChar *name)
{
	dom_xml2_guard *g = ctxt->_private;
	xmlEntityPtr ent = xmlSAX2GetEntity(ctxt, name);
	lab_err tags;

	/* Only a document with an external subset or a parameter entity
	 * gets here with an undeclared name; libxml2 would drop the
	 * reference, and the text with it, in silence. */
	if (ent == NULL && g != NULL && ctxt->inSubset == 0)
		dom__xml2_fail(ctxt, LAB_EMALFORMED,
			       "entity '%s' is not declared%s",
			       (const char *)name,
			       g->ctxt->hasExternalSubset || g->ctxt->hasPErefs
				       ? " (domlab never reads external DTD "
					 "declarations)"
				       : "");
	if (ent == NULL || g == NULL || ent->length <= 0)
		return ent;
	/* libxml2 reads the replacement text's tags as it reads the
	 * document's: counted first, the same way. */
	if (ent->content != NULL && !g->failed &&
	    dom__xml2_count_tags((const char *)ent->content,
				 (size_t)ent->length, g->lim, &tags) != LAB_OK) {
		dom__xml2_fail(ctxt, tags.code, "%s", tags.msg);
		return NULL;
	}
	g->expanded += (size_t)ent->length;
	if (g->expanded > g->budget)
		dom__xml2_fail(ctxt, LAB_EMALFORMED,
			       "entity references expand to more than %zu "
			       "bytes, over the limit of ten times the input "
			       "plus 1 MiB",
			       g->budget);
	return ent;
}

static xmlParserInputPtr refuse_external(const char *url, const char *id,
					 xmlParserCtxtPtr ctxt)
{
	if (ctxt != NULL && ctxt->_private != NULL)
		dom__xml2_fail(ctxt, LAB_EMALFORMED,
			       "external entity '%s' refused: domlab never "
			       "fetches external resources",
			       url != NULL ? url : (id != NULL ? id : "?"));
	return NULL;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init(void)
{
	xmlInitParser();
	xmlSetExternalEntityLoader(refuse_external);
}

void dom__parser_init(void)
{
	pthread_once(&init_once, init);
}

xmlParserCtxtPtr dom__xml2_ctxt(const char *buf, size_t len,
				const xmlSAXHandler *sax, void *user,
				dom_xml2_guard *guard)
{
	xmlParserCtxtPtr ctxt;

	dom__parser_init();
	if (len > (size_t)INT32_MAX)
		return NULL;
	ctxt = xmlCreateMemoryParserCtxt(buf, (int)len);
	if (ctxt == NULL)
		return NULL;
	if (sax != NULL) {
		*ctxt->sax = *sax;
		ctxt->userData = user != NULL ? user : ctxt;
	}
	xmlCtxtUseOptions(ctxt, XML2_OPTIONS);
	/* DTDATTR applies the internal subset's attribute defaults, and also
	 * asks for the external subset: that we never load. */
	ctxt->sax->externalSubset = NULL;
	ctxt->_private = guard;
	guard->ctxt = ctxt;
	guard->expanded = 0;
	guard->budget = 10 * len + ((size_t)1 << 20);
	guard->text = buf;
	guard->text_len = len;
	return ctxt;
}

int dom__xml2_run(xmlParserCtxtPtr ctxt, dom_xml2_guard *guard)
{
	const xmlError *e;

	if (dom__xml2_check_tags(guard->text, guard->text_len, guard->lim,
				 guard->err) != LAB_OK)
		return guard->err->code;
	xmlParseDocument(ctxt);
	if (guard->failed)
		return guard->err->code;
	/* Namespace errors (an undeclared prefix, a duplicate attribute after
	 * resolution) are not fatal to libxml2; they are to us. */
	if (ctxt->wellFormed && ctxt->nsWellFormed && !ctxt->disableSAX)
		return LAB_OK;
	e = xmlCtxtGetLastError(ctxt);
	if (e == NULL || e->message == NULL)
		return lab_fail(guard->err, LAB_EMALFORMED,
				"document is not well-formed");
	/* libxml2's messages end in a newline; ours do not. */
	lab_fail_at(guard->err, LAB_EMALFORMED, (unsigned long)e->line,
		    (unsigned long)e->int2, "%.*s",
		    (int)strcspn(e->message, "\n"), e->message);
	return LAB_EMALFORMED;
}

int dom__xml2_decl(xmlParserCtxtPtr ctxt, dom_doc *doc)
{
	dom_decl *d = &doc->decl;

	d->dtd = ctxt->intSubName != NULL;
	/* libxml2: standalone -1 without an XML declaration, -2 with one
	 * that does not say. */
	if (ctxt->standalone == -1 || ctxt->version == NULL)
		return LAB_OK;
	d->version = dom_intern(doc, (const char *)ctxt->version,
				strlen((const char *)ctxt->version));
	if (d->version == NULL)
		return LAB_ENOMEM;
	d->standalone = (int8_t)(ctxt->standalone < 0 ? -1 : ctxt->standalone);
	d->encoding = ctxt->encoding != NULL ||
		      (ctxt->input != NULL && ctxt->input->encoding != NULL);
	return LAB_OK;
}
