/*
 * envelope.c - shapes a --data envelope for the cases that add a header
 * of their own (envelope.h): the encrypted-header layout adds a block to
 * the Header, and the hop cases sign a wsa:To of their own, so a file's
 * own wsa:To makes way for it.  Any Header shape goes: none, empty, with
 * blocks, under any prefix, SOAP 1.1 or 1.2.  Setup-only work, never
 * timed.
 * Not for: the generated datasets, whose bytes stay as generated
 * (stages.c), or deciding whether a file is taken (data_files.c).
 */
#include "harness/bench/envelope.h"

#include <stdio.h>
#include <string.h>

#include "dom/dom.h"
#include "wss/hop.h"
#include "wss/profile.h"

static int is_soap(const dom_node *n, const char *local)
{
	const char *ns;

	if (n == NULL || dom_node_type(n) != DOM_ELEMENT ||
	    (ns = dom_ns_uri(n)) == NULL)
		return 0;
	return (strcmp(ns, WSS_NS_SOAP) == 0 ||
		strcmp(ns, WSS_NS_SOAP12) == 0) &&
	       strcmp(dom_local_name(n), local) == 0;
}

/* The envelope's child named local, or NULL. */
static dom_node *child(const dom_node *env, const char *local)
{
	dom_node *c;

	for (c = dom_first_child(env); c != NULL; c = dom_next_sibling(c))
		if (is_soap(c, local) && strcmp(dom_ns_uri(c), dom_ns_uri(env)) == 0)
			return c;
	return NULL;
}

/* The Header of doc's envelope, made before the Body when missing. */
static int header_of(dom_doc *doc, int make, dom_node **out, lab_err *err)
{
	dom_node *env = dom_doc_element(doc), *body;
	char frag[128];
	int n, rc;

	*out = NULL;
	if (!is_soap(env, "Envelope") || (body = child(env, "Body")) == NULL)
		return lab_fail(err, LAB_EMALFORMED,
				"not a SOAP 1.1 or 1.2 envelope with a Body");
	*out = child(env, "Header");
	if (*out != NULL || !make)
		return LAB_OK;
	n = snprintf(frag, sizeof frag, "<Header xmlns=\"%s\"/>",
		     dom_ns_uri(env));
	if (n < 0 || (size_t)n >= sizeof frag)
		return lab_fail(err, LAB_EUSAGE, "namespace too long");
	rc = dom_parse_into(env, body, frag, (size_t)n, NULL, err);
	*out = child(env, "Header");
	return rc;
}

static int is_block(const dom_node *n, const char *ns, const char *local)
{
	return dom_node_type(n) == DOM_ELEMENT && dom_ns_uri(n) != NULL &&
	       strcmp(dom_ns_uri(n), ns) == 0 &&
	       strcmp(dom_local_name(n), local) == 0;
}

int lab_envelope_shape(const char *bytes, size_t len, const char *block,
		       const char *drop_ns, const char *drop_local,
		       lab_buf *out, lab_err *err)
{
	dom_doc *doc = NULL;
	dom_node *header = NULL, *c = NULL, *next;
	int rc = dom_parse(bytes, len, NULL, &doc, err);

	if (rc == LAB_OK)
		rc = header_of(doc, block != NULL, &header, err);
	if (rc == LAB_OK && header != NULL && drop_ns != NULL)
		c = dom_first_child(header);
	for (; c != NULL; c = next) {
		next = dom_next_sibling(c);
		if (is_block(c, drop_ns, drop_local))
			dom_remove(c);
	}
	if (rc == LAB_OK && block != NULL)
		rc = dom_parse_into(header, NULL, block, strlen(block), NULL,
				    err);
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), out, err);
	dom_doc_free(doc);
	return rc;
}

int lab_envelope_has_block(const char *bytes, size_t len, const char *ns,
			   const char *local)
{
	dom_doc *doc = NULL;
	dom_node *header = NULL;
	lab_err err;
	int found = 0;

	lab_err_clear(&err);
	if (dom_parse(bytes, len, NULL, &doc, &err) == LAB_OK &&
	    header_of(doc, 0, &header, &err) == LAB_OK && header != NULL) {
		const dom_node *c;

		for (c = dom_first_child(header); c != NULL && !found;
		     c = dom_next_sibling(c))
			found = is_block(c, ns, local);
	}
	dom_doc_free(doc);
	return found;
}
