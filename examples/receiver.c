/*
 * receiver.c - the receiving side of domlab as an application uses it:
 * reads a secured message, receives it (Timestamp, decryption, signature
 * against the one trusted sender certificate: wss_receive_doc), and
 * prints the first element of the Body as exclusive canonical XML, so it
 * stands alone with the namespaces it uses.
 *
 *   receiver KEY.pem TRUSTED-CERT.pem IN.xml     ("-": standard input)
 *   receiver --variant                           the linked variant's name
 *
 * Exit status: the library's error code (util/err.h), 0 when received;
 * a message that fails any check is refused with 3 and prints nothing.
 * Not for: SOAP faults or routing; the Body's first element is all it reads.
 */
#include <stdio.h>
#include <string.h>

#include "dom/dom.h"
#include "wss/c14n.h"
#include "wss/wss.h"

#include "common.h"

#define SOAP11_NS "http://schemas.xmlsoap.org/soap/envelope/"

/* The first element child of n, or NULL. */
static dom_node *first_element(dom_node *n)
{
	dom_node *c = dom_first_child(n);

	while (c != NULL && dom_node_type(c) != DOM_ELEMENT)
		c = dom_next_sibling(c);
	return c;
}

/* Appends the exclusive C14N of the Body's first element to out. */
static int body_first(dom_doc *doc, lab_buf *out, lab_err *err)
{
	dom_node *env = dom_doc_element(doc), *c;
	wss_c14n_opts co = {1, 0, NULL, 0, NULL}; /* exclusive, no comments */

	/* Names are interned per document: compare strings, or intern first. */
	for (c = env ? first_element(env) : NULL; c != NULL;
	     c = dom_next_sibling(c))
		if (dom_node_type(c) == DOM_ELEMENT && dom_ns_uri(c) != NULL &&
		    strcmp(dom_ns_uri(c), SOAP11_NS) == 0 &&
		    strcmp(dom_local_name(c), "Body") == 0)
			break;
	if (c == NULL || (c = first_element(c)) == NULL)
		return lab_fail(err, LAB_EMALFORMED, "no element in a SOAP Body");
	return wss_c14n_buf(c, &co, out, err);
}

static int receive_file(char **argv, lab_err *err)
{
	lab_buf in = LAB_BUF_INIT, out = LAB_BUF_INIT;
	wss_privkey *key = NULL;
	wss_cert *trust = NULL;
	dom_doc *doc = NULL;
	dom_limits lim = {0}; /* zero fields: the default limits */
	wss_opts o;
	int rc;

	wss_opts_default(&o);
	rc = wss_privkey_load(argv[1], &key, err);
	if (rc == LAB_OK)
		rc = wss_cert_load(argv[2], &trust, err);
	if (rc == LAB_OK)
		rc = example_read(argv[3], &in, err);
	if (rc == LAB_OK)
		rc = dom_parse(in.data, in.len, &lim, &doc, err);
	if (rc == LAB_OK)
		rc = wss_receive_doc(doc, key, trust, &o, err);
	/* Only a message that passed every check is read. */
	if (rc == LAB_OK)
		rc = body_first(doc, &out, err);
	if (rc == LAB_OK && lab_buf_putc(&out, '\n') != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK)
		rc = example_write("-", out.data, out.len, err);
	dom_doc_free(doc);
	wss_cert_free(trust);
	wss_privkey_free(key);
	lab_buf_free(&out);
	lab_buf_free(&in);
	return rc;
}

int main(int argc, char **argv)
{
	lab_err err;
	int rc;

	if (argc == 2 && strcmp(argv[1], "--variant") == 0) {
		printf("%s\n", dom_variant_name());
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: receiver KEY.pem TRUSTED-CERT.pem IN.xml\n"
				"       receiver --variant\n");
		return LAB_EUSAGE;
	}
	lab_err_clear(&err);
	rc = receive_file(argv, &err);
	if (rc != LAB_OK)
		fprintf(stderr, "receiver (domlab %s): %s: %s\n",
			dom_variant_name(), lab_strerror(rc), err.msg);
	return rc;
}
