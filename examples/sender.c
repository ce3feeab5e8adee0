/*
 * sender.c - the sending side of domlab as an application uses it: reads
 * a SOAP envelope, signs its Body and Timestamp and encrypts the Body
 * (wss_send_doc), and writes the secured message.
 *
 *   sender KEY.pem CERT.pem PEER-CERT.pem IN.xml OUT.xml    ("-": stdin/stdout)
 *
 * Exit status: the library's error code (util/err.h), 0 when sent.
 * Not for: production key handling; the keys are unencrypted PEM files.
 */
#include <stdio.h>

#include "dom/dom.h"
#include "wss/wss.h"

#include "common.h"

static int send_file(char **argv, lab_err *err)
{
	lab_buf in = LAB_BUF_INIT, out = LAB_BUF_INIT;
	wss_privkey *key = NULL;
	wss_cert *cert = NULL, *peer = NULL;
	dom_doc *doc = NULL;
	dom_limits lim = {0}; /* zero fields: the default limits */
	wss_opts o;
	int rc;

	wss_opts_default(&o);
	rc = wss_privkey_load(argv[1], &key, err);
	if (rc == LAB_OK)
		rc = wss_cert_load(argv[2], &cert, err);
	if (rc == LAB_OK)
		rc = wss_cert_load(argv[3], &peer, err);
	if (rc == LAB_OK)
		rc = example_read(argv[4], &in, err);
	if (rc == LAB_OK)
		rc = dom_parse(in.data, in.len, &lim, &doc, err);
	if (rc == LAB_OK)
		rc = wss_send_doc(doc, key, cert, peer, &o, err);
	/* The document changed in place; it is written only once sent. */
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), &out, err);
	if (rc == LAB_OK)
		rc = example_write(argv[5], out.data, out.len, err);
	dom_doc_free(doc);
	wss_cert_free(peer);
	wss_cert_free(cert);
	wss_privkey_free(key);
	lab_buf_free(&out);
	lab_buf_free(&in);
	return rc;
}

int main(int argc, char **argv)
{
	lab_err err;
	int rc;

	if (argc != 6) {
		fprintf(stderr, "usage: sender KEY.pem CERT.pem PEER-CERT.pem "
				"IN.xml OUT.xml\n");
		return LAB_EUSAGE;
	}
	lab_err_clear(&err);
	rc = send_file(argv, &err);
	if (rc != LAB_OK)
		fprintf(stderr, "sender (domlab %s): %s: %s\n",
			dom_variant_name(), lab_strerror(rc), err.msg);
	return rc;
}
