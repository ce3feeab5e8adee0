/*
 * cmd_wss.c - the pipeline's commands: sign, verify, encrypt, decrypt,
 * send, receive, and forward, the intermediary, which writes the message
 * it checked byte for byte as it came.  Each reads a document, gets its keys through the keys
 * variant, runs the stage on the tree and writes the result only when
 * every step succeeded.  send and receive also carry attachments
 * (harness/cli/cli_attach.c): `send --attach FILE`, and `receive` of a
 * multipart message with `--attachment-out FILE`.  verify, decrypt and
 * receive take the caps on pre-authentication work that apply to them
 * (`--max-references` and the others of wss/caps.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "util/alloc.h"
#include "harness/cli/cli.h"
#include "wss/keys.h"
#include "wss/wss.h"

/* The options the operations share, each with what it does there. */
#define SIGNER_KEY {"--key", "K.pem", 1, "the sender's private key (PEM)"}
#define SIGNER_CERT                                                          \
	{"--cert", "C.pem", 1,                                               \
	 "the sender's certificate, carried in the BinarySecurityToken"}
#define RECIPIENT_KEY                                                        \
	{"--key", "K.pem", 1,                                                \
	 "the recipient's private key (PEM): unwraps the session key"}
#define PEER_CERT                                                            \
	{"--peer-cert", "PEER.pem", 1,                                       \
	 "the recipient's certificate: its key wraps the session key"}
#define TRUST                                                                \
	{"--trust", "PEER.pem", 1,                                           \
	 "the one certificate a signature is accepted from"}
#define CIPHER                                                               \
	{"--cipher", "aes256-gcm|aes128-cbc", 0,                             \
	 "the Body's cipher (default aes256-gcm)"}
#define NOW_SIGN                                                             \
	{"--now", "EPOCH", 0,                                                \
	 "the Timestamp's Created time, seconds since 1970 (default: the "   \
	 "clock)"}
#define NOW_CHECK                                                            \
	{"--now", "EPOCH", 0,                                                \
	 "the time the Timestamp is checked at, seconds since 1970 "         \
	 "(default: the clock)"}
#define TTL                                                                  \
	{"--ttl", "S", 0,                                                    \
	 "seconds from Created to the Timestamp's Expires (default 300)"}
/* The caps on pre-authentication work (wss/caps.h); 0 keeps a default. */
#define DSIG_CAPS                                                            \
	{"--max-references", "N", 0,                                         \
	 "refuse more than N References in SignedInfo (default 30)"},        \
	    {"--max-transforms", "N", 0,                                     \
	     "refuse more than N Transforms in one Reference (default 5)"},  \
	    {"--max-signedinfo", "BYTES", 0,                                 \
	     "refuse a SignedInfo over BYTES, measured before it is "        \
	     "canonicalized (default 65536)"}
#define XENC_CAPS                                                            \
	{"--max-encrypted-keys", "N", 0,                                     \
	 "refuse more than N EncryptedKeys in the Security header (default " \
	 "5)"},                                                              \
	    {"--max-data-refs", "N", 0,                                      \
	     "refuse more than N DataReferences in one ReferenceList "       \
	     "(default 100)"},                                               \
	    {"--max-data-refs-total", "N", 0,                                \
	     "refuse more than N DataReferences in the Security header "     \
	     "(default 200)"}
#define ALLOW_CBC                                                            \
	{"--allow-cbc", NULL, 0,                                             \
	 "accept aes128-cbc data where a Signature verified before its "     \
	 "decryption covers it (encrypt-then-sign); refused otherwise"}
#define OWN_CERT                                                             \
	{"--cert", "C.pem", 0,                                               \
	 "the recipient's own certificate: picks the EncryptedKey addressed " \
	 "to it by thumbprint, SKI or issuer and serial (default: the one "  \
	 "in --key's file, if any)"}
/* The header block an intermediary reads, signed by the sender. */
#define TO_SIGN                                                              \
	{"--to", "URI", 0,                                                   \
	 "add a WS-Addressing To header block holding URI, signed with the " \
	 "Timestamp"},                                                       \
	    {"--sign", "all|headers", 0,                                     \
	     "sign the Body too (all, the default) or only the Timestamp "   \
	     "and the wsa:To (headers, needs --to)"}
#define END {NULL, NULL, 0, NULL}

static const lab_opt sign_opts[] = {SIGNER_KEY, SIGNER_CERT, NOW_SIGN, TTL,
				    TO_SIGN, END};
static const lab_opt verify_opts[] = {TRUST, NOW_CHECK, DSIG_CAPS, END};
static const lab_opt encrypt_opts[] = {PEER_CERT, CIPHER, END};
static const lab_opt decrypt_opts[] = {RECIPIENT_KEY, XENC_CAPS, ALLOW_CBC,
				       END};
static const lab_opt send_opts[] = {
	SIGNER_KEY, SIGNER_CERT, PEER_CERT, CIPHER, NOW_SIGN, TTL,
	{"--layout", "sign-encrypt|encrypt-sign", 0,
	 "sign the Body then encrypt its content (the default), or encrypt "
	 "it then sign the Body holding the EncryptedData"},
	{"--key-id", "thumbprint|issuer-serial|ski|bst", 0,
	 "how the EncryptedKey names the recipient's certificate (default "
	 "thumbprint; bst carries the certificate in the header)"},
	{"--encrypt-signature", NULL, 0,
	 "encrypt the Signature too, under the Body's key (sign-encrypt)"},
	{"--encrypt-header", "{URI}LOCAL", 0,
	 "encrypt that header block into a wsse11:EncryptedHeader"},
	{"--attach", "FILE", 0,
	 "sign FILE's bytes with the envelope and write a multipart/related "
	 "message (SOAP with Attachments)"},
	{"--threads", "1|2", 0,
	 "2: encrypt the Body's content on a second thread while this one "
	 "digests and signs it, or, where the content is canonical as it "
	 "stands, digest it there during the parse (the same bytes; "
	 "docs/pipeline.md)"},
	TO_SIGN, END};
static const lab_opt receive_opts[] = {
	RECIPIENT_KEY, OWN_CERT, TRUST, NOW_CHECK, DSIG_CAPS, XENC_CAPS,
	ALLOW_CBC,
	{"--attachment-out", "FILE", 0,
	 "write a multipart message's verified attachment to FILE (before "
	 "the envelope, after every check passed)"},
	{"--threads", "1|2", 0,
	 "2: digest the decrypted Body on a second thread while this one "
	 "parses it (the same answers; docs/pipeline.md)"},
	END};
static const lab_opt forward_opts[] = {
	TRUST, NOW_CHECK,
	{"--to", "URI", 0,
	 "refuse a message whose wsa:To is not URI (default: any; it is "
	 "printed on standard error either way)"},
	DSIG_CAPS, END};

static const struct {
	const char *name;
	const lab_opt *opts;
} ops[] = {
	{"sign", sign_opts},       {"verify", verify_opts},
	{"encrypt", encrypt_opts}, {"decrypt", decrypt_opts},
	{"send", send_opts},       {"receive", receive_opts},
	{"forward", forward_opts},
};

const lab_opt *lab_wss_options(const char *op)
{
	size_t k;

	for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (strcmp(ops[k].name, op) == 0)
			return ops[k].opts;
	return NULL;
}

/* to: where forward leaves the wsa:To it read; env: where send writes
 * the envelope (as it finishes it: wss_send_doc_ahead). */
static int run(const char *op, const lab_msg *msg, const wss_keyset *ks,
	       wss_opts *o, lab_buf *to, lab_buf *env, lab_err *err)
{
	dom_doc *doc = msg->doc;

	if (strcmp(op, "sign") == 0)
		return wss_sign_doc(doc, ks->key, ks->cert, o, err);
	if (strcmp(op, "verify") == 0)
		return wss_verify_doc(doc, ks->trust, o, err);
	if (strcmp(op, "encrypt") == 0)
		return wss_encrypt_doc(doc, ks->peer_cert, o, err);
	if (strcmp(op, "decrypt") == 0)
		return wss_decrypt_doc(doc, ks->key, o, err);
	if (strcmp(op, "send") == 0)
		return wss_send_doc_ahead(doc, ks->key, ks->cert,
					  ks->peer_cert, o, msg->ahead, env,
					  err);
	if (strcmp(op, "forward") == 0)
		return wss_forward_doc(doc, ks->trust, o, to, err);
	o->self = ks->cert;
	return wss_receive_doc(doc, ks->key, ks->trust, o, err);
}

/* 1 when rest (options, with the values of those that take one) gives
 * the option name. */
static int given(char **rest, int nrest, const lab_opt *opts,
		 const char *name)
{
	int i;

	for (i = 0; i < nrest; i++) {
		const lab_opt *opt = lab_opt_find(opts, rest[i]);

		if (strcmp(rest[i], name) == 0)
			return 1;
		i += opt != NULL && opt->arg != NULL;
	}
	return 0;
}

int lab_wss_args(char **rest, int nrest, const lab_opt *opts,
		 wss_key_paths *paths, wss_opts *o, lab_err *err)
{
	const lab_opt *k;
	int i, rc = LAB_OK;

	for (i = 0; i < nrest && rc == LAB_OK; i++) {
		const char *a = rest[i];
		size_t v;

		if (lab_opt_find(opts, a) == NULL)
			rc = lab_fail(err, LAB_EUSAGE, "unknown option '%s'", a);
		else if (strcmp(a, "--key") == 0)
			paths->key = rest[++i];
		else if (strcmp(a, "--cert") == 0)
			paths->cert = rest[++i];
		else if (strcmp(a, "--peer-cert") == 0)
			paths->peer_cert = rest[++i];
		else if (strcmp(a, "--trust") == 0)
			paths->trust = rest[++i];
		else if (strcmp(a, "--cipher") == 0) {
			if (wss_cipher_from_name(rest[++i], &o->cipher) != 0)
				rc = lab_fail(err, LAB_EUSAGE,
					      "--cipher is aes256-gcm or "
					      "aes128-cbc");
		} else if (strcmp(a, "--layout") == 0) {
			const char *lay = rest[++i];

			o->layout = strcmp(lay, "encrypt-sign") == 0
					    ? WSS_ENCRYPT_SIGN
					    : WSS_SIGN_ENCRYPT;
			if (strcmp(lay, "encrypt-sign") != 0 &&
			    strcmp(lay, "sign-encrypt") != 0)
				rc = lab_fail(err, LAB_EUSAGE,
					      "--layout is sign-encrypt or "
					      "encrypt-sign");
		} else if (strcmp(a, "--to") == 0)
			o->to = rest[++i];
		else if (strcmp(a, "--sign") == 0) {
			const char *what = rest[++i];

			o->headers_only = strcmp(what, "headers") == 0;
			if (!o->headers_only && strcmp(what, "all") != 0)
				rc = lab_fail(err, LAB_EUSAGE,
					      "--sign is all or headers");
		} else if (strcmp(a, "--key-id") == 0)
			rc = wss_key_id_from_name(rest[++i], &o->key_id, err);
		else if (strcmp(a, "--allow-cbc") == 0)
			o->allow_cbc = 1;
		else if (strcmp(a, "--encrypt-signature") == 0)
			o->encrypt_signature = 1;
		else if (strcmp(a, "--encrypt-header") == 0)
			o->encrypt_header = rest[++i];
		else if (strcmp(a, "--threads") == 0) {
			rc = lab_parse_size(a, rest[++i], &v, err);
			if (rc == LAB_OK && v != 1 && v != 2)
				rc = lab_fail(err, LAB_EUSAGE,
					      "--threads is 1 or 2");
			o->threads = (int)v;
		} else if (strcmp(a, "--now") == 0) {
			rc = lab_parse_size(a, rest[++i], &v, err);
			o->now = (time_t)v;
		} else if (strcmp(a, "--ttl") == 0) {
			rc = lab_parse_size(a, rest[++i], &v, err);
			if (rc == LAB_OK && (v == 0 || v > 86400 * 365))
				rc = lab_fail(err, LAB_EUSAGE,
					      "--ttl must be 1..31536000");
			o->ttl = (unsigned)v;
		} else if (wss_cap_by_flag(a) != WSS_NCAPS)
			rc = lab_parse_size(a, rest[++i],
					    &o->caps.max[wss_cap_by_flag(a)], err);
		else
			rc = lab_fail(err, LAB_EUSAGE, "unknown option '%s'", a);
	}
	for (k = opts; rc == LAB_OK && k->name != NULL; k++)
		if (k->required && !given(rest, nrest, opts, k->name))
			rc = lab_fail(err, LAB_EUSAGE, "%s is required",
				      k->name);
	return rc;
}

/* receive without --cert: the key file's certificate, when the file holds
 * one besides the key (a PEM bundle), so that an EncryptedKey naming it
 * by thumbprint, SKI or issuer and serial is matched, not just tried. */
static int key_file_cert(wss_key_paths *paths, lab_err *err)
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----";
	lab_buf pem = LAB_BUF_INIT;
	int rc = lab_read_input(paths->key, 1 << 20, &pem, err);

	if (rc == LAB_OK &&
	    memmem(pem.data, pem.len, begin, sizeof begin - 1) != NULL)
		paths->cert = paths->key;
	if (pem.data != NULL)
		OPENSSL_cleanse(pem.data, pem.len);
	lab_buf_free(&pem);
	return rc;
}

/* The attachment options, taken out of rest: --attach for send,
 * --attachment-out for receive. */
static int attach_args(const char *op, char **rest, int *nrest,
		       const char **attach, const char **att_out, lab_err *err)
{
	int i, k = 0;

	for (i = 0; i < *nrest; i++) {
		const char **slot = strcmp(rest[i], "--attach") == 0 &&
					    strcmp(op, "send") == 0
				    ? attach
				    : strcmp(rest[i], "--attachment-out") == 0 &&
					      strcmp(op, "receive") == 0
					  ? att_out
					  : NULL;

		if (slot == NULL) {
			rest[k++] = rest[i];
			continue;
		}
		if (i + 1 == *nrest)
			return lab_fail(err, LAB_EUSAGE, "%s needs a file",
					rest[i]);
		*slot = rest[++i];
	}
	*nrest = k;
	return LAB_OK;
}

/* Output: the envelope (env: send's, written already), or with
 * attachments to send the multipart message; receive writes the
 * attachment first, so the envelope appears only when both could be
 * written.  forward writes the bytes it read: a hop passes the message
 * on as it came, the Body it never read included. */
static int write_result(const char *op, const lab_msg *m, const lab_io *io,
			const char *att_out, lab_buf *env, lab_err *err)
{
	lab_buf mime = LAB_BUF_INIT;
	int rc = LAB_OK;

	if (strcmp(op, "forward") == 0)
		return lab_write_output(io->out, m->in.data, m->in.len, err);
	if (strcmp(op, "send") != 0)
		rc = dom_serialize(dom_doc_node(m->doc), env, err);
	if (rc == LAB_OK && att_out != NULL)
		rc = lab_msg_write_attachment(m, att_out, err);
	if (rc == LAB_OK && strcmp(op, "send") == 0 && m->natt > 0) {
		rc = lab_msg_wrap(m, env, &mime, err);
		if (rc == LAB_OK)
			rc = lab_write_output(io->out, mime.data, mime.len, err);
	} else if (rc == LAB_OK)
		rc = lab_write_output(io->out, env->data, env->len, err);
	lab_buf_free(&mime);
	return rc;
}

/*
 * The command's keys through the keys axis, except that sign and send only
 * carry their own certificate: its bytes are read, not parsed
 * (wss_cert_load_bytes), and *own holds them for the caller to free.
 */
static int get_keys(const char *op, wss_key_paths *paths, wss_keyset *ks,
		    void **handle, wss_cert **own, lab_err *err)
{
	const char *cert = paths->cert;
	int carried = strcmp(op, "sign") == 0 || strcmp(op, "send") == 0;
	int rc;

	if (carried)
		paths->cert = NULL;
	rc = wss_keys_acquire(paths, ks, handle, err);
	if (rc == LAB_OK && carried && cert != NULL) {
		rc = wss_cert_load_bytes(cert, own, err);
		ks->cert = *own;
	}
	return rc;
}

int lab_cmd_wss(const char *op, int argc, char **argv, lab_err *err)
{
	const lab_opt *opts = lab_wss_options(op);
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	const char *attach = NULL, *att_out = NULL;
	lab_buf to = LAB_BUF_INIT, env = LAB_BUF_INIT;
	lab_msg msg;
	wss_keyset ks;
	wss_cert *own = NULL;
	void *handle = NULL;
	char **rest;
	wss_opts o;
	lab_io io;
	int nrest, rc;

	if (opts == NULL)
		return lab_fail(err, LAB_EUSAGE, "no command '%s'", op);
	wss_opts_default(&o);
	rest = lab_calloc((size_t)argc + 1, sizeof *rest);
	if (rest == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	memset(&msg, 0, sizeof msg);
	rc = lab_io_args(argc, argv, opts, &io, rest, &nrest, err);
	if (rc == LAB_OK)
		rc = attach_args(op, rest, &nrest, &attach, &att_out, err);
	if (rc == LAB_OK)
		rc = lab_wss_args(rest, nrest, opts, &paths, &o, err);
	o.lim = io.lim;
	if (rc == LAB_OK && strcmp(op, "receive") == 0 && paths.cert == NULL)
		rc = key_file_cert(&paths, err);
	if (rc == LAB_OK)
		rc = lab_msg_load(&io, strcmp(op, "receive") == 0,
				  strcmp(op, "sign") == 0 ||
					  strcmp(op, "send") == 0,
				  strcmp(op, "send") == 0 ? &o : NULL, &msg,
				  err);
	if (rc == LAB_OK && attach != NULL)
		rc = lab_msg_attach_file(attach, &msg, err);
	o.att = msg.att;
	o.natt = msg.natt;
	if (rc == LAB_OK)
		rc = get_keys(op, &paths, &ks, &handle, &own, err);
	if (rc == LAB_OK)
		rc = run(op, &msg, &ks, &o, &to, &env, err);
	if (rc == LAB_OK)
		rc = write_result(op, &msg, &io, att_out, &env, err);
	if (rc == LAB_OK && strcmp(op, "forward") == 0)
		fprintf(stderr, "domlab: forward: wsa:To %s\n",
			to.data != NULL ? to.data : "");
	wss_cert_free(own);
	wss_keys_release(handle);
	wss_keys_cache_clear();
	lab_msg_free(&msg);
	lab_buf_free(&to);
	lab_buf_free(&env);
	lab_free(rest);
	return rc;
}
