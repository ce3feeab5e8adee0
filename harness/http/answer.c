/*
 * answer.c - what the endpoint does with one request body: receive it,
 * build a new envelope from the request's Body and send that back,
 * secured for the client; or a SOAP 1.1 Fault with the status that says
 * why not.  Through domlab's pipeline (this variant) or the reference
 * peer, the same steps either way.
 *
 * The status (docs/http.md): 400 for a body that is not a SOAP 1.1
 * Envelope within the parser's limits, checked before any security
 * work; 500 with faultcode Client for an envelope receive refused,
 * carrying receive's own message and nothing more; 500 with faultcode
 * Server when the server itself failed, saying only that.
 * Not for: HTTP (serve.c) or the limits on the body's size (serve.c).
 */
#include <stdio.h>
#include <string.h>

#include "harness/http/http.h"
#include "harness/refpeer/ref.h"
#include "util/alloc.h"
#include "wss/c14n.h"
#include "wss/profile.h"

static const char ENV_OPEN[] =
	"<soap:Envelope xmlns:soap=\"" WSS_NS_SOAP "\"><soap:Body>";
static const char ENV_CLOSE[] = "</soap:Body></soap:Envelope>";

int http_fault(const char *code, const char *msg, lab_buf *out)
{
	int rc = lab_buf_printf(out, "%s<soap:Fault><faultcode>soap:%s"
				"</faultcode><faultstring>",
				ENV_OPEN, code);

	for (; rc == LAB_OK && *msg != '\0'; msg++)
		rc = *msg == '<'   ? lab_buf_puts(out, "&lt;")
		     : *msg == '&' ? lab_buf_puts(out, "&amp;")
		     : *msg == '>' ? lab_buf_puts(out, "&gt;")
				   : lab_buf_putc(out, *msg);
	if (rc == LAB_OK)
		rc = lab_buf_printf(out, "</faultstring></soap:Fault>%s",
				    ENV_CLOSE);
	return rc;
}

static int discard(void *ctx, const char *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return LAB_OK;
}

static dom_node *child_el(dom_node *parent, const char *local)
{
	dom_node *c;

	for (c = dom_first_child(parent); c != NULL; c = dom_next_sibling(c))
		if (dom_node_type(c) == DOM_ELEMENT &&
		    strcmp(dom_local_name(c), local) == 0 &&
		    dom_ns_uri(c) != NULL &&
		    strcmp(dom_ns_uri(c), WSS_NS_SOAP) == 0)
			return c;
	return NULL;
}

/*
 * The response's envelope: a new document whose Body holds the received
 * Body's content, moved through its exclusive C14N (a fragment that
 * declares every namespace it uses), then sent.
 */
static int reply(dom_doc *req, const wss_keyset *ks, const wss_opts *o,
		 lab_buf *out, lab_err *err)
{
	wss_c14n_opts c = {1, 0, NULL, 0, NULL};
	dom_node *body = child_el(dom_doc_element(req), "Body");
	lab_buf text = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	int rc = lab_buf_puts(&text, ENV_OPEN);

	if (rc == LAB_OK && body == NULL)
		rc = lab_fail(err, LAB_ESECURITY, "the envelope has no Body");
	if (rc == LAB_OK)
		rc = wss_c14n_tee(body, &c, discard, NULL, &text, err);
	if (rc == LAB_OK)
		rc = lab_buf_puts(&text, ENV_CLOSE);
	if (rc == LAB_OK)
		rc = dom_parse(text.data, text.len, &o->lim, &doc, err);
	if (rc == LAB_OK)
		rc = wss_send_doc(doc, ks->key, ks->cert, ks->peer_cert, o,
				  err);
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), out, err);
	dom_doc_free(doc);
	lab_buf_free(&text);
	return rc;
}

/* 1 when doc's root is a SOAP 1.1 Envelope. */
static int is_envelope(dom_doc *doc)
{
	dom_node *root = dom_doc_element(doc);

	return root != NULL && strcmp(dom_local_name(root), "Envelope") == 0 &&
	       dom_ns_uri(root) != NULL &&
	       strcmp(dom_ns_uri(root), WSS_NS_SOAP) == 0;
}

/* domlab's pipeline; *stage says how far it came: 0 parsing, 1 past. */
static int answer_domlab(const http_answer_cfg *cfg, const char *req,
			 size_t len, const wss_opts *o, int *stage,
			 lab_buf *out, lab_err *err)
{
	dom_doc *doc = NULL;
	void *handle = NULL;
	wss_keyset ks;
	int rc = dom_parse(req, len, &cfg->lim, &doc, err);

	if (rc == LAB_OK && !is_envelope(doc))
		rc = lab_fail(err, LAB_EMALFORMED,
			      "not a SOAP 1.1 Envelope");
	if (rc != LAB_OK) {
		dom_doc_free(doc);
		return rc;
	}
	*stage = 1;
	rc = wss_keys_acquire(&cfg->paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = wss_receive_doc(doc, ks.key, ks.trust, o, err);
	if (rc == LAB_OK)
		rc = reply(doc, &ks, o, out, err);
	wss_keys_release(handle);
	dom_doc_free(doc);
	return rc;
}

int http_answer(const http_answer_cfg *cfg, const char *req, size_t len,
		unsigned *status, lab_buf *out)
{
	lab_err err;
	wss_opts o;
	int stage = 0, rc;

	lab_err_clear(&err);
	wss_opts_default(&o);
	o.lim = cfg->lim;
	rc = cfg->stack == HTTP_STACK_REF
		     ? lab_ref_reply(req, len, &cfg->paths, &o, &stage, out, &err)
		     : answer_domlab(cfg, req, len, &o, &stage, out, &err);
	if (rc == LAB_OK) {
		*status = 200;
		return LAB_OK;
	}
	out->len = 0;
	if (rc == LAB_ENOMEM || rc == LAB_EIO || rc == LAB_EUSAGE) {
		*status = 500;
		rc = http_fault("Server", "the server could not answer", out);
	} else {
		/* Word for word what `domlab receive` prints after its name. */
		char msg[sizeof err.msg + 64];

		if (err.line > 0)
			snprintf(msg, sizeof msg, "line %lu, column %lu: %s",
				 err.line, err.col, err.msg);
		else
			snprintf(msg, sizeof msg, "%s", err.msg);
		*status = stage == 0 ? 400 : 500;
		rc = http_fault("Client", msg, out);
	}
	return rc == LAB_OK ? LAB_OK : LAB_ENOMEM;
}
