/*
 * insitu.c - fuzz target for parser=insitu, differential against libxml2.
 * Build against a variant whose parser is insitu (see the Makefile's
 * `fuzz` target or: clang -fsanitize=fuzzer,address,undefined -I.
 * $(pkg-config --cflags libxml-2.0) tests/fuzz/insitu.c
 * build/best-asan/libdomlab-wss.a build/best-asan/libdomlab-dom.a -lxml2 -lcrypto -lpthread).
 *
 * Every input is parsed by dom_parse (memory errors and crashes are the
 * sanitizers' to find).  Where the input has no DTD and names no
 * encoding (the profile insitu reads; libxml2 reads more), libxml2
 * (NONET, no DTD loading) must agree on whether it is well-formed,
 * namespaces included, and when both accept, the two trees must be the
 * same node for node.  Any disagreement aborts.
 * Not for: a variant whose parser is libxml2 (it would compare libxml2
 * with itself).
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void differ(const char *what, const char *a, const char *b)
{
	fprintf(stderr, "insitu and libxml2 differ: %s: '%s' vs '%s'\n", what,
		a != NULL ? a : "(null)", b != NULL ? b : "(null)");
	abort();
}

static void same_str(const char *what, const char *a, const xmlChar *b)
{
	const char *s = (const char *)b;

	if ((a == NULL) != (s == NULL) || (a != NULL && strcmp(a, s) != 0))
		differ(what, a, s);
}

static void same_mem(const char *what, const char *a, size_t alen,
		     const xmlChar *b)
{
	const char *s = b != NULL ? (const char *)b : "";

	if (alen != strlen(s) || memcmp(a, s, alen) != 0)
		differ(what, a, s);
}

static void same_node(const dom_node *o, xmlNodePtr x);

/*
 * libxml2's tree merges adjacent CDATA sections, which ours keeps apart:
 * the run starting at *c against one node; *c moves to the run's last.
 */
static void same_cdata_run(const dom_node **c, xmlNodePtr x)
{
	const char *want = x->content != NULL ? (const char *)x->content : "";
	size_t wlen = strlen(want), off = 0, len;
	const dom_node *n = *c;

	for (;;) {
		const char *v = dom_value(n, &len);

		if (off + len > wlen || memcmp(want + off, v, len) != 0)
			differ("CDATA", v, want);
		off += len;
		*c = n;
		n = dom_next_sibling(n);
		if (n == NULL || dom_node_type(n) != DOM_CDATA)
			break;
	}
	if (off != wlen)
		differ("CDATA", "shorter", want);
}

static void same_children(const dom_node *o, xmlNodePtr x)
{
	const dom_node *c = dom_first_child(o);
	xmlNodePtr xc = x->children;

	for (; c != NULL && xc != NULL; c = dom_next_sibling(c), xc = xc->next) {
		if (xc->type == XML_CDATA_SECTION_NODE &&
		    dom_node_type(c) == DOM_CDATA)
			same_cdata_run(&c, xc);
		else
			same_node(c, xc);
	}
	if (c != NULL || xc != NULL)
		differ("child count", c ? "more" : "fewer", "");
}

/* Recursion bounded by both parsers' depth cap of 256. */
static void same_node(const dom_node *o, xmlNodePtr x)
{
	static const dom_type types[] = {
		[XML_ELEMENT_NODE] = DOM_ELEMENT,
		[XML_TEXT_NODE] = DOM_TEXT,
		[XML_CDATA_SECTION_NODE] = DOM_CDATA,
		[XML_PI_NODE] = DOM_PI,
		[XML_COMMENT_NODE] = DOM_COMMENT,
	};
	const char *v;
	size_t len;

	if ((size_t)x->type >= sizeof types / sizeof types[0] ||
	    types[x->type] != dom_node_type(o))
		differ("node type", "", "");
	if (x->type == XML_ELEMENT_NODE) {
		size_t n, i = 0;
		const dom_nsdecl *d = dom_ns_decls(o, &n);
		xmlNsPtr ns;
		xmlAttrPtr a;

		same_str("local name", dom_local_name(o), x->name);
		same_str("namespace", dom_ns_uri(o), x->ns ? x->ns->href : NULL);
		same_str("prefix", dom_prefix(o), x->ns ? x->ns->prefix : NULL);
		for (ns = x->nsDef; ns != NULL; ns = ns->next, i++) {
			if (i >= n)
				differ("declarations", "fewer", "");
			same_str("declared prefix", d[i].prefix, ns->prefix);
			same_mem("declared URI", d[i].uri, strlen(d[i].uri),
				 ns->href);
		}
		if (i != n)
			differ("declarations", "more", "");
		for (a = x->properties, i = 0; a != NULL; a = a->next, i++) {
			const char *uri = a->ns ? (const char *)a->ns->href : NULL;
			const dom_attr *at = dom_attr_get_str(
				o, uri, (const char *)a->name);
			xmlChar *val;

			if (at == NULL)
				differ("attribute", "missing",
				       (const char *)a->name);
			same_str("attribute prefix", dom_attr_prefix(at),
				 a->ns ? a->ns->prefix : NULL);
			val = xmlNodeListGetString(x->doc, a->children, 1);
			same_mem("attribute value", at->value, at->len, val);
			xmlFree(val);
		}
		if (i != dom_attr_count(o))
			differ("attribute count", "", "");
		same_children(o, x);
		return;
	}
	if (x->type == XML_PI_NODE)
		same_str("PI target", dom_local_name(o), x->name);
	v = dom_value(o, &len);
	same_mem("character data", v, len, x->content);
}

/*
 * libxml2's verdict: 1 well-formed (namespaces too), 0 not, -1 refused
 * only for a namespace name it cannot parse as a URI (insitu checks a
 * URI's characters, not its syntax); *out its tree.
 */
static size_t uri_errors, other_errors;

/* Counts libxml2's errors (and keeps them off stderr). */
static void on_error(void *user, xmlErrorPtr e)
{
	(void)user;
	if (e->level < XML_ERR_ERROR)
		return;
	if (e->code == XML_WAR_NS_URI)
		uri_errors++;
	else
		other_errors++;
}

static int libxml2_parse(const uint8_t *data, size_t size, xmlDocPtr *out)
{
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	int ok;

	if (ctxt == NULL)
		abort();
	uri_errors = other_errors = 0;
	xmlSetStructuredErrorFunc(NULL, on_error);
	*out = xmlCtxtReadMemory(ctxt, (const char *)data, (int)size, NULL,
				 NULL, XML_PARSE_NONET | XML_PARSE_NOENT);
	ok = *out != NULL && ctxt->wellFormed && ctxt->nsWellFormed;
	if (*out != NULL && ctxt->wellFormed && other_errors == 0 &&
	    uri_errors > 0)
		ok = -1;
	xmlFreeParserCtxt(ctxt);
	return ok;
}

/* Inputs where the two parsers are meant to agree. */
static int comparable(const uint8_t *data, size_t size)
{
	return size > 0 && data[0] != 0xfe && data[0] != 0xff &&
	       memmem(data, size, "<!DOCTYPE", 9) == NULL &&
	       memmem(data, size, "encoding", 8) == NULL &&
	       memchr(data, '\0', size) == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dom_doc *doc = NULL;
	xmlDocPtr x = NULL;
	lab_err err;
	int rc;

	if (size > 1 << 20)
		return 0;
	rc = dom_parse((const char *)data, size, NULL, &doc, &err);
	if (rc != LAB_OK && (err.line == 0 || err.col == 0))
		differ("error without a position", err.msg, "");
	if (comparable(data, size)) {
		int ok = libxml2_parse(data, size, &x);

		if (ok >= 0 && ok != (rc == LAB_OK))
			differ("well-formedness", rc == LAB_OK ? "accepted"
							       : err.msg,
			       ok ? "accepted" : "refused");
		if (ok > 0)
			same_children(dom_doc_node(doc), (xmlNodePtr)x);
		xmlFreeDoc(x);
	}
	dom_doc_free(doc);
	return 0;
}
