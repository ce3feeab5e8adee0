/*
 * tree.c - parser=libxml2 under build=built: libxml2 builds its own tree,
 * which is then converted into ours and freed (Axiom's OM tree, then the
 * DOOM tree).
 *
 * The parse is the same as sax.c's (xml2.h) with libxml2's own
 * tree-building SAX2 handlers, wrapped only to run the shared limit
 * checks where the parser is, so both builds fail at the same position.
 * The second pass is the cost this choice exists to show: do not short-
 * cut it.
 */
#include <libxml/SAX2.h>
#include <libxml/tree.h>
#include <string.h>

#include "variants/parser/libxml2/xml2.h"

static void on_start(void *ctx, const xmlChar *local, const xmlChar *prefix,
		     const xmlChar *uri, int nb_namespaces,
		     const xmlChar **namespaces, int nb_attributes,
		     int nb_defaulted, const xmlChar **attributes)
{
	if (dom__xml2_enter(ctx, local, prefix, nb_attributes, attributes) == 0)
		xmlSAX2StartElementNs(ctx, local, prefix, uri, nb_namespaces,
				      namespaces, nb_attributes, nb_defaulted,
				      attributes);
}

static void on_end(void *ctx, const xmlChar *local, const xmlChar *prefix,
		   const xmlChar *uri)
{
	dom__xml2_leave(ctx);
	xmlSAX2EndElementNs(ctx, local, prefix, uri);
}

static void on_chars(void *ctx, const xmlChar *ch, int len)
{
	if (dom__xml2_text(ctx, (size_t)len, 0) == 0)
		xmlSAX2Characters(ctx, ch, len);
}

/*
 * Each CDATA section is a node of its own, as `direct` makes it:
 * xmlSAX2CDataBlock would append a section to one right before it.
 */
static void on_cdata(void *ctx, const xmlChar *ch, int len)
{
	xmlParserCtxtPtr ctxt = ctx;
	xmlNodePtr c;

	if (dom__xml2_text(ctx, (size_t)len, 1) != 0)
		return;
	c = xmlNewCDataBlock(ctxt->myDoc, ch, len);
	if (c == NULL || xmlAddChild(ctxt->node, c) == NULL) {
		xmlFreeNode(c);
		dom__xml2_fail(ctxt, LAB_ENOMEM, "out of memory");
	}
}

static void on_comment(void *ctx, const xmlChar *s)
{
	dom__xml2_leaf(ctx);
	xmlSAX2Comment(ctx, s);
}

static void on_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
	dom__xml2_leaf(ctx);
	xmlSAX2ProcessingInstruction(ctx, target, data);
}

static xmlEntityPtr on_get_entity(void *ctx, const xmlChar *name)
{
	return dom__xml2_get_entity(ctx, name);
}

static const char *intern_x(dom_doc *doc, const xmlChar *s)
{
	return s != NULL ? dom_intern(doc, (const char *)s,
				      strlen((const char *)s))
			 : NULL;
}

/* The name record of libxml2's (ns, local); NULL when memory runs out. */
static const dom_name *name_x(dom_doc *doc, const xmlNs *ns,
			      const xmlChar *local)
{
	const char *uri = ns != NULL ? intern_x(doc, ns->href) : NULL;
	const char *prefix = ns != NULL ? intern_x(doc, ns->prefix) : NULL;
	const char *l = intern_x(doc, local);

	if (l == NULL || (ns != NULL && uri == NULL) ||
	    (ns != NULL && ns->prefix != NULL && prefix == NULL))
		return NULL;
	return dom__name(doc, uri, prefix, l);
}

static int convert_attrs(dom_doc *doc, dom_element *el, xmlNodePtr x)
{
	xmlAttrPtr a;
	uint32_t n = 0;

	for (a = x->properties; a != NULL; a = a->next)
		n++;
	if (n == 0)
		return 0;
	if (dom__reserve_attrs(el, n) != LAB_OK)
		return -1;
	for (a = x->properties; a != NULL; a = a->next) {
		dom_attr *at = &el->attrs.items[el->attrs.count];
		xmlChar *v = xmlNodeListGetString(x->doc, a->children, 1);
		const char *s = v != NULL ? (const char *)v : "";

		at->name = name_x(doc, a->ns, a->name);
		at->len = strlen(s);
		at->value = dom__arena_strndup(&doc->arena, s, at->len);
		xmlFree(v);
		if (at->name == NULL || at->value == NULL)
			return -1;
		el->attrs.count++;
	}
	return dom__attrs_built(el, NULL) == LAB_OK ? 0 : -1;
}

static int convert_nsdecls(dom_doc *doc, dom_element *el, xmlNodePtr x)
{
	xmlNsPtr ns;
	uint32_t n = 0;

	for (ns = x->nsDef; ns != NULL; ns = ns->next)
		n++;
	if (n == 0)
		return 0;
	if (dom__reserve_nsdecls(el, n) != LAB_OK)
		return -1;
	for (ns = x->nsDef; ns != NULL; ns = ns->next) {
		dom_nsdecl *d = &el->nsdecls[el->base.len];

		d->prefix = intern_x(doc, ns->prefix);
		d->uri = ns->href != NULL ? intern_x(doc, ns->href) : doc->empty;
		if (d->uri == NULL || (ns->prefix != NULL && d->prefix == NULL))
			return -1;
		dom__note_ns(doc, d->uri);
		el->base.len++;
	}
	return 0;
}

/* One of libxml2's nodes as ours, unlinked; *out NULL for nodes we drop. */
static int convert_node(dom_doc *doc, xmlNodePtr x, dom_node **out)
{
	const dom_name *name;
	dom_element *el;
	dom_chars *c;
	const char *s = (const char *)x->content;

	*out = NULL;
	switch (x->type) {
	case XML_ELEMENT_NODE:
		name = name_x(doc, x->ns, x->name);
		el = name != NULL ? dom__new_element(doc, name) : NULL;
		if (el == NULL ||
		    convert_nsdecls(doc, el, x) != 0 ||
		    convert_attrs(doc, el, x) != 0)
			return -1;
		*out = &el->base;
		return 0;
	case XML_TEXT_NODE:
	case XML_CDATA_SECTION_NODE:
	case XML_COMMENT_NODE:
	case XML_PI_NODE:
		c = dom__new_chars(doc,
				   x->type == XML_TEXT_NODE    ? DOM_TEXT
				   : x->type == XML_COMMENT_NODE ? DOM_COMMENT
				   : x->type == XML_PI_NODE    ? DOM_PI
							       : DOM_CDATA,
				   s != NULL ? s : "", s != NULL ? strlen(s) : 0);
		if (c == NULL || (x->type == XML_PI_NODE &&
				  (c->target = intern_x(doc, x->name)) == NULL))
			return -1;
		*out = &c->base;
		return 0;
	default:
		/* The DTD node: its declarations have done their work. */
		return 0;
	}
}

/* The limits a converted node breaks, as the SAX handlers word them. */
static int over_limit(xmlNodePtr x, const dom_limits *lim, lab_err *err)
{
	long line = xmlGetLineNo(x);
	unsigned long at = line > 0 ? (unsigned long)line : 0;

	if (x->type == XML_ELEMENT_NODE)
		return lab_fail_at(err, LAB_EMALFORMED, at, 0,
				   "elements nested deeper than the limit of %zu",
				   lim->max_depth);
	return lab_fail_at(err, LAB_EMALFORMED, at, 0,
			   "text of more than %zu bytes is over the limit",
			   lim->max_text);
}

/*
 * Walks libxml2's tree under xparent, mirroring it under parent.  What
 * libxml2 copies from an entity it has expanded before never went
 * through SAX, so depth and text length are checked again here: both
 * build choices refuse the same documents.
 */
static int convert(dom_doc *doc, xmlNodePtr xparent, dom_node *parent,
		   const dom_limits *lim, lab_err *err)
{
	xmlNodePtr x = xparent->children;
	size_t depth = 0; /* elements above x */

	while (x != NULL) {
		dom_node *n;

		if (convert_node(doc, x, &n) != 0)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
		if (n != NULL &&
		    ((n->type == DOM_ELEMENT && depth >= lim->max_depth) ||
		     (n->type == DOM_TEXT && n->len > lim->max_text)))
			return over_limit(x, lim, err);
		if (n != NULL) {
			dom__link_last(parent, n);
			if (x->type == XML_ELEMENT_NODE && x->children != NULL) {
				parent = n;
				x = x->children;
				depth++;
				continue;
			}
		}
		while (x->next == NULL && x->parent != xparent) {
			x = x->parent;
			parent = parent->parent;
			depth--;
		}
		x = x->next;
	}
	return LAB_OK;
}

int dom__xml2_build_tree(dom_doc *doc, dom_node *parent, const char *buf,
			 size_t len, const dom_limits *lim, lab_err *err)
{
	dom_xml2_guard guard = {NULL, lim, err, 0, 0, 0, 0, 0, NULL, 0};
	xmlParserCtxtPtr ctxt;
	xmlSAXHandler sax;
	int rc;

	memset(&sax, 0, sizeof sax);
	xmlSAXVersion(&sax, 2);
	sax.startElementNs = on_start;
	sax.endElementNs = on_end;
	sax.characters = on_chars;
	sax.ignorableWhitespace = on_chars;
	sax.cdataBlock = on_cdata;
	sax.comment = on_comment;
	sax.processingInstruction = on_pi;
	sax.getEntity = on_get_entity;
	ctxt = dom__xml2_ctxt(buf, len, &sax, NULL, &guard);
	if (ctxt == NULL)
		return lab_fail(err, LAB_ENOMEM, "cannot create a parser");
	rc = dom__xml2_run(ctxt, &guard);
	if (rc == LAB_OK)
		rc = convert(doc, (xmlNodePtr)ctxt->myDoc, parent, lim, err);
	if (rc == LAB_OK && parent->type == DOM_DOCUMENT &&
	    dom__xml2_decl(ctxt, doc) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	xmlFreeDoc(ctxt->myDoc);
	ctxt->myDoc = NULL;
	xmlFreeParserCtxt(ctxt);
	return rc;
}
