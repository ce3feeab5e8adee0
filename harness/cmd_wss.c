/*
 * cmd_wss.c - the pipeline's commands: sign, verify, encrypt, decrypt,
 * send, receive.  Each reads a document, gets its keys through the keys
 * variant, runs the stage on the tree and writes the result only when
 * every step succeeded.  send and receive also carry attachments
 * (harness/cli_attach.c): `send --attach FILE`, and `receive` of a
 * multipart message with `--attachment-out FILE`.  verify, decrypt and
 * receive take the caps on pre-authentication work that apply to them
 * (`--max-references` and the others of wss/caps.h).
 */
#include <stdlib.h>
#include <string.h>

#include "dom/alloc.h"
#include "harness/cli.h"
#include "wss/keys.h"
#include "wss/wss.h"

/* The caps (wss/caps.h) a command takes, as bits 1 << wss_cap_kind. */
#define CAPS_DSIG                                                     \
	((1u << WSS_CAP_REFERENCES) | (1u << WSS_CAP_TRANSFORMS) |    \
	 (1u << WSS_CAP_SIGNEDINFO))
#define CAPS_XENC                                                     \
	((1u << WSS_CAP_ENCRYPTED_KEYS) | (1u << WSS_CAP_DATA_REFS) | \
	 (1u << WSS_CAP_DATA_REFS_TOTAL))

static const struct {
	const char *name;
	unsigned need;
	unsigned caps;
} ops[] = {
	{"sign", LAB_NEED_KEY | LAB_NEED_CERT, 0},
	{"verify", LAB_NEED_TRUST, CAPS_DSIG},
	{"encrypt", LAB_NEED_PEER, 0},
	{"decrypt", LAB_NEED_KEY, CAPS_XENC},
	{"send", LAB_NEED_KEY | LAB_NEED_CERT | LAB_NEED_PEER, 0},
	{"receive", LAB_NEED_KEY | LAB_NEED_TRUST, CAPS_DSIG | CAPS_XENC},
};

const char *const lab_wss_valued[] = {"--key", "--cert", "--peer-cert",
				     "--trust", "--cipher", "--now", "--ttl",
				     NULL};

static int run(const char *op, dom_doc *doc, const wss_keyset *ks,
	       const wss_opts *o, lab_err *err)
{
	if (strcmp(op, "sign") == 0)
		return wss_sign_doc(doc, ks->key, ks->cert, o, err);
	if (strcmp(op, "verify") == 0)
		return wss_verify_doc(doc, ks->trust, o, err);
	if (strcmp(op, "encrypt") == 0)
		return wss_encrypt_doc(doc, ks->peer_cert, o, err);
	if (strcmp(op, "decrypt") == 0)
		return wss_decrypt_doc(doc, ks->key, o, err);
	if (strcmp(op, "send") == 0)
		return wss_send_doc(doc, ks->key, ks->cert, ks->peer_cert, o,
				    err);
	return wss_receive_doc(doc, ks->key, ks->trust, o, err);
}

int lab_wss_args(char **rest, int nrest, unsigned need, wss_key_paths *paths,
		 wss_opts *o, lab_err *err)
{
	int i, rc = LAB_OK;

	for (i = 0; i < nrest && rc == LAB_OK; i++) {
		const char *a = rest[i];
		size_t v;

		if (strcmp(a, "--key") == 0)
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
		} else if (strcmp(a, "--now") == 0) {
			rc = lab_parse_size(a, rest[++i], &v, err);
			o->now = (time_t)v;
		} else if (strcmp(a, "--ttl") == 0) {
			rc = lab_parse_size(a, rest[++i], &v, err);
			if (rc == LAB_OK && (v == 0 || v > 86400 * 365))
				rc = lab_fail(err, LAB_EUSAGE,
					      "--ttl must be 1..31536000");
			o->ttl = (unsigned)v;
		} else
			rc = lab_fail(err, LAB_EUSAGE, "unknown option '%s'", a);
	}
	if (rc != LAB_OK)
		return rc;
	if ((need & LAB_NEED_KEY) && paths->key == NULL)
		return lab_fail(err, LAB_EUSAGE, "--key is required");
	if ((need & LAB_NEED_CERT) && paths->cert == NULL)
		return lab_fail(err, LAB_EUSAGE, "--cert is required");
	if ((need & LAB_NEED_PEER) && paths->peer_cert == NULL)
		return lab_fail(err, LAB_EUSAGE, "--peer-cert is required");
	if ((need & LAB_NEED_TRUST) && paths->trust == NULL)
		return lab_fail(err, LAB_EUSAGE, "--trust is required");
	return LAB_OK;
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

/* The caps the command takes (`allowed`), taken out of rest into
 * caps; the others stay, for lab_wss_args to refuse. */
static int caps_args(unsigned allowed, char **rest, int *nrest,
		     wss_caps *caps, lab_err *err)
{
	int i, k = 0, rc = LAB_OK;

	for (i = 0; i < *nrest && rc == LAB_OK; i++) {
		wss_cap_kind c = wss_cap_by_flag(rest[i]);

		if (c == WSS_NCAPS || !(allowed & (1u << c)) ||
		    i + 1 == *nrest) {
			rest[k++] = rest[i];
			continue;
		}
		rc = lab_parse_size(rest[i], rest[i + 1], &caps->max[c], err);
		i++;
	}
	*nrest = k;
	return rc;
}

/* Output: the envelope, or with attachments to send the multipart
 * message; receive writes the attachment first, so the envelope appears
 * only when both could be written. */
static int write_result(const char *op, const lab_msg *m, const lab_io *io,
			const char *att_out, lab_err *err)
{
	lab_buf env = LAB_BUF_INIT, mime = LAB_BUF_INIT;
	int rc = dom_serialize(dom_doc_node(m->doc), &env, err);

	if (rc == LAB_OK && att_out != NULL)
		rc = lab_msg_write_attachment(m, att_out, err);
	if (rc == LAB_OK && strcmp(op, "send") == 0 && m->natt > 0) {
		rc = lab_msg_wrap(m, &env, &mime, err);
		if (rc == LAB_OK)
			rc = lab_write_output(io->out, mime.data, mime.len, err);
	} else if (rc == LAB_OK)
		rc = lab_write_output(io->out, env.data, env.len, err);
	lab_buf_free(&env);
	lab_buf_free(&mime);
	return rc;
}

int lab_cmd_wss(const char *op, int argc, char **argv, lab_err *err)
{
	static const char *const valued[] = {
		"--key", "--cert", "--peer-cert", "--trust", "--cipher",
		"--now", "--ttl", "--attach", "--attachment-out",
		"--max-encrypted-keys", "--max-data-refs",
		"--max-data-refs-total", "--max-references",
		"--max-transforms", "--max-signedinfo", NULL};
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	const char *attach = NULL, *att_out = NULL;
	lab_msg msg;
	wss_keyset ks;
	void *handle = NULL;
	char **rest;
	wss_opts o;
	lab_io io;
	size_t k;
	int nrest, rc;

	for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (strcmp(ops[k].name, op) == 0)
			break;
	if (k == sizeof ops / sizeof ops[0])
		return lab_fail(err, LAB_EUSAGE, "no command '%s'", op);
	wss_opts_default(&o);
	rest = dom_calloc((size_t)argc + 1, sizeof *rest);
	if (rest == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	memset(&msg, 0, sizeof msg);
	rc = lab_io_args(argc, argv, valued, &io, rest, &nrest, err);
	if (rc == LAB_OK)
		rc = attach_args(op, rest, &nrest, &attach, &att_out, err);
	if (rc == LAB_OK)
		rc = caps_args(ops[k].caps, rest, &nrest, &o.caps, err);
	if (rc == LAB_OK)
		rc = lab_wss_args(rest, nrest, ops[k].need, &paths, &o, err);
	o.lim = io.lim;
	if (rc == LAB_OK)
		rc = lab_msg_load(&io, strcmp(op, "receive") == 0, &msg, err);
	if (rc == LAB_OK && attach != NULL)
		rc = lab_msg_attach_file(attach, &msg, err);
	o.att = msg.att;
	o.natt = msg.natt;
	if (rc == LAB_OK)
		rc = wss_keys_acquire(&paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = run(op, msg.doc, &ks, &o, err);
	if (rc == LAB_OK)
		rc = write_result(op, &msg, &io, att_out, err);
	wss_keys_release(handle);
	wss_keys_cache_clear();
	lab_msg_free(&msg);
	dom_free(rest);
	return rc;
}
