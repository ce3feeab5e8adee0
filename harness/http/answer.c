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
 *
 * SOAP with Attachments: a multipart/related body is handed to the
 * multipart reader through a memory file (memfd), read through the io
 * axis, so io=unbuffered makes one read(2) per byte of the message as
 * Axis2's reader did on the request's stream; libmicrohttpd has read the
 * socket itself already, in large reads.  The Content-Type header's value
 * goes before it as the MIME message's header, as on the wire.
 *
 * With a token store (serve --tokens) the request's token is admitted
 * once receive accepted the message: a replayed one is refused.
 * Not for: HTTP (serve.c) or the limits on the body's size (serve.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

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
		rc = wss_send_bytes(text.data, text.len, ks->key, ks->cert,
				    ks->peer_cert, o, &doc, out, err);
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

int http_is_multipart(const char *ctype)
{
	static const char mr[] = "multipart/related";

	if (ctype == NULL)
		return 0;
	ctype += strspn(ctype, " \t");
	return strncasecmp(ctype, mr, sizeof mr - 1) == 0 &&
	       strchr("; \t", ctype[sizeof mr - 1]) != NULL;
}

int http_tokens_admit(http_tokens *t, const unsigned char id[WSS_SHA1_LEN],
		      const unsigned char *key, size_t len, lab_err *err)
{
	size_t n = 0;
	int rc;

	pthread_mutex_lock(&t->lock);
	rc = wss_tokens_get(t->store, id, &n) != NULL
		     ? lab_fail(err, LAB_ESECURITY,
				"the request's token was used before")
		     : wss_tokens_put(t->store, id, key, len, err);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

size_t http_tokens_count(http_tokens *t)
{
	size_t n;

	pthread_mutex_lock(&t->lock);
	n = wss_tokens_count(t->store);
	pthread_mutex_unlock(&t->lock);
	return n;
}

/* The reference stack's token, admitted as answer_domlab's is. */
static int ref_admit(void *ctx, const unsigned char *wrapped, size_t len,
		     lab_err *err)
{
	unsigned char id[WSS_SHA1_LEN];

	if (wss_sha1(wrapped, len, id) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "digest failed");
	return http_tokens_admit(ctx, id, wrapped, len, err);
}

/* The multipart body through a memory file and the io axis into m. */
static int read_mime(const char *ctype, const char *req, size_t len,
		     const dom_limits *lim, lab_msg *m, lab_err *err)
{
	lab_buf head = LAB_BUF_INIT;
	int fd = memfd_create("domlab-request", MFD_CLOEXEC);
	size_t off = 0;
	int rc = fd >= 0 ? LAB_OK
			 : lab_fail(err, LAB_EIO, "memfd_create: %s",
				    strerror(errno));

	while (rc == LAB_OK && off < len) {
		ssize_t n = write(fd, req + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = lab_fail(err, LAB_EIO, "cannot write the body");
		else
			off += (size_t)n;
	}
	if (rc == LAB_OK && lseek(fd, 0, SEEK_SET) != 0)
		rc = lab_fail(err, LAB_EIO, "cannot rewind the body");
	if (rc == LAB_OK &&
	    lab_buf_printf(&head, "Content-Type: %s\r\n\r\n", ctype) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK)
		rc = lab_msg_read_mime(fd, head.data, head.len, lim, m, err);
	if (fd >= 0)
		close(fd);
	lab_buf_free(&head);
	return rc;
}

/* Receives m (its attachments in o) and, with a store, admits its token:
 * read before receive, which removes the EncryptedKey, and kept only
 * once receive has accepted the message. */
static int receive(const http_answer_cfg *cfg, lab_msg *m, wss_opts *o,
		   const wss_keyset *ks, lab_err *err)
{
	unsigned char id[WSS_SHA1_LEN];
	lab_buf wrapped = LAB_BUF_INIT;
	lab_err token_err;
	int token_rc = LAB_OK, rc;

	lab_err_clear(&token_err);
	if (cfg->tokens != NULL)
		token_rc = wss_msg_key_token(m->doc, &wrapped, id, &token_err);
	o->att = m->att;
	o->natt = m->natt;
	rc = wss_receive_doc(m->doc, ks->key, ks->trust, o, err);
	o->att = NULL;
	o->natt = 0;
	if (rc == LAB_OK && token_rc != LAB_OK) {
		*err = token_err;
		rc = token_rc;
	}
	if (rc == LAB_OK && cfg->tokens != NULL)
		rc = http_tokens_admit(cfg->tokens, id,
				       (const unsigned char *)wrapped.data,
				       wrapped.len, err);
	lab_buf_free(&wrapped);
	return rc;
}

/* domlab's pipeline; *stage says how far it came: 0 parsing, 1 past. */
static int answer_domlab(const http_answer_cfg *cfg, const char *req,
			 size_t len, const char *ctype, wss_opts *o,
			 int *stage, lab_buf *out, lab_err *err)
{
	lab_msg m;
	void *handle = NULL;
	wss_keyset ks;
	int rc;

	memset(&m, 0, sizeof m);
	rc = http_is_multipart(ctype)
		     ? read_mime(ctype, req, len, &cfg->lim, &m, err)
		     : dom_parse(req, len, &cfg->lim, &m.doc, err);
	if (rc == LAB_OK && !is_envelope(m.doc))
		rc = lab_fail(err, LAB_EMALFORMED,
			      "not a SOAP 1.1 Envelope");
	if (rc == LAB_OK) {
		*stage = 1;
		rc = wss_keys_acquire(&cfg->paths, &ks, &handle, err);
	}
	if (rc == LAB_OK)
		rc = receive(cfg, &m, o, &ks, err);
	if (rc == LAB_OK)
		rc = reply(m.doc, &ks, o, out, err);
	wss_keys_release(handle);
	lab_msg_free(&m);
	return rc;
}

int http_answer(const http_answer_cfg *cfg, const char *req, size_t len,
		const char *ctype, unsigned *status, lab_buf *out)
{
	lab_err err;
	wss_opts o;
	int stage = 0, rc;

	lab_err_clear(&err);
	wss_opts_default(&o);
	o.lim = cfg->lim;
	if (cfg->stack == HTTP_STACK_REF && http_is_multipart(ctype)) {
		*status = 415;
		return http_fault("Client",
				  "the reference stack takes no attachments",
				  out) == LAB_OK
			       ? LAB_OK
			       : LAB_ENOMEM;
	}
	rc = cfg->stack == HTTP_STACK_REF
		     ? lab_ref_reply(req, len, &cfg->paths, &o,
				     cfg->tokens != NULL ? ref_admit : NULL,
				     cfg->tokens, &stage, out, &err)
		     : answer_domlab(cfg, req, len, ctype, &o, &stage, out,
				     &err);
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
