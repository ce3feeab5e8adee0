/*
 * sax.c - parser=libxml2 under build=direct: our tree straight from
 * libxml2's SAX2 events, with no intermediate tree (Axiom's DOOM built
 * from the StAX reader).
 *
 * libxml2 hands names out of its own dictionary, one pointer per distinct
 * string, so a small cache keyed by that pointer turns most of our
 * interning into one compare.  Character data arrives in pieces and is
 * gathered until the next markup event.
 */
#include <libxml/SAX2.h>
#include <string.h>

#include "variants/parser/libxml2/xml2.h"

enum { MEMO_SLOTS = 256 };

typedef struct memo_slot {
	const xmlChar *key;  /* libxml2 dictionary string */
	const char *name;    /* our interned copy */
} memo_slot;

typedef struct direct {
	dom_xml2_guard guard;
	xmlParserCtxtPtr ctxt;
	dom_doc *doc;
	dom_node *cur;       /* element (or root) receiving children */
	lab_buf text;        /* character data not yet made a node */
	memo_slot memo[MEMO_SLOTS];
} direct;

static void fail_nomem(direct *d)
{
	dom__xml2_fail(d->ctxt, LAB_ENOMEM, "out of memory");
}

static const char *intern_x(direct *d, const xmlChar *s)
{
	memo_slot *m;

	if (s == NULL)
		return NULL;
	m = &d->memo[((uintptr_t)s >> 4) % MEMO_SLOTS];
	if (m->key != s) {
		const char *name = dom_intern(d->doc, (const char *)s,
					      strlen((const char *)s));

		if (name == NULL)
			return NULL;
		/* Only dictionary strings are stable enough to key on; all
		 * names from SAX2 are, and values never go through here. */
		m->key = s;
		m->name = name;
	}
	return m->name;
}

static int flush_text(direct *d)
{
	dom_chars *t;

	if (d->text.len == 0)
		return 0;
	t = dom__new_chars(d->doc, DOM_TEXT, d->text.data, d->text.len);
	if (t == NULL) {
		fail_nomem(d);
		return -1;
	}
	dom__link_last(d->cur, &t->base);
	d->text.len = 0;
	return 0;
}

static int fill_nsdecls(direct *d, dom_element *el, int n,
			const xmlChar **ns)
{
	int i;

	if (n == 0)
		return 0;
	if (dom__reserve_nsdecls(el, (uint32_t)n) != LAB_OK)
		return -1;
	for (i = 0; i < n; i++) {
		dom_nsdecl *decl = &el->nsdecls[i];

		decl->prefix = intern_x(d, ns[2 * i]);
		decl->uri = ns[2 * i + 1] != NULL ? intern_x(d, ns[2 * i + 1])
						  : d->doc->empty;
		if ((ns[2 * i] != NULL && decl->prefix == NULL) ||
		    decl->uri == NULL)
			return -1;
		dom__note_ns(d->doc, decl->uri);
	}
	el->base.len = (uint32_t)n;
	return 0;
}

/* The name record of SAX2's (uri, prefix, local); NULL when memory runs
 * out. */
static const dom_name *name_x(direct *d, const xmlChar *uri,
			      const xmlChar *prefix, const xmlChar *local)
{
	const char *ns = intern_x(d, uri), *p = intern_x(d, prefix);
	const char *l = intern_x(d, local);

	if (l == NULL || (uri != NULL && ns == NULL) ||
	    (prefix != NULL && p == NULL))
		return NULL;
	return dom__name(d->doc, ns, p, l);
}

static int fill_attrs(direct *d, dom_element *el, int n,
		      const xmlChar **attributes)
{
	int i;

	if (n == 0)
		return 0;
	if (dom__reserve_attrs(el, (uint32_t)n) != LAB_OK)
		return -1;
	for (i = 0; i < n; i++) {
		const xmlChar **a = &attributes[5 * i];
		dom_attr *at = &el->attrs.items[i];
		size_t len = (size_t)(a[4] - a[3]);

		at->name = name_x(d, a[2], a[1], a[0]);
		at->value = dom__arena_strndup(&d->doc->arena,
					       (const char *)a[3], len);
		at->len = len;
		if (at->name == NULL || at->value == NULL)
			return -1;
	}
	el->attrs.count = (uint32_t)n;
	return 0;
}

static void on_start(void *ctx, const xmlChar *local, const xmlChar *prefix,
		     const xmlChar *uri, int nb_namespaces,
		     const xmlChar **namespaces, int nb_attributes,
		     int nb_defaulted, const xmlChar **attributes)
{
	direct *d = ctx;
	const dom_name *name;
	dom_element *el = NULL;

	(void)nb_defaulted;
	if (d->guard.failed || flush_text(d) != 0 ||
	    dom__xml2_enter(d->ctxt, local, prefix, nb_attributes,
			    attributes) != 0)
		return;
	name = name_x(d, uri, prefix, local);
	if (name != NULL)
		el = dom__new_element(d->doc, name);
	if (el == NULL ||
	    fill_nsdecls(d, el, nb_namespaces, namespaces) != 0 ||
	    fill_attrs(d, el, nb_attributes, attributes) != 0 ||
	    dom__attrs_built(el, NULL) != LAB_OK) {
		fail_nomem(d);
		return;
	}
	dom__link_last(d->cur, &el->base);
	d->cur = &el->base;
}

static void on_end(void *ctx, const xmlChar *local, const xmlChar *prefix,
		   const xmlChar *uri)
{
	direct *d = ctx;

	(void)local;
	(void)prefix;
	(void)uri;
	if (d->guard.failed || flush_text(d) != 0)
		return;
	dom__xml2_leave(d->ctxt);
	d->cur = d->cur->parent;
}

static void on_chars(void *ctx, const xmlChar *ch, int len)
{
	direct *d = ctx;

	if (d->guard.failed || dom__xml2_text(d->ctxt, (size_t)len, 0) != 0)
		return;
	if (lab_buf_put(&d->text, ch, (size_t)len) != LAB_OK)
		fail_nomem(d);
}

static void add_leaf(direct *d, dom_type type, const xmlChar *target,
		     const xmlChar *s, size_t len)
{
	dom_chars *c;

	/* Comments and PIs of the internal subset belong to the DTD. */
	if (d->guard.failed || d->ctxt->inSubset != 0 || flush_text(d) != 0)
		return;
	dom__xml2_leaf(d->ctxt);
	c = dom__new_chars(d->doc, type, s != NULL ? (const char *)s : "",
			   len);
	if (c == NULL || (target != NULL &&
			  (c->target = intern_x(d, target)) == NULL)) {
		fail_nomem(d);
		return;
	}
	dom__link_last(d->cur, &c->base);
}

static void on_cdata(void *ctx, const xmlChar *s, int len)
{
	direct *d = ctx;

	if (d->guard.failed || dom__xml2_text(d->ctxt, (size_t)len, 1) != 0)
		return;
	add_leaf(d, DOM_CDATA, NULL, s, (size_t)len);
}

static void on_comment(void *ctx, const xmlChar *s)
{
	add_leaf(ctx, DOM_COMMENT, NULL, s, strlen((const char *)s));
}

static void on_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
	add_leaf(ctx, DOM_PI, target, data,
		 data != NULL ? strlen((const char *)data) : 0);
}

/*
 * The DTD callbacks (internal subset, entity and attribute declarations)
 * stay libxml2's own: they keep the declarations in a document shell
 * (ctxt->myDoc) with no element in it, which is where the parser looks
 * entities and defaults up.  Those are the only SAX2 handlers that build
 * anything of libxml2's.
 */
static void on_start_document(void *ctx)
{
	direct *d = ctx;

	xmlSAX2StartDocument(d->ctxt);
}

static void on_internal_subset(void *ctx, const xmlChar *name,
			       const xmlChar *ext, const xmlChar *sys)
{
	direct *d = ctx;

	xmlSAX2InternalSubset(d->ctxt, name, ext, sys);
}

static xmlEntityPtr on_get_entity(void *ctx, const xmlChar *name)
{
	direct *d = ctx;

	return dom__xml2_get_entity(d->ctxt, name);
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type,
			   const xmlChar *pub, const xmlChar *sys,
			   xmlChar *content)
{
	direct *d = ctx;

	xmlSAX2EntityDecl(d->ctxt, name, type, pub, sys, content);
}

static void on_attribute_decl(void *ctx, const xmlChar *elem,
			      const xmlChar *name, int type, int def,
			      const xmlChar *dflt, xmlEnumerationPtr tree)
{
	direct *d = ctx;

	xmlSAX2AttributeDecl(d->ctxt, elem, name, type, def, dflt, tree);
}

static xmlEntityPtr on_get_parameter_entity(void *ctx, const xmlChar *name)
{
	direct *d = ctx;

	return xmlSAX2GetParameterEntity(d->ctxt, name);
}

int dom__xml2_build_sax(dom_doc *doc, dom_node *parent, const char *buf,
			size_t len, const dom_limits *lim, lab_err *err)
{
	xmlSAXHandler sax;
	direct *d;
	int rc;

	d = lab_calloc(1, sizeof *d);
	if (d == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	d->guard.lim = lim;
	d->guard.err = err;
	d->doc = doc;
	d->cur = parent;
	memset(&sax, 0, sizeof sax);
	xmlSAXVersion(&sax, 2);
	sax.startDocument = on_start_document;
	sax.internalSubset = on_internal_subset;
	sax.getEntity = on_get_entity;
	sax.getParameterEntity = on_get_parameter_entity;
	sax.entityDecl = on_entity_decl;
	sax.attributeDecl = on_attribute_decl;
	sax.elementDecl = NULL;
	sax.notationDecl = NULL;
	sax.unparsedEntityDecl = NULL;
	sax.endDocument = NULL;
	sax.startElement = NULL;
	sax.endElement = NULL;
	sax.reference = NULL;
	sax.startElementNs = on_start;
	sax.endElementNs = on_end;
	sax.characters = on_chars;
	sax.ignorableWhitespace = on_chars;
	sax.cdataBlock = on_cdata;
	sax.comment = on_comment;
	sax.processingInstruction = on_pi;
	sax.setDocumentLocator = NULL;
	d->ctxt = dom__xml2_ctxt(buf, len, &sax, d, &d->guard);
	if (d->ctxt == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "cannot create a parser");
		goto out;
	}
	rc = dom__xml2_run(d->ctxt, &d->guard);
	if (rc == LAB_OK && parent->type == DOM_DOCUMENT &&
	    dom__xml2_decl(d->ctxt, doc) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
out:
	if (d->ctxt != NULL) {
		xmlFreeDoc(d->ctxt->myDoc);
		d->ctxt->myDoc = NULL;
		xmlFreeParserCtxt(d->ctxt);
	}
	/* A fragment is decrypted plaintext (dom_replace_parsed): its text
	 * staged here is wiped, all of it, as len restarts at each node. */
	if (parent->type != DOM_DOCUMENT && d->text.data != NULL)
		explicit_bzero(d->text.data, d->text.cap);
	lab_buf_free(&d->text);
	lab_free(d);
	return rc;
}
