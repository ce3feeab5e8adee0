/*
 * canon.c - libFuzzer target: content that stands for itself in a digest
 * (dom_canonical_content).  The first input byte picks a host document,
 * the rest replaces the placeholder in its Body through
 * dom_replace_parsed.  Exclusive C14N of that Body -- which takes the
 * kept bytes whenever the parser found them canonical -- must equal the
 * C14N of the Body of the host parsed whole with the fragment written in,
 * once as parsed (under emit=canonical the parser's own canonical form)
 * and once after a change inside that ends what it kept (a walk); or all
 * three must refuse it alike.  So must the host parsed for signing
 * (dom_parse_signing, which may put the content's attributes in C14N's
 * order where they stand), and that document serialized and parsed
 * again: the order it wrote is the same content.
 * Not for: C14N's own correctness (c14n.c) or signatures (receive.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"
#include "wss/c14n.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const hosts[][2] = {
	{"<e:Env xmlns:e=\"urn:e\" xmlns:w=\"urn:w\" xmlns:u=\"urn:u\">"
	 "<e:Body w:Id=\"b\">", "</e:Body></e:Env>"},
	{"<Env xmlns=\"urn:d\" xmlns:e=\"urn:e\"><e:Body>", "</e:Body></Env>"},
	{"<Body xmlns=\"urn:d\">", "</Body>"},
};

/* The first element named Body in document order. */
static dom_node *body(dom_doc *doc)
{
	dom_node *n = dom_doc_element(doc);

	while (n != NULL && strcmp(dom_local_name(n), "Body") != 0)
		n = dom_first_child(n);
	return n;
}

static int same(const lab_buf *a, const lab_buf *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const wss_c14n_opts exc = {1, 0, NULL, 0, NULL};
	lab_buf text = LAB_BUF_INIT, got = LAB_BUF_INIT, want = LAB_BUF_INIT;
	lab_buf all = LAB_BUF_INIT, sig = LAB_BUF_INIT, out = LAB_BUF_INIT;
	dom_doc *doc = NULL, *ref = NULL, *whole = NULL, *signing = NULL;
	dom_doc *again = NULL;
	const char *const *h;
	dom_node *x = NULL, *c;
	lab_err err;
	int rc;

	if (size < 1)
		return 0;
	h = hosts[data[0] % 3];
	/* The host with a placeholder, and the host with the fragment. */
	if (lab_buf_printf(&text, "%s<x/>%s", h[0], h[1]) != LAB_OK ||
	    dom_parse(text.data, text.len, NULL, &doc, &err) != LAB_OK)
		abort();
	text.len = 0;
	if (lab_buf_puts(&text, h[0]) != LAB_OK ||
	    lab_buf_put(&text, (const char *)data + 1, size - 1) != LAB_OK ||
	    lab_buf_puts(&text, h[1]) != LAB_OK)
		abort();
	/* What does not parse both ways is not this target's question. */
	if (dom_parse(text.data, text.len, NULL, &ref, &err) != LAB_OK)
		goto out;
	if (dom_parse(text.data, text.len, NULL, &whole, &err) != LAB_OK ||
	    dom_parse_signing(text.data, text.len, NULL, &signing, &err) !=
		    LAB_OK ||
	    dom_serialize(dom_doc_element(signing), &out, &err) != LAB_OK ||
	    dom_parse(out.data, out.len, NULL, &again, &err) != LAB_OK)
		abort();
	/* A comment in and out of ref's Body: what ref kept goes. */
	if (dom_create_comment(ref, "c", 1, &c, &err) != LAB_OK ||
	    dom_append(body(ref), c, &err) != LAB_OK)
		abort();
	dom_node_free(c);
	text.len = 0;
	if (lab_buf_put(&text, (const char *)data + 1, size - 1) != LAB_OK)
		abort();
	x = dom_first_child(body(doc));
	if (dom_replace_parsed(x, &text, 0, size - 1, NULL, &err) != LAB_OK)
		goto out;
	rc = wss_c14n_buf(body(ref), &exc, &want, &err);
	/* A refusal (a relative namespace URI in the document) is the same whether
	 * the kept bytes or the walk stand for the content. */
	if (wss_c14n_buf(body(doc), &exc, &got, &err) != rc ||
	    wss_c14n_buf(body(whole), &exc, &all, &err) != rc ||
	    wss_c14n_buf(body(signing), &exc, &sig, &err) != rc ||
	    (rc != LAB_OK && rc != LAB_ESECURITY))
		abort();
	if (rc != LAB_OK)
		goto out;
	if (!same(&got, &want) || !same(&all, &want) || !same(&sig, &want))
		abort();
	/* C14N of the document written and read again, last: it builds. */
	sig.len = 0;
	if (wss_c14n_buf(body(again), &exc, &sig, &err) != LAB_OK ||
	    !same(&sig, &want))
		abort();
out:
	lab_buf_free(&text);
	lab_buf_free(&got);
	lab_buf_free(&want);
	lab_buf_free(&all);
	lab_buf_free(&sig);
	lab_buf_free(&out);
	dom_doc_free(doc);
	dom_doc_free(ref);
	dom_doc_free(whole);
	dom_doc_free(signing);
	dom_doc_free(again);
	return 0;
}
